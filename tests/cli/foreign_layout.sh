#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# sj-run: beside (nothing here is timed: tests/run.sh may run it beside
# another such test, in a bpffs of its own)
#
# Attachments left by another version of sojourn (issue 16: "refused with
# one line, never half-used").  The kernel copies a pinned map's whole value
# into whatever buffer it is handed, so a map whose struct grew in another
# version, read with this one's, was written past the buffer ("malloc():
# invalid size" in export).  Here, maps of this build's layout plus 8 or 16
# bytes are pinned in place of the real ones:
#   A  sjfa egress, attached, its per-CPU stats pinned 8 bytes larger
#   B  sjfb egress, attached, its meta pinned 8 bytes larger
#   C  a folder of a namespace that is gone: meta, stats, flows all larger
#   D  sjfb ingress, attached and whole
#   E  the host's settings map pinned 8 bytes larger: attach refused
# Every command that reads pins must skip A, B, C with one line each (a
# walk), or refuse with one line (a device named), never crash: exit codes
# 134/139 fail, and under valgrind (when installed) any memory error does.
# detach takes B off without its meta, gc removes C, replace re-attaches A.
#
# Runs in a mount namespace with a bpffs of its own and a network
# namespace of its own: the host's pins and devices are neither seen nor
# touched.  No traffic.  Exit 0 pass, 77 skip, else fail.  SOJOURN=
# overrides the binary.
set -u

repo=$(cd "$(dirname "$0")/../.." && pwd)
SOJOURN=${SOJOURN:-$repo/build/sojourn}
# log, skip, die and the other helpers every script shares
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"

if [ -z "${SJ_FOREIGN_INSIDE:-}" ]; then
	[ "$(id -u)" = 0 ] || skip "needs root"
	[ -x "$SOJOURN" ] || skip "$SOJOURN not built (make first)"
	command -v bpftool >/dev/null || skip "bpftool not installed"
	command -v unshare >/dev/null || skip "unshare not installed"
	SJ_FOREIGN_INSIDE=1 SOJOURN=$SOJOURN exec unshare -m -n --propagation private "$0" "$@"
	skip "cannot unshare mount and network namespaces"
fi

mount -t bpf bpf /sys/fs/bpf || skip "cannot mount a private bpffs"
ROOT=/sys/fs/bpf/sojourn
WORK=$(mktemp -d /tmp/sjforeign.XXXXXX)
# the namespaces go with this process; the programs with the pins and devices
trap 'ip link del sjfa 2>/dev/null; umount /sys/fs/bpf 2>/dev/null; rm -rf "$WORK"' EXIT

ip link set lo up
ip link add sjfa type veth peer name sjfb || skip "cannot make a veth pair"
ip link set sjfa up && ip link set sjfb up
for a in "sjfa rate 10mbit" "sjfb rate 10mbit" "sjfb ingress rate 10mbit"; do
	# shellcheck disable=SC2086
	"$SOJOURN" attach $a >"$WORK/attach" 2>&1 ||
		skip "cannot attach $a: $(tail -1 "$WORK/attach")"
done
# (this namespace's /sys is the host's: ask ip)
ifindex() { ip -o link show dev "$1" | cut -d: -f1; }
cookie=$("$SOJOURN" show -j | grep -o '"netns_cookie":[0-9]*' | head -1 | cut -d: -f2)
[ -n "$cookie" ] || { echo "FAIL: show -j names no netns_cookie"; exit 1; }
A=$ROOT/$cookie-$(ifindex sjfa)-egress
B=$ROOT/$cookie-$(ifindex sjfb)-egress
C=$ROOT/18446744073709551000-99-egress
D=$ROOT/$cookie-$(ifindex sjfb)-ingress
for d in "$A" "$B" "$D"; do
	[ -d "$d" ] || { echo "FAIL: no folder $d after attach"; exit 1; }
done

# FIELD PIN: that field of the map pinned there ("value_size", ...)
field() { bpftool map show pinned "$2" | grep -o "$1 [0-9]*" | cut -d' ' -f2; }
# replace PIN TYPE KEY VALUE: the pin now holds a new map of that layout
replace() {
	rm -f "$1"
	bpftool map create "$1" type "$2" key "$3" value "$4" entries 1 \
		name "$(basename "$1")" || { echo "FAIL: cannot pin $1"; exit 1; }
}
stats=$(field value "$A/stats") meta=$(field value "$B/meta")
fkey=$(field key "$A/flows") fval=$(field value "$A/flows")
[ -n "$stats" ] && [ -n "$meta" ] && [ -n "$fval" ] ||
	{ echo "FAIL: bpftool shows no sizes of $A's maps"; exit 1; }
replace "$A/stats" percpu_array 4 $((stats + 8))
replace "$B/meta" array 4 $((meta + 8))
mkdir -p "$C"
replace "$C/meta" array 4 $((meta + 8))
replace "$C/stats" percpu_array 4 $((stats + 8))
rm -f "$C/flows"
bpftool map create "$C/flows" type lru_hash key "$fkey" value $((fval + 16)) \
	entries 16 name flows || { echo "FAIL: cannot pin $C/flows"; exit 1; }
