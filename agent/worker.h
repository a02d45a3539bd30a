/* One I/O worker (a clone of a job): lays out and opens its files, waits at the start gate, runs
 * its loop. */
#pragma once

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "agent-config.h"
#include "engine.h"
#include "fio-stats.h"
#include "hist.h"
#include "layout.h"
#include "metadata.h"
#include "options.h"
#include "policy.h"

/* Opened all at once by the starter: every worker of the agent's first group leaves it
 * together; later groups (fio's stonewall) are let through one after another (runner.c). It also
 * counts each group's workers still laying out files, so that none opens a file another is
 * writing, and the workers of each job still running, for wait_for. */
typedef struct gate {
        pthread_mutex_t lock;
        pthread_cond_t cond;
        bool open;  /* group 0 may run */
        bool abort; /* opened to let workers go home without running */
        int64_t start_mono; /* the run's start: startdelay counts from it, as fio's genesis */
        unsigned layout_group;     /* groups up to this one may lay out */
        size_t *group_laying_out;  /* per serial group: workers not yet through layout */
        size_t *group_left;        /* per serial group: workers not yet done */
        int64_t *group_start;      /* per serial group: its start instant; 0 until let through */
        size_t *job_left;          /* per job: workers not yet done */
        int *stop;                 /* per job: its workers are to end (exitall, steadystate) */
        unsigned *job_group;       /* per job: its serial group */
        uint32_t *job_groupid;     /* per job: its reporting group */
        size_t n_jobs;
        bool exitall;              /* some job has exitall: every job's end ends its group */
        pthread_mutex_t layout_lock; /* create_serialize: one layout at a time */
} gate_t;

/* Counters of one direction. Written only by the worker with relaxed stores, read by the agent's
 * loop at any time for the interval figures. Nothing grows before ramp_time has passed. With
 * every I/O accounted for when the worker is done: issued = ios + errors + dropped. */
typedef struct worker_dir {
        uint64_t bytes, ios, errors, short_ios;
        uint64_t verify_errors; /* reads that failed verify= (in errors too, not in ios) */
        uint64_t issued;        /* I/Os submitted (fio's "issued rwts") */
        uint64_t dropped;       /* I/Os issued but not completed when the job ended */
        hist_t clat;            /* completion latency: submission to completion */
        hist_t slat; /* submission latency: I/O ready to its submit call's return (async) */
        hist_t lat;  /* total latency: I/O ready to completion (async; = clat for sync) */
} worker_dir_t;

#define WORKER_MAX_DEVS 8

typedef struct worker {
        /* Set by the runner before the thread starts. */
        const job_spec_t *job;
        const engine_ops_t *engine; /* NULL for the metadata workload */
        unsigned job_index, clone;
        unsigned group;    /* serial group (stonewall) */
        uint32_t groupid;  /* reporting group */
        int waits_for;     /* job index it starts after (wait_for), -1 none */
        /* ioengine=metadata: the stats (owned by the runner), the directory it works in (its
         * path, and an O_PATH fd opened through the policy) and its name there
         * ("JOB.AGENT.CLONE"); NULL and -1 for the other engines. */
        metadata_stats_t *md;
        char *md_dir;
        int md_dirfd;
        char *md_name;
        const agent_config_t *cfg; /* the path policy every file is opened through */
        const char *work_dir;      /* where a job without directory= works */
        layout_file_t *files; /* owned by the runner; paths NULL for engines without files */
        size_t nfiles;
        uint64_t seed; /* the clone's random streams */
        unsigned thread_number; /* fio's: 1 + the clones of the agent's jobs before + clone */
        int log_dirfd;          /* fio's log files: their directory (the runner's), or -1 */
        uint64_t *log_bytes;    /* ... what the agent's hold (atomic), and at most */
        uint64_t log_bytes_max;
        gate_t *gate;
        const int *stop; /* read relaxed: the runner asks the worker to end */
        void (*notify)(void *userdata);
        void *userdata;

        /* Written by the worker. */
        worker_dir_t dir[2]; /* DDIR_READ, DDIR_WRITE */
        uint64_t syncs;      /* fsync/fdatasync every N writes (fio's "sync" total_ios) */
        uint64_t end_syncs;  /* end_fsync: files synced when the job's writes were done */
        hist_t sync_lat;     /* latency of each of those every-N-writes syncs */
        uint64_t laid_out;   /* layout bytes done (layout_count(): relaxed adds, read any time) */
        int prepared;        /* 0 not yet, 1 ready at the gate, -1 failed */
        int ran;             /* 1 once it left the gate to run */
        int done;
        bool sync_engine; /* ran the synchronous loop: no slat, lat = clat */
        bool leaked;      /* I/O still in flight at the end: buffers and engine left alone */
        int64_t wake_mono, done_mono;
        int64_t job_start_mono; /* when its job began: its group's start (or its waitee's end),
                                 * startdelay then counted from the run's start */
        int64_t measure_mono;  /* when counting began: after startdelay and ramp_time */
        policy_undo_t made;    /* what this worker's layout created (for a failed prepare) */
        int error;             /* first errno that ended the job */
        int first_error;       /* continue_on_error: the first error it went on after */
        uint64_t nonfatal_errors; /* ... and how many */
        uint64_t error_offset; /* file offset of the failed I/O, when an I/O failed */
        /* fio's depths, batches, bandwidth and IOPS samples and CPU usage of this worker: its
         * own, read once it is done. */
        fio_job_stats_t fio;
        /* The devices its files are on (st_dev; disk_util=1 and files of its own): set before
         * it is prepared. */
        uint64_t devs[WORKER_MAX_DEVS];
        unsigned ndevs;
        char errmsg[512];
        pthread_t thread;
} worker_t;

/* A shut gate for n_groups serial groups and n_jobs jobs (all of group 0 and reporting group 0
 * until the caller says otherwise), its counts at zero (the caller counts its workers in). 0 or
 * -ENOMEM; gate_free() either way. */
int gate_init(gate_t *g, unsigned n_groups, size_t n_jobs);
void gate_free(gate_t *g);
/* Counts worker w in: its group's layout and end, and its job's. Before its thread starts. */
void gate_count(gate_t *g, const worker_t *w);

/* The worker thread: prepare, wait at the gate, run, report. */
void *worker_main(void *arg);
/* The bytes w's layout writes or finds (the files it owns, at the length its layout gives
 * them; 0 when its engine or options lay nothing out): what its laid_out ends at. */
uint64_t worker_layout_bytes(const worker_t *w);

/* Whether a job reads, writes, picks random offsets (rw_mode_t says it all). */
static inline bool worker_rw_reads(rw_mode_t m)
{
        return m != RW_WRITE && m != RW_RANDWRITE;
}

static inline bool worker_rw_writes(rw_mode_t m)
{
        return m != RW_READ && m != RW_RANDREAD;
}

static inline bool worker_rw_random(rw_mode_t m)
{
        return m == RW_RANDREAD || m == RW_RANDWRITE || m == RW_RANDRW;
}
