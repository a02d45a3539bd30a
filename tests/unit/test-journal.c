/* Unit tests for coordinator/journal.c: a run journalled as it goes and replayed by a "restarted
 * coordinator" into the same state; torn ends, finished runs, re-adoption. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "journal.h"
#include "run.h"
#include "util.h"
#include "wire.h"

#define SEC ((int64_t)NSEC_PER_SEC)
#define MSEC ((int64_t)NSEC_PER_MSEC)
#define T0 ((int64_t)1700000000 * SEC)
#define RUN_ID "run-journal-1"
#define BODY(x) IOFLEET__ENVELOPE__BODY_##x
#define N 3

typedef struct fx {
        char dir[128];
        coord_agent_t agents[N];
        coord_agent_t *ap[N];
        run_out_t out;
        coord_run_t *run;
        journal_t *j;
} fx_t;

static void keep(void *user, coord_run_t *run, const run_rec_t *rec)
{
        fx_t *fx = user;
        assert_int_equal(journal_append(fx->j, rec), 0);
}

static envelope_t *roundtrip(envelope_t *e)
{
        uint8_t *buf;
        size_t len;
        envelope_t *d = NULL;
        char err[256];
        assert_int_equal(wire_encode(e, &buf, &len), 0);
        if (wire_decode(buf, len, WIRE_MAX_CONTROL_MSG, &d, err, sizeof(err)) < 0)
                fail_msg("%s", err);
        free(buf);
        return d;
}

static envelope_t *make_submit(void)
{
        Iofleet__Job job = IOFLEET__JOB__INIT, *jp = &job;
        Iofleet__JobOption o[4], *op[4];
        const char *kv[4][2] = {{"rw", "read"}, {"size", "1m"}, {"time_based", "1"},
                                {"runtime", "10s"}};
        Iofleet__SubmitRun s = IOFLEET__SUBMIT_RUN__INIT;
        Iofleet__Duration g = IOFLEET__DURATION__INIT;
        envelope_t e = IOFLEET__ENVELOPE__INIT;
        for (int i = 0; i < 4; i++) {
                iofleet__job_option__init(&o[i]);
                o[i].key = (char *)kv[i][0];
                o[i].value = (char *)kv[i][1];
                op[i] = &o[i];
        }
        job.name = "j";
        job.options = op;
        job.n_options = 4;
        s.jobs = &jp;
        s.n_jobs = 1;
        s.interval_ns = NSEC_PER_SEC;
        s.lead_ns = 2 * NSEC_PER_SEC;
        g.ns = 60 * NSEC_PER_SEC;
        s.orphan_grace = &g;
        s.command_line = "iofleet run --name=j";
        e.body_case = BODY(SUBMIT_RUN);
        e.submit_run = &s;
        return roundtrip(&e);
}

static void fx_init(fx_t *fx)
{
        envelope_t *submit = make_submit();
        char err[256];
        memset(fx, 0, sizeof(*fx));
        snprintf(fx->dir, sizeof(fx->dir), "/tmp/iofleet-test-journal-%d", (int)getpid());
        assert_int_equal(mkdir_p(fx->dir, 0755), 0);
        for (size_t i = 0; i < N; i++) {
                coord_agent_t *a = &fx->agents[i];
                snprintf(a->id, sizeof(a->id), "7a5e%04zx-1111-4222-8333-444455556666", i);
                snprintf(a->name, sizeof(a->name), "agent%zu", i);
                snprintf(a->hostname, sizeof(a->hostname), "host%zu", i);
                snprintf(a->boot_id, sizeof(a->boot_id), "boot-%zu", i);
                fx->ap[i] = a;
        }
        assert_int_equal(journal_create(fx->dir, RUN_ID, T0, submit, fx->ap, NULL, N, &fx->j), 0);
        if (run_new(RUN_ID, "cli", &submit, fx->ap, NULL, N, T0, &fx->out, &fx->run, err,
                    sizeof(err)) < 0)
                fail_msg("run_new: %s", err);
        fx->run->keep = keep;
        fx->run->keep_user = fx;
}

static void fx_clear(fx_t *fx)
{
        outbox_clear(&fx->out.agents);
        outbox_clear(&fx->out.control);
        outbox_clear(&fx->out.acks);
}

static void fx_done(fx_t *fx)
{
        char cmd[256];
        run_free(&fx->run);
        journal_close(&fx->j);
        outbox_done(&fx->out.agents);
        outbox_done(&fx->out.control);
        outbox_done(&fx->out.acks);
        snprintf(cmd, sizeof(cmd), "rm -rf %s", fx->dir);
        assert_int_equal(system(cmd), 0);
}

static int deliver(fx_t *fx, coord_run_t *run, size_t i, envelope_t *e, int64_t now)
{
        envelope_t *m = roundtrip(e);
        int r = run_on_message(run, fx->agents[i].id, &m, now, &fx->out);
        wire_free(&m);
        return r;
}

static int prepared(fx_t *fx, size_t i, uint64_t seq, int64_t now)
{
        envelope_t e = IOFLEET__ENVELOPE__INIT;
        Iofleet__Prepared p = IOFLEET__PREPARED__INIT;
        p.run_id = RUN_ID;
        p.run_seq = seq;
        e.body_case = BODY(PREPARED);
        e.prepared = &p;
        return deliver(fx, fx->run, i, &e, now);
}

static int started(fx_t *fx, size_t i, uint64_t seq, int64_t now)
{
        envelope_t e = IOFLEET__ENVELOPE__INIT;
        Iofleet__Started s = IOFLEET__STARTED__INIT;
        s.run_id = RUN_ID;
        s.run_seq = seq;
        s.start_ns = fx->run->start_ns + (int64_t)i * 1000;
        s.host_mono_ns = 5 * SEC;
        e.body_case = BODY(STARTED);
        e.started = &s;
        return deliver(fx, fx->run, i, &e, now);
}

static int interval_to(fx_t *fx, coord_run_t *run, size_t i, size_t k, uint64_t seq, int64_t now)
{
        envelope_t e = IOFLEET__ENVELOPE__INIT;
        Iofleet__Interval iv = IOFLEET__INTERVAL__INIT;
        Iofleet__DirStats rd = IOFLEET__DIR_STATS__INIT;
        Iofleet__Hist h = IOFLEET__HIST__INIT;
        uint32_t idx[1] = {200};
        uint64_t cnt[1] = {10};
        h.index = idx;
        h.n_index = 1;
        h.count = cnt;
        h.n_count = 1;
        h.n = 10;
        rd.bytes = 1000 * (i + 1) + k;
        rd.ios = 10;
        rd.clat = &h;
        iv.run_id = RUN_ID;
        iv.run_seq = seq;
        iv.index = (uint32_t)k;
        iv.read = &rd;
        e.body_case = BODY(INTERVAL);
        e.interval = &iv;
        return deliver(fx, run, i, &e, now);
}

/* Prepared and Started from all, then intervals 0..3 from all but agent 2 (which sends 0..1 and
 * then is lost). */
