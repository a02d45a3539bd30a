/* One I/O worker (a clone of a job): lays out and opens its file, waits at the start gate, runs its
 * loop. */
#include "worker.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "layout.h"
#include "util.h"

/* Single-writer counters: a plain load and a relaxed store, never a locked read-modify-write. */
#define STAT_ADD(field, v) __atomic_store_n(&(field), (field) + (v), __ATOMIC_RELAXED)

/* xoshiro256** seeded through splitmix64: fast, and the same sequence for the same seed, so a
 * random job repeats its offsets run after run as fio's randrepeat does. */
typedef struct rng {
        uint64_t s[4];
} rng_t;

static uint64_t splitmix64(uint64_t *x)
{
        uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
}

static void rng_seed(rng_t *r, uint64_t seed)
{
        for (int i = 0; i < 4; i++)
                r->s[i] = splitmix64(&seed);
}

static inline uint64_t rotl(uint64_t x, int k)
{
        return (x << k) | (x >> (64 - k));
}

static inline uint64_t rng_next(rng_t *r)
{
        uint64_t *s = r->s, result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = rotl(s[3], 45);
        return result;
}

/* Uniform in [0, n) by multiply-shift, without a division on the I/O path. */
static inline uint64_t rng_below(rng_t *r, uint64_t n)
{
        return (uint64_t)(((unsigned __int128)rng_next(r) * n) >> 64);
}

/* Changes 8 bytes in every 4 KiB of the buffer before a write, as fio's scramble_buffers does:
 * without it every block written would be one of a few, and deduplicating storage would
 * flatter the figures. */
static inline void scramble(void *buf, uint64_t len, uint64_t tag)
{
        for (uint64_t o = 0; o + 8 <= len; o += 4096) {
                uint64_t v = tag ^ o;
                memcpy((char *)buf + o, &v, 8);
        }
}

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

static int prepare(worker_t *w)
{
        const job_spec_t *j = w->job;
        bool write = !rw_mode_is_read(j->rw);
        int r;

        if (w->engine->init(j, 1, &w->engine_data) < 0) {
                fail(w, EINVAL, "engine %s could not start", w->engine->name);
                return -EINVAL;
        }
        if (posix_memalign(&w->buf, 4096, j->bs) != 0) {
                fail(w, ENOMEM, "no memory for a %llu-byte buffer", (unsigned long long)j->bs);
                return -ENOMEM;
        }
        /* Written data is not all zeroes, so compressing or deduplicating storage cannot
         * flatter the figures. */
        {
                rng_t rg;
                rng_seed(&rg, w->seed ^ 0xa5a5a5a5ULL);
                for (uint64_t i = 0; i + 8 <= j->bs; i += 8) {
                        uint64_t v = rng_next(&rg);
                        memcpy((char *)w->buf + i, &v, 8);
                }
        }
        if (w->engine->flags & ENGINE_NO_FILES)
                return 0;
        if (w->layout_owner) {
                char err[512];
                r = layout_file(w->path, j->size, !write, w->seed, w->stop, err, sizeof(err));
                if (r < 0) {
                        fail(w, -r, "%s", err);
                        return r;
                }
        }
        return 0;
}

static int open_file(worker_t *w)
{
        bool write = !rw_mode_is_read(w->job->rw);
        if (w->engine->flags & ENGINE_NO_FILES)
                return 0;
        w->fd = open(w->path, (write ? O_RDWR : O_RDONLY) | O_CLOEXEC | O_NOFOLLOW);
        if (w->fd < 0) {
                fail(w, errno, "cannot open %s: %s", w->path, strerror(errno));
                return -errno;
        }
        return layout_check_regular(w->fd, w->path, w->errmsg, sizeof(w->errmsg));
}

static void run_loop(worker_t *w, int64_t end_mono)
{
        const job_spec_t *j = w->job;
        const bool write = !rw_mode_is_read(j->rw), random = rw_mode_is_random(j->rw);
        const uint64_t bs = j->bs;
        /* The null engine needs no file: without a size it spins over a notional 1 GiB. */
        const uint64_t span = j->size ? j->size : (1ULL << 30);
        const uint64_t nblocks = span / bs ? span / bs : 1;
        const uint64_t todo = j->time_based ? UINT64_MAX : nblocks;
        worker_dir_t *d = &w->dir[write];
        io_unit_t io = {.fd = w->fd, .buf = w->buf, .len = bs, .write = write};
        int64_t now = w->wake_mono;
        uint64_t i, block = 0;
        rng_t rg;

        rng_seed(&rg, w->seed);
        for (i = 0; i < todo && now < end_mono; i++) {
                int64_t t0 = now;
                if (__atomic_load_n(w->stop, __ATOMIC_RELAXED))
                        break;
                if (random)
                        io.offset = rng_below(&rg, nblocks) * bs;
                else {
                        io.offset = block * bs;
                        if (++block == nblocks)
                                block = 0;
                }
                if (write)
                        scramble(w->buf, bs, io.offset ^ i);
                w->engine->queue(w->engine_data, &io);
                now = clock_mono_ns();
                if (io.result < 0 || (io.result == 0 && bs > 0)) {
                        int e = io.result < 0 ? (int)-io.result : EIO;
                        STAT_ADD(d->errors, 1);
                        fail(w, e, "%s of %llu bytes at offset %llu of %s: %s",
                             write ? "write" : "read", (unsigned long long)bs,
                             (unsigned long long)io.offset, w->path[0] ? w->path : "(null)",
                             io.result == 0 ? "unexpected end of file" : strerror(e));
                        break;
                }
                if ((uint64_t)io.result < bs)
                        STAT_ADD(d->short_ios, 1);
                STAT_ADD(d->bytes, (uint64_t)io.result);
                STAT_ADD(d->ios, 1);
                hist_record(&d->clat, (uint64_t)(now - t0));
        }
        __atomic_store_n(&w->done_mono, now, __ATOMIC_RELAXED);
}

void *worker_main(void *arg)
{
        worker_t *w = arg;
        gate_t *g = w->gate;
        int64_t end;
        bool go;
        int r;

        w->fd = -1;
        r = prepare(w);
        /* Every worker counts itself through layout, even after a failure, and waits for the
         * others unless the run is called off. */
        pthread_mutex_lock(&g->lock);
        g->laying_out--;
        pthread_cond_broadcast(&g->cond);
        while (g->laying_out > 0 && !g->abort)
                pthread_cond_wait(&g->cond, &g->lock);
        pthread_mutex_unlock(&g->lock);
        if (r >= 0)
                r = open_file(w);
        if (r < 0 && !w->error)
                w->error = -r;
        __atomic_store_n(&w->prepared, r < 0 ? -1 : 1, __ATOMIC_RELEASE);
        w->notify(w->userdata);

        pthread_mutex_lock(&g->lock);
        while (!g->open)
                pthread_cond_wait(&g->cond, &g->lock);
        go = !g->abort && r >= 0;
        /* Each job keeps its own runtime from the common start. */
        end = w->job->runtime_ns ? g->start_mono + (int64_t)w->job->runtime_ns : INT64_MAX;
        pthread_mutex_unlock(&g->lock);

        if (go) {
                w->wake_mono = clock_mono_ns();
                __atomic_store_n(&w->ran, 1, __ATOMIC_RELEASE);
                run_loop(w, end);
        }
        if (w->fd >= 0)
                close(w->fd);
        w->engine->cleanup(w->engine_data);
        free(w->buf);
        w->buf = NULL;
        __atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
        w->notify(w->userdata);
        return NULL;
}
