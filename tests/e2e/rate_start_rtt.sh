#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Ingress rate mode from the first packet at real RTTs: rate_start.sh's
# download (one cubic ECN flow, iperf3 -R, 8 s, `ingress rate 20mbit` on
# the client's interface) on the bench topology (bench/lib/net.sh), whose
# delay line gives the path a base RTT of 10, 40 or 100 ms.  Nothing but
# sojourn slows the path (~650 Mbit/s without it).  Per row:
#   first second   bytes the client received in the first 1.0 s over
#                  20 Mbit x 1 s: at most 1.1 (the issue's bound)
#   retransmits    the sender's TcpRetransSegs over the 8 s (nstat in the
#                  server's namespace) as a share of its TcpOutSegs: at
#                  most 0.5 %.  Why that bound: "near zero" must tell a
#                  slow start that ends in a mark from one that ends in a
#                  tail drop, which at these RTTs costs the window's whole
#                  excess: 280-1700 segments, 2-12 % of those sent (the
#                  police and codel rows).  0.5 % (40-70 segments) leaves
#                  room for one small loss episode and none of those.
#                  Every retransmit of every row fell in the first 3 s of
#                  10 s runs (the sender's per-second count), so 8 s (the
#                  four judged rows in ~40 s) leaves none out.
#   goodput        at least 0.3x the rate: a sojourn that locks the flow
#                  out, or cuts it to a trickle, must not pass for one that
#                  keeps it from retransmitting.
# Rows (police and codel only with SJ_BASELINES=1, as make check leaves
# out what it does not judge):
#   police         the same bucket with no law in front of it, as an
#                  ingress policer has (tc's police action is not in this
#                  kernel: no CONFIG_NET_ACT_POLICE): rate 20mbit, target
#                  199ms interval 100s ce_threshold off, so that nothing
#                  marks or signals and only the bulk's 200 ms ceiling drops, a
#                  token bucket of 500 KB plus the 32 KB burst.  Printed, not judged (2026-12:
#                  1000-1700 retransmits, 7-12 %, goodput 17-19.5 Mbit/s).
#   codel          CoDel alone (`ce_threshold off`, the default before
#                  2026-12).  Printed, not judged: CoDel first signals
#                  after 100 ms above target, and an ingress virtual queue
#                  delays nothing, so the sender's RTT never grows and its
#                  slow start doubles on past the rate until the horizon
#                  drops the excess (2026-12: 280-780 retransmits at 10, 40
#                  and 100 ms, all in the first second, nearly all
#                  `drop_overlimit`; goodput 7-16 Mbit/s.  Traced at 40 ms,
#                  where the BDP is 69 packets: the sender's cwnd reached
#                  491 before the first signal, 567 drops followed within
#                  150 ms and the recovery left cwnd at 4).
#   default        sojourn's defaults, where ingress rate mode's
#                  ce_threshold is the target (5 ms): every ECT packet that
#                  would wait more than 5 ms is marked, so the slow start
#                  ends in a mark a few ms into the virtual queue.  All
#                  three columns judged, hook tc at 10, 40 and 100 ms, hook
#                  xdp at 40 ms (2026-12, as `ce_threshold 5ms`: 0
#                  retransmits in every run; the price is throughput, as
#                  the marks go on until the queue has drained: first
#                  second 0.44-0.76x, goodput 8-15.7 Mbit/s.  Traced at 40
#                  ms: cwnd 130, then 35, then 16 in three RTTs, all 337
#                  marks within 250 ms, and cubic's ~0.5 packet an RTT
#                  takes seconds back to the BDP).
# EXTRA= adds words to every attach.
#
# Exit 0 pass, 77 skip, 1 fail.  SECS=, SOJOURN= override.

# shellcheck source=SCRIPTDIR/../../bench/lib/net.sh
. "$(dirname "$0")/../../bench/lib/net.sh"
net_require iperf3 jq nstat
[ -x "$SOJOURN" ] || skip "$SOJOURN not built"

