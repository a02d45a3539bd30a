/* fio job files: [sections], key=value and bare keys, comments, include, ${VAR}, read into an
 * ordered list of sections and options. */
#include "jobfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fileio.h"
#include "util.h"

typedef struct parser {
        const jobfile_io_t *io;
        const strv_t *sections;
        jobfile_t jf;
        char *section; /* the section lines belong to; NULL before the first */
        bool global;
        bool skipping; /* in a job section that --section leaves out */
        size_t total;  /* bytes read, includes counted */
        unsigned includes;
        char *value; /* JOBFILE_MAX_LINE + 1 bytes: a value once ${VAR} is expanded */
        char *err;
        size_t errlen;
} parser_t;

/* fio's reserved keywords: replaced by values of the host that reads the job file. */
static const char *const reserved[] = {"$pagesize", "$mb_memory", "$ncpus"};

bool jobfile_section_is_global(const char *name)
{
        return strncmp(name, "global", 6) == 0;
}

int jobfile_read_file(const char *path, char **data, size_t *size)
{
        if (streq(path, "-"))
                return read_full_fd(STDIN_FILENO, JOBFILE_MAX_SIZE, data, size);
        return read_full_file(path, 0, JOBFILE_MAX_SIZE, data, size);
}

static const char *fs_getenv(void *user, const char *name)
{
        return getenv(name);
}

static int read_file(parser_t *p, const char *path, char **data, size_t *size)
{
        if (p->io && p->io->read_file)
                return p->io->read_file(p->io->user, path, data, size);
        return jobfile_read_file(path, data, size);
}

static const char *env(parser_t *p, const char *name)
{
        if (p->io && p->io->getenv)
                return p->io->getenv(p->io->user, name);
        return fs_getenv(NULL, name);
}

/* A short, printable copy of what the file said, for messages. */
static const char *echo(char *buf, size_t len, const char *s)
{
        size_t i = 0, max = len - 4;
        for (; s[i] && i < max; i++)
                buf[i] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i];
        if (s[i])
                memcpy(buf + i, "...", 3), i += 3;
        buf[i] = 0;
        return buf;
}

