#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Field matrix, row "a pacing sender beside bulk flows" (issue 14), on the
# 20 Mbit bottleneck (router egress: HTB + pfifo 1000).
#
# Beside 4 cubic uploads, a UDP socket in the client (build/txtime_send)
# sends 10 datagrams a second with an SO_TXTIME departure time
# (CLOCK_MONOTONIC) 5-50 ms in the future, and 10 with none.  The mono
# delivery time in skb->tstamp crosses veths and forwarding untouched on
# 6.x, so the router's queue sees it.  Two things can go wrong there:
#  - a packet whose departure time has not come when it leaves the queue
#    fed to CoDel as sojourn 0 resets "above target since": a few such
#    packets a second keep the law off for every flow in the queue.  They
#    must count as unmeasured instead;
#  - stamping the enqueue time into skb->tstamp of packets that carry none
#    gives them a departure time nobody asked for (fq, for one, applies a
#    socket's SO_MAX_PACING_RATE only to packets with tstamp 0), and a
#    carrier that rewrites tstamp may move a departure time.
# Where the datagrams are received, a tc ingress program on the server's
# veth (build/tstamp_check.bpf.o) compares each one's skb->tstamp with the
# departure time its sender wrote into it.
#
#  1. FIFO alone: bulk RTT rise > 200 ms; every timed datagram arrives with
#     its departure time, every plain one with no delivery time (the kernel
#     keeps both: what the checks below hold sojourn to).
#  2. sojourn attached with its defaults: bulk RTT rise median <= 15 ms and
#     ecn_mark > 0 (the law controls the bulk); the departure times all
#     arrive as sent, and the plain datagrams still carry no delivery time.
#  In both: at least 80% of the datagrams sent are received.
#
# Exit 0 pass, 77 skip, 1 fail.  SECS=, RISE_MAX= (ms), SOJOURN= override.

# shellcheck source=SCRIPTDIR/../lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
topo_require sojourn bpftool

SECS=${SECS:-15}
RISE_MAX=${RISE_MAX:-15}
TXTIME_SEND=$SJ_ROOT/build/txtime_send
CHECKER=$SJ_ROOT/build/tstamp_check.bpf.o
UDP_PORT=9999			# nobody listens: the checker sees them first
if [ ! -x "$TXTIME_SEND" ] || [ ! -f "$CHECKER" ]; then
	skip "build/txtime_send or build/tstamp_check.bpf.o not built (make tests)"
fi
topo_trap "$NS_R:$DEV_RS"

topo_up 1
topo_ecn 1 1
topo_shape 20mbit
topo_servers 5201

# The checker, on the server's veth ingress.  nsx, not `ip netns exec`, so
# that tc finds the BPF filesystem.
nsx "$NS_S" tc qdisc add dev "$DEV_S" clsact || die "clsact on $DEV_S"
nsx "$NS_S" tc filter add dev "$DEV_S" ingress bpf da obj "$CHECKER" sec tc \
	>"$WORK/checker.log" 2>&1 ||
	skip "cannot load the tc ingress checker (needs __sk_buff->tstamp_type, 5.18+): $(tail -1 "$WORK/checker.log")"
prog_id=$(nsx "$NS_S" tc -j filter show dev "$DEV_S" ingress |
	jq -r '.[] | .options.prog.id // empty' | head -1)
map_id=$(bpftool prog show id "$prog_id" -j | jq -r '.map_ids[0] // empty')
[ -n "$map_id" ] || die "cannot find the checker's map (prog id '$prog_id')"

# counts: the checker's slots, "kept moved lost clean stamped"
counts() {
	bpftool map dump id "$map_id" -j |
		jq -r '[.[] | .formatted.value] | map(tostring) | join(" ")'
}

