#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# sj-run: beside (nothing here is timed: tests/run.sh may run it beside
# another such test, in a bpffs of its own)
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
fl_setup

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
		fl_refused "bpffs $mode: '$cmd'" "$rc" "$err" 'no BPF filesystem at /sys/fs/bpf'
	done
done
# and with bpffs back, all is as before
"$SOJOURN" attach "$DEV" -n "$NS" && "$SOJOURN" detach "$DEV" -n "$NS" &&
	ok "with bpffs, attach and detach work" || bad "attach/detach with bpffs"

verdict_end fault_bpffs
