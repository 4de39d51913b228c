#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# `make bench-vm`: the RRUL-like bench inside a VM booting Debian 12's
# stock kernel, which has the AQMs this kernel lacks (fq_codel, cake,
# codel, sfq, red), with sojourn measured in the same VM run.
#
# Nothing is installed: the kernel package is fetched with apt-get download
# and unpacked with dpkg-deb -x under $VMDIR.  The guest boots from a small
# initramfs (busybox-static plus the 9p modules), mounts this machine's root
# read-only over 9p, and chroots into it: the same bench scripts, tools,
# build/sojourn and build/delayline run inside, on the guest's kernel.
# Results come back through a second, writable 9p share.  qemu runs with
# TCG (no KVM): VM_CPUS vCPUs, each a host thread, at nice 10.
#
# Environment: VMDIR, KPKG (kernel package), VM_CPUS (2), VM_MEM (2048),
# VM_TIMEOUT (s), and rrul.sh's RATES SYSTEMS LOADS REPS SECS IDLE QUICK.
set -u
BENCH=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$BENCH/.." && pwd)
VMDIR=${VMDIR:-/var/tmp/sojourn-vm}
VM_CPUS=${VM_CPUS:-2} VM_MEM=${VM_MEM:-2048}
QUICK=${QUICK:-}
if [ -n "$QUICK" ] && [ "$QUICK" != 0 ]; then
	: "${SECS:=8}" "${IDLE:=3}" "${REPS:=1}" "${NAME:=vm-quick}"
fi
RATES=${RATES:-20mbit}
SYSTEMS=${SYSTEMS:-fifo red sfq codel fq_codel cake sojourn_nofair sojourn sojourn_sparse}
LOADS=${LOADS:-up down both}
REPS=${REPS:-3} SECS=${SECS:-30} IDLE=${IDLE:-6} NAME=${NAME:-vm}
VM_TIMEOUT=${VM_TIMEOUT:-14400}
OUT=$VMDIR/out

