#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# sj-run: beside (nothing here is timed: tests/run.sh may run it beside
# another such test, in a bpffs of its own)
#
# The Debian package (debian/, `make deb`):
#   - dpkg-buildpackage builds the source package, sojourn and
#     sojourn-dbgsym; lintian --pedantic finds nothing in any of them (make
#     deb fails on any tag; the log is read here);
#   - the build honoured dpkg-buildflags and left -Werror out: the compile
#     lines carry -D_FORTIFY_SOURCE, the binaries are PIE, bind now, have
#     RELRO, call fortified functions and are stripped, and the -dbgsym
#     package holds their debug files by build id;
#   - the package has every file (both units, sojourn-cni(8), the examples),
#     Depends on the libraries, its sojourn runs;
#   - the shipped /etc/sojourn/sojourn.conf attaches nothing: --check finds
#     no rule, and a daemon started with it lists no attachment;
#   - in a scratch root (dpkg --root, maintainer scripts chrootless with
#     DPKG_ROOT, never the host's /usr): install puts the files in place and
#     neither enables nor starts the unit; an upgrade to a newer version
#     and a reinstall keep an edited conffile; remove leaves the conffile;
#     purge leaves nothing of ours; the host is untouched throughout;
#   - the prerm of the package, on remove, detaches what the daemon's state
#     file and a sojourn@IFACE instance's (/run/sojourn/IFACE.attached)
#     name, and leaves an attachment made by hand.
# Exit 0 pass, 77 skip, 1 fail.  SOJOURN= overrides the command.

# shellcheck source=SCRIPTDIR/../lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
[ "$(id -u)" = 0 ] || skip "needs root"
[ -x "$SOJOURN" ] || skip "$SOJOURN not built"
for t in dpkg-buildpackage dh dpkg-deb readelf jq; do
	command -v "$t" >/dev/null || skip "$t not installed"
done
cd "$SJ_ROOT" || exit 1
OUT=${OUTPUT:-build}
WORK=$(mktemp -d "/tmp/sjdeb.XXXXXX")
NS=sjdeb$$
cleanup() {
	if [ -e "/run/netns/$NS" ]; then
		"$SOJOURN" -n "$NS" detach sjdeb0 >/dev/null 2>&1
		"$SOJOURN" -n "$NS" detach sjdeb1 >/dev/null 2>&1
		"$SOJOURN" -n "$NS" detach sjdeb2 >/dev/null 2>&1
		ip netns del "$NS"
	fi
	rm -rf "$WORK"
}
trap cleanup EXIT

# --- build ---
make --no-print-directory deb >"$WORK/deb.log" 2>&1 || die "make deb: $(tail -25 "$WORK/deb.log")"
debs=("$OUT"/sojourn_*.deb) dbgs=("$OUT"/sojourn-dbgsym_*.deb)
deb=${debs[0]} dbg=${dbgs[0]}
[ -f "$deb" ] || die "no sojourn .deb in $OUT"
[ -f "$dbg" ] || die "no sojourn-dbgsym .deb in $OUT"
# lintian read the .changes: the source package must be in it
grep -qE ' sojourn_[^ ]+\.dsc$' "$OUT"/deb/sojourn_*.changes ||
	die "the build made no source package: $(grep -A3 '^Files:' "$OUT"/deb/sojourn_*.changes)"
if command -v lintian >/dev/null; then
	tags=$(grep -E '^[EWIPXO]: ' "$WORK/deb.log")
	[ -z "$tags" ] || die "lintian --pedantic: $tags"
	lint="lintian --pedantic -I: no tags"
else
	lint="lintian not installed: not run"
fi

# --- flags ---
blog=$OUT/deb/build.log
cc_line=$(grep -E ' -c loader/main\.c ' "$blog" | head -1)
[ -n "$cc_line" ] || die "no compile line for loader/main.c in $blog"
grep -q -- '-D_FORTIFY_SOURCE=' <<<"$cc_line" || die "CPPFLAGS not used: $cc_line"
grep -q -- '-fstack-protector-strong' <<<"$cc_line" || die "CFLAGS not used: $cc_line"
grep -qE -- '-Werror( |$)' <<<"$cc_line" && die "-Werror in a package build: $cc_line"
dpkg-deb -x "$deb" "$WORK/x"
dpkg-deb -x "$dbg" "$WORK/dbg"
for b in usr/sbin/sojourn usr/lib/cni/sojourn-cni; do
	f=$WORK/x/$b
	readelf -h "$f" | grep -q 'Type:.*DYN' || die "/$b is not PIE"
	readelf -d "$f" | grep -qE 'BIND_NOW|FLAGS_1.*NOW' || die "/$b does not bind now"
	readelf -lW "$f" | grep -q GNU_RELRO || die "/$b has no RELRO"
	readelf --dyn-syms -W "$f" | grep -qE ' __[a-z_]+_chk' || die "/$b calls no fortified function"
	readelf -SW "$f" | grep -q '\.debug_info' && die "/$b is not stripped"
	id=$(readelf -nW "$f" | sed -n 's/.*Build ID: *//p')
	[ -n "$id" ] || die "/$b has no build id"
	[ -f "$WORK/dbg/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug" ] ||
		die "sojourn-dbgsym lacks the debug file of /$b ($id)"
