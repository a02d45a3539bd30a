#!/usr/bin/env bash
# Step 4 on loopback with real daemons: a sweep plan (points in order, repeats, a failing point
# that does not stop the sweep, on_error=stop that does), iofleet report on what it wrote,
# stonewalling (the others stop within an interval of the first finisher), degrade alerts in the
# log, the live display, the result and /metrics, and iofleet watch from another terminal.
. "$(dirname "$0")/lib.sh"
scratch
mkdir -p /dev/shm/iofleet-it-$$ "$T/disk"
SHM=/dev/shm/iofleet-it-$$
trap 'rm -rf "$SHM"; cleanup' EXIT
keys coordinator fast slow
allow fast
allow slow
start_coordinator
METRICS_PORT=$(grep -o 'metrics: GET /metrics on [^,]*, port [0-9]*' "$T/coordinator.log" | grep -o '[0-9]*$')
# Two agents whose default directories differ in speed: fsync is free on tmpfs, not on a disk.
AGENT_ALLOW="$T,$SHM" start_agent fast --work-dir="$SHM"
AGENT_ALLOW="$T,$SHM" start_agent slow --work-dir="$T/disk"
wait_agents 2

# --- a sweep: 2 x 2 points, 2 repeats; the point with directory=/srv fails on both agents.
cat >"$T/sweep.plan" <<EOF
[plan]
name = it-sweep
interval = 500ms
[sweep]
bs = 4k,64k
j.directory = $T/data|/srv
repeat = 2
[j]
rw = write
size = 2m
ioengine = psync
EOF
"$IOFLEET" run --dry-run "$T/sweep.plan" >"$T/dry.txt"
check "--dry-run exits 0" [ $? -eq 0 ]
check "--dry-run lists 4 points" [ "$(grep -c '^point ' "$T/dry.txt")" -eq 4 ]
check "--dry-run shows point 1's values, first parameter slowest" grep -q "^point 1: bs=4k j.directory=/srv" "$T/dry.txt"
timeout 120 "$IOFLEET" run --coordinator="$CTL" "$T/sweep.plan" >"$T/sweep.log" 2>&1
rc=$?
cat "$T/sweep.log"
check "a sweep with failed points exits non-zero ($rc)" [ $rc -ne 0 ]
check "... after running all 8 steps" grep -q "8 of 8 steps ran, 4 failed" "$T/sweep.log"
SW=$(ls -d "$T"/runs/*-it-sweep-* | head -n1)
check "the sweep has its directory" test -d "$SW"
check "plan.ini is the plan as submitted" cmp "$SW/plan.ini" "$T/sweep.plan"
jqcheck "sweep.json lists 8 steps in order" "$SW/sweep.json" '[.points[] | "\(.index)-\(.repeat)"] == ["0-0","0-1","1-0","1-1","2-0","2-1","3-0","3-1"]'
jqcheck "the /srv points carry their error" "$SW/sweep.json" '[.points[] | select(.params["j.directory"] == "/srv") | .error | test("outside allow_paths")] | (length == 4 and all)'
jqcheck "the others ran cleanly" "$SW/sweep.json" '[.points[] | select(.params["j.directory"] != "/srv") | .error == ""] | (length == 4 and all)'
jqcheck "parameters are named in order" "$SW/sweep.json" '.parameters == ["bs", "j.directory"]'
for d in point-000-r0 point-002-r1; do
	jqcheck "$d wrote 2 MiB per agent" "$SW/$d/result.json" '[.client_stats[:-1][].write.io_bytes] == [2097152, 2097152]'
done
jqcheck "a point's result names its parameters" "$SW/point-002-r0/result.json" '.iofleet.point.params == {"bs": "64k", "j.directory": "'"$T/data"'"}'

"$IOFLEET" report "$SW" --format=csv --no-plots >"$T/report.csv" 2>"$T/report.err"
check "iofleet report exits 0" [ $? -eq 0 ]
cat "$T/report.csv"
check "the report has a header and 4 rows" [ "$(wc -l <"$T/report.csv")" -eq 5 ]
check "the varying parameters are columns" grep -q '^point,bs,j.directory' "$T/report.csv"
"$IOFLEET" report "$SW" >"$T/report.txt" 2>&1
check "the text report flags the failed points" grep -q "outside allow_paths" "$T/report.txt"

# --- on_error=stop: the first failure ends the sweep.
sed -e 's/^repeat = 2/repeat = 1\non_error = stop/' -e 's#j.directory = .*#j.directory = /srv|'"$T"'/data#' "$T/sweep.plan" >"$T/stop.plan"
timeout 60 "$IOFLEET" run --coordinator="$CTL" "$T/stop.plan" >"$T/stop.log" 2>&1
check "on_error=stop exits non-zero" [ $? -ne 0 ]
check "... after the first step" grep -q "1 of 4 steps ran, 1 failed" "$T/stop.log"

# --- the plan checked is the plan that runs: the file rewritten (with a value that would fail)
# while the first point runs changes nothing about the second.
cat >"$T/edit.plan" <<EOF
[plan]
name = it-edit
interval = 250ms
lead = 100ms
[sweep]
bs = 4k,64k
[j]
rw = write
size = 1m
time_based
runtime = 1s
directory = $T/data
EOF
cp "$T/edit.plan" "$T/edit.orig"
timeout 60 "$IOFLEET" run --coordinator="$CTL" "$T/edit.plan" >"$T/edit.log" 2>&1 &
RUN=$!
# Bounded by the run itself: the CLI leaves when the sweep ends, edited in time or not.
while kill -0 "$RUN" 2>/dev/null && ! grep -q "accepted on" "$T/edit.log"; do sleep 0.05; done
printf '[sweep]\nbs = 4k,bogus\n[k]\nrw = read\n' >"$T/edit.plan"
wait "$RUN"
check "a plan edited during its sweep runs as checked ($(tail -n1 "$T/edit.log"))" grep -q "2 of 2 steps ran, 0 failed" "$T/edit.log"
SE=$(ls -d "$T"/runs/*-it-edit-* | head -n1)
jqcheck "... its second point ran with the checked value" "$SE/point-001-r0/result.json" '.iofleet.point.params == {"bs": "64k"} and .client_stats[0].jobname == "j"'
check "... and plan.ini is the plan checked" cmp "$SE/plan.ini" "$T/edit.orig"

# --- stonewall: a size-bound job with an fsync per write; the fast agent's files are on tmpfs.
timeout 120 "$IOFLEET" run --coordinator="$CTL" --run-stonewall --interval=200ms --name=sw --rw=write \
	--bs=4k --size=8m --fsync=1 --output-format=json --output="$T/sw.json" >"$T/sw.log" 2>&1
check "a stonewalled run exits 0" [ $? -eq 0 ]
cat "$T/sw.log"
jqcheck "the result says stonewall and when" "$T/sw.json" '.iofleet.stonewall == true and .iofleet.stonewall_after_ns > 0'
jqcheck "the fast agent wrote everything" "$T/sw.json" '.client_stats[] | select(.agent == "fast") | .write.io_bytes == 8388608'
jqcheck "the slow agent was stopped short" "$T/sw.json" '.client_stats[] | select(.agent == "slow") | .write.io_bytes < 8388608'
# (its last write and fsync may wait for the disk behind other tests' data: their longest count)
jqcheck "the slow agent stopped within one interval (+ its last I/O) of the first finisher" "$T/sw.json" \
	'(.client_stats[] | select(.agent == "slow")) as $s | (.iofleet.done.last_done_ns - .iofleet.stonewall_after_ns) < 400000000 + ($s.write.clat_ns.max // 0) + ($s.sync.lat_ns.max // 0)'
check "the live display says who finished first" grep -q "stonewall: agent fast finished first" "$T/sw.log"

# --- degrade alerts and iofleet watch, on a rate-limited soak-like run.
timeout 60 "$IOFLEET" run --coordinator="$CTL" --name=soak --rw=write --bs=64k --size=64m --rate=1m \
	--time_based --runtime=4s --directory="$T/data" --interval=250ms \
	--degrade='bw < 10MiB/s for 3' --degrade='clat_p99 > 1h' \
	--output-format=json --output="$T/soak.json" >"$T/soak.log" 2>&1 &
RUN=$!
wait_line "$T/soak.log" "started on" 30
timeout 30 "$IOFLEET" watch --coordinator="$CTL" --output-format=json --output="$T/watch.json" >"$T/watch.log" 2>&1
check "iofleet watch follows the run to its end" [ $? -eq 0 ]
check "... with live lines" grep -q '^\[ *[0-9]' "$T/watch.log"
check "... and sees the alert" grep -q "ALERT: degrade 'bw < 10MiB/s for 3'" "$T/watch.log"
if [ -n "$METRICS_PORT" ]; then
	curl -s "http://127.0.0.1:$METRICS_PORT/metrics" >"$T/metrics.txt"
	check "/metrics counts the alert" grep -q 'iofleet_alerts_total{rule="bw < 10MiB/s for 3"} 1' "$T/metrics.txt"
else
	fail "the coordinator did not say where /metrics is"
fi
wait "$RUN"
check "the run exits 0" [ $? -eq 0 ]
check "the live display shows the alert" grep -q "ALERT: degrade 'bw < 10MiB/s for 3'" "$T/soak.log"
check "the coordinator logs it" grep -q "ALERT degrade 'bw < 10MiB/s for 3'" "$T/coordinator.log"
jqcheck "the result lists one alert" "$T/soak.json" '[.iofleet.alerts[].rule] == ["bw < 10MiB/s for 3"]'
jqcheck "... and every rule with its count" "$T/soak.json" '[.iofleet.degrade_rules[].fired] == [1, 0]'
check "watch's result is the run's" [ "$(jq -r .iofleet.run_id "$T/watch.json")" = "$(jq -r .iofleet.run_id "$T/soak.json")" ]
"$IOFLEET" watch --coordinator="$CTL" >"$T/nowatch.log" 2>&1
check "watch without a run says so" grep -q "no run in progress" "$T/nowatch.log"
finish
