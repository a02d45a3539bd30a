/* The Prometheus text of /metrics: families and series rendered from the registry, the runs in
 * progress and the cumulative totals (metrics-totals.c); pure, no I/O. */
#include "metrics-render.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics-totals.h"
#include "util.h"

static const struct {
        const char *label;
        double p;
} quantiles[] = {{"0.5", 50.0}, {"0.9", 90.0}, {"0.99", 99.0}, {"0.999", 99.9}};

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

static const char *phase_name(run_phase_t p)
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

static int cmp_totals_name(const void *key, const void *elem)
{
        return strcmp(key, ((const metrics_totals_t *)elem)->name);
}

static const metrics_totals_t *find_base(const metrics_input_t *in, const char *name)
{
        if (!in->n_base)
                return NULL;
        return bsearch(name, in->base, in->n_base, sizeof(*in->base), cmp_totals_name);
}

/* The counter families: one field of metrics_totals_t each. */
static const struct {
        const char *agent, *cluster, *help;
        size_t off;
} counters[] = {
    {"iofleet_agent_read_bytes_total", "iofleet_cluster_read_bytes_total", "Bytes read",
     offsetof(metrics_totals_t, read_bytes)},
    {"iofleet_agent_write_bytes_total", "iofleet_cluster_write_bytes_total", "Bytes written",
     offsetof(metrics_totals_t, write_bytes)},
    {"iofleet_agent_read_ios_total", "iofleet_cluster_read_ios_total", "Read I/Os completed",
     offsetof(metrics_totals_t, read_ios)},
    {"iofleet_agent_write_ios_total", "iofleet_cluster_write_ios_total", "Write I/Os completed",
     offsetof(metrics_totals_t, write_ios)},
    {"iofleet_agent_errors_total", "iofleet_cluster_errors_total", "I/O errors",
     offsetof(metrics_totals_t, errors)},
};

static uint64_t field(const metrics_totals_t *t, size_t off)
{
        return *(const uint64_t *)((const char *)t + off);
}

/* The gauges of the last complete interval: one field of run_interval_t (or cluster_interval_t,
 * which has the same names) per family. */
#define RATE_FIELDS(X)                                                                             \
        X(read_bytes, "read_bytes_per_second", "Read bandwidth in the last complete interval")     \
        X(write_bytes, "write_bytes_per_second", "Write bandwidth in the last complete interval")  \
        X(read_ios, "read_iops", "Read I/Os per second in the last complete interval")             \
        X(write_ios, "write_iops", "Write I/Os per second in the last complete interval")