static int64_t drive(fx_t *fx)
{
        int64_t s;
        for (size_t i = 0; i < N; i++)
                assert_int_equal(prepared(fx, i, 1, T0 + 10 * MSEC), 0);
        s = fx->run->start_ns;
        for (size_t i = 0; i < N; i++)
                assert_int_equal(started(fx, i, 2, s + MSEC), 0);
        for (size_t k = 0; k < 4; k++)
                for (size_t i = 0; i < N; i++)
                        if (i < 2 || k < 2)
                                assert_int_equal(
                                    interval_to(fx, fx->run, i, k, 3 + k, s + (int64_t)(k + 1) * SEC),
                                    0);
        run_agent_lost(fx->run, fx->agents[2].id, s + 3500 * MSEC, &fx->out);
        fx_clear(fx);
        return s;
}

/* The replayed run is the run: phase, start instant, what each agent sent and in which order. */
static void test_replay_same_state(void **state)
{
        fx_t fx;
        coord_run_t *r2 = NULL;
        journal_t *j2 = NULL;
        char err[256] = "", spool[256];
        int64_t s;

        fx_init(&fx);
        s = drive(&fx);
        /* A duplicate is not journalled: the replay would take it again otherwise. */
        assert_int_equal(interval_to(&fx, fx.run, 0, 3, 6, s + 5 * SEC), -EALREADY);
        assert_int_equal(journal_sync(fx.j), 0);
        snprintf(spool, sizeof(spool), "%s/intervals.csv", fx.dir);

        assert_int_equal(journal_replay(fx.dir, spool, &r2, &j2, err, sizeof(err)), 0);
        assert_false(r2->replaying);
        assert_string_equal(r2->id, RUN_ID);
        assert_int_equal(r2->phase, fx.run->phase);
        assert_int_equal(r2->phase, RUN_RUNNING);
        assert_int_equal(r2->start_ns, s);
        assert_int_equal(r2->orphan_grace_ns, 60 * NSEC_PER_SEC);
        assert_int_equal(r2->n_agents, N);
        for (size_t i = 0; i < N; i++) {
                const run_agent_t *a = &fx.run->agents[i], *b = &r2->agents[i];
                assert_string_equal(a->id, b->id);
                assert_string_equal(a->name, b->name);
                assert_int_equal(a->rseq, b->rseq);
                assert_int_equal(a->lost, b->lost);
                assert_int_equal(a->started, b->started);
                for (size_t k = 0; k < 4; k++) {
                        const run_interval_t *x = run_agent_iv(a, k), *y = run_agent_iv(b, k);
                        assert_int_equal(x && x->received, y && y->received);
                        if (x && x->received)
                                assert_int_equal(x->io.read_bytes, y->io.read_bytes);
                }
        }
        for (size_t k = 0; k < 4; k++)
                assert_int_equal(run_civ(fx.run, k)->io.read_bytes, run_civ(r2, k)->io.read_bytes);
        /* Nothing kept on the replay's own account. */
        assert_null(r2->keep);
        journal_close(&j2);
        run_free(&r2);
        fx_done(&fx);
}