static bool is_blank(char c)
{
        return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static char *trim(char *s)
{
        size_t n;
        while (is_blank(*s))
                s++;
        n = strlen(s);
        while (n > 0 && is_blank(s[n - 1]))
                s[--n] = 0;
        return s;
}

static int push(parser_t *p, const char *key, const char *value, const char *path, int line)
{
        jobfile_entry_t *e;

        if (p->jf.n >= JOBFILE_MAX_ENTRIES)
                return errorf(p->err, p->errlen, -EINVAL,
                              "%s:%d: more than %d sections and options", path, line,
                              JOBFILE_MAX_ENTRIES);
        e = realloc(p->jf.entries, (p->jf.n + 1) * sizeof(*e));
        if (!e)
                return -ENOMEM;
        p->jf.entries = e;
        e = &e[p->jf.n];
        *e = (jobfile_entry_t){.global = p->global, .line = line};
        e->section = strdup(p->section);
        e->path = strdup(path);
        e->key = key ? strdup(key) : NULL;
        e->value = value ? strdup(value) : NULL;
        p->jf.n++; /* counted first so that jobfile_free() frees what was copied */
        if (!e->section || !e->path || (key && !e->key) || (value && !e->value))
                return -ENOMEM;
        return 0;
}

static int section(parser_t *p, const char *path, int line, char *s, int depth)
{
        size_t len = strlen(s);
        char b[64], *name;

        if (s[len - 1] != ']')
                return errorf(p->err, p->errlen, -EINVAL,
                              "%s:%d: '%s' is not a section header (no closing ']')", path, line,
                              echo(b, sizeof(b), s));
        s[len - 1] = 0;
        name = trim(s + 1);
        if (!*name)
                return errorf(p->err, p->errlen, -EINVAL, "%s:%d: '[]' names no section", path,
                              line);
        if (depth > 0)
                return errorf(p->err, p->errlen, -EINVAL,
                              "%s:%d: [%s]: an included file holds options only, no sections (as "
                              "in fio)",
                              path, line, echo(b, sizeof(b), name));
        if (strdup_to(&p->section, name) < 0)
                return -ENOMEM;
        p->global = jobfile_section_is_global(name);
        p->skipping = false;
        if (!p->global) {
                p->jf.n_job_sections++;
                p->skipping = p->sections && p->sections->n && !strv_contains(p->sections, name);
        }
        return p->skipping ? 0 : push(p, NULL, NULL, path, line);
}

static int parse_text(parser_t *p, const char *path, const char *data, size_t size, int depth);

/* "include FILE": FILE relative to the including file's directory, else (as fio tries first) to
 * the current directory. */
static int include(parser_t *p, const char *path, int line, char *name, int depth)
{
        const char *slash = strrchr(path, '/');
        char *tried[2] = {NULL, NULL}, *data = NULL, b[64], t[256];
        size_t size = 0, n = 0, i;
        int r = -ENOENT;

        name = trim(name);
        if (!*name)
                return errorf(p->err, p->errlen, -EINVAL,
                              "%s:%d: [%s] include: needs a file name (include FILE)", path, line,
                              p->section);
        if (depth >= JOBFILE_MAX_INCLUDE_DEPTH)
                return errorf(p->err, p->errlen, -EINVAL,
                              "%s:%d: [%s] include %s: includes nest deeper than %d (does a file "
                              "include itself?)",
                              path, line, p->section, echo(b, sizeof(b), name),
                              JOBFILE_MAX_INCLUDE_DEPTH);
        if (++p->includes > JOBFILE_MAX_INCLUDES)
                return errorf(p->err, p->errlen, -EINVAL,
                              "%s:%d: [%s] include %s: more than %d includes in all", path, line,
                              p->section, echo(b, sizeof(b), name), JOBFILE_MAX_INCLUDES);
        if (name[0] != '/' && slash) {
                if (asprintf(&tried[n++], "%.*s%s", (int)(slash - path + 1), path, name) < 0)
                        return -ENOMEM;
        }
        if (!(tried[n++] = strdup(name))) {
                free(tried[0]);
                return -ENOMEM;
        }
        for (i = 0; i < n; i++)
                if ((r = read_file(p, tried[i], &data, &size)) != -ENOENT)
                        break;
        if (r == -ENOENT)
                r = errorf(p->err, p->errlen, r, "%s:%d: [%s] include %s: no such file%s%s%s", path,
                           line, p->section, echo(b, sizeof(b), name), n > 1 ? " (looked for " : "",
                           n > 1 ? echo(t, sizeof(t), tried[0]) : "",
                           n > 1 ? " and in the current directory)" : "");
        else if (r == -EFBIG)
                r = errorf(p->err, p->errlen, r, "%s:%d: [%s] include %s: larger than %u bytes",
                           path, line, p->section, echo(t, sizeof(t), tried[i]), JOBFILE_MAX_SIZE);
        else if (r < 0)
                r = errorf(p->err, p->errlen, r, "%s:%d: [%s] include %s: %s", path, line,
                           p->section, echo(t, sizeof(t), tried[i]), strerror(-r));
        else {
                p->total += size;
                if (p->total > JOBFILE_MAX_TOTAL)
                        r = errorf(p->err, p->errlen, -EFBIG,
                                   "%s:%d: [%s] include %s: the job file and its includes pass "
                                   "%u bytes",
                                   path, line, p->section, echo(t, sizeof(t), tried[i]),
                                   JOBFILE_MAX_TOTAL);
                else
                        r = parse_text(p, tried[i], data, size, depth + 1);
                free(data);
        }
        free(tried[0]);
        free(tried[1]);
        return r;
}

/* fio's ${VAR}: the environment variable's value. Unlike fio, which puts nothing in place of an
 * unset variable, an unset one is an error: a job file that says size=${SIZE} wants a size. */
static int expand(parser_t *p, const char *path, int line, const char *key, const char *in,
                  char *out)
{
        size_t n = 0;
        char b[64];

        for (const char *s = in; *s;) {
                const char *add = s;
                size_t alen = 1;
                if (s[0] == '$' && s[1] == '{') {
                        const char *close = strchr(s + 2, '}');
                        char var[256];
                        if (!close)
                                return errorf(p->err, p->errlen, -EINVAL,
                                              "%s:%d: [%s] %s: '${' without its closing '}'", path,
                                              line, p->section, key);
                        if (close == s + 2)
                                return errorf(p->err, p->errlen, -EINVAL,
                                              "%s:%d: [%s] %s: '${}' names no environment "
                                              "variable",
                                              path, line, p->section, key);
                        if ((size_t)(close - s - 2) >= sizeof(var))
                                return errorf(p->err, p->errlen, -EINVAL,
                                              "%s:%d: [%s] %s: environment variable name longer "
                                              "than %zu characters",
                                              path, line, p->section, key, sizeof(var) - 1);
                        snprintf(var, sizeof(var), "%.*s", (int)(close - s - 2), s + 2);
                        add = env(p, var);
                        if (!add)
                                return errorf(p->err, p->errlen, -EINVAL,
                                              "%s:%d: [%s] %s: environment variable %s is not set",
                                              path, line, p->section, key, echo(b, sizeof(b), var));
                        alen = strlen(add);
                        s = close + 1;
                } else
                        s++;
                if (n + alen > JOBFILE_MAX_LINE)
                        return errorf(p->err, p->errlen, -EINVAL,
                                      "%s:%d: [%s] %s: value longer than %d characters once "
                                      "${...} is expanded",
                                      path, line, p->section, key, JOBFILE_MAX_LINE);
                memcpy(out + n, add, alen);
                n += alen;
        }
        out[n] = 0;
        for (size_t i = 0; i < ELEMENTSOF(reserved); i++)
                if (strstr(out, reserved[i]))
                        return errorf(p->err, p->errlen, -EOPNOTSUPP,
                                      "%s:%d: [%s] %s: fio's %s is not supported by iofleet (it "
                                      "would take this host's value, not each agent's)",
                                      path, line, p->section, key, reserved[i]);
        return 0;
}

static int option(parser_t *p, const char *path, int line, char *s)
{
        char *eq = strchr(s, '='), *key = s, *value = (char *)"", b[64];
        int r;

        if (eq) {
                *eq = 0;
                key = trim(s);
                value = trim(eq + 1);
        }
        if (!*key)
                return errorf(p->err, p->errlen, -EINVAL,
                              "%s:%d: [%s] '=%s' has no option name before '='", path, line,
                              p->section, echo(b, sizeof(b), value));
        for (const char *c = key; *c; c++)
                if (is_blank(*c))
                        return errorf(p->err, p->errlen, -EINVAL,
                                      "%s:%d: [%s] '%s' is not an option (key=value, or a bare "
                                      "key such as time_based)",
                                      path, line, p->section, echo(b, sizeof(b), key));
        if (streq(key, "include"))
                return errorf(p->err, p->errlen, -EINVAL,
                              "%s:%d: [%s] include: write 'include FILE', with a space", path, line,
                              p->section);
        if ((r = expand(p, path, line, key, value, p->value)) < 0)
                return r;
        return push(p, key, p->value, path, line);
}

static int parse_line(parser_t *p, const char *path, int line, char *s, int depth)
{
        char b[64];

        /* As fio's strip_blank_end(): ';' or '#' anywhere starts a comment. */
        s[strcspn(s, ";#")] = 0;
        s = trim(s);
        if (!*s)
                return 0;
        if (s[0] == '[')
                return section(p, path, line, s, depth);
        if (p->skipping)
                return 0;
        if (!p->section)
                return errorf(p->err, p->errlen, -EINVAL,
                              "%s:%d: '%s' comes before any section; start with [global] or "
                              "[JOBNAME]",
                              path, line, echo(b, sizeof(b), s));
        if (strncmp(s, "include", 7) == 0 && (!s[7] || is_blank(s[7])))
                return include(p, path, line, s + 7, depth);
        return option(p, path, line, s);
}

static int parse_text(parser_t *p, const char *path, const char *data, size_t size, int depth)
{
        const char *s = data, *end = data + size;
        char *buf = malloc(JOBFILE_MAX_LINE + 1);
        int line = 0, r = 0;

        if (!buf)
                return -ENOMEM;
        if (size >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0)
                s += 3;
        while (s < end && r >= 0) {
                const char *nl = memchr(s, '\n', (size_t)(end - s));
                size_t len = nl ? (size_t)(nl - s) : (size_t)(end - s);
                line++;
                if (memchr(s, 0, len))
                        r = errorf(p->err, p->errlen, -EINVAL, "%s:%d: NUL byte not allowed", path,
                                   line);
                else if (len > JOBFILE_MAX_LINE)
                        r = errorf(p->err, p->errlen, -EINVAL,
                                   "%s:%d: line longer than %d characters", path, line,
                                   JOBFILE_MAX_LINE);
                else {
                        memcpy(buf, s, len);
                        buf[len] = 0;
                        r = parse_line(p, path, line, buf, depth);
                }
                s = nl ? nl + 1 : end;
        }
        free(buf);
        return r;
}

int jobfile_parse(const char *path, const jobfile_io_t *io, const strv_t *sections, jobfile_t *ret,
                  char *err, size_t errlen)
{
        parser_t p = {.io = io, .sections = sections, .err = err, .errlen = errlen};
        const char *shown = streq(path, "-") ? "<stdin>" : path;
        char *data = NULL;
        size_t size = 0;
        int r;

        if (!(p.value = malloc(JOBFILE_MAX_LINE + 1)))
                return errorf(err, errlen, -ENOMEM, "%s: out of memory", shown);
        r = read_file(&p, path, &data, &size);
        if (r < 0)
                free(p.value);
        if (r == -EFBIG)
                return errorf(err, errlen, r, "%s: larger than %u bytes", shown, JOBFILE_MAX_SIZE);
        if (r < 0)
                return errorf(err, errlen, r, "%s: %s", shown, strerror(-r));
        p.total = size;
        r = parse_text(&p, shown, data, size, 0);
        free(data);
        free(p.section);
        free(p.value);
        if (r < 0) {
                if (r == -ENOMEM)
                        errorf(err, errlen, r, "%s: out of memory", shown);
                jobfile_free(&p.jf);
                return r;
        }
        *ret = p.jf;
        return 0;
}

void jobfile_free(jobfile_t *jf)
{
        for (size_t i = 0; i < jf->n; i++) {
                free(jf->entries[i].section);
                free(jf->entries[i].key);
                free(jf->entries[i].value);
                free(jf->entries[i].path);
        }
        free(jf->entries);
        memset(jf, 0, sizeof(*jf));
}
