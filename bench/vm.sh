#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# `make bench-vm`: the RRUL-like bench inside a VM booting Debian 12's
# stock kernel, which has the AQMs this kernel lacks (fq_codel, cake,
# codel, sfq, red), with sojourn measured in the same VM run.
#
# The VM itself (Debian's stock kernel unpacked, not installed; this
# machine's root read-only over 9p; results back through a writable share)
# is tests/lib/vm.sh's, shared with the 6.1 test.  qemu runs with TCG (no
# KVM): VM_CPUS vCPUs, each a host thread, at nice 10.
#
# Environment: VMDIR, KPKG (kernel package), VM_CPUS (2), VM_MEM (2048),
# VM_TIMEOUT (s), DELAY_KIND (netem; delayline as on the host),
# SJ_ATTACH (words added to every attach, after `hook clsact`), HTB_BURST and
# rrul.sh's RATES SYSTEMS LOADS REPS SECS IDLE QUICK SOJOURN_VARIANTS.
set -u
BENCH=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$BENCH/.." && pwd)
# log, skip, die and the other helpers every script shares
# shellcheck source=SCRIPTDIR/../tests/lib/common.sh
. "$ROOT/tests/lib/common.sh"
# shellcheck source=SCRIPTDIR/../tests/lib/vm.sh
. "$ROOT/tests/lib/vm.sh"
QUICK=${QUICK:-}
if [ -n "$QUICK" ] && [ "$QUICK" != 0 ]; then
	: "${SECS:=8}" "${IDLE:=3}" "${REPS:=1}" "${NAME:=vm-quick}"
fi
RATES=${RATES:-20mbit}
SYSTEMS=${SYSTEMS:-fifo red sfq codel fq_codel cake sojourn_nofair sojourn sojourn_sparse}
LOADS=${LOADS:-up down both}
REPS=${REPS:-3} SECS=${SECS:-30} IDLE=${IDLE:-6} NAME=${NAME:-vm}
DELAY_KIND=${DELAY_KIND:-netem}	# bench/lib/net.sh: the guest's kernel has it
VM_TIMEOUT=${VM_TIMEOUT:-14400}
OUT=$VMDIR/out

[ "$(id -u)" = 0 ] || skip "bench-vm needs root"
missing=$(vm_tools) || die "$missing missing (make bench-vm installs it)"
{ [ -x "$ROOT/build/sojourn" ] && [ -x "$ROOT/build/delayline" ]; } ||
	die "build/sojourn and build/delayline first"
vm_prepare || die "cannot prepare the VM"

# what the guest runs (in the chroot, i.e. this machine's files);
# copies of the binaries, so a rebuild meanwhile does not change the run
rm -rf "$OUT" && mkdir -p "$OUT" || exit 1
cp "$ROOT/build/sojourn" "$ROOT/build/delayline" "$VMDIR/" || exit 1
variants=""	# SOJOURN_VARIANTS, copied as the main binary is
for v in ${SOJOURN_VARIANTS:-}; do
	cp "${v#*=}" "$VMDIR/sojourn+${v%%=*}" || exit 1
	variants="$variants ${v%%=*}=$VMDIR/sojourn+${v%%=*}"
done
vm_guest_script "$OUT"
cat >>"$OUT/run.sh" <<EOF
cd "$ROOT" || exit 1
DELAY_KIND=$DELAY_KIND DELAYLINE="$VMDIR/delayline" bench/capacity.sh >/tmp/out/capacity 2>&1
echo "guest capacity: \$(tail -1 /tmp/out/capacity)"
SOJOURN="$VMDIR/sojourn" SOJOURN_VARIANTS="$variants" DELAYLINE="$VMDIR/delayline" SJ_ATTACH="hook clsact ${SJ_ATTACH:-}" \\
HTB_BURST="${HTB_BURST:-}" DELAY_KIND=$DELAY_KIND RATES="$RATES" SYSTEMS="$SYSTEMS" LOADS="$LOADS" REPS=$REPS SECS=$SECS \\
IDLE=$IDLE NAME=$NAME RAW=/tmp/out/raw ANALYZE=0 SS_PERIOD=1 bench/rrul.sh
echo "rc \$?" >/tmp/out/rc
EOF

# boot it
echo "bench-vm: $KPKG under TCG, $VM_CPUS vCPUs; $SYSTEMS at $RATES," \
	"$REPS x $SECS s; console log $OUT/console.log"
vm_boot "$OUT" "$VM_TIMEOUT"
cp "$OUT/console.log" "$VMDIR/console.log"
grep -E '^(guest|[0-9]+mbit rep)' "$OUT/console.log" | tail -3
[ -s "$OUT/rc" ] || die "the guest did not finish (see $OUT/console.log)"
cat "$OUT/rc"
python3 "$BENCH/analyze.py" "$OUT/raw" "${RESULTS:-$BENCH/results}" "$NAME" &&
	cp "$OUT/capacity" "${RESULTS:-$BENCH/results}/$NAME.capacity"
