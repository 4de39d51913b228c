#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# sj-run: beside (nothing here is timed: tests/run.sh may run it beside
# another such test, in a bpffs of its own)
#
# sojourn-cni against the rules of CNI spec 1.1, run as a runtime runs it:
# CNI_* in an otherwise empty environment, the request configuration on
# stdin.  One row per rule:
#   - VERSION advertises 0.3.0 .. 1.1.0 and echoes the cniVersion it was given;
#   - the error codes: bad JSON 6, missing/unknown CNI_COMMAND and a bad
#     CNI_CONTAINERID or missing CNI_IFNAME 4 (naming the variable),
#     cniVersion 2.0.0 or "one" 1, no network name 7, a negative rate 7,
#     CHECK at 0.3.1 and STATUS/GC at 1.0.0 1; every error is the spec's
#     object (cniVersion, code, msg, details) with a non-zero exit;
#   - STATUS: exit 0 and no output when sojourn can work, 50 naming the
#     cause when the sojourn binary is missing;
#   - ADD passes a 1.1.0 prevResult on unchanged, "dns" and keys we do not
#     know included;
#   - the host interface comes from prevResult.interfaces: a pod whose veth
#     peer lives in another namespace (so its peer ifindex names some
#     unrelated device here) gets the prevResult's host veth; without
#     interfaces in prevResult that pod is refused, not shaped on the
#     unrelated device;
#   - DEL undoes a record an older plugin wrote (the host name alone);
#   - GC keeps the attachments of valid-attachments, removes those of the
#     network's other pods, leaves an attachment made by hand, another
#     network's pod and an older plugin's record (no network in it) alone,
#     clears pins whose device is gone, and a DEL after it still succeeds.
# ADD/CHECK of the error rules and the host-interface rules run a stub in
# place of sojourn that logs its arguments; STATUS and GC run the real one.
# Nothing moves traffic: no timing lock.  Exit 0 pass, 77 skip, 1 fail.
# SOJOURN= and SOJOURN_CNI= override the binaries.

# shellcheck source=SCRIPTDIR/../lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
topo_require sojourn
CNI=${SOJOURN_CNI:-$SJ_ROOT/build/sojourn-cni}
[ -x "$CNI" ] || skip "$CNI not built"
FAILS=0 TABLE=
export FAILS TABLE	# finish() reads them
shopt -s lastpipe	# `conf | plugin` sets OUT and RC here

WORK=$(mktemp -d "/tmp/sjspec.XXXXXX")
ID=sjs$$			# ids and names start with it; short for IFNAMSIZ
NET=sjspecnet$$			# our network's name
POD_A=${ID}a POD_B=${ID}b POD_C=${ID}c POD_O=${ID}o POD_Z=${ID}z POD_X=${ID}x
HOST_A=${ID}ha HOST_B=${ID}hb HOST_C=${ID}hc HOST_D=${ID}hd HOST_O=${ID}ho HOST_X=${ID}hx
STATE=/run/sojourn/cni
cleanup() {
	for h in "$HOST_A" "$HOST_B" "$HOST_C" "$HOST_D" "$HOST_O" "$HOST_X"; do
		if [ -e "/sys/class/net/$h" ]; then
			"$SOJOURN" detach "$h" >/dev/null 2>&1
			"$SOJOURN" detach "$h" ingress >/dev/null 2>&1
			ip link del "$h" 2>/dev/null
		fi
	done
	for p in "$POD_A" "$POD_B" "$POD_C" "$POD_O" "$POD_Z" "$POD_X"; do
		[ -e "/run/netns/$p" ] && ip netns del "$p"
	done
	rm -f "$STATE/$ID"-*
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# A stub in sojourn's place: logs its arguments (a -batch's lines, one
# command a line), answers show with nothing
cat >"$WORK/stub" <<EOF
#!/bin/sh
if [ "\$1" = -batch ]; then cat >>"$WORK/stub.log"; exit 0; fi
echo "\$*" >>"$WORK/stub.log"
[ "\$1" = show ] && echo '[]'
exit 0
EOF
chmod +x "$WORK/stub"

# plugin VAR=VALUE...: runs the plugin with only these variables (and
# PATH), the configuration on stdin; leaves OUT (stdout) and RC, and
# counts failures whose output lacks a field of the spec's error object
BAD_OBJECTS=0
plugin() {
	OUT=$(env -i PATH="$PATH" "$@" "$CNI" 2>"$WORK/stderr")
	RC=$?
	[ "$RC" = 0 ] && return
	jq -e 'has("cniVersion") and has("code") and has("msg") and has("details")' \
		<<<"$OUT" >/dev/null 2>&1 || {
		BAD_OBJECTS=$((BAD_OBJECTS + 1)); log "not the spec's error object: $OUT"; }
}

# code: the error code of the last run, "exit 0" if it succeeded
code() {
	if [ "$RC" = 0 ]; then echo "exit 0"; return; fi
	jq -r '.code' <<<"$OUT" 2>/dev/null || echo "not JSON"
}
msg() { jq -r '.msg' <<<"$OUT" 2>/dev/null; }

# conf VERSION [JQ-EXPR]: a request configuration for our plugin
conf() {
	jq -cn --arg v "$1" --arg net "$NET" --arg sojourn "${SJ_BIN:-$WORK/stub}" "
	{cniVersion: \$v, name: \$net, type: \"sojourn-cni\", sojourn: \$sojourn,
	 runtimeConfig: {bandwidth: {ingressRate: 20000000, egressRate: 10000000}}}
	| ${2:-.}"
}

# A runtime's 1.1.0 result of the main plugin for pod POD, host veth HOST
prev_result() {	# POD HOST
	jq -cn --arg pod "/run/netns/$1" --arg host "$2" '{
	cniVersion: "1.1.0",
	interfaces: [
		{name: "cni0", mac: "02:00:00:00:00:01"},
		{name: $host, mac: "02:00:00:00:00:02", "x-vendor-key": {a: 1}},
		{name: "eth0", mac: "02:00:00:00:00:03", sandbox: $pod, mtu: 1500,
		 socketPath: "/run/x.sock", pciID: "0000:00:00.0"}],
	ips: [{address: "198.18.90.2/24", gateway: "198.18.90.1", interface: 2}],
	routes: [{dst: "0.0.0.0/0", priority: 10, table: 254, scope: 0}],
	dns: {nameservers: ["198.18.90.1"], domain: "cluster.local",
	      search: ["svc.cluster.local"], options: ["ndots:5"]},
	"x-unknown-top": [1, 2, 3]}'
}

