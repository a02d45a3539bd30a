#!/usr/bin/env bash
# iofleet report: real --local runs arranged as a 2x2 sweep (bs x clients) with 2 repeats and one
# failed repeat; the table in text, CSV and Markdown against the per-run JSON, the SVG plots
# well-formed and rendered by a browser, and one-line errors for bad run directories.
. "$(dirname "$0")/lib.sh"
scratch
cd "$T"
command -v jq >/dev/null || skip "jq is not installed"
command -v python3 >/dev/null || skip "python3 is not installed"

S=$T/sweep
mkdir -p "$S"

# run_into DIR CLIENTS OPTION...: a real --local run whose run directory becomes DIR.
# The run's own exit status is it-local-run's business: here a run counts when its result says ok.
run_into() {
	local dir=$1 clients=$2 id rc
	shift 2
	rm -f "$T/last.json"
	"$IOFLEET" run --local="$clients" --insecure --lead=200ms --results-dir="$T/runs" \
		--output-format=json --output="$T/last.json" "$@" >>"$T/runs.log" 2>&1
	rc=$?
	id=$(jq -r 'select(.iofleet.status == "ok") | .iofleet.run_id' "$T/last.json" 2>/dev/null)
	if [ -z "$id" ] || [ ! -d "$T/runs/$id" ]; then
		fail "iofleet run for $dir gave no ok result (exit $rc)"
		return 1
	fi
	[ "$rc" -eq 0 ] || echo "note: iofleet run for $dir exited $rc with an ok result"
	mv "$T/runs/$id" "$dir"
}

points=()
idx=0
for bs in 4k 64k; do
	for c in 1 2; do
		for rep in 0 1; do
			d=$(printf 'point-%03d-r%d' "$idx" "$rep")
			err=""
			if [ "$idx" -eq 3 ] && [ "$rep" -eq 1 ]; then
				err="agent local-1 lost during the run"
			else
				run_into "$S/$d" "$c" --name=a --rw=randrw --bs="$bs" --size=16m \
					--runtime=2s --time_based --directory="$T/data"
			fi
			points+=("$(jq -nc --argjson i "$idx" --argjson r "$rep" --arg bs "$bs" \
				--arg c "$c" --arg d "$d" --arg e "$err" \
				'{index: $i, repeat: $r, params: {bs: $bs, clients: $c}, dir: $d, error: $e}')")
		done
		idx=$((idx + 1))
	done
done
printf '%s\n' "${points[@]}" | jq -s '{sweep_id: "sweep-it", parameters: ["bs", "clients"], points: .}' \
	>"$S/sweep.json"
printf '[server]\nsync = sync\n[sweep]\nbs = 4k, 64k\nclients = 1, 2\nrepeat = 2\n' >"$S/plan.ini"
check "7 real result.json files in the sweep layout" [ "$(ls "$S"/point-*/result.json | wc -l)" -eq 7 ]

"$IOFLEET" report "$S" >"$T/report.txt" 2>"$T/report.err"
check "report (text) exits 0" [ $? -eq 0 ]
cat "$T/report.txt"
check "text: the varying parameters and figures are columns" \
	grep -qE '^point +bs +clients +runs ok +read MiB/s med±rsd +write MiB/s med±rsd' "$T/report.txt"
check "text: clat p50 and p99, skew, scaling columns" bash -c \
	"grep -q 'read clat p50 us' '$T/report.txt' && grep -q 'read clat p99 us' '$T/report.txt' &&
	 grep -q 'start skew us' '$T/report.txt' && grep -q 'MiB/s per client' '$T/report.txt' &&
	 grep -q 'efficiency % vs linear' '$T/report.txt'"
check "text: one row per point" [ "$(grep -cE '^ *[0-3]  +(4k|64k) ' "$T/report.txt")" -eq 4 ]
check "text: the failed point is flagged" grep -qE '^ *3  +64k +2 +1/2 .*\[1\]$' "$T/report.txt"
check "text: its footnote says why" \
	grep -qx '\[1\] point 3 repeat 1 (point-003-r1): agent local-1 lost during the run' "$T/report.txt"
check "text: the smallest client count is 100% efficient" grep -qE '^ *0  +4k +1 .* 100\.0 *$' "$T/report.txt"
check "text: no trailing blanks" bash -c "! grep -q ' $' '$T/report.txt'"

"$IOFLEET" report --format=csv --output="$T/report.csv" --no-plots "$S" >/dev/null 2>&1
check "report (csv) exits 0" [ $? -eq 0 ]
check "csv: every row has the header's column count, 4 rows" python3 -c '
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
assert len(rows) == 5, rows
assert all(len(r) == len(rows[0]) for r in rows), [len(r) for r in rows]
' "$T/report.csv"

