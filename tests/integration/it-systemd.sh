#!/usr/bin/env bash
# Checks the systemd units: they pass `systemd-analyze verify`, a broken copy does not, the
# sandboxes score what docs/architecture.md says on `systemd-analyze security` (coordinator at
# most 2.0, agent at most 4.8), and `cmake --install` lays out binaries, units (ExecStart in the
# install prefix) and example configs. tests/vm runs the packaged units under a real PID 1.
#
# Environment (set by ctest): IOFLEET_BIN = build directory holding iofleet-agent and
# iofleet-coordinator; IOFLEET_SRC = source directory (default: found from this script).
# Exit: 0 pass, 1 fail, 77 skip (reason on stderr). Runs from any directory.
set -euo pipefail

max_exposure=2.0
max_agent_exposure=4.8

skip() {
	echo "SKIP: $*" >&2
	exit 77
}

failures=0
fail() {
	echo "FAIL: $*" >&2
	failures=$((failures + 1))
}

pass() {
	echo "ok: $*"
}

command -v systemd-analyze >/dev/null 2>&1 || skip "systemd-analyze not found (install systemd)"

IOFLEET_SRC=${IOFLEET_SRC:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
[ -n "${IOFLEET_BIN:-}" ] || skip "IOFLEET_BIN is not set (the build directory; ctest sets it)"
[ -d "$IOFLEET_BIN" ] || skip "IOFLEET_BIN=$IOFLEET_BIN is not a directory"
bin_dir=$(cd "$IOFLEET_BIN" && pwd)
for b in iofleet-agent iofleet-coordinator; do
	# verify refuses a unit whose ExecStart binary is missing, so there is nothing to check yet.
	if [ ! -f "$bin_dir/$b" ] || [ ! -x "$bin_dir/$b" ]; then
		skip "$bin_dir/$b is not built yet (systemd-analyze verify needs the ExecStart binary)"
	fi
done

units=(iofleet-coordinator.service iofleet-agent.service)
for u in "${units[@]}"; do
	[ -f "$IOFLEET_SRC/systemd/$u" ] || {
		echo "FAIL: missing $IOFLEET_SRC/systemd/$u" >&2
		exit 1
	}
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/it-systemd.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export SYSTEMD_COLORS=0 SYSTEMD_PAGER=cat

# Errors in unrelated units installed on this host must not fail the test.
verify_opts=(--man=no)
if systemd-analyze --help 2>&1 | grep -q -- '--recursive-errors'; then
	verify_opts+=(--recursive-errors=no)
fi

# The build directory as one word of a unit command line: % is a specifier there, and a
# path with blanks or quotes must be quoted.
exec_dir=${bin_dir//%/%%}
if [[ $exec_dir =~ [^A-Za-z0-9/._+@:,=-] ]]; then
	exec_dir=${exec_dir//\\/\\\\}
	exec_dir=${exec_dir//\"/\\\"}
	quoted=1
else
	quoted=0
fi

# Copies unit $1 from the source tree to directory $2 with ExecStart pointing into the build
# directory, and applies the sed expression $3 if given.
make_unit() {
	local unit=$1 dir=$2 extra=${3:-}
	local line
	mkdir -p "$dir"
	while IFS= read -r line || [ -n "$line" ]; do
		if [[ $line =~ ^ExecStart=/usr/sbin/([^[:space:]]+)(.*)$ ]]; then
			if [ "$quoted" = 1 ]; then
				line="ExecStart=\"$exec_dir/${BASH_REMATCH[1]}\"${BASH_REMATCH[2]}"
			else
				line="ExecStart=$exec_dir/${BASH_REMATCH[1]}${BASH_REMATCH[2]}"
			fi
		fi
		printf '%s\n' "$line"
	done <"$IOFLEET_SRC/systemd/$unit" >"$dir/$unit"
	if [ -n "$extra" ]; then
		sed -i -e "$extra" "$dir/$unit"
	fi
}

# Lines of verify's stderr that are about our unit (not about units installed on the host).
about_unit() {
	local unit=$1 err=$2
	grep -F -e "$unit" -e "$tmp" "$err" || true
}

# 1. Both units verify cleanly.
for u in "${units[@]}"; do
	make_unit "$u" "$tmp/good"
	if ! grep -q -F "$exec_dir/${u%.service}" "$tmp/good/$u"; then
		fail "$u: ExecStart was not rewritten to $bin_dir"
		continue
	fi
	rc=0
	systemd-analyze verify "${verify_opts[@]}" "$tmp/good/$u" >"$tmp/verify.out" 2>"$tmp/verify.err" || rc=$?
	msgs=$(about_unit "$u" "$tmp/verify.err")
	if [ "$rc" -ne 0 ] || [ -n "$msgs" ]; then
		fail "systemd-analyze verify $u: exit $rc"
		cat "$tmp/verify.err" >&2
	else
		pass "systemd-analyze verify $u: exit 0, no warnings"
	fi
done

# 2. The check can fail: a copy with an invalid Type= is rejected and reported.
make_unit iofleet-coordinator.service "$tmp/bad" 's/^Type=.*/Type=bogus/'
grep -q '^Type=bogus$' "$tmp/bad/iofleet-coordinator.service" || fail "could not make the broken copy"
rc=0
systemd-analyze verify "${verify_opts[@]}" "$tmp/bad/iofleet-coordinator.service" >/dev/null 2>"$tmp/bad.err" || rc=$?
if [ "$rc" -eq 0 ]; then
	fail "systemd-analyze verify accepted a unit with Type=bogus"
elif [ -z "$(about_unit iofleet-coordinator.service "$tmp/bad.err")" ]; then
	fail "systemd-analyze verify rejected Type=bogus (exit $rc) but said nothing this test recognises"
	cat "$tmp/bad.err" >&2
else
	pass "systemd-analyze verify rejects Type=bogus (exit $rc)"
fi

# 3. Sandbox exposure: the coordinator at most $max_exposure; the agent, root with mount rights
#    and no private mount namespace by design, at most $max_agent_exposure.
exposure() {
	local unit=$1
	systemd-analyze security --offline=yes --no-pager "$tmp/good/$unit" >"$tmp/security.out" 2>&1 || true
	sed -n "s/.*Overall exposure level for $unit: \\([0-9][0-9.]*\\).*/\\1/p" "$tmp/security.out"
}
for pair in "iofleet-coordinator.service:$max_exposure" "iofleet-agent.service:$max_agent_exposure"; do
	unit=${pair%%:*} max=${pair#*:}
	score=$(exposure "$unit")
	if [ -z "$score" ]; then
		fail "systemd-analyze security printed no exposure level for $unit"
		cat "$tmp/security.out" >&2
	elif awk -v s="$score" -v m="$max" 'BEGIN { exit !(s <= m) }'; then
		pass "$unit exposure $score (at most $max)"
	else
		fail "$unit exposure $score, must be at most $max"
		grep '✗' "$tmp/security.out" >&2 || cat "$tmp/security.out" >&2
	fi
done

# 4. cmake --install into a scratch root: binaries, units whose ExecStart is the prefix's sbin,
#    example configs (never in /etc/iofleet, which belongs to the admin or the packages).
if command -v cmake >/dev/null && [ -f "$bin_dir/cmake_install.cmake" ]; then
	root=$tmp/root
	prefix=$(sed -n 's/^CMAKE_INSTALL_PREFIX:PATH=//p' "$bin_dir/CMakeCache.txt")
	p=${prefix#/}
	if ! DESTDIR=$root cmake --install "$bin_dir" >"$tmp/install.out" 2>&1; then
		fail "cmake --install failed"
		cat "$tmp/install.out" >&2
	else
		missing=()
		for f in $p/bin/iofleet $p/sbin/iofleet-agent $p/sbin/iofleet-coordinator \
			$p/lib/systemd/system/iofleet-agent.service $p/lib/systemd/system/iofleet-coordinator.service \
			$p/share/iofleet/agent.conf $p/share/iofleet/coordinator.conf $p/share/iofleet/cli.conf; do
			[ -e "$root/$f" ] || missing+=("$f")
		done
		if [ ${#missing[@]} -gt 0 ]; then
			fail "cmake --install did not install: ${missing[*]}"
		elif [ -e "$root/etc/iofleet" ]; then
			fail "cmake --install wrote into /etc/iofleet"
		elif ! grep -q "^ExecStart=$prefix/sbin/iofleet-agent " "$root/$p/lib/systemd/system/iofleet-agent.service"; then
			fail "the installed agent unit does not start $prefix/sbin/iofleet-agent"
		else
			pass "cmake --install (prefix $prefix) lays out binaries, units and example configs"
		fi
	fi
fi

if [ "$failures" -gt 0 ]; then
	echo "$failures check(s) failed" >&2
	exit 1
fi
echo "all systemd checks passed"
