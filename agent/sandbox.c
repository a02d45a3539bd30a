/* Resolving a path beneath a directory fd so that '..', symbolic links and renames cannot lead
 * out of it: openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS), or an equivalent walk. */
#include "sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "util.h"

#define DELETED_SUFFIX " (deleted)"

static int force_walk; /* test hook */
static int no_openat2; /* the kernel said ENOSYS once: do not ask again */

void sandbox_force_walk(bool on)
{
        __atomic_store_n(&force_walk, on ? 1 : 0, __ATOMIC_RELAXED);
}

static int kernel_open(int dirfd, const char *rel, unsigned flags, int *ret)
{
        struct open_how how = {
            .flags = O_PATH | O_CLOEXEC | (flags & SANDBOX_NOFOLLOW ? O_NOFOLLOW : 0) |
                     (flags & SANDBOX_DIRECTORY ? O_DIRECTORY : 0),
            .resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS,
        };
        for (int tries = 0;; tries++) {
                long fd = syscall(SYS_openat2, dirfd, rel, &how, sizeof(how));
                if (fd >= 0) {
                        *ret = (int)fd;
                        return 0;
                }
                /* A rename or mount raced with a '..': the kernel asks for another try. */
                if ((errno == EAGAIN && tries < 64) || errno == EINTR)
                        continue;
                return -errno;
        }
}

/* The walk's stack of directories, [0] being the start: '..' pops, never below [0]. */
typedef struct stack {
        int *fd;
        size_t n, cap;
} stack_t_;

static int push(stack_t_ *s, int fd)
{
        if (s->n == s->cap) {
                size_t cap = s->cap ? 2 * s->cap : 16;
                int *v = realloc(s->fd, cap * sizeof(*v));
                if (!v) {
                        close(fd);
                        return -ENOMEM;
                }
                s->fd = v;
                s->cap = cap;
        }
        s->fd[s->n++] = fd;
        return 0;
}

static void stack_free(stack_t_ *s)
{
        for (size_t i = 0; i < s->n; i++)
                close(s->fd[i]);
        free(s->fd);
}

/* A symbolic link on procfs: the walk never follows one, as RESOLVE_NO_MAGICLINKS never follows
 * the magic ones (/proc/PID/root, /proc/PID/fd/N, ...); ordinary procfs links are refused too. */
static bool on_procfs(int fd)
{
        struct statfs sf;
        return fstatfs(fd, &sf) == 0 && sf.f_type == PROC_SUPER_MAGIC;
}

/* What openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS) does, one O_PATH | O_NOFOLLOW open per
 * component: a link's text is read and put in front of the rest of the path, never followed by
 * the kernel, so a component swapped for a link between two steps is seen as the link it is. */
