#!/usr/bin/env bash
# The test runner: every unit binary, packet test and script under tests/,
# each one a test.  Exit 0 = pass, 77 = skip (reported apart), else fail.
# Ends with the line "N passed, N failed, N skipped".
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1
out=${OUTPUT:-build}
log=$out/test-logs
mkdir -p "$log"
mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf

# every build/test_* binary (unit and packet tests), then the scripts
tests=()
for t in "$out"/test_* tests/cli/*.sh tests/e2e/*.sh; do
	[ -f "$t" ] && [ -x "$t" ] && tests+=("$t")
done
[ -n "${SJ_TESTS:-}" ] && read -r -a tests <<<"$SJ_TESTS"

pass=0 fail=0 skip=0
for t in "${tests[@]}"; do
	name=$(basename "$t" .sh)
	start=$(date +%s)
	"$t" >"$log/$name.log" 2>&1
	rc=$?
	secs=$(( $(date +%s) - start ))
	case $rc in
	0) pass=$((pass + 1)); printf 'PASS %-24s %4ss\n' "$name" "$secs" ;;
	77) skip=$((skip + 1)); printf 'SKIP %-24s %s\n' "$name" \
		"$(grep -m1 '^SKIP' "$log/$name.log")" ;;
	*) fail=$((fail + 1)); printf 'FAIL %-24s %4ss (rc %d)\n' "$name" "$secs" "$rc"
	   sed 's/^/    | /' "$log/$name.log" | tail -40 ;;
	esac
done
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
