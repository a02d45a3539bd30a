/* The cluster-wide stonewall: with several serial groups, each group after the first starts at
 * one instant on every agent once every agent has ended the group before (fio's stonewall, held
 * across agents). Agents report a group laid out and waiting (GroupReady); the run releases the
 * group when all it waits for are ready, or at the group's deadline without the rest. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "intervals.h"
#include "jobgroups.h"
#include "log.h"
#include "run-internal.h"
#include "util.h"

int run_groups_plan(coord_run_t *run, size_t part, const job_spec_t *specs, size_t n)
{
        jobgroup_t *g;
        uint32_t ng = 0;
        size_t np = part + 1 > run->n_parts ? part + 1 : run->n_parts;
        uint32_t *pg = realloc(run->part_groups, np * sizeof(*pg));
        uint64_t *ps;
        uint64_t **pst;

        if (!pg)
                return -ENOMEM;
        run->part_groups = pg;
        if (!(ps = realloc(run->part_span, np * sizeof(*ps))))
                return -ENOMEM;
        run->part_span = ps;
        if (!(pst = realloc(run->part_starts, np * sizeof(*pst))))
                return -ENOMEM;
        run->part_starts = pst;
        for (size_t i = run->n_parts; i < np; i++) {
                pg[i] = 0;
                ps[i] = 0;
                pst[i] = NULL;
        }
        run->n_parts = np;
        if (!(g = calloc(n ? n : 1, sizeof(*g))))
                return -ENOMEM;
        if (jobgroups_plan(specs, n, g, &ng, NULL, 0) < 0)
                ng = n ? 1 : 0;
        free(g);
        free(pst[part]);
        if (!(pst[part] = calloc(ng ? ng : 1, sizeof(**pst))))
                return -ENOMEM;
        pg[part] = ng;
        ps[part] = jobgroups_starts(specs, n, pst[part], ng);
        if (ng > run->n_groups)
                run->n_groups = ng;
        return 0;
}

int run_groups_init(coord_run_t *run)
{
        run->group_due_ns = INT64_MAX;
        run->group_barrier = run->n_groups > 1;
        if (!run->group_barrier)
                return 0;
        /* Far enough ahead for StartGroup to reach every agent, a quarter of the run's lead. */
        run->group_margin_ns = run->lead_ns / 4;
        if (run->group_margin_ns < 100 * NSEC_PER_MSEC)
                run->group_margin_ns = run->lead_ns < 100 * NSEC_PER_MSEC ? run->lead_ns
                                                                          : 100 * NSEC_PER_MSEC;
        if (!(run->groups = calloc(run->n_groups, sizeof(*run->groups))))
                return -ENOMEM;
        for (size_t i = 0; i < run->n_agents; i++) {
                run_agent_t *a = &run->agents[i];
                a->n_groups = a->part < run->n_parts ? run->part_groups[a->part] : 0;
                if (a->server)
                        a->n_groups = 0;
                if (!(a->grp = calloc(run->n_groups, sizeof(*a->grp))))
                        return -ENOMEM;
        }
        return 0;
}

void run_groups_free(coord_run_t *run)
{
        for (size_t i = 0; i < run->n_agents; i++)
                free(run->agents[i].grp);
        for (size_t p = 0; p < run->n_parts; p++)
                free(run->part_starts[p]);
        free(run->part_starts);
        free(run->part_span);
        free(run->part_groups);
        free(run->groups);
}

/* Whether group g still waits for agent a: a client with such a group, given the run's start,
 * neither failed, finished (an agent whose part ended early has no group g to start) nor given
 * up. An agent away within its orphan grace is waited for: it comes back with its GroupReady. */
static bool awaited(const run_agent_t *a, uint32_t g)
{
        return !a->server && a->n_groups > g && a->start_sent && !a->error[0] && !a->gone &&
               !a->done;
}

static void count(coord_run_t *run, const run_agent_t *a, bool in)
{
        if (!run->group_barrier || !a->grp)
                return;
        for (uint32_t g = 1; g < a->n_groups && g < run->n_groups; g++) {
                run_group_t *grp = &run->groups[g];
                if (!awaited(a, g))
                        continue;
                if (in) {
                        grp->n_awaited++;
                        grp->n_ready += a->grp[g].ready;
                } else {
                        grp->n_awaited--;
                        grp->n_ready -= a->grp[g].ready;
                }
        }
}

void run_groups_drop(coord_run_t *run, const run_agent_t *a)
{
        count(run, a, false);
}

void run_groups_take(coord_run_t *run, const run_agent_t *a)
{
        count(run, a, true);
}

/* Groups start while the run runs (an agent may be ready before the others' Started came). */
static bool running(const coord_run_t *run)
{
        return run->group_barrier && (run->phase == RUN_RUNNING || run->phase == RUN_STARTING);
}

