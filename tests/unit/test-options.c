/* Unit tests for common/options*.c: fio's size/time/bool syntax, every option and alias, every
 * error, defaults, whole-job rules, fio's derived values, the help, the WORKLOADS.md command lines.
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

#include "options-fio.h"
#include "options.h"
#include "parse.h"
#include "util.h"
#include "wire.h"

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

/* Every field of the job, strings by value. */
static bool spec_equal(const job_spec_t *a, const job_spec_t *b)
{
        return str_eq_null(a->name, b->name) && a->rw == b->rw && a->rwmixread == b->rwmixread &&
               a->bs == b->bs && a->bs_write == b->bs_write && a->size == b->size &&
               a->filesize == b->filesize && a->nrfiles == b->nrfiles && a->offset == b->offset &&
               a->numjobs == b->numjobs && a->iodepth == b->iodepth &&
               a->iodepth_batch_submit == b->iodepth_batch_submit &&
               a->iodepth_batch_complete_min == b->iodepth_batch_complete_min &&
               a->direct == b->direct && a->invalidate == b->invalidate &&
               a->runtime_ns == b->runtime_ns && a->time_based == b->time_based &&
               a->ramp_time_ns == b->ramp_time_ns && a->startdelay_ns == b->startdelay_ns &&
               str_eq_null(a->directory, b->directory) && str_eq_null(a->filename, b->filename) &&
               str_eq_null(a->filename_format, b->filename_format) && a->fsync == b->fsync &&
               a->fdatasync == b->fdatasync && a->end_fsync == b->end_fsync &&
               a->rate[0] == b->rate[0] && a->rate[1] == b->rate[1] &&
               a->rate_iops[0] == b->rate_iops[0] && a->rate_iops[1] == b->rate_iops[1] &&
               a->randrepeat == b->randrepeat && a->randseed == b->randseed &&
               a->norandommap == b->norandommap && a->readonly == b->readonly &&
               a->verify == b->verify && a->verify_fatal == b->verify_fatal &&
               a->thread == b->thread && a->group_reporting == b->group_reporting &&
               str_eq_null(a->ioengine, b->ioengine) && a->metadata_dirs == b->metadata_dirs &&
               str_eq_null(a->metadata_order, b->metadata_order) &&
               a->randseed_set == b->randseed_set;
}

static char *dup_or_null(const char *s)
{
        return s ? strdup(s) : NULL;
}

static void spec_copy(job_spec_t *dst, const job_spec_t *src)
{
        *dst = *src;
        dst->name = dup_or_null(src->name);
        dst->directory = dup_or_null(src->directory);
        dst->filename = dup_or_null(src->filename);
        dst->filename_format = dup_or_null(src->filename_format);
        dst->ioengine = dup_or_null(src->ioengine);
        dst->metadata_order = dup_or_null(src->metadata_order);
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

/* A fresh job named "t" with the given key=value pairs applied (NULL-ended). */
static void job_with(job_spec_t *j, ...)
{
        va_list ap;
        const char *k;

        assert_int_equal(job_spec_init(j, "t"), 0);
        va_start(ap, j);
        while ((k = va_arg(ap, const char *)))
                set_ok(j, k, va_arg(ap, const char *));
        va_end(ap);
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
        static const struct {
                rw_mode_t m;
                const char *name;
                bool is_read, is_random, has_read, has_write;
        } modes[] = {
            {RW_READ, "read", true, false, true, false},
            {RW_WRITE, "write", false, false, false, true},
            {RW_RANDREAD, "randread", true, true, true, false},
            {RW_RANDWRITE, "randwrite", false, true, false, true},
            {RW_RW, "rw", false, false, true, true},
            {RW_RANDRW, "randrw", false, true, true, true},
        };

        (void)state;
        for (size_t i = 0; i < ARRAY_LEN(modes); i++) {
                assert_string_equal(rw_mode_to_string(modes[i].m), modes[i].name);
                assert_int_equal(rw_mode_is_read(modes[i].m), modes[i].is_read);
                assert_int_equal(rw_mode_is_random(modes[i].m), modes[i].is_random);
                assert_int_equal(rw_mode_has_read(modes[i].m), modes[i].has_read);
                assert_int_equal(rw_mode_has_write(modes[i].m), modes[i].has_write);
        }
        assert_null(rw_mode_to_string((rw_mode_t)6));
        assert_null(rw_mode_to_string((rw_mode_t)-1));
}

/* --- init, defaults, done ------------------------------------------------------------- */

/* job_spec_copy(): every string of every option table is the copy's own, so that freeing one
 * leaves the other whole (the fuzzer's untouched-on-failure check copies specs this way). */
static void test_copy(void **state)
{
        job_spec_t a, b;
        char err[256];
        static const char *const strs[][2] = {
            {"directory", "/tmp/x"},       {"ioscheduler", "none"},
            {"file_service_type", "random"}, {"verify_pattern", "0xaa"},
            {"ignore_error", "EIO"},       {"wait_for", "other"},
        };
        (void)state;

        assert_int_equal(job_spec_init(&a, "copy"), 0);
        for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
                if (job_option_set(&a, strs[i][0], strs[i][1], err, sizeof(err)) < 0)
                        fail_msg("%s: %s", strs[i][0], err);
        assert_int_equal(job_spec_copy(&b, &a), 0);
        assert_ptr_not_equal(b.name, a.name);
        assert_ptr_not_equal(b.ioscheduler, a.ioscheduler);
        assert_ptr_not_equal(b.file_service_type, a.file_service_type);
        assert_ptr_not_equal(b.wait_for, a.wait_for);
        job_spec_done(&a);
        assert_string_equal(b.name, "copy");
        assert_string_equal(b.directory, "/tmp/x");
        assert_string_equal(b.ioscheduler, "none");
        assert_string_equal(b.file_service_type, "random");
        assert_string_equal(b.verify_pattern, "0xaa");
        assert_string_equal(b.ignore_error, "EIO");
        assert_string_equal(b.wait_for, "other");
        job_spec_done(&b);
        assert_null(b.name);
        assert_null(b.wait_for);
}

/* percentile_list as fio reads it: ':'-separated, sorted, at most 20, each in (0, 100]. */
static void test_percentile_list(void **state)
{
        double p[JOB_PERCENTILES_MAX];
        char err[256];
        (void)state;

        assert_int_equal(job_percentile_list("99.9:50:1", p, err, sizeof(err)), 3);
        assert_true(p[0] == 1 && p[1] == 50 && p[2] == 99.9);
        assert_int_equal(job_percentile_list("100", p, err, sizeof(err)), 1);
        assert_int_equal(job_percentile_list("1:2:3:4:5:6:7:8:9:10:11:12:13:14:15:16:17:18:19:20",
                                             p, err, sizeof(err)),
                         20);
        assert_int_equal(job_percentile_list("1:2:3:4:5:6:7:8:9:10:11:12:13:14:15:16:17:18:19:20:21",
                                             p, err, sizeof(err)),
                         -EINVAL);
        assert_non_null(strstr(err, "more than 20"));
        assert_int_equal(job_percentile_list("0", p, err, sizeof(err)), -EINVAL);
        assert_int_equal(job_percentile_list("50:", p, err, sizeof(err)), -EINVAL);
        assert_int_equal(job_percentile_list("101", p, err, sizeof(err)), -EINVAL);
        assert_int_equal(job_percentile_list("50,99", p, err, sizeof(err)), -EINVAL);
        set_fails("percentile_list", "50:abc", -EINVAL, "percentile_list");
}

static void test_defaults(void **state)
{
        job_spec_t j;

        (void)state;
        assert_int_equal(job_spec_init(&j, "job1"), 0);
        assert_string_equal(j.name, "job1");
        assert_int_equal(j.rw, RW_READ);
        assert_int_equal(j.rwmixread, 50);
        assert_int_equal(j.bs, 4096);
        assert_int_equal(j.bs_write, 4096);
        assert_int_equal(j.size, 0);
        assert_int_equal(j.filesize, 0);
        assert_int_equal(j.nrfiles, 1);
        assert_int_equal(j.offset, 0);
        assert_int_equal(j.numjobs, 1);
        assert_int_equal(j.iodepth, 1);
        assert_int_equal(j.iodepth_batch_submit, 1);
        assert_int_equal(j.iodepth_batch_complete_min, 1);
        assert_false(j.direct);
        assert_true(j.invalidate);
        assert_int_equal(j.runtime_ns, 0);
        assert_false(j.time_based);
        assert_int_equal(j.ramp_time_ns, 0);
        assert_int_equal(j.startdelay_ns, 0);
        assert_null(j.directory);
        assert_null(j.filename);
        assert_null(j.filename_format);
        assert_int_equal(j.fsync, 0);
        assert_int_equal(j.fdatasync, 0);
        assert_false(j.end_fsync);
        assert_int_equal(j.rate[DDIR_READ], 0);
        assert_int_equal(j.rate[DDIR_WRITE], 0);
        assert_int_equal(j.rate_iops[DDIR_READ], 0);
        assert_int_equal(j.rate_iops[DDIR_WRITE], 0);
        assert_true(j.randrepeat);
        assert_int_equal(j.randseed, 0x89);
        assert_false(j.randseed_set);
        assert_false(j.norandommap);
        assert_false(j.readonly);
        assert_int_equal(j.verify, VERIFY_NONE);
        assert_false(j.verify_fatal);
        assert_false(j.thread);
        assert_false(j.group_reporting);
        assert_string_equal(j.ioengine, "psync");
        assert_int_equal(j.metadata_dirs, 1);
        assert_string_equal(j.metadata_order, "both");
        job_spec_done(&j);
        assert_null(j.name);
        assert_null(j.ioengine);
        assert_null(j.metadata_order);
        job_spec_done(&j); /* twice is harmless */
        job_spec_done(NULL);

        assert_int_equal(job_spec_init(&j, NULL), 0);
        assert_null(j.name);
        assert_string_equal(j.ioengine, "psync");
        job_spec_done(&j);
}

static char *help_text(void)
{
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);

        assert_non_null(f);
        job_options_help(f);
        assert_int_equal(fclose(f), 0);
        return buf;
}

