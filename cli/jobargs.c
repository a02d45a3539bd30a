/* Jobs from fio-style arguments and fio job files, as fio reads them: global options are the
 * defaults of the jobs that follow, each --name or [section] opens a job. */
#include "jobargs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobgroups.h"
#include "options.h"
#include "util.h"

static int push(strv_t *k, strv_t *v, strv_t *w, const char *key, const char *value,
                const char *where)
{
        return strv_push(k, key) < 0 || strv_push(v, value) < 0 || strv_push(w, where) < 0 ? -ENOMEM
                                                                                           : 0;
}

static int copy(strv_t *dst, const strv_t *src)
{
        for (size_t i = 0; i < src->n; i++)
                if (strv_push(dst, src->v[i]) < 0)
                        return -ENOMEM;
        return 0;
}

/* A job starts from the global options in effect where it opens, as fio copies its defaults. */
static int open_job(jobargs_t *ja, const char *name, const char *where)
{
        jobargs_job_t *j = realloc(ja->jobs, (ja->n_jobs + 1) * sizeof(*j));
        if (!j)
                return -ENOMEM;
        ja->jobs = j;
        j = &ja->jobs[ja->n_jobs++];
        memset(j, 0, sizeof(*j));
        ja->in_job = true;
        j->name = strdup(name);
        j->where = where ? strdup(where) : NULL;
        j->n_global = ja->gkeys.n;
        j->refused = ja->global_refused;
        if (!j->name || (where && !j->where) || copy(&j->keys, &ja->gkeys) < 0 ||
            copy(&j->values, &ja->gvalues) < 0 || copy(&j->wheres, &ja->gwheres) < 0)
                return -ENOMEM;
        return 0;
}

static int add_option(jobargs_t *ja, const char *key, const char *value, const char *where)
{
        jobargs_job_t *j;
        if (!ja->in_job)
                return push(&ja->gkeys, &ja->gvalues, &ja->gwheres, key, value, where);
        j = &ja->jobs[ja->n_jobs - 1];
        return push(&j->keys, &j->values, &j->wheres, key, value, where);
}

int jobargs_add(jobargs_t *ja, const char *key, const char *value)
{
        if (streq(key, "name")) {
                if (jobfile_section_is_global(value)) {
                        ja->in_job = false;
                        return 0;
                }
                return open_job(ja, value, NULL);
        }
        return add_option(ja, key, value, "");
}

int jobargs_add_section(jobargs_t *ja, const char *name, char *err, size_t errlen)
{
        if (!*name)
                return errorf(err, errlen, -EINVAL, "--section: needs a job section name");
        if (jobfile_section_is_global(name))
                return errorf(err, errlen, -EINVAL,
                              "--section=%s: global sections always apply; name a job section",
                              name);
        if (strv_contains(&ja->sections, name))
                return 0;
        return strv_push(&ja->sections, name);
}

/* One option alone through the option table, so that a bad line is reported where it is even
 * when no job uses it (a [global] at the end of a file). */
static int check_option(const char *key, const char *value, const char *where, char *err,
                        size_t errlen)
{
        job_spec_t spec;
        char e[512];
        int r = job_spec_init(&spec, "check");
        if (r < 0)
                return r;
        r = job_option_set(&spec, key, value, e, sizeof(e));
        job_spec_done(&spec);
        return r < 0 ? errorf(err, errlen, r, "%s %s", where, e) : 0;
}

typedef struct saved_globals {
        strv_t k, v, w;
} saved_globals_t;

static void saved_clear(saved_globals_t *s)
{
        strv_clear(&s->k);
        strv_clear(&s->v);
        strv_clear(&s->w);
}

int jobargs_add_file(jobargs_t *ja, const char *path, const jobfile_io_t *io, char *err,
                     size_t errlen)
{
        jobfile_t jf = {0};
        int r;

        if ((r = jobfile_parse(path, io, &ja->sections, &jf, err, errlen)) < 0)
                return r;
        r = jobargs_add_jobfile(ja, &jf, path, err, errlen);
        jobfile_free(&jf);
        return r;
}

