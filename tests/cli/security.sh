#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# sj-run: beside (nothing here is timed: tests/run.sh may run it beside
# another such test, in a bpffs of its own)
#
# Security of the pins and of unprivileged use:
#  1. every pin of an attachment is 0600 or stricter, its folder and
#     /sys/fs/bpf/sojourn are root's and not writable by group or others;
#  2. a /sys/fs/bpf/sojourn others may write is refused, in one line (in a
#     private mount namespace with a bpffs of its own: the host's pins stay);
#  3. as nobody, and as root without CAP_BPF+CAP_SYS_ADMIN, CAP_NET_ADMIN or
#     CAP_PERFMON+CAP_SYS_ADMIN, every command refuses in one line and
#     leaves nothing: no folder, no program, no clsact qdisc.
# Exit 0 pass, 1 fail, 77 skip.

# shellcheck source=SCRIPTDIR/../e2e/fault_lib.sh
. "$(dirname "$0")/../e2e/fault_lib.sh"
fl_require setpriv unshare stat

NS=sjs$$ DEV=sa$$
fl_setup

# 1. modes
"$SOJOURN" attach "$DEV" -n "$NS" || bad "attach"
dir=$PIN_ROOT/$COOKIE-$(ifindex "$NS" "$DEV")-egress
loose=$(find "$dir" -mindepth 1 \( -perm /077 -o ! -user root \) -printf '%f %m %u; ')
n=$(find "$dir" -mindepth 1 | wc -l)
[ "$n" -gt 5 ] && [ -z "$loose" ] && ok "all $n pins are 0600 or stricter, root's" ||
	bad "pins open to others: $loose ($n pins)"
for d in "$PIN_ROOT" "$dir"; do
	m=$(stat -c '%a %U' "$d")
	case $m in
	*' root') [ $((0$(cut -d' ' -f1 <<<"$m") & 022)) = 0 ] &&
		ok "$d is $m: not writable by group or others" ||
		bad "$d is $m" ;;
	*) bad "$d is $m" ;;
	esac
done
"$SOJOURN" detach "$DEV" -n "$NS" || bad "detach"

# 2. a pin root others may write: refused
err=$(unshare -m --propagation private bash -c '
	mount -t bpf bpf /sys/fs/bpf || exit 99
	mkdir -m 0777 /sys/fs/bpf/sojourn && chmod 0777 /sys/fs/bpf/sojourn || exit 99
	exec "$@"' _ "$SOJOURN" attach "$DEV" -n "$NS" 2>&1)
rc=$?
[ "$rc" = 99 ] && skip "cannot mount a private bpffs"
if [ "$rc" != 0 ] && [ "$(grep -c '' <<<"$err")" = 1 ] && grep -q 'writable by others' <<<"$err"; then
	ok "a world-writable $PIN_ROOT is refused: $err"
else
	bad "world-writable pin root: rc $rc: $err"
fi
[ "$(hooked "$NS" "$DEV")$(tc -n "$NS" qdisc show dev "$DEV" | grep -c clsact)" = 00 ] ||
	bad "refused attach left a program or a clsact qdisc"

# 3. without the privileges
nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all)
declare -A drop=(
	[nobody]=""
	[no-bpf]="-bpf,-sys_admin"
	[no-net_admin]="-net_admin"
	[no-perfmon]="-perfmon,-sys_admin"
)
for who in nobody no-bpf no-net_admin no-perfmon; do
	if [ "$who" = nobody ]; then
		run=("${nobody[@]}")
	else
		run=(setpriv --bounding-set="${drop[$who]}" --inh-caps="${drop[$who]}")
	fi
	for cmd in "attach $DEV" "attach $DEV hook clsact" "change $DEV target 3ms" \
		   "detach $DEV" "gc"; do
		args=($cmd)
		[ "$cmd" = gc ] || args+=(-n "$NS")
		err=$("${run[@]}" "$SOJOURN" "${args[@]}" 2>&1 >/dev/null)
		rc=$?
		fl_refused "$who: '$cmd'" "$rc" "$err" '^sojourn: needs CAP_BPF'
	done
done

verdict_end security
