/* Unit tests for fio job files: common/jobfile.c's syntax (sections, comments, bare keys,
 * include, ${VAR}) and cli/jobargs.c's fio semantics (global inheritance, command line and files
 * together, several files, --section), every error path, and examples/seq-read.fio. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jobargs.h"
#include "jobfile.h"
#include "options.h"
#include "util.h"
#include "wire.h"

#define MIB (1024ULL * 1024)
#define NS_S 1000000000ULL

#define assert_contains(hay, needle)                                                               \
        do {                                                                                       \
                if (!strstr((hay), (needle)))                                                      \
                        fail_msg("'%s' does not mention '%s'", (hay), (needle));                   \
        } while (0)

/* --- an in-memory file system and environment ------------------------------------------- */

typedef struct memfile {
        const char *path;
        const char *text;
        size_t size; /* 0: strlen(text) */
} memfile_t;

typedef struct memfs {
        const memfile_t *files;
        const char *const *env; /* "NAME=value" */
        unsigned reads;
} memfs_t;

static int mem_read(void *user, const char *path, char **data, size_t *size)
{
        memfs_t *fs = user;
        for (const memfile_t *f = fs->files; f && f->path; f++) {
                size_t n;
                if (!streq(f->path, path))
                        continue;
                fs->reads++;
                n = f->size ? f->size : strlen(f->text);
                if (n > JOBFILE_MAX_SIZE)
                        return -EFBIG;
                *data = malloc(n + 1);
                assert_non_null(*data);
                memcpy(*data, f->text, n);
                (*data)[n] = 0;
                *size = n;
                return 0;
        }
        return -ENOENT;
}

static const char *mem_getenv(void *user, const char *name)
{
        memfs_t *fs = user;
        size_t n = strlen(name);
        for (const char *const *e = fs->env; e && *e; e++)
                if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
                        return *e + n + 1;
        return NULL;
}

static jobfile_io_t io_of(memfs_t *fs)
{
        return (jobfile_io_t){.read_file = mem_read, .getenv = mem_getenv, .user = fs};
}

/* Command-line options ("--key=value" or "--key") then job files, as cmd-run.c adds them;
 * returns what jobargs_check() (or the first failing add) returns. */
static int load(jobargs_t *ja, memfs_t *fs, const char *const *args, const char *const *files,
                char *err, size_t errlen)
{
        jobfile_io_t io = io_of(fs);
        int r;

        memset(ja, 0, sizeof(*ja));
        err[0] = 0;
        for (const char *const *a = args; a && *a; a++) {
                const char *eq = strchr(*a, '=');
                char key[128];
                snprintf(key, sizeof(key), "%.*s", eq ? (int)(eq - *a - 2) : (int)strlen(*a + 2),
                         *a + 2);
                if (streq(key, "section"))
                        r = jobargs_add_section(ja, eq + 1, err, errlen);
                else
                        r = jobargs_add(ja, key, eq ? eq + 1 : "");
                if (r < 0)
                        return r;
        }
        for (const char *const *f = files; f && *f; f++)
                if ((r = jobargs_add_file(ja, *f, &io, err, errlen)) < 0)
                        return r;
        return jobargs_check(ja, err, errlen);
}

static void load_ok(jobargs_t *ja, memfs_t *fs, const char *const *args, const char *const *files)
{
        char err[2048];
        int r = load(ja, fs, args, files, err, sizeof(err));
        if (r < 0)
                fail_msg("load failed (%d): %s", r, err);
        assert_int_equal(r, 0);
}

/* Loads and expects failure r; err holds the message for the caller's checks. */
static void load_fails(int r, memfs_t *fs, const char *const *args, const char *const *files,
                       char *err, size_t errlen)
{
        jobargs_t ja;
        int got = load(&ja, fs, args, files, err, errlen);
        if (got != r)
                fail_msg("expected %d, got %d: %s", r, got, err);
        assert_true(err[0] != 0);
        assert_null(strchr(err, '\n'));
        jobargs_free(&ja);
}

static const jobargs_job_t *job(const jobargs_t *ja, const char *name)
{
        for (size_t i = 0; i < ja->n_jobs; i++)
                if (streq(ja->jobs[i].name, name))
                        return &ja->jobs[i];
        fail_msg("no job %s", name);
        return NULL;
}

/* The job's options as "k=v k=v ...", in order. */
static const char *opts(const jobargs_job_t *j)
{
        static char buf[4096];
        size_t off = 0;
        buf[0] = 0;
        for (size_t i = 0; i < j->keys.n; i++)
                off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%s=%s", i ? " " : "",
                                        j->keys.v[i], j->values.v[i]);
        return buf;
}

/* The job as an agent builds it from the wire. */
static void spec_of(const jobargs_t *ja, const char *name, job_spec_t *spec)
{
        Iofleet__Job **jobs = NULL;
        size_t n = 0;
        char err[1024];
        bool found = false;

        assert_int_equal(jobargs_to_wire(ja, &jobs, &n), 0);
        for (size_t i = 0; i < n; i++)
                if (streq(jobs[i]->name, name)) {
                        if (wire_job_spec(jobs[i], spec, err, sizeof(err)) < 0)
                                fail_msg("%s", err);
                        found = true;
                }
        jobargs_free_wire(jobs, n);
        assert_true(found);
}

static void parse_ok(memfs_t *fs, const char *path, jobfile_t *jf)
{
        jobfile_io_t io = io_of(fs);
        char err[1024] = "";
        int r = jobfile_parse(path, &io, NULL, jf, err, sizeof(err));
        if (r < 0)
                fail_msg("%s", err);
}

