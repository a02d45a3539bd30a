#!/usr/bin/env bash
# Protocol versions: an agent speaking another version gets a clear refusal, logged on both sides,
# and never registers; wire messages that are garbage are refused without harm.
. "$(dirname "$0")/lib.sh"
scratch
keys coordinator a0 a1
allow a0
allow a1
start_coordinator
start_agent a0
start_agent a1 --test-protocol-version=7
wait_agents 1
wait_line "$T/coordinator.log" "refused agent .*protocol version 7" 15
wait_line "$T/a1.log" "cannot reach the coordinator at .*: it refused this agent" 15
listed=$("$IOFLEET" agents --coordinator="$CTL" --json | jq -r '[.[].name] | join(",")')
check "the agent of another version did not register (got '$listed')" [ "$listed" = "a0" ]
check "coordinator logs the refusal" grep -q "refused agent .*protocol version 7, this side speaks 2" "$T/coordinator.log"
check "agent logs the refusal" grep -q "cannot reach the coordinator at .*: it refused this agent: peer speaks protocol version 7" "$T/a1.log"
check "the coordinator is still serving" "$IOFLEET" agents --coordinator="$CTL" >/dev/null
finish
