#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# sj-run: beside (nothing here is timed: tests/run.sh may run it beside
# another such test, in a bpffs of its own)
#
# What is attached outlives its device or its namespace only as pins:
#  1. device deleted while attached: the kernel drops the hook; `gc` removes
#     the folder and with it the attachment's own maps and its entry in the
#     host's (the programs are the host's, shared: they stay while other
#     attachments run them); `detach DEV` by the gone name does the same for
#     a second device.
#  2. named namespace deleted while attached: `gc` removes its folder.
#  3. a namespace with no name, alive through a process: `gc` keeps its
#     attachment; once the process is gone, `gc` removes it.
#  4. live attachments in a named namespace are never touched, and
#     `gc --dry-run` removes nothing.
# Exit 0 pass, 1 fail, 77 skip.

# shellcheck source=SCRIPTDIR/fault_lib.sh
. "$(dirname "$0")/fault_lib.sh"
fl_require unshare

NS=sjg$$ NS2=sjh$$
A=ga$$ B=gb$$ C=gc$$ L=gl$$ P=gp$$
pid=
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null
	for d in $A $B $C; do timeout 10 "$SOJOURN" detach "$d" -n "$NS" >/dev/null 2>&1; done
	timeout 10 "$SOJOURN" detach "$L" -n "$NS2" >/dev/null 2>&1
	ip netns del "$NS" 2>/dev/null
	ip netns del "$NS2" 2>/dev/null
	"$SOJOURN" gc >/dev/null 2>&1
}
trap cleanup EXIT
trap 'exit 130' INT TERM

fl_ns "$NS" "$A" "$B" "$C" && fl_ns "$NS2" "$L" || { echo "FAIL: cannot build namespaces"; exit 1; }
COOKIE=$(fl_cookie "$NS" "$A") || { echo "FAIL: plain attach/detach"; exit 1; }
COOKIE2=$(fl_cookie "$NS2" "$L") || { echo "FAIL: plain attach/detach"; exit 1; }
for d in $A $B $C; do "$SOJOURN" attach "$d" -n "$NS" || bad "attach $d"; done
"$SOJOURN" attach "$L" -n "$NS2" || bad "attach $L"

dir_of() { echo "$PIN_ROOT/$1-$2-egress"; }
# the attachment's own maps (its counters, histogram and meta)
own_maps() { local m; for m in stats hist meta; do bpftool map show pinned "$1/$m" -j | jq -r .id; done; }
gone_maps() { local id; [ $# -gt 0 ] || return 1; for id in "$@"; do [ "$id" != null ] || return 1; bpftool map show id "$id" >/dev/null 2>&1 && return 1; done; return 0; }
# entries of the host's attachments map for an ifindex of $NS (another
# namespace numbers its devices from 1 too)
host_entries() { bpftool map dump pinned "$PIN_ROOT/host/attachments" -j 2>/dev/null | jq --argjson i "$1" --argjson c "$COOKIE" '[.[] | select(.formatted.key.ifindex == $i and .formatted.key.netns_cookie == $c)] | length' || echo 0; }

# 1. device deleted
ia=$(ifindex "$NS" "$A") ib=$(ifindex "$NS" "$B")
da=$(dir_of "$COOKIE" "$ia") db=$(dir_of "$COOKIE" "$ib")
mapfile -t ida < <(own_maps "$da")
mapfile -t idb < <(own_maps "$db")
ip -n "$NS" link del "$A" && ip -n "$NS" link del "$B" || bad "cannot delete devices"
[ -d "$da" ] && [ -d "$db" ] && log "pins outlive the devices, as expected"
out=$("$SOJOURN" gc --dry-run)
[ -d "$da" ] && grep -q "would remove $da (device gone)" <<<"$out" &&
	ok "gc --dry-run names the gone device's folder and removes nothing" ||
	bad "gc --dry-run: $out"
"$SOJOURN" detach "$B" -n "$NS" || bad "detach of a gone device by name"
[ -d "$db" ] && bad "detach $B (gone) left $db" || ok "detach by the gone device's name removes its pins"
out=$("$SOJOURN" gc)
if [ ! -d "$da" ] && grep -q "removed $da (device gone)" <<<"$out"; then
	ok "gc removed the folder of the deleted device"
else
	bad "gc after device deletion: $out"
fi
sleep 1	# maps are freed after an RCU grace period
gone_maps "${ida[@]}" "${idb[@]}" && ok "their own maps are freed" ||
	bad "maps ${ida[*]} ${idb[*]} still there"
[ "$(host_entries "$ia")$(host_entries "$ib")" = 00 ] &&
	ok "their entries left the host's maps" || bad "host entries left: $(host_entries "$ia") $(host_entries "$ib")"

# 4. the live ones stay
ic=$(ifindex "$NS" "$C") il=$(ifindex "$NS2" "$L")
[ -d "$(dir_of "$COOKIE" "$ic")" ] && [ -d "$(dir_of "$COOKIE2" "$il")" ] &&
	[ "$(hooked "$NS" "$C")" = 1 ] && ok "gc left the live attachments alone" ||
	bad "gc touched a live attachment"

# 2. named namespace deleted
dc=$(dir_of "$COOKIE" "$ic")
mapfile -t idc < <(own_maps "$dc")
ip netns del "$NS"
out=$("$SOJOURN" gc)
if [ ! -d "$dc" ] && grep -q "removed $dc (namespace gone)" <<<"$out"; then
	ok "gc removed the folder of the deleted namespace"
else
	bad "gc after namespace deletion: $out"
fi
sleep 1
gone_maps "${idc[@]}" && ok "its own maps are freed" || bad "maps ${idc[*]} still there"
[ -d "$(dir_of "$COOKIE2" "$il")" ] && ok "the other namespace's attachment stays" ||
	bad "gc removed a live namespace's folder"

# 3. a namespace with no name, alive through a process
unshare -n sleep 300 &
pid=$!
sleep 0.3
in_child() { nsenter --net="/proc/$pid/ns/net" "$@"; }
in_child ip link add "$P" type veth peer name "${P}p" && in_child ip link set "$P" up &&
	in_child tc qdisc add dev "$P" root pfifo && in_child "$SOJOURN" attach "$P" ||
	bad "attach in an unnamed namespace"
dp=$(in_child "$SOJOURN" show "$P" -j | jq -r '.[0].pin')
"$SOJOURN" gc >/dev/null
[ -d "$dp" ] && ok "gc keeps an unnamed namespace's attachment while a process lives in it" ||
	bad "gc removed $dp while its namespace lives"
kill "$pid"; wait "$pid" 2>/dev/null; pid=
# the namespace dies asynchronously; its devices with it
for _ in 1 2 3 4 5 6 7 8 9 10; do
	out=$("$SOJOURN" gc)
	[ -d "$dp" ] || break
	sleep 0.5
done
[ -d "$dp" ] && bad "gc kept $dp after its namespace died ($out)" ||
	ok "gc removed it once the namespace died"

verdict_end fault_gone
