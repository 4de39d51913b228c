#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# sj-run: beside (nothing here is timed: tests/run.sh may run it beside
# another such test, in a bpffs of its own)
#
# sojourn shares the egress hook and the qdisc with what the operator has.
#
# The router's egress toward the server already has a root HTB (the
# bottleneck) and a clsact qdisc with another BPF filter at pref 1: a
# counter that returns TC_ACT_UNSPEC, so classification goes on to the next
# filter.  For hook tcx and then hook clsact:
#   - attach; the other filter is still listed, same prog id, and while
#     traffic runs it keeps counting, and sojourn counts the same packets
#     (within 10%: both see every egress packet);
#   - under clsact, sojourn's own filter is listed beside the other one;
#   - detach; qdiscs, classes and filters (egress and ingress) are exactly as
#     before attach, the attachment's pin folder is gone, `show` lists
#     nothing for the device, and the other filter still counts.
# Then hook clsact on a device without clsact: detach must remove the
# clsact qdisc sojourn created, also when egress and ingress attachments
# share it and leave in either order.  And attach on a fresh veth (root qdisc
# noqueue) must fail with one line naming "noqueue" and pin nothing.
#
# (The "other program" is a tc filter, not a tcx program: bpftool 7.1 and
# iproute2 6.1 in Debian 12 cannot attach tcx links.  sojourn under tcx runs
# before the clsact filters, so this still checks that both run.)
#
# Exit 0 pass, 77 skip, 1 fail.  SOJOURN= overrides the command.

# shellcheck source=SCRIPTDIR/../lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
topo_require sojourn clang bpftool

topo_trap "$NS_R:$DEV_RS" "$NS_R:$DEV_RC" "$NS_R:${SJ_ID}q0"

topo_up 1
topo_shape 20mbit
topo_servers 5201

# The other program: count egress packets in a global, then pass on.
cat >"$WORK/count.c" <<'EOF'
#include <linux/bpf.h>
#include <linux/pkt_cls.h>

unsigned long long seen;

__attribute__((section("tc"), used))
int count(struct __sk_buff *skb)
{
	__sync_fetch_and_add(&seen, 1);
	return TC_ACT_UNSPEC;	/* not a verdict: the next filter runs */
}

char _license[] __attribute__((section("license"), used)) = "GPL";
EOF
clang -O2 -g -target bpf -I"/usr/include/$(uname -m)-linux-gnu" \
	-c "$WORK/count.c" -o "$WORK/count.o" 2>"$WORK/count.err" ||
	skip "cannot build the counting program: $(head -1 "$WORK/count.err")"
# nsx, not ip netns exec: tc's libbpf wants to see /sys/fs/bpf
nsx "$NS_R" tc qdisc add dev "$DEV_RS" clsact &&
nsx "$NS_R" tc filter add dev "$DEV_RS" egress pref 1 bpf da \
	obj "$WORK/count.o" sec tc >"$WORK/count.err" 2>&1 ||
	skip "cannot load the counting program: $(head -1 "$WORK/count.err")"
OTHER_ID=$(inr tc filter show dev "$DEV_RS" egress |
	sed -n 's/.* id \([0-9]*\) name count .*/\1/p')
[ -n "$OTHER_ID" ] || die "counting filter not listed"
OTHER_MAP=$(bpftool -j prog show id "$OTHER_ID" | jq '.map_ids[0]')
other_count() {
	bpftool -j map dump id "$OTHER_MAP" |
		jq '.[0].formatted.value[".bss"][0].seen'
}
other_listed() {
	inr tc filter show dev "$DEV_RS" egress |
		grep -q "pref 1 bpf .* id $OTHER_ID name count "
}
nfilters() { inr tc filter show dev "$1" egress | grep -c ' handle '; }
# Traffic through the router: a 3 s upload plus probes.
traffic() { run_load "$1" 3 5201:1 >/dev/null || die "iperf3 failed"; }
# pin folders, final (<cookie>-<ifindex>-egress) or being built
# (tmp-<pid>-<cookie>-<ifindex>-egress), for ifindex $1; not every tmp-
# folder, since other tests attach elsewhere at the same time
pins_for() {
	find /sys/fs/bpf/sojourn -mindepth 1 -maxdepth 1 -name "*-$1-egress" \
		2>/dev/null | sort
}

