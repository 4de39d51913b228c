#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Sharing the XDP hook through libxdp's dispatcher: a program loaded by
# xdp-loader before ours and one after both keep running beside ours
# (xdp-loader status lists all three), and detach takes only ours away.
# Needs a kernel that lets libxdp load its dispatcher (freplace programs);
# where it cannot, libxdp falls back to one program per device, and this
# test says SKIP (xdp_manners.sh covers that case).
#
# Exit 0 pass, 77 skip, 1 fail.  SOJOURN= overrides.

# shellcheck source=SCRIPTDIR/../lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
topo_require sojourn xdp-loader

FOREIGN=$(ls /usr/lib/*/bpf/xdpfilt_alw_all.o /usr/lib/bpf/xdpfilt_alw_all.o 2>/dev/null | head -1)
PASSPROG=$(ls /usr/lib/*/bpf/xdpfilt_alw_ip.o /usr/lib/bpf/xdpfilt_alw_ip.o 2>/dev/null | head -1)
[ -n "$FOREIGN" ] && [ -n "$PASSPROG" ] || skip "xdp-tools' filter objects not found"
topo_trap "$NS_C:$DEV_C:ingress"
topo_up 1

status() { nsx "$NS_C" xdp-loader status "$DEV_C" 2>/dev/null; }

out=$(nsx "$NS_C" xdp-loader load -vv -m native "$DEV_C" "$FOREIGN" 2>&1) ||
	die "xdp-loader cannot load a program"
if ! status | grep -q xdp_dispatcher; then
	why=$(grep -m1 'Compatibility check' <<<"$out" | sed 's/^ *libxdp: //')
	nsx "$NS_C" xdp-loader unload -a "$DEV_C" >/dev/null 2>&1
	skip "libxdp cannot load its dispatcher on this kernel (${why:-no reason given}); one XDP program per device"
fi

sj attach "$DEV_C" ingress rate 10mbit hook xdp -n "$NS_C" || die "attach beside a program"
nsx "$NS_C" xdp-loader load -m native "$DEV_C" "$PASSPROG" >/dev/null 2>&1 ||
	die "xdp-loader cannot load after ours"
is "programs in the dispatcher" "$(status | grep -c -E 'xdpfilt|sojourn_xdp')" 3
is "show: in the dispatcher" \
	"$(sj show "$DEV_C" -j -n "$NS_C" | jq -r '.[0].xdp_dispatcher')" true
sj detach "$DEV_C" ingress -n "$NS_C" || die "detach"
is "after detach: ours gone" "$(status | grep -c sojourn_xdp)" 0
is "after detach: the other two remain" "$(status | grep -c xdpfilt)" 2
nsx "$NS_C" xdp-loader unload -a "$DEV_C" >/dev/null 2>&1

finish xdp_coexist
