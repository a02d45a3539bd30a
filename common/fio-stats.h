/* fio's job statistics beyond counts and latencies (fio's stat.c and io_u.c, in iofleet's
 * words): I/O depth and batch buckets, bandwidth and IOPS samples, CPU usage, and the shares fio
 * reports of them. Pure arithmetic: workers fill them, the wire carries them, the coordinator
 * adds and reports them. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/* fio's seven buckets of io_u_map (depth), io_u_submit and io_u_complete (batch sizes). */
#define FIO_DEPTH_BUCKETS 7

/* A series of samples as fio's io_stat keeps one: least, greatest, how many, and the running
 * mean and sum of squared deviations (Welford's method). */
typedef struct fio_sstat {
        uint64_t min, max, samples;
        double mean, S;
} fio_sstat_t;

void fio_sstat_add(fio_sstat_t *s, uint64_t v);
/* dst += src as fio adds bandwidth and IOPS series of several jobs (group_reporting, client
 * mode's "All clients"): min, max, mean and S each add up, the samples too. */
void fio_sstat_sum(fio_sstat_t *dst, const fio_sstat_t *src);
/* The sample standard deviation (n - 1), 0 below two samples. */
double fio_sstat_dev(const fio_sstat_t *s);

/* A job's (or one worker's) statistics of this kind. */
typedef struct fio_job_stats {
        uint64_t depth[FIO_DEPTH_BUCKETS];    /* I/Os submitted at each depth (fio's io_u_map) */
        uint64_t submit[FIO_DEPTH_BUCKETS];   /* submit calls by how many they took */
        uint64_t complete[FIO_DEPTH_BUCKETS]; /* reaps by how many they returned */
        uint64_t total_submit, total_complete;
        uint64_t usr_ns, sys_ns, ctx, majf, minf; /* getrusage() of the workers' threads */
        uint64_t run_ns; /* the workers' measured run times added: what usr/sys are shares of */
        fio_sstat_t bw[2], iops[2]; /* per direction: KiB/s and IO/s samples */
        uint32_t latency_depth;     /* the depth latency_target settled on, else iodepth (fio's
                                     * latency_qd); the last worker's when added, as fio's */
} fio_job_stats_t;

/* dst += src: counts add, series as fio_sstat_sum(). */
void fio_job_stats_add(fio_job_stats_t *dst, const fio_job_stats_t *src);

/* fio's io_u_map bucket of the depth an I/O went in at: 1, 2-3, 4-7, 8-15, 16-31, 32-63, >=64. */
unsigned fio_depth_bucket(unsigned depth);
/* fio's io_u_submit / io_u_complete bucket of a batch: 0, 1-4, 5-8, 9-16, 17-32, 33-64, >64. */
unsigned fio_batch_bucket(unsigned nr);
/* Each bucket as a percentage of total, as fio's stat_calc_dist(): a non-empty bucket shows at
 * least 0.1; all zero when total is. */
void fio_depth_shares(const uint64_t map[FIO_DEPTH_BUCKETS], uint64_t total,
                      double out[FIO_DEPTH_BUCKETS]);
/* A latency bucket's percentage of total, as fio's stat_calc_lat(): at least 0.01 when non-empty.
 */
double fio_lat_share(uint64_t count, uint64_t total);
/* usr_cpu / sys_cpu: CPU time as a percentage of the run time it was spent in (0 without). */
double fio_cpu_percent(uint64_t cpu_ns, uint64_t run_ns);

/* Takes bandwidth or IOPS samples the way fio's bwavgtime/iopsavgtime do: every `every` since
 * the previous boundary (missed boundaries skipped, never caught up with empty samples), one
 * sample per direction that moved since the last one (fio takes none for a direction that did
 * not), its count over the time since, per second, divided by div (1024: KiB/s; 1: IO/s). */
typedef struct fio_sampler {
        int64_t last_ns, due_ns; /* the previous boundary, and when the next sample is due */
        uint64_t every_ns;
        uint64_t base[2]; /* counts at the previous sample of each direction */
} fio_sampler_t;

/* Starts at now from counts (what has been done so far counts as before the first sample). */
void fio_sampler_start(fio_sampler_t *sp, uint64_t every_ns, int64_t now, const uint64_t count[2]);
/* Whether a sample is due at now. */
static inline bool fio_sampler_due(const fio_sampler_t *sp, int64_t now)
{
        return now >= sp->due_ns;
}
/* When due at now: samples of the counts into out[direction]; returns whether it was due. */
bool fio_sampler_take(fio_sampler_t *sp, int64_t now, const uint64_t count[2], uint64_t div,
                      fio_sstat_t out[2]);
