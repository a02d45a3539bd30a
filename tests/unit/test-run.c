/* Unit tests for coordinator/run.c: the run state machine driven by fake agents and a fake clock,
 * no sockets. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hist.h"
#include "log.h"
#include "run.h"
#include "util.h"
#include "run-internal.h"
#include "wire.h"

#define MAX_AGENTS 4
#define SEC ((int64_t)NSEC_PER_SEC)
#define MSEC ((int64_t)NSEC_PER_MSEC)
#define USEC ((int64_t)NSEC_PER_USEC)
#define MIB (1024ULL * 1024ULL)
/* The coordinator timeline is CLOCK_REALTIME: a fixed instant of late 2023. */
#define T0 ((int64_t)1700000000 * SEC)
#define RUN_ID "run-0001"
#define CONTROL "cli-peer-7"

#define BODY(x) IOFLEET__ENVELOPE__BODY_##x
#define KIND(x) IOFLEET__RUN_UPDATE__KIND__KIND_##x

static const char *const names[MAX_AGENTS] = {"alpha", "beta", "gamma", "delta"};

/* A job as it would come from the CLI: a name and key, value pairs ending with NULL. */
typedef struct job_def {
        const char *name;
        const char *opts[17];
} job_def_t;

#define JOB_SEQREAD                                                                                \
        {                                                                                          \
                "seqread",                                                                         \
                {                                                                                  \
                        "rw", "read", "bs", "128k", "size", "64m", NULL                            \
                }                                                                                  \
        }
#define JOB_TIMED10                                                                                \
        {                                                                                          \
                "timed",                                                                           \
                {                                                                                  \
                        "rw", "write", "bs", "4k", "size", "1m", "time_based", "1", "runtime",     \
                            "10s", NULL                                                            \
                }                                                                                  \
        }
static const job_def_t job_seqread = JOB_SEQREAD;
static const job_def_t job_timed10 = JOB_TIMED10;

typedef struct fx {
        coord_agent_t agents[MAX_AGENTS];
        coord_agent_t *ap[MAX_AGENTS];
        size_t n;
        run_out_t out;
        coord_run_t *run;
        uint64_t control_seq;
} fx_t;

/* --- wire helpers ------------------------------------------------------------------------ */

/* Packs a stack-built envelope and decodes it back: what run_* receives is what the wire gives. */
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

static envelope_t *make_submit(const job_def_t *jobs, size_t n_jobs, uint64_t interval_ns,
                               uint64_t lead_ns)
{
        Iofleet__Job job[4], *jp[4];
        Iofleet__JobOption opt[4][8], *op[4][8];
        Iofleet__SubmitRun s = IOFLEET__SUBMIT_RUN__INIT;
        envelope_t e = IOFLEET__ENVELOPE__INIT;

        assert_true(n_jobs <= 4);
        for (size_t i = 0; i < n_jobs; i++) {
                size_t m = 0;
                iofleet__job__init(&job[i]);
                job[i].name = (char *)jobs[i].name;
                for (; jobs[i].opts[2 * m]; m++) {
                        assert_true(m < 8);
                        iofleet__job_option__init(&opt[i][m]);
                        opt[i][m].key = (char *)jobs[i].opts[2 * m];
                        opt[i][m].value = (char *)jobs[i].opts[2 * m + 1];
                        op[i][m] = &opt[i][m];
                }
                job[i].options = op[i];
                job[i].n_options = m;
                jp[i] = &job[i];
        }
        s.jobs = jp;
        s.n_jobs = n_jobs;
        s.interval_ns = interval_ns;
        s.lead_ns = lead_ns;
        s.selector = "role=client";
        s.command_line = "iofleet run --name=seqread --rw=read";
        e.body_case = BODY(SUBMIT_RUN);
        e.submit_run = &s;
        return roundtrip(&e);
}

/* Decodes item i of an outbox; the caller frees it with wire_free(). */
static envelope_t *item(const outbox_t *ob, size_t i)
{
        envelope_t *e = NULL;
        char err[256] = "";
        assert_true(i < ob->n);
        if (wire_decode(ob->items[i].buf, ob->items[i].len, WIRE_MAX_CONTROL_MSG, &e, err,
                        sizeof(err)) < 0)
                fail_msg("outbox item %zu does not decode: %s", i, err);
        return e;
}

/* How many items of ob have body type body and go to peer (any peer when NULL). */
static size_t count_to(const outbox_t *ob, Iofleet__Envelope__BodyCase body, const char *peer)
{
        size_t c = 0;
        for (size_t i = 0; i < ob->n; i++) {
                envelope_t *e = item(ob, i);
                if (e->body_case == body && (!peer || streq(ob->items[i].peer, peer)))
                        c++;
                wire_free(&e);
        }
        return c;
}

/* Decodes the control box's RunUpdates of one kind, in order, into ret (caller frees each);
 * checks that every control message goes to the peer that submitted the run. */
static size_t updates(const outbox_t *ob, Iofleet__RunUpdate__Kind kind, envelope_t **ret,
                      size_t max)
{
        size_t c = 0;
        for (size_t i = 0; i < ob->n; i++) {
                envelope_t *e = item(ob, i);
                assert_string_equal(ob->items[i].peer, CONTROL);
                assert_int_equal(e->body_case, BODY(RUN_UPDATE));
                assert_string_equal(e->run_update->run_id, RUN_ID);
                if (e->run_update->kind == kind && c < max) {
                        ret[c++] = e;
                        continue;
                }
                if (e->run_update->kind == kind)
                        c++;
                wire_free(&e);
        }
        return c;
}

static size_t count_updates(const outbox_t *ob, Iofleet__RunUpdate__Kind kind)
{
        return updates(ob, kind, NULL, 0);
}

static void free_all(envelope_t **e, size_t n)
{
        for (size_t i = 0; i < n; i++)
                wire_free(&e[i]);
}

/* True when some EVENT update's message holds every one of the given words. */
static bool event_says(const outbox_t *ob, const char *w1, const char *w2)
{
        envelope_t *ev[32];
        size_t n = updates(ob, KIND(EVENT), ev, 32);
        bool found = false;
        for (size_t i = 0; i < n && i < 32; i++)
                if (strstr(ev[i]->run_update->message, w1) &&
                    (!w2 || strstr(ev[i]->run_update->message, w2)))
                        found = true;
        free_all(ev, n < 32 ? n : 32);
        return found;
}

/* --- fixture ----------------------------------------------------------------------------- */

static void fx_agents(fx_t *fx, size_t n, const char *const *boot_ids)
{
        memset(fx, 0, sizeof(*fx));
        fx->n = n;
        for (size_t i = 0; i < n; i++) {
                coord_agent_t *a = &fx->agents[i];
                snprintf(a->id, sizeof(a->id), "0b5e%04zx-6f1c-4a6e-9d0e-3c1f2a4b5c6d", i);
                snprintf(a->name, sizeof(a->name), "%s", names[i]);
                snprintf(a->hostname, sizeof(a->hostname), "host-%s.example", names[i]);
                snprintf(a->boot_id, sizeof(a->boot_id), "%s", boot_ids ? boot_ids[i] : "");
                a->state = AGENT_BUSY;
                a->have_offset = true;
                fx->ap[i] = a;
        }
}

static void fx_clear(fx_t *fx)
{
        outbox_clear(&fx->out.agents);
        outbox_clear(&fx->out.control);
}

static void fx_done(fx_t *fx)
{
        run_free(&fx->run);
        outbox_done(&fx->out.agents);
        outbox_done(&fx->out.control);
        outbox_done(&fx->out.acks);
}

static void fx_start(fx_t *fx, const job_def_t *jobs, size_t n_jobs, uint64_t interval_ns,
                     uint64_t lead_ns)
{
        envelope_t *submit = make_submit(jobs, n_jobs, interval_ns, lead_ns);
        char err[512] = "";
        int r = run_new(RUN_ID, CONTROL, &submit, fx->ap, NULL, fx->n, T0, &fx->out, &fx->run, err,
                        sizeof(err));
        if (r < 0)
                fail_msg("run_new: %d %s", r, err);
        assert_null(submit);
        assert_non_null(fx->run);
        fx->run->seq = &fx->control_seq;
}

/* --- fake agents ------------------------------------------------------------------------- */

/* Hands e (stack-built) to the run as agent i would send it. */
static int deliver_id(fx_t *fx, const char *id, envelope_t *e, int64_t now)
{
        envelope_t *m = roundtrip(e);
        int r = run_on_message(fx->run, id, &m, now, &fx->out);
        wire_free(&m);
        return r;
}

static int deliver(fx_t *fx, size_t i, envelope_t *e, int64_t now)
{
        return deliver_id(fx, fx->agents[i].id, e, now);
}

/* Prepared from the agent of id, the i-th (its clock figures). */
static int send_prepared_id(fx_t *fx, const char *id, size_t i, const char *run_id, int64_t now)
{
        envelope_t e = IOFLEET__ENVELOPE__INIT;
        Iofleet__Prepared p = IOFLEET__PREPARED__INIT;
        p.run_id = (char *)run_id;
        p.offset_ns = 1000 * (int64_t)(i + 1);
        p.rtt_ns = 50000 + i;
        p.workers = 1;
        e.body_case = BODY(PREPARED);
        e.prepared = &p;
        return deliver_id(fx, id, &e, now);
}

static int send_prepared_as(fx_t *fx, size_t i, const char *run_id, int64_t now)
{
        return send_prepared_id(fx, fx->agents[i].id, i, run_id, now);
}

static int send_prepared(fx_t *fx, size_t i, int64_t now)
{
        return send_prepared_as(fx, i, RUN_ID, now);
}

static int send_started_id(fx_t *fx, const char *id, int64_t start_ns, int64_t mono_ns,
                           int64_t now)
{
        envelope_t e = IOFLEET__ENVELOPE__INIT;
        Iofleet__Started s = IOFLEET__STARTED__INIT;
        s.run_id = RUN_ID;
        s.start_ns = start_ns;
        s.host_mono_ns = mono_ns;
        s.workers_lag_ns = 1000;
        e.body_case = BODY(STARTED);
        e.started = &s;
        return deliver_id(fx, id, &e, now);
}

static int send_started(fx_t *fx, size_t i, int64_t start_ns, int64_t mono_ns, int64_t now)
{
        return send_started_id(fx, fx->agents[i].id, start_ns, mono_ns, now);
}

/* Agent i's figures for interval k, distinct per agent and interval so sums are telling. */
static uint64_t fig_read(size_t i, size_t k)
{
        return (i + 1) * MIB + k * 4096;
}

static uint64_t fig_write(size_t i, size_t k)
{
        return (i + 1) * 1000 * 512 + k * 512;
}

/* Latency agent i reports in every interval: its values are all near lat_of(i). */
static uint64_t lat_of(size_t i)
{
        static const uint64_t base[MAX_AGENTS] = {50000, 1050000, 4050000, 9000000};
        return base[i];
}

static void record_lat(hist_t *h, size_t i)
{
        for (uint64_t v = 0; v < 10; v++)
                hist_record(h, lat_of(i) + v * 7);
}

static int send_interval_ex(fx_t *fx, size_t i, size_t k, bool last, int64_t now,
                            const char *run_id)
{
        envelope_t e = IOFLEET__ENVELOPE__INIT;
        Iofleet__Interval iv = IOFLEET__INTERVAL__INIT;
        Iofleet__DirStats rd = IOFLEET__DIR_STATS__INIT, wr = IOFLEET__DIR_STATS__INIT;
        Iofleet__Hist rh;
        hist_t h;
        int r;

        hist_init(&h);
        record_lat(&h, i);
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
        r = deliver(fx, i, &e, now);
        wire_hist_done(&rh);
        return r;
}

static int send_interval(fx_t *fx, size_t i, size_t k, bool last, int64_t now)
{
        return send_interval_ex(fx, i, k, last, now, RUN_ID);
}

/* A Finished from agent i, numbered seq (0: not numbered); *taken (may be NULL) says whether
 * the run kept it. */
static int send_finished_seq(fx_t *fx, size_t i, uint64_t seq, const char *error, int64_t now,
                             bool *taken)
{
        envelope_t e = IOFLEET__ENVELOPE__INIT, *m;
        Iofleet__Finished f = IOFLEET__FINISHED__INIT;
        Iofleet__JobResult jr = IOFLEET__JOB_RESULT__INIT, *jp = &jr;
        int r;

        jr.name = "seqread";
        jr.numjobs = 1;
        jr.runtime_ns = 10 * NSEC_PER_SEC;
        jr.first_done_ns = jr.last_done_ns = 10 * NSEC_PER_SEC;
        f.run_id = RUN_ID;
        f.run_seq = seq;
        f.jobs = &jp;
        f.n_jobs = 1;
        f.error = (char *)(error ? error : "");
        e.body_case = BODY(FINISHED);
        e.finished = &f;
        m = roundtrip(&e);
        r = run_on_message(fx->run, fx->agents[i].id, &m, now, &fx->out);
        if (taken)
                *taken = m == NULL;
        wire_free(&m);
        return r;
}

static int send_finished_ex(fx_t *fx, size_t i, const char *error, int64_t now, bool *taken)
{
        return send_finished_seq(fx, i, 0, error, now, taken);
}

static int send_finished(fx_t *fx, size_t i, int64_t now)
{
        return send_finished_ex(fx, i, NULL, now, NULL);
}

static int send_error(fx_t *fx, size_t i, Iofleet__ErrorCode code, const char *msg,
                      const char *run_id, int64_t now)
{
        envelope_t e = IOFLEET__ENVELOPE__INIT;
        Iofleet__Error er = IOFLEET__ERROR__INIT;
        er.code = code;
        er.message = (char *)msg;
        er.run_id = (char *)run_id;
        e.body_case = BODY(ERROR);
        e.error = &er;
        return deliver(fx, i, &e, now);
}

/* Prepared and Started from every agent; returns the run's start instant. Boxes are emptied. */
static int64_t fx_running(fx_t *fx)
{
        int64_t s;
        for (size_t i = 0; i < fx->n; i++)
                assert_int_equal(send_prepared(fx, i, T0 + 10 * MSEC), 0);
        assert_int_equal(fx->run->phase, RUN_STARTING);
        s = fx->run->start_ns;
        for (size_t i = 0; i < fx->n; i++)
                assert_int_equal(send_started(fx, i, s + (int64_t)i * USEC,
                                              5 * SEC + (int64_t)i * USEC, s + 2 * MSEC),
                                 0);
        assert_int_equal(fx->run->phase, RUN_RUNNING);
        fx_clear(fx);
        return s;
}

/* Checks one KIND_INTERVAL update against the figures of the agents in mask (bit i = agent i). */
static void check_interval_update(const fx_t *fx, const envelope_t *e, size_t k, unsigned mask,
                                  uint32_t expected_agents)
{
        const Iofleet__RunUpdate *u = e->run_update;
        uint64_t rb = 0, wb = 0, ri = 0, wi = 0, errs = 0;
        uint32_t reported = 0;
        hist_t merged;

        hist_init(&merged);
        for (size_t i = 0; i < fx->n; i++) {
                if (!(mask & (1u << i)))
                        continue;
                rb += fig_read(i, k);
                ri += fig_read(i, k) / 4096;
                wb += fig_write(i, k);
                wi += fig_write(i, k) / 512;
                errs += i == 2 ? 1 : 0;
                record_lat(&merged, i);
                reported++;
        }
        assert_int_equal(u->kind, KIND(INTERVAL));
        assert_int_equal(u->index, k);
        assert_int_equal(u->interval_ns, fx->run->interval_ns);
        assert_int_equal(u->start_ns, fx->run->start_ns);
        assert_int_equal(u->reported, reported);
        assert_int_equal(u->agents, expected_agents);
        assert_int_equal(u->read_bytes, rb);
        assert_int_equal(u->read_ios, ri);
        assert_int_equal(u->write_bytes, wb);
        assert_int_equal(u->write_ios, wi);
        assert_int_equal(u->errors, errs);
        /* p99 of the interval comes from the merged histogram of the agents that reported. */
        assert_int_equal(u->clat_p99_ns, hist_percentile(&merged, 99.0));
        assert_int_equal(u->n_per_agent, reported);
        for (size_t j = 0, i = 0; i < fx->n; i++) {
                if (!(mask & (1u << i)))
                        continue;
                assert_string_equal(u->per_agent[j]->name, names[i]);
                assert_int_equal(u->per_agent[j]->read_bytes, fig_read(i, k));
                assert_int_equal(u->per_agent[j]->write_bytes, fig_write(i, k));
                assert_int_equal(u->per_agent[j]->read_ios, fig_read(i, k) / 4096);
                assert_int_equal(u->per_agent[j]->write_ios, fig_write(i, k) / 512);
                j++;
        }
}

/* --- prepare ------------------------------------------------------------------------------ */

