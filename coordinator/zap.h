/* ZeroMQ authentication (ZAP) for CURVE: admits only public keys on the coordinator's allow-lists.
 */
#pragma once

#include <stdint.h>

#include "enroll-server.h"
#include "keys.h"
#include "ratelimit.h"

#define ZAP_DOMAIN_AGENTS "agents"
#define ZAP_DOMAIN_CONTROL "control"

/* Binds the ZAP REP socket in ctx; 0 or -errno. */
int zap_open(void *ctx, void **ret);
#include "sock.h"

/* Connection metadata naming the public key (Z85) a connection authenticated with. */
#define ZAP_PROPERTY_KEY SOCK_PROPERTY_KEY

/* Answers one pending ZAP request: 200 with the key's name as user id (and the key as
 * ZAP_PROPERTY_KEY) when the key is in the domain's ring, 400 otherwise (logged with the key, so
 * an operator can add it on purpose; at most a few lines a minute per address through rl). The
 * enrolment domain is enroll's to judge (NULL: refused). 0, or -EAGAIN when no request is
 * pending. */
int zap_handle(void *zap, const keyring_t *agents, const keyring_t *control, enroll_srv_t *enroll,
               ratelimit_t *rl, int64_t now);
