/* Prometheus /metrics for the coordinator: a pure text renderer and a small HTTP server that
 * asks the coordinator loop for a fresh snapshot on each scrape. */
#include "metrics.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "util.h"

/* How long a scrape waits for the coordinator loop to render; then it gets the last snapshot. */
#define METRICS_WAIT_S 2
#define METRICS_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

static const struct {
        const char *label;
        double p;
} quantiles[] = {{"0.5", 50.0}, {"0.9", 90.0}, {"0.99", 99.0}, {"0.999", 99.9}};

/* --- rendering ------------------------------------------------------------------------- */

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

/* Counts of one run agent over every interval it sent. */
static void sum_agent(const run_agent_t *a, metrics_totals_t *t)
{
        /* What was shown (older intervals may have left memory for the spool), plus what came in
         * for intervals not shown yet. */
        io_counts_add(&t->io, &a->shown_io);
        for (size_t k = a->iv_base; k < a->iv_base + a->n_iv; k++) {
                const run_interval_t *iv = run_agent_iv(a, k);
                if (!iv->received || iv->shown)
                        continue;
                io_counts_add(&t->io, &iv->io);
        }
}

static void add_totals(metrics_totals_t *dst, const metrics_totals_t *src)
{
        io_counts_add(&dst->io, &src->io);
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
     offsetof(metrics_totals_t, io.read_bytes)},
    {"iofleet_agent_write_bytes_total", "iofleet_cluster_write_bytes_total", "Bytes written",
     offsetof(metrics_totals_t, io.write_bytes)},
    {"iofleet_agent_read_ios_total", "iofleet_cluster_read_ios_total", "Read I/Os completed",
     offsetof(metrics_totals_t, io.read_ios)},
    {"iofleet_agent_write_ios_total", "iofleet_cluster_write_ios_total", "Write I/Os completed",
     offsetof(metrics_totals_t, io.write_ios)},
    {"iofleet_agent_errors_total", "iofleet_cluster_errors_total", "I/O errors",
     offsetof(metrics_totals_t, io.errors)},
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
                        put_double(f, iv ? (double)iv->io.fld / secs : 0.0);                       \
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
                put_double(f, (double)run_civ(run, (size_t)k)->io.fld / secs);                     \
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
                                add_totals(&t[n], &rt[i]);
                        else
                                sum_agent(a, &t[n]);
                        add_totals(&cluster, &t[n]);
                        if (b) {
                                add_totals(&t[n], b);
                                used[b - in->base] = true;
                        }
                        n++;
                }
        }
        for (size_t i = 0; i < in->n_base; i++)
                if (!used[i])
                        t[n++] = in->base[i];
        if (in->cluster_base)
                add_totals(&cluster, in->cluster_base);

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

/* --- state kept between renderings ------------------------------------------------------- */

/* A run followed between renderings: its counts so far, one entry per agent. */
typedef struct tracked {
        char id[WIRE_MAX_ID + 1];
        metrics_totals_t *cur;
        size_t n_cur;
} tracked_t;

#define METRICS_FOLDED 32

struct metrics {
        struct MHD_Daemon *daemon;
        uint16_t port;
        pthread_mutex_t lock; /* guards text, len, gen and wanted: the HTTP thread uses them */
        pthread_cond_t rendered; /* after each rendering */
        char *text;
        size_t len;
        uint64_t gen;  /* renderings so far */
        bool wanted;   /* a scrape waits for a rendering */
        int wake_fd;   /* eventfd, readable while wanted: wakes the coordinator loop */
        /* Totals of runs that are over, sorted by agent name. */
        metrics_totals_t *base;
        size_t n_base, cap_base;
        metrics_totals_t cluster;
        /* Runs whose counts are in base (the last few), so that none counts twice. */
        char folded[METRICS_FOLDED][WIRE_MAX_ID + 1];
        size_t next_folded;
        tracked_t *tracked;
        size_t n_tracked;
        metrics_alert_t *alerts;
        size_t n_alerts;
};