static void parse_fails(int r, memfs_t *fs, const char *path, char *err, size_t errlen)
{
        jobfile_io_t io = io_of(fs);
        jobfile_t jf = {.n = 12345};
        int got = jobfile_parse(path, &io, NULL, &jf, err, errlen);
        if (got != r)
                fail_msg("expected %d, got %d: %s", r, got, err);
        assert_int_equal(jf.n, 12345); /* untouched */
        assert_true(err[0] != 0);
        assert_null(strchr(err, '\n'));
}

#define ARGS(...) ((const char *const[]){__VA_ARGS__, NULL})
#define FILES(...) ((const char *const[]){__VA_ARGS__, NULL})

/* --- syntax ----------------------------------------------------------------------------- */

/* fio's HOWTO: the job file and the command line it says are the same. */
static void test_howto_example(void **state)
{
        static const memfile_t files[] = {{.path = "howto.fio",
                                           .text = "; -- start job file --\n"
                                                   "[global]\n"
                                                   "rw=randread\n"
                                                   "size=128m\n"
                                                   "\n"
                                                   "[job1]\n"
                                                   "\n"
                                                   "[job2]\n"
                                                   "\n"
                                                   "; -- end job file --\n"},
                                          {0}};
        memfs_t fs = {.files = files};
        jobargs_t a, b;
        job_spec_t s;

        load_ok(&a, &fs, NULL, FILES("howto.fio"));
        load_ok(&b, &fs,
                ARGS("--name=global", "--rw=randread", "--size=128m", "--name=job1", "--name=job2"),
                NULL);
        assert_int_equal(a.n_jobs, 2);
        assert_int_equal(b.n_jobs, 2);
        for (size_t i = 0; i < 2; i++) {
                assert_string_equal(a.jobs[i].name, b.jobs[i].name);
                assert_string_equal(opts(&a.jobs[i]), "rw=randread size=128m");
                assert_string_equal(opts(&b.jobs[i]), "rw=randread size=128m");
                assert_int_equal(a.jobs[i].n_global, 2);
        }
        assert_string_equal(a.jobs[0].where, "howto.fio:6: [job1]");
        assert_null(b.jobs[0].where);
        spec_of(&a, "job2", &s);
        assert_int_equal(s.rw, RW_RANDREAD);
        assert_int_equal(s.size, 128 * MIB);
        job_spec_done(&s);
        jobargs_free(&a);
        jobargs_free(&b);
}

/* A [global] counts for the sections below it only; a job's own value wins; the last one of a
 * key wins, as fio applies options in order. */
static void test_several_globals(void **state)
{
        static const memfile_t files[] = {{.path = "m.fio",
                                           .text = "[global]\n"
                                                   "size=1m\n"
                                                   "bs=8k\n"
                                                   "[j1]\n"
                                                   "[global]\n"
                                                   "bs=64k\n"
                                                   "rw=write\n"
                                                   "[j2]\n"
                                                   "[j3]\n"
                                                   "bs=128k\n"
                                                   "bs=256k\n"
                                                   "[global-late]\n"
                                                   "numjobs=3\n"
                                                   "[j4]\n"},
                                          {0}};
        memfs_t fs = {.files = files};
        jobargs_t ja;
        job_spec_t s;

        load_ok(&ja, &fs, NULL, FILES("m.fio"));
        assert_int_equal(ja.n_jobs, 4);
        assert_string_equal(opts(job(&ja, "j1")), "size=1m bs=8k");
        assert_string_equal(opts(job(&ja, "j2")), "size=1m bs=8k bs=64k rw=write");
        assert_string_equal(opts(job(&ja, "j3")), "size=1m bs=8k bs=64k rw=write bs=128k bs=256k");
        assert_int_equal(job(&ja, "j3")->n_global, 4);
        /* any section whose name starts with "global" is a global one, as in fio */
        assert_string_equal(opts(job(&ja, "j4")), "size=1m bs=8k bs=64k rw=write numjobs=3");

        spec_of(&ja, "j1", &s);
        assert_int_equal(s.bs, 8192);
        assert_int_equal(s.rw, RW_READ);
        job_spec_done(&s);
        spec_of(&ja, "j2", &s);
        assert_int_equal(s.bs, 65536);
        assert_int_equal(s.rw, RW_WRITE);
        job_spec_done(&s);
        spec_of(&ja, "j3", &s);
        assert_int_equal(s.bs, 256 * 1024);
        job_spec_done(&s);
        spec_of(&ja, "j4", &s);
        assert_int_equal(s.numjobs, 3);
        job_spec_done(&s);
        /* the options a job sees carry where they were written */
        assert_string_equal(job(&ja, "j2")->wheres.v[2], "m.fio:6: [global]");
        assert_string_equal(job(&ja, "j3")->wheres.v[5], "m.fio:11: [j3]");
        jobargs_free(&ja);
}

/* Comments (whole lines and, as fio's strip_blank_end(), from any ';' or '#'), indentation, blank
 * lines, CRLF, a BOM, spaces around '=' and inside brackets, bare keys. */