static void test_prepare_to_every_agent(void **state)
{
        static const job_def_t jobs[2] = {
            {"seqread", {"rw", "read", "bs", "128k", "size", "64m", NULL}},
            {"randwrite", {"rw", "randwrite", "bs", "4k", "size", "16m", "numjobs", "2", NULL}},
        };
        fx_t fx;

        fx_agents(&fx, 3, NULL);
        fx_start(&fx, jobs, 2, 500 * NSEC_PER_MSEC, 3 * NSEC_PER_SEC);
        assert_int_equal(fx.run->phase, RUN_PREPARING);
        assert_false(run_done(fx.run));
        assert_int_equal(fx.run->n_agents, 3);
        assert_int_equal(fx.run->interval_ns, 500 * NSEC_PER_MSEC);
        assert_int_equal(fx.run->lead_ns, 3 * NSEC_PER_SEC);
        assert_int_equal(fx.run->submitted_ns, T0);
        assert_int_equal(fx.run->n_specs, 2);
        assert_int_equal(fx.run->specs[1].rw, RW_RANDWRITE);
        assert_int_equal(fx.run->specs[1].numjobs, 2);
        assert_int_equal(fx.run->max_intervals, 0); /* size-bound */
        assert_string_equal(fx.run->control_peer, CONTROL);

        assert_int_equal(fx.out.agents.n, 3);
        assert_int_equal(fx.out.control.n, 0);
        for (size_t i = 0; i < 3; i++) {
                envelope_t *e = item(&fx.out.agents, i);
                const Iofleet__Prepare *p;
                assert_string_equal(fx.out.agents.items[i].peer, fx.agents[i].id);
                assert_int_equal(e->body_case, BODY(PREPARE));
                assert_int_equal(e->version, PROTOCOL_VERSION);
                /* Each agent's own sequence goes on. */
                assert_int_equal(e->seq, 1);
                assert_int_equal(fx.agents[i].seq_out, 1);
                p = e->prepare;
                assert_string_equal(p->run_id, RUN_ID);
                assert_int_equal(p->rank, i);
                assert_int_equal(p->nagents, 3);
                assert_int_equal(p->interval_ns, 500 * NSEC_PER_MSEC);
                assert_int_equal(p->n_jobs, 2);
                for (size_t j = 0; j < 2; j++) {
                        size_t m = 0;
                        assert_string_equal(p->jobs[j]->name, jobs[j].name);
                        for (; jobs[j].opts[2 * m]; m++) {
                                assert_string_equal(p->jobs[j]->options[m]->key,
                                                    jobs[j].opts[2 * m]);
                                assert_string_equal(p->jobs[j]->options[m]->value,
                                                    jobs[j].opts[2 * m + 1]);
                        }
                        assert_int_equal(p->jobs[j]->n_options, m);
                }
                assert_int_equal(fx.run->agents[i].rank, i);
                assert_string_equal(fx.run->agents[i].name, names[i]);
                assert_string_equal(fx.run->agents[i].id, fx.agents[i].id);
                assert_string_equal(fx.run->agents[i].hostname, fx.agents[i].hostname);
                assert_int_equal(fx.run->agents[i].last_index, -1);
                wire_free(&e);
        }
        /* Nothing to do until agents answer, or until the prepare deadline: 2 minutes, plus the
         * 64 + 2 x 16 MiB each lays out at 32 MiB/s. */
        assert_int_equal(run_next_deadline(fx.run), T0 + 123 * SEC);
        run_tick(fx.run, T0 + 123 * SEC - 1, &fx.out);
        assert_int_equal(fx.out.agents.n, 3);
        assert_int_equal(fx.run->phase, RUN_PREPARING);
        /* beta answers; the others never do: the run is cancelled, naming them. */
        assert_int_equal(send_prepared(&fx, 1, T0 + SEC), 0);
        fx_clear(&fx);
        run_tick(fx.run, T0 + 123 * SEC, &fx.out);
        assert_true(run_done(fx.run));
        assert_int_equal(fx.run->code, IOFLEET__ERROR_CODE__ERROR_TIMEOUT);
        assert_non_null(strstr(fx.run->message, "prepare_timeout"));
        assert_non_null(strstr(fx.run->message, "alpha"));
        assert_non_null(strstr(fx.run->message, "gamma"));
        assert_null(strstr(fx.run->message, "beta"));
        assert_int_equal(count_to(&fx.out.agents, BODY(STOP), NULL), 3);
        fx_done(&fx);
}

static void test_prepare_defaults(void **state)
{
        fx_t fx;
        fx_agents(&fx, 1, NULL);
        fx_start(&fx, &job_seqread, 1, 0, 0);
        assert_int_equal(fx.run->interval_ns, NSEC_PER_SEC);
        assert_int_equal(fx.run->lead_ns, 2 * NSEC_PER_SEC);
        assert_int_equal(count_to(&fx.out.agents, BODY(PREPARE), fx.agents[0].id), 1);
        {
                envelope_t *e = item(&fx.out.agents, 0);
                assert_int_equal(e->prepare->interval_ns, NSEC_PER_SEC);
                assert_int_equal(e->prepare->nagents, 1);
                wire_free(&e);
        }
        fx_done(&fx);
}

/* A WatchRun from the CLI that submitted the run (its ping after a silence) adds no second
 * subscription: each update goes once to each peer. */
static void test_watcher_once(void **state)
{
        fx_t fx;
        fx_agents(&fx, 1, NULL);
        fx_start(&fx, &job_seqread, 1, 0, 0);
        assert_int_equal(run_add_watcher(fx.run, CONTROL), 1);
        assert_int_equal(run_add_watcher(fx.run, CONTROL), 1);
        assert_int_equal(fx.run->n_watchers, 0);
        assert_int_equal(run_add_watcher(fx.run, "watcher-2"), 0);
        assert_int_equal(run_add_watcher(fx.run, "watcher-2"), 1);
        assert_int_equal(fx.run->n_watchers, 1);
        fx_clear(&fx);
        run_cancel(fx.run, IOFLEET__ERROR_CODE__ERROR_CANCELLED, "cancelled by the user", T0 + SEC,
                   &fx.out);
        assert_true(count_to(&fx.out.control, BODY(RUN_UPDATE), CONTROL) > 0);
        assert_int_equal(count_to(&fx.out.control, BODY(RUN_UPDATE), CONTROL),
                         count_to(&fx.out.control, BODY(RUN_UPDATE), "watcher-2"));
        assert_int_equal(count_to(&fx.out.control, BODY(RUN_UPDATE), NULL),
                         2 * count_to(&fx.out.control, BODY(RUN_UPDATE), CONTROL));
        fx_done(&fx);
}

/* A run nobody watches queues no control messages. */
static void test_no_control_peer(void **state)
{
        fx_t fx;
        envelope_t *submit;
        char err[256];

        fx_agents(&fx, 2, NULL);
        submit = make_submit(&job_seqread, 1, 0, 0);
        assert_int_equal(
            run_new(RUN_ID, NULL, &submit, fx.ap, NULL, 2, T0, &fx.out, &fx.run, err, sizeof(err)), 0);
        for (size_t i = 0; i < 2; i++)
                assert_int_equal(send_prepared(&fx, i, T0), 0);
        for (size_t i = 0; i < 2; i++)
                assert_int_equal(send_started(&fx, i, fx.run->start_ns, 0, T0 + 2 * SEC), 0);
        run_cancel(fx.run, IOFLEET__ERROR_CODE__ERROR_CANCELLED, "bye", T0 + 3 * SEC, &fx.out);
        assert_int_equal(fx.run->phase, RUN_STOPPING);
        assert_int_equal(fx.out.control.n, 0);
        fx_done(&fx);
}

static void check_refused(const job_def_t *jobs, size_t n_jobs, const char *w1, const char *w2)
{
        fx_t fx;
        envelope_t *submit;
        coord_run_t *run = NULL;
        char err[512] = "";
        int r;

        fx_agents(&fx, 3, NULL);
        submit = make_submit(jobs, n_jobs, 0, 0);
        r = run_new(RUN_ID, CONTROL, &submit, fx.ap, NULL, 3, T0, &fx.out, &run, err, sizeof(err));
        assert_int_equal(r, -EINVAL);
        assert_null(run);
        /* The submit stays the caller's on failure. */
        assert_non_null(submit);
        if (!strstr(err, w1) || (w2 && !strstr(err, w2)))
                fail_msg("error '%s' does not name '%s'%s%s", err, w1, w2 ? " and " : "",
                         w2 ? w2 : "");
        assert_int_equal(fx.out.agents.n, 0);
        assert_int_equal(fx.out.control.n, 0);
        for (size_t i = 0; i < 3; i++)
                assert_int_equal(fx.agents[i].seq_out, 0);
        wire_free(&submit);
        fx_done(&fx);
}

static void test_bad_job_refused(void **state)
{
        static const job_def_t sideways[1] = {{"bad", {"rw", "sideways", "size", "1m", NULL}}};
        static const job_def_t big_bs[1] = {{"big", {"bs", "1m", "size", "4k", NULL}}};
        static const job_def_t second_bad[2] = {
            {"first", {"rw", "read", "size", "1m", NULL}},
            {"second", {"rw", "write", "size", "1m", "frobnicate", "1", NULL}},
        };
        static const job_def_t ro_write[1] = {
            {"ro", {"rw", "write", "size", "1m", "readonly", "1", NULL}}};

        check_refused(sideways, 1, "rw", "sideways");
        check_refused(big_bs, 1, "bs", "size");
        /* A bad job after a good one: still nothing queued, and the job is named. */
        check_refused(second_bad, 2, "frobnicate", "second");
        check_refused(ro_write, 1, "readonly", "write");
}

/* --- start -------------------------------------------------------------------------------- */

/* Agent i's LayoutProgress, through the wire as the loop hands it over. */
static int send_layout(fx_t *fx, size_t i, uint64_t done, uint64_t total, int64_t now)
{
        envelope_t e = IOFLEET__ENVELOPE__INIT, *m;
        Iofleet__LayoutProgress p = IOFLEET__LAYOUT_PROGRESS__INIT;
        int r;
        p.run_id = RUN_ID;
        p.done_bytes = done;
        p.total_bytes = total;
        e.body_case = BODY(LAYOUT_PROGRESS);
        e.layout_progress = &p;
        m = roundtrip(&e);
        r = run_on_layout_progress(fx->run, fx->agents[i].id, m->layout_progress, now, &fx->out);
        wire_free(&m);
        return r;
}

/* Layout progress reaches the CLI as KIND_LAYOUT: nothing for a layout quicker than a second,
 * then at most once a second (at run_tick, by run_next_deadline), at once when complete, and
 * nothing once the run has left preparing. Not journalled, never acknowledged. */
static void test_layout_progress_updates(void **state)
{
        envelope_t *u[4];
        fx_t fx;

        fx_agents(&fx, 2, NULL);
        fx_start(&fx, &job_seqread, 1, NSEC_PER_SEC, 2 * NSEC_PER_SEC);
        fx_clear(&fx);
        assert_int_equal(send_layout(&fx, 0, 0, 100 * MIB, T0 + 100 * MSEC), 0);
        assert_int_equal(send_layout(&fx, 1, 10 * MIB, 200 * MIB, T0 + 150 * MSEC), 0);
        assert_int_equal(fx.out.control.n, 0);
        assert_int_equal(fx.out.agents.n, 0);
        assert_int_equal(fx.out.acks.n, 0);
        assert_int_equal(run_next_deadline(fx.run), T0 + 1100 * MSEC);
        assert_int_equal(send_layout(&fx, 0, 20 * MIB, 100 * MIB, T0 + 1100 * MSEC), 0);
        assert_int_equal(send_layout(&fx, 1, 50 * MIB, 200 * MIB, T0 + 1150 * MSEC), 0);
        run_tick(fx.run, T0 + 1150 * MSEC, &fx.out);
        assert_int_equal(updates(&fx.out.control, KIND(LAYOUT), u, 4), 1);
        assert_int_equal(u[0]->run_update->layout_done_bytes, 70 * MIB);
        assert_int_equal(u[0]->run_update->layout_total_bytes, 300 * MIB);
        assert_int_equal(u[0]->run_update->layout_agents, 2);
        assert_int_equal(u[0]->run_update->agents, 2);
        /* 20 MiB/s and 40 MiB/s: alpha needs 4 s more, beta 3.75 s. */
        assert_int_equal(u[0]->run_update->layout_rate, 60 * MIB);
        assert_int_equal(u[0]->run_update->layout_eta_ns, 4 * SEC);
        assert_string_equal(u[0]->run_update->layout_slowest->name, "alpha");
        assert_int_equal(u[0]->run_update->n_layout_per_agent, 2);
        assert_string_equal(u[0]->run_update->layout_per_agent[1]->name, "beta");
        assert_int_equal(u[0]->run_update->layout_per_agent[1]->done_bytes, 50 * MIB);
        free_all(u, 1);
        fx_clear(&fx);
        /* Not again within the second, however many reports come. */
        assert_int_equal(send_layout(&fx, 1, 90 * MIB, 200 * MIB, T0 + 2000 * MSEC), 0);
        run_tick(fx.run, T0 + 2000 * MSEC, &fx.out);
        assert_int_equal(fx.out.control.n, 0);
        assert_int_equal(run_next_deadline(fx.run), T0 + 2150 * MSEC);
        /* Complete: at once, at the total. */
        assert_int_equal(send_layout(&fx, 0, 100 * MIB, 100 * MIB, T0 + 2050 * MSEC), 0);
        assert_int_equal(fx.out.control.n, 0);
        assert_int_equal(send_layout(&fx, 1, 200 * MIB, 200 * MIB, T0 + 2100 * MSEC), 0);
        assert_int_equal(updates(&fx.out.control, KIND(LAYOUT), u, 4), 1);
        assert_int_equal(u[0]->run_update->layout_done_bytes, 300 * MIB);
        assert_int_equal(u[0]->run_update->layout_eta_ns, 0);
        assert_null(u[0]->run_update->layout_slowest);
        free_all(u, 1);
        fx_clear(&fx);
        /* Another run's, or once the run is starting: ignored. */
        assert_int_equal(send_prepared(&fx, 0, T0 + 2200 * MSEC), 0);
        assert_int_equal(send_prepared(&fx, 1, T0 + 2300 * MSEC), 0);
        assert_int_equal(fx.run->phase, RUN_STARTING);
        assert_int_equal(send_layout(&fx, 1, 200 * MIB, 200 * MIB, T0 + 2400 * MSEC), -ESRCH);
        run_tick(fx.run, T0 + 4 * SEC, &fx.out);
        assert_int_equal(count_updates(&fx.out.control, KIND(LAYOUT)), 0);
        fx_done(&fx);
}

/* A layout done within its first second shows nothing. */
static void test_layout_quick_shows_nothing(void **state)
{
        fx_t fx;

        fx_agents(&fx, 1, NULL);
        fx_start(&fx, &job_seqread, 1, NSEC_PER_SEC, 2 * NSEC_PER_SEC);
        fx_clear(&fx);
        assert_int_equal(send_layout(&fx, 0, 0, 64 * MIB, T0 + 10 * MSEC), 0);
        assert_int_equal(send_layout(&fx, 0, 64 * MIB, 64 * MIB, T0 + 600 * MSEC), 0);
        assert_int_equal(fx.out.control.n, 0);
        assert_int_equal(send_prepared(&fx, 0, T0 + 700 * MSEC), 0);
        run_tick(fx.run, T0 + 2 * SEC, &fx.out);
        assert_int_equal(count_updates(&fx.out.control, KIND(LAYOUT)), 0);
        fx_done(&fx);
}

static void test_start_after_every_prepared(void **state)
{
        fx_t fx;
        int64_t t = T0 + 750 * MSEC;

        fx_agents(&fx, 3, NULL);
        fx_start(&fx, &job_seqread, 1, NSEC_PER_SEC, 2 * NSEC_PER_SEC);
        fx_clear(&fx);

        assert_int_equal(send_prepared(&fx, 0, T0 + 100 * MSEC), 0);
        assert_int_equal(send_prepared(&fx, 2, T0 + 200 * MSEC), 0);
        assert_int_equal(fx.out.agents.n, 0);
        assert_int_equal(fx.run->phase, RUN_PREPARING);
        /* Another run's Prepared, or one from an agent outside the run, changes nothing. */
        assert_int_equal(send_prepared_as(&fx, 1, "run-other", T0 + 300 * MSEC), -ESRCH);
        assert_false(fx.run->agents[1].prepared);
        {
                envelope_t e = IOFLEET__ENVELOPE__INIT;
                Iofleet__Prepared p = IOFLEET__PREPARED__INIT;
                p.run_id = RUN_ID;
                e.body_case = BODY(PREPARED);
                e.prepared = &p;
                assert_int_equal(deliver_id(&fx, "not-in-this-run", &e, T0), -ESRCH);
        }
        assert_int_equal(fx.out.agents.n, 0);

        assert_int_equal(send_prepared(&fx, 1, t), 0);
        assert_int_equal(fx.run->phase, RUN_STARTING);
        assert_int_equal(fx.run->start_ns, t + 2 * SEC);
        assert_int_equal(fx.out.agents.n, 3);
        for (size_t i = 0; i < 3; i++) {
                envelope_t *e = item(&fx.out.agents, i);
                assert_int_equal(e->body_case, BODY(START));
                assert_string_equal(fx.out.agents.items[i].peer, fx.agents[i].id);
                assert_string_equal(e->start->run_id, RUN_ID);
                assert_int_equal(e->start->start_ns, t + 2 * SEC);
                assert_true(fx.run->agents[i].prepared);
                assert_int_equal(fx.run->agents[i].offset_ns, 1000 * (int64_t)(i + 1));
                assert_int_equal(fx.run->agents[i].rtt_ns, 50000 + i);
                wire_free(&e);
        }
        /* A repeated Prepared does not start the run twice. */
        assert_int_equal(send_prepared(&fx, 1, t + MSEC), 0);
        assert_int_equal(fx.out.agents.n, 3);
        assert_int_equal(fx.run->start_ns, t + 2 * SEC);
        fx_done(&fx);
}

