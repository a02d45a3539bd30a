/* Unit tests for agent/agent-run.c: an agent's part of a run driven by fake coordinator messages,
 * fake runner and host-work events and a fake clock; no sockets, threads or workers. */
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
#include <sys/stat.h>
#include <unistd.h>

#include "agent-run.h"
#include "run-queue.h"
#include "util.h"
#include "wire.h"

#define SEC ((int64_t)NSEC_PER_SEC)
#define MSEC ((int64_t)NSEC_PER_MSEC)
#define T0 (1000 * SEC) /* the agent's monotonic clock at the Prepare */
#define RUN_ID "run-0042"
#define BODY(x) IOFLEET__ENVELOPE__BODY_##x

typedef struct fx {
        char dir[128];
        arun_t *ar;
        arun_out_t out;
        arun_cfg_t cfg;
        uint64_t rb, wb; /* the fake workers' totals */
        uint64_t ld, lt; /* the fake layout: bytes done of total */
        unsigned packs;
        unsigned log_left;   /* log chunks the fake shipper still has */
        unsigned log_final;  /* ... of which it packed asked for a final drain */
        char log_cut[256];   /* why the last final drain said the logs end early */
} fx_t;

/* --- a fake daemon: it packs messages with plain figures ---------------------------------- */

static uint64_t iv_bytes(size_t k)
{
        return 1000 * (k + 1);
}

static int fake_pack(void *user, arun_pack_t *p, uint8_t **buf, size_t *len)
{
        fx_t *fx = user;
        envelope_t e = IOFLEET__ENVELOPE__INIT;
        Iofleet__Prepared pr = IOFLEET__PREPARED__INIT;
        Iofleet__Started st = IOFLEET__STARTED__INIT;
        Iofleet__Interval iv = IOFLEET__INTERVAL__INIT;
        Iofleet__DirStats rd = IOFLEET__DIR_STATS__INIT;
        Iofleet__Finished fi = IOFLEET__FINISHED__INIT;
        Iofleet__Restored re = IOFLEET__RESTORED__INIT;
        Iofleet__LayoutProgress lp = IOFLEET__LAYOUT_PROGRESS__INIT;
        Iofleet__GroupReady gr = IOFLEET__GROUP_READY__INIT;
        Iofleet__GroupStarted gs = IOFLEET__GROUP_STARTED__INIT;
        Iofleet__LogChunk lc = IOFLEET__LOG_CHUNK__INIT;
        fx->packs++;
        switch (p->what) {
        case ARUN_MSG_LOG:
                if (!fx->log_left)
                        return 0; /* nothing waits */
                fx->log_left--;
                fx->log_final += p->final;
                snprintf(fx->log_cut, sizeof(fx->log_cut), "%s", p->cut ? p->cut : "");
                lc.run_id = (char *)p->run_id;
                lc.run_seq = p->run_seq;
                lc.data.data = (uint8_t *)"0, 1, 0, 4096, 0\n";
                lc.data.len = 17;
                lc.eof = p->final && !fx->log_left;
                e.body_case = BODY(LOG_CHUNK);
                e.log_chunk = &lc;
                break;
        case ARUN_MSG_PREPARED:
                pr.run_id = (char *)p->run_id;
                pr.run_seq = p->run_seq;
                e.body_case = BODY(PREPARED);
                e.prepared = &pr;
                break;
        case ARUN_MSG_STARTED:
                st.run_id = (char *)p->run_id;
                st.run_seq = p->run_seq;
                e.body_case = BODY(STARTED);
                e.started = &st;
                break;
        case ARUN_MSG_INTERVAL:
                rd.bytes = iv_bytes(p->interval);
                fx->rb += rd.bytes;
                p->read_bytes = fx->rb;
                p->write_bytes = fx->wb;
                iv.run_id = (char *)p->run_id;
                iv.run_seq = p->run_seq;
                iv.index = (uint32_t)p->interval;
                iv.last = p->last;
                iv.read = &rd;
                e.body_case = BODY(INTERVAL);
                e.interval = &iv;
                break;
        case ARUN_MSG_FINISHED:
                fi.run_id = (char *)p->run_id;
                fi.run_seq = p->run_seq;
                fi.error = (char *)p->error;
                fi.intervals = p->intervals;
                e.body_case = BODY(FINISHED);
                e.finished = &fi;
                break;
        case ARUN_MSG_RESTORED:
                re.run_id = (char *)p->run_id;
                re.run_seq = p->run_seq;
                re.error = (char *)p->error;
                e.body_case = BODY(RESTORED);
                e.restored = &re;
                break;
        case ARUN_MSG_LAYOUT:
                p->layout_done = lp.done_bytes = fx->ld;
                p->layout_total = lp.total_bytes = fx->lt;
                lp.run_id = (char *)p->run_id;
                e.body_case = BODY(LAYOUT_PROGRESS);
                e.layout_progress = &lp;
                break;
        case ARUN_MSG_GROUP_READY:
                gr.run_id = (char *)p->run_id;
                gr.run_seq = p->run_seq;
                gr.group = p->group;
                e.body_case = BODY(GROUP_READY);
                e.group_ready = &gr;
                break;
        case ARUN_MSG_GROUP_STARTED:
                gs.run_id = (char *)p->run_id;
                gs.run_seq = p->run_seq;
                gs.group = p->group;
                gs.start_ns = 1;
                gs.host_mono_ns = 1;
                e.body_case = BODY(GROUP_STARTED);
                e.group_started = &gs;
                break;
        }
        return wire_encode(&e, buf, len);
}

/* --- fixture -------------------------------------------------------------------------------- */

static void fx_init(fx_t *fx, size_t mem_bytes)
{
        memset(fx, 0, sizeof(*fx));
        snprintf(fx->dir, sizeof(fx->dir), "/tmp/iofleet-test-arun-%d/runs/" RUN_ID, (int)getpid());
        fx->cfg.dir = fx->dir;
        fx->cfg.pack = fake_pack;
        fx->cfg.user = fx;
        fx->cfg.mem_bytes = mem_bytes;
        fx->cfg.resend_ns = 5 * SEC;
}

static void fx_done(fx_t *fx)
{
        char cmd[256];
        arun_free(&fx->ar);
        outbox_done(&fx->out.coord);
        snprintf(cmd, sizeof(cmd), "rm -rf /tmp/iofleet-test-arun-%d", (int)getpid());
        assert_int_equal(system(cmd), 0);
}

/* Empties the outbox and the todo bits. */
static void fx_clear(fx_t *fx)
{
        outbox_clear(&fx->out.coord);
        fx->out.todo = 0;
}

typedef struct prep_def {
        const char *role;      /* "" or "server" */
        bool mount;            /* a mount setting (the host changes) */
        const char *runtime;   /* a timed job's runtime, or NULL: size-bound */
        uint64_t grace_ns;
        uint64_t interval_ns;
        bool logs;             /* the job writes fio's iops log */
        uint32_t rank, nagents; /* the agent's place in the run (default: rank 0 of 2) */
} prep_def_t;

/* A Prepare as the coordinator sends it, through the wire. */
static envelope_t *make_prepare(const prep_def_t *d)
{
        envelope_t e = IOFLEET__ENVELOPE__INIT, *r = NULL;
        Iofleet__Prepare p = IOFLEET__PREPARE__INIT;
        Iofleet__Job job = IOFLEET__JOB__INIT, *jp = &job;
        Iofleet__JobOption o[5], *op[5];
        Iofleet__Setting m = IOFLEET__SETTING__INIT, *mp = &m;
        const char *kv[5][2] = {{"rw", "read"}, {"size", "1m"}, {"time_based", "1"},
                                {"runtime", d->runtime}, {"write_iops_log", ""}};
        uint8_t *buf;
        size_t len, n = d->runtime ? 4 : 2;
        char err[256];
        if (d->logs) {
                kv[n][0] = kv[4][0];
                kv[n][1] = kv[4][1];
                n++;
        }
        for (size_t i = 0; i < n; i++) {
                iofleet__job_option__init(&o[i]);
                o[i].key = (char *)kv[i][0];
                o[i].value = (char *)kv[i][1];
                op[i] = &o[i];
        }
        job.name = "j";
        job.options = op;
        job.n_options = n;
        p.run_id = RUN_ID;
        p.nagents = d->nagents ? d->nagents : 2;
        p.rank = d->rank;
        p.interval_ns = d->interval_ns ? d->interval_ns : (uint64_t)SEC;
        p.role = (char *)d->role;
        p.orphan_grace_ns = d->grace_ns;
        if (!streq(d->role, "server")) {
                p.jobs = &jp;
                p.n_jobs = 1;
        }
        if (d->mount) {
                m.key = "vers";
                m.value = "4.2";
                p.mount = &mp;
                p.n_mount = 1;
        }
        e.body_case = BODY(PREPARE);
        e.prepare = &p;
        assert_int_equal(wire_encode(&e, &buf, &len), 0);
        if (wire_decode(buf, len, WIRE_MAX_AGENT_MSG, &r, err, sizeof(err)) < 0)
                fail_msg("prepare: %s", err);
        free(buf);
        return r;
}

static void fx_new(fx_t *fx, const prep_def_t *d, int64_t now)
{
        envelope_t *p = make_prepare(d);
        assert_int_equal(arun_new(p->prepare, &fx->cfg, now, &fx->out, &fx->ar), 0);
        wire_free(&p);
}

/* Message i of the outbox, decoded; the caller frees. */
static envelope_t *sent(const fx_t *fx, size_t i)
{
        envelope_t *e = NULL;
        char err[256];
        assert_true(i < fx->out.coord.n);
        if (wire_decode(fx->out.coord.items[i].buf, fx->out.coord.items[i].len, WIRE_MAX_AGENT_MSG,
                        &e, err, sizeof(err)) < 0)
                fail_msg("outbox item %zu: %s", i, err);
        return e;
}

/* The outbox holds these bodies with these run numbers, in order. */
static void expect_sent(const fx_t *fx, size_t n, const Iofleet__Envelope__BodyCase *bodies,
                        uint64_t first_seq)
{
        if (fx->out.coord.n != n)
                fail_msg("%zu messages sent, %zu expected", fx->out.coord.n, n);
        for (size_t i = 0; i < n; i++) {
                envelope_t *e = sent(fx, i);
                if (e->body_case != bodies[i])
                        fail_msg("message %zu is %s", i, wire_body_name(e));
                assert_int_equal(wire_run_seq(e), first_seq + i);
                assert_string_equal(wire_run_id(e), RUN_ID);
                wire_free(&e);
        }
}

