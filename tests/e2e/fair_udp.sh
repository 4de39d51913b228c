#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# An unresponsive flood beside TCP on a FIFO.  The router's egress toward
# the server is HTB 20mbit + pfifo 1000; the client sends 4 cubic flows and
# one UDP flow at 40 Mbit that ignores every signal, with a 20 Hz ping
# beside them.  Side by side:
#   fifo       the FIFO alone: the flood takes the link
#   nofair     sojourn without fairness: CoDel's signals land on whoever
#              comes next, mostly TCP, which backs off further
#   fair       sojourn with fairness: signals go to the flow holding more
#              than the mean backlog, and the flood, judged unresponsive,
#              is dropped at enqueue down toward its share
# With fair, the TCP flows together must get at least 40% of the link and
# the ping's median rise stay under 20 ms.  That bar was 15 ms while the
# judge also convicted the cubic flows (ECN or not) now and then, and its
# drops held the queue lower: 12.7 ms in one run before, 13.5-16.6 ms in
# four since it convicts only flows that do not answer (issue 17).  The
# bar is lowered with that reason, not for noise.
#
# Exit 0 pass, 77 skip, 1 fail.  SECS=, SOJOURN= override.

# shellcheck source=SCRIPTDIR/../lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
topo_require sojourn

SECS=${SECS:-15}
topo_trap "$NS_R:$DEV_RS"

topo_up 1
topo_ecn 1 1
topo_shape 20mbit
topo_servers 5201 5202
idle=$(idle_rtt)
row "idle RTT (ms)" "$idle" "" info

# run SYSTEM: 4 TCP + the flood + the ping; TCP share (%) and ping rise
run() {
	local sys=$1 udp
	inc timeout $((SECS + 20)) iperf3 -c "$IP_S" -p 5202 -u -b 40M -l 1400 \
		-t "$SECS" -J >"$WORK/$sys.udp.json" 2>/dev/null &
	udp=$!
	PROBE_HZ=20 OMIT=3 run_load "$sys" "$SECS" 5201:4 || die "iperf3 failed ($sys)"
	wait "$udp"
	SHARE=$(awk -v g="$(goodput "$sys" 5201)" 'BEGIN{printf "%.1f", g / 20 * 100}')
	RISE=$(fsub "$(median <"$WORK/$sys.probe")" "$idle")
}

run fifo
row "fifo: TCP share of the link (%)" "$SHARE" "" info
row "fifo: ping rise median (ms)" "$RISE" "" info

sj attach "$DEV_RS" nofair -n "$NS_R" || die "attach nofair"
run nofair
row "nofair: TCP share of the link (%)" "$SHARE" "" info
row "nofair: ping rise median (ms)" "$RISE" "" info

sj change "$DEV_RS" fair -n "$NS_R" || die "change fair"
is "show: fair" "$(sj show "$DEV_RS" -j -n "$NS_R" | jq -r '.[0].fair')" true
run fair
stats=$(sj show "$DEV_RS" -s -j -n "$NS_R" | jq -c '.[0].stats')
check "fair: TCP share of the link (%)" "$SHARE" '>=' 40
check "fair: ping rise median (ms)" "$RISE" '<' 20
check "fair: unresponsive_drops" "$(jq .unresponsive_drops <<<"$stats")" '>' 0
row "fair: new_flow_count" "$(jq .new_flow_count <<<"$stats")" "" info
row "fair: ecn_mark / drops (CoDel)" "$(jq -r '"\(.ecn_mark) / \(.drops)"' <<<"$stats")" "" info
log "flows: $(sj show "$DEV_RS" -s -j -n "$NS_R" | jq -c '.[0].stats.queues')"

finish fair_udp
