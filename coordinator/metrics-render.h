/* The Prometheus text of /metrics, rendered from the registry, the runs in progress and the
 * cumulative totals: pure, no I/O. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clat-buckets.h"
#include "registry.h"
#include "run.h"

/* One alert rule and how often it fired; the coordinator fills an array of these. */
typedef struct metrics_alert {
        char rule[64];
        uint64_t count;
} metrics_alert_t;

/* Cumulative counters of one agent over runs that are over. */
typedef struct metrics_totals {
        char name[WIRE_MAX_NAME + 1];
        char hostname[WIRE_MAX_HOSTNAME + 1];
        io_counts_t io;
        clat_buckets_t clat_read, clat_write;
} metrics_totals_t;

/* Everything one rendering reads. runs are the runs in progress (several at once, on disjoint
 * agents; a run just done may be among them); base holds the totals of finished runs sorted by
 * name (a run's counts are added to them unless its id is among folded, i.e. they are in base
 * already). */
typedef struct metrics_input {
        registry_t *reg;
        const coord_run_t *const *runs;
        size_t n_runs;
        const char *const *folded;
        size_t n_folded;
        const metrics_totals_t *base;
        size_t n_base;
        /* Optional, one array per run (one entry per run->agents[i]): the run's counts so far;
         * NULL (or a NULL entry) sums run->agents[].iv. */
        const metrics_totals_t *const *run_totals;
        const metrics_alert_t *alerts;
        size_t n_alerts;
} metrics_input_t;

/* Renders the Prometheus text exposition format 0.0.4 into a malloc'd NUL-terminated string.
 * Pure: reads only *in. 0 or -ENOMEM; *ret untouched on error. */
int metrics_render(const metrics_input_t *in, char **ret, size_t *len);

/* Writes s as a label value escaped per the exposition format (\\, \", \n) into buf; returns
 * the length it needs (like snprintf). */
size_t metrics_escape_label(const char *s, char *buf, size_t len);

/* The first job a run's clients run (the run's own, or its plan's first client part's), or
 * NULL; one of its options ("" when not set); a run phase's name. */
const Iofleet__Job *metrics_run_job(const coord_run_t *run);
const char *metrics_job_option(const Iofleet__Job *j, const char *key);
const char *metrics_phase_name(run_phase_t p);
