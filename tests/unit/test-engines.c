/* Tests for the I/O engines and the worker loop: exact bytes per engine, iodepth and batching, the
 * random map, rwmix, rate, files and regions, direct I/O, syncs, readonly and failing I/Os. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "agent-config.h"
#include "clock.h"
#include "engine.h"
#include "layout.h"
#include "options.h"
#include "runner.h"
#include "util.h"
#include "worker.h"

/* Not /tmp: it may be tmpfs, which refuses O_DIRECT. */
static char dir[256];
static agent_config_t cfg; /* the path policy: dir */

static int setup(void **state)
{
        snprintf(dir, sizeof(dir), "/var/tmp/test-engines.XXXXXX");
        assert_non_null(mkdtemp(dir));
        assert_int_equal(agent_config_defaults(&cfg), 0);
        assert_int_equal(strv_push(&cfg.allow_paths, dir), 0);
        return 0;
}

static int teardown(void **state)
{
        char cmd[300];
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
        assert_int_equal(system(cmd), 0);
        config_free(&agent_config_schema, &cfg);
        return 0;
}

/* fio's defaults, set explicitly so the tests do not depend on the option table's. */
static job_spec_t *job_new(const char *name, const char *engine)
{
        job_spec_t *j = calloc(1, sizeof(*j));
        assert_non_null(j);
        assert_int_equal(job_spec_init(j, name), 0);
        j->rw = RW_READ;
        j->rwmixread = 50;
        j->bs = j->bs_write = 4096;
        j->size = 0;
        j->nrfiles = 1;
        j->numjobs = 1;
        j->iodepth = 1;
        j->iodepth_batch_submit = 1;
        j->iodepth_batch_complete_min = 1;
        j->invalidate = true;
        j->randrepeat = true;
        j->randseed = 0x89;
        assert_int_equal(strdup_to(&j->ioengine, engine), 0);
        assert_int_equal(strdup_to(&j->directory, dir), 0);
        return j;
}

typedef struct outcome {
        runner_state_t state;
        runner_job_result_t res;
        runner_dir_t d[2];
        char errmsg[512];
        int error;
        uint64_t error_offset;
        int64_t elapsed_ns; /* from the start instant to the runner's end, as the test saw it */
        int64_t lag_ns;     /* how late the last worker woke after the start instant */
} outcome_t;

static void outcome_done(outcome_t *o)
{
        runner_dir_done(&o->d[0]);
        runner_dir_done(&o->d[1]);
}

static runner_state_t wait_state(runner_t *r, runner_state_t want)
{
        runner_state_t st;
        while ((st = runner_update(r)) != want && st != RUNNER_FAILED)
                usleep(500);
        return st;
}

/* Runs one job (taken over) on a fresh runner; before_start runs once every worker is ready.
 * Returns runner_new's code. */
static int run_one(job_spec_t *j, outcome_t *o, void (*before_start)(void *), void *arg)
{
        runner_params_t p = {
            .cfg = &cfg, .agent_name = "a0", .rank = 0, .work_dir = dir, .jobs = j, .n_jobs = 1};
        runner_t *r = NULL;
        char err[512];
        int64_t start;
        int rc;

        memset(o, 0, sizeof(*o));
        assert_int_equal(runner_dir_init(&o->d[0]), 0);
        assert_int_equal(runner_dir_init(&o->d[1]), 0);
        rc = runner_new(&p, &r, err, sizeof(err));
        if (rc < 0) {
                snprintf(o->errmsg, sizeof(o->errmsg), "%s", err);
                o->state = RUNNER_FAILED;
                return rc;
        }
        o->state = wait_state(r, RUNNER_PREPARED);
        if (o->state == RUNNER_FAILED) {
                snprintf(o->errmsg, sizeof(o->errmsg), "%s", runner_error(r));
                runner_destroy(&r);
                return 0;
        }
        if (before_start)
                before_start(arg);
        start = clock_mono_ns() + 2 * (int64_t)NSEC_PER_MSEC;
        assert_int_equal(runner_start_at(r, start), 0);
        o->state = wait_state(r, RUNNER_DONE);
        o->elapsed_ns = clock_mono_ns() - start;
        o->lag_ns = (int64_t)runner_workers_lag_ns(r);
        runner_job_result(r, 0, &o->res, o->d);
        o->error = o->res.error;
        o->error_offset = o->res.error_offset;
        if (o->res.errmsg)
                snprintf(o->errmsg, sizeof(o->errmsg), "%s", o->res.errmsg);
        o->res.errmsg = o->errmsg;
        o->res.name = NULL;
        runner_destroy(&r);
        return 0;
}

static bool engine_is_sync(const char *engine, unsigned depth)
{
        return streq(engine, "psync") || (streq(engine, "null") && depth <= 1);
}

/* Every I/O accounted for: exact bytes and counts, a latency per I/O, nothing dropped. */
static void assert_exact(const outcome_t *o, int ddir, uint64_t bytes, uint64_t bs, bool sync)
{
        const runner_dir_t *d = &o->d[ddir], *other = &o->d[!ddir];
        if (o->error)
                fail_msg("job failed: %s", o->errmsg);
        assert_int_equal(o->state, RUNNER_DONE);
        assert_int_equal(d->bytes, bytes);
        assert_int_equal(d->ios, bytes / bs);
        assert_int_equal(d->issued, bytes / bs);
        assert_int_equal(d->dropped, 0);
        assert_int_equal(d->errors, 0);
        assert_int_equal(d->short_ios, 0);
        assert_int_equal(d->clat->n, bytes / bs);
        assert_int_equal(d->slat->n, sync ? 0 : bytes / bs);
        assert_int_equal(d->lat->n, sync ? 0 : bytes / bs);
        /* Per I/O, lat = slat + clat exactly (the same three clock readings). */
        if (!sync)
                assert_int_equal(d->lat->sum, d->slat->sum + d->clat->sum);
        assert_int_equal(other->bytes, 0);
        assert_int_equal(other->issued, 0);
}

/* --- every engine, exact bytes ------------------------------------------------------------- */

static void test_exact_bytes_every_engine(void **state)
{
        static const char *const engines[] = {"psync", "null", "libaio", "io_uring"};
        static const rw_mode_t modes[] = {RW_WRITE, RW_READ, RW_RANDWRITE, RW_RANDREAD};
        static const unsigned shapes[][3] = {
            {1, 1, 1}, {32, 1, 1}, {32, 8, 4}, {32, 32, 32}, {7, 3, 2}};

        for (size_t e = 0; e < ELEMENTSOF(engines); e++)
                for (size_t s = 0; s < ELEMENTSOF(shapes); s++) {
                        if (streq(engines[e], "psync") && s > 0)
                                continue;
                        for (size_t m = 0; m < ELEMENTSOF(modes); m++) {
                                job_spec_t *j = job_new("x", engines[e]);
                                bool wr = modes[m] == RW_WRITE || modes[m] == RW_RANDWRITE;
                                outcome_t o;
                                j->rw = modes[m];
                                j->size = 1 << 20;
                                j->iodepth = shapes[s][0];
                                j->iodepth_batch_submit = shapes[s][1];
                                j->iodepth_batch_complete_min = shapes[s][2];
                                /* One file per engine: the write runs lay out what reads use. */
                                assert_int_equal(strdup_to(&j->filename, engines[e]), 0);
                                assert_int_equal(run_one(j, &o, NULL, NULL), 0);
                                assert_exact(&o, wr, 1 << 20, 4096,
                                             engine_is_sync(engines[e], shapes[s][0]));
                                outcome_done(&o);
                        }
                }
}

