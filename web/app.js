// iofleet's live page: polls /api/state (every 2 s) and /api/runs (every 10 s) and writes the
// figures into the DOM (each figure also as a data- attribute, for tests and scripts).
"use strict";

const $ = (id) => document.getElementById(id);
const seen = new Map(); // run_id -> Map(k -> point): the series as it came, kept across polls

function bytes(v) {
  const u = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
  let i = 0;
  while (Math.abs(v) >= 1024 && i < u.length - 1) { v /= 1024; i++; }
  return (i ? v.toFixed(1) : String(Math.round(v))) + " " + u[i];
}
function seconds(s) {
  if (!(s > 0)) return "–";
  if (s < 1e-3) return (s * 1e6).toFixed(1) + " µs";
  if (s < 1) return (s * 1e3).toFixed(2) + " ms";
  return s.toFixed(2) + " s";
}
function el(tag, attrs, text) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}
function setFigure(id, value, text) {
  const e = $(id);
  e.dataset.value = String(value);
  e.textContent = text;
}

function drawChart(run) {
  const svg = $("chart");
  while (svg.firstChild) svg.removeChild(svg.firstChild);
  if (!run) { $("chart-scale").textContent = ""; return; }
  let pts = seen.get(run.run_id);
  if (!pts) { pts = new Map(); seen.set(run.run_id, pts); }
  for (const p of run.series) pts.set(p[0], p);
  const series = [...pts.values()].sort((a, b) => a[0] - b[0]).slice(-600);
  if (!series.length) return;
  const kmin = series[0][0], kmax = Math.max(series[series.length - 1][0], kmin + 1);
  const vmax = Math.max(1, ...series.map((p) => Math.max(p[1], p[2])));
  const ns = "http://www.w3.org/2000/svg";
  for (const [idx, cls] of [[1, "read"], [2, "write"]]) {
    const line = document.createElementNS(ns, "polyline");
    line.setAttribute("points", series.map((p) =>
      `${((p[0] - kmin) / (kmax - kmin) * 600).toFixed(1)},${(215 - p[idx] / vmax * 205).toFixed(1)}`).join(" "));
    line.setAttribute("fill", "none");
    line.setAttribute("stroke", cls === "read" ? "#1f77b4" : "#d62728");
    line.setAttribute("stroke-width", "2");
    line.setAttribute("vector-effect", "non-scaling-stroke");
    line.setAttribute("data-series", cls);
    svg.appendChild(line);
  }
  svg.dataset.points = String(series.length);
  $("chart-scale").textContent = `top ${bytes(vmax)}/s, ${series.length} intervals of ${run.interval_s} s`;
}

function drawBars(run) {
  const box = $("bars");
  box.textContent = "";
  if (!run) return;
  const max = Math.max(1, ...run.agents.map((a) => a.read_bw + a.write_bw));
  for (const a of run.agents) {
    const row = el("div", { class: "row", "data-agent": a.name, "data-read-bw": a.read_bw, "data-write-bw": a.write_bw });
    row.appendChild(el("span", {}, a.name));
    const bar = el("div", { class: "bar" });
    // Widths through the CSSOM: the page's CSP allows no inline style attribute.
    const r = el("span", { class: "r" }), w = el("span", { class: "w" });
    r.style.width = (a.read_bw / max * 100).toFixed(1) + "%";
    w.style.width = (a.write_bw / max * 100).toFixed(1) + "%";
    bar.appendChild(r);
    bar.appendChild(w);
    row.appendChild(bar);
    row.appendChild(el("span", {}, bytes(a.read_bw + a.write_bw) + "/s"));
    box.appendChild(row);
  }
}

function drawAgents(agents) {
  const body = $("agents").tBodies[0];
  body.textContent = "";
  for (const a of agents) {
    const tr = el("tr", { "data-agent": a.name, "data-state": a.state, "data-read-bytes": a.read_bytes,
                          "data-write-bytes": a.write_bytes, "data-errors": a.errors });
    tr.appendChild(el("td", {}, a.name));
    tr.appendChild(el("td", {}, a.host));
    tr.appendChild(el("td", { class: "state-" + a.state }, a.state));
    tr.appendChild(el("td", { class: "num" }, bytes(a.read_bytes)));
    tr.appendChild(el("td", { class: "num" }, bytes(a.write_bytes)));
    tr.appendChild(el("td", { class: "num" }, String(a.errors)));
    body.appendChild(tr);
  }
}

