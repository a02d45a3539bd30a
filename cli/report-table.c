/* iofleet report's comparison table: one row per sweep point, as aligned text, CSV or Markdown. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "util.h"

/* How each figure is named and printed. */
static const struct fig_info {
        const char *head, *key;
        int decimals;
} figs[REPORT_N_FIGS] = {
    [REPORT_READ_BW] = {"read MiB/s", "read_mib_s", 1},
    [REPORT_WRITE_BW] = {"write MiB/s", "write_mib_s", 1},
    [REPORT_READ_IOPS] = {"read IOPS", "read_iops", 0},
    [REPORT_WRITE_IOPS] = {"write IOPS", "write_iops", 0},
    [REPORT_READ_P50] = {"read clat p50 us", "read_clat_p50_us", 1},
    [REPORT_READ_P99] = {"read clat p99 us", "read_clat_p99_us", 1},
    [REPORT_WRITE_P50] = {"write clat p50 us", "write_clat_p50_us", 1},
    [REPORT_WRITE_P99] = {"write clat p99 us", "write_clat_p99_us", 1},
    [REPORT_CREATE] = {"create files/s", "create_files_s", 0},
    [REPORT_STAT] = {"stat files/s", "stat_files_s", 0},
    [REPORT_MDREAD] = {"read files/s", "read_files_s", 0},
    [REPORT_DELETE] = {"delete files/s", "delete_files_s", 0},
    [REPORT_SKEW] = {"start skew us", "start_skew_us", 1},
    [REPORT_TOTAL_BW] = {"total MiB/s", "total_mib_s", 1},
    [REPORT_FIRST_DONE_BW] = {"first done MiB/s", "first_done_mib_s", 1},
    [REPORT_LAST_DONE_BW] = {"last done MiB/s", "last_done_mib_s", 1},
};

/* The order of the figure columns: bandwidth, IOPS, latency, metadata, skew. */
static const report_fig_t order[] = {
    REPORT_READ_BW,  REPORT_WRITE_BW, REPORT_TOTAL_BW,  REPORT_FIRST_DONE_BW, REPORT_LAST_DONE_BW,
    REPORT_READ_IOPS, REPORT_WRITE_IOPS, REPORT_READ_P50, REPORT_READ_P99, REPORT_WRITE_P50,
    REPORT_WRITE_P99, REPORT_CREATE, REPORT_STAT, REPORT_MDREAD, REPORT_DELETE, REPORT_SKEW};

typedef struct column {
        char *head;
        bool right;
        char **cells; /* one per point */
} column_t;

typedef struct table {
        column_t **cols; /* pointers, so that a column stays put while others are added */
        size_t n_cols, n_rows;
        int oom;
} table_t;

static char *vfmt(const char *fmt, va_list ap)
{
        char *s = NULL;
        if (vasprintf(&s, fmt, ap) < 0)
                return NULL;
        return s;
}

static column_t *add_col(table_t *t, bool right, const char *fmt, ...) _printf_(3, 4);
static column_t *add_col(table_t *t, bool right, const char *fmt, ...)
{
        column_t **n = realloc(t->cols, (t->n_cols + 1) * sizeof(*n)), *c;
        va_list ap;
        if (!n) {
                t->oom = -ENOMEM;
                return NULL;
        }
        t->cols = n;
        if (!(c = calloc(1, sizeof(*c)))) {
                t->oom = -ENOMEM;
                return NULL;
        }
        c->right = right;
        c->cells = calloc(t->n_rows + 1, sizeof(*c->cells));
        va_start(ap, fmt);
        c->head = vfmt(fmt, ap);
        va_end(ap);
        if (!c->cells || !c->head) {
                free(c->cells);
                free(c->head);
                free(c);
                t->oom = -ENOMEM;
                return NULL;
        }
        n[t->n_cols++] = c;
        return c;
}

static void set_cell(table_t *t, column_t *c, size_t row, const char *fmt, ...) _printf_(4, 5);
static void set_cell(table_t *t, column_t *c, size_t row, const char *fmt, ...)
{
        va_list ap;
        if (!c)
                return;
        va_start(ap, fmt);
        c->cells[row] = vfmt(fmt, ap);
        va_end(ap);
        if (!c->cells[row])
                t->oom = -ENOMEM;
}

/* A CSV number: three decimals, or an empty cell when there is none. */
static void set_num(table_t *t, column_t *c, size_t row, double v)
{
        if (isfinite(v))
                set_cell(t, c, row, "%.3f", v);
        else
                set_cell(t, c, row, "%s", "");
}

