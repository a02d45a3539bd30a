/* Unit tests for the restore record: every entry kind, newest-first replay, double saves,
 * byte-identical files with mode and owner, crashes (SIGKILL) mid-change, incomplete and
 * tampered entries, unregistered service kinds, a busy mount forced off. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mountinfo.h"
#include "restore.h"
#include "util.h"

#define assert_contains(hay, needle)                                                               \
        do {                                                                                       \
                if (!strstr((hay), (needle)))                                                      \
                        fail_msg("'%s' does not mention '%s'", (hay), (needle));                   \
        } while (0)

typedef struct fixture {
        char dir[64];   /* scratch root */
        char state[128];
        char rdir[160]; /* state/restore */
        char err[1024];
} fixture_t;

static int setup(void **state)
{
        fixture_t *f = calloc(1, sizeof(*f));
        if (!f)
                return -1;
        strcpy(f->dir, "/tmp/test-restore.XXXXXX");
        if (!mkdtemp(f->dir))
                return -1;
        snprintf(f->state, sizeof(f->state), "%s/state", f->dir);
        snprintf(f->rdir, sizeof(f->rdir), "%s/restore", f->state);
        *state = f;
        return 0;
}

static int teardown(void **state)
{
        fixture_t *f = *state;
        char *argv[] = {"/bin/rm", "-rf", f->dir, NULL};
        pid_t pid = fork();
        if (pid == 0) {
                execv(argv[0], argv);
                _exit(127);
        }
        waitpid(pid, NULL, 0);
        free(f);
        return 0;
}

static void write_bytes(const char *path, const void *data, size_t len)
{
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, data, len), (ssize_t)len);
        close(fd);
}

/* The file's bytes into buf (NUL added); the length, -1 when it does not exist. */
static ssize_t read_bytes(const char *path, char *buf, size_t cap)
{
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -1;
        ssize_t n = read(fd, buf, cap - 1);
        close(fd);
        if (n >= 0)
                buf[n] = 0;
        return n;
}

static void assert_file_equals(const char *path, const void *data, size_t len)
{
        char buf[65536];
        ssize_t n = read_bytes(path, buf, sizeof(buf));
        assert_int_equal(n, (ssize_t)len);
        assert_memory_equal(buf, data, len);
}

static int count_record_files(const fixture_t *f)
{
        DIR *d = opendir(f->rdir);
        if (!d)
                return -1;
        int n = 0;
        struct dirent *de;
        while ((de = readdir(d)))
                if (de->d_name[0] != '.')
                        n++;
        closedir(d);
        return n;
}

static void test_file_byte_identical(void **state)
{
        fixture_t *f = *state;
        char text[256], bin[256], later[256];
        snprintf(text, sizeof(text), "%s/exports", f->dir);
        snprintf(bin, sizeof(bin), "%s/blob", f->dir);
        snprintf(later, sizeof(later), "%s/created", f->dir);
        /* No trailing newline, odd spacing; binary with NULs and every byte value. */
        const char t[] = "/srv  *(rw,sync)\n\t# comment with trailing space \n/x";
        unsigned char b[600];
        for (size_t i = 0; i < sizeof(b); i++)
                b[i] = (unsigned char)(i * 7 + (i >> 3));
        b[0] = 0;
        b[599] = 0;
        write_bytes(text, t, sizeof(t) - 1);
        write_bytes(bin, b, sizeof(b));
        assert_int_equal(chmod(text, 0640), 0);
        /* Other owners need root; otherwise the test's own ids still go through chown. */
        uid_t uid = geteuid() == 0 ? 1234 : getuid();
        gid_t gid = geteuid() == 0 ? 5678 : getgid();
        assert_int_equal(chown(text, uid, gid), 0);
        assert_int_equal(chmod(bin, 04750), 0);
        struct timespec old_mtime[2] = {{.tv_nsec = UTIME_OMIT}, {.tv_sec = 1000000, .tv_nsec = 5}};
        assert_int_equal(utimensat(AT_FDCWD, text, old_mtime, 0), 0);

        restore_t *r = NULL;
        assert_int_equal(restore_open(f->state, &r), 0);
        assert_false(restore_pending(r));
        assert_int_equal(restore_save_file(r, text), 0);
        assert_int_equal(restore_save_file(r, bin), 0);
        assert_int_equal(restore_save_file(r, later), 0);
        assert_true(restore_pending(r));

        write_bytes(text, "changed\n", 8);
        assert_int_equal(chmod(text, 0600), 0);
        if (geteuid() == 0)
                assert_int_equal(chown(text, 0, 0), 0);
        assert_int_equal(unlink(bin), 0);
        write_bytes(later, "new file", 8);

        assert_int_equal(restore_apply(r, f->err, sizeof(f->err)), 0);
        assert_false(restore_pending(r));
        assert_file_equals(text, t, sizeof(t) - 1);
        assert_file_equals(bin, b, sizeof(b));
        struct stat st;
        assert_int_equal(stat(text, &st), 0);
        assert_int_equal(st.st_mode & 07777, 0640);
        assert_int_equal(st.st_uid, uid);
        assert_int_equal(st.st_gid, gid);
        assert_int_equal(st.st_mtim.tv_sec, 1000000);
        assert_int_equal(stat(bin, &st), 0);
        assert_int_equal(st.st_mode & 07777, 04750);
        /* It did not exist: restore removes it. */
        assert_int_equal(access(later, F_OK), -1);
        /* Full success removes the record. */
        assert_int_equal(count_record_files(f), 0);
        restore_close(&r);
        assert_null(r);
        assert_int_equal(restore_open(f->state, &r), 0);
        assert_false(restore_pending(r));
        restore_close(&r);
}

