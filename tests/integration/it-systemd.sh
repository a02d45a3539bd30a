#!/usr/bin/env bash
# Checks the systemd units: they pass `systemd-analyze verify`, a broken copy does not, the
# coordinator's sandbox scores below 3.0 on `systemd-analyze security`, and deploy/install.sh
# installs into a scratch root and keeps existing configs when run again.
#
# Environment (set by ctest): IOFLEET_BIN = build directory holding iofleet-agent and
# iofleet-coordinator; IOFLEET_SRC = source directory (default: found from this script).
# Exit: 0 pass, 1 fail, 77 skip (reason on stderr). Runs from any directory.
set -euo pipefail

max_exposure=3.0

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
		if [[ $line =~ ^ExecStart=/usr/local/bin/([^[:space:]]+)(.*)$ ]]; then
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

# 3. Sandbox exposure: the coordinator must stay below $max_exposure; the agent is shown only
#    (it runs as root with mount rights by design).
exposure() {
	local unit=$1
	systemd-analyze security --offline=yes --no-pager "$tmp/good/$unit" >"$tmp/security.out" 2>&1 || true
	sed -n "s/.*Overall exposure level for $unit: \\([0-9][0-9.]*\\).*/\\1/p" "$tmp/security.out"
}
score=$(exposure iofleet-coordinator.service)
if [ -z "$score" ]; then
	fail "systemd-analyze security printed no exposure level for iofleet-coordinator.service"
	cat "$tmp/security.out" >&2
elif awk -v s="$score" -v m="$max_exposure" 'BEGIN { exit !(s < m) }'; then
	pass "iofleet-coordinator.service exposure $score (below $max_exposure)"
else
	fail "iofleet-coordinator.service exposure $score, must be below $max_exposure"
	grep '✗' "$tmp/security.out" >&2 || cat "$tmp/security.out" >&2
fi
agent_score=$(exposure iofleet-agent.service)
echo "info: iofleet-agent.service exposure ${agent_score:-unknown} (root, mounts NFS; not asserted)"

# 4. deploy/install.sh into a scratch root: installs everything, and a second run keeps a
#    config the admin changed.
install_sh=$IOFLEET_SRC/deploy/install.sh
if [ -f "$install_sh" ]; then
	mkdir -p "$tmp/build"
	for b in iofleet iofleet-agent iofleet-coordinator; do
		printf '#!/bin/sh\nexit 0\n' >"$tmp/build/$b"
		chmod 0755 "$tmp/build/$b"
	done
	root=$tmp/root
	if ! DESTDIR=$root bash "$install_sh" "$tmp/build" >"$tmp/install.out" 2>&1; then
		fail "deploy/install.sh failed"
		cat "$tmp/install.out" >&2
	else
		missing=()
		for f in usr/local/bin/iofleet usr/local/bin/iofleet-agent usr/local/bin/iofleet-coordinator \
			etc/systemd/system/iofleet-agent.service etc/systemd/system/iofleet-coordinator.service \
			etc/iofleet/coordinator.conf etc/iofleet/agent.conf etc/iofleet/cli.conf \
			etc/iofleet/agents.d etc/iofleet/admins.d; do
			[ -e "$root/$f" ] || missing+=("$f")
		done
		echo "# changed by the admin" >>"$root/etc/iofleet/agent.conf"
		cp "$root/etc/iofleet/agent.conf" "$tmp/agent.conf.before"
		if [ ${#missing[@]} -gt 0 ]; then
			fail "deploy/install.sh did not install: ${missing[*]}"
		elif ! DESTDIR=$root bash "$install_sh" "$tmp/build" >"$tmp/install2.out" 2>&1; then
			fail "deploy/install.sh failed on a second run"
			cat "$tmp/install2.out" >&2
		elif ! cmp -s "$tmp/agent.conf.before" "$root/etc/iofleet/agent.conf"; then
			fail "deploy/install.sh overwrote an existing /etc/iofleet/agent.conf"
		else
			pass "deploy/install.sh installs into DESTDIR and keeps existing configs"
		fi
	fi
fi

if [ "$failures" -gt 0 ]; then
	echo "$failures check(s) failed" >&2
	exit 1
fi
echo "all systemd checks passed"
