/* The agent's path policy: roots from allow_paths, resolution beneath them, system directories
 * and kernel file systems, block devices, names handed to other programs, creating. */
#include "policy.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "sandbox.h"
#include "util.h"

#define CONFIGFS_MAGIC 0x62656570
#define NFSD_MAGIC 0x6e667364
#define RPC_PIPEFS_MAGIC 0x67596969
#define DEFAULT_STATE_DIR "/var/lib/iofleet-agent"
/* A file name taken by a concurrent creator between our lookup and our O_EXCL: look again. */
#define CREATE_TRIES 8

static const char *const system_dirs[] = {"/etc", "/proc", "/sys", "/dev", "/boot", "/usr"};
static const char *const purposes[] = {"export", "job file", "mount point", "job directory"};

/* Kernel file systems: writing there changes the kernel, wherever they are mounted. */
static const struct {
        long magic;
        const char *name;
} kernel_fs[] = {
    {PROC_SUPER_MAGIC, "proc"},
    {SYSFS_MAGIC, "sysfs"},
    {DEBUGFS_MAGIC, "debugfs"},
    {TRACEFS_MAGIC, "tracefs"},
    {SECURITYFS_MAGIC, "securityfs"},
    {CGROUP_SUPER_MAGIC, "cgroup"},
    {CGROUP2_SUPER_MAGIC, "cgroup2"},
    {BPF_FS_MAGIC, "bpf"},
    {DEVPTS_SUPER_MAGIC, "devpts"},
    {EFIVARFS_MAGIC, "efivarfs"},
    {PSTOREFS_MAGIC, "pstore"},
    {NSFS_MAGIC, "nsfs"},
    {SELINUX_MAGIC, "selinuxfs"},
    {SMACK_MAGIC, "smackfs"},
    {BINFMTFS_MAGIC, "binfmt_misc"},
    {CONFIGFS_MAGIC, "configfs"},
    {NFSD_MAGIC, "nfsd"},
    {RPC_PIPEFS_MAGIC, "rpc_pipefs"},
};

/* One allow_paths entry, opened (following links: the config is the operator's word). */
typedef struct root {
        const char *given;
        char norm[PATH_MAX];  /* given, folded as paths from the wire are */
        char canon[PATH_MAX]; /* where it resolves */
        int fd;               /* O_PATH; -1 when it does not exist (then nothing is beneath it) */
        bool dir;
} root_t;

typedef struct roots {
        root_t *v;
        size_t n;
        char work[PATH_MAX];
        bool defaults; /* no allow_paths: work_dir and mount_root */
} roots_t;

/* A path resolved beneath a root: the deepest component that exists, and the rest. */
typedef struct res {
        int fd;                 /* O_PATH of the deepest existing component */
        struct stat st;         /* of fd */
        char canon[PATH_MAX];   /* canonical path of the whole: fd's, then missing */
        char missing[PATH_MAX]; /* components below fd that do not exist; "" when all do */
        const root_t *root;
} res_t;

enum {
        R_NOFOLLOW = 1u << 0,   /* a final link is the answer, not followed */
        R_MISSING_OK = 1u << 1, /* a missing tail is fine (missing[] holds it) */
};

/* path for a message: control characters would break the one-line rule. */
static const char *echo(const char *path, char *buf, size_t len)
{
        size_t i = 0;
        for (const char *p = path ? path : ""; *p && i + 1 < len; p++)
                buf[i++] = (unsigned char)*p < 0x20 || *p == 0x7f ? '?' : *p;
        buf[i] = 0;
        return buf;
}

/* Folds doubled slashes, "." components and a trailing slash of an absolute path; keeps "..":
 * only the sandbox knows where one leads. */
