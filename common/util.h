/* Small helpers shared by every module: cleanup attributes, array sizes, string checks. */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/types.h>
#include <string.h>
#include <unistd.h>

#define _cleanup_(f) __attribute__((cleanup(f)))
#define _unused_ __attribute__((unused))
#define _printf_(a, b) __attribute__((format(printf, a, b)))
#define ELEMENTSOF(x) (sizeof(x) / sizeof((x)[0]))
#define NSEC_PER_USEC 1000ULL
#define NSEC_PER_MSEC 1000000ULL
#define NSEC_PER_SEC 1000000000ULL
#define NSEC_PER_MIN (60 * NSEC_PER_SEC)
#define NSEC_PER_HOUR (60 * NSEC_PER_MIN)
#define NSEC_PER_DAY (24 * NSEC_PER_HOUR)

static inline void freep(void *p)
{
        free(*(void **)p);
}

static inline void closep(int *fd)
{
        if (*fd >= 0) {
                int saved = errno;
                close(*fd);
                errno = saved;
        }
}

static inline bool streq(const char *a, const char *b)
{
        return strcmp(a, b) == 0;
}

/* The value of hex digit c, or -1 when it is none. */
static inline int hex_value(char c)
{
        if (c >= '0' && c <= '9')
                return c - '0';
        if (c >= 'a' && c <= 'f')
                return c - 'a' + 10;
        if (c >= 'A' && c <= 'F')
                return c - 'A' + 10;
        return -1;
}

static inline bool strempty(const char *s)
{
        return !s || !*s;
}

/* Duplicates s into *dst, freeing what *dst held; 0 or -ENOMEM. */
static inline int strdup_to(char **dst, const char *s)
{
        char *c = strdup(s ? s : "");
        if (!c)
                return -ENOMEM;
        free(*dst);
        *dst = c;
        return 0;
}

/* Writes one formatted line into err (when err is not NULL) and returns r, so that callers can
 * `return errorf(err, errlen, -EINVAL, "...")`. */
int errorf(char *err, size_t errlen, int r, const char *fmt, ...) _printf_(4, 5);
/* Makes room in *v (*cap elements of size bytes) for one more after the n it holds, doubling
 * from 16; 0 or -ENOMEM (*v and *cap unchanged). */
int array_reserve(void **v, size_t *cap, size_t n, size_t size);
/* Creates path and its missing parents (parents 0755, path itself mode); 0 or -errno. */
int mkdir_p(const char *path, mode_t mode);
/* v in decimal at s, zero-padded to width digits (at most 24), no terminator; returns the length.
 * For the hot paths that build names and log lines without printf. */
size_t put_decimal(char *s, uint64_t v, unsigned width);

/* Writes all of buf to fd (again after EINTR and short writes); 0 or -errno (-ENOSPC when the
 * file takes no more). */
int write_all(int fd, const void *buf, size_t len);
/* Replaces path with data: a temporary file beside it (keeping an existing file's owner and
 * mode, else mode), synced, renamed over it, the directory synced. 0 or -errno. */
int write_file_atomic(const char *path, const char *data, size_t len, unsigned mode);
/* The same, the content written by fill(fd, user) (0 or -errno): for what is too big to hold
 * twice in memory. */
int write_file_atomic_with(const char *path, unsigned mode, int (*fill)(int fd, void *user),
                           void *user);