static int base_add(metrics_t *m, const metrics_totals_t *t)
{
        metrics_totals_t *b;
        size_t lo = 0, hi = m->n_base;

        while (lo < hi) {
                size_t mid = (lo + hi) / 2;
                int c = strcmp(t->name, m->base[mid].name);
                if (c == 0) {
                        add_totals(&m->base[mid], t);
                        /* The host an agent name was last seen on. */
                        snprintf(m->base[mid].hostname, sizeof(m->base[mid].hostname), "%s",
                                 t->hostname);
                        return 0;
                }
                if (c < 0)
                        hi = mid;
                else
                        lo = mid + 1;
        }
        if (m->n_base == m->cap_base) {
                size_t cap = m->cap_base ? m->cap_base * 2 : 16;
                b = realloc(m->base, cap * sizeof(*b));
                if (!b)
                        return -ENOMEM;
                m->base = b;
                m->cap_base = cap;
        }
        memmove(&m->base[lo + 1], &m->base[lo], (m->n_base - lo) * sizeof(*m->base));
        m->base[lo] = *t;
        m->n_base++;
        return 0;
}

static bool was_folded(const metrics_t *m, const char *id)
{
        for (size_t i = 0; i < METRICS_FOLDED; i++)
                if (streq(m->folded[i], id))
                        return true;
        return false;
}

static void untrack(metrics_t *m, size_t i)
{
        free(m->tracked[i].cur);
        m->tracked[i] = m->tracked[--m->n_tracked];
}

/* Moves tracked run i's counts into the cumulative totals. run (when given) is over: every
 * interval it holds is summed instead of what was summed so far. */
static void fold(metrics_t *m, size_t i, const run_t *run)
{
        tracked_t *tr = &m->tracked[i];
        for (size_t a = 0; a < tr->n_cur; a++) {
                metrics_totals_t t = tr->cur[a];
                if (run && a < run->n_agents) {
                        memset(&t, 0, sizeof(t));
                        snprintf(t.name, sizeof(t.name), "%s", run->agents[a].name);
                        snprintf(t.hostname, sizeof(t.hostname), "%s", run->agents[a].hostname);
                        sum_agent(&run->agents[a], &t);
                }
                if (run && a < run->n_agents && run->agents[a].server)
                        continue;
                add_totals(&m->cluster, &t);
                if (base_add(m, &t) < 0)
                        log_warning("metrics: out of memory: counters of agent %s lost", t.name);
        }
        snprintf(m->folded[m->next_folded], sizeof(m->folded[0]), "%s", tr->id);
        m->next_folded = (m->next_folded + 1) % METRICS_FOLDED;
        untrack(m, i);
}

static tracked_t *find_tracked(metrics_t *m, const char *id)
{
        for (size_t i = 0; i < m->n_tracked; i++)
                if (streq(m->tracked[i].id, id))
                        return &m->tracked[i];
        return NULL;
}

/* Follows the runs: sums the intervals each has shown since the last call; a run that is over
 * moves into the totals. */
static int track(metrics_t *m, const run_t *const *runs, size_t n)
{
        for (size_t i = 0; i < m->n_tracked;) {
                bool present = false;
                for (size_t r = 0; r < n && !present; r++)
                        present = streq(runs[r]->id, m->tracked[i].id);
                if (present)
                        i++;
                else
                        fold(m, i, NULL); /* it went away without being seen done */
        }
        for (size_t r = 0; r < n; r++) {
                const run_t *run = runs[r];
                tracked_t *tr;
                if (was_folded(m, run->id))
                        continue;
                if (!(tr = find_tracked(m, run->id))) {
                        tracked_t *v = realloc(m->tracked, (m->n_tracked + 1) * sizeof(*v));
                        if (!v)
                                return -ENOMEM;
                        m->tracked = v;
                        tr = &v[m->n_tracked];
                        memset(tr, 0, sizeof(*tr));
                        if (!(tr->cur = calloc(run->n_agents + 1, sizeof(*tr->cur))))
                                return -ENOMEM;
                        m->n_tracked++;
                        tr->n_cur = run->n_agents;
                        snprintf(tr->id, sizeof(tr->id), "%s", run->id);
                        for (size_t i = 0; i < run->n_agents; i++) {
                                snprintf(tr->cur[i].name, sizeof(tr->cur[i].name), "%s",
                                         run->agents[i].name);
                                snprintf(tr->cur[i].hostname, sizeof(tr->cur[i].hostname), "%s",
                                         run->agents[i].hostname);
                        }
                }
                /* Intervals already shown are settled; late ones count when the run is
                 * folded. */
                for (size_t i = 0; i < tr->n_cur && i < run->n_agents; i++) {
                        const run_agent_t *a = &run->agents[i];
                        tr->cur[i].io = a->shown_io;
                }
                if (run_done(run))
                        fold(m, (size_t)(tr - m->tracked), run);
        }
        return 0;
}

