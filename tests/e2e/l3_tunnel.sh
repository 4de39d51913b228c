#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# sojourn on an L3 tunnel, as a VPN has one: a tun device in the client
# namespace and one in the server namespace, and a relay between them
# (build/sj_flood --tun-relay, topo.sh's topo_tun) that does what the
# VPN's data path does without the crypto.  The bottleneck is the client's tunnel upload: HTB
# 20mbit + pfifo 1000 on its tun device.  4 cubic uploads, ECN on:
#  1. FIFO alone: the bulk RTT rises by 100s of ms;
#  2. sojourn in real-queue mode on the tun device: RTT rise under
#     RISE_MAX (15 ms), CE marks, no flow taking over half of them,
#     every packet parsed as IP (none non_ip), at most 1 % of those that
#     left without their flow, goodput within 10 % of the FIFO's.  The
#     rise read 9.4-14.8 ms, and 15-21 in a third of the runs, while one
#     flow's counted backlog could stay too high and sink most marks
#     (fair.h: sj_fair_backlog_leave; the qdisc's backlog sampled at 37.5
#     KB, 15 ms, in such a run): 9.9-10.9 ms in 8 runs since
#     (2026-12-06).  make check runs a failed timed test once more;
#  2b. the same beside a 40 Mbit/s UDP flood that ignores every signal:
#     the TCP flows keep at least 40 % of the link, the flood takes
#     unresponsive_drops, the RTT rise stays under 20 ms (fair_udp's bar);
#  3. the HTB removed, sojourn in rate mode at 20mbit on the tun device:
#     goodput 90..102 % of 20 Mbit, RTT rise under RISE_MAX, sojourn's
#     signals (CoDel's marks and drops, or the horizon's overlimit drops),
#     none non_ip;
# and the receiver counts no checksum errors (nstat).
# Before sojourn parsed from the link layer, every packet on the tun device
# was non_ip: no marks, the FIFO's RTT.
# Exit 0 pass, 77 skip, 1 fail.  SECS=, RISE_MAX= (ms), SOJOURN= override.

# shellcheck source=SCRIPTDIR/../lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
topo_require sojourn nstat
FLOOD=$SJ_ROOT/build/sj_flood
[ -x "$FLOOD" ] || skip "$FLOOD not built (make tests)"
[ -c /dev/net/tun ] || skip "no /dev/net/tun"

SECS=${SECS:-12}
RISE_MAX=${RISE_MAX:-15}
topo_trap "$NS_C:$TUN_C"

topo_up 1
topo_tun
is "client tunnel link type" "$(ip -n "$NS_C" -j link show "$TUN_C" | jq -r '.[0].link_type')" none

topo_ecn 1 1
inc tc qdisc replace dev "$TUN_C" root handle 1: htb default 1 &&
inc tc class add dev "$TUN_C" parent 1: classid 1:1 htb rate 20mbit quantum 1514 &&
inc tc qdisc add dev "$TUN_C" parent 1:1 handle 10: pfifo limit 1000 ||
	die "cannot shape $TUN_C"
topo_servers 5201 5202
ins nstat -n >/dev/null	# the receiver's counters from here
idle=$(idle_rtt)
row "idle RTT through the tunnel (ms)" "$idle" "" info

# 1. FIFO alone
log "FIFO on the tunnel: 4 cubic flows for ${SECS}s"
run_load fifo "$SECS" 5201:4 || die "iperf3 failed (FIFO)"
fifo_gp=$(goodput fifo)
check "FIFO: bulk RTT rise median (ms)" "$(fsub "$(rtt_median fifo)" "$idle")" '>' 100
row "FIFO: goodput (Mbit/s)" "$fifo_gp" "" info

# 2. real-queue mode
sj attach "$TUN_C" -n "$NS_C" || die "attach real-queue mode"
log "sojourn on the tunnel: 4 cubic flows for ${SECS}s"
run_load queue "$SECS" 5201:4 || die "iperf3 failed (real-queue mode)"
stats=$(sj show "$TUN_C" -s -j -n "$NS_C" | jq -c '.[0].stats')
log "real queue stats: $(jq -c 'del(.queues)' <<<"$stats")"
log "real queue: $(inc tc -s qdisc show dev "$TUN_C" | tr -s ' \n' ' ')"
check "real queue: bulk RTT rise median (ms)" "$(fsub "$(rtt_median queue)" "$idle")" '<' "$RISE_MAX"
check "real queue: goodput % of FIFO" \
	"$(awk -v a="$(goodput queue)" -v b="$fifo_gp" 'BEGIN{printf "%.1f", 100*a/b}')" '>=' 90
