/* Jobs from fio-style arguments: options before the first --name are global, each --name opens a
 * job. */
#include "jobargs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "util.h"

int jobargs_add(jobargs_t *ja, const char *key, const char *value)
{
        jobargs_job_t *j;
        if (streq(key, "name")) {
                j = realloc(ja->jobs, (ja->n_jobs + 1) * sizeof(*j));
                if (!j)
                        return -ENOMEM;
                ja->jobs = j;
                j = &ja->jobs[ja->n_jobs++];
                memset(j, 0, sizeof(*j));
                j->name = strdup(value);
                return j->name ? 0 : -ENOMEM;
        }
        if (ja->n_jobs == 0)
                return strv_push(&ja->gkeys, key) < 0 || strv_push(&ja->gvalues, value) < 0
                           ? -ENOMEM
                           : 0;
        j = &ja->jobs[ja->n_jobs - 1];
        return strv_push(&j->keys, key) < 0 || strv_push(&j->values, value) < 0 ? -ENOMEM : 0;
}

/* Applies the options a job sees: globals, then its own, as fio does. */
static int build_spec(const jobargs_t *ja, const jobargs_job_t *j, job_spec_t *spec, char *err,
                      size_t errlen)
{
        char e[512];
        int r = job_spec_init(spec, j->name);
        if (r < 0)
                return r;
        for (size_t i = 0; i < ja->gkeys.n; i++)
                if ((r = job_option_set(spec, ja->gkeys.v[i], ja->gvalues.v[i], e, sizeof(e))) < 0)
                        goto fail;
        for (size_t i = 0; i < j->keys.n; i++)
                if ((r = job_option_set(spec, j->keys.v[i], j->values.v[i], e, sizeof(e))) < 0)
                        goto fail;
        if ((r = job_spec_validate(spec, e, sizeof(e))) >= 0)
                return 0;
fail:
        if (ja->n_jobs > 1)
                snprintf(err, errlen, "job %s: %s", j->name, e);
        else
                snprintf(err, errlen, "%s", e);
        job_spec_done(spec);
        return r;
}

int jobargs_check(jobargs_t *ja, char *err, size_t errlen)
{
        int r;
        if (ja->n_jobs == 0 && (r = jobargs_add(ja, "name", "job")) < 0)
                return r;
        for (size_t i = 0; i < ja->n_jobs; i++) {
                job_spec_t spec;
                for (size_t k = 0; k < i; k++)
                        if (streq(ja->jobs[k].name, ja->jobs[i].name)) {
                                snprintf(err, errlen,
                                         "name: job '%s' is given twice; job names must differ",
                                         ja->jobs[i].name);
                                return -EINVAL;
                        }
                if ((r = build_spec(ja, &ja->jobs[i], &spec, err, errlen)) < 0)
                        return r;
                job_spec_done(&spec);
        }
        return 0;
}

uint64_t jobargs_runtime_ns(const jobargs_t *ja)
{
        uint64_t longest = 0;
        for (size_t i = 0; i < ja->n_jobs; i++) {
                job_spec_t spec;
                char err[512];
                if (build_spec(ja, &ja->jobs[i], &spec, err, sizeof(err)) < 0)
                        return 0;
                if (!spec.runtime_ns) {
                        job_spec_done(&spec);
                        return 0;
                }
                if (spec.runtime_ns > longest)
                        longest = spec.runtime_ns;
                job_spec_done(&spec);
        }
        return longest;
}

static Iofleet__JobOption *option(const char *k, const char *v)
{
        Iofleet__JobOption *o = malloc(sizeof(*o));
        if (!o)
                return NULL;
        iofleet__job_option__init(o);
        o->key = (char *)k;
        o->value = (char *)v;
        return o;
}

int jobargs_to_wire(const jobargs_t *ja, Iofleet__Job ***ret, size_t *n)
{
        Iofleet__Job **jobs = calloc(ja->n_jobs ? ja->n_jobs : 1, sizeof(*jobs));
        if (!jobs)
                return -ENOMEM;
        for (size_t i = 0; i < ja->n_jobs; i++) {
                const jobargs_job_t *j = &ja->jobs[i];
                size_t no = ja->gkeys.n + j->keys.n, k = 0;
                Iofleet__Job *pj = malloc(sizeof(*pj));
                if (!pj) {
                        jobargs_free_wire(jobs, i);
                        return -ENOMEM;
                }
                iofleet__job__init(pj);
                jobs[i] = pj;
                pj->name = j->name;
                pj->options = calloc(no ? no : 1, sizeof(*pj->options));
                if (!pj->options) {
                        jobargs_free_wire(jobs, i + 1);
                        return -ENOMEM;
                }
                for (size_t g = 0; g < ja->gkeys.n; g++)
                        pj->options[k++] = option(ja->gkeys.v[g], ja->gvalues.v[g]);
                for (size_t o = 0; o < j->keys.n; o++)
                        pj->options[k++] = option(j->keys.v[o], j->values.v[o]);
                pj->n_options = k;
                for (size_t o = 0; o < k; o++)
                        if (!pj->options[o]) {
                                jobargs_free_wire(jobs, i + 1);
                                return -ENOMEM;
                        }
        }
        *ret = jobs;
        *n = ja->n_jobs;
        return 0;
}

void jobargs_free_wire(Iofleet__Job **jobs, size_t n)
{
        for (size_t i = 0; jobs && i < n; i++) {
                if (!jobs[i])
                        continue;
                for (size_t o = 0; o < jobs[i]->n_options; o++)
                        free(jobs[i]->options[o]);
                free(jobs[i]->options);
                free(jobs[i]);
        }
        free(jobs);
}

void jobargs_free(jobargs_t *ja)
{
        strv_clear(&ja->gkeys);
        strv_clear(&ja->gvalues);
        for (size_t i = 0; i < ja->n_jobs; i++) {
                free(ja->jobs[i].name);
                strv_clear(&ja->jobs[i].keys);
                strv_clear(&ja->jobs[i].values);
        }
        free(ja->jobs);
        memset(ja, 0, sizeof(*ja));
}
