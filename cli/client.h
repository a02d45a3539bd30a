/* The CLI's connection to a coordinator's control socket: one request, then replies and updates. */
#pragma once

#include <stddef.h>

#include "keys.h"
#include "wire.h"

typedef struct client client_t;

/* Connects to endpoint. tcp:// endpoints need kp (this CLI's key pair) and server_public
 * (the coordinator's key) for CURVE; ipc:// needs neither. */
int client_connect(const char *endpoint, const keypair_t *kp, const char *server_public,
                   client_t **ret, char *err, size_t errlen);
int client_send(client_t *c, envelope_t *e);
/* Waits up to timeout_ms (-1: forever) for one message; -ETIMEDOUT, -EINTR (a signal), or a
 * decode error with err set. */
int client_recv(client_t *c, int timeout_ms, envelope_t **ret, char *err, size_t errlen);
/* One request and its answer: sends req, waits up to timeout_ms for a message of type expect.
 * A timeout, an Error from the coordinator or another answer becomes -errno with err set to
 * one line for the user. The caller frees *ret. */
int client_call(client_t *c, envelope_t *req, int timeout_ms, Iofleet__Envelope__BodyCase expect,
                envelope_t **ret, char *err, size_t errlen);
void client_free(client_t **cp);
