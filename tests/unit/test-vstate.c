/* Tests for a worker's verification state (agent/vstate.c) where the I/O pattern options meet
 * it: writes of mixed sizes (bssplit, bsrange) carry a header in every unit of the smallest
 * size, so any unit read back checks; a write marks every whole unit it covers for read-back
 * (a cut last write only its whole ones); writes that cannot start on those units are refused
 * when they are to be read back. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "unit-job.h"
#include "vstate.h"

#define KIB 1024ULL
#define SEED 0x1234abcdULL

/* vstate of one file of nblocks blocks of bs bytes from offset 0. */
static int init_one(vstate_t *v, const job_spec_t *j, uint64_t nblocks, uint64_t bs, char *err,
                    size_t errlen)
{
        uint64_t base = 0;
        return vstate_init(v, j, 1, &nblocks, &base, bs, err, errlen);
}

/* A 16k write of a bssplit job read back as 4k units, and as one 8k read: every unit checks. */
static void test_mixed_sizes_units(void **state)
{
        job_spec_t j;
        vstate_t v;
        char err[256];
        verify_result_t res;
        uint8_t *buf = malloc(16 * KIB);
        (void)state;

        job_with(&j, "rw", "randwrite", "bssplit", "4k/50:16k/50", "verify", "md5", NULL);
        assert_int_equal(init_one(&v, &j, 64, 4 * KIB, err, sizeof(err)), 0);
        assert_int_equal(v.interval, 4 * KIB);
        vstate_fill(&v, buf, 16 * KIB, 32 * KIB, 1, SEED);
        for (unsigned u = 0; u < 4; u++)
                assert_int_equal(vstate_check(&v, buf + u * 4 * KIB, 4 * KIB, 32 * KIB + u * 4 * KIB,
                                              SEED, &res),
                                 VERIFY_OK);
        assert_int_equal(vstate_check(&v, buf + 4 * KIB, 8 * KIB, 36 * KIB, SEED, &res),
                         VERIFY_OK);
        /* read back at the wrong place: the unit says where it belongs */
        assert_true(vstate_check(&v, buf, 4 * KIB, 36 * KIB, SEED, &res) > 0);
        vstate_done(&v);
        job_spec_done(&j);

        /* one size: one header per block, as before */
        job_with(&j, "rw", "randwrite", "bs", "16k", "verify", "md5", NULL);
        assert_int_equal(init_one(&v, &j, 64, 16 * KIB, err, sizeof(err)), 0);
        assert_int_equal(v.interval, 0);
        vstate_done(&v);
        job_spec_done(&j);
        free(buf);
}

/* do_verify's phase reads back every whole unit a write covered, once, in offset order. */
static void test_written_marks_units(void **state)
{
        job_spec_t j;
        vstate_t v;
        char err[256];
        unsigned f;
        uint64_t off, want[] = {8 * KIB, 12 * KIB, 16 * KIB, 20 * KIB, 40 * KIB};
        size_t n = 0;
        (void)state;

        job_with(&j, "rw", "randwrite", "bsrange", "4k-16k", "verify", "crc32c", NULL);
        assert_int_equal(init_one(&v, &j, 16, 4 * KIB, err, sizeof(err)), 0);
        assert_true(v.readback);
        vstate_written(&v, 0, 8 * KIB, 16 * KIB);   /* 4 units */
        vstate_written(&v, 0, 12 * KIB, 4 * KIB);   /* one of them again */
        vstate_written(&v, 0, 40 * KIB, 4 * KIB + 2); /* a cut write: its whole unit only */
        vstate_written(&v, 0, 60 * KIB, 2 * KIB);   /* less than a unit: nothing */
        vstate_written(&v, 0, 60 * KIB, 16 * KIB);  /* past the region: its unit in it only */
        assert_int_equal(vstate_phase_bytes(&v), 6 * 4 * KIB);
        while (vstate_next(&v, true, &f, &off)) {
                assert_int_equal(f, 0);
                if (n < sizeof(want) / sizeof(want[0]))
                        assert_int_equal(off, want[n]);
                else
                        assert_int_equal(off, 60 * KIB);
                n++;
        }
        assert_int_equal(n, 6);
        vstate_done(&v);
        job_spec_done(&j);
}

/* Writes that cannot start on the units are refused when they are to be read back, and only
 * then. */
static void test_refused(void **state)
{
        job_spec_t j;
        vstate_t v;
        char err[256];
        (void)state;

        job_with(&j, "rw", "randwrite", "bssplit", "4k/50:6k/50", "bs_unaligned", "1", "verify",
                 "md5", NULL);
        assert_int_equal(init_one(&v, &j, 64, 4 * KIB, err, sizeof(err)), -EINVAL);
        assert_non_null(strstr(err, "bs_unaligned"));
        vstate_done(&v);
        job_spec_done(&j);

        job_with(&j, "rw", "randwrite", "bs", "4k", "blockalign", "512", "verify", "md5", NULL);
        assert_int_equal(init_one(&v, &j, 64, 4 * KIB, err, sizeof(err)), -EINVAL);
        assert_non_null(strstr(err, "blockalign"));
        vstate_done(&v);
        job_spec_done(&j);

        /* checked on later reads only: nothing to place */
        job_with(&j, "rw", "randwrite", "bs", "4k", "blockalign", "512", "verify", "md5",
                 "do_verify", "0", NULL);
        assert_int_equal(init_one(&v, &j, 64, 4 * KIB, err, sizeof(err)), 0);
        vstate_done(&v);
        job_spec_done(&j);

        /* sequential writes with holes of whole units are read back */
        job_with(&j, "rw", "write:8k", "bs", "4k", "verify", "md5", NULL);
        assert_int_equal(init_one(&v, &j, 64, 4 * KIB, err, sizeof(err)), 0);
        vstate_done(&v);
        job_spec_done(&j);
        job_with(&j, "rw", "write:1k", "bs", "4k", "verify", "md5", NULL);
        assert_int_equal(init_one(&v, &j, 64, 4 * KIB, err, sizeof(err)), -EINVAL);
        vstate_done(&v);
        job_spec_done(&j);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_mixed_sizes_units),
            cmocka_unit_test(test_written_marks_units),
            cmocka_unit_test(test_refused),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
