/* Every ioengine= value, once: the agent's ops table (agent/engine.c), the option table's
 * choices (common/options-table.c) and Hello's engine list are all made from ENGINE_LIST. */
#pragma once

/* X(name, kind), in the order help and errors list them. kind IO: an I/O engine,
 * agent/engines/<name>.c defining `const engine_ops_t engine_<name>`. kind WORKLOAD: a workload
 * of its own that ioengine= selects, with no ops table (ENGINE_METADATA below). Adding an engine
 * is its file under agent/engines/ and one line here. */
#define ENGINE_LIST(X)                                                                             \
        X(psync, IO)                                                                               \
        X(libaio, IO)                                                                              \
        X(io_uring, IO)                                                                            \
        X(null, IO)                                                                                \
        X(metadata, WORKLOAD)                                                                      \
        X(nfs, IO)                                                                                 \
        X(sync, IO)                                                                                \
        X(vsync, IO)                                                                               \
        X(pvsync, IO)                                                                              \
        X(pvsync2, IO)                                                                             \
        X(posixaio, IO)                                                                            \
        X(mmap, IO)                                                                                \
        X(falloc, IO)                                                                              \
        X(ftruncate, IO)                                                                           \
        X(filecreate, IO)                                                                          \
        X(filestat, IO)                                                                            \
        X(filedelete, IO)                                                                          \
        X(dircreate, IO)                                                                           \
        X(dirstat, IO)                                                                             \
        X(dirdelete, IO)

/* What a job runs when it names no ioengine. */
#define ENGINE_DEFAULT "psync"

/* ioengine=metadata stands beside the engines, not behind the ops table, on purpose: an engine
 * moves blocks of files the worker has laid out and opened (queue, commit, getevents over
 * io_units), while the metadata workload makes, stats, reads and removes its own files phase by
 * phase and reports per-phase results (JobResult.phases), not per-direction I/O. Behind the
 * table it would need a second, unrelated shape of ops (one "run the whole workload" hook that
 * every engine leaves NULL) and the worker's I/O loop would have to step aside for it anyway; so
 * the runner gives its workers metadata_run() instead of the I/O loop (agent/runner.c,
 * agent/worker.c), and the option checks treat it apart (common/options-validate.c). */
#define ENGINE_METADATA "metadata"
