/* Data verification: block header and payload generation, crc32c and xxh3 checksums, and the
 * check that classifies what a read found. Format and API are described in verify.h. */
#include "verify.h"

#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <nettle/md5.h>
#include <nettle/sha2.h>
#include <xxhash.h>

/* Header field offsets (see verify.h). */
enum {
        H_MAGIC = 0,
        H_VERSION = 4,
        H_KIND = 5,
        H_HDRSIZE = 6,
        H_LEN = 8,
        H_RESERVED = 12,
        H_OFFSET = 16,
        H_GENERATION = 24,
        H_SEED = 32,
        H_CHECKSUM = 40,
};

/* Checksum codes as stored in the header: fixed by the format, whatever verify_kind_t does. */
enum { CODE_CRC32C = 1, CODE_XXH3 = 2, CODE_MD5 = 3, CODE_SHA256 = 4, CODE_META = 5 };
static const unsigned codes[] = {CODE_CRC32C, CODE_XXH3, CODE_MD5, CODE_SHA256, CODE_META};

static inline uint64_t get_le64(const unsigned char *p)
{
        uint64_t v;
        memcpy(&v, p, sizeof(v));
        return le64toh(v);
}

static inline uint32_t get_le32(const unsigned char *p)
{
        uint32_t v;
        memcpy(&v, p, sizeof(v));
        return le32toh(v);
}

static inline uint16_t get_le16(const unsigned char *p)
{
        uint16_t v;
        memcpy(&v, p, sizeof(v));
        return le16toh(v);
}

static inline void put_le64(unsigned char *p, uint64_t v)
{
        v = htole64(v);
        memcpy(p, &v, sizeof(v));
}

static inline void put_le32(unsigned char *p, uint32_t v)
{
        v = htole32(v);
        memcpy(p, &v, sizeof(v));
}

static inline void put_le16(unsigned char *p, uint16_t v)
{
        v = htole16(v);
        memcpy(p, &v, sizeof(v));
}

/* ---- crc32c ---------------------------------------------------------------------------- */

#define CRC32C_POLY 0x82f63b78u /* Castagnoli, bit-reflected */
/* The hardware path runs three independent streams over 3 x LONG (then 3 x SHORT) bytes, as the
 * crc32 instruction has a latency of three cycles and a throughput of one, then shifts the first
 * two results over the bytes that followed them and folds the three together. */
#define CRC_LONG 8192
#define CRC_SHORT 256

static uint32_t crc_table[8][256];       /* slicing-by-8 */
static uint32_t crc_shift_long[4][256];  /* raw crc followed by CRC_LONG zero bytes */
static uint32_t crc_shift_short[4][256]; /* ... by CRC_SHORT zero bytes */
static bool crc_hw_present;
static int crc_hw_selected; /* read and written with relaxed atomics */
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

/* Multiplies the 32x32 GF(2) matrix mat (column n = image of bit n) by vec. */
static uint32_t gf2_times(const uint32_t mat[32], uint32_t vec)
{
        uint32_t sum = 0;
        for (unsigned n = 0; vec; n++, vec >>= 1)
                if (vec & 1)
                        sum ^= mat[n];
        return sum;
}

/* out = a after b (out may not alias a or b). */
static void gf2_mul(uint32_t out[32], const uint32_t a[32], const uint32_t b[32])
{
        for (unsigned n = 0; n < 32; n++)
                out[n] = gf2_times(a, b[n]);
}

/* Builds the byte tables of the linear map "raw crc register followed by len zero bytes". */
static void crc_shift_tables(uint32_t tab[4][256], size_t len)
{
        uint32_t op[32], sq[32], res[32], tmp[32];

        /* One zero bit: bit 0 shifts out and brings in the polynomial, bit n moves to n-1. */
        op[0] = CRC32C_POLY;
        for (unsigned n = 1; n < 32; n++)
                op[n] = 1u << (n - 1);
        for (unsigned i = 0; i < 3; i++) { /* 2, 4, 8 bits: one zero byte */
                gf2_mul(sq, op, op);
                memcpy(op, sq, sizeof(op));
        }
        for (unsigned n = 0; n < 32; n++)
                res[n] = 1u << n;
        for (; len; len >>= 1) {
                if (len & 1) {
                        gf2_mul(tmp, op, res);
                        memcpy(res, tmp, sizeof(res));
                }
                gf2_mul(sq, op, op);
                memcpy(op, sq, sizeof(op));
        }
        for (unsigned k = 0; k < 4; k++)
                for (unsigned b = 0; b < 256; b++)
                        tab[k][b] = gf2_times(res, (uint32_t)b << (8 * k));
}