/* Setting each option to the default its help line shows leaves a fresh job as it was. */
static void test_defaults_match_help(void **state)
{
        char *help = help_text(), *line, *save = NULL;
        job_spec_t j, fresh;
        size_t checked = 0;

        (void)state;
        assert_int_equal(job_spec_init(&fresh, "t"), 0);
        line = strtok_r(help, "\n", &save); /* the header */
        while ((line = strtok_r(NULL, "\n", &save))) {
                char name[64], type[16], def[64];

                assert_int_equal(sscanf(line, "%63s %15s %63s", name, type, def), 3);
                if (streq(def, "-"))
                        continue;
                assert_int_equal(job_spec_init(&j, "t"), 0);
                set_ok(&j, name, def);
                if (streq(name, "randseed")) /* giving it is what fio remembers */
                        j.randseed_set = false;
                if (!spec_equal(&j, &fresh))
                        fail_msg("%s=%s changes a fresh job", name, def);
                job_spec_done(&j);
                checked++;
        }
        assert_true(checked >= 35);
        job_spec_done(&fresh);
        free(help);
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
            {"read", RW_READ},           {"write", RW_WRITE}, {"randread", RW_RANDREAD},
            {"randwrite", RW_RANDWRITE}, {"rw", RW_RW},       {"readwrite", RW_RW},
            {"randrw", RW_RANDRW},
        };
        job_spec_t j;

        (void)state;
        assert_int_equal(job_spec_init(&j, "t"), 0);
        for (size_t i = 0; i < ARRAY_LEN(modes); i++) {
                set_ok(&j, "rw", modes[i].s);
                assert_int_equal(j.rw, modes[i].m);
                set_ok(&j, "rw", "write");
                set_ok(&j, "readwrite", modes[i].s); /* fio's alias */
                assert_int_equal(j.rw, modes[i].m);
                set_ok(&j, "rw", "write");
                set_ok(&j, "--rw", modes[i].s);
                assert_int_equal(j.rw, modes[i].m);
        }
        job_spec_done(&j);
}

static void test_set_rwmix(void **state)
{
        job_spec_t j;

        (void)state;
        job_with(&j, "rw", "randrw", NULL);
        set_ok(&j, "rwmixread", "70");
        assert_int_equal(j.rwmixread, 70);
        set_ok(&j, "rwmixwrite", "10"); /* the latter of the two wins, as in fio */
        assert_int_equal(j.rwmixread, 90);
        set_ok(&j, "rwmixwrite", "0");
        assert_int_equal(j.rwmixread, 100);
        set_ok(&j, "rwmixwrite", "100");
        assert_int_equal(j.rwmixread, 0);
        set_ok(&j, "rwmixread", "100");
        assert_int_equal(j.rwmixread, 100);
        set_ok(&j, "rwmixread", "0");
        assert_int_equal(j.rwmixread, 0);
        set_ok(&j, "--rwmixread", "50");
        assert_int_equal(j.rwmixread, 50);
        job_spec_done(&j);
}

/* fio's "read,write,trim" values: bs=4k,8k and friends, for bs, rate and rate_iops alike. */
static void test_set_per_ddir(void **state)
{
        static const struct {
                const char *key, *value;
                uint64_t r, w; /* starting from r=1k, w=2k (or 1, 2 for counts) */
        } cases[] = {
            {"bs", "4k", 4 * KIB, 4 * KIB},
            {"bs", "4k,8k", 4 * KIB, 8 * KIB},
            {"bs", "8k,32k,", 8 * KIB, 32 * KIB},
            {"bs", ",8k", KIB, 8 * KIB},
            {"bs", ",8k,", KIB, 8 * KIB},
            {"bs", "16k,", 16 * KIB, 2 * KIB},
            {"bs", "4k,8k,16k", 4 * KIB, 8 * KIB}, /* trim: checked, then ignored */
            {"bs", "4k,,16k", 4 * KIB, 2 * KIB},
            {"bs", ",,16k", KIB, 2 * KIB},
            {"blocksize", "64k,1m", 64 * KIB, MIB},
            {"--bs", "512,0x1000", 512, 4096},
            {"rate", "1m", MIB, MIB},
            {"rate", "1m,2m", MIB, 2 * MIB},
            {"rate", ",500k", KIB, 500 * KIB},
            {"rate", "500k,", 500 * KIB, 2 * KIB},
            {"rate", "0", 0, 0},
            {"rate_iops", "100", 100, 100},
            {"rate_iops", "100,200", 100, 200},
            {"rate_iops", ",5k", 1, 5 * KIB},
            {"rate_iops", "7,", 7, 2},
        };
        job_spec_t j;

        (void)state;
        for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
                uint64_t r, w;
                const char *k = cases[i].key + (cases[i].key[0] == '-' ? 2 : 0);

                assert_int_equal(job_spec_init(&j, "t"), 0);
                if (streq(k, "rate_iops"))
                        set_ok(&j, "rate_iops", "1,2");
                else
                        set_ok(&j, k, "1k,2k");
                set_ok(&j, cases[i].key, cases[i].value);
                if (streq(k, "rate")) {
                        r = j.rate[DDIR_READ];
                        w = j.rate[DDIR_WRITE];
                } else if (streq(k, "rate_iops")) {
                        r = j.rate_iops[DDIR_READ];
                        w = j.rate_iops[DDIR_WRITE];
                } else {
                        r = j.bs;
                        w = j.bs_write;
                }
                if (r != cases[i].r || w != cases[i].w)
                        fail_msg("%s=%s: read %llu write %llu, want %llu %llu", cases[i].key,
                                 cases[i].value, (unsigned long long)r, (unsigned long long)w,
                                 (unsigned long long)cases[i].r, (unsigned long long)cases[i].w);
                job_spec_done(&j);
        }
}

