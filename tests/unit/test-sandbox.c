/* Unit tests for the resolver beneath a directory fd, through openat2 and through the walk alike:
 * '..', absolute paths and links, directory links pointing out, loops, final links, /proc magic
 * links, and a component swapped for a link pointing out while resolutions run. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

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
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sandbox.h"
#include "util.h"

static char top[PATH_MAX];  /* scratch: root/ and victim/ */
static char root[PATH_MAX]; /* the directory resolutions stay beneath */
static int rootfd = -1;

static void at(const char *rel, char *buf, size_t len)
{
        snprintf(buf, len, "%s/%s", top, rel);
}

static void mkd(const char *rel)
{
        char p[PATH_MAX + 64];
        at(rel, p, sizeof(p));
        assert_int_equal(mkdir(p, 0755), 0);
}

static void touch(const char *rel)
{
        char p[PATH_MAX + 64];
        at(rel, p, sizeof(p));
        int fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        assert_true(fd >= 0);
        close(fd);
}

static void lnk(const char *target, const char *rel)
{
        char p[PATH_MAX + 64];
        at(rel, p, sizeof(p));
        assert_int_equal(symlink(target, p), 0);
}

static int setup(void **state)
{
        char abs[PATH_MAX + 64];
        snprintf(top, sizeof(top), "/tmp/test-sandbox.XXXXXX");
        if (!mkdtemp(top))
                return -1;
        snprintf(root, sizeof(root), "%s/root", top);
        mkd("root");
        mkd("root/a");
        mkd("root/a/b");
        touch("root/file");
        touch("root/a/b/deep");
        mkd("victim");
        touch("victim/secret");
        lnk("a", "root/l_in");
        lnk("l_in/b", "root/l_chain");
        lnk("../victim", "root/l_out_rel");
        at("victim", abs, sizeof(abs));
        lnk(abs, "root/l_out_abs");
        lnk("..", "root/a/l_up");     /* stays inside: root */
        lnk("../..", "root/a/l_up2"); /* leaves */
        lnk("l_loop2", "root/l_loop1");
        lnk("l_loop1", "root/l_loop2");
        lnk("file", "root/l_file");
        lnk("nowhere", "root/l_dangling");
        lnk("/proc/self/root", "root/l_magic");
        rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
        return rootfd < 0 ? -1 : 0;
}

static int teardown(void **state)
{
        pid_t pid;
        sandbox_force_walk(false);
        close(rootfd);
        pid = fork();
        if (pid == 0) {
                execl("/bin/rm", "rm", "-rf", top, (char *)NULL);
                _exit(127);
        }
        waitpid(pid, NULL, 0);
        return 0;
}

/* sandbox_open's result: 0 and the object's identity matches rel (lstat of root/want), or the
 * error. */
static int open_is(const char *rel, unsigned flags, const char *want)
{
        char p[PATH_MAX + 64];
        struct stat a, b;
        int fd = -1, r = sandbox_open(rootfd, rel, flags, &fd);
        if (r < 0)
                return r;
        assert_int_equal(fstat(fd, &a), 0);
        close(fd);
        snprintf(p, sizeof(p), "%s/%s", root, want);
        assert_int_equal(lstat(p, &b), 0);
        if (a.st_dev != b.st_dev || a.st_ino != b.st_ino)
                fail_msg("%s resolved, but not to %s", rel, want);
        return 0;
}

