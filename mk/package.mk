# What a package is made of: `make install` and the .deb (issue 7).
#   make install [PREFIX=/usr] [DESTDIR=...]
#   make deb          build/sojourn_VERSION_ARCH.deb and its -dbgsym (debian/,
#                     dpkg-buildpackage; lintian --pedantic when installed)
# the packaging tools, and what tests/cli/dist.sh and deb.sh check the
# shipped files with
DEB_PKGS += python3 systemd lintian bash-completion groff-base debhelper dpkg-dev

# ---- install: PREFIX for programs and data, DESTDIR for staging ----
PREFIX     ?= /usr/local
SYSCONFDIR ?= /etc
UNITDIR    ?= $(PREFIX)/lib/systemd/system
GENERATORDIR ?= $(PREFIX)/lib/systemd/system-generators
INSTALL    ?= install

.PHONY: install deb
install: $(OUTPUT)/sojourn $(CNI_BIN)
	$(INSTALL) -d $(DESTDIR)$(PREFIX)/sbin $(DESTDIR)$(PREFIX)/lib/cni \
		$(DESTDIR)$(PREFIX)/share/man/man8 $(DESTDIR)$(PREFIX)/share/man/man5 \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions \
		$(DESTDIR)$(PREFIX)/share/doc/sojourn/examples \
		$(DESTDIR)$(UNITDIR) $(DESTDIR)$(GENERATORDIR) $(DESTDIR)$(SYSCONFDIR)/sojourn
	$(INSTALL) -m 755 $(OUTPUT)/sojourn $(DESTDIR)$(PREFIX)/sbin/sojourn
	$(INSTALL) -m 755 $(CNI_BIN) $(DESTDIR)$(PREFIX)/lib/cni/sojourn-cni
	$(INSTALL) -m 644 dist/sojourn.8 dist/sojourn-cni.8 $(DESTDIR)$(PREFIX)/share/man/man8/
	$(INSTALL) -m 644 dist/sojourn.conf.5 $(DESTDIR)$(PREFIX)/share/man/man5/
	$(INSTALL) -m 644 dist/sojourn.bash-completion \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/sojourn
	for u in sojourn.service sojourn@.service; do \
		sed 's|/usr/sbin/sojourn|$(PREFIX)/sbin/sojourn|g; s|/etc/sojourn|$(SYSCONFDIR)/sojourn|g' \
			dist/$$u >$(DESTDIR)$(UNITDIR)/$$u && chmod 644 $(DESTDIR)$(UNITDIR)/$$u || exit; done
	@# Type=notify-reload where the running systemd has it (253 and later)
	$(INSTALL) -m 755 dist/sojourn-generator $(DESTDIR)$(GENERATORDIR)/sojourn-generator
	$(INSTALL) -m 644 dist/examples/* dist/sojourn-cni.conflist \
		dist/sojourn-daemonset.yaml $(DESTDIR)$(PREFIX)/share/doc/sojourn/examples/
	@# an operator's configuration is theirs: only a first install writes it
	[ -e $(DESTDIR)$(SYSCONFDIR)/sojourn/sojourn.conf ] || \
		$(INSTALL) -m 644 dist/sojourn.conf $(DESTDIR)$(SYSCONFDIR)/sojourn/sojourn.conf

# ---- make deb: debian/ (debhelper) through dpkg-buildpackage ----
# dpkg-buildpackage writes its results beside the source folder, and the
# package's clean step empties build/: so it builds a copy of the tree (the
# files git knows, committed or not) under $(OUTPUT)/deb, with none of this
# make's variables (MAKEFLAGS).  It is a full build (-F): the source package
# too, so that lintian reads debian/rules and the source as well as the
# binaries.  lintian --pedantic must find nothing at all;
# the .deb files (sojourn and sojourn-dbgsym) are then copied to $(OUTPUT).
DEB_TREE := $(OUTPUT)/deb/sojourn

deb:
	$(Q)rm -rf $(OUTPUT)/deb $(OUTPUT)/sojourn_*.deb $(OUTPUT)/sojourn-dbgsym_*.deb
	$(Q)mkdir -p $(DEB_TREE)
	$(Q)if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then \
		git ls-files -z -c -o --exclude-standard | \
		tar --null --ignore-failed-read --warning=no-failed-read -T - -cf - ; \
	else \
		tar --exclude-vcs --exclude='./build' --exclude='./$(OUTPUT)' -cf - . ; \
	fi | tar -xf - -C $(DEB_TREE)
	$(call msg,DPKG,$(DEB_TREE))
	$(Q)cd $(DEB_TREE) && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
		dpkg-buildpackage -us -uc -F -jauto >../build.log 2>&1 || \
		{ tail -30 ../build.log; echo "make deb: see $(OUTPUT)/deb/build.log"; exit 1; }
	$(Q)if command -v lintian >/dev/null; then \
		lintian --pedantic -I --fail-on error,warning,info,pedantic \
			$(OUTPUT)/deb/sojourn_*.changes; \
	fi
	$(Q)cp $(OUTPUT)/deb/*.deb $(OUTPUT)/
	$(Q)for f in $(OUTPUT)/sojourn*_*.deb; do printf '  %-8s %s\n' DEB "$$f"; done