# pod_veth POD HOST: a pod namespace whose eth0 is a veth to HOST here
pod_veth() {
	ip netns add "$1" || die "netns $1"
	ip link add "$2" type veth peer name eth0 netns "$1" || die "veth $2"
	{ ip link set "$2" up && ip -n "$1" link set eth0 up; } || die "link up"
}

# pod_del POD HOST: the namespace deleted, and its veth gone here too
pod_del() {
	ip netns del "$1"
	for _ in $(seq 50); do [ -e "/sys/class/net/$2" ] || return 0; sleep 0.1; done
	die "$2 still there after $1 was deleted"
}

attach_env() {	# CONTAINER POD
	echo CNI_CONTAINERID="$1" CNI_NETNS="/run/netns/$2" CNI_IFNAME=eth0 CNI_PATH=/usr/lib/cni
}

# ---- VERSION ----
conf 1.1.0 | plugin CNI_COMMAND=VERSION
is "VERSION: supportedVersions" "$(jq -c .supportedVersions <<<"$OUT")" \
	'["0.3.0","0.3.1","0.4.0","1.0.0","1.1.0"]'
echo '{"cniVersion":"0.4.0"}' | plugin CNI_COMMAND=VERSION
is "VERSION: cniVersion echoes 0.4.0" "$(jq -r .cniVersion <<<"$OUT")" 0.4.0

# ---- error codes ----
# shellcheck disable=SC2046  # attach_env's words are separate variables
{
	printf '{"cniVersion": "1.1.0", "name": ' | plugin CNI_COMMAND=ADD $(attach_env "$ID-1" "$POD_A")
	is "bad JSON -> 6" "$(code)" 6
	conf 1.1.0 | plugin $(attach_env "$ID-1" "$POD_A")
	is "no CNI_COMMAND -> 4" "$(code)" 4
	conf 1.1.0 | plugin CNI_COMMAND=FROB $(attach_env "$ID-1" "$POD_A")
	is "unknown CNI_COMMAND -> 4" "$(code)" 4
	conf 1.1.0 | plugin CNI_COMMAND=ADD CNI_CONTAINERID="$ID-1" CNI_NETNS=/run/netns/x CNI_PATH=/usr/lib/cni
	is "ADD without CNI_IFNAME -> 4" "$(code)" 4
	is "  ... naming CNI_IFNAME" "$(msg | grep -o CNI_IFNAME)" CNI_IFNAME
	conf 1.1.0 | plugin CNI_COMMAND=ADD CNI_CONTAINERID="-$ID" CNI_NETNS=/run/netns/x \
		CNI_IFNAME=eth0 CNI_PATH=/usr/lib/cni
	is "CNI_CONTAINERID -x -> 4" "$(code)" 4
	conf 2.0.0 | plugin CNI_COMMAND=ADD $(attach_env "$ID-1" "$POD_A")
	is "cniVersion 2.0.0 -> 1" "$(code)" 1
	conf one | plugin CNI_COMMAND=ADD $(attach_env "$ID-1" "$POD_A")
	is "cniVersion \"one\" -> 1" "$(code)" 1
	conf 1.1.0 'del(.name)' | plugin CNI_COMMAND=ADD $(attach_env "$ID-1" "$POD_A")
	is "no network name -> 7" "$(code)" 7
	conf 1.1.0 '.runtimeConfig.bandwidth.ingressRate = -5' |
		plugin CNI_COMMAND=ADD $(attach_env "$ID-1" "$POD_A")
	is "negative ingressRate -> 7" "$(code)" 7
	conf 0.3.1 | plugin CNI_COMMAND=CHECK $(attach_env "$ID-1" "$POD_A")
	is "CHECK at cniVersion 0.3.1 -> 1" "$(code)" 1
}

