#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# A root that already is an AQM (issue 14), on the router's egress toward
# the server.  For each of these trees:
#
#   fq_codel root                        (a veth's own speed)
#   cake root, bandwidth 20mbit          (cake shapes and keeps delay short)
#   HTB 20mbit, fq_codel leaf at 1:1     (the usual home-router setup)
#   mq, fq_codel under each of its 2 queues
#
#  1. `sojourn attach DEV` is refused: non-zero exit, one line naming the
#     qdisc, where it sits and "already an AQM", suggesting observe; no
#     pin folder for the device, the tc tree as it was.
#  2. `sojourn attach DEV observe` works: show says mode observe; a short
#     load of 4 cubic flows (ECN on, so the AQM marks) leaves dequeued > 0,
#     a device histogram with samples and a histogram for each flow, and
#     sojourn's own drops, ecn_mark, ce_mark and unresponsive_drops at 0:
#     the AQM below keeps signalling by itself (its counters, info).
#     Under the shaped trees the queue is real and short: the device p99
#     is above 1 ms (the histogram sees queueing) and its p50 at most a
#     quarter of the FIFO's (the AQM still rules).
#  3. detach: the tc tree exactly as before attach.
#
# The FIFO baseline, first, in the same run: HTB 20mbit + pfifo 1000.
# Real-queue attach is taken there; observe's p50 is above 100 ms.
#
# And a pie root, which keeps its own per-packet state in skb->cb, where
# observe carries its stamp: attach and attach observe are refused, each
# in one line, nothing left.
#
# The kernel here may lack these qdiscs: then SKIP (77).
# tests/e2e/kernel_61.sh runs this in Debian's 6.1 VM, which has them.
# Exit 0 pass, 77 skip, 1 fail.  SECS= overrides the load time.

# shellcheck source=SCRIPTDIR/../lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
topo_require sojourn
command -v python3 >/dev/null || skip "python3 not installed (the namespace cookie)"

SECS=${SECS:-8}
PIN_ROOT=/sys/fs/bpf/sojourn
topo_trap "$NS_R:$DEV_RS"

topo_up 2		# two transmit queues per veth: room for an mq row
topo_ecn 1 1
inr tc qdisc replace dev "$DEV_RS" root fq_codel 2>/dev/null ||
	skip "no fq_codel in this kernel ($(uname -r)): tests/e2e/kernel_61.sh runs this in the 6.1 VM"
inr tc qdisc del dev "$DEV_RS" root 2>/dev/null
topo_servers 5201

