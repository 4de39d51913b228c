#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Paced senders of equal rates on one FIFO: four TCP flows, each paced by
# its sender at 6 Mbit/s (iperf3 -b, one 1448-byte write at a time), into
# a 20 Mbit/s bottleneck.  Such flows send at about equal rates, so with
# `fair` none may stay above the mean rate for long, where a flow takes
# the law's signal at once (include/fair.h: sj_fair_takes_signal); the
# law must still signal them, not wait on a heavier flow that never comes,
# and hold the queue as it holds cubic's.
# A ping beside them must see the queue near target: median rise under
# 20 ms, where the FIFO alone (SJ_BASELINES=1) reads hundreds.
#
# Exit 0 pass, 77 skip, 1 fail.  SECS=, SOJOURN= override.

# shellcheck source=SCRIPTDIR/../lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
topo_require sojourn

SECS=${SECS:-12}
topo_trap "$NS_R:$DEV_RS"

topo_up 1
topo_ecn 1 1
topo_shape 20mbit
topo_servers 5201
idle=$(idle_rtt)
row "idle RTT (ms)" "$idle" "" info

# run TAG: the four paced flows and a 20 Hz ping; sets RISE and GOODPUT
run() {
	PROBE_HZ=20 OMIT=3 run_load "$1" "$SECS" 5201:4:6M ||
		die "iperf3 failed ($1)"
	RISE=$(fsub "$(median <"$WORK/$1.probe")" "$idle")
	GOODPUT=$(goodput "$1")
}

if baselines; then
	run fifo
	row "fifo: ping rise median (ms)" "$RISE" "" info
	row "fifo: goodput (Mbit/s)" "$GOODPUT" "" info
fi
sj attach "$DEV_RS" -n "$NS_R" || die "attach"
is "show: fair" "$(sj show "$DEV_RS" -j -n "$NS_R" | jq -r '.[0].fair')" true
s0=$(sj_stats "$DEV_RS" | jq -c .stats)
run fair
s1=$(sj_stats "$DEV_RS" | jq -c .stats)
delta() { echo $(($(jq -r ".$1" <<<"$s1") - $(jq -r ".$1" <<<"$s0"))); }
check "fair: ping rise median (ms)" "$RISE" '<' 20
check "fair: signals" "$(delta signals)" '>' 0
check "fair: goodput (Mbit/s)" "$GOODPUT" '>=' 16
row "fair: ecn_mark / drops / expired / deferred" \
	"$(delta ecn_mark) / $(delta drops) / $(delta signals_expired) / $(delta signals_deferred)" "" info

finish fair_paced
