#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# sj-run: beside (nothing here is timed: tests/run.sh may run it beside
# another such test, in a bpffs of its own)
#
# The tc program never writes packet data directly, so the verifier gives it
# no unclone prologue (bpf_unclone_prologue, net/core/filter.c): with one,
# every cloned skb (tcpdump running, a bridge flooding, a packet socket) is
# copied on entry whether it is marked or not, and dropped when that copy
# fails.  CE marks go through bpf_skb_store_bytes, which makes only the
# marked packet writable.  Checked on the loaded program in real-queue and
# in rate mode: its first instructions carry no call to bpf_skb_pull_data
# (the prologue's unclone) and no "return TC_ACT_SHOT" before the program's
# own code.  Exit 0 pass, 77 skip, 1 fail.

# shellcheck source=SCRIPTDIR/../lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
topo_require sojourn bpftool
NS=${SJ_ID}u DEV=${SJ_ID}u0
cleanup() { ip netns del "$NS" 2>/dev/null; }
trap cleanup EXIT
ip netns add "$NS" || die "netns"
ip -n "$NS" link add "$DEV" type veth peer name "${SJ_ID}u1" || die "veth"
ip -n "$NS" link set "$DEV" up
tc -n "$NS" qdisc add dev "$DEV" root pfifo || die "pfifo"

# prologue MODE...: the first instructions of the attached tc program
prologue() {
	local pin
	sj attach "$DEV" "$@" -n "$NS" || return 1
	pin=$(sj show "$DEV" -j -n "$NS" | jq -r '.[0].pin')
	bpftool prog dump xlated pinned "$pin/prog_egress" | grep -E '^ *[0-9]+:' | head -12
	sj detach "$DEV" -n "$NS"
}

for mode in queue "rate 20mbit"; do
	# shellcheck disable=SC2086
	[ "$mode" = queue ] && head=$(prologue) || head=$(prologue $mode)
	[ -n "$head" ] || die "$mode: no program to dump"
	# (the dump logged when it has the call)
	! grep -q 'bpf_skb_pull_data' <<<"$head" || { log "$head"; false; }
	verdict "$mode: no unclone prologue" $?
done
finish no_unclone
