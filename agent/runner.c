/* An agent's part of a run: one worker thread per job clone, released together at the start
 * instant. */
#include "runner.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "engine.h"
#include "log.h"
#include "util.h"
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
        int started;   /* set by the starter once the gate is open and workers are awake */
        bool realtime; /* the starter could run SCHED_FIFO */
};

int runner_dir_init(runner_dir_t *d)
{
        int r;
        memset(d, 0, sizeof(*d));
        if ((r = hist_new(&d->clat)) < 0 || (r = hist_new(&d->slat)) < 0 ||
            (r = hist_new(&d->lat)) < 0) {
                runner_dir_done(d);
                return r;
        }
        return 0;
}

void runner_dir_done(runner_dir_t *d)
{
        hist_free(&d->clat);
        hist_free(&d->slat);
        hist_free(&d->lat);
}

static void notify(void *userdata)
{
        runner_t *r = userdata;
        uint64_t one = 1;
        if (write(r->efd, &one, sizeof(one)) < 0) {
                /* The counter cannot overflow in practice; nothing else to do. */
        }
}

static int resolve_path(const job_spec_t *j, const runner_params_t *p, unsigned clone, char *buf,
                        size_t len, char *err, size_t errlen)
{
        const char *dir = j->directory ? j->directory : p->work_dir;
        struct stat st;

        if (j->filename && j->filename[0] == '/') {
                snprintf(buf, len, "%s", j->filename);
                return 0;
        }
        if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
                snprintf(err, errlen, "job %s: directory=%s %s", j->name, dir,
                         errno == ENOENT || !errno ? "does not exist" : strerror(errno));
                return -ENOENT;
        }
        if (j->filename)
                /* fio's meaning: the named file, shared by every clone, here and on every agent. */
                snprintf(buf, len, "%s/%s", dir, j->filename);
        else
                /* fio's jobname.jobnum.filenum, with the agent's name so that agents sharing a
                 * directory (an NFS export) never trample each other's files. */
                snprintf(buf, len, "%s/%s.%s.%u.0", dir, j->name, p->agent_name, clone);
        return 0;
}

static uint64_t seed_of(const char *name, uint32_t rank, unsigned clone)
{
        uint64_t h = 1469598103934665603ULL;
        for (const char *c = name; *c; c++)
                h = (h ^ (unsigned char)*c) * 1099511628211ULL;
        return h ^ ((uint64_t)rank << 32) ^ clone;
}