static void test_file_refusals(void **state)
{
        fixture_t *f = *state;
        char link[256], target[256];
        snprintf(target, sizeof(target), "%s/target", f->dir);
        snprintf(link, sizeof(link), "%s/link", f->dir);
        write_bytes(target, "x", 1);
        assert_int_equal(symlink(target, link), 0);
        restore_t *r = NULL;
        assert_int_equal(restore_open(f->state, &r), 0);
        assert_int_equal(restore_save_file(r, link), -EINVAL);
        assert_int_equal(restore_save_file(r, f->dir), -EINVAL);
        assert_int_equal(restore_save_file(r, "relative/path"), -EINVAL);
        assert_int_equal(restore_save_sysctl(r, "relative", "net.core.somaxconn"), -EINVAL);
        assert_int_equal(restore_save_sysctl(r, f->dir, "../etc/passwd"), -EINVAL);
        assert_int_equal(restore_save_service(r, "kernel", "bad name", true), -EINVAL);
        assert_int_equal(restore_save_mount(r, "umount", "/mnt", false), -EINVAL);
        assert_false(restore_pending(r));
        restore_close(&r);
}

static void test_double_save_keeps_first(void **state)
{
        fixture_t *f = *state;
        char path[256];
        snprintf(path, sizeof(path), "%s/conf", f->dir);
        write_bytes(path, "original", 8);
        restore_t *r = NULL;
        assert_int_equal(restore_open(f->state, &r), 0);
        assert_int_equal(restore_save_file(r, path), 0);
        write_bytes(path, "second", 6);
        assert_int_equal(restore_save_file(r, path), 0);
        write_bytes(path, "third", 5);
        /* One entry (and its data) on disk, not two. */
        assert_int_equal(count_record_files(f), 2);
        assert_int_equal(restore_apply(r, f->err, sizeof(f->err)), 0);
        assert_file_equals(path, "original", 8);
        restore_close(&r);
}

static void test_sysctl_scratch(void **state)
{
        fixture_t *f = *state;
        char root[256], dir[300], path[400], path2[400];
        snprintf(root, sizeof(root), "%s/proc-sys", f->dir);
        snprintf(dir, sizeof(dir), "%s/net/ipv4", root);
        assert_int_equal(mkdir_p(dir, 0755), 0);
        snprintf(path, sizeof(path), "%s/tcp_rmem", dir);
        snprintf(path2, sizeof(path2), "%s/tcp_wmem", dir);
        write_bytes(path, "4096\t131072\t6291456\n", 20);
        write_bytes(path2, "4096\t16384\t4194304\n", 19);
        restore_t *r = NULL;
        assert_int_equal(restore_open(f->state, &r), 0);
        assert_int_equal(restore_save_sysctl(r, root, "net.ipv4.tcp_rmem"), 0);
        assert_int_equal(restore_save_sysctl(r, root, "net/ipv4/tcp_wmem"), 0);
        /* The same sysctl in the other spelling is the same object. */
        assert_int_equal(restore_save_sysctl(r, root, "net/ipv4/tcp_rmem"), 0);
        assert_int_equal(count_record_files(f), 2);
        assert_int_equal(restore_save_sysctl(r, root, "net.ipv4.missing"), -ENOENT);
        write_bytes(path, "1 2 3\n", 6);
        write_bytes(path2, "9", 1);
        restore_close(&r);
        /* A fresh open (the next agent start) replays it. */
        assert_int_equal(restore_open(f->state, &r), 0);
        assert_true(restore_pending(r));
        assert_int_equal(restore_apply(r, f->err, sizeof(f->err)), 0);
        assert_file_equals(path, "4096\t131072\t6291456\n", 20);
        assert_file_equals(path2, "4096\t16384\t4194304\n", 19);
        restore_close(&r);
}