# phase TAG: the bulk load with the paced sender beside it, and what the
# checker saw.  Sets KEPT MOVED LOST CLEAN STAMPED (this phase's counts) and
# SENT_TIMED SENT_PLAIN.
phase() {
	local tag=$1 tx_pid c0 c1
	read -r -a c0 <<<"$(counts)"
	inc "$TXTIME_SEND" "$IP_S" "$UDP_PORT" "$SECS" 10 5 50 \
		>"$WORK/$tag.tx" 2>&1 &
	tx_pid=$!
	run_load "$tag" "$SECS" 5201:4 || die "iperf3 failed ($tag run)"
	wait "$tx_pid" || {
		grep -q SO_TXTIME "$WORK/$tag.tx" &&
			skip "SO_TXTIME refused: $(head -1 "$WORK/$tag.tx")"
		die "txtime_send failed: $(head -1 "$WORK/$tag.tx")"
	}
	read -r _ SENT_TIMED _ SENT_PLAIN <"$WORK/$tag.tx"
	sleep 0.5		# the last datagrams are through the queue
	read -r -a c1 <<<"$(counts)"
	KEPT=$((c1[0] - c0[0])) MOVED=$((c1[1] - c0[1])) LOST=$((c1[2] - c0[2]))
	CLEAN=$((c1[3] - c0[3])) STAMPED=$((c1[4] - c0[4]))
	log "$tag: timed sent $SENT_TIMED kept $KEPT moved $MOVED lost $LOST;" \
		"plain sent $SENT_PLAIN clean $CLEAN stamped $STAMPED"
}

# report NAME: the datagrams' rows
report() {
	local timed=$((KEPT + MOVED + LOST)) plain=$((CLEAN + STAMPED))
	check "$1: timed datagrams received (%)" \
		"$(awk -v r="$timed" -v s="$SENT_TIMED" 'BEGIN{printf "%.1f", 100*r/s}')" '>=' 80
	check "$1: plain datagrams received (%)" \
		"$(awk -v r="$plain" -v s="$SENT_PLAIN" 'BEGIN{printf "%.1f", 100*r/s}')" '>=' 80
	if [ "$CARRIED" = 1 ]; then
		check "$1: departure times changed" $((MOVED + LOST)) '==' 0
	else
		row "$1: departure times changed" $((MOVED + LOST)) "" "info (not carried here)"
	fi
	check "$1: plain ones with a mono time" "$STAMPED" '==' 0
}
CARRIED=1

idle=$(idle_rtt 20)
row "idle RTT (ms)" "$idle" "" info

# 1. FIFO alone
log "FIFO: 4 cubic flows and the paced sender for ${SECS}s"
phase fifo
check "FIFO: bulk RTT rise median (ms)" "$(fsub "$(rtt_median fifo)" "$idle")" '>' 200
# On Debian's 6.1 none of the sender's delivery times reaches the
# receiver's tc ingress even with no sojourn at all (measured: 0 of 150 in
# the FIFO run), so whether sojourn keeps them cannot be seen there; the
# packet tests show the program leaves skb->tstamp alone on every kernel.
if [ "$KEPT" = 0 ] && [ "$LOST" -gt 0 ]; then
	CARRIED=0
	row "departure times reach the receiver here" no "" info
fi
report "FIFO"

# 2. sojourn with its defaults
log "sojourn attach $DEV_RS -n $NS_R"
sj attach "$DEV_RS" -n "$NS_R" ||
	{ verdict "sojourn attach" $?; finish field_txtime; }
log "sojourn: the same for ${SECS}s"
phase codel
stats=$(sj_stats "$DEV_RS")
log "stats: $(jq -c '.stats | del(.queues)' <<<"$stats")"
check "sojourn: bulk RTT rise median (ms)" \
	"$(fsub "$(rtt_median codel)" "$idle")" '<=' "$RISE_MAX"
check "sojourn: ecn_mark" "$(jq -r '.stats.ecn_mark // "nan"' <<<"$stats")" '>' 0
report "sojourn"
row "sojourn: edt_kept" "$(jq -r '.stats.edt_kept // "-"' <<<"$stats")" "" info
row "sojourn: unmeasured" "$(jq -r '.stats.unmeasured // "-"' <<<"$stats")" "" info

finish field_txtime
