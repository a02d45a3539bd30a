# Guest scenario (systemd as PID 1): deploy/ansible's site.yml run for real with
# ansible-playbook, twice, against the hosts this guest makes: the coordinator on the guest
# itself (connection local; its packages from an apt repository, a file: repository here, as
# the guest has no network), and two client agents each in a network namespace of its own
# (iofleet-agent@c1 and @c2; packages copied from a path on the controller), c1 enrolled with
# an enrolment token, c2 by copied keys. The agents must register, a short run must succeed,
# the second run must change nothing, and no token may show in Ansible's output.
# Environment (from the host): DEBS.
. "$VM_SRC/tests/vm/guest/lib.sh"
A=/tmp/ansible
mkdir -p $A /srv/iofleet-repo

# An air-gapped apt: only the iofleet repository, a directory of this guest.
note "apt repository"
rm -f /etc/apt/sources.list /etc/apt/sources.list.d/*
cp "$DEBS"/iofleet*.deb /srv/iofleet-repo/
(cd /srv/iofleet-repo && dpkg-scanpackages --multiversion . >Packages 2>/dev/null)
check "a file: apt repository of the packages" test -s /srv/iofleet-repo/Packages
# man-db's trigger rebuilds its whole index over 9p under TCG (minutes) after any package
# with man pages: off, as on a host with man-db/auto-update false.
rm -f /var/lib/man-db/auto-update
# The packaged default agent is not part of this fleet (its hosts are c1 and c2).
systemctl mask iofleet-agent.service >/dev/null 2>&1
fleet_net c1 c2

cat >$A/inventory.yml <<EOF
all:
  vars:
    ansible_connection: local
    ansible_python_interpreter: /usr/bin/python3
    ansible_become: false
  children:
    iofleet_coordinators:
      hosts:
        coord:
          iofleet_coordinator_address: $SERVER_ADDR
          iofleet_install_from: apt
          iofleet_apt_repository: "deb [trusted=yes] file:/srv/iofleet-repo ./"
          # Kernel-free runs are quick, but everything is slow under TCG.
          iofleet_coordinator_lost_after: 60
    iofleet_agents:
      vars:
        iofleet_install_from: path
        iofleet_deb_dir: $DEBS
        iofleet_agent_roles: [client]
      hosts:
        c1:
          iofleet_agent_instance: c1
          iofleet_agent_enroll: token
          iofleet_agent_labels: {rack: r1}
          iofleet_agent_unit_settings: {NetworkNamespacePath: /run/netns/c1, WatchdogSec: 300s}
        c2:
          iofleet_agent_instance: c2
          iofleet_agent_enroll: copy
          iofleet_agent_labels: {rack: r2}
          iofleet_agent_unit_settings: {NetworkNamespacePath: /run/netns/c2, WatchdogSec: 300s}
EOF
cat >$A/ansible.cfg <<EOF
[defaults]
roles_path = $VM_SRC/deploy/ansible/roles
interpreter_python = /usr/bin/python3
forks = 5
stdout_callback = default
callbacks_enabled = ansible.posix.profile_tasks
[connection]
pipelining = true
EOF
export ANSIBLE_CONFIG=$A/ansible.cfg ANSIBLE_LOCAL_TEMP=$A/tmp ANSIBLE_NOCOLOR=1

# recap LOG HOST: "ok=N changed=N ... failed=N" of HOST in a run's recap.
recap() {
	sed -n "s/^$2 *: \(ok=.*\)/\1/p" "$1" | tr -s ' '
}

note "ansible-playbook, first run"
t0=$(date +%s)
ansible-playbook -i $A/inventory.yml "$VM_SRC/deploy/ansible/site.yml" >"$OUT/ansible-1.log" 2>&1
rc=$?
t1=$(date +%s)
check "the first run succeeds ($((t1 - t0))s)" [ $rc -eq 0 ]
[ $rc -eq 0 ] || tail -n 40 "$OUT/ansible-1.log"
for h in coord c1 c2; do
	echo "first run, $h: $(recap "$OUT/ansible-1.log" $h)"
done
changed=$(sed -n 's/^c1 *: .*changed=\([0-9]*\).*/\1/p' "$OUT/ansible-1.log")
check "the first run changed c1 (changed=${changed:-?})" [ "${changed:-0}" -gt 0 ]

note "the fleet"
if wait_for 120 fleet_idle 2; then
	ok "the coordinator lists c1 and c2 idle"
else
	fail "agents did not register: $(iofleet agents 2>&1)"
	journalctl -u 'iofleet-agent@*' -u iofleet-coordinator --no-pager | tail -n 40
fi
iofleet agents --json >"$OUT/agents.json"
jqcheck "c1 and c2, each with its rack label" "$OUT/agents.json" \
	'[.[] | "\(.name):\(.labels.rack)"] | sort == ["c1:r1", "c2:r2"]'
check "the coordinator came from the apt repository" grep -q "file:/srv/iofleet-repo" /etc/apt/sources.list.d/iofleet.list
check "the agents' packages were copied from the controller" test -s /var/cache/iofleet/iofleet-agent.deb
check "coordinator.conf came from the inventory" grep -qx "lost_after = 60" /etc/iofleet/coordinator.conf
check "agent-c1.conf came from the inventory" grep -qx "coordinator = tcp://$SERVER_ADDR:7460" /etc/iofleet/agent-c1.conf
check "c1 enrolled with a token: its key is on the allow-list with its role" grep -qx "roles = client" /etc/iofleet/agents.d/c1.pub
check "... the agent recorded it" grep -qx "name = c1" /var/lib/iofleet-agent-c1/enrolled
check "... and the token file is gone" test ! -e /etc/iofleet/enroll-c1.token
check "c2's key was copied to the allow-list" cmp -s /etc/iofleet/agent-c2.pub /etc/iofleet/agents.d/c2.pub
check "c1 runs in its network namespace" test "$(ip netns identify "$(systemctl show -P MainPID iofleet-agent@c1)")" = c1
for u in iofleet-coordinator iofleet-agent@c1 iofleet-agent@c2; do
	check "$u is enabled and active" bash -c "systemctl is-enabled -q $u && systemctl is-active -q $u"
done
check "no token in Ansible's output" bash -c "! grep -q 'iofleet1-' '$OUT/ansible-1.log'"

note "a short run"
timeout 300 iofleet run --agents=role=client --name=t --ioengine=psync --rw=write --bs=64k --size=4m \
	--output-format=json --output="$OUT/run.json" >"$OUT/run.log" 2>&1
check "a run on both agents succeeds" [ $? -eq 0 ]
jqcheck "... with both" "$OUT/run.json" '[.client_stats[].agent | select(. != null)] | sort == ["c1", "c2"]'

note "ansible-playbook, second run"
t0=$(date +%s)
ansible-playbook -i $A/inventory.yml "$VM_SRC/deploy/ansible/site.yml" >"$OUT/ansible-2.log" 2>&1
rc=$?
t1=$(date +%s)
check "the second run succeeds ($((t1 - t0))s)" [ $rc -eq 0 ]
for h in coord c1 c2; do
	r=$(recap "$OUT/ansible-2.log" $h)
	echo "second run, $h: $r"
	check "the second run changes nothing on $h" grep -q "changed=0 .*failed=0" <<<"$r"
done
[ $rc -eq 0 ] || tail -n 40 "$OUT/ansible-2.log"
check "the agents are still there" wait_for 60 fleet_idle 2
vm_done