typedef struct calls {
        char log[512];
        char watch[256]; /* a file whose content each call notes */
        int fail;
} calls_t;

static int fake_restore(void *user, const char *name, bool was_running, char *err, size_t errlen)
{
        calls_t *c = user;
        char buf[64] = "";
        if (c->watch[0])
                read_bytes(c->watch, buf, sizeof(buf));
        size_t l = strlen(c->log);
        snprintf(c->log + l, sizeof(c->log) - l, "%s:%d:%s;", name, was_running, buf);
        if (c->fail)
                return errorf(err, errlen, -EIO, "restart of %s failed", name);
        return 0;
}

static void test_ordering_newest_first(void **state)
{
        fixture_t *f = *state;
        calls_t c = {0};
        snprintf(c.watch, sizeof(c.watch), "%s/nfs.conf", f->dir);
        write_bytes(c.watch, "v1", 2);
        restore_service_ops_t ops = {.kind = "kernel", .restore = fake_restore, .user = &c};
        restore_t *r = NULL;
        assert_int_equal(restore_open(f->state, &r), 0);
        assert_int_equal(restore_register_service(r, &ops), 0);
        /* As a backend does: note the service, save its file, change both. */
        assert_int_equal(restore_save_service(r, "kernel", "nfs-server", true), 0);
        assert_int_equal(restore_save_file(r, c.watch), 0);
        write_bytes(c.watch, "v2", 2);
        assert_int_equal(restore_save_service(r, "kernel", "rpcbind", false), 0);
        assert_int_equal(restore_save_service(r, "kernel", "nfs-server", false), 0);
        assert_int_equal(restore_apply(r, f->err, sizeof(f->err)), 0);
        /* rpcbind (newest) first, then the file, then nfs-server seeing the old file, with the
         * first saved state (was running). */
        assert_string_equal(c.log, "rpcbind:0:v2;nfs-server:1:v1;");
        restore_close(&r);
}

static void test_unregistered_kind(void **state)
{
        fixture_t *f = *state;
        calls_t c = {0};
        restore_t *r = NULL;
        assert_int_equal(restore_open(f->state, &r), 0);
        assert_int_equal(restore_save_service(r, "ganesha", "nfs-ganesha", true), 0);
        assert_true(restore_apply(r, f->err, sizeof(f->err)) < 0);
        assert_contains(f->err, "ganesha");
        assert_true(restore_pending(r));
        restore_close(&r);
        /* Kept for the next try, which has the backend registered. */
        assert_int_equal(restore_open(f->state, &r), 0);
        assert_true(restore_pending(r));
        restore_service_ops_t ops = {.kind = "ganesha", .restore = fake_restore, .user = &c};
        assert_int_equal(restore_register_service(r, &ops), 0);
        assert_int_equal(restore_apply(r, f->err, sizeof(f->err)), 0);
        assert_string_equal(c.log, "nfs-ganesha:1:;");
        assert_false(restore_pending(r));
        restore_close(&r);
}

