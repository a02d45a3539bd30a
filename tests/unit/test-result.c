/* Unit tests for coordinator/result.c: fio-compatible JSON of a run driven through the state
 * machine, and the results directory. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hist.h"
#include "log.h"
#include "result-fio.h"
#include "result.h"
#include "run.h"
#include "util.h"
#include "wire.h"

#define SEC ((int64_t)NSEC_PER_SEC)
#define MSEC ((int64_t)NSEC_PER_MSEC)
#define USEC ((int64_t)NSEC_PER_USEC)
#define MIB (1024ULL * 1024ULL)
#define T0 ((int64_t)1700000000 * SEC)
#define RUN_ID "20231114-221320-abcd"
#define CONTROL "cli-peer-7"
#define CMDLINE                                                                                    \
        "iofleet run --name=rd --rw=read --bs=4k --size=8m --name=wr --rw=write --bs=64k "         \
        "--size=8m"
#define N_AGENTS 2
#define N_IV 2

#define BODY(x) IOFLEET__ENVELOPE__BODY_##x

static const char *const names[N_AGENTS] = {"alpha", "beta"};
static const char *const hosts[N_AGENTS] = {"host-a.example", "host-b.example"};

/* What each agent reports, per job: bytes, ios and runtime; latencies come from fill_lat(). */
typedef struct job_fig {
        const char *job;
        bool write;
        uint64_t bytes, ios, runtime_ns;
} job_fig_t;

static const job_fig_t figs[N_AGENTS][2] = {
    {{"rd", false, 6 * MIB, 1536, 2 * NSEC_PER_SEC},
     {"wr", true, 8 * MIB, 128, 2500 * NSEC_PER_MSEC}},
    {{"rd", false, 4 * MIB, 1024, 2 * NSEC_PER_SEC}, {"wr", true, 6 * MIB, 96, 3 * NSEC_PER_SEC}},
};

/* Per-interval bytes of each agent (both intervals alike). */
static const uint64_t iv_read[N_AGENTS] = {3 * MIB, 2 * MIB};
static const uint64_t iv_write[N_AGENTS] = {4 * MIB, 3 * MIB};

/* Start instants each agent reports, relative to the run's: timeline and own monotonic clock. */
static const int64_t started_tl[N_AGENTS] = {100 * USEC, -50 * USEC};
static const int64_t started_mono[N_AGENTS] = {10 * USEC, 35 * USEC};

typedef struct fx {
        coord_agent_t agents[N_AGENTS];
        coord_agent_t *ap[N_AGENTS];
        run_out_t out;
        coord_run_t *run;
        uint64_t seq;
        /* Latency each agent recorded per job, and what they merge to. */
        hist_t lat[N_AGENTS][2];
        hist_t merged[2];
        json_t *doc;
} fx_t;

/* alpha reads fast (50..150us), beta slowly (1..2ms): averaging their percentiles would give a
 * value neither has, which is what the merged histogram must not do. */
static void fill_lat(hist_t *h, size_t agent, size_t job)
{
        uint64_t n = figs[agent][job].ios;
        hist_init(h);
        for (uint64_t i = 0; i < n; i++) {
                if (job == 0)
                        hist_record(h, agent == 0 ? 50000 + (i * 100) % 100000
                                                  : 1000000 + (i % 100) * 10000);
                else
                        hist_record(h, agent == 0 ? 2000000 + i * 1000 : 8000000 + i * 50000);
        }
}

static envelope_t *roundtrip(envelope_t *e)
{
        uint8_t *buf = NULL;
        size_t len = 0;
        envelope_t *d = NULL;
        char err[256] = "";
        int r;

        assert_int_equal(wire_encode(e, &buf, &len), 0);
        r = wire_decode(buf, len, WIRE_MAX_CONTROL_MSG, &d, err, sizeof(err));
        free(buf);
        if (r < 0)
                fail_msg("wire_decode of a %s: %s", wire_body_name(e), err);
        return d;
}

static void deliver(fx_t *fx, size_t i, envelope_t *e, int64_t now)
{
        envelope_t *m = roundtrip(e);
        assert_int_equal(run_on_message(fx->run, fx->agents[i].id, &m, now, &fx->out), 0);
        wire_free(&m);
}