/* The engines fio users know beside psync: exact bytes and counts, a latency per I/O. */
static void test_exact_bytes_fio_engines(void **state)
{
        static const struct {
                const char *name;
                unsigned depth, batch;
                bool sync;
        } engines[] = {
            {"sync", 1, 1, true},      {"pvsync", 1, 1, true}, {"pvsync2", 1, 1, true},
            {"mmap", 1, 1, true},      {"vsync", 1, 1, true},  {"vsync", 8, 8, false},
            {"posixaio", 8, 1, false}, {"posixaio", 1, 1, false},
        };
        static const rw_mode_t modes[] = {RW_WRITE, RW_READ, RW_RANDWRITE, RW_RANDREAD};

        for (size_t e = 0; e < ELEMENTSOF(engines); e++)
                for (size_t m = 0; m < ELEMENTSOF(modes); m++) {
                        job_spec_t *j = job_new("f", engines[e].name);
                        bool wr = modes[m] == RW_WRITE || modes[m] == RW_RANDWRITE;
                        outcome_t o;
                        j->rw = modes[m];
                        j->size = 1 << 20;
                        j->iodepth = engines[e].depth;
                        j->iodepth_batch_submit = engines[e].batch;
                        assert_int_equal(strdup_to(&j->filename, engines[e].name), 0);
                        assert_int_equal(run_one(j, &o, NULL, NULL), 0);
                        assert_exact(&o, wr, 1 << 20, 4096, engines[e].sync);
                        outcome_done(&o);
                }
}

static void test_numjobs_and_block_sizes(void **state)
{
        static const char *const engines[] = {"psync", "libaio", "io_uring"};
        for (size_t e = 0; e < ELEMENTSOF(engines); e++) {
                job_spec_t *j = job_new("bs", engines[e]);
                outcome_t o;
                j->rw = RW_WRITE;
                j->size = 2 << 20;
                j->bs = 16384;
                j->bs_write = 65536; /* bs=16k,64k: a write job uses the second */
                j->numjobs = 3;
                j->iodepth = 4;
                assert_int_equal(run_one(j, &o, NULL, NULL), 0);
                assert_exact(&o, DDIR_WRITE, 3 * (2 << 20), 65536, streq(engines[e], "psync"));
                outcome_done(&o);
        }
}

/* --- the worker loop with a spy engine ----------------------------------------------------- */

typedef struct spy_io {
        unsigned file;
        uint8_t ddir;
        uint64_t offset, len;
} spy_io_t;

/* What the spy saw: every I/O in submission order, and the shape of the traffic. */
static struct spy {
        spy_io_t *log;
        size_t n, cap;
        unsigned depth, queued, committed, max_outstanding;
        unsigned commits, commit_sizes[64];
        unsigned getevents_calls, min_below_cmin;
        unsigned cmin;
        io_unit_t **ring;
        unsigned reaped;
} spy;

static void spy_reset(size_t cap)
{
        free(spy.log);
        free(spy.ring);
        memset(&spy, 0, sizeof(spy));
        spy.cap = cap;
        spy.log = calloc(cap, sizeof(*spy.log));
        assert_non_null(spy.log);
}

static int spy_init(const engine_setup_t *setup, void **data)
{
        spy.depth = setup->depth;
        spy.cmin = setup->job->iodepth_batch_complete_min;
        spy.ring = calloc(setup->depth, sizeof(*spy.ring));
        *data = &spy;
        return 0;
}

static void spy_cleanup(void *data)
{
}

static void spy_log(const io_unit_t *io)
{
        if (spy.n < spy.cap)
                spy.log[spy.n] = (spy_io_t){io->file, io->ddir, io->offset, io->len};
        spy.n++;
}

static int spy_queue_sync(void *data, io_unit_t *io)
{
        spy_log(io);
        io->result = (int64_t)io->len;
        return ENGINE_COMPLETED;
}

static int spy_queue(void *data, io_unit_t *io)
{
        if (spy.reaped) {
                memmove(spy.ring, spy.ring + spy.reaped,
                        (spy.committed + spy.queued) * sizeof(*spy.ring));
                spy.reaped = 0;
        }
        assert_true(spy.committed + spy.queued < spy.depth);
        spy_log(io);
        io->result = (int64_t)io->len;
        spy.ring[spy.committed + spy.queued++] = io;
        if (spy.committed + spy.queued > spy.max_outstanding)
                spy.max_outstanding = spy.committed + spy.queued;
        return ENGINE_QUEUED;
}

static int spy_commit(void *data)
{
        unsigned n = spy.queued;
        if (spy.commits < ELEMENTSOF(spy.commit_sizes))
                spy.commit_sizes[spy.commits] = n;
        spy.commits++;
        spy.committed += n;
        spy.queued = 0;
        return (int)n;
}

static int spy_getevents(void *data, unsigned min, unsigned max, int64_t timeout_ns)
{
        unsigned n;
        spy.getevents_calls++;
        if (spy.reaped) {
                memmove(spy.ring, spy.ring + spy.reaped,
                        (spy.committed + spy.queued) * sizeof(*spy.ring));
                spy.reaped = 0;
        }
        /* Reaped while fewer than cmin are in flight would break fio's batching rule, unless
         * those are all that is left. */
        if (min < spy.cmin && min < spy.committed && spy.committed + spy.queued >= spy.depth)
                spy.min_below_cmin++;
        /* Completes only what the worker asked for at least, so the test sees its minimum. */
        n = spy.committed < min ? spy.committed : min;
        if (n == 0 && spy.committed)
                n = 1;
        if (n > max)
                n = max;
        spy.committed -= n;
        spy.reaped = n;
        return (int)n;
}

static io_unit_t *spy_event(void *data, unsigned i)
{
        return spy.ring[i];
}

static const engine_ops_t spy_sync_ops = {
    .version = ENGINE_OPS_VERSION,
    .name = "spy-sync",
    .flags = ENGINE_SYNC | ENGINE_NO_FILES,
    .init = spy_init,
    .cleanup = spy_cleanup,
    .queue = spy_queue_sync,
};

static const engine_ops_t spy_async_ops = {
    .version = ENGINE_OPS_VERSION,
    .name = "spy-async",
    .flags = ENGINE_NO_FILES,
    .init = spy_init,
    .cleanup = spy_cleanup,
    .queue = spy_queue,
    .commit = spy_commit,
    .getevents = spy_getevents,
    .event = spy_event,
};

static void spy_notify(void *userdata)
{
}

/* Runs one worker of job j (taken over) on the spy engine, straight through worker_main. */
static void spy_run(job_spec_t *j, const engine_ops_t *ops, worker_t *w)
{
        gate_t g;
        char err[256];
        int stop = 0;

        memset(w, 0, sizeof(*w));
        assert_int_equal(gate_init(&g, 1, 1), 0);
        w->waits_for = -1;
        gate_count(&g, w);
        w->job = j;
        w->engine = ops;
        w->seed = 0x1234;
        w->gate = &g;
        w->stop = &stop;
        w->notify = spy_notify;
        for (int d = 0; d < 2; d++) {
                hist_init(&w->dir[d].clat);
                hist_init(&w->dir[d].slat);
                hist_init(&w->dir[d].lat);
        }
        hist_init(&w->sync_lat);
        w->cfg = &cfg;
        w->md_dirfd = -1;
        if (layout_plan(&cfg, j, "a0", dir, 0, false, &w->files, &w->nfiles, err, sizeof(err)) < 0)
                fail_msg("%s", err);
        assert_int_equal(pthread_create(&w->thread, NULL, worker_main, w), 0);
        while (!__atomic_load_n(&w->prepared, __ATOMIC_ACQUIRE))
                usleep(200);
        pthread_mutex_lock(&g.lock);
        g.open = true;
        g.start_mono = clock_mono_ns();
        pthread_cond_broadcast(&g.cond);
        pthread_mutex_unlock(&g.lock);
        pthread_join(w->thread, NULL);
        gate_free(&g);
        layout_files_free(&w->files, w->nfiles);
        w->stop = NULL;
        w->gate = NULL;
}

