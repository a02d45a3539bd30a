/* The restore record: a journal of what the agent changed on this host (one synced entry file per
 * change, plus a copy of each saved file), replayed newest first to put everything back. */
#include "restore.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "kv.h"
#include "log.h"
#include "mountinfo.h"
#include "helper.h"
#include "sysctl-name.h"
#include "util.h"

#define RESTORE_MAGIC "iofleet-restore=1"
#define RESTORE_END "end=1"
#define RESTORE_MAX_FILE (16u << 20) /* a saved file's bytes */
#define RESTORE_MAX_ENTRY 65536u     /* an entry file, escaped values included */
#define RESTORE_MAX_SYSCTL 65536u    /* a sysctl value as read */
#define RESTORE_MAX_NUM 99999999u
#define RESTORE_MAX_OPS 8
#define RESTORE_UMOUNT_TIMEOUT_MS 60000

typedef enum entry_kind {
        ENTRY_FILE,
        ENTRY_SYSCTL,
        ENTRY_SERVICE,
        ENTRY_MOUNT,
        ENTRY_BAD, /* committed but unreadable: kept and reported, never guessed at */
} entry_kind_t;

typedef struct entry {
        unsigned num;
        entry_kind_t kind;
        char *a;     /* file: path; sysctl: name; service: kind; mount: umount_bin */
        char *b;     /* sysctl: root; service: name; mount: mountpoint */
        char *value; /* sysctl: the old value, exactly as read; bad: why */
        bool flag;   /* file: existed; service: was_running; mount: created_dir */
        mode_t mode;
        uid_t uid;
        gid_t gid;
        uint64_t size, hash;
        int64_t mtime_sec, mtime_nsec;
} entry_t;

struct restore {
        int dirfd;
        char *dir;
        entry_t *v;
        size_t n;
        unsigned next;
        restore_service_ops_t ops[RESTORE_MAX_OPS];
        size_t n_ops;
};

static const char *const kind_names[] = {"file", "sysctl", "service", "mount", "bad"};

static void entry_free(entry_t *e)
{
        free(e->a);
        free(e->b);
        free(e->value);
        *e = (entry_t){0};
}

static void entry_name(unsigned num, const char *suffix, char *buf, size_t len)
{
        snprintf(buf, len, "%08u.%s", num, suffix);
}

/* ---- encoding: key=value lines, values %XX-escaped outside printable ASCII ---- */

static int put_escaped(FILE *f, const char *key, const char *v, size_t n)
{
        fprintf(f, "%s=", key);
        for (size_t i = 0; i < n; i++) {
                unsigned char c = (unsigned char)v[i];
                if (c <= 0x20 || c >= 0x7f || c == '%')
                        fprintf(f, "%%%02x", c);
                else
                        fputc(c, f);
        }
        fputc('\n', f);
        return 0;
}

static int hexval(char c)
{
        if (c >= '0' && c <= '9')
                return c - '0';
        if (c >= 'a' && c <= 'f')
                return c - 'a' + 10;
        if (c >= 'A' && c <= 'F')
                return c - 'A' + 10;
        return -1;
}

/* Undoes put_escaped in place; false on a bad escape or an escaped NUL. */
static bool unescape_inplace(char *s)
{
        char *o = s;
        for (char *p = s; *p; p++) {
                if (*p != '%') {
                        *o++ = *p;
                        continue;
                }
                int h = hexval(p[1]), l = h < 0 ? -1 : hexval(p[2]);
                if (h < 0 || l < 0 || (h == 0 && l == 0))
                        return false;
                *o++ = (char)(h * 16 + l);
                p += 2;
        }
        *o = 0;
        return true;
}

/* ---- durable writes into the record directory ---- */

