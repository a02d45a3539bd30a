#!/usr/bin/env bash
# The CLI as operators type it, against a real coordinator and agent: GNU's --opt value beside
# --opt=value, a bare boolean job option that leaves the next argument a job file, '--', one-line
# errors for a job option without '=', a mistyped option and tcp:// without keys; ramp intervals
# marked and not counted; the metadata workload's bonnie++ table.
. "$(dirname "$0")/lib.sh"
scratch
keys coordinator a0
allow a0
start_coordinator
start_agent a0
wait_agents 1

# --opt value for iofleet's own options.
"$IOFLEET" agents --coordinator "$CTL" --json >"$T/agents.json" 2>"$T/agents.err"
jqcheck "agents --coordinator VALUE --json" "$T/agents.json" 'length == 1 and .[0].name == "a0"'

cat >"$T/job.fio" <<JOB
[seq]
rw=read
bs=64k
ioengine=null
runtime=2s
JOB
# A bare boolean job option never takes the job file after it; '--' ends the options.
"$IOFLEET" run --coordinator "$CTL" --output-format json --output "$T/r1.json" --interval 500ms \
	--time_based -- "$T/job.fio" >"$T/run1.log" 2>&1
check "run with --opt value, a bare --time_based before the job file and '--' exits 0" [ $? -eq 0 ]
# (fio lists no option given without a value among "job options": time_based shows as the
# runtime run whole)
jqcheck "the job came from the file, time_based from the command line" "$T/r1.json" \
	'.client_stats[0].jobname == "seq" and .iofleet.interval_ns == 500000000 and (.client_stats[0]["job options"].bs == "64k") and .client_stats[0].job_runtime >= 1900'

# Ramp: ramp_time=1 runtime=2 at 500 ms intervals: two ramp intervals, then [1/4] .. [4/4].
"$IOFLEET" run --coordinator "$CTL" --interval 500ms --name=r --ioengine=null --rw=read --bs=4k \
	--time_based --ramp_time=1 --runtime=2 >"$T/ramp.log" 2>&1
check "ramp run exits 0" [ $? -eq 0 ]
check "ramp intervals are marked" grep -q '^\[ramp 1/2\]' "$T/ramp.log"
check "the counter counts measured intervals and ends at [4/4]" grep -q '^\[ 4/4\]' "$T/ramp.log"
check "... never past the end" bash -c "! grep -qE '^\[ *[5-9]/4\]' '$T/ramp.log'"

# A job option needs '=': the job file after it stays a job file, and the line says so.
"$IOFLEET" run --coordinator "$CTL" --bs "$T/job.fio" >"$T/bs.out" 2>"$T/bs.err"
check "--bs FILE is refused with exit 2" [ $? -eq 2 ]
check "... in one line saying to write --bs=VALUE" bash -c \
	"[ \$(wc -l <'$T/bs.err') -eq 1 ] && grep -q -- '--bs needs a value: --bs=VALUE' '$T/bs.err'"
"$IOFLEET" run --coordinator "$CTL" --loc=2 --name=x >/dev/null 2>"$T/loc.err"
check "--loc: did you mean --local" grep -q "did you mean '--local'" "$T/loc.err"
"$IOFLEET" agents --coordinator "localhost:7461" >/dev/null 2>"$T/scheme.err"
check "an endpoint without a scheme: one line naming the fix" bash -c \
	"[ \$(wc -l <'$T/scheme.err') -eq 1 ] && grep -q 'has no scheme; write tcp://localhost:7461' '$T/scheme.err'"
printf '[cli]\nkey = %s/none.key\ncoordinator_key = %s/coordinator.pub\n' "$T" "$T" >"$T/cli.conf"
"$IOFLEET" agents --config "$T/cli.conf" --coordinator tcp://127.0.0.1:1 >/dev/null 2>"$T/tcp.err"
check "tcp:// without a key pair: one line saying how to make one" bash -c \
	"[ \$(wc -l <'$T/tcp.err') -eq 1 ] && grep -q 'none.key does not exist: make one with' '$T/tcp.err'"
check "help run lists the run options" bash -c "'$IOFLEET' help run | grep -q -- '--results-dir=DIR'"
check "iofleet -h lists the commands" bash -c "'$IOFLEET' -h | grep -q '^  report '"

# The metadata workload prints bonnie++'s table: phases, files/s and latency, per agent.
mkdir -p "$T/md"
"$IOFLEET" run --coordinator "$CTL" --name=md --ioengine=metadata --nrfiles=64 --filesize=0 \
	--directory="$T/md" >"$T/md.log" 2>&1
check "metadata run exits 0" [ $? -eq 0 ]
check "the metadata table has its phases" grep -qE '^ +create +stat +read +delete +create' "$T/md.log"
check "... and a files/s row for the agent" grep -qE '^a0 +files/s +[0-9]' "$T/md.log"
check "... with latencies" grep -qE '^ +lat p99 +[0-9]+(ns|us|ms)' "$T/md.log"
finish
