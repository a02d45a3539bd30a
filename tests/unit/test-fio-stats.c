/* Tests for common/fio-stats.c and cli/fio-units.c against fio 3.33's own figures: the depth and
 * batch buckets of io_u.c, stat_calc_dist()'s and stat_calc_lat()'s floors, usr/sys_cpu, the
 * Welford series and group_reporting's sum, the bwavgtime sampler, and num2str()'s strings as
 * fio prints them on this machine. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "fio-stats.h"
#include "fio-units.h"
#include "util.h"

static void test_depth_buckets(void **state)
{
        /* io_u_mark_depth(): 1 | 2-3 | 4-7 | 8-15 | 16-31 | 32-63 | >=64 */
        static const struct {
                unsigned depth, bucket;
        } d[] = {{1, 0},  {2, 1},  {3, 1},  {4, 2},  {7, 2},  {8, 3},   {15, 3},
                 {16, 4}, {31, 4}, {32, 5}, {63, 5}, {64, 6}, {512, 6}, {65536, 6}};
        /* __io_u_mark_map(): 0 | 1-4 | 5-8 | 9-16 | 17-32 | 33-64 | >64 */
        static const struct {
                unsigned nr, bucket;
        } b[] = {{0, 0},  {1, 1},  {4, 1},  {5, 2},  {8, 2},  {9, 3},   {16, 3},
                 {17, 4}, {32, 4}, {33, 5}, {64, 5}, {65, 6}, {1000, 6}};
        (void)state;

        for (size_t i = 0; i < ELEMENTSOF(d); i++)
                assert_int_equal(fio_depth_bucket(d[i].depth), d[i].bucket);
        for (size_t i = 0; i < ELEMENTSOF(b); i++)
                assert_int_equal(fio_batch_bucket(b[i].nr), b[i].bucket);
}

static void test_shares(void **state)
{
        /* fio's first run here: 1 I/O at depth 1, 1 at depth 2, 2046 at depth 4 of 2048 issued:
         * "1=0.1%, 2=0.1%, 4=99.9%" (the floor of 0.1 for a non-empty bucket) */
        uint64_t map[FIO_DEPTH_BUCKETS] = {1, 1, 2046, 0, 0, 0, 0};
        double pct[FIO_DEPTH_BUCKETS];
        (void)state;

        fio_depth_shares(map, 2048, pct);
        assert_true(pct[0] == 0.1 && pct[1] == 0.1);
        assert_true(fabs(pct[2] - 99.90234375) < 1e-9);
        assert_true(pct[3] == 0 && pct[6] == 0);
        fio_depth_shares(map, 0, pct);
        for (int i = 0; i < FIO_DEPTH_BUCKETS; i++)
                assert_true(pct[i] == 0);
        /* latency shares: floor 0.01 */
        assert_true(fio_lat_share(1, 100000) == 0.01);
        assert_true(fio_lat_share(0, 100000) == 0);
        assert_true(fio_lat_share(25, 100) == 25.0);
        assert_true(fio_lat_share(3, 0) == 0);
        /* usr_cpu = usr_time * 100 / total_run_time */
        assert_true(fabs(fio_cpu_percent(102 * NSEC_PER_MSEC, 220 * NSEC_PER_MSEC) - 46.363636) <
                    1e-5);
        assert_true(fio_cpu_percent(5, 0) == 0);
}

static void test_series(void **state)
{
        fio_sstat_t a = {0}, b = {0}, sum = {0};
        static const uint64_t va[] = {3968, 4336}, vb[] = {992, 1084, 1000};
        (void)state;

        for (size_t i = 0; i < ELEMENTSOF(va); i++)
                fio_sstat_add(&a, va[i]);
        /* fio's first run here: "min= 3968, max= 4336, avg=4152.00, stdev=260.22, samples=2" */
        assert_int_equal(a.min, 3968);
        assert_int_equal(a.max, 4336);
        assert_int_equal(a.samples, 2);
        assert_true(fabs(a.mean - 4152.0) < 1e-9);
        assert_true(fabs(fio_sstat_dev(&a) - 260.22) < 0.005);
        for (size_t i = 0; i < ELEMENTSOF(vb); i++)
                fio_sstat_add(&b, vb[i]);
        assert_int_equal(b.min, 992);
        assert_true(fabs(b.mean - 1025.333333) < 1e-5);
        /* group_reporting: min, max, mean, S and samples add up */
        fio_sstat_sum(&sum, &a);
        fio_sstat_sum(&sum, &b);
        assert_int_equal(sum.min, 3968 + 992);
        assert_int_equal(sum.max, 4336 + 1084);
        assert_int_equal(sum.samples, 5);
        assert_true(fabs(sum.mean - (4152.0 + b.mean)) < 1e-9);
        assert_true(fabs(sum.S - (a.S + b.S)) < 1e-6);
        /* an empty series adds nothing; one sample has no deviation */
        fio_sstat_sum(&sum, &(fio_sstat_t){0});
        assert_int_equal(sum.samples, 5);
        memset(&a, 0, sizeof(a));
        fio_sstat_add(&a, 7);
        assert_true(fio_sstat_dev(&a) == 0);
}

