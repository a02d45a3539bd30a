/* One I/O worker (a clone of a job): lays out and opens its files, waits at the start gate, runs
 * its loop. */
#include "worker.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "buffers.h"
#include "clock.h"
#include "execcmd.h"
#include "fileservice.h"
#include "fiolog-writer.h"
#include "iogen.h"
#include "log.h"
#include "offload.h"
#include "options-values.h"
#include "pacing.h"
#include "placement.h"
#include "randmap.h"
#include "util.h"
#include "verify.h"
#include "vstate.h"

/* Single-writer counters: a plain load and a relaxed store, never a locked read-modify-write. */
#define STAT_ADD(field, v) __atomic_store_n(&(field), (field) + (v), __ATOMIC_RELAXED)
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

/* Longest a worker sleeps or waits for completions before it looks at its stop flag again. */
#define WAIT_SLICE_NS (100 * (int64_t)NSEC_PER_MSEC)
/* After a stop, how long in-flight I/Os get to complete before they are given up as dropped. */
#define DRAIN_GRACE_NS (2 * (int64_t)NSEC_PER_SEC)
/* Most I/Os a refill gathers into one submission: past that, a deep queue would cycle through
 * all its buffers (512 x 4 KiB no longer fits in the CPU's cache) and lose more than the
 * system calls it saves; the units freed last are reused first, so these few stay hot. */
#define GATHER_MAX 32u
#define BUF_ALIGN 4096u
#define HUGE_ALIGN (2u << 20)
#define HUGE_MIN_BS (512u << 10)
#define SECTOR 512u

enum { SYNC_FSYNC = 1, SYNC_FDATASYNC = 2 };

/* A file as the loop sees it. */
typedef struct wfile {
        int fd;
        uint64_t base;
        uint64_t nblocks[2]; /* whole blocks of each direction's bs in the region */
        uint64_t seq[2];     /* next sequential block of each direction (fio's last_pos) */
        randmap_t perm[2];   /* random map: one shared when both directions have one bs */
        uint64_t in_pass;    /* blocks issued in the current pass over the file */
        unsigned outstanding; /* async loop, invalidate_passes: I/Os prepared, not yet reaped */
        bool inval_due;       /* a pass ended: drop the cache before its next pass's first I/O */
        bool dirty;          /* written since the last fsync/fdatasync */
        bool written;        /* written at all: end_fsync syncs it */
        bool op_due;         /* ENGINE_FILE_OPS: the engine acts on the file before its next I/O */
        bool fd_shared;      /* ENGINE_FILE_OPS: fd (the directory) is an earlier file's */
        const char *name;    /* ENGINE_FILE_OPS: the file's name within that directory */
        uint64_t whole;      /* the file's length when opened (0: not known) */
        uint64_t vseed;      /* verify: the writer's seed of this file (verify_seed_of()) */
        uint64_t vwrites;    /* verify: blocks written to this file, for their generation */
} wfile_t;

/* The loop's state: private to the worker thread. */
typedef struct worker_run {
        worker_t *w;
        const engine_ops_t *e;
        void *ed;
        wfile_t *files;
        unsigned nfiles, next_file;
        io_unit_t *units;
        io_unit_t **free_units; /* stack of units neither queued nor in flight */
        unsigned nfree;
        io_unit_t **pending; /* queued with the engine, not yet committed, in order */
        unsigned npending;
        io_unit_t *held;   /* prepared, refused with ENGINE_BUSY: queued again first */
        unsigned inflight; /* committed, not yet reaped */
        unsigned depth, batch, cmin, cmax;
        bool refill; /* the slots being filled were freed by a reap: submit them together */
        void *bufs;
        size_t buf_size;
        uint64_t bs[2];
        bool random, norandommap, shared_perm, mixed;
        uint8_t ddir;  /* the only direction when not mixed */
        int next_ddir; /* chosen for the next I/O, or -1 */
        uint32_t rwmixread;
        randmap_rng_t off_rng, mix_rng;
        uint64_t total;        /* bytes to issue; UINT64_MAX for time_based */
        uint64_t loop_total;   /* ... in each of fio's loops (total may end a loop early) */
        uint64_t issued_bytes; /* ramp included, as fio counts size */
        uint64_t ios_left;     /* number_ios: I/Os still to issue; UINT64_MAX without */
        iogen_t *gen;          /* NULL: the fast path below picks every offset and length */
        unsigned files_done;   /* files the generator finished with (IOGEN_LAST) */
        bool file_ops;         /* ENGINE_FILE_OPS: a file's pass begins with file_op() */
        bool nostats;          /* the engine's I/Os have no latency of their own (fake I/O) */
        bool no_clat, no_lat, no_slat; /* disable_clat, _lat, _slat (gtod_reduce: all) */
        bool paced;            /* pacing_needed(): thinktime, Poisson, minimum rates, latency */
        unsigned qd;           /* I/Os in flight at most: depth, or latency_target's depth */
        bool lat_search;       /* latency_target without latency_run: count only once found */
        uint64_t done_ios, issued_ios; /* for thinktime_blocks (ramp included, as fio) */
        pacing_t pace;
        int64_t end_ns, ramp_end_ns;
        bool counting; /* ramp_time has passed */
        bool rated;
        int64_t rate_t0;
        uint64_t rate_bytes[2], rate_ios[2];
        uint32_t fsync_every, fdatasync_every;
        uint64_t writes; /* writes issued, for fsync=/fdatasync= */
        unsigned sync_due;
        verify_kind_t verify;   /* VERIFY_NONE: the I/O path never looks at the data */
        bool invalidate_passes; /* invalidate=1 without direct: drop the cache at every pass */
        bool failed;
        int64_t now;
        buffers_t buf;     /* what writes carry (agent/buffers.c) */
        vstate_t vs;       /* verification: what writes carry, what is read back (vstate.c) */
        bool vphase;       /* reading back what the workload wrote (do_verify, verify_only) */
        bool verify_reads; /* every read is checked (a job that only reads); else read-backs */
        int coe;           /* continue_on_error's types (JOB_ERR_*), ignore_error's added */
        ignore_error_t ie; /* ignore_error's lists */
        int64_t dump_at;   /* error_dump: the last line logged, and those held back since */
        uint64_t dump_held;
        fileservice_t fsv; /* which file the next I/O goes to (agent/fileservice.c) */
        /* bwavgtime and iopsavgtime samples (none with disable_bw_measurement or gtod_reduce):
         * the next one is due at smp_due, INT64_MAX without */
        fio_sampler_t bw_smp, iops_smp;
        int64_t smp_due;
        struct rusage ru0; /* the worker thread's usage when counting began */
        fiolog_writer_t *flog; /* fio's log files of the job (write_bw_log, ...), or NULL */
} worker_run_t;

static void fail(worker_t *w, int err, const char *fmt, ...) _printf_(3, 4);
static void fail(worker_t *w, int err, const char *fmt, ...)
{
        va_list ap;
        if (w->error)
                return;
        w->error = err;
        va_start(ap, fmt);
        vsnprintf(w->errmsg, sizeof(w->errmsg), fmt, ap);
        va_end(ap);
}

static const char *file_name(const worker_run_t *s, unsigned i)
{
        const char *p = s->w->files[i].path;
        return p ? p : "(null)";
}

/* --- the I/O path --------------------------------------------------------------------------- */

static inline bool stopped(const worker_run_t *s)
{
        return __atomic_load_n(s->w->stop, __ATOMIC_RELAXED);
}

static inline bool can_issue(const worker_run_t *s, int64_t now)
{
        return !s->failed && now < s->end_ns && s->issued_bytes < s->total && s->ios_left &&
               !stopped(s);
}

/* When the next bw or IOPS sample is due. */
static void next_sample(worker_run_t *s)
{
        s->smp_due = s->bw_smp.due_ns < s->iops_smp.due_ns ? s->bw_smp.due_ns : s->iops_smp.due_ns;
}

/* bwavgtime / iopsavgtime: the samples due at now (fio's add_bw_samples(), add_iops_samples()). */
static void take_samples(worker_run_t *s, int64_t now)
{
        const worker_t *w = s->w;
        uint64_t bytes[2] = {w->dir[0].bytes, w->dir[1].bytes};
        uint64_t ios[2] = {w->dir[0].ios, w->dir[1].ios};

        fio_sampler_take(&s->bw_smp, now, bytes, 1024, s->w->fio.bw);
        fio_sampler_take(&s->iops_smp, now, ios, 1, s->w->fio.iops);
        next_sample(s);
}

/* fio's job statistics start with the counters: samples from now on, CPU usage from here. */
static void begin_fio_stats(worker_run_t *s, int64_t now)
{
        const job_spec_t *j = s->w->job;
        const uint64_t zero[2] = {0, 0};
        int64_t base = now;

        memset(&s->w->fio, 0, sizeof(s->w->fio));
        getrusage(RUSAGE_THREAD, &s->ru0);
        s->smp_due = INT64_MAX;
        if (j->disable_bw || j->gtod_reduce)
                return;
        /* From the instant the run's time counts from (its end is that plus runtime), so that
         * a worker that woke a little late still takes its last sample at its end. */
        if (s->ramp_end_ns <= now && now - s->ramp_end_ns < (int64_t)NSEC_PER_SEC / 10)
                base = s->ramp_end_ns;
        fio_sampler_start(&s->bw_smp, j->bwavgtime_ns, base, zero);
        fio_sampler_start(&s->iops_smp, j->iopsavgtime_ns, base, zero);
        next_sample(s);
}

static uint64_t tv_ns(const struct timeval *tv)
{
        return (uint64_t)tv->tv_sec * NSEC_PER_SEC + (uint64_t)tv->tv_usec * NSEC_PER_USEC;
}

/* ... and end with the worker's run: the last sample if due, the thread's usage since the
 * start (fio's update_rusage_stat(), per thread), and what a synchronous loop never marks: each
 * of its I/Os went alone, at depth 1, in a submission and a completion of its own. */
static void end_fio_stats(worker_run_t *s, int64_t now)
{
        worker_t *w = s->w;
        fio_job_stats_t *f = &w->fio;
        struct rusage ru;

        if (!s->counting)
                return;
        if (now >= s->smp_due)
                take_samples(s, now);
        if (getrusage(RUSAGE_THREAD, &ru) == 0) {
                f->usr_ns = tv_ns(&ru.ru_utime) - tv_ns(&s->ru0.ru_utime);
                f->sys_ns = tv_ns(&ru.ru_stime) - tv_ns(&s->ru0.ru_stime);
                f->ctx =
                    (uint64_t)(ru.ru_nvcsw + ru.ru_nivcsw - s->ru0.ru_nvcsw - s->ru0.ru_nivcsw);
                f->majf = (uint64_t)(ru.ru_majflt - s->ru0.ru_majflt);
                f->minf = (uint64_t)(ru.ru_minflt - s->ru0.ru_minflt);
        }
        if (w->measure_mono && now > w->measure_mono)
                f->run_ns = (uint64_t)(now - w->measure_mono);
        f->latency_depth = s->pace.lat_target ? s->qd : w->job->iodepth;
        if (w->sync_engine && w->job->io_submit_mode != SUBMIT_OFFLOAD) {
                uint64_t n = w->dir[0].issued + w->dir[1].issued;
                f->depth[0] += n;
                f->submit[fio_batch_bucket(1)] += n;
                f->complete[fio_batch_bucket(1)] += n;
                f->total_submit += n;
                f->total_complete += n;
        }
}

/* An asynchronous submission of nr I/Os with depth of them queued or in flight (fio's
 * io_u_mark_depth() and io_u_mark_submit()), and a reap of nr completions. */
static inline void mark_submit(worker_run_t *s, unsigned depth, unsigned nr)
{
        fio_job_stats_t *f = &s->w->fio;
        f->depth[fio_depth_bucket(depth)] += nr;
        f->submit[fio_batch_bucket(nr)]++;
        f->total_submit++;
}

static inline void mark_complete(worker_run_t *s, unsigned nr)
{
        s->w->fio.complete[fio_batch_bucket(nr)]++;
        s->w->fio.total_complete++;
}

/* Ramp is over: counters grow from here, and rate pacing starts afresh, as fio resets both;
 * counting starts at now, the job's time (and its logs' epoch) at measure. */
