/* Tests for common/enroll-token.c and coordinator/enroll.c: tokens' text form and derived keys,
 * the proof of key possession, and every decision on a request (expiry, counts, proof, roles,
 * names, approval) with a fake clock, and the store on disk (round trip, private, malformed
 * files refused whole, no token kept). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zmq.h>

#include <cmocka.h>

#include "enroll-token.h"
#include "enroll.h"
#include "keys.h"
#include "util.h"

#define SEC ((int64_t)NSEC_PER_SEC)
#define NOW (1800000000 * SEC)

typedef struct fixture {
        char dir[64], store[128], agents[128], err[512];
        uint8_t cpk[32], csk[32]; /* the coordinator's pair */
        enroll_t *e;
        keyring_t *ring;
} fixture_t;

/* An agent: its key pair. */
typedef struct agent {
        uint8_t pk[32], sk[32];
        char z85[KEY_Z85_LEN + 1];
} agent_t;

static void agent_make(agent_t *a)
{
        keypair_t kp;
        assert_int_equal(keys_generate(&kp), 0);
        zmq_z85_decode(a->pk, kp.public_z85);
        zmq_z85_decode(a->sk, kp.secret_z85);
        snprintf(a->z85, sizeof(a->z85), "%s", kp.public_z85);
}

static int setup(void **state)
{
        fixture_t *f = calloc(1, sizeof(*f));
        agent_t c;
        if (!f)
                return -1;
        strcpy(f->dir, "/tmp/test-enroll.XXXXXX");
        if (!mkdtemp(f->dir))
                return -1;
        snprintf(f->store, sizeof(f->store), "%s/enroll.json", f->dir);
        snprintf(f->agents, sizeof(f->agents), "%s/agents.d", f->dir);
        mkdir(f->agents, 0755);
        agent_make(&c);
        memcpy(f->cpk, c.pk, 32);
        memcpy(f->csk, c.sk, 32);
        if (enroll_open(f->store, &f->e, f->err, sizeof(f->err)) < 0)
                return -1;
        if (keyring_load_dir(f->agents, &f->ring, f->err, sizeof(f->err)) < 0)
                return -1;
        *state = f;
        return 0;
}

static int teardown(void **state)
{
        fixture_t *f = *state;
        char cmd[256];
        enroll_free(&f->e);
        keyring_free(&f->ring);
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
        assert_int_equal(system(cmd), 0);
        free(f);
        return 0;
}

/* A token (text and derived key pair) made through the store. */
typedef struct tok {
        char text[ENROLL_TOKEN_TEXT_LEN + 1];
        uint8_t pk[32], sk[32];
        char id[16];
} tok_t;

static void make(fixture_t *f, tok_t *t, uint32_t count, int64_t ttl, const char *roles,
                 const char *prefix, bool approve)
{
        Iofleet__EnrollCreate c = IOFLEET__ENROLL_CREATE__INIT;
        char *rv[2] = {(char *)roles, NULL};
        const enroll_token_rec_t *rec;
        enroll_token_t parsed;

        c.count = count;
        c.expires_ns = (uint64_t)ttl;
        c.name_prefix = (char *)prefix;
        c.approve = approve;
        if (roles) {
                c.roles = rv;
                c.n_roles = 1;
        }
        assert_int_equal(enroll_create(f->e, f->cpk, &c, NOW, t->text, sizeof(t->text), &rec,
                                       f->err, sizeof(f->err)),
                         0);
        assert_int_equal(enroll_token_parse(t->text, &parsed, f->err, sizeof(f->err)), 0);
        assert_memory_equal(parsed.coordinator, f->cpk, 32);
        enroll_token_keypair(&parsed, t->pk, t->sk);
        assert_memory_equal(rec->key, t->pk, 32);
        snprintf(t->id, sizeof(t->id), "%s", rec->id);
}

/* A request from agent a for name with roles, its proof made with its own secret key (or with
 * proof_sk when not NULL: someone who does not hold a's key). */
