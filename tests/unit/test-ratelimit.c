/* Tests for common/ratelimit.c: a few lines per peer and interval, a count of the rest, peers
 * apart, a bounded table, quiet peers forgotten. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ratelimit.h"
#include "util.h"

#define MIN ((int64_t)NSEC_PER_MIN)
#define SEC ((int64_t)NSEC_PER_SEC)

typedef struct report {
        char peer[64][64];
        uint64_t n[64];
        size_t count;
} report_t;

static void collect(const char *peer, uint64_t n, void *userdata)
{
        report_t *r = userdata;
        assert_true(r->count < 64);
        snprintf(r->peer[r->count], sizeof(r->peer[0]), "%s", peer);
        r->n[r->count++] = n;
}

static uint64_t reported(const report_t *r, const char *peer)
{
        for (size_t i = 0; i < r->count; i++)
                if (streq(r->peer[i], peer))
                        return r->n[i];
        return 0;
}

/* A flood of 200000 lines from one peer within a minute: 5 logged, then one count. */
static void test_flood(void **state)
{
        ratelimit_t *rl;
        report_t rep = {0};
        unsigned allowed = 0;
        uint64_t held = 99;

        assert_int_equal(ratelimit_new(MIN, 5, 16, &rl), 0);
        for (int i = 0; i < 200000; i++) {
                bool ok = ratelimit_allow(rl, "agent key 'evil'", i * 100, &held);
                allowed += ok;
                if (ok)
                        assert_int_equal(held, 0);
        }
        assert_int_equal(allowed, 5);
        assert_int_equal(ratelimit_suppressed_total(rl), 199995);
        /* Within the minute nothing is reported; at its end, one count. */
        ratelimit_flush(rl, 30 * SEC, collect, &rep);
        assert_int_equal(rep.count, 0);
        ratelimit_flush(rl, MIN, collect, &rep);
        assert_int_equal(rep.count, 1);
        assert_int_equal(reported(&rep, "agent key 'evil'"), 199995);
        /* Reported once: the next flush has nothing to say. */
        ratelimit_flush(rl, MIN + SEC, collect, &rep);
        assert_int_equal(rep.count, 1);
        ratelimit_free(&rl);
        assert_null(rl);
        ratelimit_free(&rl);
}

/* Lines held back and not yet reported ride on the next allowed line instead. */
static void test_held_note(void **state)
{
        ratelimit_t *rl;
        uint64_t held;
        char note[96];

        assert_int_equal(ratelimit_new(MIN, 2, 16, &rl), 0);
        assert_true(ratelimit_allow(rl, "p", 0, &held));
        assert_true(ratelimit_allow(rl, "p", 1, &held));
        for (int i = 0; i < 7; i++)
                assert_false(ratelimit_allow(rl, "p", 2 + i, NULL));
        /* A new interval, no flush in between: the 7 come with the first line. */
        assert_true(ratelimit_allow(rl, "p", MIN + 10, &held));
        assert_int_equal(held, 7);
        assert_non_null(strstr(ratelimit_held_note(held, note, sizeof(note)), "7 lines"));
        assert_string_equal(ratelimit_held_note(0, note, sizeof(note)), "");
        assert_true(ratelimit_allow(rl, "p", MIN + 11, &held));
        assert_int_equal(held, 0);
        ratelimit_free(&rl);
}

/* Peers are limited apart: one flooding peer does not silence another. */
static void test_peers_apart(void **state)
{
        ratelimit_t *rl;
        report_t rep = {0};

        assert_int_equal(ratelimit_new(MIN, 3, 16, &rl), 0);
        for (int i = 0; i < 1000; i++)
                ratelimit_allow(rl, "a", i, NULL);
        for (int i = 0; i < 3; i++)
                assert_true(ratelimit_allow(rl, "b", 2000 + i, NULL));
        assert_false(ratelimit_allow(rl, "b", 3000, NULL));
        assert_int_equal(ratelimit_peers(rl), 2);
        ratelimit_flush(rl, MIN + 3000, collect, &rep);
        assert_int_equal(reported(&rep, "a"), 997);
        assert_int_equal(reported(&rep, "b"), 1);
        ratelimit_free(&rl);
}

/* More peers than the table holds: the rest share one entry, so memory and lines stay bounded
 * whatever the number of addresses a flood comes from. */
static void test_many_peers(void **state)
{
        ratelimit_t *rl;
        report_t rep = {0};
        unsigned allowed = 0;

        assert_int_equal(ratelimit_new(MIN, 2, 8, &rl), 0);
        for (int i = 0; i < 10000; i++) {
                char peer[32];
                snprintf(peer, sizeof(peer), "10.0.%d.%d", i / 256, i % 256);
                allowed += ratelimit_allow(rl, peer, i, NULL);
        }
        assert_int_equal(ratelimit_peers(rl), 8);
        assert_int_equal(allowed, 8 + 2); /* each its first line; the shared entry its burst */
        ratelimit_flush(rl, MIN + 10000, collect, &rep);
        assert_int_equal(reported(&rep, RATELIMIT_OTHERS), 10000 - 8 - 2);
        ratelimit_free(&rl);
}

/* Peers quiet for a whole interval are forgotten; a peer that stays busy is not. */
static void test_forget(void **state)
{
        ratelimit_t *rl;
        report_t rep = {0};

        assert_int_equal(ratelimit_new(MIN, 1, 4, &rl), 0);
        assert_true(ratelimit_allow(rl, "quiet", 0, NULL));
        assert_true(ratelimit_allow(rl, "busy", 0, NULL));
        assert_false(ratelimit_allow(rl, "busy", SEC, NULL));
        ratelimit_flush(rl, MIN, collect, &rep);
        assert_int_equal(ratelimit_peers(rl), 1); /* busy had a count to report */
        assert_int_equal(reported(&rep, "busy"), 1);
        ratelimit_flush(rl, 2 * MIN, collect, &rep);
        assert_int_equal(ratelimit_peers(rl), 0);
        /* Forgotten means a fresh start. */
        assert_true(ratelimit_allow(rl, "busy", 2 * MIN + 1, NULL));
        assert_int_equal(ratelimit_new(0, 1, 4, &rl), -EINVAL);
        ratelimit_free(&rl);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_flood),      cmocka_unit_test(test_held_note),
            cmocka_unit_test(test_peers_apart), cmocka_unit_test(test_many_peers),
            cmocka_unit_test(test_forget),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
