#!/usr/bin/env bash
# Installs and builds iofleet, then runs its main job on this one host: a coordinator and three
# agents, a synchronized 10 s sequential read with a live line per second and per agent, fio's
# style of summary, and where the JSON went. Everything it starts is stopped at the end.
#
# scripts/demo.sh --kernel: the real thing in a QEMU guest running Debian's kernel, from the
# Debian packages built from this tree: a storage host with kernel nfsd and two client hosts
# (network namespaces) mounting it with the kernel NFS client, all started by systemd, run
# write-up 1's plan scaled down and show the cluster's live bandwidth (a few minutes under TCG).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh

if [ "${1:-}" = --kernel ]; then
	. tests/vm/vm.sh
	vm_require
	tests/vm/build-debs.sh build/vm/debs >/dev/null
	vm_prepare build/vm/cache
	out=$PWD/build/vm/demo
	rm -rf "$out"
	mkdir -p "$out"
	export VM_SYSTEMD=1 VM_DISK=$out/disk.img VM_TIMEOUT=1200
	vm_disk "$VM_DISK" 2G
	echo "== booting a guest (Debian's kernel under QEMU, systemd as PID 1; about a minute under TCG)"
	: >"$out/log"
	tail -n +1 -F "$out/log" 2>/dev/null &
	tailer=$!
	rc=0
	vm_boot "$out" tests/vm/guest/demo-kernel.sh DEBS="$PWD/build/vm/debs" || rc=$?
	sleep 1
	kill "$tailer" 2>/dev/null || true
	rm -f "$VM_DISK"
	echo "== the guest is powered off; its run's results: $out/result/ (iofleet report $out/result)"
	exit "$rc"
fi
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)" >/dev/null

data=${IOFLEET_DEMO_DIR:-/tmp/iofleet-demo}
mkdir -p "$data"
echo "== iofleet demo: 3 agents read 256 MiB files each in $data, all starting at one instant"
build/iofleet run --local=3 --results-dir="$PWD/iofleet-runs" \
	--name=seqread --rw=read --bs=1m --size=256m --numjobs=1 \
	--time_based --runtime=10s --directory="$data" --per-host
echo "== the fio-compatible JSON of that run:"
ls -1 "$PWD"/iofleet-runs/*/result.json | tail -n 1
echo "== nothing is left running:"
pgrep -af 'iofleet-(agent|coordinator) ' || echo "(no iofleet daemons)"
