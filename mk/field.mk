# The field matrix (issue 14): helpers of tests/e2e/field_*.sh.
#   txtime_send       a UDP sender with SO_TXTIME departure times
#   tstamp_check.bpf.o  a tc ingress checker of what skb->tstamp arrives
EXTRA_BINS += $(OUTPUT)/txtime_send $(OUTPUT)/tstamp_check.bpf.o

$(OUTPUT)/txtime_send: tests/e2e/txtime_send.c | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $< -o $@

$(OUTPUT)/tstamp_check.bpf.o: tests/e2e/tstamp_check.bpf.c vmlinux.h | $(OUTPUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@
