#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Responsive flows that are not TCP, as QUIC's are (issue 17: no false
# verdicts; HTTP/3 is UDP).  No QUIC stack is packaged here, so
# build/udpcc (tests/e2e/udpcc.c) stands in: RFC 9002's NewReno in
# 1200-byte datagrams, paced at 1.25 cwnd/srtt, halving once per round
# trip on a loss or an echoed CE.  The bottleneck is a classful root with
# two leaves (topo.sh's topo_shape_prio: HTB 20mbit parent, a bulk leaf and
# an ICMP leaf, each with its pfifo), not the one class + pfifo the judge
# was written on.  Two udpcc flows and two cubic TCP uploads share the bulk
# leaf for SECS; sojourn attached with its defaults (`fair` on):
#  1. ECN: udpcc sends ECT(0), TCP negotiates ECN; CoDel marks.
#  2. no ECN: Not-ECT everywhere; CoDel drops.
# In each: the udpcc flows took sojourn's signals (CE echoed, or losses)
# and cut their windows; each gets at least half of an even share (a
# quarter) of the goodput; the TCP flows' RTT rise stays under RISE_MAX
# (15 ms); and the judge seldom takes them for unresponsive:
# unresponsive_drops at most 1 % of the law's signals (2.5 % until the
# means moved by time, below).  Not 0, which is what issue 17 asks: the
# judge reads a flow that is not TCP by a fall of
# its rate (fair.h, sj_fair_rate_answer) or of its backlog
# (sj_fair_backlog_answer), and 2-3 times a phase neither shows before an
# interval is out; the rate answer then clears the conviction after a few
# drops.  Measured, 4 runs each side by side (2026-12-07), unresponsive
# drops per phase (ECN; no ECN): before the backlog answer (07590b1) 21,
# 4, 20, 13; 9, 5, 13, 15 (up to 2.7 % of the signals; 4.5 % and 35 in
# earlier runs); with it 9, 0, 8, 5; 0, 7, 0, 9 (at most 1.2 %; 1.6 % in
# earlier runs).  8 runs later (fair.h's rules since): 11+0, 3+0, 29+0,
# 2+0, 4+0, 0+6, 0+9, 2+0 (ECN + no ECN; the 29 4.0 %, over the bar);
# with the means moved by time (fair.h: sj_fair_mean_move) 0+0, 1+1,
# 0+0, 0+0, 0+1, 4+0, 0+0, 1+0, and 8 more: 0+0, 1+0, 0+0, 0+0, 0+0,
# 0+0, 1+1, 0+0 (at most 0.5 %; 2026-12-07).  By hand at 5mbit, 4 runs
# each: 0+0, 6+0, 0+0, 0+0 before, 11+0, 1+1, 11+0, 0+0 after (at most
# 0.6 %: with fewer packets, a step moves the mean further).  Exit 0 pass,
# 77 skip, 1 fail.  SECS=, RISE_MAX=, SOJOURN= override.

# shellcheck source=SCRIPTDIR/../lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
topo_require sojourn
UDPCC=$SJ_ROOT/build/udpcc
[ -x "$UDPCC" ] || skip "$UDPCC not built (make tests)"

SECS=${SECS:-10}
RISE_MAX=${RISE_MAX:-15}
topo_trap "$NS_R:$DEV_RS"

topo_up 1
topo_shape_prio 20mbit
topo_servers 5201
# out of this shell's jobs (topo_down kills what runs in the namespace)
for p in 4433 4434; do (ins "$UDPCC" server "$IP_S" "$p" &); done
idle=$(idle_rtt)
row "idle RTT (ms)" "$idle" "" info
sj attach "$DEV_RS" -n "$NS_R" || die "attach"
is "show: fair" "$(sj show "$DEV_RS" -j -n "$NS_R" | jq -r '.[0].fair')" true

