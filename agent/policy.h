/* Where the agent may act on its host: paths inside allow_paths, never system directories,
 * block devices only when its config says so. */
#pragma once

#include <stddef.h>

#include "agent-config.h"

enum {
        PATH_EXPORT,   /* a directory the NFS server exports */
        PATH_JOB_FILE, /* a file (or, with allow_block_devices, a block device) jobs do I/O on */
        PATH_MOUNT,    /* a client mount point */
};

/* Checks path for purpose: absolute, no ".." component, resolved (realpath of its longest
 * existing prefix, so symlinks count where they point) inside one of cfg->allow_paths
 * (default: work_dir, else STATE_DIR/work, and mount_root), never /, /etc, /proc, /sys, /dev,
 * /boot, /usr or below, block devices only for PATH_JOB_FILE with allow_block_devices, never
 * other device files. 0 or -EPERM/-EINVAL/-errno with err naming the path and what is allowed. */
int policy_check_path(const agent_config_t *cfg, const char *path, int purpose, char *err,
                      size_t errlen);
/* The same, also writing the resolved path into resolved (PATH_MAX bytes is enough); the
 * caller acts on that path, not on the one given. */
int policy_resolve_path(const agent_config_t *cfg, const char *path, int purpose, char *resolved,
                        size_t len, char *err, size_t errlen);
