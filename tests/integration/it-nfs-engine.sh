#!/usr/bin/env bash
# ioengine=nfs against NFS-Ganesha on loopback (no kernel mount): exact byte counts of size-bound
# write and read, randrw with verify at iodepth 16, files in a sub-directory of the export, a
# refused NFSv4 URL, and a server killed or frozen in the middle of a run: the run must end with
# the error reported (errno and message), never hang.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/ganesha.sh"
command -v jq >/dev/null || skip "jq is not installed"
scratch
cd "$T"
trap 'ganesha_stop; cleanup' EXIT

NFSPORT=22049
MNTPORT=22048
ganesha_start "$T/ganesha" 127.0.0.1 $NFSPORT $MNTPORT || {
	fail "ganesha did not start"
	exit 1
}
URL="nfs://127.0.0.1/export?nfsport=$NFSPORT&mountport=$MNTPORT"
EXPORT=$GANESHA_EXPORT

# run NAME OPTIONS...: one local agent, ioengine=nfs; the JSON in $T/NAME.json. A hang fails.
run() {
	local name=$1
	shift
	timeout 120 "$IOFLEET" run --local=1 --results-dir="$T/runs" --ioengine=nfs \
		--nfs_url="$URL" --output-format=json --output="$T/$name.json" "$@" >"$T/$name.log" 2>&1
}

# --- size-bound write, then read: exact bytes, and the file is on the server ----------------
run w --name=seq --rw=write --bs=64k --size=24m --iodepth=8
check "write run exits 0" [ $? -eq 0 ]
jqcheck "write: exactly 24 MiB in 384 I/Os, no errors" "$T/w.json" \
	'.client_stats[0] | .write.io_bytes == 25165824 and .write.total_ios == 384 and .error == 0 and .read.io_bytes == 0'
check "the file is on the export with its size" \
	[ "$(stat -c %s "$EXPORT/seq.local-0.0.0" 2>/dev/null)" = 25165824 ]

run r --name=seq --rw=read --bs=128k --size=24m --iodepth=4
check "read run exits 0" [ $? -eq 0 ]
jqcheck "read: exactly 24 MiB in 192 I/Os, no errors" "$T/r.json" \
	'.client_stats[0] | .read.io_bytes == 25165824 and .read.total_ios == 192 and .error == 0 and .write.io_bytes == 0'
jqcheck "run status ok" "$T/r.json" '.iofleet.status == "ok"'

# A readonly job on a missing file names the file.
run miss --name=missing --rw=read --bs=4k --size=1m --readonly=1 --filename=nosuchfile
check "a missing file fails the run" [ $? -ne 0 ]
check "the message names the file" grep -q "nosuchfile does not exist and readonly forbids" \
	"$T/miss.log"

# --- randrw with verify=crc32c at iodepth 16, in a sub-directory, several files ---------------
mkdir -p "$EXPORT/sub"
run vw --name=v --rw=write --bs=4k --size=8m --nrfiles=2 --iodepth=16 --verify=crc32c \
	--directory=sub
check "verify write run exits 0" [ $? -eq 0 ]
jqcheck "verify write: 8 MiB" "$T/vw.json" '.client_stats[0].write.io_bytes == 8388608'
check "both files are in the sub-directory" \
	[ -f "$EXPORT/sub/v.local-0.0.0" -a -f "$EXPORT/sub/v.local-0.0.1" ]
run vrw --name=v --rw=randrw --bs=4k --size=8m --nrfiles=2 --iodepth=16 --verify=crc32c \
	--directory=sub
check "randrw verify run exits 0" [ $? -eq 0 ]
# As fio: the mix moves 8 MiB, then what it wrote is read back and checked (do_verify), so the
# reads are the mix's plus the written bytes: 8 MiB in all.
jqcheck "randrw: 8 MiB mixed, the writes read back and verified" "$T/vrw.json" \
	'.client_stats[0] | .read.io_bytes == 8388608 and .write.io_bytes > 0 and .write.io_bytes < 8388608 and .read.errors == 0 and .read.verify_errors == 0 and .error == 0'

