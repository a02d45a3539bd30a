/* The coordinator's runs: several at once on disjoint agents, each journalled in its directory,
 * re-adopted after a restart, its result written when it ends; no sockets (what is to be sent
 * goes to the outboxes the loop flushes). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "coord-config.h"
#include "registry.h"
#include "run.h"

typedef struct runs runs_t;

typedef struct runs_ctx {
        const coord_config_t *cfg;
        registry_t *reg;
        uint64_t *control_seq; /* sequence of control messages, shared with the loop */
        run_out_t *out;        /* where messages go: agents (by id), control (by peer), acks */
        /* Called for each run that ends, after its result is written and before it is freed
         * (/metrics takes its last counts). */
        void (*finished)(void *user, const coord_run_t *run);
        void *user;
} runs_ctx_t;

int runs_new(const runs_ctx_t *ctx, runs_t **ret);
/* Frees every run; runs with a journal are left on disk for the next start to take up. */
void runs_free(runs_t **rp);
/* At start: takes up the runs a previous coordinator left (their journals in the results
 * directory): each is replayed and waits for its agents to come back within its orphan grace.
 * Returns how many. now is the timeline. */
size_t runs_recover(runs_t *rs, int64_t now);

size_t runs_count(const runs_t *rs);
coord_run_t *runs_at(const runs_t *rs, size_t i);
coord_run_t *runs_find(const runs_t *rs, const char *run_id);
/* Whether run i has a journal (a restart would take it up). */
bool runs_journalled(const runs_t *rs, size_t i);
/* The run holding an agent (also while it is away), or NULL. */
coord_run_t *runs_of_agent(const runs_t *rs, const char *agent_id);

/* Control requests. */
void runs_submit(runs_t *rs, const char *peer, envelope_t **msg, int64_t now);
void runs_watch(runs_t *rs, const char *peer, const Iofleet__WatchRun *w);
void runs_cancel(runs_t *rs, const char *peer, const Iofleet__CancelRun *c, int64_t now);
void runs_list(runs_t *rs, const char *peer);

/* Agent events. runs_agent_message() takes run messages (Prepared ... Restored, Error) and may
 * take over *e; returns -ESRCH when no run of this coordinator wants it. */
int runs_agent_message(runs_t *rs, coord_agent_t *a, envelope_t **e, int64_t now);
/* An agent's LayoutProgress, to the run that holds it; -ESRCH when none does (ignored). */
int runs_layout_progress(runs_t *rs, coord_agent_t *a, const Iofleet__LayoutProgress *m, int64_t now);
void runs_agent_hello(runs_t *rs, coord_agent_t *a, const Iofleet__Hello *h, int64_t now);
void runs_agent_lost(runs_t *rs, coord_agent_t *a, int64_t now);
/* The answer to an agent's heartbeat: the run holding it ("" none) and what it acknowledges
 * (0: nothing new). */
uint64_t runs_heartbeat(runs_t *rs, coord_agent_t *a, const char **run_id);

/* Deadlines of every run; runs that ended get their result written and are freed. */
void runs_tick(runs_t *rs, int64_t now);
/* After any event: the runs that are over get their result written (off the loop); those whose
 * result is written are finished (RunDone, agents free) and freed. */
void runs_settle(runs_t *rs, int64_t now);
/* Settles until no result is being written (the coordinator stopping). */
void runs_wait(runs_t *rs);
/* Readable when a result has been written: the loop polls it and settles (-1: none, it settles
 * at its next turn). */
int runs_fd(const runs_t *rs);
int64_t runs_next_deadline(const runs_t *rs);
/* Some run is collecting an interval (run_collecting()). */
bool runs_collecting(const runs_t *rs, int64_t now);
/* Syncs every journal that has new records, so that the Acks queued may go out and heartbeats
 * acknowledge what is on disk: true when they may (false when a journal cannot be written: then
 * nothing is acknowledged). */
bool runs_sync(runs_t *rs);
/* Whether a sync would have something to do. */
bool runs_dirty(const runs_t *rs);
/* Journal bytes written since start, over every run (for the benchmark's log line). */
uint64_t runs_journal_bytes(const runs_t *rs);
