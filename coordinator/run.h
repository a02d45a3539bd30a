/* A run as the coordinator drives it: prepare, one start instant, interval sums, finish; no
 * sockets. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "degrade.h"
#include "hist.h"
#include "idmap.h"
#include "kv.h"
#include "options.h"
#include "registry.h"
#include "sock.h"
#include "wire.h"

typedef enum run_phase {
        RUN_PREPARING, /* Prepare sent, waiting for every Prepared */
        RUN_STARTING,  /* Start sent, waiting for every Started */
        RUN_RUNNING,
        RUN_STOPPING, /* Stop sent (runtime over, cancel, failure), waiting for Finished */
        RUN_DONE,
} run_phase_t;

/* One agent's counters for one interval. */
typedef struct run_interval {
        uint64_t read_bytes, read_ios, write_bytes, write_ios, errors, meta_ops;
        bool received;
        bool shown; /* counted in the agent's shown_* when its cluster interval was shown */
} run_interval_t;

typedef struct run_agent {
        char id[WIRE_MAX_ID + 1];
        char name[WIRE_MAX_NAME + 1];
        char hostname[WIRE_MAX_HOSTNAME + 1];
        char boot_id[WIRE_MAX_ID + 1];
        uint32_t rank;
        bool prepared, started, done, lost; /* done: its Finished arrived */
        int64_t offset_ns;
        uint64_t rtt_ns;
        int64_t start_ns;     /* achieved, coordinator timeline */
        int64_t host_mono_ns; /* achieved, the agent's own monotonic clock */
        uint64_t workers_lag_ns;
        run_interval_t *iv; /* intervals iv_base .. iv_base + n_iv - 1 (older ones spooled) */
        size_t n_iv;
        size_t iv_base;
        uint64_t shown_read_bytes, shown_write_bytes; /* in intervals shown so far (metrics) */
        uint64_t shown_read_ios, shown_write_ios, shown_errors;
        int64_t last_index;   /* index of its final interval, -1 until known */
        envelope_t *finished; /* its Finished message, owned */
        bool server;          /* configures the NFS server; runs no job, reports no interval */
        uint32_t part;        /* its part of the plan (0 without parts) */
        kvlist_t effective;   /* settings it reported in effect (Prepared, then Finished) */
        char error[1024];     /* why its part failed, if it did */
} run_agent_t;

/* Interval k summed across agents. */
typedef struct cluster_interval {
        uint64_t read_bytes, read_ios, write_bytes, write_ios, errors, meta_ops;
        uint32_t reported;
        uint32_t owed; /* agents that owe it and have not sent it; kept until it is shown */
        bool emitted;
        hist_t *clat; /* merged latency of the interval, kept until it is shown */
        uint64_t clat_p50_ns, clat_p99_ns; /* of clat when it was shown (kept for the series) */
} cluster_interval_t;

/* Where the run's messages go: the agents' socket and the control client that submitted it. */
typedef struct run_out {
        outbox_t agents;
        outbox_t control;
} run_out_t;

#define RUN_MAX_WATCHERS 16

typedef struct run {
        char id[WIRE_MAX_ID + 1];
        char control_peer[SOCK_MAX_PEER + 1];
        run_phase_t phase;
        envelope_t *submit; /* the SubmitRun as received, owned */
        job_spec_t *specs;
        size_t n_specs;
        run_agent_t *agents;
        size_t n_agents;
        idmap_t *by_id; /* agent id -> its run_agent_t */
        uint64_t interval_ns, lead_ns;
        int64_t submitted_ns; /* timeline */
        int64_t start_ns;     /* the instant given in Start, timeline */
        uint64_t start_skew_ns;         /* spread of the instants the agents opened their gates */
        uint64_t start_skew_workers_ns; /* spread of the instants their last workers ran */
        bool skew_shared_clock; /* skew measured on one shared kernel clock */
        uint64_t max_intervals; /* from runtime, 0 when the jobs are only size-bound */
        int64_t stop_deadline_ns, finish_deadline_ns;
        cluster_interval_t *civ;
        size_t n_civ, cap_civ;
        size_t next_emit;
        Iofleet__ErrorCode code;
        char message[1024];
        uint64_t *seq; /* sequence counter shared with the shell for control messages */
        size_t n_servers;
        bool clients_prepare_sent; /* servers are ready and the clients have their Prepare */
        bool servers_stopped;      /* clients are done; servers were told to tear down */
        char nfs_server[256], nfs_export[4096]; /* from the first server's Prepared */
        int64_t stonewall_ns; /* stonewall: when the first agent finished, timeline; 0 until */
        degrade_t degrade;    /* the plan's degrade rules and the alerts they raised */
        char watchers[RUN_MAX_WATCHERS][SOCK_MAX_PEER + 1]; /* iofleet watch: also get updates */
        size_t n_watchers;
        /* Soak runs: intervals older than the window go to the run directory's intervals.csv
         * and out of memory (civ from civ_base, each agent's iv from iv_base). */
        size_t civ_base;
        FILE *spool;
        char spool_path[4200];
        size_t spooled; /* intervals below this one are in the spool */
        uint64_t late_dropped; /* intervals that arrived after they had left memory */
} run_t;

