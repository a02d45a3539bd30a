/* fio's random streams and skewed distributions: the combined Tausworthe generators (32 and 64
 * bit) seeded as fio 3.33 seeds its jobs, an LFSR that visits every block once, and zipf,
 * pareto, normal (fio's definitions, ranks spread over the file by fio's hash). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/* fio's FIO_RANDSEED: with randrepeat=1 a job's offsets come from this times its thread number. */
#define FIORAND_RANDSEED 0xb1899bedULL

/* Which of fio's per-job seeds (td->rand_seeds[]; their order in fio 3.33). */
enum {
        FIORAND_BS_READ = 0,
        FIORAND_BS_WRITE = 1,
        FIORAND_MIX = 4,
        FIORAND_BLOCK = 6,
        FIORAND_SEQ_RAND_READ = 10,
        FIORAND_SEQ_RAND_WRITE = 11,
        FIORAND_POISSON = 15,
        FIORAND_ZONE = 16,
};

/* A stream: L'Ecuyer's maximally equidistributed combined Tausworthe generator, 3 x 32 bits
 * (period 2^88) or 5 x 64 bits (2^258). */
typedef struct fiorand {
        bool use64;
        uint32_t s[3];
        uint64_t t[5];
} fiorand_t;

/* Seeds a stream as fio's init_rand_seed() does (the 32-bit one takes the seed's low 32 bits). */
void fiorand_seed(fiorand_t *r, uint64_t seed, bool use64);

/* fio's td->rand_seeds[which] of job thread thread_number (1-based, counted over all jobs and
 * clones in order) from randseed, as fio 3.33 derives them when the seed is fixed. */
uint64_t fiorand_job_seed(uint64_t randseed, unsigned thread_number, unsigned which);

static inline uint64_t fiorand_next(fiorand_t *r)
{
        if (!r->use64) {
                uint32_t *s = r->s;
                s[0] = ((s[0] & 4294967294U) << 12) ^ (((s[0] << 13) ^ s[0]) >> 19);
                s[1] = ((s[1] & 4294967288U) << 4) ^ (((s[1] << 2) ^ s[1]) >> 25);
                s[2] = ((s[2] & 4294967280U) << 17) ^ (((s[2] << 3) ^ s[2]) >> 11);
                return s[0] ^ s[1] ^ s[2];
        } else {
                uint64_t *t = r->t, x;
                x = ((t[0] << 1) ^ t[0]) >> 53;
                t[0] = ((t[0] & 18446744073709551614ULL) << 10) ^ x;
                x = ((t[1] << 24) ^ t[1]) >> 50;
                t[1] = ((t[1] & 18446744073709551104ULL) << 5) ^ x;
                x = ((t[2] << 3) ^ t[2]) >> 23;
                t[2] = ((t[2] & 18446744073709547520ULL) << 29) ^ x;
                x = ((t[3] << 5) ^ t[3]) >> 24;
                t[3] = ((t[3] & 18446744073709420544ULL) << 23) ^ x;
                x = ((t[4] << 3) ^ t[4]) >> 33;
                t[4] = ((t[4] & 18446744073701163008ULL) << 8) ^ x;
                return t[0] ^ t[1] ^ t[2] ^ t[3] ^ t[4];
        }
}

/* The largest value the stream gives. */
static inline uint64_t fiorand_max(const fiorand_t *r)
{
        return r->use64 ? UINT64_MAX : UINT32_MAX;
}

/* r / (max + 1): uniform in [0, 1), as fio scales its draws. */
static inline double fiorand_frac(fiorand_t *r)
{
        double v = (double)fiorand_next(r);
        return r->use64 ? v / 18446744073709551616.0 : v / 4294967296.0;
}

/* fio's rand_between(): uniform in [lo, hi], both included. */
static inline uint64_t fiorand_between(fiorand_t *r, uint64_t lo, uint64_t hi)
{
        return lo + (uint64_t)((double)(hi - lo + 1) * fiorand_frac(r));
}

/* fio's __hash_u64: spreads a distribution's ranks over the file. */
static inline uint64_t fiorand_hash(uint64_t v)
{
        return v * 0x61C8864680B583EBULL;
}

/* A maximal-length linear feedback shift register (taps from Xilinx XAPP052) over [0, n): each
 * value exactly once per period, the rest of the register's range skipped. */
typedef struct fiorand_lfsr {
        uint64_t n, state, mask, taps, count;
} fiorand_lfsr_t;

/* Sets an LFSR over [0, n) starting from seed. 0, or -EINVAL for n 0 or above 2^63. */
int fiorand_lfsr_init(fiorand_lfsr_t *l, uint64_t n, uint64_t seed);
/* The next value; after n values the period starts again. */
uint64_t fiorand_lfsr_next(fiorand_lfsr_t *l);

/* A skewed distribution over [0, n) as fio defines it: zipf (theta), pareto (power h) or normal
 * (deviation in percent of the range), the rank hashed over the range and turned by center
 * (0..1; -1: a random turn for zipf/pareto, none for normal). */
typedef enum fiorand_dist_kind { FIORAND_ZIPF, FIORAND_PARETO, FIORAND_NORMAL } fiorand_dist_kind_t;

typedef struct fiorand_dist {
        fiorand_dist_kind_t kind;
        fiorand_t r;
        uint64_t n, off;
        double theta, zeta2, zetan, alpha, eta, pow_;
        uint64_t stddev;
} fiorand_dist_t;

/* Sets d over [0, n) (n >= 1). zipf's normalisation sums min(n, 10M) terms, as fio: about 50 ms
 * at 10M. */
void fiorand_dist_init(fiorand_dist_t *d, fiorand_dist_kind_t kind, uint64_t n, double param,
                       double center, uint64_t seed);
/* The next value in [0, n). */
uint64_t fiorand_dist_next(fiorand_dist_t *d);
