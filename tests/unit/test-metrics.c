/* Unit tests for coordinator/metrics.c: the Prometheus text rendered from a real registry and a run
 * driven by fake agents, parsed back line by line; the snapshot server on loopback. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "clat-buckets.h"
#include "hist.h"
#include "metrics.h"
#include "registry.h"
#include "run.h"
#include "util.h"
#include "wire.h"

#define N_AGENTS 3
#define SEC ((int64_t)NSEC_PER_SEC)
#define MSEC ((int64_t)NSEC_PER_MSEC)
#define MIB (1024ULL * 1024ULL)
#define T0 ((int64_t)1700000000 * SEC)
#define RUN_ID "run-m-0001"
#define BODY(x) IOFLEET__ENVELOPE__BODY_##x

static const char *const names[N_AGENTS] = {"alpha", "beta", "gamma"};
/* Label values the format must escape: a quote, a backslash, a newline. */
static const char *const hosts[N_AGENTS] = {"host-a", "we\"ird\\host", "two\nlines"};

/* --- a parsed exposition ----------------------------------------------------------------- */

typedef struct sample {
        char name[128];
        char labels[512]; /* as written, escaped */
        char label_vals[10][256];
        char label_keys[10][64];
        size_t n_labels;
        double value;
} sample_t;

typedef struct family {
        char name[128];
        char type[32];
        bool help;
} family_t;

typedef struct expo {
        sample_t *s;
        size_t n;
        family_t f[128];
        size_t nf;
} expo_t;

static family_t *find_family(expo_t *e, const char *name)
{
        for (size_t i = 0; i < e->nf; i++)
                if (streq(e->f[i].name, name))
                        return &e->f[i];
        return NULL;
}

static bool ends_with(const char *s, const char *suffix)
{
        size_t a = strlen(s), b = strlen(suffix);
        return a >= b && streq(s + a - b, suffix);
}

/* The family a sample name belongs to: itself, or a histogram's _bucket/_sum/_count. */
static family_t *family_of(expo_t *e, const char *name)
{
        family_t *f = find_family(e, name);
        char base[128];
        if (f)
                return f;
        snprintf(base, sizeof(base), "%s", name);
        if (ends_with(base, "_sum"))
                base[strlen(base) - 4] = 0;
        else if (ends_with(base, "_count"))
                base[strlen(base) - 6] = 0;
        else if (ends_with(base, "_bucket"))
                base[strlen(base) - 7] = 0;
        else
                return NULL;
        f = find_family(e, base);
        return f && streq(f->type, "histogram") ? f : NULL;
}

/* Parses the label set starting after '{'; returns a pointer after '}' or NULL. */
static const char *parse_labels(const char *p, sample_t *s)
{
        const char *start = p;
        while (*p != '}') {
                size_t k = 0, v = 0;
                assert_true(s->n_labels < 10);
                while (*p && *p != '=')
                        s->label_keys[s->n_labels][k++] = *p++;
                if (*p++ != '=' || *p++ != '"')
                        return NULL;
                while (*p != '"') {
                        char c = *p++;
                        if (!c || c == '\n')
                                return NULL;
                        if (c == '\\') {
                                c = *p++;
                                if (c == 'n')
                                        c = '\n';
                                else if (c != '\\' && c != '"')
                                        return NULL; /* no other escape exists */
                        }
                        s->label_vals[s->n_labels][v++] = c;
                }
                p++;
                s->n_labels++;
                if (*p == ',')
                        p++;
                else if (*p != '}')
                        return NULL;
        }
        snprintf(s->labels, sizeof(s->labels), "%.*s", (int)(p - start), start);
        return p + 1;
}

/* Parses text, failing the test on any line that is not valid 0.0.4 exposition or that names
 * an undeclared family. */
static void parse(const char *text, expo_t *e)
{
        char *copy = strdup(text), *save = NULL, *line;
        size_t cap = 256;

        memset(e, 0, sizeof(*e));
        e->s = calloc(cap, sizeof(*e->s));
        assert_non_null(copy);
        assert_true(strlen(text) > 0 && text[strlen(text) - 1] == '\n');
        for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
                char name[128], type[32];
                if (strncmp(line, "# HELP ", 7) == 0) {
                        assert_int_equal(sscanf(line, "# HELP %127s", name), 1);
                        assert_null(find_family(e, name)); /* HELP comes first, once */
                        assert_true(e->nf < 128);
                        snprintf(e->f[e->nf].name, sizeof(e->f[e->nf].name), "%s", name);
                        e->f[e->nf++].help = true;
                        continue;
                }
                if (strncmp(line, "# TYPE ", 7) == 0) {
                        family_t *f;
                        assert_int_equal(sscanf(line, "# TYPE %127s %31s", name, type), 2);
                        f = find_family(e, name);
                        if (!f)
                                fail_msg("TYPE of %s without HELP before it", name);
                        assert_true(f->type[0] == 0);
                        assert_true(streq(type, "gauge") || streq(type, "counter") ||
                                    streq(type, "histogram"));
                        snprintf(f->type, sizeof(f->type), "%s", type);
                        if (streq(type, "counter") && !ends_with(name, "_total"))
                                fail_msg("counter %s does not end in _total", name);
                        continue;
                }
                assert_true(line[0] != '#');
                if (e->n == cap) {
                        cap *= 2;
                        e->s = realloc(e->s, cap * sizeof(*e->s));
                        assert_non_null(e->s);
                }
                sample_t *s = &e->s[e->n];
                memset(s, 0, sizeof(*s));
                size_t k = 0;
                const char *p = line;
                char *end;
                while (*p && *p != '{' && *p != ' ')
                        s->name[k++] = *p++;
                if (*p == '{') {
                        p = parse_labels(p + 1, s);
                        if (!p)
                                fail_msg("bad label set in line: %s", line);
                }
                if (*p++ != ' ')
                        fail_msg("no value in line: %s", line);
                s->value = strtod(p, &end);
                if (end == p || *end)
                        fail_msg("bad value in line: %s", line);
                family_t *f = family_of(e, s->name);
                if (!f || !f->type[0])
                        fail_msg("sample %s belongs to no declared family", s->name);
                for (size_t i = 0; i < e->n; i++)
                        if (streq(e->s[i].name, s->name) && streq(e->s[i].labels, s->labels))
                                fail_msg("series %s{%s} given twice", s->name, s->labels);
                e->n++;
        }
        free(copy);
}