int jobargs_add_jobfile(jobargs_t *ja, const jobfile_t *jfp, const char *path, char *err,
                        size_t errlen)
{
        const jobfile_t jf = *jfp;
        saved_globals_t cmdline = {0};
        bool first = true, saved = false;
        char where[1024];
        int r;

        if (jf.n_job_sections == 0) {
                r = errorf(err, errlen, -EINVAL,
                           "%s: no job section; fio runs a file's [JOBNAME] sections, its [global] "
                           "ones only set their defaults",
                           streq(path, "-") ? "<stdin>" : path);
                goto out;
        }
        /* The command line's globals, to be put back: a file's [global]s end with the file. */
        if (copy(&cmdline.k, &ja->gkeys) < 0 || copy(&cmdline.v, &ja->gvalues) < 0 ||
            copy(&cmdline.w, &ja->gwheres) < 0) {
                r = -ENOMEM;
                goto out;
        }
        saved = true;
        ja->in_job = false;
        for (size_t i = 0; i < jf.n; i++) {
                const jobfile_entry_t *e = &jf.entries[i];
                snprintf(where, sizeof(where), "%s:%d: [%s]", e->path, e->line, e->section);
                if (e->key) {
                        char one[1024];
                        r = check_option(e->key, e->value, where, one, sizeof(one));
                        if (r == -ENOMEM)
                                goto out;
                        if (r < 0) {
                                /* Left out, and reported with all the others by check. */
                                if (!ja->error_code)
                                        ja->error_code = r;
                                if (ja->in_job)
                                        ja->jobs[ja->n_jobs - 1].refused = true;
                                else
                                        ja->global_refused = true;
                                if ((r = strv_push(&ja->errors, one)) < 0)
                                        goto out;
                                continue;
                        }
                        if ((r = add_option(ja, e->key, e->value, where)) < 0)
                                goto out;
                        continue;
                }
                if (e->global) {
                        ja->in_job = false;
                        continue;
                }
                if ((r = open_job(ja, e->section, where)) < 0)
                        goto out;
                if (first && ja->n_jobs > 1 && ja->n_files > 0) {
                        /* fio starts the jobs of each job file after those of the files before */
                        snprintf(where, sizeof(where),
                                 "%s:%d: [%s] (fio runs this job file after the one before, as "
                                 "with stonewall):",
                                 e->path, e->line, e->section);
                        if ((r = check_option("stonewall", "", where, err, errlen)) < 0 ||
                            (r = add_option(ja, "stonewall", "", where)) < 0)
                                goto out;
                }
                first = false;
        }
        ja->n_files++;
        r = 0;
out:
        ja->global_refused = false;
        if (saved) {
                strv_clear(&ja->gkeys);
                strv_clear(&ja->gvalues);
                strv_clear(&ja->gwheres);
                ja->gkeys = cmdline.k;
                ja->gvalues = cmdline.v;
                ja->gwheres = cmdline.w;
                memset(&cmdline, 0, sizeof(cmdline));
        }
        ja->in_job = false;
        saved_clear(&cmdline);
        return r;
}

int jobargs_override(jobargs_t *ja, const char *job, const char *key, const char *value,
                     const char *where)
{
        bool any = false;
        for (size_t i = 0; i < ja->n_jobs; i++) {
                jobargs_job_t *j = &ja->jobs[i];
                if (job && !streq(j->name, job))
                        continue;
                if (push(&j->keys, &j->values, &j->wheres, key, value, where) < 0)
                        return -ENOMEM;
                any = true;
        }
        return any ? 0 : -ENOENT;
}

/* Applies the options a job sees in order (its globals, then its own), as fio does. all NULL:
 * the first refusal goes to err; else each refused option goes to *all and the rest still
 * apply (err then gets the whole-job check's refusal, if any). */