/* A client through host work, layout, clock and start: RUNNING at start T0 + 2s. */
static int64_t fx_running(fx_t *fx, const prep_def_t *d)
{
        int64_t start = T0 + 2 * SEC;
        fx_new(fx, d, T0);
        arun_host_prepared(fx->ar, 0, "", T0 + 10 * MSEC, &fx->out);
        arun_runner_prepared(fx->ar, T0 + 20 * MSEC, &fx->out);
        arun_clock_ready(fx->ar, true, T0 + 30 * MSEC, &fx->out);
        arun_on_start(fx->ar, start, NULL, T0 + 40 * MSEC, &fx->out);
        arun_runner_running(fx->ar, start, &fx->out);
        assert_int_equal(arun_phase(fx->ar), ARUN_RUNNING);
        /* The coordinator has Prepared and Started. */
        arun_on_ack(fx->ar, 2, start, &fx->out);
        fx_clear(fx);
        return start;
}

/* --- the whole part, in order ---------------------------------------------------------------- */

static void test_client_in_order(void **state)
{
        static const Iofleet__Envelope__BodyCase prepared[] = {BODY(PREPARED)},
                                                  started[] = {BODY(STARTED)},
                                                  ends[] = {BODY(INTERVAL), BODY(INTERVAL),
                                                            BODY(FINISHED)},
                                                  restored[] = {BODY(RESTORED)};
        prep_def_t d = {.role = "", .mount = true, .grace_ns = 60 * SEC};
        int64_t start = T0 + 2 * SEC;
        fx_t fx;
        envelope_t *e;

        fx_init(&fx, RQUEUE_MEM_BYTES);
        fx_new(&fx, &d, T0);
        /* The host first (the mount), off the loop: nothing else yet. */
        assert_int_equal(fx.out.todo, ARUN_DO_HOST);
        assert_int_equal(fx.out.coord.n, 0);
        assert_int_equal(arun_phase(fx.ar), ARUN_HOST);
        assert_string_equal(arun_phase_name(fx.ar), "preparing");
        fx_clear(&fx);
        arun_host_prepared(fx.ar, 0, "", T0 + 10 * MSEC, &fx.out);
        assert_int_equal(fx.out.todo, ARUN_DO_RUNNER);
        assert_int_equal(arun_phase(fx.ar), ARUN_LAYOUT);
        fx_clear(&fx);
        /* Laid out: a fresh clock burst before Prepared. */
        arun_runner_prepared(fx.ar, T0 + 20 * MSEC, &fx.out);
        assert_int_equal(fx.out.todo, ARUN_DO_BURST);
        assert_int_equal(fx.out.coord.n, 0);
        fx_clear(&fx);
        arun_clock_ready(fx.ar, true, T0 + 30 * MSEC, &fx.out);
        expect_sent(&fx, 1, prepared, 1);
        assert_string_equal(arun_phase_name(fx.ar), "prepared");
        fx_clear(&fx);
        /* Start: the instant goes to the runner; Started when it runs. */
        arun_on_start(fx.ar, start, NULL, T0 + 40 * MSEC, &fx.out);
        assert_int_equal(fx.out.todo, ARUN_DO_START);
        assert_int_equal(fx.out.start_mono, start);
        fx_clear(&fx);
        /* The same Start again (a resend after a partition) changes nothing. */
        arun_on_start(fx.ar, start, NULL, T0 + 50 * MSEC, &fx.out);
        assert_int_equal(fx.out.todo, 0);
        arun_runner_running(fx.ar, start, &fx.out);
        expect_sent(&fx, 1, started, 2);
        fx_clear(&fx);
        /* Intervals at their boundaries, not before. */
        assert_int_equal(arun_next_deadline(fx.ar), start + SEC);
        arun_tick(fx.ar, start + SEC - 1, &fx.out);
        assert_int_equal(fx.out.coord.n, 0);
        arun_tick(fx.ar, start + SEC, &fx.out);
        assert_int_equal(fx.out.coord.n, 1);
        fx_clear(&fx);
        /* Done at 2.5 s: interval 1 and the final one, then Finished, then the host back:
         * Finished goes before the put-back, which happens off the loop. */
        arun_runner_done(fx.ar, start + 2500 * MSEC, start + 2600 * MSEC, &fx.out);
        expect_sent(&fx, 3, ends, 4);
        e = sent(&fx, 1);
        assert_int_equal(e->interval->index, 2);
        assert_true(e->interval->last);
        wire_free(&e);
        e = sent(&fx, 2);
        assert_int_equal(e->finished->intervals, 3);
        assert_string_equal(e->finished->error, "");
        wire_free(&e);
        assert_int_equal(fx.out.todo, ARUN_DO_FREE_RUNNER | ARUN_DO_TEARDOWN);
        assert_int_equal(arun_phase(fx.ar), ARUN_TEARDOWN);
        assert_string_equal(arun_phase_name(fx.ar), "restoring");
        fx_clear(&fx);
        /* The host back: Restored last. */
        arun_host_done(fx.ar, 0, start + 3 * SEC, &fx.out);
        expect_sent(&fx, 1, restored, 7);
        assert_int_equal(arun_phase(fx.ar), ARUN_DONE);
        assert_false(arun_over(fx.ar));
        assert_int_equal(arun_pending(fx.ar), 7);
        fx_clear(&fx);
        /* Acknowledged in two steps: over only when the last one is. */
        arun_on_ack(fx.ar, 4, start + 3 * SEC, &fx.out);
        assert_int_equal(arun_pending(fx.ar), 3);
        assert_false(arun_over(fx.ar));
        arun_on_ack(fx.ar, 7, start + 3 * SEC, &fx.out);
        assert_true(arun_over(fx.ar));
        assert_int_equal(fx.out.coord.n, 0);
        fx_done(&fx);
}

/* The fleet's Finished come spread by rank (wire_finish_hold_ns()): the last Interval goes at
 * once, Finished and what follows it (Restored) wait for the hold, a session lost and back in
 * between resends up to the hold and not past it, and a tick at the hold's end sends them. */
static void test_finish_held_by_rank(void **state)
{
        static const Iofleet__Envelope__BodyCase last[] = {BODY(INTERVAL)},
                                                  ends[] = {BODY(FINISHED), BODY(RESTORED)};
        prep_def_t d = {.role = "", .mount = true, .grace_ns = 60 * SEC, .runtime = "2s",
                        .rank = 9499, .nagents = 9500};
        int64_t hold = wire_finish_hold_ns(9499, 9500), start, end;
        fx_t fx;
        envelope_t *e;
        (void)state;

        /* At most one every 200 us, all within 2 s; rank 0 at once; out of range: at once. */
        assert_int_equal(wire_finish_hold_ns(0, 9500), 0);
        assert_int_equal(wire_finish_hold_ns(1, 3), WIRE_FINISH_STEP_NS);
        assert_int_equal(hold, 9499 * WIRE_FINISH_STEP_NS);
        assert_true(wire_finish_hold_ns(99999, 100000) < WIRE_FINISH_SPREAD_MAX_NS);
        assert_int_equal(wire_finish_hold_ns(5, 5), 0);

        fx_init(&fx, RQUEUE_MEM_BYTES);
        start = fx_running(&fx, &d);
        arun_tick(fx.ar, start + SEC, &fx.out);
        assert_int_equal(fx.out.coord.n, 1);
        fx_clear(&fx);
        end = start + 2 * SEC + 5 * MSEC;
        arun_runner_done(fx.ar, start + 2 * SEC, end, &fx.out);
        expect_sent(&fx, 1, last, 4);
        e = sent(&fx, 0);
        assert_true(e->interval->last);
        wire_free(&e);
        fx_clear(&fx);
        /* The host is put back meanwhile: Restored waits behind Finished. */
        arun_host_done(fx.ar, 0, end + MSEC, &fx.out);
        assert_int_equal(fx.out.coord.n, 0);
        assert_int_equal(arun_pending(fx.ar), 4);
        assert_int_equal(arun_next_deadline(fx.ar), end + hold);
        arun_tick(fx.ar, end + hold - 1, &fx.out);
        assert_int_equal(fx.out.coord.n, 0);
        /* A partition and back within the hold: the resend stops where the hold starts. */
        arun_session(fx.ar, false, end + 10 * MSEC, &fx.out);
        arun_session(fx.ar, true, end + 20 * MSEC, &fx.out);
        arun_on_ack(fx.ar, 3, end + 30 * MSEC, &fx.out);
        expect_sent(&fx, 1, last, 4);
        fx_clear(&fx);
        arun_on_ack(fx.ar, 4, end + 40 * MSEC, &fx.out);
        assert_int_equal(fx.out.coord.n, 0);
        assert_false(arun_over(fx.ar));
        /* The hold is over: both go, in order. */
        arun_tick(fx.ar, end + hold, &fx.out);
        expect_sent(&fx, 2, ends, 5);
        fx_clear(&fx);
        assert_true(arun_next_deadline(fx.ar) > end + hold);
        arun_on_ack(fx.ar, 6, end + hold + MSEC, &fx.out);
        assert_true(arun_over(fx.ar));
        fx_done(&fx);
}

/* The outbox holds one LayoutProgress saying done of total. */
static void expect_layout(fx_t *fx, uint64_t done, uint64_t total)
{
        envelope_t *e;
        if (fx->out.coord.n != 1)
                fail_msg("%zu messages sent, one LayoutProgress expected", fx->out.coord.n);
        e = sent(fx, 0);
        assert_int_equal(e->body_case, BODY(LAYOUT_PROGRESS));
        assert_string_equal(e->layout_progress->run_id, RUN_ID);
        assert_int_equal(e->layout_progress->done_bytes, done);
        assert_int_equal(e->layout_progress->total_bytes, total);
        wire_free(&e);
        fx_clear(fx);
}

/* Layout progress: at once when the runner is there, then at most once a second and only when it
 * changed, none without a session, the last one at once when the layout is done; never a
 * numbered run message (nothing to acknowledge or resend). */
