#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# sj-run: beside (nothing here is timed: tests/run.sh may run it beside
# another such test, in a bpffs of its own)
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

# log, skip, die and the other helpers every script shares
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
[ "$(id -u)" = 0 ] || skip "needs root"
[ -x "$SOJOURN" ] || skip "$SOJOURN not built (make first)"
if ! mountpoint -q /sys/fs/bpf; then
	mount -t bpf bpf /sys/fs/bpf || skip "cannot mount bpffs"
fi

# must_fail WORD ARGS...: sojourn ARGS must exit non-zero, with one stderr
# line starting "sojourn: " that contains WORD
must_fail() {
	local want=$1 rc lines what
	shift
	what=$(printf '%-60s' "$*")
	timeout 10 "$SOJOURN" "$@" >"$WORK/out" 2>"$WORK/all"
	rc=$?
	# attachments another build on this host made are skipped in a line
	# each (tests/cli/foreign_layout.sh): not this test's business
	grep -v '^sojourn: skipped .*made by another version of sojourn' "$WORK/all" >"$WORK/err"
	lines=$(wc -l <"$WORK/err")
	if [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && [ "$lines" = 1 ] &&
	   grep -q '^sojourn: ' "$WORK/err" && grep -qF -- "$want" "$WORK/err"; then
		ok "$what $(cat "$WORK/err")"
	else
		bad "$what rc $rc, $lines stderr line(s): $(tr '\n' '|' <"$WORK/err")"
	fi
}

dev=sjnone$$
must_fail "hist needs a device" hist
must_fail "$dev is not attached" hist "$dev"
must_fail "is not attached" hist "$dev" ingress
must_fail "needs all, or at least one" hist "$dev" --flow
must_fail "bad address" hist "$dev" --flow src 198.18.0.300
must_fail "bad port" hist "$dev" --flow dport 70000
must_fail "bad protocol" hist "$dev" --flow proto sctpx
must_fail "needs a value" hist "$dev" --flow src 198.18.0.1 dport
must_fail "unexpected" hist "$dev" --bogus
must_fail "--sort takes" top --sort latency
must_fail "bad interval" top -i soon
must_fail "below 10ms" top -i 1ms
must_fail "bad --rows" top --rows 0
must_fail "needs a value" top -i
must_fail "$dev is not attached" top "$dev"
must_fail "needs one of --listen" export
must_fail "needs one of --listen" export --listen 127.0.0.1:9 --textfile "$WORK/x"
must_fail "bad listen address" export --listen 127.0.0.1
must_fail "bad listen address" export --listen 127.0.0.1:99999
must_fail "bad IPv4 address" export --listen 198.18.0.300:9100
must_fail "bad IPv6 address" export --listen "[::zz]:9100"
must_fail "--allow-remote" export --listen 0.0.0.0:9100
must_fail "--allow-remote" export --listen "[::]:9100"
must_fail "--flows takes" export --textfile "$WORK/x" --flows 5000
must_fail "-i goes with --textfile" export --listen 127.0.0.1:9 -i 1
must_fail "cannot write" export --textfile "$WORK/no/such/dir/x.prom"
must_fail "unknown command" histogram

# the help names the three commands
"$SOJOURN" help >"$WORK/help"
for c in hist top export; do
	if grep -q "sojourn $c " "$WORK/help"; then
		ok "help lists $c"
	else
		bad "help lists $c"
	fi
done

verdict_end observe_errors
