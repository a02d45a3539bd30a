/* The runner's starter: the start instant, the groups after the first one by one (fio's
 * stonewall, held across agents with the coordinator's barrier), and steady-state detection. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/prctl.h>

#include "clock.h"
#include "log.h"
#include "runner-internal.h"
#include "util.h"

static bool stopped(const runner_t *r)
{
        return __atomic_load_n(&r->stop, __ATOMIC_RELAXED);
}

/* Sleeps until the instant `at` (CLOCK_MONOTONIC) in slices, so that a stop reaches it, then spins
 * the last stretch, real-time when allowed: a normal thread woken on a busy host can wait a
 * scheduler time slice (milliseconds) for its CPU. Timer slack would add 50us to the sleep.
 * Returns the instant reached, or 0 when stopped first; *rt says whether it ran real-time. */
static int64_t wait_instant(runner_t *r, int64_t at, bool *rt)
{
        struct sched_param fifo = {.sched_priority = RUNNER_RT_PRIORITY}, normal = {0};
        int64_t reached;

        *rt = pthread_setschedparam(pthread_self(), SCHED_FIFO, &fifo) == 0;
        prctl(PR_SET_TIMERSLACK, 1UL);
        for (;;) {
                int64_t slice = clock_mono_ns() + RUNNER_SLEEP_SLICE_NS;
                if (stopped(r)) {
                        if (*rt)
                                pthread_setschedparam(pthread_self(), SCHED_OTHER, &normal);
                        return 0;
                }
                if (slice >= at - RUNNER_SPIN_NS)
                        break;
                clock_sleep_until_mono(slice, 0);
        }
        reached = clock_sleep_until_mono(at, RUNNER_SPIN_NS);
        return reached ? reached : 1;
}

static void leave_realtime(bool rt)
{
        struct sched_param normal = {0};
        if (rt)
                pthread_setschedparam(pthread_self(), SCHED_OTHER, &normal);
}

/* Whether every worker of group grp is prepared (or failed to be); under the gate's lock. */
static bool group_prepared(const runner_t *r, unsigned grp)
{
        for (size_t i = 0; i < r->n_workers; i++)
                if (r->workers[i].group == grp &&
                    !__atomic_load_n(&r->workers[i].prepared, __ATOMIC_ACQUIRE))
                        return false;
        return true;
}

/* Calls off every group not yet started: their workers go home without running. */
static void abort_rest(runner_t *r)
{
        r->gate.abort = true;
        pthread_cond_broadcast(&r->gate.cond);
}

/*
 * The groups after the first, one after another (fio's stonewall): once every worker of the
 * group before has ended, the next group's workers lay out and open their files; when all are
 * prepared the group starts, at once here, or, with group_barrier, at the instant that
 * runner_start_group_at() gives (the agent reports the group ready and waits for the cluster's
 * instant, so that a stonewall holds across agents).
 */
static void run_later_groups(runner_t *r)
{
        gate_t *g = &r->gate;

        for (unsigned grp = 1; grp < r->n_groups; grp++) {
                int64_t at, reached;
                bool rt;

                pthread_mutex_lock(&g->lock);
                while (g->group_left[grp - 1] > 0)
                        pthread_cond_wait(&g->cond, &g->lock);
                if (g->abort || stopped(r)) {
                        abort_rest(r);
                        pthread_mutex_unlock(&g->lock);
                        return;
                }
                r->group = grp;
                g->layout_group = grp;
                pthread_cond_broadcast(&g->cond);
                while (!group_prepared(r, grp) && !g->abort)
                        pthread_cond_wait(&g->cond, &g->lock);
                if (r->group_barrier) {
                        r->group_waiting = true;
                        runner_notify(r);
                        while (!r->group_release && !stopped(r) && !g->abort)
                                pthread_cond_wait(&g->cond, &g->lock);
                        r->group_waiting = false;
                }
                at = r->group_barrier ? r->group_release : clock_mono_ns();
                r->group_release = 0;
                if (g->abort || stopped(r)) {
                        abort_rest(r);
                        pthread_mutex_unlock(&g->lock);
                        return;
                }
                pthread_mutex_unlock(&g->lock);
                reached = wait_instant(r, at, &rt);
                pthread_mutex_lock(&g->lock);
                if (!reached)
                        abort_rest(r);
                else
                        g->group_start[grp] = reached;
                pthread_cond_broadcast(&g->cond);
                pthread_mutex_unlock(&g->lock);
                leave_realtime(rt);
                runner_notify(r);
                if (!reached)
                        return;
        }
}

static void *starter_main(void *arg)
{
        runner_t *r = arg;
        int64_t start = r->gate.start_mono, lag = 0, deadline;
        bool is_rt;

        r->started_mono = wait_instant(r, start, &is_rt);
        if (!r->started_mono) {
                /* Stopped before the instant: the workers leave without running. */
                runner_open_gate(r, true, start);
                r->started_mono = clock_mono_ns();
                __atomic_store_n(&r->started, 1, __ATOMIC_RELEASE);
                runner_notify(r);
                return NULL;
        }
        runner_open_gate(r, false, start);
        leave_realtime(is_rt);
        r->realtime = is_rt;
        /* How long the workers that start at once took to wake: part of the start's precision,
         * reported. */
        deadline = clock_mono_ns() + 100 * (int64_t)NSEC_PER_MSEC;
        for (size_t i = 0; i < r->n_workers; i++) {
                worker_t *w = &r->workers[i];
                if (w->group != 0 || w->waits_for >= 0)
                        continue;
                while (!__atomic_load_n(&w->ran, __ATOMIC_ACQUIRE) &&
                       !__atomic_load_n(&w->done, __ATOMIC_ACQUIRE) && clock_mono_ns() < deadline)
                        sched_yield();
                if (__atomic_load_n(&w->ran, __ATOMIC_ACQUIRE) && w->wake_mono - start > lag)
                        lag = w->wake_mono - start;
        }
        r->workers_lag_ns = (uint64_t)lag;
        __atomic_store_n(&r->started, 1, __ATOMIC_RELEASE);
        runner_notify(r);
        run_later_groups(r);
        return NULL;
}