/* A restarted coordinator takes the run up: every agent is away from now, with its grace; one
 * that comes back hears where to resend from, and what it resends is taken, once. */
static void test_readopt_and_rejoin(void **state)
{
        fx_t fx;
        coord_run_t *r2 = NULL;
        journal_t *j2 = NULL;
        char err[256] = "";
        int64_t s, restart;
        envelope_t *ack = NULL;

        fx_init(&fx);
        s = drive(&fx);
        assert_int_equal(journal_sync(fx.j), 0);
        restart = s + 8 * SEC;
        assert_int_equal(journal_replay(fx.dir, NULL, &r2, &j2, err, sizeof(err)), 0);
        fx_clear(&fx);
        run_readopt(r2, restart, &fx.out);
        for (size_t i = 0; i < N; i++) {
                assert_true(r2->agents[i].lost);
                assert_false(r2->agents[i].gone);
                assert_int_equal(r2->agents[i].lost_at, restart);
        }
        assert_false(run_done(r2));
        assert_true(run_next_deadline(r2) <= restart + 60 * SEC);
        /* agent 0 comes back holding the run: an Ack says it has everything up to 6. */
        run_agent_hello(r2, fx.agents[0].id, RUN_ID, "running", RUN_MADE_UNKNOWN, restart + SEC, &fx.out);
        assert_false(r2->agents[0].lost);
        assert_true(r2->agents[0].rejoined);
        assert_int_equal(fx.out.acks.n, 1);
        {
                char e2[256];
                assert_int_equal(wire_decode(fx.out.acks.items[0].buf, fx.out.acks.items[0].len,
                                             WIRE_MAX_AGENT_MSG, &ack, e2, sizeof(e2)),
                                 0);
        }
        assert_int_equal(ack->ack->upto, 6);
        assert_string_equal(fx.out.acks.items[0].peer, fx.agents[0].id);
        wire_free(&ack);
        fx_clear(&fx);
        /* What it made meanwhile (interval 4 onwards) is taken; a resend of 3 is not. */
        assert_int_equal(interval_to(&fx, r2, 0, 3, 6, restart + SEC), -EALREADY);
        assert_int_equal(interval_to(&fx, r2, 0, 4, 7, restart + SEC), 0);
        /* An agent restarted without the run's state lost its part: it failed. */
        run_agent_hello(r2, fx.agents[1].id, "", "", RUN_MADE_UNKNOWN, restart + 2 * SEC, &fx.out);
        assert_non_null(strstr(r2->agents[1].error, "restarted"));
        assert_string_equal(run_agent_status(r2, &r2->agents[1]), "failed");
        /* agent 2 never comes back: given up at the grace's end. */
        run_tick(r2, restart + 60 * SEC, &fx.out);
        assert_true(r2->agents[2].gone);
        assert_string_equal(run_agent_status(r2, &r2->agents[2]), "lost");
        journal_close(&j2);
        run_free(&r2);
        fx_done(&fx);
}

