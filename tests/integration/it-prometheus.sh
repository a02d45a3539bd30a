#!/usr/bin/env bash
# A real Prometheus (Debian's package) scrapes a coordinator every second during a real run of 3
# agents on loopback, with deploy/prometheus/iofleet.rules.yml loaded (windows shortened to fit
# the test); every expression of the rules and of deploy/grafana/iofleet.json returns data
# through Prometheus's HTTP API, and the cluster read bandwidth of the recording rule matches the
# run's result.json within 5 %. A fourth agent, killed before the run, is down: its alert is
# pending and the dashboard's alerts panel has data.
. "$(dirname "$0")/lib.sh"
command -v prometheus >/dev/null || skip "prometheus is not installed (Debian package prometheus)"
command -v curl >/dev/null || skip "curl is not installed"
python3 -c 'import yaml' 2>/dev/null || skip "python3-yaml is not installed"
SRC=$(cd "$(dirname "$0")/../.." && pwd)
scratch
cd "$T"

keys coordinator a0 a1 a2 a3
for a in a0 a1 a2 a3; do allow $a; done
start_coordinator --metrics-listen=127.0.0.1:0
MPORT=$(sed -n 's/.*metrics: GET \/metrics on .*, port \([0-9]*\).*/\1/p' "$T/coordinator.log" | head -n1)
check "the coordinator announces its metrics port" [ -n "$MPORT" ]
for a in a0 a1 a2 a3; do
	start_agent $a
	[ $a = a3 ] && A3_PID=$LAST_PID
done
wait_agents 4

# The rules as shipped, with windows and waits for a 1 s scrape and a test of seconds: rates over
# 12 s (48 counter steps of the run's 250 ms intervals: within 2.5 %), the drop's average over
# 30 s, alerts pending after their first evaluation.
sed -e 's/\[1m\]/[12s]/g; s/\[5m\]/[10s]/g; s/\[10m\]/[30s]/g; s/for: [0-9]*m/for: 5m/' \
	"$SRC/deploy/prometheus/iofleet.rules.yml" >"$T/iofleet.rules.yml"
check "promtool accepts the test's copy of the rules" promtool check rules "$T/iofleet.rules.yml"

# start_prometheus: on a free loopback port (picked, then bound by prometheus: retried if another
# process took it in between); sets PROM.
start_prometheus() {
	local port
	for _ in 1 2 3; do
		port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
		cat >"$T/prometheus.yml" <<-CONF
			global:
			  scrape_interval: 1s
			  evaluation_interval: 1s
			rule_files: [$T/iofleet.rules.yml]
			scrape_configs:
			  - job_name: iofleet
			    static_configs:
			      - targets: ['127.0.0.1:$MPORT']
		CONF
		prometheus --config.file="$T/prometheus.yml" --storage.tsdb.path="$T/prom-data" \
			--web.listen-address="127.0.0.1:$port" >"$T/prometheus.log" 2>&1 &
		PROM_PID=$!
		PIDS+=($PROM_PID)
		PROM=http://127.0.0.1:$port
		local until_s=$((SECONDS + 10))
		while [ "$SECONDS" -lt "$until_s" ]; do
			curl -sf "$PROM/-/ready" >/dev/null 2>&1 && return 0
			kill -0 "$PROM_PID" 2>/dev/null || break
			sleep 0.1
		done
		kill "$PROM_PID" 2>/dev/null
		wait "$PROM_PID" 2>/dev/null
	done
	return 1
}
start_prometheus || { cat "$T/prometheus.log" >&2; fail "prometheus did not start"; finish; }

# q EXPR [TIME]: the first sample's value of an instant query.
q() {
	curl -sf "$PROM/api/v1/query" --data-urlencode "query=$1" ${2:+--data-urlencode "time=$2"} |
		jq -r '.data.result[0].value[1] // empty'
}
scraping() { [ "$(q 'up{job="iofleet"}')" = 1 ]; }
wait_for 10 scraping
check "prometheus scrapes the coordinator" [ "$(q 'up{job="iofleet"}')" = 1 ]

# a3 goes down before the run: its alert is pending from then on.
forget "$A3_PID"
kill -KILL "$A3_PID"
wait "$A3_PID" 2>/dev/null

# Throttled to 16 MiB/s per agent so that the bandwidth is the same at any instant of the run; a
# degrade rule that holds from the first intervals (its alert counter is on the dashboard).
"$IOFLEET" run --coordinator="$CTL" --agents='name=a[012]' --name=r --rw=read --bs=64k --size=8m \
	--degrade='read_bw < 1GiB/s for 2' \
	--rate=16m --time_based --runtime=20s --interval=250ms --directory="$T/data" \
	--output-format=json --output="$T/out.json" >"$T/run.log" 2>&1
check "the run exits 0" [ $? -eq 0 ]
want=$(jq '.client_stats[-1].read.bw_bytes' "$T/out.json" 2>/dev/null)
check "the run measured a read bandwidth ($want B/s)" [ "${want:-0}" -gt 0 ]
start=$(q 'max(max_over_time(iofleet_run_start_time_seconds[2m]))')
check "prometheus kept the run's start time ($start)" [ -n "$start" ]
# 18 s into the 20 s run: the 12 s window holds the run alone (and the rules were evaluated).
into_run() { awk -v s="${start:-0}" -v o="$1" 'BEGIN { printf "%.3f", s + o }'; } # SECONDS
at=$(into_run 18)
rule_evaluated() { [ -n "$(q 'iofleet:bytes:rate1m{direction="read"}' "$at")" ]; }
wait_for 10 rule_evaluated
# Judged at 16, 17 and 18 s, the median of the three: a scrape or an interval late at one
# window's edge (a loaded host) moves one of them by a counter step.
gots=$(for off in 16 17 18; do
	q 'iofleet:bytes:rate1m{direction="read"}' "$(into_run $off)"
done | tr '\n' ' ')
got=$(tr ' ' '\n' <<<"$gots" | grep . | sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }')
curl -sf "$PROM/api/v1/query" --data-urlencode 'query=iofleet_bytes_total{direction="read",agent="a0"}[14s]' \
	--data-urlencode "time=$at" | jq -c '.data.result[0].values' >"$T/counter.json"
echo "the read counter over the window: $(cat "$T/counter.json")"
echo "cluster read bandwidth: result.json $want B/s, Prometheus's recording rule $got B/s (at 16, 17, 18 s: $gots)"
check "Prometheus's cluster read bandwidth is within 5 % of the result's ($got vs $want)" \
	awk -v g="${got:-0}" -v w="${want:-1}" 'BEGIN { d = g / w - 1; exit !(d < 0.05 && d > -0.05) }'
check "the run's degrade rule fired" [ -n "$(q 'iofleet_alerts_total > 0' "$at")" ]
check "the agent down alert is pending for a3" \
	[ "$(q 'count(ALERTS{alertname="IofleetAgentDown",agent="a3"})' "$at")" = 1 ]
check "every expression of the dashboard and the rules returns data during the run" \
	python3 "$SRC/tests/integration/promql-check.py" "$PROM" "$at" "$SRC/deploy/grafana/iofleet.json" \
	"$T/iofleet.rules.yml" 12s

kill "$PROM_PID"
wait "$PROM_PID" 2>/dev/null
finish
