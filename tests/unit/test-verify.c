/* Unit tests for verify: checksum vectors on both crc32c paths and xxh3, fill/check round trips,
 * each fault kind told apart, and faults made on a real file. `test-verify --bench` prints the
 * speed of each checksum, fill and check instead (no test asserts a time). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "verify.h"
#include "util.h"

#define SEED 0x0123456789abcdefull
#define OTHER_SEED 0xfedcba9876543210ull

static const verify_kind_t kinds[] = {VERIFY_CRC32C, VERIFY_XXHASH};

/* Deterministic test data. */
static void fill_random(void *buf, size_t len, uint64_t x)
{
        unsigned char *p = buf;
        for (size_t i = 0; i < len; i++) {
                x = x * 6364136223846793005ull + 1442695040888963407ull;
                p[i] = (unsigned char)(x >> 56);
        }
}

/* Bit at a time, straight from the definition: the reference both fast paths must match. */
static uint32_t crc32c_bitwise(const void *buf, size_t len)
{
        const unsigned char *p = buf;
        uint32_t c = 0xffffffffu;
        for (size_t i = 0; i < len; i++) {
                c ^= p[i];
                for (int k = 0; k < 8; k++)
                        c = (c >> 1) ^ (0x82f63b78u & -(c & 1));
        }
        return ~c;
}

typedef uint32_t (*crc_fn)(uint32_t, const void *, size_t);

static void check_crc_vectors(crc_fn f)
{
        unsigned char b[32];

        assert_int_equal(f(0, "123456789", 9), 0xe3069283u);
        assert_int_equal(f(0, "", 0), 0);
        assert_int_equal(f(f(0, "1234", 4), "56789", 5), 0xe3069283u); /* chaining */
        /* RFC 3720 (iSCSI) B.4 */
        memset(b, 0, sizeof(b));
        assert_int_equal(f(0, b, 32), 0x8a9136aau);
        memset(b, 0xff, sizeof(b));
        assert_int_equal(f(0, b, 32), 0x62a8ab43u);
        for (int i = 0; i < 32; i++)
                b[i] = (unsigned char)i;
        assert_int_equal(f(0, b, 32), 0x46dd794eu);
        for (int i = 0; i < 32; i++)
                b[i] = (unsigned char)(31 - i);
        assert_int_equal(f(0, b, 32), 0x113fdb5cu);
}

static void test_crc32c_vectors(void **state)
{
        check_crc_vectors(verify_crc32c_table);
        check_crc_vectors(verify_crc32c);
        if (verify_crc32c_hw_available())
                check_crc_vectors(verify_crc32c_hw);
        else
                print_message("crc32c: no SSE4.2 on this CPU, hardware path not tested\n");
}

/* Lengths around every branch of the fast paths (3 x 256 and 3 x 8192 interleaving, word and
 * byte tails) at every alignment, against the bitwise reference. */
static void test_crc32c_paths_agree(void **state)
{
        static const size_t lens[] = {1,     7,     8,     9,     63,    255,
                                      767,   768,   769,   1000,  4048,  4096,
                                      8192,  24575, 24576, 24577, 24583, 49152 + 768 + 13,
                                      100000};
        size_t max = 100000 + 8;
        unsigned char *buf = malloc(max);
        assert_non_null(buf);
        fill_random(buf, max, 42);

        for (size_t i = 0; i < ELEMENTSOF(lens); i++)
                for (size_t a = 0; a < 8; a++) {
                        uint32_t want = crc32c_bitwise(buf + a, lens[i]);
                        assert_int_equal(verify_crc32c_table(0, buf + a, lens[i]), want);
                        if (verify_crc32c_hw_available())
                                assert_int_equal(verify_crc32c_hw(0, buf + a, lens[i]), want);
                        /* Split anywhere: chaining gives the same value. */
                        size_t cut = lens[i] / 3;
                        assert_int_equal(verify_crc32c(verify_crc32c(0, buf + a, cut),
                                                       buf + a + cut, lens[i] - cut),
                                         want);
                }
        free(buf);
}