static void test_partial_success_keeps_failed(void **state)
{
        fixture_t *f = *state;
        char sub[256], inner[300], ok[256];
        snprintf(sub, sizeof(sub), "%s/sub", f->dir);
        snprintf(inner, sizeof(inner), "%s/file", sub);
        snprintf(ok, sizeof(ok), "%s/ok", f->dir);
        assert_int_equal(mkdir(sub, 0755), 0);
        write_bytes(inner, "inner", 5);
        write_bytes(ok, "ok", 2);
        calls_t c = {.fail = 1};
        restore_service_ops_t ops = {.kind = "kernel", .restore = fake_restore, .user = &c};
        restore_t *r = NULL;
        assert_int_equal(restore_open(f->state, &r), 0);
        assert_int_equal(restore_register_service(r, &ops), 0);
        assert_int_equal(restore_save_file(r, inner), 0);
        assert_int_equal(restore_save_service(r, "kernel", "nfs-server", true), 0);
        assert_int_equal(restore_save_file(r, ok), 0);
        write_bytes(ok, "changed", 7);
        /* The file's directory goes away: it cannot be put back. */
        assert_int_equal(unlink(inner), 0);
        assert_int_equal(rmdir(sub), 0);
        int ret = restore_apply(r, f->err, sizeof(f->err));
        assert_true(ret < 0);
        /* The first failure (newest first: the service), and a count of the rest. */
        assert_contains(f->err, "restart of nfs-server failed");
        assert_contains(f->err, "1 more");
        assert_file_equals(ok, "ok", 2);
        assert_true(restore_pending(r));
        restore_close(&r);

        assert_int_equal(restore_open(f->state, &r), 0);
        assert_true(restore_pending(r));
        c.fail = 0;
        c.log[0] = 0;
        assert_int_equal(restore_register_service(r, &ops), 0);
        assert_int_equal(mkdir(sub, 0755), 0);
        write_bytes(ok, "changed again", 13);
        assert_int_equal(restore_apply(r, f->err, sizeof(f->err)), 0);
        assert_file_equals(inner, "inner", 5);
        /* ok was put back already and is no longer in the record. */
        assert_file_equals(ok, "changed again", 13);
        assert_string_equal(c.log, "nfs-server:1:;");
        assert_int_equal(count_record_files(f), 0);
        restore_close(&r);
}

static void test_mount_entry_not_mounted(void **state)
{
        fixture_t *f = *state;
        char mp[256];
        snprintf(mp, sizeof(mp), "%s/mnt-run1", f->dir);
        assert_int_equal(mkdir(mp, 0755), 0);
        restore_t *r = NULL;
        assert_int_equal(restore_open(f->state, &r), 0);
        /* Saved before mounting; the mount then failed. Restore only removes the directory
         * (umount_bin is never run: /bin/false would fail). */
        assert_int_equal(restore_save_mount(r, "/bin/false", mp, true), 0);
        assert_int_equal(restore_save_mount(r, "/bin/false", mp, false), 0);
        restore_close(&r);
        assert_int_equal(restore_open(f->state, &r), 0);
        assert_true(restore_pending(r));
        assert_int_equal(restore_apply(r, f->err, sizeof(f->err)), 0);
        assert_int_equal(access(mp, F_OK), -1);
        restore_close(&r);
}

/* A mount the umount program cannot take off (busy: a worker's file still open on a server that
 * went away) is forced off, then detached: nothing stays mounted, the directory goes, and the
 * open file keeps working until it closes. A tmpfs in a private mount namespace stands in for
 * the NFS mount (root only). */
