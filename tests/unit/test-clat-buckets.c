/* The /metrics latency buckets from the agents' log-linear histograms: each bin lands in the
 * first fixed bucket its whole range is at or below, whatever order the bins come in. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "clat-buckets.h"
#include "hist.h"

/* The bucket of bin idx, the slow way: the bounds one by one. */
static unsigned reference_bucket(unsigned idx)
{
        unsigned k = 0;
        while (k < CLAT_BUCKETS && hist_bucket_high(idx) > clat_bounds[k].ns)
                k++;
        return k;
}

static void reference_add(clat_buckets_t *b, const Iofleet__Hist *h)
{
        for (size_t i = 0; i < h->n_index; i++) {
                b->n[reference_bucket(h->index[i])] += h->count[i];
                b->count += h->count[i];
        }
        b->sum_ns += h->sum;
}

static void expect_same(const clat_buckets_t *got, const clat_buckets_t *want)
{
        for (unsigned k = 0; k <= CLAT_BUCKETS; k++)
                if (got->n[k] != want->n[k])
                        fail_msg("bucket %u: %llu, %llu expected", k, (unsigned long long)got->n[k],
                                 (unsigned long long)want->n[k]);
        assert_int_equal(got->count, want->count);
        assert_int_equal(got->sum_ns, want->sum_ns);
}

/* Histograms of values spread from 1 ns to a minute (every bound crossed, some bins straddling
 * one), as the agents send them: bins in ascending order. */
static void test_matches_reference(void **state)
{
        uint64_t rng = 0x9e3779b97f4a7c15ULL;
        (void)state;
        for (int round = 0; round < 200; round++) {
                hist_t h;
                Iofleet__Hist pb;
                clat_buckets_t got = {0}, want = {0};
                hist_init(&h);
                for (int i = 0; i < 500; i++) {
                        rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
                        /* log-uniform: 2^0 .. 2^36 ns */
                        hist_record(&h, (rng >> 8) >> (28 + (rng & 31)));
                }
                /* exact bounds and their neighbours */
                for (unsigned k = 0; k < CLAT_BUCKETS; k++) {
                        hist_record(&h, clat_bounds[k].ns - 1);
                        hist_record(&h, clat_bounds[k].ns);
                        hist_record(&h, clat_bounds[k].ns + 1);
                }
                assert_int_equal(wire_hist_from(&pb, &h), 0);
                clat_buckets_add_wire(&got, &pb);
                reference_add(&want, &pb);
                expect_same(&got, &want);
                wire_hist_done(&pb);
        }
}

/* Bins out of order (another sender's encoder) land where they belong all the same; an index
 * beyond the histogram is left out, and an empty histogram adds nothing. */
static void test_out_of_order(void **state)
{
        uint32_t index[] = {900, 10, 500, 501, 3, 2000, 1000};
        uint64_t count[] = {1, 2, 3, 4, 5, 6, 7};
        Iofleet__Hist pb = IOFLEET__HIST__INIT;
        clat_buckets_t got = {0}, want = {0};
        (void)state;
        pb.index = index;
        pb.n_index = sizeof(index) / sizeof(index[0]);
        pb.count = count;
        pb.n_count = pb.n_index;
        pb.n = 28;
        pb.sum = 12345;
        clat_buckets_add_wire(&got, &pb);
        reference_add(&want, &pb);
        expect_same(&got, &want);
        clat_buckets_add_wire(&got, NULL);
        pb.n = 0;
        clat_buckets_add_wire(&got, &pb);
        expect_same(&got, &want);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_matches_reference),
            cmocka_unit_test(test_out_of_order),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