void metrics_want(metrics_t *m)
{
        pthread_mutex_lock(&m->lock);
        if (!m->wanted) {
                m->wanted = true;
                if (m->wake_fd >= 0)
                        (void)eventfd_write(m->wake_fd, 1);
        }
        pthread_mutex_unlock(&m->lock);
}

int metrics_fd(const metrics_t *m)
{
        return m ? m->wake_fd : -1;
}

void metrics_update(metrics_t *m, registry_t *reg, const run_t *const *runs, size_t n_runs)
{
        bool finished = false, wanted;
        metrics_input_t in = {};
        const char *folded[METRICS_FOLDED];
        const metrics_totals_t **totals = NULL;
        char *text = NULL;
        size_t len = 0;

        for (size_t r = 0; m && r < n_runs; r++)
                finished |= run_done(runs[r]) && !was_folded(m, runs[r]->id);
        if (!m)
                return;
        pthread_mutex_lock(&m->lock);
        wanted = m->wanted;
        if (wanted && m->wake_fd >= 0) {
                eventfd_t v;
                (void)eventfd_read(m->wake_fd, &v);
        }
        m->wanted = false;
        pthread_mutex_unlock(&m->lock);
        if (!wanted && !finished)
                return;
        if (track(m, runs, n_runs) < 0) {
                log_warning("metrics: out of memory");
                return;
        }
        totals = calloc(n_runs + 1, sizeof(*totals));
        for (size_t r = 0; totals && r < n_runs; r++) {
                tracked_t *tr = find_tracked(m, runs[r]->id);
                totals[r] = tr && tr->n_cur == runs[r]->n_agents ? tr->cur : NULL;
        }
        for (size_t i = 0; i < METRICS_FOLDED; i++)
                folded[i] = m->folded[i];
        in.reg = reg;
        in.runs = runs;
        in.n_runs = n_runs;
        in.folded = folded;
        in.n_folded = METRICS_FOLDED;
        in.base = m->base;
        in.n_base = m->n_base;
        in.cluster_base = &m->cluster;
        in.alerts = m->alerts;
        in.n_alerts = m->n_alerts;
        in.run_totals = totals;
        if (metrics_render(&in, &text, &len) < 0)
                log_warning("metrics: out of memory: the snapshot is not updated");
        free(totals);
        pthread_mutex_lock(&m->lock);
        if (text) {
                free(m->text);
                m->text = text;
                m->len = len;
        }
        m->gen++;
        pthread_cond_broadcast(&m->rendered);
        pthread_mutex_unlock(&m->lock);
}

int metrics_set_alerts(metrics_t *m, const metrics_alert_t *alerts, size_t n)
{
        metrics_alert_t *a = NULL;
        if (n) {
                a = malloc(n * sizeof(*a));
                if (!a)
                        return -ENOMEM;
                memcpy(a, alerts, n * sizeof(*a));
        }
        free(m->alerts);
        m->alerts = a;
        m->n_alerts = n;
        return 0;
}

