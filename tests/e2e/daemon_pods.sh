#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# The daemon keeps up with pods that come and go.  While `sojourn daemon`
# runs with a rule for veth<pid>p* (rate mode, both directions), 3 rounds
# of 50 "pods" (a namespace and a veth pair, host side veth<pid>pN) are
# created, then deleted:
#   - each pod's host veth is attached egress and ingress within 1 s of
#     `ip link set up`;
#   - within 1 s of deleting the veth its pin folders are gone, and at the
#     end nothing of ours is pinned;
#   - the daemon's RSS and open descriptors after the third round are those
#     after the first (flat: no per-pod leak);
#   - its log has one line per event, naming the device.
# Exit 0 pass, 77 skip, 1 fail.  SOJOURN= overrides the command.

# shellcheck source=SCRIPTDIR/../lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
topo_require sojourn

ID=$(( $$ % 10000000 ))
HOST=veth${ID}p		# + pod number: at most 15 characters
NS=sjpod$$-
PODS=${PODS:-50}
ROUNDS=${ROUNDS:-3}
WORK=$(mktemp -d "/tmp/sjpods.XXXXXX")
DPID=

cleanup() {
	local i
	[ -n "$DPID" ] && kill "$DPID" 2>/dev/null && wait "$DPID" 2>/dev/null
	for i in $(seq "$PODS"); do
		ip link del "$HOST$i" 2>/dev/null
		ip netns del "$NS$i" 2>/dev/null
		"$SOJOURN" detach "$HOST$i" >/dev/null 2>&1
		"$SOJOURN" detach "$HOST$i" ingress >/dev/null 2>&1
	done
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

cat >"$WORK/sojourn.conf" <<EOF
[Daemon]
StateFile=$WORK/attached

[Rule]
Name=$HOST*
Kind=veth
Rate=100mbit
Direction=both
EOF

"$SOJOURN" daemon --config "$WORK/sojourn.conf" 2>"$WORK/daemon.log" &
DPID=$!
for _ in $(seq 100); do
	grep -q 'ready' "$WORK/daemon.log" && break
	sleep 0.05
done
grep -q 'ready' "$WORK/daemon.log" || die "daemon not ready: $(cat "$WORK/daemon.log")"

now_ms() { date +%s%3N; }
# pins of the host device with this ifindex, both directions
pins_of() { ls -d "$SJ_PIN/$COOKIE-$1-egress" "$SJ_PIN/$COOKIE-$1-ingress" 2>/dev/null | wc -l; }
SJ_PIN=/sys/fs/bpf/sojourn
COOKIE=

rss_fd() {
	echo "$(awk '/^VmRSS/ { print $2 }' "/proc/$DPID/status") $(ls "/proc/$DPID/fd" | wc -l)"
}

worst_up=0 worst_down=0
declare -a idx
for round in $(seq "$ROUNDS"); do
	for i in $(seq "$PODS"); do
		ip netns add "$NS$i" || die "netns $NS$i"
		ip link add "$HOST$i" type veth peer name eth0 netns "$NS$i" ||
			die "veth $HOST$i"
		idx[i]=$(cat "/sys/class/net/$HOST$i/ifindex")
		t0=$(now_ms)
		ip link set "$HOST$i" up
		if [ -z "$COOKIE" ]; then
			for _ in $(seq 100); do
				COOKIE=$("$SOJOURN" show "$HOST$i" -j 2>/dev/null |
					jq -r '.[0].netns_cookie // empty')
				[ -n "$COOKIE" ] && break
				sleep 0.01
			done
			[ -n "$COOKIE" ] || die "$HOST$i never attached"
		fi
		while [ "$(pins_of "${idx[i]}")" != 2 ]; do
			[ $(( $(now_ms) - t0 )) -gt 1000 ] &&
				die "$HOST$i not attached both ways 1 s after up: $(tail -5 "$WORK/daemon.log")"
			sleep 0.01
		done
		dt=$(( $(now_ms) - t0 ))
		[ "$dt" -gt "$worst_up" ] && worst_up=$dt
	done
	[ "$round" = 1 ] && {
		"$SOJOURN" show "${HOST}1" -j | jq -e 'length == 2 and
			(map(.mode) | unique) == ["rate"] and
			(map(.direction) | sort) == ["egress", "ingress"] and
			(map(.rate) | unique) == [12500000]' >/dev/null ||
			die "attachments of ${HOST}1 are not rate 100mbit both ways"
	}
	for i in $(seq "$PODS"); do
		t0=$(now_ms)
		ip link del "$HOST$i"
		while [ "$(pins_of "${idx[i]}")" != 0 ]; do
			[ $(( $(now_ms) - t0 )) -gt 1000 ] &&
				die "pins of $HOST$i still there 1 s after deletion"
			sleep 0.01
		done
		dt=$(( $(now_ms) - t0 ))
		[ "$dt" -gt "$worst_down" ] && worst_down=$dt
		ip netns del "$NS$i"
	done
	kill -0 "$DPID" 2>/dev/null || die "daemon died: $(tail -5 "$WORK/daemon.log")"
	sleep 0.3	# let the last events land before measuring
	read -r rss fds <<<"$(rss_fd)"
	log "round $round: $((round * PODS)) pods; worst attach ${worst_up} ms, worst pin removal ${worst_down} ms; daemon RSS ${rss} kB, ${fds} fds"
	[ "$round" = 1 ] && { rss1=$rss fds1=$fds; }
done

# nothing of ours left pinned
left=$(for d in "$SJ_PIN/$COOKIE"-*; do
	[ -e "$d/meta" ] || continue
	"$SOJOURN" show -j | jq -r --arg h "$HOST" '.[] | select(.dev | startswith($h)) | .pin'
	break
done | sort -u)
[ -z "$left" ] || die "still pinned after the pods went: $left"
[ "$fds" = "$fds1" ] || die "daemon descriptors grew: $fds1 -> $fds"
[ $((rss - rss1)) -le 128 ] || die "daemon RSS grew: $rss1 kB -> $rss kB"

n_att=$(grep -c "$HOST[0-9]*: attached" "$WORK/daemon.log")
n_gone=$(grep -c "$HOST[0-9]*: gone" "$WORK/daemon.log")
[ "$n_att" = $((2 * PODS * ROUNDS)) ] ||
	die "expected $((2 * PODS * ROUNDS)) attach lines, got $n_att"
[ "$n_gone" = $((PODS * ROUNDS)) ] ||
	die "expected $((PODS * ROUNDS)) gone lines, got $n_gone"
grep -v 'ready' "$WORK/daemon.log" | grep -qv "^sojourn: $HOST[0-9]*: " &&
	die "log lines without a device: $(grep -v 'ready' "$WORK/daemon.log" | grep -v "^sojourn: $HOST[0-9]*: " | head -3)"
echo "PASS: $((PODS * ROUNDS)) pods; attach <= ${worst_up} ms, pins gone <= ${worst_down} ms; RSS ${rss1} -> ${rss} kB, fds ${fds1} -> ${fds}"
