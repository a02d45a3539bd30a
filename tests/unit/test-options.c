/* Unit tests for common/options.c: fio's size/time/bool syntax, every option, errors, job checks.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"

#define NS_US 1000ULL
#define NS_MS 1000000ULL
#define NS_S 1000000000ULL
#define KIB 1024ULL
#define MIB (1024ULL * KIB)
#define GIB (1024ULL * MIB)
#define TIB (1024ULL * GIB)
#define PIB (1024ULL * TIB)
#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static bool str_eq_null(const char *a, const char *b)
{
        return a == b || (a && b && strcmp(a, b) == 0);
}

static bool spec_equal(const job_spec_t *a, const job_spec_t *b)
{
        return str_eq_null(a->name, b->name) && a->rw == b->rw && a->bs == b->bs &&
               a->size == b->size && a->numjobs == b->numjobs && a->runtime_ns == b->runtime_ns &&
               a->time_based == b->time_based && str_eq_null(a->directory, b->directory) &&
               str_eq_null(a->filename, b->filename) && str_eq_null(a->ioengine, b->ioengine);
}

static void spec_copy(job_spec_t *dst, const job_spec_t *src)
{
        *dst = *src;
        dst->name = src->name ? strdup(src->name) : NULL;
        dst->directory = src->directory ? strdup(src->directory) : NULL;
        dst->filename = src->filename ? strdup(src->filename) : NULL;
        dst->ioengine = src->ioengine ? strdup(src->ioengine) : NULL;
}

static void assert_one_line(const char *err)
{
        assert_true(err[0] != '\0');
        assert_null(strchr(err, '\n'));
        assert_null(strchr(err, '\r'));
}

static void set_ok(job_spec_t *j, const char *key, const char *value)
{
        char err[256] = "";
        int r = job_option_set(j, key, value, err, sizeof(err));

        if (r != 0)
                fail_msg("%s=%s: %d %s", key, value ? value : "(null)", r, err);
}

/* Applies key=value to a fresh job and expects rc, a one-line message naming the option that
 * contains want (when given), and the job unchanged. */
static void set_fails(const char *key, const char *value, int rc, const char *want)
{
        job_spec_t j, before;
        char err[256];
        const char *bare = strncmp(key, "--", 2) == 0 ? key + 2 : key;
        int r;

        assert_int_equal(job_spec_init(&j, "t"), 0);
        set_ok(&j, "directory", "/d");
        spec_copy(&before, &j);
        memset(err, 'x', sizeof(err));
        r = job_option_set(&j, key, value, err, sizeof(err));
        if (r != rc)
                fail_msg("%s=%s: got %d (%s), want %d", key, value ? value : "(null)", r,
                         r < 0 ? err : "", rc);
        assert_one_line(err);
        if (!strstr(err, bare))
                fail_msg("'%s' does not name '%s'", err, bare);
        if (want && !strstr(err, want))
                fail_msg("'%s' does not contain '%s'", err, want);
        assert_true(spec_equal(&j, &before));
        job_spec_done(&before);
        job_spec_done(&j);
}

static void set_fails_with(const char *key, const char *value, int rc, const char *msg)
{
        job_spec_t j;
        char err[256];

        assert_int_equal(job_spec_init(&j, "t"), 0);
        assert_int_equal(job_option_set(&j, key, value, err, sizeof(err)), rc);
        assert_string_equal(err, msg);
        job_spec_done(&j);
}

/* --- parse_size ----------------------------------------------------------------------- */

static const struct {
        const char *s;
        uint64_t v;
} good_sizes[] = {
    {"0", 0},
    {"1", 1},
    {"4096", 4096},
    {"18446744073709551615", UINT64_MAX},
    {"4096b", 4096},
    {"4096B", 4096},
    {"4k", 4 * KIB},
    {"4K", 4 * KIB},
    {"4kb", 4 * KIB},
    {"4kB", 4 * KIB},
    {"4Kb", 4 * KIB},
    {"4KB", 4 * KIB},
    {"1m", MIB},
    {"1M", MIB},
    {"1mb", MIB},
    {"1MB", MIB},
    {"1024k", MIB},
    {"10g", 10 * GIB},
    {"10G", 10 * GIB},
    {"10gb", 10 * GIB},
    {"10GB", 10 * GIB},
    {"1t", TIB},
    {"1T", TIB},
    {"1tb", TIB},
    {"1TB", TIB},
    {"1p", PIB},
    {"1P", PIB},
    {"1pb", PIB},
    {"1PB", PIB},
    {"16383p", 16383 * PIB},
    /* fio's kb_base=1024 compatibility: the IEC-looking suffixes are powers of 1000 */
    {"4kib", 4000},
    {"4KiB", 4000},
    {"4KIB", 4000},
    {"1mib", 1000000},
    {"1MiB", 1000000},
    {"1gib", 1000000000},
    {"1GiB", 1000000000},
    {"1tib", 1000000000000ULL},
    {"1TiB", 1000000000000ULL},
    {"1pib", 1000000000000000ULL},
    {"1PiB", 1000000000000000ULL},
    /* decimal fractions, when they come to whole bytes */
    {"1.5g", 3 * GIB / 2},
    {"0.5k", 512},
    {"2.25m", 2 * MIB + MIB / 4},
    {"1.5kib", 1500},
    {"0.001kib", 1},
    {"1.50000000000000000000000000k", 1536},
    {"2.0", 2},
    /* fio's 0x prefix */
    {"0x1000", 4096},
    {"0X10", 16},
    {"0xffffffffffffffff", UINT64_MAX},
    {"18446744073709551.615kib", UINT64_MAX}, /* the fraction brings it to the top */
};

