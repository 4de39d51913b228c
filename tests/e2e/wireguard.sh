#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# sojourn on a WireGuard device, as a VPN endpoint has one: the client's
# and the server's wg devices, over the topology's router.  A WireGuard
# device is ARPHRD_NONE, its packets from the IP header, as tun's are
# (l3_tunnel.sh), but it encrypts after tc egress and hands tc ingress its
# packets decrypted, their checksum marked CHECKSUM_UNNECESSARY and the
# outer header's CE carried in (drivers/net/wireguard/receive.c,
# wg_packet_consume_data_done, 5.6-6.x): the checksum state besides none
# and complete that a mark meets, and one BPF_PROG_TEST_RUN cannot make.
#   upload    HTB 10mbit + pfifo on the client's wg device, sojourn in
#             real-queue mode, 2 cubic ECN flows over IPv4: every packet
#             parsed as TCP (none non_ip or bad_header), CE marks, the
#             receiver counting CE on the packets WireGuard decrypted, no
#             checksum error
#   download  rate mode on the client's wg device's ingress, 2 cubic ECN
#             flows over IPv6 toward it: parsed as TCP, marks, the
#             client's IPv6 counting CE, no checksum error
# This machine's kernel has no WireGuard: kernel_61.sh runs the test in the
# 6.1 guest.  Exit 0 pass, 77 skip, 1 fail.  SECS= overrides.

# shellcheck source=SCRIPTDIR/../lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
topo_require sojourn nstat wg

SECS=${SECS:-8}
WG_C=${SJ_ID}w WG_S=${SJ_ID}x
WG_IP_C=198.18.10.1 WG_IP_S=198.18.10.2 WG6_C=fd00:5e:a::1 WG6_S=fd00:5e:a::2
topo_trap "$NS_C:$WG_C" "$NS_C:$WG_C:ingress"
topo_up 1
topo_ecn 1 1

inc ip link add "$WG_C" type wireguard 2>/dev/null ||
	skip "this kernel cannot make a wireguard device (no module; kernel_61.sh runs this test in the 6.1 guest)"
ins ip link add "$WG_S" type wireguard || die "the server's wireguard device"
for end in c s; do
	(umask 077 && wg genkey >"$WORK/$end.key") &&
		wg pubkey <"$WORK/$end.key" >"$WORK/$end.pub" || die "wg keys"
done
inc wg set "$WG_C" listen-port 51820 private-key "$WORK/c.key" \
	peer "$(cat "$WORK/s.pub")" endpoint "$IP_S:51821" \
	allowed-ips "$WG_IP_S/32,$WG6_S/128" &&
ins wg set "$WG_S" listen-port 51821 private-key "$WORK/s.key" \
	peer "$(cat "$WORK/c.pub")" endpoint "$IP_C:51820" \
	allowed-ips "$WG_IP_C/32,$WG6_C/128" || die "wg set"
inc ip addr add "$WG_IP_C/24" dev "$WG_C" && inc ip addr add "$WG6_C/64" dev "$WG_C" nodad &&
	ins ip addr add "$WG_IP_S/24" dev "$WG_S" && ins ip addr add "$WG6_S/64" dev "$WG_S" nodad &&
	inc ip link set "$WG_C" up && ins ip link set "$WG_S" up || die "wg addresses"
inc fping -q -c1 -r 20 -t 500 "$WG_IP_S" >/dev/null 2>&1 ||
	die "no way through the wireguard tunnel"
ins iperf3 -s -p 5201 >/dev/null 2>&1 &
topo_await_servers 5201

# checked DIR LABEL NS CE JSON: one direction's packets as sojourn on the
# client's wg device counted them, and the receiving namespace NS's (inc,
# ins) CE counter CE and checksum errors since its nstat -n; JSON iperf3's
checked() {
	local stats
	stats=$(sj show "$WG_C" -s -j -n "$NS_C" | jq -c '.[0].stats')
	check "$1 ($2): packets parsed tcp" "$(jq -r '.parsed.tcp' <<<"$stats")" '>' 200
	check "$1: packets non_ip + bad_header" \
		"$(jq -r '.parsed.non_ip + .parsed.bad_header' <<<"$stats")" '==' 0
	check "$1: CE marks" "$(jq -r '.ecn_mark + .ce_mark' <<<"$stats")" '>' 0
	check "$1: receiver's packets with CE ($4)" "$(nstat_count "$3" "$4")" '>' 0
	check "$1: receiver's checksum errors" "$(csum_errors "$3")" '==' 0
	row "$1: goodput (Mbit/s)" \
		"$(jq '.end.sum_received.bits_per_second / 1e6 | . * 100 | round / 100' "$5")" "" info
}

# the upload, real-queue mode on the client's wg device
inc tc qdisc replace dev "$WG_C" root handle 1: htb default 1 &&
	inc tc class add dev "$WG_C" parent 1: classid 1:1 htb rate 10mbit quantum 1514 &&
	inc tc qdisc add dev "$WG_C" parent 1:1 handle 10: pfifo limit 1000 ||
	die "cannot shape $WG_C"
sj attach "$WG_C" -n "$NS_C" || die "attach egress"
ins nstat -n >/dev/null
inc timeout $((SECS + 20)) iperf3 -c "$WG_IP_S" -p 5201 -P 2 -t "$SECS" -C cubic \
	-J >"$WORK/up.json" 2>&1 || die "upload: iperf3 failed"
checked upload "$(inc ip -j link show "$WG_C" | jq -r '.[0].link_type')" ins \
	IpExtInCEPkts "$WORK/up.json"
sj detach "$WG_C" -n "$NS_C" || die "detach egress"

# the download, rate mode on the client's wg device's ingress
sj attach "$WG_C" ingress rate 10mbit -n "$NS_C" || die "attach ingress"
inc nstat -n >/dev/null
inc timeout $((SECS + 20)) iperf3 -c "$WG6_S" -p 5201 -P 2 -t "$SECS" -C cubic -R \
	-J >"$WORK/down.json" 2>&1 || die "download: iperf3 failed"
checked download "IPv6, ingress rate mode" inc Ip6InCEPkts "$WORK/down.json"
sj detach "$WG_C" ingress -n "$NS_C" || die "detach ingress"

finish wireguard