static envelope_t *make_submit(void)
{
        static const char *const opts[2][6] = {
            {"rw", "read", "bs", "4k", "size", "8m"},
            {"rw", "write", "bs", "64k", "size", "8m"},
        };
        Iofleet__Job job[2], *jp[2];
        Iofleet__JobOption opt[2][3], *op[2][3];
        Iofleet__SubmitRun s = IOFLEET__SUBMIT_RUN__INIT;
        envelope_t e = IOFLEET__ENVELOPE__INIT;

        for (size_t j = 0; j < 2; j++) {
                iofleet__job__init(&job[j]);
                job[j].name = (char *)figs[0][j].job;
                for (size_t k = 0; k < 3; k++) {
                        iofleet__job_option__init(&opt[j][k]);
                        opt[j][k].key = (char *)opts[j][2 * k];
                        opt[j][k].value = (char *)opts[j][2 * k + 1];
                        op[j][k] = &opt[j][k];
                }
                job[j].options = op[j];
                job[j].n_options = 3;
                jp[j] = &job[j];
        }
        s.jobs = jp;
        s.n_jobs = 2;
        s.interval_ns = NSEC_PER_SEC;
        s.lead_ns = 2 * NSEC_PER_SEC;
        s.selector = "role=client";
        s.command_line = CMDLINE;
        e.body_case = BODY(SUBMIT_RUN);
        e.submit_run = &s;
        return roundtrip(&e);
}

static void send_interval(fx_t *fx, size_t i, size_t k, int64_t now)
{
        envelope_t e = IOFLEET__ENVELOPE__INIT;
        Iofleet__Interval iv = IOFLEET__INTERVAL__INIT;
        Iofleet__DirStats rd = IOFLEET__DIR_STATS__INIT, wr = IOFLEET__DIR_STATS__INIT;
        rd.bytes = iv_read[i];
        rd.ios = iv_read[i] / 4096;
        wr.bytes = iv_write[i];
        wr.ios = iv_write[i] / 65536;
        iv.run_id = RUN_ID;
        iv.index = (uint32_t)k;
        iv.read = &rd;
        iv.write = &wr;
        iv.last = k == N_IV - 1;
        e.body_case = BODY(INTERVAL);
        e.interval = &iv;
        deliver(fx, i, &e, now);
}

/* Finished with one JobResult per job; the histograms travel as wire_hist_from() makes them. */
static void send_finished(fx_t *fx, size_t i, int64_t now)
{
        envelope_t e = IOFLEET__ENVELOPE__INIT;
        Iofleet__Finished f = IOFLEET__FINISHED__INIT;
        Iofleet__JobResult jr[2], *jp[2];
        Iofleet__DirStats ds[2], empty = IOFLEET__DIR_STATS__INIT;
        Iofleet__Hist hp[2];

        for (size_t j = 0; j < 2; j++) {
                const job_fig_t *g = &figs[i][j];
                iofleet__job_result__init(&jr[j]);
                iofleet__dir_stats__init(&ds[j]);
                assert_int_equal(wire_hist_from(&hp[j], &fx->lat[i][j]), 0);
                ds[j].bytes = g->bytes;
                ds[j].ios = g->ios;
                ds[j].clat = &hp[j];
                jr[j].name = (char *)g->job;
                jr[j].numjobs = 1;
                jr[j].runtime_ns = g->runtime_ns;
                jr[j].first_done_ns = g->runtime_ns;
                jr[j].last_done_ns = g->runtime_ns;
                /* The read job reports an empty write side; the write job no read side at all. */
                if (g->write) {
                        jr[j].write = &ds[j];
                } else {
                        jr[j].read = &ds[j];
                        jr[j].write = &empty;
                }
                jp[j] = &jr[j];
        }
        f.run_id = RUN_ID;
        f.jobs = jp;
        f.n_jobs = 2;
        e.body_case = BODY(FINISHED);
        e.finished = &f;
        deliver(fx, i, &e, now);
        for (size_t j = 0; j < 2; j++)
                wire_hist_done(&hp[j]);
}

/* Drives a run of two agents to its end: prepare, start, two intervals each, Finished. With
 * lose_beta, beta goes away after its intervals and only alpha finishes; cancel stops the run
 * through run_cancel first. */
