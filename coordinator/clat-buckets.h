/* Completion latency in the fixed buckets /metrics exposes as a Prometheus histogram: a coarse,
 * cumulative copy of the agents' log-linear interval histograms, one per agent and direction. */
#pragma once

#include <stdint.h>

#include "wire.h"

/* Finite bucket bounds, from 5 us (page cache, NVMe) to 10 s (a stalled NFS server); a last
 * bucket (+Inf) holds the rest. */
#define CLAT_BUCKETS 20

typedef struct clat_bound {
        const char *le; /* the bound as the le label writes it, in seconds */
        uint64_t ns;
} clat_bound_t;

extern const clat_bound_t clat_bounds[CLAT_BUCKETS];

typedef struct clat_buckets {
        uint64_t n[CLAT_BUCKETS + 1]; /* per bucket (not cumulative); n[CLAT_BUCKETS]: above */
        uint64_t count;
        uint64_t sum_ns;
} clat_buckets_t;

/* Adds an interval's histogram as it came on the wire (decoded, so validated). NULL-safe. */
void clat_buckets_add_wire(clat_buckets_t *b, const Iofleet__Hist *h);
void clat_buckets_add(clat_buckets_t *dst, const clat_buckets_t *src);