static void check_skew(const char *const *boot_ids, bool shared, uint64_t expected)
{
        /* Timeline instants carry offset estimate errors; the shared kernel clock does not. */
        static const int64_t tl[3] = {300 * USEC, -200 * USEC, 1000 * USEC};
        static const int64_t mono[3] = {10 * USEC, 40 * USEC, 25 * USEC};
        fx_t fx;
        envelope_t *u[4];
        int64_t s;

        fx_agents(&fx, 3, boot_ids);
        fx_start(&fx, &job_seqread, 1, NSEC_PER_SEC, 2 * NSEC_PER_SEC);
        for (size_t i = 0; i < 3; i++)
                assert_int_equal(send_prepared(&fx, i, T0 + MSEC), 0);
        s = fx.run->start_ns;
        fx_clear(&fx);
        for (size_t i = 0; i < 2; i++)
                assert_int_equal(send_started(&fx, i, s + tl[i], 77 * SEC + mono[i], s + 5 * MSEC),
                                 0);
        assert_int_equal(count_updates(&fx.out.control, KIND(STARTED)), 0);
        assert_int_equal(fx.run->phase, RUN_STARTING);
        assert_int_equal(send_started(&fx, 2, s + tl[2], 77 * SEC + mono[2], s + 6 * MSEC), 0);
        assert_int_equal(fx.run->phase, RUN_RUNNING);
        assert_int_equal(fx.run->skew_shared_clock, shared);
        assert_int_equal(fx.run->start_skew_ns, expected);
        assert_int_equal(updates(&fx.out.control, KIND(STARTED), u, 4), 1);
        assert_int_equal(u[0]->run_update->start_ns, s);
        assert_int_equal(u[0]->run_update->start_skew_ns, expected);
        assert_int_equal(u[0]->run_update->agents, 3);
        assert_int_equal(u[0]->run_update->interval_ns, NSEC_PER_SEC);
        assert_string_equal(u[0]->run_update->message, shared ? "shared clock" : "timeline");
        /* Control messages carry the shell's sequence. */
        assert_int_equal(u[0]->seq, fx.control_seq);
        for (size_t i = 0; i < 3; i++) {
                assert_true(fx.run->agents[i].started);
                assert_int_equal(fx.run->agents[i].start_ns, s + tl[i]);
                assert_int_equal(fx.run->agents[i].host_mono_ns, 77 * SEC + mono[i]);
                assert_int_equal(fx.run->agents[i].workers_lag_ns, 1000);
        }
        /* A repeated Started does not announce the start again. */
        assert_int_equal(send_started(&fx, 0, s + tl[0], 77 * SEC + mono[0], s + 7 * MSEC), 0);
        assert_int_equal(count_updates(&fx.out.control, KIND(STARTED)), 1);
        free_all(u, 1);
        fx_done(&fx);
}

static void test_started_skew_shared_clock(void **state)
{
        static const char *const same[3] = {"boot-1", "boot-1", "boot-1"};
        check_skew(same, true, 30 * USEC); /* 40us - 10us on the shared CLOCK_MONOTONIC */
}

static void test_started_skew_timeline(void **state)
{
        static const char *const differ[3] = {"boot-1", "boot-2", "boot-1"};
        static const char *const unknown[3] = {"", "", ""};
        static const char *const partly[3] = {"boot-1", "", "boot-1"};
        check_skew(differ, false, 1200 * USEC); /* 1000us - (-200us) on the timeline */
        check_skew(unknown, false, 1200 * USEC);
        check_skew(partly, false, 1200 * USEC);
}

/* --- intervals ---------------------------------------------------------------------------- */

static void test_interval_sums_in_order(void **state)
{
        fx_t fx;
        envelope_t *u[8];
        int64_t s;

        fx_agents(&fx, 3, NULL);
        fx_start(&fx, &job_seqread, 1, NSEC_PER_SEC, 2 * NSEC_PER_SEC);
        s = fx_running(&fx);

        /* Interval 0: shown as soon as the third agent reported it. */
        assert_int_equal(send_interval(&fx, 0, 0, false, s + SEC + 5 * MSEC), 0);
        assert_int_equal(send_interval(&fx, 1, 0, false, s + SEC + 8 * MSEC), 0);
        assert_int_equal(count_updates(&fx.out.control, KIND(INTERVAL)), 0);
        assert_int_equal(send_interval(&fx, 2, 0, false, s + SEC + 9 * MSEC), 0);
        assert_int_equal(updates(&fx.out.control, KIND(INTERVAL), u, 8), 1);
        check_interval_update(&fx, u[0], 0, 7, 3);
        free_all(u, 1);
        fx_clear(&fx);

        /* Interval 2 complete before interval 1: both wait, then come out in order. */
        assert_int_equal(send_interval(&fx, 0, 1, false, s + 2 * SEC + 10 * MSEC), 0);
        assert_int_equal(send_interval(&fx, 0, 2, false, s + 2 * SEC + 20 * MSEC), 0);
        assert_int_equal(send_interval(&fx, 1, 2, false, s + 2 * SEC + 30 * MSEC), 0);
        assert_int_equal(send_interval(&fx, 2, 2, false, s + 2 * SEC + 40 * MSEC), 0);
        assert_int_equal(send_interval(&fx, 1, 1, false, s + 2 * SEC + 50 * MSEC), 0);
        assert_int_equal(count_updates(&fx.out.control, KIND(INTERVAL)), 0);
        assert_int_equal(fx.run->next_emit, 1);
        assert_int_equal(send_interval(&fx, 2, 1, false, s + 2 * SEC + 60 * MSEC), 0);
        assert_int_equal(updates(&fx.out.control, KIND(INTERVAL), u, 8), 2);
        check_interval_update(&fx, u[0], 1, 7, 3);
        check_interval_update(&fx, u[1], 2, 7, 3);
        free_all(u, 2);
        assert_int_equal(fx.run->next_emit, 3);
        assert_int_equal(fx.run->n_civ, 3);

        /* The stored cluster series holds the same sums. */
        for (size_t k = 0; k < 3; k++) {
                uint64_t rb = 0, wb = 0;
                for (size_t i = 0; i < 3; i++) {
                        rb += fig_read(i, k);
                        wb += fig_write(i, k);
                        assert_true(fx.run->agents[i].iv[k].received);
                        assert_int_equal(fx.run->agents[i].iv[k].io.read_bytes, fig_read(i, k));
                }
                assert_int_equal(fx.run->civ[k].io.read_bytes, rb);
                assert_int_equal(fx.run->civ[k].io.write_bytes, wb);
                assert_int_equal(fx.run->civ[k].reported, 3);
                assert_true(fx.run->civ[k].emitted);
                /* Freed once the next is shown; the last shown one stays for /metrics. */
                if (k + 1 < fx.run->next_emit)
                        assert_null(fx.run->civ[k].clat);
                else
                        assert_non_null(fx.run->civ[k].clat);
        }

        /* A repeated interval is not counted twice. */
        fx_clear(&fx);
        assert_int_equal(send_interval(&fx, 1, 1, false, s + 2 * SEC + 70 * MSEC), 0);
        assert_int_equal(fx.run->civ[1].reported, 3);
        assert_int_equal(fx.run->civ[1].io.read_bytes,
                         fig_read(0, 1) + fig_read(1, 1) + fig_read(2, 1));
        assert_int_equal(fx.out.control.n, 0);
        /* Another run's interval is ignored. */
        assert_int_equal(send_interval_ex(&fx, 0, 3, false, s + 4 * SEC, "run-other"), -ESRCH);
        assert_int_equal(fx.run->n_civ, 3);
        fx_done(&fx);
}

static void test_interval_late_agent(void **state)
{
        fx_t fx;
        envelope_t *u[8];
        int64_t s, d;

        fx_agents(&fx, 3, NULL);
        fx_start(&fx, &job_seqread, 1, NSEC_PER_SEC, 2 * NSEC_PER_SEC);
        s = fx_running(&fx);

        assert_int_equal(send_interval(&fx, 0, 0, false, s + SEC + 10 * MSEC), 0);
        assert_int_equal(send_interval(&fx, 2, 0, false, s + SEC + 20 * MSEC), 0);
        assert_int_equal(count_updates(&fx.out.control, KIND(INTERVAL)), 0);

        /* Half an interval of grace after the interval's end, then it is shown without beta. */
        d = run_next_deadline(fx.run);
        assert_int_equal(d, s + SEC + 500 * MSEC);
        run_tick(fx.run, d - 1, &fx.out);
        assert_int_equal(count_updates(&fx.out.control, KIND(INTERVAL)), 0);
        run_tick(fx.run, d, &fx.out);
        assert_int_equal(updates(&fx.out.control, KIND(INTERVAL), u, 8), 1);
        check_interval_update(&fx, u[0], 0, 1 | 4, 3);
        free_all(u, 1);
        assert_int_equal(run_next_deadline(fx.run), INT64_MAX);
        fx_clear(&fx);

        /* beta's interval 0 arrives late: it counts in the stored totals, but is not shown again.
         */
        assert_int_equal(send_interval(&fx, 1, 0, false, s + SEC + 700 * MSEC), 0);
        assert_int_equal(count_updates(&fx.out.control, KIND(INTERVAL)), 0);
        assert_int_equal(fx.run->civ[0].reported, 3);
        assert_int_equal(fx.run->civ[0].io.read_bytes,
                         fig_read(0, 0) + fig_read(1, 0) + fig_read(2, 0));
        assert_int_equal(fx.run->civ[0].io.write_bytes,
                         fig_write(0, 0) + fig_write(1, 0) + fig_write(2, 0));
        assert_true(fx.run->civ[0].emitted);
        assert_true(fx.run->agents[1].iv[0].received);

        /* Interval 1 from all: exactly one update, for interval 1. */
        for (size_t i = 0; i < 3; i++)
                assert_int_equal(send_interval(&fx, i, 1, false, s + 2 * SEC + 10 * MSEC), 0);
        assert_int_equal(updates(&fx.out.control, KIND(INTERVAL), u, 8), 1);
        check_interval_update(&fx, u[0], 1, 7, 3);
        free_all(u, 1);
        run_tick(fx.run, s + 60 * SEC, &fx.out);
        assert_int_equal(count_updates(&fx.out.control, KIND(INTERVAL)), 1);
        fx_done(&fx);
}

/* run_collecting(): from an interval's end until it is shown (every agent in) or its grace is
 * over, and never before the start, between two intervals' ends, after the last one or once
 * the run is over: the loop holds its Acks only while a burst of Intervals comes in. */
static void test_collecting(void **state)
{
        static const job_def_t timed[] = {{"t", {"ioengine", "null", "time_based", "1", "runtime",
                                                  "2s", NULL}}};
        fx_t fx;
        int64_t s;
        (void)state;

        fx_agents(&fx, 3, NULL);
        fx_start(&fx, timed, 1, NSEC_PER_SEC, 2 * NSEC_PER_SEC);
        assert_int_equal(fx.run->max_intervals, 2);
        assert_false(run_collecting(fx.run, T0 + 5 * SEC));
        s = fx_running(&fx);
        assert_false(run_collecting(fx.run, s + SEC - 1));
        assert_true(run_collecting(fx.run, s + SEC));
        assert_int_equal(send_interval(&fx, 0, 0, false, s + SEC + 10 * MSEC), 0);
        assert_int_equal(send_interval(&fx, 1, 0, false, s + SEC + 20 * MSEC), 0);
        assert_true(run_collecting(fx.run, s + SEC + 20 * MSEC));
        /* past the grace: shown at the next tick without agent 2, nothing held meanwhile */
        assert_false(run_collecting(fx.run, s + SEC + 500 * MSEC));
        run_tick(fx.run, s + SEC + 500 * MSEC, &fx.out);
        assert_false(run_collecting(fx.run, s + SEC + 600 * MSEC));
        /* interval 1, the last: collecting until every agent's is in */
        assert_true(run_collecting(fx.run, s + 2 * SEC));
        for (size_t i = 0; i < 3; i++) {
                assert_true(run_collecting(fx.run, s + 2 * SEC + (int64_t)i * MSEC));
                assert_int_equal(send_interval(&fx, i, 1, true, s + 2 * SEC + (int64_t)i * MSEC),
                                 0);
        }
        assert_false(run_collecting(fx.run, s + 2 * SEC + 3 * MSEC));
        assert_false(run_collecting(fx.run, s + 3 * SEC));
        fx_done(&fx);
}

/* run_next_deadline() names the instant run_tick() shows a late interval, for short intervals
 * too (the grace is never less than 100ms): a shell that polls until that deadline must not
 * find run_tick() with nothing to do and the same deadline still in the past. */
static void test_late_interval_deadline_short_interval(void **state)
{
        fx_t fx;
        envelope_t *u[4];
        int64_t s, d;

        fx_agents(&fx, 3, NULL);
        fx_start(&fx, &job_seqread, 1, 50 * NSEC_PER_MSEC, 2 * NSEC_PER_SEC);
        s = fx_running(&fx);
        assert_int_equal(send_interval(&fx, 0, 0, false, s + 51 * MSEC), 0);
        assert_int_equal(send_interval(&fx, 1, 0, false, s + 52 * MSEC), 0);
        d = run_next_deadline(fx.run);
        assert_true(d > s + 50 * MSEC && d < INT64_MAX);
        run_tick(fx.run, d, &fx.out);
        assert_int_equal(updates(&fx.out.control, KIND(INTERVAL), u, 4), 1);
        check_interval_update(&fx, u[0], 0, 1 | 2, 3);
        free_all(u, 1);
        assert_true(run_next_deadline(fx.run) > d);
        fx_done(&fx);
}

static void test_last_interval_not_awaited(void **state)
{
        fx_t fx;
        envelope_t *u[8];
        int64_t s;

        fx_agents(&fx, 3, NULL);
        fx_start(&fx, &job_seqread, 1, NSEC_PER_SEC, 2 * NSEC_PER_SEC);
        s = fx_running(&fx);

        assert_int_equal(send_interval(&fx, 0, 0, true, s + SEC + 10 * MSEC), 0);
        assert_int_equal(fx.run->agents[0].last_index, 0);
        assert_int_equal(send_interval(&fx, 1, 0, false, s + SEC + 10 * MSEC), 0);
        assert_int_equal(send_interval(&fx, 2, 0, false, s + SEC + 10 * MSEC), 0);
        assert_int_equal(updates(&fx.out.control, KIND(INTERVAL), u, 8), 1);
        check_interval_update(&fx, u[0], 0, 7, 3);
        free_all(u, 1);
        fx_clear(&fx);

        /* alpha is done after interval 0: interval 1 is complete with the other two. */
        assert_int_equal(send_interval(&fx, 1, 1, false, s + 2 * SEC + 10 * MSEC), 0);
        assert_int_equal(count_updates(&fx.out.control, KIND(INTERVAL)), 0);
        assert_int_equal(send_interval(&fx, 2, 1, false, s + 2 * SEC + 20 * MSEC), 0);
        assert_int_equal(updates(&fx.out.control, KIND(INTERVAL), u, 8), 1);
        check_interval_update(&fx, u[0], 1, 2 | 4, 2);
        free_all(u, 1);
        fx_done(&fx);
}

/* --- finish, failure, cancel -------------------------------------------------------------- */

