#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# sj-run: beside (nothing here is timed: tests/run.sh may run it beside
# another such test, in a bpffs of its own)
#
# How sojourn fails: every wrong use must exit non-zero with exactly one
# line on stderr, "sojourn: ...", that says what is wrong, and must leave
# nothing behind: no new folder under /sys/fs/bpf/sojourn, and
# `sojourn show -j -n NS` still prints what it printed before ([] when
# nothing is attached).  Also: usage, help, attach twice, change keeps the
# old settings on a bad value and keeps the counters on a good one, detach
# is idempotent.
#
# Topology: one network namespace with a veth pair in it; one end has a
# real queue (HTB 20mbit + pfifo), the other stays noqueue.
#
# Exit 0 pass, 77 skip, else fail.  SOJOURN= overrides the binary.
set -u

repo=$(cd "$(dirname "$0")/../.." && pwd)
SOJOURN=${SOJOURN:-$repo/build/sojourn}
PIN_ROOT=/sys/fs/bpf/sojourn
T=15				# seconds any single command may take

# log, skip, die and the other helpers every script shares
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"

[ "$(id -u)" = 0 ] || skip "needs root"
[ -x "$SOJOURN" ] || skip "$SOJOURN not built (make first)"
for t in ip tc jq timeout unshare setpriv nsenter mountpoint; do
	command -v "$t" >/dev/null || skip "$t not installed"
done
if ! mountpoint -q /sys/fs/bpf; then
	mount -t bpf bpf /sys/fs/bpf || skip "cannot mount bpffs"
fi
[ -r /sys/kernel/btf/vmlinux ] || skip "kernel has no BTF (/sys/kernel/btf/vmlinux)"

ID=$$
NS=sjerr$ID			# <= 12 chars
DQ=sje${ID}q			# has a qdisc   (<= 11 chars, fits IFNAMSIZ)
DN=sje${ID}n			# noqueue
IP_Q=198.18.0.1 IP_PEER=198.18.0.2
WORK=$(mktemp -d /tmp/sjerr.XXXXXX)
COOKIE=""			# our namespace's cookie, names our pin folders

sj() { timeout "$T" "$SOJOURN" "$@"; }
inns() { ip netns exec "$NS" "$@"; }

pins_list() { ls -1 "$PIN_ROOT" 2>/dev/null | sort; }
# Folders of our namespace only (<cookie>-<ifindex>-egress and attach's
# tmp-<pid>-<cookie>-<ifindex>), so tests running side by side do not
# disturb the comparison.  Without the cookie: every folder.
ours() {
	if [ -n "$COOKIE" ]; then
		grep -E "^(tmp-[0-9]+-)?$COOKIE-" || true
	else
		cat
	fi
}

