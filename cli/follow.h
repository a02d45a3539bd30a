/* Following a run from the CLI (iofleet run, watch and every point of a sweep): submitting it,
 * its live lines, ^C, re-attaching to a coordinator that went silent, and the result at the end. */
#pragma once

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "client.h"
#include "run-opts.h"

/* ^C and SIGTERM count here; the first cancels the run (or, when watching, leaves). */
extern volatile sig_atomic_t run_interrupted;

/* Counts SIGINT and SIGTERM in run_interrupted from now on. */
void follow_catch_signals(void);

/* Submits s and prints which agents took it on live; the run's id goes to run_id. 0, or -errno
 * (said on stderr) when the coordinator did not accept it. */
int follow_submit(client_t *c, Iofleet__SubmitRun *s, FILE *live, char *run_id, size_t len);

/* Asks the coordinator for run run_id ("" for the current one): RunAccepted and its live lines
 * follow, or at once the RunDone of a finished run. 0 or -errno. */
int follow_watch(client_t *c, const char *run_id);

/* Follows run run_id until RunDone: live lines (total intervals expected, 0 unknown), a cancel on
 * the first ^C, the result at the end; dir (may be NULL) gets the run's results directory. A
 * silent coordinator is asked again for the run; after o->reattach_ns without an answer
 * -ETIMEDOUT (the run's end is unknown), -ENOENT when the coordinator does not know the run; 0,
 * or -errno when the run failed. With o->watch the WatchRun is already sent and its answer comes
 * here. */
int follow_run(client_t *c, const run_opts_t *o, const char *run_id, uint64_t total, FILE *live,
               char *dir, size_t dirlen);
