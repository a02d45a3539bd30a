/* The CLI's connection to a coordinator's control socket: one request, then replies and updates. */
#include "client.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zmq.h>

#include "sock.h"
#include "clock.h"
#include "util.h"

struct client {
        void *ctx, *sock;
        uint64_t seq;
        char endpoint[256];
        char done_run[WIRE_MAX_ID + 1]; /* the last run whose RunDone came */
};

/* Connecting to a unix socket takes write permission on it (and search permission on its
 * directories): say so, and which group has it, rather than time out. */
static int check_ipc(const char *path, char *err, size_t errlen)
{
        struct stat st;
        char group[64];

        if (faccessat(AT_FDCWD, path, W_OK, AT_EACCESS) == 0)
                return 0;
        if (errno != EACCES && errno != EPERM)
                return errorf(err, errlen, -errno,
                              "no coordinator at ipc://%s: %s (is iofleet-coordinator running?)",
                              path, strerror(errno));
        if (stat(path, &st) == 0) {
                struct group *g = getgrgid(st.st_gid);
                if (g)
                        snprintf(group, sizeof(group), "%s", g->gr_name);
                else
                        snprintf(group, sizeof(group), "%u", (unsigned)st.st_gid);
                return errorf(err, errlen, -EACCES,
                              "permission denied on the control socket %s (group %s): members "
                              "of group %s may use it (add this user to it, then log in again)",
                              path, group, group);
        }
        return errorf(err, errlen, -EACCES,
                      "permission denied on the control socket %s: this user may not search its "
                      "directory",
                      path);
}

int client_connect(const char *endpoint, const keypair_t *kp, const char *server_public,
                   client_t **ret, char *err, size_t errlen)
{
        client_t *c = calloc(1, sizeof(*c));
        int linger = 0, r;
        int64_t maxmsg = WIRE_MAX_CONTROL_MSG;

        if (!c)
                return -ENOMEM;
        /* ZeroMQ connects lazily: without this, a missing coordinator or a socket this user may
         * not use shows as a timeout. */
        if (strncmp(endpoint, "ipc://", 6) == 0 && (r = check_ipc(endpoint + 6, err, errlen)) < 0) {
                free(c);
                return r;
        }
        c->ctx = zmq_ctx_new();
        c->sock = c->ctx ? zmq_socket(c->ctx, ZMQ_DEALER) : NULL;
        if (!c->sock) {
                snprintf(err, errlen, "zmq: %s", zmq_strerror(errno));
                client_free(&c);
                return -ENOMEM;
        }
        zmq_setsockopt(c->sock, ZMQ_LINGER, &linger, sizeof(linger));
        zmq_setsockopt(c->sock, ZMQ_MAXMSGSIZE, &maxmsg, sizeof(maxmsg));
        if (strncmp(endpoint, "tcp://", 6) == 0 && kp) {
                if ((r = sock_curve_client(c->sock, kp, server_public)) < 0) {
                        snprintf(err, errlen, "CURVE setup: %s", strerror(-r));
                        client_free(&c);
                        return r;
                }
        }
        snprintf(c->endpoint, sizeof(c->endpoint), "%s", endpoint);
        if (zmq_connect(c->sock, endpoint) < 0) {
                r = -errno;
                snprintf(err, errlen, "cannot connect to %s: %s", endpoint, zmq_strerror(errno));
                client_free(&c);
                return r;
        }
        *ret = c;
        return 0;
}

int client_send(client_t *c, envelope_t *e)
{
        uint8_t *buf;
        size_t len;
        int r;
        e->seq = ++c->seq;
        if ((r = wire_encode(e, &buf, &len)) < 0)
                return r;
        r = zmq_send(c->sock, buf, len, 0) < 0 ? -errno : 0;
        free(buf);
        return r;
}

int client_recv(client_t *c, int timeout_ms, envelope_t **ret, char *err, size_t errlen)
{
        zmq_pollitem_t it = {c->sock, 0, ZMQ_POLLIN, 0};
        sock_msg_t m;
        int r = zmq_poll(&it, 1, timeout_ms);

        if (r < 0)
                return -errno;
        if (r == 0)
                return -ETIMEDOUT;
        if ((r = sock_recv(c->sock, false, &m)) < 0)
                return r;
        r = wire_decode(m.data, m.len, WIRE_MAX_CONTROL_MSG, ret, err, errlen);
        sock_msg_done(&m);
        if (r == -EPROTO)
                wire_free(ret);
        if (r == 0 && (*ret)->body_case == IOFLEET__ENVELOPE__BODY_RUN_DONE)
                snprintf(c->done_run, sizeof(c->done_run), "%s",
                         (*ret)->run_done->run_id ? (*ret)->run_done->run_id : "");
        return r;
}

int client_call(client_t *c, envelope_t *req, int timeout_ms, Iofleet__Envelope__BodyCase expect,
                envelope_t **ret, char *err, size_t errlen)
{
        envelope_t *rep = NULL;
        int r = client_send(c, req);

        if (r < 0) {
                snprintf(err, errlen, "cannot send to %s: %s", c->endpoint, strerror(-r));
                return r;
        }
        err[0] = 0;
        int64_t deadline = clock_mono_ns() + (int64_t)timeout_ms * NSEC_PER_MSEC;
        for (;;) {
                int64_t left = (deadline - clock_mono_ns()) / NSEC_PER_MSEC;
                r = client_recv(c, left > 0 ? (int)left : 0, &rep, err, errlen);
                /* What follows a run comes unasked, and may cross its end (the answer to a
                 * WatchRun ping: the run's RunAccepted, or its RunDone again): not the answer to
                 * this call. */
                if (r == 0 &&
                    ((rep->body_case != expect &&
                      (rep->body_case == IOFLEET__ENVELOPE__BODY_RUN_UPDATE ||
                       rep->body_case == IOFLEET__ENVELOPE__BODY_RUN_DONE ||
                       rep->body_case == IOFLEET__ENVELOPE__BODY_AGENT_LIST)) ||
                     (rep->body_case == IOFLEET__ENVELOPE__BODY_RUN_ACCEPTED && c->done_run[0] &&
                      streq(rep->run_accepted->run_id ? rep->run_accepted->run_id : "",
                            c->done_run)))) {
                        wire_free(&rep);
                        continue;
                }
                break;
        }
        if (r == -ETIMEDOUT)
                snprintf(err, errlen, "no answer from the coordinator at %s within %ds",
                         c->endpoint, timeout_ms / 1000);
        else if (r < 0 && !err[0])
                snprintf(err, errlen, "%s", strerror(-r));
        else if (r == 0 && rep->body_case == IOFLEET__ENVELOPE__BODY_ERROR) {
                snprintf(err, errlen, "%s", rep->error->message);
                r = -EREMOTEIO;
        } else if (r == 0 && rep->body_case != expect) {
                snprintf(err, errlen, "unexpected answer '%s' from the coordinator",
                         wire_body_name(rep));
                r = -EBADMSG;
        }
        if (r < 0) {
                wire_free(&rep);
                return r;
        }
        *ret = rep;
        return 0;
}

void client_free(client_t **cp)
{
        client_t *c = *cp;
        if (!c)
                return;
        if (c->sock)
                zmq_close(c->sock);
        if (c->ctx)
                zmq_ctx_term(c->ctx);
        free(c);
        *cp = NULL;
}
