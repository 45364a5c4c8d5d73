/* Tests for core_num_parse / core_num_format: the grammar and its flags,
 * correct rounding, overflow and subnormals, prefixes, and the round trip.
 * Run as `test_core_num` in the C locale and as `test_core_num de` after
 * setlocale(LC_ALL, "de_DE.UTF-8"), where printf writes "1,5" and strtod
 * stops at a '.': every case must give the same answer there. The second run
 * exits 77 (skipped) only when that locale cannot be set on this machine. */
#include "core/core.h"

#include <float.h>
#include <locale.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

static double parse_ok(const char *s, unsigned flags)
{
    double v = -12345;
    struct core_err e = {0};
    int rc = core_num_parse(s, strlen(s), flags, &v, NULL, &e);
    if (rc != 0)
        fail_msg("\"%s\" refused: %s", s, e.msg);
    return v;
}

static void parse_bad(const char *s, unsigned flags)
{
    double v;
    struct core_err e = {0};
    if (core_num_parse(s, strlen(s), flags, &v, NULL, &e) != CORE_ERR_INVALID)
        fail_msg("\"%s\" accepted as %.17g", s, v);
    assert_int_equal(e.code, CORE_ERR_INVALID);
    assert_true(e.msg[0] != '\0');
}

static void test_decimal(void **state)
{
    (void)state;
    assert_true(parse_ok("2.5", 0) == 2.5);
    assert_true(parse_ok("-0.5", 0) == -0.5);
    assert_true(parse_ok("+3", 0) == 3);
    assert_true(parse_ok(".5", 0) == 0.5);
    assert_true(parse_ok("7.", 0) == 7);
    assert_true(parse_ok("1e3", 0) == 1000);
    assert_true(parse_ok("1E-3", 0) == 0.001);
    assert_true(parse_ok("2.5e+2", 0) == 250);
    assert_true(parse_ok("0", 0) == 0);
    assert_true(parse_ok("000123", 0) == 123);
    assert_true(parse_ok("0.1", 0) == 0.1);
    double z = parse_ok("-0", 0);
    assert_true(z == 0 && signbit(z));
}