static void run_cases(void)
{
        /* Inside. */
        assert_int_equal(open_is("a/b", 0, "a/b"), 0);
        assert_int_equal(open_is("a/b/deep", SANDBOX_NOFOLLOW, "a/b/deep"), 0);
        assert_int_equal(open_is(".", SANDBOX_DIRECTORY, "."), 0);
        assert_int_equal(open_is("a/../file", 0, "file"), 0);
        assert_int_equal(open_is("a//b/./deep", 0, "a/b/deep"), 0);
        assert_int_equal(open_is("a/b/", SANDBOX_DIRECTORY, "a/b"), 0);
        assert_int_equal(open_is("l_in/b", 0, "a/b"), 0);
        assert_int_equal(open_is("l_chain/deep", 0, "a/b/deep"), 0);
        assert_int_equal(open_is("a/l_up/file", 0, "file"), 0);
        /* '..' after a link climbs from where the link leads, as the kernel does. */
        assert_int_equal(open_is("l_chain/..", 0, "a"), 0);
        /* '..' and absolute paths leaving. */
        assert_int_equal(open_is("..", 0, "."), -EXDEV);
        assert_int_equal(open_is("a/../..", 0, "."), -EXDEV);
        assert_int_equal(open_is("a/../../victim/secret", 0, "."), -EXDEV);
        assert_int_equal(open_is("../root/file", 0, "."), -EXDEV);
        assert_int_equal(open_is("/etc/passwd", 0, "."), -EXDEV);
        /* Directory links pointing out, relative and absolute, and one that climbs out. */
        assert_int_equal(open_is("l_out_rel/secret", 0, "."), -EXDEV);
        assert_int_equal(open_is("l_out_rel", 0, "."), -EXDEV);
        assert_int_equal(open_is("l_out_abs/secret", 0, "."), -EXDEV);
        assert_int_equal(open_is("a/l_up2/victim/secret", 0, "."), -EXDEV);
        /* Magic: an absolute link to /proc/self/root. */
        assert_int_equal(open_is("l_magic/etc/passwd", 0, "."), -EXDEV);
        /* Loops. */
        assert_int_equal(open_is("l_loop1", 0, "."), -ELOOP);
        assert_int_equal(open_is("l_loop1/x", 0, "."), -ELOOP);
        /* A final link: followed, or the link itself with NOFOLLOW; a trailing '/' follows. */
        assert_int_equal(open_is("l_file", 0, "file"), 0);
        assert_int_equal(open_is("l_file", SANDBOX_NOFOLLOW, "l_file"), 0);
        assert_int_equal(open_is("l_in/", SANDBOX_NOFOLLOW, "a"), 0);
        assert_int_equal(open_is("l_dangling", 0, "."), -ENOENT);
        assert_int_equal(open_is("l_dangling", SANDBOX_NOFOLLOW, "l_dangling"), 0);
        assert_int_equal(open_is("l_out_abs", SANDBOX_NOFOLLOW, "l_out_abs"), 0);
        assert_int_equal(open_is("l_file", SANDBOX_NOFOLLOW | SANDBOX_DIRECTORY, "."), -ENOTDIR);
        /* Not directories. */
        assert_int_equal(open_is("file/x", 0, "."), -ENOTDIR);
        assert_int_equal(open_is("file/", 0, "."), -ENOTDIR);
        assert_int_equal(open_is("file", SANDBOX_DIRECTORY, "."), -ENOTDIR);
        assert_int_equal(open_is("", 0, "."), -ENOENT);
        assert_int_equal(open_is("missing/x", 0, "."), -ENOENT);
}

static void test_kernel(void **state)
{
        sandbox_force_walk(false);
        run_cases();
}

static void test_walk(void **state)
{
        sandbox_force_walk(true);
        run_cases();
        /* More than 40 links in one resolution. */
        {
                char name[64], target[64];
                for (int i = 0; i < 45; i++) {
                        snprintf(name, sizeof(name), "root/c%d", i);
                        snprintf(target, sizeof(target), i == 44 ? "file" : "c%d", i + 1);
                        lnk(target, name);
                }
                assert_int_equal(open_is("c30", 0, "file"), 0);
                assert_int_equal(open_is("c0", 0, "."), -ELOOP);
                sandbox_force_walk(false);
                assert_int_equal(open_is("c0", 0, "."), -ELOOP);
        }
}

/* A child in its own mount namespace mounts proc inside the root: magic links there (and, for
 * the walk, every procfs link) are refused; nothing resolves to "/". */
static void test_magic_links(void **state)
{
        pid_t pid;
        int status;

        if (geteuid() != 0) {
                fprintf(stderr, "skipped: mounting proc needs root\n");
                skip();
        }
        mkd("root/p");
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                char p[PATH_MAX + 64];
                int bad = 0, rfd;
                at("root/p", p, sizeof(p));
                if (unshare(CLONE_NEWNS) < 0 ||
                    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
                    mount("proc", p, "proc", 0, NULL) < 0)
                        _exit(77);
                /* An fd opened before the unshare sees the old namespace's mounts. */
                rfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
                if (rfd < 0)
                        _exit(2);
                for (int walk = 0; walk < 2; walk++) {
                        static const char *const rels[] = {
                            "p/self/root/etc/passwd", "p/self/root",        "p/self/cwd",
                            "p/1/root/etc",           "p/thread-self/root", "p/self/fd/0"};
                        sandbox_force_walk(walk);
                        for (size_t i = 0; i < ELEMENTSOF(rels); i++) {
                                int fd, r = sandbox_open(rfd, rels[i], 0, &fd);
                                if (r == 0) {
                                        fprintf(stderr, "%s resolved (walk %d)\n", rels[i], walk);
                                        close(fd);
                                        bad = 1;
                                } else if (r != -ELOOP && r != -EXDEV && r != -EACCES) {
                                        /* EACCES: /proc/1 is not ours to look into. */
                                        fprintf(stderr, "%s: %s (walk %d)\n", rels[i], strerror(-r),
                                                walk);
                                        bad = 1;
                                }
                        }
                }
                _exit(bad);
        }
        assert_int_equal(waitpid(pid, &status, 0), pid);
        if (WIFEXITED(status) && WEXITSTATUS(status) == 77) {
                fprintf(stderr, "skipped: cannot mount proc in a new mount namespace here\n");
                skip();
        }
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

