#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# sj-run: beside (nothing here is timed: tests/run.sh may run it beside
# another such test, in a bpffs of its own)
#
# A foreign program ahead of sojourn on the same tc hook (issue 15).
#
# A CNI's tc program that returns a verdict (TC_ACT_OK == TCX_PASS) ends the
# chain: sojourn, behind it, never sees the packets.  The stand-in here is
# build/ahead_ok.bpf.o (counts, returns TC_ACT_OK); build/ahead_next.bpf.o
# returns TC_ACT_UNSPEC (next) and skips nothing.  On the router's egress
# toward the server (HTB 20mbit, the bottleneck), with a 3 s upload each:
#   tcx, real-queue mode (kernel >= 6.6): the foreign program put at the
#     head of the tcx chain (tests/prog/tcx_ahead.c):
#     - `show` names it (text note with its id, JSON "ahead");
#     - after traffic `show -s` says what share of packets skipped sojourn
#       (>= 90 %: all do), in text and JSON ("skipped"), naming the id;
#     - removed, `show` lists nothing ahead;
#     - a fresh attachment with ahead_next at the head: listed (it might
#       return a verdict) but the measured share stays under 10 %, no note.
#   clsact, real-queue mode: the foreign filter at pref 1 before attach:
#     `attach` prints one note line naming it and still attaches; `show`
#     lists "clsact: pref 1 bpf id N"; after traffic the share is >= 90 %.
#   clsact, half: ahead_half.bpf.o (TC_ACT_OK for every second packet) at
#     pref 1: the share measured is 30-70 % and the packets counted as
#     skipped match the foreign program's own count of its verdicts (5 %).
#   clsact, rate mode (no dequeue side: the device's tx counter against
#     ours): the same, then without the foreign filter a fresh attachment
#     measures under 10 % and says nothing.
#
# Exit 0 pass, 77 skip, 1 fail.  SOJOURN= overrides the command.

# shellcheck source=SCRIPTDIR/../lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
topo_require sojourn bpftool jq
B=$SJ_ROOT/build
for f in tcx_ahead tcx_query ahead_ok.bpf.o ahead_next.bpf.o ahead_half.bpf.o; do
	[ -e "$B/$f" ] || skip "$B/$f missing: run make tests"
done

topo_trap "$NS_R:$DEV_RS"
topo_up 1
topo_shape 20mbit
topo_servers 5201

# the foreign tcx link, pinned outside sojourn's folder; gone with the test
TCX_PIN=/sys/fs/bpf/sj-ahead-$$
trap 'rm -f "$TCX_PIN"; topo_cleanup' EXIT

traffic() { run_load "$1" 3 5201:2 >/dev/null || die "iperf3 failed ($1)"; }
show_text() { sj show "$DEV_RS" "$@" -n "$NS_R"; }
show_json() { sj show "$DEV_RS" "$@" -j -n "$NS_R" | jq -c '.[0]'; }
# the share noted: "note: N% of packets (A of B) did not pass ... (LIST) returns a verdict"
skip_note() { show_text -s | grep -c "note: [0-9]*% of packets ([0-9]* of [0-9]*) did not pass sojourn's egress program"; }
# attach's lines but the note that this HTB tree (its class at the top) has
# no path ahead for sparse flows: real-queue mode's default sparse_class
# auto says so on every attach here (errors.sh checks that note)
not_sparse() { grep -v 'sparse_class auto: no class for sparse flows'; }
clsact_filter_id() {
	inr tc filter show dev "$DEV_RS" egress |
		sed -n 's/.* id \([0-9]*\) name ahead .*/\1/p' | head -1
}