static void test_set_bs_and_size(void **state)
{
        job_spec_t j;

        (void)state;
        assert_int_equal(job_spec_init(&j, "t"), 0);
        set_ok(&j, "bs", "64k");
        assert_int_equal(j.bs, 64 * KIB);
        assert_int_equal(j.bs_write, 64 * KIB);
        set_ok(&j, "blocksize", "1M");
        assert_int_equal(j.bs, MIB);
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
                set_ok(&j, "filesize", good_sizes[i].s);
                assert_int_equal(j.filesize, good_sizes[i].v);
                set_ok(&j, "offset", good_sizes[i].s);
                assert_int_equal(j.offset, good_sizes[i].v);
        }
        set_ok(&j, "size", "9223372036854775807");
        assert_int_equal(j.size, INT64_MAX);
        set_ok(&j, "size", "0"); /* fio's "not given" */
        assert_int_equal(j.size, 0);
        set_ok(&j, "offset", "0");
        assert_int_equal(j.offset, 0);
        set_ok(&j, "fileoffset", "1m"); /* fio's alias */
        assert_int_equal(j.offset, MIB);
        set_ok(&j, "--filesize", "4k");
        assert_int_equal(j.filesize, 4 * KIB);
        job_spec_done(&j);
}

/* kb_base: fio 3.33's job files read k and kb as 1000 and kib as 1024 under kb_base=1000, every
 * size of the job (bssplit, bsrange, rw's skip) wherever kb_base stands in it; the output
 * options' ranges. */
static void test_kb_base(void **state)
{
        job_spec_t j;
        Iofleet__Job job = IOFLEET__JOB__INIT;
        Iofleet__JobOption o[4], *op[4];
        static const char *const kv[][2] = {
            {"size", "1m"}, {"bs", "4KiB"}, {"bssplit", "4k/50:1kib/50"}, {"kb_base", "1000"}};
        char err[256];
        (void)state;

        job_with(&j, "kb_base", "1000", "size", "1m", "bs", "4kb", "bsrange", "1k-1mib", NULL);
        assert_int_equal(j.size, 1000000);
        assert_int_equal(j.bs, 4000);
        assert_int_equal(j.bs_min[0], 1000);
        assert_int_equal(j.bs_max[0], MIB);
        job_spec_done(&j);
        job_with(&j, "size", "1m", "bs", "4kib", NULL); /* the default, 1024 */
        assert_int_equal(j.size, MIB);
        assert_int_equal(j.bs, 4000);
        job_spec_done(&j);
        /* kb_base last among the job's options still applies to all of them */
        for (size_t i = 0; i < 4; i++) {
                iofleet__job_option__init(&o[i]);
                o[i].key = (char *)kv[i][0];
                o[i].value = (char *)kv[i][1];
                op[i] = &o[i];
        }
        job.name = "t";
        job.options = op;
        job.n_options = 4;
        assert_int_equal(wire_job_spec(&job, &j, err, sizeof(err)), 0);
        assert_int_equal(j.kb_base, 1000);
        assert_int_equal(j.size, 1000000);
        assert_int_equal(j.bs, 4 * KIB);
        assert_int_equal(j.bssplit[0].n, 2);
        job_spec_done(&j);

        set_fails("kb_base", "512", -EINVAL, "kb_base");
        set_fails("unit_base", "2", -EINVAL, "unit_base");
        set_fails("significant_figures", "0", -ERANGE, "significant_figures");
        set_fails("significant_figures", "11", -ERANGE, "significant_figures");
        set_fails("bwavgtime", "0", -ERANGE, "bwavgtime");
        job_with(&j, "unit_base", "1", "significant_figures", "6", "bwavgtime", "250",
                 "iopsavgtime", "2s", "disk_util", "0", NULL);
        assert_int_equal(j.unit_base, 1);
        assert_int_equal(j.sig_figs, 6);
        assert_int_equal(j.bwavgtime_ns, 250 * NSEC_PER_MSEC);
        assert_int_equal(j.iopsavgtime_ns, 2 * NSEC_PER_SEC);
        assert_false(j.disk_util);
        job_spec_done(&j);
        job_with(&j, NULL);
        assert_int_equal(j.kb_base, 1024);
        assert_int_equal(j.sig_figs, 4);
        assert_int_equal(j.bwavgtime_ns, 500 * NSEC_PER_MSEC);
        assert_true(j.disk_util);
        job_spec_done(&j);
}

static void test_set_counts(void **state)
{
        static const struct {
                const char *key, *value;
                size_t offset;
                uint32_t want;
        } cases[] = {
            {"numjobs", "8", offsetof(job_spec_t, numjobs), 8},
            {"numjobs", "4096", offsetof(job_spec_t, numjobs), 4096},
            {"numjobs", "4k", offsetof(job_spec_t, numjobs), 4096}, /* fio's int suffixes */
            {"numjobs", "0x10", offsetof(job_spec_t, numjobs), 16},
            {"nrfiles", "10", offsetof(job_spec_t, nrfiles), 10},
            {"nrfile", "11", offsetof(job_spec_t, nrfiles), 11},
            {"nr_files", "12", offsetof(job_spec_t, nrfiles), 12},
            {"nrfiles", "1000000", offsetof(job_spec_t, nrfiles), 1000000},
            {"iodepth", "32", offsetof(job_spec_t, iodepth), 32},
            {"iodepth", "65536", offsetof(job_spec_t, iodepth), 65536},
            {"iodepth_batch_submit", "16", offsetof(job_spec_t, iodepth_batch_submit), 16},
            {"iodepth_batch", "8", offsetof(job_spec_t, iodepth_batch_submit), 8},
            {"iodepth_batch", "0", offsetof(job_spec_t, iodepth_batch_submit), 0},
            {"iodepth_batch_complete_min", "4", offsetof(job_spec_t, iodepth_batch_complete_min),
             4},
            {"iodepth_batch_complete", "0", offsetof(job_spec_t, iodepth_batch_complete_min), 0},
            {"fsync", "32", offsetof(job_spec_t, fsync), 32},
            {"fsync", "0", offsetof(job_spec_t, fsync), 0},
            {"fsync", "4294967295", offsetof(job_spec_t, fsync), UINT32_MAX},
            {"fdatasync", "1", offsetof(job_spec_t, fdatasync), 1},
            {"metadata_dirs", "16", offsetof(job_spec_t, metadata_dirs), 16},
        };
        job_spec_t j;

        (void)state;
        for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
                uint32_t got;

                assert_int_equal(job_spec_init(&j, "t"), 0);
                set_ok(&j, cases[i].key, cases[i].value);
                memcpy(&got, (char *)&j + cases[i].offset, sizeof(got));
                if (got != cases[i].want)
                        fail_msg("%s=%s: %u, want %u", cases[i].key, cases[i].value, got,
                                 cases[i].want);
                job_spec_done(&j);
        }
}

static void test_set_times(void **state)
{
        static const struct {
                const char *key, *value;
                size_t offset;
                uint64_t want;
        } cases[] = {
            {"runtime", "30", offsetof(job_spec_t, runtime_ns), 30 * NS_S},
            {"timeout", "2m", offsetof(job_spec_t, runtime_ns), 120 * NS_S},
            {"runtime", "3650d", offsetof(job_spec_t, runtime_ns), 3650ULL * 86400 * NS_S},
            {"--runtime", "0", offsetof(job_spec_t, runtime_ns), 0},
            {"ramp_time", "10", offsetof(job_spec_t, ramp_time_ns), 10 * NS_S},
            {"ramp_time", "500ms", offsetof(job_spec_t, ramp_time_ns), 500 * NS_MS},
            {"startdelay", "5", offsetof(job_spec_t, startdelay_ns), 5 * NS_S},
            {"startdelay", "1.5s", offsetof(job_spec_t, startdelay_ns), 1500 * NS_MS},
            {"startdelay", "250us", offsetof(job_spec_t, startdelay_ns), 250 * NS_US},
        };
        job_spec_t j;

        (void)state;
        for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
                uint64_t got;

                assert_int_equal(job_spec_init(&j, "t"), 0);
                set_ok(&j, "runtime", "7"); /* so that "0" shows */
                set_ok(&j, cases[i].key, cases[i].value);
                memcpy(&got, (char *)&j + cases[i].offset, sizeof(got));
                if (got != cases[i].want)
                        fail_msg("%s=%s: %llu, want %llu", cases[i].key, cases[i].value,
                                 (unsigned long long)got, (unsigned long long)cases[i].want);
                job_spec_done(&j);
        }

        assert_int_equal(job_spec_init(&j, "t"), 0);
        for (size_t i = 0; i < ARRAY_LEN(good_times); i++) {
                if (good_times[i].unit != NS_S || good_times[i].v > 3650ULL * 86400 * NS_S)
                        continue;
                set_ok(&j, "runtime", good_times[i].s);
                assert_int_equal(j.runtime_ns, good_times[i].v);
        }
        job_spec_done(&j);
}

