#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Ingress rate mode from the first packet: a download that starts against
# `ingress rate 20mbit` on the client's interface (nothing else slows the
# path: the veths run at memory speed) must not get far more than the rate
# in its first second, and with ECN its sender must not retransmit:
#   first second   bytes the client received in the first 1.0 s of the
#                  transfer (iperf3's own intervals at the receiver) over
#                  20 Mbit x 1 s: at most 1 plus what the design lets
#                  through at once, the bulk's ceiling's worth of the rate
#                  and the burst (200 ms of the 225 ms horizon and 32 KB:
#                  1.21).  On this ~0.1 ms path each burst of the sender
#                  fills the virtual queue to that ceiling, about
#                  500 KB every 0.2-0.3 s (iperf3's 0.1 s intervals read
#                  ~525 KB, 0, 0, ~525 KB, ...), so the first second holds
#                  4 or 5 of them: 0.92-1.16 on 2026-12-04, for main before
#                  one object per host as after (1.1 failed half the
#                  runs).
#   retransmits    the sender's TcpRetransSegs over the 10 s (nstat in the
#                  server's namespace), printed, not judged: the issue asks
#                  for near zero with ECN, and this path cannot give it.
#                  Its base RTT is ~0.1 ms, so one packet is more than the
#                  path's BDP at 20 Mbit: no window keeps such a sender
#                  below the rate, each burst runs into the horizon, and
#                  the drops are `drop_overlimit` (2026-12: ~630-840 in 10
#                  s with the defaults, whose ce_threshold at ingress is
#                  the target; ~1600-1800 with CoDel alone).  At real RTTs
#                  (10, 40, 100 ms through the bench's delay line)
#                  rate_start_rtt.sh judges them (0 in every run; at most
#                  0.5 % of those sent allowed) and prints CoDel alone's
#                  (280-780).
# For hook tc (tcx) and hook xdp, one cubic ECN flow each; EXTRA= adds
# words to the attach.
#
# Exit 0 pass, 77 skip, 1 fail.  SECS=, SOJOURN= override.

# shellcheck source=SCRIPTDIR/../lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
topo_require sojourn nstat

SECS=${SECS:-10}
RATE_MBIT=20
topo_trap "$NS_C:$DEV_C:ingress"

topo_up 1
topo_ecn 1 1
ins sysctl -qw net.ipv4.tcp_ecn=1
inc sysctl -qw net.ipv4.tcp_ecn=1
topo_servers 5201

for hook in tc xdp; do
	sj attach "$DEV_C" ingress rate ${RATE_MBIT}mbit hook $hook $EXTRA -n "$NS_C" ||
		die "attach ingress hook $hook"
	ins nstat -n >/dev/null		# a fresh baseline in the sender's namespace
	inc timeout $((SECS + 20)) iperf3 -c "$IP_S" -p 5201 -R -C cubic \
		-t "$SECS" -i 0.1 -J >"$WORK/$hook.json" 2>"$WORK/$hook.err" ||
		die "iperf3 failed ($hook): $(tail -c 300 "$WORK/$hook.err")"
	retrans=$(ins nstat -z TcpRetransSegs | awk '$1 == "TcpRetransSegs" {print $2}')
	stats=$(sj show "$DEV_C" -s -j -n "$NS_C" | jq -c '.[0].stats')
	# the design's allowance: the bulk's ceiling's worth of the rate and
	# the burst, as the attachment has them (show -j: us, bytes)
	bound=$(sj show "$DEV_C" -j -n "$NS_C" | jq -r --argjson r $RATE_MBIT \
		'.[0] | 1 + .bulk_ceiling / 1e6 + .burst * 8 / ($r * 1e6) | . * 1000 | floor / 1000')
	sj detach "$DEV_C" ingress -n "$NS_C" || die "detach ingress ($hook)"
	# the receiver's intervals that end within the first second
	first=$(jq '[.intervals[].sum | select(.end <= 1.0001) | .bytes] | add // 0' \
		"$WORK/$hook.json")
	check "hook $hook: first second over ${RATE_MBIT}mbit" \
		"$(awk -v b="$first" -v r=$RATE_MBIT 'BEGIN{printf "%.3f", b * 8 / (r * 1e6)}')" '<=' "$bound"
	check "hook $hook: first second at least half the rate" \
		"$(awk -v b="$first" -v r=$RATE_MBIT 'BEGIN{printf "%.3f", b * 8 / (r * 1e6)}')" '>=' 0.5
	row "hook $hook: sender's retransmits in ${SECS} s" "${retrans:-0}" "" info
	row "hook $hook: CE marks (law, threshold), drops, overlimit" \
		"$(jq -r '"\(.ecn_mark) \(.ce_mark) \(.drops) \(.drop_overlimit)"' <<<"$stats")" "" info
	row "hook $hook: goodput (Mbit/s)" \
		"$(jq '.end.sum_received.bits_per_second / 1e6 | . * 100 | round / 100' "$WORK/$hook.json")" "" info
done

finish rate_start
