# Fleet (issue 7): the daemon's libraries, the CNI plugin, install, .deb.
#   make install [PREFIX=/usr] [DESTDIR=...]
#   make deb          build/sojourn_VERSION_ARCH.deb (dpkg-deb; lintian if there)
DEB_PKGS += libinih-dev libsystemd-dev containernetworking-plugins python3 \
	    systemd lintian bash-completion groff-base
LDLIBS   += -linih -lsystemd

CNI_SRCS := $(wildcard cni/*.c)
CNI_BIN  := $(OUTPUT)/sojourn-cni

all: $(CNI_BIN)
tests: $(CNI_BIN)

$(OUTPUT)/cni:
	$(Q)mkdir -p $@

$(CNI_BIN): $(CNI_SRCS) $(wildcard cni/*.h) include/sojourn.h | $(OUTPUT)/cni
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(CFLAGS) -Icni $(CNI_SRCS) -ljson-c -lmnl -o $@
