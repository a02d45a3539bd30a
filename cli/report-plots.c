/* iofleet report's SVG plots: bandwidth over time per run, the scaling curve when the client count
 * varies, and bars of the main figure across sweep points. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "svg.h"
#include "util.h"

#define MIB (1024.0 * 1024.0)
#define MAX_AGENT_LINES 64

static double jnum(json_t *o, const char *key)
{
        json_t *v = json_object_get(o, key);
        return json_is_number(v) ? json_number_value(v) : 0;
}

/* "a=1 b=2" for a point's parameters, leaving out skip (-1: none). */
static void point_label(const report_t *r, const report_point_t *p, int skip, char *buf, size_t len)
{
        size_t n = 0;
        buf[0] = 0;
        for (size_t k = 0; k < r->n_params && n < len; k++)
                if ((int)k != skip)
                        n += (size_t)snprintf(buf + n, len - n, "%s%s=%s", n ? " " : "",
                                              r->params[k], p->values[k]);
}

/* Bandwidth per interval, summed and per agent (or metadata ops/s when no bytes moved). */
static int plot_timeline(const report_t *r, const report_point_t *p, const report_run_t *run,
                         const char *dir, char *err, size_t errlen)
{
        json_t *io = json_object_get(run->doc, "iofleet");
        json_t *ivs = json_object_get(io, "intervals"), *agents = json_object_get(io, "agents");
        size_t n = json_array_size(ivs), n_agents = json_array_size(agents), n_series = 0;
        double iv_s = jnum(io, "interval_ns") / 1e9, bytes = 0, meta = 0;
        double *x = NULL, *sum = NULL, *rd = NULL, *wr = NULL, *per = NULL;
        double *iops = NULL, *riops = NULL, *wiops = NULL, *iper = NULL, *p50 = NULL, *p99 = NULL;
        svg_series_t *series = NULL, *io_series = NULL, lat_series[2];
        size_t n_io = 0;
        double lat_max = 0, lat_div = 1e3;
        const char *lat_unit = "us";
        bool lat = false;
        svg_t *s = NULL;
        char path[4200], name[512], title[1024], label[768];
        bool md;
        int r_ = -ENOMEM;

        if (!json_is_array(ivs) || n == 0 || !(iv_s > 0))
                return 0;
        if (n_agents > MAX_AGENT_LINES)
                n_agents = MAX_AGENT_LINES;
        x = calloc(n, sizeof(*x));
        sum = calloc(n, sizeof(*sum));
        rd = calloc(n, sizeof(*rd));
        wr = calloc(n, sizeof(*wr));
        per = calloc(n * (n_agents + 1), sizeof(*per));
        series = calloc(n_agents + 3, sizeof(*series));
        io_series = calloc(n_agents + 3, sizeof(*io_series));
        iops = calloc(n, sizeof(*iops));
        riops = calloc(n, sizeof(*riops));
        wiops = calloc(n, sizeof(*wiops));
        iper = calloc(n * (n_agents + 1), sizeof(*iper));
        p50 = calloc(n, sizeof(*p50));
        p99 = calloc(n, sizeof(*p99));
        if (!x || !sum || !rd || !wr || !per || !series || !io_series || !iops || !riops ||
            !wiops || !iper || !p50 || !p99)
                goto out;
        for (size_t k = 0; k < n; k++) {
                json_t *iv = json_array_get(ivs, k);
                bytes += jnum(iv, "read_bytes") + jnum(iv, "write_bytes");
                meta += jnum(iv, "meta_ops");
        }
        md = bytes == 0 && meta > 0;
        for (size_t k = 0; k < n; k++) {
                json_t *iv = json_array_get(ivs, k), *pa = json_object_get(iv, "agents"), *e;
                size_t j;
                x[k] = (double)(k + 1) * iv_s; /* a rate is known at the end of its interval */
                rd[k] = jnum(iv, "read_bytes") / iv_s / MIB;
                wr[k] = jnum(iv, "write_bytes") / iv_s / MIB;
                sum[k] = md ? jnum(iv, "meta_ops") / iv_s : rd[k] + wr[k];
                riops[k] = jnum(iv, "read_ios") / iv_s;
                wiops[k] = jnum(iv, "write_ios") / iv_s;
                iops[k] = riops[k] + wiops[k];
                /* The interval's completion latency; none (a gap) where nothing completed. */
                p50[k] = jnum(iv, "clat_p50_ns") > 0 ? jnum(iv, "clat_p50_ns") : NAN;
                p99[k] = jnum(iv, "clat_p99_ns") > 0 ? jnum(iv, "clat_p99_ns") : NAN;
                if (isfinite(p99[k])) {
                        lat = true;
                        lat_max = fmax(lat_max, p99[k]);
                }
                for (size_t a = 0; a < n_agents; a++)
                        per[a * n + k] = iper[a * n + k] = NAN;
                json_array_foreach(pa, j, e)
                {
                        const char *an = json_string_value(json_object_get(e, "name"));
                        for (size_t a = 0; an && a < n_agents; a++) {
                                const char *want = json_string_value(
                                    json_object_get(json_array_get(agents, a), "name"));
                                if (want && streq(want, an)) {
                                        per[a * n + k] =
                                            (jnum(e, "read_bytes") + jnum(e, "write_bytes")) /
                                            iv_s / MIB;
                                        iper[a * n + k] =
                                            (jnum(e, "read_ios") + jnum(e, "write_ios")) / iv_s;
                                }
                        }
                }
        }
        series[n_series++] =
            (svg_series_t){.label = md ? "all agents, metadata ops/s" : "all agents, read+write",
                           .x = x,
                           .y = sum,
                           .n = n,
                           .color = 0,
                           .width = 3,
                           .markers = true};
        if (!md && bytes > 0) {
                bool both = false, r_any = false, w_any = false;
                for (size_t k = 0; k < n; k++) {
                        r_any |= rd[k] > 0;
                        w_any |= wr[k] > 0;
                }
                both = r_any && w_any;
                if (both) {
                        series[n_series++] = (svg_series_t){.label = "all agents, read",
                                                            .x = x,
                                                            .y = rd,
                                                            .n = n,
                                                            .color = 0,
                                                            .stroke = SVG_DASHED,
                                                            .width = 1.5};
                        series[n_series++] = (svg_series_t){.label = "all agents, write",
                                                            .x = x,
                                                            .y = wr,
                                                            .n = n,
                                                            .color = 0,
                                                            .stroke = SVG_DOTTED,
                                                            .width = 2};
                }
                for (size_t a = 0; a < n_agents; a++)
                        series[n_series++] =
                            (svg_series_t){.label = json_string_value(
                                               json_object_get(json_array_get(agents, a), "name")),
                                           .x = x,
                                           .y = per + a * n,
                                           .n = n,
                                           .color = 1 + (unsigned)a,
                                           .width = 1.2,
                                           .markers = n < 40};
                /* IOPS: the same lines as the bandwidth (the sum, read and write when both
                 * moved, one per agent), counted in I/Os. */
                {
                        size_t first_agent = both ? 3 : 1;
                        for (size_t i = 0; i < n_series; i++) {
                                io_series[n_io] = series[i];
                                if (i == 0)
                                        io_series[n_io].y = iops;
                                else if (i < first_agent)
                                        io_series[n_io].y = i == 1 ? riops : wiops;
                                else
                                        io_series[n_io].y = iper + (i - first_agent) * n;
                                n_io++;
                        }
                }
                if (lat_max >= 10e6) {
                        lat_div = 1e6;
                        lat_unit = "ms";
                }
                for (size_t k = 0; k < n; k++) {
                        p50[k] /= lat_div;
                        p99[k] /= lat_div;
                }
                lat_series[0] = (svg_series_t){.label = "all agents, clat p99",
                                               .x = x,
                                               .y = p99,
                                               .n = n,
                                               .color = 3,
                                               .width = 2.5,
                                               .markers = n < 40};
                lat_series[1] = (svg_series_t){.label = "all agents, clat p50",
                                               .x = x,
                                               .y = p50,
                                               .n = n,
                                               .color = 0,
                                               .width = 1.5,
                                               .stroke = SVG_DASHED,
                                               .markers = n < 40};
        }

        snprintf(name, sizeof(name), "%s", *run->dir ? run->dir : "run");
        for (char *c = name; *c; c++)
                if (*c == '/')
                        *c = '_';
        snprintf(path, sizeof(path), "%s/timeline-%s.svg", dir, name);
        point_label(r, p, -1, label, sizeof(label));
        if (r->sweep)
                snprintf(title, sizeof(title), "point %u repeat %u: %s", p->index, run->repeat,
                         label);
        else
                snprintf(title, sizeof(title), "run %s",
                         json_string_value(json_object_get(io, "run_id"))
                             ? json_string_value(json_object_get(io, "run_id"))
                             : "");
        if ((r_ = svg_open(path, 900, 36 + 420 * (n_io ? (lat ? 3 : 2) : 1), title, &s)) < 0) {
                errorf(err, errlen, r_, "%s: %s", path, strerror(-r_));
                goto out;
        }
        svg_heading(s, 24,
                    md     ? "Metadata operations over time"
                    : n_io ? (lat ? "Bandwidth, IOPS and latency over time"
                                  : "Bandwidth and IOPS over time")
                           : "Bandwidth over time");
        svg_line_panel(s, 0, 36, 900, 420,
                       &(svg_panel_t){.title = title,
                                      .xlabel = "time since the start instant (s)",
                                      .ylabel = md ? "operations/s" : "bandwidth (MiB/s)",
                                      .xmin = 0,
                                      .xmax = (double)n * iv_s,
                                      .y_from_zero = true,
                                      .legend_max = 20},
                       series, n_series);
        if (n_io)
                svg_line_panel(s, 0, 456, 900, 420,
                               &(svg_panel_t){.title = "I/O operations per second",
                                              .xlabel = "time since the start instant (s)",
                                              .ylabel = "IOPS",
                                              .xmin = 0,
                                              .xmax = (double)n * iv_s,
                                              .y_from_zero = true,
                                              .legend_max = 20},
                               io_series, n_io);
        if (n_io && lat) {
                char ylabel[64];
                snprintf(ylabel, sizeof(ylabel), "completion latency (%s)", lat_unit);
                svg_line_panel(s, 0, 876, 900, 420,
                               &(svg_panel_t){.title = "Completion latency of each interval "
                                                       "(read and write merged, all agents)",
                                              .xlabel = "time since the start instant (s)",
                                              .ylabel = ylabel,
                                              .xmin = 0,
                                              .xmax = (double)n * iv_s,
                                              .y_from_zero = true},
                               lat_series, 2);
        }
        if ((r_ = svg_close(&s)) < 0)
                errorf(err, errlen, r_, "%s: %s", path, strerror(-r_));
        else
                r_ = 1;
out:
        free(x);
        free(sum);
        free(rd);
        free(wr);
        free(per);
        free(series);
        free(io_series);
        free(iops);
        free(riops);
        free(wiops);
        free(iper);
        free(p50);
        free(p99);
        return r_;
}

