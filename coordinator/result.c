/* A finished run as documents: fio-compatible JSON (client_stats, "All clients") plus iofleet's own
 * figures. */
#include "result.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "intervals.h"
#include "log.h"
#include "result-fio.h"
#include "run-logs.h"
#include "util.h"

/* Totals of one direction, merged over workers, jobs or agents. */
/* The counters of a direction, named alike in the wire's DirStats and here: one list for every
 * sum. */
#define DIR_ACC_COUNTERS(X)                                                                        \
        X(bytes) X(ios) X(errors) X(short_ios) X(issued) X(dropped) X(syncs) X(verify_errors)
#define DIR_ACC_FIELD(f) uint64_t f;
#define DIR_ACC_SUM(f) d->f += s->f;

typedef struct dir_acc {
        DIR_ACC_COUNTERS(DIR_ACC_FIELD)
        hist_t *clat, *slat, *lat, *sync_lat;
} dir_acc_t;

static void dir_acc_done(dir_acc_t *d)
{
        hist_free(&d->clat);
        hist_free(&d->slat);
        hist_free(&d->lat);
        hist_free(&d->sync_lat);
}

static int dir_acc_init(dir_acc_t *d)
{
        int r;
        memset(d, 0, sizeof(*d));
        if ((r = hist_new(&d->clat)) < 0 || (r = hist_new(&d->slat)) < 0 ||
            (r = hist_new(&d->lat)) < 0 || (r = hist_new(&d->sync_lat)) < 0)
                dir_acc_done(d);
        return r;
}

static void dir_acc_add(dir_acc_t *d, const Iofleet__DirStats *s)
{
        if (!s)
                return;
        DIR_ACC_COUNTERS(DIR_ACC_SUM)
        wire_hist_add(d->sync_lat, s->sync_lat);
        wire_hist_add(d->clat, s->clat);
        wire_hist_add(d->slat, s->slat);
        /* A synchronous engine has no submission phase: its total latency is its completion
         * latency, as fio reports it. */
        wire_hist_add(d->lat, s->lat && s->lat->n ? s->lat : s->clat);
}

/* d += s, as two directions become fio's "mixed". */
static void dir_acc_merge(dir_acc_t *d, const dir_acc_t *s)
{
        DIR_ACC_COUNTERS(DIR_ACC_SUM)
        hist_merge(d->sync_lat, s->sync_lat);
        hist_merge(d->clat, s->clat);
        hist_merge(d->slat, s->slat);
        hist_merge(d->lat, s->lat);
}

/* What a job's statistics options ask the result for (fio's percentile_list, clat/lat/
 * slat_percentiles, disable_*, gtod_reduce, stats). */
typedef struct report_opts {
        double p[JOB_PERCENTILES_MAX];
        size_t np;
        bool pct[3];      /* percentiles of slat, clat, lat */
        bool lat_off, bw_off;
        bool stats;
        int unified; /* JOB_UNIFIED_*: a "mixed" block instead of, or beside, read and write */
} report_opts_t;

static void report_opts_default(report_opts_t *ro)
{
        memset(ro, 0, sizeof(*ro));
        ro->np = ELEMENTSOF(hist_default_percentiles);
        memcpy(ro->p, hist_default_percentiles, sizeof(hist_default_percentiles));
        ro->pct[1] = true;
        ro->stats = true;
}

/* The options of the run's job called name; fio's defaults when there is none. Returns the
 * job's spec, or NULL. */
static const job_spec_t *report_opts_of(const coord_run_t *run, const char *name, report_opts_t *ro)
{
        const job_spec_t *j = NULL;

        report_opts_default(ro);
        for (size_t k = 0; name && k < run->n_specs && !j; k++)
                if (streq(run->specs[k].name, name))
                        j = &run->specs[k];
        if (!j)
                return NULL;
        if (!strempty(j->percentile_list)) {
                char err[128];
                int n = job_percentile_list(j->percentile_list, ro->p, err, sizeof(err));
                if (n > 0)
                        ro->np = (size_t)n;
        }
        ro->pct[0] = j->slat_percentiles;
        ro->pct[1] = j->clat_percentiles;
        ro->pct[2] = j->lat_percentiles;
        ro->lat_off = j->disable_lat || j->gtod_reduce;
        ro->bw_off = j->disable_bw || j->gtod_reduce;
        ro->stats = j->stats;
        ro->unified = j->unified_rw;
        return j;
}

/* A latency block; with pct its percentiles (ro's list) and json+'s bins. h NULL: not
 * measured, zeros as fio reports them. */
static json_t *lat_json(const hist_t *h, const report_opts_t *ro, bool pct)
{
        json_t *o = json_object();
        if (!h) {
                json_object_set_new(o, "min", json_integer(0));
                json_object_set_new(o, "max", json_integer(0));
                json_object_set_new(o, "mean", json_real(0));
                json_object_set_new(o, "stddev", json_real(0));
                json_object_set_new(o, "N", json_integer(0));
                return o;
        }
        json_object_set_new(o, "min", json_integer(h->n ? (json_int_t)h->min : 0));
        json_object_set_new(o, "max", json_integer((json_int_t)h->max));
        json_object_set_new(o, "mean", json_real(hist_mean(h)));
        json_object_set_new(o, "stddev", json_real(hist_stddev(h)));
        json_object_set_new(o, "N", json_integer((json_int_t)h->n));
        if (h->n && pct) {
                json_t *p = json_object();
                uint64_t v[JOB_PERCENTILES_MAX];
                hist_percentiles(h, ro->p, ro->np, v);
                for (size_t i = 0; i < ro->np; i++) {
                        char key[32];
                        snprintf(key, sizeof(key), "%f", ro->p[i]);
                        json_object_set_new(p, key, json_integer((json_int_t)v[i]));
                }
                json_object_set_new(o, "percentile", p);
                /* json+'s bins; the CLI leaves them out of plain json, as fio */
                json_object_set_new(o, "bins", result_fio_bins(h));
        }
        return o;
}

/* Metadata phases summed over entries: ops add up, time is the longest, latency merges. */
#define RESULT_MAX_PHASES 16
typedef struct phase_acc {
        char name[WIRE_MAX_NAME + 1];
        uint64_t ops, errors, bytes, elapsed_ns;
        hist_t *lat;
} phase_acc_t;

static void phases_add(phase_acc_t *acc, size_t *n, const Iofleet__JobResult *jr)
{
        for (size_t q = 0; q < jr->n_phases; q++) {
                const Iofleet__Phase *p = jr->phases[q];
                size_t i;
                for (i = 0; i < *n && !streq(acc[i].name, p->name); i++)
                        ;
                if (i == *n) {
                        if (*n == RESULT_MAX_PHASES || hist_new(&acc[i].lat) < 0)
                                continue;
                        snprintf(acc[i].name, sizeof(acc[i].name), "%s", p->name);
                        (*n)++;
                }
                acc[i].ops += p->ops;
                acc[i].errors += p->errors;
                acc[i].bytes += p->bytes;
                if (p->elapsed_ns > acc[i].elapsed_ns)
                        acc[i].elapsed_ns = p->elapsed_ns;
                wire_hist_add(acc[i].lat, p->lat);
        }
}

