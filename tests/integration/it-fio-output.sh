#!/usr/bin/env bash
# fio's tools read iofleet's output (issue 10, output half): --output-format=json+ has a jobs[]
# array in fio 3.33's single-host layout whose latency bins fio_jsonplus_clat2csv (Debian's fio
# package) converts and validates; plain json has no bins, as fio's; terse version 3 has fio's
# 121 fields (fio's own line less its disk utilization, which client mode prints apart); and
# formats combine (terse,json) in the order given.
. "$(dirname "$0")/lib.sh"
command -v fio >/dev/null || skip "fio is not installed"
command -v fio_jsonplus_clat2csv >/dev/null || skip "fio_jsonplus_clat2csv (fio package) is missing"
command -v python3 >/dev/null || skip "python3 is not installed"
scratch
cd "$T"
D=$T/data
mkdir -p "$D" "$T/csv" "$T/fiod"

# Two agents, a mixed job: one jobs[] entry per agent and the merged one.
"$IOFLEET" run --local=2 --lead=200ms --results-dir="$T/runs" --directory="$D" --name=mix --rw=randrw \
	--bs=4k --size=1m --output-format=json+ --output="$T/plus.json" >"$T/plus.log" 2>&1
check "json+ run ok" [ $? -eq 0 ]
jqcheck "jobs[]: one per agent and All clients" "$T/plus.json" \
	'[.jobs[].jobname] == ["mix","mix","All clients"]'
jqcheck "jobs[] carry fio's job fields" "$T/plus.json" \
	'[.jobs[] | has("read") and has("write") and has("trim") and has("latency_us") and has("latency_ms") and has("elapsed") and has("job options")] | all'
jqcheck "json+ has clat bins adding up to the completions" "$T/plus.json" \
	'[.jobs[] | .read | ([.clat_ns.bins[]] | add) == .clat_ns.N] | all'
jqcheck "latency_us and _ns and _ms shares add up to 100%" "$T/plus.json" \
	'[.jobs[] | ([.latency_ns[], .latency_us[], .latency_ms[]] | add) | (. > 99.9 and . < 100.1)] | all'
# fio's own tool: CSV per job, then its own check that the CSV matches the bins
(cd "$T/csv" && fio_jsonplus_clat2csv "$T/plus.json" out) >"$T/csv.log" 2>&1
check "fio_jsonplus_clat2csv reads it" [ $? -eq 0 ]
check "one CSV per job" [ "$(ls "$T/csv" | wc -l)" -eq 3 ]
(cd "$T/csv" && fio_jsonplus_clat2csv --validate "$T/plus.json" out) >"$T/validate.log" 2>&1
check "fio_jsonplus_clat2csv --validate agrees" [ $? -eq 0 ]
check "every job validated" [ "$(grep -c validated "$T/validate.log")" -eq 3 ]

# Plain json: fio's layout without the bins; terse first, then the json, as asked.
"$IOFLEET" run --local=1 --lead=200ms --results-dir="$T/runs" --directory="$D" --name=t --rw=randrw --bs=4k \
	--size=1m --output-format=terse,json >"$T/tj.out" 2>"$T/tj.log"
check "terse,json run ok" [ $? -eq 0 ]
head -1 "$T/tj.out" >"$T/terse.txt"
sed -n '2,$p' "$T/tj.out" >"$T/plain.json"
jqcheck "json follows terse" "$T/plain.json" '.jobs | length == 1'
jqcheck "plain json has no bins" "$T/plain.json" '[.. | objects | has("bins")] | any | not'
# fio's terse line for the same job: the same fields, its disk utilization (9) aside
fio --name=t --rw=randrw --bs=4k --size=1m --directory="$T/fiod" --output-format=terse \
	>"$T/fio.terse" 2>/dev/null
fio_fields=$(head -1 "$T/fio.terse" | awk -F';' '{print NF}')
ours=$(awk -F';' '{print NF}' "$T/terse.txt")
check "terse has fio's fields less disk utilization ($ours vs $fio_fields - 9)" \
	[ "$ours" -eq $((fio_fields - 9)) ]
check "terse version 3, job name, 20 clat percentiles" \
	awk -F';' '$1 == 3 && $3 ~ /^t/ && $18 ~ /^1\.000000%=/ && $37 ~ /%=/' "$T/terse.txt"