static void give(coord_run_t *run, run_agent_t *a, uint32_t g, int64_t at, run_out_t *out)
{
        envelope_t e = IOFLEET__ENVELOPE__INIT;
        Iofleet__StartGroup s = IOFLEET__START_GROUP__INIT;
        s.run_id = run->id;
        s.group = g;
        s.start_ns = at;
        s.max_intervals = run->max_intervals;
        e.body_case = IOFLEET__ENVELOPE__BODY_START_GROUP;
        e.start_group = &s;
        a->grp[g].given = true;
        a->grp[g].at_ns = at;
        if (at + RUN_START_GRACE_NS < run->group_due_ns)
                run->group_due_ns = at + RUN_START_GRACE_NS;
        outbox_push(&out->agents, a->id, &e);
}

/* The run lasts longer by the barrier's waits: group g starts at `at` instead of where the plan
 * had it, so the interval count and the runtime's end move (never earlier). */
static void extend(coord_run_t *run, uint32_t g, int64_t at)
{
        uint64_t before = run->max_intervals;
        if (!run->max_intervals || at < run->start_ns)
                return;
        for (size_t p = 0; p < run->n_parts; p++) {
                uint64_t n, len;
                if (run->part_groups[p] <= g || !run->part_span[p])
                        continue;
                len = (uint64_t)(at - run->start_ns) + run->part_span[p] - run->part_starts[p][g];
                n = intervals_of_runtime(len, run->interval_ns);
                if (n > run->max_intervals)
                        run->max_intervals = n > WIRE_MAX_INTERVALS ? WIRE_MAX_INTERVALS : n;
        }
        if (run->max_intervals != before && run->stop_deadline_ns != INT64_MAX)
                run->stop_deadline_ns = run->start_ns +
                                        (int64_t)(run->max_intervals * run->interval_ns) +
                                        RUN_STOP_GRACE_NS;
}

/* Group g starts: one instant for every agent ready; those still awaited after its deadline are
 * named and start it alone when they are ready. */
static void release(coord_run_t *run, uint32_t g, bool overdue, int64_t now, run_out_t *out)
{
        run_group_t *grp = &run->groups[g];
        int64_t at = now + (int64_t)run->group_margin_ns;
        char left[512] = "";
        size_t len = 0, n_left = 0;
        uint32_t n_awaited = 0, n_ready = 0;

        grp->released = true;
        grp->start_ns = at;
        extend(run, g, at);
        for (size_t i = 0; i < run->n_agents; i++) {
                run_agent_t *a = &run->agents[i];
                if (!awaited(a, g) || a->grp[g].given)
                        continue;
                n_awaited++;
                n_ready += a->grp[g].ready;
                if (a->grp[g].ready) {
                        give(run, a, g, at, out);
                        grp->agents++;
                } else if (len < sizeof(left) - 80) {
                        len += (size_t)snprintf(left + len, sizeof(left) - len, "%s%s",
                                                n_left ? ", " : "", a->name);
                        n_left++;
                } else
                        n_left++;
        }
        /* Once per group: a change that missed run_owed_drop/take shows here. */
        if (n_awaited != grp->n_awaited || n_ready != grp->n_ready)
                log_error("run %s: group %u: %u agents awaited, %u ready, but %u and %u were "
                          "counted",
                          run->id, g, n_awaited, n_ready, grp->n_awaited, grp->n_ready);
        if (overdue)
                run_event(run, out,
                          "stonewall: group %u starts on %u agents at +%.3fs without %zu not "
                          "ready within %llus of the first (%s): each starts it alone when "
                          "ready",
                          g, grp->agents, (double)(at - run->start_ns) / NSEC_PER_SEC, n_left,
                          (unsigned long long)(run->prepare_timeout_ns / NSEC_PER_SEC), left);
        else
                run_event(run, out,
                          "stonewall: every agent still in the run ended group %u; group %u starts "
                          "on %u agents at +%.3fs",
                          g - 1, g, grp->agents, (double)(at - run->start_ns) / NSEC_PER_SEC);
}

void run_groups_check(coord_run_t *run, int64_t now, run_out_t *out)
{
        if (!running(run))
                return;
        for (uint32_t g = 1; g < run->n_groups; g++) {
                const run_group_t *grp = &run->groups[g];
                if (grp->released || !grp->first_ready_ns)
                        continue;
                if (grp->n_ready && grp->n_ready == grp->n_awaited)
                        release(run, g, false, now, out);
        }
}

void run_on_group_ready(coord_run_t *run, run_agent_t *a, const Iofleet__GroupReady *m, int64_t now,
                        run_out_t *out)
{
        uint32_t g = m->group;
        run_group_t *grp;
        if (!run->group_barrier || g >= a->n_groups || (g > 1 && !a->grp[g - 1].given)) {
                if (!run->replaying)
                        log_warning("run %s: agent %s says group %u is ready; it has %u groups%s",
                                    run->id, a->name, g, a->n_groups,
                                    run->group_barrier ? " and was not given the one before"
                                                       : " and the run has no barrier");
                return;
        }
        if (a->grp[g].ready)
                return; /* said again */
        a->grp[g].ready = true;
        grp = &run->groups[g];
        if (awaited(a, g))
                grp->n_ready++;
        if (!grp->first_ready_ns) {
                grp->first_ready_ns = now;
                grp->deadline_ns = now + (int64_t)run->prepare_timeout_ns;
        }
        if (!grp->released) {
                run_groups_check(run, now, out);
                return;
        }
        if (!awaited(a, g) || a->grp[g].given)
                return;
        /* Left behind at the deadline (or back from away after the release): alone, now. */
        a->grp[g].late = true;
        grp->late++;
        extend(run, g, now + (int64_t)run->group_margin_ns);
        give(run, a, g, now + (int64_t)run->group_margin_ns, out);
        run_event(run, out, "stonewall: agent %s ready for group %u %.3fs after it started; it "
                  "starts it alone",
                  a->name, g, (double)(now - grp->start_ns) / NSEC_PER_SEC);
}