SECS=${SECS:-8}
RATE_MBIT=20
sj() { timeout 15 "$SOJOURN" "$@"; }
cleanup() {
	[ -e "/run/netns/$NS_C" ] &&
		timeout 10 "$SOJOURN" detach "$DEV_C" ingress -n "$NS_C" >/dev/null 2>&1
	net_down
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# delay_set MS: the delay line again, MS each way
delay_set() {
	delayline_stop
	delayline_start "$1"
}

# download TAG HOOK ATTACH-WORDS...: one cubic flow for SECS s to the
# client through sojourn; sets FIRST (first second over the rate), RETRANS
# and RETRANS_PCT (the sender's), GOODPUT (Mbit/s) and STATS
download() {
	local tag=$1 hook=$2 st
	shift 2
	# shellcheck disable=SC2086
	sj attach "$DEV_C" ingress rate ${RATE_MBIT}mbit hook "$hook" "$@" $EXTRA \
		-n "$NS_C" || die "attach ingress ($tag)"
	ins nstat -n >/dev/null		# a fresh baseline in the sender's namespace
	inc timeout $((SECS + 30)) iperf3 -c "$IP_S" -p 5201 -R -C cubic \
		-t "$SECS" -i 0.1 -J >"$WORK/$tag.json" 2>"$WORK/$tag.err" ||
		die "iperf3 failed ($tag): $(tail -c 300 "$WORK/$tag.err")"
	st=$(ins nstat -z TcpRetransSegs TcpOutSegs)
	STATS=$(sj show "$DEV_C" -s -j -n "$NS_C" | jq -c '.[0].stats')
	sj detach "$DEV_C" ingress -n "$NS_C" || die "detach ($tag)"
	RETRANS=$(awk '$1 == "TcpRetransSegs" {print $2}' <<<"$st")
	RETRANS_PCT=$(awk -v r="${RETRANS:-x}" '$1 == "TcpOutSegs" && $2 > 0 {
		printf "%.2f", r * 100 / $2}' <<<"$st")
	# the receiver's intervals that end within the first second
	FIRST=$(jq --argjson r $RATE_MBIT \
		'[.intervals[].sum | select(.end <= 1.0001) | .bytes] | add // 0 |
		 . * 8 / ($r * 1e6) * 1000 | round / 1000' "$WORK/$tag.json")
	GOODPUT=$(jq '.end.sum_received.bits_per_second / 1e6 | . * 100 | round / 100' \
		"$WORK/$tag.json")
}

# counters TAG: sojourn's own count of what it did, a row
counters() {
	row "$1: ecn_mark ce_mark drops overlimit" "" "" \
		"$(jq -r '"\(.ecn_mark) \(.ce_mark) \(.drops) \(.drop_overlimit)"' <<<"$STATS")"
}

net_up
for ns in "$NS_C" "$NS_S"; do ip netns exec "$ns" sysctl -qw net.ipv4.tcp_ecn=1; done
ins iperf3 -s -p 5201 -D >/dev/null 2>&1
wait_listen "$NS_S" t 5201

# 40 ms: the three side by side (the two printed, not judged, only with
# SJ_BASELINES=1: common.sh)
if baselines; then
	delay_set 20
	download police.40 tc target 199ms interval 100s ce_threshold off
	row "rtt 40 police: first second over the rate" "$FIRST" "" info
	row "rtt 40 police: retransmits (% of sent)" "$RETRANS ($RETRANS_PCT)" "" info
	row "rtt 40 police: goodput (Mbit/s)" "$GOODPUT" "" info
	counters "rtt 40 police"
	download codel.40 tc ce_threshold off
	row "rtt 40 codel: first second over the rate" "$FIRST" "" info
	row "rtt 40 codel: retransmits (% of sent)" "$RETRANS ($RETRANS_PCT)" "" info
	row "rtt 40 codel: goodput (Mbit/s)" "$GOODPUT" "" info
	counters "rtt 40 codel"
fi

# rows: ONE-WAY-MS HOOK
for r in "20 tc" "20 xdp" "5 tc" "50 tc"; do
	read -r d hook <<<"$r"
	rtt=$((2 * d)) tag="rtt $((2 * d)) default $hook"
	delay_set "$d"
	download "default.$rtt.$hook" "$hook"
	check "$tag: first second over the rate" "$FIRST" '<=' 1.1
	check "$tag: retransmits, % of sent ($RETRANS)" "$RETRANS_PCT" '<=' 0.5
	check "$tag: goodput (Mbit/s)" "$GOODPUT" '>=' \
		"$(awk -v r=$RATE_MBIT 'BEGIN{print 0.3 * r}')"
	counters "$tag"
done

echo "($SECONDS s)"
finish rate_start_rtt
