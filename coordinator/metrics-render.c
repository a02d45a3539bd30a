/* The Prometheus text of /metrics: families and series rendered from the registry, the runs in
 * progress and the cumulative totals (metrics-totals.c); pure, no I/O. */
#include "metrics-render.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics-totals.h"
#include "util.h"

size_t metrics_escape_label(const char *s, char *buf, size_t len)
{
        size_t n = 0;
        for (; *s; s++) {
                const char *rep = NULL;
                char one[2] = {*s, 0};
                if (*s == '\\')
                        rep = "\\\\";
                else if (*s == '"')
                        rep = "\\\"";
                else if (*s == '\n')
                        rep = "\\n";
                else
                        rep = one;
                for (; *rep; rep++, n++)
                        if (n + 1 < len)
                                buf[n] = *rep;
        }
        if (len)
                buf[n < len ? n : len - 1] = 0;
        return n;
}

/* Runs of plain characters go out whole: thousands of agents' labels every second. */
static void put_escaped(FILE *f, const char *s)
{
        while (*s) {
                size_t n = strcspn(s, "\\\"\n");
                if (n)
                        fwrite(s, 1, n, f);
                s += n;
                if (!*s)
                        break;
                fputs(*s == '\\' ? "\\\\" : *s == '"' ? "\\\"" : "\\n", f);
                s++;
        }
}

