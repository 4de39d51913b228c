#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Sparse flows go ahead.  The router's egress toward the server is HTB with
# two leaves under 20mbit: 1:10 (the default, where everything lands, 1000
# packet FIFO) and 1:20 (served first, HTB prio 0, with a burst of what
# its rate sends in 100 ms: HTB's default burst, one packet at 2mbit,
# holds sparse packets that arrive together back behind the bulk class,
# and lets a flow's bulk packet pass its own packet sent ahead; the class
# sojourn adds itself has that burst, htbpath.c).  8 cubic flows fill the
# link; a 20 Hz UDP probe (irtt) and a 20 Hz ping run beside them.
#   off     sojourn with sparse_class off: the probes wait in the FIFO
#           behind the bulk, about CoDel's target or more (printed, not
#           judged: it runs only with SJ_BASELINES=1, common.sh)
#   1:20    sojourn with sparse_class 1:20: a flow that sent at most one
#           quantum over the last interval is steered to 1:20
# With steering, both probes' p99 rise must stay under 5 ms.
#   order   sparse_class 1:20 again, and beside the bulk 8 app-limited
# cubic flows send near one quantum per interval (4 at 120 kbit/s in
# bursts of 3 writes, 4 at 60 kbit/s), so that they
# flicker between sparse and not while some of their packets wait in
# 1:10: steering must never pass a flow's own packet.  Judged where the
# qdisc lets packets go (sojourn's `reordered_ahead`: packets that left
# after a younger packet of their own flow that had been sent ahead, at
# the dequeue tracepoint): 0.  Printed beside it, `reordered`: every
# packet that left after a younger one of its flow, whatever passed it
# (4 in the full check of 6ed31c7, before packets claimed their flow's
# path, fair.h, and not told apart then; two packets of one flow
# handled on the router's two CPUs can also reach one FIFO in the other
# order from the one they were stamped in).  Printed
# where TCP sees it, at the receiver (nstat in the server's namespace):
# segments that arrived out of order (TcpExtTCPOFOQueue) and duplicates
# answered with a D-SACK (TcpExtTCPDSACKOldSent, TcpExtTCPDSACKOfoSent).
# Those are not 0 here even without steering (2026-12: 0-24 out of order
# with sparse_class off and no drop): a veth hands each packet to the
# backlog of the CPU that sends it, and a TCP sender sends from both CPUs
# (its own calls, and the ACKs' softirq), so the hop itself reorders.
# Before the rule that a forgotten count or a quiet flow waits out the
# queue (fair.h) and 1:20's burst, the receiver saw 67 out of order and 40
# D-SACKs with steering, 0 without; since, 6-25 and 14-20 with `reordered`
# 0 at the qdisc, so the rest is the hop's, or TCP's own spurious
# retransmissions (tail loss probes timed by the short RTT of the packets
# that went ahead).
#   bound   sparse_class 1:20, 4 bulk flows beside 200 UDP flows that
#           each send 1000 bytes every 120 ms (under a quantum per
#           interval: each one sparse, together up to 13 Mbit/s, two
#           thirds of the link), with 1:20's guaranteed rate raised to
#           19mbit (1:10 keeps 1mbit) so that HTB itself no longer holds
#           the class back, as a strict priority band (pfifo_fast's band
#           0) would not: the class sent ahead may carry at most 1/8 of the
#           root's bytes (fair.h's bound) plus slack, 16 %, and the bound
#           is seen to act (sparse_bounded > 0); the sparse load offered
#           is printed
#
# Exit 0 pass, 77 skip, 1 fail.  SECS=, SOJOURN= override.

# shellcheck source=SCRIPTDIR/../lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
topo_require sojourn irtt

SECS=${SECS:-15}
topo_trap "$NS_R:$DEV_RS"

topo_up 1
topo_ecn 1 1
inr tc qdisc replace dev "$DEV_RS" root handle 1: htb default 10 &&
inr tc class add dev "$DEV_RS" parent 1: classid 1:1 htb rate 20mbit quantum 1514 &&
inr tc class add dev "$DEV_RS" parent 1:1 classid 1:10 htb rate 18mbit ceil 20mbit \
	prio 1 quantum 1514 &&
