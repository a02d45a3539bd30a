/* fio 3.33's normal output of the result's job entries, group lines and disk stats. */
#include "render-fio.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fio-units.h"
#include "options.h"
#include "render.h"
#include "util.h"

static uint64_t unum(const json_t *o, const char *key)
{
        double v = json_num(o, key);
        return v > 0 ? (uint64_t)v : 0;
}

/* --- the format ---------------------------------------------------------------------------- */

/* Sets the three options, as the job option table reads them, from an options object. */
static void fmt_from(job_spec_t *spec, json_t *opts)
{
        static const char *const keys[] = {"kb_base", "unit_base", "significant_figures"};
        char err[256];

        for (size_t i = 0; i < ELEMENTSOF(keys); i++) {
                const char *v = json_string_value(json_object_get(opts, keys[i]));
                if (v)
                        job_option_set(spec, keys[i], v, err, sizeof(err));
        }
}

void render_fio_fmt(json_t *doc, json_t *entry, render_fmt_t *fmt)
{
        json_t *opts = json_object_get(entry, "job options"), *stats, *e;
        job_spec_t spec;
        size_t i;

        fmt->kb_base = 1024;
        fmt->unit_base = 8;
        fmt->sig_figs = 4;
        if (!json_object_size(opts)) {
                /* "All clients": the first job entry's */
                stats = json_object_get(doc, "client_stats");
                json_array_foreach(stats, i,
                                   e) if (json_object_size(json_object_get(e, "job options")))
                {
                        opts = json_object_get(e, "job options");
                        break;
                }
        }
        if (job_spec_init(&spec, "fmt") < 0)
                return;
        fmt_from(&spec, json_object_get(doc, "global options"));
        fmt_from(&spec, opts);
        fmt->kb_base = spec.kb_base;
        fmt->unit_base = spec.unit_base == 1 ? 1 : 8;
        fmt->sig_figs = spec.sig_figs;
        job_spec_done(&spec);
}

/* A rate or size in fio's words: the kb_base's prefixes first, or (alt) the other ones. */
static const char *amount(char *buf, size_t len, uint64_t v, const render_fmt_t *fmt, bool alt,
                          fio_unit_t unit)
{
        bool pow2 = fmt->kb_base == 1024;
        if (unit == FIO_UNIT_BYTE_PER_SEC && fmt->unit_base == 1)
                unit = FIO_UNIT_BIT_PER_SEC;
        return fio_units_str(buf, len, v, (int)fmt->sig_figs, alt ? !pow2 : pow2, unit);
}

/* --- a direction ----------------------------------------------------------------------------- */

/* "    clat (usec): min=..., max=..., avg=..., stdev=..." in the unit fio picks. */
static void lat_line(FILE *f, const char *label, const json_t *lat)
{
        uint64_t min = unum(lat, "min"), max = unum(lat, "max");
        double mean = json_num(lat, "mean"), dev = json_num(lat, "stddev");
        const char *unit = "nsec";
        char a[32], b[32];

        if (json_num(lat, "N") == 0)
                return;
        if (min > 2000000 && max > 99999999ULL && dev > 1000000.0) {
                min /= 1000000;
                max /= 1000000;
                mean /= 1e6;
                dev /= 1e6;
                unit = "msec";
        } else if (min > 2000 && max > 99999 && dev > 1000.0) {
                min /= 1000;
                max /= 1000;
                mean /= 1e3;
                dev /= 1e3;
                unit = "usec";
        }
        fprintf(f, "    %s (%s): min=%s, max=%s, avg=%5.02f, stdev=%5.02f\n", label, unit,
                fio_units_str(a, sizeof(a), min, 6, false, FIO_UNIT_NONE),
                fio_units_str(b, sizeof(b), max, 6, false, FIO_UNIT_NONE), mean, dev);
}

/* The decimals a percentile list needs (fio's percentile_precision): its longest fraction. */
static int pct_precision(const json_t *pct)
{
        const char *key;
        json_t *v;
        int prec = 0;

        json_object_foreach((json_t *)pct, key, v)
        {
                const char *dot = strchr(key, '.');
                int d;
                if (!dot)
                        continue;
                d = (int)strlen(dot + 1);
                while (d > 0 && dot[d] == '0')
                        d--;
                prec = d > prec ? d : prec;
        }
        (void)v;
        return prec;
}

