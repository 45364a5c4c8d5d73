/*
 * test_grader_number.c — numeric answers: numbers, the expression evaluator,
 * units and conversions, refusals and their explanations, formatting, and a
 * deterministic random-input smoke test (the fuzz target's little sibling).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "cmocka_skip.h"

#include "grader/pure/grader_pure.h"

#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- helpers ------------------------------------------------------------- */

/* Parses `text` against `unit`; fails the test unless it is read as `want`
 * (within 1e-12 relative, which every exact case below also meets). */
static void check_ok(const char *text, const char *unit, double want, int line)
{
    struct grader_number r;
    bool ok = grader_number_parse(text, unit, &r);
    if (!ok || !r.ok)
        fail_msg("line %d: \"%s\" [%s] refused: %s", line, text, unit, r.why);
    double tol = 1e-12 * fmax(1.0, fabs(want));
    if (!(fabs(r.value - want) <= tol))
        fail_msg("line %d: \"%s\" [%s] = %.17g, want %.17g", line, text, unit, r.value, want);
    if (r.why[0] != '\0')
        fail_msg("line %d: \"%s\": why not empty on success: %s", line, text, r.why);
}
#define OK(text, unit, want) check_ok(text, unit, want, __LINE__)

/* Same, but the value must be exactly `want` (conversions that are one
 * correctly rounded operation). */
static void check_exact(const char *text, const char *unit, double want, int line)
{
    struct grader_number r;
    if (!grader_number_parse(text, unit, &r))
        fail_msg("line %d: \"%s\" [%s] refused: %s", line, text, unit, r.why);
    if (r.value != want)
        fail_msg("line %d: \"%s\" [%s] = %.17g, want exactly %.17g", line, text, unit, r.value,
                 want);
}
#define EXACT(text, unit, want) check_exact(text, unit, want, __LINE__)

/* Fails unless `text` is refused with a `why` containing `part`. */
static void check_bad(const char *text, const char *unit, const char *part, int line)
{
    struct grader_number r;
    bool ok = grader_number_parse(text, unit, &r);
    if (ok || r.ok)
        fail_msg("line %d: \"%s\" [%s] accepted as %.17g, want refused (%s)", line, text, unit,
                 r.value, part);
    if (r.why[0] == '\0')
        fail_msg("line %d: \"%s\": refused without a why", line, text);
    if (!strstr(r.why, part))
        fail_msg("line %d: \"%s\": why is \"%s\", want it to contain \"%s\"", line, text, r.why,
                 part);
}
#define BAD(text, unit, part) check_bad(text, unit, part, __LINE__)

/* True when s is valid UTF-8 with no control characters. */
static bool printable_utf8(const char *s)
{
    const unsigned char *u = (const unsigned char *)s;
    while (*u) {
        if (*u < 0x20 || *u == 0x7f)
            return false;
        size_t len = *u < 0x80             ? 1
                     : (*u & 0xe0) == 0xc0 ? 2
                     : (*u & 0xf0) == 0xe0 ? 3
                     : (*u & 0xf8) == 0xf0 ? 4
                                           : 0;
        if (len == 0)
            return false;
        for (size_t i = 1; i < len; i++)
            if ((u[i] & 0xc0) != 0x80)
                return false;
        u += len;
    }
    return true;
}

/* ---- numbers and expressions -------------------------------------------- */

static void test_plain_numbers(void **state)
{
    (void)state;
    OK("12", "", 12);
    OK("0", "", 0);
    OK("-3.5", "", -3.5);
    OK(".5", "", 0.5);
    OK("5.", "", 5);
    OK("-.25", "", -0.25);
    OK("6.02e23", "", 6.02e23);
    OK("1E-3", "", 1e-3);
    OK("1e+3", "", 1000);
    OK("2.5E2", "", 250);
    OK("  42  ", "", 42);
    OK("\t7\n", "", 7);
    OK("+5", "", 5);
    OK("007", "", 7);
    OK("1e-999", "", 0); /* underflow is a tiny number, not an error */
    OK("1.7976931348623157e308", "", 1.7976931348623157e308);
    OK("\xe2\x88\x92"
       "3",
       "", -3); /* U+2212 minus sign */
    OK("\xc2\xa0"
       "4\xc2\xa0",
       "", 4); /* no-break spaces around */
    OK("\xe2\x80\xaf"
       "4\xe2\x80\x89",
       "", 4); /* narrow no-break, thin space */
    EXACT("0.1", "", 0.1);
    EXACT("-0", "", 0);
    struct grader_number r;
    assert_true(grader_number_parse("-0", "", &r));
    assert_false(signbit(r.value)); /* stored answers never read "-0" */
    /* a very long but legal number */
    char digits[257];
    memset(digits, '1', 256);
    digits[256] = '\0';
    OK(digits, "", 1.1111111111111111e255);
}

