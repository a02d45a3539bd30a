/* Unit tests for hist: bucket layout, percentiles, merge, delta, sparse form, snapshots. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"
#include "util.h"

#define TOP (HIST_BUCKETS - 1)

/* fio's list in thousandths of a percent, so the reference rank is exact integer arithmetic and
 * does not share the float rounding of the code under test. */
static const uint64_t pct_milli[17] = {1000,  5000,  10000, 20000, 30000, 40000,
                                       50000, 60000, 70000, 80000, 90000, 95000,
                                       99000, 99500, 99900, 99950, 99990};

/* splitmix64: a fixed seed makes every sample set, and so every failure, reproducible. */
static uint64_t rng_state;

static void rng_seed(uint64_t s)
{
        rng_state = s;
}

static uint64_t rng_next(void)
{
        uint64_t z = (rng_state += UINT64_C(0x9e3779b97f4a7c15));
        z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
        z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
        return z ^ (z >> 31);
}

/* Uniform in [0, n). */
static uint64_t rng_below(uint64_t n)
{
        return rng_next() % n;
}

/* Uniform in (0, 1]. */
static double rng_unit(void)
{
        return ((double)(rng_next() >> 11) + 1.0) / 9007199254740992.0;
}

static int cmp_u64(const void *a, const void *b)
{
        uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
        return (x > y) - (x < y);
}

static hist_t *hist_of(const uint64_t *v, size_t n)
{
        hist_t *h = NULL;
        assert_int_equal(hist_new(&h), 0);
        for (size_t i = 0; i < n; i++)
                hist_record(h, v[i]);
        return h;
}

static void assert_rel(double got, double want, double tol)
{
        double err = fabs(got - want);
        if (err > tol * fabs(want) && err > 1e-12)
                fail_msg("got %.17g, want %.17g (relative tolerance %g)", got, want, tol);
}

static void test_default_percentiles(void **state _unused_)
{
        for (int i = 0; i < 17; i++)
                assert_int_equal((uint64_t)llround(hist_default_percentiles[i] * 1000),
                                 pct_milli[i]);
}

static void test_index_small_exact(void **state _unused_)
{
        /* Below 2^HIST_SUB_BITS one bucket per value; up to 255 the split buckets are 1 wide too.
         */
        for (uint64_t v = 0; v < 256; v++) {
                assert_int_equal(hist_index(v), v);
                assert_int_equal(hist_bucket_low((unsigned)v), v);
                assert_int_equal(hist_bucket_high((unsigned)v), v);
        }
}

/* The header's formula, written out literally as an oracle. */
static unsigned index_ref(uint64_t v)
{
        if (v < 128)
                return (unsigned)v;
        if (v >= (UINT64_C(1) << 48))
                return TOP;
        unsigned e = 0;
        while ((v >> (e + 1)) != 0)
                e++;
        unsigned sub = (unsigned)((v >> (e - 7)) & 127);
        return 128 + (e - 7) * 128 + sub;
}

static void check_value(uint64_t v)
{
        unsigned i = hist_index(v);
        if (i != index_ref(v))
                fail_msg("hist_index(%llu) = %u, want %u", (unsigned long long)v, i, index_ref(v));
        if (v < hist_bucket_low(i) || v > hist_bucket_high(i))
                fail_msg("%llu outside bucket %u [%llu, %llu]", (unsigned long long)v, i,
                         (unsigned long long)hist_bucket_low(i),
                         (unsigned long long)hist_bucket_high(i));
}

static void test_index_round_trip(void **state _unused_)
{
        for (uint64_t v = 0; v < (UINT64_C(1) << 21); v++)
                check_value(v);
        for (unsigned k = 1; k < 64; k++) {
                uint64_t p = UINT64_C(1) << k;
                check_value(p - 1);
                check_value(p);
                check_value(p + 1);
        }
        check_value(UINT64_MAX);
        rng_seed(1);
        for (int i = 0; i < 1000000; i++) {
                /* Random bit length first, so every octave is hit as often as any other. */
                unsigned bits = (unsigned)rng_below(65);
                uint64_t v = bits == 64 ? rng_next() : rng_next() & ((UINT64_C(1) << bits) - 1);
                check_value(v);
        }
}

