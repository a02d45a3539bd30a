#!/usr/bin/env bash
# Failures during a run: an agent killed mid-run is marked lost and the others finish, with what
# it sent kept; a ^C cancels a run cleanly; a job that cannot be prepared fails the run with the
# agent's reason and touches nothing else.
. "$(dirname "$0")/lib.sh"
scratch
keys coordinator a0 a1 a2
for a in a0 a1 a2; do allow $a; done
start_coordinator
start_agent a0
start_agent a1
start_agent a2
A2=$LAST_PID
wait_agents 3

# An agent killed mid-run and never back: the run waits for it for the orphan grace (3 s here),
# then ends without it, never as a silent ok: status partial, exit non-zero, the agent lost with
# its missing intervals listed, and an entry in client_stats from what it reported.
"$IOFLEET" run --coordinator="$CTL" --orphan-grace=3s --name=n --ioengine=null --rw=read --bs=4k \
	--time_based --runtime=4s --output-format=json --output="$T/lost.json" >"$T/lost.log" 2>&1 &
RUN=$!
wait_line "$T/lost.log" "started on" 10
# Killed once its first interval is in (the run's own clock, not a count of sleeps).
wait_line "$T/lost.log" '^\[ 1/4\]' 10
forget "$A2"
kill -KILL "$A2"
wait "$RUN"
check "a run that lost an agent exits non-zero" [ $? -ne 0 ]
J=$T/lost.json
jqcheck "its status is partial" "$J" '.iofleet.status == "partial"'
jqcheck "the lost agent is marked lost" "$J" '[.iofleet.agents[] | select(.name == "a2") | .lost, .status] == [true, "lost"]'
jqcheck "... with the intervals it did not deliver listed" "$J" '[.iofleet.agents[] | select(.name == "a2") | .missing_intervals > 0 and (.gaps | length) >= 1] == [true]'
jqcheck "what it sent before is kept" "$J" '[.iofleet.agents[] | select(.name == "a2") | .interval_read_bytes > 0] == [true]'
jqcheck "every agent that ran has a client_stats entry" "$J" '(.client_stats | length) == 4 and ([.client_stats[:-1][] | .read.io_bytes > 0] | all)'
jqcheck "... the lost one's from its intervals" "$J" '[.client_stats[] | select(.agent == "a2") | .from_intervals] == [true]'
jqcheck "All clients counts what it reported" "$J" '.client_stats[-1].read.io_bytes == ([.client_stats[:-1][].read.io_bytes] | add)'
jqcheck "the intervals it missed name it" "$J" '[.iofleet.intervals[] | select(.missing) | .missing == ["a2"]] | (length >= 1 and all)'
jqcheck "all 4 intervals are there" "$J" '(.iofleet.intervals | length) == 4'
check "the live display said so" grep -q "agent a2 lost" "$T/lost.log"
check "... and showed the partial points" grep -q "PARTIAL: missing a2" "$T/lost.log"
check "the CLI says the run is partial" grep -q "did not complete: partial: agent a2 lost" "$T/lost.log"
"$IOFLEET" report --no-plots "$T/runs/$(jq -r .iofleet.run_id "$J")" >"$T/lost-report.txt" 2>&1
check "iofleet report keeps the partial point, marked (exit $?)" grep -q "PARTIAL: .*a2" "$T/lost-report.txt"

# The same with --on-agent-loss=continue: still partial, said so, but the run passes (exit 0).
start_agent a2
A2=$LAST_PID
wait_agents 3
"$IOFLEET" run --coordinator="$CTL" --orphan-grace=2s --on-agent-loss=continue --name=n \
	--ioengine=null --rw=read --bs=4k --time_based --runtime=4s --output-format=json \
	--output="$T/cont.json" >"$T/cont.log" 2>&1 &