static void begin_counting_from(worker_run_t *s, int64_t now, int64_t measure)
{
        s->counting = true;
        begin_fio_stats(s, now);
        s->rate_t0 = now;
        memset(s->rate_bytes, 0, sizeof(s->rate_bytes));
        memset(s->rate_ios, 0, sizeof(s->rate_ios));
        if (unlikely(s->paced))
                pacing_restart(&s->pace, now);
        __atomic_store_n(&s->w->measure_mono, measure, __ATOMIC_RELAXED);
        /* fio's logs count their time from there too (its epoch, reset after the ramp) */
        if (unlikely(s->flog))
                fiolog_writer_start(s->flog, measure);
}

/* ... the job's time measured from the end of the ramp (or the wake-up, when the worker woke
 * after it). */
static void begin_counting(worker_run_t *s, int64_t now)
{
        begin_counting_from(s, now,
                            s->ramp_end_ns > s->w->wake_mono ? s->ramp_end_ns : s->w->wake_mono);
}

static inline unsigned pick_ddir(worker_run_t *s)
{
        if (s->next_ddir >= 0)
                return (unsigned)s->next_ddir;
        if (unlikely(s->vphase || vstate_backlog_due(&s->vs)))
                s->next_ddir = DDIR_READ; /* reading back what was written */
        else if (!s->mixed)
                s->next_ddir = s->ddir;
        else
                /* Decided per I/O from the job's own stream, so a mix repeats with the seed. */
                s->next_ddir =
                    randmap_rng_below(&s->mix_rng, 100) < s->rwmixread ? DDIR_READ : DDIR_WRITE;
        return (unsigned)s->next_ddir;
}

/* Earliest instant the next I/O of ddir may start under rate / rate_iops (per clone, as fio). */
static int64_t rate_due(const worker_run_t *s, unsigned ddir)
{
        const job_spec_t *j = s->w->job;
        int64_t t = INT64_MIN;
        if (unlikely(s->pace.poisson))
                return pacing_poisson_due(&s->pace, ddir);
        if (j->rate[ddir])
                t = s->rate_t0 + (int64_t)((unsigned __int128)s->rate_bytes[ddir] * NSEC_PER_SEC /
                                           j->rate[ddir]);
        if (j->rate_iops[ddir]) {
                int64_t u = s->rate_t0 + (int64_t)((unsigned __int128)s->rate_ios[ddir] *
                                                   NSEC_PER_SEC / j->rate_iops[ddir]);
                if (u > t)
                        t = u;
        }
        return t;
}

/* Whether the loop goes on: can_issue(), or an I/O the engine refused as busy (already counted
 * against the budget) still waits to go. */
static inline bool more(const worker_run_t *s, int64_t now)
{
        return s->held ? !s->failed && now < s->end_ns && !stopped(s) : can_issue(s, now);
}

/* Under rate limits: 0 when an I/O may go now (*ddir possibly switched to the other direction,
 * which is behind its own rate, as fio's rate_ddir does), else the instant to sleep until (and
 * *ddir the direction due first). */
static int64_t rate_wait(worker_run_t *s, unsigned *ddir, int64_t now)
{
        unsigned o = *ddir ^ 1;
        int64_t due = rate_due(s, *ddir), odue;
        if (due <= now)
                return 0;
        if (!s->mixed || (o == DDIR_READ ? s->rwmixread == 0 : s->rwmixread >= 100))
                return due;
        odue = rate_due(s, o);
        if (odue <= now) {
                *ddir = o;
                s->next_ddir = (int)o;
                return 0;
        }
        if (odue < due) {
                *ddir = o;
                s->next_ddir = (int)o;
                return odue;
        }
        return due;
}

/* Sleeps until t (absolute, CLOCK_MONOTONIC) without spinning, in slices so that a stop and the
 * job's end cut it short. Returns the clock at wake-up. */
static int64_t sleep_until(const worker_run_t *s, int64_t t)
{
        int64_t now = clock_mono_ns();
        if (t > s->end_ns)
                t = s->end_ns;
        while (now < t && !stopped(s)) {
                int64_t until = t - now > WAIT_SLICE_NS ? now + WAIT_SLICE_NS : t;
                struct timespec ts = {.tv_sec = until / (int64_t)NSEC_PER_SEC,
                                      .tv_nsec = until % (int64_t)NSEC_PER_SEC};
                clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
                now = clock_mono_ns();
        }
        return now;
}

/* A read of the next block to read back (verify_backlog, or the phase after the writes): true
 * when there is one. The phase's reads count towards its total, the backlog's do not. */
static bool prep_readback(worker_run_t *s, io_unit_t *io)
{
        unsigned fi;
        uint64_t off;

        if (!vstate_next(&s->vs, s->vphase, &fi, &off))
                return false;
        io->fd = s->files[fi].fd;
        io->file = fi;
        io->ddir = DDIR_READ;
        io->offset = off;
        io->len = s->vs.bs;
        io->counted = s->counting;
        io->readback = true;
        if (s->vphase)
                s->issued_bytes += io->len;
        s->next_ddir = -1;
        return true;
}

/* Picks the next I/O's file, offset and length: files in turn (fio's roundrobin), sequential
 * blocks per direction, or random ones from the map or, with norandommap, uniform. */
static inline void prep_io(worker_run_t *s, io_unit_t *io, unsigned ddir)
{
        unsigned fi = s->next_file;
        wfile_t *f = &s->files[fi];
        uint64_t blk, bs = s->bs[ddir];
        bool pass_done;

        io->readback = false;
        if (unlikely(ddir == DDIR_READ && (s->vphase || vstate_backlog_due(&s->vs)))) {
                if (prep_readback(s, io))
                        return;
                /* nothing left to read back: the workload's own I/O */
                ddir = s->mixed || !worker_rw_writes(s->w->job->rw) ? DDIR_READ : DDIR_WRITE;
                bs = s->bs[ddir];
        }
        if (unlikely(s->gen)) {
                /* mixed block sizes, holes, skewed or fio-seeded offsets (agent/iogen.c) */
                uint64_t off;
                int r = iogen_next(s->gen, fi, ddir, &off, &bs);
                pass_done = r == IOGEN_PASS_END;
                io->offset = off;
                if (unlikely(r == IOGEN_LAST) && ++s->files_done == s->nfiles)
                        /* every file is done (fio's holes past the region): this is the last */
                        s->total = s->issued_bytes + bs;
        } else {
                if (!s->random) {
                        blk = f->seq[ddir];
                        if (++f->seq[ddir] == f->nblocks[ddir])
                                f->seq[ddir] = 0;
                } else if (s->norandommap)
                        blk = randmap_rng_below(&s->off_rng, f->nblocks[ddir]);
                else
                        blk = randmap_next(&f->perm[s->shared_perm ? s->ddir : ddir]);
                pass_done = ++f->in_pass == f->nblocks[ddir];
                io->offset = f->base + blk * bs;
        }
        /* fio closes and reopens a file at each pass over it, invalidating its cache again:
         * without that a time_based job would read a small file from memory after one pass.
         * The drop waits for the next pass (pass_start()): done now, it would also drop what
         * readahead brought in for this pass's blocks not yet read. The file operation engines
         * act on the file again there, as fio's reopen does. */
        if (unlikely(pass_done)) {
                f->in_pass = 0;
                f->inval_due = s->invalidate_passes;
                f->op_due = s->file_ops;
        }
        s->ios_left--;
        /* fio's file_service_type over openfiles; roundrobin:1 costs an increment */
        if (likely(s->fsv.simple)) {
                if (++s->next_file == s->nfiles)
                        s->next_file = 0;
        } else {
                fileservice_next(&s->fsv, pass_done);
                s->next_file = s->fsv.cur;
        }
        io->fd = f->fd;
        io->file = fi;
        io->ddir = (uint8_t)ddir;
        /* A mixed size-bound job whose directions differ in bs ends on a partial block. */
        io->len = unlikely(s->total - s->issued_bytes < bs) ? s->total - s->issued_bytes : bs;
        io->counted = s->counting;
        s->issued_bytes += io->len;
        s->next_ddir = -1;
        if (s->rated) {
                s->rate_bytes[ddir] += io->len;
                s->rate_ios[ddir]++;
                if (unlikely(s->pace.poisson))
                        pacing_poisson_next(&s->pace, ddir);
        }
        s->issued_ios++;
        if (ddir == DDIR_WRITE) {
                f->dirty = f->written = true;
                if (unlikely(s->verify) && io->len >= VERIFY_MIN_LEN)
                        /* Generation = the pass over the file's blocks, from 1: readers accept
                         * any generation >= 1, so overwrites within a job need no more. */
                        vstate_fill(&s->vs, io->buf, io->len, io->offset,
                                    1 + f->vwrites++ / f->nblocks[DDIR_WRITE], f->vseed);
                else
                        buffers_prep_write(&s->buf, io->buf, io->len, io->offset);
                s->writes++;
                if (s->fsync_every && s->writes % s->fsync_every == 0)
                        s->sync_due |= SYNC_FSYNC;
                if (s->fdatasync_every && s->writes % s->fdatasync_every == 0)
                        s->sync_due |= SYNC_FDATASYNC;
        }
}

/* A new pass over file f begins (inval_due): drop its cached pages, as fio's reopen with
 * invalidate=1 does. Its earlier I/Os must be over first (callers see to it), as fio finishes
 * everything in flight before it closes and reopens the files: a drop while they run, or before
 * they are submitted, would throw away pages they are about to read and read them again. */
static void pass_start(wfile_t *f)
{
        f->inval_due = false;
        posix_fadvise(f->fd, 0, 0, POSIX_FADV_DONTNEED);
}

/* A unit goes back to the free stack: the async loop's I/O on its file is over. */
static inline void release(worker_run_t *s, io_unit_t *io)
{
        if (unlikely(s->invalidate_passes))
                s->files[io->file].outstanding--;
        s->free_units[s->nfree++] = io;
}

/* fio's continue_on_error and ignore_error: whether error e of type (0 read, 1 write, 2 verify)
 * lets the job go on. The type must be one continue_on_error names (or one ignore_error gives a
 * list for), and e in that list (by default fio's non-fatal EIO and EILSEQ). */
static bool nonfatal(const worker_run_t *s, int type, int e)
{
        if (!(s->coe & (1 << type)))
                return false;
        if (s->ie.n[type])
                return ignore_error_has(&s->ie, type, e);
        return e == EIO || e == EILSEQ;
}

/* A non-fatal error: counted as fio's total_err (the direction's errors), the first one kept as
 * fio's first_error; with error_dump each is logged, at most one line a second. */
static void nonfatal_seen(worker_run_t *s, int e, const char *what, uint64_t len, uint64_t offset,
                          unsigned file)
{
        worker_t *w = s->w;
        int64_t now;

        if (!w->first_error) {
                w->first_error = e;
                w->error_offset = offset;
        }
        w->nonfatal_errors++;
        if (!w->job->error_dump)
                return;
        now = clock_mono_ns();
        if (now - s->dump_at < (int64_t)NSEC_PER_SEC) {
                s->dump_held++;
                return;
        }
        log_warning("job %s: %s of %llu bytes at offset %llu of %s: %s (continue_on_error: going "
                    "on%s%llu more since the last line)",
                    w->job->name, what, (unsigned long long)len, (unsigned long long)offset,
                    file_name(s, file), strerror(e), s->dump_held ? "; " : "",
                    (unsigned long long)s->dump_held);
        s->dump_at = now;
        s->dump_held = 0;
}

static void io_failed(worker_run_t *s, const io_unit_t *io)
{
        worker_t *w = s->w;
        worker_dir_t *d = &w->dir[io->ddir];
        int e = io->result < 0 ? (int)-io->result : EIO;

        STAT_ADD(d->errors, 1);
        if (!io->counted)
                STAT_ADD(d->issued, 1); /* failed in ramp: still accounted for */
        if (unlikely(s->coe) && nonfatal(s, io->ddir == DDIR_WRITE ? 1 : 0, e)) {
                nonfatal_seen(s, e, io->ddir == DDIR_WRITE ? "write" : "read", io->len,
                              io->offset, io->file);
                return;
        }
        if (!w->error)
                w->error_offset = io->offset;
        fail(w, e, "%s of %llu bytes at offset %llu of %s: %s",
             io->ddir == DDIR_WRITE ? "write" : "read", (unsigned long long)io->len,
             (unsigned long long)io->offset, file_name(s, io->file),
             io->result == 0 ? "unexpected end of file" : strerror(e));
        /* fio's default continue_on_error=none: the job stops. */
        s->failed = true;
}