static inline uint32_t crc_shift(const uint32_t tab[4][256], uint32_t c)
{
        return tab[0][c & 0xff] ^ tab[1][(c >> 8) & 0xff] ^ tab[2][(c >> 16) & 0xff] ^
               tab[3][c >> 24];
}

static void crc_init(void)
{
        for (unsigned n = 0; n < 256; n++) {
                uint32_t c = n;
                for (unsigned k = 0; k < 8; k++)
                        c = c & 1 ? (c >> 1) ^ CRC32C_POLY : c >> 1;
                crc_table[0][n] = c;
        }
        for (unsigned n = 0; n < 256; n++)
                for (unsigned k = 1; k < 8; k++)
                        crc_table[k][n] =
                            (crc_table[k - 1][n] >> 8) ^ crc_table[0][crc_table[k - 1][n] & 0xff];
        crc_shift_tables(crc_shift_long, CRC_LONG);
        crc_shift_tables(crc_shift_short, CRC_SHORT);
#if defined(__x86_64__)
        __builtin_cpu_init();
        crc_hw_present = __builtin_cpu_supports("sse4.2");
#endif
        __atomic_store_n(&crc_hw_selected, crc_hw_present, __ATOMIC_RELAXED);
}

static inline void crc_ensure_init(void)
{
        (void)pthread_once(&crc_once, crc_init);
}

/* Raw (not inverted) slicing-by-8 update. */
static uint32_t crc32c_table_raw(uint32_t c, const unsigned char *p, size_t n)
{
        for (; n && ((uintptr_t)p & 7); n--)
                c = (c >> 8) ^ crc_table[0][(c ^ *p++) & 0xff];
        for (; n >= 8; n -= 8, p += 8) {
                uint64_t w = get_le64(p) ^ c;
                c = crc_table[7][w & 0xff] ^ crc_table[6][(w >> 8) & 0xff] ^
                    crc_table[5][(w >> 16) & 0xff] ^ crc_table[4][(w >> 24) & 0xff] ^
                    crc_table[3][(w >> 32) & 0xff] ^ crc_table[2][(w >> 40) & 0xff] ^
                    crc_table[1][(w >> 48) & 0xff] ^ crc_table[0][w >> 56];
        }
        for (; n; n--)
                c = (c >> 8) ^ crc_table[0][(c ^ *p++) & 0xff];
        return c;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) static uint32_t crc32c_hw_raw(uint32_t c32,
                                                                const unsigned char *p, size_t n)
{
        uint64_t c = c32;

        for (; n && ((uintptr_t)p & 7); n--)
                c = __builtin_ia32_crc32qi((uint32_t)c, *p++);
        while (n >= 3 * CRC_LONG) {
                uint64_t c1 = 0, c2 = 0;
                const unsigned char *end = p + CRC_LONG;
                do {
                        c = __builtin_ia32_crc32di(c, get_le64(p));
                        c1 = __builtin_ia32_crc32di(c1, get_le64(p + CRC_LONG));
                        c2 = __builtin_ia32_crc32di(c2, get_le64(p + 2 * CRC_LONG));
                        p += 8;
                } while (p < end);
                c = crc_shift(crc_shift_long, (uint32_t)c) ^ c1;
                c = crc_shift(crc_shift_long, (uint32_t)c) ^ c2;
                p += 2 * CRC_LONG;
                n -= 3 * CRC_LONG;
        }
        while (n >= 3 * CRC_SHORT) {
                uint64_t c1 = 0, c2 = 0;
                const unsigned char *end = p + CRC_SHORT;
                do {
                        c = __builtin_ia32_crc32di(c, get_le64(p));
                        c1 = __builtin_ia32_crc32di(c1, get_le64(p + CRC_SHORT));
                        c2 = __builtin_ia32_crc32di(c2, get_le64(p + 2 * CRC_SHORT));
                        p += 8;
                } while (p < end);
                c = crc_shift(crc_shift_short, (uint32_t)c) ^ c1;
                c = crc_shift(crc_shift_short, (uint32_t)c) ^ c2;
                p += 2 * CRC_SHORT;
                n -= 3 * CRC_SHORT;
        }
        for (; n >= 8; n -= 8, p += 8)
                c = __builtin_ia32_crc32di(c, get_le64(p));
        for (; n; n--)
                c = __builtin_ia32_crc32qi((uint32_t)c, *p++);
        return (uint32_t)c;
}
#endif

