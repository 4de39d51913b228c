#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# `make demo`: bufferbloat and its cure, side by side.
#
# client --> router --> server, in network namespaces.  The router's egress
# toward the server is a 20 Mbit/s bottleneck (HTB) with a 1000-packet FIFO,
# like a home router's uplink.  4 bulk TCP uploads (cubic, ECN) run with a
# 20 Hz ICMP latency probe, first on the FIFO alone, then with sojourn
# attached to the router's egress.  Everything is removed at the end.
#
# SECS= sets the length of each run (default 20), SOJOURN= the command.

# shellcheck source=SCRIPTDIR/../tests/lib/topo.sh
. "$(dirname "$0")/../tests/lib/topo.sh"
topo_require sojourn

SECS=${SECS:-20}
HZ=20
topo_trap "$NS_R:$DEV_RS"

topo_up 1
topo_ecn 1 1
topo_shape 20mbit
topo_servers 5201
idle=$(idle_rtt)

echo "sojourn demo: 20 Mbit/s bottleneck, 1000-packet FIFO, 4 TCP cubic"
echo "uploads + a ${HZ} Hz ping probe, ${SECS} s per run.  Idle RTT ${idle} ms."
echo
echo "[1/2] FIFO alone ..."
PROBE_HZ=$HZ run_load fifo "$SECS" 5201:4 || die "iperf3 failed"
echo "[2/2] with sojourn (CoDel 5 ms / 100 ms, ECN) on the router's egress ..."
sj attach "$DEV_RS" -n "$NS_R" || die "sojourn attach failed"
PROBE_HZ=$HZ run_load codel "$SECS" 5201:4 || die "iperf3 failed"
stats=$(sj_stats "$DEV_RS")
sj detach "$DEV_RS" -n "$NS_R" || die "sojourn detach failed"

loss() {
	awk -v n="$(wc -l <"$WORK/$1.probe")" -v s=$((SECS * HZ)) \
		'BEGIN{printf "%.1f\n", 100 * (s - n) / s}'
}
echo
printf '%-28s %12s %12s\n' "" "FIFO" "sojourn"
printf '%-28s %12s %12s\n' "probe RTT p50 (ms)" \
	"$(pctl 50 <"$WORK/fifo.probe")" "$(pctl 50 <"$WORK/codel.probe")"
printf '%-28s %12s %12s\n' "probe RTT p99 (ms)" \
	"$(pctl 99 <"$WORK/fifo.probe")" "$(pctl 99 <"$WORK/codel.probe")"
printf '%-28s %12s %12s\n' "probe loss (%)" "$(loss fifo)" "$(loss codel)"
printf '%-28s %12s %12s\n' "bulk TCP RTT median (ms)" \
	"$(rtt_median fifo)" "$(rtt_median codel)"
printf '%-28s %12s %12s\n' "goodput (Mbit/s)" "$(goodput fifo)" "$(goodput codel)"
printf '%-28s %12s %12s\n' "CE marks / drops" "-" \
	"$(jq -r '"\(.stats.ecn_mark) / \(.stats.drops)"' <<<"$stats")"
echo
echo "(bulk TCP RTT is the senders' srtt from ss, slow start left out)"
