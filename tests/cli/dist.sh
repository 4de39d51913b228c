#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# What ships: the systemd unit, man pages, bash completion, examples and
# `make install` (the Debian package: tests/cli/deb.sh).
#   - dist/sojourn.service and the template dist/sojourn@.service (as an
#     instance) pass `systemd-analyze verify` (installed with PREFIX into a
#     scratch folder, so their ExecStart= exists);
#   - sojourn(8) names every command and every option word `sojourn help`
#     prints; every word of the settings table (loader/options.c, read with
#     awk) is in `sojourn help` and sojourn(8), its every key and config.c's
#     own in sojourn.conf(5); groff finds no fault in either;
#   - the example sojourn.conf files (dist/, dist/examples/ and the man
#     page's) pass `daemon --check`, the shipped one with no rule; the
#     conflist is JSON and chains sojourn-cni last;
#   - completion offers every command, every word of the table for attach
#     and replace, change's for change (and not observe or hook), hook
#     values and device names; it reads the settings from `sojourn VERB
#     help`, so these check that path too;
#   - `make install DESTDIR= PREFIX=` puts every file in place (the package:
#     tests/cli/deb.sh).
# Exit 0 pass, 77 skip, 1 fail.  SOJOURN= overrides the command.

# shellcheck source=SCRIPTDIR/../lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
[ -x "$SOJOURN" ] || skip "$SOJOURN not built"
for t in systemd-analyze groff jq; do
	command -v "$t" >/dev/null || skip "$t not installed"