inr tc class add dev "$DEV_RS" parent 1:1 classid 1:20 htb rate 2mbit ceil 20mbit \
	burst 25k prio 0 quantum 1514 &&
inr tc qdisc add dev "$DEV_RS" parent 1:10 handle 10: pfifo limit 1000 &&
inr tc qdisc add dev "$DEV_RS" parent 1:20 handle 20: pfifo limit 1000 ||
	die "cannot build the HTB tree"
topo_servers 5201 5203 5204
ins irtt server -b "$IP_S:2112" >/dev/null 2>&1 &
idle=$(idle_rtt)
irtt_idle=$(inc irtt client -i 50ms -d 2s -Q -o - "$IP_S:2112" 2>/dev/null |
	jq '.round_trips[] | .delay.rtt // empty | . / 1e6' | median)
row "idle RTT ping / irtt (ms)" "$idle / $irtt_idle" "" info

# reorders: sojourn's "reordered reordered_ahead", from one show; fails
# unless both are numbers
reorders() {
	sj show "$DEV_RS" -s -j -n "$NS_R" | jq -er '.[0].stats |
		select((.reordered | type) == "number" and
		       (.reordered_ahead | type) == "number") |
		"\(.reordered) \(.reordered_ahead)"'
}

# dropped: packets the router's egress dropped, its qdiscs and sojourn
dropped() {
	inr tc -s -j qdisc show dev "$DEV_RS" | jq '[.[] | select(.root) | .drops] | add'
}

# run TAG: the bulk, the app-limited flows, the ping (run_load) and irtt;
# p99 rises in P99_PING P99_UDP, the receiver's counters in OFO DSACK,
# the root's drops over the run in DROPS, sojourn's reordered in REORDERED
# and reordered_ahead in AHEAD_PASSED
run() {
	local tag=$1 udp drops0 reordered0 passed0 reordered1 passed1
	inc irtt client -i 50ms -d "${SECS}s" -Q -o - "$IP_S:2112" \
		>"$WORK/$tag.irtt.json" 2>/dev/null &
	udp=$!
	ins nstat -n >/dev/null		# a fresh baseline at the receiver
	drops0=$(dropped)
	read -r reordered0 passed0 < <(reorders) || die "show -s: no reorder counts"
	# shellcheck disable=SC2086
	PROBE_HZ=20 run_load "$tag" "$SECS" 5201:8 ${APP:-} ||
		die "iperf3 failed ($tag)"
	wait "$udp"
	P99_PING=$(fsub "$(pctl 99 <"$WORK/$tag.probe")" "$idle")
	P99_UDP=$(fsub "$(jq '.round_trips[] | .delay.rtt // empty | . / 1e6' \
		"$WORK/$tag.irtt.json" | pctl 99)" "$irtt_idle")
	GOODPUT=$(goodput "$tag" 5201)
	BULK_RISE=$(fsub "$(rtt_median "$tag")" "$idle")
	DROPS=$(($(dropped) - drops0))
	read -r reordered1 passed1 < <(reorders) || die "show -s: no reorder counts"
	REORDERED=$((reordered1 - reordered0))
	AHEAD_PASSED=$((passed1 - passed0))
	OFO=$(ins nstat -z TcpExtTCPOFOQueue | awk '$1 == "TcpExtTCPOFOQueue" {print $2}')
	DSACK=$(ins nstat -z TcpExtTCPDSACKOldSent TcpExtTCPDSACKOfoSent |
		awk '$1 ~ /^TcpExtTCPDSACK/ {n += $2} END {print n + 0}')
}

sj attach "$DEV_RS" sparse_class off -n "$NS_R" || die "attach"
if baselines; then
	run off
	row "off: ping / irtt p99 rise (ms)" "$P99_PING / $P99_UDP" "" info
	row "off: bulk goodput (Mbit/s)" "$GOODPUT" "" info
	row "off: bulk RTT rise median (ms)" "$BULK_RISE" "" info
	row "off: receiver's out-of-order / D-SACK, drops" "${OFO:-0} / $DSACK, $DROPS" "" info
	row "off: reordered at the qdisc" "$REORDERED" "" info
fi