static void request(fixture_t *f, const tok_t *t, const agent_t *a, const char *name,
                    const char *role, const uint8_t *proof_sk, int64_t now, enroll_decision_t *d)
{
        Iofleet__EnrollRequest q = IOFLEET__ENROLL_REQUEST__INIT;
        uint8_t nonce[ENROLL_NONCE_LEN], proof[ENROLL_PROOF_LEN], apk[32];
        char *rv[1] = {(char *)role};

        memcpy(apk, a->pk, 32);
        assert_int_equal(enroll_proof_make(a->pk, proof_sk ? proof_sk : a->sk, t->pk, f->cpk,
                                           nonce, proof),
                         0);
        q.agent_key = (ProtobufCBinaryData){32, apk};
        q.nonce = (ProtobufCBinaryData){sizeof(nonce), nonce};
        q.proof = (ProtobufCBinaryData){sizeof(proof), proof};
        q.name = (char *)name;
        q.hostname = "host";
        if (role) {
                q.roles = rv;
                q.n_roles = 1;
        }
        enroll_decide(f->e, f->ring, f->agents, t->pk, &q, f->csk, "10.0.0.9", now, d);
}

/* What the endpoint does with ENROLL_ADMIT: the entry on the allow-list, the ring re-read. */
static void admit(fixture_t *f, const enroll_decision_t *d, const agent_t *a)
{
        assert_int_equal(keys_write_allowed(f->agents, d->name, a->z85, d->roles, f->err,
                                            sizeof(f->err)),
                         0);
        keyring_free(&f->ring);
        assert_int_equal(keyring_load_dir(f->agents, &f->ring, f->err, sizeof(f->err)), 0);
}

static void test_token_text(void **state)
{
        fixture_t *f = *state;
        enroll_token_t t, u;
        char text[ENROLL_TOKEN_TEXT_LEN + 1], padded[200];
        uint8_t pk1[32], sk1[32], pk2[32], sk2[32];

        enroll_token_new(f->cpk, &t);
        assert_int_equal(enroll_token_format(&t, text, sizeof(text)), 0);
        assert_int_equal(strlen(text), ENROLL_TOKEN_TEXT_LEN);
        assert_int_equal(strncmp(text, "iofleet1-", 9), 0);
        assert_int_equal(enroll_token_format(&t, text, ENROLL_TOKEN_TEXT_LEN), -ENOBUFS);
        assert_int_equal(enroll_token_format(&t, text, sizeof(text)), 0);
        /* A file's newline and spaces around it are fine. */
        snprintf(padded, sizeof(padded), "  %s\n", text);
        assert_int_equal(enroll_token_parse(padded, &u, f->err, sizeof(f->err)), 0);
        assert_memory_equal(&t, &u, sizeof(t));
        /* The derived pair is a function of the secret alone, and a CURVE pair. */
        enroll_token_keypair(&t, pk1, sk1);
        enroll_token_keypair(&u, pk2, sk2);
        assert_memory_equal(pk1, pk2, 32);
        {
                char zs[41], zp[41], derived[41];
                zmq_z85_encode(zs, sk1, 32);
                zmq_z85_encode(zp, pk1, 32);
                assert_int_equal(zmq_curve_public(derived, zs), 0);
                assert_string_equal(derived, zp);
        }
        /* Cut, padded with garbage, another prefix: refused without echoing the token. */
        text[50] = 0;
        assert_int_equal(enroll_token_parse(text, &u, f->err, sizeof(f->err)), -EINVAL);
        assert_non_null(strstr(f->err, "cut when copied"));
        assert_null(strstr(f->err, text + 9));
        assert_int_equal(enroll_token_parse("K10abc::server:xyz", &u, f->err, sizeof(f->err)),
                         -EINVAL);
        assert_non_null(strstr(f->err, "not an iofleet enrolment token"));
        assert_int_equal(enroll_token_format(&t, text, sizeof(text)), 0);
        text[20] = '$';
        assert_int_equal(enroll_token_parse(text, &u, f->err, sizeof(f->err)), -EINVAL);
        /* Two tokens never share a secret. */
        enroll_token_new(f->cpk, &u);
        assert_memory_not_equal(t.secret, u.secret, 32);
}

