/* Log-linear latency histograms: recording, merge, delta, percentiles, sparse wire form. */
#include "hist.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define HIST_TOP (HIST_BUCKETS - 1)

/* The layout is fixed by the wire format: a histogram from any agent must add bucket by bucket. */
_Static_assert(HIST_BUCKETS == 5376,
               "hist bucket layout changed: the sparse wire form depends on it");

const double hist_default_percentiles[17] = {1,  5,  10, 20, 30,   40,   50,    60,   70,
                                             80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99};

/* Relaxed single-writer accessors: they compile to plain loads and stores, yet make a concurrent
 * hist_snapshot() from another thread well defined. */
#define LOAD(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#define STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)

static double load_double(const double *p)
{
        double v;
        __atomic_load(p, &v, __ATOMIC_RELAXED);
        return v;
}

static void store_double(double *p, double v)
{
        __atomic_store(p, &v, __ATOMIC_RELAXED);
}

void hist_init(hist_t *h)
{
        memset(h, 0, sizeof(*h));
        h->min = UINT64_MAX;
}

int hist_new(hist_t **ret)
{
        hist_t *h = malloc(sizeof(*h));
        if (!h)
                return -ENOMEM;
        hist_init(h);
        *ret = h;
        return 0;
}

void hist_free(hist_t **hp)
{
        if (!hp)
                return;
        free(*hp);
        *hp = NULL;
}

unsigned hist_index(uint64_t v)
{
        if (v < HIST_SUB)
                return (unsigned)v;
        if (v >> HIST_MAX_BITS)
                return HIST_TOP;
        /* e = floor(log2 v); v >> shift lies in [128, 255], i.e. 128 + sub, so the header's
         * 128 + shift * 128 + sub folds into one shift and one add. */
        unsigned e = 63u - (unsigned)__builtin_clzll(v);
        unsigned shift = e - HIST_SUB_BITS;
        return (shift << HIST_SUB_BITS) + (unsigned)(v >> shift);
}

uint64_t hist_bucket_low(unsigned idx)
{
        assert(idx < HIST_BUCKETS);
        if (idx < HIST_SUB)
                return idx;
        unsigned shift = (idx >> HIST_SUB_BITS) - 1;
        return (uint64_t)(HIST_SUB + (idx & (HIST_SUB - 1))) << shift;
}

uint64_t hist_bucket_high(unsigned idx)
{
        assert(idx < HIST_BUCKETS);
        /* Everything from 2^HIST_MAX_BITS up is clamped into the top bucket. */
        if (idx >= HIST_TOP)
                return UINT64_MAX;
        if (idx < HIST_SUB)
                return idx;
        unsigned shift = (idx >> HIST_SUB_BITS) - 1;
        return hist_bucket_low(idx) + (UINT64_C(1) << shift) - 1;
}

void hist_record(hist_t *h, uint64_t v)
{
        /* Only this thread writes h, so load + store cannot lose an update; a lock-prefixed
         * read-modify-write would cost far more on the I/O path and buys nothing here. */
        uint64_t *b = &h->buckets[hist_index(v)];
        STORE(b, LOAD(b) + 1);
        STORE(&h->n, LOAD(&h->n) + 1);
        STORE(&h->sum, LOAD(&h->sum) + v);
        if (v < LOAD(&h->min))
                STORE(&h->min, v);
        if (v > LOAD(&h->max))
                STORE(&h->max, v);
        double d = (double)v;
        store_double(&h->sumsq, load_double(&h->sumsq) + d * d);
}

void hist_snapshot(hist_t *dst, const hist_t *src)
{
        /* Fields are read one by one, so n may differ slightly from the sum of the buckets while
         * the writer runs; hist_percentile() copes with that. */
        dst->n = LOAD(&src->n);
        dst->min = LOAD(&src->min);
        dst->max = LOAD(&src->max);
        dst->sum = LOAD(&src->sum);
        dst->sumsq = load_double(&src->sumsq);
        for (unsigned i = 0; i < HIST_BUCKETS; i++)
                dst->buckets[i] = LOAD(&src->buckets[i]);
}

void hist_merge(hist_t *dst, const hist_t *src)
{
        for (unsigned i = 0; i < HIST_BUCKETS; i++)
                dst->buckets[i] += src->buckets[i];
        dst->n += src->n;
        dst->sum += src->sum;
        dst->sumsq += src->sumsq;
        if (src->min < dst->min)
                dst->min = src->min;
        if (src->max > dst->max)
                dst->max = src->max;
}

static uint64_t clamp_u64(uint64_t v, uint64_t lo, uint64_t hi)
{
        if (v < lo)
                v = lo;
        if (v > hi)
                v = hi;
        return v;
}

void hist_delta(hist_t *dst, const hist_t *now, const hist_t *before)
{
        /* Read now's bounds first: dst may alias now or before. */
        uint64_t now_min = now->min, now_max = now->max;
        unsigned lowest = HIST_BUCKETS, highest = 0;

        assert(now->n >= before->n);
        dst->n = now->n - before->n;
        dst->sum = now->sum - before->sum;
        dst->sumsq = now->sumsq - before->sumsq;
        for (unsigned i = 0; i < HIST_BUCKETS; i++) {
                assert(now->buckets[i] >= before->buckets[i]);
                dst->buckets[i] = now->buckets[i] - before->buckets[i];
                if (dst->buckets[i]) {
                        if (lowest == HIST_BUCKETS)
                                lowest = i;
                        highest = i;
                }
        }

        if (lowest == HIST_BUCKETS) {
                /* Exactly empty, not a rounding residue of sumsq. */
                dst->n = 0;
                dst->sum = 0;
                dst->sumsq = 0;
                dst->min = UINT64_MAX;
                dst->max = 0;
                return;
        }
        /* The exact extremes of the interval are lost; the bucket bounds are the tightest we know,
         * and the overall extremes are exact whenever they were set during the interval. */
        dst->min = clamp_u64(hist_bucket_low(lowest), now_min, now_max);
        dst->max = clamp_u64(hist_bucket_high(highest), now_min, now_max);
}

