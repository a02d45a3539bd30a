/* Prometheus /metrics for the coordinator: a pure text renderer and a small HTTP server that
 * serves the last rendered snapshot. */
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
#include <sys/socket.h>

#include "log.h"
#include "util.h"

#define METRICS_PERIOD_NS ((int64_t)NSEC_PER_SEC)
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

static void put_escaped(FILE *f, const char *s)
{
        for (; *s; s++) {
                if (*s == '\\')
                        fputs("\\\\", f);
                else if (*s == '"')
                        fputs("\\\"", f);
                else if (*s == '\n')
                        fputs("\\n", f);
                else
                        fputc(*s, f);
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
        t->read_bytes += a->shown_read_bytes;
        t->write_bytes += a->shown_write_bytes;
        t->read_ios += a->shown_read_ios;
        t->write_ios += a->shown_write_ios;
        t->errors += a->shown_errors;
        for (size_t k = a->iv_base; k < a->iv_base + a->n_iv; k++) {
                const run_interval_t *iv = run_agent_iv(a, k);
                if (!iv->received || iv->shown)
                        continue;
                t->read_bytes += iv->read_bytes;
                t->write_bytes += iv->write_bytes;
                t->read_ios += iv->read_ios;
                t->write_ios += iv->write_ios;
                t->errors += iv->errors;
        }
}

static void add_totals(metrics_totals_t *dst, const metrics_totals_t *src)
{
        dst->read_bytes += src->read_bytes;
        dst->write_bytes += src->write_bytes;
        dst->read_ios += src->read_ios;
        dst->write_ios += src->write_ios;
        dst->errors += src->errors;
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
        size_t n = registry_count(in->reg), by_state[3] = {0, 0, 0};
        static const agent_state_t states[] = {AGENT_IDLE, AGENT_BUSY, AGENT_LOST};

        for (size_t i = 0; i < n; i++) {
                agent_t *a = registry_at(in->reg, i);
                if (a->state <= AGENT_LOST)
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

static void render_rates(FILE *f, const metrics_input_t *in)
{
        const run_t *run = in->run;
        int64_t k = last_complete(run);
        double secs = run && run->interval_ns ? (double)run->interval_ns / 1e9 : 1.0;

#define AGENT_RATE(fld, suffix, help)                                                              \
        family(f, "iofleet_agent_" suffix, "gauge", help " (one agent)");                          \
        for (size_t i = 0; k >= 0 && i < run->n_agents; i++) {                                     \
                const run_agent_t *a = &run->agents[i];                                            \
                if (a->server) /* an NFS server of the plan: it runs no job */                     \
                        continue;                                                                  \
                const run_interval_t *iv = run_agent_iv(a, (size_t)k);                             \
                if (iv && !iv->received)                                                           \
                        iv = NULL;                                                                 \
                agent_series(f, "iofleet_agent_" suffix, a->name, a->hostname);                    \
                put_double(f, iv ? (double)iv->fld / secs : 0.0);                                  \
        }
        RATE_FIELDS(AGENT_RATE)
#undef AGENT_RATE

#define CLUSTER_RATE(fld, suffix, help)                                                            \
        family(f, "iofleet_cluster_" suffix, "gauge", help " (sum over agents)");                  \
        if (k >= 0) {                                                                              \
                fputs("iofleet_cluster_" suffix " ", f);                                           \
                put_double(f, (double)run_civ(run, (size_t)k)->fld / secs);                        \
        }
        RATE_FIELDS(CLUSTER_RATE)
#undef CLUSTER_RATE
}

static int render_counters(FILE *f, const metrics_input_t *in)
{
        const run_t *run = in->run;
        bool add_run = run && !(in->folded_run_id && streq(in->folded_run_id, run->id));
        size_t n_run = add_run ? run->n_agents : 0;
        metrics_totals_t *t = calloc(n_run + in->n_base + 1, sizeof(*t));
        metrics_totals_t cluster = {};
        bool *used = calloc(in->n_base + 1, sizeof(*used));
        size_t n = 0;

        if (!t || !used) {
                free(t);
                free(used);
                return -ENOMEM;
        }
        /* Agents of the current run: what they did before it plus what they did in it. */
        for (size_t i = 0; i < n_run; i++) {
                const run_agent_t *a = &run->agents[i];
                const metrics_totals_t *b = find_base(in, a->name);
                if (a->server)
                        continue;
                snprintf(t[n].name, sizeof(t[n].name), "%s", a->name);
                snprintf(t[n].hostname, sizeof(t[n].hostname), "%s", a->hostname);
                if (in->run_totals)
                        add_totals(&t[n], &in->run_totals[i]);
                else
                        sum_agent(a, &t[n]);
                add_totals(&cluster, &t[n]);
                if (b) {
                        add_totals(&t[n], b);
                        used[b - in->base] = true;
                }
                n++;
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
        int64_t k = last_complete(in->run);
        const cluster_interval_t *c = k >= 0 ? run_civ(in->run, (size_t)k) : NULL;
        const hist_t *h = c ? c->clat : NULL;

        family(f, "iofleet_clat_seconds", "summary",
               "Completion latency over all agents in the last complete interval (not "
               "cumulative: _sum and _count cover that interval)");
        if (!h || h->n == 0)
                return;
        for (size_t i = 0; i < ELEMENTSOF(quantiles); i++) {
                fprintf(f, "iofleet_clat_seconds{quantile=\"%s\"} ", quantiles[i].label);
                put_double(f, (double)hist_percentile(h, quantiles[i].p) / 1e9);
        }
        fputs("iofleet_clat_seconds_sum ", f);
        put_double(f, (double)h->sum / 1e9);
        fputs("iofleet_clat_seconds_count ", f);
        put_u64(f, h->n);
}

static void render_run(FILE *f, const metrics_input_t *in)
{
        const run_t *run = in->run;
        int64_t k = last_complete(run);

        family(f, "iofleet_run_active", "gauge", "1 while a run is in progress");
        fputs("iofleet_run_active ", f);
        put_u64(f, run && run->phase != RUN_DONE ? 1 : 0);
        family(f, "iofleet_run_info", "gauge", "The current run: its id and phase");
        if (run) {
                fputs("iofleet_run_info{run_id=\"", f);
                put_escaped(f, run->id);
                fprintf(f, "\",phase=\"%s\"} 1\n", phase_name(run->phase));
        }
        family(f, "iofleet_run_agents", "gauge", "Agents in the current run");
        if (run) {
                fputs("iofleet_run_agents ", f);
                put_u64(f, run->n_agents);
        }
        family(f, "iofleet_run_interval_seconds", "gauge", "Reporting interval of the current run");
        if (run) {
                fputs("iofleet_run_interval_seconds ", f);
                put_double(f, (double)run->interval_ns / 1e9);
        }
        family(f, "iofleet_run_interval_index", "gauge",
               "Index of the last complete interval of the current run (from 0)");
        if (k >= 0) {
                fputs("iofleet_run_interval_index ", f);
                put_u64(f, (uint64_t)k);
        }
        family(f, "iofleet_run_start_skew_seconds", "gauge",
               "Spread of the instants the agents of the current run started");
        if (run && (run->phase == RUN_RUNNING || run->phase == RUN_STOPPING ||
                    (run->phase == RUN_DONE && run->start_ns))) {
                fputs("iofleet_run_start_skew_seconds ", f);
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

struct metrics {
        struct MHD_Daemon *daemon;
        uint16_t port;
        pthread_mutex_t lock; /* guards text and len: the HTTP thread reads them */
        char *text;
        size_t len;
        int64_t next_render;
        /* Totals of runs that are over, sorted by agent name. */
        metrics_totals_t *base;
        size_t n_base, cap_base;
        metrics_totals_t cluster;
        char folded[WIRE_MAX_ID + 1];
        /* The current run's counts so far, one entry per run agent, summed up to cursor[i]. */
        char cur_run[WIRE_MAX_ID + 1];
        metrics_totals_t *cur;
        size_t *cursor;
        size_t n_cur;
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

static void cur_reset(metrics_t *m)
{
        free(m->cur);
        free(m->cursor);
        m->cur = NULL;
        m->cursor = NULL;
        m->n_cur = 0;
        m->cur_run[0] = 0;
}

/* Moves the current run's counts into the cumulative totals. exact: sums every interval the
 * run holds (the run is over) instead of what was summed so far. */
static void fold(metrics_t *m, const run_t *run, bool exact)
{
        for (size_t i = 0; i < m->n_cur; i++) {
                metrics_totals_t t = m->cur[i];
                if (exact && run && i < run->n_agents) {
                        memset(&t, 0, sizeof(t));
                        snprintf(t.name, sizeof(t.name), "%s", run->agents[i].name);
                        snprintf(t.hostname, sizeof(t.hostname), "%s", run->agents[i].hostname);
                        sum_agent(&run->agents[i], &t);
                }
                add_totals(&m->cluster, &t);
                if (base_add(m, &t) < 0)
                        log_warning("metrics: out of memory: counters of agent %s lost", t.name);
        }
        snprintf(m->folded, sizeof(m->folded), "%s", m->cur_run);
        cur_reset(m);
}

/* Follows the current run: sums the intervals shown since the last call. */
static int track(metrics_t *m, const run_t *run)
{
        if (m->cur_run[0] && (!run || !streq(run->id, m->cur_run)))
                fold(m, NULL, false); /* it went away without being seen done */
        if (!run || streq(run->id, m->folded))
                return 0;
        if (!m->cur_run[0]) {
                m->cur = calloc(run->n_agents + 1, sizeof(*m->cur));
                m->cursor = calloc(run->n_agents + 1, sizeof(*m->cursor));
                if (!m->cur || !m->cursor) {
                        cur_reset(m);
                        return -ENOMEM;
                }
                m->n_cur = run->n_agents;
                snprintf(m->cur_run, sizeof(m->cur_run), "%s", run->id);
                for (size_t i = 0; i < run->n_agents; i++) {
                        snprintf(m->cur[i].name, sizeof(m->cur[i].name), "%s", run->agents[i].name);
                        snprintf(m->cur[i].hostname, sizeof(m->cur[i].hostname), "%s",
                                 run->agents[i].hostname);
                }
        }
        /* Intervals already shown are settled; late ones still count when the run is folded. */
        for (size_t i = 0; i < m->n_cur && i < run->n_agents; i++) {
                const run_agent_t *a = &run->agents[i];
                m->cur[i].read_bytes = a->shown_read_bytes;
                m->cur[i].write_bytes = a->shown_write_bytes;
                m->cur[i].read_ios = a->shown_read_ios;
                m->cur[i].write_ios = a->shown_write_ios;
                m->cur[i].errors = a->shown_errors;
        }
        if (run_done(run))
                fold(m, run, true);
        return 0;
}

void metrics_update(metrics_t *m, registry_t *reg, const run_t *run, int64_t now)
{
        bool finished = run && run_done(run) && !streq(run->id, m ? m->folded : "");
        metrics_input_t in = {};
        char *text = NULL;
        size_t len = 0;

        if (!m || (now < m->next_render && !finished))
                return;
        m->next_render = now + METRICS_PERIOD_NS;
        if (track(m, run) < 0) {
                log_warning("metrics: out of memory");
                return;
        }
        in.reg = reg;
        in.run = run;
        in.folded_run_id = m->folded;
        in.base = m->base;
        in.n_base = m->n_base;
        in.cluster_base = &m->cluster;
        in.alerts = m->alerts;
        in.n_alerts = m->n_alerts;
        if (run && m->cur_run[0] && m->n_cur == run->n_agents)
                in.run_totals = m->cur;
        if (metrics_render(&in, &text, &len) < 0) {
                log_warning("metrics: out of memory: the snapshot is not updated");
                return;
        }
        pthread_mutex_lock(&m->lock);
        free(m->text);
        m->text = text;
        m->len = len;
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
        pthread_mutex_lock(&m->lock);
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
        free(m->text);
        free(m->base);
        free(m->alerts);
        cur_reset(m);
        free(m);
        *mp = NULL;
}
