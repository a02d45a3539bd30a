/* io_submit_mode=offload: a pool of threads doing a worker's I/Os through a synchronous engine,
 * so that the worker issues at its pace whatever the device's. */
#include "offload.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "clock.h"
#include "util.h"

struct offload {
        const engine_ops_t *e;
        void *ed;
        unsigned nthreads, started;
        pthread_t *threads;
        pthread_mutex_t lock;
        pthread_cond_t work, done_cond;
        io_unit_t **todo, **done; /* rings of nthreads entries */
        unsigned todo_head, todo_n, done_head, done_n;
        bool quit;
};

static void *pool_main(void *arg)
{
        offload_t *o = arg;

        for (;;) {
                io_unit_t *io;
                int r;
                pthread_mutex_lock(&o->lock);
                while (!o->todo_n && !o->quit)
                        pthread_cond_wait(&o->work, &o->lock);
                if (!o->todo_n) {
                        pthread_mutex_unlock(&o->lock);
                        return NULL;
                }
                io = o->todo[o->todo_head];
                o->todo_head = (o->todo_head + 1) % o->nthreads;
                o->todo_n--;
                pthread_mutex_unlock(&o->lock);

                io->issue_ns = clock_mono_ns();
                r = o->e->queue(o->ed, io);
                if (r < 0)
                        io->result = r;
                else if (r != ENGINE_COMPLETED)
                        io->result = -EINVAL; /* not a synchronous engine: refused up front */
                io->done_ns = clock_mono_ns();

                pthread_mutex_lock(&o->lock);
                o->done[(o->done_head + o->done_n) % o->nthreads] = io;
                o->done_n++;
                pthread_cond_signal(&o->done_cond);
                pthread_mutex_unlock(&o->lock);
        }
}

int offload_new(const engine_ops_t *e, void *ed, unsigned nthreads, offload_t **ret)
{
        offload_t *o = calloc(1, sizeof(*o));
        pthread_condattr_t ca;
        int r = 0;

        if (!o)
                return -ENOMEM;
        o->e = e;
        o->ed = ed;
        o->nthreads = nthreads ? nthreads : 1;
        o->threads = calloc(o->nthreads, sizeof(*o->threads));
        o->todo = calloc(o->nthreads, sizeof(*o->todo));
        o->done = calloc(o->nthreads, sizeof(*o->done));
        pthread_mutex_init(&o->lock, NULL);
        pthread_cond_init(&o->work, NULL);
        pthread_condattr_init(&ca);
        pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
        pthread_cond_init(&o->done_cond, &ca);
        pthread_condattr_destroy(&ca);
        if (!o->threads || !o->todo || !o->done)
                r = -ENOMEM;
        for (unsigned i = 0; r == 0 && i < o->nthreads; i++) {
                r = -pthread_create(&o->threads[i], NULL, pool_main, o);
                if (r == 0)
                        o->started++;
        }
        if (r < 0) {
                offload_destroy(&o);
                return r;
        }
        *ret = o;
        return 0;
}

void offload_submit(offload_t *o, io_unit_t *io)
{
        pthread_mutex_lock(&o->lock);
        o->todo[(o->todo_head + o->todo_n) % o->nthreads] = io;
        o->todo_n++;
        pthread_cond_signal(&o->work);
        pthread_mutex_unlock(&o->lock);
}

unsigned offload_reap(offload_t *o, io_unit_t **out, unsigned max, int64_t timeout_ns)
{
        unsigned n = 0;

        pthread_mutex_lock(&o->lock);
        if (!o->done_n && timeout_ns > 0) {
                int64_t until = clock_mono_ns() + timeout_ns;
                struct timespec ts = {.tv_sec = until / (int64_t)NSEC_PER_SEC,
                                      .tv_nsec = until % (int64_t)NSEC_PER_SEC};
                while (!o->done_n &&
                       pthread_cond_timedwait(&o->done_cond, &o->lock, &ts) != ETIMEDOUT)
                        ;
        }
        while (o->done_n && n < max) {
                out[n++] = o->done[o->done_head];
                o->done_head = (o->done_head + 1) % o->nthreads;
                o->done_n--;
        }
        pthread_mutex_unlock(&o->lock);
        return n;
}

void offload_destroy(offload_t **op)
{
        offload_t *o = *op;
        if (!o)
                return;
        pthread_mutex_lock(&o->lock);
        o->quit = true;
        pthread_cond_broadcast(&o->work);
        pthread_mutex_unlock(&o->lock);
        for (unsigned i = 0; i < o->started; i++)
                pthread_join(o->threads[i], NULL);
        pthread_mutex_destroy(&o->lock);
        pthread_cond_destroy(&o->work);
        pthread_cond_destroy(&o->done_cond);
        free(o->threads);
        free(o->todo);
        free(o->done);
        free(o);
        *op = NULL;
}
