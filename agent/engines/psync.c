/* psync engine: one pread/pwrite per I/O, as fio's psync. */
#include <errno.h>
#include <unistd.h>

#include "engine.h"

static int psync_init(const engine_setup_t *setup, void **data)
{
        *data = NULL;
        return ENGINE_INIT_SYNC;
}

static void psync_cleanup(void *data)
{
}

static int psync_queue(void *data, io_unit_t *io)
{
        ssize_t n;
        do
                n = io->ddir == DDIR_WRITE ? pwrite(io->fd, io->buf, io->len, (off_t)io->offset)
                                           : pread(io->fd, io->buf, io->len, (off_t)io->offset);
        while (n < 0 && errno == EINTR);
        io->result = n < 0 ? -errno : n;
        return ENGINE_COMPLETED;
}

const engine_ops_t engine_psync = {
    .version = ENGINE_OPS_VERSION,
    .name = "psync",
    .flags = ENGINE_SYNC,
    .init = psync_init,
    .cleanup = psync_cleanup,
    .queue = psync_queue,
};
