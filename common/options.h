/* fio-style job options: one table drives the command line, job files and the wire. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum rw_mode {
        RW_READ,
        RW_WRITE,
        RW_RANDREAD,
        RW_RANDWRITE,
} rw_mode_t;

/* A parsed job section. Strings are owned (NULL when unset). */
typedef struct job_spec {
        char *name;
        rw_mode_t rw;       /* default read */
        uint64_t bs;        /* default 4096 */
        uint64_t size;      /* 0 = not given */
        uint32_t numjobs;   /* default 1 */
        uint64_t runtime_ns; /* 0 = not given */
        bool time_based;
        char *directory;
        char *filename;
        char *ioengine;     /* default "psync" */
} job_spec_t;

/* Fills defaults; name may be NULL. 0 or -ENOMEM. */
int job_spec_init(job_spec_t *j, const char *name);
void job_spec_done(job_spec_t *j);

/* Applies one option by its fio name. On failure writes one line into err naming the option
 * and what is allowed, and returns -ENOENT (unknown option), -EOPNOTSUPP (an fio option iofleet
 * does not implement), -EINVAL (bad value) or -ERANGE (out of range). */
int job_option_set(job_spec_t *j, const char *key, const char *value, char *err, size_t errlen);
/* Checks the job as a whole (bs <= size, a size or a runtime, time_based needs runtime, ...). */
int job_spec_validate(const job_spec_t *j, char *err, size_t errlen);

/* fio sizes (kb_base=1024): plain bytes or k/m/g/t/p with optional 'b', any case, powers of
 * 1024; "kib"/"mib"/... powers of 1000 as fio's compatibility mode reads them. */
int parse_size(const char *s, uint64_t *ret);
/* fio times: a number with us/usec, ms/msec, s/sec, m/min, h/hour, d/day; a bare number is in
 * default_unit_ns. */
int parse_duration(const char *s, uint64_t default_unit_ns, uint64_t *ret_ns);
/* Boolean option value: 1/0, true/false, yes/no, on/off; empty means true (fio's --time_based). */
int parse_bool(const char *s, bool *ret);

const char *rw_mode_to_string(rw_mode_t m);
bool rw_mode_is_read(rw_mode_t m);
bool rw_mode_is_random(rw_mode_t m);

/* Prints the supported options with their meaning, range and default. */
void job_options_help(FILE *f);
