#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Field matrix, row "idle after load on a pfifo_fast root" (issue 14).
#
# The kernel's CoDel leaves its dropping state when the queue empties.
# sojourn sees no empty dequeue, and on a lockless root (pfifo_fast, mq of
# pfifo_fast: TCQ_F_NOLOCK) it cannot read the qdisc's backlog either.  A
# busy period that ends while the queue stands above target leaves the law
# dropping with signals pending, and whatever comes first after the idle
# (a SYN, a ping, a DNS query) takes them.  Signals must not outlive their
# reason: none may land on the first packets after an idle period.
#
# The bottleneck is a pfifo_fast root that really holds a queue.  A veth
# keeps its qdisc's packets back while its peer's ring is full (Linux 6.16,
# "veth: apply qdisc backpressure on full ptr_ring"), which happens only
# when the peer takes packets in NAPI (GRO on, or XDP).  So the server's
# veth runs GRO in a threaded NAPI, and that thread gets a CPU budget of
# its own (SCHED_DEADLINE, NAPI_BUDGET_US of every millisecond): the
# server takes packets at a rate of the order of 100 Mbit/s, and the
# router's pfifo_fast root, lockless and of unknown backlog to sojourn,
# holds the standing queue.  The rate is set by CPU time, not by a shaper,
# so the test measures it (the root's bytes sent) instead of assuming it.
#
# Each phase: 4 cubic uploads, then the load ends abruptly the moment the
# root's queue stands above CUT_MS (FIFO) or, with sojourn attached, above
# its target while its mark and drop counters have just moved (it is
# signalling: the hardest moment; a working CoDel seldom lets the queue
# reach CUT_MS, a CI run saw it stay below for all 5 s), or after 20-30 s of
# waiting for that (a blackhole rule at the router for their
# port cuts the uploads off in mid-flight, and their senders are killed);
# within the next second 20 new TCP connections to another port and 20
# pings, 50 ms apart, interleaved.  Needed: every connection made with no
# SYN retried (the client's TcpExtTCPSynRetrans unchanged, no connect near
# the 1 s SYN timeout), no ping lost, and nothing dropped by sojourn after
# the cut.
# Every cut also waits for the root to hold less than half its limit
# (txqueuelen packets): on this path (a 0.1 ms base RTT, a sender that
# reaches the router at veth speed) the cubic flows fill pfifo_fast to its
# limit in under 200 ms, alone and even with sojourn signalling, and a cut
# at that moment tests the root's tail drop, not whether sojourn's signals
# outlive their reason (with sojourn: 131.7 ms at the cut, the root dropped
# 2 SYNs and 3 pings, sojourn none; the FIFO alone: 109.2 ms, 1 SYN and 1
# ping).  The root's drops after the cut are printed beside sojourn's.
#  1. FIFO alone (LOAD_FIFO s): the premise; the queue stood above CUT_MS
#     when the load ended, and the new connections and pings all get
#     through.  If the queue never stands, this kernel cannot run the row
#     (exit 77).
#  2. sojourn attached with its defaults, a LOAD s load.  The defaults
#     send sparse flows ahead through pfifo_fast's band 0 (sparse_class
#     auto), and this root stands still for 250-550 ms at times (the NAPI
#     thread's budget), the hardest case for the rule that a flow goes
#     ahead only once its own queued packets have left (fair.h): sojourn's
#     `reordered_ahead` (packets that left after a younger one of their
#     own flow that had been sent ahead) must stay 0 (`reordered` 2-15 in
#     15 s before the rule saw what left, each passed by a packet sent
#     ahead).  `reordered`, whatever passed them, is printed: pfifo_fast
#     takes packets from both CPUs without a lock, so two of one flow
#     can reach its band in the other order from their stamps (1 once in
#     a full check, 8295555).
#  3. the same with `nofair` (plain CoDel: any packet may take a signal).
#
# Exit 0 pass, 77 skip, 1 fail.  LOAD=, LOAD_FIFO=, CUT_MS=, NAPI_BUDGET_US=,
# SOJOURN= override.

# shellcheck source=SCRIPTDIR/../lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
topo_require sojourn chrt nstat python3 timeout

LOAD=${LOAD:-20}
LOAD_FIFO=${LOAD_FIFO:-10}
CUT_MS=${CUT_MS:-10}		# FIFO's queue delay at the cut: twice the target
TARGET_MS=			# sojourn's target: read from the attachment
NAPI_BUDGET_US=${NAPI_BUDGET_US:-10}
LISTEN_PORT=5301
N_NEW=20			# connections and pings after the load
topo_trap "$NS_R:$DEV_RS"

