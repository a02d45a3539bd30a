#!/usr/bin/env bash
# The generated man pages render without a groff or man warning, carry their NAME and the
# sections generated from the programs' tables, and name every option the programs take.
# Usage: man-pages.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
man=$build/man
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

export LC_ALL=C.UTF-8 MANWIDTH=100
for page in iofleet.1 iofleet-agent.8 iofleet-coordinator.8 iofleet.plan.5 iofleet-agent.conf.5; do
    f=$man/$page
    [[ -s $f ]] || { fail "$page was not generated"; continue; }
    # groff -ww: every warning; man --warnings: what man-db itself would warn about.
    w=$(groff -Tutf8 -man -ww -z "$f" 2>&1) || fail "$page: groff failed"
    [[ -z $w ]] || fail "$page: groff warns: $w"
    w=$(man --warnings -l "$f" 2>&1 >/dev/null) || fail "$page: man failed"
    [[ -z $w ]] || fail "$page: man warns: $w"
    text=$(man -l "$f" 2>/dev/null)
    grep -q "^NAME" <<<"$text" || fail "$page: no NAME section"
    name=${page%.[0-9]}
    grep -q "^       $name - " <<<"$text" || fail "$page: NAME does not start with '$name - '"
    grep -q "@generate" "$f" && fail "$page: a @generate line was left unexpanded"
    echo "ok: $page renders ($(wc -l <<<"$text") lines)"
done

# What the pages must say, from the tables the programs use.
t1=$(man -l "$man/iofleet.1" 2>/dev/null)
for o in $("$build/iofleet" run --help | grep -o -- '^  --[a-z-]*' | sed 's/^  //'); do
    grep -q -- "$o" <<<"$t1" || fail "iofleet.1 does not document iofleet run $o"
done
for o in rw= ioengine= time_based ramp_time= nfs_url=; do
    grep -q -- "$o" <<<"$t1" || fail "iofleet.1 does not list the job option $o"
done
tconf=$(man -l "$man/iofleet-agent.conf.5" 2>/dev/null)
for k in $("$build/iofleet-agent" --help | grep -oE '^  [a-z_]+ ' | tr -d ' '); do
    grep -q -- "^       $k=" <<<"$tconf" || fail "iofleet-agent.conf.5 does not document $k"
done
tcoord=$(man -l "$man/iofleet-coordinator.8" 2>/dev/null)
grep -q "SIGHUP" <<<"$tcoord" || fail "iofleet-coordinator.8 does not say what SIGHUP does"
grep -q -- "--agent_keys_dir=" <<<"$tcoord" || fail "iofleet-coordinator.8 lacks its keys"
tplan=$(man -l "$man/iofleet.plan.5" 2>/dev/null)
for k in threads max_read delegations nfs_commit; do
    grep -q "^       $k (" <<<"$tplan" || fail "iofleet.plan.5 does not list the [server] key $k"
done
if [[ $fails -ne 0 ]]; then
    echo "$fails man page check(s) failed" >&2
    exit 1
fi
