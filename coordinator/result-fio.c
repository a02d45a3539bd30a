/* The parts of the result that are fio's own single-host layout: json+'s latency bins, the
 * latency_ns/us/ms distribution and the jobs[] array fio's tools (fio_jsonplus_clat2csv,
 * fio-plot) read, built from the client_stats entries. */
#include "result-fio.h"

#include <stdio.h>
#include <string.h>

#include "util.h"

/* The value a bucket stands for: its midpoint, within what the histogram saw (as
 * hist_percentile() reports it). */
static uint64_t bucket_value(const hist_t *h, unsigned idx)
{
        uint64_t lo = hist_bucket_low(idx), hi = hist_bucket_high(idx), v = lo + (hi - lo) / 2;

        if (v < h->min)
                v = h->min;
        if (v > h->max)
                v = h->max;
        return v;
}

json_t *result_fio_bins(const hist_t *h)
{
        json_t *o = json_object();

        for (unsigned i = 0; h->n && i < HIST_BUCKETS; i++) {
                char key[32];
                if (!h->buckets[i])
                        continue;
                snprintf(key, sizeof(key), "%llu", (unsigned long long)bucket_value(h, i));
                /* two buckets clamped to the same min or max add up */
                json_t *had = json_object_get(o, key);
                json_object_set_new(o, key,
                                    json_integer((json_int_t)(h->buckets[i] +
                                                              (had ? json_integer_value(had) : 0))));
        }
        return o;
}

/* fio's io_u_lat_n/u/m: the share of I/Os (percent) whose completion latency falls below each
 * bound and at or above the one before; the last of latency_ms is ">=2000". */
static const unsigned lat_bounds[] = {2, 4, 10, 20, 50, 100, 250, 500, 750, 1000};
static const unsigned lat_ms_bounds[] = {2, 4, 10, 20, 50, 100, 250, 500, 750, 1000, 2000};

static unsigned slot_of(uint64_t v, const unsigned *bounds, unsigned n)
{
        for (unsigned i = 0; i < n; i++)
                if (v < bounds[i])
                        return i;
        return n;
}

void result_fio_latency(json_t *entry, const hist_t *const *lat, size_t nlat, uint64_t total)
{
        uint64_t ns[10] = {0}, us[10] = {0}, ms[12] = {0}, n = 0;
        json_t *jn = json_object(), *ju = json_object(), *jm = json_object();

        for (size_t k = 0; k < nlat; k++)
                n += lat[k]->n;
        if (!total)
                total = n;
        for (size_t k = 0; n && k < nlat; k++) {
                const hist_t *h = lat[k];
                for (unsigned i = 0; h->n && i < HIST_BUCKETS; i++) {
                        uint64_t v, c = h->buckets[i];
                        if (!c)
                                continue;
                        v = bucket_value(h, i);
                        if (v < 1000)
                                ns[slot_of(v, lat_bounds, 10)] += c;
                        else if (v < 1000000)
                                us[slot_of(v / 1000, lat_bounds, 10)] += c;
                        else
                                ms[slot_of(v / 1000000, lat_ms_bounds, 11)] += c;
                }
        }
        for (unsigned i = 0; i < 10; i++) {
                char key[16];
                snprintf(key, sizeof(key), "%u", lat_bounds[i]);
                json_object_set_new(jn, key, json_real(fio_lat_share(ns[i], total)));
                json_object_set_new(ju, key, json_real(fio_lat_share(us[i], total)));
        }
        for (unsigned i = 0; i < 12; i++) {
                char key[16];
                if (i < 11)
                        snprintf(key, sizeof(key), "%u", lat_ms_bounds[i]);
                else
                        snprintf(key, sizeof(key), ">=2000");
                json_object_set_new(jm, key, json_real(fio_lat_share(ms[i], total)));
        }
        json_object_set_new(entry, "latency_ns", jn);
        json_object_set_new(entry, "latency_us", ju);
        json_object_set_new(entry, "latency_ms", jm);
}

