/* Unit tests for the path policy: allow_paths and its defaults, symlinks pointing outside,
 * "..", system directories, block and character devices. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent-config.h"
#include "policy.h"
#include "util.h"

#define assert_contains(hay, needle)                                                               \
        do {                                                                                       \
                if (!strstr((hay), (needle)))                                                      \
                        fail_msg("'%s' does not mention '%s'", (hay), (needle));                   \
        } while (0)

static char root[PATH_MAX]; /* resolved scratch directory */

static void mk(const char *rel)
{
        char p[PATH_MAX + 64];
        snprintf(p, sizeof(p), "%s/%s", root, rel);
        assert_int_equal(mkdir_p(p, 0755), 0);
}

static void touch(const char *rel)
{
        char p[PATH_MAX + 64];
        snprintf(p, sizeof(p), "%s/%s", root, rel);
        int fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        assert_true(fd >= 0);
        close(fd);
}

static void link_to(const char *target, const char *rel)
{
        char p[PATH_MAX + 64];
        snprintf(p, sizeof(p), "%s/%s", root, rel);
        assert_int_equal(symlink(target, p), 0);
}

static int setup(void **state)
{
        char tmpl[] = "/tmp/test-policy.XXXXXX";
        if (!mkdtemp(tmpl) || !realpath(tmpl, root))
                return -1;
        mk("allowed/sub");
        mk("allowedx");
        mk("outside");
        mk("work");
        mk("mnt/run1");
        touch("allowed/sub/file");
        touch("outside/secret");
        link_to("../outside", "allowed/escape");
        link_to("/etc", "allowed/etclink");
        link_to("sub", "allowed/inner");
        link_to("allowed", "alias");
        link_to("/", "allowed/rootlink");
        return 0;
}

static int teardown(void **state)
{
        pid_t pid = fork();
        if (pid == 0) {
                execl("/bin/rm", "rm", "-rf", root, (char *)NULL);
                _exit(127);
        }
        waitpid(pid, NULL, 0);
        return 0;
}

typedef struct ctx {
        agent_config_t cfg;
        char err[1024];
        char res[PATH_MAX];
} ctx_t;

static void cfg_with(ctx_t *c, const char *allow1, const char *allow2)
{
        assert_int_equal(agent_config_defaults(&c->cfg), 0);
        char p[PATH_MAX + 64];
        snprintf(p, sizeof(p), "%s/mnt", root);
        assert_int_equal(strdup_to(&c->cfg.mount_root, p), 0);
        if (allow1) {
                snprintf(p, sizeof(p), "%s/%s", root, allow1);
                assert_int_equal(strv_push(&c->cfg.allow_paths, allow1[0] == '/' ? allow1 : p), 0);
        }
        if (allow2) {
                snprintf(p, sizeof(p), "%s/%s", root, allow2);
                assert_int_equal(strv_push(&c->cfg.allow_paths, allow2[0] == '/' ? allow2 : p), 0);
        }
}

/* policy_resolve_path on root/rel (or rel when absolute). */
static int check(ctx_t *c, const char *rel, int purpose)
{
        char p[PATH_MAX + 64];
        if (rel[0] == '/')
                snprintf(p, sizeof(p), "%s", rel);
        else
                snprintf(p, sizeof(p), "%s/%s", root, rel);
        c->err[0] = 0;
        c->res[0] = 0;
        return policy_resolve_path(&c->cfg, p, purpose, c->res, sizeof(c->res), c->err,
                                   sizeof(c->err));
}

static void assert_res(const ctx_t *c, const char *rel)
{
        char p[PATH_MAX + 64];
        snprintf(p, sizeof(p), "%s/%s", root, rel);
        assert_string_equal(c->res, p);
}

static void test_inside_and_outside(void **state)
{
        ctx_t c = {0};
        cfg_with(&c, "allowed", NULL);
        assert_int_equal(check(&c, "allowed/sub/file", PATH_JOB_FILE), 0);
        assert_res(&c, "allowed/sub/file");
        assert_int_equal(check(&c, "allowed", PATH_EXPORT), 0);
        /* Not existing yet: the rest is kept as given, doubled slashes folded. */
        assert_int_equal(check(&c, "allowed/new//deeper/file/", PATH_JOB_FILE), 0);
        assert_res(&c, "allowed/new/deeper/file");
        /* A symlink that stays inside resolves inside. */
        assert_int_equal(check(&c, "allowed/inner/file", PATH_JOB_FILE), 0);
        assert_res(&c, "allowed/sub/file");
        /* A sibling with the same prefix is outside. */
        assert_int_equal(check(&c, "allowedx", PATH_EXPORT), -EPERM);
        assert_contains(c.err, "outside allow_paths");
        assert_int_equal(check(&c, "outside/secret", PATH_JOB_FILE), -EPERM);
        c.err[0] = 0;
        assert_int_equal(policy_check_path(&c.cfg, "/var/tmp", PATH_MOUNT, c.err, sizeof(c.err)),
                         -EPERM);
        assert_contains(c.err, "mount point '/var/tmp'");
        config_free(&agent_config_schema, &c.cfg);
}

