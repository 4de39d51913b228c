#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# One loaded object per host (loader/host.c), tried as a node runs it:
# several devices, both directions, rate and queue mode, two namespaces.
#   - programs: one per hook, mode, direction and namespace, however many
#     devices; one dequeue program for the host;
#   - state: one device's traffic shows on its own attachment only;
#   - flows N: a device that makes new flows past its budget has them
#     counted in flows_capped and leaves the other devices' flows be;
#   - the last detach leaves no host folder, program or map of ours.
# Exit 0 pass, 1 fail, 77 skip.

SJ_ROOT=${SJ_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
SOJOURN=${SOJOURN:-$SJ_ROOT/build/sojourn}
FLOOD=${FLOOD:-$SJ_ROOT/build/sj_flood}
PIN_ROOT=/sys/fs/bpf/sojourn
H=sjho$$ P=sjhp$$

# log, skip, die and the other helpers every script shares
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"

[ "$(id -u)" = 0 ] || skip "needs root"
[ -x "$SOJOURN" ] || skip "$SOJOURN not built (make first)"
[ -x "$FLOOD" ] || skip "$FLOOD not built (make tests)"
for t in ip tc jq bpftool nsenter python3; do
	command -v "$t" >/dev/null || skip "$t not installed"
done
# the counts below are the host's: another attachment would blur them
[ -z "$(ls "$PIN_ROOT" 2>/dev/null)" ] ||
	skip "$PIN_ROOT is in use ($(ls "$PIN_ROOT" | head -3 | tr '\n' ' ')): run alone"

cleanup() {
	for d in h1 h2 h3; do
		for w in egress ingress; do
			nsenter --net=/run/netns/$H "$SOJOURN" detach $d$$ $w >/dev/null 2>&1
		done
	done
	for d in p1 p2; do
		nsenter --net=/run/netns/$P "$SOJOURN" detach $d$$ ingress >/dev/null 2>&1
	done
	ip netns del $H 2>/dev/null
	ip netns del $P 2>/dev/null
}
trap cleanup EXIT

sjh() { nsenter --net=/run/netns/$H "$SOJOURN" "$@"; }
sjp() { nsenter --net=/run/netns/$P "$SOJOURN" "$@"; }
# udp N DST: N datagrams of one flow (one source port) from the pod side
udp() {
	ip netns exec $P python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("0.0.0.0", 40000))
for i in range(int(sys.argv[1])):
    s.sendto(b"x" * 100, (sys.argv[2], 9))
    time.sleep(0.005)' "$1" "$2"
}
progs() { bpftool prog show -j | jq '[.[] | select((.name // "") | startswith("sojourn"))] | length'; }
# stat DEV DIR FIELD (show -s -j, the host's namespace)
st() { sjh show "$1" -s -j | jq -r --arg w "$2" ".[] | select(.direction == \$w) | .stats.$3"; }

ip netns add $H && ip netns add $P || skip "cannot add namespaces"
# no IPv6: its link-local chatter would land on every device's counters
for n in $H $P; do
	ip netns exec $n sysctl -qw net.ipv6.conf.all.disable_ipv6=1
	ip netns exec $n sysctl -qw net.ipv6.conf.default.disable_ipv6=1
done
for i in 1 2 3; do
	ip -n $H link add h$i$$ type veth peer name p$i$$ netns $P &&
	ip -n $H addr add 198.18.10$i.1/24 dev h$i$$ &&
	ip -n $P addr add 198.18.10$i.2/24 dev p$i$$ &&
	ip -n $H link set h$i$$ up && ip -n $P link set p$i$$ up &&
	tc -n $H qdisc add dev h$i$$ root pfifo limit 1000 || skip "cannot build the veths"
done
hostmaps() { bpftool map show -j | jq '[.[] | select(.name == "attachments" or .name == "stats_of" or .name == "hist_of")] | length'; }
base=$(progs) base_maps=$(hostmaps)