/* "    clat percentiles (usec):" and its rows, as fio's show_clat_percentiles(). */
static void pct_lines(FILE *f, const char *label, const json_t *lat)
{
        const json_t *pct = json_object_get(lat, "percentile");
        uint64_t minv = UINT64_MAX, maxv = 0, div = 1;
        const char *unit = "nsec", *key;
        int prec, width, per_line, j = 0;
        size_t n = json_object_size(pct);
        json_t *v;

        if (!n || json_num(lat, "N") == 0)
                return;
        json_object_foreach((json_t *)pct, key, v)
        {
                uint64_t x = (uint64_t)json_integer_value(v);
                minv = x < minv ? x : minv;
                maxv = x > maxv ? x : maxv;
        }
        if (minv > 2000000 && maxv > 99999999ULL) {
                div = 1000000;
                unit = "msec";
        } else if (minv > 2000 && maxv > 99999) {
                div = 1000;
                unit = "usec";
        }
        prec = pct_precision(pct);
        width = maxv / div ? (int)(log10((double)(maxv / div)) + 1) : 1;
        width = width < 5 ? 5 : width;
        per_line = (80 - 7) / (prec + 10 + width);
        fprintf(f, "    %s percentiles (%s):\n     |", label, unit);
        json_object_foreach((json_t *)pct, key, v)
        {
                uint64_t x = (uint64_t)json_integer_value(v);
                bool last = j == (int)n - 1;
                /* rounded up per step of a thousand, as fio's */
                for (uint64_t d = div; d > 1; d /= 1000)
                        x = (x + 999) / 1000;
                if (j != 0 && j % per_line == 0)
                        fprintf(f, "     |");
                fprintf(f, " %*.*fth=[%*" PRIu64 "]%c", prec + 3, prec, atof(key), width, x,
                        last ? '\n' : ',');
                if (!last && j % per_line == per_line - 1)
                        fputc('\n', f);
                j++;
        }
}

/* "   bw (  KiB/s): ..." and "   iops        : ..." from the bw/iops samples (KiB/s). */
static void series_lines(FILE *f, const json_t *d, const render_fmt_t *fmt)
{
        if (json_num(d, "bw_samples") > 0) {
                /* fio 3.33 writes these in bytes whatever unit_base says */
                double kb = fmt->kb_base, mean = json_num(d, "bw_mean"), dev = json_num(d, "bw_dev");
                uint64_t min = unum(d, "bw_min"), max = unum(d, "bw_max");
                const char *label = fmt->kb_base == 1024 ? "KiB" : "kB";
                if (mean > kb * kb) {
                        min = (uint64_t)(min / kb);
                        max = (uint64_t)(max / kb);
                        mean /= kb;
                        dev /= kb;
                        label = "MiB"; /* fio's word, whatever kb_base */
                }
                fprintf(f,
                        "   bw (%5s/s): min=%5" PRIu64 ", max=%5" PRIu64 ", per=%3.2f%%, "
                        "avg=%5.02f, stdev=%5.02f, samples=%" PRIu64 "\n",
                        label, min, max, json_num(d, "bw_agg"), mean, dev, unum(d, "bw_samples"));
        }
        if (json_num(d, "iops_samples") > 0)
                fprintf(f,
                        "   iops        : min=%5" PRIu64 ", max=%5" PRIu64 ", avg=%5.02f, "
                        "stdev=%5.02f, samples=%" PRIu64 "\n",
                        unum(d, "iops_min"), unum(d, "iops_max"), json_num(d, "iops_mean"),
                        json_num(d, "iops_stddev"), unum(d, "iops_samples"));
}

static void dir_block(FILE *f, const char *label, const json_t *d, const render_fmt_t *fmt)
{
        static const char *const lats[] = {"slat_ns", "clat_ns", "lat_ns"};
        static const char *const names[] = {"slat", "clat", " lat"};
        static const char *const pnames[] = {"slat", "clat", "lat"};
        uint64_t runt = unum(d, "runtime"), bytes = unum(d, "io_bytes"), bw, iops;
        char a[32], b[32], c[32], e[32];

        if (!bytes || !runt)
                return;
        bw = bytes * 1000 / runt;
        iops = unum(d, "total_ios") * 1000 / runt;
        fprintf(f, "  %s: IOPS=%s, BW=%s (%s)(%s/%" PRIu64 "msec)\n", label,
                fio_units_str(a, sizeof(a), iops, (int)fmt->sig_figs, false, FIO_UNIT_NONE),
                amount(b, sizeof(b), bw, fmt, false, FIO_UNIT_BYTE_PER_SEC),
                amount(c, sizeof(c), bw, fmt, true, FIO_UNIT_BYTE_PER_SEC),
                amount(e, sizeof(e), bytes, fmt, false, FIO_UNIT_BYTE), runt);
        for (int i = 0; i < 3; i++)
                lat_line(f, names[i], json_object_get(d, lats[i]));
        for (int i = 0; i < 3; i++)
                pct_lines(f, pnames[i], json_object_get(d, lats[i]));
        series_lines(f, d, fmt);
}