char *metrics_snapshot(metrics_t *m)
{
        char *s = NULL;
        pthread_mutex_lock(&m->lock);
        if (m->text)
                s = strdup(m->text);
        pthread_mutex_unlock(&m->lock);
        return s;
}

/* --- HTTP ------------------------------------------------------------------------------ */

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *text,
                             size_t len, bool copy)
{
        struct MHD_Response *resp;
        enum MHD_Result ret;

        resp = MHD_create_response_from_buffer(
            len, (void *)text, copy ? MHD_RESPMEM_MUST_COPY : MHD_RESPMEM_PERSISTENT);
        if (!resp)
                return MHD_NO;
        MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE,
                                status == MHD_HTTP_OK ? METRICS_CONTENT_TYPE
                                                      : "text/plain; charset=utf-8");
        if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
                MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
        ret = MHD_queue_response(c, status, resp);
        MHD_destroy_response(resp);
        return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *upload_data,
                                  size_t *upload_data_size, void **req_cls)
{
        static int first;
        metrics_t *m = cls;
        enum MHD_Result ret;

        /* The first call only announces the request; a body, if any, is ignored. */
        if (!*req_cls) {
                *req_cls = &first;
                return MHD_YES;
        }
        if (*upload_data_size) {
                *upload_data_size = 0;
                return MHD_YES;
        }
        if (!streq(url, "/metrics")) {
                static const char msg[] = "not found: only /metrics is served here\n";
                return reply(c, MHD_HTTP_NOT_FOUND, msg, sizeof(msg) - 1, false);
        }
        if (!streq(method, MHD_HTTP_METHOD_GET) && !streq(method, MHD_HTTP_METHOD_HEAD)) {
                static const char msg[] = "method not allowed: use GET\n";
                return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, msg, sizeof(msg) - 1, false);
        }
        /* A fresh rendering from the coordinator loop: rendering thousands of agents' series
         * costs it nothing while nobody scrapes. */
        metrics_want(m);
        pthread_mutex_lock(&m->lock);
        {
                uint64_t want = m->gen + 1;
                struct timespec until;
                clock_gettime(CLOCK_MONOTONIC, &until);
                until.tv_sec += METRICS_WAIT_S;
                while (m->gen < want &&
                       pthread_cond_timedwait(&m->rendered, &m->lock, &until) == 0)
                        ;
        }
        if (m->text)
                ret = reply(c, MHD_HTTP_OK, m->text, m->len, true);
        else {
                static const char msg[] = "no snapshot yet: try again in a second\n";
                ret = reply(c, MHD_HTTP_SERVICE_UNAVAILABLE, msg, sizeof(msg) - 1, false);
        }
        pthread_mutex_unlock(&m->lock);
        return ret;
}

/* "HOST:PORT" or "[V6]:PORT" into an address; "*" as host means every address. */
static int parse_listen(const char *listen, struct sockaddr_storage *ss, socklen_t *sslen)
{
        char host[256], *colon;
        const char *port;
        struct addrinfo hints = {.ai_socktype = SOCK_STREAM,
                                 .ai_flags = AI_PASSIVE | AI_NUMERICSERV},
                        *ai = NULL;
        unsigned long p;
        char *end;

        if (listen[0] == '[') {
                const char *close = strchr(listen, ']');
                if (!close || close[1] != ':' || (size_t)(close - listen - 1) >= sizeof(host))
                        return -EINVAL;
                snprintf(host, sizeof(host), "%.*s", (int)(close - listen - 1), listen + 1);
                port = close + 2;
                hints.ai_flags |= AI_NUMERICHOST;
        } else {
                if (strlen(listen) >= sizeof(host))
                        return -EINVAL;
                snprintf(host, sizeof(host), "%s", listen);
                colon = strrchr(host, ':');
                if (!colon || strchr(host, ':') != colon)
                        return -EINVAL;
                *colon = 0;
                port = listen + (colon - host) + 1;
        }
        errno = 0;
        p = strtoul(port, &end, 10);
        if (!*port || *end || errno || p > 65535 || !host[0])
                return -EINVAL;
        if (getaddrinfo(streq(host, "*") ? NULL : host, port, &hints, &ai) != 0 || !ai)
                return -EINVAL;
        memcpy(ss, ai->ai_addr, ai->ai_addrlen);
        *sslen = ai->ai_addrlen;
        freeaddrinfo(ai);
        return 0;
}