static void spy_job_done(job_spec_t *j)
{
        job_spec_done(j);
        free(j);
}

/* How often each block of a region was touched among the log's entries [from, to). */
static unsigned *block_counts(size_t from, size_t to, uint64_t base, uint64_t bs, uint64_t n)
{
        unsigned *c = calloc(n, sizeof(*c));
        assert_non_null(c);
        for (size_t i = from; i < to; i++) {
                assert_true(spy.log[i].offset >= base);
                assert_int_equal((spy.log[i].offset - base) % bs, 0);
                assert_true((spy.log[i].offset - base) / bs < n);
                c[(spy.log[i].offset - base) / bs]++;
        }
        return c;
}

static void test_random_map_visits_each_block_once(void **state)
{
        /* Sizes around powers of two exercise the cycle walk's ranges. */
        static const uint64_t blocks[] = {1, 2, 3, 255, 256, 257, 1000, 4097};
        for (size_t k = 0; k < ELEMENTSOF(blocks); k++)
                for (int async = 0; async < 2; async++) {
                        job_spec_t *j = job_new("map", "spy");
                        uint64_t n = blocks[k];
                        unsigned *c;
                        worker_t w;
                        j->rw = RW_RANDREAD;
                        j->size = n * 4096;
                        j->iodepth = async ? 16 : 1;
                        spy_reset(n + 1);
                        spy_run(j, async ? &spy_async_ops : &spy_sync_ops, &w);
                        assert_int_equal(w.error, 0);
                        assert_int_equal(spy.n, n);
                        c = block_counts(0, n, 0, 4096, n);
                        for (uint64_t b = 0; b < n; b++)
                                assert_int_equal(c[b], 1);
                        free(c);
                        spy_job_done(j);
                }
}

static void test_random_map_order_is_scrambled(void **state)
{
        /* Not a sequence in disguise: consecutive offsets are far apart on average (a uniform
         * pair is n/3 apart), and few neighbours follow each other. */
        const uint64_t n = 65536;
        job_spec_t *j = job_new("order", "spy");
        double dist = 0;
        size_t adjacent = 0;
        worker_t w;

        j->rw = RW_RANDREAD;
        j->size = n * 4096;
        spy_reset(n);
        spy_run(j, &spy_sync_ops, &w);
        for (size_t i = 1; i < n; i++) {
                int64_t a = (int64_t)spy.log[i].offset / 4096,
                        b = (int64_t)spy.log[i - 1].offset / 4096;
                dist += (double)llabs(a - b);
                adjacent += llabs(a - b) == 1;
        }
        dist /= (double)(n - 1);
        assert_true(dist > n / 3.0 * 0.9 && dist < n / 3.0 * 1.1);
        assert_true(adjacent < 16);
        spy_job_done(j);
}

static void test_norandommap_repeats_and_map_passes(void **state)
{
        const uint64_t n = 1024;
        job_spec_t *j = job_new("norm", "spy");
        unsigned *c, repeats = 0, missing = 0;
        worker_t w;

        /* norandommap: uniform draws, so some blocks come twice and some never (about 37%). */
        j->rw = RW_RANDREAD;
        j->size = n * 4096;
        j->norandommap = true;
        spy_reset(n);
        spy_run(j, &spy_sync_ops, &w);
        assert_int_equal(spy.n, n);
        c = block_counts(0, n, 0, 4096, n);
        for (uint64_t b = 0; b < n; b++) {
                repeats += c[b] > 1;
                missing += c[b] == 0;
        }
        assert_true(repeats > n / 10);
        assert_true(missing > n / 5 && missing < n / 2);
        free(c);
        spy_job_done(j);

        /* time_based with the map: every pass visits each block once, in a new order. */
        j = job_new("passes", "spy");
        j->rw = RW_RANDWRITE;
        j->size = n * 4096;
        j->time_based = true;
        j->runtime_ns = 200 * NSEC_PER_MSEC;
        spy_reset(3 * n);
        spy_run(j, &spy_sync_ops, &w);
        assert_true(spy.n >= 3 * n); /* a null-like engine does millions per second */
        for (int pass = 0; pass < 3; pass++) {
                c = block_counts(pass * n, (pass + 1) * n, 0, 4096, n);
                for (uint64_t b = 0; b < n; b++)
                        assert_int_equal(c[b], 1);
                free(c);
        }
        assert_true(memcmp(&spy.log[0], &spy.log[n], 16 * sizeof(spy_io_t)) != 0);
        spy_job_done(j);
}

/* Reads a whole file of the test directory into memory. */
static char *slurp(const char *name, size_t *len)
{
        char path[512], *buf;
        struct stat st;
        int fd;
        snprintf(path, sizeof(path), "%s/%s", dir, name);
        fd = open(path, O_RDONLY);
        assert_true(fd >= 0);
        assert_int_equal(fstat(fd, &st), 0);
        buf = malloc((size_t)st.st_size);
        assert_non_null(buf);
        assert_int_equal(pread(fd, buf, (size_t)st.st_size, 0), st.st_size);
        close(fd);
        *len = (size_t)st.st_size;
        return buf;
}

/* The data written depends on the clone's seed and on the order of its offsets: equal files
 * mean equal streams. */
static void write_random(const char *name, unsigned numjobs, bool randrepeat)
{
        job_spec_t *j = job_new(name, "psync");
        outcome_t o;
        j->rw = RW_RANDWRITE;
        j->size = 256 << 10;
        j->numjobs = numjobs;
        j->randrepeat = randrepeat;
        assert_int_equal(run_one(j, &o, NULL, NULL), 0);
        assert_int_equal(o.error, 0);
        outcome_done(&o);
}

static bool same_files(const char *a, const char *b)
{
        size_t la, lb;
        char *x = slurp(a, &la), *y = slurp(b, &lb);
        bool same = la == lb && memcmp(x, y, la) == 0;
        free(x);
        free(y);
        return same;
}

static void test_randrepeat_and_seeds(void **state)
{
        char path[512], first[512];

        /* randrepeat=1: the same streams run after run; clones differ from each other. */
        write_random("rep", 2, true);
        snprintf(path, sizeof(path), "%s/rep.a0.0.0", dir);
        snprintf(first, sizeof(first), "%s.first", path);
        assert_int_equal(rename(path, first), 0);
        write_random("rep", 2, true);
        assert_true(same_files("rep.a0.0.0", "rep.a0.0.0.first"));
        assert_false(same_files("rep.a0.0.0", "rep.a0.1.0"));
        /* randrepeat=0: fresh streams from the system. */
        write_random("rep", 1, false);
        assert_false(same_files("rep.a0.0.0", "rep.a0.0.0.first"));
}

