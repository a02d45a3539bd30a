/* Unit tests for selector: every term kind, globs, AND of terms, and the syntax check. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "selector.h"
#include "util.h"

#define assert_contains(hay, needle)                                                               \
        do {                                                                                       \
                if (!strstr((hay), (needle)))                                                      \
                        fail_msg("'%s' does not mention '%s'", (hay), (needle));                   \
        } while (0)

static char *web_roles_v[] = {"client"};
static char *db_roles_v[] = {"storage", "client"};
static char *web_labels_v[] = {"rack=a1", "disk=nvme", "zone=eu-west"};
static char *db_labels_v[] = {"rack=b12", "empty="};
static const strv_t web_roles = {web_roles_v, 1}, db_roles = {db_roles_v, 2}, none = {NULL, 0};
static const strv_t web_labels = {web_labels_v, 3}, db_labels = {db_labels_v, 2};

static const selector_subject_t web1 = {"web-1", "host-a.example.org", &web_roles, &web_labels};
static const selector_subject_t db7 = {"db-7", "host-b.example.org", &db_roles, &db_labels};
static const selector_subject_t bare = {"bare", NULL, &none, NULL};

static void expect(const char *sel, bool w, bool d, bool b)
{
        char err[256] = "";

        if (selector_validate(sel, err, sizeof(err)) != 0)
                fail_msg("'%s' refused: %s", sel ? sel : "(null)", err);
        if (selector_match(sel, &web1) != w || selector_match(sel, &db7) != d ||
            selector_match(sel, &bare) != b)
                fail_msg("'%s': expected web-1 %d db-7 %d bare %d, got %d %d %d",
                         sel ? sel : "(null)", w, d, b, selector_match(sel, &web1),
                         selector_match(sel, &db7), selector_match(sel, &bare));
}

static void test_all(void **state)
{
        expect(NULL, true, true, true);
        expect("", true, true, true);
        expect("all", true, true, true);
}

static void test_role(void **state)
{
        expect("role=client", true, true, false);
        expect("role=storage", false, true, false);
        expect("role=stor*", false, false, false); /* roles are matched exactly */
        expect("role=none", false, false, false);
}

static void test_name(void **state)
{
        expect("name=web-1", true, false, false);
        expect("name=web*", true, false, false);
        expect("name=*-?", true, true, false);
        expect("name=[dw]*", true, true, false);
        expect("name=WEB*", false, false, false); /* case matters */
        expect("name=web", false, false, false);  /* whole name, not a prefix */
}

static void test_host(void **state)
{
        expect("host=host-a.example.org", true, false, false);
        expect("host=*.example.org", true, true, false);
        expect("host=host-b*", false, true, false);
        expect("host=*", true, true, false); /* no hostname: no host match */
}

static void test_label(void **state)
{
        expect("rack=a1", true, false, false);
        expect("rack=b*", false, true, false);
        expect("rack=*", true, true, false);
        expect("zone=eu-*", true, false, false);
        expect("disk=nvme", true, false, false);
        expect("disk=ssd", false, false, false);
        expect("ra=*", false, false, false); /* a key prefix is another key */
        expect("rackx=*", false, false, false);
        expect("empty=*", false, true, false);
}

static void test_bare_glob(void **state)
{
        expect("web-1", true, false, false);
        expect("db-*", false, true, false);
        expect("*", true, true, true);
        expect("nobody", false, false, false);
}

static void test_and(void **state)
{
        expect("role=client,rack=a1", true, false, false);
        expect("role=client,rack=*", true, true, false);
        expect("role=storage,name=web*", false, false, false);
        expect("role=client,host=*.example.org,zone=eu-west,web-*", true, false, false);
        expect("all,role=storage", false, true, false);
        expect("rack=a1,rack=b12", false, false, false);
        expect("role=client,", true, true, false); /* a trailing comma adds no term */
}

static void expect_bad(const char *sel, const char *term)
{
        char err[512] = "", want[300];

        if (selector_validate(sel, err, sizeof(err)) != -EINVAL)
                fail_msg("'%s' accepted", sel);
        snprintf(want, sizeof(want), "'%s'", term);
        assert_contains(err, want);
        assert_contains(err, "selector");
}

static void test_validate(void **state)
{
        char err[400], long_term[300];

        expect_bad("a=b=c", "a=b=c");
        expect_bad("=x", "=x");
        expect_bad("x=", "x=");
        expect_bad(",,", "");
        expect_bad(",", "");
        expect_bad("role=client,,name=x", "");
        expect_bad("role=client,=x", "=x");
        expect_bad("role=client,name=", "name=");
        expect_bad("==", "==");
        expect_bad("=", "=");

        memset(long_term, 'n', 257);
        long_term[257] = 0;
        assert_int_equal(selector_validate(long_term, err, sizeof(err)), -EINVAL);
        long_term[256] = 0;
        assert_int_equal(selector_validate(long_term, err, sizeof(err)), 0);

        assert_int_equal(selector_validate("role=client,rack=a*,web-?", err, sizeof(err)), 0);
        assert_int_equal(selector_validate(NULL, err, sizeof(err)), 0);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_all),   cmocka_unit_test(test_role),
            cmocka_unit_test(test_name),  cmocka_unit_test(test_host),
            cmocka_unit_test(test_label), cmocka_unit_test(test_bare_glob),
            cmocka_unit_test(test_and),   cmocka_unit_test(test_validate),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
