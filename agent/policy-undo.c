/* What the path policy created, recorded with its identity, and taking it back. */
#include "policy.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

/* The file handle of fd (AT_EMPTY_PATH) into buf; its length, 0 when there is none. */
static unsigned handle_of(int dirfd, const char *name, unsigned char *buf, size_t len)
{
        union {
                struct file_handle fh;
                unsigned char raw[sizeof(struct file_handle) + 64];
        } h;
        int mnt;
        h.fh.handle_bytes = 64;
        if (name_to_handle_at(dirfd, name, &h.fh, &mnt, name[0] ? 0 : AT_EMPTY_PATH) < 0 ||
            h.fh.handle_bytes + sizeof(int) > len)
                return 0;
        memcpy(buf, &h.fh.handle_type, sizeof(int));
        memcpy(buf + sizeof(int), h.fh.f_handle, h.fh.handle_bytes);
        return h.fh.handle_bytes + (unsigned)sizeof(int);
}

int policy_undo_add(policy_undo_t *u, const char *path, int fd, bool dir)
{
        struct stat st;
        char *p;
        if (!u)
                return 0;
        if (fstat(fd, &st) < 0)
                return -errno;
        if (u->n == u->cap) {
                size_t cap = u->cap ? 2 * u->cap : 8;
                policy_made_t *v = realloc(u->v, cap * sizeof(*v));
                if (!v)
                        return -ENOMEM;
                u->v = v;
                u->cap = cap;
        }
        if (!(p = strdup(path)))
                return -ENOMEM;
        u->v[u->n] = (policy_made_t){.path = p, .dev = st.st_dev, .ino = st.st_ino, .dir = dir};
        u->v[u->n].handle_len = handle_of(fd, "", u->v[u->n].handle, sizeof(u->v[u->n].handle));
        u->n++;
        return 0;
}

static int made_cmp(const void *a, const void *b)
{
        const policy_made_t *x = *(policy_made_t *const *)a, *y = *(policy_made_t *const *)b;
        size_t dx = 0, dy = 0;
        /* Files first, then directories deepest first; later creations first otherwise. */
        if (x->dir != y->dir)
                return x->dir ? 1 : -1;
        for (const char *p = x->path; *p; p++)
                dx += *p == '/';
        for (const char *p = y->path; *p; p++)
                dy += *p == '/';
        if (dx != dy)
                return dx > dy ? -1 : 1;
        return x > y ? -1 : x < y;
}

/* Removes one entry when its name still holds the inode made. 0 when removed or gone or no
 * longer ours, -errno otherwise. */
static int unmake(const agent_config_t *cfg, const policy_made_t *m, char *err, size_t errlen)
{
        char parent[PATH_MAX], e[1024];
        const char *name;
        struct stat st;
        int pfd, r;
        char *slash;

        snprintf(parent, sizeof(parent), "%s", m->path);
        slash = strrchr(parent, '/');
        if (!slash || !slash[1])
                return 0;
        name = m->path + (slash - parent) + 1;
        if (slash == parent)
                slash[1] = 0;
        else
                *slash = 0;
        r = policy_open(cfg, parent, PATH_JOB_DIR, O_PATH | O_DIRECTORY, 0, NULL, &pfd, e,
                        sizeof(e));
        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return errorf(err, errlen, r, "cannot remove %s: %s", m->path, e);
        if (fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || st.st_dev != m->dev ||
            st.st_ino != m->ino) {
                close(pfd);
                return 0;
        }
        if (m->handle_len) {
                unsigned char h[sizeof(m->handle)];
                /* The same inode number, but another generation: not what we made. */
                if (handle_of(pfd, name, h, sizeof(h)) != m->handle_len ||
                    memcmp(h, m->handle, m->handle_len) != 0) {
                        close(pfd);
                        return 0;
                }
        }
        r = unlinkat(pfd, name, m->dir ? AT_REMOVEDIR : 0) < 0 ? -errno : 0;
        close(pfd);
        /* A directory something else was put in stays, with what is in it. */
        if (r == -ENOENT || (m->dir && (r == -ENOTEMPTY || r == -EEXIST)))
                return 0;
        if (r < 0)
                return errorf(err, errlen, r, "cannot remove %s: %s", m->path, strerror(-r));
        return 0;
}

int policy_undo_run(const agent_config_t *cfg, policy_undo_t *u, char *err, size_t errlen)
{
        policy_made_t **order;
        int first = 0;

        if (!u || !u->n)
                return 0;
        order = calloc(u->n, sizeof(*order));
        if (!order) {
                policy_undo_clear(u);
                return errorf(err, errlen, -ENOMEM, "no memory to remove what was laid out");
        }
        for (size_t i = 0; i < u->n; i++)
                order[i] = &u->v[i];
        qsort(order, u->n, sizeof(*order), made_cmp);
        for (size_t i = 0; i < u->n; i++) {
                int r = unmake(cfg, order[i], first ? NULL : err, first ? 0 : errlen);
                if (r < 0 && !first)
                        first = r;
        }
        free(order);
        policy_undo_clear(u);
        return first;
}

int policy_undo_take(policy_undo_t *dst, policy_undo_t *src)
{
        if (!src->n)
                return 0;
        if (dst->n + src->n > dst->cap) {
                size_t cap = dst->n + src->n;
                policy_made_t *v = realloc(dst->v, cap * sizeof(*v));
                if (!v)
                        return -ENOMEM;
                dst->v = v;
                dst->cap = cap;
        }
        memcpy(dst->v + dst->n, src->v, src->n * sizeof(*src->v));
        dst->n += src->n;
        free(src->v);
        *src = (policy_undo_t){0};
        return 0;
}

void policy_undo_clear(policy_undo_t *u)
{
        if (!u)
                return;
        for (size_t i = 0; i < u->n; i++)
                free(u->v[i].path);
        free(u->v);
        *u = (policy_undo_t){0};
}
