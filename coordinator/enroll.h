/* Enrolment on the coordinator: the tokens it issued (kept as the public keys derived from them,
 * never the tokens), the enrolments waiting for approval, and the decision on each request. No
 * sockets: the enrolment endpoint (enroll-server.c) feeds it requests and acts on the outcome. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "keys.h"
#include "wire.h"

#define ENROLL_MAX_TOKENS 1000   /* live tokens at once */
#define ENROLL_MAX_PENDING 1000  /* enrolments waiting for approval */
#define ENROLL_MAX_COUNT 10000   /* enrolments one token allows */
#define ENROLL_MIN_TTL_NS (60 * (int64_t)1000000000)
#define ENROLL_MAX_TTL_NS (30 * 24 * 3600 * (int64_t)1000000000)
/* Spent tokens are kept this long (to name them in refusals and lists), then forgotten. */
#define ENROLL_KEEP_SPENT_NS (24 * 3600 * (int64_t)1000000000)
#define ENROLL_MAX_PREFIX 32

typedef struct enroll_token_rec {
        char id[13];
        uint8_t key[32]; /* the token's derived public key: what the enrolment endpoint admits */
        char roles[KEY_ROLES_LEN]; /* "" = any */
        uint32_t count, used;
        int64_t created, expires; /* wall clock, ns */
        char prefix[ENROLL_MAX_PREFIX + 1];
        bool approve;
} enroll_token_rec_t;

typedef struct enroll_pending {
        char name[WIRE_MAX_NAME + 1];
        uint8_t key[32];
        char hostname[WIRE_MAX_HOSTNAME + 1];
        char roles[KEY_ROLES_LEN];
        char address[64];
        int64_t requested; /* wall clock, ns */
        char token_id[13];
} enroll_pending_t;

typedef struct enroll enroll_t;

/* Opens the store kept in path (a JSON file, 0600, written atomically); a missing file is an
 * empty store. 0 or -errno with err naming the file and what is wrong. */
int enroll_open(const char *path, enroll_t **ret, char *err, size_t errlen);
void enroll_free(enroll_t **ep);
/* Writes the store if it changed. 0 or -errno with err set. */
int enroll_save(enroll_t *e, char *err, size_t errlen);

/* Parses roles as the CLI and the wire give them ("client", "storage,client") into the form the
 * allow-list keeps ("client", "client,storage"); -EINVAL with err for anything else. */
int enroll_roles_norm(char *const *roles, size_t n, char *out, size_t outlen, char *err,
                      size_t errlen);
/* True when every role in roles[] is among allowed ("" allows any); else false with err naming
 * the first one that is not. */
bool enroll_roles_allowed(const char *allowed, char *const *roles, size_t n, char *err,
                          size_t errlen);

/* A new token for the coordinator whose public key is given: its text goes to text (shown once,
 * not kept) and its record is stored. -EINVAL (bad count, lifetime, prefix or roles) or -ENOSPC
 * (ENROLL_MAX_TOKENS live) with err set. */
int enroll_create(enroll_t *e, const uint8_t coordinator_pk[32], const Iofleet__EnrollCreate *req,
                  int64_t now, char *text, size_t textlen, const enroll_token_rec_t **rec,
                  char *err, size_t errlen);

/* The ZAP check of the enrolment endpoint: the token whose derived key is key when it admits
 * someone now (not expired, not used up); otherwise NULL, with *why saying "unknown", "expired"
 * or "used up" and *id the token's id when known. */
const enroll_token_rec_t *enroll_admits(enroll_t *e, const uint8_t key[32], int64_t now,
                                        const char **why, const char **id);

typedef enum enroll_outcome {
        ENROLL_REFUSED,  /* code and message say why */
        ENROLL_ADMIT,    /* write NAME.pub (name, key, roles) to the allow-list, then enroll_done() */
        ENROLL_PENDING,  /* stored; 'iofleet agents approve NAME' admits it */
        ENROLL_ALREADY,  /* this key is on the allow-list as name already: nothing to do */
} enroll_outcome_t;

typedef struct enroll_decision {
        enroll_outcome_t outcome;
        Iofleet__ErrorCode code;
        char message[512];
        char name[WIRE_MAX_NAME + 1];
        char roles[KEY_ROLES_LEN];
        char token_id[13];
        bool consumed; /* the request used up one of the token's enrolments */
} enroll_decision_t;

/* Decides on a request that came on a connection authenticated with the token key token_key:
 * the token must still admit, the proof must show the sender holds the key it enrols, the roles
 * must be the token's, and the name (the token's prefix + the name asked for) must be free or
 * already this key's. allowed is the allow-list now; agents_dir is where it lives (an entry
 * added since it was read counts too). A request that passes uses one of the token's
 * enrolments (none when the key is already admitted or pending). */
void enroll_decide(enroll_t *e, const keyring_t *allowed, const char *agents_dir,
                   const uint8_t token_key[32], const Iofleet__EnrollRequest *req,
                   const uint8_t coordinator_sk[32], const char *address, int64_t now,
                   enroll_decision_t *d);

/* Gives back the enrolment a decision consumed (the admission could not be carried out). */
void enroll_give_back(enroll_t *e, const uint8_t token_key[32]);
/* The pending enrolment called name, or NULL. */
const enroll_pending_t *enroll_pending_find(enroll_t *e, const char *name);
/* Forgets a pending enrolment (approved: its key is on the allow-list now; or refused). */
int enroll_pending_remove(enroll_t *e, const char *name);
/* Forgets a token: it admits nobody from now on. -ENOENT when there is no such id. */
int enroll_token_remove(enroll_t *e, const char *id);

/* The store as the CLI sees it (the caller frees with enroll_state_done()). */
int enroll_state(enroll_t *e, int64_t now, Iofleet__EnrollState *st);
void enroll_state_done(Iofleet__EnrollState *st);
