/* A finished run as documents: fio-compatible JSON (client_stats, "All clients") plus iofleet's own
 * figures. */
#pragma once

#include <jansson.h>
#include <stddef.h>

#include "run.h"

/* Builds the run's JSON document: fio's client/server layout (one client_stats entry per agent
 * and job, then "All clients" from merged histograms) and an "iofleet" object with the run id,
 * start instants and skew, agents and the interval series. 0 or -ENOMEM. */
int result_build(const run_t *run, json_t **ret);
/* The run's status in a result document: ok, partial, cancelled or error; why (may be NULL)
 * gets the partial run's one-line summary. */
const char *result_status(json_t *doc, char *why, size_t len);
/* Its error message, "" when none; result_set_error() replaces it. */
const char *result_error(json_t *doc);
void result_set_error(json_t *doc, const char *msg);
/* The run's directory: RESULTS_DIR/RUN_ID, or RESULTS_DIR/SWEEP_ID/point-NNN-rK in a sweep. */
void result_dir_of(const run_t *run, const char *results_dir, char *buf, size_t len);
/* Writes RESULTS_DIR/RUN_ID/{result.json,intervals.csv,command.txt}; the directory goes to dir_out.
 * text is doc as dumped already, or NULL to dump it here. */
int result_write_dir(const run_t *run, json_t *doc, const char *text, const char *results_dir,
                     char *dir_out, size_t dir_len);
