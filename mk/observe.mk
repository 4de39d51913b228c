# Observability (issue 5): hist, top, export.  libmicrohttpd serves the
# Prometheus endpoint; the tests check both outputs with promtool, taken
# out of Debian's prometheus package into build/ (never installed: it would
# start a Prometheus server on the machine).
DEB_PKGS   += libmicrohttpd-dev curl
LDLIBS     += -lmicrohttpd
UNIT_TESTS += $(OUTPUT)/test_hist
EXTRA_BINS += $(OUTPUT)/promtool

$(OUTPUT)/test_hist: tests/unit/test_hist.c loader/prom.c loader/flowkey.c \
		     loader/prom.h loader/obs.h $(HEADERS) | $(OUTPUT)
	$(call msg,TEST,$@)
	$(Q)$(CC) $(CFLAGS) tests/unit/test_hist.c loader/prom.c loader/flowkey.c -o $@

# promtool is a static Go binary: unpacking the .deb is all it needs
$(OUTPUT)/promtool: | $(OUTPUT)
	$(call msg,FETCH,$@)
	$(Q)rm -rf $(OUTPUT)/prometheus-deb && mkdir -p $(OUTPUT)/prometheus-deb && \
	cd $(OUTPUT)/prometheus-deb && apt-get download prometheus >/dev/null 2>&1 || \
	{ apt-get update -qq && apt-get download prometheus >/dev/null; } && \
	dpkg-deb -x prometheus_*.deb root && \
	install -m 755 root/usr/bin/promtool ../promtool && \
	cd .. && rm -rf prometheus-deb

# the export test's 10k steady flows
EXTRA_BINS += $(OUTPUT)/flowgen
$(OUTPUT)/flowgen: tests/e2e/flowgen.c | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $< -o $@
