/* attack: what an attacker with an account and one allowed key does to a coordinator, for the
 * security integration tests (issue 9). */

/*
 * Usage:
 *   attack hello   --endpoint=EP --server-key=PUB --key=KEY [--count=N] [--id=ID] [--name=NAME]
 *                  [--connections=C] [--wait=SECONDS]
 *       N Hellos (default 1) over each of C CURVE connections (default 1), each with its own
 *       agent id and name (ID/NAME when given for a single hello, else made up: ID-i, NAME-i);
 *       then waits for the answers (default 5 s) and prints "welcomed=W refused=R
 *       unanswered=U" and the first refusal's text. With a key the coordinator does not allow,
 *       every connection is a refused handshake.
 *   attack garbage --endpoint=EP --server-key=PUB --key=KEY [--count=N]
 *       N messages that are not protocol buffers (default 200000) over one CURVE connection,
 *       as fast as the connection takes them; prints "sent=N answers=A".
 *   attack connect --endpoint=tcp://HOST:PORT|ipc://PATH [--count=N] [--hold=SECONDS]
 *       N raw TCP connections (default 300, 8 every 5 ms) that never say a word, held open
 *       (default 10 s, or until SIGTERM); prints "connected=C" (the kernel's handshakes, not
 *       what the coordinator accepted) once they are up, then "closed".
 *
 * Exit status: 0 when the attack ran (whatever the coordinator did), 1 on a local error (no
 * key, no memory), 2 on a usage error.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include <zmq.h>

#include "keys.h"
#include "sock.h"
#include "util.h"
#include "wire.h"

static const char *opt(int argc, char **argv, const char *name, const char *def)
{
        size_t n = strlen(name);
        for (int i = 2; i < argc; i++)
                if (strncmp(argv[i], name, n) == 0 && argv[i][n] == '=')
                        return argv[i] + n + 1;
        return def;
}

static int64_t now_ms(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A CURVE DEALER to the coordinator, authenticated with the key pair in key_path. */
static void *curve_dealer(void *ctx, const char *ep, const char *server_pub, const char *key_path)
{
        keypair_t kp, server;
        char err[512];
        void *s;
        int linger = 0, hwm = 0;

        if (keys_load(key_path, true, &kp, err, sizeof(err)) < 0 ||
            keys_load(server_pub, false, &server, err, sizeof(err)) < 0) {
                fprintf(stderr, "attack: %s\n", err);
                return NULL;
        }
        s = zmq_socket(ctx, ZMQ_DEALER);
        zmq_setsockopt(s, ZMQ_LINGER, &linger, sizeof(linger));
        zmq_setsockopt(s, ZMQ_SNDHWM, &hwm, sizeof(hwm));
        if (sock_curve_client(s, &kp, server.public_z85) < 0 || zmq_connect(s, ep) < 0) {
                fprintf(stderr, "attack: %s: %s\n", ep, zmq_strerror(errno));
                zmq_close(s);
                return NULL;
        }
        return s;
}

/* Reads what arrives within timeout_ms, or until want answers came; counts Welcomes and
 * Errors. */
static void drain(void *s, int timeout_ms, unsigned want, unsigned *welcomed, unsigned *refused,
                  char *first, size_t firstlen)
{
        int64_t until = now_ms() + timeout_ms;
        while (*welcomed + *refused < want) {
                zmq_pollitem_t it = {s, 0, ZMQ_POLLIN, 0};
                int64_t left = until - now_ms();
                sock_msg_t m;
                envelope_t *e = NULL;
                char err[256];
                if (zmq_poll(&it, 1, left > 0 ? left : 0) <= 0)
                        return;
                if (sock_recv(s, false, &m) < 0)
                        continue;
                if (wire_decode(m.data, m.len, WIRE_MAX_AGENT_MSG, &e, err, sizeof(err)) == 0) {
                        if (e->body_case == IOFLEET__ENVELOPE__BODY_WELCOME)
                                (*welcomed)++;
                        else if (e->body_case == IOFLEET__ENVELOPE__BODY_ERROR) {
                                if (*refused == 0 && first)
                                        snprintf(first, firstlen, "%s", e->error->message);
                                (*refused)++;
                        }
                }
                wire_free(&e);
                sock_msg_done(&m);
        }
}

