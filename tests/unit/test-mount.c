/* Unit tests for client mounts: option checks and rendering after nfs(5), mountinfo parsing
 * (escapes, optional fields, NFS lines), mount point refusals, and the whole mount, read-back
 * and unmount path for real with tmpfs in a private mount namespace. */
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
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent-config.h"
#include "kv.h"
#include "mount-options.h"
#include "mount.h"
#include "mountinfo.h"
#include "restore.h"
#include "util.h"

#define assert_contains(hay, needle)                                                               \
        do {                                                                                       \
                if (!strstr((hay), (needle)))                                                      \
                        fail_msg("'%s' does not mention '%s'", (hay), (needle));                   \
        } while (0)

/* ---- options ---- */

static int render(const char *const *kv, char *buf, size_t len, char *err, size_t errlen)
{
        kvlist_t l = {0};
        for (size_t i = 0; kv[i]; i += 2)
                kv_push(&l, kv[i], kv[i + 1], (int)i / 2 + 1);
        int r = mount_options_render(&l, buf, len, err, errlen);
        int c = mount_options_check(&l, NULL, 0);
        kv_clear(&l);
        if (r != -ENAMETOOLONG)
                assert_int_equal(r < 0, c < 0); /* check and render agree */
        return r;
}

static void test_options_render(void **state)
{
        char buf[MOUNT_OPTIONS_MAX], err[256];
        const char *a[] = {"vers", "4.2", "rsize", "1m", "wsize", "65536", "nconnect", "8",
                           "proto", "tcp", "hard", "", "timeo", "600", "retrans", "2",
                           "noatime", "yes", "nolock", "no", "actimeo", "0", "sec", "krb5:sys",
                           "options", "lookupcache=none,nocto,local_lock=none,fsc", NULL};
        assert_int_equal(render(a, buf, sizeof(buf), err, sizeof(err)), 0);
        assert_string_equal(buf, "vers=4.2,rsize=1048576,wsize=65536,nconnect=8,proto=tcp,hard,"
                                 "timeo=600,retrans=2,noatime,actimeo=0,sec=krb5:sys,"
                                 "lookupcache=none,nocto,local_lock=none,fsc");
        const char *b[] = {"vers", "3", "proto", "udp", "soft", "true", "rsize", "32k",
                           "options", "mountport=20048,port=2049,foo_bar=X-1.2", NULL};
        assert_int_equal(render(b, buf, sizeof(buf), err, sizeof(err)), 0);
        assert_string_equal(buf, "vers=3,proto=udp,soft,rsize=32768,mountport=20048,port=2049,"
                                 "foo_bar=X-1.2");
        const char *empty[] = {NULL};
        assert_int_equal(render(empty, buf, sizeof(buf), err, sizeof(err)), 0);
        assert_string_equal(buf, "");
        assert_int_equal(render(a, buf, 20, err, sizeof(err)), -ENAMETOOLONG);
}

static void test_options_errors(void **state)
{
        char buf[MOUNT_OPTIONS_MAX], err[256];
        struct {
                const char *k, *v, *k2, *v2, *says;
        } bad[] = {
            {"vers", "5", NULL, NULL, "vers: '5'; one of 3|4|4.0|4.1|4.2"},
            {"vers", "", NULL, NULL, "vers"},
            {"rsize", "1000", NULL, NULL, "4096..1048576"},
            {"rsize", "4097", NULL, NULL, "multiples of 1024"},
            {"wsize", "2m", NULL, NULL, "wsize"},
            {"wsize", "-4096", NULL, NULL, "wsize"},
            {"rsize", "4k4", NULL, NULL, "rsize"},
            {"nconnect", "0", NULL, NULL, "nconnect: '0'; 1..16"},
            {"nconnect", "17", NULL, NULL, "1..16"},
            {"nconnect", "99999999999999999999999", NULL, NULL, "1..16"},
            {"proto", "sctp", NULL, NULL, "tcp|udp|rdma"},
            {"hard", "maybe", NULL, NULL, "yes or no"},
            {"sec", "krb5:bogus", NULL, NULL, "sec"},
            {"sec", "sys:", NULL, NULL, "sec"},
            {"clientaddr", "10.0.0.1;x", NULL, NULL, "address"},
            {"bogus", "1", NULL, NULL, "bogus: not an NFS mount option"},
            {"hard", "", "soft", "", "hard and soft contradict"},
            {"vers", "4.1", "proto", "udp", "NFSv4 runs over tcp or rdma"},
            {"vers", "4", "vers", "3", "vers: given twice"},
            {"vers", "4", "options", "vers=3", "vers: given twice"},
            {"options", "rsize=100", NULL, NULL, "rsize"},
            {"options", "a,,b", NULL, NULL, "empty"},
            {"options", "a,", NULL, NULL, "ends with a comma"},
            {"options", "x=$(reboot)", NULL, NULL, "item 'x=$(reboot)'"},
            {"options", "x y", NULL, NULL, "item"},
            {"options", "Upper", NULL, NULL, "item"},
            {"options", "hard=no", NULL, NULL, "give it bare"},
            {"options", "soft", "hard", "yes", "contradict"},
            {"options", "options=x", NULL, NULL, "nested"},
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                const char *kv[] = {bad[i].k, bad[i].v, bad[i].k2, bad[i].v2, NULL};
                err[0] = 0;
                int r = render(kv, buf, sizeof(buf), err, sizeof(err));
                if (r != -EINVAL)
                        fail_msg("case %zu (%s=%s): got %d '%s'", i, bad[i].k, bad[i].v, r, buf);
                assert_contains(err, bad[i].says);
        }
}