/* Checks a block read in full against what the writer's scheme says is there. A bad block counts
 * as an error of the read (not in ios or bytes, so issued = ios + errors + dropped still holds)
 * and in verify_errors; the first description goes to errmsg; verify_fatal ends the job. Returns
 * whether the block is good. */
static bool verify_read(worker_run_t *s, const io_unit_t *io)
{
        worker_t *w = s->w;
        worker_dir_t *d = &w->dir[io->ddir];
        verify_result_t res;
        int r = vstate_check(&s->vs, io->buf, io->len, io->offset, s->files[io->file].vseed,
                             &res);

        if (r == VERIFY_OK)
                return true;
        STAT_ADD(d->errors, 1);
        STAT_ADD(d->verify_errors, 1);
        if (!io->counted)
                STAT_ADD(d->issued, 1);
        if (unlikely(s->coe) && r > 0 && nonfatal(s, 2, EILSEQ)) {
                nonfatal_seen(s, EILSEQ, "verify", io->len, io->offset, io->file);
                return false;
        }
        if (!w->error)
                w->error_offset = io->offset;
        if (r < 0)
                fail(w, -r, "verify: cannot check %llu bytes at offset %llu of %s: %s",
                     (unsigned long long)io->len, (unsigned long long)io->offset,
                     file_name(s, io->file), strerror(-r));
        else
                fail(w, EILSEQ, "%s (%s)", res.description, file_name(s, io->file));
        if (w->job->verify_fatal)
                s->failed = true;
        return false;
}

/* A completion under pacing: thinktime's count, max_latency (an I/O slower than it ends the job
 * with ETIMEDOUT, as fio's lat_fatal()) and latency_target's sample. */
static void paced_completion(worker_run_t *s, const io_unit_t *io, int64_t now)
{
        worker_t *w = s->w;
        uint64_t lat = (uint64_t)(now - io->start_ns);
        int r;

        s->done_ios++;
        if (!io->counted && !s->lat_search)
                return;
        if (s->pace.max_lat[io->ddir] && lat > s->pace.max_lat[io->ddir] && io->counted) {
                if (!w->error)
                        w->error_offset = io->offset;
                fail(w, ETIMEDOUT,
                     "max_latency: a %s of %llu bytes at offset %llu of %s took %llu us, more "
                     "than %llu us",
                     io->ddir == DDIR_WRITE ? "write" : "read", (unsigned long long)io->len,
                     (unsigned long long)io->offset, file_name(s, io->file),
                     (unsigned long long)(lat / NSEC_PER_USEC),
                     (unsigned long long)(s->pace.max_lat[io->ddir] / NSEC_PER_USEC));
                s->failed = true;
                return;
        }
        if (now < s->ramp_end_ns)
                return;
        r = pacing_lat_sample(&s->pace, lat, now);
        if (r == PACING_LAT_DOWN)
                s->qd = s->pace.qd;
        else if (r == PACING_LAT_FATAL) {
                fail(w, ETIMEDOUT,
                     "latency_target: a %s took %llu us at queue depth 1, more than the "
                     "target %llu us",
                     io->ddir == DDIR_WRITE ? "write" : "read",
                     (unsigned long long)(lat / NSEC_PER_USEC),
                     (unsigned long long)(s->pace.lat_target / NSEC_PER_USEC));
                s->failed = true;
        }
}

/* Accounts one completion at now. */
static inline void complete(worker_run_t *s, io_unit_t *io, int64_t now, bool with_lat)
{
        worker_dir_t *d = &s->w->dir[io->ddir];
        int64_t res = io->result;

        if (unlikely(s->verify)) {
                if (io->ddir == DDIR_READ && res == (int64_t)io->len &&
                    (io->readback || s->verify_reads) && io->len >= VERIFY_MIN_LEN &&
                    !verify_read(s, io))
                        return;
                if (io->ddir == DDIR_WRITE && res == (int64_t)io->len && s->vs.readback)
                        vstate_written(&s->vs, io->file, io->offset, io->len);
        }
        if (unlikely(res != (int64_t)io->len)) {
                if (res <= 0) {
                        io_failed(s, io);
                        return;
                }
                if (io->counted)
                        STAT_ADD(d->short_ios, 1);
        }
        if (unlikely(s->paced))
                paced_completion(s, io, now);
        if (!io->counted)
                return;
        STAT_ADD(d->bytes, (uint64_t)res);
        STAT_ADD(d->ios, 1);
        if (unlikely(now >= s->smp_due))
                take_samples(s, now);
        if (unlikely(s->nostats))
                return;
        if (likely(!s->no_clat))
                hist_record(&d->clat, (uint64_t)(now - io->issue_ns));
        if (with_lat && likely(!s->no_lat))
                hist_record(&d->lat, (uint64_t)(now - io->start_ns));
        if (unlikely(s->flog))
                fiolog_writer_io(s->flog, io->ddir, (uint64_t)res, io->offset,
                                 (uint64_t)(now - io->issue_ns),
                                 (uint64_t)(now - (with_lat ? io->start_ns : io->issue_ns)), now);
}

/* ENGINE_FILE_OPS: the engine's operation on file f (a pass over it begins), timed as the job's
 * completion latency (fio records it with add_clat_sample() in the engine's open_file()). A
 * failure ends the job, as a failed I/O does. Returns the clock after it. */
static int64_t file_op(worker_run_t *s, wfile_t *f, unsigned fi)
{
        worker_t *w = s->w;
        unsigned ddir = worker_rw_reads(w->job->rw) ? DDIR_READ : DDIR_WRITE;
        int64_t t0 = clock_mono_ns(), t1;
        int r = s->e->file_op(s->ed, f->fd, f->name);

        t1 = clock_mono_ns();
        f->op_due = false;
        if (r < 0) {
                fail(w, -r, "ioengine=%s: %s: %s", s->e->name, file_name(s, fi), strerror(-r));
                s->failed = true;
        } else if (s->counting) {
                if (!s->no_clat)
                        hist_record(&w->dir[ddir].clat, (uint64_t)(t1 - t0));
                if (!s->no_lat)
                        hist_record(&w->dir[ddir].lat, (uint64_t)(t1 - t0));
                if (s->flog)
                        fiolog_writer_clat(s->flog, ddir, (uint64_t)(t1 - t0), t1);
        }
        return t1;
}

static int64_t do_syncs(worker_run_t *s)
{
        worker_t *w = s->w;
        unsigned what = s->sync_due;
        int64_t now = clock_mono_ns();

        s->sync_due = 0;
        for (unsigned i = 0; i < s->nfiles && !s->failed; i++) {
                wfile_t *f = &s->files[i];
                if (!f->dirty)
                        continue;
                f->dirty = false;
                for (unsigned kind = SYNC_FSYNC; kind <= SYNC_FDATASYNC; kind <<= 1) {
                        int64_t t0 = now;
                        if (!(what & kind))
                                continue;
                        if (s->e->sync && (s->e->flags & ENGINE_OWN_FILES)) {
                                char err[256];
                                int r = s->e->sync(s->ed, i, kind == SYNC_FDATASYNC, err,
                                                   sizeof(err));
                                if (r < 0) {
                                        fail(w, -r, "%s of %s: %s",
                                             kind == SYNC_FSYNC ? "fsync" : "fdatasync",
                                             file_name(s, i), err);
                                        s->failed = true;
                                        break;
                                }
                        } else if (f->fd >= 0 &&
                                   (kind == SYNC_FSYNC ? fsync(f->fd) : fdatasync(f->fd)) < 0) {
                                fail(w, errno, "%s of %s: %s",
                                     kind == SYNC_FSYNC ? "fsync" : "fdatasync", file_name(s, i),
                                     strerror(errno));
                                s->failed = true;
                                break;
                        }
                        now = clock_mono_ns();
                        if (s->counting) {
                                STAT_ADD(w->syncs, 1);
                                hist_record(&w->sync_lat, (uint64_t)(now - t0));
                        }
                }
        }
        return now;
}

static void quiesce(worker_run_t *s, int64_t *now);

/* Spins the CPU until t or a stop (thinktime_spin: the "work" fio simulates with a busy loop). */
static int64_t spin_until(const worker_run_t *s, int64_t t)
{
        int64_t now = clock_mono_ns();
        while (now < t && now < s->end_ns && !stopped(s))
                now = clock_mono_ns();
        return now;
}

/* Before the next I/O under pacing: the minimum rates, latency_target's window, thinktime.
 * async: I/Os may be in flight (a stall or a new depth lets them finish first, as fio's
 * io_u_quiesce()). Returns true when it took time or changed what may be issued: the caller
 * looks at the clock and its limits again. */
static bool pace_before(worker_run_t *s, int64_t *now, bool async)
{
        worker_t *w = s->w;
        char err[256];

        if (s->counting && (s->pace.rate_min[0] || s->pace.rate_min[1] || s->pace.iops_min[0] ||
                            s->pace.iops_min[1])) {
                uint64_t bytes[2] = {w->dir[0].bytes, w->dir[1].bytes};
                uint64_t ios[2] = {w->dir[0].ios, w->dir[1].ios};
                if (pacing_check_min(&s->pace, bytes, ios, *now, err, sizeof(err)) < 0) {
                        fail(w, EIO, "%s", err);
                        s->failed = true;
                        return true;
                }
        }
        if (s->pace.lat_target && *now >= s->ramp_end_ns) {
                switch (pacing_lat_window(&s->pace, *now)) {
                case PACING_WIN_CHANGED:
                        if (async && s->pace.qd < s->qd)
                                quiesce(s, now);
                        s->qd = s->pace.qd;
                        return true;
                case PACING_WIN_FINAL:
                        /* the depth is found: one more window, counted from a clean start */
                        if (async)
                                quiesce(s, now);
                        s->qd = s->pace.qd;
                        s->lat_search = false;
                        begin_counting_from(s, *now, *now);
                        return true;
                case PACING_WIN_DONE:
                        s->end_ns = *now;
                        return true;
                default:
                        break;
                }
        }
        if (pacing_think_due(&s->pace, s->done_ios, s->issued_ios, *now)) {
                if (async)
                        quiesce(s, now);
                *now = spin_until(s, *now + (int64_t)s->pace.spin_ns);
                *now = sleep_until(s, *now + (int64_t)(s->pace.think_ns - s->pace.spin_ns));
                pacing_think_done(&s->pace, s->done_ios, s->issued_ios, *now);
                return true;
        }
        return false;
}

/* The synchronous loop (psync; null at iodepth=1): one clock read per I/O, whose reading is both
 * this I/O's completion and the next one's start. */
static void run_sync(worker_run_t *s)
{
        worker_t *w = s->w;
        io_unit_t *io = &s->units[0];
        int64_t now = s->now;

        while (can_issue(s, now)) {
                unsigned ddir;
                int64_t t0;
                int r;

                if (unlikely(!s->counting) && now >= s->ramp_end_ns && !s->lat_search)
                        begin_counting(s, now);
                if (unlikely(s->paced) && pace_before(s, &now, false))
                        continue;
                ddir = pick_ddir(s);
                if (unlikely(s->rated)) {
                        int64_t due = rate_wait(s, &ddir, now);
                        if (due) {
                                now = sleep_until(s, due);
                                continue;
                        }
                }
                if (unlikely(s->sync_due)) {
                        now = do_syncs(s);
                        continue;
                }
                if (unlikely(s->files[s->next_file].inval_due))
                        pass_start(&s->files[s->next_file]);
                if (unlikely(s->files[s->next_file].op_due)) {
                        now = file_op(s, &s->files[s->next_file], s->next_file);
                        continue;
                }
                prep_io(s, io, ddir);
                if (io->counted)
                        STAT_ADD(w->dir[ddir].issued, 1);
                t0 = now;
                r = s->e->queue(s->ed, io);
                if (unlikely(r < 0))
                        io->result = r;
                now = clock_mono_ns();
                io->start_ns = io->issue_ns = t0;
                complete(s, io, now, false);
        }
        s->now = now;
}

/* Submits what is queued; stamps each submitted I/O's issue time and slat. */
static int commit(worker_run_t *s, int64_t *now);

