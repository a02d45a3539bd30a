#!/usr/bin/env bash
# deploy/ansible's site.yml run twice with ansible-playbook in a guest with systemd as PID 1
# (tests/vm/guest/ansible.sh): a coordinator and two client agents in network namespaces, one
# enrolled with a token and one by copied keys, packages from an apt repository and from a
# path. ctest sets IOFLEET_BIN; packages from the vm/debs test. Exit: 0 pass, 1 fail, 77 skip.
set -uo pipefail
. "$(dirname "$0")/vm.sh"
command -v ansible-playbook >/dev/null || vm_skip "ansible-playbook is not installed (scripts/install-deps.sh installs ansible)"
/usr/bin/python3 -c 'import apt' 2>/dev/null || vm_skip "python3-apt is not installed (scripts/install-deps.sh installs it)"
vm_test ansible
t0=$(date +%s)
VM_TIMEOUT=${VM_TIMEOUT:-2100} vm_boot "$VM_OUT" "$VM_SRC/tests/vm/guest/ansible.sh" DEBS="$VM_DEBS"
rc=$?
rm -f "$VM_DISK"
cat "$VM_OUT/log"
echo "vm/ansible: $(($(date +%s) - t0))s from qemu start to power-off"
exit $((rc == 0 ? 0 : 1))
