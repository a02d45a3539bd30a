/* Unit tests for clock: NTP-style sample math, the min-RTT window, the test offset, sleeps,
 * duration text. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "clock.h"
#include "util.h"

/* One probe as it happened: the agent sends at t1 (agent clock); the request takes `out` ns to
 * arrive; the coordinator, whose timeline is `offset` ahead of the agent clock, holds it `hold`
 * ns; the reply takes `back` ns. */
static void probe(int64_t t1, int64_t offset, int64_t out, int64_t hold, int64_t back, int64_t t[4])
{
        t[0] = t1;
        t[1] = t1 + out + offset;
        t[2] = t[1] + hold;
        t[3] = t1 + out + hold + back;
}

static void test_sample_symmetric(void **state)
{
        time_sample_t s;
        int64_t t[4];

        /* By hand: t1=1000, t2=6100, t3=6120, t4=1220: ((6100-1000)+(6120-1220))/2 = 5000. */
        assert_int_equal(clock_sample(1000, 6100, 6120, 1220, &s), 0);
        assert_int_equal(s.offset_ns, 5000);
        assert_int_equal(s.rtt_ns, 200);
        assert_int_equal(s.at_ns, 1220);

        probe(123456789, 42, 50000, 7000, 50000, t);
        assert_int_equal(clock_sample(t[0], t[1], t[2], t[3], &s), 0);
        assert_int_equal(s.offset_ns, 42);
        assert_int_equal(s.rtt_ns, 100000);
        assert_int_equal(s.at_ns, t[3]);

        /* Same clocks, no delay at all. */
        assert_int_equal(clock_sample(5, 5, 5, 5, &s), 0);
        assert_int_equal(s.offset_ns, 0);
        assert_int_equal(s.rtt_ns, 0);

        /* An odd sum of differences: within half a nanosecond of the exact value. */
        assert_int_equal(clock_sample(0, 105, 115, 20, &s), 0);
        assert_int_equal(s.offset_ns, 100); /* (105 + 95) / 2 */
        assert_int_equal(clock_sample(0, 105, 116, 20, &s), 0);
        assert_true(s.offset_ns == 100 || s.offset_ns == 101); /* 100.5 */
}

static void test_sample_asymmetric(void **state)
{
        time_sample_t s;
        int64_t t[4];

        /* By hand: out 300, back 100, offset 5000: t1=1000, t2=6300, t3=6320, t4=1420;
         * ((6300-1000)+(6320-1420))/2 = 5100: off by (300-100)/2. */
        assert_int_equal(clock_sample(1000, 6300, 6320, 1420, &s), 0);
        assert_int_equal(s.offset_ns, 5100);
        assert_int_equal(s.rtt_ns, 400);

        /* The error is half the asymmetry, whichever way it leans, and stays within rtt/2. */
        for (int64_t asym = -800000; asym <= 800000; asym += 200000) {
                int64_t out = 1000000 + asym / 2, back = 1000000 - asym / 2;
                probe(987654321, -31337, out, 12345, back, t);
                assert_int_equal(clock_sample(t[0], t[1], t[2], t[3], &s), 0);
                assert_int_equal(s.offset_ns - -31337, (out - back) / 2);
                assert_int_equal(s.rtt_ns, out + back);
                assert_true(s.offset_ns - -31337 <= s.rtt_ns / 2);
                assert_true(s.offset_ns - -31337 >= -s.rtt_ns / 2);
        }
}

static void test_sample_negative(void **state)
{
        time_sample_t s;

        /* Coordinator 7 s behind: t1=10e9, t2=3e9+50, t3=3e9+60, t4=10e9+110. */
        assert_int_equal(clock_sample(10000000000, 3000000050, 3000000060, 10000000110, &s), 0);
        assert_int_equal(s.offset_ns, -7000000000);
        assert_int_equal(s.rtt_ns, 100);

        /* Negative timestamps on both sides are fine too. */
        assert_int_equal(clock_sample(-1000, -9100, -9080, -780, &s), 0);
        assert_int_equal(s.offset_ns, -8200);
        assert_int_equal(s.rtt_ns, 200);
}

