/* A finished run's result written off the coordinator's loop: result.json of thousands of agents
 * takes seconds to build and write, and meanwhile the loop must go on answering heartbeats (an
 * agent not answered for its lease takes the coordinator for lost). */
#pragma once

#include <stdbool.h>

#include "run.h"

typedef struct run_writer run_writer_t;

/* What was written, for the RunDone and the log. */
typedef struct run_written {
        int r;                   /* 0, or -errno: the result could not be written */
        char status[16];         /* ok, partial, cancelled or error */
        Iofleet__ErrorCode code; /* the run's code: partial when the result says so (and the
                                  * plan did not say to go on), else the run's own */
        char message[1024];      /* the run's message to go with it */
        char partial[1024];      /* a partial run's one-line summary */
        char dir[4096];          /* where it went */
        char *text;              /* result.json when it fits in a RunDone (owned), else NULL */
} run_written_t;

/* Starts writing run's result under results_dir in a thread of its own; wake_fd (an eventfd, or
 * -1) is written to when it is done. The run is read, never changed, by the writer: until
 * run_writer_finish() the caller must leave it alone but for reading (it is over, so nothing
 * moves it on). Where no thread can be started the result is written before this returns.
 * 0 or -ENOMEM. */
int run_writer_start(const coord_run_t *run, const char *results_dir, int wake_fd,
                     run_writer_t **ret);
/* Whether the result is written (never blocks). */
bool run_writer_done(run_writer_t *w);
/* Waits until it is, hands what was written to *out (out->text is the caller's to free) and
 * frees the writer. NULL-safe. */
void run_writer_finish(run_writer_t **wp, run_written_t *out);
