#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# sj-run: beside (nothing here is timed: tests/run.sh may run it beside
# another such test, in a bpffs of its own)
#
# tc's conventions, on the command line and in -j:
#   - `sojourn -V` and `--version` print one line "sojourn VERSION", exit 0;
#   - every command's own usage: `VERB help`, `VERB -h`, `VERB --help` and
#     `help VERB` print it on stdout ("Usage: sojourn VERB ..."), exit 0,
#     nothing on stderr;
#   - -j prints no "\/" (pins are plain paths);
#   - show -j: rate is a number, the configured bytes per second, burst a
#     number of bytes, as `tc -j qdisc show` prints tbf's;
#   - show -j, show -s -j, hist -j (with --flow all) and top -j of real
#     attachments in every mode (rate at tcx and XDP, real-queue under HTB,
#     observe) validate against dist/schema/*.json, and the schemas reject
#     the old shape ("rate":"20Mbit") and an undocumented key, so the
#     validation can fail.
# Topology: two namespaces joined by a veth pair (rate both ways on one
# end; real-queue under HTB on the other), and a second pair for observe.
# A few pings give hist and top flows to print.
#
# Exit 0 pass, 77 skip, else fail.  SOJOURN= overrides the binary.
set -u

repo=$(cd "$(dirname "$0")/../.." && pwd)
SOJOURN=${SOJOURN:-$repo/build/sojourn}
SCHEMAS=$repo/dist/schema
T=15

# log, skip, die and the other helpers every script shares
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"
[ "$(id -u)" = 0 ] || skip "needs root"
[ -x "$SOJOURN" ] || skip "$SOJOURN not built (make first)"
for t in ip tc jq timeout fping; do
	command -v "$t" >/dev/null || skip "$t not installed"
done
[ -r /sys/kernel/btf/vmlinux ] || skip "kernel has no BTF (/sys/kernel/btf/vmlinux)"
mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf || skip "cannot mount bpffs"

# The schema check is part of the test, not an extra: without the module it
# fails (make deps installs python3-jsonschema)
PY=
for p in python3 /usr/bin/python3; do
	if "$p" -c 'import jsonschema; jsonschema.Draft202012Validator' 2>/dev/null; then
		PY=$p
		break
	fi
done
[ -n "$PY" ] || bad "no python3 with jsonschema (Draft 2020-12): make deps installs python3-jsonschema"

NA=sjcva$$ NB=sjcvb$$
DA=sjc$$a DB=sjc$$b OA=sjc$$o OB=sjc$$p
WORK=$(mktemp -d /tmp/sjconv.XXXXXX)
sj() { timeout "$T" "$SOJOURN" "$@"; }

