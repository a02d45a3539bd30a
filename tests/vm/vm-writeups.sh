#!/usr/bin/env bash
# Write-ups 1, 3 and 5 as their kernel plans, scaled down, on a fleet in a guest started by systemd
# from the installed packages (tests/vm/guest/writeups.sh), with iofleet report over each.
# ctest sets IOFLEET_BIN; packages from the vm/debs test. Exit: 0 pass, 1 fail, 77 skip.
set -uo pipefail
. "$(dirname "$0")/vm.sh"
vm_require
: "${IOFLEET_BIN:?IOFLEET_BIN must name the build directory}"
debs=${IOFLEET_DEBS:-$IOFLEET_BIN/vm/debs}
ls "$debs"/iofleet-agent_*.deb >/dev/null 2>&1 || { echo "FAIL: no packages in $debs" >&2; exit 1; }
vm_prepare "$IOFLEET_BIN/vm/cache" || exit 1
out=$IOFLEET_BIN/vm/writeups
rm -rf "$out"
mkdir -p "$out"
# knfsd exports real file systems: /srv and /nfs live on this disk.
export VM_DISK=$out/disk.img
vm_disk "$VM_DISK" 2G || exit 1
VM_SYSTEMD=1 VM_TIMEOUT=${VM_TIMEOUT:-1500} vm_boot "$out" "$VM_SRC/tests/vm/guest/writeups.sh" DEBS="$debs"
rc=$?
rm -f "$VM_DISK"
cat "$out/log"
exit $((rc == 0 ? 0 : 1))
