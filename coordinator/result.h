/* A finished run as documents: fio-compatible JSON (client_stats, "All clients") plus iofleet's own
 * figures. */
#pragma once

#include <jansson.h>
#include <stddef.h>

#include "run.h"
#include "wire.h"

/* Builds the run's JSON document: fio's client/server layout (one client_stats entry per agent
 * and job, then "All clients" from merged histograms) and an "iofleet" object with the run id,
 * start instants and skew, agents and the interval series. 0 or -ENOMEM. */
int result_build(const coord_run_t *run, json_t **ret);
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
/* Writes RESULTS_DIR/RUN_ID/{result.json,intervals.csv,command.txt}, result.json dumped straight
 * into the file; the directory goes to dir_out. */
int result_write_dir(const coord_run_t *run, json_t *doc, const char *results_dir, char *dir_out,
                     size_t dir_len);
/* The largest result a RunDone carries: a control message, less room for the rest. */
#define RESULT_MAX_SENT ((size_t)WIRE_MAX_CONTROL_MSG - 64 * 1024)
/* dir's result.json as text (malloc'd), or NULL when it is bigger than max or unreadable. */
char *result_read_text(const char *dir, size_t max);
