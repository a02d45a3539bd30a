# The fleet guest's first boot (systemd as PID 1, kernel nfsd, kernel NFS client). Part
# kernel-fleet: the packages installed and upgraded, then a fleet — coordinator and storage
# agent on this host, clients c1 and c2 in network namespaces, all started by systemd from the
# installed packages — through the kernel backend end to end, real mounts, a cancel, kill -9 and
# a watchdog kill of the storage agent. Then, on the same fleet, parts teardown-order
# (teardown-order.sh) and writeups (writeups.sh); back in kernel-fleet, the unit tests that
# need a kernel, and finally a hard reset in the middle of a step (kernel-fleet-after-reset.sh
# goes on from there). One boot, one install for all of them: each costs minutes under TCG.
# Environment (from the host): DEBS, IOFLEET_BIN (for the unit tests run here).
. "$VM_SRC/tests/vm/guest/lib.sh"
part kernel-fleet
P=/tmp/plans
mkdir -p $P /srv/e2e /srv/v3only /srv/plain /nfs

# What a step may change, as this host has it before any package or plan.
systemctl start nfs-server
NFS_BEFORE=$(nfs_state)
echo "$NFS_BEFORE" >"$OUT/nfs-state.before"
note "nfs state before: $(echo "$NFS_BEFORE" | tr '\n' ' ')"

# --- the packages -----------------------------------------------------------------------
note "install"
t0=$(date +%s)
fleet_net c1 c2
fleet_units "$DEBS"
# The watchdog test's setting, as an admin's drop-in, in place before the install's reload.
mkdir -p /etc/systemd/system/iofleet-agent.service.d
printf '[Service]\nWatchdogSec=15s\n' >/etc/systemd/system/iofleet-agent.service.d/watchdog.conf
if install_debs "$DEBS" >"$OUT/dpkg-install.log" 2>&1; then
	ok "dpkg -i iofleet iofleet-coordinator iofleet-agent ($(($(date +%s) - t0))s)"
else
	fail "dpkg -i of the three packages"
	cat "$OUT/dpkg-install.log"
fi
check "system user iofleet (no login, system uid)" \
	bash -c '[ "$(getent passwd iofleet | cut -d: -f7)" = /usr/sbin/nologin ] && [ "$(id -u iofleet)" -lt 1000 ]'
check "group iofleet" getent group iofleet
for k in coordinator agent; do
	check "/etc/iofleet/$k.key made at install, root 0600" test "$(stat -c '%a %U' /etc/iofleet/$k.key)" = "600 root"
	check "/etc/iofleet/$k.pub 0644" test "$(stat -c '%a' /etc/iofleet/$k.pub)" = 644
done
for u in iofleet-coordinator iofleet-agent; do
	check "$u is enabled by the package" test "$(systemctl is-enabled $u)" = enabled
done
check "the coordinator was started by the package" systemctl is-active -q iofleet-coordinator
check "/run/iofleet: iofleet:iofleet 0750" test "$(stat -c '%U:%G %a' /run/iofleet)" = "iofleet:iofleet 750"
check "the control socket: iofleet:iofleet 0660" test "$(stat -c '%U:%G %a' /run/iofleet/control.sock)" = "iofleet:iofleet 660"
check "/var/lib/iofleet-coordinator: owned by iofleet" test "$(stat -c '%U:%G' /var/lib/iofleet-coordinator)" = "iofleet:iofleet"
dpkg-query -W -f='${Conffiles}\n' iofleet iofleet-agent iofleet-coordinator >"$OUT/conffiles.txt"
for c in cli agent coordinator; do
	check "/etc/iofleet/$c.conf is a conffile" grep -q "/etc/iofleet/$c.conf" "$OUT/conffiles.txt"