/* ceil(p/100 * n) as if p were the decimal it was written as. In binary 99.9 is a hair off, and
 * a float ceil turns rank 40959 of 41000 into 40960; so p with up to four decimals (all of fio's)
 * is ranked in integers, split so that n * w cannot overflow. */
static uint64_t hist_rank(double p, uint64_t n)
{
        if (!(p > 0))
                return 1;
        if (p >= 100)
                return n;
        uint64_t rank;
        double scaled = p * 1e4, whole = nearbyint(scaled);
        if (fabs(scaled - whole) < 1e-6) {
                uint64_t w = (uint64_t)whole, q = n / 1000000, r = n % 1000000;
                rank = q * w + (r * w + 999999) / 1000000;
        } else {
                double c = ceil(p / 100.0 * (double)n);
                rank = c >= (double)n ? n : (uint64_t)c;
        }
        return rank < 1 ? 1 : rank > n ? n : rank;
}

static uint64_t bucket_mid(unsigned idx)
{
        uint64_t lo = hist_bucket_low(idx);
        return lo + (hist_bucket_high(idx) - lo) / 2;
}

uint64_t hist_percentile(const hist_t *h, double p)
{
        if (h->n == 0)
                return 0;
        uint64_t rank = hist_rank(p, h->n), cum = 0;
        unsigned last = HIST_BUCKETS;
        for (unsigned i = 0; i < HIST_BUCKETS; i++) {
                if (!h->buckets[i])
                        continue;
                last = i;
                cum += h->buckets[i];
                if (cum >= rank)
                        break;
        }
        /* A snapshot taken mid-record can have n ahead of the buckets: fall back to the highest
         * non-empty bucket rather than to a bogus value. */
        if (last == HIST_BUCKETS)
                return 0;
        uint64_t v = bucket_mid(last);
        /* min/max are unset (min > max) when only hist_add_sparse() filled h. */
        if (h->min <= h->max)
                v = clamp_u64(v, h->min, h->max);
        return v;
}

void hist_percentiles(const hist_t *h, const double *p, size_t np, uint64_t *out)
{
        uint64_t cum = 0;
        unsigned i = 0, last = HIST_BUCKETS;
        /* One walk over the buckets for the whole (ascending) list, the same answers as
         * hist_percentile() one by one. */
        for (size_t q = 0; q < np; q++) {
                uint64_t rank;
                if (h->n == 0) {
                        out[q] = 0;
                        continue;
                }
                if (q > 0 && p[q] < p[q - 1]) {
                        out[q] = hist_percentile(h, p[q]);
                        continue;
                }
                rank = hist_rank(p[q], h->n);
                while (cum < rank && i < HIST_BUCKETS) {
                        if (h->buckets[i]) {
                                last = i;
                                cum += h->buckets[i];
                        }
                        i++;
                }
                if (last == HIST_BUCKETS) {
                        out[q] = 0;
                        continue;
                }
                out[q] = bucket_mid(last);
                if (h->min <= h->max)
                        out[q] = clamp_u64(out[q], h->min, h->max);
        }
}

double hist_mean(const hist_t *h)
{
        if (h->n == 0)
                return 0;
        return (double)h->sum / (double)h->n;
}

double hist_stddev(const hist_t *h)
{
        if (h->n < 2)
                return 0;
        double n = (double)h->n;
        double mean = (double)h->sum / n;
        /* sumsq/n - mean^2 cancels badly when the spread is tiny next to the mean; rounding can
         * then leave a small negative variance. */
        double var = h->sumsq / n - mean * mean;
        return var > 0 ? sqrt(var) : 0;
}

size_t hist_to_sparse(const hist_t *h, uint32_t *idx, uint64_t *cnt, size_t cap)
{
        size_t k = 0;
        for (unsigned i = 0; i < HIST_BUCKETS; i++) {
                if (!h->buckets[i])
                        continue;
                if (k < cap) {
                        idx[k] = i;
                        cnt[k] = h->buckets[i];
                }
                k++;
        }
        return k;
}

int hist_add_sparse(hist_t *h, const uint32_t *idx, const uint64_t *cnt, size_t n)
{
        /* Data from a peer: check every entry before touching h so a bad message leaves no
         * half-added histogram behind. A count that would wrap a bucket is rejected too. */
        for (size_t k = 0; k < n; k++) {
                if (idx[k] >= HIST_BUCKETS)
                        return -EINVAL;
                if (k > 0 && idx[k] <= idx[k - 1])
                        return -EINVAL;
                if (cnt[k] > UINT64_MAX - h->buckets[idx[k]])
                        return -EINVAL;
        }
        for (size_t k = 0; k < n; k++)
                h->buckets[idx[k]] += cnt[k];
        return 0;
}