uint32_t verify_crc32c_table(uint32_t crc, const void *buf, size_t len)
{
        crc_ensure_init();
        return ~crc32c_table_raw(~crc, buf, len);
}

uint32_t verify_crc32c_hw(uint32_t crc, const void *buf, size_t len)
{
        crc_ensure_init();
#if defined(__x86_64__)
        if (crc_hw_present)
                return ~crc32c_hw_raw(~crc, buf, len);
#endif
        return ~crc32c_table_raw(~crc, buf, len); /* documented as a misuse; stay correct */
}

bool verify_crc32c_hw_available(void)
{
        crc_ensure_init();
        return crc_hw_present;
}

bool verify_crc32c_use_hw(bool on)
{
        crc_ensure_init();
        bool hw = on && crc_hw_present;
        __atomic_store_n(&crc_hw_selected, hw, __ATOMIC_RELAXED);
        return hw;
}

uint32_t verify_crc32c(uint32_t crc, const void *buf, size_t len)
{
        crc_ensure_init();
#if defined(__x86_64__)
        if (__atomic_load_n(&crc_hw_selected, __ATOMIC_RELAXED))
                return ~crc32c_hw_raw(~crc, buf, len);
#endif
        return ~crc32c_table_raw(~crc, buf, len);
}

uint64_t verify_xxh3(const void *buf, size_t len)
{
        return XXH3_64bits(buf, len);
}

/* ---- payload --------------------------------------------------------------------------- */

static inline uint64_t mix64(uint64_t z)
{
        z += 0x9e3779b97f4a7c15ull;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
}

uint64_t verify_seed_mix(uint64_t seed, uint64_t value)
{
        return mix64(mix64(seed) ^ value);
}

/* Eight independent xorshift128+ generators: word i of the payload comes from lane i % 8.
 * Independent lanes let the CPU make several words at once; GCC's vector types keep the state
 * in registers (two AVX2 registers, or four SSE2 ones in the default clone). */
#define GEN_LANES 8

typedef uint64_t u64x4 __attribute__((vector_size(32)));

typedef struct payload_gen {
        u64x4 a[2], b[2]; /* lanes 0..3 and 4..7 */
} payload_gen_t;

static void gen_init(payload_gen_t *g, uint64_t seed, uint64_t offset, uint64_t generation)
{
        uint64_t k = mix64(mix64(mix64(seed) ^ offset) ^ generation);
        uint64_t a[GEN_LANES], b[GEN_LANES];

        for (unsigned l = 0; l < GEN_LANES; l++) {
                a[l] = mix64(k + 2 * l);
                b[l] = mix64(k + 2 * l + 1);
                if (!(a[l] | b[l])) /* the one state xorshift cannot leave */
                        b[l] = 1;
        }
        memcpy(g->a, a, sizeof(a));
        memcpy(g->b, b, sizeof(b));
}

/* Vectors go by pointer: by value they would change the ABI between the two clones. */
static inline __attribute__((always_inline)) void gen_lanes(u64x4 *a, u64x4 *b, u64x4 *out)
{
        u64x4 s1 = *a;
        const u64x4 s0 = *b;
        *a = s0;
        s1 ^= s1 << 23;
        *b = s1 ^ s0 ^ (s1 >> 17) ^ (s0 >> 26);
        *out = *b + s0;
}

static inline __attribute__((always_inline)) void store_le(unsigned char *p, u64x4 *v, size_t n)
{
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
        for (unsigned i = 0; i < 4; i++)
                (*v)[i] = htole64((*v)[i]);
#endif
        memcpy(p, v, n);
}

/* One step of every lane, as host-order words in payload order. */
static inline void gen_step(payload_gen_t *g, uint64_t out[GEN_LANES])
{
        u64x4 o0, o1;
        gen_lanes(&g->a[0], &g->b[0], &o0);
        gen_lanes(&g->a[1], &g->b[1], &o1);
        memcpy(out, &o0, sizeof(o0));
        memcpy(out + 4, &o1, sizeof(o1));
}

