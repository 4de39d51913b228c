# Programs ahead of ours (issue 15): helpers of tests/e2e/ahead.sh.
#   tcx_ahead          puts a program at the head of a tcx chain
#   ahead_ok.bpf.o     a foreign tc program returning TC_ACT_OK (a verdict)
#   ahead_next.bpf.o   the same returning TC_ACT_UNSPEC (next)
#   ahead_half.bpf.o   TC_ACT_OK for every second packet, next for the others
EXTRA_BINS += $(OUTPUT)/tcx_ahead $(OUTPUT)/ahead_ok.bpf.o $(OUTPUT)/ahead_next.bpf.o \
	      $(OUTPUT)/ahead_half.bpf.o

$(OUTPUT)/tcx_ahead: tests/prog/tcx_ahead.c | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $< $(LDLIBS) -o $@

$(OUTPUT)/ahead_ok.bpf.o: tests/e2e/ahead_prog.bpf.c vmlinux.h | $(OUTPUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -DAHEAD_VERDICT=TC_ACT_OK_NR -c $< -o $@

$(OUTPUT)/ahead_next.bpf.o: tests/e2e/ahead_prog.bpf.c vmlinux.h | $(OUTPUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -DAHEAD_VERDICT=TC_ACT_UNSPEC_NR -c $< -o $@

$(OUTPUT)/ahead_half.bpf.o: tests/e2e/ahead_prog.bpf.c vmlinux.h | $(OUTPUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -DAHEAD_VERDICT=TC_ACT_OK_NR -DAHEAD_EVERY=2 -c $< -o $@
