/* A random map that remembers which blocks a pass has used: a bitmap with summary levels, so
 * that the next free block after a random pick is found in a few word reads (fio's axmap, in
 * its own words). For random I/O with mixed block sizes or fio's own generators, where the keyed
 * bijection of randmap.h cannot say which blocks an I/O covered. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

typedef struct blockmap {
        uint64_t n;       /* blocks */
        uint64_t used;    /* blocks set */
        unsigned levels;  /* level 0 has a bit per block, level k+1 a bit per full word of k */
        uint64_t *lvl[12];
        uint64_t words[12];
} blockmap_t;

/* Sets m over n blocks (n >= 1), all free. 0, -ENOMEM, or -E2BIG past 2^40 blocks. */
int blockmap_init(blockmap_t *m, uint64_t n);
void blockmap_free(blockmap_t *m);
/* Frees every block (a new pass). */
void blockmap_reset(blockmap_t *m);
bool blockmap_isset(const blockmap_t *m, uint64_t b);
/* The first free block at or after b, else the first free one from 0; UINT64_MAX when full. */
uint64_t blockmap_next_free(const blockmap_t *m, uint64_t b);
/* Marks up to k blocks from b (which must be free), stopping at the first used block or the end;
 * returns how many it marked (at least 1). */
uint64_t blockmap_mark(blockmap_t *m, uint64_t b, uint64_t k);
static inline bool blockmap_full(const blockmap_t *m)
{
        return m->used >= m->n;
}
/* Bytes the map of n blocks needs. */
uint64_t blockmap_bytes(uint64_t n);
