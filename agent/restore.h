/* The restore record: what the agent is about to change on this host (files, sysctls,
 * services, mounts, directories it made), written to the state directory and synced before each change, and put
 * back after a step, on abort, on SIGTERM and at the next start after a crash. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

typedef struct restore restore_t;

/* How a service is stopped and started again; registered by the backend that owns it, so that
 * a record written before a crash can be replayed at the next start. kind is the backend's
 * name ("kernel", "ganesha"). */
typedef struct restore_service_ops {
        const char *kind;
        /* Brings the service back to was_running (restarting it when running, so it rereads the
         * files restored just before). 0 or -errno with err set. */
        int (*restore)(void *user, const char *name, bool was_running, char *err, size_t errlen);
        void *user;
} restore_service_ops_t;

/* Opens (creating) the record under STATE_DIR/restore/. An existing record from a previous life
 * is loaded, not replayed: see restore_pending() and restore_apply(). */
int restore_open(const char *state_dir, restore_t **ret);
void restore_close(restore_t **rp);
int restore_register_service(restore_t *r, const restore_service_ops_t *ops);

/* True when the record holds changes not yet put back. */
bool restore_pending(const restore_t *r);

/* Each save_* call records the current state before the caller changes it, and is durable
 * (fsync of file and directory) when it returns. Saving the same object twice keeps the
 * first (original) state. */
/* path's bytes, mode, owner, or that it did not exist. Regular files only. */
int restore_save_file(restore_t *r, const char *path);
/* A sysctl's value (name as in sysctl(8): net.core.rmem_max), read under sysctl_root
 * (/proc/sys, or a scratch root in tests). */
int restore_save_sysctl(restore_t *r, const char *sysctl_root, const char *name);
/* A service of kind (a registered restore_service_ops_t) and whether it ran. */
int restore_save_service(restore_t *r, const char *kind, const char *name, bool was_running);
/* A mount the agent made (restore unmounts it with umount_bin) and the directory it created
 * for it (removed when empty). */
int restore_save_mount(restore_t *r, const char *umount_bin, const char *mountpoint,
                       bool created_dir);

/* A sysfs attribute (path under /sys/, such as a device's queue/scheduler) and value, the word
 * that puts it back when written (a scheduler reads "none [mq-deadline] kyber" but is set by
 * writing "mq-deadline"). */
int restore_save_attr(restore_t *r, const char *path, const char *value);

/* Creates directory path with mode (and its missing parents, 0755); each directory it creates
 * is recorded first, so that restore_apply() removes it again when it is empty (one that
 * holds files by then is left, with a warning). Existing directories are not recorded. */
int restore_mkdir(restore_t *r, const char *path, mode_t mode);

/* Puts everything back, last change first: mounts unmounted, files byte-identical with their
 * mode and owner (or removed when they did not exist), directories the agent made removed,
 * sysctls rewritten, services brought
 * back to their state. Keeps going past failures; returns 0 when everything was put back
 * (the record is then removed), else the first -errno with err naming what was not. */
int restore_apply(restore_t *r, char *err, size_t errlen);
