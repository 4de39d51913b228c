#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# sojourn-cni run exactly as a container runtime runs a chained plugin:
# Debian's bridge plugin (host-local IPAM) makes the pod's veth, then
# sojourn-cni gets the same CNI_* environment and the network config with
# runtimeConfig.bandwidth and the bridge's prevResult on stdin.
#   - VERSION lists 1.0.0;
#   - ADD prints the prevResult back, and the host veth has rate mode with
#     ingressRate (20 Mbit, the pod's downloads) on its egress and
#     egressRate (10 Mbit, the pod's uploads) on its ingress; the pod
#     answers pings through it;
#   - CHECK passes, and fails with a CNI error once the rate is changed by
#     hand;
#   - DEL removes both attachments, and a second DEL succeeds (idempotent);
#   - a pod whose namespace is deleted before DEL: DEL still succeeds and
#     leaves nothing pinned;
#   - ADD without prevResult is refused with a CNI error.
# Exit 0 pass, 77 skip, 1 fail.  SOJOURN= and SOJOURN_CNI= override.

# shellcheck source=SCRIPTDIR/../lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
topo_require sojourn
CNI=${SOJOURN_CNI:-$SJ_ROOT/build/sojourn-cni}
PLUGINS=/usr/lib/cni
[ -x "$CNI" ] || skip "$CNI not built"
[ -x "$PLUGINS/bridge" ] && [ -x "$PLUGINS/host-local" ] ||
	skip "containernetworking-plugins not installed"