/* The metadata workload per phase, as bonnie++ reports it: operations per second and latency. */
static json_t *phases_json(const phase_acc_t *acc, size_t n)
{
        json_t *o = json_object();
        for (size_t i = 0; i < n; i++) {
                json_t *p = json_object();
                json_object_set_new(p, "ops", json_integer((json_int_t)acc[i].ops));
                json_object_set_new(p, "errors", json_integer((json_int_t)acc[i].errors));
                json_object_set_new(p, "bytes", json_integer((json_int_t)acc[i].bytes));
                json_object_set_new(p, "elapsed_ns", json_integer((json_int_t)acc[i].elapsed_ns));
                json_object_set_new(
                    p, "ops_per_sec",
                    json_real(acc[i].elapsed_ns ? acc[i].ops * 1e9 / acc[i].elapsed_ns : 0));
                report_opts_t ro;
                report_opts_default(&ro);
                json_object_set_new(p, "lat_ns", lat_json(acc[i].lat, &ro, true));
                json_object_set_new(o, acc[i].name, p);
        }
        return o;
}

static void phases_done(phase_acc_t *acc, size_t n)
{
        for (size_t i = 0; i < n; i++)
                hist_free(&acc[i].lat);
}

/* Series statistics of per-interval samples: min, max, mean, population stddev. */
typedef struct series {
        double min, max, sum, sumsq;
        uint64_t n;
} series_t;

static void series_add(series_t *s, double v)
{
        if (s->n == 0 || v < s->min)
                s->min = v;
        if (s->n == 0 || v > s->max)
                s->max = v;
        s->sum += v;
        s->sumsq += v * v;
        s->n++;
}

static double series_mean(const series_t *s)
{
        return s->n ? s->sum / s->n : 0;
}

static double series_dev(const series_t *s)
{
        double m = series_mean(s), v;
        if (s->n < 2)
                return 0;
        v = s->sumsq / s->n - m * m;
        return v > 0 ? sqrt(v) : 0;
}

/* One fio "read"/"write" block. bw and iops: fio's series of samples (NULL: none); agg: the
 * bandwidth (bytes/s) of the entry's group, which bw_agg is a share of (fio's rs->agg). */
static json_t *dir_json(const dir_acc_t *d, uint64_t runtime_ns, const fio_sstat_t *bw,
                        const fio_sstat_t *iops, double agg, const report_opts_t *ro)
{
        static const fio_sstat_t none;
        json_t *o = json_object();
        double secs = runtime_ns / 1e9, per = 0;
        uint64_t bw_bytes = secs > 0 ? (uint64_t)(d->bytes / secs) : 0;

        json_object_set_new(o, "io_bytes", json_integer((json_int_t)d->bytes));
        json_object_set_new(o, "io_kbytes", json_integer((json_int_t)(d->bytes / 1024)));
        json_object_set_new(o, "bw_bytes", json_integer((json_int_t)bw_bytes));
        json_object_set_new(o, "bw", json_integer((json_int_t)(bw_bytes / 1024)));
        json_object_set_new(o, "iops", json_real(secs > 0 ? d->ios / secs : 0));
        json_object_set_new(o, "runtime",
                            json_integer((json_int_t)((runtime_ns + 500000) / 1000000)));
        json_object_set_new(o, "total_ios", json_integer((json_int_t)d->ios));
        json_object_set_new(o, "short_ios", json_integer((json_int_t)d->short_ios));
        json_object_set_new(o, "drop_ios", json_integer((json_int_t)d->dropped));
        json_object_set_new(o, "issued_ios", json_integer((json_int_t)d->issued));
        json_object_set_new(o, "verify_errors", json_integer((json_int_t)d->verify_errors));
        json_object_set_new(o, "errors", json_integer((json_int_t)d->errors));
        json_object_set_new(o, "slat_ns", lat_json(d->slat, ro, ro->pct[0]));
        json_object_set_new(o, "clat_ns", lat_json(d->clat, ro, ro->pct[1]));
        /* a synchronous engine's lat is its clat (dir_acc_add()), unless lat is not measured */
        json_object_set_new(o, "lat_ns", lat_json(ro->lat_off ? NULL : d->lat, ro, ro->pct[2]));
        if (ro->bw_off || !bw)
                bw = &none;
        if (ro->bw_off || !iops)
                iops = &none;
        if (bw->samples) {
                /* fio's convert_agg_kbytes_percent(): the mean's share of the group's rate */
                per = 100.0;
                if (agg > 1024 && bw->mean * 100.0 / (agg / 1024) < 100.0)
                        per = bw->mean * 100.0 / (agg / 1024);
        }
        json_object_set_new(o, "bw_min", json_integer((json_int_t)bw->min));
        json_object_set_new(o, "bw_max", json_integer((json_int_t)bw->max));
        json_object_set_new(o, "bw_agg", json_real(per));
        json_object_set_new(o, "bw_mean", json_real(bw->mean));
        json_object_set_new(o, "bw_dev", json_real(fio_sstat_dev(bw)));
        json_object_set_new(o, "bw_samples", json_integer((json_int_t)bw->samples));
        json_object_set_new(o, "iops_min", json_integer((json_int_t)iops->min));
        json_object_set_new(o, "iops_max", json_integer((json_int_t)iops->max));
        json_object_set_new(o, "iops_mean", json_real(iops->mean));
        json_object_set_new(o, "iops_stddev", json_real(fio_sstat_dev(iops)));
        json_object_set_new(o, "iops_samples", json_integer((json_int_t)iops->samples));
        return o;
}

/* The interval series of the cluster as figures (KiB/s and IO/s, min, max, mean, population
 * deviation and count), per direction: what every agent did at once, interval by interval. */
static json_t *series_json(const series_t *bw, const series_t *iops)
{
        json_t *o = json_object();
        json_object_set_new(o, "bw_min", json_integer((json_int_t)(bw->min / 1024)));
        json_object_set_new(o, "bw_max", json_integer((json_int_t)(bw->max / 1024)));
        json_object_set_new(o, "bw_mean", json_real(series_mean(bw) / 1024));
        json_object_set_new(o, "bw_dev", json_real(series_dev(bw) / 1024));
        json_object_set_new(o, "bw_samples", json_integer((json_int_t)bw->n));
        json_object_set_new(o, "iops_min", json_integer((json_int_t)iops->min));
        json_object_set_new(o, "iops_max", json_integer((json_int_t)iops->max));
        json_object_set_new(o, "iops_mean", json_real(series_mean(iops)));
        json_object_set_new(o, "iops_stddev", json_real(series_dev(iops)));
        json_object_set_new(o, "iops_samples", json_integer((json_int_t)iops->n));
        return o;
}

/* Latest worker end of an agent, relative to the start: intervals ending after it are partial. */
static uint64_t agent_end_ns(const run_agent_t *a)
{
        uint64_t end = 0;
        if (!a->finished)
                return 0;
        for (size_t j = 0; j < a->finished->finished->n_jobs; j++)
                if (a->finished->finished->jobs[j]->last_done_ns > end)
                        end = a->finished->finished->jobs[j]->last_done_ns;
        return end;
}

/* What the interval series give the result, gathered in one pass over them (from the spool of
 * a long run, or from memory): per agent and cluster bw/iops series, the bytes each agent moved
 * up to the first worker's end, and the intervals[] of the JSON (capped). */
#define RESULT_MAX_JSON_ROWS 200000