# One block damaged on the server: a verifying read reports it with its offset.
printf 'damage' | dd of="$EXPORT/sub/v.local-0.0.0" bs=1 seek=$((8192 + 100)) conv=notrunc 2>/dev/null
run vc --name=v --rw=read --bs=4k --size=8m --nrfiles=2 --iodepth=16 --verify=crc32c \
	--verify_fatal=1 --directory=sub
check "the damaged read run exits non-zero" [ $? -ne 0 ]
check "the damage is reported with its offset" grep -q 'offset 8192 is corrupt' "$T/vc.log"

# --- fsync, end_fsync and rate go through the engine ------------------------------------------
run sy --name=sy --rw=randwrite --bs=4k --size=2m --iodepth=4 --fsync=64 --end_fsync=1 \
	--rate=1m
check "fsync/rate run exits 0" [ $? -eq 0 ]
jqcheck "fsync: 2 MiB written, 8 syncs and the end_fsync" "$T/sy.json" \
	'.client_stats[0] | .write.io_bytes == 2097152 and .error == 0'
jqcheck "rate=1m: the 2 MiB took about 2 s" "$T/sy.json" \
	'.client_stats[0].job_runtime >= 1500'

# --- NFSv4 is refused, naming the option ---------------------------------------------------------
timeout 30 "$IOFLEET" run --local=1 --results-dir="$T/runs" --ioengine=nfs \
	--nfs_url="nfs://127.0.0.1/export?version=4" --name=v4 --rw=write --bs=4k --size=1m \
	>"$T/v4.log" 2>&1
check "version=4 is refused" [ $? -ne 0 ]
check "the refusal names nfs_url and NFSv3" grep -q "nfs_url.*only NFSv3" "$T/v4.log"

# --- a server frozen (no reset): the engine's RPC timeout ends the run -------------------------
run frz_pre --name=frz --rw=write --bs=64k --size=8m --iodepth=8
# Once the run has started (on a loaded host its start takes seconds): the engine is mid-run.
(wait_line "$T/frz.log" "started on" 90 && sleep 1 && kill -STOP "$GANESHA_PID") &
killer=$!
start=$(date +%s)
run frz --name=frz --rw=randread --bs=4k --size=8m --iodepth=16 --time_based --runtime=60
rc=$?
took=$(($(date +%s) - start))
wait "$killer"
kill -CONT "$GANESHA_PID" 2>/dev/null
check "a frozen server fails the run (exit $rc)" [ $rc -ne 0 ] && [ $rc -ne 124 ]
check "the frozen run ended well before its 60 s (took ${took}s)" [ "$took" -lt 40 ]
jqcheck "frozen: errno ETIMEDOUT (110) and a message" "$T/frz.json" \
	'.client_stats[0] | .error == 110 and (.error_msg | test("timed out"))'

# --- connection reset: kill -9 the server in the middle of a time_based 1M qd8 run ------------
(wait_line "$T/rst.log" "started on" 90 && sleep 1 && kill -KILL "$GANESHA_PID") &
killer=$!
start=$(date +%s)
run rst --name=rst --rw=write --bs=1m --size=64m --iodepth=8 --time_based --runtime=60
rc=$?
took=$(($(date +%s) - start))
wait "$killer"
check "a reset fails the run (exit $rc)" [ $rc -ne 0 ] && [ $rc -ne 124 ]
check "the reset run ended well before its 60 s (took ${took}s)" [ "$took" -lt 30 ]
jqcheck "reset: errno and message in the result, errors counted" "$T/rst.json" \
	'.client_stats[0] | .error != 0 and .write.errors > 0 and (.error_msg | test("reset|refused|lost|timed out"))'
jqcheck "reset: the agent's error is in the run" "$T/rst.json" \
	'.iofleet.agents[0].error | test("write of 1048576 bytes")'
grep -h "failed:" "$T/rst.log" "$T/frz.log" | sed 's/^/  reported: /'
finish
