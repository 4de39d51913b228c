#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# The cost of the attached programs under real traffic (part of
# `make bench-cost`; bench/README.md):
#  1. per packet, from the kernel's BPF run-time statistics: sojourn's
#     egress and dequeue programs next to floors at the same hooks, while
#     build/live sends 60-byte UDP frames of 1, 1k, 100k or 1M flows out of
#     a veth with a pfifo root (sojourn at its defaults: a 65536-flow LRU);
#  2. throughput through a router namespace (pfifo root on its egress, no
#     shaping): 4 cubic TCP flows (Gbit/s) and small-UDP forwarding (pps),
#     without and with sojourn, REPS times interleaved, with the CPU our
#     processes used (cpuacct) per Gbit/s.
# Environment: SECS (per measurement, default 5), REPS (3), SOJOURN.
BENCH=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$BENCH/.." && pwd)
SOJOURN=${SOJOURN:-$ROOT/build/sojourn}
LIVE=$ROOT/build/live
SECS=${SECS:-5} REPS=${REPS:-3}
ID=lv$$
NS_C=${ID}c NS_R=${ID}r NS_S=${ID}s

# log, skip, die and the other helpers every script shares
# shellcheck source=SCRIPTDIR/../tests/lib/common.sh
. "$ROOT/tests/lib/common.sh"
[ "$(id -u)" = 0 ] || skip "needs root"
for t in "$SOJOURN" "$LIVE" "$ROOT/build/floor.bpf.o"; do
	[ -e "$t" ] || skip "$t not built (make bench-cost builds it)"
done
command -v iperf3 >/dev/null || skip "iperf3 missing"

CG=/sys/fs/cgroup/cpuacct/sojourn-live-$$
if [ -d /sys/fs/cgroup/cpuacct ] && mkdir "$CG" 2>/dev/null; then
	echo $$ >"$CG/tasks"
else
	CG=
fi
cleanup() {
	local ns
	for ns in "$NS_C" "$NS_R" "$NS_S"; do
		[ -e "/run/netns/$ns" ] || continue
		# shellcheck disable=SC2046
		kill $(ip netns pids "$ns") 2>/dev/null
		timeout 10 "$SOJOURN" detach "${ID}r1" -n "$NS_R" >/dev/null 2>&1
		timeout 10 "$SOJOURN" detach "${ID}l0" -n "$NS_C" >/dev/null 2>&1
		ip netns del "$ns"
	done
	if [ -n "$CG" ]; then
		echo $$ >/sys/fs/cgroup/cpuacct/tasks
		rmdir "$CG"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
cg_ns() { if [ -n "$CG" ]; then cat "$CG/cpuacct.usage"; else echo 0; fi; }

for ns in "$NS_C" "$NS_R" "$NS_S"; do
	ip netns add "$ns" || die "netns $ns"
	ip -n "$ns" link set lo up
done

# 1. per packet under real traffic
echo "## Attached programs under real traffic (bpf_stats run_time_ns / run_cnt)"
echo
ip link add "${ID}l0" netns "$NS_C" type veth peer name "${ID}l1" netns "$NS_S"
ip -n "$NS_C" link set "${ID}l0" up && ip -n "$NS_S" link set "${ID}l1" up
ip netns exec "$NS_C" tc qdisc add dev "${ID}l0" root pfifo limit 1000
timeout 20 "$SOJOURN" attach "${ID}l0" -n "$NS_C" >/dev/null || die "attach"
pin=$(timeout 20 "$SOJOURN" show "${ID}l0" -j -n "$NS_C" | jq -r '.[0].pin')
[ -d "$pin" ] || die "no pin directory"
echo "sojourn queue mode on a veth with a pfifo root, 60-byte UDP frames sent"
echo "as fast as one AF_PACKET sender can, $SECS s per row, flows at random;"
echo "the floors are bench/floor.bpf.c at the same hooks in the same run."
echo
echo "| flows | pps | floor tc ns | egress ns | egress/floor | floor dequeue ns | dequeue ns | dequeue/floor | egress+dequeue / floors |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
: >"/tmp/$ID.rows"
for n in 1 1000 100000 1000000; do
	l=$(cd "$ROOT" && nsenter --net="/run/netns/$NS_C" "$LIVE" "${ID}l0" "$pin" "$n" "$SECS") ||
		die "live $n failed"
	echo "$l" >>"/tmp/$ID.rows"
	awk -v l="$l" 'BEGIN {
		n = split(l, w, " "); for (i = 1; i < n; i += 2) v[w[i]] = w[i + 1]
		printf "| %d | %.0f | %.1f | %.1f | %.2f | %.1f | %.1f | %.2f | %.2f |\n",
			v["flows"], v["pps"], v["floor_tc_ns"], v["egress_ns"],
			v["egress_ns"] / v["floor_tc_ns"], v["floor_dequeue_ns"],
			v["dequeue_ns"], v["dequeue_ns"] / v["floor_dequeue_ns"],
			(v["egress_ns"] + v["dequeue_ns"]) / (v["floor_tc_ns"] + v["floor_dequeue_ns"]) }'
