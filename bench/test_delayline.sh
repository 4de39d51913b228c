#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# The bench's delay line (bench/delayline.c), installed as build/test_delayline:
#  - ICMP through it takes the set delay: median RTT within 2 ms of 2 x 20
#    ms (each way's frame may leave up to 1 ms late, the bar below);
#  - a per-port rule gives that port's UDP flow its own delay (2 x 50 ms,
#    within 2 ms) while ICMP keeps the default;
#  - with 4 TCP flows at a 20 and a 100 Mbit/s HTB bottleneck on the
#    router, the delay line loses nothing and its median frame leaves
#    less than 1 ms late.  The goodput is printed, not judged: what a
#    userspace relay carries is a figure of the machine (see below).
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=SCRIPTDIR/lib/net.sh
. "$root/bench/lib/net.sh"
net_require iperf3 irtt jq
DELAY_MS=20 DELAY_RULES="5399=50"
trap 'net_down' EXIT
trap 'exit 130' INT TERM
net_up

ins irtt server -b "$IP_S:5399" >/dev/null 2>&1 &
ins iperf3 -s -B "$IP_S" -p 5398 >/dev/null 2>&1 &
wait_listen "$NS_S" u 5399
wait_listen "$NS_S" t 5398
inc irtt client -i 20ms -d 4s -Q -o "$WORK/irtt.json" "$IP_S:5399" &
irtt=$!
probe 200 20 >"$WORK/icmp"
wait "$irtt"
icmp50=$(pctl 50 <"$WORK/icmp")
icmp99=$(pctl 99 <"$WORK/icmp")
udp50=$(jq '.stats.rtt.median / 1e6' "$WORK/irtt.json")
echo "idle: ICMP p50 $icmp50 ms p99 $icmp99 ms, UDP to port 5399 p50 $udp50 ms"
check "ICMP RTT median (ms), set 40" "$icmp50" '>=' 40
check "ICMP RTT median (ms), set 40" "$icmp50" '<=' 42
check "port 5399 UDP RTT median (ms), set 100" "$udp50" '>=' 100
check "port 5399 UDP RTT median (ms), set 100" "$udp50" '<=' 102

# goodput N: 4 cubic flows through the delay line at an N Mbit/s HTB, the
# first 2 s (slow start over a 40 ms RTT, TCP's own ramp) left out
goodput() {
	ip netns exec "$NS_R" tc qdisc del dev "$DEV_RS" root 2>/dev/null
	htb_leaf "$NS_R" "$DEV_RS" "${1}mbit" || die "htb"
	inc iperf3 -c "$IP_S" -p 5398 -P 4 -t 10 -O 2 -C cubic -J >"$WORK/iperf$1.json"
	jq '.end.sum_received.bits_per_second / 1e6' "$WORK/iperf$1.json"
}
gp20=$(goodput 20)
gp100=$(goodput 100)
delayline_stop
st=$(tail -1 "$WORK/delayline.out")
echo "goodput $gp20 Mbit/s at 20, $gp100 at 100; delay line: $st"
# What one userspace thread relays is a figure of the machine, not of the
# code: 19 and 72-83 Mbit/s here in 2026-12 (90+ before), 17.0 and 43.1 on
# a CI runner, with nothing lost either time.  A bench row holds only
# where the delay line carried at least 90 % of its rate; the bench prints
# the delay line's capacity (bench/capacity.sh) and lateness beside its
# rows, so the reader can tell.  Here the goodput is printed against
# that bar; what is judged is what the code promises: nothing lost, and
# frames leaving on time.
for r in 20 100; do
	gp=gp$r
	row "goodput at $r Mbit/s HTB (Mbit/s)" "${!gp}" \
		">= $((r * 9 / 10)) for bench rows" info
done
# a floor a working relay clears on any machine seen (half the rate):
# below it the delay line stalls or reorders bulk TCP
check "goodput at 20 Mbit/s HTB, floor (Mbit/s)" "$gp20" '>=' 10
lost=$(awk '{for (i = 1; i < NF; i += 2) if ($i ~ /drops|errors/) n += $(i + 1)}
	END {print n + 0}' <<<"$st")
check "delay line frames lost" "$lost" '==' 0
check "delay line p50 lateness (us)" "$(kv late_p50_us <<<"$st")" '<' 1000

finish "delay line"
