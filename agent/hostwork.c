/* Host work off the agent's poll loop: one thread per work, an eventfd when it is done. */
#include "hostwork.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mount.h>
#include <unistd.h>

#include "host.h"
#include "log.h"
#include "util.h"

struct hostwork {
        hostwork_job_t job;
        pthread_t thread;
        bool running; /* a thread to join */
        bool done;
        int efd;
        int rc;
        char err[1024];
};

static int server(hostwork_t *w)
{
        const Iofleet__Prepare *p = w->job.prepare;
        kvlist_t settings = {0}, sysctls = {0};
        int rc;
        if ((rc = host_settings(p->server, p->n_server, &settings)) < 0 ||
            (rc = host_settings(p->sysctls, p->n_sysctls, &sysctls)) < 0)
                snprintf(w->err, sizeof(w->err), "out of memory");
        else
                rc = host_prepare_server(w->job.cfg, w->job.restore, &settings, &sysctls,
                                         w->job.effective, w->err, sizeof(w->err));
        kv_clear(&settings);
        kv_clear(&sysctls);
        return rc;
}

static void *work(void *arg)
{
        hostwork_t *w = arg;
        uint64_t one = 1;
        switch (w->job.kind) {
        case HOSTWORK_SERVER:
                w->rc = server(w);
                break;
        case HOSTWORK_CLIENT:
                w->rc = host_prepare_client(w->job.cfg, w->job.restore, w->job.prepare,
                                            w->job.mountpoint, w->job.mplen, w->job.effective,
                                            w->err, sizeof(w->err));
                break;
        case HOSTWORK_FORCE:
                w->rc = umount2(w->job.mountpoint, MNT_FORCE) < 0 ? -errno : 0;
                if (w->rc < 0)
                        snprintf(w->err, sizeof(w->err), "%s", strerror(-w->rc));
                break;
        case HOSTWORK_TEARDOWN:
                w->rc = host_teardown(w->job.restore, w->job.effective);
                if (w->rc < 0)
                        snprintf(w->err, sizeof(w->err), "%s",
                                 kv_get(w->job.effective, "restored")
                                     ? kv_get(w->job.effective, "restored")
                                     : strerror(-w->rc));
                break;
        }
        __atomic_store_n(&w->done, true, __ATOMIC_RELEASE);
        if (write(w->efd, &one, sizeof(one)) < 0)
                log_warning("host work: cannot wake the agent's loop: %m");
        return NULL;
}

int hostwork_new(hostwork_t **ret)
{
        hostwork_t *w = calloc(1, sizeof(*w));
        if (!w)
                return -ENOMEM;
        w->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        if (w->efd < 0) {
                int r = -errno;
                free(w);
                return r;
        }
        *ret = w;
        return 0;
}

void hostwork_wait(hostwork_t *w)
{
        uint64_t v;
        if (!w || !w->running)
                return;
        pthread_join(w->thread, NULL);
        w->running = false;
        if (read(w->efd, &v, sizeof(v)) < 0 && errno != EAGAIN)
                log_debug("host work: eventfd: %m");
}

void hostwork_free(hostwork_t **wp)
{
        hostwork_t *w = *wp;
        if (!w)
                return;
        hostwork_wait(w);
        close(w->efd);
        free(w);
        *wp = NULL;
}

int hostwork_fd(const hostwork_t *w)
{
        return w ? w->efd : -1;
}

bool hostwork_busy(const hostwork_t *w)
{
        return w && w->running;
}

int hostwork_start(hostwork_t *w, const hostwork_job_t *job)
{
        int r;
        if (w->running)
                return -EBUSY;
        w->job = *job;
        w->rc = 0;
        w->err[0] = 0;
        w->done = false;
        r = pthread_create(&w->thread, NULL, work, w);
        if (r != 0)
                return -r;
        w->running = true;
        return 0;
}

int hostwork_collect(hostwork_t *w, hostwork_kind_t *kind, int *rc, char *err, size_t errlen)
{
        if (!w->running || !__atomic_load_n(&w->done, __ATOMIC_ACQUIRE))
                return -EAGAIN;
        hostwork_wait(w);
        *kind = w->job.kind;
        *rc = w->rc;
        snprintf(err, errlen, "%s", w->err);
        return 0;
}