static int build_spec_all(const jobargs_t *ja, const jobargs_job_t *j, job_spec_t *spec,
                          strv_t *all, char *err, size_t errlen)
{
        char e[512];
        int r = job_spec_init(spec, j->name), first = 0;
        if (r < 0)
                return r;
        for (size_t i = 0; i < j->keys.n; i++)
                if (job_option_early(j->keys.v[i]))
                        job_option_set(spec, j->keys.v[i], j->values.v[i], e, sizeof(e));
        for (size_t i = 0; i < j->keys.n; i++) {
                const char *where = j->wheres.v[i];
                r = job_option_set(spec, j->keys.v[i], j->values.v[i], e, sizeof(e));
                if (r >= 0)
                        continue;
                if (*where)
                        snprintf(err, errlen, "%s %s", where, e);
                else if (ja->n_jobs > 1 && i >= j->n_global)
                        snprintf(err, errlen, "job %s: %s", j->name, e);
                else
                        snprintf(err, errlen, "%s", e);
                if (!all || r == -ENOMEM)
                        goto fail;
                if (!strv_contains(all, err) && strv_push(all, err) < 0) {
                        r = -ENOMEM;
                        goto fail;
                }
                first = first ? first : r;
        }
        if (first || j->refused) {
                /* the whole-job rules would only restate what a left-out option did */
                r = first ? first : -EINVAL;
                err[0] = 0;
                goto fail;
        }
        if ((r = job_spec_validate(spec, e, sizeof(e))) >= 0)
                return 0;
        if (j->where)
                snprintf(err, errlen, "%s %s", j->where, e);
        else if (ja->n_jobs > 1)
                snprintf(err, errlen, "job %s: %s", j->name, e);
        else
                snprintf(err, errlen, "%s", e);
fail:
        job_spec_done(spec);
        return r;
}

static int build_spec(const jobargs_t *ja, const jobargs_job_t *j, job_spec_t *spec, char *err,
                      size_t errlen)
{
        return build_spec_all(ja, j, spec, NULL, err, errlen);
}

/* Where a job is, for messages: "seq.fio:5: [seqread] " or "". */
static const char *job_where(const jobargs_job_t *j, char *buf, size_t len)
{
        snprintf(buf, len, "%s%s", j->where ? j->where : "", j->where ? " " : "");
        return buf;
}

static int printable(const char *s)
{
        for (const char *p = s; *p; p++)
                if ((unsigned char)*p < 0x20 || *p == 0x7f)
                        return (unsigned char)*p;
        return -1;
}

/* What the wire would refuse, said here where the file and line are known. */
static int check_limits(const jobargs_t *ja, const jobargs_job_t *j, char *err, size_t errlen)
{
        char w[1100];
        int c;

        job_where(j, w, sizeof(w));
        if (!*j->name)
                return errorf(err, errlen, -EINVAL, "%sname: a job needs a name", w);
        if (strlen(j->name) > WIRE_MAX_NAME)
                return errorf(err, errlen, -EINVAL,
                              "%sname: job name '%.40s...' is longer than %d characters", w,
                              j->name, WIRE_MAX_NAME);
        if ((c = printable(j->name)) >= 0)
                return errorf(err, errlen, -EINVAL, "%sname: control character 0x%02x in job name",
                              w, c);
        for (const jobargs_job_t *k = ja->jobs; k < j; k++)
                if (streq(k->name, j->name)) {
                        if (!j->where && !k->where)
                                return errorf(err, errlen, -EINVAL,
                                              "name: job '%s' is given twice; job names must "
                                              "differ",
                                              j->name);
                        return errorf(err, errlen, -EINVAL,
                                      "%sname: job '%s' is given twice (also %s); job names "
                                      "must differ",
                                      w, j->name,
                                      k->where ? k->where : "--name on the command line");
                }
        if (j->keys.n > WIRE_MAX_JOB_OPTIONS)
                return errorf(err, errlen, -E2BIG,
                              "%sjob %s: %zu options with the globals it inherits, at most %d", w,
                              j->name, j->keys.n, WIRE_MAX_JOB_OPTIONS);
        for (size_t i = 0; i < j->keys.n; i++) {
                const char *where = *j->wheres.v[i] ? j->wheres.v[i] : w;
                const char *sep = *j->wheres.v[i] ? " " : "";
                if (strlen(j->keys.v[i]) > WIRE_MAX_NAME)
                        return errorf(err, errlen, -EINVAL,
                                      "%s%sunknown option '%.40s...' (longer than %d characters)",
                                      where, sep, j->keys.v[i], WIRE_MAX_NAME);
                if (strlen(j->values.v[i]) > WIRE_MAX_OPTION_VALUE)
                        return errorf(err, errlen, -EINVAL,
                                      "%s%s%s: value longer than %d characters", where, sep,
                                      j->keys.v[i], WIRE_MAX_OPTION_VALUE);
                if ((c = printable(j->values.v[i])) >= 0)
                        return errorf(err, errlen, -EINVAL,
                                      "%s%s%s: control character 0x%02x in the value", where, sep,
                                      j->keys.v[i], c);
        }
        return 0;
}