static void render_agents(FILE *f, const metrics_input_t *in)
{
        size_t n = registry_count(in->reg), by_state[4] = {0, 0, 0, 0};
        static const agent_state_t states[] = {AGENT_IDLE, AGENT_BUSY, AGENT_LOST, AGENT_GONE};

        for (size_t i = 0; i < n; i++) {
                agent_t *a = registry_at(in->reg, i);
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
}

/* Index of the last interval shown to the CLI, or -1. */
static int64_t last_complete(const run_t *run)
{
        if (!run || run->next_emit == 0 || run->next_emit > run->n_civ ||
            !run_civ(run, run->next_emit - 1))
                return -1;
        return (int64_t)run->next_emit - 1;
}

/* name{run_id=".."} or name{run_id="..",LABEL="VALUE"} and a space. */
static void run_series(FILE *f, const char *name, const run_t *run, const char *label,
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

/* An agent's gauge: it belongs to one run at a time, which the series names. */
static void agent_run_series(FILE *f, const char *name, const run_agent_t *a, const run_t *run)
{
        fprintf(f, "%s{agent=\"", name);
        put_escaped(f, a->name);
        fputs("\",host=\"", f);
        put_escaped(f, a->hostname);
        fputs("\",run_id=\"", f);
        put_escaped(f, run->id);
        fputs("\"} ", f);
}

static void render_rates(FILE *f, const metrics_input_t *in)
{
#define AGENT_RATE(fld, suffix, help)                                                              \
        family(f, "iofleet_agent_" suffix, "gauge", help " (one agent)");                          \
        for (size_t r = 0; r < in->n_runs; r++) {                                                  \
                const run_t *run = in->runs[r];                                                    \
                int64_t k = last_complete(run);                                                    \
                double secs = run->interval_ns ? (double)run->interval_ns / 1e9 : 1.0;             \
                for (size_t i = 0; k >= 0 && i < run->n_agents; i++) {                             \
                        const run_agent_t *a = &run->agents[i];                                    \
                        if (a->server) /* an NFS server of the plan: it runs no job */             \
                                continue;                                                          \
                        const run_interval_t *iv = run_agent_iv(a, (size_t)k);                     \
                        if (iv && !iv->received)                                                   \
                                iv = NULL;                                                         \
                        agent_run_series(f, "iofleet_agent_" suffix, a, run);                      \
                        put_double(f, iv ? (double)iv->fld / secs : 0.0);                          \
                }                                                                                  \
        }
        RATE_FIELDS(AGENT_RATE)
#undef AGENT_RATE

#define CLUSTER_RATE(fld, suffix, help)                                                            \
        family(f, "iofleet_cluster_" suffix, "gauge", help " (sum over a run's agents)");          \
        for (size_t r = 0; r < in->n_runs; r++) {                                                  \
                const run_t *run = in->runs[r];                                                    \
                int64_t k = last_complete(run);                                                    \
                double secs = run->interval_ns ? (double)run->interval_ns / 1e9 : 1.0;             \
                if (k < 0)                                                                         \
                        continue;                                                                  \
                run_series(f, "iofleet_cluster_" suffix, run, NULL, NULL);                         \
                put_double(f, (double)run_civ(run, (size_t)k)->fld / secs);                        \
        }
        RATE_FIELDS(CLUSTER_RATE)
#undef CLUSTER_RATE
}

static bool is_folded(const metrics_input_t *in, const run_t *run)
{
        for (size_t i = 0; i < in->n_folded; i++)
                if (in->folded[i] && streq(in->folded[i], run->id))
                        return true;
        return false;
}

static int render_counters(FILE *f, const metrics_input_t *in)
{
        size_t n_run = 0;
        metrics_totals_t *t;
        metrics_totals_t cluster = {};
        bool *used = calloc(in->n_base + 1, sizeof(*used));
        size_t n = 0;

        for (size_t r = 0; r < in->n_runs; r++)
                n_run += is_folded(in, in->runs[r]) ? 0 : in->runs[r]->n_agents;
        t = calloc(n_run + in->n_base + 1, sizeof(*t));
        if (!t || !used) {
                free(t);
                free(used);
                return -ENOMEM;
        }
        /* Agents of the runs in progress: what they did before plus what they did in them. */
        for (size_t r = 0; r < in->n_runs; r++) {
                const run_t *run = in->runs[r];
                const metrics_totals_t *rt = in->run_totals ? in->run_totals[r] : NULL;
                if (is_folded(in, run))
                        continue;
                for (size_t i = 0; i < run->n_agents; i++) {
                        const run_agent_t *a = &run->agents[i];
                        const metrics_totals_t *b = find_base(in, a->name);
                        if (a->server)
                                continue;
                        snprintf(t[n].name, sizeof(t[n].name), "%s", a->name);
                        snprintf(t[n].hostname, sizeof(t[n].hostname), "%s", a->hostname);
                        if (rt)
                                metrics_totals_add(&t[n], &rt[i]);
                        else
                                metrics_totals_sum_agent(a, &t[n]);
                        metrics_totals_add(&cluster, &t[n]);
                        if (b) {
                                metrics_totals_add(&t[n], b);
                                used[b - in->base] = true;
                        }
                        n++;
                }
        }
        for (size_t i = 0; i < in->n_base; i++)
                if (!used[i])
                        t[n++] = in->base[i];
        if (in->cluster_base)
                metrics_totals_add(&cluster, in->cluster_base);

        for (size_t c = 0; c < ELEMENTSOF(counters); c++) {
                char help[128];
                snprintf(help, sizeof(help), "%s by one agent, over every run", counters[c].help);
                family(f, counters[c].agent, "counter", help);
                for (size_t i = 0; i < n; i++) {
                        agent_series(f, counters[c].agent, t[i].name, t[i].hostname);
                        put_u64(f, field(&t[i], counters[c].off));
                }
                snprintf(help, sizeof(help), "%s by all agents, over every run", counters[c].help);
                family(f, counters[c].cluster, "counter", help);
                fprintf(f, "%s ", counters[c].cluster);
                put_u64(f, field(&cluster, counters[c].off));
        }
        free(t);
        free(used);
        return 0;
}

static void render_latency(FILE *f, const metrics_input_t *in)
{
        family(f, "iofleet_clat_seconds", "summary",
               "Completion latency over a run's agents in its last complete interval (not "
               "cumulative: _sum and _count cover that interval)");
        for (size_t r = 0; r < in->n_runs; r++) {
                const run_t *run = in->runs[r];
                int64_t k = last_complete(run);
                const cluster_interval_t *c = k >= 0 ? run_civ(run, (size_t)k) : NULL;
                const hist_t *h = c ? c->clat : NULL;
                if (!h || h->n == 0)
                        continue;
                for (size_t i = 0; i < ELEMENTSOF(quantiles); i++) {
                        run_series(f, "iofleet_clat_seconds", run, "quantile", quantiles[i].label);
                        put_double(f, (double)hist_percentile(h, quantiles[i].p) / 1e9);
                }
                run_series(f, "iofleet_clat_seconds_sum", run, NULL, NULL);
                put_double(f, (double)h->sum / 1e9);
                run_series(f, "iofleet_clat_seconds_count", run, NULL, NULL);
                put_u64(f, h->n);
        }
}

static void render_run(FILE *f, const metrics_input_t *in)
{
        size_t active = 0;
        for (size_t r = 0; r < in->n_runs; r++)
                active += in->runs[r]->phase != RUN_DONE;
        family(f, "iofleet_run_active", "gauge", "Runs in progress");
        fputs("iofleet_run_active ", f);
        put_u64(f, active);
        family(f, "iofleet_run_info", "gauge", "A run in progress: its id and phase");
        for (size_t r = 0; r < in->n_runs; r++) {
                fputs("iofleet_run_info{run_id=\"", f);
                put_escaped(f, in->runs[r]->id);
                fprintf(f, "\",phase=\"%s\"} 1\n", phase_name(in->runs[r]->phase));
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
                const run_t *run = in->runs[r];
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
        render_rates(f, in);
        r = render_counters(f, in);
        render_latency(f, in);
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