/* Reaps between min and max completions; accounts each. Returns how many, or -errno. */
static int reap(worker_run_t *s, unsigned min, unsigned max, int64_t timeout_ns, int64_t *now)
{
        int n = s->e->getevents(s->ed, min, max, timeout_ns);
        int64_t t;

        if (unlikely(n < 0)) {
                fail(s->w, -n, "%s: waiting for completions: %s", s->e->name, strerror(-n));
                s->failed = true;
                return n;
        }
        if (!n)
                return 0;
        t = clock_mono_ns();
        *now = t;
        if (s->counting)
                mark_complete(s, (unsigned)n);
        for (int i = 0; i < n; i++) {
                io_unit_t *io = s->e->event(s->ed, (unsigned)i);
                s->inflight--;
                complete(s, io, t, true);
                release(s, io);
        }
        return n;
}

static int commit(worker_run_t *s, int64_t *now)
{
        while (s->npending) {
                int r = s->e->commit(s->ed);
                int64_t t;
                if (r == 0)
                        r = -EAGAIN;
                if (r == -EAGAIN && s->inflight) {
                        /* Out of kernel resources for now: make room, then submit again. */
                        if (stopped(s))
                                return -ECANCELED;
                        if (reap(s, 1, s->cmax, WAIT_SLICE_NS, now) < 0)
                                return -EIO;
                        continue;
                }
                if (r < 0) {
                        io_unit_t *io = s->pending[0];
                        if (!s->w->error)
                                s->w->error_offset = io->offset;
                        fail(s->w, -r, "%s: submitting a %s at offset %llu of %s: %s", s->e->name,
                             io->ddir == DDIR_WRITE ? "write" : "read",
                             (unsigned long long)io->offset, file_name(s, io->file), strerror(-r));
                        s->failed = true;
                        return r;
                }
                t = clock_mono_ns();
                *now = t;
                if (s->counting)
                        mark_submit(s, s->inflight + s->npending, (unsigned)r);
                for (int i = 0; i < r; i++) {
                        io_unit_t *io = s->pending[i];
                        io->issue_ns = t;
                        if (io->counted) {
                                worker_dir_t *d = &s->w->dir[io->ddir];
                                STAT_ADD(d->issued, 1);
                                if (likely(!s->no_slat))
                                        hist_record(&d->slat, (uint64_t)(t - io->start_ns));
                                if (unlikely(s->flog))
                                        fiolog_writer_slat(s->flog, io->ddir, io->len, io->offset,
                                                           (uint64_t)(t - io->start_ns), t);
                        }
                }
                s->inflight += (unsigned)r;
                s->npending -= (unsigned)r;
                if (s->npending)
                        memmove(s->pending, s->pending + r, s->npending * sizeof(*s->pending));
        }
        return 0;
}

/* Commits what is queued and waits for everything in flight, unless a stop comes first. */
static void quiesce(worker_run_t *s, int64_t *now)
{
        if (s->npending && commit(s, now) < 0)
                return;
        while (s->inflight && !stopped(s))
                if (reap(s, s->inflight, s->inflight, WAIT_SLICE_NS, now) < 0)
                        return;
}

/* Queues one I/O. 1 queued, 0 nothing queued (it slept for the rate, or synced), -1 stop
 * filling (the engine is busy, or the job failed). */
static int issue_one(worker_run_t *s, int64_t *now)
{
        io_unit_t *io;
        int r;

        if (s->held) {
                io = s->held;
                s->held = NULL;
        } else {
                unsigned ddir;
                if (unlikely(!s->counting) && *now >= s->ramp_end_ns && !s->lat_search)
                        begin_counting(s, *now);
                if (unlikely(s->paced) && pace_before(s, now, true))
                        return 0;
                ddir = pick_ddir(s);
                if (unlikely(s->rated)) {
                        int64_t due = rate_wait(s, &ddir, *now);
                        if (due) {
                                /* As fio: let what is in flight finish before sleeping, so a
                                 * paced job's completion latencies are not its sleeps. */
                                quiesce(s, now);
                                *now = sleep_until(s, due);
                                return 0;
                        }
                }
                if (unlikely(s->sync_due)) {
                        quiesce(s, now);
                        if (s->inflight)
                                return -1;
                        *now = do_syncs(s);
                        return 0;
                }
                if (unlikely(s->files[s->next_file].inval_due)) {
                        wfile_t *f = &s->files[s->next_file];
                        if (f->outstanding) {
                                quiesce(s, now);
                                if (f->outstanding)
                                        return -1;
                        }
                        pass_start(f);
                }
                io = s->free_units[--s->nfree];
                prep_io(s, io, ddir);
                if (unlikely(s->invalidate_passes))
                        s->files[io->file].outstanding++;
                io->start_ns = *now;
        }
        r = s->e->queue(s->ed, io);
        if (likely(r == ENGINE_QUEUED)) {
                s->pending[s->npending++] = io;
                if (!s->refill && s->npending >= s->batch && commit(s, now) < 0)
                        return -1;
                return 1;
        }
        if (r == ENGINE_BUSY) {
                s->held = io;
                return -1;
        }
        if (r == ENGINE_COMPLETED) {
                *now = clock_mono_ns();
                io->issue_ns = *now;
                if (io->counted) {
                        mark_submit(s, s->inflight + s->npending + 1, 1);
                        mark_complete(s, 1);
                        STAT_ADD(s->w->dir[io->ddir].issued, 1);
                        if (likely(!s->no_slat))
                                hist_record(&s->w->dir[io->ddir].slat,
                                            (uint64_t)(*now - io->start_ns));
                        if (unlikely(s->flog))
                                fiolog_writer_slat(s->flog, io->ddir, io->len, io->offset,
                                                   (uint64_t)(*now - io->start_ns), *now);
                }
                complete(s, io, *now, true);
                release(s, io);
                return 1;
        }
        io->result = r;
        if (io->counted)
                STAT_ADD(s->w->dir[io->ddir].issued, 1);
        io_failed(s, io);
        release(s, io);
        return -1;
}

/*
 * io_submit_mode=offload: the worker paces and prepares I/Os; a pool of iodepth threads runs the
 * synchronous engine on them (agent/offload.c). A rate is kept by the clock whatever the device
 * does, and each I/O's latency counts from when it was due (slat: waiting for a pool thread), as
 * fio's offload mode intends against coordinated omission.
 */
static void run_offload(worker_run_t *s)
{
        worker_t *w = s->w;
        io_unit_t *out[GATHER_MAX];
        int64_t now = s->now, stop_seen = 0;
        offload_t *o = NULL;
        int r = offload_new(s->e, s->ed, s->depth, &o);

        if (r < 0) {
                fail(w, -r, "io_submit_mode=offload: cannot start %u threads: %s", s->depth,
                     strerror(-r));
                s->failed = true;
                return;
        }
        for (;;) {
                unsigned n;
                int64_t wait = WAIT_SLICE_NS;
                while (s->nfree && can_issue(s, now)) {
                        unsigned ddir;
                        io_unit_t *io;
                        if (unlikely(!s->counting) && now >= s->ramp_end_ns && !s->lat_search)
                                begin_counting(s, now);
                        if (unlikely(s->paced) && pace_before(s, &now, false))
                                continue;
                        ddir = pick_ddir(s);
                        if (unlikely(s->rated)) {
                                int64_t due = rate_wait(s, &ddir, now);
                                if (due) {
                                        /* keep reaping while the rate holds the next one back */
                                        wait = due - now;
                                        break;
                                }
                        }
                        if (unlikely(s->sync_due)) {
                                if (s->inflight)
                                        break; /* the syncs wait for every write before them */
                                now = do_syncs(s);
                                continue;
                        }
                        io = s->free_units[--s->nfree];
                        prep_io(s, io, ddir);
                        io->start_ns = now;
                        if (io->counted) {
                                mark_submit(s, s->inflight + 1, 1);
                                STAT_ADD(w->dir[ddir].issued, 1);
                        }
                        offload_submit(o, io);
                        s->inflight++;
                }
                if (!s->inflight && !can_issue(s, now))
                        break;
                if (s->nfree && can_issue(s, now) && wait == WAIT_SLICE_NS && !s->sync_due)
                        wait = 0;
                n = offload_reap(o, out, GATHER_MAX, wait);
                now = clock_mono_ns();
                if (n && s->counting)
                        mark_complete(s, n);
                for (unsigned i = 0; i < n; i++) {
                        io_unit_t *io = out[i];
                        s->inflight--;
                        if (io->counted && !s->no_slat)
                                hist_record(&w->dir[io->ddir].slat,
                                            (uint64_t)(io->issue_ns - io->start_ns));
                        if (io->counted && s->flog)
                                fiolog_writer_slat(s->flog, io->ddir, io->len, io->offset,
                                                   (uint64_t)(io->issue_ns - io->start_ns),
                                                   io->issue_ns);
                        complete(s, io, io->done_ns, true);
                        release(s, io);
                }
                if (stopped(s) && s->inflight) {
                        if (!stop_seen)
                                stop_seen = now;
                        else if (now - stop_seen >= DRAIN_GRACE_NS)
                                break;
                }
        }
        if (s->inflight) {
                /* pool threads stuck in the device: they keep the units and the engine's data */
                for (unsigned i = 0; i < s->depth; i++) {
                        bool idle = false;
                        for (unsigned k = 0; k < s->nfree; k++)
                                idle |= s->free_units[k] == &s->units[i];
                        if (!idle && s->units[i].counted)
                                STAT_ADD(w->dir[s->units[i].ddir].dropped, 1);
                }
                w->leaked = true;
                fail(w, ETIMEDOUT, "%u I/Os did not complete within %llds of the stop",
                     s->inflight, (long long)(DRAIN_GRACE_NS / (int64_t)NSEC_PER_SEC));
                return;
        }
        offload_destroy(&o);
        s->now = now;
}

/* Waits for the I/Os still in flight at the end. Those that complete count, as fio's; those that
 * do not within DRAIN_GRACE_NS of a stop are dropped, and their buffers are never freed. */
static void drain(worker_run_t *s, int64_t *now)
{
        int64_t stop_seen = 0;

        if (s->npending && !s->failed && !stopped(s))
                commit(s, now);
        /* Queued but never submitted (after a failure or a stop): not issued, not waited for. */
        while (s->npending)
                release(s, s->pending[--s->npending]);
        while (s->inflight) {
                if (reap(s, s->inflight, s->inflight, WAIT_SLICE_NS, now) < 0)
                        break;
                if (stopped(s)) {
                        if (!stop_seen)
                                stop_seen = *now;
                        else if (*now - stop_seen >= DRAIN_GRACE_NS)
                                break;
                }
        }
        if (s->inflight) {
                /* In flight: the units that are not free. */
                bool *idle = calloc(s->depth, sizeof(*idle));
                for (unsigned i = 0; idle && i < s->nfree; i++)
                        idle[s->free_units[i]->index] = true;
                for (unsigned i = 0; idle && i < s->depth; i++)
                        if (!idle[i] && s->units[i].counted)
                                STAT_ADD(s->w->dir[s->units[i].ddir].dropped, 1);
                free(idle);
                s->w->leaked = true;
                fail(s->w, ETIMEDOUT, "%u I/Os did not complete within %llds of the stop",
                     s->inflight, (long long)(DRAIN_GRACE_NS / (int64_t)NSEC_PER_SEC));
        }
}

/*
 * The asynchronous loop, as fio's: queue until iodepth I/Os are queued or in flight, submitting
 * whenever iodepth_batch_submit are queued; when full, reap iodepth_batch_complete_min (at least
 * one, and no more: fio's iodepth_batch_complete_max defaults to the min); what is queued is
 * submitted before waiting, as fio commits before it waits; at the end, wait for what is in
 * flight. After a reap, the slots it freed are refilled and, while the engine already holds
 * iodepth_batch_complete_min more completions in user space (its ring: no system call), those
 * are reaped and their slots refilled too; all of it then goes in one submission, so a fast
 * device costs one submit call per batch of completions rather than one per I/O.
 */