static int fold(const char *in, char *out, size_t len)
{
        size_t o = 0;
        const char *p = in;

        if (in[0] != '/')
                return -EINVAL;
        while (*p) {
                const char *end;
                size_t n;
                while (*p == '/')
                        p++;
                end = strchrnul(p, '/');
                n = (size_t)(end - p);
                if (n == 0 || (n == 1 && p[0] == '.')) {
                        p = end;
                        continue;
                }
                if (o + 1 + n + 1 > len)
                        return -ENAMETOOLONG;
                out[o++] = '/';
                memcpy(out + o, p, n);
                o += n;
                p = end;
        }
        if (o == 0) {
                if (len < 2)
                        return -ENAMETOOLONG;
                out[o++] = '/';
        }
        out[o] = 0;
        return 0;
}

/* The part of folded path below folded dir ("." for dir itself), or NULL when not below it. */
static const char *below(const char *path, const char *dir)
{
        size_t n = strlen(dir);
        if (streq(dir, "/"))
                return path[1] ? path + 1 : ".";
        if (strncmp(path, dir, n) != 0 || (path[n] != 0 && path[n] != '/'))
                return NULL;
        return path[n] ? path + n + 1 : ".";
}

static bool under(const char *path, const char *dir)
{
        return below(path, dir) != NULL;
}

static void roots_close(roots_t *rs)
{
        for (size_t i = 0; i < rs->n; i++)
                if (rs->v[i].fd >= 0)
                        close(rs->v[i].fd);
        free(rs->v);
        rs->v = NULL;
        rs->n = 0;
}

static void root_open(root_t *rt, const char *given)
{
        struct stat st;
        rt->given = given;
        rt->fd = -1;
        if (!given || given[0] != '/' || fold(given, rt->norm, sizeof(rt->norm)) < 0)
                return;
        rt->fd = open(given, O_PATH | O_CLOEXEC);
        if (rt->fd < 0)
                return;
        /* "/" is never a root, however it is spelled. */
        if (sandbox_fd_path(rt->fd, rt->canon, sizeof(rt->canon)) < 0 || streq(rt->canon, "/") ||
            fstat(rt->fd, &st) < 0) {
                close(rt->fd);
                rt->fd = -1;
                return;
        }
        rt->dir = S_ISDIR(st.st_mode);
}

static int roots_open(const agent_config_t *cfg, roots_t *rs)
{
        memset(rs, 0, sizeof(*rs));
        rs->defaults = cfg->allow_paths.n == 0;
        if (cfg->work_dir)
                snprintf(rs->work, sizeof(rs->work), "%s", cfg->work_dir);
        else
                snprintf(rs->work, sizeof(rs->work), "%s/work",
                         cfg->state_dir ? cfg->state_dir : DEFAULT_STATE_DIR);
        rs->n = rs->defaults ? 2 : cfg->allow_paths.n;
        rs->v = calloc(rs->n, sizeof(*rs->v));
        if (!rs->v)
                return -ENOMEM;
        if (rs->defaults) {
                root_open(&rs->v[0], rs->work);
                root_open(&rs->v[1], cfg->mount_root);
        } else
                for (size_t i = 0; i < rs->n; i++)
                        root_open(&rs->v[i], cfg->allow_paths.v[i]);
        return 0;
}

/* "A, B" for messages, saying where the list comes from. */
static const char *roots_list(const roots_t *rs, char *buf, size_t len)
{
        size_t o = 0;
        buf[0] = 0;
        for (size_t i = 0; i < rs->n && o + 1 < len; i++)
                if (rs->v[i].given)
                        o += (size_t)snprintf(buf + o, len - o, "%s%s", o ? ", " : "",
                                              rs->v[i].given);
        if (o >= len)
                o = len - 1;
        if (rs->defaults)
                snprintf(buf + o, len - o, "%s: work_dir and mount_root, as no allow_paths is set",
                         o ? "" : "nothing");
        return buf;
}