static void test_syntax(void **state)
{
        static const memfile_t files[] = {{.path = "s.fio",
                                           .text = "\xEF\xBB\xBF# a comment\r\n"
                                                   "; another\r\n"
                                                   "   [ global ]   ; trailing\r\n"
                                                   "\tsize = 2m\r\n"
                                                   "  bs=8k;no space before the comment\r\n"
                                                   "\r\n"
                                                   "    # indented comment\n"
                                                   "[seq-read]\n"
                                                   "time_based\n"
                                                   "runtime   =   3s   # three seconds\n"
                                                   "directory=/tmp/x#y\n"
                                                   "filename_format=$jobname.$filenum\n"
                                                   "   \t  \n"
                                                   "rw=read"},
                                          {0}};
        memfs_t fs = {.files = files};
        jobfile_t jf;
        jobargs_t ja;
        job_spec_t s;

        parse_ok(&fs, "s.fio", &jf);
        assert_int_equal(jf.n, 9);
        assert_int_equal(jf.n_job_sections, 1);
        assert_null(jf.entries[0].key);
        assert_string_equal(jf.entries[0].section, "global");
        assert_true(jf.entries[0].global);
        assert_int_equal(jf.entries[0].line, 3);
        assert_string_equal(jf.entries[1].key, "size");
        assert_string_equal(jf.entries[1].value, "2m");
        assert_int_equal(jf.entries[1].line, 4);
        assert_string_equal(jf.entries[2].value, "8k");
        assert_string_equal(jf.entries[3].section, "seq-read");
        assert_false(jf.entries[3].global);
        assert_string_equal(jf.entries[4].key, "time_based");
        assert_string_equal(jf.entries[4].value, "");
        assert_string_equal(jf.entries[5].value, "3s");
        assert_string_equal(jf.entries[6].value, "/tmp/x");
        assert_string_equal(jf.entries[7].value, "$jobname.$filenum");
        assert_string_equal(jf.entries[8].key, "rw");
        assert_int_equal(jf.entries[8].line, 14);
        assert_string_equal(jf.entries[8].path, "s.fio");
        jobfile_free(&jf);
        assert_null(jf.entries);

        load_ok(&ja, &fs, NULL, FILES("s.fio"));
        spec_of(&ja, "seq-read", &s);
        assert_true(s.time_based);
        assert_int_equal(s.runtime_ns, 3 * NS_S);
        assert_int_equal(s.size, 2 * MIB);
        assert_int_equal(s.bs, 8192);
        assert_string_equal(s.directory, "/tmp/x");
        job_spec_done(&s);
        jobargs_free(&ja);
}

/* fio's HOWTO include example: included options land in the section that includes them;
 * includes nest; a relative name is looked for beside the including file, then in the current
 * directory. */
static void test_include(void **state)
{
        static const memfile_t files[] = {
            {.path = "jobs/including.fio",
             .text = "[global]\n"
                     "filename=/tmp/test\n"
                     "size=1m\n"
                     "include glob-include.fio\n"
                     "\n"
                     "[test]\n"
                     "rw=randread\n"
                     "bs=4k\n"
                     "time_based=1\n"
                     "runtime=10\n"
                     "include test-include.fio ; a comment\n"},
            {.path = "jobs/glob-include.fio",
             .text = "numjobs=2\n"
                     "include deeper/more.fio\n"},
            {.path = "jobs/deeper/more.fio",
             .text = "; only options in an included file\n"
                     "ioengine=null\n"},
            /* not beside the including file: found in the current directory, as fio does */
            {.path = "test-include.fio",
             .text = "  bs=16k\n"
                     "rw=randwrite\n"},
            {0}};
        memfs_t fs = {.files = files};
        jobfile_t jf;
        jobargs_t ja;
        job_spec_t s;

        parse_ok(&fs, "jobs/including.fio", &jf);
        assert_int_equal(jf.n, 12);
        assert_string_equal(jf.entries[3].key, "numjobs");
        assert_string_equal(jf.entries[3].path, "jobs/glob-include.fio");
        assert_string_equal(jf.entries[3].section, "global");
        assert_true(jf.entries[3].global);
        assert_int_equal(jf.entries[3].line, 1);
        assert_string_equal(jf.entries[4].key, "ioengine");
        assert_string_equal(jf.entries[4].path, "jobs/deeper/more.fio");
        assert_int_equal(jf.entries[4].line, 2);
        assert_string_equal(jf.entries[10].key, "bs");
        assert_string_equal(jf.entries[10].path, "test-include.fio");
        assert_string_equal(jf.entries[10].section, "test");
        assert_false(jf.entries[10].global);
        jobfile_free(&jf);

        load_ok(&ja, &fs, NULL, FILES("jobs/including.fio"));
        assert_string_equal(opts(job(&ja, "test")),
                            "filename=/tmp/test size=1m numjobs=2 ioengine=null rw=randread bs=4k "
                            "time_based=1 runtime=10 bs=16k rw=randwrite");
        spec_of(&ja, "test", &s);
        assert_int_equal(s.bs, 16384);
        assert_int_equal(s.rw, RW_RANDWRITE);
        assert_int_equal(s.numjobs, 2);
        assert_string_equal(s.ioengine, "null");
        job_spec_done(&s);
        jobargs_free(&ja);
}