/* XXH3-64, seed 0, of bytes 0, 1, 2, ... (values from xxHash's reference implementation, as
 * published with Apache HBase's test vectors). */
static void test_xxh3_vectors(void **state)
{
        static const struct {
                size_t len;
                uint64_t hash;
        } v[] = {
            {0, 0x2d06800538d394c2ull},
            {3, 6864218090047839419ull},
            {240, 3988562325861820517ull},
            {256, (uint64_t)-7779787747613135503ll},
            {2048, (uint64_t)-2503433555198690048ll},
            {2049, 7124680608501705883ull},
        };
        unsigned char buf[2049];
        for (size_t i = 0; i < sizeof(buf); i++)
                buf[i] = (unsigned char)i;
        for (size_t i = 0; i < ELEMENTSOF(v); i++)
                assert_true(verify_xxh3(buf, v[i].len) == v[i].hash);
}

static verify_expect_t expect(uint64_t offset, uint64_t gen, uint64_t seed)
{
        return (verify_expect_t){.offset = offset, .gen_min = gen, .gen_max = gen, .seed = seed};
}

static int check(const void *buf, size_t len, uint64_t offset, uint64_t gen, uint64_t seed,
                 verify_result_t *res)
{
        verify_expect_t e = expect(offset, gen, seed);
        return verify_check(buf, len, &e, res);
}

static void test_round_trip(void **state)
{
        static const size_t sizes[] = {48, 49, 55, 512, 4096, 4100, 65536, 1 << 20};
        unsigned char *buf = malloc((1 << 20) + 1), *again = malloc(1 << 20);
        verify_result_t res;
        assert_non_null(buf);
        assert_non_null(again);

        for (size_t k = 0; k < ELEMENTSOF(kinds); k++)
                for (size_t i = 0; i < ELEMENTSOF(sizes); i++)
                        for (size_t a = 0; a < 2; a++) { /* aligned and not */
                                size_t n = sizes[i];
                                uint64_t off = (uint64_t)i * 7 * n + 4096;
                                assert_int_equal(verify_fill(buf + a, n, off, 3, SEED, kinds[k]),
                                                 0);
                                assert_int_equal(check(buf + a, n, off, 3, SEED, &res), VERIFY_OK);
                                assert_int_equal(res.status, VERIFY_OK);
                                assert_string_equal(res.description, "");
                                assert_true(res.has_header);
                                assert_int_equal(res.found_kind, kinds[k]);
                                assert_int_equal(res.found_len, n);
                                assert_true(res.found_offset == off);
                                assert_true(res.found_generation == 3);
                                assert_true(res.found_seed == SEED);
                                /* Deterministic, and the payload is what the generator makes. */
                                assert_int_equal(verify_fill(again, n, off, 3, SEED, kinds[k]), 0);
                                assert_memory_equal(buf + a, again, n);
                                verify_payload_fill(again, n - VERIFY_HEADER_SIZE, SEED, off, 3);
                                assert_memory_equal(buf + a + VERIFY_HEADER_SIZE, again,
                                                    n - VERIFY_HEADER_SIZE);
                        }
        free(buf);
        free(again);
}

/* The table and the instruction write identical blocks, and each checks the other's. */
/* The on-disk format, pinned: a change here breaks reading old files and needs a new
 * VERIFY_FORMAT_VERSION. Also checks that every build (vector clone or not) makes the same data. */
