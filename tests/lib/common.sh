# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# shellcheck shell=bash
#
# What every test and bench script says the same way (sourced, not run):
# how it logs (stderr), skips (exit 77: tests/run.sh reports it apart) and
# fails (exit 1, with the results table so far, table.sh, where there is
# one), how a test that prints no table says each check and its verdict,
# how it runs a command in a namespace, pings the server from the client,
# and takes percentiles of numbers on stdin.  tests/lib/topo.sh,
# bench/lib/net.sh and the scripts that build no topology of theirs all
# source it.

log() { printf '%s\n' "$*" >&2; }
skip() { echo "SKIP: $*"; exit 77; }
die() {
	echo "FAIL: $*"
	[ -n "${TABLE:-}" ] && declare -F table_print >/dev/null && table_print
	exit 1
}

# The checks of a test that prints no results table, one line each, and
# its verdict; FAILS counts the failed ones, as table.sh's checks do (a
# script may use both: the names differ from row, check, is, verdict,
# finish and fcmp).
#   ok MSG                "ok    MSG"
#   bad MSG               "FAIL  MSG", one failure more
#   same NAME GOT WANT    GOT must be WANT, as strings
#   differs NAME OLD NEW  NEW must not be OLD
#   verdict_end NAME      the last line: "PASS: NAME", exit 0, or
#                         "FAIL: NAME (N check(s) failed)", exit 1
FAILS=${FAILS:-0}
ok() { printf 'ok    %s\n' "$*"; }
bad() { printf 'FAIL  %s\n' "$*"; FAILS=$((FAILS + 1)); }
same() {
	# (a value of many lines: its first one said)
	if [ "$2" = "$3" ]; then ok "$1: ${2%%$'\n'*}"
	else bad "$1: got '$2', want '$3'"; fi
}
differs() {
	if [ "$2" != "$3" ]; then ok "$1: $2 -> $3"
	else bad "$1: still $2"; fi
}
verdict_end() {
	if [ "$FAILS" = 0 ]; then
		echo "PASS: $1"
		exit 0
	fi
	echo "FAIL: $1 ($FAILS check(s) failed)"
	exit 1
}

# Whether to run a test's baseline phases (the FIFO, nofair, sparse_class
# off) that only print rows for comparison and judge nothing: SJ_BASELINES=1.
# make check leaves them out, as they cost it ~100 s of its 30 minutes; the
# rows they print are what a reader compares the judged phases against
# when a bar moves.
baselines() { [ "${SJ_BASELINES:-0}" = 1 ]; }

# Run in a namespace.  `ip netns exec` remounts /sys (hiding /sys/fs/bpf),
# which is fine for ip/tc/ss/sysctl/iperf3; bpf loading uses nsx instead.
nsx() { local ns=$1; shift; nsenter --net="/run/netns/$ns" "$@"; }
inc() { ip netns exec "$NS_C" "$@"; }
inr() { ip netns exec "$NS_R" "$@"; }
ins() { ip netns exec "$NS_S" "$@"; }

# probe COUNT PERIOD_MS: ICMP echo RTTs client -> server, one per line (ms);
# lost probes print nothing.  fping's timeout defaults to the period, so it
# is raised: under a bloated FIFO a reply takes far longer than 50 ms.
probe() {
	inc fping -q -C "$1" -p "$2" -t 5000 "$IP_S" 2>&1 |
		sed -n 's/^[^:]* : //p' | tr ' ' '\n' | grep -E '^[0-9.]+$'
}

# await_server TIMEOUT_MS WHAT: until the server answers the client's ping
# (50 tries, 0.1 s apart), or die saying WHAT is wrong
await_server() {
	for _ in $(seq 50); do
		inc fping -q -c1 -t "$1" "$IP_S" >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	die "$2"
}

# Percentiles of numbers on stdin (nearest rank): pctl P (0..100), median.
pctl() {
	sort -g | awk -v p="$1" '{v[NR] = $1}
	END {
		if (NR == 0) { print "nan"; exit }
		i = int(p / 100 * (NR - 1) + 0.5) + 1
		printf "%.2f\n", v[i]
	}'
}
median() { pctl 50; }
