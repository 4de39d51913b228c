#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# `make bench`: latency under load, RRUL-like (bench/README.md).
#
# client -> router -> delay line (20 ms each way) -> server.  The router
# shapes both ways at RATE; each SYSTEM is one way of doing that.  For each
# rate, REPS rounds; in each round every system runs every load once, so
# repetitions interleave.  A run: IDLE s of probes alone, then SECS s of
# 4 cubic TCP flows (up, down or both) with the probes going on:
# irtt (UDP) and fping (ICMP), both at 20 Hz.  Raw data lands in
# $RAW/<rate>/; bench/analyze.py turns it into bench/results/$NAME.md and
# plots.
#
# Environment: QUICK=1 (short runs), RATES, SYSTEMS, LOADS, REPS, SECS,
# IDLE, NAME (results prefix, default host), RAW (raw data directory), OUT
# (results directory), REF (another run's RAW whose fq_codel is a reference),
# SJ_ATTACH (extra `sojourn attach` words, e.g. "hook clsact"), ANALYZE=0,
# HTB_BURST (every HTB class's burst and cburst, bench/lib/net.sh),
# SS_PERIOD (s between srtt samples, 0.5), SOJOURN_VARIANTS ("TAG=BINARY
# ..."; a system named SYSTEM+TAG runs SYSTEM with that sojourn binary, so
# two builds are compared in one run, interleaved).

BENCH=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/lib/net.sh
. "$BENCH/lib/net.sh"

if [ -n "$QUICK" ] && [ "$QUICK" != 0 ]; then
	: "${SECS:=8}" "${IDLE:=3}" "${REPS:=1}" "${RATES:=20mbit}"
	: "${NAME:=host-quick}"
fi
SECS=${SECS:-30} IDLE=${IDLE:-6} REPS=${REPS:-3}
RATES=${RATES:-20mbit 100mbit}
SYSTEMS=${SYSTEMS:-pfifo_fast fifo tbf sojourn sojourn_rate}
LOADS=${LOADS:-up down both}
NAME=${NAME:-host}
RAW=${RAW:-/var/tmp/sojourn-bench/$NAME}
WARMUP=${WARMUP:-$(( SECS >= 20 ? 5 : 2 ))}	# slow start: no srtt samples
HZ=20
SS_PERIOD=${SS_PERIOD:-0.5}
SS_MS=$(awk -v p="$SS_PERIOD" 'BEGIN { print int(p * 1000) }')
PORT_UP=5201 PORT_DOWN=5202 PORT_IRTT=5300

net_require iperf3 irtt jq
[ -x "$SOJOURN" ] || skip "$SOJOURN not built"
# CPU of our own processes (cpuacct; softirq work counts to the task it
# interrupted, mostly ours: this kernel lacks IRQ_TIME_ACCOUNTING)
CG=/sys/fs/cgroup/cpuacct/sojourn-bench-$$
if [ -d /sys/fs/cgroup/cpuacct ] && mkdir "$CG" 2>/dev/null; then
	echo $$ >"$CG/tasks" || CG=
else
	CG=
fi
cg_ns() { if [ -n "$CG" ]; then cat "$CG/cpuacct.usage"; else echo 0; fi; }

cleanup() {
	local d
	for d in "$DEV_RS" "$DEV_RC"; do
		timeout 10 "$SOJOURN" detach "$d" -n "$NS_R" >/dev/null 2>&1
		timeout 10 "$SOJOURN" detach "$d" ingress -n "$NS_R" >/dev/null 2>&1
	done
	net_down
	if [ -n "$CG" ]; then
		echo $$ >/sys/fs/cgroup/cpuacct/tasks
		rmdir "$CG" 2>/dev/null
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

sj() { timeout 15 "$SOJOURN" "$@"; }
SOJOURN_MAIN=$SOJOURN
# sj_binary SYS: SOJOURN for SYS (SYSTEM+TAG: SOJOURN_VARIANTS' TAG)
sj_binary() {
	local v
	SOJOURN=$SOJOURN_MAIN
	case $1 in *+*) ;; *) return 0 ;; esac
	for v in ${SOJOURN_VARIANTS:-}; do
		[ "${v%%=*}" = "${1#*+}" ] && SOJOURN=${v#*=} && return 0
	done
	die "system $1: no ${1#*+}= in SOJOURN_VARIANTS"
}
read -r -a SJA <<<"${SJ_ATTACH:-}"	# extra attach words

