#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# sj-run: beside (nothing here is timed: tests/run.sh may run it beside
# another such test, in a bpffs of its own)
#
# sojourn.conf errors and the systemd notify protocol.
#   - Each bad file is refused, by `daemon --check` and by a real start,
#     with one line naming file, line and key; nothing gets attached.
#     Keys out of their mode (Burst= without Rate=, Fair= with it) and
#     values past the command line's limits (Horizon=200s) are refused.
#   - Per-direction keys (EgressRate=, IngressTarget=, ...): a plain key
#     beside the same setting for one direction is refused, as is a
#     prefixed key for a direction Direction= leaves out; the prefixed keys
#     alone pick the directions.
#   - A file that passes attaches as it says, Horizon= at its limit (100s);
#     an asymmetric rule (EgressRate= and IngressRate=, Interval= for both,
#     EgressTarget=/IngressTarget=) attaches each direction with its own values.
#   - With NOTIFY_SOCKET (a socket this test listens on; there is no systemd
#     here) and WATCHDOG_USEC: READY=1 comes once the first scan has
#     attached the interface that was already there (its STATUS= says so),
#     WATCHDOG=1 comes at half the watchdog time, SIGHUP sends RELOADING=1
#     with MONOTONIC_USEC= (CLOCK_MONOTONIC, between the signal and its
#     receipt: what Type=notify-reload needs) then READY=1, and at READY=1
#     the edited file is in force; SIGTERM sends STOPPING=1.
# Exit 0 pass, 77 skip, 1 fail.  SOJOURN= overrides the command.

# shellcheck source=SCRIPTDIR/../lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
topo_require sojourn python3