static void family(FILE *f, const char *name, const char *type, const char *help)
{
        fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* name{agent="..",host=".."} */
static void agent_series(FILE *f, const char *name, const char *agent, const char *host)
{
        fprintf(f, "%s{agent=\"", name);
        put_escaped(f, agent);
        fputs("\",host=\"", f);
        put_escaped(f, host);
        fputs("\"} ", f);
}

static void put_double(FILE *f, double v)
{
        fprintf(f, "%.10g\n", v);
}

static void put_u64(FILE *f, uint64_t v)
{
        fprintf(f, "%llu\n", (unsigned long long)v);
}

const char *metrics_phase_name(run_phase_t p)
{
        switch (p) {
        case RUN_PREPARING:
                return "preparing";
        case RUN_STARTING:
                return "starting";
        case RUN_RUNNING:
                return "running";
        case RUN_STOPPING:
                return "stopping";
        case RUN_DONE:
                return "done";
        }
        return "unknown";
}

/* The counter families: one field of metrics_totals_t each, the direction as a label. */
static const struct {
        const char *name, *direction, *help;
        size_t off;
} counters[] = {
    {"iofleet_bytes_total", "read", "Bytes transferred by one agent, over every run",
     offsetof(metrics_totals_t, io.read_bytes)},
    {"iofleet_bytes_total", "write", NULL, offsetof(metrics_totals_t, io.write_bytes)},
    {"iofleet_ios_total", "read", "I/Os completed by one agent, over every run",
     offsetof(metrics_totals_t, io.read_ios)},
    {"iofleet_ios_total", "write", NULL, offsetof(metrics_totals_t, io.write_ios)},
    {"iofleet_errors_total", NULL, "I/O errors of one agent (either direction), over every run",
     offsetof(metrics_totals_t, io.errors)},
};

static uint64_t field(const metrics_totals_t *t, size_t off)
{
        return *(const uint64_t *)((const char *)t + off);
}

static void render_agents(FILE *f, const metrics_input_t *in)
{
        size_t n = registry_count(in->reg), by_state[4] = {0, 0, 0, 0};
        static const agent_state_t states[] = {AGENT_IDLE, AGENT_BUSY, AGENT_LOST, AGENT_GONE};

        for (size_t i = 0; i < n; i++) {
                coord_agent_t *a = registry_at(in->reg, i);
                if (a->state <= AGENT_GONE)
                        by_state[a->state]++;
        }
        family(f, "iofleet_agents", "gauge", "Agents the coordinator knows, by state");
        for (size_t i = 0; i < ELEMENTSOF(states); i++) {
                fprintf(f, "iofleet_agents{state=\"%s\"} ", agent_state_to_string(states[i]));
                put_u64(f, by_state[states[i]]);
        }
        family(f, "iofleet_agents_known", "gauge", "Agents in the registry, lost ones included");
        fputs("iofleet_agents_known ", f);
        put_u64(f, n);
        family(f, "iofleet_agents_up", "gauge", "Agents heard from within their lease");
        fputs("iofleet_agents_up ", f);
        put_u64(f, by_state[AGENT_IDLE] + by_state[AGENT_BUSY]);
        family(f, "iofleet_agent_up", "gauge",
               "1 while an agent is heard from within its lease, 0 once it is lost or gone");
        for (size_t i = 0; i < n; i++) {
                coord_agent_t *a = registry_at(in->reg, i);
                agent_series(f, "iofleet_agent_up", a->name, a->hostname);
                put_u64(f, a->state == AGENT_IDLE || a->state == AGENT_BUSY);
        }
}

/* Index of the last interval shown to the CLI, or -1. */
static int64_t last_complete(const coord_run_t *run)
{
        if (!run || run->next_emit == 0 || run->next_emit > run->n_civ ||
            !run_civ(run, run->next_emit - 1))
                return -1;
        return (int64_t)run->next_emit - 1;
}

/* name{run_id=".."} or name{run_id="..",LABEL="VALUE"} and a space. */
static void run_series(FILE *f, const char *name, const coord_run_t *run, const char *label,
                       const char *value)
{
        fprintf(f, "%s{run_id=\"", name);
        put_escaped(f, run->id);
        if (label) {
                fprintf(f, "\",%s=\"", label);
                put_escaped(f, value);
        }
        fputs("\"} ", f);
}

/* name{agent="..",host="..",direction=".."[,le=".."]} and a space; direction NULL: none. */
static void agent_series_dir(FILE *f, const char *name, const metrics_totals_t *t,
                             const char *direction, const char *le)
{
        fprintf(f, "%s{agent=\"", name);
        put_escaped(f, t->name);
        fputs("\",host=\"", f);
        put_escaped(f, t->hostname);
        if (direction)
                fprintf(f, "\",direction=\"%s", direction);
        if (le)
                fprintf(f, "\",le=\"%s", le);
        fputs("\"} ", f);
}

/* The completion latency of each agent and direction, cumulative over every run, in the fixed
 * buckets of clat-buckets.c: histogram_quantile() over sum by (le) works across agents. */
static void render_histogram(FILE *f, const metrics_totals_t *t, size_t n)
{
        static const char *const dirs[] = {"read", "write"};
        family(f, "iofleet_clat_seconds", "histogram",
               "Completion latency of one agent's I/Os, over every run");
        for (size_t i = 0; i < n; i++)
                for (size_t d = 0; d < 2; d++) {
                        const clat_buckets_t *b = d ? &t[i].clat_write : &t[i].clat_read;
                        uint64_t cum = 0;
                        for (size_t k = 0; k < CLAT_BUCKETS; k++) {
                                cum += b->n[k];
                                agent_series_dir(f, "iofleet_clat_seconds_bucket", &t[i], dirs[d],
                                                 clat_bounds[k].le);
                                put_u64(f, cum);
                        }
                        agent_series_dir(f, "iofleet_clat_seconds_bucket", &t[i], dirs[d], "+Inf");
                        put_u64(f, b->count);
                        agent_series_dir(f, "iofleet_clat_seconds_sum", &t[i], dirs[d], NULL);
                        put_double(f, (double)b->sum_ns / 1e9);
                        agent_series_dir(f, "iofleet_clat_seconds_count", &t[i], dirs[d], NULL);
                        put_u64(f, b->count);
                }
}

static int render_counters(FILE *f, const metrics_input_t *in)
{
        metrics_totals_t *t = NULL;
        size_t n = 0;

        if (metrics_collect(in, &t, &n) < 0)
                return -ENOMEM;
        for (size_t c = 0; c < ELEMENTSOF(counters); c++) {
                if (counters[c].help)
                        family(f, counters[c].name, "counter", counters[c].help);
                for (size_t i = 0; i < n; i++) {
                        agent_series_dir(f, counters[c].name, &t[i], counters[c].direction, NULL);
                        put_u64(f, field(&t[i], counters[c].off));
                }
        }
        render_histogram(f, t, n);
        free(t);
        return 0;
}

/* The first job a run's clients run (the run's own, or its plan's first client part's). */
const Iofleet__Job *metrics_run_job(const coord_run_t *run)
{
        const Iofleet__SubmitRun *s = run->submit ? run->submit->submit_run : NULL;
        if (!s)
                return NULL;
        if (s->n_jobs)
                return s->jobs[0];
        for (size_t i = 0; i < s->n_parts; i++)
                if (s->parts[i]->n_jobs)
                        return s->parts[i]->jobs[0];
        return NULL;
}

const char *metrics_job_option(const Iofleet__Job *j, const char *key)
{
        for (size_t i = 0; j && i < j->n_options; i++)
                if (streq(j->options[i]->key, key))
                        return j->options[i]->value;
        return "";
}

static void label(FILE *f, const char *key, const char *value)
{
        fprintf(f, ",%s=\"", key);
        put_escaped(f, value ? value : "");
        fputc('"', f);
}

/* The info metric of a run: what it is, as labels (join it on run_id in PromQL). */
static void run_info(FILE *f, const coord_run_t *run)
{
        const Iofleet__SubmitRun *s = run->submit ? run->submit->submit_run : NULL;
        const Iofleet__Job *j = metrics_run_job(run);
        char point[16] = "";

        if (s && s->sweep_id && s->sweep_id[0])
                snprintf(point, sizeof(point), "%u", s->point);
        fputs("iofleet_run_info{run_id=\"", f);
        put_escaped(f, run->id);
        fputc('"', f);
        label(f, "phase", metrics_phase_name(run->phase));
        label(f, "plan", s ? s->plan_name : "");
        label(f, "job", j ? j->name : "");
        label(f, "rw", metrics_job_option(j, "rw"));
        label(f, "bs", metrics_job_option(j, "bs"));
        label(f, "sweep_id", s ? s->sweep_id : "");
        label(f, "point", point);
        fputs("} 1\n", f);
}

static void render_run(FILE *f, const metrics_input_t *in)
{
        size_t active = 0;
        for (size_t r = 0; r < in->n_runs; r++)
                active += in->runs[r]->phase != RUN_DONE;
        family(f, "iofleet_run_active", "gauge", "Runs in progress");
        fputs("iofleet_run_active ", f);
        put_u64(f, active);
        family(f, "iofleet_run_info", "gauge",
               "A run in progress (value 1): its id, phase, plan, first job and sweep point");
        for (size_t r = 0; r < in->n_runs; r++)
                run_info(f, in->runs[r]);
        family(f, "iofleet_run_start_time_seconds", "gauge",
               "When a run's agents were told to start (Unix time)");
        for (size_t r = 0; r < in->n_runs; r++) {
                if (!in->runs[r]->start_ns)
                        continue;
                run_series(f, "iofleet_run_start_time_seconds", in->runs[r], NULL, NULL);
                fprintf(f, "%.3f\n", (double)in->runs[r]->start_ns / 1e9); /* ms, not %g's s */
        }
        family(f, "iofleet_run_agents", "gauge", "Agents in a run");
        for (size_t r = 0; r < in->n_runs; r++) {
                run_series(f, "iofleet_run_agents", in->runs[r], NULL, NULL);
                put_u64(f, in->runs[r]->n_agents);
        }
        family(f, "iofleet_run_agents_away", "gauge",
               "Agents of a run that lost touch and may come back (within the orphan grace)");
        for (size_t r = 0; r < in->n_runs; r++) {
                size_t away = 0;
                for (size_t i = 0; i < in->runs[r]->n_agents; i++)
                        away += in->runs[r]->agents[i].lost && !in->runs[r]->agents[i].gone;
                run_series(f, "iofleet_run_agents_away", in->runs[r], NULL, NULL);
                put_u64(f, away);
        }
        family(f, "iofleet_run_interval_seconds", "gauge", "Reporting interval of a run");
        for (size_t r = 0; r < in->n_runs; r++) {
                run_series(f, "iofleet_run_interval_seconds", in->runs[r], NULL, NULL);
                put_double(f, (double)in->runs[r]->interval_ns / 1e9);
        }
        family(f, "iofleet_run_interval_index", "gauge",
               "Index of the last complete interval of a run (from 0)");
        for (size_t r = 0; r < in->n_runs; r++) {
                int64_t k = last_complete(in->runs[r]);
                if (k < 0)
                        continue;
                run_series(f, "iofleet_run_interval_index", in->runs[r], NULL, NULL);
                put_u64(f, (uint64_t)k);
        }
        family(f, "iofleet_run_start_skew_seconds", "gauge",
               "Spread of the instants the agents of a run started");
        for (size_t r = 0; r < in->n_runs; r++) {
                const coord_run_t *run = in->runs[r];
                if (!(run->phase == RUN_RUNNING || run->phase == RUN_STOPPING ||
                      (run->phase == RUN_DONE && run->start_ns)))
                        continue;
                run_series(f, "iofleet_run_start_skew_seconds", run, NULL, NULL);
                put_double(f, (double)run->start_skew_ns / 1e9);
        }
}

static void render_alerts(FILE *f, const metrics_input_t *in)
{
        family(f, "iofleet_alerts_total", "counter", "Times each alert rule fired");
        for (size_t i = 0; i < in->n_alerts; i++) {
                fputs("iofleet_alerts_total{rule=\"", f);
                put_escaped(f, in->alerts[i].rule);
                fputs("\"} ", f);
                put_u64(f, in->alerts[i].count);
        }
}

int metrics_render(const metrics_input_t *in, char **ret, size_t *len)
{
        char *buf = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&buf, &size);
        int r;

        if (!f)
                return -ENOMEM;
        family(f, "iofleet_coordinator_info", "gauge", "The coordinator's version");
        fprintf(f, "iofleet_coordinator_info{version=\"%s\"} 1\n", IOFLEET_VERSION);
        render_agents(f, in);
        render_run(f, in);
        r = render_counters(f, in);
        render_alerts(f, in);
        if (ferror(f))
                r = -ENOMEM;
        if (fclose(f) != 0 && r >= 0)
                r = -ENOMEM;
        if (r < 0) {
                free(buf);
                return r;
        }
        *ret = buf;
        if (len)
                *len = size;
        return 0;
}
