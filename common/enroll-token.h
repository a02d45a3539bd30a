/* Enrolment tokens: their text form, the CURVE key pair derived from their secret, and the proof
 * that an enrolling agent holds the secret half of the key it asks to have admitted. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ENROLL_TOKEN_PREFIX "iofleet1-"
/* The prefix, then base64url (no padding) of the secret and the coordinator's public key. */
#define ENROLL_TOKEN_TEXT_LEN (sizeof(ENROLL_TOKEN_PREFIX) - 1 + 86)
#define ENROLL_ID_LEN 12      /* hex characters of a token's id */
#define ENROLL_NONCE_LEN 24   /* crypto_box_NONCEBYTES */
#define ENROLL_PROOF_LEN (16 + 64) /* crypto_box_MACBYTES + agent key + token key */

typedef struct enroll_token {
        uint8_t secret[32];      /* never stored or sent: the token's key pair comes from it */
        uint8_t coordinator[32]; /* the coordinator's public key, pinned by whoever uses it */
} enroll_token_t;

/* A new token with a random secret for the coordinator whose public key is given. */
void enroll_token_new(const uint8_t coordinator[32], enroll_token_t *t);
/* Its text form (ENROLL_TOKEN_TEXT_LEN characters and a NUL) into buf; -ENOBUFS if too small. */
int enroll_token_format(const enroll_token_t *t, char *buf, size_t len);
/* Parses a token's text (surrounding white space ignored); err says what is wrong without
 * echoing the token. 0 or -EINVAL. */
int enroll_token_parse(const char *text, enroll_token_t *t, char *err, size_t errlen);
/* The CURVE key pair an agent uses on the enrolment endpoint: the secret's BLAKE2b hash as the
 * seed of an X25519 pair. The public half is all the coordinator keeps of a token; it does not
 * give the secret back. */
void enroll_token_keypair(const enroll_token_t *t, uint8_t pk[32], uint8_t sk[32]);
/* How lists and logs name a token: the first ENROLL_ID_LEN hex digits of its public key's
 * BLAKE2b hash (id gets ENROLL_ID_LEN + 1 bytes). */
void enroll_token_id(const uint8_t token_pk[32], char *id);
/* Wipes a token from memory. */
void enroll_token_wipe(enroll_token_t *t);

/* The agent's proof: crypto_box(agent_pk || token_pk) from the agent's secret key to the
 * coordinator's public key, under a fresh random nonce. 0 or -EINVAL. */
int enroll_proof_make(const uint8_t agent_pk[32], const uint8_t agent_sk[32],
                      const uint8_t token_pk[32], const uint8_t coordinator_pk[32],
                      uint8_t nonce[ENROLL_NONCE_LEN], uint8_t proof[ENROLL_PROOF_LEN]);
/* True when proof opens with the coordinator's secret key and agent_pk to exactly agent_pk ||
 * token_pk: only the holder of agent_pk's secret half (or of the coordinator's) can make it. */
bool enroll_proof_check(const uint8_t agent_pk[32], const uint8_t token_pk[32],
                        const uint8_t coordinator_sk[32], const uint8_t *nonce, size_t nonce_len,
                        const uint8_t *proof, size_t proof_len);
