/* fio's byte patterns (buffer_pattern, verify_pattern): parsed once, then laid over buffers. */
#include "pattern.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static int add(pattern_t *p, uint8_t b)
{
        if (p->len >= PATTERN_MAX)
                return -E2BIG;
        p->bytes[p->len++] = b;
        return 0;
}

/* "0x..." at s: hex digits up to the next "0x" (fio reads 0xff0x14 as two numbers). */
static int parse_hex(const char *s, pattern_t *p, const char **end)
{
        const char *d = s + 2;
        size_t n = 0;
        int r;

        while (hex_value(d[n]) >= 0 && !(d[n] == '0' && (d[n + 1] == 'x' || d[n + 1] == 'X') &&
                                      hex_value(d[n + 2]) >= 0))
                n++;
        if (n == 0)
                return -EINVAL;
        *end = d + n;
        if (n & 1) { /* the first digit alone */
                if ((r = add(p, (uint8_t)hex_value(d[0]))) < 0)
                        return r;
                d++;
                n--;
        }
        for (; n; n -= 2, d += 2)
                if ((r = add(p, (uint8_t)(hex_value(d[0]) << 4 | hex_value(d[1])))) < 0)
                        return r;
        return 0;
}

/* A decimal in int range, its bytes little-endian, as few as it needs. */
static int parse_dec(const char *s, pattern_t *p, const char **end)
{
        char *e;
        long long v;
        unsigned u;
        int r;

        errno = 0;
        v = strtoll(s, &e, 10);
        if (e == s || errno || v > INT_MAX || v < INT_MIN)
                return -EINVAL;
        /* strtoll reads "10x": the "0x" that follows belongs to the next token */
        if (e > s && e[-1] == '0' && (*e == 'x' || *e == 'X') && e - s >= 2) {
                e--;
                v /= 10;
        }
        *end = e;
        if (v == 0)
                return add(p, 0);
        for (u = (unsigned)(int)v; u; u >>= 8)
                if ((r = add(p, (uint8_t)(u & 0xff))) < 0)
                        return r;
        return 0;
}

int pattern_parse(const char *key, const char *s, bool allow_offset, pattern_t *p, char *err,
                  size_t errlen)
{
        const char *c = s, *end = NULL;
        int r = 0;

        memset(p, 0, sizeof(*p));
        if (!*s)
                return errorf(err, errlen, -EINVAL, "%s: needs a pattern (e.g. %s=0xdeadbeef)",
                              key, key);
        while (*c) {
                const char *tok = c;
                if (*c == '"') {
                        const char *q = strchr(c + 1, '"');
                        if (!q)
                                return errorf(err, errlen, -EINVAL,
                                              "%s: the string at '%.20s' has no closing '\"'", key,
                                              tok);
                        for (const char *x = c + 1; x < q && r == 0; x++)
                                r = add(p, (uint8_t)*x);
                        end = q + 1;
                } else if (*c == '\'') {
                        return errorf(err, errlen, -EOPNOTSUPP,
                                      "%s: fio's 'FILE' token is not supported by iofleet (the "
                                      "file would be read on each agent): give its bytes as "
                                      "0x...",
                                      key);
                } else if (*c == '%') {
                        if (c[1] != 'o')
                                return errorf(err, errlen, -EINVAL,
                                              "%s: unknown format '%.2s' (only %%o, the block's "
                                              "offset)",
                                              key, c);
                        if (!allow_offset)
                                return errorf(err, errlen, -EINVAL,
                                              "%s: %%o (the block's offset) is for "
                                              "verify_pattern only",
                                              key);
                        if (p->n_fmt >= PATTERN_MAX_FMT)
                                return errorf(err, errlen, -E2BIG, "%s: more than %d %%o", key,
                                              PATTERN_MAX_FMT);
                        p->fmt_at[p->n_fmt++] = p->len;
                        for (int i = 0; i < 8 && r == 0; i++)
                                r = add(p, 0);
                        end = c + 2;
                } else if (c[0] == '0' && (c[1] == 'x' || c[1] == 'X')) {
                        r = parse_hex(c, p, &end);
                        if (r == -EINVAL)
                                return errorf(err, errlen, -EINVAL,
                                              "%s: '%.20s' has no hex digits after 0x", key, tok);
                } else {
                        r = parse_dec(c, p, &end);
                        if (r == -EINVAL)
                                return errorf(err, errlen, -EINVAL,
                                              "%s: '%.20s' is not a pattern token (0xHEX, a "
                                              "decimal, \"text\"%s)",
                                              key, tok, allow_offset ? " or %o" : "");
                }
                if (r == -E2BIG)
                        return errorf(err, errlen, -E2BIG, "%s: longer than %d bytes", key,
                                      PATTERN_MAX);
                if (r < 0)
                        return r;
                c = end;
        }
        if (!p->len)
                return errorf(err, errlen, -EINVAL, "%s: '\"\"' gives no bytes", key);
        return 0;
}

/* The pattern's first len (<= p->len) bytes with offset pasted where %o is. */
static void first_copy(const pattern_t *p, uint8_t *dst, size_t len, uint64_t offset)
{
        memcpy(dst, p->bytes, len);
        for (size_t i = 0; i < p->n_fmt; i++)
                for (size_t k = 0; k < 8 && p->fmt_at[i] + k < len; k++)
                        dst[p->fmt_at[i] + k] = (uint8_t)(offset >> (8 * k));
}

void pattern_fill(const pattern_t *p, void *buf, size_t len, uint64_t offset)
{
        uint8_t *b = buf;
        size_t have;

        if (!len || !p->len)
                return;
        have = len < p->len ? len : p->len;
        first_copy(p, b, have, offset);
        /* Doubling copies, log2(len / pattern) of them: have stays a multiple of the pattern's
         * length, so every copy lands on a repetition's start. */
        while (have < len) {
                size_t n = len - have < have ? len - have : have;
                memcpy(b + have, b, n);
                have += n;
        }
}

bool pattern_matches(const pattern_t *p, const void *buf, size_t len, uint64_t offset,
                     size_t *bad)
{
        const uint8_t *b = buf;
        uint8_t first[PATTERN_MAX];
        size_t n = len < p->len ? len : p->len;

        first_copy(p, first, n, offset);
        for (size_t i = 0; i < len; i += p->len) {
                size_t k = len - i < p->len ? len - i : p->len;
                if (memcmp(b + i, first, k) == 0)
                        continue;
                for (size_t j = 0; j < k; j++)
                        if (b[i + j] != first[j]) {
                                if (bad)
                                        *bad = i + j;
                                return false;
                        }
        }
        return true;
}