static void table_free(table_t *t)
{
        for (size_t i = 0; i < t->n_cols; i++) {
                for (size_t k = 0; k < t->n_rows; k++)
                        free(t->cols[i]->cells[k]);
                free(t->cols[i]->cells);
                free(t->cols[i]->head);
                free(t->cols[i]);
        }
        free(t->cols);
}

/* A figure column is worth showing when some point has a non-zero value. */
static bool fig_shown(const report_t *r, report_fig_t f)
{
        for (size_t i = 0; i < r->n_points; i++)
                if (isfinite(r->points[i].median[f]) && r->points[i].median[f] != 0)
                        return true;
        return false;
}

static bool any_repeats(const report_t *r)
{
        for (size_t i = 0; i < r->n_points; i++)
                if (r->points[i].n_ok > 1)
                        return true;
        return false;
}

static bool any_error(const report_t *r)
{
        for (size_t i = 0; i < r->n_points; i++)
                for (size_t k = 0; k < r->points[i].n_runs; k++)
                        if (r->points[i].runs[k].error || r->points[i].runs[k].partial)
                                return true;
        return false;
}

/* A run's note: why it failed, or why it is partial (its figures count, marked). */
static const char *run_note(const report_run_t *run, char *buf, size_t len)
{
        if (run->error)
                return run->error;
        if (!run->partial)
                return NULL;
        snprintf(buf, len, "PARTIAL: %s", run->partial);
        return buf;
}

/* One line of error text: newlines and tabs would break every format. */
static void one_line(char *s)
{
        for (; *s; s++)
                if (*s == '\n' || *s == '\r' || *s == '\t')
                        *s = ' ';
}

/* Columns as people read them: the median with its spread in one cell, empty figures left out,
 * errors as footnote marks. */
static void build_human(const report_t *r, table_t *t)
{
        bool rep = any_repeats(r);
        column_t *c;
        unsigned note = 0;

        if (r->sweep) {
                c = add_col(t, true, "point");
                for (size_t i = 0; i < r->n_points; i++)
                        set_cell(t, c, i, "%u", r->points[i].index);
        } else {
                c = add_col(t, false, "run");
                set_cell(t, c, 0, "%s", r->run_id && *r->run_id ? r->run_id : "-");
        }
        for (size_t k = 0; k < r->n_params; k++) {
                c = add_col(t, false, "%s", r->params[k]);
                for (size_t i = 0; i < r->n_points; i++)
                        set_cell(t, c, i, "%s", r->points[i].values[k]);
        }
        if (r->sweep) {
                c = add_col(t, true, "runs ok");
                for (size_t i = 0; i < r->n_points; i++)
                        set_cell(t, c, i, "%zu/%zu", r->points[i].n_ok, r->points[i].n_runs);
        }
        for (size_t o = 0; o < ELEMENTSOF(order); o++) {
                report_fig_t f = order[o];
                if (f == REPORT_TOTAL_BW
                        ? !(r->clients_param >= 0 ||
                            (fig_shown(r, REPORT_READ_BW) && fig_shown(r, REPORT_WRITE_BW)))
                        : f != REPORT_SKEW && !fig_shown(r, f))
                        continue;
                c = add_col(t, true, "%s%s", figs[f].head, rep ? " med±rsd" : "");
                for (size_t i = 0; i < r->n_points; i++) {
                        const report_point_t *p = &r->points[i];
                        if (!isfinite(p->median[f]))
                                set_cell(t, c, i, "-");
                        else if (isfinite(p->rsd[f]))
                                set_cell(t, c, i, "%.*f ±%.1f%%", figs[f].decimals, p->median[f],
                                         p->rsd[f]);
                        else
                                set_cell(t, c, i, "%.*f", figs[f].decimals, p->median[f]);
                }
        }
        if (r->clients_param >= 0) {
                column_t *pc = add_col(t, true, "MiB/s per client");
                column_t *ef = add_col(t, true, "efficiency %% vs linear");
                for (size_t i = 0; i < r->n_points; i++) {
                        const report_point_t *p = &r->points[i];
                        if (isfinite(p->per_client))
                                set_cell(t, pc, i, "%.1f", p->per_client);
                        else
                                set_cell(t, pc, i, "-");
                        if (isfinite(p->efficiency))
                                set_cell(t, ef, i, "%.1f", p->efficiency);
                        else
                                set_cell(t, ef, i, "-");
                }
        }
        if (!any_error(r))
                return;
        c = add_col(t, false, "error");
        for (size_t i = 0; i < r->n_points; i++) {
                char marks[256] = "";
                size_t len = 0;
                for (size_t k = 0; k < r->points[i].n_runs; k++)
                        if ((r->points[i].runs[k].error || r->points[i].runs[k].partial) &&
                            len < sizeof(marks) - 16)
                                len += (size_t)snprintf(marks + len, sizeof(marks) - len, "%s[%u]",
                                                        len ? " " : "", ++note);
                set_cell(t, c, i, "%s", marks);
        }
}

