# Reliability and security (issue 9): the packet corpus and the property
# test through BPF_PROG_TEST_RUN, libFuzzer harnesses, fault and flood tests.
#   make fuzz        each fuzzer for FUZZ_SECS (default 60) on its corpus
#   make soak        the long runs: 60 s / 2M-flow flood, 10 min of churn
# `make tests` builds the packet tests and the short fuzz pass run by check.

# the XDP skeleton once the ingress program is in the tree
REL_SKELS := $(OUTPUT)/sojourn.skel.h \
	     $(if $(wildcard bpf/ingress.bpf.c),$(OUTPUT)/sojourn_xdp.skel.h)
REL_PROG_DEPS := tests/prog/corpus.h tests/prog/runner.h $(REL_SKELS) $(HEADERS)
REL_BINS := $(OUTPUT)/test_corpus $(OUTPUT)/test_property

UNIT_TESTS += $(REL_BINS)
# `tests:` in the Makefile expands its prerequisites before mk/ is read
tests: $(REL_BINS)

$(OUTPUT)/test_corpus: tests/prog/test_corpus.c $(REL_PROG_DEPS) | $(OUTPUT)
	$(call msg,TEST,$@)
	$(Q)$(CC) $(CFLAGS) $< $(LDLIBS) -o $@

$(OUTPUT)/test_property: tests/prog/test_property.c $(REL_PROG_DEPS) | $(OUTPUT)
	$(call msg,TEST,$@)
	$(Q)$(CC) $(CFLAGS) $< $(LDLIBS) -o $@

# libFuzzer: the packet parser, the tc units, the attach/change options
DEB_PKGS += libclang-rt-14-dev
FUZZ_CC ?= clang
FUZZ_CFLAGS := -g -O1 -fsanitize=fuzzer,address,undefined \
	       -fno-sanitize-recover=all -Wall -Iinclude -Iloader -I$(OUTPUT)
FUZZ_BINS := $(OUTPUT)/fuzz/fuzz_parse $(OUTPUT)/fuzz/fuzz_units \
	     $(OUTPUT)/fuzz/fuzz_tune
FUZZ_SRCS_parse :=
FUZZ_SRCS_units := loader/units.c
FUZZ_SRCS_tune := loader/tune.c loader/options.c loader/units.c

tests: $(FUZZ_BINS) $(OUTPUT)/test_fuzz
.PHONY: fuzz

$(OUTPUT)/fuzz:
	$(Q)mkdir -p $@

# without the fuzzer runtime, say so and build nothing: test_fuzz skips
$(OUTPUT)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(HEADERS) | $(OUTPUT)/fuzz
	$(call msg,FUZZ,$@)
	$(Q)if printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }' | \
		$(FUZZ_CC) -fsanitize=fuzzer -x c - -o /dev/null 2>/dev/null; then \
		$(FUZZ_CC) $(FUZZ_CFLAGS) $< $(FUZZ_SRCS_$*) -o $@; \
	else echo "  (no libFuzzer runtime: $@ not built; make deps)"; fi

$(OUTPUT)/test_fuzz: tests/fuzz/run.sh | $(OUTPUT)
	$(Q)install -m 755 $< $@

fuzz: $(FUZZ_BINS) $(OUTPUT)/test_fuzz
	$(Q)FUZZ_GROW=1 FUZZ_SECS=$${FUZZ_SECS:-60} $(OUTPUT)/test_fuzz

# the fault tests ask the kernel what runs at a device's tcx hooks
EXTRA_BINS += $(OUTPUT)/tcx_query
tests: $(OUTPUT)/tcx_query
$(OUTPUT)/tcx_query: tests/prog/tcx_query.c | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $< $(LDLIBS) -o $@

# the flood test's sender: a new 5-tuple every packet
EXTRA_BINS += $(OUTPUT)/sj_flood
tests: $(OUTPUT)/sj_flood
$(OUTPUT)/sj_flood: tests/prog/flood.c | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $< -o $@

# the long runs, not part of check: the full flood, then 10 minutes of churn
.PHONY: soak
soak: all $(OUTPUT)/sj_flood $(OUTPUT)/tcx_query
	$(Q)SECS=60 FLOWS=2000000 nice -n 10 tests/e2e/flood.sh
	$(Q)nice -n 10 tests/soak/churn.sh
