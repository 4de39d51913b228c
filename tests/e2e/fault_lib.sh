# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# shellcheck shell=bash
#
# Shared by the fault tests (sourced, not run): a namespace of veth pairs
# with a pfifo root each, and the three views of what is attached that
# must agree after any fault:
#   folders  pin folders under /sys/fs/bpf/sojourn for (namespace, device)
#   shown    what `sojourn show -j` lists
#   hooked   sojourn programs the kernel runs at the device's egress
#            (tcx, asked with build/tcx_query, and clsact filters)
# Globals: SJ_ROOT SOJOURN TCXQ NS COOKIE, and common.sh's FAILS

SJ_ROOT=${SJ_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
SOJOURN=${SOJOURN:-$SJ_ROOT/build/sojourn}
TCXQ=${TCXQ:-$SJ_ROOT/build/tcx_query}
PIN_ROOT=/sys/fs/bpf/sojourn

# log, skip, die and the other helpers every script shares
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"

fl_require() {
	local t
	[ "$(id -u)" = 0 ] || skip "needs root"
	[ -x "$SOJOURN" ] || skip "$SOJOURN not built (make first)"
	[ -x "$TCXQ" ] || skip "$TCXQ not built (make tests)"
	for t in ip tc jq bpftool nsenter "$@"; do
		command -v "$t" >/dev/null || skip "$t not installed"
	done
	mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf ||
		skip "cannot mount bpffs"
}

# fl_ns NS DEV...: a namespace; each DEV a veth (peer DEV-p) with pfifo
fl_ns() {
	local ns=$1 d
	shift
	ip netns del "$ns" 2>/dev/null
	ip netns add "$ns" || return 1
	ip -n "$ns" link set lo up
	for d in "$@"; do
		ip -n "$ns" link add "$d" type veth peer name "${d}p" &&
		ip -n "$ns" link set "$d" up && ip -n "$ns" link set "${d}p" up &&
		tc -n "$ns" qdisc add dev "$d" root pfifo || return 1
	done
}

# The namespace cookie: sojourn names folders by it
fl_cookie() {
	local ns=$1 dev=$2 c
	"$SOJOURN" attach "$dev" -n "$ns" >/dev/null || return 1
	c=$("$SOJOURN" show "$dev" -j -n "$ns" | jq -r '.[0].netns_cookie')
	"$SOJOURN" detach "$dev" -n "$ns" || return 1
	echo "$c"
}

ifindex() { ip -n "$1" -j link show dev "$2" 2>/dev/null | jq -r '.[0].ifindex'; }

# fl_setup: NS with one device DEV, taken away (detached first) however the
# test ends; COOKIE set, from one plain attach and detach
fl_cleanup() {
	timeout 10 "$SOJOURN" detach "$DEV" -n "$NS" >/dev/null 2>&1
	ip netns del "$NS" 2>/dev/null
}
fl_setup() {
	trap fl_cleanup EXIT
	trap 'exit 130' INT TERM
	fl_ns "$NS" "$DEV" || { echo "FAIL: cannot build namespace"; exit 1; }
	COOKIE=$(fl_cookie "$NS" "$DEV") || { echo "FAIL: plain attach/detach"; exit 1; }
}

# fl_refused WHAT RC ERR PATTERN: the command failed with one line matching
# PATTERN and left no folder, program or clsact behind on NS's DEV
fl_refused() {
	local what=$1 rc=$2 err=$3 pattern=$4 lines f h q
	lines=$(printf '%s' "$err" | grep -c '')
	if [ "$rc" != 0 ] && [ "$lines" = 1 ] && grep -q "$pattern" <<<"$err"; then
		ok "$what refuses in one line"
	else
		bad "$what: rc $rc, $lines lines: $err"
	fi
	f=$(folders "$NS" "$DEV") h=$(hooked "$NS" "$DEV")
	q=$(tc -n "$NS" qdisc show dev "$DEV" | grep -c clsact)
	[ "$f$h$q" = 000 ] || bad "after $what: folders $f, programs $h, clsact $q"
}

# finished folders of (NS with COOKIE, DEV), egress
folders() {
	local idx
	idx=$(ifindex "$1" "$2")
	[ -n "$idx" ] || { echo 0; return; }
	find "$PIN_ROOT" -maxdepth 1 -name "$COOKIE-$idx-egress" 2>/dev/null | wc -l
}

# half-built folders of our namespace
tmp_folders() { find "$PIN_ROOT" -maxdepth 1 -name "tmp-*-$COOKIE-*" 2>/dev/null | wc -l; }

shown() {
	"$SOJOURN" show -j -n "$1" 2>/dev/null |
		jq --arg d "$2" '[.[] | select(.dev == $d and .direction == "egress")] | length'
}

hooked() {
	local t c
	t=$("$TCXQ" "$1" "$2" | grep -c '^egress .* sojourn_egress$')
	c=$(tc -n "$1" filter show dev "$2" egress 2>/dev/null | grep -c 'name sojourn_egress')
	echo $((t + c))
}

# every pin a finished folder must hold (set by fl_reference)
WHOLE=""
fl_reference() {
	local idx
	"$SOJOURN" attach "$2" -n "$1" >/dev/null || return 1
	idx=$(ifindex "$1" "$2")
	WHOLE=$(ls "$PIN_ROOT/$COOKIE-$idx-egress" | tr '\n' ' ')
	"$SOJOURN" detach "$2" -n "$1"
}

# a folder is whole: the reference pins, and a tcx link or a clsact filter
whole() {
	local idx dir have p
	idx=$(ifindex "$1" "$2")
	dir="$PIN_ROOT/$COOKIE-$idx-egress"
	[ -d "$dir" ] || return 0
	have=" $(ls "$dir" | tr '\n' ' ') "
	for p in $WHOLE; do
		[ "$p" = link_egress ] && continue	# clsact has none
		case $have in *" $p "*) ;; *) echo "missing $p"; return 1 ;; esac
	done
	return 0
}

# The views agree for DEV; prints why not.  Runs `show` (which is allowed
# to clean what a killed command left) before it looks.
fl_consistent() {
	local ns=$1 dev=$2 s f h t
	s=$(shown "$ns" "$dev")
	f=$(folders "$ns" "$dev")
	h=$(hooked "$ns" "$dev")
	t=$(tmp_folders)
	if [ "$s" != "$f" ] || [ "$h" != "$f" ] || [ "$f" -gt 1 ] || [ "$t" != 0 ]; then
		echo "$dev: shown $s, folders $f, hooked $h, half-built folders $t"
		return 1
	fi
	whole "$ns" "$dev" || return 1
	return 0
}
