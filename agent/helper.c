/* Helper programs by absolute path through posix_spawn, their output collected. */
#include "helper.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

static int64_t now_ms(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int helper_run(const char *const argv[], int timeout_ms, char *out, size_t outlen, int *status)
{
        static char *const envp[] = {"PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL=C", NULL};
        if (!argv || !argv[0] || argv[0][0] != '/')
                return -EINVAL;
        if (out && outlen)
                out[0] = 0;

        int pfd[2];
        if (pipe2(pfd, O_CLOEXEC) < 0)
                return -errno;
        posix_spawn_file_actions_t fa;
        posix_spawnattr_t attr;
        posix_spawn_file_actions_init(&fa);
        posix_spawnattr_init(&attr);
        posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
        posix_spawn_file_actions_adddup2(&fa, pfd[1], 1);
        posix_spawn_file_actions_adddup2(&fa, pfd[1], 2);
        /* The child starts with default signal handling and nothing blocked, whatever the
         * daemon set up for itself. */
        sigset_t none, deflt;
        sigemptyset(&none);
        sigemptyset(&deflt);
        int defaults[] = {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD, SIGUSR1, SIGUSR2};
        for (size_t i = 0; i < ELEMENTSOF(defaults); i++)
                sigaddset(&deflt, defaults[i]);
        posix_spawnattr_setsigmask(&attr, &none);
        posix_spawnattr_setsigdefault(&attr, &deflt);
        posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

        pid_t pid;
        int r = posix_spawn(&pid, argv[0], &fa, &attr, (char *const *)argv, envp);
        posix_spawn_file_actions_destroy(&fa);
        posix_spawnattr_destroy(&attr);
        close(pfd[1]);
        if (r != 0) {
                close(pfd[0]);
                return -r;
        }

        size_t used = 0;
        int64_t deadline = timeout_ms > 0 ? now_ms() + timeout_ms : 0;
        bool timed_out = false;
        for (;;) {
                int wait = -1;
                if (deadline) {
                        int64_t left = deadline - now_ms();
                        if (left <= 0) {
                                timed_out = true;
                                break;
                        }
                        wait = (int)left;
                }
                struct pollfd p = {.fd = pfd[0], .events = POLLIN};
                int n = poll(&p, 1, wait);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n == 0)
                        continue;
                char buf[1024];
                ssize_t got = read(pfd[0], buf, sizeof(buf));
                if (got < 0 && errno == EINTR)
                        continue;
                if (got <= 0)
                        break;
                if (out && outlen > 1 && used < outlen - 1) {
                        size_t take = (size_t)got < outlen - 1 - used ? (size_t)got
                                                                      : outlen - 1 - used;
                        memcpy(out + used, buf, take);
                        used += take;
                        out[used] = 0;
                }
        }
        close(pfd[0]);
        if (timed_out)
                kill(pid, SIGKILL);
        int ws;
        while (waitpid(pid, &ws, 0) < 0)
                if (errno != EINTR)
                        return -errno;
        if (timed_out)
                return -ETIMEDOUT;
        if (status)
                *status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
        return 0;
}
