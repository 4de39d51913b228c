#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Flow-table flood beside bulk flows.  Router egress shaped to RATE (100
# Mbit) with sojourn attached; 4 cubic uploads, and beside them a sender
# whose every packet is a new 5-tuple: FLOWS distinct tuples (default 300k)
# in SECS (default 20 s), several times the 65536-entry table.
#  - the bulk flows stay managed: RTT rise under 15 ms (median), and the
#    FIFO's tail drops stay under 0.5 % (CoDel, not the tail, keeps the
#    queue short; 1000 slots of 60-byte packets fill in a burst);
#  - the flow table stays at its bound, no map grows past max_entries,
#    and flows_created - flows (the evictions) is counted;
#  - the host stays responsive: `sojourn show -s` answers within 5 s
#    and a 100 ms sleep loop never stalls past 1 s.
# `make soak` runs the full version: SECS=60 FLOWS=2000000.
# Exit 0 pass, 1 fail, 77 skip.

# shellcheck source=SCRIPTDIR/../lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
topo_require sojourn
FLOOD=$SJ_ROOT/build/sj_flood
[ -x "$FLOOD" ] || skip "$FLOOD not built (make tests)"

SECS=${SECS:-20}
FLOWS=${FLOWS:-300000}
RATE=${RATE:-100mbit}
TABLE_SIZE=65536
topo_trap "$NS_R:$DEV_RS"

topo_up 1
topo_ecn 1 1
topo_shape "$RATE"
topo_servers 5201
idle=$(idle_rtt)
row "idle RTT (ms)" "$idle" "" info

sj attach "$DEV_RS" -n "$NS_R" || die "attach"
pin=$(sj show "$DEV_RS" -j -n "$NS_R" | jq -r '.[0].pin')
mem_before=$(for m in "$pin"/*; do bpftool map show pinned "$m" -j 2>/dev/null |
	jq -r '"\(.name) \(.bytes_memlock)"'; done | sort)

# a stall detector: how late a 100 ms sleep wakes up, at worst
stall_loop() {
	local t0 t1 worst=0
	trap - EXIT INT TERM
	while :; do
		t0=$(date +%s%N); sleep 0.1; t1=$(date +%s%N)
		worst=$(( (t1 - t0) / 1000000 > worst ? (t1 - t0) / 1000000 : worst ))
		# a rename, not a rewrite: the kill below may land between
		# a truncation and its write and leave nothing to read
		echo "$worst" >"$WORK/stall.new" && mv -f "$WORK/stall.new" "$WORK/stall"
	done
}
stall_loop & stall_pid=$!
TOPO_BG="$TOPO_BG $stall_pid"

pps=$(( FLOWS / SECS + FLOWS / SECS / 10 ))
log "flood: $pps pps of new 5-tuples for ${SECS}s beside 4 cubic flows"
inc nice -n 10 "$FLOOD" "$IP_C" "$IP_S" "$pps" "$SECS" >"$WORK/flood.sent" &
flood_pid=$!
# sojourn show during the flood: how long it takes
show_ms() {
	local t0=$(date +%s%N)
	if ! sj show "$DEV_RS" -s -j -n "$NS_R" >"$WORK/show.$1.json"; then
		echo 99999
		return
	fi
	echo $(( ($(date +%s%N) - t0) / 1000000 ))
}
(trap - EXIT INT TERM; sleep $((SECS / 2)); show_ms mid >"$WORK/show_ms") &
show_pid=$!
run_load flood "$SECS" 5201:4 || die "iperf3 failed"
wait "$flood_pid" "$show_pid"
kill "$stall_pid" 2>/dev/null; stall_pid=

sent=$(cat "$WORK/flood.sent")
stats=$(sj_stats "$DEV_RS")
log "stats: $(jq -c '.stats | del(.queues) | del(.parsed)' <<<"$stats")"
check "flood: packets sent (distinct 5-tuples)" "${sent:-0}" '>=' "$FLOWS"
check "bulk RTT rise median (ms)" "$(fsub "$(rtt_median flood)" "$idle")" '<' 15
check "bulk goodput (Mbit/s)" "$(goodput flood)" '>' 10
# CoDel keeps the queue short in time; a flood of 60-byte packets can
# still fill the FIFO's 1000 slots in a burst: a few, not many
tail=$(pfifo_drops)
row "pfifo tail drops" "$tail" "" info
check "pfifo tail drops (% of packets)" \
	"$(awk -v a="$tail" -v b="$(jq -r '.stats.packets' <<<"$stats")" 'BEGIN{printf "%.3f", b ? 100*a/b : 100}')" '<' 0.5
check "flows created" "$(jq -r '.stats.flows_created // .stats.flows_evicted + .stats.flows' <<<"$stats")" '>' "$TABLE_SIZE"
check "flows in the table" "$(jq -r '.stats.flows' <<<"$stats")" '<=' "$TABLE_SIZE"
check "flows evicted" "$(jq -r '.stats.flows_evicted' <<<"$stats")" '>' $((FLOWS / 2))
check "udp packets parsed" "$(jq -r '.stats.parsed.udp' <<<"$stats")" '>=' $((FLOWS * 9 / 10))
max=$(bpftool map show pinned "$pin/flows" -j | jq -r .max_entries)
is "flows map max_entries" "$max" "$TABLE_SIZE"
mem_after=$(for m in "$pin"/*; do bpftool map show pinned "$m" -j 2>/dev/null |
	jq -r '"\(.name) \(.bytes_memlock)"'; done | sort)
[ "$mem_before" = "$mem_after" ]
verdict "map memory unchanged (preallocated)" $?
check "sojourn show -s during the flood (ms)" "$(cat "$WORK/show_ms")" '<' 5000
check "worst wake-up of a 100 ms sleep (ms)" "$(cat "$WORK/stall")" '<' 1000
check "sojourn show -s after (ms)" "$(show_ms after)" '<' 5000

finish flood
