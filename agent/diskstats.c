/* fio's disk_util: devices under a run's files and their /proc/diskstats growth. */
#include "diskstats.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "fileio.h"
#include "util.h"

#define DISKSTATS_MAX_SIZE (4u << 20) /* /proc/diskstats of a host with many devices */
#define DISKSTATS_MAX_LINES 16384
#define SLAVE_DEPTH_MAX 4 /* dm on md on partitions ... */

struct disks {
        char *sysfs, *path;
        diskstat_t *start; /* every device's counters at the start */
        size_t n_start;
        int64_t start_ns;
        bool begun;
        disk_util_t dev[DISKS_MAX];
        unsigned major[DISKS_MAX], minor[DISKS_MAX];
        size_t n;
        bool ended;
};

static bool is_space(char c)
{
        return c == ' ' || c == '\t';
}

/* The next whitespace-separated field of [*p, end): its start and length, 0 at the end. */
static size_t next_field(const char **p, const char *end, const char **start)
{
        const char *q = *p;
        while (q < end && is_space(*q))
                q++;
        *start = q;
        while (q < end && !is_space(*q) && *q != '\n' && *q)
                q++;
        *p = q;
        return (size_t)(q - *start);
}

static bool field_u64(const char *s, size_t n, uint64_t *v)
{
        uint64_t x = 0;
        if (n == 0 || n > 20)
                return false;
        for (size_t i = 0; i < n; i++) {
                if (s[i] < '0' || s[i] > '9' || __builtin_mul_overflow(x, 10, &x) ||
                    __builtin_add_overflow(x, (uint64_t)(s[i] - '0'), &x))
                        return false;
        }
        *v = x;
        return true;
}

int diskstats_parse_line(const char *line, size_t len, diskstat_t *d)
{
        const char *p = line, *end, *f = NULL;
        const char *nl = memchr(line, '\n', len);
        diskstat_t x;
        uint64_t v;
        size_t n;

        end = nl ? nl : line + len;
        memset(&x, 0, sizeof(x));
        n = next_field(&p, end, &f);
        if (!field_u64(f, n, &v) || v > UINT_MAX)
                return -EINVAL;
        x.major = (unsigned)v;
        n = next_field(&p, end, &f);
        if (!field_u64(f, n, &v) || v > UINT_MAX)
                return -EINVAL;
        x.minor = (unsigned)v;
        n = next_field(&p, end, &f);
        if (n == 0 || n >= sizeof(x.name))
                return -EINVAL;
        for (size_t i = 0; i < n; i++)
                if ((unsigned char)f[i] < 0x21 || (unsigned char)f[i] > 0x7e)
                        return -EINVAL;
        memcpy(x.name, f, n);
        for (int i = 0; i < DISKSTAT_FIELDS; i++) {
                n = next_field(&p, end, &f);
                if (!field_u64(f, n, &x.v[i]))
                        return -EINVAL;
        }
        /* later kernels' discard and flush counters: numbers too, or the line is not one */
        while ((n = next_field(&p, end, &f)) > 0)
                if (!field_u64(f, n, &v))
                        return -EINVAL;
        if (p < end)
                return -EINVAL; /* a NUL inside the line */
        *d = x;
        return 0;
}

int disks_new(const char *sysfs, const char *diskstats, disks_t **ret)
{
        disks_t *d = calloc(1, sizeof(*d));
        if (!d || !(d->sysfs = strdup(sysfs)) || !(d->path = strdup(diskstats))) {
                if (d)
                        free(d->sysfs);
                free(d);
                return -ENOMEM;
        }
        *ret = d;
        return 0;
}

void disks_free(disks_t **dp)
{
        disks_t *d = dp ? *dp : NULL;
        if (!d)
                return;
        free(d->start);
        free(d->sysfs);
        free(d->path);
        free(d);
        *dp = NULL;
}

/* Every line of the kernel's file into *ret (lines that do not parse are left out). */
static int read_all(const char *path, diskstat_t **ret, size_t *n_ret)
{
        char *text = NULL;
        size_t len = 0, n = 0;
        diskstat_t *v = NULL;
        int r = read_full_file(path, 0, DISKSTATS_MAX_SIZE, &text, &len);

        if (r < 0)
                return r;
        for (const char *p = text; p < text + len && n < DISKSTATS_MAX_LINES;) {
                const char *nl = memchr(p, '\n', (size_t)(text + len - p));
                size_t l = nl ? (size_t)(nl - p) : (size_t)(text + len - p);
                diskstat_t one;
                if (diskstats_parse_line(p, l, &one) == 0) {
                        diskstat_t *grown = realloc(v, (n + 1) * sizeof(*v));
                        if (!grown) {
                                free(v);
                                free(text);
                                return -ENOMEM;
                        }
                        v = grown;
                        v[n++] = one;
                }
                p += l + 1;
        }
        free(text);
        *ret = v;
        *n_ret = n;
        return 0;
}

int disks_begin(disks_t *d, int64_t now)
{
        diskstat_t *v = NULL;
        size_t n = 0;
        int r = read_all(d->path, &v, &n);

        if (r < 0)
                return r;
        free(d->start);
        d->start = v;
        d->n_start = n;
        d->start_ns = now;
        d->begun = true;
        return 0;
}

