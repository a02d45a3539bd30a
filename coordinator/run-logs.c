/* fio's log files of a run as the coordinator keeps them: each agent's chunks written where its
 * own copy of the job says, bounded per agent, synced before they are acknowledged. */
#include "run-logs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fiolog.h"
#include "log.h"
#include "run-internal.h"
#include "run.h"
#include "util.h"

/* Files written since the last sync are kept open for it; beyond this many the oldest is synced
 * and closed at once, so that a thousand agents' logs never hold a thousand descriptors. */
#define OPEN_MAX 32

typedef struct stream {
        uint64_t end; /* bytes its file holds */
        bool seen, eof;
        char *cut; /* why it ended early (the agent's word, or the limit here) */
} stream_t;

typedef struct agent_logs {
        stream_t *s;       /* [n_s]: its part's clones x FIOLOG_KINDS, NULL until a chunk came */
        size_t n_s;
        uint64_t bytes;    /* what its files hold together */
        bool over;         /* it passed the limit: what followed was left */
        char refused[256]; /* why the first chunk left was ("" none) */
        uint64_t n_refused;
} agent_logs_t;

typedef struct open_file {
        const stream_t *s;
        int fd;
} open_file_t;

struct run_logs {
        int dirfd;
        agent_logs_t *ag; /* [n_agents] */
        size_t n_agents;
        size_t *part_first;     /* [n_parts]: the part's first job in run->specs */
        size_t *part_jobs;      /* [n_parts]: how many jobs it has */
        uint32_t *part_workers; /* [n_parts]: their clones in all */
        size_t n_parts;
        open_file_t open[OPEN_MAX];
        size_t n_open;
        bool write_failed; /* said once */
};

int run_logs_new(coord_run_t *run)
{
        const Iofleet__SubmitRun *sr = run->submit->submit_run;
        size_t n_parts = sr->n_parts ? sr->n_parts : 1, first = 0;
        bool any = false;
        run_logs_t *l;

        for (size_t i = 0; i < run->n_specs; i++)
                any |= fiolog_kinds(&run->specs[i]) != 0;
        if (!any)
                return 0;
        if (!(l = calloc(1, sizeof(*l))))
                return -ENOMEM;
        l->dirfd = -1;
        l->n_parts = n_parts;
        l->n_agents = run->n_agents;
        l->ag = calloc(run->n_agents ? run->n_agents : 1, sizeof(*l->ag));
        l->part_first = calloc(n_parts, sizeof(*l->part_first));
        l->part_jobs = calloc(n_parts, sizeof(*l->part_jobs));
        l->part_workers = calloc(n_parts, sizeof(*l->part_workers));
        if (!l->ag || !l->part_first || !l->part_jobs || !l->part_workers) {
                run_logs_free(&l);
                return -ENOMEM;
        }
        /* run->specs holds every part's jobs, one part after another (run.c's check_jobs()) */
        for (size_t p = 0; p < n_parts; p++) {
                size_t n = sr->n_parts ? sr->parts[p]->n_jobs : sr->n_jobs;
                l->part_first[p] = first;
                l->part_jobs[p] = n;
                for (size_t i = 0; i < n && first + i < run->n_specs; i++)
                        l->part_workers[p] += run->specs[first + i].numjobs;
                first += n;
        }
        run->logs = l;
        return 0;
}

static void close_open(run_logs_t *l, size_t i, bool sync)
{
        if (sync && fdatasync(l->open[i].fd) < 0 && !l->write_failed) {
                l->write_failed = true;
                log_error("fio's log files: syncing one failed: %m");
        }
        close(l->open[i].fd);
        l->open[i] = l->open[--l->n_open];
}

void run_logs_free(run_logs_t **lp)
{
        run_logs_t *l = *lp;
        if (!l)
                return;
        while (l->n_open)
                close_open(l, 0, true);
        if (l->dirfd >= 0)
                close(l->dirfd);
        for (size_t a = 0; l->ag && a < l->n_agents; a++) {
                for (size_t i = 0; i < l->ag[a].n_s; i++)
                        free(l->ag[a].s[i].cut);
                free(l->ag[a].s);
        }
        free(l->part_first);
        free(l->part_jobs);
        free(l->part_workers);
        free(l->ag);
        free(l);
        *lp = NULL;
}

