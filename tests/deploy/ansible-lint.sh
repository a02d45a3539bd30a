#!/usr/bin/env bash
# deploy/ansible passes ansible-lint's production profile (offline: nothing is fetched), and
# site.yml with the example inventory passes ansible-playbook --syntax-check.
# Exit: 0 pass, 1 fail, 77 skip (ansible or ansible-lint not installed).
set -uo pipefail
src=${1:?usage: ansible-lint.sh SOURCE_DIR}
command -v ansible-playbook >/dev/null || { echo "SKIP: ansible-playbook is not installed (scripts/install-deps.sh)" >&2; exit 77; }
command -v ansible-lint >/dev/null || { echo "SKIP: ansible-lint is not installed (scripts/install-deps.sh)" >&2; exit 77; }
cd "$src/deploy/ansible" || exit 1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HOME=$work ANSIBLE_LOCAL_TEMP=$work/tmp ANSIBLE_NOCOLOR=1 NO_COLOR=1
failures=0
if ANSIBLE_ROLES_PATH=$PWD/roles ansible-playbook --syntax-check -i inventory.example.yml site.yml; then
	echo "ok: ansible-playbook --syntax-check site.yml"
else
	echo "FAIL: ansible-playbook --syntax-check site.yml"
	failures=$((failures + 1))
fi
if out=$(ansible-lint --offline --nocolor --profile production 2>&1); then
	echo "ok: ansible-lint --profile production: $(tail -n1 <<<"$out")"
else
	echo "$out"
	echo "FAIL: ansible-lint --profile production"
	failures=$((failures + 1))
fi
echo "$((2 - failures)) passed, $failures failed"
[ "$failures" -eq 0 ]
