/* Connections against file descriptors: counts the coordinator's connections through socket
 * monitors and stops accepting agents' connections before descriptors run out (libzmq aborts
 * when an ipc accept meets EMFILE, and spins when a tcp accept does). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/* How the descriptors are shared out. */
typedef struct connguard_budget {
        unsigned nofile;        /* the soft RLIMIT_NOFILE */
        unsigned agents_max;    /* agents' connections before accepting pauses */
        unsigned agents_resume; /* ... and resumes when they are down to this */
        unsigned control_max;   /* CLI connections before the control endpoint is re-bound */
        unsigned enroll_max;    /* enrolment connections before accepting them pauses */
        unsigned metrics_max;   /* /metrics connections (libmicrohttpd's limit) */
        unsigned backlog;       /* listen backlog of the agents endpoint */
        unsigned reserve;       /* kept for the coordinator's own files */
} connguard_budget_t;

/* Raises the soft RLIMIT_NOFILE to the hard limit; the soft limit now in force goes to *nofile.
 * 0 or -errno (then *nofile is the limit unchanged). */
int connguard_raise_nofile(unsigned *nofile);
/* Descriptors this process has open now (counted in /proc/self/fd), or -errno. */
int connguard_fds_in_use(void);
/* Shares out nofile descriptors of which in_use are taken already. Pure. */
void connguard_budget(unsigned nofile, unsigned in_use, connguard_budget_t *b);

typedef struct connguard_stats {
        unsigned agents_open, control_open; /* connections open now */
        unsigned enroll_open;               /* ... on the enrolment endpoint */
        bool paused;                        /* agents' connections not accepted now */
        bool control_paused;                /* tcp control connections not accepted now */
        uint64_t accepted;                  /* agents' connections accepted, ever */
        uint64_t handshakes;                /* ... that completed the CURVE handshake */
        uint64_t handshake_failed;          /* ... that failed it or timed out */
        uint64_t auth_failed;               /* ... whose key the allow-list refused */
        uint64_t accept_failed;             /* accept() errors (EMFILE...) */
        uint64_t pauses;                    /* times accepting was paused */
        uint64_t control_rebinds;           /* times the control endpoint was re-bound */
} connguard_stats_t;

typedef struct connguard connguard_t;

/* Monitors agents_sock, control_sock and enroll_sock (sockets of ctx; enroll_sock may be NULL).
 * Call it before binding them: the monitor must see their listeners open. 0 or -errno. */
int connguard_new(void *ctx, void *agents_sock, void *control_sock, void *enroll_sock,
                  const connguard_budget_t *b, connguard_t **ret);
/* Starts the thread that reads the monitors: it counts connections and, at agents_max (or
 * control_max, enroll_max), makes a tcp listening socket drop new connection requests (a socket filter:
 * established connections are untouched) until the count is back at three quarters. */
int connguard_start(connguard_t *g);
void connguard_stats(connguard_t *g, connguard_stats_t *s);
/* True once each time an ipc control socket reaches control_max connections: the caller
 * re-binds its endpoint, which closes them all (a socket filter cannot refuse ipc connections). */
bool connguard_control_full(connguard_t *g);
void connguard_control_rebound(connguard_t *g);
/* Stops touching the listening socket (before the sockets are closed); the thread keeps reading
 * the monitors so that libzmq never blocks on them. */
void connguard_quiesce(connguard_t *g);
/* Stops the thread and closes the monitors; call after closing the monitored sockets and before
 * terminating the context. NULL-safe. */
void connguard_free(connguard_t **gp);
