#!/usr/bin/env bash
# The verdict of one part of the fleet guest (tests/vm/vm-fleet.sh ran it): its log from each
# boot it ran in ("== part NAME" to its end) and its counts (OUT/part-NAME.counts, written by
# the guest's part_end). Usage: vm-part.sh NAME. Exit: 0 every check passed, 1 a check failed or
# the part never ran.
set -uo pipefail
: "${IOFLEET_BIN:?IOFLEET_BIN must name the build directory}"
name=$1
out=$IOFLEET_BIN/vm/fleet
ran=0 passed=0 failed=0 skipped=0
for b in boot1 boot2; do
	[ -e "$out/$b/part-$name.started" ] || continue
	ran=1
	echo "--- $b ($out/$b/log)"
	awk -v n="$name" '$1 == "==" && $2 == "part" { on = ($3 == n) }
		on { print }
		$1 == "==" && $2 == "end" && $5 == n ":" { on = 0 }' "$out/$b/log"
	if [ -s "$out/$b/part-$name.counts" ]; then
		read -r p f s <"$out/$b/part-$name.counts"
		passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	else
		echo "FAIL: part $name did not finish in $b (its scenario was stopped: the end of $out/$b/log says why)"
		failed=$((failed + 1))
	fi
done
if [ "$ran" -eq 0 ]; then
	echo "FAIL: part $name did not run (the fleet guest stopped before it: $out/boot1/log)"
	tail -n 30 "$out/boot1/log" 2>/dev/null
	exit 1
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
