/* notify-listen: a stand-in for systemd's notify socket that logs each sd_notify() message as one
 * line. */

/*
 * Usage: notify-listen SOCKET_PATH OUT_FILE
 *
 * Binds an AF_UNIX datagram socket at SOCKET_PATH (removing whatever is there first) and
 * appends every datagram to OUT_FILE as one line: each run of newlines inside it becomes
 * one space, newlines at its start and end are dropped. Each line is written with one
 * write(2), so a reader never sees half a message. On SIGTERM or SIGINT it reads what is
 * still queued, removes the socket and exits 0.
 *
 * A test starts it in the background, waits until SOCKET_PATH exists (the socket is
 * bound by then), and runs the daemon with NOTIFY_SOCKET=SOCKET_PATH.
 *
 * Exit status: 0 after a signal, 1 on a runtime error, 2 on a usage error.
 * No project dependencies: build with `gcc -Wall -Wextra -Werror`.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* Turns msg[0..len) into one line ending in '\n' in out (room for len + 1 bytes);
 * returns the line's length. */
static size_t to_line(const char *msg, size_t len, char *out)
{
        size_t n = 0;
        int pending_space = 0;

        for (size_t i = 0; i < len; i++) {
                if (msg[i] == '\n') {
                        pending_space = n > 0;
                        continue;
                }
                if (pending_space) {
                        out[n++] = ' ';
                        pending_space = 0;
                }
                out[n++] = msg[i];
        }
        out[n++] = '\n';
        return n;
}

static int write_all(int fd, const char *buf, size_t len)
{
        while (len > 0) {
                ssize_t w = write(fd, buf, len);
                if (w < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                buf += w;
                len -= (size_t)w;
        }
        return 0;
}

/* Reads one queued datagram, if any, and appends it to out_fd.
 * Returns 1 if a datagram was logged, 0 if none was queued, -errno on failure. */
static int log_one(int sock, int out_fd)
{
        /* MSG_TRUNC with MSG_PEEK returns the datagram's full length, so none is cut short. */
        ssize_t len = recv(sock, NULL, 0, MSG_PEEK | MSG_TRUNC | MSG_DONTWAIT);
        if (len < 0)
                return (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) ? 0 : -errno;

        char *msg = malloc((size_t)len + 1);
        char *line = malloc((size_t)len + 2);
        int r;
        if (!msg || !line) {
                r = -ENOMEM;
                goto out;
        }
        ssize_t got = recv(sock, msg, (size_t)len + 1, MSG_DONTWAIT);
        if (got < 0) {
                r = (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) ? 0 : -errno;
                goto out;
        }
        r = write_all(out_fd, line, to_line(msg, (size_t)got, line));
        if (r == 0)
                r = 1;
out:
        free(msg);
        free(line);
        return r;
}

int main(int argc, char **argv)
{
        if (argc != 3) {
                fprintf(stderr, "usage: %s SOCKET_PATH OUT_FILE\n", argv[0]);
                return 2;
        }
        const char *sock_path = argv[1];
        const char *out_path = argv[2];

        struct sockaddr_un addr = {.sun_family = AF_UNIX};
        if (strlen(sock_path) >= sizeof(addr.sun_path)) {
                fprintf(stderr,
                        "notify-listen: socket path too long (%zu bytes, at most %zu): %s\n",
                        strlen(sock_path), sizeof(addr.sun_path) - 1, sock_path);
                return 2;
        }
        strcpy(addr.sun_path, sock_path);

        /* Block the signals before anything else so one sent early is not lost. */
        sigset_t mask;
        sigemptyset(&mask);
        sigaddset(&mask, SIGTERM);
        sigaddset(&mask, SIGINT);
        if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0) {
                fprintf(stderr, "notify-listen: sigprocmask: %s\n", strerror(errno));
                return 1;
        }
        int sig_fd = signalfd(-1, &mask, SFD_CLOEXEC);
        if (sig_fd < 0) {
                fprintf(stderr, "notify-listen: signalfd: %s\n", strerror(errno));
                return 1;
        }

        int out_fd = open(out_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        if (out_fd < 0) {
                fprintf(stderr, "notify-listen: cannot open %s: %s\n", out_path, strerror(errno));
                return 1;
        }

        int sock = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (sock < 0) {
                fprintf(stderr, "notify-listen: socket: %s\n", strerror(errno));
                return 1;
        }
        if (unlink(sock_path) < 0 && errno != ENOENT) {
                fprintf(stderr, "notify-listen: cannot remove %s: %s\n", sock_path,
                        strerror(errno));
                return 1;
        }
        if (bind(sock, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
                fprintf(stderr, "notify-listen: cannot bind %s: %s\n", sock_path, strerror(errno));
                return 1;
        }

        int status = 0;
        for (;;) {
                struct pollfd pfd[2] = {
                    {.fd = sock, .events = POLLIN},
                    {.fd = sig_fd, .events = POLLIN},
                };
                if (poll(pfd, 2, -1) < 0) {
                        if (errno == EINTR)
                                continue;
                        fprintf(stderr, "notify-listen: poll: %s\n", strerror(errno));
                        status = 1;
                        break;
                }
                if (pfd[0].revents & POLLIN) {
                        int r = log_one(sock, out_fd);
                        if (r < 0) {
                                fprintf(stderr, "notify-listen: %s\n", strerror(-r));
                                status = 1;
                                break;
                        }
                }
                if (pfd[1].revents & POLLIN) {
                        /* Log what the daemon sent just before it exited, then stop. */
                        int r;
                        while ((r = log_one(sock, out_fd)) > 0)
                                ;
                        if (r < 0) {
                                fprintf(stderr, "notify-listen: %s\n", strerror(-r));
                                status = 1;
                        }
                        break;
                }
        }

        unlink(sock_path);
        close(sock);
        close(out_fd);
        close(sig_fd);
        return status;
}