/* An AVX2 clone next to the baseline one, picked at load time by the CPU. */
#if defined(__x86_64__)
#define GEN_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define GEN_CLONES
#endif

GEN_CLONES static void gen_fill(payload_gen_t *g, unsigned char *p, size_t len)
{
        u64x4 a0 = g->a[0], a1 = g->a[1], b0 = g->b[0], b1 = g->b[1];
        u64x4 o0, o1;

        for (; len >= 64; len -= 64, p += 64) {
                gen_lanes(&a0, &b0, &o0);
                gen_lanes(&a1, &b1, &o1);
                store_le(p, &o0, 32);
                store_le(p + 32, &o1, 32);
        }
        if (len) {
                gen_lanes(&a0, &b0, &o0);
                gen_lanes(&a1, &b1, &o1);
                store_le(p, &o0, len < 32 ? len : 32);
                if (len > 32)
                        store_le(p + 32, &o1, len - 32);
        }
        g->a[0] = a0;
        g->a[1] = a1;
        g->b[0] = b0;
        g->b[1] = b1;
}

void verify_payload_fill(void *dst, size_t len, uint64_t seed, uint64_t offset, uint64_t generation)
{
        payload_gen_t g;
        gen_init(&g, seed, offset, generation);
        gen_fill(&g, dst, len);
}

/* ---- block ----------------------------------------------------------------------------- */

static unsigned kind_code(verify_kind_t kind)
{
        switch (kind) {
        case VERIFY_CRC32C:
                return CODE_CRC32C;
        case VERIFY_XXHASH:
                return CODE_XXH3;
        case VERIFY_MD5:
                return CODE_MD5;
        case VERIFY_SHA256:
                return CODE_SHA256;
        case VERIFY_META:
                return CODE_META;
        default:
                return 0;
        }
}

static verify_kind_t code_kind(unsigned code)
{
        return code == CODE_CRC32C   ? VERIFY_CRC32C
               : code == CODE_XXH3   ? VERIFY_XXHASH
               : code == CODE_MD5    ? VERIFY_MD5
               : code == CODE_SHA256 ? VERIFY_SHA256
               : code == CODE_META   ? VERIFY_META
                                     : VERIFY_NONE;
}

static const char *code_name(unsigned code)
{
        return code == CODE_CRC32C   ? "crc32c"
               : code == CODE_MD5    ? "md5"
               : code == CODE_SHA256 ? "sha256"
               : code == CODE_META   ? "meta"
                                     : "xxh3";
}

/* Checksum of a len-byte unit p: header bytes before the checksum field, then the payload. md5
 * and sha256 keep their digest's first 64 bits, the header's checksum field; meta covers the
 * header alone, as fio's meta checks only its header. */
static uint64_t parts_checksum(unsigned code, const unsigned char *h, const unsigned char *pl,
                               size_t plen)
{
        if (code == CODE_CRC32C)
                return verify_crc32c(verify_crc32c(0, h, H_CHECKSUM), pl, plen);
        if (code == CODE_META)
                return verify_crc32c(0, h, H_CHECKSUM);
        if (code == CODE_MD5) {
                struct md5_ctx c;
                uint8_t d[MD5_DIGEST_SIZE];
                md5_init(&c);
                md5_update(&c, H_CHECKSUM, h);
                md5_update(&c, plen, pl);
                md5_digest(&c, sizeof(d), d);
                return get_le64(d);
        }
        if (code == CODE_SHA256) {
                struct sha256_ctx c;
                uint8_t d[SHA256_DIGEST_SIZE];
                sha256_init(&c);
                sha256_update(&c, H_CHECKSUM, h);
                sha256_update(&c, plen, pl);
                sha256_digest(&c, sizeof(d), d);
                return get_le64(d);
        }
        unsigned char tmp[VERIFY_HEADER_SIZE];
        memcpy(tmp, h, H_CHECKSUM);
        put_le64(tmp + H_CHECKSUM, XXH3_64bits(pl, plen));
        return XXH3_64bits(tmp, sizeof(tmp));
}

static uint64_t unit_checksum(unsigned code, const unsigned char *p, size_t len)
{
        return parts_checksum(code, p, p + VERIFY_HEADER_SIZE, len - VERIFY_HEADER_SIZE);
}