/* ---- mountinfo ---- */

static void test_mountinfo_lines(void **state)
{
        mountinfo_entry_t e;
        /* The example of proc(5), with two optional fields. */
        assert_int_equal(mountinfo_parse_line("36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 "
                                              "/dev/root rw,errors=continue\n",
                                              &e),
                         0);
        assert_int_equal(e.id, 36);
        assert_int_equal(e.parent_id, 35);
        assert_int_equal(e.major, 98);
        assert_int_equal(e.minor, 0);
        assert_string_equal(e.root, "/mnt1");
        assert_string_equal(e.mountpoint, "/mnt2");
        assert_string_equal(e.mount_options, "rw,noatime");
        assert_string_equal(e.optional, "master:1");
        assert_string_equal(e.fstype, "ext3");
        assert_string_equal(e.source, "/dev/root");
        assert_string_equal(e.super_options, "rw,errors=continue");
        mountinfo_entry_clear(&e);

        /* An NFSv4.2 mount as the kernel shows it, with a space, a tab and a backslash in the
         * mount point and a space in the export; no optional fields. */
        assert_int_equal(
            mountinfo_parse_line(
                "512 29 0:58 / /run/iofleet-agent/mnt/run\\040one\\011x\\134y rw,relatime - nfs4 "
                "10.200.0.1:/srv/bench\\040data rw,vers=4.2,rsize=1048576,wsize=1048576,"
                "namlen=255,hard,proto=tcp,nconnect=4,timeo=600,retrans=2,sec=sys,"
                "clientaddr=10.200.0.2,local_lock=none,addr=10.200.0.1",
                &e),
            0);
        assert_string_equal(e.mountpoint, "/run/iofleet-agent/mnt/run one\tx\\y");
        assert_string_equal(e.source, "10.200.0.1:/srv/bench data");
        assert_string_equal(e.fstype, "nfs4");
        assert_string_equal(e.optional, "");
        assert_contains(e.super_options, "vers=4.2,rsize=1048576");
        assert_contains(e.super_options, "nconnect=4");
        mountinfo_entry_clear(&e);

        /* NFSv3 over udp, shared peer group, IPv6 server in brackets. */
        assert_int_equal(
            mountinfo_parse_line(
                "77 25 0:44 / /mnt/v3 rw,nosuid,nodev shared:41 master:7 - nfs [fd00::1]:/export "
                "rw,vers=3,rsize=32768,wsize=32768,namlen=255,soft,proto=udp,timeo=11,retrans=3,"
                "sec=sys,mountaddr=fd00::1,mountvers=3,mountport=20048,mountproto=udp,"
                "local_lock=none,addr=fd00::1\n",
                &e),
            0);
        assert_string_equal(e.optional, "shared:41 master:7");
        assert_string_equal(e.source, "[fd00::1]:/export");
        assert_string_equal(e.fstype, "nfs");
        mountinfo_entry_clear(&e);

        const char *bad[] = {
            "",
            "36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 ext3 /dev/root rw", /* no "-" */
            "x 35 98:0 / /mnt rw - ext3 /dev/root rw",
            "36 35 98 / /mnt rw - ext3 /dev/root rw",
            "36 35 98:0 / mnt rw - ext3 /dev/root rw", /* relative mount point */
            "36 35 98:0 / /mnt rw -",                  /* no type, no source */
            "36 35 98:0 / /m\\000x rw - ext3 /dev/root rw", /* NUL by escape */
            "99999999999 35 98:0 / /mnt rw - ext3 /dev/root rw",
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++)
                if (mountinfo_parse_line(bad[i], &e) != -EINVAL)
                        fail_msg("accepted: '%s'", bad[i]);
        /* A backslash not followed by three octal digits stays as it is. */
        assert_int_equal(mountinfo_parse_line("1 0 0:1 / /a\\9b rw - tmpfs x\\04 rw", &e), 0);
        assert_string_equal(e.mountpoint, "/a\\9b");
        assert_string_equal(e.source, "x\\04");
        mountinfo_entry_clear(&e);
}