/* The value of the series name whose label key has value val (key NULL: no labels). */
static bool get(const expo_t *e, const char *name, const char *key, const char *val, double *v)
{
        for (size_t i = 0; i < e->n; i++) {
                const sample_t *s = &e->s[i];
                if (!streq(s->name, name))
                        continue;
                if (!key && s->n_labels == 0) {
                        *v = s->value;
                        return true;
                }
                for (size_t l = 0; key && l < s->n_labels; l++)
                        if (streq(s->label_keys[l], key) && streq(s->label_vals[l], val)) {
                                *v = s->value;
                                return true;
                        }
        }
        return false;
}

static double must_get(const expo_t *e, const char *name, const char *key, const char *val)
{
        double v = 0;
        if (!get(e, name, key, val, &v))
                fail_msg("no sample %s{%s=\"%s\"}", name, key ? key : "", val ? val : "");
        return v;
}

static bool has_label(const sample_t *s, const char *key, const char *val)
{
        for (size_t l = 0; l < s->n_labels; l++)
                if (streq(s->label_keys[l], key))
                        return streq(s->label_vals[l], val);
        return false;
}

/* The value of the series name with labels k1=v1, k2=v2 and (k3 non-NULL) k3=v3. */
static double must_get3(const expo_t *e, const char *name, const char *k1, const char *v1,
                        const char *k2, const char *v2, const char *k3, const char *v3)
{
        for (size_t i = 0; i < e->n; i++) {
                const sample_t *s = &e->s[i];
                if (streq(s->name, name) && has_label(s, k1, v1) && has_label(s, k2, v2) &&
                    (!k3 || has_label(s, k3, v3)))
                        return s->value;
        }
        fail_msg("no sample %s{%s=\"%s\",%s=\"%s\",%s=\"%s\"}", name, k1, v1, k2, v2,
                 k3 ? k3 : "", v3 ? v3 : "");
        return 0;
}

/* Agent name's counter family in one direction ("read", "write"). */
static double agent_dir(const expo_t *e, const char *family, const char *agent, const char *dir)
{
        return must_get3(e, family, "agent", agent, "direction", dir, NULL, NULL);
}

/* sum(family{direction=dir}): what PromQL adds up across agents. */
static double sum_dir(const expo_t *e, const char *family, const char *dir)
{
        double sum = 0;
        for (size_t i = 0; i < e->n; i++)
                if (streq(e->s[i].name, family) && has_label(&e->s[i], "direction", dir))
                        sum += e->s[i].value;
        return sum;
}

static size_t count_samples(const expo_t *e, const char *name)
{
        size_t c = 0;
        for (size_t i = 0; i < e->n; i++)
                c += streq(e->s[i].name, name);
        return c;
}

static void expo_done(expo_t *e)
{
        free(e->s);
        e->s = NULL;
}

/* --- a registry and a run with fake agents ------------------------------------------------ */

typedef struct fx {
        registry_t *reg;
        coord_agent_t *ap[N_AGENTS];
        run_out_t out;
        coord_run_t *run;
        uint64_t seq;
} fx_t;

static envelope_t *roundtrip(envelope_t *e)
{
        uint8_t *buf = NULL;
        size_t len = 0;
        envelope_t *d = NULL;
        char err[256] = "";
        assert_int_equal(wire_encode(e, &buf, &len), 0);
        if (wire_decode(buf, len, WIRE_MAX_CONTROL_MSG, &d, err, sizeof(err)) < 0)
                fail_msg("wire_decode: %s", err);
        free(buf);
        return d;
}

