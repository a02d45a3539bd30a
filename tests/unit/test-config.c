/* Unit tests for config: every key type from INI files and --key=value, [labels], errors naming
 * file:line, strv. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "util.h"

#define assert_contains(hay, needle)                                                               \
        do {                                                                                       \
                if (!strstr((hay), (needle)))                                                      \
                        fail_msg("'%s' does not mention '%s'", (hay), (needle));                   \
        } while (0)

typedef struct tcfg {
        char *name;
        bool insecure;
        bool verbose;
        uint64_t heartbeat_ns;
        uint64_t timeout_ns;
        uint64_t lost_after;
        uint64_t count;
        strv_t roles;
        strv_t tags;
        char *log_level;
        strv_t labels;
} tcfg_t;

#define T(f) offsetof(tcfg_t, f)
static const cfg_item_t items[] = {
    {"name", CFG_STRING, T(name), 0, 0, NULL, "a name", NULL, NULL, 0},
    {"insecure", CFG_BOOL, T(insecure), 0, 0, NULL, "no CURVE", NULL, NULL, 0},
    {"verbose", CFG_BOOL, T(verbose), 0, 0, NULL, "talk more", NULL, NULL, 0},
    {"heartbeat", CFG_DURATION, T(heartbeat_ns), 10 * NSEC_PER_MSEC, 600 * NSEC_PER_SEC, NULL,
     "bounded duration", NULL, NULL, 0},
    {"timeout", CFG_DURATION, T(timeout_ns), 0, 0, NULL, "unbounded duration", NULL, NULL, 0},
    {"lost_after", CFG_UINT, T(lost_after), 2, 1000, NULL, "bounded number", NULL, NULL, 0},
    {"count", CFG_UINT, T(count), 0, 0, NULL, "unbounded number", NULL, NULL, 0},
    {"roles", CFG_LIST, T(roles), 0, 0, "storage,client", "list with choices", NULL, NULL, 0},
    {"tags", CFG_LIST, T(tags), 0, 0, NULL, "free list", NULL, NULL, 0},
    {"log_level", CFG_CHOICE, T(log_level), 0, 0, "debug,info,warning,error", "a choice", NULL,
     NULL, 0},
};
static const cfg_schema_t schema = {"test", items, ELEMENTSOF(items), T(labels)};
static const cfg_schema_t schema_nolabels = {"test", items, ELEMENTSOF(items), SIZE_MAX};

/* Each test gets its own directory for the files it writes. */
typedef struct fixture {
        char dir[64];
        char path[128];
        tcfg_t c;
        char err[2048];
} fixture_t;

static int setup(void **state)
{
        fixture_t *f = calloc(1, sizeof(*f));
        if (!f)
                return -1;
        strcpy(f->dir, "/tmp/test-config.XXXXXX");
        if (!mkdtemp(f->dir))
                return -1;
        f->c.lost_after = 3; /* defaults */
        f->c.heartbeat_ns = NSEC_PER_SEC;
        *state = f;
        return 0;
}

static int teardown(void **state)
{
        fixture_t *f = *state;
        char cmd[128];
        config_free(&schema, &f->c);
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
        if (system(cmd) != 0)
                return -1;
        free(f);
        return 0;
}

/* Writes text to DIR/name and returns the path (valid until the next call). */
static const char *write_ini(fixture_t *f, const char *name, const char *text)
{
        FILE *fp;
        snprintf(f->path, sizeof(f->path), "%s/%s", f->dir, name);
        fp = fopen(f->path, "we");
        assert_non_null(fp);
        assert_int_equal(fwrite(text, 1, strlen(text), fp), strlen(text));
        assert_int_equal(fclose(fp), 0);
        return f->path;
}

/* Loads text as a file and expects failure r with an error naming path:line and needle. */
static void expect_file_error(fixture_t *f, const char *text, int r, int line, const char *needle)
{
        const char *p = write_ini(f, "bad.conf", text);
        char where[256];
        int got;

        f->err[0] = 0;
        got = config_load_file(&schema, &f->c, p, f->err, sizeof(f->err));
        if (got != r)
                fail_msg("expected %d, got %d (%s) for:\n%s", r, got, f->err, text);
        snprintf(where, sizeof(where), "%s:%d: ", p, line);
        assert_contains(f->err, where);
        assert_contains(f->err, needle);
        assert_null(strchr(f->err, '\n'));
}