static void test_finished_from_all(void **state)
{
        fx_t fx;
        envelope_t *u[8];
        bool taken = false;
        int64_t s;

        fx_agents(&fx, 3, NULL);
        fx_start(&fx, &job_seqread, 1, NSEC_PER_SEC, 2 * NSEC_PER_SEC);
        s = fx_running(&fx);
        for (size_t i = 0; i < 3; i++)
                assert_int_equal(send_interval(&fx, i, 0, false, s + SEC + 10 * MSEC), 0);
        /* Interval 1: alpha and beta end with it; gamma has not sent it yet. */
        assert_int_equal(send_interval(&fx, 0, 1, true, s + 2 * SEC + 10 * MSEC), 0);
        assert_int_equal(send_interval(&fx, 1, 1, true, s + 2 * SEC + 10 * MSEC), 0);
        fx_clear(&fx);

        assert_int_equal(send_finished_ex(&fx, 0, NULL, s + 2 * SEC + 20 * MSEC, &taken), 0);
        assert_true(taken); /* kept for the result */
        assert_non_null(fx.run->agents[0].finished);
        assert_true(fx.run->agents[0].done);
        assert_false(run_done(fx.run));
        assert_int_equal(send_finished_ex(&fx, 0, NULL, s + 2 * SEC + 21 * MSEC, &taken),
                         -EALREADY);
        assert_false(taken);
        assert_int_equal(
            send_finished_ex(&fx, 1, "job seqread: EIO on file 0", s + 2 * SEC + 30 * MSEC, NULL),
            0);
        assert_string_equal(fx.run->agents[1].error, "job seqread: EIO on file 0");
        assert_true(event_says(&fx.out.control, "beta", "EIO"));
        assert_false(run_done(fx.run));
        assert_int_equal(count_updates(&fx.out.control, KIND(INTERVAL)), 0);

        assert_int_equal(send_finished(&fx, 2, s + 2 * SEC + 40 * MSEC), 0);
        assert_true(run_done(fx.run));
        assert_int_equal(fx.run->phase, RUN_DONE);
        assert_int_equal(fx.run->code, IOFLEET__ERROR_CODE__ERROR_NONE);
        /* What was still waiting is shown at the end, without gamma's part: it finished
         * without sending its interval 1, which the result lists as missing. */
        assert_int_equal(updates(&fx.out.control, KIND(INTERVAL), u, 8), 1);
        check_interval_update(&fx, u[0], 1, 1 | 2, 3);
        assert_int_equal(u[0]->run_update->n_missing, 1);
        assert_string_equal(u[0]->run_update->missing[0], "gamma");
        free_all(u, 1);
        for (size_t i = 0; i < 3; i++) {
                assert_true(fx.run->agents[i].done);
                assert_non_null(fx.run->agents[i].finished);
                assert_string_equal(fx.run->agents[i].finished->finished->jobs[0]->name, "seqread");
        }
        /* No Stop is needed when every agent finished on its own. */
        assert_int_equal(count_to(&fx.out.agents, BODY(STOP), NULL), 0);
        assert_int_equal(run_next_deadline(fx.run), INT64_MAX);
        fx_done(&fx);
}

static void test_error_while_preparing_cancels(void **state)
{
        fx_t fx;

        fx_agents(&fx, 3, NULL);
        fx_start(&fx, &job_seqread, 1, NSEC_PER_SEC, 2 * NSEC_PER_SEC);
        fx_clear(&fx);
        assert_int_equal(send_prepared(&fx, 0, T0 + 10 * MSEC), 0);
        /* Another run's Error is not this run's business. */
        assert_int_equal(send_error(&fx, 1, IOFLEET__ERROR_CODE__ERROR_PREPARE, "nope", "run-other",
                                    T0 + 15 * MSEC),
                         -ESRCH);
        assert_false(run_done(fx.run));

        assert_int_equal(send_error(&fx, 1, IOFLEET__ERROR_CODE__ERROR_PREPARE,
                                    "mount failed: permission denied", RUN_ID, T0 + 20 * MSEC),
                         0);
        assert_true(run_done(fx.run));
        assert_int_equal(fx.run->code, IOFLEET__ERROR_CODE__ERROR_PREPARE);
        if (!strstr(fx.run->message, "beta") || !strstr(fx.run->message, "mount failed"))
                fail_msg("run message '%s' does not name the agent and its error", fx.run->message);
        assert_string_equal(fx.run->agents[1].error, "mount failed: permission denied");
        /* The others are told to stop; nobody is started. */
        assert_int_equal(count_to(&fx.out.agents, BODY(STOP), fx.agents[0].id), 1);
        assert_int_equal(count_to(&fx.out.agents, BODY(STOP), fx.agents[2].id), 1);
        assert_int_equal(count_to(&fx.out.agents, BODY(START), NULL), 0);
        for (size_t i = 0; i < fx.out.agents.n; i++) {
                envelope_t *e = item(&fx.out.agents, i);
                assert_string_equal(e->stop->run_id, RUN_ID);
                assert_non_null(strstr(e->stop->reason, "beta"));
                wire_free(&e);
        }
        assert_true(event_says(&fx.out.control, "beta", "mount failed"));
        /* Late Prepared from the last agent starts nothing: a run that is over takes no
         * message (its result is being written from it). */
        fx_clear(&fx);
        assert_int_equal(send_prepared(&fx, 2, T0 + 30 * MSEC), -ESRCH);
        assert_int_equal(fx.out.agents.n, 0);
        assert_true(run_done(fx.run));
        fx_done(&fx);
}

static void test_error_while_running_is_an_event(void **state)
{
        fx_t fx;
        envelope_t *u[4];
        int64_t s;

        fx_agents(&fx, 3, NULL);
        fx_start(&fx, &job_seqread, 1, NSEC_PER_SEC, 2 * NSEC_PER_SEC);
        s = fx_running(&fx);
        assert_int_equal(send_error(&fx, 2, IOFLEET__ERROR_CODE__ERROR_IO, "EIO on /mnt/x", RUN_ID,
                                    s + 500 * MSEC),
                         0);
        assert_false(run_done(fx.run));
        assert_int_equal(fx.run->phase, RUN_RUNNING);
        assert_int_equal(count_to(&fx.out.agents, BODY(STOP), NULL), 0);
        assert_true(event_says(&fx.out.control, "gamma", "EIO"));
        fx_clear(&fx);
        /* The failed agent is not waited for, but the interval says it lacks it. */
        assert_int_equal(send_interval(&fx, 0, 0, false, s + SEC + 10 * MSEC), 0);
        assert_int_equal(send_interval(&fx, 1, 0, false, s + SEC + 10 * MSEC), 0);
        assert_int_equal(updates(&fx.out.control, KIND(INTERVAL), u, 4), 1);
        check_interval_update(&fx, u[0], 0, 1 | 2, 3);
        assert_int_equal(u[0]->run_update->n_missing, 1);
        assert_string_equal(u[0]->run_update->missing[0], "gamma");
        free_all(u, 1);
        fx_done(&fx);
}

static void test_agent_lost_while_running(void **state)
{
        fx_t fx;
        envelope_t *u[4];
        int64_t s;

        fx_agents(&fx, 3, NULL);
        fx_start(&fx, &job_seqread, 1, NSEC_PER_SEC, 2 * NSEC_PER_SEC);
        s = fx_running(&fx);
        for (size_t i = 0; i < 3; i++)
                assert_int_equal(send_interval(&fx, i, 0, false, s + SEC + 10 * MSEC), 0);
        fx_clear(&fx);

        run_agent_lost(fx.run, fx.agents[2].id, s + SEC + 500 * MSEC, &fx.out);
        assert_true(fx.run->agents[2].lost);
        assert_false(run_done(fx.run));
        assert_int_equal(fx.run->phase, RUN_RUNNING);
        assert_true(event_says(&fx.out.control, "gamma", "lost"));
        assert_int_equal(count_to(&fx.out.agents, BODY(STOP), NULL), 0);
        fx_clear(&fx);
        /* Losing it again, or an agent outside the run, changes nothing. */
        run_agent_lost(fx.run, fx.agents[2].id, s + SEC + 600 * MSEC, &fx.out);
        run_agent_lost(fx.run, "not-in-this-run", s + SEC + 600 * MSEC, &fx.out);
        assert_int_equal(fx.out.control.n, 0);

        /* Interval 1 is complete with the two that remain; the lost one's words are refused. */
        assert_int_equal(send_interval(&fx, 0, 1, false, s + 2 * SEC + 10 * MSEC), 0);
        assert_int_equal(send_interval(&fx, 2, 1, false, s + 2 * SEC + 10 * MSEC), -ESRCH);
        assert_int_equal(send_interval(&fx, 1, 1, false, s + 2 * SEC + 10 * MSEC), 0);
        assert_int_equal(updates(&fx.out.control, KIND(INTERVAL), u, 4), 1);
        check_interval_update(&fx, u[0], 1, 1 | 2, 3);
        assert_int_equal(u[0]->run_update->n_missing, 1);
        assert_string_equal(u[0]->run_update->missing[0], "gamma");
        free_all(u, 1);
        /* What it sent before is kept. */
        assert_true(fx.run->agents[2].iv[0].received);
        assert_int_equal(fx.run->civ[0].reported, 3);

        assert_int_equal(send_finished(&fx, 0, s + 3 * SEC), 0);
        assert_false(run_done(fx.run));
        assert_int_equal(send_finished(&fx, 2, s + 3 * SEC), -ESRCH);
        assert_int_equal(send_finished(&fx, 1, s + 3 * SEC), 0);
        assert_true(run_done(fx.run));
        assert_int_equal(fx.run->code, IOFLEET__ERROR_CODE__ERROR_NONE);
        assert_null(fx.run->agents[2].finished);
        fx_done(&fx);
}

static void test_agent_lost_while_preparing(void **state)
{
        fx_t fx;

        fx_agents(&fx, 3, NULL);
        fx_start(&fx, &job_seqread, 1, NSEC_PER_SEC, 2 * NSEC_PER_SEC);
        fx_clear(&fx);
        assert_int_equal(send_prepared(&fx, 0, T0 + 10 * MSEC), 0);
        assert_int_equal(send_prepared(&fx, 1, T0 + 20 * MSEC), 0);
        assert_int_equal(fx.out.agents.n, 0);
        /* The last one goes away: the two prepared ones start without it. */
        run_agent_lost(fx.run, fx.agents[2].id, T0 + 30 * MSEC, &fx.out);
        assert_int_equal(fx.run->phase, RUN_STARTING);
        assert_int_equal(fx.run->start_ns, T0 + 30 * MSEC + 2 * SEC);
        assert_int_equal(count_to(&fx.out.agents, BODY(START), fx.agents[0].id), 1);
        assert_int_equal(count_to(&fx.out.agents, BODY(START), fx.agents[1].id), 1);
        assert_int_equal(count_to(&fx.out.agents, BODY(START), fx.agents[2].id), 0);
        fx_clear(&fx);
        assert_int_equal(send_started(&fx, 0, fx.run->start_ns, 0, T0 + 3 * SEC), 0);
        assert_int_equal(send_started(&fx, 1, fx.run->start_ns + 5 * USEC, 0, T0 + 3 * SEC), 0);
        assert_int_equal(fx.run->phase, RUN_RUNNING);
        assert_int_equal(count_updates(&fx.out.control, KIND(STARTED)), 1);
        assert_int_equal(fx.run->start_skew_ns, 5 * USEC);
        fx_done(&fx);
}

/* An agent lost between Start and its Started: the others' Started start the run all the same. */
static void test_agent_lost_while_starting(void **state)
{
        fx_t fx;
        int64_t s;

        fx_agents(&fx, 3, NULL);
        fx_start(&fx, &job_timed10, 1, NSEC_PER_SEC, 2 * NSEC_PER_SEC);
        for (size_t i = 0; i < 3; i++)
                assert_int_equal(send_prepared(&fx, i, T0 + 10 * MSEC), 0);
        s = fx.run->start_ns;
        fx_clear(&fx);

        /* Lost before the others answered. */
        run_agent_lost(fx.run, fx.agents[2].id, s - SEC, &fx.out);
        assert_int_equal(fx.run->phase, RUN_STARTING);
        assert_int_equal(send_started(&fx, 0, s, 0, s + MSEC), 0);
        assert_int_equal(send_started(&fx, 1, s + 3 * USEC, 0, s + MSEC), 0);
        assert_int_equal(fx.run->phase, RUN_RUNNING);
        assert_int_equal(count_updates(&fx.out.control, KIND(STARTED)), 1);
        fx_done(&fx);

        /* Lost after the others answered. */
        fx_agents(&fx, 3, NULL);
        fx_start(&fx, &job_timed10, 1, NSEC_PER_SEC, 2 * NSEC_PER_SEC);
        for (size_t i = 0; i < 3; i++)
                assert_int_equal(send_prepared(&fx, i, T0 + 10 * MSEC), 0);
        s = fx.run->start_ns;
        fx_clear(&fx);
        assert_int_equal(send_started(&fx, 0, s, 0, s + MSEC), 0);
        assert_int_equal(send_started(&fx, 1, s + 3 * USEC, 0, s + MSEC), 0);
        assert_int_equal(fx.run->phase, RUN_STARTING);
        run_agent_lost(fx.run, fx.agents[2].id, s + SEC, &fx.out);
        assert_int_equal(fx.run->phase, RUN_RUNNING);
        assert_int_equal(fx.run->start_skew_ns, 3 * USEC);
        assert_int_equal(count_updates(&fx.out.control, KIND(STARTED)), 1);
        /* ... so that the runtime is enforced. */
        assert_int_equal(run_next_deadline(fx.run), s + 15 * SEC);
        run_tick(fx.run, s + 15 * SEC, &fx.out);
        assert_int_equal(count_to(&fx.out.agents, BODY(STOP), NULL), 2);
        fx_done(&fx);
}

static void test_max_intervals(void **state)
{
        static const struct {
                job_def_t jobs[2];
                size_t n_jobs;
                uint64_t interval_ns;
                uint64_t expected;
        } cases[] = {
            {{JOB_TIMED10}, 1, NSEC_PER_SEC, 10},
            {{{"t", {"ioengine", "null", "time_based", "1", "runtime", "10s", NULL}}},
             1,
             NSEC_PER_SEC,
             10},
            {{{"t", {"size", "1m", "runtime", "2500ms", NULL}}}, 1, NSEC_PER_SEC, 3},
            {{JOB_TIMED10}, 1, 3 * NSEC_PER_SEC, 4},
            {{JOB_TIMED10}, 1, 250 * NSEC_PER_MSEC, 40},
            {{JOB_SEQREAD}, 1, NSEC_PER_SEC, 0},
            /* One size-bound job makes the run open-ended. */
            {{JOB_TIMED10, JOB_SEQREAD}, 2, NSEC_PER_SEC, 0},
            {{{"a", {"size", "1m", "runtime", "5s", NULL}},
              {"b", {"size", "1m", "runtime", "8s", NULL}}},
             2,
             NSEC_PER_SEC,
             8},
        };
        for (size_t c = 0; c < ELEMENTSOF(cases); c++) {
                fx_t fx;
                fx_agents(&fx, 2, NULL);
                fx_start(&fx, cases[c].jobs, cases[c].n_jobs, cases[c].interval_ns, NSEC_PER_SEC);
                if (fx.run->max_intervals != cases[c].expected)
                        fail_msg("case %zu: max_intervals %llu, expected %llu", c,
                                 (unsigned long long)fx.run->max_intervals,
                                 (unsigned long long)cases[c].expected);
                fx_done(&fx);
        }
}

/* The live display learns which intervals are ramp-up and how many measured ones follow:
 * ramp_time=1500ms with runtime=3s at 1 s intervals is 2 ramp intervals, then [1/3] .. [3/3]. */
static void test_ramp_intervals_marked(void **state)
{
        static const job_def_t ramp = {
            "ramp", {"ioengine", "null", "time_based", "1", "ramp_time", "1500ms", "runtime", "3s",
                     NULL}};
        fx_t fx;
        envelope_t *u[4];
        int64_t s;

        fx_agents(&fx, 2, NULL);
        fx_start(&fx, &ramp, 1, NSEC_PER_SEC, NSEC_PER_SEC);
        for (size_t i = 0; i < fx.n; i++)
                assert_int_equal(send_prepared(&fx, i, T0 + 10 * MSEC), 0);
        s = fx.run->start_ns;
        for (size_t i = 0; i < fx.n; i++)
                assert_int_equal(send_started(&fx, i, s, 5 * SEC, s + 2 * MSEC), 0);
        assert_int_equal(updates(&fx.out.control, KIND(STARTED), u, 4), 1);
        assert_int_equal(u[0]->run_update->ramp_intervals, 2);
        assert_int_equal(u[0]->run_update->measured_intervals, 3);
        free_all(u, 1);
        fx_clear(&fx);
        for (size_t i = 0; i < fx.n; i++)
                assert_int_equal(send_interval(&fx, i, 0, false, s + SEC + 5 * MSEC), 0);
        assert_int_equal(updates(&fx.out.control, KIND(INTERVAL), u, 4), 1);
        assert_int_equal(u[0]->run_update->index, 0);
        assert_int_equal(u[0]->run_update->ramp_intervals, 2);
        assert_int_equal(u[0]->run_update->measured_intervals, 3);
        free_all(u, 1);
        fx_done(&fx);
}

