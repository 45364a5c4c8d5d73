/*
 * test_kern_gemm.c — our FP32 and INT8 matrix multiply (kern_gemm.c) on
 * every path this CPU runs, against the plain references: INT8 bit for bit
 * (the sums are exact), FP32 within rounding; odd sizes that leave partial
 * tiles and panels; the Linear (out × in) packing; refusals. When oneDNN is
 * there, its INT8 product must equal ours exactly too. The cuBLAS stand-in
 * answers with a reason. Nothing is timed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "kernels/kernels.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct mats {
    int m, k, n;
    int8_t *a8, *b8, *bt8; /* bt: B transposed, n × k (the Linear layout) */
    float *af, *bf, *btf;
    int32_t *c32, *r32;
    float *cf, *rf;
};

static uint64_t rnd(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 33;
}

static void mats_make(struct mats *t, int m, int k, int n, uint64_t seed)
{
    memset(t, 0, sizeof *t);
    t->m = m, t->k = k, t->n = n;
    t->a8 = malloc((size_t)m * k), t->b8 = malloc((size_t)k * n), t->bt8 = malloc((size_t)k * n);
    t->af = malloc(sizeof(float) * m * k), t->bf = malloc(sizeof(float) * k * n);
    t->btf = malloc(sizeof(float) * k * n);
    t->c32 = malloc(sizeof(int32_t) * m * n), t->r32 = malloc(sizeof(int32_t) * m * n);
    t->cf = malloc(sizeof(float) * m * n), t->rf = malloc(sizeof(float) * m * n);
    for (int i = 0; i < m * k; i++) {
        /* the extremes -128 and 127 included: the VNNI shift must cope */
        t->a8[i] = (int8_t)(i % 7 == 0 ? -128 : (int)(rnd(&seed) % 256) - 128);
        t->af[i] = t->a8[i] / 128.0f;
    }
    for (int kk = 0; kk < k; kk++)
        for (int j = 0; j < n; j++) {
            int8_t v = (int8_t)((kk + j) % 5 == 0 ? 127 : (int)(rnd(&seed) % 256) - 128);
            t->b8[kk * n + j] = v;
            t->bt8[j * k + kk] = v;
            t->bf[kk * n + j] = t->btf[j * k + kk] = v / 128.0f;
        }
    kern_gemm_ref_s8(t->a8, t->b8, t->r32, m, k, n);
    kern_gemm_ref_f32(t->af, t->bf, t->rf, m, k, n);
}

static void mats_free(struct mats *t)
{
    free(t->a8), free(t->b8), free(t->bt8), free(t->af), free(t->bf), free(t->btf);
    free(t->c32), free(t->r32), free(t->cf), free(t->rf);
}

static void check_f32(const struct mats *t, const char *what)
{
    for (int i = 0; i < t->m * t->n; i++)
        if (!(fabsf(t->cf[i] - t->rf[i]) <= 1e-5f * (float)t->k + 1e-6f))
            fail_msg("%s: FP32 element %d is %g, the reference %g", what, i, (double)t->cf[i],
                     (double)t->rf[i]);
}

/* Every path, several shapes: INT8 equal to the reference, FP32 close. */
static void test_paths_match_reference(void **state)
{
    (void)state;
    static const int shapes[][3] = {{1, 1, 1},   {1, 300, 17}, {3, 5, 16},    {4, 16, 16},
                                    {7, 13, 21}, {9, 257, 33}, {33, 600, 70}, {64, 64, 64}};
    int ran = 0;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        struct mats t;
        mats_make(&t, shapes[s][0], shapes[s][1], shapes[s][2], 11 + s);
        for (int p = 0; p < KERN_GEMM_N_PATHS; p++) {
            struct core_err err;
            char what[96];
            snprintf(what, sizeof what, "%s %dx%dx%d", kern_gemm_path_name(p), t.m, t.k, t.n);
            if (kern_gemm_path_ok(p, true)) {
                struct kern_gemm_b b = {0}, bt = {0};
                assert_int_equal(kern_gemm_b_pack_s8(&b, p, t.b8, t.k, t.n, (size_t)t.n, 1, &err),
                                 0);
                memset(t.c32, 0x55, sizeof(int32_t) * t.m * t.n);
                kern_gemm_s8(&b, t.a8, t.m, (size_t)t.k, t.c32, (size_t)t.n);
                if (memcmp(t.c32, t.r32, sizeof(int32_t) * t.m * t.n) != 0)
                    fail_msg("%s: INT8 differs from the reference", what);
                /* the same B given out × in (ldk = 1, ldn = k) */
                assert_int_equal(kern_gemm_b_pack_s8(&bt, p, t.bt8, t.k, t.n, 1, (size_t)t.k, &err),
                                 0);
                memset(t.c32, 0, sizeof(int32_t) * t.m * t.n);
                kern_gemm_s8(&bt, t.a8, t.m, (size_t)t.k, t.c32, (size_t)t.n);
                if (memcmp(t.c32, t.r32, sizeof(int32_t) * t.m * t.n) != 0)
                    fail_msg("%s: INT8 with the Linear packing differs", what);
                kern_gemm_b_fini(&b);
                kern_gemm_b_fini(&bt);
                ran++;
            }
            if (kern_gemm_path_ok(p, false)) {
                struct kern_gemm_b b = {0}, bt = {0};
                assert_int_equal(kern_gemm_b_pack_f32(&b, p, t.bf, t.k, t.n, (size_t)t.n, 1, &err),
                                 0);
                kern_gemm_f32(&b, t.af, t.m, (size_t)t.k, t.cf, (size_t)t.n);
                check_f32(&t, what);
                assert_int_equal(
                    kern_gemm_b_pack_f32(&bt, p, t.btf, t.k, t.n, 1, (size_t)t.k, &err), 0);
                kern_gemm_f32(&bt, t.af, t.m, (size_t)t.k, t.cf, (size_t)t.n);
                check_f32(&t, what);
                kern_gemm_b_fini(&b);
                kern_gemm_b_fini(&bt);
            }
        }
        mats_free(&t);
    }
    assert_true(ran >= 8); /* the portable path at least, on every shape */
}

