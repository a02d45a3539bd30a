/* What the runner's modules share (runner.c, runner-start.c): its state. Nothing else includes
 * it. */
#pragma once

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "diskstats.h"
#include "jobgroups.h"
#include "runner.h"
#include "steadystate.h"
#include "worker.h"

/* The starter sleeps until this long before the instant, then spins: a sleep's wake-up is late
 * by tens of microseconds, a spin by well under one. */
#define RUNNER_SPIN_NS (200 * (int64_t)NSEC_PER_USEC)
#define RUNNER_RT_PRIORITY 10
#define RUNNER_MAX_WORKERS 4096
/* The starter sleeps in slices so that a stop reaches it while it waits for a far instant. */
#define RUNNER_SLEEP_SLICE_NS (50 * (int64_t)NSEC_PER_MSEC)

struct runner {
        job_spec_t *jobs;
        size_t n_jobs;
        worker_t *workers;
        size_t n_workers, n_threads;
        gate_t gate;
        int stop;
        int efd;
        runner_state_t state;
        char error[1024];
        pthread_t starter;
        bool starter_running;
        int64_t started_mono;
        uint64_t workers_lag_ns;
        int started;            /* set by the starter once the gate is open and workers are awake */
        bool realtime;          /* the starter could run SCHED_FIFO */
        char *work_dir;         /* copy of the params' work_dir, for metadata workers */
        const agent_config_t *cfg;
        uint64_t meta_reported; /* metadata operations handed out by runner_meta_ops_interval() */
        uint64_t layout_total;  /* bytes group 0 lays out before the run (runner_layout_progress()) */
        /* Job order: serial groups (fio's stonewall) run one after another. */
        jobgroup_t *jg;          /* per job */
        unsigned n_groups;
        unsigned group;          /* the group running (or laying out) now */
        bool group_barrier;      /* each later group waits for runner_start_group_at() */
        bool group_waiting;      /* group `group` is laid out and waits for its instant */
        int64_t group_release;   /* the instant given by runner_start_group_at(), 0 none */
        /* fio's steadystate: per job (NULL without), judged by their own thread */
        steadystate_t **ss;
        pthread_t ss_thread;
        bool ss_running;
        /* disk_util: /proc/diskstats at the start, the devices under the files at the end */
        disks_t *disks;
        /* fio's log files: their directory (-1 when no job writes one) and what they hold */
        int log_dirfd;
        uint64_t log_bytes, log_bytes_max;
};

/* Wakes the agent's loop (the runner's eventfd): the state may have changed. */
void runner_notify(void *userdata);
/* disk_util: reads /proc/diskstats at the start when some job asks for it. */
void runner_disks_begin(runner_t *r);
/* Opens group 0's gate (abort_run: the workers leave without running). */
void runner_open_gate(runner_t *r, bool abort_run, int64_t start_mono);
