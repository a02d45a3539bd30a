#!/usr/bin/env bash
# The installed packages in a QEMU guest with systemd as PID 1, kernel nfsd and the kernel NFS
# client (tests/vm/guest/kernel-fleet.sh, then kernel-fleet-after-reset.sh on the same disk after
# a hard reset in the middle of a step). ctest sets IOFLEET_BIN; the packages come from
# tests/vm/build-debs.sh (the vm/debs test) in IOFLEET_BIN/vm/debs.
# Exit: 0 pass, 1 fail, 77 skip (qemu cannot run here).
set -uo pipefail
. "$(dirname "$0")/vm.sh"
vm_test kernel-fleet
out=$VM_OUT
debs=$VM_DEBS
export VM_TIMEOUT=${VM_TIMEOUT:-1200}

show() {
	cat "$1/log"
	echo "(guest files in $1)"
}

vm_boot "$out/boot1" "$VM_SRC/tests/vm/guest/kernel-fleet.sh" DEBS="$debs" IOFLEET_BIN="$IOFLEET_BIN"
rc=$?
show "$out/boot1"
if [ "$rc" -ne 0 ] || [ "$(cat "$out/boot1/status" 2>/dev/null)" != reboot ]; then
	echo "FAIL: the first boot ended with $rc before its reset" >&2
	rm -f "$VM_DISK"
	exit 1
fi
# The state before the packages, as the first boot recorded it, for the second to compare.
mkdir -p "$out/boot2"
cp "$out/boot1/nfs-state.before" "$out/boot2/"
VM_TIMEOUT=600 vm_boot "$out/boot2" "$VM_SRC/tests/vm/guest/kernel-fleet-after-reset.sh" DEBS="$debs"
rc=$?
show "$out/boot2"
rm -f "$VM_DISK"
before=$(cat "$out/boot1/failures.before-reset" 2>/dev/null || echo 1)
if [ "$rc" -ne 0 ] || [ "$before" != 0 ]; then
	echo "FAIL: $before check(s) failed before the reset; the boot after it exited $rc" >&2
	exit 1
fi
