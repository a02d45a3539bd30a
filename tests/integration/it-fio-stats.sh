#!/usr/bin/env bash
# fio's statistics beyond counts and latencies, against fio 3.33 on the same jobs (issue 10):
# usr_cpu/sys_cpu/ctx/majf/minf, iodepth_level/submit/complete, latency_depth/target, the
# bw/iops samples every 500 ms, disk_util, "global options"; the normal output's lat, cpu, IO
# depths, submit, complete, issued rwts, latency and Disk stats lines; kb_base, unit_base and
# significant_figures in the normal output. Tolerances, where timing decides a figure: depth
# shares by their largest bucket (iofleet gathers its submissions, so its submit/complete
# batches are its own), ctx per I/O of a direct psync job within 0.5-2x of fio's, sample counts
# within one of fio's, disk_util by its device names. Cost: two iofleet runs and two fio runs,
# 1 s of I/O each, about 9 s in all (paid for by --lead=200ms in it-fio-output and it-fio-files,
# 8 s and about 10 s less).
. "$(dirname "$0")/lib.sh"
command -v fio >/dev/null || skip "fio is not installed"
scratch
cd "$T"
D=$T/data
mkdir -p "$D"

# One line for both tools (fio reads it as a command line): global options, then three jobs.
common=(--directory="$D" --size=8m --runtime=1 --time_based --rw=randread --bs=4k --direct=1)
jobs=(--name=sync --ioengine=psync
	--name=aio --ioengine=libaio --iodepth=8
	--name=lt --ioengine=libaio --iodepth=8 --latency_target=10ms --latency_window=200ms
	--latency_percentile=90)
fio "${common[@]}" "${jobs[@]}" --output-format=normal,json >"$T/fio.out" 2>"$T/fio.err"
if [ $? -ne 0 ]; then
	grep -q -i 'direct' "$T/fio.err" && skip "$T does not take O_DIRECT (fio: $(head -1 "$T/fio.err"))"
	fail "fio ran the jobs ($(head -1 "$T/fio.err"))"
fi
# fio writes its JSON first whatever the order asked; iofleet in the order asked.
split_out() {
	sed -n '/^{/,/^}$/p' "$1.out" >"$1.json"
	sed '/^{/,/^}$/d' "$1.out" >"$1.txt"
}
split_out "$T/fio"
"$IOFLEET" run --local=2 --lead=200ms --results-dir="$T/runs" "${common[@]}" "${jobs[@]}" \
	--output-format=normal,json --output="$T/iof.out" >"$T/iof.log" 2>&1
check "iofleet ran the jobs on 2 agents" [ $? -eq 0 ]
split_out "$T/iof"
FJ=$T/fio.json
IJ=$T/iof.json
# fio's figure of job J: f J FILTER; ours, for the first agent's entry: i J FILTER
f() { jq -r ".jobs[] | select(.jobname == \"$1\") | $2" "$FJ"; }
i() { jq -r "[.jobs[] | select(.jobname == \"$1\" and .agent == \"local-0\")][0] | $2" "$IJ"; }

# Every field fio writes for a job, iofleet writes too.
missing=$(jq -r --slurpfile o "$IJ" '[.jobs[0] | keys[]] - ([$o[0].jobs[0] | keys[]]) | join(",")' "$FJ")
check "every job field fio writes is there (missing: '$missing')" [ -z "$missing" ]
jqcheck "...in every agent's entry and in All clients" "$IJ" \
	'[.client_stats[] | has("usr_cpu") and has("sys_cpu") and has("ctx") and has("majf") and has("minf") and has("iodepth_level") and has("iodepth_submit") and has("iodepth_complete") and has("latency_depth") and has("latency_window")] | all'