static void test_parse_size_good(void **state)
{
        (void)state;
        for (size_t i = 0; i < ARRAY_LEN(good_sizes); i++) {
                uint64_t v = 12345;
                int r = parse_size(good_sizes[i].s, &v);
                if (r != 0 || v != good_sizes[i].v)
                        fail_msg("parse_size(\"%s\") = %d, %llu; want %llu", good_sizes[i].s, r,
                                 (unsigned long long)v, (unsigned long long)good_sizes[i].v);
        }
}

static const struct {
        const char *s;
        int r;
} bad_sizes[] = {
    {"", -EINVAL},
    {"-1", -EINVAL},
    {"-4k", -EINVAL},
    {"k", -EINVAL},
    {"b", -EINVAL},
    {"4x", -EINVAL},
    {"4kx", -EINVAL},
    {"4kbb", -EINVAL},
    {"4bk", -EINVAL},
    {"4e", -EINVAL},
    {"1e3", -EINVAL},
    {"4 k", -EINVAL},
    {" 4k", -EINVAL},
    {"4k ", -EINVAL},
    {"4k\n", -EINVAL},
    {"+4k", -EINVAL},
    {"1.", -EINVAL},
    {".5k", -EINVAL},
    {"1..5k", -EINVAL},
    {"1.1k", -EINVAL},
    {"1.5", -EINVAL},
    {"0.1", -EINVAL},
    {"1.00000000000000000001k", -EINVAL},
    {"4ki", -EINVAL},
    {"4Mi", -EINVAL},
    {"50%", -EINVAL},
    {"0x", -EINVAL},
    {"0xg", -EINVAL},
    {"0x10k", -EINVAL},
    {"18446744073709551616", -ERANGE},
    {"99999999999999999999999", -ERANGE},
    {"16384p", -ERANGE},
    {"17179869184g", -ERANGE},
    {"18446744073709551615k", -ERANGE},
    {"0x10000000000000000", -ERANGE},
    {"18446744073709551.616kib", -ERANGE}, /* ... and one past it */
};

static void test_parse_size_bad(void **state)
{
        (void)state;
        for (size_t i = 0; i < ARRAY_LEN(bad_sizes); i++) {
                uint64_t v = 12345;
                int r = parse_size(bad_sizes[i].s, &v);
                if (r != bad_sizes[i].r || v != 12345)
                        fail_msg("parse_size(\"%s\") = %d, %llu; want %d and untouched",
                                 bad_sizes[i].s, r, (unsigned long long)v, bad_sizes[i].r);
        }
        uint64_t v = 7;
        assert_int_equal(parse_size(NULL, &v), -EINVAL);
        assert_int_equal(v, 7);
}

/* --- parse_duration -------------------------------------------------------------------- */

static const struct {
        const char *s;
        uint64_t unit, v;
} good_times[] = {
    {"30", NS_S, 30 * NS_S},
    {"0", NS_S, 0},
    {"30", NS_MS, 30 * NS_MS},
    {"30", NS_US, 30 * NS_US},
    {"30", 1, 30},
    {"250us", NS_S, 250 * NS_US},
    {"250US", NS_S, 250 * NS_US},
    {"250usec", NS_S, 250 * NS_US},
    {"250USEC", NS_S, 250 * NS_US},
    {"10ms", NS_S, 10 * NS_MS},
    {"10MS", NS_S, 10 * NS_MS},
    {"10msec", NS_S, 10 * NS_MS},
    {"10mSec", NS_S, 10 * NS_MS},
    {"30s", NS_MS, 30 * NS_S},
    {"30S", NS_MS, 30 * NS_S},
    {"30sec", NS_MS, 30 * NS_S},
    {"30Sec", NS_MS, 30 * NS_S},
    {"1m", NS_S, 60 * NS_S},
    {"1M", NS_S, 60 * NS_S},
    {"1min", NS_S, 60 * NS_S},
    {"1MIN", NS_S, 60 * NS_S},
    {"2h", NS_S, 7200 * NS_S},
    {"2H", NS_S, 7200 * NS_S},
    {"2hour", NS_S, 7200 * NS_S},
    {"2Hour", NS_S, 7200 * NS_S},
    {"1d", NS_S, 86400 * NS_S},
    {"1D", NS_S, 86400 * NS_S},
    {"1day", NS_S, 86400 * NS_S},
    {"1DAY", NS_S, 86400 * NS_S},
    {"1.5s", NS_S, 1500 * NS_MS},
    {"1.5", NS_S, 1500 * NS_MS},
    {"1.5m", NS_S, 90 * NS_S},
    {"0.5us", NS_S, 500},
    {"213503d", NS_S, 213503ULL * 86400 * NS_S},
    {"18446744073709551615", 1, UINT64_MAX},
};

static void test_parse_duration_good(void **state)
{
        (void)state;
        for (size_t i = 0; i < ARRAY_LEN(good_times); i++) {
                uint64_t v = 12345;
                int r = parse_duration(good_times[i].s, good_times[i].unit, &v);
                if (r != 0 || v != good_times[i].v)
                        fail_msg("parse_duration(\"%s\") = %d, %llu; want %llu", good_times[i].s, r,
                                 (unsigned long long)v, (unsigned long long)good_times[i].v);
        }
}

