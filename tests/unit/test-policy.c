/* Unit tests for the path policy: allow_paths and its defaults, '..' and symbolic links pointing
 * out, loops, final links, /proc and other kernel file systems, system directories, block and
 * character devices, /dev/shm, names handed to other programs, creating and taking back, a job's
 * paths, and a component swapped for a link while files are created. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "agent-config.h"
#include "options.h"
#include "policy.h"
#include "sandbox.h"
#include "util.h"

#define assert_contains(hay, needle)                                                               \
        do {                                                                                       \
                if (!strstr((hay), (needle)))                                                      \
                        fail_msg("'%s' does not mention '%s'", (hay), (needle));                   \
        } while (0)

static char root[PATH_MAX]; /* resolved scratch directory */

static void rel_path(const char *rel, char *p, size_t len)
{
        snprintf(p, len, "%s/%s", root, rel);
}

static void mk(const char *rel)
{
        char p[PATH_MAX + 64];
        rel_path(rel, p, sizeof(p));
        assert_int_equal(mkdir_p(p, 0755), 0);
}

static void touch(const char *rel)
{
        char p[PATH_MAX + 64];
        rel_path(rel, p, sizeof(p));
        int fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        assert_true(fd >= 0);
        close(fd);
}

static void link_to(const char *target, const char *rel)
{
        char p[PATH_MAX + 64];
        rel_path(rel, p, sizeof(p));
        assert_int_equal(symlink(target, p), 0);
}

static bool exists(const char *rel)
{
        char p[PATH_MAX + 64];
        struct stat st;
        rel_path(rel, p, sizeof(p));
        return lstat(p, &st) == 0;
}

/* Entries of rel other than . and .. */
static int entries(const char *rel)
{
        char p[PATH_MAX + 64];
        struct dirent *e;
        int n = 0;
        rel_path(rel, p, sizeof(p));
        DIR *d = opendir(p);
        assert_non_null(d);
        while ((e = readdir(d)))
                n += !streq(e->d_name, ".") && !streq(e->d_name, "..");
        closedir(d);
        return n;
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
        link_to("loop2", "allowed/loop1");
        link_to("loop1", "allowed/loop2");
        link_to("sub/file", "allowed/filelink");
        return 0;
}