/* The first H_CHECKSUM bytes of the header of the unit (code, len, offset, generation, seed). */
static void header_build(unsigned char *h, unsigned code, uint32_t len, uint64_t offset,
                         uint64_t generation, uint64_t seed)
{
        put_le32(h + H_MAGIC, VERIFY_MAGIC);
        h[H_VERSION] = VERIFY_FORMAT_VERSION;
        h[H_KIND] = (unsigned char)code;
        put_le16(h + H_HDRSIZE, VERIFY_HEADER_SIZE);
        put_le32(h + H_LEN, len);
        put_le32(h + H_RESERVED, 0);
        put_le64(h + H_OFFSET, offset);
        put_le64(h + H_GENERATION, generation);
        put_le64(h + H_SEED, seed);
}

int verify_fill(void *buf, size_t len, uint64_t offset, uint64_t generation, uint64_t seed,
                verify_kind_t kind)
{
        unsigned code = kind_code(kind);
        unsigned char *p = buf;

        if (!buf || !code || len < VERIFY_MIN_LEN || len > VERIFY_MAX_LEN)
                return -EINVAL;
        header_build(p, code, (uint32_t)len, offset, generation, seed);
        verify_payload_fill(p + VERIFY_HEADER_SIZE, len - VERIFY_HEADER_SIZE, seed, offset,
                            generation);
        put_le64(p + H_CHECKSUM, unit_checksum(code, p, len));
        return 0;
}

int verify_fill_payload(void *buf, size_t len, uint64_t offset, uint64_t generation,
                        uint64_t seed, verify_kind_t kind, const pattern_t *payload)
{
        unsigned code = kind_code(kind);
        unsigned char *p = buf;

        if (!buf || !code || !payload || len < VERIFY_MIN_LEN || len > VERIFY_MAX_LEN)
                return -EINVAL;
        header_build(p, code, (uint32_t)len, offset, generation, seed);
        pattern_fill(payload, p + VERIFY_HEADER_SIZE, len - VERIFY_HEADER_SIZE, offset);
        put_le64(p + H_CHECKSUM, unit_checksum(code, p, len));
        return 0;
}

const char *verify_status_to_string(verify_status_t s)
{
        static const char *const names[_VERIFY_STATUS_MAX] = {
            [VERIFY_OK] = "ok",
            [VERIFY_CORRUPT] = "corrupt",
            [VERIFY_MISPLACED] = "misplaced",
            [VERIFY_STALE] = "stale",
            [VERIFY_NEWER] = "newer",
            [VERIFY_FOREIGN] = "foreign",
            [VERIFY_NEVER_WRITTEN] = "never-written",
        };
        return (unsigned)s < _VERIFY_STATUS_MAX ? names[s] : NULL;
}

/* Differences between what was read and what was meant to be there. */
typedef struct diff {
        uint64_t first, last, bytes, bits;
        bool all_zero;
} diff_t;

static void diff_init(diff_t *d)
{
        *d = (diff_t){.first = UINT64_MAX, .all_zero = true};
}

/* Accounts one 8-byte word at block position pos (n <= 8 valid bytes). */
static inline void diff_word(diff_t *d, uint64_t pos, uint64_t got, uint64_t want, unsigned n)
{
        uint64_t x = got ^ want;
        if (n < 8)
                x &= (1ull << (8 * n)) - 1;
        if (!x)
                return;
        /* One bit per differing byte, in that byte's lowest bit. */
        uint64_t m = x | (x >> 4);
        m |= m >> 2;
        m |= m >> 1;
        m &= 0x0101010101010101ull;
        if (d->first == UINT64_MAX)
                d->first = pos + (uint64_t)(__builtin_ctzll(m) / 8);
        d->last = pos + (uint64_t)((63 - __builtin_clzll(m)) / 8);
        d->bytes += (uint64_t)__builtin_popcountll(m);
        d->bits += (uint64_t)__builtin_popcountll(x);
        if (got & (m * 0xff))
                d->all_zero = false;
}

static void diff_bytes(diff_t *d, uint64_t pos, const unsigned char *got, const unsigned char *want,
                       size_t n)
{
        for (size_t i = 0; i < n; i += 8) {
                unsigned k = n - i < 8 ? (unsigned)(n - i) : 8;
                unsigned char g[8] = {0}, w[8] = {0};
                memcpy(g, got + i, k);
                memcpy(w, want + i, k);
                diff_word(d, pos + i, get_le64(g), get_le64(w), k);
        }
}

