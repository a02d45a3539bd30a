/* One job clone's fio log files on the agent (write_bw_log, write_iops_log, write_lat_log,
 * write_hist_log): lines made from the worker's completions as fio 3.33 makes them, per I/O or
 * over windows, and written as they go to the run's log directory (never held whole in memory).
 * Only the worker thread uses it. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "fiolog.h"
#include "options.h"

typedef struct fiolog_writer fiolog_writer_t;

typedef struct fiolog_writer_params {
        const job_spec_t *job;
        int dirfd;          /* the run's log directory (agent/log-ship.h names the files) */
        unsigned job_index, clone;
        uint64_t *shared_bytes; /* what every log of the agent's run holds (atomic), or NULL */
        uint64_t max_bytes;     /* ... at most; a log that would pass it is cut (0: no limit) */
} fiolog_writer_params_t;

/* The job's log files, created empty (fio leaves an empty file where nothing was logged). 0,
 * -ENOENT when the job writes no log (*ret NULL), or -errno. */
int fiolog_writer_new(const fiolog_writer_params_t *p, fiolog_writer_t **ret);
/* Time zero of the lines: when the job starts counting (after ramp_time, as fio's epoch);
 * again after a restart of the counting (latency_target's final window). Windows start afresh. */
void fiolog_writer_start(fiolog_writer_t *w, int64_t epoch_ns);
/* A completed I/O of bytes at offset: its completion and total latency (lat_ns 0: not
 * measured). clat_ok/lat_ok: the job measures them (disable_clat, disable_lat). */
void fiolog_writer_io(fiolog_writer_t *w, unsigned ddir, uint64_t bytes, uint64_t offset,
                      uint64_t clat_ns, uint64_t lat_ns, int64_t now);
/* A submission's latency (engines with a submission phase). */
void fiolog_writer_slat(fiolog_writer_t *w, unsigned ddir, uint64_t bytes, uint64_t offset,
                        uint64_t slat_ns, int64_t now);
/* A completion latency without an I/O (the file operation engines' open, stat, ...): fio's
 * add_clat_sample() with no block size. */
void fiolog_writer_clat(fiolog_writer_t *w, unsigned ddir, uint64_t clat_ns, int64_t now);
/* Ends the logs at now: the windows still open are written as fio's finalize_logs() writes them,
 * everything is written out and the files closed. NULL-safe; sets *wp to NULL. */
void fiolog_writer_close(fiolog_writer_t **wp, int64_t now);
