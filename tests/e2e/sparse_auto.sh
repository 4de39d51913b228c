#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# `sparse_class auto` on the roots a host has by default.  The router's
# link toward the server has 4 transmit queues; per root:
#   pfifo_fast      band 0 is ahead: sparse_priority 6, "(pfifo_fast band 0)"
#   mq              mq of pfifo_fast, a multiqueue NIC's default: the same
#                   band under each queue; then, under 8 cubic flows
#                   (shaped by nothing but the veth), a 20 Hz ping is
#                   steered (sparse_steered > 0) and the bulk is not
#                   (sparse_steered well under the packets sent)
#   mq + pfifo      one queue's child replaced by hand: no band ahead
#   htb             no band of its own: sojourn adds one class beside the
#                   default class, under the same parent, prio 0, with 1/8
#                   of the parent's rate and its ceil, where that can go
#                   ahead (the default class is prio 1 or more and has a
#                   parent); under 8 cubic flows at 20mbit a 20 Hz ping's
#                   p99 rise stays under 5 ms; `change` off/auto removes
#                   and re-adds it, detach removes it (the tree compares
#                   equal to the one before), an operator's class in the
#                   range sojourn picks from is left alone, and
#                   `sparse_class off` adds nothing.  Where the default
#                   class is at the top of the tree or prio 0 there is
#                   none.
# Where there is none, attach still attaches (auto asks, it does not
# require), says so in exactly one line naming what would add one, and
# show says "off"; sparse_priority 0.
#
# Exit 0 pass, 77 skip, 1 fail.  SOJOURN= overrides.

# shellcheck source=SCRIPTDIR/../lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
topo_require sojourn

topo_trap "$NS_R:$DEV_RS"
topo_up 4
topo_servers 5201

# the tree, in an order that does not depend on the kernel's hash of
# class ids (a class removed and added again is listed elsewhere)
tc_snapshot_sorted() { tc_snapshot "$NS_R" "$DEV_RS" | sort; }

# auto ROOT-DESCRIPTION: attach sparse_class auto; stderr in $WORK/err,
# show -j in SHOWJ, the text form in SHOWT
auto() {
	sj attach "$DEV_RS" sparse_class auto -n "$NS_R" 2>"$WORK/err" ||
		die "attach auto on $1: $(cat "$WORK/err")"
	SHOWJ=$(sj show "$DEV_RS" -j -n "$NS_R")
	SHOWT=$(sj show "$DEV_RS" -n "$NS_R")
}

inr tc qdisc replace dev "$DEV_RS" root pfifo_fast || die "pfifo_fast root"
auto pfifo_fast
is "pfifo_fast: sparse_priority" "$(jq '.[0].sparse_priority' <<<"$SHOWJ")" 6
verdict "pfifo_fast: show names band 0" "$(grep -q 'auto (pfifo_fast band 0)' <<<"$SHOWT"; echo $?)"
is "pfifo_fast: lines on stderr" "$(wc -l <"$WORK/err")" 0
sj detach "$DEV_RS" -n "$NS_R" || die "detach"

inr tc qdisc replace dev "$DEV_RS" root handle 1: mq || die "mq root"
log "mq: $(inr tc qdisc show dev "$DEV_RS" | tr '\n' ';')"
auto mq
is "mq of pfifo_fast: sparse_priority" "$(jq '.[0].sparse_priority' <<<"$SHOWJ")" 6
is "mq of pfifo_fast: lines on stderr" "$(wc -l <"$WORK/err")" 0
before=$(sj show "$DEV_RS" -s -j -n "$NS_R" | jq '.[0].stats.sparse_steered')
PROBE_HZ=20 run_load mq 8 5201:8 || die "iperf3 failed (mq)"
stats=$(sj show "$DEV_RS" -s -j -n "$NS_R" | jq -c '.[0].stats')
steered=$(($(jq .sparse_steered <<<"$stats") - before))
probes=$(wc -l <"$WORK/mq.probe")
row "mq: pings answered" "$probes" "" info
row "mq: packets sent" "$(jq .packets <<<"$stats")" "" info
# every echo request is sparse (one 84-byte packet per 50 ms); the bulk's
# packets are not: at most a few per flow as it starts
check "mq: sparse_steered" "$steered" '>=' $((probes / 2))
check "mq: sparse_steered" "$steered" '<=' $((8 * 20 * 2 + 40))
sj detach "$DEV_RS" -n "$NS_R" || die "detach"

inr tc qdisc replace dev "$DEV_RS" parent 1:2 handle 12: pfifo limit 1000 ||
	die "pfifo under mq"
auto "mq + pfifo"
is "mq with a pfifo child: sparse_priority" "$(jq '.[0].sparse_priority' <<<"$SHOWJ")" 0
is "mq with a pfifo child: lines on stderr" "$(wc -l <"$WORK/err")" 1
verdict "mq with a pfifo child: the line names pfifo_fast" \
	"$(grep -q 'no band ahead.*tc qdisc replace dev .* root pfifo_fast' "$WORK/err"; echo $?)"
verdict "mq with a pfifo child: show says off" "$(grep -q 'auto (off' <<<"$SHOWT"; echo $?)"
sj detach "$DEV_RS" -n "$NS_R" || die "detach"

# htb: the default class at the top of the tree, then prio 0 under a
# parent: no class can go ahead of it, one line says why
inr tc qdisc del dev "$DEV_RS" root || die "cannot remove the mq root"
inr tc qdisc replace dev "$DEV_RS" root handle 1: htb default 10 &&
inr tc class add dev "$DEV_RS" parent 1: classid 1:10 htb rate 20mbit ||
	die "htb root"
