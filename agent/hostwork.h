/* Host work off the agent's poll loop: configuring the NFS server, a client's sysctls and mount,
 * and putting the host back (an unmount may wait a minute for a busy server), each on a thread
 * of its own so that the agent keeps its heartbeats meanwhile. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "agent-config.h"
#include "kv.h"
#include "restore.h"
#include "wire.h"

typedef enum hostwork_kind {
        HOSTWORK_SERVER,   /* host_prepare_server() for a server's Prepare */
        HOSTWORK_CLIENT,   /* host_prepare_client(): sysctls, the mount */
        HOSTWORK_TEARDOWN, /* host_teardown(): everything back */
        HOSTWORK_FORCE,    /* umount2(mountpoint, MNT_FORCE): the mount's pending requests fail,
                            * so workers blocked on a dead server return (they still hold their
                            * files: EBUSY is the expected answer) */
} hostwork_kind_t;

typedef struct hostwork hostwork_t;

/* What the work reads and writes; it must stay alive (and untouched by the loop) until the work
 * is collected. */
typedef struct hostwork_job {
        hostwork_kind_t kind;
        const agent_config_t *cfg;
        restore_t *restore;
        const Iofleet__Prepare *prepare; /* SERVER, CLIENT */
        kvlist_t *effective;             /* what took effect; "restored" after a teardown */
        char *mountpoint;                /* CLIENT: the mount's path, "" without one; FORCE */
        size_t mplen;
} hostwork_job_t;

int hostwork_new(hostwork_t **ret);
/* Waits for a running work, then frees. NULL-safe. */
void hostwork_free(hostwork_t **wp);
/* Readable when a work is done. */
int hostwork_fd(const hostwork_t *w);
bool hostwork_busy(const hostwork_t *w);
/* Starts job on a thread; -EBUSY while one runs, else 0 or -errno. */
int hostwork_start(hostwork_t *w, const hostwork_job_t *job);
/* A done work: which, its result, and its error text. 0, or -EAGAIN while it still runs. */
int hostwork_collect(hostwork_t *w, hostwork_kind_t *kind, int *rc, char *err, size_t errlen);
/* Waits for the running work (the agent stops). */
void hostwork_wait(hostwork_t *w);