# shellcheck disable=SC2317
cleanup() {
	local d
	if [ -e "/run/netns/$NS" ]; then
		for d in "$DQ" "$DN"; do
			timeout "$T" "$SOJOURN" detach "$d" -n "$NS" >/dev/null 2>&1
		done
		ip netns del "$NS" 2>/dev/null
	fi
	# whatever a misbehaving command left pinned for our namespace
	if [ -n "$COOKIE" ]; then
		for d in $(pins_list | ours); do
			rm -rf "${PIN_ROOT:?}/$d"
		done
	fi
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

setup_fail() { echo "FAIL: setup: $*"; exit 1; }

ip netns add "$NS" || setup_fail "ip netns add $NS"
ip -n "$NS" link add "$DQ" type veth peer name "$DN" || setup_fail "veth"
ip -n "$NS" link set lo up
ip -n "$NS" link set "$DQ" up || setup_fail "link up $DQ"
ip -n "$NS" link set "$DN" up || setup_fail "link up $DN"
inns tc qdisc add dev "$DQ" root handle 1: htb default 1 &&
inns tc class add dev "$DQ" parent 1: classid 1:1 htb rate 20mbit \
	quantum 1514 &&
inns tc qdisc add dev "$DQ" parent 1:1 handle 10: pfifo limit 1000 ||
	setup_fail "qdisc on $DQ"
inns tc qdisc show dev "$DN" | grep -q '^qdisc noqueue' ||
	setup_fail "$DN is not noqueue: $(inns tc qdisc show dev "$DN")"
# Traffic out of $DQ: an address on it and a permanent neighbour with the
# peer's MAC; the peer has no address, it just swallows the packets.
ip -n "$NS" addr add "$IP_Q/30" dev "$DQ" || setup_fail "address"
peer_mac=$(ip -n "$NS" -j link show dev "$DN" | jq -r '.[0].address')
ip -n "$NS" neigh add "$IP_PEER" lladdr "$peer_mac" dev "$DQ" nud permanent ||
	setup_fail "neighbour"
# send_packets N: N small UDP datagrams out of $DQ (bash's /dev/udp, no
# ping needed; nothing answers, the counter only needs them to leave)
send_packets() {
	# shellcheck disable=SC2016
	inns bash -c 'for ((i = 0; i < $1; i++)); do
		echo sojourn-errors >"/dev/udp/$2/9"; done' _ "$1" "$IP_PEER" 2>/dev/null
	sleep 0.2
}

# Our namespace's cookie (SO_NETNS_COOKIE = 71), if python3 is at hand.
if command -v python3 >/dev/null; then
	COOKIE=$(nsenter --net="/run/netns/$NS" python3 -c '
import socket, struct
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
print(struct.unpack("Q", s.getsockopt(socket.SOL_SOCKET, 71, 8))[0])' 2>/dev/null)
	[[ $COOKIE =~ ^[0-9]+$ ]] || COOKIE=""
fi
echo "netns $NS, devices $DQ (htb) $DN (noqueue), cookie ${COOKIE:-unknown}"

# The binary as nobody sees it: copy it where nobody can run it if needed.
SOJOURN_NOBODY=$SOJOURN
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all)
if ! "${NOBODY[@]}" test -x "$SOJOURN" 2>/dev/null; then
	chmod 755 "$WORK"
	cp "$SOJOURN" "$WORK/sojourn" && chmod 755 "$WORK/sojourn"
	SOJOURN_NOBODY=$WORK/sojourn
fi

# A case: each check of it says why REASON when it fails, then
# case_verdict NAME is the case's ok, or its bad with the reasons under it
# (common.sh's kit, FAILS counting the failed cases)
FAILED_NAMES=()
WHY=()				# reasons the current case fails
why() { WHY+=("$*"); }
case_verdict() {
	local w
	if [ ${#WHY[@]} -eq 0 ]; then
		ok "$1"
	else
		bad "$1"
		FAILED_NAMES+=("$1")
		for w in "${WHY[@]}"; do echo "      $w"; done
	fi
	WHY=()
}

# What must not change across a failing command: our pin folders and what
# show lists.  EXPECT_DEVS: the devices show must list (empty: "[]").
EXPECT_DEVS=""
BASE=""
snapshot() { BASE=$(pins_list | ours); }
show_json() { sj show -j -n "$NS" 2>"$WORK/show.err"; }
check_clean() {
	local now out devs d
	now=$(pins_list | ours)
	if [ "$now" != "$BASE" ]; then
		why "pin folders changed under $PIN_ROOT:"
		while read -r d; do why "  $d"; done < <(diff <(echo "$BASE") <(echo "$now") | grep '^[<>]')
	fi
	if ! out=$(show_json); then
		why "sojourn show -j -n $NS failed: $(cat "$WORK/show.err")"
	elif [ -z "$EXPECT_DEVS" ]; then
		[ "$out" = "[]" ] || why "show -j -n $NS printed '$out', expected []"
	else
		devs=$(jq -r '[.[].dev] | sort | join(" ")' <<<"$out" 2>/dev/null)
		[ "$devs" = "$EXPECT_DEVS" ] ||
			why "show -j -n $NS lists '$devs', expected '$EXPECT_DEVS': $out"
	fi
	for d in "$DQ" "$DN"; do
		inns tc qdisc show dev "$d" 2>/dev/null | grep -q clsact &&
			why "a clsact qdisc was left on $d"
	done
}

# check_error RC REGEX: the command failed, cleanly, with one telling line.
check_error() {
	local rc=$1 re=$2 n
	if [ "$rc" -eq 0 ]; then
		why "exit status 0, expected failure"
	elif [ "$rc" -eq 124 ]; then
		why "timed out after ${T}s"
	elif [ "$rc" -gt 124 ]; then
		why "exit status $rc (killed by a signal?)"
	fi
	n=$(grep -c '' "$WORK/err")
	if [ "$n" -ne 1 ]; then
		why "stderr has $n lines, expected exactly 1:"
		while IFS= read -r l; do why "  | $l"; done <"$WORK/err"
	elif ! grep -q '^sojourn: ' "$WORK/err"; then
		why "stderr does not start with 'sojourn: ': $(cat "$WORK/err")"
	elif ! grep -Eq -e "$re" "$WORK/err"; then
		why "stderr lacks /$re/: $(cat "$WORK/err")"
	fi
}

# expect_error NAME REGEX CMD...: CMD must fail as check_error says and
# leave everything as it was.
expect_error() {
	local name=$1 re=$2 rc
	shift 2
	snapshot
	"$@" >"$WORK/out" 2>"$WORK/err"
	rc=$?
	check_error "$rc" "$re"
	[ ${#WHY[@]} -eq 0 ] && echo "      rc $rc: $(cat "$WORK/err")"
	check_clean
	# a leak must not fail the cases after this one too
	[ ${#WHY[@]} -ne 0 ] && [ -z "$EXPECT_DEVS" ] && reset_state
	case_verdict "$name"
}

reset_state() {
	local d
	for d in "$DQ" "$DN"; do
		sj detach "$d" -n "$NS" >/dev/null 2>&1
	done
}

# expect_ok NAME CMD...: CMD must succeed with nothing on stderr
expect_ok() {
	local name=$1 rc
	shift
	"$@" >"$WORK/out" 2>"$WORK/err"
	rc=$?
	[ "$rc" -eq 0 ] || why "exit status $rc: $(cat "$WORK/err")"
	[ -s "$WORK/err" ] && [ "$rc" -eq 0 ] && why "stderr not empty: $(cat "$WORK/err")"
	case_verdict "$name"
	return "$rc"
}

# field DEV JQ: a field of DEV's entry in `show -s -j -n NS`
field() {
	sj show -s -j -n "$NS" 2>/dev/null |
		jq -r --arg d "$1" "[.[] | select(.dev == \$d)][0] | $2" 2>/dev/null
}

# ---- the command line itself ---------------------------------------------

sj >"$WORK/out" 2>"$WORK/err"
rc=$?
[ "$rc" -ne 0 ] || why "exit status 0 without arguments"
[ "$rc" -lt 124 ] || why "exit status $rc"
grep -q '^Usage: sojourn' "$WORK/err" || why "no usage on stderr: $(cat "$WORK/err")"
[ -s "$WORK/out" ] && why "stdout not empty: $(cat "$WORK/out")"
case_verdict "no arguments: usage on stderr, exit $rc"

sj help >"$WORK/out" 2>"$WORK/err"
rc=$?
[ "$rc" -eq 0 ] || why "exit status $rc"
grep -q '^Usage: sojourn' "$WORK/out" || why "no usage on stdout"
grep -q 'sojourn attach DEV' "$WORK/out" || why "usage lacks attach"
[ -s "$WORK/err" ] && why "stderr not empty: $(cat "$WORK/err")"
case_verdict "help: usage on stdout, exit 0"

expect_error "unknown command" 'unknown command' sj frobnicate "$DQ" -n "$NS"
expect_error "-n without a name" '-n needs' sj show -n
expect_error "attach without a device" 'needs a device' sj attach -n "$NS"
expect_error "change without a device" 'needs a device' sj change -n "$NS"
expect_error "detach without a device" 'usage' sj detach -n "$NS"

# ---- attach: wrong arguments ---------------------------------------------

expect_error "attach: unknown device" 'cannot find device' \
	sj attach nosuchdev0 -n "$NS"
nons=nosuchns
[ -e /run/netns/$nons ] && nons=nosuchns$ID
expect_error "attach: unknown netns" 'network namespace' \
	sj attach "$DQ" -n "$nons"
expect_error "attach: target 5xs" 'bad target' sj attach "$DQ" target 5xs -n "$NS"
expect_error "attach: target -5ms" 'bad target' sj attach "$DQ" target -5ms -n "$NS"
expect_error "attach: interval abc" 'bad interval' sj attach "$DQ" interval abc -n "$NS"
expect_error "attach: target 100ms interval 100ms" 'below' \
	sj attach "$DQ" target 100ms interval 100ms -n "$NS"
expect_error "attach: unknown option" 'unknown option' \
	sj attach "$DQ" frobnicate -n "$NS"
expect_error "attach: target without value" 'needs' sj attach "$DQ" -n "$NS" target
expect_error "attach: hook bogus" 'hook' sj attach "$DQ" hook bogus -n "$NS"
expect_error "attach: noqueue device" 'noqueue' sj attach "$DN" -n "$NS"

# ---- rate mode: wrong arguments -------------------------------------------

expect_error "attach: rate 0" 'rate must be between' sj attach "$DN" rate 0 -n "$NS"
expect_error "attach: rate 0mbit" 'rate must be between' sj attach "$DN" rate 0mbit -n "$NS"
expect_error "attach: rate -5mbit" 'bad rate' sj attach "$DN" rate -5mbit -n "$NS"
expect_error "attach: rate fast" 'bad rate' sj attach "$DN" rate fast -n "$NS"
expect_error "attach: rate 20mbps?" 'bad rate' sj attach "$DN" rate 20mbitz -n "$NS"
expect_error "attach: rate 1000tbit" 'rate must be between' \
	sj attach "$DN" rate 1000tbit -n "$NS"
expect_error "attach: rate without value" 'rate needs' sj attach "$DN" -n "$NS" rate
expect_error "attach: burst 1x" 'bad burst' sj attach "$DN" rate 1mbit burst 1x -n "$NS"
expect_error "attach: burst beyond the horizon" 'longer than the horizon' \
	sj attach "$DN" rate 1mbit burst 1mb horizon 100ms -n "$NS"
expect_error "attach: horizon below target" 'horizon must be above target' \
	sj attach "$DN" rate 1mbit horizon 1ms -n "$NS"
# above the target, but not the bulk's ceiling (8/9 of it: 4.9 ms)
expect_error "attach: horizon's bulk ceiling below target" 'horizon must be above target .* by an eighth' \
	sj attach "$DN" rate 1mbit horizon 5500us -n "$NS"
expect_error "attach: ingress without rate" 'ingress needs rate mode' \
	sj attach "$DN" ingress -n "$NS"
expect_error "attach: pace at ingress" 'pace is for egress' \
	sj attach "$DN" ingress rate 1mbit pace -n "$NS"
expect_error "attach: hook xdp at egress" 'xdp is for ingress' \
	sj attach "$DN" rate 1mbit hook xdp -n "$NS"
expect_error "attach: overhead -65" 'bad overhead' \
	sj attach "$DN" rate 1mbit overhead -65 -n "$NS"
expect_error "attach: overhead 257" 'bad overhead' \
	sj attach "$DN" rate 1mbit overhead 257 -n "$NS"
expect_error "attach: overhead 4b" 'bad overhead' \
	sj attach "$DN" rate 1mbit overhead 4b -n "$NS"
expect_error "attach: mpu 257" 'bad mpu' sj attach "$DN" rate 1mbit mpu 257 -n "$NS"
expect_error "attach: mpu -1" 'bad mpu' sj attach "$DN" rate 1mbit mpu -1 -n "$NS"
expect_error "attach: linklayer adsl2" 'bad linklayer' \
	sj attach "$DN" rate 1mbit linklayer adsl2 -n "$NS"
expect_error "attach: linklayer without rate" 'are for rate mode' \
	sj attach "$DQ" linklayer atm -n "$NS"
expect_error "attach: overhead 0 without rate" 'are for rate mode' \
	sj attach "$DQ" overhead 0 -n "$NS"
# an option that does not apply to the mode is refused, never ignored
# (burst without rate was accepted and did nothing)
for w in "burst 64kb" "horizon 100ms" pace nopace "mpu 64"; do
	# shellcheck disable=SC2086
	expect_error "attach: $w without rate" 'are for rate mode.*add rate RATE' \
		sj attach "$DQ" $w -n "$NS"
done
for w in fair nofair "quantum 3000" "sparse_class off"; do
	# shellcheck disable=SC2086
	expect_error "attach: rate with $w" 'for real-queue mode' \
		sj attach "$DN" rate 1mbit $w -n "$NS"
done
# one limit for horizon, as sojourn.conf's Horizon= has it
expect_error "attach: horizon 200s" 'horizon must be .*100s' \
	sj attach "$DN" rate 1mbit horizon 200s -n "$NS"
expect_error "attach: ce_threshold 500ns" 'ce_threshold must be between 1us' \
	sj attach "$DQ" ce_threshold 500ns -n "$NS"
expect_error "detach: bogus direction" 'usage' sj detach "$DN" sideways -n "$NS"

# ---- attach: the environment ---------------------------------------------

expect_error "attach: not root" 'CAP_|root' \
	timeout "$T" "${NOBODY[@]}" "$SOJOURN_NOBODY" attach "$DQ" -n "$NS"

# In a private mount namespace: take bpffs away, or hide the kernel's BTF.
# Exit 99 marks a setup failure of the test, not of sojourn.
expect_error "attach: no bpffs mounted" 'mount' \
	timeout "$T" unshare -m bash -c '
		while mountpoint -q /sys/fs/bpf; do
			umount /sys/fs/bpf 2>/dev/null || umount -l /sys/fs/bpf ||
				{ echo "test setup: cannot umount /sys/fs/bpf" >&2; exit 99; }
		done
		exec "$@"' _ "$SOJOURN" attach "$DQ" -n "$NS"
expect_error "attach: kernel without BTF" 'BTF' \
	timeout "$T" unshare -m bash -c '
		mount -t tmpfs none /sys/kernel/btf ||
			{ echo "test setup: cannot hide /sys/kernel/btf" >&2; exit 99; }
		exec "$@"' _ "$SOJOURN" attach "$DQ" -n "$NS"

# ---- change of a device that is not attached -----------------------------

expect_error "change: not attached" 'not attached' \
	sj change "$DQ" target 10ms -n "$NS"

# ---- attach twice ---------------------------------------------------------

snapshot
BASE0=$BASE
# real-queue mode sends sparse flows ahead by default (sparse_class auto);
# this tree's default class sits at the top, where no class may be added
# beside it: attach works and says so, in one line that names the way out
sj attach "$DQ" -n "$NS" >"$WORK/out" 2>"$WORK/err"
rc=$?
[ "$rc" -eq 0 ] || why "exit status $rc: $(cat "$WORK/err")"
[ "$(wc -l <"$WORK/err")" -eq 1 ] || why "not one line on stderr: $(cat "$WORK/err")"
grep -q "^sojourn: note: $DQ: sparse_class auto: no class for sparse flows to go ahead in: .*sparse_class CLASSID" "$WORK/err" ||
	why "no note naming sparse_class: $(cat "$WORK/err")"
case_verdict "attach $DQ with defaults: a note that sparse flows have no path ahead"
sj detach "$DQ" -n "$NS" >/dev/null 2>&1
if expect_ok "attach $DQ (for the cases below)" sj attach "$DQ" sparse_class off -n "$NS"; then
	EXPECT_DEVS=$DQ
	folder=$(comm -13 <(echo "$BASE0") <(pins_list | ours))
	t0=$(field "$DQ" .target)
	i0=$(field "$DQ" .interval)
	echo "      attached: target $t0 interval $i0, folder ${folder:-?}"

	expect_error "attach twice: already attached" 'already attached' \
		sj attach "$DQ" -n "$NS"
	[ "$(field "$DQ" .target)" = "$t0" ] || why "target changed"
	[ -n "$folder" ] && [ -d "$PIN_ROOT/$folder" ] ||
		why "pin folder ${folder:-?} is gone"
	send_packets 5
	p=$(field "$DQ" .stats.packets)
	[[ $p =~ ^[0-9]+$ ]] && [ "$p" -gt 0 ] ||
		why "the first attachment counts no packets (packets '$p')"
	case_verdict "attach twice: first attachment intact (target $t0, packets ${p:-?})"

	# ---- change with a bad value keeps the old settings -------------

	for args in "target 5xs|bad target" "target -5ms|bad target" \
	    "interval abc|bad interval" "target 100ms|below" \
	    "interval 5ms|below" "target|needs" "frobnicate|unknown option" \
	    "hook clsact|unknown option" "rate 10mbit|rate mode is chosen at attach" \
	    "overhead 4|are for rate mode" "linklayer atm|are for rate mode" \
	    "burst 64kb|are for rate mode" "horizon 1s|are for rate mode" \
	    "pace|are for rate mode" "flows 1|bad flows"; do
		re=${args#*|} args=${args%|*}
		# shellcheck disable=SC2086
		expect_error "change: $args" "$re" sj change "$DQ" $args -n "$NS"
		t=$(field "$DQ" .target) i=$(field "$DQ" .interval)
		[ "$t" = "$t0" ] && [ "$i" = "$i0" ] ||
			why "settings changed: target $t interval $i (were $t0 $i0)"
		case_verdict "change: $args keeps target $t0 interval $i0"
	done
	expect_error "change: unknown device" 'cannot find device' \
		sj change nosuchdev0 target 10ms -n "$NS"

	# ---- change that works keeps the counters -----------------------

	send_packets 10
	p1=$(field "$DQ" .stats.packets)
	if expect_ok "change $DQ target 10ms" sj change "$DQ" target 10ms -n "$NS"; then
		t=$(field "$DQ" .target) i=$(field "$DQ" .interval)
		p2=$(field "$DQ" .stats.packets)
		[ "$t" = 10000 ] || why "show -j target '$t', expected 10000"
		[ "$i" = "$i0" ] || why "interval '$i' changed (was $i0)"
		[[ $p1 =~ ^[0-9]+$ ]] && [ "$p1" -gt 0 ] ||
			why "no packets counted before the change ('$p1')"
		[[ $p2 =~ ^[0-9]+$ ]] && [[ $p1 =~ ^[0-9]+$ ]] && [ "$p2" -ge "$p1" ] ||
			why "packets went from '$p1' to '$p2' across change"
		send_packets 10
		p3=$(field "$DQ" .stats.packets)
		[[ $p3 =~ ^[0-9]+$ ]] && [[ $p2 =~ ^[0-9]+$ ]] && [ "$p3" -gt "$p2" ] ||
			why "no packets counted after the change ('$p2' -> '$p3')"
		[ "$(comm -13 <(echo "$BASE0") <(pins_list | ours))" = "$folder" ] ||
			why "pin folders changed"
		case_verdict "change: show -j target $t, packets $p1 -> $p2 -> ${p3:-?}"
	fi

	# ---- detach, twice --------------------------------------------------

	expect_ok "detach $DQ" sj detach "$DQ" -n "$NS"
	EXPECT_DEVS=""
	BASE=$BASE0
	check_clean
	case_verdict "detach $DQ: nothing left, show prints []"
	expect_ok "detach $DQ again (not attached)" sj detach "$DQ" -n "$NS"
	check_clean
	case_verdict "detach $DQ again: still nothing"
else
	why "attach failed: the attach-twice, change and detach cases were not run"
	case_verdict "attach-dependent cases"
fi

expect_error "detach: unknown device" 'cannot find' \
	sj detach nosuchdev0 -n "$NS"
expect_error "detach: unknown netns" 'network namespace' \
	sj detach "$DQ" -n "$nons"
expect_error "show: unknown device" 'cannot find' \
	sj show nosuchdev0 -n "$NS"

echo
[ ${#FAILED_NAMES[@]} = 0 ] || printf 'failed: %s\n' "${FAILED_NAMES[@]}"
verdict_end errors
