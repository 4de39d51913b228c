# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# shellcheck shell=bash
#
# Test topology for the end-to-end tests and the demo (sourced, not run).
#
#   client ns --veth-- router ns --veth-- server ns
#   198.18.1.1    .1.254 | .2.254    198.18.2.1
#                        `-- egress shaped: the bottleneck
#
# Why a router: a local TCP sender hides bufferbloat behind TCP small
# queues (it never lets many packets sit in its own qdisc), so the queue
# that grows must sit on a forwarding hop, like a home router's uplink.
# Everything lives in network namespaces named after this shell's pid, so
# tests can run side by side and never touch the machine's real interfaces.
#
# Functions set or use these globals:
#   SJ_ROOT SOJOURN   repo root and the sojourn binary (SOJOURN= overrides)
#   NS_C NS_R NS_S    namespace names (under /run/netns)
#   DEV_C DEV_RC      client <-> router link (client side, router side)
#   DEV_RS DEV_S      router <-> server link; DEV_RS egress is the bottleneck
#   IP_C IP_S         client and server addresses
#   WORK              scratch directory, removed by topo_down

SJ_ROOT=${SJ_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
SOJOURN=${SOJOURN:-$SJ_ROOT/build/sojourn}

SJ_ID=${SJ_ID:-sj$$}		# <= 9 chars, so every name below fits IFNAMSIZ
NS_C=${SJ_ID}c NS_R=${SJ_ID}r NS_S=${SJ_ID}s
DEV_C=${SJ_ID}c0 DEV_RC=${SJ_ID}r0 DEV_RS=${SJ_ID}r1 DEV_S=${SJ_ID}s0
IP_C=198.18.1.1 IP_RC=198.18.1.254 IP_RS=198.18.2.254 IP_S=198.18.2.1
IP6_C=fd00:5e:1::1 IP6_RC=fd00:5e:1::fe IP6_RS=fd00:5e:2::fe IP6_S=fd00:5e:2::1

WARMUP=${WARMUP:-4}		# seconds of slow start left out of RTT samples
TOPO_UP=0

# shellcheck source=SCRIPTDIR/table.sh
. "$(dirname "${BASH_SOURCE[0]}")/table.sh"
# log, skip, die and the other helpers every script shares
# shellcheck source=SCRIPTDIR/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

# Skip (exit 77) unless we are root and have the tools.  Extra tool names
# may be passed; "sojourn" asks for the built command.
topo_require() {
	local t
	[ "$(id -u)" = 0 ] || skip "needs root"
	for t in ip tc ss ethtool iperf3 jq fping nsenter "$@"; do
		case $t in
		sojourn) [ -x "$SOJOURN" ] || skip "$SOJOURN not built (make first)" ;;
		*) command -v "$t" >/dev/null || skip "$t not installed" ;;
		esac
	done
	if ! mountpoint -q /sys/fs/bpf; then
		mount -t bpf bpf /sys/fs/bpf || skip "cannot mount bpffs"
	fi
	# Start from a clean slate if an earlier shell with our pid left debris.
	ip netns del "$NS_C" 2>/dev/null; ip netns del "$NS_R" 2>/dev/null
	ip netns del "$NS_S" 2>/dev/null
	return 0
}