static int cmp_double(const void *a, const void *b)
{
        double x = *(const double *)a, y = *(const double *)b;
        return (x > y) - (x < y);
}

/* Aggregate and per-client bandwidth and efficiency against the client count, one curve per
 * combination of the other parameters. */
static int plot_scaling(const report_t *r, const char *dir, char *err, size_t errlen)
{
        size_t n = r->n_points, n_groups = 0;
        size_t *group = calloc(n + 1, sizeof(*group)), *first = calloc(n + 1, sizeof(*first));
        double *x = calloc(n + 1, sizeof(*x)), *agg = calloc(n + 1, sizeof(*agg));
        double *lin = calloc(n + 1, sizeof(*lin)), *pc = calloc(n + 1, sizeof(*pc));
        double *eff = calloc(n + 1, sizeof(*eff));
        svg_series_t *s_agg = calloc(2 * n + 1, sizeof(*s_agg));
        svg_series_t *s_pc = calloc(n + 1, sizeof(*s_pc)), *s_eff = calloc(n + 1, sizeof(*s_eff));
        char(*labels)[300] = calloc(n + 1, sizeof(*labels));
        char(*lin_labels)[320] = calloc(n + 1, sizeof(*lin_labels));
        char path[4200];
        size_t at = 0, n_agg = 0;
        svg_t *s = NULL;
        int ret = -ENOMEM;

        if (!group || !first || !x || !agg || !lin || !pc || !eff || !s_agg || !s_pc || !s_eff ||
            !labels || !lin_labels)
                goto out;
        for (size_t i = 0; i < n; i++) {
                size_t g;
                for (g = 0; g < n_groups; g++) {
                        const report_point_t *a = &r->points[first[g]], *b = &r->points[i];
                        bool same = true;
                        for (size_t k = 0; k < r->n_params; k++)
                                if ((int)k != r->clients_param &&
                                    !streq(a->values[k], b->values[k]))
                                        same = false;
                        if (same)
                                break;
                }
                if (g == n_groups)
                        first[n_groups++] = i;
                group[i] = g;
        }
        for (size_t g = 0; g < n_groups; g++) {
                size_t start = at, cnt;
                double base_c = NAN, base_bw = NAN;
                /* The group's points in client order: pairs (clients, index) sorted. */
                double keys[2 * n + 2];
                cnt = 0;
                for (size_t i = 0; i < n; i++)
                        if (group[i] == g) {
                                keys[2 * cnt] = r->points[i].clients;
                                keys[2 * cnt + 1] = (double)i;
                                cnt++;
                        }
                qsort(keys, cnt, 2 * sizeof(double), cmp_double);
                for (size_t j = 0; j < cnt; j++) {
                        const report_point_t *p = &r->points[(size_t)keys[2 * j + 1]];
                        x[at] = p->clients;
                        agg[at] = p->median[REPORT_TOTAL_BW];
                        pc[at] = p->per_client;
                        eff[at] = p->efficiency;
                        if (!isfinite(base_c) && p->median[REPORT_TOTAL_BW] > 0) {
                                base_c = p->clients;
                                base_bw = p->median[REPORT_TOTAL_BW];
                        }
                        at++;
                }
                for (size_t j = start; j < at; j++)
                        lin[j] = isfinite(base_c) ? base_bw / base_c * x[j] : NAN;
                point_label(r, &r->points[first[g]], r->clients_param, labels[g],
                            sizeof(labels[g]));
                if (!labels[g][0])
                        snprintf(labels[g], sizeof(labels[g]), "measured");
                if (n_groups > 1)
                        snprintf(lin_labels[g], sizeof(lin_labels[g]), "linear: %s", labels[g]);
                else
                        snprintf(lin_labels[g], sizeof(lin_labels[g]), "linear from %g client%s",
                                 base_c, base_c == 1 ? "" : "s");
                s_agg[n_agg++] = (svg_series_t){.label = labels[g],
                                                .x = x + start,
                                                .y = agg + start,
                                                .n = at - start,
                                                .color = (unsigned)g,
                                                .width = 2.5,
                                                .markers = true};
                s_agg[n_agg++] = (svg_series_t){.label = lin_labels[g],
                                                .x = x + start,
                                                .y = lin + start,
                                                .n = at - start,
                                                .color = (unsigned)g,
                                                .stroke = SVG_DASHED,
                                                .width = 1.2};
                s_pc[g] = (svg_series_t){.label = labels[g],
                                         .x = x + start,
                                         .y = pc + start,
                                         .n = at - start,
                                         .color = (unsigned)g,
                                         .width = 2.5,
                                         .markers = true};
                s_eff[g] = s_pc[g];
                s_eff[g].y = eff + start;
        }
        snprintf(path, sizeof(path), "%s/scaling.svg", dir);
        if ((ret = svg_open(path, 900, 1000, "Scaling with the client count", &s)) < 0) {
                errorf(err, errlen, ret, "%s: %s", path, strerror(-ret));
                goto out;
        }
        svg_heading(s, 24, "Scaling with the client count (medians of the repeats)");
        svg_line_panel(s, 0, 40, 900, 320,
                       &(svg_panel_t){.title = "Aggregate bandwidth (read + write)",
                                      .xlabel = "clients",
                                      .x_integer = true,
                                      .ylabel = "bandwidth (MiB/s)",
                                      .y_from_zero = true},
                       s_agg, n_agg);
        svg_line_panel(s, 0, 360, 900, 320,
                       &(svg_panel_t){.title = "Bandwidth per client",
                                      .xlabel = "clients",
                                      .x_integer = true,
                                      .ylabel = "bandwidth per client (MiB/s)",
                                      .y_from_zero = true},
                       s_pc, n_groups);
        svg_line_panel(s, 0, 680, 900, 320,
                       &(svg_panel_t){.title = "Efficiency against linear scaling",
                                      .xlabel = "clients",
                                      .x_integer = true,
                                      .ylabel = "efficiency (%)",
                                      .y_from_zero = true},
                       s_eff, n_groups);
        if ((ret = svg_close(&s)) < 0)
                errorf(err, errlen, ret, "%s: %s", path, strerror(-ret));
        else
                ret = 1;
out:
        free(group);
        free(first);
        free(x);
        free(agg);
        free(lin);
        free(pc);
        free(eff);
        free(s_agg);
        free(s_pc);
        free(s_eff);
        free(labels);
        free(lin_labels);
        return ret;
}

