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
#
# A timed test that fails runs once more, and passes only if that second
# run passes: this machine's two cores are shared, and one run of a load
# test reads its host's noise as well as sojourn.  Both runs are reported:
# the PASS line says the first failed and the summary names its failing
# rows, so a flake stays visible.  A behaviour that is broken fails both.
# SJ_RETRY=0 turns the second run off.  Each timed test's line also gives
# how late a 10 ms timer woke while it ran (p50/p99/max, tests/lib/lateness.py),
# the host's noise as a process here sees it.
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

# run_one T [own-bpffs]: T's log, and "rc secs [late]" in $log/NAME.rc, late
# being the timer's lateness while a timed test (not own-bpffs) ran
run_one() {
	local t=$1 name start rc gauge="" late=""
	name=$(basename "$t" .sh)
	start=$(date +%s)
	if [ "${2:-}" = own-bpffs ]; then
		unshare -m --propagation private sh -c \
			'mount -t bpf bpf /sys/fs/bpf && exec "$0"' "$t" >"$log/$name.log" 2>&1
	else
		tests/lib/lateness.py >"$log/$name.late" &
		gauge=$!
		"$t" >"$log/$name.log" 2>&1
	fi
	rc=$?
	if [ -n "$gauge" ]; then
		kill "$gauge" 2>/dev/null; wait "$gauge" 2>/dev/null
		late=$(tr ' ' / <"$log/$name.late")
	fi
	echo "$rc $(( $(date +%s) - start )) $late" >"$log/$name.rc"
}

# late_of RCFILE: "timer late P50/P99/MAX ms", or nothing if unmeasured
late_of() {
	local _rc _secs late
	read -r _rc _secs late <"$1"
	[ -n "$late" ] && echo "timer late $late ms"
}

# why LOG: the first failing row of a test's table, else its last line
why() {
	{ grep -m1 -E ' FAIL$' "$1" || grep -v '^[[:space:]]*$' "$1" | tail -1; } |
		tr -s ' ' | cut -c1-150
}

pass=0 fail=0 skip=0 again=() failed=()
# report T [NOTE]: T's line (and on failure its log's end)
report() {
	local name rc secs late note=${2:-}
	name=$(basename "$1" .sh)
	read -r rc secs _ <"$log/$name.rc"
	late=$(late_of "$log/$name.rc")
	note=$late${late:+${note:+; }}$note
	case $rc in
	0) pass=$((pass + 1)); printf 'PASS %-24s %4ss%s\n' "$name" "$secs" "${note:+ ($note)}" ;;
	77) skip=$((skip + 1)); printf 'SKIP %-24s %s\n' "$name" \
		"$(grep -m1 '^SKIP' "$log/$name.log")" ;;
	*) fail=$((fail + 1)); failed+=("$name: $(why "$log/$name.log")")
	   printf 'FAIL %-24s %4ss (rc %d%s)\n' "$name" "$secs" "$rc" "${note:+; $note}"
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
	name=$(basename "$t" .sh)
	run_one "$t"
	read -r rc _ <"$log/$name.rc"
	if [ "$rc" != 0 ] && [ "$rc" != 77 ] && [ "${SJ_RETRY:-1}" != 0 ]; then
		mv "$log/$name.log" "$log/$name.first.log"
		first="$(why "$log/$name.first.log")"
		late=$(late_of "$log/$name.rc")
		first="$first${late:+ ($late)}"
		run_one "$t"
		read -r rc _ <"$log/$name.rc"
		[ "$rc" = 0 ] && again+=("$name: $first")
		report "$t" "second run; the first failed: $first"
	else
		report "$t"
	fi
done
if [ ${#again[@]} -gt 0 ]; then
	echo "passed on a second run, the first run's failing row:"
	printf '  %s\n' "${again[@]}"
fi
if [ ${#failed[@]} -gt 0 ]; then
	echo "failed:"
	printf '  %s\n' "${failed[@]}"
fi
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
