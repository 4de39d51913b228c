#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# sj-run: beside (nothing here is timed: tests/run.sh may run it beside
# another such test, in a bpffs of its own)
#
# kill -9 of `sojourn attach`, `change` and `detach` at random points, in a
# loop (ITER=, default 200; SEED=) over two devices with a pfifo root:
#  - right after each kill, never two of our programs on a device;
#  - after `sojourn show` (every third iteration or so), the views agree: `show` lists exactly the
#    attachments whose pin folder exists and whose program the kernel runs,
#    each folder whole, no half-built folder left;
#  - a finished `change` is seen (target), a finished attach works;
#  - at the end one `detach` per device leaves no pins, no program, no
#    filter.
# Every fourth attach asks for the clsact hook, the rest take tcx.
# Exit 0 pass, 1 fail, 77 skip.

# shellcheck source=SCRIPTDIR/fault_lib.sh
. "$(dirname "$0")/fault_lib.sh"
fl_require

ITER=${ITER:-200}
RANDOM=${SEED:-$$}
NS=sjk$$
DEVS=(ka$$ kb$$)
cleanup() {
	for d in "${DEVS[@]}"; do
		timeout 10 "$SOJOURN" detach "$d" -n "$NS" >/dev/null 2>&1
	done
	ip netns del "$NS" 2>/dev/null
}
trap cleanup EXIT
trap 'exit 130' INT TERM

fl_ns "$NS" "${DEVS[@]}" || { echo "FAIL: cannot build namespace"; exit 1; }
COOKIE=$(fl_cookie "$NS" "${DEVS[0]}") || { echo "FAIL: plain attach/detach"; exit 1; }
fl_reference "$NS" "${DEVS[0]}" || { echo "FAIL: reference attach"; exit 1; }

# how long each command takes here (us): kills land across all of it
exec {SLEEPFD}<> <(:)
usleep() { read -r -t "$(printf '%d.%06d' $(($1 / 1000000)) $(($1 % 1000000)))" -u "$SLEEPFD"; }
# (bash's own clock: two `date` processes would add ~8 ms to a command of
# ~13 on this VM, and most kills would then come after it finished)
span() {
	local t0=${EPOCHREALTIME/./} t1
	"$SOJOURN" "$@" -n "$NS" >/dev/null 2>&1
	t1=${EPOCHREALTIME/./}
	echo $(( t1 - t0 ))
}
# the fastest of three rounds: the first runs cold (a fresh clone's first
# exec and BTF load), and a span too long lets most commands finish
declare -A span_us
fastest() {
	local t
	t=$(span "$@")
	[ -z "${span_us[$1]:-}" ] || [ "$t" -lt "${span_us[$1]}" ] && span_us[$1]=$t
}
# an attach that makes the host's object (loader/host.c: loads programs)
# takes ~200 ms, one that joins it ~12: each is timed on its own, and a
# kill is drawn from the span of the case at hand
fastest_as() {
	local name=$1 t
	shift
	t=$(span "$@")
	[ -z "${span_us[$name]:-}" ] || [ "$t" -lt "${span_us[$name]}" ] && span_us[$name]=$t
}
for round in 1 2 3; do
	fastest_as attach_host attach "${DEVS[0]}"
	"$SOJOURN" detach "${DEVS[0]}" -n "$NS" >/dev/null 2>&1
done
"$SOJOURN" attach "${DEVS[1]}" -n "$NS" >/dev/null 2>&1
for round in 1 2 3; do
	fastest attach "${DEVS[0]}"
	fastest change "${DEVS[0]}" target 3ms
	fastest detach "${DEVS[0]}"
done
"$SOJOURN" detach "${DEVS[1]}" -n "$NS" >/dev/null 2>&1
log "attach ${span_us[attach]} us (${span_us[attach_host]} us making the host), change ${span_us[change]} us, detach ${span_us[detach]} us"

