/* The live web page's side of the metrics listener: its compiled-in files, the list of past runs
 * and read-only access to their results and plots in the results directory. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "web-assets.h"

/* The page's file for a URL path ("/" is /index.html), or NULL. */
const web_asset_t *web_asset(const char *url);

/* The runs in results_dir, newest first (at most WEB_MAX_RUNS), as JSON: name, mtime, the link
 * to its result.json when it has one, and to each plot `iofleet report` left in its plots/.
 * 0 or -errno. */
#define WEB_MAX_RUNS 100
int web_runs_json(const char *results_dir, char **ret, size_t *len);

/* Opens the file a /results/ URL names (rest: what follows "/results/"): RUN/result.json,
 * RUN/intervals.csv or RUN/plots/NAME.svg, RUN and NAME of letters, digits, '.', '_', '-' and
 * not starting with '.'; no symbolic link is followed. *fd (O_CLOEXEC, the caller closes it),
 * its size and Content-Type; -EINVAL for a path it never serves, -ENOENT and others from the
 * file system. */
int web_result_open(const char *results_dir, const char *rest, int *fd, uint64_t *size,
                    const char **type);
