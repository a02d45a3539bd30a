#!/bin/bash
# Runs the guest's scenario (VM_SCENARIO from /vm/out/boot.env) with its output in /vm/out/log,
# writes its exit status to /vm/out/status and powers the guest off. PID 1 without systemd;
# a oneshot unit (iofleet-vm-run.service) under systemd.
. /vm/out/boot.env
exec >>/vm/out/log 2>&1
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root
cd /

if [ "$VM_SYSTEMD" != 1 ]; then
	# PID 1 without systemd: what the scenario expects to find.
	mkdir -p /dev/pts /dev/shm
	mount -t devpts devpts /dev/pts 2>/dev/null
	mount -t tmpfs tmpfs /dev/shm 2>/dev/null
	mount -t cgroup2 cgroup2 /sys/fs/cgroup 2>/dev/null
	ip link set lo up
fi
echo "vm: $(uname -r), $(nproc) cpus, up $(cut -d' ' -f1 /proc/uptime)s, systemd=$VM_SYSTEMD: $VM_SCENARIO"
bash "$VM_SCENARIO"
rc=$?
echo "vm: scenario exit $rc at $(cut -d' ' -f1 /proc/uptime)s"
[ "$(cat /vm/out/status 2>/dev/null)" = reboot ] || echo "$rc" >/vm/out/status
sync
echo o >/proc/sysrq-trigger
sleep 60