static void run_async(worker_run_t *s)
{
        int64_t now = s->now;

        for (;;) {
                while (s->inflight + s->npending < s->qd && more(s, now))
                        if (issue_one(s, &now) < 0)
                                break;
                /* Completions already waiting (a zero timeout: the engine takes them only when
                 * at least the minimum is there, and never enters the kernel). */
                if (s->refill && s->npending && s->npending < GATHER_MAX &&
                    s->inflight >= s->cmin && !s->held && can_issue(s, now)) {
                        int n = reap(s, s->cmin, s->cmax, 0, &now);
                        if (n < 0)
                                break;
                        if (n > 0)
                                continue;
                }
                s->refill = false;
                if (s->npending && commit(s, &now) < 0)
                        break;
                if (!more(s, now))
                        break;
                if (!s->inflight) {
                        if (s->held) {
                                fail(s->w, EIO, "%s: busy with nothing in flight", s->e->name);
                                s->failed = true;
                                break;
                        }
                        continue;
                }
                if (s->inflight + s->npending < s->qd && !s->held)
                        continue;
                if (reap(s, s->cmin < s->inflight ? s->cmin : s->inflight, s->cmax, WAIT_SLICE_NS,
                         &now) < 0)
                        break;
                s->refill = true;
        }
        if (s->held) {
                /* Prepared, never taken by the engine. */
                release(s, s->held);
                s->held = NULL;
        }
        drain(s, &now);
        s->now = now;
}

static void end_fsync(worker_run_t *s)
{
        worker_t *w = s->w;
        for (unsigned i = 0; i < s->nfiles && !s->failed; i++) {
                wfile_t *f = &s->files[i];
                if (!f->written)
                        continue;
                if (s->e->sync && (s->e->flags & ENGINE_OWN_FILES)) {
                        char err[256];
                        int r = s->e->sync(s->ed, i, false, err, sizeof(err));
                        if (r < 0) {
                                fail(w, -r, "end_fsync of %s: %s", file_name(s, i), err);
                                return;
                        }
                } else if (f->fd >= 0 && fsync(f->fd) < 0) {
                        fail(w, errno, "end_fsync of %s: %s", file_name(s, i), strerror(errno));
                        return;
                }
                STAT_ADD(w->end_syncs, 1);
        }
}

/* --- preparation ---------------------------------------------------------------------------- */

static uint64_t job_bs(const job_spec_t *j, unsigned ddir)
{
        uint64_t bs = j->bs ? j->bs : 4096;
        return ddir == DDIR_WRITE && j->bs_write ? j->bs_write : bs;
}

/* iodepth; a synchronous engine has one I/O at a time whatever the job says, as in fio. */
static unsigned job_depth(const worker_t *w)
{
        /* offload: iodepth pool threads, each with its own I/O */
        if ((w->engine->flags & ENGINE_SYNC) && w->job->io_submit_mode != SUBMIT_OFFLOAD)
                return 1;
        return w->job->iodepth ? w->job->iodepth : 1;
}

static bool job_direct(const worker_t *w)
{
        return w->job->direct && !(w->engine->flags & (ENGINE_NO_FILES | ENGINE_FILE_OPS));
}

/* Starts the engine on the run's buffers (and the open files, unless it owns its files). */
static int start_engine(worker_t *w, worker_run_t *s, const int *fds, unsigned nfds)
{
        engine_setup_t es = {
            .job = w->job,
            .depth = job_depth(w),
            .fds = fds,
            .nfds = nfds,
            .bufs = s->bufs,
            .buf_size = s->buf_size,
        };
        int r = w->engine->init(&es, &s->ed);
        if (r < 0) {
                s->ed = NULL;
                fail(w, -r, "ioengine=%s could not start: %s", w->engine->name, strerror(-r));
                return r;
        }
        w->sync_engine = r == ENGINE_INIT_SYNC || (w->engine->flags & ENGINE_SYNC);
        return 0;
}

/* ENGINE_OWN_FILES: the engine starts before layout, and lays out through open_file(). */
static int prepare_own_files(worker_t *w, worker_run_t *s)
{
        const job_spec_t *j = w->job;
        int r = start_engine(w, s, NULL, 0);

        for (size_t i = 0; r >= 0 && i < w->nfiles; i++) {
                layout_file_t *f = &w->files[i];
                engine_file_t ef = {.path = f->path,
                                    .length = f->length,
                                    .layout = true,
                                    .fill = f->fill,
                                    .readonly = j->readonly,
                                    .writes = worker_rw_writes(j->rw),
                                    .seed = w->seed ^ i,
                                    .stop = w->stop,
                                    .done = &w->laid_out};
                char err[512];
                uint64_t size;
                if (!f->owner)
                        continue;
                r = w->engine->open_file(s->ed, (unsigned)i, &ef, &size, err, sizeof(err));
                if (r < 0)
                        fail(w, -r, "%s", err);
        }
        return r;
}

/* ENGINE_DIR_LAYOUT: a directory at path (with any missing parents), made through the policy
 * and recorded as the worker's; one already there is used as it is. */
static int layout_dir(worker_t *w, const char *path)
{
        char err[512];
        int fd = -1;
        int r = policy_open(w->cfg, path, PATH_JOB_DIR, O_PATH | O_DIRECTORY | O_CREAT | O_CLOEXEC,
                            0755, &w->made, &fd, err, sizeof(err));
        if (r < 0) {
                fail(w, -r, "%s", err);
                return r;
        }
        close(fd);
        return 0;
}

/* ENGINE_FILE_OPS: f's directory opened through the policy (made when missing, for the engines
 * that lay nothing out), the name within it kept for file_op(). Files of one directory in a row
 * share the earlier file's fd. */
static int open_op_dir(worker_t *w, worker_run_t *s, unsigned i)
{
        layout_file_t *lf = &w->files[i];
        wfile_t *f = &s->files[i];
        const char *slash = strrchr(lf->path, '/');
        char dir[4096], err[512];
        size_t n;
        int r;

        if (!slash || !slash[1]) {
                fail(w, EINVAL, "ioengine=%s: %s is not a file name in a directory",
                     w->engine->name, lf->path);
                return -EINVAL;
        }
        n = slash == lf->path ? 1 : (size_t)(slash - lf->path);
        if (n >= sizeof(dir)) {
                fail(w, ENAMETOOLONG, "%s: name too long", lf->path);
                return -ENAMETOOLONG;
        }
        memcpy(dir, lf->path, n);
        dir[n] = '\0';
        f->name = slash + 1;
        f->op_due = true;
        if (i > 0 && s->files[i - 1].fd >= 0 && strncmp(w->files[i - 1].path, lf->path, n + 1) == 0 &&
            !strchr(w->files[i - 1].path + n + 1, '/')) {
                f->fd = s->files[i - 1].fd;
                f->fd_shared = true;
                return 0;
        }
        r = policy_open(w->cfg, dir, PATH_JOB_DIR,
                        O_PATH | O_DIRECTORY | O_CLOEXEC |
                            ((w->engine->flags & ENGINE_NO_LAYOUT) ? O_CREAT : 0),
                        0755, &w->made, &f->fd, err, sizeof(err));
        if (r < 0) {
                f->fd = -1;
                fail(w, -r, "%s", err);
        }
        return r;
}

uint64_t worker_layout_bytes(const worker_t *w)
{
        const job_spec_t *j = w->job;
        unsigned flags = w->engine ? w->engine->flags : ENGINE_NO_FILES;
        bool own = flags & ENGINE_OWN_FILES;
        uint64_t n = 0;

        /* as prepare() below decides what it lays out */
        if (w->md || (flags & ENGINE_NO_FILES))
                return 0;
        if (!own && ((flags & (ENGINE_NO_LAYOUT | ENGINE_DIR_LAYOUT)) || j->create_on_open))
                return 0;
        for (size_t i = 0; i < w->nfiles; i++)
                if (w->files[i].owner)
                        n += j->file_append && !own ? w->files[i].io_size : w->files[i].length;
        return n;
}

static int prepare(worker_t *w, worker_run_t *s)
{
        const job_spec_t *j = w->job;
        bool writes = worker_rw_writes(j->rw);
        unsigned depth = job_depth(w);
        uint64_t maxbs = job_spec_bs_max(j, DDIR_READ) > job_spec_bs_max(j, DDIR_WRITE)
                             ? job_spec_bs_max(j, DDIR_READ)
                             : job_spec_bs_max(j, DDIR_WRITE);
        uint64_t total;
        bool huge;
        int r;

        if (j->readonly && writes) {
                fail(w, EROFS, "readonly: rw=%s writes, and readonly forbids it",
                     rw_mode_to_string(j->rw));
                return -EROFS;
        }
        if (job_direct(w) && (job_bs(j, DDIR_READ) % SECTOR || job_bs(j, DDIR_WRITE) % SECTOR ||
                              j->offset % SECTOR)) {
                fail(w, EINVAL,
                     "direct=1: bs and offset must be multiples of %u bytes (bs=%llu,%llu "
                     "offset=%llu)",
                     SECTOR, (unsigned long long)job_bs(j, DDIR_READ),
                     (unsigned long long)job_bs(j, DDIR_WRITE), (unsigned long long)j->offset);
                return -EINVAL;
        }
        /* One buffer per I/O in flight, each aligned for O_DIRECT, contiguous so that io_uring
         * can register them at once. */
        s->buf_size = (maxbs + BUF_ALIGN - 1) / BUF_ALIGN * BUF_ALIGN;
        total = s->buf_size * depth;
        /* Large blocks on huge pages: physically contiguous, so a 1 MiB direct I/O is one
         * request rather than two split at the device's segment limit (254 pages on virtio). */
        huge = maxbs >= HUGE_MIN_BS || total >= HUGE_ALIGN;
        if (huge)
                total = (total + HUGE_ALIGN - 1) / HUGE_ALIGN * HUGE_ALIGN;
        if (posix_memalign(&s->bufs, huge ? HUGE_ALIGN : BUF_ALIGN, total) != 0) {
                s->bufs = NULL;
                fail(w, ENOMEM, "no memory for %u buffers of %llu bytes", depth,
                     (unsigned long long)maxbs);
                return -ENOMEM;
        }
        if (huge)
                madvise(s->bufs, total, MADV_HUGEPAGE);
        /* What writes carry, as the job's buffer options say (random by default, so that
         * compressing or deduplicating storage cannot flatter the figures). */
        {
                char err[512];
                uint64_t bytes = 0;
                for (size_t i = 0; i < w->nfiles; i++)
                        bytes += w->files[i].length;
                r = buffers_init(&s->buf, j, w->seed, bytes, job_bs(j, DDIR_WRITE), err,
                                 sizeof(err));
                if (r < 0) {
                        fail(w, -r, "%s", err);
                        return r;
                }
                for (unsigned i = 0; i < depth; i++)
                        buffers_fill(&s->buf, (char *)s->bufs + (size_t)i * s->buf_size,
                                     s->buf_size);
        }
        if (w->engine->flags & ENGINE_NO_FILES)
                return 0;
        if (w->engine->flags & ENGINE_OWN_FILES)
                return prepare_own_files(w, s);
        if (w->engine->flags & ENGINE_NO_LAYOUT)
                return 0;
        for (size_t i = 0; i < w->nfiles; i++) {
                layout_file_t *f = &w->files[i];
                layout_req_t req = {
                    .path = f->path,
                    .length = j->file_append ? f->io_size : f->length,
                    .reads = f->fill,
                    .writes = f->writes,
                    .overwrite = j->overwrite,
                    .append = j->file_append,
                    .direct = job_direct(w),
                    .readonly = j->readonly || j->verify_only,
                    .allow_create = j->allow_file_create,
                    .fsync = j->create_fsync,
                    .fallocate = j->fallocate,
                    .seed = w->seed ^ i,
                    .content = &s->buf,
                    .bs = job_bs(j, DDIR_WRITE),
                    .stop = w->stop,
                    .undo = &w->made,
                    .done = &w->laid_out,
                };
                char err[512];
                if (!f->owner)
                        continue;
                if (w->engine->flags & ENGINE_DIR_LAYOUT) {
                        if ((r = layout_dir(w, f->path)) < 0)
                                return r;
                        continue;
                }
                /* create_on_open: nothing made now, the job's open creates its files */
                if (j->create_on_open)
                        continue;
                r = layout_file(w->cfg, &req, &f->base, err, sizeof(err));
                if (r < 0) {
                        fail(w, -r, "%s", err);
                        return r;
                }
        }
        return 0;
}

