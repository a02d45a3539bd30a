#!/usr/bin/env bash
# Installs iofleet on one host: binaries, systemd units, example configs, key directories.
#
# Usage: deploy/install.sh BUILD_DIR
#   BUILD_DIR is the CMake build directory holding iofleet, iofleet-agent and
#   iofleet-coordinator. Run as root. Safe to run again: binaries and units are replaced,
#   configs that exist are kept. Local changes to a unit belong in a drop-in
#   (systemctl edit UNIT), which this script never touches.
#
# Environment: DESTDIR (default empty) installs under another root, e.g. for packaging
# or tests; systemctl is never run then.
set -euo pipefail

usage() {
	echo "usage: $0 BUILD_DIR" >&2
	exit 2
}

[ $# -eq 1 ] || usage
case "$1" in -h | --help) usage ;; esac

build_dir=$1
src_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
destdir=${DESTDIR:-}
bin_dir=$destdir/usr/local/bin
unit_dir=$destdir/etc/systemd/system
conf_dir=$destdir/etc/iofleet

binaries=(iofleet iofleet-agent iofleet-coordinator)
units=(iofleet-coordinator.service iofleet-agent.service)
configs=(coordinator.conf agent.conf cli.conf)

die() {
	echo "install.sh: $*" >&2
	exit 1
}

# Check everything before changing anything.
[ -d "$build_dir" ] || die "build directory not found: $build_dir"
for b in "${binaries[@]}"; do
	if [ ! -f "$build_dir/$b" ] || [ ! -x "$build_dir/$b" ]; then
		die "$build_dir/$b is missing or not executable (build first: cmake --build $build_dir)"
	fi
done
for u in "${units[@]}"; do
	[ -f "$src_dir/systemd/$u" ] || die "missing unit file $src_dir/systemd/$u"
done
for c in "${configs[@]}"; do
	[ -f "$src_dir/deploy/$c" ] || die "missing example config $src_dir/deploy/$c"
done
if [ -z "$destdir" ] && [ "$(id -u)" -ne 0 ]; then
	die "run as root (or set DESTDIR to install under another directory)"
fi

install -d -m 0755 "$bin_dir" "$unit_dir" "$conf_dir" "$conf_dir/agents.d" "$conf_dir/admins.d"

for b in "${binaries[@]}"; do
	# install(1) unlinks the old file first, so a running daemon's binary can be replaced.
	install -m 0755 "$build_dir/$b" "$bin_dir/$b"
	echo "installed $bin_dir/$b"
done

for u in "${units[@]}"; do
	install -m 0644 "$src_dir/systemd/$u" "$unit_dir/$u"
	echo "installed $unit_dir/$u"
done

for c in "${configs[@]}"; do
	if [ -e "$conf_dir/$c" ]; then
		echo "kept existing $conf_dir/$c (the example is $src_dir/deploy/$c)"
	else
		install -m 0644 "$src_dir/deploy/$c" "$conf_dir/$c"
		echo "installed $conf_dir/$c"
	fi
done

# Permission mistakes are pointed out, not fixed behind the admin's back. A secret key
# must be private; public keys in the allow-lists must be readable by the coordinator,
# which runs as a transient unprivileged user.
for k in "$conf_dir"/*.key; do
	[ -e "$k" ] || continue
	if [ -n "$(find "$k" -perm /0077)" ]; then
		echo "warning: $k is readable by other users; run: chmod 0600 $k" >&2
	fi
done
for p in "$conf_dir"/agents.d/*.pub "$conf_dir"/admins.d/*.pub; do
	[ -e "$p" ] || continue
	if [ -z "$(find "$p" -perm -0004)" ]; then
		echo "warning: the coordinator cannot read $p; run: chmod 0644 $p" >&2
	fi
done

echo
if [ -n "$destdir" ]; then
	echo "DESTDIR is set: not running systemctl."
elif [ -d /run/systemd/system ]; then
	systemctl daemon-reload
	echo "systemd reloaded its unit files."
else
	echo "systemd is not running as PID 1 here: not running systemctl."
	echo "Run 'systemctl daemon-reload' on the host that boots with these files."
fi

cat <<EOF

Next steps (details: $src_dir/deploy/README.md):

 On the coordinator host:
   1. cd /etc/iofleet && iofleet keygen coordinator
        writes coordinator.key (secret, 0600) and coordinator.pub
   2. Copy coordinator.pub to /etc/iofleet/coordinator.pub on every agent host.
   3. Put each agent's public key in /etc/iofleet/agents.d/AGENT-NAME.pub, mode 0644
        (the allow-list; an agent whose key is not there is refused).
   4. Edit /etc/iofleet/coordinator.conf if the defaults do not fit, then:
        systemctl enable --now iofleet-coordinator.service

 On every storage server and client host:
   1. cd /etc/iofleet && iofleet keygen agent
        writes agent.key (secret, 0600) and agent.pub; copy agent.pub to the
        coordinator as /etc/iofleet/agents.d/AGENT-NAME.pub
   2. Set coordinator = tcp://COORDINATOR:7460 and roles in /etc/iofleet/agent.conf.
   3. systemctl enable --now iofleet-agent.service

 Then, on the coordinator host: iofleet agents
EOF
