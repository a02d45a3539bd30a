/* An agent's part of a run: one worker thread per job clone, released together at the start
 * instant. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agent-config.h"
#include "fio-stats.h"
#include "hist.h"
#include "metadata.h"
#include "options.h"
#include "wire.h"

typedef struct runner runner_t;

typedef struct runner_params {
        const agent_config_t *cfg; /* its path policy: every file is opened through it */
        const char *agent_name; /* part of default file names, so agents never share files */
        uint32_t rank;
        const char *work_dir; /* where files go when a job names no directory */
        job_spec_t *jobs;     /* taken over by the runner */
        size_t n_jobs;
        /* Each group after the first (fio's stonewall) waits for runner_start_group_at() rather
         * than starting as soon as the group before has ended here: the coordinator's
         * cluster-wide stonewall. false: groups follow each other on this agent alone. */
        bool group_barrier;
        /* fio's log files (write_bw_log, ...): the directory the workers write them to
         * (agent/log-ship.h), created when a job writes one; and the most bytes they may hold
         * together (0: no limit). */
        const char *log_dir;
        uint64_t log_bytes_max;
} runner_params_t;

typedef enum runner_state {
        RUNNER_PREPARING, /* workers lay out and open their files */
        RUNNER_PREPARED,  /* every worker waits at the gate */
        RUNNER_STARTING,  /* the starter sleeps until the start instant */
        RUNNER_RUNNING,
        RUNNER_DONE,   /* every worker has ended */
        RUNNER_FAILED, /* preparation failed: see runner_error() */
} runner_state_t;

/* Totals of one direction, summed over workers. Synchronous engines leave slat and lat empty
 * (fio's lat is then clat). The syncs of fsync=/fdatasync= (fio's "sync" block) are in the write
 * direction's syncs and sync_lat; the read direction's stay empty. */
typedef wire_dir_counts_t runner_dir_t;

int runner_dir_init(runner_dir_t *d);
void runner_dir_done(runner_dir_t *d);

/* Checks directories and engines, then starts the workers preparing. err names the job and
 * option at fault. params->jobs is taken over even on failure; params->cfg must outlive the
 * runner. */
int runner_new(runner_params_t *params, runner_t **ret, char *err, size_t errlen);
/* Stops the workers (opening the gate with abort if it is still shut), joins them, frees. A run
 * that never started (its prepare failed here or elsewhere, or it was called off) first removes
 * every file and directory its layout created, and nothing else. */
void runner_destroy(runner_t **rp);

/* Readable whenever the state may have changed; runner_update() drains it. */
int runner_fd(const runner_t *r);
runner_state_t runner_update(runner_t *r);
const char *runner_error(const runner_t *r);
size_t runner_workers(const runner_t *r);

/* Starts the starter thread: it sleeps until start_mono (CLOCK_MONOTONIC) and opens the gate
 * for every worker at once; each worker then runs for its own job's runtime, if it has one. */
int runner_start_at(runner_t *r, int64_t start_mono);
/* A job's steady-state detection (steadystate=, ss_dur=), or NULL when it has none. Read it
 * once DONE. */
struct steadystate;
const struct steadystate *runner_job_steadystate(const runner_t *r, size_t job);

/* Job order (fio's stonewall, wait_for): the serial groups, run one after another; group 0 is
 * the one runner_start_at() starts. */
unsigned runner_groups(const runner_t *r);
/* With group_barrier: true when group *group (1..) is laid out and prepared, its group before
 * has ended, and it waits for runner_start_group_at(). The runner's fd becomes readable when
 * that happens. */
bool runner_group_waiting(runner_t *r, unsigned *group);
/* Starts group `group` (the one waiting) at start_mono (CLOCK_MONOTONIC), with the precision of
 * the first start. 0, or -EINVAL when that group does not wait. */
int runner_start_group_at(runner_t *r, unsigned group, int64_t start_mono);
/* The instant (CLOCK_MONOTONIC) group `group` started at on this agent; 0 until it has. */
int64_t runner_group_started_mono(runner_t *r, unsigned group);

/* After RUNNING: when the gate opened (CLOCK_MONOTONIC), and the last worker's wake-up after it. */
int64_t runner_started_mono(const runner_t *r);
uint64_t runner_workers_lag_ns(const runner_t *r);
/* Whether the starter ran real-time (SCHED_FIFO) for its last stretch. */
bool runner_started_realtime(const runner_t *r);
/* Latest end of a worker (CLOCK_MONOTONIC), valid once DONE. */
int64_t runner_last_done_mono(const runner_t *r);

/* How far the layout before the run is: bytes laid out (files already long enough count at once)
 * of the bytes the first serial group's files must hold, each shared file once (later groups
 * lay out while the run goes on, when the group before them has ended). Safe while the workers
 * lay out. */
void runner_layout_progress(const runner_t *r, uint64_t *done, uint64_t *total);
/* disk_util: the devices under the workers' files and their counters over the run, once DONE;
 * NULL when no job asked for it or the kernel's counters could not be read. */
struct disks;
const struct disks *runner_disks(const runner_t *r);

/* Asks every worker to end after its current I/O. */
void runner_stop(runner_t *r);

/* Adds every worker's counters so far into dirs[0] (read) and dirs[1] (write). Safe while
 * the workers run. */
void runner_totals(runner_t *r, runner_dir_t dirs[2]);

/* A job's results, valid once DONE: its clones summed. Times are relative to the start. */
typedef struct runner_job_result {
        const char *name;
        uint32_t numjobs;
        /* runtime: the longest clone's measured time (from the end of startdelay and ramp_time
         * to its end), as fio's; first/last done: clone ends after the start instant. */
        uint64_t runtime_ns, first_done_ns, last_done_ns;
        uint64_t end_syncs; /* files synced by end_fsync */
        int error;
        uint64_t error_offset; /* file offset of the failed I/O, when error came from one */
        const char *errmsg;
        uint32_t groupid;  /* fio's reporting group */
        int first_error;   /* continue_on_error: the first error the job went on after */
        uint64_t total_err; /* ... and how many */
        uint64_t start_ns; /* when the job began after the start: its group's (or waitee's) */
        fio_job_stats_t fio; /* depths, batches, samples, CPU: the clones' added as fio's */
} runner_job_result_t;

size_t runner_njobs(const runner_t *r);
void runner_job_result(runner_t *r, size_t job, runner_job_result_t *res, runner_dir_t dirs[2]);
/* The same for one clone of the job (fio's job number), as fio reports without
 * group_reporting. */
void runner_clone_result(runner_t *r, size_t job, unsigned clone, runner_job_result_t *res,
                         runner_dir_t dirs[2]);
/* Whether the job asked for group_reporting (one entry for all its clones). */
bool runner_job_grouped(const runner_t *r, size_t job);
uint32_t runner_job_numjobs(const runner_t *r, size_t job);

/* The metadata workload (ioengine=metadata). Operations completed by every metadata worker since
 * the previous call (the first call: since the start); for the agent's one interval reporter. */
uint64_t runner_meta_ops_interval(runner_t *r);
bool runner_job_is_metadata(const runner_t *r, size_t job);
/* Once DONE: phase slot (0..MD_SLOTS-1, metadata_slot_name() names it) of a metadata job, its
 * clones merged into *out (ops, errors, bytes add; elapsed_ns the longest; lat merged). Returns 1
 * when the slot ran in some clone, 0 when in none, -EINVAL when the job is not a metadata one
 * or slot is out of range, -ENOMEM. */
int runner_job_phase(runner_t *r, size_t job, int slot, metadata_phase_stats_t *out);