static fx_t *build(bool lose_beta, bool cancel)
{
        fx_t *fx = calloc(1, sizeof(*fx));
        envelope_t *submit = make_submit();
        char err[512] = "";
        int64_t s;

        assert_non_null(fx);
        for (size_t i = 0; i < N_AGENTS; i++) {
                coord_agent_t *a = &fx->agents[i];
                snprintf(a->id, sizeof(a->id), "9f1e%04zx-aaaa-4bbb-8ccc-0123456789ab", i);
                snprintf(a->name, sizeof(a->name), "%s", names[i]);
                snprintf(a->hostname, sizeof(a->hostname), "%s", hosts[i]);
                snprintf(a->boot_id, sizeof(a->boot_id), "boot-shared");
                fx->ap[i] = a;
        }
        for (size_t j = 0; j < 2; j++) {
                hist_init(&fx->merged[j]);
                for (size_t i = 0; i < N_AGENTS; i++) {
                        fill_lat(&fx->lat[i][j], i, j);
                        hist_merge(&fx->merged[j], &fx->lat[i][j]);
                }
        }
        if (run_new(RUN_ID, CONTROL, &submit, fx->ap, NULL, N_AGENTS, T0, &fx->out, &fx->run, err,
                    sizeof(err)) < 0)
                fail_msg("run_new: %s", err);
        fx->run->seq = &fx->seq;
        for (size_t i = 0; i < N_AGENTS; i++) {
                envelope_t e = IOFLEET__ENVELOPE__INIT;
                Iofleet__Prepared p = IOFLEET__PREPARED__INIT;
                p.run_id = RUN_ID;
                p.offset_ns = -12345 * (int64_t)(i + 1);
                p.rtt_ns = 80000;
                e.body_case = BODY(PREPARED);
                e.prepared = &p;
                deliver(fx, i, &e, T0 + 20 * MSEC);
        }
        s = fx->run->start_ns;
        for (size_t i = 0; i < N_AGENTS; i++) {
                envelope_t e = IOFLEET__ENVELOPE__INIT;
                Iofleet__Started st = IOFLEET__STARTED__INIT;
                st.run_id = RUN_ID;
                st.start_ns = s + started_tl[i];
                st.host_mono_ns = 900 * SEC + started_mono[i];
                e.body_case = BODY(STARTED);
                e.started = &st;
                deliver(fx, i, &e, s + MSEC);
        }
        assert_int_equal(fx->run->phase, RUN_RUNNING);
        for (size_t k = 0; k < N_IV; k++)
                for (size_t i = 0; i < N_AGENTS; i++)
                        send_interval(fx, i, k, s + (int64_t)(k + 1) * SEC + 10 * MSEC);
        if (cancel)
                run_cancel(fx->run, IOFLEET__ERROR_CODE__ERROR_CANCELLED, "cancelled by the user",
                           s + 2 * SEC + 500 * MSEC, &fx->out);
        if (lose_beta)
                run_agent_lost(fx->run, fx->agents[1].id, s + 3 * SEC, &fx->out);
        for (size_t i = 0; i < N_AGENTS; i++)
                if (!(lose_beta && i == 1))
                        send_finished(fx, i, s + 3 * SEC + 100 * MSEC);
        assert_true(run_done(fx->run));
        assert_int_equal(result_build(fx->run, &fx->doc), 0);
        assert_non_null(fx->doc);
        return fx;
}

static void done(fx_t **fxp)
{
        fx_t *fx = *fxp;
        json_decref(fx->doc);
        run_free(&fx->run);
        outbox_done(&fx->out.agents);
        outbox_done(&fx->out.control);
        outbox_done(&fx->out.acks);
        free(fx);
        *fxp = NULL;
}

/* --- JSON access -------------------------------------------------------------------------- */

static json_t *jobj(json_t *o, const char *key)
{
        json_t *v = json_object_get(o, key);
        if (!v)
                fail_msg("JSON has no '%s'", key);
        return v;
}

static json_int_t jint(json_t *o, const char *key)
{
        json_t *v = jobj(o, key);
        if (!json_is_integer(v))
                fail_msg("'%s' is not an integer", key);
        return json_integer_value(v);
}

static double jnum(json_t *o, const char *key)
{
        json_t *v = jobj(o, key);
        if (!json_is_number(v))
                fail_msg("'%s' is not a number", key);
        return json_number_value(v);
}

static const char *jstr(json_t *o, const char *key)
{
        json_t *v = jobj(o, key);
        if (!json_is_string(v))
                fail_msg("'%s' is not a string", key);
        return json_string_value(v);
}

static json_t *jidx(json_t *a, size_t i)
{
        json_t *v;
        assert_true(json_is_array(a));
        v = json_array_get(a, i);
        if (!v)
                fail_msg("array has no element %zu (size %zu)", i, json_array_size(a));
        return v;
}