done
# issue 14's targets: egress + dequeue at most 2.5x the two floors at 1k
# flows, and at 1M flows at most 2x the 1k figure
echo
awk '{ n = split($0, w, " "); for (i = 1; i < n; i += 2) v[w[i]] = w[i + 1]
       t[v["flows"]] = v["egress_ns"] + v["dequeue_ns"]
       f[v["flows"]] = v["floor_tc_ns"] + v["floor_dequeue_ns"] }
     END {
	r = t[1000] / f[1000]; g = t[1000000] / t[1000]
	printf "targets: egress+dequeue <= 2.5x the floors at 1k flows: %s (%.2fx); ", r <= 2.5 ? "met" : "NOT met", r
	printf "at 1M flows <= 2x the 1k figure: %s (%.2fx)\n", g <= 2 ? "met" : "NOT met", g
     }' "/tmp/$ID.rows"
rm -f "/tmp/$ID.rows"
st=$(timeout 20 "$SOJOURN" show "${ID}l0" -s -j -n "$NS_C")
echo
echo "flow table after the 1M-flow row: $(jq -r '.[0].stats | "flows \(.flows) flows_evicted \(.flows_evicted)"' <<<"$st")"
timeout 20 "$SOJOURN" detach "${ID}l0" -n "$NS_C" >/dev/null
ip -n "$NS_C" link del "${ID}l0"

# 2. throughput through a router
ip link add "${ID}c0" netns "$NS_C" type veth peer name "${ID}r0" netns "$NS_R"
ip link add "${ID}r1" netns "$NS_R" type veth peer name "${ID}s0" netns "$NS_S"
ip -n "$NS_C" addr add 198.18.1.1/24 dev "${ID}c0"
ip -n "$NS_R" addr add 198.18.1.254/24 dev "${ID}r0"
ip -n "$NS_R" addr add 198.18.2.254/24 dev "${ID}r1"
ip -n "$NS_S" addr add 198.18.2.1/24 dev "${ID}s0"
for d in "$NS_C:${ID}c0" "$NS_R:${ID}r0" "$NS_R:${ID}r1" "$NS_S:${ID}s0"; do
	ip -n "${d%%:*}" link set "${d#*:}" up
done
ip -n "$NS_C" route add 198.18.2.0/24 via 198.18.1.254
ip -n "$NS_S" route add 198.18.1.0/24 via 198.18.2.254
ip netns exec "$NS_R" sysctl -qw net.ipv4.ip_forward=1
ip netns exec "$NS_R" tc qdisc replace dev "${ID}r1" root pfifo limit 1000
ip netns exec "$NS_S" iperf3 -s -B 198.18.2.1 -p 5201 >/dev/null 2>&1 &
ip netns exec "$NS_S" iperf3 -s -B 198.18.2.1 -p 5202 >/dev/null 2>&1 &
sleep 1