/* --- which stream a chunk is, and its file's name ------------------------------------------ */

typedef struct where {
        const job_spec_t *spec;
        unsigned tn; /* fio's thread number on its agent: 1 + the clones of the jobs before */
        stream_t *s;
} where_t;

/* The stream (job, clone, kind) of agent a, with its job and thread number; -EINVAL with why
 * when the agent has no such stream. */
static int locate(coord_run_t *run, const run_agent_t *a, uint32_t job, uint32_t clone,
                  uint32_t kind, where_t *w, char *why, size_t n)
{
        run_logs_t *l = run->logs;
        agent_logs_t *al = &l->ag[a->rank];
        size_t p = a->part < l->n_parts ? a->part : 0;
        const job_spec_t *spec;
        unsigned before = 0;

        if (job >= l->part_jobs[p])
                return errorf(why, n, -EINVAL, "job %u: its part has %zu jobs", job,
                              l->part_jobs[p]);
        spec = &run->specs[l->part_first[p] + job];
        if (clone >= spec->numjobs)
                return errorf(why, n, -EINVAL, "job %s: clone %u of numjobs=%u", spec->name, clone,
                              spec->numjobs);
        if (kind >= FIOLOG_KINDS || !(fiolog_kinds(spec) & (1u << kind)))
                return errorf(why, n, -EINVAL, "job %s writes no %s log", spec->name,
                              kind < FIOLOG_KINDS ? fiolog_kind_name(kind) : "such");
        for (size_t i = 0; i < job; i++)
                before += run->specs[l->part_first[p] + i].numjobs;
        if (!al->s) {
                al->n_s = (size_t)l->part_workers[p] * FIOLOG_KINDS;
                if (!(al->s = calloc(al->n_s, sizeof(*al->s)))) {
                        al->n_s = 0;
                        return errorf(why, n, -ENOMEM, "out of memory");
                }
        }
        w->spec = spec;
        w->tn = before + clone + 1;
        w->s = &al->s[(size_t)(w->tn - 1) * FIOLOG_KINDS + kind];
        return 0;
}

/* The stream's own file: fio's per-clone name (also for per_job_logs=0, whose clones are put
 * together at the end). */
static int stream_name(char *buf, size_t n, const where_t *w, unsigned kind, const char *agent)
{
        return fiolog_file_name(buf, n, w->spec, kind, w->tn, agent);
}

/* --- chunks ---------------------------------------------------------------------------------- */

static void refuse(coord_run_t *run, const run_agent_t *a, const char *fmt, ...) _printf_(3, 4);
static void refuse(coord_run_t *run, const run_agent_t *a, const char *fmt, ...)
{
        agent_logs_t *al = &run->logs->ag[a->rank];
        va_list ap;
        if (al->n_refused++)
                return; /* said once per agent and run; the result counts them */
        va_start(ap, fmt);
        vsnprintf(al->refused, sizeof(al->refused), fmt, ap);
        va_end(ap);
        if (!run->replaying)
                log_warning("run %s: agent %s: log chunk left: %s", run->id, a->name,
                            al->refused);
}

/* An open descriptor of the stream's file, kept until the next sync. */
static int open_stream(run_logs_t *l, const stream_t *s, const char *name)
{
        int fd;
        for (size_t i = 0; i < l->n_open; i++)
                if (l->open[i].s == s)
                        return l->open[i].fd;
        if (l->n_open == OPEN_MAX)
                close_open(l, 0, true);
        fd = openat(l->dirfd, name, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0)
                return -errno;
        l->open[l->n_open++] = (open_file_t){s, fd};
        return fd;
}

static void set_cut(stream_t *s, const char *why)
{
        if (s->cut || strempty(why))
                return;
        s->cut = strdup(why);
}

