#!/usr/bin/env bash
# Write-ups 1, 3 and 5 as their kernel plans, scaled down, on a fleet in a guest started by systemd
# from the installed packages (tests/vm/guest/writeups.sh), with iofleet report over each.
# ctest sets IOFLEET_BIN; packages from the vm/debs test. Exit: 0 pass, 1 fail, 77 skip.
set -uo pipefail
. "$(dirname "$0")/vm.sh"
vm_test writeups
VM_TIMEOUT=${VM_TIMEOUT:-1500} vm_boot "$VM_OUT" "$VM_SRC/tests/vm/guest/writeups.sh" DEBS="$VM_DEBS"
rc=$?
rm -f "$VM_DISK"
cat "$VM_OUT/log"
exit $((rc == 0 ? 0 : 1))
