# Helpers for the scenarios that run inside a guest (tests/vm/guest/*.sh), sourced by them.
# Results go to /vm/out (the host's OUT directory); every check prints "ok:" or "FAIL:" and
# vm_done ends with the counts, so the host test reads one log.
set -uo pipefail
export SYSTEMD_COLORS=0 SYSTEMD_PAGER=cat LC_ALL=C.UTF-8
OUT=/vm/out
skips=0
. "$VM_SRC/tests/integration/checks.sh"

skipped() {
	skips=$((skips + 1))
	echo "skipped: $*"
}

note() {
	echo "-- $* ($(cut -d' ' -f1 /proc/uptime)s)"
}

# wait_for SECONDS COMMAND...: polls COMMAND every 0.2 s until it succeeds; 1 after SECONDS.
wait_for() {
	local limit=$1 end
	shift
	end=$(($(date +%s) + limit))
	until "$@"; do
		[ "$(date +%s)" -lt "$end" ] || return 1
		sleep 0.2
	done
}

# vm_journal: the iofleet units' journal of this boot, for the host to read after a failure.
vm_journal() {
	journalctl -b -o short-precise --no-pager -u 'iofleet-*' -u nfs-server >"$OUT/journal-$(cat /proc/sys/kernel/random/boot_id | cut -c1-8).txt" 2>&1
}

# part NAME: the checks from here on count for NAME, a test of its own on the host
# (tests/vm/vm-part.sh reads $OUT/part-NAME.counts and the log from "== part NAME" on). One
# boot serves several tests: the packages are installed once.
PART=
part() {
	part_end
	PART=$1
	PART_COUNTS="$passes $failures $skips"
	: >"$OUT/part-$1.started"
	echo "== part $1 ($(cut -d' ' -f1 /proc/uptime)s)"
}
part_end() {
	local p=0 f=0 s=0
	[ -n "$PART" ] || return 0
	# A part may come back later in the boot (its counts add up).
	[ -s "$OUT/part-$PART.counts" ] && read -r p f s <"$OUT/part-$PART.counts"
	set -- $PART_COUNTS
	echo "$((p + passes - $1)) $((f + failures - $2)) $((s + skips - $3))" >"$OUT/part-$PART.counts"
	echo "== end of part $PART: $((passes - $1)) passed, $((failures - $2)) failed, $((skips - $3)) skipped ($(cut -d' ' -f1 /proc/uptime)s)"
	PART=
}

# vm_done: the counts as the last line (the form ctest's log readers know) and the exit status.
vm_done() {
	part_end
	vm_journal
	echo "$passes passed, $failures failed, $skips skipped"
	[ "$failures" -eq 0 ]
	exit $?
}

# vm_reset: a hard reset, as a power cut: no unit stops, no file system sync. The host boots
# the next phase on the same disk.
vm_reset() {
	part_end
	vm_journal
	echo reboot >"$OUT/status"
	echo "-- hard reset ($(cut -d' ' -f1 /proc/uptime)s)"
	echo b >/proc/sysrq-trigger
	sleep 60
}

# The fleet's network inside the guest: a bridge in the root namespace (the storage host,
# 10.99.0.1) and one network namespace per client host (10.99.0.11, .12, ...), each on a veth
# to the bridge. Nothing leaves the guest, which has no network device.
SERVER_ADDR=10.99.0.1
fleet_net() {
	local i=0 n
	ip link show br-fleet >/dev/null 2>&1 || {
		ip link add br-fleet type bridge
		ip addr add $SERVER_ADDR/24 dev br-fleet
		ip link set br-fleet up
	}
	for n in "$@"; do
		i=$((i + 1))
		[ -e "/run/netns/$n" ] && continue
		ip netns add "$n"
		ip link add "v-$n" type veth peer name eth0 netns "$n"
		ip link set "v-$n" master br-fleet up
		ip -n "$n" addr add "10.99.0.$((10 + i))/24" dev eth0
		ip -n "$n" link set eth0 up
		ip -n "$n" link set lo up
	done
}

# State of the NFS server files a step may change: nfs.conf's bytes, whether exports.d exists
# and what it holds, the etab, and whether nfs-server runs.
nfs_state() {
	sha256sum /etc/nfs.conf
	stat -c '%a %U %G' /etc/nfs.conf
	if [ -d /etc/exports.d ]; then
		echo "exports.d: present"
		(cd /etc/exports.d && find . -mindepth 1 -exec sha256sum {} + 2>/dev/null | sort)
	else
		echo "exports.d: absent"
	fi
	echo "nfs-server: $(systemctl is-active nfs-server 2>/dev/null)"
}

