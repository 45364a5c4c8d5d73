/*
 * test_grader_tol.c — tolerance (relative, absolute, significant figures, a
 * zero reference), the accepted interval and its text, and partial-credit
 * bands.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "grader/pure/grader_pure.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static struct grader_tol tol(double rel, double abs_, int sig)
{
    struct grader_tol t = {.rel = rel, .abs = abs_, .sig = sig};
    return t;
}

#define YES(t, ref, v)                                                                             \
    do {                                                                                           \
        struct grader_tol t_ = (t);                                                                \
        if (!grader_tol_accepts(&t_, (ref), (v)))                                                  \
            fail_msg("line %d: %.17g refused against %.17g", __LINE__, (double)(v),                \
                     (double)(ref));                                                               \
    } while (0)
#define NO(t, ref, v)                                                                              \
    do {                                                                                           \
        struct grader_tol t_ = (t);                                                                \
        if (grader_tol_accepts(&t_, (ref), (v)))                                                   \
            fail_msg("line %d: %.17g accepted against %.17g", __LINE__, (double)(v),               \
                     (double)(ref));                                                               \
    } while (0)

static void check_interval(struct grader_tol t, double ref, double lo, double hi, int line)
{
    double l, h;
    grader_tol_interval(&t, ref, &l, &h);
    double eps = 1e-12 * fmax(fabs(lo), fabs(hi));
    if (fabs(l - lo) > eps || fabs(h - hi) > eps)
        fail_msg("line %d: interval of %.17g is [%.17g, %.17g], want [%.17g, %.17g]", line, ref, l,
                 h, lo, hi);
}
#define INTERVAL(t, ref, lo, hi) check_interval(t, ref, lo, hi, __LINE__)

static void test_defaults(void **state)
{
    (void)state;
    struct grader_tol t;
    grader_tol_default(&t);
    assert_true(t.rel == 0.01);
    assert_true(t.abs == 0);
    assert_int_equal(t.sig, 0);
    /* a NULL tolerance means the defaults */
    assert_true(grader_tol_accepts(NULL, 2.5, 2.52));
    assert_false(grader_tol_accepts(NULL, 2.5, 2.53));
}

static void test_relative_and_absolute(void **state)
{
    (void)state;
    INTERVAL(tol(0.01, 0, 0), 2.5, 2.475, 2.525);
    /* the printed ends, typed back, are inside */
    YES(tol(0.01, 0, 0), 2.5, 2.475);
    YES(tol(0.01, 0, 0), 2.5, 2.525);
    YES(tol(0.01, 0, 0), 2.5, 2.5);
    NO(tol(0.01, 0, 0), 2.5, 2.474);
    NO(tol(0.01, 0, 0), 2.5, 2.526);
    /* absolute */
    INTERVAL(tol(0, 0.1, 0), 2.5, 2.4, 2.6);
    YES(tol(0, 0.1, 0), 2.5, 2.6);
    NO(tol(0, 0.1, 0), 2.5, 2.61);
    /* both given: the wider wins */
    INTERVAL(tol(0.01, 0.5, 0), 2.5, 2.0, 3.0);
    INTERVAL(tol(0.5, 0.01, 0), 2.5, 1.25, 3.75);
    /* negative reference */
    INTERVAL(tol(0.01, 0, 0), -2.5, -2.525, -2.475);
    YES(tol(0.01, 0, 0), -2.5, -2.48);
    NO(tol(0.01, 0, 0), -2.5, 2.5);
    /* no tolerance at all: only the reference itself */
    YES(tol(0, 0, 0), 0.32, 320 / 1000.0);
    NO(tol(0, 0, 0), 0.32, 0.3200001);
}

static void test_zero_reference(void **state)
{
    (void)state;
    /* exactly 0 with abs 0 uses abs = 1e-9, whatever rel says */
    INTERVAL(tol(0.01, 0, 0), 0, -1e-9, 1e-9);
    YES(tol(0.01, 0, 0), 0, 0);
    YES(tol(0.01, 0, 0), 0, 5e-10);
    YES(tol(0.01, 0, 0), 0, -1e-9);
    NO(tol(0.01, 0, 0), 0, 1e-8);
    NO(tol(0, 0, 0), 0, -2e-9);
    /* an explicit abs is kept */
    YES(tol(0.01, 0.5, 0), 0, 0.4);
    NO(tol(0.01, 0.5, 0), 0, 0.6);
}