# --- tcx ----------------------------------------------------------------
if sj attach "$DEV_RS" -n "$NS_R" 2>"$WORK/attach0.err" &&
	[ "$(show_json | jq -r .hook)" = tcx ]; then
	check "tcx: attach notes (nothing ahead)" "$(not_sparse <"$WORK/attach0.err" | grep -c 'note:')" '==' 0
	is "tcx: ahead listed (empty)" "$(show_json | jq -c .ahead)" "[]"
	"$B/tcx_ahead" "$NS_R" "$DEV_RS" egress "$B/ahead_ok.bpf.o" "$TCX_PIN" ||
		die "cannot put the foreign program at the head of tcx"
	id=$("$B/tcx_query" "$NS_R" "$DEV_RS" | awk '$1 == "egress" && $3 == "ahead" {print $2}')
	[ -n "$id" ] || die "foreign tcx program not listed"
	is "tcx: kernel order (foreign first)" \
		"$("$B/tcx_query" "$NS_R" "$DEV_RS" | awk '$1 == "egress" {print $3}' | head -1)" ahead
	show_text | grep -q "note: 1 program runs before sojourn on its egress hook (tcx: id $id);"
	verdict "tcx: show notes the foreign id $id" $?
	is "tcx: JSON ahead" "$(show_json | jq -c '[.ahead[] | [.hook, .id]]')" "[[\"tcx\",$id]]"
	traffic tcx_ok
	js=$(show_json -s)
	log "tcx ok: skipped $(jq -c .skipped <<<"$js") packets $(jq .stats.packets <<<"$js")"
	check "tcx ok: packets through the queue" "$(jq .skipped.of <<<"$js")" '>' 1000
	check "tcx ok: skipped %" "$(jq .skipped.percent <<<"$js")" '>=' 90
	is "tcx ok: JSON noted" "$(jq .skipped.noted <<<"$js")" true
	show_text -s | grep -q "did not pass sojourn's egress program: a program ahead of it (tcx: id $id) returns a verdict"
	verdict "tcx ok: show -s text names id $id" $?
	rm -f "$TCX_PIN"
	sleep 0.2	# the link goes when its last reference does
	is "tcx removed: JSON ahead" "$(show_json | jq -c .ahead)" "[]"
	check "tcx removed: show notes" "$(show_text | grep -c 'note:')" '==' 0

	# a program ahead that returns next: listed, but nothing skips
	sj detach "$DEV_RS" -n "$NS_R" || die "detach"
	sj attach "$DEV_RS" -n "$NS_R" 2>/dev/null || die "re-attach"
	"$B/tcx_ahead" "$NS_R" "$DEV_RS" egress "$B/ahead_next.bpf.o" "$TCX_PIN" ||
		die "cannot put the next-returning program at the head of tcx"
	check "tcx next: programs listed ahead" "$(show_json | jq '.ahead | length')" '==' 1
	traffic tcx_next
	js=$(show_json -s)
	log "tcx next: skipped $(jq -c .skipped <<<"$js")"
	check "tcx next: packets through the queue" "$(jq .skipped.of <<<"$js")" '>' 1000
	check "tcx next: skipped %" "$(jq .skipped.percent <<<"$js")" '<' 10
	is "tcx next: JSON noted" "$(jq .skipped.noted <<<"$js")" false
	check "tcx next: show -s share notes" "$(skip_note)" '==' 0
	rm -f "$TCX_PIN"
	sj detach "$DEV_RS" -n "$NS_R"
else
	log "no tcx here: $(cat "$WORK/attach0.err")"
	sj detach "$DEV_RS" -n "$NS_R" >/dev/null 2>&1
	row "tcx" "n/a" "" skipped
fi

# --- clsact, real-queue mode ------------------------------------------------
# nsx, not ip netns exec: tc's libbpf wants to see /sys/fs/bpf
nsx "$NS_R" tc qdisc add dev "$DEV_RS" clsact || die "cannot add clsact"
nsx "$NS_R" tc filter add dev "$DEV_RS" egress pref 1 bpf da \
	obj "$B/ahead_ok.bpf.o" sec tc >"$WORK/tc.err" 2>&1 ||
	die "cannot add the foreign clsact filter: $(head -1 "$WORK/tc.err")"
cid=$(clsact_filter_id)
[ -n "$cid" ] || die "foreign clsact filter not listed"
sj attach "$DEV_RS" hook clsact -n "$NS_R" 2>"$WORK/attach1.err"
check "clsact: attach exit code (a note, no error)" $? '==' 0
log "attach said: $(cat "$WORK/attach1.err")"
check "clsact: attach output lines" "$(not_sparse <"$WORK/attach1.err" | wc -l)" '==' 1
grep -q "^sojourn: note: 1 program runs before sojourn on $DEV_RS egress (clsact: pref 1 bpf id $cid);" "$WORK/attach1.err"
verdict "clsact: attach notes pref 1 bpf id $cid" $?
show_text | grep -q "note: 1 program runs before sojourn on its egress hook (clsact: pref 1 bpf id $cid);"
verdict "clsact: show notes pref 1 bpf id $cid" $?
is "clsact: JSON ahead" "$(show_json | jq -c '[.ahead[] | [.hook, .pref, .kind, .id]]')" "[[\"clsact\",1,\"bpf\",$cid]]"
traffic clsact_ok
js=$(show_json -s)
log "clsact ok: skipped $(jq -c .skipped <<<"$js")"
check "clsact ok: skipped %" "$(jq .skipped.percent <<<"$js")" '>=' 90
check "clsact ok: show -s share notes" "$(skip_note)" '==' 1
sj detach "$DEV_RS" -n "$NS_R"