typedef struct ivpass {
        const coord_run_t *run;
        uint64_t from, cluster_end, first;
        uint64_t *end;                       /* per agent: its last worker's end */
        series_t cbw[2], ciops[2];           /* cluster, [read, write] */
        uint64_t *sum[2];                    /* per agent: bytes over its intervals */
        double *at_first[2];                 /* per agent: bytes up to first */
        json_t *ivs, *cur;                   /* intervals[] and the interval being filled */
        size_t rows;
        bool truncated;
        /* Per agent: the next interval it is to deliver, what it did not, and its gaps. */
        uint64_t *next_k, *missing, *iv_ios[2];
        json_t **gaps;
} ivpass_t;

#define RESULT_MAX_GAPS 64

/* Agent i did not deliver intervals from..to: a gap of its own, and in each of those intervals
 * a name under "missing". */
static void note_gap(ivpass_t *p, size_t i, uint64_t from, uint64_t to)
{
        const run_agent_t *a = &p->run->agents[i];
        if (to < from)
                return;
        p->missing[i] += to - from + 1;
        if (json_array_size(p->gaps[i]) < RESULT_MAX_GAPS) {
                json_t *g = json_array();
                json_array_append_new(g, json_integer((json_int_t)from));
                json_array_append_new(g, json_integer((json_int_t)to));
                json_array_append_new(p->gaps[i], g);
        }
        for (uint64_t k = from; k <= to && k < json_array_size(p->ivs); k++) {
                json_t *iv = json_array_get(p->ivs, k), *m = json_object_get(iv, "missing");
                if (!m) {
                        m = json_array();
                        json_object_set_new(iv, "missing", m);
                }
                json_array_append_new(m, json_string(a->name));
        }
}

/* The last interval agent i was to deliver: its own last, else the run's. */
static int64_t expected_end(const coord_run_t *run, const run_agent_t *a)
{
        if (a->last_index >= 0)
                return a->last_index;
        return (int64_t)run->n_civ - 1;
}

/* Samples of full intervals only, so a final partial interval does not drag the minimum down;
 * none before the earliest start delay and ramp are over. */
static int ivpass_row(void *user, const run_iv_row_t *row)
{
        ivpass_t *p = user;
        const coord_run_t *run = p->run;
        double secs = run->interval_ns / 1e9;
        uint64_t k = row->k, iv = run->interval_ns;
        const run_interval_t *v = &row->v;
        uint64_t bytes[2] = {v->io.read_bytes, v->io.write_bytes}, ios[2] = {v->io.read_ios, v->io.write_ios};
        bool json = p->rows < RESULT_MAX_JSON_ROWS;

        p->rows++;
        if (!json)
                p->truncated = true;
        if (!row->a) {
                if ((k + 1) * iv <= p->cluster_end && k * iv >= p->from)
                        for (int w = 0; w < 2; w++) {
                                series_add(&p->cbw[w], bytes[w] / secs);
                                series_add(&p->ciops[w], ios[w] / secs);
                        }
                p->cur = NULL;
                if (json) {
                        json_t *j = json_object();
                        json_object_set_new(j, "index", json_integer((json_int_t)k));
                        json_object_set_new(j, "start_ns",
                                            json_integer(run->start_ns + (int64_t)(k * iv)));
                        json_object_set_new(j, "read_bytes", json_integer((json_int_t)bytes[0]));
                        json_object_set_new(j, "write_bytes", json_integer((json_int_t)bytes[1]));
                        json_object_set_new(j, "read_ios", json_integer((json_int_t)ios[0]));
                        json_object_set_new(j, "meta_ops", json_integer((json_int_t)v->io.meta_ops));
                        json_object_set_new(j, "write_ios", json_integer((json_int_t)ios[1]));
                        json_object_set_new(j, "errors", json_integer((json_int_t)v->io.errors));
                        json_object_set_new(j, "reported", json_integer(row->reported));
                        if (row->clat_p99_ns) {
                                json_object_set_new(j, "clat_p50_ns",
                                                    json_integer((json_int_t)row->clat_p50_ns));
                                json_object_set_new(j, "clat_p99_ns",
                                                    json_integer((json_int_t)row->clat_p99_ns));
                        }
                        p->cur = json_array();
                        json_object_set_new(j, "agents", p->cur);
                        json_array_append_new(p->ivs, j);
                }
                return 0;
        }
        size_t i = (size_t)(row->a - run->agents);
        uint64_t end = p->end[i], from = k * iv, to = (k + 1) * iv;
        if (k > p->next_k[i] && run_expects(run, row->a, p->next_k[i]))
                note_gap(p, i, p->next_k[i], k - 1);
        if (k + 1 > p->next_k[i])
                p->next_k[i] = k + 1;
        for (int w = 0; w < 2; w++) {
                p->sum[w][i] += bytes[w];
                p->iv_ios[w][i] += ios[w];
                /* Up to the first end: whole intervals, and the share of the one holding it
                 * (an agent's last interval counts only up to its own end). */
                if (p->first && from < p->first) {
                        uint64_t t = p->first, upto = to;
                        if (end && end < upto)
                                upto = end > from ? end : from + 1;
                        p->at_first[w][i] += t >= upto ? (double)bytes[w]
                                                       : (double)bytes[w] * (double)(t - from) /
                                                             (double)(upto - from);
                }
        }
        if (json && p->cur) {
                json_t *pa = json_object();
                json_object_set_new(pa, "name", json_string(row->a->name));
                json_object_set_new(pa, "read_bytes", json_integer((json_int_t)bytes[0]));
                json_object_set_new(pa, "write_bytes", json_integer((json_int_t)bytes[1]));
                json_object_set_new(pa, "read_ios", json_integer((json_int_t)ios[0]));
                json_object_set_new(pa, "write_ios", json_integer((json_int_t)ios[1]));
                json_array_append_new(p->cur, pa);
        }
        return 0;
}

static void ivpass_done(ivpass_t *p)
{
        for (size_t i = 0; p->gaps && i < p->run->n_agents; i++)
                json_decref(p->gaps[i]);
        free(p->gaps);
        free(p->next_k);
        free(p->missing);
        free(p->iv_ios[0]);
        free(p->iv_ios[1]);
        free(p->end);
        for (int w = 0; w < 2; w++) {
                free(p->sum[w]);
                free(p->at_first[w]);
        }
        json_decref(p->ivs);
        memset(p, 0, sizeof(*p));
}

