/* Jobs from fio-style arguments: options before the first --name are global, each --name opens a
 * job. */
#pragma once

#include <stddef.h>

#include "config.h"
#include "wire.h"

typedef struct jobargs_job {
        char *name;
        strv_t keys, values;
} jobargs_job_t;

typedef struct jobargs {
        strv_t gkeys, gvalues; /* global options */
        jobargs_job_t *jobs;
        size_t n_jobs;
} jobargs_t;

/* Adds one option in command-line order ("name" opens a new job). */
int jobargs_add(jobargs_t *ja, const char *key, const char *value);
/* Checks every job through the option table (unknown options, values, whole-job rules); err
 * says which job and option. With no --name at all the options make one job called "job". */
int jobargs_check(jobargs_t *ja, char *err, size_t errlen);
/* The jobs as they travel (global options first, then the job's own); free with
 * jobargs_free_wire(). */
int jobargs_to_wire(const jobargs_t *ja, Iofleet__Job ***ret, size_t *n);
void jobargs_free_wire(Iofleet__Job **jobs, size_t n);
/* The longest runtime when every job has one, else 0 (size-bound: the interval count is open). */
uint64_t jobargs_runtime_ns(const jobargs_t *ja);
void jobargs_free(jobargs_t *ja);