static void test_strv(void **state)
{
        strv_t l = {};

        assert_false(strv_contains(&l, "a"));
        assert_int_equal(strv_push(&l, "a"), 0);
        assert_int_equal(strv_push(&l, "bb"), 0);
        assert_int_equal(strv_push(&l, ""), 0);
        assert_int_equal(l.n, 3);
        assert_true(strv_contains(&l, "bb"));
        assert_true(strv_contains(&l, ""));
        assert_false(strv_contains(&l, "b"));
        assert_string_equal(l.v[0], "a");
        strv_clear(&l);
        assert_int_equal(l.n, 0);
        assert_null(l.v);
        strv_clear(&l);
}

static void test_good_file(void **state)
{
        fixture_t *f = *state;
        const char *p = write_ini(f, "good.conf",
                                  "# a comment\n"
                                  "; another\n"
                                  "\n"
                                  "[test]\n"
                                  "name = node-1  \n"
                                  "insecure = yes\n"
                                  "verbose = 0\n"
                                  "heartbeat = 250ms\n"
                                  "timeout = 2\n"
                                  "lost_after = 1000\n"
                                  "count = 18446744073709551615\n"
                                  "roles = client, storage,client\n"
                                  "tags = a b,c\n"
                                  "log_level = warning\n"
                                  "\n"
                                  "[labels]\n"
                                  "rack = a1\n"
                                  "disk = nvme\n");

        assert_int_equal(config_load_file(&schema, &f->c, p, f->err, sizeof(f->err)), 0);
        assert_string_equal(f->c.name, "node-1");
        assert_true(f->c.insecure);
        assert_false(f->c.verbose);
        assert_int_equal(f->c.heartbeat_ns, 250 * NSEC_PER_MSEC);
        assert_int_equal(f->c.timeout_ns, 2 * NSEC_PER_SEC); /* a bare number is seconds */
        assert_int_equal(f->c.lost_after, 1000);
        assert_int_equal(f->c.count, UINT64_MAX);
        assert_int_equal(f->c.roles.n, 2); /* duplicates dropped */
        assert_string_equal(f->c.roles.v[0], "client");
        assert_string_equal(f->c.roles.v[1], "storage");
        assert_int_equal(f->c.tags.n, 3);
        assert_string_equal(f->c.tags.v[2], "c");
        assert_string_equal(f->c.log_level, "warning");
        assert_int_equal(f->c.labels.n, 2);
        assert_true(strv_contains(&f->c.labels, "rack=a1"));
        assert_true(strv_contains(&f->c.labels, "disk=nvme"));

        /* A second file overrides what it names and keeps the rest; a list is replaced. */
        p = write_ini(f, "more.conf",
                      "[test]\r\n"
                      "name = node-2\r\n"
                      "roles = storage\r\n"
                      "tags =\r\n"
                      "heartbeat = 10ms\r\n"
                      "lost_after = 2\r\n");
        assert_int_equal(config_load_file(&schema, &f->c, p, f->err, sizeof(f->err)), 0);
        assert_string_equal(f->c.name, "node-2");
        assert_int_equal(f->c.roles.n, 1);
        assert_string_equal(f->c.roles.v[0], "storage");
        assert_int_equal(f->c.tags.n, 0);
        assert_int_equal(f->c.heartbeat_ns, 10 * NSEC_PER_MSEC);
        assert_int_equal(f->c.lost_after, 2);
        assert_true(f->c.insecure);
        assert_string_equal(f->c.log_level, "warning");

        /* An empty file changes nothing. */
        p = write_ini(f, "empty.conf", "");
        assert_int_equal(config_load_file(&schema, &f->c, p, f->err, sizeof(f->err)), 0);
        assert_string_equal(f->c.name, "node-2");
}

