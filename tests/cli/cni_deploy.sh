#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Deployable on a node that has only a container runtime (issue 16): the
# DaemonSet's install step (install-cni.sh, taken from
# dist/sojourn-daemonset.yaml as the init container runs it) copies
# sojourn-cni and sojourn into an empty folder standing for the node's
# /opt/cni/bin.  Then a node is made of a bare directory tree: that folder,
# a static busybox as /bin/sh, /proc, /sys (its bpffs unmounted), /dev and
# an empty /run, and nothing else: no /lib, no /usr, no /etc.  Chrooted
# there, in a mount namespace of its own:
#   - install twice: one bundle, the same; the installed files run;
#   - STATUS, ADD of a pod (a netns with a veth, the runtime's JSON on
#     stdin, CNI_PATH the installed folder only, no "sojourn" key): the
#     plugin finds sojourn in CNI_PATH, mounts bpffs (none before, exactly
#     one after STATUS and ADD: never one over another), attaches rate mode
#     on both directions of the host veth (`show -j` of the installed
#     sojourn); DEL takes both off;
#   - with CNI_PATH an empty folder: a CNI error (code 100) naming
#     CNI_PATH's folders and the plugin's own, exit not 0;
#   - outside the chroot, the plugin and a sojourn side by side with
#     CNI_PATH empty: STATUS runs that sojourn (found by /proc/self/exe).
# Nothing moves traffic: no timing lock.  Exit 0 pass, 77 skip, 1 fail.
# SOJOURN= and SOJOURN_CNI= override the binaries.

# shellcheck source=SCRIPTDIR/../lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
topo_require sojourn unshare chroot python3 findmnt
CNI=${SOJOURN_CNI:-$SJ_ROOT/build/sojourn-cni}
BUSYBOX=$(command -v busybox) || skip "busybox not installed (busybox-static: the node's /bin/sh)"
[ -x "$CNI" ] || skip "$CNI not built"
! ldd "$BUSYBOX" >/dev/null 2>&1 ||
	skip "$BUSYBOX is not static: cannot stand for a node's /bin/sh"
python3 -c 'import yaml' 2>/dev/null || skip "python3-yaml not installed"

