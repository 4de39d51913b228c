# build/sojourn-cni, the CNI plugin (issue 7).  tests/cli/cni.sh chains it
# after Debian's bridge and host-local plugins (containernetworking-plugins).
DEB_PKGS += containernetworking-plugins
CNI_SRCS := $(wildcard cni/*.c)
# and of the loader's objects link.o alone, which reads links over
# netlink with nothing but libmnl: the plugin stays small
CNI_OBJS := $(patsubst cni/%.c,$(OUTPUT)/cni/%.o,$(CNI_SRCS)) $(OUTPUT)/loader/link.o
CNI_BIN  := $(OUTPUT)/sojourn-cni
# it writes its result in JSON and configures links over netlink
CNI_LIBS := -ljson-c -lmnl
PROGRAMS += $(CNI_BIN)

$(OUTPUT)/cni:
	$(Q)mkdir -p $@

$(OUTPUT)/cni/%.o: cni/%.c | $(OUTPUT)/cni
	$(call msg,CC,$@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) -Icni -c $< -o $@

$(CNI_BIN): $(CNI_OBJS)
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $^ $(CNI_LIBS) $(LDLIBS) -o $@
