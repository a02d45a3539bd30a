/* I/O generator: where a worker's next I/O goes and how long it is, for the jobs the plain fast path of
 * agent/worker.c does not cover (fio's get_next_offset() and get_next_buflen(), in its terms). */
#include "iogen.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blockmap.h"
#include "fiorand.h"

/* A map larger than this is refused (norandommap needs none): 1 bit per block, 2 GiB of it is
 * 16 Gi blocks, 64 TiB of 4 KiB blocks. */
#define MAP_MAX_BYTES (2ULL << 30)
/* Draws of a block size before the largest one that fits is taken instead. */
#define BS_TRIES 64

typedef struct zone_slot {
        uint64_t start, end; /* zoned: percent of the region; zoned_abs: bytes */
} zone_slot_t;

typedef struct pfile {
        uint64_t base, size;
        bool to_end; /* the region runs to the file's end: sequential I/O goes round */
        uint64_t last_pos[2];   /* relative: where the last I/O of a direction ended */
        uint64_t last_start[2]; /* relative: where it began */
        blockmap_t map[2];      /* map[1] unused when the directions share map[0] */
        fiorand_lfsr_t lfsr;
        uint64_t lfsr_left;
        fiorand_dist_t dist;
        uint64_t pass_bytes;
} pfile_t;

struct iogen {
        const job_spec_t *j;
        unsigned nfiles;
        pfile_t *f;
        fiorand_t off_rng, bs_rng[2], seq_rng[2], zone_rng;
        uint32_t seq_nr; /* I/Os until the next new offset (fio's td->ddir_seq_nr) */
        uint64_t minbs[2], maxbs[2], ba[2];
        bool random, use_map, shared_map, use_lfsr, use_dist, zoned[2];
        bool go_round; /* time_based or io_size: the end of a region starts it again */
        zone_slot_t zones[2][100];
};

bool iogen_needed(const job_spec_t *j)
{
        bool random = rw_mode_is_random(j->rw);
        for (unsigned d = 0; d < 2; d++)
                if (job_spec_bs_varies(j, d) || j->blockalign[d] ||
                    (random && j->percentage_random[d] < 100))
                        return true;
        return j->rw_seq_add || j->rw_seq_nr > 1 ||
               (random && (j->random_distribution != RAND_DIST_RANDOM ||
                           j->random_generator != RAND_GEN_DEFAULT));
}

/* fio's seed of stream `which` for this worker: fixed (randrepeat, or randseed given) from
 * randseed and the thread number, as fio 3.33; otherwise from the worker's own seed. */
static uint64_t stream_seed(const iogen_params_t *p, unsigned which)
{
        const job_spec_t *j = p->job;
        if (j->randrepeat || j->randseed_set)
                return fiorand_job_seed(j->randseed, p->thread_number, which);
        return p->seed ^ ((uint64_t)which * 0x9e3779b97f4a7c15ULL);
}

/* The block offsets' seed: fio's FIO_RANDSEED x thread number with randrepeat=1 (randseed then
 * plays no part, as in fio 3.33), its derived seed with randrepeat=0 and a randseed. iofleet's
 * own generator (random_generator not given) seeds from the worker's seed, so that agents and
 * clones differ. */
static uint64_t offset_seed(const iogen_params_t *p)
{
        const job_spec_t *j = p->job;
        if (j->random_generator == RAND_GEN_DEFAULT)
                return p->seed;
        if (j->randrepeat)
                return FIORAND_RANDSEED * p->thread_number;
        return stream_seed(p, FIORAND_BLOCK);
}

/* fio's zone_split_index: percent slot v (1..100) of the random I/Os to the range of its zone. */
static int zones_init(iogen_t *p, unsigned d, uint64_t smallest, char *err, size_t errlen)
{
        const job_zones_t *z = &p->j->zones[d];
        uint32_t acc = 0;
        uint64_t at = 0;

        if (!z->n)
                return 0;
        p->zoned[d] = true;
        for (uint32_t i = 0; i < z->n; i++) {
                uint64_t len = p->j->random_distribution == RAND_DIST_ZONED_ABS
                                   ? z->z[i].size
                                   : z->z[i].size_perc;
                for (uint32_t v = acc; v < acc + z->z[i].access_perc && v < 100; v++)
                        p->zones[d][v] = (zone_slot_t){at, at + len};
                acc += z->z[i].access_perc;
                at += len;
        }
        if (p->j->random_distribution == RAND_DIST_ZONED_ABS && at > smallest) {
                snprintf(err, errlen,
                         "random_distribution: the zoned_abs zones cover %llu bytes, more than "
                         "the %llu of the job's region of each file",
                         (unsigned long long)at, (unsigned long long)smallest);
                return -EINVAL;
        }
        return 0;
}

