/* Unit tests for agent/run-queue.c: numbered messages kept until acknowledged, in memory up to a
 * bound and in the run's file, found again after a restart (a torn end cut off). */
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

#include "run-queue.h"
#include "util.h"

typedef struct got {
        uint64_t seq[256];
        char text[256][32];
        size_t n;
} got_t;

static int collect(void *user, uint64_t seq, const void *buf, size_t len)
{
        got_t *g = user;
        assert_true(g->n < 256);
        g->seq[g->n] = seq;
        snprintf(g->text[g->n], sizeof(g->text[0]), "%.*s", (int)len, (const char *)buf);
        g->n++;
        return 0;
}

static void make_dir(char *dir, size_t len)
{
        snprintf(dir, len, "/tmp/iofleet-test-rqueue-%d", (int)getpid());
        assert_int_equal(mkdir_p(dir, 0700), 0);
}

static void push_text(rqueue_t *q, const char *fmt, uint64_t n)
{
        char buf[32];
        int len = snprintf(buf, sizeof(buf), fmt, (unsigned long long)n);
        assert_int_equal(rqueue_push(q, buf, (size_t)len), 0);
}

static void test_numbers_acks_resends(void **state)
{
        char dir[128];
        rqueue_t *q = NULL;
        got_t g = {0};

        make_dir(dir, sizeof(dir));
        assert_int_equal(rqueue_create(dir, RQUEUE_MEM_BYTES, &q), 0);
        assert_int_equal(rqueue_next(q), 1);
        for (uint64_t i = 1; i <= 10; i++)
                push_text(q, "msg %llu", i);
        assert_int_equal(rqueue_made(q), 10);
        assert_int_equal(rqueue_pending(q), 10);
        /* Cumulative acknowledgements. */
        assert_int_equal(rqueue_ack(q, 4), 4);
        assert_int_equal(rqueue_ack(q, 2), 0);
        assert_int_equal(rqueue_acked(q), 4);
        assert_int_equal(rqueue_pending(q), 6);
        /* What is resent after 6: 7..10, in order, as they were. */
        assert_int_equal(rqueue_each(q, 6, collect, &g), 0);
        assert_int_equal(g.n, 4);
        for (size_t i = 0; i < 4; i++) {
                char want[32];
                snprintf(want, sizeof(want), "msg %zu", i + 7);
                assert_int_equal(g.seq[i], i + 7);
                assert_string_equal(g.text[i], want);
        }
        /* Everything acknowledged: the file starts over (a soak run keeps it small). */
        assert_int_equal(rqueue_ack(q, 10), 6);
        {
                char path[200];
                struct stat st;
                snprintf(path, sizeof(path), "%s/" RQUEUE_FILE, dir);
                assert_int_equal(stat(path, &st), 0);
                assert_int_equal(st.st_size, 0);
        }
        push_text(q, "msg %llu", 11);
        assert_int_equal(rqueue_made(q), 11);
        rqueue_remove(&q);
        assert_null(q);
        rmdir(dir);
}

/* Beyond the memory bound the messages live in the file only, and come back from it intact. */
static void test_memory_bound(void **state)
{
        char dir[128];
        rqueue_t *q = NULL;
        got_t g = {0};

        make_dir(dir, sizeof(dir));
        assert_int_equal(rqueue_create(dir, 64, &q), 0);
        for (uint64_t i = 1; i <= 100; i++)
                push_text(q, "interval %llu", i);
        assert_true(rqueue_mem_bytes(q) <= 64);
        assert_int_equal(rqueue_each(q, 0, collect, &g), 0);
        assert_int_equal(g.n, 100);
        assert_string_equal(g.text[99], "interval 100");
        assert_string_equal(g.text[0], "interval 1");
        rqueue_remove(&q);
        rmdir(dir);
}

/* A restarted agent finds what was not acknowledged; a torn last record (a crash mid-write) is
 * cut off, and numbering goes on after the last whole one. */
static void test_load_after_kill(void **state)
{
        char dir[128], path[200];
        rqueue_t *q = NULL;
        got_t g = {0};
        struct stat st;
        FILE *f;

        make_dir(dir, sizeof(dir));
        assert_int_equal(rqueue_create(dir, RQUEUE_MEM_BYTES, &q), 0);
        for (uint64_t i = 1; i <= 6; i++)
                push_text(q, "m%llu", i);
        rqueue_ack(q, 2);
        rqueue_close(&q); /* the agent dies: the file stays */
        snprintf(path, sizeof(path), "%s/" RQUEUE_FILE, dir);
        assert_int_equal(stat(path, &st), 0);
        assert_non_null(f = fopen(path, "r+"));
        assert_int_equal(ftruncate(fileno(f), st.st_size - 1), 0); /* m6 torn */
        fclose(f);

        assert_int_equal(rqueue_load(dir, 2, RQUEUE_MEM_BYTES, &q), 0);
        assert_int_equal(rqueue_acked(q), 2);
        assert_int_equal(rqueue_made(q), 5);
        assert_int_equal(rqueue_pending(q), 3);
        assert_int_equal(rqueue_each(q, 2, collect, &g), 0);
        assert_int_equal(g.n, 3);
        assert_string_equal(g.text[0], "m3");
        assert_string_equal(g.text[2], "m5");
        push_text(q, "m%llu", 6);
        rqueue_close(&q);
        memset(&g, 0, sizeof(g));
        assert_int_equal(rqueue_load(dir, 2, RQUEUE_MEM_BYTES, &q), 0);
        assert_int_equal(rqueue_made(q), 6);
        assert_int_equal(rqueue_each(q, 5, collect, &g), 0);
        assert_string_equal(g.text[0], "m6");
        rqueue_remove(&q);
        /* Nothing there: an error, not a queue. */
        assert_true(rqueue_load(dir, 0, RQUEUE_MEM_BYTES, &q) < 0);
        assert_null(q);
        rmdir(dir);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_numbers_acks_resends),
            cmocka_unit_test(test_memory_bound),
            cmocka_unit_test(test_load_after_kill),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
