/* Tests for the coordinator's registry: hello, identity ownership, leases, selection. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
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

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_hello_and_lookup),
            cmocka_unit_test(test_refusals),
            cmocka_unit_test(test_leases),
            cmocka_unit_test(test_select),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