int iogen_new(const iogen_params_t *pp, iogen_t **ret, char *err, size_t errlen)
{
        const job_spec_t *j = pp->job;
        iogen_t *p = calloc(1, sizeof(*p));
        bool use64 = j->random_generator == RAND_GEN_TAUSWORTHE64;
        uint64_t smallest = UINT64_MAX, map_bytes = 0;
        int r = 0;

        if (!p)
                return -ENOMEM;
        p->j = j;
        p->nfiles = pp->nfiles;
        p->f = calloc(pp->nfiles ? pp->nfiles : 1, sizeof(*p->f));
        if (!p->f) {
                free(p);
                return -ENOMEM;
        }
        p->random = rw_mode_is_random(j->rw);
        p->seq_nr = 1;
        for (unsigned d = 0; d < 2; d++) {
                p->minbs[d] = job_spec_bs_min(j, d);
                p->maxbs[d] = job_spec_bs_max(j, d);
                /* fio: blockalign defaults to the smallest block size */
                p->ba[d] = j->blockalign[d] ? j->blockalign[d] : p->minbs[d];
        }
        p->go_round = j->time_based || j->io_size;
        for (unsigned i = 0; i < pp->nfiles; i++) {
                p->f[i].base = pp->base[i];
                p->f[i].size = pp->size[i];
                p->f[i].to_end = !pp->file_size || pp->base[i] + pp->size[i] >= pp->file_size[i];
                if (pp->size[i] < smallest)
                        smallest = pp->size[i];
        }
        /* fio turns the random map off for skewed distributions and for a blockalign other than
         * the block size; an LFSR needs none (it visits each block once by itself). */
        p->use_dist = j->random_distribution == RAND_DIST_ZIPF ||
                      j->random_distribution == RAND_DIST_PARETO ||
                      j->random_distribution == RAND_DIST_NORMAL;
        p->use_lfsr = p->random && j->random_generator == RAND_GEN_LFSR && !p->use_dist;
        p->use_map = p->random && !j->norandommap && !p->use_lfsr &&
                     j->random_distribution == RAND_DIST_RANDOM &&
                     p->ba[0] == p->minbs[0] && p->ba[1] == p->minbs[1];
        p->shared_map = p->minbs[0] == p->minbs[1] || !rw_mode_has_read(j->rw) ||
                        !rw_mode_has_write(j->rw);

        fiorand_seed(&p->off_rng, offset_seed(pp), use64 || smallest / p->ba[0] > UINT32_MAX);
        fiorand_seed(&p->bs_rng[0], stream_seed(pp, FIORAND_BS_READ), use64);
        fiorand_seed(&p->bs_rng[1], stream_seed(pp, FIORAND_BS_WRITE), use64);
        fiorand_seed(&p->seq_rng[0], stream_seed(pp, FIORAND_SEQ_RAND_READ), false);
        fiorand_seed(&p->seq_rng[1], stream_seed(pp, FIORAND_SEQ_RAND_WRITE), false);
        fiorand_seed(&p->zone_rng, stream_seed(pp, FIORAND_ZONE), use64);
        if (j->random_distribution == RAND_DIST_ZONED || j->random_distribution == RAND_DIST_ZONED_ABS)
                for (unsigned d = 0; d < 2 && r == 0; d++)
                        r = zones_init(p, d, smallest, err, errlen);

        for (unsigned i = 0; i < pp->nfiles && r == 0; i++) {
                pfile_t *f = &p->f[i];
                uint64_t range = p->minbs[0] < p->minbs[1] ? p->minbs[0] : p->minbs[1];
                for (unsigned d = 0; d < 2 && p->use_map; d++) {
                        uint64_t n = f->size / p->minbs[d];
                        if (d == 1 && p->shared_map)
                                break;
                        map_bytes += blockmap_bytes(n ? n : 1);
                        if (map_bytes > MAP_MAX_BYTES) {
                                snprintf(err, errlen,
                                         "the random map of %llu blocks per file needs more than "
                                         "%llu MiB; give norandommap=1",
                                         (unsigned long long)n,
                                         (unsigned long long)(MAP_MAX_BYTES >> 20));
                                r = -E2BIG;
                                break;
                        }
                        if ((r = blockmap_init(&f->map[d], n ? n : 1)) < 0) {
                                snprintf(err, errlen, "no memory for the random map of %llu blocks",
                                         (unsigned long long)n);
                                break;
                        }
                }
                if (r == 0 && p->use_lfsr) {
                        uint64_t n = f->size / p->ba[0];
                        fiorand_lfsr_init(&f->lfsr, n ? n : 1, offset_seed(pp) ^ i);
                        f->lfsr_left = f->lfsr.n;
                }
                if (r == 0 && p->use_dist)
                        fiorand_dist_init(&f->dist,
                                          j->random_distribution == RAND_DIST_ZIPF ? FIORAND_ZIPF
                                          : j->random_distribution == RAND_DIST_PARETO
                                              ? FIORAND_PARETO
                                              : FIORAND_NORMAL,
                                          (f->size + range - 1) / range, j->rand_param,
                                          j->rand_center, pp->seed ^ (0x9e3779b97f4a7c15ULL * (i + 1)));
        }
        if (r < 0) {
                iogen_destroy(&p);
                return r;
        }
        *ret = p;
        return 0;
}