static int walk_open(int dirfd, const char *rel, unsigned flags, int *ret)
{
        stack_t_ s = {0};
        char *buf = NULL, *target = NULL;
        const char *p;
        unsigned links = 0;
        int fd = -1, r;
        struct stat st;

        if (rel[0] == '/')
                return -EXDEV;
        if (!rel[0])
                return -ENOENT;
        if (strlen(rel) >= PATH_MAX)
                return -ENAMETOOLONG;
        if (!(buf = strdup(rel)) || !(target = malloc(PATH_MAX))) {
                r = -ENOMEM;
                goto out;
        }
        fd = openat(dirfd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0) {
                r = -errno;
                goto out;
        }
        if ((r = push(&s, fd)) < 0)
                goto out;
        fd = -1;
        for (p = buf;;) {
                const char *end, *next;
                bool last, slash;
                size_t len;
                char name[NAME_MAX + 1];

                while (*p == '/')
                        p++;
                if (!*p) {
                        /* The path ended on a directory ("dir/", ".", ".."): the top. */
                        fd = s.fd[--s.n];
                        break;
                }
                end = strchrnul(p, '/');
                len = (size_t)(end - p);
                for (next = end; *next == '/'; next++)
                        ;
                last = !*next;
                slash = *end == '/';
                if (len > NAME_MAX) {
                        r = -ENAMETOOLONG;
                        goto out;
                }
                memcpy(name, p, len);
                name[len] = 0;
                if (streq(name, ".")) {
                        p = next;
                        continue;
                }
                if (streq(name, "..")) {
                        if (s.n == 1) {
                                r = -EXDEV;
                                goto out;
                        }
                        close(s.fd[--s.n]);
                        p = next;
                        continue;
                }
                fd = openat(s.fd[s.n - 1], name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
                if (fd < 0 || fstat(fd, &st) < 0) {
                        r = -errno;
                        goto out;
                }
                if (S_ISLNK(st.st_mode)) {
                        ssize_t n;
                        char *nbuf;
                        if (last && !slash && (flags & SANDBOX_NOFOLLOW))
                                break;
                        if (on_procfs(fd) || ++links > SANDBOX_MAX_LINKS) {
                                r = -ELOOP;
                                goto out;
                        }
                        n = readlinkat(fd, "", target, PATH_MAX);
                        if (n < 0) {
                                r = -errno;
                                goto out;
                        }
                        if (n >= PATH_MAX) {
                                r = -ENAMETOOLONG;
                                goto out;
                        }
                        target[n] = 0;
                        close(fd);
                        fd = -1;
                        if (n == 0) {
                                r = -ENOENT;
                                goto out;
                        }
                        if (target[0] == '/') {
                                r = -EXDEV;
                                goto out;
                        }
                        /* The link's text, then the rest (its slashes included). */
                        if (asprintf(&nbuf, "%s%s", target, end) < 0) {
                                r = -ENOMEM;
                                goto out;
                        }
                        free(buf);
                        buf = nbuf;
                        p = buf;
                        continue;
                }
                if (S_ISDIR(st.st_mode)) {
                        if ((r = push(&s, fd)) < 0) {
                                fd = -1;
                                goto out;
                        }
                        fd = -1;
                        p = next;
                        continue;
                }
                if (!last || slash) {
                        r = -ENOTDIR;
                        goto out;
                }
                break;
        }
        if (flags & SANDBOX_DIRECTORY) {
                if (fstat(fd, &st) < 0) {
                        r = -errno;
                        goto out;
                }
                if (!S_ISDIR(st.st_mode)) {
                        r = -ENOTDIR;
                        goto out;
                }
        }
        *ret = fd;
        fd = -1;
        r = 0;
out:
        if (fd >= 0)
                close(fd);
        stack_free(&s);
        free(buf);
        free(target);
        return r;
}

int sandbox_open(int dirfd, const char *rel, unsigned flags, int *ret)
{
        int r;

        if (!__atomic_load_n(&force_walk, __ATOMIC_RELAXED) &&
            !__atomic_load_n(&no_openat2, __ATOMIC_RELAXED)) {
                r = kernel_open(dirfd, rel, flags, ret);
                /* ENOSYS: a kernel before 5.6; EPERM: a seccomp filter that does not know the
                 * call (old container runtimes). The walk does the same by hand. */
                if (r == -ENOSYS)
                        __atomic_store_n(&no_openat2, 1, __ATOMIC_RELAXED);
                if (r != -ENOSYS && r != -EPERM)
                        return r;
        }
        return walk_open(dirfd, rel, flags, ret);
}

int sandbox_fd_path(int fd, char *buf, size_t len)
{
        char proc[64];
        struct stat st;
        ssize_t n;
        size_t sl = strlen(DELETED_SUFFIX);

        snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
        n = readlink(proc, buf, len);
        if (n < 0)
                return -errno;
        if ((size_t)n >= len)
                return -ENAMETOOLONG;
        buf[n] = 0;
        if (buf[0] != '/')
                return -EINVAL;
        /* A removed file reads "PATH (deleted)"; a name that really ends so still has links. */
        if ((size_t)n > sl && streq(buf + n - sl, DELETED_SUFFIX) &&
            (fstat(fd, &st) < 0 || st.st_nlink == 0))
                return -ENOENT;
        return 0;
}

int sandbox_reopen(int fd, int flags, int *ret)
{
        char proc[64];
        int nfd;

        snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
        do
                nfd = open(proc, (flags & ~(O_CREAT | O_EXCL | O_NOFOLLOW)) | O_CLOEXEC);
        while (nfd < 0 && errno == EINTR);
        if (nfd < 0)
                return -errno;
        *ret = nfd;
        return 0;
}
