/* The metadata workload (ioengine=metadata): create, stat, read and delete many files. */
#include "metadata.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

/* Single-writer counters: a plain load and a relaxed store, as the worker's STAT_ADD. */
#define MD_ADD(field, v) __atomic_store_n(&(field), (field) + (v), __ATOMIC_RELAXED)
#define MD_SET(field, v) __atomic_store_n(&(field), (v), __ATOMIC_RELAXED)
#define MD_LOAD(field) __atomic_load_n(&(field), __ATOMIC_RELAXED)

/* Largest write or read: files up to this size take one system call each way. */
#define MD_CHUNK (1u << 20)
/* Data is stamped every this many bytes so no two blocks of any file are alike. */
#define MD_STAMP 4096u
/* Open md.NAME.D directories kept at most (a direct-mapped cache by D). */
#define MD_DIR_CACHE 64u

static const char *const slot_names[MD_SLOTS] = {
    "seq_create",  "seq_stat",  "seq_read",  "seq_delete",
    "rand_create", "rand_stat", "rand_read", "rand_delete",
};

/* One run's working state. */
typedef struct md {
        const metadata_params_t *p;
        metadata_stats_t *st;
        char *err;
        size_t errlen;
        int error; /* first failure, -errno */
        char path[PATH_MAX];      /* a file's or directory's full path, for messages */
        size_t base_len;          /* path holds "DIRECTORY/md.NAME." up to here */
        char dname[NAME_MAX + 1]; /* "md.NAME.D", relative to p->dirfd */
        size_t dname_len;         /* dname holds "md.NAME." up to here */
        char fname[16];           /* "NNNNNNN", relative to its directory */
        struct {
                uint32_t d;
                int fd; /* O_PATH of md.NAME.D, opened without following a link; -1 */
        } cache[MD_DIR_CACHE];
        unsigned digits; /* width of file numbers */
        uint32_t *order; /* visit order of a random slot; NULL when only sequential runs */
        uint64_t *live;  /* bitmap of files this run created and has not removed */
        uint64_t nlive;
        uint8_t *dir_made; /* directories this run created (a pre-existing one is left alone) */
        char *buf;         /* data written by create, then the target of reads */
        size_t buflen;
} md_t;