static void test_format_known_answer(void **state)
{
        static const unsigned char header[VERIFY_HEADER_SIZE] = {
            'I',  'O',  'F',  'V',  1,    1,    48,   0,    0x00, 0x10, 0,    0,    0, 0, 0, 0,
            0x00, 0x20, 0,    0,    0,    0,    0,    0,    3,    0,    0,    0,    0, 0, 0, 0,
            0xef, 0xcd, 0xab, 0x89, 0x67, 0x45, 0x23, 0x01, 0x09, 0x97, 0x8c, 0xa9, 0, 0, 0, 0,
        };
        unsigned char b[4096];

        verify_payload_fill(b, sizeof(b), SEED, 8192, 3);
        assert_int_equal(verify_crc32c(0, b, sizeof(b)), 0x9e21a32eu);
        verify_payload_fill(b, 100, 1, 2, 3);
        assert_int_equal(verify_crc32c(0, b, 100), 0x4f61aa2bu);
        assert_int_equal(verify_fill(b, sizeof(b), 8192, 3, SEED, VERIFY_CRC32C), 0);
        assert_memory_equal(b, header, sizeof(header));
        assert_int_equal(verify_crc32c(0, b, sizeof(b)), 0x2bd43ab1u);
        assert_int_equal(verify_fill(b, sizeof(b), 8192, 3, SEED, VERIFY_XXHASH), 0);
        assert_int_equal(b[5], 2);
        assert_int_equal(verify_crc32c(0, b, sizeof(b)), 0x9054bad7u);
}

static void test_crc_paths_interchangeable(void **state)
{
        unsigned char a[4096], b[4096];
        verify_result_t res;

        verify_crc32c_use_hw(false);
        assert_int_equal(verify_fill(a, sizeof(a), 8192, 1, SEED, VERIFY_CRC32C), 0);
        verify_crc32c_use_hw(true);
        assert_int_equal(verify_fill(b, sizeof(b), 8192, 1, SEED, VERIFY_CRC32C), 0);
        assert_memory_equal(a, b, sizeof(a));
        assert_int_equal(check(a, sizeof(a), 8192, 1, SEED, &res), VERIFY_OK);
        verify_crc32c_use_hw(false);
        assert_int_equal(check(b, sizeof(b), 8192, 1, SEED, &res), VERIFY_OK);
        verify_crc32c_use_hw(true); /* back to the default */
}

static void test_payload_unique(void **state)
{
        unsigned char a[4096], b[4096];

        verify_payload_fill(a, sizeof(a), SEED, 0, 1);
        verify_payload_fill(b, sizeof(b), SEED, 4096, 1);
        assert_memory_not_equal(a, b, sizeof(a));
        verify_payload_fill(b, sizeof(b), SEED, 0, 2);
        assert_memory_not_equal(a, b, sizeof(a));
        verify_payload_fill(b, sizeof(b), OTHER_SEED, 0, 1);
        assert_memory_not_equal(a, b, sizeof(a));
        /* Not a short repeating pattern: no two 8-byte words of a block are the same. */
        for (size_t i = 0; i < sizeof(a); i += 8)
                for (size_t j = i + 8; j < sizeof(a); j += 8)
                        assert_memory_not_equal(a + i, a + j, 8);

        assert_true(verify_seed_mix(1, 2) != verify_seed_mix(1, 3));
        assert_true(verify_seed_mix(1, 2) != verify_seed_mix(2, 2));
        assert_true(verify_seed_mix(verify_seed_mix(7, 0), 1) !=
                    verify_seed_mix(verify_seed_mix(7, 1), 0));
}

static void test_invalid_args(void **state)
{
        unsigned char buf[64];
        verify_result_t res;
        verify_expect_t e = {.offset = 0, .gen_min = 3, .gen_max = 2, .seed = SEED};

        assert_int_equal(verify_fill(buf, VERIFY_MIN_LEN - 1, 0, 1, SEED, VERIFY_CRC32C), -EINVAL);
        assert_int_equal(verify_fill(buf, sizeof(buf), 0, 1, SEED, VERIFY_NONE), -EINVAL);
        assert_int_equal(verify_fill(NULL, sizeof(buf), 0, 1, SEED, VERIFY_CRC32C), -EINVAL);
        assert_int_equal(verify_fill(buf, sizeof(buf), 0, 1, SEED, VERIFY_CRC32C), 0);
        assert_int_equal(verify_check(buf, sizeof(buf), &e, &res), -EINVAL);
        assert_int_equal(check(buf, VERIFY_MIN_LEN - 1, 0, 1, SEED, &res), -EINVAL);
        assert_null(verify_status_to_string(_VERIFY_STATUS_MAX));
        assert_string_equal(verify_status_to_string(VERIFY_NEVER_WRITTEN), "never-written");
}

