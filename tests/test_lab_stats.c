/*
 * test_lab_stats.c — the statistics every lab reports with (labs/core/lab_stats.c):
 * the median of odd and even counts, sorted or not, the interpolated
 * quantile at and between ranks, min, max and mean, NaN ordering, and the
 * empty array.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "labs/lab_author.h"

#include <math.h>
#include <string.h>

static void test_sort(void **state)
{
    (void)state;
    double v[] = {3, -1, NAN, 2, 2, -INFINITY, 10};
    lab_stats_sort(v, 7);
    const double want[] = {-INFINITY, -1, 2, 2, 3, 10};
    for (int i = 0; i < 6; i++)
        assert_true(v[i] == want[i]);
    assert_true(isnan(v[6])); /* NaN last */
    lab_stats_sort(NULL, 0);  /* nothing to sort */
    double one = 4;
    lab_stats_sort(&one, 1);
    assert_true(one == 4);
}

static void test_median(void **state)
{
    (void)state;
    double odd[] = {9, 1, 5, 3, 7};
    assert_true(lab_stats_median(odd, 5) == 5);
    assert_true(odd[0] == 1 && odd[4] == 9); /* left sorted */
    double even[] = {4, 1, 3, 2};
    assert_true(lab_stats_median(even, 4) == 2.5);
    const double keep[] = {0.3, 0.1, 0.2};
    assert_true(lab_stats_median_of(keep, 3) == 0.2);
    assert_true(keep[0] == 0.3 && keep[1] == 0.1 && keep[2] == 0.2); /* untouched */
    const double sorted[] = {1, 2, 3, 100};
    assert_true(lab_stats_median_sorted(sorted, 4) == 2.5);
    assert_true(lab_stats_median_sorted(sorted, 1) == 1);
    /* one outlier does not move it */
    double out[] = {1.0, 1.1, 0.9, 1000};
    assert_true(lab_stats_median(out, 4) == 1.05);
    assert_true(isnan(lab_stats_median(NULL, 0)));
    assert_true(isnan(lab_stats_median_of(NULL, 0)));
}

static void test_quantile(void **state)
{
    (void)state;
    double v[] = {5, 1, 4, 2, 3};
    assert_float_equal(lab_stats_quantile(v, 5, 0.5), 3, 1e-12);
    assert_float_equal(lab_stats_quantile_sorted(v, 5, 0.25), 2, 1e-12);
    assert_float_equal(lab_stats_quantile_sorted(v, 5, 0.99), 4.96, 1e-12); /* between ranks */
    assert_float_equal(lab_stats_quantile_sorted(v, 5, 1.0), 5, 1e-12);
    assert_float_equal(lab_stats_quantile_sorted(v, 5, 0.0), 1, 1e-12);
    assert_float_equal(lab_stats_quantile_sorted(v, 5, 1.5), 5, 1e-12); /* clamped */
    assert_float_equal(lab_stats_quantile_sorted(v, 5, -1), 1, 1e-12);
    /* the median and the 0.5-quantile agree on an even count */
    double e[] = {1, 2, 3, 4};
    assert_float_equal(lab_stats_quantile_sorted(e, 4, 0.5), lab_stats_median_sorted(e, 4), 1e-15);
    assert_true(isnan(lab_stats_quantile(v, 0, 0.5)));
}

static void test_min_max_mean(void **state)
{
    (void)state;
    const double v[] = {2, -3, 8, 1};
    assert_true(lab_stats_min(v, 4) == -3);
    assert_true(lab_stats_max(v, 4) == 8);
    assert_float_equal(lab_stats_mean(v, 4), 2, 1e-15);
    const double n[] = {2, NAN, 1};
    assert_true(isnan(lab_stats_min(n, 3)));
    assert_true(isnan(lab_stats_max(n, 3)));
    assert_true(isnan(lab_stats_mean(n, 3)));
    assert_true(isnan(lab_stats_min(NULL, 0)));
    assert_true(isnan(lab_stats_max(NULL, 0)));
    assert_true(isnan(lab_stats_mean(NULL, 0)));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sort),
        cmocka_unit_test(test_median),
        cmocka_unit_test(test_quantile),
        cmocka_unit_test(test_min_max_mean),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