# csv_get POINT COLUMN: one cell of the CSV (read once, by Python's csv module).
declare -A CSV=()
while IFS=$'\t' read -r key val; do
	CSV[$key]=$val
done < <(python3 -c '
import csv, sys
for i, row in enumerate(csv.DictReader(open(sys.argv[1], newline=""))):
    for col, val in row.items():
        print(f"{i} {col}\t{val}")' "$T/report.csv")
csv_get() {
	printf '%s' "${CSV["$1 $2"]-}"
}
# expect POINT COLUMN JQ: the median over the point's result.json files of the jq figure.
expect() {
	local files=("$S"/$(printf 'point-%03d' "$1")-r*/result.json)
	jq -s "[.[] | select(.iofleet.status == \"ok\") | $2] | sort |
		if length % 2 == 1 then .[length / 2 | floor] else (.[length / 2 - 1] + .[length / 2]) / 2 end" \
		"${files[@]}"
}
# near GOT WANT: equal to the CSV's 3 decimals (awk: no interpreter start per figure).
near() {
	awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; m = b < 0 ? -b : b
		exit !(a != "" && b != "" && d <= 0.0011 + 1e-6 * m) }'
}
ALL='(.client_stats[] | select(.jobname == "All clients"))'
for p in 0 1 2 3; do
	for spec in "read_mib_s_median:$ALL.read.bw_bytes / 1048576" \
		"write_mib_s_median:$ALL.write.bw_bytes / 1048576" \
		"read_iops_median:$ALL.read.iops" \
		"write_iops_median:$ALL.write.iops" \
		"read_clat_p50_us_median:$ALL.read.clat_ns.percentile[\"50.000000\"] / 1000" \
		"write_clat_p99_us_median:$ALL.write.clat_ns.percentile[\"99.000000\"] / 1000" \
		"start_skew_us_median:.iofleet.start_skew_ns / 1000"; do
		col=${spec%%:*}
		want=$(expect "$p" "${spec#*:}")
		got=$(csv_get "$p" "$col")
		check "csv: point $p $col $got = median of the JSON $want" near "$got" "$want"
	done
done
check "csv: the failed point counts 1 of 2 runs" [ "$(csv_get 3 runs_ok)/$(csv_get 3 runs)" = "1/2" ]
check "csv: the failed point's error text" [ "$(csv_get 3 error)" = "repeat 1: agent local-1 lost during the run" ]
check "csv: a lone repeat has no spread" [ -z "$(csv_get 3 read_mib_s_rsd_pct)" ]
# rsd of two repeats: |a - b| / sqrt(2) / mean.
want=$(jq -s "[.[] | $ALL.read.bw_bytes] | ((.[0] - .[1]) | fabs) / (2 | sqrt) / ((.[0] + .[1]) / 2) * 100" \
	"$S"/point-000-r*/result.json)
check "csv: point 0 read rsd = $want" near "$(csv_get 0 read_mib_s_rsd_pct)" "$want"
# Efficiency: per-client total bandwidth at 2 clients against 1 client with the same bs.
for pair in "0 1" "2 3"; do
	set -- $pair
	b1=$(expect "$1" "$ALL.read.bw_bytes + $ALL.write.bw_bytes")
	b2=$(expect "$2" "$ALL.read.bw_bytes + $ALL.write.bw_bytes")
	want=$(awk -v a="$b2" -v b="$b1" 'BEGIN { printf "%.9g", a / 2 / b * 100 }')
	check "csv: point $2 efficiency $want%" near "$(csv_get "$2" efficiency_pct)" "$want"
	want=$(awk -v a="$b2" 'BEGIN { printf "%.9g", a / 2 / 1048576 }')
	check "csv: point $2 per-client MiB/s" near "$(csv_get "$2" per_client_mib_s)" "$want"
done

"$IOFLEET" report --format=md --output="$T/report.md" --no-plots "$S" >/dev/null 2>&1
check "report (md) exits 0" [ $? -eq 0 ]
check "md: a table with a separator row and 4 rows of equal width" python3 -c '
import re, sys
rows = [l for l in open(sys.argv[1]) if l.startswith("|")]
cells = [len(re.split(r"(?<!\\)\|", l.strip())) for l in rows]
assert len(rows) == 6, rows
assert re.fullmatch(r"\|( -{3}:? \|)+\n", rows[1]), rows[1]
assert len(set(cells)) == 1, cells
' "$T/report.md"
check "md: the footnote is a list item" grep -q '^- \[1\] point 3 repeat 1' "$T/report.md"

