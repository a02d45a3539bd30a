#!/usr/bin/env bash
# Issue 14 findings 1 and 2 in a guest (tests/vm/guest/teardown-order.sh): clients unmount before
# the server is put back, a client's unmount never blocks its agent, the clients' put-back is in
# the result. ctest sets IOFLEET_BIN; packages from the vm/debs test.
# Exit: 0 pass, 1 fail, 77 skip.
set -uo pipefail
. "$(dirname "$0")/vm.sh"
vm_test teardown-order
VM_TIMEOUT=${VM_TIMEOUT:-900} vm_boot "$VM_OUT" "$VM_SRC/tests/vm/guest/teardown-order.sh" DEBS="$VM_DEBS"
rc=$?
rm -f "$VM_DISK"
cat "$VM_OUT/log"
exit $((rc == 0 ? 0 : 1))
