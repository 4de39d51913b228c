# bench/: the benchmark (see bench/README.md).  Not part of `all`;
# `make tests` builds the delay line and its test, which tests/run.sh runs.
#   make bench-cost      per-packet cost of the programs against a floor
#   make bench           latency under load, host kernel (QUICK=1: short)
#   make bench-vm        the same at 20 Mbit inside a Debian 6.1 VM (TCG)
DEB_PKGS   += irtt gnuplot-nox python3
EXTRA_BINS += $(OUTPUT)/delayline $(OUTPUT)/test_delayline

.PHONY: bench bench-cost bench-vm

$(OUTPUT)/delayline: bench/delayline.c | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)$(PROG.c) $(LDLIBS) -o $@

# a shell test, installed where tests/run.sh looks for test binaries
$(OUTPUT)/test_delayline: bench/test_delayline.sh | $(OUTPUT)
	$(Q)install -m 755 $< $@

$(OUTPUT)/floor.bpf.o: bench/floor.bpf.c | $(OUTPUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) $(DEPFLAGS) -c $< -o $@

$(OUTPUT)/cost: bench/cost.c | $(OUTPUT) $(SKELS)
	$(call msg,CC,$@)
	$(Q)$(PROG.c) $(LIBBPF) $(LDLIBS) -o $@

$(OUTPUT)/live: bench/live.c | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)$(PROG.c) $(LIBBPF) $(LDLIBS) -o $@

# test-run costs, then the attached programs under real traffic and the
# router's throughput with and without sojourn (bench/live.sh)
bench-cost: all $(OUTPUT)/cost $(OUTPUT)/live $(OUTPUT)/floor.bpf.o
	$(Q)mkdir -p bench/results
	$(Q){ echo "# Cost of sojourn per packet and through a router"; echo; \
	  echo "\`make bench-cost\` on $$(date -u +%Y-%m-%dT%H:%MZ), kernel" \
	    "$$(uname -r), $$(nproc) CPUs, commit $$(git rev-parse --short HEAD)," \
	    "load average $$(cut -d' ' -f1-3 /proc/loadavg) at the start." \
	    "See bench/README.md for how each figure is made."; \
	  echo; echo "## Test-run (build/cost)"; \
	  nice -n 10 $(OUTPUT)/cost; echo; \
	  nice -n 10 bench/live.sh; } | tee bench/results/cost.md

bench: deps
	$(Q)$(MAKE) --no-print-directory all $(OUTPUT)/delayline
	$(Q)QUICK=$(QUICK) nice -n 10 bench/rrul.sh

# qemu and busybox-static come with DEB_PKGS (tests/e2e/kernel_61.sh)
bench-vm: deps
	$(Q)$(MAKE) --no-print-directory all $(OUTPUT)/delayline
	$(Q)QUICK=$(QUICK) bench/vm.sh

# `make bench-fair`: the fairness scenarios' figures into bench/results/
.PHONY: bench-fair
bench-fair: all
	$(Q)nice -n 10 bench/fairness.sh

# `make bench-node`: a node of PODS pods (default 250) through the CNI
# plugin, against issue 16's targets (bench/node.sh; MEM_BUDGET_MIB caps
# the kernel memory it may take)
$(OUTPUT)/node_tcx: bench/node_tcx.c | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)$(PROG.c) $(LDLIBS) -o $@

$(OUTPUT)/spawn_ms: bench/spawn_ms.c | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)$(PROG.c) -o $@

.PHONY: bench-node
bench-node: all $(OUTPUT)/node_tcx $(OUTPUT)/spawn_ms
	$(Q)mkdir -p bench/results
	$(Q){ echo "# A node of pods through the CNI plugin"; echo; \
	  echo "\`make bench-node\` on $$(date -u +%Y-%m-%dT%H:%MZ), kernel" \
	    "$$(uname -r), $$(nproc) CPUs, $$(free -m | awk '/^Mem:/ {print $$2}') MiB RAM," \
	    "commit $$(git rev-parse --short HEAD), PODS=$${PODS:-250}," \
	    "load average $$(cut -d' ' -f1-3 /proc/loadavg) at the start." \
	    "See bench/README.md for how each figure is made."; \
	  echo; nice -n 10 bench/node.sh; } | tee bench/results/node.md
