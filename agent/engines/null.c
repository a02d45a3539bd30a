/* null engine: completes every I/O at once without touching data, to measure the harness itself. */
#include "engine.h"

static int null_init(const job_spec_t *job, unsigned depth, void **data)
{
        *data = NULL;
        return 0;
}

static void null_cleanup(void *data)
{
}

static int null_queue(void *data, io_unit_t *io)
{
        io->result = (int64_t)io->len;
        return ENGINE_COMPLETED;
}

const engine_ops_t engine_null = {
    .version = ENGINE_OPS_VERSION,
    .name = "null",
    .flags = ENGINE_SYNC | ENGINE_NO_FILES,
    .init = null_init,
    .cleanup = null_cleanup,
    .queue = null_queue,
};
