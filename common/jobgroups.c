/* fio's order of a run's jobs: serial groups (stonewall), reporting groups (new_group) and waits
 * (wait_for), derived the same way by the CLI, the coordinator and each agent. */
#include "jobgroups.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "intervals.h"
#include "util.h"

int jobgroups_plan(const job_spec_t *jobs, size_t n, jobgroup_t *out, uint32_t *n_groups,
                   char *err, size_t errlen)
{
        uint32_t group = 0, groupid = 0, in_group = 0, in_rgroup = 0;

        for (size_t i = 0; i < n; i++) {
                const job_spec_t *j = &jobs[i];
                /* As fio: a stonewall waits only when something ran before it, and a reporting
                 * group starts only when the one before has a job. */
                if (j->stonewall && in_group) {
                        group++;
                        in_group = 0;
                }
                if ((j->stonewall || j->new_group) && in_rgroup) {
                        groupid++;
                        in_rgroup = 0;
                }
                out[i] = (jobgroup_t){.group = group, .groupid = groupid, .waits_for = -1};
                in_group++;
                in_rgroup++;
                if (strempty(j->wait_for))
                        continue;
                {
                        size_t k = 0;
                        for (; k < i && !streq(jobs[k].name, j->wait_for); k++)
                                ;
                        if (k == i)
                                return errorf(err, errlen, -EINVAL,
                                              "job %s: wait_for=%s names no job given before it "
                                              "(fio allows no forward reference)",
                                              j->name, j->wait_for);
                        if (out[k].group == group)
                                out[i].waits_for = (int32_t)k;
                }
        }
        if (n_groups)
                *n_groups = n ? group + 1 : 0;
        return 0;
}

uint64_t jobgroups_starts(const job_spec_t *jobs, size_t n, uint64_t *starts, uint32_t max_groups)
{
        jobgroup_t *g = calloc(n ? n : 1, sizeof(*g));
        uint64_t *end = calloc(n ? n : 1, sizeof(*end));
        uint64_t group_start = 0, group_end = 0, span = 0;
        uint32_t groups = 0, cur = 0;

        if (starts && max_groups)
                starts[0] = 0;
        if (!g || !end || jobgroups_plan(jobs, n, g, &groups, NULL, 0) < 0)
                goto out;
        for (size_t i = 0; i < n; i++) {
                uint64_t start;
                if (!intervals_job_span(&jobs[i]))
                        goto out; /* open-ended */
                if (g[i].group != cur) {
                        cur = g[i].group;
                        group_start = group_end;
                        if (starts && cur < max_groups)
                                starts[cur] = group_start;
                }
                start = g[i].waits_for >= 0 ? end[g[i].waits_for] : group_start;
                end[i] = start + intervals_job_span(&jobs[i]);
                if (end[i] > group_end)
                        group_end = end[i];
        }
        span = group_end;
out:
        free(g);
        free(end);
        return span;
}

uint64_t jobgroups_span(const job_spec_t *jobs, size_t n)
{
        return jobgroups_starts(jobs, n, NULL, 0);
}
