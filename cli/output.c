/* The run's result in fio's output formats (--output-format=normal,json,json+,terse, several
 * comma-separated, each written in the order given, as fio does). */
#include "output.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "render.h"
#include "util.h"

/* Whether the comma-separated list fmt names f. */
bool output_has(const char *fmt, const char *f)
{
        size_t n = strlen(f);

        for (const char *p = fmt ? fmt : "normal"; *p;) {
                size_t len = strcspn(p, ",");
                if (len == n && strncmp(p, f, n) == 0)
                        return true;
                p += len + (p[len] == ',');
        }
        return false;
}

bool output_machine(const char *fmt)
{
        return output_has(fmt, "json") || output_has(fmt, "json+") || output_has(fmt, "terse");
}

/* fio's plain json has no latency bins: they are json+'s. */
static void strip_bins(json_t *o)
{
        const char *key;
        json_t *v;
        size_t i;

        if (json_is_array(o)) {
                json_array_foreach(o, i, v)
                        strip_bins(v);
                return;
        }
        if (!json_is_object(o))
                return;
        json_object_del(o, "bins");
        json_object_foreach(o, key, v)
                strip_bins(v);
}

static const json_t *obj(const json_t *o, const char *key)
{
        const json_t *v = json_object_get(o, key);
        return json_is_object(v) ? v : NULL;
}

/* min;max;mean;dev of a latency block in microseconds, as terse has them. */
static void terse_lat(FILE *f, const json_t *lat)
{
        fprintf(f, ";%llu;%llu;%f;%f", (unsigned long long)(json_num(lat, "min") / 1000),
                (unsigned long long)(json_num(lat, "max") / 1000), json_num(lat, "mean") / 1000,
                json_num(lat, "stddev") / 1000);
}

/* One direction's fields of terse version 3. */
static void terse_dir(FILE *f, const json_t *d)
{
        const json_t *clat = obj(d, "clat_ns"), *pct = clat ? obj(clat, "percentile") : NULL;
        const char *key;
        json_t *v;
        int n = 0;

        fprintf(f, ";%llu;%llu;%llu;%llu", (unsigned long long)json_num(d, "io_kbytes"),
                (unsigned long long)json_num(d, "bw"), (unsigned long long)(json_num(d, "iops") + 0.5),
                (unsigned long long)json_num(d, "runtime"));
        terse_lat(f, obj(d, "slat_ns"));
        terse_lat(f, clat);
        /* 20 percentile fields, "P%=usec", unused ones "0%=0" (fio's) */
        if (pct) {
                json_object_foreach((json_t *)pct, key, v)
                {
                        if (n == 20)
                                break;
                        fprintf(f, ";%s%%=%llu", key,
                                (unsigned long long)(json_number_value(v) / 1000));
                        n++;
                }
        }
        for (; n < 20; n++)
                fprintf(f, ";0%%=0");
        terse_lat(f, obj(d, "lat_ns"));
        fprintf(f, ";%llu;%llu;%f%%;%f;%f", (unsigned long long)json_num(d, "bw_min"),
                (unsigned long long)json_num(d, "bw_max"), json_num(d, "bw_agg"), json_num(d, "bw_mean"),
                json_num(d, "bw_dev"));
}

static const char *const lat_us_keys[] = {"2", "4", "10", "20", "50", "100", "250", "500", "750",
                                          "1000", NULL};
static const char *const depth_keys[] = {"1", "2", "4", "8", "16", "32", ">=64", NULL};
static const char *const lat_ms_keys[] = {"2",   "4",    "10",   "20",     "50", "100", "250",
                                          "500", "750", "1000", "2000", ">=2000", NULL};

/* fio's terse version 3, one line per job entry; disk utilization is left out, as fio's client
 * mode does. */
static void write_terse(FILE *f, const json_t *doc)
{
        const json_t *jobs = json_object_get(doc, "jobs");
        const json_t *e;
        size_t i;

        json_array_foreach((json_t *)jobs, i, e)
        {
                const json_t *us = obj(e, "latency_us"), *ms = obj(e, "latency_ms");
                const char *name = json_string_value(json_object_get(e, "jobname"));
                const char *agent = json_string_value(json_object_get(e, "agent"));
                fprintf(f, "3;iofleet-%s;%s%s%s;%llu;%llu", IOFLEET_VERSION, name ? name : "",
                        agent ? "." : "", agent ? agent : "",
                        (unsigned long long)json_num(e, "groupid"), (unsigned long long)json_num(e, "error"));
                terse_dir(f, obj(e, "read"));
                terse_dir(f, obj(e, "write"));
                fprintf(f, ";%f%%;%f%%;%llu;%llu;%llu", json_num(e, "usr_cpu"), json_num(e, "sys_cpu"),
                        (unsigned long long)json_num(e, "ctx"), (unsigned long long)json_num(e, "majf"),
                        (unsigned long long)json_num(e, "minf"));
                for (int k = 0; depth_keys[k]; k++)
                        fprintf(f, ";%3.1f%%", json_num(obj(e, "iodepth_level"), depth_keys[k]));
                for (int k = 0; lat_us_keys[k]; k++) {
                        double v = us ? json_num(us, lat_us_keys[k]) : 0;
                        /* fio's terse adds every nanosecond bucket to the first microsecond one */
                        for (int n = 0; k == 0 && lat_us_keys[n]; n++)
                                v += json_num(obj(e, "latency_ns"), lat_us_keys[n]);
                        fprintf(f, ";%.2f%%", v);
                }
                for (int k = 0; lat_ms_keys[k]; k++)
                        fprintf(f, ";%.2f%%", ms ? json_num(ms, lat_ms_keys[k]) : 0);
                fputc('\n', f);
        }
}

int output_write(FILE *f, const char *fmt, json_t *doc, const char *results_dir)
{
        const char *p = fmt ? fmt : "normal";

        while (*p) {
                size_t len = strcspn(p, ",");
                if (len == 6 && strncmp(p, "normal", 6) == 0)
                        render_summary(f, doc, results_dir);
                else if (len == 5 && strncmp(p, "json+", 5) == 0) {
                        json_dumpf(doc, f, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
                        fputc('\n', f);
                } else if (len == 4 && strncmp(p, "json", 4) == 0) {
                        json_t *plain = json_deep_copy(doc);
                        if (!plain)
                                return -ENOMEM;
                        strip_bins(plain);
                        json_dumpf(plain, f, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
                        fputc('\n', f);
                        json_decref(plain);
                } else if (len == 5 && strncmp(p, "terse", 5) == 0)
                        write_terse(f, doc);
                p += len + (p[len] == ',');
        }
        return ferror(f) ? -EIO : 0;
}
