/* Tests for the coordinator's count of agents each interval still waits for (coordinator/run.c,
 * civ[k].owed): losses, early ends, failures and server parts, checked against the rule. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"
#include "util.h"
#include "wire.h"

#define MAX_AGENTS 8
#define SEC ((int64_t)NSEC_PER_SEC)
#define MSEC ((int64_t)NSEC_PER_MSEC)
#define T0 ((int64_t)1700000000 * SEC)
#define RUN_ID "run-owed"
#define BODY(x) IOFLEET__ENVELOPE__BODY_##x
#define KIND(x) IOFLEET__RUN_UPDATE__KIND__KIND_##x

typedef struct fx {
        coord_agent_t agents[MAX_AGENTS];
        coord_agent_t *ap[MAX_AGENTS];
        size_t n;
        run_out_t out;
        coord_run_t *run;
        uint64_t seq;
        int64_t s; /* start instant */
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

/* The rule, written out apart from run.c: interval k waits for agent a unless a is a server,
 * lost or failed, ended before k, finished without saying which interval was its last, or
 * sent k already. */
static uint32_t expect_owed(const coord_run_t *run, size_t k)
{
        uint32_t n = 0;
        for (size_t i = 0; i < run->n_agents; i++) {
                const run_agent_t *a = &run->agents[i];
                if (a->server || a->lost || a->error[0])
                        continue;
                if (a->last_index >= 0 && (int64_t)k > a->last_index)
                        continue;
                if (a->done && a->last_index < 0)
                        continue;
                if (k < a->n_iv && a->iv[k].received)
                        continue;
                n++;
        }
        return n;
}

/* Every interval not shown yet carries the count the rule gives. */
static void check_counts(const fx_t *fx)
{
        for (size_t k = fx->run->next_emit; k < fx->run->n_civ; k++)
                if (fx->run->civ[k].owed != expect_owed(fx->run, k))
                        fail_msg("interval %zu: owed %u, the rule says %u", k, fx->run->civ[k].owed,
                                 expect_owed(fx->run, k));
}

static size_t count_shown(fx_t *fx)
{
        size_t c = 0;
        for (size_t i = 0; i < fx->out.control.n; i++) {
                envelope_t *e = NULL;
                char err[256];
                assert_int_equal(wire_decode(fx->out.control.items[i].buf,
                                             fx->out.control.items[i].len, WIRE_MAX_CONTROL_MSG, &e,
                                             err, sizeof(err)),
                                 0);
                c += e->body_case == BODY(RUN_UPDATE) && e->run_update->kind == KIND(INTERVAL);
                wire_free(&e);
        }
        return c;
}

static int deliver(fx_t *fx, size_t i, envelope_t *e, int64_t now)
{
        envelope_t *m = roundtrip(e);
        int r = run_on_message(fx->run, fx->agents[i].id, &m, now, &fx->out);
        wire_free(&m);
        return r;
}

static void fx_agents(fx_t *fx, size_t n)
{
        memset(fx, 0, sizeof(*fx));
        fx->n = n;
        for (size_t i = 0; i < n; i++) {
                coord_agent_t *a = &fx->agents[i];
                snprintf(a->id, sizeof(a->id), "7a1d%04zx-0000-4000-8000-00000000000%zu", i, i);
                snprintf(a->name, sizeof(a->name), "agent%zu", i);
                snprintf(a->hostname, sizeof(a->hostname), "host%zu", i);
                a->state = AGENT_BUSY;
                fx->ap[i] = a;
        }
}

/* A SubmitRun of one 10 s timed job at 1 s intervals; with server, part 0 is an NFS server
 * part and part 1 the clients' (part_of says which agent is which). */
