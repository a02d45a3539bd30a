/* ZeroMQ plumbing shared by the daemons and the CLI: CURVE set-up, framed send and receive. */
#include "sock.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <zmq.h>

#include "util.h"

void sock_msg_done(sock_msg_t *m)
{
        if (m->has_body)
                zmq_msg_close(&m->body);
        m->has_body = false;
        m->data = NULL;
        m->len = 0;
}

const char *sock_msg_meta(const sock_msg_t *m, const char *property)
{
        const char *v = m->has_body ? zmq_msg_gets(&m->body, property) : NULL;
        return v ? v : "";
}

int sock_curve_server(void *s, const keypair_t *kp, const char *zap_domain)
{
        int one = 1;
        if (zmq_setsockopt(s, ZMQ_CURVE_SERVER, &one, sizeof(one)) < 0 ||
            zmq_setsockopt(s, ZMQ_CURVE_SECRETKEY, kp->secret_z85, KEY_Z85_LEN) < 0 ||
            zmq_setsockopt(s, ZMQ_ZAP_DOMAIN, zap_domain, strlen(zap_domain)) < 0)
                return -errno;
        return 0;
}

int sock_curve_client(void *s, const keypair_t *kp, const char *server_public_z85)
{
        if (zmq_setsockopt(s, ZMQ_CURVE_SERVERKEY, server_public_z85, KEY_Z85_LEN) < 0 ||
            zmq_setsockopt(s, ZMQ_CURVE_PUBLICKEY, kp->public_z85, KEY_Z85_LEN) < 0 ||
            zmq_setsockopt(s, ZMQ_CURVE_SECRETKEY, kp->secret_z85, KEY_Z85_LEN) < 0)
                return -errno;
        return 0;
}

bool sock_endpoint_is_local(const char *ep)
{
        static const char *const local[] = {
            "tcp://127.", "tcp://localhost:", "tcp://[::1]:", "ipc://", "inproc://"};
        for (size_t i = 0; i < ELEMENTSOF(local); i++)
                if (strncmp(ep, local[i], strlen(local[i])) == 0)
                        return true;
        return false;
}

static void hex_encode(const uint8_t *p, size_t n, char *out)
{
        static const char digits[] = "0123456789abcdef";
        for (size_t i = 0; i < n; i++) {
                out[2 * i] = digits[p[i] >> 4];
                out[2 * i + 1] = digits[p[i] & 15];
        }
        out[2 * n] = 0;
}

