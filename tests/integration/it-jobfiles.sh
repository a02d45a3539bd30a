#!/usr/bin/env bash
# The job file corpus (tests/jobfiles: fio users' files of every kind) through iofleet as they
# are, shortened by the overrides tests/jobfiles/README.md lists: each runs with status ok and
# sane figures; those PENDING names are refused naming exactly the options it lists. Two agents
# take the files in two lanes, two runs at once on disjoint agents (what issue 12's several runs
# at once allow): the corpus is CI's longest test, and each file's run mostly waits on its clock.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "python3 is not installed"
scratch
cd "$T"
J=${IOFLEET_SRC:-$(dirname "$0")/../..}/tests/jobfiles
[ -d "$J" ] || J=$(dirname "$0")/../jobfiles

keys coordinator lane0 lane1
allow lane0
allow lane1
start_coordinator
start_agent lane0
start_agent lane1
wait_agents 2

# shorten FILE OUT DIR: the file with the corpus overrides applied (README.md there).
shorten() {
	python3 - "$1" "$2" "$3" <<'PY'
import re, sys
src, out, d = sys.argv[1:4]
rules = [
    (r"size", lambda v: "8m"),
    (r"filesize", lambda v: "256k"),
    (r"runtime|timeout", lambda v: "2s"),
    (r"ramp_time", lambda v: "0"),
    (r"startdelay", lambda v: "500ms"),
    (r"ss_dur|steadystate_duration", lambda v: "1"),
    (r"ss_ramp|steadystate_ramp_time", lambda v: "0"),
    (r"nrfiles|nr_files", lambda v: str(min(int(v), 16))),
    (r"numjobs", lambda v: str(min(int(v), 2))),
    (r"directory|opendir", lambda v: d),
    (r"filename", lambda v: "dev.img" if v.startswith("/dev/") else v),
]
lines = []
for line in open(src):
    m = re.match(r"^(\s*)([A-Za-z_]+)(\s*=\s*)(.*?)\s*$", line)
    if m:
        for pat, f in rules:
            if re.fullmatch(pat, m.group(2)):
                line = "%s%s%s%s\n" % (m.group(1), m.group(2), m.group(3), f(m.group(4)))
                break
    lines.append(line)
text = "".join(lines)
# every job works below the test's directory, whatever the file said
if "directory" not in text:
    text = re.sub(r"^\[global\]\s*$", "[global]\ndirectory=%s" % d, text, count=1, flags=re.M)
    if "directory" not in text:
        text = "[global]\ndirectory=%s\n" % d + text
open(out, "w").write(text)
PY
}

files=("$J"/*.fio)
# lane K: runs every other file on agent laneK, keeping each run's exit status beside its log.
lane() {
	local k=$1 i f n d
	for ((i = k; i < ${#files[@]}; i += 2)); do
		f=${files[$i]}
		n=$(basename "$f" .fio)
		d=$T/data/$n
		mkdir -p "$d"
		shorten "$f" "$T/$n.fio" "$d"
		"$IOFLEET" run --coordinator="$CTL" --agents="name=lane$k" --output-format=json \
			--output="$T/$n.json" "$T/$n.fio" >"$T/$n.log" 2>&1
		echo $? >"$T/$n.rc"
	done
}
lane 0 &
lane0=$!
lane 1 &
lane1=$!
wait "$lane0" "$lane1"

ran=0
for f in "${files[@]}"; do
	n=$(basename "$f" .fio)
	rc=$(cat "$T/$n.rc" 2>/dev/null || echo 255)
	pending=$(sed -n "s/^$n\.fio: //p" "$J/PENDING")
	if [ -n "$pending" ]; then
		got=$(grep -o "fio option '[a-z_]*' is not supported\|^iofleet run: [^ ]*.fio:[0-9]*: \[[^]]*\] [a-z_]*:" "$T/$n.log" |
			sed "s/fio option '\([a-z_]*\)'.*/\1/; s/.*\] \([a-z_]*\):/\1/" | sort -u | paste -sd' ')
		want=$(echo "$pending" | tr ' ' '\n' | sort -u | paste -sd' ')
		check "$n: refused (pending: $want), exit 2" [ "$rc" -eq 2 ]
		if [ "$got" = "$want" ]; then ok "$n: the refusal names $want"; else fail "$n: refused '$got', PENDING says '$want'"; fi
		continue
	fi
	ran=$((ran + 1))
	check "$n: runs (exit 0)" [ "$rc" -eq 0 ]
	[ -s "$T/$n.json" ] || { fail "$n: no result (log: $T/$n.log)"; continue; }
	jqcheck "$n: status ok" "$T/$n.json" '.iofleet.status == "ok"'
	jqcheck "$n: no job in error" "$T/$n.json" '[.client_stats[] | .error] | all(. == 0)'
	# Every job moved data (a metadata job counts its operations, create_only moves none) at a
	# finite rate within a sane time.
	jqcheck "$n: each job did its work" "$T/$n.json" \
		'[.client_stats[:-1][] | select((."job options".create_only // "0") != "1")
		  | (.read.io_bytes + .write.io_bytes) > 0 or (.metadata != null)] | all'
	jqcheck "$n: figures finite and runtimes sane" "$T/$n.json" \
		'([.client_stats[] | .read.iops, .write.iops, .job_runtime] | all(. >= 0 and . < 1e12))
		 and ([.client_stats[] | .job_runtime] | max < 120000)'
	# fio's log files (write_*_log): in the run directory, whole, as the result lists them
	if grep -q '^ *write_[a-z]*_log' "$f"; then
		jqcheck "$n: its fio log files are whole" "$T/$n.json" \
			'[.iofleet.logs[].files[]] | (length > 0 and all(.complete) and any(.bytes > 0))'
		rd=$T/runs/$(jq -r .iofleet.run_id "$T/$n.json")
		check "$n: ... in the run directory, the agent's name appended" \
			[ "$(jq '[.iofleet.logs[].files[].file] | length' "$T/$n.json")" -eq "$(ls "$rd" | grep -c '\.log\.lane[01]$')" ]
	fi
done
check "at least 40 job files of the corpus run ($ran)" [ "$ran" -ge 40 ]
finish