/* A crash mid-write leaves half a record: the replay stops before it and cuts it off, so that
 * what is appended next follows the last whole record. */
static void test_torn_end(void **state)
{
        fx_t fx;
        coord_run_t *r2 = NULL;
        journal_t *j2 = NULL;
        char err[256] = "", path[256];
        struct stat st1, st2;
        FILE *f;
        int64_t s;

        fx_init(&fx);
        s = drive(&fx);
        assert_int_equal(journal_sync(fx.j), 0);
        snprintf(path, sizeof(path), "%s/" JOURNAL_NAME, fx.dir);
        assert_int_equal(stat(path, &st1), 0);
        /* The next record, torn: a header that promises more than there is. */
        assert_int_equal(interval_to(&fx, fx.run, 0, 4, 7, s + 5 * SEC), 0);
        assert_int_equal(journal_sync(fx.j), 0);
        assert_non_null(f = fopen(path, "r+"));
        assert_int_equal(stat(path, &st2), 0);
        assert_int_equal(ftruncate(fileno(f), st2.st_size - 3), 0);
        fclose(f);

        assert_int_equal(journal_replay(fx.dir, NULL, &r2, &j2, err, sizeof(err)), 0);
        assert_int_equal(r2->agents[0].rseq, 6); /* interval 4 (7) was torn */
        assert_int_equal(stat(path, &st2), 0);
        assert_int_equal(st2.st_size, st1.st_size);
        /* Appends go on after it and replay again. */
        r2->keep = NULL;
        {
                run_rec_t rec = {.type = RUN_REC_LOST, .rank = 1, .now = s + 6 * SEC};
                assert_int_equal(journal_append(j2, &rec), 0);
                assert_int_equal(journal_sync(j2), 0);
        }
        journal_close(&j2);
        run_free(&r2);
        assert_int_equal(journal_replay(fx.dir, NULL, &r2, &j2, err, sizeof(err)), 0);
        assert_true(r2->agents[1].lost);
        journal_close(&j2);
        run_free(&r2);
        fx_done(&fx);
}

/* A finished run's journal is gone (-ENOENT); one whose end record is there says so. */
static void test_finished(void **state)
{
        fx_t fx;
        coord_run_t *r2 = NULL;
        journal_t *j2 = NULL;
        char err[256] = "";

        fx_init(&fx);
        drive(&fx);
        assert_int_equal(journal_finish(&fx.j, 0, ""), 0);
        assert_null(fx.j);
        assert_int_equal(journal_replay(fx.dir, NULL, &r2, &j2, err, sizeof(err)), -ENOENT);
        assert_null(r2);
        fx_done(&fx);
}

/* Intervals are journalled without their histograms: a few dozen bytes each. */
static void test_intervals_compact(void **state)
{
        fx_t fx;
        uint64_t before;
        int64_t s;

        fx_init(&fx);
        s = drive(&fx);
        before = journal_bytes(fx.j);
        for (size_t k = 4; k < 10; k++)
                assert_int_equal(interval_to(&fx, fx.run, 0, k, 3 + k, s + (int64_t)(k + 1) * SEC),
                                 0);
        assert_true(journal_bytes(fx.j) - before < 6 * 80);
        fx_done(&fx);
}

/* Not a journal: refused with a message, nothing run. */
static void test_garbage(void **state)
{
        char dir[128], path[256], err[256] = "";
        coord_run_t *r = NULL;
        journal_t *j = NULL;
        FILE *f;
        snprintf(dir, sizeof(dir), "/tmp/iofleet-test-journal-g-%d", (int)getpid());
        assert_int_equal(mkdir_p(dir, 0755), 0);
        snprintf(path, sizeof(path), "%s/" JOURNAL_NAME, dir);
        assert_non_null(f = fopen(path, "w"));
        fputs("this is not a journal, but long enough to hold a header or two", f);
        fclose(f);
        assert_true(journal_replay(dir, NULL, &r, &j, err, sizeof(err)) < 0);
        assert_null(r);
        assert_true(err[0] != 0);
        unlink(path);
        rmdir(dir);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_replay_same_state),
            cmocka_unit_test(test_readopt_and_rejoin),
            cmocka_unit_test(test_torn_end),
            cmocka_unit_test(test_finished),
            cmocka_unit_test(test_intervals_compact),
            cmocka_unit_test(test_garbage),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
