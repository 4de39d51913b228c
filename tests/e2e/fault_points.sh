#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# sj-run: beside (nothing here is timed: tests/run.sh may run it beside
# another such test, in a bpffs of its own)
#
# kill -9 at every point that matters, deterministically: strace delivers
# SIGKILL on entry to each bpf/netlink/pin-folder syscall of a command in
# turn (the k-th call of that syscall), one run per syscall, save those
# that only read or make what dies with the process (READ_ONLY below: a
# map or program held by an fd alone, a lookup, a query).  A kill at one
# of those leaves the same state behind as a kill at the next call that
# does change what outlives the process, which is a point of its own, so
# skipping them loses no state and takes two thirds off the runs.
# Commands: attach (tcx), attach hook clsact, change, detach
# of a tcx and of a clsact attachment.  After each kill, `sojourn show`
# must agree with the pins and the kernel, and one `detach` must leave
# nothing: no pins, no program, no filter, no clsact qdisc we made, no
# entry in the host's maps.  The tcx scenarios make and remove the host's
# object (loader/host.c) with the device's attachment; the clsact ones
# join and leave a host another device keeps attached.
# A failure names the command and the syscall the kill landed on.
# Exit 0 pass, 1 fail, 77 skip.

# shellcheck source=SCRIPTDIR/fault_lib.sh
. "$(dirname "$0")/fault_lib.sh"
fl_require strace

NS=sjp$$
DEV=pa$$
SET=bpf,sendto,sendmsg,mkdir,rename,unlink,unlinkat,rmdir,flock,setns
# Calls that change nothing a killed process leaves behind.  Netlink sends
# stay points (a dump and a change look alike here), and so do
# BPF_MAP_FREEZE and BPF_PROG_BIND_MAP, though today they act on objects
# no pin holds yet.
declare -A READ_ONLY=()
for op in BPF_MAP_CREATE BPF_PROG_LOAD BPF_BTF_LOAD BPF_OBJ_GET BPF_OBJ_GET_INFO_BY_FD \
	BPF_MAP_LOOKUP_ELEM BPF_MAP_LOOKUP_BATCH BPF_MAP_GET_NEXT_KEY BPF_PROG_QUERY \
	BPF_MAP_GET_FD_BY_ID BPF_PROG_GET_FD_BY_ID BPF_LINK_GET_FD_BY_ID BPF_BTF_GET_FD_BY_ID \
	BPF_MAP_GET_NEXT_ID BPF_PROG_GET_NEXT_ID BPF_LINK_GET_NEXT_ID setns; do
	READ_ONLY[$op]=1
done
KEEP=pk$$
fl_setup
fl_reference "$NS" "$DEV" || { echo "FAIL: reference attach"; exit 1; }
ip -n "$NS" link add "$KEEP" type veth peer name "${KEEP}p" &&
ip -n "$NS" link set "$KEEP" up && ip -n "$NS" link set "${KEEP}p" up &&
tc -n "$NS" qdisc add dev "$KEEP" root pfifo || { echo "FAIL: keeper device"; exit 1; }
trap 'timeout 10 "$SOJOURN" detach "$KEEP" -n "$NS" >/dev/null 2>&1; fl_cleanup' EXIT

# entries of the host's attachments map for DEV (none when there is no host)
host_entries() {
	local idx
	idx=$(ifindex "$NS" "$DEV")
	bpftool map dump pinned "$PIN_ROOT/host/attachments" -j 2>/dev/null |
		jq --argjson i "$idx" --argjson c "$COOKIE" \
			'[.[] | select(.formatted.key.ifindex == $i and .formatted.key.netns_cookie == $c)] | length' 2>/dev/null ||
		echo 0
}

# nothing of ours on the device, or say what is left
clean() {
	local f h q
	f=$(folders "$NS" "$DEV") h=$(hooked "$NS" "$DEV")
	q=$(tc -n "$NS" qdisc show dev "$DEV" | grep -c clsact)
	[ "$f$h$q$(tmp_folders)$(host_entries)" = 00000 ] && return 0
	echo "left: folders $f, programs $h, clsact qdisc $q, half-built $(tmp_folders), host entries $(host_entries)"
	return 1
}

