/* A finished run as documents: fio-compatible JSON (client_stats, "All clients") plus iofleet's own
 * figures. */
#pragma once

#include <jansson.h>
#include <stddef.h>

#include "run.h"
#include "wire.h"

/* Builds the run's JSON document: fio's client/server layout (one client_stats entry per agent
 * and job, then "All clients" from merged histograms; jobs[] lists them again, shared) and an
 * "iofleet" object with the run id, start instants and skew, agents and the interval series.
 * 0 or -ENOMEM. */
int result_build(const coord_run_t *run, json_t **ret);
/* The same without the entries (client_stats and jobs[] empty): what result_write_dir() needs,
 * which writes the entries from the run one at a time. */
int result_head(const coord_run_t *run, json_t **ret);
/* The client_stats entries, one at a time, in the document's order; cb gets each borrowed (a
 * reference to keep it), a cb < 0 stops. 0 or -errno. */
typedef int (*result_entry_fn)(void *user, json_t *entry);
int result_entries_each(const coord_run_t *run, result_entry_fn cb, void *user);
/* The run's status in a result document: ok, partial, cancelled or error; why (may be NULL)
 * gets the partial run's one-line summary. */
const char *result_status(json_t *doc, char *why, size_t len);
/* Its error message, "" when none; result_set_error() replaces it. */
const char *result_error(json_t *doc);
void result_set_error(json_t *doc, const char *msg);
/* The run's directory: RESULTS_DIR/RUN_ID, or RESULTS_DIR/SWEEP_ID/point-NNN-rK in a sweep. */
void result_dir_of(const coord_run_t *run, const char *results_dir, char *buf, size_t len);
/* How result.json is dumped (the file the CLI reads, and RunDone's copy of it). */
#define RESULT_JSON_FLAGS (JSON_INDENT(2) | JSON_REAL_PRECISION(10))
/* Writes RESULTS_DIR/RUN_ID/{result.json,intervals.csv,command.txt}; the directory goes to
 * dir_out. result.json is doc dumped straight into the file, byte for byte as json_dumps() with
 * RESULT_JSON_FLAGS would give it, but for client_stats and jobs[]: those are written from the
 * run an entry at a time (coordinator/result-write.c), whatever doc holds for them. */
int result_write_dir(const coord_run_t *run, json_t *doc, const char *results_dir, char *dir_out,
                     size_t dir_len);
/* The largest result a RunDone carries: a control message, less room for the rest. */
#define RESULT_MAX_SENT ((size_t)WIRE_MAX_CONTROL_MSG - 64 * 1024)
/* dir's result.json as text (malloc'd), or NULL when it is bigger than max or unreadable. */
char *result_read_text(const char *dir, size_t max);
