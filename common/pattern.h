/* fio's byte patterns (buffer_pattern, verify_pattern): parsed once, then laid over buffers. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PATTERN_MAX 512   /* bytes, as fio's MAX_PATTERN_SIZE */
#define PATTERN_MAX_FMT 8 /* %o tokens in one pattern */

/*
 * A pattern is a run of tokens, each adding bytes:
 *   0xdeadbeef  hex bytes in the order written (an odd count: the first digit alone is a byte)
 *   -12, 66     a decimal in [INT_MIN, INT_MAX]: its bytes little-endian, as few as it needs
 *               (0 is one zero byte; a negative number is its four bytes)
 *   "abcd"      the bytes between the quotes (no escapes)
 *   %o          (verify_pattern only) the block's offset, 8 bytes little-endian
 * e.g. 0xff%o"abcd"-12. fio's 'FILE' token (a file's contents) is refused: the file would be
 * read on every agent rather than where the job file is.
 */
typedef struct pattern {
        uint8_t bytes[PATTERN_MAX];
        size_t len;
        size_t fmt_at[PATTERN_MAX_FMT]; /* where each %o goes in bytes */
        size_t n_fmt;
} pattern_t;

/* Parses s into *p. allow_offset: %o is allowed (verify_pattern). 0, or -EINVAL/-EOPNOTSUPP
 * with err naming key, the bad token and what is allowed. */
int pattern_parse(const char *key, const char *s, bool allow_offset, pattern_t *p, char *err,
                  size_t errlen);

/* Fills buf (len bytes) with the pattern repeated from its start, each %o holding offset. */
void pattern_fill(const pattern_t *p, void *buf, size_t len, uint64_t offset);

/* Whether buf (len bytes, read at offset) is the pattern as pattern_fill() lays it; when not,
 * *bad (may be NULL) gets the first byte that differs. */
bool pattern_matches(const pattern_t *p, const void *buf, size_t len, uint64_t offset,
                     size_t *bad);