/* Compares the payload of p (len bytes) against the data generated for (seed, offset, gen). */
static void diff_payload(diff_t *d, const unsigned char *p, size_t len, uint64_t seed,
                         uint64_t offset, uint64_t generation)
{
        payload_gen_t g;
        uint64_t w[GEN_LANES];
        size_t pos = VERIFY_HEADER_SIZE;

        gen_init(&g, seed, offset, generation);
        while (pos < len) {
                gen_step(&g, w);
                for (unsigned l = 0; l < GEN_LANES && pos < len; l++, pos += 8) {
                        unsigned k = len - pos < 8 ? (unsigned)(len - pos) : 8;
                        unsigned char got[8] = {0};
                        memcpy(got, p + pos, k);
                        diff_word(d, pos, get_le64(got), w[l], k);
                }
        }
}

/* Locates damage in a block whose checksum failed: tries what the header says was written and
 * what the reader expected, keeps the closest, and fills res->bad_*. */
static void locate_damage(verify_result_t *res, const unsigned char *p, size_t len, unsigned code)
{
        struct cand {
                uint64_t seed, offset, generation;
        } cand[4];
        unsigned n = 0;
        diff_t best;

        if (res->has_header)
                cand[n++] =
                    (struct cand){res->found_seed, res->found_offset, res->found_generation};
        cand[n++] = (struct cand){res->seed, res->offset, res->found_generation};
        cand[n++] = (struct cand){res->seed, res->offset, res->gen_min};
        if (res->gen_max != res->gen_min && res->gen_max != VERIFY_GEN_ANY)
                cand[n++] = (struct cand){res->seed, res->offset, res->gen_max};

        diff_init(&best);
        best.bytes = UINT64_MAX;
        for (unsigned i = 0; i < n; i++) {
                unsigned char h[H_CHECKSUM];
                diff_t d;
                bool dup = false;

                for (unsigned j = 0; j < i; j++)
                        dup |= !memcmp(&cand[i], &cand[j], sizeof(cand[0]));
                if (dup)
                        continue;
                diff_init(&d);
                header_build(h, code, (uint32_t)len, cand[i].offset, cand[i].generation,
                             cand[i].seed);
                diff_bytes(&d, 0, p, h, H_CHECKSUM);
                diff_payload(&d, p, len, cand[i].seed, cand[i].offset, cand[i].generation);
                if (d.bytes < best.bytes)
                        best = d;
                if (!d.bytes)
                        break;
        }
        if (!best.bytes && res->found_checksum != res->computed_checksum) {
                /* Header fields and payload are as written: the checksum field took the hit. */
                unsigned char got[8], want[8];
                put_le64(got, res->found_checksum);
                put_le64(want, res->computed_checksum);
                diff_bytes(&best, H_CHECKSUM, got, want, 8);
        }
        if (!best.bytes) { /* nothing found to blame (cannot happen with a failed checksum) */
                diff_init(&best);
                best.all_zero = false;
        }
        res->bad_first = best.first;
        res->bad_last = best.first == UINT64_MAX ? UINT64_MAX : best.last;
        res->bad_bytes = best.bytes;
        res->bad_bits = best.bits;
        res->bad_all_zero = best.bytes && best.all_zero;
}

/* Distance, in bits, of the fixed header fields from a well-formed header; its kind code. */
static unsigned header_distance(const unsigned char *p, unsigned *code)
{
        unsigned d = (unsigned)__builtin_popcount(get_le32(p + H_MAGIC) ^ VERIFY_MAGIC);
        d += (unsigned)__builtin_popcount(p[H_VERSION] ^ VERIFY_FORMAT_VERSION);
        d += (unsigned)__builtin_popcount(get_le16(p + H_HDRSIZE) ^ VERIFY_HEADER_SIZE);
        unsigned best = 9;
        *code = CODE_CRC32C;
        for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
                unsigned di = (unsigned)__builtin_popcount(p[H_KIND] ^ codes[i]);
                if (di < best) {
                        best = di;
                        *code = codes[i];
                }
        }
        return d + best;
}

static int finish(verify_result_t *res, verify_status_t s)
{
        res->status = s;
        return (int)s;
}

