#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Rate mode's accuracy with the clock shared by two CPUs.  Two UDP senders,
# pinned to CPU 0 and CPU 1, offer 1.5x RATE together through the client's
# egress, where sojourn polices at RATE.  The server's receive counter over
# a steady window (after the horizon's one-off excess) must lie within 2% of
# RATE: a lost update of the shared clock would let more through.
# RATE = 10mbit, 100mbit, 1gbit; a rate the senders cannot offer here is
# reported, not judged.
#
# Exit 0 pass, 77 skip, 1 fail.  SOJOURN= overrides.

# shellcheck source=SCRIPTDIR/../lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
topo_require sojourn taskset

[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs"
WINDOW=${WINDOW:-8}
topo_trap "$NS_C:$DEV_C"

topo_up 1
topo_servers 5201 5202

rx_bytes() { ins cat "/sys/class/net/$DEV_S/statistics/rx_bytes"; }

# police MBIT: prints the rate (Mbit/s) the server received in the window
# and the rate the senders offered, as "got offered"
police() {
	local mbit=$1 each a b t0 t1 s1 s2
	each=$((mbit * 3 / 4))
	for s in 0 1; do
		inc taskset -c $s iperf3 -c "$IP_S" -p $((5201 + s)) -u -l 1472 \
			-b "${each}M" -t $((WINDOW + 4)) -J \
			>"$WORK/udp$mbit.$s.json" 2>"$WORK/udp$mbit.$s.err" &
	done
	sleep 2.5
	a=$(rx_bytes); t0=$(date +%s.%N)
	sleep "$WINDOW"
	b=$(rx_bytes); t1=$(date +%s.%N)
	wait
	s1=$(jq '.end.sum.bits_per_second // 0' "$WORK/udp$mbit.0.json")
	s2=$(jq '.end.sum.bits_per_second // 0' "$WORK/udp$mbit.1.json")
	awk -v a="$a" -v b="$b" -v t0="$t0" -v t1="$t1" -v s1="$s1" -v s2="$s2" \
		'BEGIN{printf "%.3f %.1f\n", (b - a) * 8 / (t1 - t0) / 1e6, (s1 + s2) / 1e6}'
}

judged=0
for mbit in 10 100 1000; do
	sj attach "$DEV_C" rate "${mbit}mbit" -n "$NS_C" || die "attach at ${mbit}mbit"
	read -r got offered < <(police "$mbit")
	stats=$(sj show "$DEV_C" -s -j -n "$NS_C" | jq -c '.[0].stats')
	sj detach "$DEV_C" -n "$NS_C" || die "detach"
	row "${mbit} Mbit: offered by 2 senders (Mbit/s)" "$offered" "" info
	if ! fcmp "$offered" '>=' "$(awk -v m="$mbit" 'BEGIN{print m * 1.2}')"; then
		row "${mbit} Mbit: received (Mbit/s)" "$got" "" "not judged: senders too slow here"
		continue
	fi
	judged=$((judged + 1))
	check "${mbit} Mbit: received % of rate" \
		"$(awk -v g="$got" -v m="$mbit" 'BEGIN{printf "%.2f", g / m * 100}')" '>=' 98
	check "${mbit} Mbit: received % of rate" \
		"$(awk -v g="$got" -v m="$mbit" 'BEGIN{printf "%.2f", g / m * 100}')" '<=' 102
	check "${mbit} Mbit: packets policed (drops + drop_overlimit)" \
		"$(jq '.drops + .drop_overlimit' <<<"$stats")" '>' 0
done
check "rates judged" "$judged" '>=' 2

finish rate_accuracy