static int teardown(void **state)
{
        sandbox_force_walk(false);
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
        char err[2048];
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

/* policy_open on root/rel; the fd is closed. */
static int popen_(ctx_t *c, const char *rel, int purpose, int flags, policy_undo_t *undo)
{
        char p[PATH_MAX + 64];
        int fd = -1, r;
        snprintf(p, sizeof(p), "%s/%s", root, rel);
        c->err[0] = 0;
        r = policy_open(&c->cfg, p, purpose, flags, 0644, undo, &fd, c->err, sizeof(c->err));
        if (r == 0) {
                assert_true(fd >= 0);
                close(fd);
        }
        return r;
}

static void assert_res(const ctx_t *c, const char *rel)
{
        char p[PATH_MAX + 64];
        snprintf(p, sizeof(p), "%s/%s", root, rel);
        assert_string_equal(c->res, p);
}

static void both_modes(void (*fn)(void))
{
        sandbox_force_walk(false);
        fn();
        sandbox_force_walk(true);
        fn();
        sandbox_force_walk(false);
}

static void inside_and_outside(void)
{
        ctx_t c = {0};
        cfg_with(&c, "allowed", NULL);
        assert_int_equal(check(&c, "allowed/sub/file", PATH_JOB_FILE), 0);
        assert_res(&c, "allowed/sub/file");
        assert_int_equal(check(&c, "allowed", PATH_EXPORT), 0);
        /* Not existing yet: the rest is kept as given, doubled slashes folded. */
        assert_int_equal(check(&c, "allowed/new//deeper/file/", PATH_JOB_FILE), 0);
        assert_res(&c, "allowed/new/deeper/file");
        /* A link that stays inside resolves inside, and so does a '..' that stays inside. */
        assert_int_equal(check(&c, "allowed/inner/file", PATH_JOB_FILE), 0);
        assert_res(&c, "allowed/sub/file");
        assert_int_equal(check(&c, "allowed/sub/../sub/file", PATH_JOB_FILE), 0);
        assert_res(&c, "allowed/sub/file");
        assert_int_equal(check(&c, "allowed/inner/..", PATH_JOB_DIR), 0);
        assert_res(&c, "allowed");
        /* A sibling with the same prefix is outside. */
        assert_int_equal(check(&c, "allowedx", PATH_EXPORT), -EPERM);
        assert_contains(c.err, "outside allow_paths (allowed: ");
        assert_int_equal(check(&c, "outside/secret", PATH_JOB_FILE), -EPERM);
        c.err[0] = 0;
        assert_int_equal(policy_check_path(&c.cfg, "/var/tmp", PATH_MOUNT, c.err, sizeof(c.err)),
                         -EPERM);
        assert_contains(c.err, "mount point '/var/tmp'");
        /* Through /proc/self/root: not beneath a root as written. */
        {
                char p[PATH_MAX + 64];
                snprintf(p, sizeof(p), "/proc/self/root%s/allowed/sub/file", root);
                assert_int_equal(check(&c, p, PATH_JOB_FILE), -EPERM);
        }
        config_free(&agent_config_schema, &c.cfg);
}

static void test_inside_and_outside(void **state)
{
        both_modes(inside_and_outside);
}

static void escapes(void)
{
        ctx_t c = {0};
        cfg_with(&c, "allowed", NULL);
        /* '..' leaving the root, as written or after a link. */
        assert_int_equal(check(&c, "allowed/../outside/secret", PATH_JOB_FILE), -EPERM);
        assert_contains(c.err, "outside allow_paths: '..' or a symbolic link leads out of");
        assert_int_equal(check(&c, "allowed/sub/../../outside/new", PATH_JOB_FILE), -EPERM);
        assert_int_equal(check(&c, "allowed/inner/../../outside", PATH_JOB_DIR), -EPERM);
        /* Directory links pointing out, relative and absolute, in the middle or at the end. */
        assert_int_equal(check(&c, "allowed/escape/secret", PATH_JOB_FILE), -EPERM);
        assert_contains(c.err, "job file '");
        assert_contains(c.err, "/allowed/escape/secret': outside allow_paths");
        assert_int_equal(check(&c, "allowed/escape/not-yet", PATH_JOB_FILE), -EPERM);
        assert_int_equal(check(&c, "allowed/escape", PATH_JOB_DIR), -EPERM);
        assert_int_equal(check(&c, "allowed/etclink", PATH_EXPORT), -EPERM);
        assert_int_equal(check(&c, "allowed/etclink/exports.d/x", PATH_JOB_FILE), -EPERM);
        assert_int_equal(check(&c, "allowed/rootlink", PATH_EXPORT), -EPERM);
        assert_int_equal(check(&c, "allowed/rootlink/etc/passwd", PATH_JOB_FILE), -EPERM);
        /* Loops. */
        assert_int_equal(check(&c, "allowed/loop1", PATH_JOB_DIR), -ELOOP);
        assert_contains(c.err, "a loop of them");
        assert_int_equal(check(&c, "allowed/loop1/x", PATH_JOB_FILE), -ELOOP);
        /* A job file is never opened through a link, even one that stays inside; a directory
         * is followed. */
        assert_int_equal(check(&c, "allowed/filelink", PATH_JOB_FILE), -ELOOP);
        assert_contains(c.err, "a symbolic link; job files are never opened through one");
        assert_int_equal(popen_(&c, "allowed/filelink", PATH_JOB_FILE, O_RDWR | O_CREAT, NULL),
                         -ELOOP);
        assert_int_equal(check(&c, "allowed/inner", PATH_JOB_DIR), 0);
        assert_res(&c, "allowed/sub");
        config_free(&agent_config_schema, &c.cfg);

        /* The allow_paths entry itself may be a link: it counts where it points, and paths may
         * be written either way. */
        cfg_with(&c, "alias", NULL);
        assert_int_equal(check(&c, "allowed/sub/file", PATH_JOB_FILE), 0);
        assert_int_equal(check(&c, "alias/sub", PATH_JOB_DIR), 0);
        assert_res(&c, "allowed/sub");
        config_free(&agent_config_schema, &c.cfg);

        /* Nested roots: a '..' leaving the inner one but not the outer one is fine. */
        cfg_with(&c, "allowed/sub", "allowed");
        assert_int_equal(check(&c, "allowed/sub/../inner/file", PATH_JOB_FILE), 0);
        assert_res(&c, "allowed/sub/file");
        config_free(&agent_config_schema, &c.cfg);
}

static void test_escapes(void **state)
{
        both_modes(escapes);
}

static void test_syntax(void **state)
{
        ctx_t c = {0};
        cfg_with(&c, "allowed", NULL);
        /* Names merely containing dots are fine. */
        assert_int_equal(check(&c, "allowed/..x/...", PATH_JOB_FILE), 0);
        assert_int_equal(
            policy_check_path(&c.cfg, "relative/path", PATH_JOB_FILE, c.err, sizeof(c.err)),
            -EINVAL);
        assert_contains(c.err, "absolute");
        assert_int_equal(policy_check_path(&c.cfg, "", PATH_JOB_FILE, c.err, sizeof(c.err)),
                         -EINVAL);
        assert_int_equal(policy_check_path(&c.cfg, NULL, PATH_JOB_FILE, c.err, sizeof(c.err)),
                         -EINVAL);
        assert_int_equal(check(&c, "allowed", 42), -EINVAL);
        /* A file used as a directory; a directory as a file; a job file named by "..". */
        assert_int_equal(check(&c, "allowed/sub/file/x", PATH_JOB_FILE), -ENOTDIR);
        assert_int_equal(check(&c, "allowed/sub", PATH_JOB_FILE), -EISDIR);
        assert_int_equal(check(&c, "allowed/sub/..", PATH_JOB_FILE), -EISDIR);
        assert_int_equal(check(&c, "allowed/sub/file", PATH_JOB_DIR), -ENOTDIR);
        /* Control characters never reach a message. */
        assert_int_equal(check(&c, "outside/a\nb", PATH_JOB_FILE), -EPERM);
        assert_null(strchr(c.err, '\n'));
        config_free(&agent_config_schema, &c.cfg);
}

static void test_system_dirs(void **state)
{
        ctx_t c = {0};
        /* Even listed in allow_paths, system directories stay off limits. */
        cfg_with(&c, "/etc", "/usr");
        const char *never[] = {"/",          "/etc",          "/etc/exports.d", "/etc/new/x",
                               "/proc/sys",  "/sys/kernel",   "/dev/shm",       "/boot",
                               "/usr/share", "/usr/local/new"};
        for (size_t i = 0; i < ELEMENTSOF(never); i++)
                for (int purpose = PATH_EXPORT; purpose <= PATH_JOB_DIR; purpose++)
                        if (check(&c, never[i], purpose) == 0)
                                fail_msg("%s allowed for purpose %d", never[i], purpose);
        assert_int_equal(check(&c, "/usr/share", PATH_EXPORT), -EPERM);
        assert_contains(c.err, "/usr and below is never allowed");
        assert_int_equal(check(&c, "/etc/passwd", PATH_JOB_FILE), -EPERM);
        assert_contains(c.err, "/etc and below is never allowed");
        config_free(&agent_config_schema, &c.cfg);

        /* A root that is a link to /etc is /etc. */
        cfg_with(&c, "allowed/etclink", NULL);
        assert_int_equal(check(&c, "allowed/etclink/passwd", PATH_JOB_FILE), -EPERM);
        assert_contains(c.err, "/etc and below is never allowed");
        config_free(&agent_config_schema, &c.cfg);

        /* /dev/shm holds job files when allowed (RAM benchmarks), never an export or a mount. */
        memset(&c, 0, sizeof(c));
        cfg_with(&c, "/dev/shm", NULL);
        assert_int_equal(check(&c, "/dev/shm", PATH_JOB_DIR), 0);
        assert_int_equal(check(&c, "/dev/shm/iofleet-test-x", PATH_JOB_FILE), 0);
        assert_int_equal(check(&c, "/dev/shm", PATH_EXPORT), -EPERM);
        assert_int_equal(check(&c, "/dev/shm", PATH_MOUNT), -EPERM);
        assert_int_equal(check(&c, "/dev/null", PATH_JOB_FILE), -EPERM);
        assert_int_equal(check(&c, "/dev/shm/../null", PATH_JOB_FILE), -EPERM);
        config_free(&agent_config_schema, &c.cfg);
}

/* proc mounted inside an allowed directory (by the operator, or a bind mount): refused by its
 * file system type, wherever it is. */
static void test_kernel_file_systems(void **state)
{
        pid_t pid;
        int status;

        if (geteuid() != 0) {
                fprintf(stderr, "skipped: mounting proc needs root\n");
                skip();
        }
        mk("allowed/p");
        mk("allowed/s");
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                char p[PATH_MAX + 64], s[PATH_MAX + 64];
                ctx_t c = {0};
                int bad = 0;
                rel_path("allowed/p", p, sizeof(p));
                rel_path("allowed/s", s, sizeof(s));
                if (unshare(CLONE_NEWNS) < 0 ||
                    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
                    mount("proc", p, "proc", 0, NULL) < 0 ||
                    mount("sysfs", s, "sysfs", 0, NULL) < 0)
                        _exit(77);
                cfg_with(&c, "allowed", NULL);
                for (int walk = 0; walk < 2; walk++) {
                        sandbox_force_walk(walk);
                        if (check(&c, "allowed/p/sys/vm", PATH_JOB_DIR) != -EPERM ||
                            !strstr(c.err, "on a proc file system"))
                                bad = 1, fprintf(stderr, "proc: %s\n", c.err);
                        if (check(&c, "allowed/p/sys/vm/drop_caches", PATH_JOB_FILE) != -EPERM)
                                bad = 1, fprintf(stderr, "drop_caches: %s\n", c.err);
                        if (check(&c, "allowed/p/self/root/etc/passwd", PATH_JOB_FILE) == 0)
                                bad = 1, fprintf(stderr, "magic: resolved\n");
                        if (check(&c, "allowed/s/kernel", PATH_JOB_DIR) != -EPERM ||
                            !strstr(c.err, "on a sysfs file system"))
                                bad = 1, fprintf(stderr, "sysfs: %s\n", c.err);
                        if (check(&c, "allowed/p", PATH_EXPORT) != -EPERM)
                                bad = 1, fprintf(stderr, "export: %s\n", c.err);
                }
                config_free(&agent_config_schema, &c.cfg);
                _exit(bad);
        }
        assert_int_equal(waitpid(pid, &status, 0), pid);
        if (WIFEXITED(status) && WEXITSTATUS(status) == 77) {
                fprintf(stderr, "skipped: cannot mount proc in a new mount namespace here\n");
                skip();
        }
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
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
        assert_contains(c.err, "work_dir and mount_root, as no allow_paths is set");
        /* No work_dir: STATE_DIR/work, which the agent makes; until then nothing is in it. */
        free(c.cfg.work_dir);
        c.cfg.work_dir = NULL;
        snprintf(p, sizeof(p), "%s/allowed", root);
        assert_int_equal(strdup_to(&c.cfg.state_dir, p), 0);
        assert_int_equal(check(&c, "allowed/work/f", PATH_JOB_FILE), -ENOENT);
        mk("allowed/work");
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
        char blk[PATH_MAX + 64], chr[PATH_MAX + 64], fifo[PATH_MAX + 64];
        snprintf(blk, sizeof(blk), "%s/allowed/blk", root);
        snprintf(chr, sizeof(chr), "%s/allowed/chr", root);
        snprintf(fifo, sizeof(fifo), "%s/allowed/fifo", root);
        assert_int_equal(mknod(blk, S_IFBLK | 0600, makedev(7, 200)), 0);
        assert_int_equal(mknod(chr, S_IFCHR | 0600, makedev(1, 3)), 0);
        assert_int_equal(mkfifo(fifo, 0600), 0);
        ctx_t c = {0};
        cfg_with(&c, "allowed", NULL);
        assert_int_equal(check(&c, "allowed/blk", PATH_JOB_FILE), -EPERM);
        assert_contains(c.err, "allow_block_devices=true");
        c.cfg.allow_block_devices = true;
        assert_int_equal(check(&c, "allowed/blk", PATH_JOB_FILE), 0);
        /* Never as an export or a mount point, and never a character device or a FIFO (whose
         * open would block: the policy looks before it opens). */
        assert_true(check(&c, "allowed/blk", PATH_EXPORT) < 0);
        assert_true(check(&c, "allowed/blk", PATH_MOUNT) < 0);
        assert_int_equal(check(&c, "allowed/chr", PATH_JOB_FILE), -EPERM);
        assert_contains(c.err, "special file");
        assert_int_equal(popen_(&c, "allowed/fifo", PATH_JOB_FILE, O_RDONLY, NULL), -EPERM);
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
                assert_true(check(&c, devs[i], PATH_EXPORT) < 0);
                config_free(&agent_config_schema, &c.cfg);
                break;
        }
}

