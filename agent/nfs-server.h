/* NFS server backends behind one interface: kernel nfsd and NFS-Ganesha. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "agent-config.h"
#include "kv.h"
#include "restore.h"

typedef struct nfs_backend {
        const char *name; /* "kernel", "ganesha": the plan's [server] backend= */
        /* Saves what it changes into r (before changing it), writes the backend's files,
         * restarts what must be restarted, and reads back what took effect into effective
         * (e.g. "export" -> the export as the server lists it, "threads" -> "160").
         * settings were checked with nfs_settings_check(). 0 or -errno with err set. */
        int (*apply)(const agent_config_t *cfg, restore_t *r, const kvlist_t *settings,
                     kvlist_t *effective, char *err, size_t errlen);
        /* How restore_apply() brings this backend's service back. */
        const restore_service_ops_t *(*service)(const agent_config_t *cfg);
} nfs_backend_t;

/* The backend called name, or NULL. */
const nfs_backend_t *nfs_backend_find(const char *name);
/* Registers every backend's service ops with r (before restore_apply() of an old record). */
int nfs_backends_register(const agent_config_t *cfg, restore_t *r);

/* Helpers the backends share (agent/nfs-server.c). */
/* The most the backends read of one file (a config, a pid file, ganesha's log). */
#define NFS_FILE_MAX (16u << 20)
/* Reads a whole regular file (read_full_file(), at most NFS_FILE_MAX) into *data (NUL
 * terminated, malloc'd); 0, -ENOENT, -EFBIG or -errno. */
int nfs_read_file(const char *path, char **data, size_t *len);
/* Whether a system bus with systemd on it answers; why says what is missing when not. */
bool nfs_systemd_available(char *why, size_t whylen);
/* Whether systemd reports unit active ("active", "activating", "reloading"); 0 or -errno. */
int nfs_systemd_unit_active(const char *unit, bool *active, char *err, size_t errlen);
/* Runs Manager.RestartUnit or StopUnit ("restart", "stop") and waits (bounded) until the unit
 * is active (restart) or inactive (stop); 0 or -errno with err naming the unit and its state. */
int nfs_systemd_unit_do(const char *unit, const char *what, char *err, size_t errlen);
