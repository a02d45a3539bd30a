/* Whole-file reading: one reader, capped, for every file iofleet reads at once. */
#include "fileio.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

/* The first buffer: the file's size and one byte more, so that a file that does not change is
 * read with no reallocation and its end seen at once; procfs and pipes say 0, hence 4 KiB. */
static size_t first_capacity(int fd, size_t max)
{
        struct stat st;
        size_t cap = 4096;
        if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
            (uint64_t)st.st_size < READ_FULL_MAX)
                cap = (size_t)st.st_size + 1;
        return cap < max + 1 ? cap : max + 1;
}

int read_full_fd(int fd, size_t max, char **ret, size_t *ret_size)
{
        assert(max <= READ_FULL_MAX);
        /* Room for max + 1 bytes at most: reading that one byte more is how -EFBIG is known. */
        size_t cap = first_capacity(fd, max), n = 0;
        char *buf = malloc(cap + 1);
        if (!buf)
                return -ENOMEM;
        for (;;) {
                if (n == cap) {
                        if (cap > max)
                                break;
                        size_t ncap = cap > max / 2 ? max + 1 : cap * 2;
                        char *nb = realloc(buf, ncap + 1);
                        if (!nb) {
                                free(buf);
                                return -ENOMEM;
                        }
                        buf = nb;
                        cap = ncap;
                }
                ssize_t k = read(fd, buf + n, cap - n);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0) {
                        int r = -errno;
                        free(buf);
                        return r;
                }
                if (k == 0)
                        break;
                n += (size_t)k;
        }
        if (n > max) {
                free(buf);
                return -EFBIG;
        }
        buf[n] = 0;
        *ret = buf;
        if (ret_size)
                *ret_size = n;
        return 0;
}

int read_full_file_at(int dirfd, const char *path, read_full_flags_t flags, size_t max, char **ret,
                      size_t *ret_size)
{
        int oflags = O_RDONLY | O_CLOEXEC | O_NOCTTY;
        if (flags & READ_FULL_NOFOLLOW)
                oflags |= O_NOFOLLOW;
        if (flags & READ_FULL_NONBLOCK)
                oflags |= O_NONBLOCK;
        _cleanup_(closep) int fd = openat(dirfd, path, oflags);
        if (fd < 0)
                return -errno;
        if (flags & READ_FULL_REGULAR) {
                struct stat st;
                if (fstat(fd, &st) < 0)
                        return -errno;
                if (!S_ISREG(st.st_mode))
                        return -EINVAL;
        }
        return read_full_fd(fd, max, ret, ret_size);
}

int read_full_file(const char *path, read_full_flags_t flags, size_t max, char **ret,
                   size_t *ret_size)
{
        return read_full_file_at(AT_FDCWD, path, flags, max, ret, ret_size);
}
