/* fio's value syntax: sizes with k/m/g suffixes and fractions, times with units, booleans. */
#include "parse.h"

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "util.h"

static bool is_digit(char c)
{
        return c >= '0' && c <= '9';
}

static char ascii_lower(char c)
{
        return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

static bool ascii_caseeq(const char *a, const char *b)
{
        for (; *a && *b; a++, b++)
                if (ascii_lower(*a) != ascii_lower(*b))
                        return false;
        return *a == *b;
}

static uint64_t gcd64(uint64_t a, uint64_t b)
{
        while (b) {
                uint64_t t = a % b;
                a = b;
                b = t;
        }
        return a;
}

/* A decimal number with an optional fraction: digits in *ip, the fraction as fnum/fden. */
typedef struct decimal {
        uint64_t ip, fnum, fden;
} decimal_t;

/* what: the reason given for text that is no number at all ("is not a size"). */
static int scan_decimal(const char **p, decimal_t *d, const char **why, const char *what)
{
        const char *s = *p;
        unsigned nfrac = 0;

        *d = (decimal_t){.fden = 1};
        if (*s == '-') {
                *why = "is negative";
                return -EINVAL;
        }
        if (!is_digit(*s)) {
                *why = what;
                return -EINVAL;
        }
        for (; is_digit(*s); s++)
                if (__builtin_mul_overflow(d->ip, 10, &d->ip) ||
                    __builtin_add_overflow(d->ip, (uint64_t)(*s - '0'), &d->ip))
                        return -ERANGE;
        if (*s == '.') {
                s++;
                if (!is_digit(*s)) {
                        *why = what;
                        return -EINVAL;
                }
                for (; is_digit(*s); s++) {
                        if (nfrac == 19) { /* 10^19 is the last power of ten in 64 bits */
                                if (*s != '0') {
                                        *why = "has more than 19 decimals";
                                        return -EINVAL;
                                }
                                continue;
                        }
                        d->fnum = d->fnum * 10 + (uint64_t)(*s - '0');
                        d->fden *= 10;
                        nfrac++;
                }
        }
        *p = s;
        return 0;
}

/* d * mult, exactly; -EINVAL when the fraction does not come out whole. */
static int scale_decimal(const decimal_t *d, uint64_t mult, uint64_t *ret, const char **why,
                         const char *whole)
{
        uint64_t v, fnum = d->fnum, fden = d->fden, g;

        if (__builtin_mul_overflow(d->ip, mult, &v))
                return -ERANGE;
        if (fnum) {
                g = gcd64(fnum, fden);
                fnum /= g;
                fden /= g;
                g = gcd64(mult, fden);
                fden /= g;
                if (fden != 1) {
                        *why = whole;
                        return -EINVAL;
                }
                if (__builtin_mul_overflow(fnum, mult / g, &fnum) ||
                    __builtin_add_overflow(v, fnum, &v))
                        return -ERANGE;
        }
        *ret = v;
        return 0;
}

/* parse_size() with the reason of a failure; -EOPNOTSUPP for fio forms iofleet lacks. */
int parse_size_why(const char *s, uint64_t *ret, const char **why)
{
        return parse_size_base_why(s, 1024, ret, why);
}

int parse_size_base_why(const char *s, int kb_base, uint64_t *ret, const char **why)
{
        static const char units[] = "kmgtp";
        const char *p = s, *u;
        uint64_t mult = 1, base = kb_base == 1000 ? 1000 : 1024, v = 0;
        unsigned pow = 0;
        decimal_t d;
        int r;

        if (!s || !*s) {
                *why = "is empty";
                return -EINVAL;
        }
        if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
                for (p += 2; hex_value(*p) >= 0; p++) {
                        if (v >> 60)
                                return -ERANGE;
                        v = v << 4 | (uint64_t)hex_value(*p);
                }
                if (p == s + 2 || *p) {
                        *why = "is not a hexadecimal number (no suffix allowed after 0x)";
                        return -EINVAL;
                }
                *ret = v;
                return 0;
        }
        r = scan_decimal(&p, &d, why, "is not a size");
        if (r < 0)
                return r;

        if (*p == '%') {
                *why = "is a percentage, which iofleet does not support yet";
                return -EOPNOTSUPP;
        }
        if (*p && (u = strchr(units, ascii_lower(*p)))) {
                pow = (unsigned)(u - units) + 1;
                p++;
                if (ascii_lower(*p) == 'i') {
                        p++;
                        if (ascii_lower(*p) != 'b') {
                                *why = "is ambiguous: fio's HOWTO reads 'ki' as 1000 and its "
                                       "parser as 1024; write k or kib";
                                return -EINVAL;
                        }
                        /* fio's kb_base=1024 compatibility: kib = 1000; kb_base=1000: 1024 */
                        base = kb_base == 1000 ? 1024 : 1000;
                }
        }
        if (ascii_lower(*p) == 'b')
                p++;
        if (*p) {
                *why = "has an unknown suffix (use k, m, g, t, p with an optional b; "
                       "kib, mib, gib, tib, pib for powers of 1000)";
                return -EINVAL;
        }
        while (pow--)
                mult *= base;
        r = scale_decimal(&d, mult, &v, why, "is not a whole number of bytes");
        if (r < 0)
                return r;
        *ret = v;
        return 0;
}