static void test_file_errors(void **state)
{
        fixture_t *f = *state;

        expect_file_error(f, "[test]\nname = x\nbogus = 1\n", -ENOENT, 3, "[test] bogus");
        expect_file_error(f, "[test]\nbogus = 1\n", -ENOENT, 2, "unknown key 'bogus'");
        expect_file_error(f, "[test]\nbogus = 1\n", -ENOENT, 2, "log_level"); /* lists known keys */
        expect_file_error(f, "[test]\n[other]\nx = 1\n", -EINVAL, 3, "unknown section [other]");
        expect_file_error(f, "name = x\n", -EINVAL, 1, "unknown section []");
        expect_file_error(f, "# c\n\n[test]\n; c\ninsecure = maybe\n", -EINVAL, 5,
                          "[test] insecure");
        expect_file_error(f, "[test]\ninsecure = maybe\n", -EINVAL, 2, "not a boolean");
        expect_file_error(f, "[test]\nheartbeat = soon\n", -EINVAL, 2, "[test] heartbeat");
        expect_file_error(f, "[test]\nheartbeat = soon\n", -EINVAL, 2, "not a duration");
        expect_file_error(f, "[test]\nheartbeat = 5ms\n", -ERANGE, 2,
                          "out of range 10ms..600000ms");
        expect_file_error(f, "[test]\nheartbeat = 11m\n", -ERANGE, 2, "[test] heartbeat");
        expect_file_error(f, "[test]\nlost_after = 1001\n", -ERANGE, 2, "[test] lost_after");
        expect_file_error(f, "[test]\nlost_after = 1\n", -ERANGE, 2, "out of range 2..1000");
        expect_file_error(f, "[test]\nlost_after = -5\n", -EINVAL, 2, "not a whole number");
        expect_file_error(f, "[test]\ncount = 12abc\n", -EINVAL, 2, "[test] count");
        expect_file_error(f, "[test]\ncount = \n", -EINVAL, 2, "not a whole number");
        expect_file_error(f, "[test]\ncount = 18446744073709551616\n", -EINVAL, 2,
                          "not a whole number");
        expect_file_error(f, "[test]\nlog_level = loud\n", -EINVAL, 2, "[test] log_level");
        expect_file_error(f, "[test]\nlog_level = loud\n", -EINVAL, 2,
                          "'loud' is not one of debug,info,warning,error");
        expect_file_error(f, "[test]\nlog_level = inf\n", -EINVAL, 2, "not one of");
        expect_file_error(f, "[test]\nroles = client,mystery\n", -EINVAL, 2, "[test] roles");
        expect_file_error(f, "[test]\nroles = client,mystery\n", -EINVAL, 2, "'mystery'");
        expect_file_error(f, "[test]\nname = x\njust some words\n", -EINVAL, 3, "not an INI line");
        expect_file_error(f, "[test\n", -EINVAL, 1, "not an INI line");
        expect_file_error(f, "[labels]\nmy key = v\n", -EINVAL, 2, "label 'my key'");

        /* The first bad line decides, even when good lines follow, and those are not applied. */
        f->c.count = 0;
        expect_file_error(f, "[test]\nbogus = 1\ncount = 4\n", -ENOENT, 2, "unknown key 'bogus'");
        expect_file_error(f, "[test]\ninsecure = maybe\nbogus = 1\ncount = 4\n", -EINVAL, 2,
                          "not a boolean");
        assert_int_equal(f->c.count, 0);

        /* A failed list leaves the old value. */
        assert_int_equal(f->c.roles.n, 0);

        /* A missing file names itself. */
        snprintf(f->path, sizeof(f->path), "%s/nope.conf", f->dir);
        assert_int_equal(config_load_file(&schema, &f->c, f->path, f->err, sizeof(f->err)),
                         -ENOENT);
        assert_contains(f->err, f->path);

        /* A directory is not a config file. */
        assert_true(config_load_file(&schema, &f->c, f->dir, f->err, sizeof(f->err)) < 0);
        assert_contains(f->err, f->dir);
}

static void test_long_and_nul_lines(void **state)
{
        fixture_t *f = *state;
        char text[1024];

        /* libinih reads lines into a 200-byte buffer: a longer line must be refused, not split
         * into a truncated value plus a second key taken from its tail. */
        snprintf(text, sizeof(text), "[test]\nname = %0*d\ncount = 1\n", 300, 0);
        expect_file_error(f, text, -EINVAL, 2, "line longer than");
        snprintf(text, sizeof(text), "[test]\n# %0*d count = 7\n", 200, 0);
        expect_file_error(f, text, -EINVAL, 2, "line longer than");
        assert_int_equal(f->c.count, 0);

        /* The longest line that fits is taken whole. */
        snprintf(text, sizeof(text), "[test]\ntags = %0*d\n", 199 - 7, 0);
        write_ini(f, "fits.conf", text);
        assert_int_equal(config_load_file(&schema, &f->c, f->path, f->err, sizeof(f->err)), 0);
        assert_int_equal(f->c.tags.n, 1);
        assert_int_equal(strlen(f->c.tags.v[0]), 192);

        /* A NUL byte would silently cut the line short. */
        {
                static const char nul[] = "[test]\nname = ab\0cd\n";
                FILE *fp;
                snprintf(f->path, sizeof(f->path), "%s/nul.conf", f->dir);
                fp = fopen(f->path, "we");
                assert_non_null(fp);
                assert_int_equal(fwrite(nul, 1, sizeof(nul) - 1, fp), sizeof(nul) - 1);
                assert_int_equal(fclose(fp), 0);
                assert_int_equal(config_load_file(&schema, &f->c, f->path, f->err, sizeof(f->err)),
                                 -EINVAL);
                assert_contains(f->err, ":2: ");
                assert_contains(f->err, "NUL");
        }
}

