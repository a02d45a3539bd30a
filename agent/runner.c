/* An agent's part of a run: one worker thread per job clone, released together at the start
 * instant. */
#include "runner.h"
#include "runner-internal.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "engine.h"
#include "execcmd.h"
#include "fiolog.h"
#include "jobgroups.h"
#include "layout.h"
#include "steadystate.h"
#include "log.h"
#include "policy.h"
#include "util.h"
#include "worker.h"

int runner_dir_init(runner_dir_t *d)
{
        int r;
        memset(d, 0, sizeof(*d));
        if ((r = hist_new(&d->clat)) < 0 || (r = hist_new(&d->slat)) < 0 ||
            (r = hist_new(&d->lat)) < 0 || (r = hist_new(&d->sync_lat)) < 0) {
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
        hist_free(&d->sync_lat);
}

static bool job_is_metadata(const job_spec_t *j)
{
        return j->ioengine && streq(j->ioengine, ENGINE_METADATA);
}

/* A metadata worker: its stats, directory (which must exist, opened through the path policy)
 * and name "JOB.AGENT.CLONE". */
static int metadata_worker(runner_t *r, worker_t *wk, const char *agent, char *err, size_t errlen)
{
        const job_spec_t *j = wk->job;
        char e[1024];
        int rc;

        if (j->readonly) {
                snprintf(err, errlen, "job %s: readonly: ioengine=metadata creates files", j->name);
                return -EROFS;
        }
        if (strempty(j->directory))
                wk->md_dir = strdup(r->work_dir ? r->work_dir : "");
        else if (j->directory[0] == '/')
                wk->md_dir = strdup(j->directory);
        else if (asprintf(&wk->md_dir, "%s/%s", r->work_dir ? r->work_dir : "", j->directory) < 0)
                wk->md_dir = NULL;
        if (!wk->md_dir)
                return -ENOMEM;
        rc = policy_open(r->cfg, wk->md_dir, PATH_JOB_DIR, O_PATH | O_DIRECTORY, 0, NULL,
                         &wk->md_dirfd, e, sizeof(e));
        if (rc == -ENOENT) {
                snprintf(err, errlen, "job %s: directory=%s does not exist", j->name,
                         j->directory ? j->directory : wk->md_dir);
                return rc;
        }
        if (rc < 0) {
                snprintf(err, errlen, "job %s: directory=%s: %s", j->name,
                         j->directory ? j->directory : wk->md_dir, e);
                return rc;
        }
        if (strchr(j->name, '/') || (agent && strchr(agent, '/'))) {
                snprintf(err, errlen, "job %s: ioengine=metadata needs a name without '/'",
                         j->name);
                return -EINVAL;
        }
        if (asprintf(&wk->md_name, "%s.%s.%u", j->name, agent ? agent : "agent", wk->clone) < 0) {
                wk->md_name = NULL;
                return -ENOMEM;
        }
        return metadata_stats_new(&wk->md);
}

void runner_notify(void *userdata)
{
        runner_t *r = userdata;
        uint64_t one = 1;
        if (write(r->efd, &one, sizeof(one)) < 0) {
                /* The counter cannot overflow in practice; nothing else to do. */
        }
}

/* fio's randseed default. */
#define RUNNER_DEFAULT_RANDSEED 0x89

/* Each clone's random streams. Repeatable (randrepeat, or a randseed given) from randseed, the
 * job's name, the agent's rank and the clone, so that runs repeat and clones and agents differ;
 * otherwise from the system's generator, as fio's randrepeat=0. */
static uint64_t seed_of(const job_spec_t *j, uint32_t rank, unsigned clone)
{
        uint64_t h = 1469598103934665603ULL, x;
        bool repeat = j->randrepeat || (j->randseed && j->randseed != RUNNER_DEFAULT_RANDSEED);

        if (!repeat && getrandom(&x, sizeof(x), 0) == sizeof(x))
                return x;
        for (const char *c = j->name; c && *c; c++)
                h = (h ^ (unsigned char)*c) * 1099511628211ULL;
        x = (j->randseed ? j->randseed : RUNNER_DEFAULT_RANDSEED) * 0x9e3779b97f4a7c15ULL;
        return x ^ h ^ ((uint64_t)rank << 32) ^ clone;
}

/* A file of a worker, for finding the workers that share it. */
typedef struct file_ref {
        const char *path;
        unsigned group;
        size_t worker, file;
} file_ref_t;

static int file_ref_cmp(const void *a, const void *b)
{
        const file_ref_t *x = a, *y = b;
        int c = strcmp(x->path, y->path);
        if (c)
                return c;
        if (x->group != y->group)
                return x->group < y->group ? -1 : 1;
        return x->worker < y->worker ? -1 : x->worker > y->worker;
}

/* Shared files are laid out once per group (a later group lays out after the one before ended,
 * as fio does), by the first worker that names them, to the largest length any of them needs,
 * and filled if any of them reads. */
static int share_files(runner_t *r)
{
        size_t n = 0, k = 0;
        file_ref_t *refs;

        for (size_t i = 0; i < r->n_workers; i++)
                n += r->workers[i].nfiles;
        refs = calloc(n ? n : 1, sizeof(*refs));
        if (!refs)
                return -ENOMEM;
        for (size_t i = 0; i < r->n_workers; i++)
                for (size_t f = 0; f < r->workers[i].nfiles; f++)
                        if (r->workers[i].files[f].path)
                                refs[k++] = (file_ref_t){r->workers[i].files[f].path,
                                                         r->workers[i].group, i, f};
        qsort(refs, k, sizeof(*refs), file_ref_cmp);
        for (size_t a = 0; a < k;) {
                size_t b = a + 1;
                layout_file_t *owner = &r->workers[refs[a].worker].files[refs[a].file];
                owner->owner = true;
                for (; b < k && streq(refs[b].path, refs[a].path) && refs[b].group == refs[a].group;
                     b++) {
                        layout_file_t *f = &r->workers[refs[b].worker].files[refs[b].file];
                        f->owner = false;
                        if (f->length > owner->length)
                                owner->length = f->length;
                        owner->fill |= f->fill;
                        owner->writes |= f->writes;
                }
                a = b;
        }
        free(refs);
        return 0;
}

/* A worker's I/O buffers: one per I/O in flight, each of the larger bs rounded to a page. */
static uint64_t job_buffer_bytes(const job_spec_t *j)
{
        const engine_ops_t *e = engine_find(j->ioengine);
        uint64_t bs = job_spec_bs_max(j, DDIR_READ), bsw = job_spec_bs_max(j, DDIR_WRITE);
        uint64_t m = bs > bsw ? bs : bsw;
        m = (m + 4095) / 4096 * 4096;
        return m * (j->iodepth && e &&
                            (!(e->flags & ENGINE_SYNC) || j->io_submit_mode == SUBMIT_OFFLOAD)
                        ? j->iodepth
                        : 1);
}

/* The jobs' order (common/jobgroups.c) and the gate's per-group and per-job counts. */
static int plan_groups(runner_t *r, char *err, size_t errlen)
{
        gate_t *g = &r->gate;
        size_t nj = r->n_jobs ? r->n_jobs : 1;
        int rc;

        r->jg = calloc(nj, sizeof(*r->jg));
        if (!r->jg)
                return -ENOMEM;
        if ((rc = jobgroups_plan(r->jobs, r->n_jobs, r->jg, &r->n_groups, err, errlen)) < 0)
                return rc;
        if (!r->n_groups)
                r->n_groups = 1;
        if ((rc = gate_init(g, r->n_groups, r->n_jobs)) < 0)
                return rc;
        for (size_t i = 0; i < r->n_jobs; i++) {
                g->exitall |= r->jobs[i].exitall;
                g->job_group[i] = r->jg[i].group;
                g->job_groupid[i] = r->jg[i].groupid;
        }
        r->ss = calloc(nj, sizeof(*r->ss));
        if (!r->ss)
                return -ENOMEM;
        for (size_t i = 0; i < r->n_jobs; i++) {
                const job_spec_t *j = &r->jobs[i];
                ss_spec_t spec;
                if (strempty(j->steadystate) || !j->ss_dur_ns)
                        continue;
                if ((rc = ss_parse(j->steadystate, &spec, err, errlen)) < 0)
                        return rc;
                if (!(r->ss[i] = calloc(1, sizeof(*r->ss[i]))))
                        return -ENOMEM;
                rc = steadystate_init(r->ss[i], &spec,
                                      (uint32_t)((j->ss_dur_ns + NSEC_PER_SEC - 1) / NSEC_PER_SEC));
                if (rc < 0)
                        return rc == -ENOMEM ? rc
                                             : errorf(err, errlen, rc,
                                                      "job %s: ss_dur: 1s..1h", j->name);
        }
        return 0;
}

/* fio's log files go to log_dir (made now) when some job writes one. */
static int open_log_dir(runner_t *r, const char *log_dir, char *err, size_t errlen)
{
        const job_spec_t *j = NULL;
        for (size_t i = 0; i < r->n_jobs && !j; i++)
                if (fiolog_kinds(&r->jobs[i]))
                        j = &r->jobs[i];
        if (!j)
                return 0;
        if (!log_dir)
                return errorf(err, errlen, -EINVAL,
                              "job %s: its log files (write_*_log) have no run directory here",
                              j->name);
        if (mkdir(log_dir, 0700) < 0 && errno != EEXIST)
                return errorf(err, errlen, -errno, "job %s: log files: cannot make %s: %s",
                              j->name, log_dir, strerror(errno));
        r->log_dirfd = open(log_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (r->log_dirfd < 0)
                return errorf(err, errlen, -errno, "job %s: log files: cannot open %s: %s",
                              j->name, log_dir, strerror(errno));
        return 0;
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
        r->cfg = p->cfg;
        r->log_dirfd = -1;
        r->log_bytes_max = p->log_bytes_max;
        p->jobs = NULL;
        if (!p->cfg) {
                snprintf(err, errlen, "runner: no path policy (agent config) to open files with");
                rc = -EINVAL;
                goto fail;
        }
        if (p->work_dir && !(r->work_dir = strdup(p->work_dir))) {
                rc = -ENOMEM;
                goto fail;
        }
        r->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        r->group_barrier = p->group_barrier;
        if (r->efd < 0) {
                rc = -errno;
                goto fail;
        }
        if ((rc = plan_groups(r, err, errlen)) < 0)
                goto fail;
        if ((rc = open_log_dir(r, p->log_dir, err, errlen)) < 0)
                goto fail;
        {
                /* Limits a coordinator cannot talk an agent past: threads, and buffer memory
                 * (each worker holds one block of bs bytes). */
                uint64_t buffers = 0,
                         mem = (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE);
                for (size_t i = 0; i < r->n_jobs; i++) {
                        n += r->jobs[i].numjobs;
                        buffers += (uint64_t)r->jobs[i].numjobs * job_buffer_bytes(&r->jobs[i]);
                }
                if (n > RUNNER_MAX_WORKERS) {
                        snprintf(err, errlen,
                                 "numjobs: %zu workers in all exceed this agent's limit of %d", n,
                                 RUNNER_MAX_WORKERS);
                        rc = -E2BIG;
                        goto fail;
                }
                if (buffers > mem / 4) {
                        snprintf(
                            err, errlen,
                            "bs x iodepth x numjobs: %llu MiB of I/O buffers exceed a quarter of "
                            "this agent's memory (%llu MiB)",
                            (unsigned long long)(buffers >> 20), (unsigned long long)(mem >> 22));
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
                bool md = job_is_metadata(j);
                if (!e && !md) {
                        snprintf(err, errlen, "job %s: ioengine=%s is not available on this agent",
                                 j->name, j->ioengine);
                        rc = -EOPNOTSUPP;
                        goto fail;
                }
                if ((rc = execcmd_check(p->cfg, j, err, errlen)) < 0)
                        goto fail;
                if (!md && j->readonly && worker_rw_writes(j->rw)) {
                        snprintf(err, errlen,
                                 "job %s: readonly: rw=%s writes, and readonly "
                                 "forbids it",
                                 j->name, rw_mode_to_string(j->rw));
                        rc = -EROFS;
                        goto fail;
                }
                for (unsigned c = 0; c < j->numjobs; c++, w++) {
                        worker_t *wk = &r->workers[w];
                        wk->job = j;
                        wk->engine = e;
                        wk->job_index = i;
                        wk->clone = c;
                        wk->seed = seed_of(j, p->rank, c);
                        wk->thread_number = (unsigned)w + 1;
                        wk->gate = &r->gate;
                        wk->group = r->jg[i].group;
                        wk->groupid = r->jg[i].groupid;
                        wk->waits_for = r->jg[i].waits_for;
                        wk->stop = &r->gate.stop[i];
                        gate_count(&r->gate, wk);
                        wk->notify = runner_notify;
                        wk->userdata = r;
                        wk->cfg = p->cfg;
                        wk->work_dir = r->work_dir;
                        wk->md_dirfd = -1;
                        wk->log_dirfd = r->log_dirfd;
                        wk->log_bytes = &r->log_bytes;
                        wk->log_bytes_max = r->log_bytes_max;
                        for (int d = 0; d < 2; d++) {
                                hist_init(&wk->dir[d].clat);
                                hist_init(&wk->dir[d].slat);
                                hist_init(&wk->dir[d].lat);
                        }
                        hist_init(&wk->sync_lat);
                        r->n_workers = w + 1; /* so that a failure frees the files planned */
                        if (md) {
                                /* No layout: the workload makes and removes its own files. */
                                if ((rc = metadata_worker(r, wk, p->agent_name, err, errlen)) < 0)
                                        goto fail;
                                continue;
                        }
                        rc = layout_plan(p->cfg, j, p->agent_name, p->work_dir, c,
                                         !(e->flags & ENGINE_NO_FILES), &wk->files, &wk->nfiles,
                                         err, errlen);
                        if (rc < 0)
                                goto fail;
                        for (size_t f = 0; f < wk->nfiles; f++) {
                                wk->files[f].fill = worker_rw_reads(j->rw) && !j->verify_only;
                                wk->files[f].writes = worker_rw_writes(j->rw) && !j->verify_only;
                        }
                }
        }
        if ((rc = share_files(r)) < 0)
                goto fail;
        r->n_workers = n;
        /* What the layout before the run writes or finds: group 0's files, each once, at the
         * length its owner gives it (a later serial group lays out when the group before it
         * has ended, while the run goes on). */
        for (size_t i = 0; i < n; i++)
                if (r->workers[i].group == 0)
                        r->layout_total += worker_layout_bytes(&r->workers[i]);
        for (size_t i = 0; i < n; i++) {
                if ((rc = -pthread_create(&r->workers[i].thread, NULL, worker_main,
                                          &r->workers[i])) < 0) {
                        /* The ones started wait for the rest at layout: call it off. */
                        snprintf(err, errlen, "cannot start %zu worker threads (started %zu): %s",
                                 n, i, strerror(-rc));
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

void runner_layout_progress(const runner_t *r, uint64_t *done, uint64_t *total)
{
        uint64_t d = 0;
        for (size_t i = 0; i < r->n_workers; i++)
                if (r->workers[i].group == 0)
                        d += __atomic_load_n(&r->workers[i].laid_out, __ATOMIC_RELAXED);
        *total = r->layout_total;
        *done = d < r->layout_total ? d : r->layout_total;
}

void runner_stop(runner_t *r)
{
        __atomic_store_n(&r->stop, 1, __ATOMIC_RELAXED);
        for (size_t i = 0; r->gate.stop && i < r->gate.n_jobs; i++)
                __atomic_store_n(&r->gate.stop[i], 1, __ATOMIC_RELAXED);
        /* the starter may wait for a group's instant */
        pthread_mutex_lock(&r->gate.lock);
        pthread_cond_broadcast(&r->gate.cond);
        pthread_mutex_unlock(&r->gate.lock);
}

void runner_open_gate(runner_t *r, bool abort_run, int64_t start_mono)
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

/* A run that never started leaves nothing it laid out: every worker's creations, files first,
 * then directories deepest first (one worker's file may sit in another's directory). */
static void take_back_layout(runner_t *r)
{
        policy_undo_t all = {0};
        char err[1024];
        size_t files = 0, dirs = 0;

        for (size_t i = 0; r->workers && i < r->n_workers; i++)
                if (policy_undo_take(&all, &r->workers[i].made) < 0) {
                        /* No memory to merge: take each worker's back on its own. */
                        if (policy_undo_run(r->cfg, &r->workers[i].made, err, sizeof(err)) < 0)
                                log_warning("removing what a failed prepare laid out: %s", err);
                }
        for (size_t i = 0; i < all.n; i++) {
                files += !all.v[i].dir;
                dirs += all.v[i].dir;
        }
        if (!all.n)
                return;
        if (policy_undo_run(r->cfg, &all, err, sizeof(err)) < 0)
                log_warning("removing what a failed prepare laid out: %s", err);
        else
                log_info("removed the %zu files and %zu directories laid out for a run that did "
                         "not start",
                         files, dirs);
}

void runner_destroy(runner_t **rp)
{
        runner_t *r = *rp;
        if (!r)
                return;
        runner_stop(r);
        if (r->starter_running)
                pthread_join(r->starter, NULL);
        if (r->ss_running)
                pthread_join(r->ss_thread, NULL);
        runner_open_gate(r, true, 0);
        for (size_t i = 0; i < r->n_threads; i++)
                pthread_join(r->workers[i].thread, NULL);
        if (!__atomic_load_n(&r->started, __ATOMIC_ACQUIRE))
                take_back_layout(r);
        for (size_t i = 0; r->workers && i < r->n_workers; i++) {
                worker_t *w = &r->workers[i];
                layout_files_free(&w->files, w->nfiles);
                metadata_stats_free(&w->md);
                free(w->md_name);
                free(w->md_dir);
                if (w->md_dirfd >= 0)
                        close(w->md_dirfd);
                policy_undo_clear(&w->made);
        }
        free(r->work_dir);
        if (r->log_dirfd >= 0)
                close(r->log_dirfd);
        for (size_t i = 0; r->ss && i < r->n_jobs; i++)
                if (r->ss[i]) {
                        steadystate_done(r->ss[i]);
                        free(r->ss[i]);
                }
        free(r->ss);
        disks_free(&r->disks);
        gate_free(&r->gate);
        free(r->jg);
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

static void disks_finish(runner_t *r);

runner_state_t runner_update(runner_t *r)
{
        uint64_t v;
        size_t prepared = 0, done = 0;

        while (read(r->efd, &v, sizeof(v)) == sizeof(v))
                ;
        for (size_t i = 0; i < r->n_workers; i++) {
                worker_t *w = &r->workers[i];
                int p = __atomic_load_n(&w->prepared, __ATOMIC_ACQUIRE);
                if (p < 0 && r->state == RUNNER_PREPARING && w->group == 0) {
                        snprintf(r->error, sizeof(r->error), "job %s: %s", w->job->name, w->errmsg);
                        r->state = RUNNER_FAILED;
                }
                prepared += p > 0 || w->group != 0;
                done += __atomic_load_n(&w->done, __ATOMIC_ACQUIRE);
        }
        if (r->state == RUNNER_PREPARING && prepared == r->n_workers)
                r->state = RUNNER_PREPARED;
        if (r->state == RUNNER_STARTING && __atomic_load_n(&r->started, __ATOMIC_ACQUIRE))
                r->state = RUNNER_RUNNING;
        if ((r->state == RUNNER_RUNNING || r->state == RUNNER_STARTING) && done == r->n_workers &&
            __atomic_load_n(&r->started, __ATOMIC_ACQUIRE)) {
                r->state = RUNNER_DONE;
                disks_finish(r);
        }
        return r->state;
}

void runner_disks_begin(runner_t *r)
{
        bool any = false;
        int rc;

        for (size_t j = 0; j < r->n_jobs; j++)
                any |= r->jobs[j].disk_util;
        if (!any || disks_new("/sys", "/proc/diskstats", &r->disks) < 0)
                return;
        if ((rc = disks_begin(r->disks, clock_mono_ns())) < 0) {
                log_debug("disk_util: cannot read /proc/diskstats: %s", strerror(-rc));
                disks_free(&r->disks);
        }
}

/* The end of the run: the devices the workers' files are on, and their counters since. */
static void disks_finish(runner_t *r)
{
        int rc;

        if (!r->disks)
                return;
        for (size_t i = 0; i < r->n_workers; i++)
                for (unsigned k = 0; k < r->workers[i].ndevs; k++)
                        disks_add(r->disks, r->workers[i].devs[k]);
        if ((rc = disks_end(r->disks, clock_mono_ns())) < 0) {
                log_debug("disk_util: cannot read /proc/diskstats: %s", strerror(-rc));
                disks_free(&r->disks);
        }
}

const disks_t *runner_disks(const runner_t *r)
{
        return r->disks;
}

const char *runner_error(const runner_t *r)
{
        return r->error;
}

size_t runner_workers(const runner_t *r)
{
        return r->n_workers;
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

static void add_hist(hist_t *dst, const hist_t *src, hist_t *tmp)
{
        hist_snapshot(tmp, src);
        hist_merge(dst, tmp);
}

static void add_worker(runner_dir_t d[2], const worker_t *w, hist_t *tmp)
{
        for (int i = 0; i < 2; i++) {
                const worker_dir_t *wd = &w->dir[i];
                d[i].bytes += __atomic_load_n(&wd->bytes, __ATOMIC_RELAXED);
                d[i].ios += __atomic_load_n(&wd->ios, __ATOMIC_RELAXED);
                d[i].errors += __atomic_load_n(&wd->errors, __ATOMIC_RELAXED);
                d[i].short_ios += __atomic_load_n(&wd->short_ios, __ATOMIC_RELAXED);
                d[i].issued += __atomic_load_n(&wd->issued, __ATOMIC_RELAXED);
                d[i].dropped += __atomic_load_n(&wd->dropped, __ATOMIC_RELAXED);
                d[i].verify_errors += __atomic_load_n(&wd->verify_errors, __ATOMIC_RELAXED);
                add_hist(d[i].clat, &wd->clat, tmp);
                add_hist(d[i].slat, &wd->slat, tmp);
                add_hist(d[i].lat, &wd->lat, tmp);
        }
        d[DDIR_WRITE].syncs += __atomic_load_n(&w->syncs, __ATOMIC_RELAXED);
        if (d[DDIR_WRITE].sync_lat)
                add_hist(d[DDIR_WRITE].sync_lat, &w->sync_lat, tmp);
}

void runner_totals(runner_t *r, runner_dir_t dirs[2])
{
        hist_t *tmp;
        if (hist_new(&tmp) < 0)
                return;
        for (size_t i = 0; i < r->n_workers; i++)
                add_worker(dirs, &r->workers[i], tmp);
        hist_free(&tmp);
}

size_t runner_njobs(const runner_t *r)
{
        return r->n_jobs;
}

static void job_result(runner_t *r, size_t job, int clone, runner_job_result_t *res,
                       runner_dir_t dirs[2]);

void runner_job_result(runner_t *r, size_t job, runner_job_result_t *res, runner_dir_t dirs[2])
{
        job_result(r, job, -1, res, dirs);
}

void runner_clone_result(runner_t *r, size_t job, unsigned clone, runner_job_result_t *res,
                         runner_dir_t dirs[2])
{
        job_result(r, job, (int)clone, res, dirs);
}

uint32_t runner_job_numjobs(const runner_t *r, size_t job)
{
        return r->jobs[job].numjobs;
}

bool runner_job_grouped(const runner_t *r, size_t job)
{
        return r->jobs[job].group_reporting;
}

static void job_result(runner_t *r, size_t job, int clone, runner_job_result_t *res,
                       runner_dir_t dirs[2])
{
        int64_t start = r->gate.start_mono, first = INT64_MAX, last = 0, longest = 0;
        hist_t *tmp = NULL;

        int64_t began = INT64_MAX;

        memset(res, 0, sizeof(*res));
        res->name = r->jobs[job].name;
        res->numjobs = r->jobs[job].numjobs;
        res->groupid = r->jg ? r->jg[job].groupid : 0;
        hist_new(&tmp);
        for (size_t i = 0; i < r->n_workers; i++) {
                worker_t *w = &r->workers[i];
                if (w->job_index != job || (clone >= 0 && w->clone != (unsigned)clone))
                        continue;
                if (tmp)
                        add_worker(dirs, w, tmp);
                if (w->error && !res->error) {
                        res->error = w->error;
                        res->error_offset = w->error_offset;
                        res->errmsg = w->errmsg;
                }
                res->end_syncs += w->end_syncs;
                if (w->first_error && !res->first_error)
                        res->first_error = w->first_error;
                res->total_err += w->nonfatal_errors;
                if (!w->ran)
                        continue;
                fio_job_stats_add(&res->fio, &w->fio);
                if (w->job_start_mono < began)
                        began = w->job_start_mono;
                if (w->done_mono - start < first)
                        first = w->done_mono - start;
                if (w->done_mono - start > last)
                        last = w->done_mono - start;
                /* fio's runtime leaves out startdelay and ramp_time. */
                if (w->measure_mono && w->done_mono - w->measure_mono > longest)
                        longest = w->done_mono - w->measure_mono;
        }
        hist_free(&tmp);
        res->first_done_ns = first == INT64_MAX || first < 0 ? 0 : (uint64_t)first;
        res->last_done_ns = last < 0 ? 0 : (uint64_t)last;
        if (res->first_done_ns > res->last_done_ns)
                res->first_done_ns = res->last_done_ns;
        res->runtime_ns = (uint64_t)longest;
        res->start_ns = began == INT64_MAX || began < start ? 0 : (uint64_t)(began - start);
}

uint64_t runner_meta_ops_interval(runner_t *r)
{
        uint64_t total = 0, d;
        for (size_t i = 0; i < r->n_workers; i++)
                if (r->workers[i].md)
                        total += metadata_total_ops(r->workers[i].md);
        d = total - r->meta_reported;
        r->meta_reported = total;
        return d;
}

bool runner_job_is_metadata(const runner_t *r, size_t job)
{
        return job < r->n_jobs && job_is_metadata(&r->jobs[job]);
}

int runner_job_phase(runner_t *r, size_t job, int slot, metadata_phase_stats_t *out)
{
        metadata_phase_stats_t *one;
        bool ran = false;

        if (!runner_job_is_metadata(r, job) || slot < 0 || slot >= MD_SLOTS)
                return -EINVAL;
        one = malloc(sizeof(*one));
        if (!one)
                return -ENOMEM;
        memset(out, 0, sizeof(*out));
        hist_init(&out->lat);
        for (size_t i = 0; i < r->n_workers; i++) {
                const worker_t *w = &r->workers[i];
                if (w->job_index != job || !w->md)
                        continue;
                metadata_phase_snapshot(one, w->md, slot);
                if (!one->ops && !one->errors)
                        continue;
                ran = true;
                out->ops += one->ops;
                out->errors += one->errors;
                out->bytes += one->bytes;
                if (one->elapsed_ns > out->elapsed_ns)
                        out->elapsed_ns = one->elapsed_ns;
                hist_merge(&out->lat, &one->lat);
        }
        free(one);
        return ran;
}