static void test_proof(void **state)
{
        fixture_t *f = *state;
        agent_t a, b;
        uint8_t tpk[32] = {1}, nonce[ENROLL_NONCE_LEN], proof[ENROLL_PROOF_LEN];

        agent_make(&a);
        agent_make(&b);
        assert_int_equal(enroll_proof_make(a.pk, a.sk, tpk, f->cpk, nonce, proof), 0);
        assert_true(enroll_proof_check(a.pk, tpk, f->csk, nonce, sizeof(nonce), proof,
                                       sizeof(proof)));
        /* Another key claimed, another token's connection, a changed byte, a short proof. */
        assert_false(enroll_proof_check(b.pk, tpk, f->csk, nonce, sizeof(nonce), proof,
                                        sizeof(proof)));
        tpk[0] = 2;
        assert_false(enroll_proof_check(a.pk, tpk, f->csk, nonce, sizeof(nonce), proof,
                                        sizeof(proof)));
        tpk[0] = 1;
        proof[5] ^= 1;
        assert_false(enroll_proof_check(a.pk, tpk, f->csk, nonce, sizeof(nonce), proof,
                                        sizeof(proof)));
        proof[5] ^= 1;
        assert_false(enroll_proof_check(a.pk, tpk, f->csk, nonce, sizeof(nonce), proof, 10));
        /* Made with b's secret key for a's public key: not a's proof. */
        assert_int_equal(enroll_proof_make(a.pk, b.sk, tpk, f->cpk, nonce, proof), 0);
        assert_false(enroll_proof_check(a.pk, tpk, f->csk, nonce, sizeof(nonce), proof,
                                        sizeof(proof)));
}

static void test_admit_count_and_expiry(void **state)
{
        fixture_t *f = *state;
        tok_t t;
        agent_t a, b, c;
        enroll_decision_t d;
        const char *why, *id;

        agent_make(&a);
        agent_make(&b);
        agent_make(&c);
        make(f, &t, 2, 3600 * SEC, "client", "", false);
        assert_non_null(enroll_admits(f->e, t.pk, NOW + SEC, &why, &id));
        request(f, &t, &a, "a1", "client", NULL, NOW + SEC, &d);
        assert_int_equal(d.outcome, ENROLL_ADMIT);
        assert_string_equal(d.name, "a1");
        assert_string_equal(d.roles, "client");
        assert_true(d.consumed);
        admit(f, &d, &a);
        /* The same key again changes nothing and uses nothing. */
        request(f, &t, &a, "other", "client", NULL, NOW + 2 * SEC, &d);
        assert_int_equal(d.outcome, ENROLL_ALREADY);
        assert_string_equal(d.name, "a1");
        assert_false(d.consumed);
        request(f, &t, &b, "b1", "client", NULL, NOW + 3 * SEC, &d);
        assert_int_equal(d.outcome, ENROLL_ADMIT);
        admit(f, &d, &b);
        /* Used up: the handshake is refused, and so is a request that got through before. */
        assert_null(enroll_admits(f->e, t.pk, NOW + 4 * SEC, &why, &id));
        assert_string_equal(why, "used up");
        assert_string_equal(id, t.id);
        request(f, &t, &c, "c1", "client", NULL, NOW + 4 * SEC, &d);
        assert_int_equal(d.outcome, ENROLL_REFUSED);
        assert_int_equal(d.code, IOFLEET__ERROR_CODE__ERROR_ENROLL_TOKEN);
        assert_non_null(strstr(d.message, "used up"));
        /* Expired: at its end exactly. */
        make(f, &t, 5, 60 * SEC, NULL, "", false);
        assert_non_null(enroll_admits(f->e, t.pk, NOW + 60 * SEC - 1, &why, &id));
        assert_null(enroll_admits(f->e, t.pk, NOW + 60 * SEC, &why, &id));
        assert_string_equal(why, "expired");
        request(f, &t, &c, "c1", NULL, NULL, NOW + 61 * SEC, &d);
        assert_int_equal(d.outcome, ENROLL_REFUSED);
        assert_non_null(strstr(d.message, "expired"));
        /* Unknown: a key no token of this store derives. */
        assert_null(enroll_admits(f->e, c.pk, NOW, &why, &id));
        assert_string_equal(why, "unknown");
        assert_null(id);
        /* Revoked: forgotten at once. */
        make(f, &t, 5, 600 * SEC, NULL, "", false);
        assert_int_equal(enroll_token_remove(f->e, t.id), 0);
        assert_null(enroll_admits(f->e, t.pk, NOW + SEC, &why, &id));
        assert_int_equal(enroll_token_remove(f->e, t.id), -ENOENT);
}