static void test_operators_and_precedence(void **state)
{
    (void)state;
    OK("1+2", "", 3);
    OK("5-2", "", 3);
    OK("2*3", "", 6);
    OK("7/2", "", 3.5);
    OK("2^10", "", 1024);
    OK("2**3", "", 8);
    OK("1+2*3", "", 7);
    OK("(1+2)*3", "", 9);
    OK("2*3^2", "", 18);
    OK("2^3^2", "", 512); /* right-associative: 2^(3^2) */
    OK("(2^3)^2", "", 64);
    OK("-2^2", "", -4); /* the sign applies after the power, as in maths */
    OK("(-2)^2", "", 4);
    OK("2^-1", "", 0.5);
    OK("10-4-3", "", 3); /* left-associative */
    OK("100/10/5", "", 2);
    OK("2*-3", "", -6);
    OK("-(-1)", "", 1);
    OK("-(2+3)*2", "", -10);
    OK("3 \xe2\x88\x92 1", "", 2); /* U+2212 as a binary minus */
    OK(" 1 + 2 * ( 3 - 1 ) / 4 ", "", 2);
    OK("0^0", "", 1);
    OK("(-8)^(1/3*3)", "", -8); /* integral exponent of a negative base */
    EXACT("1/(0.2+0.8/4)", "", 2.5);
    OK("1/(0.05+0.95/16)", "", 1 / (0.05 + 0.95 / 16));
    OK("((((1))))", "", 1);
}

static void test_functions_and_constants(void **state)
{
    (void)state;
    OK("sqrt(16)", "", 4);
    OK("log(e)", "", 1); /* log is the natural logarithm */
    OK("ln(1)", "", 0);
    OK("log2(1024)", "", 10);
    OK("log10(1000)", "", 3);
    OK("exp(0)", "", 1);
    OK("exp(1)", "", exp(1));
    OK("abs(-2.5)", "", 2.5);
    OK("min(3, 1, 2)", "", 1);
    OK("max(3,1,2)", "", 3);
    OK("max(4)", "", 4);
    OK("max(1,2)^2", "", 4);
    OK("pi", "", 3.14159265358979323846);
    OK("2*pi", "", 2 * 3.14159265358979323846);
    OK("\xcf\x80", "", 3.14159265358979323846); /* π */
    OK("PI", "", 3.14159265358979323846);
    OK("e", "", 2.71828182845904523536);
    OK("e^2", "", exp(2));
    OK("SQRT(4)", "", 2);
    OK("sqrt (9)", "", 3);
    OK("log2(1/(0.2+0.8/4))", "", log2(2.5));
    OK("min(1, max(2, 3)) + abs(-1)", "", 2);
}

