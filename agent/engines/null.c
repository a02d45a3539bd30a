/* null engine: completes every I/O without touching data, to measure the harness itself. As fio's:
 * at iodepth=1 each I/O completes in queue(); deeper, queued I/Os complete at the next getevents()
 * after their commit. */
#include <errno.h>
#include <stdlib.h>

#include "engine.h"

typedef struct null_data {
        unsigned depth;
        unsigned queued;    /* taken by queue(), not yet committed */
        unsigned committed; /* committed: all complete at the next getevents() */
        unsigned reaped;    /* handed out by the last getevents() */
        io_unit_t **ios;    /* [0, reaped) reaped, then committed, then queued */
} null_data_t;

static int null_init(const engine_setup_t *setup, void **data)
{
        null_data_t *d;
        if (setup->depth <= 1) {
                *data = NULL;
                return ENGINE_INIT_SYNC;
        }
        d = calloc(1, sizeof(*d));
        if (!d)
                return -ENOMEM;
        d->depth = setup->depth;
        d->ios = calloc(setup->depth, sizeof(*d->ios));
        if (!d->ios) {
                free(d);
                return -ENOMEM;
        }
        *data = d;
        return 0;
}

static void null_cleanup(void *data)
{
        null_data_t *d = data;
        if (!d)
                return;
        free(d->ios);
        free(d);
}

static int null_queue(void *data, io_unit_t *io)
{
        null_data_t *d = data;
        if (!d) {
                io->result = (int64_t)io->len;
                return ENGINE_COMPLETED;
        }
        if (d->reaped) {
                /* Events of the last getevents() are consumed once the worker queues again. */
                unsigned rest = d->committed + d->queued;
                for (unsigned i = 0; i < rest; i++)
                        d->ios[i] = d->ios[d->reaped + i];
                d->reaped = 0;
        }
        if (d->committed + d->queued >= d->depth)
                return ENGINE_BUSY;
        io->result = (int64_t)io->len;
        d->ios[d->committed + d->queued++] = io;
        return ENGINE_QUEUED;
}

static int null_commit(void *data)
{
        null_data_t *d = data;
        unsigned n = d->queued;
        d->committed += n;
        d->queued = 0;
        return (int)n;
}

static int null_getevents(void *data, unsigned min, unsigned max, int64_t timeout_ns)
{
        null_data_t *d = data;
        unsigned n;
        if (d->reaped) {
                unsigned rest = d->committed + d->queued;
                for (unsigned i = 0; i < rest; i++)
                        d->ios[i] = d->ios[d->reaped + i];
                d->reaped = 0;
        }
        n = d->committed < max ? d->committed : max;
        d->committed -= n;
        d->reaped = n;
        return (int)n;
}

static io_unit_t *null_event(void *data, unsigned i)
{
        null_data_t *d = data;
        return d->ios[i];
}

const engine_ops_t engine_null = {
    .version = ENGINE_OPS_VERSION,
    .name = "null",
    .flags = ENGINE_NO_FILES,
    .init = null_init,
    .cleanup = null_cleanup,
    .queue = null_queue,
    .commit = null_commit,
    .getevents = null_getevents,
    .event = null_event,
};