/* Exports and mount points go to another program by name: canonical, in directories only root
 * can change. */
static void test_named(void **state)
{
        ctx_t c = {0};
        char p[PATH_MAX + 64];
        int fd;

        cfg_with(&c, "allowed", NULL);
        assert_int_equal(check(&c, "allowed/sub", PATH_EXPORT), 0);
        assert_int_equal(check(&c, "allowed/inner", PATH_EXPORT), -EPERM);
        assert_contains(c.err, "(resolves to ");
        assert_contains(c.err, "give it without symbolic links");
        assert_int_equal(check(&c, "allowed/sub/.", PATH_EXPORT), 0);
        assert_int_equal(check(&c, "allowed/sub/../sub", PATH_EXPORT), -EPERM);
        if (geteuid() == 0) {
                /* A directory others may write to lets them swap the next component. */
                rel_path("allowed", p, sizeof(p));
                assert_int_equal(chmod(p, 0777), 0);
                assert_int_equal(check(&c, "allowed/sub", PATH_EXPORT), -EPERM);
                assert_contains(c.err, "is writable by group");
                assert_contains(c.err, "mode 0777");
                /* Sticky, the entry root's: only root can rename it. */
                assert_int_equal(chmod(p, 01777), 0);
                assert_int_equal(check(&c, "allowed/sub", PATH_EXPORT), 0);
                rel_path("allowed/sub", p, sizeof(p));
                assert_int_equal(chown(p, 1000, 1000), 0);
                assert_int_equal(check(&c, "allowed/sub", PATH_EXPORT), -EPERM);
                assert_int_equal(chown(p, 0, 0), 0);
                rel_path("allowed", p, sizeof(p));
                assert_int_equal(chmod(p, 0755), 0);
                /* An owner other than root may rename anything in it. */
                assert_int_equal(chown(p, 1000, 1000), 0);
                assert_int_equal(check(&c, "allowed/sub", PATH_EXPORT), -EPERM);
                assert_contains(c.err, "its owner, uid 1000");
                assert_int_equal(chown(p, 0, 0), 0);
        }
        /* Held across the other program's run, then verified: a swap shows. */
        rel_path("allowed/sub", p, sizeof(p));
        assert_int_equal(policy_open(&c.cfg, p, PATH_EXPORT, O_PATH | O_DIRECTORY, 0, NULL, &fd,
                                     c.err, sizeof(c.err)),
                         0);
        assert_int_equal(policy_verify_named(&c.cfg, p, PATH_EXPORT, fd, c.err, sizeof(c.err)), 0);
        {
                char q[PATH_MAX + 64];
                rel_path("allowed/sub2", q, sizeof(q));
                assert_int_equal(rename(p, q), 0);
                assert_int_equal(mkdir(p, 0755), 0);
                assert_int_equal(
                    policy_verify_named(&c.cfg, p, PATH_EXPORT, fd, c.err, sizeof(c.err)), -ESTALE);
                assert_contains(c.err, "was replaced");
                assert_int_equal(rmdir(p), 0);
                assert_int_equal(rename(q, p), 0);
        }
        close(fd);
        /* A mount point made when missing, and taken back. */
        {
                policy_undo_t u = {0};
                c.err[0] = 0;
                config_free(&agent_config_schema, &c.cfg);
                cfg_with(&c, NULL, NULL);
                assert_int_equal(
                    popen_(&c, "mnt/run2", PATH_MOUNT, O_PATH | O_DIRECTORY | O_CREAT, &u), 0);
                assert_int_equal(u.n, 1);
                assert_true(exists("mnt/run2"));
                assert_int_equal(policy_undo_run(&c.cfg, &u, c.err, sizeof(c.err)), 0);
                assert_false(exists("mnt/run2"));
                /* An existing one is used, not recorded. */
                assert_int_equal(
                    popen_(&c, "mnt/run1", PATH_MOUNT, O_PATH | O_DIRECTORY | O_CREAT, &u), 0);
                assert_int_equal(u.n, 0);
        }
        config_free(&agent_config_schema, &c.cfg);
}

