/* Tests for the coordinator's registry: hello, identity ownership, leases, selection. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "registry.h"
#include "util.h"

#define SEC ((int64_t)NSEC_PER_SEC)

static agent_t *hello(registry_t *reg, const char *peer, const char *id, const char *name,
                      const char *key, int64_t now, int expect)
{
        Iofleet__Hello h = IOFLEET__HELLO__INIT;
        Iofleet__Label l = IOFLEET__LABEL__INIT, *lp[] = {&l};
        char *roles[] = {"client"};
        agent_t *a = NULL;
        char err[512] = "";
        int r;

        h.agent_id = (char *)id;
        h.name = (char *)name;
        h.hostname = "host";
        h.roles = roles;
        h.n_roles = 1;
        l.key = "rack";
        l.value = (char *)(name[0] == 'a' ? "r1" : "r2");
        h.labels = lp;
        h.n_labels = 1;
        r = registry_hello(reg, peer, &h, key, now, &a, err, sizeof(err));
        assert_int_equal(r, expect);
        if (r < 0) {
                assert_true(strlen(err) > 0);
                return NULL;
        }
        return a;
}

static void test_hello_and_lookup(void **state)
{
        registry_t *reg;
        agent_t *a, *b;

        assert_int_equal(registry_new(&reg), 0);
        a = hello(reg, "00aa", "id-a", "alpha", "ka", 0, 0);
        b = hello(reg, "00bb", "id-b", "beta", "kb", 0, 0);
        assert_ptr_equal(registry_find(reg, "id-a"), a);
        assert_ptr_equal(registry_find_peer(reg, "00bb"), b);
        assert_null(registry_find_peer(reg, "00cc"));
        assert_string_equal(a->key_name, "ka");
        assert_true(strv_contains(&a->labels, "rack=r1"));

        /* A reconnect on a new connection moves the agent to it. */
        a = hello(reg, "00a2", "id-a", "alpha", "ka", SEC, 0);
        assert_ptr_equal(registry_find_peer(reg, "00a2"), a);
        assert_null(registry_find_peer(reg, "00aa"));
        assert_int_equal(registry_count(reg), 2);
        registry_free(&reg);
        assert_null(reg);
}

static void test_refusals(void **state)
{
        registry_t *reg;
        assert_int_equal(registry_new(&reg), 0);
        hello(reg, "01", "id-a", "alpha", "ka", 0, 0);
        /* Another agent may not take a live agent's name ... */
        hello(reg, "02", "id-x", "alpha", "kx", 0, -EEXIST);
        /* ... nor, with another key, its identity. */
        hello(reg, "03", "id-a", "alpha", "kx", 0, -EPERM);
        assert_string_equal(registry_find(reg, "id-a")->peer, "01");
        registry_free(&reg);
}

static void lost_cb(agent_t *a, void *userdata)
{
        (*(int *)userdata)++;
}

static void test_leases(void **state)
{
        registry_t *reg;
        agent_t *a;
        int lost = 0;

        assert_int_equal(registry_new(&reg), 0);
        a = hello(reg, "01", "id-a", "alpha", "ka", 0, 0);
        hello(reg, "02", "id-b", "beta", "kb", 0, 0);
        a->last_seen_ns = 4 * SEC;
        registry_expire(reg, 5 * SEC, 5 * SEC, lost_cb, &lost);
        assert_int_equal(lost, 0);
        registry_expire(reg, 6 * SEC, 5 * SEC, lost_cb, &lost);
        assert_int_equal(lost, 1); /* beta, silent since 0 */
        assert_int_equal(registry_find(reg, "id-b")->state, AGENT_LOST);
        registry_expire(reg, 7 * SEC, 5 * SEC, lost_cb, &lost);
        assert_int_equal(lost, 1); /* reported once */

        /* A lost agent's name and identity are free again. */
        hello(reg, "03", "id-b", "beta", "kother", 8 * SEC, 0);
        assert_int_equal(registry_find(reg, "id-b")->state, AGENT_IDLE);

        /* Lost for more than an hour: forgotten. */
        registry_expire(reg, 9 * SEC + 3600 * SEC, 5 * SEC, lost_cb, &lost);
        assert_int_equal(registry_count(reg), 2);
        registry_expire(reg, 20 * SEC + 3600 * SEC, 5 * SEC, lost_cb, &lost);
        assert_int_equal(registry_count(reg), 0);
        registry_free(&reg);
}

