#!/usr/bin/env bash
# Installs what the tests need, then builds and runs every test twice: with warnings as errors,
# and again with AddressSanitizer + UndefinedBehaviorSanitizer. The guest tests (label vm: the
# Debian packages installed in QEMU guests) test the packages, not a build: they run once, from
# the first build, in the background while the sanitizer build compiles; the sanitizer build's
# tests wait for them (beside a TCG guest on two cores, load-sensitive integration tests such as
# it-soak lost agents: tests/vm/README.md). The guests' log is printed when they are done; the
# script runs everything it can and fails if anything failed.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
jobs=$(nproc)

cmake -S . -B build -DIOFLEET_WERROR=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$jobs"
first=0
ctest --test-dir build --output-on-failure -j"$jobs" -LE vm || first=$?

vm_log=build/vm-tests.log
# In a process group of their own (setsid), so that the guests stop with the script (^C).
setsid ctest --test-dir build --output-on-failure -L vm >"$vm_log" 2>&1 &
vm_pid=$!
trap 'kill -- -"$vm_pid" 2>/dev/null || true' EXIT
echo "guest tests (ctest -L vm) running in the background; log in $vm_log"

asan=0
{ cmake -S . -B build-asan -DIOFLEET_WERROR=ON -DIOFLEET_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug >/dev/null &&
	cmake --build build-asan -j"$jobs"; } || asan=$?

vm=0
wait "$vm_pid" || vm=$?
trap - EXIT
echo "=== guest tests (ctest -L vm, from the first build) ==="
cat "$vm_log"

if [ "$asan" -eq 0 ]; then
	export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:strict_string_checks=1
	export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
	ctest --test-dir build-asan --output-on-failure -j"$jobs" -LE vm || asan=$?
fi
if [ "$first" -ne 0 ] || [ "$asan" -ne 0 ] || [ "$vm" -ne 0 ]; then
	echo "scripts/test.sh: failed:$([ "$first" -eq 0 ] || echo " the tests of the first build;")$([ "$asan" -eq 0 ] || echo " the sanitizer build or its tests;")$([ "$vm" -eq 0 ] || echo " the guest tests")" >&2
	exit 1
fi