done

# --- contents ---
dpkg-deb -c "$deb" | awk '{ print $6 }' >"$WORK/files"
for f in ./usr/sbin/sojourn ./usr/lib/cni/sojourn-cni ./lib/systemd/system/sojourn.service \
	./usr/share/man/man8/sojourn.8.gz ./usr/share/man/man5/sojourn.conf.5.gz \
	./etc/sojourn/sojourn.conf ./usr/share/bash-completion/completions/sojourn \
	./usr/share/doc/sojourn/copyright ./usr/share/doc/sojourn/changelog.gz \
	./usr/share/doc/sojourn/examples/sojourn-daemonset.yaml \
	./lib/systemd/system/sojourn@.service ./usr/share/man/man8/sojourn-cni.8.gz \
	./usr/share/doc/sojourn/examples/kubernetes.conf ./usr/share/doc/sojourn/examples/eth0.conf \
	./lib/systemd/system-generators/sojourn-generator; do
	grep -qx -- "$f" "$WORK/files" || die "the package lacks $f"
done
dpkg-deb -f "$deb" Depends | grep -q libinih || die "Depends lacks libinih: $(dpkg-deb -f "$deb" Depends)"
"$WORK/x/usr/sbin/sojourn" help | grep -q 'sojourn daemon' || die "the packaged sojourn does not run"
dpkg-deb --ctrl-tarfile "$deb" | tar -t | grep -qx './conffiles' || die "no conffiles"
dpkg-deb -I "$deb" conffiles | grep -qx /etc/sojourn/sojourn.conf || die "sojourn.conf is no conffile"
log "built $(basename "$deb") and $(basename "$dbg"); $lint"

# --- the shipped configuration does nothing until edited ---
shipped=$WORK/x/etc/sojourn/sojourn.conf
out=$("$SOJOURN" daemon --config "$shipped" --check 2>&1) || die "the shipped sojourn.conf is refused: $out"
# only once it has no rule may a daemon run with it on this host's links
grep -q 'no \[Rule\]: nothing will be attached' <<<"$out" ||
	die "the shipped sojourn.conf has rules: $(grep -v '^[[:space:]]*[#;]' "$shipped" | grep -v '^[[:space:]]*$')"
mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf || skip "cannot mount bpffs"
"$SOJOURN" daemon --config "$shipped" --state-file "$WORK/inert.attached" 2>"$WORK/inert.log" &
dpid=$!
for _ in $(seq 100); do grep -q 'ready: 0 rules' "$WORK/inert.log" && break; sleep 0.05; done
kill "$dpid"; wait "$dpid" || die "the daemon with the shipped sojourn.conf failed: $(cat "$WORK/inert.log")"
grep -q 'ready: 0 rules' "$WORK/inert.log" || die "no 'ready: 0 rules': $(cat "$WORK/inert.log")"
grep -q ' attached ' "$WORK/inert.log" && die "the shipped sojourn.conf attached: $(cat "$WORK/inert.log")"
[ -f "$WORK/inert.attached" ] || die "the daemon wrote no state file"
grep -qv '^#' "$WORK/inert.attached" && die "the shipped sojourn.conf attached: $(cat "$WORK/inert.attached")"
log "the shipped sojourn.conf: no rule, a daemon with it attached nothing"

# --- install, upgrade, purge in a scratch root ---
# What the host has that the maintainer scripts could touch: must not change.
host_state() {
	ls -la /usr/sbin/sojourn /usr/lib/cni/sojourn-cni /etc/sojourn /lib/systemd/system/sojourn.service \
		/etc/systemd/system/multi-user.target.wants /var/lib/systemd/deb-systemd-helper-enabled \
		/run/sojourn 2>&1
	dpkg-query -W -f='${Status}\n' sojourn 2>&1
}
host_state >"$WORK/host.before"
R=$WORK/root
mkdir -p "$R/var/lib/dpkg/info" "$R/var/lib/dpkg/updates" "$R/var/lib/dpkg/triggers"
: >"$R/var/lib/dpkg/status"
# the packages our Depends name, as the host has them, so that dpkg checks
# the dependencies for real (no --force-depends)
for p in $(dpkg-deb -f "$deb" Depends | tr ',|' '\n' | sed 's/(.*//; s/[[:space:]]//g; s/:.*//' | sort -u); do
	dpkg-query -s "$p" >>"$R/var/lib/dpkg/status" 2>/dev/null || die "dependency $p not on the host"
	echo >>"$R/var/lib/dpkg/status"
	arch=$(dpkg-query -W -f='${Multi-Arch}:${Architecture}' "$p")
	case $arch in same:*) : >"$R/var/lib/dpkg/info/$p:${arch#same:}.list" ;;
	*) : >"$R/var/lib/dpkg/info/$p.list" ;; esac
