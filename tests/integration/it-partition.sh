#!/usr/bin/env bash
# Runs that survive the network: four agents, each a host in a network namespace with its own
# link to the coordinator's. During one plan run (every client changes a sysctl of its host; the
# jobs read local files) h1's link goes down for 5 s, h2's for 15 s, h3's for 60 s, and h4 is
# stopped (SIGSTOP) for 10 s. Each keeps running and keeping its intervals, and resends them once
# it is back: result.json and intervals.csv hold every interval of every agent, each agent's bytes
# are its own count, the run is ok (exit 0) with the four agents "rejoined", every host is put
# back, and an agent that cannot reach the coordinator says so once, then at a growing interval.
# fio's bandwidth log of each agent (log_avg_msec=1000), streamed while the run goes, is whole
# in the run directory: a line a second, none lost across the cuts.
. "$(dirname "$0")/lib.sh"
command -v jq >/dev/null || skip "jq is not installed"
scratch
netns_star iopp 204 4
RUNTIME=${PARTITION_RUNTIME:-75}
for i in 1 2 3 4; do
	# A value no plan uses: put back means back to exactly this.
	ip netns exec "${HOST_NS[i]}" sh -c 'echo "4096 87380 3145728" >/proc/sys/net/ipv4/tcp_rmem'
done
rmem() { ip netns exec "${HOST_NS[$1]}" cat /proc/sys/net/ipv4/tcp_rmem; }

keys coordinator h1 h2 h3 h4
for i in 1 2 3 4; do allow "h$i"; done
NS=$C AGENT_EP=tcp://*:17480 start_coordinator
for i in 1 2 3 4; do
	NS=${HOST_NS[i]} AGENT_COORD=tcp://10.204.$i.1:17480 start_agent "h$i"
	PID[$i]=$LAST_PID
done
wait_agents 4
# Files to read: laid out once, read from the page cache (the host's disk is shared by others).
cat >"$T/part.plan" <<EOF
[plan]
name = partition
interval = 1s
orphan_grace = 120s
[client]
count = 4
mount = no
sysctl.net.ipv4.tcp_rmem = 4096 131072 6291456
[r]
ioengine = psync
rw = read
bs = 64k
size = 8m
rate = 4m
time_based
runtime = ${RUNTIME}s
directory = $T/data
write_bw_log = r
log_avg_msec = 1000
EOF
"$IOFLEET" run --coordinator="$CTL" --output-format=json --output="$T/part.json" "$T/part.plan" \
	>"$T/part.log" 2>&1 &
RUN=$!
# The run's own clock: cut once interval 3 is shown.
wait_line "$T/part.log" '^\[ *3/' 60
check "the run got to its third interval" grep -q '^\[ *3/' "$T/part.log"
for i in 1 2 3 4; do
	check "h$i runs with the plan's sysctl" [ "$(rmem $i)" = "$(printf '4096\t131072\t6291456')" ]
done
t0=$(date +%s)
for i in 1 2 3; do ip -n "${HOST_NS[i]}" link set "${HOST_IF[i]}" down; done
kill -STOP "${PID[4]}"
# Each comes back after its own time, measured from the cut (not by counting sleeps).
back() { # I SECONDS
	while [ $(($(date +%s) - t0)) -lt "$2" ]; do sleep 0.2; done
	if [ "$1" = 4 ]; then kill -CONT "${PID[4]}"; else ip -n "${HOST_NS[$1]}" link set "${HOST_IF[$1]}" up; fi
}
back 1 5
back 4 10
back 2 15
back 3 60
wait "$RUN"
check "the run exits 0 (every agent delivered every interval)" [ $? -eq 0 ]
J=$T/part.json
jqcheck "its status is ok" "$J" '.iofleet.status == "ok"'
jqcheck "all $RUNTIME intervals are in result.json" "$J" "(.iofleet.intervals | length) == $RUNTIME"
jqcheck "... each with all four agents" "$J" '[.iofleet.intervals[] | (.agents | length) == 4 and .reported == 4 and (.missing == null)] | all'
jqcheck "the four agents rejoined, none missing an interval" "$J" \
	'[.iofleet.agents[] | .status == "rejoined" and .missing_intervals == 0] | (length == 4 and all)'