/* A C wider than the product (ldc > n) keeps the columns past n. */
static void test_leading_dimensions(void **state)
{
    (void)state;
    struct mats t;
    struct core_err err;
    struct kern_gemm_b b = {0};
    mats_make(&t, 5, 9, 18, 3);
    int32_t *c = malloc(sizeof(int32_t) * 5 * 24);
    for (int i = 0; i < 5 * 24; i++)
        c[i] = -7;
    assert_int_equal(kern_gemm_b_pack_s8(&b, kern_gemm_best(true), t.b8, 9, 18, 18, 1, &err), 0);
    kern_gemm_s8(&b, t.a8, 5, 9, c, 24);
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 24; j++)
            assert_int_equal(c[i * 24 + j], j < 18 ? t.r32[i * 18 + j] : -7);
    kern_gemm_b_fini(&b);
    free(c);
    mats_free(&t);
}

static void test_refusals(void **state)
{
    (void)state;
    struct kern_gemm_b b = {0};
    struct core_err err;
    float f = 1;
    int8_t s = 1;
    assert_int_equal(kern_gemm_b_pack_f32(&b, KERN_GEMM_PORTABLE, &f, 0, 1, 1, 1, &err),
                     CORE_ERR_INVALID);
    assert_non_null(strstr(err.msg, "k = 0"));
    assert_int_equal(
        kern_gemm_b_pack_s8(&b, KERN_GEMM_PORTABLE, &s, 1, KERN_GEMM_MAX + 1, 1, 1, &err),
        CORE_ERR_INVALID);
    assert_int_equal(kern_gemm_b_pack_f32(&b, KERN_GEMM_VNNI, &f, 1, 1, 1, 1, &err),
                     CORE_ERR_INVALID);
    assert_non_null(strstr(err.msg, "FP32"));
    assert_false(kern_gemm_path_ok(KERN_GEMM_VNNI, false));
    assert_true(kern_gemm_path_ok(KERN_GEMM_PORTABLE, true));
    assert_string_equal(kern_gemm_path_name(KERN_GEMM_AVX2), "avx2");
    assert_string_equal(kern_gemm_path_name(99), "?");
    kern_gemm_b_fini(&b); /* unfilled: a no-op */
    kern_gemm_b_fini(NULL);
}

/* oneDNN, when it is there, computes the same INT8 sums. */
static void test_dnnl_agrees(void **state)
{
    (void)state;
    char why[160];
    struct core_err err;
    struct mats t;
    if (!kern_dnnl_probe(why, sizeof why)) {
        assert_non_null(strstr(why, "oneDNN"));
        assert_int_equal(kern_dnnl_gemm_s8(1, NULL, NULL, NULL, 1, 1, 1, &err), CORE_ERR_IO);
        return;
    }
    mats_make(&t, 37, 70, 45, 9);
    assert_int_equal(kern_dnnl_gemm_s8(1, t.a8, t.b8, t.c32, t.m, t.k, t.n, &err), 0);
    assert_memory_equal(t.c32, t.r32, sizeof(int32_t) * t.m * t.n);
    assert_int_equal(kern_dnnl_gemm_f32(1, t.af, t.bf, t.cf, t.m, t.k, t.n, &err), 0);
    check_f32(&t, "oneDNN");
    mats_free(&t);
}

/* Without a GPU the cuBLAS entry points say why and allocate nothing. */
static void test_gpu_without_gpu(void **state)
{
    (void)state;
    struct core_err err, why;
    if (kern_probe(NULL, &why) == 0)
        return; /* a GPU is here: the gpu-labelled checks (gpu-check.sh) cover it */
    struct kern_gemm_gpu_meas m;
    struct kern_mlp_gpu *g = (struct kern_mlp_gpu *)&m; /* must be reset to NULL */
    float w = 1;
    assert_int_equal(kern_gemm_gpu_measure(64, 1, 1, NULL, NULL, &m, &err), CORE_ERR_IO);
    assert_string_equal(err.msg, why.msg);
    assert_int_equal(kern_mlp_gpu_new(&g, 1, 1, 1, &w, &w, &w, &w, 1, &err), CORE_ERR_IO);
    assert_null(g);
    kern_mlp_gpu_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_paths_match_reference),
        cmocka_unit_test(test_leading_dimensions),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_dnnl_agrees),
        cmocka_unit_test(test_gpu_without_gpu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
