#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# The libFuzzer harnesses (tests/fuzz/fuzz_*.c): every saved crash under
# tests/fuzz/regress/NAME/ must now run clean, then each fuzzer runs for
# FUZZ_SECS seconds from its saved corpus tests/fuzz/corpus/NAME/.
#   make check: installed as build/test_fuzz, 8 s each, new finds discarded
#   make fuzz:  FUZZ_GROW=1 FUZZ_SECS=60, new finds added to the saved corpus
# A crash leaves its input in build/fuzz/ and fails; copy it into
# tests/fuzz/regress/NAME/ once the bug is fixed.
# Exit 0 pass, 1 a crash, 77 when the fuzzers could not be built.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
[ -d "$root/tests/fuzz" ] || root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 1
out=${OUTPUT:-build}
secs=${FUZZ_SECS:-8}

# log, skip, die and the other helpers every script shares (from $root:
# this script also runs as build/test_fuzz)
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$root/tests/lib/common.sh"

for name in parse units tune; do
	bin=$out/fuzz/fuzz_$name
	if [ ! -x "$bin" ]; then
		skip "$bin not built: clang has no -fsanitize=fuzzer (make deps installs libclang-rt-14-dev)"
	fi
	dict=()
	[ -f "tests/fuzz/$name.dict" ] && dict=(-dict="tests/fuzz/$name.dict")
	regress=(tests/fuzz/regress/"$name"/*)
	if [ -e "${regress[0]}" ]; then
		if "$bin" "${regress[@]}" >"$out/fuzz/$name.regress.log" 2>&1; then
			ok "$name: ${#regress[@]} saved crash inputs run clean"
		else
			bad "$name: a saved crash input fails again"
			tail -30 "$out/fuzz/$name.regress.log"
		fi
	fi
	new=$(mktemp -d "/tmp/sj-fuzz-$name.XXXXXX")
	dirs=("$new" "tests/fuzz/corpus/$name")
	[ "${FUZZ_GROW:-0}" = 1 ] && dirs=("tests/fuzz/corpus/$name")
	if nice -n 10 "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$out/fuzz/$name-" \
		"${dict[@]}" "${dirs[@]}" >"$out/fuzz/$name.log" 2>&1; then
		runs=$(awk '/stat::number_of_executed_units/ {print $2}' "$out/fuzz/$name.log")
		ok "$name: ${runs:-?} inputs in ${secs}s, no crash"
	else
		bad "$name: crash, input saved as $out/fuzz/$name-*"
		grep -E "ERROR|SUMMARY|runtime error|Test unit" "$out/fuzz/$name.log" | head -10
	fi
	rm -rf "$new"
done
verdict_end fuzz
