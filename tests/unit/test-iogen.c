/* Tests for the I/O generator (agent/iogen.c) and what it stands on (agent/fiorand.c,
 * agent/blockmap.c): fio 3.33's own offset and block size sequences reproduced exactly where fio
 * seeds them (the reference values were written by fio 3.33's write_iolog for the same jobs),
 * bssplit and bsrange shares, holes and backwards I/O, rw=randread:N, a random map that covers
 * every block once with mixed sizes, the LFSR's period, the skew of zipf, pareto, normal and the
 * zones' shares. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blockmap.h"
#include "fiorand.h"
#include "iogen.h"
#include "options.h"
#include "unit-job.h"

#define KIB 1024ULL
#define MIB (1024ULL * KIB)

/* A generator over one file region of size bytes for job j, fio's thread thread_number. */
static iogen_t *gen_of(const job_spec_t *j, uint64_t size, unsigned thread_number)
{
        uint64_t base = 0;
        iogen_params_t p = {.job = j,
                            .nfiles = 1,
                            .base = &base,
                            .size = &size,
                            .seed = 42,
                            .thread_number = thread_number};
        iogen_t *g = NULL;
        char err[256];
        if (iogen_new(&p, &g, err, sizeof(err)) < 0)
                fail_msg("iogen_new: %s", err);
        return g;
}

/* fio 3.33, --rw=randread --bs=4k --size=64m --norandommap, write_iolog's offsets. */
static void test_fio_offsets(void **state)
{
        static const uint64_t thread1[] = {4046848, 49676288, 56582144, 31539200, 26968064};
        static const uint64_t thread2[] = {17096704, 12189696, 40308736};
        static const uint64_t seed1234[] = {5001216, 28983296, 4882432, 17698816, 17088512};
        static const uint64_t taus64[] = {62976000, 1761280, 5410816, 6672384, 35504128};
        job_spec_t j;
        iogen_t *g;
        uint64_t off, len;
        (void)state;

        /* randrepeat=1 (fio's default): FIO_RANDSEED x thread number, whatever randseed is */
        job_with(&j, "rw", "randread", "norandommap", "1", "random_generator", "tausworthe",
                 "randseed", "777", NULL);
        g = gen_of(&j, 64 * MIB, 1);
        for (size_t i = 0; i < 5; i++) {
                iogen_next(g, 0, DDIR_READ, &off, &len);
                assert_int_equal(off, thread1[i]);
                assert_int_equal(len, 4096);
        }
        iogen_destroy(&g);
        g = gen_of(&j, 64 * MIB, 2);
        for (size_t i = 0; i < 3; i++) {
                iogen_next(g, 0, DDIR_READ, &off, &len);
                assert_int_equal(off, thread2[i]);
        }
        iogen_destroy(&g);
        job_spec_done(&j);

        /* randrepeat=0 with a randseed: fio's derived seed of its block stream */
        job_with(&j, "rw", "randread", "norandommap", "1", "random_generator", "tausworthe",
                 "randrepeat", "0", "randseed", "1234", NULL);
        g = gen_of(&j, 64 * MIB, 1);
        for (size_t i = 0; i < 5; i++) {
                iogen_next(g, 0, DDIR_READ, &off, &len);
                assert_int_equal(off, seed1234[i]);
        }
        iogen_destroy(&g);
        job_spec_done(&j);

        job_with(&j, "rw", "randread", "norandommap", "1", "random_generator", "tausworthe64",
                 NULL);
        g = gen_of(&j, 64 * MIB, 1);
        for (size_t i = 0; i < 5; i++) {
                iogen_next(g, 0, DDIR_READ, &off, &len);
                assert_int_equal(off, taus64[i]);
        }
        iogen_destroy(&g);
        job_spec_done(&j);
}

