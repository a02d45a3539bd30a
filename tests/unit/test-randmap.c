/* Tests for the random offsets: the map is a bijection per pass, streams repeat with their seed,
 * uniform picks (norandommap) stay in range. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "randmap.h"

/* Sizes around powers of two (the cycle walk's worst and best cases), tiny and odd ones. */
static const uint64_t sizes[] = {1, 2, 3, 4, 5, 7, 8, 9, 31, 100, 1000, 4095, 4096, 4097, 65539};

/* Every block exactly once in each of three passes, and the passes in different orders. */
static void test_map_is_bijection_per_pass(void **state)
{
        (void)state;
        for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
                uint64_t n = sizes[k];
                uint8_t *seen = calloc(n, 1);
                uint64_t *order[3];
                randmap_t m;

                assert_non_null(seen);
                assert_int_equal(randmap_init(&m, n, 0x1234 + k), 0);
                for (unsigned pass = 0; pass < 3; pass++) {
                        order[pass] = malloc(n * sizeof(uint64_t));
                        assert_non_null(order[pass]);
                        memset(seen, 0, n);
                        for (uint64_t i = 0; i < n; i++) {
                                uint64_t b = randmap_next(&m);
                                assert_true(b < n);
                                assert_int_equal(seen[b], 0);
                                seen[b] = 1;
                                order[pass][i] = b;
                        }
                        assert_int_equal(m.pass, pass + 1);
                }
                /* A pass over 100 blocks or more in the same order as the one before would
                 * mean the keys did not change. */
                if (n >= 100) {
                        assert_memory_not_equal(order[0], order[1], n * sizeof(uint64_t));
                        assert_memory_not_equal(order[1], order[2], n * sizeof(uint64_t));
                }
                for (unsigned pass = 0; pass < 3; pass++)
                        free(order[pass]);
                free(seen);
        }
}

/* The map scrambles: not the identity, and not a plain shift of it. */
static void test_map_scrambles(void **state)
{
        randmap_t m;
        uint64_t in_order = 0, prev = 0;
        (void)state;
        assert_int_equal(randmap_init(&m, 10000, 99), 0);
        for (uint64_t i = 0; i < 10000; i++) {
                uint64_t b = randmap_next(&m);
                if (i && b == prev + 1)
                        in_order++;
                prev = b;
        }
        /* A random order has about one successor in 10000 steps; allow a wide margin. */
        assert_true(in_order < 50);
}

static void test_map_rejects_empty(void **state)
{
        randmap_t m;
        (void)state;
        memset(&m, 0xab, sizeof(m));
        assert_int_equal(randmap_init(&m, 0, 1), -EINVAL);
        assert_int_equal(m.n, 0xababababababababULL);
}

/* A map with more blocks than 2^63: the mask covers all 64 bits and values stay below n. */
static void test_map_huge(void **state)
{
        randmap_t m;
        uint64_t n = (1ULL << 63) + 12345;
        (void)state;
        assert_int_equal(randmap_init(&m, n, 7), 0);
        assert_int_equal(m.mask, UINT64_MAX);
        for (int i = 0; i < 10000; i++)
                assert_true(randmap_next(&m) < n);
}

/* randrepeat / randseed: the same seed gives the same streams and the same maps; another seed,
 * other ones. */
static void test_reproducible_from_seed(void **state)
{
        const uint64_t n = 5000;
        uint64_t a[2][64], b[64];
        (void)state;

        for (int run = 0; run < 2; run++) {
                randmap_rng_t r;
                randmap_t m;
                randmap_rng_seed(&r, 0x89);
                assert_int_equal(randmap_init(&m, n, randmap_file_key(0x89, 0, 0)), 0);
                for (int i = 0; i < 32; i++) {
                        a[run][i] = randmap_rng_next(&r);
                        a[run][32 + i] = randmap_next(&m);
                }
        }
        assert_memory_equal(a[0], a[1], sizeof(a[0]));

        {
                randmap_rng_t r;
                randmap_t m;
                randmap_rng_seed(&r, 0x8a);
                assert_int_equal(randmap_init(&m, n, randmap_file_key(0x8a, 0, 0)), 0);
                for (int i = 0; i < 32; i++) {
                        b[i] = randmap_rng_next(&r);
                        b[32 + i] = randmap_next(&m);
                }
                assert_memory_not_equal(a[0], b, 32 * sizeof(uint64_t));
                assert_memory_not_equal(a[0] + 32, b + 32, 32 * sizeof(uint64_t));
        }
}

/* Files and directions of one worker get maps of their own. */
static void test_file_keys_differ(void **state)
{
        uint64_t keys[8];
        (void)state;
        for (unsigned f = 0; f < 4; f++)
                for (unsigned d = 0; d < 2; d++)
                        keys[f * 2 + d] = randmap_file_key(42, f, d);
        for (int i = 0; i < 8; i++)
                for (int j = i + 1; j < 8; j++)
                        assert_true(keys[i] != keys[j]);
        assert_true(randmap_file_key(42, 0, 0) == randmap_file_key(42, 0, 0));
        assert_true(randmap_file_key(42, 0, 0) != randmap_file_key(43, 0, 0));
}

/* norandommap: every pick in [0, n), for small, odd and huge n; over many picks of a small n
 * every block comes up and none far more often than the others. */
static void test_uniform_in_range(void **state)
{
        static const uint64_t ns[] = {1, 2, 3, 7, 1000, (1ULL << 40) + 3, UINT64_MAX};
        randmap_rng_t r;
        unsigned counts[10] = {0};
        (void)state;

        randmap_rng_seed(&r, 5);
        for (size_t k = 0; k < sizeof(ns) / sizeof(ns[0]); k++)
                for (int i = 0; i < 20000; i++)
                        assert_true(randmap_rng_below(&r, ns[k]) < ns[k]);
        for (int i = 0; i < 100000; i++)
                counts[randmap_rng_below(&r, 10)]++;
        /* Expect 10000 each; binomial sd is about 95. */
        for (int i = 0; i < 10; i++) {
                assert_true(counts[i] > 9500);
                assert_true(counts[i] < 10500);
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_map_is_bijection_per_pass),
            cmocka_unit_test(test_map_scrambles),
            cmocka_unit_test(test_map_rejects_empty),
            cmocka_unit_test(test_map_huge),
            cmocka_unit_test(test_reproducible_from_seed),
            cmocka_unit_test(test_file_keys_differ),
            cmocka_unit_test(test_uniform_in_range),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
