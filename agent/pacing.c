/* When a worker's I/Os may go and when it must stop, beyond plain rates: fio's thinktime, Poisson
 * rates, minimum rates, latency_target's depth search and max_latency, as a state machine fed the
 * worker's counts and clock. */
#include "pacing.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "util.h"

/* fio: the minimum rates are not checked in a job's first 2 s. */
#define MIN_RATE_SETTLE_NS (2 * (int64_t)NSEC_PER_SEC)

bool pacing_needed(const job_spec_t *j)
{
        return j->thinktime_ns || j->rate_process == RATE_POISSON || j->rate_min[0] ||
               j->rate_min[1] || j->rate_iops_min[0] || j->rate_iops_min[1] ||
               j->latency_target_ns || j->max_latency_ns[0] || j->max_latency_ns[1];
}

void pacing_init(pacing_t *p, const job_spec_t *j, unsigned depth, uint64_t seed, int64_t now)
{
        memset(p, 0, sizeof(*p));
        p->think_ns = j->thinktime_ns;
        p->spin_ns = j->thinktime_spin_ns;
        p->iotime_ns = j->thinktime_iotime_ns;
        /* fio: thinktime_blocks defaults to 1, but with thinktime_iotime and no
         * thinktime_blocks only the time counts */
        p->think_blocks = j->thinktime_blocks ? j->thinktime_blocks : j->thinktime_iotime_ns ? 0 : 1;
        p->by_issue = j->thinktime_blocks_type == THINKTIME_ISSUE;
        p->last_think = now;
        p->poisson = j->rate_process == RATE_POISSON;
        for (unsigned d = 0; p->poisson && d < 2; d++) {
                /* fio: IOPS = the byte rate over the smallest block size */
                uint64_t iops = j->rate_iops[d] ? j->rate_iops[d]
                                                : j->rate[d] / job_spec_bs_min(j, d);
                if (!iops && j->rate[d])
                        iops = 1;
                p->gap_ns[d] = iops ? 1e9 / (double)iops : 0;
                fiorand_seed(&p->prng[d], seed ^ (0x706f6973736f6eULL + d), false);
        }
        for (unsigned d = 0; d < 2; d++) {
                p->rate_min[d] = j->rate_min[d];
                p->iops_min[d] = j->rate_iops_min[d];
                p->max_lat[d] = j->max_latency_ns[d];
        }
        p->cycle_ns = (int64_t)j->rate_cycle_ms * (int64_t)NSEC_PER_MSEC;
        p->lat_target = j->latency_target_ns;
        p->lat_window = j->latency_window_ns;
        p->lat_percentile = j->latency_percentile;
        p->lat_run = j->latency_run;
        p->depth = depth ? depth : 1;
        p->qd = p->lat_target ? 1 : p->depth;
        p->qd_low = 1;
        p->qd_high = p->depth;
        pacing_restart(p, now);
}

void pacing_restart(pacing_t *p, int64_t now)
{
        p->next_ns[0] = p->next_ns[1] = now;
        p->settle_end = now + MIN_RATE_SETTLE_NS;
        p->have_base[0] = p->have_base[1] = false;
        p->win_start = now;
        p->win_ios = p->win_failed = 0;
}

bool pacing_think_due(const pacing_t *p, uint64_t done, uint64_t issued, int64_t now)
{
        uint64_t b = p->by_issue ? issued : done;
        if (!p->think_ns)
                return false;
        if (p->iotime_ns && now - p->last_think >= (int64_t)p->iotime_ns)
                return true;
        return p->think_blocks && b >= p->last_blocks + p->think_blocks;
}

void pacing_think_done(pacing_t *p, uint64_t done, uint64_t issued, int64_t now)
{
        p->last_blocks = p->by_issue ? issued : done;
        p->last_think = now;
}

void pacing_poisson_next(pacing_t *p, unsigned ddir)
{
        /* fio: (1e6 / IOPS) x -ln(U), U in (0, 1], in microseconds */
        double u = ((double)fiorand_next(&p->prng[ddir]) + 1.0) / 4294967296.0;
        p->next_ns[ddir] += (int64_t)(p->gap_ns[ddir] * -log(u));
}