int parse_size(const char *s, uint64_t *ret)
{
        const char *why;
        uint64_t v;
        int r;

        r = parse_size_why(s, &v, &why);
        if (r < 0)
                return r == -ERANGE ? -ERANGE : -EINVAL;
        *ret = v;
        return 0;
}

static const struct {
        const char *name;
        uint64_t ns;
} time_units[] = {
    {"us", NSEC_PER_USEC}, {"usec", NSEC_PER_USEC}, {"ms", NSEC_PER_MSEC}, {"msec", NSEC_PER_MSEC},
    {"s", NSEC_PER_SEC},   {"sec", NSEC_PER_SEC},   {"m", NSEC_PER_MIN},   {"min", NSEC_PER_MIN},
    {"h", NSEC_PER_HOUR},  {"hour", NSEC_PER_HOUR}, {"d", NSEC_PER_DAY},   {"day", NSEC_PER_DAY},
};

int parse_duration_why(const char *s, uint64_t default_unit_ns, uint64_t *ret, const char **why)
{
        const char *p = s;
        uint64_t mult = 0, v;
        decimal_t d;
        int r;

        if (!s || !*s) {
                *why = "is empty";
                return -EINVAL;
        }
        if (default_unit_ns == 0) {
                *why = "has no unit to default to";
                return -EINVAL;
        }
        r = scan_decimal(&p, &d, why, "is not a time");
        if (r < 0)
                return r;
        if (!*p)
                mult = default_unit_ns;
        for (size_t i = 0; !mult && i < ELEMENTSOF(time_units); i++)
                if (ascii_caseeq(p, time_units[i].name))
                        mult = time_units[i].ns;
        if (!mult) {
                *why = "has an unknown unit (use us, ms, s, m, h or d)";
                return -EINVAL;
        }
        r = scale_decimal(&d, mult, &v, why, "is not a whole number of nanoseconds");
        if (r < 0)
                return r;
        *ret = v;
        return 0;
}

int parse_duration(const char *s, uint64_t default_unit_ns, uint64_t *ret_ns)
{
        const char *why;
        uint64_t v;
        int r;

        r = parse_duration_why(s, default_unit_ns, &v, &why);
        if (r < 0)
                return r;
        *ret_ns = v;
        return 0;
}

int parse_bool(const char *s, bool *ret)
{
        static const char *const yes[] = {"", "1", "true", "yes", "on"};
        static const char *const no[] = {"0", "false", "no", "off"};

        if (!s)
                return -EINVAL;
        for (size_t i = 0; i < ELEMENTSOF(yes); i++)
                if (ascii_caseeq(s, yes[i])) {
                        *ret = true;
                        return 0;
                }
        for (size_t i = 0; i < ELEMENTSOF(no); i++)
                if (ascii_caseeq(s, no[i])) {
                        *ret = false;
                        return 0;
                }
        return -EINVAL;
}

const char *format_duration(char *buf, size_t n, uint64_t ns)
{
        static const struct {
                const char *name;
                uint64_t ns;
        } units[] = {
            {"d", NSEC_PER_DAY}, {"h", NSEC_PER_HOUR},  {"m", NSEC_PER_MIN},
            {"s", NSEC_PER_SEC}, {"ms", NSEC_PER_MSEC}, {"us", NSEC_PER_USEC},
        };

        for (size_t i = 0; ns && i < ELEMENTSOF(units); i++)
                if (ns % units[i].ns == 0) {
                        snprintf(buf, n, "%llu%s", (unsigned long long)(ns / units[i].ns),
                                 units[i].name);
                        return buf;
                }
        snprintf(buf, n, ns ? "%lluns" : "%llu", (unsigned long long)ns);
        return buf;
}
