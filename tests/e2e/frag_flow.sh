#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Fragments join the flow of their datagram (issue 15).  The client sends
# 4000-byte UDP datagrams over IPv4 and IPv6 through the router; at MTU
# 1500 each leaves in 3 fragments.  sojourn on the router's egress (the
# forwarding hop: the fragments carry no socket hash there) must key them
# to one flow per datagram stream, with the datagram's ports, and find the
# first fragment of every datagram:
#  - fragments counted, none of them unmatched;
#  - `top` shows exactly one UDP flow per family, with the real ports, and
#    no UDP flow without ports (a fragment keyed by addresses alone).
#
# Exit 0 pass, 77 skip, 1 fail.  SECS= override.

# shellcheck source=SCRIPTDIR/../lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
topo_require sojourn python3

SECS=${SECS:-3}
topo_trap "$NS_R:$DEV_RS"

topo_up 1
topo_shape 20mbit
sj attach "$DEV_RS" -n "$NS_R" || die "attach"

# neighbours resolved first: packets waiting for one are dropped oldest
# first, and a first fragment lost there leaves its later ones unmatched
# (the first IPv6 probe may go while the link-local address is tentative)
inc fping -q -c1 -t 2000 "$IP_S" >/dev/null 2>&1
for i in $(seq 20); do
	inc fping -6 -q -c1 -t 500 "$IP6_S" >/dev/null 2>&1 && break
	[ "$i" = 20 ] && die "$IP6_S unreachable"
	sleep 0.2
done

# ~100 datagrams a second each way: 2.4 Mbit/s of each family, under the
# shaper's rate; IP_PMTUDISC_DONT lets IPv4 fragment at the source
inc python3 - "$IP_S" "$IP6_S" "$SECS" <<'EOF' &
import socket, sys, time
v4 = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
v4.setsockopt(socket.IPPROTO_IP, 10, 0)		# IP_MTU_DISCOVER: DONT
v6 = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
v4.bind(("0.0.0.0", 40601))
v6.bind(("::", 40602))
end = time.time() + float(sys.argv[3])
while time.time() < end:
    v4.sendto(b"4" * 4000, (sys.argv[1], 5001))
    v6.sendto(b"6" * 4000, (sys.argv[2], 5002))
    time.sleep(0.01)
EOF
sender=$!
TOPO_BG="$sender"
sleep 1
flows=$(sj top "$DEV_RS" -n "$NS_R" -i 1 --frames 1 --rows 100 -j |
	jq -c '.flows[]') ||
	die "top failed"
wait "$sender" || die "the sender failed"
stats=$(sj_stats "$DEV_RS")
log "stats: $(jq -c '.stats | {packets, flows, frag_unmatched, parsed}' <<<"$stats")"
udp=$(jq -c 'select(.proto == "udp")' <<<"$flows")
log "udp flows in top: $udp"

frags=$(jq -r '.stats.parsed.fragment // "none"' <<<"$stats")
check "fragments parsed" "$frags" '>=' $((SECS * 100 * 3))
check "later fragments without their first" \
	"$(jq -r '.stats.frag_unmatched // "none"' <<<"$stats")" '==' 0
check "UDP flows in top" "$(jq -s length <<<"$udp")" '==' 2
check "UDP flows without ports" \
	"$(jq -s '[.[] | select(.sport == 0 or .dport == 0)] | length' <<<"$udp")" '==' 0
is "IPv4 datagrams' flow" \
	"$(jq -r 'select(.dport == 5001) | "\(.src):\(.sport)"' <<<"$udp")" "$IP_C:40601"
is "IPv6 datagrams' flow" \
	"$(jq -r 'select(.dport == 5002) | "\(.src):\(.sport)"' <<<"$udp")" "$IP6_C:40602"

finish frag_flow