# the syscalls of one run, in order
calls() {
	strace -f -qq -e trace="$SET" -o /dev/stdout "$SOJOURN" "$@" -n "$NS" 2>/dev/null |
		sed -n 's/^[0-9]* *\([a-z_0-9]*\)(\([A-Z_]*\).*/\1 \2/p'
}

# scenario NAME SETUP... -- COMMAND...
scenario() {
	local name=$1 setup=() cmd=() n total points=0 broken=0 what why op
	shift
	while [ "$1" != -- ]; do setup+=("$1"); shift; done
	shift
	cmd=("$@")
	[ ${#setup[@]} -gt 0 ] && "$SOJOURN" "${setup[@]}" -n "$NS" >/dev/null
	mapfile -t trace < <(calls "${cmd[@]}")
	total=${#trace[@]}
	"$SOJOURN" detach "$DEV" -n "$NS" >/dev/null
	if [ "$total" -lt 5 ]; then
		bad "$name: only $total syscalls traced"
		return
	fi
	# strace counts `when` per syscall: the n-th point is the k-th call
	# of its own syscall
	declare -A seen=()
	for ((n = 1; n <= total; n++)); do
		sc=${trace[n - 1]%% *}
		seen[$sc]=$(( ${seen[$sc]:-0} + 1 ))
		op=${trace[n - 1]#* }
		[ -n "${READ_ONLY[${op:-$sc}]:-}" ] && continue
		points=$((points + 1))
		[ ${#setup[@]} -gt 0 ] && "$SOJOURN" "${setup[@]}" -n "$NS" >/dev/null
		# strace dies of the same signal as its tracee: quiet bash
		( strace -f -qq -o /dev/null -e trace="$SET" \
			-e inject="$sc":signal=KILL:when="${seen[$sc]}" \
			"$SOJOURN" "${cmd[@]}" -n "$NS" >/dev/null 2>&1; true ) 2>/dev/null
		what="${trace[n - 1]}"
		if ! why=$(fl_consistent "$NS" "$DEV"); then
			broken=$((broken + 1))
			[ "$broken" -le 3 ] && bad "$name killed at syscall $n/$total (${what% }): $why"
		fi
		"$SOJOURN" detach "$DEV" -n "$NS" >/dev/null 2>&1
		if ! why=$(clean); then
			broken=$((broken + 1))
			[ "$broken" -le 3 ] && bad "$name killed at syscall $n/$total (${what% }), then one detach: $why"
			# start the next point from a clean device
			tc -n "$NS" filter del dev "$DEV" egress 2>/dev/null
			tc -n "$NS" qdisc del dev "$DEV" clsact 2>/dev/null
		fi
	done
	[ "$points" -lt 3 ] && bad "$name: only $points of $total syscalls change anything"
	[ "$broken" = 0 ] && ok "$name: killed at each of $points syscalls that change what outlives it (of $total), always whole or absent, one detach cleans"
}

scenario "attach (tcx), making the host" -- attach "$DEV"
scenario "change" attach "$DEV" -- change "$DEV" target 2ms ecn
scenario "detach (tcx), removing the host" attach "$DEV" -- detach "$DEV"
# (another user's attachment would keep it: judged only when none is there)
[ -e "$PIN_ROOT/host" ] && [ -z "$(ls "$PIN_ROOT" | grep -v '^host$')" ] &&
	bad "the host stays with no attachment left"
"$SOJOURN" attach "$KEEP" -n "$NS" >/dev/null || bad "attach $KEEP"
scenario "attach hook clsact, joining the host" -- attach "$DEV" hook clsact
scenario "detach (clsact), leaving the host" attach "$DEV" hook clsact -- detach "$DEV"
"$SOJOURN" detach "$KEEP" -n "$NS" >/dev/null || bad "detach $KEEP"

verdict_end fault_points
