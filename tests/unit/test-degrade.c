/* Degrade rules: metrics per interval, streaks, once per streak, the kept alerts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "degrade.h"
#include "util.h"

static Iofleet__DegradeRule rule(const char *metric, const char *op, double th, unsigned n,
                                 const char *text)
{
        Iofleet__DegradeRule r = IOFLEET__DEGRADE_RULE__INIT;
        r.metric = (char *)metric;
        r.op = (char *)op;
        r.threshold = th;
        r.intervals = n;
        r.text = (char *)text;
        return r;
}

static degrade_sample_t bw_sample(double mib_per_s)
{
        degrade_sample_t s = {0};
        s.interval_ns = NSEC_PER_SEC / 2; /* half a second: figures are per second */
        s.io.read_bytes = (uint64_t)(mib_per_s * 1024 * 1024 / 2);
        s.io.read_ios = 100;
        return s;
}

static void test_metrics(void **state)
{
        Iofleet__DegradeRule r = rule("read_bw", "<", 0, 1, "");
        degrade_sample_t s = bw_sample(100);
        hist_t *h;
        s.io.write_bytes = 1024 * 1024;
        s.io.write_ios = 50;
        s.io.errors = 3;
        assert_true(degrade_metric(&r, &s) == 100.0 * 1024 * 1024);
        r.metric = "bw";
        assert_true(degrade_metric(&r, &s) == 102.0 * 1024 * 1024);
        r.metric = "write_bw";
        assert_true(degrade_metric(&r, &s) == 2.0 * 1024 * 1024);
        r.metric = "iops";
        assert_true(degrade_metric(&r, &s) == 300);
        r.metric = "read_iops";
        assert_true(degrade_metric(&r, &s) == 200);
        r.metric = "errors";
        assert_true(degrade_metric(&r, &s) == 3);
        assert_int_equal(hist_new(&h), 0);
        for (uint64_t i = 1; i <= 1000; i++)
                hist_record(h, i * 1000);
        s.clat = h;
        r.metric = "clat_p99";
        /* within the histogram's 1% */
        assert_true(degrade_metric(&r, &s) > 980000 && degrade_metric(&r, &s) < 1000000);
        hist_free(&h);
}

static void test_streaks(void **state)
{
        Iofleet__DegradeRule r1 = rule("bw", "<", 50.0 * 1024 * 1024, 3, "bw < 50MiB/s for 3"),
                             r2 = rule("errors", ">", 0, 1, "errors > 0");
        Iofleet__DegradeRule *rules[2] = {&r1, &r2};
        degrade_t d;
        char msg[512];
        double figs[] = {100, 10, 10, 100, 10, 10, 10, 10, 10, 10, 10, 100};
        size_t fired_at[16] = {0}, nf = 0;

        assert_int_equal(degrade_init(&d, rules, 2), 0);
        for (size_t k = 0; k < ELEMENTSOF(figs); k++) {
                degrade_sample_t s = bw_sample(figs[k]);
                s.io.errors = k == 5 ? 2 : 0;
                size_t before = d.n_alerts;
                degrade_feed(&d, k, &s);
                for (size_t i = before; i < d.n_alerts; i++)
                        fired_at[nf++] = d.alerts[i].index * 10 + d.alerts[i].rule;
        }
        /* bw: streak broken at 3, then 4..10 is one streak: fires once, at interval 6. The
         * error rule fires at 5. */
        assert_int_equal(nf, 2);
        assert_int_equal(fired_at[0], 51);
        assert_int_equal(fired_at[1], 60);
        assert_int_equal(d.fired[0], 1);
        assert_int_equal(d.fired[1], 1);
        degrade_describe(&d, &d.alerts[1], msg, sizeof(msg));
        assert_non_null(strstr(msg, "bw < 50MiB/s for 3"));
        assert_non_null(strstr(msg, "10.0 MiB/s below 50.0 MiB/s"));
        assert_non_null(strstr(msg, "interval 6"));
        degrade_done(&d);
}

static void test_latency_needs_completions(void **state)
{
        Iofleet__DegradeRule r = rule("clat_p99", "<", 1e6, 1, "clat_p99 < 1ms"), *rules[1] = {&r};
        degrade_t d;
        degrade_sample_t s = {0};
        s.interval_ns = NSEC_PER_SEC;
        assert_int_equal(degrade_init(&d, rules, 1), 0);
        /* No completion, no latency: nothing to judge. */
        assert_int_equal(degrade_feed(&d, 0, &s), 0);
        degrade_done(&d);
}

static void test_kept_alerts_bounded(void **state)
{
        Iofleet__DegradeRule r = rule("errors", ">", 0, 1, "errors > 0"), *rules[1] = {&r};
        degrade_t d;
        assert_int_equal(degrade_init(&d, rules, 1), 0);
        for (uint64_t k = 0; k < 2 * DEGRADE_MAX_ALERTS + 10; k++) {
                degrade_sample_t s = {0};
                s.interval_ns = NSEC_PER_SEC;
                s.io.errors = k % 2; /* every other interval: a new streak each time */
                degrade_feed(&d, k, &s);
        }
        assert_int_equal(d.n_alerts, DEGRADE_MAX_ALERTS);
        assert_int_equal(d.fired[0], DEGRADE_MAX_ALERTS + 5);
        degrade_done(&d);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_metrics),
            cmocka_unit_test(test_streaks),
            cmocka_unit_test(test_latency_needs_completions),
            cmocka_unit_test(test_kept_alerts_bounded),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