/* fio 3.33's block sizes and offsets for bssplit=4k/30:8k/30 and bsrange=1k-16k. */
static void test_fio_block_sizes(void **state)
{
        static const uint64_t split_off[] = {4046848, 49676288, 56582144, 31539200, 26968064,
                                             56377344, 25534464, 23724032};
        static const uint64_t split_bs[] = {4096, 8192, 8192, 8192, 8192, 4096, 8192, 4096};
        static const uint64_t range_off[] = {4046848,  49679360, 56584192, 31541248,
                                             26971136, 56379392, 25534464, 23724032};
        static const uint64_t range_bs[] = {3072, 11264, 13312, 6144, 15360, 2048, 16384, 3072};
        job_spec_t j;
        iogen_t *g;
        uint64_t off, len;
        (void)state;

        job_with(&j, "rw", "randread", "norandommap", "1", "random_generator", "tausworthe",
                 "bssplit", "4k/30:8k/30", NULL);
        g = gen_of(&j, 64 * MIB, 1);
        for (size_t i = 0; i < 8; i++) {
                iogen_next(g, 0, DDIR_READ, &off, &len);
                assert_int_equal(off, split_off[i]);
                assert_int_equal(len, split_bs[i]);
        }
        iogen_destroy(&g);
        job_spec_done(&j);

        job_with(&j, "rw", "randread", "norandommap", "1", "random_generator", "tausworthe",
                 "bsrange", "1k-16k", NULL);
        g = gen_of(&j, 64 * MIB, 1);
        for (size_t i = 0; i < 8; i++) {
                iogen_next(g, 0, DDIR_READ, &off, &len);
                assert_int_equal(off, range_off[i]);
                assert_int_equal(len, range_bs[i]);
        }
        iogen_destroy(&g);
        job_spec_done(&j);
}

/* bssplit's shares over many draws, within 1% of what was asked; bsrange uniform over the
 * multiples of its smallest size; bs_unaligned any size in range. */
static void test_shares(void **state)
{
        job_spec_t j;
        iogen_t *g;
        uint64_t off, len, n4 = 0, n16 = 0, n64 = 0, other = 0, counts[5] = {0};
        const unsigned draws = 200000;
        (void)state;

        job_with(&j, "rw", "randwrite", "norandommap", "1", "bssplit", "4k/50:16k/30:64k/20",
                 NULL);
        g = gen_of(&j, 1024 * MIB, 1);
        for (unsigned i = 0; i < draws; i++) {
                iogen_next(g, 0, DDIR_WRITE, &off, &len);
                assert_int_equal(off % 4096, 0);
                if (len == 4 * KIB)
                        n4++;
                else if (len == 16 * KIB)
                        n16++;
                else if (len == 64 * KIB)
                        n64++;
                else
                        other++;
        }
        assert_int_equal(other, 0);
        assert_true(fabs((double)n4 / draws - 0.50) < 0.01);
        assert_true(fabs((double)n16 / draws - 0.30) < 0.01);
        assert_true(fabs((double)n64 / draws - 0.20) < 0.01);
        iogen_destroy(&g);
        job_spec_done(&j);

        job_with(&j, "rw", "randread", "norandommap", "1", "bsrange", "4k-16k", NULL);
        g = gen_of(&j, 1024 * MIB, 1);
        for (unsigned i = 0; i < draws; i++) {
                iogen_next(g, 0, DDIR_READ, &off, &len);
                assert_int_equal(len % (4 * KIB), 0);
                assert_true(len >= 4 * KIB && len <= 16 * KIB);
                counts[len / (4 * KIB)]++;
        }
        for (unsigned k = 1; k <= 4; k++)
                assert_true(fabs((double)counts[k] / draws - 0.25) < 0.01);
        iogen_destroy(&g);
        job_spec_done(&j);

        /* fio's formula: smallest + largest x U[0,1), capped at the largest: [1000, 4000) with
         * a third of the draws at 3000 */
        job_with(&j, "rw", "randread", "norandommap", "1", "bsrange", "1000-3000",
                 "bs_unaligned", "1", NULL);
        g = gen_of(&j, 64 * MIB, 1);
        other = n4 = 0;
        for (unsigned i = 0; i < 30000; i++) {
                iogen_next(g, 0, DDIR_READ, &off, &len);
                assert_true(len >= 1000 && len <= 3000);
                other += len % 1000 != 0;
                n4 += len == 3000;
        }
        assert_true(fabs((double)n4 / 30000 - 1.0 / 3) < 0.02);
        assert_true(other > 19000);
        iogen_destroy(&g);
        job_spec_done(&j);
}

