#!/usr/bin/env bash
# Installs and builds iofleet, then runs its main job on this one host: a coordinator and three
# agents, a synchronized 10 s sequential read with a live line per second and per agent, fio's
# style of summary, and where the JSON went. Everything it starts is stopped at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)" >/dev/null

data=${IOFLEET_DEMO_DIR:-/tmp/iofleet-demo}
mkdir -p "$data"
echo "== iofleet demo: 3 agents read 256 MiB files each in $data, all starting at one instant"
build/iofleet run --local=3 --results-dir="$PWD/iofleet-runs" \
	--name=seqread --rw=read --bs=1m --size=256m --numjobs=1 \
	--time_based --runtime=10s --directory="$data" --per-host
echo "== the fio-compatible JSON of that run:"
ls -1 "$PWD"/iofleet-runs/*/result.json | tail -n 1
echo "== nothing is left running:"
pgrep -af 'iofleet-(agent|coordinator) ' || echo "(no iofleet daemons)"