static int ivpass_run(const coord_run_t *run, ivpass_t *p)
{
        size_t n = run->n_agents ? run->n_agents : 1;
        memset(p, 0, sizeof(*p));
        p->run = run;
        p->end = calloc(n, sizeof(*p->end));
        p->next_k = calloc(n, sizeof(*p->next_k));
        p->missing = calloc(n, sizeof(*p->missing));
        p->iv_ios[0] = calloc(n, sizeof(uint64_t));
        p->iv_ios[1] = calloc(n, sizeof(uint64_t));
        p->gaps = calloc(n, sizeof(*p->gaps));
        p->ivs = json_array();
        if (!p->next_k || !p->missing || !p->iv_ios[0] || !p->iv_ios[1] || !p->gaps)
                goto nomem;
        for (size_t i = 0; i < run->n_agents; i++)
                if (!(p->gaps[i] = json_array()))
                        goto nomem;
        for (int w = 0; w < 2; w++) {
                p->sum[w] = calloc(n, sizeof(uint64_t));
                p->at_first[w] = calloc(n, sizeof(double));
                if (!p->sum[w] || !p->at_first[w])
                        goto nomem;
        }
        if (!p->end || !p->ivs)
                goto nomem;
        p->from = intervals_counting_from(run->specs, run->n_specs);
        /* The cluster figure is complete while every agent still runs. */
        p->cluster_end = UINT64_MAX;
        p->first = UINT64_MAX;
        for (size_t i = 0; i < run->n_agents; i++) {
                const run_agent_t *a = &run->agents[i];
                p->end[i] = agent_end_ns(a);
                if (a->finished && p->end[i] < p->cluster_end)
                        p->cluster_end = p->end[i];
                for (size_t q = 0; a->finished && q < a->finished->finished->n_jobs; q++) {
                        uint64_t f = a->finished->finished->jobs[q]->first_done_ns;
                        p->first = f < p->first ? f : p->first;
                }
        }
        if (p->first == UINT64_MAX)
                p->first = 0;
        int r = run_intervals_each(run, ivpass_row, p);
        if (r < 0)
                return r;
        /* What each agent still owed after the last interval it delivered. */
        for (size_t i = 0; i < run->n_agents; i++) {
                const run_agent_t *a = &run->agents[i];
                int64_t end = expected_end(run, a);
                if (run_expects(run, a, p->next_k[i]) && (int64_t)p->next_k[i] <= end)
                        note_gap(p, i, p->next_k[i], (uint64_t)end);
        }
        return 0;
nomem:
        ivpass_done(p);
        return -ENOMEM;
}

/* fio's "steadystate" block of a job. */
static json_t *steadystate_json(const Iofleet__SteadyState *ss)
{
        json_t *o = json_object(), *data = json_object(), *iops = json_array(),
               *bw = json_array();
        json_object_set_new(o, "ss", json_string(ss->ss ? ss->ss : ""));
        json_object_set_new(o, "duration", json_integer((json_int_t)ss->duration_s));
        json_object_set_new(o, "attained", json_integer(ss->attained));
        json_object_set_new(o, "criterion", json_string(ss->criterion ? ss->criterion : ""));
        json_object_set_new(o, "max_deviation", json_real(ss->max_deviation));
        json_object_set_new(o, "slope", json_real(ss->slope));
        json_object_set_new(data, "bw_mean", json_integer((json_int_t)ss->bw_mean));
        json_object_set_new(data, "iops_mean", json_integer((json_int_t)ss->iops_mean));
        for (size_t i = 0; i < ss->n_iops; i++)
                json_array_append_new(iops, json_integer((json_int_t)ss->iops[i]));
        for (size_t i = 0; i < ss->n_bw; i++)
                json_array_append_new(bw, json_integer((json_int_t)ss->bw[i]));
        json_object_set_new(data, "iops", iops);
        json_object_set_new(data, "bw", bw);
        json_object_set_new(o, "data", data);
        return o;
}

/* Whether the job named so goes on after some errors (continue_on_error, ignore_error). */
static bool job_continues_on_error(const coord_run_t *run, const char *name)
{
        for (size_t s = 0; s < run->n_specs; s++)
                if (streq(run->specs[s].name, name))
                        return run->specs[s].continue_on_error ||
                               !strempty(run->specs[s].ignore_error);
        return false;
}

/* The job as submitted: the run's own, or one of a plan's parts. */
static const Iofleet__Job *submitted_job(const Iofleet__SubmitRun *s, const char *name)
{
        for (size_t i = 0; i < s->n_jobs; i++)
                if (streq(s->jobs[i]->name, name))
                        return s->jobs[i];
        for (size_t p = 0; p < s->n_parts; p++)
                for (size_t i = 0; i < s->parts[p]->n_jobs; i++)
                        if (streq(s->parts[p]->jobs[i]->name, name))
                                return s->parts[p]->jobs[i];
        return NULL;
}

/* What a client_stats entry is made of. */
typedef struct entry_in {
        const char *jobname, *hostname, *agent;
        const dir_acc_t *rd, *wr;
        uint64_t runtime_ns;        /* the longest clone's */
        uint64_t elapsed_ns;        /* from the start instant to the job's end */
        uint64_t job_runtime_ns;    /* every clone's run added (fio's total_run_time) */
        const fio_job_stats_t *fio; /* NULL: not measured (an agent's intervals only) */
        double agg[2];              /* the bandwidth of its group per direction, bytes/s */
        int error;
        json_t *options; /* taken over; NULL: none */
        const report_opts_t *ro;
        const job_spec_t *spec; /* the job's options, NULL when not known */
} entry_in_t;

static json_t *client_entry(const entry_in_t *in)
{
        static const fio_job_stats_t unmeasured;
        const fio_job_stats_t *fio = in->fio ? in->fio : &unmeasured;
        const report_opts_t *ro = in->ro;
        const dir_acc_t *rd = in->rd, *wr = in->wr;
        json_t *o = json_object();

        json_object_set_new(o, "jobname", json_string(in->jobname));
        json_object_set_new(o, "groupid", json_integer(0));
        json_object_set_new(o, "error", json_integer(in->error));
        json_object_set_new(o, "job options", in->options ? in->options : json_object());
        if (ro->unified != JOB_UNIFIED_MIXED) {
                json_object_set_new(
                    o, "read",
                    dir_json(rd, in->runtime_ns, &fio->bw[0], &fio->iops[0], in->agg[0], ro));
                json_object_set_new(
                    o, "write",
                    dir_json(wr, in->runtime_ns, &fio->bw[1], &fio->iops[1], in->agg[1], ro));
        }
        if (ro->unified != JOB_UNIFIED_NONE) {
                /* fio's unified_rw_reporting: both directions as one, their series added */
                fio_sstat_t bw = fio->bw[0], iops = fio->iops[0];
                dir_acc_t mx;
                fio_sstat_sum(&bw, &fio->bw[1]);
                fio_sstat_sum(&iops, &fio->iops[1]);
                if (dir_acc_init(&mx) == 0) {
                        dir_acc_merge(&mx, rd);
                        dir_acc_merge(&mx, wr);
                        json_object_set_new(
                            o, "mixed",
                            dir_json(&mx, in->runtime_ns, &bw, &iops, in->agg[0] + in->agg[1], ro));
                }
                dir_acc_done(&mx);
        }
        {
                /* fio's "sync" block: the fsync/fdatasync issued every N writes. */
                json_t *sync = json_object();
                json_object_set_new(sync, "total_ios", json_integer((json_int_t)wr->syncs));
                report_opts_t sro;
                report_opts_default(&sro);
                json_object_set_new(sync, "lat_ns", lat_json(wr->sync_lat, &sro, true));
                json_object_set_new(o, "sync", sync);
        }
        json_object_set_new(o, "job_runtime",
                            json_integer((json_int_t)((in->job_runtime_ns + 500000) / 1000000)));
        result_fio_usage(o, fio, rd->issued + wr->issued);
        {
                const hist_t *clat[2] = {rd->clat, wr->clat};
                result_fio_latency(o, clat, 2, rd->issued + wr->issued);
        }
        result_fio_latency_target(o,
                                  fio->latency_depth ? fio->latency_depth
                                  : in->spec         ? in->spec->iodepth
                                                     : 1,
                                  in->spec);
        result_fio_job_fields(o, in->elapsed_ns);
        json_object_set_new(o, "hostname", json_string(in->hostname));
        if (in->agent)
                json_object_set_new(o, "agent", json_string(in->agent));
        return o;
}