static void test_bucket_bounds(void **state _unused_)
{
        assert_int_equal(hist_bucket_low(0), 0);
        assert_true(hist_bucket_high(TOP) == UINT64_MAX);
        for (unsigned i = 0; i < HIST_BUCKETS; i++) {
                uint64_t lo = hist_bucket_low(i), hi = hist_bucket_high(i);
                assert_true(lo <= hi);
                assert_int_equal(hist_index(lo), i);
                assert_int_equal(hist_index(hi), i);
                if (i + 1 < HIST_BUCKETS)
                        assert_true(hist_bucket_low(i + 1) == hi + 1);
                /* Width / low <= 1/128 everywhere but the open-ended top bucket. */
                if (i >= HIST_SUB && i < TOP)
                        assert_true((hi - lo + 1) * 128 <= lo);
        }
}

static void test_top_clamp(void **state _unused_)
{
        uint64_t top_bits = UINT64_C(1) << HIST_MAX_BITS;
        assert_int_equal(hist_index(top_bits), TOP);
        assert_int_equal(hist_index(top_bits + 12345), TOP);
        assert_int_equal(hist_index(UINT64_MAX), TOP);
        /* The last regular bucket: [2^47 + 127 * 2^40, 2^48 - 1]. */
        assert_int_equal(hist_index(top_bits - 1), TOP);
        assert_int_equal(hist_bucket_low(TOP), top_bits - (UINT64_C(1) << 40));
        assert_int_equal(hist_index(top_bits - (UINT64_C(1) << 40) - 1), TOP - 1);

        hist_t *h = NULL;
        assert_int_equal(hist_new(&h), 0);
        hist_record(h, UINT64_C(1) << 60);
        /* The midpoint of the top bucket (~2^63) is far from the value: the [min, max] clamp
         * is what makes the answer right. */
        assert_int_equal(hist_percentile(h, 50), UINT64_C(1) << 60);
        hist_record(h, UINT64_MAX);
        assert_int_equal(h->buckets[TOP], 2);
        assert_true(h->max == UINT64_MAX);
        assert_int_equal(h->min, UINT64_C(1) << 60);
        assert_int_equal(hist_percentile(h, 1),
                         hist_bucket_low(TOP) + (UINT64_MAX - hist_bucket_low(TOP)) / 2);
        hist_free(&h);
        assert_null(h);
        hist_free(&h);
        hist_free(NULL);
}

static void test_record_fields(void **state _unused_)
{
        hist_t *h = NULL;
        assert_int_equal(hist_new(&h), 0);
        assert_int_equal(h->n, 0);
        assert_true(h->min == UINT64_MAX);
        assert_int_equal(h->max, 0);
        assert_int_equal(hist_percentile(h, 50), 0);
        assert_true(hist_mean(h) == 0);
        assert_true(hist_stddev(h) == 0);

        hist_record(h, 1000);
        hist_record(h, 7);
        hist_record(h, 300000);
        assert_int_equal(h->n, 3);
        assert_int_equal(h->min, 7);
        assert_int_equal(h->max, 300000);
        assert_int_equal(h->sum, 301007);
        assert_true(h->sumsq == 1000.0 * 1000 + 49 + 300000.0 * 300000);
        assert_int_equal(h->buckets[7], 1);
        assert_int_equal(h->buckets[hist_index(1000)], 1);
        assert_int_equal(h->buckets[hist_index(300000)], 1);
        hist_free(&h);
}

/* The reference: the same rank rule on the sorted samples, in exact integer arithmetic. */
static uint64_t exact_percentile(const uint64_t *sorted, size_t n, uint64_t milli)
{
        uint64_t rank = ((uint64_t)n * milli + 99999) / 100000;
        if (rank < 1)
                rank = 1;
        return sorted[rank - 1];
}

static void check_percentiles(uint64_t *v, size_t n, const char *what)
{
        hist_t *h = hist_of(v, n);
        qsort(v, n, sizeof(*v), cmp_u64);
        for (int i = 0; i < 17; i++) {
                uint64_t want = exact_percentile(v, n, pct_milli[i]);
                uint64_t got = hist_percentile(h, hist_default_percentiles[i]);
                uint64_t err = got > want ? got - want : want - got;
                if (err * 100 > want)
                        fail_msg("%s n=%zu p%g: got %llu, exact %llu", what, n,
                                 hist_default_percentiles[i], (unsigned long long)got,
                                 (unsigned long long)want);
        }
        /* p100 is the midpoint of the maximum's bucket, not the maximum itself. */
        uint64_t got = hist_percentile(h, 100), want = v[n - 1];
        assert_true((got > want ? got - want : want - got) * 100 <= want);
        assert_true(got <= want);
        hist_free(&h);
}

