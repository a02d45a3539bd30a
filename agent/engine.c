/* The I/O engine interface: a small versioned ops table, one file per engine under engines/. */
#include "engine.h"

#include <stddef.h>
#include <string.h>

extern const engine_ops_t engine_psync;
extern const engine_ops_t engine_null;
extern const engine_ops_t engine_libaio;
extern const engine_ops_t engine_io_uring;
extern const engine_ops_t engine_nfs;

static const engine_ops_t *const engines[] = {&engine_psync, &engine_null, &engine_libaio,
                                              &engine_io_uring, &engine_nfs};
static const char *const names[] = {"psync", "null", "libaio", "io_uring", "nfs", NULL};

const engine_ops_t *engine_find(const char *name)
{
        for (size_t i = 0; i < sizeof(engines) / sizeof(engines[0]); i++)
                if (strcmp(engines[i]->name, name) == 0 &&
                    engines[i]->version == ENGINE_OPS_VERSION)
                        return engines[i];
        return NULL;
}

const char *const *engine_names(void)
{
        return names;
}