topo_up 1
topo_ecn 1 1

# The slow receiver: see the header.
inr tc qdisc replace dev "$DEV_RS" root pfifo_fast || die "pfifo_fast root"
ins ethtool -K "$DEV_S" gro on >/dev/null 2>&1 || skip "GRO on $DEV_S"
ins sh -c "echo 1 >/sys/class/net/$DEV_S/threaded" 2>/dev/null ||
	skip "no threaded NAPI on veth"
napi_pid=$(ps -eo pid=,comm= | awk -v d="napi/$DEV_S-" 'index($2, d) == 1 { print $1; exit }')
[ -n "$napi_pid" ] || skip "no NAPI thread for $DEV_S"
chrt -d --sched-runtime $((NAPI_BUDGET_US * 1000)) --sched-deadline 1000000 \
	--sched-period 1000000 -p 0 "$napi_pid" 2>/dev/null ||
	skip "cannot give the NAPI thread a SCHED_DEADLINE budget"

# A listener that accepts and closes, for the new connections.
ins python3 -c '
import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], int(sys.argv[2])))
s.listen(128)
while True:
    s.accept()[0].close()
' "$IP_S" "$LISTEN_PORT" >"$WORK/listener.log" 2>&1 &
TOPO_BG="$TOPO_BG $!"
topo_servers 5201 5202 5203
for i in $(seq 50); do
	ins ss -Hltn "sport = :$LISTEN_PORT" | grep -q . && break
	sleep 0.1
done
ins ss -Hltn "sport = :$LISTEN_PORT" | grep -q . || die "listener did not start"

# The client's side of the new connections: N connects GAP_MS apart, each
# in the background; one line per connection, "ok MS" or "fail".
cat >"$WORK/connects.sh" <<'EOF'
ip=$1 port=$2 n=$3 gap=$4 out=$5
for i in $(seq "$n"); do
	(
		t0=$(date +%s%N)
		if timeout 5 bash -c "exec 3<>/dev/tcp/$ip/$port"; then
			echo "ok $((($(date +%s%N) - t0) / 1000000))"
		else
			echo fail
		fi >>"$out"
	) &
	sleep "$(awk -v g="$gap" 'BEGIN{print g / 1000}')"
done
wait
EOF

# root_counts: bytes sent, bytes queued, packets queued and packets
# dropped by the root qdisc of DEV_RS
root_counts() {
	inr tc -s -j qdisc show dev "$DEV_RS" |
		jq -r '.[] | select(.root == true) |
			"\(.bytes) \(.backlog) \(.qlen) \(.drops)"'
}
# pfifo_fast holds txqueuelen packets and drops at its tail beyond that
ROOT_LIMIT=$(inr cat "/sys/class/net/$DEV_RS/tx_queue_len")
# sj_drops: packets sojourn has dropped so far, for any reason (0 unattached)
sj_drops() {
	[ "$ATTACHED" = 1 ] || { echo 0; return; }
	sj_stats "$DEV_RS" |
		jq -r '(.stats.drops // 0) + (.stats.unresponsive_drops // 0)'
}
# signals_sent: CE marks and drops sojourn has made so far (0 unattached)
ATTACHED=0
signals_sent() {
	[ "$ATTACHED" = 1 ] || { echo 0; return; }
	sj_stats "$DEV_RS" | jq -r '(.stats.ecn_mark // 0) + (.stats.drops // 0)'
}
syn_retrans() {
	inc nstat -az TcpExtTCPSynRetrans | awk '$1 == "TcpExtTCPSynRetrans" { print $2 }'
}

