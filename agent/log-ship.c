/* fio's log files of a run on the agent, read back from disk and packed as LogChunk messages. */
#include "log-ship.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "fiolog.h"
#include "log.h"
#include "util.h"
#include "wire.h"

#define SHIPPED_FILE "shipped"
/* What went is noted at most this often (and at every stream's end). */
#define SAVE_EVERY_NS ((int64_t)NSEC_PER_SEC)

typedef struct stream {
        unsigned job, clone, kind;
        uint64_t sent; /* bytes packed into chunks so far */
        bool eof;      /* its last chunk went */
} stream_t;

struct logship {
        char dir[4200]; /* RUN_DIR/logs */
        int dirfd;
        stream_t *v;
        size_t n, cap;
        size_t next;    /* where the search for a stream with something to send resumes */
        bool dirty;     /* what went changed since the shipped file was written */
        int64_t saved_at;
        uint8_t *chunk; /* LOGSHIP_CHUNK bytes read from a stream, made once: a fresh one per
                         * call was an mmap, its page faults and a munmap each time */
};

void logship_stream_name(char *buf, size_t n, unsigned job, unsigned clone, unsigned kind,
                         const char *suffix)
{
        snprintf(buf, n, "%u.%u.%u%s", job, clone, kind, suffix ? suffix : "");
}

/* "J.C.K" exactly (a ".cut" or the shipped file is not a stream). */
static bool parse_name(const char *name, unsigned *job, unsigned *clone, unsigned *kind)
{
        char back[64];
        if (sscanf(name, "%u.%u.%u", job, clone, kind) != 3 || *kind >= FIOLOG_KINDS ||
            *job >= WIRE_MAX_JOBS || *clone >= WIRE_MAX_CLONES)
                return false;
        logship_stream_name(back, sizeof(back), *job, *clone, *kind, "");
        return streq(back, name);
}

static stream_t *find(logship_t *l, unsigned job, unsigned clone, unsigned kind, bool add)
{
        for (size_t i = 0; i < l->n; i++)
                if (l->v[i].job == job && l->v[i].clone == clone && l->v[i].kind == kind)
                        return &l->v[i];
        if (!add || array_reserve((void **)&l->v, &l->cap, l->n, sizeof(*l->v)) < 0)
                return NULL;
        l->v[l->n] = (stream_t){.job = job, .clone = clone, .kind = kind};
        return &l->v[l->n++];
}

/* The streams the workers made so far (a later serial group's appear when it lays out). */
static void scan(logship_t *l)
{
        DIR *dp;
        struct dirent *de;
        int fd = dup(l->dirfd);
        if (fd < 0 || !(dp = fdopendir(fd))) {
                if (fd >= 0)
                        close(fd);
                return;
        }
        rewinddir(dp);
        while ((de = readdir(dp))) {
                unsigned job, clone, kind;
                if (parse_name(de->d_name, &job, &clone, &kind))
                        find(l, job, clone, kind, true);
        }
        closedir(dp);
}

static void load(logship_t *l)
{
        char path[4300], line[128];
        FILE *f;
        snprintf(path, sizeof(path), "%s/" SHIPPED_FILE, l->dir);
        if (!(f = fopen(path, "re")))
                return;
        while (fgets(line, sizeof(line), f)) {
                unsigned job, clone, kind, eof;
                unsigned long long sent;
                stream_t *s;
                if (sscanf(line, "%u.%u.%u %llu %u", &job, &clone, &kind, &sent, &eof) != 5 ||
                    kind >= FIOLOG_KINDS || !(s = find(l, job, clone, kind, true)))
                        continue;
                s->sent = sent;
                s->eof = eof;
        }
        fclose(f);
}

static int fill_shipped(int fd, void *user)
{
        const logship_t *l = user;
        for (size_t i = 0; i < l->n; i++)
                if (dprintf(fd, "%u.%u.%u %llu %d\n", l->v[i].job, l->v[i].clone, l->v[i].kind,
                            (unsigned long long)l->v[i].sent, l->v[i].eof) < 0)
                        return -EIO;
        return 0;
}

/* Replaced whole, at most once a second: a restarted agent that finds an older one sends a few
 * chunks again, and the coordinator writes them where they were. */
static void save(logship_t *l, bool now)
{
        char path[4300];
        int64_t t = clock_mono_ns();
        if (!l->dirty || (!now && t - l->saved_at < SAVE_EVERY_NS))
                return;
        snprintf(path, sizeof(path), "%s/" SHIPPED_FILE, l->dir);
        if (write_file_atomic_with(path, 0600, fill_shipped, l) == 0) {
                l->dirty = false;
                l->saved_at = t;
        }
}