/* The region of a file used as it is (no size given, or size=N%), now that its size is known:
 * from offset (plus offset_increment's share of it for this clone) to the end, or N percent of
 * that, in whole smallest blocks. */
static int size_existing(worker_t *w, layout_file_t *lf, uint64_t size)
{
        const job_spec_t *j = w->job;
        uint64_t minbs = job_spec_bs_min(j, DDIR_READ) < job_spec_bs_min(j, DDIR_WRITE)
                             ? job_spec_bs_min(j, DDIR_READ)
                             : job_spec_bs_min(j, DDIR_WRITE);

        if (j->offset_increment_percent)
                lf->base = j->offset + job_spec_clone_shift(j, w->clone, size);
        if (size <= lf->base) {
                fail(w, EINVAL,
                     "size: %s holds %llu bytes, nothing past offset=%llu; give size= to lay it "
                     "out",
                     lf->path, (unsigned long long)size, (unsigned long long)lf->base);
                return -EINVAL;
        }
        lf->io_size = size - lf->base;
        if (j->size_percent) {
                lf->io_size = (uint64_t)((unsigned __int128)lf->io_size * j->size_percent / 100);
                lf->io_size -= lf->io_size % minbs;
                if (!lf->io_size) {
                        fail(w, EINVAL, "size: %u%% of the %llu bytes of %s is less than a block",
                             (unsigned)j->size_percent, (unsigned long long)(size - lf->base),
                             lf->path);
                        return -EINVAL;
                }
        }
        return 0;
}

/* fio's fadvise_hint: by default the access pattern, so a random job gets no readahead (which
 * would turn its reads into cache hits); or the hint given; or none. */
static void fadvise(const job_spec_t *j, int fd)
{
        int advice;

        switch (j->fadvise_hint) {
        case JOB_FADVISE_NONE:
                return;
        case JOB_FADVISE_SEQUENTIAL:
                advice = POSIX_FADV_SEQUENTIAL;
                break;
        case JOB_FADVISE_RANDOM:
                advice = POSIX_FADV_RANDOM;
                break;
        default:
                advice = rw_mode_is_random(j->rw) ? POSIX_FADV_RANDOM : POSIX_FADV_SEQUENTIAL;
        }
        posix_fadvise(fd, 0, 0, advice);
}

/* fio's pre_read: the file's region read once before the start, so that the job finds it in
 * the page cache. */
static int pre_read(worker_t *w, int fd, const layout_file_t *lf)
{
        uint64_t end = lf->base + lf->io_size;
        _cleanup_(freep) char *buf = malloc(1u << 20);

        if (!buf) {
                fail(w, ENOMEM, "pre_read: no memory");
                return -ENOMEM;
        }
        for (uint64_t off = lf->base; off < end;) {
                size_t n = end - off < (1u << 20) ? (size_t)(end - off) : (1u << 20);
                ssize_t got = pread(fd, buf, n, (off_t)off);
                if (got < 0 && errno == EINTR)
                        continue;
                if (got < 0) {
                        fail(w, errno, "pre_read of %s: %s", lf->path, strerror(errno));
                        return -errno;
                }
                if (got == 0 || __atomic_load_n(w->stop, __ATOMIC_RELAXED))
                        break;
                off += (uint64_t)got;
        }
        return 0;
}

/* disk_util: the device a file of the worker is on, for the agent's disk statistics. */
static void note_device(worker_t *w, const struct stat *st)
{
        uint64_t dev = (uint64_t)st->st_dev;

        if (!w->job->disk_util || w->ndevs == WORKER_MAX_DEVS)
                return;
        for (unsigned i = 0; i < w->ndevs; i++)
                if (w->devs[i] == dev)
                        return;
        w->devs[w->ndevs++] = dev;
}

/* Opens the files (after every worker laid out its own), sizes regions of existing files, drops
 * their cached pages when invalidate=1, and sets the loop's per-file state. */
static int open_files(worker_t *w, worker_run_t *s)
{
        const job_spec_t *j = w->job;
        bool no_files = w->engine->flags & ENGINE_NO_FILES;
        int flags = (worker_rw_writes(j->rw) || (w->engine->flags & ENGINE_RDWR) ? O_RDWR
                                                                                : O_RDONLY) |
                    O_CLOEXEC | (job_direct(w) ? O_DIRECT : 0);

        s->nfiles = (unsigned)w->nfiles;
        s->files = calloc(s->nfiles, sizeof(*s->files));
        if (!s->files) {
                fail(w, ENOMEM, "no memory for %u files", s->nfiles);
                return -ENOMEM;
        }
        for (unsigned i = 0; i < s->nfiles; i++)
                s->files[i].fd = -1;
        for (unsigned i = 0; i < s->nfiles; i++) {
                layout_file_t *lf = &w->files[i];
                wfile_t *f = &s->files[i];
                int r;

                f->base = lf->base;
                if (no_files)
                        continue;
                if (w->engine->flags & ENGINE_FILE_OPS) {
                        if ((r = open_op_dir(w, s, i)) < 0)
                                return r;
                        continue;
                }
                if (w->engine->flags & ENGINE_OWN_FILES) {
                        engine_file_t ef = {.path = lf->path,
                                            .readonly = j->readonly,
                                            .writes = worker_rw_writes(j->rw)};
                        uint64_t size = 0;
                        char err[512];
                        r = w->engine->open_file(s->ed, i, &ef, &size, err, sizeof(err));
                        if (r < 0) {
                                fail(w, -r, "%s", err);
                                return r;
                        }
                        if (!lf->length && (r = size_existing(w, lf, size)) < 0)
                                return r;
                        continue;
                }
                {
                        /* The same check as layout's, and the open is that check's own;
                         * create_on_open makes the file here (recorded, for a failed prepare). */
                        char err[512];
                        int oflags = flags;
                        if (j->create_on_open && j->allow_file_create && !j->readonly &&
                            worker_rw_writes(j->rw))
                                oflags |= O_CREAT;
                        r = policy_open(w->cfg, lf->path, PATH_JOB_FILE, oflags, 0644, &w->made,
                                        &f->fd, err, sizeof(err));
                        if (r == -EINVAL && job_direct(w))
                                fail(w, EINVAL,
                                     "direct=1: %s refuses O_DIRECT (its filesystem does not "
                                     "support it)",
                                     lf->path);
                        else if (r < 0)
                                fail(w, -r, "%s", err);
                        if (r < 0) {
                                f->fd = -1;
                                return r;
                        }
                }
                if ((r = layout_check_regular(f->fd, lf->path, w->errmsg, sizeof(w->errmsg))) < 0) {
                        w->error = -r;
                        return r;
                }
                {
                        struct stat st;
                        if (fstat(f->fd, &st) == 0) {
                                f->whole = (uint64_t)st.st_size;
                                note_device(w, &st);
                        }
                }
                if (!lf->length) {
                        struct stat st;
                        if (fstat(f->fd, &st) < 0) {
                                fail(w, errno, "%s: %s", lf->path, strerror(errno));
                                return -errno;
                        }
                        if ((r = size_existing(w, lf, (uint64_t)st.st_size)) < 0)
                                return r;
                }
                if (j->file_append && j->create_on_open) {
                        /* fio's file_append: I/O from the file's end on */
                        struct stat st;
                        if (fstat(f->fd, &st) == 0)
                                lf->base = (uint64_t)st.st_size;
                }
                f->base = lf->base;
                if (j->pre_read && !j->direct && (r = pre_read(w, f->fd, lf)) < 0)
                        return r;
                /* pre_read clears invalidate, as in fio: its point is a warm cache */
                if (j->invalidate && !j->direct && !j->pre_read)
                        posix_fadvise(f->fd, 0, 0, POSIX_FADV_DONTNEED);
                if (!j->direct)
                        fadvise(j, f->fd);
        }
        return 0;
}

/*
 * The verify seed of a file. It depends on the file alone (its path as the job names it, or its
 * index for engines without files), never on the job, clone, agent, direction or randseed: a read
 * job with verify= then checks what an earlier write job (another run, other options) wrote to
 * the same files, and a block copied from another file is FOREIGN. The path is hashed (FNV-1a)
 * and folded with verify_seed_mix() into a fixed base; the same path written through a different
 * spelling of directory= gets another seed.
 */
#define VERIFY_SEED_BASE 0x696f666c65657476ULL /* "ioflee tv" */

static uint64_t verify_seed_of(const layout_file_t *f, unsigned index)
{
        uint64_t h = 1469598103934665603ULL;
        if (!f->path)
                return verify_seed_mix(VERIFY_SEED_BASE, index);
        for (const char *c = f->path; *c; c++)
                h = (h ^ (unsigned char)*c) * 1099511628211ULL;
        return verify_seed_mix(VERIFY_SEED_BASE, h);
}

/* The I/O generator of a job with mixed block sizes, holes, skewed or fio-seeded offsets. */
static int start_iogen(worker_t *w, worker_run_t *s)
{
        uint64_t *base = calloc(s->nfiles ? s->nfiles : 1, sizeof(uint64_t));
        uint64_t *size = calloc(s->nfiles ? s->nfiles : 1, sizeof(uint64_t));
        uint64_t *whole = calloc(s->nfiles ? s->nfiles : 1, sizeof(uint64_t));
        char err[256];
        int r = -ENOMEM;

        if (base && size && whole) {
                iogen_params_t pp = {.job = w->job,
                                     .nfiles = s->nfiles,
                                     .base = base,
                                     .size = size,
                                     .file_size = whole,
                                     .seed = w->seed,
                                     .thread_number = w->thread_number};
                for (unsigned i = 0; i < s->nfiles; i++) {
                        base[i] = w->files[i].base;
                        size[i] = w->files[i].io_size;
                        whole[i] = s->files[i].whole ? s->files[i].whole : base[i] + size[i];
                }
                r = iogen_new(&pp, &s->gen, err, sizeof(err));
                if (r < 0)
                        fail(w, -r, "%s", err);
        } else
                fail(w, ENOMEM, "no memory for the I/O generator of %u files", s->nfiles);
        free(base);
        free(size);
        free(whole);
        return r;
}