static void test_mount_entry_forced(void **state)
{
        fixture_t *f = *state;
        char mp[256], mp2[256], file[300];
        if (geteuid() != 0 || unshare(CLONE_NEWNS) < 0 ||
            mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
                skip();
        snprintf(mp, sizeof(mp), "%s/mnt-busy", f->dir);
        snprintf(mp2, sizeof(mp2), "%s/mnt-idle", f->dir);
        snprintf(file, sizeof(file), "%s/held", mp);
        assert_int_equal(mkdir(mp, 0755), 0);
        assert_int_equal(mkdir(mp2, 0755), 0);
        assert_int_equal(mount("tmpfs", mp, "tmpfs", 0, "size=1m"), 0);
        assert_int_equal(mount("tmpfs", mp2, "tmpfs", 0, "size=1m"), 0);
        int fd = open(file, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
        assert_true(fd >= 0);
        restore_t *r = NULL;
        assert_int_equal(restore_open(f->state, &r), 0);
        /* /bin/false stands for an umount that fails ("target is busy", or a dead server). */
        assert_int_equal(restore_save_mount(r, "/bin/false", mp, true), 0);
        assert_int_equal(restore_save_mount(r, "/bin/false", mp2, true), 0);
        assert_int_equal(restore_apply(r, f->err, sizeof(f->err)), 0);
        assert_false(restore_pending(r));
        assert_int_equal(mountinfo_find(NULL, mp, NULL), 0);
        assert_int_equal(mountinfo_find(NULL, mp2, NULL), 0);
        assert_int_equal(access(mp, F_OK), -1);
        assert_int_equal(access(mp2, F_OK), -1);
        /* The detached file system lives on for the file still open. */
        assert_int_equal(write(fd, "x", 1), 1);
        close(fd);
        restore_close(&r);
}

/* restore_mkdir: only the directories it made are recorded, in order, and removed again (one
 * holding someone else's file stays); it survives a reopen (a crash) like any entry. */
static void test_mkdir(void **state)
{
        fixture_t *f = *state;
        char top[256], mid[300], leaf[320], file[340];
        snprintf(top, sizeof(top), "%s/exports.d", f->dir);
        snprintf(mid, sizeof(mid), "%s/a", top);
        snprintf(leaf, sizeof(leaf), "%s/b", mid);
        snprintf(file, sizeof(file), "%s/iofleet.exports", leaf);
        restore_t *r = NULL;
        assert_int_equal(restore_open(f->state, &r), 0);
        assert_int_equal(restore_mkdir(r, f->dir, 0755), 0); /* exists: nothing recorded */
        assert_false(restore_pending(r));
        assert_int_equal(restore_mkdir(r, leaf, 0700), 0);
        assert_true(restore_pending(r));
        struct stat st;
        assert_int_equal(stat(leaf, &st), 0);
        assert_true(S_ISDIR(st.st_mode));
        assert_int_equal(restore_mkdir(r, leaf, 0700), 0); /* again: already there */
        assert_int_equal(restore_save_file(r, file), 0);
        write_bytes(file, "x", 1);
        restore_close(&r);
        assert_int_equal(restore_open(f->state, &r), 0);
        assert_int_equal(restore_apply(r, f->err, sizeof(f->err)), 0);
        assert_int_equal(access(top, F_OK), -1);
        assert_false(restore_pending(r));
        /* A file that is not the record's keeps its directory. */
        assert_int_equal(restore_mkdir(r, mid, 0755), 0);
        write_bytes(leaf, "y", 1); /* a file named like the leaf, made by someone else */
        assert_int_equal(restore_apply(r, f->err, sizeof(f->err)), 0);
        assert_int_equal(access(leaf, F_OK), 0);
        assert_false(restore_pending(r));
        /* A file in the way; a relative path. */
        assert_int_equal(restore_mkdir(r, file, 0755), -ENOTDIR);
        assert_int_equal(restore_mkdir(r, "relative/dir", 0755), -EINVAL);
        restore_close(&r);
}

/* A child saves the file, starts changing it and is killed: stage 0 before writing anything,
 * stage 1 halfway through the new content. */
static void crash_child(const fixture_t *f, const char *path, int stage)
{
        restore_t *r = NULL;
        if (restore_open(f->state, &r) < 0 || restore_save_file(r, path) < 0)
                _exit(2);
        if (stage == 1) {
                int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
                if (fd < 0 || write(fd, "half-writ", 9) != 9)
                        _exit(3);
        }
        raise(SIGKILL);
        _exit(4);
}

static void test_crash(void **state)
{
        fixture_t *f = *state;
        char path[256];
        snprintf(path, sizeof(path), "%s/exports", f->dir);
        const char orig[] = "/export 10.0.0.0/8(rw,no_root_squash)";
        for (int stage = 0; stage < 2; stage++) {
                write_bytes(path, orig, sizeof(orig) - 1);
                pid_t pid = fork();
                assert_true(pid >= 0);
                if (pid == 0)
                        crash_child(f, path, stage);
                int ws;
                assert_int_equal(waitpid(pid, &ws, 0), pid);
                assert_true(WIFSIGNALED(ws));
                assert_int_equal(WTERMSIG(ws), SIGKILL);
                restore_t *r = NULL;
                assert_int_equal(restore_open(f->state, &r), 0);
                assert_true(restore_pending(r));
                assert_int_equal(restore_apply(r, f->err, sizeof(f->err)), 0);
                assert_file_equals(path, orig, sizeof(orig) - 1);
                assert_false(restore_pending(r));
                restore_close(&r);
        }
}

static void put_record_file(const fixture_t *f, const char *name, const char *content)
{
        char path[300];
        snprintf(path, sizeof(path), "%s/%s", f->rdir, name);
        write_bytes(path, content, strlen(content));
}

static void test_incomplete_entries_ignored(void **state)
{
        fixture_t *f = *state;
        char path[256];
        snprintf(path, sizeof(path), "%s/victim", f->dir);
        write_bytes(path, "keep", 4);
        assert_int_equal(mkdir_p(f->rdir, 0700), 0);
        /* Cut before the end marker; cut mid-line; empty; a stray temporary; garbage. */
        char e1[512];
        snprintf(e1, sizeof(e1), "iofleet-restore=1\nkind=file\npath=%s\nexisted=0\n", path);
        put_record_file(f, "00000003.entry", e1);
        put_record_file(f, "00000004.entry", "iofleet-restore=1\nkind=sysc");
        put_record_file(f, "00000005.entry", "");
        put_record_file(f, "00000006.entry.tmp", "iofleet-restore=1\nkind=mount\n");
        put_record_file(f, "00000007.data", "orphan bytes");
        put_record_file(f, "00000008.entry", "\x01\x02\xff\nend=1\n");
        restore_t *r = NULL;
        assert_int_equal(restore_open(f->state, &r), 0);
        assert_false(restore_pending(r));
        /* New entries number after what is there, and full success sweeps the leftovers. */
        assert_int_equal(restore_save_service(r, "kernel", "nfs-server", true), 0);
        calls_t c = {0};
        restore_service_ops_t ops = {.kind = "kernel", .restore = fake_restore, .user = &c};
        assert_int_equal(restore_register_service(r, &ops), 0);
        assert_int_equal(restore_apply(r, f->err, sizeof(f->err)), 0);
        assert_string_equal(c.log, "nfs-server:1:;");
        assert_int_equal(count_record_files(f), 0);
        /* The victim was never touched: the incomplete entry said it did not exist. */
        assert_file_equals(path, "keep", 4);
        restore_close(&r);
}

static void test_tampered_entries(void **state)
{
        fixture_t *f = *state;
        assert_int_equal(mkdir_p(f->rdir, 0700), 0);
        /* Committed (end marker) but not acceptable: relative path, NUL through an escape,
         * bad mode, unknown kind, a saved copy that does not match. */
        put_record_file(f, "00000001.entry",
                        "iofleet-restore=1\nkind=file\npath=etc/passwd\nexisted=0\nend=1\n");
        put_record_file(f, "00000002.entry",
                        "iofleet-restore=1\nkind=file\npath=/tmp/a%00b\nexisted=0\nend=1\n");
        put_record_file(f, "00000003.entry", "iofleet-restore=1\nkind=file\npath=/tmp/"
                                             "x\nexisted=1\nmode=40755\nuid=0\ngid=0\nsize=1\n"
                                             "xxh64=0\nmtime=0.0\nend=1\n");
        put_record_file(f, "00000004.entry", "iofleet-restore=1\nkind=reboot\nend=1\n");
        char tgt[256], e5[1024];
        snprintf(tgt, sizeof(tgt), "%s/target", f->dir);
        write_bytes(tgt, "current", 7);
        snprintf(e5, sizeof(e5),
                 "iofleet-restore=1\nkind=file\npath=%s\nexisted=1\nmode=100644\nuid=0\ngid=0\n"
                 "size=3\nxxh64=1234\nmtime=0.0\nend=1\n",
                 tgt);
        put_record_file(f, "00000005.entry", e5);
        put_record_file(f, "00000005.data", "abc");
        restore_t *r = NULL;
        assert_int_equal(restore_open(f->state, &r), 0);
        assert_true(restore_pending(r));
        int ret = restore_apply(r, f->err, sizeof(f->err));
        assert_true(ret < 0);
        /* Newest first: the mismatching copy; the file was left alone. */
        assert_contains(f->err, "does not match");
        assert_contains(f->err, "4 more");
        assert_file_equals(tgt, "current", 7);
        assert_true(restore_pending(r));
        restore_close(&r);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test_setup_teardown(test_file_byte_identical, setup, teardown),
            cmocka_unit_test_setup_teardown(test_file_refusals, setup, teardown),
            cmocka_unit_test_setup_teardown(test_double_save_keeps_first, setup, teardown),
            cmocka_unit_test_setup_teardown(test_sysctl_scratch, setup, teardown),
            cmocka_unit_test_setup_teardown(test_ordering_newest_first, setup, teardown),
            cmocka_unit_test_setup_teardown(test_unregistered_kind, setup, teardown),
            cmocka_unit_test_setup_teardown(test_partial_success_keeps_failed, setup, teardown),
            cmocka_unit_test_setup_teardown(test_mount_entry_not_mounted, setup, teardown),
            cmocka_unit_test_setup_teardown(test_mount_entry_forced, setup, teardown),
            cmocka_unit_test_setup_teardown(test_mkdir, setup, teardown),
            cmocka_unit_test_setup_teardown(test_crash, setup, teardown),
            cmocka_unit_test_setup_teardown(test_incomplete_entries_ignored, setup, teardown),
            cmocka_unit_test_setup_teardown(test_tampered_entries, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