static char scratch[64];

static int setup(void **state)
{
        strcpy(scratch, "/tmp/test-mount.XXXXXX");
        return mkdtemp(scratch) ? 0 : -1;
}

static int teardown(void **state)
{
        pid_t pid = fork();
        if (pid == 0) {
                execl("/bin/rm", "rm", "-rf", "--one-file-system", scratch, (char *)NULL);
                _exit(127);
        }
        waitpid(pid, NULL, 0);
        return 0;
}

static void test_mountinfo_find_file(void **state)
{
        char path[128];
        snprintf(path, sizeof(path), "%s/mountinfo", scratch);
        FILE *f = fopen(path, "we");
        assert_non_null(f);
        fputs("20 1 8:1 / / rw - ext4 /dev/sda1 rw\n"
              "garbage line\n"
              "30 20 0:50 / /mnt/a rw - tmpfs first rw\n"
              "31 30 0:51 / /mnt/a rw - nfs4 srv:/x rw,vers=4.1\n"
              "32 20 0:52 / /mnt/a\\040b rw - tmpfs spaced rw\n",
              f);
        fclose(f);
        mountinfo_entry_t e;
        /* The topmost (last) mount wins. */
        assert_int_equal(mountinfo_find(path, "/mnt/a", &e), 1);
        assert_string_equal(e.fstype, "nfs4");
        mountinfo_entry_clear(&e);
        assert_int_equal(mountinfo_find(path, "/mnt/a b", &e), 1);
        assert_string_equal(e.source, "spaced");
        mountinfo_entry_clear(&e);
        assert_int_equal(mountinfo_find(path, "/mnt", NULL), 0);
        assert_int_equal(mountinfo_find("/nonexistent/mountinfo", "/", NULL), -ENOENT);
        assert_int_equal(mountinfo_find(NULL, "/", NULL), 1);
}

/* ---- mounting ---- */

static void config(agent_config_t *cfg, const char *root)
{
        assert_int_equal(agent_config_defaults(cfg), 0);
        char buf[256];
        snprintf(buf, sizeof(buf), "%s/state", root);
        assert_int_equal(strdup_to(&cfg->state_dir, buf), 0);
        snprintf(buf, sizeof(buf), "%s/mnt", root);
        assert_int_equal(strdup_to(&cfg->mount_root, buf), 0);
}