static int hex_digit(char c)
{
        return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static int hex_decode(const char *s, uint8_t *out, size_t cap)
{
        size_t n = strlen(s);
        if (n == 0 || n % 2 || n / 2 > cap)
                return -EINVAL;
        for (size_t i = 0; i < n / 2; i++) {
                int hi = hex_digit(s[2 * i]), lo = hex_digit(s[2 * i + 1]);
                if (hi < 0 || lo < 0)
                        return -EINVAL;
                out[i] = (uint8_t)(hi << 4 | lo);
        }
        return (int)(n / 2);
}

int sock_recv(void *s, bool router, sock_msg_t *m)
{
        zmq_msg_t part;
        int more = 0, r = 0, nparts = 0;
        size_t more_len = sizeof(more);

        m->peer[0] = 0;
        m->data = NULL;
        m->len = 0;
        m->has_body = false;
        for (;;) {
                zmq_msg_init(&part);
                if (zmq_msg_recv(&part, s, ZMQ_DONTWAIT) < 0) {
                        int e = errno;
                        zmq_msg_close(&part);
                        if (nparts == 0)
                                return -e;
                        r = -e;
                        break;
                }
                nparts++;
                zmq_getsockopt(s, ZMQ_RCVMORE, &more, &more_len);
                if (router && nparts == 1) {
                        size_t n = zmq_msg_size(&part);
                        if (n == 0 || n > SOCK_MAX_PEER / 2)
                                r = -EBADMSG;
                        else
                                hex_encode(zmq_msg_data(&part), n, m->peer);
                } else if (nparts == (router ? 2 : 1)) {
                        /* The body is kept, not copied: metadata rides on frames that came
                         * over the wire, not on the routing id the ROUTER made up. */
                        zmq_msg_init(&m->body);
                        zmq_msg_move(&m->body, &part);
                        m->has_body = true;
                        m->data = zmq_msg_data(&m->body);
                        m->len = zmq_msg_size(&m->body);
                } else
                        r = -EBADMSG; /* more frames than the protocol uses */
                zmq_msg_close(&part);
                if (!more)
                        break;
        }
        if (r == 0 && nparts < (router ? 2 : 1))
                r = -EBADMSG;
        if (r < 0)
                sock_msg_done(m);
        return r;
}

int sock_send(void *s, const char *peer, const uint8_t *buf, size_t len)
{
        uint8_t id[SOCK_MAX_PEER / 2];
        if (peer) {
                int n = hex_decode(peer, id, sizeof(id));
                if (n < 0)
                        return -EINVAL;
                if (zmq_send(s, id, (size_t)n, ZMQ_SNDMORE | ZMQ_DONTWAIT) < 0)
                        return -errno;
        }
        if (zmq_send(s, buf, len, ZMQ_DONTWAIT) < 0)
                return -errno;
        return 0;
}

int sock_send_env(void *s, const char *peer, envelope_t *e)
{
        uint8_t *buf;
        size_t len;
        int r = wire_encode(e, &buf, &len);
        if (r < 0)
                return r;
        r = sock_send(s, peer, buf, len);
        free(buf);
        return r;
}

/* The next free item, its peer set; NULL when out of memory. */
static outbox_item_t *outbox_slot(outbox_t *ob, const char *peer)
{
        outbox_item_t *it;
        if (array_reserve((void **)&ob->items, &ob->cap, ob->n, sizeof(*ob->items)) < 0)
                return NULL;
        it = &ob->items[ob->n];
        snprintf(it->peer, sizeof(it->peer), "%s", peer ? peer : "");
        return it;
}

int outbox_push(outbox_t *ob, const char *peer, envelope_t *e)
{
        outbox_item_t *it = outbox_slot(ob, peer);
        int r;
        if (!it)
                return -ENOMEM;
        r = wire_encode(e, &it->buf, &it->len);
        if (r < 0)
                return r;
        ob->n++;
        return 0;
}

int outbox_push_raw(outbox_t *ob, const char *peer, const void *buf, size_t len)
{
        outbox_item_t *it = outbox_slot(ob, peer);
        if (!it || !(it->buf = malloc(len ? len : 1)))
                return -ENOMEM;
        memcpy(it->buf, buf, len);
        it->len = len;
        ob->n++;
        return 0;
}

size_t outbox_flush(outbox_t *ob, void *s)
{
        size_t failed = 0;
        for (size_t i = 0; i < ob->n; i++) {
                outbox_item_t *it = &ob->items[i];
                if (sock_send(s, it->peer, it->buf, it->len) < 0)
                        failed++;
        }
        outbox_clear(ob);
        return failed;
}

void outbox_clear(outbox_t *ob)
{
        for (size_t i = 0; i < ob->n; i++)
                free(ob->items[i].buf);
        ob->n = 0;
}

void outbox_done(outbox_t *ob)
{
        outbox_clear(ob);
        free(ob->items);
        ob->items = NULL;
        ob->cap = 0;
}

int sock_monitor_event(void *mon, uint16_t *ev, uint32_t *val, char *ep, size_t eplen)
{
        zmq_msg_t m;
        zmq_msg_init(&m);
        if (zmq_msg_recv(&m, mon, ZMQ_DONTWAIT) < 0) {
                zmq_msg_close(&m);
                return -EAGAIN;
        }
        *ev = 0;
        if (zmq_msg_size(&m) >= 6) {
                memcpy(ev, zmq_msg_data(&m), 2);
                memcpy(val, (char *)zmq_msg_data(&m) + 2, 4);
        }
        zmq_msg_close(&m);
        /* The endpoint frame always follows. */
        zmq_msg_init(&m);
        if (ep)
                ep[0] = 0;
        if (zmq_msg_recv(&m, mon, 0) >= 0 && ep && eplen) {
                size_t n = zmq_msg_size(&m) < eplen - 1 ? zmq_msg_size(&m) : eplen - 1;
                memcpy(ep, zmq_msg_data(&m), n);
                ep[n] = 0;
        }
        zmq_msg_close(&m);
        return 0;
}
