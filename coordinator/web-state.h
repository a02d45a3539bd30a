/* The JSON the live web page polls (/api/state): agents, runs in progress with their cluster
 * bandwidth over time, per-agent bandwidth and latency, and alerts; pure, no I/O. */
#pragma once

#include <stddef.h>

#include "metrics-render.h"

/* At most this many intervals of a run's series go out (the latest). */
#define WEB_STATE_MAX_POINTS 600

/* Renders the state of *in as a malloc'd JSON text. 0 or -ENOMEM; *ret untouched on error. */
int web_state_render(const metrics_input_t *in, char **ret, size_t *len);