void iogen_destroy(iogen_t **pp)
{
        iogen_t *p = *pp;
        if (!p)
                return;
        for (unsigned i = 0; i < p->nfiles; i++) {
                blockmap_free(&p->f[i].map[0]);
                blockmap_free(&p->f[i].map[1]);
        }
        free(p->f);
        free(p);
        *pp = NULL;
}

/* fio's get_next_seq_offset(): where the last I/O ended, plus rw=...:N's skip (backwards when
 * negative), wrapping at the region's ends. *wrapped when it went round. */
static uint64_t seq_offset(const iogen_t *p, const pfile_t *f, unsigned d, bool *wrapped)
{
        int64_t add = p->j->rw_seq_add;
        uint64_t pos = f->last_pos[d];

        if (pos && add) {
                int64_t np = (int64_t)pos + add;
                if (np < 0 || (uint64_t)np >= f->size) {
                        *wrapped = true;
                        np = add > 0 ? 0 : (int64_t)f->size + add;
                        if (np < 0)
                                np = 0;
                }
                pos = (uint64_t)np;
        }
        if (pos + p->minbs[d] > f->size) {
                *wrapped = true;
                pos = 0;
        }
        return pos;
}

/* fio's last_block(): how many ba-aligned starts the region has for direction d. */
static uint64_t last_block(const iogen_t *p, const pfile_t *f, unsigned d)
{
        uint64_t max = f->size;
        if (p->minbs[d] > p->ba[d])
                max -= p->minbs[d] - p->ba[d];
        return max / p->ba[d];
}

/* A random start of direction d in f, relative, aligned to ba (fio's get_next_rand_offset()). */
static uint64_t rand_offset(iogen_t *p, pfile_t *f, unsigned d)
{
        uint64_t lastb = last_block(p, f, d), b;

        if (!lastb)
                lastb = 1;
        if (p->zoned[d]) {
                const zone_slot_t *z = &p->zones[d][fiorand_between(&p->zone_rng, 1, 100) - 1];
                uint64_t start, n;
                if (p->j->random_distribution == RAND_DIST_ZONED_ABS) {
                        start = z->start / p->ba[d];
                        n = z->end / p->ba[d] - start;
                } else {
                        start = z->start * lastb / 100;
                        n = lastb * (z->end - z->start) / 100;
                }
                b = start + (uint64_t)((double)(n ? n : 1) * fiorand_frac(&p->off_rng));
                return b * p->ba[d];
        }
        if (p->use_dist) {
                for (int tries = 0; tries < BS_TRIES; tries++) {
                        b = fiorand_dist_next(&f->dist);
                        if (b * p->ba[d] + p->minbs[d] <= f->size)
                                return b * p->ba[d];
                }
                return 0;
        }
        if (p->use_lfsr) {
                if (!f->lfsr_left)
                        f->lfsr_left = f->lfsr.n;
                f->lfsr_left--;
                return fiorand_lfsr_next(&f->lfsr) * p->ba[d];
        }
        b = (uint64_t)((double)lastb * fiorand_frac(&p->off_rng));
        if (p->use_map) {
                blockmap_t *m = &f->map[p->shared_map ? 0 : d];
                if (blockmap_full(m)) /* the pass before used every block */
                        blockmap_reset(m);
                if (blockmap_isset(m, b))
                        b = blockmap_next_free(m, b);
        }
        return b * p->ba[d];
}