done
# An admin in the group iofleet uses the CLI without root; another user is told why not.
useradd -m -G iofleet alice 2>/dev/null
useradd -m bob 2>/dev/null
check "a member of group iofleet lists agents through the control socket" runuser -u alice -- iofleet agents
out=$(runuser -u bob -- iofleet agents 2>&1)
check "a user outside the group is refused ($out)" test $? -ne 0
# Type=notify: start returns once the daemon said READY=1, so its socket is there at once.
systemctl restart iofleet-coordinator
check "Type=notify: the control socket exists as soon as 'systemctl restart' returns" test -S /run/iofleet/control.sock
check "the coordinator reports its status to systemd" test -n "$(systemctl show -P StatusText iofleet-coordinator)"

# The sandboxes as installed (recorded in docs/architecture.md).
for u in iofleet-coordinator iofleet-agent; do
	systemd-analyze security --no-pager $u >"$OUT/security-$u.txt" 2>&1
	score=$(sed -n "s/.*Overall exposure level for $u.service: \([0-9.]*\).*/\1/p" "$OUT/security-$u.txt")
	echo "systemd-analyze security $u: ${score:-?}"
done
check "coordinator exposure <= 2.0" awk -v s="$(sed -n 's/.*iofleet-coordinator.service: \([0-9.]*\).*/\1/p' "$OUT/security-iofleet-coordinator.txt")" 'BEGIN { exit !(s != "" && s <= 2.0) }'
check "agent exposure <= 4.8 (the floor without a private mount namespace, docs/architecture.md)" awk -v s="$(sed -n 's/.*iofleet-agent.service: \([0-9.]*\).*/\1/p' "$OUT/security-iofleet-agent.txt")" 'BEGIN { exit !(s != "" && s <= 4.8) }'

