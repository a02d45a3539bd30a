#!/usr/bin/env bash
# The coordinator's Prometheus /metrics: scraped with curl from a real coordinator and 3 agents,
# idle and during a timed run; checked with promtool and against the fleet it describes.
. "$(dirname "$0")/lib.sh"
command -v curl >/dev/null || skip "curl is not installed"
scratch
cd "$T"

keys coordinator a0 a1 a2
for a in a0 a1 a2; do allow $a; done
start_coordinator --metrics-listen=127.0.0.1:0
PORT=$(sed -n 's/.*metrics: GET \/metrics on .*, port \([0-9]*\).*/\1/p' "$T/coordinator.log" | head -n1)
check "the coordinator announces its metrics port" [ -n "$PORT" ]
URL=http://127.0.0.1:${PORT:-1}/metrics
for a in a0 a1 a2; do start_agent $a; done
wait_agents 3

# value NAME [LABELS]: the value of one series in $T/scrape.txt (LABELS as written, e.g. state="idle").
value() {
	local series=$1${2:+\{$2\}}
	awk -v s="$series" '$1 == s { print $2 }' "$T/scrape.txt" | head -n1
}
# value_of_run NAME: the family's sample for the run in progress (labelled with its run_id).
value_of_run() {
	local rid
	rid=$(sed -n 's/^iofleet_run_info{run_id="\([^"]*\)".*/\1/p' "$T/scrape.txt" | head -n1)
	value "$1" "run_id=\"$rid\""
}

# scrape FILE: GET /metrics into FILE (and scrape.txt); false on an HTTP error.
scrape() {
	curl -sf --max-time 5 "$URL" -o "$1" && cp "$1" "$T/scrape.txt"
}

promcheck() {
	if command -v promtool >/dev/null; then
		check "promtool accepts the $1 scrape" promtool check metrics <"$2"
	else
		echo "promtool not installed (Debian package prometheus): format check of the $1 scrape skipped"
	fi
}

# The snapshot is rendered at most once a second: wait for one that counts 3 agents.
idle_scraped() { scrape "$T/idle.txt" && [ "$(value iofleet_agents_up)" = 3 ]; }
wait_for 10 idle_scraped
check "idle: agents_up is 3" [ "$(value iofleet_agents_up)" = 3 ]
check "idle: 3 idle agents by state" [ "$(value iofleet_agents 'state="idle"')" = 3 ]
check "idle: no run" [ "$(value iofleet_run_active)" = 0 ]
promcheck idle "$T/idle.txt"
check "POST is refused with 405" [ "$(curl -s -o /dev/null -w '%{http_code}' -X POST "$URL")" = 405 ]
check "another path is 404" [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/nothing")" = 404 ]

"$IOFLEET" run --coordinator="$CTL" --name=r --rw=read --bs=64k --size=8m --time_based --runtime=5s \
	--directory="$T/data" --output-format=json --output="$T/out.json" >"$T/run.log" 2>&1 &
RUN_PID=$!

# sum_read FILE: what sum(iofleet_bytes_total{direction="read"}) gives over a scrape.
sum_read() {
	awk '$1 ~ /^iofleet_bytes_total\{.*direction="read"/ { s += $2 } END { printf "%.0f", s }' "$1"
}

# During the run: scrape until a complete interval shows in the agents' read counters and the
# cluster has shown one (counters count an interval when it comes, the index when it is shown);
# bounded by the run itself.
bytes=0
while kill -0 "$RUN_PID" 2>/dev/null; do
	if scrape "$T/running.txt"; then
		bytes=$(sum_read "$T/running.txt")
		[ "$bytes" -gt 0 ] && [ -n "$(value_of_run iofleet_run_interval_index)" ] && break
	fi
	sleep 0.1
done
check "running: the agents' read byte counters grow ($bytes)" [ "$bytes" -gt 0 ]
check "running: no precomputed rate (rate() gives it)" [ "$(grep -c '_per_second\|_iops{' "$T/running.txt")" = 0 ]
check "running: agents_up is still 3" [ "$(value iofleet_agents_up)" = 3 ]
check "running: 3 busy agents" [ "$(value iofleet_agents 'state="busy"')" = 3 ]
check "running: the run is active" [ "$(value iofleet_run_active)" = 1 ]
check "running: run_info names a run" grep -q '^iofleet_run_info{run_id="[^"]\+",phase="running"[,}].* 1$' "$T/running.txt"
check "running: a read byte counter for each agent" \
	[ "$(grep -c '^iofleet_bytes_total{agent="a[012]",host="[^"]*",direction="read"}' "$T/running.txt")" = 3 ]
check "running: a latency histogram for each agent and direction" \
	[ "$(grep -c '^iofleet_clat_seconds_bucket{agent="a[012]",host="[^"]*",direction="\(read\|write\)",le="+Inf"}' "$T/running.txt")" = 6 ]
check "running: run_info labels the run's job" grep -q '^iofleet_run_info{run_id="[^"]*",phase="running",plan="",job="r",rw="read",bs="64k"' "$T/running.txt"
check "running: the interval index is set" [ -n "$(value_of_run iofleet_run_interval_index)" ]
check "running: no agent of the run is away" [ "$(value_of_run iofleet_run_agents_away)" = 0 ]
promcheck running "$T/running.txt"

wait_exit "$RUN_PID" 60
check "the run exits 0" [ $? -eq 0 ]
total=$(jq '.client_stats[-1].read.io_bytes' "$T/out.json" 2>/dev/null)
# After the run: counters hold every byte of it; the next snapshot comes within a second.
after_scraped() {
	scrape "$T/after.txt" && [ "$(value iofleet_run_active)" = 0 ] &&
		[ "$(sum_read "$T/after.txt")" = "$total" ]
}
wait_for 10 after_scraped
check "after: the run is over" [ "$(value iofleet_run_active)" = 0 ]
check "after: the agents' read byte counters add up to the run's total ($total)" \
	test -n "$total" -a "$(sum_read "$T/after.txt")" = "$total"
ios=$(awk '$1 ~ /^iofleet_ios_total\{.*direction="read"/ { s += $2 } END { printf "%.0f", s }' "$T/after.txt")
check "after: the read I/O counters add up to the run's ($ios)" \
	[ "$ios" = "$(jq '.client_stats[-1].read.total_ios' "$T/out.json" 2>/dev/null)" ]
inf=$(awk '$1 ~ /^iofleet_clat_seconds_count\{.*direction="read"/ { s += $2 } END { printf "%.0f", s }' "$T/after.txt")
check "after: the latency histograms count every read I/O ($inf)" [ "$inf" = "$ios" ]
check "after: agents idle again" [ "$(value iofleet_agents 'state="idle"')" = 3 ]
promcheck after "$T/after.txt"
finish