check "real queue: CE marks" "$(jq -r '.ecn_mark' <<<"$stats")" '>' 0
check "real queue: packets parsed tcp" "$(jq -r '.parsed.tcp' <<<"$stats")" '>' 1000
check "real queue: packets non_ip" "$(jq -r '.parsed.non_ip' <<<"$stats")" '==' 0
# Four equal flows share the signals: none takes most of them.  A flow
# whose counted backlog had gone too high read as the heaviest for the
# whole run and took 85 % of the marks at cwnd 2, while the other three
# grew (fair.h: sj_fair_backlog_leave; 25-27 % each since).
check "real queue: largest share of CE marks one flow took (%)" \
	"$(sj hist "$TUN_C" --flow proto tcp dport 5201 -j -n "$NS_C" |
		flow_marks | max_share)" '<=' 50
hist=$(sj hist "$TUN_C" -j -n "$NS_C")
# where the RTT's rise stood: in the queue sojourn measured, or elsewhere
row "real queue: sojourn p50 / p99 (us, bound)" \
	"$(jq -r '.[0].histogram | "\(.p50_us)/\(.p99_us)"' <<<"$hist")" "" info
# Counted on this device (2026-12-06, three runs with counters in both
# programs): no packet missed its flow at the tracepoint.
check "real queue: packets that left without their flow (% of measured)" \
	"$(without_flow_pct <<<"$hist")" '<=' 1

# 2b. the same beside a flood that ignores every signal: the judge of
# unresponsive flows (fair.h) on a device whose packets start at the IP
# header
log "sojourn on the tunnel: 4 cubic flows + a 40 Mbit/s UDP flood for ${SECS}s"
inc timeout $((SECS + 20)) iperf3 -c "$IP_S" -p 5202 -u -b 40M -l 1200 \
	-t "$SECS" >/dev/null 2>&1 &
udp=$!
run_load flood "$SECS" 5201:4 || die "iperf3 failed (flood)"
wait "$udp"
after=$(sj show "$TUN_C" -s -j -n "$NS_C" | jq -c '.[0].stats')
check "flood: TCP share of the link (%)" \
	"$(awk -v g="$(goodput flood)" 'BEGIN{printf "%.1f", g / 20 * 100}')" '>=' 40
check "flood: unresponsive_drops" \
	"$(stats_delta "$stats" "$after" unresponsive_drops)" '>' 0
check "flood: bulk RTT rise median (ms)" "$(fsub "$(rtt_median flood)" "$idle")" '<' 20
sj detach "$TUN_C" -n "$NS_C" || die "detach"

# 3. rate mode, no HTB
inc tc qdisc del dev "$TUN_C" root || die "cannot remove the HTB"
sj attach "$TUN_C" rate 20mbit -n "$NS_C" || die "attach rate mode"
log "sojourn rate 20mbit on the tunnel: 4 cubic flows for ${SECS}s"
OMIT=2 run_load rate "$SECS" 5201:4 || die "iperf3 failed (rate mode)"
stats=$(sj show "$TUN_C" -s -j -n "$NS_C" | jq -c '.[0].stats')
gp=$(goodput rate)
check "rate: goodput % of 20 Mbit" "$(awk -v g="$gp" 'BEGIN{printf "%.1f", g / 20 * 100}')" '>=' 90
check "rate: goodput % of 20 Mbit" "$(awk -v g="$gp" 'BEGIN{printf "%.1f", g / 20 * 100}')" '<=' 102
check "rate: bulk RTT rise median (ms)" "$(fsub "$(rtt_median rate)" "$idle")" '<' "$RISE_MAX"
# Police mode delays nothing, and the path's base RTT is 0.14 ms: a
# sender's burst can run the virtual queue from target to the horizon in
# less than CoDel's interval, and then the horizon's overlimit drops are
# what answers it (one run here: 0 marks, 1662 overlimit drops, 96.5 %
# goodput, a 0.49 ms rise).  What this row proves is that sojourn acts on
# an L3 device at all; which of its two signals did is printed below.
check "rate: signals (marks + drops + overlimit)" \
	"$(jq -r '.ecn_mark + .drops + .drop_overlimit' <<<"$stats")" '>' 0
row "rate: CE marks / drops / overlimit" \
	"$(jq -r '"\(.ecn_mark)/\(.drops)/\(.drop_overlimit)"' <<<"$stats")" "" info
check "rate: packets non_ip" "$(jq -r '.parsed.non_ip' <<<"$stats")" '==' 0
sj detach "$TUN_C" -n "$NS_C" || die "detach"

# the receiver: no packet with a bad checksum
check "receiver: TCP/UDP/IP checksum errors" "$(csum_errors ins)" '==' 0

finish l3_tunnel