done
sdpkg() { dpkg --root="$R" --force-script-chrootless "$@"; }
ours() { (cd "$R" && find . -path ./var/lib/dpkg -prune -o -print | sort); }
# what every system has before us: /run, and /var/lib/systemd (systemd's;
# deb-systemd-helper keeps its enablement state below it)
mkdir -p "$R/run" "$R/var/lib/systemd"
ours >"$WORK/root.empty"

sdpkg -i "$deb" >"$WORK/dpkg.log" 2>&1 || die "install: $(tail -10 "$WORK/dpkg.log")"
st=$(dpkg --root="$R" -s sojourn 2>/dev/null | sed -n 's/^Status: //p')
[ "$st" = "install ok installed" ] || die "after install: status \"$st\""
while read -r f; do
	[ "$f" = . ] && continue
	[ -e "$R/$f" ] || die "install did not put $f in place"
done <"$WORK/files"
[ -x "$R/usr/sbin/sojourn" ] || die "sojourn not executable in the root"
ls "$R"/etc/systemd/system/*.wants/sojourn.service 2>/dev/null &&
	die "install enabled sojourn.service"
v1=$(dpkg-deb -f "$deb" Version)

# the operator edits the conffile; an upgrade and a reinstall keep the edit
echo "# edited by the operator" >>"$R/etc/sojourn/sojourn.conf"
dpkg-deb -R "$deb" "$WORK/v2"
sed -i "s/^Version: .*/Version: $v1+upgrade1/" "$WORK/v2/DEBIAN/control"
dpkg-deb --root-owner-group -b "$WORK/v2" "$WORK/sojourn_v2.deb" >/dev/null || die "cannot repack v2"
sdpkg -i "$WORK/sojourn_v2.deb" >>"$WORK/dpkg.log" 2>&1 || die "upgrade: $(tail -10 "$WORK/dpkg.log")"
[ "$(dpkg --root="$R" -s sojourn | sed -n 's/^Version: //p')" = "$v1+upgrade1" ] ||
	die "upgrade did not install $v1+upgrade1"
sdpkg -i "$WORK/sojourn_v2.deb" >>"$WORK/dpkg.log" 2>&1 || die "reinstall: $(tail -10 "$WORK/dpkg.log")"
grep -q '^# edited by the operator' "$R/etc/sojourn/sojourn.conf" || die "upgrade lost the operator's edit"
[ -x "$R/usr/sbin/sojourn" ] || die "after the upgrade: no sojourn"

sdpkg -r sojourn >>"$WORK/dpkg.log" 2>&1 || die "remove: $(tail -10 "$WORK/dpkg.log")"
[ -e "$R/usr/sbin/sojourn" ] && die "remove left /usr/sbin/sojourn"
[ -f "$R/etc/sojourn/sojourn.conf" ] || die "remove took the conffile (only purge may)"
mkdir -p "$R/run/sojourn/cni" && echo "1-2-egress" >"$R/run/sojourn/attached"
sdpkg -P sojourn >>"$WORK/dpkg.log" 2>&1 || die "purge: $(tail -10 "$WORK/dpkg.log")"
dpkg --root="$R" -s sojourn >/dev/null 2>&1 && die "purge left sojourn in the status database"
ls "$R"/var/lib/dpkg/info/sojourn.* >/dev/null 2>&1 && die "purge left $(ls "$R"/var/lib/dpkg/info/sojourn.*)"
ours >"$WORK/root.purged"
left=$(comm -13 "$WORK/root.empty" "$WORK/root.purged")
[ -z "$left" ] || { (cd "$R" && ls -laR var/lib/systemd 2>/dev/null); die "purge left: $left"; }
host_state >"$WORK/host.after"
cmp -s "$WORK/host.before" "$WORK/host.after" ||
	die "the host changed: $(diff "$WORK/host.before" "$WORK/host.after")"
log "scratch root: install, upgrade $v1 -> $v1+upgrade1, reinstall, remove, purge: clean"

