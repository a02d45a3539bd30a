#!/usr/bin/env bash
# Issue 9, log floods: 200 000 bad messages from an allowed key, and a stranger's key retrying
# its handshake, leave a log of a few lines (at most a few per peer and minute, then a count),
# while the coordinator keeps answering the CLI and its agent.
. "$(dirname "$0")/lib.sh"
scratch
keys coordinator a0 noisy stranger
allow a0
allow noisy
start_coordinator
start_agent a0
wait_agents 1
BAD_INPUT_LOGS="$T/coordinator.log" # bad input on purpose
before=$(wc -l <"$T/coordinator.log")

"$ATTACK" garbage --endpoint="$COORD_EP" --server-key="$T/coordinator.pub" --key="$T/noisy.key" \
	--count=200000 >"$T/garbage.out" 2>&1 &
GARBAGE=$!
PIDS+=($GARBAGE)
# A stranger's key: 300 handshakes, all refused by the allow-list.
"$ATTACK" hello --endpoint="$COORD_EP" --server-key="$T/coordinator.pub" --key="$T/stranger.key" \
	--connections=300 --wait=5 >"$T/stranger.out" 2>&1 &
STRANGER=$!
PIDS+=($STRANGER)
answered=0
while kill -0 "$GARBAGE" 2>/dev/null; do
	"$IOFLEET" agents --coordinator="$CTL" --json 2>/dev/null | jq -e '.[] | select(.name == "a0" and .state == "idle")' >/dev/null &&
		answered=$((answered + 1))
	sleep 0.2
done
wait "$GARBAGE"
wait "$STRANGER"
cat "$T/garbage.out" "$T/stranger.out"
check "all 200000 bad messages were sent" grep -q "sent=200000" "$T/garbage.out"
check "the CLI was answered during the flood ($answered times)" [ "$answered" -ge 1 ]
out=$("$IOFLEET" agents --coordinator="$CTL" 2>&1)
check "the coordinator answers after the flood, a0 idle" grep -q "a0 .* idle" <<<"$out"
"$IOFLEET" run --coordinator="$CTL" --name=t --ioengine=null --rw=read --bs=4k --size=1m \
	>"$T/run.log" 2>&1
check "a run works after the flood" [ $? -eq 0 ]

after=$(wc -l <"$T/coordinator.log")
bad=$(grep -c "bad message from agent key 'noisy'" "$T/coordinator.log")
zap=$(grep -c "refused agents connection from 127.0.0.1" "$T/coordinator.log")
echo "log: $((after - before)) lines, $bad about the bad messages, $zap about the stranger"
check "200000 bad messages log a few lines ($bad)" [ "$bad" -ge 1 ] && [ "$bad" -le 5 ]
check "300 refused handshakes log a few lines ($zap)" [ "$zap" -ge 1 ] && [ "$zap" -le 5 ]
check "the whole log stays small ($((after - before)) lines)" [ $((after - before)) -le 40 ]
finish
