/* ZeroMQ plumbing shared by the daemons and the CLI: CURVE set-up, framed send and receive. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <zmq.h>

#include "keys.h"
#include "wire.h"

/* Peers are named by the hex form of the routing id ZeroMQ gave their connection (at most 32
 * bytes), so a peer cannot choose its own name and take over another's connection. */
#define SOCK_MAX_PEER 64

/* Connection metadata a ZAP handler may set: the public key (Z85) the peer authenticated with. */
#define SOCK_PROPERTY_KEY "X-Curve-Key"

/* One received message. Its body is the frame as ZeroMQ received it (no copy); the connection's
 * metadata is looked up when asked for (sock_msg_user() and the others), which a busy
 * coordinator does for a Hello or a bad message, not for each of 10 000 Intervals a second.
 * Never copied by value: the frame belongs to it. */
typedef struct sock_msg {
        char peer[SOCK_MAX_PEER + 1]; /* ROUTER: the connection's routing id in hex; DEALER: empty */
        const uint8_t *data;          /* the body, valid until sock_msg_done() */
        size_t len;
        zmq_msg_t body; /* the frame data points into, and its connection's metadata */
        bool has_body;
} sock_msg_t;

/* A property of the connection the message came over, or "" (valid until sock_msg_done()). */
const char *sock_msg_meta(const sock_msg_t *m, const char *property);
/* CURVE: the key name the ZAP handler accepted ("User-Id"). */
static inline const char *sock_msg_user(const sock_msg_t *m)
{
        return sock_msg_meta(m, "User-Id");
}
/* CURVE: SOCK_PROPERTY_KEY, when the ZAP handler set it. */
static inline const char *sock_msg_key(const sock_msg_t *m)
{
        return sock_msg_meta(m, SOCK_PROPERTY_KEY);
}
/* tcp: the peer's address ("Peer-Address"). */
static inline const char *sock_msg_addr(const sock_msg_t *m)
{
        return sock_msg_meta(m, "Peer-Address");
}

void sock_msg_done(sock_msg_t *m);

/* Makes s a CURVE server with key pair kp; connections are authenticated in zap_domain. */
int sock_curve_server(void *s, const keypair_t *kp, const char *zap_domain);
/* Makes s a CURVE client with key pair kp, trusting only the server key server_public_z85. */
int sock_curve_client(void *s, const keypair_t *kp, const char *server_public_z85);
/* True for ipc://, inproc:// and tcp:// on a loopback address or localhost. */
bool sock_endpoint_is_local(const char *ep);

/* Receives one message without blocking; -EAGAIN when none is waiting. A ROUTER's routing id
 * (at most SOCK_MAX_PEER / 2 bytes, otherwise the message is dropped with -EBADMSG) comes back
 * in hex in m->peer. The caller frees with sock_msg_done(). */
int sock_recv(void *s, bool router, sock_msg_t *m);
/* Sends buf, prefixed with the routing id peer names in hex when peer is non-NULL (ROUTER). Never blocks:
 * -EAGAIN when the peer cannot take it now, -EHOSTUNREACH when it is gone. */
int sock_send(void *s, const char *peer, const uint8_t *buf, size_t len);
/* Encodes e and sends it. */
int sock_send_env(void *s, const char *peer, envelope_t *e);

/* One event off a socket monitor (zmq_socket_monitor's PAIR end): its number, its value and,
 * when ep is not NULL, its endpoint. 0, or -EAGAIN when none is waiting. */
int sock_monitor_event(void *mon, uint16_t *ev, uint32_t *val, char *ep, size_t eplen);

/* Messages a state machine wants sent; the shell around it sends them. */
typedef struct outbox_item {
        char peer[SOCK_MAX_PEER + 1];
        uint8_t *buf;
        size_t len;
} outbox_item_t;

typedef struct outbox {
        outbox_item_t *items;
        size_t n, cap;
} outbox_t;

/* Encodes e now (so e may point at the caller's stack) and queues it for peer. */
int outbox_push(outbox_t *ob, const char *peer, envelope_t *e);
/* Queues an already encoded message (copied). */
int outbox_push_raw(outbox_t *ob, const char *peer, const void *buf, size_t len);
/* Sends everything queued on s and empties the box; returns how many could not be sent. */
size_t outbox_flush(outbox_t *ob, void *s);
void outbox_clear(outbox_t *ob);
/* Frees the box itself. */
void outbox_done(outbox_t *ob);