# ---- STATUS (the real sojourn) ----
SJ_BIN=$SOJOURN conf 1.1.0 | plugin CNI_COMMAND=STATUS CNI_PATH=/usr/lib/cni
is "STATUS, sojourn can work" "$(code)" "exit 0"
is "  ... prints nothing" "${OUT:-nothing}" nothing
[ "$RC" = 0 ] || log "STATUS: $OUT"
SJ_BIN=$WORK/no-such-sojourn conf 1.1.0 | plugin CNI_COMMAND=STATUS CNI_PATH=/usr/lib/cni
is "STATUS, sojourn missing -> 50" "$(code)" 50
is "  ... naming the binary" "$(msg | grep -o no-such-sojourn)" no-such-sojourn
SJ_BIN=$SOJOURN conf 1.0.0 | plugin CNI_COMMAND=STATUS CNI_PATH=/usr/lib/cni
is "STATUS at cniVersion 1.0.0 -> 1" "$(code)" 1
SJ_BIN=$SOJOURN conf 1.0.0 '. + {"cni.dev/valid-attachments": []}' |
	plugin CNI_COMMAND=GC CNI_PATH=/usr/lib/cni
is "GC at cniVersion 1.0.0 -> 1" "$(code)" 1
SJ_BIN=$SOJOURN conf 1.1.0 | plugin CNI_COMMAND=GC CNI_PATH=/usr/lib/cni
is "GC without valid-attachments -> 7" "$(code)" 7

# ---- ADD: prevResult through, host veth from prevResult (stub sojourn) ----
# shellcheck disable=SC2046
{
	pod_veth "$POD_A" "$HOST_A"
	PREV=$(prev_result "$POD_A" "$HOST_A")
	conf 1.1.0 ".prevResult = $PREV" | plugin CNI_COMMAND=ADD $(attach_env "$ID-a" "$POD_A")
	[ "$RC" = 0 ] || log "ADD: $OUT"
	verdict "ADD passes a 1.1.0 prevResult on unchanged" \
		"$(jq -e --argjson p "$PREV" '. == $p' <<<"$OUT" >/dev/null 2>&1; echo $?)"

	# pod Z's eth0 is a veth whose peer lives in namespace X, not here:
	# its IFLA_LINK is the peer's ifindex in X (2), which here names some
	# other device (ours: lo is 1, the first device made is 2)
	{ ip netns add "$POD_Z" && ip netns add "$POD_X"; } || die "netns"
	ip -n "$POD_X" link add xpeer index 2 type veth peer name eth0 netns "$POD_Z" index 3 ||
		die "veth in $POD_X"
	pod_veth "$POD_O" "$HOST_X"	# the host veth prevResult names
	: >"$WORK/stub.log"
	conf 1.1.0 ".prevResult = $(prev_result "$POD_Z" "$HOST_X")" |
		plugin CNI_COMMAND=ADD $(attach_env "$ID-z" "$POD_Z")
	[ "$RC" = 0 ] || log "ADD of pod Z: $OUT"
	is "host veth from prevResult.interfaces" \
		"$(awk '$1 == "replace" {print $2}' "$WORK/stub.log" | sort -u | tr '\n' ' ')" "$HOST_X "
	: >"$WORK/stub.log"
	conf 1.1.0 '.prevResult = {cniVersion: "1.1.0"}' |
		plugin CNI_COMMAND=ADD $(attach_env "$ID-y" "$POD_Z")
	is "no interfaces, peer not here: refused" \
		"$( [ "$RC" != 0 ] && echo refused || echo accepted) $(awk '$1 == "replace" {print $2}' "$WORK/stub.log" | sort -u | tr '\n' ' ')" "refused "
	: >"$WORK/stub.log"
	conf 1.1.0 '.prevResult = {cniVersion: "1.1.0"}' |
		plugin CNI_COMMAND=ADD $(attach_env "$ID-a" "$POD_A")
	is "no interfaces: the veth's peer, as before" \
		"$(awk '$1 == "replace" {print $2}' "$WORK/stub.log" | sort -u | tr '\n' ' ')" "$HOST_A "
	# a record an older plugin wrote (the host name alone) is still undone
	rm -f "$STATE/$ID"-*	# the stub attached nothing
	echo "$HOST_A" >"$STATE/$ID-old-eth0"
	: >"$WORK/stub.log"
	conf 1.1.0 | plugin CNI_COMMAND=DEL $(attach_env "$ID-old" "$POD_A")
	is "DEL of an older plugin's record" \
		"$RC $(grep -c "^detach $HOST_A " "$WORK/stub.log") $([ -e "$STATE/$ID-old-eth0" ] && echo kept)" "0 2 "
	pod_del "$POD_A" "$HOST_A"; pod_del "$POD_O" "$HOST_X"
	ip netns del "$POD_Z"; ip netns del "$POD_X"
}

