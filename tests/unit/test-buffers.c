/* Tests for what writes carry (buffers.c): fio's implications between the buffer options, the
 * share of unique blocks, zero bytes where compression wants them, patterns. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "buffers.h"
#include "util.h"

#define BS 4096
#define N 2000

/* n writes of BS through one reused buffer, as a worker at iodepth 1 does; each block's FNV
 * hash into h. */
static void writes(const char *const *opts, uint64_t *h, uint8_t *last, size_t *zeros)
{
        job_spec_t j;
        buffers_t b;
        char err[256];
        uint8_t *buf = malloc(BS);

        assert_non_null(buf);
        assert_int_equal(job_spec_init(&j, "b"), 0);
        for (const char *const *o = opts; o && *o; o += 2)
                assert_int_equal(job_option_set(&j, o[0], o[1], err, sizeof(err)), 0);
        assert_int_equal(buffers_init(&b, &j, 7, (uint64_t)N * BS, BS, err, sizeof(err)), 0);
        buffers_fill(&b, buf, BS);
        *zeros = 0;
        for (int i = 0; i < N; i++) {
                uint64_t x = 1469598103934665603ULL;
                buffers_prep_write(&b, buf, BS, (uint64_t)i * BS);
                for (int k = 0; k < BS; k++) {
                        x = (x ^ buf[k]) * 1099511628211ULL;
                        *zeros += buf[k] == 0;
                }
                h[i] = x;
        }
        memcpy(last, buf, BS);
        buffers_done(&b);
        job_spec_done(&j);
        free(buf);
}

static int cmp(const void *a, const void *b)
{
        uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
        return x < y ? -1 : x > y;
}

static unsigned unique(uint64_t *h)
{
        unsigned u = 1;
        qsort(h, N, sizeof(*h), cmp);
        for (int i = 1; i < N; i++)
                u += h[i] != h[i - 1];
        return u;
}

static void test_modes(void **state)
{
        static uint64_t h[N];
        static uint8_t last[BS];
        size_t zeros;

        (void)state;
        /* fio's default: every block unique, hardly a zero byte */
        writes(NULL, h, last, &zeros);
        assert_int_equal(unique(h), N);
        assert_true(zeros < (size_t)N * BS / 100);
        /* zero_buffers: zeroes, unscrambled ... */
        writes((const char *[]){"zero_buffers", "1", NULL}, h, last, &zeros);
        assert_int_equal(unique(h), 1);
        assert_int_equal(zeros, (size_t)N * BS);
        /* ... unless scramble_buffers is given */
        writes((const char *[]){"zero_buffers", "1", "scramble_buffers", "1", NULL}, h, last,
               &zeros);
        assert_int_equal(unique(h), N);
        /* scramble_buffers=0: one block, again and again */
        writes((const char *[]){"scramble_buffers", "0", NULL}, h, last, &zeros);
        assert_int_equal(unique(h), 1);
        /* a pattern, written as it is */
        writes((const char *[]){"buffer_pattern", "0xdeadbeef", NULL}, h, last, &zeros);
        assert_int_equal(unique(h), 1);
        assert_memory_equal(last, "\xde\xad\xbe\xef\xde\xad\xbe\xef", 8);
}

static void test_compress_and_dedupe(void **state)
{
        static uint64_t h[N];
        static uint8_t last[BS];
        size_t zeros;

        (void)state;
        /* half of every 512-byte chunk fixed (zeroes), each block unique */
        writes((const char *[]){"buffer_compress_percentage", "50", NULL}, h, last, &zeros);
        assert_int_equal(unique(h), N);
        assert_in_range(zeros * 100 / ((size_t)N * BS), 49, 51);
        for (int c = 0; c < BS; c += 512) {
                static const uint8_t z[256];
                assert_memory_equal(last + c + 256, z, 256);
        }
        /* 30% of the blocks repeat the last unique one */
        writes((const char *[]){"dedupe_percentage", "30", NULL}, h, last, &zeros);
        assert_in_range(unique(h) * 100 / N, 66, 74);
        /* ... or one of a working set */
        writes((const char *[]){"dedupe_percentage", "50", "dedupe_mode", "working_set",
                                "dedupe_working_set_percentage", "10", NULL},
               h, last, &zeros);
        assert_in_range(unique(h) * 100 / N, 45, 55);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_modes),
            cmocka_unit_test(test_compress_and_dedupe),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
