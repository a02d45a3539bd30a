/* A random map that remembers which blocks a pass has used: a bitmap with summary levels, so
 * that the next free block after a random pick is found in a few word reads. */
#include "blockmap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAX_BLOCKS (1ULL << 40)

static uint64_t words_of(uint64_t bits)
{
        return (bits + 63) / 64;
}

uint64_t blockmap_bytes(uint64_t n)
{
        uint64_t total = 0, bits = n;
        do {
                uint64_t w = words_of(bits);
                total += w * 8;
                bits = w;
        } while (bits > 1);
        return total;
}

/* Sets the bits past the end of each level, so a partly used last word reads as full when its
 * real bits are. */
static void pad(blockmap_t *m)
{
        uint64_t bits = m->n;
        for (unsigned l = 0; l < m->levels; l++) {
                uint64_t w = m->words[l];
                if (bits % 64)
                        m->lvl[l][w - 1] |= ~0ULL << (bits % 64);
                bits = w;
        }
}

int blockmap_init(blockmap_t *m, uint64_t n)
{
        uint64_t bits = n;

        memset(m, 0, sizeof(*m));
        if (n == 0 || n > MAX_BLOCKS)
                return -E2BIG;
        m->n = n;
        do {
                uint64_t w = words_of(bits);
                m->words[m->levels] = w;
                m->lvl[m->levels] = calloc(w, sizeof(uint64_t));
                if (!m->lvl[m->levels]) {
                        blockmap_free(m);
                        return -ENOMEM;
                }
                m->levels++;
                bits = w;
        } while (bits > 1);
        pad(m);
        return 0;
}

void blockmap_free(blockmap_t *m)
{
        for (unsigned l = 0; l < m->levels; l++)
                free(m->lvl[l]);
        memset(m, 0, sizeof(*m));
}

void blockmap_reset(blockmap_t *m)
{
        for (unsigned l = 0; l < m->levels; l++)
                memset(m->lvl[l], 0, m->words[l] * sizeof(uint64_t));
        m->used = 0;
        pad(m);
}

bool blockmap_isset(const blockmap_t *m, uint64_t b)
{
        return b >= m->n || (m->lvl[0][b / 64] >> (b % 64)) & 1;
}

/* The first index at or after pos of level l whose bit is clear, or UINT64_MAX. */
static uint64_t find_clear(const blockmap_t *m, unsigned l, uint64_t pos)
{
        while (pos / 64 < m->words[l]) {
                uint64_t w = m->lvl[l][pos / 64] | ((1ULL << (pos % 64)) - 1);
                uint64_t up;
                if (w != ~0ULL)
                        return pos / 64 * 64 + (uint64_t)__builtin_ctzll(~w);
                if (l + 1 == m->levels)
                        return UINT64_MAX;
                /* the rest of this word is used: the next word of level l not full */
                up = find_clear(m, l + 1, pos / 64 + 1);
                if (up == UINT64_MAX)
                        return UINT64_MAX;
                pos = up * 64;
        }
        return UINT64_MAX;
}

uint64_t blockmap_next_free(const blockmap_t *m, uint64_t b)
{
        uint64_t r;
        if (blockmap_full(m))
                return UINT64_MAX;
        r = b < m->n ? find_clear(m, 0, b) : UINT64_MAX;
        if (r == UINT64_MAX || r >= m->n)
                r = find_clear(m, 0, 0);
        return r < m->n ? r : UINT64_MAX;
}

/* Marks word i of level l full in the levels above, as far as they fill up. */
static void propagate(blockmap_t *m, unsigned l, uint64_t i)
{
        while (l + 1 < m->levels) {
                uint64_t *w = &m->lvl[l + 1][i / 64];
                *w |= 1ULL << (i % 64);
                if (*w != ~0ULL)
                        return;
                l++;
                i /= 64;
        }
}

uint64_t blockmap_mark(blockmap_t *m, uint64_t b, uint64_t k)
{
        uint64_t done = 0;

        while (done < k && b < m->n) {
                uint64_t *w = &m->lvl[0][b / 64], bit = 1ULL << (b % 64);
                if (*w & bit)
                        break;
                *w |= bit;
                done++;
                if (*w == ~0ULL)
                        propagate(m, 0, b / 64);
                b++;
        }
        m->used += done;
        return done;
}