# The NFS mounts the guest has (any namespace shares the one mount table here): "TARGET FSTYPE
# SOURCE OPTIONS" from /proc/self/mountinfo, read by the shell alone: nothing here looks into a
# mount, whose server may be gone.
nfs_mounts() {
	local l f
	while IFS= read -r l; do
		case $l in
		*" - nfs "* | *" - nfs4 "*)
			f=(${l%% - *})
			echo "${f[4]} ${l#* - }"
			;;
		esac
	done </proc/self/mountinfo
}
export -f nfs_state nfs_mounts

# install_debs DIR: the three packages, as an admin installs them.
install_debs() {
	DEBIAN_FRONTEND=noninteractive dpkg -i "$1"/iofleet_*.deb "$1"/iofleet-coordinator_*.deb \
		"$1"/iofleet-agent_*.deb
}

# fleet_units DEBS: the client hosts' unit, iofleet-client@NAME.service: the packaged agent unit
# (taken from the package) in network namespace NAME, with its own config, key, state and
# mount root, and the packaged WatchdogSec (a client mounts off its loop: issue 14 finding 2).
# Written before the packages are installed, so the daemon-reload of their postinst loads it (a
# daemon-reload costs seconds under TCG).
fleet_units() {
	dpkg-deb --fsys-tarfile "$1"/iofleet-agent_*.deb | tar -xO ./lib/systemd/system/iofleet-agent.service |
		sed -e 's#^ExecStart=.*#ExecStart=/usr/sbin/iofleet-agent --config=/etc/iofleet/agent-%i.conf#' \
			-e 's#^StateDirectory=.*#StateDirectory=iofleet-agent-%i#' \
			-e 's#^Description=.*#Description=iofleet agent of client host %i (network namespace %i)#' \
			-e 's#^\[Service\]#[Service]\nNetworkNamespacePath=/run/netns/%i#' \
			>/etc/systemd/system/iofleet-client@.service
}

# fleet_setup DEBS CLIENTS...: the packages installed and configured as an admin would: the
# coordinator and the storage agent (kernel nfsd) on this host, one client agent per network
# namespace, each a systemd unit running the installed /usr/sbin/iofleet-agent with the
# packaged unit's settings (iofleet-client@NAME.service: the packaged unit in namespace NAME,
# with its own config, key, state and mount root). Waits until the coordinator lists them all.
fleet_setup() {
	local debs=$1 c
	shift
	fleet_net "$@"
	fleet_units "$debs"
	install_debs "$debs" >"$OUT/dpkg-install.log" 2>&1 || { cat "$OUT/dpkg-install.log"; fail "dpkg -i of the three packages"; return 1; }
	fleet_configure "$@"
}