killed=0 finished=0 second=0 broken=0 checks=0
declare -A ops
for ((i = 0; i < ITER; i++)); do
	dev=${DEVS[RANDOM % 2]}
	case $((RANDOM % 3)) in
	0) op=(attach "$dev")
	   [ $((RANDOM % 4)) = 0 ] && op+=(hook clsact) ;;
	1) op=(change "$dev" target "$((1 + RANDOM % 9))ms") ;;
	2) op=(detach "$dev") ;;
	esac
	# uniform over the command's run, or (every other time) over its last
	# third, where it pins or unpins; a little beyond lets some finish
	sp=${span_us[${op[0]}]}
	[ "${op[0]}" = attach ] && [ ! -e "$PIN_ROOT/host" ] && sp=${span_us[attach_host]}
	r=$((RANDOM * 32768 + RANDOM))
	if [ $((RANDOM % 2)) = 0 ]; then
		delay=$((r % (sp * 11 / 10 + 1)))
	else
		delay=$((sp * 2 / 3 + r % (sp * 4 / 10 + 1)))
	fi
	"$SOJOURN" "${op[@]}" -n "$NS" >/dev/null 2>&1 &
	pid=$!
	usleep "$delay"
	if kill -9 "$pid" 2>/dev/null; then
		killed=$((killed + 1))
	else
		finished=$((finished + 1))
	fi
	wait "$pid" 2>/dev/null
	ops[${op[0]}]=$(( ${ops[${op[0]}]:-0} + 1 ))

	# before anyone tidies up: at most one copy runs
	for d in "${DEVS[@]}"; do
		h=$(hooked "$NS" "$d")
		if [ "$h" -gt 1 ]; then
			second=$((second + 1))
			[ "$second" -le 5 ] && bad "iteration $i (${op[*]} after ${delay} us): $h copies on $d"
		fi
	done
	# `show` tidies up: let some kills pile up before it looks
	[ $((RANDOM % 3)) = 0 ] || continue
	checks=$((checks + 1))
	for d in "${DEVS[@]}"; do
		if ! why=$(fl_consistent "$NS" "$d"); then
			broken=$((broken + 1))
			[ "$broken" -le 5 ] && bad "iteration $i (${op[*]} after ${delay} us): $why"
		fi
	done
done
log "ops: attach ${ops[attach]:-0} change ${ops[change]:-0} detach ${ops[detach]:-0}; killed $killed, finished $finished"
[ "$killed" -ge $((ITER / 5)) ] || bad "only $killed of $ITER commands were killed mid-way"
[ "$second" = 0 ] && ok "never a second copy on a device ($ITER iterations)"
[ "$broken" = 0 ] && ok "show, pins and kernel agree at all $checks checks"

# what survived still works: attach where absent, change is read back
for d in "${DEVS[@]}"; do
	[ "$(folders "$NS" "$d")" = 0 ] && "$SOJOURN" attach "$d" -n "$NS"
	if "$SOJOURN" change "$d" target 7ms -n "$NS" &&
	   [ "$("$SOJOURN" show "$d" -j -n "$NS" | jq -r '.[0].target')" = 7000 ]; then
		ok "$d: attached and retunable after the kills"
	else
		bad "$d: change after the kills not applied"
	fi
done

# one detach each cleans everything up
for d in "${DEVS[@]}"; do
	"$SOJOURN" detach "$d" -n "$NS" || bad "detach $d"
	f=$(folders "$NS" "$d") h=$(hooked "$NS" "$d")
	[ "$f" = 0 ] && [ "$h" = 0 ] || bad "$d after one detach: folders $f, hooked $h"
	tc -n "$NS" qdisc show dev "$d" | grep -q clsact &&
		bad "$d after one detach: clsact qdisc left"
done
n=$(find "$PIN_ROOT" -maxdepth 1 -name "*$COOKIE-*" | wc -l)
[ "$n" = 0 ] && ok "no pins of the namespace left" || bad "$n pin folders of the namespace left"

verdict_end fault_kill