static const struct {
        const char *s;
        int r;
} bad_times[] = {
    {"", -EINVAL},
    {"-1", -EINVAL},
    {"-1s", -EINVAL},
    {"s", -EINVAL},
    {"ms", -EINVAL},
    {"1x", -EINVAL},
    {"1ns", -EINVAL},
    {"1sec2", -EINVAL},
    {"1ss", -EINVAL},
    {"1 s", -EINVAL},
    {" 1s", -EINVAL},
    {"1s ", -EINVAL},
    {"1hours", -EINVAL},
    {"1h30m", -EINVAL},
    {"1.s", -EINVAL},
    {"0.0000000001s", -EINVAL},
    {"213504d", -ERANGE},
    {"18446744074s", -ERANGE},
    {"18446744073709551616", -ERANGE},
};

static void test_parse_duration_bad(void **state)
{
        (void)state;
        for (size_t i = 0; i < ARRAY_LEN(bad_times); i++) {
                uint64_t v = 12345;
                int r = parse_duration(bad_times[i].s, NS_S, &v);
                if (r != bad_times[i].r || v != 12345)
                        fail_msg("parse_duration(\"%s\") = %d, %llu; want %d and untouched",
                                 bad_times[i].s, r, (unsigned long long)v, bad_times[i].r);
        }
        uint64_t v = 7;
        assert_int_equal(parse_duration("30", 0, &v), -EINVAL);
        assert_int_equal(parse_duration(NULL, NS_S, &v), -EINVAL);
        assert_int_equal(v, 7);
}

/* --- parse_bool ----------------------------------------------------------------------- */

static void test_parse_bool(void **state)
{
        static const char *const yes[] = {"",    "1",   "true", "TRUE", "True",
                                          "yes", "YES", "on",   "On"};
        static const char *const no[] = {"0", "false", "FALSE", "no", "No", "off", "OFF"};
        static const char *const bad[] = {"2", "-1", "y", "n", "maybe", " 1", "1 ", "truee", "01"};
        bool b;

        (void)state;
        for (size_t i = 0; i < ARRAY_LEN(yes); i++) {
                b = false;
                assert_int_equal(parse_bool(yes[i], &b), 0);
                assert_true(b);
        }
        for (size_t i = 0; i < ARRAY_LEN(no); i++) {
                b = true;
                assert_int_equal(parse_bool(no[i], &b), 0);
                assert_false(b);
        }
        for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
                b = true;
                assert_int_equal(parse_bool(bad[i], &b), -EINVAL);
                assert_true(b);
        }
        assert_int_equal(parse_bool(NULL, &b), -EINVAL);
}

/* --- rw modes ------------------------------------------------------------------------- */

static void test_rw_mode(void **state)
{
        (void)state;
        assert_string_equal(rw_mode_to_string(RW_READ), "read");
        assert_string_equal(rw_mode_to_string(RW_WRITE), "write");
        assert_string_equal(rw_mode_to_string(RW_RANDREAD), "randread");
        assert_string_equal(rw_mode_to_string(RW_RANDWRITE), "randwrite");
        assert_null(rw_mode_to_string((rw_mode_t)4));
        assert_null(rw_mode_to_string((rw_mode_t)-1));
        assert_true(rw_mode_is_read(RW_READ));
        assert_true(rw_mode_is_read(RW_RANDREAD));
        assert_false(rw_mode_is_read(RW_WRITE));
        assert_false(rw_mode_is_read(RW_RANDWRITE));
        assert_true(rw_mode_is_random(RW_RANDREAD));
        assert_true(rw_mode_is_random(RW_RANDWRITE));
        assert_false(rw_mode_is_random(RW_READ));
        assert_false(rw_mode_is_random(RW_WRITE));
}

/* --- init, defaults, done ------------------------------------------------------------- */

static void test_defaults(void **state)
{
        job_spec_t j;

        (void)state;
        assert_int_equal(job_spec_init(&j, "job1"), 0);
        assert_string_equal(j.name, "job1");
        assert_int_equal(j.rw, RW_READ);
        assert_int_equal(j.bs, 4096);
        assert_int_equal(j.size, 0);
        assert_int_equal(j.numjobs, 1);
        assert_int_equal(j.runtime_ns, 0);
        assert_false(j.time_based);
        assert_null(j.directory);
        assert_null(j.filename);
        assert_string_equal(j.ioengine, "psync");
        job_spec_done(&j);
        assert_null(j.name);
        assert_null(j.ioengine);
        job_spec_done(&j); /* twice is harmless */
        job_spec_done(NULL);

        assert_int_equal(job_spec_init(&j, NULL), 0);
        assert_null(j.name);
        assert_string_equal(j.ioengine, "psync");
        job_spec_done(&j);
}

/* Setting each option to the default shown in the help leaves a fresh job as it was. */
static void test_defaults_match_table(void **state)
{
        static const char *const kv[][2] = {
            {"rw", "read"},   {"bs", "4k"},        {"numjobs", "1"},
            {"runtime", "0"}, {"time_based", "0"}, {"ioengine", "psync"},
        };
        job_spec_t j, fresh;

        (void)state;
        assert_int_equal(job_spec_init(&fresh, "t"), 0);
        assert_int_equal(job_spec_init(&j, "t"), 0);
        for (size_t i = 0; i < ARRAY_LEN(kv); i++)
                set_ok(&j, kv[i][0], kv[i][1]);
        assert_true(spec_equal(&j, &fresh));
        job_spec_done(&j);
        job_spec_done(&fresh);
}

/* --- every option ------------------------------------------------------------------- */

static void test_set_name(void **state)
{
        char name64[65];
        job_spec_t j;

        (void)state;
        assert_int_equal(job_spec_init(&j, NULL), 0);
        set_ok(&j, "name", "seq-read_1.a");
        assert_string_equal(j.name, "seq-read_1.a");
        set_ok(&j, "--name", "Other"); /* replaces, frees the old one */
        assert_string_equal(j.name, "Other");
        memset(name64, 'n', 64);
        name64[64] = '\0';
        set_ok(&j, "name", name64);
        assert_string_equal(j.name, name64);
        job_spec_done(&j);
}