static void test_refusals(void **state)
{
    (void)state;
    BAD("abc", "", "could not read \"abc\" as a number");
    BAD("", "", "empty");
    BAD("   ", "", "empty");
    BAD("\xc2\xa0", "", "empty");
    BAD(NULL, "", "empty");
    BAD("1e999", "", "too large");
    BAD("-1e999", "", "too large");
    BAD("3,5", "", "3.5");
    BAD("3,5", "", "comma");
    BAD("1,000", "", "write 1000");
    BAD("1,000", "", "1.000 if you meant a decimal");
    BAD("1,000,000", "", "write 1000000, with no thousands separators");
    BAD("1234,5", "", "like 1234.5");
    BAD("0,125", "", "like 0.125"); /* a leading 0 is no thousands group */
    BAD("(3,5)", "", "3.5");
    BAD("2 * 3,5", "", "3.5");
    BAD(",5", "", "comma");
    BAD("NaN", "", "\"NaN\" is not a number you can answer with");
    BAD("nan", "", "not a number you can answer with");
    BAD("inf", "", "not a number you can answer with");
    BAD("-inf", "", "not a number you can answer with");
    BAD("Infinity", "", "not a number you can answer with");
    BAD("0x1p3", "", "hexadecimal");
    BAD("0x10", "", "hexadecimal");
    BAD("1/0", "", "division by zero");
    BAD("1/(1-1)", "", "division by zero");
    BAD("0^-1", "", "division by zero");
    BAD("2 +", "", "missing after \"+\"");
    BAD("2 ^", "", "missing after \"^\"");
    BAD("(", "", "missing after \"(\"");
    BAD("(1", "", "\")\" is missing");
    BAD("((1)", "", "\")\" is missing");
    BAD("1)", "", "no matching \"(\"");
    BAD("()", "", "missing before \")\"");
    BAD("*2", "", "missing before \"*\"");
    BAD("/2", "", "missing before \"/\"");
    BAD("--1", "", "two signs in a row");
    BAD("2--1", "", "two signs in a row");
    BAD("2+-1", "", "two signs in a row");
    BAD("+-1", "", "two signs in a row");
    BAD("- -1", "", "two signs in a row");
    BAD("1.2.3", "", "more than one decimal point");
    BAD(".", "", "point must be followed by digits");
    BAD("1e+", "", "exponent");
    BAD("2e", "", "exponent is missing");
    BAD("sqrt(-1)", "", "no real value");
    BAD("log(0)", "", "logarithm");
    BAD("ln(-2)", "", "logarithm");
    BAD("(-8)^(1/3)", "", "fractional power");
    BAD("exp(1000)", "", "too large");
    BAD("1e308*10", "", "too large");
    BAD("1e308+1e308", "", "too large");
    BAD("10^400", "", "too large");
    BAD("2 3", "", "use * to multiply");
    BAD("2(3)", "", "use * to multiply");
    BAD("2x3", "", "write multiplication with *");
    BAD("2 \xc3\x97 3", "", "write multiplication with *");
    BAD("2pi", "", "use * to multiply by a constant");
    BAD("2sqrt(4)", "", "use * before sqrt");
    BAD("sqrt 4", "", "sqrt needs brackets");
    BAD("sqrt(2,25)", "", "sqrt takes one value");
    BAD("max(1,2", "", "\")\" is missing");
    BAD("foo(2)", "", "\"foo\" is not a number, function or constant");
    BAD("2*y", "", "\"y\" is not a number, function or constant");
    BAD("2*x", "", "a number is missing before \"x\"");
    BAD("ms", "ms", "a number is missing before \"ms\"");
    BAD("%", "", "a number is missing before \"%\"");
    BAD("min", "min", "a number is missing before \"min\"");
    BAD("3 ms 4", "ms", "a unit can only be written once");
    BAD("3 ms + 4 ms", "ms", "a unit can only be written once");
    BAD("(3 ms)", "ms", "a unit can only be written once");
    BAD("2 # 3", "", "\"#\" cannot be used");
    BAD("#", "", "\"#\" cannot be used");
    BAD("1 ;", "", "\";\" cannot be used");
    BAD("ms 5", "ms", "\"ms\" is not a number, function or constant");
    BAD("five", "", "could not read \"five\" as a number");

    /* control characters and broken UTF-8 are quoted as '?' */
    struct grader_number r;
    assert_false(grader_number_parse("1 +\x01", "", &r));
    assert_true(printable_utf8(r.why));
    assert_false(grader_number_parse("\xff\xfe", "", &r));
    assert_true(printable_utf8(r.why));
    assert_non_null(strstr(r.why, "?"));
    assert_false(grader_number_parse("2 \xe2\x88", "", &r)); /* cut UTF-8 */
    assert_true(printable_utf8(r.why));
    /* long junk is quoted short */
    assert_false(
        grader_number_parse("1 abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz", "", &r));
    assert_true(printable_utf8(r.why));
    assert_non_null(strstr(r.why, "…"));
}

static void test_length_and_depth_limits(void **state)
{
    (void)state;
    char buf[400];
    /* 256 characters is fine, 257 is refused */
    memset(buf, ' ', 255);
    buf[255] = '1';
    buf[256] = '\0';
    OK(buf, "", 1);
    memset(buf, ' ', 256);
    buf[256] = '1';
    buf[257] = '\0';
    BAD(buf, "", "too long");
    /* characters, not bytes: 200 no-break spaces (400 bytes) are 200
     * characters; 500 of them (1000 bytes) are too many */
    char wide[1200];
    for (int count = 200; count <= 500; count += 300) {
        size_t o = 0;
        for (int i = 0; i < count; i++) {
            wide[o++] = '\xc2';
            wide[o++] = '\xa0';
        }
        wide[o++] = '2';
        wide[o] = '\0';
        if (count == 200)
            OK(wide, "", 2);
        else
            BAD(wide, "", "too long");
    }

    /* 64 brackets deep is fine, 65 is refused */
    for (int depth = 64; depth <= 65; depth++) {
        size_t k = 0;
        for (int i = 0; i < depth; i++)
            buf[k++] = '(';
        buf[k++] = '1';
        for (int i = 0; i < depth; i++)
            buf[k++] = ')';
        buf[k] = '\0';
        if (depth == 64)
            OK(buf, "", 1);
        else
            BAD(buf, "", "nested too deeply");
    }
    /* a long chain of powers counts too */
    size_t k = 0;
    for (int i = 0; i < 70; i++) {
        buf[k++] = '1';
        buf[k++] = '^';
    }
    buf[k++] = '1';
    buf[k] = '\0';
    BAD(buf, "", "nested too deeply");
    /* function calls count as brackets: 40 brackets and 25 calls are 65 */
    k = 0;
    for (int i = 0; i < 40; i++)
        buf[k++] = '(';
    for (int i = 0; i < 25; i++) {
        memcpy(buf + k, "ln(", 3);
        k += 3;
    }
    buf[k++] = '1';
    for (int i = 0; i < 65; i++)
        buf[k++] = ')';
    buf[k] = '\0';
    BAD(buf, "", "nested too deeply");
}