/* A clat_ns block must hold fio's 17 percentiles, keyed "%f", as the histogram h gives them. */
static void check_clat(json_t *dir, const hist_t *h)
{
        json_t *clat = jobj(dir, "clat_ns"), *pct = jobj(clat, "percentile");
        assert_int_equal(jint(clat, "N"), h->n);
        assert_int_equal(jint(clat, "min"), h->min);
        assert_int_equal(jint(clat, "max"), h->max);
        assert_int_equal(json_object_size(pct), ELEMENTSOF(hist_default_percentiles));
        /* fio's spelling of the keys. */
        assert_int_equal(jint(pct, "99.000000"), hist_percentile(h, 99.0));
        assert_int_equal(jint(pct, "50.000000"), hist_percentile(h, 50.0));
        assert_int_equal(jint(pct, "99.990000"), hist_percentile(h, 99.99));
        for (size_t i = 0; i < ELEMENTSOF(hist_default_percentiles); i++) {
                char key[32];
                double p = hist_default_percentiles[i];
                snprintf(key, sizeof(key), "%f", p);
                if ((uint64_t)jint(pct, key) != hist_percentile(h, p))
                        fail_msg("clat percentile %s: %lld, expected %llu", key,
                                 (long long)jint(pct, key),
                                 (unsigned long long)hist_percentile(h, p));
        }
}

static void check_dir(json_t *dir, uint64_t bytes, uint64_t ios, uint64_t runtime_ns)
{
        double secs = runtime_ns / 1e9;
        assert_int_equal(jint(dir, "io_bytes"), bytes);
        assert_int_equal(jint(dir, "io_kbytes"), bytes / 1024);
        assert_int_equal(jint(dir, "bw_bytes"), (uint64_t)(bytes / secs));
        assert_int_equal(jint(dir, "bw"), (uint64_t)(bytes / secs) / 1024);
        assert_true(fabs(jnum(dir, "iops") - ios / secs) < 1e-6);
        assert_int_equal(jint(dir, "total_ios"), ios);
        assert_int_equal(jint(dir, "runtime"), (runtime_ns + 500000) / 1000000);
}

/* --- tests -------------------------------------------------------------------------------- */

/* fio's single-host parts (coordinator/result-fio.c): json+ bins count every value, once, at a
 * value within its bucket; latency_ns/us/ms shares put each value under fio's bound and add up
 * to 100; jobs[] copies the entries, "All clients" only when it merges agents. */
static void test_fio_layout(void **state)
{
        hist_t *h;
        static const uint64_t vals[] = {1, 3, 150, 999, 1500, 25000, 3000000, 2500000000ULL};
        json_t *bins, *e = json_object(), *stats = json_array(), *jobs, *v;
        const char *key;
        uint64_t sum = 0;
        (void)state;

        assert_int_equal(hist_new(&h), 0);
        for (size_t i = 0; i < ELEMENTSOF(vals); i++)
                hist_record(h, vals[i]);
        bins = result_fio_bins(h);
        json_object_foreach(bins, key, v)
        {
                uint64_t at = strtoull(key, NULL, 10);
                bool near = false;
                for (size_t i = 0; i < ELEMENTSOF(vals); i++)
                        near |= at >= vals[i] - vals[i] / 100 && at <= vals[i] + vals[i] / 100 + 1;
                assert_true(near);
                sum += (uint64_t)json_integer_value(v);
        }
        assert_int_equal(sum, ELEMENTSOF(vals));
        json_decref(bins);

        {
                const hist_t *one[1] = {h};
                double total = 0;
                result_fio_latency(e, one, 1, 0);
                /* 1 -> ns "2", 3 -> "4", 150 -> "250", 999 -> "1000"; 1500 -> us "2",
                 * 25000 -> us "50"; 3 ms -> ms "4"; 2.5 s -> ms ">=2000" */
                assert_true(json_real_value(json_object_get(json_object_get(e, "latency_ns"), "2")) ==
                            12.5);
                assert_true(json_real_value(json_object_get(json_object_get(e, "latency_ns"),
                                                            "1000")) == 12.5);
                assert_true(json_real_value(json_object_get(json_object_get(e, "latency_us"), "50")) ==
                            12.5);
                assert_true(json_real_value(json_object_get(json_object_get(e, "latency_ms"), "4")) ==
                            12.5);
                assert_true(json_real_value(json_object_get(json_object_get(e, "latency_ms"),
                                                            ">=2000")) == 12.5);
                for (const char *const *b = (const char *const[]){"latency_ns", "latency_us",
                                                                  "latency_ms", NULL};
                     *b; b++)
                        json_object_foreach(json_object_get(e, *b), key, v) total +=
                            json_real_value(v);
                assert_true(fabs(total - 100) < 1e-9);
        }
        json_object_set_new(e, "jobname", json_string("j"));
        json_array_append_new(stats, json_deep_copy(e));
        json_object_set_new(e, "jobname", json_string("All clients"));
        json_array_append_new(stats, e);
        jobs = result_fio_jobs(stats, 1);
        assert_int_equal(json_array_size(jobs), 1);
        json_decref(jobs);
        jobs = result_fio_jobs(stats, 2);
        assert_int_equal(json_array_size(jobs), 2);
        json_decref(jobs);
        json_decref(stats);
        hist_free(&h);
}