check "terse read KiB is the json's" \
	[ "$(cut -d';' -f6 "$T/terse.txt")" = "$(jq '.jobs[0].read.io_kbytes' "$T/plain.json")" ]

# Statistics options: the percentiles and latency blocks fio reports for the same options.
"$IOFLEET" run --local=1 --lead=200ms --results-dir="$T/runs" --directory="$D" --rw=randread --bs=4k \
	--size=1m --ioengine=libaio --iodepth=2 \
	--name=pl --percentile_list=99.5:50 --lat_percentiles=1 --slat_percentiles=1 \
	--name=gr --gtod_reduce=1 --name=hidden --stats=0 --output-format=json \
	>"$T/st.json" 2>"$T/st.log"
check "statistics options run ok" [ $? -eq 0 ]
fio --rw=randread --bs=4k --size=1m --ioengine=libaio --iodepth=2 --directory="$T/fiod" \
	--name=pl --percentile_list=99.5:50 --lat_percentiles=1 --slat_percentiles=1 \
	--name=gr --gtod_reduce=1 --output-format=json >"$T/fst.raw" 2>/dev/null
sed -n '/^{/,$p' "$T/fst.raw" >"$T/fst.json" # fio may print a job line before its JSON
for blk in slat_ns clat_ns lat_ns; do
	want=$(jq -c "[.jobs[] | select(.jobname == \"pl\") | .read.$blk.percentile | keys] " "$T/fst.json")
	got=$(jq -c "[.jobs[] | select(.jobname == \"pl\") | .read.$blk.percentile | keys] " "$T/st.json")
	check "percentile_list in $blk as fio's ($got vs $want)" [ "$got" = "$want" ]
done
want=$(jq -c '[.jobs[] | select(.jobname == "gr") | .read | (.clat_ns.N, .lat_ns.N, .slat_ns.N, has("bins"))]' "$T/fst.json")
got=$(jq -c '[.jobs[] | select(.jobname == "gr") | .read | (.clat_ns.N, .lat_ns.N, .slat_ns.N, has("bins"))]' "$T/st.json")
check "gtod_reduce: no latencies, as fio ($got vs $want)" [ "$got" = "$want" ]
jqcheck "gtod_reduce still counts the I/Os" "$T/st.json" \
	'[.jobs[] | select(.jobname == "gr") | .read.total_ios] == [256]'
jqcheck "stats=0 leaves the job out" "$T/st.json" '[.jobs[].jobname] == ["pl", "gr"]'
jqcheck "by default only clat has percentiles, as fio" "$T/plain.json" \
	'.jobs[0].read | (has("clat_ns") and (.clat_ns | has("percentile")) and (.lat_ns | has("percentile") | not) and (.slat_ns | has("percentile") | not))'

# unified_rw_reporting: the blocks fio 3.33 writes for mixed and both, the mixed one the sum.
for m in mixed both; do
	"$IOFLEET" run --local=1 --lead=200ms --results-dir="$T/runs" --directory="$D" --name=u --rw=randrw \
		--bs=4k --size=1m --unified_rw_reporting=$m --output-format=json >"$T/u$m.json" 2>/dev/null
	fio --name=u --rw=randrw --bs=4k --size=1m --directory="$T/fiod" --unified_rw_reporting=$m \
		--output-format=json 2>/dev/null | sed -n '/^{/,$p' >"$T/fu$m.json"
	want=$(jq -c '.jobs[0] | [has("read"), has("write"), has("trim"), has("mixed"), .mixed.io_bytes]' "$T/fu$m.json")
	got=$(jq -c '.jobs[0] | [has("read"), has("write"), has("trim"), has("mixed"), .mixed.io_bytes]' "$T/u$m.json")
	check "unified_rw_reporting=$m: fio's blocks ($got vs $want)" [ "$got" = "$want" ]
done
jqcheck "mixed counts every I/O of both directions" "$T/uboth.json" \
	'.jobs[0] | .mixed.total_ios == .read.total_ios + .write.total_ios and .mixed.clat_ns.N == .read.clat_ns.N + .write.clat_ns.N'

# An unknown format is refused naming the allowed ones.
"$IOFLEET" run --local=1 --lead=200ms --name=x --size=1m --output-format=json,xml >"$T/bad.log" 2>&1
check "unknown format refused" [ $? -ne 0 ]
check "the message names the formats" grep -q "normal|json|json+|terse" "$T/bad.log"
finish