/* ---- units --------------------------------------------------------------- */

static void test_unit_table(void **state)
{
    (void)state;
    /* every spelling the contract promises */
    static const char *const spellings[] = {
        "s",       "ms",      "us",      "µs",    "μs",     "ns",     "min",    "h",     "B",
        "KB",      "MB",      "GB",      "TB",    "KiB",    "MiB",    "GiB",    "TiB",   "bits",
        "b",       "Kb",      "Mb",      "Gb",    "B/s",    "KB/s",   "MB/s",   "GB/s",  "TB/s",
        "KiB/s",   "MiB/s",   "GiB/s",   "Bps",   "KBps",   "MBps",   "GBps",   "TBps",  "bps",
        "Kbps",    "Mbps",    "Gbps",    "Tbps",  "FLOP",   "GFLOP",  "TFLOP",  "PFLOP", "FLOP/s",
        "GFLOP/s", "TFLOP/s", "PFLOP/s", "FLOPS", "GFLOPS", "TFLOPS", "PFLOPS", "x",     "X",
        "×",       "%",       "",
    };
    for (size_t i = 0; i < sizeof spellings / sizeof spellings[0]; i++)
        if (!grader_unit_find(spellings[i]))
            fail_msg("unit \"%s\" not found", spellings[i]);

    const struct grader_unit *us = grader_unit_find("us");
    assert_ptr_equal(us, grader_unit_find("µs"));
    assert_ptr_equal(us, grader_unit_find("μs"));
    assert_string_equal(us->name, "µs");
    assert_int_equal(us->dim, GRADER_DIM_TIME);
    assert_true(us->scale == 1e-6);
    assert_string_equal(grader_unit_find("x")->name, "×");
    assert_string_equal(grader_unit_find("X")->name, "×");
    assert_string_equal(grader_unit_find("")->name, "");
    assert_int_equal(grader_unit_find("")->dim, GRADER_DIM_NONE);
    assert_true(grader_unit_find("")->scale == 1);
    assert_true(grader_unit_find("%")->scale == 0.01);
    assert_true(grader_unit_find("Gbps")->scale == 1.25e8);
    assert_true(grader_unit_find("GiB")->scale == 1073741824.0);
    assert_int_equal(grader_unit_find("GB/s")->dim, GRADER_DIM_BANDWIDTH);
    assert_int_equal(grader_unit_find("TFLOPS")->dim, GRADER_DIM_FLOPS);
    assert_int_equal(grader_unit_find("PFLOP")->dim, GRADER_DIM_FLOP);
    /* case matters where it means something */
    assert_ptr_not_equal(grader_unit_find("Mb"), grader_unit_find("MB"));
    assert_true(grader_unit_find("Mb")->scale == 125000.0);
    assert_null(grader_unit_find("mb"));
    assert_null(grader_unit_find("furlong"));
    assert_null(grader_unit_find("ms "));
    assert_null(grader_unit_find(NULL));
}