/* rw=write:4k skips 4k after each 4k write and wraps at the end; read:-8k goes backwards from
 * the end, as fio 3.33's write_iolog shows. */
static void test_holes(void **state)
{
        job_spec_t j;
        iogen_t *g;
        uint64_t off, len;
        (void)state;

        job_with(&j, "rw", "write:4k", NULL);
        g = gen_of(&j, MIB, 1);
        for (uint64_t i = 0; i < 128; i++) {
                int r = iogen_next(g, 0, DDIR_WRITE, &off, &len);
                assert_int_equal(off, i * 8192);
                assert_int_equal(len, 4096);
                assert_int_equal(r, i == 127 ? IOGEN_PASS_END : 0);
        }
        iogen_next(g, 0, DDIR_WRITE, &off, &len);
        assert_int_equal(off, 0);
        iogen_next(g, 0, DDIR_WRITE, &off, &len);
        assert_int_equal(off, 8192);
        iogen_destroy(&g);
        job_spec_done(&j);

        job_with(&j, "rw", "read:-8k", NULL);
        g = gen_of(&j, MIB, 1);
        iogen_next(g, 0, DDIR_READ, &off, &len);
        assert_int_equal(off, 0);
        iogen_next(g, 0, DDIR_READ, &off, &len);
        assert_int_equal(off, 1040384);
        iogen_next(g, 0, DDIR_READ, &off, &len);
        assert_int_equal(off, 1036288);
        iogen_destroy(&g);
        job_spec_done(&j);
}

/* fio's loops: a new loop starts every file again (sequential position and random map), while
 * the random streams go on, as fio's do. */
static void test_restart(void **state)
{
        job_spec_t j;
        iogen_t *g;
        uint64_t off, len, first[8];
        bool seen[256] = {false};
        (void)state;

        job_with(&j, "rw", "write:4k", NULL);
        g = gen_of(&j, MIB, 1);
        for (int i = 0; i < 10; i++)
                iogen_next(g, 0, DDIR_WRITE, &off, &len);
        iogen_restart(g);
        iogen_next(g, 0, DDIR_WRITE, &off, &len);
        assert_int_equal(off, 0);
        iogen_next(g, 0, DDIR_WRITE, &off, &len);
        assert_int_equal(off, 8192);
        iogen_destroy(&g);
        job_spec_done(&j);

        /* random with the map: a restart mid-pass frees every block again */
        job_with(&j, "rw", "randread", "bssplit", "4k/50:8k/50", "random_generator", "tausworthe",
                 NULL);
        g = gen_of(&j, MIB, 1);
        for (int i = 0; i < 8; i++) {
                iogen_next(g, 0, DDIR_READ, &off, &len);
                first[i] = off;
        }
        for (int i = 0; i < 100; i++)
                iogen_next(g, 0, DDIR_READ, &off, &len);
        iogen_restart(g);
        {
                /* a whole pass after the restart covers every 4k block exactly once */
                uint64_t covered = 0;
                int r = 0;
                while (r != IOGEN_PASS_END) {
                        r = iogen_next(g, 0, DDIR_READ, &off, &len);
                        for (uint64_t b = off / 4096; b < (off + len) / 4096; b++) {
                                assert_false(seen[b]);
                                seen[b] = true;
                                covered += 4096;
                        }
                }
                assert_int_equal(covered, MIB);
        }
        iogen_restart(g);
        /* the streams went on: the new loop is not the first one again */
        {
                bool same = true;
                for (int i = 0; i < 8; i++) {
                        iogen_next(g, 0, DDIR_READ, &off, &len);
                        same &= off == first[i];
                }
                assert_false(same);
        }
        iogen_destroy(&g);
        job_spec_done(&j);
}

