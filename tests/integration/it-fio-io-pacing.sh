#!/usr/bin/env bash
# Issue 10, pacing against fio 3.33 on the same job file (fio-io/pacing.fio), read from the
# timestamps of the I/Os (strace) and from the results: thinktime's stalls (every I/O, every 10,
# with spinning, after 250 ms of I/O), Poisson against linear gaps, minimum rates met and missed,
# latency targets met and missed, max_latency. Timings compare as ratios with wide tolerances:
# the pacing sets them, but this host is shared.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fio-io/lib.sh"
need_tools
scratch

files="think thinkblocks thinkiotime poisson linear ratemin ratemiss latok latmiss maxlat"
for d in fio iof; do
	# shellcheck disable=SC2086
	lay_out "$T/$d" 16m $files
done
run_both "$IOFLEET_SRC/tests/integration/fio-io/pacing.fio"
check "iofleet ran the job file" jq -e '.iofleet.status' "$T/iof.json"

# again_until WHO PRED SECTION...: while "PRED TRACE WHO" fails, WHO's job file runs the sections
# again, alone (at most 3 more times, within 90 s), traced under a new name; leaves the last
# trace's name in AGAIN_TRACE and the reruns in AGAIN_TRIES. Timings the tests beside this one
# blur come apart this way; pacing that is wrong fails every rerun.
again_until() {
	local who=$1 pred=$2 until_s=$((SECONDS + 90)) s args=()
	shift 2
	for s in "$@"; do args+=(--section="$s"); done
	AGAIN_TRACE=$who AGAIN_TRIES=0
	while ! $pred "$AGAIN_TRACE" "$who" && [ $AGAIN_TRIES -lt 3 ] && [ $SECONDS -lt $until_s ]; do
		echo "$who: $pred failed on $AGAIN_TRACE: again"
		AGAIN_TRIES=$((AGAIN_TRIES + 1)) AGAIN_TRACE=again-$1$AGAIN_TRIES-$who
		traced "$who" "$AGAIN_TRACE" pread64 "$T/job-$who.fio" "${args[@]}"
	done
}

# 10 ms stalls: ordinary gaps stay well below 8 ms even on a busy host
cmp_io "thinktime=10ms: every gap a stall" think stall8_share 0.1
iops_in() { python3 "$IOT" stats "$T/$1.trace" "/$2/$3" | jq .iops; } # TRACE WHO FILE
iops_of() { iops_in "$1" "$1" "$2"; }
# a busy host only slows the stalls down: at most 100 I/Os per second, and iofleet no further
# from it than fio (within 30%; beside it-partition iofleet made 63 to fio's 95.5 in CI: it runs
# again alone until it is, as the Poisson jobs below)
check "thinktime=10ms: at most 100 I/Os per second (fio $(iops_of fio think), iofleet $(iops_of iof think))" \
	python3 -c "import sys; sys.exit(0 if $(iops_of iof think) <= 105 and $(iops_of fio think) <= 105 else 1)"
think_close() { python3 -c "import sys; sys.exit(0 if $(iops_in "$1" "$2" think) >= 0.7 * $(iops_of fio think) else 1)"; }
again_until iof think_close think
check "thinktime=10ms: iofleet as close to it as fio ($(iops_in "$AGAIN_TRACE" iof think), after $AGAIN_TRIES more runs)" \
	think_close "$AGAIN_TRACE" iof
# thinktime_blocks=10: the gap after every 10th I/O is the 10 ms stall, in fio's trace and in
# iofleet's; the gaps between are shorter (a loaded host makes some of those long too, so the
# share of all gaps over 8 ms, compared before, drifted beyond 0.05 between the two)
for who in fio iof; do
	blocks=$(python3 "$IOT" periodic "$T/$who.trace" "/$who/thinkblocks" 10 0.0099)
	check "thinktime_blocks=10: $who: the gap after every 10th I/O is a 10 ms stall ($blocks)" \
		jq -e '.long_share >= 0.9 and .others_median < 0.0099' <<<"$blocks"
done
cmp_io "thinktime_iotime=250ms: a 250ms stall after each 250ms of I/O" thinkiotime long_stalls 2
# (1 ms gaps feel a late wakeup more than the 10 ms ones above: the same reruns)
iotime_close() { python3 -c "import sys; sys.exit(0 if $(iops_in "$1" "$2" thinkiotime) >= 0.7 * $(iops_of fio thinkiotime) else 1)"; }
again_until iof iotime_close thinkiotime
check "thinktime_iotime: iofleet's rate as close to rate_iops=1000 as fio's ($(iops_in "$AGAIN_TRACE" iof thinkiotime) to $(iops_of fio thinkiotime), after $AGAIN_TRIES more runs)" \
	iotime_close "$AGAIN_TRACE" iof
