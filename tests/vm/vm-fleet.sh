#!/usr/bin/env bash
# The fleet guest: the installed packages in a QEMU guest with systemd as PID 1, kernel nfsd and
# the kernel NFS client. Its first boot (tests/vm/guest/kernel-fleet.sh) installs the packages
# once and runs the parts kernel-fleet, teardown-order and writeups on one fleet, then resets
# the guest in the middle of a step; the second boot (kernel-fleet-after-reset.sh, same disk)
# goes on from there and purges. ctest's vm/fleet (this script) passes when both boots ended by
# themselves; vm/kernel-fleet, vm/teardown-order and vm/writeups (tests/vm/vm-part.sh) give each
# part's verdict from what it left in IOFLEET_BIN/vm/fleet. ctest sets IOFLEET_BIN; the packages
# come from tests/vm/build-debs.sh (the vm/debs test) in IOFLEET_BIN/vm/debs.
# Exit: 0 both boots ran, 1 a boot hung or died, 77 skip (qemu cannot run here).
set -uo pipefail
. "$(dirname "$0")/vm.sh"
vm_test fleet
out=$VM_OUT
debs=$VM_DEBS

summary() {
	local c
	for c in "$1"/part-*.counts; do
		[ -e "$c" ] || continue
		read -r p f s <"$c"
		c=${c##*/part-}
		echo "part ${c%.counts}: $p passed, $f failed, $s skipped"
	done
}

t0=$(date +%s)
VM_TIMEOUT=${VM_TIMEOUT:-2700} vm_boot "$out/boot1" "$VM_SRC/tests/vm/guest/kernel-fleet.sh" DEBS="$debs" IOFLEET_BIN="$IOFLEET_BIN"
rc=$?
echo "vm: first boot: $(($(date +%s) - t0))s, exit $rc; log $out/boot1/log"
summary "$out/boot1"
if [ "$(cat "$out/boot1/status" 2>/dev/null)" != reboot ]; then
	rm -f "$VM_DISK"
	if [ "$rc" -eq 124 ] || [ "$rc" -eq 125 ]; then
		tail -n 40 "$out/boot1/log"
		echo "FAIL: the first boot did not end by itself ($rc)" >&2
		exit 1
	fi
	echo "the first boot ended before its reset (exit $rc): no second boot; see the parts" >&2
	exit 0
fi
# The state before the packages, as the first boot recorded it, for the second to compare.
mkdir -p "$out/boot2"
cp "$out/boot1/nfs-state.before" "$out/boot2/"
t1=$(date +%s)
VM_TIMEOUT=600 vm_boot "$out/boot2" "$VM_SRC/tests/vm/guest/kernel-fleet-after-reset.sh" DEBS="$debs"
rc=$?
echo "vm: second boot: $(($(date +%s) - t1))s, exit $rc; log $out/boot2/log"
summary "$out/boot2"
rm -f "$VM_DISK"
if [ "$rc" -eq 124 ] || [ "$rc" -eq 125 ]; then
	tail -n 40 "$out/boot2/log"
	echo "FAIL: the second boot did not end by itself ($rc)" >&2
	exit 1
fi
exit 0
