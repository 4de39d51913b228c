#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# sj-run: beside (nothing here is timed: tests/run.sh may run it beside
# another such test, in a bpffs of its own)
#
# The BPF objects build and load with every clang we support: for each of
# clang-14 (Debian 12's default) and clang-19, build the objects, their
# skeletons and the packet tests into a scratch folder, and run the packet
# tests from there (they load every program, so the verifier passes
# judgement on each compiler's output, and check verdicts and counters).
#
# Exit 0 pass, 77 skip, 1 fail.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)

# log, skip, die and the other helpers every script shares
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
cd "$root" || exit 1
[ "$(id -u)" = 0 ] || skip "needs root"

ran=0
for cc in clang-14 clang-19; do
	if ! command -v "$cc" >/dev/null; then
		bad "$cc not installed (make deps installs it)"
		continue
	fi
	out=$(mktemp -d "/tmp/sjclang.XXXXXX")
	if ! make -s --no-print-directory OUTPUT="$out" CLANG="$cc" \
		"$out/test_pkt" "$out/test_rate" >"$out/build.log" 2>&1; then
		bad "$cc: build"
		tail -20 "$out/build.log"
	else
		for t in test_pkt test_rate; do
			if "$out/$t" >"$out/$t.log" 2>&1; then
				ok "$cc: $t ($("$cc" --version | head -1))"
			else
				bad "$cc: $t"
				grep FAIL "$out/$t.log" | head -10
			fi
		done
		ran=$((ran + 1))
	fi
	rm -rf "$out"
done
[ "$ran" = 2 ] || bad "the packet tests ran for $ran of 2 compilers"
verdict_end clang_versions