static void test_client_stats_per_agent_and_job(void **state)
{
        fx_t *fx = build(false, false);
        json_t *stats = jobj(fx->doc, "client_stats");

        assert_true(json_is_array(stats));
        assert_int_equal(json_array_size(stats), N_AGENTS * 2 + 1);
        assert_string_equal(jstr(fx->doc, "fio version"), "iofleet-" IOFLEET_VERSION);
        assert_int_equal(jint(fx->doc, "timestamp"), fx->run->start_ns / SEC);
        for (size_t i = 0; i < N_AGENTS; i++)
                for (size_t j = 0; j < 2; j++) {
                        const job_fig_t *g = &figs[i][j];
                        json_t *c = jidx(stats, i * 2 + j);
                        json_t *used = jobj(c, g->write ? "write" : "read");
                        json_t *idle = jobj(c, g->write ? "read" : "write");
                        assert_string_equal(jstr(c, "hostname"), hosts[i]);
                        assert_string_equal(jstr(c, "jobname"), g->job);
                        assert_string_equal(jstr(c, "agent"), names[i]);
                        assert_int_equal(jint(c, "error"), 0);
                        assert_int_equal(jint(c, "job_runtime"), g->runtime_ns / 1000000);
                        assert_string_equal(jstr(jobj(c, "job options"), "rw"),
                                            g->write ? "write" : "read");
                        check_dir(used, g->bytes, g->ios, g->runtime_ns);
                        check_clat(used, &fx->lat[i][j]);
                        assert_int_equal(jint(idle, "io_bytes"), 0);
                        assert_int_equal(jint(idle, "bw_bytes"), 0);
                        assert_int_equal(jint(jobj(idle, "clat_ns"), "N"), 0);
                }
        /* Figures worked out by hand for one entry, not through the same formula. */
        assert_int_equal(jint(jobj(jidx(stats, 0), "read"), "bw_bytes"), 3145728);
        assert_true(fabs(jnum(jobj(jidx(stats, 0), "read"), "iops") - 768.0) < 1e-9);
        assert_int_equal(jint(jobj(jidx(stats, 1), "write"), "runtime"), 2500);
        assert_int_equal(jint(jobj(jidx(stats, 1), "write"), "bw_bytes"), 3355443);
        done(&fx);
}

static void test_all_clients_merged_histograms(void **state)
{
        fx_t *fx = build(false, false);
        json_t *stats = jobj(fx->doc, "client_stats");
        json_t *all = jidx(stats, json_array_size(stats) - 1);
        json_t *rd = jobj(all, "read"), *wr = jobj(all, "write");
        uint64_t r_bytes = 0, r_ios = 0, w_bytes = 0, w_ios = 0, runtime = 0, job_runtime_sum = 0;

        assert_string_equal(jstr(all, "jobname"), "All clients");
        assert_string_equal(jstr(all, "hostname"), "All clients");
        assert_null(json_object_get(all, "agent"));
        for (size_t i = 0; i < N_AGENTS; i++)
                for (size_t j = 0; j < 2; j++) {
                        const job_fig_t *g = &figs[i][j];
                        *(g->write ? &w_bytes : &r_bytes) += g->bytes;
                        *(g->write ? &w_ios : &r_ios) += g->ios;
                        if (g->runtime_ns > runtime)
                                runtime = g->runtime_ns;
                        job_runtime_sum += g->runtime_ns;
                }
        assert_int_equal(r_bytes, 10 * MIB);
        assert_int_equal(w_bytes, 14 * MIB);
        /* io_bytes is the sum over agents; the runtime the longest of them. */
        check_dir(rd, r_bytes, r_ios, runtime);
        check_dir(wr, w_bytes, w_ios, runtime);
        assert_int_equal(jint(rd, "runtime"), 3000);
        assert_int_equal(jint(rd, "bw_bytes"), 3495253);
        /* fio's total_run_time: every entry's run added, as fio's client mode adds them */
        assert_int_equal(jint(all, "job_runtime"), job_runtime_sum / 1000000);

        /* Percentiles of the merged histograms, never the average of each agent's. */
        check_clat(rd, &fx->merged[0]);
        check_clat(wr, &fx->merged[1]);
        for (size_t j = 0; j < 2; j++) {
                static const double ps[] = {50.0, 99.0};
                json_t *pct = jobj(jobj(j ? wr : rd, "clat_ns"), "percentile");
                for (size_t q = 0; q < ELEMENTSOF(ps); q++) {
                        char key[32];
                        uint64_t avg = (hist_percentile(&fx->lat[0][j], ps[q]) +
                                        hist_percentile(&fx->lat[1][j], ps[q])) /
                                       2;
                        uint64_t merged = hist_percentile(&fx->merged[j], ps[q]);
                        snprintf(key, sizeof(key), "%f", ps[q]);
                        /* The figures are chosen so that averaging would show. */
                        assert_true(llabs((long long)avg - (long long)merged) >
                                    (long long)merged / 10);
                        assert_int_equal(jint(pct, key), merged);
                }
        }
        assert_int_equal(jint(jobj(rd, "clat_ns"), "N"), 1536 + 1024);
        done(&fx);
}