static void test_unit_conversions(void **state)
{
    (void)state;
    EXACT("320 ms", "s", 0.32);
    EXACT("320ms", "s", 0.32);
    EXACT("0.32 s", "ms", 320);
    EXACT("1 Gbps", "GB/s", 0.125);
    EXACT("4 MiB", "B", 4194304);
    EXACT("56%", "", 0.56);
    EXACT("56%", "%", 56);
    EXACT("56 %", "%", 56);
    EXACT("2.5x", "x", 2.5);
    EXACT("2.5 ×", "x", 2.5);
    EXACT("2.5X", "×", 2.5);
    EXACT("2.5x", "", 2.5);
    /* percent against a ratio question, and a ratio against a percent one */
    EXACT("250%", "x", 2.5);
    EXACT("2.5x", "%", 250);
    /* a bare number is already in the expected unit */
    EXACT("320", "ms", 320);
    EXACT("56", "%", 56);
    EXACT("2.5", "x", 2.5);
    EXACT("5 us", "ns", 5000);
    EXACT("5 µs", "ns", 5000);
    EXACT("5 μs", "ns", 5000);
    EXACT("1.5 min", "s", 90);
    EXACT("2 h", "min", 120);
    EXACT("4.8 TB/s", "GB/s", 4800);
    EXACT("900 GB / s", "GB/s", 900);
    EXACT("900 GBps", "GB/s", 900);
    EXACT("8 bits", "B", 1);
    EXACT("1 Gb", "MB", 125);
    EXACT("100 Mbps", "MB/s", 12.5);
    EXACT("10 TFLOPS", "GFLOP/s", 10000);
    EXACT("2 GFLOP", "FLOP", 2e9);
    EXACT("1 KiB", "KB", 1.024);
    EXACT("1 GiB/s", "MiB/s", 1024);
    EXACT("1/(0.2+0.8/4) x", "x", 2.5);
    EXACT("(1+2)*3 ms", "s", 0.009);
    EXACT("3 seconds", "ms", 3000);

    struct grader_number r;
    assert_true(grader_number_parse("320 ms", "s", &r));
    assert_string_equal(r.unit, "ms");
    assert_true(r.base == 0.32);
    assert_true(grader_number_parse("1 Gbps", "GB/s", &r));
    assert_string_equal(r.unit, "Gbps");
    assert_true(r.base == 1.25e8);
    assert_true(grader_number_parse("3 us", "ms", &r));
    assert_string_equal(r.unit, "µs"); /* canonical spelling */
    assert_true(grader_number_parse("2.5 x", "", &r));
    assert_string_equal(r.unit, "×");
    assert_true(grader_number_parse("320", "ms", &r));
    assert_string_equal(r.unit, ""); /* none written */
    assert_true(r.value == 320);
    assert_true(r.base == 0.32);
    assert_true(grader_number_parse("56%", "", &r));
    assert_string_equal(r.unit, "%");
    assert_true(r.base == 0.56);

    /* a unit of another dimension, with both named for the student */
    BAD("3 MB", "ms", "expected a time such as 320 ms, but MB is a size");
    BAD("320 ms", "", "expected a plain number such as 2.5, but ms is a time");
    BAD("5%", "ms", "but % is a ratio");
    BAD("3 GB/s", "GB", "but GB/s is a bandwidth");
    BAD("3 ms", "%", "expected a percentage such as 56%");
    BAD("3 ms", "x", "expected a ratio such as 2.5x");
    BAD("3 TFLOP", "TFLOP/s", "but TFLOP is an operation count");
    BAD("3 TFLOP/s", "TFLOP", "but TFLOP/s is a compute rate");
    /* unknown units, with suggestions when only the case is wrong */
    BAD("3 furlongs", "s", "\"furlongs\" is not a unit I know");
    BAD("3 gb", "GB", "did you mean GB or Gb?");
    BAD("3 GFLOPs", "GFLOP/s", "did you mean GFLOP/s? (case matters)");
    BAD("3 gb / s", "GB/s", "did you mean GB/s or Gbps?");
    BAD("3 m", "ms", "\"m\" is not a unit I know");
    BAD("3 ms please", "ms", "not a unit I know");
    BAD("3 %%", "%", "not a unit I know");
    BAD("3 averyveryveryverylongunitname", "s", "not a unit I know");
    /* converted overflow */
    BAD("1e300 PB", "B", "too large");
    /* the question's own unit unknown: a pack error, said as such */
    BAD("3", "parsecs", "pack error");
}

/* ---- formatting ---------------------------------------------------------- */

static void check_format(double v, int sig, const char *want, int line)
{
    char buf[64];
    grader_number_format(v, sig, buf, sizeof buf);
    if (strcmp(buf, want) != 0)
        fail_msg("line %d: format(%.17g, %d) = \"%s\", want \"%s\"", line, v, sig, buf, want);
}
#define FMT(v, sig, want) check_format(v, sig, want, __LINE__)

static void test_format(void **state)
{
    (void)state;
    FMT(2.5, 4, "2.5");
    FMT(0.32, 4, "0.32");
    FMT(2.475, 4, "2.475");
    FMT(-2.475, 4, "-2.475");
    FMT(0, 4, "0");
    FMT(-0.0, 4, "0");
    FMT(1.0 / 3, 4, "0.3333");
    FMT(2.0 / 3, 2, "0.67");
    FMT(9.9999, 3, "10");
    FMT(123456789, 4, "123500000");
    FMT(999999999, 9, "999999999");
    FMT(999999999.7, 9, "1e9");
    FMT(1e9, 4, "1e9");
    FMT(6.02e23, 3, "6.02e23");
    FMT(1.5e-5, 3, "1.5e-5");
    FMT(1e-4, 3, "0.0001");
    FMT(0.00012345, 3, "0.000123");
    FMT(4194304, 7, "4194304");
    FMT(4194304, 4, "4194000");
    FMT(100, 1, "100");
    FMT(1234.5, 0, "1000"); /* sig below 1 counts as 1 */
    FMT(0.1, 17, "0.10000000000000001");
    FMT(-1e-300, 2, "-1e-300");
    FMT(NAN, 4, "nan");
    FMT(INFINITY, 4, "inf");
    FMT(-INFINITY, 4, "-inf");
    char small[4];
    assert_ptr_equal(grader_number_format(123456.0, 6, small, sizeof small), small);
    assert_string_equal(small, "123"); /* truncated, still terminated */
}

/* Formatting with 17 figures and parsing back gives the same double, for
 * doubles spread over the whole range: the two halves agree exactly. */
