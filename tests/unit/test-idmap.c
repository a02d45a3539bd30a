/* Tests for common/idmap.c: lookups, replacement, growth and removal checked against a plain
 * array of the same keys. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "idmap.h"

#define UNIVERSE 600

static char keys[UNIVERSE][40];

static void make_keys(void)
{
        /* Shaped like the real keys: agent ids and hex connection ids that differ only at the
         * end, plus the empty string. */
        for (size_t i = 0; i < UNIVERSE; i++) {
                if (i % 3 == 0)
                        snprintf(keys[i], sizeof(keys[i]), "5d1c0e4e-1f2a-4b3c-9d8e-%012zx", i);
                else if (i % 3 == 1)
                        snprintf(keys[i], sizeof(keys[i]), "0080%06zx", i);
                else
                        snprintf(keys[i], sizeof(keys[i]), "%zu", i - 2);
        }
        keys[UNIVERSE - 1][0] = '\0';
}

static void test_basic(void **state)
{
        idmap_t *m = NULL;
        int a = 1, b = 2, c = 3;
        char k1[] = "agent-1", k1b[] = "agent-1";

        assert_int_equal(idmap_new(&m), 0);
        assert_null(idmap_get(m, "agent-1"));
        assert_null(idmap_remove(m, "agent-1"));
        assert_int_equal(idmap_put(m, k1, &a), 0);
        assert_int_equal(idmap_put(m, "agent-2", &b), 0);
        assert_ptr_equal(idmap_get(m, "agent-1"), &a);
        assert_ptr_equal(idmap_get(m, "agent-2"), &b);
        assert_null(idmap_get(m, "agent-"));
        assert_null(idmap_get(m, "agent-10"));
        /* put keeps the first value; set replaces it and the borrowed key. */
        assert_int_equal(idmap_put(m, "agent-1", &c), -EEXIST);
        assert_ptr_equal(idmap_get(m, "agent-1"), &a);
        assert_int_equal(idmap_set(m, k1b, &c), 0);
        assert_int_equal(idmap_count(m), 2);
        k1[0] = 'X'; /* the map now reads k1b, not k1 */
        assert_ptr_equal(idmap_get(m, "agent-1"), &c);
        assert_ptr_equal(idmap_remove(m, "agent-1"), &c);
        assert_null(idmap_get(m, "agent-1"));
        assert_int_equal(idmap_count(m), 1);
        assert_int_equal(idmap_set(m, "", &a), 0);
        assert_ptr_equal(idmap_get(m, ""), &a);
        idmap_free(&m);
        assert_null(m);
        idmap_free(&m);
}

/* Random puts, sets and removes over a few hundred keys, growing from 16 slots: after every
 * step each key maps to what the reference array says, so removal inside clusters keeps every
 * other entry reachable. */
static void test_against_reference(void **state)
{
        void *ref[UNIVERSE] = {0};
        size_t n = 0;
        idmap_t *m = NULL;
        unsigned seed = 12345;

        make_keys();
        assert_int_equal(idmap_new(&m), 0);
        for (int step = 0; step < 200000; step++) {
                size_t k = (size_t)rand_r(&seed) % UNIVERSE;
                void *v = (void *)(uintptr_t)(step + 1);
                switch (rand_r(&seed) % 4) {
                case 0:
                        assert_int_equal(idmap_put(m, keys[k], v), ref[k] ? -EEXIST : 0);
                        if (!ref[k]) {
                                ref[k] = v;
                                n++;
                        }
                        break;
                case 1:
                        assert_int_equal(idmap_set(m, keys[k], v), 0);
                        n += !ref[k];
                        ref[k] = v;
                        break;
                default:
                        assert_ptr_equal(idmap_remove(m, keys[k]), ref[k]);
                        n -= !!ref[k];
                        ref[k] = NULL;
                }
                assert_int_equal(idmap_count(m), n);
                if (step % 97 == 0)
                        for (size_t i = 0; i < UNIVERSE; i++)
                                assert_ptr_equal(idmap_get(m, keys[i]), ref[i]);
        }
        for (size_t i = 0; i < UNIVERSE; i++)
                assert_ptr_equal(idmap_get(m, keys[i]), ref[i]);
        idmap_free(&m);
}

/* Many keys in, every other one out, the rest still there: the shape of a registry after a
 * mass expiry. */
static void test_many(void **state)
{
        enum { N = 20000 };
        static char k[N][24];
        idmap_t *m = NULL;

        assert_int_equal(idmap_new(&m), 0);
        for (size_t i = 0; i < N; i++) {
                snprintf(k[i], sizeof(k[i]), "%08zx", i * 7919);
                assert_int_equal(idmap_put(m, k[i], k[i]), 0);
        }
        assert_int_equal(idmap_count(m), N);
        for (size_t i = 0; i < N; i += 2)
                assert_ptr_equal(idmap_remove(m, k[i]), k[i]);
        for (size_t i = 0; i < N; i++)
                assert_ptr_equal(idmap_get(m, k[i]), i % 2 ? k[i] : NULL);
        assert_int_equal(idmap_count(m), N / 2);
        idmap_free(&m);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_basic),
            cmocka_unit_test(test_against_reference),
            cmocka_unit_test(test_many),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
