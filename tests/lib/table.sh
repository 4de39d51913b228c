# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# shellcheck shell=bash
#
# The results table every end-to-end test prints (sourced by topo.sh and
# bench/lib/net.sh): row, check, is and verdict record a row each, check,
# is and verdict count a failure; finish prints the table and exits with
# the verdict.  One kit, so that each test reads the same and fails the
# same way: a value that is not a number ("null", "nan", "") never passes.
# A test that prints no table says its checks with common.sh's ok, bad,
# same, differs and verdict_end, which count the same FAILS.

TABLE=""
FAILS=0

# Float compare: fcmp A OP B, e.g. fcmp "$x" '<' 15
fcmp() { awk -v a="$1" -v b="$3" "BEGIN{exit !(a $2 b)}"; }

# row NAME VALUE CHECK VERDICT
row() { TABLE="$TABLE$(printf '%-44s %12s  %-10s %s' "$1" "$2" "$3" "$4")
"; }
# check NAME VALUE OP LIMIT: record a row and count a failure if not VALUE OP LIMIT
check() {
	# only numbers pass: "null", "nan" or "" (a missing field) fail
	if [[ $2 =~ ^-?[0-9]+(\.[0-9]+)?$ ]] && fcmp "$2" "$3" "$4"; then
		row "$1" "$2" "$3 $4" ok
	else
		row "$1" "${2:-none}" "$3 $4" FAIL
		FAILS=$((FAILS + 1))
	fi
}
# is NAME VALUE EXPECTED: a string must match exactly
is() {
	if [ "$2" = "$3" ]; then row "$1" "$2" "= $3" ok
	else row "$1" "${2:-none}" "= $3" FAIL; FAILS=$((FAILS + 1)); fi
}
# verdict NAME COND-EXIT-STATUS: a yes/no assertion
verdict() {
	if [ "$2" = 0 ]; then row "$1" yes "" ok
	else row "$1" no "" FAIL; FAILS=$((FAILS + 1)); fi
}
table_print() {
	printf '%-44s %12s  %-10s %s\n' measured value needed result
	printf '%s' "$TABLE"
}
# finish NAME: print the table and exit 0 if all checks passed.
finish() {
	echo
	table_print
	if [ "$FAILS" = 0 ]; then
		echo "PASS: $1"
		exit 0
	fi
	echo "FAIL: $1 ($FAILS check(s) failed)"
	exit 1
}