static void test_labels(void **state)
{
        fixture_t *f = *state;
        const char *p = write_ini(f, "labels.conf",
                                  "[labels]\n"
                                  "rack = a1\n"
                                  "disk = nvme\n"
                                  "rack = b2\n"
                                  "empty =\n"
                                  "zone = eu=west\n");

        assert_int_equal(config_load_file(&schema, &f->c, p, f->err, sizeof(f->err)), 0);
        assert_int_equal(f->c.labels.n, 4);
        assert_true(strv_contains(&f->c.labels, "rack=b2"));
        assert_false(strv_contains(&f->c.labels, "rack=a1"));
        assert_true(strv_contains(&f->c.labels, "disk=nvme"));
        assert_true(strv_contains(&f->c.labels, "empty="));
        assert_true(strv_contains(&f->c.labels, "zone=eu=west"));

        /* A key that is a prefix of another is its own label. */
        p = write_ini(f, "labels2.conf", "[labels]\nra = x\nrack = c3\n");
        assert_int_equal(config_load_file(&schema, &f->c, p, f->err, sizeof(f->err)), 0);
        assert_int_equal(f->c.labels.n, 5);
        assert_true(strv_contains(&f->c.labels, "ra=x"));
        assert_true(strv_contains(&f->c.labels, "rack=c3"));
        assert_false(strv_contains(&f->c.labels, "rack=b2"));

        /* Without a labels field, [labels] is an unknown section. */
        {
                tcfg_t c = {};
                p = write_ini(f, "labels3.conf", "[labels]\nrack = a1\n");
                assert_int_equal(config_load_file(&schema_nolabels, &c, p, f->err, sizeof(f->err)),
                                 -EINVAL);
                assert_contains(f->err, "unknown section [labels]");
                config_free(&schema_nolabels, &c);
        }
}

static int extra_calls;
static bool extra_v;

static int extra(void *target, const char *arg, char *err, size_t errlen)
{
        tcfg_t *c = target;
        extra_calls++;
        if (streq(arg, "-v")) {
                extra_v = true;
                return 1;
        }
        if (streq(arg, "--name=from-extra")) { /* extra() sees arguments before the table */
                strdup_to(&c->name, "taken");
                return 1;
        }
        if (streq(arg, "--explode")) {
                snprintf(err, errlen, "--explode: refused by extra");
                return -EDOM;
        }
        return 0;
}

static int parse(fixture_t *f, int argc, char **argv)
{
        f->err[0] = 0;
        return config_parse_args(&schema, &f->c, argc, argv, extra, f->err, sizeof(f->err));
}

