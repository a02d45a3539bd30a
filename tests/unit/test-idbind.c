/* Tests for coordinator/idbind.c: which agent id each key stands for, its rules, and the state
 * file (round trip, atomic replacement, malformed files refused whole). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "idbind.h"
#include "util.h"

typedef struct fixture {
        char dir[64], path[128], err[512];
} fixture_t;

static int setup(void **state)
{
        fixture_t *f = calloc(1, sizeof(*f));
        if (!f)
                return -1;
        strcpy(f->dir, "/tmp/test-idbind.XXXXXX");
        if (!mkdtemp(f->dir))
                return -1;
        snprintf(f->path, sizeof(f->path), "%s/agent-keys", f->dir);
        *state = f;
        return 0;
}

static int teardown(void **state)
{
        fixture_t *f = *state;
        char tmp[160];
        unlink(f->path);
        snprintf(tmp, sizeof(tmp), "%s.iofleet-tmp", f->path);
        unlink(tmp);
        rmdir(f->dir);
        free(f);
        return 0;
}

static void write_text(const char *path, const char *text)
{
        FILE *fp = fopen(path, "we");
        assert_non_null(fp);
        fputs(text, fp);
        assert_int_equal(fclose(fp), 0);
}

static bool keep_not_b(const char *key, void *userdata)
{
        return !streq(key, userdata);
}

static void test_rules(void **state)
{
        idbind_t *b;
        assert_int_equal(idbind_new(&b), 0);
        assert_false(idbind_dirty(b));
        assert_int_equal(idbind_set(b, "h1", "id-1"), 0);
        assert_true(idbind_dirty(b));
        assert_string_equal(idbind_id_of(b, "h1"), "id-1");
        assert_string_equal(idbind_key_of(b, "id-1"), "h1");
        /* An id is one key's. */
        assert_int_equal(idbind_set(b, "evil", "id-1"), -EPERM);
        assert_null(idbind_id_of(b, "evil"));
        /* A key moves to a new id; the old id is free again. */
        assert_int_equal(idbind_set(b, "h1", "id-2"), 0);
        assert_null(idbind_key_of(b, "id-1"));
        assert_int_equal(idbind_set(b, "h2", "id-1"), 0);
        assert_int_equal(idbind_count(b), 2);
        /* Setting what is there already changes nothing. */
        assert_int_equal(idbind_set(b, "h2", "id-1"), 0);
        assert_int_equal(idbind_count(b), 2);
        assert_int_equal(idbind_set(b, "", "x"), -EINVAL);
        assert_int_equal(idbind_set(b, "k", ""), -EINVAL);
        idbind_retain(b, keep_not_b, "h2");
        assert_int_equal(idbind_count(b), 1);
        assert_null(idbind_key_of(b, "id-1"));
        idbind_remove(b, "h1");
        idbind_remove(b, "nobody");
        assert_int_equal(idbind_count(b), 0);
        idbind_free(&b);
        assert_null(b);
        idbind_free(&b);
}

static void test_file(void **state)
{
        fixture_t *f = *state;
        idbind_t *b, *c;
        struct stat st;

        assert_int_equal(idbind_new(&b), 0);
        /* No file yet: no bindings. */
        assert_int_equal(idbind_load(b, f->path, f->err, sizeof(f->err)), 0);
        assert_int_equal(idbind_count(b), 0);
        for (int i = 0; i < 500; i++) {
                char key[16], id[48];
                snprintf(key, sizeof(key), "host-%d", i);
                snprintf(id, sizeof(id), "5d1c0e4e-1f2a-4b3c-9d8e-%012d", i);
                assert_int_equal(idbind_set(b, key, id), 0);
        }
        assert_int_equal(idbind_save(b, f->path, f->err, sizeof(f->err)), 0);
        assert_false(idbind_dirty(b));
        assert_int_equal(stat(f->path, &st), 0);
        assert_int_equal(st.st_mode & 07777, 0600);

        assert_int_equal(idbind_new(&c), 0);
        assert_int_equal(idbind_set(c, "stale", "x"), 0);
        assert_int_equal(idbind_load(c, f->path, f->err, sizeof(f->err)), 0);
        assert_false(idbind_dirty(c));
        assert_int_equal(idbind_count(c), 500);
        assert_null(idbind_id_of(c, "stale"));
        assert_string_equal(idbind_id_of(c, "host-499"), "5d1c0e4e-1f2a-4b3c-9d8e-000000000499");
        assert_string_equal(idbind_key_of(c, "5d1c0e4e-1f2a-4b3c-9d8e-000000000007"), "host-7");

        /* Malformed files are refused whole, naming file and line; what was loaded stays. */
        static const char *bad[] = {
            "h1 id-1\nh2\n",            /* one word */
            "h1 id-1 extra\n",          /* three */
            "h1 id-1\nh2 id-1\n",       /* an id twice */
            "h1 \x01id\n",              /* a control character */
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                write_text(f->path, bad[i]);
                assert_int_equal(idbind_load(c, f->path, f->err, sizeof(f->err)), -EINVAL);
                assert_non_null(strstr(f->err, f->path));
                assert_int_equal(idbind_count(c), 500);
        }
        write_text(f->path, "# comment\n\n  \nh1 id-1\n");
        assert_int_equal(idbind_load(c, f->path, f->err, sizeof(f->err)), 0);
        assert_int_equal(idbind_count(c), 1);
        /* A save replaces the file; an unwritable place is an error naming it. */
        assert_int_equal(idbind_save(b, "/nonexistent/dir/agent-keys", f->err, sizeof(f->err)),
                         -ENOENT);
        assert_non_null(strstr(f->err, "/nonexistent/dir/agent-keys"));
        idbind_free(&b);
        idbind_free(&c);
}

#define TEST(t) cmocka_unit_test_setup_teardown(t, setup, teardown)

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_rules),
            TEST(test_file),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
