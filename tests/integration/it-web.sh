#!/usr/bin/env bash
# The coordinator's live web page in headless Chromium during a real run of 3 agents: the DOM it
# builds from /api/state shows the run, its bandwidth chart, per-agent bars and the agents table,
# and its figures match /metrics; after the run its counters equal /metrics exactly and past runs
# link to their results and plots. Screenshots of the page and of the run's timeline plot go to
# $IOFLEET_SCREENSHOTS when set (docs/screenshots/ is made that way; it-report makes the other
# plot kinds').
. "$(dirname "$0")/lib.sh"
CHROME=$(command -v chromium || command -v chromium-browser || true)
[ -n "$CHROME" ] || skip "chromium is not installed"
command -v curl >/dev/null || skip "curl is not installed"
scratch
cd "$T"

keys coordinator a0 a1 a2
for a in a0 a1 a2; do allow $a; done
# A lease of 5 s: nothing here is about losing agents, and a sanitizer build beside Chromium on a
# loaded host can go quiet for a second.
start_coordinator --metrics-listen=127.0.0.1:0 --lost-after=25
PORT=$(sed -n 's/.*metrics: GET \/metrics on .*, port \([0-9]*\).*/\1/p' "$T/coordinator.log" | head -n1)
check "the coordinator announces its metrics port" [ -n "$PORT" ]
BASE=http://127.0.0.1:${PORT:-1}
for a in a0 a1 a2; do start_agent $a; done
wait_agents 3

# dom FILE [BUDGET_MS [W,H]]: the page as headless Chromium leaves it after BUDGET_MS of virtual
# time, in a window of W x H (a desktop's by default).
dom() {
	timeout 60 "$CHROME" --headless --no-sandbox --disable-gpu --user-data-dir="$T/chrome" \
		--window-size="${3:-1280,1100}" --virtual-time-budget="${2:-5000}" --dump-dom "$BASE/" \
		>"$1" 2>"$T/chrome.log"
}
# attr FILE SELECTOR-REGEX ATTR: the attribute of the first element whose tag matches.
attr() {
	grep -o "<[^>]*$2[^>]*>" "$1" | head -n1 | sed -n "s/.* $3=\"\([^\"]*\)\".*/\1/p"
}
shot() {
	[ -n "${IOFLEET_SCREENSHOTS:-}" ] || return 0
	mkdir -p "$IOFLEET_SCREENSHOTS"
	timeout 60 "$CHROME" --headless --no-sandbox --disable-gpu --user-data-dir="$T/chrome" \
		--hide-scrollbars --window-size="$3" --virtual-time-budget=4000 \
		--screenshot="$IOFLEET_SCREENSHOTS/$2" "$1" >/dev/null 2>>"$T/chrome.log"
}

"$IOFLEET" run --coordinator="$CTL" --name=web --rw=randrw --bs=16k --size=8m --rate=24m \
	--time_based --runtime=14s --interval=500ms --directory="$T/data" \
	--output-format=json --output="$T/out.json" >"$T/run.log" 2>&1 &
RUN_PID=$!
# Until the page shows the run with a few intervals (bounded by the run's own length).
for _ in $(seq 30); do
	dom "$T/running.html" 3000
	[ "$(attr "$T/running.html" 'id="run"' data-phase)" = running ] &&
		[ "$(attr "$T/running.html" 'id="chart"' data-points)" -ge 4 ] 2>/dev/null && break
	kill -0 "$RUN_PID" 2>/dev/null || break
done
curl -sf "$BASE/metrics" -o "$T/running.txt"
rid=$(sed -n 's/^iofleet_run_info{run_id="\([^"]*\)".*/\1/p' "$T/running.txt" | head -n1)
check "running: the page shows the run /metrics names ($rid)" \
	[ -n "$rid" -a "$(attr "$T/running.html" 'id="run"' data-run-id)" = "$rid" ]
check "running: the page polled /api/state" [ "$(attr "$T/running.html" 'body' data-polls)" -ge 1 ]
check "running: agents up on the page = /metrics" \
	[ "$(attr "$T/running.html" 'id="agents-up"' data-value)" = "$(awk '$1 == "iofleet_agents_up" { print $2 }' "$T/running.txt")" ]
check "running: the bandwidth chart has read and write lines" \
	[ "$(grep -o 'data-series="\(read\|write\)"' "$T/running.html" | wc -l)" = 2 ]
