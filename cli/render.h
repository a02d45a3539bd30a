/* What people read: the live line per interval and a summary modelled on fio's, from the result
 * JSON. */
#pragma once

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "wire.h"

/* A number of a JSON object (a result's field), 0 when it is missing or not a number. */
double json_num(const json_t *o, const char *key);

void render_started(FILE *f, const Iofleet__RunUpdate *u);
/* One line for cluster interval u->index: "[ramp i/R]" while jobs ramp up (not measured), then
 * "[k/N]" counting the measured intervals (N from the coordinator, else total; none when both
 * are 0: open-ended); a line per agent too when per_host. */
void render_interval(FILE *f, const Iofleet__RunUpdate *u, uint64_t total, bool per_host);
/* The layout's live line of a KIND_LAYOUT update into buf (no newline): "laying out: 1.2GiB of
 * 3.0GiB (40%), 410.0MiB/s, ETA 4s; slowest: c2 300.0MiB of 1.0GiB", "(k/N agents)" while some
 * have not reported, "?" for a rate or ETA not known yet. */
void render_layout(char *buf, size_t len, const Iofleet__RunUpdate *u);
/* One line per agent of a KIND_LAYOUT update (what it reported, its rate and ETA). */
void render_layout_agents(FILE *f, const Iofleet__RunUpdate *u);
/* A duration for people, to the second: "4s", "2m05s", "1h02m"; "?" when negative (unknown). */
const char *render_eta(int64_t ns, char *buf, size_t len);
/* fio-style summary: one block per agent and job, "All clients", the group line, then the
 * start skew and where the results went. */
void render_summary(FILE *f, json_t *doc, const char *results_dir);