static void test_set_bools(void **state)
{
        static const char *const on[] = {"", "1", "true", "yes", "on", "TRUE", "Yes", "ON"};
        static const char *const off[] = {"0", "false", "no", "off", "FALSE", "No", "Off"};
        static const struct {
                const char *key;
                size_t offset;
                bool inverse;
        } bools[] = {
            {"time_based", offsetof(job_spec_t, time_based), false},
            {"direct", offsetof(job_spec_t, direct), false},
            {"buffered", offsetof(job_spec_t, direct), true},
            {"invalidate", offsetof(job_spec_t, invalidate), false},
            {"end_fsync", offsetof(job_spec_t, end_fsync), false},
            {"randrepeat", offsetof(job_spec_t, randrepeat), false},
            {"allrandrepeat", offsetof(job_spec_t, randrepeat), false},
            {"norandommap", offsetof(job_spec_t, norandommap), false},
            {"readonly", offsetof(job_spec_t, readonly), false},
            {"verify_fatal", offsetof(job_spec_t, verify_fatal), false},
            {"thread", offsetof(job_spec_t, thread), false},
            {"group_reporting", offsetof(job_spec_t, group_reporting), false},
        };
        job_spec_t j;

        (void)state;
        assert_int_equal(job_spec_init(&j, "t"), 0);
        for (size_t b = 0; b < ARRAY_LEN(bools); b++) {
                bool *field = (bool *)((char *)&j + bools[b].offset);
                const char *k = bools[b].key;

                set_ok(&j, k, "0");
                set_ok(&j, k, NULL); /* fio's bare --time_based */
                assert_int_equal(*field, !bools[b].inverse);
                for (size_t i = 0; i < ARRAY_LEN(on); i++) {
                        set_ok(&j, k, "0");
                        set_ok(&j, k, on[i]);
                        assert_int_equal(*field, !bools[b].inverse);
                }
                for (size_t i = 0; i < ARRAY_LEN(off); i++) {
                        set_ok(&j, k, "1");
                        set_ok(&j, k, off[i]);
                        assert_int_equal(*field, bools[b].inverse);
                }
        }
        set_ok(&j, "--direct", "1");
        set_ok(&j, "buffered", "1"); /* the last of the two wins, as in fio */
        assert_false(j.direct);
        set_ok(&j, "buffered", "0");
        assert_true(j.direct);
        job_spec_done(&j);
}

static void test_set_paths(void **state)
{
        static const char *const formats[] = {
            "$jobname.$jobnum.$filenum",
            "data.$filenum",
            "$agent/$jobname.$filenum",
            "$clientuid-$jobnum",
            "a/b/c/$jobnum",
            "$jobnum_x", /* fio: $jobnum, "_x" */
            "cost$1",
            "end$",
            "$$jobname",
            "plain",
        };
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
        for (size_t i = 0; i < ARRAY_LEN(formats); i++) {
                set_ok(&j, "filename_format", formats[i]);
                assert_string_equal(j.filename_format, formats[i]);
        }
        job_spec_done(&j);
}

static void test_set_ioengine(void **state)
{
        static const char *const engines[] = {"psync", "libaio", "io_uring", "null", "metadata"};
        job_spec_t j;

        (void)state;
        assert_int_equal(job_spec_init(&j, "t"), 0);
        for (size_t i = 0; i < ARRAY_LEN(engines); i++) {
                set_ok(&j, "ioengine", engines[i]);
                assert_string_equal(j.ioengine, engines[i]);
        }
        set_ok(&j, "--ioengine", "psync");
        assert_string_equal(j.ioengine, "psync");
        set_ok(&j, "metadata_order", "random");
        assert_string_equal(j.metadata_order, "random");
        set_ok(&j, "metadata_order", "sequential");
        assert_string_equal(j.metadata_order, "sequential");
        job_spec_done(&j);
}

static void test_set_verify_and_seed(void **state)
{
        job_spec_t j;

        (void)state;
        assert_int_equal(job_spec_init(&j, "t"), 0);
        set_ok(&j, "verify", "crc32c");
        assert_int_equal(j.verify, VERIFY_CRC32C);
        set_ok(&j, "verify", "0");
        assert_int_equal(j.verify, VERIFY_NONE);
        set_ok(&j, "verify", "crc32c-intel"); /* fio's alias of crc32c */
        assert_int_equal(j.verify, VERIFY_CRC32C);
        set_ok(&j, "verify", "xxhash");
        assert_int_equal(j.verify, VERIFY_XXHASH);

        assert_true(job_spec_seed_is_fixed(&j));
        set_ok(&j, "randrepeat", "0");
        assert_false(job_spec_seed_is_fixed(&j));
        set_ok(&j, "randseed", "1234");
        assert_int_equal(j.randseed, 1234);
        assert_true(j.randseed_set);
        assert_true(job_spec_seed_is_fixed(&j)); /* fio: a given randseed overrides randrepeat */
        set_ok(&j, "randseed", "0x89");
        assert_int_equal(j.randseed, 0x89);
        set_ok(&j, "randseed", "18446744073709551615");
        assert_int_equal(j.randseed, UINT64_MAX);
        set_ok(&j, "randseed", "0");
        assert_int_equal(j.randseed, 0);
        job_spec_done(&j);
}

/* Display-only fio options: checked, accepted, and nothing changes. */
static void test_no_effect(void **state)
{
        static const char *const kv[][2] = {
            {"eta", "always"},        {"eta", "never"},          {"eta", "auto"},
            {"eta-newline", "1"},     {"eta-newline", "500ms"},  {"--eta-newline", "2s"},
            {"eta-interval", "1s"},   {"eta-interval", "250ms"}, {"description", "nightly run"},
            {"description", "a:b$c"},
        };
        job_spec_t j, fresh;

        (void)state;
        assert_int_equal(job_spec_init(&fresh, "t"), 0);
        assert_int_equal(job_spec_init(&j, "t"), 0);
        for (size_t i = 0; i < ARRAY_LEN(kv); i++) {
                set_ok(&j, kv[i][0], kv[i][1]);
                assert_true(spec_equal(&j, &fresh));
        }
        job_spec_done(&j);
        job_spec_done(&fresh);

        set_fails_with("eta", "sometimes", -EINVAL,
                       "eta: 'sometimes' is not one of always, never, auto");
        set_fails("eta-newline", "abc", -EINVAL, "is not a time");
        set_fails("eta-interval", "-1", -EINVAL, "negative");
        set_fails("description", "", -EINVAL, "needs a value");
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
        set_fails_with("rwmixreed", "4", -ENOENT,
                       "unknown option 'rwmixreed' (did you mean 'rwmixread'?)");
        set_fails_with("bad\nkey", "1", -ENOENT, "unknown option 'bad\\nkey'");
        set_fails("foo", NULL, -ENOENT, "unknown option");
}

/* Every name of the unsupported list is refused by name, and none is also in the table. */
static void test_unsupported_option(void **state)
{
        const char *p = job_fio_unsupported_options;
        char name[64], msg[128];
        size_t n = 0;

        (void)state;
        while (*p) {
                size_t len = strcspn(p, " ");

                assert_true(len > 0 && len < sizeof(name));
                memcpy(name, p, len);
                name[len] = '\0';
                snprintf(msg, sizeof(msg), "fio option '%s' is not supported by iofleet yet", name);
                set_fails_with(name, "1", -EOPNOTSUPP, msg);
                set_fails(name, NULL, -EOPNOTSUPP, "not supported by iofleet yet");
                n++;
                p += len;
                p += strspn(p, " ");
        }
        assert_true(n > 100); /* fio 3.33 has some 400 options; iofleet refuses what it lacks */
        set_fails_with("--zonemode", "zbd", -EOPNOTSUPP,
                       "fio option 'zonemode' is not supported by iofleet yet");
}

