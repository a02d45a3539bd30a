# Shared by the it-fio-io-*.sh tests: the same job file run by fio 3.33 and by iofleet (one local
# agent), each under strace on its own copy of the files, and the two compared by what they did.
# Needs fio, strace and python3 (scripts/install-deps.sh installs them); skips (77) without.

IOT=$IOFLEET_SRC/tests/integration/iotrace.py
STRACE_CALLS=pread64,pwrite64,preadv,pwritev,preadv2,pwritev2,read,write,readv,writev,lseek,fallocate,ftruncate

need_tools() {
	local t
	for t in fio strace python3; do
		command -v "$t" >/dev/null || { echo "SKIP: $t not installed"; exit 77; }
	done
	# ptrace may be denied in some containers: strace the simplest program first
	strace -f -qq -o /dev/null true 2>/dev/null || { echo "SKIP: strace cannot trace here"; exit 77; }
}

# lay_out DIR SIZE NAME...: sparse files of SIZE bytes (both tools reuse a file of the right size).
lay_out() {
	local d=$1 size=$2 n
	shift 2
	mkdir -p "$d"
	for n in "$@"; do truncate -s "$size" "$d/$n"; done
}

# traced fio|iof NAME CALLS JOBFILE [OPTION...]: that tool runs JOBFILE (with the options) under
# strace, tracing CALLS: traces in $T/NAME.trace.PID (a file per thread), its JSON in
# $T/NAME.json, its output in $T/NAME.log; returns non-zero when it failed to run.
traced() {
	local tool=$1 name=$2 calls=$3 job=$4
	shift 4
	# -ff: a file per thread, so that concurrent calls never come split in two lines
	if [ "$tool" = fio ]; then
		strace -ff -ttt -y -s0 -qq -e trace="$calls" -o "$T/$name.trace" \
			fio --output-format=json --output="$T/$name.json" "$@" "$job" >"$T/$name.log" 2>&1
	else
		# The local agent's work directory (where its path policy lets it work) is the current one.
		(cd "$T" && strace -ff -ttt -y -s0 -qq -e trace="$calls" -o "$T/$name.trace" \
			"$IOFLEET" run --local=1 --results-dir="$T/runs" --output-format=json \
			--output="$T/$name.json" "$@" "$job" >"$T/$name.log" 2>&1)
	fi
}

# run_both JOBFILE [STRACE CALLS]: fio on $T/fio, iofleet on $T/iof (their job files
# $T/job-{fio,iof}.fio), traced as traced() says under the names fio and iof; returns non-zero
# when either failed to run.
run_both() {
	local job=$1 calls=${2:-$STRACE_CALLS} rc=0
	sed "s|@D@|$T/fio|g" "$job" >"$T/job-fio.fio"
	sed "s|@D@|$T/iof|g" "$job" >"$T/job-iof.fio"
	rm -f "$T"/fio.trace.* "$T"/iof.trace.*
	traced fio fio "$calls" "$T/job-fio.fio" || rc=1
	traced iof iof "$calls" "$T/job-iof.fio" || rc=1
	return $rc
}

# cmp_io WHAT NAME KEY TOL [OP] [BLOCK] [ZONES]: figure KEY of file NAME's I/Os agrees.
cmp_io() {
	local what=$1 name=$2
	shift 2
	check "$what" python3 "$IOT" compare "$T/fio.trace" "/fio/$name" "$T/iof.trace" "/iof/$name" "$@"
}

# same_io WHAT NAME N: the first N I/Os on file NAME are the same offsets and lengths.
same_io() {
	check "$1" python3 "$IOT" same "$T/fio.trace" "/fio/$2" "$T/iof.trace" "/iof/$2" "$3"
}

# fio_job NAME JQ / iof_job NAME JQ: a job's entry of fio's JSON and of iofleet's (client_stats,
# the agent's entry of that job).
fio_job() { jq -r --arg n "$1" ".jobs[] | select(.jobname == \$n) | $2" "$T/fio.json" | head -n1; }
iof_job() { jq -r --arg n "$1" "[.client_stats[] | select(.jobname == \$n)][0] | $2" "$T/iof.json"; }