# a verdict for half the packets: the share measured is the share the
# foreign program passed (its own count), not just "all" or "none"
inr tc filter del dev "$DEV_RS" egress pref 1 || die "cannot remove the foreign filter"
nsx "$NS_R" tc filter add dev "$DEV_RS" egress pref 1 bpf da \
	obj "$B/ahead_half.bpf.o" sec tc >"$WORK/tc.err" 2>&1 ||
	die "cannot add the half-passing filter: $(head -1 "$WORK/tc.err")"
hid=$(clsact_filter_id)
hmap=$(bpftool -j prog show id "$hid" | jq '.map_ids[0]')
foreign_passed() {
	bpftool -j map dump id "$hmap" | jq '.[0].formatted.value[".bss"][] | select(.passed != null) | .passed'
}
sj attach "$DEV_RS" hook clsact -n "$NS_R" 2>/dev/null || die "attach behind the half-passing filter"
p0=$(foreign_passed)
traffic clsact_half
js=$(show_json -s)
passed=$(($(foreign_passed) - p0))
log "clsact half: skipped $(jq -c .skipped <<<"$js"), the foreign program passed $passed"
check "clsact half: skipped %" "$(jq .skipped.percent <<<"$js")" '>=' 30
check "clsact half: skipped %" "$(jq .skipped.percent <<<"$js")" '<=' 70
check "clsact half: skipped / passed by it %" \
	"$(awk -v a="$(jq .skipped.packets <<<"$js")" -v b="$passed" 'BEGIN{if (b) printf "%.1f", 100*a/b; else print "nan"}')" '>=' 95
check "clsact half: passed by it / skipped %" \
	"$(awk -v a="$passed" -v b="$(jq .skipped.packets <<<"$js")" 'BEGIN{if (b) printf "%.1f", 100*a/b; else print "nan"}')" '>=' 95
check "clsact half: show -s share notes" "$(skip_note)" '==' 1
sj detach "$DEV_RS" -n "$NS_R"
inr tc filter del dev "$DEV_RS" egress pref 1 || die "cannot remove the half-passing filter"
nsx "$NS_R" tc filter add dev "$DEV_RS" egress pref 1 bpf da \
	obj "$B/ahead_ok.bpf.o" sec tc >"$WORK/tc.err" 2>&1 ||
	die "cannot add the foreign clsact filter again: $(head -1 "$WORK/tc.err")"
cid=$(clsact_filter_id)

# --- clsact, rate mode: the device's counter against ours ------------------
sj attach "$DEV_RS" rate 15mbit hook clsact -n "$NS_R" 2>/dev/null || die "attach rate"
traffic rate_ok
js=$(show_json -s)
log "rate ok: skipped $(jq -c .skipped <<<"$js") packets $(jq .stats.packets <<<"$js")"
check "rate ok: device packets since attach" "$(jq .skipped.of <<<"$js")" '>' 1000
check "rate ok: skipped %" "$(jq .skipped.percent <<<"$js")" '>=' 90
show_text -s | grep -q "did not pass sojourn's egress program: a program ahead of it (clsact: pref 1 bpf id $cid) returns a verdict"
verdict "rate ok: show -s text names id $cid" $?
sj detach "$DEV_RS" -n "$NS_R"
inr tc filter del dev "$DEV_RS" egress pref 1 || die "cannot remove the foreign filter"
sj attach "$DEV_RS" rate 15mbit hook clsact -n "$NS_R" 2>"$WORK/attach2.err" || die "attach rate"
check "rate alone: attach notes" "$(grep -c 'note:' "$WORK/attach2.err")" '==' 0
is "rate alone: JSON ahead" "$(show_json | jq -c .ahead)" "[]"
traffic rate_alone
js=$(show_json -s)
log "rate alone: skipped $(jq -c .skipped <<<"$js") packets $(jq .stats.packets <<<"$js")"
check "rate alone: device packets since attach" "$(jq .skipped.of <<<"$js")" '>' 1000
check "rate alone: skipped %" "$(jq .skipped.percent <<<"$js")" '<' 10
check "rate alone: show notes" "$(show_text -s | grep -c 'note:')" '==' 0
sj detach "$DEV_RS" -n "$NS_R"

finish ahead
