/* Small helpers shared by every module: one-line error messages, directory creation. */
#include "util.h"

#include <stdarg.h>
#include <stdio.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int errorf(char *err, size_t errlen, int r, const char *fmt, ...)
{
        va_list ap;
        if (err && errlen) {
                va_start(ap, fmt);
                vsnprintf(err, errlen, fmt, ap);
                va_end(ap);
        }
        return r;
}

size_t put_decimal(char *s, uint64_t v, unsigned width)
{
        char tmp[24];
        size_t n = 0;
        if (width > sizeof(tmp))
                width = sizeof(tmp);
        do {
                tmp[n++] = (char)('0' + v % 10);
                v /= 10;
        } while (v);
        while (n < width)
                tmp[n++] = '0';
        for (size_t k = 0; k < n; k++)
                s[k] = tmp[n - 1 - k];
        return n;
}

int mkdir_p(const char *path, mode_t mode)
{
        char buf[4096];
        if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf))
                return -ENAMETOOLONG;
        for (char *p = buf + 1; *p; p++)
                if (*p == '/') {
                        *p = 0;
                        if (mkdir(buf, 0755) < 0 && errno != EEXIST)
                                return -errno;
                        *p = '/';
                }
        if (mkdir(buf, mode) < 0 && errno != EEXIST)
                return -errno;
        return 0;
}

int write_file_atomic_with(const char *path, unsigned mode, int (*fill)(int fd, void *user),
                           void *user)
{
        char tmp[4096];
        if (snprintf(tmp, sizeof(tmp), "%s.iofleet-tmp", path) >= (int)sizeof(tmp))
                return -ENAMETOOLONG;
        struct stat st;
        bool existed = stat(path, &st) == 0;
        _cleanup_(closep) int fd =
            open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, existed ? st.st_mode & 07777 : mode);
        if (fd < 0)
                return -errno;
        int r = 0;
        struct stat now;
        /* The owner only where it differs: chown(2) is a privileged call a sandboxed daemon
         * may not make (the coordinator's @privileged filter), even to its own uid. */
        if (existed && fstat(fd, &now) == 0 && (now.st_uid != st.st_uid || now.st_gid != st.st_gid) &&
            fchown(fd, st.st_uid, st.st_gid) < 0)
                r = -errno;
        if (existed && r == 0 && fchmod(fd, st.st_mode & 07777) < 0)
                r = -errno;
        if (r == 0)
                r = fill(fd, user);
        if (r == 0 && fsync(fd) < 0)
                r = -errno;
        if (r == 0 && rename(tmp, path) < 0)
                r = -errno;
        if (r < 0) {
                unlink(tmp);
                return r;
        }
        char dir[4096];
        snprintf(dir, sizeof(dir), "%s", path);
        char *slash = strrchr(dir, '/');
        if (slash)
                *(slash == dir ? slash + 1 : slash) = 0;
        _cleanup_(closep) int dfd = open(slash ? dir : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd >= 0)
                fsync(dfd);
        return 0;
}

int write_all(int fd, const void *buf, size_t len)
{
        const char *p = buf;
        while (len > 0) {
                ssize_t w = write(fd, p, len);
                if (w < 0 && errno == EINTR)
                        continue;
                if (w < 0)
                        return -errno;
                if (w == 0)
                        return -ENOSPC;
                p += w;
                len -= (size_t)w;
        }
        return 0;
}

typedef struct buf_src {
        const char *data;
        size_t len;
} buf_src_t;

static int fill_buf(int fd, void *user)
{
        const buf_src_t *b = user;
        return write_all(fd, b->data, b->len);
}

int write_file_atomic(const char *path, const char *data, size_t len, unsigned mode)
{
        buf_src_t b = {data, len};
        return write_file_atomic_with(path, mode, fill_buf, &b);
}

int array_reserve(void **v, size_t *cap, size_t n, size_t size)
{
        size_t c;
        void *p;
        if (n < *cap)
                return 0;
        c = *cap ? *cap * 2 : 16;
        while (c <= n)
                c *= 2;
        if (!(p = realloc(*v, c * size)))
                return -ENOMEM;
        *v = p;
        *cap = c;
        return 0;
}