/* Opens rel beneath one root; a missing tail goes to r->missing when R_MISSING_OK. */
static int resolve_in(const root_t *rt, const char *rel, unsigned rflags, res_t *r)
{
        char prefix[PATH_MAX];
        int fd = -1, e;

        r->missing[0] = 0;
        if (streq(rel, ".")) {
                fd = fcntl(rt->fd, F_DUPFD_CLOEXEC, 3);
                if (fd < 0)
                        return -errno;
                r->fd = fd;
                return 0;
        }
        if (!rt->dir)
                return -ENOTDIR;
        e = sandbox_open(rt->fd, rel, rflags & R_NOFOLLOW ? SANDBOX_NOFOLLOW : 0, &fd);
        if (e == 0) {
                r->fd = fd;
                return 0;
        }
        if (e != -ENOENT || !(rflags & R_MISSING_OK))
                return e;
        /* Strip components until what is left exists; those stripped cannot be links, but a
         * ".." among them would climb out of a directory that does not exist. */
        snprintf(prefix, sizeof(prefix), "%s", rel);
        for (;;) {
                char *slash = strrchr(prefix, '/');
                const char *last = slash ? slash + 1 : prefix;
                char tmp[PATH_MAX];
                if (streq(last, "..") || streq(last, "."))
                        return -ENOENT;
                snprintf(tmp, sizeof(tmp), "%s%s%s", last, r->missing[0] ? "/" : "", r->missing);
                snprintf(r->missing, sizeof(r->missing), "%s", tmp);
                if (!slash)
                        /* Nothing but the root itself exists. */
                        fd = fcntl(rt->fd, F_DUPFD_CLOEXEC, 3), e = fd < 0 ? -errno : 0;
                else {
                        *slash = 0;
                        e = sandbox_open(rt->fd, prefix, SANDBOX_DIRECTORY, &fd);
                }
                if (e == 0) {
                        r->fd = fd;
                        return 0;
                }
                if (e != -ENOENT)
                        return e;
        }
}

/* Resolves folded path beneath the root that names it (the longest first; a nested root is
 * tried next when the first one's resolution fails). -EPERM with *first NULL: no root names
 * it; -ENOENT: the root that names it does not exist. */
static int resolve(const roots_t *rs, const char *path, unsigned rflags, res_t *r,
                   const root_t **first)
{
        int err = -EPERM;
        bool tried[rs->n ? rs->n : 1];

        memset(tried, 0, sizeof(tried));
        *first = NULL;
        for (;;) {
                const root_t *best = NULL;
                const char *rel = NULL;
                size_t best_len = 0;
                for (size_t i = 0; i < rs->n; i++) {
                        const root_t *rt = &rs->v[i];
                        const char *b;
                        if (!tried[i] && rt->fd < 0 && rt->norm[0] && below(path, rt->norm) &&
                            err == -EPERM)
                                err = -ENOENT; /* its root does not exist (yet) */
                        if (tried[i] || rt->fd < 0)
                                continue;
                        /* As written in the config, or as it resolves. */
                        if ((b = below(path, rt->norm)) && strlen(rt->norm) >= best_len)
                                best = rt, rel = b, best_len = strlen(rt->norm);
                        if ((b = below(path, rt->canon)) && strlen(rt->canon) >= best_len)
                                best = rt, rel = b, best_len = strlen(rt->canon);
                }
                if (!best)
                        return err;
                tried[best - rs->v] = true;
                int e = resolve_in(best, rel, rflags, r);
                if (e == 0) {
                        char c[PATH_MAX];
                        if ((e = sandbox_fd_path(r->fd, c, sizeof(c))) < 0 ||
                            fstat(r->fd, &r->st) < 0) {
                                e = e < 0 ? e : -errno;
                                close(r->fd);
                                r->fd = -1;
                                return e;
                        }
                        if (snprintf(r->canon, sizeof(r->canon), "%s%s%s", c,
                                     r->missing[0] && !streq(c, "/") ? "/" : "",
                                     r->missing) >= (int)sizeof(r->canon)) {
                                close(r->fd);
                                r->fd = -1;
                                return -ENAMETOOLONG;
                        }
                        r->root = best;
                        return 0;
                }
                if (!*first) {
                        *first = best;
                        err = e;
                }
        }
}

typedef struct ctx {
        const agent_config_t *cfg;
        const char *path; /* as given */
        int purpose;
        char *err;
        size_t errlen;
        char shown[PATH_MAX]; /* path, safe to print */
} ctx_t;

