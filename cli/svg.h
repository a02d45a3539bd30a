/* Hand-written SVG charts: line panels and bar panels with axes, ticks, units, legend, title. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef enum svg_stroke { SVG_SOLID, SVG_DASHED, SVG_DOTTED } svg_stroke_t;

/* One line of a line panel: n points; a NAN y breaks the line there. */
typedef struct svg_series {
        const char *label;
        const double *x, *y;
        size_t n;
        unsigned color; /* index into the palette, wraps */
        svg_stroke_t stroke;
        double width; /* px; 0 means 1.5 */
        bool markers;
} svg_series_t;

/* What a panel says about itself. Equal min and max mean "fit the data". */
typedef struct svg_panel {
        const char *title, *xlabel, *ylabel;
        double xmin, xmax, ymin, ymax;
        bool y_from_zero;
        bool x_integer;    /* x ticks on whole numbers only (counts of things) */
        size_t legend_max; /* legend entries shown before "+N more"; 0 means 12 */
} svg_panel_t;

/* Round tick positions covering [lo, hi]: first, step and count. */
typedef struct svg_ticks {
        double first, step;
        unsigned n;
} svg_ticks_t;

typedef struct svg svg_t;

/* Computes at most max_ticks (>= 2) ticks on 1-2-5 steps that cover lo..hi; the covering range is
 * first .. first + (n - 1) * step. */
void svg_ticks(double lo, double hi, unsigned max_ticks, svg_ticks_t *t);
/* Formats a tick value with as many decimals as the step needs. */
const char *svg_tick_label(double v, double step, char *buf, size_t len);
/* Writes s with XML's special characters escaped. */
void svg_escape(FILE *f, const char *s);

/* Creates the SVG file at path (w x h px) with a white background and a document title; 0 or
 * -errno. */
int svg_open(const char *path, double w, double h, const char *title, svg_t **ret);
/* Closes the document; 0, or -errno when anything could not be written. NULL-safe. */
int svg_close(svg_t **sp);
/* A heading across the document at y. */
void svg_heading(svg_t *s, double y, const char *text);
/* A line chart in the box (x, y, w, h): axes, ticks, axis labels, title and legend. */
void svg_line_panel(svg_t *s, double x, double y, double w, double h, const svg_panel_t *p,
                    const svg_series_t *series, size_t n);
/* A bar chart in the box: one bar per label with its value, and a whisker lo..hi where both are
 * finite. */
void svg_bar_panel(svg_t *s, double x, double y, double w, double h, const svg_panel_t *p,
                   const char *const *labels, const double *values, const double *lo,
                   const double *hi, size_t n);
/* Bars made of n_parts stacked parts (parts[k][i]: part k of bar i; NAN leaves a part out; a bar
 * with none says "failed"), each part a colour of the legend part_labels[k]; whiskers lo..hi
 * over the whole bar where both are finite. */
void svg_stacked_bar_panel(svg_t *s, double x, double y, double w, double h,
                           const svg_panel_t *p, const char *const *labels,
                           const double *const *parts, const char *const *part_labels,
                           size_t n_parts, const double *lo, const double *hi, size_t n);
