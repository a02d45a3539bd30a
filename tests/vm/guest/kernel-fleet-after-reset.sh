# Guest scenario, the boot after kernel-fleet.sh reset the guest in the middle of a step: the
# storage agent, enabled by its package, started at boot and put the NFS server back from its
# restore record; the client agents do the same once their namespaces exist again. Then the
# packages are purged: keys, conffiles and state go, the results of past runs stay.
. "$VM_SRC/tests/vm/guest/lib.sh"
part kernel-fleet
NFS_BEFORE=$(cat "$OUT/nfs-state.before")

note "after the reset"
check "the storage agent was started at boot (enabled by the package)" systemctl is-active -q iofleet-agent
check "its restore record put nfs.conf, exports.d and nfs-server back" \
	wait_for 90 bash -c '[ "$(nfs_state)" = "$0" ]' "$NFS_BEFORE"
if [ "$(nfs_state)" != "$NFS_BEFORE" ]; then
	diff <(echo "$NFS_BEFORE") <(nfs_state)
	journalctl -b -u iofleet-agent --no-pager | tail -n 20
fi
check "the journal of this boot says the agent put the host back" \
	bash -c "journalctl -b -u iofleet-agent --no-pager | grep -q 'host configuration put back'"
# The client hosts' namespaces are gone with the reboot; made again, their agents come back
# and find their records: the mounts died with the reboot, the directories are removed. The
# coordinator took the interrupted run up from its journal; each agent comes back into it with a
# record that may be older than what it had delivered (its files are not synced) and says how
# its part ended, numbered after all the coordinator has: the run ends at once, and every agent
# is idle again.
fleet_net c1 c2
systemctl restart iofleet-client@c1 iofleet-client@c2
check "the client agents came back and the run the reset interrupted ended" wait_for 60 fleet_idle 3
reset_run=$(ls -td /var/lib/iofleet-coordinator/runs/*/ | head -n1)
cp "$reset_run/result.json" "$OUT/reset-result.json" 2>/dev/null
jqcheck "the interrupted run is an error, never ok: no agent finished its part" "$OUT/reset-result.json" \
	'.iofleet.status == "error" and (.iofleet.error | test("no agent finished"))'
jqcheck "each of its agents failed, saying its host restarted" "$OUT/reset-result.json" \
	'[.iofleet.agents[] | .status == "failed" and (.error | test("host restarted"))] | (length == 3 and all)'
jqcheck "the intervals from before the reset are kept, each holding both clients or naming who is missing" \
	"$OUT/reset-result.json" '(.iofleet.intervals | length) > 0 and ([.iofleet.intervals[] | .reported + (.missing // [] | length) == 2] | all)'
no_leftovers "after the reset"

note "purge"
ls /var/lib/iofleet-coordinator/runs >"$OUT/runs-before-purge.txt"
check "the coordinator kept results of the runs before the reset" test -s "$OUT/runs-before-purge.txt"
systemctl disable --now iofleet-client@c1 iofleet-client@c2 2>/dev/null
if DEBIAN_FRONTEND=noninteractive dpkg --purge iofleet-agent iofleet-coordinator iofleet >"$OUT/dpkg-purge.log" 2>&1; then
	ok "dpkg --purge of the three packages"
else
	fail "dpkg --purge"
	cat "$OUT/dpkg-purge.log"
fi
check "purge: the daemons are stopped" bash -c '! pgrep -x iofleet-agent && ! pgrep -x iofleet-coordin'
check "purge: no unit file and no enablement left" \
	bash -c '! ls /lib/systemd/system/iofleet-agent.service /lib/systemd/system/iofleet-coordinator.service /etc/systemd/system/multi-user.target.wants/iofleet-* 2>/dev/null'
check "purge: the package's keys and conffiles are gone" \
	bash -c '! ls /etc/iofleet/agent.key /etc/iofleet/agent.pub /etc/iofleet/coordinator.key /etc/iofleet/coordinator.pub /etc/iofleet/agent.conf /etc/iofleet/coordinator.conf /etc/iofleet/cli.conf /etc/iofleet/agents.d 2>/dev/null'
check "purge: the agent's state is gone" test ! -e /var/lib/iofleet-agent
check "purge: the coordinator's state is gone but for the results" \
	test "$(ls -A /var/lib/iofleet-coordinator)" = runs
check "purge: the results of past runs are kept" \
	test "$(ls /var/lib/iofleet-coordinator/runs)" = "$(cat "$OUT/runs-before-purge.txt")"
check "purge: said where the results are" grep -q 'kept the results' "$OUT/dpkg-purge.log"
check "purge: the system user stays (it owns those results)" getent passwd iofleet
check "purge: nfs.conf, exports.d and nfs-server as before the packages" test "$(nfs_state)" = "$NFS_BEFORE"
# The admin's own files in /etc/iofleet (the clients' keys and configs made by this test)
# are not the packages' to remove.
ls -A /etc/iofleet >"$OUT/etc-iofleet-after-purge.txt" 2>/dev/null

vm_done