static void test_symlink_escapes(void **state)
{
        ctx_t c = {0};
        cfg_with(&c, "allowed", NULL);
        assert_int_equal(check(&c, "allowed/escape/secret", PATH_JOB_FILE), -EPERM);
        assert_contains(c.err, "resolves to");
        assert_contains(c.err, "/outside/secret");
        assert_int_equal(check(&c, "allowed/escape/not-yet", PATH_JOB_FILE), -EPERM);
        assert_int_equal(check(&c, "allowed/etclink", PATH_EXPORT), -EPERM);
        assert_contains(c.err, "/etc and below");
        assert_int_equal(check(&c, "allowed/etclink/exports.d/x", PATH_JOB_FILE), -EPERM);
        assert_int_equal(check(&c, "allowed/rootlink", PATH_EXPORT), -EPERM);
        assert_contains(c.err, "/ is never allowed");
        /* The allow_paths entry itself may be a symlink: it counts where it points. */
        config_free(&agent_config_schema, &c.cfg);
        cfg_with(&c, "alias", NULL);
        assert_int_equal(check(&c, "allowed/sub/file", PATH_JOB_FILE), 0);
        assert_int_equal(check(&c, "alias/sub", PATH_EXPORT), 0);
        assert_res(&c, "allowed/sub");
        config_free(&agent_config_schema, &c.cfg);
}

static void test_dotdot_and_syntax(void **state)
{
        ctx_t c = {0};
        cfg_with(&c, "allowed", NULL);
        assert_int_equal(check(&c, "allowed/../outside", PATH_JOB_FILE), -EINVAL);
        assert_contains(c.err, "'..'");
        assert_int_equal(check(&c, "allowed/sub/..", PATH_EXPORT), -EINVAL);
        /* Names merely containing dots are fine. */
        assert_int_equal(check(&c, "allowed/..x/...", PATH_JOB_FILE), 0);
        assert_int_equal(policy_check_path(&c.cfg, "relative/path", PATH_JOB_FILE, c.err,
                                           sizeof(c.err)),
                         -EINVAL);
        assert_contains(c.err, "absolute");
        assert_int_equal(policy_check_path(&c.cfg, "", PATH_JOB_FILE, c.err, sizeof(c.err)),
                         -EINVAL);
        assert_int_equal(policy_check_path(&c.cfg, NULL, PATH_JOB_FILE, c.err, sizeof(c.err)),
                         -EINVAL);
        assert_int_equal(check(&c, "allowed", 42), -EINVAL);
        /* A file used as a directory. */
        assert_int_equal(check(&c, "allowed/sub/file/x", PATH_JOB_FILE), -ENOTDIR);
        config_free(&agent_config_schema, &c.cfg);
}

static void test_system_dirs(void **state)
{
        ctx_t c = {0};
        /* Even listed in allow_paths, system directories stay off limits. */
        cfg_with(&c, "/etc", "/usr");
        const char *never[] = {"/", "/etc", "/etc/exports.d", "/proc/sys", "/sys/kernel",
                               "/dev/shm", "/boot", "/usr/share", "/usr/local/new"};
        for (size_t i = 0; i < ELEMENTSOF(never); i++)
                for (int purpose = PATH_EXPORT; purpose <= PATH_MOUNT; purpose++)
                        if (check(&c, never[i], purpose) != -EPERM)
                                fail_msg("%s allowed for purpose %d", never[i], purpose);
        assert_int_equal(check(&c, "/usr/share", PATH_EXPORT), -EPERM);
        assert_contains(c.err, "/usr and below");
        config_free(&agent_config_schema, &c.cfg);

        /* /dev/shm holds job files when allowed (RAM benchmarks), never an export or a mount. */
        memset(&c, 0, sizeof(c));
        cfg_with(&c, "/dev/shm", NULL);
        assert_int_equal(check(&c, "/dev/shm", PATH_JOB_FILE), 0);
        assert_int_equal(check(&c, "/dev/shm", PATH_EXPORT), -EPERM);
        assert_int_equal(check(&c, "/dev/shm", PATH_MOUNT), -EPERM);
        assert_int_equal(check(&c, "/dev/null", PATH_JOB_FILE), -EPERM);
        config_free(&agent_config_schema, &c.cfg);
}