void run_logs_chunk(coord_run_t *run, run_agent_t *a, const Iofleet__LogChunk *c, int64_t now)
{
        run_logs_t *l = run->logs;
        agent_logs_t *al;
        uint64_t end = c->offset + c->data.len, grow, max = run->submit->submit_run->fio_log_bytes_max;
        char why[200], name[512];
        struct stat st;
        where_t w = {0};
        int fd;

        if (!l) {
                log_debug("run %s: agent %s sent a log chunk; no job of the run writes a log",
                          run->id, a->name);
                return;
        }
        al = &l->ag[a->rank];
        if (locate(run, a, c->job, c->clone, c->kind, &w, why, sizeof(why)) < 0) {
                refuse(run, a, "%s", why);
                return;
        }
        if (run->replaying) {
                /* the journal holds no data: the file has it (run_logs_set_dir() counts it) */
                w.s->seen = true;
                w.s->eof |= c->eof;
                if (c->eof)
                        set_cut(w.s, c->cut);
                return;
        }
        if (l->dirfd < 0 || stream_name(name, sizeof(name), &w, c->kind, a->name) < 0) {
                refuse(run, a, "no place for the %s log of job %s", fiolog_kind_name(c->kind),
                       w.spec->name);
                return;
        }
        if ((fd = open_stream(l, w.s, name)) < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
                refuse(run, a, "%s: %s", name, fd < 0 ? strerror(-fd) : "not a regular file");
                return;
        }
        w.s->end = (uint64_t)st.st_size;
        if (c->offset > w.s->end) {
                refuse(run, a, "%s: a chunk at byte %llu; the file holds %llu", name,
                       (unsigned long long)c->offset, (unsigned long long)w.s->end);
                return;
        }
        grow = end > w.s->end ? end - w.s->end : 0;
        if (max && al->bytes + grow > max) {
                if (!al->over)
                        log_warning("run %s: agent %s: its log files reached fio_logs_max_mib "
                                    "(%llu MiB): what follows is left",
                                    run->id, a->name, (unsigned long long)(max >> 20));
                al->over = true;
                set_cut(w.s, "the coordinator's fio_logs_max_mib");
                return;
        }
        for (size_t off = 0; off < c->data.len;) {
                ssize_t r = pwrite(fd, c->data.data + off, c->data.len - off,
                                   (off_t)(c->offset + off));
                if (r < 0 && errno == EINTR)
                        continue;
                if (r <= 0) {
                        if (!l->write_failed)
                                log_error("run %s: %s: writing agent %s's log failed: %s", run->id,
                                          name, a->name, r < 0 ? strerror(errno) : "no space");
                        l->write_failed = true;
                        set_cut(w.s, "the coordinator could not write it");
                        return;
                }
                off += (size_t)r;
        }
        al->bytes += grow;
        w.s->end += grow;
        w.s->seen = true;
        /* progress, bounded by the limit: a stopped agent shipping its logs is not stuck */
        if (grow && run->phase == RUN_STOPPING && run->finish_deadline_ns < now + RUN_FINISH_GRACE_NS)
                run->finish_deadline_ns = now + RUN_FINISH_GRACE_NS;
        if (c->eof) {
                w.s->eof = true;
                set_cut(w.s, c->cut);
        }
}

int run_logs_sync(coord_run_t *run)
{
        run_logs_t *l = run->logs;
        bool failed;
        if (!l)
                return 0;
        failed = l->write_failed;
        while (l->n_open)
                close_open(l, 0, true);
        return !failed && l->write_failed ? -EIO : 0;
}

