#!/usr/bin/env bash
# The cluster-wide stonewall: a serial group starts on every agent at one instant once every
# agent has ended the group before. Group 0 reads a file that is 1, 4 and 2 MiB long on the three
# agents at 1 MiB/s, so one agent ends it seconds after the others; group 1 (stonewall) starts on
# all three at one instant after that, measured on the host's one clock. Then the slow agent is
# killed in group 0: it is not waited for beyond its lease (no orphan grace), the others go on.
. "$(dirname "$0")/lib.sh"
scratch
keys coordinator a0 a1 a2
for a in a0 a1 a2; do allow $a; done
start_coordinator
declare -A A MIB=([a0]=1 [a1]=4 [a2]=2)
for a in a0 a1 a2; do
	mkdir -p "$T/data-$a"
	head -c $((MIB[$a] << 20)) /dev/urandom >"$T/data-$a/g0.dat"
	start_agent $a --work-dir="$T/data-$a"
done
wait_agents 3
jobs=(--name=g0 --filename=g0.dat --size=100% --rw=read --bs=64k --rate=1m
	--name=g1 --stonewall --filename=g1.dat --rw=write --bs=4k --size=1m --time_based --runtime=1s)

"$IOFLEET" run --coordinator="$CTL" --output-format=json --output="$T/sync.json" "${jobs[@]}" \
	>"$T/sync.log" 2>&1
check "the run exits 0" [ $? -eq 0 ]
cat "$T/sync.log"
r=$T/sync.json
jq '.iofleet.groups' "$r"
jqcheck "one barrier: group 1, released, every agent in it" "$r" \
	'.iofleet.groups | length == 1 and .[0].group == 1 and .[0].released and (.[0].agents | length) == 3 and .[0].late == 0'
jqcheck "every agent started group 1 at the group's instant" "$r" \
	'.iofleet.groups[0] as $g | all($g.agents[]; .instant_ns == $g.start_ns and .ready and (.late | not) and .start_ns != null)'
jqcheck "the skew is measured on the shared clock" "$r" '.iofleet.groups[0].skew_basis == "shared-clock"'
jqcheck "group 1 started on all three within 20 ms ($(jq .iofleet.groups[0].skew_ns "$r") ns)" "$r" \
	'.iofleet.groups[0].skew_ns < 20000000 and ([.iofleet.groups[0].agents[].host_mono_ns] | max - min) < 20000000'
g0_ms=$(jq '[.client_stats[] | select(.jobname == "g0") | .job_runtime] | max' "$r")
jqcheck "group 1 started after the slowest agent ended group 0 (+$(jq '(.iofleet.groups[0].start_ns - .iofleet.start_ns) / 1e6 | floor' "$r") ms, group 0 took up to $g0_ms ms)" "$r" \
	"(.iofleet.groups[0].start_ns - .iofleet.start_ns) / 1e6 >= $g0_ms"
for a in a0 a1 a2; do
	jqcheck "$a read its whole file in group 0 (${MIB[$a]} MiB) and then ran group 1" "$r" \
		"([.client_stats[] | select(.agent == \"$a\" and .jobname == \"g0\")][0].read.io_bytes == $((MIB[$a] << 20))) and
		 ([.client_stats[] | select(.agent == \"$a\" and .jobname == \"g1\")][0].write.io_bytes > 0)"
done
check "a0 said group 1 was laid out and waited" grep -q "group 1 laid out; waiting" "$T/a0.log"
check "the coordinator logged the barrier" \
	grep -q "ended group 0; group 1 starts on 3 agents" "$T/coordinator.log"

# An agent fails in group 0: a1, the slow one, is killed while a0 waits at the barrier. Without
# an orphan grace it is given up when its lease runs out, and group 1 starts on the others (as
# fio's client mode: each host's exitall/exitall_on_error acts on its own jobs; an agent whose
# part ended, failed or was given up is not waited for).
for a in a0 a1 a2; do A[$a]=$(grep -o '^[0-9]*:'"$a"'$' <(printf '%s\n' "${DAEMONS[@]}") | cut -d: -f1); done
"$IOFLEET" run --coordinator="$CTL" --orphan-grace=0 --on-agent-loss=continue --output-format=json \
	--output="$T/fail.json" "${jobs[@]}" >"$T/fail.log" 2>&1 &
RUN=$!
before=$(grep -c "group 1 laid out; waiting" "$T/a0.log")
group1_waits() { [ "$(grep -c "group 1 laid out; waiting" "$T/a0.log")" -gt "$before" ]; }
wait_for 30 group1_waits
kill -KILL "${A[a1]}"
wait "${A[a1]}" 2>/dev/null
forget "${A[a1]}"
wait_exit $RUN 60
rc=$?
cat "$T/fail.log"
r=$T/fail.json
jq -c '.iofleet.status, .iofleet.groups' "$r"
check "the run ends (exit $rc) with a result" [ -s "$r" ]
jqcheck "the run is partial: a1 was lost" "$r" \
	'.iofleet.status == "partial" and ([.iofleet.agents[] | select(.name == "a1")][0].status == "lost")'
jqcheck "group 1 started on a0 and a2 at one instant, without waiting for a1" "$r" \
	'.iofleet.groups[0] as $g | $g.released and $g.late == 0 and ([$g.agents[] | select(.instant_ns == $g.start_ns) | .name] | sort) == ["a0", "a2"]'
jqcheck "a0 and a2 ran group 1" "$r" \
	'[.client_stats[] | select(.jobname == "g1" and .write.io_bytes > 0) | .agent] | sort == ["a0", "a2"]'
jqcheck "group 1 started before a1 could have read its 4 MiB" "$r" \
	'.iofleet.groups[0].start_ns - .iofleet.start_ns < 3900000000'

finish