jqcheck "each was away about as long as it was cut off" "$J" \
	'[.iofleet.agents[] | {(.name): (.away_ns / 1e9)}] | add | .h1 < 15 and .h2 >= 10 and .h2 < 30 and .h3 >= 55 and .h3 < 80 and .h4 >= 7 and .h4 < 25'
DIR=$(jq -r '.iofleet.run_id' "$J")
CSV=$T/runs/$DIR/intervals.csv
check "intervals.csv holds $RUNTIME cluster rows" [ "$(grep -c '^[0-9]*,[0-9.]*,\*,' "$CSV")" -eq "$RUNTIME" ]
check "... and $((4 * RUNTIME)) agent rows" [ "$(grep -vc '^[0-9]*,[0-9.]*,\*,\|^interval' "$CSV")" -eq $((4 * RUNTIME)) ]
check "... whose cluster rows all say 4 reported" [ "$(grep '^[0-9]*,[0-9.]*,\*,' "$CSV" | awk -F, '$11 != 4' | wc -l)" -eq 0 ]
for i in 1 2 3 4; do
	own=$(sed -n 's/.*finished after [0-9]* intervals: read \([0-9]*\) bytes.*/\1/p' "$T/h$i.log" | tail -n1)
	csv=$(awk -F, -v a="h$i" '$3 == a { s += $4 } END { printf "%.0f", s }' "$CSV")
	check "h$i: its bytes in result.json are its own count ($own)" \
		[ -n "$own" ] && [ "$(jq "[.iofleet.agents[] | select(.name == \"h$i\") | .interval_read_bytes] == [$own]" "$J")" = true ]
	check "h$i: ... in client_stats" [ "$(jq "[.client_stats[] | select(.agent == \"h$i\") | .read.io_bytes] == [$own]" "$J")" = true ]
	check "h$i: ... and in intervals.csv ($csv)" [ "$csv" = "$own" ]
	check "h$i: its host is put back" [ "$(rmem $i)" = "$(printf '4096\t87380\t3145728')" ]
	jqcheck "h$i: the result says so" "$J" "[.iofleet.agents[] | select(.name == \"h$i\") | .effective.restored] == [\"yes\"]"
	check "h$i: it kept no run in its state directory" test -z "$(ls -A "$T/state-h$i/runs" 2>/dev/null)"
	# rate=4m: a line a second at 4096 KiB/s; h4, stopped (SIGSTOP) for 10 s, did no I/O
	# then, and fio writes no line for a second without any
	L=$T/runs/$DIR/r_bw.1.log.h$i
	lines=$(wc -l <"$L" 2>/dev/null || echo 0)
	good=$(awk -F', ' 'NF == 5 && $1 % 1000 == 0 && $1 > last && $1 <= '"$RUNTIME"' * 1000 && $2 > 0 && $3 == 0 { n++ } { last = $1 } END { print n + 0 }' "$L" 2>/dev/null)
	want=$RUNTIME
	[ "$i" = 4 ] && want=$((RUNTIME - 12))
	check "h$i: its bandwidth log holds a line a second ($good good lines of $lines, $want at least)" \
		[ "$good" -eq "$lines" -a "$lines" -ge "$want" -a "$lines" -le "$RUNTIME" ]
	check "h$i: ... at 4096 KiB/s most seconds" \
		[ "$(awk -F', ' '$2 >= 3900 && $2 <= 4300' "$L" | wc -l)" -ge $((want * 3 / 4)) ]
done
jqcheck "every agent's log is complete" "$J" '[.iofleet.logs[].files[].complete] | (length == 4 and all)'
for i in 1 2 3; do
	check "h$i: it carried on without the coordinator" grep -q "the coordinator was lost; carrying on for the orphan grace" "$T/h$i.log"
	check "h$i: it resent what the coordinator missed" grep -q "back with the coordinator after .* resending" "$T/h$i.log"
done
check "the live display showed the missing points as partial" grep -q "PARTIAL: missing" "$T/part.log"
check "and who came back" grep -q "agent h3 rejoined" "$T/part.log"
n=$(grep -c "cannot reach the coordinator at" "$T/h3.log")
check "h3 said it cannot reach the coordinator, with the reason ($n lines in 60 s)" [ "$n" -ge 1 ] && [ "$n" -le 9 ]
check "... and why" grep -q "cannot reach the coordinator at tcp://10.204.3.1:17480: .*\(unreachable\|timed out\|no answer\|refused\)" "$T/h3.log"
finish