# sys_up SYSTEM RATE: the router's shaping, both directions
sys_up() {
	local s=${1%%+*} r=$2 d
	sj_binary "$1"
	for d in "$DEV_RS" "$DEV_RC"; do
		case $s in
		pfifo_fast) htb_leaf "$NS_R" "$d" "$r" pfifo_fast ;;
		fifo)	htb_leaf "$NS_R" "$d" "$r" ;;
		# the same 1000 full-size packets of buffer as the FIFO
		tbf)	inr tc qdisc replace dev "$d" root tbf rate "$r" \
				burst 32kb limit 1514000 ;;
		sojourn) htb_leaf "$NS_R" "$d" "$r" &&
			sj attach "$d" "${SJA[@]}" -n "$NS_R" >/dev/null ;;
		sojourn_nofair) htb_leaf "$NS_R" "$d" "$r" &&
			sj attach "$d" nofair "${SJA[@]}" -n "$NS_R" >/dev/null ;;
		# sparse flows (a probe, a DNS query) go ahead to an HTB class
		# served first; bulk stays in the default class's FIFO
		# the default attach on a tree shaped as sqm-scripts shapes
		# one: a parent class holding the rate, the default class
		# below it at prio 1; sparse_class auto adds its class beside
		sojourn_auto) htb_parent "$d" "$r" &&
			sj attach "$d" "${SJA[@]}" -n "$NS_R" >/dev/null ;;
		sojourn_auto_nosparse) htb_parent "$d" "$r" &&
			sj attach "$d" sparse_class off "${SJA[@]}" -n "$NS_R" \
				>/dev/null ;;
		sojourn_auto_nofair) htb_parent "$d" "$r" &&
			sj attach "$d" nofair "${SJA[@]}" -n "$NS_R" >/dev/null ;;
		sojourn_sparse) htb_sparse "$d" "$r" &&
			sj attach "$d" sparse_class 1:20 "${SJA[@]}" -n "$NS_R" \
				>/dev/null ;;
		# the kernel's AQMs (the VM run): leaves of the same HTB, with
		# ECN as sojourn has it; cake shapes by itself, as deployed
		fq_codel) htb_leaf "$NS_R" "$d" "$r" fq_codel ;;
		# the tree sojourn_auto runs on (an operator's sqm-style tree),
		# so the two AQMs can be compared on one tree too
		fq_codel_parent) htb_parent "$d" "$r" fq_codel ;;
		# fq_codel measured by sojourn's observe mode (no signals):
		# the packets' own mean wait, as sojourn's runs report theirs
		fq_codel_observe) htb_leaf "$NS_R" "$d" "$r" fq_codel &&
			sj attach "$d" observe "${SJA[@]}" -n "$NS_R" >/dev/null ;;
		codel)	htb_leaf "$NS_R" "$d" "$r" codel ecn ;;
		sfq)	htb_leaf "$NS_R" "$d" "$r" sfq perturb 10 ;;
		red)	htb_leaf "$NS_R" "$d" "$r" red limit 1514000 \
				min 30000 max 90000 avpkt 1514 bandwidth "$r" \
				adaptive ecn ;;
		cake)	inr tc qdisc replace dev "$d" root cake bandwidth "$r" ;;
		# no qdisc: uploads leave the router's WAN side, downloads
		# arrive on it; police (this kernel has no fq to pace)
		sojourn_rate)
			[ "$d" = "$DEV_RS" ] || continue
			sj attach "$d" egress rate "$r" "${SJA[@]}" -n "$NS_R" \
				>/dev/null &&
			sj attach "$d" ingress rate "$r" "${SJA[@]}" -n "$NS_R" \
				>/dev/null ;;
		*)	die "unknown system $s" ;;
		esac || return 1
	done
}

