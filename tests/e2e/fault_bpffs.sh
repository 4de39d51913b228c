#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# No BPF filesystem at /sys/fs/bpf (unmounted, or another filesystem in its
# place), in a private mount namespace so the host's pins stay untouched:
# every command says so in one line and exits non-zero, and nothing is left
# on the device.
# Exit 0 pass, 1 fail, 77 skip.

# shellcheck source=SCRIPTDIR/fault_lib.sh
. "$(dirname "$0")/fault_lib.sh"
fl_require unshare

NS=sjb$$ DEV=ba$$
cleanup() {
	timeout 10 "$SOJOURN" detach "$DEV" -n "$NS" >/dev/null 2>&1
	ip netns del "$NS" 2>/dev/null
}
trap cleanup EXIT
trap 'exit 130' INT TERM
fl_ns "$NS" "$DEV" || { echo "FAIL: cannot build namespace"; exit 1; }
COOKIE=$(fl_cookie "$NS" "$DEV") || { echo "FAIL: plain attach/detach"; exit 1; }

# without MODE: bpffs unmounted; "tmpfs": a tmpfs in its place
run_without_bpffs() {
	local mode=$1
	shift
	unshare -m --propagation private bash -c '
		while mountpoint -q /sys/fs/bpf; do umount -l /sys/fs/bpf || exit 99; done
		[ "$1" = tmpfs ] && { mount -t tmpfs none /sys/fs/bpf || exit 99; }
		shift
		exec "$@"' _ "$mode" "$@"
}

for mode in unmounted tmpfs; do
	for cmd in "attach $DEV" "attach $DEV hook clsact" "change $DEV target 3ms" \
		   "detach $DEV" "show" "gc"; do
		args=($cmd)
		[ "$cmd" = gc ] || args+=(-n "$NS")	# gc looks at every namespace
		err=$(run_without_bpffs "$mode" "$SOJOURN" "${args[@]}" 2>&1 >/dev/null)
		rc=$?
		if [ "$rc" = 99 ]; then
			skip "cannot unmount bpffs in a private mount namespace"
		fi
		lines=$(printf '%s' "$err" | grep -c '')
		if [ "$rc" != 0 ] && [ "$lines" = 1 ] && grep -q 'no BPF filesystem at /sys/fs/bpf' <<<"$err"; then
			pass "bpffs $mode: '$cmd' refuses in one line"
		else
			fail "bpffs $mode: '$cmd' rc $rc, $lines lines: $err"
		fi
		f=$(folders "$NS" "$DEV") h=$(hooked "$NS" "$DEV")
		q=$(tc -n "$NS" qdisc show dev "$DEV" | grep -c clsact)
		[ "$f$h$q" = 000 ] || fail "bpffs $mode: after '$cmd': folders $f, programs $h, clsact $q"
	done
done
# and with bpffs back, all is as before
"$SOJOURN" attach "$DEV" -n "$NS" && "$SOJOURN" detach "$DEV" -n "$NS" &&
	pass "with bpffs, attach and detach work" || fail "attach/detach with bpffs"

[ "$FAILS" = 0 ] || exit 1
exit 0
