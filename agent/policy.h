/* Where the agent may act on its host: paths resolved beneath allow_paths (agent/sandbox.c),
 * never system directories, block devices only when its config says so; what it created, to
 * take back; the checks of a job's paths. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "agent-config.h"
#include "options.h"

enum {
        PATH_EXPORT,   /* a directory the NFS server exports (handed to it by name) */
        PATH_JOB_FILE, /* a file (or, with allow_block_devices, a block device) jobs do I/O on */
        PATH_MOUNT,    /* a client mount point (handed to mount(8) by name) */
        PATH_JOB_DIR,  /* a job's directory */
};

/* What the agent created beneath allow_paths, in order, so that it can take it back: each entry
 * its canonical path and the identity it had when created (device and inode, and the file
 * handle, which holds the inode's generation, so that a reused inode number is not taken for
 * it). */
typedef struct policy_made {
        char *path;
        dev_t dev;
        ino_t ino;
        bool dir;
        unsigned handle_len; /* 0: the file system gives no handles */
        unsigned char handle[64];
} policy_made_t;

typedef struct policy_undo {
        policy_made_t *v;
        size_t n, cap;
} policy_undo_t;

/*
 * Opens path for purpose beneath one of the agent's roots: cfg->allow_paths, or by default
 * work_dir (else STATE_DIR/work) and mount_root. path is absolute; an allow_paths root must be
 * its prefix as written (or as the root resolves), the rest is resolved beneath the root's fd
 * (agent/sandbox.c), so '..' and symbolic links (directory links in the middle, absolute links,
 * loops, /proc magic links) cannot leave it. Never /, /etc, /proc, /sys, /dev, /boot, /usr or
 * below, nor procfs, sysfs and the like mounted anywhere; /dev/shm and (with
 * allow_block_devices) block devices for job files only; never a character device, FIFO or
 * socket.
 *
 * PATH_JOB_FILE: the final component is never a symbolic link; flags as open(2)'s: with O_CREAT
 * a missing file is created (O_EXCL, so *undo learns exactly what this call made) together with
 * missing directories on the way (mkdirat), each recorded in undo (NULL: nothing created). A
 * directory purpose follows a final link; with O_CREAT the directory itself is made when
 * missing. PATH_EXPORT and PATH_MOUNT are handed to another program by name: the path must be
 * canonical already (no link, '.' or '..') and no directory on the way writable by anyone but
 * root, so that nobody else can swap a component before the program looks it up.
 *
 * *fd gets the open file (O_PATH when flags holds O_PATH). 0, or -EPERM/-EXDEV/-ELOOP/-ENOENT/...
 * with err one line naming the path, what it resolved to and what is allowed.
 */
int policy_open(const agent_config_t *cfg, const char *path, int purpose, int flags, mode_t mode,
                policy_undo_t *undo, int *fd, char *err, size_t errlen);

/* Checks path for purpose as policy_open() would, without opening or creating anything: a
 * missing tail is fine (components that do not exist cannot be links), a job file's parent
 * directories included. resolved (PATH_MAX bytes is enough; may be NULL) gets the canonical
 * path. 0 or -errno with err. */
int policy_resolve_path(const agent_config_t *cfg, const char *path, int purpose, char *resolved,
                        size_t len, char *err, size_t errlen);
int policy_check_path(const agent_config_t *cfg, const char *path, int purpose, char *err,
                      size_t errlen);

/* After another program used a path handed to it by name (policy_open with PATH_EXPORT or
 * PATH_MOUNT gave fd): the name still leads to fd's inode, by the same rules. 0, or -ESTALE with
 * err. */
int policy_verify_named(const agent_config_t *cfg, const char *path, int purpose, int fd, char *err,
                        size_t errlen);

/* Every path job j will use on this agent, each clone's, as the layout names them (directory,
 * each entry of filename, filename_format expanded; relative ones under work_dir; the metadata
 * workload's directory), checked with policy_resolve_path(). err: "job NAME: OPTION=VALUE: why".
 * The nfs engine's files are on its server: nothing to check here. */
int policy_check_job(const agent_config_t *cfg, const job_spec_t *j, const char *work_dir,
                     const char *agent, char *err, size_t errlen);

/* The directory a job works in: its directory (relative to work_dir), else work_dir; 0 or
 * -ENAMETOOLONG. */
int policy_job_dir(const job_spec_t *j, const char *work_dir, char *buf, size_t len);

/* Removes the job file at path (fio's unlink, and the layout of a file too short to use): its
 * directory resolved beneath allow_paths as policy_open() does, then the name in it removed when
 * it is a regular file (never followed, never a directory or a link). 0, or -errno with err. */
int policy_unlink(const agent_config_t *cfg, const char *path, char *err, size_t errlen);

/* Records that path (canonical) was made, with the identity of fd (its device, inode and file
 * handle); undo NULL records nothing. 0 or -errno. */
int policy_undo_add(policy_undo_t *undo, const char *path, int fd, bool dir);
/* Removes what undo recorded, files first, then directories deepest first, each only while the
 * name still holds the inode created (a directory only when empty); empties undo. Nothing that
 * was there before is touched. 0, or the first -errno with err (the rest is still tried). */
int policy_undo_run(const agent_config_t *cfg, policy_undo_t *undo, char *err, size_t errlen);
/* Moves src's entries to the end of dst; -ENOMEM leaves both as they were. */
int policy_undo_take(policy_undo_t *dst, policy_undo_t *src);
void policy_undo_clear(policy_undo_t *undo);
