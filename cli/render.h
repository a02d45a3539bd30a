/* What people read: the live line per interval and a summary modelled on fio's, from the result
 * JSON. */
#pragma once

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "wire.h"

void render_started(FILE *f, const Iofleet__RunUpdate *u);
/* One line for cluster interval u->index: "[ramp i/R]" while jobs ramp up (not measured), then
 * "[k/N]" counting the measured intervals (N from the coordinator, else total; none when both
 * are 0: open-ended); a line per agent too when per_host. */
void render_interval(FILE *f, const Iofleet__RunUpdate *u, uint64_t total, bool per_host);
/* fio-style summary: one block per agent and job, "All clients", the group line, then the
 * start skew and where the results went. */
void render_summary(FILE *f, json_t *doc, const char *results_dir);
