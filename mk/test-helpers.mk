# The programs the test scripts under tests/ drive, built by `make tests`.
#   tcx_ahead          puts a program at the head of a tcx chain (issue 15,
#                      tests/e2e/ahead.sh)
#   ahead_ok.bpf.o     a foreign tc program returning TC_ACT_OK (a verdict)
#   ahead_next.bpf.o   the same returning TC_ACT_UNSPEC (next)
#   ahead_half.bpf.o   TC_ACT_OK for every second packet, next for the others
#   txtime_send        a UDP sender with SO_TXTIME departure times (issue 14,
#                      tests/e2e/field_*.sh)
#   tstamp_check.bpf.o a tc ingress checker of what skb->tstamp arrives
#   flowgen            the export test's 10k steady flows (issue 5)
#   udpcc              a UDP flow with QUIC's congestion control (issue 17)
#   promtool           checks both export outputs; taken out of Debian's
#                      prometheus package into build/ (never installed: it
#                      would start a Prometheus server on the machine)
#   tcx_query          what runs at a device's tcx hooks (the fault tests)
#   sj_flood           the flood test's sender: a new 5-tuple every packet
#   make soak          the long runs: 60 s / 2M-flow flood, 10 min of churn
DEB_PKGS   += curl
EXTRA_BINS += $(OUTPUT)/tcx_ahead $(OUTPUT)/ahead_ok.bpf.o $(OUTPUT)/ahead_next.bpf.o \
	      $(OUTPUT)/ahead_half.bpf.o $(OUTPUT)/txtime_send $(OUTPUT)/tstamp_check.bpf.o \
	      $(OUTPUT)/flowgen $(OUTPUT)/udpcc $(OUTPUT)/promtool $(OUTPUT)/tcx_query $(OUTPUT)/sj_flood

$(OUTPUT)/tcx_ahead: tests/prog/tcx_ahead.c | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)$(PROG.c) $(LIBBPF) $(LDLIBS) -o $@

$(OUTPUT)/ahead_ok.bpf.o: tests/e2e/ahead_prog.bpf.c | $(OUTPUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) $(DEPFLAGS) -DAHEAD_VERDICT=TC_ACT_OK_NR -c $< -o $@

$(OUTPUT)/ahead_next.bpf.o: tests/e2e/ahead_prog.bpf.c | $(OUTPUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) $(DEPFLAGS) -DAHEAD_VERDICT=TC_ACT_UNSPEC_NR -c $< -o $@

$(OUTPUT)/ahead_half.bpf.o: tests/e2e/ahead_prog.bpf.c | $(OUTPUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) $(DEPFLAGS) -DAHEAD_VERDICT=TC_ACT_OK_NR -DAHEAD_EVERY=2 -c $< -o $@

$(OUTPUT)/txtime_send: tests/e2e/txtime_send.c | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)$(PROG.c) $(LDLIBS) -o $@

$(OUTPUT)/tstamp_check.bpf.o: tests/e2e/tstamp_check.bpf.c | $(OUTPUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) $(DEPFLAGS) -c $< -o $@

$(OUTPUT)/flowgen: tests/e2e/flowgen.c | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)$(PROG.c) $(LDLIBS) -o $@

$(OUTPUT)/udpcc: tests/e2e/udpcc.c | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)$(PROG.c) $(LDLIBS) -o $@

# promtool is a static Go binary: unpacking the .deb is all it needs
$(OUTPUT)/promtool: | $(OUTPUT)
	$(call msg,FETCH,$@)
	$(Q)rm -rf $(OUTPUT)/prometheus-deb && mkdir -p $(OUTPUT)/prometheus-deb && \
	cd $(OUTPUT)/prometheus-deb && apt-get download prometheus >/dev/null 2>&1 || \
	{ apt-get update -qq && apt-get download prometheus >/dev/null; } && \
	dpkg-deb -x prometheus_*.deb root && \
	install -m 755 root/usr/bin/promtool ../promtool && \
	cd .. && rm -rf prometheus-deb

$(OUTPUT)/tcx_query: tests/prog/tcx_query.c | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)$(PROG.c) $(LIBBPF) $(LDLIBS) -o $@

$(OUTPUT)/sj_flood: tests/prog/flood.c | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)$(PROG.c) $(LDLIBS) -o $@

# the long runs, not part of check: the full flood, then 10 minutes of churn
.PHONY: soak
soak: all $(OUTPUT)/sj_flood $(OUTPUT)/tcx_query
	$(Q)SECS=60 FLOWS=2000000 nice -n 10 tests/e2e/flood.sh
	$(Q)nice -n 10 tests/soak/churn.sh