static void test_layout_progress(void **state)
{
        prep_def_t d = {.role = "", .grace_ns = 60 * SEC};
        int64_t t = T0 + 10 * MSEC;
        fx_t fx;

        fx_init(&fx, RQUEUE_MEM_BYTES);
        fx_new(&fx, &d, T0);
        assert_int_equal(arun_next_deadline(fx.ar), INT64_MAX);
        fx_clear(&fx);
        arun_host_prepared(fx.ar, 0, "", t, &fx.out);
        fx_clear(&fx);
        /* The first report is due at once (the runner is built right after). */
        assert_int_equal(arun_next_deadline(fx.ar), t);
        fx.lt = 3000;
        fx.ld = 0;
        arun_tick(fx.ar, t, &fx.out);
        expect_layout(&fx, 0, 3000);
        assert_int_equal(arun_next_deadline(fx.ar), t + SEC);
        /* Not before the second is over, however much changed. */
        fx.ld = 500;
        arun_tick(fx.ar, t + SEC - 1, &fx.out);
        assert_int_equal(fx.out.coord.n, 0);
        arun_tick(fx.ar, t + SEC, &fx.out);
        expect_layout(&fx, 500, 3000);
        /* Unchanged (a slow file, an fsync): nothing. */
        arun_tick(fx.ar, t + 2 * SEC, &fx.out);
        assert_int_equal(fx.out.coord.n, 0);
        assert_int_equal(arun_next_deadline(fx.ar), t + 3 * SEC);
        /* Without a session nothing goes, and nothing is kept for later. */
        arun_session(fx.ar, false, t + 2500 * MSEC, &fx.out);
        fx_clear(&fx);
        fx.ld = 1500;
        arun_tick(fx.ar, t + 3 * SEC, &fx.out);
        assert_int_equal(fx.out.coord.n, 0);
        /* Back (before the Ack that says where to resend from): progress goes anyway. */
        arun_session(fx.ar, true, t + 3500 * MSEC, &fx.out);
        fx.ld = 2000;
        arun_tick(fx.ar, t + 4 * SEC, &fx.out);
        expect_layout(&fx, 2000, 3000);
        arun_on_ack(fx.ar, 0, t + 4100 * MSEC, &fx.out);
        assert_int_equal(fx.out.coord.n, 0);
        /* Done: the last report at once, then the clock burst; no more layout deadlines. */
        fx.ld = 3000;
        arun_runner_prepared(fx.ar, t + 4200 * MSEC, &fx.out);
        assert_int_equal(fx.out.todo, ARUN_DO_BURST);
        expect_layout(&fx, 3000, 3000);
        assert_int_equal(arun_next_deadline(fx.ar), INT64_MAX);
        arun_tick(fx.ar, t + 6 * SEC, &fx.out);
        assert_int_equal(fx.out.coord.n, 0);
        /* None of them was a run message. */
        assert_int_equal(arun_made(fx.ar), 0);
        arun_clock_ready(fx.ar, true, t + 6 * SEC, &fx.out);
        assert_int_equal(arun_made(fx.ar), 1);
        fx_done(&fx);
}

/* Nothing to lay out (a null engine), or all of it there already and unchanged: one report at
 * most, none at the end. */
static void test_layout_nothing(void **state)
{
        prep_def_t d = {.role = "", .grace_ns = 60 * SEC};
        fx_t fx;

        fx_init(&fx, RQUEUE_MEM_BYTES);
        fx_new(&fx, &d, T0);
        arun_host_prepared(fx.ar, 0, "", T0, &fx.out);
        fx_clear(&fx);
        arun_tick(fx.ar, T0, &fx.out);
        assert_int_equal(fx.out.coord.n, 0);
        fx.ld = fx.lt = 4096;
        arun_tick(fx.ar, T0 + SEC, &fx.out);
        expect_layout(&fx, 4096, 4096);
        arun_runner_prepared(fx.ar, T0 + SEC + 1, &fx.out);
        assert_int_equal(fx.out.coord.n, 0);
        assert_int_equal(fx.out.todo, ARUN_DO_BURST);
        fx_done(&fx);
}

/* A timed run's last interval waits for the workers: exactly ceil(runtime / interval) of them. */
static void test_timed_run_interval_count(void **state)
{
        prep_def_t d = {.role = "", .runtime = "3s", .grace_ns = 60 * SEC};
        fx_t fx;
        int64_t s;
        size_t n = 0;

        fx_init(&fx, RQUEUE_MEM_BYTES);
        s = fx_running(&fx, &d);
        for (int64_t t = s; t <= s + 3 * SEC + 500 * MSEC; t += 100 * MSEC)
                arun_tick(fx.ar, t, &fx.out);
        /* Intervals 0 and 1 by the clock; the third waits for the end. */
        assert_int_equal(fx.out.coord.n, 2);
        arun_on_ack(fx.ar, 4, s + 3500 * MSEC, &fx.out);
        assert_int_equal(arun_next_deadline(fx.ar), INT64_MAX);
        fx_clear(&fx);
        arun_runner_done(fx.ar, s + 3 * SEC + 2 * MSEC, s + 3 * SEC + 600 * MSEC, &fx.out);
        for (size_t i = 0; i < fx.out.coord.n; i++) {
                envelope_t *e = sent(&fx, i);
                if (e->body_case == BODY(INTERVAL)) {
                        assert_int_equal(e->interval->index, 2);
                        assert_true(e->interval->last);
                        n++;
                }
                wire_free(&e);
        }
        assert_int_equal(n, 1);
        /* No mount, no sysctls: nothing to report after the put-back. */
        fx_clear(&fx);
        arun_host_done(fx.ar, 0, s + 4 * SEC, &fx.out);
        assert_int_equal(fx.out.coord.n, 0);
        assert_int_equal(arun_phase(fx.ar), ARUN_DONE);
        fx_done(&fx);
}

static void test_server_in_order(void **state)
{
        static const Iofleet__Envelope__BodyCase prepared[] = {BODY(PREPARED)},
                                                  finished[] = {BODY(FINISHED)};
        prep_def_t d = {.role = "server", .grace_ns = 60 * SEC};
        fx_t fx;

        fx_init(&fx, RQUEUE_MEM_BYTES);
        fx_new(&fx, &d, T0);
        assert_true(arun_is_server(fx.ar));
        assert_int_equal(fx.out.todo, ARUN_DO_HOST);
        fx_clear(&fx);
        arun_host_prepared(fx.ar, 0, "", T0 + SEC, &fx.out);
        expect_sent(&fx, 1, prepared, 1);
        assert_int_equal(arun_phase(fx.ar), ARUN_SERVING);
        assert_string_equal(arun_phase_name(fx.ar), "serving");
        assert_int_equal(fx.out.todo, 0);
        fx_clear(&fx);
        /* Serving until told: ticks make nothing (the Prepared was acknowledged). */
        arun_on_ack(fx.ar, 1, T0 + 2 * SEC, &fx.out);
        arun_tick(fx.ar, T0 + 100 * SEC, &fx.out);
        assert_int_equal(fx.out.coord.n, 0);
        arun_on_stop(fx.ar, "step over", T0 + 101 * SEC, &fx.out);
        assert_int_equal(fx.out.todo, ARUN_DO_TEARDOWN);
        assert_int_equal(fx.out.coord.n, 0);
        fx_clear(&fx);
        /* A second Stop while putting back changes nothing. */
        arun_on_stop(fx.ar, "step over", T0 + 101 * SEC, &fx.out);
        assert_int_equal(fx.out.todo, 0);
        /* Its Finished says the server is back. */
        arun_host_done(fx.ar, 0, T0 + 105 * SEC, &fx.out);
        expect_sent(&fx, 1, finished, 2);
        assert_int_equal(arun_phase(fx.ar), ARUN_DONE);
        fx_done(&fx);
}

/* --- failures before the start ---------------------------------------------------------------- */

static void test_host_prepare_fails(void **state)
{
        static const Iofleet__Envelope__BodyCase err[] = {BODY(ERROR)},
                                                  restored[] = {BODY(RESTORED)};
        prep_def_t d = {.role = "", .mount = true, .grace_ns = 60 * SEC};
        fx_t fx;
        envelope_t *e;

        fx_init(&fx, RQUEUE_MEM_BYTES);
        fx_new(&fx, &d, T0);
        fx_clear(&fx);
        arun_host_prepared(fx.ar, -EINVAL, "mount: vers=4.2 refused by the server", T0 + SEC,
                           &fx.out);
        expect_sent(&fx, 1, err, 1);
        e = sent(&fx, 0);
        assert_int_equal(e->error->code, IOFLEET__ERROR_CODE__ERROR_BAD_JOB);
        assert_string_equal(e->error->message, "mount: vers=4.2 refused by the server");
        wire_free(&e);
        /* Whatever was changed goes back, and the coordinator hears it did. */
        assert_int_equal(fx.out.todo, ARUN_DO_TEARDOWN);
        fx_clear(&fx);
        arun_host_done(fx.ar, 0, T0 + 2 * SEC, &fx.out);
        expect_sent(&fx, 1, restored, 2);
        fx_done(&fx);
}

static void test_runner_and_clock_failures(void **state)
{
        prep_def_t d = {.role = "", .grace_ns = 60 * SEC};
        fx_t fx;
        envelope_t *e;

        /* The runner cannot be made (a directory outside allow_paths). */
        fx_init(&fx, RQUEUE_MEM_BYTES);
        fx_new(&fx, &d, T0);
        arun_host_prepared(fx.ar, 0, "", T0 + SEC, &fx.out);
        fx_clear(&fx);
        arun_fail(fx.ar, IOFLEET__ERROR_CODE__ERROR_BAD_JOB, "job j: directory=/srv: outside",
                  T0 + SEC, &fx.out);
        assert_int_equal(fx.out.coord.n, 1);
        e = sent(&fx, 0);
        assert_int_equal(e->error->code, IOFLEET__ERROR_CODE__ERROR_BAD_JOB);
        assert_int_equal(e->error->run_seq, 1);
        wire_free(&e);
        assert_int_equal(fx.out.todo, ARUN_DO_FREE_RUNNER | ARUN_DO_TEARDOWN);
        fx_clear(&fx);
        /* A second failure report changes nothing. */
        arun_fail(fx.ar, IOFLEET__ERROR_CODE__ERROR_BAD_JOB, "again", T0 + SEC, &fx.out);
        assert_int_equal(fx.out.coord.n, 0);
        fx_done(&fx);

        /* No clock sample: the start cannot be placed. */
        fx_init(&fx, RQUEUE_MEM_BYTES);
        fx_new(&fx, &d, T0);
        arun_host_prepared(fx.ar, 0, "", T0 + SEC, &fx.out);
        arun_runner_prepared(fx.ar, T0 + SEC, &fx.out);
        fx_clear(&fx);
        arun_clock_ready(fx.ar, false, T0 + 2 * SEC, &fx.out);
        e = sent(&fx, 0);
        assert_int_equal(e->body_case, BODY(ERROR));
        assert_non_null(strstr(e->error->message, "clock"));
        wire_free(&e);
        assert_int_equal(arun_phase(fx.ar), ARUN_TEARDOWN);
        fx_done(&fx);

        /* A start instant it cannot take. */
        fx_init(&fx, RQUEUE_MEM_BYTES);
        fx_new(&fx, &d, T0);
        arun_host_prepared(fx.ar, 0, "", T0 + SEC, &fx.out);
        arun_runner_prepared(fx.ar, T0 + SEC, &fx.out);
        arun_clock_ready(fx.ar, true, T0 + SEC, &fx.out);
        fx_clear(&fx);
        arun_on_start(fx.ar, 0, "start instant 7200s away", T0 + 2 * SEC, &fx.out);
        e = sent(&fx, 0);
        assert_int_equal(e->body_case, BODY(ERROR));
        assert_string_equal(e->error->message, "start instant 7200s away");
        wire_free(&e);
        assert_false(fx.out.todo & ARUN_DO_START);
        fx_done(&fx);
}

