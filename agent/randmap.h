/* Random offsets of a worker: seeded streams, the keyed-bijection random map, uniform picks. */
#pragma once

#include <stdint.h>

/*
 * Streams are xoshiro256** seeded through splitmix64: fast, and the same sequence for the same
 * seed, so a random job repeats its offsets run after run as fio's randrepeat does. The struct
 * bodies are here because the worker's I/O path inlines the calls below.
 */
typedef struct randmap_rng {
        uint64_t s[4];
} randmap_rng_t;

/*
 * The random map without a bitmap: a keyed bijection of [0, 2^m) (2^m < 2n) made of
 * multiply-xorshift rounds, restricted to [0, n) by cycle walking (apply it again while the value
 * is out of range). Position i of a pass is block perm(i), so a pass visits every block exactly
 * once in a scrambled order, with O(1) memory and under two rounds per I/O on average. Each pass
 * gets new keys, so a time_based job does not repeat its order.
 */
typedef struct randmap {
        uint64_t n, mask, k0, k1, k2, key, pass, pos;
        unsigned s1, s2;
} randmap_t;

/* splitmix64: advances *x and returns its next output; also a good mixer of seeds. */
uint64_t randmap_splitmix64(uint64_t *x);

/* Seeds a stream; the same seed gives the same sequence. */
void randmap_rng_seed(randmap_rng_t *r, uint64_t seed);

/* Sets a map over blocks [0, nblocks) keyed by key. 0, or -EINVAL when nblocks is 0 (then m is
 * untouched). */
int randmap_init(randmap_t *m, uint64_t nblocks, uint64_t key);

/* The key of the map of one file and direction of a worker whose streams come from seed: maps
 * differ between files and directions, and repeat with the seed. */
uint64_t randmap_file_key(uint64_t seed, unsigned file, unsigned ddir);

static inline uint64_t randmap_rotl_(uint64_t x, int k)
{
        return (x << k) | (x >> (64 - k));
}

/* The stream's next 64 bits. */
static inline uint64_t randmap_rng_next(randmap_rng_t *r)
{
        uint64_t *s = r->s, result = randmap_rotl_(s[1] * 5, 7) * 9, t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = randmap_rotl_(s[3], 45);
        return result;
}

/* Uniform in [0, n) by multiply-shift, without a division on the I/O path (n > 0). This is also
 * norandommap's block pick: any block, repeats allowed. */
static inline uint64_t randmap_rng_below(randmap_rng_t *r, uint64_t n)
{
        return (uint64_t)(((unsigned __int128)randmap_rng_next(r) * n) >> 64);
}

/* Starts the map's next pass: new keys, position 0. Called by randmap_next() at a pass's end. */
void randmap_rekey_(randmap_t *m);

static inline uint64_t randmap_mix_(const randmap_t *m, uint64_t x)
{
        x = (x + m->k0) & m->mask;
        x ^= x >> m->s1;
        x = (x * m->k1) & m->mask;
        x ^= x >> m->s2;
        x = (x * m->k2) & m->mask;
        x ^= x >> m->s1;
        return x;
}

/* The next block of the map: every block once per pass, then the next pass in another order. */
static inline uint64_t randmap_next(randmap_t *m)
{
        uint64_t x = m->pos;
        do
                x = randmap_mix_(m, x);
        while (x >= m->n);
        if (++m->pos == m->n) {
                m->pass++;
                randmap_rekey_(m);
        }
        return x;
}