static void expected_gen_text(const verify_result_t *res, char *buf, size_t len)
{
        if (res->gen_min == res->gen_max)
                snprintf(buf, len, "%" PRIu64, res->gen_min);
        else if (res->gen_max == VERIFY_GEN_ANY)
                snprintf(buf, len, "%" PRIu64 " or later", res->gen_min);
        else
                snprintf(buf, len, "%" PRIu64 "..%" PRIu64, res->gen_min, res->gen_max);
}

static void describe_never_written(verify_result_t *res, const unsigned char *p, size_t len)
{
        size_t i = 1;
        while (i < len && p[i] == p[0])
                i++;
        if (i == len && p[0] == 0)
                snprintf(res->description, sizeof(res->description),
                         "verify: block at offset %" PRIu64 " was never written: all zeroes",
                         res->offset);
        else if (i == len)
                snprintf(res->description, sizeof(res->description),
                         "verify: block at offset %" PRIu64
                         " was never written: every byte is 0x%02x",
                         res->offset, p[0]);
        else
                snprintf(res->description, sizeof(res->description),
                         "verify: block at offset %" PRIu64
                         " was never written: no verify header (starts %02x %02x %02x %02x "
                         "%02x %02x %02x %02x)",
                         res->offset, p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7]);
}

static int corrupt(verify_result_t *res, const unsigned char *p, size_t len, unsigned code,
                   const char *why)
{
        char where[160];

        locate_damage(res, p, len, code);
        if (res->bad_first == UINT64_MAX)
                snprintf(where, sizeof(where), "the damage could not be located");
        else if (res->bad_first >= H_CHECKSUM && res->bad_last < VERIFY_HEADER_SIZE)
                snprintf(where, sizeof(where),
                         "%" PRIu64 " bit(s) of the checksum field itself differ", res->bad_bits);
        else if (res->bad_first == res->bad_last)
                snprintf(where, sizeof(where),
                         "%" PRIu64 " bit(s) differ from the data written, at byte %" PRIu64
                         " of %zu%s",
                         res->bad_bits, res->bad_first, len,
                         res->bad_all_zero ? ", read back as zero" : "");
        else
                snprintf(where, sizeof(where),
                         "%" PRIu64 " bit(s) in %" PRIu64
                         " byte(s) differ from the data written, bytes %" PRIu64 "..%" PRIu64
                         " of %zu%s",
                         res->bad_bits, res->bad_bytes, res->bad_first, res->bad_last, len,
                         res->bad_all_zero ? ", read back as zeroes (a torn or short write?)" : "");
        snprintf(res->description, sizeof(res->description),
                 "verify: block at offset %" PRIu64 " is corrupt: %s; %s", res->offset, why, where);
        return finish(res, VERIFY_CORRUPT);
}

/* Whether the unit p checks out once its kind byte says code: a bit flipped there. */
static bool kind_flipped(unsigned code, const unsigned char *p, size_t len, uint64_t found)
{
        unsigned char h[VERIFY_HEADER_SIZE];

        memcpy(h, p, sizeof(h));
        h[H_KIND] = (unsigned char)code;
        return parts_checksum(code, h, p + VERIFY_HEADER_SIZE, len - VERIFY_HEADER_SIZE) == found;
}

