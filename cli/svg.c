/* Hand-written SVG charts: line panels and bar panels with axes, ticks, units, legend, title. */
#include "svg.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

struct svg {
        FILE *f;
        double w, h;
};

/* Tableau's ten colours: distinct for the colour-blind and on paper. */
static const char *const palette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                      "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

#define FONT "font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\""

void svg_ticks(double lo, double hi, unsigned max_ticks, svg_ticks_t *t)
{
        double range, raw, mag, norm, step, first, last;
        if (!isfinite(lo) || !isfinite(hi)) {
                lo = 0;
                hi = 1;
        }
        if (hi < lo) {
                double x = lo;
                lo = hi;
                hi = x;
        }
        if (max_ticks < 2)
                max_ticks = 2;
        range = hi - lo;
        if (range <= 0) {
                /* One value: from 0 when it is positive, else a range around it. */
                range = fabs(hi) > 0 ? fabs(hi) : 1;
                if (lo >= 0) {
                        lo = 0;
                        hi = hi > 0 ? hi * 1.5 : 1;
                } else {
                        lo -= range / 2;
                        hi += range / 2;
                }
                range = hi - lo;
        }
        raw = range / (max_ticks - 1);
        mag = pow(10, floor(log10(raw)));
        norm = raw / mag;
        step = (norm <= 1 ? 1 : norm <= 2 ? 2 : norm <= 5 ? 5 : 10) * mag;
        first = floor(lo / step + 1e-9) * step;
        last = ceil(hi / step - 1e-9) * step;
        t->first = first;
        t->step = step;
        t->n = (unsigned)llround((last - first) / step) + 1;
        if (t->n < 2)
                t->n = 2;
}

const char *svg_tick_label(double v, double step, char *buf, size_t len)
{
        int decimals = step >= 1 ? 0 : (int)ceil(-log10(step) - 1e-9);
        if (decimals > 9)
                decimals = 9;
        if (fabs(v) < step * 1e-6)
                v = 0; /* no "-0" */
        snprintf(buf, len, "%.*f", decimals, v);
        return buf;
}

void svg_escape(FILE *f, const char *s)
{
        for (; s && *s; s++)
                switch (*s) {
                case '&':
                        fputs("&amp;", f);
                        break;
                case '<':
                        fputs("&lt;", f);
                        break;
                case '>':
                        fputs("&gt;", f);
                        break;
                case '"':
                        fputs("&quot;", f);
                        break;
                default:
                        /* Control characters are not allowed in XML 1.0 text. */
                        fputc((unsigned char)*s < 0x20 ? ' ' : *s, f);
                }
}

int svg_open(const char *path, double w, double h, const char *title, svg_t **ret)
{
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        svg_t *s;
        if (fd < 0)
                return -errno;
        s = calloc(1, sizeof(*s));
        if (!s || !(s->f = fdopen(fd, "w"))) {
                int r = s ? -errno : -ENOMEM;
                free(s);
                close(fd);
                return r;
        }
        s->w = w;
        s->h = h;
        fprintf(s->f,
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%.0f\" "
                "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\">\n<title>",
                w, h, w, h);
        svg_escape(s->f, title);
        fprintf(s->f,
                "</title>\n<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" "
                "fill=\"#ffffff\"/>\n",
                w, h);
        *ret = s;
        return 0;
}

int svg_close(svg_t **sp)
{
        svg_t *s = *sp;
        int r = 0;
        if (!s)
                return 0;
        fputs("</svg>\n", s->f);
        if (ferror(s->f))
                r = -EIO;
        if (fclose(s->f) != 0 && r == 0)
                r = -errno;
        free(s);
        *sp = NULL;
        return r;
}

static void text(svg_t *s, double x, double y, const char *anchor, const char *extra,
                 const char *str)
{
        fprintf(s->f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" " FONT " %s>", x, y, anchor,
                extra ? extra : "");
        svg_escape(s->f, str);
        fputs("</text>\n", s->f);
}

void svg_heading(svg_t *s, double y, const char *str)
{
        text(s, s->w / 2, y, "middle", "font-size=\"16\" font-weight=\"bold\"", str);
}

