#!/usr/bin/env bash
# Workloads beyond plain I/O through iofleet run --local: the metadata workload (every phase on
# every agent, all files gone afterwards) and a write + verify round trip across two runs that
# also catches a block damaged on disk in between.
. "$(dirname "$0")/lib.sh"
scratch
cd "$T"

# --- ioengine=metadata ---------------------------------------------------------------------------
"$IOFLEET" run --local=2 --results-dir="$T/runs" --ioengine=metadata --name=md --nrfiles=200 \
	--filesize=4k --metadata_dirs=4 --directory="$T/data" --output-format=json \
	--output="$T/md.json" >"$T/md.log" 2>&1
check "metadata run exits 0" [ $? -eq 0 ]
J=$T/md.json
for p in seq_create seq_stat seq_read seq_delete rand_create rand_stat rand_read rand_delete; do
	jqcheck "$p: 400 ops (2 agents x 200 files)" "$J" ".client_stats[-1].metadata.$p.ops == 400"
	jqcheck "$p: ops_per_sec > 0, no errors" "$J" \
		".client_stats[-1].metadata.$p | .ops_per_sec > 0 and .errors == 0"
done
jqcheck "create and read move filesize per file" "$J" \
	'.client_stats[-1].metadata | .seq_create.bytes == 1638400 and .rand_read.bytes == 1638400'
jqcheck "each agent did its 200 files" "$J" \
	'(.client_stats | length) == 3 and ([.client_stats[:-1][] | .metadata.seq_create.ops == 200] | all)'
jqcheck "run status ok" "$J" '.iofleet.status == "ok"'
jqcheck "intervals' meta_ops add up to every operation" "$J" '([.iofleet.intervals[].meta_ops] | add) == 3200'
check "the directory is empty afterwards" bash -c "[ -z \"\$(ls -A '$T/data')\" ]"

# --- verify=crc32c across two runs ------------------------------------------------------------
"$IOFLEET" run --local=1 --results-dir="$T/runs" --name=v --rw=write --bs=4k --size=1m \
	--verify=crc32c --directory="$T/data" --output-format=json --output="$T/vw.json" \
	>"$T/vw.log" 2>&1
check "verify write run exits 0" [ $? -eq 0 ]
jqcheck "the writer wrote 1 MiB" "$T/vw.json" '.client_stats[-1].write.io_bytes == 1048576'
"$IOFLEET" run --local=1 --results-dir="$T/runs" --name=v --rw=randread --bs=4k --size=1m \
	--verify=crc32c --directory="$T/data" --output-format=json --output="$T/vr.json" \
	>"$T/vr.log" 2>&1
check "verify read run exits 0" [ $? -eq 0 ]
jqcheck "every block read and verified" "$T/vr.json" \
	'.client_stats[-1].read.io_bytes == 1048576 and .client_stats[-1].read.errors == 0 and .client_stats[-1].error == 0 and .iofleet.status == "ok"'

# One block damaged on disk: the next verify run fails and names its offset.
printf 'damage' | dd of="$T/data/v.local-0.0.0" bs=1 seek=$((12288 + 100)) conv=notrunc 2>/dev/null
"$IOFLEET" run --local=1 --results-dir="$T/runs" --name=v --rw=read --bs=4k --size=1m \
	--verify=crc32c --verify_fatal=1 --directory="$T/data" --output-format=json \
	--output="$T/vc.json" >"$T/vc.log" 2>&1
check "the damaged read run exits non-zero" [ $? -ne 0 ]
check "the damage is reported with its offset" grep -q 'block at offset 12288 is corrupt' "$T/vc.log"
jqcheck "the JSON carries the error" "$T/vc.json" \
	'[.. | strings | select(test("offset 12288 is corrupt"))] | length > 0'
finish
