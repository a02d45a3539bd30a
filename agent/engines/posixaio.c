/* posixaio engine: POSIX AIO (aio_read/aio_write, glibc's thread pool), as fio's posixaio. The
 * I/Os queued are handed to the library at commit, so that none can complete (and be reaped)
 * before the worker has stamped it issued; completions are found with aio_error() and waited for
 * with aio_suspend(). */
#include <aio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine.h"

typedef struct posixaio_data {
        unsigned depth;
        struct aiocb *cbs;  /* one per unit, by index */
        io_unit_t **flight; /* handed to the library, not yet reaped */
        unsigned nflight;
        io_unit_t **fresh; /* queued since the last commit, in order */
        unsigned nfresh;
        const struct aiocb **wait; /* aio_suspend()'s list */
        io_unit_t **done;          /* what the last getevents() reaped */
} posixaio_data_t;

static void posixaio_cleanup(void *data)
{
        posixaio_data_t *d = data;
        if (!d)
                return;
        free(d->cbs);
        free(d->flight);
        free(d->fresh);
        free(d->wait);
        free(d->done);
        free(d);
}

static int posixaio_init(const engine_setup_t *setup, void **data)
{
        posixaio_data_t *d = calloc(1, sizeof(*d));
        unsigned n = setup->depth ? setup->depth : 1;

        if (!d)
                return -ENOMEM;
        d->depth = n;
        d->cbs = calloc(n, sizeof(*d->cbs));
        d->flight = calloc(n, sizeof(*d->flight));
        d->fresh = calloc(n, sizeof(*d->fresh));
        d->wait = calloc(n, sizeof(*d->wait));
        d->done = calloc(n, sizeof(*d->done));
        if (!d->cbs || !d->flight || !d->fresh || !d->wait || !d->done) {
                posixaio_cleanup(d);
                return -ENOMEM;
        }
        *data = d;
        return 0;
}

static int posixaio_queue(void *data, io_unit_t *io)
{
        posixaio_data_t *d = data;
        struct aiocb *cb = &d->cbs[io->index];

        if (d->nflight + d->nfresh >= d->depth)
                return ENGINE_BUSY;
        memset(cb, 0, sizeof(*cb));
        cb->aio_fildes = io->fd;
        cb->aio_buf = io->buf;
        cb->aio_nbytes = io->len;
        cb->aio_offset = (off_t)io->offset;
        cb->aio_sigevent.sigev_notify = SIGEV_NONE;
        d->fresh[d->nfresh++] = io;
        return ENGINE_QUEUED;
}

/* Hands the queued I/Os to the library in order. Returns how many it took (0 when it is out of
 * resources for now: the worker reaps and commits again), or -errno. */
static int posixaio_commit(void *data)
{
        posixaio_data_t *d = data;
        unsigned n = 0;

        while (n < d->nfresh) {
                io_unit_t *io = d->fresh[n];
                struct aiocb *cb = &d->cbs[io->index];
                int r = io->ddir == DDIR_WRITE ? aio_write(cb) : aio_read(cb);
                if (r < 0) {
                        if (errno != EAGAIN && !n)
                                return -errno;
                        break;
                }
                d->flight[d->nflight++] = io;
                n++;
        }
        d->nfresh -= n;
        if (d->nfresh)
                memmove(d->fresh, d->fresh + n, d->nfresh * sizeof(*d->fresh));
        return (int)n;
}

/* Moves the finished I/Os of the flight list to done[] from *got on, up to max. */
static void collect(posixaio_data_t *d, unsigned max, unsigned *got)
{
        for (unsigned i = 0; i < d->nflight && *got < max;) {
                io_unit_t *io = d->flight[i];
                struct aiocb *cb = &d->cbs[io->index];
                int e = aio_error(cb);
                if (e == EINPROGRESS) {
                        i++;
                        continue;
                }
                ssize_t n = aio_return(cb);
                io->result = e ? -e : n;
                d->done[(*got)++] = io;
                d->flight[i] = d->flight[--d->nflight];
        }
}

static int posixaio_getevents(void *data, unsigned min, unsigned max, int64_t timeout_ns)
{
        posixaio_data_t *d = data;
        struct timespec now, end = {0};
        unsigned got = 0;

        if (timeout_ns > 0) {
                clock_gettime(CLOCK_MONOTONIC, &end);
                end.tv_sec += timeout_ns / 1000000000;
                end.tv_nsec += timeout_ns % 1000000000;
                if (end.tv_nsec >= 1000000000) {
                        end.tv_sec++;
                        end.tv_nsec -= 1000000000;
                }
        }
        for (;;) {
                struct timespec left;
                int64_t ns;
                collect(d, max, &got);
                if (got >= min || !d->nflight || timeout_ns == 0)
                        return (int)got;
                for (unsigned i = 0; i < d->nflight; i++)
                        d->wait[i] = &d->cbs[d->flight[i]->index];
                if (timeout_ns < 0) {
                        aio_suspend(d->wait, (int)d->nflight, NULL);
                        continue;
                }
                clock_gettime(CLOCK_MONOTONIC, &now);
                ns = (int64_t)(end.tv_sec - now.tv_sec) * 1000000000 + (end.tv_nsec - now.tv_nsec);
                if (ns <= 0)
                        return (int)got;
                left.tv_sec = ns / 1000000000;
                left.tv_nsec = ns % 1000000000;
                aio_suspend(d->wait, (int)d->nflight, &left);
        }
}

static io_unit_t *posixaio_event(void *data, unsigned i)
{
        posixaio_data_t *d = data;
        return d->done[i];
}

const engine_ops_t engine_posixaio = {
    .version = ENGINE_OPS_VERSION,
    .name = "posixaio",
    .init = posixaio_init,
    .cleanup = posixaio_cleanup,
    .queue = posixaio_queue,
    .commit = posixaio_commit,
    .getevents = posixaio_getevents,
    .event = posixaio_event,
};
