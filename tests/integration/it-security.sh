#!/usr/bin/env bash
# CURVE from the first day: an agent whose key is not on the allow-list cannot register, an agent
# pinning the wrong coordinator key does not talk to it, both are logged; --insecure refuses
# non-loopback endpoints; SIGHUP admits a key added to the allow-list.
. "$(dirname "$0")/lib.sh"
scratch
keys coordinator impostor a0 a1 a2
allow a0
allow a1
start_coordinator
start_agent a0
start_agent a2                               # key not on the allow-list (yet)
AGENT_COORD=$COORD_EP start_agent a1 --coordinator-key="$T/impostor.pub"   # pins a wrong key
wait_agents 1
# The refusals are logged within a second or two (on a loaded host later): wait for them, then
# see that nobody else got in meanwhile.
wait_line "$T/coordinator.log" "refused agents connection.*not in the allow-list" 15
wait_line "$T/a2.log" "refused this agent's key" 15
wait_line "$T/a1.log" "cannot reach the coordinator at .*: the CURVE handshake failed" 15
listed=$("$IOFLEET" agents --coordinator="$CTL" --json | jq -r '[.[].name] | sort | join(",")')
check "only the allowed agent registered (got '$listed')" [ "$listed" = "a0" ]
check "coordinator logs the refused key" grep -q "refused agents connection.*not in the allow-list" "$T/coordinator.log"
check "the refused agent logs why" grep -q "refused this agent's key" "$T/a2.log"
check "an agent pinning a wrong key logs a failed handshake" grep -q "cannot reach the coordinator at .*: the CURVE handshake failed" "$T/a1.log"
# Said once, then at a doubling interval: ZeroMQ retries every 0.1-5 s, the log does not.
n2=$(grep -c "refused this agent's key" "$T/a2.log") n1=$(grep -c "the CURVE handshake failed" "$T/a1.log")
check "... each said once, then at backoff ($n2 and $n1 lines in $SECONDS s)" \
	[ "$n2" -ge 1 ] && [ "$n2" -le 5 ] && [ "$n1" -ge 1 ] && [ "$n1" -le 5 ]

# An operator adds the key and reloads: the agent gets in without a restart.
allow a2
kill -HUP "$COORD_PID"
# The refused agent's reconnects back off (ZeroMQ up to 5 s, a fresh socket after 10 s).
wait_agents 2 30 && ok "SIGHUP reloads the allow-list and a2 joins"
check "reload is logged" grep -q "allow-lists reloaded" "$T/coordinator.log"

# A run over CURVE on loopback works end to end.
"$IOFLEET" run --coordinator="$CTL" --agents=name=a0 --name=n --ioengine=null --rw=read --bs=4k \
	--size=1m --output-format=json --output="$T/out.json" >"$T/run.log" 2>&1
check "a run over CURVE succeeds" [ $? -eq 0 ]
jqcheck "only the selected agent ran" "$T/out.json" '(.client_stats | length) == 2 and .client_stats[0].agent == "a0"'

# An allowed key cannot take over another agent's identity (a cloned state directory, or an
# attacker holding some allowed key): the live agent keeps its session.
keys a3
allow a3
reloads=$(grep -c "allow-lists reloaded" "$T/coordinator.log")
kill -HUP "$COORD_PID"
reloaded() { [ "$(grep -c "allow-lists reloaded" "$T/coordinator.log")" -gt "$reloads" ]; }
wait_for 15 reloaded
mkdir -p "$T/state-thief"
cp "$T/state-a0/agent-id" "$T/state-thief/agent-id"
start_agent thief --key="$T/a3.key" --state-dir="$T/state-thief"
wait_line "$T/coordinator.log" "refused agent '[^']*' .*agent key 'a3'" 15
wait_line "$T/thief.log" "cannot reach the coordinator at .*: it refused this agent" 15
check "a Hello for a live agent's id under another key is refused" \
	grep -q "refused agent '[^']*' .*agent key 'a3'.*agent id $(cat "$T/state-a0/agent-id") belongs to another agent key" "$T/coordinator.log"
listed=$("$IOFLEET" agents --coordinator="$CTL" --json | jq -r '[.[] | "\(.name):\(.state)"] | sort | join(",")')
check "the live agent keeps its session (got '$listed')" [ "$listed" = "a0:idle,a2:idle" ]
check "the refused agent is told why" grep -q "cannot reach the coordinator at .*: it refused this agent: agent id .* belongs to another agent key" "$T/thief.log"
check "the refusal does not say which key holds the id" bash -c "! grep -q \"refused this agent.*'a0'\" '$T/thief.log'"

# --insecure is for loopback only.
out=$("$COORD" --insecure --agent-endpoint=tcp://10.255.255.1:7460 --control-endpoint="ipc://$T/x.sock" 2>&1)
check "insecure coordinator refuses a non-loopback endpoint" grep -q "only allowed on loopback" <<<"$out"
out=$("$AGENT" --insecure --coordinator=tcp://10.255.255.1:7460 --state-dir="$T/s" 2>&1)
check "insecure agent refuses a non-loopback coordinator" grep -q "only allowed with a loopback" <<<"$out"
check "insecure refusals are one line" [ "$(wc -l <<<"$out")" -eq 1 ]
finish