static void test_args(void **state)
{
        fixture_t *f = *state;
        char cfgarg[160];
        const char *p = write_ini(f, "args.conf",
                                  "[test]\nname = from-file\ncount = 5\nroles = storage\n"
                                  "log_level = info\n[labels]\nrack = a1\n");

        snprintf(cfgarg, sizeof(cfgarg), "--config=%s", p);
        {
                /* --config is loaded first wherever it stands, so the command line wins. */
                char *argv[] = {"prog",
                                "--name=cli",
                                "--lost-after=7",
                                cfgarg,
                                "--insecure",
                                "-v",
                                "--label=disk=ssd",
                                "--label=rack=b2",
                                "--roles=client,storage",
                                "--log-level=debug",
                                "--heartbeat=1500ms"};
                extra_calls = 0;
                extra_v = false;
                assert_int_equal(parse(f, ELEMENTSOF(argv), argv), 0);
                assert_string_equal(f->c.name, "cli");
                assert_int_equal(f->c.count, 5);
                assert_int_equal(f->c.lost_after, 7);
                assert_true(f->c.insecure);
                assert_true(extra_v);
                assert_int_equal(extra_calls,
                                 (int)ELEMENTSOF(argv) - 2); /* not argv[0], --config */
                assert_int_equal(f->c.roles.n, 2);
                assert_string_equal(f->c.log_level, "debug");
                assert_int_equal(f->c.heartbeat_ns, 1500 * NSEC_PER_MSEC);
                assert_int_equal(f->c.labels.n, 2);
                assert_true(strv_contains(&f->c.labels, "rack=b2"));
                assert_true(strv_contains(&f->c.labels, "disk=ssd"));
        }
        {
                char *argv[] = {"prog", "--insecure=false", "--name=a-b=c", "--name=from-extra"};
                assert_int_equal(parse(f, ELEMENTSOF(argv), argv), 0);
                assert_false(f->c.insecure);
                assert_string_equal(f->c.name, "taken");
        }
        {
                char *argv[] = {"prog", "--name=a-b=c", "--tags="};
                assert_int_equal(parse(f, ELEMENTSOF(argv), argv), 0);
                assert_string_equal(f->c.name, "a-b=c"); /* dashes map only in the key */
                assert_int_equal(f->c.tags.n, 0);
        }
        {
                char *argv[] = {"prog"};
                assert_int_equal(parse(f, 1, argv), 0);
                assert_int_equal(
                    config_parse_args(&schema, &f->c, 1, argv, NULL, f->err, sizeof(f->err)), 0);
        }
}

static void test_args_errors(void **state)
{
        fixture_t *f = *state;
        char cfgarg[160];

        {
                char *argv[] = {"prog", "--bogus=1"};
                assert_int_equal(parse(f, 2, argv), -ENOENT);
                assert_contains(f->err, "--bogus");
                assert_contains(f->err, "unknown key 'bogus'");
        }
        {
                char *argv[] = {"prog", "--bogus"};
                assert_true(parse(f, 2, argv) < 0);
                assert_contains(f->err, "--bogus");
        }
        {
                char *argv[] = {"prog", "stray"};
                assert_int_equal(parse(f, 2, argv), -EINVAL);
                assert_contains(f->err, "unexpected argument 'stray'");
        }
        {
                char *argv[] = {"prog", "--lost-after"};
                assert_int_equal(parse(f, 2, argv), -EINVAL);
                assert_contains(f->err, "needs a value");
        }
        {
                char *argv[] = {"prog", "--lost-after=0"};
                assert_int_equal(parse(f, 2, argv), -ERANGE);
                assert_contains(f->err, "--lost_after");
        }
        {
                char *argv[] = {"prog", "--insecure=perhaps"};
                assert_int_equal(parse(f, 2, argv), -EINVAL);
                assert_contains(f->err, "--insecure");
        }
        {
                char *argv[] = {"prog", "--label=norack"};
                assert_int_equal(parse(f, 2, argv), -EINVAL);
                assert_contains(f->err, "--label");
                assert_contains(f->err, "KEY=VALUE");
        }
        {
                char *argv[] = {"prog", "--label==v"};
                assert_int_equal(parse(f, 2, argv), -EINVAL);
                assert_contains(f->err, "--label");
        }
        {
                char *argv[] = {"prog", "--label=a b=v"};
                assert_int_equal(parse(f, 2, argv), -EINVAL);
                assert_contains(f->err, "label 'a b'");
        }
        {
                char v[400];
                char *argv[] = {"prog", v};
                snprintf(v, sizeof(v), "--label=k=%0*d", 257, 0);
                assert_int_equal(parse(f, 2, argv), -EINVAL);
                assert_contains(f->err, "at most 256");
                snprintf(v, sizeof(v), "--label=k=%0*d", 256, 0);
                assert_int_equal(parse(f, 2, argv), 0);
                snprintf(v, sizeof(v), "--label=%0*d=v", 65, 0);
                assert_int_equal(parse(f, 2, argv), -EINVAL);
                snprintf(v, sizeof(v), "--label=%0*d=v", 64, 0);
                assert_int_equal(parse(f, 2, argv), 0);
        }
        {
                char *argv[] = {"prog", "--explode"};
                assert_int_equal(parse(f, 2, argv), -EDOM);
                assert_string_equal(f->err, "--explode: refused by extra");
        }
        {
                /* Without a labels field --label is just an unknown key. */
                tcfg_t c = {};
                char *argv[] = {"prog", "--label=a=b"};
                assert_int_equal(
                    config_parse_args(&schema_nolabels, &c, 2, argv, NULL, f->err, sizeof(f->err)),
                    -ENOENT);
                config_free(&schema_nolabels, &c);
        }
        {
                /* A bad --config fails before any override is applied. */
                char *argv[] = {"prog", "--count=9", cfgarg};
                const char *p = write_ini(f, "bad.conf", "[test]\ncount = x\n");
                snprintf(cfgarg, sizeof(cfgarg), "--config=%s", p);
                f->c.count = 1;
                assert_int_equal(parse(f, 3, argv), -EINVAL);
                assert_contains(f->err, ":2: [test] count");
                assert_int_equal(f->c.count, 1);
                snprintf(cfgarg, sizeof(cfgarg), "--config=%s/missing.conf", f->dir);
                assert_int_equal(parse(f, 3, argv), -ENOENT);
                assert_contains(f->err, "missing.conf");
        }
}