static void test_bit_flip_is_corrupt(void **state)
{
        unsigned char buf[4096];
        verify_result_t res;

        for (size_t k = 0; k < ELEMENTSOF(kinds); k++) {
                assert_int_equal(verify_fill(buf, sizeof(buf), 1048576, 4, SEED, kinds[k]), 0);
                buf[1234] ^= 0x10;
                assert_int_equal(check(buf, sizeof(buf), 1048576, 4, SEED, &res), VERIFY_CORRUPT);
                assert_true(res.offset == 1048576);
                assert_true(res.bad_first == 1234 && res.bad_last == 1234);
                assert_true(res.bad_bytes == 1 && res.bad_bits == 1);
                assert_false(res.bad_all_zero);
                assert_non_null(strstr(res.description,
                                       "verify: block at offset 1048576 is corrupt: "
                                       "checksum mismatch"));
                assert_non_null(strstr(res.description, "1 bit(s) differ from the data written, at "
                                                        "byte 1234 of 4096"));
        }
}

/* Every single-bit flip anywhere in a block, header included, is CORRUPT and located. */
static void test_every_bit_flip(void **state)
{
        unsigned char good[512], buf[512];
        verify_result_t res;

        for (size_t k = 0; k < ELEMENTSOF(kinds); k++) {
                assert_int_equal(verify_fill(good, sizeof(good), 65536, 2, SEED, kinds[k]), 0);
                for (size_t bit = 0; bit < 8 * sizeof(buf); bit++) {
                        memcpy(buf, good, sizeof(buf));
                        buf[bit / 8] ^= (unsigned char)(1u << (bit % 8));
                        int r = check(buf, sizeof(buf), 65536, 2, SEED, &res);
                        if (r != VERIFY_CORRUPT || res.bad_first != bit / 8 || res.bad_bits != 1)
                                print_error("kind %d bit %zu: %s\n", kinds[k], bit,
                                            res.description);
                        assert_int_equal(r, VERIFY_CORRUPT);
                        assert_true(res.bad_first == bit / 8);
                        assert_true(res.bad_last == bit / 8);
                        assert_true(res.bad_bits == 1);
                }
        }
}

static void test_misplaced(void **state)
{
        unsigned char buf[8192];
        verify_result_t res;

        for (size_t k = 0; k < ELEMENTSOF(kinds); k++) {
                assert_int_equal(verify_fill(buf, sizeof(buf), 8192 * 3, 5, SEED, kinds[k]), 0);
                assert_int_equal(check(buf, sizeof(buf), 8192 * 7, 5, SEED, &res),
                                 VERIFY_MISPLACED);
                assert_true(res.found_offset == 8192 * 3 && res.offset == 8192 * 7);
                assert_string_equal(
                    res.description,
                    "verify: block at offset 57344 is misplaced: it holds the block "
                    "written for offset 24576 (generation 5)");
        }

        /* A smaller block of this writer where a larger one was expected. */
        assert_int_equal(verify_fill(buf, 4096, 0, 1, SEED, VERIFY_CRC32C), 0);
        fill_random(buf + 4096, 4096, 9);
        assert_int_equal(check(buf, sizeof(buf), 0, 1, SEED, &res), VERIFY_MISPLACED);
        assert_int_equal(res.found_len, 4096);
        assert_non_null(strstr(res.description, "4096-byte block where a 8192-byte block"));
}