static void fx_registry(fx_t *fx)
{
        memset(fx, 0, sizeof(*fx));
        assert_int_equal(registry_new(&fx->reg), 0);
        for (size_t i = 0; i < N_AGENTS; i++) {
                Iofleet__Hello h = IOFLEET__HELLO__INIT;
                char id[64], peer[16], err[256];
                snprintf(id, sizeof(id), "7e57%04zx-0000-4000-8000-00000000000%zu", i, i);
                snprintf(peer, sizeof(peer), "00%02zx", i);
                h.agent_id = id;
                h.name = (char *)names[i];
                h.hostname = (char *)hosts[i];
                h.version = "test";
                assert_int_equal(
                    registry_hello(fx->reg, peer, &h, "", 0, &fx->ap[i], err, sizeof(err)), 0);
        }
}

static void deliver(fx_t *fx, size_t i, envelope_t *e, int64_t now)
{
        envelope_t *m = roundtrip(e);
        assert_int_equal(run_on_message(fx->run, fx->ap[i]->id, &m, now, &fx->out), 0);
        wire_free(&m);
        outbox_clear(&fx->out.agents);
        outbox_clear(&fx->out.control);
}

/* Agent i's bytes in interval k: distinct per agent and interval so sums tell. */
static uint64_t fig_read(size_t i, size_t k)
{
        return (i + 1) * MIB + k * 4096;
}

static uint64_t fig_write(size_t i, size_t k)
{
        return (i + 1) * 512000 + k * 512;
}

/* A timed 10 s read/write job at interval 1 s on every agent, started and running. */
static void fx_run(fx_t *fx, const char *run_id)
{
        Iofleet__Job job = IOFLEET__JOB__INIT, *jp = &job;
        Iofleet__JobOption o[5], *op[5];
        static const char *kv[5][2] = {
            {"rw", "rw"}, {"bs", "4k"}, {"size", "1m"}, {"time_based", "1"}, {"runtime", "10s"}};
        Iofleet__SubmitRun s = IOFLEET__SUBMIT_RUN__INIT;
        envelope_t e = IOFLEET__ENVELOPE__INIT, *sub;
        char err[512] = "";

        for (size_t i = 0; i < 5; i++) {
                iofleet__job_option__init(&o[i]);
                o[i].key = (char *)kv[i][0];
                o[i].value = (char *)kv[i][1];
                op[i] = &o[i];
        }
        job.name = "mix";
        job.options = op;
        job.n_options = 5;
        s.jobs = &jp;
        s.n_jobs = 1;
        s.interval_ns = NSEC_PER_SEC;
        s.lead_ns = NSEC_PER_SEC;
        e.body_case = BODY(SUBMIT_RUN);
        e.submit_run = &s;
        sub = roundtrip(&e);
        if (run_new(run_id, "cli", &sub, fx->ap, NULL, N_AGENTS, T0, &fx->out, &fx->run, err,
                    sizeof(err)) < 0)
                fail_msg("run_new: %s", err);
        fx->run->seq = &fx->seq;
        for (size_t i = 0; i < N_AGENTS; i++) {
                envelope_t pe = IOFLEET__ENVELOPE__INIT;
                Iofleet__Prepared p = IOFLEET__PREPARED__INIT;
                fx->ap[i]->state = AGENT_BUSY;
                p.run_id = (char *)run_id;
                p.workers = 1;
                pe.body_case = BODY(PREPARED);
                pe.prepared = &p;
                deliver(fx, i, &pe, T0 + 10 * MSEC);
        }
        assert_int_equal(fx->run->phase, RUN_STARTING);
        for (size_t i = 0; i < N_AGENTS; i++) {
                envelope_t se = IOFLEET__ENVELOPE__INIT;
                Iofleet__Started st = IOFLEET__STARTED__INIT;
                st.run_id = (char *)run_id;
                st.start_ns = fx->run->start_ns + (int64_t)i * 1000;
                st.host_mono_ns = 5 * SEC + (int64_t)i * 1000;
                se.body_case = BODY(STARTED);
                se.started = &st;
                deliver(fx, i, &se, fx->run->start_ns + 2 * MSEC);
        }
        assert_int_equal(fx->run->phase, RUN_RUNNING);
}

static void send_interval(fx_t *fx, const char *run_id, size_t i, size_t k, bool last)
{
        envelope_t e = IOFLEET__ENVELOPE__INIT;
        Iofleet__Interval iv = IOFLEET__INTERVAL__INIT;
        Iofleet__DirStats rd = IOFLEET__DIR_STATS__INIT, wr = IOFLEET__DIR_STATS__INIT;
        Iofleet__Hist rh;
        hist_t h;

        hist_init(&h);
        for (uint64_t v = 0; v < 100; v++)
                hist_record(&h, (i + 1) * 100000 + v * 1000);
        assert_int_equal(wire_hist_from(&rh, &h), 0);
        rd.bytes = fig_read(i, k);
        rd.ios = rd.bytes / 4096;
        rd.errors = i == 2 ? 1 : 0;
        rd.clat = &rh;
        wr.bytes = fig_write(i, k);
        wr.ios = wr.bytes / 512;
        iv.run_id = (char *)run_id;
        iv.index = (uint32_t)k;
        iv.read = &rd;
        iv.write = &wr;
        iv.last = last;
        e.body_case = BODY(INTERVAL);
        e.interval = &iv;
        deliver(fx, i, &e, run_interval_end(fx->run, k) + 5 * MSEC);
        wire_hist_done(&rh);
}