static int64_t now_ns(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* splitmix64's finaliser: a bijection, so distinct inputs give distinct stamps. */
static uint64_t mix64(uint64_t z)
{
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
}

static uint64_t splitmix64(uint64_t *x)
{
        return mix64(*x += 0x9e3779b97f4a7c15ULL);
}

static void md_fail(md_t *m, int r, const char *fmt, ...) _printf_(3, 4);
static void md_fail(md_t *m, int r, const char *fmt, ...)
{
        va_list ap;
        if (m->error)
                return;
        m->error = r;
        if (m->err && m->errlen) {
                va_start(ap, fmt);
                vsnprintf(m->err, m->errlen, fmt, ap);
                va_end(ap);
        }
}

static uint32_t dir_of(const md_t *m, uint32_t i)
{
        /* Contiguous blocks of names per directory, as bonnie++ spreads them: a sequential pass
         * fills one directory after the other, in name order within each. */
        return (uint32_t)((uint64_t)i * m->p->dirs / m->p->nrfiles);
}

static const char *dir_path(md_t *m, uint32_t d)
{
        size_t n = m->base_len + put_decimal(m->path + m->base_len, d, 1);
        m->path[n] = 0;
        return m->path;
}

static const char *file_path(md_t *m, uint32_t i)
{
        size_t n = m->base_len + put_decimal(m->path + m->base_len, dir_of(m, i), 1);
        m->path[n++] = '/';
        n += put_decimal(m->path + n, i, m->digits);
        m->path[n] = 0;
        return m->path;
}

static const char *dir_name(md_t *m, uint32_t d)
{
        size_t n = m->dname_len + put_decimal(m->dname + m->dname_len, d, 1);
        m->dname[n] = 0;
        return m->dname;
}

static const char *file_name(md_t *m, uint32_t i)
{
        m->fname[put_decimal(m->fname, i, m->digits)] = 0;
        return m->fname;
}

/* The directory file i lives in, opened beneath p->dirfd: a name there swapped for a link is
 * refused (O_NOFOLLOW), so no operation follows one. fd, or -errno. */
static int subdir(md_t *m, uint32_t i)
{
        uint32_t d = dir_of(m, i);
        unsigned slot = d % MD_DIR_CACHE;
        int fd;

        if (m->cache[slot].fd >= 0 && m->cache[slot].d == d)
                return m->cache[slot].fd;
        fd = openat(m->p->dirfd, dir_name(m, d), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        if (m->cache[slot].fd >= 0)
                close(m->cache[slot].fd);
        m->cache[slot].d = d;
        m->cache[slot].fd = fd;
        return fd;
}

static void live_set(md_t *m, uint32_t i)
{
        m->live[i / 64] |= UINT64_C(1) << (i % 64);
        m->nlive++;
}

static void live_clear(md_t *m, uint32_t i)
{
        uint64_t bit = UINT64_C(1) << (i % 64);
        if (m->live[i / 64] & bit) {
                m->live[i / 64] &= ~bit;
                m->nlive--;
        }
}

/* Changes 8 bytes in every 4 KiB about to be written at off of file i, as the worker's scramble
 * does: every block of every file differs, so deduplicating storage cannot flatter the figures. */
static void stamp(md_t *m, uint32_t i, uint64_t off, size_t len)
{
        for (size_t o = 0; o < len; o += MD_STAMP) {
                uint64_t v = mix64(m->p->seed + (uint64_t)i * 0x9e3779b97f4a7c15ULL +
                                   ((off + o) / MD_STAMP) * 0xc2b2ae3d27d4eb4fULL);
                memcpy(m->buf + o, &v, len - o < 8 ? len - o : 8);
        }
}

static int op_create(md_t *m, int slot, uint32_t i, uint64_t *bytes)
{
        const uint64_t size = m->p->filesize;
        int dfd = subdir(m, i), fd, r;

        /* O_EXCL: a file of an earlier run is an error, never silently reused or truncated; it
         * also refuses a symbolic link planted at the name. */
        fd = dfd < 0 ? dfd
                     : openat(dfd, file_name(m, i),
                              O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0) {
                r = dfd < 0 ? dfd : -errno;
                if (r == -EEXIST)
                        md_fail(m, r,
                                "%s: cannot create %s: it already exists (left over from an "
                                "earlier run? remove it; iofleet never reuses one)",
                                slot_names[slot], file_path(m, i));
                else
                        md_fail(m, r, "%s: cannot create %s: %s", slot_names[slot], file_path(m, i),
                                strerror(-r));
                return r;
        }
        live_set(m, i);
        for (uint64_t off = 0; off < size;) {
                size_t len = size - off < m->buflen ? (size_t)(size - off) : m->buflen;
                ssize_t w;
                stamp(m, i, off, len);
                w = write(fd, m->buf, len);
                if (w < 0 && errno == EINTR)
                        continue;
                if (w <= 0) {
                        /* write() returning 0 for a non-empty buffer means no space. */
                        r = w < 0 ? -errno : -ENOSPC;
                        md_fail(m, r, "%s: write to %s at offset %llu: %s", slot_names[slot],
                                file_path(m, i), (unsigned long long)off, strerror(-r));
                        close(fd);
                        return r;
                }
                off += (uint64_t)w;
        }
        /* NFS reports write-back failures at close: they belong to this create. */
        if (close(fd) < 0) {
                r = -errno;
                md_fail(m, r, "%s: close of %s: %s", slot_names[slot], file_path(m, i),
                        strerror(-r));
                return r;
        }
        *bytes = size;
        return 0;
}

static int op_stat(md_t *m, int slot, uint32_t i)
{
        struct stat sb;
        int dfd = subdir(m, i), r;

        if (dfd < 0 || fstatat(dfd, file_name(m, i), &sb, AT_SYMLINK_NOFOLLOW) < 0) {
                r = dfd < 0 ? dfd : -errno;
                md_fail(m, r, "%s: cannot stat %s: %s", slot_names[slot], file_path(m, i),
                        strerror(-r));
                return r;
        }
        /* Cheap here, and it catches a file changed behind the workload's back. */
        if (!S_ISREG(sb.st_mode)) {
                md_fail(m, -EINVAL, "%s: %s is no longer a regular file", slot_names[slot],
                        file_path(m, i));
                return -EINVAL;
        }
        if ((uint64_t)sb.st_size != m->p->filesize) {
                md_fail(m, -EIO, "%s: %s has %lld bytes, %llu were written", slot_names[slot],
                        file_path(m, i), (long long)sb.st_size, (unsigned long long)m->p->filesize);
                return -EIO;
        }
        return 0;
}

static int op_read(md_t *m, int slot, uint32_t i, uint64_t *bytes)
{
        const uint64_t size = m->p->filesize;
        const char *path;
        uint64_t got = 0;
        int dfd = subdir(m, i), fd, r;

        fd = dfd < 0 ? dfd : openat(dfd, file_name(m, i), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        path = fd < 0 ? file_path(m, i) : NULL;
        if (fd < 0) {
                r = dfd < 0 ? dfd : -errno;
                md_fail(m, r, "%s: cannot open %s: %s", slot_names[slot], path, strerror(-r));
                return r;
        }
        while (got < size) {
                size_t len = size - got < m->buflen ? (size_t)(size - got) : m->buflen;
                ssize_t n = read(fd, m->buf, len);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0) {
                        r = n < 0 ? -errno : -EIO;
                        path = file_path(m, i);
                        if (n < 0)
                                md_fail(m, r, "%s: read of %s at offset %llu: %s", slot_names[slot],
                                        path, (unsigned long long)got, strerror(-r));
                        else
                                md_fail(m, r, "%s: %s ends at %llu of the %llu bytes written",
                                        slot_names[slot], path, (unsigned long long)got,
                                        (unsigned long long)size);
                        close(fd);
                        return r;
                }
                got += (uint64_t)n;
        }
        if (close(fd) < 0) {
                r = -errno;
                md_fail(m, r, "%s: close of %s: %s", slot_names[slot], file_path(m, i),
                        strerror(-r));
                return r;
        }
        *bytes = got;
        return 0;
}

static int op_delete(md_t *m, int slot, uint32_t i)
{
        int dfd = subdir(m, i), r;
        if (dfd < 0 || unlinkat(dfd, file_name(m, i), 0) < 0) {
                r = dfd < 0 ? dfd : -errno;
                /* Gone is gone: the cleanup need not try it again. */
                if (r == -ENOENT && dfd >= 0)
                        live_clear(m, i);
                md_fail(m, r, "%s: cannot delete %s: %s", slot_names[slot], file_path(m, i),
                        strerror(-r));
                return r;
        }
        live_clear(m, i);
        return 0;
}

static bool should_stop(const md_t *m, int64_t now)
{
        return (m->p->stop && __atomic_load_n(m->p->stop, __ATOMIC_RELAXED)) ||
               now >= m->p->end_mono;
}

/* One phase over every file: 0 when done, 1 when stopped, -errno on the first failure. */
static int run_phase(md_t *m, int slot)
{
        const metadata_phase_t phase = (metadata_phase_t)(slot % MD_PHASES);
        const bool random = slot >= MD_PHASES;
        metadata_phase_stats_t *ps = &m->st->phase[slot];
        int64_t start, t0, t1;

        if (random)
                metadata_file_order(m->order, m->p->nrfiles, m->p->seed, slot);
        MD_SET(m->st->current, slot);
        start = t1 = now_ns();
        for (uint32_t k = 0; k < m->p->nrfiles; k++) {
                const uint32_t i = random ? m->order[k] : k;
                uint64_t bytes = 0;
                int r = 0;

                if (should_stop(m, t1))
                        return 1;
                t0 = now_ns();
                switch (phase) {
                case MD_CREATE:
                        r = op_create(m, slot, i, &bytes);
                        break;
                case MD_STAT:
                        r = op_stat(m, slot, i);
                        break;
                case MD_READ:
                        r = op_read(m, slot, i, &bytes);
                        break;
                case MD_DELETE:
                        r = op_delete(m, slot, i);
                        break;
                default:
                        r = -EINVAL;
                }
                t1 = now_ns();
                if (r < 0) {
                        MD_ADD(ps->errors, 1);
                        MD_SET(ps->elapsed_ns, t1 - start);
                        return r;
                }
                hist_record(&ps->lat, (uint64_t)(t1 - t0));
                MD_ADD(ps->bytes, bytes);
                MD_ADD(ps->ops, 1);
                MD_SET(ps->elapsed_ns, t1 - start);
        }
        return 0;
}

/* Reports a cleanup failure: as the error when there is none yet, else after it. */
static void cleanup_fail(md_t *m, int r, const char *what, const char *path)
{
        size_t used;
        if (!m->error) {
                md_fail(m, r, "cleanup: cannot remove %s %s: %s", what, path, strerror(-r));
                return;
        }
        used = m->err ? strnlen(m->err, m->errlen) : 0;
        if (m->err && used + 1 < m->errlen)
                snprintf(m->err + used, m->errlen - used, "; cleanup: cannot remove %s %s: %s",
                         what, path, strerror(-r));
}

/* Removes every file this run created and has not deleted, then the directories it made. Runs
 * whatever the stop flag says: nothing may be left behind. */
static void cleanup(md_t *m)
{
        int first = 0;

        for (uint32_t w = 0; m->live && m->nlive && w <= (m->p->nrfiles - 1) / 64; w++) {
                while (m->live[w]) {
                        uint32_t i = w * 64 + (uint32_t)__builtin_ctzll(m->live[w]);
                        int dfd = subdir(m, i);
                        live_clear(m, i);
                        if (dfd >= 0 && unlinkat(dfd, file_name(m, i), 0) == 0)
                                MD_ADD(m->st->cleaned, 1);
                        else if ((dfd < 0 || errno != ENOENT) && !first)
                                cleanup_fail(m, first = dfd < 0 ? dfd : -errno, "file",
                                             file_path(m, i));
                }
        }
        for (uint32_t d = 0; m->dir_made && d < m->p->dirs; d++) {
                if (!m->dir_made[d])
                        continue;
                if (unlinkat(m->p->dirfd, dir_name(m, d), AT_REMOVEDIR) < 0 && errno != ENOENT &&
                    !first)
                        cleanup_fail(m, first = -errno, "directory", dir_path(m, d));
                m->dir_made[d] = 0;
        }
}

static int make_dirs(md_t *m)
{
        for (uint32_t d = 0; d < m->p->dirs; d++) {
                const char *name = dir_name(m, d);
                struct stat sb;
                if (mkdirat(m->p->dirfd, name, 0755) == 0) {
                        m->dir_made[d] = 1;
                        continue;
                }
                if (errno != EEXIST) {
                        md_fail(m, -errno, "cannot create directory %s: %s", dir_path(m, d),
                                strerror(errno));
                        return m->error;
                }
                /* A directory of an earlier run is reused (its files still clash, by name); a
                 * file or a link in its place is not. */
                if (fstatat(m->p->dirfd, name, &sb, AT_SYMLINK_NOFOLLOW) < 0 ||
                    !S_ISDIR(sb.st_mode)) {
                        md_fail(m, -ENOTDIR, "cannot create directory %s: something else is there",
                                dir_path(m, d));
                        return m->error;
                }
        }
        return 0;
}

static int check_params(const metadata_params_t *p, char *err, size_t errlen)
{
        struct stat sb;

        if (strempty(p->directory))
                return errorf(err, errlen, -EINVAL, "directory: the metadata workload needs one");
        if (strempty(p->name) || strchr(p->name, '/') || strlen(p->name) > NAME_MAX - 24)
                return errorf(err, errlen, -EINVAL,
                              "metadata workload: name \"%s\" must be 1 to %d characters without "
                              "'/'",
                              p->name ? p->name : "", NAME_MAX - 24);
        if (p->nrfiles < 1)
                return errorf(err, errlen, -ERANGE,
                              "nrfiles: the metadata workload needs at least 1 file");
        if (p->dirs < 1 || p->dirs > MD_MAX_DIRS)
                return errorf(err, errlen, -ERANGE, "metadata_dirs: %u is out of range 1..%u",
                              p->dirs, MD_MAX_DIRS);
        if (!(p->order & MD_ORDER_BOTH) || (p->order & ~MD_ORDER_BOTH))
                return errorf(err, errlen, -EINVAL,
                              "metadata_order: must be sequential, random or both");
        if (strlen(p->directory) + strlen(p->name) + 32 >= PATH_MAX)
                return errorf(err, errlen, -ENAMETOOLONG,
                              "directory: %.64s... is too long for the metadata workload's paths",
                              p->directory);
        if (p->dirfd < 0)
                return errorf(err, errlen, -EBADF,
                              "directory=%s: not opened through the agent's path policy",
                              p->directory);
        if (fstat(p->dirfd, &sb) < 0)
                return errorf(err, errlen, -errno, "directory=%s: %s", p->directory,
                              strerror(errno));
        if (!S_ISDIR(sb.st_mode))
                return errorf(err, errlen, -ENOTDIR, "directory=%s is not a directory",
                              p->directory);
        return 0;
}

static int md_init(md_t *m, const metadata_params_t *p, metadata_stats_t *st, char *err,
                   size_t errlen)
{
        size_t dlen = strlen(p->directory);
        uint64_t words = ((uint64_t)p->nrfiles + 63) / 64;

        memset(m, 0, sizeof(*m));
        m->p = p;
        m->st = st;
        m->err = err;
        m->errlen = errlen;
        m->digits = MD_NAME_DIGITS;
        for (uint32_t v = (p->nrfiles - 1) / 10000000u; v; v /= 10)
                m->digits++;
        /* A trailing '/' would double up; "/" itself stays. */
        while (dlen > 1 && p->directory[dlen - 1] == '/')
                dlen--;
        m->base_len = (size_t)snprintf(m->path, sizeof(m->path), "%.*s/md.%s.", (int)dlen,
                                       p->directory, p->name);
        m->dname_len = (size_t)snprintf(m->dname, sizeof(m->dname), "md.%s.", p->name);
        for (unsigned k = 0; k < MD_DIR_CACHE; k++)
                m->cache[k].fd = -1;

        m->live = calloc(words, sizeof(uint64_t));
        m->dir_made = calloc(p->dirs, 1);
        if (p->order & MD_ORDER_RANDOM)
                m->order = malloc((size_t)p->nrfiles * sizeof(uint32_t));
        m->buflen = p->filesize < MD_CHUNK ? (size_t)p->filesize : MD_CHUNK;
        m->buf = malloc(m->buflen ? m->buflen : 1);
        if (!m->live || !m->dir_made || !m->buf || (!m->order && (p->order & MD_ORDER_RANDOM)))
                return errorf(err, errlen, -ENOMEM,
                              "nrfiles=%u: no memory for the metadata workload's file tables "
                              "(%llu MiB)",
                              p->nrfiles,
                              (unsigned long long)(((uint64_t)p->nrfiles * 4 + words * 8) >> 20));
        /* Data that neither compresses nor deduplicates; stamp() makes each block unique. */
        {
                uint64_t x = p->seed ^ 0x6d657461ULL;
                for (size_t o = 0; o < m->buflen; o += 8) {
                        uint64_t v = splitmix64(&x);
                        memcpy(m->buf + o, &v, m->buflen - o < 8 ? m->buflen - o : 8);
                }
        }
        return 0;
}

static void md_done(md_t *m)
{
        for (unsigned k = 0; k < MD_DIR_CACHE; k++)
                if (m->cache[k].fd >= 0) {
                        close(m->cache[k].fd);
                        m->cache[k].fd = -1;
                }
        free(m->live);
        free(m->dir_made);
        free(m->order);
        free(m->buf);
        m->live = NULL;
        m->order = NULL;
        m->dir_made = NULL;
        m->buf = NULL;
}

int metadata_run(const metadata_params_t *p, metadata_stats_t *st, char *err, size_t errlen)
{
        md_t m;
        int r;

        if (err && errlen)
                err[0] = 0;
        if ((r = check_params(p, err, errlen)) < 0)
                return r;
        if ((r = md_init(&m, p, st, err, errlen)) < 0) {
                md_done(&m);
                return r;
        }
        r = make_dirs(&m);
        for (int o = 0; r == 0 && o < 2; o++) {
                if (!(p->order & (o ? MD_ORDER_RANDOM : MD_ORDER_SEQUENTIAL)))
                        continue;
                for (int ph = 0; r == 0 && ph < MD_PHASES; ph++)
                        r = run_phase(&m, metadata_slot(o, (metadata_phase_t)ph));
        }
        cleanup(&m);
        MD_SET(st->current, -1);
        md_done(&m);
        /* A cleanup failure after a clean run is still a failure: files were left behind. */
        return m.error ? m.error : r;
}

void metadata_file_order(uint32_t *idx, uint32_t n, uint64_t seed, int slot)
{
        uint64_t x;

        for (uint32_t k = 0; k < n; k++)
                idx[k] = k;
        if (slot < MD_PHASES)
                return;
        /* Fisher-Yates, a fresh shuffle per phase as bonnie++ reshuffles before its random stat
         * and delete: deleting in creation order would be a sequential pass in disguise. */
        x = seed ^ mix64((uint64_t)slot + 0x6d64ULL);
        for (uint32_t k = n; k > 1; k--) {
                uint32_t j = (uint32_t)(((unsigned __int128)splitmix64(&x) * k) >> 64);
                uint32_t t = idx[k - 1];
                idx[k - 1] = idx[j];
                idx[j] = t;
        }
}

void metadata_stats_init(metadata_stats_t *st)
{
        memset(st, 0, sizeof(*st));
        for (int s = 0; s < MD_SLOTS; s++)
                hist_init(&st->phase[s].lat);
        st->current = -1;
}

int metadata_stats_new(metadata_stats_t **ret)
{
        metadata_stats_t *st = malloc(sizeof(*st));
        if (!st)
                return -ENOMEM;
        metadata_stats_init(st);
        *ret = st;
        return 0;
}

void metadata_stats_free(metadata_stats_t **sp)
{
        if (!sp)
                return;
        free(*sp);
        *sp = NULL;
}

int metadata_order_from_string(const char *s)
{
        if (!s || streq(s, "both"))
                return MD_ORDER_BOTH;
        if (streq(s, "sequential"))
                return MD_ORDER_SEQUENTIAL;
        if (streq(s, "random"))
                return MD_ORDER_RANDOM;
        return -EINVAL;
}

const char *metadata_slot_name(int slot)
{
        return slot >= 0 && slot < MD_SLOTS ? slot_names[slot] : "unknown";
}

int metadata_current(const metadata_stats_t *st)
{
        return MD_LOAD(st->current);
}

void metadata_phase_snapshot(metadata_phase_stats_t *dst, const metadata_stats_t *st, int slot)
{
        const metadata_phase_stats_t *src = &st->phase[slot];
        dst->ops = MD_LOAD(src->ops);
        dst->errors = MD_LOAD(src->errors);
        dst->bytes = MD_LOAD(src->bytes);
        dst->elapsed_ns = MD_LOAD(src->elapsed_ns);
        hist_snapshot(&dst->lat, &src->lat);
}

uint64_t metadata_total_ops(const metadata_stats_t *st)
{
        uint64_t n = 0;
        for (int s = 0; s < MD_SLOTS; s++)
                n += MD_LOAD(st->phase[s].ops);
        return n;
}