# shellcheck disable=SC2317
cleanup() {
	if [ -e "/run/netns/$NA" ]; then
		sj detach "$DA" -n "$NA" >/dev/null 2>&1
		sj detach "$DA" ingress -n "$NA" >/dev/null 2>&1
		ip netns del "$NA"
	fi
	if [ -e "/run/netns/$NB" ]; then
		sj detach "$DB" -n "$NB" >/dev/null 2>&1
		sj detach "$OA" -n "$NB" >/dev/null 2>&1
		ip netns del "$NB"
	fi
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- -V, --version ---
v=$(sj -V 2>"$WORK/err"); rc=$?
same "-V: exit code" "$rc" 0
if [[ $v =~ ^sojourn\ [0-9][^[:space:]]*$ ]]; then ok "-V: one line: $v"; else bad "-V printed '$v'"; fi
same "-V: nothing on stderr" "$(cat "$WORK/err")" ""
# one truth: the Makefile computes the version once, the .deb takes it, and
# the binary built here prints it (a mismatch: built before the last commit)
if command -v make >/dev/null && [ -f "$repo/Makefile" ]; then
	# shellcheck disable=SC2016	# make expands them, not the shell
	read -r mk deb < <(make --no-print-directory -s -C "$repo" \
		--eval='sj-print-version: ; @echo $(SJ_VERSION) $(DEB_VERSION)' sj-print-version)
	# (a debhelper build takes the package's from debian/changelog instead)
	[ -n "${deb:-}" ] && same "the .deb's version is the Makefile's" "$deb" "${mk:-none}"
	[ "$SOJOURN" = "$repo/build/sojourn" ] &&
		same "-V: the Makefile's version (make rebuilds it)" "$v" "sojourn ${mk:-none}"
fi
long=$(sj --version); rc=$?
same "--version: exit code" "$rc" 0
same "--version: as -V" "$long" "$v"

# --- VERB help, -h, --help; help VERB ---
sj help >"$WORK/help"
for verb in attach replace change detach show hist top export gc daemon; do
	grep -qE "^ +sojourn $verb( |$)|^Usage: sojourn $verb( |$)" "$WORK/help" ||
		bad "sojourn help does not list $verb"
	for form in "$verb help" "$verb -h" "$verb --help" "help $verb"; do
		# shellcheck disable=SC2086	# the form is two words
		out=$(sj $form 2>"$WORK/err"); rc=$?
		first=$(head -1 <<<"$out")
		if [ "$rc" = 0 ] && [[ $first =~ ^[Uu]sage:\ sojourn\ $verb( |$) ]] &&
		   [ ! -s "$WORK/err" ]; then
			ok "$form: $first"
		else
			bad "$form: rc $rc, stdout '$first', stderr '$(head -1 "$WORK/err")'"
		fi
	done
done
# -h among the words, as --help after a device
out=$(sj show somedev --help 2>&1); rc=$?
if [ "$rc" = 0 ] && [[ $out == Usage:\ sojourn\ show* ]]; then
	ok "show DEV --help: the usage"; else bad "show DEV --help: rc $rc: $out"; fi

# --- attachments in every mode ---
{ ip netns add "$NA" && ip netns add "$NB"; } || { echo "FAIL: setup: netns"; exit 1; }
# shellcheck disable=SC2015	# any step failing fails the setup
ip -n "$NA" link add "$DA" type veth peer name "$DB" netns "$NB" &&
ip -n "$NA" addr add 198.18.91.1/24 dev "$DA" && ip -n "$NB" addr add 198.18.91.2/24 dev "$DB" &&
ip -n "$NA" link set "$DA" up && ip -n "$NB" link set "$DB" up &&
ip -n "$NB" link add "$OA" type veth peer name "$OB" &&
ip -n "$NB" link set "$OA" up && ip -n "$NB" link set "$OB" up &&
tc -n "$NB" qdisc add dev "$DB" root handle 1: htb default 1 &&
tc -n "$NB" class add dev "$DB" parent 1: classid 1:1 htb rate 100mbit quantum 1514 &&
tc -n "$NB" qdisc add dev "$DB" parent 1:1 pfifo limit 1000 &&
tc -n "$NB" qdisc add dev "$OA" root pfifo limit 1000 ||
	{ echo "FAIL: setup: devices"; exit 1; }

RATE_BITS=20000000 BURST=65536 IN_RATE_BITS=10000000
sj attach "$DA" rate 20mbit burst 64kb -n "$NA" || { echo "FAIL: attach rate"; exit 1; }
# XDP at ingress needs the sending peer to take XDP frames (veth: GRO or
# a program); where the kernel refuses it, tc's hook still covers the shape
sj attach "$DA" ingress rate 10mbit hook xdp -n "$NA" 2>/dev/null ||
	sj attach "$DA" ingress rate 10mbit -n "$NA" || { echo "FAIL: attach ingress"; exit 1; }
sj attach "$DB" target 10ms -n "$NB" || { echo "FAIL: attach real-queue"; exit 1; }
sj attach "$OA" observe -n "$NB" || { echo "FAIL: attach observe"; exit 1; }

# traffic for hist and top: pings across the pair, through every attachment
ip netns exec "$NA" fping -q -c 20 -p 100 198.18.91.2 >/dev/null 2>&1 &
pinger=$!
sj top -j -i 1 -n "$NA" >"$WORK/top.json"; rc_top=$?
wait "$pinger" || bad "ping across the veth pair failed"

for ns in a b; do
	n=$NA; [ "$ns" = b ] && n=$NB
	sj show -j -n "$n" >"$WORK/show_$ns.json" || bad "show -j -n $n failed"
	sj show -s -j -n "$n" >"$WORK/show_s_$ns.json" || bad "show -s -j -n $n failed"
done
sj hist "$DA" -j -n "$NA" >"$WORK/hist.json" || bad "hist -j failed"
sj hist "$DA" egress --flow all -j -n "$NA" >"$WORK/hist_flows.json" || bad "hist --flow all -j failed"
same "top -j: exit code" "$rc_top" 0

same "modes attached" "$(jq -r '.[].mode' "$WORK/show_a.json" "$WORK/show_b.json" | sort | tr '\n' ' ')" \
	"observe queue rate rate "

# --- no escaped slashes, in any -j ---
for f in "$WORK"/*.json; do
	n=$(grep -cF '\/' "$f")
	same "$(basename "$f"): no \\/" "$n" 0
done
same "show -j: pin is a plain path" \
	"$(grep -oE '"pin":"/sys/fs/bpf/sojourn/' "$WORK/show_a.json" | head -1)" '"pin":"/sys/fs/bpf/sojourn/'

# --- rate and burst as tc -j prints them ---
eg='.[] | select(.direction == "egress")'
ing='.[] | select(.direction == "ingress")'
same "show -j: rate is a number" "$(jq -r "$eg | .rate | type" "$WORK/show_a.json")" number
same "show -j: rate = configured bytes/s" "$(jq -r "$eg | .rate" "$WORK/show_a.json")" $((RATE_BITS / 8))
same "show -j: ingress rate = configured bytes/s" "$(jq -r "$ing | .rate" "$WORK/show_a.json")" $((IN_RATE_BITS / 8))
same "show -j: burst is bytes" "$(jq -r "$eg | .burst" "$WORK/show_a.json")" "$BURST"
# the default horizon and what the bulk meets, 8/9 of it (vqueue.h), in us
same "show -j: horizon, bulk_ceiling at the defaults" \
	"$(jq -c "$eg | [.horizon, .bulk_ceiling]" "$WORK/show_a.json")" "[225000,200000]"
same "show -j: no rate_bps, no burst_bytes" \
	"$(jq '[.[] | has("rate_bps") or has("burst_bytes")] | any' "$WORK/show_a.json")" false
# the text keeps tc's words
text=$(sj show "$DA" -n "$NA" | grep -m1 " egress ")
if [[ $text == *" rate 20Mbit burst 64Kb "* ]]; then
	ok "show text: rate 20Mbit burst 64Kb"
else
	bad "show text: '$text'"
fi

# --- the schemas ---
# validate SCHEMA FILE: every error, with where it is
validate() {
	"$PY" - "$1" "$2" <<'EOF'
import json, sys
import jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
doc = json.load(open(sys.argv[2]))
errors = list(jsonschema.Draft202012Validator(schema).iter_errors(doc))
for e in errors[:5]:
    print("    %s: %s" % ("/".join(map(str, e.absolute_path)) or "(top)", e.message[:200]))
sys.exit(1 if errors else 0)
EOF
}
if [ -n "$PY" ]; then
	for pair in show:show_a show:show_s_a show:show_b show:show_s_b \
		    hist:hist hist:hist_flows top:top; do
		s=${pair%%:*} f=${pair#*:}
		if out=$(validate "$SCHEMAS/$s.json" "$WORK/$f.json" 2>&1); then
			ok "$f.json matches dist/schema/$s.json"
		else
			bad "$f.json does not match dist/schema/$s.json:"
			printf '%s\n' "$out"
		fi
	done
	# the checks have something to check: flows and histograms were printed
	same "hist --flow all: flows listed" "$(jq '[.[].flow_list | length] | add > 0' "$WORK/hist_flows.json")" true
	same "top: flows listed" "$(jq '.flows | length > 0' "$WORK/top.json")" true
	# ... and can fail: the old shape and a key no schema names are refused
	refused() {	# WHAT SCHEMA JQ-EDIT FILE
		jq "$3" "$WORK/$4.json" >"$WORK/mutated.json" || { bad "jq $3"; return; }
		if validate "$SCHEMAS/$2.json" "$WORK/mutated.json" >/dev/null 2>&1; then
			bad "$2 schema takes $1"
		else
			ok "$2 schema refuses $1"
		fi
	}
	refused '"rate":"20Mbit"' show '(.[] | select(.mode == "rate") | .rate) |= "20Mbit"' show_a
	refused 'rate_bps' show '.[0].rate_bps = 1' show_a
	refused 'an undocumented stats key' show '.[0].stats.queues[0].bogus = 1' show_s_a
	refused 'a rate-mode key in real-queue mode' show '(.[] | select(.mode == "queue")).burst = 1' show_b
	refused 'a string quantile' hist '.[0].histogram.p50_us = "1ms"' hist
	refused 'a string rate' top '.flows[0].bps = "2Mbit"' top
fi

verdict_end conventions