static const char *dash(svg_stroke_t st)
{
        return st == SVG_DASHED   ? " stroke-dasharray=\"7,4\""
               : st == SVG_DOTTED ? " stroke-dasharray=\"2,3\""
                                  : "";
}

/* The plot area of a panel and its value ranges, once the ticks are known. */
typedef struct frame {
        double px, py, pw, ph;
        svg_ticks_t xt, yt;
} frame_t;

static double fx(const frame_t *fr, double v)
{
        double lo = fr->xt.first, hi = fr->xt.first + (fr->xt.n - 1) * fr->xt.step;
        return fr->px + (v - lo) / (hi - lo) * fr->pw;
}

static double fy(const frame_t *fr, double v)
{
        double lo = fr->yt.first, hi = fr->yt.first + (fr->yt.n - 1) * fr->yt.step;
        return fr->py + fr->ph - (v - lo) / (hi - lo) * fr->ph;
}

/* Grid, axes, y ticks and labels, title; x ticks only when numeric. */
static void draw_frame(svg_t *s, double x, double y, double w, double h, const frame_t *fr,
                       const svg_panel_t *p, bool x_numeric)
{
        char buf[64];
        if (p->title)
                text(s, x + w / 2, y + 16, "middle", "font-size=\"14\" font-weight=\"bold\"",
                     p->title);
        for (unsigned i = 0; i < fr->yt.n; i++) {
                double v = fr->yt.first + i * fr->yt.step, yy = fy(fr, v);
                fprintf(s->f,
                        "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#dddddd\" "
                        "stroke-width=\"1\"/>\n",
                        fr->px, yy, fr->px + fr->pw, yy);
                text(s, fr->px - 6, yy + 4, "end", "font-size=\"11\"",
                     svg_tick_label(v, fr->yt.step, buf, sizeof(buf)));
        }
        if (x_numeric)
                for (unsigned i = 0; i < fr->xt.n; i++) {
                        double v = fr->xt.first + i * fr->xt.step, xx = fx(fr, v);
                        fprintf(s->f,
                                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                                "stroke=\"#eeeeee\" stroke-width=\"1\"/>\n",
                                xx, fr->py, xx, fr->py + fr->ph);
                        fprintf(s->f,
                                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                                "stroke=\"#000000\" stroke-width=\"1\"/>\n",
                                xx, fr->py + fr->ph, xx, fr->py + fr->ph + 4);
                        text(s, xx, fr->py + fr->ph + 17, "middle", "font-size=\"11\"",
                             svg_tick_label(v, fr->xt.step, buf, sizeof(buf)));
                }
        fprintf(s->f,
                "<path d=\"M%.1f,%.1f V%.1f H%.1f\" fill=\"none\" stroke=\"#000000\" "
                "stroke-width=\"1.2\"/>\n",
                fr->px, fr->py, fr->py + fr->ph, fr->px + fr->pw);
        if (p->xlabel)
                text(s, fr->px + fr->pw / 2, y + h - 8, "middle", "font-size=\"12\"", p->xlabel);
        if (p->ylabel) {
                char rot[96];
                double ly = fr->py + fr->ph / 2;
                snprintf(rot, sizeof(rot), "font-size=\"12\" transform=\"rotate(-90 %.1f %.1f)\"",
                         x + 16, ly);
                text(s, x + 16, ly, "middle", rot, p->ylabel);
        }
}

static void legend_entry(svg_t *s, double x, double y, unsigned color, svg_stroke_t st,
                         double width, bool bar, const char *label)
{
        if (bar)
                fprintf(s->f,
                        "<rect x=\"%.1f\" y=\"%.1f\" width=\"22\" height=\"10\" fill=\"%s\"/>\n", x,
                        y - 8, palette[color % ELEMENTSOF(palette)]);
        else
                fprintf(s->f,
                        "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                        "stroke-width=\"%.1f\"%s/>\n",
                        x, y - 3, x + 22, y - 3, palette[color % ELEMENTSOF(palette)],
                        width > 0 ? width : 1.5, dash(st));
        text(s, x + 28, y + 1, "start", "font-size=\"11\"", label);
}

