# Shared helpers for the integration tests: scratch space, keys, real daemons, JSON checks.
# Sourced by tests/integration/it-*.sh; ctest sets IOFLEET_BIN, IOFLEET_SRC and NOTIFY_LISTEN.
# No -e: every test asserts with check/jqcheck and reports all failures, not just the first.
set -uo pipefail

: "${IOFLEET_BIN:?IOFLEET_BIN must name the build directory}"
IOFLEET=$IOFLEET_BIN/iofleet
AGENT=$IOFLEET_BIN/iofleet-agent
COORD=$IOFLEET_BIN/iofleet-coordinator
NOTIFY_LISTEN=${NOTIFY_LISTEN:-$IOFLEET_BIN/tests/notify-listen}
ATTACK=${ATTACK:-$IOFLEET_BIN/tests/attack}

PIDS=()    # helpers (notify listeners): stopped at exit
DAEMONS=() # "pid:name" of coordinators and agents: must exit 0 on SIGTERM (ASan leaks count)
NETNS=()
. "$(dirname "${BASH_SOURCE[0]}")/checks.sh"

cleanup() {
	local p
	for p in "${PIDS[@]}"; do
		kill -TERM "$p" 2>/dev/null || true
	done
	for p in "${PIDS[@]}"; do
		wait "$p" 2>/dev/null || true
	done
	for n in "${NETNS[@]}"; do
		ip netns del "$n" 2>/dev/null || true
	done
	if [ "$failures" -ne 0 ] && [ -n "${T:-}" ]; then
		echo "--- logs kept in $T" >&2
		for f in "$T"/*.log; do
			[ -f "$f" ] || continue
			echo "--- $f" >&2
			tail -n 30 "$f" >&2
		done
	elif [ -n "${T:-}" ]; then
		rm -rf "$T"
	fi
}

# scratch: a private directory for this test, removed at exit unless the test failed.
scratch() {
	T=$(mktemp -d "${TMPDIR:-/tmp}/iofleet-it.XXXXXX")
	trap cleanup EXIT
	mkdir -p "$T/agents.d" "$T/admins.d" "$T/runs" "$T/data"
}

# keys NAME...: key pairs in $T (NAME.key, NAME.pub); allow NAME puts NAME.pub on the allow-list.
keys() {
	"$IOFLEET" keygen --dir="$T" "$@" >/dev/null
}

allow() {
	cp "$T/$1.pub" "$T/agents.d/$1.pub"
}

# start_coordinator [EXTRA ARGS...]: starts it with a free loopback port; sets COORD_EP (agents)
# and CTL (control) from what it announces through sd_notify. COORD_WRAP runs it through a
# command (e.g. "prlimit --nofile=256:256").
start_coordinator() {
	local prefix=${NS:+ip netns exec $NS}
	# A coordinator started again must not be taken for ready by its predecessor's messages.
	rm -f "$T/coord.notify" "$T/coord.notify.log"
	"$NOTIFY_LISTEN" "$T/coord.notify" "$T/coord.notify.log" &
	PIDS+=($!)
	wait_for 5 test -S "$T/coord.notify"
	COORD_ARGS=(--control-endpoint="ipc://$T/control.sock" --key="$T/coordinator.key"
		--agent-keys-dir="$T/agents.d" --control-keys-dir="$T/admins.d"
		--results-dir="$T/runs" --state-dir="$T/coord-state" --heartbeat=200ms --lost-after=5
		--metrics-listen=127.0.0.1:0 --enroll-endpoint=off "$@")
	NOTIFY_SOCKET=$T/coord.notify $prefix ${COORD_WRAP:-} "$COORD" --agent-endpoint="${AGENT_EP:-tcp://127.0.0.1:*}" \
		"${COORD_ARGS[@]}" >"$T/coordinator.log" 2>&1 &
	COORD_PID=$!
	PIDS+=($COORD_PID)
	DAEMONS+=("$COORD_PID:coordinator")
	local deadline=$((SECONDS + 20))
	while [ "$SECONDS" -lt "$deadline" ]; do
		grep -q READY=1 "$T/coord.notify.log" 2>/dev/null && break
		kill -0 "$COORD_PID" 2>/dev/null || { cat "$T/coordinator.log" >&2; fail "coordinator died at start"; exit 1; }
		sleep 0.05
	done
	COORD_EP=$(grep -o 'IOFLEET_AGENT_ENDPOINT=[^ ]*' "$T/coord.notify.log" | head -n1 | cut -d= -f2)
	CTL=ipc://$T/control.sock
	[ -n "$COORD_EP" ] || { fail "coordinator announced no endpoint"; exit 1; }
}

# restart_coordinator: starts the coordinator again after it died (kill -9 COORD_PID, forgotten),
# with the same endpoints (its agent port too, so that the agents find it), keys and results; its
# log goes on in $T/coordinator.log. Returns once it is ready again.
restart_coordinator() {
	local prefix=${NS:+ip netns exec $NS} n
	n=$(grep -c READY=1 "$T/coord.notify.log" 2>/dev/null)
	echo "--- restarted" >>"$T/coordinator.log"
	NOTIFY_SOCKET=$T/coord.notify $prefix ${COORD_WRAP:-} "$COORD" --agent-endpoint="${AGENT_EP:-$COORD_EP}" \
		"${COORD_ARGS[@]}" >>"$T/coordinator.log" 2>&1 &
	COORD_PID=$!
	PIDS+=($COORD_PID)
	DAEMONS+=("$COORD_PID:coordinator")
	local deadline=$((SECONDS + 20))
	while [ "$SECONDS" -lt "$deadline" ]; do
		[ "$(grep -c READY=1 "$T/coord.notify.log" 2>/dev/null)" -gt "$n" ] && return 0
		kill -0 "$COORD_PID" 2>/dev/null || { fail "the coordinator died at its restart"; return 1; }
		sleep 0.05
	done
	fail "the restarted coordinator did not get ready"
	return 1
}

# kill_coordinator: kill -9 of the coordinator (a crash), which the test restarts itself.
kill_coordinator() {
	forget "$COORD_PID"
	kill -KILL "$COORD_PID"
	wait "$COORD_PID" 2>/dev/null
}

# netns_star PREFIX NET N: a coordinator namespace ($C) and N host namespaces, each joined to it
# by a veth link of its own: 10.NET.i.1 on the coordinator's side, 10.NET.i.2 on host i's, whose
# end is HOST_IF[i] in namespace HOST_NS[i] (cut it with ip -n NS link set IF down). Skips the
# test where namespaces or veth links cannot be made.
netns_star() {
	local prefix=$1 net=$2 n=$3 i suffix=$$
	[ "$(id -u)" -eq 0 ] || skip "network namespaces need root"
	C=${prefix}c$suffix
	ip netns add "$C" 2>/dev/null || skip "ip netns add is not permitted here"
	NETNS+=("$C")
	ip -n "$C" link set lo up
	HOST_NS=() HOST_IF=()
	for ((i = 1; i <= n; i++)); do
		HOST_NS[i]=$prefix$i-$suffix
		HOST_IF[i]=${prefix}a$i$suffix
		ip netns add "${HOST_NS[i]}" && NETNS+=("${HOST_NS[i]}")
		ip link add "${prefix}c$i$suffix" type veth peer name "${HOST_IF[i]}" ||
			skip "veth links cannot be made here"
		ip link set "${prefix}c$i$suffix" netns "$C"
		ip link set "${HOST_IF[i]}" netns "${HOST_NS[i]}"
		ip -n "$C" addr add "10.$net.$i.1/24" dev "${prefix}c$i$suffix"
		ip -n "${HOST_NS[i]}" addr add "10.$net.$i.2/24" dev "${HOST_IF[i]}"
		ip -n "$C" link set "${prefix}c$i$suffix" up
		ip -n "${HOST_NS[i]}" link set "${HOST_IF[i]}" up
		ip -n "${HOST_NS[i]}" link set lo up
	done
}

# wait_for SECONDS CMD [ARGS...]: until CMD succeeds, tried every 50 ms for at most SECONDS by
# the clock (a loaded host makes each try slower, not the wait shorter); 1 if it never did.
wait_for() {
	local deadline=$((SECONDS + $1))
	shift
	until "$@"; do
		[ "$SECONDS" -lt "$deadline" ] || return 1
		sleep 0.05
	done
}

# wait_line FILE REGEX [SECONDS]: until a line of FILE matches (60 s by default); 1 if none did.
wait_line() {
	wait_for "${3:-60}" grep -qs "$2" "$1"
}

# pid_file_alive FILE: FILE names a process that runs.
pid_file_alive() {
	[ -s "$1" ] && kill -0 "$(cat "$1" 2>/dev/null)" 2>/dev/null
}

# own_bytes NAME [RUN_ID]: the bytes agent NAME's workers read in its last run (or in RUN_ID), by
# its own count (the line it logs when it finishes, or when a restarted agent finds a run it died
# in).
own_bytes() {
	grep "run ${2:-}" "$T/$1.log" |
		sed -n 's/.*\(finished after [0-9]* intervals: read\|[0-9]* intervals: read\) \([0-9]*\) bytes.*/\2/p' |
		tail -n1
}