/* fio's empty "trim" block, in the read block's shape: iofleet does no trims. */
static json_t *empty_dir(const json_t *like)
{
        json_t *o = json_object();
        const char *key;
        json_t *v;

        json_object_foreach((json_t *)like, key, v)
        {
                if (json_is_object(v)) {
                        json_t *l = json_object();
                        json_object_set_new(l, "min", json_integer(0));
                        json_object_set_new(l, "max", json_integer(0));
                        json_object_set_new(l, "mean", json_real(0));
                        json_object_set_new(l, "stddev", json_real(0));
                        json_object_set_new(l, "N", json_integer(0));
                        json_object_set_new(o, key, l);
                } else if (json_is_real(v))
                        json_object_set_new(o, key, json_real(0));
                else
                        json_object_set_new(o, key, json_integer(0));
        }
        return o;
}

void result_fio_job_fields(json_t *entry, uint64_t elapsed_ns)
{
        json_t *rd = json_object_get(entry, "read");

        json_object_set_new(entry, "eta", json_integer(0));
        /* whole seconds, rounded up as fio's */
        json_object_set_new(
            entry, "elapsed",
            json_integer((json_int_t)((elapsed_ns + NSEC_PER_SEC - 1) / NSEC_PER_SEC)));
        if (rd && !json_object_get(entry, "trim"))
                json_object_set_new(entry, "trim", empty_dir(rd));
}

bool result_fio_job_listed(const json_t *entry, size_t n_agents)
{
        const char *name = json_string_value(json_object_get(entry, "jobname"));
        /* the merged entry only when it merges something */
        return !(name && streq(name, "All clients") && n_agents < 2);
}

json_t *result_fio_jobs(const json_t *client_stats, size_t n_agents)
{
        json_t *jobs = json_array(), *e;
        size_t i;

        json_array_foreach((json_t *)client_stats, i, e)
                if (result_fio_job_listed(e, n_agents))
                        json_array_append(jobs, e);
        return jobs;
}

/* fio's seven shares of a bucket map, under fio's keys. */
static json_t *shares_json(const uint64_t *map, uint64_t total, const char *const *keys)
{
        double pct[FIO_DEPTH_BUCKETS];
        json_t *o = json_object();

        fio_depth_shares(map, total, pct);
        for (unsigned i = 0; i < FIO_DEPTH_BUCKETS; i++)
                json_object_set_new(o, keys[i], json_real(pct[i]));
        return o;
}

static const char *const level_keys[] = {"1", "2", "4", "8", "16", "32", ">=64"};
static const char *const batch_keys[] = {"0", "4", "8", "16", "32", "64", ">=64"};

void result_fio_usage(json_t *entry, const fio_job_stats_t *f, uint64_t issued)
{
        json_object_set_new(entry, "usr_cpu", json_real(fio_cpu_percent(f->usr_ns, f->run_ns)));
        json_object_set_new(entry, "sys_cpu", json_real(fio_cpu_percent(f->sys_ns, f->run_ns)));
        json_object_set_new(entry, "ctx", json_integer((json_int_t)f->ctx));
        json_object_set_new(entry, "majf", json_integer((json_int_t)f->majf));
        json_object_set_new(entry, "minf", json_integer((json_int_t)f->minf));
        json_object_set_new(entry, "iodepth_level", shares_json(f->depth, issued, level_keys));
        json_object_set_new(entry, "iodepth_submit",
                            shares_json(f->submit, f->total_submit, batch_keys));
        json_object_set_new(entry, "iodepth_complete",
                            shares_json(f->complete, f->total_complete, batch_keys));
}

void result_fio_latency_target(json_t *entry, uint32_t depth, const job_spec_t *spec)
{
        json_object_set_new(entry, "latency_depth", json_integer(depth));
        /* fio 3.33: the target in ns, the window in us */
        json_object_set_new(entry, "latency_target",
                            json_integer(spec ? (json_int_t)spec->latency_target_ns : 0));
        json_object_set_new(
            entry, "latency_percentile",
            json_real(spec && spec->latency_percentile > 0 ? spec->latency_percentile : 100.0));
        json_object_set_new(
            entry, "latency_window",
            json_integer(spec ? (json_int_t)(spec->latency_window_ns / NSEC_PER_USEC) : 0));
}