static void create_and_undo(void)
{
        ctx_t c = {0};
        policy_undo_t u = {0};
        char p[PATH_MAX + 64], q[PATH_MAX + 64];

        cfg_with(&c, "allowed", NULL);
        /* Missing directories are made on the way, each recorded; an existing file is opened,
         * not recorded. */
        assert_int_equal(popen_(&c, "allowed/n1/n2/f", PATH_JOB_FILE, O_RDWR | O_CREAT, &u), 0);
        assert_int_equal(u.n, 3);
        assert_true(u.v[0].dir && u.v[1].dir && !u.v[2].dir);
        rel_path("allowed/n1/n2/f", p, sizeof(p));
        assert_string_equal(u.v[2].path, p);
        assert_int_equal(popen_(&c, "allowed/sub/file", PATH_JOB_FILE, O_RDWR | O_CREAT, &u), 0);
        assert_int_equal(popen_(&c, "allowed/n1/n2/g", PATH_JOB_FILE, O_RDWR | O_CREAT, &u), 0);
        assert_int_equal(u.n, 4);
        /* A file with another name (a hard link, maybe from outside) is read, never written. */
        {
                char a[PATH_MAX + 64], b[PATH_MAX + 64];
                rel_path("outside/secret", a, sizeof(a));
                rel_path("allowed/hard", b, sizeof(b));
                assert_int_equal(link(a, b), 0);
                assert_int_equal(popen_(&c, "allowed/hard", PATH_JOB_FILE, O_RDWR, &u), -EPERM);
                assert_contains(c.err, "has 2 hard links");
                assert_int_equal(popen_(&c, "allowed/hard", PATH_JOB_FILE, O_RDONLY, &u), 0);
                assert_int_equal(unlink(b), 0);
        }
        /* Without O_CREAT nothing is made. */
        assert_int_equal(popen_(&c, "allowed/n1/n3/h", PATH_JOB_FILE, O_RDWR, &u), -ENOENT);
        assert_false(exists("allowed/n1/n3"));
        /* Nothing is made outside: not through '..', not through a link. */
        assert_int_equal(popen_(&c, "allowed/../outside/new", PATH_JOB_FILE, O_RDWR | O_CREAT, &u),
                         -EPERM);
        assert_int_equal(popen_(&c, "allowed/escape/new/x", PATH_JOB_FILE, O_RDWR | O_CREAT, &u),
                         -EPERM);
        assert_int_equal(entries("outside"), 1);
        /* g is replaced behind our back: the new file is not ours, and n2 then is not empty. */
        rel_path("allowed/n1/n2/g", q, sizeof(q));
        assert_int_equal(unlink(q), 0);
        touch("allowed/n1/n2/g");
        assert_int_equal(policy_undo_run(&c.cfg, &u, c.err, sizeof(c.err)), 0);
        assert_int_equal(u.n, 0);
        assert_false(exists("allowed/n1/n2/f"));
        assert_true(exists("allowed/n1/n2/g"));
        assert_true(exists("allowed/sub/file"));
        rel_path("allowed/n1", q, sizeof(q));
        {
                pid_t pid = fork();
                if (pid == 0) {
                        execl("/bin/rm", "rm", "-rf", q, (char *)NULL);
                        _exit(127);
                }
                waitpid(pid, NULL, 0);
        }
        /* Undone whole when nothing interferes. */
        assert_int_equal(popen_(&c, "allowed/m1/m2/f", PATH_JOB_FILE, O_RDWR | O_CREAT, &u), 0);
        assert_int_equal(popen_(&c, "allowed/m1/x", PATH_JOB_FILE, O_WRONLY | O_CREAT, &u), 0);
        assert_int_equal(policy_undo_run(&c.cfg, &u, c.err, sizeof(c.err)), 0);
        assert_false(exists("allowed/m1"));
        config_free(&agent_config_schema, &c.cfg);
}

