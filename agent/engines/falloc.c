/* falloc engine: each I/O is an fallocate() of its range instead of a transfer, as fio's falloc:
 * a read keeps the file's size (FALLOC_FL_KEEP_SIZE), a write may extend it. */
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>

#include "engine.h"

static int falloc_init(const engine_setup_t *setup, void **data)
{
        *data = NULL;
        return ENGINE_INIT_SYNC;
}

static void falloc_cleanup(void *data)
{
}

static int falloc_queue(void *data, io_unit_t *io)
{
        int mode = io->ddir == DDIR_WRITE ? 0 : FALLOC_FL_KEEP_SIZE, r;
        do
                r = fallocate(io->fd, mode, (off_t)io->offset, (off_t)io->len);
        while (r < 0 && errno == EINTR);
        io->result = r < 0 ? -errno : (int64_t)io->len;
        return ENGINE_COMPLETED;
}

const engine_ops_t engine_falloc = {
    .version = ENGINE_OPS_VERSION,
    .name = "falloc",
    .flags = ENGINE_SYNC | ENGINE_RDWR,
    .init = falloc_init,
    .cleanup = falloc_cleanup,
    .queue = falloc_queue,
};
