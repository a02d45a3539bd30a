/* Tests for agent/pacing.c with a made-up clock: thinktime's triggers (blocks completed or
 * issued, I/O time), the Poisson gaps' mean and spread, rate_min's settle time and cycles, and
 * latency_target's search of the queue depth as fio 3.33's lat_target_* functions do it. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "options.h"
#include "unit-job.h"
#include "pacing.h"
#include "util.h"

static void test_thinktime(void **state)
{
        job_spec_t j;
        pacing_t p;
        (void)state;

        job_with(&j, "thinktime", "100", NULL);
        assert_true(pacing_needed(&j));
        pacing_init(&p, &j, 1, 1, 0);
        assert_false(pacing_think_due(&p, 0, 0, 0));
        assert_true(pacing_think_due(&p, 1, 1, 0)); /* after every block by default */
        pacing_think_done(&p, 1, 1, 10);
        assert_false(pacing_think_due(&p, 1, 2, 10));
        job_spec_done(&j);

        /* every 8 completions, or (issue) every 8 submissions */
        job_with(&j, "thinktime", "100", "thinktime_blocks", "8", NULL);
        pacing_init(&p, &j, 16, 1, 0);
        assert_false(pacing_think_due(&p, 7, 16, 0));
        assert_true(pacing_think_due(&p, 8, 16, 0));
        job_spec_done(&j);
        job_with(&j, "thinktime", "100", "thinktime_blocks", "8", "thinktime_blocks_type", "issue",
                 NULL);
        pacing_init(&p, &j, 16, 1, 0);
        assert_true(pacing_think_due(&p, 0, 8, 0));
        job_spec_done(&j);

        /* thinktime_iotime alone: only the time counts (fio skips the block count then) */
        job_with(&j, "thinktime", "1s", "thinktime_iotime", "9s", NULL);
        pacing_init(&p, &j, 1, 1, 0);
        assert_false(pacing_think_due(&p, 1000, 1000, 8 * (int64_t)NSEC_PER_SEC));
        assert_true(pacing_think_due(&p, 1000, 1000, 9 * (int64_t)NSEC_PER_SEC));
        pacing_think_done(&p, 1000, 1000, 10 * (int64_t)NSEC_PER_SEC);
        assert_false(pacing_think_due(&p, 5000, 5000, 18 * (int64_t)NSEC_PER_SEC));
        job_spec_done(&j);
        /* both: whichever comes first */
        job_with(&j, "thinktime", "1s", "thinktime_iotime", "9s", "thinktime_blocks", "100", NULL);
        pacing_init(&p, &j, 1, 1, 0);
        assert_true(pacing_think_due(&p, 100, 100, 1));
        job_spec_done(&j);
}

/* rate_iops=1000 as a Poisson process: gaps average 1 ms with an exponential's spread
 * (standard deviation equal to the mean). */
static void test_poisson(void **state)
{
        job_spec_t j;
        pacing_t p;
        double sum = 0, sq = 0;
        const int n = 200000;
        int64_t prev;
        (void)state;

        job_with(&j, "rate_iops", "1000,", "rate_process", "poisson", NULL);
        pacing_init(&p, &j, 1, 7, 0);
        assert_true(p.poisson);
        prev = pacing_poisson_due(&p, DDIR_READ);
        for (int i = 0; i < n; i++) {
                pacing_poisson_next(&p, DDIR_READ);
                double gap = (double)(pacing_poisson_due(&p, DDIR_READ) - prev);
                prev = pacing_poisson_due(&p, DDIR_READ);
                sum += gap;
                sq += gap * gap;
        }
        {
                double mean = sum / n, sd = sqrt(sq / n - mean * mean);
                assert_true(fabs(mean / 1e6 - 1) < 0.02);
                assert_true(fabs(sd / mean - 1) < 0.03);
        }
        /* the write direction is unpaced */
        assert_int_equal(pacing_poisson_due(&p, DDIR_WRITE), INT64_MIN);
        job_spec_done(&j);
}

