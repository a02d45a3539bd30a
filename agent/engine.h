/* The I/O engine interface: a small versioned ops table, one file per engine under engines/. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "options.h"

#define ENGINE_OPS_VERSION 1

/* One I/O in flight. */
typedef struct io_unit {
        int fd;
        void *buf;
        uint64_t offset;
        uint64_t len;
        bool write;
        int64_t result; /* bytes transferred, or -errno */
        void *engine_data;
} io_unit_t;

enum {
        ENGINE_COMPLETED = 0, /* queue() finished the I/O and set result */
        ENGINE_QUEUED = 1,    /* the I/O completes later, through getevents() */
};

enum {
        ENGINE_NO_FILES = 1u << 0, /* the engine does no file I/O (null): nothing to lay out */
        ENGINE_SYNC = 1u << 1,     /* queue() always completes */
};

typedef struct engine_ops {
        unsigned version; /* ENGINE_OPS_VERSION */
        const char *name;
        unsigned flags;
        /* Per worker state; depth is the most I/Os it will have in flight. */
        int (*init)(const job_spec_t *job, unsigned depth, void **data);
        void (*cleanup)(void *data);
        /* Starts one I/O: ENGINE_COMPLETED, ENGINE_QUEUED or -errno. */
        int (*queue)(void *data, io_unit_t *io);
        /* Async engines: submit what was queued; reap between min and max completions. */
        int (*commit)(void *data);
        int (*getevents)(void *data, unsigned min, unsigned max);
        io_unit_t *(*event)(void *data, unsigned i);
} engine_ops_t;

/* The engine called name, or NULL. */
const engine_ops_t *engine_find(const char *name);
/* Names of all engines, NULL-terminated, for Hello. */
const char *const *engine_names(void);
