/* Connections against file descriptors: counts the coordinator's connections through socket
 * monitors and stops accepting agents' connections before descriptors run out (libzmq aborts
 * when an ipc accept meets EMFILE, and spins when a tcp accept does). */
#include "connguard.h"

#include <dirent.h>
#include <errno.h>
#include <linux/filter.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <zmq.h>

#include "log.h"
#include "sock.h"
#include "util.h"

#define EVENTS                                                                                     \
        (ZMQ_EVENT_LISTENING | ZMQ_EVENT_ACCEPTED | ZMQ_EVENT_ACCEPT_FAILED |                      \
         ZMQ_EVENT_DISCONNECTED | ZMQ_EVENT_HANDSHAKE_SUCCEEDED |                                  \
         ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL | ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL |              \
         ZMQ_EVENT_HANDSHAKE_FAILED_AUTH)

/* One monitored socket. Its counters are written by the thread and read by the loop. */
typedef struct side {
        const char *name;
        void *mon;
        unsigned max, resume;
        int listen_fd; /* its tcp listening socket, -1 until the monitor names one */
        unsigned open;
        bool paused, full;
        uint64_t accepted, handshakes, handshake_failed, auth_failed, accept_failed, pauses,
            rebinds;
} side_t;

enum { AGENTS, CONTROL, ENROLL, SIDES };

struct connguard {
        connguard_budget_t b;
        side_t side[SIDES];
        pthread_t thread;
        bool started, stop, quiesced;
};

#define LOAD(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#define STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)
#define ADD(p, v) __atomic_add_fetch((p), (v), __ATOMIC_RELAXED)

int connguard_raise_nofile(unsigned *nofile)
{
        struct rlimit rl;
        if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
                return -errno;
        if (rl.rlim_cur < rl.rlim_max) {
                rlim_t cur = rl.rlim_cur;
                rl.rlim_cur = rl.rlim_max;
                if (setrlimit(RLIMIT_NOFILE, &rl) < 0) {
                        int r = -errno;
                        *nofile = cur > UINT32_MAX ? UINT32_MAX : (unsigned)cur;
                        return r;
                }
        }
        *nofile = rl.rlim_cur > UINT32_MAX ? UINT32_MAX : (unsigned)rl.rlim_cur;
        return 0;
}

int connguard_fds_in_use(void)
{
        DIR *d = opendir("/proc/self/fd");
        struct dirent *de;
        int n = 0;
        if (!d)
                return -errno;
        while ((de = readdir(d)))
                if (de->d_name[0] != '.')
                        n++;
        closedir(d);
        return n - 1; /* not the directory's own descriptor */
}

static unsigned clamp(unsigned v, unsigned lo, unsigned hi)
{
        return v < lo ? lo : v > hi ? hi : v;
}

void connguard_budget(unsigned nofile, unsigned in_use, connguard_budget_t *b)
{
        unsigned avail = nofile > in_use ? nofile - in_use : 0, spent;

        memset(b, 0, sizeof(*b));
        b->nofile = nofile;
        b->metrics_max = clamp(avail / 16, 4, 256);
        b->control_max = clamp(avail / 16, 4, 256);
        /* Enrolments are rare and short: a small share, so that a token holder's flood of them
         * takes nothing from the agents. */
        b->enroll_max = clamp(avail / 64, 4, 64);
        /* Connections already queued when accepting pauses still come in: the backlog is part
         * of what the reserve must absorb. A fleet (re)starting connects thousands of agents
         * at once: a short queue drops their SYNs, retried 1, 3, 7 s later. */
        b->backlog = clamp(avail / 16, 4, 2048);
        b->reserve = clamp(avail / 8, 32, 1024);
        spent = b->metrics_max + b->control_max + b->enroll_max + b->backlog + b->reserve;
        b->agents_max = avail > spent + 4 ? avail - spent : 4;
        b->agents_resume = b->agents_max * 3 / 4;
}

static int monitor(void *ctx, void *sock, side_t *sd)
{
        char ep[64];
        int linger = 0;

        snprintf(ep, sizeof(ep), "inproc://connguard-%s", sd->name);
        if (zmq_socket_monitor(sock, ep, EVENTS) < 0)
                return -errno;
        if (!(sd->mon = zmq_socket(ctx, ZMQ_PAIR)))
                return -errno;
        zmq_setsockopt(sd->mon, ZMQ_LINGER, &linger, sizeof(linger));
        if (zmq_connect(sd->mon, ep) < 0)
                return -errno;
        return 0;
}

int connguard_new(void *ctx, void *agents_sock, void *control_sock, void *enroll_sock,
                  const connguard_budget_t *b, connguard_t **ret)
{
        connguard_t *g = calloc(1, sizeof(*g));
        int r;

        if (!g)
                return -ENOMEM;
        g->b = *b;
        g->side[AGENTS] = (side_t){.name = "agents", .max = b->agents_max,
                                   .resume = b->agents_resume, .listen_fd = -1};
        g->side[CONTROL] = (side_t){.name = "control", .max = b->control_max,
                                    .resume = b->control_max * 3 / 4, .listen_fd = -1};
        g->side[ENROLL] = (side_t){.name = "enroll", .max = b->enroll_max,
                                   .resume = b->enroll_max * 3 / 4, .listen_fd = -1};
        if ((r = monitor(ctx, agents_sock, &g->side[AGENTS])) < 0 ||
            (r = monitor(ctx, control_sock, &g->side[CONTROL])) < 0 ||
            (enroll_sock && (r = monitor(ctx, enroll_sock, &g->side[ENROLL])) < 0)) {
                connguard_free(&g);
                return r;
        }
        *ret = g;
        return 0;
}

