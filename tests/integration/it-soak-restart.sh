#!/usr/bin/env bash
# A soak of several minutes that meets trouble: the coordinator is killed (kill -9) and restarted
# twice, an agent's link is cut once. Nothing is lost (every interval of every agent, each agent's
# bytes its own count, status ok, exit 0) and memory stays flat in every process: each agent over
# the whole run, each life of the coordinator over its own stretch. SOAK_SECONDS sets the length
# (240 by default; 60 in a sanitizer build, where memory says nothing and time costs more).
. "$(dirname "$0")/lib.sh"
command -v jq >/dev/null || skip "jq is not installed"
asan=false
grep -q libasan <<<"$(ldd "$COORD" 2>/dev/null)" && asan=true # not a pipe: pipefail and an early grep exit
SOAK=${SOAK_SECONDS:-$($asan && echo 60 || echo 240)}
scratch
netns_star ios 205 2
keys coordinator s1 s2
allow s1
allow s2
NS=$C AGENT_EP=tcp://*:17490 start_coordinator
for i in 1 2; do
	NS=${HOST_NS[i]} AGENT_COORD=tcp://10.205.$i.1:17490 start_agent "s$i"
	APID[$i]=$LAST_PID
done
wait_agents 2
rss() { awk '/^VmRSS/ {print $2}' "/proc/$1/status" 2>/dev/null; }

# The events, in seconds after the start: two coordinator restarts, one link cut.
if [ "$SOAK" -ge 200 ]; then
	K1=40 D1=5 CUT=90 CUTLEN=20 K2=150 D2=14
else
	K1=$((SOAK / 4)) D1=3 CUT=$((SOAK / 2)) CUTLEN=8 K2=$((SOAK * 3 / 4)) D2=12
fi
IV=200 # ms
N=$((SOAK * 1000 / IV))
"$IOFLEET" run --coordinator="$CTL" --interval=${IV}ms --orphan-grace=120s --name=soak \
	--ioengine=null --rw=randread --bs=4k --rate_iops=1000 --time_based --runtime=${SOAK}s \
	--output-format=json --output="$T/soak.json" >"$T/soak.log" 2>&1 &
RUN=$!
wait_line "$T/soak.log" "started on" 30 || fail "the soak did not start"
t0=$(date +%s)
at() { while [ $(($(date +%s) - t0)) -lt "$1" ]; do sample; sleep 1; done; }
# Memory: every agent from 20 s on; each coordinator life from 15 s into it on; until the end.
declare -A early peak
life=1 life_t0=$t0
sample() {
	local now=$(($(date +%s) - t0)) k r
	# The run's own span only: writing the result at its end is no growth of the soak.
	[ "$now" -lt $((SOAK - 2)) ] || return 0
	for i in 1 2; do
		k=s$i r=$(rss "${APID[$i]}")
		[ -n "$r" ] || continue
		if [ "$now" -ge 20 ] && [ -z "${early[$k]:-}" ]; then early[$k]=$r peak[$k]=$r; fi
		[ -n "${early[$k]:-}" ] && [ "$r" -gt "${peak[$k]}" ] && peak[$k]=$r
	done
	k=coordinator$life r=$(rss "$COORD_PID")
	[ -n "$r" ] || return 0
	if [ $(($(date +%s) - life_t0)) -ge 15 ] && [ -z "${early[$k]:-}" ]; then early[$k]=$r peak[$k]=$r; fi
	[ -n "${early[$k]:-}" ] && [ "$r" -gt "${peak[$k]}" ] && peak[$k]=$r
	return 0
}
restart_after() { # SECONDS_DOWN
	kill_coordinator
	local down=$(date +%s)
	while [ $(($(date +%s) - down)) -lt "$1" ]; do sleep 0.2; done
	NS=$C AGENT_EP=tcp://*:17490 restart_coordinator
	life=$((life + 1))
	life_t0=$(date +%s)
}
at $K1
restart_after $D1
at $CUT
ip -n "${HOST_NS[1]}" link set "${HOST_IF[1]}" down
at $((CUT + CUTLEN))
ip -n "${HOST_NS[1]}" link set "${HOST_IF[1]}" up
at $K2
restart_after $D2
while kill -0 "$RUN" 2>/dev/null; do sample; sleep 1; done
wait "$RUN"
check "the soak exits 0 after two coordinator restarts and a cut link" [ $? -eq 0 ]
J=$T/soak.json
jqcheck "its status is ok" "$J" '.iofleet.status == "ok"'
jqcheck "all $N intervals are there" "$J" "(.iofleet.intervals | length) == $N"
jqcheck "... each with both agents" "$J" '[.iofleet.intervals[] | (.agents | length) == 2] | all'
DIR=$T/runs/$(jq -r .iofleet.run_id "$J")
check "intervals.csv holds $N cluster rows" [ "$(grep -c '^[0-9]*,[0-9.]*,\*,' "$DIR/intervals.csv")" -eq "$N" ]
check "... and $((2 * N)) agent rows" [ "$(grep -vc '^[0-9]*,[0-9.]*,\*,\|^interval' "$DIR/intervals.csv")" -eq $((2 * N)) ]
for a in s1 s2; do
	own=$(own_bytes $a)
	check "$a: its bytes are its own count ($own)" \
		[ -n "$own" ] && [ "$(jq "[.iofleet.agents[] | select(.name == \"$a\") | .interval_read_bytes, .missing_intervals] == [$own, 0]" "$J")" = true ]
done
check "the coordinator took the run up twice" [ "$(grep -c "taken up from its journal" "$T/coordinator.log")" -eq 2 ]
check "the CLI noticed the silence and re-attached" grep -q "re-attached to run" "$T/soak.log"
for k in s1 s2 coordinator1 coordinator2 coordinator3; do
	echo "$k VmRSS: ${early[$k]:-?} kB, at most ${peak[$k]:-?} kB later"
done
if $asan; then
	echo "SKIP (this check only): memory flatness is not measurable in a sanitizer build"
else
	for k in s1 s2 coordinator1 coordinator2 coordinator3; do
		if [ -z "${early[$k]:-}" ]; then
			# Only with a short SOAK_SECONDS: a coordinator life under 15 s.
			echo "SKIP (this check only): $k lived too briefly to measure"
			continue
		fi
		check "$k: memory stays flat (grew $((peak[$k] - early[$k])) kB, allowed 1024)" \
			[ $((peak[$k] - early[$k])) -le 1024 ]
	done
fi
finish
