/* The I/O engine interface: a small versioned ops table, one file per engine under engines/. */
#include "engine.h"

#include <stddef.h>
#include <string.h>

#include "engine-list.h"

/* The ops tables and names of ENGINE_LIST's I/O engines; its workloads have none. */
#define DECLARE_IO(name) extern const engine_ops_t engine_##name;
#define DECLARE_WORKLOAD(name)
#define DECLARE(name, kind) DECLARE_##kind(name)
ENGINE_LIST(DECLARE)
#define OPS_IO(name) &engine_##name,
#define OPS_WORKLOAD(name)
#define OPS(name, kind) OPS_##kind(name)
static const engine_ops_t *const engines[] = {ENGINE_LIST(OPS)};
#define NAME_IO(name) #name,
#define NAME_WORKLOAD(name)
#define NAME(name, kind) NAME_##kind(name)
static const char *const names[] = {ENGINE_LIST(NAME) NULL};

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