# Plots: a timeline per run, the scaling curve (clients vary) and bars across points.
check "a timeline per run" [ "$(ls "$S"/plots/timeline-point-*.svg 2>/dev/null | wc -l)" -eq 7 ]
check "scaling.svg and bars.svg" test -f "$S/plots/scaling.svg" -a -f "$S/plots/bars.svg"
for f in "$S"/plots/*.svg; do
	if command -v xmllint >/dev/null; then
		check "$(basename "$f") is well-formed XML" xmllint --noout "$f"
	else
		check "$(basename "$f") is well-formed XML" python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$f"
	fi
done
check "SVGs are standalone (xmlns) with a title" bash -c \
	"grep -q 'xmlns=\"http://www.w3.org/2000/svg\"' '$S/plots/bars.svg' && grep -q '<title>' '$S/plots/scaling.svg'"
check "the timeline has a line per agent and the sum" bash -c \
	"grep -q '>local-1<' '$S/plots/timeline-point-001-r0.svg' && grep -q '>all agents, read+write<' '$S/plots/timeline-point-001-r0.svg'"
check "axes are labelled with units" bash -c \
	"grep -q 'bandwidth (MiB/s)' '$S/plots/bars.svg' && grep -q 'time since the start instant (s)' '$S/plots/timeline-point-000-r0.svg' && grep -q 'efficiency (%)' '$S/plots/scaling.svg'"
check "the timeline has IOPS and latency panels beside the bandwidth" bash -c \
	"grep -q '>I/O operations per second<' '$S/plots/timeline-point-001-r0.svg' && grep -q 'completion latency (' '$S/plots/timeline-point-001-r0.svg' && grep -q '>all agents, clat p99<' '$S/plots/timeline-point-001-r0.svg'"
check "bars: bandwidth and IOPS with read and write stacked, latency p99" bash -c \
	"grep -q '>Bandwidth (read and write stacked)<' '$S/plots/bars.svg' && grep -q '>IOPS (read and write stacked)<' '$S/plots/bars.svg' && grep -q '>read<' '$S/plots/bars.svg' && grep -q 'latency (us)' '$S/plots/bars.svg'"
jqcheck "the result's intervals carry their completion latency" "$S/point-001-r0/result.json" \
	'[.iofleet.intervals[] | select(.read_ios > 0)] | length > 0 and all(.clat_p99_ns >= .clat_p50_ns and .clat_p50_ns > 0)'
"$IOFLEET" report --plots="$T/elsewhere" "$S" >/dev/null 2>&1
check "--plots=DIR puts them there" test -f "$T/elsewhere/bars.svg"

# One run: RUN_DIR/result.json; a metadata job reports files/s.
# At 100 ms intervals, so that its timeline shows the phases (docs/screenshots keeps it).
run_into "$T/meta" 2 --name=m --ioengine=metadata --nrfiles=600 --filesize=4k --interval=100ms \
	--directory="$T/data"
"$IOFLEET" report --format=csv --no-plots "$T/meta" >"$T/meta.csv" 2>/dev/null
check "single run: report exits 0" [ $? -eq 0 ]
want=$(jq '(.client_stats[] | select(.jobname == "All clients") | .metadata) as $m |
	($m.seq_create.ops + $m.rand_create.ops) * 1e9 / ($m.seq_create.elapsed_ns + $m.rand_create.elapsed_ns)' \
	"$T/meta/result.json")
got=$(python3 -c 'import csv, sys; print(list(csv.DictReader(open(sys.argv[1])))[0]["create_files_s_median"])' "$T/meta.csv")
check "metadata: create files/s $got = phases' $want" near "$got" "$want"
"$IOFLEET" report "$T/meta" >"$T/meta.txt" 2>&1
check "metadata: text shows files/s columns" grep -q 'create files/s.*delete files/s' "$T/meta.txt"
check "single run: a timeline plot" test -f "$T/meta/plots/timeline-run.svg"

# The plots as a browser shows them: headless Chromium renders each kind (the timeline with
# bandwidth, IOPS and latency, the metadata timeline, the scaling curve, the bars with read and
# write stacked) at its own size, and the picture is not blank. With IOFLEET_SCREENSHOTS set,
# the scaling, bars and metadata timeline pictures are kept there: docs/screenshots/ is made
# that way (it-web makes the page's and the bandwidth timeline's).
PIL_PY=""
for p in python3 /usr/bin/python3; do
	"$p" -c 'import PIL' 2>/dev/null && { PIL_PY=$p; break; }
done
# pixels PNG: exits 0 when the image holds more than a handful of colours and some non-white.
pixels() {
	"$PIL_PY" - "$1" <<'EOF'
import sys
from PIL import Image
im = Image.open(sys.argv[1]).convert("RGB")
w, h = im.size
colours = im.getcolors(w * h)
ink = w * h - sum(n for n, c in colours if c == (255, 255, 255))
print(f"{len(colours)} colours, {ink} of {w * h} pixels not white")
sys.exit(0 if len(colours) > 8 and ink > w * h // 200 else 1)
EOF
}
if ! command -v chromium >/dev/null; then
	echo "chromium is not installed: skipping the browser rendering check"
elif [ -z "$PIL_PY" ]; then
	echo "python3-pil is not installed: skipping the browser rendering check"
else
	mkdir -p "$T/home"
	[ -z "${IOFLEET_SCREENSHOTS:-}" ] || mkdir -p "$IOFLEET_SCREENSHOTS"
	for spec in "$S/plots/bars.svg:plot-bars.png" "$S/plots/scaling.svg:plot-scaling.png" \
		"$S/plots/timeline-point-001-r0.svg:" "$T/meta/plots/timeline-run.svg:plot-timeline-metadata.png"; do
		f=${spec%%:*} keep=${spec#*:}
		png=$T/$(basename "$(dirname "$(dirname "$f")")")-$(basename "$f" .svg).png
		size=$(sed -n 's/^<svg .* width="\([0-9]*\)" height="\([0-9]*\)".*/\1,\2/p' "$f")
		HOME=$T/home timeout 120 chromium --headless --no-sandbox --disable-gpu --log-level=3 \
			--hide-scrollbars --screenshot="$png" --window-size="${size:-1000,1000}" "file://$f" \
			</dev/null >"$T/chromium.log" 2>&1
		check "chromium renders $(basename "$f") at its size ($size)" test -s "$png" -a -n "$size"
		check "$(basename "$f") is not blank on screen" pixels "$png"
		[ -z "${IOFLEET_SCREENSHOTS:-}" ] || [ -z "$keep" ] || cp "$png" "$IOFLEET_SCREENSHOTS/$keep"
	done
