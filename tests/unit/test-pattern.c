/* Tests for fio's pattern syntax (pattern.c): the bytes each token gives, %o, fill and match. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "pattern.h"

static void expect(const char *in, const char *hex)
{
        pattern_t p;
        char err[256], got[2 * PATTERN_MAX + 1] = "";

        if (pattern_parse("verify_pattern", in, true, &p, err, sizeof(err)) < 0)
                fail_msg("%s: %s", in, err);
        for (size_t i = 0; i < p.len; i++)
                snprintf(got + 2 * i, 3, "%02x", p.bytes[i]);
        if (strcmp(got, hex) != 0)
                fail_msg("%s: %s, want %s", in, got, hex);
}

/* fio's documented examples (lib/pattern.c) give the same bytes. */
static void test_tokens(void **state)
{
        (void)state;
        expect("\"abcd\"", "61626364");
        expect("-1024", "00fcffff");
        expect("66", "42");
        expect("0xFF0X1", "ff01");
        expect("%o", "0000000000000000");
        expect("\"123\"0xFFeeCC", "313233ffeecc");
        expect("0xdeadbeef", "deadbeef");
        expect("0xabc", "0abc");
        expect("0", "00");
        expect("\"abcd\"-12", "61626364f4ffffff");
}

static void test_errors(void **state)
{
        pattern_t p;
        char err[256];

        (void)state;
        assert_int_equal(pattern_parse("buffer_pattern", "%o", false, &p, err, sizeof(err)),
                         -EINVAL);
        assert_non_null(strstr(err, "verify_pattern only"));
        assert_int_equal(pattern_parse("buffer_pattern", "'/etc/passwd'", false, &p, err,
                                       sizeof(err)),
                         -EOPNOTSUPP);
        assert_int_equal(pattern_parse("p", "\"open", true, &p, err, sizeof(err)), -EINVAL);
        assert_int_equal(pattern_parse("p", "zz", true, &p, err, sizeof(err)), -EINVAL);
        assert_int_equal(pattern_parse("p", "0x", true, &p, err, sizeof(err)), -EINVAL);
        assert_int_equal(pattern_parse("p", "99999999999", true, &p, err, sizeof(err)), -EINVAL);
        assert_int_equal(pattern_parse("p", "", true, &p, err, sizeof(err)), -EINVAL);
}

/* A fill repeats the pattern with the offset pasted into every repetition; a match finds the
 * first byte that differs. */
static void test_fill_match(void **state)
{
        pattern_t p;
        char err[256];
        uint8_t buf[1000];
        size_t bad = 0;

        (void)state;
        assert_int_equal(pattern_parse("v", "0xaa%o", true, &p, err, sizeof(err)), 0);
        pattern_fill(&p, buf, sizeof(buf), 0x0102030405060708ULL);
        for (size_t i = 0; i < sizeof(buf); i += 9) {
                assert_int_equal(buf[i], 0xaa);
                if (i + 8 < sizeof(buf))
                        assert_int_equal(buf[i + 1], 0x08);
        }
        assert_true(pattern_matches(&p, buf, sizeof(buf), 0x0102030405060708ULL, &bad));
        assert_false(pattern_matches(&p, buf, sizeof(buf), 4096, &bad));
        assert_int_equal(bad, 1);
        buf[500] ^= 1;
        assert_false(pattern_matches(&p, buf, sizeof(buf), 0x0102030405060708ULL, &bad));
        assert_int_equal(bad, 500);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_tokens),
            cmocka_unit_test(test_errors),
            cmocka_unit_test(test_fill_match),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
