#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# sojourn on an IFB, as sqm-style ingress shaping builds one: a device's
# ingress redirected (act_mirred) to an IFB whose root is the bottleneck
# (HTB 20mbit + pfifo 1000), sojourn in real-queue mode on the IFB, 4 cubic
# ECN downloads to the client.  Two devices feed it:
#  1. the client's veth, an Ethernet device: its frames reach the IFB from
#     the Ethernet header;
#  2. a tun device, the client's end of a VPN-like tunnel (l3_tunnel.sh's
#     relay), an L3 device: its packets reach the IFB from the IP header,
#     as a WireGuard or PPPoE WAN's do.
# Each: every packet parsed as TCP (none non_ip but the veth's ARP), CE
# marks, the bulk RTT
# rise under RISE_MAX (15 ms; the FIFO alone: hundreds), no checksum error
# at the client.  Before the IFB read each packet's own layout
# (bpf/tc.bpf.c, sj_skb_link), every packet from the tun device was non_ip
# there: attach succeeded and nothing was managed.
# Exit 0 pass, 77 skip, 1 fail.  SECS=, RISE_MAX= (ms), SOJOURN= override.

# shellcheck source=SCRIPTDIR/../lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
topo_require sojourn nstat
FLOOD=$SJ_ROOT/build/sj_flood
[ -x "$FLOOD" ] || skip "$FLOOD not built (make tests)"
[ -c /dev/net/tun ] || skip "no /dev/net/tun"

SECS=${SECS:-8}
RISE_MAX=${RISE_MAX:-15}
IFB=${SJ_ID}i
topo_trap "$NS_C:$IFB"

topo_up 1
inc ip link add "$IFB" type ifb 2>/dev/null || skip "no ifb in this kernel"
inc ip link set "$IFB" up
inc tc qdisc replace dev "$IFB" root handle 1: htb default 1 &&
inc tc class add dev "$IFB" parent 1: classid 1:1 htb rate 20mbit quantum 1514 &&
inc tc qdisc add dev "$IFB" parent 1:1 handle 10: pfifo limit 1000 ||
	die "cannot shape $IFB"
topo_ecn 1 1
topo_servers 5201

# redirect DEV: DEV's ingress into the IFB, and nothing else's
redirect() {
	inc tc qdisc add dev "$1" clsact &&
	inc tc filter add dev "$1" ingress protocol all u32 match u32 0 0 \
		action mirred egress redirect dev "$IFB" >/dev/null ||
		die "cannot redirect $1 into $IFB"
}

# managed TAG LINKTYPE NON_IP: downloads through the IFB, judged; NON_IP:
# the packets that may be other than IP
managed() {
	local tag=$1 src=$2 idle stats
	sj attach "$IFB" -n "$NS_C" 2>/dev/null || die "$tag: attach on $IFB"
	idle=$(idle_rtt)
	inc nstat -n >/dev/null		# the receiver's counters from here
	log "$tag: 4 cubic downloads through $IFB for ${SECS}s"
	REVERSE=1 run_load "$tag" "$SECS" 5201:4 || die "$tag: iperf3 failed"
	stats=$(sj show "$IFB" -s -j -n "$NS_C" | jq -c '.[0].stats')
	check "$tag ($src): packets parsed tcp" "$(jq -r '.parsed.tcp' <<<"$stats")" '>' 1000
	# an Ethernet device's ARP is redirected too (one in a 6.1 guest's
	# run); an L3 device carries IP alone
	check "$tag: packets non_ip" "$(jq -r '.parsed.non_ip' <<<"$stats")" '<=' "$3"
	check "$tag: CE marks" "$(jq -r '.ecn_mark' <<<"$stats")" '>' 0
	check "$tag: bulk RTT rise median (ms)" "$(fsub "$(rtt_median "$tag")" "$idle")" '<' "$RISE_MAX"
	check "$tag: client's checksum errors" "$(csum_errors inc)" '==' 0
	row "$tag: goodput (Mbit/s)" "$(goodput "$tag")" "" info
	sj detach "$IFB" -n "$NS_C" || die "$tag: detach"
}

# 1. the client's veth
redirect "$DEV_C"
managed ether "$(inc ip -j link show "$DEV_C" | jq -r '.[0].link_type')" 10
inc tc qdisc del dev "$DEV_C" clsact || die "cannot remove the redirect"

# 2. a tun device, the client's end of a tunnel to the server
# the server's iperf3 anew, on its tunnel address
ins pkill -f "iperf3 -s -B $IP_S" && sleep 0.5
topo_tun
topo_servers 5201
redirect "$TUN_C"
managed tun "$(inc ip -j link show "$TUN_C" | jq -r '.[0].link_type')" 0

finish ifb_ingress
