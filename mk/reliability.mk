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