static void test_config_set_and_help(void **state)
{
        fixture_t *f = *state;
        char *buf = NULL;
        size_t len = 0;
        FILE *mem;

        assert_int_equal(config_set(&schema, &f->c, "name", "x", "here", f->err, sizeof(f->err)),
                         0);
        assert_string_equal(f->c.name, "x");
        assert_int_equal(config_set(&schema, &f->c, "nope", "x", "here:1", f->err, sizeof(f->err)),
                         -ENOENT);
        assert_contains(f->err, "here:1: unknown key 'nope'");
        /* A tiny buffer truncates the message but never overflows. */
        assert_int_equal(config_set(&schema, &f->c, "nope", "x", "here", f->err, 8), -ENOENT);
        assert_int_equal(strlen(f->err), 7);

        mem = open_memstream(&buf, &len);
        assert_non_null(mem);
        config_help(&schema, mem);
        assert_int_equal(fclose(mem), 0);
        assert_contains(buf, "[test]");
        for (size_t i = 0; i < ELEMENTSOF(items); i++) {
                assert_contains(buf, items[i].name);
                assert_contains(buf, items[i].help);
        }
        assert_contains(buf, "[labels]");
        free(buf);
}

struct lines {
        int n;
        int linenos[8];
        int stop_at;
};

static int line_cb(void *user, const char *section, const char *name, const char *value, int lineno)
{
        struct lines *l = user;
        if (l->n < 8)
                l->linenos[l->n] = lineno;
        l->n++;
        return l->n != l->stop_at;
}

static void test_parse_ini_lines(void **state)
{
        fixture_t *f = *state;
        struct lines l = {};
        const char *p = write_ini(f, "lines.conf", "; c\n[a]\nx = 1\n\n# c\ny = 2\n[b]\nz = 3");

        assert_int_equal(config_parse_ini(p, line_cb, &l, f->err, sizeof(f->err)), 0);
        assert_int_equal(l.n, 3);
        assert_int_equal(l.linenos[0], 3);
        assert_int_equal(l.linenos[1], 6);
        assert_int_equal(l.linenos[2], 8);

        /* The handler stops the parse by returning 0. */
        memset(&l, 0, sizeof(l));
        l.stop_at = 2;
        assert_int_equal(config_parse_ini(p, line_cb, &l, f->err, sizeof(f->err)), -ECANCELED);
        assert_int_equal(l.n, 2);
}

static void test_config_free(void **state)
{
        fixture_t *f = *state;
        char *argv[] = {"prog",         "--name=n",    "--log-level=info", "--roles=client",
                        "--tags=a,b,c", "--label=k=v", "--label=k2=v"};

        assert_int_equal(parse(f, ELEMENTSOF(argv), argv), 0);
        config_free(&schema, &f->c);
        assert_null(f->c.name);
        assert_null(f->c.log_level);
        assert_int_equal(f->c.roles.n, 0);
        assert_null(f->c.roles.v);
        assert_int_equal(f->c.tags.n, 0);
        assert_int_equal(f->c.labels.n, 0);
        assert_null(f->c.labels.v);
        /* and again: freeing a freed config is harmless */
        config_free(&schema, &f->c);
}

#define TEST(t) cmocka_unit_test_setup_teardown(t, setup, teardown)

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_strv), TEST(test_good_file),
            TEST(test_file_errors),      TEST(test_long_and_nul_lines),
            TEST(test_labels),           TEST(test_args),
            TEST(test_args_errors),      TEST(test_config_set_and_help),
            TEST(test_parse_ini_lines),  TEST(test_config_free),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