/* "  lat (usec)   : 2=..., 4=..." five to a line, the empty ones left out (fio's show_lat()). */
static void dist_lines(FILE *f, const json_t *dist, const char *unit)
{
        const char *key;
        json_t *v;
        int on_line = 0;
        bool any = false;

        json_object_foreach((json_t *)dist, key, v)
        {
                double x = json_number_value(v);
                if (!(x > 0))
                        continue;
                if (on_line == 0)
                        fprintf(f, "%s  lat (%s)   : ", any ? "\n" : "", unit);
                fprintf(f, "%s%s=%3.2f%%", on_line ? ", " : "", key, x);
                any = true;
                on_line = on_line == 4 ? 0 : on_line + 1;
        }
        if (any)
                fputc('\n', f);
}

static void shares_line(FILE *f, const char *label, const json_t *o)
{
        const char *key;
        json_t *v;
        bool first = true;

        fprintf(f, "%s", label);
        json_object_foreach((json_t *)o, key, v)
        {
                fprintf(f, "%s%s=%3.1f%%", first ? "" : ", ", key, json_number_value(v));
                first = false;
        }
        fputc('\n', f);
}

void render_fio_entry(FILE *f, json_t *entry, const render_fmt_t *fmt)
{
        const json_t *rd = json_object_get(entry, "read"), *wr = json_object_get(entry, "write");
        const json_t *mx = json_object_get(entry, "mixed");

        if (mx && !rd)
                dir_block(f, "mixed", mx, fmt); /* unified_rw_reporting=mixed */
        dir_block(f, "read", rd, fmt);
        dir_block(f, "write", wr, fmt);
        if (mx && rd)
                dir_block(f, "mixed", mx, fmt); /* both */
        dist_lines(f, json_object_get(entry, "latency_ns"), "nsec");
        dist_lines(f, json_object_get(entry, "latency_us"), "usec");
        dist_lines(f, json_object_get(entry, "latency_ms"), "msec");
        if (!json_object_get(entry, "usr_cpu"))
                return;
        fprintf(f,
                "  cpu          : usr=%3.2f%%, sys=%3.2f%%, ctx=%" PRIu64 ", majf=%" PRIu64
                ", minf=%" PRIu64 "\n",
                json_num(entry, "usr_cpu"), json_num(entry, "sys_cpu"), unum(entry, "ctx"),
                unum(entry, "majf"), unum(entry, "minf"));
        shares_line(f, "  IO depths    : ", json_object_get(entry, "iodepth_level"));
        shares_line(f, "     submit    : ", json_object_get(entry, "iodepth_submit"));
        shares_line(f, "     complete  : ", json_object_get(entry, "iodepth_complete"));
        {
                const json_t *d = mx && !rd ? mx : rd, *w = mx && !rd ? NULL : wr;
                fprintf(f,
                        "     issued rwts: total=%" PRIu64 ",%" PRIu64 ",0,%" PRIu64
                        " short=%" PRIu64 ",%" PRIu64 ",0,0 dropped=%" PRIu64 ",%" PRIu64 ",0,0\n",
                        unum(d, "issued_ios"), unum(w, "issued_ios"),
                        unum(json_object_get(entry, "sync"), "total_ios"), unum(d, "short_ios"),
                        unum(w, "short_ios"), unum(d, "drop_ios"), unum(w, "drop_ios"));
        }
        if (json_object_get(entry, "total_err")) {
                int e = (int)json_num(entry, "first_error");
                fprintf(f, "     errors    : total=%" PRIu64 ", first_error=%d/<%s>\n",
                        unum(entry, "total_err"), e, strerror(e));
        }
        if (json_num(entry, "latency_depth") > 0)
                fprintf(f,
                        "     latency   : target=%" PRIu64 ", window=%" PRIu64
                        ", percentile=%.2f%%, depth=%" PRIu64 "\n",
                        unum(entry, "latency_target"), unum(entry, "latency_window"),
                        json_num(entry, "latency_percentile"), unum(entry, "latency_depth"));
}

/* --- groups and disks ------------------------------------------------------------------------ */

