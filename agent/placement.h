/* Where and how a worker thread runs, as fio places its jobs: CPU affinity (cpus_allowed with
 * its shared/split policy, cpumask, numa_cpu_nodes), the NUMA memory policy of its buffers, its
 * nice value and its I/O priority. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "options.h"

/* Whether job j asks for any of it. */
bool placement_needed(const job_spec_t *j);

/* Applies job j's placement to the calling thread, clone `clone` of the job (cpus_allowed_policy=
 * split gives it the set's (clone mod n)-th CPU). sysfs is where the NUMA nodes are described
 * ("/sys" but in tests). 0, or -errno with one line in err naming the option and what this host
 * has (a CPU or node it lacks, a kernel without NUMA support). */
int placement_apply(const job_spec_t *j, unsigned clone, const char *sysfs, char *err,
                    size_t errlen);