ID=$(( $$ % 10000000 ))
DEV=veth${ID}n
WORK=$(mktemp -d "/tmp/sjconf.XXXXXX")
DPID= LPID=
cleanup() {
	[ -n "$DPID" ] && kill "$DPID" 2>/dev/null && wait "$DPID" 2>/dev/null
	[ -n "$LPID" ] && kill "$LPID" 2>/dev/null
	"$SOJOURN" detach "$DEV" >/dev/null 2>&1
	"$SOJOURN" detach "$DEV" ingress >/dev/null 2>&1
	ip link del "$DEV" 2>/dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ip link add "$DEV" type veth peer name "${DEV}x" || die "veth"
ip link set "$DEV" up
C=$WORK/sojourn.conf

# bad_conf FILE-CONTENT EXPECTED: refused, one line, naming what EXPECTED says
bad_conf() {
	printf "$1" >"$C"
	local out rc
	out=$("$SOJOURN" daemon --config "$C" --check 2>&1); rc=$?
	[ "$rc" != 0 ] || die "accepted: $(printf "$1" | tr '\n' '|')"
	[ "$(wc -l <<<"$out")" = 1 ] || die "more than one line for $(printf "$1" | tr '\n' '|'): $out"
	grep -qF -- "$C:$2" <<<"$out" || die "expected '$C:$2', got: $out"
	# a real start refuses too, before attaching anything
	out=$(timeout 5 "$SOJOURN" daemon --config "$C" 2>&1); rc=$?
	[ "$rc" = 1 ] || die "daemon started (rc $rc) on: $(printf "$1" | tr '\n' '|')"
	grep -qF -- "$C:$2" <<<"$out" || die "start: expected '$C:$2', got: $out"
	log "refused: $out"
	NBAD=$((NBAD + 1))
}
NBAD=0

R="[Rule]\nName=$DEV\n"
bad_conf "${R}Target=5x\n"				"3: Target: bad time \"5x\""
bad_conf "${R}Colour=red\n"				"3: Colour: unknown key"
bad_conf "[Daemon]\nDetachOnExit=maybe\n"		"2: DetachOnExit: \"maybe\" is not yes or no"
bad_conf "[Bogus]\nA=b\n"				"2: A: unknown section"
bad_conf "${R}this is not ini\n"			"3: syntax error"
bad_conf "${R}Target=200ms\nInterval=100ms\n"		"4: Interval: target (200ms) must be below interval (100ms)"
bad_conf "${R}\nDirection=ingress\n"			"4: Direction: ingress needs rate mode"
bad_conf "${R}Rate=0\n"					"3: Rate: 0 is outside"
bad_conf "${R}Rate=fast\n"				"3: Rate: bad rate"
bad_conf "${R}Direction=up\n"				"3: Direction: \"up\" is not egress, ingress or both"
bad_conf "${R}Rate=1mbit\nHook=xdp\n"			"4: Hook: xdp is an ingress hook"
bad_conf "${R}Rate=1mbit\nOverhead=-65\n"		"4: Overhead: \"-65\" is not a number of bytes"
bad_conf "${R}Rate=1mbit\nMPU=300\n"			"4: MPU: \"300\" is not a number of bytes"
bad_conf "${R}Rate=1mbit\nLinkLayer=adsl\n"		"4: LinkLayer: \"adsl\" is not ethernet, atm or ptm"
bad_conf "${R}LinkLayer=atm\n"				"3: LinkLayer: is for rate mode"
# a key that does not apply to the mode is refused at its line, as the
# command line refuses the word (Burst= without Rate= did nothing)
bad_conf "${R}Burst=64kb\n"				"3: Burst: is for rate mode"
bad_conf "${R}Horizon=100ms\n"				"3: Horizon: is for rate mode"
bad_conf "${R}Pace=no\n"				"3: Pace: is for rate mode"
bad_conf "${R}Overhead=8\n"				"3: Overhead: is for rate mode"
bad_conf "${R}Rate=1mbit\nFair=yes\n"			"4: Fair: is for real-queue mode"
bad_conf "${R}Rate=1mbit\nQuantum=3000\n"		"4: Quantum: is for real-queue mode"
bad_conf "${R}Rate=1mbit\nSparseClass=off\n"		"4: SparseClass: is for real-queue mode"
bad_conf "${R}Observe=yes\nTarget=5ms\n"		"4: Target: does not apply to Observe=yes"
# the command line's limits: Horizon= took up to 1 h here, attach 100 s,
# so --check passed a file the daemon's attach then refused
bad_conf "${R}Rate=1mbit\nHorizon=200s\n"		"4: Horizon: 200s is outside 1us..100s"
bad_conf "${R}CEThreshold=500ns\n"			"3: CEThreshold: 500ns is outside 1us..100s"
bad_conf "${R}Rate=1mbit\nBurst=1mb\nHorizon=100ms\n"	"5: Horizon: burst 1Mb takes"
bad_conf "${R}Rate=1mbit\nDirection=ingress\nPace=yes\n" "5: Pace: pace is for egress only"
bad_conf "Name=x\n"					"1: Name: key outside a section"
# per direction: one setting is given for every direction or for each
bad_conf "${R}Rate=1mbit\nIngressRate=2mbit\n"		"4: IngressRate: not with Rate= in the same rule"
bad_conf "${R}EgressTarget=3ms\nTarget=4ms\n"		"4: Target: not with EgressTarget= in the same rule"
bad_conf "${R}Direction=egress\nIngressRate=2mbit\n"	"4: IngressRate: IngressRate= is for ingress, which Direction=egress leaves out"
bad_conf "${R}IngressRate=2mbit\nDirection=egress\n"	"4: Direction: IngressRate= is for ingress"
bad_conf "${R}EgressRate=2mbit\nDirection=both\n"	"4: Direction: ingress needs rate mode: the packets have no queue of ours to measure (give IngressRate=)"
bad_conf "${R}EgressRate=2mbit\nIngressRate=1mbit\nIngressBurst=1mb\n" "5: IngressBurst: burst 1Mb takes"
bad_conf "${R}IngressFair=no\nIngressRate=1mbit\n"	"3: IngressFair: is for real-queue mode"
bad_conf "${R}EgressHook=xdp\n"				"3: EgressHook: xdp is an ingress hook"
bad_conf "${R}IngressColour=red\n"			"3: IngressColour: unknown key"
# two [Rule] in a row are two rules: the second one matches nothing
bad_conf "[Rule]\nKind=veth\n[Rule]\nRate=1mbit\n"	"3: [Rule]: needs Name= or Kind="
out=$("$SOJOURN" daemon --config "$WORK/none.conf" --check 2>&1) &&
	die "a missing file was accepted"
grep -q "cannot read config $WORK/none.conf" <<<"$out" || die "missing file: $out"
[ -z "$(ls /sys/fs/bpf/sojourn/ 2>/dev/null | while read -r d; do
	"$SOJOURN" show "$DEV" -j 2>/dev/null | jq -r '.[].pin'; break; done)" ] ||
	die "a refused config attached something"

# an asymmetric link is one rule: each direction its own rate and target,
# Interval= and Overhead= for both; the prefixed keys pick both directions
cat >"$C" <<EOF
[Daemon]
StateFile=$WORK/attached
DetachOnExit=yes

[Rule]
Name=$DEV
EgressRate=20mbit
IngressRate=100mbit
Overhead=18
Interval=80ms
EgressTarget=4ms
IngressTarget=2ms
IngressHorizon=150ms
EOF
"$SOJOURN" daemon --config "$C" --check || die "asymmetric rule refused"
"$SOJOURN" daemon --config "$C" 2>"$WORK/daemon.log" &
DPID=$!
for _ in $(seq 100); do [ "$("$SOJOURN" show "$DEV" -j 2>/dev/null | jq length)" = 2 ] && break; sleep 0.05; done
got=$("$SOJOURN" show "$DEV" -j | jq -c 'sort_by(.direction) | [.[] | [.direction, .rate, .target, .interval, .horizon, .overhead]]')
want='[["egress",2500000,4000,80000,225000,18],["ingress",12500000,2000,80000,150000,18]]'
[ "$got" = "$want" ] || die "asymmetric rule: got $got, want $want ($(cat "$WORK/daemon.log"))"
kill "$DPID"; wait "$DPID"; DPID=
[ "$("$SOJOURN" show "$DEV" -j | jq length)" = 0 ] || die "DetachOnExit=yes left $DEV attached"
log "asymmetric rule: $got"

# the notify protocol
cat >"$C" <<EOF
[Daemon]
StateFile=$WORK/attached
DetachOnExit=yes

[Rule]
Name=$DEV
Rate=10mbit
Direction=both
Burst=16kb
Horizon=100s
Overhead=8
MPU=64
LinkLayer=ptm
Target=2ms
Interval=50ms
EOF
"$SOJOURN" daemon --config "$C" --check || die "good config refused"
SOCK=$WORK/notify
python3 - "$SOCK" >"$WORK/notify.log" <<'EOF' &
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
while True:
    m = s.recv(4096).decode()
    # each message, then when it came in: CLOCK_MONOTONIC microseconds
    print(m.replace("\n", "|") + " @" + str(time.clock_gettime_ns(time.CLOCK_MONOTONIC) // 1000), flush=True)
EOF
LPID=$!
for _ in $(seq 50); do [ -S "$SOCK" ] && break; sleep 0.05; done
[ -S "$SOCK" ] || die "listener did not start"

NOTIFY_SOCKET=$SOCK WATCHDOG_USEC=300000 "$SOJOURN" daemon --config "$C" 2>"$WORK/daemon.log" &
DPID=$!
for _ in $(seq 100); do grep -q 'READY=1' "$WORK/notify.log" && break; sleep 0.05; done
ready=$(grep -m1 'READY=1' "$WORK/notify.log") || die "no READY=1: $(cat "$WORK/daemon.log")"
grep -q 'STATUS=2 attached' <<<"$ready" ||
	die "READY=1 before the first scan attached $DEV both ways: $ready"
[ "$("$SOJOURN" show "$DEV" -j | jq length)" = 2 ] || die "$DEV not attached at READY"
# what --check passed, attach took as the file says, Horizon= at its limit
got=$("$SOJOURN" show "$DEV" -j | jq -c '[.[] | [.horizon, .burst, .linklayer, .mpu, .target, .interval]] | unique')
[ "$got" = '[[100000000,16384,"ptm",64,2000,50000]]' ] || die "the rule's settings, both ways: $got"
n0=$(grep -c '^WATCHDOG=1 @' "$WORK/notify.log")
sleep 1.2
n1=$(grep -c '^WATCHDOG=1 @' "$WORK/notify.log")
[ $((n1 - n0)) -ge 5 ] || die "WATCHDOG=1 $((n1 - n0)) times in 1.2 s (want every 150 ms)"
# an edit the reload must have put in force by its READY=1
sed -i 's/^Target=2ms$/Target=3ms/' "$C"
before=$(python3 -c 'import time; print(time.clock_gettime_ns(time.CLOCK_MONOTONIC) // 1000)')
kill -HUP "$DPID"
for _ in $(seq 250); do
	awk '/^RELOADING=1/ { r = 1 } r && /^READY=1/ { ok = 1 } END { exit !ok }' "$WORK/notify.log" && break
	sleep 0.02
done
reloading=$(grep -m1 '^RELOADING=1' "$WORK/notify.log") ||
	die "no RELOADING=1: $(grep -v WATCHDOG "$WORK/notify.log")"
awk '/^RELOADING=1/ { r = 1 } r && /^READY=1/ { ok = 1 } END { exit !ok }' "$WORK/notify.log" ||
	die "no READY=1 after RELOADING=1: $(grep -v WATCHDOG "$WORK/notify.log")"
[ "$("$SOJOURN" show "$DEV" -j | jq -c '[.[].target] | unique')" = '[3000]' ] ||
	die "READY=1 came before the edit was in force: $("$SOJOURN" show "$DEV" -j | jq -c '[.[].target]')"
mono=$(sed -n 's/.*|MONOTONIC_USEC=\([0-9]*\).*/\1/p' <<<"$reloading")
recv=${reloading##* @}
[ -n "$mono" ] || die "RELOADING=1 without MONOTONIC_USEC=: $reloading"
[ "$mono" -ge "$before" ] && [ "$mono" -le "$recv" ] ||
	die "MONOTONIC_USEC=$mono is not between the SIGHUP ($before) and its receipt ($recv)"
kill "$DPID"; wait "$DPID"; rc=$?; DPID=
[ "$rc" = 0 ] || die "daemon exit status $rc"
sleep 0.2
grep -q '^STOPPING=1 @' "$WORK/notify.log" || die "no STOPPING=1"
[ "$("$SOJOURN" show "$DEV" -j | jq length)" = 0 ] || die "DetachOnExit=yes left $DEV attached"
log "notify: $(grep -v WATCHDOG "$WORK/notify.log" | tr '\n' ' ')"
echo "PASS: $NBAD bad configs refused with file:line: key; an asymmetric rule attached each way as given; READY after the scan, WATCHDOG every 150 ms, RELOADING with MONOTONIC_USEC then READY with the edit in force, STOPPING"
