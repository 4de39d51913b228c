#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# sj-run: beside (nothing here is timed: tests/run.sh may run it beside
# another such test, in a bpffs of its own)
#
# replace DEV ...: tc's meaning, without traffic.
#   - not attached: attaches, as attach would;
#   - attached in the same mode, hook and table size: rewritten in place
#     (the same program stays on the device), and options not given go
#     back to their defaults (target 10ms, then a replace without it: 5ms),
#     where change would keep them;
#   - another flow table size, another mode (rate to real-queue on an HTB
#     root), another hook (tc to xdp at ingress): detached and attached
#     again, the new program on the device, the old one gone;
#   - a bad word: one line, non-zero, the attachment as it was;
#   - detach after all: nothing pinned.
# Topology: one namespace, a veth pair; one end under HTB + pfifo.
#
# Exit 0 pass, 77 skip, else fail.  SOJOURN= overrides the binary.
set -u

repo=$(cd "$(dirname "$0")/../.." && pwd)
SOJOURN=${SOJOURN:-$repo/build/sojourn}
T=15

# log, skip, die and the other helpers every script shares
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
[ "$(id -u)" = 0 ] || skip "needs root"
[ -x "$SOJOURN" ] || skip "$SOJOURN not built (make first)"
for t in ip tc jq timeout bpftool; do
	command -v "$t" >/dev/null || skip "$t not installed"
done
[ -r /sys/kernel/btf/vmlinux ] || skip "kernel has no BTF (/sys/kernel/btf/vmlinux)"

NS=sjrpl$$ D=sjr$$a P=sjr$$b
sj() { timeout "$T" "$SOJOURN" "$@" -n "$NS"; }

# shellcheck disable=SC2317
cleanup() {
	if [ -e "/run/netns/$NS" ]; then
		sj detach "$D" >/dev/null 2>&1
		sj detach "$D" ingress >/dev/null 2>&1
		ip netns del "$NS"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ip netns add "$NS" || { echo "FAIL: setup: netns"; exit 1; }
# shellcheck disable=SC2015	# any step failing fails the setup
ip -n "$NS" link add "$D" type veth peer name "$P" &&
ip -n "$NS" link set "$D" up && ip -n "$NS" link set "$P" up ||
	{ echo "FAIL: setup: devices"; exit 1; }

# field DIR KEY: from show -j
field() { sj show "$D" -j | jq -r --arg d "$1" ".[] | select(.direction == \$d) | .$2"; }
# prog DIR: the id of the program pinned for the attachment
prog() {
	local pin
	pin=$(field "$1" pin)
	[ -n "$pin" ] && bpftool prog show pinned "$pin/prog_egress" -j | jq -r .id
}
flows() {
	field "$1" flows
}

sj replace "$D" rate 10mbit >/dev/null 2>&1
same "not attached: replace attaches" "$(field egress mode) $(field egress rate)" "rate 1250000"
p0=$(prog egress)

sj replace "$D" rate 20mbit target 10ms
same "same mode: in place, same program" "$(prog egress)" "$p0"
same "same mode: settings rewritten" "$(field egress rate) $(field egress target)" "2500000 10000"
sj replace "$D" rate 20mbit
same "an option not given goes back to its default (target)" "$(field egress target)" 5000
same "... still in place" "$(prog egress)" "$p0"
sj change "$D" target 10ms
sj change "$D" rate 30mbit
same "change, for contrast, keeps what is set" "$(field egress target)" 10000

# the host has one flow table: an attachment's `flows` is a setting
sj replace "$D" rate 20mbit flows 2048
same "another flow budget: in place" "$(flows egress)" 2048
same "... same program" "$(prog egress)" "$p0"
p1=$(prog egress)

before=$(sj show "$D" -j)
err=$(sj replace "$D" rate 20mbit target banana 2>&1 >/dev/null)
rc=$?
[ "$rc" -ne 0 ] && [ "$(wc -l <<<"$err")" = 1 ] && [[ $err == sojourn:* ]] &&
	ok "bad word: one line, rc $rc: $err" || bad "bad word: rc $rc, '$err'"
same "bad word: attachment as it was" "$(sj show "$D" -j)" "$before"
same "... same program" "$(prog egress)" "$p1"

# another mode: real-queue needs a queue; HTB + pfifo gives it one
ip netns exec "$NS" tc qdisc add dev "$D" root handle 1: htb default 1 &&
ip netns exec "$NS" tc class add dev "$D" parent 1: classid 1:1 htb rate 20mbit quantum 1514 &&
ip netns exec "$NS" tc qdisc add dev "$D" parent 1:1 pfifo limit 100 ||
	{ echo "FAIL: setup: htb"; exit 1; }
sj replace "$D" target 10ms
same "rate to real-queue: attached again in the new mode" "$(field egress mode)" queue
differs "... with a new program" "$p1" "$(prog egress)"

# another hook at ingress: tc, then xdp (native on a veth)
sj replace "$D" ingress rate 10mbit
same "ingress: attached at tc" "$(field ingress hook)" tcx
sj replace "$D" ingress rate 10mbit hook xdp
same "ingress tc to xdp: attached again at xdp" "$(field ingress hook)" xdp-native
same "... one ingress attachment" "$(sj show "$D" -j | jq '[.[] | select(.direction == "ingress")] | length')" 1

sj detach "$D" && sj detach "$D" ingress
same "detach: nothing pinned" "$(sj show "$D" -j | jq length)" 0

# -batch, as tc's: both directions in one process, as sojourn-cni runs it
batch() { timeout "$T" "$SOJOURN" -batch - 2>&1; }
out=$(printf 'replace %s egress rate 12mbit -n %s\n# a comment\n\nreplace %s ingress rate 6mbit -n %s\n' \
	"$D" "$NS" "$D" "$NS" | batch)
same "batch: both lines, rc 0" "$? $out" "0 "
same "batch: egress and ingress set" "$(field egress rate) $(field ingress rate)" "1500000 750000"
out=$(printf 'change %s target 8ms -n %s\nchange %s ingress rate banana -n %s\nchange %s target 9ms -n %s\n' \
	"$D" "$NS" "$D" "$NS" "$D" "$NS" | batch)
rc=$?
[ "$rc" -ne 0 ] && [ "$(wc -l <<<"$out")" = 1 ] && [[ $out == "sojourn: line 2: "* ]] &&
	ok "batch: the failing line named, one line, rc $rc: $out" || bad "batch failure: rc $rc, '$out'"
same "... the lines before it ran, none after" "$(field egress target)" 8000
out=$(printf 'show\n' | batch)
[ $? -ne 0 ] && [[ $out == *"not a command a batch takes"* ]] && ok "batch: show refused: $out" ||
	bad "batch: show accepted: '$out'"
out=$(printf 'detach %s -n %s\ndetach %s ingress -n %s\ndetach %s -n %s\n' \
	"$D" "$NS" "$D" "$NS" "$D" "$NS" | batch)
same "batch: detach both, then again (idempotent)" "$? $out $(sj show "$D" -j | jq length)" "0  0"

verdict_end replace
