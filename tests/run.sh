#!/usr/bin/env bash
# The test runner: every unit binary, packet test and script under tests/,
# each one a test.  Exit 0 = pass, 77 = skip (reported apart), else fail.
# Ends with the line "N passed, N failed, N skipped".
#
# Tests that time nothing run first, two at a time (the machine's two
# cores), each in a mount namespace with a bpffs of its own so that no two
# see each other's pins: the unit and packet binaries (but the delay
# line's, which is timed) and the scripts that say `# sj-run: beside`.
# Every other test runs alone after them: a timed test must not share the
# CPUs.  SJ_TESTS= names the tests to run; SJ_JOBS=1 runs all alone.
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

beside() {
	case $1 in
	*/test_delayline) return 1 ;;
	"$out"/test_*) return 0 ;;
	*.sh) grep -q '^# sj-run: beside' "$1" ;;
	*) return 1 ;;
	esac
}

# run_one T: T's log, and "rc secs" in $log/NAME.rc
run_one() {
	local t=$1 name start rc
	name=$(basename "$t" .sh)
	start=$(date +%s)
	if [ "${2:-}" = own-bpffs ]; then
		unshare -m --propagation private sh -c \
			'mount -t bpf bpf /sys/fs/bpf && exec "$0"' "$t" >"$log/$name.log" 2>&1
	else
		"$t" >"$log/$name.log" 2>&1
	fi
	rc=$?
	echo "$rc $(( $(date +%s) - start ))" >"$log/$name.rc"
}

pass=0 fail=0 skip=0
report() {
	local name rc secs
	name=$(basename "$1" .sh)
	read -r rc secs <"$log/$name.rc"
	case $rc in
	0) pass=$((pass + 1)); printf 'PASS %-24s %4ss\n' "$name" "$secs" ;;
	77) skip=$((skip + 1)); printf 'SKIP %-24s %s\n' "$name" \
		"$(grep -m1 '^SKIP' "$log/$name.log")" ;;
	*) fail=$((fail + 1)); printf 'FAIL %-24s %4ss (rc %d)\n' "$name" "$secs" "$rc"
	   sed 's/^/    | /' "$log/$name.log" | tail -40 ;;
	esac
}

pool=() alone=()
for t in "${tests[@]}"; do
	rm -f "$log/$(basename "$t" .sh).rc"
	if [ "${SJ_JOBS:-2}" -gt 1 ] && beside "$t"; then
		# the long end-to-end ones first, so that both lanes end together
		case $t in tests/e2e/*) pool=("$t" "${pool[@]}") ;; *) pool+=("$t") ;; esac
	else
		alone+=("$t")
	fi
done
if [ ${#pool[@]} -gt 0 ]; then
	export -f run_one
	export log
	printf '%s\n' "${pool[@]}" | xargs -d '\n' -P "${SJ_JOBS:-2}" -I{} \
		bash -c 'run_one "$1" own-bpffs' _ {}
	for t in "${pool[@]}"; do
		[ -f "$log/$(basename "$t" .sh).rc" ] ||
			echo "99 0" >"$log/$(basename "$t" .sh).rc"
		report "$t"
	done
fi
for t in "${alone[@]}"; do
	run_one "$t"
	report "$t"
done
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
