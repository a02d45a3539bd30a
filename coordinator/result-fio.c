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

void result_fio_latency(json_t *entry, const hist_t *const *lat, size_t nlat)
{
        double ns[10] = {0}, us[10] = {0}, ms[12] = {0};
        uint64_t total = 0;
        json_t *jn = json_object(), *ju = json_object(), *jm = json_object();

        for (size_t k = 0; k < nlat; k++)
                total += lat[k]->n;
        for (size_t k = 0; total && k < nlat; k++) {
                const hist_t *h = lat[k];
                for (unsigned i = 0; h->n && i < HIST_BUCKETS; i++) {
                        uint64_t v, c = h->buckets[i];
                        if (!c)
                                continue;
                        v = bucket_value(h, i);
                        if (v < 1000)
                                ns[slot_of(v, lat_bounds, 10)] += (double)c;
                        else if (v < 1000000)
                                us[slot_of(v / 1000, lat_bounds, 10)] += (double)c;
                        else
                                ms[slot_of(v / 1000000, lat_ms_bounds, 11)] += (double)c;
                }
        }
        for (unsigned i = 0; i < 10; i++) {
                char key[16];
                snprintf(key, sizeof(key), "%u", lat_bounds[i]);
                json_object_set_new(jn, key, json_real(total ? 100.0 * ns[i] / (double)total : 0));
                json_object_set_new(ju, key, json_real(total ? 100.0 * us[i] / (double)total : 0));
        }
        for (unsigned i = 0; i < 12; i++) {
                char key[16];
                if (i < 11)
                        snprintf(key, sizeof(key), "%u", lat_ms_bounds[i]);
                else
                        snprintf(key, sizeof(key), ">=2000");
                json_object_set_new(jm, key, json_real(total ? 100.0 * ms[i] / (double)total : 0));
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

void result_fio_job_fields(json_t *entry, uint64_t runtime_ns)
{
        json_t *rd = json_object_get(entry, "read");

        json_object_set_new(entry, "eta", json_integer(0));
        json_object_set_new(entry, "elapsed",
                            json_integer((json_int_t)((runtime_ns + NSEC_PER_SEC / 2) /
                                                      NSEC_PER_SEC)));
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
