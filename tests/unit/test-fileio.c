/* Unit tests for the whole-file reader: sizes at and past the cap, NUL bytes, missing files,
 * flags (regular, nofollow, nonblock), procfs files that say size 0, pipes fed in small pieces,
 * reading from the current offset and relative to a directory fd. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fileio.h"
#include "unit.h"
#include "util.h"

static char dir[64];
static char path[128];

static int setup(void **state)
{
        return unit_scratch_make(dir, sizeof(dir), "test-fileio");
}

static int teardown(void **state)
{
        unit_scratch_remove(dir);
        return 0;
}

/* DIR/name holding len bytes of data; returns its path (valid until the next call). */
static const char *put(const char *name, const void *data, size_t len)
{
        snprintf(path, sizeof(path), "%s/%s", dir, name);
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, data, len), (ssize_t)len);
        close(fd);
        return path;
}

static void test_sizes_and_cap(void **state)
{
        char *d = NULL;
        size_t n = 99;

        assert_int_equal(read_full_file(put("empty", "", 0), 0, 10, &d, &n), 0);
        assert_int_equal(n, 0);
        assert_string_equal(d, "");
        free(d);

        /* Exactly the cap is fine, one byte more is -EFBIG and leaves the outputs alone. */
        assert_int_equal(read_full_file(put("ten", "0123456789", 10), 0, 10, &d, &n), 0);
        assert_int_equal(n, 10);
        assert_string_equal(d, "0123456789");
        free(d);
        d = (char *)"untouched";
        n = 7;
        assert_int_equal(read_full_file(path, 0, 9, &d, &n), -EFBIG);
        assert_string_equal(d, "untouched");
        assert_int_equal(n, 7);
        assert_int_equal(read_full_file(path, 0, 0, &d, &n), -EFBIG);

        /* A large file, past every doubling of the buffer; the size is optional. */
        size_t big = 3 * 1024 * 1024 + 17;
        char *src = malloc(big);
        assert_non_null(src);
        for (size_t i = 0; i < big; i++)
                src[i] = (char)(i * 7 + 3);
        put("big", src, big);
        d = NULL;
        assert_int_equal(read_full_file(path, 0, big, &d, &n), 0);
        assert_int_equal(n, big);
        assert_memory_equal(d, src, big);
        assert_int_equal(d[big], 0);
        free(d);
        assert_int_equal(read_full_file(path, 0, big - 1, &d, NULL), -EFBIG);
        assert_int_equal(read_full_file(path, 0, READ_FULL_MAX, &d, NULL), 0);
        free(d);
        free(src);
}

static void test_nul_bytes(void **state)
{
        char *d = NULL;
        size_t n = 0;
        assert_int_equal(read_full_file(put("nul", "a\0b\0", 4), 0, 64, &d, &n), 0);
        assert_int_equal(n, 4);
        assert_memory_equal(d, "a\0b\0", 5);
        free(d);
}

static void test_missing_and_flags(void **state)
{
        char *d = NULL;
        size_t n = 5;
        char missing[160], link[160];
        snprintf(missing, sizeof(missing), "%s/missing", dir);

        assert_int_equal(read_full_file(missing, 0, 64, &d, &n), -ENOENT);
        assert_null(d);
        assert_int_equal(n, 5);
        put("file", "x", 1);
        snprintf(missing, sizeof(missing), "%s/file/x", dir);
        assert_int_equal(read_full_file(missing, 0, 64, &d, &n), -ENOTDIR);

        /* A directory: -EINVAL with READ_FULL_REGULAR (checked before reading), else read(2)'s
         * own -EISDIR. */
        assert_int_equal(read_full_file(dir, READ_FULL_REGULAR, 64, &d, &n), -EINVAL);
        assert_int_equal(read_full_file(dir, 0, 64, &d, &n), -EISDIR);

        /* A symbolic link is followed unless READ_FULL_NOFOLLOW. */
        put("target", "t", 1);
        snprintf(link, sizeof(link), "%s/link", dir);
        assert_int_equal(symlink(path, link), 0);
        assert_int_equal(read_full_file(link, READ_FULL_NOFOLLOW, 64, &d, &n), -ELOOP);
        assert_int_equal(read_full_file(link, 0, 64, &d, &n), 0);
        assert_string_equal(d, "t");
        free(d);

        /* A FIFO with no writer: READ_FULL_NONBLOCK opens and reads it at once (empty), and
         * READ_FULL_REGULAR refuses it without opening it for long. */
        char fifo[160];
        snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
        assert_int_equal(mkfifo(fifo, 0600), 0);
        assert_int_equal(read_full_file(fifo, READ_FULL_NONBLOCK, 64, &d, &n), 0);
        assert_int_equal(n, 0);
        free(d);
        assert_int_equal(read_full_file(fifo, READ_FULL_NONBLOCK | READ_FULL_REGULAR, 64, &d, &n),
                         -EINVAL);
}