static void test_sample_huge(void **state)
{
        static const int64_t offsets[] = {
            INT64_C(1) << 62,
            -(INT64_C(1) << 62),
            (INT64_C(1) << 62) + (INT64_C(1) << 61),
            -(INT64_C(1) << 62) - (INT64_C(1) << 61),
            INT64_MAX - 1000,
            INT64_MIN + 1000,
        };
        time_sample_t s;
        int64_t t[4];

        for (size_t i = 0; i < ELEMENTSOF(offsets); i++) {
                int64_t o = offsets[i];
                /* Agent clock at the far end opposite the offset, so every timestamp fits. */
                int64_t t1 = o > 0 ? INT64_MIN + 10 : INT64_MAX - 1000;
                probe(t1, o, 100, 20, 100, t);
                assert_int_equal(clock_sample(t[0], t[1], t[2], t[3], &s), 0);
                assert_true(s.offset_ns == o);
                assert_int_equal(s.rtt_ns, 200);
                assert_true(s.at_ns == t[3]);

                /* And with the agent clock near zero where that fits. */
                if (o > INT64_MIN + 1000000 && o < INT64_MAX - 1000000) {
                        probe(0, o, 300, 0, 100, t);
                        assert_int_equal(clock_sample(t[0], t[1], t[2], t[3], &s), 0);
                        assert_true(s.offset_ns == o + 100);
                }
        }

        /* Near the ends of the clock range, with a small offset. */
        assert_int_equal(
            clock_sample(INT64_MAX - 300, INT64_MAX - 200, INT64_MAX - 100, INT64_MAX, &s), 0);
        assert_int_equal(s.offset_ns, 0);
        assert_int_equal(s.rtt_ns, 200);
        assert_int_equal(
            clock_sample(INT64_MIN, INT64_MIN + 100, INT64_MIN + 200, INT64_MIN + 300, &s), 0);
        assert_int_equal(s.offset_ns, 0);
}

static void test_sample_rejected(void **state)
{
        static const int64_t bad[][4] = {
            {100, 200, 300, 50},  /* reply before the probe was sent */
            {100, 300, 200, 400}, /* coordinator sent before it received */
            {0, 0, 1000, 500},    /* held longer than the whole round trip */
            {0, 500, 501, 0},     /* zero round trip but a hold */
            /* differences that do not fit in 64 bits (a peer can send anything) */
            {INT64_MIN, INT64_MAX - 10, INT64_MAX, INT64_MIN + 100},
            {INT64_MAX - 100, INT64_MIN, INT64_MIN + 10, INT64_MAX},
            {INT64_MIN, 0, 0, INT64_MAX},
            {0, INT64_MIN, INT64_MAX, 10},
            {-1, INT64_MAX, INT64_MAX, 0},
            {INT64_MIN, INT64_MIN, INT64_MAX, INT64_MAX},
        };
        time_sample_t s, untouched;

        memset(&untouched, 0xa5, sizeof(untouched));
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                s = untouched;
                if (clock_sample(bad[i][0], bad[i][1], bad[i][2], bad[i][3], &s) != -EINVAL)
                        fail_msg("case %zu accepted", i);
                assert_memory_equal(&s, &untouched, sizeof(s));
        }
}

static time_sample_t mk(int64_t offset, int64_t rtt, int64_t at)
{
        return (time_sample_t){.offset_ns = offset, .rtt_ns = rtt, .at_ns = at};
}

static void test_sync_best(void **state)
{
        clock_sync_t cs;
        time_sample_t s, best;

        clock_sync_reset(&cs);
        assert_int_equal(clock_sync_best(&cs, INT64_MIN, &best), -ENODATA);

        s = mk(111, 500, 10);
        clock_sync_add(&cs, &s);
        s = mk(222, 200, 20);
        clock_sync_add(&cs, &s);
        s = mk(333, 900, 30);
        clock_sync_add(&cs, &s);
        assert_int_equal(clock_sync_best(&cs, INT64_MIN, &best), 0);
        assert_int_equal(best.offset_ns, 222);
        assert_int_equal(best.rtt_ns, 200);
        assert_int_equal(best.at_ns, 20);

        /* since_ns is inclusive and drops older samples even when they are better. */
        assert_int_equal(clock_sync_best(&cs, 20, &best), 0);
        assert_int_equal(best.offset_ns, 222);
        assert_int_equal(clock_sync_best(&cs, 21, &best), 0);
        assert_int_equal(best.offset_ns, 333);
        memset(&best, 0x5a, sizeof(best));
        s = best;
        assert_int_equal(clock_sync_best(&cs, 31, &best), -ENODATA);
        assert_memory_equal(&best, &s, sizeof(best));

        clock_sync_reset(&cs);
        assert_int_equal(clock_sync_best(&cs, INT64_MIN, &best), -ENODATA);
}