COOKIE=$(nsx "$NS_R" python3 -c '
import socket, struct
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
print(struct.unpack("Q", s.getsockopt(socket.SOL_SOCKET, 71, 8))[0])')
[[ $COOKIE =~ ^[0-9]+$ ]] || die "cannot read the router's netns cookie"
IFINDEX=$(ip -n "$NS_R" -j link show dev "$DEV_RS" | jq -r '.[0].ifindex')

# pin folders of the router's bottleneck, finished or half-made
pins_left() {
	local d n=0
	for d in "$PIN_ROOT/$COOKIE-$IFINDEX-"* "$PIN_ROOT/tmp-"*"-$COOKIE-$IFINDEX-"*; do
		[ -e "$d" ] && n=$((n + 1))
	done
	echo "$n"
}

# refused NAME WANT ARGS...: sojourn ARGS fails with one line holding WANT
# (a fixed string) and leaves no pins and the tc tree as it was
refused() {
	local name=$1 want=$2 rc lines
	shift 2
	tree_snapshot "$WORK/tc.refused.before"
	sj "$@" >"$WORK/out" 2>"$WORK/err"
	rc=$?
	lines=$(grep -c '' "$WORK/err")
	log "$name: rc $rc: $(cat "$WORK/err")"
	check "$name: exit status" "$rc" '!=' 0
	check "$name: stderr lines" "$lines" '==' 1
	grep -qF -- "$want" "$WORK/err"
	verdict "$name: says '$want'" $?
	check "$name: pin folders left" "$(pins_left)" '==' 0
	tree_snapshot "$WORK/tc.refused.after"
	snapshot_same "$WORK/tc.refused.before" "$WORK/tc.refused.after" "tc of $DEV_RS"
	verdict "$name: tc tree untouched" $?
}

# tree_snapshot FILE: tc_snapshot without the flow classes fq_codel and
# cake list while a flow of theirs has state: traffic makes and ends them,
# sojourn does not
tree_snapshot() {
	tc_snapshot "$NS_R" "$DEV_RS" |
		grep -vE '^class (fq_codel|cake) [0-9a-f]*:[0-9a-f]+ parent ' >"$1"
}

# aqm_own_signals: marks and drops the AQM qdiscs themselves counted
# (fq_codel: "dropped N" and "ecn_mark N"; cake: a "marks" row per tin)
aqm_own_signals() {
	inr tc -s qdisc show dev "$DEV_RS" | awk '
		/dropped/ { for (i = 1; i < NF; i++) if ($i == "dropped") { v = $(i + 1); sub(",", "", v); d += v } }
		{ for (i = 1; i < NF; i++) if ($i == "ecn_mark") m += $(i + 1) }
		$1 == "marks" { for (i = 2; i <= NF; i++) m += $i }
		END { printf "%d drops, %d marks\n", d, m }'
}

# observe_run TAG: step 2 and 3 on the tree now on DEV_RS; leaves the
# device's p50 and p99 (us, bucket bounds) in OBS_P50 and OBS_P99
observe_run() {
	local tag=$1 st h flows rc
	OBS_P50="" OBS_P99=""
	tree_snapshot "$WORK/tc.before"
	sj attach "$DEV_RS" observe -n "$NS_R" ||
		{ verdict "$tag: attach observe" $?; return; }
	is "$tag: show mode" "$(sj show "$DEV_RS" -j -n "$NS_R" | jq -r '.[0].mode')" observe
	run_load "$tag" "$SECS" 5201:4 || die "iperf3 failed ($tag)"
	sleep 1		# the queue drains: every count settles
	st=$(sj_stats "$DEV_RS")
	log "$tag: sojourn stats: $(jq -c '.stats | del(.queues, .parsed)' <<<"$st")"
	check "$tag: dequeued" "$(jq -r '.stats.dequeued' <<<"$st")" '>' 1000
	check "$tag: sojourn drops" "$(jq -r '.stats.drops' <<<"$st")" '==' 0
	check "$tag: sojourn ecn_mark" "$(jq -r '.stats.ecn_mark' <<<"$st")" '==' 0
	check "$tag: sojourn ce_mark" "$(jq -r '.stats.ce_mark' <<<"$st")" '==' 0
	check "$tag: sojourn unresponsive_drops" \
		"$(jq -r '.stats.unresponsive_drops' <<<"$st")" '==' 0
	row "$tag: the qdiscs' own signals" "$(aqm_own_signals | tr ' ' _)" "" info
	h=$(sj hist "$DEV_RS" --flow proto tcp dport 5201 -j -n "$NS_R" | jq -c '.[0]')
	check "$tag: device histogram samples" "$(jq -r '.histogram.count' <<<"$h")" '>' 1000
	flows=$(jq '[.flow_list[] | select(.histogram.count > 100)] | length' <<<"$h")
	check "$tag: flows to :5201 with a histogram" "$flows" '>=' 4
	OBS_P50=$(jq -r '.histogram.p50_us' <<<"$h")
	OBS_P99=$(jq -r '.histogram.p99_us' <<<"$h")
	row "$tag: device p50 / p99 (us, bound)" "$OBS_P50/$OBS_P99" "" info
	row "$tag: bulk RTT median (ms)" "$(rtt_median "$tag")" "" info
	if sj detach "$DEV_RS" -n "$NS_R"; then rc=0; else rc=$?; fi
	check "$tag: detach exit status" "$rc" '==' 0
	tree_snapshot "$WORK/tc.after"
	snapshot_same "$WORK/tc.before" "$WORK/tc.after" "tc of $DEV_RS"
	verdict "$tag: tc tree as before" $?
	check "$tag: pin folders after detach" "$(pins_left)" '==' 0
}

# row_tree TAG WHERE SHAPED: steps 1-3 on the tree now on DEV_RS; WHERE
# is what the refusal must say about the first AQM's place and kind.  A
# shaped tree queues for real: its p99 is above 1 ms, and its AQM keeps
# the p50 at most a quarter of the FIFO's.
row_tree() {
	local tag=$1 where=$2 shaped=$3
	log "--- $tag: $(inr tc qdisc show dev "$DEV_RS" | tr '\n' '|')"
	refused "$tag: attach" \
		"$DEV_RS's $where, already an AQM: a second CoDel on top would only add drops; measure it with 'sojourn attach $DEV_RS observe -n $NS_R'" \
		attach "$DEV_RS" -n "$NS_R"
	observe_run "$tag"
	if [ "$shaped" = 1 ]; then
		check "$tag: device p99 (us, bound)" "$OBS_P99" '>' 1000
		check "$tag: device p50 x 4 (us, bound)" "$((${OBS_P50:-0} * 4))" '<=' "$FIFO_P50"
	fi
}

# The FIFO baseline: HTB 20mbit + pfifo 1000, no AQM.  Real-queue attach
# is taken there (the judge refuses AQMs only); observe sees bufferbloat.
topo_shape 20mbit
if sj attach "$DEV_RS" -n "$NS_R"; then rc=0; else rc=$?; fi
check "fifo: attach (real-queue) exit status" "$rc" '==' 0
sj detach "$DEV_RS" -n "$NS_R" >/dev/null 2>&1
observe_run fifo
FIFO_P50=${OBS_P50:-0}
check "fifo: device p50 (us, bound)" "$FIFO_P50" '>' 100000
inr tc qdisc del dev "$DEV_RS" root

# fq_codel root
inr tc qdisc replace dev "$DEV_RS" root handle 1: fq_codel || die "fq_codel root"
row_tree fq_codel "root qdisc is fq_codel" 0

# cake root, shaping itself (a new root: handle 1: is taken by fq_codel)
inr tc qdisc del dev "$DEV_RS" root 2>/dev/null
if inr tc qdisc add dev "$DEV_RS" root handle 1: cake bandwidth 20mbit 2>"$WORK/cake.err"; then
	row_tree cake "root qdisc is cake" 1
else
	row "cake: not in this kernel" "$(head -1 "$WORK/cake.err" | tr ' ' _)" "" skip
fi

# HTB with an fq_codel leaf
inr tc qdisc del dev "$DEV_RS" root 2>/dev/null
inr tc qdisc add dev "$DEV_RS" root handle 1: htb default 1 &&
inr tc class add dev "$DEV_RS" parent 1: classid 1:1 htb rate 20mbit quantum 1514 &&
inr tc qdisc add dev "$DEV_RS" parent 1:1 handle 10: fq_codel ||
	die "htb + fq_codel"
row_tree htb_fq_codel "qdisc at parent 1:1 (under root htb 1:) is fq_codel" 1

# mq, an fq_codel under each transmit queue
inr tc qdisc del dev "$DEV_RS" root 2>/dev/null
inr tc qdisc add dev "$DEV_RS" root handle 1: mq &&
inr tc qdisc replace dev "$DEV_RS" parent 1:1 fq_codel &&
inr tc qdisc replace dev "$DEV_RS" parent 1:2 fq_codel ||
	die "mq + fq_codel"
row_tree mq_fq_codel "qdisc at parent 1:1 (under root mq 1:) is fq_codel (and 1 more)" 0

# pie: neither mode
inr tc qdisc del dev "$DEV_RS" root 2>/dev/null
if inr tc qdisc add dev "$DEV_RS" root handle 1: pie 2>"$WORK/pie.err"; then
	refused "pie: attach" \
		"$DEV_RS's root qdisc is pie, already an AQM: a second CoDel on top would only add drops; and observe cannot measure this tree either" \
		attach "$DEV_RS" -n "$NS_R"
	refused "pie: attach observe" \
		"$DEV_RS's root qdisc is pie, which keeps its own per-packet state in skb->cb, where observe carries the enqueue time" \
		attach "$DEV_RS" observe -n "$NS_R"
else
	row "pie: not in this kernel" "$(head -1 "$WORK/pie.err" | tr ' ' _)" "" skip
fi

finish aqm_root
