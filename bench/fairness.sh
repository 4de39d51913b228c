#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# The fairness figures (issue: fairness on a FIFO) for the bench's tables:
# runs the three fairness scenarios of tests/e2e/ (mixed RTTs, an
# unresponsive flood beside TCP, sparse probes beside bulk flows), each side
# by side with the FIFO alone and sojourn without fairness, and writes what
# they measured to bench/results/fairness.md.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1
out=bench/results/fairness.md
work=$(mktemp -d /tmp/sjfair.XXXXXX)
trap 'rm -rf "$work"' EXIT

{
	echo "# Fairness on a FIFO"
	echo
	echo "Made by \`bench/fairness.sh\` on $(date -u +%FT%RZ), kernel $(uname -r)," \
	     "$(nproc) CPUs, commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')."
	echo "Router egress HTB 20mbit + pfifo 1000, cubic, ECN on; each scenario"
	echo "runs its systems one after the other in one run (the machine is shared"
	echo "and noisy: compare within a table, not across runs)."
} >"$out"

for t in fair_rtt fair_udp fair_sparse; do
	echo "running $t ..." >&2
	tests/e2e/$t.sh >"$work/$t.log" 2>&1
	rc=$?
	{
		echo
		echo "## $t (tests/e2e/$t.sh, exit $rc)"
		echo
		sed -n '2,/^$/{s/^# \{0,1\}//;p}' tests/e2e/$t.sh | sed '/^SPDX/d;/^Exit /,$d'
		echo '```'
		grep -vE '^(PASS|FAIL):|^$|^flows: ' "$work/$t.log" | grep -E '  |:' |
			grep -vE '^(fifo|nofair|fair|off|steered): [0-9]+ cubic|iperf3' | tail -20
		echo '```'
	} >>"$out"
done
echo "wrote $out" >&2