# start_agent NAME [EXTRA ARGS...]: an agent with key $T/NAME.key; log in $T/NAME.log. It goes by
# the name of its key in agents.d (the coordinator tells it), so it is given none of its own.
# Set NS to run it in a network namespace and AGENT_COORD to override the endpoint.
start_agent() {
	local name=$1
	shift
	local prefix=${NS:+ip netns exec $NS}
	$prefix "$AGENT" --coordinator="${AGENT_COORD:-$COORD_EP}" \
		--coordinator-key="$T/coordinator.pub" --key="$T/$name.key" --state-dir="$T/state-$name" \
		--work-dir="$T/data" --allow-paths="${AGENT_ALLOW:-$T,/var/tmp}" --roles=client "$@" >"$T/$name.log" 2>&1 &
	PIDS+=($!)
	LAST_PID=$!
	DAEMONS+=("$LAST_PID:$name")
}

# wait_agents N [SECONDS]: until the coordinator lists N idle agents (10 s by default).
wait_agents() {
	local n=$1 got=0 deadline=$((SECONDS + ${2:-10}))
	while :; do
		got=$("$IOFLEET" agents --coordinator="$CTL" --json 2>/dev/null | jq '[.[] | select(.state == "idle")] | length' 2>/dev/null || echo 0)
		[ "$got" -ge "$n" ] && return 0
		[ "$SECONDS" -lt "$deadline" ] || break
		sleep 0.05
	done
	fail "only $got of $n agents registered"
	return 1
}

