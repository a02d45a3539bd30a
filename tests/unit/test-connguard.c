/* Tests for coordinator/connguard.c: how descriptors are shared out, and on real loopback sockets
 * that accepting pauses at the limit (a pending connection does not complete) and resumes when
 * connections go, that handshake timeouts are counted, and that a full ipc socket is flagged. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <zmq.h>

#include <cmocka.h>

#include "connguard.h"
#include "util.h"

static void test_budget(void **state)
{
        static const unsigned limits[] = {64, 256, 1024, 4096, 20000, 65536, 1048576};
        connguard_budget_t b;

        for (size_t i = 0; i < ELEMENTSOF(limits); i++) {
                unsigned in_use = 24, avail = limits[i] - in_use;
                connguard_budget(limits[i], in_use, &b);
                assert_int_equal(b.nofile, limits[i]);
                assert_true(b.agents_max >= 4);
                assert_true(b.agents_resume < b.agents_max);
                assert_true(b.metrics_max >= 4 && b.metrics_max <= 256);
                assert_true(b.control_max >= 4 && b.control_max <= 256);
                assert_true(b.backlog >= 4 && b.backlog <= 2048);
                assert_true(b.enroll_max >= 4 && b.enroll_max <= 64);
                assert_true(b.reserve >= 32);
                /* Everything fits, except on a limit too small for anything. */
                if (avail >= 128)
                        assert_true((uint64_t)b.agents_max + b.metrics_max + b.control_max +
                                        b.enroll_max + b.backlog + b.reserve <=
                                    avail);
        }
        /* The limits: room for real agents, and for the flood's overshoot. */
        connguard_budget(256, 24, &b);
        assert_true(b.agents_max >= 100);
        assert_true(256 - 24 - b.agents_max >= 60);
        connguard_budget(65536, 24, &b);
        assert_true(b.agents_max >= 60000);
        /* Thousands of agents connecting at once are queued, not dropped to retry seconds later
         * (9 500 agents join within 5 s at a limit of 20 000). */
        connguard_budget(20000, 24, &b);
        assert_true(b.backlog >= 1024);
        /* Nothing left at all: still a working (tiny) budget. */
        connguard_budget(16, 40, &b);
        assert_int_equal(b.agents_max, 4);
}

