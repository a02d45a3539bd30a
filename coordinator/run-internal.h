/* What the run's own files share (run.c, run-agents.c, run-series.c, run-logs.c): helpers that
 * are not the run's interface. */
#pragma once

#include "run.h"

/* Grace after the runtime before agents are told to stop, and after that before giving up on an
 * agent that is still connected. */
#define RUN_STOP_GRACE_NS (5 * (int64_t)NSEC_PER_SEC)
#define RUN_FINISH_GRACE_NS (30 * (int64_t)NSEC_PER_SEC)
/* Run messages accepted from an agent sending log chunks before an Ack goes without waiting for
 * its heartbeat: half the window the agent keeps in flight (agent/agent-run.c). */
#define RUN_LOG_ACK_EVERY 32
/* Started is due this long after the start instant. */
#define RUN_START_GRACE_NS (10 * (int64_t)NSEC_PER_SEC)
/* A client's Restored is due this long after its Finished (or its stop): its unmount may wait
 * up to a minute for a busy server, twice (the lazy retry). */
#define RUN_RESTORE_GRACE_NS (150 * (int64_t)NSEC_PER_SEC)
/* The prepare deadline when the run does not give one: this, plus the files to lay out at
 * RUN_LAYOUT_RATE. */
#define RUN_PREPARE_BASE_NS (120 * (int64_t)NSEC_PER_SEC)
#define RUN_LAYOUT_RATE (32ULL << 20)

static inline run_agent_t *run_find_agent(coord_run_t *run, const char *id)
{
        return idmap_get(run->by_id, id);
}

void run_event(coord_run_t *run, run_out_t *out, const char *fmt, ...) _printf_(3, 4);
/* u (its run_id set here) to the control client that submitted the run and every watcher. */
void run_push_update(coord_run_t *run, run_out_t *out, Iofleet__RunUpdate *u);
/* The layout's live line when it is due (run-layout.c), and when that is (INT64_MAX: never). */
void run_layout_tick(coord_run_t *run, int64_t now, run_out_t *out);
int64_t run_layout_deadline(const coord_run_t *run);
void run_send_stop(coord_run_t *run, run_agent_t *a, const char *reason, run_out_t *out);
void run_send_start(coord_run_t *run, run_agent_t *a, run_out_t *out);
/* An Ack to a saying every run message it sent up to a->rseq is kept. */
void run_push_ack(coord_run_t *run, run_agent_t *a, run_out_t *out);
/* Hands a record to the journal (nothing while replaying one). */
void run_keep_rec(coord_run_t *run, const run_rec_t *rec);
/* Whatever changes what an agent owes (intervals, the stonewall's groups) goes between
 * run_owed_drop() and run_owed_take(). */
void run_owed_drop(coord_run_t *run, const run_agent_t *a);
void run_owed_take(coord_run_t *run, const run_agent_t *a);
/* a has a deadline of its own now (lost, or done and not put back): run_tick looks by then. */
void run_agent_due(coord_run_t *run, const run_agent_t *a);
/* Re-checks the phase after an agent changed: all prepared, all started, all finished. */
void run_check_all(coord_run_t *run, int64_t now, run_out_t *out);
/* An agent came back: the scans start over. */
static inline void run_reset_hints(coord_run_t *run)
{
        run->hint_prepared = run->hint_started = run->hint_finished = run->hint_restored = 0;
}
void run_fail_agent(coord_run_t *run, run_agent_t *a, Iofleet__ErrorCode code, const char *msg,
                    int64_t now, run_out_t *out);
/* Agents away past their orphan grace are given up (run-agents.c). */
void run_tick_away(coord_run_t *run, int64_t now, run_out_t *out);

/* The cluster-wide stonewall (run-groups.c). */
/* Per part: its serial groups and their planned starts, from the part's jobs; the barrier is on
 * when any part has more than one. 0 or -ENOMEM. */
int run_groups_plan(coord_run_t *run, size_t part, const job_spec_t *specs, size_t n);
/* After the parts are planned and the agents known: the per-agent state. 0 or -ENOMEM. */
int run_groups_init(coord_run_t *run);
void run_groups_free(coord_run_t *run);
/* GroupReady / GroupStarted from agent a. */
void run_on_group_ready(coord_run_t *run, run_agent_t *a, const Iofleet__GroupReady *m, int64_t now,
                        run_out_t *out);
void run_on_group_started(coord_run_t *run, run_agent_t *a, const Iofleet__GroupStarted *m,
                          int64_t now, run_out_t *out);
/* Agent a's part in the groups' counts of agents awaited and ready: out before a change to what
 * makes a group wait for it, back in after (run_owed_drop/run_owed_take call them). */
void run_groups_drop(coord_run_t *run, const run_agent_t *a);
void run_groups_take(coord_run_t *run, const run_agent_t *a);
/* Releases every group whose agents are all ready (or not waited for any more: done, failed,
 * given up), or whose deadline has passed. */
void run_groups_check(coord_run_t *run, int64_t now, run_out_t *out);
/* Deadlines: a group's readiness, an agent's GroupStarted. */
void run_groups_tick(coord_run_t *run, int64_t now, run_out_t *out);
int64_t run_groups_next_deadline(const coord_run_t *run);
/* A group is waiting for agents to be ready: the runtime's end is not due meanwhile. */
bool run_groups_pending(const coord_run_t *run);
/* What a rejoining agent missed: its group's instant. */
void run_groups_resend(coord_run_t *run, run_agent_t *a, int64_t now, run_out_t *out);
/* The spread of achieved instants (lo..hi) on the shared clock or the timeline. */
bool run_shared_clock(const coord_run_t *run);