static void test_randrw_mix(void **state)
{
        static const unsigned mixes[] = {0, 30, 70, 100};
        for (size_t m = 0; m < ELEMENTSOF(mixes); m++) {
                const uint64_t n = 20000;
                job_spec_t *j = job_new("mix", "spy");
                unsigned *c;
                size_t reads = 0;
                worker_t w;

                j->rw = RW_RANDRW;
                j->rwmixread = mixes[m];
                j->size = n * 4096;
                j->iodepth = 8;
                spy_reset(n);
                spy_run(j, &spy_async_ops, &w);
                assert_int_equal(spy.n, n);
                for (size_t i = 0; i < n; i++)
                        reads += spy.log[i].ddir == DDIR_READ;
                /* Binomial: the standard deviation is under 0.4% of n; allow 2%. */
                assert_true(llabs((long long)reads * 100 - (long long)(n * mixes[m])) <=
                            (long long)(2 * n));
                assert_int_equal(w.dir[0].ios + w.dir[1].ios, n);
                assert_int_equal(w.dir[0].ios, reads);
                /* One random map for both directions: each block exactly once. */
                c = block_counts(0, n, 0, 4096, n);
                for (uint64_t b = 0; b < n; b++)
                        assert_int_equal(c[b], 1);
                free(c);
                spy_job_done(j);
        }

        /* rw (sequential mixed): each direction walks the file in order on its own. */
        {
                job_spec_t *j = job_new("seqmix", "spy");
                uint64_t next[2] = {0, 0};
                worker_t w;
                j->rw = RW_RW;
                j->size = 256 * 4096;
                j->bs_write = 8192;
                spy_reset(1024);
                spy_run(j, &spy_sync_ops, &w);
                for (size_t i = 0; i < spy.n; i++) {
                        const spy_io_t *io = &spy.log[i];
                        assert_int_equal(io->offset, next[io->ddir]);
                        next[io->ddir] += io->ddir == DDIR_WRITE ? 8192 : 4096;
                }
                /* Exactly size bytes in all, whatever the mix. */
                assert_int_equal(w.dir[0].bytes + w.dir[1].bytes, 256 * 4096);
                spy_job_done(j);
        }
}

static void test_iodepth_and_batching(void **state)
{
        static const unsigned shapes[][3] = {
            {32, 1, 1}, {32, 8, 1}, {32, 8, 4}, {16, 16, 16}, {8, 3, 5}};
        for (size_t s = 0; s < ELEMENTSOF(shapes); s++) {
                job_spec_t *j = job_new("depth", "spy");
                unsigned depth = shapes[s][0], batch = shapes[s][1];
                worker_t w;

                j->rw = RW_READ;
                j->size = 4096 * 1000;
                j->iodepth = depth;
                j->iodepth_batch_submit = batch;
                j->iodepth_batch_complete_min = shapes[s][2];
                spy_reset(1000);
                spy_run(j, &spy_async_ops, &w);
                assert_int_equal(w.error, 0);
                assert_int_equal(spy.n, 1000);
                /* The queue fills to iodepth, never beyond. */
                assert_int_equal(spy.max_outstanding, depth);
                /* Submissions come in batches of iodepth_batch_submit while the queue has room:
                 * the first ones, before any completion, are exact. */
                for (unsigned i = 0; i < depth / batch && i < spy.commits; i++)
                        assert_int_equal(spy.commit_sizes[i], batch);
                /* A full queue is reaped at least iodepth_batch_complete_min at a time. */
                assert_int_equal(spy.min_below_cmin, 0);
                assert_int_equal(w.dir[0].slat.n, 1000);
                assert_int_equal(w.dir[0].lat.n, 1000);
                assert_int_equal(w.dir[0].issued, 1000);
                spy_job_done(j);
        }
}

static void test_files_round_robin_and_regions(void **state)
{
        job_spec_t *j = job_new("rr", "spy");
        worker_t w;

        /* nrfiles=3 filesize=256k offset=64k: each region is [64k, 256k), files in turn. */
        j->rw = RW_READ;
        j->nrfiles = 3;
        j->filesize = 256 << 10;
        j->offset = 64 << 10;
        spy_reset(1000);
        spy_run(j, &spy_sync_ops, &w);
        assert_int_equal(w.error, 0);
        assert_int_equal(spy.n, 3 * 48);
        for (size_t i = 0; i < spy.n; i++) {
                assert_int_equal(spy.log[i].file, i % 3);
                assert_int_equal(spy.log[i].offset, (64 << 10) + (i / 3) * 4096);
        }
        spy_job_done(j);

        /* size caps what the files hold: size=2m over 4 files of 1m uses half of each. */
        j = job_new("cap", "spy");
        j->rw = RW_RANDREAD;
        j->nrfiles = 4;
        j->filesize = 1 << 20;
        j->size = 2 << 20;
        spy_reset(1000);
        spy_run(j, &spy_sync_ops, &w);
        assert_int_equal(spy.n, 512);
        assert_int_equal(w.dir[0].bytes, 2 << 20);
        spy_job_done(j);
}

static void test_ramp_and_startdelay(void **state)
{
        job_spec_t *j = job_new("ramp", "null");
        outcome_t o;

        /* startdelay 100ms, ramp 200ms, runtime 200ms: ~500ms in all, 200ms counted. */
        j->time_based = true;
        j->runtime_ns = 200 * NSEC_PER_MSEC;
        j->ramp_time_ns = 200 * NSEC_PER_MSEC;
        j->startdelay_ns = 100 * NSEC_PER_MSEC;
        assert_int_equal(run_one(j, &o, NULL, NULL), 0);
        assert_int_equal(o.error, 0);
        assert_true(o.elapsed_ns >= 500 * (int64_t)NSEC_PER_MSEC);
        assert_true(o.res.runtime_ns >= 200 * NSEC_PER_MSEC);
        assert_true(o.res.runtime_ns < 300 * NSEC_PER_MSEC);
        assert_true(o.d[0].ios > 0);
        assert_int_equal(o.d[0].ios, o.d[0].issued);
        assert_int_equal(o.d[0].clat->n, o.d[0].ios);
        outcome_done(&o);
}

/* Interval counters stay at zero during ramp_time. */
static void test_counters_do_not_grow_in_ramp(void **state)
{
        job_spec_t *j = job_new("ramp2", "null");
        runner_params_t p = {
            .cfg = &cfg, .agent_name = "a0", .work_dir = dir, .jobs = j, .n_jobs = 1};
        runner_dir_t d[2];
        runner_t *r = NULL;
        char err[256];
        int64_t start;

        j->time_based = true;
        j->runtime_ns = 100 * NSEC_PER_MSEC;
        j->ramp_time_ns = 1000 * NSEC_PER_MSEC;
        assert_int_equal(runner_new(&p, &r, err, sizeof(err)), 0);
        assert_int_equal(wait_state(r, RUNNER_PREPARED), RUNNER_PREPARED);
        start = clock_mono_ns() + 2 * (int64_t)NSEC_PER_MSEC;
        assert_int_equal(runner_start_at(r, start), 0);
        clock_sleep_until_mono(start + 150 * (int64_t)NSEC_PER_MSEC, 0);
        assert_int_equal(runner_dir_init(&d[0]), 0);
        assert_int_equal(runner_dir_init(&d[1]), 0);
        runner_totals(r, d);
        /* Judged only when the totals were read within the ramp (a loaded host may wake this
         * thread after it). */
        if (clock_mono_ns() < start + (int64_t)j->ramp_time_ns) {
                assert_int_equal(d[0].ios, 0);
                assert_int_equal(d[0].issued, 0);
                assert_int_equal(d[0].clat->n, 0);
        }
        runner_dir_done(&d[0]);
        runner_dir_done(&d[1]);
        assert_int_equal(wait_state(r, RUNNER_DONE), RUNNER_DONE);
        assert_int_equal(runner_dir_init(&d[0]), 0);
        assert_int_equal(runner_dir_init(&d[1]), 0);
        runner_totals(r, d);
        assert_true(d[0].ios > 0);
        runner_dir_done(&d[0]);
        runner_dir_done(&d[1]);
        runner_destroy(&r);
}