static bool shown(const report_t *r, report_fig_t f)
{
        for (size_t i = 0; i < r->n_points; i++)
                if (r->points[i].median[f] > 0)
                        return true;
        return false;
}

/* One panel of bars.svg: parts stacked per point (read below write), whiskers from fig's
 * slowest to fastest repeat (REPORT_N_FIGS: none). */
typedef struct bar_panel {
        const char *title, *unit;
        report_fig_t parts[2];
        const char *part_labels[2];
        size_t n_parts;
        report_fig_t whisker;
} bar_panel_t;

/* Every point side by side: bandwidth and IOPS with read and write stacked, completion latency
 * p99 per direction, metadata creates; each panel only when some point has that figure. */
static int plot_bars(const report_t *r, const char *dir, char *err, size_t errlen)
{
        static const bar_panel_t all[] = {
            {"Bandwidth (read and write stacked)", "bandwidth (MiB/s)",
             {REPORT_READ_BW, REPORT_WRITE_BW}, {"read", "write"}, 2, REPORT_TOTAL_BW},
            {"IOPS (read and write stacked)", "IO/s",
             {REPORT_READ_IOPS, REPORT_WRITE_IOPS}, {"read", "write"}, 2, REPORT_N_FIGS},
            {"Read completion latency p99", "latency (us)", {REPORT_READ_P99}, {"read p99"}, 1,
             REPORT_READ_P99},
            {"Write completion latency p99", "latency (us)", {REPORT_WRITE_P99}, {"write p99"},
             1, REPORT_WRITE_P99},
            {"Metadata file creates", "files/s", {REPORT_CREATE}, {"creates"}, 1,
             REPORT_CREATE},
        };
        const bar_panel_t *panels[ELEMENTSOF(all)];
        size_t n = r->n_points, n_panels = 0;
        const char **labels = calloc(n + 1, sizeof(*labels));
        char(*text)[300] = calloc(n + 1, sizeof(*text));
        double *v[2] = {calloc(n + 1, sizeof(double)), calloc(n + 1, sizeof(double))};
        double *lo = calloc(n + 1, sizeof(*lo)), *hi = calloc(n + 1, sizeof(*hi));
        char path[4200], xl[300] = "sweep point:";
        svg_t *s = NULL;
        int ret = -ENOMEM;
        double w;
        size_t len = strlen(xl);

        if (!labels || !text || !v[0] || !v[1] || !lo || !hi)
                goto out;
        for (size_t i = 0; i < ELEMENTSOF(all); i++) {
                bool any = false;
                for (size_t k = 0; k < all[i].n_parts; k++)
                        any |= shown(r, all[i].parts[k]);
                if (any)
                        panels[n_panels++] = &all[i];
        }
        if (!n_panels)
                panels[n_panels++] = &all[0]; /* every point failed: say so on the bandwidth */
        for (size_t i = 0; i < n; i++) {
                const report_point_t *p = &r->points[i];
                size_t tl = (size_t)snprintf(text[i], sizeof(text[i]), "#%u", p->index);
                for (size_t k = 0; k < r->n_params && tl < sizeof(text[i]); k++)
                        tl += (size_t)snprintf(text[i] + tl, sizeof(text[i]) - tl, " %s",
                                               p->values[k]);
                labels[i] = text[i];
        }
        for (size_t k = 0; k < r->n_params && len < sizeof(xl); k++)
                len += (size_t)snprintf(xl + len, sizeof(xl) - len, " %s", r->params[k]);
        snprintf(path, sizeof(path), "%s/bars.svg", dir);
        w = 300 + 70 * (double)n;
        if (w < 700)
                w = 700;
        if ((ret = svg_open(path, w, 36 + 480 * (double)n_panels, "Sweep points side by side",
                            &s)) < 0) {
                errorf(err, errlen, ret, "%s: %s", path, strerror(-ret));
                goto out;
        }
        svg_heading(s, 24, "Sweep points side by side (medians of the repeats that succeeded)");
        for (size_t q = 0; q < n_panels; q++) {
                const bar_panel_t *b = panels[q];
                const double *parts[2] = {v[0], v[1]};
                for (size_t i = 0; i < n; i++) {
                        const report_point_t *p = &r->points[i];
                        for (size_t k = 0; k < b->n_parts; k++) {
                                double x = p->median[b->parts[k]];
                                /* A direction this point did not do is no part of its bar. */
                                v[k][i] = p->n_ok && isfinite(x) && x > 0 ? x : NAN;
                        }
                        if (b->n_parts == 2 && p->n_ok && !isfinite(v[0][i]) &&
                            !isfinite(v[1][i]))
                                v[0][i] = 0; /* ran, moved nothing: an empty bar, not "failed" */
                        lo[i] = b->whisker != REPORT_N_FIGS && p->n_ok > 1 ? p->lo[b->whisker]
                                                                          : NAN;
                        hi[i] = b->whisker != REPORT_N_FIGS && p->n_ok > 1 ? p->hi[b->whisker]
                                                                          : NAN;
                }
                svg_stacked_bar_panel(s, 0, 36 + 480 * (double)q, w, 480,
                                      &(svg_panel_t){.title = b->title, .xlabel = xl,
                                                     .ylabel = b->unit},
                                      labels, parts, b->part_labels, b->n_parts, lo, hi, n);
        }
        if ((ret = svg_close(&s)) < 0)
                errorf(err, errlen, ret, "%s: %s", path, strerror(-ret));
        else
                ret = 1;
out:
        free(labels);
        free(text);
        free(v[0]);
        free(v[1]);
        free(lo);
        free(hi);
        return ret;
}

int report_plots(const report_t *r, const char *dir, char *err, size_t errlen)
{
        int r_, count = 0;
        if ((r_ = mkdir_p(dir, 0755)) < 0)
                return errorf(err, errlen, r_, "%s: %s", dir, strerror(-r_));
        for (size_t i = 0; i < r->n_points; i++)
                for (size_t k = 0; k < r->points[i].n_runs; k++) {
                        if (!r->points[i].runs[k].doc)
                                continue;
                        if ((r_ = plot_timeline(r, &r->points[i], &r->points[i].runs[k], dir, err,
                                                errlen)) < 0)
                                return r_;
                        count += r_;
                }
        if (r->clients_param >= 0) {
                if ((r_ = plot_scaling(r, dir, err, errlen)) < 0)
                        return r_;
                count += r_;
        }
        if (r->sweep) {
                if ((r_ = plot_bars(r, dir, err, errlen)) < 0)
                        return r_;
                count += r_;
        }
        return count;
}
