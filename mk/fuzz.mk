# The libFuzzer harnesses (issue 9): the packet parser, the tc units, the
# attach/change options.
#   make fuzz        each fuzzer for FUZZ_SECS (default 60) on its corpus
# `make tests` builds them and build/test_fuzz, the short pass check runs.
DEB_PKGS += libclang-rt-14-dev
FUZZ_CC ?= clang
FUZZ_CFLAGS := -g -O1 -fsanitize=fuzzer,address,undefined \
	       -fno-sanitize-recover=all -Wall -Iinclude -Iloader -I$(OUTPUT)
FUZZ_BINS := $(OUTPUT)/fuzz/fuzz_parse $(OUTPUT)/fuzz/fuzz_units \
	     $(OUTPUT)/fuzz/fuzz_tune
FUZZ_SRCS_parse :=
FUZZ_SRCS_units := loader/units.c
FUZZ_SRCS_tune := loader/tune.c loader/options.c loader/units.c
EXTRA_BINS += $(FUZZ_BINS) $(OUTPUT)/test_fuzz

.PHONY: fuzz

$(OUTPUT)/fuzz:
	$(Q)mkdir -p $@

# without the fuzzer runtime, say so and build nothing: test_fuzz skips.
# A fuzzer is compiled from several sources at once, where -MMD would keep
# only the last one's headers: its .d comes from a pass of its own (-MM),
# and names the loader sources it takes too, each also a target of its own
# (as -MP makes of the headers), so a source renamed in loader/ breaks no
# build.
$(OUTPUT)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c | $(OUTPUT)/fuzz
	$(call msg,FUZZ,$@)
	$(Q)if printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }' | \
		$(FUZZ_CC) -fsanitize=fuzzer -x c - -o /dev/null 2>/dev/null; then \
		{ $(FUZZ_CC) $(FUZZ_CFLAGS) -MM -MP -MT $@ $< $(FUZZ_SRCS_$*) && \
		  for s in $(FUZZ_SRCS_$*); do echo "$$s:"; done; } >$@.d && \
		$(FUZZ_CC) $(FUZZ_CFLAGS) $< $(FUZZ_SRCS_$*) -o $@; \
	else echo "  (no libFuzzer runtime: $@ not built; make deps)"; fi

$(OUTPUT)/test_fuzz: tests/fuzz/run.sh | $(OUTPUT)
	$(Q)install -m 755 $< $@

fuzz: $(FUZZ_BINS) $(OUTPUT)/test_fuzz
	$(Q)FUZZ_GROW=1 FUZZ_SECS=$${FUZZ_SECS:-60} $(OUTPUT)/test_fuzz