static void test_set_rw(void **state)
{
        static const struct {
                const char *s;
                rw_mode_t m;
        } modes[] = {
            {"read", RW_READ},
            {"write", RW_WRITE},
            {"randread", RW_RANDREAD},
            {"randwrite", RW_RANDWRITE},
        };
        job_spec_t j;

        (void)state;
        assert_int_equal(job_spec_init(&j, "t"), 0);
        for (size_t i = 0; i < ARRAY_LEN(modes); i++) {
                set_ok(&j, "rw", modes[i].s);
                assert_int_equal(j.rw, modes[i].m);
                set_ok(&j, "rw", "read");
                set_ok(&j, "readwrite", modes[i].s); /* fio's alias */
                assert_int_equal(j.rw, modes[i].m);
                set_ok(&j, "rw", "read");
                set_ok(&j, "--rw", modes[i].s);
                assert_int_equal(j.rw, modes[i].m);
        }
        job_spec_done(&j);
}

static void test_set_bs_and_size(void **state)
{
        job_spec_t j;

        (void)state;
        assert_int_equal(job_spec_init(&j, "t"), 0);
        set_ok(&j, "bs", "64k");
        assert_int_equal(j.bs, 64 * KIB);
        set_ok(&j, "blocksize", "1M");
        assert_int_equal(j.bs, MIB);
        set_ok(&j, "--bs", "512");
        assert_int_equal(j.bs, 512);
        set_ok(&j, "bs", "1");
        assert_int_equal(j.bs, 1);
        set_ok(&j, "bs", "2g");
        assert_int_equal(j.bs, 2 * GIB);
        set_ok(&j, "bs", "4kib");
        assert_int_equal(j.bs, 4000);

        for (size_t i = 0; i < ARRAY_LEN(good_sizes); i++) {
                if (good_sizes[i].v == 0 || good_sizes[i].v > INT64_MAX)
                        continue;
                set_ok(&j, "size", good_sizes[i].s);
                assert_int_equal(j.size, good_sizes[i].v);
        }
        set_ok(&j, "size", "9223372036854775807");
        assert_int_equal(j.size, INT64_MAX);
        set_ok(&j, "size", "0"); /* fio's "not given" */
        assert_int_equal(j.size, 0);
        job_spec_done(&j);
}

static void test_set_numjobs(void **state)
{
        job_spec_t j;

        (void)state;
        assert_int_equal(job_spec_init(&j, "t"), 0);
        set_ok(&j, "numjobs", "8");
        assert_int_equal(j.numjobs, 8);
        set_ok(&j, "numjobs", "4096");
        assert_int_equal(j.numjobs, 4096);
        set_ok(&j, "numjobs", "4k"); /* fio reads every int with size suffixes */
        assert_int_equal(j.numjobs, 4096);
        set_ok(&j, "numjobs", "0x10");
        assert_int_equal(j.numjobs, 16);
        set_ok(&j, "--numjobs", "1");
        assert_int_equal(j.numjobs, 1);
        job_spec_done(&j);
}

static void test_set_runtime(void **state)
{
        job_spec_t j;

        (void)state;
        assert_int_equal(job_spec_init(&j, "t"), 0);
        set_ok(&j, "runtime", "30");
        assert_int_equal(j.runtime_ns, 30 * NS_S);
        for (size_t i = 0; i < ARRAY_LEN(good_times); i++) {
                if (good_times[i].unit != NS_S || good_times[i].v > 3650ULL * 86400 * NS_S)
                        continue;
                set_ok(&j, "runtime", good_times[i].s);
                assert_int_equal(j.runtime_ns, good_times[i].v);
        }
        set_ok(&j, "timeout", "2m"); /* fio's alias */
        assert_int_equal(j.runtime_ns, 120 * NS_S);
        set_ok(&j, "runtime", "3650d");
        assert_int_equal(j.runtime_ns, 3650ULL * 86400 * NS_S);
        set_ok(&j, "--runtime", "0");
        assert_int_equal(j.runtime_ns, 0);
        job_spec_done(&j);
}

static void test_set_time_based(void **state)
{
        static const char *const on[] = {"", "1", "true", "yes", "on", "TRUE", "Yes", "ON"};
        static const char *const off[] = {"0", "false", "no", "off", "FALSE", "No", "Off"};
        job_spec_t j;

        (void)state;
        assert_int_equal(job_spec_init(&j, "t"), 0);
        set_ok(&j, "time_based", NULL); /* fio's bare --time_based */
        assert_true(j.time_based);
        set_ok(&j, "time_based", "0");
        set_ok(&j, "--time_based", NULL);
        assert_true(j.time_based);
        for (size_t i = 0; i < ARRAY_LEN(on); i++) {
                set_ok(&j, "time_based", "0");
                set_ok(&j, "time_based", on[i]);
                assert_true(j.time_based);
        }
        for (size_t i = 0; i < ARRAY_LEN(off); i++) {
                set_ok(&j, "time_based", "1");
                set_ok(&j, "time_based", off[i]);
                assert_false(j.time_based);
        }
        job_spec_done(&j);
}

