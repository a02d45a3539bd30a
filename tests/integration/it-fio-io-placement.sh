#!/usr/bin/env bash
# Issue 10, placement against fio 3.33 on the same job file (fio-io/placement.fio): the CPU sets
# of sched_setaffinity(2), the set_mempolicy(2) modes, the nice values and the I/O priorities
# each tool's job threads set, as strace decodes them. Then ioscheduler on a loop device (its
# own, so no other test's disk changes): switched for the run by both, put back afterwards by
# iofleet's restore record (fio leaves it switched). Nodes and CPUs this host lacks are refused
# with what it has.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fio-io/lib.sh"
need_tools
scratch
[ "$(nproc)" -ge 2 ] || { echo "SKIP: needs 2 CPUs"; exit 77; }

files="cpus split mask nodes bind interleave nice prio idle"
for d in fio iof; do
	# shellcheck disable=SC2086
	lay_out "$T/$d" 1m $files
done
run_both "$IOFLEET_SRC/tests/integration/fio-io/placement.fio" \
	sched_setaffinity,set_mempolicy,setpriority,ioprio_set,pread64
check "fio ran the job file" jq -e '[.jobs[] | .error] | all(. == 0)' "$T/fio.json"
check "iofleet ran it" jq -e '.iofleet.status == "ok"' "$T/iof.json"

# The calls of the thread(s) that read file NAME: CALL's decoded arguments from field FIELD on,
# of the last such call.
calls_of() { # TRACE-PREFIX NAME CALL FIELD
	local f
	for f in "$1".*; do
		grep -q "/$2>" "$f" || continue
		grep "$3(" "$f" | tail -n1 | sed -E 's/^[0-9.]+ [a-z_]+\(//; s/\) += .*//' |
			awk -F', ' -v k="$4" '{s = $k; for (i = k + 1; i <= NF; i++) s = s ", " $i; print s}'
	done | sort | tr '\n' ' '
}
same() { # WHAT NAME CALL FIELD
	local a b
	a=$(calls_of "$T/fio.trace" "$2" "$3" "$4")
	b=$(calls_of "$T/iof.trace" "$2" "$3" "$4")
	check "$1: fio '$a', iofleet '$b'" test -n "$a" -a "$a" = "$b"
}
same "cpus_allowed=1: pinned to CPU 1" cpus sched_setaffinity 3
same "cpus_allowed=0-1 split: one CPU per clone" split sched_setaffinity 3
same "cpumask=0x1: CPU 0" mask sched_setaffinity 3
same "numa_cpu_nodes=0: node 0's CPUs" nodes sched_setaffinity 3
# the mode; the mask's length differs (fio passes libnuma's, iofleet its own 65 bits)
mode_same() {
	local a b
	a=$(calls_of "$T/fio.trace" "$2" set_mempolicy 1 | awk -F', ' '{print $1}')
	b=$(calls_of "$T/iof.trace" "$2" set_mempolicy 1 | awk -F', ' '{print $1}')
	check "$1: fio '$a', iofleet '$b'" test -n "$a" -a "$a" = "$b"
}
mode_same "numa_mem_policy=bind:0: MPOL_BIND" bind
mode_same "numa_mem_policy=interleave:0: MPOL_INTERLEAVE" interleave
same "nice=5" nice setpriority 3
same "prio=6 prioclass=2: best-effort level 6" prio ioprio_set 3
same "prioclass=3: idle" idle ioprio_set 3

# What this host lacks: refused with what it has.
(cd "$T" && "$IOFLEET" run --local=1 --results-dir="$T/runs" --name=far --ioengine=null --size=1m \
	--numa_cpu_nodes=7 >"$T/far.log" 2>&1)
check "numa_cpu_nodes=7: refused, naming the nodes this host has" grep -q "NUMA node 7 does not exist on this agent (nodes 0" "$T/far.log"
(cd "$T" && "$IOFLEET" run --local=1 --results-dir="$T/runs" --name=far --ioengine=null --size=1m \
	--cpus_allowed=999 >"$T/far2.log" 2>&1)
check "cpus_allowed=999: refused, naming the CPUs this host has" grep -q "CPU 999 does not exist on this agent (CPUs 0-" "$T/far2.log"

