#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# XDP manners, whatever libxdp can do on this kernel:
#  - an XDP program someone loaded without libxdp's dispatcher is never
#    replaced: attach says so in one line, exits non-zero, leaves nothing;
#  - detach removes our program only, and is idempotent;
#  - show says native or generic.
# (Sharing the hook through the dispatcher is xdp_coexist.sh.)
#
# Exit 0 pass, 77 skip, 1 fail.  SOJOURN= overrides.

# shellcheck source=SCRIPTDIR/../lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
topo_require sojourn xdp-loader bpftool

FOREIGN=$(ls /usr/lib/*/bpf/xdpfilt_alw_all.o /usr/lib/bpf/xdpfilt_alw_all.o 2>/dev/null | head -1)
[ -n "$FOREIGN" ] || skip "xdp-tools' xdpfilt_alw_all.o not found"
topo_trap "$NS_C:$DEV_C:ingress"
topo_up 1

xdp_ids() { nsx "$NS_C" ip -d -j link show dev "$DEV_C" | jq -r '.[0].xdp.prog.id // empty'; }
pins() { ls /sys/fs/bpf/sojourn 2>/dev/null | grep -c -- "-ingress$"; }

# Someone else's program, loaded the plain way (no dispatcher).
nsx "$NS_C" ip link set dev "$DEV_C" xdpgeneric obj "$FOREIGN" sec xdp ||
	die "cannot load a foreign XDP program"
foreign=$(xdp_ids)
[ -n "$foreign" ] || die "foreign program not visible"
before=$(pins)
err=$(sj attach "$DEV_C" ingress rate 10mbit hook xdp -n "$NS_C" 2>&1); rc=$?
check "attach over a foreign XDP program: exit code" "$rc" '!=' 0
check "  its error is one line" "$(printf '%s\n' "$err" | grep -c .)" '==' 1
row "  error" "${err:0:60}" "" info
is "  foreign program still in place" "$(xdp_ids)" "$foreign"
check "  no pins left" "$(pins)" '==' "$before"
nsx "$NS_C" ip link set dev "$DEV_C" xdpgeneric off

# Ours first; xdp-loader's attempt must not take ours away.
sj attach "$DEV_C" ingress rate 10mbit hook xdp -n "$NS_C" || die "attach"
ours=$(xdp_ids)
is "show: mode on a veth" "$(sj show "$DEV_C" -j -n "$NS_C" | jq -r '.[0].hook')" xdp-native
nsx "$NS_C" xdp-loader load "$DEV_C" "$FOREIGN" >/dev/null 2>&1
now=$(nsx "$NS_C" xdp-loader status "$DEV_C" 2>/dev/null | grep -c sojourn_xdp)
is "after xdp-loader load, ours still listed" "$now" 1
sj detach "$DEV_C" ingress -n "$NS_C" || die "detach"
left=$(nsx "$NS_C" xdp-loader status "$DEV_C" 2>/dev/null | grep -c sojourn_xdp)
is "detach removed ours" "$left" 0
sj detach "$DEV_C" ingress -n "$NS_C"; rc=$?
check "second detach (idempotent) exit code" "$rc" '==' 0
nsx "$NS_C" xdp-loader unload -a "$DEV_C" >/dev/null 2>&1
row "our program id while attached" "$ours" "" info

finish xdp_manners