static void fx_new(fx_t *fx, const uint32_t *part_of)
{
        Iofleet__JobOption o[4], *op[4];
        static const char *const kv[4][2] = {
            {"rw", "read"}, {"size", "1m"}, {"time_based", "1"}, {"runtime", "10s"}};
        Iofleet__Job job = IOFLEET__JOB__INIT, *jp = &job;
        Iofleet__Part server = IOFLEET__PART__INIT, client = IOFLEET__PART__INIT, *parts[2];
        Iofleet__SubmitRun s = IOFLEET__SUBMIT_RUN__INIT;
        envelope_t e = IOFLEET__ENVELOPE__INIT, *submit;
        char err[512] = "";

        for (size_t i = 0; i < 4; i++) {
                iofleet__job_option__init(&o[i]);
                o[i].key = (char *)kv[i][0];
                o[i].value = (char *)kv[i][1];
                op[i] = &o[i];
        }
        job.name = "timed";
        job.options = op;
        job.n_options = 4;
        if (part_of) {
                server.role = "server";
                server.selector = "role=storage";
                server.count = 1;
                client.role = "client";
                client.selector = "role=client";
                client.jobs = &jp;
                client.n_jobs = 1;
                parts[0] = &server;
                parts[1] = &client;
                s.parts = parts;
                s.n_parts = 2;
        } else {
                s.jobs = &jp;
                s.n_jobs = 1;
        }
        s.interval_ns = SEC;
        s.lead_ns = SEC;
        e.body_case = BODY(SUBMIT_RUN);
        e.submit_run = &s;
        submit = roundtrip(&e);
        if (run_new(RUN_ID, "cli", &submit, fx->ap, part_of, fx->n, T0, &fx->out, &fx->run, err,
                    sizeof(err)) < 0)
                fail_msg("run_new: %s", err);
        fx->run->seq = &fx->seq;
}

static void send_prepared(fx_t *fx, size_t i)
{
        envelope_t e = IOFLEET__ENVELOPE__INIT;
        Iofleet__Prepared p = IOFLEET__PREPARED__INIT;
        p.run_id = RUN_ID;
        e.body_case = BODY(PREPARED);
        e.prepared = &p;
        assert_int_equal(deliver(fx, i, &e, T0 + 10 * MSEC), 0);
}

/* Prepared and Started from every agent (servers: Prepared only); boxes emptied. */
static void fx_running(fx_t *fx)
{
        for (size_t i = 0; i < fx->n; i++)
                if (fx->run->agents[i].server)
                        send_prepared(fx, i);
        for (size_t i = 0; i < fx->n; i++)
                if (!fx->run->agents[i].server)
                        send_prepared(fx, i);
        assert_int_equal(fx->run->phase, RUN_STARTING);
        fx->s = fx->run->start_ns;
        for (size_t i = 0; i < fx->n; i++) {
                envelope_t e = IOFLEET__ENVELOPE__INIT;
                Iofleet__Started st = IOFLEET__STARTED__INIT;
                if (fx->run->agents[i].server)
                        continue;
                st.run_id = RUN_ID;
                st.start_ns = fx->s;
                e.body_case = BODY(STARTED);
                e.started = &st;
                assert_int_equal(deliver(fx, i, &e, fx->s + MSEC), 0);
        }
        assert_int_equal(fx->run->phase, RUN_RUNNING);
        outbox_clear(&fx->out.agents);
        outbox_clear(&fx->out.control);
}

static void send_interval(fx_t *fx, size_t i, size_t k, bool last, int64_t now)
{
        envelope_t e = IOFLEET__ENVELOPE__INIT;
        Iofleet__Interval iv = IOFLEET__INTERVAL__INIT;
        Iofleet__DirStats rd = IOFLEET__DIR_STATS__INIT;
        rd.bytes = 4096 * (i + 1);
        rd.ios = i + 1;
        iv.run_id = RUN_ID;
        iv.index = (uint32_t)k;
        iv.read = &rd;
        iv.last = last;
        e.body_case = BODY(INTERVAL);
        e.interval = &iv;
        assert_int_equal(deliver(fx, i, &e, now), 0);
        check_counts(fx);
}

static void send_finished(fx_t *fx, size_t i, const char *error, int64_t now)
{
        envelope_t e = IOFLEET__ENVELOPE__INIT;
        Iofleet__Finished f = IOFLEET__FINISHED__INIT;
        f.run_id = RUN_ID;
        f.error = (char *)(error ? error : "");
        e.body_case = BODY(FINISHED);
        e.finished = &f;
        assert_int_equal(deliver(fx, i, &e, now), 0);
        check_counts(fx);
}

static void send_error(fx_t *fx, size_t i, int64_t now)
{
        envelope_t e = IOFLEET__ENVELOPE__INIT;
        Iofleet__Error er = IOFLEET__ERROR__INIT;
        er.code = IOFLEET__ERROR_CODE__ERROR_IO;
        er.message = "disk on fire";
        er.run_id = RUN_ID;
        e.body_case = BODY(ERROR);
        e.error = &er;
        assert_int_equal(deliver(fx, i, &e, now), 0);
        check_counts(fx);
}

