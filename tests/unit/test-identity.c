/* Unit tests for the agent's identity: a UUID made once and read back, the kernel's boot id whole,
 * a damaged agent-id refused with its path. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "identity.h"
#include "unit.h"
#include "util.h"

static char dir[64];

static int setup(void **state)
{
        return unit_scratch_make(dir, sizeof(dir), "test-identity");
}

static int teardown(void **state)
{
        unit_scratch_remove(dir);
        return 0;
}

static void test_made_once_and_kept(void **state)
{
        identity_t a, b;
        char err[512] = "", sd[128], boot[64] = "";
        snprintf(sd, sizeof(sd), "%s/state", dir);
        assert_int_equal(identity_load(sd, &a, err, sizeof(err)), 0);
        assert_int_equal(strlen(a.id), 36);
        assert_int_equal(identity_load(sd, &b, err, sizeof(err)), 0);
        assert_string_equal(a.id, b.id);
        assert_true(a.hostname[0]);

        /* The boot id whole (36 characters), as the kernel says it: agents compare it. */
        FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");
        if (f) {
                assert_non_null(fgets(boot, sizeof(boot), f));
                fclose(f);
                boot[strcspn(boot, "\n")] = 0;
                assert_string_equal(a.boot_id, boot);
                assert_int_equal(strlen(a.boot_id), 36);
        }
}

static void test_damaged_id_refused(void **state)
{
        identity_t a;
        char err[512] = "", sd[128], path[160];
        snprintf(sd, sizeof(sd), "%s/bad", dir);
        assert_int_equal(mkdir(sd, 0700), 0);
        snprintf(path, sizeof(path), "%s/agent-id", sd);
        FILE *f = fopen(path, "we");
        assert_non_null(f);
        fputs("not-a-uuid\n", f);
        fclose(f);
        assert_int_equal(identity_load(sd, &a, err, sizeof(err)), -EINVAL);
        assert_non_null(strstr(err, path));
        assert_non_null(strstr(err, "not a UUID"));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_made_once_and_kept),
            cmocka_unit_test(test_damaged_id_refused),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
