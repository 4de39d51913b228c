# sojourn: an eBPF CoDel queue manager.  `make` builds build/sojourn;
# `make check` installs what the tests need and runs them all;
# `make demo` shows FIFO against sojourn in network namespaces.
OUTPUT    ?= build
CLANG     ?= clang
BPFTOOL   ?= bpftool
CC        ?= cc
ARCH      := $(shell uname -m | sed 's/x86_64/x86/;s/aarch64/arm64/')

CFLAGS    ?= -g -O2
# -Werror is for developers: WERROR=0 (debian/rules) lets a newer compiler's
# new warning through instead of failing a distribution's build
WERROR    ?= 1
CFLAGS    += -std=gnu11 -Wall -Wextra $(if $(filter 1,$(WERROR)),-Werror) -Iinclude -I$(OUTPUT) -Iloader
BPF_CFLAGS := -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_$(ARCH) \
	      -Wall $(if $(filter 1,$(WERROR)),-Werror) -Iinclude -I.
LDLIBS    := -lxdp -lbpf -lelf -lz -ljson-c -lmnl

# Debian packages: build, test and demo.  `make deps` installs the missing.
DEB_PKGS  := clang clang-19 llvm libbpf-dev libelf-dev zlib1g-dev bpftool \
	     libjson-c-dev libmnl-dev libxdp-dev xdp-tools pkg-config iproute2 iperf3 \
	     fping ethtool jq python3-jsonschema util-linux procps gawk linux-libc-dev irtt \
	     qemu-system-x86 busybox-static kmod

# the version, computed once: `sojourn -V` and the .deb (mk/fleet.mk) carry
# it.  The release is debian/changelog's where there is one; a build from
# git adds the commit count.  A package build passes SJ_VERSION itself.
SJ_RELEASE := $(or $(shell sed -n '1s/^sojourn .\([^ ]*\). .*/\1/p' debian/changelog 2>/dev/null),0.1.0)
SJ_VERSION ?= $(SJ_RELEASE)+git$(shell git rev-list --count HEAD 2>/dev/null || echo 0)
SJ_VERSION := $(SJ_VERSION)

ifeq ($(V),1)
Q =
msg =
else
Q = @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

BPF_SRCS  := bpf/egress.bpf.c bpf/dequeue.bpf.c
BPF_OBJS  := $(patsubst bpf/%.bpf.c,$(OUTPUT)/%.bpf.o,$(BPF_SRCS))
LOADER_SRCS := $(wildcard loader/*.c)
LOADER_OBJS := $(patsubst loader/%.c,$(OUTPUT)/loader/%.o,$(LOADER_SRCS))
HEADERS   := $(wildcard include/*.h) $(wildcard loader/*.h)
UNIT_TESTS := $(OUTPUT)/test_codel $(OUTPUT)/test_units $(OUTPUT)/test_pkt \
	      $(OUTPUT)/test_vqueue $(OUTPUT)/test_rate $(OUTPUT)/test_fair
# mk/*.mk: one fragment per concern (observability, fleet, bench, fuzz);
# each may add to DEB_PKGS, UNIT_TESTS, LDLIBS and define its own targets
EXTRA_BINS :=

.PHONY: all clean deps check demo tests FORCE
all: $(OUTPUT)/sojourn

$(OUTPUT) $(OUTPUT)/loader:
	$(Q)mkdir -p $@

$(OUTPUT)/%.bpf.o: bpf/%.bpf.c $(wildcard bpf/*.bpf.h) $(wildcard include/*.h) vmlinux.h | $(OUTPUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

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

$(OUTPUT)/loader/%.o: loader/%.c $(HEADERS) $(OUTPUT)/sojourn.skel.h $(OUTPUT)/sojourn_xdp.skel.h | $(OUTPUT)/loader
	$(call msg,CC,$@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

$(OUTPUT)/sojourn: $(LOADER_OBJS)
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $^ $(LDLIBS) -o $@

$(OUTPUT)/test_codel: tests/unit/test_codel.c include/codel.h | $(OUTPUT)
	$(call msg,TEST,$@)
	$(Q)$(CC) $(CFLAGS) $< -lm -o $@

$(OUTPUT)/test_rate: tests/prog/test_rate.c $(OUTPUT)/sojourn.skel.h $(OUTPUT)/sojourn_xdp.skel.h $(HEADERS) | $(OUTPUT)
	$(call msg,TEST,$@)
	$(Q)$(CC) $(CFLAGS) $< $(LDLIBS) -o $@

$(OUTPUT)/test_fair: tests/unit/test_fair.c include/fair.h | $(OUTPUT)
	$(call msg,TEST,$@)
	$(Q)$(CC) $(CFLAGS) $< -o $@

$(OUTPUT)/test_vqueue: tests/unit/test_vqueue.c include/vqueue.h include/codel.h include/sojourn.h include/wire.h | $(OUTPUT)
	$(call msg,TEST,$@)
	$(Q)$(CC) $(CFLAGS) $< -o $@

$(OUTPUT)/test_units: tests/unit/test_units.c loader/units.c loader/units.h | $(OUTPUT)
	$(call msg,TEST,$@)
	$(Q)$(CC) $(CFLAGS) tests/unit/test_units.c loader/units.c -o $@

$(OUTPUT)/test_pkt: tests/prog/test_pkt.c $(OUTPUT)/sojourn.skel.h $(HEADERS) | $(OUTPUT)
	$(call msg,TEST,$@)
	$(Q)$(CC) $(CFLAGS) $< $(LDLIBS) -o $@

# rewritten only when the version changes, so main.o is rebuilt after a
# commit and not on every make
$(OUTPUT)/version.h: FORCE | $(OUTPUT)
	$(Q)v='#define SJ_VERSION "$(SJ_VERSION)"'; \
	[ "$$(cat $@ 2>/dev/null)" = "$$v" ] || echo "$$v" >$@
$(OUTPUT)/loader/main.o: $(OUTPUT)/version.h

tests: all $(UNIT_TESTS) $(EXTRA_BINS)

deps:
	$(Q)missing=$$(for p in $(DEB_PKGS); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | \
		grep -q '^install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "installing: $$missing"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -qq $$missing >/dev/null; \
	fi

check: deps
	$(Q)$(MAKE) --no-print-directory tests
	$(Q)tests/run.sh

demo: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)bench/demo.sh

clean:
	$(Q)rm -rf $(OUTPUT)

-include $(sort $(wildcard mk/*.mk))
# prerequisites are expanded where a rule is read: again, with what the
# fragments added
tests: $(UNIT_TESTS) $(EXTRA_BINS)