/* The spread of the achieved starts of group g among the agents given its instant. */
static void group_skew(coord_run_t *run, uint32_t g)
{
        bool shared = run_shared_clock(run);
        int64_t lo = INT64_MAX, hi = INT64_MIN;
        for (size_t i = 0; i < run->n_agents; i++) {
                const run_agent_group_t *ag = &run->agents[i].grp[g];
                int64_t t;
                if (!ag->started || ag->late)
                        continue;
                t = shared ? ag->mono_ns : ag->start_ns;
                lo = t < lo ? t : lo;
                hi = t > hi ? t : hi;
        }
        run->groups[g].skew_shared_clock = shared;
        run->groups[g].skew_ns = hi >= lo ? (uint64_t)(hi - lo) : 0;
}

void run_on_group_started(coord_run_t *run, run_agent_t *a, const Iofleet__GroupStarted *m,
                          int64_t now, run_out_t *out)
{
        uint32_t g = m->group;
        (void)now;
        (void)out;
        if (!run->group_barrier || g >= a->n_groups || !a->grp[g].given || a->grp[g].started)
                return;
        a->grp[g].started = true;
        a->grp[g].start_ns = m->start_ns;
        a->grp[g].mono_ns = m->host_mono_ns;
        group_skew(run, g);
}

void run_groups_tick(coord_run_t *run, int64_t now, run_out_t *out)
{
        if (!run->group_barrier || run->phase == RUN_DONE)
                return;
        if (running(run))
                for (uint32_t g = 1; g < run->n_groups; g++) {
                        run_group_t *grp = &run->groups[g];
                        if (grp->first_ready_ns && !grp->released && now >= grp->deadline_ns)
                                release(run, g, true, now, out);
                }
        if (now < run->group_due_ns)
                return;
        /* StartGroup given and no GroupStarted within the start's grace: it failed, as an agent
         * that does not start the run. */
        run->group_due_ns = INT64_MAX;
        for (size_t i = 0; i < run->n_agents; i++) {
                run_agent_t *a = &run->agents[i];
                for (uint32_t g = 1; g < a->n_groups; g++) {
                        run_agent_group_t *ag = &a->grp[g];
                        char why[128];
                        if (!ag->given || ag->started || a->error[0] || a->gone || a->done)
                                continue;
                        if (a->lost || now < ag->at_ns + RUN_START_GRACE_NS) {
                                int64_t due = a->lost ? INT64_MAX : ag->at_ns + RUN_START_GRACE_NS;
                                if (due < run->group_due_ns)
                                        run->group_due_ns = due;
                                continue;
                        }
                        snprintf(why, sizeof(why), "did not start group %u within %llds of its "
                                 "instant", g, (long long)(RUN_START_GRACE_NS / NSEC_PER_SEC));
                        run_send_stop(run, a, why, out);
                        run_fail_agent(run, a, IOFLEET__ERROR_CODE__ERROR_TIMEOUT, why, now, out);
                        break;
                }
        }
}

int64_t run_groups_next_deadline(const coord_run_t *run)
{
        int64_t t = run->group_barrier ? run->group_due_ns : INT64_MAX;
        if (!running(run))
                return t;
        for (uint32_t g = 1; g < run->n_groups; g++) {
                const run_group_t *grp = &run->groups[g];
                if (grp->first_ready_ns && !grp->released && grp->deadline_ns < t)
                        t = grp->deadline_ns;
        }
        return t;
}

bool run_groups_pending(const coord_run_t *run)
{
        if (!run->group_barrier)
                return false;
        for (uint32_t g = 1; g < run->n_groups; g++)
                if (run->groups[g].first_ready_ns && !run->groups[g].released)
                        return true;
        return false;
}

void run_groups_resend(coord_run_t *run, run_agent_t *a, int64_t now, run_out_t *out)
{
        if (!run->group_barrier || !a->grp)
                return;
        for (uint32_t g = 1; g < a->n_groups; g++) {
                run_agent_group_t *ag = &a->grp[g];
                if (!ag->given || ag->started)
                        continue;
                /* Its instant may have passed while it was away: a fresh one of its own. */
                int64_t at = ag->at_ns - now > 100 * (int64_t)NSEC_PER_MSEC
                                 ? ag->at_ns
                                 : now + (int64_t)run->group_margin_ns;
                extend(run, g, at);
                give(run, a, g, at, out);
        }
}