static void test_stop_before_start(void **state)
{
        prep_def_t d = {.role = "", .mount = true, .grace_ns = 60 * SEC};
        fx_t fx;
        envelope_t *e;

        /* Stop while the host is still being prepared: put back as soon as it is ready. */
        fx_init(&fx, RQUEUE_MEM_BYTES);
        fx_new(&fx, &d, T0);
        fx_clear(&fx);
        arun_on_stop(fx.ar, "cancelled", T0 + 10 * MSEC, &fx.out);
        assert_int_equal(fx.out.todo, 0);
        arun_host_prepared(fx.ar, 0, "", T0 + SEC, &fx.out);
        assert_true(fx.out.todo & ARUN_DO_TEARDOWN);
        assert_int_equal(fx.out.coord.n, 0);
        fx_clear(&fx);
        arun_host_done(fx.ar, 0, T0 + 2 * SEC, &fx.out);
        e = sent(&fx, 0);
        assert_int_equal(e->body_case, BODY(RESTORED));
        wire_free(&e);
        assert_int_equal(fx.out.coord.n, 1); /* no Finished: nothing ran */
        fx_done(&fx);

        /* Stop while waiting for the start: the runner goes, the host goes back. */
        fx_init(&fx, RQUEUE_MEM_BYTES);
        fx_new(&fx, &d, T0);
        arun_host_prepared(fx.ar, 0, "", T0 + SEC, &fx.out);
        arun_runner_prepared(fx.ar, T0 + SEC, &fx.out);
        arun_clock_ready(fx.ar, true, T0 + SEC, &fx.out);
        fx_clear(&fx);
        arun_on_stop(fx.ar, "cancelled", T0 + 2 * SEC, &fx.out);
        assert_int_equal(fx.out.todo, ARUN_DO_FREE_RUNNER | ARUN_DO_TEARDOWN);
        /* A Start that comes after the Stop is not obeyed. */
        arun_on_start(fx.ar, T0 + 3 * SEC, NULL, T0 + 2 * SEC, &fx.out);
        assert_false(fx.out.todo & ARUN_DO_START);
        fx_done(&fx);
}

/* --- partitions, acknowledgements, resends ----------------------------------------------------- */

/* The coordinator away for 15 s while the run goes on: every interval is kept, nothing is sent
 * into the void, and after the session is back the Ack says where to resend from. */
static void test_partition_resends_in_order(void **state)
{
        prep_def_t d = {.role = "", .grace_ns = 300 * SEC};
        fx_t fx;
        int64_t s;
        uint64_t expect;

        fx_init(&fx, RQUEUE_MEM_BYTES);
        s = fx_running(&fx, &d);
        /* Prepared (1) and Started (2) arrived; interval 0 (3) was sent and never arrived. */
        arun_on_ack(fx.ar, 2, s + 500 * MSEC, &fx.out);
        arun_tick(fx.ar, s + SEC, &fx.out);
        assert_int_equal(fx.out.coord.n, 1);
        fx_clear(&fx);
        arun_session(fx.ar, false, s + 1500 * MSEC, &fx.out);
        for (int64_t t = s + 2 * SEC; t <= s + 16 * SEC; t += SEC)
                arun_tick(fx.ar, t, &fx.out);
        /* Made (intervals 1..15) but not sent: the session is down. */
        assert_int_equal(fx.out.coord.n, 0);
        assert_int_equal(arun_made(fx.ar), 18);
        assert_int_equal(arun_phase(fx.ar), ARUN_RUNNING);
        assert_int_equal(fx.out.todo, 0);
        /* Up again: still nothing until the coordinator says where from. */
        arun_session(fx.ar, true, s + 16500 * MSEC, &fx.out);
        arun_tick(fx.ar, s + 17 * SEC, &fx.out); /* interval 16 made, waits */
        assert_int_equal(fx.out.coord.n, 0);
        arun_on_ack(fx.ar, 2, s + 17100 * MSEC, &fx.out);
        /* Interval 0 onwards, in order, once each. */
        assert_int_equal(fx.out.coord.n, 17);
        expect = 3;
        for (size_t i = 0; i < fx.out.coord.n; i++) {
                envelope_t *e = sent(&fx, i);
                assert_int_equal(e->body_case, BODY(INTERVAL));
                assert_int_equal(e->interval->run_seq, expect++);
                assert_int_equal(e->interval->index, i);
                wire_free(&e);
        }
        fx_clear(&fx);
        /* New intervals go straight out again. */
        arun_tick(fx.ar, s + 18 * SEC, &fx.out);
        assert_int_equal(fx.out.coord.n, 1);
        fx_done(&fx);
}

/* A gap: the coordinator acknowledges less than was sent and then nothing moves: after the
 * resend delay everything unacknowledged goes again, and only once per delay. */
static void test_resend_after_silence(void **state)
{
        prep_def_t d = {.role = "", .grace_ns = 300 * SEC};
        fx_t fx;
        int64_t s;

        fx_init(&fx, RQUEUE_MEM_BYTES);
        s = fx_running(&fx, &d);
        arun_on_ack(fx.ar, 2, s, &fx.out);
        arun_tick(fx.ar, s + SEC, &fx.out);
        arun_tick(fx.ar, s + 2 * SEC, &fx.out);
        fx_clear(&fx);
        arun_on_ack(fx.ar, 3, s + 2100 * MSEC, &fx.out); /* interval 0 arrived, 1 did not */
        assert_int_equal(arun_next_deadline(fx.ar), s + 3 * SEC);
        arun_tick(fx.ar, s + 3 * SEC, &fx.out); /* interval 2 */
        fx_clear(&fx);
        arun_tick(fx.ar, s + 7100 * MSEC - 1, &fx.out);
        arun_tick(fx.ar, s + 7100 * MSEC - 1, &fx.out);
        for (size_t i = 0; i < fx.out.coord.n; i++) {
                envelope_t *e = sent(&fx, i);
                assert_int_equal(e->body_case, BODY(INTERVAL)); /* intervals 3..6 only */
                assert_true(e->interval->index >= 3);
                wire_free(&e);
        }
        fx_clear(&fx);
        /* 5 s without progress since the last Ack: 1 and later again. */
        arun_tick(fx.ar, s + 7100 * MSEC, &fx.out);
        {
                envelope_t *e = sent(&fx, 0);
                assert_int_equal(e->interval->index, 1);
                assert_int_equal(e->interval->run_seq, 4);
                wire_free(&e);
        }
        assert_int_equal(fx.out.coord.n, 7 - 1); /* intervals 1..6 */
        fx_clear(&fx);
        arun_tick(fx.ar, s + 7200 * MSEC, &fx.out);
        assert_int_equal(fx.out.coord.n, 0);
        fx_done(&fx);
}

/* After a long partition the backlog goes a window (256) at a time, each Ack letting the next
 * ones go, so that the socket's queue never fills and heartbeats still pass; live intervals wait
 * their turn behind the backlog and nothing is sent twice or out of order. */
static void test_resend_window(void **state)
{
        prep_def_t d = {.role = "", .grace_ns = 3600 * SEC, .interval_ns = 10 * MSEC};
        fx_t fx;
        int64_t s, t;
        uint64_t next = 3, made;

        fx_init(&fx, RQUEUE_MEM_BYTES);
        s = fx_running(&fx, &d);
        arun_session(fx.ar, false, s + 1, &fx.out);
        for (t = s + 10 * MSEC; t <= s + 6 * SEC; t += 10 * MSEC)
                arun_tick(fx.ar, t, &fx.out);
        assert_int_equal(fx.out.coord.n, 0);
        made = arun_made(fx.ar);
        assert_true(made >= 600);
        arun_session(fx.ar, true, t, &fx.out);
        arun_on_ack(fx.ar, 2, t, &fx.out);
        for (size_t n = 256; n == 256;) {
                n = fx.out.coord.n;
                assert_true(n > 0);
                assert_true(n <= 256);
                for (size_t i = 0; i < n; i++) {
                        envelope_t *e = sent(&fx, i);
                        assert_int_equal(wire_run_seq(e), next++);
                        wire_free(&e);
                }
                fx_clear(&fx);
                /* One interval more while the backlog drains: it waits its turn. */
                t += 10 * MSEC;
                arun_tick(fx.ar, t, &fx.out);
                made = arun_made(fx.ar);
                if (n == 256)
                        arun_on_ack(fx.ar, next - 1, t, &fx.out);
        }
        /* Everything made was sent, once, in order (the interval made last went straight out
         * behind the backlog's tail, or is what the Ack below lets go). */
        next += fx.out.coord.n;
        fx_clear(&fx);
        arun_on_ack(fx.ar, next - 1, t, &fx.out);
        next += fx.out.coord.n;
        assert_int_equal(next - 1, made);
        /* Caught up: a new interval goes straight out. */
        fx_clear(&fx);
        arun_on_ack(fx.ar, made, t, &fx.out);
        arun_tick(fx.ar, t + 10 * MSEC, &fx.out);
        assert_int_equal(fx.out.coord.n, 1);
        fx_done(&fx);
}

static void test_acks(void **state)
{
        prep_def_t d = {.role = "", .grace_ns = 300 * SEC};
        fx_t fx;
        int64_t s;

        fx_init(&fx, RQUEUE_MEM_BYTES);
        s = fx_running(&fx, &d);
        arun_tick(fx.ar, s + 3 * SEC, &fx.out);
        assert_int_equal(arun_pending(fx.ar), 3);
        assert_int_equal(arun_made(fx.ar), 5);
        /* Cumulative; an older Ack after a newer one, or one repeated, changes nothing. */
        arun_on_ack(fx.ar, 3, s + 3 * SEC, &fx.out);
        assert_int_equal(arun_pending(fx.ar), 2);
        arun_on_ack(fx.ar, 1, s + 3 * SEC, &fx.out);
        arun_on_ack(fx.ar, 3, s + 3 * SEC, &fx.out);
        assert_int_equal(arun_pending(fx.ar), 2);
        /* An Ack beyond what was made is taken as everything. */
        arun_on_ack(fx.ar, 99, s + 3 * SEC, &fx.out);
        assert_int_equal(arun_pending(fx.ar), 0);
        assert_int_equal(arun_made(fx.ar), 5);
        /* Numbering goes on where it was. */
        fx_clear(&fx);
        arun_tick(fx.ar, s + 4 * SEC, &fx.out);
        {
                envelope_t *e = sent(&fx, 0);
                assert_int_equal(e->interval->run_seq, 6);
                wire_free(&e);
        }
        fx_done(&fx);
}