static void test_bad_rw(void **state)
{
        (void)state;
        set_fails_with("rw", "sideways", -EINVAL,
                       "rw: 'sideways' is not one of read, write, randread, randwrite, rw, "
                       "readwrite, randrw");
        set_fails("readwrite", "sideways", -EINVAL, "is not one of");
        set_fails("rw", "Read", -EINVAL, "is not one of");
        set_fails("rw", "read ", -EINVAL, "is not one of");
        set_fails("rw", "", -EINVAL, "needs a value");
        set_fails("rw", NULL, -EINVAL, "needs a value");
        for (size_t i = 0; job_fio_unsupported_rw[i]; i++)
                set_fails("rw", job_fio_unsupported_rw[i], -EOPNOTSUPP,
                          "not supported by iofleet yet");
        set_fails_with("rw", "trim", -EOPNOTSUPP,
                       "rw: fio's 'trim' is not supported by iofleet yet (use read, write, "
                       "randread, randwrite, rw, readwrite, randrw)");
        /* fio's ':' suffix: I/Os per offset after a random mode, a skip after a sequential one
         * (test-options-io.c has the values it takes) */
        set_fails("rw", "randread:0", -EINVAL, "I/Os per new offset");
        set_fails("rw", "write:4q", -EINVAL, "bytes to skip");
        set_fails("rw", "sideways:8", -EINVAL, "is not one of");
}

static void test_bad_ioengine(void **state)
{
        (void)state;
        set_fails_with("ioengine", "foo", -EINVAL,
                       "ioengine: 'foo' is not one of psync, libaio, io_uring, null, metadata, nfs, "
                       "sync, vsync, pvsync, pvsync2, posixaio, mmap, falloc, ftruncate, "
                       "filecreate, filestat, filedelete, dircreate, dirstat, dirdelete");
        for (size_t i = 0; job_fio_unsupported_engines[i]; i++)
                set_fails("ioengine", job_fio_unsupported_engines[i], -EOPNOTSUPP,
                          "not supported by iofleet");
        set_fails("ioengine", "splice", -EOPNOTSUPP,
                  "ioengine: fio's 'splice' is not supported by iofleet yet (use psync, libaio, "
                  "io_uring, null, metadata, nfs, sync");
        set_fails("ioengine", "external:/usr/lib/engine.so", -EOPNOTSUPP, "':' suffix");
        set_fails("ioengine", "exec", -EOPNOTSUPP, "run only programs their config names");
        /* a job names a program an agent allows; a command line is refused, saying why */
        set_fails("exec_prerun", "echo 3 > /proc/sys/vm/drop_caches", -EOPNOTSUPP,
                  "is a command line; agents run as root");
        set_fails("ioengine", "PSYNC", -EINVAL, "is not one of");
        set_fails("ioengine", "", -EINVAL, "needs a value");
        set_fails_with("metadata_order", "shuffled", -EINVAL,
                       "metadata_order: 'shuffled' is not one of sequential, random, both");
}

static void test_bad_verify(void **state)
{
        (void)state;
        for (size_t i = 0; job_fio_unsupported_verify[i]; i++)
                set_fails("verify", job_fio_unsupported_verify[i], -EOPNOTSUPP,
                          "not supported by iofleet yet");
        set_fails_with("verify", "sha512", -EOPNOTSUPP,
                       "verify: fio's 'sha512' is not supported by iofleet yet (use 0, crc32c, "
                       "crc32c-intel, xxhash, md5, sha256, meta, pattern, null)");
        set_fails("verify", "none", -EINVAL, "is not one of 0, crc32c");
        set_fails("verify", "1", -EINVAL, "is not one of");
        set_fails("verify", "CRC32C", -EINVAL, "is not one of");
        set_fails("verify", NULL, -EINVAL, "needs a value");
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
        set_fails("bs", "99999999999999999999", -ERANGE, "out of range 1..2g");
        /* read,write,trim values */
        set_fails_with("bs", "4k,abc", -EINVAL, "bs: write value 'abc' is not a size (e.g. bs=4k)");
        set_fails_with("bs", ",0", -ERANGE, "bs: write value 0 is out of range 1..2g");
        set_fails_with("bs", "4k,8k,3g", -ERANGE, "bs: trim value 3g is out of range 1..2g");
        set_fails_with("bs", "0,4k", -ERANGE, "bs: read value 0 is out of range 1..2g");
        set_fails("bs", "4k,-8k", -EINVAL, "write value '-8k' is negative");
        set_fails_with("bs", "4k,8k,16k,32k", -EINVAL,
                       "bs: '4k,8k,16k,32k' has more than 3 comma-separated values "
                       "(read,write,trim)");
        set_fails_with("bs", ",", -EINVAL, "bs: needs a value (e.g. bs=4k)");
        set_fails("bs", ",,", -EINVAL, "needs a value");
        set_fails("bs", "4k-8k", -EINVAL, "'4k-8k' is not a value");
        set_fails("bs", "4k:8k", -EINVAL, "is not a value");
        set_fails("rate", "1m,x", -EINVAL, "write value 'x' is not a size");
        set_fails_with("rate_iops", "4294967296", -ERANGE,
                       "rate_iops: 4294967296 is out of range 0..4294967295");
        set_fails("rate_iops", "1.5", -EINVAL, "is not a whole number");
        /* sizes */
        set_fails("size", "0%", -EINVAL, "is not a percentage");
        set_fails("size", "101%", -EINVAL, "is not a percentage");
        set_fails("size", "50.5%", -EINVAL, "is not a percentage");
        set_fails("size", "4k,8k", -EINVAL, "unknown suffix");
        set_fails_with("size", "9223372036854775808", -ERANGE,
                       "size: 9223372036854775808 is out of range 1..9223372036854775807");
        set_fails("size", "99999999999999999999", -ERANGE, "out of range");
        set_fails("size", "16384p", -ERANGE, "out of range");
        set_fails("size", "1 g", -EINVAL, "unknown suffix");
        set_fails_with("filesize", "9223372036854775808", -ERANGE,
                       "filesize: 9223372036854775808 is out of range 1..9223372036854775807");
        set_fails_with("filesize", "1k-4k", -EOPNOTSUPP,
                       "filesize: fio's range '1k-4k' is not supported by iofleet yet (give one "
                       "value, e.g. filesize=1m)");
        set_fails("filesize", "1k:4k", -EOPNOTSUPP, "range");
        set_fails("filesize", "-1k", -EINVAL, "negative");
        set_fails("offset", "20%", -EOPNOTSUPP, "percentage, which iofleet does not support");
        set_fails("offset", "2z", -EINVAL, "unknown suffix");
        set_fails("fileoffset", "9223372036854775808", -ERANGE, "out of range 0..");
}

static void test_bad_counts(void **state)
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
        set_fails_with("rwmixread", "150", -ERANGE, "rwmixread: 150 is out of range 0..100");
        set_fails_with("rwmixwrite", "101", -ERANGE, "rwmixwrite: 101 is out of range 0..100");
        set_fails("rwmixread", "-5", -EINVAL, "not a whole number");
        set_fails_with("iodepth", "0", -ERANGE, "iodepth: 0 is out of range 1..65536");
        set_fails_with("iodepth", "65537", -ERANGE, "iodepth: 65537 is out of range 1..65536");
        set_fails_with("iodepth_batch", "65537", -ERANGE,
                       "iodepth_batch: 65537 is out of range 0..65536");
        set_fails("iodepth_batch_complete", "99999", -ERANGE, "out of range 0..65536");
        set_fails_with("nrfiles", "0", -ERANGE, "nrfiles: 0 is out of range 1..1000000");
        set_fails_with("nrfile", "1000001", -ERANGE, "nrfile: 1000001 is out of range 1..1000000");
        set_fails("fsync", "4294967296", -ERANGE, "out of range 0..4294967295");
        set_fails("fdatasync", "x", -EINVAL, "not a whole number");
        set_fails_with("randseed", "abc", -EINVAL,
                       "randseed: 'abc' is not a whole number (e.g. randseed=1234)");
        set_fails("randseed", "18446744073709551616", -ERANGE, "out of range");
        set_fails("metadata_dirs", "0", -ERANGE, "out of range 1..1000000");
}