int logship_open(const char *run_dir, logship_t **ret)
{
        logship_t *l = calloc(1, sizeof(*l));
        if (!l)
                return -ENOMEM;
        snprintf(l->dir, sizeof(l->dir), "%s/" LOGSHIP_DIR, run_dir);
        l->dirfd = open(l->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (l->dirfd < 0) {
                int r = -errno;
                free(l);
                return r;
        }
        load(l);
        scan(l);
        *ret = l;
        return 0;
}

void logship_close(logship_t **lp)
{
        logship_t *l = *lp;
        if (!l)
                return;
        save(l, true);
        close(l->dirfd);
        free(l->v);
        free(l->chunk);
        free(l);
        *lp = NULL;
}

static uint64_t size_of(const logship_t *l, const stream_t *s)
{
        char name[64];
        struct stat st;
        logship_stream_name(name, sizeof(name), s->job, s->clone, s->kind, "");
        if (fstatat(l->dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
                return 0;
        return (uint64_t)st.st_size;
}

uint64_t logship_backlog(logship_t *l)
{
        uint64_t b = 0;
        scan(l);
        for (size_t i = 0; i < l->n; i++) {
                uint64_t sz = size_of(l, &l->v[i]);
                if (sz > l->v[i].sent)
                        b += sz - l->v[i].sent;
        }
        return b;
}

/* Up to LOGSHIP_CHUNK bytes of s from where it stands, cut after the last newline: into data,
 * their count in *got. 0 or -errno. */
static int read_lines(logship_t *l, stream_t *s, uint64_t size, uint8_t *data, size_t *got)
{
        char name[64];
        size_t want = size - s->sent > LOGSHIP_CHUNK ? LOGSHIP_CHUNK : (size_t)(size - s->sent);
        ssize_t n;
        int fd;
        *got = 0;
        logship_stream_name(name, sizeof(name), s->job, s->clone, s->kind, "");
        if ((fd = openat(l->dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0)
                return -errno;
        n = pread(fd, data, want, (off_t)s->sent);
        close(fd);
        if (n < 0)
                return -errno;
        while (n > 0 && data[n - 1] != '\n')
                n--; /* a line still being written (or torn by the agent's death) */
        *got = (size_t)n;
        return 0;
}

/* Why the stream was cut short ("" when it was not), from the writer's ".cut" file. */
static void cut_reason(logship_t *l, const stream_t *s, char *why, size_t n)
{
        char name[64];
        ssize_t r;
        int fd;
        why[0] = 0;
        logship_stream_name(name, sizeof(name), s->job, s->clone, s->kind, ".cut");
        if ((fd = openat(l->dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0)
                return;
        r = read(fd, why, n - 1);
        close(fd);
        why[r > 0 ? r : 0] = 0;
        for (char *p = why; *p; p++)
                if ((unsigned char)*p < 0x20 || *p == 0x7f)
                        *p = ' ';
        if (!why[0])
                snprintf(why, n, "cut short");
}

static int pack(const char *run_id, uint64_t run_seq, const stream_t *s, uint64_t offset,
                uint8_t *data, size_t len, bool eof, char *cut, uint8_t **buf, size_t *blen)
{
        envelope_t e = IOFLEET__ENVELOPE__INIT;
        Iofleet__LogChunk c = IOFLEET__LOG_CHUNK__INIT;
        c.run_id = (char *)run_id;
        c.job = s->job;
        c.clone = s->clone;
        c.kind = s->kind;
        c.offset = offset;
        c.data.data = data;
        c.data.len = len;
        c.eof = eof;
        c.cut = cut;
        c.run_seq = run_seq;
        e.body_case = IOFLEET__ENVELOPE__BODY_LOG_CHUNK;
        e.log_chunk = &c;
        return wire_encode(&e, buf, blen);
}

/* Packs a chunk of stream s if it has one: 1, 0 (nothing), -errno. */
static int next_of(logship_t *l, stream_t *s, const char *run_id, uint64_t run_seq, bool final,
                   const char *cut, uint8_t *data, uint8_t **buf, size_t *len)
{
        uint64_t size = size_of(l, s), offset = s->sent;
        char why[256] = "";
        size_t got = 0;
        bool eof;
        int r;
        if (s->eof)
                return 0;
        if (size > s->sent && (r = read_lines(l, s, size, data, &got)) < 0)
                return r;
        /* the end: nothing more to read whole (a torn last line stays behind) */
        eof = final && (s->sent + got >= size || (got == 0 && size > s->sent));
        if (!got && !eof)
                return 0;
        if (eof)
                cut_reason(l, s, why, sizeof(why));
        if (eof && !why[0] && cut)
                snprintf(why, sizeof(why), "%s", cut);
        if ((r = pack(run_id, run_seq, s, offset, data, got, eof, why, buf, len)) < 0)
                return r;
        s->sent += got;
        s->eof = eof;
        l->dirty = true;
        return 1;
}

int logship_next(logship_t *l, const char *run_id, uint64_t run_seq, bool final, const char *cut,
                 uint8_t **buf, size_t *len)
{
        uint8_t *data = l->chunk ? l->chunk : (l->chunk = malloc(LOGSHIP_CHUNK));
        int r = 0;
        if (!data)
                return -ENOMEM;
        /* Round the streams, so that a busy one does not hold the others back; look for new
         * ones when the known ones have nothing. */
        for (int pass = 0; pass < 2 && r == 0; pass++) {
                for (size_t i = 0; i < l->n && r == 0; i++) {
                        size_t k = (l->next + i) % l->n;
                        r = next_of(l, &l->v[k], run_id, run_seq, final, cut, data, buf, len);
                        if (r)
                                l->next = k + 1;
                }
                if (r == 0 && pass == 0)
                        scan(l);
        }
        if (r < 0)
                log_warning("log files in %s: %s", l->dir, strerror(-r));
        /* What went is noted every SAVE_EVERY_NS, and at once when the final drain has nothing
         * left, not after each of its chunks (a synced file each): a restart in between sends a
         * few chunks again, which the coordinator writes at their offsets anyway. */
        save(l, final && r == 0);
        return r;
}

void logship_remove(const char *run_dir)
{
        char dir[4200];
        DIR *dp;
        struct dirent *de;
        int fd;
        snprintf(dir, sizeof(dir), "%s/" LOGSHIP_DIR, run_dir);
        if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
                return;
        if (!(dp = fdopendir(fd))) {
                close(fd);
                return;
        }
        while ((de = readdir(dp)))
                if (de->d_name[0] != '.' || (de->d_name[1] && de->d_name[1] != '.'))
                        unlinkat(fd, de->d_name, 0);
        closedir(dp);
        rmdir(dir);
}