int runner_new(runner_params_t *p, runner_t **ret, char *err, size_t errlen)
{
        runner_t *r = calloc(1, sizeof(*r));
        size_t n = 0, w = 0;
        int rc;

        if (errlen)
                err[0] = 0;
        if (!r) {
                for (size_t i = 0; i < p->n_jobs; i++)
                        job_spec_done(&p->jobs[i]);
                free(p->jobs);
                return -ENOMEM;
        }
        r->jobs = p->jobs;
        r->n_jobs = p->n_jobs;
        p->jobs = NULL;
        r->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        pthread_mutex_init(&r->gate.lock, NULL);
        pthread_cond_init(&r->gate.cond, NULL);
        if (r->efd < 0) {
                rc = -errno;
                goto fail;
        }
        {
                /* Limits a coordinator cannot talk an agent past: threads, and buffer memory
                 * (each worker holds one block of bs bytes). */
                uint64_t buffers = 0, mem = (uint64_t)sysconf(_SC_PHYS_PAGES) *
                                            (uint64_t)sysconf(_SC_PAGESIZE);
                for (size_t i = 0; i < r->n_jobs; i++) {
                        n += r->jobs[i].numjobs;
                        buffers += (uint64_t)r->jobs[i].numjobs * r->jobs[i].bs;
                }
                if (n > RUNNER_MAX_WORKERS) {
                        snprintf(err, errlen,
                                 "numjobs: %zu workers in all exceed this agent's limit of %d",
                                 n, RUNNER_MAX_WORKERS);
                        rc = -E2BIG;
                        goto fail;
                }
                if (buffers > mem / 4) {
                        snprintf(err, errlen,
                                 "bs x numjobs: %llu MiB of I/O buffers exceed a quarter of this "
                                 "agent's memory (%llu MiB)",
                                 (unsigned long long)(buffers >> 20),
                                 (unsigned long long)(mem >> 22));
                        rc = -E2BIG;
                        goto fail;
                }
        }
        r->workers = calloc(n ? n : 1, sizeof(*r->workers));
        if (!r->workers) {
                rc = -ENOMEM;
                goto fail;
        }
        for (size_t i = 0; i < r->n_jobs; i++) {
                const job_spec_t *j = &r->jobs[i];
                const engine_ops_t *e = engine_find(j->ioengine);
                if (!e) {
                        snprintf(err, errlen, "job %s: ioengine=%s is not available on this agent",
                                 j->name, j->ioengine);
                        rc = -EOPNOTSUPP;
                        goto fail;
                }
                for (unsigned c = 0; c < j->numjobs; c++, w++) {
                        worker_t *wk = &r->workers[w];
                        wk->job = j;
                        wk->engine = e;
                        wk->job_index = i;
                        wk->clone = c;
                        wk->seed = seed_of(j->name, p->rank, c);
                        wk->gate = &r->gate;
                        wk->stop = &r->stop;
                        wk->notify = notify;
                        wk->userdata = r;
                        for (int d = 0; d < 2; d++) {
                                hist_init(&wk->dir[d].clat);
                                hist_init(&wk->dir[d].slat);
                                hist_init(&wk->dir[d].lat);
                        }
                        if (!(e->flags & ENGINE_NO_FILES) &&
                            (rc = resolve_path(j, p, c, wk->path, sizeof(wk->path), err, errlen)) <
                                0)
                                goto fail;
                        /* Shared files are laid out once, by the first worker that names them. */
                        wk->layout_owner = true;
                        for (size_t k = 0; k < w; k++)
                                if (wk->path[0] && streq(r->workers[k].path, wk->path))
                                        wk->layout_owner = false;
                }
        }
        r->n_workers = n;
        r->gate.laying_out = n;
        for (size_t i = 0; i < n; i++) {
                if ((rc = -pthread_create(&r->workers[i].thread, NULL, worker_main,
                                          &r->workers[i])) < 0) {
                        /* The ones started wait for the rest at layout: call it off. */
                        snprintf(err, errlen,
                                 "cannot start %zu worker threads (started %zu): %s", n, i,
                                 strerror(-rc));
                        goto fail;
                }
                r->n_threads++;
        }
        r->state = RUNNER_PREPARING;
        *ret = r;
        return 0;
fail:
        if (!err[0])
                snprintf(err, errlen, "runner: %s", strerror(-rc));
        runner_destroy(&r);
        return rc;
}

void runner_stop(runner_t *r)
{
        __atomic_store_n(&r->stop, 1, __ATOMIC_RELAXED);
}

static void open_gate(runner_t *r, bool abort_run, int64_t start_mono)
{
        pthread_mutex_lock(&r->gate.lock);
        if (!r->gate.open) {
                r->gate.open = true;
                r->gate.abort = abort_run;
                r->gate.start_mono = start_mono;
        }
        /* An abort also releases workers still waiting for the others' layout. */
        r->gate.abort |= abort_run;
        pthread_cond_broadcast(&r->gate.cond);
        pthread_mutex_unlock(&r->gate.lock);
}

