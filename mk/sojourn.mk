# build/sojourn, the loader: its objects under build/loader/.  Its
# libraries, which no other program links: libxdp puts the ingress program
# in the XDP dispatcher, libbpf loads the rest, json-c writes -j, libmnl
# speaks netlink, inih reads sojourn.conf.  libsystemd (the daemon's unit,
# issue 7) and libmicrohttpd (`sojourn export`'s Prometheus endpoint,
# issue 5) are opened by the commands that use them (loader/dynlib.c): their
# headers are needed here, not their link.
DEB_PKGS += libmicrohttpd-dev libinih-dev libsystemd-dev
SOJOURN_LIBS := -lxdp $(LIBBPF) -ljson-c -lmnl -linih
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
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $^ $(SOJOURN_LIBS) $(LDLIBS) -o $@

# rewritten only when the version changes, so main.o is rebuilt after a
# commit and not on every make (named here too: a first build has no .d)
$(OUTPUT)/version.h: FORCE | $(OUTPUT)
	$(Q)v='#define SJ_VERSION "$(SJ_VERSION)"'; \
	[ "$$(cat $@ 2>/dev/null)" = "$$v" ] || echo "$$v" >$@
$(OUTPUT)/loader/main.o: $(OUTPUT)/version.h