/* fio's rs->agg of an agent: the bytes of its reported jobs (of reporting group groupid, or
 * all for -1) over the longest of their runtimes, per direction. */
static void agent_agg(const coord_run_t *run, const run_agent_t *a, int64_t groupid, double agg[2])
{
        double bytes[2] = {0, 0};
        uint64_t longest = 0;

        agg[0] = agg[1] = 0;
        for (size_t q = 0; a->finished && q < a->finished->finished->n_jobs; q++) {
                const Iofleet__JobResult *jr = a->finished->finished->jobs[q];
                report_opts_t ro;
                report_opts_of(run, jr->name, &ro);
                if (!ro.stats || (groupid >= 0 && jr->groupid != (uint32_t)groupid))
                        continue;
                bytes[0] += jr->read ? (double)jr->read->bytes : 0;
                bytes[1] += jr->write ? (double)jr->write->bytes : 0;
                longest = jr->runtime_ns > longest ? jr->runtime_ns : longest;
        }
        for (int w = 0; w < 2 && longest; w++)
                agg[w] = bytes[w] * 1e9 / (double)longest;
}

/* Size-bound workers end at different times: "first done" is the cluster's rate while every
 * worker still ran (up to the first end on any agent), "last done" the whole (up to the last). */
static json_t *done_json(const coord_run_t *run, const ivpass_t *pass)
{
        json_t *o = json_object();
        uint64_t first = UINT64_MAX, last = 0;
        double at_first[2] = {0, 0}, total[2] = {0, 0};

        for (size_t i = 0; i < run->n_agents; i++) {
                const run_agent_t *a = &run->agents[i];
                for (size_t q = 0; a->finished && q < a->finished->finished->n_jobs; q++) {
                        const Iofleet__JobResult *jr = a->finished->finished->jobs[q];
                        first = jr->first_done_ns < first ? jr->first_done_ns : first;
                        last = jr->last_done_ns > last ? jr->last_done_ns : last;
                        total[0] += jr->read ? (double)jr->read->bytes : 0;
                        total[1] += jr->write ? (double)jr->write->bytes : 0;
                }
        }
        if (first == UINT64_MAX || first == 0 || last == 0) {
                json_decref(o);
                return json_null();
        }
        for (size_t i = 0; i < run->n_agents; i++)
                for (int w = 0; w < 2; w++)
                        at_first[w] += pass->at_first[w][i];
        json_object_set_new(o, "first_done_ns", json_integer((json_int_t)first));
        json_object_set_new(o, "first_done_read_bw_bytes",
                            json_integer((json_int_t)(at_first[0] * 1e9 / (double)first)));
        json_object_set_new(o, "first_done_write_bw_bytes",
                            json_integer((json_int_t)(at_first[1] * 1e9 / (double)first)));
        json_object_set_new(o, "last_done_ns", json_integer((json_int_t)last));
        json_object_set_new(o, "last_done_read_bw_bytes",
                            json_integer((json_int_t)(total[0] * 1e9 / (double)last)));
        json_object_set_new(o, "last_done_write_bw_bytes",
                            json_integer((json_int_t)(total[1] * 1e9 / (double)last)));
        json_object_set_new(o, "first_done_basis", json_string("interval-interpolated"));
        return o;
}

/* Whether every agent delivered every interval it was to. */
static bool complete(const coord_run_t *run, const ivpass_t *pass)
{
        for (size_t i = 0; i < run->n_agents; i++) {
                const run_agent_t *a = &run->agents[i];
                const char *st = run_agent_status(run, a);
                if (pass->missing[i] || (!streq(st, "ok") && !streq(st, "rejoined")))
                        return false;
        }
        return true;
}

/* ok only when every agent delivered every interval; partial when the run went through without
 * some of that (an agent lost or failed, intervals missing), which is never a silent ok. */
static const char *run_status(const coord_run_t *run, const ivpass_t *pass)
{
        switch (run->code) {
        case IOFLEET__ERROR_CODE__ERROR_NONE:
                return complete(run, pass) ? "ok" : "partial";
        case IOFLEET__ERROR_CODE__ERROR_PARTIAL:
                return "partial";
        case IOFLEET__ERROR_CODE__ERROR_CANCELLED:
                return "cancelled";
        default:
                return "error";
        }
}

/* One line for the user: which agents fell short, and how. */
static void partial_summary(const coord_run_t *run, const ivpass_t *pass, char *buf, size_t len)
{
        size_t shown = 0, n = 0;
        int used = 0;
        buf[0] = 0;
        for (size_t i = 0; i < run->n_agents; i++) {
                const run_agent_t *a = &run->agents[i];
                const char *st = run_agent_status(run, a);
                if (!pass->missing[i] && (streq(st, "ok") || streq(st, "rejoined")))
                        continue;
                n++;
                if (shown++ >= 4 || used >= (int)len - 1)
                        continue;
                used += snprintf(buf + used, len - used, "%sagent %s %s", shown > 1 ? "; " : "",
                                 a->name, streq(st, "ok") || streq(st, "rejoined") ? "delivered"
                                                                                     : st);
                if (pass->missing[i] && used < (int)len - 1)
                        used += snprintf(buf + used, len - used, " (%llu intervals missing)",
                                         (unsigned long long)pass->missing[i]);
                else if (pass->missing[i] == 0 && used < (int)len - 1)
                        used += snprintf(buf + used, len - used, " (every interval delivered)");
        }
        if (n > shown && used < (int)len - 1)
                snprintf(buf + used, len - used, "; and %zu more", n - shown);
}


/* The cluster-wide stonewall: each serial group after the first, its instant, the spread of the
 * agents' starts, and each agent's own start (late: given an instant of its own after the
 * group's deadline, or after it came back). */
static json_t *groups_json(const coord_run_t *run)
{
        json_t *arr = json_array();
        for (uint32_t g = 1; g < run->n_groups; g++) {
                const run_group_t *grp = &run->groups[g];
                json_t *o = json_object(), *ag = json_array();
                json_object_set_new(o, "group", json_integer(g));
                json_object_set_new(o, "start_ns", json_integer(grp->start_ns));
                json_object_set_new(o, "released", json_boolean(grp->released));
                json_object_set_new(o, "wait_ns",
                                    json_integer(grp->released && grp->first_ready_ns
                                                     ? grp->start_ns - grp->first_ready_ns
                                                     : 0));
                json_object_set_new(o, "skew_ns", json_integer((json_int_t)grp->skew_ns));
                json_object_set_new(o, "skew_basis", json_string(grp->skew_shared_clock
                                                                     ? "shared-clock"
                                                                     : "timeline"));
                json_object_set_new(o, "late", json_integer(grp->late));
                for (size_t i = 0; i < run->n_agents; i++) {
                        const run_agent_t *a = &run->agents[i];
                        const run_agent_group_t *x = a->grp ? &a->grp[g] : NULL;
                        json_t *e;
                        if (!x || (!x->ready && !x->given))
                                continue;
                        e = json_object();
                        json_object_set_new(e, "name", json_string(a->name));
                        json_object_set_new(e, "ready", json_boolean(x->ready));
                        json_object_set_new(e, "late", json_boolean(x->late));
                        if (x->given)
                                json_object_set_new(e, "instant_ns", json_integer(x->at_ns));
                        if (x->started) {
                                json_object_set_new(e, "start_ns", json_integer(x->start_ns));
                                json_object_set_new(e, "host_mono_ns", json_integer(x->mono_ns));
                                json_object_set_new(e, "offset_ns",
                                                    json_integer(x->start_ns - x->at_ns));
                        }
                        json_array_append_new(ag, e);
                }
                json_object_set_new(o, "agents", ag);
                json_array_append_new(arr, o);
        }
        return arr;
}

