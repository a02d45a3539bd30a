/* Prometheus /metrics for the coordinator: a pure text renderer and a small HTTP server that
 * asks the coordinator loop for a fresh snapshot on each scrape. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "registry.h"
#include "run.h"

/* One alert rule and how often it fired; the coordinator fills an array of these. */
typedef struct metrics_alert {
        char rule[64];
        uint64_t count;
} metrics_alert_t;

/* Cumulative counters of one agent (or of the cluster) over runs that are over. */
typedef struct metrics_totals {
        char name[WIRE_MAX_NAME + 1];
        char hostname[WIRE_MAX_HOSTNAME + 1];
        io_counts_t io;
} metrics_totals_t;

/* Everything one rendering reads. runs are the runs in progress (several at once, on disjoint
 * agents; a run just done may be among them); base holds the totals of finished runs sorted by
 * name (a run's counts are added to them unless its id is among folded, i.e. they are in base
 * already). */
typedef struct metrics_input {
        registry_t *reg;
        const run_t *const *runs;
        size_t n_runs;
        const char *const *folded;
        size_t n_folded;
        const metrics_totals_t *base;
        size_t n_base;
        const metrics_totals_t *cluster_base;
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

typedef struct metrics metrics_t;

/* Seconds an idle /metrics connection is kept. */
#define METRICS_IDLE_TIMEOUT_S 5
/* Parses "HOST:PORT" ("[::1]:9464" for IPv6; port 0 picks a free one) and starts serving
 * GET /metrics there from a thread of its own, to at most max_connections connections at once
 * (half of them from one address). listen NULL, "" or "off": *ret = NULL, 0.
 * -EINVAL for a malformed address, -errno when it cannot listen. */
int metrics_new(const char *listen, unsigned max_connections, metrics_t **ret);
void metrics_free(metrics_t **mp);
/* The port it listens on (useful with port 0). */
uint16_t metrics_port(const metrics_t *m);
/* Alerts shown from the next rendering on; the array is copied. 0 or -ENOMEM. */
int metrics_set_alerts(metrics_t *m, const metrics_alert_t *alerts, size_t n);
/* Asks for a rendering at the coordinator loop's next metrics_update() (what a scrape does;
 * the scrape waits up to 2 s for it, then gets the last snapshot). */
void metrics_want(metrics_t *m);
/* Readable while a rendering is wanted: the coordinator loop polls it. -1 for NULL. */
int metrics_fd(const metrics_t *m);
/* Called by the coordinator loop as often as it likes: renders a new snapshot when one is
 * wanted, and always when a run is over (its counts then move to the cumulative totals, so call
 * it before freeing a finished run). Nothing else: thousands of agents' series cost nothing
 * while nobody scrapes. NULL-safe. */
void metrics_update(metrics_t *m, registry_t *reg, const run_t *const *runs, size_t n_runs);
/* A copy of the current snapshot (for tests); malloc'd, NULL if none or out of memory. */
char *metrics_snapshot(metrics_t *m);
