#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# sj-run: beside (nothing here is timed: tests/run.sh may run it beside
# another such test, in a bpffs of its own)
#
# Reload, bad reload, restart and stop of `sojourn daemon`, under traffic.
# A pod namespace behind veth<id>r (the daemon's, rate 50mbit both ways),
# and veth<id>m attached by hand with target 7ms, which the rule matches
# too.  A TCP upload from the host to the pod runs throughout.
#   - SIGHUP with Target=2ms: both attachments of veth<id>r show 2ms, their
#     tcx link ids are the ones from before (no detach), the packet counter
#     went on growing; veth<id>m keeps its 7ms ("left alone");
#   - SIGHUP with an unknown key: refused with file, line and key, the
#     daemon runs on with 2ms;
#   - SIGTERM, then a new daemon (--detach-on-exit): it adopts, attaches
#     nothing, link ids unchanged, counters still growing;
#   - its SIGTERM detaches veth<id>r both ways and leaves veth<id>m.
# Exit 0 pass, 77 skip, 1 fail.  SOJOURN= overrides the command.

# shellcheck source=SCRIPTDIR/../lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
topo_require sojourn bpftool

ID=$(( $$ % 10000000 ))
R=veth${ID}r M=veth${ID}m NSP=sjrl$$
WORK=$(mktemp -d "/tmp/sjreload.XXXXXX")
DPID= CLIENT=

