/* One I/O worker (a clone of a job): lays out and opens its file, waits at the start gate, runs its
 * loop. */
#pragma once

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "engine.h"
#include "hist.h"
#include "options.h"

/* Opened all at once by the starter: every worker of the agent leaves it together. It also
 * counts the workers still laying out files, so that none opens a file another is writing. */
typedef struct gate {
        pthread_mutex_t lock;
        pthread_cond_t cond;
        size_t laying_out; /* workers not yet through layout */
        bool open;
        bool abort; /* opened to let workers go home without running */
        int64_t start_mono;
} gate_t;

/* Counters of one direction. Written only by the worker with relaxed stores, read by the
 * agent's loop at any time for the interval figures. */
typedef struct worker_dir {
        uint64_t bytes, ios, errors, short_ios;
        uint64_t issued;  /* I/Os submitted (fio's "issued rwts") */
        uint64_t dropped; /* I/Os issued but not completed when the job ended */
        hist_t clat;      /* completion latency: submit to completion */
        hist_t slat;      /* submission latency: start of submit to its return (async engines) */
        hist_t lat;       /* total latency: start of submit to completion */
} worker_dir_t;

typedef struct worker {
        /* Set by the runner before the thread starts. */
        const job_spec_t *job;
        const engine_ops_t *engine;
        unsigned job_index, clone;
        char path[4096];   /* empty for engines without files */
        bool layout_owner; /* the first worker of a shared file lays it out */
        uint64_t seed;
        gate_t *gate;
        const int *stop;             /* read relaxed: the runner asks the worker to end */
        void (*notify)(void *userdata);
        void *userdata;

        /* Written by the worker. */
        worker_dir_t dir[2]; /* 0 read, 1 write */
        int fd;
        void *buf;
        void *engine_data;
        int prepared; /* 0 not yet, 1 ready at the gate, -1 failed */
        int ran;      /* 1 once it left the gate to run */
        int done;
        int64_t wake_mono, done_mono;
        int error; /* first errno */
        char errmsg[512];
        pthread_t thread;
} worker_t;

/* The worker thread: prepare, wait at the gate, run, report. */
void *worker_main(void *arg);
