/* fio's way of writing a number for people (its num2str()): a given number of significant
 * digits, a 1000 or 1024 step with SI or IEC prefixes, and a unit. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum fio_unit {
        FIO_UNIT_NONE,         /* a count: "1036", "12.3k" */
        FIO_UNIT_BYTE,         /* "4152KiB", "4252kB" */
        FIO_UNIT_BYTE_PER_SEC, /* "4148KiB/s" */
        FIO_UNIT_BIT_PER_SEC,  /* the number is bytes; shown as bits: "33.2Mibit/s" */
} fio_unit_t;

/* num in at most maxlen characters of digits and point (fio's significant_figures), divided by
 * 1024 (pow2: Ki, Mi, ...) or 1000 (k, M, ...) until it fits, the first dropped digit rounding
 * as fio's does, then the unit. Returns buf. */
const char *fio_units_str(char *buf, size_t len, uint64_t num, int maxlen, bool pow2,
                          fio_unit_t unit);