# htb_parent DEV RATE [LEAF...]: 1:1 holds RATE, 1:10 below it (default,
# prio 1, may take all of it) with LEAF, a 1000-packet FIFO by default
htb_parent() {
	local d=$1 r=$2
	shift 2
	[ $# -gt 0 ] || set -- pfifo limit 1000
	inr tc qdisc replace dev "$d" root handle 1: htb default 10 &&
	inr tc class add dev "$d" parent 1: classid 1:1 htb rate "$r" \
		quantum 1514 "${HTB_BURST_ARGS[@]}" &&
	inr tc class add dev "$d" parent 1:1 classid 1:10 htb rate "$r" \
		prio 1 quantum 1514 "${HTB_BURST_ARGS[@]}" &&
	inr tc qdisc add dev "$d" parent 1:10 "$@"
}

# htb_sparse DEV RATE: 1:10 (default, 90 %) and 1:20 (prio 0, 10 %), both
# may borrow up to RATE, each with a 1000-packet FIFO
htb_sparse() {
	local d=$1 r=$2 mbit
	mbit=$(awk -v r="$r" 'BEGIN { print r + 0 }')	# "20mbit" -> 20
	inr tc qdisc replace dev "$d" root handle 1: htb default 10 &&
	inr tc class add dev "$d" parent 1: classid 1:1 htb rate "$r" \
		quantum 1514 "${HTB_BURST_ARGS[@]}" &&
	inr tc class add dev "$d" parent 1:1 classid 1:10 htb \
		rate "$(awk -v m="$mbit" 'BEGIN { print m * 900 }')kbit" ceil "$r" \
		prio 1 quantum 1514 "${HTB_BURST_ARGS[@]}" &&
	inr tc class add dev "$d" parent 1:1 classid 1:20 htb \
		rate "$(awk -v m="$mbit" 'BEGIN { print m * 100 }')kbit" ceil "$r" \
		prio 0 quantum 1514 "${HTB_BURST_ARGS[@]}" &&
	inr tc qdisc add dev "$d" parent 1:10 pfifo limit 1000 &&
	inr tc qdisc add dev "$d" parent 1:20 pfifo limit 1000
}

sys_down() {
	local d
	for d in "$DEV_RS" "$DEV_RC"; do
		sj detach "$d" -n "$NS_R" >/dev/null 2>&1
		sj detach "$d" ingress -n "$NS_R" >/dev/null 2>&1
		inr tc qdisc del dev "$d" root 2>/dev/null
	done
	return 0
}

# sys_counters TAG: "drops N marks N" the router's qdiscs and sojourn
# counted; sojourn's own counters whole in TAG.sojourn.json (where the
# signals went: given, paced, expired, carried out)
sys_counters() {
	local d j qd=0 sd=0 sm=0
	for d in "$DEV_RS" "$DEV_RC"; do
		qd=$((qd + $(inr tc -s -j qdisc show dev "$d" |
			jq '[.[].drops // 0] | add // 0')))
	done
	j=$(sj show -s -j -n "$NS_R" 2>/dev/null)
	if [ -n "$j" ]; then
		printf '%s\n' "$j" >"$1.sojourn.json"
		sd=$(jq '[.[] | .stats.drops // 0] | add // 0' <<<"$j")
		sm=$(jq '[.[] | .stats.ecn_mark // 0] | add // 0' <<<"$j")
	fi
	echo "qdisc_drops $qd sojourn_drops $sd sojourn_marks $sm"
}

cpu_stat() { awk '/^cpu / {b = $2 + $3 + $4 + $7 + $8 + $9; print b, $7 + $8, b + $5 + $6}' /proc/stat; }
# cpu_use "B0 S0 T0" "B1 S1 T1": busy% and softirq% of all CPUs between them
cpu_use() {
	awk -v a="$1" -v b="$2" 'BEGIN { split(a, x); split(b, y); t = y[3] - x[3]
		if (t <= 0) t = 1
		printf "%.1f %.1f\n", 100 * (y[1] - x[1]) / t, 100 * (y[2] - x[2]) / t }'
}
ce_pkts() { ip netns exec "$1" awk '/^IpExt:/ { if (!h) { for (i = 1; i <= NF; i++) c[$i] = i; h = 1 } else print $c["InCEPkts"] }' /proc/net/netstat; }

# probes TAG SECS: irtt and fping at HZ in the background; files TAG.udp,
# TAG.icmp ("t rtt_ms", rtt "-" when lost)
probes() {
	local tag=$1 secs=$2 n=$(( $2 * HZ ))
	inc irtt client -i $((1000 / HZ))ms -d "${secs}s" --wait=2s -Q \
		-o "$tag.irtt.json" "$IP_S:$PORT_IRTT" 2>"$tag.irtt.err" &
	PROBE_PIDS=$!
	inc fping -q -C "$n" -p $((1000 / HZ)) -t 5000 "$IP_S" 2>&1 |
		sed -n 's/^[^:]* : //p' | tr ' ' '\n' | grep -v '^$' |
		awk -v p="$HZ" '{ print (NR - 1) / p, $1 }' >"$tag.icmp" &
	PROBE_PIDS="$PROBE_PIDS $!"
}

