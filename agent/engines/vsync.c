/* vsync engine: readv/writev after lseek, as fio's vsync: I/Os queued back to back (same file,
 * same direction, each starting where the one before ends) go in one call, so a batch of
 * iodepth_batch sequential I/Os is one system call. At iodepth=1 every I/O is its own call. */
#include <errno.h>
#include <stdlib.h>
#include <sys/uio.h>
#include <unistd.h>

#include "engine.h"

typedef struct vsync_data {
        unsigned depth;
        io_unit_t **queued; /* contiguous, not yet committed */
        struct iovec *iov;
        unsigned nqueued;
        io_unit_t **ready; /* committed (so complete), not yet handed out */
        unsigned nready;
        io_unit_t **out; /* what the last getevents() handed out */
} vsync_data_t;

static void vsync_cleanup(void *data)
{
        vsync_data_t *d = data;
        if (!d)
                return;
        free(d->queued);
        free(d->iov);
        free(d->ready);
        free(d->out);
        free(d);
}

static int vsync_init(const engine_setup_t *setup, void **data)
{
        vsync_data_t *d = calloc(1, sizeof(*d));
        unsigned n = setup->depth ? setup->depth : 1;

        if (!d)
                return -ENOMEM;
        d->depth = n;
        d->queued = calloc(n, sizeof(*d->queued));
        d->iov = calloc(n, sizeof(*d->iov));
        d->ready = calloc(n, sizeof(*d->ready));
        d->out = calloc(n, sizeof(*d->out));
        if (!d->queued || !d->iov || !d->ready || !d->out) {
                vsync_cleanup(d);
                return -ENOMEM;
        }
        *data = d;
        return n == 1 ? ENGINE_INIT_SYNC : 0;
}

/* One readv/writev of what is queued; each I/O gets its share of what it transferred. */
static void transfer(vsync_data_t *d)
{
        io_unit_t *first = d->queued[0];
        ssize_t n;

        if (lseek(first->fd, (off_t)first->offset, SEEK_SET) < 0)
                n = -errno;
        else {
                do
                        n = first->ddir == DDIR_WRITE ? writev(first->fd, d->iov, (int)d->nqueued)
                                                      : readv(first->fd, d->iov, (int)d->nqueued);
                while (n < 0 && errno == EINTR);
                if (n < 0)
                        n = -errno;
        }
        for (unsigned i = 0; i < d->nqueued; i++) {
                io_unit_t *io = d->queued[i];
                if (n < 0)
                        io->result = n;
                else {
                        uint64_t got = (uint64_t)n < io->len ? (uint64_t)n : io->len;
                        io->result = (int64_t)got;
                        n -= (ssize_t)got;
                }
        }
}

static int vsync_queue(void *data, io_unit_t *io)
{
        vsync_data_t *d = data;

        if (d->depth == 1) {
                d->queued[0] = io;
                d->iov[0] = (struct iovec){.iov_base = io->buf, .iov_len = io->len};
                d->nqueued = 1;
                transfer(d);
                d->nqueued = 0;
                return ENGINE_COMPLETED;
        }
        if (d->nqueued) {
                io_unit_t *last = d->queued[d->nqueued - 1];
                if (io->fd != last->fd || io->ddir != last->ddir ||
                    io->offset != last->offset + last->len ||
                    d->nqueued + d->nready >= d->depth)
                        return ENGINE_BUSY;
        } else if (d->nready >= d->depth)
                return ENGINE_BUSY;
        d->iov[d->nqueued] = (struct iovec){.iov_base = io->buf, .iov_len = io->len};
        d->queued[d->nqueued++] = io;
        return ENGINE_QUEUED;
}

static int vsync_commit(void *data)
{
        vsync_data_t *d = data;
        unsigned n = d->nqueued;

        if (!n)
                return 0;
        transfer(d);
        for (unsigned i = 0; i < n; i++)
                d->ready[d->nready++] = d->queued[i];
        d->nqueued = 0;
        return (int)n;
}

static int vsync_getevents(void *data, unsigned min, unsigned max, int64_t timeout_ns)
{
        vsync_data_t *d = data;
        unsigned n = d->nready < max ? d->nready : max;

        for (unsigned i = 0; i < n; i++)
                d->out[i] = d->ready[i];
        for (unsigned i = n; i < d->nready; i++)
                d->ready[i - n] = d->ready[i];
        d->nready -= n;
        return (int)n;
}

static io_unit_t *vsync_event(void *data, unsigned i)
{
        vsync_data_t *d = data;
        return d->out[i];
}

const engine_ops_t engine_vsync = {
    .version = ENGINE_OPS_VERSION,
    .name = "vsync",
    .init = vsync_init,
    .cleanup = vsync_cleanup,
    .queue = vsync_queue,
    .commit = vsync_commit,
    .getevents = vsync_getevents,
    .event = vsync_event,
};