# --- upgrade: the same version rebuilt, installed over itself ------------------------------
note "upgrade"
echo "# the admin's change" >>/etc/iofleet/cli.conf
sums=$(sha256sum /etc/iofleet/*.key /etc/iofleet/*.pub /etc/iofleet/cli.conf)
pid=$(systemctl show -P MainPID iofleet-coordinator)
if install_debs "$DEBS" >"$OUT/dpkg-upgrade.log" 2>&1; then ok "dpkg -i over the installed version"; else fail "dpkg -i over the installed version"; cat "$OUT/dpkg-upgrade.log"; fi
check "keys and the admin's changed conffile are untouched by the upgrade" test "$(sha256sum /etc/iofleet/*.key /etc/iofleet/*.pub /etc/iofleet/cli.conf)" = "$sums"
check "the upgrade restarted the coordinator" test "$(systemctl show -P MainPID iofleet-coordinator)" != "$pid"
check "the coordinator runs after the upgrade" systemctl is-active -q iofleet-coordinator

# --- the fleet ------------------------------------------------------------------------------
note "fleet"
fleet_configure c1 c2 || { vm_done; }
check "the storage agent runs as root under systemd from /usr/sbin" test "$(systemctl show -P ExecMainPID iofleet-agent | xargs -I{} readlink /proc/{}/exe)" = /usr/sbin/iofleet-agent
check "the client agents run in their network namespaces" \
	test "$(readlink /proc/"$(systemctl show -P MainPID iofleet-client@c1)"/ns/net)" = "$(ip netns exec c1 readlink /proc/self/ns/net)"
# nfsd's block size follows the guest's RAM (256 KiB here); 1 MiB transfers need it raised
# while nfsd is down, as an admin of a real server would in its nfs-server drop-in.
systemctl stop nfs-server
echo 1048576 >/proc/fs/nfsd/max_block_size
systemctl start nfs-server

# --- kernel backend end to end: threads=160, rw,no_root_squash sync then async ---------------
note "e2e"
cat >$P/e2e.plan <<'EOF'
[plan]
name = e2e
interval = 1s

[server]
backend = kernel
path = /srv/e2e
access = rw
root_squash = no_root_squash
threads = 160

[client]
count = 2
mount = yes
vers = 4.2
nconnect = 16
rsize = 1048576
wsize = 1048576

[w]
rw = write
bs = 1m
size = 8m
ioengine = psync
time_based
runtime = 4

[sweep]
server.sync = true, false
EOF
# What the kernel and exportfs say while each point runs, to hold against the results.
( while :; do
	if [ -e /etc/exports.d/iofleet.exports ]; then
		echo "threads=$(cat /proc/fs/nfsd/threads) export=$(exportfs -v | tr '\n\t' '  ' | tr -s ' ' | grep -o '/srv/e2e [^)]*)')"
	fi
	sleep 0.5
done ) >"$OUT/e2e.samples" 2>/dev/null &
sampler=$!
# What exportfs itself says of the file the agent rendered, once, while the first point runs.
( wait_for 300 test -e /etc/exports.d/iofleet.exports &&
	{ cat /etc/exports.d/iofleet.exports; echo "--- exportfs -ra:"; exportfs -ra 2>&1; } ) >"$OUT/e2e.exports" 2>&1 &
if run_plan e2e $P/e2e.plan; then ok "e2e: iofleet run exits 0"; else fail "e2e: iofleet run failed"; tail -n 20 "$OUT/e2e.log"; fi
kill $sampler 2>/dev/null
wait $sampler 2>/dev/null
for i in 0 1; do
	J=$(point_json "$RESULT_DIR" $i)
	cp "$J" "$OUT/e2e-point$i.json" 2>/dev/null
	want=$([ $i = 0 ] && echo sync || echo async)
	jqcheck "e2e point $i: result ok" "$J" '.iofleet.status == "ok"'
	jqcheck "e2e point $i: effective threads 160 (/proc/fs/nfsd/threads read back)" "$J" \
		'[.iofleet.agents[] | select(.name == "storage") | .effective.threads == "160"] | all and length == 1'
	jqcheck "e2e point $i: the export as exportfs -v lists it: rw, $want, no_root_squash" "$J" \
		"[.iofleet.agents[] | select(.name == \"storage\") | .effective.export | test(\"^/srv/e2e \") and test(\"[(,]rw[,)]\") and test(\"[(,]$want[,)]\") and test(\"[(,]no_root_squash[,)]\")] | all and length == 1"
	jqcheck "e2e point $i: nfs-server restarted over D-Bus for threads=160" "$J" \
		'[.iofleet.agents[] | select(.name == "storage") | .effective.service == "restarted nfs-server.service"] | all and length == 1'
	exp=$(jq -r '.iofleet.agents[] | select(.name == "storage") | .effective.export' "$J" | tr -s ' \t' '  ')
	check "e2e point $i: exportfs -v during the point showed the export the result records" \
		grep -qF "threads=160 export=$exp" "$OUT/e2e.samples"
	for c in c1 c2; do
		jqcheck "e2e point $i: $c mounted vers=4.2, nconnect=16, rsize=wsize=1048576 (mountinfo)" "$J" \
			"[.iofleet.agents[] | select(.name == \"$c\") | .effective.mount_options | test(\"vers=4.2\") and test(\"nconnect=16\") and test(\"rsize=1048576\") and test(\"wsize=1048576\")] | all and length == 1"
	done
	jqcheck "e2e point $i: both clients wrote through their mounts" "$J" \
		'[.client_stats[:-1][] | .write.io_bytes > 0] | (length == 2 and all)'
done
wait
check "e2e: the rendered export names no_subtree_check (issue 14, finding 4)" grep -q '^/srv/e2e .*no_subtree_check' "$OUT/e2e.exports"
check "e2e: exportfs -ra has no warning about the agent's export (finding 4)" \
	bash -c "[ -z \"\$(sed -n '/^--- exportfs -ra:/,\$p' $OUT/e2e.exports | sed 1d)\" ]"
check "e2e: nfs.conf, exports.d and nfs-server as they were (exports.d made for the step is gone: finding 4)" \
	test "$(nfs_state)" = "$NFS_BEFORE"
no_leftovers e2e
journalctl -u iofleet-agent -o json --no-pager >"$OUT/journal-agent.json"
for i in 0 1; do
	run_id=$(jq -r '.iofleet.run_id' "$(point_json "$RESULT_DIR" $i)")
	check "journal: the storage agent's lines about run $run_id carry RUN_ID=$run_id and AGENT_ID" \
		jq -se --arg r "$run_id" '[.[] | select((.MESSAGE | type) == "string" and (.MESSAGE | contains("run " + $r + ":")))] | length > 0 and all(.RUN_ID == $r and .AGENT_ID != null)' "$OUT/journal-agent.json"
done
check "journal: the agent's start line carries AGENT_ID and no RUN_ID" \
	jq -se '[.[] | select((.MESSAGE | type) == "string" and (.MESSAGE | test("^agent .* ready")))] | length > 0 and all(.RUN_ID == null and .AGENT_ID != null)' "$OUT/journal-agent.json"

# --- what the kernel did, not what was asked ---------------------------------------------------
note "mounts"
cat >$P/mounts.plan <<'EOF'
[plan]
name = mounts

[server]
backend = kernel
path = /srv/plain
access = rw
root_squash = no_root_squash

[client]
count = 2
mount = yes

[w]
rw = write
bs = 64k
size = 4m
ioengine = psync

[sweep]
client.options = vers=3,nconnect=16,rsize=1048576,wsize=1048576 | vers=4.2,nconnect=16,rsize=1048576,wsize=1048576 | soft,intr,rsize=8192,wsize=8192
EOF
if run_plan mounts $P/mounts.plan; then ok "mounts: iofleet run exits 0"; else fail "mounts: iofleet run failed"; tail -n 20 "$OUT/mounts.log"; fi
opts() { jq -r ".iofleet.agents[] | select(.name == \"c1\") | .effective.mount_options" "$(point_json "$RESULT_DIR" "$1")"; }
o=$(opts 0)
check "mounts: vers=3 nconnect=16 rsize/wsize 1M as mountinfo has them ($o)" \
	bash -c '[[ $0 == *vers=3,* && $0 == *nconnect=16* && $0 == *rsize=1048576* && $0 == *wsize=1048576* ]]' "$o"
o=$(opts 1)
check "mounts: vers=4.2 nconnect=16 rsize/wsize 1M ($o)" \
	bash -c '[[ $0 == *vers=4.2* && $0 == *nconnect=16* && $0 == *rsize=1048576* ]]' "$o"
o=$(opts 2)
check "mounts: write-up 5's soft,intr,rsize=8192,wsize=8192: soft and 8k kept, intr dropped by the kernel ($o)" \
	bash -c '[[ $0 == *soft* && $0 == *rsize=8192* && $0 == *wsize=8192* && $0 != *intr* ]]' "$o"
no_leftovers mounts
check "mounts: nfs.conf, exports.d and nfs-server as they were" test "$(nfs_state)" = "$NFS_BEFORE"

# nfsd limited to 256 KiB blocks: a client asking 1 MiB gets what the server grants.
systemctl stop nfs-server
echo 262144 >/proc/fs/nfsd/max_block_size
systemctl start nfs-server
cat >$P/lowered.plan <<'EOF'
[plan]
name = lowered

[server]
backend = kernel
path = /srv/plain
root_squash = no_root_squash

[client]
count = 1
mount = yes
vers = 4.2
rsize = 1048576
wsize = 1048576

[w]
rw = read
bs = 256k
size = 2m
ioengine = psync
EOF
if run_plan lowered $P/lowered.plan; then ok "lowered: iofleet run exits 0"; else fail "lowered: iofleet run failed"; tail -n 20 "$OUT/lowered.log"; fi
o=$(jq -r '[.iofleet.agents[] | select(.role == "client")][0].effective.mount_options' "$RESULT_DIR/result.json")
check "lowered: rsize and wsize 1M asked, the kernel's 262144 reported ($o)" \
	bash -c '[[ $0 == *rsize=262144* && $0 == *wsize=262144* ]]' "$o"
systemctl stop nfs-server
echo 1048576 >/proc/fs/nfsd/max_block_size
systemctl start nfs-server

# A mount the server refuses: NFSv4.2 against a server that only speaks v3.
cat >$P/refused.plan <<'EOF'
[plan]
name = refused

[server]
backend = kernel
path = /srv/v3only
versions = 3

[client]
count = 1
mount = yes
vers = 4.2
options = retry=0

[w]
rw = write
size = 1m
EOF
run_plan refused $P/refused.plan
rc=$?
check "refused: iofleet run reports the failure (exit $rc)" test "$rc" -ne 0
jqcheck "refused: the result is not ok and carries mount.nfs's own refusal" "$RESULT_DIR/result.json" \
	'.iofleet.status != "ok" and (.iofleet.error | test("mount.nfs: Protocol not supported"))'
jqcheck "refused: nfsd served the versions asked (3 only)" "$RESULT_DIR/result.json" \
	'[.iofleet.agents[] | select(.name == "storage") | .effective.versions | test("\\+3") and test("-4.2")] | all and length == 1'
no_leftovers refused
check "refused: nfs.conf, exports.d and nfs-server as they were" test "$(nfs_state)" = "$NFS_BEFORE"

# --- finding 3: no threads or versions, nfs-server stopped: the agent starts it, and stops it after
note "stopped server"
systemctl stop nfs-server
STOPPED=$(nfs_state)
cat >$P/stopped.plan <<'EOF'
[plan]
name = stopped-server

[server]
backend = kernel
path = /srv/plain
root_squash = no_root_squash

[client]
count = 2
mount = yes
vers = 3
options = soft,timeo=20,retrans=2,retry=0

[w]
rw = write
bs = 64k
size = 2m
ioengine = psync
EOF
if PLAN_LIMIT=240 run_plan stopped $P/stopped.plan; then ok "stopped: iofleet run exits 0"; else fail "stopped: iofleet run failed (issue 14, finding 3)"; tail -n 20 "$OUT/stopped.log"; fi
jqcheck "stopped: the server says it started nfs-server, which was stopped" "$RESULT_DIR/result.json" \
	'[.iofleet.agents[] | select(.name == "storage") | .effective.service | test("started nfs-server")] | all and length == 1'
jqcheck "stopped: both clients wrote through their mounts" "$RESULT_DIR/result.json" \
	'[.client_stats[:-1][] | .write.io_bytes > 0] | (length == 2 and all)'
check "stopped: nfs-server stopped again, nfs.conf and exports.d as they were" \
	wait_for 60 bash -c '[ "$(nfs_state)" = "$0" ]' "$STOPPED"
no_leftovers stopped
systemctl start nfs-server

# --- cancel, kill -9, watchdog in the middle of a step -------------------------------------------
cat >$P/long.plan <<'EOF'
[plan]
name = long

[server]
backend = kernel
path = /srv/e2e
root_squash = no_root_squash
threads = 24

[client]
count = 2
mount = yes
vers = 4.2
options = soft,timeo=20,retrans=2

[w]
rw = write
bs = 64k
size = 4m
ioengine = psync
time_based
runtime = 300
EOF
# long_run NAME: starts the long plan in the background (LONG_PID) and waits until it runs.
long_run() {
	iofleet run "${2:-$P/long.plan}" >"$OUT/$1.log" 2>&1 &
	LONG_PID=$!
	if wait_for 120 step_running; then ok "$1: the step runs (server configured, both clients mounted)"; else fail "$1: the step never ran"; tail -n 20 "$OUT/$1.log"; fi
}
# long_end NAME: cancels the run like ^C and waits for iofleet run to leave.
long_end() {
	kill -INT $LONG_PID 2>/dev/null
	if wait_for 120 bash -c "! kill -0 $LONG_PID 2>/dev/null"; then ok "$1: iofleet run ended after the cancel"; else fail "$1: iofleet run still running 120s after the cancel"; kill -9 $LONG_PID; fi
	wait $LONG_PID 2>/dev/null
}
restored() { [ "$(nfs_state)" = "$NFS_BEFORE" ] && [ -z "$(nfs_mounts)" ]; }

note "cancel"
long_run cancel
long_end cancel
check "cancel: nfs.conf, exports.d and nfs-server as they were" wait_for 60 restored
no_leftovers cancel

note "kill -9"
long_run kill9
pid=$(systemctl show -P MainPID iofleet-agent)
n=$(systemctl show -P NRestarts iofleet-agent)
kill -9 "$pid"
check "kill9: systemd restarted the killed agent (Restart=on-failure)" \
	wait_for 60 bash -c "[ \$(systemctl show -P NRestarts iofleet-agent) -gt $n ] && systemctl is-active -q iofleet-agent"
check "kill9: the restarted agent put nfs.conf, exports.d and nfs-server back" \
	wait_for 60 bash -c '[ "$(nfs_state)" = "$0" ]' "$NFS_BEFORE"
journalctl -u iofleet-agent --no-pager -n 40 >"$OUT/kill9-journal.txt"
long_end kill9
# The clients' workers were writing when the export went away under them (the restarted agent
# put it back at once): they get out (their agents force the mount 30 s after the stop) and unmount.
check "kill9: host as it was after the run (the clients unmounted from a server put back under them)" \
	wait_for 150 restored
check "kill9: every agent is idle again (the clients' runs ended)" wait_for 60 fleet_idle 3
no_leftovers kill9

# A server that stops answering under hard mounts (its host dead, or cut off): every NFS packet
# of the clients is dropped at their bridge ports (the coordinator's traffic goes on). The run
# is cancelled: the clients' workers sit in their I/O for good, so their agents fail the mount's
# requests (umount -f) and put the host back all the same.
note "dead server"
sed 's/^options = .*/options = hard,timeo=20/' $P/long.plan >$P/dead.plan
long_run dead $P/dead.plan
dropped=0
for c in c1 c2; do
	tc qdisc add dev "v-$c" ingress &&
		tc filter add dev "v-$c" parent ffff: protocol ip u32 match ip dport 2049 0xffff action drop &&
		dropped=$((dropped + 1))
done
if [ "$dropped" -eq 2 ]; then
	long_end dead
	check "dead: the clients unmounted though their server no longer answers" \
		wait_for 180 bash -c '[ -z "$(nfs_mounts)" ]'
	check "dead: every agent is idle again (the clients' runs ended)" wait_for 60 fleet_idle 3
	check "dead: a client agent forced its mount, saying so in its journal" \
		bash -c "journalctl -u 'iofleet-client@*' --no-pager | grep -q 'umount -f'"
else
	skipped "dead: tc cannot drop the clients' NFS traffic here"
	long_end dead
fi
for c in c1 c2; do tc qdisc del dev "v-$c" ingress 2>/dev/null; done
check "dead: no umount left in the kernel once the server answers again" \
	wait_for 90 bash -c '! pgrep -x umount.nfs4 && ! pgrep -x umount.nfs && ! pgrep -x umount'
check "dead: nfs.conf, exports.d and nfs-server as they were" wait_for 60 bash -c '[ "$(nfs_state)" = "$0" ]' "$NFS_BEFORE"
no_leftovers dead

note "watchdog"
check "watchdog: the agent runs with WatchdogSec=15s (the admin's drop-in)" \
	test "$(systemctl show -P WatchdogUSec iofleet-agent)" = 15s
long_run watchdog
pid=$(systemctl show -P MainPID iofleet-agent)
n=$(systemctl show -P NRestarts iofleet-agent)
kill -STOP "$pid"
check "watchdog: systemd killed the hung agent and started a new one" \
	wait_for 120 bash -c "[ \$(systemctl show -P NRestarts iofleet-agent) -gt $n ] && systemctl is-active -q iofleet-agent"
check "watchdog: the journal names the watchdog" \
	bash -c "journalctl -u iofleet-agent --no-pager | grep -q 'Watchdog timeout'"
check "watchdog: the new agent's restore record put the host back" \
	wait_for 60 bash -c '[ "$(nfs_state)" = "$0" ]' "$NFS_BEFORE"
long_end watchdog
wait_for 60 fleet_idle 3
check "watchdog: host as it was after the run" wait_for 60 restored
no_leftovers watchdog

# --- the other tests on this fleet ---------------------------------------------------------------
kf_before=$NFS_BEFORE
. "$VM_SRC/tests/vm/guest/teardown-order.sh"
. "$VM_SRC/tests/vm/guest/writeups.sh"
part kernel-fleet
NFS_BEFORE=$kf_before

# --- the unit tests that need systemd as PID 1, kernel nfsd or the kernel NFS client ----------------
note "unit tests"
if [ -x "${IOFLEET_BIN:-}/tests/test-nfs-kernel" ]; then
	mkdir -p /srv/unit-export /srv/unit-tmp
	TMPDIR=/srv/unit-tmp IOFLEET_TEST_NFS_EXPORT=$SERVER_ADDR:/srv/unit-export timeout -k 10 300 "$IOFLEET_BIN/tests/test-nfs-kernel" >"$OUT/test-nfs-kernel.log" 2>&1
	rc=$?
	check "unit test test-nfs-kernel passes with systemd and nfsd (exit $rc)" test $rc -eq 0
	check "test-nfs-kernel: the sd-bus restart test ran, not skipped" bash -c "! grep -q 'skipped: nfs-server.service restart\|skipped: no kernel nfsd' $OUT/test-nfs-kernel.log"
	mkdir -p /etc/exports.d
	printf '%s *(rw,no_root_squash,no_subtree_check)\n' /srv/unit-export >/etc/exports.d/unit-test.exports
	exportfs -ra
	IOFLEET_TEST_NFS_EXPORT=$SERVER_ADDR:/srv/unit-export timeout -k 10 300 "$IOFLEET_BIN/tests/test-mount" >"$OUT/test-mount.log" 2>&1
	rc=$?
	rm -f /etc/exports.d/unit-test.exports
	exportfs -ra
	check "unit test test-mount passes with the kernel NFS client (exit $rc)" test $rc -eq 0
	check "test-mount: the real NFS mount test ran, not skipped" bash -c "! grep -q 'skipped: this kernel has no NFS client\|skipped: no NFS server' $OUT/test-mount.log"
	[ "$NFS_BEFORE" = "$(nfs_state)" ] || rmdir /etc/exports.d 2>/dev/null
else
	skipped "unit tests: IOFLEET_BIN has no tests/test-nfs-kernel (build the tests first)"
fi

# --- a hard reset in the middle of a step: kernel-fleet-after-reset.sh checks the next boot ------
note "reset"
long_run reset
# The next boot checks that the intervals from before the reset are kept: the reset waits until
# the run has shown two (the first is then in the coordinator's journal, synced before the
# second came). Mounted is not yet running: the clients may still be laying out their files.
check "reset: the run shows intervals before the reset" wait_for 120 grep -q '^\[ *2/' "$OUT/reset.log"
cp /etc/nfs.conf "$OUT/nfs.conf.during-step"
nfs_state >"$OUT/nfs-state.during-step"
check "reset: the step changed nfs.conf (threads=24)" grep -q '^threads=24' /etc/nfs.conf
echo "$passes passed, $failures failed, $skips skipped (before the reset)"
echo "$failures" >"$OUT/failures.before-reset"
sync -f /etc/nfs.conf /var/lib/iofleet-agent
vm_reset
