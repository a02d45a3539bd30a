#!/usr/bin/env bash
# Builds the Debian packages (iofleet, iofleet-agent, iofleet-coordinator) from this source tree
# with the Debian tools, in a scratch copy so the tree stays clean, and leaves the .debs and
# the build log in OUTDIR. Runs lintian over them when it is installed (lintian.txt).
#
# Usage: tests/vm/build-debs.sh OUTDIR [--check]
#   --check also runs the unit tests at build time (dh_auto_test); by default
#   DEB_BUILD_OPTIONS=nocheck, as the tree's own tests run elsewhere.
# Skips the build (exit 0) when OUTDIR already holds packages built from the same sources.
set -euo pipefail

[ $# -ge 1 ] || { echo "usage: $0 OUTDIR [--check]" >&2; exit 2; }
out=$1
check=${2:-}
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
command -v dpkg-buildpackage >/dev/null || { echo "build-debs: dpkg-buildpackage not found (apt-get install dpkg-dev debhelper)" >&2; exit 1; }
mkdir -p "$out"
out=$(cd "$out" && pwd)

# The files of the tree: what git tracks plus what is new and not ignored; else all of it
# but build directories.
files=$(mktemp)
trap 'rm -f "$files"' EXIT
if git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	git -C "$src" ls-files -z -co --exclude-standard >"$files"
else
	(cd "$src" && find . -path ./build -prune -o -path './build-*' -prune -o -path ./.git -prune \
		-o -path './obj-*' -prune -o -type f -print0) >"$files"
fi
stamp=$( (cd "$src" && xargs -0 -r sha256sum --  <"$files" 2>/dev/null; echo "$check") | sha256sum | cut -d' ' -f1)
if [ -f "$out/stamp" ] && [ "$(cat "$out/stamp")" = "$stamp" ] && ls "$out"/iofleet-agent_*.deb >/dev/null 2>&1; then
	echo "build-debs: packages in $out are up to date"
	exit 0
fi
rm -rf "$out/src" "$out"/*.deb "$out"/*.buildinfo "$out"/*.changes "$out/stamp"
mkdir -p "$out/src/iofleet"
(cd "$src" && xargs -0 -r cp --parents -t "$out/src/iofleet" -- <"$files")

opts="parallel=$(nproc)"
[ "$check" = --check ] || opts="nocheck $opts"
echo "build-debs: dpkg-buildpackage -us -uc -b (DEB_BUILD_OPTIONS=$opts); log in $out/build.log"
if ! (cd "$out/src/iofleet" && DEB_BUILD_OPTIONS=$opts dpkg-buildpackage -us -uc -b) >"$out/build.log" 2>&1; then
	tail -n 40 "$out/build.log" >&2
	echo "build-debs: dpkg-buildpackage failed; log in $out/build.log" >&2
	exit 1
fi
mv "$out"/src/*.deb "$out"/src/*.buildinfo "$out"/src/*.changes "$out/"
rm -rf "$out/src"
if command -v lintian >/dev/null; then
	lintian --info --display-info --pedantic "$out"/*.changes >"$out/lintian.txt" 2>&1 || true
fi
echo "$stamp" >"$out/stamp"
ls "$out"/*.deb