# --- attach on noqueue must fail cleanly -------------------------------
ip link add "${SJ_ID}q0" netns "$NS_R" type veth peer name "${SJ_ID}q1" \
	netns "$NS_R" || die "veth ${SJ_ID}q0"
ip -n "$NS_R" link set "${SJ_ID}q0" up
ip -n "$NS_R" link set "${SJ_ID}q1" up
is "fresh veth root qdisc" \
	"$(inr tc qdisc show dev "${SJ_ID}q0" | awk 'NR==1{print $2}')" noqueue
nq_ifindex=$(ip -n "$NS_R" -j link show dev "${SJ_ID}q0" | jq '.[0].ifindex')
pins_for "$nq_ifindex" >"$WORK/nqpins.before"
sj attach "${SJ_ID}q0" -n "$NS_R" >"$WORK/nq.out" 2>&1
rc=$?
log "attach on noqueue said: $(cat "$WORK/nq.out")"
check "noqueue: attach exit code" "$rc" '!=' 0
check "noqueue: lines of output" "$(wc -l <"$WORK/nq.out")" '==' 1
grep -q noqueue "$WORK/nq.out"
verdict "noqueue: message names noqueue" $?
pins_for "$nq_ifindex" >"$WORK/nqpins.after"
cmp -s "$WORK/nqpins.before" "$WORK/nqpins.after"
verdict "noqueue: nothing pinned" $?
check "noqueue: attachments listed" \
	"$(sj show "${SJ_ID}q0" -j -n "$NS_R" 2>/dev/null | jq 'length' 2>/dev/null || echo 0)" '==' 0
is "noqueue: root qdisc untouched" \
	"$(inr tc qdisc show dev "${SJ_ID}q0" | awk 'NR==1{print $2}')" noqueue

# --- beside another filter, both hooks -----------------------------------
# tcx arrived in 6.6; before it, asking for it is one clear line and
# leaves nothing behind
hooks="tcx clsact"
if [ "$(printf '%s\n' 6.6 "$(uname -r)" | sort -V | head -1)" != 6.6 ]; then
	hooks=clsact
	rs_ifindex=$(ip -n "$NS_R" -j link show dev "$DEV_RS" | jq '.[0].ifindex')
	pins_for "$rs_ifindex" >"$WORK/tcxpins.before"
	sj attach "$DEV_RS" hook tcx -n "$NS_R" >"$WORK/tcx.out" 2>&1
	rc=$?
	check "tcx on $(uname -r): attach exit code" "$rc" '!=' 0
	check "tcx on $(uname -r): lines of output" "$(wc -l <"$WORK/tcx.out")" '==' 1
	grep -q 'hook clsact' "$WORK/tcx.out"
	verdict "tcx on $(uname -r): message suggests hook clsact" $?
	pins_for "$rs_ifindex" >"$WORK/tcxpins.after"
	cmp -s "$WORK/tcxpins.before" "$WORK/tcxpins.after"
	verdict "tcx on $(uname -r): nothing pinned" $?