static void test_percentiles(void **state _unused_)
{
        static const size_t sizes[] = {1, 2, 3, 7, 100, 1000, 1001, 99999, 200000};
        size_t cap = 200000;
        uint64_t *v = malloc(cap * sizeof(*v));
        assert_non_null(v);
        rng_seed(42);

        for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
                size_t n = sizes[s];

                for (size_t i = 0; i < n; i++)
                        v[i] = rng_below(10000000);
                check_percentiles(v, n, "uniform");

                /* Exponential, mean 100 us, plus a 2 us floor like a real device. */
                for (size_t i = 0; i < n; i++)
                        v[i] = 2000 + (uint64_t)(-log(rng_unit()) * 100000.0);
                check_percentiles(v, n, "exponential");

                /* Log-uniform over nearly the whole regular range exercises every octave. */
                for (size_t i = 0; i < n; i++)
                        v[i] = (uint64_t)exp2(rng_unit() * 47.9);
                check_percentiles(v, n, "log-uniform");

                for (size_t i = 0; i < n; i++)
                        v[i] = 123456789;
                check_percentiles(v, n, "constant");

                /* 90% fast, 10% slow: an off-by-one rank at p90 lands in the wrong cluster. */
                for (size_t i = 0; i < n; i++)
                        v[i] = i % 10 == 9 ? 4900000 + rng_below(200000) : 19000 + rng_below(2000);
                check_percentiles(v, n, "two clusters");

                for (size_t i = 0; i < n; i++)
                        v[i] = rng_below(100);
                check_percentiles(v, n, "small exact");
        }

        v[0] = 987654321;
        check_percentiles(v, 1, "single");
        v[0] = 0;
        check_percentiles(v, 1, "single zero");
        free(v);
}

static void test_percentile_rank_rule(void **state _unused_)
{
        hist_t *h = NULL;
        assert_int_equal(hist_new(&h), 0);
        for (uint64_t i = 1; i <= 1000; i++)
                hist_record(h, i);
        assert_int_equal(hist_percentile(h, 1), 10);
        assert_int_equal(hist_percentile(h, 10), 100);
        /* 99.9 is slightly above 99.9 in binary: the rank must still be 999 (bucket [996, 999],
         * midpoint 997), not 1000 (bucket [1000, 1003] clamped to max 1000). */
        assert_int_equal(hist_percentile(h, 99.9), 997);
        assert_int_equal(hist_percentile(h, 100), 1000);
        hist_free(&h);

        assert_int_equal(hist_new(&h), 0);
        for (uint64_t i = 0; i < 999; i++)
                hist_record(h, 10);
        hist_record(h, 200);
        assert_int_equal(hist_percentile(h, 99.9), 10);
        assert_int_equal(hist_percentile(h, 99.95), 200);
        /* Out-of-range p is clamped to the first and last rank. */
        assert_int_equal(hist_percentile(h, 0), 10);
        assert_int_equal(hist_percentile(h, 150), 200);
        hist_free(&h);

        /* 99.9% of 41000 is exactly 40959, but 99.9 * 41000 / 100 in doubles is 40959.000...07:
         * a float ceil would move to the slow value. */
        assert_int_equal(hist_new(&h), 0);
        for (uint64_t i = 0; i < 40959; i++)
                hist_record(h, 10);
        for (uint64_t i = 0; i < 41; i++)
                hist_record(h, 200);
        assert_int_equal(hist_percentile(h, 99.9), 10);
        hist_free(&h);
}

static void fill_exponential(uint64_t *v, size_t n, double mean, uint64_t floor_ns)
{
        for (size_t i = 0; i < n; i++)
                v[i] = floor_ns + (uint64_t)(-log(rng_unit()) * mean);
}

static void assert_hist_equal(const hist_t *a, const hist_t *b)
{
        assert_memory_equal(a->buckets, b->buckets, sizeof(a->buckets));
        assert_int_equal(a->n, b->n);
        assert_int_equal(a->min, b->min);
        assert_int_equal(a->max, b->max);
        assert_int_equal(a->sum, b->sum);
        assert_rel(a->sumsq, b->sumsq, 1e-12);
}