/* fio's steady-state detection, for the jobs that ask for it: a reading of each such job's
 * totals every second from its start plus ss_ramp; a job whose window meets its criterion is
 * ended (its workers' stop flag), as fio ends it. */
static void *ss_main(void *arg)
{
        runner_t *r = arg;
        int64_t *next = calloc(r->n_jobs ? r->n_jobs : 1, sizeof(*next));

        while (next && !stopped(r)) {
                int64_t now;
                bool live = false;
                clock_sleep_until_mono(clock_mono_ns() + 50 * (int64_t)NSEC_PER_MSEC, 0);
                now = clock_mono_ns();
                for (size_t j = 0; j < r->n_jobs; j++) {
                        int64_t began = INT64_MAX;
                        uint64_t bytes = 0, ios = 0;
                        if (!r->ss[j] || r->ss[j]->attained ||
                            !__atomic_load_n(&r->gate.job_left[j], __ATOMIC_RELAXED))
                                continue;
                        live = true;
                        for (size_t i = 0; i < r->n_workers; i++) {
                                worker_t *w = &r->workers[i];
                                if (w->job_index != j || !__atomic_load_n(&w->ran, __ATOMIC_ACQUIRE))
                                        continue;
                                if (w->job_start_mono < began)
                                        began = w->job_start_mono;
                                for (int d = 0; d < 2; d++) {
                                        bytes += __atomic_load_n(&w->dir[d].bytes, __ATOMIC_RELAXED);
                                        ios += __atomic_load_n(&w->dir[d].ios, __ATOMIC_RELAXED);
                                }
                        }
                        if (began == INT64_MAX)
                                continue;
                        if (!next[j])
                                next[j] = began + (int64_t)r->jobs[j].ss_ramp_ns;
                        if (now < next[j])
                                continue;
                        while (next[j] <= now)
                                next[j] += (int64_t)NSEC_PER_SEC;
                        if (steadystate_sample(r->ss[j], bytes, ios)) {
                                log_info("job %s: steady state attained (%s), ending it",
                                         r->jobs[j].name, r->jobs[j].steadystate);
                                __atomic_store_n(&r->gate.stop[j], 1, __ATOMIC_RELAXED);
                        }
                }
                /* every job with a window has ended (or later groups' are still to come) */
                for (size_t i = 0; i < r->n_workers && !live; i++)
                        live = !__atomic_load_n(&r->workers[i].done, __ATOMIC_ACQUIRE) &&
                               r->ss[r->workers[i].job_index];
                if (!live)
                        break;
        }
        free(next);
        return NULL;
}

int runner_start_at(runner_t *r, int64_t start_mono)
{
        int rc;
        if (r->state != RUNNER_PREPARED)
                return -EBUSY;
        /* Read by the starter before it opens the gate, which publishes it to the workers. */
        r->gate.start_mono = start_mono;
        rc = -pthread_create(&r->starter, NULL, starter_main, r);
        if (rc < 0)
                return rc;
        r->starter_running = true;
        r->state = RUNNER_STARTING;
        runner_disks_begin(r);
        for (size_t j = 0; j < r->n_jobs; j++)
                if (r->ss[j]) {
                        if (pthread_create(&r->ss_thread, NULL, ss_main, r) == 0)
                                r->ss_running = true;
                        else
                                log_warning("steadystate: no thread to judge it: the jobs run "
                                            "their whole runtime");
                        break;
                }
        return 0;
}

const steadystate_t *runner_job_steadystate(const runner_t *r, size_t job)
{
        return job < r->n_jobs && r->ss ? r->ss[job] : NULL;
}

unsigned runner_groups(const runner_t *r)
{
        return r->n_groups;
}

bool runner_group_waiting(runner_t *r, unsigned *group)
{
        bool w;
        pthread_mutex_lock(&r->gate.lock);
        w = r->group_waiting && !r->group_release;
        if (w && group)
                *group = r->group;
        pthread_mutex_unlock(&r->gate.lock);
        return w;
}

int runner_start_group_at(runner_t *r, unsigned group, int64_t start_mono)
{
        int rc = 0;
        pthread_mutex_lock(&r->gate.lock);
        if (!r->group_barrier || !r->group_waiting || group != r->group || start_mono <= 0)
                rc = -EINVAL;
        else {
                r->group_release = start_mono;
                pthread_cond_broadcast(&r->gate.cond);
        }
        pthread_mutex_unlock(&r->gate.lock);
        return rc;
}

int64_t runner_group_started_mono(runner_t *r, unsigned group)
{
        int64_t t = 0;
        if (group >= r->n_groups)
                return 0;
        pthread_mutex_lock(&r->gate.lock);
        t = group ? r->gate.group_start[group] : r->started_mono;
        pthread_mutex_unlock(&r->gate.lock);
        return t;
}
