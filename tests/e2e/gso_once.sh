#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Software GSO after the qdisc: the law sees each skb once.
#
# The client sends TSO aggregates (its veth keeps TSO/GSO on); they cross the
# router whole, wait in the HTB 20mbit + pfifo bottleneck as one skb each,
# and are cut into segments only when they leave (the router's egress veth
# has TSO and GSO off, so validate_xmit_skb segments in software).  Every
# segment fires the dequeue tracepoint.  The enqueue time travels in cb[],
# which the kernel copies to each segment (__copy_skb_header), so:
#  - segments after the first are counted as dequeue_repeats, not run
#    through the law again (the kernel's codel sees one skb at its dequeue);
#  - hardly anything leaves unmeasured (a segment without our stamp would);
#  - the law still holds the bulk RTT rise at the bound.
#
# Exit 0 pass, 77 skip, 1 fail.  SECS=, RISE_MAX= (ms), SOJOURN= override.

# shellcheck source=SCRIPTDIR/../lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
topo_require sojourn

SECS=${SECS:-15}
RISE_MAX=${RISE_MAX:-15}
topo_trap "$NS_R:$DEV_RS"

topo_up 1
topo_ecn 1 1
# aggregates from the client, segments made at the router's egress
inc ethtool -K "$DEV_C" tso on gso on >/dev/null 2>&1 ||
	skip "cannot turn TSO on for $DEV_C"
inr ethtool -K "$DEV_RC" gro on >/dev/null 2>&1
topo_shape 20mbit
topo_servers 5201
idle=$(idle_rtt)
row "idle RTT (ms)" "$idle" "" info

sj attach "$DEV_RS" -n "$NS_R" || die "attach"
log "sojourn: 4 cubic flows for ${SECS}s, GSO aggregates through the bottleneck"
run_load gso "$SECS" 5201:4 || die "iperf3 failed"
stats=$(sj_stats "$DEV_RS")
log "stats: $(jq -c '.stats | del(.queues)' <<<"$stats")"
deq=$(jq -r '.stats.dequeued // 0' <<<"$stats")
rep=$(jq -r '.stats.dequeue_repeats // "none"' <<<"$stats")
unm=$(jq -r '.stats.unmeasured // 0' <<<"$stats")
pkts=$(jq -r '.stats.packets // 0' <<<"$stats")
row "skbs entering the qdisc" "$pkts" "" info
check "skbs measured once (dequeued)" "$deq" '>' 1000
check "segments after the first (dequeue_repeats)" "$rep" '>' 0
check "unmeasured % of dequeued" \
	"$(awk -v u="$unm" -v d="$deq" 'BEGIN{if (d > 0) printf "%.2f", 100*u/d; else print "nan"}')" '<' 1
check "measured skbs per skb entering (no double count)" \
	"$(awk -v d="$deq" -v p="$pkts" 'BEGIN{if (p > 0) printf "%.3f", d/p; else print "nan"}')" '<=' 1.001
check "bulk RTT rise median (ms)" "$(fsub "$(rtt_median gso)" "$idle")" '<' "$RISE_MAX"
check "ecn_mark" "$(jq -r '.stats.ecn_mark // "nan"' <<<"$stats")" '>' 0

finish gso_once