static void test_stale_and_newer(void **state)
{
        unsigned char buf[4096];
        verify_result_t res;
        verify_expect_t e = expect(1048576, 4, SEED);

        for (size_t k = 0; k < ELEMENTSOF(kinds); k++) {
                assert_int_equal(verify_fill(buf, sizeof(buf), 1048576, 3, SEED, kinds[k]), 0);
                assert_int_equal(verify_check(buf, sizeof(buf), &e, &res), VERIFY_STALE);
                assert_true(res.found_generation == 3 && res.gen_min == 4);
                assert_string_equal(res.description,
                                    "verify: block at offset 1048576 is stale: generation 3, "
                                    "expected 4 (a lost write)");
        }

        /* Ranges: "any >= 4" and "4..6" while overwrites are in flight. */
        e.gen_max = VERIFY_GEN_ANY;
        assert_int_equal(verify_check(buf, sizeof(buf), &e, &res), VERIFY_STALE);
        assert_non_null(strstr(res.description, "expected 4 or later"));
        assert_int_equal(verify_fill(buf, sizeof(buf), 1048576, 900, SEED, VERIFY_CRC32C), 0);
        assert_int_equal(verify_check(buf, sizeof(buf), &e, &res), VERIFY_OK);
        e.gen_max = 6;
        assert_int_equal(verify_check(buf, sizeof(buf), &e, &res), VERIFY_NEWER);
        assert_string_equal(res.description,
                            "verify: block at offset 1048576 is newer than expected: generation "
                            "900, expected 4..6 (a write reported as failed landed, or the writer "
                            "lost count)");
        assert_int_equal(verify_fill(buf, sizeof(buf), 1048576, 5, SEED, VERIFY_CRC32C), 0);
        assert_int_equal(verify_check(buf, sizeof(buf), &e, &res), VERIFY_OK);
}

static void test_foreign(void **state)
{
        unsigned char buf[4096];
        verify_result_t res;

        for (size_t k = 0; k < ELEMENTSOF(kinds); k++) {
                assert_int_equal(verify_fill(buf, sizeof(buf), 4096, 1, OTHER_SEED, kinds[k]), 0);
                /* Foreign wins over offset and generation: another writer's numbers mean nothing.
                 */
                assert_int_equal(check(buf, sizeof(buf), 4096, 1, SEED, &res), VERIFY_FOREIGN);
                assert_int_equal(check(buf, sizeof(buf), 0, 7, SEED, &res), VERIFY_FOREIGN);
                assert_true(res.found_seed == OTHER_SEED && res.found_offset == 4096);
                assert_string_equal(res.description,
                                    "verify: block at offset 0 is foreign: written with seed "
                                    "0xfedcba9876543210 for offset 4096 (generation 1), expected "
                                    "seed 0x0123456789abcdef");
        }
}

static void test_never_written(void **state)
{
        unsigned char buf[4096];
        verify_result_t res;

        memset(buf, 0, sizeof(buf));
        assert_int_equal(check(buf, sizeof(buf), 8192, 1, SEED, &res), VERIFY_NEVER_WRITTEN);
        assert_false(res.has_header);
        assert_string_equal(res.description,
                            "verify: block at offset 8192 was never written: all zeroes");

        memset(buf, 0xff, sizeof(buf));
        assert_int_equal(check(buf, sizeof(buf), 8192, 1, SEED, &res), VERIFY_NEVER_WRITTEN);
        assert_non_null(strstr(res.description, "every byte is 0xff"));

        memcpy(buf, "\x01\x02\x03\x04\x05\x06\x07\x08", 8);
        assert_int_equal(check(buf, sizeof(buf), 8192, 1, SEED, &res), VERIFY_NEVER_WRITTEN);
        assert_non_null(
            strstr(res.description, "no verify header (starts 01 02 03 04 05 06 07 08)"));

        /* Random data (what a layout pass leaves) is never taken for a block, nor crashes. */
        for (uint64_t i = 0; i < 2000; i++) {
                size_t n = 48 + (size_t)(i * 37 % 4000);
                fill_random(buf, n, i);
                assert_int_equal(check(buf, n, 0, 1, SEED, &res), VERIFY_NEVER_WRITTEN);
        }
}

