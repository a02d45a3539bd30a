#!/usr/bin/env bash
# Issue 9, connections: raw TCP connections that never authenticate cannot kill the coordinator
# by taking its file descriptors (libzmq aborts when an ipc accept meets EMFILE). With `ulimit -n
# 256` and 300 connections, then `ulimit -n 1024` and 1100: the coordinator survives, `iofleet
# agents` answers, an agent already connected keeps heartbeating and runs a job during the flood,
# a new agent gets in after it; a warning with counts is logged. And 70 idle connections to
# /metrics do not keep a scrape from answering.
. "$(dirname "$0")/lib.sh"
command -v curl >/dev/null || skip "curl is not installed"
scratch
keys coordinator a0 a1 a2 a3
for a in a0 a1 a2 a3; do allow $a; done

# flood NOFILE CONNECTIONS OLD_AGENT NEW_AGENT
flood() {
	local nofile=$1 n=$2 old=$3 new=$4 pid out
	# A 5 s lease: a sanitizer build on a loaded host may stall a second; a flood may not.
	COORD_WRAP="prlimit --nofile=$nofile:$nofile" start_coordinator --handshake-timeout=3s \
		--heartbeat=500ms --lost-after=10
	start_agent "$old"
	wait_agents 1 30
	"$ATTACK" connect --endpoint="$COORD_EP" --count="$n" --hold=10 >"$T/flood-$n.out" &
	pid=$!
	PIDS+=($pid)
	wait_line "$T/flood-$n.out" connected= 10
	echo "$n connections: $(head -n1 "$T/flood-$n.out")"
	check "$n connections at nofile $nofile: the flood is on" grep -q connected= "$T/flood-$n.out"
	check "$n connections: the coordinator lives" kill -0 "$COORD_PID"
	out=$("$IOFLEET" agents --coordinator="$CTL" 2>&1)
	check "$n connections: iofleet agents answers" grep -q "$old .* idle" <<<"$out"
	timeout 120 "$IOFLEET" run --coordinator="$CTL" --agents=name="$old" --name=f --ioengine=null --rw=read \
		--bs=4k --size=4m --time_based --runtime=2s --output-format=json \
		--output="$T/run-$n.json" >"$T/run-$n.log" 2>&1
	check "$n connections: a job runs on the connected agent" [ $? -eq 0 ]
	jqcheck "$n connections: the job ran on $old" "$T/run-$n.json" \
		".client_stats[0].agent == \"$old\" and .client_stats[0].read.io_bytes > 0"
	check "$n connections: $old still heartbeats" wait_states "$old:idle" 10
	wait "$pid"
	check "$n connections: the coordinator survived the flood" kill -0 "$COORD_PID"
	start_agent "$new"
	# The SYN of a connection made while accepting was paused is retried by TCP; the agent
	# makes a fresh attempt every few seconds.
	check "$n connections: a new agent gets in after the flood" wait_states "$old:idle,$new:idle" 60
	check "$n connections: $old never lost its coordinator" bash -c "! grep -q 'coordinator lost' '$T/$old.log'"
	check "$n connections: the coordinator never lost $old" bash -c "! grep -q 'agent $old .* lost' '$T/coordinator.log'"
	check "$n connections: pressure is reported with counts" \
		grep -q "connections under pressure: .* agent connections open (accepting .* file descriptor limit $nofile)" "$T/coordinator.log"
	check "$n connections: accepting paused" grep -Eq "accepting paused [1-9][0-9]* times" "$T/coordinator.log"
	n_warn=$(grep -c "connections under pressure" "$T/coordinator.log")
	check "$n connections: one pressure warning a minute ($n_warn)" [ "$n_warn" -le 2 ]
	stop_daemons
	mv "$T/coordinator.log" "$T/coordinator-$n.txt"
}

flood 256 300 a0 a1
flood 1024 1100 a2 a3

# The control socket (ipc) cannot pause accepting: at its limit the endpoint is re-bound, which
# closes every CLI connection; the CLI works again at once.
start_coordinator --metrics-listen=127.0.0.1:0
"$ATTACK" connect --endpoint="$CTL" --count=400 --hold=5 >"$T/ctl-flood.out" &
pid=$!
PIDS+=($pid)
wait_line "$T/coordinator.log" "control endpoint re-bound [1-9]" 10
check "400 connections to the control socket: it is re-bound" grep -q "control endpoint re-bound [1-9]" "$T/coordinator.log"
check "... and the CLI is answered" "$IOFLEET" agents --coordinator="$CTL"
check "... by a coordinator that lives" kill -0 "$COORD_PID"
wait "$pid"

# /metrics: 70 connections that hold their slot (a request header trickling in, a line a second,
# so no idle timeout closes them), then a scrape. Before, 64 of them took every slot and the
# scrape waited as long as they lasted.
PORT=$(sed -n 's/.*metrics: GET \/metrics on .*, port \([0-9]*\).*/\1/p' "$T/coordinator.log" | head -n1)
idle=()
for _ in $(seq 70); do
	exec {fd}<>/dev/tcp/127.0.0.1/"$PORT" && idle+=("$fd") && printf 'GET /metrics HTTP/1.1\r\n' >&"$fd"
done
check "70 connections to /metrics are open" [ "${#idle[@]}" -eq 70 ]
(
	while :; do
		for fd in "${idle[@]}"; do printf 'X-Slow: 1\r\n' >&"$fd" 2>/dev/null; done
		sleep 1
	done
) &
TRICKLE=$!
PIDS+=($TRICKLE)
sleep 1
check "a scrape answers while they hold their connections" \
	curl -sf --max-time 30 -o "$T/scrape.txt" "http://127.0.0.1:$PORT/metrics"
check "... with the metrics" grep -q "^iofleet_agents_up " "$T/scrape.txt"
kill "$TRICKLE"
wait "$TRICKLE" 2>/dev/null
for fd in "${idle[@]}"; do exec {fd}>&-; done
finish