check "running: 3 busy agents in the table" [ "$(grep -o 'data-state="busy"' "$T/running.html" | wc -l)" = 3 ]
check "running: a bar per agent with a read bandwidth > 0" \
	[ "$(grep -o '<div class="row" data-agent="a[012]" data-read-bw="[1-9][0-9.e+]*"' "$T/running.html" | wc -l)" = 3 ]
rbw=$(attr "$T/running.html" 'id="read-bw"' data-value)
shown=$(attr "$T/running.html" 'id="run"' data-intervals)
check "running: on a desktop, two columns within the window's width" \
	[ "$(attr "$T/running.html" body data-columns)/$(attr "$T/running.html" body data-fits)" = 2/1 ]
check "running: a clat p99 is shown" awk -v v="$(attr "$T/running.html" 'id="clat-p99"' data-value)" 'BEGIN { exit !(v > 0) }'
shot "$BASE/" live-page.png 1280,1100
shot "$BASE/" live-page-phone.png 412,1400

wait_exit "$RUN_PID" 60
check "the run exits 0" [ $? -eq 0 ]
# The page's cluster read bandwidth is the last interval it showed, as the result has it: the
# sum of every agent's part, or of those whose part had come when the page looked (a loaded host
# can show an interval at its deadline). Not judged against the rate: a loaded host makes the
# rate limiter catch up.
k=$((${shown:-0} - 1))
jq --argjson k "$k" '.iofleet as $r | $r.intervals[] | select(.index == $k) |
	def sums: if length == 0 then [0] else .[0] as $x | (.[1:] | sums) as $s | $s + [$s[] + $x] end;
	[.agents[].read_bytes] | sums[] | select(. > 0) * 1e9 / $r.interval_ns' "$T/out.json" >"$T/sums.txt" 2>&1
check "running: the cluster read bandwidth shown ($rbw B/s) is interval $k's in the result ($(sort -g "$T/sums.txt" | tail -n1) B/s with every agent)" \
	awk -v b="${rbw:-0}" '{ d = $1 - b; if (d < 0) d = -d; if (b > 0 && d <= 0.001 * $1) m = 1 } END { exit !m }' "$T/sums.txt"
"$IOFLEET" report "$T/runs/$rid" >"$T/report.log" 2>&1
check "iofleet report makes the run's plots" ls "$T/runs/$rid/plots/"*.svg
# After the run: the counters are still; the page's equal /metrics' exactly.
sleep 1
curl -sf "$BASE/metrics" -o "$T/after.txt"
dom "$T/after.html" 12000 412,900 # a phone's width
check "after, on a phone: one column within the window's width" \
	[ "$(attr "$T/after.html" body data-columns)/$(attr "$T/after.html" body data-fits)" = 1/1 ]
for a in a0 a1 a2; do
	m=$(awk -v a="$a" '$1 ~ "^iofleet_bytes_total\\{agent=\"" a "\".*direction=\"read\"" { print $2 }' "$T/after.txt")
	p=$(attr "$T/after.html" "tr data-agent=\"$a\"" data-read-bytes)
	check "after: $a's bytes read on the page ($p) = /metrics ($m)" [ -n "$m" -a "$p" = "$m" ]
done
check "after: past runs link the run's result.json" grep -q "href=\"/results/$rid/result.json\"" "$T/after.html"
check "after: and its plots" grep -q "href=\"/results/$rid/plots/[^\"]*\.svg\"" "$T/after.html"
check "the result link serves the run's result" \
	[ "$(curl -sf "$BASE/results/$rid/result.json" | jq -r .iofleet.run_id 2>/dev/null)" = "$rid" ]
code() { curl -s -o /dev/null -w '%{http_code}' "$@"; }
check "a path outside results is 404" [ "$(code --path-as-is "$BASE/results/$rid/../../coordinator.key")" = 404 ]
check "a journal is not served" [ "$(code "$BASE/results/$rid/journal")" = 404 ]
check "POST / is 405" [ "$(code -X POST "$BASE/")" = 405 ]
check "a malformed request gets a 4xx" \
	[ "$(printf 'GET /\x01 HTTP/1.1\r\nHost: x\r\n\r\n' | timeout 5 curl -s -o /dev/null -w '%{http_code}' --path-as-is "$BASE/%01")" -lt 500 ]
for f in "$T/runs/$rid/plots/"*.svg; do
	n=$(basename "$f" .svg)
	shot "$BASE/results/$rid/plots/$n.svg" "plot-${n%%-*}.png" 920,1300
done
finish