sj change "$DEV_RS" sparse_class 1:20 -n "$NS_R" || die "change sparse_class"
is "show: sparse_class" "$(sj show "$DEV_RS" -j -n "$NS_R" | jq -r '.[0].sparse_class')" 1:20
run steered
stats=$(sj show "$DEV_RS" -s -j -n "$NS_R" | jq -c '.[0].stats')
check "steered: ping p99 rise (ms)" "$P99_PING" '<' 5
check "steered: irtt p99 rise (ms)" "$P99_UDP" '<' 5
check "steered: sparse_steered" "$(jq .sparse_steered <<<"$stats")" '>' 0
check "steered: packets in class 1:20" \
	"$(inr tc -s class show dev "$DEV_RS" classid 1:20 | awk '/Sent/{print $4; exit}')" '>' 100
row "steered: bulk goodput (Mbit/s)" "$GOODPUT" "" info
# steering must not cost the bulk its CoDel: the law sees only the bulk class
check "steered: bulk RTT rise median (ms)" "$BULK_RISE" '<' 30
row "steered: reordered at the qdisc, by steering" "$REORDERED, $AHEAD_PASSED" "" info

# order: the same with the app-limited flows beside the bulk; in their
# own phase, as their packets sent ahead share 1:20 with the probes (the
# irtt probe's p99 rise went to 4.7-6.7 ms with them)
APP="5203:4:120K/3 5204:4:60K" run order
check "order: passed by their own sent ahead" "$AHEAD_PASSED" '==' 0
row "order: reordered at the qdisc" "$REORDERED" "" info
row "order: sparse_steered" "$(sj show "$DEV_RS" -s -j -n "$NS_R" | jq .[0].stats.sparse_steered)" "" info
row "order: receiver's out-of-order / D-SACK, drops" "${OFO:-0} / $DSACK, $DROPS" "" info

# bound: many sparse flows together may not take the priority path over
sent() {	# sent CLASSID|root: bytes the class (or the root) has sent
	if [ "$1" = root ]; then
		inr tc -s -j qdisc show dev "$DEV_RS" | jq '.[] | select(.root) | .bytes'
	else
		# iproute2 6.1 prints no JSON for an HTB class
		inr tc -s class show dev "$DEV_RS" classid "$1" |
			awk '/Sent/ { print $2; exit }'
	fi
}
inr tc class change dev "$DEV_RS" parent 1:1 classid 1:10 htb rate 1mbit \
	ceil 20mbit prio 1 quantum 1514 &&
inr tc class change dev "$DEV_RS" parent 1:1 classid 1:20 htb rate 19mbit \
	ceil 20mbit prio 0 quantum 1514 || die "cannot widen class 1:20"
root0=$(sent root) ahead0=$(sent 1:20)
inc python3 -c '
import socket, sys, time
ip, n, secs = sys.argv[1], 200, float(sys.argv[2])
sent = 0
socks = [socket.socket(socket.AF_INET, socket.SOCK_DGRAM) for _ in range(n)]
end = time.monotonic() + secs
t = time.monotonic()
while t < end:
    for i, s in enumerate(socks):
        sent += s.sendto(b"x" * 1000, (ip, 9))
        time.sleep(0.12 / n)
    t = time.monotonic()
print("%.1f" % (sent * 8 / secs / 1e6))
' "$IP_S" "$SECS" >"$WORK/sparse.offered" &
sparse_pid=$!
TOPO_BG="$TOPO_BG $sparse_pid"
run_load bound "$SECS" 5201:4 || die "iperf3 failed (bound)"
wait "$sparse_pid"
share=$(awk -v a=$(($(sent 1:20) - ahead0)) -v r=$(($(sent root) - root0)) \
	'BEGIN{printf "%.1f", (r > 0) ? a * 100 / r : 0}')
stats=$(sj show "$DEV_RS" -s -j -n "$NS_R" | jq -c '.[0].stats')
row "bound: sparse load offered (Mbit/s)" "$(cat "$WORK/sparse.offered")" "" info
check "bound: class 1:20's share of the bytes (%)" "$share" '<=' 16
check "bound: sparse_bounded" "$(jq .sparse_bounded <<<"$stats")" '>' 0

finish fair_sparse
