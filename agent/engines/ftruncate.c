/* ftruncate engine: each write sets the file's size to its offset (the block size moves no
 * data), as fio's ftruncate; it does only writes (the option checks refuse reading jobs). */
#include <errno.h>
#include <unistd.h>

#include "engine.h"

static int ftruncate_init(const engine_setup_t *setup, void **data)
{
        *data = NULL;
        return ENGINE_INIT_SYNC;
}

static void ftruncate_cleanup(void *data)
{
}

static int ftruncate_queue(void *data, io_unit_t *io)
{
        int r;
        if (io->ddir != DDIR_WRITE) {
                io->result = -EINVAL;
                return ENGINE_COMPLETED;
        }
        do
                r = ftruncate(io->fd, (off_t)io->offset);
        while (r < 0 && errno == EINTR);
        io->result = r < 0 ? -errno : (int64_t)io->len;
        return ENGINE_COMPLETED;
}

const engine_ops_t engine_ftruncate = {
    .version = ENGINE_OPS_VERSION,
    .name = "ftruncate",
    .flags = ENGINE_SYNC,
    .init = ftruncate_init,
    .cleanup = ftruncate_cleanup,
    .queue = ftruncate_queue,
};
