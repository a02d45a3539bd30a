/* ZeroMQ authentication (ZAP) for CURVE: admits only public keys on the coordinator's allow-lists.
 */
#pragma once

#include "keys.h"

#define ZAP_DOMAIN_AGENTS "agents"
#define ZAP_DOMAIN_CONTROL "control"

/* Binds the ZAP REP socket in ctx; 0 or -errno. */
int zap_open(void *ctx, void **ret);
/* Answers one pending ZAP request: 200 with the key's name as user id when the key is in the
 * domain's ring, 400 otherwise (logged with the key, so an operator can add it on purpose). */
void zap_handle(void *zap, const keyring_t *agents, const keyring_t *control);