/* rw=randread:4: a new random offset, then 3 sequential I/Os from it (fio's R S S S); with
 * rw_sequencer=identical the same offset 4 times. */
static void test_seq_nr(void **state)
{
        job_spec_t j;
        iogen_t *g;
        uint64_t off, len, first = 0;
        (void)state;

        job_with(&j, "rw", "randread:4", "norandommap", "1", NULL);
        g = gen_of(&j, 256 * MIB, 1);
        for (unsigned i = 0; i < 400; i++) {
                iogen_next(g, 0, DDIR_READ, &off, &len);
                if (i % 4 == 0)
                        first = off;
                else
                        assert_int_equal(off, first + (i % 4) * 4096);
        }
        iogen_destroy(&g);
        job_spec_done(&j);

        job_with(&j, "rw", "randread:4", "rw_sequencer", "identical", "norandommap", "1", NULL);
        g = gen_of(&j, 256 * MIB, 1);
        for (unsigned i = 0; i < 400; i++) {
                iogen_next(g, 0, DDIR_READ, &off, &len);
                if (i % 4 == 0)
                        first = off;
                else
                        assert_int_equal(off, first);
        }
        iogen_destroy(&g);
        job_spec_done(&j);
}

/* percentage_random=70: about 30% of the I/Os continue sequentially from the one before. */
static void test_percentage_random(void **state)
{
        job_spec_t j;
        iogen_t *g;
        uint64_t off, len, prev_end = 0, seq = 0;
        const unsigned n = 50000;
        (void)state;

        job_with(&j, "rw", "randread", "percentage_random", "70", "norandommap", "1", NULL);
        g = gen_of(&j, 4096 * MIB, 1);
        for (unsigned i = 0; i < n; i++) {
                iogen_next(g, 0, DDIR_READ, &off, &len);
                seq += i && off == prev_end;
                prev_end = off + len;
        }
        assert_true(fabs((double)seq / n - 0.30) < 0.015);
        iogen_destroy(&g);
        job_spec_done(&j);
}

/* With the random map and mixed block sizes each block is covered once per pass: no I/O
 * overlaps another of its pass, a pass ends exactly when the region is covered. */
static void test_map_mixed_sizes(void **state)
{
        const uint64_t size = 8 * MIB, unit = 4096, nblocks = size / unit;
        uint8_t *seen = calloc(nblocks, 1);
        job_spec_t j;
        iogen_t *g;
        uint64_t off, len, bytes = 0;
        unsigned ios = 0;
        (void)state;

        assert_non_null(seen);
        job_with(&j, "rw", "randwrite", "bssplit", "4k/40:16k/40:64k/20", NULL);
        g = gen_of(&j, size, 1);
        for (;;) {
                int r = iogen_next(g, 0, DDIR_WRITE, &off, &len);
                assert_int_equal(off % unit, 0);
                assert_true(off + len <= size);
                for (uint64_t b = off / unit; b < (off + len) / unit; b++) {
                        assert_int_equal(seen[b], 0);
                        seen[b] = 1;
                }
                bytes += len;
                ios++;
                if (r == IOGEN_PASS_END)
                        break;
                assert_true(ios < nblocks);
        }
        assert_int_equal(bytes, size);
        /* the next pass starts over */
        memset(seen, 0, nblocks);
        iogen_next(g, 0, DDIR_WRITE, &off, &len);
        assert_true(off + len <= size);
        iogen_destroy(&g);
        job_spec_done(&j);
        free(seen);
}