static void test_include_errors(void **state)
{
        static const memfile_t files[] = {
            {.path = "self.fio", .text = "[a]\ninclude loop.fio\n"},
            {.path = "loop.fio", .text = "size=1m\ninclude loop.fio\n"},
            {.path = "missing.fio", .text = "[a]\ninclude nope.fio\n"},
            {.path = "sub/missing.fio", .text = "[a]\nsize=1m\ninclude nope.fio\n"},
            {.path = "abs.fio", .text = "[a]\ninclude /nowhere/x.fio\n"},
            {.path = "section.fio", .text = "[a]\ninclude has-section.fio\n"},
            {.path = "has-section.fio", .text = "size=1m\n[b]\n"},
            {.path = "before.fio", .text = "include x.fio\n[a]\n"},
            {.path = "noname.fio", .text = "[a]\ninclude   ; nothing\n"},
            {.path = "eq.fio", .text = "[a]\ninclude=x.fio\n"},
            {.path = "nested-bad.fio", .text = "[a]\ninclude bad-value.fio\n"},
            {.path = "bad-value.fio", .text = "\n\nrw=sideways\n"},
            {.path = "big-inc.fio", .text = "[a]\ninclude big.fio\n"},
            {.path = "big.fio", .text = "x", JOBFILE_MAX_SIZE + 1},
            {.path = "many.fio", .text = "[a]\ninclude empty.fio\ninclude empty.fio\n"},
            {.path = "empty.fio", .text = ""},
            {0}};
        memfs_t fs = {.files = files};
        char err[1024];

        parse_fails(-EINVAL, &fs, "self.fio", err, sizeof(err));
        assert_contains(err, "loop.fio:2: [a] include loop.fio: includes nest deeper than 8");
        parse_fails(-ENOENT, &fs, "missing.fio", err, sizeof(err));
        assert_string_equal(err, "missing.fio:2: [a] include nope.fio: no such file");
        parse_fails(-ENOENT, &fs, "sub/missing.fio", err, sizeof(err));
        assert_string_equal(err, "sub/missing.fio:3: [a] include nope.fio: no such file (looked "
                                 "for sub/nope.fio and in the current directory)");
        parse_fails(-ENOENT, &fs, "abs.fio", err, sizeof(err));
        assert_contains(err, "abs.fio:2: [a] include /nowhere/x.fio: no such file");
        parse_fails(-EINVAL, &fs, "section.fio", err, sizeof(err));
        assert_string_equal(err, "has-section.fio:2: [b]: an included file holds options only, "
                                 "no sections (as in fio)");
        parse_fails(-EINVAL, &fs, "before.fio", err, sizeof(err));
        assert_contains(err, "before.fio:1: 'include x.fio' comes before any section");
        parse_fails(-EINVAL, &fs, "noname.fio", err, sizeof(err));
        assert_contains(err, "noname.fio:2: [a] include: needs a file name");
        parse_fails(-EINVAL, &fs, "eq.fio", err, sizeof(err));
        assert_contains(err, "eq.fio:2: [a] include: write 'include FILE'");
        parse_fails(-EFBIG, &fs, "big-inc.fio", err, sizeof(err));
        assert_contains(err, "big-inc.fio:2: [a] include big.fio: larger than 1048576 bytes");

        /* a bad value in an included file is reported where it is */
        load_fails(-EINVAL, &fs, NULL, FILES("nested-bad.fio"), err, sizeof(err));
        assert_contains(err, "bad-value.fio:3: [a] rw: 'sideways' is not one of");

        /* empty includes are fine; the same file twice too */
        {
                jobfile_t jf;
                parse_ok(&fs, "many.fio", &jf);
                assert_int_equal(jf.n, 1);
                jobfile_free(&jf);
        }
}

/* ${VAR} in values, as fio's HOWTO example; an unset variable is an error (fio would put nothing
 * there). */
static void test_env(void **state)
{
        static const memfile_t files[] = {
            {.path = "env.fio",
             .text = "; -- start job file --\n"
                     "[random-writers]\n"
                     "rw=randwrite\n"
                     "size=${SIZE}\n"
                     "numjobs=${NUMJOBS}\n"
                     "directory=/tmp/${USER_DIR}/x${EMPTY}y/${USER_DIR}\n"
                     "filename_format=$jobname.${NUMJOBS}\n"},
            {.path = "unset.fio", .text = "[a]\nsize=1m\nbs=${BS}\n"},
            {.path = "open.fio", .text = "[a]\nsize=${SIZE\n"},
            {.path = "nameless.fio", .text = "[a]\nsize=${}\n"},
            {.path = "ncpus.fio", .text = "[a]\nnumjobs=$ncpus\n"},
            {.path = "mem.fio", .text = "[a]\nsize=8*$mb_memory\n"},
            {.path = "page.fio", .text = "[a]\nbs=${PAGE}\n"},
            {.path = "long.fio", .text = "[a]\ndirectory=${LONG}${LONG}${LONG}\n"},
            {.path = "key.fio", .text = "[a]\n${SIZE}=1\n"},
            {0}};
        static char long_value[3100];
        static char long_env[3200];
        const char *env[] = {
            "SIZE=64m", "NUMJOBS=4", "USER_DIR=me", "EMPTY=", "PAGE=$pagesize", long_env, NULL};
        memfs_t fs = {.files = files, .env = env};
        jobargs_t ja;
        job_spec_t s;
        char err[1024];

        memset(long_value, 'x', sizeof(long_value) - 1);
        snprintf(long_env, sizeof(long_env), "LONG=%s", long_value);

        load_ok(&ja, &fs, NULL, FILES("env.fio"));
        assert_string_equal(opts(job(&ja, "random-writers")),
                            "rw=randwrite size=64m numjobs=4 directory=/tmp/me/xy/me "
                            "filename_format=$jobname.4");
        spec_of(&ja, "random-writers", &s);
        assert_int_equal(s.size, 64 * MIB);
        assert_int_equal(s.numjobs, 4);
        job_spec_done(&s);
        jobargs_free(&ja);

        parse_fails(-EINVAL, &fs, "unset.fio", err, sizeof(err));
        assert_string_equal(err, "unset.fio:3: [a] bs: environment variable BS is not set");
        parse_fails(-EINVAL, &fs, "open.fio", err, sizeof(err));
        assert_string_equal(err, "open.fio:2: [a] size: '${' without its closing '}'");
        parse_fails(-EINVAL, &fs, "nameless.fio", err, sizeof(err));
        assert_string_equal(err, "nameless.fio:2: [a] size: '${}' names no environment variable");
        parse_fails(-EOPNOTSUPP, &fs, "ncpus.fio", err, sizeof(err));
        assert_contains(err, "ncpus.fio:2: [a] numjobs: fio's $ncpus is not supported");
        parse_fails(-EOPNOTSUPP, &fs, "mem.fio", err, sizeof(err));
        assert_contains(err, "$mb_memory");
        parse_fails(-EOPNOTSUPP, &fs, "page.fio", err, sizeof(err));
        assert_contains(err, "$pagesize");
        parse_fails(-EINVAL, &fs, "long.fio", err, sizeof(err));
        assert_contains(err, "long.fio:2: [a] directory: value longer than 8192 characters");
        /* only values are expanded, as fio documents */
        load_fails(-ENOENT, &fs, NULL, FILES("key.fio"), err, sizeof(err));
        assert_contains(err, "key.fio:2: [a] unknown option '${SIZE}'");
}