WORK=$(mktemp -d "/tmp/sjdeploy.XXXXXX")
POD=sjdp$$ HOST=sjdh$$
cleanup() {
	ip netns del "$POD" 2>/dev/null
	ip link del "$HOST" 2>/dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# the install step exactly as the DaemonSet carries it
python3 - "$SJ_ROOT/dist/sojourn-daemonset.yaml" "$WORK/install-cni.sh" <<'EOF' ||
import sys, yaml
for doc in yaml.safe_load_all(open(sys.argv[1])):
    if doc and doc.get("kind") == "ConfigMap" and "install-cni.sh" in doc.get("data", {}):
        open(sys.argv[2], "w").write(doc["data"]["install-cni.sh"])
        sys.exit(0)
sys.exit(1)
EOF
	die "no install-cni.sh in dist/sojourn-daemonset.yaml"

NODE=$WORK/node
BIN=$NODE/opt/cni/bin
mkdir -p "$BIN" "$NODE/bin" "$NODE/proc" "$NODE/sys" "$NODE/dev" "$NODE/run" "$NODE/tmp"
cp "$BUSYBOX" "$NODE/bin/sh"
install_step() {
	env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin SRC_SOJOURN="$SOJOURN" SRC_CNI="$CNI" \
		DEST="$BIN" sh "$WORK/install-cni.sh" >"$WORK/install.out" 2>&1
}
install_step || die "install step: $(cat "$WORK/install.out")"
log "$(cat "$WORK/install.out")"
first=$(cd "$BIN" && echo sojourn.d-*)
install_step || die "install step, again: $(cat "$WORK/install.out")"
is "bundles after installing twice" "$(cd "$BIN" && echo sojourn.d-*)" "$first"
is "installed: what the runtime runs" "$(cd "$BIN" && echo sojourn*)" "sojourn sojourn-cni $first"
check "libraries beside them" "$(find "$BIN/$first/lib" -type f | wc -l)" '>=' 4

# the pod: a namespace with eth0, its veth peer on the node
ip netns add "$POD" || die "netns $POD"
ip link add "$HOST" type veth peer name eth0 netns "$POD" || die "veth"
ip link set "$HOST" up
ip -n "$POD" link set eth0 up

jq -n --arg host "$HOST" --arg ns "/run/netns/$POD" '
	{cniVersion: "1.1.0", name: "sjdeploy", type: "sojourn-cni",
	 runtimeConfig: {bandwidth: {ingressRate: 20000000, egressRate: 10000000}},
	 prevResult: {cniVersion: "1.1.0",
		interfaces: [{name: $host}, {name: "eth0", sandbox: $ns}],
		ips: [{address: "198.18.79.2/24", interface: 1}]}}' >"$WORK/conf.json"
jq '{cniVersion, name, type}' "$WORK/conf.json" >"$WORK/status.json"

# Inside: the node's mounts, its bpffs taken away, then the runtime's
# calls through the installed files alone.  Prints "name value" lines.
cat >"$WORK/inside.sh" <<EOF
set -u
N=$NODE
mount --make-rprivate /
mount -t proc proc \$N/proc
mount --rbind /sys \$N/sys
mount --make-rprivate \$N/sys
while findmnt -n \$N/sys/fs/bpf >/dev/null; do umount -l \$N/sys/fs/bpf || exit 1; done
mount --rbind /dev \$N/dev
mount -t tmpfs tmpfs \$N/run
mount -t tmpfs tmpfs \$N/tmp
mkdir -p \$N/run/netns
touch \$N/run/netns/$POD
mount --bind /run/netns/$POD \$N/run/netns/$POD
bpffs() { findmnt -n -t bpf \$N/sys/fs/bpf | wc -l; }
plugin() {	# COMMAND CNI_PATH INPUT
	env -i CNI_COMMAND=\$1 CNI_CONTAINERID=sjdeploy-$$ CNI_NETNS=/run/netns/$POD \
		CNI_IFNAME=eth0 CNI_PATH=\$2 $(command -v chroot) \$N /opt/cni/bin/sojourn-cni <\$3
}
echo "bpffs_before \$(bpffs)"
plugin STATUS /opt/cni/bin $WORK/status.json >$WORK/status.out 2>&1
echo "status_rc \$?"
plugin ADD /opt/cni/bin $WORK/conf.json >$WORK/add.out 2>$WORK/add.err
echo "add_rc \$?"
echo "bpffs_after \$(bpffs)"
chroot \$N /opt/cni/bin/sojourn show -j >$WORK/show.json 2>$WORK/show.err
echo "show_rc \$?"
mkdir -p \$N/empty
plugin ADD /empty $WORK/conf.json >$WORK/nopath.out 2>$WORK/nopath.err
echo "nopath_rc \$?"
plugin DEL /opt/cni/bin $WORK/conf.json >$WORK/del.out 2>$WORK/del.err
echo "del_rc \$?"
chroot \$N /opt/cni/bin/sojourn show -j >$WORK/show2.json 2>$WORK/show2.err
echo "show2_rc \$?"
EOF
unshare -m --propagation private bash "$WORK/inside.sh" >"$WORK/inside.out" 2>"$WORK/inside.err" ||
	die "the node's mounts: $(cat "$WORK/inside.err")"
got() { awk -v k="$1" '$1 == k {print $2}' "$WORK/inside.out"; }

is "bpffs in the node before" "$(got bpffs_before)" 0
is "STATUS, no bpffs yet: exit" "$(got status_rc)" 0
[ "$(got status_rc)" = 0 ] || log "STATUS: $(cat "$WORK/status.out")"
is "ADD through the installed files: exit" "$(got add_rc)" 0
[ "$(got add_rc)" = 0 ] || log "ADD: $(cat "$WORK/add.out" "$WORK/add.err")"
[ -s "$WORK/add.out" ] &&
	jq -e '.cniVersion == "1.1.0" and (.interfaces | length) == 2' "$WORK/add.out" >/dev/null
verdict "ADD printed the prevResult" $?
is "bpffs mounts after STATUS and ADD" "$(got bpffs_after)" 1
is "installed sojourn show: exit" "$(got show_rc)" 0
is "attached on the host veth" \
	"$(jq -r --arg d "$HOST" '[.[] | select(.dev == $d) | "\(.direction):\(.mode)"] | sort | join(" ")' \
		"$WORK/show.json" 2>/dev/null)" "egress:rate ingress:rate"
is "sojourn not on CNI_PATH: code" "$(jq -r .code "$WORK/nopath.out" 2>/dev/null)" 100
check "sojourn not on CNI_PATH: exit" "$(got nopath_rc)" '!=' 0
msg=$(jq -r .msg "$WORK/nopath.out" 2>/dev/null)
log "no sojourn on CNI_PATH: $msg"
case $msg in *"CNI_PATH (/empty)"*"beside the plugin (/opt/cni/bin/$first/lib)"*) r=0 ;; *) r=1 ;; esac
verdict "its message names where it looked" $r
is "stderr: one line" "$(wc -l <"$WORK/nopath.err")" 1
is "DEL: exit" "$(got del_rc)" 0
is "after DEL: show exit" "$(got show2_rc)" 0
is "after DEL: attachments on the host veth" \
	"$(jq --arg d "$HOST" '[.[] | select(.dev == $d)] | length' "$WORK/show2.json" 2>/dev/null)" 0

# its own folder: the plugin and sojourn side by side, CNI_PATH empty
mkdir -p "$WORK/side" "$WORK/empty"
cp "$CNI" "$WORK/side/sojourn-cni"
# a sojourn that says it was the one run, then is the real one
printf '#!/bin/sh\necho "$*" >>%s/side.ran\nexec %s "$@"\n' "$WORK" "$SOJOURN" >"$WORK/side/sojourn"
chmod 755 "$WORK/side/sojourn"
env -i CNI_COMMAND=STATUS CNI_PATH="$WORK/empty" "$WORK/side/sojourn-cni" \
	<"$WORK/status.json" >"$WORK/side.out" 2>&1
rc=$?
[ $rc = 0 ] || log "STATUS beside: $(cat "$WORK/side.out")"
is "STATUS, sojourn beside the plugin" "$rc" 0
is "the sojourn beside the plugin was run" "$(cat "$WORK/side.ran" 2>/dev/null)" "show -j"

finish "the DaemonSet's install step, then a pod through the installed files alone"