static void fx_done(fx_t *fx)
{
        run_free(&fx->run);
        outbox_done(&fx->out.agents);
        outbox_done(&fx->out.control);
        outbox_done(&fx->out.acks);
}

/* An agent lost while the others have sent the interval: it is shown at once, not at its
 * deadline, and the next one no longer waits for the lost agent. */
static void test_lost_mid_interval(void **state)
{
        fx_t fx;
        fx_agents(&fx, 3);
        fx_new(&fx, NULL);
        fx_running(&fx);
        send_interval(&fx, 0, 0, false, fx.s + SEC + 10 * MSEC);
        send_interval(&fx, 1, 0, false, fx.s + SEC + 20 * MSEC);
        assert_int_equal(fx.run->civ[0].owed, 1);
        assert_int_equal(count_shown(&fx), 0);
        run_agent_lost(fx.run, fx.agents[2].id, fx.s + SEC + 30 * MSEC, &fx.out);
        check_counts(&fx);
        assert_int_equal(fx.run->civ[0].owed, 0);
        /* The next tick shows it, well before its deadline. */
        assert_true(run_next_deadline(fx.run) > fx.s + SEC + 40 * MSEC);
        run_tick(fx.run, fx.s + SEC + 40 * MSEC, &fx.out);
        assert_int_equal(count_shown(&fx), 1);
        assert_int_equal(fx.run->next_emit, 1);
        send_interval(&fx, 0, 1, false, fx.s + 2 * SEC + 10 * MSEC);
        assert_int_equal(fx.run->civ[1].owed, 1);
        send_interval(&fx, 1, 1, false, fx.s + 2 * SEC + 20 * MSEC);
        assert_int_equal(count_shown(&fx), 2);
        fx_done(&fx);
}

/* An agent whose part ends early (its last interval) stops owing the later ones, also those
 * that other agents started already. */
static void test_last_index(void **state)
{
        fx_t fx;
        int64_t t = 0;
        fx_agents(&fx, 3);
        fx_new(&fx, NULL);
        fx_running(&fx);
        t = fx.s + SEC + 10 * MSEC;
        /* Agent 1 is ahead: interval 1 exists before agent 0 says 0 is its last. */
        send_interval(&fx, 1, 0, false, t);
        send_interval(&fx, 1, 1, false, t);
        assert_int_equal(fx.run->n_civ, 2);
        assert_int_equal(fx.run->civ[0].owed, 2);
        assert_int_equal(fx.run->civ[1].owed, 2);
        send_interval(&fx, 0, 0, true, t);
        assert_int_equal(fx.run->agents[0].last_index, 0);
        assert_int_equal(fx.run->civ[0].owed, 1);
        assert_int_equal(fx.run->civ[1].owed, 1);
        send_interval(&fx, 2, 0, false, t);
        assert_int_equal(count_shown(&fx), 1);
        send_interval(&fx, 2, 1, false, fx.s + 2 * SEC);
        assert_int_equal(count_shown(&fx), 2);
        /* A new interval is born waiting only for the agents still going. */
        send_interval(&fx, 2, 2, false, fx.s + 3 * SEC);
        assert_int_equal(fx.run->civ[2].owed, 1);
        /* Its Finished changes nothing for agent 0, which said where it ended. */
        send_finished(&fx, 0, NULL, fx.s + 3 * SEC);
        assert_int_equal(fx.run->civ[2].owed, 1);
        send_interval(&fx, 1, 2, true, fx.s + 3 * SEC + MSEC);
        assert_int_equal(count_shown(&fx), 3);
        fx_done(&fx);
}