# agent_states: "name:state,..." of the agents the coordinator lists, sorted.
agent_states() {
	"$IOFLEET" agents --coordinator="$CTL" --json 2>/dev/null | jq -r '[.[] | "\(.name):\(.state)"] | sort | join(",")'
}

# wait_states EXPECTED [SECONDS]: until agent_states prints EXPECTED (10 s by default, by the
# clock: a coordinator that does not answer makes each try last the CLI's own timeout).
wait_states() {
	local got="" deadline=$((SECONDS + ${2:-10}))
	while :; do
		got=$(agent_states)
		[ "$got" = "$1" ] && return 0
		[ "$SECONDS" -ge "$deadline" ] && break
		sleep 0.1
	done
	echo "agents: '${got:0:300}', expected '$1'" >&2
	return 1
}

# wait_exit PID [SECONDS]: waits for a child to exit (10 s by default) and returns its status;
# one still running then is killed and 124 returned, so a hung daemon fails a test instead of
# hanging it.
wait_exit() {
	local pid=$1 deadline=$((SECONDS + ${2:-10}))
	while kill -0 "$pid" 2>/dev/null && [ "$SECONDS" -lt "$deadline" ]; do
		sleep 0.05
	done
	if kill -0 "$pid" 2>/dev/null; then
		kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		return 124
	fi
	wait "$pid"
}

# stop_daemons: SIGTERM to every daemon still listed; each must exit 0. Under AddressSanitizer a
# leak or an error makes the exit status non-zero, so this is where the daemons' own health shows.
stop_daemons() {
	local e pid name rc
	for e in "${DAEMONS[@]}"; do
		pid=${e%%:*}
		kill -TERM "$pid" 2>/dev/null || true
	done
	for e in "${DAEMONS[@]}"; do
		pid=${e%%:*} name=${e#*:}
		wait_exit "$pid"
		rc=$?
		[ "$rc" -eq 0 ] || fail "$name exited with status $rc on SIGTERM (log: $T/$name.log)"
	done
	DAEMONS=()
}

# forget PID: the test waits for (or kills) this daemon itself.
forget() {
	local e keep=()
	for e in "${DAEMONS[@]}"; do
		[ "${e%%:*}" = "$1" ] || keep+=("$e")
	done
	DAEMONS=("${keep[@]}")
}

finish() {
	stop_daemons
	# Whatever a test did, daemons must never have sent each other a message the peer refused
	# (BAD_INPUT_LOGS names the logs of daemons a test sent bad input on purpose).
	if grep -l "bad message from" "$T"/*.log 2>/dev/null | grep -vxF -f <(printf '%s\n' ${BAD_INPUT_LOGS:-}) ; then
		fail "a daemon refused a message from its peer (see the logs above)"
	fi
	if [ "$failures" -eq 0 ]; then
		echo "all checks passed"
		exit 0
	fi
	echo "$failures checks failed" >&2
	exit 1
}