static void test_stop_deadline(void **state)
{
        fx_t fx;
        int64_t s, stop;

        fx_agents(&fx, 3, NULL);
        fx_start(&fx, &job_timed10, 1, NSEC_PER_SEC, 2 * NSEC_PER_SEC);
        assert_int_equal(fx.run->max_intervals, 10);
        s = fx_running(&fx);
        stop = s + 10 * SEC + 5 * SEC; /* runtime, then 5s of grace */
        assert_int_equal(fx.run->stop_deadline_ns, stop);
        assert_int_equal(run_next_deadline(fx.run), stop);

        /* Intervals 0..9 exist in a 10 s run of 1 s intervals (agents fold work done past
         * the end into 9); 10 and beyond are refused, not allocated. */
        assert_int_equal(send_interval(&fx, 1, 9, false, s + 10 * SEC), 0);
        assert_int_equal(fx.run->n_civ, 10);
        assert_int_equal(send_interval(&fx, 1, 10, false, s + 10 * SEC), 0);
        assert_int_equal(send_interval(&fx, 1, 500, false, s + 10 * SEC), 0);
        assert_int_equal(fx.run->n_civ, 10);
        assert_true(fx.run->agents[1].n_iv <= 10);
        /* Nothing is accepted before the start instant. */
        assert_int_equal(send_interval(&fx, 0, 0, false, s - 1), 0);
        assert_false(fx.run->agents[0].n_iv > 0 && fx.run->agents[0].iv[0].received);
        /* Nor can an interval lie in the future of the coordinator's clock. */
        assert_int_equal(send_interval(&fx, 2, 5, false, s + 2 * SEC), 0);
        assert_true(fx.run->agents[2].n_iv == 0 || !fx.run->agents[2].iv[5].received);

        assert_int_equal(send_finished(&fx, 0, s + 10 * SEC + 200 * MSEC), 0);
        /* The tick only shows intervals whose grace is over; intervals 0..9 were never sent. */
        run_tick(fx.run, stop - 1, &fx.out);
        assert_int_equal(count_to(&fx.out.agents, BODY(STOP), NULL), 0);
        assert_int_equal(fx.run->phase, RUN_RUNNING);
        fx_clear(&fx);

        run_tick(fx.run, stop, &fx.out);
        assert_int_equal(fx.run->phase, RUN_STOPPING);
        assert_int_equal(count_to(&fx.out.agents, BODY(STOP), fx.agents[0].id), 0); /* finished */
        assert_int_equal(count_to(&fx.out.agents, BODY(STOP), fx.agents[1].id), 1);
        assert_int_equal(count_to(&fx.out.agents, BODY(STOP), fx.agents[2].id), 1);
        for (size_t i = 0; i < fx.out.agents.n; i++) {
                envelope_t *e = item(&fx.out.agents, i);
                assert_string_equal(e->stop->run_id, RUN_ID);
                assert_string_equal(e->stop->reason, "runtime over");
                wire_free(&e);
        }
        assert_true(event_says(&fx.out.control, "runtime", NULL));
        assert_false(run_done(fx.run));
        assert_int_equal(fx.run->finish_deadline_ns, stop + 30 * SEC);
        assert_int_equal(run_next_deadline(fx.run), stop + 30 * SEC);
        fx_clear(&fx);
        /* Stop is sent once. */
        run_tick(fx.run, stop + SEC, &fx.out);
        assert_int_equal(count_to(&fx.out.agents, BODY(STOP), NULL), 0);

        assert_int_equal(send_finished(&fx, 1, stop + 2 * SEC), 0);
        assert_false(run_done(fx.run));
        run_tick(fx.run, stop + 30 * SEC - 1, &fx.out);
        assert_false(run_done(fx.run));
        /* gamma never finishes: given up on, the run ends with what there is. */
        run_tick(fx.run, stop + 30 * SEC, &fx.out);
        assert_true(run_done(fx.run));
        assert_true(fx.run->agents[2].gone);
        assert_non_null(strstr(fx.run->agents[2].error, "did not finish"));
        assert_string_equal(run_agent_status(fx.run, &fx.run->agents[2]), "failed");
        assert_false(fx.run->agents[1].gone);
        assert_string_equal(run_agent_status(fx.run, &fx.run->agents[1]), "ok");
        assert_int_equal(fx.run->code, IOFLEET__ERROR_CODE__ERROR_NONE);
        fx_done(&fx);
}

static void test_stop_deadline_finished_in_time(void **state)
{
        fx_t fx;
        int64_t s;

        fx_agents(&fx, 2, NULL);
        fx_start(&fx, &job_timed10, 1, NSEC_PER_SEC, 2 * NSEC_PER_SEC);
        s = fx_running(&fx);
        assert_int_equal(send_finished(&fx, 0, s + 10 * SEC + MSEC), 0);
        assert_int_equal(send_finished(&fx, 1, s + 10 * SEC + 2 * MSEC), 0);
        assert_true(run_done(fx.run));
        run_tick(fx.run, s + 20 * SEC, &fx.out);
        assert_int_equal(count_to(&fx.out.agents, BODY(STOP), NULL), 0);
        fx_done(&fx);
}

static void test_cancel_while_running(void **state)
{
        fx_t fx;
        int64_t s;

        fx_agents(&fx, 3, NULL);
        fx_start(&fx, &job_seqread, 1, NSEC_PER_SEC, 2 * NSEC_PER_SEC);
        s = fx_running(&fx);
        assert_int_equal(send_finished(&fx, 1, s + 2 * SEC), 0);
        fx_clear(&fx);

        run_cancel(fx.run, IOFLEET__ERROR_CODE__ERROR_CANCELLED, "cancelled by the user",
                   s + 3 * SEC, &fx.out);
        assert_int_equal(fx.run->phase, RUN_STOPPING);
        assert_false(run_done(fx.run));
        assert_int_equal(fx.run->code, IOFLEET__ERROR_CODE__ERROR_CANCELLED);
        assert_string_equal(fx.run->message, "cancelled by the user");
        assert_int_equal(count_to(&fx.out.agents, BODY(STOP), fx.agents[0].id), 1);
        assert_int_equal(count_to(&fx.out.agents, BODY(STOP), fx.agents[1].id), 0); /* finished */
        assert_int_equal(count_to(&fx.out.agents, BODY(STOP), fx.agents[2].id), 1);
        {
                envelope_t *e = item(&fx.out.agents, 0);
                assert_string_equal(e->stop->reason, "cancelled by the user");
                assert_string_equal(e->stop->run_id, RUN_ID);
                wire_free(&e);
        }
        assert_true(event_says(&fx.out.control, "stopping", "cancelled by the user"));
        assert_int_equal(run_next_deadline(fx.run), s + 3 * SEC + 30 * SEC);

        /* A second reason does not replace the first. */
        run_cancel(fx.run, IOFLEET__ERROR_CODE__ERROR_INTERNAL, "shutting down", s + 4 * SEC,
                   &fx.out);
        assert_int_equal(fx.run->code, IOFLEET__ERROR_CODE__ERROR_CANCELLED);
        assert_string_equal(fx.run->message, "cancelled by the user");

        /* Agents answer Stop with Finished: the run is done. */
        assert_int_equal(send_finished(&fx, 0, s + 4 * SEC), 0);
        assert_false(run_done(fx.run));
        assert_int_equal(send_finished(&fx, 2, s + 4 * SEC), 0);
        assert_true(run_done(fx.run));
        fx_clear(&fx);
        run_cancel(fx.run, IOFLEET__ERROR_CODE__ERROR_CANCELLED, "again", s + 5 * SEC, &fx.out);
        assert_int_equal(fx.out.agents.n, 0);
        assert_int_equal(fx.out.control.n, 0);
        fx_done(&fx);
}

static void test_cancel_while_preparing(void **state)
{
        fx_t fx;

        fx_agents(&fx, 2, NULL);
        fx_start(&fx, &job_seqread, 1, NSEC_PER_SEC, 2 * NSEC_PER_SEC);
        fx_clear(&fx);
        run_cancel(fx.run, IOFLEET__ERROR_CODE__ERROR_CANCELLED, "cancelled by the user", T0 + SEC,
                   &fx.out);
        /* Nothing ran, nothing to wait for. */
        assert_true(run_done(fx.run));
        assert_int_equal(count_to(&fx.out.agents, BODY(STOP), NULL), 2);
        fx_done(&fx);
}

static void test_foreign_messages_ignored(void **state)
{
        fx_t fx;
        envelope_t e = IOFLEET__ENVELOPE__INIT;
        Iofleet__Heartbeat hb = IOFLEET__HEARTBEAT__INIT;
        Iofleet__Started st = IOFLEET__STARTED__INIT;

        fx_agents(&fx, 2, NULL);
        fx_start(&fx, &job_seqread, 1, NSEC_PER_SEC, 2 * NSEC_PER_SEC);
        fx_clear(&fx);
        hb.run_id = RUN_ID;
        e.body_case = BODY(HEARTBEAT);
        e.heartbeat = &hb;
        assert_int_equal(deliver(&fx, 0, &e, T0), -ESRCH);
        st.run_id = "run-other";
        e.body_case = BODY(STARTED);
        e.started = &st;
        assert_int_equal(deliver(&fx, 0, &e, T0), -ESRCH);
        assert_false(fx.run->agents[0].started);
        assert_int_equal(fx.out.agents.n, 0);
        assert_int_equal(fx.out.control.n, 0);
        fx_done(&fx);
}

/* --- plans: servers, then clients ----------------------------------------------------- */

/* A plan: agent 0 serves NFS, agents 1 and 2 are clients running job_seqread. */
static void fx_plan(fx_t *fx, bool stonewall)
{
        Iofleet__Part server = IOFLEET__PART__INIT, client = IOFLEET__PART__INIT, *parts[2];
        Iofleet__Setting set[2], *sp[2];
        Iofleet__Setting mnt = IOFLEET__SETTING__INIT, *mp = &mnt;
        envelope_t *jobs_env = make_submit(&job_seqread, 1, 500 * MSEC, 0), *submit;
        Iofleet__SubmitRun s = IOFLEET__SUBMIT_RUN__INIT;
        envelope_t e = IOFLEET__ENVELOPE__INIT;
        uint32_t part_of[3] = {0, 1, 1};
        char err[512] = "";

        iofleet__setting__init(&set[0]);
        iofleet__setting__init(&set[1]);
        set[0].key = "backend";
        set[0].value = "ganesha";
        set[1].key = "path";
        set[1].value = "/srv/export";
        sp[0] = &set[0];
        sp[1] = &set[1];
        mnt.key = "mount";
        mnt.value = "no";
        server.role = "server";
        server.selector = "role=storage";
        server.count = 1;
        server.server = sp;
        server.n_server = 2;
        client.role = "client";
        client.selector = "role=client";
        client.jobs = jobs_env->submit_run->jobs;
        client.n_jobs = jobs_env->submit_run->n_jobs;
        client.mount = &mp;
        client.n_mount = 1;
        parts[0] = &server;
        parts[1] = &client;
        s.parts = parts;
        s.n_parts = 2;
        s.interval_ns = 500 * MSEC;
        s.stonewall = stonewall;
        s.command_line = "[server]\nbackend=ganesha\n";
        e.body_case = BODY(SUBMIT_RUN);
        e.submit_run = &s;
        submit = roundtrip(&e);
        wire_free(&jobs_env);

        fx_agents(fx, 3, NULL);
        if (run_new(RUN_ID, CONTROL, &submit, fx->ap, part_of, 3, T0, &fx->out, &fx->run, err,
                    sizeof(err)) < 0)
                fail_msg("run_new: %s", err);
        fx->run->seq = &fx->control_seq;
}

static int send_server_prepared(fx_t *fx, size_t i, int64_t now)
{
        envelope_t e = IOFLEET__ENVELOPE__INIT;
        Iofleet__Prepared p = IOFLEET__PREPARED__INIT;
        Iofleet__Setting set[2], *sp[2];
        iofleet__setting__init(&set[0]);
        iofleet__setting__init(&set[1]);
        set[0].key = "address";
        set[0].value = "10.200.0.1";
        set[1].key = "export_path";
        set[1].value = "/srv/export";
        sp[0] = &set[0];
        sp[1] = &set[1];
        p.run_id = RUN_ID;
        p.effective = sp;
        p.n_effective = 2;
        e.body_case = BODY(PREPARED);
        e.prepared = &p;
        return deliver(fx, i, &e, now);
}

/* A client's Restored: its mount is gone (what = "yes"), or what failed. */
static int send_restored(fx_t *fx, size_t i, const char *what, uint64_t rseq, int64_t now)
{
        envelope_t e = IOFLEET__ENVELOPE__INIT;
        Iofleet__Restored r = IOFLEET__RESTORED__INIT;
        Iofleet__Setting set = IOFLEET__SETTING__INIT, *sp = &set;
        set.key = "restored";
        set.value = (char *)what;
        r.run_id = RUN_ID;
        r.effective = &sp;
        r.n_effective = 1;
        r.run_seq = rseq;
        e.body_case = BODY(RESTORED);
        e.restored = &r;
        return deliver(fx, i, &e, now);
}

static void test_plan_servers_first(void **state)
{
        fx_t fx;
        envelope_t *e;
        int64_t s;

        fx_plan(&fx, false);
        /* Only the server hears first; the clients wait for what it exports. */
        assert_int_equal(fx.out.agents.n, 1);
        e = item(&fx.out.agents, 0);
        assert_string_equal(fx.out.agents.items[0].peer, fx.agents[0].id);
        assert_string_equal(e->prepare->role, "server");
        assert_int_equal(e->prepare->n_jobs, 0);
        assert_int_equal(e->prepare->n_server, 2);
        wire_free(&e);
        fx_clear(&fx);

        assert_int_equal(send_server_prepared(&fx, 0, T0 + MSEC), 0);
        assert_int_equal(fx.run->phase, RUN_PREPARING);
        assert_int_equal(fx.out.agents.n, 2);
        for (size_t i = 0; i < 2; i++) {
                e = item(&fx.out.agents, i);
                assert_string_equal(fx.out.agents.items[i].peer, fx.agents[i + 1].id);
                assert_string_equal(e->prepare->role, "client");
                assert_string_equal(e->prepare->nfs_server, "10.200.0.1");
                assert_string_equal(e->prepare->nfs_export, "/srv/export");
                assert_int_equal(e->prepare->n_jobs, 1);
                assert_int_equal(e->prepare->n_mount, 1);
                wire_free(&e);
        }
        fx_clear(&fx);

        /* The start goes to the clients only; the server has nothing to start. */
        assert_int_equal(send_prepared(&fx, 1, T0 + 2 * MSEC), 0);
        assert_int_equal(send_prepared(&fx, 2, T0 + 2 * MSEC), 0);
        assert_int_equal(fx.run->phase, RUN_STARTING);
        assert_int_equal(count_to(&fx.out.agents, BODY(START), fx.agents[0].id), 0);
        assert_int_equal(count_to(&fx.out.agents, BODY(START), fx.agents[1].id), 1);
        s = fx.run->start_ns;
        assert_int_equal(send_started(&fx, 1, s, 5 * SEC, s + MSEC), 0);
        assert_int_equal(send_started(&fx, 2, s + USEC, 5 * SEC + USEC, s + MSEC), 0);
        assert_int_equal(fx.run->phase, RUN_RUNNING);
        fx_clear(&fx);

        /* Intervals are complete without the server. */
        assert_int_equal(send_interval(&fx, 1, 0, false, s + 600 * MSEC), 0);
        assert_int_equal(send_interval(&fx, 2, 0, false, s + 600 * MSEC), 0);
        assert_int_equal(count_updates(&fx.out.control, KIND(INTERVAL)), 1);
        fx_clear(&fx);

        /* Clients done and unmounted: only then is the server told to tear down (a server put
         * back under a mounted client hangs its unmount); the run waits for its Finished. */
        assert_int_equal(send_interval(&fx, 1, 1, true, s + 1100 * MSEC), 0);
        assert_int_equal(send_interval(&fx, 2, 1, true, s + 1100 * MSEC), 0);
        assert_int_equal(send_finished(&fx, 1, s + 1200 * MSEC), 0);
        assert_int_equal(send_finished(&fx, 2, s + 1200 * MSEC), 0);
        assert_int_equal(fx.run->phase, RUN_STOPPING);
        assert_int_equal(count_to(&fx.out.agents, BODY(STOP), fx.agents[0].id), 0);
        assert_int_equal(send_restored(&fx, 1, "yes", 0, s + 1300 * MSEC), 0);
        assert_int_equal(count_to(&fx.out.agents, BODY(STOP), fx.agents[0].id), 0);
        /* Nothing waits forever: the restore deadline is due. */
        assert_true(run_next_deadline(fx.run) <= s + 1200 * MSEC + 150 * SEC);
        assert_int_equal(send_restored(&fx, 2, "failed: umount: target is busy", 0, s + 1300 * MSEC),
                         0);
        assert_int_equal(count_to(&fx.out.agents, BODY(STOP), fx.agents[0].id), 1);
        assert_false(run_done(fx.run));
        assert_string_equal(kv_get(&fx.run->agents[2].effective, "restored"),
                            "failed: umount: target is busy");
        {
                envelope_t f = IOFLEET__ENVELOPE__INIT;
                Iofleet__Finished fin = IOFLEET__FINISHED__INIT;
                Iofleet__Setting set = IOFLEET__SETTING__INIT, *sp = &set;
                set.key = "restored";
                set.value = "yes";
                fin.run_id = RUN_ID;
                fin.effective = &sp;
                fin.n_effective = 1;
                f.body_case = BODY(FINISHED);
                f.finished = &fin;
                assert_int_equal(deliver(&fx, 0, &f, s + 1300 * MSEC), 0);
        }
        assert_true(run_done(fx.run));
        assert_int_equal(fx.run->code, IOFLEET__ERROR_CODE__ERROR_NONE);
        assert_string_equal(kv_get(&fx.run->agents[0].effective, "restored"), "yes");
        assert_string_equal(kv_get(&fx.run->agents[0].effective, "address"), "10.200.0.1");
        fx_done(&fx);
}