/* One more problem for the report: appended to err on a line of its own, unless it is there
 * already (a bad command-line option is every job's). */
static void report(strv_t *lines, const char *msg)
{
        if (!strv_contains(lines, msg))
                strv_push(lines, msg);
}

/* The report's lines into err, newline-separated, with a count of those that did not fit. */
static int report_join(const strv_t *lines, int r, char *err, size_t errlen)
{
        size_t o = 0, shown = 0;

        if (!lines->n)
                return r;
        if (errlen)
                err[0] = 0;
        for (size_t i = 0; i < lines->n && i < JOBARGS_MAX_ERRORS; i++) {
                size_t len = strlen(lines->v[i]);
                /* keep room for the last line's count */
                if (o + len + 2 + 64 > errlen)
                        break;
                o += (size_t)snprintf(err + o, errlen - o, "%s%s", shown ? "\n" : "",
                                      lines->v[i]);
                shown++;
        }
        if (shown < lines->n && o < errlen)
                snprintf(err + o, errlen - o, "%s... and %zu more", shown ? "\n" : "",
                         lines->n - shown);
        return r;
}

/* wait_for across the jobs, as the coordinator and the agents will read them. */
static int check_order(const jobargs_t *ja, strv_t *lines)
{
        job_spec_t *specs = calloc(ja->n_jobs ? ja->n_jobs : 1, sizeof(*specs));
        jobgroup_t *g = calloc(ja->n_jobs ? ja->n_jobs : 1, sizeof(*g));
        char e[1024], msg[2200];
        size_t n = 0;
        int r = -ENOMEM;

        if (!specs || !g)
                goto out;
        for (; n < ja->n_jobs; n++)
                if ((r = build_spec(ja, &ja->jobs[n], &specs[n], e, sizeof(e))) < 0) {
                        r = 0; /* reported already */
                        goto out;
                }
        r = jobgroups_plan(specs, n, g, NULL, e, sizeof(e));
        if (r < 0) {
                /* "job NAME: ..." names the job; say where it is */
                for (size_t i = 0; i < ja->n_jobs; i++) {
                        size_t len = strlen(ja->jobs[i].name);
                        if (strncmp(e + 4, ja->jobs[i].name, len) == 0 && e[4 + len] == ':') {
                                snprintf(msg, sizeof(msg), "%s%s%s",
                                         ja->jobs[i].where ? ja->jobs[i].where : "",
                                         ja->jobs[i].where ? " " : "", e);
                                report(lines, msg);
                                r = 0;
                                goto out;
                        }
                }
                report(lines, e);
        }
out:
        for (size_t i = 0; i < n; i++)
                job_spec_done(&specs[i]);
        free(specs);
        free(g);
        return r == -ENOMEM ? r : 0; /* a refusal is in lines */
}

