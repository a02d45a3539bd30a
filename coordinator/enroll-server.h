/* The coordinator's enrolment endpoint and the CLI's enrolment commands: a ROUTER socket that
 * only token holders get through (its ZAP domain admits the keys derived from live tokens, a few
 * requests a minute per address), that takes nothing but EnrollRequest, and that puts the keys
 * it admits on the allow-list (agents.d) the rest of the coordinator reads. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "coord-config.h"
#include "keys.h"
#include "ratelimit.h"
#include "sock.h"
#include "wire.h"

#define ZAP_DOMAIN_ENROLL "enroll"

/* Enrolment requests per address and minute, and per minute from all addresses together;
 * beyond, the agent is told to try again (ERROR_BUSY). */
#define ENROLL_REQUESTS_PER_ADDRESS 20
#define ENROLL_REQUESTS_PER_MINUTE 300

typedef struct enroll_srv enroll_srv_t;

/* What the coordinator does when enrolment changed the allow-list (agents.d): re-read it, as on
 * SIGHUP, which also drops the sessions of keys it no longer holds. */
typedef void (*enroll_changed_fn)(void *userdata);

/* Opens the token store (STATE_DIR/enroll.json) and, unless enroll_endpoint is off or CURVE is,
 * makes the endpoint's socket in ctx (bound later by enroll_srv_bind()). log_rl limits the log
 * lines about refused peers. 0 or -errno (logged). */
int enroll_srv_new(void *ctx, const coord_config_t *cfg, const keypair_t *kp, ratelimit_t *log_rl,
                   enroll_changed_fn changed, void *userdata, enroll_srv_t **ret);
/* The endpoint's socket (NULL without one): for the connection guard and the poll loop. */
void *enroll_srv_socket(enroll_srv_t *es);
/* Binds the endpoint (handshake timeout, message cap, CURVE in ZAP_DOMAIN_ENROLL); the bound
 * address goes to bound ("" without an endpoint). 0 or -errno (logged). */
int enroll_srv_bind(enroll_srv_t *es, char *bound, size_t bound_len);
/* The ZAP verdict for a handshake on the enrolment endpoint with client key key from address:
 * "200" with the token's id as user id when key is a live token's, else "400" (logged a few
 * times a minute per address). */
const char *enroll_srv_zap(enroll_srv_t *es, const uint8_t key[32], const char *address,
                           int64_t now_mono, char *user, size_t userlen);
/* Handles the messages waiting on the endpoint; *allowed is the agents' allow-list (re-read
 * when an admission changes it). */
void enroll_srv_on_readable(enroll_srv_t *es, keyring_t *const *allowed);
/* The CLI's enrolment commands (EnrollCreate, EnrollQuery, EnrollAction): answers on
 * control_sock to peer and returns true; false for any other message. */
bool enroll_srv_on_control(enroll_srv_t *es, void *control_sock, const char *peer, uint64_t *seq,
                           const envelope_t *e, const char *who);
/* Closes the endpoint's socket (before the context is terminated) and frees. NULL-safe. */
void enroll_srv_free(enroll_srv_t **esp);