static void send_finished(fx_t *fx, const char *run_id, size_t i, int64_t now)
{
        envelope_t e = IOFLEET__ENVELOPE__INIT, *m;
        Iofleet__Finished f = IOFLEET__FINISHED__INIT;
        Iofleet__JobResult jr = IOFLEET__JOB_RESULT__INIT, *jp = &jr;
        jr.name = "mix";
        jr.numjobs = 1;
        f.run_id = (char *)run_id;
        f.jobs = &jp;
        f.n_jobs = 1;
        f.error = "";
        e.body_case = BODY(FINISHED);
        e.finished = &f;
        m = roundtrip(&e);
        assert_int_equal(run_on_message(fx->run, fx->ap[i]->id, &m, now, &fx->out), 0);
        wire_free(&m);
        outbox_clear(&fx->out.agents);
        outbox_clear(&fx->out.control);
}

/* The merged histogram of interval k as the agents sent it. */
static void expected_hist(hist_t *h)
{
        hist_init(h);
        for (size_t i = 0; i < N_AGENTS; i++)
                for (uint64_t v = 0; v < 100; v++)
                        hist_record(h, (i + 1) * 100000 + v * 1000);
}

static void fx_done(fx_t *fx)
{
        run_free(&fx->run);
        registry_free(&fx->reg);
        outbox_done(&fx->out.agents);
        outbox_done(&fx->out.control);
        outbox_done(&fx->out.acks);
}

static char *render(fx_t *fx, const metrics_alert_t *alerts, size_t n_alerts)
{
        const coord_run_t *runs[1] = {fx->run};
        metrics_input_t in = {.reg = fx->reg,
                              .runs = runs,
                              .n_runs = fx->run ? 1 : 0,
                              .alerts = alerts,
                              .n_alerts = n_alerts};
        char *text = NULL;
        size_t len = 0;
        assert_int_equal(metrics_render(&in, &text, &len), 0);
        assert_int_equal(len, strlen(text));
        return text;
}

/* --- tests ------------------------------------------------------------------------------- */

static void test_escape_label(void **state)
{
        char buf[64];
        assert_int_equal(metrics_escape_label("a\"b\\c\nd", buf, sizeof(buf)), 10);
        assert_string_equal(buf, "a\\\"b\\\\c\\nd");
        /* Truncation reports the length needed, like snprintf. */
        assert_int_equal(metrics_escape_label("\"\"\"", buf, 4), 6);
        assert_string_equal(buf, "\\\"\\");
}

static void test_idle(void **state)
{
        fx_t fx;
        expo_t e;
        char *text;

        fx_registry(&fx);
        fx.ap[2]->state = AGENT_LOST;
        text = render(&fx, NULL, 0);
        parse(text, &e);
        assert_true(must_get(&e, "iofleet_agents_up", NULL, NULL) == 2);
        assert_true(must_get(&e, "iofleet_agents_known", NULL, NULL) == 3);
        assert_true(must_get(&e, "iofleet_agents", "state", "idle") == 2);
        assert_true(must_get(&e, "iofleet_agents", "state", "lost") == 1);
        assert_true(must_get(&e, "iofleet_agents", "state", "busy") == 0);
        assert_true(must_get(&e, "iofleet_run_active", NULL, NULL) == 0);
        assert_int_equal(count_samples(&e, "iofleet_run_info"), 0);
        /* No agent has counted anything yet; each agent's up is its state. */
        assert_int_equal(count_samples(&e, "iofleet_bytes_total"), 0);
        assert_true(must_get(&e, "iofleet_agent_up", "agent", "alpha") == 1);
        assert_true(must_get(&e, "iofleet_agent_up", "agent", "gamma") == 0);
        assert_true(must_get(&e, "iofleet_agent_up", "host", hosts[1]) == 1);
        /* Every family is declared even when it has no sample yet. */
        assert_non_null(find_family(&e, "iofleet_clat_seconds"));
        assert_non_null(find_family(&e, "iofleet_alerts_total"));
        expo_done(&e);
        free(text);
        fx_done(&fx);
}

