/* Degrade rules of long runs: "bw < 100MiB/s for 3" fires when the cluster's figure breaks the
 * threshold for that many consecutive intervals; once per streak. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hist.h"
#include "io-counts.h"
#include "wire.h"

#define DEGRADE_MAX_ALERTS 1000 /* alerts kept for the result; more are counted only */

/* One cluster interval as the rules see it. */
typedef struct degrade_sample {
        io_counts_t io;
        uint64_t interval_ns;
        const hist_t *clat; /* may be NULL */
} degrade_sample_t;

typedef struct degrade_alert {
        uint32_t rule;   /* index into the rules */
        uint64_t index;  /* interval that completed the streak */
        double value;    /* the metric then, in the rule's unit (bytes/s, IO/s, ns, count) */
} degrade_alert_t;

typedef struct degrade {
        const Iofleet__DegradeRule *const *rules; /* borrowed from the SubmitRun */
        size_t n_rules;
        uint32_t *streak;       /* consecutive breaking intervals, per rule */
        uint64_t *fired;        /* alerts per rule */
        degrade_alert_t *alerts; /* the first DEGRADE_MAX_ALERTS */
        size_t n_alerts;
} degrade_t;

int degrade_init(degrade_t *d, Iofleet__DegradeRule *const *rules, size_t n);
void degrade_done(degrade_t *d);
/* The metric a rule watches, for one interval. */
double degrade_metric(const Iofleet__DegradeRule *r, const degrade_sample_t *s);
/* Feeds interval index's figures; returns how many rules fired on it (their alerts are the last
 * ones in d->alerts when kept). */
size_t degrade_feed(degrade_t *d, uint64_t index, const degrade_sample_t *s);
/* "bw < 100MiB/s for 3: 41.2 MiB/s in interval 17" into buf. */
void degrade_describe(const degrade_t *d, const degrade_alert_t *a, char *buf, size_t len);