cleanup() {
	[ -n "$DPID" ] && kill "$DPID" 2>/dev/null && wait "$DPID" 2>/dev/null
	# the upload runs in our namespace: a failed run must not leave it
	# (iperf3 spins when its server's namespace goes)
	[ -n "$CLIENT" ] && kill "$CLIENT" 2>/dev/null
	for d in "$R" "$M"; do
		"$SOJOURN" detach "$d" >/dev/null 2>&1
		"$SOJOURN" detach "$d" ingress >/dev/null 2>&1
		ip link del "$d" 2>/dev/null
	done
	if [ -e "/run/netns/$NSP" ]; then
		pids=$(ip netns pids "$NSP")
		# shellcheck disable=SC2086
		[ -n "$pids" ] && kill $pids 2>/dev/null
		ip netns del "$NSP"
	fi
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ip netns add "$NSP" || die "netns"
ip link add "$R" type veth peer name eth0 netns "$NSP" || die "veth $R"
ip link add "$M" type veth peer name eth1 netns "$NSP" || die "veth $M"
ip addr add 198.18.90.1/30 dev "$R"
ip -n "$NSP" addr add 198.18.90.2/30 dev eth0
ip link set "$R" up; ip link set "$M" up
ip -n "$NSP" link set eth0 up; ip -n "$NSP" link set lo up
"$SOJOURN" attach "$M" rate 50mbit target 7ms || die "attach $M by hand"

conf() {
	cat >"$WORK/sojourn.conf" <<EOF
# test configuration
[Daemon]
StateFile=$WORK/attached

[Rule]
Name=$R $M
Kind=veth
Rate=50mbit
Direction=both
Target=$1
$2
EOF
}

start() {
	: >"$WORK/daemon.log"
	"$SOJOURN" daemon --config "$WORK/sojourn.conf" "$@" 2>"$WORK/daemon.log" &
	DPID=$!
	for _ in $(seq 100); do
		grep -q 'ready' "$WORK/daemon.log" && return 0
		sleep 0.05
	done
	die "daemon not ready: $(cat "$WORK/daemon.log")"
}

stop() {
	kill "$DPID"; wait "$DPID"; DPID=
}

# wait_log PATTERN COUNT: COUNT lines matching PATTERN within 3 s
wait_log() {
	for _ in $(seq 60); do
		[ "$(grep -c "$1" "$WORK/daemon.log")" -ge "$2" ] && return 0
		sleep 0.05
	done
	die "no \"$1\" in the log: $(cat "$WORK/daemon.log")"
}

link_ids() {
	local dir
	for dir in $("$SOJOURN" show "$R" -j | jq -r '.[].pin' | sort); do
		bpftool link show pinned "$dir/link_egress" -j | jq -r .id
	done | tr '\n' ' '
}
targets() { "$SOJOURN" show "$1" -j | jq -r '[.[].target] | sort | join(" ")'; }
packets() { "$SOJOURN" show "$R" -s -j | jq '.[] | select(.direction == "egress") | .stats.packets'; }

conf 5ms
start
wait_log "$R: attached" 2
wait_log "$M: egress attached by hand: left alone" 1
[ "$(targets "$R")" = "5000 5000" ] || die "$R targets: $(targets "$R")"
ids=$(link_ids)
[ -n "$ids" ] && [ "$(wc -w <<<"$ids")" = 2 ] || die "link ids of $R: '$ids'"

ip netns exec "$NSP" iperf3 -s -1 -B 198.18.90.2 -p 5301 >/dev/null 2>&1 &
for _ in $(seq 50); do
	ip netns exec "$NSP" ss -Hltn 'sport = :5301' | grep -q . && break
	sleep 0.1
done
nice -n 10 iperf3 -c 198.18.90.2 -p 5301 -C cubic -t 14 >"$WORK/iperf.log" 2>&1 &
CLIENT=$!
sleep 2
p1=$(packets)

# reload: a new target, retuned in place
conf 2ms
kill -HUP "$DPID"
wait_log "$R: replaced" 2
[ "$(targets "$R")" = "2000 2000" ] || die "after reload $R targets: $(targets "$R")"
[ "$(link_ids)" = "$ids" ] || die "reload replaced the links: $ids -> $(link_ids)"
[ "$(targets "$M")" = "7000" ] || die "reload touched $M: $(targets "$M")"
sleep 1
p2=$(packets)
[ "$p2" -gt "$p1" ] || die "counter did not grow across the reload: $p1 -> $p2"
log "reload: target 5ms -> 2ms, links $ids kept, packets $p1 -> $p2"

# a bad reload is refused, naming file, line and key
conf 2ms "Bogus=1"
kill -HUP "$DPID"
wait_log "reload refused" 1
grep -q "sojourn.conf:11: Bogus: unknown key" "$WORK/daemon.log" ||
	die "bad reload not named by file, line and key: $(cat "$WORK/daemon.log")"
kill -0 "$DPID" || die "daemon died of a bad reload"
[ "$(targets "$R")" = "2000 2000" ] || die "bad reload changed $R: $(targets "$R")"
conf 2ms

# restart: the new daemon adopts
stop
[ "$(link_ids)" = "$ids" ] || die "stop without --detach-on-exit lost the links"
start --detach-on-exit
wait_log "$R: adopted" 2
grep -q "$R: attached" "$WORK/daemon.log" && die "restart re-attached: $(cat "$WORK/daemon.log")"
[ "$(link_ids)" = "$ids" ] || die "restart replaced the links: $ids -> $(link_ids)"
[ "$(targets "$R")" = "2000 2000" ] || die "after restart $R targets: $(targets "$R")"
sleep 1
p3=$(packets)
[ "$p3" -gt "$p2" ] || die "counter did not grow across the restart: $p2 -> $p3"
log "restart: adopted, links $ids kept, packets $p2 -> $p3"

# stop with --detach-on-exit: ours go, the hand-made one stays
stop
[ "$("$SOJOURN" show "$R" -j | jq length)" = 0 ] || die "$R still attached after --detach-on-exit"
[ "$(targets "$M")" = "7000" ] || die "$M was touched by the daemon's stop"
wait
CLIENT=
grep -q 'receiver' "$WORK/iperf.log" || die "iperf3 upload did not finish: $(tail -3 "$WORK/iperf.log")"
echo "PASS: reload in place (links $ids), bad reload refused, restart adopted, stop detached ours only"