static void test_format_parse_round_trip(void **state)
{
    (void)state;
    uint64_t x = 12345;
    for (int i = 0; i < 20000; i++) {
        x += 0x9e3779b97f4a7c15ULL; /* splitmix64 */
        uint64_t z = x;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        z ^= z >> 31;
        double v;
        memcpy(&v, &z, sizeof v);
        if (!isfinite(v))
            continue;
        char buf[64];
        grader_number_format(v, 17, buf, sizeof buf);
        struct grader_number r;
        if (!grader_number_parse(buf, "", &r))
            fail_msg("\"%s\" (from %a) refused: %s", buf, v, r.why);
        if (r.value != v && !(v == 0 && r.value == 0))
            fail_msg("\"%s\" read as %a, formatted from %a", buf, r.value, v);
    }
}

/* Under a decimal-comma locale (as a curses front end may set), numbers are
 * still read and written with a point. Skipped where no such locale exists. */
static void test_decimal_comma_locale(void **state)
{
    (void)state;
    static const char *const names[] = {"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8",
                                        "fr_FR.utf8",  "de_DE",      "fr_FR"};
    const char *got = NULL;
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !got; i++)
        got = setlocale(LC_NUMERIC, names[i]);
    if (!got)
        WB_SKIP("no decimal-comma locale installed (de_DE.UTF-8 or fr_FR.UTF-8)");
    char name[64], probe[16];
    snprintf(name, sizeof name, "%s", got); /* got dies with the next setlocale */
    snprintf(probe, sizeof probe, "%.1f", 1.5);
    OK("3.5", "", 3.5);
    EXACT("1/(0.2+0.8/4)", "", 2.5);
    EXACT("0.32 s", "ms", 320);
    BAD("3,5", "", "3.5");
    char buf[64];
    assert_string_equal(grader_number_format(2.475, 4, buf, sizeof buf), "2.475");
    assert_string_equal(grader_number_format(6.02e23, 3, buf, sizeof buf), "6.02e23");
    setlocale(LC_NUMERIC, "C");
    print_message("checked under %s (1.5 prints as \"%s\")\n", name, probe);
}

/* ---- integer division, rounding, and the C reading of '/' ---------------- */

/* Reads text; fails unless it is read as `want` with real division and as
 * `c_want` with C's integer division (c_differs exactly when they differ). */
static void check_c(const char *text, const char *unit, double want, double c_want, int line)
{
    struct grader_number r;
    if (!grader_number_parse(text, unit, &r))
        fail_msg("line %d: \"%s\" refused: %s", line, text, r.why);
    if (r.value != want || r.c_value != c_want || r.c_differs != (want != c_want))
        fail_msg("line %d: \"%s\" = %.17g / C %.17g (differs %d), want %.17g / C %.17g", line, text,
                 r.value, r.c_value, r.c_differs, want, c_want);
}
#define CREAD(text, unit, want, c_want) check_c(text, unit, want, c_want, __LINE__)

static void test_integer_division(void **state)
{
    (void)state;
    /* // is floor division, as in Python and Lua, exact on whole numbers */
    EXACT("(1000+255)//256", "", 4);
    EXACT("(1000 + 255) // 256", "", 4);
    EXACT("7//2", "", 3);
    EXACT("-7//2", "", -4);
    EXACT("7//-2", "", -4);
    EXACT("7.5//2", "", 3);
    EXACT("2//0.5", "", 4);
    EXACT("9007199254740991//3", "", 3002399751580330);
    EXACT("2*7//2", "", 7); /* left to right, like * and / */
    BAD("1//0", "", "division by zero");
    BAD("4///2", "", "a number is missing before \"/\"");
    /* ceil, floor, round, log2 */
    EXACT("ceil(1000/256)", "", 4);
    EXACT("floor(1000/256)", "", 3);
    EXACT("ceil(-1.5)", "", -1);
    EXACT("floor(-1.5)", "", -2);
    EXACT("round(2.5)", "", 3);
    EXACT("round(-2.5)", "", -3);
    EXACT("round(2.4999)", "", 2);
    EXACT("log2(1024)", "", 10);
    EXACT("CEIL(3.2)", "", 4);
    BAD("ceil 3.2", "", "ceil needs brackets");
    BAD("ceil(1, 2)", "", "ceil takes one value");
    BAD("trunc(2.5)", "", "functions: sqrt, log, log2, exp, abs, min, max, ceil, floor, round");
    /* the C reading: '/' between whole numbers truncates */
    CREAD("(1000+255)/256", "", 1255.0 / 256, 4);
    CREAD("(1000 + 255) / 256", "", 1255.0 / 256, 4);
    CREAD("1000/256*2", "", 1000.0 / 256 * 2, 6);
    CREAD("-7/2", "", -3.5, -3); /* C truncates toward zero */
    CREAD("8/2", "", 4, 4);      /* a whole quotient: the same either way */
    CREAD("1/(0.2+0.8/4)", "", 2.5, 2.5);
    CREAD("7.5/2", "", 3.75, 3.75);
    CREAD("ceil(1000/256)", "", 4, 3); /* C's ceil of an int quotient is a classic slip */
    CREAD("1/2 s", "ms", 500, 0);
    /* a C reading that divides by zero is no C reading; the answer stands */
    CREAD("3/(1/2)", "", 6, 6);
}

