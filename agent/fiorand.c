/* fio's random streams and skewed distributions: the combined Tausworthe generators (32 and 64
 * bit) seeded as fio 3.33 seeds its jobs, an LFSR that visits every block once, and zipf,
 * pareto, normal (fio's definitions, ranks spread over the file by fio's hash). */
#include "fiorand.h"

#include <errno.h>
#include <math.h>
#include <string.h>

/* L'Ecuyer's components need s1 > 1, s2 > 7, s3 > 15 (and the 64-bit ones their own floors):
 * fio lifts a seed below a component's floor by that floor. */
static uint64_t lift(uint64_t x, uint64_t floor)
{
        return x < floor ? x + floor : x;
}

void fiorand_seed(fiorand_t *r, uint64_t seed, bool use64)
{
        /* fio's first LCG input is (2^31) + (2^17) + (2^7) with '^' read as C reads it: 53. */
        const uint64_t start = 53;

        memset(r, 0, sizeof(*r));
        r->use64 = use64;
        if (!use64) {
                uint32_t s = (uint32_t)seed;
                r->s[0] = (uint32_t)lift((uint32_t)(start * 69069u) ^ s, 1);
                r->s[1] = (uint32_t)lift((uint32_t)(r->s[0] * 69069u) ^ s, 7);
                r->s[2] = (uint32_t)lift((uint32_t)(r->s[1] * 69069u) ^ s, 15);
        } else {
                static const uint64_t floors[5] = {1, 7, 15, 33, 49};
                uint64_t x = start;
                for (int i = 0; i < 5; i++) {
                        r->t[i] = lift((x * 6906969069ULL) ^ seed, floors[i]);
                        x = r->t[i];
                }
        }
        for (int i = 0; i < 6; i++)
                fiorand_next(r);
}

uint64_t fiorand_job_seed(uint64_t randseed, unsigned thread_number, unsigned which)
{
        uint64_t seed = randseed;
        for (int i = 0; i < 4; i++)
                seed *= 0x9e370001ULL;
        for (unsigned i = 0; i < which; i++)
                seed *= 0x9e370001ULL;
        return seed * thread_number + which;
}

/* --- LFSR ---------------------------------------------------------------------------------- */

/* Taps of maximal-length LFSRs of 2..64 bits (Xilinx XAPP052, table 3), as bit numbers. */
static const unsigned char lfsr_taps[65][6] = {
    [2] = {2, 1},           [3] = {3, 2},           [4] = {4, 3},          [5] = {5, 3},
    [6] = {6, 5},           [7] = {7, 6},           [8] = {8, 6, 5, 4},    [9] = {9, 5},
    [10] = {10, 7},         [11] = {11, 9},         [12] = {12, 6, 4, 1},  [13] = {13, 4, 3, 1},
    [14] = {14, 5, 3, 1},   [15] = {15, 14},        [16] = {16, 15, 13, 4}, [17] = {17, 14},
    [18] = {18, 11},        [19] = {19, 6, 2, 1},   [20] = {20, 17},       [21] = {21, 19},
    [22] = {22, 21},        [23] = {23, 18},        [24] = {24, 23, 22, 17}, [25] = {25, 22},
    [26] = {26, 6, 2, 1},   [27] = {27, 5, 2, 1},   [28] = {28, 25},       [29] = {29, 27},
    [30] = {30, 6, 4, 1},   [31] = {31, 28},        [32] = {32, 22, 2, 1}, [33] = {33, 20},
    [34] = {34, 27, 2, 1},  [35] = {35, 33},        [36] = {36, 25},       [37] = {37, 5, 4, 3, 2, 1},
    [38] = {38, 6, 5, 1},   [39] = {39, 35},        [40] = {40, 38, 21, 19}, [41] = {41, 38},
    [42] = {42, 41, 20, 19}, [43] = {43, 42, 38, 37}, [44] = {44, 43, 18, 17}, [45] = {45, 44, 42, 41},
    [46] = {46, 45, 26, 25}, [47] = {47, 42},       [48] = {48, 47, 21, 20}, [49] = {49, 40},
    [50] = {50, 49, 24, 23}, [51] = {51, 50, 36, 35}, [52] = {52, 49},     [53] = {53, 52, 38, 37},
    [54] = {54, 53, 18, 17}, [55] = {55, 31},       [56] = {56, 55, 35, 34}, [57] = {57, 50},
    [58] = {58, 39},        [59] = {59, 58, 38, 37}, [60] = {60, 59},      [61] = {61, 60, 46, 45},
    [62] = {62, 61, 6, 5},  [63] = {63, 62},        [64] = {64, 63, 61, 60},
};