fleet_configure() {
	local c
	cat >/etc/iofleet/agent.conf <<EOC
[agent]
name = storage
coordinator = tcp://$SERVER_ADDR:7460
roles = storage
nfs_backend = kernel
nfs_address = $SERVER_ADDR
allow_paths = /srv,/nfs
EOC
	cp /etc/iofleet/agent.pub /etc/iofleet/agents.d/storage.pub
	# A longer lease than the packaged 5 heartbeats: under TCG on a loaded host (2 cores, the
	# sanitizer build beside) an agent's heartbeats come seconds late, and an agent lost and back
	# mid-run is not what these tests are about (vm/teardown-order runs the packaged lease).
	printf '[coordinator]\nlost_after = %s\n' "${FLEET_LOST_AFTER:-60}" >/etc/iofleet/coordinator.conf
	for c in "$@"; do
		client_config "$c"
	done
	[ -n "$(systemctl show -P FragmentPath iofleet-client@x)" ] || systemctl daemon-reload
	systemctl restart iofleet-coordinator
	systemctl restart iofleet-agent
	for c in "$@"; do
		systemctl enable --now "iofleet-client@$c" 2>/dev/null
	done
	if wait_for 60 fleet_idle $((1 + $#)); then
		ok "the coordinator lists $((1 + $#)) idle agents (storage and $*)"
	else
		fail "agents did not all register: $(iofleet agents 2>&1)"
		journalctl -u iofleet-agent -u 'iofleet-client@*' -u iofleet-coordinator --no-pager | tail -n 30
		return 1
	fi
}

# fleet_lease N: the coordinator's lease (lost_after, in heartbeats), restarted with it; waits
# until the agents are back (3: storage, c1, c2).
fleet_lease() {
	printf '[coordinator]\nlost_after = %s\n' "$1" >/etc/iofleet/coordinator.conf
	systemctl restart iofleet-coordinator
	wait_for 90 fleet_idle 3 || fail "agents not back after the coordinator's restart (lost_after $1)"
}

# client_config NAME: client host NAME's key (admitted by the coordinator) and agent config.
client_config() {
	[ -e "/etc/iofleet/$1.key" ] || iofleet keygen --dir=/etc/iofleet "$1" >/dev/null
	cp "/etc/iofleet/$1.pub" "/etc/iofleet/agents.d/$1.pub"
	cat >"/etc/iofleet/agent-$1.conf" <<EOC
[agent]
name = $1
coordinator = tcp://$SERVER_ADDR:7460
key = /etc/iofleet/$1.key
state_dir = /var/lib/iofleet-agent-$1
mount_root = /run/iofleet-agent-$1/mnt
roles = client
EOC
}

# fleet_add_client NAME: one more client host in a running fleet: its key admitted (SIGHUP
# rereads the allow-list) and its unit started; waits until the coordinator lists N idle agents.
fleet_add_client() {
	local n=$2
	client_config "$1"
	systemctl kill -s HUP iofleet-coordinator
	systemctl enable --now "iofleet-client@$1" 2>/dev/null
	if wait_for 60 fleet_idle "$n"; then
		ok "client $1 joined the fleet ($n idle agents)"
	else
		fail "client $1 did not join: $(iofleet agents 2>&1)"
		return 1
	fi
}

fleet_idle() {
	[ "$(iofleet agents --json 2>/dev/null | jq '[.[] | select(.state == "idle")] | length' 2>/dev/null)" = "$1" ]
}

# run_plan NAME PLAN [ARGS...]: iofleet run, output in $OUT/NAME.log; RESULT_DIR is the run's
# or the sweep's results directory; returns iofleet run's exit status.
run_plan() {
	local name=$1 plan=$2 rc
	shift 2
	timeout "${PLAN_LIMIT:-300}" iofleet run "$@" "$plan" >"$OUT/$name.log" 2>&1
	rc=$?
	grep -E '^iofleet: (point|sweep|results in|run [^ ]+ (failed|partial))' "$OUT/$name.log" | head -n 40
	RESULT_DIR=$(sed -n 's/^iofleet: sweep .*; results in \([^ ]*\) (iofleet report DIR)$/\1/p' "$OUT/$name.log")
	[ -z "$RESULT_DIR" ] || cp "$RESULT_DIR/sweep.json" "$OUT/$name.sweep.json" 2>/dev/null
	[ -n "$RESULT_DIR" ] ||
		RESULT_DIR=$(sed -n 's#^iofleet: results in \(.*\)/ (result.json, intervals.csv)$#\1#p' "$OUT/$name.log" | tail -n1)
	return $rc
}

# point_json DIR INDEX: a sweep point's result.json (its first repeat).
point_json() {
	printf '%s/%s/result.json' "$1" "$(jq -r ".points[] | select(.index == $2 and .repeat == 0) | .dir" "$1/sweep.json")"
}

# step_running: the server exports and both clients have their mounts.
step_running() {
	[ -e /etc/exports.d/iofleet.exports ] && [ "$(nfs_mounts | wc -l)" -ge "${1:-2}" ]
}

# entries DIR... : what the directories hold (their own entries, never descended: a mount left
# there may hang whoever looks inside), or a line saying the listing did not finish in 10 s.
entries() {
	local out rc
	out=$(timeout -k 2 10 find "$@" -mindepth 1 -maxdepth 1 -printf '%p\n' 2>/dev/null)
	rc=$?
	[ $rc -lt 124 ] || out="listing $* did not finish within 10s"
	printf '%s' "$out"
}

# no_leftovers WHAT: no NFS mount, no mount directory and no restore record left anywhere.
no_leftovers() {
	check "$1: no NFS mount is left" test -z "$(nfs_mounts)"
	check "$1: no mount directory is left under the clients' mount roots" \
		test -z "$(entries /run/iofleet-agent-*/mnt)"
	check "$1: no restore record is left on any agent" \
		test -z "$(entries /var/lib/iofleet-agent*/restore)"
}