/* Everything the loop needs, computed once. */
static int setup_run(worker_t *w, worker_run_t *s)
{
        const job_spec_t *j = w->job;
        unsigned depth = job_depth(w);
        uint64_t sum = 0, cap = 0;
        int *fds = NULL;
        int r;

        s->w = w;
        s->e = w->engine;
        s->depth = depth;
        /* fio: 0 or more than iodepth means iodepth. */
        s->batch = j->iodepth_batch_submit ? j->iodepth_batch_submit : depth;
        if (s->batch > depth)
                s->batch = depth;
        s->cmin = j->iodepth_batch_complete_min ? j->iodepth_batch_complete_min : 1;
        if (s->cmin > depth)
                s->cmin = depth;
        /* fio's iodepth_batch_complete_max defaults to the min: a full queue gives back only
         * what it must, so it stays at iodepth and latencies mean what fio's mean. */
        s->cmax = s->cmin;
        s->bs[DDIR_READ] = job_bs(j, DDIR_READ);
        s->bs[DDIR_WRITE] = job_bs(j, DDIR_WRITE);
        s->random = worker_rw_random(j->rw);
        s->norandommap = j->norandommap;
        s->mixed = j->rw == RW_RW || j->rw == RW_RANDRW;
        s->shared_perm = !s->mixed || s->bs[0] == s->bs[1];
        s->ddir = worker_rw_writes(j->rw) && !s->mixed ? DDIR_WRITE : DDIR_READ;
        s->next_ddir = -1;
        s->rwmixread = j->rwmixread;
        s->rated = j->rate[0] || j->rate[1] || j->rate_iops[0] || j->rate_iops[1];
        s->fsync_every = j->fsync;
        s->fdatasync_every = j->fdatasync;
        randmap_rng_seed(&s->off_rng, w->seed);
        randmap_rng_seed(&s->mix_rng, w->seed ^ 0x6d69786d69786d69ULL);
        s->qd = depth;
        s->paced = pacing_needed(j);
        if (s->paced) {
                pacing_init(&s->pace, j, depth, w->seed, clock_mono_ns());
                s->qd = s->pace.qd;
                s->lat_search = j->latency_target_ns && !j->latency_run;
        }
        s->file_ops = w->engine->flags & ENGINE_FILE_OPS;
        s->nostats = s->file_ops;
        s->no_clat = j->disable_clat || j->gtod_reduce;
        s->no_lat = j->disable_lat || j->gtod_reduce;
        s->no_slat = j->disable_slat || j->gtod_reduce;
        if (!strempty(j->ignore_error)) {
                char err[256];
                if ((r = ignore_error_parse(j->ignore_error, &s->ie, err, sizeof(err))) < 0) {
                        fail(w, -r, "%s", err);
                        return r;
                }
        }
        /* ignore_error overrides continue_on_error for the types it lists, as in fio */
        s->coe = j->continue_on_error | (s->ie.n[0] ? JOB_ERR_READ : 0) |
                 (s->ie.n[1] ? JOB_ERR_WRITE : 0) | (s->ie.n[2] ? JOB_ERR_VERIFY : 0);
        s->invalidate_passes = j->invalidate && !j->pre_read && !job_direct(w) &&
                               !(w->engine->flags & (ENGINE_OWN_FILES | ENGINE_FILE_OPS));
        {
                fst_t fst;
                char err[256];
                if ((r = fst_parse(j->file_service_type, &fst, err, sizeof(err))) < 0 ||
                    (r = fileservice_init(&s->fsv, &fst, s->nfiles, j->openfiles, w->seed)) < 0) {
                        fail(w, -r, "%s", r == -ENOMEM ? "no memory for file_service_type" : err);
                        return r;
                }
                s->next_file = s->fsv.cur;
        }
        if (iogen_needed(j)) {
                /* the generator counts blocks in the smallest size (and verify checks them) */
                s->bs[DDIR_READ] = job_spec_bs_min(j, DDIR_READ);
                s->bs[DDIR_WRITE] = job_spec_bs_min(j, DDIR_WRITE);
        }
        if (j->verify != VERIFY_NONE && j->verify != VERIFY_NULL && j->verify != VERIFY_PATTERN &&
            (s->bs[DDIR_READ] < VERIFY_MIN_LEN || s->bs[DDIR_WRITE] < VERIFY_MIN_LEN)) {
                fail(w, EINVAL, "verify: bs must be at least %d bytes (bs=%llu,%llu)",
                     VERIFY_MIN_LEN, (unsigned long long)s->bs[DDIR_READ],
                     (unsigned long long)s->bs[DDIR_WRITE]);
                return -EINVAL;
        }
        for (unsigned i = 0; i < s->nfiles; i++) {
                wfile_t *f = &s->files[i];
                uint64_t io_size = w->files[i].io_size;
                for (unsigned d = 0; d < 2; d++) {
                        f->nblocks[d] = io_size / s->bs[d];
                        if (!f->nblocks[d] && (d == s->ddir || s->mixed)) {
                                fail(w, EINVAL,
                                     "bs: %llu is larger than the %llu bytes of %s to use "
                                     "(size, filesize, offset)",
                                     (unsigned long long)s->bs[d], (unsigned long long)io_size,
                                     file_name(s, i));
                                return -EINVAL;
                        }
                        if (f->nblocks[d])
                                randmap_init(&f->perm[d], f->nblocks[d],
                                             randmap_file_key(w->seed, i, d));
                }
                sum += io_size;
                cap += f->nblocks[s->ddir] * s->bs[s->ddir];
        }
        if (iogen_needed(j) && (r = start_iogen(w, s)) < 0)
                return r;
        s->ios_left = j->number_ios ? j->number_ios : UINT64_MAX;
        {
                /* what is verified, and how (verify=null pretends: nothing is) */
                uint64_t *nb = calloc(s->nfiles ? s->nfiles : 1, sizeof(*nb)),
                         *base = calloc(s->nfiles ? s->nfiles : 1, sizeof(*base));
                char err[256];
                for (unsigned i = 0; nb && base && i < s->nfiles; i++) {
                        nb[i] = s->files[i].nblocks[DDIR_WRITE];
                        base[i] = s->files[i].base;
                }
                r = nb && base ? vstate_init(&s->vs, j, s->nfiles, nb, base, s->bs[DDIR_WRITE],
                                             err, sizeof(err))
                               : -ENOMEM;
                free(nb);
                free(base);
                if (r < 0) {
                        fail(w, -r, "%s", r == -ENOMEM ? "no memory for verify" : err);
                        return r;
                }
                s->verify = s->vs.kind == VERIFY_NULL ? VERIFY_NONE : s->vs.kind;
                s->verify_reads = !worker_rw_writes(j->rw) && !j->verify_only;
                for (unsigned i = 0; s->verify && i < s->nfiles; i++)
                        s->files[i].vseed = verify_seed_of(&w->files[i], i);
        }
        if (j->time_based)
                s->total = UINT64_MAX;
        else if (j->io_size) {
                /* fio's io_size: this much I/O within the region, going round it as needed */
                s->total = j->io_size;
        } else {
                /* fio: size caps what the files hold; a size-bound job issues exactly that. */
                s->total = j->size && j->size < sum ? j->size : sum;
                if (!s->mixed && !s->gen) {
                        if (s->total > cap)
                                s->total = cap;
                        s->total -= s->total % s->bs[s->ddir];
                } else if (!s->mixed) {
                        /* whole blocks of the smallest size, as fio issues no partial one */
                        s->total -= s->total % s->bs[s->ddir];
                }
        }
        s->loop_total = s->total;

        s->units = calloc(depth, sizeof(*s->units));
        s->free_units = calloc(depth, sizeof(*s->free_units));
        s->pending = calloc(depth, sizeof(*s->pending));
        fds = calloc(s->nfiles, sizeof(*fds));
        if (!s->units || !s->free_units || !s->pending || !fds) {
                free(fds);
                fail(w, ENOMEM, "no memory for %u I/O units", depth);
                return -ENOMEM;
        }
        for (unsigned i = 0; i < depth; i++) {
                io_unit_t *io = &s->units[i];
                io->index = i;
                io->buf = (char *)s->bufs + (size_t)i * s->buf_size;
                io->fd = -1;
                s->free_units[depth - 1 - i] = io;
        }
        s->nfree = depth;
        for (unsigned i = 0; i < s->nfiles; i++)
                fds[i] = s->files[i].fd;
        if (w->log_dirfd >= 0 && fiolog_kinds(j)) {
                fiolog_writer_params_t lp = {.job = j,
                                             .dirfd = w->log_dirfd,
                                             .job_index = w->job_index,
                                             .clone = w->clone,
                                             .shared_bytes = w->log_bytes,
                                             .max_bytes = w->log_bytes_max};
                if ((r = fiolog_writer_new(&lp, &s->flog)) < 0) {
                        free(fds);
                        fail(w, -r, "log files (write_*_log): %s", strerror(-r));
                        return r;
                }
        }
        /* An engine that owns its files started before layout (prepare_own_files()). */
        r = 0;
        if (!(w->engine->flags & ENGINE_OWN_FILES)) {
                bool nf = w->engine->flags & ENGINE_NO_FILES;
                r = start_engine(w, s, nf ? NULL : fds, nf ? 0 : s->nfiles);
        }
        free(fds);
        return r;
}

/* Closes file i: fsync first when fsync_on_close and it was written (fio's close). */
static void close_file(worker_run_t *s, unsigned i)
{
        wfile_t *f = &s->files[i];

        if (f->fd < 0)
                return;
        if (f->fd_shared) { /* ENGINE_FILE_OPS: an earlier file's directory, closed with it */
                f->fd = -1;
                return;
        }
        if (s->w->job->fsync_on_close && f->written && !s->w->leaked && fsync(f->fd) < 0)
                fail(s->w, errno, "fsync_on_close of %s: %s", file_name(s, i), strerror(errno));
        close(f->fd);
        f->fd = -1;
}

/* fio's unlink: the job's files removed once it is done (each by the worker that laid it out;
 * one already gone is fine). */
static void unlink_files(worker_t *w)
{
        for (size_t i = 0; i < w->nfiles; i++) {
                char err[512];
                int r;
                if (!w->files[i].path || !w->files[i].owner)
                        continue;
                r = policy_unlink(w->cfg, w->files[i].path, err, sizeof(err));
                if (r < 0 && r != -ENOENT)
                        fail(w, -r, "unlink: %s", err);
        }
}

static void teardown(worker_t *w, worker_run_t *s)
{
        if (!w->leaked) {
                if (s->ed && w->engine)
                        w->engine->cleanup(s->ed);
                free(s->bufs);
                free(s->units);
        }
        /* Leaked: the kernel may still write into the buffers and read the units' engine state;
         * both stay allocated for the life of the process. */
        for (unsigned i = 0; s->files && i < s->nfiles; i++)
                close_file(s, i);
        if (w->ran && w->job->unlink && w->engine &&
            !(w->engine->flags & (ENGINE_OWN_FILES | ENGINE_NO_FILES | ENGINE_DIR_LAYOUT)))
                unlink_files(w);
        fiolog_writer_close(&s->flog, clock_mono_ns());
        buffers_done(&s->buf);
        fileservice_done(&s->fsv);
        vstate_done(&s->vs);
        free(s->files);
        free(s->free_units);
        free(s->pending);
        iogen_destroy(&s->gen);
}

/* fio's do_verify: once the workload's writes are done, every block written and not yet read
 * back is read and checked, in file and offset order, after the files are synced and dropped
 * from the page cache (so the reads reach storage). Within the job's runtime, as fio's. */
static void run_loop(worker_run_t *s)
{
        if (s->w->job->io_submit_mode == SUBMIT_OFFLOAD)
                run_offload(s);
        else if (s->w->sync_engine)
                run_sync(s);
        else
                run_async(s);
}

static void verify_phase(worker_t *w, worker_run_t *s)
{
        uint64_t total = s->total, ios_left = s->ios_left;

        if (s->failed || w->leaked || stopped(s) || s->now >= s->end_ns)
                return;
        for (unsigned i = 0; i < s->nfiles; i++)
                if (s->files[i].fd >= 0) {
                        if (s->files[i].written)
                                fsync(s->files[i].fd);
                        posix_fadvise(s->files[i].fd, 0, 0, POSIX_FADV_DONTNEED);
                }
        s->vphase = true;
        s->issued_bytes = 0;
        s->total = vstate_phase_bytes(&s->vs);
        s->next_ddir = -1;
        s->ios_left = UINT64_MAX; /* number_ios counts the workload's I/Os, not these */
        run_loop(s);
        s->vphase = false;
        s->total = total;
        s->ios_left = ios_left;
}

/* A new loop over the workload: every file from its start again, dropped from the page cache
 * as fio's reopen does (invalidate=1). */
static void next_loop(worker_run_t *s)
{
        const job_spec_t *j = s->w->job;

        s->issued_bytes = 0;
        s->total = s->loop_total;
        s->ios_left = j->number_ios ? j->number_ios : UINT64_MAX;
        s->files_done = 0;
        if (s->gen)
                iogen_restart(s->gen);
        fileservice_reset(&s->fsv);
        s->next_file = s->fsv.cur;
        for (unsigned i = 0; i < s->nfiles; i++) {
                wfile_t *f = &s->files[i];
                f->seq[DDIR_READ] = f->seq[DDIR_WRITE] = 0;
                f->in_pass = 0;
                f->inval_due = s->invalidate_passes;
        }
}

/* fio's unlink_each_loop: the files removed after a loop and made afresh (empty, as the job's
 * next open creates them), the engine restarted on the new ones. */
static int renew_files(worker_t *w, worker_run_t *s)
{
        int *fds = calloc(s->nfiles ? s->nfiles : 1, sizeof(*fds));
        int r = 0;

        if (!fds) {
                fail(w, ENOMEM, "unlink_each_loop: no memory");
                return -ENOMEM;
        }
        if (s->ed)
                w->engine->cleanup(s->ed);
        s->ed = NULL;
        for (unsigned i = 0; i < s->nfiles && r == 0; i++) {
                char err[512];
                close_file(s, i);
                r = policy_unlink(w->cfg, w->files[i].path, err, sizeof(err));
                if (r == -ENOENT)
                        r = 0; /* a sharer removed it already */
                if (r == 0)
                        r = policy_open(w->cfg, w->files[i].path, PATH_JOB_FILE,
                                        O_RDWR | O_CREAT | O_CLOEXEC | (job_direct(w) ? O_DIRECT : 0),
                                        0644, NULL, &s->files[i].fd, err, sizeof(err));
                if (r < 0)
                        fail(w, -r, "unlink_each_loop: %s", err);
                fds[i] = s->files[i].fd;
        }
        if (r == 0)
                r = start_engine(w, s, fds, s->nfiles);
        free(fds);
        return r;
}

