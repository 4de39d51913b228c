#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# sojourn@IFACE as its unit runs it: `sojourn daemon --interface IFACE
# --state-file /run/sojourn/IFACE.attached --detach-on-exit` on a file
# whose rule names more interfaces than IFACE.
#   - each instance attaches its own interface only, both directions of an
#     asymmetric rule (EgressRate=, IngressRate=), and lists just that in
#     its own state file;
#   - an interface the rule names but no instance is for (one attached by
#     hand) is not touched;
#   - stopping an instance (SIGTERM, as systemd stops it) detaches what it
#     attached and nothing else: the other instance's and the one made by
#     hand stay;
#   - a bad --interface or --state-file is one line and exit 1.
# Exit 0 pass, 77 skip, 1 fail.  SOJOURN= overrides the command.

# shellcheck source=SCRIPTDIR/../lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
topo_require sojourn jq

ID=$(( $$ % 1000000 ))
A=sjia$ID B=sjib$ID H=sjih$ID
WORK=$(mktemp -d "/tmp/sjinst.XXXXXX")
PA= PB=
cleanup() {
	for p in $PA $PB; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
	for d in $A $B $H; do
		"$SOJOURN" detach "$d" >/dev/null 2>&1
		"$SOJOURN" detach "$d" ingress >/dev/null 2>&1
	done
	ip link del "$A" 2>/dev/null
	ip link del "$B" 2>/dev/null
	ip link del "$H" 2>/dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ip link add "$A" type veth peer name "${A}p" || die "veth $A"
ip link add "$B" type veth peer name "${B}p" || die "veth $B"
ip link add "$H" type veth peer name "${H}p" || die "veth $H"
ip link set "$A" up && ip link set "$B" up && ip link set "$H" up

# usage errors: one line, exit 1
for args in "--interface a/b" "--interface 0123456789abcdefX" "--state-file relative"; do
	# shellcheck disable=SC2086
	out=$("$SOJOURN" daemon --config /dev/null $args 2>&1); rc=$?
	[ "$rc" = 1 ] && [ "$(wc -l <<<"$out")" = 1 ] || die "daemon $args: rc $rc, $out"
done

# one file for both, as /etc/sojourn/IFACE.conf copied between instances
C=$WORK/wan.conf
cat >"$C" <<EOC
[Rule]
Name=$A $B $H
EgressRate=20mbit
IngressRate=80mbit
Overhead=34
LinkLayer=ptm
EOC
"$SOJOURN" daemon --config "$C" --interface "$A" --check || die "instance config refused"
# the rule names H too, which has no instance: attached by hand
"$SOJOURN" attach "$H" rate 5mbit || die "hand attach on $H"

run() {	# IFACE: start its instance as sojourn@IFACE.service does
	"$SOJOURN" daemon --config "$C" --interface "$1" --state-file "$WORK/$1.attached" \
		--detach-on-exit 2>>"$WORK/$1.log" &
}
dirs() { "$SOJOURN" show "$1" -j 2>/dev/null | jq -c '[.[] | [.direction, .rate]] | sort'; }
run "$A"; PA=$!
run "$B"; PB=$!
BOTH='[["egress",2500000],["ingress",10000000]]' HAND='[["egress",625000]]'
for _ in $(seq 100); do
	[ "$(dirs "$A")" = "$BOTH" ] && [ "$(dirs "$B")" = "$BOTH" ] && break
	sleep 0.05
done
[ "$(dirs "$A")" = "$BOTH" ] || die "instance $A: $(dirs "$A"): $(cat "$WORK/$A.log")"
[ "$(dirs "$B")" = "$BOTH" ] || die "instance $B: $(dirs "$B"): $(cat "$WORK/$B.log")"
sleep 0.3	# a second look: nobody takes H late
[ "$(dirs "$H")" = "$HAND" ] || die "$H (no instance) was touched: $(dirs "$H")"
for i in "$A" "$B"; do
	for o in "$A" "$B" "$H"; do
		[ "$o" = "$i" ] && continue
		grep -q "$o" "$WORK/$i.log" && die "instance $i acted on $o: $(cat "$WORK/$i.log")"
	done
done

# each state file: its own interface's two attachments (pin folders,
# COOKIE-IFINDEX-DIR), nothing of the other's
ia=$(cat "/sys/class/net/$A/ifindex") ib=$(cat "/sys/class/net/$B/ifindex")
for _ in $(seq 50); do
	[ "$(grep -c -- "-$ia-" "$WORK/$A.attached" 2>/dev/null)" = 2 ] &&
		[ "$(grep -c -- "-$ib-" "$WORK/$B.attached" 2>/dev/null)" = 2 ] && break
	sleep 0.05
done
[ "$(grep -vc '^#' "$WORK/$A.attached")" = 2 ] && [ "$(grep -c -- "-$ia-" "$WORK/$A.attached")" = 2 ] ||
	die "instance $A's list is not its two attachments: $(cat "$WORK/$A.attached")"
[ "$(grep -vc '^#' "$WORK/$B.attached")" = 2 ] && [ "$(grep -c -- "-$ib-" "$WORK/$B.attached")" = 2 ] ||
	die "instance $B's list is not its two attachments: $(cat "$WORK/$B.attached")"
kill "$PA"; wait "$PA"; rc=$?; PA=
[ "$rc" = 0 ] || die "instance $A exit status $rc"
[ "$(dirs "$A")" = '[]' ] || die "stopping instance $A left $(dirs "$A")"
[ "$(dirs "$B")" = "$BOTH" ] || die "stopping instance $A touched $B: $(dirs "$B")"
[ "$(dirs "$H")" = "$HAND" ] || die "stopping instance $A touched $H: $(dirs "$H")"
kill "$PB"; wait "$PB"; rc=$?; PB=
[ "$rc" = 0 ] || die "instance $B exit status $rc"
[ "$(dirs "$B")" = '[]' ] || die "stopping instance $B left $(dirs "$B")"
[ "$(dirs "$H")" = "$HAND" ] || die "stopping instance $B touched $H: $(dirs "$H")"
grep -qv '^#' "$WORK/$A.attached" && die "instance $A's list after its stop: $(cat "$WORK/$A.attached")"
log "$A, $B: both directions each by its own instance, each detached at its own stop; $H (by hand) kept"
echo "PASS: two instances on one file each took their own interface only, left the hand-made one, and detached only their own at stop"