sjh attach h1$$ >/dev/null || bad "attach h1 egress (queue)"
sjh attach h1$$ ingress rate 50mbit >/dev/null || bad "attach h1 ingress"
sjh attach h2$$ ingress rate 50mbit >/dev/null || bad "attach h2 ingress"
four=$(( $(progs) - base ))
# queue egress, its dequeue program, rate ingress
same "programs for 3 attachments of 2 kinds" "$four" 3
sjh attach h3$$ ingress rate 50mbit >/dev/null || bad "attach h3 ingress"
sjh attach h2$$ rate 50mbit >/dev/null || bad "attach h2 egress (rate)"
sjh attach h3$$ rate 50mbit >/dev/null || bad "attach h3 egress (rate)"
same "programs for 6 attachments: one more kind (rate egress)" "$(( $(progs) - base ))" 4
sjp attach p1$$ ingress rate 50mbit >/dev/null || bad "attach p1 ingress (other netns)"
sjp attach p2$$ ingress rate 50mbit >/dev/null || bad "attach p2 ingress (other netns)"
same "another namespace: one program more for both its devices" "$(( $(progs) - base ))" 5
same "one dequeue link for the host" "$(ls "$PIN_ROOT"/host | grep -c '^link_dequeue$')" 1

# traffic on h1 only: the other attachments see none of it
udp 20 198.18.101.1 || bad "datagrams over h1"
p1=$(st h1$$ ingress packets) p2=$(st h2$$ ingress packets)
[ "${p1:-0}" -ge 20 ] && ok "h1 ingress counted the datagrams: $p1" || bad "h1 ingress packets $p1 < 20"
same "h2 ingress saw nothing of h1's traffic" "$p2" 0
same "h2 ingress has no flow of h1's" "$(st h2$$ ingress flows)" 0
[ "$(st h1$$ ingress flows)" -ge 1 ] && ok "h1 ingress has its flow" || bad "h1 ingress: no flow"

# a flood of new flows through h2, past its budget of 256 a second
sjh change h2$$ ingress flows 256 || bad "change flows 256"
same "flows shown" "$(sjh show h2$$ -j | jq -r '.[] | select(.direction == "ingress") | .flows')" 256
before=$(st h1$$ ingress flows)
sent=$(ip netns exec $P "$FLOOD" 198.18.102.2 198.18.102.1 5000 1 2>/dev/null)
capped=$(st h2$$ ingress flows_capped) made=$(st h2$$ ingress flows)
[ "${capped:-0}" -gt 0 ] && ok "h2 ingress: $sent new flows, $made made, capped $capped" ||
	bad "h2 ingress: $sent new flows, capped $capped"
# a 1 s flood spans at most two windows of the budget
[ "${made:-0}" -le 512 ] && ok "h2 ingress made at most two windows' budget: $made" ||
	bad "h2 ingress made $made flows (> 2 x 256)"
udp 5 198.18.101.1
same "h1's flow still there" "$(st h1$$ ingress flows)" "$before"
same "... never evicted" "$(st h1$$ ingress flows_evicted)" 0

# the last one out takes the host with it
for d in h1 h2 h3; do
	sjh detach $d$$ >/dev/null || bad "detach $d egress"
	sjh detach $d$$ ingress >/dev/null || bad "detach $d ingress"
done
[ -d "$PIN_ROOT/host" ] && ok "host stays while p1, p2 are attached" || bad "host gone with attachments left"
sjp detach p1$$ ingress && sjp detach p2$$ ingress || bad "detach p1, p2"
[ -e "$PIN_ROOT/host" ] && bad "host folder left after the last detach" || ok "host folder gone"
sleep 1	# programs are freed after an RCU grace period
same "no program of ours left" "$(( $(progs) - base ))" 0
same "no host map left" "$(( $(hostmaps) - base_maps ))" 0
sjh detach h1$$ >/dev/null 2>&1; same "detach again: idempotent" "$?" 0

verdict_end host_object