irtt_series() {	# JSON -> "t rtt" lines
	[ -s "$1.irtt.json" ] || return 0
	jq -r '.round_trips[] | "\(.timestamps.client.send.monotonic / 1e9) \(if .lost == "false" then (.delay.rtt / 1e6) else "-" end)"' \
		"$1.irtt.json" >"$1.udp" && rm -f "$1.irtt.json"
}

# srtt_sample TAG: bulk senders' srtt (ms), "up|down srtt" per flow
srtt_sample() {
	local f=$1
	inc ss -Htin state established "dport = :$PORT_UP" |
		awk -v dir=up -f "$BENCH/lib/ss_rtt.awk" >>"$f"
	ins ss -Htin state established "sport = :$PORT_DOWN" |
		awk -v dir=down -f "$BENCH/lib/ss_rtt.awk" >>"$f"
}

# loaded_devs LOAD: "DIR DEV" for each direction LOAD fills: the router's
# egress toward the server carries uploads, toward the client downloads
loaded_devs() {
	case $1 in up|both) echo "up $DEV_RS" ;; esac
	case $1 in down|both) echo "down $DEV_RC" ;; esac
}

# queue_sample TAG LOAD: the bytes the shaping root holds, "up|down
# BYTES", for each loaded direction.  A root HTB counts what its leaves
# hold; cake is the root itself.  srtt alone cannot tell a queue that
# stands higher from one shared differently: a FIFO makes every flow wait
# its whole delay, flow queueing lets a flow that holds little wait little.
queue_sample() {
	local dir d
	loaded_devs "$2" | while read -r dir d; do
		inr tc -s -j qdisc show dev "$d" root |
			jq -r --arg dir "$dir" '.[] | select(.root) | "\($dir) \(.backlog)"'
	done >>"$1"
}

# wait_sample TAG LOAD: "up|down PACKETS SUM_NS" from the histogram of
# the sojourn attachment on each loaded direction's device: every packet's
# wait from egress to its dequeue.  Taken once after the warm-up and once
# at the end, their difference is the steady state's mean wait per
# packet, which the sampled backlog (queue_sample) can only estimate.
# Systems without sojourn write nothing.
wait_sample() {
	local dir d
	loaded_devs "$2" | while read -r dir d; do
		sj hist "$d" -j -n "$NS_R" 2>/dev/null |
			jq -r --arg dir "$dir" '.[0].histogram | "\($dir) \(.count) \(.sum_ns)"' 2>/dev/null
	done >>"$1"
}