static void run(worker_t *w, worker_run_t *s, int64_t job_start)
{
        const job_spec_t *j = w->job;

        if (j->create_only) {
                /* fio's create_only: the layout was the job */
                __atomic_store_n(&w->done_mono, clock_mono_ns(), __ATOMIC_RELAXED);
                return;
        }

        /* startdelay, then ramp_time, then runtime: fio's order, each from the one before. */
        s->ramp_end_ns = job_start + (int64_t)j->ramp_time_ns;
        s->end_ns = j->runtime_ns ? s->ramp_end_ns + (int64_t)j->runtime_ns : INT64_MAX;
        s->now = clock_mono_ns();
        if (s->now < job_start)
                s->now = sleep_until(s, job_start);
        s->counting = false;
        if (unlikely(s->paced)) {
                pacing_restart(&s->pace, s->now);
                s->pace.last_think = s->now;
        }
        if (s->now >= s->ramp_end_ns && !s->lat_search)
                begin_counting(s, s->now);
        s->rate_t0 = s->now;
        /* fio's loops: the size-bound workload again, files from their start; a time_based job
         * keeps going until its runtime whatever loops says. */
        for (uint32_t loop = 0;; loop++) {
                if (j->verify_only)
                        vstate_mark_all(&s->vs); /* what an earlier run wrote, all of it */
                else
                        run_loop(s);
                if (j->end_fsync && !s->failed && !w->leaked)
                        end_fsync(s);
                if (s->verify && s->vs.readback && j->do_verify && !j->time_based)
                        verify_phase(w, s);
                if (j->time_based || s->failed || w->leaked || stopped(s) ||
                    loop + 1 >= j->loops || s->now >= s->end_ns)
                        break;
                if (j->unlink_each_loop &&
                    !(w->engine->flags & (ENGINE_OWN_FILES | ENGINE_NO_FILES | ENGINE_FILE_OPS)) &&
                    renew_files(w, s) < 0)
                        break;
                next_loop(s);
        }
        s->now = clock_mono_ns();
        end_fio_stats(s, s->now);
        /* the logs end with the job, as fio's are finalized at its end */
        fiolog_writer_close(&s->flog, s->now);
        __atomic_store_n(&w->done_mono, s->now, __ATOMIC_RELAXED);
}

/* ioengine=metadata: metadata_run() after startdelay, again while time_based until the runtime
 * ends or a stop. ramp_time does not apply: each pass is measured whole. A failure ends the job
 * with metadata_run()'s message, as a failed I/O does. */
static void run_metadata(worker_t *w, int64_t job_start)
{
        const job_spec_t *j = w->job;
        uint32_t nrfiles = j->nrfiles ? j->nrfiles : 1;
        worker_run_t s = {.w = w, .end_ns = INT64_MAX};
        int order = metadata_order_from_string(j->metadata_order);
        metadata_params_t p = {
            .directory = w->md_dir,
            .dirfd = w->md_dirfd,
            .name = w->md_name,
            .nrfiles = nrfiles,
            .filesize = j->filesize ? j->filesize : j->size / nrfiles,
            .dirs = j->metadata_dirs ? j->metadata_dirs : 1,
            .stop = w->stop,
            .end_mono = j->runtime_ns ? job_start + (int64_t)j->runtime_ns : INT64_MAX,
        };
        char err[sizeof(w->errmsg)];
        int64_t now = clock_mono_ns();
        int r = 0;

        if (order < 0) {
                fail(w, EINVAL, "metadata_order=%s: must be sequential, random or both",
                     j->metadata_order);
                goto done;
        }
        p.order = (metadata_order_t)order;
        if (now < job_start)
                now = sleep_until(&s, job_start);
        __atomic_store_n(&w->measure_mono, now > w->wake_mono ? now : w->wake_mono,
                         __ATOMIC_RELAXED);
        for (uint64_t pass = 0; r == 0; pass++) {
                if (stopped(&s))
                        break;
                /* Each pass of a time_based job gets its own random orders. */
                p.seed = w->seed ^ (pass * 0x9e3779b97f4a7c15ULL);
                r = metadata_run(&p, w->md, err, sizeof(err));
                if (r < 0)
                        fail(w, -r, "%s", err);
                if (!j->time_based || clock_mono_ns() >= p.end_mono)
                        break;
        }
done:
        __atomic_store_n(&w->done_mono, clock_mono_ns(), __ATOMIC_RELAXED);
}

int gate_init(gate_t *g, unsigned n_groups, size_t n_jobs)
{
        memset(g, 0, sizeof(*g));
        pthread_mutex_init(&g->lock, NULL);
        pthread_cond_init(&g->cond, NULL);
        pthread_mutex_init(&g->layout_lock, NULL);
        n_groups = n_groups ? n_groups : 1;
        g->n_jobs = n_jobs ? n_jobs : 1;
        g->group_laying_out = calloc(n_groups, sizeof(*g->group_laying_out));
        g->group_left = calloc(n_groups, sizeof(*g->group_left));
        g->group_start = calloc(n_groups, sizeof(*g->group_start));
        g->job_left = calloc(g->n_jobs, sizeof(*g->job_left));
        g->stop = calloc(g->n_jobs, sizeof(*g->stop));
        g->job_group = calloc(g->n_jobs, sizeof(*g->job_group));
        g->job_groupid = calloc(g->n_jobs, sizeof(*g->job_groupid));
        if (!g->group_laying_out || !g->group_left || !g->group_start || !g->job_left ||
            !g->stop || !g->job_group || !g->job_groupid)
                return -ENOMEM;
        return 0;
}

void gate_free(gate_t *g)
{
        pthread_mutex_destroy(&g->lock);
        pthread_cond_destroy(&g->cond);
        pthread_mutex_destroy(&g->layout_lock);
        free(g->group_laying_out);
        free(g->group_left);
        free(g->group_start);
        free(g->job_left);
        free(g->stop);
        free(g->job_group);
        free(g->job_groupid);
        memset(g, 0, sizeof(*g));
}

void gate_count(gate_t *g, const worker_t *w)
{
        g->group_laying_out[w->group]++;
        g->group_left[w->group]++;
        g->job_left[w->job_index]++;
}

/* fio's exec_prerun / exec_postrun: the program the agent's config names for it, its output
 * in the job's directory. A prerun that fails fails the worker, as in fio. */
static int exec_phase(worker_t *w, const char *phase, const char *name)
{
        char dir[4200], err[512];
        int r;

        if (policy_job_dir(w->job, w->work_dir, dir, sizeof(dir)) < 0) {
                fail(w, ENAMETOOLONG, "exec_%s: directory too long", phase);
                return -ENAMETOOLONG;
        }
        r = execcmd_run(w->cfg, w->job, phase, name, dir, w->stop, &w->made, err, sizeof(err));
        if (r < 0)
                fail(w, r == -ECHILD ? ECHILD : -r, "%s", err);
        return r;
}

/* Whether w's group may run (or the run is called off); under the gate's lock. */
static bool group_open(const gate_t *g, const worker_t *w)
{
        return g->abort || (w->group == 0 ? g->open : g->group_start[w->group] != 0);
}

/* The end of a worker, under the gate's lock: its job's and group's counts, and fio's exitall and
 * exitall_on_error, which end the other jobs of its reporting group (exit_what: of its serial
 * group, or every job, later groups included). */
static void worker_ended(worker_t *w)
{
        gate_t *g = w->gate;
        int what = w->job->exit_what;

        g->job_left[w->job_index]--;
        g->group_left[w->group]--;
        if (w->ran && (g->exitall || (w->job->exitall_on_error && w->error))) {
                for (size_t k = 0; k < g->n_jobs; k++)
                        if (what == JOB_EXIT_ALL ||
                            (what == JOB_EXIT_STONEWALL && g->job_group[k] == w->group) ||
                            g->job_groupid[k] == w->groupid)
                                __atomic_store_n(&g->stop[k], 1, __ATOMIC_RELAXED);
                if (what == JOB_EXIT_ALL)
                        g->abort = true;
        }
        pthread_cond_broadcast(&g->cond);
}

void *worker_main(void *arg)
{
        worker_t *w = arg;
        gate_t *g = w->gate;
        worker_run_t s;
        int64_t job_start;
        bool go;
        int r = 0;

        memset(&s, 0, sizeof(s));
        /* placement first: the buffers prepare() allocates follow the NUMA memory policy */
        if (placement_needed(w->job)) {
                char err[sizeof(w->errmsg)];
                r = placement_apply(w->job, w->clone, "/sys", err, sizeof(err));
                if (r < 0)
                        fail(w, -r, "%s", err);
        }
        /* A later group lays out once the group before it has ended, as fio starts its jobs
         * then: what that group did to the files (unlink, a writer's data) is there to see. */
        pthread_mutex_lock(&g->lock);
        while (g->layout_group < w->group && !g->abort)
                pthread_cond_wait(&g->cond, &g->lock);
        if (g->abort)
                r = -ECANCELED;
        pthread_mutex_unlock(&g->lock);
        if (r == 0 && !w->md) {
                if (w->job->create_serialize)
                        pthread_mutex_lock(&g->layout_lock);
                r = prepare(w, &s);
                if (w->job->create_serialize)
                        pthread_mutex_unlock(&g->layout_lock);
        }
        /* Every worker counts itself through layout, even after a failure, and waits for the
         * others of its group unless the run is called off. */
        pthread_mutex_lock(&g->lock);
        g->group_laying_out[w->group]--;
        pthread_cond_broadcast(&g->cond);
        while (g->group_laying_out[w->group] > 0 && !g->abort)
                pthread_cond_wait(&g->cond, &g->lock);
        pthread_mutex_unlock(&g->lock);
        if (r >= 0 && !strempty(w->job->exec_prerun))
                r = exec_phase(w, "prerun", w->job->exec_prerun);
        if (r >= 0 && !w->md)
                r = open_files(w, &s);
        if (r >= 0 && !w->md)
                r = setup_run(w, &s);
        if (r < 0 && !w->error && r != -ECANCELED)
                w->error = -r;
        pthread_mutex_lock(&g->lock);
        __atomic_store_n(&w->prepared, r < 0 ? -1 : 1, __ATOMIC_RELEASE);
        pthread_cond_broadcast(&g->cond); /* a later group's starter waits for it */
        pthread_mutex_unlock(&g->lock);
        w->notify(w->userdata);

        pthread_mutex_lock(&g->lock);
        while (!group_open(g, w))
                pthread_cond_wait(&g->cond, &g->lock);
        /* wait_for: after every clone of the waitee, within the group */
        while (!g->abort && w->waits_for >= 0 && g->job_left[w->waits_for] > 0 &&
               !__atomic_load_n(w->stop, __ATOMIC_RELAXED))
                pthread_cond_wait(&g->cond, &g->lock);
        go = !g->abort && r >= 0 && !__atomic_load_n(w->stop, __ATOMIC_RELAXED);
        job_start = w->group == 0 ? g->start_mono : g->group_start[w->group];
        pthread_mutex_unlock(&g->lock);

        if (go) {
                w->wake_mono = clock_mono_ns();
                if (w->waits_for >= 0 && w->wake_mono > job_start)
                        job_start = w->wake_mono;
                w->job_start_mono = job_start;
                /* fio counts startdelay from its start, not from the job's group. */
                if (g->start_mono + (int64_t)w->job->startdelay_ns > job_start)
                        job_start = g->start_mono + (int64_t)w->job->startdelay_ns;
                __atomic_store_n(&w->ran, 1, __ATOMIC_RELEASE);
                if (w->md)
                        run_metadata(w, job_start);
                else
                        run(w, &s, job_start);
                /* fio runs it after the job, whatever the job's end */
                if (!strempty(w->job->exec_postrun))
                        exec_phase(w, "postrun", w->job->exec_postrun);
        }
        teardown(w, &s);
        pthread_mutex_lock(&g->lock);
        __atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
        worker_ended(w);
        pthread_mutex_unlock(&g->lock);
        w->notify(w->userdata);
        return NULL;
}
