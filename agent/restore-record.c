/* The restore record's files: each change one entry file of escaped key=value lines with a
 * commit marker (and a copy of a saved file's bytes), written and synced before the change, and
 * read back, checked field by field, at the next start. */
#include "restore-record.h"

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

#include "fileio.h"
#include "kv.h"
#include "log.h"
#include "mountinfo.h"
#include "helper.h"
#include "sysctl-name.h"
#include "util.h"


static const char *const kind_names[] = {"file",  "sysctl", "service", "mount",
                                         "dir",   "attr",   "bad"};

void restore_entry_free(entry_t *e)
{
        free(e->a);
        free(e->b);
        free(e->value);
        *e = (entry_t){0};
}

void restore_entry_name(unsigned num, const char *suffix, char *buf, size_t len)
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

/* Undoes put_escaped in place; false on a bad escape or an escaped NUL. */
static bool unescape_inplace(char *s)
{
        char *o = s;
        for (char *p = s; *p; p++) {
                if (*p != '%') {
                        *o++ = *p;
                        continue;
                }
                int h = hex_value(p[1]), l = h < 0 ? -1 : hex_value(p[2]);
                if (h < 0 || l < 0 || (h == 0 && l == 0))
                        return false;
                *o++ = (char)(h * 16 + l);
                p += 2;
        }
        *o = 0;
        return true;
}

/* ---- durable writes into the record directory ---- */

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
int restore_entry_commit(restore_t *r, entry_t *e, const char *data, size_t datalen)
{
        if (r->next > RESTORE_MAX_NUM)
                return -ENOSPC;
        e->num = r->next;
        char name[64];
        int ret;
        if (e->kind == ENTRY_FILE && e->flag) {
                restore_entry_name(e->num, "data", name, sizeof(name));
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
        case ENTRY_ATTR:
                put_escaped(f, "path", e->a, strlen(e->a));
                put_escaped(f, "value", e->value, strlen(e->value));
                break;
        case ENTRY_DIR:
                put_escaped(f, "path", e->a, strlen(e->a));
                break;
        case ENTRY_BAD:
                break;
        }
        fprintf(f, "%s\n", RESTORE_END);
        if (fclose(f) != 0) {
                free(buf);
                return -ENOMEM;
        }
        restore_entry_name(e->num, "entry", name, sizeof(name));
        ret = write_record_file(r, name, buf, len);
        free(buf);
        if (ret == 0 && fsync(r->dirfd) < 0)
                ret = -errno;
        if (ret < 0) {
                unlinkat(r->dirfd, name, 0);
                restore_entry_name(e->num, "data", name, sizeof(name));
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

bool restore_path_ok(const char *p)
{
        size_t n = p ? strlen(p) : 0;
        return n >= 2 && n < PATH_MAX && p[0] == '/';
}

bool restore_word_ok(const char *s)
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
                if (dup_field(kv, "path", &e->a) < 0 || !restore_path_ok(e->a))
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
                if (dup_field(kv, "root", &e->b) < 0 || !restore_path_ok(e->b))
                        return errorf(why, whylen, -EINVAL, "sysctl: bad or missing root");
                if (dup_field(kv, "value", &e->value) < 0 ||
                    strlen(e->value) > RESTORE_MAX_SYSCTL)
                        return errorf(why, whylen, -EINVAL, "sysctl: bad or missing value");
                return 0;
        }
        if (streq(kind, "service")) {
                e->kind = ENTRY_SERVICE;
                if (dup_field(kv, "service_kind", &e->a) < 0 || !restore_word_ok(e->a))
                        return errorf(why, whylen, -EINVAL, "service: bad or missing kind");
                if (dup_field(kv, "name", &e->b) < 0 || !restore_word_ok(e->b))
                        return errorf(why, whylen, -EINVAL, "service: bad or missing name");
                if (!parse_bool01(kv_get(kv, "was_running"), &e->flag))
                        return errorf(why, whylen, -EINVAL, "service: bad was_running");
                return 0;
        }
        if (streq(kind, "mount")) {
                e->kind = ENTRY_MOUNT;
                if (dup_field(kv, "umount_bin", &e->a) < 0 || !restore_path_ok(e->a))
                        return errorf(why, whylen, -EINVAL, "mount: bad or missing umount_bin");
                if (dup_field(kv, "mountpoint", &e->b) < 0 || !restore_path_ok(e->b))
                        return errorf(why, whylen, -EINVAL, "mount: bad or missing mountpoint");
                if (!parse_bool01(kv_get(kv, "created_dir"), &e->flag))
                        return errorf(why, whylen, -EINVAL, "mount: bad created_dir");
                return 0;
        }
        if (streq(kind, "attr")) {
                e->kind = ENTRY_ATTR;
                if (dup_field(kv, "path", &e->a) < 0 || !restore_path_ok(e->a) ||
                    strncmp(e->a, "/sys/", 5) != 0)
                        return errorf(why, whylen, -EINVAL, "attr: bad or missing path (not /sys/...)");
                if (dup_field(kv, "value", &e->value) < 0 || !restore_word_ok(e->value))
                        return errorf(why, whylen, -EINVAL, "attr: bad or missing value");
                return 0;
        }
        if (streq(kind, "dir")) {
                e->kind = ENTRY_DIR;
                if (dup_field(kv, "path", &e->a) < 0 || !restore_path_ok(e->a) ||
                    streq(e->a, "/"))
                        return errorf(why, whylen, -EINVAL, "dir: bad or missing path");
                return 0;
        }
        return errorf(why, whylen, -EINVAL, "unknown kind");
}

/* Loads entry num: 1 when committed (e filled; ENTRY_BAD when its content does not check
 * out), 0 when its write never completed (no end marker: the change never started). */
static int entry_load(restore_t *r, unsigned num, entry_t *e)
{
        char name[64], why[128] = "";
        restore_entry_name(num, "entry", name, sizeof(name));
        *e = (entry_t){.num = num};
        char *buf = NULL;
        size_t len = 0;
        int ret = read_full_file_at(r->dirfd, name, READ_FULL_NOFOLLOW | READ_FULL_NONBLOCK,
                                    RESTORE_MAX_ENTRY, &buf, &len);
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
        restore_entry_free(e);
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
unsigned restore_name_num(const char *name, const char **suffix)
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

int restore_record_load(restore_t *r)
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
                unsigned num = restore_name_num(de->d_name, &suffix);
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
                        restore_entry_free(&e);
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

