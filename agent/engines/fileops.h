/* What fio's file and directory operation engines share: no data moves; each file's blocks count
 * as done once the engine's file_op() acted on the file (fio's fake I/O, FIO_FAKEIO). */
#pragma once

#include "engine.h"

int fileops_init(const engine_setup_t *setup, void **data);
void fileops_cleanup(void *data);
int fileops_queue(void *data, io_unit_t *io);

/* The ops table of one such engine. */
#define FILEOPS_ENGINE(ident, engine_name, extra_flags, op)                                        \
        const engine_ops_t engine_##ident = {                                                      \
            .version = ENGINE_OPS_VERSION,                                                         \
            .name = engine_name,                                                                   \
            .flags = ENGINE_SYNC | ENGINE_FILE_OPS | (extra_flags),                                \
            .init = fileops_init,                                                                  \
            .cleanup = fileops_cleanup,                                                            \
            .queue = fileops_queue,                                                                \
            .file_op = op,                                                                         \
        }
