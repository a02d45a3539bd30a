/* fio's log files of a run on the agent, on their way to the coordinator: the workers write each
 * stream (one log of one job clone) to RUN_DIR/logs/JOB.CLONE.KIND as they go
 * (agent/fiolog-writer.c); the shipper reads what they wrote beyond what went already and packs
 * it as LogChunk run messages, so the bytes wait on disk, not in memory, while the coordinator is
 * away. What went is noted in RUN_DIR/logs/shipped (lazily: a restarted agent may send a few
 * bytes again, which the coordinator writes to the same place). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LOGSHIP_DIR "logs"
/* Bytes of one LogChunk at most: with 64 chunks waiting for an Ack (agent-run.c), what the
 * coordinator's journal syncs every 50 ms keeps up with hundreds of MB/s of per-I/O logs. */
#define LOGSHIP_CHUNK (256u << 10)

/* A stream's file name in the log directory: "JOB.CLONE.KIND"; with suffix ".cut" the file that
 * says why a log was cut short (agent/fiolog-writer.c writes it). */
void logship_stream_name(char *buf, size_t n, unsigned job, unsigned clone, unsigned kind,
                         const char *suffix);

typedef struct logship logship_t;

/* The shipper of the streams in RUN_DIR/logs, with what went before (its "shipped" file). 0 or
 * -errno. */
int logship_open(const char *run_dir, logship_t **ret);
void logship_close(logship_t **lp);
/* Packs the next LogChunk (run_id, run_seq) into a malloc'd buffer: the bytes of a stream
 * beyond what went, whole lines, at most LOGSHIP_CHUNK. final: the workers have ended: every
 * stream to its last whole line, its last chunk with eof and why it was cut, if it was (its
 * writer's word, else cut when given: the workers died with the agent). Returns 1 when it
 * packed one, 0 when nothing waits, or -errno. */
int logship_next(logship_t *l, const char *run_id, uint64_t run_seq, bool final, const char *cut,
                 uint8_t **buf, size_t *len);
/* Bytes the streams hold beyond what went (a restart's count, and the tests'). */
uint64_t logship_backlog(logship_t *l);
/* Removes RUN_DIR/logs and what it holds (the run is over and delivered). */
void logship_remove(const char *run_dir);