/* The coordinator says things twice (a Start or Stop sent again after a reconnect) and events
 * come twice or late: each takes effect once, and the run's messages stay one of each, in
 * order. */
static void test_duplicates(void **state)
{
        static const Iofleet__Envelope__BodyCase started[] = {BODY(STARTED)},
                                                  end[] = {BODY(INTERVAL), BODY(FINISHED)};
        prep_def_t d = {.role = "", .grace_ns = 300 * SEC};
        fx_t fx;
        int64_t start = T0 + 2 * SEC;

        fx_init(&fx, RQUEUE_MEM_BYTES);
        fx_new(&fx, &d, T0);
        /* A Start before the agent is prepared is not its Start: nothing happens. */
        arun_on_start(fx.ar, start, NULL, T0 + 5 * MSEC, &fx.out);
        assert_int_equal(fx.out.todo & ARUN_DO_START, 0);
        arun_host_prepared(fx.ar, 0, "", T0 + 10 * MSEC, &fx.out);
        arun_host_prepared(fx.ar, 0, "", T0 + 11 * MSEC, &fx.out);
        assert_int_equal(arun_phase(fx.ar), ARUN_LAYOUT);
        arun_runner_prepared(fx.ar, T0 + 20 * MSEC, &fx.out);
        arun_clock_ready(fx.ar, true, T0 + 30 * MSEC, &fx.out);
        arun_clock_ready(fx.ar, true, T0 + 31 * MSEC, &fx.out);
        assert_int_equal(arun_made(fx.ar), 1); /* one Prepared */
        fx_clear(&fx);
        arun_on_start(fx.ar, start, NULL, T0 + 40 * MSEC, &fx.out);
        assert_int_equal(fx.out.todo, ARUN_DO_START);
        fx.out.todo = 0;
        /* The same Start again (or another instant): the runner has its instant already. */
        arun_on_start(fx.ar, start, NULL, T0 + 50 * MSEC, &fx.out);
        arun_on_start(fx.ar, start + SEC, NULL, T0 + 60 * MSEC, &fx.out);
        assert_int_equal(fx.out.todo, 0);
        arun_runner_running(fx.ar, start, &fx.out);
        arun_runner_running(fx.ar, start + MSEC, &fx.out);
        expect_sent(&fx, 1, started, 2);
        fx_clear(&fx);
        /* Stop twice: the workers are asked to stop (runner_stop() may be called again), and
         * their one end makes one last interval and one Finished. */
        arun_on_stop(fx.ar, "cancelled", start + 500 * MSEC, &fx.out);
        arun_on_stop(fx.ar, "cancelled", start + 600 * MSEC, &fx.out);
        assert_int_equal(fx.out.todo, ARUN_DO_STOP);
        fx.out.todo = 0;
        arun_runner_done(fx.ar, start + 700 * MSEC, start + 710 * MSEC, &fx.out);
        expect_sent(&fx, 2, end, 3);
        assert_int_equal(fx.out.todo, ARUN_DO_FREE_RUNNER | ARUN_DO_TEARDOWN);
        fx_clear(&fx);
        /* The runner's end seen again, a Stop and a Start during the put-back: nothing. */
        arun_runner_done(fx.ar, start + 700 * MSEC, start + 720 * MSEC, &fx.out);
        arun_on_stop(fx.ar, "cancelled", start + 730 * MSEC, &fx.out);
        arun_on_start(fx.ar, start, NULL, start + 740 * MSEC, &fx.out);
        assert_int_equal(fx.out.coord.n, 0);
        assert_int_equal(fx.out.todo, 0);
        arun_host_done(fx.ar, 0, start + 800 * MSEC, &fx.out);
        arun_host_done(fx.ar, 0, start + 810 * MSEC, &fx.out);
        assert_int_equal(arun_phase(fx.ar), ARUN_DONE);
        assert_int_equal(arun_made(fx.ar), 4); /* no Restored: nothing on the host changed */
        /* Acks out of order: the later one counts, the earlier changes nothing. */
        arun_on_ack(fx.ar, 4, start + 900 * MSEC, &fx.out);
        arun_on_ack(fx.ar, 2, start + 900 * MSEC, &fx.out);
        assert_int_equal(arun_pending(fx.ar), 0);
        assert_true(arun_over(fx.ar));
        fx_done(&fx);
}

/* A client's workers blocked in I/O after the stop (their server went away under the mount): the
 * mount is forced after ARUN_FORCE_AFTER_NS, again every ARUN_FORCE_EVERY_NS, until they end;
 * never for a server, a client without host changes, or workers that end in time. */
static void test_force_blocked_workers(void **state)
{
        prep_def_t d = {.role = "", .mount = true, .grace_ns = 300 * SEC};
        fx_t fx;
        int64_t start, stop;

        fx_init(&fx, RQUEUE_MEM_BYTES);
        start = fx_running(&fx, &d);
        stop = start + 3 * SEC;
        arun_on_stop(fx.ar, "cancelled", stop, &fx.out);
        assert_int_equal(fx.out.todo, ARUN_DO_STOP);
        fx_clear(&fx);
        /* The timer wakes the agent for it, between the interval boundaries. */
        assert_true(arun_next_deadline(fx.ar) <= stop + ARUN_FORCE_AFTER_NS);
        arun_tick(fx.ar, stop + ARUN_FORCE_AFTER_NS - MSEC, &fx.out);
        assert_int_equal(fx.out.todo & ARUN_DO_FORCE, 0);
        arun_tick(fx.ar, stop + ARUN_FORCE_AFTER_NS, &fx.out);
        assert_int_equal(fx.out.todo & ARUN_DO_FORCE, ARUN_DO_FORCE);
        fx_clear(&fx);
        /* Another stop does not push it back; still blocked: again after ARUN_FORCE_EVERY_NS. */
        arun_on_stop(fx.ar, "cancelled", stop + ARUN_FORCE_AFTER_NS + SEC, &fx.out);
        arun_tick(fx.ar, stop + ARUN_FORCE_AFTER_NS + ARUN_FORCE_EVERY_NS - MSEC, &fx.out);
        assert_int_equal(fx.out.todo & ARUN_DO_FORCE, 0);
        arun_tick(fx.ar, stop + ARUN_FORCE_AFTER_NS + ARUN_FORCE_EVERY_NS, &fx.out);
        assert_int_equal(fx.out.todo & ARUN_DO_FORCE, ARUN_DO_FORCE);
        fx_clear(&fx);
        /* They return (EIO): the run ends as usual, and nothing is forced any more. */
        arun_runner_done(fx.ar, stop + 30 * SEC, stop + 30 * SEC, &fx.out);
        assert_int_equal(fx.out.todo, ARUN_DO_FREE_RUNNER | ARUN_DO_TEARDOWN);
        fx_clear(&fx);
        arun_tick(fx.ar, stop + 60 * SEC, &fx.out);
        assert_int_equal(fx.out.todo & ARUN_DO_FORCE, 0);
        fx_done(&fx);

        /* Workers that end within the time: no force. */
        fx_init(&fx, RQUEUE_MEM_BYTES);
        start = fx_running(&fx, &d);
        arun_on_stop(fx.ar, "cancelled", start + SEC, &fx.out);
        arun_runner_done(fx.ar, start + 2 * SEC, start + 2 * SEC, &fx.out);
        fx_clear(&fx);
        arun_tick(fx.ar, start + SEC + ARUN_FORCE_AFTER_NS, &fx.out);
        assert_int_equal(fx.out.todo & ARUN_DO_FORCE, 0);
        fx_done(&fx);

        /* A client that changed nothing on its host has no mount to force. */
        d.mount = false;
        fx_init(&fx, RQUEUE_MEM_BYTES);
        start = fx_running(&fx, &d);
        arun_on_stop(fx.ar, "cancelled", start + SEC, &fx.out);
        fx_clear(&fx);
        arun_tick(fx.ar, start + SEC + ARUN_FORCE_AFTER_NS, &fx.out);
        assert_int_equal(fx.out.todo & ARUN_DO_FORCE, 0);
        fx_done(&fx);
}

/* --- the orphan grace --------------------------------------------------------------------------- */

static void test_grace_expires(void **state)
{
        prep_def_t d = {.role = "", .mount = true, .grace_ns = 60 * SEC};
        fx_t fx;
        int64_t s, lost;
        envelope_t *e;
        size_t n;

        fx_init(&fx, RQUEUE_MEM_BYTES);
        s = fx_running(&fx, &d);
        arun_on_ack(fx.ar, 2, s, &fx.out);
        lost = s + 10 * SEC;
        arun_session(fx.ar, false, lost, &fx.out);
        assert_int_equal(fx.out.todo, 0);
        /* The next deadline is an interval; the grace's end is further. */
        for (int64_t t = s + SEC; t < lost + 60 * SEC; t += SEC)
                arun_tick(fx.ar, t, &fx.out);
        assert_int_equal(fx.out.todo, 0);
        assert_int_equal(arun_phase(fx.ar), ARUN_RUNNING);
        /* Its end: the workers stop; their end makes the last interval and Finished. */
        arun_tick(fx.ar, lost + 60 * SEC, &fx.out);
        assert_int_equal(fx.out.todo, ARUN_DO_STOP);
        fx.out.todo = 0;
        arun_runner_done(fx.ar, lost + 60 * SEC + 5 * MSEC, lost + 60 * SEC + 10 * MSEC, &fx.out);
        assert_int_equal(fx.out.todo, ARUN_DO_FREE_RUNNER | ARUN_DO_TEARDOWN);
        arun_host_done(fx.ar, 0, lost + 61 * SEC, &fx.out);
        assert_int_equal(arun_phase(fx.ar), ARUN_DONE);
        /* Kept for the next session: intervals 0..70 (the last holds the workers' last 5 ms),
         * Finished saying why, Restored. */
        n = arun_pending(fx.ar);
        assert_int_equal(n, 71 + 2);
        assert_false(arun_over(fx.ar));
        assert_int_equal(fx.out.coord.n, 0);
        /* A later session collects all of it; the Finished says why it stopped. */
        arun_session(fx.ar, true, lost + 200 * SEC, &fx.out);
        arun_on_ack(fx.ar, 2, lost + 200 * SEC, &fx.out);
        assert_int_equal(fx.out.coord.n, n);
        e = sent(&fx, n - 2);
        assert_int_equal(e->body_case, BODY(FINISHED));
        assert_non_null(strstr(e->finished->error, "orphan grace"));
        assert_int_equal(e->finished->intervals, 71);
        wire_free(&e);
        e = sent(&fx, n - 1);
        assert_int_equal(e->body_case, BODY(RESTORED));
        wire_free(&e);
        arun_on_ack(fx.ar, 2 + n, lost + 200 * SEC, &fx.out);
        assert_true(arun_over(fx.ar));
        fx_done(&fx);
}