static json_t *iofleet_json(const coord_run_t *run, ivpass_t *pass)
{
        json_t *o = json_object(), *agents = json_array(), *ivs = json_array(),
               *jobs = json_array();
        const char *status = run_status(run, pass);

        json_object_set_new(o, "version", json_string(IOFLEET_VERSION));
        json_object_set_new(o, "run_id", json_string(run->id));
        json_object_set_new(o, "status", json_string(status));
        if (run->message[0])
                json_object_set_new(o, "error", json_string(run->message));
        else if (streq(status, "partial")) {
                char why[1024];
                partial_summary(run, pass, why, sizeof(why));
                json_object_set_new(o, "partial", json_string(why));
        }
        json_object_set_new(o, "orphan_grace_ns", json_integer((json_int_t)run->orphan_grace_ns));
        json_object_set_new(o, "command_line",
                            json_string(run->submit->submit_run->command_line
                                            ? run->submit->submit_run->command_line
                                            : ""));
        json_object_set_new(o, "selector",
                            json_string(run->submit->submit_run->selector
                                            ? run->submit->submit_run->selector
                                            : ""));
        json_object_set_new(o, "start_ns", json_integer(run->start_ns));
        json_object_set_new(o, "start_skew_ns", json_integer((json_int_t)run->start_skew_ns));
        json_object_set_new(o, "start_skew_workers_ns",
                            json_integer((json_int_t)run->start_skew_workers_ns));
        json_object_set_new(o, "start_skew_basis",
                            json_string(run->skew_shared_clock ? "shared-clock" : "timeline"));
        json_object_set_new(o, "interval_ns", json_integer((json_int_t)run->interval_ns));
        json_object_set_new(o, "lead_ns", json_integer((json_int_t)run->lead_ns));
        {
                /* The cluster's own series, interval by interval while every agent ran: what
                 * they did at once (the per-job figures are fio's samples, added up in "All
                 * clients" as fio's client mode does). */
                json_t *cs = json_object();
                json_object_set_new(cs, "read", series_json(&pass->cbw[0], &pass->ciops[0]));
                json_object_set_new(cs, "write", series_json(&pass->cbw[1], &pass->ciops[1]));
                json_object_set_new(o, "cluster_series", cs);
        }
        if (run->group_barrier)
                json_object_set_new(o, "groups", groups_json(run));
        if (run->logs)
                json_object_set_new(o, "logs", run_logs_json(run));
        {
                const Iofleet__SubmitRun *s = run->submit->submit_run;
                if (s->plan_name && *s->plan_name)
                        json_object_set_new(o, "plan", json_string(s->plan_name));
                if (s->sweep_id && *s->sweep_id) {
                        json_t *pt = json_object(), *params = json_object();
                        json_object_set_new(pt, "sweep_id", json_string(s->sweep_id));
                        json_object_set_new(pt, "index", json_integer(s->point));
                        json_object_set_new(pt, "repeat", json_integer(s->repeat));
                        for (size_t i = 0; i < s->n_point_params; i++)
                                json_object_set_new(params, s->point_params[i]->key,
                                                    json_string(s->point_params[i]->value));
                        json_object_set_new(pt, "params", params);
                        json_object_set_new(o, "point", pt);
                }
                if (run->degrade.n_rules) {
                        json_t *al = json_array(), *rules = json_array();
                        for (size_t i = 0; i < run->degrade.n_alerts; i++) {
                                const degrade_alert_t *a = &run->degrade.alerts[i];
                                json_t *j = json_object();
                                char msg[512];
                                degrade_describe(&run->degrade, a, msg, sizeof(msg));
                                json_object_set_new(
                                    j, "rule", json_string(run->degrade.rules[a->rule]->text));
                                json_object_set_new(j, "interval", json_integer((json_int_t)a->index));
                                json_object_set_new(j, "value", json_real(a->value));
                                json_object_set_new(j, "message", json_string(msg));
                                json_array_append_new(al, j);
                        }
                        for (size_t i = 0; i < run->degrade.n_rules; i++) {
                                json_t *j = json_object();
                                json_object_set_new(j, "rule",
                                                    json_string(run->degrade.rules[i]->text));
                                json_object_set_new(j, "fired",
                                                    json_integer((json_int_t)run->degrade.fired[i]));
                                json_array_append_new(rules, j);
                        }
                        json_object_set_new(o, "degrade_rules", rules);
                        json_object_set_new(o, "alerts", al);
                }
                if (s->stonewall) {
                        json_object_set_new(o, "stonewall", json_true());
                        if (run->stonewall_ns)
                                json_object_set_new(
                                    o, "stonewall_after_ns",
                                    json_integer(run->stonewall_ns - run->start_ns));
                }
        }

        for (size_t i = 0; i < run->n_agents; i++) {
                const run_agent_t *a = &run->agents[i];
                json_t *j = json_object();
                uint64_t rb = pass->sum[0][i], wb = pass->sum[1][i];
                json_object_set_new(j, "name", json_string(a->name));
                json_object_set_new(j, "hostname", json_string(a->hostname));
                json_object_set_new(j, "id", json_string(a->id));
                json_object_set_new(j, "rank", json_integer(a->rank));
                json_object_set_new(j, "start_ns", json_integer(a->start_ns));
                json_object_set_new(j, "start_offset_ns",
                                    json_integer(a->start_ns - run->start_ns));
                json_object_set_new(j, "host_mono_ns", json_integer(a->host_mono_ns));
                json_object_set_new(j, "workers_lag_ns",
                                    json_integer((json_int_t)a->workers_lag_ns));
                json_object_set_new(j, "clock_offset_ns", json_integer(a->offset_ns));
                json_object_set_new(j, "clock_rtt_ns", json_integer((json_int_t)a->rtt_ns));
                json_object_set_new(j, "interval_read_bytes", json_integer((json_int_t)rb));
                json_object_set_new(j, "interval_write_bytes", json_integer((json_int_t)wb));
                json_object_set_new(j, "lost", json_boolean(a->lost || a->gone));
                json_object_set_new(j, "status", json_string(run_agent_status(run, a)));
                if (a->rejoined || a->away_ns)
                        json_object_set_new(j, "away_ns", json_integer(a->away_ns));
                json_object_set_new(j, "missing_intervals",
                                    json_integer((json_int_t)pass->missing[i]));
                if (json_array_size(pass->gaps[i]))
                        json_object_set_new(j, "gaps", json_incref(pass->gaps[i]));
                if (a->error[0])
                        json_object_set_new(j, "error", json_string(a->error));
                json_object_set_new(j, "role", json_string(a->server ? "server" : "client"));
                if (a->effective.n) {
                        /* What took effect on the host: the export as the server lists it, the
                         * negotiated mount options, sysctls read back, and the restore. */
                        json_t *eff = json_object();
                        for (size_t k = 0; k < a->effective.n; k++)
                                json_object_set_new(eff, a->effective.v[k].key,
                                                    json_string(a->effective.v[k].value));
                        json_object_set_new(j, "effective", eff);
                }
                json_array_append_new(agents, j);
        }
        json_object_set_new(o, "agents", agents);

        json_decref(ivs);
        ivs = pass->ivs;
        pass->ivs = NULL;
        if (pass->truncated)
                /* A soak run's full series is in intervals.csv; the JSON keeps the first rows. */
                json_object_set_new(o, "intervals_truncated", json_true());
        json_object_set_new(o, "intervals", ivs);

        /* Size-bound jobs end at different times: the first and the last end, across agents. */
        for (size_t s = 0; s < run->n_specs; s++) {
                json_t *j = json_object();
                uint64_t first = UINT64_MAX, last = 0, start = UINT64_MAX;
                for (size_t i = 0; i < run->n_agents; i++) {
                        const run_agent_t *a = &run->agents[i];
                        if (!a->finished)
                                continue;
                        for (size_t q = 0; q < a->finished->finished->n_jobs; q++) {
                                const Iofleet__JobResult *jr = a->finished->finished->jobs[q];
                                if (!streq(jr->name, run->specs[s].name))
                                        continue;
                                first = jr->first_done_ns < first ? jr->first_done_ns : first;
                                last = jr->last_done_ns > last ? jr->last_done_ns : last;
                                start = jr->start_ns < start ? jr->start_ns : start;
                        }
                }
                json_object_set_new(j, "name", json_string(run->specs[s].name));
                json_object_set_new(j, "start_ns",
                                    json_integer(start == UINT64_MAX ? 0 : (json_int_t)start));
                json_object_set_new(j, "first_done_ns",
                                    json_integer(first == UINT64_MAX ? 0 : (json_int_t)first));
                json_object_set_new(j, "last_done_ns", json_integer((json_int_t)last));
                json_array_append_new(jobs, j);
        }
        json_object_set_new(o, "jobs", jobs);
        json_object_set_new(o, "done", done_json(run, pass));
        return o;
}

