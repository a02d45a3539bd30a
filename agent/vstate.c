/* One worker's verification in its I/O loop (fio's verify options beyond the checksum): what
 * its writes carry (header kind, verify_interval, verify_offset, verify_pattern), which written
 * blocks are still to be read back (verify_backlog, the do_verify phase, verify_only), and the
 * check of what a read brought back. */
#include "vstate.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

int vstate_init(vstate_t *v, const job_spec_t *j, unsigned nfiles, const uint64_t *nblocks,
                const uint64_t *base, uint64_t bs, char *err, size_t errlen)
{
        int r;

        memset(v, 0, sizeof(*v));
        v->kind = j->verify;
        /* fio: verify_pattern alone is verify=pattern */
        if (!strempty(j->verify_pattern)) {
                if ((r = pattern_parse("verify_pattern", j->verify_pattern, true, &v->pattern, err,
                                       errlen)) < 0)
                        return r;
                v->has_pattern = true;
                if (!j->verify_set)
                        v->kind = VERIFY_PATTERN;
        }
        if (v->kind == VERIFY_NONE || v->kind == VERIFY_NULL)
                return 0;
        if (v->kind == VERIFY_PATTERN && !v->has_pattern)
                return errorf(err, errlen, -EINVAL, "verify=pattern: needs verify_pattern");
        v->interval = j->verify_interval && j->verify_interval < bs ? j->verify_interval : 0;
        if (job_spec_bs_varies(j, DDIR_WRITE)) {
                /* Writes of mixed sizes (bssplit, bsrange): a header in every unit of the
                 * smallest (fio's verify_interval defaults to it), so that a read-back of any
                 * unit checks. Units of unaligned sizes would straddle those of other writes. */
                if (j->bs_unaligned)
                        return errorf(err, errlen, -EINVAL,
                                      "verify: needs block sizes that are multiples of the "
                                      "smallest; bs_unaligned=1 makes them any size");
                if (!v->interval)
                        v->interval = bs;
        }
        if (v->interval && (bs % v->interval || v->interval < VERIFY_MIN_LEN))
                return errorf(err, errlen, -EINVAL,
                              "verify_interval: %" PRIu64 " must divide bs=%" PRIu64
                              " and be at least %d",
                              v->interval, bs, VERIFY_MIN_LEN);
        v->voffset = j->verify_offset;
        if (v->voffset && (v->kind == VERIFY_PATTERN ||
                           v->voffset + VERIFY_HEADER_SIZE > (v->interval ? v->interval : bs) ||
                           v->voffset < VERIFY_HEADER_SIZE))
                return errorf(err, errlen, -EINVAL,
                              "verify_offset: %" PRIu64 " must leave the %d-byte header inside "
                              "each %" PRIu64 "-byte unit, past its own place",
                              v->voffset, VERIFY_HEADER_SIZE, v->interval ? v->interval : bs);
        v->bs = bs;
        v->nfiles = nfiles;
        v->readback = j->do_verify || j->verify_backlog || j->verify_only;
        v->backlog = j->verify_backlog;
        v->batch = j->verify_backlog_batch ? j->verify_backlog_batch : j->verify_backlog;
        if (!v->readback || !nfiles)
                return 0;
        /* Blocks are read back where the map says, in units of the smallest write: writes must
         * start on them. */
        if ((rw_mode_is_random(j->rw) && j->blockalign[DDIR_WRITE] &&
             j->blockalign[DDIR_WRITE] % bs) ||
            (j->rw_seq_add && (uint64_t)(j->rw_seq_add < 0 ? -j->rw_seq_add : j->rw_seq_add) % bs))
                return errorf(err, errlen, -EINVAL,
                              "verify: reading back what was written needs writes that start on "
                              "multiples of the smallest write size %" PRIu64
                              " (blockalign, rw=...:N place them elsewhere); give do_verify=0 "
                              "to check only on later reads",
                              bs);
        v->nblocks = calloc(nfiles, sizeof(*v->nblocks));
        v->base = calloc(nfiles, sizeof(*v->base));
        v->bits = calloc(nfiles, sizeof(*v->bits));
        if (!v->nblocks || !v->base || !v->bits)
                return -ENOMEM;
        for (unsigned i = 0; i < nfiles; i++) {
                v->nblocks[i] = nblocks[i];
                v->base[i] = base[i];
                v->bits[i] = calloc((nblocks[i] + 63) / 64 + 1, sizeof(uint64_t));
                if (!v->bits[i])
                        return -ENOMEM;
        }
        if (v->backlog) {
                v->q_cap = (size_t)(v->backlog > 1u << 20 ? 1u << 20 : v->backlog);
                v->q_file = calloc(v->q_cap, sizeof(*v->q_file));
                v->q_block = calloc(v->q_cap, sizeof(*v->q_block));
                if (!v->q_file || !v->q_block)
                        return -ENOMEM;
        }
        return 0;
}

