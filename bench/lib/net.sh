# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# shellcheck shell=bash
#
# The bench topology (sourced): four network namespaces in a line.
#
#   client --- router ===bottleneck=== delay --- server
#   .1.1   .1.254   .2.254          (wire)    .2.1     198.18.0.0/15
#
# The router shapes its egress both ways (toward the server for uploads,
# toward the client for downloads), as a home router does.  The delay
# namespace has no addresses: bench/delayline forwards frames between its
# two veths after a one-way delay (default 20 ms, so a 40 ms base RTT),
# since this kernel has no netem.  Offloads are off everywhere, so queues
# hold MTU-sized packets as on a real link.
#
# Not tests/lib/topo.sh's topology, on purpose: that one is three
# namespaces with IPv6 and multi-queue veths for the tests, and a base RTT
# of next to nothing; the bench needs the fourth (delay) namespace for an
# RTT CoDel's interval means something against, IPv4 only so that nothing
# but the load crosses the delay line, and leaves of any qdisc under its
# HTB (htb_leaf; topo_shape's is pfifo).  Shared with it: common.sh and
# table.sh.
#
# Globals: BN_ROOT SOJOURN DELAYLINE NS_C NS_R NS_D NS_S DEV_C DEV_RC DEV_RS
# DEV_DR DEV_DS DEV_S IP_C IP_S WORK.  DELAY_MS (one way) and DELAY_RULES
# ("PORT=MS ...", per-port one-way delays) are read by net_up.
#
# DELAY_KIND=netem (a kernel that has it: the 6.1 VM) replaces the delay
# line with the kernel's netem on both veths of the delay namespace and a
# mirred redirect between them, a wire as the delay line is.  Under TCG the
# delay line is a process two busy vCPUs must schedule: p99 10 ms late in
# bench/results/vm-up3.md, as large as the probe tails it was measuring;
# netem runs in the kernel's timers.  No DELAY_RULES with it.