fi

# Bad input: one line naming the file and what is wrong, exit 1, no crash.
bad() {
	local what=$1 dir=$2 pattern=$3 out rc
	out=$("$IOFLEET" report --no-plots "$dir" 2>&1 >/dev/null)
	rc=$?
	if [ "$rc" -eq 1 ] && [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] && printf '%s' "$out" | grep -qE "$pattern"; then
		ok "$what: $out"
	else
		fail "$what: rc $rc, '$out' does not match '$pattern'"
	fi
}
mkdir -p "$T/bad/empty" "$T/bad/trunc" "$T/bad/type" "$T/bad/escape" "$T/bad/single"
bad "no such directory" "$T/bad/none" 'bad/none: No such file or directory'
bad "neither file" "$T/bad/empty" 'empty/result.json: No such file, and no sweep.json beside it'
head -c 200 "$S/sweep.json" >"$T/bad/trunc/sweep.json"
bad "truncated sweep.json" "$T/bad/trunc" 'trunc/sweep.json: line [0-9]+ column [0-9]+: '
echo '{"parameters": "bs", "points": []}' >"$T/bad/type/sweep.json"
bad "parameters of the wrong type" "$T/bad/type" 'type/sweep.json: parameters: wrong type, expected an array'
jq '.points[0].dir = "../../etc"' "$S/sweep.json" >"$T/bad/escape/sweep.json"
bad "a point dir outside the run directory" "$T/bad/escape" 'points\[0\]\.dir: .* is not a directory name inside'
jq 'del(.client_stats)' "$S/point-000-r0/result.json" >"$T/bad/single/result.json"
bad "result.json without client_stats" "$T/bad/single" 'single/result.json: client_stats: missing, expected an array'
# In a sweep, one broken result.json is a failed point, not a failed report.
cp -r "$S" "$T/bad/point"
rm -rf "$T/bad/point/plots"
echo '{"client_stats": [' >"$T/bad/point/point-001-r0/result.json"
"$IOFLEET" report --no-plots "$T/bad/point" >"$T/bad-point.txt" 2>&1
check "a sweep with a broken result.json still reports" [ $? -eq 0 ]
check "and names the file in a footnote" grep -q '(point-001-r0): point-001-r0/result.json: line ' "$T/bad-point.txt"

[ "$failures" -eq 0 ]
