# build/sojourn, the loader: its objects under build/loader/.
# libmicrohttpd serves `sojourn export`'s Prometheus endpoint (issue 5);
# inih reads sojourn.conf and libsystemd answers the daemon's unit (issue 7).
DEB_PKGS += libmicrohttpd-dev libinih-dev libsystemd-dev
LDLIBS   += -linih -lsystemd -lmicrohttpd
PROGRAMS += $(OUTPUT)/sojourn

LOADER_SRCS := $(wildcard loader/*.c)
LOADER_OBJS := $(patsubst loader/%.c,$(OUTPUT)/loader/%.o,$(LOADER_SRCS))

$(OUTPUT)/loader:
	$(Q)mkdir -p $@

$(OUTPUT)/loader/%.o: loader/%.c | $(OUTPUT)/loader $(SKELS)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) -c $< -o $@

$(OUTPUT)/sojourn: $(LOADER_OBJS)
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $^ $(LDLIBS) -o $@

# rewritten only when the version changes, so main.o is rebuilt after a
# commit and not on every make (named here too: a first build has no .d)
$(OUTPUT)/version.h: FORCE | $(OUTPUT)
	$(Q)v='#define SJ_VERSION "$(SJ_VERSION)"'; \
	[ "$$(cat $@ 2>/dev/null)" = "$$v" ] || echo "$$v" >$@
$(OUTPUT)/loader/main.o: $(OUTPUT)/version.h