/* A client that ran but whose Finished never came (lost for good, killed): an entry all the
 * same, from what its intervals reported (counts, no latencies), and marked as such. */
static json_t *unfinished_entry(const coord_run_t *run, const ivpass_t *pass, size_t i,
                                dir_acc_t *all_r, dir_acc_t *all_w)
{
        const run_agent_t *a = &run->agents[i];
        const Iofleet__SubmitRun *s = run->submit->submit_run;
        const char *job = "(all jobs)";
        dir_acc_t rd, wr;
        json_t *entry;
        report_opts_t ro;
        entry_in_t in = {0};
        uint64_t runtime = pass->next_k[i] * run->interval_ns;
        if (a->server || !a->start_sent)
                return NULL;
        if (s->n_parts && a->part < s->n_parts && s->parts[a->part]->n_jobs == 1)
                job = s->parts[a->part]->jobs[0]->name;
        else if (!s->n_parts && s->n_jobs == 1)
                job = s->jobs[0]->name;
        if (dir_acc_init(&rd) < 0)
                return NULL;
        if (dir_acc_init(&wr) < 0) {
                dir_acc_done(&rd);
                return NULL;
        }
        rd.bytes = pass->sum[0][i];
        rd.ios = pass->iv_ios[0][i];
        wr.bytes = pass->sum[1][i];
        wr.ios = pass->iv_ios[1][i];
        all_r->bytes += rd.bytes;
        all_r->ios += rd.ios;
        all_w->bytes += wr.bytes;
        all_w->ios += wr.ios;
        in.spec = report_opts_of(run, job, &ro);
        in.jobname = job;
        in.hostname = a->hostname;
        in.agent = a->name;
        in.rd = &rd;
        in.wr = &wr;
        in.runtime_ns = in.elapsed_ns = in.job_runtime_ns = runtime;
        in.ro = &ro;
        entry = client_entry(&in);
        json_object_set_new(entry, "agent_status", json_string(run_agent_status(run, a)));
        json_object_set_new(entry, "from_intervals", json_true());
        dir_acc_done(&rd);
        dir_acc_done(&wr);
        return entry;
}

const char *result_status(json_t *doc, char *why, size_t len)
{
        json_t *io = json_object_get(doc, "iofleet");
        const char *st = json_string_value(json_object_get(io, "status"));
        const char *p = json_string_value(json_object_get(io, "partial"));
        if (why && len)
                snprintf(why, len, "%s", p ? p : "");
        return st ? st : "error";
}

const char *result_error(json_t *doc)
{
        const char *e = json_string_value(json_object_get(json_object_get(doc, "iofleet"), "error"));
        return e ? e : "";
}

void result_set_error(json_t *doc, const char *msg)
{
        json_object_set_new(json_object_get(doc, "iofleet"), "error", json_string(msg));
}

/* The client_stats entries of a run, one at a time: one per agent and job (a client that never
 * finished: one from its intervals), then "All clients" from the merged histograms. cb gets each
 * entry borrowed (it takes a reference to keep it); a cb < 0 stops the walk. 0 or -errno. */