void vstate_done(vstate_t *v)
{
        for (unsigned i = 0; v->bits && i < v->nfiles; i++)
                free(v->bits[i]);
        free(v->bits);
        free(v->nblocks);
        free(v->base);
        free(v->q_file);
        free(v->q_block);
        memset(v, 0, sizeof(*v));
}

/* The header (first VERIFY_HEADER_SIZE bytes of a unit) and the bytes at voffset traded. */
static void swap_header(uint8_t *unit, uint64_t voffset)
{
        uint8_t tmp[VERIFY_HEADER_SIZE];
        memcpy(tmp, unit, sizeof(tmp));
        memcpy(unit, unit + voffset, sizeof(tmp));
        memcpy(unit + voffset, tmp, sizeof(tmp));
}

void vstate_fill(const vstate_t *v, void *buf, size_t len, uint64_t offset, uint64_t generation,
                 uint64_t seed)
{
        uint8_t *p = buf;
        size_t unit = v->interval ? (size_t)v->interval : len;

        if (v->kind == VERIFY_PATTERN) {
                pattern_fill(&v->pattern, p, len, offset);
                return;
        }
        for (size_t o = 0; o + VERIFY_MIN_LEN <= len; o += unit) {
                size_t n = len - o < unit ? len - o : unit;
                if (v->has_pattern)
                        verify_fill_payload(p + o, n, offset + o, generation, seed, v->kind,
                                            &v->pattern);
                else
                        verify_fill(p + o, n, offset + o, generation, seed, v->kind);
                if (v->voffset)
                        swap_header(p + o, v->voffset);
        }
}

int vstate_check(const vstate_t *v, void *buf, size_t len, uint64_t offset, uint64_t seed,
                 verify_result_t *res)
{
        uint8_t *p = buf;
        size_t unit = v->interval ? (size_t)v->interval : len, bad;
        verify_expect_t exp = {.gen_min = 1, .gen_max = VERIFY_GEN_ANY, .seed = seed};

        if (v->kind == VERIFY_PATTERN) {
                memset(res, 0, sizeof(*res));
                res->offset = offset;
                if (pattern_matches(&v->pattern, p, len, offset, &bad))
                        return VERIFY_OK;
                res->status = VERIFY_CORRUPT;
                res->bad_first = bad;
                snprintf(res->description, sizeof(res->description),
                         "verify: block at offset %" PRIu64 " does not hold verify_pattern: "
                         "byte %zu is 0x%02x",
                         offset, bad, p[bad]);
                return VERIFY_CORRUPT;
        }
        for (size_t o = 0; o + VERIFY_MIN_LEN <= len; o += unit) {
                size_t n = len - o < unit ? len - o : unit;
                int r;
                if (v->voffset)
                        swap_header(p + o, v->voffset);
                exp.offset = offset + o;
                r = verify_check(p + o, n, &exp, res);
                if (r == VERIFY_OK && v->has_pattern &&
                    !pattern_matches(&v->pattern, p + o + VERIFY_HEADER_SIZE,
                                     n - VERIFY_HEADER_SIZE, offset + o, &bad)) {
                        res->status = VERIFY_CORRUPT;
                        snprintf(res->description, sizeof(res->description),
                                 "verify: block at offset %" PRIu64 " does not hold "
                                 "verify_pattern after its header: byte %zu differs",
                                 offset + o, bad + VERIFY_HEADER_SIZE);
                        r = VERIFY_CORRUPT;
                }
                if (r != VERIFY_OK)
                        return r;
        }
        return VERIFY_OK;
}

