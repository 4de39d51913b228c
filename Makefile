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
# each program links only the libraries it calls: sojourn's are in
# mk/sojourn.mk, the CNI plugin's in mk/cni.mk, and the programs that load
# BPF objects take libbpf alone.  (libbpf's own libelf and zlib come with
# it.)  LDLIBS is the caller's, added to every link.
LIBBPF    := -lbpf

# Debian packages: build, test and demo.  `make deps` installs the missing.
DEB_PKGS  := clang clang-19 llvm libbpf-dev libelf-dev zlib1g-dev bpftool \
	     libjson-c-dev libmnl-dev libxdp-dev xdp-tools pkg-config iproute2 iperf3 \
	     fping ethtool jq python3-jsonschema util-linux procps gawk linux-libc-dev irtt \
	     qemu-system-x86 busybox-static kmod
# installed without their Recommends: wireguard-tools' are a kernel image
# (wireguard-modules) and a firewall
DEB_PKGS_BARE := wireguard-tools

# the version, computed once: `sojourn -V` and the .deb (mk/package.mk) carry
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

# every C compile writes the headers it read into a .d file beside its
# output (-MMD), each header also a target of its own so that a header
# removed from the tree breaks no build (-MP); make reads them at the end.
# A first build has none: then everything is built anyway, and generated
# headers come first through order-only prerequisites (| $(SKELS)).
DEPFLAGS  := -MMD -MP
# a program compiled and linked in one step from the sources and objects
# among its prerequisites (not the headers its .d adds); libraries follow
PROG.c    = $(CC) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) $(LDFLAGS) $(filter %.c %.o,$^)
# the generated headers: the loader and the packet tests include them
SKELS     := $(OUTPUT)/sojourn.skel.h $(OUTPUT)/sojourn_xdp.skel.h

# mk/*.mk: one fragment per thing built (the BPF programs, sojourn, the
# CNI plugin, the tests and their helpers, the fuzzers, the benchmark,
# install and the .deb), read here, before the rules below, so that the
# goals see everything the fragments add.  Each may add to
#   PROGRAMS    what `make` (all) builds: the programs a package ships
#   UNIT_TESTS  build/test_*: unit and packet tests, run by tests/run.sh
#   EXTRA_BINS  the programs the test scripts drive
#   DEB_PKGS    the Debian packages `make deps` installs (DEB_PKGS_BARE
#               without their Recommends)
# and define its own goals (bench, fuzz, soak, install, deb).
PROGRAMS   :=
UNIT_TESTS :=
EXTRA_BINS :=
# a recipe that fails takes its target with it: a skeleton header that
# bpftool cut short, or a .bpf.o clang half wrote, would otherwise look up
# to date to the next make
.DELETE_ON_ERROR:
# the first goal is `make`'s: before the fragments' rules
.DEFAULT_GOAL := all
include $(sort $(wildcard mk/*.mk))

.PHONY: all clean deps check demo tests FORCE
all: $(PROGRAMS)
tests: all $(UNIT_TESTS) $(EXTRA_BINS)

$(OUTPUT):
	$(Q)mkdir -p $@

# $(call deb_install,APT_OPTIONS,PACKAGES): those not installed yet
define deb_install
	$(Q)missing=$$(for p in $(2); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | \
		grep -q '^install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "installing: $$missing"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -qq $(1) $$missing >/dev/null; \
	fi
endef

deps:
	$(call deb_install,,$(DEB_PKGS))
	$(call deb_install,--no-install-recommends,$(DEB_PKGS_BARE))

# the build on every core: 29 s where one job takes 51 here, of a check
# that must stay under 30 minutes
check: deps
	$(Q)$(MAKE) --no-print-directory -j$(shell nproc) tests
	$(Q)tests/run.sh

demo: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)bench/demo.sh

clean:
	$(Q)rm -rf $(OUTPUT)

# what the compiles found they include (see DEPFLAGS); build/deb is left
# out: it holds another tree's build
-include $(wildcard $(OUTPUT)/*.d $(OUTPUT)/loader/*.d $(OUTPUT)/cni/*.d \
		    $(OUTPUT)/fuzz/*.d)
