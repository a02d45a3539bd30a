/* Tests for the kernel nfsd backend: nfs.conf edits on Debian's real file (checked with nfsconf),
 * a real export through exportfs and /etc/exports.d, exportfs's own errors, and the restore
 * record replayed byte-identical, also after the applying process was SIGKILLed. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent-config.h"
#include "helper.h"
#include "nfs-server.h"
#include "nfs-settings.h"
#include "util.h"

#define assert_contains(hay, needle)                                                               \
        do {                                                                                       \
                if (!strstr((hay), (needle)))                                                      \
                        fail_msg("'%s' does not mention '%s'", (hay), (needle));                   \
        } while (0)

#define EXPORTFS "/usr/sbin/exportfs"
#define EXPORTS_DIR "/etc/exports.d"

typedef struct fx {
        char dir[256];
        char conf[320];
        char export[320];
        char state[320];
        bool made_exports_dir; /* by the test itself, for a file of its own */
        bool had_exports_dir;
        agent_config_t cfg;
} fx_t;

static char *slurp(const char *path, size_t *len)
{
        char *d = NULL;
        return nfs_read_file(path, &d, len) == 0 ? d : NULL;
}

static void put(const char *path, const char *data)
{
        assert_int_equal(write_file_atomic(path, data, strlen(data), 0644), 0);
}

