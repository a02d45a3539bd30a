/* This agent as the NFS server of a run: configure and put back off the event loop. */
#include "serve.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include "host.h"
#include "log.h"
#include "util.h"

typedef enum serve_state {
        SERVE_APPLYING,
        SERVE_SERVING,
        SERVE_RESTORING,
} serve_state_t;

struct serve_ctx {
        char id[WIRE_MAX_ID + 1];
        agent_t *ag;
        serve_state_t state;
        kvlist_t settings, sysctls, effective;
        pthread_t thread;
        bool thread_running;
        bool stop_requested; /* Stop came while the server was being configured */
        int efd;             /* the thread says it is done */
        int rc;
        char err[1024];
};

static void *apply_thread(void *arg)
{
        serve_ctx_t *s = arg;
        uint64_t one = 1;
        s->rc = host_prepare_server(s->ag->cfg, s->ag->restore, &s->settings, &s->sysctls,
                                    &s->effective, s->err, sizeof(s->err));
        if (write(s->efd, &one, sizeof(one)) < 0)
                log_warning("serve: cannot wake the agent's loop: %m");
        return NULL;
}

static void *restore_thread(void *arg)
{
        serve_ctx_t *s = arg;
        uint64_t one = 1;
        s->rc = host_teardown(s->ag->restore, &s->effective);
        if (write(s->efd, &one, sizeof(one)) < 0)
                log_warning("serve: cannot wake the agent's loop: %m");
        return NULL;
}

static int spawn(serve_ctx_t *s, void *(*fn)(void *))
{
        int r = pthread_create(&s->thread, NULL, fn, s);
        if (r != 0)
                return -r;
        s->thread_running = true;
        return 0;
}

static void join(serve_ctx_t *s)
{
        uint64_t v;
        if (!s->thread_running)
                return;
        pthread_join(s->thread, NULL);
        s->thread_running = false;
        if (read(s->efd, &v, sizeof(v)) < 0 && errno != EAGAIN)
                log_debug("serve: eventfd: %m");
}

static void ctx_free(agent_t *ag)
{
        serve_ctx_t *s = ag->serve;
        if (!s)
                return;
        join(s);
        kv_clear(&s->settings);
        kv_clear(&s->sysctls);
        kv_clear(&s->effective);
        if (s->efd >= 0)
                close(s->efd);
        free(s);
        ag->serve = NULL;
        sd_notify(0, "STATUS=registered; idle");
}

static void send_settings(agent_t *ag, const char *run_id, const kvlist_t *kv, bool finished)
{
        envelope_t e = IOFLEET__ENVELOPE__INIT;
        Iofleet__Prepared p = IOFLEET__PREPARED__INIT;
        Iofleet__Finished f = IOFLEET__FINISHED__INIT;
        time_sample_t best = {};
        if (finished) {
                f.run_id = (char *)run_id;
                e.body_case = IOFLEET__ENVELOPE__BODY_FINISHED;
                e.finished = &f;
                session_send_settings(ag, &e, &f.effective, &f.n_effective, kv);
                return;
        }
        session_best_offset(ag, &best);
        p.run_id = (char *)run_id;
        p.offset_ns = best.offset_ns;
        p.rtt_ns = (uint64_t)best.rtt_ns;
        e.body_case = IOFLEET__ENVELOPE__BODY_PREPARED;
        e.prepared = &p;
        session_send_settings(ag, &e, &p.effective, &p.n_effective, kv);
}

void serve_start(agent_t *ag, const Iofleet__Prepare *p)
{
        serve_ctx_t *s = calloc(1, sizeof(*s));
        int r = -ENOMEM;
        if (!s) {
                session_error(ag, IOFLEET__ERROR_CODE__ERROR_INTERNAL, p->run_id, "out of memory");
                return;
        }
        s->ag = ag;
        s->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        snprintf(s->id, sizeof(s->id), "%s", p->run_id);
        s->state = SERVE_APPLYING;
        ag->serve = s;
        if (s->efd < 0 || host_settings(p->server, p->n_server, &s->settings) < 0 ||
            host_settings(p->sysctls, p->n_sysctls, &s->sysctls) < 0 ||
            (r = spawn(s, apply_thread)) < 0) {
                session_error(ag, IOFLEET__ERROR_CODE__ERROR_INTERNAL, p->run_id,
                              "cannot start configuring the NFS server");
                log_error("run %s: cannot start configuring the NFS server: %s", p->run_id,
                          strerror(-r));
                ctx_free(ag);
                return;
        }
        log_info("run %s: configuring the NFS server", p->run_id);
        sd_notifyf(0, "STATUS=run %s: configuring the NFS server", p->run_id);
}

const char *serve_run_id(const agent_t *ag)
{
        return ag->serve ? ag->serve->id : "";
}

int serve_fd(const agent_t *ag)
{
        return ag->serve ? ag->serve->efd : -1;
}

static void begin_restore(agent_t *ag, const char *why)
{
        serve_ctx_t *s = ag->serve;
        log_info("run %s: %s; putting the NFS server back", s->id, why);
        s->state = SERVE_RESTORING;
        if (spawn(s, restore_thread) < 0) {
                /* No thread: do it here; the coordinator waits a little longer. */
                s->rc = host_teardown(ag->restore, &s->effective);
                send_settings(ag, s->id, &s->effective, true);
                ctx_free(ag);
        }
}

void serve_on_event(agent_t *ag)
{
        serve_ctx_t *s = ag->serve;
        if (!s)
                return;
        join(s);
        switch (s->state) {
        case SERVE_APPLYING:
                if (s->rc < 0) {
                        log_error("run %s: cannot configure the NFS server: %s", s->id, s->err);
                        session_error(ag,
                                      s->rc == -EINVAL || s->rc == -EPERM
                                          ? IOFLEET__ERROR_CODE__ERROR_BAD_JOB
                                          : IOFLEET__ERROR_CODE__ERROR_PREPARE,
                                      s->id, s->err);
                        ctx_free(ag);
                        return;
                }
                log_info("run %s: NFS server configured: %s", s->id,
                         kv_get(&s->effective, "export") ? kv_get(&s->effective, "export") : "");
                s->state = SERVE_SERVING;
                sd_notifyf(0, "STATUS=run %s: serving NFS", s->id);
                send_settings(ag, s->id, &s->effective, false);
                if (s->stop_requested)
                        begin_restore(ag, "stopped while configuring");
                return;
        case SERVE_RESTORING:
                send_settings(ag, s->id, &s->effective, true);
                ctx_free(ag);
                return;
        case SERVE_SERVING:
                return;
        }
}

void serve_stop(agent_t *ag, const char *why)
{
        serve_ctx_t *s = ag->serve;
        if (!s)
                return;
        if (s->state == SERVE_APPLYING)
                s->stop_requested = true;
        else if (s->state == SERVE_SERVING)
                begin_restore(ag, why);
}

void serve_abort(agent_t *ag)
{
        serve_ctx_t *s = ag->serve;
        if (!s)
                return;
        join(s);
        if (ag->restore && restore_pending(ag->restore)) {
                log_info("run %s: putting the NFS server back", s->id);
                host_teardown(ag->restore, &s->effective);
        }
        ctx_free(ag);
}