static int entries_each(const coord_run_t *run, const ivpass_t *pass, result_entry_fn cb,
                        void *user)
{
        dir_acc_t all_r, all_w;
        phase_acc_t all_phases[RESULT_MAX_PHASES] = {0};
        size_t n_all_phases = 0;
        json_t *entry;
        fio_job_stats_t all_fio = {0};
        double all_agg[2] = {0, 0};
        uint64_t all_runtime = 0, all_elapsed = 0, all_job_runtime = 0;
        int r;

        if ((r = dir_acc_init(&all_r)) < 0)
                return r;
        if ((r = dir_acc_init(&all_w)) < 0) {
                dir_acc_done(&all_r);
                return r;
        }
        for (size_t i = 0; i < run->n_agents && r >= 0; i++) {
                const run_agent_t *a = &run->agents[i];
                double agg[2];
                if (!a->finished) {
                        if ((entry = unfinished_entry(run, pass, i, &all_r, &all_w))) {
                                r = cb(user, entry);
                                json_decref(entry);
                        }
                        continue;
                }
                agent_agg(run, a, -1, agg);
                all_agg[0] += agg[0];
                all_agg[1] += agg[1];
                for (size_t q = 0; q < a->finished->finished->n_jobs && r >= 0; q++) {
                        const Iofleet__JobResult *jr = a->finished->finished->jobs[q];
                        const Iofleet__Job *job = NULL;
                        report_opts_t ro;
                        fio_job_stats_t fio;
                        entry_in_t in = {0};
                        dir_acc_t rd, wr;
                        in.spec = report_opts_of(run, jr->name, &ro);
                        if (!ro.stats)
                                continue; /* fio's stats=0: the job runs, its figures are not shown */
                        if ((r = dir_acc_init(&rd)) < 0 || (r = dir_acc_init(&wr)) < 0) {
                                dir_acc_done(&rd);
                                break;
                        }
                        dir_acc_add(&rd, jr->read);
                        dir_acc_add(&wr, jr->write);
                        dir_acc_add(&all_r, jr->read);
                        dir_acc_add(&all_w, jr->write);
                        memset(&fio, 0, sizeof(fio));
                        wire_fio_add(&fio, jr->fio);
                        fio_job_stats_add(&all_fio, &fio);
                        job = submitted_job(run->submit->submit_run, jr->name);
                        if (jr->runtime_ns > all_runtime)
                                all_runtime = jr->runtime_ns;
                        if (jr->last_done_ns > all_elapsed)
                                all_elapsed = jr->last_done_ns;
                        in.jobname = jr->name;
                        in.hostname = a->hostname;
                        in.agent = a->name;
                        in.rd = &rd;
                        in.wr = &wr;
                        in.runtime_ns = jr->runtime_ns;
                        in.elapsed_ns = jr->last_done_ns;
                        in.job_runtime_ns = jr->fio ? fio.run_ns : jr->runtime_ns;
                        all_job_runtime += in.job_runtime_ns;
                        in.fio = jr->fio ? &fio : NULL;
                        agent_agg(run, a, jr->groupid, in.agg);
                        in.error = jr->error;
                        in.options = result_fio_job_options(job);
                        in.ro = &ro;
                        entry = client_entry(&in);
                        if (jr->error) {
                                /* Where it failed, and how, next to fio's errno. */
                                json_object_set_new(entry, "error_offset",
                                                    json_integer((json_int_t)jr->error_offset));
                                json_object_set_new(
                                    entry, "error_msg",
                                    json_string(jr->error_msg ? jr->error_msg : ""));
                        }
                        json_object_set_new(entry, "groupid", json_integer(jr->groupid));
                        if (jr->steadystate)
                                json_object_set_new(entry, "steadystate",
                                                    steadystate_json(jr->steadystate));
                        if (job_continues_on_error(run, jr->name)) {
                                /* fio's two more stats with continue_on_error, and its error
                                 * field: the first error, even one the job went on after */
                                if (!jr->error && jr->first_error)
                                        json_object_set_new(entry, "error",
                                                            json_integer(jr->first_error));
                                json_object_set_new(entry, "total_err",
                                                    json_integer((json_int_t)jr->total_err));
                                json_object_set_new(entry, "first_error",
                                                    json_integer(jr->first_error));
                        }
                        if (jr->end_syncs)
                                json_object_set_new(entry, "end_fsyncs",
                                                    json_integer((json_int_t)jr->end_syncs));
                        if (jr->clone >= 0)
                                /* fio's per-clone entries (no group_reporting): its job number */
                                json_object_set_new(entry, "jobnum", json_integer(jr->clone));
                        if (jr->n_phases) {
                                phase_acc_t one[RESULT_MAX_PHASES] = {0};
                                size_t n1 = 0;
                                phases_add(one, &n1, jr);
                                json_object_set_new(entry, "metadata", phases_json(one, n1));
                                phases_done(one, n1);
                                phases_add(all_phases, &n_all_phases, jr);
                        }
                        r = cb(user, entry);
                        json_decref(entry);
                        dir_acc_done(&rd);
                        dir_acc_done(&wr);
                }
        }
        if (r >= 0) {
                /* fio's "All clients": merged histograms, never averaged percentiles; the
                 * clients' bw/iops series and CPU figures added as fio's client mode adds them */
                report_opts_t ro;
                entry_in_t in = {0};
                /* the first job's statistics options (a job file's [global] gives them all) */
                in.spec = report_opts_of(run, run->n_specs ? run->specs[0].name : NULL, &ro);
                ro.stats = true;
                in.jobname = in.hostname = "All clients";
                in.rd = &all_r;
                in.wr = &all_w;
                in.runtime_ns = all_runtime;
                in.elapsed_ns = all_elapsed;
                in.job_runtime_ns = all_job_runtime; /* fio's client mode adds them too */
                in.fio = &all_fio;
                in.agg[0] = all_agg[0];
                in.agg[1] = all_agg[1];
                in.ro = &ro;
                entry = client_entry(&in);
                if (n_all_phases)
                        json_object_set_new(entry, "metadata",
                                            phases_json(all_phases, n_all_phases));
                r = cb(user, entry);
                json_decref(entry);
        }
        phases_done(all_phases, n_all_phases);
        dir_acc_done(&all_r);
        dir_acc_done(&all_w);
        return r < 0 ? r : 0;
}

int result_entries_each(const coord_run_t *run, result_entry_fn cb, void *user)
{
        ivpass_t pass;
        int r;
        if ((r = ivpass_run(run, &pass)) < 0)
                return r;
        r = entries_each(run, &pass, cb, user);
        ivpass_done(&pass);
        return r;
}

static int collect(void *user, json_t *entry)
{
        return json_array_append(user, entry);
}

/* fio's global options: those of every job's [global] sections (NULL when there are none, as
 * fio leaves the key out). */
static json_t *global_options(const coord_run_t *run)
{
        const Iofleet__SubmitRun *sr = run->submit->submit_run;
        json_t *global = sr->n_parts ? NULL : result_fio_global_options(sr->jobs, sr->n_jobs);
        for (size_t p = 0; !global && p < sr->n_parts; p++)
                global = result_fio_global_options(sr->parts[p]->jobs, sr->parts[p]->n_jobs);
        return global;
}

/* fio's disk_util: every agent's devices (an empty array when no device was under the files). */
static json_t *disk_util(const coord_run_t *run)
{
        json_t *disks = json_array();
        for (size_t i = 0; disks && i < run->n_agents; i++) {
                const run_agent_t *a = &run->agents[i];
                if (a->finished && a->finished->finished->n_disk_util)
                        result_fio_disk_util(disks, a->finished->finished->disk_util,
                                             a->finished->finished->n_disk_util, a->hostname,
                                             a->name);
        }
        return disks;
}

/* The document, with its client_stats and jobs[] entries or (head) without them. */
static int build(const coord_run_t *run, bool entries, json_t **ret)
{
        json_t *doc = json_object(), *stats = json_array(), *global, *disks;
        int64_t real = run->start_ns ? run->start_ns : run->submitted_ns;
        time_t secs = real / (int64_t)NSEC_PER_SEC;
        ivpass_t pass;
        char when[64];
        int r;

        if ((r = ivpass_run(run, &pass)) < 0) {
                json_decref(doc);
                json_decref(stats);
                return r;
        }
        ctime_r(&secs, when);
        when[strcspn(when, "\n")] = 0;
        json_object_set_new(doc, "fio version", json_string("iofleet-" IOFLEET_VERSION));
        json_object_set_new(doc, "timestamp", json_integer((json_int_t)secs));
        json_object_set_new(doc, "timestamp_ms", json_integer(real / (int64_t)NSEC_PER_MSEC));
        json_object_set_new(doc, "time", json_string(when));
        if ((global = global_options(run)))
                json_object_set_new(doc, "global options", global);
        if (entries)
                r = entries_each(run, &pass, collect, stats);
        json_object_set_new(doc, "client_stats", stats);
        json_object_set_new(doc, "jobs", result_fio_jobs(stats, run->n_agents));
        /* fio writes disk_util only when some device was under the files */
        disks = disk_util(run);
        if (json_array_size(disks))
                json_object_set_new(doc, "disk_util", json_incref(disks));
        json_decref(disks);
        json_object_set_new(doc, "iofleet", iofleet_json(run, &pass));
        ivpass_done(&pass);
        if (r < 0) {
                json_decref(doc);
                return r;
        }
        *ret = doc;
        return 0;
}

int result_build(const coord_run_t *run, json_t **ret)
{
        return build(run, true, ret);
}

int result_head(const coord_run_t *run, json_t **ret)
{
        return build(run, false, ret);
}