/* --- the command line and job files together -------------------------------------------- */

/* As fio (init.c, and fio issue #151): command-line options before (or after) the job file are
 * defaults that the file's [global] and job sections override; they fill what the file leaves
 * out. --name jobs run beside the file's jobs, before them. */
static void test_cmdline_precedence(void **state)
{
        static const memfile_t files[] = {{.path = "p.fio",
                                           .text = "[global]\n"
                                                   "bs=8k\n"
                                                   "[f1]\n"
                                                   "[f2]\n"
                                                   "runtime=5s\n"
                                                   "time_based\n"},
                                          {0}};
        memfs_t fs = {.files = files};
        jobargs_t ja;
        job_spec_t s;

        load_ok(&ja, &fs, ARGS("--bs=16k", "--rw=write", "--size=4m", "--runtime=1s"),
                FILES("p.fio"));
        assert_int_equal(ja.n_jobs, 2);
        assert_string_equal(opts(job(&ja, "f1")), "bs=16k rw=write size=4m runtime=1s bs=8k");
        assert_string_equal(job(&ja, "f1")->wheres.v[0], "");
        spec_of(&ja, "f1", &s);
        assert_int_equal(s.bs, 8192);     /* the file's [global] wins */
        assert_int_equal(s.rw, RW_WRITE); /* the command line fills the rest */
        assert_int_equal(s.size, 4 * MIB);
        assert_int_equal(s.runtime_ns, 1 * NS_S);
        job_spec_done(&s);
        spec_of(&ja, "f2", &s);
        assert_int_equal(s.runtime_ns, 5 * NS_S); /* the job section wins */
        assert_true(s.time_based);
        job_spec_done(&s);
        assert_int_equal(jobargs_runtime_ns(&ja), 5 * NS_S);
        jobargs_free(&ja);

        /* a command-line job runs with the file's, ahead of them; --name=global goes back to
         * globals for what follows (fio's HOWTO command line) */
        load_ok(
            &ja, &fs,
            ARGS("--size=1m", "--name=cl", "--rw=write", "--name=global", "--bs=64k", "--name=cl2"),
            FILES("p.fio"));
        assert_int_equal(ja.n_jobs, 4);
        assert_string_equal(ja.jobs[0].name, "cl");
        assert_string_equal(ja.jobs[1].name, "cl2");
        assert_string_equal(ja.jobs[2].name, "f1");
        assert_string_equal(opts(job(&ja, "cl")), "size=1m rw=write");
        assert_string_equal(opts(job(&ja, "cl2")), "size=1m bs=64k");
        assert_string_equal(opts(job(&ja, "f1")), "size=1m bs=64k bs=8k");
        spec_of(&ja, "cl", &s);
        assert_int_equal(s.bs, 4096);
        assert_int_equal(s.rw, RW_WRITE);
        job_spec_done(&s);
        spec_of(&ja, "f1", &s);
        assert_int_equal(s.rw, RW_READ); /* cl's own options are cl's */
        job_spec_done(&s);
        jobargs_free(&ja);
}

/* fio runs each job file after the ones before it (a stonewall, groupid+1): iofleet passes the
 * stonewall on and the option table refuses it by name until it is supported. A file's [global]
 * does not reach into the next file. */
static void test_several_files(void **state)
{
        static const memfile_t files[] = {{.path = "a.fio",
                                           .text = "[global]\n"
                                                   "size=1m\n"
                                                   "bs=8k\n"
                                                   "[j1]\n"},
                                          {.path = "b.fio",
                                           .text = "; second file\n"
                                                   "[global]\n"
                                                   "size=2m\n"
                                                   "[k1]\n"
                                                   "[k2]\n"},
                                          {0}};
        memfs_t fs = {.files = files};
        jobargs_t ja;
        job_spec_t s;

        /* the second file's first job waits for the first file's jobs: an implied stonewall */
        load_ok(&ja, &fs, NULL, FILES("a.fio", "b.fio"));
        assert_string_equal(opts(job(&ja, "k1")), "size=2m stonewall=");
        assert_string_equal(opts(job(&ja, "k2")), "size=2m");
        jobargs_free(&ja);
        /* command-line jobs and the first file run together (no stonewall) ... */
        load_ok(&ja, &fs, ARGS("--name=cl", "--size=1m"), FILES("a.fio"));
        assert_int_equal(ja.n_jobs, 2);
        assert_string_equal(opts(job(&ja, "j1")), "size=1m bs=8k");
        jobargs_free(&ja);
        /* ... the second file after them */
        load_ok(&ja, &fs, ARGS("--name=cl", "--size=1m"), FILES("b.fio", "a.fio"));
        assert_string_equal(opts(job(&ja, "j1")), "size=1m bs=8k stonewall=");
        jobargs_free(&ja);

        /* with the first file's jobs left out there is nothing to wait for; and its [global]
         * (bs=8k) does not reach the second file */
        load_ok(&ja, &fs, ARGS("--bs=32k", "--section=k2"), FILES("a.fio", "b.fio"));
        assert_int_equal(ja.n_jobs, 1);
        assert_string_equal(opts(job(&ja, "k2")), "bs=32k size=2m");
        spec_of(&ja, "k2", &s);
        assert_int_equal(s.bs, 32768);
        assert_int_equal(s.size, 2 * MIB);
        job_spec_done(&s);
        jobargs_free(&ja);
}

