/* libFuzzer target for the agent's path sandbox: the bytes build a random tree of directories,
 * files and symbolic links (relative, absolute, dangling, loops, '..', /proc) in an allow_paths
 * root, beside a victim directory, then feed random paths through the resolver (openat2 and the
 * walk, which must agree), the policy's checks, opens and creations, and the undo of what was
 * made. Nothing may resolve, open or be created outside the root: every fd obtained is checked by
 * device and inode against the tree as it is on disk, the victim must be untouched, and the undo
 * must leave the tree exactly as it was built. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent-config.h"
#include "fuzz.h"
#include "policy.h"
#include "sandbox.h"
#include "util.h"

#define MAX_NODES 14
#define MAX_QUERIES 10
#define MAX_SEEN 256

static char top[PATH_MAX];    /* scratch: cage/ (root/, victim/) */
static char cage[PATH_MAX];   /* top/cage */
static char root[PATH_MAX];   /* the allow_paths root */
static char victim[PATH_MAX]; /* beside it: must never change */
static int rootfd = -1;
static agent_config_t cfg;
/* The cage, the victim and everything in it, held open: any entry made, removed or renamed in a
 * directory changes its mtime, any write a file's; cheaper than a scan each run. */
static const char *const watched[] = {
    "..", ".", "victim", "victim/v0", "victim/vd", "victim/vd/vf", "victim/hl"};
static int watch_fd[ELEMENTSOF(watched)];
static struct stat watch_st[ELEMENTSOF(watched)];

/* Identities (device, inode) with their paths, of a tree walked without following links. */
typedef struct ident {
        dev_t dev;
        ino_t ino;
        char path[96];
} ident_t;

typedef struct seen {
        ident_t v[MAX_SEEN];
        size_t n;
} seen_t;

