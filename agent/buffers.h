/* What a job's writes carry, as fio's buffer options make it: random (scrambled or refilled),
 * zeroes, a pattern, compressible to a percentage, deduplicable to a percentage. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "options.h"
#include "pattern.h"

typedef enum buffers_mode {
        BUFFERS_SCRAMBLE, /* fio's default: random once, then a few bytes per sector changed */
        BUFFERS_STATIC,   /* filled once, written as it is (zero_buffers, buffer_pattern, or
                           * scramble_buffers=0) */
        BUFFERS_REFILL,   /* new content for every write (refill_buffers, compress, dedupe) */
} buffers_mode_t;

/* One worker's buffer contents: its options, read once, and the state of its generator. */
typedef struct buffers {
        buffers_mode_t mode;
        bool zero;                /* static content is zeroes (else random or the pattern) */
        bool has_pattern;
        pattern_t pattern;        /* buffer_pattern */
        uint32_t compress_pct;    /* buffer_compress_percentage: the share of each chunk that is
                                   * fixed (zeroes or the pattern) rather than random */
        uint64_t compress_chunk;  /* 0: the whole buffer is one chunk */
        uint32_t dedupe_pct;
        int dedupe_mode;          /* JOB_DEDUPE_* */
        uint64_t state;           /* the generator: each buffer's content is a seed's */
        uint64_t last_unique;     /* seed of the last unique buffer (dedupe_mode=repeat) */
        uint64_t *working_set;    /* dedupe_mode=working_set: seeds of the first unique buffers */
        size_t ws_len, ws_cap;
        uint64_t scramble_tag;    /* changes with every scrambled write */
} buffers_t;

/* Reads j's buffer options (with fio's implications: a pattern or zeroes are written as they
 * are unless scramble_buffers is given; compression and dedupe refill every write) for a worker
 * writing files of file_bytes bytes with blocks of bs (the dedupe working set's size). seed makes
 * the worker's data its own. 0, or -EINVAL/-ENOMEM with err naming the option. */
int buffers_init(buffers_t *b, const job_spec_t *j, uint64_t seed, uint64_t file_bytes,
                 uint64_t bs, char *err, size_t errlen);
void buffers_done(buffers_t *b);

/* Fills len bytes of buffers as the job's first content (at prepare, and for layout). */
void buffers_fill(buffers_t *b, void *buf, size_t len);

/* Makes buf (len bytes, about to be written at offset) what the next write carries. */
void buffers_prep_write(buffers_t *b, void *buf, size_t len, uint64_t offset);