/* "PURPOSE 'PATH' (resolves to CANON)" for a message. */
static const char *what(ctx_t *c, const char *canon, char *buf, size_t len)
{
        char e[PATH_MAX], f[PATH_MAX];
        bool same = !canon || (fold(c->path, f, sizeof(f)) == 0 && streq(f, canon));
        snprintf(buf, len, "%s '%s'%s%s%s", purposes[c->purpose], c->shown,
                 same ? "" : " (resolves to ", same ? "" : echo(canon, e, sizeof(e)),
                 same ? "" : ")");
        return buf;
}

static bool job_purpose(int purpose)
{
        return purpose == PATH_JOB_FILE || purpose == PATH_JOB_DIR;
}

/* The system directory folded names as written, if any ("/" itself too). */
static const char *system_dir_of(const char *folded, int purpose)
{
        if (streq(folded, "/"))
                return "/";
        for (size_t i = 0; i < ELEMENTSOF(system_dirs); i++)
                if (under(folded, system_dirs[i]) &&
                    !(job_purpose(purpose) && under(folded, "/dev/shm")))
                        return system_dirs[i];
        return NULL;
}

static int fail_resolve(ctx_t *c, const roots_t *rs, const root_t *first, const char *folded, int r)
{
        char w[2 * PATH_MAX], l[2048], e[PATH_MAX];
        const char *sys = system_dir_of(folded, c->purpose);
        what(c, NULL, w, sizeof(w));
        switch (r) {
        case -EPERM:
                /* Named outright: the rule that no allow_paths can lift is the one to tell. */
                if (sys)
                        return errorf(
                            c->err, c->errlen, -EPERM, "%s: %s%s is never allowed (allowed: %s)", w,
                            sys, streq(sys, "/") ? "" : " and below", roots_list(rs, l, sizeof(l)));
                return errorf(c->err, c->errlen, -EPERM, "%s: outside allow_paths (allowed: %s)", w,
                              roots_list(rs, l, sizeof(l)));
        case -EXDEV:
                return errorf(c->err, c->errlen, -EPERM,
                              "%s: outside allow_paths: '..' or a symbolic link leads out of %s "
                              "(allowed: %s)",
                              w, echo(first ? first->given : "", e, sizeof(e)),
                              roots_list(rs, l, sizeof(l)));
        case -ELOOP:
                return errorf(c->err, c->errlen, -ELOOP,
                              "%s: too many symbolic links, a loop of them, or a /proc magic link "
                              "on the way",
                              w);
        case -ENOENT:
                return errorf(c->err, c->errlen, -ENOENT, "%s does not exist", w);
        case -ENOTDIR:
                return errorf(c->err, c->errlen, -ENOTDIR,
                              "%s: a component on the way is not a directory", w);
        default:
                return errorf(c->err, c->errlen, r, "%s: cannot resolve it: %s", w, strerror(-r));
        }
}

