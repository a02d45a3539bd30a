/* iofleet report: a run directory (one run or a sweep) read into per-point figures, repeats
 * aggregated, written as a text, CSV or Markdown table. */
#pragma once

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The figures of one run, in the units the table shows; NAN when the run has none. */
typedef enum report_fig {
        REPORT_READ_BW,   /* MiB/s, "All clients" */
        REPORT_WRITE_BW,  /* MiB/s */
        REPORT_READ_IOPS, /* IO/s */
        REPORT_WRITE_IOPS,
        REPORT_READ_P50, /* clat percentiles of "All clients", microseconds */
        REPORT_READ_P99,
        REPORT_WRITE_P50,
        REPORT_WRITE_P99,
        REPORT_CREATE, /* metadata files/s: seq_ and rand_ phases together */
        REPORT_STAT,
        REPORT_MDREAD,
        REPORT_DELETE,
        REPORT_SKEW,     /* start skew, microseconds */
        REPORT_TOTAL_BW, /* read + write MiB/s */
        REPORT_FIRST_DONE_BW, /* size-bound runs: MiB/s while every worker still ran */
        REPORT_LAST_DONE_BW,  /* size-bound runs: MiB/s up to the last worker's end */
        REPORT_N_FIGS
} report_fig_t;

typedef enum report_format { REPORT_TEXT, REPORT_CSV, REPORT_MD } report_format_t;

/* One result.json: a repeat of a sweep point, or the single run. */
typedef struct report_run {
        char *dir; /* relative to the run directory; "" for a single run */
        unsigned repeat;
        char *error; /* why this run has no figures or failed; NULL when fine */
        /* A run that went through without every agent's every interval (on_agent_loss=continue):
         * its figures count, marked, with why; NULL when whole. */
        char *partial;
        json_t *doc; /* the result, NULL when absent or unreadable */
        double fig[REPORT_N_FIGS];
} report_run_t;

/* One sweep point: its parameter values and its repeats, aggregated. */
typedef struct report_point {
        unsigned index;
        char **values; /* one per report parameter */
        report_run_t *runs;
        size_t n_runs, n_ok;
        double median[REPORT_N_FIGS], rsd[REPORT_N_FIGS]; /* rsd: percent, NAN below 2 runs */
        double lo[REPORT_N_FIGS], hi[REPORT_N_FIGS];      /* min..max over the ok runs */
        double clients;                /* the "clients" parameter; NAN when none */
        double per_client, efficiency; /* MiB/s per client, % of linear; NAN when none */
} report_point_t;

typedef struct report {
        char *run_dir, *run_id;
        bool sweep;
        char **params;
        size_t n_params;
        int clients_param; /* index of "clients" in params when it varies, else -1 */
        report_point_t *points;
        size_t n_points;
} report_t;

/* Median of v[0..n) (v is reordered); NAN when n == 0. */
double report_median(double *v, size_t n);
/* Relative sample standard deviation of v[0..n) in percent of the mean; NAN when n < 2 or the
 * mean is 0. */
double report_rsd(const double *v, size_t n);
/* Efficiency in percent of linear scaling from (base_clients, base_bw) to (clients, bw). */
double report_efficiency(double base_clients, double base_bw, double clients, double bw);

/* Reads one run's figures from its result document; -EINVAL with a message naming what is
 * missing or of the wrong type. */
int report_figures(json_t *doc, double fig[REPORT_N_FIGS], char *err, size_t errlen);
/* Reads run_dir (sweep.json, or else result.json) into a report with repeats aggregated. A
 * failed point is no error; a missing or malformed top-level file is, with a one-line message
 * naming the file. */
int report_load(const char *run_dir, report_t **ret, char *err, size_t errlen);
/* Builds a report from already parsed pieces: aggregates repeats, computes scaling. For
 * report_load and tests. */
void report_aggregate(report_t *r);
void report_free(report_t **rp);

/* Writes the comparison table (footnotes for errors under it in text and Markdown; an error
 * column in CSV). 0 or -EIO. */
int report_write(FILE *f, const report_t *r, report_format_t format);
/* Writes the SVG plots into dir (created when missing): a timeline per run, the scaling curve
 * when clients vary, bars across points. The count of files written, or -errno with err set. */
int report_plots(const report_t *r, const char *dir, char *err, size_t errlen);
