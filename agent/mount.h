/* Client NFS mounts under the agent's mount root: options rendered from the plan, the mount
 * saved in the restore record first, mount(8) run directly, the negotiated options read back. */
#pragma once

#include <stddef.h>

#include "agent-config.h"
#include "kv.h"
#include "mount-options.h"
#include "restore.h"

/* The plan's mount settings as a mount -o string (see mount_options_check()). 0 or -errno
 * with err set. */
int nfs_mount_options(const kvlist_t *opts, char *buf, size_t len, char *err, size_t errlen);

/* Mounts SERVER:EXPORT at MOUNT_ROOT/RUN_ID: creates the directory (refusing one that is not
 * empty or already a mount point, or outside allow_paths), saves the mount in r, runs
 * cfg->mount_bin -t nfs -o OPTS SERVER:EXPORT DIR, and puts what the kernel reports into
 * effective: "mount_options" (the super options: vers, rsize, ... as negotiated),
 * "mount_flags" (rw,noatime...), "source", "fstype", "mountpoint". The mount point goes into
 * dir. opts may be NULL. 0 or -errno with err set (mount's own message when it failed). */
int nfs_mount(const agent_config_t *cfg, restore_t *r, const char *run_id, const char *server,
              const char *export, const kvlist_t *opts, char *dir, size_t dirlen,
              kvlist_t *effective, char *err, size_t errlen);
/* nfs_mount() with another file system type: tests mount tmpfs through the same path. */
int nfs_mount_fs(const agent_config_t *cfg, restore_t *r, const char *fstype, const char *run_id,
                 const char *server, const char *export, const kvlist_t *opts, char *dir,
                 size_t dirlen, kvlist_t *effective, char *err, size_t errlen);
/* Unmounts dir (a directory directly under mount_root) with cfg->umount_bin when it is a mount
 * point and removes the directory. 0 or -errno with err set. */
int nfs_umount(const agent_config_t *cfg, const char *dir, char *err, size_t errlen);