/* fio's --section: only the named job sections run; [global] sections always apply; the lines of
 * sections left out are not read (as fio skips them). */
static void test_section_filter(void **state)
{
        static const memfile_t files[] = {{.path = "m.fio",
                                           .text = "[global]\n"
                                                   "size=1m\n"
                                                   "[read-1m]\n"
                                                   "bs=1m\n"
                                                   "[global]\n"
                                                   "rw=write\n"
                                                   "[later]\n"
                                                   "verify_pattern=0xff\n"
                                                   "iodepth=${UNSET}\n"
                                                   "include missing.fio\n"
                                                   "[read-4k]\n"
                                                   "bs=4k\n"},
                                          {0}};
        memfs_t fs = {.files = files};
        jobargs_t ja;
        char err[1024];

        load_ok(&ja, &fs, ARGS("--section=read-4k", "--section=read-1m", "--section=read-4k"),
                FILES("m.fio"));
        assert_int_equal(ja.n_jobs, 2);
        assert_string_equal(opts(job(&ja, "read-1m")), "size=1m bs=1m");
        assert_string_equal(opts(job(&ja, "read-4k")), "size=1m rw=write bs=4k");
        jobargs_free(&ja);

        load_fails(-EINVAL, &fs, ARGS("--section=read-2k"), FILES("m.fio"), err, sizeof(err));
        assert_string_equal(err, "--section=read-2k: no job section [read-2k] in the job files");
        load_fails(-EINVAL, &fs, ARGS("--section=global"), FILES("m.fio"), err, sizeof(err));
        assert_contains(err, "--section=global: global sections always apply");
        load_fails(-EINVAL, &fs, ARGS("--section="), FILES("m.fio"), err, sizeof(err));
        assert_contains(err, "--section: needs a job section name");
        load_fails(-EINVAL, &fs, ARGS("--size=1m", "--section=x"), NULL, err, sizeof(err));
        assert_contains(err, "(no job file given)");
        /* all sections: the one with an unset variable fails */
        load_fails(-EINVAL, &fs, NULL, FILES("m.fio"), err, sizeof(err));
        assert_string_equal(err, "m.fio:9: [later] iodepth: environment variable UNSET is not set");
}

/* --- errors ------------------------------------------------------------------------------ */

static void test_syntax_errors(void **state)
{
        static char long_line[JOBFILE_MAX_LINE + 20];
        static const char nul[] = "[a]\nsize=1m\nbs=4\0k\n";
        memfile_t files[] = {{.path = "outside.fio", .text = "; comment\nbs=4k\n[a]\n"},
                             {.path = "open.fio", .text = "[a]\n[b\n"},
                             {.path = "comment-in-name.fio", .text = "[a;b]\n"},
                             {.path = "empty-name.fio", .text = "[ ]\n"},
                             {.path = "nokey.fio", .text = "[a]\n = 4k\n"},
                             {.path = "space.fio", .text = "[a]\nrw read\n"},
                             {.path = "nul.fio", .text = nul, sizeof(nul) - 1},
                             {.path = "long.fio", .text = long_line},
                             {.path = "big.fio", .text = "x", JOBFILE_MAX_SIZE + 1},
                             {0}};
        memfs_t fs = {.files = files};
        char err[1024];

        memset(long_line, 'x', sizeof(long_line) - 1);
        memcpy(long_line, "[a]\nk=", 6);

        parse_fails(-EINVAL, &fs, "outside.fio", err, sizeof(err));
        assert_string_equal(err, "outside.fio:2: 'bs=4k' comes before any section; start with "
                                 "[global] or [JOBNAME]");
        parse_fails(-EINVAL, &fs, "open.fio", err, sizeof(err));
        assert_string_equal(err, "open.fio:2: '[b' is not a section header (no closing ']')");
        parse_fails(-EINVAL, &fs, "comment-in-name.fio", err, sizeof(err));
        assert_contains(err, "comment-in-name.fio:1: '[a' is not a section header");
        parse_fails(-EINVAL, &fs, "empty-name.fio", err, sizeof(err));
        assert_string_equal(err, "empty-name.fio:1: '[]' names no section");
        parse_fails(-EINVAL, &fs, "nokey.fio", err, sizeof(err));
        assert_string_equal(err, "nokey.fio:2: [a] '=4k' has no option name before '='");
        parse_fails(-EINVAL, &fs, "space.fio", err, sizeof(err));
        assert_contains(err, "space.fio:2: [a] 'rw read' is not an option");
        parse_fails(-EINVAL, &fs, "nul.fio", err, sizeof(err));
        assert_string_equal(err, "nul.fio:3: NUL byte not allowed");
        parse_fails(-EINVAL, &fs, "long.fio", err, sizeof(err));
        assert_string_equal(err, "long.fio:2: line longer than 8192 characters");
        parse_fails(-EFBIG, &fs, "big.fio", err, sizeof(err));
        assert_string_equal(err, "big.fio: larger than 1048576 bytes");
        parse_fails(-ENOENT, &fs, "none.fio", err, sizeof(err));
        assert_string_equal(err, "none.fio: No such file or directory");
        parse_fails(-ENOENT, &fs, "-", err, sizeof(err));
        assert_string_equal(err, "<stdin>: No such file or directory");
}