static void test_create_and_undo(void **state)
{
        both_modes(create_and_undo);
}

static job_spec_t job(const char *name, const char *const *kv)
{
        job_spec_t j;
        char err[512];
        assert_int_equal(job_spec_init(&j, name), 0);
        for (size_t i = 0; kv[i]; i += 2)
                if (job_option_set(&j, kv[i], kv[i + 1], err, sizeof(err)) < 0)
                        fail_msg("%s", err);
        if (job_spec_validate(&j, err, sizeof(err)) < 0)
                fail_msg("%s", err);
        return j;
}

static void test_check_job(void **state)
{
        ctx_t c = {0};
        char work[PATH_MAX + 64], d[PATH_MAX + 64];
        static const char *const ok[] = {"rw", "write", "size", "1m", "numjobs", "2", NULL};
        static const char *const up[] = {
            "rw", "write", "size", "1m", "filename", "../outside/secret", NULL};
        static const char *const via[] = {"rw",       "write",    "size", "1m",
                                          "filename", "escape/x", NULL};
        static const char *const fmt[] = {
            "rw", "write", "size", "1m", "numjobs", "3", "filename_format", "../outside/ff.$jobnum",
            NULL};
        static const char *const dir_rel[] = {"rw",        "write",  "size", "1m",
                                              "directory", "escape", NULL};
        static const char *const md[] = {"ioengine",  "metadata", "nrfiles", "4",
                                         "directory", "escape",   NULL};
        static const char *const nfs[] = {"ioengine", "nfs",
                                          "rw",       "read",
                                          "size",     "1m",
                                          "filename", "../../etc/passwd",
                                          "nfs_url",  "nfs://127.0.0.1/export",
                                          NULL};
        job_spec_t j;

        cfg_with(&c, "allowed", NULL);
        rel_path("allowed", work, sizeof(work));
        j = job("ok", ok);
        assert_int_equal(policy_check_job(&c.cfg, &j, work, "a0", c.err, sizeof(c.err)), 0);
        job_spec_done(&j);
        j = job("j", up);
        assert_int_equal(policy_check_job(&c.cfg, &j, work, "a0", c.err, sizeof(c.err)), -EPERM);
        assert_contains(c.err, "job j: filename=../outside/secret: job file '");
        assert_contains(c.err, "outside allow_paths");
        job_spec_done(&j);
        j = job("j", via);
        assert_int_equal(policy_check_job(&c.cfg, &j, work, "a0", c.err, sizeof(c.err)), -EPERM);
        assert_contains(c.err, "job j: filename=escape/x: ");
        job_spec_done(&j);
        j = job("j", fmt);
        assert_int_equal(policy_check_job(&c.cfg, &j, work, "a0", c.err, sizeof(c.err)), -EPERM);
        assert_contains(c.err, "job j: filename_format=../outside/ff.$jobnum: job file '");
        job_spec_done(&j);
        j = job("j", dir_rel);
        assert_int_equal(policy_check_job(&c.cfg, &j, work, "a0", c.err, sizeof(c.err)), -EPERM);
        assert_contains(c.err, "job j: directory=escape: job directory '");
        job_spec_done(&j);
        j = job("j", md);
        assert_int_equal(policy_check_job(&c.cfg, &j, work, "a0", c.err, sizeof(c.err)), -EPERM);
        assert_contains(c.err, "job j: directory=escape: ");
        job_spec_done(&j);
        /* A directory that does not exist is named as such. */
        rel_path("allowed/none", d, sizeof(d));
        {
                const char *const nodir[] = {"rw", "write", "size", "1m", "directory", d, NULL};
                j = job("j", nodir);
                assert_int_equal(policy_check_job(&c.cfg, &j, work, "a0", c.err, sizeof(c.err)),
                                 -ENOENT);
                assert_contains(c.err, "does not exist");
                job_spec_done(&j);
        }
        /* The nfs engine's files are on its server. */
        j = job("j", nfs);
        assert_int_equal(policy_check_job(&c.cfg, &j, work, "a0", c.err, sizeof(c.err)), 0);
        job_spec_done(&j);
        assert_int_equal(entries("outside"), 1);
        config_free(&agent_config_schema, &c.cfg);
}

