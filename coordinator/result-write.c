/* A finished run's directory: result.json streamed into its file (client_stats and jobs[] an
 * entry at a time, so that the entries of thousands of agents are never all in memory), the
 * interval series and the command line; and result.json read back. */
#include "result.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"
#include "log.h"
#include "result-fio.h"
#include "sweep.h"
#include "util.h"

void result_dir_of(const coord_run_t *run, const char *results_dir, char *buf, size_t len)
{
        if (!strempty(run->submit->submit_run->sweep_id))
                /* A step of a sweep: one directory per point and repeat under the sweep's. */
                sweep_point_dir(results_dir, run->submit->submit_run, buf, len);
        else
                snprintf(buf, len, "%s/%s", results_dir, run->id);
}

/* Text into a file through a buffer. A value dumped at a depth gets the indentation of that
 * depth after each of its line breaks, as jansson indents a nested value (a string's own line
 * breaks are escaped: every raw one is the layout's). */
typedef struct json_out {
        int fd, err;
        size_t n;
        unsigned indent;
        char buf[1 << 16];
} json_out_t;

static int out_flush(json_out_t *o)
{
        if (!o->err && o->n)
                o->err = write_all(o->fd, o->buf, o->n);
        o->n = 0;
        return o->err;
}

static int out_add(json_out_t *o, const char *data, size_t len)
{
        while (len && !o->err) {
                size_t k = len < sizeof(o->buf) - o->n ? len : sizeof(o->buf) - o->n;
                memcpy(o->buf + o->n, data, k);
                o->n += k;
                data += k;
                len -= k;
                if (o->n == sizeof(o->buf))
                        out_flush(o);
        }
        return o->err;
}

static int out_str(json_out_t *o, const char *s)
{
        return out_add(o, s, strlen(s));
}

/* jansson's text with indent spaces after each line break, handed to emit (0 or < 0). */
static int indent_each(const char *data, size_t len, unsigned indent,
                       int (*emit)(void *ctx, const char *p, size_t n), void *ctx)
{
        static const char spaces[] = "                ";
        while (len) {
                const char *nl = memchr(data, '\n', len);
                size_t k = nl ? (size_t)(nl - data) + 1 : len;
                if (emit(ctx, data, k) < 0 ||
                    (nl && emit(ctx, spaces, indent < sizeof(spaces) ? indent : 0) < 0))
                        return -1;
                data += k;
                len -= k;
        }
        return 0;
}

static int out_emit(void *ctx, const char *p, size_t n)
{
        return out_add(ctx, p, n);
}

static int out_indented(const char *data, size_t len, void *user)
{
        json_out_t *o = user;
        return indent_each(data, len, o->indent, out_emit, o);
}

/* v as jansson dumps it at this depth of the document (2 spaces a level). */
static int out_value(json_out_t *o, json_t *v, unsigned depth)
{
        o->indent = 2 * depth;
        if (json_dump_callback(v, out_indented, o, RESULT_JSON_FLAGS | JSON_ENCODE_ANY) < 0 &&
            !o->err)
                o->err = -ENOMEM;
        return o->err;
}

/* client_stats into the file, and the same entries of jobs[] into a scratch file that follows
 * them (fio's single-host layout lists them again): each entry is dumped once, into text (at
 * its depth) written to both. */
typedef struct stream {
        const coord_run_t *run;
        json_out_t *o, *jobs;
        size_t n, n_jobs;
        char *text;
        size_t len, cap;
} stream_t;

static int text_emit(void *ctx, const char *p, size_t n)
{
        stream_t *st = ctx;
        if (st->len + n > st->cap) {
                size_t cap = st->cap ? st->cap : 16384;
                char *t;
                while (cap < st->len + n)
                        cap *= 2;
                if (!(t = realloc(st->text, cap)))
                        return -1;
                st->text = t;
                st->cap = cap;
        }
        memcpy(st->text + st->len, p, n);
        st->len += n;
        return 0;
}

static int text_add(const char *data, size_t len, void *user)
{
        return indent_each(data, len, 4, text_emit, user);
}

static int stream_entry(void *user, json_t *entry)
{
        stream_t *st = user;
        st->len = 0;
        if (json_dump_callback(entry, text_add, st, RESULT_JSON_FLAGS) < 0)
                return -ENOMEM;
        if (out_str(st->o, st->n++ ? ",\n    " : "\n    ") < 0 ||
            out_add(st->o, st->text, st->len) < 0)
                return st->o->err;
        if (!result_fio_job_listed(entry, st->run->n_agents))
                return 0;
        if (out_str(st->jobs, st->n_jobs++ ? ",\n    " : "\n    ") < 0 ||
            out_add(st->jobs, st->text, st->len) < 0)
                return st->jobs->err;
        return 0;
}