# topo_up [QUEUES]: build the three hosts; QUEUES tx/rx queues per veth.
topo_up() {
	local q=${1:-1} ns dev
	WORK=$(mktemp -d "/tmp/$SJ_ID.XXXXXX")
	TOPO_UP=1
	ip netns add "$NS_C" && ip netns add "$NS_R" && ip netns add "$NS_S" ||
		die "cannot create namespaces"
	# The veth ends are created straight inside their namespaces.
	ip link add "$DEV_C" netns "$NS_C" numtxqueues "$q" numrxqueues "$q" \
		type veth peer name "$DEV_RC" netns "$NS_R" \
		numtxqueues "$q" numrxqueues "$q" || die "veth $DEV_C"
	ip link add "$DEV_RS" netns "$NS_R" numtxqueues "$q" numrxqueues "$q" \
		type veth peer name "$DEV_S" netns "$NS_S" \
		numtxqueues "$q" numrxqueues "$q" || die "veth $DEV_RS"
	for ns in "$NS_C" "$NS_R" "$NS_S"; do
		ip -n "$ns" link set lo up
		# No DAD wait for the fd00:5e:: test addresses.
		ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.accept_dad=0 \
			net.ipv6.conf.default.accept_dad=0
	done
	ip -n "$NS_C" addr add "$IP_C/24" dev "$DEV_C"
	ip -n "$NS_R" addr add "$IP_RC/24" dev "$DEV_RC"
	ip -n "$NS_R" addr add "$IP_RS/24" dev "$DEV_RS"
	ip -n "$NS_S" addr add "$IP_S/24" dev "$DEV_S"
	ip -n "$NS_C" addr add "$IP6_C/64" dev "$DEV_C" nodad
	ip -n "$NS_R" addr add "$IP6_RC/64" dev "$DEV_RC" nodad
	ip -n "$NS_R" addr add "$IP6_RS/64" dev "$DEV_RS" nodad
	ip -n "$NS_S" addr add "$IP6_S/64" dev "$DEV_S" nodad
	for dev in "$NS_C:$DEV_C" "$NS_R:$DEV_RC" "$NS_R:$DEV_RS" "$NS_S:$DEV_S"; do
		ns=${dev%%:*} dev=${dev#*:}
		ip -n "$ns" link set "$dev" up
		# Segmentation offloads would let the router queue 64 KB
		# super-packets; a real link queues MTU-sized ones.
		ip netns exec "$ns" ethtool -K "$dev" tso off gso off gro off \
			>/dev/null 2>&1 || die "ethtool -K $dev"
	done
	# Only the test subnets are routed; nothing leads out of the hosts.
	ip -n "$NS_C" route add 198.18.2.0/24 via "$IP_RC"
	ip -n "$NS_S" route add 198.18.1.0/24 via "$IP_RS"
	ip -n "$NS_C" -6 route add fd00:5e:2::/64 via "$IP6_RC"
	ip -n "$NS_S" -6 route add fd00:5e:1::/64 via "$IP6_RS"
	inr sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1
	# Wait until the server answers through the router.
	await_server 500 "topology: $IP_S unreachable from client"
}

# topo_down: kill what runs in our namespaces and delete them.  Safe to call
# twice and on a half-built topology.
topo_down() {
	local ns pids
	[ "$TOPO_UP" = 1 ] || return 0
	for ns in "$NS_C" "$NS_R" "$NS_S"; do
		[ -e "/run/netns/$ns" ] || continue
		pids=$(ip netns pids "$ns" 2>/dev/null)
		# shellcheck disable=SC2086
		[ -n "$pids" ] && kill $pids 2>/dev/null
	done
	sleep 0.2
	for ns in "$NS_C" "$NS_R" "$NS_S"; do
		[ -e "/run/netns/$ns" ] || continue
		pids=$(ip netns pids "$ns" 2>/dev/null)
		# shellcheck disable=SC2086
		[ -n "$pids" ] && kill -9 $pids 2>/dev/null
		ip netns del "$ns" 2>/dev/null
	done
	[ -n "$WORK" ] && rm -rf "$WORK"
	TOPO_UP=0
}

# topo_trap NS:DEV[:DIRECTION]...: on exit, however the test ends, kill the
# background processes listed in TOPO_BG, detach these attachments (quietly:
# they may be gone already) and take the topology down.
TOPO_BG=""
topo_trap() {
	TRAP_DETACH=("$@")
	trap topo_cleanup EXIT
	trap 'exit 130' INT TERM
}
topo_cleanup() {
	local spec ns dev dir p
	for p in $TOPO_BG; do kill "$p" 2>/dev/null; done
	for spec in "${TRAP_DETACH[@]}"; do
		IFS=: read -r ns dev dir <<<"$spec"
		[ -e "/run/netns/$ns" ] || continue
		# shellcheck disable=SC2086
		timeout 10 "$SOJOURN" detach "$dev" $dir -n "$ns" >/dev/null 2>&1
	done
	topo_down
}

# topo_tun: a VPN-like tunnel between client and server, without the VPN:
# tun device TUN_C in the client namespace, TUN_S in the server's, and
# build/sj_flood --tun-relay (in TOPO_BG) carrying packets between them as
# a VPN's data path does, without the crypto.  From then on the client and
# server talk through it: IP_C and IP_S become TUN_IP_C and TUN_IP_S.
# Skips where tun devices cannot be made; returns once a ping crosses.
TUN_C=${SJ_ID}t TUN_S=${SJ_ID}u
TUN_IP_C=198.18.5.1 TUN_IP_S=198.18.5.2
topo_tun() {
	local flood=$SJ_ROOT/build/sj_flood i
	nsx "$NS_C" "$flood" --tun "$TUN_C" 0xfffe && nsx "$NS_S" "$flood" --tun "$TUN_S" 0xfffe ||
		skip "cannot create tun devices"
	"$flood" --tun-relay "$NS_C" "$TUN_C" "$NS_S" "$TUN_S" 2>"$WORK/relay.err" &
	TOPO_BG="$TOPO_BG $!"
	ip -n "$NS_C" addr add "$TUN_IP_C" peer "$TUN_IP_S" dev "$TUN_C" &&
	ip -n "$NS_S" addr add "$TUN_IP_S" peer "$TUN_IP_C" dev "$TUN_S" &&
	ip -n "$NS_C" link set "$TUN_C" up && ip -n "$NS_S" link set "$TUN_S" up ||
		die "cannot set up the tunnel"
	# No 64 KB aggregates in the queue.  TCP builds GSO skbs whatever a
	# device's gso says (net/core/sock.c, sk_setup_caps gives TCP
	# NETIF_F_GSO, 4.13 to 6.18), and a tun device has no TSO: they are
	# cut into MTU packets at dequeue, after the qdisc
	# (validate_xmit_skb).  So the queue holds TCP's autosized aggregates
	# (tcp_tso_autosize: ~1 ms of the rate, 2 segments at 20 Mbit;
	# measured 3044 bytes per skb), and the tracepoint sees each segment
	# (dequeue_repeats).  gso off keeps other senders' too.
	inc ethtool -K "$TUN_C" gso off >/dev/null 2>&1
	ins ethtool -K "$TUN_S" gso off >/dev/null 2>&1
	IP_C=$TUN_IP_C IP_S=$TUN_IP_S
	for i in $(seq 50); do
		inc fping -q -c1 -t 500 "$IP_S" >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	die "no way through the tunnel: $(cat "$WORK/relay.err")"
}

# nstat_count NS COUNTER: COUNTER in namespace NS's (inc, inr, ins) nstat
# since its last `nstat -n`
nstat_count() { "$1" nstat -az "$2" | awk -v c="$2" '$1 == c { print $2 }'; }

# csum_errors NS: the TCP, UDP and IP checksum errors NS (inc, inr, ins)
# counted since its last `nstat -n`
csum_errors() {
	"$1" nstat -az TcpInCsumErrors UdpInCsumErrors IpExtInCsumErrors |
		awk 'NR > 1 { n += $2 } END { print n + 0 }'
}

# topo_ecn CLIENT SERVER: net.ipv4.tcp_ecn for the two ends (1 = request).
topo_ecn() {
	inc sysctl -qw net.ipv4.tcp_ecn="$1"
	ins sysctl -qw net.ipv4.tcp_ecn="$2"
}

# topo_shape [RATE [DEV]]: the bottleneck, router egress toward the server
# (or DEV): HTB with a single default class at RATE and a 1000-packet FIFO
# under it.
topo_shape() {
	local rate=${1:-20mbit} dev=${2:-$DEV_RS}
	inr tc qdisc replace dev "$dev" root handle 1: htb default 1 &&
	inr tc class add dev "$dev" parent 1: classid 1:1 htb rate "$rate" \
		quantum 1514 &&
	inr tc qdisc add dev "$dev" parent 1:1 handle 10: pfifo limit 1000 ||
		die "cannot shape $dev"
}

# topo_shape_mq QUEUES [RATE]: root mq; under each of its classes 1:1..1:N
# its own HTB at RATE with a 1000-packet FIFO: N independent bottlenecks.
topo_shape_mq() {
	local n=$1 rate=${2:-5mbit} i h
	inr tc qdisc replace dev "$DEV_RS" root handle 1: mq || die "mq"
	for i in $(seq "$n"); do
		h=$((i + 10))
		inr tc qdisc add dev "$DEV_RS" parent "1:$(printf %x "$i")" \
			handle "$h:" htb default 1 &&
		inr tc class add dev "$DEV_RS" parent "$h:" classid "$h:1" \
			htb rate "$rate" quantum 1514 &&
		inr tc qdisc add dev "$DEV_RS" parent "$h:1" pfifo limit 1000 ||
			die "cannot shape queue $i of $DEV_RS"
	done
}

# pfifo_drops: packets the FIFO(s) on the bottleneck dropped (tail drops)
pfifo_drops() {
	inr tc -s qdisc show dev "$DEV_RS" | awk '
		/^qdisc/ { f = ($2 == "pfifo") }
		f && /dropped/ { sub(",", "", $7); n += $7 }
		END { print n + 0 }'
}

# topo_servers PORT...: an iperf3 server per port in the server namespace.
topo_servers() {
	local p
	for p in "$@"; do
		ins iperf3 -s -B "$IP_S" -p "$p" >"$WORK/server.$p.log" 2>&1 &
	done
	topo_await_servers "$@"
}

# topo_await_servers PORT...: until the server namespace listens on each
# TCP port (5 s), or die
topo_await_servers() {
	local p i
	for i in $(seq 50); do
		local up=0
		for p in "$@"; do
			ins ss -Hltn "sport = :$p" | grep -q . && up=$((up + 1))
		done
		[ "$up" = $# ] && return 0
		sleep 0.1
	done
	die "iperf3 servers did not start"
}


# idle_rtt [COUNT]: median RTT client -> server in ms, no load.
idle_rtt() { probe "${1:-20}" 50 | median; }

# run_load TAG SECS SPEC...: upload from client to server for SECS seconds.
# SPEC is PORT:FLOWS (bulk cubic flows) or PORT:FLOWS:RATE (flows paced by
# iperf3 in 1448-byte writes, so they do not burst; left out of the RTT
# samples).  Leaves:
#   $WORK/TAG.PORT.json  iperf3 client results
#   $WORK/TAG.rtt        srtt samples (ms) of the bulk flows, one per flow
#                        every 0.5 s, the first $WARMUP seconds left out
#   $WORK/TAG.rttp       the same as "PORT SRTT" lines
# With PROBE_HZ set, $WORK/TAG.probe collects ICMP probe RTTs (ms) too;
# with SAMPLE_FN set, that function is called with TAG at every RTT sample.
# REVERSE=1: downloads (iperf3 -R), srtt sampled at the server, the sender.
# OMIT=N: iperf3 leaves the first N seconds out of its goodput.
run_load() {
	local tag=$1 secs=$2 spec port flows rate pids="" bulk="" t0 now rc=0
	local rev=${REVERSE:+-R}
	shift 2
	: >"$WORK/$tag.rttp"
	for spec in "$@"; do
		IFS=: read -r port flows rate <<<"$spec"
		inc timeout $((secs + 30)) iperf3 -c "$IP_S" -p "$port" $rev \
			${OMIT:+-O "$OMIT"} \
			-P "$flows" -t "$secs" -C cubic -J ${rate:+-b "$rate" -l 1448} \
			>"$WORK/$tag.$port.json" 2>"$WORK/$tag.$port.err" &
		pids="$pids $!"
		[ -z "$rate" ] && bulk="$bulk $port"
	done
	if [ -n "$PROBE_HZ" ]; then
		probe $((secs * PROBE_HZ)) $((1000 / PROBE_HZ)) \
			>"$WORK/$tag.probe" &
		pids="$pids $!"
	fi
	t0=$(date +%s.%N)
	while :; do
		sleep 0.5
		now=$(date +%s.%N)
		awk -v a="$now" -v b="$t0" -v s="$secs" 'BEGIN{exit !(a-b>s)}' &&
			break
		awk -v a="$now" -v b="$t0" -v w="$WARMUP" 'BEGIN{exit !(a-b>w)}' ||
			continue
		if [ -n "$REVERSE" ]; then
			ins ss -Htin state established dst "$IP_C" |
				ss_bulk_rtt "$bulk" 3 >>"$WORK/$tag.rttp"
		else
			inc ss -Htin state established dst "$IP_S" |
				ss_bulk_rtt "$bulk" >>"$WORK/$tag.rttp"
		fi
		[ -n "$SAMPLE_FN" ] && "$SAMPLE_FN" "$tag"
	done
	awk '{print $2}' "$WORK/$tag.rttp" >"$WORK/$tag.rtt"
	for p in $pids; do wait "$p" || rc=1; done
	# say why: iperf3's own error, which its JSON holds, or the probe's
	[ $rc = 0 ] || for spec in "$@"; do
		port=${spec%%:*}
		log "$tag: iperf3 to $port: $(jq -r '.error // "no error"' \
			"$WORK/$tag.$port.json" 2>/dev/null || echo "no JSON") \
			$(head -c 300 "$WORK/$tag.$port.err")"
	done
	[ $rc = 0 ] || [ -z "$PROBE_HZ" ] ||
		log "$tag: probe answers: $(wc -l <"$WORK/$tag.probe")"
	return $rc
}

# Reads `ss -tin` and prints "port srtt(ms)" of each established connection
# to one of the PORTS that has moved real data (iperf3's control connection to
# the same port has not, and its srtt is stale).  COLUMN: where the port
# stands, 4 (the peer's, at the client) or 3 (our own, at the server).
ss_bulk_rtt() {
	awk -v ports="$1" -v col="${2:-4}" '
	BEGIN { n = split(ports, p, " "); for (i = 1; i <= n; i++) want[p[i]] = 1 }
	/^[0-9]/ { split($col, a, ":"); port = a[length(a)]; next }
	{
		rtt = ""; acked = 0
		for (i = 1; i <= NF; i++) {
			if ($i ~ /^rtt:/) { split(substr($i, 5), r, "/"); rtt = r[1] }
			if ($i ~ /^bytes_acked:/) acked = substr($i, 13) + 0
		}
		if ((port in want) && rtt != "" && acked > 100000) print port, rtt
	}'
}

# goodput TAG [PORT...]: received Mbit/s summed over the runs of TAG
# (all ports unless given).
goodput() {
	local tag=$1 f files=""
	shift
	if [ $# -eq 0 ]; then
		files=$(ls "$WORK/$tag".*.json)
	else
		for f in "$@"; do files="$files $WORK/$tag.$f.json"; done
	fi
	# shellcheck disable=SC2086
	jq -s '[.[].end.sum_received.bits_per_second // 0] | add / 1e6' $files |
		awk '{printf "%.2f\n", $1}'
}

rtt_median() { median <"$WORK/$1.rtt"; }
rtt_count() { wc -l <"$WORK/$1.rtt"; }
# rtt_median_port TAG PORT: median srtt of the bulk flows to PORT
rtt_median_port() { awk -v p="$2" '$1 == p {print $2}' "$WORK/$1.rttp" | median; }

fsub() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.2f\n", a - b}'; }

# tc_snapshot NS DEV: the qdiscs and filters (both directions) of DEV in a
# form that compares equal when nothing was added, removed or changed.
# Counters are left out: they change with traffic.
tc_snapshot() {
	local ns=$1 dev=$2
	{
		echo "# qdisc"
		ip netns exec "$ns" tc qdisc show dev "$dev"
		echo "# class"
		ip netns exec "$ns" tc class show dev "$dev"
		echo "# filter egress"
		ip netns exec "$ns" tc filter show dev "$dev" egress
		echo "# filter ingress"
		ip netns exec "$ns" tc filter show dev "$dev" ingress
	} 2>&1 | sed -E 's/direct_packets_stat [0-9]+ //'
}

# snapshot_same A B WHAT: compare two snapshots, print the diff if they differ.
snapshot_same() {
	if diff -u "$1" "$2" >"$WORK/snapdiff" 2>&1; then
		return 0
	fi
	log "$3 changed:"
	sed 's/^/    /' "$WORK/snapdiff" >&2
	return 1
}

# sojourn wrappers: the command enters the namespace itself (-n).  A hung
# command must fail the test, not stall it: each call gets SJ_TIMEOUT s.
SJ_TIMEOUT=${SJ_TIMEOUT:-15}
sj() { timeout "$SJ_TIMEOUT" "$SOJOURN" "$@"; }
# sj_stats DEV: the stats object of DEV's attachment in the router (JSON).
sj_stats() {
	sj show "$1" -s -j -n "$NS_R" | jq -c --arg d "$1" \
		'[.[] | select(.dev == $d)][0]'
}
# stats_delta BEFORE AFTER PATH: how much the counter at PATH (a jq path,
# such as drops or stats.parsed.non_ip) grew from one stats object to
# another
stats_delta() { jq -n --argjson a "$1" --argjson b "$2" "\$b.$3 - \$a.$3"; }
# without_flow_pct < `sj hist DEV -j`: of the packets measured leaving, the
# share (%, one decimal) the tracepoint found no flow for.  What the per-flow
# backlog takes away rests on finding it (observe.bpf.h's slot table): a
# slot two flows share may lose a few, a hash that changed between the two
# hooks all of them.
without_flow_pct() {
	jq -r '.[0] | if .histogram.count > 0 then
		(1000 * .without_flow / .histogram.count | floor) / 10 else 100 end'
}

# flow_marks < `sj hist DEV --flow ... -j`: the CE marks of each flow that
# sent over 1000 packets, as a JSON array
flow_marks() { jq -c '[.[0].flow_list[] | select(.packets > 1000) | .ecn_marks]'; }
# max_share < JSON array of counts: the largest one's share of their sum
# (%, rounded down); 100 when the sum is 0, so that no marks cannot pass
# for marks shared evenly
max_share() { jq 'if add > 0 then (100 * max / add | floor) else 100 end'; }

# topo_shape_prio [RATE [PRIO_RATE]]: the bottleneck as operators build it
# with a priority class: HTB root, a parent class 1:10 at RATE (default
# 20mbit) and two leaves, each with its own pfifo:
#   1:2  prio 0, rate PRIO_RATE (default 2mbit), ceil RATE: ICMP, chosen
#        by a u32 filter (a VoIP-like class)
#   1:1  prio 1, rate RATE - PRIO_RATE, ceil RATE, the default: the bulk
topo_shape_prio() {
	local rate=${1:-20mbit} prate=${2:-2mbit} bulk
	# tc takes rates with units; the bulk guarantee is what is left
	bulk=$(awk -v a="$rate" -v b="$prate" 'function kbit(s) {
			if (s ~ /mbit$/) return s * 1000
			if (s ~ /kbit$/) return s + 0
			return -1 }
		BEGIN { r = kbit(a) - kbit(b)
			if (kbit(a) < 0 || kbit(b) < 0 || r <= 0) exit 1
			printf "%dkbit\n", r }') ||
		die "topo_shape_prio: rates in kbit/mbit, PRIO_RATE below RATE"
	inr tc qdisc replace dev "$DEV_RS" root handle 1: htb default 1 &&
	inr tc class add dev "$DEV_RS" parent 1: classid 1:10 htb \
		rate "$rate" ceil "$rate" quantum 1514 &&
	inr tc class add dev "$DEV_RS" parent 1:10 classid 1:1 htb \
		rate "$bulk" ceil "$rate" prio 1 quantum 1514 &&
	inr tc class add dev "$DEV_RS" parent 1:10 classid 1:2 htb \
		rate "$prate" ceil "$rate" prio 0 quantum 1514 &&
	inr tc qdisc add dev "$DEV_RS" parent 1:1 handle 11: pfifo limit 1000 &&
	inr tc qdisc add dev "$DEV_RS" parent 1:2 handle 12: pfifo limit 100 &&
	inr tc filter add dev "$DEV_RS" parent 1: protocol ip prio 1 u32 \
		match ip protocol 1 0xff flowid 1:2 ||
		die "cannot shape $DEV_RS with a priority class"
}

# class_packets CLASSID: packets HTB class CLASSID of the bottleneck sent
class_packets() {
	inr tc -s class show dev "$DEV_RS" classid "$1" |
		awk '/Sent/ { print $4; exit }'
}

# check_goodput NAME PCT: goodput as % of the FIFO's, against GOODPUT_MIN
# (default 90; kernel_61 sets 80 for the TCG guest, see there)
check_goodput() {
	check "$1" "$2" '>=' "${GOODPUT_MIN:-90}"
}