BN_ROOT=${BN_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
SOJOURN=${SOJOURN:-$BN_ROOT/build/sojourn}
DELAYLINE=${DELAYLINE:-$BN_ROOT/build/delayline}

BN_ID=${BN_ID:-bn$$}		# short: every device name must fit IFNAMSIZ
NS_C=${BN_ID}c NS_R=${BN_ID}r NS_D=${BN_ID}d NS_S=${BN_ID}s
DEV_C=${BN_ID}c0 DEV_RC=${BN_ID}r0 DEV_RS=${BN_ID}r1
DEV_DR=${BN_ID}d0 DEV_DS=${BN_ID}d1 DEV_S=${BN_ID}s0
IP_C=198.18.1.1 IP_RC=198.18.1.254 IP_RS=198.18.2.254 IP_S=198.18.2.1
DELAY_MS=${DELAY_MS:-20}
DELAY_RULES=${DELAY_RULES:-}
DELAY_KIND=${DELAY_KIND:-delayline}
# HTB_BURST (bytes, tc's units): every class's burst and cburst.  tc's
# default is one MTU over the rate's share of a tick, ~1600 bytes (0.13 ms
# at 100 Mbit/s) where the kernel reports high-resolution timers: under
# TCG a qdisc watchdog fires late, so the class sends less than its rate
# (bench/results/vm-100.md: 56-62 Mbit/s at 100).  Empty: tc's default.
read -r -a HTB_BURST_ARGS <<<"${HTB_BURST:+burst $HTB_BURST cburst $HTB_BURST}"
NET_UP=0

# shellcheck source=SCRIPTDIR/../../tests/lib/table.sh
. "$BN_ROOT/tests/lib/table.sh"	# fcmp and the results table

# log, skip, die and the other helpers every script shares
# shellcheck source=SCRIPTDIR/../../tests/lib/common.sh
. "$BN_ROOT/tests/lib/common.sh"
ind() { ip netns exec "$NS_D" "$@"; }

# net_require TOOL...: skip unless root with these tools and a built delayline
net_require() {
	local t
	[ "$(id -u)" = 0 ] || skip "needs root"
	if [ "$DELAY_KIND" = netem ]; then
		[ -z "$DELAY_RULES" ] || die "DELAY_KIND=netem takes no DELAY_RULES"
	else
		[ -x "$DELAYLINE" ] || skip "$DELAYLINE not built (make tests)"
	fi
	for t in ip tc ss ethtool fping nsenter "$@"; do
		command -v "$t" >/dev/null || skip "$t not installed"
	done
	mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf ||
		skip "cannot mount bpffs"
	net_clean
}

net_clean() {
	local ns
	for ns in "$NS_C" "$NS_R" "$NS_D" "$NS_S"; do
		[ -e "/run/netns/$ns" ] || continue
		# shellcheck disable=SC2046
		kill -9 $(ip netns pids "$ns") 2>/dev/null
		ip netns del "$ns" 2>/dev/null
	done
	return 0
}

# veth NS_A DEV_A NS_B DEV_B: a veth pair, offloads off, up
veth() {
	ip link add "$2" netns "$1" type veth peer name "$4" netns "$3" ||
		die "veth $2"
	ip netns exec "$1" ethtool -K "$2" tso off gso off gro off >/dev/null 2>&1
	ip netns exec "$3" ethtool -K "$4" tso off gso off gro off >/dev/null 2>&1
	ip -n "$1" link set "$2" up && ip -n "$3" link set "$4" up
}

net_up() {
	local ns
	WORK=${WORK:-$(mktemp -d "/tmp/$BN_ID.XXXXXX")}
	NET_UP=1
	for ns in "$NS_C" "$NS_R" "$NS_D" "$NS_S"; do
		ip netns add "$ns" || die "cannot create namespace $ns"
		ip -n "$ns" link set lo up
		# IPv4 only: no router solicitations or DAD through the wire
		ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
			net.ipv6.conf.default.disable_ipv6=1
	done
	veth "$NS_C" "$DEV_C" "$NS_R" "$DEV_RC"
	veth "$NS_R" "$DEV_RS" "$NS_D" "$DEV_DR"
	veth "$NS_D" "$DEV_DS" "$NS_S" "$DEV_S"
	ip -n "$NS_C" addr add "$IP_C/24" dev "$DEV_C"
	ip -n "$NS_R" addr add "$IP_RC/24" dev "$DEV_RC"
	ip -n "$NS_R" addr add "$IP_RS/24" dev "$DEV_RS"
	ip -n "$NS_S" addr add "$IP_S/24" dev "$DEV_S"
	ip -n "$NS_C" route add 198.18.2.0/24 via "$IP_RC"
	ip -n "$NS_S" route add 198.18.1.0/24 via "$IP_RS"
	inr sysctl -qw net.ipv4.ip_forward=1
	delayline_start "$DELAY_MS"
}

# delayline_start MS: the delay line, MS each way (and DELAY_RULES), and
# wait until the server answers through it
delayline_start() {
	local args=() r d
	if [ "$DELAY_KIND" = netem ]; then
		# each veth's egress delays; what arrives on one leaves by the
		# other (limit: far above 20 ms at 100 Mbit, ~170 packets)
		for d in "$DEV_DR:$DEV_DS" "$DEV_DS:$DEV_DR"; do
			ind tc qdisc replace dev "${d%%:*}" root netem delay "${1}ms" limit 100000 &&
			ind tc qdisc replace dev "${d%%:*}" clsact &&
			ind tc filter add dev "${d%%:*}" ingress matchall \
				action mirred egress redirect dev "${d##*:}" ||
				die "netem delay on ${d%%:*}"
		done
		await_server 1000 "no path through netem at $1 ms: $IP_S unreachable from client"
		return
	fi
	for r in $DELAY_RULES; do args+=(-p "$r"); done
	ip netns exec "$NS_D" "$DELAYLINE" -d "$1" "${args[@]}" "$DEV_DR" "$DEV_DS" \
		>>"$WORK/delayline.out" 2>&1 &
	DELAYLINE_PID=$!
	await_server 1000 "no path through the delay line at $1 ms: $IP_S unreachable from client"
}

# delayline_stop: stop the delay line; its statistics line is then the
# last line of $WORK/delayline.out
delayline_stop() {
	local d
	if [ "$DELAY_KIND" = netem ]; then
		# the statistics line: what netem sent and dropped each way
		{
			printf 'kind netem delay_ms %s' "$DELAY_MS"
			for d in "$DEV_DR" "$DEV_DS"; do
				ind tc -s -j qdisc show dev "$d" root |
					jq -r --arg d "${d: -2}" '.[0] |
					" sent_\($d) \(.packets) dropped_\($d) \(.drops)"' |
					tr -d '\n'
			done
			echo
		} >>"$WORK/delayline.out"
		return 0
	fi
	[ -n "$DELAYLINE_PID" ] || return 1
	kill -TERM "$DELAYLINE_PID" 2>/dev/null
	for _ in $(seq 50); do
		kill -0 "$DELAYLINE_PID" 2>/dev/null || break
		sleep 0.1
	done
	DELAYLINE_PID=
}

# wait_listen NS PROTO PORT: until a socket listens there (t or u)
wait_listen() {
	for _ in $(seq 50); do
		ip netns exec "$1" ss -Han"$2" "sport = :$3" | grep -q . && return 0
		sleep 0.1
	done
	die "nothing listens on $3 in $1"
}

net_down() {
	[ "$NET_UP" = 1 ] || return 0
	[ -n "$DELAYLINE_PID" ] && kill "$DELAYLINE_PID" 2>/dev/null
	net_clean
	[ -n "$KEEP_WORK" ] || rm -rf "$WORK"
	NET_UP=0
}

# htb_leaf NS DEV RATE [LEAF...]: HTB at RATE, one class, LEAF qdisc
# under it (default pfifo limit 1000)
htb_leaf() {
	local ns=$1 dev=$2 rate=$3
	shift 3
	[ $# -gt 0 ] || set -- pfifo limit 1000
	ip netns exec "$ns" tc qdisc replace dev "$dev" root handle 1: htb \
		default 1 &&
	ip netns exec "$ns" tc class add dev "$dev" parent 1: classid 1:1 \
		htb rate "$rate" quantum 1514 "${HTB_BURST_ARGS[@]}" &&
	ip netns exec "$ns" tc qdisc add dev "$dev" parent 1:1 handle 10: \
		"$@"
}

# kv KEY < "k v k v ...": the value of KEY in a key-value line
kv() { awk -v k="$1" '{for (i = 1; i < NF; i += 2) if ($i == k) print $(i + 1)}'; }

