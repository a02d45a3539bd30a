#!/usr/bin/env bash
# deploy/prometheus/iofleet.rules.yml passes `promtool check rules` and its own unit tests
# (`promtool test rules`); deploy/grafana/iofleet.json is a dashboard whose every panel has a
# datasource, a position and PromQL targets. Exit 77 (skipped) without promtool.
set -u
SRC=${1:?usage: prometheus-rules.sh SOURCE_DIR}
command -v promtool >/dev/null || { echo "promtool is not installed (Debian package prometheus): skipped"; exit 77; }
rc=0
cd "$SRC/deploy/prometheus" || exit 1
promtool check rules iofleet.rules.yml || rc=1
promtool test rules iofleet.rules.test.yml || rc=1
jq -e '(.panels | length) > 0 and ([.panels[] | select((.datasource.uid | not) or (.gridPos | not) or
	((.targets // []) | length == 0) or any(.targets[]; (.expr // "") == ""))] | length == 0)
	and .uid == "iofleet-fleet" and (.schemaVersion | type) == "number"' \
	"$SRC/deploy/grafana/iofleet.json" >/dev/null || { echo "deploy/grafana/iofleet.json: a panel lacks a datasource, a position or a target"; rc=1; }
exit $rc
