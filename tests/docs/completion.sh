#!/usr/bin/env bash
# The generated bash and zsh completions of iofleet offer its commands, its options, the fixed
# values of options (iofleet's own and fio's job options) and files, in both --opt=value and
# --opt value forms. Usage: completion.sh BUILD_DIR/completion
set -euo pipefail
dir=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
touch seq.fio wu2.plan
mkdir -p runs/sweep-1
fails=0

expect() { # expect WHAT GOT WANT
    if [[ "$2" != "$3" ]]; then
        echo "FAIL: $1: got [$2], want [$3]" >&2
        fails=$((fails + 1))
    else
        echo "ok: $1 -> $3"
    fi
}

# --- bash: the completion function is called as bash's programmable completion calls it ----
bash_complete() { # words...; the last one is the word being completed
    bash -c '
        source "$1"; shift
        COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMP_LINE="$*"
        COMPREPLY=(); _iofleet
        printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " " | sed "s/ $//"
    ' bash "$dir/iofleet" "$@"
}
expect "bash: commands" "$(bash_complete iofleet r)" "report run runs"
expect "bash: command options" "$(bash_complete iofleet agents --j)" "--json"
expect "bash: --opt= of a run option" "$(bash_complete iofleet run --output-f)" "--output-format="
expect "bash: --opt VALUE" "$(bash_complete iofleet run --output-format '')" "json json+ normal terse"
expect "bash: --opt=VALUE" "$(bash_complete iofleet run --output-format = j)" "json json+"
expect "bash: job option rw=" "$(bash_complete iofleet run --rw = rand)" "randread randrw randwrite"
expect "bash: job option ioengine=" "$(bash_complete iofleet run --ioengine = io)" "io_uring"
expect "bash: boolean job option" "$(bash_complete iofleet run --direct = '')" "0 1"
expect "bash: job option names" "$(bash_complete iofleet run --time_b)" "--time_based"
expect "bash: a job option never takes the next word" "$(bash_complete iofleet run --bs s)" "seq.fio"
expect "bash: job files" "$(bash_complete iofleet run w)" "wu2.plan"
expect "bash: directory value" "$(bash_complete iofleet report --plots = r)" "runs"
expect "bash: report operand is a directory" "$(bash_complete iofleet report r)" "runs"
expect "bash: report format" "$(bash_complete iofleet report --format m)" "markdown md"
expect "bash: help COMMAND" "$(bash_complete iofleet help ag)" "agents"
expect "bash: after -- only files" "$(bash_complete iofleet run -- --)" ""
expect "bash: --opt=VALUE in one word" "$(bash_complete iofleet report --format=c)" "--format=csv"

# --- zsh: a real interactive zsh through zpty, TAB pressed -----------------------------------
if ! command -v zsh >/dev/null; then
    echo "zsh not installed: zsh completion not tested"
else
    cp "$dir/_iofleet" "$work/_iofleet"
    out=$(timeout 60 zsh -f "$here/zsh-complete.zsh" "$work" \
        'iofleet r' 'iofleet run --output-format ' 'iofleet run --output-format=' \
        'iofleet run --rw=randr' 'iofleet report --format ' 'iofleet run w' 'iofleet run --time_b' \
        'iofleet help ag' 'iofleet report r') || { echo "FAIL: zsh driver exited $?" >&2; exit 1; }
    zsh_got() { # the candidates zsh offered for line $1, space-joined
        awk -v l="== $1" '$0 == l {on = 1; next} /^== / {on = 0} on' <<<"$out" | tr '\n' ' ' |
            sed 's/ $//'
    }
    expect "zsh: commands" "$(zsh_got 'iofleet r')" "report run runs"
    expect "zsh: --opt VALUE" "$(zsh_got 'iofleet run --output-format ')" "json json+ normal terse"
    expect "zsh: --opt=VALUE" "$(zsh_got 'iofleet run --output-format=')" "json json+ normal terse"
    expect "zsh: job option rw=" "$(zsh_got 'iofleet run --rw=randr')" "randread randrw"
    expect "zsh: report format" "$(zsh_got 'iofleet report --format ')" "csv markdown md text"
    expect "zsh: job files" "$(zsh_got 'iofleet run w')" "wu2.plan"
    expect "zsh: job option names" "$(zsh_got 'iofleet run --time_b')" "--time_based"
    expect "zsh: help COMMAND" "$(zsh_got 'iofleet help ag')" "agents"
    expect "zsh: report operand is a directory" "$(zsh_got 'iofleet report r')" "runs"
fi
if [[ $fails -ne 0 ]]; then
    echo "$fails completion case(s) failed" >&2
    exit 1
fi