done
cd "$SJ_ROOT" || exit 1
OUT=${OUTPUT:-build}
WORK=$(mktemp -d "/tmp/sjdist.XXXXXX")
DEV=sjd$$
cleanup() { ip link del "$DEV" 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT
# built already: `make` here must not rebuild what others are editing
MAKE_NB=(make --no-print-directory -o "$OUT/sojourn" -o "$OUT/sojourn-cni")

# --- install ---
"${MAKE_NB[@]}" install DESTDIR="$WORK/dest" PREFIX=/usr >"$WORK/install.log" 2>&1 ||
	die "make install: $(tail -5 "$WORK/install.log")"
for f in usr/sbin/sojourn usr/lib/cni/sojourn-cni usr/share/man/man8/sojourn.8 \
	usr/share/man/man5/sojourn.conf.5 usr/share/bash-completion/completions/sojourn \
	usr/lib/systemd/system/sojourn.service etc/sojourn/sojourn.conf \
	usr/lib/systemd/system/sojourn@.service usr/share/man/man8/sojourn-cni.8 \
	usr/share/doc/sojourn/examples/kubernetes.conf usr/share/doc/sojourn/examples/eth0.conf \
	usr/lib/systemd/system-generators/sojourn-generator \
	usr/share/doc/sojourn/examples/sojourn-daemonset.yaml \
	usr/share/doc/sojourn/examples/sojourn-cni.conflist; do
	[ -e "$WORK/dest/$f" ] || die "make install did not install /$f"
done
[ -x "$WORK/dest/usr/sbin/sojourn" ] || die "sojourn not executable"

# --- the unit ---
P=$WORK/prefix
"${MAKE_NB[@]}" install PREFIX="$P/usr" SYSCONFDIR="$P/etc" >/dev/null 2>&1 ||
	die "make install PREFIX=$P/usr"
UNIT=$P/usr/lib/systemd/system/sojourn.service
grep -q "^ExecStart=$P/usr/sbin/sojourn daemon --config $P/etc/sojourn/sojourn.conf$" "$UNIT" ||
	die "PREFIX not applied to the unit: $(grep ^ExecStart "$UNIT")"
out=$(MANPATH=$P/usr/share/man systemd-analyze verify "$UNIT" 2>&1); rc=$?
[ "$rc" = 0 ] || die "systemd-analyze verify: $out"
grep -q 'sojourn.service' <<<"$out" && die "systemd-analyze verify complains: $out"
# the template, as the instance for lo (verify reads the template beside it)
TEMPLATE=$P/usr/lib/systemd/system/sojourn@.service
grep -q "^ExecStart=$P/usr/sbin/sojourn daemon --config $P/etc/sojourn/%i.conf --interface %i" "$TEMPLATE" ||
	die "PREFIX not applied to the template: $(grep ^ExecStart "$TEMPLATE")"
out=$(MANPATH=$P/usr/share/man systemd-analyze verify "${TEMPLATE%@.service}@lo.service" 2>&1); rc=$?
[ "$rc" = 0 ] || die "systemd-analyze verify sojourn@lo.service: $out"
grep -q 'sojourn@' <<<"$out" && die "systemd-analyze verify complains about the template: $out"
# its lines with continuations joined
sed -e ':a' -e '/\\$/{N;s/\\\n[[:space:]]*/ /;ba}' dist/sojourn@.service >"$WORK/template"
for k in Type=notify "ExecStart=.* --interface %i .*--state-file /run/sojourn/%i.attached --detach-on-exit" \
	ProtectSystem=strict NoNewPrivileges=yes WatchdogSec=; do
	grep -q "^$k" "$WORK/template" || die "sojourn@.service lacks $k"
done
for k in Type=notify ProtectSystem=strict ReadWritePaths=/sys/fs/bpf NoNewPrivileges=yes \
	"CapabilityBoundingSet=CAP_BPF CAP_PERFMON CAP_NET_ADMIN CAP_SYS_ADMIN" WatchdogSec=; do
	grep -q "^$k" dist/sojourn.service || die "sojourn.service lacks $k"
done
log "systemd-analyze verify: clean"

# --- man pages ---
for m in dist/sojourn.8 dist/sojourn.conf.5 dist/sojourn-cni.8; do
	w=$(groff -man -ww -z "$m" 2>&1)
	[ -z "$w" ] || die "groff warns about $m: $w"
done
"$SOJOURN" help >"$WORK/help"
cmds=$(awk '$1 == "Usage:" || $1 == "sojourn" { for (i = 1; i <= NF; i++) if ($i == "sojourn") { print $(i + 1); break } }' "$WORK/help" |
	grep -v -e COMMAND -e '^-' | sort -u)
# the global forms: -batch FILE (and -V, on the COMMAND line)
grep -q '^\.B sojourn \\-batch$' dist/sojourn.8 || die "sojourn(8) has no synopsis for -batch"
[ "$(wc -l <<<"$cmds")" -ge 5 ] || die "cannot read the commands from sojourn help"
for c in $cmds; do
	grep -q "^\.B sojourn $c\$" dist/sojourn.8 || die "sojourn(8) has no synopsis for \"$c\""
	grep -q "^\.B $c\$" dist/sojourn.8 || die "sojourn(8) does not describe \"$c\""
done
# option words: every lower-case keyword and every -x/--xx in the usage
words=$(grep -E '^(Usage:|[[:space:]])' "$WORK/help" | sed 's/^Usage://' | grep -oE '(^|[ [|])(--?[a-z][a-z-]*|[a-z_]{2,})' |
	tr -d ' [|' | grep -vE '^(sojourn|as|them|to|help)$' | sort -u)
for w in $words; do
	esc=$(sed 's/-/\\\\-/g' <<<"$w")
	grep -qE "(^|[ .])(\\.B[RI]? )?$esc([ ,|]|$)|B$esc|\\b$esc\\b" dist/sojourn.8 ||
		die "sojourn(8) never mentions \"$w\""
done
# The settings table (loader/options.c, an option's entry a line), one line
# per option: word, noword (- for none), [Rule] key, attach only (1/0),
# picks the mode (1/0).  Read from the source: the binary has no command
# that lists it.
table=$(awk '
	!/^\t\[SJ_O_[A-Z_]+\] = \{.*\},$/ { next }
	{ w = "-"; nw = "-"; k = "-"; ao = 0; mode = 0 }
	/\.word = "/ { w = $0; sub(/.*\.word = "/, "", w); sub(/".*/, "", w) }
	/\.noword = "/ { nw = $0; sub(/.*\.noword = "/, "", nw); sub(/".*/, "", nw) }
	/\.key = "/ { k = $0; sub(/.*\.key = "/, "", k); sub(/".*/, "", k) }
	/SJ_OPT_ATTACH_ONLY/ { ao = 1 }
	/SJ_T_MODE/ { mode = 1 }
	{ print w, nw, k, ao, mode }' loader/options.c)
[ "$(wc -l <<<"$table")" -ge 15 ] || die "cannot read the settings table from loader/options.c"
[ "$(wc -l <<<"$table")" = "$(grep -c '^'$'\t''\[SJ_O_' loader/options.c)" ] ||
	die "an entry of the settings table in loader/options.c spans lines: keep each on one"
awk '$1 == "-" || $3 == "-" { bad = 1 } END { exit !bad }' <<<"$table" &&
	die "an option in loader/options.c lacks its word or key: $table"
# [Rule] keys of the table, and those config.c reads itself (Name=, [Daemon])
keys=$( { awk '{ print $3 }' <<<"$table"
	grep -oE 'strcmp\((k|key), "[A-Za-z]+"\)' loader/config.c | grep -oE '"[A-Za-z]+"' | tr -d '"'
	} | sort -u)
[ "$(wc -l <<<"$keys")" -ge 20 ] || die "cannot read the keys from loader/options.c and loader/config.c"
for k in $keys; do
	grep -q "^\.B[RI]\? $k=" dist/sojourn.conf.5 || die "sojourn.conf(5) does not describe $k="
done
# every word of the table in the usage and in sojourn(8)
table_words=$(awk '{ print $1; if ($2 != "-") print $2 }' <<<"$table")
for w in $table_words; do
	grep -qE "(^|[^a-z_])$w([^a-z_]|\$)" "$WORK/help" || die "sojourn help never shows \"$w\""
	grep -qE "(^|[ .])(\\.B[RI]? )?$w([ ,|]|\$)|B$w|\\b$w\\b" dist/sojourn.8 ||
		die "sojourn(8) never mentions \"$w\""
done
log "man: $(wc -w <<<"$cmds") commands, $(wc -w <<<"$words") option words, $(wc -w <<<"$table_words") words of the settings table, $(wc -w <<<"$keys") config keys documented"

# --- examples ---
out=$("$SOJOURN" daemon --config dist/sojourn.conf --check 2>&1) || die "dist/sojourn.conf refused: $out"
grep -q 'no \[Rule\]' <<<"$out" || die "the shipped dist/sojourn.conf has a live rule"
for f in dist/examples/*.conf; do
	grep -q '^\[Rule\]' "$f" || continue	# a systemd drop-in
	"$SOJOURN" daemon --config "$f" --check || die "$f refused"
done
sed -n '/^\.SH EXAMPLE/,/^\.fi/p' dist/sojourn.conf.5 | sed '1,2d;$d' >"$WORK/man.conf"
"$SOJOURN" daemon --config "$WORK/man.conf" --check || die "the example in sojourn.conf(5) is refused"
jq -e '.plugins[-1].type == "sojourn-cni" and .plugins[-1].capabilities.bandwidth' \
	dist/sojourn-cni.conflist >/dev/null || die "conflist does not chain sojourn-cni last"
grep -q 'add: \["BPF", "PERFMON", "NET_ADMIN", "SYS_ADMIN"\]' dist/sojourn-daemonset.yaml ||
	die "DaemonSet does not name the unit's capabilities"

# --- completion ---
ip link add "$DEV" type dummy 2>/dev/null || ip link add "$DEV" type veth peer name "${DEV}p" ||
	die "cannot create $DEV"
# (the completion asks the command itself, `sojourn VERB help`, for the
# settings: ours comes first on PATH)
comp() {	# WORDS...: what completing the last word offers
	PATH=$(dirname "$SOJOURN"):$PATH bash -c '. dist/sojourn.bash-completion
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _sojourn
		printf "%s\n" "${COMPREPLY[@]}"' comp "$@"
}
for c in $cmds; do
	comp sojourn "" | grep -qx "$c" || die "completion does not offer \"$c\""
done
comp sojourn attach sjd | grep -qx "$DEV" || die "completion does not offer device $DEV"
for o in $table_words ingress egress; do
	comp sojourn attach "$DEV" "" | grep -qx "$o" || die "completion of attach lacks $o"
	comp sojourn replace "$DEV" "" | grep -qx "$o" || die "completion of replace lacks $o"
done
# change: the table's words that change takes (not attach-only, not the mode)
while read -r w nw _ attach_only mode; do
	[ "$attach_only$mode" = 00 ] || continue
	for o in $w ${nw#-}; do
		comp sojourn change "$DEV" "" | grep -qx "$o" || die "completion of change lacks $o"
	done
done <<<"$table"
# and not the words only attach takes
for o in observe hook; do
	comp sojourn change "$DEV" "" | grep -qx "$o" && die "completion of change offers $o"
done
[ "$(comp sojourn attach "$DEV" hook "" | sort | tr '\n' ' ')" = "clsact tc tcx xdp " ] ||
	die "completion of hook: $(comp sojourn attach "$DEV" hook "")"
for o in --config --interface --state-file --detach-on-exit --check; do
	comp sojourn daemon -- | grep -qx -- "$o" || die "completion of daemon lacks $o"
done

echo "PASS: unit verified, man pages cover $(wc -w <<<"$cmds") commands, completion, install"
