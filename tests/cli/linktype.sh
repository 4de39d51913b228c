#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# sj-run: beside (nothing here is timed: tests/run.sh may run it beside
# another such test, in a bpffs of its own)
#
# sojourn on each kind of link: it parses from the device's own link layer
# and refuses, in one line, a device it cannot parse.  In one namespace:
#  - a tun device (link type none, an L3 device: the IP header first):
#    attach in queue mode; rate mode on ingress through tc and through XDP
#    (generic XDP runs on tun); IPv4 and IPv6 TCP written into the device
#    are counted tcp, none non_ip;
#  - a tun device made link type ppp: the same;
#  - a tun device made link type ieee802.11-radiotap: attach refused,
#    exit non-zero, one line on stderr naming the type, nothing left.
# Packets are written into the tun devices (build/sj_flood --tun-send), so
# nothing here needs the timing lock.
#
# Exit 0 pass, 77 skip, else fail.  SOJOURN= overrides the binary.
set -u

repo=$(cd "$(dirname "$0")/../.." && pwd)
SOJOURN=${SOJOURN:-$repo/build/sojourn}
FLOOD=$repo/build/sj_flood
PIN_ROOT=/sys/fs/bpf/sojourn
T=15

# log, skip, die and the other helpers every script shares
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"

[ "$(id -u)" = 0 ] || skip "needs root"
[ -x "$SOJOURN" ] || skip "$SOJOURN not built (make first)"
[ -x "$FLOOD" ] || skip "$FLOOD not built (make tests)"
for t in ip jq timeout nsenter mountpoint; do
	command -v "$t" >/dev/null || skip "$t not installed"
done
[ -c /dev/net/tun ] || skip "no /dev/net/tun"
if ! mountpoint -q /sys/fs/bpf; then
	mount -t bpf bpf /sys/fs/bpf || skip "cannot mount bpffs"
fi

NS=sjlt$$
TUN=sjlt$$t PPP=sjlt$$p RADIO=sjlt$$r
N=50			# packets of each family written into a device

# shellcheck disable=SC2317  # run by the trap
cleanup() {
	local d
	for d in "$TUN" "$PPP" "$RADIO"; do
		timeout "$T" "$SOJOURN" detach "$d" -n "$NS" >/dev/null 2>&1
		timeout "$T" "$SOJOURN" detach "$d" ingress -n "$NS" >/dev/null 2>&1
	done
	ip netns del "$NS" 2>/dev/null
}
trap cleanup EXIT

sj() { timeout "$T" "$SOJOURN" "$@"; }
# flood ARGS...: build/sj_flood in the namespace (its tun devices are made there)
flood() { nsenter --net="/run/netns/$NS" "$FLOOD" "$@"; }

ip netns add "$NS" || skip "cannot create a namespace"
flood --tun "$TUN" 0xfffe || skip "cannot create a tun device"
flood --tun "$PPP" 512 || bad "tun as ppp: TUNSETLINK 512 failed"
flood --tun "$RADIO" 803 || bad "tun as radiotap: TUNSETLINK 803 failed"
for d in "$TUN" "$PPP" "$RADIO"; do
	ip -n "$NS" link set "$d" up
done

# counts DEV DIR: "tcp non_ip" from show -s -j
counts() {
	sj show "$1" -s -j -n "$NS" |
		jq -r --arg d "$2" '.[] | select(.direction == $d) |
			"\(.stats.parsed.tcp) \(.stats.parsed.non_ip)"'
}

# ingress DEV HOOK: rate mode on ingress, N packets of each family in
ingress() {
	local dev=$1 hook=$2 got
	if ! sj attach "$dev" ingress rate 1gbit hook "$hook" -n "$NS" >/dev/null; then
		bad "$dev ingress $hook: attach failed"
		return
	fi
	flood --tun-send "$dev" "$N" >/dev/null ||
		bad "$dev ingress $hook: cannot write into $dev"
	got=$(counts "$dev" ingress)
	if [ "$got" = "$((2 * N)) 0" ]; then
		ok "$dev (link type $3) ingress $hook: $((2 * N)) IPv4/IPv6 TCP packets counted tcp"
	else
		bad "$dev ingress $hook: tcp/non_ip $got, want $((2 * N)) 0"
	fi
	sj detach "$dev" ingress -n "$NS" >/dev/null || bad "$dev: detach ingress"
}

if sj attach "$TUN" -n "$NS" >/dev/null && sj detach "$TUN" -n "$NS" >/dev/null; then
	ok "$TUN (link type none): attach and detach in queue mode"
else
	bad "$TUN: queue mode attach/detach failed"
fi
ingress "$TUN" tc none
ingress "$TUN" xdp none
ingress "$PPP" tc ppp

# refused: non-zero, one line naming the type, no folder left
before=$(ls "$PIN_ROOT" 2>/dev/null | sort)
err=$(sj attach "$RADIO" rate 10mbit -n "$NS" 2>&1 >/dev/null)
rc=$?
after=$(ls "$PIN_ROOT" 2>/dev/null | sort)
if [ "$rc" -ne 0 ] && [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] &&
   [[ $err == "sojourn: "*ieee802.11-radiotap* ]] && [ "$before" = "$after" ]; then
	ok "radiotap device refused: $err"
else
	bad "radiotap device: rc $rc, stderr '$err', pins changed: $([ "$before" = "$after" ] && echo no || echo yes)"
fi

verdict_end linktype