/* System directories, kernel file systems and file types, on a resolved path. */
static int judge(ctx_t *c, const res_t *r)
{
        char w[2 * PATH_MAX];
        bool exists = !r->missing[0];
        bool blockdev = exists && S_ISBLK(r->st.st_mode);
        struct statfs sf;

        if (streq(r->canon, "/"))
                return errorf(c->err, c->errlen, -EPERM, "%s: / is never allowed",
                              what(c, r->canon, w, sizeof(w)));
        for (size_t i = 0; i < ELEMENTSOF(system_dirs); i++) {
                /* A block device under /dev is one exception for job files; /dev/shm, the
                 * memory file system fio users benchmark RAM with, the other. */
                if (streq(system_dirs[i], "/dev") && job_purpose(c->purpose) &&
                    ((blockdev && c->purpose == PATH_JOB_FILE) || under(r->canon, "/dev/shm")))
                        continue;
                if (under(r->canon, system_dirs[i]))
                        return errorf(c->err, c->errlen, -EPERM,
                                      "%s: %s and below is never allowed",
                                      what(c, r->canon, w, sizeof(w)), system_dirs[i]);
        }
        if (fstatfs(r->fd, &sf) == 0)
                for (size_t i = 0; i < ELEMENTSOF(kernel_fs); i++)
                        if ((long)sf.f_type == kernel_fs[i].magic)
                                return errorf(c->err, c->errlen, -EPERM,
                                              "%s: on a %s file system, which is never allowed",
                                              what(c, r->canon, w, sizeof(w)), kernel_fs[i].name);
        if (!exists)
                return S_ISDIR(r->st.st_mode)
                           ? 0
                           : errorf(c->err, c->errlen, -ENOTDIR,
                                    "%s: a component on the way is not a directory",
                                    what(c, r->canon, w, sizeof(w)));
        if (S_ISLNK(r->st.st_mode))
                return errorf(c->err, c->errlen, -ELOOP,
                              "%s: a symbolic link; job files are never opened through one",
                              what(c, r->canon, w, sizeof(w)));
        if (S_ISDIR(r->st.st_mode)) {
                if (c->purpose == PATH_JOB_FILE)
                        return errorf(c->err, c->errlen, -EISDIR, "%s: a directory, not a file",
                                      what(c, r->canon, w, sizeof(w)));
                return 0;
        }
        if (c->purpose != PATH_JOB_FILE)
                return errorf(c->err, c->errlen, -ENOTDIR, "%s: not a directory",
                              what(c, r->canon, w, sizeof(w)));
        if (S_ISREG(r->st.st_mode))
                return 0;
        if (!blockdev)
                return errorf(c->err, c->errlen, -EPERM,
                              "%s: a device or special file is not allowed here",
                              what(c, r->canon, w, sizeof(w)));
        if (!c->cfg->allow_block_devices)
                return errorf(c->err, c->errlen, -EPERM,
                              "%s: a block device; allowed only with allow_block_devices=true in "
                              "the agent config",
                              what(c, r->canon, w, sizeof(w)));
        return 0;
}

/* Whether a name in directory d (its entry: child) can be changed only by root: d owned by root
 * and writable by no one else, or sticky with child owned by root. */
static bool only_root_can_swap(const struct stat *d, const struct stat *child)
{
        bool others = (d->st_mode & S_IWOTH) || ((d->st_mode & S_IWGRP) && d->st_gid != 0);
        if (d->st_uid != 0)
                return false;
        return !others || ((d->st_mode & S_ISVTX) && child->st_uid == 0);
}

/* For a name another program looks up again: it is canonical, and every directory from / down
 * to it lets only root swap the next component (so that the lookup finds what we checked). */
