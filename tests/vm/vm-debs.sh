#!/usr/bin/env bash
# Builds the Debian packages from this tree with dpkg-buildpackage (tests/vm/build-debs.sh) into
# IOFLEET_BIN/vm/debs for the guest tests, and holds lintian's verdict to what docs/packaging.md
# documents: no error, and no warning but those listed there.
# Exit: 0 pass, 1 fail, 77 skip (no dpkg-buildpackage or debhelper).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
: "${IOFLEET_BIN:?IOFLEET_BIN must name the build directory}"
command -v dpkg-buildpackage >/dev/null || { echo "SKIP: dpkg-buildpackage is not installed (scripts/install-deps.sh)" >&2; exit 77; }
command -v dh >/dev/null || { echo "SKIP: debhelper is not installed (scripts/install-deps.sh)" >&2; exit 77; }
out=$IOFLEET_BIN/vm/debs
"$here/build-debs.sh" "$out" || exit 1
failures=0
for p in iofleet iofleet-agent iofleet-coordinator; do
	if ls "$out/${p}_"*.deb >/dev/null 2>&1; then echo "ok: built $p"; else echo "FAIL: $p was not built"; failures=$((failures + 1)); fi
done
if [ -f "$out/lintian.txt" ]; then
	# The tags docs/packaging.md explains; anything else at warning or error level fails.
	allowed='package-supports-alternative-init-but-no-init.d-script'
	bad=$(grep -E '^[EW]: ' "$out/lintian.txt" | grep -vE ": ($allowed) " || true)
	if [ -n "$bad" ]; then
		echo "FAIL: lintian says what docs/packaging.md does not explain:"
		echo "$bad"
		failures=$((failures + 1))
	else
		echo "ok: lintian: $(grep -cE '^[EWI]: ' "$out/lintian.txt") tag(s), all documented"
	fi
else
	echo "skipped: lintian is not installed"
fi
[ "$failures" -eq 0 ]
