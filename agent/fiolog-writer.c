/* One job clone's fio log files, made from its completions as fio 3.33's stat.c makes them and
 * written out as they go. */
#include "fiolog-writer.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log-ship.h"
#include "util.h"

/* Buffered lines are written at least this often, so that the shipper streams them. */
#define FLUSH_EVERY_NS ((int64_t)NSEC_PER_SEC)
#define PLAIN_BUF (16u << 10)
#define HIST_BUF (FIOLOG_HIST_LINE_MAX + (16u << 10))
/* The job's end closes the rate window it falls in when it covers all of it but this share
 * (1/20): fio's helper thread samples a window the job ends with when it gets there first; the
 * worker's own clock starts a little after the run's (its wake-up), so its end comes a little
 * before the window's. */
#define END_SLACK_DIV 20

typedef struct stream {
        int fd; /* -1: the job does not write this log, or it was cut */
        char *buf;
        size_t len, cap;
} stream_t;

/* A window of a latency log: what fio's avg_window holds. */
typedef struct lat_window {
        uint64_t sum, n, max;
        uint64_t last_ms; /* fio's avg_last: where the window started */
} lat_window_t;

enum { LW_CLAT, LW_SLAT, LW_LAT, LW_KINDS };

struct fiolog_writer {
        stream_t s[FIOLOG_KINDS];
        int dirfd;
        unsigned job, clone;
        bool started;
        int64_t epoch;
        bool offset, log_max;
        bool no_clat, no_lat, no_slat, no_bw, no_iops;
        uint64_t avg_ms[FIOLOG_KINDS]; /* 0: a line per I/O */
        /* bw and iops over windows on fio's helper-thread grid: what completed since the last
         * line, and when the window ends (ms) */
        uint64_t win_bytes[2], win_ios[2];
        uint64_t bw_due, iops_due;
        lat_window_t lw[LW_KINDS][2];
        /* the histogram log: the window's counts per direction, and fio's hist_last */
        uint64_t hist_ms;
        unsigned coarseness;
        uint64_t *bins[2];
        uint64_t hist_last[2];
        int64_t last_flush;
        uint64_t *shared, max;
};

static void cut(fiolog_writer_t *w, unsigned k, const char *why)
{
        stream_t *s = &w->s[k];
        char name[64];
        int fd;
        if (s->fd < 0)
                return;
        close(s->fd);
        s->fd = -1;
        s->len = 0;
        /* The shipper says so in the stream's last chunk (even after an agent restart). */
        logship_stream_name(name, sizeof(name), w->job, w->clone, k, ".cut");
        fd = openat(w->dirfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd >= 0) {
                ssize_t r = write(fd, why, strlen(why));
                (void)r;
                close(fd);
        }
}

static void flush(fiolog_writer_t *w, unsigned k)
{
        stream_t *s = &w->s[k];
        int r;
        if (s->fd < 0 || !s->len)
                return;
        if (w->shared) {
                uint64_t tot = __atomic_add_fetch(w->shared, s->len, __ATOMIC_RELAXED);
                if (w->max && tot > w->max) {
                        char why[128];
                        __atomic_sub_fetch(w->shared, s->len, __ATOMIC_RELAXED);
                        snprintf(why, sizeof(why),
                                 "this agent's logs of the run reached the coordinator's "
                                 "fio_logs_max_mib (%llu MiB)",
                                 (unsigned long long)(w->max >> 20));
                        cut(w, k, why);
                        return;
                }
        }
        if ((r = write_all(s->fd, s->buf, s->len)) < 0) {
                char why[128];
                snprintf(why, sizeof(why), "writing it on the agent failed: %s", strerror(-r));
                cut(w, k, why);
                return;
        }
        s->len = 0;
}

static void flush_all(fiolog_writer_t *w, int64_t now)
{
        for (unsigned k = 0; k < FIOLOG_KINDS; k++)
                flush(w, k);
        w->last_flush = now;
}