/* Back within the grace: nothing stops; the grace's timer is off. */
static void test_back_within_grace(void **state)
{
        prep_def_t d = {.role = "", .grace_ns = 60 * SEC};
        fx_t fx;
        int64_t s;

        fx_init(&fx, RQUEUE_MEM_BYTES);
        s = fx_running(&fx, &d);
        arun_session(fx.ar, false, s + 5 * SEC, &fx.out);
        arun_session(fx.ar, true, s + 20 * SEC, &fx.out);
        arun_on_ack(fx.ar, 2, s + 20 * SEC, &fx.out);
        for (int64_t t = s + 21 * SEC; t < s + 120 * SEC; t += SEC)
                arun_tick(fx.ar, t, &fx.out);
        assert_int_equal(fx.out.todo, 0);
        assert_int_equal(arun_phase(fx.ar), ARUN_RUNNING);
        fx_done(&fx);
}

/* Without a grace the run stops at once when the coordinator is lost (the old behaviour), and a
 * server puts its export back. */
static void test_no_grace(void **state)
{
        prep_def_t d = {.role = "", .grace_ns = 0};
        prep_def_t srv = {.role = "server", .grace_ns = 0};
        fx_t fx;
        int64_t s;

        fx_init(&fx, RQUEUE_MEM_BYTES);
        s = fx_running(&fx, &d);
        arun_session(fx.ar, false, s + 5 * SEC, &fx.out);
        assert_int_equal(fx.out.todo, ARUN_DO_STOP);
        fx_done(&fx);

        fx_init(&fx, RQUEUE_MEM_BYTES);
        fx_new(&fx, &srv, T0);
        arun_host_prepared(fx.ar, 0, "", T0 + SEC, &fx.out);
        fx_clear(&fx);
        arun_session(fx.ar, false, T0 + 5 * SEC, &fx.out);
        assert_int_equal(fx.out.todo, ARUN_DO_TEARDOWN);
        fx_done(&fx);
}

/* The coordinator has no such run (it ended without this agent, or restarted without its
 * journal): what is left is dropped, a run still going stops and puts the host back. */
static void test_unknown_run(void **state)
{
        prep_def_t d = {.role = "", .mount = true, .grace_ns = 300 * SEC};
        fx_t fx;
        int64_t s;

        fx_init(&fx, RQUEUE_MEM_BYTES);
        s = fx_running(&fx, &d);
        arun_session(fx.ar, false, s + SEC, &fx.out);
        arun_session(fx.ar, true, s + 3 * SEC, &fx.out);
        arun_unknown(fx.ar, "run run-0042 is not known", s + 3 * SEC, &fx.out);
        assert_int_equal(fx.out.todo, ARUN_DO_STOP);
        fx_clear(&fx);
        arun_runner_done(fx.ar, s + 3 * SEC, s + 3 * SEC, &fx.out);
        arun_host_done(fx.ar, 0, s + 4 * SEC, &fx.out);
        /* Nothing more made, nothing sent; over. */
        assert_int_equal(fx.out.coord.n, 0);
        assert_true(arun_over(fx.ar));
        fx_done(&fx);
}

/* SIGTERM: the run ends now, says why, and keeps what it made. */
static void test_shutdown(void **state)
{
        prep_def_t d = {.role = "", .grace_ns = 300 * SEC};
        fx_t fx;
        int64_t s;
        envelope_t *e;

        fx_init(&fx, RQUEUE_MEM_BYTES);
        s = fx_running(&fx, &d);
        arun_shutdown(fx.ar, s + 1500 * MSEC, &fx.out);
        assert_int_equal(fx.out.todo, ARUN_DO_STOP);
        fx_clear(&fx);
        arun_runner_done(fx.ar, s + 1500 * MSEC, s + 1510 * MSEC, &fx.out);
        e = sent(&fx, fx.out.coord.n - 1);
        assert_int_equal(e->body_case, BODY(FINISHED));
        assert_string_equal(e->finished->error, "the agent is stopping");
        wire_free(&e);
        fx_done(&fx);
}

/* --- a restarted agent ---------------------------------------------------------------------- */

/* The agent was killed mid-run: the next one finds the run, with what was not acknowledged, and
 * says the workers stopped (Finished with the reason) and the host was put back (Restored). */
static void test_recover_after_kill(void **state)
{
        prep_def_t d = {.role = "", .mount = true, .grace_ns = 300 * SEC};
        fx_t fx;
        int64_t s;
        arun_out_t out = {0};
        envelope_t *e;
        char id[64], phase[32];

        fx_init(&fx, RQUEUE_MEM_BYTES);
        s = fx_running(&fx, &d);
        for (int64_t t = s + SEC; t <= s + 5 * SEC; t += SEC)
                arun_tick(fx.ar, t, &fx.out);
        arun_on_ack(fx.ar, 4, s + 5 * SEC, &fx.out); /* Prepared, Started, intervals 0-1 */
        /* kill -9: the run is left as it was. */
        arun_free(&fx.ar);
        assert_int_equal(arun_peek(fx.dir, id, sizeof(id), phase, sizeof(phase)), 0);
        assert_string_equal(id, RUN_ID);
        assert_string_equal(phase, "running");

        assert_int_equal(arun_recover(&fx.cfg, 2 * T0, &out, &fx.ar), 0);
        assert_int_equal(arun_phase(fx.ar), ARUN_DONE);
        assert_string_equal(arun_id(fx.ar), RUN_ID);
        /* Intervals 2, 3, 4 from before; Finished and Restored are owed, numbered once the
         * coordinator says how far it has this agent's messages. */
        assert_int_equal(arun_pending(fx.ar), 3);
        assert_int_equal(arun_made(fx.ar), 7);
        assert_false(arun_over(fx.ar));
        /* Nothing goes before the session says where from. */
        arun_session(fx.ar, true, 2 * T0, &out);
        assert_int_equal(out.coord.n, 0);
        arun_on_ack(fx.ar, 4, 2 * T0 + SEC, &out);
        assert_int_equal(arun_made(fx.ar), 9);
        assert_int_equal(out.coord.n, 5);
        for (size_t i = 0; i < 3; i++) {
                envelope_t *iv = NULL;
                char err[256];
                assert_int_equal(wire_decode(out.coord.items[i].buf, out.coord.items[i].len,
                                             WIRE_MAX_AGENT_MSG, &iv, err, sizeof(err)),
                                 0);
                assert_int_equal(iv->interval->index, 2 + i);
                assert_int_equal(iv->interval->read->bytes, iv_bytes(2 + i));
                wire_free(&iv);
        }
        {
                char err[256];
                assert_int_equal(wire_decode(out.coord.items[3].buf, out.coord.items[3].len,
                                             WIRE_MAX_AGENT_MSG, &e, err, sizeof(err)),
                                 0);
        }
        assert_int_equal(e->body_case, BODY(FINISHED));
        assert_int_equal(e->finished->run_seq, 8);
        assert_non_null(strstr(e->finished->error, "restarted"));
        assert_non_null(strstr(e->finished->error, "interval 5"));
        wire_free(&e);
        arun_on_ack(fx.ar, 9, 2 * T0 + SEC, &out);
        assert_true(arun_over(fx.ar));
        /* Freed once over: the run's directory goes. */
        arun_free(&fx.ar);
        assert_int_equal(access(fx.dir, F_OK), -1);
        outbox_done(&out.coord);
        fx_done(&fx);
}

/* Runs a shell command on the fixture's files. */
static void fx_sh(const char *fmt, const char *a, const char *b)
{
        char cmd[512];
        snprintf(cmd, sizeof(cmd), fmt, a, b);
        assert_int_equal(system(cmd), 0);
}

/* The agent's run files are not synced: after a power cut its run directory may be older than
 * what the coordinator acknowledged. Modelled: the directory as it was after interval 2 (Prepared
 * and Started acknowledged, intervals 0-2 made) comes back after the agent delivered intervals
 * 0-7 (messages 1-10, all acknowledged) and the host restarted (another boot id). The
 * coordinator's first Ack says 10: the end of the run (Finished, Restored) is numbered 11 and 12,
 * not 6 and 7, which the coordinator holds for intervals 3 and 4 (it would take them for
 * duplicates and the run would never hear how this agent ended). The same agent restarted again
 * before it met the coordinator still owes that end. */
static void test_recover_behind_after_power_cut(void **state)
{
        prep_def_t d = {.role = "", .mount = true, .grace_ns = 300 * SEC};
        fx_t fx;
        int64_t s;
        envelope_t *e;
        char snap[200];

        fx_init(&fx, RQUEUE_MEM_BYTES);
        fx.cfg.boot_id = "boot-1";
        s = fx_running(&fx, &d);
        for (int64_t t = s + SEC; t <= s + 3 * SEC; t += SEC)
                arun_tick(fx.ar, t, &fx.out);
        arun_on_ack(fx.ar, 4, s + 3 * SEC, &fx.out);
        assert_int_equal(arun_made(fx.ar), 5);
        /* What reached the disk: this directory as it is now. */
        snprintf(snap, sizeof(snap), "%s.disk", fx.dir);
        fx_sh("cp -a %s %s", fx.dir, snap);
        for (int64_t t = s + 4 * SEC; t <= s + 8 * SEC; t += SEC)
                arun_tick(fx.ar, t, &fx.out);
        assert_int_equal(arun_made(fx.ar), 10);
        arun_on_ack(fx.ar, 10, s + 8 * SEC, &fx.out);
        /* The power cut: the process and the page cache are gone. */
        arun_free(&fx.ar);
        fx_sh("rm -rf %s%s", fx.dir, "");
        fx_sh("mv %s %s", snap, fx.dir);
        fx_clear(&fx);

        fx.cfg.boot_id = "boot-2";
        assert_int_equal(arun_recover(&fx.cfg, T0, &fx.out, &fx.ar), 0);
        assert_int_equal(arun_made(fx.ar), 5);
        assert_int_equal(arun_pending(fx.ar), 1);
        /* Restarted again before any session: the end is still owed. */
        arun_free(&fx.ar);
        assert_int_equal(arun_recover(&fx.cfg, T0 + SEC, &fx.out, &fx.ar), 0);
        assert_int_equal(arun_made(fx.ar), 5);
        assert_false(arun_over(fx.ar));
        assert_int_equal(fx.out.coord.n, 0);

        arun_session(fx.ar, true, T0 + 2 * SEC, &fx.out);
        arun_on_ack(fx.ar, 10, T0 + 2 * SEC, &fx.out);
        /* Interval 2 (message 5) the coordinator has: not sent again. */
        expect_sent(&fx, 2, (const Iofleet__Envelope__BodyCase[]){BODY(FINISHED), BODY(RESTORED)},
                    11);
        e = sent(&fx, 0);
        assert_non_null(strstr(e->finished->error, "the host restarted during the run"));
        assert_non_null(strstr(e->finished->error, "5 messages behind"));
        wire_free(&e);
        assert_false(arun_over(fx.ar));
        /* Made once: a later Ack in the session changes nothing. */
        fx_clear(&fx);
        arun_on_ack(fx.ar, 11, T0 + 3 * SEC, &fx.out);
        assert_int_equal(arun_made(fx.ar), 12);
        assert_int_equal(fx.out.coord.n, 0);
        arun_on_ack(fx.ar, 12, T0 + 3 * SEC, &fx.out);
        assert_true(arun_over(fx.ar));
        fx_done(&fx);
}