/* A stop ends a timed job at once; what was in flight completes and is counted. */
static void test_stop_mid_run(void **state)
{
        static const char *const engines[] = {"psync", "null", "libaio", "io_uring"};
        for (size_t e = 0; e < ELEMENTSOF(engines); e++) {
                job_spec_t *j = job_new("stop", engines[e]);
                runner_params_t p = {
                    .cfg = &cfg, .agent_name = "a0", .work_dir = dir, .jobs = j, .n_jobs = 1};
                runner_job_result_t res;
                runner_dir_t d[2];
                runner_t *r = NULL;
                char err[256];
                int64_t start, stopped_at;

                j->rw = RW_RANDREAD;
                j->size = 4 << 20;
                j->iodepth = 16;
                j->time_based = true;
                j->runtime_ns = 60 * NSEC_PER_SEC;
                assert_int_equal(runner_new(&p, &r, err, sizeof(err)), 0);
                assert_int_equal(wait_state(r, RUNNER_PREPARED), RUNNER_PREPARED);
                start = clock_mono_ns() + 2 * (int64_t)NSEC_PER_MSEC;
                assert_int_equal(runner_start_at(r, start), 0);
                clock_sleep_until_mono(start + 100 * (int64_t)NSEC_PER_MSEC, 0);
                /* Stopped once an I/O completed (a loaded host may wake the workers late),
                 * waiting at most 30 s of this run's clock. */
                for (int64_t until = clock_mono_ns() + 30 * (int64_t)NSEC_PER_SEC;
                     clock_mono_ns() < until;) {
                        runner_dir_t t[2];
                        uint64_t ios;
                        assert_int_equal(runner_dir_init(&t[0]), 0);
                        assert_int_equal(runner_dir_init(&t[1]), 0);
                        runner_totals(r, t);
                        ios = t[0].ios;
                        runner_dir_done(&t[0]);
                        runner_dir_done(&t[1]);
                        if (ios > 0)
                                break;
                        clock_sleep_until_mono(clock_mono_ns() + 10 * (int64_t)NSEC_PER_MSEC, 0);
                }
                runner_stop(r);
                stopped_at = clock_mono_ns();
                assert_int_equal(wait_state(r, RUNNER_DONE), RUNNER_DONE);
                /* Not a speed check: a stop that waited for the runtime would take a minute. */
                assert_true(clock_mono_ns() - stopped_at < 10 * (int64_t)NSEC_PER_SEC);
                assert_int_equal(runner_dir_init(&d[0]), 0);
                assert_int_equal(runner_dir_init(&d[1]), 0);
                runner_job_result(r, 0, &res, d);
                assert_int_equal(res.error, 0);
                assert_true(d[0].ios > 0);
                assert_int_equal(d[0].dropped, 0);
                assert_int_equal(d[0].issued, d[0].ios + d[0].errors + d[0].dropped);
                assert_int_equal(d[0].clat->n, d[0].ios);
                runner_dir_done(&d[0]);
                runner_dir_done(&d[1]);
                runner_destroy(&r);
        }
}

/* --- rate ---------------------------------------------------------------------------------- */

static double cpu_seconds(void)
{
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
               ru.ru_stime.tv_usec / 1e6;
}

/* Pacing never runs ahead of the rate; it may fall behind only by what the run itself shows:
 * a clone's rate clock starts when it wakes, so a worker woken late (a loaded host, a sanitizer
 * build) owes nothing for the time before. */
static void check_rate(double moved, double target, const outcome_t *o)
{
        double secs = (double)o->elapsed_ns / 1e9, lag = (double)o->lag_ns / 1e9;
        double want = target * secs, least = target * (secs - lag) * 0.95;
        if (moved < least || moved > want * 1.05)
                fail_msg("moved %.0f in %.3fs (workers woke %.3fs late), want %.0f..%.0f", moved,
                         secs, lag, least, want * 1.05);
}

static void test_rate(void **state)
{
        job_spec_t *j;
        outcome_t o;
        double cpu;

        /* rate= in bytes per second, psync on a real file, per clone: 2 clones move twice. */
        j = job_new("rate", "psync");
        j->rw = RW_RANDREAD;
        j->size = 8 << 20;
        j->numjobs = 2;
        j->time_based = true;
        j->runtime_ns = 2 * NSEC_PER_SEC;
        j->rate[DDIR_READ] = 4 << 20;
        assert_int_equal(run_one(j, &o, NULL, NULL), 0);
        assert_int_equal(o.error, 0);
        check_rate((double)o.d[0].bytes, 2.0 * (4 << 20), &o);
        outcome_done(&o);

        /* rate_iops with an async engine at depth: paced without spinning. */
        j = job_new("iops", "null");
        j->rw = RW_READ;
        j->iodepth = 8;
        j->time_based = true;
        j->runtime_ns = 2 * NSEC_PER_SEC;
        j->rate_iops[DDIR_READ] = 2000;
        cpu = cpu_seconds();
        assert_int_equal(run_one(j, &o, NULL, NULL), 0);
        cpu = cpu_seconds() - cpu;
        check_rate((double)o.d[0].ios, 2000, &o);
        /* 4000 I/Os of a null engine cost milliseconds; a spinning pacer would burn 2 s. */
        assert_true(cpu < 0.5);
        outcome_done(&o);

        /* Per direction: randrw with reads at 2 MiB/s and writes at 1 MiB/s. */
        j = job_new("rw", "io_uring");
        j->rw = RW_RANDRW;
        j->size = 8 << 20;
        j->iodepth = 4;
        j->time_based = true;
        j->runtime_ns = 2 * NSEC_PER_SEC;
        j->rate[DDIR_READ] = 2 << 20;
        j->rate[DDIR_WRITE] = 1 << 20;
        assert_int_equal(run_one(j, &o, NULL, NULL), 0);
        assert_int_equal(o.error, 0);
        check_rate((double)o.d[0].bytes, 2 << 20, &o);
        check_rate((double)o.d[1].bytes, 1 << 20, &o);
        outcome_done(&o);
}

/* --- files on disk ------------------------------------------------------------------------- */

static uint64_t file_size(const char *name)
{
        char path[512];
        struct stat st;
        snprintf(path, sizeof(path), "%s/%s", dir, name);
        if (stat(path, &st) < 0)
                return UINT64_MAX;
        return (uint64_t)st.st_size;
}

/* Whether bytes [from, to) of the file are all zero. */
static bool zero_range(const char *name, uint64_t from, uint64_t to)
{
        char path[512], buf[4096];
        bool zero = true;
        int fd;
        snprintf(path, sizeof(path), "%s/%s", dir, name);
        fd = open(path, O_RDONLY);
        assert_true(fd >= 0);
        for (uint64_t o = from; o < to && zero; o += sizeof(buf)) {
                size_t n = to - o < sizeof(buf) ? (size_t)(to - o) : sizeof(buf);
                assert_int_equal(pread(fd, buf, n, (off_t)o), (ssize_t)n);
                for (size_t i = 0; i < n; i++)
                        zero &= buf[i] == 0;
        }
        close(fd);
        return zero;
}