/* A client that never says Restored: the run's next deadline is its Restored due (150 s after
 * its Finished), a tick before it does nothing, at it the put-back is "unknown" and the server is
 * told to tear down. Ticks between (thousands a second at scale) look at no agent. */
static void test_plan_restore_due(void **state)
{
        fx_t fx;
        int64_t s, due;

        fx_plan(&fx, false);
        assert_int_equal(send_server_prepared(&fx, 0, T0 + MSEC), 0);
        assert_int_equal(send_prepared(&fx, 1, T0 + 2 * MSEC), 0);
        assert_int_equal(send_prepared(&fx, 2, T0 + 2 * MSEC), 0);
        s = fx.run->start_ns;
        assert_int_equal(send_started(&fx, 1, s, 5 * SEC, s + MSEC), 0);
        assert_int_equal(send_started(&fx, 2, s, 5 * SEC, s + MSEC), 0);
        for (size_t i = 1; i <= 2; i++) {
                assert_int_equal(send_interval(&fx, i, 0, false, s + 600 * MSEC), 0);
                assert_int_equal(send_interval(&fx, i, 1, true, s + 1100 * MSEC), 0);
        }
        assert_int_equal(send_finished(&fx, 1, s + 1200 * MSEC), 0);
        assert_int_equal(send_finished(&fx, 2, s + 1300 * MSEC), 0);
        assert_int_equal(send_restored(&fx, 1, "yes", 0, s + 1400 * MSEC), 0);
        due = s + 1300 * MSEC + 150 * SEC;
        /* (The 30 s check for stuck agents comes first; it finds none.) */
        assert_int_equal(run_next_deadline(fx.run), s + 1300 * MSEC + 30 * SEC);
        fx_clear(&fx);
        for (int64_t t = s + 2 * SEC; t < due; t += 10 * SEC)
                run_tick(fx.run, t, &fx.out);
        run_tick(fx.run, due - 1, &fx.out);
        assert_int_equal(count_to(&fx.out.agents, BODY(STOP), fx.agents[0].id), 0);
        assert_null(kv_get(&fx.run->agents[2].effective, "restored"));
        run_tick(fx.run, due, &fx.out);
        assert_non_null(strstr(kv_get(&fx.run->agents[2].effective, "restored"), "unknown"));
        assert_true(event_says(&fx.out.control, "gamma", "put back"));
        assert_int_equal(count_to(&fx.out.agents, BODY(STOP), fx.agents[0].id), 1);
        /* Nothing of gamma's is due any more: the server's Finished is what the run waits for. */
        assert_true(run_next_deadline(fx.run) > due);
        fx_done(&fx);
}

static void test_plan_cancel_waits_for_server(void **state)
{
        fx_t fx;
        fx_plan(&fx, false);
        assert_int_equal(send_server_prepared(&fx, 0, T0 + MSEC), 0);
        fx_clear(&fx);
        /* A client cannot prepare: the run stops, but the server must put things back first. */
        assert_int_equal(send_error(&fx, 1, IOFLEET__ERROR_CODE__ERROR_PREPARE, "no space",
                                    RUN_ID, T0 + 2 * MSEC),
                         0);
        /* gamma mounted: it is stopped, and the server waits until it has unmounted. */
        assert_int_equal(count_to(&fx.out.agents, BODY(STOP), fx.agents[2].id), 1);
        assert_int_equal(count_to(&fx.out.agents, BODY(STOP), fx.agents[0].id), 0);
        assert_int_equal(send_restored(&fx, 2, "yes", 0, T0 + 3 * MSEC), 0);
        assert_int_equal(count_to(&fx.out.agents, BODY(STOP), fx.agents[0].id), 1);
        assert_false(run_done(fx.run));
        assert_int_equal(send_finished(&fx, 0, T0 + 4 * MSEC), 0);
        assert_true(run_done(fx.run));
        assert_int_equal(fx.run->code, IOFLEET__ERROR_CODE__ERROR_PREPARE);
        fx_done(&fx);
}

static void test_plan_stonewall(void **state)
{
        fx_t fx;
        int64_t s;
        fx_plan(&fx, true);
        assert_int_equal(send_server_prepared(&fx, 0, T0 + MSEC), 0);
        assert_int_equal(send_prepared(&fx, 1, T0 + 2 * MSEC), 0);
        assert_int_equal(send_prepared(&fx, 2, T0 + 2 * MSEC), 0);
        s = fx.run->start_ns;
        assert_int_equal(send_started(&fx, 1, s, 5 * SEC, s + MSEC), 0);
        assert_int_equal(send_started(&fx, 2, s, 5 * SEC, s + MSEC), 0);
        fx_clear(&fx);
        /* Agent 1 is done first: agent 2 is stopped at once, the server is not (yet). */
        assert_int_equal(send_interval(&fx, 1, 0, true, s + 600 * MSEC), 0);
        assert_int_equal(count_to(&fx.out.agents, BODY(STOP), fx.agents[2].id), 1);
        assert_int_equal(count_to(&fx.out.agents, BODY(STOP), fx.agents[1].id), 0);
        assert_int_equal(count_to(&fx.out.agents, BODY(STOP), fx.agents[0].id), 0);
        assert_int_equal(fx.run->stonewall_ns, s + 600 * MSEC);
        assert_true(event_says(&fx.out.control, "stonewall", "beta"));
        fx_done(&fx);
}

/* --- soak: intervals stream to the spool and memory stays a window --------------------- */

static int count_rows(void *user, const run_iv_row_t *row)
{
        size_t *n = user;
        n[row->a ? 1 : 0]++;
        if (!row->a)
                n[2] += row->v.io.read_bytes;
        return 0;
}

/* Interval 5's rows in order: the cluster's (3 reported), then alpha, beta, and gamma late. */
static int late_row_at(void *user, const run_iv_row_t *row)
{
        int *seen = user;
        if (row->k != 5)
                return 0;
        if (!row->a) {
                assert_int_equal(row->reported, 3);
                assert_int_equal(row->v.io.read_bytes, fig_read(0, 5) + fig_read(1, 5) + fig_read(2, 5));
                assert_int_equal(*seen, 0);
        } else {
                assert_int_equal(row->a->rank, (uint32_t)(*seen - 1));
                assert_int_equal(row->v.io.read_bytes, fig_read((size_t)(*seen - 1), 5));
        }
        ++*seen;
        return 0;
}

static void test_spool_keeps_memory_flat(void **state)
{
        int late_seen = 0;
        fx_t fx;
        char path[64];
        size_t rows[3] = {0}, widest = 0, widest_iv = 0, total = 0;
        const size_t K = 1000;
        int64_t s;

        snprintf(path, sizeof(path), "/tmp/iofleet-test-spool-%d.csv", (int)getpid());
        fx_agents(&fx, 3, NULL);
        fx_start(&fx, &job_seqread, 1, 100 * NSEC_PER_MSEC, 2 * NSEC_PER_SEC);
        assert_int_equal(run_set_spool(fx.run, path), 0);
        s = fx_running(&fx);
        for (size_t k = 0; k < K; k++) {
                int64_t now = s + (int64_t)(k + 1) * 100 * MSEC + MSEC;
                for (size_t i = 0; i < 3; i++)
                        /* gamma's interval 5 is lost in a partition: it comes at the end. */
                        if (i != 2 || k != 5)
                                assert_int_equal(send_interval(&fx, i, k, false, now), 0);
                for (size_t i = 0; i < 3; i++)
                        total += fig_read(i, k);
                if (fx.run->n_civ - fx.run->civ_base > widest)
                        widest = fx.run->n_civ - fx.run->civ_base;
                if (fx.run->agents[0].n_iv > widest_iv)
                        widest_iv = fx.run->agents[0].n_iv;
                fx_clear(&fx);
        }
        assert_int_equal(fx.run->next_emit, K);
        /* A window of at least 2 s (20 intervals here) or 64 intervals, moved in batches. */
        assert_true(fx.run->civ_base > K - 3 * RUN_KEEP_INTERVALS);
        assert_true(widest <= 2 * RUN_KEEP_INTERVALS + 1);
        assert_true(widest_iv <= 4 * RUN_KEEP_INTERVALS);
        /* An interval that comes after it left memory (an agent back from a partition) is kept
         * aside, to be merged into the written series. */
        assert_int_equal(send_interval(&fx, 2, 5, false, s + (int64_t)K * 100 * MSEC), 0);
        assert_int_equal(fx.run->late_dropped, 0);
        assert_int_equal(fx.run->n_late, 1);

        /* Every interval is in the spool, cluster rows and agent rows, read back in order, the
         * late one in its place and in its cluster row. */
        assert_int_equal(run_spool_finish(fx.run), 0);
        assert_int_equal(run_intervals_each(fx.run, late_row_at, &late_seen), 0);
        assert_int_equal(late_seen, 4);
        assert_int_equal(run_intervals_each(fx.run, count_rows, rows), 0);
        assert_int_equal(rows[0], K);
        assert_int_equal(rows[1], 3 * K);
        assert_int_equal(rows[2], total);
        fx_done(&fx);
        unlink(path);
}


/* --- delivery: numbered messages, acknowledgements, agents away and back ---------------------- */

static int send_numbered_interval(fx_t *fx, size_t i, size_t k, uint64_t seq, bool last,
                                  int64_t now)
{
        envelope_t e = IOFLEET__ENVELOPE__INIT;
        Iofleet__Interval iv = IOFLEET__INTERVAL__INIT;
        Iofleet__DirStats rd = IOFLEET__DIR_STATS__INIT;
        rd.bytes = fig_read(i, k);
        rd.ios = rd.bytes / 4096;
        iv.run_id = RUN_ID;
        iv.run_seq = seq;
        iv.index = (uint32_t)k;
        iv.read = &rd;
        iv.last = last;
        e.body_case = BODY(INTERVAL);
        e.interval = &iv;
        return deliver(fx, i, &e, now);
}

/* The Acks in the box, as (agent, upto) pairs; returns how many. */
static size_t acks(const fx_t *fx, size_t agent, uint64_t *upto)
{
        size_t n = 0;
        for (size_t i = 0; i < fx->out.acks.n; i++) {
                envelope_t *e = item(&fx->out.acks, i);
                assert_int_equal(e->body_case, BODY(ACK));
                assert_string_equal(e->ack->run_id, RUN_ID);
                if (streq(fx->out.acks.items[i].peer, fx->agents[agent].id)) {
                        *upto = e->ack->upto;
                        n++;
                }
                wire_free(&e);
        }
        return n;
}

static void test_numbered_in_order(void **state)
{
        fx_t fx;
        int64_t s;
        uint64_t upto = 0;

        fx_agents(&fx, 2, NULL);
        fx_start(&fx, &job_timed10, 1, NSEC_PER_SEC, 2 * NSEC_PER_SEC);
        s = fx_running(&fx);
        /* Unnumbered Prepared/Started came first (0: never resent); now numbered 1, 2. */
        assert_int_equal(send_numbered_interval(&fx, 0, 0, 1, false, s + SEC + MSEC), 0);
        assert_int_equal(send_numbered_interval(&fx, 0, 1, 2, false, s + 2 * SEC + MSEC), 0);
        assert_int_equal(fx.run->agents[0].rseq, 2);
        /* No Ack yet: they come with the heartbeat answers, and only for what is on disk. */
        assert_int_equal(fx.out.acks.n, 0);
        assert_int_equal(run_heartbeat_ack(fx.run, fx.agents[0].id), 0);
        run_synced(fx.run);
        assert_int_equal(run_heartbeat_ack(fx.run, fx.agents[0].id), 2);
        /* Nothing new: no Ack. */
        assert_int_equal(run_heartbeat_ack(fx.run, fx.agents[0].id), 0);
        assert_int_equal(fx.out.acks.n, 0);
        /* A duplicate is left, and gets one Ack to resend from (not one per duplicate). */
        assert_int_equal(send_numbered_interval(&fx, 0, 1, 2, false, s + 2 * SEC + 4 * MSEC),
                         -EALREADY);
        assert_int_equal(send_numbered_interval(&fx, 0, 0, 1, false, s + 2 * SEC + 4 * MSEC),
                         -EALREADY);
        assert_int_equal(acks(&fx, 0, &upto), 1);
        assert_int_equal(upto, 2);
        assert_int_equal(run_civ(fx.run, 1)->reported, 2 - 1); /* counted once */
        outbox_clear(&fx.out.acks);
        /* A gap (3 was dropped): 4 is left until 3 comes. */
        assert_int_equal(send_numbered_interval(&fx, 0, 3, 4, false, s + 4 * SEC + MSEC),
                         -EALREADY);
        assert_false(run_agent_iv(&fx.run->agents[0], 3) &&
                     run_agent_iv(&fx.run->agents[0], 3)->received);
        /* It was told "2" already, and nothing was taken since: no second Ack. */
        assert_int_equal(fx.out.acks.n, 0);
        assert_int_equal(send_numbered_interval(&fx, 0, 2, 3, false, s + 4 * SEC + 2 * MSEC), 0);
        assert_int_equal(send_numbered_interval(&fx, 0, 3, 4, false, s + 4 * SEC + 3 * MSEC), 0);
        assert_int_equal(fx.run->agents[0].rseq, 4);
        /* Numbers are per agent. */
        assert_int_equal(send_numbered_interval(&fx, 1, 0, 1, false, s + SEC + MSEC), 0);
        fx_done(&fx);
}

/* Lost with an orphan grace: the run waits for it; it comes back, resends, finishes; the run is
 * whole, the agent "rejoined". */
static void test_lost_then_rejoined(void **state)
{
        fx_t fx;
        int64_t s;
        uint64_t upto = 0;
        bool taken;

        fx_agents(&fx, 2, NULL);
        fx_start(&fx, &job_seqread, 1, NSEC_PER_SEC, 2 * NSEC_PER_SEC);
        fx.run->orphan_grace_ns = 60 * NSEC_PER_SEC;
        s = fx_running(&fx);
        assert_int_equal(send_numbered_interval(&fx, 1, 0, 1, false, s + SEC + MSEC), 0);
        run_agent_lost(fx.run, fx.agents[1].id, s + 1500 * MSEC, &fx.out);
        assert_true(fx.run->agents[1].lost);
        assert_false(fx.run->agents[1].gone);
        assert_true(event_says(&fx.out.control, "beta", "may come back"));
        /* Its words while lost are not taken: it must say hello first. */
        assert_int_equal(send_numbered_interval(&fx, 1, 1, 2, false, s + 2 * SEC), -ESRCH);
        /* alpha finishes; the run waits for beta. */
        assert_int_equal(send_interval(&fx, 0, 0, false, s + SEC + MSEC), 0);
        assert_int_equal(send_interval(&fx, 0, 1, false, s + 2 * SEC + MSEC), 0);
        assert_int_equal(send_interval(&fx, 0, 2, true, s + 3 * SEC + MSEC), 0);
        assert_int_equal(send_finished(&fx, 0, s + 3 * SEC + 2 * MSEC), 0);
        assert_false(run_done(fx.run));
        assert_int_equal(run_next_deadline(fx.run), s + 1500 * MSEC + 60 * SEC);
        fx_clear(&fx);
        outbox_clear(&fx.out.acks);
        /* beta is back, holding the run: an Ack says it has 1. */
        run_agent_hello(fx.run, fx.agents[1].id, RUN_ID, "running", RUN_MADE_UNKNOWN, s + 20 * SEC, &fx.out);
        assert_false(fx.run->agents[1].lost);
        assert_true(fx.run->agents[1].rejoined);
        assert_true(event_says(&fx.out.control, "beta", "rejoined"));
        assert_int_equal(acks(&fx, 1, &upto), 1);
        assert_int_equal(upto, 1);
        /* It resends 1..2 (interval 1 and its last), then Finished, which is acknowledged. */
        assert_int_equal(send_numbered_interval(&fx, 1, 1, 2, false, s + 20 * SEC + MSEC), 0);
        assert_int_equal(send_numbered_interval(&fx, 1, 2, 3, true, s + 20 * SEC + MSEC), 0);
        outbox_clear(&fx.out.acks);
        {
                envelope_t e = IOFLEET__ENVELOPE__INIT, *m;
                Iofleet__Finished f = IOFLEET__FINISHED__INIT;
                f.run_id = RUN_ID;
                f.run_seq = 4;
                e.body_case = BODY(FINISHED);
                e.finished = &f;
                m = roundtrip(&e);
                assert_int_equal(run_on_message(fx.run, fx.agents[1].id, &m, s + 20 * SEC + 2 * MSEC,
                                                 &fx.out),
                                 0);
                taken = m == NULL;
                wire_free(&m);
        }
        assert_true(taken);
        assert_true(run_done(fx.run));
        assert_int_equal(acks(&fx, 1, &upto), 1);
        assert_int_equal(upto, 4);
        /* Every interval of both: whole. */
        for (size_t k = 0; k < 3; k++)
                for (size_t i = 0; i < 2; i++)
                        assert_true(run_agent_iv(&fx.run->agents[i], k)->received);
        assert_string_equal(run_agent_status(fx.run, &fx.run->agents[1]), "rejoined");
        assert_int_equal(fx.run->agents[1].away_ns, 18500 * MSEC);
        assert_int_equal(fx.run->code, IOFLEET__ERROR_CODE__ERROR_NONE);
        fx_done(&fx);
}

