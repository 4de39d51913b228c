#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Field matrix, row "HTB with a priority class" (issue 14): the bottleneck
# as operators build it, one root over two leaves with a pfifo each:
#   1:2  prio 0, 2 Mbit guaranteed, ceil 20 Mbit: an ICMP probe at 25 pps,
#        put there by a u32 filter (what VoIP, DNS or ACK classes look like)
#   1:1  prio 1, the default, ceil 20 Mbit: 4 cubic uploads
#
# The probe leaves its class with near-zero sojourn.  A CoDel state shared
# by the whole root sees those low sojourns between the bulk class's high
# ones and keeps resetting "above target since": the bulk class is never
# signalled, and its queue stands where the FIFO alone puts it.  CoDel per
# leaf or per flow (the kernel's codel and fq_codel) controls the bulk.
#
#  1. FIFO alone: bulk RTT rise (sender srtt over idle) > 200 ms, while the
#     probe in its class sees almost nothing of it (the classes work).
#  2. sojourn attached with its defaults: bulk RTT rise median <= 15 ms,
#     ecn_mark > 0, goodput >= 85% of FIFO, and the probe not hurt: at most
#     1% lost and its median RTT within 2 ms of its idle RTT.
#
# Exit 0 pass, 77 skip, 1 fail.  SECS=, RISE_MAX= (ms), SOJOURN= override.

# shellcheck source=SCRIPTDIR/../lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
topo_require sojourn

SECS=${SECS:-15}
RISE_MAX=${RISE_MAX:-15}
PROBE_HZ=25			# 40 ms apart: several per CoDel interval
topo_trap "$NS_R:$DEV_RS"

topo_up 1
topo_ecn 1 1
topo_shape_prio 20mbit 2mbit
topo_servers 5201
idle=$(idle_rtt 20)
row "idle RTT (ms)" "$idle" "" info

# probe_report TAG: the probe's loss (%) and median RTT rise over idle
probe_report() {
	local sent=$((SECS * PROBE_HZ)) got
	got=$(wc -l <"$WORK/$1.probe")
	PROBE_LOSS=$(awk -v s="$sent" -v g="$got" 'BEGIN{printf "%.1f", 100*(s-g)/s}')
	PROBE_RISE=$(fsub "$(median <"$WORK/$1.probe")" "$idle")
}

# 1. FIFO alone
log "FIFO: 4 cubic flows + ICMP probe at ${PROBE_HZ} pps for ${SECS}s"
p0=$(class_packets 1:2)
run_load fifo "$SECS" 5201:4 || die "iperf3 failed (FIFO run)"
fifo_gp=$(goodput fifo)
check "FIFO: bulk RTT rise median (ms)" "$(fsub "$(rtt_median fifo)" "$idle")" '>' 200
row "FIFO: goodput (Mbit/s)" "$fifo_gp" "" info
# the filter really puts the probe in its class: the row tests two classes
check "FIFO: packets through class 1:2" $(($(class_packets 1:2) - p0)) '>=' \
	$((SECS * PROBE_HZ * 9 / 10))
probe_report fifo
check "FIFO: probe lost (%)" "$PROBE_LOSS" '<=' 1
row "FIFO: probe RTT rise median (ms)" "$PROBE_RISE" "" info

# 2. sojourn with its defaults on the root
log "sojourn attach $DEV_RS -n $NS_R"
sj attach "$DEV_RS" -n "$NS_R" ||
	{ verdict "sojourn attach" $?; finish field_htb; }
log "sojourn: the same load for ${SECS}s"
run_load codel "$SECS" 5201:4 || die "iperf3 failed (sojourn run)"
stats=$(sj_stats "$DEV_RS")
log "stats: $(jq -c '.stats | del(.queues)' <<<"$stats")"
codel_gp=$(goodput codel)
check "sojourn: bulk RTT rise median (ms)" \
	"$(fsub "$(rtt_median codel)" "$idle")" '<=' "$RISE_MAX"
check "sojourn: ecn_mark" "$(jq -r '.stats.ecn_mark // "nan"' <<<"$stats")" '>' 0
check "sojourn: packets that left without their flow (% of measured)" \
	"$(sj hist "$DEV_RS" -j -n "$NS_R" | without_flow_pct)" '<=' 1
check "sojourn: goodput % of FIFO" \
	"$(awk -v a="$codel_gp" -v b="$fifo_gp" 'BEGIN{printf "%.1f", 100*a/b}')" '>=' 85
row "sojourn: goodput (Mbit/s)" "$codel_gp" "" info
row "sojourn: drops" "$(jq -r '.stats.drops // "nan"' <<<"$stats")" "" info
probe_report codel
check "sojourn: probe lost (%)" "$PROBE_LOSS" '<=' 1
check "sojourn: probe RTT rise median (ms)" "$PROBE_RISE" '<=' 2

finish field_htb