/* The run keeps at least this many intervals (and 2 s of them) in memory behind the last one
 * shown before it spools older ones. */
#define RUN_KEEP_INTERVALS 64

/* Creates a run of the SubmitRun in *submit (taken over: *submit is set to NULL) on the given
 * agents and queues Prepare for each (with parts: for the servers first; the clients get theirs
 * when every server is ready). part_of[i] is agent i's part of a plan (NULL without parts). Job
 * options are checked first: on error returns -EINVAL with err set and nothing queued. now is
 * the coordinator timeline. */
int run_new(const char *id, const char *control_peer, envelope_t **submit, agent_t **agents,
            const uint32_t *part_of, size_t n_agents, int64_t now, run_out_t *out, run_t **ret,
            char *err, size_t errlen);
void run_free(run_t **rp);

/* Feeds a message from agent agent_id. May take over *msg (sets it to NULL). Messages of another
 * run, or from agents not in this run, are ignored (returns -ESRCH). */
int run_on_message(run_t *run, const char *agent_id, envelope_t **msg, int64_t now, run_out_t *out);
/* An agent of the run missed its lease: the run goes on without it; what it sent is kept. */
void run_agent_lost(run_t *run, const char *agent_id, int64_t now, run_out_t *out);
/* Stops the run early: Stop goes to every agent still running. */
void run_cancel(run_t *run, Iofleet__ErrorCode code, const char *why, int64_t now, run_out_t *out);
/* Deadlines: intervals shown though some agents are late, runtime over, finish timeout. */
void run_tick(run_t *run, int64_t now, run_out_t *out);
/* The next instant run_tick has something to do, or INT64_MAX. */
int64_t run_next_deadline(const run_t *run);
bool run_done(const run_t *run);
/* Another control client follows the run (iofleet watch): it gets every update from now on.
 * 0, or -ENOSPC when RUN_MAX_WATCHERS already watch. */
int run_add_watcher(run_t *run, const char *peer);

/* Streams intervals to path (intervals.csv of the run directory) as they leave memory; the run
 * then holds a window of them only. Without it every interval stays in memory. 0 or -errno. */
int run_set_spool(run_t *run, const char *path);
/* Writes every interval still in memory to the spool and closes it (before the result). */
int run_spool_finish(run_t *run);
/* After intervals were shown: with a spool, moves the intervals far enough behind the last one
 * shown out of memory and into the spool (coordinator/run-series.c). */
void run_spool_old(run_t *run);

/* One row of the interval series: the cluster's (a == NULL) or one agent's interval k. */
typedef struct run_iv_row {
        size_t k;
        const run_agent_t *a;
        run_interval_t v;
        uint32_t reported; /* cluster rows: agents that reported */
        uint64_t clat_p50_ns, clat_p99_ns; /* cluster rows: the interval's latency, 0 if none */
} run_iv_row_t;
/* Calls cb for every interval, in order, the cluster's row before its agents' rows; from the
 * spool when the run has one (after run_spool_finish()), else from memory. Stops at the first
 * cb that returns < 0 and returns that. */
int run_intervals_each(const run_t *run, int (*cb)(void *user, const run_iv_row_t *row),
                       void *user);

/* Writes the whole series to path in the spool's format (a run that had no spool). 0 or -errno. */
int run_write_csv(const run_t *run, const char *path);

/* Agent a's interval k when it is in memory, else NULL. */
static inline run_interval_t *run_agent_iv(const run_agent_t *a, size_t k)
{
        return k >= a->iv_base && k - a->iv_base < a->n_iv ? &a->iv[k - a->iv_base] : NULL;
}

/* Cluster interval k when it is in memory, else NULL. */
static inline cluster_interval_t *run_civ(const run_t *run, size_t k)
{
        return k >= run->civ_base && k < run->n_civ ? &run->civ[k - run->civ_base] : NULL;
}

/* Interval k on the timeline is [start + k*interval, start + (k+1)*interval). */
static inline int64_t run_interval_end(const run_t *run, size_t k)
{
        return run->start_ns + (int64_t)((k + 1) * run->interval_ns);
}
