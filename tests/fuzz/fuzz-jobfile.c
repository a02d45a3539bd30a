/* libFuzzer target for fio job files: the bytes as a job file and the files it includes (parts
 * split at "--8<--" lines), parsed, turned into jobs, and what is accepted sent over the wire. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "jobargs.h"
#include "jobfile.h"
#include "options.h"
#include "util.h"
#include "wire.h"

#define MAX_PARTS 4

typedef struct input {
        const char *part[MAX_PARTS];
        size_t size[MAX_PARTS];
        size_t n;
} input_t;

static char long_env[JOBFILE_MAX_LINE + 16];

/* "main.fio" is part 0; an included name whose last character is a digit d is part d, any other
 * name the part its length picks. Names that end in 'x' are missing. */
static int fuzz_read(void *user, const char *path, char **data, size_t *size)
{
        input_t *in = user;
        size_t len = strlen(path), k;

        if (len && path[len - 1] == 'x')
                return -ENOENT;
        if (streq(path, "main.fio"))
                k = 0;
        else if (len && path[len - 1] >= '0' && path[len - 1] <= '9')
                k = (size_t)(path[len - 1] - '0') % in->n;
        else
                k = len % in->n;
        if (in->size[k] > JOBFILE_MAX_SIZE)
                return -EFBIG;
        *data = malloc(in->size[k] + 1);
        CHECK(*data);
        memcpy(*data, in->part[k], in->size[k]);
        (*data)[in->size[k]] = 0;
        *size = in->size[k];
        return 0;
}

static const char *fuzz_getenv(void *user, const char *name)
{
        static const char *const env[] = {"SIZE=64m", "BS=4k",    "EMPTY=",          "SPACE= 4k ",
                                          "NL=a\nb",  "SEMI=1;2", "GLOBAL=[global]", NULL};
        size_t n = strlen(name);

        if (streq(name, "LONG"))
                return long_env;
        for (const char *const *e = env; *e; e++)
                if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
                        return *e + n + 1;
        return NULL;
}

/* An error message is a terminated text that fits: one line per problem (jobargs_check()
 * reports every refused option at once), none of them empty. */
static void check_message(const char *err, size_t errlen)
{
        size_t len = strnlen(err, errlen);

        CHECK(len < errlen);
        CHECK(len > 0);
        CHECK(err[0] != '\n' && err[len - 1] != '\n');
        CHECK(!strstr(err, "\n\n"));
}

static bool has_blank_edge(const char *s)
{
        size_t n = strlen(s);
        return n && (strchr(" \t\r\v\f", s[0]) || strchr(" \t\r\v\f", s[n - 1]));
}

/* What the parser hands on is what fio's syntax allows. */
static void check_jobfile(const jobfile_t *jf, const strv_t *sections)
{
        const char *section = NULL;
        size_t headers = 0;

        for (size_t i = 0; i < jf->n; i++) {
                const jobfile_entry_t *e = &jf->entries[i];
                CHECK(e->section && e->section[0] && !has_blank_edge(e->section));
                CHECK(!strpbrk(e->section, ";#"));
                CHECK(e->global == jobfile_section_is_global(e->section));
                CHECK(e->path && e->line >= 1);
                if (!e->key) {
                        CHECK(!e->value);
                        CHECK(streq(e->path, "main.fio")); /* included files hold no sections */
                        if (!e->global) {
                                headers++;
                                if (sections && sections->n)
                                        CHECK(strv_contains(sections, e->section));
                        }
                        section = e->section;
                        continue;
                }
                CHECK(section && streq(section, e->section)); /* a header comes first */
                CHECK(e->key[0] && !strpbrk(e->key, " \t\r\v\f=;#"));
                CHECK(e->value && strlen(e->value) <= JOBFILE_MAX_LINE);
                CHECK(!strstr(e->value, "$ncpus"));
        }
        CHECK(jf->n_job_sections >= headers);
}

static void fuzz_parse(input_t *in, const strv_t *sections)
{
        jobfile_io_t io = {.read_file = fuzz_read, .getenv = fuzz_getenv, .user = in};
        jobfile_t jf = {0};
        char err[512];
        int r;

        memset(err, 'X', sizeof(err));
        r = jobfile_parse("main.fio", &io, sections, &jf, err, sizeof(err));
        if (r < 0) {
                CHECK(r == -EINVAL || r == -ENOENT || r == -EFBIG || r == -EOPNOTSUPP ||
                      r == -ENOMEM);
                check_message(err, sizeof(err));
                CHECK(jf.n == 0 && !jf.entries);
                return;
        }
        CHECK(r == 0);
        check_jobfile(&jf, sections);
        jobfile_free(&jf);
}

