/* sync engine: read/write after lseek, as fio's sync (the seek is skipped when the file is
 * already there, as fio skips it). */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "engine.h"

typedef struct sync_data {
        unsigned nfds;
        uint64_t *pos; /* each file's position; UINT64_MAX when unknown */
} sync_data_t;

static int sync_init(const engine_setup_t *setup, void **data)
{
        sync_data_t *d = calloc(1, sizeof(*d));
        if (!d)
                return -ENOMEM;
        d->nfds = setup->nfds;
        d->pos = calloc(setup->nfds ? setup->nfds : 1, sizeof(*d->pos));
        if (!d->pos) {
                free(d);
                return -ENOMEM;
        }
        for (unsigned i = 0; i < setup->nfds; i++)
                d->pos[i] = UINT64_MAX;
        *data = d;
        return ENGINE_INIT_SYNC;
}

static void sync_cleanup(void *data)
{
        sync_data_t *d = data;
        if (!d)
                return;
        free(d->pos);
        free(d);
}

static int sync_queue(void *data, io_unit_t *io)
{
        sync_data_t *d = data;
        uint64_t *pos = io->file < d->nfds ? &d->pos[io->file] : NULL;
        ssize_t n;

        if (!pos || *pos != io->offset) {
                if (lseek(io->fd, (off_t)io->offset, SEEK_SET) < 0) {
                        io->result = -errno;
                        if (pos)
                                *pos = UINT64_MAX;
                        return ENGINE_COMPLETED;
                }
        }
        do
                n = io->ddir == DDIR_WRITE ? write(io->fd, io->buf, io->len)
                                           : read(io->fd, io->buf, io->len);
        while (n < 0 && errno == EINTR);
        io->result = n < 0 ? -errno : n;
        if (pos)
                *pos = n < 0 ? UINT64_MAX : io->offset + (uint64_t)n;
        return ENGINE_COMPLETED;
}

const engine_ops_t engine_sync = {
    .version = ENGINE_OPS_VERSION,
    .name = "sync",
    .flags = ENGINE_SYNC,
    .init = sync_init,
    .cleanup = sync_cleanup,
    .queue = sync_queue,
};
