/*
 * test_lab_kmeans_gpu.c — the k-means map kernel on a real GPU (CTest label
 * `gpu`): labels and counts equal to the CPU routine's for every point and
 * task, sums and SSE equal up to the order of additions, the same bits on
 * every call, for dimensions on both sides of the register limit and
 * centres in and out of shared memory; bad sizes refused. No timing is
 * asserted.
 *
 * Without a GPU (no CUDA in the build, no driver, no device) it prints
 * "skipped: no GPU (...)" and exits 77, which CTest reports as skipped.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "kernels/kernels.h"
#include "gpu_test_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng = 99;
static float frand(void)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (float)((rng >> 40) % 20001) / 1000.0f - 10.0f;
}

static void compare(size_t n, int d, int k, int tasks)
{
    float *x = malloc(n * (size_t)d * sizeof *x), *c = malloc((size_t)k * (size_t)d * sizeof *c);
    size_t *bounds = malloc(((size_t)tasks + 1) * sizeof *bounds);
    size_t kd = (size_t)k * (size_t)d;
    double *gs = malloc((size_t)tasks * kd * sizeof *gs),
           *gs2 = malloc((size_t)tasks * kd * sizeof *gs2);
    int64_t *gc = malloc((size_t)tasks * (size_t)k * sizeof *gc);
    double *gsse = malloc((size_t)tasks * sizeof *gsse),
           *gsse2 = malloc((size_t)tasks * sizeof *gsse2);
    int32_t *gl = malloc(n * sizeof *gl), *cl = malloc(n * sizeof *cl);
    double *cs = malloc(kd * sizeof *cs);
    int64_t *cc = malloc((size_t)k * sizeof *cc);
    for (size_t i = 0; i < n * (size_t)d; i++)
        x[i] = frand();
    for (size_t i = 0; i < kd; i++)
        c[i] = frand();
    for (int t = 0; t <= tasks; t++) /* uneven tasks */
        bounds[t] = (size_t)((double)n * (double)t * t / ((double)tasks * tasks));
    bounds[tasks] = n;

    struct kern_km_gpu *g = NULL;
    struct core_err err;
    double ks = 0;
    if (kern_kmeans_gpu_new(&g, x, n, d, k, bounds, tasks, &err) != 0)
        fail_msg("kern_kmeans_gpu_new(d %d, k %d): %s", d, k, err.msg);
    if (kern_kmeans_gpu_assign(g, c, gl, gs, gc, gsse, &ks, &err) != 0)
        fail_msg("kern_kmeans_gpu_assign(d %d, k %d): %s", d, k, err.msg);
    assert_true(ks > 0);
    for (int t = 0; t < tasks; t++) {
        size_t lo = bounds[t], hi = bounds[t + 1];
        memset(cs, 0, kd * sizeof *cs);
        memset(cc, 0, (size_t)k * sizeof *cc);
        double sse = kern_kmeans_assign(x + lo * (size_t)d, hi - lo, d, c, k, cl + lo, cs, cc);
        assert_memory_equal(gc + (size_t)t * (size_t)k, cc, (size_t)k * sizeof *cc);
        for (size_t q = 0; q < kd; q++) {
            double a = gs[(size_t)t * kd + q], b = cs[q];
            if (!(fabs(a - b) <= 1e-12 * fabs(b) + 1e-9))
                fail_msg("task %d sum %zu: GPU %.17g, CPU %.17g", t, q, a, b);
        }
        assert_true(fabs(gsse[t] - sse) <= 1e-12 * fabs(sse) + 1e-9);
    }
    if (memcmp(gl, cl, n * sizeof *gl) != 0)
        fail_msg("labels differ from the CPU's (d %d, k %d)", d, k);
    /* again: the same bits */
    if (kern_kmeans_gpu_assign(g, c, NULL, gs2, gc, gsse2, NULL, &err) != 0)
        fail_msg("second call: %s", err.msg);
    assert_memory_equal(gs, gs2, (size_t)tasks * kd * sizeof *gs);
    assert_memory_equal(gsse, gsse2, (size_t)tasks * sizeof *gsse);
    kern_kmeans_gpu_free(g);
    free(x);
    free(c);
    free(bounds);
    free(gs);
    free(gs2);
    free(gc);
    free(gsse);
    free(gsse2);
    free(gl);
    free(cl);
    free(cs);
    free(cc);
}

static void test_matches_cpu(void **state)
{
    (void)state;
    compare(100003, 16, 16, 7); /* the benchmark's shape, points in registers */
    compare(20011, 3, 1, 3);
    compare(20011, 40, 100, 5); /* d above the register limit */
    compare(5003, 64, 1024, 2); /* centres too big for shared memory */
    compare(300, 5, 7, 300);    /* one point per task */
}

static void test_refusals(void **state)
{
    (void)state;
    float x[8] = {0};
    size_t bounds[3] = {0, 2, 4};
    size_t bad[3] = {0, 3, 2};
    struct kern_km_gpu *g = (struct kern_km_gpu *)1;
    struct core_err err;
    assert_int_equal(kern_kmeans_gpu_new(&g, x, 4, 0, 1, bounds, 2, &err), CORE_ERR_INVALID);
    assert_null(g);
    assert_int_equal(kern_kmeans_gpu_new(&g, x, 4, 2, 0, bounds, 2, &err), CORE_ERR_INVALID);
    assert_int_equal(kern_kmeans_gpu_new(&g, x, 4, 2, 1, bad, 2, &err), CORE_ERR_INVALID);
    assert_int_equal(kern_kmeans_gpu_new(&g, x, 5, 2, 1, bounds, 2, &err), CORE_ERR_INVALID);
    kern_kmeans_gpu_free(NULL);
}

int main(void)
{
    if (!gpu_test_found())
        return GPU_TEST_SKIP;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matches_cpu),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