int verify_check(const void *buf, size_t len, const verify_expect_t *exp, verify_result_t *res)
{
        const unsigned char *p = buf;
        unsigned code;
        char why[160], gens[64];

        if (!buf || !exp || !res || len < VERIFY_MIN_LEN || len > VERIFY_MAX_LEN ||
            exp->gen_min > exp->gen_max)
                return -EINVAL;

        memset(res, 0, offsetof(verify_result_t, description));
        res->description[0] = '\0';
        res->offset = exp->offset;
        res->gen_min = exp->gen_min;
        res->gen_max = exp->gen_max;
        res->seed = exp->seed;
        res->len = (uint32_t)len;
        res->bad_first = res->bad_last = UINT64_MAX;

        /* Up to three bits off in the 56 fixed bits is a damaged header; random data gets
         * that close once in 10^12 blocks. Further off, this is not a verify block. */
        unsigned dist = header_distance(p, &code);
        if (dist > 3) {
                describe_never_written(res, p, len);
                return finish(res, VERIFY_NEVER_WRITTEN);
        }
        res->has_header = true;
        res->found_kind = code_kind(code);
        res->found_len = get_le32(p + H_LEN);
        res->found_offset = get_le64(p + H_OFFSET);
        res->found_generation = get_le64(p + H_GENERATION);
        res->found_seed = get_le64(p + H_SEED);
        res->found_checksum = get_le64(p + H_CHECKSUM);

        if (dist > 0) {
                snprintf(why, sizeof(why),
                         "damaged header (magic %08" PRIx32 ", version %u, kind %u, size %u)",
                         get_le32(p + H_MAGIC), p[H_VERSION], p[H_KIND], get_le16(p + H_HDRSIZE));
                res->computed_checksum = unit_checksum(code, p, len);
                return corrupt(res, p, len, code, why);
        }
        if (res->found_len < VERIFY_HEADER_SIZE || res->found_len > len) {
                snprintf(why, sizeof(why),
                         "header length %" PRIu32 " does not fit the %zu-byte block",
                         res->found_len, len);
                res->computed_checksum = unit_checksum(code, p, len);
                return corrupt(res, p, len, code, why);
        }
        res->computed_checksum = unit_checksum(code, p, res->found_len);
        if (res->computed_checksum != res->found_checksum) {
                /* A flipped bit in the kind byte can name another kind: the one whose
                 * checksum holds is what was written, and the kind byte the damage. */
                for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
                        if (codes[i] != code && kind_flipped(codes[i], p, res->found_len,
                                                             res->found_checksum)) {
                                snprintf(why, sizeof(why),
                                         "damaged header (kind %u, written as %s)", p[H_KIND],
                                         code_name(codes[i]));
                                res->found_kind = code_kind(codes[i]);
                                res->computed_checksum = res->found_checksum;
                                return corrupt(res, p, len, codes[i], why);
                        }
                if (code == CODE_CRC32C)
                        snprintf(why, sizeof(why),
                                 "checksum mismatch (crc32c %08" PRIx64 ", computed %08" PRIx64 ")",
                                 res->found_checksum, res->computed_checksum);
                else
                        snprintf(why, sizeof(why),
                                 "checksum mismatch (%s %016" PRIx64 ", computed %016" PRIx64 ")",
                                 code_name(code), res->found_checksum, res->computed_checksum);
                return corrupt(res, p, len, code, why);
        }

        if (res->found_seed != exp->seed) {
                snprintf(res->description, sizeof(res->description),
                         "verify: block at offset %" PRIu64
                         " is foreign: written with seed 0x%016" PRIx64 " for offset %" PRIu64
                         " (generation %" PRIu64 "), expected seed 0x%016" PRIx64,
                         exp->offset, res->found_seed, res->found_offset, res->found_generation,
                         exp->seed);
                return finish(res, VERIFY_FOREIGN);
        }
        if (res->found_offset != exp->offset) {
                snprintf(res->description, sizeof(res->description),
                         "verify: block at offset %" PRIu64
                         " is misplaced: it holds the block written for offset %" PRIu64
                         " (generation %" PRIu64 ")",
                         exp->offset, res->found_offset, res->found_generation);
                return finish(res, VERIFY_MISPLACED);
        }
        if (res->found_len != len) {
                snprintf(res->description, sizeof(res->description),
                         "verify: block at offset %" PRIu64 " is misplaced: it holds a %" PRIu32
                         "-byte block where a %zu-byte block was expected (another block "
                         "size?)",
                         exp->offset, res->found_len, len);
                return finish(res, VERIFY_MISPLACED);
        }
        if (res->found_generation < exp->gen_min) {
                expected_gen_text(res, gens, sizeof(gens));
                snprintf(res->description, sizeof(res->description),
                         "verify: block at offset %" PRIu64 " is stale: generation %" PRIu64
                         ", expected %s (a lost write)",
                         exp->offset, res->found_generation, gens);
                return finish(res, VERIFY_STALE);
        }
        if (res->found_generation > exp->gen_max) {
                expected_gen_text(res, gens, sizeof(gens));
                snprintf(res->description, sizeof(res->description),
                         "verify: block at offset %" PRIu64
                         " is newer than expected: generation %" PRIu64
                         ", expected %s (a write reported as failed landed, or the writer lost "
                         "count)",
                         exp->offset, res->found_generation, gens);
                return finish(res, VERIFY_NEWER);
        }
        return finish(res, VERIFY_OK);
}
