/* Completion latency in the fixed buckets of the /metrics histogram, summed from the agents'
 * log-linear interval histograms. */
#include "clat-buckets.h"

#include "hist.h"

#define US 1000ULL
#define MS 1000000ULL
#define S 1000000000ULL

const clat_bound_t clat_bounds[CLAT_BUCKETS] = {
    {"5e-06", 5 * US},     {"1e-05", 10 * US},    {"2.5e-05", 25 * US}, {"5e-05", 50 * US},
    {"0.0001", 100 * US},  {"0.00025", 250 * US}, {"0.0005", 500 * US}, {"0.001", 1 * MS},
    {"0.0025", 2500 * US}, {"0.005", 5 * MS},     {"0.01", 10 * MS},    {"0.025", 25 * MS},
    {"0.05", 50 * MS},     {"0.1", 100 * MS},     {"0.25", 250 * MS},   {"0.5", 500 * MS},
    {"1", 1 * S},          {"2.5", 2500 * MS},    {"5", 5 * S},         {"10", 10 * S},
};

/* The fixed bucket of log-linear bucket idx: the first bound its whole range is at or below (a
 * log-linear bucket is at most 0.8% wide, so one straddling a bound moves up by that much). */
static unsigned bucket_of(unsigned idx)
{
        uint64_t high = hist_bucket_high(idx);
        unsigned lo = 0, hi = CLAT_BUCKETS;
        while (lo < hi) {
                unsigned mid = (lo + hi) / 2;
                if (high <= clat_bounds[mid].ns)
                        hi = mid;
                else
                        lo = mid + 1;
        }
        return lo;
}

void clat_buckets_add_wire(clat_buckets_t *b, const Iofleet__Hist *h)
{
        unsigned last = 0, fixed = 0;
        if (!h || h->n == 0)
                return;
        for (size_t i = 0; i < h->n_index && i < h->n_count; i++) {
                unsigned idx = h->index[i];
                if (idx >= HIST_BUCKETS)
                        continue; /* wire_decode refuses it; unreachable for decoded messages */
                /* The bins come in ascending order (wire_hist_from()): the fixed bucket only moves
                 * up, a step or two from the last one; out of order, it is looked up again. Every
                 * Interval of every agent comes through here. */
                if (i == 0 || idx < last)
                        fixed = bucket_of(idx);
                else
                        for (uint64_t high = hist_bucket_high(idx);
                             fixed < CLAT_BUCKETS && high > clat_bounds[fixed].ns;)
                                fixed++;
                last = idx;
                b->n[fixed] += h->count[i];
                /* _count must equal the +Inf bucket: the buckets' own sum, whatever n said. */
                b->count += h->count[i];
        }
        b->sum_ns += h->sum;
}

void clat_buckets_add(clat_buckets_t *dst, const clat_buckets_t *src)
{
        for (unsigned i = 0; i <= CLAT_BUCKETS; i++)
                dst->n[i] += src->n[i];
        dst->count += src->count;
        dst->sum_ns += src->sum_ns;
}