/* Columns for programs: one value per cell, full precision, every figure, errors in a column. */
static void build_csv(const report_t *r, table_t *t)
{
        column_t *c = add_col(t, true, "point");
        for (size_t i = 0; i < r->n_points; i++)
                set_cell(t, c, i, "%u", r->points[i].index);
        for (size_t k = 0; k < r->n_params; k++) {
                c = add_col(t, false, "%s", r->params[k]);
                for (size_t i = 0; i < r->n_points; i++)
                        set_cell(t, c, i, "%s", r->points[i].values[k]);
        }
        c = add_col(t, true, "runs");
        for (size_t i = 0; i < r->n_points; i++)
                set_cell(t, c, i, "%zu", r->points[i].n_runs);
        c = add_col(t, true, "runs_ok");
        for (size_t i = 0; i < r->n_points; i++)
                set_cell(t, c, i, "%zu", r->points[i].n_ok);
        for (size_t o = 0; o < ELEMENTSOF(order); o++) {
                report_fig_t f = order[o];
                column_t *m = add_col(t, true, "%s_median", figs[f].key);
                column_t *s = add_col(t, true, "%s_rsd_pct", figs[f].key);
                for (size_t i = 0; i < r->n_points; i++) {
                        const report_point_t *p = &r->points[i];
                        set_num(t, m, i, p->median[f]);
                        set_num(t, s, i, p->rsd[f]);
                }
        }
        if (r->clients_param >= 0) {
                column_t *pc = add_col(t, true, "per_client_mib_s");
                column_t *ef = add_col(t, true, "efficiency_pct");
                for (size_t i = 0; i < r->n_points; i++) {
                        const report_point_t *p = &r->points[i];
                        set_num(t, pc, i, p->per_client);
                        set_num(t, ef, i, p->efficiency);
                }
        }
        c = add_col(t, false, "error");
        for (size_t i = 0; i < r->n_points; i++) {
                char buf[2048] = "";
                size_t len = 0;
                for (size_t k = 0; k < r->points[i].n_runs; k++) {
                        const report_run_t *run = &r->points[i].runs[k];
                        char nb[1100];
                        const char *note = run_note(run, nb, sizeof(nb));
                        if (note && len < sizeof(buf))
                                len += (size_t)snprintf(buf + len, sizeof(buf) - len,
                                                        "%srepeat %u: %s", len ? "; " : "",
                                                        run->repeat, note);
                }
                one_line(buf);
                set_cell(t, c, i, "%s", buf);
        }
}

/* Display width: UTF-8 continuation bytes take no column. */
static size_t width(const char *s)
{
        size_t w = 0;
        for (; *s; s++)
                w += ((unsigned char)*s & 0xc0) != 0x80;
        return w;
}

static void pad(FILE *f, size_t n)
{
        while (n--)
                fputc(' ', f);
}

static void write_text(FILE *f, const table_t *t)
{
        size_t w[t->n_cols + 1];
        for (size_t i = 0; i < t->n_cols; i++) {
                w[i] = width(t->cols[i]->head);
                for (size_t k = 0; k < t->n_rows; k++)
                        if (width(t->cols[i]->cells[k]) > w[i])
                                w[i] = width(t->cols[i]->cells[k]);
        }
        for (size_t k = 0; k <= t->n_rows + 1; k++) {
                size_t end = t->n_cols; /* no trailing blanks: stop after the last non-empty */
                while (k >= 2 && end > 1 && !*t->cols[end - 1]->cells[k - 2])
                        end--;
                for (size_t i = 0; i < end; i++) {
                        const char *s = k == 0   ? t->cols[i]->head
                                        : k == 1 ? NULL
                                                 : t->cols[i]->cells[k - 2];
                        bool last = i + 1 == end;
                        if (i)
                                fputs("  ", f);
                        if (!s) {
                                for (size_t j = 0; j < w[i]; j++)
                                        fputc('-', f);
                                continue;
                        }
                        if (t->cols[i]->right)
                                pad(f, w[i] - width(s));
                        fputs(s, f);
                        if (!t->cols[i]->right && !last)
                                pad(f, w[i] - width(s));
                }
                fputc('\n', f);
        }
}

