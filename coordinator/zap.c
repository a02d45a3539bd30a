/* ZeroMQ authentication (ZAP) for CURVE: admits only public keys on the coordinator's allow-lists.
 */
#include "zap.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <zmq.h>

#include "log.h"
#include "util.h"

int zap_open(void *ctx, void **ret)
{
        void *s = zmq_socket(ctx, ZMQ_REP);
        int linger = 0;
        if (!s)
                return -errno;
        zmq_setsockopt(s, ZMQ_LINGER, &linger, sizeof(linger));
        if (zmq_bind(s, "inproc://zeromq.zap.01") < 0) {
                int r = -errno;
                zmq_close(s);
                return r;
        }
        *ret = s;
        return 0;
}

static void reply(void *zap, const char *request_id, size_t id_len, const char *status,
                  const char *text, const char *user)
{
        zmq_send(zap, "1.0", 3, ZMQ_SNDMORE);
        zmq_send(zap, request_id, id_len, ZMQ_SNDMORE);
        zmq_send(zap, status, strlen(status), ZMQ_SNDMORE);
        zmq_send(zap, text, strlen(text), ZMQ_SNDMORE);
        zmq_send(zap, user, strlen(user), ZMQ_SNDMORE);
        zmq_send(zap, "", 0, 0);
}

void zap_handle(void *zap, const keyring_t *agents, const keyring_t *control)
{
        /* version, request id, domain, address, identity, mechanism, credentials... */
        char frames[7][256];
        size_t lens[7] = {0};
        int n = 0, more = 1;
        size_t more_len = sizeof(more);
        const char *name = NULL;
        char z85[KEY_Z85_LEN + 1] = "";

        while (more) {
                char buf[256];
                int len = zmq_recv(zap, buf, sizeof(buf), 0);
                if (len < 0)
                        return;
                if (n < 7) {
                        lens[n] = (size_t)len < sizeof(buf) ? (size_t)len : sizeof(buf);
                        memcpy(frames[n], buf, lens[n]);
                }
                n++;
                zmq_getsockopt(zap, ZMQ_RCVMORE, &more, &more_len);
        }
        if (n < 6) {
                /* A REP socket must answer whatever it got. */
                reply(zap, "", 0, "500", "malformed ZAP request", "");
                return;
        }
        frames[2][lens[2] < 255 ? lens[2] : 255] = 0;
        frames[3][lens[3] < 255 ? lens[3] : 255] = 0;
        if (n >= 7 && lens[6] == 32 && lens[5] == 5 && memcmp(frames[5], "CURVE", 5) == 0) {
                const keyring_t *ring = streq(frames[2], ZAP_DOMAIN_AGENTS)    ? agents
                                        : streq(frames[2], ZAP_DOMAIN_CONTROL) ? control
                                                                               : NULL;
                name = ring ? keyring_lookup(ring, (const uint8_t *)frames[6]) : NULL;
                zmq_z85_encode(z85, (const uint8_t *)frames[6], 32);
        }
        if (name) {
                log_debug("zap: %s key '%s' from %s accepted", frames[2], name, frames[3]);
                reply(zap, frames[1], lens[1], "200", "OK", name);
                return;
        }
        log_warning("refused %s connection from %s: public key %s is not in the allow-list "
                    "(add its .pub file to the %s keys directory to admit it)",
                    frames[2], frames[3][0] ? frames[3] : "?", z85[0] ? z85 : "(not CURVE)",
                    frames[2]);
        reply(zap, frames[1], lens[1], "400", "public key not allowed", "");
}
