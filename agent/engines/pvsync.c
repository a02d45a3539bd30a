/* pvsync engine: one preadv/pwritev of a single vector per I/O, as fio's pvsync. */
#include <errno.h>
#include <sys/uio.h>

#include "engine.h"

static int pvsync_init(const engine_setup_t *setup, void **data)
{
        *data = NULL;
        return ENGINE_INIT_SYNC;
}

static void pvsync_cleanup(void *data)
{
}

static int pvsync_queue(void *data, io_unit_t *io)
{
        struct iovec iov = {.iov_base = io->buf, .iov_len = io->len};
        ssize_t n;
        do
                n = io->ddir == DDIR_WRITE ? pwritev(io->fd, &iov, 1, (off_t)io->offset)
                                           : preadv(io->fd, &iov, 1, (off_t)io->offset);
        while (n < 0 && errno == EINTR);
        io->result = n < 0 ? -errno : n;
        return ENGINE_COMPLETED;
}

const engine_ops_t engine_pvsync = {
    .version = ENGINE_OPS_VERSION,
    .name = "pvsync",
    .flags = ENGINE_SYNC,
    .init = pvsync_init,
    .cleanup = pvsync_cleanup,
    .queue = pvsync_queue,
};
