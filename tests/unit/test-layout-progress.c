/* Unit tests for coordinator/layout-progress.c: layout reports of a run's agents summed, their
 * rates over the sliding window, the ETA from the slowest, and the slowest agent named. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "layout-progress.h"
#include "util.h"

#define SEC ((int64_t)NSEC_PER_SEC)
#define MIB (1ULL << 20)
#define T0 (1700000000 * SEC)

static void test_sums_rate_eta_slowest(void **state)
{
        layout_progress_t l;
        layout_figures_t f;
        layout_sum_t s;

        /* Three agents; the third is a server and never reports. */
        assert_int_equal(layout_progress_init(&l, 3, 2), 0);
        layout_progress_sum(&l, T0, &s);
        assert_int_equal(s.reported, 0);
        assert_false(s.complete);
        assert_int_equal(s.slowest, -1);
        /* First reports: totals known, no rate yet, so no ETA. */
        layout_progress_note(&l, 0, 0, 100 * MIB, T0);
        layout_progress_note(&l, 1, 50 * MIB, 100 * MIB, T0); /* half of it there already */
        layout_progress_sum(&l, T0, &s);
        assert_int_equal(s.reported, 2);
        assert_int_equal(s.all.done, 50 * MIB);
        assert_int_equal(s.all.total, 200 * MIB);
        assert_int_equal(s.all.rate, 0);
        assert_int_equal(s.all.eta_ns, -1);
        /* Unknown first, then the least done: agent 0. */
        assert_int_equal(s.slowest, 0);
        /* A second on: agent 0 at 10 MiB/s, agent 1 at 20 MiB/s. */
        layout_progress_note(&l, 0, 10 * MIB, 100 * MIB, T0 + SEC);
        layout_progress_note(&l, 1, 70 * MIB, 100 * MIB, T0 + SEC);
        layout_progress_agent(&l, 0, T0 + SEC, &f);
        assert_int_equal(f.rate, 10 * MIB);
        assert_int_equal(f.eta_ns, 9 * SEC);
        layout_progress_agent(&l, 1, T0 + SEC, &f);
        assert_int_equal(f.rate, 20 * MIB);
        assert_int_equal(f.eta_ns, 1500 * 1000000LL);
        layout_progress_sum(&l, T0 + SEC, &s);
        assert_int_equal(s.all.rate, 30 * MIB);
        assert_int_equal(s.all.done, 80 * MIB);
        /* The layout ends when its slowest agent's does. */
        assert_int_equal(s.all.eta_ns, 9 * SEC);
        assert_int_equal(s.slowest, 0);
        assert_int_equal(s.slow.done, 10 * MIB);
        /* Agent 1 finishes; agent 0 keeps 10 MiB/s for 7 s: the window (5 s) is what counts. */
        layout_progress_note(&l, 1, 100 * MIB, 100 * MIB, T0 + 2 * SEC);
        for (int k = 2; k <= 8; k++)
                layout_progress_note(&l, 0, (uint64_t)k * 10 * MIB, 100 * MIB, T0 + k * SEC);
        layout_progress_agent(&l, 1, T0 + 8 * SEC, &f);
        assert_int_equal(f.eta_ns, 0);
        layout_progress_sum(&l, T0 + 8 * SEC, &s);
        assert_int_equal(s.all.rate, 10 * MIB);
        assert_int_equal(s.all.eta_ns, 2 * SEC);
        assert_int_equal(s.slowest, 0);
        assert_false(s.complete);
        /* Silent for 5 s: it has not moved (it reports every change), so its rate falls. */
        layout_progress_agent(&l, 0, T0 + 13 * SEC, &f);
        assert_true(f.rate < 10 * MIB);
        assert_true(f.eta_ns > 2 * SEC);
        /* Done: complete, nobody slowest, ETA 0. */
        layout_progress_note(&l, 0, 100 * MIB, 100 * MIB, T0 + 14 * SEC);
        layout_progress_sum(&l, T0 + 14 * SEC, &s);
        assert_true(s.complete);
        assert_int_equal(s.slowest, -1);
        assert_int_equal(s.all.eta_ns, 0);
        assert_int_equal(s.all.done, 200 * MIB);
        layout_progress_done(&l);
}

/* An agent that starts over (a lower count, another total) gets a fresh window: no negative or
 * absurd rate; an index out of range is ignored. */
static void test_start_over_and_bounds(void **state)
{
        layout_progress_t l;
        layout_figures_t f;
        layout_sum_t s;

        assert_int_equal(layout_progress_init(&l, 1, 1), 0);
        layout_progress_note(&l, 0, 0, 10 * MIB, T0);
        layout_progress_note(&l, 0, 8 * MIB, 10 * MIB, T0 + SEC);
        layout_progress_note(&l, 0, 1 * MIB, 20 * MIB, T0 + 2 * SEC);
        layout_progress_agent(&l, 0, T0 + 2 * SEC, &f);
        assert_int_equal(f.done, 1 * MIB);
        assert_int_equal(f.total, 20 * MIB);
        assert_int_equal(f.rate, 0);
        assert_int_equal(f.eta_ns, -1);
        layout_progress_note(&l, 5, 1, 2, T0);
        layout_progress_agent(&l, 5, T0, &f);
        assert_int_equal(f.eta_ns, -1);
        layout_progress_sum(&l, T0 + 2 * SEC, &s);
        assert_int_equal(s.reported, 1);
        assert_false(s.complete);
        layout_progress_done(&l);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_sums_rate_eta_slowest),
            cmocka_unit_test(test_start_over_and_bounds),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
