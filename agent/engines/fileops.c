/* What fio's file and directory operation engines share: no data moves; each file's blocks count
 * as done once the engine's file_op() acted on the file (fio's fake I/O, FIO_FAKEIO). */
#include "fileops.h"

int fileops_init(const engine_setup_t *setup, void **data)
{
        *data = NULL;
        return ENGINE_INIT_SYNC;
}

void fileops_cleanup(void *data)
{
}

int fileops_queue(void *data, io_unit_t *io)
{
        io->result = (int64_t)io->len;
        return ENGINE_COMPLETED;
}