RUN=$!
wait_line "$T/cont.log" '^\[ 1/4\]' 10
forget "$A2"
kill -KILL "$A2"
wait "$RUN"
check "with --on-agent-loss=continue a run that lost an agent exits 0" [ $? -eq 0 ]
jqcheck "... and is still partial" "$T/cont.json" '.iofleet.status == "partial" and ([.iofleet.agents[] | select(.name == "a2") | .status] == ["lost"])'
check "... which the CLI says" grep -q "is PARTIAL (on_agent_loss=continue)" "$T/cont.log"

# ^C cancels: agents stop, the result says cancelled, the CLI exits non-zero.
"$IOFLEET" run --coordinator="$CTL" --agents=name=a0 --name=n --ioengine=null --rw=read --bs=4k \
	--time_based --runtime=60s --output-format=json --output="$T/cancel.json" >"$T/cancel.log" 2>&1 &
RUN=$!
# Once it has run an interval (a loaded host takes seconds to start it).
wait_line "$T/cancel.log" '^\[ *1/' 30
kill -INT "$RUN"
wait "$RUN"
check "a cancelled run exits non-zero" [ $? -ne 0 ]
jqcheck "its result says cancelled" "$T/cancel.json" '.iofleet.status == "cancelled"'
jqcheck "and keeps what ran" "$T/cancel.json" '.client_stats[0].read.io_bytes > 0'
wait_agents 2 && ok "the agents are idle again"

# A job that cannot be prepared: the agent's reason reaches the user.
out=$("$IOFLEET" run --coordinator="$CTL" --name=r --rw=read --bs=4k --size=1m --directory="$T/nonexistent/dir" 2>&1)
check "a missing directory fails the run" [ $? -ne 0 ]
check "with the agent and option named" grep -q "agent a[01]: job r: directory=$T/nonexistent/dir does not exist" <<<"$out"
out=$("$IOFLEET" run --coordinator="$CTL" --name=r --rw=read --bs=4k --size=1m --directory=/srv 2>&1)
check "a directory outside the agents' allow_paths fails the run" [ $? -ne 0 ]
check "... naming the agent, the job, the option and the rule" \
	grep -q "agent a[01]: job r: directory=/srv: job directory '/srv': outside allow_paths" <<<"$out"
out=$("$IOFLEET" run --coordinator="$CTL" --name=r --rw=read --bs=4k --size=1m --filename=/etc/passwd 2>&1)
check "a job file in /etc is refused" grep -q "filename=/etc/passwd: .*/etc and below is never allowed" <<<"$out"
wait_agents 2 && ok "the agents are idle after a failed prepare"
# Jobs keep their own runtimes; a timed job next to a size-bound one still ends.
timeout 60 "$IOFLEET" run --coordinator="$CTL" --agents=name=a0 --ioengine=null --rw=read --bs=4k \
	--name=timed --time_based --runtime=2s --name=sized --size=1m \
	--output-format=json --output="$T/mixed.json" >"$T/mixed.log" 2>&1
check "a run mixing timed and size-bound jobs ends" [ $? -eq 0 ]
jqcheck "the timed job ran its runtime, not the run's whole length" "$T/mixed.json" '[.client_stats[] | select(.jobname == "timed") | .read.runtime > 1000 and .read.runtime < 3000] == [true]'
jqcheck "the size-bound job moved its size" "$T/mixed.json" '[.client_stats[] | select(.jobname == "sized") | .read.io_bytes] == [1048576]'

# An agent told to stop while waiting for a far start instant stops now, and cleanly.
"$IOFLEET" run --coordinator="$CTL" --agents=name=a1 --lead=60s --name=n --ioengine=null \
	--rw=read --bs=4k --size=1m >"$T/lead.log" 2>&1 &
RUN=$!
wait_line "$T/a1.log" "prepared" 5
A1=$(printf '%s\n' "${DAEMONS[@]}" | sed -n 's/:a1$//p')
forget "$A1"
kill -TERM "$A1"
wait_exit "$A1" 10
check "an agent waiting for a start 60 s away exits 0 on SIGTERM at once" [ $? -eq 0 ]
wait_exit "$RUN" 30
check "the run without it reports failure" [ $? -ne 0 ]
finish
