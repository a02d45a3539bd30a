/* fio-style job options: one table drives the command line, job files and the wire. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "parse.h"

typedef enum rw_mode {
        RW_READ,
        RW_WRITE,
        RW_RANDREAD,
        RW_RANDWRITE,
} rw_mode_t;

/* A parsed job section. Strings are owned (NULL when unset). */
typedef struct job_spec {
        char *name;
        rw_mode_t rw;        /* default read */
        uint64_t bs;         /* default 4096 */
        uint64_t size;       /* 0 = not given */
        uint32_t numjobs;    /* default 1 */
        uint64_t runtime_ns; /* 0 = not given */
        bool time_based;
        char *directory;
        char *filename;
        char *ioengine; /* default "psync" */
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

const char *rw_mode_to_string(rw_mode_t m);
bool rw_mode_is_read(rw_mode_t m);
bool rw_mode_is_random(rw_mode_t m);

/* Prints the supported options with their meaning, range and default. */
void job_options_help(FILE *f);