static void test_iofleet_object(void **state)
{
        fx_t *fx = build(false, false);
        json_t *io = jobj(fx->doc, "iofleet"), *agents = jobj(io, "agents"),
               *ivs = jobj(io, "intervals"), *jobs = jobj(io, "jobs");

        assert_string_equal(jstr(io, "run_id"), RUN_ID);
        assert_string_equal(jstr(io, "status"), "ok");
        assert_null(json_object_get(io, "error"));
        assert_string_equal(jstr(io, "command_line"), CMDLINE);
        assert_string_equal(jstr(io, "selector"), "role=client");
        assert_int_equal(jint(io, "start_ns"), fx->run->start_ns);
        assert_int_equal(jint(io, "start_ns"), T0 + 20 * MSEC + 2 * SEC);
        /* All agents share one boot: skew from their own clocks, 35us - 10us. */
        assert_int_equal(jint(io, "start_skew_ns"), 25 * USEC);
        assert_string_equal(jstr(io, "start_skew_basis"), "shared-clock");
        assert_int_equal(jint(io, "interval_ns"), NSEC_PER_SEC);
        assert_int_equal(jint(io, "lead_ns"), 2 * NSEC_PER_SEC);

        assert_int_equal(json_array_size(agents), N_AGENTS);
        for (size_t i = 0; i < N_AGENTS; i++) {
                json_t *a = jidx(agents, i);
                assert_string_equal(jstr(a, "hostname"), hosts[i]);
                assert_string_equal(jstr(a, "name"), names[i]);
                assert_string_equal(jstr(a, "id"), fx->agents[i].id);
                assert_int_equal(jint(a, "rank"), i);
                assert_int_equal(jint(a, "start_ns"), fx->run->start_ns + started_tl[i]);
                assert_int_equal(jint(a, "start_offset_ns"), started_tl[i]);
                assert_int_equal(jint(a, "host_mono_ns"), 900 * SEC + started_mono[i]);
                assert_int_equal(jint(a, "clock_offset_ns"), -12345 * (int64_t)(i + 1));
                assert_int_equal(jint(a, "interval_read_bytes"), N_IV * iv_read[i]);
                assert_int_equal(jint(a, "interval_write_bytes"), N_IV * iv_write[i]);
                assert_false(json_is_true(jobj(a, "lost")));
        }

        assert_int_equal(json_array_size(ivs), N_IV);
        for (size_t k = 0; k < N_IV; k++) {
                json_t *iv = jidx(ivs, k), *per = jobj(iv, "agents");
                assert_int_equal(jint(iv, "index"), k);
                assert_int_equal(jint(iv, "start_ns"), fx->run->start_ns + (int64_t)k * SEC);
                assert_int_equal(jint(iv, "read_bytes"), iv_read[0] + iv_read[1]);
                assert_int_equal(jint(iv, "write_bytes"), iv_write[0] + iv_write[1]);
                assert_int_equal(jint(iv, "reported"), N_AGENTS);
                assert_int_equal(json_array_size(per), N_AGENTS);
                for (size_t i = 0; i < N_AGENTS; i++) {
                        json_t *pa = jidx(per, i);
                        assert_string_equal(jstr(pa, "name"), names[i]);
                        assert_int_equal(jint(pa, "read_bytes"), iv_read[i]);
                        assert_int_equal(jint(pa, "write_bytes"), iv_write[i]);
                }
        }

        assert_int_equal(json_array_size(jobs), 2);
        assert_string_equal(jstr(jidx(jobs, 1), "name"), "wr");
        assert_int_equal(jint(jidx(jobs, 1), "first_done_ns"), 2500 * NSEC_PER_MSEC);
        assert_int_equal(jint(jidx(jobs, 1), "last_done_ns"), 3 * NSEC_PER_SEC);
        done(&fx);
}

