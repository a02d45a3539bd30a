#!/usr/bin/env bash
# Installs what the tests need, then builds and runs every test twice: with warnings as errors,
# and again with AddressSanitizer + UndefinedBehaviorSanitizer. The guest tests (label vm: the
# Debian packages installed in QEMU guests) test the packages, not a build: they run once, in
# the first pass.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
jobs=$(nproc)

cmake -S . -B build -DIOFLEET_WERROR=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$jobs"
ctest --test-dir build --output-on-failure -j"$jobs"

cmake -S . -B build-asan -DIOFLEET_WERROR=ON -DIOFLEET_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build build-asan -j"$jobs"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:strict_string_checks=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
ctest --test-dir build-asan --output-on-failure -j"$jobs" -LE vm