static void test_refusals(void **state)
{
        agent_config_t cfg;
        config(&cfg, scratch);
        char sdir[128], err[512], dir[256], file[300];
        snprintf(sdir, sizeof(sdir), "%s/state", scratch);
        restore_t *r = NULL;
        assert_int_equal(restore_open(sdir, &r), 0);
        kvlist_t opts = {0};
        assert_int_equal(kv_push(&opts, "vers", "4.2", 1), 0);
        /* Not empty. */
        snprintf(dir, sizeof(dir), "%s/mnt/run-full", scratch);
        assert_int_equal(mkdir_p(dir, 0755), 0);
        snprintf(file, sizeof(file), "%s/precious", dir);
        int fd = open(file, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        assert_true(fd >= 0);
        close(fd);
        assert_int_equal(nfs_mount(&cfg, r, "run-full", "127.0.0.1", "/export", &opts, NULL, 0,
                                   NULL, err, sizeof(err)),
                         -ENOTEMPTY);
        assert_contains(err, "not empty");
        assert_int_equal(access(file, F_OK), 0);
        /* Not a directory; a symlink to elsewhere. */
        snprintf(file, sizeof(file), "%s/mnt/run-file", scratch);
        fd = open(file, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        close(fd);
        assert_int_equal(nfs_mount(&cfg, r, "run-file", "127.0.0.1", "/export", &opts, NULL, 0,
                                   NULL, err, sizeof(err)),
                         -ENOTDIR);
        snprintf(file, sizeof(file), "%s/mnt/run-link", scratch);
        assert_int_equal(symlink("/etc", file), 0);
        assert_true(nfs_mount(&cfg, r, "run-link", "127.0.0.1", "/export", &opts, NULL, 0, NULL,
                              err, sizeof(err)) < 0);
        /* Bad names, options, server and export. */
        assert_int_equal(nfs_mount(&cfg, r, "../etc", "127.0.0.1", "/export", &opts, NULL, 0,
                                   NULL, err, sizeof(err)),
                         -EINVAL);
        assert_contains(err, "run id");
        assert_int_equal(nfs_mount(&cfg, r, "run", "-oloop", "/export", &opts, NULL, 0, NULL, err,
                                   sizeof(err)),
                         -EINVAL);
        assert_contains(err, "server");
        assert_int_equal(nfs_mount(&cfg, r, "run", "srv", "export", &opts, NULL, 0, NULL, err,
                                   sizeof(err)),
                         -EINVAL);
        assert_int_equal(nfs_mount(&cfg, r, "run", "srv", "/a/../b", &opts, NULL, 0, NULL, err,
                                   sizeof(err)),
                         -EINVAL);
        assert_int_equal(kv_push(&opts, "nconnect", "64", 2), 0);
        assert_int_equal(nfs_mount(&cfg, r, "run", "srv", "/x", &opts, NULL, 0, NULL, err,
                                   sizeof(err)),
                         -EINVAL);
        assert_contains(err, "nconnect");
        /* Outside allow_paths. */
        kv_clear(&opts);
        assert_int_equal(strv_push(&cfg.allow_paths, "/srv/elsewhere"), 0);
        assert_int_equal(nfs_mount(&cfg, r, "run", "srv", "/x", &opts, NULL, 0, NULL, err,
                                   sizeof(err)),
                         -EPERM);
        assert_contains(err, "allow_paths");
        /* Nothing above got as far as the restore record. */
        assert_false(restore_pending(r));
        restore_close(&r);
        config_free(&agent_config_schema, &cfg);
}

/* In a private mount namespace: tmpfs through the whole path, a refusal of a mount point in
 * use, NFS's own failure, and restore_apply() unmounting. Exit codes name the failed step. */
/* A child's private mount namespace, and an agent config and restore record in scratch: 0, or
 * the exit code that names the failed step (77: no namespaces here). */
static int child_env(agent_config_t *cfg, restore_t **r)
{
        char buf[256];
        if (unshare(CLONE_NEWNS) < 0)
                return 77;
        if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
                return 10;
        if (agent_config_defaults(cfg) < 0)
                return 11;
        snprintf(buf, sizeof(buf), "%s/state", scratch);
        strdup_to(&cfg->state_dir, buf);
        if (restore_open(buf, r) < 0)
                return 12;
        snprintf(buf, sizeof(buf), "%s/mnt", scratch);
        strdup_to(&cfg->mount_root, buf);
        return 0;
}

static int mount_child(void)
{
        agent_config_t cfg;
        restore_t *r = NULL;
        int rc = child_env(&cfg, &r);
        if (rc)
                return rc;
        char buf[256], err[1024], dir[512];
        kvlist_t opts = {0}, eff = {0};
        kv_push(&opts, "noatime", "", 1);
        kv_push(&opts, "options", "size=1m,mode=0711", 2);
        if (nfs_mount_fs(&cfg, r, "tmpfs", "run-1", "iofleet-test", "/x", &opts, dir,
                         sizeof(dir), &eff, err, sizeof(err)) < 0) {
                fprintf(stderr, "mount: %s\n", err);
                return 13;
        }
        if (!streq(kv_get(&eff, "fstype"), "tmpfs") ||
            !streq(kv_get(&eff, "source"), "iofleet-test:/x") ||
            !strstr(kv_get(&eff, "mount_options"), "size=1024k") ||
            !strstr(kv_get(&eff, "mount_options"), "mode=711") ||
            !strstr(kv_get(&eff, "mount_flags"), "noatime") ||
            !streq(kv_get(&eff, "mountpoint"), dir)) {
                fprintf(stderr, "effective: %s %s %s %s\n", kv_get(&eff, "fstype"),
                        kv_get(&eff, "source"), kv_get(&eff, "mount_options"),
                        kv_get(&eff, "mount_flags"));
                return 14;
        }
        if (mountinfo_find(NULL, dir, NULL) != 1 || !restore_pending(r))
                return 15;
        /* The same run again: a mount point already. */
        if (nfs_mount_fs(&cfg, r, "tmpfs", "run-1", "iofleet-test", "/x", &opts, NULL, 0, NULL,
                         err, sizeof(err)) != -EBUSY ||
            !strstr(err, "already a mount point"))
                return 16;
        /* Files written in the mount do not stop the unmount. */
        char f[600];
        snprintf(f, sizeof(f), "%s/data", dir);
        int fd = open(f, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        if (fd < 0)
                return 17;
        close(fd);
        if (nfs_umount(&cfg, dir, err, sizeof(err)) < 0) {
                fprintf(stderr, "umount: %s\n", err);
                return 18;
        }
        if (mountinfo_find(NULL, dir, NULL) != 0 || access(dir, F_OK) == 0)
                return 19;
        if (nfs_umount(&cfg, "/tmp", err, sizeof(err)) != -EPERM)
                return 20;
        /* The record still holds run-1 (unmounted already: nothing to do) and now run-2. */
        if (nfs_mount_fs(&cfg, r, "tmpfs", "run-2", "iofleet-test", "/x", NULL, dir, sizeof(dir),
                         NULL, err, sizeof(err)) < 0)
                return 21;
        if (restore_apply(r, err, sizeof(err)) < 0) {
                fprintf(stderr, "restore: %s\n", err);
                return 22;
        }
        if (mountinfo_find(NULL, dir, NULL) != 0 || access(dir, F_OK) == 0)
                return 23;
        /* A real NFS mount attempt: this kernel may have no NFS client; either way it fails
         * (nothing serves 127.0.0.1 here), the message is mount's own, the directory is gone. */
        kv_clear(&opts);
        kv_push(&opts, "vers", "3", 1);
        kv_push(&opts, "soft", "", 2);
        kv_push(&opts, "options", "retry=0,timeo=10,retrans=1,port=1,mountport=1", 3);
        rc = nfs_mount(&cfg, r, "run-nfs", "127.0.0.1", "/export", &opts, dir, sizeof(dir), NULL,
                       err, sizeof(err));
        if (rc >= 0)
                return 24;
        fprintf(stderr, "expected NFS failure: %s\n", err);
        if (!strstr(err, "failed (exit"))
                return 25;
        snprintf(buf, sizeof(buf), "%s/mnt/run-nfs", scratch);
        if (access(buf, F_OK) == 0)
                return 26;
        if (restore_apply(r, err, sizeof(err)) < 0 || restore_pending(r))
                return 27;
        kv_clear(&opts);
        kv_clear(&eff);
        restore_close(&r);
        config_free(&agent_config_schema, &cfg);
        return 0;
}

static void test_mount_for_real(void **state)
{
        if (geteuid() != 0) {
                fprintf(stderr, "skipped: mounting needs root\n");
                skip();
        }
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0)
                _exit(mount_child());
        int ws;
        assert_int_equal(waitpid(pid, &ws, 0), pid);
        assert_true(WIFEXITED(ws));
        if (WEXITSTATUS(ws) == 77) {
                fprintf(stderr, "skipped: unshare(CLONE_NEWNS) not permitted\n");
                skip();
        }
        assert_int_equal(WEXITSTATUS(ws), 0);
        /* The host's mount table never saw it. */
        char dir[128];
        snprintf(dir, sizeof(dir), "%s/mnt/run-1", scratch);
        assert_int_equal(mountinfo_find(NULL, dir, NULL), 0);
}

/* A real kernel NFS mount of IOFLEET_TEST_NFS_EXPORT (ADDR:/PATH, an export that allows root
 * to write; tests/vm sets it in a guest running kernel nfsd), in a private mount namespace:
 * vers=4.2 with nconnect and 1 MiB transfers read back from mountinfo as the kernel negotiated
 * them, a file written through it, then restore_apply() unmounts and removes the directory. */
static int nfs_child(const char *server, const char *export)
{
        agent_config_t cfg;
        restore_t *r = NULL;
        int rc = child_env(&cfg, &r);
        if (rc)
                return rc;
        char err[1024], dir[512];
        kvlist_t opts = {0}, eff = {0};
        kv_push(&opts, "vers", "4.2", 1);
        kv_push(&opts, "nconnect", "4", 2);
        kv_push(&opts, "options", "soft,timeo=50,retrans=2,retry=0", 3);
        if (nfs_mount(&cfg, r, "run-nfs", server, export, &opts, dir, sizeof(dir), &eff, err,
                      sizeof(err)) < 0) {
                fprintf(stderr, "nfs mount of %s:%s: %s\n", server, export, err);
                return 13;
        }
        const char *mo = kv_get(&eff, "mount_options");
        fprintf(stderr, "negotiated: %s %s\n", kv_get(&eff, "fstype"), mo ? mo : "");
        if (!streq(kv_get(&eff, "fstype"), "nfs4") || !mo || !strstr(mo, "vers=4.2") ||
            !strstr(mo, "nconnect=4") || !strstr(mo, "soft"))
                return 14;
        char f[600];
        snprintf(f, sizeof(f), "%s/iofleet-test-mount.%d", dir, (int)getpid());
        int fd = open(f, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0 || write(fd, "x", 1) != 1 || fsync(fd) < 0)
                return 15;
        close(fd);
        unlink(f);
        if (restore_apply(r, err, sizeof(err)) < 0) {
                fprintf(stderr, "restore: %s\n", err);
                return 16;
        }
        if (mountinfo_find(NULL, dir, NULL) != 0 || access(dir, F_OK) == 0 || restore_pending(r))
                return 17;
        kv_clear(&opts);
        kv_clear(&eff);
        restore_close(&r);
        config_free(&agent_config_schema, &cfg);
        return 0;
}

static void test_nfs_for_real(void **state)
{
        FILE *f = fopen("/proc/filesystems", "re");
        char line[128], server[128];
        bool nfs = false;
        while (f && fgets(line, sizeof(line), f))
                nfs |= strstr(line, "\tnfs\n") != NULL || strstr(line, "\tnfs4\n") != NULL;
        if (f)
                fclose(f);
        if (!nfs && system("/sbin/modprobe -q nfs 2>/dev/null") == 0)
                nfs = true;
        if (!nfs) {
                fprintf(stderr, "skipped: this kernel has no NFS client (no nfs in "
                                "/proc/filesystems); tests/vm runs this test in a guest\n");
                skip();
        }
        const char *exp = getenv("IOFLEET_TEST_NFS_EXPORT");
        const char *colon = exp ? strchr(exp, ':') : NULL;
        if (!colon || colon[1] != '/' || (size_t)(colon - exp) >= sizeof(server)) {
                fprintf(stderr, "skipped: no NFS server: IOFLEET_TEST_NFS_EXPORT=ADDR:/PATH names "
                                "none (tests/vm sets it in a guest running kernel nfsd)\n");
                skip();
        }
        if (geteuid() != 0) {
                fprintf(stderr, "skipped: mounting needs root\n");
                skip();
        }
        snprintf(server, sizeof(server), "%.*s", (int)(colon - exp), exp);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0)
                _exit(nfs_child(server, colon + 1));
        int ws;
        assert_int_equal(waitpid(pid, &ws, 0), pid);
        assert_true(WIFEXITED(ws));
        assert_int_equal(WEXITSTATUS(ws), 0);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_options_render),
            cmocka_unit_test(test_options_errors),
            cmocka_unit_test(test_mountinfo_lines),
            cmocka_unit_test_setup_teardown(test_mountinfo_find_file, setup, teardown),
            cmocka_unit_test_setup_teardown(test_refusals, setup, teardown),
            cmocka_unit_test_setup_teardown(test_mount_for_real, setup, teardown),
            cmocka_unit_test_setup_teardown(test_nfs_for_real, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
