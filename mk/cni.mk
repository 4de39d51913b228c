# build/sojourn-cni, the CNI plugin (issue 7).  Its tests run the plugin
# as a container runtime does, with the reference plugins of
# containernetworking-plugins beside it.
DEB_PKGS += containernetworking-plugins
CNI_SRCS := $(wildcard cni/*.c)
CNI_BIN  := $(OUTPUT)/sojourn-cni
PROGRAMS += $(CNI_BIN)

$(OUTPUT)/cni:
	$(Q)mkdir -p $@

$(CNI_BIN): $(CNI_SRCS) $(wildcard cni/*.h) include/sojourn.h | $(OUTPUT)/cni
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -Icni $(CNI_SRCS) -ljson-c -lmnl -o $@