static void test_torn_write(void **state)
{
        unsigned char buf[16384], old[16384];
        verify_result_t res;

        /* The first 4 KiB of generation 2 landed, the rest still holds generation 1. */
        assert_int_equal(verify_fill(old, sizeof(old), 0, 1, SEED, VERIFY_XXHASH), 0);
        assert_int_equal(verify_fill(buf, sizeof(buf), 0, 2, SEED, VERIFY_XXHASH), 0);
        memcpy(buf + 4096, old + 4096, sizeof(buf) - 4096);
        assert_int_equal(check(buf, sizeof(buf), 0, 2, SEED, &res), VERIFY_CORRUPT);
        assert_true(res.bad_first >= 4096 && res.bad_first < 4104);
        assert_true(res.bad_last >= sizeof(buf) - 8);
        assert_false(res.bad_all_zero);

        /* A short write: the tail reads back as zeroes. */
        assert_int_equal(verify_fill(buf, sizeof(buf), 0, 2, SEED, VERIFY_CRC32C), 0);
        memset(buf + 8192, 0, sizeof(buf) - 8192);
        assert_int_equal(check(buf, sizeof(buf), 0, 2, SEED, &res), VERIFY_CORRUPT);
        assert_true(res.bad_all_zero);
        assert_true(res.bad_first >= 8192 && res.bad_first < 8200);
        assert_non_null(strstr(res.description, "read back as zeroes"));
}

static void test_damaged_checksum_field(void **state)
{
        unsigned char buf[4096];
        verify_result_t res;

        assert_int_equal(verify_fill(buf, sizeof(buf), 0, 1, SEED, VERIFY_CRC32C), 0);
        buf[VERIFY_HEADER_SIZE - 1] ^= 0x80; /* the unused upper half of a crc32c field */
        assert_int_equal(check(buf, sizeof(buf), 0, 1, SEED, &res), VERIFY_CORRUPT);
        assert_non_null(strstr(res.description, "1 bit(s) of the checksum field itself differ"));
}

/* ---- on a real file ---- */

#define FBS 4096
#define FBLOCKS 16

static int scratch_file(void)
{
        const char *dir = getenv("TMPDIR");
        char path[4096];
        snprintf(path, sizeof(path), "%s/test-verify.XXXXXX", strempty(dir) ? "/tmp" : dir);
        int fd = mkostemp(path, O_CLOEXEC);
        assert_true(fd >= 0);
        unlink(path);
        return fd;
}

static void write_block(int fd, uint64_t index, uint64_t gen, uint64_t seed, verify_kind_t kind)
{
        unsigned char buf[FBS];
        assert_int_equal(verify_fill(buf, FBS, index * FBS, gen, seed, kind), 0);
        assert_int_equal(pwrite(fd, buf, FBS, (off_t)(index * FBS)), FBS);
}

/* Reads every block back and checks it against generation gen; returns how many failed and
 * stores their results in bad[]. */
static unsigned verify_file(int fd, uint64_t gen, verify_result_t bad[FBLOCKS])
{
        unsigned char buf[FBS];
        unsigned n = 0;
        for (uint64_t i = 0; i < FBLOCKS; i++) {
                verify_result_t res;
                assert_int_equal(pread(fd, buf, FBS, (off_t)(i * FBS)), FBS);
                int r = check(buf, FBS, i * FBS, gen, SEED, &res);
                assert_true(r >= 0);
                if (r != VERIFY_OK) {
                        print_message("%s\n", res.description);
                        bad[n++] = res;
                }
        }
        return n;
}

/* The case: a block corrupted on disk and a lost write; verify reports exactly those
 * two, each with its offset and kind. */
static void test_file_corruption_and_lost_write(void **state)
{
        verify_result_t bad[FBLOCKS];
        for (size_t k = 0; k < ELEMENTSOF(kinds); k++) {
                _cleanup_(closep) int fd = scratch_file();

                for (uint64_t i = 0; i < FBLOCKS; i++)
                        write_block(fd, i, 1, SEED, kinds[k]);
                for (uint64_t i = 0; i < FBLOCKS; i++)
                        if (i != 5) /* the lost write */
                                write_block(fd, i, 2, SEED, kinds[k]);
                unsigned char c;
                assert_int_equal(pread(fd, &c, 1, 11 * FBS + 3000), 1);
                c ^= 0x04;
                assert_int_equal(pwrite(fd, &c, 1, 11 * FBS + 3000), 1);

                assert_int_equal(verify_file(fd, 2, bad), 2);
                assert_int_equal(bad[0].status, VERIFY_STALE);
                assert_true(bad[0].offset == 5 * FBS);
                assert_true(bad[0].found_generation == 1);
                assert_string_equal(bad[0].description,
                                    "verify: block at offset 20480 is stale: generation 1, "
                                    "expected 2 (a lost write)");
                assert_int_equal(bad[1].status, VERIFY_CORRUPT);
                assert_true(bad[1].offset == 11 * FBS);
                assert_true(bad[1].bad_first == 3000 && bad[1].bad_bits == 1);
                assert_non_null(
                    strstr(bad[1].description,
                           "verify: block at offset 45056 is corrupt: checksum mismatch"));
        }
}

