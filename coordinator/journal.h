/* A run's journal: everything that changed the run, appended to its directory as it happens and
 * synced before agents are told their messages are kept; read back by a restarted coordinator,
 * which replays it into the same run and re-adopts it. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "registry.h"
#include "run.h"

#define JOURNAL_NAME "journal"

typedef struct journal journal_t;

/* Creates DIR/journal afresh and writes the run's beginning: its id, the SubmitRun as received
 * and its agents in rank order (with their parts), synced. 0 or -errno. */
int journal_create(const char *dir, const char *run_id, int64_t now, const envelope_t *submit,
                   coord_agent_t **agents, const uint32_t *part_of, size_t n, journal_t **ret);
/* Appends one record (buffered; journal_sync() writes and syncs). An Interval is kept without
 * its latency histograms (they only feed the live display); everything else whole. */
int journal_append(journal_t *j, const run_rec_t *rec);
/* Writes what is buffered and syncs the file: after this, what was appended survives a crash.
 * 0 or -errno (the error is kept: every later call fails too, so nothing is acknowledged that
 * is not on disk). */
int journal_sync(journal_t *j);
/* Whether records wait to be synced. */
bool journal_dirty(const journal_t *j);
/* The run is over and its result written: a last record, synced, and the file removed (the
 * result and intervals.csv hold the run now). */
int journal_finish(journal_t **jp, int code, const char *message);
void journal_close(journal_t **jp);
/* Bytes appended since it was opened (the benchmark reports them). */
uint64_t journal_bytes(const journal_t *j);

/* Reads DIR/journal back: the run as it was (replayed through the run's own state machine, its
 * interval series re-spooled to spool_path), or -ENOENT when there is none, -EALREADY when the
 * run had ended. A torn last record (a crash mid-write) ends the journal there; the file is cut
 * to its last whole record and opened for appending (*jret). *ret's keep hook is unset. 0 or
 * -errno with err set. */
int journal_replay(const char *dir, const char *spool_path, coord_run_t **ret, journal_t **jret,
                   char *err, size_t errlen);