function drawAlerts(state) {
  const ul = $("alerts");
  ul.textContent = "";
  for (const a of state.alerts)
    ul.appendChild(el("li", { "data-rule": a.rule, "data-count": a.count }, `${a.rule}: fired ${a.count} times`));
  for (const a of state.agents)
    if (a.state === "lost" || a.state === "gone")
      ul.appendChild(el("li", { "data-agent-down": a.name }, `agent ${a.name} on ${a.host} is ${a.state}`));
  if (!ul.firstChild) ul.appendChild(el("li", {}, "none"));
}

function render(state) {
  // The run shown: the first one in progress, else the last one listed (just over).
  const run = state.runs.find((r) => r.phase !== "done") || state.runs[state.runs.length - 1];
  const last = run && run.series.length ? run.series[run.series.length - 1] : null;
  setFigure("agents-up", state.agents_up, String(state.agents_up));
  setFigure("agents-known", state.agents_known, String(state.agents_known));
  setFigure("read-bw", last ? last[1] : 0, last ? bytes(last[1]) + "/s" : "–");
  setFigure("write-bw", last ? last[2] : 0, last ? bytes(last[2]) + "/s" : "–");
  setFigure("clat-p99", last ? last[5] : 0, last ? seconds(last[5]) : "–");
  const r = $("run");
  r.dataset.runId = run ? run.run_id : "";
  r.dataset.phase = run ? run.phase : "";
  r.dataset.intervals = run ? String(run.series.length ? run.series[run.series.length - 1][0] + 1 : 0) : "0";
  r.textContent = run ? `${run.run_id} (${run.phase}${run.job ? ", " + run.job : ""}${run.rw ? " rw=" + run.rw : ""}${run.bs ? " bs=" + run.bs : ""})` : "none";
  drawChart(run);
  drawBars(run);
  drawAgents(state.agents);
  drawAlerts(state);
  $("version").textContent = "coordinator " + state.version;
}

function drawRuns(runs) {
  const ul = $("runs");
  ul.textContent = "";
  for (const r of runs.slice(0, 30)) {
    const li = el("li", { "data-run": r.name });
    li.appendChild(el("strong", {}, r.name + " "));
    li.appendChild(el("span", {}, new Date(r.mtime * 1000).toLocaleString() + " "));
    if (r.result) li.appendChild(el("a", { href: r.result }, "result.json"));
    for (const p of r.plots) li.appendChild(el("a", { href: p }, p.split("/").pop()));
    ul.appendChild(li);
  }
  if (!ul.firstChild) ul.appendChild(el("li", {}, "none yet"));
}

/* How the page lies in this window, as data- attributes like its figures: whether it fits the
 * width (nothing to scroll sideways but the agents table's own box) and its column count. */
function layoutFacts() {
  const main = document.querySelector("main");
  document.body.dataset.fits = document.documentElement.scrollWidth <= window.innerWidth ? "1" : "0";
  document.body.dataset.columns = String(getComputedStyle(main).gridTemplateColumns.split(" ").length);
}

async function poll() {
  try {
    const resp = await fetch("/api/state", { cache: "no-store" });
    if (!resp.ok) throw new Error("HTTP " + resp.status);
    render(await resp.json());
    $("status").className = "status";
    $("status").textContent = "updated " + new Date().toLocaleTimeString();
    document.body.dataset.polls = String(Number(document.body.dataset.polls || 0) + 1);
    layoutFacts();
  } catch (e) {
    $("status").className = "status error";
    $("status").textContent = "cannot reach the coordinator: " + e.message;
  }
  setTimeout(poll, 2000);
}

async function pollRuns() {
  try {
    const resp = await fetch("/api/runs", { cache: "no-store" });
    if (resp.ok) drawRuns(await resp.json());
  } catch (e) { /* the state poll says it */ }
  setTimeout(pollRuns, 10000);
}

poll();
pollRuns();
