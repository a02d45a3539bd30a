# Helpers for the scripts under bench/: scratch directory, tracked processes, ports, statistics.
# Source it from bash; it sets no shell options of its own.
# shellcheck shell=bash

BENCH_TMP=""      # scratch directory, removed at exit unless KEEP_TMP=1
BENCH_PIDS=()     # long-running processes we started (daemons), stopped at exit
BENCH_FG_PID=""   # the command bench_run is waiting for, if any

bench_die()
{
    echo "${0##*/}: $*" >&2
    exit 1
}

bench_warn()
{
    echo "${0##*/}: $*" >&2
}

# bench_alive PID: true while PID runs (a zombie counts as gone).
bench_alive()
{
    local st
    st=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null) || return 1
    [ -n "$st" ] && [ "$st" != Z ]
}

# bench_descendants PID...: prints the pids of all descendants of the given processes.
bench_descendants()
{
    local pid child
    for pid in "$@"; do
        for child in $(pgrep -P "$pid" 2>/dev/null); do
            echo "$child"
            bench_descendants "$child"
        done
    done
}

# Stops, by pid, every process this script started and their descendants (fio --server forks a
# child per connection that outlives its parent); then removes the scratch directory.
bench_cleanup()
{
    local -a top desc
    local pid alive i
    trap - EXIT INT TERM
    top=("${BENCH_PIDS[@]}")
    [ -n "$BENCH_FG_PID" ] && top+=("$BENCH_FG_PID")
    mapfile -t desc < <(bench_descendants "${top[@]}")
    for pid in "${top[@]}"; do
        kill -TERM "$pid" 2>/dev/null
    done
    # The top processes first stop their own children; what is left after 2 s gets SIGTERM
    # directly, and SIGKILL after 5 s.
    for i in $(seq 50); do
        [ "$i" = 20 ] && for pid in "${desc[@]}"; do kill -TERM "$pid" 2>/dev/null; done
        alive=0
        for pid in "${top[@]}" "${desc[@]}"; do
            bench_alive "$pid" && alive=1 && break
        done
        [ "$alive" = 0 ] && break
        sleep 0.1
    done
    for pid in "${top[@]}" "${desc[@]}"; do
        if bench_alive "$pid"; then
            bench_warn "pid $pid did not stop within 5 s of SIGTERM: killed"
            kill -KILL "$pid" 2>/dev/null
        fi
    done
    wait 2>/dev/null
    if [ -n "$BENCH_TMP" ] && [ -d "$BENCH_TMP" ]; then
        if [ "${KEEP_TMP:-0}" = 1 ]; then
            echo "${0##*/}: scratch kept in $BENCH_TMP" >&2
        else
            rm -rf "$BENCH_TMP"
        fi
    fi
}

# Creates the scratch directory (BENCH_TMP) and installs the cleanup trap.
bench_setup()
{
    BENCH_TMP=$(mktemp -d "${TMPDIR:-/tmp}/${0##*/}.XXXXXX") || bench_die "mktemp failed"
    trap bench_cleanup EXIT
    trap 'bench_warn "interrupted"; exit 130' INT TERM
}

# bench_spawn LOG CMD...: starts a daemon in the background, output to LOG; tracked for cleanup.
bench_spawn()
{
    local log=$1
    shift
    "$@" >"$log" 2>&1 &
    BENCH_PIDS+=($!)
}

# bench_run SECONDS LOG CMD...: runs CMD with a time limit, output to LOG; returns its status
# (124 on timeout). Runs in the background so that an interrupt reaches the cleanup at once.
bench_run()
{
    local limit=$1 log=$2 rc
    shift 2
    timeout -k 5 "$limit" "$@" >"$log" 2>&1 &
    BENCH_FG_PID=$!
    wait "$BENCH_FG_PID"
    rc=$?
    BENCH_FG_PID=""
    return $rc
}

# Prints a TCP port on which nothing listens on this host.
bench_free_port()
{
    local p _
    for _ in $(seq 100); do
        p=$((20000 + RANDOM % 40000))
        if [ -z "$(ss -Htln "sport = :$p" 2>/dev/null)" ]; then
            echo "$p"
            return 0
        fi
    done
    return 1
}

# bench_wait_listen PORT SECONDS: waits until something listens on TCP PORT.
bench_wait_listen()
{
    local _
    for _ in $(seq $(($2 * 10))); do
        [ -n "$(ss -Htln "sport = :$1" 2>/dev/null)" ] && return 0
        sleep 0.1
    done
    return 1
}

# Reads numbers, one a line, on stdin; prints their median (mean of the middle two when even).
bench_median()
{
    sort -g | awk '{ v[NR] = $1 }
        END { if (NR == 0) exit 1
              if (NR % 2) printf "%.0f\n", v[(NR + 1) / 2]
              else printf "%.0f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# Reads numbers, one a line, on stdin; prints the largest.
bench_max()
{
    sort -g | tail -n 1 | grep .
}

# bench_fmt_ns NS: a duration in nanoseconds with three significant digits (e.g. 61.4us, 25.0ms);
# "-" for an empty argument.
bench_fmt_ns()
{
    [ -z "${1:-}" ] && { echo "-"; return; }
    awk -v n="$1" 'function f(x, u) { return sprintf(x >= 100 ? "%.0f%s" : x >= 10 ? "%.1f%s" : "%.2f%s", x, u) }
        BEGIN { a = n < 0 ? -n : n
                if (a < 1000) print sprintf("%dns", n)
                else if (a < 1e6) print f(n / 1e3, "us")
                else if (a < 1e9) print f(n / 1e6, "ms")
                else print f(n / 1e9, "s") }'
}

# bench_ratio A B: A/B as "123x" (or "1.5x" below 10); "-" when either is missing or B is 0.
bench_ratio()
{
    if [ -z "${1:-}" ] || [ -z "${2:-}" ] || [ "$2" = 0 ]; then
        echo "-"
        return
    fi
    awk -v a="$1" -v b="$2" 'BEGIN { r = a / b; printf(r >= 10 ? "%.0fx\n" : "%.1fx\n", r) }'
}