static void test_rounding_note(void **state)
{
    (void)state;
    struct grader_tol tol;
    grader_tol_default(&tol);
    struct grader_number num;
    char fb[320];
#define NOTE(text, ref)                                                                            \
    (grader_number_parse(text, "", &num) &&                                                        \
     grader_tol_rounding_note(&tol, ref, text, &num, "", fb, sizeof fb))
    /* the course's (n + 255) / 256 typed literally: C's reading is right */
    assert_true(NOTE("(1000+255)/256", 4));
    assert_non_null(strstr(fb, "\"(1000+255)/256\" is 4.90234 with real division"));
    assert_non_null(strstr(fb, "C's integer division would truncate it to a whole number"));
    assert_null(strstr(fb, "give 4")); /* the reference is not given away */
    assert_non_null(strstr(fb, "//"));
    assert_non_null(strstr(fb, "ceil("));
    /* n/256 when a count of blocks is rounded up */
    assert_true(NOTE("1000/256", 4));
    assert_non_null(strstr(fb, "3.90625 is not a whole number"));
    assert_non_null(strstr(fb, "round it up (ceil(3.90625))"));
    assert_null(strstr(fb, "= 4"));
    assert_true(NOTE("4.9", 4));
    assert_non_null(strstr(fb, "round it down (floor(4.9))"));
    assert_true(NOTE("4.9", 5));
    assert_non_null(strstr(fb, "round it up"));
    /* not rounding: a whole number off by one, far off, or a fractional
     * reference; and a right answer needs no note */
    fb[0] = '\0';
    assert_false(NOTE("3", 4));
    assert_false(NOTE("3.2", 5));
    assert_false(NOTE("4.4", 4.5));
    assert_false(NOTE("4", 4));
    assert_false(NOTE("4.01", 4)); /* inside the 1% tolerance */
    assert_string_equal(fb, "");
    /* with a unit: the numbers carry it */
    assert_true(grader_number_parse("2.5", "ms", &num));
    assert_true(grader_tol_rounding_note(&tol, 3, "2.5", &num, "ms", fb, sizeof fb));
    assert_non_null(strstr(fb, "2.5 ms is not a whole number"));
    /* a long or non-ASCII expression is not quoted back */
    assert_true(NOTE("(1000+255)/256 + 0*1000000000000000000000000000000000000000000000000000", 4));
    assert_non_null(strstr(fb, "your expression is 4.90234"));
#undef NOTE
}

/* ---- smoke --------------------------------------------------------------- */