/* fio's get_next_buflen(): a block size of direction d for an I/O at pos. */
static uint64_t next_len(iogen_t *p, const pfile_t *f, unsigned d, uint64_t pos)
{
        const job_bssplit_t *s = &p->j->bssplit[d];
        uint64_t minbs = p->minbs[d], maxbs = p->maxbs[d], room = f->size - pos, len = minbs;
        uint64_t rmax = fiorand_max(&p->bs_rng[d]);

        if (minbs == maxbs)
                return minbs;
        for (int tries = 0; tries < BS_TRIES; tries++) {
                uint64_t r = fiorand_next(&p->bs_rng[d]);
                if (!s->n) {
                        len = minbs + (uint64_t)((double)maxbs * ((double)r / ((double)rmax + 1.0)));
                } else {
                        uint64_t perc = 0;
                        for (uint32_t i = 0; i < s->n; i++) {
                                if (!s->e[i].perc)
                                        continue;
                                len = s->e[i].bs;
                                perc += s->e[i].perc;
                                if (r / perc <= rmax / 100 && len <= room)
                                        break;
                        }
                }
                if (!p->j->bs_unaligned)
                        len -= len % minbs;
                if (len > maxbs)
                        len = maxbs;
                if (len && len <= room)
                        return len;
        }
        /* nothing drawn fits (a size whose weight is 0 is the only one small enough): the largest
         * that fits, as a last resort */
        len = minbs;
        for (uint32_t i = 0; i < s->n; i++)
                if (s->e[i].bs <= room && s->e[i].bs > len)
                        len = s->e[i].bs;
        return len;
}

/* Whether the pass over f ended with the I/O just prepared: a sequential position about to go
 * round, every block of the map or the LFSR used, or a region's worth of bytes without either.
 * A sequential job with holes whose region stops short of the file's end is done with the file
 * there instead (fio's get_next_offset() finds the offset past io_size), unless time_based or
 * io_size make fio start the file again. */
static int pass_ended(iogen_t *p, pfile_t *f, unsigned d, uint64_t len)
{
        bool wrap = false;

        if (!p->random) {
                seq_offset(p, f, d, &wrap);
                if (wrap && p->j->rw_seq_add > 0 && !f->to_end && !p->go_round)
                        return IOGEN_LAST;
                return wrap ? IOGEN_PASS_END : 0;
        }
        if (p->use_map)
                return blockmap_full(&f->map[p->shared_map ? 0 : d]) ? IOGEN_PASS_END : 0;
        if (p->use_lfsr)
                return !f->lfsr_left ? IOGEN_PASS_END : 0;
        f->pass_bytes += len;
        if (f->pass_bytes < f->size)
                return 0;
        f->pass_bytes = 0;
        return IOGEN_PASS_END;
}

void iogen_restart(iogen_t *p)
{
        p->seq_nr = 1;
        for (unsigned i = 0; i < p->nfiles; i++) {
                pfile_t *f = &p->f[i];
                memset(f->last_pos, 0, sizeof(f->last_pos));
                memset(f->last_start, 0, sizeof(f->last_start));
                for (unsigned d = 0; d < 2 && p->use_map; d++)
                        if (d == 0 || !p->shared_map)
                                blockmap_reset(&f->map[d]);
                f->lfsr_left = 0;
                f->pass_bytes = 0;
        }
}

int iogen_next(iogen_t *p, unsigned fi, unsigned d, uint64_t *offset, uint64_t *len)
{
        pfile_t *f = &p->f[fi];
        bool hit = false, is_random = false, wrap = false;
        uint64_t pos, l;

        if (--p->seq_nr == 0) {
                hit = true;
                p->seq_nr = p->j->rw_seq_nr;
        }
        if (!p->random || (!hit && p->j->rw_sequencer == RW_SEQ_SEQUENTIAL)) {
                pos = seq_offset(p, f, d, &wrap);
        } else if (!hit) { /* rw_sequencer=identical */
                pos = f->last_start[d];
        } else if (p->j->percentage_random[d] >= 100 ||
                   fiorand_between(&p->seq_rng[d], 1, 100) <= p->j->percentage_random[d]) {
                pos = rand_offset(p, f, d);
                is_random = true;
        } else {
                pos = seq_offset(p, f, d, &wrap);
        }
        if (pos + p->minbs[d] > f->size)
                pos = 0;
        l = next_len(p, f, d, pos);
        if (is_random && p->use_map) {
                /* the map counts in the smallest block size; an I/O ends at the first block a
                 * previous I/O of the pass covered (fio's mark_random_map()) */
                blockmap_t *m = &f->map[p->shared_map ? 0 : d];
                uint64_t unit = p->minbs[d];
                uint64_t got = blockmap_mark(m, pos / unit, (l + unit - 1) / unit);
                if (got * unit < l)
                        l = got * unit;
        }
        f->last_start[d] = pos;
        f->last_pos[d] = pos + l;
        *offset = f->base + pos;
        *len = l;
        return pass_ended(p, f, d, l);
}