static void test_running(void **state)
{
        metrics_alert_t alerts[2] = {{"bandwidth_drop", 3}, {"odd \"rule\"\\\n", 1}};
        fx_t fx;
        expo_t e;
        char *text;
        double sum_r = 0, sum_w = 0, prev = 0;
        hist_t want;

        fx_registry(&fx);
        fx_run(&fx, RUN_ID);
        /* Before the first interval: counters at 0, and no precomputed rate (rate() does it). */
        text = render(&fx, NULL, 0);
        parse(text, &e);
        assert_int_equal(count_samples(&e, "iofleet_bytes_total"), 2 * N_AGENTS);
        assert_true(agent_dir(&e, "iofleet_bytes_total", "beta", "read") == 0);
        assert_null(find_family(&e, "iofleet_agent_read_bytes_per_second"));
        assert_null(find_family(&e, "iofleet_cluster_read_bytes_per_second"));
        assert_true(fabs(must_get(&e, "iofleet_run_start_time_seconds", "run_id", RUN_ID) -
                         (double)fx.run->start_ns / 1e9) < 1e-3);
        assert_true(must_get(&e, "iofleet_run_active", NULL, NULL) == 1);
        expo_done(&e);
        free(text);

        for (size_t k = 0; k < 2; k++)
                for (size_t i = 0; i < N_AGENTS; i++)
                        send_interval(&fx, RUN_ID, i, k, false);
        assert_int_equal(fx.run->next_emit, 2);
        /* run.c frees an interval's merged histogram once shown; /metrics wants the last one
         * kept. Until run.c keeps it, put back what the agents sent so the summary is tested. */
        if (!fx.run->civ[1].clat) {
                assert_int_equal(hist_new(&fx.run->civ[1].clat), 0);
                expected_hist(fx.run->civ[1].clat);
        }

        text = render(&fx, alerts, 2);
        parse(text, &e);
        assert_true(must_get(&e, "iofleet_agents", "state", "busy") == 3);
        assert_true(must_get(&e, "iofleet_run_info", "run_id", RUN_ID) == 1);
        assert_true(must_get(&e, "iofleet_run_info", "phase", "running") == 1);
        assert_true(must_get(&e, "iofleet_run_interval_index", "run_id", RUN_ID) == 1);
        assert_true(must_get(&e, "iofleet_run_agents", "run_id", RUN_ID) == 3);
        assert_true(must_get(&e, "iofleet_run_agents_away", "run_id", RUN_ID) == 0);
        assert_true(must_get(&e, "iofleet_run_interval_seconds", "run_id", RUN_ID) == 1.0);
        assert_true(must_get(&e, "iofleet_run_start_skew_seconds", "run_id", RUN_ID) >= 0);
        /* The run's info labels: what it is. */
        assert_true(must_get3(&e, "iofleet_run_info", "run_id", RUN_ID, "rw", "rw", "job", "mix") ==
                    1);
        assert_true(must_get3(&e, "iofleet_run_info", "run_id", RUN_ID, "bs", "4k", "point", "") ==
                    1);
        /* Counters per agent, the direction a label; the host label comes back unescaped
         * exactly as the agent sent it. */
        for (size_t i = 0; i < N_AGENTS; i++) {
                double r = agent_dir(&e, "iofleet_bytes_total", names[i], "read");
                double w = agent_dir(&e, "iofleet_bytes_total", names[i], "write");
                assert_true(must_get3(&e, "iofleet_ios_total", "host", hosts[i], "direction",
                                      "read", NULL, NULL) ==
                            (double)(fig_read(i, 0) / 4096 + fig_read(i, 1) / 4096));
                assert_true(r == (double)(fig_read(i, 0) + fig_read(i, 1)));
                assert_true(w == (double)(fig_write(i, 0) + fig_write(i, 1)));
                sum_r += r;
                sum_w += w;
                assert_true(must_get(&e, "iofleet_errors_total", "agent", names[i]) ==
                            (i == 2 ? 2 : 0));
        }
        assert_true(sum_r > 0 && sum_w > 0);
        assert_null(find_family(&e, "iofleet_cluster_read_bytes_total"));
        /* Escaped on the wire: the raw text holds the escapes, never a bare newline. */
        assert_non_null(strstr(text, "host=\"we\\\"ird\\\\host\""));
        assert_non_null(strstr(text, "host=\"two\\nlines\""));
        assert_true(must_get(&e, "iofleet_alerts_total", "rule", "bandwidth_drop") == 3);
        assert_true(must_get(&e, "iofleet_alerts_total", "rule", "odd \"rule\"\\\n") == 1);

        /* Latency: a cumulative histogram per agent and direction. Agent i recorded 100
         * values from (i+1)*100 us in each of 2 intervals, read only; the buckets count what is
         * at or below their bound (a log-linear bucket straddling a bound counts above it). */
        expected_hist(&want);
        for (size_t i = 0; i < N_AGENTS; i++) {
                double prev_b = 0;
                for (size_t k = 0; k < CLAT_BUCKETS; k++) {
                        double b = must_get3(&e, "iofleet_clat_seconds_bucket", "agent", names[i],
                                             "direction", "read", "le", clat_bounds[k].le);
                        assert_true(b >= prev_b); /* cumulative */
                        prev_b = b;
                }
                assert_true(must_get3(&e, "iofleet_clat_seconds_bucket", "agent", names[i],
                                      "direction", "read", "le", "+Inf") == 200);
                assert_true(agent_dir(&e, "iofleet_clat_seconds_count", names[i], "read") == 200);
                assert_true(agent_dir(&e, "iofleet_clat_seconds_count", names[i], "write") == 0);
                /* The sum is exact: 2 x sum of (i+1)*100 us + v us, v < 100. */
                assert_true(fabs(agent_dir(&e, "iofleet_clat_seconds_sum", names[i], "read") -
                                 2 * (100 * (i + 1) * 100e-6 + 4950e-6)) < 1e-9);
                prev += agent_dir(&e, "iofleet_clat_seconds_sum", names[i], "read");
        }
        assert_true(fabs(prev - 2 * (double)want.sum / 1e9) < 1e-9);
        assert_true(must_get3(&e, "iofleet_clat_seconds_bucket", "agent", "alpha", "direction",
                              "read", "le", "0.0001") == 0);
        assert_true(must_get3(&e, "iofleet_clat_seconds_bucket", "agent", "alpha", "direction",
                              "read", "le", "0.00025") == 200);
        assert_true(must_get3(&e, "iofleet_clat_seconds_bucket", "agent", "beta", "direction",
                              "read", "le", "0.00025") == 100);
        assert_true(must_get3(&e, "iofleet_clat_seconds_bucket", "agent", "beta", "direction",
                              "read", "le", "0.0005") == 200);
        assert_true(must_get3(&e, "iofleet_clat_seconds_bucket", "agent", "gamma", "direction",
                              "read", "le", "0.00025") == 0);
        assert_null(find_family(&e, "iofleet_clat_seconds_quantile"));
        expo_done(&e);
        free(text);
        fx_done(&fx);
}