static bool exportfs_lists(const char *path)
{
        const char *argv[] = {EXPORTFS, "-v", NULL};
        char out[16384];
        int st;
        assert_int_equal(helper_run(argv, 30000, out, sizeof(out), &st), 0);
        assert_int_equal(st, 0);
        size_t pl = strlen(path);
        for (const char *l = out; l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
                if (strncmp(l, path, pl) == 0 && (l[pl] == ' ' || l[pl] == '\t' || l[pl] == '\n'))
                        return true;
        return false;
}

static int setup(void **state)
{
        fx_t *f = calloc(1, sizeof(*f));
        /* TMPDIR: where exports must be on a file system knfsd exports (tests/vm: /srv). */
        const char *tmp = getenv("TMPDIR");
        snprintf(f->dir, sizeof(f->dir), "%s/test-nfs-kernel.XXXXXX", tmp && *tmp ? tmp : "/tmp");
        assert_non_null(mkdtemp(f->dir));
        snprintf(f->conf, sizeof(f->conf), "%s/nfs.conf", f->dir);
        snprintf(f->export, sizeof(f->export), "%s/export", f->dir);
        snprintf(f->state, sizeof(f->state), "%s/state", f->dir);
        assert_int_equal(mkdir(f->export, 0755), 0);
        assert_int_equal(agent_config_defaults(&f->cfg), 0);
        assert_int_equal(strdup_to(&f->cfg.nfs_conf, f->conf), 0);
        assert_int_equal(strdup_to(&f->cfg.state_dir, f->state), 0);
        assert_int_equal(strdup_to(&f->cfg.nfs_backend, "kernel"), 0);
        *state = f;
        return 0;
}

static int teardown(void **state)
{
        fx_t *f = *state;
        /* a test that failed half-way leaves its record: put the host back */
        restore_t *r = NULL;
        if (restore_open(f->state, &r) == 0) {
                char err[512];
                if (restore_pending(r) && (nfs_backends_register(&f->cfg, r) < 0 ||
                                           restore_apply(r, err, sizeof(err)) < 0))
                        print_message("teardown: restore: %s\n", err);
                restore_close(&r);
        }
        const char *argv[] = {"/bin/rm", "-rf", f->dir, NULL};
        helper_run(argv, 30000, NULL, 0, NULL);
        if (f->made_exports_dir)
                rmdir(EXPORTS_DIR);
        config_free(&agent_config_schema, &f->cfg);
        free(f);
        return 0;
}

/* Root, exportfs, and no real iofleet.exports in the way; else skip with why. */
static bool can_export(fx_t *f)
{
        if (geteuid() != 0) {
                print_message("skipped: needs root to write " EXPORTS_DIR "\n");
                return false;
        }
        if (access(EXPORTFS, X_OK) < 0) {
                print_message("skipped: " EXPORTFS " is not installed (nfs-kernel-server)\n");
                return false;
        }
        if (access(EXPORTS_DIR "/iofleet.exports", F_OK) == 0) {
                print_message("skipped: " EXPORTS_DIR "/iofleet.exports exists (a real "
                              "deployment's); not touching it\n");
                return false;
        }
        /* Debian ships no exports.d: the agent makes it for a step and removes it after. */
        f->had_exports_dir = access(EXPORTS_DIR, F_OK) == 0;
        return true;
}

/* Debian's real nfs.conf: only the [nfsd] lines change, and nfsconf reads what we set. */
static void test_debian_conf(void **state)
{
        size_t len;
        char *orig = slurp("/etc/nfs.conf", &len);
        if (!orig) {
                print_message("skipped: no /etc/nfs.conf\n");
                skip();
        }
        kvlist_t keys = {0};
        nfs_export_t e;
        kvlist_t s = {0};
        kv_push(&s, "path", "/x", 1);
        kv_push(&s, "threads", "160", 2);
        kv_push(&s, "versions", "3,4.2", 3);
        char err[256];
        assert_int_equal(nfs_settings_parse("kernel", &s, &e, err, sizeof(err)), 0);
        assert_int_equal(nfs_render_nfsd_conf(&e, &keys), 0);
        char *out;
        size_t outlen;
        bool ch;
        assert_int_equal(nfs_conf_edit(orig, len, "nfsd", &keys, &out, &outlen, &ch), 0);
        assert_true(ch);
        /* The output is the input with 6 lines inserted right after "[nfsd]". */
        const char *hdr = strstr(orig, "\n[nfsd]\n");
        assert_non_null(hdr);
        size_t pre = (size_t)(hdr - orig) + strlen("\n[nfsd]\n");
        const char *ins = "threads=160\nvers3=y\nvers4=y\nvers4.0=n\nvers4.1=n\nvers4.2=y\n";
        assert_int_equal(outlen, len + strlen(ins));
        assert_memory_equal(out, orig, pre);
        assert_memory_equal(out + pre, ins, strlen(ins));
        assert_memory_equal(out + pre + strlen(ins), orig + pre, len - pre);

        /* nfs-utils' own parser agrees */
        fx_t *f = *state;
        put(f->conf, out);
        if (access("/usr/sbin/nfsconf", X_OK) == 0) {
                const char *argv[] = {"/usr/sbin/nfsconf", "--file", f->conf, "--get", "nfsd",
                                      "threads", NULL};
                char o[256];
                int st;
                assert_int_equal(helper_run(argv, 10000, o, sizeof(o), &st), 0);
                assert_int_equal(st, 0);
                assert_string_equal(o, "160\n");
                const char *argv2[] = {"/usr/sbin/nfsconf", "--file", f->conf, "--get", "nfsd",
                                       "vers4.1", NULL};
                assert_int_equal(helper_run(argv2, 10000, o, sizeof(o), &st), 0);
                assert_string_equal(o, "n\n");
                const char *argv3[] = {"/usr/sbin/nfsconf", "--file", f->conf, "--get", "mountd",
                                       "manage-gids", NULL};
                assert_int_equal(helper_run(argv3, 10000, o, sizeof(o), &st), 0);
                assert_string_equal(o, "y\n");
        }
        /* editing again with other values rewrites in place, size changes only by the digits */
        char *out2;
        size_t out2len;
        kv_set(&keys, "threads", "8");
        assert_int_equal(nfs_conf_edit(out, outlen, "nfsd", &keys, &out2, &out2len, &ch), 0);
        assert_true(ch);
        assert_int_equal(out2len, outlen - 2);
        assert_non_null(strstr(out2, "\n[nfsd]\nthreads=8\nvers3=y\n"));
        free(out2);
        free(out);
        free(orig);
        kv_clear(&keys);
        kv_clear(&s);
}

static int apply(fx_t *f, restore_t *r, const char *const *kvs, kvlist_t *eff, char *err,
                 size_t errlen)
{
        kvlist_t s = {0};
        for (int i = 0; kvs[i]; i += 2)
                kv_push(&s, kvs[i], kvs[i + 1], 0);
        int ret = nfs_backend_find("kernel")->apply(&f->cfg, r, &s, eff, err, errlen);
        kv_clear(&s);
        return ret;
}

static const char odd_conf[] = "# odd: no [nfsd] at all, CRLF, no final newline\r\n"
                               "[mountd]\r\nthreads=4\r\n# threads=8";

/* Apply for real (exportfs reads /etc/exports.d), then restore byte-identical. */
static void test_apply_restore(void **state)
{
        fx_t *f = *state;
        if (!can_export(f))
                skip();
        for (int round = 0; round < 2; round++) {
                size_t olen;
                if (round == 0) {
                        char *deb = slurp("/etc/nfs.conf", &olen);
                        put(f->conf, deb ? deb : "[nfsd]\n# threads=8\n");
                        free(deb);
                } else
                        put(f->conf, odd_conf);
                char *orig = slurp(f->conf, &olen);
                chmod(f->conf, 0640);

                restore_t *r = NULL;
                assert_int_equal(restore_open(f->state, &r), 0);
                assert_int_equal(nfs_backends_register(&f->cfg, r), 0);
                kvlist_t eff = {0};
                char err[1024] = "";
                const char *kvs[] = {"path", f->export, "no_root_squash", "", "sync", "true",
                                     "threads", "32", "versions", "3,4.2", NULL};
                int ret = apply(f, r, kvs, &eff, err, sizeof(err));
                if (ret < 0)
                        fail_msg("apply: %s", err);
                char want[256];
                snprintf(want, sizeof(want), "%s ", f->export);
                assert_contains(kv_get(&eff, "export"), want);
                assert_contains(kv_get(&eff, "export"), "no_root_squash");
                assert_contains(kv_get(&eff, "export"), "sync");
                assert_string_equal(kv_get(&eff, "nfs.conf nfsd.threads"), "32");
                assert_non_null(kv_get(&eff, "service"));
                if (access("/run/dbus/system_bus_socket", F_OK) < 0)
                        assert_contains(kv_get(&eff, "service"), "not restarted: no system bus");
                assert_true(exportfs_lists(f->export));
                char *now = slurp(f->conf, NULL);
                assert_contains(now, round == 0 ? "\n[nfsd]\nthreads=32\n" : "# threads=8\r\n[nfsd]\r\nthreads=32\r\n");
                free(now);
                char *exp = slurp(EXPORTS_DIR "/iofleet.exports", NULL);
                assert_non_null(exp);
                assert_contains(exp, "(rw,sync,no_root_squash,no_subtree_check)");
                free(exp);
                assert_true(restore_pending(r));

                /* a second apply in the same step keeps the first originals */
                kv_clear(&eff);
                const char *kvs2[] = {"path", f->export, "async", "", "threads", "64", NULL};
                ret = apply(f, r, kvs2, &eff, err, sizeof(err));
                if (ret < 0)
                        fail_msg("apply 2: %s", err);
                assert_contains(kv_get(&eff, "export"), "async");

                ret = restore_apply(r, err, sizeof(err));
                if (ret < 0)
                        fail_msg("restore: %s", err);
                size_t nlen;
                char *back = slurp(f->conf, &nlen);
                assert_int_equal(nlen, olen);
                assert_memory_equal(back, orig, olen);
                struct stat st;
                assert_int_equal(stat(f->conf, &st), 0);
                assert_int_equal(st.st_mode & 07777, 0640);
                assert_int_equal(access(EXPORTS_DIR "/iofleet.exports", F_OK), -1);
                assert_int_equal(access(EXPORTS_DIR, F_OK) == 0, f->had_exports_dir);
                assert_false(exportfs_lists(f->export));
                assert_false(restore_pending(r));
                free(back);
                free(orig);
                kv_clear(&eff);
                restore_close(&r);
        }
}

/* Where systemd runs nfs-server.service and a kernel nfsd exists (tests/vm runs this in a
 * guest): threads changed in the real /etc/nfs.conf restart the unit over D-Bus, and
 * /proc/fs/nfsd/threads reads back what was asked; nfs.conf is put back byte-identical. The
 * export must be on a file system knfsd exports: IOFLEET_TEST_NFS_EXPORT=ADDR:/PATH names one
 * (else the scratch directory). Reported as skipped where they do not exist (containers). */
static void test_systemd_restart(void **state)
{
        fx_t *f = *state;
        char why[256] = "";
        if (!nfs_systemd_available(why, sizeof(why))) {
                print_message("skipped: nfs-server.service restart over sd-bus needs systemd as "
                              "PID 1: %s\n",
                              why);
                skip();
        }
        if (access("/proc/fs/nfsd/threads", F_OK) < 0) {
                print_message("skipped: no kernel nfsd (/proc/fs/nfsd/threads)\n");
                skip();
        }
        if (!can_export(f))
                skip();
        restore_t *r = NULL;
        kvlist_t eff = {0};
        char err[1024] = "";
        const char *env = getenv("IOFLEET_TEST_NFS_EXPORT");
        const char *path = env && strchr(env, ':') ? strchr(env, ':') + 1 : f->export;
        const char *kvs[] = {"path", path, "threads", "17", NULL};
        size_t olen;
        char *orig = slurp("/etc/nfs.conf", &olen);
        assert_non_null(orig);
        assert_int_equal(strdup_to(&f->cfg.nfs_conf, "/etc/nfs.conf"), 0);
        assert_int_equal(restore_open(f->state, &r), 0);
        assert_int_equal(nfs_backends_register(&f->cfg, r), 0);
        if (apply(f, r, kvs, &eff, err, sizeof(err)) < 0)
                fail_msg("apply: %s", err);
        assert_string_equal(kv_get(&eff, "service"), "restarted nfs-server.service");
        assert_string_equal(kv_get(&eff, "threads"), "17");
        if (restore_apply(r, err, sizeof(err)) < 0)
                fail_msg("restore: %s", err);
        size_t nlen;
        char *back = slurp("/etc/nfs.conf", &nlen);
        assert_int_equal(nlen, olen);
        assert_memory_equal(back, orig, olen);
        free(back);
        free(orig);
        kv_clear(&eff);
        restore_close(&r);
}

/* systemd refuses a unit started more than StartLimitBurst times in StartLimitIntervalSec (5 in
 * 10 s by default; a sweep's put-back and configure, point after point, come close, and
 * test_apply_restore's six restarts in a row hit it in a guest once). With a drop-in lowering the
 * burst to 2, the third and fourth restarts hit it: each must still leave nfs-server running
 * (its failed state reset, restarted once more). The drop-in goes in /run, removed after. */
#define LIMIT_DROPIN_DIR "/run/systemd/system/nfs-server.service.d"
#define LIMIT_DROPIN LIMIT_DROPIN_DIR "/zz-iofleet-test-start-limit.conf"

static void test_start_limit(void **state)
{
        char why[256] = "", err[1024] = "";
        bool active = false;
        (void)state;
        if (!nfs_systemd_available(why, sizeof(why))) {
                print_message("skipped: systemd's start limit needs systemd as PID 1: %s\n", why);
                skip();
        }
        if (access("/proc/fs/nfsd/threads", F_OK) < 0 ||
            nfs_systemd_unit_active("nfs-server.service", &active, err, sizeof(err)) < 0 ||
            !active) {
                print_message("skipped: no kernel nfsd, or nfs-server.service not running\n");
                skip();
        }
        static const char dropin[] = "[Unit]\nStartLimitIntervalSec=120\nStartLimitBurst=2\n";
        assert_int_equal(mkdir_p(LIMIT_DROPIN_DIR, 0755), 0);
        assert_int_equal(write_file_atomic(LIMIT_DROPIN, dropin, sizeof(dropin) - 1, 0644), 0);
        assert_int_equal(system("systemctl daemon-reload"), 0);
        int failed = -1;
        for (int i = 0; i < 4; i++)
                if (nfs_systemd_unit_do("nfs-server.service", "restart", err, sizeof(err)) < 0 &&
                    failed < 0)
                        failed = i;
        unlink(LIMIT_DROPIN);
        rmdir(LIMIT_DROPIN_DIR);
        assert_int_equal(
            system("systemctl daemon-reload && systemctl reset-failed nfs-server.service"), 0);
        if (failed >= 0)
                fail_msg("restart %d of 4: %s", failed + 1, err);
        assert_int_equal(nfs_systemd_unit_active("nfs-server.service", &active, err, sizeof(err)),
                         0);
        assert_true(active);
}

/* exportfs's own message comes back: a missing path, an unknown keyword in another file. */
static void test_exportfs_errors(void **state)
{
        fx_t *f = *state;
        if (!can_export(f))
                skip();
        put(f->conf, "[nfsd]\n");
        restore_t *r = NULL;
        assert_int_equal(restore_open(f->state, &r), 0);
        assert_int_equal(nfs_backends_register(&f->cfg, r), 0);
        kvlist_t eff = {0};
        char err[1024] = "", missing[160];
        snprintf(missing, sizeof(missing), "%s/does-not-exist", f->dir);
        const char *kvs[] = {"path", missing, NULL};
        assert_int_equal(apply(f, r, kvs, &eff, err, sizeof(err)), -EIO);
        assert_contains(err, "exportfs -ra failed");
        assert_contains(err, "Failed to stat");
        assert_int_equal(restore_apply(r, err, sizeof(err)), 0);
        assert_int_equal(access(EXPORTS_DIR "/iofleet.exports", F_OK), -1);

        /* a bad keyword (written by hand: the settings check would refuse it) */
        char bad[128];
        snprintf(bad, sizeof(bad), EXPORTS_DIR "/iofleet-test-%d.exports", (int)getpid());
        char line[256];
        snprintf(line, sizeof(line), "%s *(rw,bogus_keyword)\n", f->export);
        if (access(EXPORTS_DIR, F_OK) < 0) {
                assert_int_equal(mkdir(EXPORTS_DIR, 0755), 0);
                f->made_exports_dir = true;
        }
        put(bad, line);
        const char *kvs2[] = {"path", f->export, NULL};
        int ret = apply(f, r, kvs2, &eff, err, sizeof(err));
        unlink(bad);
        assert_int_equal(ret, -EIO);
        assert_contains(err, "unknown keyword");
        assert_int_equal(restore_apply(r, err, sizeof(err)), 0);
        assert_false(exportfs_lists(f->export));
        kv_clear(&eff);
        restore_close(&r);
}

/* The applying process dies by SIGKILL; a fresh start replays its record. */
static void test_crash_restore(void **state)
{
        fx_t *f = *state;
        if (!can_export(f))
                skip();
        put(f->conf, odd_conf);
        size_t olen;
        char *orig = slurp(f->conf, &olen);
        int p[2];
        assert_int_equal(pipe2(p, O_CLOEXEC), 0);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                restore_t *r = NULL;
                if (restore_open(f->state, &r) < 0)
                        _exit(2);
                kvlist_t eff = {0};
                char err[1024];
                const char *kvs[] = {"path", f->export, "threads", "99", "ro", "", NULL};
                int ret = apply(f, r, kvs, &eff, err, sizeof(err));
                char c = ret == 0 ? 'y' : 'n';
                if (write(p[1], &c, 1) != 1)
                        _exit(3);
                for (;;)
                        pause();
        }
        close(p[1]);
        char c = 0;
        assert_int_equal(read(p[0], &c, 1), 1);
        close(p[0]);
        assert_int_equal(c, 'y');
        kill(pid, SIGKILL);
        int ws;
        assert_int_equal(waitpid(pid, &ws, 0), pid);
        assert_true(WIFSIGNALED(ws));
        assert_true(exportfs_lists(f->export));
        char *mid = slurp(f->conf, NULL);
        assert_contains(mid, "threads=99");
        free(mid);

        restore_t *r = NULL;
        assert_int_equal(restore_open(f->state, &r), 0);
        assert_true(restore_pending(r));
        assert_int_equal(nfs_backends_register(&f->cfg, r), 0);
        char err[1024] = "";
        if (restore_apply(r, err, sizeof(err)) < 0)
                fail_msg("restore: %s", err);
        size_t nlen;
        char *back = slurp(f->conf, &nlen);
        assert_int_equal(nlen, olen);
        assert_memory_equal(back, orig, olen);
        assert_int_equal(access(EXPORTS_DIR "/iofleet.exports", F_OK), -1);
        assert_false(exportfs_lists(f->export));
        free(back);
        free(orig);
        restore_close(&r);
}