/* Errors of the option table and the wire's limits, each naming file, line, section and key. */
static void test_option_errors(void **state)
{
        static char long_value[WIRE_MAX_OPTION_VALUE + 10];
        static char many[64 * 16];
        static char many_opts[WIRE_MAX_JOB_OPTIONS * 12 + 64];
        static char long_value_file[sizeof(long_value) + 32];
        memfile_t files[] = {
            {.path = "seq.fio",
             .text = "[global]\n"
                     "size=1m\n"
                     "\n"
                     "; the matrix\n"
                     "[seqread]\n"
                     "bs=4k\n"
                     "rw=sideways\n"},
            {.path = "unknown.fio", .text = "[a]\nsize=1m\nfoo=1\n"},
            {.path = "unsupported.fio", .text = "[a]\nsize=1m\nzonemode=zbd\n"},
            {.path = "waits.fio", .text = "[a]\nsize=1m\nwait_for=b\n[b]\nsize=1m\n"},
            {.path = "several.fio",
             .text = "[global]\nzonemode=zbd\n[a]\nfoo=1\nsize=1m\n[b]\nrw=sideways\n"
                     "size=1m\n"},
            {.path = "late-global.fio", .text = "[a]\nsize=1m\n[global]\nbs=lots\n"},
            {.path = "only-global.fio", .text = "[global]\nsize=1m\n"},
            {.path = "empty.fio", .text = "; nothing\n"},
            {.path = "whole.fio", .text = "[global]\nbs=8k\n\n[small]\nsize=4k\n"},
            {.path = "dup.fio", .text = "[a]\nsize=1m\n[b]\nsize=1m\n[a]\nsize=1m\n"},
            {.path = "dup-cmd.fio", .text = "[cl]\nsize=1m\n"},
            {.path = "long-name.fio",
             .text = "[aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa]\n"
                     "size=1m\n"},
            {.path = "tab.fio", .text = "[a]\nsize=1m\ndescription=a\tb\n"},
            {.path = "long-value.fio", .text = long_value_file},
            {.path = "many.fio", .text = many},
            {.path = "many-opts.fio", .text = many_opts},
            {0}};
        memfs_t fs = {.files = files};
        char err[1024];
        size_t off = 0;

        memset(long_value, 'x', sizeof(long_value) - 1);
        snprintf(long_value_file, sizeof(long_value_file), "[a]\nsize=1m\ndescription=%s\n",
                 long_value);
        for (int i = 0; i <= WIRE_MAX_JOBS; i++)
                off += (size_t)snprintf(many + off, sizeof(many) - off, "[j%d]\nsize=1m\n", i);
        off = (size_t)snprintf(many_opts, sizeof(many_opts), "[a]\n");
        for (int i = 0; i <= WIRE_MAX_JOB_OPTIONS; i++)
                off += (size_t)snprintf(many_opts + off, sizeof(many_opts) - off, "size=1m\n");

        load_fails(-EINVAL, &fs, NULL, FILES("seq.fio"), err, sizeof(err));
        assert_contains(err, "seq.fio:7: [seqread] rw: 'sideways' is not one of read, write");
        load_fails(-ENOENT, &fs, NULL, FILES("unknown.fio"), err, sizeof(err));
        assert_contains(err, "unknown.fio:3: [a] unknown option 'foo'");
        /* fio's real options iofleet does not implement are refused by name */
        load_fails(-EOPNOTSUPP, &fs, NULL, FILES("unsupported.fio"), err, sizeof(err));
        assert_contains(err, "unsupported.fio:3: [a] ");
        assert_contains(err, "'zonemode' is not supported");
        /* every refusal at once, each with file and line, no follow-on complaints */
        {
                jobargs_t ja;
                assert_int_equal(load(&ja, &fs, ARGS("--iodepth=0"), FILES("several.fio"), err,
                                      sizeof(err)),
                                 -EOPNOTSUPP);
                assert_string_equal(err, "several.fio:2: [global] fio option 'zonemode' is not "
                                         "supported by iofleet yet\n"
                                         "several.fio:4: [a] unknown option 'foo'\n"
                                         "several.fio:7: [b] rw: 'sideways' is not one of read, "
                                         "write, randread, randwrite, rw, readwrite, randrw\n"
                                         "iodepth: 0 is out of range 1..65536");
                jobargs_free(&ja);
        }
        /* a wait_for names a job given before it */
        load_fails(-EINVAL, &fs, NULL, FILES("waits.fio"), err, sizeof(err));
        assert_string_equal(err, "waits.fio:1: [a] job a: wait_for=b names no job given before "
                                 "it (fio allows no forward reference)");
        /* a [global] no job follows is still checked */
        load_fails(-EINVAL, &fs, NULL, FILES("late-global.fio"), err, sizeof(err));
        assert_contains(err, "late-global.fio:4: [global] bs: ");
        load_fails(-EINVAL, &fs, NULL, FILES("only-global.fio"), err, sizeof(err));
        assert_contains(err, "only-global.fio: no job section");
        load_fails(-EINVAL, &fs, NULL, FILES("empty.fio"), err, sizeof(err));
        assert_contains(err, "empty.fio: no job section");
        /* whole-job rules name the job's section */
        load_fails(-EINVAL, &fs, NULL, FILES("whole.fio"), err, sizeof(err));
        assert_contains(err, "whole.fio:4: [small] ");
        assert_contains(err, "bs");
        /* job names must differ, in a file or across the command line and a file */
        load_fails(-EINVAL, &fs, NULL, FILES("dup.fio"), err, sizeof(err));
        assert_string_equal(err, "dup.fio:5: [a] name: job 'a' is given twice (also dup.fio:1: "
                                 "[a]); job names must differ");
        load_fails(-EINVAL, &fs, ARGS("--name=cl", "--size=1m"), FILES("dup-cmd.fio"), err,
                   sizeof(err));
        assert_contains(err, "dup-cmd.fio:1: [cl] name: job 'cl' is given twice (also --name on "
                             "the command line)");
        /* what the wire would refuse */
        load_fails(-EINVAL, &fs, NULL, FILES("long-name.fio"), err, sizeof(err));
        assert_contains(err, "long-name.fio:1: [aaaa");
        assert_contains(err, "is longer than 64 characters");
        load_fails(-EINVAL, &fs, NULL, FILES("tab.fio"), err, sizeof(err));
        assert_string_equal(err, "tab.fio:3: [a] description: control character 0x09 in the "
                                 "value");
        load_fails(-EINVAL, &fs, NULL, FILES("long-value.fio"), err, sizeof(err));
        assert_string_equal(err, "long-value.fio:3: [a] description: value longer than 4096 "
                                 "characters");
        load_fails(-E2BIG, &fs, NULL, FILES("many.fio"), err, sizeof(err));
        assert_string_equal(err, "65 jobs; one run takes at most 64");
        load_fails(-E2BIG, &fs, NULL, FILES("many-opts.fio"), err, sizeof(err));
        assert_contains(err, "many-opts.fio:1: [a] job a: 257 options");
        /* the command line keeps its own messages */
        load_fails(-EINVAL, &fs, ARGS("--rw=sideways"), NULL, err, sizeof(err));
        assert_contains(err, "rw: 'sideways' is not one of");
        load_fails(-EINVAL, &fs, ARGS("--name=a", "--size=1m", "--name=a", "--size=1m"), NULL, err,
                   sizeof(err));
        assert_string_equal(err, "name: job 'a' is given twice; job names must differ");
        load_fails(-EINVAL, &fs, ARGS("--name=", "--size=1m"), NULL, err, sizeof(err));
        assert_contains(err, "name: a job needs a name");
}

