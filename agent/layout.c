/* Job files as fio lays them out: their names, sizes and I/O regions; creating them and filling
 * missing or short files that will be read. */
#include "layout.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "engine.h"
#include "policy.h"
#include "log.h"
#include "sandbox.h"
#include "util.h"

#define LAYOUT_CHUNK (1u << 20)
#define LAYOUT_ALIGN 4096u
#define JOB_OPENDIR_MAX 1000000

/* fstat(fd) into *st, and 0 when it is a regular file; otherwise -EINVAL naming what it is. */
static int regular_stat(int fd, const char *path, struct stat *st, char *err, size_t errlen)
{
        if (fstat(fd, st) < 0)
                return errorf(err, errlen, -errno, "%s: %s", path, strerror(errno));
        if (!S_ISREG(st->st_mode))
                return errorf(err, errlen, -EINVAL,
                              "%s is a %s, not a regular file: iofleet reads and writes regular "
                              "files only",
                              path,
                              S_ISBLK(st->st_mode)   ? "block device"
                              : S_ISCHR(st->st_mode) ? "character device"
                              : S_ISDIR(st->st_mode) ? "directory"
                                                     : "special file");
        return 0;
}

int layout_check_regular(int fd, const char *path, char *err, size_t errlen)
{
        struct stat st;
        return regular_stat(fd, path, &st, err, errlen);
}

int layout_expand_name(const char *format, const char *job, const char *agent, unsigned jobnum,
                       unsigned filenum, char *buf, size_t len)
{
        size_t o = 0;
        for (const char *p = format; *p;) {
                char num[16];
                const char *add = NULL;
                size_t skip = 1, n;
                if (*p == '$') {
                        if (strncmp(p, "$jobname", 8) == 0)
                                add = job, skip = 8;
                        else if (strncmp(p, "$jobnum", 7) == 0) {
                                snprintf(num, sizeof(num), "%u", jobnum);
                                add = num, skip = 7;
                        } else if (strncmp(p, "$filenum", 8) == 0) {
                                snprintf(num, sizeof(num), "%u", filenum);
                                add = num, skip = 8;
                        } else if (strncmp(p, "$agent", 6) == 0)
                                add = agent, skip = 6;
                }
                if (!add) {
                        /* Anything else, '$' included, is taken literally, as fio does. */
                        num[0] = *p;
                        num[1] = 0;
                        add = num;
                }
                n = strlen(add);
                if (o + n >= len)
                        return -ENAMETOOLONG;
                memcpy(buf + o, add, n);
                o += n;
                p += skip;
        }
        if (o >= len)
                return -ENAMETOOLONG;
        buf[o] = 0;
        return 0;
}

void layout_files_free(layout_file_t **files, size_t n)
{
        if (!*files)
                return;
        for (size_t i = 0; i < n; i++)
                free((*files)[i].path);
        free(*files);
        *files = NULL;
}

static int join_path(const char *dir, const char *name, char **ret, const job_spec_t *j, char *err,
                     size_t errlen)
{
        char *p;
        if (name[0] == '/')
                p = strdup(name);
        else if (asprintf(&p, "%s/%s", dir, name) < 0)
                p = NULL;
        if (!p)
                return errorf(err, errlen, -ENOMEM, "job %s: no memory for file names", j->name);
        if (strlen(p) >= 4096) {
                free(p);
                return errorf(err, errlen, -ENAMETOOLONG, "job %s: file name too long: %.60s...",
                              j->name, name);
        }
        *ret = p;
        return 0;
}

/* A job's directory= must exist (the agent's work_dir is made by the agent when missing), beneath
 * allow_paths. */