static void test_job_stats_add(void **state)
{
        fio_job_stats_t a = {
            .depth = {1, 2}, .total_submit = 3, .usr_ns = 10, .run_ns = 100, .latency_depth = 4};
        fio_job_stats_t b = {
            .depth = {0, 1, 5}, .complete = {0, 9}, .total_complete = 9, .ctx = 7, .run_ns = 50};
        (void)state;

        a.bw[0].samples = 1;
        a.bw[0].min = a.bw[0].max = 100;
        a.bw[0].mean = 100;
        fio_job_stats_add(&b, &a);
        assert_int_equal(b.depth[0], 1);
        assert_int_equal(b.depth[1], 3);
        assert_int_equal(b.depth[2], 5);
        assert_int_equal(b.complete[1], 9);
        assert_int_equal(b.total_submit, 3);
        assert_int_equal(b.ctx, 7);
        assert_int_equal(b.run_ns, 150);
        assert_int_equal(b.bw[0].samples, 1);
        assert_int_equal(b.latency_depth, 4); /* the last one that has one, as fio's */
}

static void test_sampler(void **state)
{
        const uint64_t ms = NSEC_PER_MSEC, zero[2] = {0, 0};
        fio_sampler_t sp;
        fio_sstat_t bw[2] = {0};
        uint64_t c[2] = {0, 0};
        (void)state;

        fio_sampler_start(&sp, 500 * ms, 1000 * ms, zero);
        assert_false(fio_sampler_due(&sp, 1498 * ms));
        assert_true(fio_sampler_due(&sp, 1499 * ms)); /* fio's millisecond of slack */
        /* 1 MiB read in the first 500 ms: 2048 KiB/s; nothing written: no write sample */
        c[0] = 1 << 20;
        assert_true(fio_sampler_take(&sp, 1500 * ms, c, 1024, bw));
        assert_int_equal(bw[0].samples, 1);
        assert_int_equal(bw[0].min, 2048);
        assert_int_equal(bw[1].samples, 0);
        /* taken late (at 2100 ms): over the 600 ms since, the next boundary still at 2500 */
        c[0] += 600 * 1024;
        c[1] = 300 * 1024;
        assert_false(fio_sampler_take(&sp, 1900 * ms, c, 1024, bw));
        assert_true(fio_sampler_take(&sp, 2100 * ms, c, 1024, bw));
        assert_int_equal(bw[0].samples, 2);
        assert_int_equal(bw[0].max, 2048);
        assert_int_equal(bw[0].min, 1000);
        assert_int_equal(bw[1].min, 500);
        assert_false(fio_sampler_due(&sp, 2400 * ms));
        assert_true(fio_sampler_due(&sp, 2499 * ms));
        /* a worker stuck from 2000 to 5500 ms: one sample over the whole 3.5 s, the boundaries
         * it missed skipped rather than caught up with */
        c[0] += 3500 * 1024;
        assert_true(fio_sampler_take(&sp, 5500 * ms, c, 1024, bw));
        assert_int_equal(bw[0].samples, 3);
        assert_int_equal(bw[0].min, 1000);
        assert_false(fio_sampler_due(&sp, 5900 * ms));
        assert_true(fio_sampler_due(&sp, 5999 * ms));
        /* IO/s: no divisor */
        memset(bw, 0, sizeof(bw));
        fio_sampler_start(&sp, 1000 * ms, 0, zero);
        c[0] = 250;
        c[1] = 0;
        assert_true(fio_sampler_take(&sp, 1000 * ms, c, 1, bw));
        assert_int_equal(bw[0].min, 250);
}

