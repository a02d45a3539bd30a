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
"$IOFLEET" agents --coordinator="$CTL"
for i in 1 2 3; do
	"$IOFLEET" run --coordinator="$CTL" --name=n --ioengine=null --rw=read --bs=4k --time_based \
		--runtime=1s --output-format=json --output="$T/out$i.json" >"$T/run$i.log" 2>&1
	check "run $i exits 0" [ $? -eq 0 ]
	jqcheck "run $i: skew measured on the shared clock" "$T/out$i.json" '.iofleet.start_skew_basis == "shared-clock"'
	jqcheck "run $i: start skew below 1 ms ($(jq .iofleet.start_skew_ns "$T/out$i.json") ns)" "$T/out$i.json" '.iofleet.start_skew_ns < 1000000'
	jqcheck "run $i: the injected offsets were seen" "$T/out$i.json" \
		'([.iofleet.agents[].clock_offset_ns] | max - min) > 3400000000'
done
check "the agent logs its test hook" grep -q "test hook: this agent's clock reads +2000000000ns off" "$T/a1.log"
finish