static void test_nrfiles_filesize_offset_on_disk(void **state)
{
        job_spec_t *j = job_new("files", "io_uring");
        outcome_t o;

        /* Write job: files reserved (zeroes), then written only in [offset, filesize). */
        j->rw = RW_WRITE;
        j->nrfiles = 3;
        j->filesize = 256 << 10;
        j->offset = 64 << 10;
        j->iodepth = 8;
        assert_int_equal(run_one(j, &o, NULL, NULL), 0);
        assert_exact(&o, DDIR_WRITE, 3 * (192 << 10), 4096, false);
        outcome_done(&o);
        for (int f = 0; f < 3; f++) {
                char name[64];
                snprintf(name, sizeof(name), "files.a0.0.%d", f);
                assert_int_equal(file_size(name), 256 << 10);
                assert_true(zero_range(name, 0, 64 << 10));
                assert_false(zero_range(name, 64 << 10, 68 << 10));
                assert_false(zero_range(name, 252 << 10, 256 << 10));
        }
        assert_int_equal(file_size("files.a0.0.3"), UINT64_MAX);

        /* size split over nrfiles, after offset: each file offset + size/nrfiles long, filled
         * for a read job; filename_format names them. */
        j = job_new("split", "libaio");
        j->rw = RW_RANDREAD;
        j->nrfiles = 2;
        j->size = 1 << 20;
        j->offset = 128 << 10;
        j->numjobs = 2;
        j->iodepth = 4;
        assert_int_equal(strdup_to(&j->filename_format, "$jobname-$agent-$jobnum-$filenum.dat"), 0);
        assert_int_equal(run_one(j, &o, NULL, NULL), 0);
        assert_exact(&o, DDIR_READ, 2 * (1 << 20), 4096, false);
        outcome_done(&o);
        assert_int_equal(file_size("split-a0-0-0.dat"), (128 << 10) + (512 << 10));
        assert_int_equal(file_size("split-a0-1-1.dat"), (128 << 10) + (512 << 10));
        assert_false(zero_range("split-a0-1-1.dat", 0, 4096));

        /* filename: a ':' list shared by every clone, laid out once to the largest need. */
        j = job_new("shared", "psync");
        j->rw = RW_READ;
        j->size = 512 << 10;
        j->numjobs = 3;
        assert_int_equal(strdup_to(&j->filename, "s1:s2"), 0);
        assert_int_equal(run_one(j, &o, NULL, NULL), 0);
        assert_exact(&o, DDIR_READ, 3 * (512 << 10), 4096, true);
        outcome_done(&o);
        assert_int_equal(file_size("s1"), 256 << 10);
        assert_int_equal(file_size("s2"), 256 << 10);
}

static void test_layout_reuses_and_fills(void **state)
{
        char path[512];
        struct stat st1, st2;
        job_spec_t *j;
        outcome_t o;
        int fd;

        /* A short file is laid out anew, as fio's extend_file does (unlinked, then filled). */
        snprintf(path, sizeof(path), "%s/short", dir);
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, "abc", 3), 3);
        close(fd);
        j = job_new("short", "psync");
        j->size = 1 << 20;
        j->direct = true; /* laid out through O_DIRECT where the filesystem allows */
        assert_int_equal(strdup_to(&j->filename, "short"), 0);
        assert_int_equal(run_one(j, &o, NULL, NULL), 0);
        /* A filesystem without O_DIRECT (tmpfs) fails the job's open; the layout, buffered
         * then, is still checked below. */
        if (!(o.error == EINVAL && strstr(o.errmsg, "refuses O_DIRECT")))
                assert_exact(&o, DDIR_READ, 1 << 20, 4096, true);
        outcome_done(&o);
        assert_int_equal(stat(path, &st1), 0);
        assert_int_equal(st1.st_size, 1 << 20);
        {
                char head[3];
                fd = open(path, O_RDONLY);
                assert_int_equal(read(fd, head, 3), 3);
                close(fd);
                assert_memory_not_equal(head, "abc", 3);
        }
        assert_false(zero_range("short", 0, 1 << 20));
        /* A file of the right size is reused untouched. */
        j = job_new("short", "psync");
        j->size = 1 << 20;
        assert_int_equal(strdup_to(&j->filename, "short"), 0);
        assert_int_equal(run_one(j, &o, NULL, NULL), 0);
        outcome_done(&o);
        assert_int_equal(stat(path, &st2), 0);
        assert_int_equal(st2.st_mtim.tv_sec, st1.st_mtim.tv_sec);
        assert_int_equal(st2.st_mtim.tv_nsec, st1.st_mtim.tv_nsec);
}

/* Bytes this process has had read from storage (/proc/self/io read_bytes: every thread, the
 * kernel's readahead included), or UINT64_MAX without task I/O accounting. */
static uint64_t storage_read_bytes(void)
{
        FILE *f = fopen("/proc/self/io", "re");
        char line[128];
        unsigned long long v;
        uint64_t r = UINT64_MAX;
        if (!f)
                return r;
        while (fgets(line, sizeof(line), f))
                if (sscanf(line, "read_bytes: %llu", &v) == 1)
                        r = v;
        fclose(f);
        return r;
}

/* invalidate=1, buffered, sequential, several passes over small files (write-up 2's 1 MiB read
 * cell): each pass reads each file from storage once, as fio's reopen at each pass does; the
 * cache is dropped only after the pass's last block was read, never in between (which made the
 * kernel read the last block and the tail again, readahead having brought them in already). */
static void test_invalidate_each_pass_reads_once(void **state)
{
        static const char *const engines[] = {"psync", "libaio", "io_uring"};
        const uint64_t filesize = 6710886, bs = 1 << 20, nfiles = 2;
        /* Blocks read per file and pass: 6 of 1 MiB; the kernel may read up to the 6.4 MiB. */
        const uint64_t per_pass = nfiles * (filesize / bs);

        if (storage_read_bytes() == UINT64_MAX)
                skip();
        for (size_t e = 0; e < ELEMENTSOF(engines); e++)
                for (int run = 0; run < 2; run++) {
                        job_spec_t *j = job_new("passes", engines[e]);
                        outcome_t o;
                        uint64_t before, got, passes, read;
                        j->rw = RW_READ;
                        j->bs = j->bs_write = bs;
                        j->nrfiles = nfiles;
                        j->size = nfiles * filesize;
                        j->time_based = true;
                        j->runtime_ns = 300 * NSEC_PER_MSEC;
                        j->iodepth = streq(engines[e], "psync") ? 1 : 16;
                        before = storage_read_bytes();
                        assert_int_equal(run_one(j, &o, NULL, NULL), 0);
                        got = storage_read_bytes() - before;
                        if (o.error)
                                fail_msg("%s: job failed: %s", engines[e], o.errmsg);
                        assert_int_equal(o.state, RUNNER_DONE);
                        assert_int_equal(o.d[DDIR_READ].bytes, o.d[DDIR_READ].ios * bs);
                        read = o.d[DDIR_READ].bytes;
                        /* Passes begun, the last one perhaps cut short by the runtime. */
                        passes = (o.d[DDIR_READ].ios + per_pass - 1) / per_pass;
                        outcome_done(&o);
                        if (run == 0)
                                continue; /* the first run also laid the files out */
                        print_message("%s: %llu passes, %llu bytes read, %llu from storage\n",
                                      engines[e], (unsigned long long)passes,
                                      (unsigned long long)read, (unsigned long long)got);
                        assert_true(passes >= 2);
                        /* Every pass from storage (invalidate), and no block of a pass twice. */
                        assert_true(got >= read);
                        assert_true(got <= passes * nfiles * filesize + (1 << 20));
                }
}