static void test_refusals(void **state)
{
        fixture_t *f = *state;
        tok_t t;
        agent_t a, b, x;
        enroll_decision_t d;

        agent_make(&a);
        agent_make(&b);
        agent_make(&x);
        make(f, &t, 10, 3600 * SEC, "client", "lab-", false);
        /* No proof of holding the key: nothing used. */
        request(f, &t, &a, "a", "client", x.sk, NOW, &d);
        assert_int_equal(d.outcome, ENROLL_REFUSED);
        assert_int_equal(d.code, IOFLEET__ERROR_CODE__ERROR_ENROLL_PROOF);
        assert_false(d.consumed);
        /* A role the token does not grant. */
        request(f, &t, &a, "a", "storage", NULL, NOW, &d);
        assert_int_equal(d.outcome, ENROLL_REFUSED);
        assert_int_equal(d.code, IOFLEET__ERROR_CODE__ERROR_ENROLL_ROLE);
        assert_non_null(strstr(d.message, "role 'storage' is not granted (only client)"));
        /* The prefix goes first; the name of another key is not taken, nor too long a name. */
        request(f, &t, &a, "a", "client", NULL, NOW, &d);
        assert_int_equal(d.outcome, ENROLL_ADMIT);
        assert_string_equal(d.name, "lab-a");
        admit(f, &d, &a);
        request(f, &t, &b, "a", "client", NULL, NOW, &d);
        assert_int_equal(d.outcome, ENROLL_REFUSED);
        assert_int_equal(d.code, IOFLEET__ERROR_CODE__ERROR_ENROLL_NAME);
        assert_non_null(strstr(d.message, "'lab-a' belongs to another key"));
        assert_false(d.consumed);
        request(f, &t, &b, "abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijxy", "client",
                NULL, NOW, &d);
        assert_int_equal(d.code, IOFLEET__ERROR_CODE__ERROR_ENROLL_NAME);
        /* An entry an admin put in agents.d since the ring was read counts too. */
        assert_int_equal(keys_write_allowed(f->agents, "lab-manual", x.z85, "", f->err,
                                            sizeof(f->err)),
                         0);
        request(f, &t, &b, "manual", "client", NULL, NOW, &d);
        assert_int_equal(d.code, IOFLEET__ERROR_CODE__ERROR_ENROLL_NAME);
        /* ... and an entry is never replaced. */
        assert_int_equal(keys_write_allowed(f->agents, "lab-manual", b.z85, "", f->err,
                                            sizeof(f->err)),
                         -EEXIST);
}

