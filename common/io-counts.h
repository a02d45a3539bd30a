/* Read/write counters of an interval, an agent or the cluster, and their one add. */
#pragma once

#include <stdint.h>

typedef struct io_counts {
        uint64_t read_bytes, read_ios, write_bytes, write_ios, errors, meta_ops;
} io_counts_t;

/* to += v, field by field (the one place that knows the fields). */
static inline void io_counts_add(io_counts_t *to, const io_counts_t *v)
{
        to->read_bytes += v->read_bytes;
        to->read_ios += v->read_ios;
        to->write_bytes += v->write_bytes;
        to->write_ios += v->write_ios;
        to->errors += v->errors;
        to->meta_ops += v->meta_ops;
}