static void test_set_paths(void **state)
{
        job_spec_t j;

        (void)state;
        assert_int_equal(job_spec_init(&j, "t"), 0);
        set_ok(&j, "directory", "/mnt/fast");
        assert_string_equal(j.directory, "/mnt/fast");
        set_ok(&j, "directory", "relative/dir with space");
        assert_string_equal(j.directory, "relative/dir with space");
        set_ok(&j, "filename", "/dev/nvme0n1");
        assert_string_equal(j.filename, "/dev/nvme0n1");
        set_ok(&j, "filename", "data.bin");
        assert_string_equal(j.filename, "data.bin");
        set_ok(&j, "filename", "/dev/dsk/foo@3,0\\:c"); /* fio's escaped ':' */
        assert_string_equal(j.filename, "/dev/dsk/foo@3,0:c");
        set_ok(&j, "--directory", "C\\:\\x");
        assert_string_equal(j.directory, "C:\\x");
        set_ok(&j, "filename", "\\:");
        assert_string_equal(j.filename, ":");
        set_ok(&j, "filename", "caf\xc3\xa9");
        assert_string_equal(j.filename, "caf\xc3\xa9");
        job_spec_done(&j);
}

static void test_set_ioengine(void **state)
{
        job_spec_t j;

        (void)state;
        assert_int_equal(job_spec_init(&j, "t"), 0);
        set_ok(&j, "ioengine", "null");
        assert_string_equal(j.ioengine, "null");
        set_ok(&j, "--ioengine", "psync");
        assert_string_equal(j.ioengine, "psync");
        job_spec_done(&j);
}

/* --- errors ------------------------------------------------------------------------- */

static void test_unknown_option(void **state)
{
        (void)state;
        set_fails_with("foo", "1", -ENOENT, "unknown option 'foo'");
        set_fails_with("--foo", "1", -ENOENT, "unknown option 'foo'");
        set_fails_with("", "1", -ENOENT, "unknown option ''");
        set_fails_with("--", "1", -ENOENT, "unknown option ''");
        set_fails_with("-bs", "4k", -ENOENT, "unknown option '-bs' (did you mean 'bs'?)");
        set_fails_with("BS", "4k", -ENOENT, "unknown option 'BS'"); /* fio's names are exact */
        set_fails_with("blocksise", "4k", -ENOENT,
                       "unknown option 'blocksise' (did you mean 'blocksize'?)");
        set_fails_with("iodepht", "4", -ENOENT,
                       "unknown option 'iodepht' (did you mean 'iodepth'?)");
        set_fails_with("bad\nkey", "1", -ENOENT, "unknown option 'bad\\nkey'");
        set_fails("foo", NULL, -ENOENT, "unknown option");
}

static void test_unsupported_option(void **state)
{
        static const char *const fio_names[] = {
            "iodepth",
            "direct",
            "rwmixread",
            "rwmixwrite",
            "nrfiles",
            "nrfile",
            "filesize",
            "offset",
            "ramp_time",
            "startdelay",
            "fsync",
            "fdatasync",
            "end_fsync",
            "rate",
            "rate_iops",
            "randrepeat",
            "randseed",
            "norandommap",
            "readonly",
            "verify",
            "verify_fatal",
            "thread",
            "group_reporting",
            "iodepth_batch",
            "iodepth_batch_submit",
            "iodepth_batch_complete_min",
            "buffered",
            "invalidate",
            "filename_format",
            "eta-newline",
            "loops",
            "bsrange",
            "io_size",
        };
        char msg[128];

        (void)state;
        for (size_t i = 0; i < ARRAY_LEN(fio_names); i++) {
                snprintf(msg, sizeof(msg), "fio option '%s' is not supported by iofleet yet",
                         fio_names[i]);
                set_fails_with(fio_names[i], "1", -EOPNOTSUPP, msg);
                set_fails(fio_names[i], NULL, -EOPNOTSUPP, "not supported by iofleet yet");
        }
        set_fails_with("--iodepth", "32", -EOPNOTSUPP,
                       "fio option 'iodepth' is not supported by iofleet yet");
}

static void test_bad_rw(void **state)
{
        static const char *const fio_modes[] = {"rw",       "readwrite", "randrw",       "trim",
                                                "randtrim", "trimwrite", "randtrimwrite"};

        (void)state;
        set_fails_with("rw", "sideways", -EINVAL,
                       "rw: 'sideways' is not one of read, write, randread, randwrite");
        set_fails_with("readwrite", "sideways", -EINVAL,
                       "readwrite: 'sideways' is not one of read, write, randread, randwrite");
        set_fails("rw", "Read", -EINVAL, "is not one of");
        set_fails("rw", "read ", -EINVAL, "is not one of");
        set_fails("rw", "", -EINVAL, "needs a value");
        set_fails("rw", NULL, -EINVAL, "needs a value");
        for (size_t i = 0; i < ARRAY_LEN(fio_modes); i++)
                set_fails("rw", fio_modes[i], -EOPNOTSUPP, "not supported by iofleet yet");
        set_fails_with("rw", "randrw", -EOPNOTSUPP,
                       "rw: fio's 'randrw' is not supported by iofleet yet (use read, write, "
                       "randread, randwrite)");
        set_fails("rw", "randread:8", -EOPNOTSUPP, "':' suffix");
        set_fails("rw", "randrw:8", -EOPNOTSUPP, "':' suffix");
        set_fails("rw", "sideways:8", -EINVAL, "is not one of");
}

static void test_bad_ioengine(void **state)
{
        static const char *const fio_engines[] = {"libaio", "io_uring", "sync",  "posixaio",
                                                  "mmap",   "pvsync2",  "splice"};

        (void)state;
        set_fails_with("ioengine", "foo", -EINVAL, "ioengine: 'foo' is not one of psync, null");
        for (size_t i = 0; i < ARRAY_LEN(fio_engines); i++)
                set_fails("ioengine", fio_engines[i], -EOPNOTSUPP, "not supported by iofleet");
        set_fails_with("ioengine", "libaio", -EOPNOTSUPP,
                       "ioengine: fio's 'libaio' is not supported by iofleet yet (use psync, "
                       "null)");
        set_fails("ioengine", "external:/usr/lib/engine.so", -EOPNOTSUPP, "':' suffix");
        set_fails("ioengine", "PSYNC", -EINVAL, "is not one of");
        set_fails("ioengine", "", -EINVAL, "needs a value");
}

