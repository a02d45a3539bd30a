/* Runs a libFuzzer target over every regular file of a corpus directory, as a plain test. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
/* Optional in a target; called once before the inputs when present. */
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

/* Reads the whole of name (relative to dirfd) into *ret (malloc'd); 0 or -errno. */
static int read_file(int dirfd, const char *name, uint8_t **ret, size_t *ret_size)
{
        uint8_t *buf = NULL, *nbuf;
        size_t size = 0, alloc = 0;
        int fd, r = 0;

        fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return -errno;
        for (;;) {
                ssize_t n;

                if (size == alloc) {
                        alloc = alloc ? alloc * 2 : 4096;
                        nbuf = realloc(buf, alloc);
                        if (!nbuf) {
                                r = -ENOMEM;
                                break;
                        }
                        buf = nbuf;
                }
                n = read(fd, buf + size, alloc - size);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0) {
                        r = -errno;
                        break;
                }
                if (n == 0)
                        break;
                size += (size_t)n;
        }
        close(fd);
        if (r < 0) {
                free(buf);
                return r;
        }
        *ret = buf;
        *ret_size = size;
        return 0;
}

int main(int argc, char **argv)
{
        struct dirent **names = NULL;
        unsigned ran = 0;
        int n, dirfd, failed = 0;

        if (argc != 2) {
                fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
                return 2;
        }
        if (LLVMFuzzerInitialize)
                LLVMFuzzerInitialize(&argc, &argv);

        dirfd = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dirfd < 0) {
                fprintf(stderr, "%s: %s\n", argv[1], strerror(errno));
                return 1;
        }
        /* sorted, so that a failure reproduces in the same order */
        n = scandir(argv[1], &names, NULL, alphasort);
        if (n < 0) {
                fprintf(stderr, "%s: %s\n", argv[1], strerror(errno));
                close(dirfd);
                return 1;
        }
        for (int i = 0; i < n; i++) {
                const char *name = names[i]->d_name;
                struct stat st;
                uint8_t *data = NULL;
                size_t size = 0;
                int r;

                if (fstatat(dirfd, name, &st, 0) < 0) {
                        fprintf(stderr, "%s/%s: %s\n", argv[1], name, strerror(errno));
                        failed = 1;
                } else if (S_ISREG(st.st_mode)) {
                        r = read_file(dirfd, name, &data, &size);
                        if (r < 0) {
                                fprintf(stderr, "%s/%s: %s\n", argv[1], name, strerror(-r));
                                failed = 1;
                        } else {
                                LLVMFuzzerTestOneInput(data, size);
                                ran++;
                        }
                        free(data);
                }
                free(names[i]);
        }
        free(names);
        close(dirfd);

        if (ran == 0) {
                fprintf(stderr, "%s: no input files\n", argv[1]);
                return 1;
        }
        printf("%s: ran %u inputs\n", argv[1], ran);
        return failed;
}
