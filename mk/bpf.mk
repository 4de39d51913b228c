# The BPF programs, one file per hook: bpf/tc.bpf.c (tc, at egress or
# ingress) and bpf/dequeue.bpf.c (the net_dev_start_xmit tracepoint), linked
# into build/sojourn.bpf.o because they share their maps, and bpf/xdp.bpf.c
# (XDP) in build/xdp.bpf.o; with the skeletons the loader and the packet
# tests include.
BPF_SRCS  := bpf/tc.bpf.c bpf/dequeue.bpf.c
BPF_OBJS  := $(patsubst bpf/%.bpf.c,$(OUTPUT)/%.bpf.o,$(BPF_SRCS))

# a change to a .bpf.c or a header it includes (build/NAME.bpf.d) rebuilds
# its object, so the linked object, so the skeleton and what includes it
$(OUTPUT)/%.bpf.o: bpf/%.bpf.c | $(OUTPUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) $(DEPFLAGS) -c $< -o $@

# one object, one skeleton: the two programs share their maps
$(OUTPUT)/sojourn.bpf.o: $(BPF_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(BPFTOOL) gen object $@ $^

$(OUTPUT)/sojourn.skel.h: $(OUTPUT)/sojourn.bpf.o
	$(call msg,SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name sojourn_bpf > $@

# XDP: its own object, because libxdp loads it into its dispatcher
$(OUTPUT)/sojourn_xdp.skel.h: $(OUTPUT)/xdp.bpf.o
	$(call msg,SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name sojourn_xdp > $@
