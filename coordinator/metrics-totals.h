/* Cumulative /metrics counters across runs: what each agent did in the runs that are over, and
 * the runs in progress followed from one rendering to the next so that no count goes down or
 * counts twice. */
#pragma once

#include <stddef.h>

#include "metrics-render.h"
#include "run.h"

/* dst += src, field by field (names untouched). */
void metrics_totals_add(metrics_totals_t *dst, const metrics_totals_t *src);
/* t += what agent a did in its run: the intervals shown so far and those received since. */
void metrics_totals_sum_agent(const run_agent_t *a, metrics_totals_t *t);

/* Every agent's counts for one rendering: the totals of the runs that are over plus, for the
 * agents of the runs in progress, what they did in them. A malloc'd array into *ret (the caller
 * frees it), sorted as base then runs. 0 or -ENOMEM. */
int metrics_collect(const metrics_input_t *in, metrics_totals_t **ret, size_t *n);

typedef struct metrics_tally metrics_tally_t;

int metrics_tally_new(metrics_tally_t **ret);  /* 0 or -ENOMEM */
void metrics_tally_free(metrics_tally_t **tp); /* NULL-safe, sets *tp = NULL */
/* Whether run_id's counts are in the totals already (it was seen done). */
bool metrics_tally_folded(const metrics_tally_t *t, const char *run_id);
/* Follows the runs in progress: sums what each has shown since the last call; a run that is
 * over (or gone) moves into the totals. 0 or -ENOMEM. */
int metrics_tally_track(metrics_tally_t *t, const coord_run_t *const *runs, size_t n);
/* Fills in's base and folded (folded: an array of at least METRICS_TALLY_FOLDED
 * the caller keeps while in is used) and returns the per-run counts array for in->run_totals
 * (malloc'd, the caller frees it; NULL when out of memory, and the renderer then sums the runs
 * itself). Valid until the next call that changes t. */
#define METRICS_TALLY_FOLDED 32
const metrics_totals_t **metrics_tally_input(const metrics_tally_t *t, const coord_run_t *const *runs,
                                             size_t n, const char **folded, metrics_input_t *in);
