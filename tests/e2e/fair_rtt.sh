#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Mixed RTTs on one FIFO.  The bench topology (bench/lib/net.sh): client ->
# router (HTB 20mbit + pfifo 1000 toward the server) -> delay line ->
# server, with per-port delays: two cubic flows to port 5201 see a 10 ms
# base RTT, two to port 5202 an 80 ms one.  A FIFO, and CoDel alone, give
# the short flows most of the link; fairness (signals for the flows that
# hold more than the mean, an enqueue dropper for those that stay above it)
# must bring Jain's index of the four goodputs to 0.9 or more.
#
# Exit 0 pass, 77 skip, 1 fail.  SECS=, SOJOURN= override.

# shellcheck source=SCRIPTDIR/../../bench/lib/net.sh
. "$(dirname "$0")/../../bench/lib/net.sh"
net_require iperf3 jq
[ -x "$SOJOURN" ] || skip "$SOJOURN not built"

SECS=${SECS:-20}
DELAY_MS=20 DELAY_RULES="5201=5 5202=40"
cleanup() {
	[ -e "/run/netns/$NS_R" ] &&
		timeout 10 "$SOJOURN" detach "$DEV_RS" -n "$NS_R" >/dev/null 2>&1
	net_down
}
trap cleanup EXIT
trap 'exit 130' INT TERM

net_up
for ns in "$NS_C" "$NS_S"; do ip netns exec "$ns" sysctl -qw net.ipv4.tcp_ecn=1; done
htb_leaf "$NS_R" "$DEV_RS" 20mbit || die "cannot shape $DEV_RS"
for p in 5201 5202; do
	ins iperf3 -s -p $p -D >/dev/null 2>&1
	wait_listen "$NS_S" t $p
done

FAILS=0
report() { printf '%-44s %10s  %s\n' "$1" "$2" "$3"; }

# run TAG: 2 flows each way of delay; prints the 4 goodputs and Jain's index
run() {
	local tag=$1 p pids=""
	for p in 5201 5202; do
		inc timeout $((SECS + 30)) iperf3 -c "$IP_S" -p $p -P 2 -C cubic \
			-t "$SECS" -O 3 -J >"$WORK/$tag.$p.json" 2>/dev/null &
		pids="$pids $!"
	done
	# shellcheck disable=SC2086
	wait $pids	# not the delay line, which runs in the background too
	jq -s '[.[].end.streams[].receiver.bits_per_second / 1e6]' \
		"$WORK/$tag.5201.json" "$WORK/$tag.5202.json" >"$WORK/$tag.gp"
	GP=$(jq -r 'map(. * 100 | round / 100) | join(" ")' "$WORK/$tag.gp")
	JAIN=$(jq '(add * add) / (length * (map(. * .) | add)) | . * 1000 | round / 1000' \
		"$WORK/$tag.gp")
}

run fifo
report "fifo: goodputs 10ms 10ms 80ms 80ms (Mbit/s)" "" "$GP"
report "fifo: Jain's index" "$JAIN" info
sj() { timeout 15 "$SOJOURN" "$@"; }
sj attach "$DEV_RS" nofair -n "$NS_R" || die "attach"
run nofair
report "nofair: goodputs (Mbit/s)" "" "$GP"
report "nofair: Jain's index" "$JAIN" info
sj change "$DEV_RS" fair -n "$NS_R" || die "change fair"
run fair
report "fair: goodputs (Mbit/s)" "" "$GP"
if [[ $JAIN =~ ^[0-9.]+$ ]] && fcmp "$JAIN" '>=' 0.9; then
	report "fair: Jain's index" "$JAIN" ">= 0.9 ok"
else
	report "fair: Jain's index" "${JAIN:-none}" ">= 0.9 FAIL"
	FAILS=$((FAILS + 1))
fi
st=$(sj show "$DEV_RS" -s -j -n "$NS_R" | jq -c '.[0].stats')
report "fair: ecn_mark / drops / unresponsive_drops" \
	"$(jq -r '"\(.ecn_mark) / \(.drops) / \(.unresponsive_drops)"' <<<"$st")" info
[ "$FAILS" = 0 ] && { echo "PASS: fair_rtt"; exit 0; }
echo "FAIL: fair_rtt"
exit 1