/* A file that goes when it is closed, in dir (the result's own file system). */
static int scratch_fd(const char *dir)
{
        char path[4200];
        int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
        if (fd >= 0)
                return fd;
        snprintf(path, sizeof(path), "%s/.result-jobs-XXXXXX", dir);
        if ((fd = mkostemp(path, O_CLOEXEC)) < 0)
                return -errno;
        unlink(path);
        return fd;
}

/* What st->jobs holds, appended to st->o. */
static int copy_jobs(stream_t *st)
{
        char buf[1 << 16];
        off_t off = 0;
        ssize_t got;
        if (out_flush(st->jobs) < 0)
                return st->jobs->err;
        while ((got = pread(st->jobs->fd, buf, sizeof(buf), off)) != 0) {
                if (got < 0 && errno == EINTR)
                        continue;
                if (got < 0)
                        return -errno;
                if (out_add(st->o, buf, (size_t)got) < 0)
                        return st->o->err;
                off += got;
        }
        return 0;
}

typedef struct write_ctx {
        const coord_run_t *run;
        json_t *doc;
        const char *dir;
} write_ctx_t;

/* The document key by key as jansson lays it out; client_stats and jobs[] come from the run, an
 * entry at a time (whatever the document holds for them). */
static int fill_json(int fd, void *user)
{
        const write_ctx_t *w = user;
        json_out_t *o = calloc(1, sizeof(*o)), *jobs = calloc(1, sizeof(*jobs));
        stream_t st = {.run = w->run, .o = o, .jobs = jobs};
        bool streamed = false;
        const char *key;
        json_t *v;
        size_t k = 0;
        int r = 0;

        if (!o || !jobs) {
                free(o);
                free(jobs);
                return -ENOMEM;
        }
        o->fd = fd;
        jobs->fd = -1;
        out_str(o, "{");
        json_object_foreach(w->doc, key, v)
        {
                json_t *name = json_string(key);
                if (!name) {
                        r = -ENOMEM;
                        break;
                }
                out_str(o, k++ ? ",\n  " : "\n  ");
                out_value(o, name, 1);
                json_decref(name);
                out_str(o, ": ");
                if (streq(key, "client_stats") && json_is_array(v) && !streamed) {
                        if ((jobs->fd = scratch_fd(w->dir)) < 0) {
                                r = jobs->fd;
                                break;
                        }
                        out_str(o, "[");
                        if ((r = result_entries_each(w->run, stream_entry, &st)) < 0)
                                break;
                        out_str(o, st.n ? "\n  ]" : "]");
                        streamed = true;
                } else if (streq(key, "jobs") && json_is_array(v) && streamed) {
                        out_str(o, "[");
                        if ((r = copy_jobs(&st)) < 0)
                                break;
                        out_str(o, st.n_jobs ? "\n  ]" : "]");
                } else
                        out_value(o, v, 1);
                if (o->err)
                        break;
        }
        if (r == 0) {
                out_str(o, k ? "\n}\n" : "}\n");
                r = out_flush(o);
        }
        if (jobs->fd >= 0)
                close(jobs->fd);
        free(st.text);
        free(o);
        free(jobs);
        return r;
}

int result_write_dir(const coord_run_t *run, json_t *doc, const char *results_dir, char *dir_out,
                     size_t dir_len)
{
        char dir[4096], path[4200];
        write_ctx_t w = {.run = run, .doc = doc, .dir = dir};
        int r;

        result_dir_of(run, results_dir, dir, sizeof(dir));
        if ((r = mkdir_p(dir, 0755)) < 0)
                return log_error_errno(r, "results: cannot create %s: %m", dir);
        snprintf(path, sizeof(path), "%s/result.json", dir);
        if ((r = write_file_atomic_with(path, 0644, fill_json, &w)) < 0)
                return log_error_errno(r, "results: cannot write %s: %m", path);

        snprintf(path, sizeof(path), "%s/intervals.csv", dir);
        if (!run->spool_path[0] || !streq(run->spool_path, path)) {
                /* A run without a spool (its directory was not known at its start) writes its
                 * series now, in the spool's format. */
                if ((r = run_write_csv(run, path)) < 0)
                        return log_error_errno(r, "results: cannot write %s: %m", path);
        }

        snprintf(path, sizeof(path), "%s/command.txt", dir);
        if (run->submit->submit_run->command_line &&
            (r = write_file_atomic(path, run->submit->submit_run->command_line,
                                   strlen(run->submit->submit_run->command_line), 0644)) < 0)
                return log_error_errno(r, "results: cannot write %s: %m", path);
        snprintf(dir_out, dir_len, "%s", dir);
        return 0;
}

char *result_read_text(const char *dir, size_t max)
{
        char path[4200], *text = NULL;
        snprintf(path, sizeof(path), "%s/result.json", dir);
        if (read_full_file(path, READ_FULL_REGULAR, max, &text, NULL) < 0)
                return NULL;
        return text;
}
