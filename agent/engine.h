/* The I/O engine interface: a small versioned ops table, one file per engine under engines/. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "options.h"

/* Bumped whenever engine_ops_t or io_unit_t changes: a table of another version is not used. */
#define ENGINE_OPS_VERSION 4

/* One I/O. The worker owns depth of them for the whole run (never allocated per I/O) and hands
 * them to the engine; an engine keeps its own per-unit state in arrays indexed by index. */
typedef struct io_unit {
        /* Set by the worker before queue(). */
        int fd;
        unsigned file;  /* index of fd in engine_setup_t.fds (registered files) */
        unsigned index; /* the unit's slot in [0, depth); its buffer is bufs + index * buf_size */
        uint8_t ddir;   /* DDIR_READ or DDIR_WRITE */
        void *buf;
        uint64_t offset;
        uint64_t len;
        /* Set by the engine when the I/O completes: bytes transferred, or -errno. */
        int64_t result;
        /* The worker's bookkeeping; engines leave it alone. */
        int64_t start_ns, issue_ns;
        int64_t done_ns; /* io_submit_mode=offload: when the pool thread finished it */
        bool counted;
        bool readback; /* reads back a block this job wrote (verify): checked when it completes */
} io_unit_t;

/* What an engine gets to set itself up, in the worker's thread, before the start gate. */
typedef struct engine_setup {
        const job_spec_t *job;
        unsigned depth; /* most I/Os queued or in flight at once (the job's iodepth) */
        const int *fds; /* the worker's open files; nfds == 0 for ENGINE_NO_FILES */
        unsigned nfds;
        void *bufs; /* depth buffers of buf_size bytes, contiguous and page aligned */
        size_t buf_size;
} engine_setup_t;

/* queue() results. */
enum {
        ENGINE_COMPLETED = 0, /* the I/O is done and its result set */
        ENGINE_QUEUED = 1,    /* it completes later and comes back through getevents() */
        ENGINE_BUSY = 2,      /* not taken: commit and reap, then queue it again */
};

/* Engine flags. */
enum {
        ENGINE_NO_FILES = 1u << 0, /* the engine does no file I/O (null): nothing to lay out */
        ENGINE_SYNC = 1u << 1,     /* queue() always completes: the worker's synchronous loop */
        /* The files live behind the engine (an NFS export), not in the agent's filesystem: the
         * worker lays them out and opens them through open_file(), never with open(2). */
        ENGINE_OWN_FILES = 1u << 2,
        /* fio's file and directory operation engines (filecreate, filestat, ...): the files are
         * never opened for I/O; file_op() acts on each file as a pass over it begins, its
         * latency is the job's completion latency, and queue() moves no data (fio's fake I/O:
         * the file's blocks count as done, without latencies of their own). */
        ENGINE_FILE_OPS = 1u << 3,
        ENGINE_NO_LAYOUT = 1u << 4,  /* the job's files are not laid out (the engine makes them) */
        ENGINE_DIR_LAYOUT = 1u << 5, /* the job's "files" are laid out as empty directories */
        ENGINE_RDWR = 1u << 6,       /* files open read-write even for reads (falloc) */
};

/* A file as open_file() gets it (ENGINE_OWN_FILES). */
typedef struct engine_file {
        const char *path; /* as layout_plan() made it, relative to where the engine's files live */
        uint64_t length;  /* layout: the length the file must have; 0: it must exist as it is */
        bool layout;      /* lay it out (as layout_file()) and close it; else open it for I/O */
        bool fill;        /* layout: missing data is written, not only reserved */
        bool readonly;    /* never create, extend or write */
        bool writes;      /* open: the job writes to it */
        uint64_t seed;    /* layout: the data written */
        const int *stop;  /* layout: -ECANCELED soon after *stop becomes non-zero */
        uint64_t *done;   /* layout: bytes done, as layout_file() counts them (may be NULL) */
} engine_file_t;

/* init() returns this (>= 0) when, for this setup, queue() will always complete (fio's null
 * engine at iodepth=1): the worker then runs its synchronous loop, with no submission latency. */
#define ENGINE_INIT_SYNC 1

typedef struct engine_ops {
        unsigned version; /* ENGINE_OPS_VERSION */
        const char *name;
        unsigned flags;
        /* Per-worker state in *data. 0, ENGINE_INIT_SYNC, or -errno (with *data untouched). */
        int (*init)(const engine_setup_t *setup, void **data);
        /* Called only once no I/O is in flight. NULL-safe on data. */
        void (*cleanup)(void *data);
        /* Takes one I/O: ENGINE_COMPLETED, ENGINE_QUEUED, ENGINE_BUSY or -errno (not taken). */
        int (*queue)(void *data, io_unit_t *io);
        /* Async engines. commit() submits what queue() took, in order, and returns how many I/Os
         * it took (each comes back through getevents(), a failed submission with its -errno as
         * result) or -errno when it could take none (-EAGAIN: reap, then commit again). */
        int (*commit)(void *data);
        /* Reaps at least min (fewer only when timeout_ns passes; < 0 waits for ever) and at most
         * max completions; returns how many, or -errno. With timeout_ns == 0 it looks only at
         * completions already there (a user-space ring) and never enters the kernel. event(data,
         * i) for i below that number gives each, with its result set, until the next
         * getevents(). */
        int (*getevents)(void *data, unsigned min, unsigned max, int64_t timeout_ns);
        io_unit_t *(*event)(void *data, unsigned i);
        /* ENGINE_OWN_FILES: init() runs before layout, then open_file() lays out (f->layout) or
         * opens the file f->path as file index (io_unit_t.file) and sets *size to its size. 0 or
         * -errno with one line in err. NULL for other engines. */
        int (*open_file)(void *data, unsigned index, const engine_file_t *f, uint64_t *size,
                         char *err, size_t errlen);
        /* Optional (ENGINE_OWN_FILES): fsync (datasync false) or fdatasync of file index, called
         * with nothing in flight. 0 or -errno with one line in err. */
        int (*sync)(void *data, unsigned index, bool datasync, char *err, size_t errlen);
        /* ENGINE_FILE_OPS: the operation on file name in the directory dirfd (opened through
         * the path policy; the engine acts with *at() calls that never follow a final link).
         * 0 or -errno. */
        int (*file_op)(void *data, int dirfd, const char *name);
} engine_ops_t;

/* The engine called name, or NULL. */
const engine_ops_t *engine_find(const char *name);
/* Names of all engines, NULL-terminated, for Hello. */
const char *const *engine_names(void);
