/* A run as the coordinator drives it: prepare, one start instant, interval sums, finish; no
 * sockets. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "clat-buckets.h"
#include "degrade.h"
#include "hist.h"
#include "idmap.h"
#include "io-counts.h"
#include "kv.h"
#include "layout-progress.h"
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

/* One agent in one serial group after the first (the cluster-wide stonewall). */
typedef struct run_agent_group {
        bool ready;       /* GroupReady: laid out, waiting (the group before ended there) */
        bool given;       /* StartGroup sent */
        bool started;     /* GroupStarted */
        bool late;        /* not ready by the group's deadline: given an instant of its own */
        int64_t at_ns;    /* the instant it was given, timeline */
        int64_t start_ns; /* achieved, timeline */
        int64_t mono_ns;  /* achieved, its own CLOCK_MONOTONIC */
} run_agent_group_t;

/* A serial group after the first: one instant for every agent once all ended the one before. */
typedef struct run_group {
        int64_t first_ready_ns; /* timeline: the first GroupReady (0: none yet) */
        int64_t deadline_ns;    /* the others are ready by then, or it starts without them */
        int64_t start_ns;       /* the instant (0 until released) */
        bool released;
        uint32_t agents, late;  /* given the instant with the others; given one later */
        /* The agents it waits for and those of them ready: released when they are equal (and
         * not 0), kept as agents change (run_owed_drop/take) so that a GroupReady from each
         * of thousands of agents costs O(1), not a scan of them all. */
        uint32_t n_awaited, n_ready;
        uint64_t skew_ns;       /* spread of the achieved starts of those given the instant */
        bool skew_shared_clock;
} run_group_t;

/* One agent's counters for one interval. */
typedef struct run_interval {
        io_counts_t io;
        bool received;
        bool shown; /* its cluster interval was shown */
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
        /* What every interval accepted from it says so far, late ones included (/metrics). */
        io_counts_t recv_io;
        clat_buckets_t clat_read, clat_write;
        int64_t last_index;   /* index of its final interval, -1 until known */
        /* Delivery: its run messages are numbered (run_seq); they are accepted in order only, and
         * acknowledged (Ack) once kept, so that after a partition it resends from there. */
        uint64_t rseq;       /* run messages accepted from it so far */
        uint64_t rseq_acked; /* what the last Ack said */
        uint64_t rseq_durable; /* accepted and on disk (the run's journal synced since) */
        bool ack_owed;       /* a duplicate or a gap was answered with an Ack already */
        bool prepare_sent, start_sent, stop_sent;
        bool restored;  /* its host is put back: Restored (client), Finished (server), or it never
                           changed it */
        bool rejoined;  /* it was lost and came back */
        bool gone;      /* lost for longer than the orphan grace (or with none): given up */
        int64_t lost_at; /* timeline: when it was last marked lost */
        int64_t done_at; /* timeline: its Finished (the restore deadline counts from there) */
        int64_t away_ns; /* time it spent lost, summed */
        envelope_t *finished; /* its Finished message, owned */
        bool server;          /* configures the NFS server; runs no job, reports no interval */
        uint32_t part;        /* its part of the plan (0 without parts) */
        kvlist_t effective;   /* settings it reported in effect (Prepared, then Finished) */
        char error[1024];     /* why its part failed, if it did */
        uint32_t n_groups;    /* its part's serial groups */
        run_agent_group_t *grp; /* [run->n_groups] with the barrier, else NULL */
} run_agent_t;

/* Interval k summed across agents. */
typedef struct cluster_interval {
        io_counts_t io;
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
        outbox_t acks; /* Acks to agents: sent only once what they acknowledge is kept on disk */
} run_out_t;

/* An agent interval that arrived after its interval left memory (an agent back from a
 * partition resends minutes-old ones): merged into the series when the run is written. */
typedef struct run_late {
        size_t k;
        uint32_t rank;
        run_interval_t v;
} run_late_t;

typedef struct coord_run coord_run_t;

/* What changed the run, handed to the shell to keep (the run's journal) before the run acts on
 * it: every agent message it accepted and every event, in order, so that a restarted coordinator
 * replays them into the same state (run ticks in between depend on time alone). */
typedef enum run_rec_type {
        RUN_REC_MSG,    /* an agent's run message, accepted */
        RUN_REC_LOST,   /* an agent missed its lease, or said goodbye */
        RUN_REC_HELLO,  /* an agent said hello again: text = the run it holds, phase its phase */
        RUN_REC_CANCEL, /* code, text = why */
} run_rec_type_t;