/* A power cut on beta's host mid-run: its agent comes back with a record of the run older than
 * what it had delivered (3 messages on its disk, 6 taken). Its Hello says so, the Ack tells it
 * to number on after 6: its Finished numbered by the old record (4) would be a duplicate and
 * lost, and the run would wait for it until the runtime's end and blame the wrong thing. Numbered
 * 7 it is taken, and the run ends as soon as alpha is done: beta failed, saying why, and the
 * intervals it never delivered are missing, not made up. */
static void test_rejoin_behind_after_power_cut(void **state)
{
        fx_t fx;
        int64_t s;
        uint64_t upto = 0;
        bool taken;

        fx_agents(&fx, 2, NULL);
        fx_start(&fx, &job_timed10, 1, NSEC_PER_SEC, 2 * NSEC_PER_SEC);
        fx.run->orphan_grace_ns = 300 * NSEC_PER_SEC;
        s = fx_running(&fx);
        for (size_t k = 0; k < 6; k++) {
                int64_t t = s + (int64_t)(k + 1) * SEC + MSEC;
                assert_int_equal(send_interval(&fx, 0, k, false, t), 0);
                assert_int_equal(send_numbered_interval(&fx, 1, k, k + 1, false, t), 0);
        }
        run_synced(fx.run);
        assert_int_equal(run_heartbeat_ack(fx.run, fx.agents[1].id), 6);
        run_agent_lost(fx.run, fx.agents[1].id, s + 6500 * MSEC, &fx.out);
        assert_int_equal(send_interval(&fx, 0, 6, false, s + 7 * SEC + MSEC), 0);
        fx_clear(&fx);
        outbox_clear(&fx.out.acks);

        run_agent_hello(fx.run, fx.agents[1].id, RUN_ID, "done", 3, s + 8 * SEC, &fx.out);
        assert_true(event_says(&fx.out.control, "beta", "older than what it had delivered"));
        assert_int_equal(acks(&fx, 1, &upto), 1);
        assert_int_equal(upto, 6);
        /* Numbered by the old record: one of the six already taken, left. */
        assert_int_equal(send_finished_seq(&fx, 1, 4, "numbered by the old record",
                                                s + 8 * SEC + MSEC, &taken),
                         -EALREADY);
        assert_false(taken);
        assert_false(fx.run->agents[1].done);
        /* Numbered after the Ack: taken. */
        assert_int_equal(send_finished_seq(&fx, 1, 7,
                                                "the host restarted during the run (its workers "
                                                "stopped; ...)",
                                                s + 8 * SEC + 2 * MSEC, &taken),
                         0);
        assert_true(taken);
        assert_true(fx.run->agents[1].done);
        assert_string_equal(run_agent_status(fx.run, &fx.run->agents[1]), "failed");
        assert_non_null(strstr(fx.run->agents[1].error, "host restarted"));
        /* The run ends with alpha, before its stop deadline. */
        assert_int_equal(send_interval(&fx, 0, 7, false, s + 8 * SEC + MSEC), 0);
        assert_int_equal(send_interval(&fx, 0, 8, false, s + 9 * SEC + MSEC), 0);
        assert_int_equal(send_interval(&fx, 0, 9, true, s + 10 * SEC + MSEC), 0);
        assert_false(run_done(fx.run));
        assert_int_equal(send_finished(&fx, 0, s + 10 * SEC + 2 * MSEC), 0);
        assert_true(run_done(fx.run));
        assert_true(s + 10 * SEC + 2 * MSEC < fx.run->stop_deadline_ns);
        /* What beta delivered is kept; what it never did is missing. */
        for (size_t k = 0; k < 10; k++) {
                const run_interval_t *iv = run_agent_iv(&fx.run->agents[1], k);
                assert_true(run_expects(fx.run, &fx.run->agents[1], k));
                assert_int_equal(iv && iv->received, k < 6);
                assert_int_equal(run_civ(fx.run, k)->reported, k < 6 ? 2 : 1);
        }
        fx_done(&fx);
}

/* Lost and never back: given up at the grace's end, the run ends without it. */
static void test_lost_beyond_grace(void **state)
{
        fx_t fx;
        int64_t s;

        fx_agents(&fx, 2, NULL);
        fx_start(&fx, &job_seqread, 1, NSEC_PER_SEC, 2 * NSEC_PER_SEC);
        fx.run->orphan_grace_ns = 30 * NSEC_PER_SEC;
        s = fx_running(&fx);
        run_agent_lost(fx.run, fx.agents[1].id, s + SEC, &fx.out);
        assert_int_equal(send_interval(&fx, 0, 0, true, s + SEC + MSEC), 0);
        assert_int_equal(send_finished(&fx, 0, s + SEC + 2 * MSEC), 0);
        run_tick(fx.run, s + 31 * SEC - 1, &fx.out);
        assert_false(run_done(fx.run));
        fx_clear(&fx);
        run_tick(fx.run, s + 31 * SEC, &fx.out);
        assert_true(run_done(fx.run));
        assert_true(fx.run->agents[1].gone);
        assert_true(event_says(&fx.out.control, "beta", "orphan grace"));
        assert_string_equal(run_agent_status(fx.run, &fx.run->agents[1]), "lost");
        fx_done(&fx);
}

/* Back after missing the start: too late to start with the others (failed and stopped); early
 * enough, the start instant goes again. */
static void test_rejoin_before_and_after_start(void **state)
{
        fx_t fx;
        int64_t s;

        fx_agents(&fx, 2, NULL);
        fx_start(&fx, &job_seqread, 1, NSEC_PER_SEC, 5 * NSEC_PER_SEC);
        fx.run->orphan_grace_ns = 60 * NSEC_PER_SEC;
        assert_int_equal(send_prepared(&fx, 0, T0 + MSEC), 0);
        assert_int_equal(send_prepared(&fx, 1, T0 + MSEC), 0);
        s = fx.run->start_ns;
        run_agent_lost(fx.run, fx.agents[1].id, T0 + 2 * MSEC, &fx.out);
        fx_clear(&fx);
        run_agent_hello(fx.run, fx.agents[1].id, RUN_ID, "prepared", RUN_MADE_UNKNOWN, s - 2 * SEC, &fx.out);
        assert_int_equal(count_to(&fx.out.agents, BODY(START), fx.agents[1].id), 1);
        assert_int_equal(fx.run->agents[1].error[0], 0);
        fx_clear(&fx);
        run_agent_lost(fx.run, fx.agents[1].id, s - SEC, &fx.out);
        run_agent_hello(fx.run, fx.agents[1].id, RUN_ID, "prepared", RUN_MADE_UNKNOWN, s + SEC, &fx.out);
        assert_int_equal(count_to(&fx.out.agents, BODY(START), fx.agents[1].id), 0);
        assert_int_equal(count_to(&fx.out.agents, BODY(STOP), fx.agents[1].id), 1);
        assert_non_null(strstr(fx.run->agents[1].error, "missed the start"));
        /* The run goes on with alpha. */
        assert_int_equal(fx.run->phase, RUN_STARTING);
        assert_int_equal(send_started(&fx, 0, s, 5 * SEC, s + MSEC), 0);
        assert_int_equal(fx.run->phase, RUN_RUNNING);
        fx_done(&fx);
}

/* An agent that never says Started is failed 10 s after the instant (and stopped); the others
 * run. */
static void test_start_deadline(void **state)
{
        fx_t fx;
        int64_t s;

        fx_agents(&fx, 2, NULL);
        fx_start(&fx, &job_seqread, 1, NSEC_PER_SEC, 2 * NSEC_PER_SEC);
        assert_int_equal(send_prepared(&fx, 0, T0 + MSEC), 0);
        assert_int_equal(send_prepared(&fx, 1, T0 + MSEC), 0);
        s = fx.run->start_ns;
        assert_int_equal(send_started(&fx, 0, s, 5 * SEC, s + MSEC), 0);
        assert_int_equal(run_next_deadline(fx.run), s + 10 * SEC);
        fx_clear(&fx);
        run_tick(fx.run, s + 10 * SEC, &fx.out);
        assert_non_null(strstr(fx.run->agents[1].error, "no Started"));
        assert_int_equal(count_to(&fx.out.agents, BODY(STOP), fx.agents[1].id), 1);
        assert_int_equal(fx.run->phase, RUN_RUNNING);
        assert_false(run_done(fx.run));
        fx_done(&fx);
}

/* --- the cluster-wide stonewall ------------------------------------------------------------- */

/* Two serial groups of 2 s each: group 1 is a stonewall job. */
static const job_def_t job_groups[2] = {
    {"g0", {"rw", "read", "bs", "4k", "size", "1m", "time_based", "1", "runtime", "2s", NULL}},
    {"g1",
     {"rw", "write", "bs", "4k", "size", "1m", "time_based", "1", "runtime", "2s", "stonewall",
      "1", NULL}},
};

static int send_group_ready(fx_t *fx, size_t i, uint32_t g, uint64_t rseq, int64_t now)
{
        envelope_t e = IOFLEET__ENVELOPE__INIT;
        Iofleet__GroupReady m = IOFLEET__GROUP_READY__INIT;
        m.run_id = RUN_ID;
        m.group = g;
        m.run_seq = rseq;
        e.body_case = BODY(GROUP_READY);
        e.group_ready = &m;
        return deliver(fx, i, &e, now);
}

static int send_group_started(fx_t *fx, size_t i, uint32_t g, int64_t at, int64_t mono,
                              uint64_t rseq, int64_t now)
{
        envelope_t e = IOFLEET__ENVELOPE__INIT;
        Iofleet__GroupStarted m = IOFLEET__GROUP_STARTED__INIT;
        m.run_id = RUN_ID;
        m.group = g;
        m.start_ns = at;
        m.host_mono_ns = mono;
        m.run_seq = rseq;
        e.body_case = BODY(GROUP_STARTED);
        e.group_started = &m;
        return deliver(fx, i, &e, now);
}

/* The StartGroup the outbox holds for agent i (NULL when none); the caller frees it. */
static envelope_t *start_group_to(const fx_t *fx, size_t i)
{
        for (size_t k = 0; k < fx->out.agents.n; k++) {
                envelope_t *e = item(&fx->out.agents, k);
                if (e->body_case == BODY(START_GROUP) &&
                    streq(fx->out.agents.items[k].peer, fx->agents[i].id))
                        return e;
                wire_free(&e);
        }
        return NULL;
}

/* Group 1 starts once every agent has ended group 0, at one instant for all, the run's margin
 * ahead; the interval count and the runtime's end grow by the wait; resent, duplicated and
 * out-of-order reports take effect once; each agent's start gives the group's skew. */
static void test_group_barrier_once_all_ready(void **state)
{
        fx_t fx;
        envelope_t *e;
        int64_t s, at;
        const char *boots[3] = {"b", "b", "b"};

        fx_agents(&fx, 3, boots);
        fx_start(&fx, job_groups, 2, NSEC_PER_SEC, 2 * NSEC_PER_SEC);
        assert_true(fx.run->group_barrier);
        assert_int_equal(fx.run->n_groups, 2);
        assert_int_equal(fx.run->max_intervals, 4);
        /* Every Prepare says so. */
        for (size_t k = 0; k < fx.out.agents.n; k++) {
                e = item(&fx.out.agents, k);
                assert_true(e->prepare->group_barrier);
                wire_free(&e);
        }
        s = fx_running(&fx);
        /* Alpha and beta are ready; gamma still runs group 0: nothing starts. */
        assert_int_equal(send_group_ready(&fx, 0, 1, 1, s + 2100 * MSEC), 0);
        assert_int_equal(send_group_ready(&fx, 1, 1, 1, s + 2200 * MSEC), 0);
        assert_int_equal(count_to(&fx.out.agents, BODY(START_GROUP), NULL), 0);
        /* Alpha's report again (a resend after a partition): a duplicate, left. */
        assert_int_equal(send_group_ready(&fx, 0, 1, 1, s + 2300 * MSEC), -EALREADY);
        /* A group it does not have, or one whose predecessor it was not given: left. */
        assert_int_equal(send_group_ready(&fx, 1, 5, 0, s + 2300 * MSEC), 0);
        assert_false(fx.run->agents[1].grp[1].given);
        assert_int_equal(count_to(&fx.out.agents, BODY(START_GROUP), NULL), 0);
        /* The runtime's end is not due while the group waits. */
        assert_true(run_groups_pending(fx.run));
        run_tick(fx.run, fx.run->stop_deadline_ns + SEC, &fx.out);
        assert_int_equal(count_to(&fx.out.agents, BODY(STOP), NULL), 0);
        assert_int_equal(fx.run->phase, RUN_RUNNING);
        fx_clear(&fx);
        /* Gamma ends group 0 late (at +9.5 s): one instant for all three, 500 ms ahead (a
         * quarter of the lead). */
        assert_int_equal(send_group_ready(&fx, 2, 1, 1, s + 9500 * MSEC), 0);
        at = s + 10 * SEC;
        for (size_t i = 0; i < 3; i++) {
                e = start_group_to(&fx, i);
                assert_non_null(e);
                assert_int_equal(e->start_group->group, 1);
                assert_int_equal(e->start_group->start_ns, at);
                /* 10 s to group 1, and its 2 s: 12 intervals, the end 5 s after. */
                assert_int_equal(e->start_group->max_intervals, 12);
                wire_free(&e);
        }
        assert_int_equal(count_to(&fx.out.agents, BODY(START_GROUP), NULL), 3);
        assert_int_equal(fx.run->max_intervals, 12);
        assert_int_equal(fx.run->stop_deadline_ns, s + 12 * SEC + 5 * SEC);
        assert_true(event_says(&fx.out.control, "ended group 0", "group 1 starts on 3 agents"));
        assert_false(run_groups_pending(fx.run));
        fx_clear(&fx);
        /* Gamma's report once more (unnumbered, as a replay could bring it): nothing again. */
        assert_int_equal(send_group_ready(&fx, 2, 1, 0, s + 9600 * MSEC), 0);
        assert_int_equal(fx.out.agents.n, 0);
        /* Intervals up to the new count are taken. */
        assert_int_equal(send_interval(&fx, 0, 9, false, s + 10 * SEC + 10 * MSEC), 0);
        assert_true(run_agent_iv(&fx.run->agents[0], 9)->received);
        /* Started 10, 40 and 25 us after the instant on the shared clock: 30 us of skew. */
        assert_int_equal(send_group_started(&fx, 0, 1, at + 10 * USEC, 100 * SEC + 10 * USEC, 2,
                                            at + MSEC),
                         0);
        assert_int_equal(send_group_started(&fx, 1, 1, at + 40 * USEC, 100 * SEC + 40 * USEC, 2,
                                            at + MSEC),
                         0);
        /* Out of order (a gap: its report 3 before 2): left, and an Ack says where from. */
        assert_int_equal(send_group_started(&fx, 2, 1, at, 100 * SEC + 25 * USEC, 3, at + MSEC),
                         -EALREADY);
        assert_false(fx.run->agents[2].grp[1].started);
        assert_int_equal(send_group_started(&fx, 2, 1, at + 25 * USEC, 100 * SEC + 25 * USEC, 2,
                                            at + MSEC),
                         0);
        assert_true(fx.run->groups[1].skew_shared_clock);
        assert_int_equal(fx.run->groups[1].skew_ns, 30 * USEC);
        /* Said again unnumbered with another instant: the first one stands. */
        assert_int_equal(send_group_started(&fx, 2, 1, at + SEC, 100 * SEC + SEC, 0, at + MSEC), 0);
        assert_int_equal(fx.run->groups[1].skew_ns, 30 * USEC);
        assert_int_equal(fx.run->agents[2].grp[1].start_ns, at + 25 * USEC);
        fx_done(&fx);
}

