/* ZeroMQ authentication (ZAP) for CURVE: admits only public keys on the coordinator's allow-lists.
 */
#include "zap.h"

#include <endian.h>
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

/* A reply; an accepted key's public key rides along as connection metadata (ZAP_PROPERTY_KEY),
 * so a later change of the allow-list can tell which connections used a key it dropped. */
static void reply(void *zap, const char *request_id, size_t id_len, const char *status,
                  const char *text, const char *user, const char *z85)
{
        uint8_t meta[1 + sizeof(ZAP_PROPERTY_KEY) + 4 + KEY_Z85_LEN];
        size_t name_len = strlen(ZAP_PROPERTY_KEY), len = 0;

        if (z85 && *z85) {
                uint32_t vlen = htobe32(KEY_Z85_LEN);
                meta[len++] = (uint8_t)name_len;
                memcpy(meta + len, ZAP_PROPERTY_KEY, name_len);
                len += name_len;
                memcpy(meta + len, &vlen, 4);
                len += 4;
                memcpy(meta + len, z85, KEY_Z85_LEN);
                len += KEY_Z85_LEN;
        }
        zmq_send(zap, "1.0", 3, ZMQ_SNDMORE);
        zmq_send(zap, request_id, id_len, ZMQ_SNDMORE);
        zmq_send(zap, status, strlen(status), ZMQ_SNDMORE);
        zmq_send(zap, text, strlen(text), ZMQ_SNDMORE);
        zmq_send(zap, user, strlen(user), ZMQ_SNDMORE);
        zmq_send(zap, meta, len, 0);
}

int zap_handle(void *zap, const keyring_t *agents, const keyring_t *control, enroll_srv_t *enroll,
               ratelimit_t *rl, int64_t now)
{
        /* version, request id, domain, address, identity, mechanism, credentials... */
        char frames[7][256];
        size_t lens[7] = {0};
        int n = 0, more = 1;
        size_t more_len = sizeof(more);
        const char *name = NULL;
        char z85[KEY_Z85_LEN + 1] = "", peer[320], note[96];
        uint64_t held = 0;

        while (more) {
                char buf[256];
                /* Only the first frame may be missing; the rest of a message is there with it. */
                int len = zmq_recv(zap, buf, sizeof(buf), n == 0 ? ZMQ_DONTWAIT : 0);
                if (len < 0)
                        return -errno;
                if (n < 7) {
                        lens[n] = (size_t)len < sizeof(buf) ? (size_t)len : sizeof(buf);
                        memcpy(frames[n], buf, lens[n]);
                }
                n++;
                zmq_getsockopt(zap, ZMQ_RCVMORE, &more, &more_len);
        }
        if (n < 6) {
                /* A REP socket must answer whatever it got. */
                reply(zap, "", 0, "500", "malformed ZAP request", "", NULL);
                return 0;
        }
        frames[2][lens[2] < 255 ? lens[2] : 255] = 0;
        frames[3][lens[3] < 255 ? lens[3] : 255] = 0;
        if (streq(frames[2], ZAP_DOMAIN_ENROLL)) {
                /* Only a live token's key gets through, and it stands for the token (its id). */
                char id[64] = "";
                const char *status = "400";
                if (enroll && n >= 7 && lens[6] == 32 && lens[5] == 5 &&
                    memcmp(frames[5], "CURVE", 5) == 0) {
                        status = enroll_srv_zap(enroll, (const uint8_t *)frames[6], frames[3], now,
                                                id, sizeof(id));
                        zmq_z85_encode(z85, (const uint8_t *)frames[6], 32);
                }
                reply(zap, frames[1], lens[1], status, streq(status, "200") ? "OK" : "refused",
                      streq(status, "200") ? id : "", streq(status, "200") ? z85 : NULL);
                return 0;
        }
        if (n >= 7 && lens[6] == 32 && lens[5] == 5 && memcmp(frames[5], "CURVE", 5) == 0) {
                const keyring_t *ring = streq(frames[2], ZAP_DOMAIN_AGENTS)    ? agents
                                        : streq(frames[2], ZAP_DOMAIN_CONTROL) ? control
                                                                               : NULL;
                name = ring ? keyring_lookup(ring, (const uint8_t *)frames[6]) : NULL;
                zmq_z85_encode(z85, (const uint8_t *)frames[6], 32);
        }
        if (name) {
                log_debug("zap: %s key '%s' from %s accepted", frames[2], name, frames[3]);
                reply(zap, frames[1], lens[1], "200", "OK", name, z85);
                return 0;
        }
        /* A flood of handshakes from one address logs a few lines a minute, then a count. */
        snprintf(peer, sizeof(peer), "%s connections from %s", frames[2],
                 frames[3][0] ? frames[3] : "?");
        if (!rl || ratelimit_allow(rl, peer, now, &held))
                log_warning("refused %s connection from %s: public key %s is not in the "
                            "allow-list (add its .pub file to the %s keys directory to admit "
                            "it)%s",
                            frames[2], frames[3][0] ? frames[3] : "?",
                            z85[0] ? z85 : "(not CURVE)", frames[2],
                            ratelimit_held_note(held, note, sizeof(note)));
        reply(zap, frames[1], lens[1], "400", "public key not allowed", "", NULL);
        return 0;
}