typedef struct run_rec {
        run_rec_type_t type;
        uint32_t rank;
        int64_t now;
        const envelope_t *msg;
        const char *text;
        const char *phase;
        uint64_t made; /* RUN_REC_HELLO: the run messages the agent says it made */
        int code;
} run_rec_t;

typedef void (*run_keep_fn)(void *user, coord_run_t *run, const run_rec_t *rec);

#define RUN_MAX_WATCHERS 16

struct coord_run {
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
        run_late_t *late;      /* those, kept for the written series */
        size_t n_late, cap_late;
        /* Failure handling. */
        uint64_t orphan_grace_ns;   /* how long a lost agent may take to come back */
        uint64_t prepare_timeout_ns;
        int64_t prepare_deadline_ns; /* PREPARING: every Prepared by then, or the run is cancelled */
        bool continue_on_loss;      /* a partial run is not an error (it is still marked) */
        run_keep_fn keep;           /* the journal, or NULL */
        void *keep_user;
        bool replaying;             /* fed from the journal: nothing is kept again */
        /* Where the scans for "every agent prepared / started / finished / put back" resume:
         * agents before them are settled, so thousands of agents' answers cost O(n), not
         * O(n^2). Reset when an agent comes back (it counts again). */
        size_t hint_prepared, hint_started, hint_finished, hint_restored;
        /* No agent's own deadline (orphan grace, Restored due) falls before this: the ticks
         * between messages look at every agent only once it has come. Lowered whenever an agent
         * takes a deadline, recomputed after each look. */
        int64_t agent_due_ns;
        /* Files being laid out (coordinator/run-layout.c): the agents' reports, and the live
         * line's pace: shown a second after the first report at the earliest (a quick layout
         * shows nothing), then at most once a second, and at once when complete. */
        layout_progress_t layout;
        int64_t layout_first_ns, layout_shown_ns;
        bool layout_dirty, layout_shown;
        /* The cluster-wide stonewall (run-groups.c): with several serial groups, each after the
         * first starts at one instant on every agent once all ended the one before. */
        bool group_barrier;
        uint32_t n_groups;         /* the most of any part */
        run_group_t *groups;       /* [n_groups]; [0] is the run's own start */
        uint64_t group_margin_ns;  /* a group's instant lies this far ahead of its release */
        uint32_t *part_groups;     /* per part (one without parts): its serial groups */
        uint64_t *part_span;       /* its length when every job is timed, else 0 */
        uint64_t **part_starts;    /* [part][group]: where each group starts, planned */
        size_t n_parts;
        int64_t group_due_ns;      /* no GroupStarted is overdue before this */
        /* fio's log files of the jobs (run-logs.c): NULL when no job writes one */
        struct run_logs *logs;
};

/* The run keeps at least this many intervals (and 2 s of them) in memory behind the last one
 * shown before it spools older ones. */
#define RUN_KEEP_INTERVALS 64

/* Creates a run of the SubmitRun in *submit (taken over: *submit is set to NULL) on the given
 * agents and queues Prepare for each (with parts: for the servers first; the clients get theirs
 * when every server is ready). part_of[i] is agent i's part of a plan (NULL without parts). Job
 * options are checked first: on error returns -EINVAL with err set and nothing queued. now is
 * the coordinator timeline. */
int run_new(const char *id, const char *control_peer, envelope_t **submit, coord_agent_t **agents,
            const uint32_t *part_of, size_t n_agents, int64_t now, run_out_t *out, coord_run_t **ret,
            char *err, size_t errlen);
void run_free(coord_run_t **rp);

/* Feeds a message from agent agent_id. May take over *msg (sets it to NULL). Messages of another
 * run, or from agents not in this run, are ignored (returns -ESRCH); a numbered message already
 * accepted, or one after a gap, returns -EALREADY (and an Ack goes out so the agent resends from
 * the right place). */
int run_on_message(coord_run_t *run, const char *agent_id, envelope_t **msg, int64_t now, run_out_t *out);
/* An agent's LayoutProgress (best effort: not journalled, not acknowledged), taken while the run
 * prepares; the live line follows by run_tick. 0, or -ESRCH when it is not for this run now. */
int run_on_layout_progress(coord_run_t *run, const char *agent_id, const Iofleet__LayoutProgress *m,
                           int64_t now, run_out_t *out);
/* An agent of the run missed its lease (or said goodbye): the run goes on without it, waiting up
 * to the orphan grace for it to come back; what it sent is kept. */