static void test_bad_sizes(void **state)
{
        (void)state;
        set_fails_with("bs", "0", -ERANGE, "bs: 0 is out of range 1..2g");
        set_fails_with("bs", "3g", -ERANGE, "bs: 3g is out of range 1..2g");
        set_fails_with("blocksize", "2147483649", -ERANGE,
                       "blocksize: 2147483649 is out of range 1..2g");
        set_fails_with("bs", NULL, -EINVAL, "bs: needs a value (e.g. bs=4k)");
        set_fails("bs", "", -EINVAL, "needs a value");
        set_fails("bs", "abc", -EINVAL, "'abc' is not a size");
        set_fails("bs", "-4k", -EINVAL, "negative");
        set_fails("bs", "4kx", -EINVAL, "unknown suffix");
        set_fails("bs", "4ki", -EINVAL, "ambiguous");
        set_fails("bs", "1.1k", -EINVAL, "whole number of bytes");
        set_fails("bs", "4k,8k", -EOPNOTSUPP, "read,write,trim");
        set_fails("bs", "99999999999999999999", -ERANGE, "out of range 1..2g");
        set_fails("size", "50%", -EOPNOTSUPP, "percentage");
        set_fails("size", "4k,8k", -EINVAL, "unknown suffix");
        set_fails_with("size", "9223372036854775808", -ERANGE,
                       "size: 9223372036854775808 is out of range 1..9223372036854775807");
        set_fails("size", "99999999999999999999", -ERANGE, "out of range");
        set_fails("size", "16384p", -ERANGE, "out of range");
        set_fails("size", "1 g", -EINVAL, "unknown suffix");
}

static void test_bad_numjobs(void **state)
{
        (void)state;
        set_fails_with("numjobs", "0", -ERANGE, "numjobs: 0 is out of range 1..4096");
        set_fails_with("numjobs", "4097", -ERANGE, "numjobs: 4097 is out of range 1..4096");
        set_fails("numjobs", "5k", -ERANGE, "out of range 1..4096");
        set_fails("numjobs", "99999999999999999999", -ERANGE, "out of range 1..4096");
        set_fails_with("numjobs", "abc", -EINVAL,
                       "numjobs: 'abc' is not a whole number (e.g. numjobs=4)");
        set_fails("numjobs", "1.5", -EINVAL, "not a whole number");
        set_fails("numjobs", "-1", -EINVAL, "not a whole number");
        set_fails("numjobs", NULL, -EINVAL, "needs a value");
}

static void test_bad_runtime(void **state)
{
        (void)state;
        set_fails_with("runtime", "3651d", -ERANGE, "runtime: 3651d is out of range 0..3650d");
        set_fails_with("timeout", "87601h", -ERANGE, "timeout: 87601h is out of range 0..3650d");
        set_fails("runtime", "99999999999999999999", -ERANGE, "out of range 0..3650d");
        set_fails("runtime", "213504d", -ERANGE, "out of range 0..3650d");
        set_fails_with("runtime", "abc", -EINVAL,
                       "runtime: 'abc' is not a time (e.g. runtime=30s)");
        set_fails("runtime", "10x", -EINVAL, "unknown unit");
        set_fails("runtime", "-1", -EINVAL, "negative");
        set_fails("runtime", "0.0000000001s", -EINVAL, "whole number of nanoseconds");
        set_fails("runtime", NULL, -EINVAL, "needs a value");
}

static void test_bad_bool(void **state)
{
        (void)state;
        set_fails_with("time_based", "maybe", -EINVAL,
                       "time_based: 'maybe' is not a boolean (1/0, true/false, yes/no, on/off)");
        set_fails("time_based", "2", -EINVAL, "not a boolean");
        set_fails("--time_based", "1\n", -EINVAL, "'1\\n'");
}

static void test_bad_strings(void **state)
{
        char long_name[66], long_path[4200];

        (void)state;
        memset(long_name, 'n', 65);
        long_name[65] = '\0';
        memset(long_path, 'p', sizeof(long_path) - 1);
        long_path[sizeof(long_path) - 1] = '\0';

        set_fails_with("name", "", -EINVAL, "name: needs a value (e.g. name=seqread)");
        set_fails_with("name", long_name, -ERANGE, "name: length 65 is out of range 1..64");
        set_fails_with("name", "a/b", -EINVAL,
                       "name: 'a/b' may only contain A-Z, a-z, 0-9, '.', '_' and '-'");
        set_fails("name", "a b", -EINVAL, "may only contain");
        set_fails("name", "caf\xc3\xa9", -EINVAL, "may only contain");
        set_fails("name", NULL, -EINVAL, "needs a value");

        set_fails("directory", "", -EINVAL, "needs a value");
        set_fails("directory", NULL, -EINVAL, "needs a value");
        set_fails_with("directory", "/tmp/a\nb", -EINVAL,
                       "directory: '/tmp/a\\nb' contains a control character");
        set_fails("directory", "/tmp/\x01", -EINVAL, "'/tmp/\\x01'");
        set_fails("directory", "/a:/b", -EOPNOTSUPP, "several paths");
        set_fails("directory", long_path, -ERANGE, "out of range 1..4095");

        set_fails("filename", "", -EINVAL, "needs a value");
        set_fails_with("filename", "-", -EOPNOTSUPP,
                       "filename: fio's '-' (stdin/stdout) is not supported by iofleet yet");
        set_fails("filename", "/dev/sda:/dev/sdb", -EOPNOTSUPP, "several paths");
        set_fails("filename", "a\tb", -EINVAL, "'a\\tb' contains a control character");
}