WORK=$(mktemp -d "/tmp/sjcni.XXXXXX")
BR=sjbr$$ NET=sjnet$$ POD=sjpod$$ POD2=sjpod2$$
cleanup() {
	for p in "$POD" "$POD2"; do
		[ -e "/run/netns/$p" ] && ip netns del "$p"
	done
	ip link del "$BR" 2>/dev/null
	for h in $(cat "$WORK"/host.* 2>/dev/null); do
		"$SOJOURN" detach "$h" >/dev/null 2>&1
		"$SOJOURN" detach "$h" ingress >/dev/null 2>&1
	done
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The network configuration, as a runtime hands it to each plugin
netconf() {	# TYPE [PREVRESULT-FILE]
	jq -n --arg type "$1" --arg br "$BR" --arg net "$NET" \
		--arg data "$WORK/ipam" --arg sojourn "$SOJOURN" \
		--slurpfile prev "${2:-/dev/null}" '
	{cniVersion: "1.0.0", name: $net, type: $type} +
	(if $type == "bridge" then
		{bridge: $br, isGateway: true, ipMasq: false,
		 ipam: {type: "host-local", dataDir: $data,
			ranges: [[{subnet: "198.18.77.0/24"}]]}}
	 else
		{sojourn: $sojourn,
		 capabilities: {bandwidth: true},
		 runtimeConfig: {bandwidth: {ingressRate: 20000000, egressRate: 10000000}}}
	 end) +
	(if ($prev | length) > 0 then {prevResult: $prev[0]} else {} end)'
}

# cni COMMAND PLUGIN CONTAINER NETNS [PREVRESULT-FILE]
cni() {
	netconf "$2" "${5:-}" | CNI_COMMAND=$1 CNI_CONTAINERID=$3 \
		CNI_NETNS=$4 CNI_IFNAME=eth0 CNI_PATH=$PLUGINS \
		"$(if [ "$2" = bridge ]; then echo "$PLUGINS/bridge"; else echo "$CNI"; fi)"
}

CNI_COMMAND=VERSION "$CNI" </dev/null | jq -e '.supportedVersions | index("1.0.0")' >/dev/null ||
	die "VERSION does not list 1.0.0"

# pod_up NAME: the bridge plugin's ADD, then ours; leaves $WORK/host.NAME
pod_up() {
	ip netns add "$1" || die "netns $1"
	cni ADD bridge "id-$1" "/run/netns/$1" >"$WORK/bridge.$1.json" ||
		die "bridge ADD: $(cat "$WORK/bridge.$1.json")"
	jq -r '.interfaces[] | select(.sandbox == null and .name != "'"$BR"'") | .name' \
		"$WORK/bridge.$1.json" >"$WORK/host.$1"
	[ -s "$WORK/host.$1" ] || die "no host veth in the bridge result"
	cni ADD sojourn-cni "id-$1" "/run/netns/$1" "$WORK/bridge.$1.json" \
		>"$WORK/ours.$1.json" || die "sojourn-cni ADD: $(cat "$WORK/ours.$1.json")"
}

pod_up "$POD"
HOST=$(cat "$WORK/host.$POD")
jq -e --slurpfile b "$WORK/bridge.$POD.json" '.interfaces == $b[0].interfaces and .ips == $b[0].ips' \
	"$WORK/ours.$POD.json" >/dev/null || die "ADD did not pass the prevResult on"
"$SOJOURN" show "$HOST" -j >"$WORK/show.json"
jq -e 'length == 2 and
	(.[] | select(.direction == "egress") | .mode == "rate" and .rate == 2500000) and
	(.[] | select(.direction == "ingress") | .mode == "rate" and .rate == 1250000)' \
	"$WORK/show.json" >/dev/null || die "host veth $HOST: $(cat "$WORK/show.json")"
ip netns exec "$POD" fping -q -c 3 -p 200 -t 1000 198.18.77.1 2>/dev/null ||
	die "pod cannot reach its gateway through sojourn"
log "ADD: $HOST egress 20 Mbit, ingress 10 Mbit"

cni CHECK sojourn-cni "id-$POD" "/run/netns/$POD" "$WORK/bridge.$POD.json" >"$WORK/check.json" ||
	die "CHECK failed on a good pod: $(cat "$WORK/check.json")"
"$SOJOURN" change "$HOST" rate 5mbit || die "change by hand"
cni CHECK sojourn-cni "id-$POD" "/run/netns/$POD" "$WORK/bridge.$POD.json" >"$WORK/check.json" &&
	die "CHECK passed with the wrong rate"
jq -e '.code >= 100 and (.msg | test("rate"))' "$WORK/check.json" >/dev/null ||
	die "CHECK error is not a CNI error: $(cat "$WORK/check.json")"

# DEL in reverse order of ADD, twice
cni DEL sojourn-cni "id-$POD" "/run/netns/$POD" "$WORK/bridge.$POD.json" >/dev/null || die "DEL"
[ "$("$SOJOURN" show "$HOST" -j | jq length)" = 0 ] || die "DEL left $HOST attached"
cni DEL sojourn-cni "id-$POD" "/run/netns/$POD" "$WORK/bridge.$POD.json" >/dev/null ||
	die "second DEL failed"
cni DEL bridge "id-$POD" "/run/netns/$POD" >/dev/null || die "bridge DEL"
ip netns del "$POD"
cni DEL sojourn-cni "id-$POD" "/run/netns/$POD" >/dev/null || die "DEL after the pod is gone"

# a pod whose namespace vanished before DEL: its pins must still go
pod_up "$POD2"
HOST2=$(cat "$WORK/host.$POD2")
COOKIE=$("$SOJOURN" show "$HOST2" -j | jq -r '.[0].netns_cookie')
IDX=$(cat "/sys/class/net/$HOST2/ifindex")
ip netns del "$POD2"
for _ in $(seq 50); do [ -e "/sys/class/net/$HOST2" ] || break; sleep 0.1; done
cni DEL sojourn-cni "id-$POD2" "/run/netns/$POD2" >"$WORK/del2.json" ||
	die "DEL of a vanished pod: $(cat "$WORK/del2.json")"
ls -d /sys/fs/bpf/sojourn/"$COOKIE-$IDX"-* 2>/dev/null && die "pins of $HOST2 left behind"

netconf sojourn-cni | CNI_COMMAND=ADD CNI_CONTAINERID=x CNI_NETNS=/run/netns/none \
	CNI_IFNAME=eth0 CNI_PATH=$PLUGINS "$CNI" >"$WORK/err.json" && die "ADD without prevResult accepted"
jq -e '.code == 7 and (.msg | test("prevResult"))' "$WORK/err.json" >/dev/null ||
	die "no CNI error for a missing prevResult: $(cat "$WORK/err.json")"
echo "PASS: chained after bridge: ADD (20/10 Mbit), CHECK, DEL twice, DEL of a vanished pod, VERSION"
