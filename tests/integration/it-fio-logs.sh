#!/usr/bin/env bash
# fio's log files (issue 10): the same short jobs through fio 3.33 and through iofleet --local=1
# write the same files (fio's names, the agent's name appended as fio's client mode appends the
# host), with the same columns, units, log_offset column and histogram bins, and as many lines
# within the tolerance below; fio2gnuplot (Debian's fio package) reads ours. About 2 s of rate-
# limited I/O for each of fio and iofleet.
#
# Tolerances (fio's own lines come from its helper thread and its I/O threads' clocks):
#  - per-I/O logs of a job paced at rate_iops: lines = I/Os, within 5% of fio's count;
#  - windowed logs (log_avg_msec=500, 2 s): at most one line per direction and window more or
#    fewer than fio's (its helper thread may or may not sample the window the end falls in);
#  - histogram lines (log_hist_msec=250): within 2 per direction;
#  - windowed bw and iops values: the medians within a factor of 2 of fio's (same rate target);
#    latencies: the medians within a factor of 20 (same unit, ns, where us or ms would be 1000x).
. "$(dirname "$0")/lib.sh"
command -v fio >/dev/null || skip "fio is not installed"
command -v python3 >/dev/null || skip "python3 is not installed"
scratch
cd "$T"
D=$T/data
mkdir -p "$D" "$T/fio" "$T/gp"

# Three jobs at once: windowed logs of two clones (per_job_logs: a file each), per-I/O logs
# with log_offset, and a histogram log with per_job_logs=0 (one file for both clones).
JOBS=(--ioengine=libaio --iodepth=2 --bs=4k --size=4m --time_based --runtime=2
	--name=w --rw=randrw --rate_iops=200 --numjobs=2 --write_bw_log=w --write_iops_log=w
	--write_lat_log=w --log_avg_msec=500
	--name=p --rw=randread --rate_iops=200 --write_bw_log=p --write_iops_log=p --write_lat_log=p
	--log_offset=1
	--name=g --rw=randread --rate_iops=200 --numjobs=2 --per_job_logs=0 --write_hist_log=g
	--log_hist_msec=250 --log_hist_coarseness=2 --write_iops_log=g --log_avg_msec=500)

(cd "$T/fio" && fio --directory="$D" "${JOBS[@]}" --output=fio.out) >"$T/fio.log" 2>&1
check "fio ran the jobs" [ $? -eq 0 ]
"$IOFLEET" run --local=1 --results-dir="$T/runs" --directory="$D" "${JOBS[@]}" \
	--output-format=json --output="$T/r.json" >"$T/iofleet.log" 2>&1
