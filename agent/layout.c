/* Laying out job files as fio does: create them, and fill missing or short files that will be read.
 */
#include "layout.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "util.h"

#define LAYOUT_CHUNK (1u << 20)

int layout_check_regular(int fd, const char *path, char *err, size_t errlen)
{
        struct stat st;
        if (fstat(fd, &st) < 0)
                return errorf(err, errlen, -errno, "%s: %s", path, strerror(errno));
        if (!S_ISREG(st.st_mode))
                return errorf(err, errlen, -EINVAL,
                              "%s is a %s, not a regular file: iofleet reads and writes regular "
                              "files only",
                              path,
                              S_ISBLK(st.st_mode)   ? "block device"
                              : S_ISCHR(st.st_mode) ? "character device"
                              : S_ISDIR(st.st_mode) ? "directory"
                                                    : "special file");
        return 0;
}

int layout_file(const char *path, uint64_t size, bool fill, uint64_t seed, const int *stop,
                char *err, size_t errlen)
{
        _cleanup_(closep) int fd = -1;
        _cleanup_(freep) uint64_t *buf = NULL;
        struct stat st;
        /* Each file its own data (xorshift must not start at 0), so files do not deduplicate. */
        uint64_t x = (seed ^ 0x2545f4914f6cdd1dULL) | 1;
        int r;

        /* O_NOFOLLOW: a symbolic link planted where a job file goes is refused, not followed. */
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
        if (fd < 0) {
                snprintf(err, errlen, "cannot create %s: %s", path, strerror(errno));
                return -errno;
        }
        if ((r = layout_check_regular(fd, path, err, errlen)) < 0)
                return r;
        if (fstat(fd, &st) < 0)
                return errorf(err, errlen, -errno, "%s: %s", path, strerror(errno));
        if ((uint64_t)st.st_size >= size)
                return 0;
        if (!fill) {
                r = posix_fallocate(fd, st.st_size, (off_t)(size - st.st_size));
                if (r != 0 && r != EOPNOTSUPP && r != EINVAL) {
                        snprintf(err, errlen, "cannot reserve %llu bytes for %s: %s",
                                 (unsigned long long)size, path, strerror(r));
                        return -r;
                }
                return 0;
        }
        log_debug("laying out %s: %llu of %llu bytes missing", path,
                  (unsigned long long)(size - st.st_size), (unsigned long long)size);
        buf = malloc(LAYOUT_CHUNK);
        if (!buf) {
                snprintf(err, errlen, "no memory to lay out %s", path);
                return -ENOMEM;
        }
        for (uint64_t off = (uint64_t)st.st_size; off < size;) {
                size_t n = size - off < LAYOUT_CHUNK ? (size_t)(size - off) : LAYOUT_CHUNK;
                ssize_t w;
                if (__atomic_load_n(stop, __ATOMIC_RELAXED))
                        return errorf(err, errlen, -ECANCELED, "laying out %s: stopped", path);
                /* xorshift: cheap data that neither compresses nor deduplicates. */
                for (size_t i = 0; i < LAYOUT_CHUNK / 8; i++) {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        buf[i] = x;
                }
                w = pwrite(fd, buf, n, (off_t)off);
                if (w < 0 && errno == EINTR)
                        continue;
                if (w <= 0) {
                        int e = w < 0 ? errno : ENOSPC;
                        snprintf(err, errlen, "laying out %s at offset %llu: %s", path,
                                 (unsigned long long)off, strerror(e));
                        return -e;
                }
                off += (uint64_t)w;
        }
        return 0;
}
