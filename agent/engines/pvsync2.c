/* pvsync2 engine: preadv2/pwritev2 per I/O, with RWF_HIPRI when the job says hipri (the kernel
 * then polls for the completion where the device has poll queues), as fio's pvsync2. */
#include <errno.h>
#include <stdlib.h>
#include <sys/uio.h>

#include "engine.h"

static int pvsync2_init(const engine_setup_t *setup, void **data)
{
        int *flags = malloc(sizeof(*flags));
        if (!flags)
                return -ENOMEM;
        *flags = setup->job && setup->job->hipri ? RWF_HIPRI : 0;
        *data = flags;
        return ENGINE_INIT_SYNC;
}

static void pvsync2_cleanup(void *data)
{
        free(data);
}

static int pvsync2_queue(void *data, io_unit_t *io)
{
        struct iovec iov = {.iov_base = io->buf, .iov_len = io->len};
        int flags = *(const int *)data;
        ssize_t n;
        do
                n = io->ddir == DDIR_WRITE ? pwritev2(io->fd, &iov, 1, (off_t)io->offset, flags)
                                           : preadv2(io->fd, &iov, 1, (off_t)io->offset, flags);
        while (n < 0 && errno == EINTR);
        io->result = n < 0 ? -errno : n;
        return ENGINE_COMPLETED;
}

const engine_ops_t engine_pvsync2 = {
    .version = ENGINE_OPS_VERSION,
    .name = "pvsync2",
    .flags = ENGINE_SYNC,
    .init = pvsync2_init,
    .cleanup = pvsync2_cleanup,
    .queue = pvsync2_queue,
};
