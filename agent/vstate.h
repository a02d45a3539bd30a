/* One worker's verification in its I/O loop (fio's verify options beyond the checksum): what
 * its writes carry (header kind, verify_interval, verify_offset, verify_pattern), which written
 * blocks are still to be read back (verify_backlog, the do_verify phase, verify_only), and the
 * check of what a read brought back. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "options.h"
#include "pattern.h"
#include "verify.h"

typedef struct vstate {
        verify_kind_t kind;   /* VERIFY_NONE: nothing to do */
        bool has_pattern;     /* verify_pattern: the payload (or, with verify=pattern, all) */
        pattern_t pattern;
        uint64_t interval;    /* a header every this many bytes of a block (0: one) */
        uint64_t voffset;     /* the header swapped to this offset of each unit (0: none) */
        bool readback;        /* writes are read back (do_verify or verify_backlog) */
        /* Written blocks (of the write block size) not yet read back, per file. */
        uint64_t bs;
        unsigned nfiles;
        uint64_t *nblocks, *base, **bits, pending;
        /* verify_backlog: completed writes to read back, oldest first */
        uint64_t backlog, batch;
        uint32_t *q_file;
        uint64_t *q_block;
        size_t q_head, q_n, q_cap;
        uint64_t batch_left; /* reads of the current backlog batch still to issue */
        /* the read-back phase's cursor */
        unsigned cur_file;
        uint64_t cur_block;
} vstate_t;

/* Reads j's verify options for a worker whose nfiles files hold nblocks[i] blocks of bs bytes
 * from base[i]. 0, or -EINVAL/-ENOMEM with err. */
int vstate_init(vstate_t *v, const job_spec_t *j, unsigned nfiles, const uint64_t *nblocks,
                const uint64_t *base, uint64_t bs, char *err, size_t errlen);
void vstate_done(vstate_t *v);

/* Makes buf (len bytes, to be written at offset) what the reader checks: headers with the
 * checksum (each verify_interval), the pattern, the header moved to verify_offset. */
void vstate_fill(const vstate_t *v, void *buf, size_t len, uint64_t offset, uint64_t generation,
                 uint64_t seed);

/* Checks buf (len bytes read at offset; with verify_offset it is changed back first). Returns
 * VERIFY_OK (0), a verify_status_t (> 0) with res->description, or -errno. */
int vstate_check(const vstate_t *v, void *buf, size_t len, uint64_t offset, uint64_t seed,
                 verify_result_t *res);

/* A write of len bytes at offset in file completed: its blocks are to be read back. */
void vstate_written(vstate_t *v, unsigned file, uint64_t offset, uint64_t len);

/* verify_backlog: whether reads are due (a backlog of written blocks to read back). */
static inline bool vstate_backlog_due(const vstate_t *v)
{
        return v->batch_left > 0;
}

/* The next block to read back: of the backlog when one is due, else (phase) the next written
 * block in file and offset order. false when there is none. */
bool vstate_next(vstate_t *v, bool phase, unsigned *file, uint64_t *offset);

/* Every block of every file marked written (verify_only: what an earlier run wrote). */
void vstate_mark_all(vstate_t *v);
/* Starts the read-back phase from the first file; returns the bytes it will read. */
uint64_t vstate_phase_bytes(vstate_t *v);
