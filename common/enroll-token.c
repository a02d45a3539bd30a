/* Enrolment tokens: their text form, the CURVE key pair derived from their secret, and the proof
 * that an enrolling agent holds the secret half of the key it asks to have admitted. */
#include "enroll-token.h"

#include <ctype.h>
#include <errno.h>
#include <sodium.h>
#include <stdio.h>
#include <string.h>

#include "util.h"

/* Domain separation: the seed of a token's key pair is no other hash of its secret. */
static const char seed_key[] = "iofleet enrolment token v1 seed";

static void sodium_ready(void)
{
        /* Idempotent and thread-safe; fails only where the system has no randomness at all. */
        if (sodium_init() < 0)
                abort();
}

void enroll_token_new(const uint8_t coordinator[32], enroll_token_t *t)
{
        sodium_ready();
        randombytes_buf(t->secret, sizeof(t->secret));
        memcpy(t->coordinator, coordinator, 32);
}

int enroll_token_format(const enroll_token_t *t, char *buf, size_t len)
{
        uint8_t raw[64];
        size_t plen = strlen(ENROLL_TOKEN_PREFIX);

        if (len < ENROLL_TOKEN_TEXT_LEN + 1)
                return -ENOBUFS;
        sodium_ready();
        memcpy(raw, t->secret, 32);
        memcpy(raw + 32, t->coordinator, 32);
        memcpy(buf, ENROLL_TOKEN_PREFIX, plen);
        sodium_bin2base64(buf + plen, len - plen, raw, sizeof(raw),
                          sodium_base64_VARIANT_URLSAFE_NO_PADDING);
        sodium_memzero(raw, sizeof(raw));
        return 0;
}

int enroll_token_parse(const char *text, enroll_token_t *t, char *err, size_t errlen)
{
        size_t plen = strlen(ENROLL_TOKEN_PREFIX), n, bin_len = 0;
        uint8_t raw[64];
        const char *end;

        sodium_ready();
        while (*text && isspace((unsigned char)*text))
                text++;
        n = strlen(text);
        while (n && isspace((unsigned char)text[n - 1]))
                n--;
        if (n < plen || strncmp(text, ENROLL_TOKEN_PREFIX, plen) != 0)
                return errorf(err, errlen, -EINVAL,
                              "not an iofleet enrolment token (they start with '%s'; make one with "
                              "'iofleet enroll create' on the coordinator host)",
                              ENROLL_TOKEN_PREFIX);
        if (n != ENROLL_TOKEN_TEXT_LEN ||
            sodium_base642bin(raw, sizeof(raw), text + plen, n - plen, NULL, &bin_len, &end,
                              sodium_base64_VARIANT_URLSAFE_NO_PADDING) != 0 ||
            bin_len != sizeof(raw) || end != text + n)
                return errorf(err, errlen, -EINVAL,
                              "enrolment token: %zu characters that are not a whole token (it has "
                              "%zu: '%s' and 86 of A-Z a-z 0-9 - _); was it cut when copied?",
                              n, ENROLL_TOKEN_TEXT_LEN, ENROLL_TOKEN_PREFIX);
        memcpy(t->secret, raw, 32);
        memcpy(t->coordinator, raw + 32, 32);
        sodium_memzero(raw, sizeof(raw));
        return 0;
}

void enroll_token_keypair(const enroll_token_t *t, uint8_t pk[32], uint8_t sk[32])
{
        uint8_t seed[crypto_box_SEEDBYTES];

        sodium_ready();
        crypto_generichash(seed, sizeof(seed), t->secret, sizeof(t->secret),
                           (const uint8_t *)seed_key, sizeof(seed_key) - 1);
        crypto_box_seed_keypair(pk, sk, seed);
        sodium_memzero(seed, sizeof(seed));
}

void enroll_token_id(const uint8_t token_pk[32], char *id)
{
        uint8_t h[ENROLL_ID_LEN / 2];
        sodium_ready();
        crypto_generichash(h, sizeof(h), token_pk, 32, NULL, 0);
        sodium_bin2hex(id, ENROLL_ID_LEN + 1, h, sizeof(h));
}

void enroll_token_wipe(enroll_token_t *t)
{
        sodium_memzero(t, sizeof(*t));
}

int enroll_proof_make(const uint8_t agent_pk[32], const uint8_t agent_sk[32],
                      const uint8_t token_pk[32], const uint8_t coordinator_pk[32],
                      uint8_t nonce[ENROLL_NONCE_LEN], uint8_t proof[ENROLL_PROOF_LEN])
{
        uint8_t msg[64];
        int r;

        sodium_ready();
        memcpy(msg, agent_pk, 32);
        memcpy(msg + 32, token_pk, 32);
        randombytes_buf(nonce, ENROLL_NONCE_LEN);
        r = crypto_box_easy(proof, msg, sizeof(msg), nonce, coordinator_pk, agent_sk);
        return r == 0 ? 0 : -EINVAL;
}

bool enroll_proof_check(const uint8_t agent_pk[32], const uint8_t token_pk[32],
                        const uint8_t coordinator_sk[32], const uint8_t *nonce, size_t nonce_len,
                        const uint8_t *proof, size_t proof_len)
{
        uint8_t msg[64];
        bool ok;

        sodium_ready();
        if (nonce_len != ENROLL_NONCE_LEN || proof_len != ENROLL_PROOF_LEN)
                return false;
        if (crypto_box_open_easy(msg, proof, proof_len, nonce, agent_pk, coordinator_sk) != 0)
                return false;
        ok = sodium_memcmp(msg, agent_pk, 32) == 0 && sodium_memcmp(msg + 32, token_pk, 32) == 0;
        sodium_memzero(msg, sizeof(msg));
        return ok;
}