/* --- the real file system ---------------------------------------------------------------- */

static void write_file(const char *path, const char *text)
{
        FILE *f = fopen(path, "we");
        assert_non_null(f);
        fputs(text, f);
        assert_int_equal(fclose(f), 0);
}

/* Without hooks: files, includes beside the including file, getenv(), directories. */
static void test_file_system(void **state)
{
        char dir[] = "/tmp/test-jobfile-XXXXXX", path[256], inc[256], sub[256], err[1024];
        jobargs_t ja = {0};
        job_spec_t s;

        assert_non_null(mkdtemp(dir));
        snprintf(sub, sizeof(sub), "%s/common", dir);
        assert_int_equal(mkdir(sub, 0755), 0);
        snprintf(path, sizeof(path), "%s/main.fio", dir);
        snprintf(inc, sizeof(inc), "%s/common/sizes.fio", dir);
        write_file(path, "[global]\ninclude common/sizes.fio\n[fs-job]\nbs=${TEST_JOBFILE_BS}\n");
        write_file(inc, "size=3m\n");
        setenv("TEST_JOBFILE_BS", "16k", 1);

        assert_int_equal(jobargs_add_file(&ja, path, NULL, err, sizeof(err)), 0);
        assert_int_equal(jobargs_check(&ja, err, sizeof(err)), 0);
        spec_of(&ja, "fs-job", &s);
        assert_int_equal(s.size, 3 * MIB);
        assert_int_equal(s.bs, 16384);
        job_spec_done(&s);
        jobargs_free(&ja);

        unsetenv("TEST_JOBFILE_BS");
        assert_int_equal(jobargs_add_file(&ja, path, NULL, err, sizeof(err)), -EINVAL);
        assert_contains(err, "main.fio:4: [fs-job] bs: environment variable TEST_JOBFILE_BS is "
                             "not set");
        jobargs_free(&ja);
        assert_int_equal(jobargs_add_file(&ja, dir, NULL, err, sizeof(err)), -EISDIR);
        assert_contains(err, "Is a directory");
        jobargs_free(&ja);

        assert_int_equal(unlink(inc), 0);
        assert_int_equal(rmdir(sub), 0);
        assert_int_equal(unlink(path), 0);
        assert_int_equal(rmdir(dir), 0);
}

/* examples/seq-read.fio: write-up 2's sequential-read row, scaled down. */
static void test_example(void **state)
{
        char path[1024], err[1024];
        const char *slash = strrchr(__FILE__, '/');
        jobargs_t ja = {0};
        job_spec_t s;

        assert_non_null(slash);
        snprintf(path, sizeof(path), "%.*s/../../examples/seq-read.fio", (int)(slash - __FILE__),
                 __FILE__);
        assert_int_equal(jobargs_add(&ja, "directory", "/tmp/iofleet-example"), 0);
        if (jobargs_add_file(&ja, path, NULL, err, sizeof(err)) < 0 ||
            jobargs_check(&ja, err, sizeof(err)) < 0)
                fail_msg("%s", err);
        assert_int_equal(ja.n_jobs, 2);
        spec_of(&ja, "seqread-1m", &s);
        assert_int_equal(s.rw, RW_READ);
        assert_int_equal(s.bs, MIB);
        assert_true(s.time_based);
        assert_true(s.runtime_ns > 0);
        assert_true(s.size > 0 && s.size <= 64 * MIB);
        assert_string_equal(s.directory, "/tmp/iofleet-example");
        job_spec_done(&s);
        spec_of(&ja, "seqread-4k", &s);
        assert_int_equal(s.bs, 4096);
        job_spec_done(&s);
        jobargs_free(&ja);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_howto_example),
            cmocka_unit_test(test_several_globals),
            cmocka_unit_test(test_syntax),
            cmocka_unit_test(test_include),
            cmocka_unit_test(test_include_errors),
            cmocka_unit_test(test_env),
            cmocka_unit_test(test_cmdline_precedence),
            cmocka_unit_test(test_several_files),
            cmocka_unit_test(test_section_filter),
            cmocka_unit_test(test_syntax_errors),
            cmocka_unit_test(test_option_errors),
            cmocka_unit_test(test_file_system),
            cmocka_unit_test(test_example),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