static int cmd_hello(int argc, char **argv)
{
        const char *ep = opt(argc, argv, "--endpoint", NULL);
        const char *pub = opt(argc, argv, "--server-key", NULL);
        const char *key = opt(argc, argv, "--key", NULL);
        const char *id = opt(argc, argv, "--id", NULL), *name = opt(argc, argv, "--name", NULL);
        unsigned count = (unsigned)atoi(opt(argc, argv, "--count", "1"));
        unsigned conns = (unsigned)atoi(opt(argc, argv, "--connections", "1"));
        int wait_s = atoi(opt(argc, argv, "--wait", "5"));
        unsigned welcomed = 0, refused = 0;
        char first[512] = "";
        void *ctx, **s;

        if (!ep || !pub || !key || conns == 0)
                return 2;
        ctx = zmq_ctx_new();
        s = calloc(conns, sizeof(*s));
        for (unsigned c = 0; s && c < conns; c++)
                if (!(s[c] = curve_dealer(ctx, ep, pub, key)))
                        return 1;
        for (unsigned i = 0; s && i < count * conns; i++) {
                envelope_t e = IOFLEET__ENVELOPE__INIT;
                Iofleet__Hello h = IOFLEET__HELLO__INIT;
                char idbuf[80], namebuf[80];
                if (id && count * conns == 1)
                        snprintf(idbuf, sizeof(idbuf), "%s", id);
                else
                        snprintf(idbuf, sizeof(idbuf), "%s-%u", id ? id : "attack", i);
                if (name && count * conns == 1)
                        snprintf(namebuf, sizeof(namebuf), "%s", name);
                else
                        snprintf(namebuf, sizeof(namebuf), "%s-%u", name ? name : "attack", i);
                h.agent_id = idbuf;
                h.name = namebuf;
                h.hostname = "attacker";
                h.version = IOFLEET_VERSION;
                e.seq = i / conns + 1;
                e.body_case = IOFLEET__ENVELOPE__BODY_HELLO;
                e.hello = &h;
                sock_send_env(s[i % conns], NULL, &e);
                drain(s[i % conns], 0, count * conns, &welcomed, &refused, first, sizeof(first));
        }
        /* The answers, from whichever connection. */
        for (int64_t until = now_ms() + wait_s * 1000;
             welcomed + refused < count * conns && now_ms() < until;)
                for (unsigned c = 0; c < conns; c++)
                        drain(s[c], conns == 1 ? (int)(until - now_ms()) : 10, count * conns,
                              &welcomed, &refused, first, sizeof(first));
        printf("welcomed=%u refused=%u unanswered=%u\n", welcomed, refused,
               count * conns > welcomed + refused ? count * conns - welcomed - refused : 0);
        if (first[0])
                printf("first refusal: %s\n", first);
        for (unsigned c = 0; c < conns; c++)
                zmq_close(s[c]);
        free(s);
        zmq_ctx_term(ctx);
        return 0;
}

static int cmd_garbage(int argc, char **argv)
{
        const char *ep = opt(argc, argv, "--endpoint", NULL);
        const char *pub = opt(argc, argv, "--server-key", NULL);
        const char *key = opt(argc, argv, "--key", NULL);
        unsigned count = (unsigned)atoi(opt(argc, argv, "--count", "200000"));
        unsigned answers = 0, refused = 0, sent = 0;
        /* Not a protocol buffer: a field number 0 is invalid. */
        static const uint8_t junk[] = {0x00, 0xff, 0xff, 0xff, 0x0f, 0x42, 0x42};
        void *ctx, *s;

        if (!ep || !pub || !key)
                return 2;
        ctx = zmq_ctx_new();
        if (!(s = curve_dealer(ctx, ep, pub, key)))
                return 1;
        for (; sent < count; sent++) {
                if (zmq_send(s, junk, sizeof(junk), 0) < 0)
                        break;
                if (sent % 256 == 0)
                        drain(s, 0, UINT32_MAX, &answers, &refused, NULL, 0);
        }
        drain(s, 2000, UINT32_MAX, &answers, &refused, NULL, 0);
        printf("sent=%u answers=%u\n", sent, answers + refused);
        zmq_close(s);
        zmq_ctx_term(ctx);
        return 0;
}

