#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# How hist, top and export fail: each wrong use exits non-zero with one
# line on stderr, "sojourn: ...", naming what is wrong.  No network: the
# device names do not exist, and export is refused before it binds.
#
# Exit 0 pass, 77 skip, else fail.  SOJOURN= overrides the binary.
set -u

repo=$(cd "$(dirname "$0")/../.." && pwd)
SOJOURN=${SOJOURN:-$repo/build/sojourn}
WORK=$(mktemp -d /tmp/sjobs.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
fails=0

# log, skip, die and the other helpers every script shares
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
[ "$(id -u)" = 0 ] || skip "needs root"
[ -x "$SOJOURN" ] || skip "$SOJOURN not built (make first)"
if ! mountpoint -q /sys/fs/bpf; then
	mount -t bpf bpf /sys/fs/bpf || skip "cannot mount bpffs"
fi

# fails WORD ARGS...: sojourn ARGS must exit non-zero, with one stderr
# line starting "sojourn: " that contains WORD
fails() {
	local want=$1 rc lines
	shift
	timeout 10 "$SOJOURN" "$@" >"$WORK/out" 2>"$WORK/all"
	rc=$?
	# attachments another build on this host made are skipped in a line
	# each (tests/cli/foreign_layout.sh): not this test's business
	grep -v '^sojourn: skipped .*made by another version of sojourn' "$WORK/all" >"$WORK/err"
	lines=$(wc -l <"$WORK/err")
	if [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && [ "$lines" = 1 ] &&
	   grep -q '^sojourn: ' "$WORK/err" && grep -qF -- "$want" "$WORK/err"; then
		printf 'ok    %-60s %s\n' "$*" "$(cat "$WORK/err")"
	else
		printf 'FAIL  %-60s rc %s, %s stderr line(s): %s\n' "$*" "$rc" \
			"$lines" "$(tr '\n' '|' <"$WORK/err")"
		fails=$((fails + 1))
	fi
}

dev=sjnone$$
fails "hist needs a device" hist
fails "$dev is not attached" hist "$dev"
fails "is not attached" hist "$dev" ingress
fails "needs all, or at least one" hist "$dev" --flow
fails "bad address" hist "$dev" --flow src 198.18.0.300
fails "bad port" hist "$dev" --flow dport 70000
fails "bad protocol" hist "$dev" --flow proto sctpx
fails "needs a value" hist "$dev" --flow src 198.18.0.1 dport
fails "unexpected" hist "$dev" --bogus
fails "--sort takes" top --sort latency
fails "bad interval" top -i soon
fails "below 10ms" top -i 1ms
fails "bad --rows" top --rows 0
fails "needs a value" top -i
fails "$dev is not attached" top "$dev"
fails "needs one of --listen" export
fails "needs one of --listen" export --listen 127.0.0.1:9 --textfile "$WORK/x"
fails "bad listen address" export --listen 127.0.0.1
fails "bad listen address" export --listen 127.0.0.1:99999
fails "bad IPv4 address" export --listen 198.18.0.300:9100
fails "bad IPv6 address" export --listen "[::zz]:9100"
fails "--allow-remote" export --listen 0.0.0.0:9100
fails "--allow-remote" export --listen "[::]:9100"
fails "--flows takes" export --textfile "$WORK/x" --flows 5000
fails "-i goes with --textfile" export --listen 127.0.0.1:9 -i 1
fails "cannot write" export --textfile "$WORK/no/such/dir/x.prom"
fails "unknown command" histogram

# the help names the three commands
"$SOJOURN" help >"$WORK/help"
for c in hist top export; do
	if grep -q "sojourn $c " "$WORK/help"; then
		printf 'ok    help lists %s\n' "$c"
	else
		printf 'FAIL  help lists %s\n' "$c"
		fails=$((fails + 1))
	fi
done

[ "$fails" = 0 ] && { echo "PASS: observe_errors"; exit 0; }
echo "FAIL: $fails check(s)"
exit 1