/* Every fault kind at once on one file, each reported at its own offset. */
static void test_file_every_fault(void **state)
{
        verify_result_t bad[FBLOCKS];
        unsigned char buf[FBS];
        _cleanup_(closep) int fd = scratch_file();

        for (uint64_t i = 0; i < FBLOCKS; i++)
                write_block(fd, i, 1, SEED, VERIFY_CRC32C);
        for (uint64_t i = 0; i < FBLOCKS; i++)
                if (i != 2)
                        write_block(fd, i, 2, SEED, VERIFY_CRC32C); /* block 2: lost write */
        /* block 4: a write landed on block 9's place */
        assert_int_equal(pread(fd, buf, FBS, 4 * FBS), FBS);
        assert_int_equal(pwrite(fd, buf, FBS, 9 * FBS), FBS);
        write_block(fd, 12, 2, OTHER_SEED, VERIFY_CRC32C); /* block 12: another writer's data */
        memset(buf, 0, FBS);
        assert_int_equal(pwrite(fd, buf, FBS, 14 * FBS), FBS); /* block 14: zeroes */
        assert_int_equal(pread(fd, buf, FBS, 7 * FBS), FBS);
        buf[FBS - 1] ^= 0x81; /* block 7: two bits in its last byte */
        assert_int_equal(pwrite(fd, buf, FBS, 7 * FBS), FBS);

        static const struct {
                uint64_t block;
                verify_status_t status;
                const char *word;
        } want[] = {
            {2, VERIFY_STALE, "is stale"},
            {7, VERIFY_CORRUPT, "is corrupt"},
            {9, VERIFY_MISPLACED, "is misplaced"},
            {12, VERIFY_FOREIGN, "is foreign"},
            {14, VERIFY_NEVER_WRITTEN, "was never written"},
        };
        assert_int_equal(verify_file(fd, 2, bad), ELEMENTSOF(want));
        for (size_t i = 0; i < ELEMENTSOF(want); i++) {
                char at[64];
                assert_int_equal(bad[i].status, want[i].status);
                assert_true(bad[i].offset == want[i].block * FBS);
                snprintf(at, sizeof(at), "block at offset %" PRIu64 " ", want[i].block * FBS);
                assert_non_null(strstr(bad[i].description, at));
                assert_non_null(strstr(bad[i].description, want[i].word));
        }
        assert_true(bad[1].bad_first == FBS - 1 && bad[1].bad_bits == 2);
        assert_true(bad[2].found_offset == 4 * FBS);
}

/* ---- speed ---- */

