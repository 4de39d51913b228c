# The BPF programs: build/sojourn.bpf.o (tc and dequeue, linked into one
# object because they share their maps) and build/ingress.bpf.o (XDP), with
# the skeletons the loader and the packet tests include.
BPF_SRCS  := bpf/egress.bpf.c bpf/dequeue.bpf.c
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

# XDP ingress: its own object, because libxdp loads it into its dispatcher
$(OUTPUT)/sojourn_xdp.skel.h: $(OUTPUT)/ingress.bpf.o
	$(call msg,SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name sojourn_xdp > $@
