/* fio's value syntax: sizes with k/m/g suffixes and fractions, times with units, booleans. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* fio sizes (kb_base=1024): plain bytes, 0x hex, or a number (fractions allowed when the result
 * is whole) with k/m/g/t/p and an optional 'b', any case: powers of 1024; "kib"/"mib"/... are
 * powers of 1000 as fio's compatibility mode reads them. -EINVAL or -ERANGE. */
int parse_size(const char *s, uint64_t *ret);
/* The same, with why set to the reason on failure ("has an unknown suffix (...)"). */
int parse_size_why(const char *s, uint64_t *ret, const char **why);
/* parse_size_why() under fio's kb_base: 1024 as above, 1000 the reverse (k/kb = 1000, kib =
 * 1024: fio's SI mode). */
int parse_size_base_why(const char *s, int kb_base, uint64_t *ret, const char **why);
/* fio times: a number with us/usec, ms/msec, s/sec, m/min, h/hour, d/day; a bare number is in
 * default_unit_ns. -EINVAL or -ERANGE. */
int parse_duration(const char *s, uint64_t default_unit_ns, uint64_t *ret_ns);
int parse_duration_why(const char *s, uint64_t default_unit_ns, uint64_t *ret_ns, const char **why);
/* Boolean value: 1/0, true/false, yes/no, on/off, any case; empty means true (fio's
 * --time_based). */
int parse_bool(const char *s, bool *ret);
/* A duration in the largest unit that divides it exactly ("3650d", "90m", "1500ms", "7ns",
 * "0"), as parse_duration() reads it back; returns buf. */
const char *format_duration(char *buf, size_t n, uint64_t ns);