# ---- GC (the real sojourn) ----
# A and B: pods of our network; C: ours too, its namespace gone without DEL;
# O: a pod of another network; D: attached by hand, never by the plugin.
# shellcheck disable=SC2046
{
	export SJ_BIN=$SOJOURN
	for p in A B C O; do
		pod=POD_$p host=HOST_$p
		pod_veth "${!pod}" "${!host}"
		net=$NET; [ $p = O ] && net=${NET}o
		conf 1.1.0 ".name = \"$net\" | .prevResult = $(prev_result "${!pod}" "${!host}")" |
			plugin CNI_COMMAND=ADD $(attach_env "$ID-$p" "${!pod}")
		[ "$RC" = 0 ] || die "ADD of pod $p: $OUT"
	done
	ip link add "$HOST_D" type veth peer name "${HOST_D}p" || die "veth $HOST_D"
	"$SOJOURN" attach "$HOST_D" rate 5mbit >/dev/null || die "attach $HOST_D by hand"
	C_IDX=$(cat "/sys/class/net/$HOST_C/ifindex")
	C_PINS=$("$SOJOURN" show "$HOST_C" -j | jq -r '.[].pin')
	pod_del "$POD_C" "$HOST_C"
	echo "$HOST_D" >"$STATE/$ID-old-eth0"	# an older plugin's: no network

	conf 1.1.0 ". + {\"cni.dev/valid-attachments\": [
		{containerID: \"$ID-A\", ifname: \"eth0\"},
		{containerID: \"$ID-gone\", ifname: \"eth0\"}]}" |
		plugin CNI_COMMAND=GC CNI_PATH=/usr/lib/cni
	[ "$RC" = 0 ] || log "GC: $OUT"
	is "GC: exit 0, no output" "$RC ${OUT:-nothing}" "0 nothing"
	is "GC keeps the valid pod's attachments" "$("$SOJOURN" show "$HOST_A" -j | jq length)" 2
	is "GC removes another pod's attachments" "$("$SOJOURN" show "$HOST_B" -j | jq length)" 0
	is "GC leaves another network's pod" "$("$SOJOURN" show "$HOST_O" -j | jq length)" 2
	is "GC leaves an attachment made by hand" "$("$SOJOURN" show "$HOST_D" -j | jq length)" 1
	is "GC leaves an older plugin's record" "$([ -e "$STATE/$ID-old-eth0" ] && echo kept)" kept
	left=0
	for pin in $C_PINS; do [ -e "$pin" ] && left=$((left + 1)); done
	is "GC clears pins of a vanished device ($C_IDX)" "$left" 0
	conf 1.1.0 | plugin CNI_COMMAND=DEL $(attach_env "$ID-B" "$POD_B")
	is "DEL after GC" "$(code)" "exit 0"
	conf 1.1.0 '. + {"cni.dev/valid-attachments": []}' | plugin CNI_COMMAND=GC
	is "GC without CNI_PATH -> 4" "$(code)" 4
	for p in A O; do
		pod=POD_$p
		conf 1.1.0 | plugin CNI_COMMAND=DEL $(attach_env "$ID-$p" "${!pod}")
	done
}

is "errors in the spec's object" "$BAD_OBJECTS" 0
finish "CNI spec 1.1: VERSION, error codes, STATUS, GC, prevResult, host veth"