static int check_dir(const agent_config_t *cfg, const job_spec_t *j, const char *dir, char *err,
                     size_t errlen)
{
        char e[1024];
        int fd, r;

        if (strempty(j->directory)) {
                r = policy_resolve_path(cfg, dir, PATH_JOB_DIR, NULL, 0, e, sizeof(e));
                if (r < 0 && r != -ENOENT)
                        return errorf(err, errlen, r, "job %s: the agent's work_dir %s: %s",
                                      j->name, dir, e);
                return 0;
        }
        r = policy_open(cfg, dir, PATH_JOB_DIR, O_PATH | O_DIRECTORY, 0, NULL, &fd, e, sizeof(e));
        if (r == -ENOENT)
                return errorf(err, errlen, r, "job %s: directory=%s does not exist", j->name,
                              j->directory);
        if (r < 0)
                return errorf(err, errlen, r, "job %s: directory=%s: %s", j->name, j->directory, e);
        close(fd);
        return 0;
}

/* Each file's path beneath allow_paths, before anything is made: the full check for the first
 * file of each directory, a name check for the rest (layout_file() checks each one again as it
 * opens it). */
static int check_files(const agent_config_t *cfg, const job_spec_t *j, const layout_file_t *files,
                       size_t nf, char *err, size_t errlen)
{
        const char *key = !strempty(j->filename) ? "filename" : "filename_format";
        const char *val = !strempty(j->filename)          ? j->filename
                          : !strempty(j->filename_format) ? j->filename_format
                                                          : LAYOUT_DEFAULT_FORMAT;
        const engine_ops_t *eng = j->ioengine ? engine_find(j->ioengine) : NULL;
        /* the directory engines' (dirstat, ...) "files" are directories */
        int purpose = eng && (eng->flags & ENGINE_DIR_LAYOUT) ? PATH_JOB_DIR : PATH_JOB_FILE;
        char e[1024], parent[PATH_MAX] = "";

        for (size_t i = 0; i < nf; i++) {
                const char *path = files[i].path, *slash = strrchr(path, '/');
                size_t plen = slash ? (size_t)(slash - path) : 0;
                int r;
                if (slash && plen < sizeof(parent) && strncmp(parent, path, plen) == 0 &&
                    parent[plen] == 0 && !streq(slash + 1, "..") && !streq(slash + 1, ".") &&
                    slash[1])
                        continue;
                r = policy_resolve_path(cfg, path, purpose, NULL, 0, e, sizeof(e));
                /* -ENOENT: below the agent's work_dir, which the agent makes when missing. */
                if (r < 0 && r != -ENOENT)
                        return errorf(err, errlen, r, "job %s: %s=%s: %s", j->name, key, val, e);
                if (plen < sizeof(parent)) {
                        memcpy(parent, path, plen);
                        parent[plen] = 0;
                }
        }
        return 0;
}

/* opendir's walk: the regular files below dir (opened beneath allow_paths), recursively,
 * symbolic links and other types left alone, at most JOB_NRFILES_MAX files and 64 levels. */
typedef struct walk {
        layout_file_t *files;
        size_t n, cap;
} walk_t;

