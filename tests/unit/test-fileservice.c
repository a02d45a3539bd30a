/* Tests for the next I/O's file (fileservice.c): roundrobin, random and sequential with :N, the
 * openfiles window, and the distributions' shares. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fileservice.h"

/* Drives n I/Os over nfiles files of blocks each (a file's pass done after `blocks` I/Os on
 * it); counts[i] gets the I/Os of file i, order (may be NULL) the files in turn. */
static void drive(const char *type, unsigned nfiles, unsigned openfiles, unsigned blocks,
                  unsigned n, unsigned *counts, unsigned *order)
{
        fileservice_t fs;
        fst_t f;
        char err[256];
        unsigned *in_pass = calloc(nfiles, sizeof(*in_pass));

        assert_non_null(in_pass);
        assert_int_equal(fst_parse(type, &f, err, sizeof(err)), 0);
        assert_int_equal(fileservice_init(&fs, &f, nfiles, openfiles, 42), 0);
        memset(counts, 0, nfiles * sizeof(*counts));
        for (unsigned i = 0; i < n; i++) {
                unsigned cur = fs.cur;
                bool done;
                assert_true(cur < nfiles);
                counts[cur]++;
                if (order)
                        order[i] = cur;
                done = ++in_pass[cur] == blocks;
                if (done)
                        in_pass[cur] = 0;
                fileservice_next(&fs, done);
        }
        fileservice_done(&fs);
        free(in_pass);
}

static void test_roundrobin_and_nr(void **state)
{
        unsigned c[4], o[16];

        (void)state;
        drive("roundrobin", 4, 0, 100, 8, c, o);
        static const unsigned rr[] = {0, 1, 2, 3, 0, 1, 2, 3};
        assert_memory_equal(o, rr, sizeof(rr));
        drive("roundrobin:3", 4, 0, 100, 12, c, o);
        static const unsigned rr3[] = {0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3};
        assert_memory_equal(o, rr3, sizeof(rr3));
}

/* sequential: each file to its end; openfiles=2 with roundrobin: two at a time. */
static void test_sequential_and_window(void **state)
{
        unsigned c[4], o[16];

        (void)state;
        drive("sequential", 4, 0, 3, 12, c, o);
        static const unsigned seq[] = {0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3};
        assert_memory_equal(o, seq, sizeof(seq));
        drive("roundrobin", 4, 2, 2, 8, c, o);
        static const unsigned win[] = {0, 1, 0, 1, 2, 3, 2, 3};
        assert_memory_equal(o, win, sizeof(win));
}

/* random:8 switches every 8 I/Os and reaches every file; zipf favours a few files. */
static void test_random_and_zipf(void **state)
{
        unsigned c[16], o[64], max = 0, total = 0;

        (void)state;
        drive("random:8", 16, 0, 1000000, 64, c, o);
        for (unsigned i = 0; i < 64; i += 8)
                for (unsigned k = 1; k < 8; k++)
                        assert_int_equal(o[i + k], o[i]);
        drive("random", 16, 0, 1000000, 16000, c, NULL);
        for (unsigned i = 0; i < 16; i++)
                assert_in_range(c[i], 700, 1300);
        drive("zipf:1.2", 16, 0, 1000000, 16000, c, NULL);
        for (unsigned i = 0; i < 16; i++) {
                max = c[i] > max ? c[i] : max;
                total += c[i];
        }
        /* zipf(1.2) over 16: the first rank has 1/H(16,1.2) ~ 31% of the draws */
        assert_in_range(max * 100 / total, 26, 36);
        drive("normal:10", 16, 0, 1000000, 16000, c, NULL);
        assert_true(c[7] + c[8] > c[0] + c[15]);
}

static void test_parse_errors(void **state)
{
        fst_t f;
        char err[256];

        (void)state;
        assert_int_equal(fst_parse("zipf:1", &f, err, sizeof(err)), -EINVAL);
        assert_int_equal(fst_parse("pareto:1.5", &f, err, sizeof(err)), -EINVAL);
        assert_int_equal(fst_parse("random:0", &f, err, sizeof(err)), -EINVAL);
        assert_int_equal(fst_parse("shuffle", &f, err, sizeof(err)), -EINVAL);
        assert_int_equal(fst_parse("gauss:5", &f, err, sizeof(err)), 0);
        assert_int_equal(f.kind, FST_NORMAL);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_roundrobin_and_nr),
            cmocka_unit_test(test_sequential_and_window),
            cmocka_unit_test(test_random_and_zipf),
            cmocka_unit_test(test_parse_errors),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