int jobargs_check(jobargs_t *ja, char *err, size_t errlen)
{
        strv_t lines = {0};
        char one[2200];
        int r, first = 0;

        for (size_t s = 0; s < ja->sections.n; s++) {
                bool found = false;
                for (size_t i = 0; i < ja->n_jobs && !found; i++)
                        found = ja->jobs[i].where && streq(ja->jobs[i].name, ja->sections.v[s]);
                if (!found)
                        return errorf(err, errlen, -EINVAL,
                                      "--section=%s: no job section [%s] in the job files%s",
                                      ja->sections.v[s], ja->sections.v[s],
                                      ja->n_files ? "" : " (no job file given)");
        }
        if (ja->n_jobs == 0 && (r = jobargs_add(ja, "name", "job")) < 0)
                return r;
        if (ja->n_jobs > WIRE_MAX_JOBS)
                return errorf(err, errlen, -E2BIG, "%zu jobs; one run takes at most %d", ja->n_jobs,
                              WIRE_MAX_JOBS);
        for (size_t i = 0; i < ja->errors.n; i++)
                report(&lines, ja->errors.v[i]);
        if (ja->errors.n)
                first = ja->error_code ? ja->error_code : -EINVAL;
        for (size_t i = 0; i < ja->n_jobs; i++) {
                job_spec_t spec;
                one[0] = 0;
                if ((r = check_limits(ja, &ja->jobs[i], one, sizeof(one))) < 0 ||
                    (r = build_spec_all(ja, &ja->jobs[i], &spec, &lines, one, sizeof(one))) < 0) {
                        if (r == -ENOMEM)
                                goto out;
                        if (one[0])
                                report(&lines, one);
                        first = first ? first : r;
                        continue;
                }
                job_spec_done(&spec);
        }
        if (!first && (r = check_order(ja, &lines)) < 0)
                goto out;
        if (!first && lines.n)
                first = -EINVAL;
        r = report_join(&lines, first, err, errlen);
out:
        strv_clear(&lines);
        return r;
}

uint64_t jobargs_runtime_ns(const jobargs_t *ja)
{
        job_spec_t *specs = calloc(ja->n_jobs ? ja->n_jobs : 1, sizeof(*specs));
        uint64_t span = 0;
        size_t n = 0;
        char err[512];

        if (!specs)
                return 0;
        for (; n < ja->n_jobs; n++)
                if (build_spec(ja, &ja->jobs[n], &specs[n], err, sizeof(err)) < 0)
                        goto out;
        span = jobgroups_span(specs, n);
out:
        for (size_t i = 0; i < n; i++)
                job_spec_done(&specs[i]);
        free(specs);
        return span;
}

static Iofleet__JobOption *option(const char *k, const char *v)
{
        Iofleet__JobOption *o = malloc(sizeof(*o));
        if (!o)
                return NULL;
        iofleet__job_option__init(o);
        o->key = (char *)k;
        o->value = (char *)v;
        return o;
}

int jobargs_to_wire(const jobargs_t *ja, Iofleet__Job ***ret, size_t *n)
{
        Iofleet__Job **jobs = calloc(ja->n_jobs ? ja->n_jobs : 1, sizeof(*jobs));
        if (!jobs)
                return -ENOMEM;
        for (size_t i = 0; i < ja->n_jobs; i++) {
                const jobargs_job_t *j = &ja->jobs[i];
                size_t no = j->keys.n, k = 0;
                Iofleet__Job *pj = malloc(sizeof(*pj));
                if (!pj) {
                        jobargs_free_wire(jobs, i);
                        return -ENOMEM;
                }
                iofleet__job__init(pj);
                jobs[i] = pj;
                pj->name = j->name;
                pj->options = calloc(no ? no : 1, sizeof(*pj->options));
                if (!pj->options) {
                        jobargs_free_wire(jobs, i + 1);
                        return -ENOMEM;
                }
                for (size_t o = 0; o < j->keys.n; o++)
                        pj->options[k++] = option(j->keys.v[o], j->values.v[o]);
                pj->n_options = k;
                pj->n_global = (uint32_t)j->n_global;
                for (size_t o = 0; o < k; o++)
                        if (!pj->options[o]) {
                                jobargs_free_wire(jobs, i + 1);
                                return -ENOMEM;
                        }
        }
        *ret = jobs;
        *n = ja->n_jobs;
        return 0;
}

