/* Agents of a run that go away and come back: lost, gone after the orphan grace, rejoining with
 * their run, acknowledgements, and a run re-adopted by a restarted coordinator. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "run-internal.h"
#include "util.h"

static void set_lost(coord_run_t *run, run_agent_t *a, int64_t now)
{
        run_owed_drop(run, a);
        a->lost = true;
        a->lost_at = now;
        /* Without an orphan grace the agent stopped when it lost us: nothing to wait for. */
        if (!run->orphan_grace_ns)
                a->gone = true;
        run_owed_take(run, a);
}

void run_agent_lost(coord_run_t *run, const char *agent_id, int64_t now, run_out_t *out)
{
        run_agent_t *a = run_find_agent(run, agent_id);
        run_rec_t rec = {.type = RUN_REC_LOST, .now = now};
        if (!a || a->lost || a->gone || run->phase == RUN_DONE)
                return;
        /* Done and put back: nothing more to come from it. */
        if (a->done && a->restored)
                return;
        rec.rank = a->rank;
        run_keep_rec(run, &rec);
        set_lost(run, a, now);
        if (a->gone)
                run_event(run, out,
                          "agent %s lost: no word from it within its lease; the run goes on "
                          "without it, what it sent is kept",
                          a->name);
        else
                run_event(run, out,
                          "agent %s lost: no word from it within its lease; it keeps running "
                          "and may come back within %llus with what it did",
                          a->name, (unsigned long long)(run->orphan_grace_ns / NSEC_PER_SEC));
        run_check_all(run, now, out);
}

/* What an agent that rejoined missed while away: the start instant, or the stop. */
static void resend_due(coord_run_t *run, run_agent_t *a, const char *phase, int64_t now, run_out_t *out)
{
        bool waiting = streq(phase, "prepared") || streq(phase, "preparing");
        if (!a->server && waiting && a->start_sent && !a->started && !a->stop_sent) {
                /* It never heard the start instant: too late to start with the others. */
                if (run->start_ns - now > 100 * (int64_t)NSEC_PER_MSEC) {
                        run_send_start(run, a, out);
                        return;
                }
                run_send_stop(run, a, "missed the start instant while away", out);
                run_fail_agent(run, a, IOFLEET__ERROR_CODE__ERROR_TIMEOUT,
                               "missed the start instant while it was away", now, out);
                return;
        }
        if (a->stop_sent && !streq(phase, "done") && !streq(phase, "restoring"))
                run_send_stop(run, a, run->code ? run->message : "step over", out);
        else if (streq(phase, "running"))
                run_groups_resend(run, a, now, out);
}

void run_agent_hello(coord_run_t *run, const char *agent_id, const char *run_id, const char *phase,
                     uint64_t made, int64_t now, run_out_t *out)
{
        run_agent_t *a = run_find_agent(run, agent_id);
        run_rec_t rec = {
            .type = RUN_REC_HELLO, .now = now, .text = run_id, .phase = phase, .made = made};
        if (!a || run->phase == RUN_DONE)
                return;
        rec.rank = a->rank;
        if (!streq(run_id, run->id)) {
                /* A restarted agent without its run's state: its workers and host changes are
                 * gone (its start put the host back). */
                if (a->done && a->restored)
                        return;
                run_keep_rec(run, &rec);
                if (a->lost) {
                        run_owed_drop(run, a);
                        a->lost = false;
                        run_owed_take(run, a);
                        run_reset_hints(run);
                }
                a->restored = true;
                run_fail_agent(run, a, IOFLEET__ERROR_CODE__ERROR_INTERNAL,
                               "the agent restarted and lost its part of the run", now, out);
                return;
        }
        run_keep_rec(run, &rec);
        if (a->lost) {
                run_owed_drop(run, a);
                a->away_ns += now - a->lost_at;
                a->lost = false;
                a->rejoined = true;
                /* Given up on, but the run still goes on: what it brings counts again. */
                a->gone = false;
                run_owed_take(run, a);
                run_reset_hints(run);
                run_event(run, out, "agent %s rejoined after %.1fs away; it resends what it did",
                          a->name, (double)(now - a->lost_at) / NSEC_PER_SEC);
        }
        if (made != RUN_MADE_UNKNOWN && made < a->rseq)
                /* Its record on disk is older than what it delivered (a power cut took the
                 * host's last writes): the Ack below tells it to number on after a->rseq, so
                 * that its next message is not taken for one of those. */
                run_event(run, out,
                          "agent %s came back with a record of the run older than what it had "
                          "delivered (%llu of %llu messages): its host lost the rest; what it "
                          "did not deliver is missing",
                          a->name, (unsigned long long)made, (unsigned long long)a->rseq);
        /* Where it resends from. */
        run_push_ack(run, a, out);
        resend_due(run, a, phase ? phase : "", now, out);
        run_check_all(run, now, out);
}

