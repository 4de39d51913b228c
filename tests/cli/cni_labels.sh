#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Pod labels (issue 16): sojourn-cni records the pod a Kubernetes runtime
# names in CNI_ARGS (K8S_POD_NAMESPACE, K8S_POD_NAME), and `sojourn export`
# puts pod_namespace and pod_name on every series of that pod's
# attachments.  Three pods, each a namespace with a veth, ADD as a runtime
# sends it (prevResult naming the host veth, rates in runtimeConfig):
#   - pod A, CNI_ARGS with a name holding a quote, a backslash and a
#     non-ASCII letter: its sojourn_info carries the labels, escaped as
#     Prometheus's text format wants; every series of its device carries
#     them (none left without);
#   - pod B, no CNI_ARGS: no pod label on any series of its device;
#   - pod C, a name with a tab (no label value we keep): ADD still
#     succeeds, its series have no pod labels;
#   - promtool check metrics passes on the whole output;
#   - after DEL of pod A its record is gone and no series names it.
# Nothing moves traffic: no timing lock.  Exit 0 pass, 77 skip, 1 fail.
# SOJOURN=, SOJOURN_CNI= and PROMTOOL= override the binaries.

# shellcheck source=SCRIPTDIR/../lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
topo_require sojourn
CNI=${SOJOURN_CNI:-$SJ_ROOT/build/sojourn-cni}
PROMTOOL=${PROMTOOL:-$SJ_ROOT/build/promtool}
[ -x "$CNI" ] || skip "$CNI not built"
[ -x "$PROMTOOL" ] || skip "$PROMTOOL missing (make tests unpacks Debian's)"

WORK=$(mktemp -d "/tmp/sjcnil.XXXXXX")
PODS="A B C"
cleanup() {
	for p in $PODS; do
		ip netns del "sjl$p$$" 2>/dev/null
		ip link del "sjlh$p$$" 2>/dev/null
		rm -f "/run/sojourn/cni/sjl-$p-$$-eth0"
	done
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# pod_net P: pod P's namespace sjlP$$ with eth0, its peer sjlhP$$ here
pod_net() {
	ip netns add "sjl$1$$" || die "netns sjl$1$$"
	ip link add "sjlh$1$$" type veth peer name eth0 netns "sjl$1$$" || die "veth of $1"
	ip link set "sjlh$1$$" up
	ip -n "sjl$1$$" link set eth0 up
}

# cni COMMAND P [CNI_ARGS]: the plugin for pod P, as a runtime runs it
cni() {
	jq -n --arg host "sjlh$2$$" --arg ns "/run/netns/sjl$2$$" --arg sj "$SOJOURN" '
	{cniVersion: "1.1.0", name: "sjlabels", type: "sojourn-cni", sojourn: $sj,
	 runtimeConfig: {bandwidth: {ingressRate: 20000000, egressRate: 10000000}},
	 prevResult: {cniVersion: "1.1.0",
		interfaces: [{name: $host}, {name: "eth0", sandbox: $ns}],
		ips: [{address: "198.18.78.2/24", interface: 1}]}}' |
	env -i CNI_COMMAND="$1" CNI_CONTAINERID="sjl-$2-$$" CNI_NETNS="/run/netns/sjl$2$$" \
		CNI_IFNAME=eth0 CNI_PATH=/nonexistent ${3+CNI_ARGS="$3"} "$CNI" \
		>"$WORK/$1.$2.out" 2>"$WORK/$1.$2.err"
}

NAME_A='web-"0\ü'
ARGS_A="IgnoreUnknown=1;K8S_POD_NAMESPACE=team-a;K8S_POD_NAME=$NAME_A;K8S_POD_INFRA_CONTAINER_ID=sjl-A-$$"
ARGS_C=$(printf 'K8S_POD_NAMESPACE=team-c;K8S_POD_NAME=tab\there')
for p in $PODS; do
	pod_net "$p"
done
cni ADD A "$ARGS_A" || die "ADD A: $(cat "$WORK/ADD.A.out")"
cni ADD B || die "ADD B: $(cat "$WORK/ADD.B.out")"
cni ADD C "$ARGS_C"
is "ADD with an unusable pod name: exit" "$?" 0
log "ADD C's stderr: $(cat "$WORK/ADD.C.err")"

sj export --textfile "$WORK/m.prom" 2>"$WORK/export.err" ||
	die "export: $(cat "$WORK/export.err")"

# pod A: the labels as the text format escapes them (\" and \\)
esc_a='web-\"0\\ü'
grep "^sojourn_info{device=\"sjlhA$$\",netns=" "$WORK/m.prom" |
	grep -qF "direction=\"egress\",pod_namespace=\"team-a\",pod_name=\"$esc_a\",mode=\"rate\","
verdict "pod A: sojourn_info has its pod, escaped" $?
[ "$(grep -c "^sojourn_info{device=\"sjlhA$$\"" "$WORK/m.prom")" = 2 ]
verdict "pod A: two attachments (egress, ingress)" $?
all_a=$(grep -c "{device=\"sjlhA$$\"" "$WORK/m.prom")
check "pod A: series of its device" "$all_a" '>=' 40
is "pod A: series without its pod labels" \
	"$(grep "{device=\"sjlhA$$\"" "$WORK/m.prom" | grep -vcF ",pod_namespace=\"team-a\",pod_name=\"$esc_a\"")" 0
for p in B C; do
	check "pod $p: series of its device" "$(grep -c "{device=\"sjlh$p$$\"" "$WORK/m.prom")" '>=' 40
	is "pod $p: series with a pod label" \
		"$(grep "{device=\"sjlh$p$$\"" "$WORK/m.prom" | grep -c 'pod_namespace=\|pod_name=')" 0
done
"$PROMTOOL" check metrics <"$WORK/m.prom" >"$WORK/promtool.out" 2>&1
rc=$?
[ $rc = 0 ] || log "promtool: $(cat "$WORK/promtool.out")"
verdict "promtool check metrics" $rc

cni DEL A "$ARGS_A" || die "DEL A: $(cat "$WORK/DEL.A.out")"
[ ! -e "/run/sojourn/cni/sjl-A-$$-eth0" ]
verdict "pod A: its record gone after DEL" $?
sj export --textfile "$WORK/after.prom" 2>"$WORK/export.err" ||
	die "export: $(cat "$WORK/export.err")"
is "series naming pod A after its DEL" "$(grep -c 'pod_namespace="team-a"' "$WORK/after.prom")" 0
for p in B C; do
	cni DEL "$p" || die "DEL $p: $(cat "$WORK/DEL.$p.out")"
done
finish "pod labels from CNI_ARGS on every series of the pod's attachments"
