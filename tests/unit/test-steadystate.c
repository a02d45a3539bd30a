/* Tests for steady-state detection (steadystate.c): the window, each criterion, fio's text. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "steadystate.h"

/* Feeds per-second IOPS (4 KiB each) until attained; returns the sample that attained, or -1. */
static int feed(const char *spec, uint32_t dur, const uint64_t *iops, int n, steadystate_t *ss)
{
        ss_spec_t s;
        char err[128];
        uint64_t bytes = 0, ios = 0;

        assert_int_equal(ss_parse(spec, &s, err, sizeof(err)), 0);
        assert_int_equal(steadystate_init(ss, &s, dur), 0);
        steadystate_sample(ss, 0, 0);
        for (int i = 0; i < n; i++) {
                ios += iops[i];
                bytes += iops[i] * 4096;
                if (steadystate_sample(ss, bytes, ios))
                        return i;
        }
        return -1;
}

static void test_iops_within_percent(void **state)
{
        static const uint64_t v[] = {100, 500, 1000, 1010, 990, 1005, 1000};
        steadystate_t ss;
        char text[64];

        (void)state;
        assert_int_equal(feed("iops:2%", 3, v, 7, &ss), 4); /* 1000 1010 990 */
        assert_true(ss.attained);
        assert_int_equal((int)ss.deviation, 10);
        ss_format(&ss.spec, text, sizeof(text));
        assert_string_equal(text, "iops:2.000000%");
        uint64_t iops[3];
        assert_int_equal(steadystate_samples(&ss, NULL, iops), 3);
        assert_int_equal(iops[0], 1000);
        assert_int_equal(iops[2], 990);
        steadystate_done(&ss);
}

static void test_slope(void **state)
{
        static const uint64_t rising[] = {100, 200, 300, 400, 500, 600};
        static const uint64_t flat[] = {100, 200, 300, 300, 301, 300};
        steadystate_t ss;

        (void)state;
        assert_int_equal(feed("iops_slope:1%", 3, rising, 6, &ss), -1);
        assert_true(ss.slope > 99 && ss.slope < 101);
        steadystate_done(&ss);
        assert_int_equal(feed("bw_slope:1%", 3, flat, 6, &ss), 4);
        steadystate_done(&ss);
}

static void test_parse(void **state)
{
        ss_spec_t s;
        char err[128];
        steadystate_t ss;

        (void)state;
        assert_int_equal(ss_parse("iops", &s, err, sizeof(err)), -EINVAL);
        assert_int_equal(ss_parse("lat:1%", &s, err, sizeof(err)), -EINVAL);
        assert_int_equal(ss_parse("bw:-1", &s, err, sizeof(err)), -EINVAL);
        assert_int_equal(ss_parse("bw:1000", &s, err, sizeof(err)), 0);
        assert_false(s.percent);
        assert_int_equal(steadystate_init(&ss, &s, 0), -EINVAL);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_iops_within_percent),
            cmocka_unit_test(test_slope),
            cmocka_unit_test(test_parse),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