typedef struct swapper {
        char a[PATH_MAX + 64], b[PATH_MAX + 64];
        int stop;
        unsigned long swaps;
} swapper_t;

static void *swap_loop(void *arg)
{
        swapper_t *s = arg;
        while (!__atomic_load_n(&s->stop, __ATOMIC_RELAXED))
                if (renameat2(AT_FDCWD, s->a, AT_FDCWD, s->b, RENAME_EXCHANGE) == 0)
                        __atomic_add_fetch(&s->swaps, 1, __ATOMIC_RELAXED);
        return NULL;
}

static int64_t now_ns(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* While a thread keeps swapping allowed/race (a directory) with a link to outside/, files are
 * created through allowed/race/ and taken back: never one outside, whatever the timing. */
static void race_create(void)
{
        ctx_t c = {0};
        swapper_t s = {0};
        pthread_t t;
        unsigned long made = 0, refused = 0;
        int64_t deadline = now_ns() + 20 * (int64_t)1000000000;
        char out[PATH_MAX + 64];

        cfg_with(&c, "allowed", NULL);
        if (!exists("allowed/race")) {
                mk("allowed/race");
                rel_path("outside", out, sizeof(out));
                link_to(out, "allowed/alt");
        }
        rel_path("allowed/race", s.a, sizeof(s.a));
        rel_path("allowed/alt", s.b, sizeof(s.b));
        assert_int_equal(pthread_create(&t, NULL, swap_loop, &s), 0);
        for (unsigned i = 0; (made < 200 || refused < 200) && now_ns() < deadline; i++) {
                policy_undo_t u = {0};
                char rel[64];
                snprintf(rel, sizeof(rel), "allowed/race/n%u/f", i);
                if (popen_(&c, rel, PATH_JOB_FILE, O_RDWR | O_CREAT, &u) == 0)
                        made++;
                else
                        refused++;
                /* Taking back may miss what the swap moved away from its name: fine here. */
                policy_undo_run(&c.cfg, &u, c.err, sizeof(c.err));
                if (entries("outside") != 1)
                        fail_msg("a file was created outside (after %lu creations)", made);
        }
        __atomic_store_n(&s.stop, 1, __ATOMIC_RELAXED);
        pthread_join(t, NULL);
        fprintf(stderr, "race: %lu made inside, %lu refused, %lu swaps\n", made, refused, s.swaps);
        assert_int_equal(entries("outside"), 1);
        config_free(&agent_config_schema, &c.cfg);
}

static void test_race_create(void **state)
{
        both_modes(race_create);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test_setup_teardown(test_inside_and_outside, setup, teardown),
            cmocka_unit_test_setup_teardown(test_escapes, setup, teardown),
            cmocka_unit_test_setup_teardown(test_syntax, setup, teardown),
            cmocka_unit_test_setup_teardown(test_system_dirs, setup, teardown),
            cmocka_unit_test_setup_teardown(test_kernel_file_systems, setup, teardown),
            cmocka_unit_test_setup_teardown(test_defaults, setup, teardown),
            cmocka_unit_test_setup_teardown(test_devices, setup, teardown),
            cmocka_unit_test_setup_teardown(test_named, setup, teardown),
            cmocka_unit_test_setup_teardown(test_create_and_undo, setup, teardown),
            cmocka_unit_test_setup_teardown(test_check_job, setup, teardown),
            cmocka_unit_test_setup_teardown(test_race_create, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