/* procfs says 0 bytes for files that hold more than the first buffer. */
static void test_procfs(void **state)
{
        char *d = NULL;
        size_t n = 0;
        assert_int_equal(read_full_file("/proc/self/status", READ_FULL_REGULAR, 1 << 20, &d, &n),
                         0);
        assert_true(n > 0);
        assert_int_equal(strlen(d), n);
        assert_non_null(strstr(d, "Name:"));
        free(d);
        /* smaps is usually several pages: read past the 4 KiB first guess. */
        assert_int_equal(read_full_file("/proc/self/smaps", 0, 64 << 20, &d, &n), 0);
        assert_int_equal(strlen(d), n);
        free(d);
}

/* A pipe fed in small pieces with pauses: every short read is gathered, and the cap holds for
 * data that arrives after the read began. */
static void feed(int wfd, size_t total, size_t piece)
{
        char buf[4096];
        for (size_t i = 0; i < sizeof(buf); i++)
                buf[i] = (char)('a' + i % 26);
        for (size_t off = 0; off < total;) {
                size_t k = total - off < piece ? total - off : piece;
                if (write(wfd, buf, k) != (ssize_t)k)
                        _exit(1);
                off += k;
                if (off % (piece * 16) == 0)
                        usleep(1000);
        }
        _exit(0);
}

static void read_pipe(size_t total, size_t max, int expect, size_t *n)
{
        int p[2];
        char *d = NULL;
        assert_int_equal(pipe2(p, O_CLOEXEC), 0);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                close(p[0]);
                feed(p[1], total, 1000);
        }
        close(p[1]);
        assert_int_equal(read_full_fd(p[0], max, &d, n), expect);
        close(p[0]);
        int ws;
        waitpid(pid, &ws, 0);
        if (expect == 0) {
                for (size_t i = 0; i < *n; i++)
                        if (d[i] != (char)('a' + (i % 1000) % 26))
                                fail_msg("byte %zu differs", i);
                free(d);
        }
}

static void test_pipe(void **state)
{
        size_t n = 0;
        read_pipe(300 * 1000, 300 * 1000, 0, &n);
        assert_int_equal(n, 300 * 1000);
        read_pipe(300 * 1000, 300 * 1000 - 1, -EFBIG, &n);
        read_pipe(0, 10, 0, &n);
        assert_int_equal(n, 0);
}

/* From the current offset; relative to a directory fd. */
static void test_offset_and_dirfd(void **state)
{
        char *d = NULL;
        size_t n = 0;
        put("off", "headerbody", 10);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        assert_true(fd >= 0);
        assert_int_equal(lseek(fd, 6, SEEK_SET), 6);
        assert_int_equal(read_full_fd(fd, 4, &d, &n), 0);
        assert_string_equal(d, "body");
        free(d);
        close(fd);

        int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        assert_true(dfd >= 0);
        assert_int_equal(read_full_file_at(dfd, "off", READ_FULL_REGULAR, 64, &d, &n), 0);
        assert_string_equal(d, "headerbody");
        free(d);
        assert_int_equal(read_full_file_at(dfd, "nope", 0, 64, &d, &n), -ENOENT);
        close(dfd);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_sizes_and_cap),
            cmocka_unit_test(test_nul_bytes),
            cmocka_unit_test(test_missing_and_flags),
            cmocka_unit_test(test_procfs),
            cmocka_unit_test(test_pipe),
            cmocka_unit_test(test_offset_and_dirfd),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