/* RFC 4180: quote a field holding a comma, a quote or a line break; double the quotes. */
static void csv_field(FILE *f, const char *s)
{
        if (!strpbrk(s, ",\"\r\n")) {
                fputs(s, f);
                return;
        }
        fputc('"', f);
        for (; *s; s++) {
                if (*s == '"')
                        fputc('"', f);
                fputc(*s, f);
        }
        fputc('"', f);
}

static void write_csv(FILE *f, const table_t *t)
{
        for (size_t k = 0; k <= t->n_rows; k++) {
                for (size_t i = 0; i < t->n_cols; i++) {
                        if (i)
                                fputc(',', f);
                        csv_field(f, k ? t->cols[i]->cells[k - 1] : t->cols[i]->head);
                }
                fputs("\r\n", f);
        }
}

static void md_cell(FILE *f, const char *s)
{
        fputc(' ', f);
        for (; *s; s++) {
                if (*s == '|' || *s == '\\' || *s == '*' || *s == '_' || *s == '`')
                        fputc('\\', f);
                fputc(*s, f);
        }
        fputs(" |", f);
}

static void write_md(FILE *f, const table_t *t)
{
        fputc('|', f);
        for (size_t i = 0; i < t->n_cols; i++)
                md_cell(f, t->cols[i]->head);
        fputs("\n|", f);
        for (size_t i = 0; i < t->n_cols; i++)
                fputs(t->cols[i]->right ? " ---: |" : " --- |", f);
        fputc('\n', f);
        for (size_t k = 0; k < t->n_rows; k++) {
                fputc('|', f);
                for (size_t i = 0; i < t->n_cols; i++)
                        md_cell(f, t->cols[i]->cells[k]);
                fputc('\n', f);
        }
}

/* The footnotes that the error column's marks point at, numbered as build_human numbered them. */
static void write_notes(FILE *f, const report_t *r, bool md)
{
        unsigned note = 0;
        for (size_t i = 0; i < r->n_points; i++)
                for (size_t k = 0; k < r->points[i].n_runs; k++) {
                        const report_run_t *run = &r->points[i].runs[k];
                        char nb[1100];
                        const char *text = run_note(run, nb, sizeof(nb));
                        char *e;
                        if (!text)
                                continue;
                        if (note == 0)
                                fputc('\n', f);
                        e = strdup(text);
                        if (e)
                                one_line(e);
                        if (r->sweep)
                                fprintf(f, "%s[%u] point %u repeat %u (%s): %s\n", md ? "- " : "",
                                        ++note, r->points[i].index, run->repeat, run->dir,
                                        e ? e : text);
                        else
                                fprintf(f, "%s[%u] %s\n", md ? "- " : "", ++note, e ? e : text);
                        free(e);
                }
}

int report_write(FILE *f, const report_t *r, report_format_t format)
{
        table_t t = {.n_rows = r->n_points};
        int ret;

        if (format == REPORT_CSV)
                build_csv(r, &t);
        else
                build_human(r, &t);
        if (t.oom) {
                table_free(&t);
                return -ENOMEM;
        }
        if (format != REPORT_CSV) {
                size_t runs = 0;
                for (size_t i = 0; i < r->n_points; i++)
                        runs += r->points[i].n_runs;
                fprintf(f, "%siofleet report: %s%s%s, %zu point%s, %zu run%s",
                        format == REPORT_MD ? "**" : "", r->sweep ? "sweep " : "run ",
                        r->run_id && *r->run_id ? r->run_id : "", format == REPORT_MD ? "**" : "",
                        r->n_points, r->n_points == 1 ? "" : "s", runs, runs == 1 ? "" : "s");
                if (any_repeats(r))
                        fprintf(f, "; figures are the median of the repeats that succeeded, ±rsd "
                                   "their relative sample standard deviation");
                if (r->clients_param >= 0)
                        fprintf(f, "; efficiency is per-client MiB/s against the smallest client "
                                   "count with the same other parameters");
                fputs("\n\n", f);
        }
        if (format == REPORT_TEXT)
                write_text(f, &t);
        else if (format == REPORT_CSV)
                write_csv(f, &t);
        else
                write_md(f, &t);
        if (format != REPORT_CSV)
                write_notes(f, r, format == REPORT_MD);
        table_free(&t);
        ret = fflush(f) == 0 && !ferror(f) ? 0 : -EIO;
        return ret;
}
