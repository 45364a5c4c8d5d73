/*
 * lab_stats.c — the statistics every lab reports its repeated measurements
 * with: sorting, the median, quantiles, min, max and mean of an array of
 * doubles. Pure: no I/O, no globals, no allocation but lab_stats_median_of's
 * copy. One definition of each, so "the median time of a trial" means the
 * same in every lab.
 *
 * NaN sorts after every number (a total order, so qsort's comparator is
 * consistent); min, max and mean skip nothing, so a NaN measurement shows.
 */
#include "labs/lab_author.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    if (isnan(x) || isnan(y))
        return isnan(x) - isnan(y);
    return (x > y) - (x < y);
}

void lab_stats_sort(double *v, size_t n)
{
    if (n > 1)
        qsort(v, n, sizeof *v, cmp_double);
}

double lab_stats_median_sorted(const double *v, size_t n)
{
    if (n == 0)
        return NAN;
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double lab_stats_quantile_sorted(const double *v, size_t n, double q)
{
    if (n == 0)
        return NAN;
    double at = (q < 0 ? 0 : q > 1 ? 1 : q) * (double)(n - 1);
    size_t lo = (size_t)floor(at);
    if (lo >= n - 1)
        return v[n - 1];
    double f = at - (double)lo;
    return v[lo] + f * (v[lo + 1] - v[lo]);
}

double lab_stats_median(double *v, size_t n)
{
    lab_stats_sort(v, n);
    return lab_stats_median_sorted(v, n);
}

double lab_stats_quantile(double *v, size_t n, double q)
{
    lab_stats_sort(v, n);
    return lab_stats_quantile_sorted(v, n, q);
}

double lab_stats_median_of(const double *v, size_t n)
{
    if (n == 0)
        return NAN;
    double *s = core_xmalloc(n * sizeof *s);
    memcpy(s, v, n * sizeof *s);
    double m = lab_stats_median(s, n);
    free(s);
    return m;
}

double lab_stats_min(const double *v, size_t n)
{
    if (n == 0)
        return NAN;
    double m = v[0];
    for (size_t i = 1; i < n; i++)
        if (v[i] < m || isnan(v[i]))
            m = v[i];
    return m;
}

double lab_stats_max(const double *v, size_t n)
{
    if (n == 0)
        return NAN;
    double m = v[0];
    for (size_t i = 1; i < n; i++)
        if (v[i] > m || isnan(v[i]))
            m = v[i];
    return m;
}

double lab_stats_mean(const double *v, size_t n)
{
    if (n == 0)
        return NAN;
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += v[i];
    return s / (double)n;
}
