/* A job spec for unit tests, from fio option names and values: job_with(&j, "rw", "randread",
 * "bs", "4k", NULL). Include after cmocka.h. */
#pragma once

#include <stdarg.h>

#include "options.h"

static inline void job_named_v(job_spec_t *j, const char *name, va_list ap)
{
        const char *k;
        char err[256];

        assert_int_equal(job_spec_init(j, name), 0);
        while ((k = va_arg(ap, const char *))) {
                const char *v = va_arg(ap, const char *);
                if (job_option_set(j, k, v, err, sizeof(err)) < 0)
                        fail_msg("%s=%s: %s", k, v, err);
        }
}

/* The same with the job's name: job_named(&j, "seq", "rw", "read", NULL). */
static inline void job_named(job_spec_t *j, const char *name, ...)
{
        va_list ap;
        va_start(ap, name);
        job_named_v(j, name, ap);
        va_end(ap);
}

static inline void job_with(job_spec_t *j, ...)
{
        va_list ap;
        va_start(ap, j);
        job_named_v(j, "t", ap);
        va_end(ap);
}