/* Room for one more line of kind k: what is buffered goes out first when it would not fit. */
static char *room(fiolog_writer_t *w, unsigned k)
{
        stream_t *s = &w->s[k];
        size_t need = k == FIOLOG_HIST ? FIOLOG_HIST_LINE_MAX : FIOLOG_LINE_MAX;
        if (s->cap - s->len < need)
                flush(w, k);
        return s->fd < 0 ? NULL : s->buf + s->len;
}

static void line(fiolog_writer_t *w, unsigned k, uint64_t t, uint64_t v, unsigned ddir,
                 uint64_t bs, uint64_t offset)
{
        char *p = room(w, k);
        if (p)
                w->s[k].len += fiolog_format_line(p, t, v, ddir, bs, w->offset, offset);
}

static uint64_t ms_of(const fiolog_writer_t *w, int64_t now)
{
        return now > w->epoch ? (uint64_t)(now - w->epoch) / NSEC_PER_MSEC : 0;
}

int fiolog_writer_new(const fiolog_writer_params_t *p, fiolog_writer_t **ret)
{
        const job_spec_t *j = p->job;
        unsigned kinds = fiolog_kinds(j);
        fiolog_writer_t *w;
        int r = 0;

        *ret = NULL;
        if (!kinds)
                return -ENOENT;
        if (!(w = calloc(1, sizeof(*w))))
                return -ENOMEM;
        w->dirfd = p->dirfd;
        w->job = p->job_index;
        w->clone = p->clone;
        w->offset = j->log_offset;
        w->log_max = j->log_max_value;
        w->no_clat = j->disable_clat || j->gtod_reduce;
        w->no_lat = j->disable_lat || j->gtod_reduce;
        w->no_slat = j->disable_slat || j->gtod_reduce;
        w->no_bw = j->disable_bw || j->gtod_reduce;
        w->no_iops = j->gtod_reduce;
        w->hist_ms = j->log_hist_ns / NSEC_PER_MSEC;
        w->coarseness = j->log_hist_coarseness;
        w->shared = p->shared_bytes;
        w->max = p->max_bytes;
        for (unsigned k = 0; k < FIOLOG_KINDS; k++) {
                stream_t *s = &w->s[k];
                char name[64];
                s->fd = -1;
                w->avg_ms[k] = fiolog_avg_ms(j, (fiolog_kind_t)k);
                if (!(kinds & (1u << k)))
                        continue;
                logship_stream_name(name, sizeof(name), w->job, w->clone, k, "");
                s->cap = k == FIOLOG_HIST ? HIST_BUF : PLAIN_BUF;
                if (!(s->buf = malloc(s->cap))) {
                        r = -ENOMEM;
                        break;
                }
                s->fd = openat(w->dirfd, name,
                               O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_NOFOLLOW | O_CLOEXEC,
                               0600);
                if (s->fd < 0) {
                        r = -errno;
                        break;
                }
        }
        if (r == 0 && (kinds & (1u << FIOLOG_HIST)) && w->hist_ms)
                for (unsigned d = 0; d < 2 && r == 0; d++)
                        if (!(w->bins[d] = calloc(FIOLOG_HIST_BINS, sizeof(uint64_t))))
                                r = -ENOMEM;
        if (r < 0) {
                fiolog_writer_close(&w, 0);
                return r;
        }
        *ret = w;
        return 0;
}

void fiolog_writer_start(fiolog_writer_t *w, int64_t epoch_ns)
{
        w->started = true;
        w->epoch = epoch_ns;
        w->last_flush = epoch_ns;
        memset(w->win_bytes, 0, sizeof(w->win_bytes));
        memset(w->win_ios, 0, sizeof(w->win_ios));
        w->bw_due = w->avg_ms[FIOLOG_BW];
        w->iops_due = w->avg_ms[FIOLOG_IOPS];
        memset(w->lw, 0, sizeof(w->lw));
        memset(w->hist_last, 0, sizeof(w->hist_last));
        for (unsigned d = 0; d < 2; d++)
                if (w->bins[d])
                        memset(w->bins[d], 0, FIOLOG_HIST_BINS * sizeof(uint64_t));
}