static void test_units(void **state)
{
        /* fio 3.33's normal output on this machine next to its JSON (io_bytes * 1000 /
         * runtime, total_ios * 1000 / runtime): the IOPS= and BW=(..)(..) of six runs. */
        static const struct {
                uint64_t num;
                int sig;
                bool pow2;
                fio_unit_t unit;
                const char *want;
        } u[] = {
            /* rw=read bs=4k, 1 s: "IOPS=192k, BW=751MiB/s (788MB/s)(752MiB/1001msec)" */
            {192320, 4, false, FIO_UNIT_NONE, "192k"},
            {787745502, 4, true, FIO_UNIT_BYTE_PER_SEC, "751MiB/s"},
            {787745502, 4, false, FIO_UNIT_BYTE_PER_SEC, "788MB/s"},
            {788533248, 4, true, FIO_UNIT_BYTE, "752MiB"},
            /* rw=write bs=64k size=8m: "IOPS=32.0k, BW=2000MiB/s (2097MB/s)(8192KiB/4msec)" */
            {32000, 4, false, FIO_UNIT_NONE, "32.0k"},
            {2097152000, 4, true, FIO_UNIT_BYTE_PER_SEC, "2000MiB/s"},
            {2097152000, 4, false, FIO_UNIT_BYTE_PER_SEC, "2097MB/s"},
            {8388608, 4, true, FIO_UNIT_BYTE, "8192KiB"},
            /* null engine bs=1m: "IOPS=3213k, BW=3137GiB/s (3369GB/s)(3141GiB/1001msec)" */
            {3212798, 4, false, FIO_UNIT_NONE, "3213k"},
            {3368863087248, 4, true, FIO_UNIT_BYTE_PER_SEC, "3137GiB/s"},
            {3368863087248, 4, false, FIO_UNIT_BYTE_PER_SEC, "3369GB/s"},
            {3372231950336, 4, true, FIO_UNIT_BYTE, "3141GiB"},
            /* rate_iops=1000: "IOPS=999, BW=3996KiB/s (4092kB/s)(4000KiB/1001msec)" */
            {999, 4, false, FIO_UNIT_NONE, "999"},
            {4091908, 4, true, FIO_UNIT_BYTE_PER_SEC, "3996KiB/s"},
            {4091908, 4, false, FIO_UNIT_BYTE_PER_SEC, "4092kB/s"},
            {4096000, 4, true, FIO_UNIT_BYTE, "4000KiB"},
            /* significant_figures=6: "IOPS=167514, BW=670058KiB/s (686139kB/s)(672068KiB/..)" */
            {167514, 6, false, FIO_UNIT_NONE, "167514"},
            {686139214, 6, true, FIO_UNIT_BYTE_PER_SEC, "670058KiB/s"},
            {686139214, 6, false, FIO_UNIT_BYTE_PER_SEC, "686139kB/s"},
            {688197632, 6, true, FIO_UNIT_BYTE, "672068KiB"},
            /* kb_base=1000 unit_base=1: "IOPS=180k, BW=5891Mbit/s (5618Mibit/s)(739MB/..)" */
            {179765, 4, false, FIO_UNIT_NONE, "180k"},
            {736320319, 4, false, FIO_UNIT_BIT_PER_SEC, "5891Mbit/s"},
            {736320319, 4, true, FIO_UNIT_BIT_PER_SEC, "5618Mibit/s"},
            {738529280, 4, false, FIO_UNIT_BYTE, "739MB"},
            /* display_lat()'s num2str(max, 6, ...) wrote "max=2088.8k": any of 2088750..2088849 */
            {2088750, 6, false, FIO_UNIT_NONE, "2088.8k"},
            {2088849, 6, false, FIO_UNIT_NONE, "2088.8k"},
        };
        char buf[64];
        (void)state;

        for (size_t i = 0; i < ELEMENTSOF(u); i++) {
                fio_units_str(buf, sizeof(buf), u[i].num, u[i].sig, u[i].pow2, u[i].unit);
                if (strcmp(buf, u[i].want))
                        fail_msg("%llu (%d figures): '%s', fio writes '%s'",
                                 (unsigned long long)u[i].num, u[i].sig, buf, u[i].want);
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_depth_buckets), cmocka_unit_test(test_shares),
            cmocka_unit_test(test_series),        cmocka_unit_test(test_job_stats_add),
            cmocka_unit_test(test_sampler),       cmocka_unit_test(test_units),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