static void test_merge(void **state _unused_)
{
        enum { NA = 5000, NB = 3000 };
        static uint64_t all[NA + NB];
        rng_seed(7);
        fill_exponential(all, NA, 50000, 1000);
        for (size_t i = NA; i < NA + NB; i++)
                all[i] = 500 + rng_below(20000000);

        hist_t *a = hist_of(all, NA), *b = hist_of(all + NA, NB), *u = hist_of(all, NA + NB);
        hist_t *e = NULL;
        assert_int_equal(hist_new(&e), 0);

        hist_merge(a, b);
        assert_hist_equal(a, u);

        /* An empty histogram is the identity on either side. */
        hist_merge(a, e);
        assert_hist_equal(a, u);
        hist_merge(e, u);
        assert_hist_equal(e, u);

        hist_free(&a);
        hist_free(&b);
        hist_free(&u);
        hist_free(&e);
}

static void check_delta(const uint64_t *first, size_t n1, const uint64_t *second, size_t n2)
{
        hist_t *live = hist_of(first, n1), *s1 = NULL, *s2 = NULL, *d = NULL;
        assert_int_equal(hist_new(&s1), 0);
        assert_int_equal(hist_new(&s2), 0);
        assert_int_equal(hist_new(&d), 0);
        hist_snapshot(s1, live);
        for (size_t i = 0; i < n2; i++)
                hist_record(live, second[i]);
        hist_snapshot(s2, live);
        hist_delta(d, s2, s1);

        hist_t *want = hist_of(second, n2);
        assert_memory_equal(d->buckets, want->buckets, sizeof(d->buckets));
        assert_int_equal(d->n, want->n);
        assert_int_equal(d->sum, want->sum);
        assert_rel(d->sumsq, want->sumsq, 1e-9);
        if (n2 == 0) {
                assert_true(d->min == UINT64_MAX);
                assert_int_equal(d->max, 0);
        } else {
                uint64_t lo = hist_bucket_low(hist_index(want->min));
                uint64_t hi = hist_bucket_high(hist_index(want->max));
                assert_int_equal(d->min, lo < s2->min ? s2->min : lo);
                assert_int_equal(d->max, hi > s2->max ? s2->max : hi);
                assert_true(d->min <= want->min);
                assert_true(d->max >= want->max);
        }

        /* In place, as a reporter reusing its buffers would do. */
        hist_delta(s2, s2, s1);
        assert_memory_equal(s2, d, sizeof(*d));

        hist_free(&live);
        hist_free(&s1);
        hist_free(&s2);
        hist_free(&d);
        hist_free(&want);
}

static void test_delta(void **state _unused_)
{
        enum { N = 4000 };
        static uint64_t a[N], b[N];
        rng_seed(99);
        fill_exponential(a, N, 80000, 5000);
        fill_exponential(b, N, 80000, 5000);

        check_delta(a, N, b, N);
        check_delta(a, N, b, 0);
        check_delta(a, 0, b, N);
        /* Second interval holds the new overall extremes: its min/max are then exact. */
        b[0] = 3;
        b[1] = UINT64_C(1) << 40;
        check_delta(a, N, b, N);
}

