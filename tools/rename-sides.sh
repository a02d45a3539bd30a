#!/bin/bash
# Gives the two sides' types distinct names (issue 11): the coordinator registry's agent_t is
# coord_agent_t, the coordinator's run_t coord_run_t; the agent daemon's agent_t is
# agent_daemon_t, the I/O worker's run_t worker_run_t. Re-runnable (a second run changes
# nothing) and safe to run again after merging branches written with the old names: it edits
# whole words only, and each side's names only in that side's files:
#   coordinator side: coordinator/*.[ch], and tests/bench sources including a coordinator header
#                     that exposes those types;
#   agent side:       agent/**/*.[ch], and tests/bench sources including an agent header that
#                     exposes the daemon's type (the worker's is private to agent/worker.c).
# A file that would be on both sides stops the script before anything is changed.
set -euo pipefail
cd "$(dirname "$0")/.."

coord_sed=(-e 's/\bagent_t\b/coord_agent_t/g' -e 's/\bstruct agent\b/struct coord_agent/g'
           -e 's/\brun_t\b/coord_run_t/g' -e 's/\bstruct run\b/struct coord_run/g')
daemon_sed=(-e 's/\bagent_t\b/agent_daemon_t/g' -e 's/\bstruct agent\b/struct agent_daemon/g')
worker_sed=(-e 's/\brun_t\b/worker_run_t/g' -e 's/\bstruct run\b/struct worker_run/g')

# Headers of a directory that expose one of the given type names (old or new), or include a
# header that does.
exposing() {
        local dir=$1 re=$2 set more
        set=$(grep -lE "\\b($re)\\b" "$dir"/*.h 2>/dev/null | xargs -r -n1 basename | sort -u)
        while :; do
                more=$(printf '%s\n' "$set" | including_in "$dir"/*.h | xargs -r -n1 basename)
                more=$(printf '%s\n%s\n' "$set" "$more" | sed '/^$/d' | sort -u)
                [ "$more" = "$set" ] && break
                set=$more
        done
        printf '%s\n' "$set"
}
# Files among "$@" that include one of the headers named on stdin.
including_in() {
        local pat
        pat=$(sed '/^$/d; s/[.]/[.]/g; s/.*/#include "&"/' | paste -sd'|' -)
        [ -n "$pat" ] || return 0
        grep -lE "$pat" "$@" 2>/dev/null || true
}
# Sources outside the sides' directories that include one of the headers named on stdin.
including() {
        including_in tests/unit/*.c tests/fuzz/*.c tests/integration/*.c bench/*.c
}

mapfile -t coord_files < <({ ls coordinator/*.[ch];
        exposing coordinator 'agent_t|run_t|coord_agent_t|coord_run_t' | including; } | sort -u)
mapfile -t daemon_files < <({ find agent -name '*.[ch]' ! -path agent/worker.c;
        echo agent/worker.c;
        exposing agent 'agent_t|agent_daemon_t' | including; } | sort -u)

both=$(comm -12 <(printf '%s\n' "${coord_files[@]}") <(printf '%s\n' "${daemon_files[@]}"))
if [ -n "$both" ]; then
        echo "rename-sides: on both sides, rename by hand: $both" >&2
        exit 1
fi

sed -i "${coord_sed[@]}" "${coord_files[@]}"
sed -i "${daemon_sed[@]}" "${daemon_files[@]}"
sed -i "${worker_sed[@]}" agent/worker.c
