#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# sj-run: beside (nothing here is timed: tests/run.sh may run it beside
# another such test, in a bpffs of its own)
#
# The shipped units under real systemd managers, old and new: a systemd of
# 253 or later, where dist/sojourn-generator must make them
# Type=notify-reload, and the host's own where it is older (Debian 12:
# 252), where they must stay Type=notify.  The units are
# dist/sojourn.service and dist/sojourn@.service as shipped, only their
# paths moved (the binary, the configuration and the runtime directory)
# into this test's tree; the generator runs as the manager runs it, from
# SYSTEMD_GENERATOR_PATH.  For each unit under each manager:
#   - it starts and is active, of the type the generator decides;
#   - the configuration is edited (Target= 5ms -> 2ms) and `systemctl
#     reload` returns 0.  Under notify-reload, right then and with no wait
#     the interface shows 2ms: the reload returned once the retune was
#     done.  systemd 253+ takes the reload as done only at READY=1 after a
#     RELOADING=1 whose MONOTONIC_USEC= is at or after the SIGHUP it sent
#     (service.c, SERVICE_RELOAD_SIGNAL), so a wrong clock or a missing
#     READY=1 makes the reload time out and fail here (tried).  Under
#     notify the reload is ExecReload='s check and kill, which return
#     before the retune: 2ms must show within 3 s;
#   - under notify-reload, a file the daemon refuses: the reload returns
#     0 (that type has no other answer), 2ms stays, and STATUS= says "last
#     reload refused" until a good file is reloaded;
#   - stop; the per-interface unit detaches on exit.
# The new systemd: the host's where it is 253 or later, else systemd 254
# from Debian's bookworm-backports (apt-get download and dpkg-deb -x into
# build/systemd-bpo, kept for later runs; nothing is installed).  Each
# manager runs as a user manager (`systemd --user`, as root) in a mount
# namespace of its own, where /run/systemd/system is a tmpfs: a manager
# refuses to start where that directory is missing.  A user manager
# sandboxes only inside a user namespace, so the sandboxing lines that
# would stop the daemon's bpf() are turned off and named (below).
# SKIP if no systemd of 253 or later can be had.
# Exit 0 pass, 77 skip, 1 fail.  SOJOURN= overrides the command.

# shellcheck source=SCRIPTDIR/../lib/topo.sh
. "$(dirname "$0")/../lib/topo.sh"
topo_require sojourn jq bpftool

ID=$(( $$ % 10000000 ))
DEV=veth${ID}y
# not under /tmp: the units have PrivateTmp=yes
WORK=$(mktemp -d "$SJ_ROOT/build/sdreload.XXXXXX")
MGR=