/* The barrier waits only for agents still in the run: one that failed, finished its part or was
 * given up does not hold the others. */
static void test_group_barrier_skips_failed_and_gone(void **state)
{
        fx_t fx;
        int64_t s;

        fx_agents(&fx, 4, NULL);
        fx_start(&fx, job_groups, 2, NSEC_PER_SEC, 2 * NSEC_PER_SEC);
        s = fx_running(&fx);
        assert_int_equal(send_group_ready(&fx, 0, 1, 1, s + 2 * SEC), 0);
        /* Beta fails in group 0 (its I/O): the others go on, it is not waited for. */
        assert_int_equal(send_error(&fx, 1, IOFLEET__ERROR_CODE__ERROR_IO, "read: EIO", RUN_ID,
                                    s + 2 * SEC),
                         0);
        /* Gamma ends its part (exitall_on_error ended its later groups): Finished. */
        assert_int_equal(send_finished(&fx, 2, s + 2 * SEC), 0);
        assert_int_equal(count_to(&fx.out.agents, BODY(START_GROUP), NULL), 0);
        /* Delta is lost without an orphan grace: given up at once, and the group starts. */
        run_agent_lost(fx.run, fx.agents[3].id, s + 2500 * MSEC, &fx.out);
        assert_int_equal(count_to(&fx.out.agents, BODY(START_GROUP), NULL), 1);
        assert_int_equal(count_to(&fx.out.agents, BODY(START_GROUP), fx.agents[0].id), 1);
        assert_int_equal(fx.run->groups[1].agents, 1);
        fx_done(&fx);
}

/* The rule for group g's counts, written out apart from run-groups.c: it waits for every client
 * with such a group that was given the start and neither failed, finished nor was given up. */
static void check_group_counts(const coord_run_t *run, uint32_t g)
{
        uint32_t awaited = 0, ready = 0;
        for (size_t i = 0; i < run->n_agents; i++) {
                const run_agent_t *a = &run->agents[i];
                if (a->server || a->n_groups <= g || !a->start_sent || a->error[0] || a->gone ||
                    a->done)
                        continue;
                awaited++;
                ready += a->grp[g].ready;
        }
        assert_int_equal(run->groups[g].n_awaited, awaited);
        assert_int_equal(run->groups[g].n_ready, ready);
}

/* Thousands of agents: each GroupReady updates the group's counts (no scan of the agents), which
 * follow failures, early ends, losses, give-ups and returns; the group starts exactly when the
 * last agent it waits for is ready or given up, once, on every agent ready. */
static void test_group_barrier_many_agents(void **state)
{
        enum { N = 3000 };
        coord_agent_t *agents = calloc(N, sizeof(*agents));
        coord_agent_t **ap = calloc(N, sizeof(*ap));
        envelope_t *submit = make_submit(job_groups, 2, NSEC_PER_SEC, 2 * NSEC_PER_SEC);
        fx_t fx;
        char err[512] = "";
        int64_t s, lost_at = 0;
        size_t ready = 0, back = 0;

        assert_non_null(agents);
        assert_non_null(ap);
        memset(&fx, 0, sizeof(fx));
        for (size_t i = 0; i < N; i++) {
                snprintf(agents[i].id, sizeof(agents[i].id), "0b5e%04zx-6f1c-4a6e-9d0e-3c1f2a4b5c6d",
                         i);
                snprintf(agents[i].name, sizeof(agents[i].name), "a%zu", i);
                agents[i].state = AGENT_BUSY;
                ap[i] = &agents[i];
        }
        assert_int_equal(run_new(RUN_ID, CONTROL, &submit, ap, NULL, N, T0, &fx.out, &fx.run, err,
                                 sizeof(err)),
                         0);
        fx.run->seq = &fx.control_seq;
        fx.run->orphan_grace_ns = 60 * NSEC_PER_SEC;
        for (size_t i = 0; i < N; i++)
                assert_int_equal(send_prepared_id(&fx, agents[i].id, i, RUN_ID, T0 + 10 * MSEC), 0);
        s = fx.run->start_ns;
        for (size_t i = 0; i < N; i++)
                assert_int_equal(send_started_id(&fx, agents[i].id, s, 5 * SEC, s + MSEC), 0);
        assert_int_equal(fx.run->phase, RUN_RUNNING);
        check_group_counts(fx.run, 1);
        assert_int_equal(fx.run->groups[1].n_awaited, N);
        fx_clear(&fx);

        /* Group 0 ends across the fleet; a few agents fail, end their part early, or are lost
         * (within the orphan grace: still waited for). */
        for (size_t i = 0; i < N; i++) {
                int64_t now = s + 2 * SEC + (int64_t)i * 10 * USEC;
                envelope_t e = IOFLEET__ENVELOPE__INIT;
                Iofleet__GroupReady m = IOFLEET__GROUP_READY__INIT;
                Iofleet__Error er = IOFLEET__ERROR__INIT;
                Iofleet__Finished f = IOFLEET__FINISHED__INIT;
                switch (i % 500) {
                case 1:
                        er.code = IOFLEET__ERROR_CODE__ERROR_IO;
                        er.message = "read: EIO";
                        er.run_id = RUN_ID;
                        e.body_case = BODY(ERROR);
                        e.error = &er;
                        break;
                case 2:
                        f.run_id = RUN_ID;
                        e.body_case = BODY(FINISHED);
                        e.finished = &f;
                        break;
                case 3:
                        run_agent_lost(fx.run, agents[i].id, now, &fx.out);
                        lost_at = now;
                        break;
                default:
                        m.run_id = RUN_ID;
                        m.group = 1;
                        e.body_case = BODY(GROUP_READY);
                        e.group_ready = &m;
                        ready++;
                }
                if (e.body_case)
                        assert_int_equal(deliver_id(&fx, agents[i].id, &e, now), 0);
                check_group_counts(fx.run, 1);
                assert_false(fx.run->groups[1].released);
                fx_clear(&fx);
        }
        assert_int_equal(fx.run->groups[1].n_ready, ready);
        assert_int_equal(fx.run->groups[1].n_awaited, ready + N / 500);
        /* Half of the lost come back and end group 0; the group still waits for the rest. */
        for (size_t i = 3; i < N; i += 1000) {
                envelope_t e = IOFLEET__ENVELOPE__INIT;
                Iofleet__GroupReady m = IOFLEET__GROUP_READY__INIT;
                run_agent_hello(fx.run, agents[i].id, RUN_ID, "running", RUN_MADE_UNKNOWN,
                                s + 10 * SEC, &fx.out);
                m.run_id = RUN_ID;
                m.group = 1;
                e.body_case = BODY(GROUP_READY);
                e.group_ready = &m;
                assert_int_equal(deliver_id(&fx, agents[i].id, &e, s + 10 * SEC), 0);
                check_group_counts(fx.run, 1);
                back++;
        }
        assert_false(fx.run->groups[1].released);
        assert_int_equal(count_to(&fx.out.agents, BODY(START_GROUP), NULL), 0);
        fx_clear(&fx);
        /* The others are given up at the grace's end: every agent left is ready, and the group
         * starts on all of them at one instant. */
        run_tick(fx.run, lost_at + 60 * SEC, &fx.out);
        check_group_counts(fx.run, 1);
        assert_true(fx.run->groups[1].released);
        assert_int_equal(fx.run->groups[1].agents, ready + back);
        assert_int_equal(count_to(&fx.out.agents, BODY(START_GROUP), NULL), ready + back);
        assert_true(event_says(&fx.out.control, "ended group 0", "group 1 starts"));
        fx_done(&fx);
        free(agents);
        free(ap);
}

/* Nothing waits forever: at the group's deadline (the run's prepare timeout after the first
 * report) it starts without the agents not ready, named; each starts it alone when ready, late.
 * A StartGroup not answered within 10 s of its instant fails the agent. */
static void test_group_barrier_deadline(void **state)
{
        fx_t fx;
        envelope_t *e;
        int64_t s, first, deadline;

        fx_agents(&fx, 3, NULL);
        fx_start(&fx, job_groups, 2, NSEC_PER_SEC, 2 * NSEC_PER_SEC);
        s = fx_running(&fx);
        first = s + 2 * SEC;
        assert_int_equal(send_group_ready(&fx, 0, 1, 1, first), 0);
        assert_int_equal(send_group_ready(&fx, 1, 1, 1, first + SEC), 0);
        deadline = first + (int64_t)fx.run->prepare_timeout_ns;
        assert_int_equal(run_next_deadline(fx.run) <= deadline, true);
        run_tick(fx.run, deadline - 1, &fx.out);
        assert_int_equal(count_to(&fx.out.agents, BODY(START_GROUP), NULL), 0);
        fx_clear(&fx);
        run_tick(fx.run, deadline, &fx.out);
        assert_int_equal(count_to(&fx.out.agents, BODY(START_GROUP), NULL), 2);
        assert_int_equal(count_to(&fx.out.agents, BODY(START_GROUP), fx.agents[2].id), 0);
        assert_true(event_says(&fx.out.control, "without 1 not ready", "gamma"));
        fx_clear(&fx);
        /* Gamma ready later: its own instant, marked late. */
        assert_int_equal(send_group_ready(&fx, 2, 1, 1, deadline + 3 * SEC), 0);
        e = start_group_to(&fx, 2);
        assert_non_null(e);
        assert_int_equal(e->start_group->start_ns, deadline + 3 * SEC + 500 * MSEC);
        wire_free(&e);
        assert_true(fx.run->agents[2].grp[1].late);
        assert_int_equal(fx.run->groups[1].late, 1);
        assert_true(event_says(&fx.out.control, "gamma", "alone"));
        fx_clear(&fx);
        /* Alpha and beta start; gamma never says it started: failed 10 s after its instant. */
        assert_int_equal(send_group_started(&fx, 0, 1, deadline + 500 * MSEC, 1, 2,
                                            deadline + SEC),
                         0);
        assert_int_equal(send_group_started(&fx, 1, 1, deadline + 500 * MSEC, 1, 2,
                                            deadline + SEC),
                         0);
        /* Its late start moved the run's end too: 2 s of group 1 from its instant. */
        assert_int_equal(fx.run->stop_deadline_ns,
                         fx.run->start_ns +
                             (int64_t)(fx.run->max_intervals * fx.run->interval_ns) + 5 * SEC);
        assert_true(fx.run->stop_deadline_ns >= deadline + 3500 * MSEC + 2 * SEC + 5 * SEC);
        run_tick(fx.run, deadline + 3500 * MSEC + 10 * SEC - 1, &fx.out);
        assert_false(fx.run->agents[2].error[0]);
        assert_int_equal(run_next_deadline(fx.run) <= deadline + 13500 * MSEC, true);
        fx_clear(&fx);
        run_tick(fx.run, deadline + 13500 * MSEC, &fx.out);
        assert_int_equal(count_to(&fx.out.agents, BODY(STOP), fx.agents[2].id), 1);
        assert_string_equal(run_agent_status(fx.run, &fx.run->agents[2]), "failed");
        assert_non_null(strstr(fx.run->agents[2].error, "did not start group 1"));
        fx_done(&fx);
}

/* An agent away when its group's instant went out hears it again when it rejoins: the same
 * instant while it is ahead, a fresh one of its own once it has passed. */
static void test_group_barrier_rejoin(void **state)
{
        fx_t fx;
        envelope_t *e;
        int64_t s, at;

        fx_agents(&fx, 2, NULL);
        fx_start(&fx, job_groups, 2, NSEC_PER_SEC, 2 * NSEC_PER_SEC);
        fx.run->orphan_grace_ns = 60 * NSEC_PER_SEC;
        s = fx_running(&fx);
        assert_int_equal(send_group_ready(&fx, 0, 1, 1, s + 2 * SEC), 0);
        assert_int_equal(send_group_ready(&fx, 1, 1, 1, s + 2 * SEC), 0);
        at = s + 2500 * MSEC;
        run_agent_lost(fx.run, fx.agents[1].id, s + 2100 * MSEC, &fx.out);
        fx_clear(&fx);
        /* Back before the instant: the same one. */
        run_agent_hello(fx.run, fx.agents[1].id, RUN_ID, "running", RUN_MADE_UNKNOWN, s + 2200 * MSEC, &fx.out);
        e = start_group_to(&fx, 1);
        assert_non_null(e);
        assert_int_equal(e->start_group->start_ns, at);
        wire_free(&e);
        fx_clear(&fx);
        /* Lost again, back after it: a fresh instant. */
        run_agent_lost(fx.run, fx.agents[1].id, s + 2300 * MSEC, &fx.out);
        run_agent_hello(fx.run, fx.agents[1].id, RUN_ID, "running", RUN_MADE_UNKNOWN, s + 4 * SEC, &fx.out);
        e = start_group_to(&fx, 1);
        assert_non_null(e);
        assert_int_equal(e->start_group->start_ns, s + 4500 * MSEC);
        wire_free(&e);
        fx_clear(&fx);
        /* Once it said it started, a rejoin sends nothing. */
        assert_int_equal(send_group_started(&fx, 1, 1, s + 4500 * MSEC, 1, 2, s + 5 * SEC), 0);
        run_agent_lost(fx.run, fx.agents[1].id, s + 5 * SEC, &fx.out);
        run_agent_hello(fx.run, fx.agents[1].id, RUN_ID, "running", RUN_MADE_UNKNOWN, s + 6 * SEC, &fx.out);
        assert_null(start_group_to(&fx, 1));
        fx_done(&fx);
}

/* One serial group: no barrier, as before. */
static void test_group_barrier_off_with_one_group(void **state)
{
        fx_t fx;
        envelope_t *e;
        int64_t s;

        fx_agents(&fx, 2, NULL);
        fx_start(&fx, &job_timed10, 1, NSEC_PER_SEC, 2 * NSEC_PER_SEC);
        assert_false(fx.run->group_barrier);
        e = item(&fx.out.agents, 0);
        assert_false(e->prepare->group_barrier);
        wire_free(&e);
        s = fx_running(&fx);
        assert_int_equal(send_group_ready(&fx, 0, 1, 1, s + SEC), 0);
        assert_int_equal(fx.out.agents.n, 0);
        fx_done(&fx);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_prepare_to_every_agent),
            cmocka_unit_test(test_prepare_defaults),
            cmocka_unit_test(test_no_control_peer),
            cmocka_unit_test(test_watcher_once),
            cmocka_unit_test(test_bad_job_refused),
            cmocka_unit_test(test_start_after_every_prepared),
            cmocka_unit_test(test_layout_progress_updates),
            cmocka_unit_test(test_layout_quick_shows_nothing),
            cmocka_unit_test(test_started_skew_shared_clock),
            cmocka_unit_test(test_started_skew_timeline),
            cmocka_unit_test(test_interval_sums_in_order),
            cmocka_unit_test(test_interval_late_agent),
            cmocka_unit_test(test_late_interval_deadline_short_interval),
        cmocka_unit_test(test_collecting),
            cmocka_unit_test(test_last_interval_not_awaited),
            cmocka_unit_test(test_finished_from_all),
            cmocka_unit_test(test_error_while_preparing_cancels),
            cmocka_unit_test(test_error_while_running_is_an_event),
            cmocka_unit_test(test_agent_lost_while_running),
            cmocka_unit_test(test_agent_lost_while_preparing),
            cmocka_unit_test(test_agent_lost_while_starting),
            cmocka_unit_test(test_max_intervals),
            cmocka_unit_test(test_ramp_intervals_marked),
            cmocka_unit_test(test_stop_deadline),
            cmocka_unit_test(test_stop_deadline_finished_in_time),
            cmocka_unit_test(test_cancel_while_running),
            cmocka_unit_test(test_cancel_while_preparing),
            cmocka_unit_test(test_foreign_messages_ignored),
            cmocka_unit_test(test_spool_keeps_memory_flat),
            cmocka_unit_test(test_plan_servers_first),
            cmocka_unit_test(test_plan_cancel_waits_for_server),
            cmocka_unit_test(test_plan_stonewall),
            cmocka_unit_test(test_numbered_in_order),
            cmocka_unit_test(test_lost_then_rejoined),
            cmocka_unit_test(test_lost_beyond_grace),
            cmocka_unit_test(test_rejoin_behind_after_power_cut),
            cmocka_unit_test(test_plan_restore_due),
            cmocka_unit_test(test_rejoin_before_and_after_start),
            cmocka_unit_test(test_start_deadline),
                    cmocka_unit_test(test_group_barrier_once_all_ready),
            cmocka_unit_test(test_group_barrier_skips_failed_and_gone),
            cmocka_unit_test(test_group_barrier_many_agents),
            cmocka_unit_test(test_group_barrier_deadline),
            cmocka_unit_test(test_group_barrier_rejoin),
            cmocka_unit_test(test_group_barrier_off_with_one_group),
};

        log_setup("test-run", LOG_ERR); /* the run logs every event; keep the output readable */
        return cmocka_run_group_tests(tests, NULL, NULL);
}