static void test_approval(void **state)
{
        fixture_t *f = *state;
        tok_t t;
        agent_t a, b;
        enroll_decision_t d;
        const enroll_pending_t *p;
        Iofleet__EnrollState st;

        agent_make(&a);
        agent_make(&b);
        make(f, &t, 3, 3600 * SEC, NULL, "", true);
        request(f, &t, &a, "a", "storage", NULL, NOW, &d);
        assert_int_equal(d.outcome, ENROLL_PENDING);
        assert_true(d.consumed);
        assert_non_null(p = enroll_pending_find(f->e, "a"));
        assert_memory_equal(p->key, a.pk, 32);
        assert_string_equal(p->address, "10.0.0.9");
        assert_string_equal(p->token_id, t.id);
        /* Asking again waits again, using nothing; another key may not wait under its name. */
        request(f, &t, &a, "a", "storage", NULL, NOW + SEC, &d);
        assert_int_equal(d.outcome, ENROLL_PENDING);
        assert_false(d.consumed);
        request(f, &t, &b, "a", NULL, NULL, NOW + SEC, &d);
        assert_int_equal(d.outcome, ENROLL_REFUSED);
        assert_int_equal(d.code, IOFLEET__ERROR_CODE__ERROR_ENROLL_NAME);
        assert_int_equal(enroll_state(f->e, NOW + SEC, &st), 0);
        assert_int_equal(st.n_pending, 1);
        assert_string_equal(st.pending[0]->name, "a");
        assert_string_equal(st.pending[0]->key, a.z85);
        assert_int_equal(st.n_tokens, 1);
        assert_int_equal(st.tokens[0]->used, 1);
        assert_string_equal(st.tokens[0]->state, "live");
        enroll_state_done(&st);
        assert_int_equal(enroll_pending_remove(f->e, "a"), 0);
        assert_null(enroll_pending_find(f->e, "a"));
        assert_int_equal(enroll_pending_remove(f->e, "a"), -ENOENT);
}

static void test_store(void **state)
{
        fixture_t *f = *state;
        tok_t t1, t2;
        agent_t a;
        enroll_decision_t d;
        const char *why, *id;
        struct stat st;
        char *text = NULL;
        size_t n = 0;
        FILE *fp;

        agent_make(&a);
        make(f, &t1, 4, 3600 * SEC, "storage,client", "x-", false);
        make(f, &t2, 1, 3600 * SEC, NULL, "", true);
        request(f, &t2, &a, "waits", NULL, NULL, NOW, &d);
        assert_int_equal(d.outcome, ENROLL_PENDING);
        assert_int_equal(enroll_save(f->e, f->err, sizeof(f->err)), 0);
        assert_int_equal(stat(f->store, &st), 0);
        assert_int_equal(st.st_mode & 0777, 0600);
        /* The store never holds a token's text or secret. */
        fp = fopen(f->store, "re");
        assert_non_null(fp);
        assert_true(getdelim(&text, &n, 0, fp) > 0);
        fclose(fp);
        assert_null(strstr(text, t1.text + 9));
        assert_null(strstr(text, t2.text + 9));
        {
                enroll_token_t p;
                char sec[64];
                enroll_token_parse(t1.text, &p, f->err, sizeof(f->err));
                zmq_z85_encode(sec, p.secret, 32);
                assert_null(strstr(text, sec));
        }
        free(text);
        /* Read back: the same tokens, uses and pending enrolment. */
        enroll_free(&f->e);
        assert_int_equal(enroll_open(f->store, &f->e, f->err, sizeof(f->err)), 0);
        assert_non_null(enroll_admits(f->e, t1.pk, NOW + SEC, &why, &id));
        assert_null(enroll_admits(f->e, t2.pk, NOW + SEC, &why, &id));
        assert_string_equal(why, "used up");
        assert_non_null(enroll_pending_find(f->e, "waits"));
        /* Spent tokens are forgotten a day after their end. */
        {
                Iofleet__EnrollState s;
                assert_int_equal(enroll_state(f->e, NOW + 3600 * SEC + ENROLL_KEEP_SPENT_NS + SEC,
                                              &s),
                                 0);
                assert_int_equal(s.n_tokens, 0);
                enroll_state_done(&s);
        }
        /* Malformed stores are refused whole, naming the file. */
        const char *bad[] = {
            "not json",
            "{\"version\": 2}",
            "{\"version\": 1, \"tokens\": [{\"id\": \"x\"}]}",
            "{\"version\": 1, \"tokens\": [{\"id\": \"0123456789ab\", \"key\": \"short\", "
            "\"count\": 1, \"used\": 0, \"created\": 1, \"expires\": 2}]}",
            "{\"version\": 1, \"pending\": [{\"name\": \"../evil\", \"key\": "
            "\"0000000000000000000000000000000000000000\", \"requested\": 1}]}",
            "{\"version\": 1, \"tokens\": {}}",
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                enroll_t *e = NULL;
                fp = fopen(f->store, "we");
                assert_non_null(fp);
                fputs(bad[i], fp);
                fclose(fp);
                assert_int_equal(enroll_open(f->store, &e, f->err, sizeof(f->err)), -EINVAL);
                assert_non_null(strstr(f->err, f->store));
                assert_null(e);
        }
}