tc_snapshot_sorted >"$WORK/top.before"
auto "htb, default class at the top"
is "htb top: sparse_priority" "$(jq '.[0].sparse_priority' <<<"$SHOWJ")" 0
is "htb top: lines on stderr" "$(wc -l <"$WORK/err")" 1
log "htb top: $(cat "$WORK/err")"
verdict "htb top: the line says why" "$(grep -q 'sparse_class auto: .*1:10 is at the top of the tree' "$WORK/err"; echo $?)"
tc_snapshot_sorted >"$WORK/top.after"
verdict "htb top: the tree is unchanged" "$(snapshot_same "$WORK/top.before" "$WORK/top.after" tree; echo $?)"
sj detach "$DEV_RS" -n "$NS_R" || die "detach"

inr tc qdisc del dev "$DEV_RS" root &&
inr tc qdisc add dev "$DEV_RS" root handle 1: htb default 10 &&
inr tc class add dev "$DEV_RS" parent 1: classid 1:1 htb rate 20mbit quantum 1514 &&
inr tc class add dev "$DEV_RS" parent 1:1 classid 1:10 htb rate 20mbit quantum 1514 &&
inr tc qdisc add dev "$DEV_RS" parent 1:10 handle 10: pfifo limit 1000 ||
	die "htb with a parent"
auto "htb, default class prio 0"
is "htb prio 0: sparse_priority" "$(jq '.[0].sparse_priority' <<<"$SHOWJ")" 0
verdict "htb prio 0: the line says why" "$(grep -q 'sparse_class auto: .*1:10 is prio 0' "$WORK/err"; echo $?)"
sj detach "$DEV_RS" -n "$NS_R" || die "detach"

# htb whose default class is prio 1 (as wondershaper and most hand-made
# trees have it): a class is added beside it, and goes at detach.  One
# class the operator made in the range sojourn looks in (1:fff0) must be
# left as it is.
inr tc class change dev "$DEV_RS" parent 1:1 classid 1:10 htb rate 20mbit \
	quantum 1514 prio 1 &&
inr tc class add dev "$DEV_RS" parent 1:1 classid 1:fff0 htb rate 1mbit \
	ceil 20mbit prio 3 || die "htb prio 1"
tc_snapshot_sorted >"$WORK/htb.before"
auto "htb, default class prio 1"
SID=$(jq -r '.[0].sparse_priority' <<<"$SHOWJ")
is "htb prio 1: class added" "$(printf '%x:%x' $((SID >> 16)) $((SID & 0xffff)))" 1:fff1
is "htb prio 1: lines on stderr" "$(wc -l <"$WORK/err")" 0
verdict "htb prio 1: show names the class" \
	"$(grep -q 'auto (HTB class 1:fff1, added by sojourn' <<<"$SHOWT"; echo $?)"
cls=$(inr tc class show dev "$DEV_RS" classid 1:fff1)
log "added: $cls"
verdict "htb prio 1: 1:fff1 under 1:1, prio 0, rate 1/8 of 1:1's and 100 ms of it as burst, its ceil" \
	"$(grep -Eq 'parent 1:1 .*prio 0 rate 2500Kbit ceil 20Mbit burst 3[0-9]Kb' <<<"$cls"; echo $?)"
idle=$(idle_rtt)
PROBE_HZ=20 run_load htb 10 5201:8 || die "iperf3 failed (htb)"
stats=$(sj show "$DEV_RS" -s -j -n "$NS_R" | jq -c '.[0].stats')
row "htb prio 1: bulk goodput (Mbit/s)" "$(goodput htb)" "" info
check "htb prio 1: ping p99 rise (ms)" "$(fsub "$(pctl 99 <"$WORK/htb.probe")" "$idle")" '<' 5
check "htb prio 1: packets in 1:fff1" \
	"$(inr tc -s class show dev "$DEV_RS" classid 1:fff1 | awk '/Sent/{print $4; exit}')" '>' 100
check "htb prio 1: sparse_steered" "$(jq .sparse_steered <<<"$stats")" '>' 100
# change away from auto takes the class off; back to auto adds it again
sj change "$DEV_RS" sparse_class off -n "$NS_R" || die "change off"
tc_snapshot_sorted >"$WORK/htb.off"
verdict "htb: change sparse_class off removes the class" \
	"$(snapshot_same "$WORK/htb.before" "$WORK/htb.off" tree; echo $?)"
sj change "$DEV_RS" sparse_class auto -n "$NS_R" || die "change auto"
verdict "htb: change sparse_class auto adds it again" \
	"$(inr tc class show dev "$DEV_RS" classid 1:fff1 | grep -q 'prio 0'; echo $?)"
sj detach "$DEV_RS" -n "$NS_R" || die "detach"
tc_snapshot_sorted >"$WORK/htb.after"
verdict "htb: detach leaves the tree as it was" \
	"$(snapshot_same "$WORK/htb.before" "$WORK/htb.after" tree; echo $?)"
sj detach "$DEV_RS" -n "$NS_R" || die "second detach"
is "htb: 1:fff0, the operator's, still there" \
	"$(inr tc class show dev "$DEV_RS" classid 1:fff0 | grep -c 'prio 3')" 1
# sparse_class off declines it
sj attach "$DEV_RS" sparse_class off -n "$NS_R" || die "attach off"
tc_snapshot_sorted >"$WORK/htb.declined"
verdict "htb: sparse_class off adds nothing" \
	"$(snapshot_same "$WORK/htb.before" "$WORK/htb.declined" tree; echo $?)"
sj detach "$DEV_RS" -n "$NS_R" || die "detach"

finish sparse_auto