static bool is_loopback(const struct sockaddr_storage *ss)
{
        if (ss->ss_family == AF_INET)
                return (ntohl(((const struct sockaddr_in *)ss)->sin_addr.s_addr) >> 24) == 127;
        if (ss->ss_family == AF_INET6) {
                const struct in6_addr *a = &((const struct sockaddr_in6 *)ss)->sin6_addr;
                return IN6_IS_ADDR_LOOPBACK(a) ||
                       (IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127);
        }
        return false;
}

int metrics_new(const char *listen, unsigned max_connections, metrics_t **ret)
{
        struct sockaddr_storage ss = {};
        socklen_t sslen = 0;
        const union MHD_DaemonInfo *info;
        unsigned flags = MHD_USE_AUTO_INTERNAL_THREAD;
        metrics_t *m;
        int r;

        if (!listen || !listen[0] || streq(listen, "off")) {
                *ret = NULL;
                return 0;
        }
        if (parse_listen(listen, &ss, &sslen) < 0) {
                log_error("metrics_listen: '%s' is not HOST:PORT ([V6]:PORT for IPv6, PORT "
                          "0..65535), nor 'off'",
                          listen);
                return -EINVAL;
        }
        if (!is_loopback(&ss))
                log_notice("metrics_listen=%s: /metrics is served without authentication to "
                           "anyone who can reach that address",
                           listen);
        m = calloc(1, sizeof(*m));
        if (!m)
                return -ENOMEM;
        pthread_mutex_init(&m->lock, NULL);
        {
                pthread_condattr_t ca;
                pthread_condattr_init(&ca);
                pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
                pthread_cond_init(&m->rendered, &ca);
                pthread_condattr_destroy(&ca);
        }
        m->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        if (m->wake_fd < 0) {
                r = -errno;
                pthread_cond_destroy(&m->rendered);
                pthread_mutex_destroy(&m->lock);
                free(m);
                return r;
        }
        if (ss.ss_family == AF_INET6)
                flags |= MHD_USE_IPv6;
        /* Scrapers are few and quick. Idle connections are closed after a few seconds, no
         * address holds more than half the connections (so one flooding host leaves room for
         * the scraper), and the limit stays within the descriptors the coordinator set aside;
         * epoll (MHD_USE_AUTO picks it) serves descriptors beyond FD_SETSIZE. */
        if (max_connections < 2)
                max_connections = 2;
        m->daemon = MHD_start_daemon(
            flags, 0, NULL, NULL, on_request, m, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
            MHD_OPTION_CONNECTION_LIMIT, max_connections, MHD_OPTION_PER_IP_CONNECTION_LIMIT,
            max_connections / 2, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)METRICS_IDLE_TIMEOUT_S,
            MHD_OPTION_END);
        if (!m->daemon) {
                r = errno ? -errno : -EADDRINUSE;
                metrics_free(&m);
                return r;
        }
        info = MHD_get_daemon_info(m->daemon, MHD_DAEMON_INFO_BIND_PORT);
        m->port = info ? info->port : 0;
        *ret = m;
        return 0;
}

uint16_t metrics_port(const metrics_t *m)
{
        return m ? m->port : 0;
}

void metrics_free(metrics_t **mp)
{
        metrics_t *m = *mp;
        if (!m)
                return;
        if (m->daemon)
                MHD_stop_daemon(m->daemon);
        pthread_mutex_destroy(&m->lock);
        pthread_cond_destroy(&m->rendered);
        if (m->wake_fd >= 0)
                close(m->wake_fd);
        free(m->text);
        free(m->base);
        free(m->alerts);
        while (m->n_tracked)
                untrack(m, 0);
        free(m->tracked);
        free(m);
        *mp = NULL;
}