static volatile sig_atomic_t stop;
static void on_term(int sig)
{
        stop = 1;
}

static int cmd_connect(int argc, char **argv)
{
        const char *ep = opt(argc, argv, "--endpoint", NULL);
        unsigned count = (unsigned)atoi(opt(argc, argv, "--count", "300"));
        int hold_s = atoi(opt(argc, argv, "--hold", "10"));
        struct sockaddr_in a = {.sin_family = AF_INET};
        struct sockaddr_un u = {.sun_family = AF_UNIX};
        struct sockaddr *sa = (struct sockaddr *)&a;
        socklen_t salen = sizeof(a);
        char host[64];
        int port = 0, *fds, family = AF_INET;
        unsigned connected = 0;
        struct rlimit rl;
        int64_t until;

        if (ep && strncmp(ep, "ipc://", 6) == 0 && strlen(ep + 6) < sizeof(u.sun_path)) {
                strcpy(u.sun_path, ep + 6);
                sa = (struct sockaddr *)&u;
                salen = sizeof(u);
                family = AF_UNIX;
        } else if (!ep || sscanf(ep, "tcp://%63[^:]:%d", host, &port) != 2 ||
                   inet_pton(AF_INET, host, &a.sin_addr) != 1)
                return 2;
        a.sin_port = htons((uint16_t)port);
        /* The attacker's own limit is not the point. */
        if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
                rl.rlim_cur = rl.rlim_max;
                setrlimit(RLIMIT_NOFILE, &rl);
        }
        signal(SIGTERM, on_term);
        signal(SIGINT, on_term);
        fds = calloc(count, sizeof(*fds));
        if (!fds)
                return 1;
        /* In batches, so that a small listen backlog does not slow the flood down. */
        for (unsigned i = 0; i < count; i++) {
                fds[i] = socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
                if (fds[i] >= 0)
                        connect(fds[i], sa, salen);
                if (i % 8 == 7)
                        usleep(5000);
        }
        /* Up to 3 s for the handshakes the coordinator answers; the others stay pending. */
        until = now_ms() + 3000;
        for (unsigned i = 0; i < count; i++) {
                struct pollfd p = {fds[i], POLLOUT, 0};
                int64_t left = until - now_ms();
                int e = 0;
                socklen_t l = sizeof(e);
                if (fds[i] >= 0 && poll(&p, 1, left > 0 ? (int)left : 0) == 1 &&
                    getsockopt(fds[i], SOL_SOCKET, SO_ERROR, &e, &l) == 0 && e == 0)
                        connected++;
        }
        printf("connected=%u of %u\n", connected, count);
        fflush(stdout);
        until = now_ms() + (int64_t)hold_s * 1000;
        while (!stop && now_ms() < until)
                usleep(50000);
        for (unsigned i = 0; i < count; i++)
                if (fds[i] >= 0)
                        close(fds[i]);
        free(fds);
        printf("closed\n");
        return 0;
}

int main(int argc, char **argv)
{
        if (argc < 2)
                goto usage;
        if (streq(argv[1], "hello"))
                return cmd_hello(argc, argv);
        if (streq(argv[1], "garbage"))
                return cmd_garbage(argc, argv);
        if (streq(argv[1], "connect"))
                return cmd_connect(argc, argv);
usage:
        fprintf(stderr, "usage: attack hello|garbage|connect --endpoint=EP ... (see attack.c)\n");
        return 2;
}