/* Counters carry over finished runs and never go down; the snapshot is served over HTTP. */
static void test_totals_across_runs(void **state)
{
        metrics_t *m = NULL;
        fx_t fx;
        expo_t e;
        char *text;
        uint64_t run1 = 0;

        assert_int_equal(metrics_new("127.0.0.1:0", 64, &m), 0);
        assert_non_null(m);
        assert_true(metrics_port(m) > 0);
        fx_registry(&fx);
        fx_run(&fx, "run-a");
        for (size_t i = 0; i < N_AGENTS; i++)
                send_interval(&fx, "run-a", i, 0, false);
        metrics_want(m);
        metrics_update(m, fx.reg, (const coord_run_t *const[]){fx.run}, 1);
        /* A late interval 1 arrives after the last snapshot: the fold at the end counts it. */
        for (size_t i = 0; i < N_AGENTS; i++) {
                send_interval(&fx, "run-a", i, 1, true);
                send_finished(&fx, "run-a", i, run_interval_end(fx.run, 1) + 10 * MSEC);
        }
        assert_true(run_done(fx.run));
        metrics_update(m, fx.reg, (const coord_run_t *const[]){fx.run}, 1); /* done: at once */
        for (size_t i = 0; i < N_AGENTS; i++)
                run1 += fig_read(i, 0) + fig_read(i, 1);
        text = metrics_snapshot(m);
        parse(text, &e);
        assert_true(sum_dir(&e, "iofleet_bytes_total", "read") == (double)run1);
        assert_true(must_get(&e, "iofleet_run_active", NULL, NULL) == 0);
        expo_done(&e);
        free(text);
        run_free(&fx.run);
        for (size_t i = 0; i < N_AGENTS; i++)
                fx.ap[i]->state = AGENT_IDLE;

        /* Idle: the same totals, from the base alone; nothing is rendered until a scrape wants
         * it. */
        assert_int_equal(metrics_fd(m) >= 0, true);
        metrics_update(m, fx.reg, NULL, 0);
        text = metrics_snapshot(m);
        parse(text, &e);
        assert_int_equal(count_samples(&e, "iofleet_run_info"), 1); /* the done run, still */
        expo_done(&e);
        free(text);
        metrics_want(m);
        assert_true(poll(&(struct pollfd){.fd = metrics_fd(m), .events = POLLIN}, 1, 0) == 1);
        metrics_update(m, fx.reg, NULL, 0);
        assert_true(poll(&(struct pollfd){.fd = metrics_fd(m), .events = POLLIN}, 1, 0) == 0);
        text = metrics_snapshot(m);
        parse(text, &e);
        assert_int_equal(count_samples(&e, "iofleet_run_info"), 0);
        assert_true(sum_dir(&e, "iofleet_bytes_total", "read") == (double)run1);
        assert_true(agent_dir(&e, "iofleet_bytes_total", "beta", "read") ==
                    (double)(fig_read(1, 0) + fig_read(1, 1)));
        expo_done(&e);
        free(text);

        /* A second run adds to them as its intervals are shown. */
        fx_run(&fx, "run-b");
        for (size_t i = 0; i < N_AGENTS; i++)
                send_interval(&fx, "run-b", i, 0, false);
        metrics_want(m);
        metrics_update(m, fx.reg, (const coord_run_t *const[]){fx.run}, 1);
        text = metrics_snapshot(m);
        parse(text, &e);
        assert_true(sum_dir(&e, "iofleet_bytes_total", "read") ==
                    (double)(run1 + fig_read(0, 0) + fig_read(1, 0) + fig_read(2, 0)));
        assert_true(agent_dir(&e, "iofleet_bytes_total", "alpha", "read") ==
                    (double)(fig_read(0, 0) * 2 + fig_read(0, 1)));
        assert_int_equal(count_samples(&e, "iofleet_bytes_total"), 2 * N_AGENTS);
        expo_done(&e);
        free(text);

        /* The alerts hook. */
        metrics_alert_t al = {"stalled_agent", 7};
        assert_int_equal(metrics_set_alerts(m, &al, 1), 0);
        metrics_want(m);
        metrics_update(m, fx.reg, (const coord_run_t *const[]){fx.run}, 1);
        text = metrics_snapshot(m);
        assert_non_null(strstr(text, "iofleet_alerts_total{rule=\"stalled_agent\"} 7\n"));
        free(text);
        fx_done(&fx);
        metrics_free(&m);
        assert_null(m);
}