typedef struct swapper {
        int stop;
        unsigned long swaps;
} swapper_t;

/* Swaps root/race (a directory holding "f") and root/alt (a link to victim/, which holds "f" too)
 * atomically, again and again. */
static void *swap_loop(void *arg)
{
        swapper_t *s = arg;
        while (!__atomic_load_n(&s->stop, __ATOMIC_RELAXED)) {
                if (renameat2(rootfd, "race", rootfd, "alt", RENAME_EXCHANGE) == 0)
                        __atomic_add_fetch(&s->swaps, 1, __ATOMIC_RELAXED);
        }
        return NULL;
}

static int64_t now_ns(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* While another thread keeps swapping a directory for a link pointing out, no resolution ever
 * lands outside: each one gives the inside file or an error. Runs until both outcomes were seen
 * many times (bounded by a generous deadline on a host that starves the swapper). */
static void race(bool walk)
{
        char victim[PATH_MAX + 64], inside[PATH_MAX + 64];
        struct stat vs, is;
        swapper_t s = {0};
        pthread_t t;
        unsigned long ok = 0, refused = 0;
        int64_t deadline = now_ns() + 20 * (int64_t)1000000000;

        sandbox_force_walk(walk);
        at("victim/f", victim, sizeof(victim));
        at("root/race/f", inside, sizeof(inside));
        if (access(inside, F_OK) < 0) {
                char alt[PATH_MAX + 64], v[PATH_MAX + 64];
                mkd("root/race");
                touch("root/race/f");
                touch("victim/f");
                at("victim", v, sizeof(v));
                at("root/alt", alt, sizeof(alt));
                assert_int_equal(symlink(v, alt), 0);
        }
        assert_int_equal(stat(victim, &vs), 0);
        assert_int_equal(stat(inside, &is), 0);
        assert_int_equal(pthread_create(&t, NULL, swap_loop, &s), 0);
        while ((ok < 200 || refused < 200) && now_ns() < deadline) {
                struct stat st;
                int fd, r = sandbox_open(rootfd, "race/f", 0, &fd);
                if (r < 0) {
                        refused++;
                        continue;
                }
                assert_int_equal(fstat(fd, &st), 0);
                close(fd);
                if (st.st_dev == vs.st_dev && st.st_ino == vs.st_ino)
                        fail_msg("race/f resolved to the victim outside (walk %d)", walk);
                assert_true(st.st_dev == is.st_dev && st.st_ino == is.st_ino);
                ok++;
        }
        __atomic_store_n(&s.stop, 1, __ATOMIC_RELAXED);
        pthread_join(t, NULL);
        fprintf(stderr, "race (%s): %lu inside, %lu refused, %lu swaps\n",
                walk ? "walk" : "openat2", ok, refused, s.swaps);
        /* Put race back as the directory for the next round. */
        {
                struct stat st;
                char p[PATH_MAX + 64];
                at("root/race", p, sizeof(p));
                if (lstat(p, &st) == 0 && S_ISLNK(st.st_mode))
                        assert_int_equal(renameat2(rootfd, "race", rootfd, "alt", RENAME_EXCHANGE),
                                         0);
        }
}

static void test_race(void **state)
{
        race(false);
        race(true);
}

static void test_fd_path_and_reopen(void **state)
{
        char buf[PATH_MAX], p[PATH_MAX + 64];
        int fd, rw;
        struct stat a, b;

        assert_int_equal(sandbox_open(rootfd, "l_chain/deep", 0, &fd), 0);
        assert_int_equal(sandbox_fd_path(fd, buf, sizeof(buf)), 0);
        snprintf(p, sizeof(p), "%s/a/b/deep", root);
        assert_string_equal(buf, p);
        assert_int_equal(sandbox_reopen(fd, O_RDWR, &rw), 0);
        assert_int_equal(write(rw, "x", 1), 1);
        assert_int_equal(fstat(fd, &a), 0);
        assert_int_equal(fstat(rw, &b), 0);
        assert_true(a.st_ino == b.st_ino && b.st_size == 1);
        close(rw);
        /* Removed: no path any more. */
        assert_int_equal(unlink(p), 0);
        assert_int_equal(sandbox_fd_path(fd, buf, sizeof(buf)), -ENOENT);
        close(fd);
        assert_int_equal(sandbox_fd_path(fd, buf, 3), -ENOENT); /* closed */
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test_setup_teardown(test_kernel, setup, teardown),
            cmocka_unit_test_setup_teardown(test_walk, setup, teardown),
            cmocka_unit_test_setup_teardown(test_magic_links, setup, teardown),
            cmocka_unit_test_setup_teardown(test_race, setup, teardown),
            cmocka_unit_test_setup_teardown(test_fd_path_and_reopen, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
