/* The JSON the live web page polls (/api/state), from the same input as /metrics: the agents
 * with their counters over every run, each run in progress with its cluster series and its
 * agents' last interval, and the alerts. */
#include "web-state.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "metrics-totals.h"
#include "util.h"

static int cmp_name(const void *a, const void *b)
{
        return strcmp(((const metrics_totals_t *)a)->name, ((const metrics_totals_t *)b)->name);
}

static json_t *agents_json(const metrics_input_t *in, metrics_totals_t *t, size_t n)
{
        json_t *arr = json_array();
        qsort(t, n, sizeof(*t), cmp_name);
        for (size_t i = 0; arr && i < registry_count(in->reg); i++) {
                coord_agent_t *a = registry_at(in->reg, i);
                metrics_totals_t key = {}, *c;
                snprintf(key.name, sizeof(key.name), "%s", a->name);
                c = n ? bsearch(&key, t, n, sizeof(*t), cmp_name) : NULL;
                json_array_append_new(
                    arr, json_pack("{s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:I}", "name", a->name,
                                   "host", a->hostname, "state", agent_state_to_string(a->state),
                                   "read_bytes", (json_int_t)(c ? c->io.read_bytes : 0), "write_bytes",
                                   (json_int_t)(c ? c->io.write_bytes : 0), "read_ios",
                                   (json_int_t)(c ? c->io.read_ios : 0), "write_ios",
                                   (json_int_t)(c ? c->io.write_ios : 0), "errors",
                                   (json_int_t)(c ? c->io.errors : 0)));
        }
        return arr;
}

/* [k, read B/s, write B/s, read IO/s, write IO/s, clat p99 s] per interval shown. */
static json_t *series_json(const coord_run_t *run, double secs)
{
        json_t *arr = json_array();
        size_t from = run->civ_base;
        if (run->next_emit > from + WEB_STATE_MAX_POINTS)
                from = run->next_emit - WEB_STATE_MAX_POINTS;
        for (size_t k = from; arr && k < run->next_emit; k++) {
                const cluster_interval_t *c = run_civ(run, k);
                if (!c)
                        continue;
                json_array_append_new(
                    arr,
                    json_pack("[I, f, f, f, f, f]", (json_int_t)k, (double)c->io.read_bytes / secs,
                              (double)c->io.write_bytes / secs, (double)c->io.read_ios / secs,
                              (double)c->io.write_ios / secs, (double)c->clat_p99_ns / 1e9));
        }
        return arr;
}

/* Each client agent's bandwidth in the run's last complete interval. */
static json_t *run_agents_json(const coord_run_t *run, double secs)
{
        json_t *arr = json_array();
        int64_t k = run->next_emit ? (int64_t)run->next_emit - 1 : -1;
        for (size_t i = 0; arr && i < run->n_agents; i++) {
                const run_agent_t *a = &run->agents[i];
                const run_interval_t *iv = k >= 0 ? run_agent_iv(a, (size_t)k) : NULL;
                if (a->server)
                        continue;
                if (iv && !iv->received)
                        iv = NULL;
                json_array_append_new(
                    arr, json_pack("{s:s, s:s, s:s, s:f, s:f}", "name", a->name, "host",
                                   a->hostname, "status", run_agent_status(run, a), "read_bw",
                                   iv ? (double)iv->io.read_bytes / secs : 0.0, "write_bw",
                                   iv ? (double)iv->io.write_bytes / secs : 0.0));
        }
        return arr;
}

static json_t *runs_json(const metrics_input_t *in)
{
        json_t *arr = json_array();
        for (size_t r = 0; arr && r < in->n_runs; r++) {
                const coord_run_t *run = in->runs[r];
                const Iofleet__Job *j = metrics_run_job(run);
                const Iofleet__SubmitRun *s = run->submit ? run->submit->submit_run : NULL;
                double secs = run->interval_ns ? (double)run->interval_ns / 1e9 : 1.0;
                json_array_append_new(
                    arr, json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:f, s:f, s:I, s:o, s:o}",
                                   "run_id", run->id, "phase", metrics_phase_name(run->phase),
                                   "plan", s && s->plan_name ? s->plan_name : "", "job",
                                   j && j->name ? j->name : "", "rw", metrics_job_option(j, "rw"),
                                   "bs", metrics_job_option(j, "bs"), "interval_s", secs, "start",
                                   (double)run->start_ns / 1e9, "max_intervals",
                                   (json_int_t)run->max_intervals, "series", series_json(run, secs),
                                   "agents", run_agents_json(run, secs)));
        }
        return arr;
}

int web_state_render(const metrics_input_t *in, char **ret, size_t *len)
{
        metrics_totals_t *t = NULL;
        size_t n = 0, up = 0;
        json_t *doc, *alerts = json_array();
        char *text;

        if (metrics_collect(in, &t, &n) < 0) {
                json_decref(alerts);
                return -ENOMEM;
        }
        for (size_t i = 0; i < registry_count(in->reg); i++) {
                agent_state_t st = registry_at(in->reg, i)->state;
                up += st == AGENT_IDLE || st == AGENT_BUSY;
        }
        for (size_t i = 0; alerts && i < in->n_alerts; i++)
                json_array_append_new(alerts, json_pack("{s:s, s:I}", "rule", in->alerts[i].rule,
                                                        "count", (json_int_t)in->alerts[i].count));
        doc = json_pack("{s:s, s:I, s:I, s:o, s:o, s:o}", "version", IOFLEET_VERSION, "agents_up",
                        (json_int_t)up, "agents_known", (json_int_t)registry_count(in->reg),
                        "agents", agents_json(in, t, n), "runs", runs_json(in), "alerts", alerts);
        free(t);
        text = doc ? json_dumps(doc, JSON_COMPACT) : NULL;
        json_decref(doc);
        if (!text)
                return -ENOMEM;
        *ret = text;
        if (len)
                *len = strlen(text);
        return 0;
}