int fiorand_lfsr_init(fiorand_lfsr_t *l, uint64_t n, uint64_t seed)
{
        unsigned bits = 2;

        if (n == 0 || n > (1ULL << 63))
                return -EINVAL;
        /* the register's states 1..2^bits-1 stand for values 0..2^bits-2 */
        while (bits < 64 && ((1ULL << bits) - 1) < n)
                bits++;
        memset(l, 0, sizeof(*l));
        l->n = n;
        l->mask = bits == 64 ? UINT64_MAX : (1ULL << bits) - 1;
        for (int i = 0; i < 6 && lfsr_taps[bits][i]; i++)
                l->taps |= 1ULL << (lfsr_taps[bits][i] - 1);
        l->state = (seed & l->mask) ? (seed & l->mask) : 1;
        return 0;
}

uint64_t fiorand_lfsr_next(fiorand_lfsr_t *l)
{
        /* Galois form: every non-zero state once per period of 2^bits - 1 steps. */
        do {
                uint64_t lsb = l->state & 1;
                l->state >>= 1;
                if (lsb)
                        l->state ^= l->taps;
        } while (l->state - 1 >= l->n);
        return l->state - 1;
}

/* --- skewed distributions --------------------------------------------------------------------- */

#define ZIPF_MAX_TERMS 10000000ULL
#define NORMAL_ITERS 12

void fiorand_dist_init(fiorand_dist_t *d, fiorand_dist_kind_t kind, uint64_t n, double param,
                       double center, uint64_t seed)
{
        memset(d, 0, sizeof(*d));
        d->kind = kind;
        d->n = n ? n : 1;
        fiorand_seed(&d->r, seed, false);
        if (kind == FIORAND_NORMAL) {
                if (param != 0.0) {
                        d->stddev = (uint64_t)ceil((double)d->n * param / 100.0);
                        if (d->stddev > d->n / 2)
                                d->stddev = d->n / 2;
                }
                if (center != -1) {
                        /* fio turns the peak by n x (center - 0.5), modulo n */
                        double t = (double)d->n * (center - 0.5);
                        int64_t o = (int64_t)t % (int64_t)d->n;
                        d->off = (uint64_t)(o < 0 ? o + (int64_t)d->n : o);
                }
                return;
        }
        d->off = fiorand_next(&d->r);
        if (center != -1)
                d->off = (uint64_t)((double)d->n * center);
        if (kind == FIORAND_PARETO) {
                d->pow_ = log(param) / log(1.0 - param);
                return;
        }
        d->theta = param;
        d->zeta2 = 1.0 + pow(0.5, param);
        for (uint64_t i = 0, terms = d->n < ZIPF_MAX_TERMS ? d->n : ZIPF_MAX_TERMS; i < terms; i++)
                d->zetan += pow(1.0 / (double)(i + 1), param);
        d->alpha = 1.0 / (1.0 - param);
        d->eta = (1.0 - pow(2.0 / (double)d->n, 1.0 - param)) / (1.0 - d->zeta2 / d->zetan);
}

uint64_t fiorand_dist_next(fiorand_dist_t *d)
{
        uint64_t v;

        switch (d->kind) {
        case FIORAND_ZIPF: {
                /* Gray et al.'s inversion ("Quickly generating billion-record synthetic
                 * databases"): rank 1 and 2 exactly, the rest from the continuous approximation. */
                double u = ((double)fiorand_next(&d->r) + 1.0) / 4294967296.0, z = u * d->zetan;
                if (z < 1.0)
                        v = 1;
                else if (z < d->zeta2)
                        v = 2;
                else
                        v = 1 + (uint64_t)((double)d->n * pow(d->eta * u - d->eta + 1.0, d->alpha));
                v = fiorand_hash(v - 1);
                break;
        }
        case FIORAND_PARETO: {
                double u = (double)fiorand_next(&d->r) / 4294967295.0;
                v = fiorand_hash((uint64_t)((double)(d->n - 1) * pow(u, d->pow_)));
                break;
        }
        case FIORAND_NORMAL:
        default: {
                /* The mean of 12 uniform draws (a bell by the central limit theorem), widened by
                 * a uniform deviation of stddev, kept within the range. */
                uint64_t sum = 0;
                for (int i = 0; i < NORMAL_ITERS; i++)
                        sum += fiorand_next(&d->r) % (d->n + 1);
                sum = (sum + NORMAL_ITERS - 1) / NORMAL_ITERS;
                if (d->stddev) {
                        int64_t dev = (int64_t)((double)d->stddev * fiorand_frac(&d->r)) -
                                      (int64_t)(d->stddev / 2);
                        /* halved until it stays within [0, n), as fio's unsigned sum does */
                        while (dev + (int64_t)sum >= (int64_t)d->n || dev + (int64_t)sum < 0)
                                dev /= 2;
                        sum = (uint64_t)((int64_t)sum + dev);
                }
                v = fiorand_hash(sum);
                break;
        }
        }
        return (v + d->off) % d->n;
}
