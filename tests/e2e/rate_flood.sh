#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Rate mode after a flood of frames it cannot parse.  The router's egress
# toward the server runs `rate 20mbit` (a veth, noqueue); for 2 s the
# router sends broadcast frames of an unknown ethertype out of it at 10x
# the rate (200 Mbit/s), then a cubic upload starts at once:
#  - the flood is policed at the rate: at least 80 % of its frames are
#    dropped as drop_overlimit, all counted non_ip;
#  - within 1 s of the flood's end a TCP connection opens (iperf3's
#    connect timeout) and gets at least half the rate over 4 s.
# Before the departure clock had a bound, the flood pushed it ~20 s ahead
# and every SYN was dropped as drop_overlimit until it came back.
# Exit 0 pass, 1 fail, 77 skip.  RATE_MBIT=, FLOOD_SECS= override.

# shellcheck source=SCRIPTDIR/../lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
topo_require sojourn
FLOOD=$SJ_ROOT/build/sj_flood
[ -x "$FLOOD" ] || skip "$FLOOD not built (make tests)"

RATE_MBIT=${RATE_MBIT:-20}
FLOOD_SECS=${FLOOD_SECS:-2}
FRAME=1514
# 10x the rate in frames of FRAME bytes
PPS=$(( RATE_MBIT * 10 * 1000000 / 8 / FRAME ))
topo_trap "$NS_R:$DEV_RS"

topo_up 1
topo_ecn 1 1
topo_servers 5201
is "router egress toward the server is noqueue" \
	"$(inr tc qdisc show dev "$DEV_RS" | awk '{print $2; exit}')" noqueue
sj attach "$DEV_RS" rate "${RATE_MBIT}mbit" -n "$NS_R" || die "attach"

before=$(sj_stats "$DEV_RS")
log "flood: $PPS frames/s of ethertype 0x88b5 (${FRAME} B) for ${FLOOD_SECS}s"
nsx "$NS_R" "$FLOOD" --frames "$DEV_RS" 0x88b5 "$FRAME" "$PPS" "$FLOOD_SECS" \
	>"$WORK/flood.sent" || die "flood sender failed"
t_end=$(date +%s.%N)

# at once: 4 s of one cubic upload; the connection must open within 1 s
delay=$(awk -v a="$(date +%s.%N)" -v b="$t_end" 'BEGIN{printf "%.2f", a - b}')
inc timeout 30 iperf3 -c "$IP_S" -p 5201 -t 4 -C cubic -J \
	--connect-timeout 1000 >"$WORK/tcp.json" 2>"$WORK/tcp.err"
rc=$?
# iperf3 -J may exit 0 on a failed connect: its JSON says
err=$(jq -r '.error // empty' "$WORK/tcp.json" 2>/dev/null)
[ -n "$err" ] && rc=1
after=$(sj_stats "$DEV_RS")

sent=$(cat "$WORK/flood.sent")
non_ip=$(stats_delta "$before" "$after" stats.parsed.non_ip)
overlimit=$(stats_delta "$before" "$after" stats.drop_overlimit)
row "flood frames offered" "$sent" "" info
check "flood frames counted non_ip" "$non_ip" '>=' "$sent"
check "flood frames dropped (% drop_overlimit)" \
	"$(awk -v o="$overlimit" -v s="$sent" 'BEGIN{printf "%.1f", s ? 100 * o / s : 0}')" \
	'>=' 80
row "iperf3 started after the flood (s)" "$delay" "" info
verdict "TCP connection opened within 1 s of the flood" "$rc"
[ "$rc" = 0 ] || log "iperf3: $err $(head -c 200 "$WORK/tcp.err")"
check "TCP goodput after the flood (Mbit/s)" \
	"$(jq -r '.end.sum_received.bits_per_second // 0 | . / 1e6 * 100 | round / 100' \
		"$WORK/tcp.json" 2>/dev/null)" '>=' "$(( RATE_MBIT / 2 ))"

finish rate_flood