static int walk_dir(int dfd, const char *path, unsigned depth, walk_t *w, const job_spec_t *j,
                    char *err, size_t errlen)
{
        DIR *d;
        struct dirent *de;
        int r = 0;

        if (depth > 64)
                return errorf(err, errlen, -ELOOP, "job %s: opendir=%s: deeper than 64 levels",
                              j->name, j->opendir);
        d = fdopendir(dfd);
        if (!d) {
                r = -errno;
                close(dfd);
                return errorf(err, errlen, r, "job %s: opendir: %s: %s", j->name, path,
                              strerror(-r));
        }
        while (r == 0 && (de = readdir(d))) {
                struct stat st;
                char *p;
                if (streq(de->d_name, ".") || streq(de->d_name, ".."))
                        continue;
                if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
                        continue;
                if (asprintf(&p, "%s/%s", path, de->d_name) < 0)
                        return closedir(d), -ENOMEM;
                if (S_ISDIR(st.st_mode)) {
                        int sub = openat(dirfd(d), de->d_name,
                                         O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                        r = sub < 0 ? 0 : walk_dir(sub, p, depth + 1, w, j, err, errlen);
                        free(p);
                        continue;
                }
                if (!S_ISREG(st.st_mode)) {
                        free(p);
                        continue;
                }
                if (w->n >= JOB_OPENDIR_MAX) {
                        free(p);
                        r = errorf(err, errlen, -E2BIG,
                                   "job %s: opendir=%s holds more than %d files", j->name,
                                   j->opendir, JOB_OPENDIR_MAX);
                        break;
                }
                if (w->n == w->cap) {
                        size_t cap = w->cap ? 2 * w->cap : 64;
                        layout_file_t *f = realloc(w->files, cap * sizeof(*f));
                        if (!f) {
                                free(p);
                                r = -ENOMEM;
                                break;
                        }
                        w->files = f;
                        w->cap = cap;
                }
                w->files[w->n++] = (layout_file_t){.path = p};
        }
        closedir(d);
        return r;
}

static int path_cmp(const void *a, const void *b)
{
        return strcmp(((const layout_file_t *)a)->path, ((const layout_file_t *)b)->path);
}

/* fio's opendir: every regular file below the directory is one of the job's files, used as it
 * is (size only caps the I/O), in name order. */
static int opendir_plan(const agent_config_t *cfg, const job_spec_t *j, layout_file_t **ret,
                        size_t *n, char *err, size_t errlen)
{
        walk_t w = {0};
        char e[1024];
        int pfd, dfd, r;

        if (!cfg)
                return errorf(err, errlen, -EINVAL,
                              "job %s: no path policy to check its files against", j->name);
        r = policy_open(cfg, j->opendir, PATH_JOB_DIR, O_PATH | O_DIRECTORY, 0, NULL, &pfd, e,
                        sizeof(e));
        if (r < 0)
                return errorf(err, errlen, r, "job %s: opendir=%s: %s", j->name, j->opendir, e);
        r = sandbox_reopen(pfd, O_RDONLY | O_DIRECTORY, &dfd);
        close(pfd);
        if (r < 0)
                return errorf(err, errlen, r, "job %s: opendir=%s: %s", j->name, j->opendir,
                              strerror(-r));
        r = walk_dir(dfd, j->opendir, 0, &w, j, err, errlen);
        if (r == 0 && w.n == 0)
                r = errorf(err, errlen, -ENOENT, "job %s: opendir=%s holds no regular file",
                           j->name, j->opendir);
        if (r < 0) {
                if (r == -ENOMEM)
                        errorf(err, errlen, r, "job %s: opendir: no memory", j->name);
                layout_files_free(&w.files, w.n);
                return r;
        }
        qsort(w.files, w.n, sizeof(*w.files), path_cmp);
        for (size_t i = 0; i < w.n; i++)
                w.files[i].base = j->offset; /* length 0: as it is, sized when opened */
        *ret = w.files;
        *n = w.n;
        return 0;
}

int layout_plan(const agent_config_t *cfg, const job_spec_t *j, const char *agent,
                const char *work_dir, unsigned clone, bool with_files, layout_file_t **ret,
                size_t *n, char *err, size_t errlen)
{
        /* An engine that owns its files (nfs) names them relative to where they live (the
         * export): no work_dir, nothing to look at in the agent's filesystem. */
        const engine_ops_t *eng = j->ioengine ? engine_find(j->ioengine) : NULL;
        bool remote = eng && (eng->flags & ENGINE_OWN_FILES);
        char dirbuf[PATH_MAX];
        const char *dir;
        layout_file_t *files = NULL;
        size_t nf = 0;
        bool need_dir = false;
        int r;

        if (remote)
                dir = j->directory ? j->directory : "";
        else if (strempty(j->directory))
                dir = work_dir ? work_dir : "";
        else if (j->directory[0] == '/')
                dir = j->directory;
        else {
                /* A relative directory is the agent's work_dir's, never its process's cwd. */
                if (snprintf(dirbuf, sizeof(dirbuf), "%s/%s", work_dir ? work_dir : "",
                             j->directory) >= (int)sizeof(dirbuf))
                        return errorf(err, errlen, -ENAMETOOLONG,
                                      "job %s: directory=%.60s...: too long", j->name,
                                      j->directory);
                dir = dirbuf;
        }
        if (with_files && !remote && !cfg)
                return errorf(err, errlen, -EINVAL,
                              "job %s: no path policy to check its files against", j->name);

        /* How many files: a filename list names them, opendir finds them, nrfiles counts them
         * otherwise. */
        if (with_files && !remote && !strempty(j->opendir))
                return opendir_plan(cfg, j, ret, n, err, errlen);
        if (with_files && !strempty(j->filename)) {
                nf = 1;
                for (const char *c = j->filename; *c; c++)
                        nf += *c == ':';
        } else
                nf = j->nrfiles ? j->nrfiles : 1;
        files = calloc(nf, sizeof(*files));
        if (!files)
                return errorf(err, errlen, -ENOMEM, "job %s: no memory for %zu files", j->name, nf);

        if (with_files) {
                if (!strempty(j->filename)) {
                        /* fio's meaning: the named files, shared by every clone (and agent). */
                        const char *s = j->filename;
                        for (size_t i = 0; i < nf; i++) {
                                const char *e = strchr(s, ':');
                                size_t len = e ? (size_t)(e - s) : strlen(s);
                                char *name = strndup(s, len);
                                if (!name) {
                                        r = -ENOMEM;
                                        goto fail_msg;
                                }
                                if (!len) {
                                        free(name);
                                        r = errorf(err, errlen, -EINVAL,
                                                   "job %s: filename=%s has an empty name", j->name,
                                                   j->filename);
                                        goto fail;
                                }
                                need_dir |= name[0] != '/';
                                r = join_path(dir, name, &files[i].path, j, err, errlen);
                                free(name);
                                if (r < 0)
                                        goto fail;
                                s = e ? e + 1 : s + len;
                        }
                } else {
                        /* unique_filename=0: fio's own default, without the agent's name */
                        const char *fmt = !strempty(j->filename_format) ? j->filename_format
                                          : j->unique_filename      ? LAYOUT_DEFAULT_FORMAT
                                                                    : "$jobname.$jobnum.$filenum";
                        char name[4096];
                        for (size_t i = 0; i < nf; i++) {
                                if (layout_expand_name(fmt, j->name, agent, clone, (unsigned)i,
                                                       name, sizeof(name)) < 0) {
                                        r = errorf(err, errlen, -ENAMETOOLONG,
                                                   "job %s: filename_format=%s makes a name "
                                                   "too long",
                                                   j->name, fmt);
                                        goto fail;
                                }
                                need_dir |= name[0] != '/';
                                if ((r = join_path(dir, name, &files[i].path, j, err, errlen)) < 0)
                                        goto fail;
                        }
                }
                if (!remote && ((need_dir && (r = check_dir(cfg, j, dir, err, errlen)) < 0) ||
                                (r = check_files(cfg, j, files, nf, err, errlen)) < 0))
                        goto fail;
        }

        /* Sizes as fio's setup_files(): each file's region starts at offset and holds filesize
         * - offset bytes, or size / nrfiles (the file then extends to offset + that). */
        for (size_t i = 0; i < nf; i++) {
                layout_file_t *f = &files[i];
                /* offset_increment: clone k's region starts k increments further */
                f->base = j->offset + job_spec_clone_shift(j, clone, j->filesize ? j->filesize
                                                                                : j->size / nf);
                if (j->filesize) {
                        if (f->base >= j->filesize) {
                                r = errorf(err, errlen, -EINVAL,
                                           "job %s: offset=%llu leaves nothing of filesize=%llu",
                                           j->name, (unsigned long long)f->base,
                                           (unsigned long long)j->filesize);
                                goto fail;
                        }
                        f->io_size = j->filesize - f->base;
                        f->length = j->filesize;
                } else if (j->size) {
                        f->io_size = j->size / nf;
                        f->length = f->base + f->io_size;
                } else if (!with_files) {
                        f->io_size = LAYOUT_NOTIONAL_SIZE;
                } /* else: an existing file, sized when opened */
        }
        *ret = files;
        *n = nf;
        return 0;
fail_msg:
        errorf(err, errlen, r, "job %s: no memory for file names", j->name);
fail:
        layout_files_free(&files, nf);
        return r;
}

/* Laying out one file: its buffer and data, the bytes counted as done, the test hook's pace. */
typedef struct fill {
        const layout_req_t *req;
        uint8_t *buf;     /* LAYOUT_CHUNK bytes, aligned */
        uint64_t x;       /* xorshift state, when the job gives no content */
        uint64_t counted; /* what this file added to *req->done */
        uint64_t rate;    /* test_layout_rate, bytes/s; 0 unpaced */
        int64_t t0;       /* paced: when the writing began */
        uint64_t written; /* paced: bytes written since t0 */
} fill_t;

static void count(fill_t *f, uint64_t n)
{
        layout_count(f->req->done, n);
        f->counted += n;
}

/* The test hook's pace: sleeps (in slices, so a stop reaches it) until written bytes are due. */
static void pace(fill_t *f)
{
        int64_t due;
        if (!f->rate)
                return;
        due = f->t0 + (int64_t)((double)f->written * 1e9 / (double)f->rate);
        for (int64_t now = clock_mono_ns();
             now < due && !__atomic_load_n(f->req->stop, __ATOMIC_RELAXED); now = clock_mono_ns()) {
                int64_t d = due - now < 50 * (int64_t)NSEC_PER_MSEC ? due - now
                                                                     : 50 * (int64_t)NSEC_PER_MSEC;
                struct timespec ts = {0, (long)d};
                nanosleep(&ts, NULL);
        }
}

/* Writes [off, end) of fd with the job's content in blocks of bs (random from f->x when no
 * content is given); fd may be O_DIRECT (then off, end and buf aligned). */
static int fill_range(int fd, uint64_t off, uint64_t end, fill_t *f, char *err, size_t errlen)
{
        const layout_req_t *req = f->req;
        uint64_t bs = req->content && req->bs ? req->bs : 0;

        while (off < end) {
                size_t n = end - off < LAYOUT_CHUNK ? (size_t)(end - off) : LAYOUT_CHUNK;
                ssize_t w;
                if (__atomic_load_n(req->stop, __ATOMIC_RELAXED))
                        return errorf(err, errlen, -ECANCELED, "laying out %s: stopped",
                                      req->path);
                if (bs) {
                        /* each block as the job's write would carry it */
                        for (size_t i = 0; i < n; i += bs)
                                buffers_prep_write(req->content, f->buf + i,
                                                   n - i < bs ? n - i : (size_t)bs, off + i);
                } else {
                        /* xorshift: cheap data that neither compresses nor deduplicates */
                        for (size_t i = 0; i + 8 <= LAYOUT_CHUNK; i += 8) {
                                f->x ^= f->x << 13;
                                f->x ^= f->x >> 7;
                                f->x ^= f->x << 17;
                                memcpy(f->buf + i, &f->x, 8);
                        }
                }
                w = pwrite(fd, f->buf, n, (off_t)off);
                if (w < 0 && errno == EINTR)
                        continue;
                if (w <= 0) {
                        int e = w < 0 ? errno : ENOSPC;
                        return errorf(err, errlen, -e, "laying out %s at offset %llu: %s",
                                      req->path, (unsigned long long)off, strerror(e));
                }
                off += (uint64_t)w;
                count(f, (uint64_t)w);
                f->written += (uint64_t)w;
                pace(f);
        }
        return 0;
}

/* Reserves [from, to) of fd as fallocate= says; what cannot be reserved is left sparse, as
 * fio's native mode falls back to none. */
static int reserve(int fd, uint64_t from, uint64_t to, const layout_req_t *req, char *err,
                   size_t errlen)
{
        int r = 0;

        if (to <= from)
                return 0;
        switch (req->fallocate) {
        case JOB_FALLOCATE_NONE:
                return 0;
        case JOB_FALLOCATE_TRUNCATE:
                if (ftruncate(fd, (off_t)to) < 0)
                        r = -errno;
                break;
        case JOB_FALLOCATE_KEEP:
                if (fallocate(fd, FALLOC_FL_KEEP_SIZE, (off_t)from, (off_t)(to - from)) < 0)
                        r = -errno;
                break;
        case JOB_FALLOCATE_POSIX:
                r = -posix_fallocate(fd, (off_t)from, (off_t)(to - from));
                break;
        default: /* native: on any failure, as fio, none (the writes will say what is wrong) */
                if (fallocate(fd, 0, (off_t)from, (off_t)(to - from)) < 0)
                        log_debug("fallocate of %s failed (%s): left sparse", req->path,
                                  strerror(errno));
                break;
        }
        if (r == -EOPNOTSUPP || r == -EINVAL)
                r = 0; /* the file system cannot: sparse, as fio goes on */
        if (r < 0)
                return errorf(err, errlen, r, "cannot reserve %llu bytes for %s: %s",
                              (unsigned long long)(to - from), req->path, strerror(-r));
        return 0;
}

static int lay_out(const agent_config_t *cfg, fill_t *fl, uint64_t *base, char *err,
                   size_t errlen)
{
        const layout_req_t *req = fl->req;
        _cleanup_(closep) int fd = -1, dfd = -1;
        _cleanup_(freep) uint8_t *buf = NULL;
        struct stat st;
        uint64_t off, length = req->length;
        bool exists, new_layout, replace;
        char e[1024];
        int r;

        /* Beneath allow_paths, a symbolic link where a job file goes refused, not followed.
         * Looked at read-only first: a file long enough is used as it is, even on a read-only
         * file system, and needs no write access. Without a length (no size given) the file
         * must exist: nothing says how large. */
        r = policy_open(cfg, req->path, PATH_JOB_FILE, O_RDONLY, 0, NULL, &fd, e, sizeof(e));
        exists = r == 0;
        if (r < 0 && r != -ENOENT)
                return errorf(err, errlen, r, "%s", e);
        if (exists && (r = regular_stat(fd, req->path, &st, err, errlen)) < 0)
                return r;
        if (req->append) {
                /* fio's file_append: the region starts at the file's end */
                uint64_t end = exists ? (uint64_t)st.st_size : 0;
                if (base)
                        *base = end;
                length = end + req->length;
                if (req->readonly)
                        return errorf(err, errlen, -EROFS,
                                      "readonly: file_append writes past the end of %s",
                                      req->path);
        } else if (exists && (uint64_t)st.st_size >= length)
                return 0;
        if (!exists && !length)
                return errorf(err, errlen, -ENOENT,
                              "size: %s does not exist; give size= (or filesize=) to lay it out",
                              req->path);
        if (req->readonly && exists)
                return errorf(err, errlen, -EROFS,
                              "readonly: %s holds %llu bytes, the job needs %llu, and readonly "
                              "forbids laying it out",
                              req->path, (unsigned long long)st.st_size,
                              (unsigned long long)length);
        if (req->readonly)
                return errorf(err, errlen, -ENOENT,
                              "readonly: %s does not exist and readonly forbids creating it",
                              req->path);
        if (!exists && !req->allow_create)
                return errorf(err, errlen, -ENOENT,
                              "allow_file_create=0: %s does not exist and may not be created",
                              req->path);
        /* fio lays a short file out anew: replaced, then filled when it will be read (or
         * overwrite=1), else only reserved; file_append keeps what is there. */
        new_layout = !req->append && (req->reads || (req->writes && req->overwrite));
        replace = exists && !req->append;
        if (replace && !req->allow_create)
                return errorf(err, errlen, -EPERM,
                              "allow_file_create=0: %s holds %llu bytes, the job needs %llu, "
                              "and it may not be made anew",
                              req->path, (unsigned long long)st.st_size,
                              (unsigned long long)length);
        close(fd);
        fd = -1;
        if (replace && (r = policy_unlink(cfg, req->path, e, sizeof(e))) < 0)
                return errorf(err, errlen, r, "%s", e);
        r = policy_open(cfg, req->path, PATH_JOB_FILE, O_RDWR | O_CREAT, 0644, req->undo, &fd, e,
                        sizeof(e));
        if (r < 0)
                return errorf(err, errlen, r, "%s", e);
        if ((r = regular_stat(fd, req->path, &st, err, errlen)) < 0)
                return r;
        off = (uint64_t)st.st_size;
        if ((r = reserve(fd, off, length, req, err, errlen)) < 0)
                return r;
        if (!new_layout)
                return 0;
        log_debug("laying out %s: %llu of %llu bytes", req->path,
                  (unsigned long long)(length - off), (unsigned long long)length);
        if (posix_memalign((void **)&buf, LAYOUT_ALIGN, LAYOUT_CHUNK) != 0) {
                buf = NULL;
                return errorf(err, errlen, -ENOMEM, "no memory to lay out %s", req->path);
        }
        fl->buf = buf;
        fl->t0 = clock_mono_ns();
        if (req->content)
                buffers_fill(req->content, buf, LAYOUT_CHUNK);
        if (req->direct && sandbox_reopen(fd, O_WRONLY | O_DIRECT, &dfd) < 0)
                /* A filesystem that refuses O_DIRECT (tmpfs) is laid out buffered; the job's own
                 * open says so if it needs O_DIRECT. */
                dfd = -1;
        if (dfd >= 0) {
                /* Buffered up to the first aligned offset, direct for the aligned middle,
                 * buffered for the tail. */
                uint64_t a = (off + LAYOUT_ALIGN - 1) / LAYOUT_ALIGN * LAYOUT_ALIGN;
                uint64_t b = length / LAYOUT_ALIGN * LAYOUT_ALIGN;
                if (a > length)
                        a = length;
                if ((r = fill_range(fd, off, a, fl, err, errlen)) < 0)
                        return r;
                if (b > a && (r = fill_range(dfd, a, b, fl, err, errlen)) < 0)
                        return r;
                off = b > a ? b : a;
        }
        if ((r = fill_range(fd, off, length, fl, err, errlen)) < 0)
                return r;
        /* As fio's create_fsync: the layout is on stable storage before the job measures, and
         * clean pages are what invalidate can drop. */
        if (req->fsync && fsync(fd) < 0)
                return errorf(err, errlen, -errno, "fsync of %s after laying it out: %s",
                              req->path, strerror(errno));
        return 0;
}

int layout_file(const agent_config_t *cfg, const layout_req_t *req, uint64_t *base, char *err,
                size_t errlen)
{
        /* Each file its own data (xorshift must not start at 0), so files do not deduplicate. */
        fill_t fl = {.req = req,
                     .x = (req->seed ^ 0x2545f4914f6cdd1dULL) | 1,
                     .rate = cfg ? cfg->test_layout_rate : 0};
        int r = lay_out(cfg, &fl, base, err, errlen);
        /* Long enough already, reserved, or filled: all of the length the job asked is done. */
        if (r == 0 && req->length > fl.counted)
                count(&fl, req->length - fl.counted);
        return r;
}