/* Options from..to of a job as fio lists them: those given with a value (fio leaves out a bare
 * --time_based). */
static void options_into(json_t *o, const Iofleet__Job *job, size_t from, size_t to)
{
        for (size_t i = from; i < to && i < job->n_options; i++)
                if (!strempty(job->options[i]->value))
                        json_object_set_new(o, job->options[i]->key,
                                            json_string(job->options[i]->value));
}

json_t *result_fio_job_options(const Iofleet__Job *job)
{
        json_t *o = json_object();
        if (job)
                options_into(o, job, job->n_global, job->n_options);
        return o;
}

json_t *result_fio_global_options(Iofleet__Job *const *jobs, size_t n)
{
        json_t *o = json_object();
        for (size_t i = 0; i < n; i++)
                options_into(o, jobs[i], 0, jobs[i]->n_global);
        if (json_object_size(o))
                return o;
        json_decref(o);
        return NULL;
}

static double util_of(uint64_t io_ticks, uint64_t msec)
{
        double u = msec ? 100.0 * (double)io_ticks / (double)msec : 0;
        return u > 100.0 ? 100.0 : u;
}

/* fio's aggr_* of a device with slaves (dm, md): their counts averaged, the busiest's util. */
static void aggr_into(json_t *o, Iofleet__DiskUtil *const *d, size_t n, const char *master)
{
        uint64_t sum[7] = {0}, count = 0;
        double util = 0;

        for (size_t i = 0; i < n; i++) {
                const Iofleet__DiskUtil *s = d[i];
                double u;
                if (strempty(s->master) || !streq(s->master, master))
                        continue;
                sum[0] += s->read_ios;
                sum[1] += s->write_ios;
                sum[2] += s->read_merges;
                sum[3] += s->write_merges;
                sum[4] += s->read_ticks;
                sum[5] += s->write_ticks;
                sum[6] += s->in_queue;
                u = util_of(s->io_ticks, s->msec);
                util = u > util ? u : util;
                count++;
        }
        if (!count)
                return;
        json_object_set_new(o, "aggr_read_ios", json_integer((json_int_t)(sum[0] / count)));
        json_object_set_new(o, "aggr_write_ios", json_integer((json_int_t)(sum[1] / count)));
        json_object_set_new(o, "aggr_read_merges", json_integer((json_int_t)(sum[2] / count)));
        json_object_set_new(o, "aggr_write_merge", json_integer((json_int_t)(sum[3] / count)));
        json_object_set_new(o, "aggr_read_ticks", json_integer((json_int_t)(sum[4] / count)));
        json_object_set_new(o, "aggr_write_ticks", json_integer((json_int_t)(sum[5] / count)));
        json_object_set_new(o, "aggr_in_queue", json_integer((json_int_t)(sum[6] / count)));
        json_object_set_new(o, "aggr_util", json_real(util));
}

void result_fio_disk_util(json_t *arr, Iofleet__DiskUtil *const *d, size_t n, const char *hostname,
                          const char *agent)
{
        for (size_t i = 0; i < n; i++) {
                const Iofleet__DiskUtil *u = d[i];
                json_t *o = json_object();
                json_object_set_new(o, "name", json_string(u->name));
                json_object_set_new(o, "read_ios", json_integer((json_int_t)u->read_ios));
                json_object_set_new(o, "write_ios", json_integer((json_int_t)u->write_ios));
                json_object_set_new(o, "read_merges", json_integer((json_int_t)u->read_merges));
                json_object_set_new(o, "write_merges", json_integer((json_int_t)u->write_merges));
                json_object_set_new(o, "read_ticks", json_integer((json_int_t)u->read_ticks));
                json_object_set_new(o, "write_ticks", json_integer((json_int_t)u->write_ticks));
                json_object_set_new(o, "in_queue", json_integer((json_int_t)u->in_queue));
                json_object_set_new(o, "util", json_real(util_of(u->io_ticks, u->msec)));
                aggr_into(o, d, n, u->name);
                /* which host, as fio's client mode adds to each */
                json_object_set_new(o, "hostname", json_string(hostname));
                json_object_set_new(o, "agent", json_string(agent));
                json_array_append_new(arr, o);
        }
}
