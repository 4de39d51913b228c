#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# sj-run: beside (nothing here is timed: tests/run.sh may run it beside
# another such test, in a bpffs of its own)
#
# attach DEV observe, without traffic: every wrong use exits non-zero with
# one line "sojourn: ..." saying why and leaves nothing pinned and the
# device's qdiscs and filters as they were; a right one attaches, `show`
# (text and -j) says mode observe and shows no law's settings, hist, top
# and export read the attachment, `change` refuses what observe has not
# and cannot switch the mode, detach leaves the tc tree as before.  The
# daemon's Observe=yes: bad rules refused in one line naming file, line and
# key; a good one attached as observe, kept over a reload, detached on exit.
# The refusal of an AQM root needs qdiscs this kernel lacks:
# tests/unit/test_qdisc.c judges built trees, tests/e2e/aqm_root.sh real
# ones in the 6.1 VM.
#
# Topology: one namespace, a veth pair with 4 transmit queues: one end
# under HTB + pfifo, then under mq; the other end stays noqueue.
#
# Exit 0 pass, 77 skip, else fail.  SOJOURN= overrides the binary.
set -u

repo=$(cd "$(dirname "$0")/../.." && pwd)
SOJOURN=${SOJOURN:-$repo/build/sojourn}
PIN_ROOT=/sys/fs/bpf/sojourn
T=15

# log, skip, die and the other helpers every script shares
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
[ "$(id -u)" = 0 ] || skip "needs root"
[ -x "$SOJOURN" ] || skip "$SOJOURN not built (make first)"
for t in ip tc jq timeout mountpoint; do
	command -v "$t" >/dev/null || skip "$t not installed"
done
if ! mountpoint -q /sys/fs/bpf; then
	mount -t bpf bpf /sys/fs/bpf || skip "cannot mount bpffs"
fi
[ -r /sys/kernel/btf/vmlinux ] || skip "kernel has no BTF (/sys/kernel/btf/vmlinux)"

NS=sjobm$$
DQ=sjo$$q DN=sjo$$n
WORK=$(mktemp -d /tmp/sjobm.XXXXXX)
sj() { timeout "$T" "$SOJOURN" "$@"; }
inns() { ip netns exec "$NS" "$@"; }