static void test_select(void **state)
{
        registry_t *reg;
        agent_t **sel;
        size_t n;

        assert_int_equal(registry_new(&reg), 0);
        hello(reg, "01", "id-c", "charlie", "kc", 0, 0);
        hello(reg, "02", "id-a", "alpha", "ka", 0, 0);
        hello(reg, "03", "id-b", "bravo", "kb", 0, 0);
        assert_int_equal(registry_select(reg, "", &sel, &n), 0);
        assert_int_equal(n, 3);
        /* Sorted by name: ranks are stable from run to run. */
        assert_string_equal(sel[0]->name, "alpha");
        assert_string_equal(sel[2]->name, "charlie");
        free(sel);
        assert_int_equal(registry_select(reg, "rack=r2", &sel, &n), 0);
        assert_int_equal(n, 2);
        free(sel);
        registry_find(reg, "id-b")->state = AGENT_LOST;
        assert_int_equal(registry_select(reg, "role=client", &sel, &n), 0);
        assert_int_equal(n, 2); /* lost agents are never selected */
        free(sel);
        registry_free(&reg);
}

/* Several agents over time under one name: only a live one holds it; renames, losses and
 * forgetting keep the others findable. */
static void test_names(void **state)
{
        registry_t *reg;
        agent_t *a, *b, *c;
        int lost = 0;

        assert_int_equal(registry_new(&reg), 0);
        a = hello(reg, "01", "id-a", "alpha", "ka", 0, 0);
        a->state = AGENT_LOST;
        b = hello(reg, "02", "id-b", "alpha", "kb", 0, 0);
        /* a is back but b holds the name now. */
        hello(reg, "03", "id-a", "alpha", "ka", SEC, -EEXIST);
        b->state = AGENT_LOST;
        c = hello(reg, "04", "id-c", "alpha", "kc", SEC, 0);
        c->state = AGENT_LOST;
        /* Three entries named alpha, all lost: a takes it back. */
        assert_ptr_equal(hello(reg, "03", "id-a", "alpha", "ka", 2 * SEC, 0), a);
        hello(reg, "05", "id-b", "alpha", "kb", 2 * SEC, -EEXIST);
        /* a renames itself: alpha is free, alef is a's. */
        assert_ptr_equal(hello(reg, "03", "id-a", "alef", "ka", 3 * SEC, 0), a);
        assert_string_equal(a->name, "alef");
        hello(reg, "06", "id-d", "alef", "kd", 3 * SEC, -EEXIST);
        assert_ptr_equal(hello(reg, "05", "id-b", "alpha", "kb", 3 * SEC, 0), b);
        hello(reg, "06", "id-d", "alpha", "kd", 3 * SEC, -EEXIST);
        /* c (lost since 1 s, in the middle of alpha's chain) is forgotten; b still holds the
         * name. */
        b->last_seen_ns = a->last_seen_ns = 3600 * SEC;
        registry_expire(reg, 3602 * SEC, 3600 * SEC, lost_cb, &lost);
        assert_int_equal(registry_count(reg), 2);
        assert_null(registry_find(reg, "id-c"));
        assert_null(registry_find_peer(reg, "04"));
        hello(reg, "06", "id-d", "alpha", "kd", 3602 * SEC, -EEXIST);
        assert_ptr_equal(registry_find(reg, "id-b"), b);
        /* A forgotten id may come back as a new agent. */
        c = hello(reg, "07", "id-c", "gamma", "kc", 3602 * SEC, 0);
        assert_ptr_equal(registry_find(reg, "id-c"), c);
        assert_ptr_equal(registry_find_peer(reg, "07"), c);
        registry_free(&reg);
}

