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

# ---- install: PREFIX for programs and data, DESTDIR for staging ----
PREFIX     ?= /usr/local
SYSCONFDIR ?= /etc
UNITDIR    ?= $(PREFIX)/lib/systemd/system
INSTALL    ?= install

.PHONY: install deb
install: $(OUTPUT)/sojourn $(CNI_BIN)
	$(INSTALL) -d $(DESTDIR)$(PREFIX)/sbin $(DESTDIR)$(PREFIX)/lib/cni \
		$(DESTDIR)$(PREFIX)/share/man/man8 $(DESTDIR)$(PREFIX)/share/man/man5 \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions \
		$(DESTDIR)$(PREFIX)/share/doc/sojourn/examples \
		$(DESTDIR)$(UNITDIR) $(DESTDIR)$(SYSCONFDIR)/sojourn
	$(INSTALL) -m 755 $(OUTPUT)/sojourn $(DESTDIR)$(PREFIX)/sbin/sojourn
	$(INSTALL) -m 755 $(CNI_BIN) $(DESTDIR)$(PREFIX)/lib/cni/sojourn-cni
	$(INSTALL) -m 644 dist/sojourn.8 $(DESTDIR)$(PREFIX)/share/man/man8/
	$(INSTALL) -m 644 dist/sojourn.conf.5 $(DESTDIR)$(PREFIX)/share/man/man5/
	$(INSTALL) -m 644 dist/sojourn.bash-completion \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/sojourn
	sed 's|/usr/sbin/sojourn|$(PREFIX)/sbin/sojourn|g; s|/etc/sojourn|$(SYSCONFDIR)/sojourn|g' \
		dist/sojourn.service >$(DESTDIR)$(UNITDIR)/sojourn.service
	chmod 644 $(DESTDIR)$(UNITDIR)/sojourn.service
	$(INSTALL) -m 644 dist/sojourn.conf dist/sojourn-cni.conflist \
		dist/sojourn-daemonset.yaml $(DESTDIR)$(PREFIX)/share/doc/sojourn/examples/
	@# an operator's configuration is theirs: only a first install writes it
	[ -e $(DESTDIR)$(SYSCONFDIR)/sojourn/sojourn.conf ] || \
		$(INSTALL) -m 644 dist/sojourn.conf $(DESTDIR)$(SYSCONFDIR)/sojourn/sojourn.conf

# ---- make deb: a Debian package of `make install PREFIX=/usr` ----
DEB_VERSION ?= $(SJ_VERSION)
DEB_ARCH    := $(shell dpkg --print-architecture 2>/dev/null || echo amd64)
DEB_STAGE   := $(OUTPUT)/deb
DEB_FILE    := $(OUTPUT)/sojourn_$(DEB_VERSION)_$(DEB_ARCH).deb

deb: $(OUTPUT)/sojourn $(CNI_BIN)
	$(Q)rm -rf $(DEB_STAGE) && mkdir -p $(DEB_STAGE)/root/DEBIAN $(DEB_STAGE)/debian
	$(Q)$(MAKE) --no-print-directory install DESTDIR=$(CURDIR)/$(DEB_STAGE)/root \
		PREFIX=/usr UNITDIR=/lib/systemd/system >/dev/null
	$(Q)gzip -9n $(DEB_STAGE)/root/usr/share/man/man*/*
	$(Q)strip --strip-unneeded --remove-section=.comment --remove-section=.note \
		$(DEB_STAGE)/root/usr/sbin/sojourn $(DEB_STAGE)/root/usr/lib/cni/sojourn-cni
	$(Q)dist/deb-meta.sh $(DEB_STAGE) $(DEB_VERSION) $(DEB_ARCH)
	$(Q)dpkg-deb --root-owner-group -Zxz --build $(DEB_STAGE)/root $(DEB_FILE) >/dev/null
	$(call msg,DEB,$(DEB_FILE))
	$(Q)if command -v lintian >/dev/null; then \
		lintian --fail-on error $(DEB_FILE); \
	fi