/* random_generator=lfsr: every block once per period, in a scrambled order. */
static void test_lfsr(void **state)
{
        job_spec_t j;
        iogen_t *g;
        uint64_t off, len;
        const uint64_t nblocks = 3000;
        uint8_t *seen = calloc(nblocks, 1);
        unsigned in_order = 0;
        (void)state;

        job_with(&j, "rw", "randread", "random_generator", "lfsr", NULL);
        g = gen_of(&j, nblocks * 4096, 1);
        for (uint64_t i = 0; i < nblocks; i++) {
                int r = iogen_next(g, 0, DDIR_READ, &off, &len);
                assert_int_equal(seen[off / 4096], 0);
                seen[off / 4096] = 1;
                in_order += off == i * 4096;
                assert_int_equal(r, i == nblocks - 1 ? IOGEN_PASS_END : 0);
        }
        assert_true(in_order < 10);
        iogen_destroy(&g);
        job_spec_done(&j);
        free(seen);
}

/* The taps give maximal-length registers: every value of 2..22 bits exactly once per period. */
static void test_lfsr_period(void **state)
{
        (void)state;
        for (unsigned bits = 2; bits <= 22; bits++) {
                uint64_t n = (1ULL << bits) - 1;
                uint8_t *seen = calloc(n, 1);
                fiorand_lfsr_t l;
                assert_non_null(seen);
                assert_int_equal(fiorand_lfsr_init(&l, n, 12345), 0);
                for (uint64_t i = 0; i < n; i++) {
                        uint64_t v = fiorand_lfsr_next(&l);
                        assert_true(v < n);
                        if (seen[v])
                                fail_msg("%u bits: %llu twice", bits, (unsigned long long)v);
                        seen[v] = 1;
                }
                free(seen);
        }
}

static int cmp_desc(const void *a, const void *b)
{
        uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
        return x < y ? 1 : x > y ? -1 : 0;
}

/* The share of the I/Os that the hottest 10% of the blocks get (*top1: the hottest one's). */
static double hot_share(const char *dist, uint64_t nblocks, unsigned draws, double *top1)
{
        uint32_t *hits = calloc(nblocks, sizeof(uint32_t));
        uint64_t off, len, top = 0;
        job_spec_t j;
        iogen_t *g;

        assert_non_null(hits);
        job_with(&j, "rw", "randread", "random_distribution", dist, NULL);
        g = gen_of(&j, nblocks * 4096, 1);
        for (unsigned i = 0; i < draws; i++) {
                iogen_next(g, 0, DDIR_READ, &off, &len);
                assert_true(off / 4096 < nblocks);
                hits[off / 4096]++;
        }
        qsort(hits, nblocks, sizeof(uint32_t), cmp_desc);
        *top1 = (double)hits[0] / draws;
        for (uint64_t i = 0; i < nblocks / 10; i++)
                top += hits[i];
        iogen_destroy(&g);
        job_spec_done(&j);
        free(hits);
        return (double)top / draws;
}

/* The skewed distributions: zipf's hottest block gets 1/zeta(n, theta) of the I/Os (its rank-1
 * probability, wherever the hash puts it), more skew with a larger theta; pareto:0.2 and normal
 * far from uniform's 10% in their hottest tenth. */
static void test_skew(void **state)
{
        const uint64_t n = 10000;
        double z09, z12, p02, n5, t09, t12, t, zeta09 = 0, zeta12 = 0;
        (void)state;

        for (uint64_t i = 1; i <= n; i++) {
                zeta09 += pow((double)i, -0.9);
                zeta12 += pow((double)i, -1.2);
        }
        z09 = hot_share("zipf:0.9", n, 400000, &t09);
        z12 = hot_share("zipf:1.2", n, 400000, &t12);
        p02 = hot_share("pareto:0.2", n, 400000, &t);
        n5 = hot_share("normal:5", n, 400000, &t);
        assert_true(fabs(t09 * zeta09 - 1) < 0.05);
        assert_true(fabs(t12 * zeta12 - 1) < 0.05);
        assert_true(z12 > z09 && z09 > 0.5);
        assert_true(p02 > 0.5 && p02 < 0.9);
        assert_true(n5 > 0.3);
}

/* zoned:60/10:30/20:10/70: 60% of the random I/Os in the first tenth of the file, 30% in the
 * next fifth, 10% in the rest, each uniform within its zone; zoned_abs the same in bytes. */