# one_run RATE SYSTEM LOAD REP
one_run() {
	local rate=$1 sys=$2 load=$3 rep=$4 tag cpu0 cpu1 cg0 cg1 t0 t1 ceu cec
	local pids="" now
	tag="$RAW/$rate/$sys.$load.$rep"
	rm -f "$tag".*
	if ! sys_up "$sys" "$rate" 2>"$tag.err"; then
		log "  $sys: cannot set up ($(head -1 "$tag.err")); skipped"
		sys_down
		echo "skipped 1" >"$tag.meta"
		return 0
	fi
	cpu0=$(cpu_stat)
	probes "$tag.idle" "$IDLE"
	# shellcheck disable=SC2086
	wait $PROBE_PIDS
	cpu1=$(cpu_stat)
	irtt_series "$tag.idle"
	{
		echo "idle_cpu $(cpu_use "$cpu0" "$cpu1" | cut -d' ' -f1)"
		echo "loadavg $(cut -d' ' -f1 /proc/loadavg)"
	} >"$tag.meta"

	ceu=$(ce_pkts "$NS_S") cec=$(ce_pkts "$NS_C")
	cpu0=$(cpu_stat) cg0=$(cg_ns) t0=$(date +%s%N)
	case $load in up|both)
		inc iperf3 -c "$IP_S" -p $PORT_UP -P 4 -t "$SECS" -C cubic -J \
			>"$tag.up.json" 2>&1 &
		pids="$pids $!" ;;
	esac
	case $load in down|both)
		inc iperf3 -c "$IP_S" -p $PORT_DOWN -P 4 -t "$SECS" -C cubic -J -R \
			>"$tag.down.json" 2>&1 &
		pids="$pids $!" ;;
	esac
	probes "$tag.load" "$SECS"
	# srtt every SS_PERIOD s from WARMUP on, bounded by the clock: where
	# sampling is slow (TCG) there are fewer samples, never a longer run
	: >"$tag.srtt"
	: >"$tag.queue"
	: >"$tag.wait"
	now=$(date +%s%N)
	while [ $(( (now - t0) / 1000000 )) -lt $(( SECS * 1000 - SS_MS )) ]; do
		sleep "$SS_PERIOD"
		now=$(date +%s%N)
		[ $(( (now - t0) / 1000000000 )) -ge "$WARMUP" ] || continue
		[ -s "$tag.srtt" ] || wait_sample "$tag.wait" "$load"
		srtt_sample "$tag.srtt" && queue_sample "$tag.queue" "$load"
	done
	wait_sample "$tag.wait" "$load"
	# shellcheck disable=SC2086
	wait $pids $PROBE_PIDS
	cpu1=$(cpu_stat) cg1=$(cg_ns) t1=$(date +%s%N)
	irtt_series "$tag.load"
	{
		cpu_use "$cpu0" "$cpu1" |
			awk '{print "machine_cpu", $1, "machine_softirq", $2}'
		[ -n "$CG" ] && awk -v a="$cg0" -v b="$cg1" -v t="$((t1 - t0))" \
			'BEGIN { printf "own_cpu %.1f\n", 100 * (b - a) / t }'
		echo "ce_up $(( $(ce_pkts "$NS_S") - ceu ))"
		echo "ce_down $(( $(ce_pkts "$NS_C") - cec ))"
		echo "secs $SECS"
		sys_counters "$tag"
	} >>"$tag.meta"
	sys_down
	sleep 1		# let every queue drain before the next run
}

mkdir -p "$RAW"
{
	echo "date $(date -u +%Y-%m-%dT%H:%MZ)"
	echo "kernel $(uname -r)"
	echo "cpus $(nproc)"
	echo "secs $SECS idle $IDLE reps $REPS warmup $WARMUP hz $HZ"
	echo "rates $RATES"
	echo "systems $SYSTEMS"
	echo "loads $LOADS"
	echo "delay $DELAY_KIND"
	echo "htb_burst ${HTB_BURST:-default}"
	echo "commit $(git -C "$BN_ROOT" rev-parse --short HEAD 2>/dev/null)"
	echo "sojourn_built $(date -u -r "$SOJOURN" +%Y-%m-%dT%H:%MZ)"
	echo "sojourn_variants ${SOJOURN_VARIANTS:-}"
} >"$RAW/info"

for sys in $SYSTEMS; do	# a variant's binary must be there before any run
	sj_binary "$sys"
	[ -x "$SOJOURN" ] || die "system $sys: $SOJOURN is not executable"
done
SOJOURN=$SOJOURN_MAIN
for rate in $RATES; do
	mkdir -p "$RAW/$rate"
	WORK="$RAW/$rate" KEEP_WORK=1
	net_up
	for ns in "$NS_C" "$NS_S"; do
		ip netns exec "$ns" sysctl -qw net.ipv4.tcp_ecn=1
	done
	ins iperf3 -s -B "$IP_S" -p $PORT_UP >/dev/null 2>&1 &
	ins iperf3 -s -B "$IP_S" -p $PORT_DOWN >/dev/null 2>&1 &
	ins irtt server -b "$IP_S:$PORT_IRTT" >/dev/null 2>&1 &
	wait_listen "$NS_S" t $PORT_UP
	wait_listen "$NS_S" t $PORT_DOWN
	wait_listen "$NS_S" u $PORT_IRTT
	for rep in $(seq "$REPS"); do
		for sys in $SYSTEMS; do
			for load in $LOADS; do
				log "$rate rep $rep/$REPS: $sys, $load"
				one_run "$rate" "$sys" "$load" "$rep"
			done
		done
	done
	delayline_stop
	tail -1 "$RAW/$rate/delayline.out" >"$RAW/$rate/delayline.stats"
	net_down
done
[ "${ANALYZE:-1}" = 0 ] ||
	python3 "$BENCH/analyze.py" "$RAW" "${OUT:-$BENCH/results}" "$NAME" ${REF:+"$REF"}