static void test_sparse(void **state _unused_)
{
        enum { N = 20000 };
        static uint64_t v[N];
        static uint32_t idx[HIST_BUCKETS];
        static uint64_t cnt[HIST_BUCKETS];
        rng_seed(5);
        fill_exponential(v, N, 200000, 0);
        v[0] = UINT64_MAX;
        hist_t *h = hist_of(v, N), *r = NULL;
        assert_int_equal(hist_new(&r), 0);

        size_t k = hist_to_sparse(h, idx, cnt, HIST_BUCKETS);
        assert_true(k > 100 && k <= HIST_BUCKETS);
        for (size_t i = 1; i < k; i++)
                assert_true(idx[i] > idx[i - 1]);
        assert_int_equal(idx[k - 1], TOP);
        assert_int_equal(hist_add_sparse(r, idx, cnt, k), 0);
        assert_memory_equal(r->buckets, h->buckets, sizeof(h->buckets));
        /* Counts only: n, min, max, sum and sumsq are the caller's. */
        assert_int_equal(r->n, 0);
        assert_true(r->min == UINT64_MAX);

        /* A short buffer is filled to cap and the full count still reported. */
        uint32_t sidx[4] = {0, 0, 0, 0xdead};
        uint64_t scnt[4] = {0, 0, 0, 0xbeef};
        assert_int_equal(hist_to_sparse(h, sidx, scnt, 3), k);
        assert_memory_equal(sidx, idx, 3 * sizeof(*idx));
        assert_memory_equal(scnt, cnt, 3 * sizeof(*cnt));
        assert_int_equal(sidx[3], 0xdead);
        assert_int_equal(scnt[3], 0xbeef);
        assert_int_equal(hist_to_sparse(h, NULL, NULL, 0), k);
        assert_int_equal(hist_add_sparse(r, NULL, NULL, 0), 0);

        hist_t *e = NULL;
        assert_int_equal(hist_new(&e), 0);
        assert_int_equal(hist_to_sparse(e, NULL, NULL, 0), 0);

        hist_free(&h);
        hist_free(&r);
        hist_free(&e);
}

static void expect_rejected(const uint32_t *idx, const uint64_t *cnt, size_t n)
{
        static hist_t h, before;
        hist_init(&h);
        hist_record(&h, 5);
        hist_record(&h, 1000000);
        h.buckets[10] = UINT64_MAX - 1;
        before = h;
        assert_int_equal(hist_add_sparse(&h, idx, cnt, n), -EINVAL);
        assert_memory_equal(&h, &before, sizeof(h));
}

static void test_sparse_reject(void **state _unused_)
{
        /* Each bad entry comes last, so valid entries before it would show if applied early. */
        uint32_t out_of_range[] = {1, 5, HIST_BUCKETS};
        uint32_t way_out[] = {1, 5, UINT32_MAX};
        uint32_t equal[] = {1, 5, 5};
        uint32_t descending[] = {1, 5, 3};
        uint64_t ones[] = {1, 1, 1};
        expect_rejected(out_of_range, ones, 3);
        expect_rejected(way_out, ones, 3);
        expect_rejected(equal, ones, 3);
        expect_rejected(descending, ones, 3);

        /* A count that would wrap a bucket is as bad as a bad index. */
        uint32_t wrap_idx[] = {1, 5, 10};
        uint64_t wrap_cnt[] = {1, 1, 2};
        expect_rejected(wrap_idx, wrap_cnt, 3);

        /* The top bucket itself is a valid index. */
        hist_t *h = NULL;
        assert_int_equal(hist_new(&h), 0);
        uint32_t top[] = {0, TOP};
        uint64_t two[] = {3, 4};
        assert_int_equal(hist_add_sparse(h, top, two, 2), 0);
        assert_int_equal(h->buckets[0], 3);
        assert_int_equal(h->buckets[TOP], 4);
        hist_free(&h);
}

static void check_moments(const uint64_t *v, size_t n, double tol)
{
        hist_t *h = hist_of(v, n);
        long double s = 0, ss = 0;
        for (size_t i = 0; i < n; i++)
                s += v[i];
        long double mean = n ? s / n : 0;
        for (size_t i = 0; i < n; i++)
                ss += (v[i] - mean) * (v[i] - mean);
        double sd = n >= 2 ? (double)sqrtl(ss / n) : 0;

        assert_rel(hist_mean(h), (double)mean, 1e-12);
        if (fabs(hist_stddev(h) - sd) > tol * (double)mean + 1e-9)
                fail_msg("stddev: got %.17g, want %.17g", hist_stddev(h), sd);
        hist_free(&h);
}

static void test_mean_stddev(void **state _unused_)
{
        enum { N = 50000 };
        static uint64_t v[N];
        check_moments(v, 0, 0);

        v[0] = 4242;
        check_moments(v, 1, 0);

        v[0] = 10;
        v[1] = 20;
        check_moments(v, 2, 1e-12); /* mean 15, stddev 5 */

        rng_seed(11);
        fill_exponential(v, N, 100000, 1000);
        check_moments(v, N, 1e-9);

        for (size_t i = 0; i < N; i++)
                v[i] = 1000 + rng_below(1000000);
        check_moments(v, N, 1e-9);

        /* sumsq/n - mean^2 cancels for a constant; only rounding noise may remain. */
        for (size_t i = 0; i < N; i++)
                v[i] = 123456789;
        check_moments(v, N, 1e-6);
}

