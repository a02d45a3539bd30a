/* io_submit_mode=offload: a pool of threads doing a worker's I/Os through a synchronous engine,
 * so that the worker issues at its pace whatever the device's (fio's offload; latency counts
 * from when an I/O was due, not from when a busy device let it go). */
#pragma once

#include "engine.h"

typedef struct offload offload_t;

/* Starts nthreads threads, each running e->queue(ed, io) on the units handed to it (the engine
 * must complete in queue() and be safe to call from several threads). 0 or -errno. */
int offload_new(const engine_ops_t *e, void *ed, unsigned nthreads, offload_t **ret);
/* Hands io to the pool; a thread stamps io->issue_ns when it starts it and io->done_ns when it
 * is done. At most nthreads units are in the pool or done and not yet reaped. */
void offload_submit(offload_t *o, io_unit_t *io);
/* Moves up to max finished units to out, waiting up to timeout_ns (0: not at all) for the first.
 * Returns how many. */
unsigned offload_reap(offload_t *o, io_unit_t **out, unsigned max, int64_t timeout_ns);
/* Stops and joins the threads once they are idle; units never reaped are left as they are. */
void offload_destroy(offload_t **o);
