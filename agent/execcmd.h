/* fio's exec_prerun and exec_postrun: a program the agent's own config names (allow_commands),
 * run without a shell or arguments, its output to JOB.prerun.txt / JOB.postrun.txt. */
#pragma once

#include <stddef.h>

#include "agent-config.h"
#include "options.h"
#include "policy.h"

/* Whether the agent runs what j's exec_prerun/exec_postrun name: 0, or -EPERM with err saying
 * why not (the agent runs as root: a job names a command its config allows, never gives one). */
int execcmd_check(const agent_config_t *cfg, const job_spec_t *j, char *err, size_t errlen);

/* Runs the program that name stands for (phase "prerun" or "postrun" of job j), its standard
 * output and error to DIR/JOBNAME.PHASE.txt (opened through the path policy; recorded in undo),
 * and waits for it; killed soon after *stop becomes non-zero. 0 when it exits 0, else -errno
 * or -ECHILD with err naming the job, the command and how it ended. */
int execcmd_run(const agent_config_t *cfg, const job_spec_t *j, const char *phase,
                const char *name, const char *dir, const int *stop, policy_undo_t *undo,
                char *err, size_t errlen);
