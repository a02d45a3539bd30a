/* Log-linear latency histograms: fixed bucket layout so histograms add bucket by bucket; relative
 * error <= 0.4%. */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* Values below 2^HIST_SUB_BITS get one bucket each; above, each power of two is split into
 * 2^HIST_SUB_BITS equal buckets. Values at or above 2^HIST_MAX_BITS (ns: ~3.3 days) share the
 * top bucket. */
#define HIST_SUB_BITS 7
#define HIST_SUB (1u << HIST_SUB_BITS)
#define HIST_MAX_BITS 48
#define HIST_BUCKETS (HIST_SUB + (HIST_MAX_BITS - HIST_SUB_BITS) * HIST_SUB)

/* fio's default percentile list. */
extern const double hist_default_percentiles[17];

/* One writer may record while other threads take snapshots: every field is updated with
 * relaxed single-writer stores, never read-modify-write atomics, to keep the I/O path cheap. */
typedef struct hist {
        uint64_t n;
        uint64_t min; /* UINT64_MAX when empty */
        uint64_t max;
        uint64_t sum;
        double sumsq;
        uint64_t buckets[HIST_BUCKETS];
} hist_t;

void hist_init(hist_t *h);
/* Allocates an empty histogram; 0 or -ENOMEM. */
int hist_new(hist_t **ret);
void hist_free(hist_t **hp);

unsigned hist_index(uint64_t v);
uint64_t hist_bucket_low(unsigned idx);
uint64_t hist_bucket_high(unsigned idx); /* inclusive */

/* Adds one value (single writer). */
void hist_record(hist_t *h, uint64_t v);
/* Copies src into dst while src's writer may still be recording. */
void hist_snapshot(hist_t *dst, const hist_t *src);
/* dst += src, bucket by bucket; min/max/sum combine exactly. */
void hist_merge(hist_t *dst, const hist_t *src);
/* dst = now - before (before must be an earlier snapshot of the same histogram). min and max of
 * the difference are bounded by its lowest and highest non-empty bucket. */
void hist_delta(hist_t *dst, const hist_t *now, const hist_t *before);

/* Value at percentile p (0 < p <= 100) with fio's rank rule: the first bucket where the
 * cumulative count reaches ceil(p/100 * n); the bucket's midpoint clamped to [min, max].
 * 0 when empty. */
uint64_t hist_percentile(const hist_t *h, double p);
/* hist_percentile() for each of np percentiles p (ascending: one walk over the buckets) into
 * out. */
void hist_percentiles(const hist_t *h, const double *p, size_t np, uint64_t *out);
double hist_mean(const hist_t *h);
double hist_stddev(const hist_t *h); /* population standard deviation, as fio reports */

/* Sparse form for the wire: non-empty buckets in ascending index order. Writes at most cap
 * entries and returns how many there are in all. */
size_t hist_to_sparse(const hist_t *h, uint32_t *idx, uint64_t *cnt, size_t cap);
/* Adds sparse buckets to h; -EINVAL if an index is out of range or not strictly ascending
 * (h is then unchanged). Does not touch n/min/max/sum/sumsq: the caller sets those. */
int hist_add_sparse(hist_t *h, const uint32_t *idx, const uint64_t *cnt, size_t n);
