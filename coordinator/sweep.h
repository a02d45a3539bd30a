/* A sweep's directory: one sub-directory per point and repeat, the plan, and sweep.json listing
 * every step with its parameters and outcome (what `iofleet report` reads). */
#pragma once

#include <stddef.h>

#include "wire.h"

/* RESULTS_DIR/SWEEP_ID/point-NNN-rK for the SubmitRun s of a sweep step. */
void sweep_point_dir(const char *results_dir, const Iofleet__SubmitRun *s, char *buf, size_t len);
/* Records one step in RESULTS_DIR/SWEEP_ID/sweep.json (replacing an earlier record of the same
 * point and repeat) and writes plan.ini beside it; error is "" for a step that ran well. The
 * file is replaced atomically. 0 or -errno. */
int sweep_record(const char *results_dir, const Iofleet__SubmitRun *s, const char *run_id,
                 const char *error);
