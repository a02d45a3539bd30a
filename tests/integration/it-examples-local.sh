#!/usr/bin/env bash
# The examples that need no NFS server, run shortened on a local coordinator and agent: wu2-local
# (the eight-test matrix) and wu4-local (size-bound bursts: each point writes exactly its bytes,
# first done <= last done), each checked through `iofleet report --format=csv`: a row per point,
# all ok, the swept parameters as columns. Every plan of an original setup passes --dry-run.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/examples.sh"
command -v jq >/dev/null || skip "jq is not installed"
command -v python3 >/dev/null || skip "python3 is not installed"
scratch
E=$IOFLEET_SRC/examples

# The original setups: checked whole, every point listed, no agent needed.
dry_run_example "$E/wu1-nfs-kernel.plan" 1
dry_run_example "$E/wu2-zfs-matrix.plan" 8
dry_run_example "$E/wu3-nas-nfs.plan" 4
dry_run_example "$E/wu4-zfs-bursts.plan" 12
dry_run_example "$E/wu5-sync-async-kernel.plan" 16
out=$("$IOFLEET" run --dry-run "$E/wu5-sync-async-kernel.plan" 2>&1)
check "wu5 (kernel): a point exports async and mounts soft,intr,rsize=8192,wsize=8192" grep -qx \
	'point 10: server.sync=false client.options=soft,intr,rsize=8192,wsize=8192 client.sysctl.net.core.rmem_max=212992' <<<"$out"
out=$(env -u DIR RUNTIME=1 "$IOFLEET" run --coordinator="ipc://$T/none" "$E/wu2-local.plan" 2>&1)
check "a plan's unset \${VAR} is an error naming it" grep -q "environment variable DIR is not set" <<<"$out"

keys coordinator c1
allow c1
start_coordinator
start_agent c1
wait_agents 1
export RUNTIME=1 DIR=$T/data/examples
mkdir -p "$DIR"
dry_run_example "$E/wu2-local.plan" 8
dry_run_example "$E/wu4-local.plan" 12

# --- write-up 2: rw x bs over a local directory ---------------------------------------------
run_example wu2 "$E/wu2-local.plan"
report_example wu2 "$RESULT_DIR" 8 "$E/wu2-local.plan"
C=$T/wu2.csv
check "wu2: reading points read and only read" csvq "$C" \
	'all((num(r["read_mib_s_median"]) > 0) == ("read" in r["rw"]) and (num(r["write_mib_s_median"]) > 0) == ("write" in r["rw"]) for r in rows)'
check "wu2: IOPS = MiB/s at 1m and 256 x MiB/s at 4k" csvq "$C" \
	'all(abs(num(r["read_iops_median"]) + num(r["write_iops_median"]) - num(r["total_mib_s_median"]) * (1 if r["bs"] == "1m" else 256)) <= 0.01 * num(r["total_mib_s_median"]) * 256 + 1 for r in rows)'

# --- write-up 4: rw x numjobs x size, size-bound -------------------------------------------
# Size-bound: the runtime is only a cap here, generous so a slow (sanitizer) build ends on size.
RUNTIME=120 run_example wu4 "$E/wu4-local.plan"
report_example wu4 "$RESULT_DIR" 12 "$E/wu4-local.plan"
C=$T/wu4.csv
check "wu4: every point wrote, none read" csvq "$C" \
	'all(num(r["write_iops_median"]) > 0 and num(r["read_mib_s_median"]) == 0 for r in rows)'
check "wu4: latency percentiles over all jobs, p50 <= p99" csvq "$C" \
	'all(0 < num(r["write_clat_p50_us_median"]) <= num(r["write_clat_p99_us_median"]) for r in rows)'
n=0
for d in "$RESULT_DIR"/point-*; do
	idx=$((10#$(basename "$d" | cut -c7-9)))
	bytes=$(jq -r ".points[] | select(.index == $idx) | .params | (.numjobs | tonumber) * (.size | rtrimstr(\"m\") | tonumber) * 1048576" "$RESULT_DIR/sweep.json")
	# Size-bound: every job wrote exactly its size, and the first done is never after the last.
	jq -e --argjson b "$bytes" '.client_stats[-1].write.io_bytes == $b and
		(.iofleet.done | .first_done_ns > 0 and .first_done_ns <= .last_done_ns and
		 .last_done_write_bw_bytes > 0 and .first_done_write_bw_bytes >= 0)' "$d/result.json" >/dev/null && n=$((n + 1))
done
check "wu4: each point wrote numjobs x size bytes and reports first done <= last done ($n of 12)" [ "$n" -eq 12 ]

# The checks above must catch a failing point: the same plan with half its points pointed
# outside the agent's allow_paths runs the other half, exits non-zero, and the report flags
# exactly those points with the agent's reason.
sed -e 's/^bs = 1m, 4k$/bs = 4k\nzfs.directory = ${DIR}, \/var\/lib\/iofleet-nope/' "$E/wu2-local.plan" >"$T/wu2-half.plan"
timeout 120 "$IOFLEET" run --coordinator="$CTL" "$T/wu2-half.plan" >"$T/half.log" 2>&1
check "a sweep with failing points exits non-zero" [ $? -ne 0 ]
check "... and says how many failed" grep -q "8 of 8 steps ran, 4 failed" "$T/half.log"
D=$(sed -n 's/^iofleet: sweep .*; results in \([^ ]*\) (iofleet report DIR)$/\1/p' "$T/half.log")
"$IOFLEET" report --format=csv --no-plots --output="$T/half.csv" "$D" >/dev/null 2>&1
check "... the report flags exactly the points outside allow_paths, with the reason" csvq "$T/half.csv" \
	'len(rows) == 8 and all((r["runs_ok"] == "0") == (r["zfs.directory"] == "/var/lib/iofleet-nope") and ((r["error"] != "") == (r["runs_ok"] == "0")) for r in rows) and all("allow_paths" in r["error"] for r in rows if r["error"])'
if csvq "$T/half.csv" 'all(r["runs"] == r["runs_ok"] and r["error"] == "" for r in rows)'; then
	fail "... and the examples' all-ok check would have passed it"
else
	ok "... which the examples' all-ok check fails"
fi
finish
