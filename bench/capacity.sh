#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# What this machine (or VM) carries through the bench topology with no
# shaping: idle RTT through the delay line (set 2 x DELAY_MS) and the
# goodput of 4 cubic flows up for SECS s.  Prints one `key value` line.
# The VM run calls it first, so its report says what TCG could carry.
BENCH=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/lib/net.sh
. "$BENCH/lib/net.sh"
net_require iperf3 jq
SECS=${SECS:-8}
trap net_down EXIT
trap 'exit 130' INT TERM
net_up
ins iperf3 -s -B "$IP_S" -p 5201 >/dev/null 2>&1 &
wait_listen "$NS_S" t 5201
probe 100 20 >"$WORK/idle"
inc iperf3 -c "$IP_S" -p 5201 -P 4 -t "$SECS" -C cubic -J >"$WORK/up.json"
delayline_stop
printf 'idle_rtt_p50 %s idle_rtt_p99 %s unshaped_mbit %s %s\n' \
	"$(pctl 50 <"$WORK/idle")" "$(pctl 99 <"$WORK/idle")" \
	"$(jq '.end.sum_received.bits_per_second / 1e6 | floor' "$WORK/up.json")" \
	"$(tail -1 "$WORK/delayline.out")"