/* The bw or iops window ending at *due is over by t (or ends with the job at t, a little
 * before it): one line per direction that completed something in it, at the window's end, as
 * fio's helper thread samples them (KiB/s, IO/s over the time the window covered; block size and
 * offset 0). The next window is the grid's next one after t. */
static void rate_window(fiolog_writer_t *w, unsigned k, uint64_t *acc, uint64_t *due, uint64_t t,
                        bool kib)
{
        uint64_t avg = w->avg_ms[k], span = avg;
        if (t < *due)
                span -= *due - t;
        for (unsigned d = 0; d < 2; d++) {
                if (!acc[d])
                        continue;
                line(w, k, *due, kib ? acc[d] * 1000 / span / 1024 : acc[d] * 1000 / span, d, 0,
                     0);
                acc[d] = 0;
        }
        *due = (t / avg + 1) * avg;
}

/* A latency of kind lk (file kind k): a line per I/O, or into its window, which fio's
 * add_log_sample() ends at the first sample a whole window after it began (the sample counts),
 * with the mean (rounded) or the largest value, at that sample's time. */
static void lat_sample(fiolog_writer_t *w, unsigned k, unsigned lk, unsigned ddir, uint64_t v,
                       uint64_t bs, uint64_t offset, uint64_t t)
{
        lat_window_t *lw = &w->lw[lk][ddir];
        uint64_t avg = w->avg_ms[k];
        if (w->s[k].fd < 0)
                return;
        if (!avg) {
                line(w, k, t, v, ddir, bs, offset);
                return;
        }
        lw->sum += v;
        lw->n++;
        if (v > lw->max)
                lw->max = v;
        if (t < lw->last_ms || t - lw->last_ms < avg)
                return;
        line(w, k, t, w->log_max ? lw->max : (lw->sum + lw->n / 2) / lw->n, ddir, 0, 0);
        lw->sum = lw->n = lw->max = 0;
        lw->last_ms = t - t % avg;
}

/* fio's histogram log: the window's completions per fio bin, a line at the first completion a
 * whole log_hist_msec after the window began (fio's hist_last, which then moves on by one
 * window less the overshoot). */
static void hist_sample(fiolog_writer_t *w, unsigned ddir, uint64_t clat, uint64_t bs,
                        uint64_t t)
{
        uint64_t win;
        char *p;
        if (!w->bins[ddir] || w->s[FIOLOG_HIST].fd < 0)
                return;
        w->bins[ddir][fiolog_hist_bin(clat)]++;
        if (!w->hist_last[ddir])
                w->hist_last[ddir] = t;
        win = t - w->hist_last[ddir];
        if (t < w->hist_last[ddir] || win < w->hist_ms)
                return;
        if ((p = room(w, FIOLOG_HIST)))
                w->s[FIOLOG_HIST].len +=
                    fiolog_format_hist(p, t, ddir, bs, w->bins[ddir], w->coarseness);
        memset(w->bins[ddir], 0, FIOLOG_HIST_BINS * sizeof(uint64_t));
        w->hist_last[ddir] = t - (win - w->hist_ms);
}

/* The rate windows that ended by t (before t's own completion counts); at the end (slack
 * true) also one that t nearly reached. */
static void rate_due(fiolog_writer_t *w, uint64_t t, bool slack)
{
        uint64_t bw = w->avg_ms[FIOLOG_BW], io = w->avg_ms[FIOLOG_IOPS];
        if (bw && w->s[FIOLOG_BW].fd >= 0 && t + (slack ? bw / END_SLACK_DIV : 0) >= w->bw_due)
                rate_window(w, FIOLOG_BW, w->win_bytes, &w->bw_due, t, true);
        if (io && w->s[FIOLOG_IOPS].fd >= 0 && t + (slack ? io / END_SLACK_DIV : 0) >= w->iops_due)
                rate_window(w, FIOLOG_IOPS, w->win_ios, &w->iops_due, t, false);
}

