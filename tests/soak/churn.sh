#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Soak (make soak, not make check): SOAK_SECS (600) of 4 cubic uploads
# through the 20 Mbit bottleneck while sojourn is attached, retuned and
# detached every second (attach, change x3, detach, ...).  Before and after,
# with one attachment in place: pin folders of the namespace, entries of its
# maps, sojourn programs the kernel runs at the device, BPF programs and
# maps on the host, and kernel memory (Slab, Percpu).  None may grow but by
# noise: entries within their bounds, folders and programs at the device
# exactly as before, memory within SOAK_MEM_KB (8192 kB).  Host-wide
# program and map counts are checked only with SOAK_QUIET_HOST=1: on a
# shared host they count everyone's attachments.
# Exit 0 pass, 1 fail, 77 skip.

# shellcheck source=SCRIPTDIR/../lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
topo_require sojourn
TCXQ=$SJ_ROOT/build/tcx_query
[ -x "$TCXQ" ] || skip "$TCXQ not built (make tests)"

SOAK_SECS=${SOAK_SECS:-600}
SOAK_MEM_KB=${SOAK_MEM_KB:-8192}
topo_trap "$NS_R:$DEV_RS"

topo_up 1
topo_ecn 1 1
topo_shape 20mbit
topo_servers 5201

snapshot() {
	local pin cookie
	pin=$(sj show "$DEV_RS" -j -n "$NS_R" | jq -r '.[0].pin')
	cookie=$(basename "$pin" | cut -d- -f1)
	echo "folders $(find /sys/fs/bpf/sojourn -maxdepth 1 -name "$cookie-*" | wc -l)"
	echo "hooked $("$TCXQ" "$NS_R" "$DEV_RS" | grep -c sojourn_egress)"
	echo "flows $(sj show "$DEV_RS" -s -j -n "$NS_R" | jq -r '.[0].stats.flows')"
	echo "progs $(bpftool prog show -j | jq '[.[] | select(.name // "" | startswith("sojourn"))] | length')"
	echo "maps $(bpftool map show -j | jq 'length')"
	awk '/^(Slab|Percpu):/ {print $1, $2}' /proc/meminfo
}

sj attach "$DEV_RS" -n "$NS_R" || die "attach"
sleep 2
snapshot >"$WORK/before"
inc timeout $((SOAK_SECS + 30)) iperf3 -c "$IP_S" -t "$SOAK_SECS" -P 4 -C cubic >/dev/null 2>&1 &
load=$!
end=$(($(date +%s) + SOAK_SECS)) i=0 errs=0
while [ "$(date +%s)" -lt "$end" ]; do
	case $((i % 5)) in
	0) sj detach "$DEV_RS" -n "$NS_R" ;;
	1) sj attach "$DEV_RS" -n "$NS_R" ;;
	*) sj change "$DEV_RS" target "$((2 + i % 7))ms" -n "$NS_R" ;;
	esac || errs=$((errs + 1))
	i=$((i + 1))
	sleep 1
done
wait "$load"
sj detach "$DEV_RS" -n "$NS_R"; sj attach "$DEV_RS" -n "$NS_R" || die "final attach"
sleep 2
snapshot >"$WORK/after"
paste "$WORK/before" "$WORK/after" | awk '{printf "%-8s %10s -> %s\n", $1, $2, $4}' >&2

get() { awk -v k="$2" '$1 == k || $1 == k":" {print $2}' "$WORK/$1"; }
row "churn commands" "$i" "" info
check "failed commands" "$errs" '==' 0
for k in folders hooked; do
	check "$k after vs before" "$(( $(get after $k) - $(get before $k) ))" '<=' 0
done
# host-wide counts see every other user of BPF: checks on a quiet host only
for k in progs maps; do
	d=$(( $(get after $k) - $(get before $k) ))
	if [ "${SOAK_QUIET_HOST:-0}" = 1 ]; then
		check "$k on the host, after vs before" "$d" '<=' 0
	else
		row "$k on the host, after vs before" "$d" "" "info (SOAK_QUIET_HOST=1 checks)"
	fi
done
check "flows in the table" "$(get after flows)" '<=' 65536
check "Slab growth (kB)" "$(( $(get after Slab) - $(get before Slab) ))" '<' "$SOAK_MEM_KB"
check "Percpu growth (kB)" "$(( $(get after Percpu) - $(get before Percpu) ))" '<' "$SOAK_MEM_KB"
finish soak_churn