fi
for hook in $hooks; do
	tc_snapshot "$NS_R" "$DEV_RS" >"$WORK/tc.before"
	nf0=$(nfilters "$DEV_RS")
	sj attach "$DEV_RS" hook "$hook" -n "$NS_R" ||
		{ verdict "$hook: attach" $?; continue; }
	stats=$(sj_stats "$DEV_RS")
	pin=$(jq -r '.pin' <<<"$stats")
	is "$hook: hook reported" "$(jq -r '.hook' <<<"$stats")" "$hook"
	other_listed
	verdict "$hook: other filter kept (id $OTHER_ID)" $?
	if [ "$hook" = clsact ]; then
		check "$hook: egress filters (other+ours)" \
			"$(nfilters "$DEV_RS")" '==' $((nf0 + 1))
	else
		check "$hook: egress filters (tcx adds none)" \
			"$(nfilters "$DEV_RS")" '==' "$nf0"
	fi
	o0=$(other_count)
	s0=$(jq '.stats.packets' <<<"$stats")
	traffic "$hook"
	o1=$(other_count)
	s1=$(sj_stats "$DEV_RS" | jq '.stats.packets')
	od=$((o1 - o0)) sd=$((s1 - s0))
	check "$hook: other filter counted" "$od" '>' 1000
	check "$hook: sojourn counted" "$sd" '>' 1000
	check "$hook: sojourn/other packets %" \
		"$(awk -v a="$sd" -v b="$od" 'BEGIN{if (b) printf "%.1f", 100*a/b; else print "nan"}')" '>=' 90
	check "$hook: other/sojourn packets %" \
		"$(awk -v a="$od" -v b="$sd" 'BEGIN{if (b) printf "%.1f", 100*a/b; else print "nan"}')" '>=' 90

	if sj detach "$DEV_RS" -n "$NS_R"; then rc=0; else rc=$?; fi
	check "$hook: detach exit code" "$rc" '==' 0
	tc_snapshot "$NS_R" "$DEV_RS" >"$WORK/tc.after"
	snapshot_same "$WORK/tc.before" "$WORK/tc.after" "$hook: tc state"
	verdict "$hook: qdisc/class/filters as before" $?
	[ -n "$pin" ] && [ "$pin" != null ] && [ ! -e "$pin" ]
	verdict "$hook: pin folder removed ($pin)" $?
	check "$hook: attachments listed after detach" \
		"$(sj show "$DEV_RS" -j -n "$NS_R" | jq 'length')" '==' 0
	o0=$(other_count)
	probe 20 10 >/dev/null
	check "$hook: other filter counts after detach" $(($(other_count) - o0)) '>=' 20
done

# --- hook clsact where there was no clsact ---------------------------------
inr tc qdisc del dev "$DEV_RS" clsact
tc_snapshot "$NS_R" "$DEV_RS" >"$WORK/tc.before"
if sj attach "$DEV_RS" hook clsact -n "$NS_R"; then
	inr tc qdisc show dev "$DEV_RS" | grep -q '^qdisc clsact'
	verdict "no clsact: attach added clsact" $?
	sj detach "$DEV_RS" -n "$NS_R"
	check "no clsact: detach exit code" $? '==' 0
	tc_snapshot "$NS_R" "$DEV_RS" >"$WORK/tc.after"
	snapshot_same "$WORK/tc.before" "$WORK/tc.after" "no clsact: tc state"
	verdict "no clsact: clsact removed again" $?
else
	verdict "no clsact: attach hook clsact" $?
fi

# --- both directions under clsact: the clsact qdisc goes with the last ----
for order in "ingress egress" "egress ingress"; do
	tc_snapshot "$NS_R" "$DEV_RS" >"$WORK/tc.before"
	sj attach "$DEV_RS" ingress rate 20mbit hook clsact -n "$NS_R" &&
		sj attach "$DEV_RS" rate 20mbit hook clsact -n "$NS_R"
	verdict "both directions: attach (rate mode, clsact)" $?
	for d in $order; do sj detach "$DEV_RS" "$d" -n "$NS_R"; done
	tc_snapshot "$NS_R" "$DEV_RS" >"$WORK/tc.after"
	snapshot_same "$WORK/tc.before" "$WORK/tc.after" "detach $order: tc state"
	verdict "detach $order: clsact removed with the last" $?
done

finish coexist