static void group_dir(FILE *f, const char *label, json_t *stats, int64_t group, const char *key,
                      const render_fmt_t *fmt)
{
        uint64_t io = 0, min_bw = UINT64_MAX, max_bw = 0, min_run = UINT64_MAX, max_run = 0;
        char s[8][32];
        json_t *e;
        size_t i;

        json_array_foreach(stats, i, e)
        {
                const json_t *d = json_object_get(e, key);
                uint64_t runt = unum(d, "runtime"), bytes = unum(d, "io_bytes"), bw;
                if (!json_string_value(json_object_get(e, "agent")) ||
                    (int64_t)json_num(e, "groupid") != group || !runt)
                        continue;
                bw = bytes * 1000 / runt;
                io += bytes;
                min_bw = bw < min_bw ? bw : min_bw;
                max_bw = bw > max_bw ? bw : max_bw;
                min_run = runt < min_run ? runt : min_run;
                max_run = runt > max_run ? runt : max_run;
        }
        if (!max_run || !io)
                return;
        fprintf(f, "%s: bw=%s (%s), %s-%s (%s-%s), io=%s (%s), run=%" PRIu64 "-%" PRIu64 "msec\n",
                label, amount(s[0], 32, io * 1000 / max_run, fmt, false, FIO_UNIT_BYTE_PER_SEC),
                amount(s[1], 32, io * 1000 / max_run, fmt, true, FIO_UNIT_BYTE_PER_SEC),
                amount(s[2], 32, min_bw, fmt, false, FIO_UNIT_BYTE_PER_SEC),
                amount(s[3], 32, max_bw, fmt, false, FIO_UNIT_BYTE_PER_SEC),
                amount(s[4], 32, min_bw, fmt, true, FIO_UNIT_BYTE_PER_SEC),
                amount(s[5], 32, max_bw, fmt, true, FIO_UNIT_BYTE_PER_SEC),
                amount(s[6], 32, io, fmt, false, FIO_UNIT_BYTE),
                amount(s[7], 32, io, fmt, true, FIO_UNIT_BYTE), min_run, max_run);
}

void render_fio_groups(FILE *f, json_t *stats, const render_fmt_t *fmt)
{
        int64_t shown[64];
        size_t n_shown = 0, i;
        json_t *e;

        json_array_foreach(stats, i, e)
        {
                int64_t g = (int64_t)json_num(e, "groupid");
                bool seen = false;
                if (!json_string_value(json_object_get(e, "agent")))
                        continue;
                for (size_t k = 0; k < n_shown; k++)
                        seen |= shown[k] == g;
                if (seen || n_shown == ELEMENTSOF(shown))
                        continue;
                shown[n_shown++] = g;
                fprintf(f, "\nRun status group %" PRId64 " (all jobs):\n", g);
                group_dir(f, "   READ", stats, g, "read", fmt);
                group_dir(f, "  WRITE", stats, g, "write", fmt);
                group_dir(f, "  MIXED", stats, g, "mixed", fmt);
        }
}

void render_fio_disks(FILE *f, json_t *doc)
{
        json_t *disks = json_object_get(doc, "disk_util"), *d;
        const char *first = NULL;
        bool several = false;
        size_t i;

        if (!json_array_size(disks))
                return;
        json_array_foreach(disks, i, d)
        {
                const char *a = json_string_value(json_object_get(d, "agent"));
                if (a && first && !streq(a, first))
                        several = true;
                first = first ? first : a;
        }
        fprintf(f, "\nDisk stats (read/write):\n");
        json_array_foreach(disks, i, d)
        {
                const char *agent = json_string_value(json_object_get(d, "agent"));
                bool aggr = json_object_get(d, "aggr_util") != NULL;
                fprintf(f,
                        "  %s%s%s%s%s: ios=%" PRIu64 "/%" PRIu64 ", merge=%" PRIu64 "/%" PRIu64
                        ", ticks=%" PRIu64 "/%" PRIu64 ", in_queue=%" PRIu64 ", util=%3.2f%%",
                        aggr ? "  " : "", several ? "[" : "", several && agent ? agent : "",
                        several ? "] " : "", json_string_value(json_object_get(d, "name")),
                        unum(d, "read_ios"), unum(d, "write_ios"), unum(d, "read_merges"),
                        unum(d, "write_merges"), unum(d, "read_ticks"), unum(d, "write_ticks"),
                        unum(d, "in_queue"), json_num(d, "util"));
                if (aggr)
                        fprintf(f,
                                ", aggrios=%" PRIu64 "/%" PRIu64 ", aggrmerge=%" PRIu64 "/%" PRIu64
                                ", aggrticks=%" PRIu64 "/%" PRIu64 ", aggrin_queue=%" PRIu64
                                ", aggrutil=%3.2f%%",
                                unum(d, "aggr_read_ios"), unum(d, "aggr_write_ios"),
                                unum(d, "aggr_read_merges"), unum(d, "aggr_write_merge"),
                                unum(d, "aggr_read_ticks"), unum(d, "aggr_write_ticks"),
                                unum(d, "aggr_in_queue"), json_num(d, "aggr_util"));
                fputc('\n', f);
        }
}