/* A connection stands for the agent whose Hello came on it last. */
static void test_peer_taken_over(void **state)
{
        registry_t *reg;
        agent_t *a, *b;

        assert_int_equal(registry_new(&reg), 0);
        a = hello(reg, "0a", "id-a", "alpha", "ka", 0, 0);
        b = hello(reg, "0a", "id-b", "beta", "kb", 0, 0);
        assert_ptr_equal(registry_find_peer(reg, "0a"), b);
        /* a moving to its own connection does not take b's away. */
        assert_ptr_equal(hello(reg, "0c", "id-a", "alpha", "ka", SEC, 0), a);
        assert_ptr_equal(registry_find_peer(reg, "0a"), b);
        assert_ptr_equal(registry_find_peer(reg, "0c"), a);
        /* The same Hello again on the same connection changes nothing. */
        assert_ptr_equal(hello(reg, "0c", "id-a", "alpha", "ka", SEC, 0), a);
        assert_ptr_equal(registry_find_peer(reg, "0c"), a);
        registry_free(&reg);
}

/* What registry_hello did when it scanned every agent: the outcome a Hello must have. */
static int scan_expect(registry_t *reg, const char *id, const char *name, const char *key)
{
        for (size_t i = 0; i < registry_count(reg); i++) {
                agent_t *o = registry_at(reg, i);
                if (streq(o->name, name) && !streq(o->id, id) && o->state != AGENT_LOST)
                        return -EEXIST;
        }
        for (size_t i = 0; i < registry_count(reg); i++) {
                agent_t *o = registry_at(reg, i);
                if (streq(o->id, id) && o->state != AGENT_LOST && !streq(o->key_name, key))
                        return -EPERM;
        }
        return 0;
}

/* Random hellos, state changes and expiries over hundreds of agents: each Hello's outcome and
 * every lookup checked against a plain scan of the registry. */
static void test_against_scan(void **state)
{
        enum { IDS = 400, NAMES = 150 };
        registry_t *reg;
        unsigned seed = 7;
        int64_t now = 0;
        int lost = 0;
        size_t conn = 0;

        assert_int_equal(registry_new(&reg), 0);
        for (int step = 0; step < 20000; step++) {
                unsigned op = (unsigned)rand_r(&seed) % 10;
                now += SEC;
                if (op < 6) {
                        char id[32], name[32], peer[32], key[8];
                        int expect;
                        agent_t *a;
                        snprintf(id, sizeof(id), "id-%d", rand_r(&seed) % IDS);
                        snprintf(name, sizeof(name), "n%d", rand_r(&seed) % NAMES);
                        snprintf(key, sizeof(key), "k%d", rand_r(&seed) % 2);
                        snprintf(peer, sizeof(peer), "%08zx", conn++);
                        expect = scan_expect(reg, id, name, key);
                        a = hello(reg, peer, id, name, key, now, expect);
                        if (a)
                                assert_ptr_equal(registry_find_peer(reg, peer), a);
                } else if (op < 9 && registry_count(reg)) {
                        agent_t *a = registry_at(reg, (size_t)rand_r(&seed) % registry_count(reg));
                        a->state = op == 6 ? AGENT_LOST : op == 7 ? AGENT_BUSY : AGENT_IDLE;
                        a->last_seen_ns = now;
                } else {
                        registry_expire(reg, now, 300 * SEC, lost_cb, &lost);
                        /* Now and then every lost agent is forgotten. */
                        if (step % 50 == 9)
                                registry_expire(reg, now + 3700 * SEC, 300 * SEC, lost_cb, &lost);
                }
                if (step % 101)
                        continue;
                for (size_t i = 0; i < registry_count(reg); i++) {
                        agent_t *a = registry_at(reg, i);
                        assert_ptr_equal(registry_find(reg, a->id), a);
                        /* Connections are never reused here: each is its agent's. */
                        assert_ptr_equal(registry_find_peer(reg, a->peer), a);
                }
        }
        assert_true(lost > 0);
        registry_expire(reg, now + 10000 * SEC, 300 * SEC, lost_cb, &lost);
        registry_expire(reg, now + 20000 * SEC, 300 * SEC, lost_cb, &lost);
        assert_int_equal(registry_count(reg), 0);
        assert_null(registry_find(reg, "id-1"));
        registry_free(&reg);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_hello_and_lookup),
            cmocka_unit_test(test_refusals),
            cmocka_unit_test(test_leases),
            cmocka_unit_test(test_select),
            cmocka_unit_test(test_names),
            cmocka_unit_test(test_peer_taken_over),
            cmocka_unit_test(test_against_scan),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
