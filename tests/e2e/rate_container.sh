#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Rate mode on a container's veth.  The "pod" is the client namespace; the
# host is the router namespace, whose end of the pod's veth ($DEV_RC) is
# noqueue as container runtimes leave it; the server sits beyond the host.
# sojourn runs on the host side at 20 Mbit both ways: egress carries the
# pod's downloads, ingress its uploads.
#
# Side by side, 4 cubic flows each way, ECN on:
#   none      no limit at all (with SJ_BASELINES=1)
#   cni       the CNI bandwidth plugin's way (with SJ_BASELINES=1): TBF
#             on the host veth's egress for downloads, ingress redirected
#             to an IFB with TBF for uploads (rate 20mbit, burst 32kb,
#             limit = 25 ms of rate + burst)
#   sojourn   rate 20mbit egress and ingress
# sojourn's goodput must lie within 90..102% of 20 Mbit each way and its
# bulk TCP RTT rise (sender's srtt, median) stay under 15 ms.  A 20 Hz
# ping from the pod runs beside the bulk flows: a sparse flow goes ahead
# of the virtual queue's bulk (vqueue.h), so its p99 rise over the idle
# RTT must stay under 2 ms, and sojourn counts it sent ahead (cni's TBF is
# printed beside it, not judged).
#
# RATE_MBIT= (default 20) runs it all at another rate: issue 17 asks for
# the probe's bound at 20 and 100 Mbit; make check runs 20, the README
# gives a 100 Mbit run.
# Exit 0 pass, 77 skip, 1 fail.  SECS=, SOJOURN=, RATE_MBIT= override.

# shellcheck source=SCRIPTDIR/../lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
topo_require sojourn

SECS=${SECS:-15}
RATE_MBIT=${RATE_MBIT:-20}
OMIT=2		# slow start and the horizon's one-off excess are not the rate
IFB=sjifb$$
topo_trap "$NS_R:$DEV_RC" "$NS_R:$DEV_RC:ingress"

topo_up 1
topo_ecn 1 1
inr sysctl -qw net.ipv4.tcp_ecn=1
ins sysctl -qw net.ipv4.tcp_ecn=1
topo_servers 5201
is "host side of the pod's veth is noqueue" \
	"$(inr tc qdisc show dev "$DEV_RC" | awk '{print $2; exit}')" noqueue
idle=$(idle_rtt)
row "idle RTT (ms)" "$idle" "" info

cni_on() {
	inr tc qdisc add dev "$DEV_RC" root tbf rate ${RATE_MBIT}mbit burst 32kb latency 25ms &&
	inr ip link add "$IFB" type ifb && inr ip link set "$IFB" up &&
	inr tc qdisc add dev "$IFB" root tbf rate ${RATE_MBIT}mbit burst 32kb latency 25ms &&
	inr tc qdisc add dev "$DEV_RC" handle ffff: ingress &&
	inr tc filter add dev "$DEV_RC" parent ffff: protocol all u32 \
		match u32 0 0 action mirred egress redirect dev "$IFB"
}
cni_off() {
	inr tc qdisc del dev "$DEV_RC" root
	inr tc qdisc del dev "$DEV_RC" ingress
	inr ip link del "$IFB"
}

# measure SYSTEM [SECS]: downloads then uploads; goodput and RTT rise of
# the bulk flows, p99 rise of the ping beside them
measure() {
	local sys=$1 secs=${2:-$SECS} dir gp rise probe
	for dir in down up; do
		log "$sys: 4 cubic ${dir}loads for ${secs}s"
		REVERSE=$([ $dir = down ] && echo 1) OMIT=$OMIT PROBE_HZ=20 \
			run_load "$sys-$dir" "$secs" 5201:4 || die "iperf3 failed ($sys $dir)"
		gp=$(goodput "$sys-$dir")
		rise=$(fsub "$(rtt_median "$sys-$dir")" "$idle")
		probe=$(fsub "$(pctl 99 <"$WORK/$sys-$dir.probe")" "$idle")
		eval "GP_${sys}_$dir=$gp RISE_${sys}_$dir=$rise PROBE_${sys}_$dir=$probe"
	done
}

# none and cni are printed beside sojourn's, not judged: only with
# SJ_BASELINES=1 (common.sh)
if baselines; then
	measure none 5	# line rate: a short look is enough, and it takes both CPUs
	row "none: download / upload (Mbit/s)" "$GP_none_down / $GP_none_up" "" info
	cni_on || die "cannot set up TBF + IFB"
	measure cni 8
	cni_off
	row "cni TBF: goodput down / up (Mbit/s)" "$GP_cni_down / $GP_cni_up" "" info
	row "cni TBF: RTT rise down / up (ms)" "$RISE_cni_down / $RISE_cni_up" "" info
	row "cni TBF: ping p99 rise down / up (ms)" "$PROBE_cni_down / $PROBE_cni_up" "" info
fi

sj attach "$DEV_RC" rate ${RATE_MBIT}mbit -n "$NS_R" || die "attach egress"
sj attach "$DEV_RC" ingress rate ${RATE_MBIT}mbit -n "$NS_R" || die "attach ingress"
show=$(sj show "$DEV_RC" -j -n "$NS_R")
is "show lists egress and ingress" \
	"$(jq -r '[.[].direction] | sort | join(",")' <<<"$show")" "egress,ingress"
is "ingress hook on a veth" \
	"$(jq -r '.[] | select(.direction == "ingress") | .hook' <<<"$show")" tcx
measure sojourn
for dir in down up; do
	eval "gp=\$GP_sojourn_$dir rise=\$RISE_sojourn_$dir"
	check "sojourn ${dir}load goodput % of $RATE_MBIT Mbit" \
		"$(awk -v g="$gp" -v r="$RATE_MBIT" 'BEGIN{printf "%.1f", g / r * 100}')" '>=' 90
	check "sojourn ${dir}load goodput % of $RATE_MBIT Mbit" \
		"$(awk -v g="$gp" -v r="$RATE_MBIT" 'BEGIN{printf "%.1f", g / r * 100}')" '<=' 102
	check "sojourn ${dir}load RTT rise median (ms)" "$rise" '<' 15
	eval "probe=\$PROBE_sojourn_$dir"
	check "sojourn ${dir}load: ping p99 rise (ms)" "$probe" '<=' 2
	check "sojourn ${dir}load: pings answered of $((SECS * 20))" \
		"$(wc -l <"$WORK/sojourn-$dir.probe")" '>=' $((SECS * 20 * 99 / 100))
done
stats=$(sj show "$DEV_RC" -s -j -n "$NS_R")
for d in egress ingress; do
	check "sojourn $d: CoDel signals (marks + drops)" \
		"$(jq -r --arg d $d '.[] | select(.direction == $d) |
			.stats.ecn_mark + .stats.drops' <<<"$stats")" '>' 0
	check "sojourn $d: packets of sparse flows sent ahead" \
		"$(jq -r --arg d $d '.[] | select(.direction == $d) |
			.stats.sparse_steered' <<<"$stats")" '>' 0
done

sj detach "$DEV_RC" ingress -n "$NS_R" || die "detach ingress"
is "detach ingress leaves egress" \
	"$(sj show "$DEV_RC" -j -n "$NS_R" | jq -r '[.[].direction] | join(",")')" egress
sj detach "$DEV_RC" -n "$NS_R" || die "detach egress"
is "tc state after detach" "$(inr tc qdisc show dev "$DEV_RC" | awk '{print $2}' | sort -u | tr '\n' ' ')" "noqueue "

finish rate_container