static void test_find(void **state)
{
        assert_non_null(nfs_backend_find("kernel"));
        assert_non_null(nfs_backend_find("ganesha"));
        assert_null(nfs_backend_find("none"));
        assert_null(nfs_backend_find(NULL));
        fx_t *f = *state;
        const restore_service_ops_t *ops = nfs_backend_find("kernel")->service(&f->cfg);
        assert_string_equal(ops->kind, "kernel");
        /* settings errors come back before anything is touched */
        restore_t *r = NULL;
        assert_int_equal(restore_open(f->state, &r), 0);
        kvlist_t eff = {0};
        char err[256];
        const char *kvs[] = {"path", "/x", "nfs_commit", "true", NULL};
        assert_int_equal(apply(f, r, kvs, &eff, err, sizeof(err)), -EINVAL);
        assert_contains(err, "nfs_commit: the kernel has no");
        assert_false(restore_pending(r));
        restore_close(&r);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test_setup_teardown(test_find, setup, teardown),
            cmocka_unit_test_setup_teardown(test_debian_conf, setup, teardown),
            cmocka_unit_test_setup_teardown(test_apply_restore, setup, teardown),
            cmocka_unit_test_setup_teardown(test_exportfs_errors, setup, teardown),
            cmocka_unit_test_setup_teardown(test_crash_restore, setup, teardown),
            cmocka_unit_test_setup_teardown(test_systemd_restart, setup, teardown),
            cmocka_unit_test_setup_teardown(test_start_limit, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