/* Every stream seen of agent a: cb(spec, kind, clone's thread number, stream). */
static void each_stream(coord_run_t *run, size_t rank,
                        void (*cb)(coord_run_t *run, size_t rank, const job_spec_t *spec,
                                   unsigned kind, unsigned tn, stream_t *s, void *u),
                        void *u)
{
        run_logs_t *l = run->logs;
        const run_agent_t *a = &run->agents[rank];
        size_t p = a->part < l->n_parts ? a->part : 0;
        unsigned tn = 0;
        if (!l->ag[rank].s)
                return;
        for (size_t j = 0; j < l->part_jobs[p]; j++) {
                const job_spec_t *spec = &run->specs[l->part_first[p] + j];
                for (unsigned c = 0; c < spec->numjobs; c++) {
                        tn++;
                        for (unsigned k = 0; k < FIOLOG_KINDS; k++) {
                                stream_t *s = &l->ag[rank].s[(size_t)(tn - 1) * FIOLOG_KINDS + k];
                                if (s->seen)
                                        cb(run, rank, spec, k, tn, s, u);
                        }
                }
        }
}

static void count_file(coord_run_t *run, size_t rank, const job_spec_t *spec, unsigned kind,
                       unsigned tn, stream_t *s, void *u)
{
        char name[512];
        struct stat st;
        (void)u;
        if (fiolog_file_name(name, sizeof(name), spec, kind, tn, run->agents[rank].name) == 0 &&
            fstatat(run->logs->dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode))
                s->end = (uint64_t)st.st_size;
        run->logs->ag[rank].bytes += s->end;
}

int run_logs_set_dir(coord_run_t *run, const char *dir)
{
        run_logs_t *l = run->logs;
        if (!l)
                return 0;
        if (l->dirfd >= 0)
                close(l->dirfd);
        l->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (l->dirfd < 0)
                return log_error_errno(-errno, "run %s: fio's log files: cannot open %s: %m",
                                       run->id, dir);
        /* after a journal's replay: what each file holds is what was kept */
        for (size_t a = 0; a < l->n_agents; a++) {
                l->ag[a].bytes = 0;
                each_stream(run, a, count_file, NULL);
        }
        return 0;
}

/* --- the end: per_job_logs=0 ---------------------------------------------------------------- */

/* Appends file src (by name, in the run directory) to fd. 0 or -errno. */
static int append(int dirfd, const char *src, int fd)
{
        char buf[65536];
        int in = openat(dirfd, src, O_RDONLY | O_NOFOLLOW | O_CLOEXEC), r = 0;
        ssize_t n;
        if (in < 0)
                return errno == ENOENT ? 0 : -errno;
        while ((n = read(in, buf, sizeof(buf))) > 0)
                if ((r = write_all(fd, buf, (size_t)n)) < 0)
                        goto out;
        if (n < 0)
                r = -errno;
out:
        close(in);
        return r;
}

typedef struct part {
        char final[256], part[256];
} part_t;

typedef struct parts {
        part_t *v;
        size_t n, cap;
} parts_t;

static void collect_part(coord_run_t *run, size_t rank, const job_spec_t *spec, unsigned kind,
                         unsigned tn, stream_t *s, void *u)
{
        parts_t *ps = u;
        const char *agent = run->agents[rank].name;
        part_t pt;
        (void)s;
        if (spec->per_job_logs ||
            fiolog_file_name(pt.final, sizeof(pt.final), spec, kind, 0, agent) < 0 ||
            fiolog_file_name(pt.part, sizeof(pt.part), spec, kind, tn, agent) < 0 ||
            array_reserve((void **)&ps->v, &ps->cap, ps->n, sizeof(*ps->v)) < 0)
                return;
        ps->v[ps->n++] = pt;
}

/* fio's per_job_logs=0 file: the clones' own files one after another (jobs in order, their
 * clones in order), made in a temporary file renamed into place; the clones' files go once it
 * is there, so that a restart finding the final file only removes what is left of them. */
