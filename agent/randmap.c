/* Random offsets of a worker: seeding of the streams and the random map's keys. */
#include "randmap.h"

#include <errno.h>

uint64_t randmap_splitmix64(uint64_t *x)
{
        uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
}

void randmap_rng_seed(randmap_rng_t *r, uint64_t seed)
{
        for (int i = 0; i < 4; i++)
                r->s[i] = randmap_splitmix64(&seed);
}

void randmap_rekey_(randmap_t *m)
{
        uint64_t x = m->key ^ (m->pass * 0xd1b54a32d192ed03ULL);
        m->k0 = randmap_splitmix64(&x);
        /* Odd multipliers: multiplication mod 2^m is then a bijection. */
        m->k1 = randmap_splitmix64(&x) | 1;
        m->k2 = randmap_splitmix64(&x) | 1;
        m->pos = 0;
}

int randmap_init(randmap_t *m, uint64_t nblocks, uint64_t key)
{
        unsigned b = 0;

        if (!nblocks)
                return -EINVAL;
        while (b < 64 && (1ULL << b) < nblocks)
                b++;
        m->n = nblocks;
        m->mask = b >= 64 ? UINT64_MAX : (1ULL << b) - 1;
        m->s1 = b / 2 ? b / 2 : 1;
        m->s2 = b / 3 + 1;
        m->key = key;
        m->pass = 0;
        randmap_rekey_(m);
        return 0;
}

uint64_t randmap_file_key(uint64_t seed, unsigned file, unsigned ddir)
{
        uint64_t x = seed ^ (0x7065726dULL ^ ((uint64_t)file * 2 + ddir));
        return randmap_splitmix64(&x);
}
