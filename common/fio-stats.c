/* fio's job statistics beyond counts and latencies: depth and batch buckets, bandwidth and IOPS
 * samples, CPU shares. */
#include "fio-stats.h"

#include <math.h>
#include <string.h>

#include "util.h"

/* fio allows its samples a millisecond of slack against the boundary (LOG_MSEC_SLACK). */
#define SAMPLE_SLACK_NS ((int64_t)NSEC_PER_MSEC)

void fio_sstat_add(fio_sstat_t *s, uint64_t v)
{
        double x = (double)v, delta;

        if (!s->samples || v < s->min)
                s->min = v;
        if (!s->samples || v > s->max)
                s->max = v;
        delta = x - s->mean;
        s->mean += delta / (double)(s->samples + 1);
        s->S += delta * (x - s->mean);
        s->samples++;
}

void fio_sstat_sum(fio_sstat_t *dst, const fio_sstat_t *src)
{
        if (!src->samples)
                return;
        if (!dst->samples) {
                *dst = *src;
                return;
        }
        dst->min += src->min;
        dst->max += src->max;
        dst->samples += src->samples;
        dst->mean += src->mean;
        dst->S += src->S;
}

double fio_sstat_dev(const fio_sstat_t *s)
{
        if (s->samples < 2 || !(s->S > 0))
                return 0;
        return sqrt(s->S / (double)(s->samples - 1));
}

void fio_job_stats_add(fio_job_stats_t *dst, const fio_job_stats_t *src)
{
        for (unsigned i = 0; i < FIO_DEPTH_BUCKETS; i++) {
                dst->depth[i] += src->depth[i];
                dst->submit[i] += src->submit[i];
                dst->complete[i] += src->complete[i];
        }
        dst->total_submit += src->total_submit;
        dst->total_complete += src->total_complete;
        dst->usr_ns += src->usr_ns;
        dst->sys_ns += src->sys_ns;
        dst->ctx += src->ctx;
        dst->majf += src->majf;
        dst->minf += src->minf;
        dst->run_ns += src->run_ns;
        for (int d = 0; d < 2; d++) {
                fio_sstat_sum(&dst->bw[d], &src->bw[d]);
                fio_sstat_sum(&dst->iops[d], &src->iops[d]);
        }
        if (src->latency_depth)
                dst->latency_depth = src->latency_depth;
}

unsigned fio_depth_bucket(unsigned depth)
{
        unsigned b = 0;

        /* 1 | 2-3 | 4-7 | 8-15 | 16-31 | 32-63 | 64 and more: one bucket per power of two */
        while (depth >= 2 && b < FIO_DEPTH_BUCKETS - 1) {
                depth >>= 1;
                b++;
        }
        return b;
}

unsigned fio_batch_bucket(unsigned nr)
{
        /* 0 | 1-4 | 5-8 | 9-16 | 17-32 | 33-64 | more: the upper bounds double from 4 */
        unsigned b = 1, top = 4;

        if (nr == 0)
                return 0;
        while (nr > top && b < FIO_DEPTH_BUCKETS - 1) {
                top *= 2;
                b++;
        }
        return b;
}

void fio_depth_shares(const uint64_t map[FIO_DEPTH_BUCKETS], uint64_t total,
                      double out[FIO_DEPTH_BUCKETS])
{
        for (unsigned i = 0; i < FIO_DEPTH_BUCKETS; i++) {
                out[i] = total ? 100.0 * (double)map[i] / (double)total : 0;
                if (total && map[i] && out[i] < 0.1)
                        out[i] = 0.1;
        }
}

double fio_lat_share(uint64_t count, uint64_t total)
{
        double v = total ? 100.0 * (double)count / (double)total : 0;
        return total && count && v < 0.01 ? 0.01 : v;
}

double fio_cpu_percent(uint64_t cpu_ns, uint64_t run_ns)
{
        return run_ns ? 100.0 * (double)cpu_ns / (double)run_ns : 0;
}

void fio_sampler_start(fio_sampler_t *sp, uint64_t every_ns, int64_t now, const uint64_t count[2])
{
        memset(sp, 0, sizeof(*sp));
        sp->every_ns = every_ns ? every_ns : NSEC_PER_MSEC;
        sp->last_ns = now;
        sp->due_ns = now + (int64_t)sp->every_ns - SAMPLE_SLACK_NS;
        sp->base[0] = count[0];
        sp->base[1] = count[1];
}

bool fio_sampler_take(fio_sampler_t *sp, int64_t now, const uint64_t count[2], uint64_t div,
                      fio_sstat_t out[2])
{
        uint64_t spent_ms, periods;

        if (now < sp->due_ns)
                return false;
        /* fio computes in whole milliseconds */
        spent_ms = (uint64_t)(now - sp->last_ns) / NSEC_PER_MSEC;
        if (!spent_ms)
                spent_ms = 1;
        for (int d = 0; d < 2; d++) {
                uint64_t delta = count[d] - sp->base[d];
                if (!delta)
                        continue;
                fio_sstat_add(&out[d], (uint64_t)((unsigned __int128)delta * 1000 / spent_ms /
                                                  (div ? div : 1)));
                sp->base[d] = count[d];
        }
        periods = (uint64_t)(now - sp->last_ns + SAMPLE_SLACK_NS) / sp->every_ns;
        sp->last_ns += (int64_t)((periods ? periods : 1) * sp->every_ns);
        sp->due_ns = sp->last_ns + (int64_t)sp->every_ns - SAMPLE_SLACK_NS;
        return true;
}
