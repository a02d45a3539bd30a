/* Resolving a path beneath a directory fd so that '..', symbolic links and renames cannot lead
 * out of it: openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS), or an equivalent walk of
 * O_PATH | O_NOFOLLOW opens where the kernel has no openat2. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

enum {
        SANDBOX_NOFOLLOW =
            1u << 0, /* a final symbolic link is not followed: the fd is the link's */
        SANDBOX_DIRECTORY = 1u << 1, /* the result must be a directory (-ENOTDIR) */
};

/* Symbolic links followed in one resolution at most, as the kernel's MAXSYMLINKS. */
#define SANDBOX_MAX_LINKS 40

/* Opens rel, relative to dirfd, as an O_PATH | O_CLOEXEC fd in *ret. Every step stays beneath
 * dirfd: '..' above it, an absolute rel or an absolute symbolic link give -EXDEV; a /proc magic
 * link or more than SANDBOX_MAX_LINKS links -ELOOP; otherwise -errno of the lookup. rel "." is
 * dirfd itself; "" is -ENOENT, as for open(). *ret is untouched on failure. */
int sandbox_open(int dirfd, const char *rel, unsigned flags, int *ret);

/* Test hook: use the walk even where openat2 works, so that tests and the fuzzer exercise both
 * (and compare them). Not for production code. */
void sandbox_force_walk(bool on);

/* The canonical path of fd as the kernel tracks it (readlink of /proc/self/fd/N) into buf:
 * absolute and free of symbolic links. -ENOENT when its file has been removed, -ENAMETOOLONG,
 * -errno when /proc is not mounted. */
int sandbox_fd_path(int fd, char *buf, size_t len);

/* Opens the inode an O_PATH fd stands for with flags (O_RDWR, O_DIRECT, O_DIRECTORY, ...; never
 * O_CREAT) through /proc/self/fd: the same inode, no name looked up again. 0 and *ret, or
 * -errno. */
int sandbox_reopen(int fd, int flags, int *ret);