tx_pkts() {
	ip -n "$NS_R" -s -j link show dev "${ID}r1" | jq '.[0].stats64.tx.packets'
}
# one_tp MODE: "gbit cpu_pct pps" for one TCP run and one UDP run; fails
# if sojourn does not attach (it runs in $(...), where die would only end
# the subshell and its FAIL line would land among the figures)
one_tp() {
	local c0 c1 t0 t1 p0 p1 gbit cpu pps
	[ "$1" = sojourn ] && { timeout 20 "$SOJOURN" attach "${ID}r1" -n "$NS_R" >/dev/null || return 1; }
	c0=$(cg_ns) t0=$(date +%s%N)
	gbit=$(ip netns exec "$NS_C" iperf3 -c 198.18.2.1 -p 5201 -P 4 -t "$SECS" \
		-C cubic -J | jq '.end.sum_received.bits_per_second / 1e9')
	c1=$(cg_ns) t1=$(date +%s%N)
	cpu=$(awk -v a="$c0" -v b="$c1" -v t=$((t1 - t0)) 'BEGIN { printf "%.1f", 100 * (b - a) / t }')
	p0=$(tx_pkts) t0=$(date +%s%N)
	ip netns exec "$NS_C" iperf3 -c 198.18.2.1 -p 5202 -u -b 0 -l 18 \
		-t "$SECS" >/dev/null 2>&1
	p1=$(tx_pkts) t1=$(date +%s%N)
	pps=$(( (p1 - p0) * 1000000000 / (t1 - t0) ))
	[ "$1" = sojourn ] && timeout 20 "$SOJOURN" detach "${ID}r1" -n "$NS_R" >/dev/null
	echo "$gbit $cpu $pps"
}
: >"/tmp/$ID.tp"
for _ in $(seq "$REPS"); do
	for mode in none sojourn; do
		tp=$(one_tp "$mode") || die "attach router"
		echo "$mode $tp" >>"/tmp/$ID.tp"
	done
done
echo
echo "## Throughput through the router (pfifo root on its egress, no shaping)"
echo
echo "Medians of $REPS interleaved runs, $SECS s each; CPU is what our processes"
echo "used (cpuacct, softirq included where it ran in them), % of one CPU."
echo
awk '
function med(a, n,   i, j, t) {
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
		if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{ k = $1; n[k]++; g[k, n[k]] = $2; c[k, n[k]] = $3; p[k, n[k]] = $4 }
END {
	for (k in n) {
		for (i = 1; i <= n[k]; i++) { x[i] = g[k, i] }; G[k] = med(x, n[k])
		for (i = 1; i <= n[k]; i++) { x[i] = c[k, i] }; C[k] = med(x, n[k])
		for (i = 1; i <= n[k]; i++) { x[i] = p[k, i] }; P[k] = med(x, n[k])
	}
	print "| | TCP Gbit/s | CPU % | CPU % per Gbit/s | 18-byte UDP pps forwarded |"
	print "|---|---:|---:|---:|---:|"
	printf "| no sojourn | %.2f | %.0f | %.1f | %d |\n", G["none"], C["none"], C["none"] / G["none"], P["none"]
	printf "| sojourn | %.2f | %.0f | %.1f | %d |\n", G["sojourn"], C["sojourn"], C["sojourn"] / G["sojourn"], P["sojourn"]
	printf "| ratio sojourn / none | %.3f | | %.3f | %.3f |\n", G["sojourn"] / G["none"], (C["sojourn"] / G["sojourn"]) / (C["none"] / G["none"]), P["sojourn"] / P["none"]
}' "/tmp/$ID.tp"
echo
echo "runs (mode gbit cpu% pps): $(tr '\n' ';' <"/tmp/$ID.tp")"
rm -f "/tmp/$ID.tp"