/* Jobs the CLI accepts travel, decode and build on an agent. */
static void check_wire(const jobargs_t *ja)
{
        Iofleet__Job **jobs = NULL;
        size_t n = 0, len = 0;
        envelope_t req = IOFLEET__ENVELOPE__INIT, *back = NULL;
        Iofleet__SubmitRun s = IOFLEET__SUBMIT_RUN__INIT;
        uint8_t *buf = NULL;
        char err[512];
        int r;

        CHECK(jobargs_to_wire(ja, &jobs, &n) == 0);
        CHECK(n == ja->n_jobs && n >= 1);
        s.jobs = jobs;
        s.n_jobs = n;
        s.selector = "";
        s.command_line = "iofleet run main.fio";
        s.interval_ns = NSEC_PER_SEC;
        req.body_case = IOFLEET__ENVELOPE__BODY_SUBMIT_RUN;
        req.submit_run = &s;
        CHECK(wire_encode(&req, &buf, &len) == 0);
        r = wire_decode(buf, len, WIRE_MAX_CONTROL_MSG, &back, err, sizeof(err));
        if (r < 0)
                fprintf(stderr, "wire refused what jobargs_check() accepted: %s\n", err);
        CHECK(r == 0);
        for (size_t i = 0; i < back->submit_run->n_jobs; i++) {
                job_spec_t spec;
                r = wire_job_spec(back->submit_run->jobs[i], &spec, err, sizeof(err));
                if (r < 0)
                        fprintf(stderr, "an agent would refuse: %s\n", err);
                CHECK(r == 0);
                job_spec_done(&spec);
        }
        wire_free(&back);
        free(buf);
        jobargs_free_wire(jobs, n);
}

static void fuzz_jobs(input_t *in, bool cmdline, const char *section)
{
        jobfile_io_t io = {.read_file = fuzz_read, .getenv = fuzz_getenv, .user = in};
        jobargs_t ja = {0};
        char err[1024];
        int r = 0;

        if (cmdline) {
                CHECK(jobargs_add(&ja, "size", "1m") == 0);
                CHECK(jobargs_add(&ja, "name", "cl") == 0);
                CHECK(jobargs_add(&ja, "time_based", "") == 0);
                CHECK(jobargs_add(&ja, "runtime", "1s") == 0);
        }
        if (section)
                r = jobargs_add_section(&ja, section, err, sizeof(err));
        memset(err, 'X', sizeof(err));
        if (r == 0)
                r = jobargs_add_file(&ja, "main.fio", &io, err, sizeof(err));
        if (r == 0) {
                memset(err, 'X', sizeof(err));
                r = jobargs_check(&ja, err, sizeof(err));
        }
        if (r < 0) {
                check_message(err, sizeof(err));
        } else {
                CHECK(ja.n_jobs >= 1 && ja.n_jobs <= WIRE_MAX_JOBS);
                for (size_t i = 0; i < ja.n_jobs; i++) {
                        CHECK(ja.jobs[i].keys.n == ja.jobs[i].values.n);
                        CHECK(ja.jobs[i].keys.n == ja.jobs[i].wheres.n);
                        CHECK(ja.jobs[i].n_global <= ja.jobs[i].keys.n);
                }
                (void)jobargs_runtime_ns(&ja);
                check_wire(&ja);
        }
        jobargs_free(&ja);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        static const char sep[] = "\n--8<--\n";
        const char *p = (const char *)data, *end = p + size;
        input_t in = {0};
        strv_t sections = {0};

        if (size > 64 * 1024)
                return 0;
        if (!long_env[0])
                memset(long_env, 'y', sizeof(long_env) - 1);
        while (in.n < MAX_PARTS) {
                const char *s = in.n + 1 < MAX_PARTS
                                    ? memmem(p, (size_t)(end - p), sep, sizeof(sep) - 1)
                                    : NULL;
                in.part[in.n] = p;
                in.size[in.n] = s ? (size_t)(s - p) + 1 : (size_t)(end - p);
                in.n++;
                if (!s)
                        break;
                p = s + sizeof(sep) - 1;
        }

        fuzz_parse(&in, NULL);
        CHECK(strv_push(&sections, "a") == 0 && strv_push(&sections, "job") == 0);
        fuzz_parse(&in, &sections);
        strv_clear(&sections);

        fuzz_jobs(&in, false, NULL);
        fuzz_jobs(&in, true, NULL);
        fuzz_jobs(&in, size % 2, "a");
        return 0;
}
