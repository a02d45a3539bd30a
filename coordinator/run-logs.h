/* fio's log files of a run (write_bw_log, ...) as the coordinator keeps them: every agent's
 * LogChunks written into the run's directory under fio's names with the agent's name appended,
 * as fio's client mode appends the host (PREFIX_bw.N.log.AGENT). The agent names nothing: the
 * file name comes from the coordinator's own copy of the job. */
#pragma once

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "wire.h"

typedef struct coord_run coord_run_t;
typedef struct run_agent run_agent_t;
typedef struct run_logs run_logs_t;

/* The run's logs, when one of its jobs writes some (run->logs stays NULL otherwise). 0 or
 * -ENOMEM. */
int run_logs_new(coord_run_t *run);
void run_logs_free(run_logs_t **lp);

/* Where the files go: the run's directory (before its first chunk, and after a journal's replay:
 * what the files hold is then counted from them). 0 or -errno. */
int run_logs_set_dir(coord_run_t *run, const char *dir);
/* A chunk of agent a, taken in order (run.c): its bytes written where they belong, or, when the
 * agent has no such stream or passes its limit, left with one line in the coordinator's log for
 * the run and a note in the result. While replaying a journal (no data) it only counts. An agent
 * whose logs still grow after its workers ended (they go before its Finished) is not stuck: the
 * run's finish deadline moves on from now. */
void run_logs_chunk(coord_run_t *run, run_agent_t *a, const Iofleet__LogChunk *c, int64_t now);
/* Makes what was written since the last call durable (before an Ack says it is kept). 0, or
 * -errno (the error is logged). */
int run_logs_sync(coord_run_t *run);
/* The run is over: with per_job_logs=0, each agent's clones of a job go into one file (fio's
 * PREFIX_bw.log.AGENT), one clone after another. */
void run_logs_finish(coord_run_t *run);
/* The result's iofleet.logs: each agent's files, their bytes, and whether each is whole. */
json_t *run_logs_json(const coord_run_t *run);