die() { echo "bench-vm: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "SKIP: bench-vm needs root"; exit 0; }
for t in qemu-system-x86_64 busybox depmod dpkg-deb apt-get; do
	command -v "$t" >/dev/null || die "$t missing (make bench-vm installs it)"
done
[ -x "$ROOT/build/sojourn" ] && [ -x "$ROOT/build/delayline" ] ||
	die "build/sojourn and build/delayline first"

mkdir -p "$VMDIR" || die "cannot create $VMDIR"
cd "$VMDIR" || exit 1

# 1. the stock kernel, unpacked (not installed)
if [ -z "${KPKG:-}" ]; then
	KPKG=$(apt-cache depends linux-image-amd64 2>/dev/null |
		awk '/Depends: linux-image-6\.1/ { print $2; exit }')
	[ -n "$KPKG" ] || die "no linux-image-6.1*-amd64 known to apt (apt-get update?)"
fi
KVER=${KPKG#linux-image-}
if [ ! -e "root/boot/vmlinuz-$KVER" ]; then
	rm -f "$KPKG"_*.deb
	apt-get download "$KPKG" >/dev/null 2>&1 || die "apt-get download $KPKG failed"
	dpkg-deb -x "$KPKG"_*.deb root || die "dpkg-deb -x failed"
	depmod -b root "$KVER" || die "depmod failed"
fi
MODS=root/lib/modules/$KVER

# 2. the initramfs: busybox and what mounting 9p needs
rm -rf initramfs && mkdir -p initramfs/bin initramfs/mods || exit 1
cp "$(command -v busybox)" initramfs/bin/busybox
for m in virtio_ring virtio virtio_pci_modern_dev virtio_pci_legacy_dev \
	virtio_pci netfs fscache 9pnet 9pnet_virtio 9p; do
	f=$(find "$MODS" -name "$m.ko" | head -1)
	[ -n "$f" ] || die "module $m not in $KPKG"
	cp "$f" initramfs/mods/
done
cat >initramfs/init <<'EOF'
#!/bin/busybox sh
/bin/busybox mkdir -p /proc /sys /dev /usr/bin /sbin /usr/sbin
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
for m in virtio_ring virtio virtio_pci_modern_dev virtio_pci_legacy_dev \
	virtio_pci netfs fscache 9pnet 9pnet_virtio 9p; do
	insmod /mods/$m.ko
done
o=trans=virtio,version=9p2000.L,msize=524288
mkdir -p /host
# loose caching: binaries are read over 9p once, not at every exec
if mount -t 9p -o "$o,ro,cache=loose" hostroot /host; then
	mount -t tmpfs tmp /host/tmp
	mount -t tmpfs run /host/run
	mkdir /host/tmp/out
	mount -t 9p -o "$o" out /host/tmp/out
	mount -t proc proc /host/proc
	mount -t sysfs sys /host/sys
	mount -t devtmpfs dev /host/dev
	mount -t bpf bpf /host/sys/fs/bpf
	mount -t tmpfs cg /host/sys/fs/cgroup &&
		mkdir /host/sys/fs/cgroup/cpuacct &&
		mount -t cgroup -o cpuacct cpuacct /host/sys/fs/cgroup/cpuacct
	chroot /host /bin/bash /tmp/out/run.sh
else
	echo "init: cannot mount the host root over 9p"
fi
sync
poweroff -f
EOF
chmod +x initramfs/init
(cd initramfs && find . | busybox cpio -o -H newc 2>/dev/null) | gzip -1 >initrd.gz ||
	die "cannot build the initramfs"

# 3. what the guest runs (in the chroot, i.e. this machine's files);
# copies of the binaries, so a rebuild meanwhile does not change the run
rm -rf "$OUT" && mkdir -p "$OUT" || exit 1
cp "$ROOT/build/sojourn" "$ROOT/build/delayline" "$VMDIR/" || exit 1
cat >"$OUT/run.sh" <<EOF
#!/bin/bash
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
cd "$ROOT" || exit 1
# the kernel asks for modules by itself (inet_diag for ss, ...): from
# the unpacked package, not from this machine's /lib/modules
printf '#!/bin/sh\nexec /sbin/modprobe -d "$VMDIR/root" "\$@"\n' >/tmp/out/modprobe
chmod +x /tmp/out/modprobe
echo /tmp/out/modprobe >/proc/sys/kernel/modprobe
for m in veth sch_htb sch_tbf sch_codel sch_sfq sch_red sch_cake \\
	sch_ingress cls_bpf inet_diag tcp_diag udp_diag; do
	/tmp/out/modprobe \$m || echo "guest: modprobe \$m failed"
done
echo "guest: kernel \$(uname -r), \$(nproc) CPUs, qdiscs: \$(ls /sys/module | grep -E '^sch_' | tr '\n' ' ')"
DELAYLINE="$VMDIR/delayline" bench/capacity.sh >/tmp/out/capacity 2>&1
echo "guest capacity: \$(tail -1 /tmp/out/capacity)"
SOJOURN="$VMDIR/sojourn" DELAYLINE="$VMDIR/delayline" SJ_ATTACH="hook clsact" \\
RATES="$RATES" SYSTEMS="$SYSTEMS" LOADS="$LOADS" REPS=$REPS SECS=$SECS \\
IDLE=$IDLE NAME=$NAME RAW=/tmp/out/raw ANALYZE=0 SS_PERIOD=1 bench/rrul.sh
echo "rc \$?" >/tmp/out/rc
EOF

# 4. boot it
echo "bench-vm: $KPKG under TCG, $VM_CPUS vCPUs; $SYSTEMS at $RATES," \
	"$REPS x $SECS s; console log $VMDIR/console.log"
timeout "$VM_TIMEOUT" nice -n 10 qemu-system-x86_64 \
	-accel tcg,thread=multi -smp "$VM_CPUS" -m "$VM_MEM" -cpu max \
	-nographic -no-reboot -nic none \
	-kernel "root/boot/vmlinuz-$KVER" -initrd initrd.gz \
	-append "console=ttyS0 panic=-1 quiet" \
	-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
	-virtfs "local,path=$OUT,mount_tag=out,security_model=none,multidevs=remap" \
	</dev/null >console.log 2>&1
grep -E '^(guest|[0-9]+mbit rep)' console.log | tail -3
[ -s "$OUT/rc" ] || die "the guest did not finish (see $VMDIR/console.log)"
cat "$OUT/rc"
python3 "$BENCH/analyze.py" "$OUT/raw" "${RESULTS:-$BENCH/results}" "$NAME" &&
	cp "$OUT/capacity" "${RESULTS:-$BENCH/results}/$NAME.capacity"
