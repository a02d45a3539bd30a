/* What a job's writes carry, as fio's buffer options make it: random (scrambled or refilled),
 * zeroes, a pattern, compressible to a percentage, deduplicable to a percentage. */
#include "buffers.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define SECTOR 512u
#define WORKING_SET_MAX (1u << 20) /* seeds kept for dedupe_mode=working_set */

static inline uint64_t splitmix(uint64_t *x)
{
        uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
}

/* len bytes of random data from seed (xorshift64*: cheap, neither compresses nor repeats). */
static void fill_random(void *buf, size_t len, uint64_t seed)
{
        uint64_t x = seed | 1, v;
        uint8_t *p = buf;
        size_t i = 0;

        for (; i + 8 <= len; i += 8) {
                x ^= x >> 12;
                x ^= x << 25;
                x ^= x >> 27;
                v = x * 0x2545f4914f6cdd1dULL;
                memcpy(p + i, &v, 8);
        }
        if (i < len) {
                x ^= x >> 12;
                x ^= x << 25;
                x ^= x >> 27;
                v = x * 0x2545f4914f6cdd1dULL;
                memcpy(p + i, &v, len - i);
        }
}

/* The fixed part of content: zeroes, or the pattern (from its start, as fio's cpy_pattern). */
static void fill_fixed(const buffers_t *b, uint8_t *p, size_t len)
{
        if (b->has_pattern)
                pattern_fill(&b->pattern, p, len, 0);
        else
                memset(p, 0, len);
}

/* One buffer's content from seed: each chunk (buffer_compress_chunk; the whole buffer when 0)
 * starts with (100 - compress)% random bytes and ends fixed, as fio lays it out. */
static void fill_content(const buffers_t *b, void *buf, size_t len, uint64_t seed)
{
        uint8_t *p = buf;
        size_t chunk;

        if (!b->compress_pct) {
                fill_random(p, len, seed);
                return;
        }
        if (b->compress_pct >= 100) {
                fill_fixed(b, p, len);
                return;
        }
        chunk = b->compress_chunk && b->compress_chunk < len ? (size_t)b->compress_chunk : len;
        for (size_t off = 0, k = 0; off < len; k++) {
                size_t rnd = chunk * (100 - b->compress_pct) / 100, fixed;
                if (rnd > len - off)
                        rnd = len - off;
                fill_random(p + off, rnd, seed ^ (k * 0x9e3779b97f4a7c15ULL));
                off += rnd;
                fixed = chunk - rnd;
                if (fixed > len - off)
                        fixed = len - off;
                fill_fixed(b, p + off, fixed);
                off += fixed;
        }
}

int buffers_init(buffers_t *b, const job_spec_t *j, uint64_t seed, uint64_t file_bytes,
                 uint64_t bs, char *err, size_t errlen)
{
        bool scramble;
        int r;

        memset(b, 0, sizeof(*b));
        b->state = seed ^ 0xb0ffe25b0ffe25ULL;
        b->compress_pct = j->buffer_compress_percentage;
        b->compress_chunk = j->buffer_compress_chunk;
        b->dedupe_pct = j->dedupe_percentage;
        b->dedupe_mode = j->dedupe_mode;
        if (!strempty(j->buffer_pattern)) {
                r = pattern_parse("buffer_pattern", j->buffer_pattern, false, &b->pattern, err,
                                  errlen);
                if (r < 0)
                        return r;
                b->has_pattern = true;
        }
        /* fio: zeroes and a pattern are written as they are (refilled, they stay the same)
         * unless scramble_buffers is given; compression and dedupe make each write anew. */
        b->zero = j->zero_buffers && !b->has_pattern;
        scramble = j->scramble_buffers && (j->scramble_set || (!b->zero && !b->has_pattern));
        if (b->compress_pct || b->dedupe_pct)
                b->mode = BUFFERS_REFILL;
        else if (j->refill_buffers && !b->zero && !b->has_pattern)
                b->mode = BUFFERS_REFILL;
        else
                b->mode = scramble ? BUFFERS_SCRAMBLE : BUFFERS_STATIC;
        if (b->dedupe_pct && b->dedupe_mode == JOB_DEDUPE_WORKING_SET) {
                uint64_t want = bs ? file_bytes / 100 * j->dedupe_working_set_percentage / bs : 0;
                if (want == 0)
                        want = 1;
                b->ws_cap = want > WORKING_SET_MAX ? WORKING_SET_MAX : (size_t)want;
                b->working_set = calloc(b->ws_cap, sizeof(*b->working_set));
                if (!b->working_set)
                        return errorf(err, errlen, -ENOMEM,
                                      "dedupe_working_set_percentage: no memory for %zu buffers",
                                      b->ws_cap);
        }
        return 0;
}

void buffers_done(buffers_t *b)
{
        free(b->working_set);
        b->working_set = NULL;
}

void buffers_fill(buffers_t *b, void *buf, size_t len)
{
        if (b->zero)
                memset(buf, 0, len);
        else if (b->has_pattern && b->mode != BUFFERS_REFILL)
                pattern_fill(&b->pattern, buf, len, 0);
        else
                fill_content(b, buf, len, splitmix(&b->state));
}

/* The seed of the next buffer: a new one, or, dedupe_percentage of the time, one written before
 * (the last unique one, or one of the working set). */
static uint64_t next_seed(buffers_t *b)
{
        uint64_t s = splitmix(&b->state);

        if (b->dedupe_pct && (s >> 32) % 100 < b->dedupe_pct) {
                if (b->dedupe_mode == JOB_DEDUPE_REPEAT && b->last_unique)
                        return b->last_unique;
                if (b->dedupe_mode == JOB_DEDUPE_WORKING_SET && b->ws_len)
                        return b->working_set[(s & 0xffffffffu) % b->ws_len];
        }
        s = splitmix(&b->state);
        b->last_unique = s;
        if (b->working_set && b->ws_len < b->ws_cap)
                b->working_set[b->ws_len++] = s;
        return s;
}

/* fio's scramble_buffers: a few bytes of every 512-byte sector changed per write, so that no two
 * written sectors are alike to a deduplicating store. Here 8 bytes at each sector's start, a hash
 * of the sector's offset and the write's number: the rest of the random content stays as it is,
 * so the data does not become more compressible write after write (fio writes the offset itself,
 * mostly zero bytes, at a spot that moves). */
static void scramble(buffers_t *b, uint8_t *p, size_t len, uint64_t offset)
{
        uint64_t tag = ++b->scramble_tag << 40;

        for (size_t s = 0; s < len; s += SECTOR, offset += SECTOR) {
                uint64_t x = offset ^ tag, v = splitmix(&x);
                memcpy(p + s, &v, len - s < 8 ? len - s : 8);
        }
}

void buffers_prep_write(buffers_t *b, void *buf, size_t len, uint64_t offset)
{
        switch (b->mode) {
        case BUFFERS_SCRAMBLE:
                scramble(b, buf, len, offset);
                break;
        case BUFFERS_REFILL:
                fill_content(b, buf, len, next_seed(b));
                break;
        case BUFFERS_STATIC:
                break;
        }
}