static void test_roles(void **state)
{
        fixture_t *f = *state;
        char out[32];
        char *both[] = {"storage", "client"}, *one[] = {"client,storage"}, *bad[] = {"admin"},
             *cl[] = {"client"}, *st[] = {"storage"};

        assert_int_equal(enroll_roles_norm(both, 2, out, sizeof(out), f->err, sizeof(f->err)), 0);
        assert_string_equal(out, "client,storage");
        assert_int_equal(enroll_roles_norm(one, 1, out, sizeof(out), f->err, sizeof(f->err)), 0);
        assert_string_equal(out, "client,storage");
        assert_int_equal(enroll_roles_norm(NULL, 0, out, sizeof(out), f->err, sizeof(f->err)), 0);
        assert_string_equal(out, "");
        assert_int_equal(enroll_roles_norm(bad, 1, out, sizeof(out), f->err, sizeof(f->err)),
                         -EINVAL);
        assert_true(enroll_roles_allowed("", st, 1, f->err, sizeof(f->err)));
        assert_true(enroll_roles_allowed("client,storage", both, 2, f->err, sizeof(f->err)));
        assert_true(enroll_roles_allowed("client", cl, 1, f->err, sizeof(f->err)));
        assert_false(enroll_roles_allowed("client", st, 1, f->err, sizeof(f->err)));
        assert_non_null(strstr(f->err, "'storage'"));
        /* An allow-list entry's roles as keys.c reads them back. */
        {
                keypair_t kp;
                char path[256];
                agent_t a;
                agent_make(&a);
                assert_int_equal(keys_write_allowed(f->agents, "r1", a.z85, "client", f->err,
                                                    sizeof(f->err)),
                                 0);
                snprintf(path, sizeof(path), "%s/r1.pub", f->agents);
                assert_int_equal(keys_load(path, false, &kp, f->err, sizeof(f->err)), 0);
                assert_string_equal(kp.roles, "client");
                assert_string_equal(kp.public_z85, a.z85);
                keyring_free(&f->ring);
                assert_int_equal(keyring_load_dir(f->agents, &f->ring, f->err, sizeof(f->err)), 0);
                assert_string_equal(keyring_roles(f->ring, "r1"), "client");
                assert_null(keyring_roles(f->ring, "nobody"));
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test_setup_teardown(test_token_text, setup, teardown),
            cmocka_unit_test_setup_teardown(test_proof, setup, teardown),
            cmocka_unit_test_setup_teardown(test_admit_count_and_expiry, setup, teardown),
            cmocka_unit_test_setup_teardown(test_refusals, setup, teardown),
            cmocka_unit_test_setup_teardown(test_approval, setup, teardown),
            cmocka_unit_test_setup_teardown(test_store, setup, teardown),
            cmocka_unit_test_setup_teardown(test_roles, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
