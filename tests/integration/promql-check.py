#!/usr/bin/env python3
"""Every PromQL expression of a Grafana dashboard and of a Prometheus rules file returns data
through a real Prometheus's HTTP API at one instant.

usage: promql-check.py PROM_URL TIME DASHBOARD.json RULES.yml RATE_INTERVAL

Grafana's variables are given what a dashboard user gets with every host selected ($host: .*,
$__rate_interval: RATE_INTERVAL); label_values(METRIC, LABEL) must name at least one value.
An alert rule's expression is checked with each comparison made neutral (A == 0 becomes
A + 0 * 0): its selectors and its label matching return data whether or not it fires now.
Prints one line per expression; exits 1 if any returned nothing or failed."""
import json
import re
import sys
import urllib.parse
import urllib.request

import yaml

url, at, dash_path, rules_path, rate_iv = sys.argv[1:6]


def query(expr):
    q = urllib.parse.urlencode({"query": expr, "time": at})
    with urllib.request.urlopen(f"{url}/api/v1/query?{q}", timeout=10) as r:
        d = json.load(r)
    if d.get("status") != "success":
        raise RuntimeError(d.get("error", "query failed"))
    return d["data"]["result"]


def grafana(expr):
    return expr.replace("$__rate_interval", rate_iv).replace("$host", ".*")


def neutral(expr):
    """Comparisons outside label matchers and strings become '+ 0 *'."""
    out, depth, quote, i = [], 0, None, 0
    while i < len(expr):
        c = expr[i]
        if quote:
            out.append(c)
            if c == "\\":
                out.append(expr[i + 1])
                i += 1
            elif c == quote:
                quote = None
        elif c in "\"'":
            quote = c
            out.append(c)
        elif c == "{":
            depth += 1
            out.append(c)
        elif c == "}":
            depth -= 1
            out.append(c)
        elif depth == 0 and expr[i:i + 2] in ("==", "!=", ">=", "<="):
            out.append(" + 0 * ")
            i += 1
        elif depth == 0 and c in "<>":
            out.append(" + 0 * ")
        else:
            out.append(c)
        i += 1
    return "".join(out)


checks = []  # (what, expr)
dash = json.load(open(dash_path))
for p in dash["panels"]:
    for t in p.get("targets", []):
        checks.append((f"panel '{p['title']}' {t['refId']}", grafana(t["expr"])))
for a in dash["annotations"]["list"]:
    if "expr" in a:
        checks.append((f"annotation '{a['name']}'", grafana(a["expr"])))
for v in dash["templating"]["list"]:
    if v["type"] == "query":
        m = re.fullmatch(r"label_values\((.*),\s*(\w+)\)", v["definition"])
        checks.append((f"variable ${v['name']} ({v['definition']})",
                       f"count by ({m.group(2)}) ({m.group(1)})"))
rules = yaml.safe_load(open(rules_path))
for g in rules["groups"]:
    for r in g["rules"]:
        if "record" in r:
            checks.append((f"recording rule {r['record']}", r["record"]))
            checks.append((f"recording rule {r['record']} (expr)", r["expr"]))
        else:
            checks.append((f"alert {r['alert']} (comparisons neutral)", neutral(r["expr"])))

bad = 0
for what, expr in checks:
    try:
        res = query(expr)
        ok = len(res) > 0
        note = f"{len(res)} series"
    except Exception as e:  # an error is as bad as no data
        ok, note = False, str(e)
    bad += not ok
    print(f"{'ok' if ok else 'FAIL'}: {what}: {note}: {expr.strip()}")
sys.exit(1 if bad else 0)