static void test_direct(void **state)
{
        static const char *const engines[] = {"psync", "libaio", "io_uring"};
        for (size_t e = 0; e < ELEMENTSOF(engines); e++)
                for (int wr = 1; wr >= 0; wr--) {
                        job_spec_t *j = job_new("direct", engines[e]);
                        outcome_t o;
                        j->rw = wr ? RW_RANDWRITE : RW_RANDREAD;
                        j->size = 4 << 20;
                        j->bs = j->bs_write = 65536;
                        j->direct = true;
                        j->iodepth = streq(engines[e], "psync") ? 1 : 8;
                        assert_int_equal(run_one(j, &o, NULL, NULL), 0);
                        if (o.state == RUNNER_FAILED && strstr(o.errmsg, "refuses O_DIRECT")) {
                                print_message("skipped: %s\n", o.errmsg);
                                outcome_done(&o);
                                skip();
                        }
                        assert_exact(&o, wr, 4 << 20, 65536, streq(engines[e], "psync"));
                        outcome_done(&o);
                }
        /* Misaligned direct I/O is refused before any I/O, naming the options. */
        {
                job_spec_t *j = job_new("odd", "psync");
                outcome_t o;
                j->size = 1 << 20;
                j->bs = j->bs_write = 1000;
                j->direct = true;
                assert_int_equal(run_one(j, &o, NULL, NULL), 0);
                assert_int_equal(o.state, RUNNER_FAILED);
                assert_non_null(strstr(o.errmsg, "direct=1: bs and offset must be multiples"));
                outcome_done(&o);
        }
}

static void test_fsync_counts(void **state)
{
        static const char *const engines[] = {"psync", "libaio", "io_uring", "null"};
        for (size_t e = 0; e < ELEMENTSOF(engines); e++) {
                job_spec_t *j = job_new("sync", engines[e]);
                outcome_t o;
                /* 16 writes, fsync=4: fio syncs after the 4th, 8th and 12th (the 16th is the
                 * last I/O, so no sync follows it); end_fsync syncs the file once more. */
                j->rw = RW_WRITE;
                j->size = 64 << 10;
                j->fsync = 4;
                j->end_fsync = true;
                j->iodepth = streq(engines[e], "psync") ? 1 : 8;
                assert_int_equal(run_one(j, &o, NULL, NULL), 0);
                assert_exact(&o, DDIR_WRITE, 64 << 10, 4096, streq(engines[e], "psync"));
                assert_int_equal(o.d[1].syncs, 3);
                assert_int_equal(o.d[1].sync_lat->n, 3);
                assert_int_equal(o.d[0].syncs, 0);
                assert_int_equal(o.res.end_syncs, 1);
                outcome_done(&o);
        }
        {
                /* fdatasync=5 over 16 writes and 2 files: after the 5th, 10th and 15th write,
                 * each file written since is synced. */
                job_spec_t *j = job_new("dsync", "psync");
                outcome_t o;
                j->rw = RW_WRITE;
                j->size = 64 << 10;
                j->nrfiles = 2;
                j->fdatasync = 5;
                assert_int_equal(run_one(j, &o, NULL, NULL), 0);
                assert_int_equal(o.d[1].syncs, 6);
                assert_int_equal(o.res.end_syncs, 0);
                outcome_done(&o);
        }
}

static void test_readonly(void **state)
{
        job_spec_t *j = job_new("ro", "psync");
        outcome_t o;

        j->rw = RW_RANDRW;
        j->size = 1 << 20;
        j->readonly = true;
        assert_int_equal(run_one(j, &o, NULL, NULL), -EROFS);
        assert_non_null(strstr(o.errmsg, "readonly: rw=randrw writes"));
        outcome_done(&o);
        assert_int_equal(file_size("ro.a0.0.0"), UINT64_MAX);

        /* A read job under readonly does not create or extend files. */
        j = job_new("ro", "psync");
        j->size = 1 << 20;
        j->readonly = true;
        assert_int_equal(run_one(j, &o, NULL, NULL), 0);
        assert_int_equal(o.state, RUNNER_FAILED);
        assert_non_null(strstr(o.errmsg, "readonly forbids creating it"));
        outcome_done(&o);
        assert_int_equal(file_size("ro.a0.0.0"), UINT64_MAX);
}

static void truncate_half(void *arg)
{
        char path[512];
        snprintf(path, sizeof(path), "%s/%s", dir, (const char *)arg);
        assert_int_equal(truncate(path, 512 << 10), 0);
}

static void test_failing_read_past_truncation(void **state)
{
        static const char *const engines[] = {"psync", "libaio", "io_uring"};
        for (size_t e = 0; e < ELEMENTSOF(engines); e++) {
                job_spec_t *j = job_new("trunc", engines[e]);
                unsigned depth = streq(engines[e], "psync") ? 1 : 16;
                outcome_t o;
                j->size = 1 << 20;
                j->iodepth = depth;
                assert_int_equal(strdup_to(&j->filename, engines[e]), 0);
                assert_int_equal(run_one(j, &o, truncate_half, (void *)engines[e]), 0);
                assert_int_equal(o.state, RUNNER_DONE);
                assert_int_equal(o.error, EIO);
                /* The first block past the end, in order for a sequential job at depth 1. */
                if (depth == 1)
                        assert_int_equal(o.error_offset, 512 << 10);
                assert_true(o.error_offset >= 512 << 10 && o.error_offset < 1 << 20);
                assert_non_null(strstr(o.errmsg, "unexpected end of file"));
                {
                        char want[64];
                        snprintf(want, sizeof(want), "at offset %llu",
                                 (unsigned long long)o.error_offset);
                        assert_non_null(strstr(o.errmsg, want));
                }
                assert_true(o.d[0].errors >= 1);
                assert_true(o.d[0].bytes >= 512 << 10 && o.d[0].bytes < 1 << 20);
                /* The job stopped: everything issued is accounted for. */
                assert_int_equal(o.d[0].issued, o.d[0].ios + o.d[0].errors + o.d[0].dropped);
                outcome_done(&o);
        }
}

/* mmap: a file shrunk under the mapping makes the copy fault with SIGBUS; the engine turns it into
 * an EIO of the I/O instead of the agent dying. */
static void test_mmap_truncated_file_fails_not_crashes(void **state)
{
        job_spec_t *j = job_new("mtrunc", "mmap");
        outcome_t o;
        j->size = 1 << 20;
        assert_int_equal(strdup_to(&j->filename, "mmaptrunc"), 0);
        assert_int_equal(run_one(j, &o, truncate_half, (void *)"mmaptrunc"), 0);
        assert_int_equal(o.state, RUNNER_DONE);
        assert_int_equal(o.error, EIO);
        assert_int_equal(o.error_offset, 512 << 10);
        assert_int_equal(o.d[0].bytes, 512 << 10);
        assert_int_equal(o.d[0].errors, 1);
        outcome_done(&o);
}