int pacing_check_min(pacing_t *p, const uint64_t bytes[2], const uint64_t ios[2], int64_t now,
                     char *err, size_t errlen)
{
        static const char *const names[2] = {"read", "write"};

        if (now < p->settle_end)
                return 0;
        for (unsigned d = 0; d < 2; d++) {
                int64_t spent;
                uint64_t got;
                if ((!p->rate_min[d] && !p->iops_min[d]) || (!bytes[d] && !ios[d]))
                        continue;
                if (!p->have_base[d]) {
                        p->have_base[d] = true;
                        p->base_bytes[d] = bytes[d];
                        p->base_ios[d] = ios[d];
                        p->base_t[d] = now;
                        continue;
                }
                spent = now - p->base_t[d];
                if (spent < p->cycle_ns)
                        continue;
                if (p->rate_min[d]) {
                        got = (uint64_t)((double)(bytes[d] - p->base_bytes[d]) * 1e9 / (double)spent);
                        if (got < p->rate_min[d]) {
                                snprintf(err, errlen,
                                         "rate_min=%llu B/s of %ss not met: %llu B/s over the "
                                         "last %lld ms",
                                         (unsigned long long)p->rate_min[d], names[d],
                                         (unsigned long long)got,
                                         (long long)(spent / (int64_t)NSEC_PER_MSEC));
                                return -EIO;
                        }
                } else {
                        got = (uint64_t)((double)(ios[d] - p->base_ios[d]) * 1e9 / (double)spent);
                        if (got < p->iops_min[d]) {
                                snprintf(err, errlen,
                                         "rate_iops_min=%llu of %ss not met: %llu IOPS over the "
                                         "last %lld ms",
                                         (unsigned long long)p->iops_min[d], names[d],
                                         (unsigned long long)got,
                                         (long long)(spent / (int64_t)NSEC_PER_MSEC));
                                return -EIO;
                        }
                }
                p->base_bytes[d] = bytes[d];
                p->base_ios[d] = ios[d];
                p->base_t[d] = now;
        }
        return 0;
}

static void new_window(pacing_t *p, int64_t now)
{
        p->win_start = now;
        p->win_ios = p->win_failed = 0;
}

/* A window (or, at percentile 100, one I/O) missed the target: bisect the depth down towards
 * the last one that met it (fio's __lat_target_failed()). false at depth 1: nothing lower. */
static bool depth_down(pacing_t *p, int64_t now)
{
        if (p->qd == 1)
                return false;
        p->qd_high = p->qd;
        if (p->qd == p->qd_low)
                p->qd_low--;
        p->qd = (p->qd + p->qd_low) / 2;
        if (p->qd < 1)
                p->qd = 1;
        p->stable = 0;
        new_window(p, now);
        return true;
}

int pacing_lat_sample(pacing_t *p, uint64_t lat_ns, int64_t now)
{
        if (!p->lat_target)
                return PACING_LAT_OK;
        p->win_ios++;
        if (lat_ns <= p->lat_target)
                return PACING_LAT_OK;
        if (p->lat_percentile < 100.0) {
                p->win_failed++;
                return PACING_LAT_OK;
        }
        return depth_down(p, now) ? PACING_LAT_DOWN : PACING_LAT_FATAL;
}

int pacing_lat_window(pacing_t *p, int64_t now)
{
        unsigned old = p->qd;
        double ok;

        if (!p->lat_target || now - p->win_start < (int64_t)p->lat_window || !p->win_ios)
                return PACING_WIN_NONE;
        ok = (double)(p->win_ios - p->win_failed) * 100.0 / (double)p->win_ios;
        if (ok < p->lat_percentile) {
                /* fio leaves a depth of 1 that misses the target as it is */
                if (!depth_down(p, now))
                        return PACING_WIN_NONE;
                return PACING_WIN_CHANGED;
        }
        /* met: double the depth until a failure, then bisect towards the failed one, reaching
         * past it slowly once three windows in a row sat just below it (fio's
         * lat_target_success()) */
        p->qd_low = p->qd;
        if (p->qd + 1 == p->qd_high && ++p->stable >= 3) {
                p->qd_high++;
                p->stable = 0;
        }
        if (p->qd_high != p->depth)
                p->qd = (p->qd + p->qd_high) / 2;
        else
                p->qd *= 2;
        if (p->qd > p->depth)
                p->qd = p->depth;
        new_window(p, now);
        if (!p->lat_run && p->qd == old) {
                if (p->final_run)
                        return PACING_WIN_DONE;
                p->final_run = true;
                return PACING_WIN_FINAL;
        }
        return p->qd == old ? PACING_WIN_NONE : PACING_WIN_CHANGED;
}