void runner_destroy(runner_t **rp)
{
        runner_t *r = *rp;
        if (!r)
                return;
        runner_stop(r);
        if (r->starter_running)
                pthread_join(r->starter, NULL);
        open_gate(r, true, 0);
        for (size_t i = 0; i < r->n_threads; i++)
                pthread_join(r->workers[i].thread, NULL);
        pthread_mutex_destroy(&r->gate.lock);
        pthread_cond_destroy(&r->gate.cond);
        for (size_t i = 0; i < r->n_jobs; i++)
                job_spec_done(&r->jobs[i]);
        free(r->jobs);
        free(r->workers);
        if (r->efd >= 0)
                close(r->efd);
        free(r);
        *rp = NULL;
}

int runner_fd(const runner_t *r)
{
        return r->efd;
}

runner_state_t runner_update(runner_t *r)
{
        uint64_t v;
        size_t prepared = 0, done = 0;

        while (read(r->efd, &v, sizeof(v)) == sizeof(v))
                ;
        for (size_t i = 0; i < r->n_workers; i++) {
                worker_t *w = &r->workers[i];
                int p = __atomic_load_n(&w->prepared, __ATOMIC_ACQUIRE);
                if (p < 0 && r->state == RUNNER_PREPARING) {
                        snprintf(r->error, sizeof(r->error), "job %s: %s", w->job->name, w->errmsg);
                        r->state = RUNNER_FAILED;
                }
                prepared += p > 0;
                done += __atomic_load_n(&w->done, __ATOMIC_ACQUIRE);
        }
        if (r->state == RUNNER_PREPARING && prepared == r->n_workers)
                r->state = RUNNER_PREPARED;
        if (r->state == RUNNER_STARTING && __atomic_load_n(&r->started, __ATOMIC_ACQUIRE))
                r->state = RUNNER_RUNNING;
        if ((r->state == RUNNER_RUNNING || r->state == RUNNER_STARTING) && done == r->n_workers &&
            __atomic_load_n(&r->started, __ATOMIC_ACQUIRE))
                r->state = RUNNER_DONE;
        return r->state;
}

const char *runner_error(const runner_t *r)
{
        return r->error;
}

size_t runner_workers(const runner_t *r)
{
        return r->n_workers;
}

static void *starter_main(void *arg)
{
        runner_t *r = arg;
        int64_t start = r->gate.start_mono, lag = 0, deadline;
        struct sched_param rt = {.sched_priority = RUNNER_RT_PRIORITY}, normal = {0};
        bool is_rt;

        /* The starter alone runs real-time, for the last stretch only: a normal thread woken on
         * a busy host can wait a scheduler time slice (milliseconds) for its CPU. Without the
         * privilege it still works, less precisely. Timer slack would add 50us to the sleep. */
        is_rt = pthread_setschedparam(pthread_self(), SCHED_FIFO, &rt) == 0;
        prctl(PR_SET_TIMERSLACK, 1UL);
        for (;;) {
                int64_t slice = clock_mono_ns() + RUNNER_SLEEP_SLICE_NS;
                if (__atomic_load_n(&r->stop, __ATOMIC_RELAXED)) {
                        /* Stopped before the instant: the workers leave without running. */
                        open_gate(r, true, start);
                        r->started_mono = clock_mono_ns();
                        __atomic_store_n(&r->started, 1, __ATOMIC_RELEASE);
                        notify(r);
                        return NULL;
                }
                if (slice >= start - RUNNER_SPIN_NS)
                        break;
                clock_sleep_until_mono(slice, 0);
        }
        r->started_mono = clock_sleep_until_mono(start, RUNNER_SPIN_NS);
        open_gate(r, false, start);
        if (is_rt)
                pthread_setschedparam(pthread_self(), SCHED_OTHER, &normal);
        r->realtime = is_rt;
        /* How long the workers took to wake: part of the start's precision, reported. */
        deadline = clock_mono_ns() + 100 * (int64_t)NSEC_PER_MSEC;
        for (size_t i = 0; i < r->n_workers; i++) {
                worker_t *w = &r->workers[i];
                while (!__atomic_load_n(&w->ran, __ATOMIC_ACQUIRE) &&
                       !__atomic_load_n(&w->done, __ATOMIC_ACQUIRE) && clock_mono_ns() < deadline)
                        sched_yield();
                if (__atomic_load_n(&w->ran, __ATOMIC_ACQUIRE) && w->wake_mono - start > lag)
                        lag = w->wake_mono - start;
        }
        r->workers_lag_ns = (uint64_t)lag;
        __atomic_store_n(&r->started, 1, __ATOMIC_RELEASE);
        notify(r);
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
        return 0;
}