# --- prerm on remove: detach what the daemon attached, not the rest ---
mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf || skip "cannot mount bpffs"
ip netns add "$NS" || die "cannot add netns $NS"
ip -n "$NS" link add sjdeb0 type veth peer name sjdeb1 || die "cannot create veths"
ip -n "$NS" link add sjdeb2 type veth peer name sjdeb3 || die "cannot create veths"
ip -n "$NS" link set sjdeb0 up && ip -n "$NS" link set sjdeb1 up && ip -n "$NS" link set sjdeb2 up
"$SOJOURN" -n "$NS" attach sjdeb0 rate 100mbit || die "cannot attach sjdeb0"
"$SOJOURN" -n "$NS" attach sjdeb1 rate 100mbit || die "cannot attach sjdeb1"
"$SOJOURN" -n "$NS" attach sjdeb2 rate 100mbit || die "cannot attach sjdeb2"
pin=$("$SOJOURN" show -j | jq -r --arg ns "$NS" '.[] | select(.netns == $ns and .dev == "sjdeb0") | .pin')
[ -n "$pin" ] || die "sjdeb0's attachment not in sojourn show -j"
# the daemon "made" sjdeb0's, by its state file at a StateFile= of its config
printf '# attachments sojourn daemon made: netns cookie-ifindex-direction\n%s\n' \
	"$(basename "$pin")" >"$WORK/attached"
printf '[Daemon]\nStateFile = %s\n' "$WORK/attached" >"$WORK/sojourn.conf"
# ... and an instance sojourn@sjdeb2 sjdeb2's, by its own list
pin2=$("$SOJOURN" show -j | jq -r --arg ns "$NS" '.[] | select(.netns == $ns and .dev == "sjdeb2") | .pin')
mkdir -p "$WORK/run"
printf '# attachments sojourn daemon made: netns cookie-ifindex-direction\n%s\n' \
	"$(basename "$pin2")" >"$WORK/run/sjdeb2.attached"
dpkg-deb -e "$deb" "$WORK/ctl"
grep -q 'deb-systemd-invoke stop sojourn.service' "$WORK/ctl/prerm" || die "prerm does not stop the unit"
# upgrades: a running daemon restarted after, not stopped before
grep -q "deb-systemd-invoke try-restart 'sojourn.service'" "$WORK/ctl/postinst" ||
	die "postinst does not restart a running daemon on upgrade"
grep -q 'deb-systemd-invoke stop' "$WORK/ctl/preinst" 2>/dev/null &&
	die "preinst stops the daemon on upgrade (and nothing starts it again)"
sed -e "s|^SOJOURN=/usr/sbin/sojourn|SOJOURN=$SOJOURN|; s|^CONF=.*|CONF=$WORK/sojourn.conf|" \
	-e "s|^RUNDIR=.*|RUNDIR=$WORK/run|" \
	-e 's/deb-systemd-invoke/true/' "$WORK/ctl/prerm" >"$WORK/prerm"
grep -q "^SOJOURN=$SOJOURN" "$WORK/prerm" || die "cannot point the prerm at $SOJOURN"
grep -q "^RUNDIR=$WORK/run" "$WORK/prerm" || die "cannot point the prerm's RUNDIR at $WORK/run"
grep -q 'deb-systemd-invoke stop "sojourn@' "$WORK/ctl/prerm" || die "prerm does not stop the sojourn@ instances"
sh "$WORK/prerm" upgrade 2.0 || die "prerm upgrade failed"
attached() { "$SOJOURN" show -j | jq -e --arg ns "$NS" --arg dev "$1" \
	'.[] | select(.netns == $ns and .dev == $dev)' >/dev/null; }
attached sjdeb0 || die "prerm upgrade detached sjdeb0"
attached sjdeb2 || die "prerm upgrade detached sjdeb2"
sh "$WORK/prerm" remove || die "prerm remove failed"
attached sjdeb0 && die "prerm remove left sjdeb0 (the daemon's) attached"
attached sjdeb1 || die "prerm remove detached sjdeb1 (attached by hand)"
attached sjdeb2 && die "prerm remove left sjdeb2 (the sojourn@sjdeb2 instance's) attached"
[ -e "$WORK/run/sjdeb2.attached" ] && die "prerm remove left the instance's state file"
[ -e "$WORK/attached" ] && die "prerm remove left the state file"
"$SOJOURN" -n "$NS" detach sjdeb1 || die "cannot detach sjdeb1"
log "prerm remove: detached the daemon's and the instance's attachments, left the hand-made one"

echo "PASS: $(basename "$deb") + -dbgsym ($lint), hardened, the shipped conf inert, install/upgrade/reinstall/remove/purge in a scratch root, prerm detaches the daemon's and the instances'"
