#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# sj-run: beside (nothing here is timed: tests/run.sh may run it beside
# another such test, in a bpffs of its own)
#
# 16 processes attach, change and detach at once for SECS (default 15):
# eight on one device, eight across four.  Meanwhile a watcher checks that
# no device ever runs two copies of our program.  Every command either
# succeeds or refuses for a reason that fits the race it lost ("already
# attached", "not attached"); afterwards show, pins and kernel agree and one
# detach per device leaves nothing.
# Exit 0 pass, 1 fail, 77 skip.

# shellcheck source=SCRIPTDIR/fault_lib.sh
. "$(dirname "$0")/fault_lib.sh"
fl_require

SECS=${SECS:-15}
NS=sjc$$
DEVS=(ca$$ cb$$ cc$$ cd$$)
WORK=$(mktemp -d "/tmp/sjc$$.XXXXXX")
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	for d in "${DEVS[@]}"; do timeout 10 "$SOJOURN" detach "$d" -n "$NS" >/dev/null 2>&1; done
	ip netns del "$NS" 2>/dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

fl_ns "$NS" "${DEVS[@]}" || { echo "FAIL: cannot build namespace"; exit 1; }
COOKIE=$(fl_cookie "$NS" "${DEVS[0]}") || { echo "FAIL: plain attach/detach"; exit 1; }
fl_reference "$NS" "${DEVS[0]}" || { echo "FAIL: reference attach"; exit 1; }

worker() {
	local w=$1 end=$(($(date +%s) + SECS)) n=0 d
	RANDOM=$((w * 7919 + $$))
	while [ "$(date +%s)" -lt "$end" ]; do
		if [ "$w" -lt 8 ]; then d=${DEVS[0]}; else d=${DEVS[RANDOM % 4]}; fi
		case $((RANDOM % 3)) in
		0) "$SOJOURN" attach "$d" -n "$NS" ;;
		1) "$SOJOURN" change "$d" target "$((1 + RANDOM % 9))ms" -n "$NS" ;;
		2) "$SOJOURN" detach "$d" -n "$NS" ;;
		esac >/dev/null 2>>"$WORK/err.$w"
		n=$((n + 1))
	done
	echo "$n" >"$WORK/n.$w"
}

watch_copies() {
	local d h
	while :; do
		for d in "${DEVS[@]}"; do
			h=$(hooked "$NS" "$d")
			[ "$h" -gt 1 ] && echo "$d: $h copies" >>"$WORK/second"
		done
	done
}

for w in $(seq 0 15); do worker "$w" & pids+=($!); done
watch_copies & watcher=$!
for p in "${pids[@]}"; do wait "$p"; done
pids=()
kill "$watcher"; wait "$watcher" 2>/dev/null

total=$(cat "$WORK"/n.* | awk '{s += $1} END {print s}')
log "$total commands by 16 processes in ${SECS}s"
[ "$total" -ge 100 ] || bad "only $total commands ran"
[ -s "$WORK/second" ] && bad "a second copy ran: $(sort -u "$WORK/second" | head -3 | tr '\n' ' ')" ||
	ok "no device ever ran two copies"

# refusals that fit a lost race, nothing else
cat "$WORK"/err.* >"$WORK/errors"
# (an attach on a root with no band ahead says so: sparse_class auto)
grep -v -e 'is already attached' -e 'is not attached' \
	-e 'sparse_class auto: root pfifo has no band ahead' "$WORK/errors" |
	sort | uniq -c | sort -rn >"$WORK/odd"
[ -s "$WORK/odd" ] && bad "unexpected errors: $(head -5 "$WORK/odd" | tr '\n' ';')" ||
	ok "$(wc -l <"$WORK/errors") refusals, each 'already attached' or 'not attached'"

for d in "${DEVS[@]}"; do
	why=$(fl_consistent "$NS" "$d") && ok "$d: show, pins and kernel agree" || bad "$why"
	"$SOJOURN" detach "$d" -n "$NS" || bad "detach $d"
	f=$(folders "$NS" "$d") h=$(hooked "$NS" "$d")
	[ "$f$h" = 00 ] || bad "$d after one detach: folders $f, programs $h"
done

verdict_end fault_concurrent