/* Failures, and a Finished that does not say which interval was last, end what an agent owes. */
static void test_failed_and_finished(void **state)
{
        fx_t fx;
        int64_t t;
        fx_agents(&fx, 4);
        fx_new(&fx, NULL);
        fx_running(&fx);
        /* Interval 1 may come from 1 s on; interval 0 waits until 1.5 s. */
        t = fx.s + SEC + 10 * MSEC;
        send_interval(&fx, 0, 0, false, t);
        send_interval(&fx, 0, 1, false, t);
        assert_int_equal(fx.run->civ[0].owed, 3);
        assert_int_equal(fx.run->civ[1].owed, 3);
        send_error(&fx, 1, t);
        assert_int_equal(fx.run->civ[0].owed, 2);
        assert_int_equal(fx.run->civ[1].owed, 2);
        send_finished(&fx, 2, NULL, t);
        assert_int_equal(fx.run->civ[0].owed, 1);
        send_finished(&fx, 3, "out of space", t);
        assert_int_equal(fx.run->civ[0].owed, 0);
        assert_int_equal(fx.run->civ[1].owed, 0);
        /* Nobody else owes them: the next tick shows both, before their deadlines. */
        run_tick(fx.run, t + MSEC, &fx.out);
        assert_int_equal(count_shown(&fx), 2);
        assert_int_equal(fx.run->next_emit, 2);
        fx_done(&fx);
}

/* A plan's server part never owes an interval; the clients' intervals wait for the clients. */
static void test_server_never_owes(void **state)
{
        static const uint32_t part_of[3] = {0, 1, 1};
        fx_t fx;
        fx_agents(&fx, 3);
        fx_new(&fx, part_of);
        assert_true(fx.run->agents[0].server);
        fx_running(&fx);
        send_interval(&fx, 1, 0, false, fx.s + SEC + 10 * MSEC);
        assert_int_equal(fx.run->civ[0].owed, 1);
        assert_int_equal(count_shown(&fx), 0);
        send_interval(&fx, 2, 0, false, fx.s + SEC + 20 * MSEC);
        assert_int_equal(count_shown(&fx), 1);
        fx_done(&fx);
}

/* Agents that miss the stop deadline are marked lost; the intervals left are shown. */
static void test_finish_deadline(void **state)
{
        fx_t fx;
        fx_agents(&fx, 2);
        fx_new(&fx, NULL);
        fx_running(&fx);
        send_interval(&fx, 0, 0, false, fx.s + SEC);
        run_cancel(fx.run, IOFLEET__ERROR_CODE__ERROR_CANCELLED, "test", fx.s + SEC, &fx.out);
        check_counts(&fx);
        assert_int_equal(fx.run->civ[0].owed, 1);
        run_tick(fx.run, fx.run->finish_deadline_ns, &fx.out);
        assert_true(run_done(fx.run));
        assert_int_equal(fx.run->next_emit, 1);
        fx_done(&fx);
}

/* Random traffic from 8 agents (intervals in and out of order, last intervals, failures,
 * losses, finishes) with the count checked against the rule after every step. */
static void test_random(void **state)
{
        unsigned seed = 99;
        for (int round = 0; round < 40; round++) {
                fx_t fx;
                int64_t now;
                fx_agents(&fx, MAX_AGENTS);
                fx_new(&fx, NULL);
                fx_running(&fx);
                now = fx.s;
                for (int step = 0; step < 300 && !run_done(fx.run); step++) {
                        size_t i = (size_t)rand_r(&seed) % MAX_AGENTS;
                        const run_agent_t *a = &fx.run->agents[i];
                        unsigned op = (unsigned)rand_r(&seed) % 100;
                        now += (rand_r(&seed) % 40) * MSEC;
                        if (a->lost || a->done) {
                                run_tick(fx.run, now, &fx.out);
                                check_counts(&fx);
                                continue;
                        }
                        if (op < 85) {
                                int64_t top = (now - fx.s) / SEC;
                                size_t k = top > 0 ? (size_t)(rand_r(&seed) % (top + 1)) : 0;
                                if (top >= 10)
                                        k = 9;
                                if (now <= fx.s)
                                        continue;
                                send_interval(&fx, i, k, op < 3, now);
                        } else if (op < 89) {
                                run_agent_lost(fx.run, fx.agents[i].id, now, &fx.out);
                                check_counts(&fx);
                        } else if (op < 92) {
                                send_error(&fx, i, now);
                        } else if (op < 95) {
                                send_finished(&fx, i, op == 94 ? "failed" : NULL, now);
                        } else {
                                run_tick(fx.run, now, &fx.out);
                                check_counts(&fx);
                        }
                }
                fx_done(&fx);
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_lost_mid_interval),   cmocka_unit_test(test_last_index),
            cmocka_unit_test(test_failed_and_finished), cmocka_unit_test(test_server_never_owes),
            cmocka_unit_test(test_finish_deadline),     cmocka_unit_test(test_random),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