static void test_error_buffer(void **state)
{
        char err[64], big[300];
        job_spec_t j;

        (void)state;
        assert_int_equal(job_spec_init(&j, "t"), 0);

        /* no buffer at all */
        assert_int_equal(job_option_set(&j, "rw", "sideways", NULL, 0), -EINVAL);
        assert_int_equal(job_spec_validate(&j, NULL, 0), -EINVAL);

        /* errlen 1: an empty string */
        err[0] = 'x';
        assert_int_equal(job_option_set(&j, "rw", "sideways", err, 1), -EINVAL);
        assert_string_equal(err, "");

        /* truncated but terminated, and nothing written past errlen */
        memset(err, '#', sizeof(err));
        assert_int_equal(job_option_set(&j, "rw", "sideways", err, 10), -EINVAL);
        assert_string_equal(err, "rw: 'side");
        assert_int_equal(err[10], '#');

        /* truncation never leaves half a UTF-8 character: "name: '" then 2-byte é */
        memset(err, '#', sizeof(err));
        assert_int_equal(job_option_set(&j, "name", "\xc3\xa9", err, 9), -EINVAL);
        assert_string_equal(err, "name: '");
        assert_int_equal(job_option_set(&j, "name", "\xc3\xa9", err, 10), -EINVAL);
        assert_string_equal(err, "name: '\xc3\xa9");

        /* a long value is shortened in the message, which keeps what is allowed */
        memset(big, 'z', sizeof(big) - 1);
        big[sizeof(big) - 1] = '\0';
        char msg[256];
        assert_int_equal(job_option_set(&j, "rw", big, msg, sizeof(msg)), -EINVAL);
        assert_non_null(strstr(msg, "zzz...' is not one of read, write, randread, randwrite"));
        assert_true(strlen(msg) < 120);
        job_spec_done(&j);
}

/* --- validate ----------------------------------------------------------------------- */

static void validate_fails(job_spec_t *j, int rc, const char *msg)
{
        char err[256];
        int r = job_spec_validate(j, err, sizeof(err));

        if (r != rc)
                fail_msg("validate = %d (%s), want %d", r, r < 0 ? err : "", rc);
        assert_one_line(err);
        if (strncmp(err, msg, strlen(msg)) != 0)
                fail_msg("'%s' does not start with '%s'", err, msg);
}

static void validate_ok(const job_spec_t *j)
{
        char err[256] = "";
        int r = job_spec_validate(j, err, sizeof(err));

        if (r != 0)
                fail_msg("validate = %d: %s", r, err);
}

static void test_validate_rules(void **state)
{
        job_spec_t j;

        (void)state;
        /* a size is needed by a real engine */
        assert_int_equal(job_spec_init(&j, "t"), 0);
        validate_fails(&j, -EINVAL, "size: required (e.g. size=1g)");
        set_ok(&j, "runtime", "10s");
        set_ok(&j, "time_based", NULL);
        validate_fails(&j, -EINVAL, "size: required (e.g. size=1g)");
        set_ok(&j, "size", "1g");
        validate_ok(&j);
        job_spec_done(&j);

        /* the null engine may run on time alone */
        assert_int_equal(job_spec_init(&j, "t"), 0);
        set_ok(&j, "ioengine", "null");
        validate_fails(&j, -EINVAL, "size: required (e.g. size=1g)");
        set_ok(&j, "time_based", NULL);
        validate_fails(&j, -EINVAL, "time_based: needs runtime=... (e.g. runtime=30s)");
        set_ok(&j, "runtime", "30s");
        validate_ok(&j);
        set_ok(&j, "time_based", "0");
        validate_fails(&j, -EINVAL, "size: required (e.g. size=1g)");
        job_spec_done(&j);

        /* time_based needs a runtime even with a size */
        assert_int_equal(job_spec_init(&j, "t"), 0);
        set_ok(&j, "size", "1g");
        set_ok(&j, "time_based", "1");
        validate_fails(&j, -EINVAL, "time_based: needs runtime=... (e.g. runtime=30s)");
        set_ok(&j, "runtime", "1m");
        validate_ok(&j);
        job_spec_done(&j);

        /* bs no larger than size */
        assert_int_equal(job_spec_init(&j, "t"), 0);
        set_ok(&j, "size", "64k");
        set_ok(&j, "bs", "1m");
        validate_fails(&j, -EINVAL, "bs: 1m is larger than size=64k");
        set_ok(&j, "bs", "64k");
        validate_ok(&j);
        set_ok(&j, "bs", "1000");
        validate_ok(&j); /* fio allows any bs for buffered I/O */
        set_ok(&j, "size", "1500");
        set_ok(&j, "bs", "1501");
        validate_fails(&j, -EINVAL, "bs: 1501 is larger than size=1500");
        job_spec_done(&j);
}