static void join(coord_run_t *run, const parts_t *ps, size_t i)
{
        run_logs_t *l = run->logs;
        const char *final = ps->v[i].final;
        char tmp[300];
        struct stat st;
        int fd, r = 0;
        if (fstatat(l->dirfd, final, &st, AT_SYMLINK_NOFOLLOW) == 0)
                return;
        snprintf(tmp, sizeof(tmp), ".%s.tmp", final);
        fd = openat(l->dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0) {
                log_error("run %s: %s: %m", run->id, tmp);
                return;
        }
        for (size_t k = i; k < ps->n && r == 0; k++)
                if (streq(ps->v[k].final, final))
                        r = append(l->dirfd, ps->v[k].part, fd);
        if (r == 0 && fdatasync(fd) < 0)
                r = -errno;
        close(fd);
        if (r == 0 && renameat(l->dirfd, tmp, l->dirfd, final) < 0)
                r = -errno;
        if (r < 0) {
                log_error("run %s: %s: putting its clones' logs together: %s", run->id, final,
                          strerror(-r));
                unlinkat(l->dirfd, tmp, 0);
        }
}

void run_logs_finish(coord_run_t *run)
{
        run_logs_t *l = run->logs;
        if (!l || l->dirfd < 0)
                return;
        run_logs_sync(run);
        for (size_t a = 0; a < l->n_agents; a++) {
                parts_t ps = {0};
                struct stat st;
                each_stream(run, a, collect_part, &ps);
                for (size_t i = 0; i < ps.n; i++) {
                        bool done = false;
                        for (size_t k = 0; k < i && !done; k++)
                                done = streq(ps.v[k].final, ps.v[i].final);
                        if (!done)
                                join(run, &ps, i);
                }
                for (size_t i = 0; i < ps.n; i++)
                        if (fstatat(l->dirfd, ps.v[i].final, &st, AT_SYMLINK_NOFOLLOW) == 0)
                                unlinkat(l->dirfd, ps.v[i].part, 0);
                free(ps.v);
        }
}

/* --- the result ------------------------------------------------------------------------------ */

static void file_json(coord_run_t *run, size_t rank, const job_spec_t *spec, unsigned kind,
                      unsigned tn, stream_t *s, void *u)
{
        json_t *files = u, *f;
        char name[512];
        if (fiolog_file_name(name, sizeof(name), spec, kind, spec->per_job_logs ? tn : 0,
                             run->agents[rank].name) < 0)
                return;
        /* per_job_logs=0: one entry for the file its clones went into */
        for (size_t i = 0; i < json_array_size(files); i++) {
                json_t *e = json_array_get(files, i);
                if (streq(json_string_value(json_object_get(e, "file")), name)) {
                        json_object_set_new(e, "bytes",
                                            json_integer(json_integer_value(
                                                             json_object_get(e, "bytes")) +
                                                         (json_int_t)s->end));
                        if (!s->eof)
                                json_object_set_new(e, "complete", json_false());
                        return;
                }
        }
        f = json_pack("{s:s, s:s, s:s, s:I, s:b}", "file", name, "job", spec->name, "kind",
                      fiolog_kind_name(kind), "bytes", (json_int_t)s->end, "complete",
                      s->eof && !s->cut);
        if (f && s->cut)
                json_object_set_new(f, "cut", json_string(s->cut));
        json_array_append_new(files, f);
}

json_t *run_logs_json(const coord_run_t *crun)
{
        coord_run_t *run = (coord_run_t *)crun; /* each_stream() walks, changes nothing */
        run_logs_t *l = run->logs;
        json_t *arr = json_array();
        if (!l || !arr)
                return arr;
        for (size_t a = 0; a < l->n_agents; a++) {
                agent_logs_t *al = &l->ag[a];
                json_t *files, *e;
                if (run->agents[a].server)
                        continue; /* an NFS server runs no job */
                files = json_array();
                each_stream(run, a, file_json, files);
                e = json_pack("{s:s, s:o, s:I}", "agent", run->agents[a].name, "files", files,
                              "bytes", (json_int_t)al->bytes);
                if (e && al->n_refused) {
                        json_object_set_new(e, "refused_chunks", json_integer((json_int_t)al->n_refused));
                        json_object_set_new(e, "refused", json_string(al->refused));
                }
                json_array_append_new(arr, e);
        }
        return arr;
}