static void test_zones(void **state)
{
        job_spec_t j;
        iogen_t *g;
        uint64_t off, len, z[3] = {0}, size = 100 * MIB;
        const unsigned n = 100000;
        (void)state;

        job_with(&j, "rw", "randread", "random_distribution", "zoned:60/10:30/20:10/70", NULL);
        g = gen_of(&j, size, 1);
        for (unsigned i = 0; i < n; i++) {
                iogen_next(g, 0, DDIR_READ, &off, &len);
                z[off < size / 10 ? 0 : off < size * 3 / 10 ? 1 : 2]++;
        }
        assert_true(fabs((double)z[0] / n - 0.60) < 0.01);
        assert_true(fabs((double)z[1] / n - 0.30) < 0.01);
        assert_true(fabs((double)z[2] / n - 0.10) < 0.01);
        iogen_destroy(&g);
        job_spec_done(&j);

        memset(z, 0, sizeof(z));
        job_with(&j, "rw", "randread", "random_distribution", "zoned_abs:80/10m:20/90m", NULL);
        g = gen_of(&j, size, 1);
        for (unsigned i = 0; i < n; i++) {
                iogen_next(g, 0, DDIR_READ, &off, &len);
                z[off < 10 * MIB ? 0 : 1]++;
        }
        assert_true(fabs((double)z[0] / n - 0.80) < 0.01);
        iogen_destroy(&g);
        job_spec_done(&j);

        /* zones larger than the region: refused when the generator is made */
        {
                uint64_t base = 0, small = 50 * MIB;
                iogen_params_t p = {.nfiles = 1, .base = &base, .size = &small, .seed = 1,
                                    .thread_number = 1};
                iogen_t *bad = NULL;
                char err[256];
                job_with(&j, "rw", "randread", "random_distribution", "zoned_abs:80/10m:20/90m",
                         NULL);
                p.job = &j;
                assert_int_equal(iogen_new(&p, &bad, err, sizeof(err)), -EINVAL);
                assert_non_null(strstr(err, "zoned_abs zones cover"));
                job_spec_done(&j);
        }
}

static void test_blockmap(void **state)
{
        blockmap_t m;
        (void)state;

        for (uint64_t n = 1; n < 5000; n = n * 3 + 1) {
                assert_int_equal(blockmap_init(&m, n), 0);
                for (uint64_t i = 0; i < n; i++) {
                        uint64_t b = blockmap_next_free(&m, (i * 7919) % n);
                        assert_true(b < n);
                        assert_false(blockmap_isset(&m, b));
                        assert_int_equal(blockmap_mark(&m, b, 1), 1);
                }
                assert_true(blockmap_full(&m));
                assert_int_equal(blockmap_next_free(&m, 0), UINT64_MAX);
                blockmap_reset(&m);
                assert_false(blockmap_full(&m));
                /* a run stops at the first used block */
                if (n > 10) {
                        assert_int_equal(blockmap_mark(&m, 5, 1), 1);
                        assert_int_equal(blockmap_mark(&m, 2, 8), 3);
                        assert_int_equal(blockmap_next_free(&m, 2), 6);
                        assert_int_equal(blockmap_next_free(&m, n - 1), n - 1);
                }
                blockmap_free(&m);
        }
        assert_int_equal(blockmap_init(&m, 0), -E2BIG);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_fio_offsets),   cmocka_unit_test(test_fio_block_sizes),
            cmocka_unit_test(test_shares),        cmocka_unit_test(test_holes),
            cmocka_unit_test(test_restart),
            cmocka_unit_test(test_seq_nr),        cmocka_unit_test(test_percentage_random),
            cmocka_unit_test(test_map_mixed_sizes), cmocka_unit_test(test_lfsr),
            cmocka_unit_test(test_lfsr_period),   cmocka_unit_test(test_skew),
            cmocka_unit_test(test_zones),         cmocka_unit_test(test_blockmap),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