static void test_significant_figures(void **state)
{
    (void)state;
    struct grader_tol s2 = tol(0, 0, 2);
    INTERVAL(s2, 2.5, 2.45, 2.55);
    YES(s2, 2.5, 2.45); /* exactly half a unit either side: the student's favour */
    YES(s2, 2.5, 2.54);
    YES(s2, 2.5, 2.55);
    NO(s2, 2.5, 2.44);
    NO(s2, 2.5, 2.56);
    /* a power of ten: below it the figures are one place finer */
    INTERVAL(s2, 10, 9.95, 10.5);
    YES(s2, 10, 9.96);
    YES(s2, 10, 10.4);
    NO(s2, 10, 9.94);
    NO(s2, 10, 10.6);
    /* the reference itself is rounded first: 9.96 to 2 figures is 10 */
    INTERVAL(s2, 9.96, 9.95, 10.5);
    /* small and large magnitudes */
    INTERVAL(tol(0, 0, 3), 0.012345, 0.01225, 0.01235);
    YES(tol(0, 0, 3), 0.012345, 0.0123);
    NO(tol(0, 0, 3), 0.012345, 0.0124);
    INTERVAL(s2, 123456, 115000, 125000);
    INTERVAL(tol(0, 0, 1), 3, 2.5, 3.5);
    /* negative */
    INTERVAL(s2, -2.5, -2.55, -2.45);
    YES(s2, -2.5, -2.55);
    NO(s2, -2.5, -2.56);
    /* sig or the rel/abs interval: either accepts */
    INTERVAL(tol(0.1, 0, 2), 2.5, 2.25, 2.75);
    YES(tol(0.1, 0, 2), 2.5, 2.7);
    INTERVAL(tol(0.001, 0, 2), 2.5, 2.45, 2.55);
    /* sig with a zero reference: only 0 rounds to 0, plus the 1e-9 rule */
    INTERVAL(tol(0, 0, 3), 0, -1e-9, 1e-9);
}

static void test_cleaning(void **state)
{
    (void)state;
    /* instructor values are cleaned, not trusted */
    INTERVAL(tol(-1, 0, 0), 2.5, 2.5, 2.5);
    INTERVAL(tol(NAN, 0.1, 0), 2.5, 2.4, 2.6);
    INTERVAL(tol(0, -5, 0), 2.5, 2.5, 2.5);
    INTERVAL(tol(0, 0, -3), 2.5, 2.5, 2.5);
    double l15, h15, l99, h99;
    struct grader_tol t15 = tol(0, 0, 15), t99 = tol(0, 0, 99);
    grader_tol_interval(&t15, 2.5, &l15, &h15);
    grader_tol_interval(&t99, 2.5, &l99, &h99);
    assert_true(l15 == l99 && h15 == h99); /* clamped to 15 figures */
    assert_true(l15 < 2.5 && h15 > 2.5);
    /* nothing is accepted against or as a non-finite value */
    NO(tol(1, 1, 0), 2.5, NAN);
    NO(tol(1, 1, 0), 2.5, INFINITY);
    NO(tol(1, 1, 0), NAN, 2.5);
    NO(tol(1, 1, 0), INFINITY, INFINITY);
    double lo, hi;
    struct grader_tol t = tol(0.1, 0, 0);
    grader_tol_interval(&t, INFINITY, &lo, &hi);
    assert_true(isinf(lo) && isinf(hi));
}

static void check_describe(struct grader_tol t, double ref, const char *unit, const char *want,
                           int line)
{
    char buf[128];
    assert_ptr_equal(grader_tol_describe(&t, ref, unit, buf, sizeof buf), buf);
    if (strcmp(buf, want) != 0)
        fail_msg("line %d: describe(%.17g) = \"%s\", want \"%s\"", line, ref, buf, want);
}
#define DESCRIBE(t, ref, unit, want) check_describe(t, ref, unit, want, __LINE__)