static void test_bad_times(void **state)
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
        set_fails("ramp_time", "3651d", -ERANGE, "out of range 0..3650d");
        set_fails("ramp_time", "1x", -EINVAL, "unknown unit");
        set_fails_with("startdelay", "1-5", -EOPNOTSUPP,
                       "startdelay: fio's range '1-5' is not supported by iofleet yet (give one "
                       "value, e.g. startdelay=5s)");
        set_fails("startdelay", "1s:5s", -EOPNOTSUPP, "range");
}

static void test_bad_bool(void **state)
{
        (void)state;
        set_fails_with("time_based", "maybe", -EINVAL,
                       "time_based: 'maybe' is not a boolean (1/0, true/false, yes/no, on/off)");
        set_fails("time_based", "2", -EINVAL, "not a boolean");
        set_fails("--time_based", "1\n", -EINVAL, "'1\\n'");
        set_fails("direct", "2", -EINVAL, "not a boolean");
        set_fails("buffered", "x", -EINVAL, "not a boolean");
        set_fails("norandommap", "-1", -EINVAL, "not a boolean");
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

        set_fails_with("filename_format", "$foo.$filenum", -EINVAL,
                       "filename_format: unknown token '$foo' in '$foo.$filenum' (known: "
                       "$jobname, $jobnum, $filenum, $clientuid, $agent)");
        set_fails("filename_format", "$JOBNAME", -EINVAL, "unknown token '$JOBNAME'");
        set_fails("filename_format", "x/$host_name", -EINVAL, "unknown token '$host_name'");
        set_fails("filename_format", "$job", -EINVAL, "unknown token '$job'");
        set_fails("filename_format", "a\nb", -EINVAL, "control character");
        set_fails("filename_format", "", -EINVAL, "needs a value");
        set_fails("filename_format", long_path, -ERANGE, "out of range 1..4095");
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
        assert_true(strlen(msg) < 140);
        assert_int_equal(job_option_set(&j, "bs", big, msg, sizeof(msg)), -EINVAL);
        assert_non_null(strstr(msg, "zzz...' is not a size"));
        job_spec_done(&j);
}

/* --- validate ----------------------------------------------------------------------- */

static void validate_fails(const job_spec_t *j, int rc, const char *msg)
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

/* key=value pairs (NULL-ended) on a fresh job, then validate: 0 and msg NULL, or rc and msg. */
static void job_check(int rc, const char *msg, ...)
{
        va_list ap;
        const char *k;
        job_spec_t j;

        assert_int_equal(job_spec_init(&j, "t"), 0);
        va_start(ap, msg);
        while ((k = va_arg(ap, const char *)))
                set_ok(&j, k, va_arg(ap, const char *));
        va_end(ap);
        if (rc == 0)
                validate_ok(&j);
        else
                validate_fails(&j, rc, msg);
        job_spec_done(&j);
}

static void test_validate_size_needed(void **state)
{
        (void)state;
        job_check(-EINVAL, "size: required (e.g. size=1g, or filesize=...)", NULL);
        job_check(-EINVAL, "size: required (e.g. size=1g, or filesize=...)", "runtime", "10s",
                  "time_based", "", NULL);
        job_check(0, NULL, "size", "1g", NULL);
        job_check(0, NULL, "filesize", "1m", NULL); /* a file size is enough */
        /* the null engine may run on time alone */
        job_check(-EINVAL,
                  "size: required (e.g. size=1g, or filesize=...) unless ioengine=null runs "
                  "time_based",
                  "ioengine", "null", NULL);
        /* time_based alone runs until stopped (soak runs, ended by a cancel) */
        job_check(0, NULL, "ioengine", "null", "time_based", NULL, NULL);
        job_check(0, NULL, "ioengine", "null", "time_based", NULL, "runtime", "30s", NULL);
        job_check(0, NULL, "size", "1g", "time_based", "1", NULL);
        job_check(0, NULL, "size", "1g", "time_based", "1", "runtime", "1m", NULL);
        /* the metadata workload's files may be empty */
        job_check(0, NULL, "ioengine", "metadata", "nrfiles", "1000", NULL);
}

static void test_validate_block_sizes(void **state)
{
        (void)state;
        job_check(-EINVAL, "bs: 1m is larger than size=64k", "size", "64k", "bs", "1m", NULL);
        job_check(0, NULL, "size", "64k", "bs", "64k", NULL);
        job_check(0, NULL, "size", "64k", "bs", "1000", NULL); /* any bs for buffered I/O */
        job_check(-EINVAL, "bs: 1501 is larger than size=1500", "size", "1500", "bs", "1501", NULL);
        /* only the directions the job uses */
        job_check(0, NULL, "size", "64k", "bs", "4k,1m", NULL);
        job_check(-EINVAL, "bs: write block size 1m is larger than size=64k", "size", "64k", "bs",
                  "4k,1m", "rw", "write", NULL);
        job_check(-EINVAL, "bs: read block size 1m is larger than size=64k", "size", "64k", "bs",
                  "1m,4k", "rw", "randrw", NULL);
        job_check(-EINVAL, "bs: write block size 1m is larger than size=64k", "size", "64k", "bs",
                  "4k,1m", "rw", "rw", NULL);
        job_check(0, NULL, "size", "64k", "bs", "1m,4k", "rw", "randwrite", NULL);
        job_check(-EINVAL, "bs: 8k is larger than size=4k", "size", "4k", "bs", "8k", "rw", "write",
                  NULL);
        /* size is split over the files */
        job_check(-EINVAL, "bs: 32k is larger than the per-file size 16k (size=64k over nrfiles=4)",
                  "size", "64k", "nrfiles", "4", "bs", "32k", NULL);
        job_check(0, NULL, "size", "64k", "nrfiles", "4", "bs", "16k", NULL);
        job_check(-EINVAL, "bs: 4k is larger than the per-file size 0 (size=3 over nrfiles=4)",
                  "size", "3", "nrfiles", "4", NULL);
        /* ... unless filename= names the one file (fio ignores nrfiles then) */
        job_check(0, NULL, "size", "64k", "nrfiles", "4", "bs", "64k", "filename", "/tmp/f", NULL);
        /* filesize overrides the per-file share of size */
        job_check(0, NULL, "size", "64k", "nrfiles", "4", "filesize", "64k", "bs", "64k", NULL);
        job_check(-EINVAL, "bs: 8k is larger than filesize=4k", "filesize", "4k", "bs", "8k", NULL);
        job_check(-EINVAL, "bs: 8k is larger than filesize=12k minus offset=8k", "filesize", "12k",
                  "offset", "8k", "bs", "8k", NULL);
        job_check(0, NULL, "filesize", "12k", "offset", "8k", "bs", "4k", NULL);
        /* ... and size, then only a cap on the bytes of I/O, is still one block at least */
        job_check(-EINVAL, "bs: 4k is larger than size=1k", "filesize", "8k", "size", "1k", NULL);
        job_check(0, NULL, "filesize", "8k", "size", "4k", "nrfiles", "4", NULL);
        job_check(-ERANGE, "offset: 12k is out of range (it must be below filesize=12k)",
                  "filesize", "12k", "offset", "12k", NULL);
        job_check(-ERANGE, "offset: 9223372036854775552 plus 1k per file is out of range", "size",
                  "1k", "offset", "0x7fffffffffffff00", "bs", "512", NULL);
        job_check(0, NULL, "size", "1g", "offset", "1t", NULL); /* size counts from offset */
        /* the metadata workload reads whole files, of any size */
        job_check(0, NULL, "ioengine", "metadata", "filesize", "100", "bs", "1m", NULL);
}