cleanup() {
	[ -n "$MGR" ] && manager_down
	# a daemon a killed manager left (its command line names $WORK)
	pkill -f -- "--config $WORK/" 2>/dev/null
	"$SOJOURN" detach "$DEV" >/dev/null 2>&1
	ip link del "$DEV" 2>/dev/null
	[ -n "${KEEP:-}" ] || rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# the systemd to test under: the host's where it is 253 or later, else
# bookworm-backports' (cached in build/systemd-bpo)
systemd_version() { "$1" --version 2>/dev/null | awk 'NR == 1 {print $2 + 0}'; }
if [ "$(systemd_version systemctl)" -ge 253 ] 2>/dev/null; then
	SD_ROOT=
else
	SD_ROOT=$SJ_ROOT/build/systemd-bpo
	if [ ! -x "$SD_ROOT/root/lib/systemd/systemd" ]; then
		mkdir -p "$SD_ROOT/lists/partial" "$SD_ROOT/cache/archives/partial" "$SD_ROOT/debs"
		cat >"$SD_ROOT/bpo.sources" <<-EOF
		Types: deb
		URIs: http://deb.debian.org/debian
		Suites: bookworm-backports
		Components: main
		Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
		EOF
		apt_bpo() {
			apt-get -q -o APT::Sandbox::User=root \
				-o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts=/dev/null \
				-o Dir::Etc::sourcelist="$SD_ROOT/bpo.sources" \
				-o Dir::State::Lists="$SD_ROOT/lists" -o Dir::Cache="$SD_ROOT/cache" "$@"
		}
		apt_bpo update >"$SD_ROOT/fetch.log" 2>&1 ||
			skip "systemd here is $(systemd_version systemctl) (< 253) and bookworm-backports cannot be read: $(tail -1 "$SD_ROOT/fetch.log")"
		( cd "$SD_ROOT/debs" && apt_bpo download -t bookworm-backports \
			systemd libsystemd-shared ) >>"$SD_ROOT/fetch.log" 2>&1 ||
			skip "bookworm-backports' systemd cannot be fetched: $(tail -1 "$SD_ROOT/fetch.log")"
		for d in "$SD_ROOT"/debs/*.deb; do
			dpkg-deb -x "$d" "$SD_ROOT/root" || die "dpkg-deb -x $d"
		done
	fi
	export LD_LIBRARY_PATH=$SD_ROOT/root/usr/lib/x86_64-linux-gnu/systemd
fi
NEW_SYSTEMD=/lib/systemd/systemd NEW_SYSTEMCTL=systemctl
[ -n "$SD_ROOT" ] && NEW_SYSTEMD=$SD_ROOT/root/lib/systemd/systemd NEW_SYSTEMCTL=$SD_ROOT/root/bin/systemctl
v=$(systemd_version "$NEW_SYSTEMCTL")
[ "${v:-0}" -ge 253 ] || die "no systemd >= 253 after the fetch: '$v'"
log "new: systemd $v from ${SD_ROOT:-the host}"

ip link add "$DEV" type veth peer name "${DEV}x" || die "veth"
ip link set "$DEV" up

# the generator, alone in a folder: a manager runs every program there
mkdir -p "$WORK/generators"
cp "$SJ_ROOT/dist/sojourn-generator" "$WORK/generators/" || die "generator"

sctl() { timeout 30 "$SYSTEMCTL" --user "$@"; }
targets() { "$SOJOURN" show "$DEV" -j | jq -r '[.[].target] | sort | join(" ")'; }

# manager_up NAME SYSTEMD SYSTEMCTL: a user manager of that systemd with
# the shipped units in $UNITS; sets XDG_RUNTIME_DIR, SYSTEMCTL, UNITS, MGR
manager_up() {
	local name=$1 u
	SYSTEMCTL=$3 UNITS=$WORK/$name/units
	# the manager's runtime directory stands for /run (RuntimeDirectory=
	# lands there in a user manager)
	export XDG_RUNTIME_DIR=$WORK/$name/rt
	mkdir -p "$XDG_RUNTIME_DIR" "$UNITS" "$WORK/$name/etc"
	chmod 700 "$XDG_RUNTIME_DIR"
	for u in sojourn.service sojourn@.service; do
		sed -e "s#/usr/sbin/sojourn#$SOJOURN#g" -e "s#/etc/sojourn/#$WORK/$name/etc/#g" \
			-e "s#/run/sojourn/#$XDG_RUNTIME_DIR/sojourn/#g" \
			"$SJ_ROOT/dist/$u" >"$UNITS/$u" || die "unit $u"
		grep -q '^ExecStart=' "$UNITS/$u" || die "no ExecStart= in dist/$u"
		mkdir -p "$UNITS/$u.d"
		# no journal runs here: the daemon's lines go to a file
		printf '[Service]\nStandardOutput=append:%s\nStandardError=append:%s\n' \
			"$WORK/daemon.log" "$WORK/daemon.log" >"$UNITS/$u.d/zz-machine.conf"
	done
	# in a mount namespace of its own (see the head); where /run/systemd
	# is missing, a tmpfs over all of /run: nothing is made on the host's
	cat >"$WORK/$name/manager.sh" <<-EOF
	#!/bin/bash
	if [ -d /run/systemd ]; then mount -t tmpfs sdreload /run/systemd; else mount -t tmpfs sdreload /run; fi || exit 1
	mkdir -p /run/systemd/system || exit 1
	export SYSTEMD_UNIT_PATH=$UNITS: SYSTEMD_GENERATOR_PATH=$WORK/generators
	exec "$2" --user --log-target=console --log-level=${SD_LOG_LEVEL:-notice}
	EOF
	chmod +x "$WORK/$name/manager.sh"
	unshare -m --propagation private "$WORK/$name/manager.sh" >"$WORK/$name/manager.log" 2>&1 &
	MGR=$!
	for _ in $(seq 100); do
		[ -S "$XDG_RUNTIME_DIR/systemd/private" ] &&
			"$SYSTEMCTL" --user is-system-running >/dev/null 2>&1 && break
		kill -0 "$MGR" 2>/dev/null || die "$name: the manager exited: $(tail -3 "$WORK/$name/manager.log")"
		sleep 0.1
	done
	sctl daemon-reload || die "$name: the manager does not answer: $(tail -3 "$WORK/$name/manager.log")"
	sandbox_off
}

# a user manager takes SIGTERM as exit.target: its units stop, then it
# exits; one that has not within 10 s is killed
manager_down() {
	kill "$MGR" 2>/dev/null
	for _ in $(seq 100); do
		kill -0 "$MGR" 2>/dev/null || break
		sleep 0.1
	done
	kill -9 "$MGR" 2>/dev/null
	wait "$MGR" 2>/dev/null
	MGR=
}

# A user manager cannot give a service a mount namespace of its own
# without a user namespace: systemd.exec(5) says ProtectSystem=,
# PrivateTmp= and the like imply PrivateUsers= there, and in a user
# namespace bpf() is EPERM (CAP_BPF counts only in the first one).  So
# each sandboxing line of the units is tried alone on what the daemon does
# first, a BPF map pinned in bpffs; a line under which that fails is
# turned off for this test by one more drop-in, and named.  Under a system
# manager (sojourn.service as shipped) none of these needs a user namespace.
sandbox_off() {
	local refused="" opt probe key val off u i=0
	# one probe unit a line, all loaded by one daemon-reload
	mapfile -t opts < <(sed -n '/^\[Service\]/,/^\[/p' "$UNITS"/sojourn.service "$UNITS"/sojourn@.service |
		grep -E '^(Protect|Private|ReadWrite|Restrict|Lock|Memory|SystemCall|Capability|NoNewPrivileges)[A-Za-z]*=' | sort -u)
	for opt in "${opts[@]}"; do
		i=$((i + 1))
		printf '[Service]\nType=oneshot\nExecStart=%s map create /sys/fs/bpf/sjprobe%d-%d type array key 4 value 4 entries 1 name sjprobe\n%s\n' \
			"$(command -v bpftool)" $$ "$i" "$opt" >"$UNITS/sjprobe$i.service"
	done
	sctl daemon-reload
	i=0
	for opt in "${opts[@]}"; do
		i=$((i + 1)) probe=sjprobe$i
		if sctl start "$probe.service" >/dev/null 2>&1; then
			rm -f "/sys/fs/bpf/sjprobe$$-$i" "$UNITS/$probe.service"
			continue
		fi
		rm -f "/sys/fs/bpf/sjprobe$$-$i" "$UNITS/$probe.service"
		key=${opt%%=*} val=${opt#*=}
		case "$key:$val" in
		ProtectProc:*) off=default ;;
		*:yes|*:strict|*:full|*:true) off=no ;;
		*) off= ;;
		esac
		refused="$refused $key"
		for u in sojourn.service sojourn@.service; do
			printf '%s=%s\n' "$key" "$off" >>"$UNITS/$u.d/zz-machine.conf"
		done
	done
	[ -n "$refused" ] && log "off for this test (a user manager would put the daemon in a user namespace):$refused"
	sctl daemon-reload
}

# reload_case NAME UNIT CONF TYPE: start, edit, reload, (refuse,) stop
reload_case() {
	local name=$1 unit=$2 conf=$3 type=$4 t0 t1 got
	rule() {
		# (sojourn@ names its own state file on its command line)
		[ "$unit" = sojourn.service ] &&
			printf '[Daemon]\nStateFile=%s\n' "$XDG_RUNTIME_DIR/sojourn/attached" >"$conf"
		cat >>"$conf" <<-EOF
		[Rule]
		Name=$DEV
		Rate=50mbit
		Direction=egress
		Target=$1
		$2
		EOF
	}
	same "$name $unit: attachments before start" "$("$SOJOURN" show "$DEV" -j | jq length)" 0
	: >"$conf"
	rule 5ms
	if ! sctl start "$unit"; then
		bad "$name $unit: start failed: $(sctl status "$unit" --no-pager 2>&1 | tail -5 | tr '\n' '|')"
		return
	fi
	same "$name $unit: type" "$(sctl show -P Type "$unit")" "$type"
	same "$name $unit: active" "$(sctl is-active "$unit")" active
	same "$name $unit: target at start" "$(targets)" 5000
	: >"$conf"; rule 2ms
	t0=$(date +%s%N)
	if sctl reload "$unit"; then
		got=$(targets)
		t1=$(date +%s%N)
		log "$name $unit: reload took $(( (t1 - t0) / 1000000 )) ms"
		if [ "$type" = notify ]; then
			for _ in $(seq 30); do
				[ "$got" = 2000 ] && break
				sleep 0.1; got=$(targets)
			done
			same "$name $unit: target within 3 s of the reload" "$got" 2000
		else
			# no wait: the retune must be done when reload returns
			same "$name $unit: target when reload returned" "$got" 2000
		fi
	else
		bad "$name $unit: reload failed: $(sctl status "$unit" --no-pager 2>&1 | tail -5 | tr '\n' '|')"
	fi
	if [ "$type" = notify-reload ]; then
		: >"$conf"; rule 7ms "Bogus=1"
		if sctl reload "$unit"; then ok "$name $unit: a refused file: reload returns 0"
		else bad "$name $unit: a refused file: reload failed or hung"; fi
		same "$name $unit: target after a refused file" "$(targets)" 2000
		got=$(sctl show -P StatusText "$unit")
		case $got in
		*"last reload refused"*) ok "$name $unit: STATUS= says the reload was refused" ;;
		*) bad "$name $unit: STATUS= after a refused file: '$got'" ;;
		esac
		: >"$conf"; rule 2ms
		sctl reload "$unit" || bad "$name $unit: reload of a good file again failed"
		got=$(sctl show -P StatusText "$unit")
		case $got in
		*refused*) bad "$name $unit: STATUS= still says refused: '$got'" ;;
		*) ok "$name $unit: STATUS= after a good file: $got" ;;
		esac
	fi
	same "$name $unit: active after reload" "$(sctl is-active "$unit")" active
	sctl stop "$unit" || bad "$name $unit: stop failed"
	same "$name $unit: inactive after stop" "$(sctl is-active "$unit")" inactive
}

# both units under one manager; TYPE is what the generator must give them
manager_cases() {
	local name=$1 type=$2
	reload_case "$name" sojourn.service "$WORK/$name/etc/sojourn.conf" "$type"
	# the fleet daemon leaves its attachments pinned at stop (they survive
	# a restart): take this one off by hand before the next unit
	"$SOJOURN" detach "$DEV" >/dev/null 2>&1
	reload_case "$name" "sojourn@$DEV.service" "$WORK/$name/etc/$DEV.conf" "$type"
	# the per-interface unit runs with --detach-on-exit
	same "$name sojourn@$DEV: attachments after stop" "$("$SOJOURN" show "$DEV" -j | jq length)" 0
}

manager_up new "$NEW_SYSTEMD" "$NEW_SYSTEMCTL"
manager_cases new notify-reload
manager_down

old=$(systemd_version systemctl)
if [ "${old:-0}" -lt 253 ] && [ -x /lib/systemd/systemd ]; then
	# (LD_LIBRARY_PATH may name 254's libraries: 252 needs other sonames)
	log "old: systemd $old, the host's"
	manager_up old /lib/systemd/systemd systemctl
	manager_cases old notify
	manager_down
else
	log "old: the host's systemd is ${old:-missing}: no older one to run the units under"
fi

[ "$FAILS" = 0 ] || log "the daemons said: $(tail -20 "$WORK/daemon.log")"
verdict_end systemd_reload
