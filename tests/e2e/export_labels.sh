#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# sj-run: beside (nothing here is timed: tests/run.sh may run it beside
# another such test, in a bpffs of its own)
#
# export's series fit Prometheus and Kubernetes (issue 16): a node's series
# count must not follow its flows, or every pod's connections become new
# series in the TSDB.  In the router namespace, a real-queue attachment on
# the 20 Mbit egress and a rate-mode one on the ingress from the client:
#  1. Default export (no --flows): the number of series is the same before,
#     right after and after 50 extra one-datagram UDP flows crossed both
#     attachments during a bulk upload; no sojourn_flow_* series at all.
#  2. `--flows N`: per-flow series come back, for at most N flows per
#     attachment, and at least one (the uploads queued).
#  3. Labels: `device` (node_exporter's name), never `dev`; one
#     sojourn_info{device,netns,direction,mode,hook} 1 per attachment, with
#     mode and hook as `show -j` reports them; sojourn_rate_bytes_per_second
#     and sojourn_burst_bytes for the rate-mode attachment only, equal to
#     what it was given.
#  4. promtool check metrics on both outputs, when promtool is there (a
#     SKIP row with the reason when not: the rest still counts).
#
# Exit 0 pass, 77 skip, 1 fail.  SOJOURN= runs another build.

# shellcheck source=SCRIPTDIR/../lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
topo_require sojourn
PROMTOOL=${PROMTOOL:-$SJ_ROOT/build/promtool}

SECS=${SECS:-12}
RATE_BITS=100000000		# 100mbit: above the 20 Mbit bottleneck
BURST=65536
topo_trap "$NS_R:$DEV_RS" "$NS_R:$DEV_RC:ingress"

topo_up 1
topo_shape 20mbit
topo_servers 5201
sj attach "$DEV_RS" -n "$NS_R" || die "attach $DEV_RS (real queue)"
sj attach "$DEV_RC" ingress rate 100mbit burst "$BURST" -n "$NS_R" ||
	die "attach $DEV_RC ingress rate"

# scrape FILE [ARGS...]: one textfile export of the router namespace
scrape() {
	local f=$1
	shift
	sj export --textfile "$f" "$@" -n "$NS_R" 2>"$WORK/export.err" ||
		die "export $*: $(cat "$WORK/export.err")"
}
# series FILE: sample lines (every line that is not a comment)
series() { grep -vc '^#' "$1"; }
# flow_series FILE: lines of the per-flow families
flow_series() { grep -c '^sojourn_flow_' "$1"; }
# flows_per_att FILE: the most distinct flows one attachment has series for
flows_per_att() {
	awk -F'[{}]' '/^sojourn_flow_packets_total\{/ {
		split($2, l, ","); n[l[1]]++ } END { m = 0
		for (d in n) if (n[d] > m) m = n[d]; print m }' "$1"
}

run_load bulk "$SECS" 5201:2 >/dev/null 2>&1 &
load=$!
sleep 3		# the FIFO full, the bulk flows queued
scrape "$WORK/before.prom"
# 50 short flows: bash opens a new socket, so a new source port, per write
inc bash -c "for i in \$(seq 50); do echo x >/dev/udp/$IP_S/40000; done" ||
	die "short flows"
sleep 1
scrape "$WORK/during.prom"
scrape "$WORK/flows.prom" --flows 4
wait "$load" || die "iperf3 failed"
scrape "$WORK/after.prom"

# 1. default: fixed series
before=$(series "$WORK/before.prom")
log "series: before $before, with the short flows $(series "$WORK/during.prom"), after $(series "$WORK/after.prom")"
row "series before the short flows" "$before" "" info
check "series, 50 short flows in (default)" "$(series "$WORK/during.prom")" '==' "$before"
check "series after the load (default)" "$(series "$WORK/after.prom")" '==' "$before"
check "sojourn_flow_* lines (default)" "$(flow_series "$WORK/during.prom")" '==' 0
live=$(awk -v d="$DEV_RS" 'index($0, "sojourn_flows{device=\"" d "\"") == 1 {print $2}' \
	"$WORK/during.prom")
check "sojourn_flows of the real queue" "$live" '>=' 50

# 2. --flows N: bounded per attachment
check "flows with series per att. (--flows 4)" \
	"$(flows_per_att "$WORK/flows.prom")" '<=' 4
check "flows with series per att., at least" \
	"$(flows_per_att "$WORK/flows.prom")" '>=' 1

# 3. labels
f=$WORK/during.prom
check "series with a dev= label" "$(grep -c '[{,]dev="' "$f")" '==' 0
check "series with a device= label" "$(grep -c '[{,]device="' "$f")" '>' 0
show=$(sj show -j -n "$NS_R") || die "show -j"
# info_of DEV DIRECTION: the expected sojourn_info line, from show -j
info_of() {
	jq -r --arg d "$1" --arg dir "$2" --arg ns "$NS_R" '.[] |
		select(.dev == $d and .direction == $dir) |
		"sojourn_info{device=\"\($d)\",netns=\"\($ns)\",direction=\"\($dir)\",mode=\"\(.mode)\",hook=\"\(.hook)\"} 1"' \
		<<<"$show"
}
for att in "$DEV_RS egress queue" "$DEV_RC ingress rate"; do
	read -r dev dir mode <<<"$att"
	want=$(info_of "$dev" "$dir")
	log "expect: $want"
	case $want in *"mode=\"$mode\""*) r=0 ;; *) r=1 ;; esac
	verdict "show -j: $dir attachment is mode $mode" $r
	grep -qxF "$want" "$f"
	verdict "sojourn_info for the $mode attachment" $?
done
check "sojourn_info series" "$(grep -c '^sojourn_info{' "$f")" '==' 2
# value VALUE-NAME DEV: the sample of a gauge for DEV's attachment
value() {
	awk -v m="$1" -v d="$2" 'index($0, m "{device=\"" d "\"") == 1 {print $2}' "$f"
}
is "sojourn_rate_bytes_per_second" \
	"$(value sojourn_rate_bytes_per_second "$DEV_RC")" $((RATE_BITS / 8))
is "sojourn_burst_bytes" "$(value sojourn_burst_bytes "$DEV_RC")" "$BURST"
is "show -j: rate (bytes/s) and burst" \
	"$(jq -r --arg d "$DEV_RC" '.[] | select(.dev == $d) | "\(.rate) \(.burst)"' <<<"$show")" \
	"$((RATE_BITS / 8)) $BURST"
check "rate gauges of the real queue" \
	"$(grep -cE "^sojourn_(rate_bytes_per_second|burst_bytes)\{device=\"$DEV_RS\"" "$f")" '==' 0

# 4. promtool
if [ -x "$PROMTOOL" ]; then
	for p in during flows; do
		"$PROMTOOL" check metrics <"$WORK/$p.prom" >"$WORK/promtool.$p" 2>&1
		rc=$?
		[ $rc = 0 ] || log "promtool ($p): $(cat "$WORK/promtool.$p")"
		verdict "promtool check metrics ($p)" $rc
	done
else
	row "promtool check metrics" "-" "" "SKIP: $PROMTOOL missing (make tests unpacks Debian's)"
fi

finish export_labels