static int64_t ms_now(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int raw_connect(int port)
{
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
        int s = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        assert_true(s >= 0);
        inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
        connect(s, (struct sockaddr *)&a, sizeof(a));
        return s;
}

/* Whether s completed its TCP handshake within ms. */
static bool connected(int s, int ms)
{
        struct pollfd p = {s, POLLOUT, 0};
        int e = 0;
        socklen_t l = sizeof(e);
        return poll(&p, 1, ms) == 1 && getsockopt(s, SOL_SOCKET, SO_ERROR, &e, &l) == 0 && e == 0;
}

/* Waits (up to 10 s, a bound for a loaded host, not an expectation) until cond(stats). */
static bool wait_for(connguard_t *g, bool (*cond)(const connguard_stats_t *, unsigned),
                     unsigned arg)
{
        connguard_stats_t st;
        for (int64_t until = ms_now() + 10000; ms_now() < until; usleep(10000)) {
                connguard_stats(g, &st);
                if (cond(&st, arg))
                        return true;
        }
        return false;
}

static bool is_paused(const connguard_stats_t *s, unsigned n)
{
        return s->paused && s->agents_open >= n;
}

static bool is_resumed(const connguard_stats_t *s, unsigned n)
{
        return !s->paused && s->handshake_failed >= n;
}

static bool has_accepted(const connguard_stats_t *s, unsigned n)
{
        return s->accepted >= n;
}

/* The order the coordinator stops in: the guard leaves the listener alone, the sockets close,
 * then the thread stops and the context ends. */
static void stop_all(connguard_t **g, void *ctx, void *agents, void *control)
{
        connguard_quiesce(*g);
        zmq_close(agents);
        zmq_close(control);
        connguard_free(g);
        assert_null(*g);
        zmq_ctx_term(ctx);
}

static void test_pause_resume(void **state)
{
        connguard_budget_t b = {.nofile = 1024, .agents_max = 8, .agents_resume = 6,
                                .control_max = 4, .metrics_max = 4, .backlog = 4, .reserve = 32};
        void *ctx = zmq_ctx_new(), *agents = zmq_socket(ctx, ZMQ_ROUTER);
        void *control = zmq_socket(ctx, ZMQ_ROUTER);
        connguard_t *g = NULL;
        connguard_stats_t st;
        char ep[128];
        size_t len = sizeof(ep);
        int fds[8], late, port, ivl = 1000, linger = 0;

        zmq_setsockopt(agents, ZMQ_HANDSHAKE_IVL, &ivl, sizeof(ivl));
        zmq_setsockopt(agents, ZMQ_LINGER, &linger, sizeof(linger));
        zmq_setsockopt(control, ZMQ_LINGER, &linger, sizeof(linger));
        assert_int_equal(connguard_new(ctx, agents, control, NULL, &b, &g), 0);
        assert_int_equal(zmq_bind(agents, "tcp://127.0.0.1:*"), 0);
        assert_int_equal(zmq_bind(control, "inproc://test-control"), 0);
        assert_int_equal(connguard_start(g), 0);
        zmq_getsockopt(agents, ZMQ_LAST_ENDPOINT, ep, &len);
        port = atoi(strrchr(ep, ':') + 1);

        /* Eight connections that never speak: accepting pauses at the eighth. */
        for (int i = 0; i < 8; i++)
                fds[i] = raw_connect(port);
        assert_true(wait_for(g, is_paused, 8));
        /* A ninth connection request goes unanswered while paused. */
        late = raw_connect(port);
        assert_false(connected(late, 300));
        connguard_stats(g, &st);
        assert_int_equal(st.accepted, 8);
        assert_int_equal(st.pauses, 1);

        /* Their handshakes time out, they are closed, accepting resumes and the ninth gets in
         * (TCP retries its SYN after a second). */
        assert_true(wait_for(g, is_resumed, 3));
        assert_true(connected(late, 10000));
        assert_true(wait_for(g, has_accepted, 9));
        connguard_stats(g, &st);
        assert_int_equal(st.accepted, 9);
        assert_int_equal(st.accept_failed, 0);

        for (int i = 0; i < 8; i++)
                close(fds[i]);
        close(late);
        stop_all(&g, ctx, agents, control);
}

/* An ipc socket cannot be paused with a filter: at its limit the caller is told to re-bind. */
static void test_ipc_full(void **state)
{
        connguard_budget_t b = {.nofile = 1024, .agents_max = 100, .agents_resume = 75,
                                .control_max = 3, .metrics_max = 4, .backlog = 4, .reserve = 32};
        void *ctx = zmq_ctx_new(), *agents = zmq_socket(ctx, ZMQ_ROUTER);
        void *control = zmq_socket(ctx, ZMQ_ROUTER), *clients[3];
        char path[64], ep[80];
        connguard_t *g = NULL;
        connguard_stats_t st;
        bool full = false;
        int linger = 0;

        snprintf(path, sizeof(path), "/tmp/test-connguard-%d.sock", (int)getpid());
        snprintf(ep, sizeof(ep), "ipc://%s", path);
        zmq_setsockopt(agents, ZMQ_LINGER, &linger, sizeof(linger));
        zmq_setsockopt(control, ZMQ_LINGER, &linger, sizeof(linger));
        assert_int_equal(connguard_new(ctx, agents, control, NULL, &b, &g), 0);
        assert_int_equal(zmq_bind(control, ep), 0);
        assert_int_equal(connguard_start(g), 0);
        assert_false(connguard_control_full(g));
        for (int i = 0; i < 3; i++) {
                clients[i] = zmq_socket(ctx, ZMQ_DEALER);
                zmq_setsockopt(clients[i], ZMQ_LINGER, &linger, sizeof(linger));
                assert_int_equal(zmq_connect(clients[i], ep), 0);
        }
        for (int64_t until = ms_now() + 10000; !full && ms_now() < until; usleep(10000))
                full = connguard_control_full(g);
        assert_true(full);
        /* Told once. */
        assert_false(connguard_control_full(g));
        connguard_stats(g, &st);
        assert_int_equal(st.control_open, 3);
        connguard_control_rebound(g);
        connguard_stats(g, &st);
        assert_int_equal(st.control_rebinds, 1);

        for (int i = 0; i < 3; i++)
                zmq_close(clients[i]);
        stop_all(&g, ctx, agents, control);
        unlink(path);
}

static void test_raise_nofile(void **state)
{
        unsigned n = 0;
        int in_use;
        assert_int_equal(connguard_raise_nofile(&n), 0);
        assert_true(n >= 64);
        in_use = connguard_fds_in_use();
        assert_true(in_use >= 3 && (unsigned)in_use < n);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_budget),
            cmocka_unit_test(test_pause_resume),
            cmocka_unit_test(test_ipc_full),
            cmocka_unit_test(test_raise_nofile),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