# an exponential's gaps vary as much as their mean (CV 1); strace and a busy host add to both
cv_of() { python3 "$IOT" stats "$T/$1.trace" "/$1/$2" | jq .gap_cv; }
check "rate_process=poisson: fio's gaps as spread as their mean (CV $(cv_of fio poisson))" \
	python3 -c "import sys; sys.exit(0 if $(cv_of fio poisson) > 0.7 else 1)"
# (bursts, too many gaps near zero, are caught by the MAD bound below: on a loaded host a few
# gaps stretched by the scheduler raise the CV well above 1, 1.77 seen beside the job file
# corpus, as they do fio's, but leave the MAD where it was)
check "rate_process=poisson: iofleet's too (CV $(cv_of iof poisson))" \
	python3 -c "import sys; sys.exit(0 if $(cv_of iof poisson) > 0.7 else 1)"
cmp_io "rate_process=poisson: 100 IOPS (20%)" poisson iops 20%
cmp_io "rate_process=linear: 100 IOPS (20%)" linear iops 20%
# Poisson against linear by the gaps' median absolute deviation over their median (about 0.7 for
# exponential gaps, near 0 for fixed ones): the CV, compared before, was 1.53 for linear gaps on a
# loaded CI host (a few stalls and the catch-up after them). The tests beside this one can blur
# even that: under ASan beside it-partition, iofleet's linear 10 ms gaps were 3-25 ms apart (MAD
# 0.33) while fio's, traced a moment before, were steady. So the two jobs run again, alone, until
# they come apart (again_until): pacing that did not differ never would.
mad_of() { python3 "$IOT" stats "$T/$1.trace" "/${2%%:*}/${2#*:}" | jq .gap_mad; }
apart() { # TRACE WHO: Poisson spread as an exponential's (not in bursts), linear not
	python3 -c "import sys; sys.exit(0 if 0.45 < $(mad_of "$1" "$2:poisson") < 1.2 and $(mad_of "$1" "$2:linear") < 0.25 else 1)"
}
for who in fio iof; do
	again_until $who apart poisson linear
	check "$who: Poisson gaps spread (MAD/median $(mad_of "$AGAIN_TRACE" $who:poisson)), linear ones do not ($(mad_of "$AGAIN_TRACE" $who:linear)), after $AGAIN_TRIES more runs" \
		apart "$AGAIN_TRACE" $who
done
for j in ratemin latok; do
	check "$j: no error in fio" test "$(fio_job $j .error)" = 0
	check "$j: no error in iofleet" test "$(iof_job $j .error)" = 0
done
# fio: rate_iops_min missed ends the job with EIO; latency and max_latency with ETIMEDOUT
for j in ratemiss:5 latmiss:110 maxlat:110; do
	check "${j%%:*}: fio's error ${j#*:}" test "$(fio_job "${j%%:*}" .error)" = "${j#*:}"
	check "${j%%:*}: iofleet's error ${j#*:}" test "$(iof_job "${j%%:*}" .error)" = "${j#*:}"
done
check "latency_target met: fio settles its depth and ends before the runtime" \
	test "$(fio_job latok .job_runtime)" -lt 3000
check "latency_target met: so does iofleet" test "$(iof_job latok .job_runtime)" -lt 3000
# thinktime_spin: iofleet alone (fio 3.33 hangs on it here); 3 of the 4 ms of each stall spin
lay_out "$T/iof" 16m thinkspin
sed "s|@D@|$T/iof|g" "$IOFLEET_SRC/tests/integration/fio-io/thinkspin.fio" >"$T/spin.fio"
traced iof spin pread64 "$T/spin.fio"
# Every 5th gap (after I/O 5, 10, ...) holds a 4 ms stall; the I/Os between are microseconds,
# or a few milliseconds under a sanitizer, strace and a loaded host (which put the share of all
# gaps over 3 ms at 0.31 and the I/Os at 675 in CI): the stalls are checked where they belong.
spin=$(python3 "$IOT" periodic "$T/spin.trace" /iof/thinkspin 5 0.0039)
echo "thinktime_spin: $spin"
check "thinktime_spin: the gap after every 5th I/O is a stall of 4 ms ($spin)" \
	jq -e '.long_share >= 0.9' <<<"$spin"
check "thinktime_spin: the gaps between are shorter than the stalls" \
	jq -e '.others_median < 0.0039' <<<"$spin"
# 4 ms after every 5 I/Os: at most 2 s / 4 ms * 5 = 2500 I/Os in 2 s, however fast the I/Os
spin_ios=$(jq '[.client_stats[] | select(.jobname == "thinkspin")][0].read.total_ios' "$T/spin.json")
check "thinktime_spin: no more I/Os than the stalls leave room for (got $spin_ios, at most 2500)" \
	test "$spin_ios" -gt 50 -a "$spin_ios" -le 2520
finish