/* "MAJ:MIN" of a sysfs block directory's dev file. */
static int read_devnum(const char *dir, unsigned *major, unsigned *minor)
{
        char path[PATH_MAX], *text = NULL;
        int r;

        if ((size_t)snprintf(path, sizeof(path), "%s/dev", dir) >= sizeof(path))
                return -ENAMETOOLONG;
        if ((r = read_full_file(path, 0, 64, &text, NULL)) < 0)
                return r;
        r = sscanf(text, "%u:%u", major, minor) == 2 ? 0 : -EINVAL;
        free(text);
        return r;
}

static int add_devnum(disks_t *d, unsigned major, unsigned minor, const char *master, int depth);

/* A dm or md device's slaves (sysfs DIR/slaves/NAME): each added for itself, under master. */
static int add_slaves(disks_t *d, const char *dir, const char *master, int depth)
{
        char path[PATH_MAX];
        struct dirent *e;
        DIR *dh;
        int r = 0;

        if ((size_t)snprintf(path, sizeof(path), "%s/slaves", dir) >= sizeof(path))
                return -ENAMETOOLONG;
        if (!(dh = opendir(path)))
                return 0;
        while ((e = readdir(dh)) && r != -E2BIG) {
                char slave[PATH_MAX * 2], real[PATH_MAX];
                unsigned maj, min;
                if (e->d_name[0] == '.')
                        continue;
                snprintf(slave, sizeof(slave), "%s/%s", path, e->d_name);
                if (!realpath(slave, real) || read_devnum(real, &maj, &min) < 0)
                        continue;
                r = add_devnum(d, maj, min, master, depth + 1);
        }
        closedir(dh);
        return r == -E2BIG ? r : 0;
}

/* The device major:minor as fio reports it: a partition's disk; with its slaves. */
static int add_devnum(disks_t *d, unsigned major, unsigned minor, const char *master, int depth)
{
        char link[PATH_MAX], dir[PATH_MAX], probe[PATH_MAX + 16];
        const char *name;
        struct stat st;
        disk_util_t *u;

        if (depth > SLAVE_DEPTH_MAX)
                return 0;
        if ((size_t)snprintf(link, sizeof(link), "%s/dev/block/%u:%u", d->sysfs, major, minor) >=
            sizeof(link))
                return -ENAMETOOLONG;
        if (!realpath(link, dir))
                return -ENOENT; /* no block device behind it (anonymous: tmpfs, NFS, ...) */
        snprintf(probe, sizeof(probe), "%s/partition", dir);
        if (stat(probe, &st) == 0) {
                /* a partition: its disk, the directory above */
                char *slash = strrchr(dir, '/');
                if (!slash || slash == dir)
                        return -ENOENT;
                *slash = '\0';
                if (read_devnum(dir, &major, &minor) < 0)
                        return -ENOENT;
        }
        name = strrchr(dir, '/');
        name = name ? name + 1 : dir;
        if (!*name || strlen(name) >= DISK_NAME_MAX)
                return -ENOENT;
        for (size_t i = 0; i < d->n; i++)
                if (d->major[i] == major && d->minor[i] == minor) {
                        if (master && !d->dev[i].master[0])
                                snprintf(d->dev[i].master, DISK_NAME_MAX, "%s", master);
                        return 0;
                }
        if (d->n == DISKS_MAX)
                return -E2BIG;
        u = &d->dev[d->n];
        memset(u, 0, sizeof(*u));
        snprintf(u->name, sizeof(u->name), "%s", name);
        if (master)
                snprintf(u->master, sizeof(u->master), "%s", master);
        d->major[d->n] = major;
        d->minor[d->n] = minor;
        d->n++;
        return add_slaves(d, dir, u->name, depth);
}

int disks_add(disks_t *d, uint64_t st_dev)
{
        return add_devnum(d, major((dev_t)st_dev), minor((dev_t)st_dev), NULL, 0);
}

int disks_end(disks_t *d, int64_t now)
{
        diskstat_t *v = NULL;
        size_t n = 0;
        int r;

        if (!d->begun)
                return -ESRCH;
        if ((r = read_all(d->path, &v, &n)) < 0)
                return r;
        for (size_t i = 0; i < d->n; i++) {
                const diskstat_t *a = NULL, *b = NULL;
                for (size_t k = 0; k < d->n_start && !a; k++)
                        if (d->start[k].major == d->major[i] && d->start[k].minor == d->minor[i])
                                a = &d->start[k];
                for (size_t k = 0; k < n && !b; k++)
                        if (v[k].major == d->major[i] && v[k].minor == d->minor[i])
                                b = &v[k];
                for (int f = 0; f < DISKSTAT_FIELDS; f++)
                        /* counters that went back (a device removed and added) count nothing */
                        d->dev[i].v[f] = a && b && b->v[f] >= a->v[f] ? b->v[f] - a->v[f] : 0;
                d->dev[i].v[DS_IN_FLIGHT] = b ? b->v[DS_IN_FLIGHT] : 0; /* a level, not a count */
        }
        for (size_t i = 0; i < d->n; i++)
                d->dev[i].msec =
                    now > d->start_ns ? (uint64_t)(now - d->start_ns) / NSEC_PER_MSEC : 0;
        free(v);
        d->ended = true;
        return 0;
}

size_t disks_count(const disks_t *d)
{
        return d && d->ended ? d->n : 0;
}

const disk_util_t *disks_get(const disks_t *d, size_t i)
{
        return d && d->ended && i < d->n ? &d->dev[i] : NULL;
}