for k in iodepth_level iodepth_submit iodepth_complete latency_ns latency_us latency_ms; do
	check "$k has fio's keys" [ "$(f aio ".$k | keys | join(\",\")")" = "$(i aio ".$k | keys | join(\",\")")" ]
done
# A synchronous engine's depths and batches are fio's to the figure: depth 1, batches of one.
for k in iodepth_level iodepth_submit iodepth_complete; do
	want=$(f sync ".$k | tojson")
	got=$(i sync ".$k | tojson")
	check "psync $k as fio's ($got vs $want)" [ "$got" = "$want" ]
done
# libaio at iodepth=8: most I/Os went at depth 8 in both (the bucket, and over 90 %).
top='.iodepth_level | to_entries | max_by(.value) | "\(.key) \(.value > 90)"'
check "libaio iodepth_level: the same top bucket over 90% ($(i aio "$top") vs $(f aio "$top"))" \
	[ "$(i aio "$top")" = "$(f aio "$top")" ]
jqcheck "iodepth shares add up to 100 (each bucket rounded up to 0.1 at most)" "$IJ" \
	'[.jobs[] | [.iodepth_level[]] | add | (. > 99.9 and . < 100.8)] | all'
jqcheck "latency_ns/us/ms add up to 100 (floors of 0.01)" "$IJ" \
	'[.jobs[] | [.latency_ns[], .latency_us[], .latency_ms[]] | add | (. > 99.9 and . < 100.3)] | all'
# CPU: a direct psync read blocks once per I/O in both tools.
ratio=$(jq -n --argjson a "$(i sync '.ctx / .read.total_ios')" --argjson b "$(f sync '.ctx / .read.total_ios')" '$a / $b')
# Both count every switch, voluntary or not (fio's ctx): under a sanitizer each I/O takes several
# times as long on a host running other tests, and the preemptions it adds (3.3x fio's in CI) are
# not the blocking compared here; there only the floor (each I/O blocks) is asked.
upper=2
grep -q libasan <<<"$(ldd "$IOFLEET" 2>/dev/null)" && upper=1000000
check "psync direct: context switches per I/O within 0.5-${upper}x of fio's ($ratio)" \
	jq -e -n "$ratio >= 0.5 and $ratio <= $upper" >/dev/null
jqcheck "usr_cpu and sys_cpu are shares of the run, 0..100, some CPU spent" "$IJ" \
	'[.client_stats[] | .usr_cpu >= 0 and .sys_cpu >= 0 and .usr_cpu <= 100 and .sys_cpu <= 100 and .usr_cpu + .sys_cpu > 0 and .majf >= 0 and .minf >= 0] | all'
jqcheck "job_runtime is the job's run (one clone), All clients' the entries' added" "$IJ" \
	'([.jobs[] | select(.agent) | .job_runtime >= .read.runtime - 5 and .job_runtime <= .read.runtime + 5] | all) and ((.client_stats[-1].job_runtime - ([.client_stats[:-1][] | .job_runtime] | add)) | fabs <= 6)'
# latency_target: fio 3.33's units (ns, us), the depth it settled on at most iodepth.
for k in latency_target latency_window latency_percentile; do
	check "lt: $k as fio's ($(i lt ".$k") vs $(f lt ".$k"))" [ "$(i lt ".$k")" = "$(f lt ".$k")" ]
done
check "lt: latency_depth 1..8 (fio: $(f lt .latency_depth))" [ "$(i lt '.latency_depth >= 1 and .latency_depth <= 8')" = true ]
check "without a target, latency_depth is iodepth, as fio's" [ "$(i aio .latency_depth)" = "$(f aio .latency_depth)" ]
# bw/iops samples every 500 ms over 1 s, as fio takes them.
for k in bw_samples iops_samples; do
	a=$(i sync ".read.$k") b=$(f sync ".read.$k")
	check "psync read.$k within one of fio's ($a vs $b)" [ "$a" -ge 1 ] && [ $((a - b)) -le 1 ] && [ $((b - a)) -le 1 ]
done
jqcheck "bw_mean (KiB/s) is the job's rate within 50%, as fio's" "$IJ" \
	'[.jobs[] | select(.agent) | .read | select(.bw_samples > 0) | (.bw_mean * 1024 / .bw_bytes) | (. > 0.5 and . < 1.5)] | all'
jqcheck "All clients adds the agents' samples, as fio's client mode" "$IJ" \
	'.client_stats[-1].read.bw_samples == ([.client_stats[:-1][] | .read.bw_samples] | add)'
# disk_util: the devices fio names, once per agent.
want=$(jq -c '[.disk_util // [] | .[].name] | unique' "$FJ")
got=$(jq -c '[.disk_util // [] | .[].name] | unique' "$IJ")
check "disk_util names the devices fio names ($got vs $want)" [ "$got" = "$want" ]
if [ "$want" != "[]" ]; then
	jqcheck "...with fio's fields, per agent" "$IJ" \
		"([.disk_util[] | has(\"read_ios\") and has(\"write_ios\") and has(\"read_merges\") and has(\"write_merges\") and has(\"read_ticks\") and has(\"write_ticks\") and has(\"in_queue\") and has(\"util\") and has(\"hostname\")] | all) and ([.disk_util[].agent] | unique == [\"local-0\", \"local-1\"])"
	jqcheck "...that saw this run's reads" "$IJ" '[.disk_util[] | .read_ios > 0 and .util > 0] | any'
fi
check "global options as fio writes them" [ "$(jq -c '."global options"' "$IJ")" = "$(jq -c '."global options"' "$FJ")" ]
check "job options as fio writes them" [ "$(i aio '."job options" | tojson')" = "$(jq -c '.jobs[] | select(.jobname == "aio") | ."job options" | del(.name)' "$FJ")" ]

# The normal output: fio's lines, in fio's words.
block() { awk -v j="$2" '$0 ~ "^" j ": \\(groupid" {on=1; next} on && /^[a-zA-Z].*: \(groupid/ {exit} on' "$1"; }
block "$T/fio.txt" sync >"$T/fio.sync"
block "$T/iof.txt" sync >"$T/iof.sync"
for l in "  IO depths    :" "     submit    :" "     complete  :" "     latency   :"; do
	check "psync '$l' line as fio's" [ "$(grep -F "$l" "$T/iof.sync")" = "$(grep -F "$l" "$T/fio.sync")" ]
done
# (the units go too: fio writes IOPS=9999 and IOPS=10.2k, KiB/s and MiB/s, usec and msec as the
# figures grow, and a loaded host moves iofleet's or fio's across such a line)
shape() { grep -E "$2" "$1" | head -1 | sed -E 's/[kKMGTP]i?B/XB/g; s/[0-9]+(\.[0-9]+)?[kMGTP]?/N/g; s/\((n|u|m)sec\)/(Xsec)/g'; }
for re in '^  cpu          : ' '^     issued rwts: ' '^  lat \((n|u|m)sec\)   : ' '^   bw \(' '^   iops        : ' \
	'^  read: IOPS='; do
	a=$(shape "$T/iof.sync" "$re") b=$(shape "$T/fio.sync" "$re")
	check "'$re' line shaped as fio's ('$a')" [ -n "$a" ] && [ "$(echo "$a" | sed 's/N=N%, //g')" = "$(echo "$b" | sed 's/N=N%, //g')" ]
done
if [ "$want" != "[]" ]; then
	check "Disk stats (read/write) as fio prints them" grep -qx 'Disk stats (read/write):' "$T/iof.txt"
	check "...a line per device and agent in fio's shape" \
		[ "$(grep -cE '^  \[local-[01]\] [a-z0-9-]+: ios=[0-9]+/[0-9]+, merge=[0-9]+/[0-9]+, ticks=[0-9]+/[0-9]+, in_queue=[0-9]+, util=[0-9.]+%$' "$T/iof.txt")" -ge 2 ]
fi

# kb_base, unit_base, significant_figures: fio's units and figures in the normal output. A rate
# keeps the magnitudes alike in both tools; the bytes moved are the same.
# (kb_base first: fio's command line applies it to the sizes after it only, its job files and
# iofleet to every size of the job)
kb=(--name=k --kb_base=1000 --unit_base=1 --significant_figures=6 --ioengine=null --rw=read --bs=4k
	--size=8m --rate=16m)
fio "${kb[@]}" >"$T/fio-kb.txt" 2>&1
"$IOFLEET" run --local=1 --lead=200ms --results-dir="$T/runs" "${kb[@]}" --output="$T/iof-kb.txt" \
	>"$T/iof-kb.log" 2>&1
check "iofleet ran the kb_base job" [ $? -eq 0 ]
units() { grep -E "$2" "$1" | head -1 | grep -oE '[0-9.]+[A-Za-z]*(/s)?' | sed -E 's/^[0-9.]+//' | tr '\n' ' '; }
for re in '^  read: IOPS=' '^   READ: bw='; do
	a=$(units "$T/iof-kb.txt" "$re") b=$(units "$T/fio-kb.txt" "$re")
	check "kb_base=1000 unit_base=1: '$re' units as fio's ('$a')" [ -n "$a" ] && [ "$a" = "$b" ]
done
a=$(grep -oE 'io=[0-9.]+[A-Za-z]+ \([0-9.]+[A-Za-z]+\)' "$T/iof-kb.txt")
b=$(grep -oE 'io=[0-9.]+[A-Za-z]+ \([0-9.]+[A-Za-z]+\)' "$T/fio-kb.txt")
check "significant_figures=6: the same bytes in fio's words ($a vs $b)" [ -n "$a" ] && [ "$a" = "$b" ]
check "bw line in kB (kb_base=1000), as fio's" grep -q '^   bw (   kB/s)' "$T/iof-kb.txt"
finish
