/* fio's order of a run's jobs: serial groups (stonewall), reporting groups (new_group) and waits
 * (wait_for), derived the same way by the CLI, the coordinator and each agent. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "options.h"

typedef struct jobgroup {
        uint32_t group;    /* serial group: it starts once every job of the group before ended */
        uint32_t groupid;  /* fio's reporting group: a stonewall or new_group starts one */
        int32_t waits_for; /* the earlier job of the same group it starts after; -1 none */
} jobgroup_t;

/* Fills out[i] for each of the n jobs, in fio's order, and *n_groups. A wait_for must name a job
 * given before (fio allows no forward reference); naming one of an earlier group is no wait, as
 * that job has ended by then. 0, or -EINVAL with err naming the job and what is wrong. */
int jobgroups_plan(const job_spec_t *jobs, size_t n, jobgroup_t *out, uint32_t *n_groups,
                   char *err, size_t errlen);

/* How long the run lasts from its start when every job has a runtime: each group's jobs start
 * when the group before ended (a waiter when its waitee ends) and last startdelay + ramp_time +
 * runtime. 0 when a job has no runtime (the run is open-ended) or the jobs do not plan. */
uint64_t jobgroups_span(const job_spec_t *jobs, size_t n);

/* jobgroups_span(), and where each serial group starts from the run's start (starts[g] for the
 * first max_groups groups) when every job has a runtime; the run's length from group g's start
 * is span - starts[g]. Returns the span (0: open-ended, starts left as far as they got). */
uint64_t jobgroups_starts(const job_spec_t *jobs, size_t n, uint64_t *starts, uint32_t max_groups);