/* Two runs at once on disjoint agents: each has its own series, labelled by its id. */
static void test_two_runs(void **state)
{
        Iofleet__Job job = IOFLEET__JOB__INIT, *jp = &job;
        Iofleet__JobOption o[2] = {IOFLEET__JOB_OPTION__INIT, IOFLEET__JOB_OPTION__INIT},
                           *op[2] = {&o[0], &o[1]};
        Iofleet__SubmitRun s = IOFLEET__SUBMIT_RUN__INIT;
        envelope_t e = IOFLEET__ENVELOPE__INIT, *sub;
        coord_run_t *r[2] = {NULL, NULL};
        const coord_run_t *cr[2];
        char err[256], *text;
        fx_t fx;
        expo_t ex;

        fx_registry(&fx);
        o[0].key = "rw";
        o[0].value = "read";
        o[1].key = "size";
        o[1].value = "1m";
        job.name = "j";
        job.options = op;
        job.n_options = 2;
        s.jobs = &jp;
        s.n_jobs = 1;
        e.body_case = BODY(SUBMIT_RUN);
        e.submit_run = &s;
        sub = roundtrip(&e);
        assert_int_equal(run_new("run-soak", "", &sub, fx.ap, NULL, 1, T0, &fx.out, &r[0], err,
                                 sizeof(err)),
                         0);
        sub = roundtrip(&e);
        assert_int_equal(run_new("run-bench", "", &sub, fx.ap + 1, NULL, 2, T0, &fx.out, &r[1], err,
                                 sizeof(err)),
                         0);
        cr[0] = r[0];
        cr[1] = r[1];
        {
                metrics_input_t in = {.reg = fx.reg, .runs = cr, .n_runs = 2};
                size_t len;
                assert_int_equal(metrics_render(&in, &text, &len), 0);
        }
        parse(text, &ex);
        assert_true(must_get(&ex, "iofleet_run_active", NULL, NULL) == 2);
        assert_int_equal(count_samples(&ex, "iofleet_run_info"), 2);
        assert_true(must_get(&ex, "iofleet_run_agents", "run_id", "run-soak") == 1);
        assert_true(must_get(&ex, "iofleet_run_agents", "run_id", "run-bench") == 2);
        assert_true(must_get(&ex, "iofleet_run_info", "run_id", "run-bench") == 1);
        expo_done(&ex);
        free(text);
        run_free(&r[0]);
        run_free(&r[1]);
        fx_done(&fx);
}

/* Sends one HTTP request to the server and returns the status code; body in buf. */
static int http(uint16_t port, const char *method, const char *path, char *buf, size_t len)
{
        struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(port)};
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), status = -1;
        char req[256];
        size_t got = 0;
        ssize_t n;

        assert_true(fd >= 0);
        sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
        snprintf(req, sizeof(req), "%s %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", method,
                 path);
        assert_int_equal(write(fd, req, strlen(req)), (ssize_t)strlen(req));
        while (got + 1 < len && (n = read(fd, buf + got, len - 1 - got)) > 0)
                got += (size_t)n;
        buf[got] = 0;
        close(fd);
        sscanf(buf, "HTTP/1.1 %d", &status);
        return status;
}

/* The coordinator loop's part: a rendering whenever a scrape wants one. */
typedef struct loop {
        metrics_t *m;
        registry_t *reg;
        atomic_bool stop;
        atomic_int renders;
} loop_t;

/* The loop counts a rendering just after the scrape it served may have been answered. */
static int renders_settled(const loop_t *l, int want)
{
        for (int i = 0; i < 100 && l->renders < want; i++)
                usleep(10000);
        usleep(20000);
        return l->renders;
}

static void *loop_main(void *p)
{
        loop_t *l = p;
        while (!l->stop) {
                struct pollfd pfd = {.fd = metrics_fd(l->m), .events = POLLIN};
                if (poll(&pfd, 1, 50) == 1) {
                        metrics_update(l->m, l->reg, NULL, 0);
                        l->renders++;
                }
        }
        return NULL;
}