# shellcheck disable=SC2317
cleanup() {
	if [ -e "/run/netns/$NS" ]; then
		sj detach "$DQ" -n "$NS" >/dev/null 2>&1
		ip netns del "$NS"
	fi
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ip netns add "$NS" || { echo "FAIL: setup: netns"; exit 1; }
# shellcheck disable=SC2015	# any step failing fails the setup
ip -n "$NS" link add "$DQ" numtxqueues 4 numrxqueues 4 type veth peer name "$DN" &&
ip -n "$NS" link set "$DQ" up && ip -n "$NS" link set "$DN" up &&
inns tc qdisc add dev "$DQ" root handle 1: htb default 1 &&
inns tc class add dev "$DQ" parent 1: classid 1:1 htb rate 20mbit quantum 1514 &&
inns tc qdisc add dev "$DQ" parent 1:1 handle 10: pfifo limit 1000 ||
	{ echo "FAIL: setup: devices"; exit 1; }
ifq=$(ip -n "$NS" -j link show dev "$DQ" | jq -r '.[0].ifindex')

# Our namespace's pin folders, on bpffs itself: <cookie>-<ifindex>-<dir>
# and attach's tmp-<pid>-<cookie>-..., so tests running beside us do not
# count.  Without python3 for the cookie (SO_NETNS_COOKIE = 71): what
# show lists for the namespace.
COOKIE=$(ip netns exec "$NS" python3 -c '
import socket, struct
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
print(struct.unpack("Q", s.getsockopt(socket.SOL_SOCKET, 71, 8))[0])' 2>/dev/null)
pins_of_ns() {
	if [[ $COOKIE =~ ^[0-9]+$ ]]; then
		local d
		for d in "$PIN_ROOT/$COOKIE"-* "$PIN_ROOT/tmp-"*"-$COOKIE-"*; do
			[ -e "$d" ] && echo "${d##*/}"
		done | sort
	else
		sj show -j -n "$NS" 2>/dev/null | jq -r '.[].pin' | sort
	fi
}
tc_state() {
	{ inns tc qdisc show; inns tc class show dev "$DQ";
	  inns tc filter show dev "$DQ" egress; } 2>&1 |
		sed -E 's/direct_packets_stat [0-9]+ //'
}

# must_fail WORD ARGS...: sojourn ARGS exits non-zero, one stderr line
# "sojourn: ..." containing WORD, and nothing changed
must_fail() {
	local want=$1 rc lines before_pins before_tc
	shift
	before_pins=$(pins_of_ns) before_tc=$(tc_state)
	sj "$@" >"$WORK/out" 2>"$WORK/err"
	rc=$?
	lines=$(grep -c '' "$WORK/err")
	if [ "$rc" -ne 0 ] && [ "$rc" -lt 124 ] && [ "$lines" = 1 ] &&
	   grep -q '^sojourn: ' "$WORK/err" && grep -qF -- "$want" "$WORK/err"; then
		if [ "$(pins_of_ns)" != "$before_pins" ]; then
			bad "$* (pins changed)"
		elif [ "$(tc_state)" != "$before_tc" ]; then
			bad "$* (tc state changed)"
		else
			ok "$*: $(cat "$WORK/err")"
		fi
	else
		bad "$*: rc $rc, $lines stderr line(s): $(tr '\n' '|' <"$WORK/err")"
	fi
}

# succeeds ARGS...: exit 0, nothing on stderr
succeeds() {
	if sj "$@" >"$WORK/out" 2>"$WORK/err" && [ ! -s "$WORK/err" ]; then
		ok "$*"
	else
		bad "$*: rc $?, stderr: $(cat "$WORK/err")"
	fi
}

# --- wrong uses: nothing attached before or after ---------------------
for w in "target 5ms" "interval 200ms" "ce_threshold 1ms" ecn noecn fair \
	nofair "quantum 3000" "sparse_class 1:20" "rate 10mbit" \
	"burst 32kb" "horizon 100ms" pace; do
	# shellcheck disable=SC2086
	must_fail "${w%% *} does not apply to observe" attach "$DQ" observe $w -n "$NS"
	# shellcheck disable=SC2086
	must_fail "${w%% *} does not apply to observe" attach "$DQ" $w observe -n "$NS"
done
must_fail "observe is for egress" attach "$DQ" ingress observe -n "$NS"
must_fail "xdp is for ingress" attach "$DQ" observe hook xdp -n "$NS"
must_fail "nothing to observe" attach "$DN" observe -n "$NS"
must_fail "cannot find device" attach nosuchdev0 observe -n "$NS"
must_fail "bad flows" attach "$DQ" observe flows 1 -n "$NS"
same "attachments after the wrong uses" "$(pins_of_ns | grep -c .)" 0

# --- observe on HTB: show, hist, top, export, change ------------------
tc0=$(tc_state)
succeeds attach "$DQ" observe flows 1024 -n "$NS"
js=$(sj show "$DQ" -j -n "$NS")
same "show -j mode" "$(jq -r '.[0].mode' <<<"$js")" observe
same "show -j queues (HTB: one)" "$(jq -r '.[0].queues' <<<"$js")" 1
same "show -j has no law settings" \
	"$(jq -r '.[0] | [has("target"), has("interval"), has("ecn"), has("fair")] | any' <<<"$js")" false
sj show "$DQ" -n "$NS" >"$WORK/show.txt"
if grep -q "mode observe queues 1" "$WORK/show.txt" &&
   ! grep -qE 'target|interval|ecn' "$WORK/show.txt"; then
	ok "show: $(head -1 "$WORK/show.txt")"
else
	bad "show text: $(tr '\n' '|' <"$WORK/show.txt")"
fi
st=$(sj show "$DQ" -s -j -n "$NS")
same "show -s -j drops" "$(jq -r '.[0].stats.drops' <<<"$st")" 0
same "show -s -j ecn_mark" "$(jq -r '.[0].stats.ecn_mark' <<<"$st")" 0
h=$(sj hist "$DQ" -j -n "$NS" 2>"$WORK/err")
same "hist -j: the device's histogram, a count" \
	"$(jq -r '.[0].histogram.count | type' <<<"$h" 2>/dev/null)" number
t=$(sj top "$DQ" -j -i 0.1 -n "$NS" 2>"$WORK/err")
same "top -j answers JSON" "$(jq -r 'type' <<<"$t" 2>/dev/null)" object
if sj export --textfile "$WORK/m.prom" -n "$NS" 2>"$WORK/err" &&
   grep -q "sojourn_queue_delay_seconds_count{device=\"$DQ\"" "$WORK/m.prom"; then
	ok "export --textfile: a histogram for $DQ"
else
	bad "export --textfile: $(cat "$WORK/err") $(grep -c . "$WORK/m.prom" 2>/dev/null) lines"
fi
if grep -qE "^sojourn_codel_[a-z_]+\{device=\"$DQ\"" "$WORK/m.prom"; then
	bad "export gives the law's settings or state of an observe attachment"
else
	ok "export: no sojourn_codel_* series for an observe attachment"
fi
if [ -x "$repo/build/promtool" ]; then
	if "$repo/build/promtool" check metrics <"$WORK/m.prom" >"$WORK/promtool" 2>&1; then
		ok "promtool check metrics"
	else
		bad "promtool: $(head -3 "$WORK/promtool" | tr '\n' '|')"
	fi
fi

must_fail "already attached" attach "$DQ" observe -n "$NS"
must_fail "target does not apply to observe" change "$DQ" target 10ms -n "$NS"
must_fail "nofair does not apply to observe" change "$DQ" nofair -n "$NS"
must_fail "rate does not apply to observe" change "$DQ" rate 10mbit -n "$NS"
must_fail "bad flows" change "$DQ" flows 1 -n "$NS"
succeeds change "$DQ" observe -n "$NS"
same "mode after change" "$(sj show "$DQ" -j -n "$NS" | jq -r '.[0].mode')" observe
succeeds detach "$DQ" -n "$NS"
same "tc state after detach (HTB)" "$(tc_state)" "$tc0"
same "attachments after detach" "$(pins_of_ns | grep -c .)" 0

# --- real-queue mode cannot become observe by change -------------------
# (sparse_class off: this tree has no path ahead, and the default `auto`
# says so on stderr; errors.sh checks that note)
succeeds attach "$DQ" sparse_class off -n "$NS"
must_fail "observe is chosen at attach" change "$DQ" observe -n "$NS"
same "mode stays queue" "$(sj show "$DQ" -j -n "$NS" | jq -r '.[0].mode')" queue
succeeds detach "$DQ" -n "$NS"

# --- observe under mq: one state per transmit queue --------------------
{ inns tc qdisc del dev "$DQ" root && inns tc qdisc add dev "$DQ" root handle 1: mq; } ||
	bad "mq on $DQ"
tc0=$(tc_state)
succeeds attach "$DQ" observe -n "$NS"
same "queues under mq of 4" "$(sj show "$DQ" -j -n "$NS" | jq -r '.[0].queues')" 4
same "ifindex" "$(sj show "$DQ" -j -n "$NS" | jq -r '.[0].ifindex')" "$ifq"
succeeds detach "$DQ" -n "$NS"
same "tc state after detach (mq)" "$(tc_state)" "$tc0"

# --- the daemon: Observe=yes --------------------------------------------
# bad_conf TEXT WANT: daemon --check refuses the file in one line with WANT
C=$WORK/sojourn.conf
bad_conf() {
	local out rc
	printf '%b' "$1" >"$C"
	out=$(sj daemon --config "$C" --check 2>&1); rc=$?
	if [ "$rc" != 0 ] && [ "$(grep -c '' <<<"$out")" = 1 ] &&
	   grep -qF -- "$C:$2" <<<"$out"; then
		ok "config refused: $out"
	else
		bad "config $(printf '%b' "$1" | tr '\n' '|'): rc $rc: $out"
	fi
}
R="[Rule]\nName=$DQ\nNetns=$NS\nObserve=yes\n"
bad_conf "${R}Target=10ms\n" "5: Target: does not apply to Observe=yes"
bad_conf "${R}Rate=10mbit\n" "5: Rate: does not apply to Observe=yes"
bad_conf "[Rule]\nName=$DQ\nFair=no\nObserve=yes\n" "3: Fair: does not apply to Observe=yes"
bad_conf "${R}Direction=both\n" "5: Direction: observe is for egress only"
bad_conf "${R}Observe=maybe\n" "5: Observe: \"maybe\" is not yes or no"
# a good rule: the daemon, in the namespace, attaches observe, a reload
# keeps it, and DetachOnExit takes it off
cat >"$C" <<EOF
[Daemon]
StateFile=$WORK/attached
DetachOnExit=yes
[Rule]
Name=$DQ
Observe=yes
Flows=4096
EOF
if sj daemon --config "$C" --check 2>"$WORK/err"; then
	ok "config with Observe=yes and Flows= accepted"
else
	bad "config with Observe=yes refused: $(cat "$WORK/err")"
fi
nsenter --net="/run/netns/$NS" "$SOJOURN" daemon --config "$C" 2>"$WORK/daemon.log" &
dpid=$!
mode=""
for _ in $(seq 50); do
	mode=$(sj show "$DQ" -j -n "$NS" 2>/dev/null | jq -r '.[0].mode // empty')
	[ -n "$mode" ] && break
	sleep 0.1
done
same "daemon attached $DQ in mode" "$mode" observe
kill -HUP "$dpid"
sleep 1
same "mode after a reload" "$(sj show "$DQ" -j -n "$NS" | jq -r '.[0].mode')" observe
if grep -qiE 'fail|error|refus' "$WORK/daemon.log"; then
	bad "daemon log: $(tr '\n' '|' <"$WORK/daemon.log")"
else
	ok "daemon log: $(tr '\n' '|' <"$WORK/daemon.log")"
fi
kill "$dpid"; wait "$dpid"
same "attachments after the daemon left" "$(pins_of_ns | grep -c .)" 0
same "tc state after the daemon (mq)" "$(tc_state)" "$tc0"

# --- help and the man page name it ------------------------------------
if sj help | grep -q "sojourn attach DEV \[egress\] observe"; then
	ok "help lists attach ... observe"
else
	bad "help lacks attach ... observe"
fi

if [ -n "$COOKIE" ]; then echo "(pins counted under $PIN_ROOT by cookie $COOKIE)"
else echo "(pins counted through show: no python3 for the cookie)"; fi
verdict_end observe_mode