static void test_validate_direct(void **state)
{
        (void)state;
        job_check(-EINVAL, "bs: 1000 is not a multiple of 512, which direct=1 needs", "size", "1m",
                  "bs", "1000", "direct", "1", NULL);
        job_check(-EINVAL, "bs: 1000 is not a multiple of 512", "size", "1m", "bs", "1000",
                  "buffered", "0", NULL);
        job_check(0, NULL, "size", "1m", "bs", "512", "direct", "1", NULL);
        job_check(0, NULL, "size", "1m", "bs", "1000", "direct", "1", "buffered", "1", NULL);
        job_check(-EINVAL, "bs: write block size 1000 is not a multiple of 512", "size", "1m", "bs",
                  "4k,1000", "rw", "randwrite", "direct", "1", NULL);
        job_check(0, NULL, "size", "1m", "bs", "4k,1000", "rw", "randread", "direct", "1", NULL);
        job_check(-EINVAL, "offset: 100 is not a multiple of 512, which direct=1 needs", "size",
                  "1m", "offset", "100", "direct", "1", NULL);
        /* the null engine opens nothing */
        job_check(0, NULL, "size", "1m", "bs", "1000", "direct", "1", "ioengine", "null", NULL);
}

static void test_validate_depth(void **state)
{
        (void)state;
        job_check(0, NULL, "size", "1g", "iodepth", "32", NULL); /* psync ignores depth, as fio */
        job_check(0, NULL, "size", "1g", "iodepth", "32", "ioengine", "null", NULL);
        job_check(0, NULL, "size", "1g", "iodepth", "32", "iodepth_batch", "32",
                  "iodepth_batch_complete_min", "32", "ioengine", "libaio", NULL);
        job_check(0, NULL, "size", "1g", "iodepth", "32", "iodepth_batch", "0",
                  "iodepth_batch_complete", "0", "ioengine", "io_uring", NULL);
        job_check(-ERANGE,
                  "iodepth_batch_submit: 64 is out of range 0..32 (at most iodepth=32; 0 means "
                  "iodepth)",
                  "size", "1g", "iodepth", "32", "iodepth_batch", "64", NULL);
        job_check(-ERANGE, "iodepth_batch_submit: 16 is out of range 0..1", "size", "1g",
                  "iodepth_batch_submit", "16", NULL);
        job_check(-ERANGE, "iodepth_batch_complete_min: 8 is out of range 0..4 (at most iodepth=4)",
                  "size", "1g", "iodepth", "4", "iodepth_batch_complete_min", "8", NULL);
}

static void test_validate_contradictions(void **state)
{
        static const char *const writers[] = {"write", "randwrite", "rw", "readwrite", "randrw"};
        char msg[64];

        (void)state;
        for (size_t i = 0; i < ARRAY_LEN(writers); i++) {
                snprintf(msg, sizeof(msg), "readonly: rw=%s would write",
                         streq(writers[i], "readwrite") ? "rw" : writers[i]);
                job_check(-EINVAL, msg, "size", "1g", "readonly", NULL, "rw", writers[i], NULL);
        }
        job_check(0, NULL, "size", "1g", "readonly", NULL, "rw", "randread", NULL);
        job_check(0, NULL, "size", "1g", "readonly", "0", "rw", "write", NULL);
        job_check(-EINVAL, "readonly: ioengine=metadata creates and deletes files", "readonly", "1",
                  "ioengine", "metadata", NULL);
        /* verify: after writes, and on reads to check data written earlier */
        job_check(0, NULL, "size", "1g", "verify", "crc32c", "rw", "write", NULL);
        job_check(0, NULL, "size", "1g", "verify", "xxhash", "rw", "randrw", NULL);
        job_check(0, NULL, "size", "1g", "verify", "crc32c", "rw", "read", "readonly", "1", NULL);
        job_check(0, NULL, "size", "1g", "verify_fatal", "1", NULL);
        job_check(-EINVAL, "verify: ioengine=null keeps no data to verify (use verify=0)", "size",
                  "1g", "verify", "crc32c", "ioengine", "null", NULL);
        job_check(0, NULL, "size", "1g", "verify", "0", "ioengine", "null", NULL);
        /* rate */
        job_check(0, NULL, "size", "1g", "rate", "1m,2m", NULL);
        job_check(0, NULL, "size", "1g", "rate_iops", "100", NULL);
        job_check(-EINVAL, "rate: rate and rate_iops exclude each other (give one)", "size", "1g",
                  "rate", "1m", "rate_iops", ",100", NULL);
        job_check(0, NULL, "size", "1g", "rate", "1m", "rate_iops", "0", NULL);
        /* metadata options belong to the metadata workload */
        job_check(-EINVAL, "metadata_dirs: only ioengine=metadata uses it", "size", "1g",
                  "metadata_dirs", "4", NULL);
        job_check(-EINVAL, "metadata_order: only ioengine=metadata uses it", "size", "1g",
                  "metadata_order", "random", NULL);
        job_check(0, NULL, "ioengine", "metadata", "metadata_dirs", "4", "metadata_order", "random",
                  "nrfiles", "100", "filesize", "4k", NULL);
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
        validate_fails(&j, -EINVAL,
                       "rw: 99 is not one of read, write, randread, randwrite, rw, readwrite, "
                       "randrw");
        job_spec_done(&j);

        FRESH();
        j.verify = (verify_kind_t)17;
        validate_fails(&j, -EINVAL, "verify: 17 is not one of 0, crc32c, crc32c-intel, xxhash");
        job_spec_done(&j);

        FRESH();
        j.numjobs = 0;
        validate_fails(&j, -ERANGE, "numjobs: 0 is out of range 1..4096");
        j.numjobs = 5000;
        validate_fails(&j, -ERANGE, "numjobs: 5000 is out of range 1..4096");
        job_spec_done(&j);

        FRESH();
        j.bs = 0;
        validate_fails(&j, -ERANGE, "bs: read value 0 is out of range 1..2g");
        j.bs = 4096;
        j.bs_write = 4ULL << 30;
        validate_fails(&j, -ERANGE, "bs: write value 4g is out of range 1..2g");
        job_spec_done(&j);

        FRESH();
        j.rwmixread = 101;
        validate_fails(&j, -ERANGE, "rwmixread: 101 is out of range 0..100");
        job_spec_done(&j);

        FRESH();
        j.iodepth = 0;
        validate_fails(&j, -ERANGE, "iodepth: 0 is out of range 1..65536");
        job_spec_done(&j);

        FRESH();
        j.nrfiles = 0;
        validate_fails(&j, -ERANGE, "nrfiles: 0 is out of range 1..1000000");
        job_spec_done(&j);

        FRESH();
        j.rate_iops[DDIR_WRITE] = 1ULL << 32;
        validate_fails(&j, -ERANGE, "rate_iops: write value 4294967296 is out of range");
        job_spec_done(&j);

        FRESH();
        j.size = UINT64_MAX;
        validate_fails(&j, -ERANGE, "size: 18446744073709551615 is out of range");
        job_spec_done(&j);

        FRESH();
        j.runtime_ns = 3651ULL * 86400 * NS_S;
        validate_fails(&j, -ERANGE, "runtime: 3651d is out of range 0..3650d");
        j.runtime_ns = 0;
        j.startdelay_ns = 3651ULL * 86400 * NS_S;
        validate_fails(&j, -ERANGE, "startdelay: 3651d is out of range 0..3650d");
        job_spec_done(&j);

        FRESH();
        free(j.ioengine);
        j.ioengine = NULL;
        validate_fails(&j, -EINVAL, "ioengine: required (e.g. ioengine=psync)");
        j.ioengine = strdup("splice");
        validate_fails(&j, -EOPNOTSUPP,
                       "ioengine: 'splice' is not one of psync, libaio, io_uring, null, metadata, "
                       "nfs, sync");
        free(j.ioengine);
        j.ioengine = strdup("bogus");
        validate_fails(&j, -EINVAL, "ioengine: 'bogus' is not one of");
        job_spec_done(&j);

        FRESH();
        free(j.metadata_order);
        j.metadata_order = strdup("upside-down");
        validate_fails(&j, -EINVAL, "metadata_order: 'upside-down' is not one of");
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
        free(j.filename);
        j.filename = NULL;
        j.filename_format = strdup("$nope");
        validate_fails(&j, -EINVAL, "filename_format: unknown token '$nope'");
        job_spec_done(&j);
#undef FRESH
}

/* --- fio's derived values ----------------------------------------------------------- */