static void test_sync_window(void **state)
{
        clock_sync_t cs;
        time_sample_t s, best;
        int64_t rtt[100];
        uint64_t x = 88172645463325252ULL;

        /* A very good first sample is forgotten after CLOCK_SYNC_WINDOW newer ones. */
        clock_sync_reset(&cs);
        s = mk(-1, 1, 0);
        clock_sync_add(&cs, &s);
        for (int i = 0; i < CLOCK_SYNC_WINDOW - 1; i++) {
                s = mk(i, 100 + i, i + 1);
                clock_sync_add(&cs, &s);
        }
        assert_int_equal(cs.n, CLOCK_SYNC_WINDOW);
        assert_int_equal(clock_sync_best(&cs, INT64_MIN, &best), 0);
        assert_int_equal(best.offset_ns, -1);
        s = mk(99, 1000, 100);
        clock_sync_add(&cs, &s);
        assert_int_equal(cs.n, CLOCK_SYNC_WINDOW);
        assert_int_equal(clock_sync_best(&cs, INT64_MIN, &best), 0);
        assert_int_equal(best.rtt_ns, 100);
        assert_int_equal(best.offset_ns, 0);

        /* Against a brute force over the last 16, with and without since_ns. */
        clock_sync_reset(&cs);
        for (int i = 0; i < 100; i++) {
                x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                rtt[i] = (int64_t)(x % 1000000) * 100 + i; /* unique */
                s = mk(1000 + i, rtt[i], 10 * i);
                clock_sync_add(&cs, &s);
                for (int back = 0; back < CLOCK_SYNC_WINDOW + 2; back += 3) {
                        int64_t since = 10 * (i - back);
                        int want = -1;
                        for (int k = i; k >= 0 && k > i - CLOCK_SYNC_WINDOW; k--)
                                if (10 * k >= since && (want < 0 || rtt[k] < rtt[want]))
                                        want = k;
                        if (want < 0) {
                                assert_int_equal(clock_sync_best(&cs, since, &best), -ENODATA);
                                continue;
                        }
                        assert_int_equal(clock_sync_best(&cs, since, &best), 0);
                        assert_int_equal(best.offset_ns, 1000 + want);
                        assert_int_equal(best.rtt_ns, rtt[want]);
                }
        }
}

static void test_local_offset(void **state)
{
        static const int64_t offsets[] = {0, 123456789, -5000000000, INT64_C(1) << 62,
                                          -(INT64_C(1) << 40)};

        for (size_t i = 0; i < ELEMENTSOF(offsets); i++) {
                int64_t o = offsets[i], m1, l, m2;

                clock_set_test_offset(o);
                m1 = clock_mono_ns();
                l = clock_local_ns();
                m2 = clock_mono_ns();
                /* local - mono is the offset: bracketed by two true readings. */
                assert_true(l - o >= m1);
                assert_true(l - o <= m2);
                assert_true(clock_local_to_mono(l) >= m1);
                assert_true(clock_local_to_mono(l) <= m2);
                /* and the conversion is the exact inverse */
                assert_true(clock_local_to_mono(l) == l - o);
                assert_true(clock_local_to_mono(m1 + o) == m1);
                assert_true(clock_local_to_mono(o) == 0);
        }
        clock_set_test_offset(0);
        {
                int64_t m1 = clock_mono_ns(), l = clock_local_ns();
                assert_true(l >= m1);
                assert_true(clock_local_to_mono(l) == l);
        }
}

static void test_sleep_until(void **state)
{
        int64_t target, woke;

        target = clock_mono_ns() + 2 * (int64_t)NSEC_PER_MSEC;
        woke = clock_sleep_until_mono(target, 500 * (int64_t)NSEC_PER_USEC);
        assert_true(woke >= target);
        assert_true(clock_mono_ns() >= target);

        /* No spin: the sleep alone must not wake early. */
        target = clock_mono_ns() + (int64_t)NSEC_PER_MSEC;
        woke = clock_sleep_until_mono(target, 0);
        assert_true(woke >= target);

        /* Spin longer than the whole wait. */
        target = clock_mono_ns() + 200 * (int64_t)NSEC_PER_USEC;
        woke = clock_sleep_until_mono(target, (int64_t)NSEC_PER_SEC);
        assert_true(woke >= target);

        /* A target in the past returns at once, still reporting a time at or after it. */
        target = clock_mono_ns() - (int64_t)NSEC_PER_SEC;
        woke = clock_sleep_until_mono(target, 0);
        assert_true(woke >= target);
}

static void test_format_duration(void **state)
{
        static const struct {
                int64_t ns;
                const char *want;
        } cases[] = {
            {0, "0ns"},
            {812, "812ns"},
            {-812, "-812ns"},
            {999, "999ns"},
            {1000, "1.0us"},
            {35200, "35.2us"},
            {-35200, "-35.2us"},
            {1000000, "1.00ms"},
            {1250000, "1.25ms"},
            {-1250000, "-1.25ms"},
            {1000000000, "1.000s"},
            {2000000000, "2.000s"},
            {-2500000000, "-2.500s"},
            {3600000000000, "3600.000s"},
            {INT64_MAX, "9223372036.855s"},
            {INT64_MIN, "-9223372036.855s"},
        };
        char buf[64], small[4];

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                assert_ptr_equal(clock_format_duration(cases[i].ns, buf, sizeof(buf)), buf);
                assert_string_equal(buf, cases[i].want);
        }
        /* A short buffer truncates but stays terminated. */
        assert_ptr_equal(clock_format_duration(2000000000, small, sizeof(small)), small);
        assert_string_equal(small, "2.0");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_sample_symmetric), cmocka_unit_test(test_sample_asymmetric),
            cmocka_unit_test(test_sample_negative),  cmocka_unit_test(test_sample_huge),
            cmocka_unit_test(test_sample_rejected),  cmocka_unit_test(test_sync_best),
            cmocka_unit_test(test_sync_window),      cmocka_unit_test(test_local_offset),
            cmocka_unit_test(test_sleep_until),      cmocka_unit_test(test_format_duration),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