int64_t runner_started_mono(const runner_t *r)
{
        return r->started_mono;
}

bool runner_started_realtime(const runner_t *r)
{
        return r->realtime;
}

uint64_t runner_workers_lag_ns(const runner_t *r)
{
        return r->workers_lag_ns;
}

int64_t runner_last_done_mono(const runner_t *r)
{
        int64_t last = r->started_mono;
        for (size_t i = 0; i < r->n_workers; i++)
                if (r->workers[i].ran && r->workers[i].done_mono > last)
                        last = r->workers[i].done_mono;
        return last;
}

static void add_dir(runner_dir_t *d, const worker_dir_t *w, hist_t *tmp)
{
        d->bytes += __atomic_load_n(&w->bytes, __ATOMIC_RELAXED);
        d->ios += __atomic_load_n(&w->ios, __ATOMIC_RELAXED);
        d->errors += __atomic_load_n(&w->errors, __ATOMIC_RELAXED);
        d->short_ios += __atomic_load_n(&w->short_ios, __ATOMIC_RELAXED);
        d->issued += __atomic_load_n(&w->issued, __ATOMIC_RELAXED);
        d->dropped += __atomic_load_n(&w->dropped, __ATOMIC_RELAXED);
        hist_snapshot(tmp, &w->clat);
        hist_merge(d->clat, tmp);
        hist_snapshot(tmp, &w->slat);
        hist_merge(d->slat, tmp);
        hist_snapshot(tmp, &w->lat);
        hist_merge(d->lat, tmp);
}

void runner_totals(runner_t *r, runner_dir_t dirs[2])
{
        hist_t *tmp;
        if (hist_new(&tmp) < 0)
                return;
        for (size_t i = 0; i < r->n_workers; i++)
                for (int d = 0; d < 2; d++)
                        add_dir(&dirs[d], &r->workers[i].dir[d], tmp);
        hist_free(&tmp);
}

size_t runner_njobs(const runner_t *r)
{
        return r->n_jobs;
}

void runner_job_result(runner_t *r, size_t job, runner_job_result_t *res, runner_dir_t dirs[2])
{
        int64_t start = r->gate.start_mono, first = INT64_MAX, last = 0, longest = 0;
        hist_t *tmp = NULL;

        memset(res, 0, sizeof(*res));
        res->name = r->jobs[job].name;
        res->numjobs = r->jobs[job].numjobs;
        hist_new(&tmp);
        for (size_t i = 0; i < r->n_workers; i++) {
                worker_t *w = &r->workers[i];
                if (w->job_index != job)
                        continue;
                if (tmp)
                        for (int d = 0; d < 2; d++)
                                add_dir(&dirs[d], &w->dir[d], tmp);
                if (w->error && !res->error) {
                        res->error = w->error;
                        res->errmsg = w->errmsg;
                }
                if (!w->ran)
                        continue;
                if (w->done_mono - start < first)
                        first = w->done_mono - start;
                if (w->done_mono - start > last)
                        last = w->done_mono - start;
                if (w->done_mono - w->wake_mono > longest)
                        longest = w->done_mono - w->wake_mono;
        }
        hist_free(&tmp);
        res->first_done_ns = first == INT64_MAX || first < 0 ? 0 : (uint64_t)first;
        res->last_done_ns = last < 0 ? 0 : (uint64_t)last;
        if (res->first_done_ns > res->last_done_ns)
                res->first_done_ns = res->last_done_ns;
        res->runtime_ns = (uint64_t)longest;
}