static void test_http(void **state)
{
        metrics_t *m = NULL;
        fx_t fx;
        static char buf[1 << 16];
        loop_t l = {};
        pthread_t th;

        assert_int_equal(metrics_new("127.0.0.1:0", 64, &m), 0);
        /* No loop renders: the scrape waits its 2 s, and there is no snapshot. */
        assert_int_equal(http(metrics_port(m), "GET", "/metrics", buf, sizeof(buf)), 503);
        fx_registry(&fx);
        /* The want the scrape that gave up left behind. */
        metrics_update(m, fx.reg, NULL, 0);
        l.m = m;
        l.reg = fx.reg;
        assert_int_equal(pthread_create(&th, NULL, loop_main, &l), 0);
        assert_int_equal(http(metrics_port(m), "GET", "/metrics", buf, sizeof(buf)), 200);
        assert_int_equal(renders_settled(&l, 1), 1); /* one scrape, one rendering */
        assert_non_null(strstr(buf, "Content-Type: text/plain; version=0.0.4"));
        assert_non_null(strstr(buf, "\r\n\r\n# HELP iofleet_"));
        assert_non_null(strstr(buf, "iofleet_agents_up 3\n"));
        assert_int_equal(http(metrics_port(m), "POST", "/metrics", buf, sizeof(buf)), 405);
        assert_non_null(strstr(buf, "Allow: GET, HEAD"));
        /* The live page and its JSON; paths outside what is served are 404, never a file. */
        assert_int_equal(http(metrics_port(m), "GET", "/", buf, sizeof(buf)), 200);
        assert_non_null(strstr(buf, "Content-Security-Policy: default-src 'self'"));
        assert_non_null(strstr(buf, "<script src=\"/app.js\">"));
        assert_int_equal(http(metrics_port(m), "GET", "/api/runs", buf, sizeof(buf)), 200);
        assert_non_null(strstr(buf, "\r\n\r\n[]"));
        assert_int_equal(http(metrics_port(m), "GET", "/results/../../etc/passwd", buf, sizeof(buf)),
                         404);
        assert_int_equal(http(metrics_port(m), "GET", "/results/.by-id/result.json", buf,
                              sizeof(buf)),
                         404);
        assert_int_equal(http(metrics_port(m), "GET", "/nothing", buf, sizeof(buf)), 404);
        assert_int_equal(http(metrics_port(m), "GET", "/api/state", buf, sizeof(buf)), 200);
        assert_non_null(strstr(buf, "\"agents_up\":3"));
        assert_int_equal(http(metrics_port(m), "GET", "/metricsx", buf, sizeof(buf)), 404);
        /* Each scrape sees the registry as it is then. */
        fx.ap[2]->state = AGENT_LOST;
        assert_int_equal(http(metrics_port(m), "GET", "/metrics", buf, sizeof(buf)), 200);
        assert_non_null(strstr(buf, "iofleet_agents_up 2\n"));
        assert_int_equal(renders_settled(&l, 3), 3); /* the 405 and 404s cost no rendering */
        l.stop = true;
        pthread_join(th, NULL);
        fx_done(&fx);
        metrics_free(&m);
}

/* A scrape's request and the rendering that answers it: the ticket comes with the request, so
 * any rendering after the request answers it, however soon the loop runs (taken apart, a
 * rendering between them left the scrape waiting its 2 s: two failed scrapes of CI's
 * it-prometheus). */
static void test_want_ticket(void **state)
{
        metrics_t *m = NULL;
        fx_t fx;
        uint64_t t1, t2, t3;
        struct pollfd p;

        assert_int_equal(metrics_new("127.0.0.1:0", 64, &m), 0);
        fx_registry(&fx);
        t1 = metrics_want(m);
        assert_false(metrics_answered(m, t1));
        /* A second scrape before the loop ran: one rendering answers both. */
        t2 = metrics_want(m);
        assert_int_equal(t2, t1);
        p = (struct pollfd){.fd = metrics_fd(m), .events = POLLIN};
        assert_int_equal(poll(&p, 1, 0), 1);
        metrics_update(m, fx.reg, NULL, 0);
        assert_true(metrics_answered(m, t1));
        assert_int_equal(poll(&p, 1, 0), 0);
        /* Nobody asks: the loop renders nothing, and the next request waits for the next one. */
        metrics_update(m, fx.reg, NULL, 0);
        t3 = metrics_want(m);
        assert_int_equal(t3, t1 + 1);
        assert_false(metrics_answered(m, t3));
        metrics_update(m, fx.reg, NULL, 0);
        assert_true(metrics_answered(m, t3));
        fx_done(&fx);
        metrics_free(&m);
}

static void test_listen_values(void **state)
{
        metrics_t *m = (metrics_t *)&m;
        assert_int_equal(metrics_new("off", 64, &m), 0);
        assert_null(m);
        assert_int_equal(metrics_new("", 64, &m), 0);
        assert_null(m);
        assert_int_equal(metrics_new(NULL, 64, &m), 0);
        assert_null(m);
        static const char *const bad[] = {"127.0.0.1",       "127.0.0.1:",   ":9464",
                                          "127.0.0.1:65536", "127.0.0.1:9x", "[::1]9464",
                                          "::1:9464",        "[::1:9464"};
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                m = NULL;
                if (metrics_new(bad[i], 64, &m) != -EINVAL)
                        fail_msg("metrics_listen=%s was accepted", bad[i]);
                assert_null(m);
        }
        m = NULL;
        if (metrics_new("[::1]:0", 64, &m) == 0) /* without IPv6 loopback: -errno, no server */
                assert_true(metrics_port(m) > 0);
        else
                assert_null(m);
        metrics_free(&m);
        metrics_update(NULL, NULL, NULL, 0); /* NULL-safe: metrics off */
        assert_int_equal(metrics_fd(NULL), -1);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_escape_label), cmocka_unit_test(test_idle),
            cmocka_unit_test(test_running),      cmocka_unit_test(test_totals_across_runs),
            cmocka_unit_test(test_http),         cmocka_unit_test(test_listen_values),
            cmocka_unit_test(test_two_runs),      cmocka_unit_test(test_want_ticket),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