/* The run's queue file did not reach the disk (only its state file did): the numbering goes on
 * from what the state file says was acknowledged, never from 1. Killed without a power cut (the
 * same boot), the Finished says after which interval its workers stopped. */
static void test_recover_without_queue(void **state)
{
        prep_def_t d = {.role = "", .grace_ns = 300 * SEC};
        fx_t fx;
        int64_t s;
        envelope_t *e;
        char q[200];

        fx_init(&fx, RQUEUE_MEM_BYTES);
        fx.cfg.boot_id = "boot-1";
        s = fx_running(&fx, &d);
        for (int64_t t = s + SEC; t <= s + 4 * SEC; t += SEC)
                arun_tick(fx.ar, t, &fx.out);
        arun_on_ack(fx.ar, 5, s + 4 * SEC, &fx.out); /* 1-2, intervals 0-2; 3 not yet */
        arun_free(&fx.ar);
        snprintf(q, sizeof(q), "%s/" RQUEUE_FILE, fx.dir);
        assert_int_equal(unlink(q), 0);
        fx_clear(&fx);
        assert_int_equal(arun_recover(&fx.cfg, T0, &fx.out, &fx.ar), 0);
        assert_int_equal(arun_made(fx.ar), 5);
        assert_int_equal(arun_pending(fx.ar), 0);
        arun_session(fx.ar, true, T0, &fx.out);
        arun_on_ack(fx.ar, 5, T0, &fx.out);
        expect_sent(&fx, 1, (const Iofleet__Envelope__BodyCase[]){BODY(FINISHED)}, 6);
        e = sent(&fx, 0);
        assert_non_null(strstr(e->finished->error, "the agent was restarted during the run"));
        assert_non_null(strstr(e->finished->error, "after interval 4"));
        wire_free(&e);
        fx_done(&fx);
}

/* How many of the outbox's messages are LogChunks, and whether the last of them ends its log;
 * every LogChunk must come before any Finished. */
static size_t count_logs(const arun_out_t *out, bool *eof)
{
        size_t n = 0;
        bool finished = false;
        for (size_t i = 0; i < out->coord.n; i++) {
                envelope_t *e = NULL;
                char err[256];
                assert_int_equal(wire_decode(out->coord.items[i].buf, out->coord.items[i].len,
                                             WIRE_MAX_AGENT_MSG, &e, err, sizeof(err)),
                                 0);
                if (e->body_case == BODY(LOG_CHUNK)) {
                        assert_false(finished);
                        n++;
                        if (eof)
                                *eof = e->log_chunk->eof;
                }
                finished |= e->body_case == BODY(FINISHED);
                wire_free(&e);
        }
        return n;
}

/* fio's log files: chunks while few messages wait for an Ack (the rest waits on disk), none
 * while the coordinator is away, and every one before Finished, also after an agent restart. */
static void test_logs(void **state)
{
        prep_def_t d = {.role = "", .grace_ns = 300 * SEC, .logs = true};
        fx_t fx;
        int64_t s;
        size_t n;
        bool eof = false;
        arun_out_t out = {0};

        fx_init(&fx, RQUEUE_MEM_BYTES);
        fx.log_left = 500;
        s = fx_running(&fx, &d);
        /* the Ack of Started let chunks go until 64 messages wait */
        assert_int_equal(arun_pending(fx.ar), 64);
        assert_int_equal(fx.log_left, 500 - 64);
        assert_int_equal(fx.log_final, 0);
        /* nothing more until Acks come; the intervals go whatever the logs do */
        arun_tick(fx.ar, s + SEC, &fx.out);
        arun_tick(fx.ar, s + 2 * SEC, &fx.out);
        n = count_logs(&fx.out, NULL);
        assert_int_equal(n, 0);
        assert_int_equal(fx.out.coord.n, 2);
        fx_clear(&fx);
        arun_on_ack(fx.ar, arun_made(fx.ar), s + 2 * SEC, &fx.out);
        assert_int_equal(count_logs(&fx.out, NULL), 64);
        fx_clear(&fx);
        /* the coordinator away: the logs wait in their files */
        arun_session(fx.ar, false, s + 2 * SEC, &fx.out);
        arun_tick(fx.ar, s + 3 * SEC, &fx.out);
        assert_int_equal(count_logs(&fx.out, NULL), 0);
        fx_clear(&fx);
        /* the workers end while the coordinator is away: their logs wait (a window at a time,
         * the loop never blocked), no Finished yet, no more intervals, a Stop changes nothing */
        arun_runner_done(fx.ar, s + 3500 * MSEC, s + 3500 * MSEC, &fx.out);
        /* the runner stays for Finished's results */
        assert_false(fx.out.todo & (ARUN_DO_FREE_RUNNER | ARUN_DO_TEARDOWN));
        assert_int_equal(arun_phase(fx.ar), ARUN_RUNNING);
        assert_true(fx.log_left > 0);
        fx_clear(&fx);
        arun_on_stop(fx.ar, "runtime over", s + 9 * SEC, &fx.out);
        assert_int_equal(fx.out.todo, 0);
        arun_tick(fx.ar, s + 10 * SEC, &fx.out);
        assert_int_equal(fx.out.coord.n, 0);
        /* back: window after window as the Acks come, every chunk before Finished, then the
         * host put back */
        arun_session(fx.ar, true, s + 11 * SEC, &out);
        for (int round = 0; round < 20 && arun_phase(fx.ar) == ARUN_RUNNING; round++)
                arun_on_ack(fx.ar, arun_made(fx.ar) - (round == 0 ? arun_pending(fx.ar) : 0),
                            s + 11 * SEC + round * MSEC, &out);
        assert_int_equal(fx.log_left, 0);
        assert_true(fx.log_final > 0);
        assert_int_equal(arun_phase(fx.ar), ARUN_TEARDOWN);
        assert_true(out.todo & ARUN_DO_TEARDOWN);
        assert_true(out.todo & ARUN_DO_FREE_RUNNER);
        eof = false;
        assert_true(count_logs(&out, &eof) > 0);
        assert_true(eof);
        {
                /* Finished last, once */
                size_t fin = 0;
                for (size_t i = 0; i < out.coord.n; i++) {
                        envelope_t *e = sent(&(fx_t){.out = out}, i);
                        fin += e->body_case == BODY(FINISHED);
                        if (i + 1 == out.coord.n)
                                assert_int_equal(e->body_case, BODY(FINISHED));
                        wire_free(&e);
                }
                assert_int_equal(fin, 1);
        }
        outbox_done(&out.coord);
        fx_done(&fx);

        /* the agent stops (SIGTERM) while its logs drain: the rest into the queue's file at
         * once, Finished, the host put back */
        fx_init(&fx, RQUEUE_MEM_BYTES);
        fx.log_left = 400;
        s = fx_running(&fx, &d);
        arun_runner_done(fx.ar, s + SEC, s + SEC, &fx.out);
        assert_true(fx.log_left > 0);
        arun_shutdown(fx.ar, s + 2 * SEC, &fx.out);
        assert_int_equal(fx.log_left, 0);
        assert_true(fx.out.todo & ARUN_DO_TEARDOWN);
        fx_done(&fx);

        /* killed mid-run: the next agent ships what was logged before Finished */
        fx_init(&fx, RQUEUE_MEM_BYTES);
        fx.log_left = 3;
        s = fx_running(&fx, &d);
        fx.log_left = 0; /* what the fake shipper had went already; a restart finds more */
        arun_tick(fx.ar, s + SEC, &fx.out);
        arun_free(&fx.ar);
        fx.log_left = 5;
        fx.log_final = 0;
        memset(&out, 0, sizeof(out));
        assert_int_equal(arun_recover(&fx.cfg, 2 * T0, &out, &fx.ar), 0);
        /* the end is owed until the first Ack says how far the coordinator has the run */
        assert_int_equal(fx.log_left, 5);
        arun_session(fx.ar, true, 2 * T0, &out);
        arun_on_ack(fx.ar, 2, 2 * T0, &out);
        assert_int_equal(fx.log_left, 0);
        assert_int_equal(fx.log_final, 5);
        /* the logs say why they end there */
        assert_non_null(strstr(fx.log_cut, "restarted during the run"));
        eof = false;
        /* the 3 never acknowledged go again, then the 5 found */
        assert_int_equal(count_logs(&out, &eof), 8);
        assert_true(eof);
        outbox_done(&out.coord);
        fx_done(&fx);

        /* a job without logs: the shipper is never asked */
        d.logs = false;
        fx_init(&fx, RQUEUE_MEM_BYTES);
        fx.log_left = 5;
        s = fx_running(&fx, &d);
        arun_tick(fx.ar, s + SEC, &fx.out);
        arun_runner_done(fx.ar, s + SEC, s + SEC, &fx.out);
        assert_int_equal(fx.log_left, 5);
        fx_done(&fx);
}

