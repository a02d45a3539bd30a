/* iofleet report: a run directory (one run or a sweep) read into per-point figures, repeats
 * aggregated, written as a text, CSV or Markdown table. */
#include "report.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util.h"

#define MIB (1024.0 * 1024.0)

double report_median(double *v, size_t n)
{
        if (n == 0)
                return NAN;
        /* Insertion sort: a point has a handful of repeats. */
        for (size_t i = 1; i < n; i++)
                for (size_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
                        double x = v[j];
                        v[j] = v[j - 1];
                        v[j - 1] = x;
                }
        return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double report_rsd(const double *v, size_t n)
{
        double mean = 0, ss = 0;
        if (n < 2)
                return NAN;
        for (size_t i = 0; i < n; i++)
                mean += v[i];
        mean /= (double)n;
        if (mean == 0)
                return NAN;
        for (size_t i = 0; i < n; i++)
                ss += (v[i] - mean) * (v[i] - mean);
        return sqrt(ss / (double)(n - 1)) / fabs(mean) * 100;
}

double report_efficiency(double base_clients, double base_bw, double clients, double bw)
{
        if (!(base_clients > 0) || !(base_bw > 0) || !(clients > 0) || !isfinite(bw))
                return NAN;
        return bw / clients / (base_bw / base_clients) * 100;
}

/* ---- one result.json ---- */

static json_t *member(json_t *o, const char *key, json_type type, const char *where, char *err,
                      size_t errlen)
{
        static const char *const names[] = {"an object", "an array", "a string", "an integer",
                                            "a number",  "true",     "false",    "null"};
        json_t *v = json_object_get(o, key);
        bool ok =
            v && (json_typeof(v) == type || (type == JSON_REAL && json_typeof(v) == JSON_INTEGER));
        if (!ok) {
                errorf(err, errlen, -EINVAL, "%s%s%s: %s, expected %s", where, *where ? "." : "",
                       key, v ? "wrong type" : "missing", names[type]);
                return NULL;
        }
        return v;
}

/* A percentile of a clat block in microseconds; NAN when the direction saw no IO. */
static double percentile_us(json_t *dir, const char *key)
{
        json_t *clat = json_object_get(dir, "clat_ns");
        json_t *v = json_object_get(json_object_get(clat, "percentile"), key);
        if (!json_is_number(json_object_get(clat, "N")) ||
            json_number_value(json_object_get(clat, "N")) <= 0 || !json_is_number(v))
                return NAN;
        return json_number_value(v) / 1e3;
}

/* Files per second of one metadata operation: its sequential and random phases together. */
static double files_per_s(json_t *md, const char *op)
{
        double ops = 0, ns = 0;
        bool any = false;
        for (int rnd = 0; rnd < 2; rnd++) {
                char name[32];
                json_t *p;
                snprintf(name, sizeof(name), "%s_%s", rnd ? "rand" : "seq", op);
                p = json_object_get(md, name);
                if (!json_is_number(json_object_get(p, "ops")) ||
                    !json_is_number(json_object_get(p, "elapsed_ns")))
                        continue;
                ops += json_number_value(json_object_get(p, "ops"));
                ns += json_number_value(json_object_get(p, "elapsed_ns"));
                any = true;
        }
        return any && ns > 0 ? ops * 1e9 / ns : NAN;
}

int report_figures(json_t *doc, double fig[REPORT_N_FIGS], char *err, size_t errlen)
{
        json_t *stats, *all = NULL, *io, *v, *md;
        size_t i;

        if (!json_is_object(doc))
                return errorf(err, errlen, -EINVAL, "not a JSON object");
        if (!(stats = member(doc, "client_stats", JSON_ARRAY, "", err, errlen)))
                return -EINVAL;
        json_array_foreach(stats, i, v)
        {
                const char *name = json_string_value(json_object_get(v, "jobname"));
                if (json_is_object(v) && name && streq(name, "All clients"))
                        all = v;
        }
        if (!all)
                return errorf(err, errlen, -EINVAL, "client_stats: no \"All clients\" entry");
        if (!(io = member(doc, "iofleet", JSON_OBJECT, "", err, errlen)))
                return -EINVAL;
        for (int w = 0; w < 2; w++) {
                const char *dn = w ? "write" : "read";
                json_t *d =
                    member(all, dn, JSON_OBJECT, "client_stats[\"All clients\"]", err, errlen);
                json_t *bw, *iops;
                char where[64];
                if (!d)
                        return -EINVAL;
                snprintf(where, sizeof(where), "client_stats[\"All clients\"].%s", dn);
                if (!(bw = member(d, "bw_bytes", JSON_REAL, where, err, errlen)) ||
                    !(iops = member(d, "iops", JSON_REAL, where, err, errlen)))
                        return -EINVAL;
                fig[w ? REPORT_WRITE_BW : REPORT_READ_BW] = json_number_value(bw) / MIB;
                fig[w ? REPORT_WRITE_IOPS : REPORT_READ_IOPS] = json_number_value(iops);
                fig[w ? REPORT_WRITE_P50 : REPORT_READ_P50] = percentile_us(d, "50.000000");
                fig[w ? REPORT_WRITE_P99 : REPORT_READ_P99] = percentile_us(d, "99.000000");
        }
        fig[REPORT_TOTAL_BW] = fig[REPORT_READ_BW] + fig[REPORT_WRITE_BW];
        md = json_object_get(all, "metadata");
        fig[REPORT_CREATE] = files_per_s(md, "create");
        fig[REPORT_STAT] = files_per_s(md, "stat");
        fig[REPORT_MDREAD] = files_per_s(md, "read");
        fig[REPORT_DELETE] = files_per_s(md, "delete");
        if (!(v = member(io, "start_skew_ns", JSON_REAL, "iofleet", err, errlen)))
                return -EINVAL;
        fig[REPORT_SKEW] = json_number_value(v) / 1e3;
        /* Size-bound runs (write-up 4): the rate while every worker ran, and the whole. */
        fig[REPORT_FIRST_DONE_BW] = fig[REPORT_LAST_DONE_BW] = NAN;
        {
                json_t *done = json_object_get(io, "done"), *e;
                bool timed = false;
                json_array_foreach(stats, i, e)
                        timed |= json_object_get(json_object_get(e, "job options"), "time_based") !=
                                 NULL;
                if (json_is_object(done) && !timed) {
                        fig[REPORT_FIRST_DONE_BW] =
                            (json_number_value(json_object_get(done, "first_done_read_bw_bytes")) +
                             json_number_value(json_object_get(done, "first_done_write_bw_bytes"))) /
                            MIB;
                        fig[REPORT_LAST_DONE_BW] =
                            (json_number_value(json_object_get(done, "last_done_read_bw_bytes")) +
                             json_number_value(json_object_get(done, "last_done_write_bw_bytes"))) /
                            MIB;
                }
        }
        return 0;
}

/* Reads path as JSON; -errno with "what is wrong" (no path: callers add it). */
static int load_json(const char *path, json_t **ret, char *err, size_t errlen)
{
        json_error_t je;
        struct stat st;
        json_t *doc;
        if (stat(path, &st) < 0)
                return errorf(err, errlen, -errno, "%s", strerror(errno));
        if (!S_ISREG(st.st_mode))
                return errorf(err, errlen, -EINVAL, "not a regular file");
        doc = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
        if (!doc)
                return errorf(err, errlen, -EINVAL, "line %d column %d: %s", je.line, je.column,
                              je.text);
        *ret = doc;
        return 0;
}

/* One run's result.json: figures, or an error kept on the run (a failed point is no failure of
 * the report). Returns -errno only for running out of memory. */
static int load_run(report_run_t *run, const char *run_dir)
{
        char path[4200], why[512] = "";
        json_t *io;
        const char *status;
        int r;

        for (int k = 0; k < REPORT_N_FIGS; k++)
                run->fig[k] = NAN;
        snprintf(path, sizeof(path), "%s%s%s/result.json", run_dir, *run->dir ? "/" : "", run->dir);
        r = load_json(path, &run->doc, why, sizeof(why));
        status = r >= 0 ? json_string_value(json_object_get(json_object_get(run->doc, "iofleet"),
                                                            "status"))
                        : NULL;
        if (status && streq(status, "partial")) {
                /* Measured, but not by every agent all along: its figures count, marked (the
                 * sweep's error, and the result's, only say it was partial). */
                free(run->error);
                run->error = NULL;
        }
        if (r >= 0 && run->error)
                return 0; /* the sweep already says it failed: its figures are not compared */
        if (r >= 0)
                r = report_figures(run->doc, run->fig, why, sizeof(why));
        if (r < 0) {
                char msg[700];
                for (int k = 0; k < REPORT_N_FIGS; k++)
                        run->fig[k] = NAN;
                if (run->error)
                        return 0;
                snprintf(msg, sizeof(msg), "%s%sresult.json: %s", run->dir, *run->dir ? "/" : "",
                         why);
                return strdup_to(&run->error, msg);
        }
        io = json_object_get(run->doc, "iofleet");
        status = json_string_value(json_object_get(io, "status"));
        if (status && streq(status, "partial")) {
                const char *part = json_string_value(json_object_get(io, "partial"));
                return strdup_to(&run->partial,
                                 part ? part : "not every agent delivered every interval");
        }
        if (status && !streq(status, "ok")) {
                const char *e = json_string_value(json_object_get(io, "error"));
                snprintf(why, sizeof(why), "run %s%s%s", status, e ? ": " : "", e ? e : "");
                for (int k = 0; k < REPORT_N_FIGS; k++)
                        run->fig[k] = NAN;
                return strdup_to(&run->error, why);
        }
        return 0;
}

/* ---- the run directory ---- */

static int point_add_run(report_point_t *p, report_run_t **ret)
{
        report_run_t *n = realloc(p->runs, (p->n_runs + 1) * sizeof(*n));
        if (!n)
                return -ENOMEM;
        p->runs = n;
        *ret = memset(&n[p->n_runs++], 0, sizeof(*n));
        return 0;
}

/* A directory name inside the run directory: no absolute path, no "..", no empty name. */
static bool safe_dir(const char *d)
{
        const char *c = d;
        if (!*d || *d == '/')
                return false;
        while (*c) {
                size_t len = strcspn(c, "/");
                if (len == 0 || (len == 2 && c[0] == '.' && c[1] == '.'))
                        return false;
                c += len;
                c += *c == '/';
        }
        return true;
}

static int load_single(report_t *rep, char *err, size_t errlen)
{
        report_point_t *p;
        report_run_t *run;
        char path[4200], why[512] = "";
        json_t *doc = NULL;
        int r;

        snprintf(path, sizeof(path), "%s/result.json", rep->run_dir);
        if ((r = load_json(path, &doc, why, sizeof(why))) == -ENOENT)
                return errorf(err, errlen, r,
                              "%s: No such file, and no sweep.json beside it: not a run directory",
                              path);
        if (r < 0)
                return errorf(err, errlen, r, "%s: %s", path, why);
        {
                double fig[REPORT_N_FIGS];
                r = report_figures(doc, fig, why, sizeof(why));
                const char *id =
                    json_string_value(json_object_get(json_object_get(doc, "iofleet"), "run_id"));
                if (r >= 0 && (r = strdup_to(&rep->run_id, id ? id : "")) < 0)
                        return r;
        }
        json_decref(doc);
        if (r < 0)
                return errorf(err, errlen, r, "%s: %s", path, why);
        if (!(rep->points = calloc(1, sizeof(*rep->points))))
                return -ENOMEM;
        rep->n_points = 1;
        p = &rep->points[0];
        if ((r = point_add_run(p, &run)) < 0 || (r = strdup_to(&run->dir, "")) < 0)
                return r;
        return load_run(run, rep->run_dir);
}

static int sweep_param(json_t *params, const char *name, char **ret, const char *where, char *err,
                       size_t errlen)
{
        json_t *v = json_object_get(params, name);
        char buf[64];
        if (json_is_string(v))
                return strdup_to(ret, json_string_value(v));
        if (json_is_integer(v)) {
                snprintf(buf, sizeof(buf), "%lld", (long long)json_integer_value(v));
                return strdup_to(ret, buf);
        }
        if (json_is_real(v)) {
                snprintf(buf, sizeof(buf), "%g", json_real_value(v));
                return strdup_to(ret, buf);
        }
        return errorf(err, errlen, -EINVAL, "%s.params.%s: %s, expected a string", where, name,
                      v ? "wrong type" : "missing");
}

/* sweep.json's points, grouped by index (repeats of a point share its index and params). */
static int load_sweep_points(report_t *rep, json_t *points, const char *file, char *err,
                             size_t errlen)
{
        json_t *e;
        size_t i;
        int r;

        if (!(rep->points = calloc(json_array_size(points) + 1, sizeof(*rep->points))))
                return -ENOMEM;
        json_array_foreach(points, i, e)
        {
                char where[64], why[256];
                json_t *idx, *params, *dir, *perr = json_object_get(e, "error"),
                                            *rpt = json_object_get(e, "repeat");
                report_point_t *p = NULL;
                report_run_t *run;
                snprintf(where, sizeof(where), "points[%zu]", i);
                if (!json_is_object(e))
                        return errorf(err, errlen, -EINVAL, "%s: %s: not an object", file, where);
                if (!(idx = member(e, "index", JSON_INTEGER, where, why, sizeof(why))) ||
                    !(params = member(e, "params", JSON_OBJECT, where, why, sizeof(why))) ||
                    !(dir = member(e, "dir", JSON_STRING, where, why, sizeof(why))))
                        return errorf(err, errlen, -EINVAL, "%s: %s", file, why);
                if (json_integer_value(idx) < 0 || json_integer_value(idx) > 1000000)
                        return errorf(err, errlen, -EINVAL,
                                      "%s: %s.index: %lld is not a point index 0..1000000", file,
                                      where, (long long)json_integer_value(idx));
                if (rpt && (!json_is_integer(rpt) || json_integer_value(rpt) < 0))
                        return errorf(err, errlen, -EINVAL, "%s: %s.repeat: not an integer >= 0",
                                      file, where);
                if (perr && !json_is_string(perr) && !json_is_null(perr))
                        return errorf(err, errlen, -EINVAL, "%s: %s.error: not a string", file,
                                      where);
                if (!safe_dir(json_string_value(dir)))
                        return errorf(err, errlen, -EINVAL,
                                      "%s: %s.dir: '%s' is not a directory name inside the run "
                                      "directory",
                                      file, where, json_string_value(dir));
                for (size_t k = 0; k < rep->n_points; k++)
                        if (rep->points[k].index == (unsigned)json_integer_value(idx))
                                p = &rep->points[k];
                if (!p) {
                        p = &rep->points[rep->n_points++];
                        p->index = (unsigned)json_integer_value(idx);
                        if (!(p->values = calloc(rep->n_params + 1, sizeof(*p->values))))
                                return -ENOMEM;
                        for (size_t k = 0; k < rep->n_params; k++)
                                if ((r = sweep_param(params, rep->params[k], &p->values[k], where,
                                                     why, sizeof(why))) < 0)
                                        return errorf(err, errlen, r, "%s: %s", file, why);
                } else
                        for (size_t k = 0; k < rep->n_params; k++) {
                                char *v = NULL;
                                bool same;
                                if ((r = sweep_param(params, rep->params[k], &v, where, why,
                                                     sizeof(why))) < 0)
                                        return errorf(err, errlen, r, "%s: %s", file, why);
                                same = streq(v, p->values[k]);
                                free(v);
                                if (!same)
                                        return errorf(err, errlen, -EINVAL,
                                                      "%s: %s.params.%s: differs from another "
                                                      "repeat of point %u",
                                                      file, where, rep->params[k], p->index);
                        }
                if ((r = point_add_run(p, &run)) < 0 ||
                    (r = strdup_to(&run->dir, json_string_value(dir))) < 0)
                        return r;
                run->repeat = rpt ? (unsigned)json_integer_value(rpt) : 0;
                if (json_string_value(perr) && *json_string_value(perr) &&
                    (r = strdup_to(&run->error, json_string_value(perr))) < 0)
                        return r;
                if ((r = load_run(run, rep->run_dir)) < 0)
                        return r;
        }
        return 0;
}

static int cmp_point(const void *a, const void *b)
{
        const report_point_t *x = a, *y = b;
        return (x->index > y->index) - (x->index < y->index);
}

static int load_sweep(report_t *rep, const char *file, char *err, size_t errlen)
{
        json_t *doc = NULL, *params, *points, *v;
        char why[512] = "";
        size_t i;
        int r;

        if ((r = load_json(file, &doc, why, sizeof(why))) < 0)
                return errorf(err, errlen, r, "%s: %s", file, why);
        r = -EINVAL;
        if (!json_is_object(doc)) {
                errorf(err, errlen, r, "%s: not a JSON object", file);
                goto out;
        }
        if (!(params = member(doc, "parameters", JSON_ARRAY, "", why, sizeof(why))) ||
            !(points = member(doc, "points", JSON_ARRAY, "", why, sizeof(why)))) {
                errorf(err, errlen, r, "%s: %s", file, why);
                goto out;
        }
        if (json_array_size(points) == 0) {
                errorf(err, errlen, r, "%s: points: empty, expected at least one point", file);
                goto out;
        }
        /* The coordinator names a sweep by sweep_id (older fixtures: run_id). */
        v = json_object_get(doc, "sweep_id");
        if (!json_is_string(v))
                v = json_object_get(doc, "run_id");
        if ((r = strdup_to(&rep->run_id, json_is_string(v) ? json_string_value(v) : "")) < 0)
                goto out;
        if (!(rep->params = calloc(json_array_size(params) + 1, sizeof(*rep->params)))) {
                r = -ENOMEM;
                goto out;
        }
        json_array_foreach(params, i, v)
        {
                if (!json_is_string(v) || !*json_string_value(v)) {
                        r = errorf(err, errlen, -EINVAL,
                                   "%s: parameters[%zu]: not a parameter name", file, i);
                        goto out;
                }
                if ((r = strdup_to(&rep->params[rep->n_params++], json_string_value(v))) < 0)
                        goto out;
        }
        if ((r = load_sweep_points(rep, points, file, err, errlen)) < 0)
                goto out;
        qsort(rep->points, rep->n_points, sizeof(*rep->points), cmp_point);
        r = 0;
out:
        json_decref(doc);
        return r;
}

/* Whether the clients parameter varies and every point's value is a client count. */
static int find_clients(const report_t *r)
{
        for (size_t k = 0; k < r->n_params; k++) {
                bool varies = false;
                if (!streq(r->params[k], "clients"))
                        continue;
                for (size_t i = 0; i < r->n_points; i++) {
                        char *end;
                        double c = strtod(r->points[i].values[k], &end);
                        if (*end || !(c > 0))
                                return -1;
                        if (c != strtod(r->points[0].values[k], NULL))
                                varies = true;
                }
                return varies ? (int)k : -1;
        }
        return -1;
}

/* Points that differ only in their client count form one scaling curve. */
static bool same_group(const report_t *r, const report_point_t *a, const report_point_t *b)
{
        for (size_t k = 0; k < r->n_params; k++)
                if ((int)k != r->clients_param && !streq(a->values[k], b->values[k]))
                        return false;
        return true;
}

void report_aggregate(report_t *r)
{
        r->clients_param = find_clients(r);
        for (size_t i = 0; i < r->n_points; i++) {
                report_point_t *p = &r->points[i];
                double v[p->n_runs + 1];
                p->n_ok = 0;
                for (size_t k = 0; k < p->n_runs; k++)
                        p->n_ok += !p->runs[k].error;
                for (int f = 0; f < REPORT_N_FIGS; f++) {
                        size_t n = 0;
                        for (size_t k = 0; k < p->n_runs; k++)
                                if (!p->runs[k].error && isfinite(p->runs[k].fig[f]))
                                        v[n++] = p->runs[k].fig[f];
                        p->rsd[f] = report_rsd(v, n);
                        p->median[f] = report_median(v, n);
                        p->lo[f] = n ? v[0] : NAN;
                        p->hi[f] = n ? v[n - 1] : NAN;
                }
                p->clients =
                    r->clients_param >= 0 ? strtod(p->values[r->clients_param], NULL) : NAN;
                p->per_client = p->efficiency = NAN;
        }
        if (r->clients_param < 0)
                return;
        for (size_t i = 0; i < r->n_points; i++) {
                report_point_t *p = &r->points[i], *base = NULL;
                for (size_t j = 0; j < r->n_points; j++) {
                        report_point_t *q = &r->points[j];
                        if (same_group(r, p, q) && q->median[REPORT_TOTAL_BW] > 0 &&
                            (!base || q->clients < base->clients))
                                base = q;
                }
                if (!isfinite(p->median[REPORT_TOTAL_BW]))
                        continue;
                p->per_client = p->median[REPORT_TOTAL_BW] / p->clients;
                if (base)
                        p->efficiency =
                            report_efficiency(base->clients, base->median[REPORT_TOTAL_BW],
                                              p->clients, p->median[REPORT_TOTAL_BW]);
        }
}

int report_load(const char *run_dir, report_t **ret, char *err, size_t errlen)
{
        report_t *rep = calloc(1, sizeof(*rep));
        char file[4200];
        struct stat st;
        int r;

        if (!rep)
                return -ENOMEM;
        rep->clients_param = -1;
        if ((r = strdup_to(&rep->run_dir, run_dir)) < 0)
                goto fail;
        if (stat(run_dir, &st) < 0) {
                r = errorf(err, errlen, -errno, "%s: %s", run_dir, strerror(errno));
                goto fail;
        }
        if (!S_ISDIR(st.st_mode)) {
                r = errorf(err, errlen, -ENOTDIR, "%s: not a directory", run_dir);
                goto fail;
        }
        snprintf(file, sizeof(file), "%s/sweep.json", run_dir);
        if (access(file, F_OK) == 0) {
                rep->sweep = true;
                r = load_sweep(rep, file, err, errlen);
        } else
                r = load_single(rep, err, errlen);
        if (r < 0)
                goto fail;
        report_aggregate(rep);
        *ret = rep;
        return 0;
fail:
        if (r == -ENOMEM && !*err)
                snprintf(err, errlen, "out of memory");
        /* One line: jansson quotes the bytes near a syntax error, names come from the file. */
        for (char *c = err; c && *c; c++)
                if ((unsigned char)*c < 0x20 || *c == 0x7f)
                        *c = '?';
        report_free(&rep);
        return r;
}

void report_free(report_t **rp)
{
        report_t *r = *rp;
        if (!r)
                return;
        for (size_t i = 0; i < r->n_points; i++) {
                report_point_t *p = &r->points[i];
                for (size_t k = 0; p->values && k < r->n_params; k++)
                        free(p->values[k]);
                free(p->values);
                for (size_t k = 0; k < p->n_runs; k++) {
                        free(p->runs[k].dir);
                        free(p->runs[k].error);
                        free(p->runs[k].partial);
                        json_decref(p->runs[k].doc);
                }
                free(p->runs);
        }
        for (size_t k = 0; k < r->n_params; k++)
                free(r->params[k]);
        free(r->params);
        free(r->points);
        free(r->run_dir);
        free(r->run_id);
        free(r);
        *rp = NULL;
}
