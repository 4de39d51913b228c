#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# CoDel without ECN on a 20 Mbit bottleneck (router egress: HTB + pfifo 1000).
# The client does not negotiate ECN (tcp_ecn=0) and sojourn runs `noecn`, so
# every CoDel signal must be a drop at the router's egress.
#
#  1. FIFO alone: 4 cubic uploads bloat the queue (RTT rise > 200 ms);
#     the goodput reference for step 2.
#  2. sojourn noecn: the bulk RTT rise stays near target, stats.drops > 0,
#     stats.ecn_mark == 0, goodput within 10% of FIFO.
#
# Exit 0 pass, 77 skip, 1 fail.  SECS=, RISE_MAX= (ms), SOJOURN= override.

# shellcheck source=SCRIPTDIR/../lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
topo_require sojourn

SECS=${SECS:-12}
# tests/e2e/kernel_61.sh allows more under qemu TCG, whose timers jitter
RISE_MAX=${RISE_MAX:-15}
topo_trap "$NS_R:$DEV_RS"

topo_up 1
topo_ecn 0 1		# the sender asks for no ECN: packets are Not-ECT
topo_shape 20mbit
topo_servers 5201
idle=$(idle_rtt)
row "idle RTT (ms)" "$idle" "" info

log "FIFO: 4 cubic flows for ${SECS}s"
run_load fifo "$SECS" 5201:4 || die "iperf3 failed (FIFO run)"
fifo_gp=$(goodput fifo)
check "FIFO: bulk RTT rise median (ms)" "$(fsub "$(rtt_median fifo)" "$idle")" '>' 200
row "FIFO: goodput (Mbit/s)" "$fifo_gp" "" info

log "sojourn attach $DEV_RS noecn -n $NS_R"
sj attach "$DEV_RS" noecn -n "$NS_R" ||
	{ verdict "sojourn attach noecn" $?; finish codel_drop; }
is "attached: ecn off" "$(sj_stats "$DEV_RS" | jq -r '.ecn')" false
log "sojourn: 4 cubic flows for ${SECS}s"
run_load codel "$SECS" 5201:4 || die "iperf3 failed (sojourn run)"
stats=$(sj_stats "$DEV_RS")
log "stats: $(jq -c '.stats | del(.queues)' <<<"$stats")"
codel_gp=$(goodput codel)
check "sojourn: bulk RTT rise median (ms)" "$(fsub "$(rtt_median codel)" "$idle")" '<' "$RISE_MAX"
check_goodput "sojourn: goodput % of FIFO" \
	"$(awk -v a="$codel_gp" -v b="$fifo_gp" 'BEGIN{printf "%.1f", 100*a/b}')"
row "sojourn: goodput (Mbit/s)" "$codel_gp" "" info
check "sojourn: packets seen" "$(jq -r '.stats.packets // "nan"' <<<"$stats")" '>' 1000
check "sojourn: drops" "$(jq -r '.stats.drops // "nan"' <<<"$stats")" '>' 0
check "sojourn: ecn_mark" "$(jq -r '.stats.ecn_mark // "nan"' <<<"$stats")" '==' 0
# The client's own TCP counters confirm the drops reached it as losses.
row "client TCP retransmits (both runs)" \
	"$(inc nstat -asz TcpRetransSegs | awk '/TcpRetransSegs/{print $2}')" "" info

if sj detach "$DEV_RS" -n "$NS_R"; then rc=0; else rc=$?; fi
check "detach exit code" "$rc" '==' 0

finish codel_drop
