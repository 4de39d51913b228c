#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# sojourn export (issue 5), on the router's 20 Mbit egress with 10000
# steady UDP flows (flowgen) and 4 cubic uploads going through it:
#  1. HTTP on loopback: scrapes during the load come back within 100 ms,
#     name the 10000+ flows in sojourn_flows, carry per-flow series for
#     exactly --flows N flows, and pass `promtool check metrics`.
#  2. The textfile: written once it passes promtool, mode 0644, no
#     temporary left; rewritten every 100 ms, every read of it is whole.
#  3. A non-loopback address is refused without --allow-remote, and with
#     it served (inside the server namespace) with a warning.
#
# promtool is Debian's, unpacked into build/ by `make tests`.
# Exit 0 pass, 77 skip, 1 fail.

# shellcheck source=SCRIPTDIR/../lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
topo_require sojourn curl
PROMTOOL=${PROMTOOL:-$SJ_ROOT/build/promtool}
FLOWGEN=$SJ_ROOT/build/flowgen
[ -x "$PROMTOOL" ] || skip "$PROMTOOL missing (make tests unpacks it)"
[ -x "$FLOWGEN" ] || skip "$FLOWGEN missing (make tests builds it)"

SECS=${SECS:-10}
NFLOWS=10000
topo_trap "$NS_R:$DEV_RS"

# a TCP port nobody listens on, in the namespace we run in
free_port() {
	local p
	for p in $(seq $((20000 + $$ % 20000)) $((20100 + $$ % 20000))); do
		ss -Hltn "sport = :$p" | grep -q . || { echo "$p"; return; }
	done
}

# wait_http URL: up to 5 s for the server to answer
wait_http() {
	local i
	for i in $(seq 50); do
		curl -sf -o /dev/null "$1" && return 0
		sleep 0.1
	done
	return 1
}

topo_up 1
topo_shape 20mbit
topo_servers 5201
sj attach "$DEV_RS" -n "$NS_R" || die "attach"

# 1. HTTP, loopback of the namespace we run in
port=$(free_port)
url=http://127.0.0.1:$port/metrics
"$SOJOURN" export --listen "127.0.0.1:$port" --flows 5 -n "$NS_R" \
	2>"$WORK/export.err" &
TOPO_BG="$TOPO_BG $!"
wait_http "$url" || die "export did not answer on $url: $(cat "$WORK/export.err")"

inc nice -n 10 "$FLOWGEN" "$IP_S" 30000 "$NFLOWS" 0 500 &
TOPO_BG="$TOPO_BG $!"
run_load bulk "$SECS" 5201:4 >/dev/null 2>&1 &
load=$!
sleep 3		# flows in the table, the FIFO full
: >"$WORK/times"
for i in $(seq 10); do
	curl -sf -o "$WORK/scrape.$i" -w '%{time_total}\n' "$url" >>"$WORK/times" ||
		echo 99 >>"$WORK/times"
	sleep 0.3
done
wait "$load" || die "iperf3 failed"
times=$(tr '\n' ' ' <"$WORK/times")
log "scrape times (s): $times"
row "scrape median (ms)" "$(awk '{print $1 * 1000}' "$WORK/times" | median)" "" info
check "slowest of 10 scrapes (ms)" \
	"$(awk '$1 > m {m = $1} END {printf "%.1f", m * 1000}' "$WORK/times")" '<' 100
last=$WORK/scrape.10
flows=$(awk -v d="$DEV_RS" '$1 ~ "^sojourn_flows\\{device=\"" d "\"" {print $2}' "$last")
check "sojourn_flows during the scrapes" "$flows" '>=' "$NFLOWS"
"$PROMTOOL" check metrics <"$last" >"$WORK/promtool.http" 2>&1
rc=$?
[ $rc = 0 ] || log "promtool: $(cat "$WORK/promtool.http")"
verdict "promtool check metrics (HTTP)" $rc
check "per-flow series (--flows 5)" \
	"$(grep -c '^sojourn_flow_packets_total{' "$last")" '==' 5
check "device histogram +Inf = _count" \
	"$(awk -v d="$DEV_RS" '
		index($0, "sojourn_queue_delay_seconds_bucket{device=\"" d "\"") == 1 && /le="\+Inf"/ {inf = $2}
		index($0, "sojourn_queue_delay_seconds_count{device=\"" d "\"") == 1 {cnt = $2}
		END {print (inf == cnt && cnt > 0) ? 0 : 1}' "$last")" '==' 0
code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/")
is "other paths: 404" "$code" 404
grep -q "Content-Type: text/plain; version=0.0.4" <(curl -sI "$url")
verdict "content type of the text format" $?

# 2. textfile: once, then every 100 ms with readers racing the renames
tf=$WORK/prom/sojourn.prom
mkdir -p "$WORK/prom"
sj export --textfile "$tf" --flows 3 -n "$NS_R" || die "export --textfile"
"$PROMTOOL" check metrics <"$tf" >"$WORK/promtool.file" 2>&1
rc=$?
[ $rc = 0 ] || log "promtool: $(cat "$WORK/promtool.file")"
verdict "promtool check metrics (textfile)" $rc
is "textfile mode" "$(stat -c %a "$tf")" 644
"$SOJOURN" export --textfile "$tf" -i 0.1 -n "$NS_R" &
writer=$!
TOPO_BG="$TOPO_BG $writer"
torn=0
for i in $(seq 20); do
	# cp skips a file renamed over while it copies; cat reads the one it opened
	cat "$tf" >"$WORK/read.prom"
	"$PROMTOOL" check metrics <"$WORK/read.prom" >/dev/null 2>&1 || torn=$((torn + 1))
	sleep 0.05
done
kill "$writer"
wait "$writer" 2>/dev/null
check "torn textfile reads of 20" "$torn" '==' 0
check "temporaries left" "$(find "$WORK/prom" -name '*.tmp-*' | wc -l)" '==' 0

# 3. non-loopback needs --allow-remote
nsx "$NS_S" timeout 5 "$SOJOURN" export --listen "$IP_S:$port" \
	>"$WORK/remote.out" 2>"$WORK/remote.err"
rc=$?
check "non-loopback without the flag: exit code" "$rc" '==' 1
grep -q -- "--allow-remote" "$WORK/remote.err"
verdict "refusal names --allow-remote" $?
check "refusal: lines on stderr" "$(wc -l <"$WORK/remote.err")" '==' 1
nsx "$NS_S" "$SOJOURN" export --listen "$IP_S:$port" --allow-remote \
	2>"$WORK/remote.err" &
TOPO_BG="$TOPO_BG $!"
inc bash -c "for i in \$(seq 50); do
	curl -sf -o /dev/null http://$IP_S:$port/metrics && exit 0; sleep 0.1; done; exit 1"
verdict "--allow-remote: served to the client namespace" $?
grep -q "not loopback" "$WORK/remote.err"
verdict "--allow-remote: says so on stderr" $?

finish export