# ioscheduler: files on a file system of our own on a loop device, so no other test's disk changes
command -v losetup >/dev/null && command -v mkfs.ext4 >/dev/null || { echo "no losetup/mkfs.ext4: ioscheduler part skipped"; finish; exit 0; }
truncate -s 64m "$T/disk.img" && mkfs.ext4 -q -F "$T/disk.img" >/dev/null 2>&1
LOOP=$(losetup -f --show "$T/disk.img" 2>/dev/null) && mkdir -p "$T/mnt" && mount "$LOOP" "$T/mnt" 2>/dev/null || {
	[ -n "${LOOP:-}" ] && losetup -d "$LOOP"
	echo "cannot mount a loop device here: ioscheduler part skipped"
	finish
	exit 0
}
trap 'umount "$T/mnt" 2>/dev/null; losetup -d "$LOOP" 2>/dev/null; cleanup' EXIT
DEV=$(basename "$LOOP")
SCHED=/sys/block/$DEV/queue/scheduler
before=$(sed -E 's/.*\[([^]]+)\].*/\1/' "$SCHED")
want=$(tr -d '[]' <"$SCHED" | tr ' ' '\n' | grep -v "^$before$" | grep -v '^$' | head -n1)
check "the loop device offers another scheduler than its $before" test -n "$want"
fio --name=sched --filename="$T/mnt/fio-data" --size=4m --rw=read --ioscheduler="$want" \
	--output-format=json --output="$T/sched-fio.json" >"$T/sched-fio.log" 2>&1
check "fio: switched to $want (and leaves it so)" grep -q "\[$want\]" "$SCHED"
echo "$before" >"$SCHED"

keys coordinator a0
allow a0
start_coordinator
start_agent a0
wait_agents 1
"$IOFLEET" run --coordinator="$CTL" --name=sched --filename="$T/mnt/iof-data" --size=4m --rw=read \
	--ioscheduler="$want" --output-format=json --output="$T/sched.json" >"$T/sched.log" 2>&1
check "iofleet: the run is ok" jq -e '.iofleet.status == "ok"' "$T/sched.json"
check "iofleet: the scheduler read back as $want" grep -rq "ioscheduler.$DEV.*$want" "$T/sched.json"
check "iofleet: $before is back after the run" grep -q "\[$before\]" "$SCHED"
"$IOFLEET" run --coordinator="$CTL" --name=sched --filename="$T/mnt/iof-data" --size=4m --rw=read \
	--ioscheduler=nosuch --output-format=json --output="$T/bad.json" >"$T/bad.log" 2>&1
check "iofleet: a scheduler the device lacks is refused with the ones it offers" \
	grep -q "ioscheduler=nosuch: device $DEV offers" "$T/bad.log"
check "iofleet: still $before" grep -q "\[$before\]" "$SCHED"
finish
	exit 0
fi
DEV=$(basename "$LOOP")
SCHED=/sys/block/$DEV/queue/scheduler
trap 'losetup -d "$LOOP" 2>/dev/null; cleanup' EXIT
before=$(sed -E 's/.*\[([^]]+)\].*/\1/' "$SCHED")
want=$(tr -d '[]' <"$SCHED" | tr ' ' '\n' | grep -v "^$before$" | grep -v '^$' | head -n1)
check "the loop device offers another scheduler than its $before" test -n "$want"
fio --name=sched --filename="$LOOP" --size=4m --rw=read --ioscheduler="$want" \
	--output-format=json --output="$T/sched-fio.json" >"$T/sched-fio.log" 2>&1
check "fio: switched to $want (and leaves it so)" grep -q "\[$want\]" "$SCHED"
echo "$before" >"$SCHED"

keys coordinator a0
allow a0
start_coordinator
AGENT_ALLOW="$T,$LOOP" start_agent a0 --allow-block-devices=true
wait_agents 1
"$IOFLEET" run --coordinator="$CTL" \
	--name=sched --filename="$LOOP" --size=4m --rw=read --ioscheduler="$want" \
	--output-format=json --output="$T/sched.json" >"$T/sched.log" 2>&1
check "iofleet: the run is ok" jq -e '.iofleet.status == "ok"' "$T/sched.json"
check "iofleet: the scheduler read back as $want during the run" \
	grep -rq "ioscheduler.$DEV" "$T/sched.json" "$T/a0.log" "$T/coordinator.log"
check "iofleet: $before is back after the run" grep -q "\[$before\]" "$SCHED"
"$IOFLEET" run --coordinator="$CTL" \
	--name=sched --filename="$LOOP" --size=4m --rw=read --ioscheduler=nosuch \
	--output-format=json --output="$T/bad.json" >"$T/bad.log" 2>&1
check "iofleet: a scheduler the device lacks is refused with the ones it offers" \
	grep -q "ioscheduler=nosuch: device $DEV offers" "$T/bad.log"
check "iofleet: still $before" grep -q "\[$before\]" "$SCHED"
finish
