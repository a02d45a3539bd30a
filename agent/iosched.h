/* ioscheduler=: the block devices under a job's files switched to an I/O scheduler for the run,
 * each old scheduler saved in the restore record first, the result read back. */
#pragma once

#include <stddef.h>

#include "agent-config.h"
#include "kv.h"
#include "options.h"
#include "restore.h"

/* For every job with ioscheduler=: finds the whole disk under each of its files (the file's own
 * block device, or its file system's), saves the disk's scheduler in r (restore_apply() puts it
 * back after the run) and switches it, then reads it back into effective as
 * "ioscheduler.DISK=NAME". 0, or -errno with err naming the job, the file and why (no block
 * device, a scheduler the device does not offer, a switch the kernel did not take). */
int iosched_apply(const agent_config_t *cfg, restore_t *r, const job_spec_t *jobs, size_t njobs,
                  const char *work_dir, const char *agent, kvlist_t *effective, char *err,
                  size_t errlen);
