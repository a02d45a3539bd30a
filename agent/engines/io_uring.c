/* io_uring engine (liburing): one ring per worker sized to its iodepth, as fio's io_uring. Files
 * and buffers are registered when the kernel allows (fio's registerfiles and fixedbufs): a fixed
 * buffer spares the kernel mapping the user buffer per I/O and a fixed file its reference count. */
#include <errno.h>
#include <liburing.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "engine.h"

typedef struct uring_data {
        struct io_uring ring;
        unsigned depth;
        bool fixed_files, fixed_bufs;
        io_unit_t **done; /* what the last getevents() reaped */
} uring_data_t;

static void uring_cleanup(void *data)
{
        uring_data_t *d = data;
        if (!d)
                return;
        io_uring_queue_exit(&d->ring);
        free(d->done);
        free(d);
}

static int ring_init(uring_data_t *d, unsigned entries)
{
        /* Completion work runs when the worker enters the kernel anyway, instead of
         * interrupting it (the worker always enters to wait when the ring holds too few
         * completions). SINGLE_ISSUER|DEFER_TASKRUN measured no better here. Older kernels
         * refuse the flag: fall back. */
        static const unsigned flag_sets[] = {
            IORING_SETUP_COOP_TASKRUN,
            0,
        };
        int r = -EINVAL;

        for (size_t i = 0; i < sizeof(flag_sets) / sizeof(flag_sets[0]); i++) {
                struct io_uring_params p;
                memset(&p, 0, sizeof(p));
                p.flags = flag_sets[i];
                r = io_uring_queue_init_params(entries, &d->ring, &p);
                if (r == 0)
                        return r;
        }
        return r;
}

static int uring_init(const engine_setup_t *setup, void **data)
{
        uring_data_t *d = calloc(1, sizeof(*d));
        unsigned n = setup->depth ? setup->depth : 1;
        int r;

        if (!d)
                return -ENOMEM;
        d->depth = n;
        d->done = calloc(n, sizeof(*d->done));
        if (!d->done) {
                free(d);
                return -ENOMEM;
        }
        r = ring_init(d, n);
        if (r < 0) {
                free(d->done);
                free(d);
                return r;
        }
        /* Each is a measured gain (4k randread from the page cache, iodepth 32: about 8%);
         * without it (memlock limits, old kernels) the plain path works the same. */
        io_uring_register_ring_fd(&d->ring);
        if (setup->nfds && io_uring_register_files(&d->ring, setup->fds, setup->nfds) == 0)
                d->fixed_files = true;
        if (setup->bufs && setup->buf_size) {
                struct iovec *iov = calloc(n, sizeof(*iov));
                if (iov) {
                        for (unsigned i = 0; i < n; i++) {
                                iov[i].iov_base = (char *)setup->bufs + i * setup->buf_size;
                                iov[i].iov_len = setup->buf_size;
                        }
                        d->fixed_bufs = io_uring_register_buffers(&d->ring, iov, n) == 0;
                        free(iov);
                }
        }
        *data = d;
        return 0;
}

static int uring_queue(void *data, io_unit_t *io)
{
        uring_data_t *d = data;
        struct io_uring_sqe *sqe = io_uring_get_sqe(&d->ring);
        int fd = d->fixed_files ? (int)io->file : io->fd;

        if (!sqe)
                return ENGINE_BUSY;
        if (d->fixed_bufs) {
                if (io->ddir == DDIR_WRITE)
                        io_uring_prep_write_fixed(sqe, fd, io->buf, (unsigned)io->len, io->offset,
                                                  (int)io->index);
                else
                        io_uring_prep_read_fixed(sqe, fd, io->buf, (unsigned)io->len, io->offset,
                                                 (int)io->index);
        } else if (io->ddir == DDIR_WRITE)
                io_uring_prep_write(sqe, fd, io->buf, (unsigned)io->len, io->offset);
        else
                io_uring_prep_read(sqe, fd, io->buf, (unsigned)io->len, io->offset);
        if (d->fixed_files)
                sqe->flags |= IOSQE_FIXED_FILE;
        io_uring_sqe_set_data(sqe, io);
        return ENGINE_QUEUED;
}

static int uring_commit(void *data)
{
        uring_data_t *d = data;
        int r;
        do
                r = io_uring_submit(&d->ring);
        while (r == -EINTR);
        if (r == -EBUSY || r == -EAGAIN)
                return -EAGAIN;
        return r;
}

static unsigned reap(uring_data_t *d, unsigned n, unsigned max)
{
        struct io_uring_cqe *cqes[64];
        while (n < max) {
                unsigned want = max - n < 64 ? max - n : 64;
                unsigned got = io_uring_peek_batch_cqe(&d->ring, cqes, want);
                for (unsigned i = 0; i < got; i++) {
                        io_unit_t *io = io_uring_cqe_get_data(cqes[i]);
                        io->result = cqes[i]->res;
                        d->done[n++] = io;
                }
                io_uring_cq_advance(&d->ring, got);
                if (got < want)
                        break;
        }
        return n;
}

static int uring_getevents(void *data, unsigned min, unsigned max, int64_t timeout_ns)
{
        uring_data_t *d = data;
        unsigned n;

        if (max > d->depth)
                max = d->depth;
        /* A zero timeout looks only at what is already there: the minimum or nothing, with no
         * system call. */
        if (timeout_ns == 0 && io_uring_cq_ready(&d->ring) < min)
                return 0;
        n = reap(d, 0, max);
        if (timeout_ns == 0)
                return (int)n;
        while (n < min) {
                struct __kernel_timespec ts, *tp = NULL;
                struct io_uring_cqe *cqe;
                int r;
                if (timeout_ns >= 0) {
                        ts.tv_sec = timeout_ns / 1000000000;
                        ts.tv_nsec = timeout_ns % 1000000000;
                        tp = &ts;
                }
                r = io_uring_wait_cqes(&d->ring, &cqe, min - n, tp, NULL);
                if (r < 0 && r != -EINTR && r != -ETIME)
                        return n ? (int)n : r;
                n = reap(d, n, max);
                if (r == -ETIME)
                        break;
        }
        return (int)n;
}

static io_unit_t *uring_event(void *data, unsigned i)
{
        uring_data_t *d = data;
        return d->done[i];
}

const engine_ops_t engine_io_uring = {
    .version = ENGINE_OPS_VERSION,
    .name = "io_uring",
    .init = uring_init,
    .cleanup = uring_cleanup,
    .queue = uring_queue,
    .commit = uring_commit,
    .getevents = uring_getevents,
    .event = uring_event,
};
