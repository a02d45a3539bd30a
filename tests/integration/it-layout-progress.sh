#!/usr/bin/env bash
# Progress while files are laid out (issue 13, item 6): two real agents lay out 120 MiB each,
# paced by the agents' test hook (--test-layout-rate, bytes/s per file) so that it takes about
# five seconds whatever the disk; `iofleet run` shows at least two layout lines whose bytes grow,
# the last at the total, all before the run's first interval; --per-host adds a line per agent.
# A second run over the same files, already there, shows no layout line at all.
. "$(dirname "$0")/lib.sh"
scratch
keys coordinator a0 a1
for a in a0 a1; do allow $a; done
start_coordinator
start_agent a0 --test-layout-rate=25000000
start_agent a1 --test-layout-rate=25000000
wait_agents 2
total=$((2 * 120 * 1024 * 1024))

"$IOFLEET" run --coordinator="$CTL" --per-host --name=lay --rw=read --bs=1m --size=120m \
	--runtime=1s --time_based --interval=1s >"$T/run1.log" 2>&1
check "the run exits 0" [ $? -eq 0 ]
cat "$T/run1.log"
# Lines up to the first interval line (the run's live counter, "[ 1/1]" or "[ramp ...]").
awk '/^\[/ { exit } { print }' "$T/run1.log" >"$T/before.log"
grep '^iofleet: laying out: ' "$T/before.log" >"$T/layout.log"
# Bytes done of each line, in bytes (the line says e.g. "60.0MiB of 240.0MiB").
to_bytes() {
	awk '{ v = $1; u = $1; sub(/[A-Za-z]+$/, "", v); sub(/^[0-9.]+/, "", u);
		m = u == "B" ? 1 : u == "KiB" ? 1024 : u == "MiB" ? 1048576 : u == "GiB" ? 1073741824 : -1;
		printf "%.0f\n", v * m }'
}
sed -n 's/^iofleet: laying out: \([0-9.]*[A-Za-z]*\) of .*/\1/p' "$T/layout.log" | to_bytes >"$T/done.txt"
n=$(wc -l <"$T/done.txt")
check "at least two layout lines before the first interval ($n)" [ "$n" -ge 2 ]
check "the layout's bytes grow from line to line ($(tr '\n' ' ' <"$T/done.txt"))" \
	awk 'NR > 1 && $1 <= prev { exit 1 } { prev = $1 }' "$T/done.txt"
check "every line is of the whole layout (240.0MiB: both agents summed)" \
	awk '!/ of 240\.0MiB \(/ { exit 1 }' "$T/layout.log"
check "the last line is at the total" grep -q 'laying out: 240.0MiB of 240.0MiB (100%)' \
	<(tail -n1 "$T/layout.log")
check "a line before the end has a rate and an ETA" \
	grep -qE 'laying out: .*\([0-9]+%\), [0-9.]+[KMG]iB/s, ETA [0-9]+s' "$T/layout.log"
check "while both lay out, the slowest agent is named" grep -qE '; slowest: a[01] ' "$T/layout.log"
check "--per-host: a line per agent" grep -qE '^    a1 +[0-9.]+[KMG]?i?B of 120\.0MiB' "$T/before.log"
check "the layout lines come before the run starts" \
	awk '/laying out/ { l = NR } /started on 2 agents/ { s = NR } END { exit !(l && s && l < s) }' "$T/run1.log"

# The files are there now: counted as done at once, no layout line.
"$IOFLEET" run --coordinator="$CTL" --name=lay --rw=read --bs=1m --size=120m \
	--runtime=1s --time_based --interval=1s >"$T/run2.log" 2>&1
check "the second run exits 0" [ $? -eq 0 ]
check "files already there: no layout line" bash -c "! grep -q 'laying out' '$T/run2.log'"
finish