check "iofleet ran them (exit 0)" [ $? -eq 0 ]
R=$(ls -d "$T"/runs/*/ | head -n1)
AG=$(jq -r '.iofleet.agents[0].name' "$T/r.json")

# The same files: fio's names, ".AGENT" appended.
want=$(cd "$T/fio" && ls *.log | sort | paste -sd' ')
got=$(cd "$R" && ls *.log."$AG" | sed "s/\.$AG\$//" | sort | paste -sd' ')
check "fio's file names, the agent's appended ($got)" [ "$got" = "$want" ]
check "17 files: w's 5 logs x 2 clones, p's 5, g's histogram and iops" \
	[ "$(echo "$want" | wc -w)" -eq 17 ]
jqcheck "the result lists each file, complete" "$T/r.json" \
	"[.iofleet.logs[0].files[] | .complete] | (length == 17 and all)"

# Each file against fio's (exact parsing in python); latencies against the run's own result.
python3 - "$T/fio" "$R" "$AG" "$T/r.json" >"$T/compare.txt" 2>&1 <<'PY'
import json, os, statistics, sys
fio_dir, our_dir, agent, result = sys.argv[1:5]
jobs = json.load(open(result))["jobs"]
bad = 0
def rows(path):
    return [[int(x) for x in line.strip().split(", ")] for line in open(path)]
def say(ok, what):
    global bad
    print(("ok: " if ok else "FAIL: ") + what)
    bad += 0 if ok else 1
for name in sorted(os.listdir(fio_dir)):
    if not name.endswith(".log"):
        continue
    f, o = rows(os.path.join(fio_dir, name)), rows(os.path.join(our_dir, name + "." + agent))
    job, kind = name.split("_", 1)[0], name.split("_", 1)[1].split(".")[0]
    hist, per_io = kind == "clat_hist", job == "p"
    clones = 2 if job == "g" else 1  # per_job_logs=0: both clones' lines in one file
    say(bool(f) == bool(o), f"{name}: lines in both ({len(o)} vs fio's {len(f)})")
    if not f or not o:
        continue
    cols_f, cols_o = {len(r) for r in f}, {len(r) for r in o}
    want = 3 + 1856 // 4 if hist else (6 if per_io else 5)
    say(cols_o == cols_f == {want}, f"{name}: {want} columns as fio's ({cols_o}, {cols_f})"
        + (" with log_offset" if per_io else ""))
    for d in (0, 1):
        nf = sum(1 for r in f if r[1 if hist else 2] == d)
        no = sum(1 for r in o if r[1 if hist else 2] == d)
        tol = max(2, nf * 0.05) if per_io else 2 * clones if hist else clones
        say(abs(no - nf) <= tol, f"{name}: direction {d}: {no} lines, fio {nf} (within {tol})")
    say(all(0 <= r[0] <= 2100 for r in o), f"{name}: times in ms within the 2 s runtime")
    if hist:
        say(all(r[2] == 4096 for r in o), f"{name}: block size column 4096")
        # a line per window of 250 ms: its completions, about 50 at 200 IOPS
        counts = [sum(r[3:]) for r in o]
        say(all(10 <= c <= 150 for c in counts), f"{name}: completions a line {counts[:4]}...")
        continue
    if per_io:
        say(all(r[3] == 4096 for r in o), f"{name}: block size 4096 per I/O")
        say(all(r[4] % 4096 == 0 and r[4] < 4 << 20 for r in o),
            f"{name}: offsets in 4 KiB blocks of the 4 MiB file")
        say(len({r[4] for r in o}) > len(o) // 4, f"{name}: offsets vary (random)")
    else:
        say(all(r[3] == 0 and r[4] == 0 for r in o), f"{name}: windowed: block size and offset 0")
    if kind in ("bw", "iops") and not per_io:
        # the same rate target: KiB/s and IO/s as fio's
        mf, mo = statistics.median(r[1] for r in f), statistics.median(r[1] for r in o)
        say(0.5 <= mo / mf <= 2, f"{name}: median {mo} vs fio's {mf} (KiB/s, IO/s)")
    elif kind == "iops":
        say(all(r[1] == 1 for r in o), f"{name}: 1 per I/O")
    elif kind == "bw":
        # fio's per-I/O bandwidth: bytes * 10^6 / the I/O's clat (ns), line by line
        clat = rows(os.path.join(our_dir, f"p_clat.{name.split('.')[1]}.log.{agent}"))
        say(len(clat) == len(o) and all(b[1] == (4096 * 10**6 // c[1] if c[1] else 0)
                                        for b, c in zip(o, clat)),
            f"{name}: bytes * 10^6 / clat ns of each I/O")
    else:
        # ns: per I/O, the mean is the result's to the nanosecond; windows' means near it
        nth = int(name.split(".")[1]) - (3 if per_io else 1)
        e = [j for j in jobs if j["jobname"] == job][nth]["read"][kind + "_ns"]["mean"]
        m = statistics.mean(r[1] for r in o if r[2] == 0)
        ok = abs(m - e) <= e * 0.001 if per_io else 0.5 <= m / e <= 2
        say(ok, f"{name}: mean of the reads {m:.0f} ns, the result's {e:.0f} ns")
sys.exit(1 if bad else 0)
PY
check "each file as fio's (details: compare.txt)" [ $? -eq 0 ]
sed 's/^/  /' "$T/compare.txt"

# per_job_logs=0: the clones' lines one after another, as fio appends them.
check "g_iops: one file, the two clones' windows in turn (time goes back once)" \
	[ "$(awk -F', ' 'NR > 1 && $1 < last { n++ } { last = $1 } END { print n + 0 }' "$R/g_iops.log.$AG")" -eq 1 ]

# fio2gnuplot reads our bandwidth logs: every value after time 0, the same average as ours.
(cd "$R" && fio2gnuplot -p "w_bw.*.log.$AG" -d "$T/gp/" -k) >"$T/gp.log" 2>&1
check "fio2gnuplot reads w_bw.*.log.$AG" [ $? -eq 0 ]
G=$(ls "$T"/gp/*.global 2>/dev/null | head -n1)
if [ -n "$G" ]; then
	n=$(cat "$R"/w_bw.*.log."$AG" | awk -F', ' '$1 > 0' | wc -l)
	avg=$(cat "$R"/w_bw.*.log."$AG" | awk -F', ' '$1 > 0 { s += $2; n++ } END { printf "%.2f", s / n }')
	check "fio2gnuplot counts our $n values" grep -qx "values_count=$n" "$G"
	check "... and their average, $avg KiB/s" grep -qx "avg=$avg" "$G"
	check "... in 2 files" grep -qx "disks_count=2" "$G"
else
	fail "fio2gnuplot wrote no .global file (log: gp.log)"
fi
# (Debian's fiologparser.py is not tried: it expects fio's old four-column lines and fails on
# fio 3.33's own logs as well.)

# Bad values are refused naming the option, before any run.
"$IOFLEET" run --local=1 --name=x --size=1m --write_bw_log=/tmp/ >"$T/bad.log" 2>&1
check "write_bw_log=/tmp/ refused" [ $? -ne 0 ]
check "... naming the option" grep -q "write_bw_log: '/tmp/' names no file" "$T/bad.log"
"$IOFLEET" run --local=1 --name=x --size=1m --log_hist_coarseness=7 >"$T/bad2.log" 2>&1
check "log_hist_coarseness=7 refused" [ $? -ne 0 ]
check "... saying the range" grep -q "log_hist_coarseness" "$T/bad2.log"
finish