/* A run that had ended (done, waiting for Acks) is taken up as it was: nothing new is made. */
static void test_recover_done(void **state)
{
        prep_def_t d = {.role = "", .grace_ns = 300 * SEC};
        fx_t fx;
        int64_t s;
        arun_out_t out = {0};

        fx_init(&fx, RQUEUE_MEM_BYTES);
        s = fx_running(&fx, &d);
        arun_runner_done(fx.ar, s + SEC, s + SEC, &fx.out);
        arun_host_done(fx.ar, 0, s + 2 * SEC, &fx.out);
        /* Prepared and Started (acknowledged), intervals 0 and 1, Finished. */
        assert_int_equal(arun_made(fx.ar), 5);
        arun_free(&fx.ar);
        assert_int_equal(arun_recover(&fx.cfg, 2 * T0, &out, &fx.ar), 0);
        assert_int_equal(arun_made(fx.ar), 5);
        assert_int_equal(arun_pending(fx.ar), 3);
        outbox_done(&out.coord);
        fx_done(&fx);
        /* Nothing to find. */
        fx_init(&fx, RQUEUE_MEM_BYTES);
        assert_int_equal(arun_recover(&fx.cfg, 2 * T0, &out, &fx.ar), -ENOENT);
}

/* A long partition beyond the memory bound: the older messages are read back from the run's
 * file when they are resent, byte for byte. */
static void test_memory_bound(void **state)
{
        prep_def_t d = {.role = "", .grace_ns = 3600 * SEC, .interval_ns = 10 * NSEC_PER_MSEC};
        fx_t fx;
        int64_t s;
        const size_t K = 2000;

        fx_init(&fx, 4096);
        s = fx_running(&fx, &d);
        arun_on_ack(fx.ar, 2, s, &fx.out);
        arun_session(fx.ar, false, s, &fx.out);
        for (size_t k = 1; k <= K; k++)
                arun_tick(fx.ar, s + (int64_t)k * 10 * MSEC, &fx.out);
        assert_int_equal(arun_pending(fx.ar), K);
        arun_session(fx.ar, true, s + 30 * SEC, &fx.out);
        arun_on_ack(fx.ar, 2, s + 30 * SEC, &fx.out);
        /* A window at a time, each Ack letting the next go. */
        for (size_t i = 0; i < K;) {
                size_t n = fx.out.coord.n;
                assert_true(n > 0 && n <= 256);
                for (size_t k = 0; k < n; k++, i++) {
                        envelope_t *e = sent(&fx, k);
                        assert_int_equal(e->interval->index, i);
                        assert_int_equal(e->interval->read->bytes, iv_bytes(i));
                        wire_free(&e);
                }
                fx_clear(&fx);
                arun_on_ack(fx.ar, 2 + i, s + 30 * SEC, &fx.out);
        }
        assert_int_equal(fx.out.coord.n, 0);
        fx_done(&fx);
}

/* --- the cluster-wide stonewall --------------------------------------------------------------- */

/* GroupReady once per group, StartGroup taken once and only for the group reported waiting,
 * GroupStarted once; the run's interval count grows to what StartGroup says, so that intervals
 * go on through the barrier's wait. */
static void test_group_barrier(void **state)
{
        static const Iofleet__Envelope__BodyCase ready[] = {BODY(GROUP_READY)},
                                                  started[] = {BODY(GROUP_STARTED)};
        prep_def_t d = {.role = "", .runtime = "3s", .grace_ns = 60 * SEC};
        fx_t fx;
        int64_t s, at;
        envelope_t *e;

        fx_init(&fx, RQUEUE_MEM_BYTES);
        s = fx_running(&fx, &d);
        assert_int_equal(arun_max_intervals(fx.ar), 3);
        /* A StartGroup before the agent said the group waits (out of order, or another run's
         * resend) starts nothing. */
        arun_on_start_group(fx.ar, 1, s + 2 * SEC, 5, NULL, s + SEC, &fx.out);
        assert_int_equal(fx.out.todo, 0);
        assert_int_equal(arun_max_intervals(fx.ar), 3);
        /* Group 1 laid out and waiting: said once. */
        arun_group_waiting(fx.ar, 1, s + 1500 * MSEC, &fx.out);
        expect_sent(&fx, 1, ready, 3);
        e = sent(&fx, 0);
        assert_int_equal(e->group_ready->group, 1);
        wire_free(&e);
        fx_clear(&fx);
        arun_group_waiting(fx.ar, 1, s + 1600 * MSEC, &fx.out);
        assert_int_equal(fx.out.coord.n, 0);
        /* A StartGroup for another group than the one waiting is left. */
        arun_on_start_group(fx.ar, 2, s + 2 * SEC, 5, NULL, s + 1700 * MSEC, &fx.out);
        assert_int_equal(fx.out.todo, 0);
        /* The instant: the runner gets it once; the run has 5 intervals now. */
        at = s + 2 * SEC;
        arun_on_start_group(fx.ar, 1, at, 5, NULL, s + 1800 * MSEC, &fx.out);
        assert_int_equal(fx.out.todo, ARUN_DO_START_GROUP);
        assert_int_equal(fx.out.group, 1);
        assert_int_equal(fx.out.group_mono, at);
        assert_int_equal(arun_max_intervals(fx.ar), 5);
        fx_clear(&fx);
        arun_on_start_group(fx.ar, 1, at + SEC, 7, NULL, s + 1900 * MSEC, &fx.out);
        assert_int_equal(fx.out.todo, 0);
        assert_int_equal(arun_max_intervals(fx.ar), 5); /* a resend changes nothing */
        /* Started: said once, and only for the group given its instant. */
        arun_group_started(fx.ar, 2, at, &fx.out);
        assert_int_equal(fx.out.coord.n, 0);
        arun_group_started(fx.ar, 1, at, &fx.out);
        expect_sent(&fx, 1, started, 4);
        fx_clear(&fx);
        arun_group_started(fx.ar, 1, at + MSEC, &fx.out);
        assert_int_equal(fx.out.coord.n, 0);
        /* Intervals go on past the planned 3: interval 2 and 3 at their boundaries, the final
         * one (4) with the workers. */
        arun_tick(fx.ar, s + 4 * SEC, &fx.out);
        assert_int_equal(fx.out.coord.n, 4); /* intervals 0..3 */
        e = sent(&fx, 3);
        assert_int_equal(e->interval->index, 3);
        assert_false(e->interval->last);
        wire_free(&e);
        fx_clear(&fx);
        arun_tick(fx.ar, s + 6 * SEC, &fx.out);
        assert_int_equal(fx.out.coord.n, 0);
        arun_runner_done(fx.ar, s + 5 * SEC, s + 5 * SEC + MSEC, &fx.out);
        e = sent(&fx, 0);
        assert_int_equal(e->interval->index, 4);
        assert_true(e->interval->last);
        wire_free(&e);
        fx_done(&fx);
}

/* Before StartGroup the planned count holds: the last planned interval waits (nothing made
 * beyond it), and the agent catches up once the count grows. */
static void test_group_wait_holds_final(void **state)
{
        prep_def_t d = {.role = "", .runtime = "2s", .grace_ns = 60 * SEC};
        fx_t fx;
        int64_t s;

        fx_init(&fx, RQUEUE_MEM_BYTES);
        s = fx_running(&fx, &d);
        arun_group_waiting(fx.ar, 1, s + SEC, &fx.out);
        fx_clear(&fx);
        arun_tick(fx.ar, s + 3 * SEC, &fx.out);
        assert_int_equal(fx.out.coord.n, 1); /* interval 0; 1 is the planned final */
        fx_clear(&fx);
        arun_on_start_group(fx.ar, 1, s + 3500 * MSEC, 6, NULL, s + 3 * SEC, &fx.out);
        assert_int_equal(fx.out.todo, ARUN_DO_START_GROUP);
        fx_clear(&fx);
        arun_tick(fx.ar, s + 3 * SEC, &fx.out);
        assert_int_equal(fx.out.coord.n, 2); /* intervals 1 and 2 */
        fx_done(&fx);
}

/* GroupReady and GroupStarted are run messages: kept until acknowledged and sent again after a
 * partition, in order with the intervals. An instant that cannot be placed fails the agent. */
static void test_group_resend_and_bad_instant(void **state)
{
        static const Iofleet__Envelope__BodyCase again[] = {BODY(GROUP_READY), BODY(INTERVAL)},
                                                  failed[] = {BODY(ERROR)};
        prep_def_t d = {.role = "", .grace_ns = 60 * SEC};
        fx_t fx;
        int64_t s;

        fx_init(&fx, RQUEUE_MEM_BYTES);
        s = fx_running(&fx, &d);
        arun_group_waiting(fx.ar, 1, s + 500 * MSEC, &fx.out);
        fx_clear(&fx);
        arun_session(fx.ar, false, s + 600 * MSEC, &fx.out);
        arun_tick(fx.ar, s + SEC, &fx.out); /* interval 0, kept while away */
        assert_int_equal(fx.out.coord.n, 0);
        arun_session(fx.ar, true, s + 2 * SEC, &fx.out);
        arun_on_ack(fx.ar, 2, s + 2 * SEC, &fx.out);
        expect_sent(&fx, 2, again, 3);
        fx_clear(&fx);
        /* Its instant cannot be placed: the agent fails and stops. */
        arun_on_start_group(fx.ar, 1, 0, 0, "no clock sample", s + 2 * SEC, &fx.out);
        expect_sent(&fx, 1, failed, 5);
        assert_true(fx.out.todo & ARUN_DO_STOP);
        assert_false(fx.out.todo & ARUN_DO_START_GROUP);
        fx_done(&fx);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_client_in_order),
        cmocka_unit_test(test_finish_held_by_rank),
            cmocka_unit_test(test_force_blocked_workers),
            cmocka_unit_test(test_timed_run_interval_count),
            cmocka_unit_test(test_layout_progress),
            cmocka_unit_test(test_layout_nothing),
            cmocka_unit_test(test_server_in_order),
            cmocka_unit_test(test_host_prepare_fails),
            cmocka_unit_test(test_runner_and_clock_failures),
            cmocka_unit_test(test_stop_before_start),
            cmocka_unit_test(test_partition_resends_in_order),
            cmocka_unit_test(test_resend_after_silence),
            cmocka_unit_test(test_resend_window),
            cmocka_unit_test(test_acks),
            cmocka_unit_test(test_duplicates),
            cmocka_unit_test(test_grace_expires),
            cmocka_unit_test(test_back_within_grace),
            cmocka_unit_test(test_no_grace),
            cmocka_unit_test(test_unknown_run),
            cmocka_unit_test(test_shutdown),
            cmocka_unit_test(test_recover_after_kill),
            cmocka_unit_test(test_recover_done),
            cmocka_unit_test(test_recover_behind_after_power_cut),
            cmocka_unit_test(test_recover_without_queue),
            cmocka_unit_test(test_logs),
            cmocka_unit_test(test_memory_bound),
            cmocka_unit_test(test_group_barrier),
            cmocka_unit_test(test_group_wait_holds_final),
            cmocka_unit_test(test_group_resend_and_bad_instant),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