# phase TAG PORT SECS: load, cut while the queue stands, then the new
# connections and pings.  Sets CUT_DELAY (ms), CUT_SIGNALLING, RATE_MBIT,
# SYN_RETRIED, CONNECT_OK, CONNECT_SLOW (connects that took >= 900 ms) and
# PING_RCV.
phase() {
	local tag=$1 port=$2 secs=$3 load_pid ping_pid s1 s2 b t syn0 i sig sig0 \
		qlen root_drops0 root_drops sj_drops0
	for i in 1 2; do
		inc timeout $((secs + 50)) iperf3 -c "$IP_S" -p "$port" -P 4 \
			-t $((secs + 40)) -C cubic >"$WORK/$tag.iperf" 2>&1 &
		load_pid=$!
		TOPO_BG="$TOPO_BG $load_pid"
		sleep $((secs - 2))
		read -r s1 b _ <<<"$(root_counts)"
		t=$(date +%s%N)
		sleep 2
		read -r s2 b _ <<<"$(root_counts)"
		# bytes the root sent per ms while loaded: the link's rate
		RATE_MBIT=$(awk -v a="$s1" -v b="$s2" -v t="$t" -v n="$(date +%s%N)" \
			'BEGIN{printf "%.1f", (b - a) * 8 / ((n - t) / 1000)}')
		# a load that never ran is the harness's failure, not the
		# phase's (a check on 2026-12-05 read 0.0 Mbit/s in nofair's
		# phase, every other figure normal): say why, try once more
		fcmp "$RATE_MBIT" '>' 1 && break
		log "$tag: no load through the root (${RATE_MBIT} Mbit/s); iperf3 said:" \
			"$(tail -c 300 "$WORK/$tag.iperf" | tr '\n' ' ')"
		kill "$load_pid" 2>/dev/null
		wait "$load_pid" 2>/dev/null
		[ "$i" = 1 ] || die "$tag: the load on port $port did not run twice"
	done
	# wait up to 400 samples (20-30 s: a check on 2026-12-04 saw nofair
	# not reach it in 200) for the hardest moment: the queue above CUT_MS
	# or, once sojourn is attached, above target while its signal counters
	# move (it is signalling) and below half the root's limit; then cut
	CUT_DELAY=0 CUT_SIGNALLING=no
	syn0=$(syn_retrans)
	sig0=$(signals_sent)
	for i in $(seq 400); do
		read -r s2 b qlen root_drops0 <<<"$(root_counts)"
		CUT_DELAY=$(awk -v b="$b" -v r="$RATE_MBIT" \
			'BEGIN{printf "%.1f", (r > 0) ? b * 8 / r / 1000 : 0}')
		sig=$(signals_sent)
		sig=${sig:-0}
		if [ "$ATTACHED" = 0 ]; then
			fcmp "$CUT_DELAY" '>' "$CUT_MS" &&
				[ "$qlen" -lt $((ROOT_LIMIT / 2)) ] && break
		elif fcmp "$CUT_DELAY" '>' "$TARGET_MS" && [ "$sig" -gt "$sig0" ] &&
			[ "$qlen" -lt $((ROOT_LIMIT / 2)) ]; then
			CUT_SIGNALLING=yes
			break
		fi
		sig0=$sig
	done
	sj_drops0=$(sj_drops)
	# a policy rule at the router (tc's drop action may not be built):
	# the uploads' packets die before they reach the bottleneck
	ip -n "$NS_R" rule add iif "$DEV_RC" ipproto tcp dport "$port" \
		blackhole prio 100 || die "cannot cut the load"
	# the uploads' senders go too (the rule already stops their packets)
	for i in $(ip netns pids "$NS_C"); do
		[ "$(cat "/proc/$i/comm" 2>/dev/null)" = iperf3 ] && kill -9 "$i"
	done
	: >"$WORK/$tag.connects"
	inc fping -q -c "$N_NEW" -p 50 -t 2000 "$IP_S" >"$WORK/$tag.ping" 2>&1 &
	ping_pid=$!
	inc bash "$WORK/connects.sh" "$IP_S" "$LISTEN_PORT" "$N_NEW" 50 \
		"$WORK/$tag.connects"
	wait "$ping_pid"
	wait "$load_pid" 2>/dev/null
	SYN_RETRIED=$(($(syn_retrans) - syn0))
	# who dropped what after the cut: the root's own tail (its queue
	# was full) or sojourn (a signal that outlived its reason)
	read -r _ _ _ root_drops <<<"$(root_counts)"
	ROOT_DROPS_AFTER=$((root_drops - root_drops0))
	SJ_DROPS_AFTER=$(($(sj_drops) - sj_drops0))
	CONNECT_OK=$(grep -c '^ok' "$WORK/$tag.connects")
	CONNECT_SLOW=$(awk '$1 == "ok" && $2 >= 900' "$WORK/$tag.connects" | wc -l)
	PING_RCV=$(sed -n 's|.*xmt/rcv/%loss = [0-9]*/\([0-9]*\)/.*|\1|p' "$WORK/$tag.ping")
	log "$tag: rate ${RATE_MBIT} Mbit/s, queue at cut ${CUT_DELAY} ms" \
		"(signalling: $CUT_SIGNALLING)," \
		"SYN retried $SYN_RETRIED, connects $CONNECT_OK" \
		"(slow $CONNECT_SLOW), pings ${PING_RCV:-0}/$N_NEW;" \
		"dropped after the cut: root qdisc $ROOT_DROPS_AFTER," \
		"sojourn $SJ_DROPS_AFTER"
}