/* A listening socket with a filter that drops every packet takes no new connection: a client's
 * SYN goes unanswered (it retries) while established connections keep their own sockets. */
static void set_paused(connguard_t *g, side_t *sd, bool pause)
{
        static struct sock_filter drop[] = {BPF_STMT(BPF_RET | BPF_K, 0)};
        struct sock_fprog prog = {ELEMENTSOF(drop), drop};
        int zero = 0, r;

        if (LOAD(&g->quiesced) || pause == LOAD(&sd->paused))
                return;
        if (sd->listen_fd < 0) {
                /* ipc: a filter does not stop connect(); the loop re-binds the endpoint. */
                if (pause)
                        STORE(&sd->full, true);
                return;
        }
        r = pause ? setsockopt(sd->listen_fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog))
                  : setsockopt(sd->listen_fd, SOL_SOCKET, SO_DETACH_FILTER, &zero, sizeof(zero));
        if (r < 0) {
                log_debug("%s endpoint: cannot %s accepting: %m", sd->name,
                          pause ? "pause" : "resume");
                return;
        }
        STORE(&sd->paused, pause);
        if (pause)
                ADD(&sd->pauses, 1);
}

static void on_event(connguard_t *g, side_t *sd, uint16_t ev, uint32_t val, const char *ep)
{
        switch (ev) {
        case ZMQ_EVENT_LISTENING:
                sd->listen_fd = strncmp(ep, "tcp://", 6) == 0 ? (int)val : -1;
                break;
        case ZMQ_EVENT_ACCEPTED:
                ADD(&sd->accepted, 1);
                if (ADD(&sd->open, 1) >= sd->max)
                        set_paused(g, sd, true);
                break;
        case ZMQ_EVENT_DISCONNECTED: {
                unsigned n = LOAD(&sd->open);
                if (n)
                        STORE(&sd->open, n - 1);
                if (n <= sd->resume + 1)
                        set_paused(g, sd, false);
                break;
        }
        case ZMQ_EVENT_ACCEPT_FAILED:
                ADD(&sd->accept_failed, 1);
                /* Out of descriptors after all: no more connection requests until some close. */
                if (val == EMFILE || val == ENFILE)
                        set_paused(g, sd, true);
                break;
        case ZMQ_EVENT_HANDSHAKE_SUCCEEDED:
                ADD(&sd->handshakes, 1);
                break;
        case ZMQ_EVENT_HANDSHAKE_FAILED_AUTH:
                ADD(&sd->auth_failed, 1);
                break;
        case ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL:
        case ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL:
                ADD(&sd->handshake_failed, 1);
                break;
        }
}

/* libzmq's I/O thread blocks on a monitor that is not read: this thread reads nothing else. */
static void *guard_thread(void *arg)
{
        connguard_t *g = arg;
        while (!LOAD(&g->stop)) {
                zmq_pollitem_t items[SIDES];
                side_t *sides[SIDES];
                uint16_t ev;
                uint32_t val;
                char ep[256];
                int n = 0;
                for (int i = 0; i < SIDES; i++)
                        if (g->side[i].mon) {
                                sides[n] = &g->side[i];
                                items[n++] = (zmq_pollitem_t){g->side[i].mon, 0, ZMQ_POLLIN, 0};
                        }
                if (zmq_poll(items, n, 100) < 0 && errno != EINTR)
                        break;
                for (int i = 0; i < n; i++)
                        while (sock_monitor_event(sides[i]->mon, &ev, &val, ep, sizeof(ep)) == 0)
                                on_event(g, sides[i], ev, val, ep);
        }
        return NULL;
}

int connguard_start(connguard_t *g)
{
        sigset_t all, old;
        int r;
        /* Signals stay with the main loop's signalfd. */
        sigfillset(&all);
        pthread_sigmask(SIG_BLOCK, &all, &old);
        r = -pthread_create(&g->thread, NULL, guard_thread, g);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        if (r == 0)
                g->started = true;
        return r;
}

void connguard_stats(connguard_t *g, connguard_stats_t *s)
{
        side_t *a = &g->side[AGENTS], *c = &g->side[CONTROL];
        s->agents_open = LOAD(&a->open);
        s->control_open = LOAD(&c->open);
        s->enroll_open = LOAD(&g->side[ENROLL].open);
        s->paused = LOAD(&a->paused);
        s->accepted = LOAD(&a->accepted);
        s->handshakes = LOAD(&a->handshakes);
        s->handshake_failed = LOAD(&a->handshake_failed);
        s->auth_failed = LOAD(&a->auth_failed);
        s->accept_failed = LOAD(&a->accept_failed) + LOAD(&c->accept_failed) +
                           LOAD(&g->side[ENROLL].accept_failed);
        s->pauses = LOAD(&a->pauses) + LOAD(&c->pauses) + LOAD(&g->side[ENROLL].pauses);
        s->control_rebinds = LOAD(&c->rebinds);
        s->control_paused = LOAD(&c->paused);
}

bool connguard_control_full(connguard_t *g)
{
        return __atomic_exchange_n(&g->side[CONTROL].full, false, __ATOMIC_RELAXED);
}

void connguard_control_rebound(connguard_t *g)
{
        ADD(&g->side[CONTROL].rebinds, 1);
}

void connguard_quiesce(connguard_t *g)
{
        if (g)
                STORE(&g->quiesced, true);
}

void connguard_free(connguard_t **gp)
{
        connguard_t *g = *gp;
        if (!g)
                return;
        if (g->started) {
                STORE(&g->stop, true);
                pthread_join(g->thread, NULL);
        }
        for (int i = 0; i < SIDES; i++)
                if (g->side[i].mon)
                        zmq_close(g->side[i].mon);
        free(g);
        *gp = NULL;
}
