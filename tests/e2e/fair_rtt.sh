#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Mixed RTTs on one FIFO, TCP alone.  The bench topology (bench/lib/net.sh):
# client -> router (HTB 20mbit + pfifo 1000 toward the server) -> delay
# line -> server, with per-port delays: two cubic flows each to port 5201
# (10 ms base RTT), 5202 (80 ms) and 5203 (300 ms).  A FIFO, and CoDel
# alone, give the short flows most of the link; fairness (signals for the
# flows that send faster than the mean rate) must bring Jain's index of
# the six goodputs to JAIN_MIN, issue 17's 0.9, or more, with ECN and
# without, where the FIFO reads 0.69-0.81 and nofair 0.56-0.61.  Signals
# for the flows that held more than the mean backlog read 0.889-0.942
# (one law per queue, hastened or not, 2026-12-05/06): at that bar, not
# over it, as the test's 0.85 then said.  Near a 5 ms target each flow
# holds one or two packets, and which holds two is chance: the law mostly
# waited, and the 10 ms flows took too few signals to be held to their
# share (146-164 each a run, 172-239 by rate).  By rate, 0.93-0.972 in
# six runs, each with ECN and without (2026-12-06).
# The log says where the signals went, per flow by port.
# Every flow here is TCP that answers every signal, so the judge of
# unresponsive flows must convict none: 0 unresponsive_drops in both fair
# runs (issue 17; the judge that convicted on heaviness alone dropped
# 96-197 packets here).  tcp_answers, the CWRs and retransmissions it read
# as answers, is printed.
#
# The FIFO and nofair runs judge nothing and run only with SJ_BASELINES=1
# (common.sh).  Exit 0 pass, 77 skip, 1 fail.  SECS=, JAIN_MIN=, SOJOURN=
# override.

# shellcheck source=SCRIPTDIR/../../bench/lib/net.sh
. "$(dirname "$0")/../../bench/lib/net.sh"
net_require iperf3 jq
[ -x "$SOJOURN" ] || skip "$SOJOURN not built"

SECS=${SECS:-15}
JAIN_MIN=${JAIN_MIN:-0.9}
PORTS="5201 5202 5203"
DELAY_MS=20 DELAY_RULES="5201=5 5202=40 5203=150"
cleanup() {
	[ -e "/run/netns/$NS_R" ] &&
		timeout 10 "$SOJOURN" detach "$DEV_RS" -n "$NS_R" >/dev/null 2>&1
	net_down
}
trap cleanup EXIT
trap 'exit 130' INT TERM

net_up
htb_leaf "$NS_R" "$DEV_RS" 20mbit || die "cannot shape $DEV_RS"
for p in $PORTS; do
	ins iperf3 -s -p $p -D >/dev/null 2>&1
	wait_listen "$NS_S" t $p
done

# ecn 0|1: the senders' and receivers' tcp_ecn
ecn() {
	local ns
	for ns in "$NS_C" "$NS_S"; do
		ip netns exec "$ns" sysctl -qw net.ipv4.tcp_ecn="$1"
	done
}

# run TAG: 2 flows per RTT; sets GP (the goodputs) and JAIN
run() {
	local tag=$1 p pids=""
	for p in $PORTS; do
		inc timeout $((SECS + 30)) iperf3 -c "$IP_S" -p $p -P 2 -C cubic \
			-t "$SECS" -O 3 -J >"$WORK/$tag.$p.json" 2>/dev/null &
		pids="$pids $!"
	done
	# shellcheck disable=SC2086
	wait $pids	# not the delay line, which runs in the background too
	# shellcheck disable=SC2046
	jq -s '[.[].end.streams[].receiver.bits_per_second / 1e6]' \
		$(for p in $PORTS; do echo "$WORK/$tag.$p.json"; done) >"$WORK/$tag.gp"
	GP=$(jq -r 'map(. * 100 | round / 100) | join(" ")' "$WORK/$tag.gp")
	GP="$GP = $(jq -r 'add * 100 | round / 100' "$WORK/$tag.gp")"
	JAIN=$(jq '(add * add) / (length * (map(. * .) | add)) | . * 1000 | round / 1000' \
		"$WORK/$tag.gp")
}

sj() { timeout 15 "$SOJOURN" "$@"; }
stats() { sj show "$DEV_RS" -s -j -n "$NS_R" | jq -c '.[0].stats'; }

ecn 1
if baselines; then
	run fifo
	log "fifo: goodputs at 10,10,80,80,300,300 ms = total (Mbit/s): $GP"
	row "fifo: Jain's index" "$JAIN" "" info
	row "fifo: total goodput (Mbit/s)" "${GP##* }" "" info
	sj attach "$DEV_RS" nofair -n "$NS_R" || die "attach"
	run nofair
	log "nofair: goodputs (Mbit/s): $GP"
	row "nofair: Jain's index" "$JAIN" "" info
	sj change "$DEV_RS" fair -n "$NS_R" || die "change fair"
else
	sj attach "$DEV_RS" fair -n "$NS_R" || die "attach"
fi

# fair, with ECN and then without: counters are read as differences
for mode in ecn drop; do
	[ "$mode" = ecn ] && ecn 1 || ecn 0
	st0=$(stats)
	run "fair-$mode"
	st1=$(stats)
	delta() { echo $(($(jq -r ".$1" <<<"$st1") - $(jq -r ".$1" <<<"$st0"))); }
	log "fair $mode: goodputs (Mbit/s): $GP"
	row "fair $mode: total goodput (Mbit/s)" "${GP##* }" "" info
	check "fair $mode: Jain's index" "$JAIN" '>=' "$JAIN_MIN"
	check "fair $mode: unresponsive_drops" "$(delta unresponsive_drops)" '==' 0
	row "fair $mode: ecn_mark / drops / tcp_answers" \
		"$(delta ecn_mark) / $(delta drops) / $(delta tcp_answers)" "" info
	row "fair $mode: signals / expired / deferred" \
		"$(delta signals) / $(delta signals_expired) / $(delta signals_deferred)" "" info
	# where the signals went: this run's flows (younger than it), by RTT
	log "fair $mode: signals carried (marks + drops) / packets, by port: $(
		sj hist "$DEV_RS" --flow proto tcp -j -n "$NS_R" |
		jq -r --argjson young $(((SECS + 8) * 1000)) '
			[.[0].flow_list[] | select(.age_ms < $young and .packets > 100)] |
			group_by(.dport) | map("\(.[0].dport): " +
				([.[] | "\(.ecn_marks + .drops)/\(.packets)"] | join(" ")))
			| join(", ")')"
done
finish fair_rtt