/* A cancelled run where one agent went away: it still has a client_stats entry, from what its
 * intervals reported (no latencies), marked as such; All clients counts those bytes; the lost
 * agent is listed and marked. */
static void test_cancelled_run_with_lost_agent(void **state)
{
        fx_t *fx = build(true, true);
        json_t *stats = jobj(fx->doc, "client_stats"), *io = jobj(fx->doc, "iofleet");
        json_t *all, *lost, *entry;

        assert_int_equal(json_array_size(stats), 2 + 1 + 1);
        for (size_t j = 0; j < 2; j++)
                assert_string_equal(jstr(jidx(stats, j), "hostname"), hosts[0]);
        entry = jidx(stats, 2);
        assert_string_equal(jstr(entry, "agent"), names[1]);
        assert_string_equal(jstr(entry, "agent_status"), "lost");
        assert_true(json_is_true(jobj(entry, "from_intervals")));
        assert_string_equal(jstr(entry, "jobname"), "(all jobs)");
        assert_int_equal(jint(jobj(entry, "read"), "io_bytes"), N_IV * iv_read[1]);
        assert_int_equal(jint(jobj(entry, "write"), "io_bytes"), N_IV * iv_write[1]);
        assert_int_equal(jint(jobj(jobj(entry, "read"), "clat_ns"), "N"), 0);
        all = jidx(stats, 3);
        assert_string_equal(jstr(all, "jobname"), "All clients");
        assert_int_equal(jint(jobj(all, "read"), "io_bytes"), figs[0][0].bytes + N_IV * iv_read[1]);
        assert_int_equal(jint(jobj(all, "write"), "io_bytes"),
                         figs[0][1].bytes + N_IV * iv_write[1]);
        check_clat(jobj(all, "read"), &fx->lat[0][0]);

        assert_string_equal(jstr(io, "status"), "cancelled");
        assert_string_equal(jstr(io, "error"), "cancelled by the user");
        assert_int_equal(json_array_size(jobj(io, "agents")), N_AGENTS);
        lost = jidx(jobj(io, "agents"), 1);
        assert_true(json_is_true(jobj(lost, "lost")));
        assert_string_equal(jstr(lost, "status"), "lost");
        /* What it sent before it went away is kept. */
        assert_int_equal(jint(lost, "interval_read_bytes"), N_IV * iv_read[1]);
        assert_int_equal(jint(jidx(jobj(io, "intervals"), 0), "read_bytes"),
                         iv_read[0] + iv_read[1]);
        done(&fx);
}

static char *slurp(const char *path)
{
        FILE *f = fopen(path, "re");
        char *buf;
        long n;
        if (!f)
                fail_msg("cannot open %s", path);
        assert_int_equal(fseek(f, 0, SEEK_END), 0);
        n = ftell(f);
        rewind(f);
        buf = calloc(1, (size_t)n + 1);
        assert_non_null(buf);
        assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
        fclose(f);
        return buf;
}

