/* mmap engine: each file mapped whole (MAP_SHARED) and I/O copied to or from the mapping, as
 * fio's mmap; the access pattern goes to madvise(). A file that shrinks under the mapping would
 * make the copy fault with SIGBUS: the fault is caught and the I/O fails with EIO instead of the
 * agent dying. */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "engine.h"

typedef struct mapping {
        char *p;
        uint64_t len;
} mapping_t;

typedef struct mmap_data {
        unsigned n;
        mapping_t *maps;
} mmap_data_t;

/* The copy in progress on this thread, if any: where a SIGBUS returns to. */
static __thread sigjmp_buf *copy_jump;
static pthread_mutex_t handler_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sigaction previous_bus;

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
        if (copy_jump)
                siglongjmp(*copy_jump, 1);
        /* not ours: as it would have been without the engine */
        sigaction(SIGBUS, &previous_bus, NULL);
        raise(sig);
        (void)si;
        (void)uc;
}

/* Installs the handler unless it is in place already (checked at every job: something else in the
 * process may have put its own since), keeping the one it replaces for faults not ours. */
static void install_handler(void)
{
        struct sigaction sa, cur;

        pthread_mutex_lock(&handler_lock);
        if (sigaction(SIGBUS, NULL, &cur) == 0 &&
            !((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == on_sigbus)) {
                memset(&sa, 0, sizeof(sa));
                sa.sa_sigaction = on_sigbus;
                sa.sa_flags = SA_SIGINFO | SA_NODEFER;
                sigemptyset(&sa.sa_mask);
                sigaction(SIGBUS, &sa, &previous_bus);
        }
        pthread_mutex_unlock(&handler_lock);
}

static void mmap_cleanup(void *data)
{
        mmap_data_t *d = data;
        if (!d)
                return;
        for (unsigned i = 0; i < d->n; i++)
                if (d->maps[i].p)
                        munmap(d->maps[i].p, d->maps[i].len);
        free(d->maps);
        free(d);
}

static int mmap_init(const engine_setup_t *setup, void **data)
{
        const job_spec_t *j = setup->job;
        bool writes = j && (j->rw != RW_READ && j->rw != RW_RANDREAD);
        bool random = j && (j->rw == RW_RANDREAD || j->rw == RW_RANDWRITE || j->rw == RW_RANDRW);
        mmap_data_t *d = calloc(1, sizeof(*d));

        if (!d)
                return -ENOMEM;
        install_handler();
        d->n = setup->nfds;
        d->maps = calloc(d->n ? d->n : 1, sizeof(*d->maps));
        if (!d->maps) {
                free(d);
                return -ENOMEM;
        }
        for (unsigned i = 0; i < d->n; i++) {
                struct stat st;
                void *p;
                if (fstat(setup->fds[i], &st) < 0) {
                        int e = -errno;
                        mmap_cleanup(d);
                        return e;
                }
                if (st.st_size == 0)
                        continue;
                p = mmap(NULL, (size_t)st.st_size, PROT_READ | (writes ? PROT_WRITE : 0),
                         MAP_SHARED, setup->fds[i], 0);
                if (p == MAP_FAILED) {
                        int e = -errno;
                        mmap_cleanup(d);
                        return e;
                }
                madvise(p, (size_t)st.st_size, random ? MADV_RANDOM : MADV_SEQUENTIAL);
                d->maps[i] = (mapping_t){p, (uint64_t)st.st_size};
        }
        *data = d;
        return ENGINE_INIT_SYNC;
}

static int mmap_queue(void *data, io_unit_t *io)
{
        mmap_data_t *d = data;
        mapping_t *m = io->file < d->n ? &d->maps[io->file] : NULL;
        sigjmp_buf jb;

        if (!m || !m->p || io->offset > m->len || io->len > m->len - io->offset) {
                io->result = -EINVAL;
                return ENGINE_COMPLETED;
        }
        if (sigsetjmp(jb, 1)) {
                copy_jump = NULL;
                io->result = -EIO;
                return ENGINE_COMPLETED;
        }
        copy_jump = &jb;
        if (io->ddir == DDIR_WRITE)
                memcpy(m->p + io->offset, io->buf, io->len);
        else
                memcpy(io->buf, m->p + io->offset, io->len);
        copy_jump = NULL;
        io->result = (int64_t)io->len;
        return ENGINE_COMPLETED;
}

const engine_ops_t engine_mmap = {
    .version = ENGINE_OPS_VERSION,
    .name = "mmap",
    .flags = ENGINE_SYNC,
    .init = mmap_init,
    .cleanup = mmap_cleanup,
    .queue = mmap_queue,
};
