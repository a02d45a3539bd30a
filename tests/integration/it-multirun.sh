#!/usr/bin/env bash
# Several runs at once on disjoint agents: a long run on rack a, a short one on rack b; BUSY only
# for agents already in a run, naming it; runs, agents, watch and /metrics per run. Agents that
# stop cleanly say goodbye (listed gone at once); an agent that cannot reach its coordinator says
# why, once and then at a growing interval.
. "$(dirname "$0")/lib.sh"
command -v jq >/dev/null || skip "jq is not installed"
command -v curl >/dev/null || skip "curl is not installed"
scratch
keys coordinator a1 a2 b1 b2 lone lost1
for a in a1 a2 b1 b2 lone; do allow $a; done
start_coordinator
PORT=$(grep -o 'metrics: GET /metrics on [^,]*, port [0-9]*' "$T/coordinator.log" | grep -o '[0-9]*$')
start_agent a1 --label=rack=a
start_agent a2 --label=rack=a
start_agent b1 --label=rack=b
start_agent b2 --label=rack=b
start_agent lone --label=rack=c
LONE=$LAST_PID
wait_agents 5
JOB=(--ioengine=null --rw=read --bs=4k --rate_iops=500 --time_based)

"$IOFLEET" run --coordinator="$CTL" --agents=rack=a "${JOB[@]}" --name=soak --runtime=14s \
	--output-format=json --output="$T/a.json" >"$T/a.log" 2>&1 &
RUN_A=$!
wait_line "$T/a.log" "started on" 30 || fail "run a did not start"
RA=$(sed -n 's/^iofleet: run \([^ ]*\) accepted.*/\1/p' "$T/a.log")
# (8 s: the checks below, a CLI each, must all see it running on a loaded host under a sanitizer)
"$IOFLEET" run --coordinator="$CTL" --agents=rack=b "${JOB[@]}" --name=bench --runtime=8s \
	--output-format=json --output="$T/b.json" >"$T/b.log" 2>&1 &
RUN_B=$!
wait_line "$T/b.log" "started on" 30 || fail "run b did not start"
RB=$(sed -n 's/^iofleet: run \([^ ]*\) accepted.*/\1/p' "$T/b.log")

out=$("$IOFLEET" run --coordinator="$CTL" --agents=rack=a "${JOB[@]}" --name=x --runtime=1s 2>&1)
check "a run on rack a's agents is refused while they are in a run" [ $? -ne 0 ]
check "... BUSY, naming the run that holds them" grep -q "busy: agent a1 is in run $RA" <<<"$out"
out=$("$IOFLEET" run --coordinator="$CTL" "${JOB[@]}" --name=x --runtime=1s 2>&1)
check "a run on every agent is refused" grep -q "busy:.*is in run" <<<"$out"
"$IOFLEET" runs --coordinator="$CTL" --json >"$T/runs.json"
jqcheck "iofleet runs lists both" "$T/runs.json" "([.[].run_id] | sort) == ([\"$RA\", \"$RB\"] | sort)"
jqcheck "... with their agents" "$T/runs.json" "[.[] | select(.run_id == \"$RA\") | .agents | sort] == [[\"a1\", \"a2\"]]"
"$IOFLEET" agents --coordinator="$CTL" --json >"$T/agents.json"
jqcheck "iofleet agents says which run holds each" "$T/agents.json" \
	"[.[] | {(.name): .run_id}] | add | .a1 == \"$RA\" and .b2 == \"$RB\" and .lone == \"\""
out=$("$IOFLEET" watch --coordinator="$CTL" 2>&1)
check "iofleet watch without a run id is told to name one" grep -q "2 runs in progress; name one" <<<"$out"
curl -sf "http://127.0.0.1:$PORT/metrics" >"$T/metrics.txt"
check "/metrics has both runs" [ "$(grep -c '^iofleet_run_info{' "$T/metrics.txt")" = 2 ]
check "... each with its agents" grep -q "^iofleet_run_agents{run_id=\"$RB\"} 2" "$T/metrics.txt"
check "/metrics counts them active" grep -q '^iofleet_run_active 2' "$T/metrics.txt"
# The lone agent is free for a third run meanwhile.
"$IOFLEET" run --coordinator="$CTL" --agents=rack=c "${JOB[@]}" --name=third --runtime=1s \
	--output-format=json --output="$T/c.json" >"$T/c.log" 2>&1
check "a third run on the free agent runs at the same time" [ $? -eq 0 ]

wait "$RUN_B"
check "run b exits 0" [ $? -eq 0 ]
wait "$RUN_A"
check "run a exits 0" [ $? -eq 0 ]
jqcheck "run a: its own agents, every interval" "$T/a.json" '.iofleet.status == "ok" and ([.iofleet.agents[].name] | sort) == ["a1", "a2"] and (.iofleet.intervals | length) == 14'
jqcheck "run b: its own agents, every interval" "$T/b.json" '.iofleet.status == "ok" and ([.iofleet.agents[].name] | sort) == ["b1", "b2"] and (.iofleet.intervals | length) == 8'
check "each run has its own directory" test -f "$T/runs/$RA/result.json" -a -f "$T/runs/$RB/result.json"
wait_agents 5 && ok "every agent is idle again"

# A clean stop says goodbye: gone at once, not lost after a lease.
forget "$LONE"
kill -TERM "$LONE"
wait_exit "$LONE" 10
check "the stopped agent exits 0" [ $? -eq 0 ]
state=$("$IOFLEET" agents --coordinator="$CTL" --json | jq -r '.[] | select(.name == "lone") | .state')
check "iofleet agents shows it gone at once (state '$state')" [ "$state" = gone ]
check "the coordinator logged the goodbye" grep -q "agent lone said goodbye" "$T/coordinator.log"

# Nobody listens where this agent looks for its coordinator: it says so, with the reason, once
# and then less and less often (not at every reconnect of ZeroMQ).
free_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' 2>/dev/null || echo 1)
AGENT_COORD=tcp://127.0.0.1:$free_port start_agent lost1
t0=$(date +%s)
wait_line "$T/lost1.log" "cannot reach the coordinator" 20
while [ $(($(date +%s) - t0)) -lt 12 ]; do sleep 0.5; done
n=$(grep -c "cannot reach the coordinator at tcp://127.0.0.1:$free_port" "$T/lost1.log")
check "an agent without its coordinator says why ($n lines in 12 s)" [ "$n" -ge 1 ] && [ "$n" -le 5 ]
check "... the reason being the refused connection" grep -q "cannot reach the coordinator at tcp://127.0.0.1:$free_port: Connection refused" "$T/lost1.log"
finish