void jobargs_free_wire(Iofleet__Job **jobs, size_t n)
{
        for (size_t i = 0; jobs && i < n; i++) {
                if (!jobs[i])
                        continue;
                for (size_t o = 0; o < jobs[i]->n_options; o++)
                        free(jobs[i]->options[o]);
                free(jobs[i]->options);
                free(jobs[i]);
        }
        free(jobs);
}

void jobargs_free(jobargs_t *ja)
{
        strv_clear(&ja->gkeys);
        strv_clear(&ja->gvalues);
        strv_clear(&ja->gwheres);
        strv_clear(&ja->sections);
        strv_clear(&ja->errors);
        for (size_t i = 0; i < ja->n_jobs; i++) {
                free(ja->jobs[i].name);
                free(ja->jobs[i].where);
                strv_clear(&ja->jobs[i].keys);
                strv_clear(&ja->jobs[i].values);
                strv_clear(&ja->jobs[i].wheres);
        }
        free(ja->jobs);
        memset(ja, 0, sizeof(*ja));
}

/* word as a POSIX shell reads it back: bare when it is safe, else in single quotes. */
static void shell_word(FILE *f, const char *w)
{
        bool bare = *w != 0;
        for (const char *c = w; *c && bare; c++)
                bare = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                              "._-/:=,+%@",
                              *c) != NULL;
        if (bare) {
                fputs(w, f);
                return;
        }
        fputc('\'', f);
        for (const char *c = w; *c; c++)
                if (*c == '\'')
                        fputs("'\\''", f);
                else
                        fputc(*c, f);
        fputc('\'', f);
}

int jobargs_showcmd(const jobargs_t *ja, FILE *f)
{
        fputs("iofleet run", f);
        for (size_t i = 0; i < ja->n_jobs; i++) {
                const jobargs_job_t *j = &ja->jobs[i];
                fputs(" --name=", f);
                shell_word(f, j->name);
                for (size_t k = 0; k < j->keys.n; k++) {
                        char *opt;
                        /* a bare key (time_based) is a flag, as fio prints it */
                        if (asprintf(&opt, "--%s%s%s", j->keys.v[k], *j->values.v[k] ? "=" : "",
                                     j->values.v[k]) < 0)
                                return -ENOMEM;
                        fputc(' ', f);
                        shell_word(f, opt);
                        free(opt);
                }
        }
        fputc('\n', f);
        return ferror(f) ? -EIO : 0;
}

int jobargs_summary(const jobargs_t *ja, FILE *f)
{
        job_spec_t *specs = calloc(ja->n_jobs ? ja->n_jobs : 1, sizeof(*specs));
        jobgroup_t *g = calloc(ja->n_jobs ? ja->n_jobs : 1, sizeof(*g));
        uint32_t groups = 0;
        size_t n = 0;
        char err[1024];
        int r = -ENOMEM;

        if (!specs || !g)
                goto out;
        for (; n < ja->n_jobs; n++)
                if ((r = build_spec(ja, &ja->jobs[n], &specs[n], err, sizeof(err))) < 0)
                        goto out;
        if ((r = jobgroups_plan(specs, n, g, &groups, err, sizeof(err))) < 0)
                goto out;
        fprintf(f, "%zu job%s, %u group%s run one after another; every option is supported\n", n,
                n == 1 ? "" : "s", groups, groups == 1 ? "" : "s");
        for (size_t i = 0; i < n; i++) {
                const jobargs_job_t *j = &ja->jobs[i];
                fprintf(f, "  group %u  %s%s%s%s: numjobs=%u, rw=%s, ioengine=%s, groupid %u", g[i].group,
                        j->name, j->where ? " (" : "", j->where ? j->where : "", j->where ? ")" : "",
                        specs[i].numjobs, rw_mode_to_string(specs[i].rw), specs[i].ioengine,
                        g[i].groupid);
                if (g[i].waits_for >= 0)
                        fprintf(f, " after %s", specs[g[i].waits_for].name);
                fputc('\n', f);
        }
        r = ferror(f) ? -EIO : 0;
out:
        for (size_t i = 0; i < n; i++)
                job_spec_done(&specs[i]);
        free(specs);
        free(g);
        return r;
}
