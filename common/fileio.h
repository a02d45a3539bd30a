/* Whole-file reading, in the manner of systemd's read_full_file(): a size cap, -errno returns,
 * O_CLOEXEC, short reads and files that grow while read. */
#pragma once

#include <stddef.h>

typedef enum read_full_flags {
        READ_FULL_REGULAR = 1u << 0,  /* anything but a regular file: -EINVAL */
        READ_FULL_NOFOLLOW = 1u << 1, /* a symbolic link as the last component: -ELOOP */
        READ_FULL_NONBLOCK = 1u << 2, /* open O_NONBLOCK: a FIFO put in place never blocks */
} read_full_flags_t;

/* The most a caller may ask for; larger max values are a programming error. */
#define READ_FULL_MAX ((size_t)1 << 40)

/* Reads fd from its current position to its end into a malloc'd buffer with a NUL after the
 * last byte (the data may hold NULs of its own: *ret_size counts them). At most max bytes:
 * -EFBIG when there are more, whatever the file's size said when the read began (a file that
 * grows is read to its end, one that shrinks to where it ends). ret_size may be NULL. 0 or
 * -errno; *ret and *ret_size untouched on failure. The caller keeps fd. */
int read_full_fd(int fd, size_t max, char **ret, size_t *ret_size);

/* Opens path (relative to dirfd, or AT_FDCWD) read-only with O_CLOEXEC and O_NOCTTY and reads
 * it whole as read_full_fd() does. 0 or -errno. */
int read_full_file_at(int dirfd, const char *path, read_full_flags_t flags, size_t max, char **ret,
                      size_t *ret_size);
int read_full_file(const char *path, read_full_flags_t flags, size_t max, char **ret,
                   size_t *ret_size);
