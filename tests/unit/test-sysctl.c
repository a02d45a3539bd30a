/* Unit tests for sysctls: name and value checks, apply/read back/restore against a scratch
 * root, and for real in a network namespace the test creates (per-netns net.* settings). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kv.h"
#include "restore.h"
#include "sysctl-name.h"
#include "sysctl.h"
#include "util.h"

#define assert_contains(hay, needle)                                                               \
        do {                                                                                       \
                if (!strstr((hay), (needle)))                                                      \
                        fail_msg("'%s' does not mention '%s'", (hay), (needle));                   \
        } while (0)

static char scratch[64];

static int setup(void **state)
{
        strcpy(scratch, "/tmp/test-sysctl.XXXXXX");
        return mkdtemp(scratch) ? 0 : -1;
}

static int teardown(void **state)
{
        pid_t pid = fork();
        if (pid == 0) {
                execl("/bin/rm", "rm", "-rf", scratch, (char *)NULL);
                _exit(127);
        }
        waitpid(pid, NULL, 0);
        return 0;
}

static void test_names(void **state)
{
        char err[256];
        const char *good[] = {"net.core.somaxconn", "net.ipv4.tcp_rmem", "vm.dirty_ratio",
                              "sunrpc.tcp_slot_table_entries", "fs.nfs.nfs_congestion_kb",
                              "net/ipv4/conf/eth0.100/rp_filter", "net/ipv4/conf/veth-A1/forwarding"};
        for (size_t i = 0; i < ELEMENTSOF(good); i++) {
                err[0] = 0;
                if (sysctl_name_check(good[i], err, sizeof(err)) != 0)
                        fail_msg("%s refused: %s", good[i], err);
        }
        struct {
                const char *name, *says;
                int r;
        } bad[] = {
            {"", "1-255", -EINVAL},
            {".net.core.x", "only net.*", -EPERM},
            {"/proc/sys/net/core/somaxconn", "only net.*", -EPERM},
            {"net..core", "empty component", -EINVAL},
            {"net.core.", "empty component", -EINVAL},
            {"net.Core.x", "'C' not allowed", -EINVAL},
            {"net.core.some-thing", "'-' not allowed", -EINVAL},
            {"net/../../etc/passwd", "'..'", -EINVAL},
            {"net/./core", "'..'", -EINVAL},
            {"net/core/a b", "' ' not allowed", -EINVAL},
            {"kernel.core_pattern", "only net.*", -EPERM},
            {"kernel/modprobe", "only net.*", -EPERM},
            {"network.x", "only net.*", -EPERM},
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                err[0] = 0;
                int r = sysctl_name_check(bad[i].name, err, sizeof(err));
                if (r != bad[i].r)
                        fail_msg("'%s': got %d (%s), want %d", bad[i].name, r, err, bad[i].r);
                assert_contains(err, bad[i].says);
        }
        char path[300];
        assert_int_equal(sysctl_name_to_path("net.ipv4.tcp_rmem", path, sizeof(path)), 0);
        assert_string_equal(path, "net/ipv4/tcp_rmem");
        assert_int_equal(sysctl_name_to_path("net/ipv4/conf/eth0.100/rp_filter", path,
                                             sizeof(path)),
                         0);
        assert_string_equal(path, "net/ipv4/conf/eth0.100/rp_filter");
        assert_int_equal(sysctl_name_to_path("net.core.somaxconn", path, 10), -ENAMETOOLONG);
        assert_int_equal(sysctl_name_to_path("kernel.x", path, sizeof(path)), -EINVAL);
}

static void test_values_and_settings(void **state)
{
        char err[256];
        assert_int_equal(sysctl_value_check("4096 131072\t6291456", err, sizeof(err)), 0);
        assert_int_equal(sysctl_value_check("", err, sizeof(err)), -EINVAL);
        assert_int_equal(sysctl_value_check("1\n2", err, sizeof(err)), -EINVAL);
        assert_contains(err, "0x0a");
        char big[SYSCTL_VALUE_MAX + 2];
        memset(big, '1', sizeof(big) - 1);
        big[sizeof(big) - 1] = 0;
        assert_int_equal(sysctl_value_check(big, err, sizeof(err)), -EINVAL);

        kvlist_t s = {0};
        assert_int_equal(kv_push(&s, "net.core.somaxconn", "1024", 3), 0);
        assert_int_equal(kv_push(&s, "vm.swappiness", "10", 4), 0);
        assert_int_equal(sysctl_check(&s, err, sizeof(err)), 0);
        assert_int_equal(kv_push(&s, "net/core/somaxconn", "2048", 7), 0);
        assert_int_equal(sysctl_check(&s, err, sizeof(err)), -EINVAL);
        assert_contains(err, "twice (lines 3 and 7)");
        kv_clear(&s);
        assert_int_equal(kv_push(&s, "kernel.core_pattern", "|/tmp/x", 9), 0);
        assert_int_equal(sysctl_check(&s, err, sizeof(err)), -EPERM);
        assert_contains(err, "line 9");
        kv_clear(&s);
}

static void put(const char *root, const char *rel, const char *content)
{
        char path[512];
        snprintf(path, sizeof(path), "%s/%s", root, rel);
        char *slash = strrchr(path, '/');
        *slash = 0;
        assert_int_equal(mkdir_p(path, 0755), 0);
        *slash = '/';
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, content, strlen(content)), (ssize_t)strlen(content));
        close(fd);
}

static void expect(const char *root, const char *rel, const char *content)
{
        char path[512], buf[256];
        snprintf(path, sizeof(path), "%s/%s", root, rel);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        assert_true(fd >= 0);
        ssize_t n = read(fd, buf, sizeof(buf) - 1);
        close(fd);
        assert_true(n >= 0);
        buf[n] = 0;
        assert_string_equal(buf, content);
}

static void test_scratch_apply_restore(void **state)
{
        char root[128], sdir[128], err[512];
        snprintf(root, sizeof(root), "%s/sys", scratch);
        snprintf(sdir, sizeof(sdir), "%s/state", scratch);
        put(root, "net/core/somaxconn", "4096\n");
        put(root, "net/ipv4/tcp_rmem", "4096\t131072\t6291456\n");
        restore_t *r = NULL;
        assert_int_equal(restore_open(sdir, &r), 0);
        kvlist_t s = {0}, eff = {0};
        assert_int_equal(kv_push(&s, "net.core.somaxconn", "1024", 1), 0);
        assert_int_equal(kv_push(&s, "net/ipv4/tcp_rmem", "4096 87380 3000000", 2), 0);
        assert_int_equal(sysctl_apply(root, r, &s, &eff, err, sizeof(err)), 0);
        expect(root, "net/core/somaxconn", "1024\n");
        assert_string_equal(kv_get(&eff, "net.core.somaxconn"), "1024");
        assert_string_equal(kv_get(&eff, "net/ipv4/tcp_rmem"), "4096 87380 3000000");
        assert_int_equal(restore_apply(r, err, sizeof(err)), 0);
        expect(root, "net/core/somaxconn", "4096\n");
        expect(root, "net/ipv4/tcp_rmem", "4096\t131072\t6291456\n");

        /* A setting this kernel does not have: named, and nothing was changed. */
        kv_clear(&s);
        assert_int_equal(kv_push(&s, "net.core.no_such_knob", "1", 5), 0);
        assert_int_equal(sysctl_apply(root, r, &s, &eff, err, sizeof(err)), -ENOENT);
        assert_contains(err, "net.core.no_such_knob");
        assert_false(restore_pending(r));
        /* Checked before anything is written. */
        kv_clear(&s);
        assert_int_equal(kv_push(&s, "net.core.somaxconn", "1", 1), 0);
        assert_int_equal(kv_push(&s, "kernel.modprobe", "/tmp/x", 2), 0);
        assert_int_equal(sysctl_apply(root, r, &s, &eff, err, sizeof(err)), -EPERM);
        expect(root, "net/core/somaxconn", "4096\n");
        assert_int_equal(sysctl_apply("relative", r, &s, &eff, err, sizeof(err)), -EINVAL);
        assert_false(restore_pending(r));
        kv_clear(&s);
        kv_clear(&eff);
        restore_close(&r);
}