static void scan_at(int dirfd, const char *rel, seen_t *s)
{
        DIR *d;
        struct dirent *e;
        int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        CHECK(fd >= 0);
        d = fdopendir(fd);
        CHECK(d);
        while ((e = readdir(d))) {
                struct stat st;
                ident_t *id;
                if (streq(e->d_name, ".") || streq(e->d_name, ".."))
                        continue;
                CHECK(fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0);
                CHECK(s->n < MAX_SEEN);
                id = &s->v[s->n++];
                id->dev = st.st_dev;
                id->ino = st.st_ino;
                snprintf(id->path, sizeof(id->path), "%s/%s", rel, e->d_name);
                if (S_ISDIR(st.st_mode)) {
                        int sub =
                            openat(dirfd, e->d_name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                        CHECK(sub >= 0);
                        scan_at(sub, id->path, s);
                        close(sub);
                }
        }
        closedir(d);
}

static void scan(const char *dir, seen_t *s)
{
        struct stat st;
        int fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
        CHECK(fd >= 0);
        CHECK(fstat(fd, &st) == 0);
        s->n = 1;
        s->v[0] = (ident_t){.dev = st.st_dev, .ino = st.st_ino, .path = "."};
        scan_at(fd, ".", s);
        close(fd);
}

static bool holds(const seen_t *s, dev_t dev, ino_t ino)
{
        for (size_t i = 0; i < s->n; i++)
                if (s->v[i].dev == dev && s->v[i].ino == ino)
                        return true;
        return false;
}

/* Removes everything below dirfd (not following links). */
static void wipe(int dirfd)
{
        DIR *d;
        struct dirent *e;
        int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        CHECK(fd >= 0);
        d = fdopendir(fd);
        CHECK(d);
        while ((e = readdir(d))) {
                if (streq(e->d_name, ".") || streq(e->d_name, ".."))
                        continue;
                if (unlinkat(dirfd, e->d_name, 0) == 0)
                        continue;
                CHECK(errno == EISDIR || errno == EPERM);
                int sub = openat(dirfd, e->d_name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                CHECK(sub >= 0);
                wipe(sub);
                close(sub);
                CHECK(unlinkat(dirfd, e->d_name, AT_REMOVEDIR) == 0);
        }
        closedir(d);
}

static void cleanup(void)
{
        char cmd[PATH_MAX + 32];
        if (!top[0])
                return;
        snprintf(cmd, sizeof(cmd), "%s", top);
        umount2(cmd, MNT_DETACH);
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
        if (system(cmd) != 0)
                fprintf(stderr, "fuzz-policy: cannot remove %s\n", top);
}

static void init(void)
{
        char p[PATH_MAX + 64];
        int fd;
        if (rootfd >= 0)
                return;
        snprintf(top, sizeof(top), "%s/fuzz-policy.XXXXXX",
                 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
        CHECK(mkdtemp(top));
        atexit(cleanup);
        /* A private tmpfs where we may (root, our own mount namespace): creating and removing is
         * cheap there, and nothing leaks to the host's mounts. Else the directory as it is. */
        if (geteuid() == 0 && unshare(CLONE_NEWNS) == 0 &&
            mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0)
                (void)mount("fuzz-policy", top, "tmpfs", 0, "size=64m,mode=0700");
        snprintf(cage, sizeof(cage), "%s/cage", top);
        snprintf(root, sizeof(root), "%s/root", cage);
        snprintf(victim, sizeof(victim), "%s/victim", cage);
        CHECK(mkdir(cage, 0755) == 0 && mkdir(root, 0755) == 0 && mkdir(victim, 0755) == 0);
        snprintf(p, sizeof(p), "%s/vd", victim);
        CHECK(mkdir(p, 0755) == 0);
        const char *files[] = {"v0", "vd/vf", "hl"};
        for (size_t i = 0; i < ELEMENTSOF(files); i++) {
                snprintf(p, sizeof(p), "%s/%s", victim, files[i]);
                fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
                CHECK(fd >= 0 && write(fd, "precious", 8) == 8);
                close(fd);
        }
        rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
        CHECK(rootfd >= 0);
        for (size_t i = 0; i < ELEMENTSOF(watched); i++) {
                snprintf(p, sizeof(p), "%s/%s", cage, watched[i]);
                watch_fd[i] = open(p, O_PATH | O_NOFOLLOW | O_CLOEXEC);
                CHECK(watch_fd[i] >= 0 && fstat(watch_fd[i], &watch_st[i]) == 0);
        }
        CHECK(agent_config_defaults(&cfg) == 0);
        CHECK(strv_push(&cfg.allow_paths, root) == 0);
        cfg.allow_block_devices = true;
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
        init();
        return 0;
}

typedef struct in {
        const uint8_t *p;
        size_t n;
} in_t;

static unsigned next(in_t *in)
{
        if (!in->n)
                return 0;
        in->n--;
        return *in->p++;
}

static const char *const names[] = {"a", "b", "c", "d", "l", "m", "n"};
static const char *const comps[] = {"a",    "b",  "c",  "d",  "l",  "m",      "n",
                                    "..",   "..", ".",  "",   "v0", "victim", "root",
                                    "cage", "zz", "vd", "vf", "..."};
/* Link targets: relative ones climbing or staying, dangling, loops; absolute ones (templates
 * with %1$s = the cage), /proc magic links. */
static const char *const targets[] = {
    "..",
    "../..",
    "../../..",
    "../../../..",
    "../victim",
    "../../victim",
    "../../victim/v0",
    "a",
    "a/b",
    "../a",
    ".",
    "l",
    "m",
    "zz",
    "b/../..",
    "./",
    "a/../..",
    "../root/a",
    "../../root",
    "a/",
    "%1$s/victim",
    "%1$s/root",
    "%1$s/root/a",
    "/",
    "/proc/self/root",
    "/proc/self/cwd",
    "/proc/self/root%1$s/victim",
    "/etc",
    "/dev/shm",
    "%1$s/victim/v0",
    "../../cage/victim/vd",
    "n/../../..",
};

/* The cage and the victim as they were made: nothing in or under them changed. */
static void check_victim(void)
{
        for (size_t i = 0; i < ELEMENTSOF(watched); i++) {
                struct stat st;
                const struct stat *o = &watch_st[i];
                CHECK(fstat(watch_fd[i], &st) == 0);
                /* (Not ctime or the link count: the tree hard-links victim/hl on purpose.) */
                if (st.st_ino != o->st_ino || st.st_size != o->st_size ||
                    st.st_mtim.tv_sec != o->st_mtim.tv_sec ||
                    st.st_mtim.tv_nsec != o->st_mtim.tv_nsec) {
                        fprintf(stderr, "%s/%s changed\n", cage, watched[i]);
                        CHECK(!"something outside the root changed");
                }
        }
}

/* Builds the tree from the input: each node a directory, file or link in one made before. */
static void build(in_t *in)
{
        char dirs[MAX_NODES + 1][64] = {"."};
        size_t ndirs = 1, nodes = next(in) % (MAX_NODES + 1);

        for (size_t i = 0; i < nodes; i++) {
                unsigned kind = next(in) % 4;
                const char *parent = dirs[next(in) % ndirs];
                const char *name = names[next(in) % ELEMENTSOF(names)];
                char rel[160];
                snprintf(rel, sizeof(rel), "%s/%s", parent, name);
                if (kind == 0) {
                        if (mkdirat(rootfd, rel, 0755) == 0 && ndirs < ELEMENTSOF(dirs))
                                snprintf(dirs[ndirs++], sizeof(dirs[0]), "%s", rel);
                } else if (kind == 1) {
                        int fd = openat(rootfd, rel,
                                        O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
                        if (fd >= 0)
                                close(fd);
                } else if (kind == 3) {
                        /* A hard link to a victim file: the same inode under a name inside. */
                        char v[PATH_MAX + 64];
                        snprintf(v, sizeof(v), "%s/hl", victim);
                        (void)linkat(AT_FDCWD, v, rootfd, rel, 0);
                } else {
                        char t[PATH_MAX + 128];
                        snprintf(t, sizeof(t), targets[next(in) % ELEMENTSOF(targets)], cage);
                        (void)symlinkat(t, rootfd, rel);
                }
        }
}

/* A path from the input: relative to the root, or absolute through the root, the cage, /proc's
 * view of /, or / itself. */
static void make_path(in_t *in, char *buf, size_t len, bool *relative)
{
        unsigned prefix = next(in) % 5, ncomp = next(in) % 7;
        size_t o = 0;
        *relative = prefix == 0;
        switch (prefix) {
        case 1:
                o = (size_t)snprintf(buf, len, "%s", root);
                break;
        case 2:
                o = (size_t)snprintf(buf, len, "%s", cage);
                break;
        case 3:
                o = (size_t)snprintf(buf, len, "/proc/self/root%s", root);
                break;
        default:
                buf[0] = 0;
                break;
        }
        for (unsigned i = 0; i < ncomp && o + 16 < len; i++)
                o += (size_t)snprintf(buf + o, len - o, "%s%s", (i || prefix) ? "/" : "",
                                      comps[next(in) % ELEMENTSOF(comps)]);
        if (next(in) % 4 == 0 && o + 2 < len)
                buf[o++] = '/', buf[o] = 0;
        if (!buf[0] && !*relative)
                snprintf(buf, len, "/");
}

/* The same resolution through openat2 and through the walk: both fail, or both give one inode,
 * inside the tree. */
static void differential(const char *rel, unsigned flags, const seen_t *tree)
{
        int a = -1, b = -1, ra, rb;
        struct stat sa, sb;
        sandbox_force_walk(false);
        ra = sandbox_open(rootfd, rel, flags, &a);
        sandbox_force_walk(true);
        rb = sandbox_open(rootfd, rel, flags, &b);
        sandbox_force_walk(false);
        if ((ra == 0) != (rb == 0)) {
                fprintf(stderr, "'%s' flags %u: openat2 %d, walk %d\n", rel, flags, ra, rb);
                CHECK(!"openat2 and the walk disagree");
        }
        if (ra == 0) {
                CHECK(fstat(a, &sa) == 0 && fstat(b, &sb) == 0);
                if (sa.st_dev != sb.st_dev || sa.st_ino != sb.st_ino)
                        fprintf(stderr, "'%s' flags %u: different inodes\n", rel, flags);
                CHECK(sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino);
                if (!holds(tree, sa.st_dev, sa.st_ino))
                        fprintf(stderr, "'%s' flags %u: resolved outside the root\n", rel, flags);
                CHECK(holds(tree, sa.st_dev, sa.st_ino));
                close(a);
                close(b);
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        in_t in = {data, size};
        /* Static: a fresh 5 x 30 KB each run would cost more than the run. */
        static seen_t sb, sa, sn;
        seen_t *before = &sb, *after = &sa, *now = &sn;
        size_t made = 0;
        policy_undo_t undo = {0};
        int fds[MAX_QUERIES], nfds = 0;
        unsigned queries;
        char err[2048];

        init();
        if (size > 512)
                goto out;
        build(&in);
        before->n = now->n = 0; /* scanned when first needed */
        queries = 1 + next(&in) % MAX_QUERIES;
        for (unsigned q = 0; q < queries; q++) {
                char path[PATH_MAX];
                bool relative;
                unsigned op = next(&in) % 6, purpose = next(&in) % 4;
                int fd = -1, r;

                make_path(&in, path, sizeof(path), &relative);
                if (relative || op == 0) {
                        /* The resolver itself, on the part below the root. */
                        size_t rl = strlen(root);
                        const char *rel = path;
                        if (!relative) {
                                if (strncmp(path, root, rl) != 0 || (path[rl] && path[rl] != '/'))
                                        continue;
                                for (rel = path + rl; *rel == '/'; rel++)
                                        ;
                                if (!*rel)
                                        rel = ".";
                        }
                        /* The tree as it is now, with what earlier queries made. */
                        if (!before->n)
                                scan(root, before);
                        if (!now->n || undo.n != made) {
                                scan(root, now);
                                made = undo.n;
                        }
                        differential(rel, purpose & 3, now);
                        continue;
                }
                if (!before->n)
                        scan(root, before);
                switch (op) {
                case 1:
                        (void)policy_resolve_path(&cfg, path, (int)purpose, NULL, 0, err,
                                                  sizeof(err));
                        CHECK(!strchr(err, '\n'));
                        continue;
                case 2:
                        r = policy_open(&cfg, path, PATH_JOB_FILE, O_RDONLY | O_NONBLOCK, 0, NULL,
                                        &fd, err, sizeof(err));
                        break;
                case 3:
                        r = policy_open(&cfg, path, PATH_JOB_FILE, O_RDWR | O_CREAT, 0644, &undo,
                                        &fd, err, sizeof(err));
                        if (r == 0)
                                /* A byte that would show on a victim file. */
                                CHECK(pwrite(fd, "X", 1, 0) == 1);
                        break;
                case 4:
                        r = policy_open(&cfg, path, PATH_JOB_DIR, O_PATH | O_DIRECTORY | O_CREAT,
                                        0755, &undo, &fd, err, sizeof(err));
                        break;
                default:
                        r = policy_open(&cfg, path, purpose == 0 ? PATH_EXPORT : PATH_MOUNT,
                                        O_PATH | O_DIRECTORY | (purpose & 1 ? O_CREAT : 0), 0755,
                                        &undo, &fd, err, sizeof(err));
                        break;
                }
                CHECK(r == 0 ? fd >= 0 : !strchr(err, '\n'));
                if (r == 0)
                        fds[nfds++] = fd;
        }
        /* Everything opened or made is in the tree as it is now. */
        if (nfds)
                scan(root, after);
        for (int i = 0; i < nfds; i++) {
                struct stat st;
                CHECK(fstat(fds[i], &st) == 0);
                if (!holds(after, st.st_dev, st.st_ino))
                        CHECK(!"policy_open gave an fd outside the root");
                close(fds[i]);
        }
        /* Undo leaves the tree as built (files written through their fd changed size and
         * mtime: identities are compared); the victim and the cage never changed. */
        made = undo.n;
        CHECK(policy_undo_run(&cfg, &undo, err, sizeof(err)) == 0);
        if (made || nfds) {
                CHECK(before->n);
                scan(root, after);
                CHECK(after->n == before->n);
                for (size_t i = 0; i < before->n; i++)
                        CHECK(holds(after, before->v[i].dev, before->v[i].ino));
        }
        check_victim();
        wipe(rootfd);
out:
        return 0;
}