void fiolog_writer_io(fiolog_writer_t *w, unsigned ddir, uint64_t bytes, uint64_t offset,
                      uint64_t clat_ns, uint64_t lat_ns, int64_t now)
{
        uint64_t t;
        if (!w->started || ddir > 1)
                return;
        t = ms_of(w, now);
        rate_due(w, t, false);
        if (w->s[FIOLOG_BW].fd >= 0 && !w->no_bw) {
                if (w->avg_ms[FIOLOG_BW])
                        w->win_bytes[ddir] += bytes;
                else
                        line(w, FIOLOG_BW, t, clat_ns ? bytes * 1000000 / clat_ns : 0, ddir,
                             bytes, offset);
        }
        if (w->s[FIOLOG_IOPS].fd >= 0 && !w->no_iops) {
                if (w->avg_ms[FIOLOG_IOPS])
                        w->win_ios[ddir]++;
                else
                        line(w, FIOLOG_IOPS, t, 1, ddir, bytes, offset);
        }
        if (!w->no_lat && lat_ns)
                lat_sample(w, FIOLOG_LAT, LW_LAT, ddir, lat_ns, bytes, offset, t);
        if (!w->no_clat) {
                lat_sample(w, FIOLOG_CLAT, LW_CLAT, ddir, clat_ns, bytes, offset, t);
                hist_sample(w, ddir, clat_ns, bytes, t);
        }
        if (now - w->last_flush >= FLUSH_EVERY_NS)
                flush_all(w, now);
}

void fiolog_writer_slat(fiolog_writer_t *w, unsigned ddir, uint64_t bytes, uint64_t offset,
                        uint64_t slat_ns, int64_t now)
{
        if (!w->started || ddir > 1 || w->no_slat)
                return;
        lat_sample(w, FIOLOG_SLAT, LW_SLAT, ddir, slat_ns, bytes, offset, ms_of(w, now));
}

void fiolog_writer_clat(fiolog_writer_t *w, unsigned ddir, uint64_t clat_ns, int64_t now)
{
        uint64_t t;
        if (!w->started || ddir > 1 || w->no_clat)
                return;
        t = ms_of(w, now);
        lat_sample(w, FIOLOG_CLAT, LW_CLAT, ddir, clat_ns, 0, 0, t);
        hist_sample(w, ddir, clat_ns, 0, t);
        if (now - w->last_flush >= FLUSH_EVERY_NS)
                flush_all(w, now);
}

void fiolog_writer_close(fiolog_writer_t **wp, int64_t now)
{
        fiolog_writer_t *w = *wp;
        if (!w)
                return;
        if (w->started) {
                uint64_t t = ms_of(w, now);
                static const unsigned kind_of[LW_KINDS] = {FIOLOG_CLAT, FIOLOG_SLAT, FIOLOG_LAT};
                /* fio's finalize_logs(): the latency windows holding samples, at the end */
                for (unsigned lk = 0; lk < LW_KINDS; lk++)
                        for (unsigned d = 0; d < 2; d++) {
                                lat_window_t *lw = &w->lw[lk][d];
                                if (lw->n && w->avg_ms[kind_of[lk]] &&
                                    w->s[kind_of[lk]].fd >= 0)
                                        line(w, kind_of[lk], t,
                                             w->log_max ? lw->max : (lw->sum + lw->n / 2) / lw->n,
                                             d, 0, 0);
                        }
                /* a rate window the end (nearly) reaches is sampled; a shorter last one is
                 * not, as fio's helper thread never gets to it */
                rate_due(w, t, true);
        }
        for (unsigned k = 0; k < FIOLOG_KINDS; k++) {
                flush(w, k);
                if (w->s[k].fd >= 0)
                        close(w->s[k].fd);
                free(w->s[k].buf);
        }
        free(w->bins[0]);
        free(w->bins[1]);
        free(w);
        *wp = NULL;
}