void run_agent_lost(coord_run_t *run, const char *agent_id, int64_t now, run_out_t *out);
/* An agent of the run said hello again (coordinator-run/run-agents.c). It holds run_id ("" when
 * it holds none) in phase, having made `made` run messages (RUN_MADE_UNKNOWN: not said): with
 * this run it rejoins (an Ack tells it where to resend from, and whatever it missed is sent
 * again; made below what was taken from it means its host lost its record of the rest, and it
 * numbers on after the Ack); without it, it lost its part (restarted) and has failed. */
#define RUN_MADE_UNKNOWN UINT64_MAX
void run_agent_hello(coord_run_t *run, const char *agent_id, const char *run_id, const char *phase,
                     uint64_t made, int64_t now, run_out_t *out);
/* A heartbeat from an agent of the run: what its answer acknowledges (the run messages kept on
 * disk since the last Ack), or 0 when there is nothing new. */
uint64_t run_heartbeat_ack(coord_run_t *run, const char *agent_id);
/* The run's journal is synced: everything accepted so far is on disk. */
void run_synced(coord_run_t *run);
/* After replaying a journal (a restarted coordinator): every agent not done is away from now
 * on, with the orphan grace to come back, and the deadlines that passed meanwhile move. */
void run_readopt(coord_run_t *run, int64_t now, run_out_t *out);
/* Per-agent outcome: "ok", "rejoined", "lost" or "failed". */
const char *run_agent_status(const coord_run_t *run, const run_agent_t *a);
/* Whether agent a is to deliver interval k (a client given the start, up to its last). */
bool run_expects(const coord_run_t *run, const run_agent_t *a, size_t k);
/* Stops the run early: Stop goes to every agent still running. */
void run_cancel(coord_run_t *run, Iofleet__ErrorCode code, const char *why, int64_t now, run_out_t *out);
/* Deadlines: intervals shown though some agents are late, runtime over, finish timeout. */
void run_tick(coord_run_t *run, int64_t now, run_out_t *out);
/* The next instant run_tick has something to do, or INT64_MAX. */
int64_t run_next_deadline(const coord_run_t *run);
/* The next interval to show has ended and waits for agents, within its grace: the fleet's
 * Intervals for it are coming in now. The loop keeps its Acks (and the journal syncs they wait
 * for) until it is shown, so that they do not take the burst's CPU and network. */
bool run_collecting(const coord_run_t *run, int64_t now);
bool run_done(const coord_run_t *run);
/* Another control client follows the run (iofleet watch): it gets every update from now on.
 * 0; 1 when it gets them already (the CLI that submitted the run, or a watcher asking again);
 * -ENOSPC when RUN_MAX_WATCHERS already watch. */
int run_add_watcher(coord_run_t *run, const char *peer);
/* The alerts the run has raised so far, to one peer (a watcher that attached after them). */
void run_replay_alerts(coord_run_t *run, const char *peer, run_out_t *out);

/* Streams intervals to path (intervals.csv of the run directory) as they leave memory; the run
 * then holds a window of them only. Without it every interval stays in memory. 0 or -errno. */
int run_set_spool(coord_run_t *run, const char *path);
/* Writes every interval still in memory to the spool and closes it (before the result). */
int run_spool_finish(coord_run_t *run);
/* After intervals were shown: with a spool, moves the intervals far enough behind the last one
 * shown out of memory and into the spool (coordinator/run-series.c). */
void run_spool_old(coord_run_t *run);

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
int run_intervals_each(const coord_run_t *run, int (*cb)(void *user, const run_iv_row_t *row),
                       void *user);

/* Writes the whole series to path in the spool's format (a run that had no spool). 0 or -errno. */
int run_write_csv(const coord_run_t *run, const char *path);

/* Keeps a late interval (one that arrived after its interval was written out). 0 or -ENOMEM. */
int run_keep_late(coord_run_t *run, const run_agent_t *a, size_t k, const run_interval_t *v);

/* Agent a's interval k when it is in memory, else NULL. */
static inline run_interval_t *run_agent_iv(const run_agent_t *a, size_t k)
{
        return k >= a->iv_base && k - a->iv_base < a->n_iv ? &a->iv[k - a->iv_base] : NULL;
}

/* Cluster interval k when it is in memory, else NULL. */
static inline cluster_interval_t *run_civ(const coord_run_t *run, size_t k)
{
        return k >= run->civ_base && k < run->n_civ ? &run->civ[k - run->civ_base] : NULL;
}

/* Interval k on the timeline is [start + k*interval, start + (k+1)*interval). */
static inline int64_t run_interval_end(const coord_run_t *run, size_t k)
{
        return run->start_ns + (int64_t)((k + 1) * run->interval_ns);
}
