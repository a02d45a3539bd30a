/* libaio engine: Linux native AIO through io_submit/io_getevents, as fio's libaio. Completions are
 * reaped from the kernel's ring in user space when it is readable (fio's userspace_reap), with
 * io_getevents only to wait. Truly asynchronous with direct=1; buffered I/O completes in the
 * submit call, as the kernel does it. */
#include <errno.h>
#include <libaio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine.h"

/* The completion ring the kernel maps at the context's address (fs/aio.c, a stable ABI). */
#define AIO_RING_MAGIC 0xa10a10a1u
typedef struct aio_ring {
        unsigned id, nr, head, tail;
        unsigned magic, compat_features, incompat_features, header_length;
        struct io_event events[];
} aio_ring_t;

typedef struct libaio_data {
        io_context_t ctx;
        aio_ring_t *ring; /* NULL when the ring cannot be read from user space */
        unsigned depth;
        struct iocb *iocbs;   /* one per unit, by index */
        struct iocb **queued; /* taken by queue(), not yet submitted, in order */
        unsigned nqueued;
        struct io_event *events;
        io_unit_t **done;   /* what the last getevents() reaped */
        io_unit_t **failed; /* submissions refused by io_submit: reported as completions */
        unsigned nfailed;
} libaio_data_t;

static void libaio_cleanup(void *data)
{
        libaio_data_t *d = data;
        if (!d)
                return;
        if (d->ctx)
                io_destroy(d->ctx);
        free(d->iocbs);
        free(d->queued);
        free(d->events);
        free(d->done);
        free(d->failed);
        free(d);
}

static int libaio_init(const engine_setup_t *setup, void **data)
{
        libaio_data_t *d = calloc(1, sizeof(*d));
        unsigned n = setup->depth ? setup->depth : 1;
        int r;

        if (!d)
                return -ENOMEM;
        d->depth = n;
        d->iocbs = calloc(n, sizeof(*d->iocbs));
        d->queued = calloc(n, sizeof(*d->queued));
        d->events = calloc(n, sizeof(*d->events));
        d->done = calloc(n, sizeof(*d->done));
        d->failed = calloc(n, sizeof(*d->failed));
        if (!d->iocbs || !d->queued || !d->events || !d->done || !d->failed) {
                libaio_cleanup(d);
                return -ENOMEM;
        }
        r = io_setup((int)n, &d->ctx);
        if (r < 0) {
                d->ctx = 0;
                libaio_cleanup(d);
                return r;
        }
        d->ring = (aio_ring_t *)d->ctx;
        if (d->ring->magic != AIO_RING_MAGIC || d->ring->incompat_features != 0)
                d->ring = NULL;
        *data = d;
        return 0;
}

static int libaio_queue(void *data, io_unit_t *io)
{
        libaio_data_t *d = data;
        struct iocb *cb = &d->iocbs[io->index];

        if (d->nqueued >= d->depth)
                return ENGINE_BUSY;
        if (io->ddir == DDIR_WRITE)
                io_prep_pwrite(cb, io->fd, io->buf, io->len, (long long)io->offset);
        else
                io_prep_pread(cb, io->fd, io->buf, io->len, (long long)io->offset);
        cb->data = io;
        d->queued[d->nqueued++] = cb;
        return ENGINE_QUEUED;
}

static void drop_front(libaio_data_t *d, unsigned n)
{
        d->nqueued -= n;
        if (d->nqueued)
                memmove(d->queued, d->queued + n, d->nqueued * sizeof(*d->queued));
}

static int libaio_commit(void *data)
{
        libaio_data_t *d = data;
        int r;

        if (!d->nqueued)
                return 0;
        do
                r = io_submit(d->ctx, d->nqueued, d->queued);
        while (r == -EINTR);
        if (r > 0) {
                drop_front(d, (unsigned)r);
                return r;
        }
        if (r == 0 || r == -EAGAIN)
                return -EAGAIN;
        /* The first iocb was refused (bad fd, misaligned direct I/O, ...): it completes with that
         * error, so the worker reports it with its offset like any failed I/O. */
        io_unit_t *io = d->queued[0]->data;
        io->result = r;
        d->failed[d->nfailed++] = io;
        drop_front(d, 1);
        return 1;
}

/* Completions waiting in the ring; 0 when the ring is not readable from user space. */
static unsigned ring_ready(const libaio_data_t *d)
{
        const aio_ring_t *ring = d->ring;
        unsigned head, tail;

        if (!ring)
                return 0;
        head = ring->head;
        tail = __atomic_load_n(&ring->tail, __ATOMIC_ACQUIRE);
        return tail >= head ? tail - head : ring->nr - head + tail;
}

/* Completions from the ring in user space, at most max; none when the ring is not readable. */
static unsigned reap_ring(libaio_data_t *d, unsigned n, unsigned max)
{
        aio_ring_t *ring = d->ring;
        unsigned head, tail;

        if (!ring)
                return n;
        head = ring->head;
        tail = __atomic_load_n(&ring->tail, __ATOMIC_ACQUIRE);
        while (n < max && head != tail) {
                struct io_event *ev = &ring->events[head];
                io_unit_t *io = ev->data;
                io->result = (long)ev->res;
                d->done[n++] = io;
                if (++head == ring->nr)
                        head = 0;
        }
        __atomic_store_n(&ring->head, head, __ATOMIC_RELEASE);
        return n;
}

static int libaio_getevents(void *data, unsigned min, unsigned max, int64_t timeout_ns)
{
        libaio_data_t *d = data;
        unsigned n = 0;

        if (max > d->depth)
                max = d->depth;
        while (d->nfailed && n < max)
                d->done[n++] = d->failed[--d->nfailed];
        /* A zero timeout looks only at what is already there: the minimum or nothing, with no
         * system call. */
        if (timeout_ns == 0 && n < min && ring_ready(d) < min - n)
                return (int)n;
        n = reap_ring(d, n, max);
        if (timeout_ns == 0)
                return (int)n;
        while (n < min) {
                struct timespec ts, *tp = NULL;
                int r;
                if (timeout_ns >= 0) {
                        ts.tv_sec = timeout_ns / 1000000000;
                        ts.tv_nsec = timeout_ns % 1000000000;
                        tp = &ts;
                }
                r = io_getevents(d->ctx, (long)(min - n), (long)(max - n), d->events, tp);
                if (r == -EINTR)
                        continue;
                if (r < 0)
                        return n ? (int)n : r;
                for (int i = 0; i < r; i++) {
                        io_unit_t *io = d->events[i].data;
                        io->result = (long)d->events[i].res;
                        d->done[n++] = io;
                }
                if (tp)
                        break; /* one timed wait: the worker checks its clock and comes back */
        }
        return (int)n;
}

static io_unit_t *libaio_event(void *data, unsigned i)
{
        libaio_data_t *d = data;
        return d->done[i];
}

const engine_ops_t engine_libaio = {
    .version = ENGINE_OPS_VERSION,
    .name = "libaio",
    .init = libaio_init,
    .cleanup = libaio_cleanup,
    .queue = libaio_queue,
    .commit = libaio_commit,
    .getevents = libaio_getevents,
    .event = libaio_event,
};