static void test_min_rate(void **state)
{
        const int64_t s = (int64_t)NSEC_PER_SEC;
        job_spec_t j;
        pacing_t p;
        uint64_t bytes[2] = {0}, ios[2] = {0};
        char err[256];
        (void)state;

        job_with(&j, "rate_min", "1m", "rate_cycle", "500", NULL);
        pacing_init(&p, &j, 1, 1, 0);
        /* the first 2 s are not checked */
        bytes[0] = 10;
        assert_int_equal(pacing_check_min(&p, bytes, ios, s, err, sizeof(err)), 0);
        /* the first check sets the base, each 500 ms after compares */
        bytes[0] = 1 << 20;
        assert_int_equal(pacing_check_min(&p, bytes, ios, 2 * s, err, sizeof(err)), 0);
        bytes[0] += 600 << 10; /* 1.2 MiB/s over 500 ms */
        assert_int_equal(pacing_check_min(&p, bytes, ios, 2 * s + s / 2, err, sizeof(err)), 0);
        bytes[0] += 100 << 10; /* 200 KiB/s */
        assert_int_equal(pacing_check_min(&p, bytes, ios, 2 * s + s / 4 * 3, err, sizeof(err)),
                         0); /* not a cycle yet */
        assert_int_equal(pacing_check_min(&p, bytes, ios, 3 * s, err, sizeof(err)), -EIO);
        assert_non_null(strstr(err, "rate_min=1048576 B/s of reads not met"));
        job_spec_done(&j);

        job_with(&j, "rate_iops_min", ",100", NULL);
        pacing_init(&p, &j, 1, 1, 0);
        ios[1] = 1000;
        assert_int_equal(pacing_check_min(&p, bytes, ios, 2 * s, err, sizeof(err)), 0);
        ios[1] += 150;
        assert_int_equal(pacing_check_min(&p, bytes, ios, 3 * s, err, sizeof(err)), 0);
        ios[1] += 50;
        assert_int_equal(pacing_check_min(&p, bytes, ios, 4 * s, err, sizeof(err)), -EIO);
        assert_non_null(strstr(err, "rate_iops_min=100 of writes not met: 50 IOPS"));
        job_spec_done(&j);
}

/* latency_target at percentile 100, iodepth 16: doubles the depth while windows are met, bisects
 * down on a miss, settles, then one final window ends the job; a miss at depth 1 is fatal. */
static void test_latency_target(void **state)
{
        const int64_t w = 100 * (int64_t)NSEC_PER_MSEC;
        job_spec_t j;
        pacing_t p;
        int64_t now = 0;
        (void)state;

        job_with(&j, "latency_target", "1ms", "latency_window", "100ms", NULL);
        pacing_init(&p, &j, 16, 1, 0);
        assert_int_equal(p.qd, 1);
        /* met at 1, 2, 4, 8 */
        for (unsigned want = 2; want <= 16; want *= 2) {
                assert_int_equal(pacing_lat_sample(&p, 500000, now), PACING_LAT_OK);
                assert_int_equal(pacing_lat_window(&p, now + w / 2), PACING_WIN_NONE);
                now += w;
                assert_int_equal(pacing_lat_window(&p, now), PACING_WIN_CHANGED);
                assert_int_equal(p.qd, want);
        }
        /* a slow I/O at 16: half way back towards the last depth that met it (8) */
        assert_int_equal(pacing_lat_sample(&p, 2000000, now), PACING_LAT_DOWN);
        assert_int_equal(p.qd, 12);
        /* met at 12: bisect up towards 16, and so on until the depth stops moving */
        for (int i = 0; i < 20; i++) {
                int r;
                pacing_lat_sample(&p, 500000, now);
                now += w;
                r = pacing_lat_window(&p, now);
                if (r == PACING_WIN_FINAL)
                        break;
        }
        assert_true(p.final_run);
        assert_true(p.qd >= 12 && p.qd <= 16);
        pacing_lat_sample(&p, 500000, now);
        now += w;
        assert_int_equal(pacing_lat_window(&p, now), PACING_WIN_DONE);
        job_spec_done(&j);

        job_with(&j, "latency_target", "1ms", NULL);
        pacing_init(&p, &j, 4, 1, 0);
        assert_int_equal(pacing_lat_sample(&p, 2000000, 0), PACING_LAT_FATAL);
        job_spec_done(&j);

        /* percentile 90: a window with 5% slow I/Os is met, one with 20% is not */
        job_with(&j, "latency_target", "1ms", "latency_window", "100ms", "latency_percentile", "90",
                 NULL);
        pacing_init(&p, &j, 8, 1, 0);
        now = 0;
        for (int i = 0; i < 100; i++)
                pacing_lat_sample(&p, i < 5 ? 2000000 : 500000, now);
        now += w;
        assert_int_equal(pacing_lat_window(&p, now), PACING_WIN_CHANGED);
        assert_int_equal(p.qd, 2);
        for (int i = 0; i < 100; i++)
                pacing_lat_sample(&p, i < 20 ? 2000000 : 500000, now);
        now += w;
        assert_int_equal(pacing_lat_window(&p, now), PACING_WIN_CHANGED);
        assert_int_equal(p.qd, 1);
        job_spec_done(&j);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_thinktime),
            cmocka_unit_test(test_poisson),
            cmocka_unit_test(test_min_rate),
            cmocka_unit_test(test_latency_target),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
