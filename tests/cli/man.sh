#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# sj-run: beside (nothing here is timed: tests/run.sh may run it beside
# another such test, in a bpffs of its own)
#
# The man pages against the source, so the two cannot drift:
#   - every metric name the exporter writes (the "sojourn_..." strings of
#     loader/prom.c) has its entry in sojourn(8)'s METRICS;
#   - every configuration key the CNI plugin reads (cni/*.c) is in
#     sojourn-cni(8), and groff finds no fault in it;
#   - sojourn(8) has KERNEL REQUIREMENTS naming what the code uses (BTF,
#     tcx, clsact, the tp_btf tracepoint the dequeue program declares),
#     EXAMPLES for hist, top, export and -n, and SEE ALSO tc-fq_codel(8),
#     tc-cake(8), bpftool(8), sojourn-cni(8);
#   - sojourn.conf(5) describes the per-direction keys.
# Exit 0 pass, 77 skip, 1 fail.

# shellcheck source=SCRIPTDIR/../lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
command -v groff >/dev/null || skip "groff not installed"
cd "$SJ_ROOT" || exit 1
M8=dist/sojourn.8 CNI8=dist/sojourn-cni.8 M5=dist/sojourn.conf.5

# --- metrics ---
metrics=$(grep -oE '"sojourn_[a-z_]+' loader/prom.c | tr -d '"' | sort -u)
[ "$(wc -l <<<"$metrics")" -ge 20 ] || die "cannot read the metric names from loader/prom.c: $metrics"
section() {	# NAME FILE: the lines of section NAME
	awk -v s="$1" '/^\.SH / { on = ($0 == ".SH " s) ; next } on' "$2"
}
met=$(section METRICS "$M8")
[ -n "$met" ] || die "sojourn(8) has no METRICS section"
for m in $metrics; do
	grep -qx "\.B $m" <<<"$met" || die "sojourn(8)'s METRICS lacks $m (written by loader/prom.c)"
done
# and no metric in the page that the exporter does not write
for m in $(grep -oE '^\.B sojourn_[a-z_]+$' <<<"$met" | cut -d' ' -f2); do
	grep -qx "$m" <<<"$metrics" || die "sojourn(8) lists $m, which loader/prom.c does not write"
done
log "metrics: $(wc -l <<<"$metrics") names of loader/prom.c in sojourn(8)"

# --- sojourn-cni(8) ---
w=$(groff -man -ww -z "$CNI8" 2>&1)
[ -z "$w" ] || die "groff warns about $CNI8: $w"
# the keys of the configuration (root, c->root), runtimeConfig (rc) and its
# bandwidth (bw), by name or through conf_read's key chooser
keys=$( { grep -ohE 'json_object_object_get_ex\((c->root|root|rc|bw), "[A-Za-z./-]+"' cni/*.c
	grep -ohE 'rate_of\((root|bw), "[A-Za-z]+"' cni/*.c
	grep -ohE 'key = i \? "[a-z]+" : "[a-z]+"' cni/*.c; } | grep -oE '"[^"]+"' | tr -d '"' | sort -u)
[ "$(wc -l <<<"$keys")" -ge 8 ] || die "cannot read the plugin's keys from cni/*.c: $keys"
for k in $keys; do
	esc=$(sed 's/-/\\\\-/g' <<<"$k")
	grep -qE "(^|[^A-Za-z])$esc([^A-Za-z]|\$)" "$CNI8" || die "sojourn-cni(8) does not mention \"$k\" (read by cni/)"
done
for c in ADD CHECK DEL GC STATUS VERSION; do
	grep -qx "\.B $c" "$CNI8" || die "sojourn-cni(8) does not describe $c"
done
log "sojourn-cni(8): $(wc -l <<<"$keys") keys of cni/*.c, every command"

# --- kernel requirements: what the programs use ---
req=$(section "KERNEL REQUIREMENTS" "$M8")
[ -n "$req" ] || die "sojourn(8) has no KERNEL REQUIREMENTS"
for tp in $(grep -ohE 'SEC\("tp_btf/[a-z_]+"\)' bpf/*.c | sed 's/SEC("tp_btf\///; s/")//'); do
	grep -q "tp_btf/$tp" <<<"$req" || die "KERNEL REQUIREMENTS does not name tp_btf/$tp (bpf/ uses it)"
done
grep -qE 'SEC\("(fentry|fexit|kprobe)' bpf/*.c &&
	die "bpf/ has an fentry/kprobe program: sojourn(8) says none is used"
for w in BTF tcx clsact 5.18 6.6 bpffs CAP_BPF CAP_PERFMON CAP_NET_ADMIN; do
	grep -q "$w" <<<"$req" || die "KERNEL REQUIREMENTS does not mention $w"
done
grep -q 'BTF_VMLINUX\|btf/vmlinux' loader/env.c && ! grep -q '/sys/kernel/btf/vmlinux' <<<"$req" &&
	die "KERNEL REQUIREMENTS does not name /sys/kernel/btf/vmlinux, which loader/env.c checks"

# --- examples and see also ---
ex=$(section EXAMPLES "$M8")
for c in 'sojourn hist' 'sojourn top' 'sojourn export' 'sojourn \\-n'; do
	grep -q "^$c " <<<"$ex" || die "sojourn(8)'s EXAMPLES has no \"$c\""
done
see=$(section "SEE ALSO" "$M8")
for p in 'tc\\-fq_codel (8)' 'tc\\-cake (8)' 'bpftool (8)' 'sojourn\\-cni (8)' 'sojourn.conf (5)'; do
	grep -q "^\.BR $p" <<<"$see" || die "sojourn(8)'s SEE ALSO lacks $p"
done

# --- sojourn.conf(5): the per-direction keys ---
for k in EgressRate IngressRate; do
	grep -q "^\.BI $k= " "$M5" || die "sojourn.conf(5) does not describe $k="
done
grep -q 'IFACE.conf' "$M5" || die "sojourn.conf(5) does not name /etc/sojourn/IFACE.conf"

echo "PASS: $(wc -l <<<"$metrics") metrics, $(wc -l <<<"$keys") CNI keys, kernel requirements, examples and SEE ALSO checked against the source"