/* The job struct is public (the wire fills it), so validate checks every field again. */
static void test_validate_fields(void **state)
{
        job_spec_t j;

        (void)state;
#define FRESH()                                                                                    \
        do {                                                                                       \
                assert_int_equal(job_spec_init(&j, "t"), 0);                                       \
                set_ok(&j, "size", "1g");                                                          \
                validate_ok(&j);                                                                   \
        } while (0)

        FRESH();
        j.rw = (rw_mode_t)99;
        validate_fails(&j, -EINVAL, "rw: 99 is not one of read, write, randread, randwrite");
        job_spec_done(&j);

        FRESH();
        j.numjobs = 0;
        validate_fails(&j, -ERANGE, "numjobs: 0 is out of range 1..4096");
        j.numjobs = 5000;
        validate_fails(&j, -ERANGE, "numjobs: 5000 is out of range 1..4096");
        job_spec_done(&j);

        FRESH();
        j.bs = 0;
        validate_fails(&j, -ERANGE, "bs: 0 is out of range 1..2g");
        j.bs = 4ULL << 30;
        validate_fails(&j, -ERANGE, "bs: 4g is out of range 1..2g");
        job_spec_done(&j);

        FRESH();
        j.size = UINT64_MAX;
        validate_fails(&j, -ERANGE, "size: 18446744073709551615 is out of range");
        job_spec_done(&j);

        FRESH();
        j.runtime_ns = 3651ULL * 86400 * NS_S;
        validate_fails(&j, -ERANGE, "runtime: 3651d is out of range 0..3650d");
        job_spec_done(&j);

        FRESH();
        free(j.ioengine);
        j.ioengine = NULL;
        validate_fails(&j, -EINVAL, "ioengine: required (e.g. ioengine=psync)");
        j.ioengine = strdup("libaio");
        validate_fails(&j, -EOPNOTSUPP, "ioengine: 'libaio' is not one of psync, null");
        free(j.ioengine);
        j.ioengine = strdup("bogus");
        validate_fails(&j, -EINVAL, "ioengine: 'bogus' is not one of psync, null");
        job_spec_done(&j);

        FRESH();
        free(j.name);
        j.name = strdup("a/b");
        validate_fails(&j, -EINVAL, "name: 'a/b' may only contain");
        free(j.name);
        j.name = strdup("");
        validate_fails(&j, -EINVAL, "name: must not be empty");
        free(j.name);
        j.name = NULL; /* the name may be left to the caller */
        validate_ok(&j);
        job_spec_done(&j);

        FRESH();
        j.directory = strdup("");
        validate_fails(&j, -EINVAL, "directory: must not be empty");
        free(j.directory);
        j.directory = strdup("/a:b"); /* stored paths are already unescaped */
        validate_ok(&j);
        j.filename = strdup("-");
        validate_fails(&j, -EOPNOTSUPP, "filename: fio's '-'");
        job_spec_done(&j);
#undef FRESH
}

/* --- help --------------------------------------------------------------------------- */

static void test_help(void **state)
{
        static const char *const starts[] = {
            "name ",    "rw ",         "bs ",        "size ",     "numjobs ",
            "runtime ", "time_based ", "directory ", "filename ", "ioengine ",
        };
        static const char *const mentions[] = {
            "readwrite",  "blocksize",    "timeout", "read|write|randread|randwrite",
            "psync|null", "1..2g",        "1..4096", "0..3650d",
            "4k",         "A-Za-z0-9._-",
        };
        char *buf = NULL;
        size_t len = 0, lines = 0;
        FILE *f;

        (void)state;
        f = open_memstream(&buf, &len);
        assert_non_null(f);
        job_options_help(f);
        assert_int_equal(fclose(f), 0);

        for (const char *p = buf; *p; p = strchr(p, '\n') + 1) {
                const char *nl = strchr(p, '\n');
                assert_non_null(nl);
                assert_true(nl - p < 200);
                lines++;
        }
        assert_int_equal(lines, 1 + ARRAY_LEN(starts)); /* a header, then one line each */

        for (size_t i = 0; i < ARRAY_LEN(starts); i++) {
                bool found = false;
                for (const char *p = buf; *p && !found; p = strchr(p, '\n') + 1)
                        found = strncmp(p, starts[i], strlen(starts[i])) == 0;
                if (!found)
                        fail_msg("no help line for '%s' in:\n%s", starts[i], buf);
        }
        for (size_t i = 0; i < ARRAY_LEN(mentions); i++)
                if (!strstr(buf, mentions[i]))
                        fail_msg("help does not mention '%s':\n%s", mentions[i], buf);
        free(buf);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_parse_size_good),
            cmocka_unit_test(test_parse_size_bad),
            cmocka_unit_test(test_parse_duration_good),
            cmocka_unit_test(test_parse_duration_bad),
            cmocka_unit_test(test_parse_bool),
            cmocka_unit_test(test_rw_mode),
            cmocka_unit_test(test_defaults),
            cmocka_unit_test(test_defaults_match_table),
            cmocka_unit_test(test_set_name),
            cmocka_unit_test(test_set_rw),
            cmocka_unit_test(test_set_bs_and_size),
            cmocka_unit_test(test_set_numjobs),
            cmocka_unit_test(test_set_runtime),
            cmocka_unit_test(test_set_time_based),
            cmocka_unit_test(test_set_paths),
            cmocka_unit_test(test_set_ioengine),
            cmocka_unit_test(test_unknown_option),
            cmocka_unit_test(test_unsupported_option),
            cmocka_unit_test(test_bad_rw),
            cmocka_unit_test(test_bad_ioengine),
            cmocka_unit_test(test_bad_sizes),
            cmocka_unit_test(test_bad_numjobs),
            cmocka_unit_test(test_bad_runtime),
            cmocka_unit_test(test_bad_bool),
            cmocka_unit_test(test_bad_strings),
            cmocka_unit_test(test_error_buffer),
            cmocka_unit_test(test_validate_rules),
            cmocka_unit_test(test_validate_fields),
            cmocka_unit_test(test_help),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