static double now_s(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

enum { B_CRC, B_XXH3, B_PAYLOAD, B_FILL, B_CHECK };

static volatile uint64_t sink;

/* GB/s of one operation on blocks of bs bytes, cycling through set bytes of blocks (at least
 * one): 256 KiB stays in L2 (a block just filled or just read), 256 MiB comes from memory. */
static double bench_one(int what, verify_kind_t kind, size_t bs, size_t set)
{
        size_t nblocks = set / bs ? set / bs : 1;
        unsigned char *mem = aligned_alloc(4096, nblocks * bs);
        verify_result_t res;
        double t0, t;
        uint64_t bytes = 0, acc = 0;

        if (!mem)
                return 0;
        for (size_t i = 0; i < nblocks; i++)
                verify_fill(mem + i * bs, bs, i * bs, 1, SEED,
                            kind == VERIFY_NONE ? VERIFY_CRC32C : kind);
        t0 = now_s();
        do {
                for (size_t i = 0; i < nblocks; i++) {
                        unsigned char *p = mem + i * bs;
                        switch (what) {
                        case B_CRC:
                                acc += verify_crc32c(0, p, bs);
                                break;
                        case B_XXH3:
                                acc += verify_xxh3(p, bs);
                                break;
                        case B_PAYLOAD:
                                verify_payload_fill(p, bs, SEED, i * bs, 1);
                                break;
                        case B_FILL:
                                verify_fill(p, bs, i * bs, 1, SEED, kind);
                                break;
                        case B_CHECK:
                                acc += (uint64_t)check(p, bs, i * bs, 1, SEED, &res);
                                break;
                        }
                        bytes += bs;
                }
                t = now_s() - t0;
        } while (t < 0.3);
        sink = acc;
        free(mem);
        return (double)bytes / t / 1e9;
}

static const struct {
        size_t bs, set;
        const char *name;
} bench_cols[] = {
    {4096, 256 << 10, "4 KiB"},
    {65536, 256 << 10, "64 KiB"},
    {1 << 20, 1 << 20, "1 MiB"},
    {1 << 20, 256u << 20, "1 MiB mem"},
};

static void bench_row(const char *name, int what, verify_kind_t kind)
{
        printf("%-26s", name);
        for (size_t c = 0; c < ELEMENTSOF(bench_cols); c++)
                printf(" %10.2f", bench_one(what, kind, bench_cols[c].bs, bench_cols[c].set));
        printf("\n");
        fflush(stdout);
}

static int bench(void)
{
        bool hw = verify_crc32c_hw_available();

        printf("verify speed in GB/s (1e9 bytes/s), one thread, crc32c instruction %s;\n"
               "blocks cached (256 KiB set; 1 MiB: one block) or from memory (256 MiB set)\n",
               hw ? "present" : "absent");
        printf("%-26s", "");
        for (size_t c = 0; c < ELEMENTSOF(bench_cols); c++)
                printf(" %10s", bench_cols[c].name);
        printf("\n");
        for (int pass = 0; pass < 2; pass++) {
                if (pass == 0 && !hw)
                        continue;
                bool use = verify_crc32c_use_hw(pass == 0);
                char name[64];
                snprintf(name, sizeof(name), "crc32c %s", use ? "hw" : "table");
                bench_row(name, B_CRC, VERIFY_NONE);
                snprintf(name, sizeof(name), "fill crc32c %s", use ? "hw" : "table");
                bench_row(name, B_FILL, VERIFY_CRC32C);
                snprintf(name, sizeof(name), "check crc32c %s", use ? "hw" : "table");
                bench_row(name, B_CHECK, VERIFY_CRC32C);
        }
        verify_crc32c_use_hw(true);
        bench_row("xxh3 (libxxhash)", B_XXH3, VERIFY_NONE);
        bench_row("fill xxh3", B_FILL, VERIFY_XXHASH);
        bench_row("check xxh3", B_CHECK, VERIFY_XXHASH);
        bench_row("payload generation alone", B_PAYLOAD, VERIFY_NONE);
        return 0;
}

int main(int argc, char **argv)
{
        if (argc > 1 && streq(argv[1], "--bench"))
                return bench();

        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_crc32c_vectors),
            cmocka_unit_test(test_crc32c_paths_agree),
            cmocka_unit_test(test_xxh3_vectors),
            cmocka_unit_test(test_round_trip),
            cmocka_unit_test(test_format_known_answer),
            cmocka_unit_test(test_crc_paths_interchangeable),
            cmocka_unit_test(test_payload_unique),
            cmocka_unit_test(test_invalid_args),
            cmocka_unit_test(test_bit_flip_is_corrupt),
            cmocka_unit_test(test_every_bit_flip),
            cmocka_unit_test(test_misplaced),
            cmocka_unit_test(test_stale_and_newer),
            cmocka_unit_test(test_foreign),
            cmocka_unit_test(test_never_written),
            cmocka_unit_test(test_torn_write),
            cmocka_unit_test(test_damaged_checksum_field),
            cmocka_unit_test(test_file_corruption_and_lost_write),
            cmocka_unit_test(test_file_every_fault),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