static int check_named(ctx_t *c, const res_t *r)
{
        char f[PATH_MAX], w[2 * PATH_MAX], e[PATH_MAX], walked[PATH_MAX] = "";
        const char *prog = c->purpose == PATH_MOUNT ? "mount(8)" : "the NFS server";
        struct stat dst, cst;
        int cur, r2 = 0;
        size_t o = 0;

        if (fold(c->path, f, sizeof(f)) < 0 || !streq(f, r->canon))
                return errorf(c->err, c->errlen, -EPERM,
                              "%s: give it without symbolic links, '.' or '..' (%s looks the "
                              "name up again)",
                              what(c, r->canon, w, sizeof(w)), prog);
        cur = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (cur < 0 || fstat(cur, &dst) < 0)
                return errorf(c->err, c->errlen, -errno, "/: %s", strerror(errno));
        for (const char *p = r->canon + 1; *p && r2 == 0;) {
                const char *end = strchrnul(p, '/');
                char name[NAME_MAX + 1];
                size_t n = (size_t)(end - p);
                int next;
                if (n > NAME_MAX) {
                        r2 = -ENAMETOOLONG;
                        break;
                }
                memcpy(name, p, n);
                name[n] = 0;
                next = openat(cur, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
                if (next < 0) {
                        /* The missing tail: nothing more to check beyond its parent. */
                        r2 = errno == ENOENT && r->missing[0] ? 1 : -errno;
                        break;
                }
                if (fstat(next, &cst) < 0) {
                        r2 = -errno;
                        close(next);
                        break;
                }
                if (!only_root_can_swap(&dst, &cst)) {
                        close(next);
                        close(cur);
                        return errorf(
                            c->err, c->errlen, -EPERM,
                            "%s: %s is writable by %s %u (mode %04o): another user could "
                            "swap '%s' for a symbolic link before %s looks it up; make it "
                            "writable by root only, or sticky",
                            what(c, NULL, w, sizeof(w)), o ? walked : "/",
                            dst.st_uid != 0 ? "its owner, uid" : "group",
                            dst.st_uid != 0 ? (unsigned)dst.st_uid : (unsigned)dst.st_gid,
                            (unsigned)(dst.st_mode & 07777), echo(name, e, sizeof(e)), prog);
                }
                if (o + 1 + n < sizeof(walked))
                        o += (size_t)snprintf(walked + o, sizeof(walked) - o, "/%s", name);
                close(cur);
                cur = next;
                dst = cst;
                for (p = end; *p == '/'; p++)
                        ;
        }
        close(cur);
        if (r2 < 0)
                return errorf(c->err, c->errlen, r2, "%s: %s", what(c, NULL, w, sizeof(w)),
                              strerror(-r2));
        /* The walk by name ended where the sandbox did: nothing moved in between. */
        if (r2 == 0 && (dst.st_dev != r->st.st_dev || dst.st_ino != r->st.st_ino))
                return errorf(c->err, c->errlen, -ESTALE,
                              "%s: changed while being checked; try again",
                              what(c, NULL, w, sizeof(w)));
        return 0;
}

static int start(ctx_t *c, const agent_config_t *cfg, const char *path, int purpose, char *folded,
                 char *err, size_t errlen)
{
        c->cfg = cfg;
        c->path = path ? path : "";
        c->purpose = purpose;
        c->err = err;
        c->errlen = errlen;
        echo(c->path, c->shown, sizeof(c->shown));
        if (purpose < PATH_EXPORT || purpose > PATH_JOB_DIR)
                return errorf(err, errlen, -EINVAL, "policy: unknown purpose %d", purpose);
        if (!path || path[0] != '/' || strlen(path) >= PATH_MAX)
                return errorf(err, errlen, -EINVAL, "%s '%s': must be an absolute path (1-%d)",
                              purposes[purpose], c->shown, PATH_MAX - 1);
        if (fold(path, folded, PATH_MAX) < 0)
                return errorf(err, errlen, -ENAMETOOLONG, "%s '%s': too long", purposes[purpose],
                              c->shown);
        return 0;
}

/* Resolves and judges path; r->fd is open on success. */
static int check(ctx_t *c, const char *folded, unsigned rflags, res_t *r)
{
        roots_t rs;
        const root_t *first;
        int e;

        r->fd = -1;
        if ((e = roots_open(c->cfg, &rs)) < 0)
                return errorf(c->err, c->errlen, e, "policy: %s", strerror(-e));
        e = resolve(&rs, folded, rflags, r, &first);
        if (e < 0)
                e = fail_resolve(c, &rs, first, folded, e);
        roots_close(&rs);
        if (e == 0 && (e = judge(c, r)) == 0 &&
            (c->purpose == PATH_EXPORT || c->purpose == PATH_MOUNT))
                e = check_named(c, r);
        if (e < 0 && r->fd >= 0) {
                close(r->fd);
                r->fd = -1;
        }
        return e;
}

/* Makes the missing directories of r below r->fd, one mkdirat at a time, the last one too when
 * last; *fd ends on the deepest. A directory another thread made meanwhile is used, not
 * recorded. */
static int make_dirs(ctx_t *c, res_t *r, bool last, mode_t mode, policy_undo_t *undo)
{
        char path[PATH_MAX], w[2 * PATH_MAX];
        size_t plen = strlen(r->canon) - strlen(r->missing);
        const char *p = r->missing;

        memcpy(path, r->canon, plen);
        path[plen] = 0;
        while (*p) {
                const char *end = strchrnul(p, '/');
                char name[NAME_MAX + 1];
                size_t n = (size_t)(end - p);
                bool final = !*end;
                int fd, e;
                if (final && !last)
                        break;
                if (n > NAME_MAX)
                        return errorf(c->err, c->errlen, -ENAMETOOLONG, "%s: name too long",
                                      what(c, NULL, w, sizeof(w)));
                memcpy(name, p, n);
                name[n] = 0;
                snprintf(path + strlen(path), sizeof(path) - strlen(path), "%s%s",
                         streq(path, "/") ? "" : "/", name);
                bool made = mkdirat(r->fd, name, final ? mode : 0755) == 0;
                if (!made && errno != EEXIST)
                        return errorf(c->err, c->errlen, -errno, "%s: cannot create %s: %s",
                                      what(c, NULL, w, sizeof(w)), path, strerror(errno));
                fd = openat(r->fd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (fd < 0)
                        return errorf(c->err, c->errlen, -errno, "%s: cannot open %s: %s",
                                      what(c, NULL, w, sizeof(w)), path, strerror(errno));
                if (made && (e = policy_undo_add(undo, path, fd, true)) < 0) {
                        close(fd);
                        return errorf(c->err, c->errlen, e, "%s: %s", what(c, NULL, w, sizeof(w)),
                                      strerror(-e));
                }
                close(r->fd);
                r->fd = fd;
                p = *end ? end + 1 : end;
        }
        return 0;
}

static int open_dir(ctx_t *c, const char *folded, int flags, mode_t mode, policy_undo_t *undo,
                    int *ret)
{
        char w[2 * PATH_MAX];
        res_t r;
        int e;

        if ((e = check(c, folded, flags & O_CREAT ? R_MISSING_OK : 0, &r)) < 0)
                return e;
        if (r.missing[0] && (e = make_dirs(c, &r, true, mode, undo)) < 0)
                goto out;
        if (!(flags & O_PATH)) {
                int fd;
                if ((e = sandbox_reopen(r.fd, O_RDONLY | O_DIRECTORY, &fd)) < 0) {
                        e = errorf(c->err, c->errlen, e, "%s: cannot open it: %s",
                                   what(c, r.canon, w, sizeof(w)), strerror(-e));
                        goto out;
                }
                close(r.fd);
                r.fd = fd;
        }
        *ret = r.fd;
        return 0;
out:
        close(r.fd);
        return e;
}

static int open_file(ctx_t *c, const char *folded, int flags, mode_t mode, policy_undo_t *undo,
                     int *ret)
{
        char w[2 * PATH_MAX];
        const char *last = strrchr(folded, '/') + 1;
        int e = 0;

        if (streq(last, "..") || !*last)
                return errorf(c->err, c->errlen, -EISDIR, "%s: names a directory, not a file",
                              what(c, NULL, w, sizeof(w)));
        for (int tries = 0; tries < CREATE_TRIES; tries++) {
                res_t r;
                int fd;
                if ((e = check(c, folded, R_NOFOLLOW | R_MISSING_OK, &r)) < 0)
                        return e;
                if (!r.missing[0]) {
                        /* Another name of the same file may be anywhere on its file system:
                         * a job writes only to files with one. */
                        if ((flags & O_ACCMODE) != O_RDONLY && S_ISREG(r.st.st_mode) &&
                            r.st.st_nlink > 1) {
                                close(r.fd);
                                return errorf(c->err, c->errlen, -EPERM,
                                              "%s: has %lu hard links, and another name may be "
                                              "outside allow_paths; a job writes only to files "
                                              "with one",
                                              what(c, NULL, w, sizeof(w)),
                                              (unsigned long)r.st.st_nlink);
                        }
                        /* It exists: judged (a regular file or an allowed block device), now
                         * opened as that very inode. */
                        e = sandbox_reopen(r.fd, flags & ~(O_CREAT | O_EXCL), &fd);
                        close(r.fd);
                        if (e < 0)
                                return errorf(c->err, c->errlen, e, "cannot open %s: %s", c->shown,
                                              strerror(-e));
                        *ret = fd;
                        return 0;
                }
                if (!(flags & O_CREAT)) {
                        close(r.fd);
                        return errorf(c->err, c->errlen, -ENOENT, "%s does not exist",
                                      what(c, NULL, w, sizeof(w)));
                }
                if ((e = make_dirs(c, &r, false, 0755, undo)) < 0) {
                        close(r.fd);
                        return e;
                }
                fd = openat(r.fd, last, flags | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
                e = fd < 0 ? -errno : 0;
                if (e == -EEXIST) {
                        close(r.fd);
                        continue; /* made by someone else since we looked: look again */
                }
                if (e < 0) {
                        close(r.fd);
                        return errorf(c->err, c->errlen, e, "cannot create %s: %s", c->shown,
                                      strerror(-e));
                }
                if ((e = policy_undo_add(undo, r.canon, fd, false)) < 0) {
                        close(fd);
                        unlinkat(r.fd, last, 0);
                        close(r.fd);
                        return errorf(c->err, c->errlen, e, "%s: %s", c->shown, strerror(-e));
                }
                close(r.fd);
                *ret = fd;
                return 0;
        }
        return errorf(c->err, c->errlen, -EEXIST,
                      "%s: appears and disappears while being created; try again",
                      what(c, NULL, w, sizeof(w)));
}

int policy_open(const agent_config_t *cfg, const char *path, int purpose, int flags, mode_t mode,
                policy_undo_t *undo, int *fd, char *err, size_t errlen)
{
        char folded[PATH_MAX];
        ctx_t c;
        int e;

        if ((e = start(&c, cfg, path, purpose, folded, err, errlen)) < 0)
                return e;
        if (purpose == PATH_JOB_FILE)
                return open_file(&c, folded, flags, mode, undo, fd);
        return open_dir(&c, folded, flags, mode, undo, fd);
}

int policy_resolve_path(const agent_config_t *cfg, const char *path, int purpose, char *out,
                        size_t outlen, char *err, size_t errlen)
{
        char folded[PATH_MAX];
        ctx_t c;
        res_t r;
        int e;

        if ((e = start(&c, cfg, path, purpose, folded, err, errlen)) < 0)
                return e;
        if (purpose == PATH_JOB_FILE) {
                const char *last = strrchr(folded, '/') + 1;
                char w[2 * PATH_MAX];
                if (streq(last, "..") || !*last)
                        return errorf(err, errlen, -EISDIR, "%s: names a directory, not a file",
                                      what(&c, NULL, w, sizeof(w)));
        }
        e = check(&c, folded, R_MISSING_OK | (purpose == PATH_JOB_FILE ? R_NOFOLLOW : 0), &r);
        if (e < 0)
                return e;
        close(r.fd);
        if (out && snprintf(out, outlen, "%s", r.canon) >= (int)outlen)
                return errorf(err, errlen, -ENAMETOOLONG, "%s '%s': resolved path too long",
                              purposes[purpose], c.shown);
        return 0;
}

int policy_check_path(const agent_config_t *cfg, const char *path, int purpose, char *err,
                      size_t errlen)
{
        return policy_resolve_path(cfg, path, purpose, NULL, 0, err, errlen);
}

int policy_verify_named(const agent_config_t *cfg, const char *path, int purpose, int fd, char *err,
                        size_t errlen)
{
        struct stat a, b;
        char e[PATH_MAX];
        int now = -1, r;

        if ((r = policy_open(cfg, path, purpose, O_PATH | O_DIRECTORY, 0, NULL, &now, err,
                             errlen)) < 0)
                return r;
        r = fstat(now, &a) < 0 || fstat(fd, &b) < 0 ? -errno : 0;
        close(now);
        if (r < 0)
                return errorf(err, errlen, r, "%s: %s", path, strerror(-r));
        if (a.st_dev != b.st_dev || a.st_ino != b.st_ino)
                return errorf(err, errlen, -ESTALE,
                              "%s '%s' was replaced by another directory while it was being set up",
                              purposes[purpose], echo(path, e, sizeof(e)));
        return 0;
}