static void test_refused(void **state)
{
    (void)state;
    static const char *const bad[] = {"",   " ",   ".",     "e3", "1,5",   "1.5.2", "--1", "+-1",
                                      "1e", "1e+", "1.5x",  "x1", "0x10",  "inf",   "nan", "-inf",
                                      "1 ", " 1",  "1_000", "١",  "1e3.5", "+",     "-.",  "0x1p3"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        parse_bad(bad[i], 0);
    /* a NUL inside the span is not skipped over */
    double v;
    assert_int_equal(core_num_parse("1\0002", 3, 0, &v, NULL, NULL), CORE_ERR_INVALID);
}

static void test_blanks(void **state)
{
    (void)state;
    assert_true(parse_ok(" 2.5 ", CORE_NUM_BLANKS) == 2.5);
    assert_true(parse_ok("\t\n-4e1\r\n", CORE_NUM_BLANKS) == -40);
    parse_bad(" 2.5", 0);
    parse_bad("2.5 ", 0);
    parse_bad("   ", CORE_NUM_BLANKS);
    parse_bad("2 5", CORE_NUM_BLANKS);
    parse_bad("- 5", CORE_NUM_BLANKS);
}

static void test_nonfinite(void **state)
{
    (void)state;
    assert_true(isinf(parse_ok("inf", CORE_NUM_NONFINITE)));
    double v = parse_ok("-Infinity", CORE_NUM_NONFINITE);
    assert_true(isinf(v) && v < 0);
    assert_true(isnan(parse_ok("NaN", CORE_NUM_NONFINITE)));
    assert_true(isnan(parse_ok(" nan ", CORE_NUM_NONFINITE | CORE_NUM_BLANKS)));
    parse_bad("infinit", CORE_NUM_NONFINITE);
    parse_bad("nan(1)", CORE_NUM_NONFINITE);
    parse_bad("in", CORE_NUM_NONFINITE);
}

static void test_hex(void **state)
{
    (void)state;
    assert_true(parse_ok("0x10", CORE_NUM_HEX) == 16);
    assert_true(parse_ok("0x1.8p1", CORE_NUM_HEX) == 3);
    assert_true(parse_ok("-0X.8P-1", CORE_NUM_HEX) == -0.25);
    assert_true(parse_ok("0x1P+4", CORE_NUM_HEX) == 16);
    assert_true(parse_ok("12", CORE_NUM_HEX) == 12);
    parse_bad("0x", CORE_NUM_HEX);
    parse_bad("0xg", CORE_NUM_HEX);
    parse_bad("0x1p", CORE_NUM_HEX);
    parse_bad("0x1e3p", CORE_NUM_HEX);
    /* the prefix reading of "0x" is 0 followed by "x", as strtod has it */
    double v;
    size_t used;
    assert_int_equal(core_num_parse("0xz", 3, CORE_NUM_HEX, &v, &used, NULL), 0);
    assert_true(v == 0 && used == 1);
    assert_int_equal(core_num_parse("0x1p3", 5, 0, &v, &used, NULL), 0);
    assert_true(v == 0 && used == 1);
}

static void test_overflow(void **state)
{
    (void)state;
    double v = 0;
    struct core_err e = {0};
    assert_int_equal(core_num_parse("1e999", 5, 0, &v, NULL, &e), CORE_ERR_INVALID);
    assert_true(isinf(v) && v > 0);
    assert_non_null(strstr(e.msg, "too large"));
    assert_int_equal(core_num_parse("-1e999", 6, 0, &v, NULL, &e), CORE_ERR_INVALID);
    assert_true(isinf(v) && v < 0);
    assert_int_equal(core_num_parse("0x1p99999", 9, CORE_NUM_HEX, &v, NULL, &e), CORE_ERR_INVALID);
    assert_true(isinf(v));
    /* the largest double, and the first text that rounds past it */
    assert_true(parse_ok("1.7976931348623157e308", 0) == DBL_MAX);
    parse_bad("1.7976931348623159e308", 0);
    /* an infinity the caller asked for is not an overflow */
    assert_true(isinf(parse_ok("inf", CORE_NUM_NONFINITE)));
}

static void test_subnormal(void **state)
{
    (void)state;
    double tiny = parse_ok("4.9406564584124654e-324", 0);
    assert_true(tiny > 0 && tiny == nextafter(0.0, 1.0));
    /* just above half the smallest subnormal rounds up to it; below, to 0 */
    assert_true(parse_ok("2.4703282292062328e-324", 0) == tiny);
    assert_true(parse_ok("2e-324", 0) == 0);
    assert_true(parse_ok("1e-999", 0) == 0);
    double nz = parse_ok("-1e-999", 0);
    assert_true(nz == 0 && signbit(nz));
    assert_true(parse_ok("2.2250738585072014e-308", 0) == DBL_MIN);
    assert_true(fpclassify(parse_ok("1e-310", 0)) == FP_SUBNORMAL);
}

/* Inputs a digit-by-digit accumulation gets wrong: exact halfway cases that
 * must tie to even, one digit deep past the halfway point, and the famous
 * 2.2250738585072011e-308 (the largest subnormal's neighbourhood). */
static void test_correct_rounding(void **state)
{
    (void)state;
    /* 1 + 2^-53 is halfway between 1 and 1 + 2^-52: ties to even (1) */
    assert_true(parse_ok("1.00000000000000011102230246251565404236316680908203125", 0) == 1.0);
    assert_true(parse_ok("1.00000000000000011102230246251565404236316680908203126", 0) ==
                1.0 + DBL_EPSILON);
    /* 2^53 + 1 ties to 2^53; a tail far to the right tips it up */
    assert_true(parse_ok("9007199254740993", 0) == 9007199254740992.0);
    assert_true(parse_ok("9007199254740993.0000000000000000000001", 0) == 9007199254740994.0);
    assert_true(parse_ok("2.2250738585072011e-308", 0) == nextafter(DBL_MIN, 0));
    assert_true(parse_ok("0.3", 0) == 0.3);
    assert_true(parse_ok("123456789012345678901234567890", 0) == 1.2345678901234568e29);
    /* longer than the parser's stack buffer: 1 followed by 300 zeros, e-300 */
    char big[400];
    big[0] = '1';
    memset(big + 1, '0', 300);
    snprintf(big + 301, sizeof big - 301, "e-300");
    assert_true(parse_ok(big, 0) == 1.0);
}

static void test_prefix(void **state)
{
    (void)state;
    double v;
    size_t used;
    assert_int_equal(core_num_parse("2.5Gbps", 7, 0, &v, &used, NULL), 0);
    assert_true(v == 2.5 && used == 3);
    assert_int_equal(core_num_parse("1e5x", 4, 0, &v, &used, NULL), 0);
    assert_true(v == 1e5 && used == 3);
    assert_int_equal(core_num_parse("1ebps", 5, 0, &v, &used, NULL), 0);
    assert_true(v == 1 && used == 1);
    assert_int_equal(core_num_parse("1.5.2", 5, 0, &v, &used, NULL), 0);
    assert_true(v == 1.5 && used == 3);
    assert_int_equal(core_num_parse("  3 ms", 6, CORE_NUM_BLANKS, &v, &used, NULL), 0);
    assert_true(v == 3 && used == 3);
    assert_int_equal(core_num_parse("Gbps", 4, 0, &v, &used, NULL), CORE_ERR_INVALID);
    assert_true(used == 0);
    /* the span ends where n says, NUL or not */
    assert_int_equal(core_num_parse("2.53", 3, 0, &v, NULL, NULL), 0);
    assert_true(v == 2.5);
}

static const char *fmt(double v, int sig)
{
    static char buf[64];
    core_num_format(buf, sizeof buf, v, sig);
    return buf;
}

static void test_format(void **state)
{
    (void)state;
    assert_string_equal(fmt(2.5, 0), "2.5");
    assert_string_equal(fmt(0.1, 0), "0.1");
    assert_string_equal(fmt(1.0 / 3, 0), "0.3333333333333333");
    assert_string_equal(fmt(1e9, 0), "1e+09");
    assert_string_equal(fmt(-0.0, 0), "-0");
    assert_string_equal(fmt(123456789, 0), "123456789");
    assert_string_equal(fmt(2.5, 6), "2.5");
    assert_string_equal(fmt(1.0 / 3, 6), "0.333333");
    assert_string_equal(fmt(0.30000000000000004, 12), "0.3");
    assert_string_equal(fmt(1.0 / 3, 40), "0.33333333333333331"); /* 17 at most */
    assert_string_equal(fmt(INFINITY, 0), "inf");
    assert_string_equal(fmt(-INFINITY, 3), "-inf");
    assert_string_equal(fmt(NAN, 0), "nan");
    char small[4];
    assert_int_equal(core_num_format(small, sizeof small, 2.5e-7, 0), 7); /* "2.5e-07" */
    assert_string_equal(small, "2.5");
}

/* Shortest formatting reads back as the same double, for doubles spread
 * over every exponent (bit patterns from a fixed generator). */
static void test_round_trip(void **state)
{
    (void)state;
    uint64_t x = 0x9e3779b97f4a7c15ULL;
    for (int i = 0; i < 20000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        double v;
        memcpy(&v, &x, sizeof v);
        if (!isfinite(v))
            continue;
        char buf[40];
        core_num_format(buf, sizeof buf, v, 0);
        double back;
        if (core_num_parse(buf, strlen(buf), 0, &back, NULL, NULL) != 0 ||
            memcmp(&back, &v, sizeof v) != 0)
            fail_msg("%a formatted as \"%s\" did not read back", v, buf);
    }
}

/* Under the comma locale the helpers must not have switched the thread's
 * locale for good: printf still writes "1,5" after they ran. */
static void test_locale_untouched(void **state)
{
    (void)state;
    char before[16], after[16];
    snprintf(before, sizeof before, "%.1f", 1.5);
    assert_true(parse_ok("2.5", 0) == 2.5);
    assert_string_equal(fmt(2.5, 0), "2.5");
    snprintf(after, sizeof after, "%.1f", 1.5);
    assert_string_equal(before, after);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "de") == 0) {
        if (!setlocale(LC_ALL, "de_DE.UTF-8")) {
            printf("skipped: the de_DE.UTF-8 locale is not installed (scripts/setup.sh "
                   "generates it; as root: locale-gen after enabling it in /etc/locale.gen)\n");
            return 77;
        }
        char probe[16];
        snprintf(probe, sizeof probe, "%.1f", 1.5);
        if (strcmp(probe, "1,5") != 0) {
            printf("de_DE.UTF-8 prints 1.5 as \"%s\", not \"1,5\": not a comma locale\n", probe);
            return 1;
        }
        printf("running under de_DE.UTF-8 (printf writes 1.5 as \"%s\")\n", probe);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decimal),    cmocka_unit_test(test_refused),
        cmocka_unit_test(test_blanks),     cmocka_unit_test(test_nonfinite),
        cmocka_unit_test(test_hex),        cmocka_unit_test(test_overflow),
        cmocka_unit_test(test_subnormal),  cmocka_unit_test(test_correct_rounding),
        cmocka_unit_test(test_prefix),     cmocka_unit_test(test_format),
        cmocka_unit_test(test_round_trip), cmocka_unit_test(test_locale_untouched),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