# phase TAG [ecn]: 2 udpcc flows + 2 cubic uploads for SECS, then the checks
phase() {
	local tag=$1 ecn=${2:-} before after p f total pids=""
	before=$(sj_stats "$DEV_RS" | jq -c '.stats')
	for p in 4433 4434; do
		inc timeout $((SECS + 10)) "$UDPCC" client "$IP_S" "$p" "$SECS" $ecn \
			>"$WORK/$tag.$p.udpcc" &
		pids="$pids $!"
	done
	run_load "$tag" "$SECS" 5201:2 || die "iperf3 failed ($tag)"
	for p in $pids; do wait "$p" || die "udpcc failed ($tag)"; done
	after=$(sj_stats "$DEV_RS" | jq -c '.stats')
	delta() { stats_delta "$before" "$after" "$1"; }
	# udpcc_field KEY PORT: KEY's number on that flow's udpcc line, 0 if
	# the line has none
	udpcc_field() {
		sed -n "s/.*\\b$1=\\([0-9.]*\\).*/\\1/p" "$WORK/$tag.$2.udpcc" | grep . || echo 0
	}
	for p in 4433 4434; do
		row "$tag: udpcc to $p" "$(cat "$WORK/$tag.$p.udpcc")" "" info
	done
	total=$(awk -v a="$(udpcc_field mbit 4433)" -v b="$(udpcc_field mbit 4434)" \
		-v t="$(goodput "$tag")" 'BEGIN{printf "%.2f", a + b + t}')
	row "$tag: goodput, all 4 flows (Mbit/s)" "$total" "" info
	# udpcc's own count of what it took: CE echoed, or losses
	for p in 4433 4434; do
		if [ -n "$ecn" ]; then
			check "$tag: udpcc $p: CE echoed" "$(udpcc_field ce $p)" '>' 0
		else
			check "$tag: udpcc $p: losses" "$(udpcc_field lost $p)" '>' 0
		fi
		check "$tag: udpcc $p: window cuts" "$(udpcc_field cuts $p)" '>' 0
		check "$tag: udpcc $p: % of an even share (a quarter)" \
			"$(awk -v g="$(udpcc_field mbit $p)" -v t="$total" \
				'BEGIN{printf "%.1f", (t > 0 ? 400 * g / t : 0)}')" '>=' 50
	done
	check "$tag: TCP bulk RTT rise median (ms)" "$(fsub "$(rtt_median "$tag")" "$idle")" '<' "$RISE_MAX"
	check "$tag: the law's signals" "$(delta signals)" '>' 0
	check "$tag: unresponsive_drops, % of the law's signals" \
		"$(awk -v u="$(delta unresponsive_drops)" -v s="$(delta signals)" \
			'BEGIN{printf "%.1f", (s > 0 ? 100 * u / s : 100)}')" '<=' 1
	row "$tag: unresponsive_drops / rate_answers / backlog_answers" \
		"$(delta unresponsive_drops) / $(delta rate_answers) / $(delta backlog_answers)" "" info
	row "$tag: CE marks / CoDel drops" "$(delta ecn_mark) / $(delta drops)" "" info
	row "$tag: packets left with no flow found (%)" \
		"$(sj hist "$DEV_RS" -j -n "$NS_R" | without_flow_pct)" "" info
	# whose packets sojourn dropped or marked, since attach
	for p in udp tcp; do
		log "$tag: $p flows (dport drops marks): $(sj hist "$DEV_RS" --flow proto $p -j -n "$NS_R" |
			jq -r '[.[0].flow_list[] | select(.packets > 1000) |
				"\(.dport) \(.drops) \(.ecn_marks)"] | join(", ")')"
	done
}

topo_ecn 1 1
log "ECN: 2 udpcc flows (ECT(0)) and 2 cubic uploads for ${SECS}s"
phase ecn ecn
topo_ecn 0 0
log "no ECN: 2 udpcc flows and 2 cubic uploads for ${SECS}s"
phase noecn
sj detach "$DEV_RS" -n "$NS_R" || die "detach"

finish fair_quic
