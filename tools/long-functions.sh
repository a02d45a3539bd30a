#!/bin/sh
# Lists the functions of the production C sources (agent, coordinator, cli, common, tools) longer
# than a limit (default 80 lines, opening to closing brace), longest first: "lines file:line name".
# Functions are written as the project writes them: the name line at column 0, '{' and '}' alone
# at column 0.
limit=${1:-80}
cd "$(dirname "$0")/.." || exit 1
find agent coordinator cli common tools -name '*.c' | sort | while read -r f; do
        awk -v f="$f" -v limit="$limit" '
                /^[A-Za-z_].*\(/ && !/;[[:space:]]*$/ { sig = $0; sigline = NR }
                /^\{/ && sig != "" { start = NR; name = sig; line = sigline; sig = "" }
                /^\}/ && start { n = NR - start + 1
                        if (n > limit) {
                                sub(/\(.*/, "", name); sub(/.*[ *]/, "", name)
                                printf "%d %s:%d %s\n", n, f, line, name }
                        start = 0 }' "$f"
done | sort -rn