# report NAME: the phase's rows; NAME is the row prefix
report() {
	row "$1: link rate (Mbit/s)" "$RATE_MBIT" "" info
	# The hardest moment is required of the FIFO (a standing queue: the
	# premise) and of nofair, plain CoDel, where a pending signal lands on
	# whatever packet comes next (the cut came while it was signalling).
	# With fairness (the default) signals wait for heavy flows, which a
	# SYN or a ping never is, and its judge can hold the queue low for the
	# whole wait (one run of three here: 0.0 ms at the cut, the link at
	# half its rate, 11 unresponsive_drops on cubic flows: issue 17's
	# false verdicts), so there the moment is printed, not judged.
	if [ "$ATTACHED" = 0 ]; then
		check "$1: queue at the cut (ms)" "$CUT_DELAY" '>' "$CUT_MS"
	else
		row "$1: queue at the cut (ms)" "$CUT_DELAY" "" info
		if [ "$1" = sojourn ]; then
			row "$1: signalling at the cut" "$CUT_SIGNALLING" "" info
		else
			is "$1: signalling at the cut" "$CUT_SIGNALLING" yes
		fi
	fi
	[ "$ATTACHED" = 1 ] &&
		check "$1: sojourn drops after the cut" "$SJ_DROPS_AFTER" '==' 0
	row "$1: root qdisc drops after the cut" "$ROOT_DROPS_AFTER" "" info
	check "$1: SYNs retried" "$SYN_RETRIED" '==' 0
	check "$1: connections made" "$CONNECT_OK" '==' "$N_NEW"
	check "$1: connections near SYN timeout" "$CONNECT_SLOW" '==' 0
	check "$1: pings answered" "${PING_RCV:-0}" '==' "$N_NEW"
}

# 1. FIFO alone: the premise
log "FIFO: 4 cubic flows for ${LOAD_FIFO}s, then the cut"
phase fifo 5201 "$LOAD_FIFO"
fcmp "$CUT_DELAY" '>' "$CUT_MS" ||
	skip "the pfifo_fast root held no standing queue (${CUT_DELAY} ms at the cut): a veth pushes back on its qdisc from Linux 6.16 on"
report "FIFO"

# 2. sojourn, defaults
log "sojourn attach $DEV_RS -n $NS_R"
sj attach "$DEV_RS" -n "$NS_R" ||
	{ verdict "sojourn attach" $?; finish field_idle; }
ATTACHED=1
TARGET_MS=$(sj show "$DEV_RS" -j -n "$NS_R" | jq '.[0].target / 1000')
[ -n "$TARGET_MS" ] || die "no target in show -j"
log "sojourn: 4 cubic flows for ${LOAD}s, then the cut"
phase codel 5202 "$LOAD"
report "sojourn"
stats=$(sj_stats "$DEV_RS")
log "stats: $(jq -c '.stats | del(.queues)' <<<"$stats")"
row "sojourn: ecn_mark" "$(jq -r '.stats.ecn_mark // "nan"' <<<"$stats")" "" info
row "sojourn: drops" "$(jq -r '.stats.drops // "nan"' <<<"$stats")" "" info
is "sojourn: sparse path by default (band 0's priority)" "$(jq -r '.sparse_priority' <<<"$stats")" 6
row "sojourn: sent ahead (band 0)" "$(jq -r '.stats.sparse_steered // "nan"' <<<"$stats")" "" info
check "sojourn: passed by their own sent ahead" \
	"$(jq -r '.stats.reordered_ahead // "nan"' <<<"$stats")" '==' 0
row "sojourn: reordered" "$(jq -r '.stats.reordered // "nan"' <<<"$stats")" "" info
# pfifo_fast is lockless: its packets still find their flows as they leave
check "sojourn: packets that left without their flow (% of measured)" \
	"$(sj hist "$DEV_RS" -j -n "$NS_R" | without_flow_pct)" '<=' 1

# 3. sojourn, plain CoDel
sj change "$DEV_RS" nofair -n "$NS_R" || die "sojourn change nofair"
log "sojourn nofair: 4 cubic flows for ${LOAD}s, then the cut"
phase nofair 5203 "$LOAD"
report "nofair"
stats=$(sj_stats "$DEV_RS")
log "stats: $(jq -c '.stats | del(.queues)' <<<"$stats")"

finish field_idle