static void test_write_dir(void **state)
{
        fx_t *fx = build(false, false);
        char tmpl[] = "/tmp/test-result-XXXXXX", dir[4096] = "", path[4200], want[4200];
        json_error_t jerr;
        json_t *back;
        char *csv, *cmd, *line, *save = NULL;
        size_t rows = 0;

        assert_non_null(mkdtemp(tmpl));
        assert_int_equal(result_write_dir(fx->run, fx->doc, tmpl, dir, sizeof(dir)), 0);
        snprintf(want, sizeof(want), "%s/%s", tmpl, RUN_ID);
        assert_string_equal(dir, want);

        {
                /* Streamed into the file, byte for byte what a dump in memory gives; read back
                 * for the RunDone only when it fits. */
                char *dumped = json_dumps(fx->doc, RESULT_JSON_FLAGS), *text;
                assert_non_null(dumped);
                text = result_read_text(dir, RESULT_MAX_SENT);
                assert_non_null(text);
                assert_int_equal(strlen(text), strlen(dumped) + 1);
                assert_memory_equal(text, dumped, strlen(dumped));
                assert_int_equal(text[strlen(dumped)], '\n');
                assert_null(result_read_text(dir, strlen(dumped)));
                free(text);
                free(dumped);
        }
        snprintf(path, sizeof(path), "%s/result.json", dir);
        back = json_load_file(path, 0, &jerr);
        if (!back)
                fail_msg("result.json does not parse: %s (line %d)", jerr.text, jerr.line);
        assert_string_equal(jstr(jobj(back, "iofleet"), "run_id"), RUN_ID);
        assert_int_equal(json_array_size(jobj(back, "client_stats")), N_AGENTS * 2 + 1);
        assert_int_equal(json_array_size(jobj(jobj(back, "iofleet"), "intervals")), N_IV);
        {
                json_t *all = jidx(jobj(back, "client_stats"), N_AGENTS * 2);
                assert_int_equal(jint(jobj(all, "read"), "io_bytes"), 10 * MIB);
                assert_int_equal(
                    jint(jobj(jobj(jobj(all, "read"), "clat_ns"), "percentile"), "99.000000"),
                    hist_percentile(&fx->merged[0], 99.0));
        }
        json_decref(back);

        snprintf(path, sizeof(path), "%s/intervals.csv", dir);
        csv = slurp(path);
        line = strtok_r(csv, "\n", &save);
        assert_non_null(line);
        assert_string_equal(line, "interval,start_s,agent,read_bytes,read_ios,write_bytes,"
                                  "write_ios,errors,meta_ops,agent_rank,reported,clat_p50_ns,"
                                  "clat_p99_ns");
        while ((line = strtok_r(NULL, "\n", &save))) {
                char expect[256];
                size_t k = rows / (N_AGENTS + 1), a = rows % (N_AGENTS + 1);
                /* Each interval: the cluster row ("*"), then one row per agent. */
                if (a == 0)
                        snprintf(expect, sizeof(expect), "%zu,%zu.000,*,%llu,%llu,%llu,%llu,0,0,-1,%d",
                                 k, k, (unsigned long long)(iv_read[0] + iv_read[1]),
                                 (unsigned long long)((iv_read[0] + iv_read[1]) / 4096),
                                 (unsigned long long)(iv_write[0] + iv_write[1]),
                                 (unsigned long long)((iv_write[0] + iv_write[1]) / 65536),
                                 N_AGENTS);
                else
                        snprintf(expect, sizeof(expect), "%zu,%zu.000,%s,%llu,%llu,%llu,%llu,0,0,%zu,1",
                                 k, k, names[a - 1], (unsigned long long)iv_read[a - 1],
                                 (unsigned long long)(iv_read[a - 1] / 4096),
                                 (unsigned long long)iv_write[a - 1],
                                 (unsigned long long)(iv_write[a - 1] / 65536), a - 1);
                {
                        /* Then the interval's latency: the cluster's p50 <= p99, none per agent. */
                        unsigned long long p50, p99;
                        char end;
                        if (strncmp(line, expect, strlen(expect)) != 0 ||
                            sscanf(line + strlen(expect), ",%llu,%llu%c", &p50, &p99, &end) != 2)
                                fail_msg("row '%s' is not '%s,P50,P99'", line, expect);
                        assert_true(p50 <= p99);
                        if (a != 0)
                                assert_true(p99 == 0);
                }
                rows++;
        }
        assert_int_equal(rows, N_IV * (N_AGENTS + 1));
        free(csv);

        snprintf(path, sizeof(path), "%s/command.txt", dir);
        cmd = slurp(path);
        assert_string_equal(cmd, CMDLINE);
        free(cmd);

        /* Writing again into the same place works (the directory exists). */
        assert_int_equal(result_write_dir(fx->run, fx->doc, tmpl, dir, sizeof(dir)), 0);

        static const char *const files[] = {"result.json", "intervals.csv", "command.txt"};
        for (size_t i = 0; i < ELEMENTSOF(files); i++) {
                snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
                assert_int_equal(unlink(path), 0);
        }
        assert_int_equal(rmdir(dir), 0);
        assert_int_equal(rmdir(tmpl), 0);
        done(&fx);
}

/* A results directory that cannot be created is an error, not a crash. */
static void test_write_dir_fails_cleanly(void **state)
{
        fx_t *fx = build(false, false);
        char dir[256] = "untouched";
        assert_true(result_write_dir(fx->run, fx->doc, "/proc/no-such-dir", dir, sizeof(dir)) < 0);
        assert_string_equal(dir, "untouched");
        done(&fx);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_fio_layout),
            cmocka_unit_test(test_client_stats_per_agent_and_job),
            cmocka_unit_test(test_all_clients_merged_histograms),
            cmocka_unit_test(test_iofleet_object),
            cmocka_unit_test(test_cancelled_run_with_lost_agent),
            cmocka_unit_test(test_write_dir),
            cmocka_unit_test(test_write_dir_fails_cleanly),
        };

        log_setup("test-result", LOG_CRIT); /* the failure test logs on purpose */
        return cmocka_run_group_tests(tests, NULL, NULL);
}
