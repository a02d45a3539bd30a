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
# The scenario ends well before the host's bound on the whole boot (VM_TIMEOUT), so that a hung
# check costs its scenario, not the log, the journal and the status the host reads.
up=$(cut -d' ' -f1 /proc/uptime)
limit=$((${VM_TIMEOUT:-600} - ${up%.*} - 40))
[ "$limit" -ge 60 ] || limit=60
timeout -k 10 "$limit" bash "$VM_SCENARIO"
rc=$?
if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
	echo "FAIL: vm: the scenario did not finish within ${limit}s (the boot's bound less the boot); processes in D state:"
	ps -eo pid,stat,wchan:32,args | awk 'NR == 1 || $2 ~ /^D/'
	timeout 30 journalctl -b -o short-precise --no-pager -u 'iofleet-*' -u nfs-server >/vm/out/journal-timeout.txt 2>&1
	rc=124
fi
echo "vm: scenario exit $rc at $(cut -d' ' -f1 /proc/uptime)s"
[ "$(cat /vm/out/status 2>/dev/null)" = reboot ] || echo "$rc" >/vm/out/status
# Bounded: a sync waits for every mount's dirty data, an NFS mount's too.
timeout 20 sync
echo o >/proc/sysrq-trigger
sleep 60