static int write_all(int fd, const void *buf, size_t n)
{
        const char *p = buf;
        while (n > 0) {
                ssize_t w = write(fd, p, n);
                if (w < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                p += w;
                n -= (size_t)w;
        }
        return 0;
}

/* Reads a whole file (at most max bytes, -EFBIG beyond) into a malloc'd NUL-terminated buffer. */
static int read_fd_all(int fd, size_t max, char **ret, size_t *retlen)
{
        size_t cap = 4096, n = 0;
        char *buf = malloc(cap + 1);
        if (!buf)
                return -ENOMEM;
        for (;;) {
                if (n == cap) {
                        if (cap > max) {
                                free(buf);
                                return -EFBIG;
                        }
                        cap *= 2;
                        char *nb = realloc(buf, cap + 1);
                        if (!nb) {
                                free(buf);
                                return -ENOMEM;
                        }
                        buf = nb;
                }
                ssize_t r = read(fd, buf + n, cap - n);
                if (r < 0) {
                        if (errno == EINTR)
                                continue;
                        int e = -errno;
                        free(buf);
                        return e;
                }
                if (r == 0)
                        break;
                n += (size_t)r;
        }
        if (n > max) {
                free(buf);
                return -EFBIG;
        }
        buf[n] = 0;
        *ret = buf;
        *retlen = n;
        return 0;
}

static int write_record_file(restore_t *r, const char *name, const void *buf, size_t n)
{
        char tmp[64];
        snprintf(tmp, sizeof(tmp), "%s.tmp", name);
        int fd = openat(r->dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (fd < 0)
                return -errno;
        int e = write_all(fd, buf, n);
        if (e == 0 && fsync(fd) < 0)
                e = -errno;
        close(fd);
        if (e == 0 && renameat(r->dirfd, tmp, r->dirfd, name) < 0)
                e = -errno;
        if (e < 0) {
                unlinkat(r->dirfd, tmp, 0);
                return e;
        }
        return 0;
}

/* Writes entry e (and, for a file, its bytes first) and syncs the directory: when this returns
 * 0 the entry survives a crash. */
static int entry_commit(restore_t *r, entry_t *e, const char *data, size_t datalen)
{
        if (r->next > RESTORE_MAX_NUM)
                return -ENOSPC;
        e->num = r->next;
        char name[64];
        int ret;
        if (e->kind == ENTRY_FILE && e->flag) {
                entry_name(e->num, "data", name, sizeof(name));
                ret = write_record_file(r, name, data, datalen);
                if (ret < 0)
                        return ret;
        }
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        if (!f)
                return -ENOMEM;
        fprintf(f, "%s\nkind=%s\n", RESTORE_MAGIC, kind_names[e->kind]);
        switch (e->kind) {
        case ENTRY_FILE:
                put_escaped(f, "path", e->a, strlen(e->a));
                fprintf(f, "existed=%d\n", e->flag);
                if (e->flag)
                        fprintf(f,
                                "mode=%o\nuid=%u\ngid=%u\nsize=%" PRIu64 "\nxxh64=%016" PRIx64
                                "\nmtime=%" PRId64 ".%09" PRId64 "\n",
                                (unsigned)e->mode, (unsigned)e->uid, (unsigned)e->gid, e->size,
                                e->hash, e->mtime_sec, e->mtime_nsec);
                break;
        case ENTRY_SYSCTL:
                put_escaped(f, "name", e->a, strlen(e->a));
                put_escaped(f, "root", e->b, strlen(e->b));
                put_escaped(f, "value", e->value, strlen(e->value));
                break;
        case ENTRY_SERVICE:
                put_escaped(f, "service_kind", e->a, strlen(e->a));
                put_escaped(f, "name", e->b, strlen(e->b));
                fprintf(f, "was_running=%d\n", e->flag);
                break;
        case ENTRY_MOUNT:
                put_escaped(f, "umount_bin", e->a, strlen(e->a));
                put_escaped(f, "mountpoint", e->b, strlen(e->b));
                fprintf(f, "created_dir=%d\n", e->flag);
                break;
        case ENTRY_BAD:
                break;
        }
        fprintf(f, "%s\n", RESTORE_END);
        if (fclose(f) != 0) {
                free(buf);
                return -ENOMEM;
        }
        entry_name(e->num, "entry", name, sizeof(name));
        ret = write_record_file(r, name, buf, len);
        free(buf);
        if (ret == 0 && fsync(r->dirfd) < 0)
                ret = -errno;
        if (ret < 0) {
                unlinkat(r->dirfd, name, 0);
                entry_name(e->num, "data", name, sizeof(name));
                unlinkat(r->dirfd, name, 0);
                return ret;
        }
        entry_t *nv = realloc(r->v, (r->n + 1) * sizeof(*nv));
        if (!nv)
                return -ENOMEM; /* on disk already: replayed at the next start */
        r->v = nv;
        r->v[r->n++] = *e;
        *e = (entry_t){0};
        r->next++;
        return 0;
}

/* ---- loading ---- */

static bool path_ok(const char *p)
{
        size_t n = p ? strlen(p) : 0;
        return n >= 2 && n < PATH_MAX && p[0] == '/';
}

static bool word_ok(const char *s)
{
        size_t n = s ? strlen(s) : 0;
        if (n == 0 || n > 255)
                return false;
        for (size_t i = 0; i < n; i++)
                if ((unsigned char)s[i] < 0x21 || (unsigned char)s[i] >= 0x7f)
                        return false;
        return true;
}

static bool parse_u64(const char *s, int base, uint64_t max, uint64_t *v)
{
        if (!s || !*s)
                return false;
        char *end;
        errno = 0;
        unsigned long long x = strtoull(s, &end, base);
        if (errno || *end || s[0] == '-' || x > max)
                return false;
        *v = x;
        return true;
}

static bool parse_bool01(const char *s, bool *v)
{
        if (!s || (!streq(s, "0") && !streq(s, "1")))
                return false;
        *v = s[0] == '1';
        return true;
}

static int dup_field(const kvlist_t *kv, const char *key, char **dst)
{
        const char *v = kv_get(kv, key);
        if (!v)
                return -EINVAL;
        *dst = strdup(v);
        return *dst ? 0 : -ENOMEM;
}

/* Fills e from an entry file's key=value lines; a message in why when it does not check out. */
static int entry_from_kv(const kvlist_t *kv, entry_t *e, char *why, size_t whylen)
{
        const char *kind = kv_get(kv, "kind");
        uint64_t x;
        if (!kind)
                return errorf(why, whylen, -EINVAL, "no kind");
        if (streq(kind, "file")) {
                e->kind = ENTRY_FILE;
                if (dup_field(kv, "path", &e->a) < 0 || !path_ok(e->a))
                        return errorf(why, whylen, -EINVAL, "file: bad or missing path");
                if (!parse_bool01(kv_get(kv, "existed"), &e->flag))
                        return errorf(why, whylen, -EINVAL, "file: bad existed");
                if (!e->flag)
                        return 0;
                if (!parse_u64(kv_get(kv, "mode"), 8, 07777 | S_IFMT, &x) || !S_ISREG((mode_t)x))
                        return errorf(why, whylen, -EINVAL, "file: bad mode");
                e->mode = (mode_t)x;
                if (!parse_u64(kv_get(kv, "uid"), 10, UINT32_MAX - 1, &x))
                        return errorf(why, whylen, -EINVAL, "file: bad uid");
                e->uid = (uid_t)x;
                if (!parse_u64(kv_get(kv, "gid"), 10, UINT32_MAX - 1, &x))
                        return errorf(why, whylen, -EINVAL, "file: bad gid");
                e->gid = (gid_t)x;
                if (!parse_u64(kv_get(kv, "size"), 10, RESTORE_MAX_FILE, &e->size))
                        return errorf(why, whylen, -EINVAL, "file: bad size");
                if (!parse_u64(kv_get(kv, "xxh64"), 16, UINT64_MAX, &e->hash))
                        return errorf(why, whylen, -EINVAL, "file: bad xxh64");
                const char *mt = kv_get(kv, "mtime");
                long long sec, nsec;
                int used = 0;
                if (!mt || sscanf(mt, "%lld.%9lld%n", &sec, &nsec, &used) != 2 ||
                    mt[used] != 0 || nsec < 0 || nsec > 999999999)
                        return errorf(why, whylen, -EINVAL, "file: bad mtime");
                e->mtime_sec = sec;
                e->mtime_nsec = nsec;
                return 0;
        }
        if (streq(kind, "sysctl")) {
                e->kind = ENTRY_SYSCTL;
                if (dup_field(kv, "name", &e->a) < 0 || sysctl_name_check(e->a, NULL, 0) < 0)
                        return errorf(why, whylen, -EINVAL, "sysctl: bad or missing name");
                if (dup_field(kv, "root", &e->b) < 0 || !path_ok(e->b))
                        return errorf(why, whylen, -EINVAL, "sysctl: bad or missing root");
                if (dup_field(kv, "value", &e->value) < 0 ||
                    strlen(e->value) > RESTORE_MAX_SYSCTL)
                        return errorf(why, whylen, -EINVAL, "sysctl: bad or missing value");
                return 0;
        }
        if (streq(kind, "service")) {
                e->kind = ENTRY_SERVICE;
                if (dup_field(kv, "service_kind", &e->a) < 0 || !word_ok(e->a))
                        return errorf(why, whylen, -EINVAL, "service: bad or missing kind");
                if (dup_field(kv, "name", &e->b) < 0 || !word_ok(e->b))
                        return errorf(why, whylen, -EINVAL, "service: bad or missing name");
                if (!parse_bool01(kv_get(kv, "was_running"), &e->flag))
                        return errorf(why, whylen, -EINVAL, "service: bad was_running");
                return 0;
        }
        if (streq(kind, "mount")) {
                e->kind = ENTRY_MOUNT;
                if (dup_field(kv, "umount_bin", &e->a) < 0 || !path_ok(e->a))
                        return errorf(why, whylen, -EINVAL, "mount: bad or missing umount_bin");
                if (dup_field(kv, "mountpoint", &e->b) < 0 || !path_ok(e->b))
                        return errorf(why, whylen, -EINVAL, "mount: bad or missing mountpoint");
                if (!parse_bool01(kv_get(kv, "created_dir"), &e->flag))
                        return errorf(why, whylen, -EINVAL, "mount: bad created_dir");
                return 0;
        }
        return errorf(why, whylen, -EINVAL, "unknown kind");
}

/* Loads entry num: 1 when committed (e filled; ENTRY_BAD when its content does not check
 * out), 0 when its write never completed (no end marker: the change never started). */
static int entry_load(restore_t *r, unsigned num, entry_t *e)
{
        char name[64], why[128] = "";
        entry_name(num, "entry", name, sizeof(name));
        *e = (entry_t){.num = num};
        int fd = openat(r->dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
        char *buf = NULL;
        size_t len = 0;
        int ret = fd < 0 ? -errno : read_fd_all(fd, RESTORE_MAX_ENTRY, &buf, &len);
        if (fd >= 0)
                close(fd);
        if (ret < 0) {
                snprintf(why, sizeof(why), "unreadable: %s", strerror(-ret));
                goto bad;
        }
        /* Committed means: the magic first line and the end marker as the last line. */
        size_t ml = strlen(RESTORE_MAGIC), el = strlen(RESTORE_END);
        if (len < ml + el + 2 || memcmp(buf, RESTORE_MAGIC "\n", ml + 1) != 0 ||
            memcmp(buf + len - el - 2, "\n" RESTORE_END "\n", el + 2) != 0 ||
            memchr(buf, 0, len)) {
                free(buf);
                return 0;
        }
        kvlist_t kv = {0};
        char *save = NULL;
        for (char *line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
                char *eq = strchr(line, '=');
                if (!eq || !unescape_inplace(eq + 1)) {
                        snprintf(why, sizeof(why), "malformed line");
                        ret = -EINVAL;
                        break;
                }
                *eq = 0;
                if (kv_get(&kv, line)) {
                        snprintf(why, sizeof(why), "key %.40s given twice", line);
                        ret = -EINVAL;
                        break;
                }
                if ((ret = kv_push(&kv, line, eq + 1, 0)) < 0)
                        break;
        }
        free(buf);
        if (ret == 0)
                ret = entry_from_kv(&kv, e, why, sizeof(why));
        kv_clear(&kv);
        if (ret == -ENOMEM)
                return ret;
        if (ret == 0)
                return 1;
bad:
        entry_free(e);
        e->num = num;
        e->kind = ENTRY_BAD;
        e->value = strdup(why);
        return e->value ? 1 : -ENOMEM;
}

static int cmp_entry(const void *x, const void *y)
{
        const entry_t *a = x, *b = y;
        return a->num < b->num ? -1 : a->num > b->num;
}

/* Parses "NNNNNNNN.suffix" (exactly 8 digits); 0 when name is not one. */
static unsigned name_num(const char *name, const char **suffix)
{
        unsigned v = 0;
        for (int i = 0; i < 8; i++) {
                if (name[i] < '0' || name[i] > '9')
                        return 0;
                v = v * 10 + (unsigned)(name[i] - '0');
        }
        if (name[8] != '.')
                return 0;
        *suffix = name + 9;
        return v;
}

static int load(restore_t *r)
{
        int fd = openat(r->dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        DIR *d = fdopendir(fd);
        if (!d) {
                int e = -errno;
                close(fd);
                return e;
        }
        unsigned max = 0;
        int ret = 0;
        struct dirent *de;
        while ((de = readdir(d))) {
                const char *suffix;
                unsigned num = name_num(de->d_name, &suffix);
                if (num == 0)
                        continue;
                if (num > max)
                        max = num;
                if (!streq(suffix, "entry"))
                        continue;
                entry_t e;
                int k = entry_load(r, num, &e);
                if (k < 0) {
                        ret = k;
                        break;
                }
                if (k == 0) {
                        log_warning("restore record %s/%s: incomplete write ignored (the change "
                                    "it guarded never started)",
                                    r->dir, de->d_name);
                        continue;
                }
                entry_t *nv = realloc(r->v, (r->n + 1) * sizeof(*nv));
                if (!nv) {
                        entry_free(&e);
                        ret = -ENOMEM;
                        break;
                }
                r->v = nv;
                r->v[r->n++] = e;
        }
        closedir(d);
        if (ret < 0)
                return ret;
        if (r->n > 1)
                qsort(r->v, r->n, sizeof(*r->v), cmp_entry);
        r->next = max + 1;
        return 0;
}

int restore_open(const char *state_dir, restore_t **ret)
{
        if (strempty(state_dir))
                return -EINVAL;
        restore_t *r = calloc(1, sizeof(*r));
        if (!r)
                return -ENOMEM;
        r->dirfd = -1;
        r->next = 1;
        int e;
        if (asprintf(&r->dir, "%s/restore", state_dir) < 0) {
                r->dir = NULL;
                e = -ENOMEM;
                goto fail;
        }
        if ((e = mkdir_p(r->dir, 0700)) < 0)
                goto fail;
        r->dirfd = open(r->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
        if (r->dirfd < 0) {
                e = -errno;
                goto fail;
        }
        if ((e = load(r)) < 0)
                goto fail;
        *ret = r;
        return 0;
fail:
        restore_close(&r);
        return e;
}

void restore_close(restore_t **rp)
{
        restore_t *r = *rp;
        if (!r)
                return;
        for (size_t i = 0; i < r->n; i++)
                entry_free(&r->v[i]);
        free(r->v);
        if (r->dirfd >= 0)
                close(r->dirfd);
        free(r->dir);
        free(r);
        *rp = NULL;
}

int restore_register_service(restore_t *r, const restore_service_ops_t *ops)
{
        if (!ops || !word_ok(ops->kind) || !ops->restore)
                return -EINVAL;
        for (size_t i = 0; i < r->n_ops; i++)
                if (streq(r->ops[i].kind, ops->kind)) {
                        r->ops[i] = *ops;
                        return 0;
                }
        if (r->n_ops == RESTORE_MAX_OPS)
                return -ENOSPC;
        r->ops[r->n_ops++] = *ops;
        return 0;
}

bool restore_pending(const restore_t *r)
{
        return r && r->n > 0;
}

/* ---- saving ---- */

static bool have(const restore_t *r, entry_kind_t kind, const char *a, const char *b)
{
        for (size_t i = 0; i < r->n; i++) {
                const entry_t *e = &r->v[i];
                if (e->kind != kind)
                        continue;
                if (kind == ENTRY_FILE && streq(e->a, a))
                        return true;
                if (kind == ENTRY_MOUNT && streq(e->b, b))
                        return true;
                if (kind == ENTRY_SERVICE && streq(e->a, a) && streq(e->b, b))
                        return true;
                /* net.core.somaxconn and net/core/somaxconn are one sysctl. */
                char x[SYSCTL_NAME_MAX + 1], y[SYSCTL_NAME_MAX + 1];
                if (kind == ENTRY_SYSCTL && streq(e->b, b) &&
                    sysctl_name_to_path(e->a, x, sizeof(x)) == 0 &&
                    sysctl_name_to_path(a, y, sizeof(y)) == 0 && streq(x, y))
                        return true;
        }
        return false;
}

int restore_save_file(restore_t *r, const char *path)
{
        if (!path_ok(path) || path[strlen(path) - 1] == '/')
                return -EINVAL;
        if (have(r, ENTRY_FILE, path, NULL))
                return 0;
        entry_t e = {.kind = ENTRY_FILE};
        char *data = NULL;
        size_t len = 0;
        int ret;
        int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK);
        if (fd < 0) {
                if (errno != ENOENT)
                        return errno == ELOOP ? -EINVAL : -errno;
                e.flag = false;
        } else {
                struct stat st;
                if (fstat(fd, &st) < 0) {
                        ret = -errno;
                        close(fd);
                        return ret;
                }
                if (!S_ISREG(st.st_mode)) {
                        close(fd);
                        return -EINVAL;
                }
                ret = read_fd_all(fd, RESTORE_MAX_FILE, &data, &len);
                close(fd);
                if (ret < 0)
                        return ret;
                e.flag = true;
                e.mode = st.st_mode;
                e.uid = st.st_uid;
                e.gid = st.st_gid;
                e.size = len;
                e.hash = XXH64(data, len, 0);
                e.mtime_sec = st.st_mtim.tv_sec;
                e.mtime_nsec = st.st_mtim.tv_nsec;
        }
        e.a = strdup(path);
        ret = e.a ? entry_commit(r, &e, data, len) : -ENOMEM;
        free(data);
        entry_free(&e);
        return ret;
}

static int sysctl_file(const char *root, const char *name, char *buf, size_t len)
{
        char rel[SYSCTL_NAME_MAX + 1];
        int ret = sysctl_name_to_path(name, rel, sizeof(rel));
        if (ret < 0)
                return ret;
        if ((size_t)snprintf(buf, len, "%s/%s", root, rel) >= len)
                return -ENAMETOOLONG;
        return 0;
}

int restore_save_sysctl(restore_t *r, const char *sysctl_root, const char *name)
{
        char path[PATH_MAX];
        if (!path_ok(sysctl_root))
                return -EINVAL;
        int ret = sysctl_file(sysctl_root, name, path, sizeof(path));
        if (ret < 0)
                return ret;
        if (have(r, ENTRY_SYSCTL, name, sysctl_root))
                return 0;
        int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0)
                return -errno;
        char *value = NULL;
        size_t len = 0;
        ret = read_fd_all(fd, RESTORE_MAX_SYSCTL, &value, &len);
        close(fd);
        if (ret < 0)
                return ret;
        if (memchr(value, 0, len)) {
                free(value);
                return -EINVAL;
        }
        entry_t e = {.kind = ENTRY_SYSCTL, .value = value};
        e.a = strdup(name);
        e.b = strdup(sysctl_root);
        ret = e.a && e.b ? entry_commit(r, &e, NULL, 0) : -ENOMEM;
        entry_free(&e);
        return ret;
}

int restore_save_service(restore_t *r, const char *kind, const char *name, bool was_running)
{
        if (!word_ok(kind) || !word_ok(name))
                return -EINVAL;
        if (have(r, ENTRY_SERVICE, kind, name))
                return 0;
        entry_t e = {.kind = ENTRY_SERVICE, .flag = was_running};
        e.a = strdup(kind);
        e.b = strdup(name);
        int ret = e.a && e.b ? entry_commit(r, &e, NULL, 0) : -ENOMEM;
        entry_free(&e);
        return ret;
}

int restore_save_mount(restore_t *r, const char *umount_bin, const char *mountpoint,
                       bool created_dir)
{
        if (!path_ok(umount_bin) || !path_ok(mountpoint))
                return -EINVAL;
        if (have(r, ENTRY_MOUNT, NULL, mountpoint))
                return 0;
        entry_t e = {.kind = ENTRY_MOUNT, .flag = created_dir};
        e.a = strdup(umount_bin);
        e.b = strdup(mountpoint);
        int ret = e.a && e.b ? entry_commit(r, &e, NULL, 0) : -ENOMEM;
        entry_free(&e);
        return ret;
}

/* ---- putting back ---- */

static int fsync_parent(const char *path)
{
        char dir[PATH_MAX];
        snprintf(dir, sizeof(dir), "%s", path);
        char *slash = strrchr(dir, '/');
        if (slash == dir)
                slash[1] = 0;
        else if (slash)
                *slash = 0;
        int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        int ret = fsync(fd) < 0 ? -errno : 0;
        close(fd);
        return ret;
}

static int apply_file(restore_t *r, const entry_t *e, char *err, size_t errlen)
{
        if (!e->flag) {
                if (unlink(e->a) < 0 && errno != ENOENT)
                        return errorf(err, errlen, -errno, "file %s: cannot remove it: %m", e->a);
                fsync_parent(e->a);
                return 0;
        }
        char name[64];
        entry_name(e->num, "data", name, sizeof(name));
        int fd = openat(r->dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
        if (fd < 0)
                return errorf(err, errlen, -errno, "file %s: saved copy %s/%s: %m", e->a, r->dir,
                              name);
        char *data = NULL;
        size_t len = 0;
        int ret = read_fd_all(fd, RESTORE_MAX_FILE, &data, &len);
        close(fd);
        if (ret < 0)
                return errorf(err, errlen, ret, "file %s: saved copy %s/%s: %s", e->a, r->dir,
                              name, strerror(-ret));
        if (len != e->size || XXH64(data, len, 0) != e->hash) {
                free(data);
                return errorf(err, errlen, -EBADMSG,
                              "file %s: saved copy %s/%s does not match its record (size or "
                              "xxh64)",
                              e->a, r->dir, name);
        }
        char tmp[PATH_MAX];
        const char *slash = strrchr(e->a, '/');
        if (snprintf(tmp, sizeof(tmp), "%.*s.%s.iofleet-restore.XXXXXX", (int)(slash - e->a + 1),
                     e->a, slash + 1) >= (int)sizeof(tmp)) {
                free(data);
                return errorf(err, errlen, -ENAMETOOLONG, "file %s: name too long", e->a);
        }
        fd = mkostemp(tmp, O_CLOEXEC);
        if (fd < 0) {
                free(data);
                return errorf(err, errlen, -errno, "file %s: cannot create %s: %m", e->a, tmp);
        }
        ret = write_all(fd, data, len);
        free(data);
        const char *what = "write";
        /* Owner before mode: chown clears set-id bits. */
        if (ret == 0 && fchown(fd, e->uid, e->gid) < 0)
                ret = -errno, what = "chown";
        if (ret == 0 && fchmod(fd, e->mode & 07777) < 0)
                ret = -errno, what = "chmod";
        struct timespec ts[2] = {{.tv_nsec = UTIME_OMIT},
                                 {.tv_sec = e->mtime_sec, .tv_nsec = e->mtime_nsec}};
        if (ret == 0)
                futimens(fd, ts);
        if (ret == 0 && fsync(fd) < 0)
                ret = -errno, what = "fsync";
        close(fd);
        if (ret == 0 && rename(tmp, e->a) < 0)
                ret = -errno, what = "rename";
        if (ret < 0) {
                unlink(tmp);
                return errorf(err, errlen, ret, "file %s: %s failed: %s", e->a, what,
                              strerror(-ret));
        }
        fsync_parent(e->a);
        return 0;
}

static int apply_sysctl(const entry_t *e, char *err, size_t errlen)
{
        char path[PATH_MAX];
        int ret = sysctl_file(e->b, e->a, path, sizeof(path));
        if (ret < 0)
                return errorf(err, errlen, ret, "sysctl %s: bad name or root", e->a);
        int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0)
                return errorf(err, errlen, -errno, "sysctl %s: cannot open %s: %m", e->a, path);
        size_t len = strlen(e->value);
        ret = len ? write_all(fd, e->value, len) : 0;
        if (close(fd) < 0 && ret == 0)
                ret = -errno;
        if (ret < 0)
                return errorf(err, errlen, ret, "sysctl %s: writing back '%.*s' failed: %s", e->a,
                              (int)strcspn(e->value, "\n"), e->value, strerror(-ret));
        return 0;
}

static int apply_service(restore_t *r, const entry_t *e, char *err, size_t errlen)
{
        for (size_t i = 0; i < r->n_ops; i++)
                if (streq(r->ops[i].kind, e->a)) {
                        char e2[512] = "";
                        int ret = r->ops[i].restore(r->ops[i].user, e->b, e->flag, e2, sizeof(e2));
                        if (ret < 0)
                                return errorf(err, errlen, ret, "service %s %s: %s", e->a, e->b,
                                              e2[0] ? e2 : strerror(-ret));
                        return 0;
                }
        return errorf(err, errlen, -ENOENT,
                      "service %s (kind %s): no backend of kind '%s' registered to restore it",
                      e->b, e->a, e->a);
}

static int apply_mount(const entry_t *e, char *err, size_t errlen)
{
        int m = mountinfo_find(NULL, e->b, NULL);
        if (m < 0)
                return errorf(err, errlen, m, "mount %s: reading /proc/self/mountinfo: %s", e->b,
                              strerror(-m));
        if (m > 0) {
                const char *argv[] = {e->a, e->b, NULL};
                char out[512];
                int status = 0;
                int ret = helper_run(argv, RESTORE_UMOUNT_TIMEOUT_MS, out, sizeof(out), &status);
                if (ret < 0)
                        return errorf(err, errlen, ret, "mount %s: running %s: %s", e->b, e->a,
                                      strerror(-ret));
                if (status != 0) {
                        out[strcspn(out, "\n")] = 0;
                        return errorf(err, errlen, -EBUSY, "mount %s: %s exited with %d: %s", e->b,
                                      e->a, status, out);
                }
        }
        if (e->flag && rmdir(e->b) < 0 && errno != ENOENT)
                return errorf(err, errlen, -errno, "mount %s: removing the directory: %m", e->b);
        return 0;
}

/* Removes what is left in the record directory once nothing is pending (incomplete writes,
 * stray temporaries). */
static void sweep(restore_t *r)
{
        int fd = openat(r->dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return;
        DIR *d = fdopendir(fd);
        if (!d) {
                close(fd);
                return;
        }
        struct dirent *de;
        while ((de = readdir(d))) {
                const char *suffix;
                if (name_num(de->d_name, &suffix) > 0)
                        unlinkat(r->dirfd, de->d_name, 0);
        }
        closedir(d);
        fsync(r->dirfd);
        r->next = 1;
}

int restore_apply(restore_t *r, char *err, size_t errlen)
{
        int first = 0;
        size_t failed = 0;
        if (err && errlen)
                err[0] = 0;
        for (size_t i = r->n; i-- > 0;) {
                entry_t *e = &r->v[i];
                char msg[1024] = "";
                int ret;
                switch (e->kind) {
                case ENTRY_FILE:
                        ret = apply_file(r, e, msg, sizeof(msg));
                        break;
                case ENTRY_SYSCTL:
                        ret = apply_sysctl(e, msg, sizeof(msg));
                        break;
                case ENTRY_SERVICE:
                        ret = apply_service(r, e, msg, sizeof(msg));
                        break;
                case ENTRY_MOUNT:
                        ret = apply_mount(e, msg, sizeof(msg));
                        break;
                default:
                        ret = errorf(msg, sizeof(msg), -EBADMSG,
                                     "%s/%08u.entry: %s; put back by hand and remove the file",
                                     r->dir, e->num, e->value ? e->value : "unreadable");
                        break;
                }
                if (ret < 0) {
                        log_warning("restore: %s", msg);
                        if (!first) {
                                first = ret;
                                errorf(err, errlen, ret, "%s", msg);
                        }
                        failed++;
                        continue;
                }
                char name[64];
                entry_name(e->num, "entry", name, sizeof(name));
                unlinkat(r->dirfd, name, 0);
                entry_name(e->num, "data", name, sizeof(name));
                unlinkat(r->dirfd, name, 0);
                entry_free(e);
                memmove(&r->v[i], &r->v[i + 1], (r->n - i - 1) * sizeof(*r->v));
                r->n--;
        }
        if (failed == 0) {
                sweep(r);
                return 0;
        }
        fsync(r->dirfd);
        if (failed > 1 && err && errlen) {
                size_t l = strlen(err);
                snprintf(err + l, errlen - l, " (and %zu more not put back)", failed - 1);
        }
        return first;
}