static void truncate_mid_block(void *arg)
{
        char path[512];
        snprintf(path, sizeof(path), "%s/mid", dir);
        assert_int_equal(truncate(path, (512 << 10) + 1000), 0);
}

static void test_short_read_then_end_of_file(void **state)
{
        job_spec_t *j = job_new("mid", "psync");
        outcome_t o;

        /* The block at 512k holds 1000 bytes: a short read, counted; the next finds the end. */
        j->size = 1 << 20;
        assert_int_equal(strdup_to(&j->filename, "mid"), 0);
        assert_int_equal(run_one(j, &o, truncate_mid_block, NULL), 0);
        assert_int_equal(o.error, EIO);
        assert_int_equal(o.error_offset, (512 << 10) + 4096);
        assert_int_equal(o.d[0].short_ios, 1);
        assert_int_equal(o.d[0].bytes, (512 << 10) + 1000);
        assert_int_equal(o.d[0].ios, 129);
        assert_int_equal(o.d[0].errors, 1);
        assert_int_equal(o.d[0].issued, 130);
        outcome_done(&o);
}

static void limit_file_size(void *arg)
{
        struct rlimit rl = {.rlim_cur = 256 << 10, .rlim_max = RLIM_INFINITY};
        assert_int_equal(setrlimit(RLIMIT_FSIZE, &rl), 0);
}

static void test_failing_write(void **state)
{
        static const char *const engines[] = {"psync", "io_uring"};
        struct rlimit unlimited = {.rlim_cur = RLIM_INFINITY, .rlim_max = RLIM_INFINITY};
        signal(SIGXFSZ, SIG_IGN);
        for (size_t e = 0; e < ELEMENTSOF(engines); e++) {
                job_spec_t *j = job_new("efbig", engines[e]);
                outcome_t o;
                j->rw = RW_WRITE;
                j->size = 1 << 20;
                /* Writes past 256 KiB fail with EFBIG once the limit is set after layout. */
                assert_int_equal(run_one(j, &o, limit_file_size, NULL), 0);
                assert_int_equal(setrlimit(RLIMIT_FSIZE, &unlimited), 0);
                assert_int_equal(o.error, EFBIG);
                assert_int_equal(o.error_offset, 256 << 10);
                assert_non_null(strstr(o.errmsg, "write of 4096 bytes at offset 262144"));
                assert_int_equal(o.d[1].errors, 1);
                assert_int_equal(o.d[1].bytes, 256 << 10);
                outcome_done(&o);
        }
        signal(SIGXFSZ, SIG_DFL);
}

static void test_name_expansion(void **state)
{
        char b[64];
        assert_int_equal(layout_expand_name(LAYOUT_DEFAULT_FORMAT, "j", "ag", 3, 7, b, sizeof(b)),
                         0);
        assert_string_equal(b, "j.ag.3.7");
        assert_int_equal(
            layout_expand_name("$jobname$jobnum/$x$$filenum", "j", "a", 1, 2, b, sizeof(b)), 0);
        assert_string_equal(b, "j1/$x$2");
        assert_int_equal(layout_expand_name("$jobname", "0123456789", "a", 0, 0, b, 8),
                         -ENAMETOOLONG);
}

/* One engine list: each I/O engine of ENGINE_LIST has its ops table under its own name, is in
 * Hello's list in the list's order and is an ioengine= choice; a workload has no ops table. */
static void test_engine_list(void **state)
{
        static const struct {
                const char *name;
                bool io;
        } list[] = {
#define ENTRY(name, kind) {#name, sizeof(#kind) == sizeof("IO")},
            ENGINE_LIST(ENTRY)
#undef ENTRY
        };
        const char *const *hello = engine_names();
        size_t n_io = 0, n_workloads = 0;
        char err[256];

        for (size_t i = 0; i < ELEMENTSOF(list); i++) {
                job_spec_t j;
                const engine_ops_t *e = engine_find(list[i].name);
                assert_int_equal(job_spec_init(&j, "x"), 0);
                if (job_option_set(&j, "ioengine", list[i].name, err, sizeof(err)) < 0)
                        fail_msg("ioengine=%s refused: %s", list[i].name, err);
                job_spec_done(&j);
                if (!list[i].io) {
                        assert_null(e);
                        assert_string_equal(list[i].name, ENGINE_METADATA);
                        n_workloads++;
                        continue;
                }
                assert_non_null(e);
                assert_string_equal(e->name, list[i].name);
                assert_int_equal(e->version, ENGINE_OPS_VERSION);
                assert_non_null(hello[n_io]);
                assert_string_equal(hello[n_io++], list[i].name);
        }
        assert_null(hello[n_io]);
        assert_int_equal(n_workloads, 1);
        {
                job_spec_t j;
                assert_int_equal(job_spec_init(&j, "x"), 0);
                assert_string_equal(j.ioengine, ENGINE_DEFAULT);
                assert_non_null(engine_find(j.ioengine));
                assert_true(job_option_set(&j, "ioengine", "nosuch", err, sizeof(err)) < 0);
                job_spec_done(&j);
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test_setup_teardown(test_exact_bytes_every_engine, setup, teardown),
            cmocka_unit_test_setup_teardown(test_exact_bytes_fio_engines, setup, teardown),
            cmocka_unit_test_setup_teardown(test_mmap_truncated_file_fails_not_crashes, setup,
                                            teardown),
            cmocka_unit_test_setup_teardown(test_numjobs_and_block_sizes, setup, teardown),
            cmocka_unit_test_setup_teardown(test_random_map_visits_each_block_once, setup,
                                            teardown),
            cmocka_unit_test_setup_teardown(test_random_map_order_is_scrambled, setup, teardown),
            cmocka_unit_test_setup_teardown(test_norandommap_repeats_and_map_passes, setup,
                                            teardown),
            cmocka_unit_test_setup_teardown(test_randrepeat_and_seeds, setup, teardown),
            cmocka_unit_test_setup_teardown(test_randrw_mix, setup, teardown),
            cmocka_unit_test_setup_teardown(test_iodepth_and_batching, setup, teardown),
            cmocka_unit_test_setup_teardown(test_files_round_robin_and_regions, setup, teardown),
            cmocka_unit_test_setup_teardown(test_ramp_and_startdelay, setup, teardown),
            cmocka_unit_test_setup_teardown(test_counters_do_not_grow_in_ramp, setup, teardown),
            cmocka_unit_test_setup_teardown(test_stop_mid_run, setup, teardown),
            cmocka_unit_test_setup_teardown(test_rate, setup, teardown),
            cmocka_unit_test_setup_teardown(test_nrfiles_filesize_offset_on_disk, setup, teardown),
            cmocka_unit_test_setup_teardown(test_layout_reuses_and_fills, setup, teardown),
            cmocka_unit_test_setup_teardown(test_direct, setup, teardown),
            cmocka_unit_test_setup_teardown(test_invalidate_each_pass_reads_once, setup, teardown),
            cmocka_unit_test_setup_teardown(test_fsync_counts, setup, teardown),
            cmocka_unit_test_setup_teardown(test_readonly, setup, teardown),
            cmocka_unit_test_setup_teardown(test_failing_read_past_truncation, setup, teardown),
            cmocka_unit_test_setup_teardown(test_short_read_then_end_of_file, setup, teardown),
            cmocka_unit_test_setup_teardown(test_failing_write, setup, teardown),
            cmocka_unit_test(test_name_expansion),
            cmocka_unit_test(test_engine_list),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