static uint64_t smoke_next(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* A small random expression from the grammar, mostly valid, into t. */
static void smoke_expr(uint64_t *seed, char *t, size_t *len, size_t cap, int depth)
{
    static const char *const nums[] = {"0",    "1",  "2",  "0.5",   ".25", "3e2",
                                       "1e-3", "42", "7.", "1e308", "pi",  "e"};
    static const char *const ops[] = {"+", "-", "*", "/", "^", " + ", " * ", "**", "//"};
    static const char *const fns[] = {"sqrt(", "log(",   "exp(",  "abs(",   "min(",  "max(",
                                      "log2(", "log10(", "ceil(", "floor(", "round("};
    char piece[16];
    unsigned pick = (unsigned)(smoke_next(seed) % (depth > 4 ? 2 : 7));
    const char *out = piece;
    switch (pick) {
    case 0:
    case 1:
        out = nums[smoke_next(seed) % (sizeof nums / sizeof nums[0])];
        break;
    case 2:
        out = "-";
        break;
    case 3:
        out = "(";
        break;
    case 4:
        out = fns[smoke_next(seed) % (sizeof fns / sizeof fns[0])];
        break;
    default:
        out = NULL;
        break;
    }
    if (out && *len + strlen(out) < cap) {
        memcpy(t + *len, out, strlen(out));
        *len += strlen(out);
    }
    if (pick == 2 || pick == 3 || pick == 4)
        smoke_expr(seed, t, len, cap, depth + 1);
    if ((pick == 3 || pick == 4) && *len + 1 < cap)
        t[(*len)++] = ')';
    if (pick >= 5) {
        smoke_expr(seed, t, len, cap, depth + 1);
        const char *op = ops[smoke_next(seed) % (sizeof ops / sizeof ops[0])];
        if (*len + strlen(op) < cap) {
            memcpy(t + *len, op, strlen(op));
            *len += strlen(op);
        }
        smoke_expr(seed, t, len, cap, depth + 1);
    }
}

/* Reads text and checks the invariants every answer must keep. */
static bool smoke_check(const char *text, const char *unit)
{
    struct grader_number a, b;
    bool ok = grader_number_parse(text, unit, &a);
    assert_int_equal(ok, a.ok);
    assert_true(memchr(a.why, '\0', sizeof a.why) != NULL);
    assert_true(memchr(a.unit, '\0', sizeof a.unit) != NULL);
    if (ok) {
        if (!isfinite(a.value) || !isfinite(a.base) || !isfinite(a.c_value))
            fail_msg("\"%s\" [%s] gave a non-finite value", text, unit);
        if (!a.c_differs && a.c_value != a.value)
            fail_msg("\"%s\" [%s]: c_value %.17g without c_differs", text, unit, a.c_value);
        assert_true(a.why[0] == '\0');
    } else if (a.why[0] == '\0' || !printable_utf8(a.why)) {
        fail_msg("\"%s\" [%s]: bad why \"%s\"", text, unit, a.why);
    }
    assert_int_equal(grader_number_parse(text, unit, &b), ok);
    assert_memory_equal(&a, &b, sizeof a);
    return ok;
}

/* 200,000 strings from a fixed-seed generator: half glued from pieces that
 * students (and cats on keyboards) type, half drawn from the grammar with a
 * unit. No crash, ok results finite, refusals explained in printable text,
 * the same answer twice reads the same. */
static void test_random_smoke(void **state)
{
    (void)state;
    static const char *const pieces[] = {
        "0",
        "1",
        "2",
        "5",
        "9",
        "42",
        "0.5",
        ".",
        "e",
        "E",
        "e-",
        "1e308",
        "1e-308",
        "+",
        "-",
        "*",
        "/",
        "^",
        "**",
        "(",
        ")",
        "(",
        ")",
        " ",
        " ",
        ",",
        "x",
        "X",
        "×",
        "%",
        "ms",
        "s",
        "us",
        "µs",
        "μs",
        "ns",
        "min",
        "GB/s",
        "Gbps",
        "MiB",
        "TFLOP/s",
        "B",
        "sqrt(",
        "log(",
        "min(",
        "max(",
        "exp(",
        "abs(",
        "pi",
        "e",
        "nan",
        "inf",
        "0x",
        "\xe2\x88\x92",
        "\xc2\xa0",
        "\xff",
        "\xc2",
        "\xe2\x88",
        "\x01",
        "\t",
        "\xcf\x80",
        "a",
        "z",
        "#",
        ";",
        "..",
        "=",
        "'",
        "\"",
        "\\",
        "1/(0.2+0.8/4)",
    };
    static const char *const units[] = {"", "s", "ms", "x", "%", "GB/s", "B", "TFLOP/s"};
    static const char *const written[] = {"",   "",      " ms",   "s",   " %",      "x",
                                          " ×", " GB/s", " Gbps", "MiB", " TFLOPS", " furlong"};
    const size_t np = sizeof pieces / sizeof pieces[0];
    uint64_t seed = 20260101;
    size_t n_ok[2] = {0, 0};
    char text[512];
    for (int iter = 0; iter < 200000; iter++) {
        size_t len = 0;
        int kind = iter & 1;
        if (kind == 0) {
            int count = (int)(smoke_next(&seed) % 16);
            for (int k = 0; k < count; k++) {
                const char *pc = pieces[smoke_next(&seed) % np];
                size_t pl = strlen(pc);
                if (len + pl >= sizeof text)
                    break;
                memcpy(text + len, pc, pl);
                len += pl;
            }
        } else {
            smoke_expr(&seed, text, &len, 300, 0);
            const char *w = written[smoke_next(&seed) % (sizeof written / sizeof written[0])];
            memcpy(text + len, w, strlen(w));
            len += strlen(w);
        }
        text[len] = '\0';
        const char *unit = units[smoke_next(&seed) % (sizeof units / sizeof units[0])];
        n_ok[kind] += smoke_check(text, unit);
    }
    /* the generator must reach the success paths, not only refusals */
    print_message("smoke: %zu of 100000 pieces and %zu of 100000 expressions accepted\n", n_ok[0],
                  n_ok[1]);
    assert_true(n_ok[0] > 1000);
    assert_true(n_ok[1] > 20000);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain_numbers),
        cmocka_unit_test(test_operators_and_precedence),
        cmocka_unit_test(test_functions_and_constants),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_length_and_depth_limits),
        cmocka_unit_test(test_unit_table),
        cmocka_unit_test(test_unit_conversions),
        cmocka_unit_test(test_format),
        cmocka_unit_test(test_format_parse_round_trip),
        cmocka_unit_test(test_integer_division),
        cmocka_unit_test(test_rounding_note),
        cmocka_unit_test(test_random_smoke),
        cmocka_unit_test(test_decimal_comma_locale),
    };
    return wb_run_tests("test_grader_number", tests, sizeof tests / sizeof tests[0], argc, argv);
}