echo "pinned: $A/stats $((stats + 8)) bytes per CPU, $B/meta $((meta + 8)), $C"

# Plain, with glibc's heap checks: a write past a malloc'ed buffer aborts
# (what export did, "malloc(): invalid size").  Then, for the commands that
# only read, once more under valgrind where there is one, which sees what
# the heap checks miss (but hides those aborts behind its own malloc).
# (valgrind flags the NULL first key of a map walk, which the kernel takes,
# and no one here asks it about undefined bytes in netlink padding)
vg=()
if command -v valgrind >/dev/null; then
	cat >"$WORK/vg.supp" <<-'EOF'
	{
	   a map walk starts from no key
	   Memcheck:Param
	   bpf(attr->key)
	   ...
	   fun:bpf_map_get_next_key
	}
	EOF
	vg=(valgrind -q --undef-value-errors=no --error-exitcode=99
	    --exit-on-first-error=yes --suppressions="$WORK/vg.supp")
fi
export MALLOC_CHECK_=3 MALLOC_PERTURB_=165

# run NAME ARGS...: sojourn ARGS, its exit code in $rc, stdout in
# $WORK/out, stderr in $WORK/err; a crash fails.  ro NAME ARGS...: the
# same, and then under valgrind, where a memory error fails.
run() {
	local name=$1
	shift
	why=
	timeout 60 "$SOJOURN" "$@" >"$WORK/out" 2>"$WORK/err"
	rc=$?
	case $rc in
	124|134|139) bad "$name: rc $rc (hang or crash): $(tail -3 "$WORK/err" | tr '\n' '|')"; return 1 ;;
	esac
	return 0
}
ro() {
	local name=$1 vrc
	shift
	run "$name" "$@" || return 1
	[ ${#vg[@]} = 0 ] && return 0
	timeout 120 "${vg[@]}" "$SOJOURN" "$@" >/dev/null 2>"$WORK/vg"
	vrc=$?
	if [ "$vrc" = 99 ]; then
		bad "$name: memory error: $(grep -E '^==[0-9]+==' "$WORK/vg" | head -12 | tr '\n' '|')"
		return 1
	fi
	return 0
}
# said LINES WORDS...: stderr has LINES lines, every one "sojourn: ...
# another version of sojourn (...)", and each WORD on one of them
said() {
	local want=$1 w n
	shift
	n=$(grep -c '' "$WORK/err")
	[ "$n" = "$want" ] || { echo "$n stderr lines, not $want"; return 1; }
	[ "$(grep -c '^sojourn: .*another version of sojourn (.*)' "$WORK/err")" = "$want" ] ||
		{ echo "a line not of the form: $(tr '\n' '|' <"$WORK/err")"; return 1; }
	for w in "$@"; do
		grep -qF -- "$w" "$WORK/err" || { echo "no \"$w\" in: $(tr '\n' '|' <"$WORK/err")"; return 1; }
	done
}
stat_why="stats: value $((stats + 8)) bytes per CPU, expected $stats"
meta_why="meta: value $((meta + 8)) bytes, expected $meta"

# walks: A, B and C skipped with one line each, D read
for cmd in "show" "show -s" "show -j -s"; do
	# shellcheck disable=SC2086
	ro "$cmd" $cmd || continue
	if [ "$rc" = 0 ] && why=$(said 3 "skipped $A: " "skipped $B: " "skipped $C: " \
				 "$stat_why" "$meta_why") &&
	   grep -q "sjfb" "$WORK/out" && ! grep -q "sjfa" "$WORK/out"; then
		ok "$cmd: D shown, A B C skipped: $(head -1 "$WORK/err")"
	else
		bad "$cmd: rc $rc, ${why:-D not shown or A shown}"
	fi
done
ro "export --textfile" export --textfile "$WORK/metrics" &&
if [ "$rc" = 0 ] && why=$(said 3 "skipped $A: " "skipped $B: " "skipped $C: ") &&
   grep -qx 'sojourn_attachments_foreign 3' "$WORK/metrics" &&
   grep -q '^sojourn_info{device="sjfb"' "$WORK/metrics" &&
   ! grep -q 'device="sjfa"' "$WORK/metrics"; then
	ok "export: D exported, A B C skipped and counted (sojourn_attachments_foreign 3)"
else
	bad "export: rc $rc, ${why:-}; $(tr '\n' '|' <"$WORK/err") $(grep -E 'foreign|sojourn_info' "$WORK/metrics" 2>/dev/null | tr '\n' '|')"
fi
ro "top" top -j -i 0.05 &&
if [ "$rc" = 0 ] && why=$(said 3 "skipped $A: " "skipped $B: " "skipped $C: "); then
	ok "top -j: one frame, A B C skipped"
else
	bad "top -j: rc $rc, ${why:-}: $(tr '\n' '|' <"$WORK/err")"
fi

# a device named: one line, non-zero
for cmd in "show sjfa" "show sjfa -s" "hist sjfa" "top sjfa -j -i 0.05" \
	   "change sjfa rate 20mbit"; do
	# shellcheck disable=SC2086
	run "$cmd" $cmd || continue
	if [ "$rc" != 0 ] && why=$(said 1 "$A was made by another version" "$stat_why"); then
		ok "$cmd refused: $(cat "$WORK/err")"
	else
		bad "$cmd: rc $rc, ${why:-}"
	fi
done
# the other direction of the device is read; the foreign one still said
ro "hist sjfb" hist sjfb &&
if [ "$rc" != 0 ] && why=$(said 1 "$B was made by another version" "$meta_why") &&
   grep -q "ingress" "$WORK/out"; then
	ok "hist sjfb: ingress shown, egress refused"
else
	bad "hist sjfb: rc $rc, ${why:-ingress not shown}"
fi

# the CNI plugin's STATUS runs 'sojourn show -j', whose skip lines come
# ahead of the list: another version's attachment is no reason to fail
CNI=$(dirname "$SOJOURN")/sojourn-cni
if [ -x "$CNI" ]; then
	printf '{"cniVersion":"1.1.0","name":"sjforeign","type":"sojourn-cni","sojourn":"%s"}' "$SOJOURN" |
		env -i PATH="$PATH" CNI_COMMAND=STATUS CNI_PATH=/usr/lib/cni "$CNI" >"$WORK/out" 2>&1
	rc=$?
	if [ "$rc" = 0 ]; then
		ok "CNI STATUS: success beside attachments of another version"
	else
		bad "CNI STATUS: rc $rc: $(tr '\n' '|' <"$WORK/out")"
	fi
fi

# gc: C's namespace is gone, A and B are on live devices
run "gc" gc &&
if [ "$rc" = 0 ] && [ ! -e "$C" ] && [ -d "$A" ] && [ -d "$B" ] &&
   grep -qF "removed $C (namespace gone)" "$WORK/out"; then
	ok "gc: removed the foreign folder of a gone namespace, kept A and B"
else
	bad "gc: rc $rc: $(tr '\n' '|' <"$WORK/out") $(tr '\n' '|' <"$WORK/err")"
fi

# detach B without reading its meta: the tcx link goes with the pins
# (this bpftool knows no tcx by name: the link is followed by its id)
link_id() { bpftool link show pinned "$1" | grep -o '^[0-9]*'; }
link_gone() {	# ID: freed within 2 s (the kernel frees it after the last put)
	for _ in $(seq 20); do
		bpftool link show id "$1" >/dev/null 2>&1 || return 0
		sleep 0.1
	done
	return 1
}
blink=$(link_id "$B/link_egress") dlink=$(link_id "$D/link_egress")
[ -n "$blink" ] && [ -n "$dlink" ] || bad "B or D has no pinned tc link"
run "detach sjfb" detach sjfb &&
if [ "$rc" = 0 ] && [ ! -s "$WORK/err" ] && [ ! -e "$B" ] && link_gone "$blink" &&
   [ -d "$D" ] && bpftool link show id "$dlink" >/dev/null 2>&1; then
	ok "detach sjfb: B's folder and tcx link $blink gone, D's kept"
else
	bad "detach sjfb: rc $rc, folder $( [ -e "$B" ] && echo kept || echo gone): $(tr '\n' '|' <"$WORK/err")"
fi

# replace A: attached anew in this build's layout, then read as any other
run "replace sjfa" replace sjfa rate 20mbit &&
if [ "$rc" = 0 ] && grep -qF "$A was made by another version of sojourn ($stat_why): attaching anew" "$WORK/err" &&
   [ "$(field value "$A/stats")" = "$stats" ]; then
	ok "replace sjfa: attached anew, stats $stats bytes"
else
	bad "replace sjfa: rc $rc: $(tr '\n' '|' <"$WORK/err")"
fi
ro "show sjfa after replace" show sjfa -s &&
if [ "$rc" = 0 ] && [ ! -s "$WORK/err" ] && grep -q "rate 20Mbit" "$WORK/out"; then
	ok "show sjfa after replace: read whole"
else
	bad "show sjfa after replace: rc $rc: $(tr '\n' '|' <"$WORK/err") $(head -1 "$WORK/out")"
fi
# E: the host's shared maps made by another version (loader/host.c): a
# new attachment is refused in one line naming the map, never registered
# in maps it would misread; the attachments there keep running
settings=$(field value "$ROOT/host/settings")
replace "$ROOT/host/settings" array 4 $((settings + 8))
run "attach with a foreign host" attach sjfb rate 10mbit &&
if [ "$rc" != 0 ] && [ "$(grep -c '' "$WORK/err")" = 1 ] &&
   grep -q "^sojourn: $ROOT/host holds another version's map settings" "$WORK/err" &&
   [ ! -e "$B" ] && [ -z "$(ls "$ROOT" | grep '^tmp-')" ]; then
	ok "attach with a foreign host: refused in one line, nothing half-made"
else
	bad "attach with a foreign host: rc $rc: $(tr '\n' '|' <"$WORK/err")"
fi
"$SOJOURN" detach sjfa && "$SOJOURN" detach sjfb ingress || bad "final detach"
[ -z "$(ls -A "$ROOT")" ] || bad "left behind: $(ls "$ROOT")"

verdict_end foreign_layout
