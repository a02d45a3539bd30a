# Helpers for the tests that run examples/*.plan (it-examples-*.sh); sourced after lib.sh.
#   run_example NAME PLAN [RUN ARGS...]: iofleet run against $CTL, output in $T/NAME.log; checks
#     it exits 0 and names its results; sets RESULT_DIR (the sweep's or the run's directory).
#   report_example NAME DIR POINTS PLAN: iofleet report --format=csv into $T/NAME.csv; checks one
#     row per point, every point ran ok (runs_ok == runs, no error), and that each swept
#     parameter is a column holding, row by row, the values `iofleet run --dry-run PLAN` lists.
#   dry_run_example PLAN POINTS: the plan passes --dry-run and has POINTS points.
#   csvq CSV EXPR: true when the Python expression EXPR holds over rows (a list of dicts, one per
#     CSV row) and head (the header's column names).

csvq() {
	python3 -c '
import csv, sys
with open(sys.argv[1], newline="") as f:
    head = next(csv.reader(f))
with open(sys.argv[1], newline="") as f:
    rows = list(csv.DictReader(f))
num = lambda s: float(s) if s not in ("", None) else float("nan")
sys.exit(0 if eval(sys.argv[2]) else 1)' "$@"
}

run_example() {
	local name=$1 plan=$2 rc
	shift 2
	RESULT_DIR=
	timeout "${EXAMPLE_LIMIT:-200}" "$IOFLEET" run --coordinator="$CTL" "$@" "$plan" >"$T/$name.log" 2>&1
	rc=$?
	grep -E '^iofleet: (point|sweep|run .*: |results in)' "$T/$name.log" | grep -v 'accepted on\|started on'
	check "$name: iofleet run exits 0 (got $rc)" [ "$rc" -eq 0 ]
	RESULT_DIR=$(sed -n 's/^iofleet: sweep .*; results in \([^ ]*\) (iofleet report DIR)$/\1/p' "$T/$name.log")
	[ -n "$RESULT_DIR" ] ||
		RESULT_DIR=$(sed -n 's#^iofleet: results in \(.*\)/ (result.json, intervals.csv)$#\1#p' "$T/$name.log" | tail -n1)
	check "$name: the run names its results directory" test -n "$RESULT_DIR" -a -d "$RESULT_DIR"
}

# The dry run's listing as JSON, one object of parameter -> value per point; a value may hold
# spaces (a tcp_rmem triple), so the line is split at the parameter names the CSV header has.
_dry_points() {
	python3 -c '
import json, re, sys
names = json.loads(sys.argv[2])
pat = re.compile(r"^point (\d+): " + " ".join(re.escape(n) + r"=(.*?)" for n in names) + r"$")
out = []
for line in open(sys.argv[1]):
    m = pat.match(line.rstrip("\n"))
    if m:
        out.append(dict(zip(names, m.groups()[1:])))
print(json.dumps(out))' "$@"
}

report_example() {
	local name=$1 dir=$2 points=$3 plan=$4 csv=$T/$1.csv params
	"$IOFLEET" report --format=csv --no-plots --output="$csv" "$dir" >"$T/$name.report.log" 2>&1
	check "$name: iofleet report --format=csv exits 0" [ $? -eq 0 ]
	"$IOFLEET" report --no-plots "$dir" 2>&1 | sed -n '3,$p'
	check "$name: the table has one row per point ($points)" csvq "$csv" "len(rows) == $points"
	check "$name: every point ran ok, none flagged" csvq "$csv" \
		'all(r["runs"] == r["runs_ok"] and int(r["runs"]) >= 1 and r["error"] == "" for r in rows)'
	if [ -f "$dir/sweep.json" ]; then
		params=$(jq -c '.parameters' "$dir/sweep.json")
		check "$name: sweep.json records every point without an error" jq -e \
			"(.points | length) == $points and all(.points[]; .error == \"\")" "$dir/sweep.json"
		check "$name: every swept parameter is a column" csvq "$csv" \
			"all(p in head for p in $params) and head.index(\"runs\") == 1 + len($params)"
		"$IOFLEET" run --dry-run "$plan" >"$T/$name.dry" 2>&1
		_dry_points "$T/$name.dry" "$params" >"$T/$name.dry.json"
		check "$name: each row's parameters are the dry run's for that point" csvq "$csv" \
			"[{p: r[p] for p in $params} for r in rows] == $(cat "$T/$name.dry.json")"
	fi
}

dry_run_example() {
	local plan=$1 points=$2 out
	out=$("$IOFLEET" run --dry-run "$plan" 2>&1)
	check "$(basename "$plan") passes --dry-run" [ $? -eq 0 ]
	check "$(basename "$plan") has $points point(s)" grep -qE "^plan [^:]+: $points points? x 1 repeat" <<<"$out"
}