static void test_describe(void **state)
{
    (void)state;
    DESCRIBE(tol(0.01, 0, 0), 2.5, "×", "2.475 to 2.525 ×");
    DESCRIBE(tol(0.01, 0, 0), 2.5, "", "2.475 to 2.525");
    DESCRIBE(tol(0.01, 0, 0), 2.5, NULL, "2.475 to 2.525");
    DESCRIBE(tol(0.01, 0, 0), 56, "%", "55.44 to 56.56 %");
    DESCRIBE(tol(0.01, 0, 0), 320, "ms", "316.8 to 323.2 ms");
    /* more figures when 4 would print both ends the same */
    DESCRIBE(tol(0, 1e-4, 0), 100, "", "99.9999 to 100.0001");
    DESCRIBE(tol(0, 1e-9, 0), 2.5, "s", "2.499999999 to 2.500000001 s");
    DESCRIBE(tol(0.01, 0, 0), 4194304, "B", "4152000 to 4236000 B");
    DESCRIBE(tol(0.01, 0, 0), 6.02e23, "", "5.96e23 to 6.08e23");
    DESCRIBE(tol(0.01, 0, 0), 0, "", "-1e-9 to 1e-9");
    DESCRIBE(tol(0.01, 0, 0), -2.5, "", "-2.525 to -2.475");
    DESCRIBE(tol(0, 0, 2), 2.5, "", "2.45 to 2.55");
    DESCRIBE(tol(0, 0, 0), 2.5, "x", "exactly 2.5 x");
    DESCRIBE(tol(0, 0, 0), 0.1, "", "exactly 0.1");

    /* the two ends always print differently */
    uint64_t x = 7;
    for (int i = 0; i < 5000; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        double ref = ((double)(x >> 11) * 0x1.0p-53 - 0.5) * pow(10, (int)(x % 40) - 20);
        struct grader_tol t = tol(pow(10, -(int)(x % 13)), 0, (int)(x >> 60) % 6);
        char buf[128], a[64], b[64];
        grader_tol_describe(&t, ref, "", buf, sizeof buf);
        const char *to = strstr(buf, " to ");
        if (strncmp(buf, "exactly", 7) == 0)
            continue;
        assert_non_null(to);
        snprintf(a, sizeof a, "%.*s", (int)(to - buf), buf);
        snprintf(b, sizeof b, "%s", to + 4);
        if (strcmp(a, b) == 0)
            fail_msg("ends print the same: \"%s\"", buf);
    }

    /* a small buffer is truncated and terminated */
    char small[8];
    struct grader_tol t = tol(0.01, 0, 0);
    grader_tol_describe(&t, 2.5, "×", small, sizeof small);
    assert_int_equal(strlen(small), 7);
}

static void test_bands(void **state)
{
    (void)state;
    struct grader_tol t = tol(0.01, 0, 0);
    const struct grader_band bands[] = {
        {tol(0.05, 0, 0), 0.5, "close"},
        {tol(0.10, 0, 0), 0.25, NULL},
        {tol(0.20, 0, 0), 0.1, "rough"},
    };
    int band = 99;
    assert_true(grader_tol_score(&t, bands, 3, 100, 100.5, &band) == 1);
    assert_int_equal(band, -1);
    assert_true(grader_tol_score(&t, bands, 3, 100, 103, &band) == 0.5);
    assert_int_equal(band, 0);
    assert_true(grader_tol_score(&t, bands, 3, 100, 93, &band) == 0.25);
    assert_int_equal(band, 1);
    assert_true(grader_tol_score(&t, bands, 3, 100, 115, &band) == 0.1);
    assert_int_equal(band, 2);
    assert_true(grader_tol_score(&t, bands, 3, 100, 130, &band) == 0);
    assert_int_equal(band, -1);

    /* the best band wins, not the first that holds the answer */
    const struct grader_band unordered[] = {
        {tol(0.10, 0, 0), 0.25, NULL},
        {tol(0.05, 0, 0), 0.5, NULL},
        {tol(0.05, 0, 0), 0.5, NULL}, /* a tie keeps the first */
    };
    assert_true(grader_tol_score(&t, unordered, 3, 100, 103, &band) == 0.5);
    assert_int_equal(band, 1);

    /* a zero-score band still reports itself, for its feedback */
    const struct grader_band hint[] = {{tol(0, 0.5, 0), 0, "check the units"}};
    assert_true(grader_tol_score(&t, hint, 1, 0.32, 0.5, &band) == 0);
    assert_int_equal(band, 0);

    /* scores are clamped to 0..1 */
    const struct grader_band wild[] = {
        {tol(0.05, 0, 0), 2.0, NULL},
        {tol(0.10, 0, 0), -1.0, NULL},
        {tol(0.20, 0, 0), NAN, NULL},
    };
    assert_true(grader_tol_score(&t, wild, 3, 100, 104, &band) == 1);
    assert_int_equal(band, 0);
    assert_true(grader_tol_score(&t, wild, 3, 100, 92, &band) == 0);
    assert_true(band == 1 || band == 2);

    /* optional pieces */
    assert_true(grader_tol_score(&t, bands, 3, 100, 103, NULL) == 0.5);
    assert_true(grader_tol_score(&t, NULL, 3, 100, 103, &band) == 0);
    assert_int_equal(band, -1);
    assert_true(grader_tol_score(&t, bands, 0, 100, 103, &band) == 0);
    /* a non-finite answer scores nothing */
    assert_true(grader_tol_score(&t, bands, 3, 100, NAN, &band) == 0);
    assert_int_equal(band, -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),       cmocka_unit_test(test_relative_and_absolute),
        cmocka_unit_test(test_zero_reference), cmocka_unit_test(test_significant_figures),
        cmocka_unit_test(test_cleaning),       cmocka_unit_test(test_describe),
        cmocka_unit_test(test_bands),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