uint64_t run_heartbeat_ack(coord_run_t *run, const char *agent_id)
{
        run_agent_t *a = run_find_agent(run, agent_id);
        if (!a || a->lost || a->rseq_durable <= a->rseq_acked)
                return 0;
        a->rseq_acked = a->rseq_durable;
        return a->rseq_acked;
}

void run_synced(coord_run_t *run)
{
        for (size_t i = 0; i < run->n_agents; i++)
                run->agents[i].rseq_durable = run->agents[i].rseq;
}

/* Agents away past their orphan grace are given up: the run goes on (or ends) without them. */
void run_tick_away(coord_run_t *run, int64_t now, run_out_t *out)
{
        bool changed = false;
        for (size_t i = 0; i < run->n_agents; i++) {
                run_agent_t *a = &run->agents[i];
                if (!a->lost || a->gone || now < a->lost_at + (int64_t)run->orphan_grace_ns)
                        continue;
                run_owed_drop(run, a);
                a->gone = true;
                run_owed_take(run, a);
                changed = true;
                run_event(run, out,
                          "agent %s did not come back within the orphan grace (%llus): the run "
                          "goes on without what it still had",
                          a->name, (unsigned long long)(run->orphan_grace_ns / NSEC_PER_SEC));
        }
        if (changed)
                run_check_all(run, now, out);
}

void run_readopt(coord_run_t *run, int64_t now, run_out_t *out)
{
        run->control_peer[0] = 0;
        run->n_watchers = 0;
        for (size_t i = 0; i < run->n_agents; i++) {
                run_agent_t *a = &run->agents[i];
                if (a->gone || (a->done && a->restored))
                        continue;
                /* Every agent lost its coordinator with us: each has its grace from now. */
                if (!a->lost)
                        set_lost(run, a, now);
                else
                        a->lost_at = now;
                a->ack_owed = false;
        }
        /* What the journal held is on disk. */
        run_synced(run);
        /* Deadlines that passed while the coordinator was away start again. */
        if (run->prepare_deadline_ns < now + RUN_FINISH_GRACE_NS)
                run->prepare_deadline_ns = now + RUN_FINISH_GRACE_NS;
        if (run->finish_deadline_ns != INT64_MAX)
                run->finish_deadline_ns = now + RUN_FINISH_GRACE_NS;
        if (run->stop_deadline_ns != INT64_MAX && run->stop_deadline_ns < now)
                run->stop_deadline_ns = now + RUN_STOP_GRACE_NS;
        for (size_t i = 0; i < run->n_agents; i++)
                if (run->agents[i].done && !run->agents[i].restored && run->agents[i].done_at < now)
                        run->agents[i].done_at = now;
        run_check_all(run, now, out);
}

const char *run_agent_status(const coord_run_t *run, const run_agent_t *a)
{
        if (a->error[0] && !a->gone)
                return "failed";
        if (a->gone || a->lost)
                return a->error[0] ? "failed" : "lost";
        return a->rejoined ? "rejoined" : "ok";
}