void svg_line_panel(svg_t *s, double x, double y, double w, double h, const svg_panel_t *p,
                    const svg_series_t *series, size_t n)
{
        double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
        bool has_data = false;
        size_t legend_max = p->legend_max ? p->legend_max : 12, shown = 0;
        frame_t fr = {.px = x + 70, .py = y + 30, .pw = w - 70 - 190, .ph = h - 30 - 48};

        for (size_t i = 0; i < n; i++)
                for (size_t k = 0; k < series[i].n; k++) {
                        double xv = series[i].x[k], yv = series[i].y[k];
                        if (!isfinite(xv) || !isfinite(yv))
                                continue;
                        has_data = true;
                        xmin = fmin(xmin, xv);
                        xmax = fmax(xmax, xv);
                        ymin = fmin(ymin, yv);
                        ymax = fmax(ymax, yv);
                }
        if (p->xmin != p->xmax) {
                xmin = p->xmin;
                xmax = p->xmax;
        }
        if (p->ymin != p->ymax) {
                ymin = p->ymin;
                ymax = p->ymax;
        }
        if (!isfinite(ymin)) {
                ymin = 0;
                ymax = 1;
        }
        if (!isfinite(xmin)) {
                xmin = 0;
                xmax = 1;
        }
        if (p->y_from_zero && ymin > 0)
                ymin = 0;
        svg_ticks(xmin, xmax, 8, &fr.xt);
        if (p->x_integer && fr.xt.step < 1) {
                fr.xt.first = floor(xmin);
                fr.xt.step = 1;
                fr.xt.n = (unsigned)(ceil(xmax) - fr.xt.first) + 1;
                if (fr.xt.n < 2)
                        fr.xt.n = 2;
        }
        svg_ticks(ymin, ymax, 6, &fr.yt);
        draw_frame(s, x, y, w, h, &fr, p, true);
        if (!has_data)
                text(s, fr.px + fr.pw / 2, fr.py + fr.ph / 2, "middle",
                     "font-size=\"12\" fill=\"#888888\"", "no data");

        for (size_t i = 0; i < n; i++) {
                const svg_series_t *se = &series[i];
                const char *col = palette[se->color % ELEMENTSOF(palette)];
                bool open = false;
                for (size_t k = 0; k <= se->n; k++) {
                        bool ok = k < se->n && isfinite(se->x[k]) && isfinite(se->y[k]);
                        if (ok && !open) {
                                fprintf(s->f,
                                        "<polyline fill=\"none\" stroke=\"%s\" "
                                        "stroke-width=\"%.1f\"%s stroke-linejoin=\"round\" "
                                        "points=\"",
                                        col, se->width > 0 ? se->width : 1.5, dash(se->stroke));
                                open = true;
                        }
                        if (ok)
                                fprintf(s->f, "%.1f,%.1f ", fx(&fr, se->x[k]), fy(&fr, se->y[k]));
                        else if (open) {
                                fputs("\"/>\n", s->f);
                                open = false;
                        }
                }
                for (size_t k = 0; k < se->n; k++)
                        if ((se->markers || se->n == 1) && isfinite(se->x[k]) && isfinite(se->y[k]))
                                fprintf(s->f,
                                        "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n",
                                        fx(&fr, se->x[k]), fy(&fr, se->y[k]), col);
        }
        for (size_t i = 0; i < n; i++) {
                double ly = fr.py + 6 + 16 * (double)shown;
                if (!series[i].label)
                        continue;
                if (shown == legend_max) {
                        char more[48];
                        size_t rest = 0;
                        for (size_t j = i; j < n; j++)
                                rest += series[j].label != NULL;
                        snprintf(more, sizeof(more), "+%zu more", rest);
                        text(s, fr.px + fr.pw + 14, ly + 1, "start", "font-size=\"11\"", more);
                        break;
                }
                legend_entry(s, fr.px + fr.pw + 14, ly, series[i].color, series[i].stroke,
                             series[i].width, false, series[i].label);
                shown++;
        }
}

