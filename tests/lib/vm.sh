# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Boot Debian 12's stock kernel (6.1: no tcx, the clsact path) in qemu
# under TCG and run a script there, on this machine's own files.  Used by
# bench/vm.sh (the qdiscs this kernel lacks) and tests/e2e/kernel_61.sh (the
# core's end-to-end tests on the oldest kernel we ship for).
#
# Nothing is installed: the kernel package is fetched with apt-get download
# and unpacked with dpkg-deb -x under $VMDIR.  The guest boots a small
# initramfs (busybox plus the 9p modules), mounts this machine's root
# read-only over 9p, and chroots into it; /tmp/out in the guest is a
# writable 9p share of the caller's directory.  KVM here cannot boot it.
#
#   vm_prepare            kernel and initramfs under $VMDIR (cached)
#   vm_guest_script OUT   write OUT/run.sh's preamble: module loading from
#                         the unpacked package; the caller appends the body
#   vm_boot OUT TIMEOUT   boot, run OUT/run.sh, power off; console in
#                         OUT/console.log.  Status: 0 booted and powered off
#
# Environment: VMDIR (/var/tmp/sojourn-vm), KPKG (kernel package),
# VM_CPUS (2), VM_MEM (2048).

VMDIR=${VMDIR:-/var/tmp/sojourn-vm}
# this checkout: a share of its own where the guest's tmpfs /tmp or /run
# or devtmpfs would hide it (a clone under /tmp)
VM_REPO=${VM_REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
VM_CPUS=${VM_CPUS:-2} VM_MEM=${VM_MEM:-2048}
VM_MODS_9P="virtio_ring virtio virtio_pci_modern_dev virtio_pci_legacy_dev
	virtio_pci netfs fscache 9pnet 9pnet_virtio 9p"

vm_err() { echo "vm: $*" >&2; return 1; }

vm_tools() {
	local t
	for t in qemu-system-x86_64 busybox depmod dpkg-deb apt-get apt-cache; do
		command -v "$t" >/dev/null || { echo "$t"; return 1; }
	done
}

vm_prepare() {
	mkdir -p "$VMDIR" || vm_err "cannot create $VMDIR" || return 1
	# one download and one unpack at a time (bench and test may overlap)
	exec {vm_lock}>"$VMDIR/.lock" && flock "$vm_lock" || return 1
	if [ -z "${KPKG:-}" ]; then
		KPKG=$(apt-cache depends linux-image-amd64 2>/dev/null |
			awk '/Depends: linux-image-6\.1/ { print $2; exit }')
		if [ -z "$KPKG" ]; then
			apt-get update -qq >/dev/null 2>&1
			KPKG=$(apt-cache depends linux-image-amd64 2>/dev/null |
				awk '/Depends: linux-image-6\.1/ { print $2; exit }')
		fi
		[ -n "$KPKG" ] || { vm_err "no linux-image-6.1*-amd64 known to apt"; exec {vm_lock}>&-; return 1; }
	fi
	KVER=${KPKG#linux-image-}
	if [ ! -e "$VMDIR/root/boot/vmlinuz-$KVER" ]; then
		(cd "$VMDIR" && rm -f "$KPKG"_*.deb &&
			apt-get download "$KPKG" >/dev/null 2>&1) ||
			{ vm_err "apt-get download $KPKG failed"; exec {vm_lock}>&-; return 1; }
		dpkg-deb -x "$VMDIR/$KPKG"_*.deb "$VMDIR/root" &&
			depmod -b "$VMDIR/root" "$KVER" &&
			rm -f "$VMDIR/$KPKG"_*.deb ||
			{ vm_err "cannot unpack $KPKG"; exec {vm_lock}>&-; return 1; }
	fi
	vm_initramfs
	local rc=$?
	exec {vm_lock}>&-
	return $rc
}

vm_initramfs() {
	local dir=$VMDIR/initramfs m f
	rm -rf "$dir" && mkdir -p "$dir/bin" "$dir/mods" || return 1
	cp "$(command -v busybox)" "$dir/bin/busybox" || return 1
	for m in $VM_MODS_9P; do
		f=$(find "$VMDIR/root/lib/modules/$KVER" -name "$m.ko" | head -1)
		[ -n "$f" ] || { vm_err "module $m not in $KPKG"; return 1; }
		cp "$f" "$dir/mods/"
	done
	cat >"$dir/init" <<EOF
#!/bin/busybox sh
/bin/busybox mkdir -p /proc /sys /dev /usr/bin /sbin /usr/sbin
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
for m in $(echo $VM_MODS_9P); do insmod /mods/\$m.ko; done
o=trans=virtio,version=9p2000.L,msize=524288
mkdir -p /host
# loose caching: binaries are read over 9p once, not at every exec
if mount -t 9p -o "\$o,ro,cache=loose" hostroot /host; then
	mount -t tmpfs tmp /host/tmp
	mount -t tmpfs run /host/run
	mkdir /host/tmp/out
	mount -t 9p -o "\$o" out /host/tmp/out
	r=\$(sed -n 's/.* sjrepo=\([^ ]*\).*/\1/p' /proc/cmdline)
	case "\$r" in /tmp/*|/run/*|/dev/*)
		mkdir -p "/host\$r" && mount -t 9p -o "\$o,ro,cache=loose" repo "/host\$r" ;;
	esac
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
	chmod +x "$dir/init"
	(cd "$dir" && find . | busybox cpio -o -H newc 2>/dev/null) |
		gzip -1 >"$VMDIR/initrd.gz.tmp" &&
		mv "$VMDIR/initrd.gz.tmp" "$VMDIR/initrd.gz" ||
		vm_err "cannot build the initramfs"
}

# The kernel asks for modules by itself (inet_diag for ss, ...): from the
# unpacked package, never from this machine's /lib/modules.
vm_guest_script() {
	local out=$1
	cat >"$out/run.sh" <<EOF
#!/bin/bash
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
printf '#!/bin/sh\nexec /sbin/modprobe -d "$VMDIR/root" "\$@"\n' >/tmp/modprobe
chmod +x /tmp/modprobe
echo /tmp/modprobe >/proc/sys/kernel/modprobe
for m in veth sch_htb sch_tbf sch_codel sch_fq_codel sch_sfq sch_red sch_cake sch_netem \\
	sch_ingress cls_bpf cls_u32 cls_matchall act_mirred inet_diag tcp_diag udp_diag; do
	/tmp/modprobe \$m || echo "guest: modprobe \$m failed"
done
echo "guest: kernel \$(uname -r), \$(nproc) CPUs"
EOF
	chmod +x "$out/run.sh"
}

vm_boot() {
	local out=$1 secs=$2
	timeout "$secs" nice -n 10 qemu-system-x86_64 \
		-accel tcg,thread=multi -smp "$VM_CPUS" -m "$VM_MEM" -cpu max \
		-nographic -no-reboot -nic none \
		-kernel "$VMDIR/root/boot/vmlinuz-$KVER" -initrd "$VMDIR/initrd.gz" \
		-append "console=ttyS0 panic=-1 quiet sjrepo=$VM_REPO" \
		-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
		-virtfs "local,path=$VM_REPO,mount_tag=repo,security_model=none,readonly=on,multidevs=remap" \
		-virtfs "local,path=$out,mount_tag=out,security_model=none,multidevs=remap" \
		</dev/null >"$out/console.log" 2>&1
}
