#!/usr/bin/env bash
# iofleet run --local=3: a private coordinator and 3 agents run a short synchronized job; the
# JSON shows every agent's bytes, "All clients" as their sum, one interval per second and the
# start skew.
. "$(dirname "$0")/lib.sh"
scratch
cd "$T"

# The fleet's scratch directory goes under TMPDIR: here, so the test can see it is removed.
TMPDIR=$T "$IOFLEET" run --local=3 --results-dir="$T/runs" --name=seqread --rw=read --bs=64k --size=8m \
	--time_based --runtime=3s --directory="$T/data" --output-format=json --output="$T/out.json" \
	--per-host >"$T/live.log" 2>&1
rc=$?
check "iofleet run --local=3 exits 0" [ "$rc" -eq 0 ]
cat "$T/live.log"

J=$T/out.json
jqcheck "3 per-agent entries plus All clients" "$J" '(.client_stats | length) == 4 and .client_stats[-1].jobname == "All clients"'
jqcheck "every agent read bytes" "$J" '[.client_stats[:-1][] | .read.io_bytes > 0] | all'
jqcheck "each entry names its host" "$J" '[.client_stats[:-1][] | (.hostname | length) > 0] | all'
jqcheck "All clients bytes = sum over agents" "$J" '.client_stats[-1].read.io_bytes == ([.client_stats[:-1][].read.io_bytes] | add)'
jqcheck "All clients ios = sum over agents" "$J" '.client_stats[-1].read.total_ios == ([.client_stats[:-1][].read.total_ios] | add)'
jqcheck "fio percentile keys" "$J" '.client_stats[-1].read.clat_ns.percentile | has("99.000000") and has("50.000000")'
jqcheck "interval count = runtime / interval" "$J" '(.iofleet.intervals | length) == 3'
jqcheck "every interval has all 3 agents" "$J" '[.iofleet.intervals[] | (.agents | length) == 3] | all'
jqcheck "interval bytes add up to the total" "$J" '([.iofleet.intervals[].read_bytes] | add) == .client_stats[-1].read.io_bytes'
jqcheck "start_skew_ns present" "$J" '.iofleet.start_skew_ns | type == "number"'
jqcheck "agents carry hostname, id, start_ns" "$J" '[.iofleet.agents[] | (.hostname and .id and .start_ns)] | all'
jqcheck "run status ok" "$J" '.iofleet.status == "ok"'
check "a live line per interval" [ "$(grep -c '^\[ *[0-9]*/3\]' "$T/live.log")" -eq 3 ]
check "per-host lines" grep -q 'local-2 .*read' "$T/live.log"
check "the run directory holds result.json" test -f "$T/runs/$(jq -r .iofleet.run_id "$J")/result.json"
check "files are per agent" test -f "$T/data/seqread.local-0.0.0" -a -f "$T/data/seqread.local-2.0.0"
check "the scratch fleet is gone" bash -c "! ls -d $T/iofleet-local-* 2>/dev/null | grep -q ."
check "no daemon of it is left" bash -c "! pgrep -f '[i]ofleet-agent .*$T/iofleet-local' >/dev/null"

# The normal output, and a size-bound write job with the null engine in the same fleet shape.
"$IOFLEET" run --local=2 --results-dir="$T/runs" --name=w --rw=randwrite --bs=4k --size=4m \
	--directory="$T/data" >"$T/normal.log" 2>&1
check "size-bound randwrite exits 0" [ $? -eq 0 ]
check "normal output has fio's summary lines" grep -q 'write: IOPS=.*BW=' "$T/normal.log"
check "normal output states the start skew" grep -q 'start skew' "$T/normal.log"
check "normal output says where the JSON went" grep -q 'result.json' "$T/normal.log"
J2=$(ls -t "$T"/runs/*/result.json | head -n1)
jqcheck "size-bound: exactly size bytes per agent" "$J2" '[.client_stats[:-1][] | .write.io_bytes == 4194304] | all'
jqcheck "size-bound: last interval is marked by first/last done" "$J2" '.iofleet.jobs[0].last_done_ns >= .iofleet.jobs[0].first_done_ns'
jqcheck "size-bound: first-done and last-done rates across agents" "$J2" '.iofleet.done.first_done_write_bw_bytes > 0 and .iofleet.done.last_done_write_bw_bytes > 0 and .iofleet.done.last_done_ns >= .iofleet.done.first_done_ns'
jqcheck "slat, clat and lat are fio's blocks" "$J2" '.client_stats[-1].write | (.slat_ns | has("N")) and .clat_ns.N > 0 and .lat_ns.N == .clat_ns.N'
# fio's entries: one per clone by default, one per job with group_reporting.
"$IOFLEET" run --local=1 --results-dir="$T/runs" --name=c --ioengine=null --bs=4k --size=1m \
	--numjobs=3 --output-format=json --output="$T/clones.json" >/dev/null 2>&1
jqcheck "without group_reporting, one entry per clone with its jobnum" "$T/clones.json" \
	'[.client_stats[:-1][] | .jobnum] == [0, 1, 2] and ([.client_stats[:-1][] | .read.io_bytes == 1048576] | all)'
"$IOFLEET" run --local=1 --results-dir="$T/runs" --name=c --ioengine=null --bs=4k --size=1m \
	--numjobs=3 --group_reporting --output-format=json --output="$T/grouped.json" >/dev/null 2>&1
jqcheck "with group_reporting, one entry for the job" "$T/grouped.json" \
	'(.client_stats | length) == 2 and .client_stats[0].read.io_bytes == 3145728 and (.client_stats[0] | has("jobnum") | not)'
# fio's sync block: fsync every 16 of 256 writes (none after the last, as fio), end_fsync once.
"$IOFLEET" run --local=1 --results-dir="$T/runs" --name=s --rw=write --bs=4k --size=1m --fsync=16 \
	--end_fsync=1 --directory="$T/data" --output-format=json --output="$T/sync.json" >/dev/null 2>&1
jqcheck "fio's sync block counts the fsyncs and their latency" "$T/sync.json" \
	'.client_stats[0] | .sync.total_ios == 15 and .sync.lat_ns.N == 15 and .end_fsyncs == 1'
finish