void svg_stacked_bar_panel(svg_t *s, double x, double y, double w, double h,
                           const svg_panel_t *p, const char *const *labels,
                           const double *const *parts, const char *const *part_labels,
                           size_t n_parts, const double *lo, const double *hi, size_t n)
{
        double ymax = -INFINITY, slot, bw;
        frame_t fr = {.px = x + 70, .py = y + 30, .pw = w - 70 - 190, .ph = h - 30 - 110};
        bool whiskers = false;

        for (size_t i = 0; i < n; i++) {
                double total = 0;
                for (size_t k = 0; k < n_parts; k++)
                        total += isfinite(parts[k][i]) ? parts[k][i] : 0;
                ymax = fmax(ymax, total);
                if (lo && hi && isfinite(lo[i]) && isfinite(hi[i])) {
                        ymax = fmax(ymax, hi[i]);
                        whiskers = true;
                }
        }
        if (p->ymin != p->ymax)
                ymax = p->ymax;
        if (!isfinite(ymax) || ymax <= 0)
                ymax = 1;
        svg_ticks(0, ymax, 6, &fr.yt);
        svg_ticks(0, 1, 2, &fr.xt);
        draw_frame(s, x, y, w, h, &fr, p, false);
        slot = n ? fr.pw / (double)n : fr.pw;
        bw = slot * 0.6;
        for (size_t i = 0; i < n; i++) {
                double cx = fr.px + slot * (i + 0.5), base = fy(&fr, 0), at = 0;
                bool any = false;
                char rot[96];
                /* The parts stacked from the axis up, in order (read below write). */
                for (size_t k = 0; k < n_parts; k++) {
                        double v = parts[k][i];
                        if (!isfinite(v))
                                continue;
                        any = true;
                        fprintf(s->f,
                                "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                                "fill=\"%s\"/>\n",
                                cx - bw / 2, fy(&fr, at + v), bw, fy(&fr, at) - fy(&fr, at + v),
                                palette[k % ELEMENTSOF(palette)]);
                        at += v;
                }
                if (!any)
                        text(s, cx, base - 6, "middle", "font-size=\"11\" fill=\"#d62728\"",
                             "failed");
                if (lo && hi && isfinite(lo[i]) && isfinite(hi[i])) {
                        double y1 = fy(&fr, lo[i]), y2 = fy(&fr, hi[i]);
                        fprintf(s->f,
                                "<path d=\"M%.1f,%.1f V%.1f M%.1f,%.1f H%.1f M%.1f,%.1f H%.1f\" "
                                "stroke=\"#000000\" stroke-width=\"1.2\" fill=\"none\"/>\n",
                                cx, y1, y2, cx - bw / 6, y1, cx + bw / 6, cx - bw / 6, y2,
                                cx + bw / 6);
                }
                /* Labels slanted, so that long parameter combinations still fit. */
                snprintf(rot, sizeof(rot), "font-size=\"11\" transform=\"rotate(-35 %.1f %.1f)\"",
                         cx, base + 14);
                text(s, cx, base + 14, "end", rot, labels[i]);
        }
        for (size_t k = 0; k < n_parts; k++)
                legend_entry(s, fr.px + fr.pw + 14, fr.py + 6 + 16 * (double)k, (unsigned)k,
                             SVG_SOLID, 0, true, part_labels[k]);
        if (whiskers) {
                double ly = fr.py + 6 + 16 * (double)n_parts;
                fprintf(s->f,
                        "<path d=\"M%.1f,%.1f H%.1f M%.1f,%.1f V%.1f M%.1f,%.1f V%.1f\" "
                        "stroke=\"#000000\" stroke-width=\"1.2\" fill=\"none\"/>\n",
                        fr.px + fr.pw + 14, ly - 3, fr.px + fr.pw + 36, fr.px + fr.pw + 14, ly - 7,
                        ly + 1, fr.px + fr.pw + 36, ly - 7, ly + 1);
                text(s, fr.px + fr.pw + 42, ly + 1, "start", "font-size=\"11\"",
                     "min..max of repeats");
        }
}

void svg_bar_panel(svg_t *s, double x, double y, double w, double h, const svg_panel_t *p,
                   const char *const *labels, const double *values, const double *lo,
                   const double *hi, size_t n)
{
        const double *parts[] = {values};
        const char *const part_labels[] = {"median"};
        svg_stacked_bar_panel(s, x, y, w, h, p, labels, parts, part_labels, 1, lo, hi, n);
}
