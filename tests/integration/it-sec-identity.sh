#!/usr/bin/env bash
# Issue 9, identity: an agent is its key. Agents go by their keys' names; the takeover (kill -9
# h1's agent, wait until it is lost, Hello with h1's id and name from key evil) fails, also after
# the coordinator restarted; one key cannot register 1000 or 5000 agents; refusals never say
# another agent's id or which key holds it; SIGHUP drops a removed key's session and forgets its
# lost agent.
. "$(dirname "$0")/lib.sh"
scratch
keys coordinator h1 h2 evil
for k in h1 h2 evil; do allow $k; done
start_coordinator
start_agent h1
H1=$LAST_PID
start_agent h2 --name=storage-7 # calls itself something else
wait_agents 2

hello() {
	"$ATTACK" hello --endpoint="$COORD_EP" --server-key="$T/coordinator.pub" "$@"
}

check "agents are named after their keys" wait_states "h1:idle,h2:idle"
check "an agent calling itself otherwise is told its key's name" \
	grep -q "the coordinator knows this agent as 'h2'" "$T/h2.log"
H1_ID=$(cat "$T/state-h1/agent-id")

# The takeover of issue 9 item 2.
kill -KILL "$H1"
wait "$H1" 2>/dev/null
forget "$H1"
check "h1 is lost after kill -9" wait_states "h1:lost,h2:idle"
out=$(hello --key="$T/evil.key" --id="$H1_ID" --name=h1)
echo "$out"
check "a hello with h1's id and name from key evil is refused" grep -q "welcomed=0 refused=1" <<<"$out"
check "the refusal does not say which key holds the id" bash -c "! grep -q \"'h1'\" <<<'$out'"
check "h1 stays lost, nobody took its name" wait_states "h1:lost,h2:idle"
timeout 120 "$IOFLEET" run --coordinator="$CTL" --agents=name=h1 --name=t --ioengine=null --rw=read --bs=4k \
	--size=1m >"$T/run-lost.log" 2>&1
check "work for h1 goes nowhere while h1 is lost" [ $? -ne 0 ]
check "... and says no agent matches" grep -q "no agent matches" "$T/run-lost.log"

# The real h1 comes back under its key and gets the work.
start_agent h1
H1=$LAST_PID
check "the restarted h1 is admitted" wait_states "h1:idle,h2:idle"
timeout 120 "$IOFLEET" run --coordinator="$CTL" --agents=name=h1 --name=t --ioengine=null --rw=read --bs=4k \
	--size=1m --output-format=json --output="$T/out.json" >"$T/run.log" 2>&1
check "a run for h1 succeeds" [ $? -eq 0 ]
jqcheck "the run went to the real h1" "$T/out.json" \
	"(.client_stats[0].agent == \"h1\") and ([.iofleet.agents[] | select(.id == \"$H1_ID\")] | length == 1)"

# The binding survives a coordinator restart: with h1 away, evil still cannot use its id.
kill -TERM "$H1"
wait "$H1"
forget "$H1"
forget "$COORD_PID"
kill -TERM "$COORD_PID"
wait "$COORD_PID"
check "the coordinator exits 0" [ $? -eq 0 ]
check "the bindings are in the state directory" grep -qx "h1 $H1_ID" "$T/coord-state/agent-keys"
check "... and private to the coordinator" [ "$(stat -c %a "$T/coord-state/agent-keys")" = 600 ]
AGENT_EP=tcp://127.0.0.1:${COORD_EP##*:} start_coordinator
out=$(hello --key="$T/evil.key" --id="$H1_ID" --name=h1)
check "after a restart, h1's id is still refused to evil" grep -q "welcomed=0 refused=1" <<<"$out"
start_agent h1
H1=$LAST_PID
check "h1 and h2 are back" wait_states "h1:idle,h2:idle" 30

# One key, one agent: 1000 then 5000 hellos with new ids and names from key evil.
out=$(hello --key="$T/evil.key" --count=1000 --id=flood --name=flood --wait=20)
echo "$out"
check "1000 hellos from one key register one agent" grep -q "welcomed=1 refused=999" <<<"$out"
check "the refusal does not name the live agent's id" bash -c "! grep -q 'flood-0 ' <<<'$out'"
# Its agent is lost once that connection is gone: the key may move to a new id, once.
check "the key's agent is lost once its connection is gone" wait_states "evil:lost,h1:idle,h2:idle"
out=$(hello --key="$T/evil.key" --count=5000 --id=flood5k --name=flood5k --wait=30)
echo "$out"
check "5000 hellos from that key register one agent" grep -q "welcomed=1 refused=4999" <<<"$out"
n=$(grep -c "refused agent" "$T/coordinator.log")
check "6000 refusals log a few lines ($n)" [ "$n" -le 20 ]
listed=$(agent_states)
check "the key's one agent goes by the key's name" grep -Eq '^evil:(idle|lost),h1:idle,h2:idle$' <<<"$listed" ||
	echo "listed: ${listed:0:300}"

# Keys leave the allow-list: h2's live session is dropped, evil's lost agent forgotten, and
# their bindings go; h2 is refused on reconnecting, and admitted again once its key is back.
check "evil's agent is lost again" wait_states "evil:lost,h1:idle,h2:idle"
rm "$T/agents.d/h2.pub" "$T/agents.d/evil.pub"
kill -HUP "$COORD_PID"
check "SIGHUP drops h2 and forgets evil" wait_states "h1:idle"
check "h2 is told and reconnects" grep -q "coordinator dropped this agent: key 'h2'" "$T/h2.log"
wait_line "$T/h2.log" "refused this agent's key" 10
check "h2's new handshake is refused" grep -q "refused this agent's key" "$T/h2.log"
check "the removed keys' bindings are gone" bash -c "! grep -Eq '^(h2|evil) ' '$T/coord-state/agent-keys'"
check "h1's binding stays" grep -qx "h1 $H1_ID" "$T/coord-state/agent-keys"
allow h2
kill -HUP "$COORD_PID"
check "h2 is admitted again once its key is back" wait_states "h1:idle,h2:idle" 30
finish