static void test_defaults(void **state)
{
        ctx_t c = {0};
        cfg_with(&c, NULL, NULL);
        char p[PATH_MAX + 64];
        snprintf(p, sizeof(p), "%s/work", root);
        assert_int_equal(strdup_to(&c.cfg.work_dir, p), 0);
        assert_int_equal(check(&c, "work/job.0.0", PATH_JOB_FILE), 0);
        assert_int_equal(check(&c, "mnt/run1", PATH_MOUNT), 0);
        assert_int_equal(check(&c, "allowed/sub/file", PATH_JOB_FILE), -EPERM);
        assert_contains(c.err, "default: work_dir and mount_root");
        /* No work_dir: STATE_DIR/work. */
        free(c.cfg.work_dir);
        c.cfg.work_dir = NULL;
        snprintf(p, sizeof(p), "%s/allowed", root);
        assert_int_equal(strdup_to(&c.cfg.state_dir, p), 0);
        assert_int_equal(check(&c, "allowed/work/f", PATH_JOB_FILE), 0);
        assert_int_equal(check(&c, "allowed/sub/file", PATH_JOB_FILE), -EPERM);
        config_free(&agent_config_schema, &c.cfg);
}

static void test_devices(void **state)
{
        if (geteuid() != 0) {
                fprintf(stderr, "skipped: mknod needs root\n");
                skip();
        }
        char blk[PATH_MAX + 64], chr[PATH_MAX + 64];
        snprintf(blk, sizeof(blk), "%s/allowed/blk", root);
        snprintf(chr, sizeof(chr), "%s/allowed/chr", root);
        assert_int_equal(mknod(blk, S_IFBLK | 0600, makedev(7, 200)), 0);
        assert_int_equal(mknod(chr, S_IFCHR | 0600, makedev(1, 3)), 0);
        ctx_t c = {0};
        cfg_with(&c, "allowed", NULL);
        assert_int_equal(check(&c, "allowed/blk", PATH_JOB_FILE), -EPERM);
        assert_contains(c.err, "allow_block_devices=true");
        c.cfg.allow_block_devices = true;
        assert_int_equal(check(&c, "allowed/blk", PATH_JOB_FILE), 0);
        /* Never as an export or a mount point, and never a character device. */
        assert_int_equal(check(&c, "allowed/blk", PATH_EXPORT), -EPERM);
        assert_int_equal(check(&c, "allowed/blk", PATH_MOUNT), -EPERM);
        assert_int_equal(check(&c, "allowed/chr", PATH_JOB_FILE), -EPERM);
        assert_contains(c.err, "special file");
        config_free(&agent_config_schema, &c.cfg);
        /* A real block device under /dev, when listed and allowed. */
        const char *devs[] = {"/dev/loop0", "/dev/vda", "/dev/sda", "/dev/nvme0n1"};
        for (size_t i = 0; i < ELEMENTSOF(devs); i++) {
                struct stat st;
                if (stat(devs[i], &st) < 0 || !S_ISBLK(st.st_mode))
                        continue;
                cfg_with(&c, devs[i], NULL);
                assert_int_equal(check(&c, devs[i], PATH_JOB_FILE), -EPERM);
                c.cfg.allow_block_devices = true;
                assert_int_equal(check(&c, devs[i], PATH_JOB_FILE), 0);
                assert_int_equal(check(&c, devs[i], PATH_EXPORT), -EPERM);
                config_free(&agent_config_schema, &c.cfg);
                break;
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test_setup_teardown(test_inside_and_outside, setup, teardown),
            cmocka_unit_test_setup_teardown(test_symlink_escapes, setup, teardown),
            cmocka_unit_test_setup_teardown(test_dotdot_and_syntax, setup, teardown),
            cmocka_unit_test_setup_teardown(test_system_dirs, setup, teardown),
            cmocka_unit_test_setup_teardown(test_defaults, setup, teardown),
            cmocka_unit_test_setup_teardown(test_devices, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
