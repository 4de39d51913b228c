#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# sj-run: beside (nothing here is timed: tests/run.sh may run it beside
# another such test, in a bpffs of its own)
#
# Rules with Netns=: the daemon watches named namespaces as they appear.
# A rule for eth0 in namespaces sjns<pid>*; a namespace made after the
# daemon started gets its eth0 attached (within 2 s: the daemon looks at
# /run/netns once a second); `ip netns del` then removes its pins, and the
# daemon lets go of the namespace, so it really dies (its veth peer in our
# namespace goes with it).  A namespace the rule does not name is ignored.
# Exit 0 pass, 77 skip, 1 fail.  SOJOURN= overrides the command.

# shellcheck source=SCRIPTDIR/../lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
topo_require sojourn

A=sjns$$a B=sjother$$ HA=sjh$$a HB=sjh$$b
WORK=$(mktemp -d "/tmp/sjnetns.XXXXXX")
DPID=
cleanup() {
	[ -n "$DPID" ] && kill "$DPID" 2>/dev/null && wait "$DPID" 2>/dev/null
	for n in "$A" "$B"; do
		"$SOJOURN" detach eth0 -n "$n" >/dev/null 2>&1
		ip netns del "$n" 2>/dev/null
	done
	ip link del "$HA" 2>/dev/null; ip link del "$HB" 2>/dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

cat >"$WORK/sojourn.conf" <<EOF
[Daemon]
StateFile=$WORK/attached
[Rule]
Netns=sjns$$*
Name=eth0
Rate=10mbit
EOF
"$SOJOURN" daemon --config "$WORK/sojourn.conf" 2>"$WORK/daemon.log" &
DPID=$!
for _ in $(seq 100); do grep -q ready "$WORK/daemon.log" && break; sleep 0.05; done

for n in "$A" "$B"; do
	ip netns add "$n" || die "netns $n"
done
ip link add "$HA" type veth peer name eth0 netns "$A" || die "veth in $A"
ip link add "$HB" type veth peer name eth0 netns "$B" || die "veth in $B"
t0=$(date +%s%3N)
ip -n "$A" link set eth0 up; ip -n "$B" link set eth0 up
until [ "$("$SOJOURN" show eth0 -n "$A" -j | jq length)" = 1 ]; do
	[ $(( $(date +%s%3N) - t0 )) -gt 2000 ] &&
		die "eth0 in $A not attached 2 s after up: $(cat "$WORK/daemon.log")"
	sleep 0.05
done
dt=$(( $(date +%s%3N) - t0 ))
"$SOJOURN" show eth0 -n "$A" -j | jq -e '.[0].mode == "rate" and .[0].netns == "'"$A"'"' >/dev/null ||
	die "attachment in $A: $("$SOJOURN" show eth0 -n "$A" -j)"
[ "$("$SOJOURN" show eth0 -n "$B" -j | jq length)" = 0 ] || die "the daemon attached in $B"
grep -q "$A/eth0: attached egress" "$WORK/daemon.log" || die "log does not name $A/eth0"
pin=$("$SOJOURN" show eth0 -n "$A" -j | jq -r '.[0].pin')

ip netns del "$A"
for _ in $(seq 40); do [ -e "$pin" ] || break; sleep 0.05; done
[ -e "$pin" ] && die "pins of $A/eth0 left after ip netns del"
# the namespace dies only when nobody holds it; its veth pair goes with it
for _ in $(seq 100); do [ -e "/sys/class/net/$HA" ] || break; sleep 0.05; done
[ -e "/sys/class/net/$HA" ] && die "namespace $A kept alive (its veth $HA is still here)"
grep -q "namespace $A gone" "$WORK/daemon.log" || die "no log line for $A going"
kill -0 "$DPID" || die "daemon died"
echo "PASS: eth0 in a new namespace attached in ${dt} ms; its pins went with it, and the namespace died"