struct writer {
        hist_t *h;
        uint64_t count;
        bool done;
};

static void *writer_main(void *arg)
{
        struct writer *w = arg;
        uint64_t x = 88172645463325252ULL;
        for (uint64_t i = 0; i < w->count; i++) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                /* Below 2^40, so 2M values cannot wrap sum and break the monotonicity check. */
                hist_record(w->h, x >> (24 + (x & 31)));
        }
        __atomic_store_n(&w->done, true, __ATOMIC_RELEASE);
        return NULL;
}

/* Every field only grows, so a later snapshot never sees less. */
static bool snapshot_grew(const hist_t *cur, const hist_t *prev)
{
        if (cur->n < prev->n || cur->sum < prev->sum || cur->sumsq < prev->sumsq ||
            cur->max < prev->max || cur->min > prev->min)
                return false;
        for (unsigned i = 0; i < HIST_BUCKETS; i++)
                if (cur->buckets[i] < prev->buckets[i])
                        return false;
        return true;
}

static void test_concurrent_snapshot(void **state _unused_)
{
        hist_t *snap[2] = {NULL, NULL};
        struct writer w = {.count = 2000000};
        assert_int_equal(hist_new(&w.h), 0);
        assert_int_equal(hist_new(&snap[0]), 0);
        assert_int_equal(hist_new(&snap[1]), 0);

        pthread_t t;
        assert_int_equal(pthread_create(&t, NULL, writer_main, &w), 0);
        /* No cmocka assertion while the writer runs: a failure would longjmp out and free the
         * histogram under it. */
        unsigned taken = 0, shrunk = 0;
        bool last = false;
        while (!last) {
                last = __atomic_load_n(&w.done, __ATOMIC_ACQUIRE);
                hist_t *cur = snap[taken & 1], *prev = snap[(taken + 1) & 1];
                hist_snapshot(cur, w.h);
                if (!snapshot_grew(cur, prev))
                        shrunk++;
                /* n may run ahead of the buckets mid-record; this must not misbehave. */
                (void)hist_percentile(cur, 99.99);
                (void)hist_stddev(cur);
                taken++;
        }
        assert_int_equal(pthread_join(t, NULL), 0);

        assert_int_equal(shrunk, 0);
        assert_true(taken >= 1);
        hist_t *fin = snap[(taken + 1) & 1];
        assert_int_equal(fin->n, w.count);
        uint64_t total = 0;
        for (unsigned i = 0; i < HIST_BUCKETS; i++)
                total += fin->buckets[i];
        assert_int_equal(total, w.count);

        hist_free(&w.h);
        hist_free(&snap[0]);
        hist_free(&snap[1]);
}

/* The whole list in one walk gives what each percentile alone gives. */
static void test_percentiles_at_once(void **state)
{
        hist_t *h;
        uint64_t v[17], x = 88172645463325252ULL;
        assert_int_equal(hist_new(&h), 0);
        hist_percentiles(h, hist_default_percentiles, 17, v);
        for (size_t i = 0; i < 17; i++)
                assert_int_equal(v[i], 0);
        for (int i = 0; i < 100000; i++) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                hist_record(h, x % 50000000);
        }
        hist_percentiles(h, hist_default_percentiles, 17, v);
        for (size_t i = 0; i < 17; i++)
                assert_int_equal(v[i], hist_percentile(h, hist_default_percentiles[i]));
        hist_free(&h);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_percentiles_at_once),
            cmocka_unit_test(test_default_percentiles),
            cmocka_unit_test(test_index_small_exact),
            cmocka_unit_test(test_index_round_trip),
            cmocka_unit_test(test_bucket_bounds),
            cmocka_unit_test(test_top_clamp),
            cmocka_unit_test(test_record_fields),
            cmocka_unit_test(test_percentiles),
            cmocka_unit_test(test_percentile_rank_rule),
            cmocka_unit_test(test_merge),
            cmocka_unit_test(test_delta),
            cmocka_unit_test(test_sparse),
            cmocka_unit_test(test_sparse_reject),
            cmocka_unit_test(test_mean_stddev),
            cmocka_unit_test(test_concurrent_snapshot),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