static int read_sys(const char *rel, char *buf, size_t len)
{
        char path[256];
        snprintf(path, sizeof(path), "/proc/sys/%s", rel);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        ssize_t n = read(fd, buf, len - 1);
        close(fd);
        if (n < 0)
                return -errno;
        buf[n] = 0;
        return 0;
}

/* In a fresh network namespace: apply, check what the kernel reports, restore the exact old
 * text. Exit codes tell the parent which step failed. */
static int netns_child(void)
{
        if (unshare(CLONE_NEWNET) < 0)
                return 77;
        char sdir[128], err[512], old_max[64], old_rmem[128], now[128];
        snprintf(sdir, sizeof(sdir), "%s/netns-state", scratch);
        if (read_sys("net/core/somaxconn", old_max, sizeof(old_max)) < 0 ||
            read_sys("net/ipv4/tcp_rmem", old_rmem, sizeof(old_rmem)) < 0)
                return 10;
        long want = strtol(old_max, NULL, 10) + 7;
        char wants[32];
        snprintf(wants, sizeof(wants), "%ld", want);
        restore_t *r = NULL;
        if (restore_open(sdir, &r) < 0)
                return 11;
        kvlist_t s = {0}, eff = {0};
        kv_push(&s, "net.core.somaxconn", wants, 1);
        /* Spaces in, tabs out: the kernel reformats. */
        kv_push(&s, "net.ipv4.tcp_rmem", "4096   87380 3000000", 2);
        if (sysctl_apply("/proc/sys", r, &s, &eff, err, sizeof(err)) < 0) {
                fprintf(stderr, "apply: %s\n", err);
                return 12;
        }
        if (!streq(kv_get(&eff, "net.core.somaxconn"), wants) ||
            !streq(kv_get(&eff, "net.ipv4.tcp_rmem"), "4096\t87380\t3000000")) {
                fprintf(stderr, "effective: '%s' '%s'\n", kv_get(&eff, "net.core.somaxconn"),
                        kv_get(&eff, "net.ipv4.tcp_rmem"));
                return 13;
        }
        if (read_sys("net/core/somaxconn", now, sizeof(now)) < 0 || strtol(now, NULL, 10) != want)
                return 14;
        if (restore_apply(r, err, sizeof(err)) < 0) {
                fprintf(stderr, "restore: %s\n", err);
                return 15;
        }
        if (read_sys("net/core/somaxconn", now, sizeof(now)) < 0 || !streq(now, old_max))
                return 16;
        if (read_sys("net/ipv4/tcp_rmem", now, sizeof(now)) < 0 || !streq(now, old_rmem))
                return 17;
        kv_clear(&s);
        kv_clear(&eff);
        restore_close(&r);
        return 0;
}

static void test_real_netns(void **state)
{
        if (geteuid() != 0)
                skip();
        char host_before[64], host_after[64];
        assert_int_equal(read_sys("net/core/somaxconn", host_before, sizeof(host_before)), 0);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0)
                _exit(netns_child());
        int ws;
        assert_int_equal(waitpid(pid, &ws, 0), pid);
        assert_true(WIFEXITED(ws));
        if (WEXITSTATUS(ws) == 77) {
                fprintf(stderr, "skipped: unshare(CLONE_NEWNET) not permitted here\n");
                skip();
        }
        assert_int_equal(WEXITSTATUS(ws), 0);
        /* The host's own namespace was never touched. */
        assert_int_equal(read_sys("net/core/somaxconn", host_after, sizeof(host_after)), 0);
        assert_string_equal(host_before, host_after);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_names),
            cmocka_unit_test(test_values_and_settings),
            cmocka_unit_test_setup_teardown(test_scratch_apply_restore, setup, teardown),
            cmocka_unit_test_setup_teardown(test_real_netns, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
