/* Prometheus /metrics for the coordinator: a small HTTP server (metrics-http.c) that asks the
 * coordinator loop for a fresh snapshot on each scrape; the text comes from metrics-render.c, the
 * counts across runs from metrics-totals.c. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "metrics-render.h"
#include "registry.h"
#include "run.h"

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
 * the scrape waits up to 2 s for it, then gets the last snapshot). Returns the ticket that
 * metrics_answered() takes: taken with the request, so that a rendering that starts after the
 * request (even before this returns) answers it. */
uint64_t metrics_want(metrics_t *m);
/* Whether a rendering that answers ticket is done. */
bool metrics_answered(metrics_t *m, uint64_t ticket);
/* Readable while a rendering is wanted: the coordinator loop polls it. -1 for NULL. */
int metrics_fd(const metrics_t *m);
/* Called by the coordinator loop as often as it likes: renders a new snapshot when one is
 * wanted, and always when a run is over (its counts then move to the cumulative totals, so call
 * it before freeing a finished run). Nothing else: thousands of agents' series cost nothing
 * while nobody scrapes. NULL-safe. */
void metrics_update(metrics_t *m, registry_t *reg, const coord_run_t *const *runs, size_t n_runs);
/* The results directory whose runs the web page lists and whose results and plots it serves
 * under /results/ (copied; NULL: none). 0 or -ENOMEM. */
int metrics_set_results_dir(metrics_t *m, const char *dir);
/* A copy of the current snapshot (for tests); malloc'd, NULL if none or out of memory. */
char *metrics_snapshot(metrics_t *m);