static void test_derived(void **state)
{
        job_spec_t j;

        (void)state;
        job_with(&j, "size", "64k", NULL);
        assert_int_equal(job_spec_nrfiles(&j), 1);
        assert_int_equal(job_spec_file_io_size(&j), 64 * KIB);
        set_ok(&j, "nrfiles", "4");
        assert_int_equal(job_spec_nrfiles(&j), 4);
        assert_int_equal(job_spec_file_io_size(&j), 16 * KIB);
        set_ok(&j, "offset", "1m"); /* size counts from offset */
        assert_int_equal(job_spec_file_io_size(&j), 16 * KIB);
        set_ok(&j, "filesize", "3m");
        assert_int_equal(job_spec_file_io_size(&j), 2 * MIB);
        set_ok(&j, "offset", "3m");
        assert_int_equal(job_spec_file_io_size(&j), 0);
        set_ok(&j, "filename", "/tmp/x");
        assert_int_equal(job_spec_nrfiles(&j), 1);
        job_spec_done(&j);

        job_with(&j, "ioengine", "null", NULL);
        assert_int_equal(job_spec_file_io_size(&j), 0);
        assert_int_equal(job_spec_batch_submit(&j), 1);
        set_ok(&j, "iodepth", "32");
        set_ok(&j, "iodepth_batch", "0");
        assert_int_equal(job_spec_batch_submit(&j), 32);
        set_ok(&j, "iodepth_batch", "8");
        assert_int_equal(job_spec_batch_submit(&j), 8);
        job_spec_done(&j);
}

/* --- what users type today ---------------------------------------------------------- */

/* The fio command lines of ../shared/WORKLOADS.md, scaled down, as the CLI hands them over
 * (without their leading dashes): each must parse and validate unchanged. */
static void test_workloads(void **state)
{
        static const char *const lines[][40] = {
            {"name",
             "read_throughput",
             "directory",
             "/mnt/nfs",
             "size",
             "10m",
             "rw",
             "read",
             "bs",
             "1m",
             "numjobs",
             "200",
             "iodepth",
             "64",
             "ioengine",
             "libaio",
             "time_based",
             "",
             "runtime",
             "120",
             "direct",
             "1",
             "group_reporting",
             "",
             "eta-newline",
             "1",
             "readonly",
             "",
             NULL},
            {"directory",
             "/tank/fio-data",
             "ioengine",
             "libaio",
             "iodepth",
             "512",
             "numjobs",
             "10",
             "nrfile",
             "10",
             "size",
             "1g",
             "time_based",
             "",
             "runtime",
             "300",
             "group_reporting",
             "",
             "rw",
             "randwrite",
             "bs",
             "4k",
             NULL},
            {"directory",
             "/tank/fio-data",
             "ioengine",
             "libaio",
             "iodepth",
             "512",
             "numjobs",
             "10",
             "nrfile",
             "10",
             "size",
             "1g",
             "time_based",
             "",
             "runtime",
             "300",
             "group_reporting",
             "",
             "rw",
             "read",
             "bs",
             "1m",
             NULL},
            {"rw",
             "randwrite",
             "bs",
             "4k",
             "size",
             "10m",
             "numjobs",
             "10",
             "runtime",
             "20",
             "direct",
             "1",
             "invalidate",
             "1",
             "ioengine",
             "libaio",
             "iodepth",
             "32",
             "iodepth_batch",
             "32",
             "group_reporting",
             "",
             NULL},
            {"rw", "write", "bs", "4k", "size", "50m", "numjobs", "20", "group_reporting", "",
             NULL},
        };
        job_spec_t j;

        (void)state;
        for (size_t l = 0; l < ARRAY_LEN(lines); l++) {
                assert_int_equal(job_spec_init(&j, "w"), 0);
                for (size_t k = 0; lines[l][k]; k += 2)
                        set_ok(&j, lines[l][k], lines[l][k + 1]);
                validate_ok(&j);
                job_spec_done(&j);
        }

        job_with(&j, "rw", "randwrite", "iodepth", "32", "iodepth_batch", "32", "direct", "1",
                 "invalidate", "1", NULL);
        assert_int_equal(j.iodepth_batch_submit, 32);
        assert_true(j.direct);
        job_spec_done(&j);
}

/* --- help --------------------------------------------------------------------------- */

static void test_help(void **state)
{
        static const char *const mentions[] = {
            "(alias: readwrite)",
            "(alias: blocksize)",
            "(alias: timeout)",
            "(alias: nrfile, nr_files)",
            "(alias: iodepth_batch)",
            "(alias: iodepth_batch_complete)",
            "(alias: fileoffset)",
            "(alias: allrandrepeat)",
            "read|write|randread|randwrite|rw|readwrite|randrw",
            "psync|libaio|io_uring|null|metadata",
            "0|crc32c|crc32c-intel|xxhash",
            "always|never|auto",
            "1..2g",
            "1..4096",
            "0..3650d",
            "0..100",
            "1..65536",
            "0x89",
            "A-Za-z0-9._-",
            "no effect",
        };
        char *buf = help_text();
        size_t lines = 0;

        (void)state;
        for (const char *p = buf; *p; p = strchr(p, '\n') + 1) {
                const char *nl = strchr(p, '\n');
                assert_non_null(nl);
                assert_true(nl - p < 320); /* ioengine's range lists its 20 engines */
                lines++;
        }
        assert_true(lines > 40);

        /* every option has its line, found by setting the names the help shows */
        for (const char *p = strchr(buf, '\n') + 1; *p; p = strchr(p, '\n') + 1) {
                char name[64];
                job_spec_t j;
                char err[256];
                int r;

                assert_int_equal(sscanf(p, "%63s", name), 1);
                assert_int_equal(job_spec_init(&j, "t"), 0);
                r = job_option_set(&j, name, "", err, sizeof(err));
                if (r == -ENOENT || r == -EOPNOTSUPP)
                        fail_msg("help lists '%s', which the setter refuses: %s", name, err);
                job_spec_done(&j);
        }
        for (size_t i = 0; i < ARRAY_LEN(mentions); i++)
                if (!strstr(buf, mentions[i]))
                        fail_msg("help does not mention '%s':\n%s", mentions[i], buf);
        free(buf);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_copy),
            cmocka_unit_test(test_percentile_list),
            cmocka_unit_test(test_parse_size_good),
            cmocka_unit_test(test_parse_size_bad),
            cmocka_unit_test(test_parse_duration_good),
            cmocka_unit_test(test_parse_duration_bad),
            cmocka_unit_test(test_parse_bool),
            cmocka_unit_test(test_rw_mode),
            cmocka_unit_test(test_defaults),
            cmocka_unit_test(test_defaults_match_help),
            cmocka_unit_test(test_set_name),
            cmocka_unit_test(test_set_rw),
            cmocka_unit_test(test_set_rwmix),
            cmocka_unit_test(test_set_per_ddir),
            cmocka_unit_test(test_set_bs_and_size),
            cmocka_unit_test(test_kb_base),
            cmocka_unit_test(test_set_counts),
            cmocka_unit_test(test_set_times),
            cmocka_unit_test(test_set_bools),
            cmocka_unit_test(test_set_paths),
            cmocka_unit_test(test_set_ioengine),
            cmocka_unit_test(test_set_verify_and_seed),
            cmocka_unit_test(test_no_effect),
            cmocka_unit_test(test_unknown_option),
            cmocka_unit_test(test_unsupported_option),
            cmocka_unit_test(test_bad_rw),
            cmocka_unit_test(test_bad_ioengine),
            cmocka_unit_test(test_bad_verify),
            cmocka_unit_test(test_bad_sizes),
            cmocka_unit_test(test_bad_counts),
            cmocka_unit_test(test_bad_times),
            cmocka_unit_test(test_bad_bool),
            cmocka_unit_test(test_bad_strings),
            cmocka_unit_test(test_error_buffer),
            cmocka_unit_test(test_validate_size_needed),
            cmocka_unit_test(test_validate_block_sizes),
            cmocka_unit_test(test_validate_direct),
            cmocka_unit_test(test_validate_depth),
            cmocka_unit_test(test_validate_contradictions),
            cmocka_unit_test(test_validate_fields),
            cmocka_unit_test(test_derived),
            cmocka_unit_test(test_workloads),
            cmocka_unit_test(test_help),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