static void mark(vstate_t *v, unsigned f, uint64_t block, bool on)
{
        uint64_t bit = 1ULL << (block % 64), *w = &v->bits[f][block / 64];
        if (on && !(*w & bit)) {
                *w |= bit;
                v->pending++;
        } else if (!on && (*w & bit)) {
                *w &= ~bit;
                v->pending--;
        }
}

/* Block `block` of file written: to be read back, and queued for verify_backlog. */
static void written_block(vstate_t *v, unsigned file, uint64_t block)
{
        mark(v, file, block, true);
        if (!v->backlog)
                return;
        if (v->q_n == v->q_cap) { /* the oldest is left to the final phase */
                v->q_head = (v->q_head + 1) % v->q_cap;
                v->q_n--;
        }
        v->q_file[(v->q_head + v->q_n) % v->q_cap] = file;
        v->q_block[(v->q_head + v->q_n) % v->q_cap] = block;
        v->q_n++;
        if (v->q_n >= v->backlog && !v->batch_left)
                v->batch_left = v->batch;
}

void vstate_written(vstate_t *v, unsigned file, uint64_t offset, uint64_t len)
{
        uint64_t first, last;

        if (!v->bits || file >= v->nfiles || offset < v->base[file] || !len)
                return;
        /* whole blocks only: a job's last write, cut to what its size leaves, is not one */
        first = (offset - v->base[file]) / v->bs;
        last = first + len / v->bs;
        for (uint64_t b = first; b < last && b < v->nblocks[file]; b++)
                written_block(v, file, b);
}

bool vstate_next(vstate_t *v, bool phase, unsigned *file, uint64_t *offset)
{
        while (v->batch_left && v->q_n) {
                unsigned f = v->q_file[v->q_head];
                uint64_t b = v->q_block[v->q_head];
                v->q_head = (v->q_head + 1) % v->q_cap;
                v->q_n--;
                v->batch_left--;
                if (!(v->bits[f][b / 64] & (1ULL << (b % 64))))
                        continue; /* read back already */
                mark(v, f, b, false);
                *file = f;
                *offset = v->base[f] + b * v->bs;
                return true;
        }
        v->batch_left = 0;
        if (!phase || !v->bits)
                return false;
        for (; v->cur_file < v->nfiles; v->cur_file++, v->cur_block = 0)
                for (; v->cur_block < v->nblocks[v->cur_file]; v->cur_block++) {
                        uint64_t b = v->cur_block;
                        if (!(v->bits[v->cur_file][b / 64] & (1ULL << (b % 64))))
                                continue;
                        mark(v, v->cur_file, b, false);
                        *file = v->cur_file;
                        *offset = v->base[v->cur_file] + b * v->bs;
                        v->cur_block++;
                        return true;
                }
        return false;
}

void vstate_mark_all(vstate_t *v)
{
        for (unsigned f = 0; v->bits && f < v->nfiles; f++)
                for (uint64_t b = 0; b < v->nblocks[f]; b++)
                        mark(v, f, b, true);
}

uint64_t vstate_phase_bytes(vstate_t *v)
{
        v->cur_file = 0;
        v->cur_block = 0;
        v->q_n = 0;
        v->batch_left = 0;
        return v->pending * v->bs;
}
