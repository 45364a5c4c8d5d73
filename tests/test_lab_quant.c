/*
 * test_lab_quant.c — the quantize lab: its arithmetic (quantizers worked by
 * hand, SQNR against the formula, the clip search against a brute-force
 * scan, the MLP's determinism and quantization, model sizes) and the lab
 * itself through lab_run() at small sizes: the full-scale uniform signal
 * within 0.2 dB of 6.02·b for b = 4..12 and the sine within 0.2 dB of
 * 6.02·b + 1.76 from 7 bits (arithmetic, not timing), every part's figures,
 * the GPU header line, refused parameters and cancellation. Nothing here
 * asserts a speed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "labs/quantize/lab_quant.h"
#include "kernels/kernels.h"
#include "lab_test_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- the arithmetic ------------------------------------------------------------------ */

static void test_quantizers_by_hand(void **state)
{
    (void)state;
    /* symmetric, 3 bits: L = 3, clip 1.5 -> s = 0.5; 0.26 -> 0.5, 0.24 -> 0,
     * 0.75 -> round(1.5) = 2 (ties to even) -> 1.0, 9 saturates at 1.5 */
    double x[] = {0.26, 0.24, 0.75, 9, -9, -0.6};
    double y[6];
    lab_quant_sym(x, y, 6, 3, 1.5);
    double want[] = {0.5, 0, 1.0, 1.5, -1.5, -0.5};
    for (int i = 0; i < 6; i++)
        assert_true(fabs(y[i] - want[i]) < 1e-12);
    /* asymmetric, 2 bits over [0, 3]: s = 1, z = 0; levels 0, 1, 2, 3 */
    double a[] = {0.4, 1.6, 2.5, 7, -1};
    double ya[5];
    lab_quant_asym(a, ya, 5, 2, 0, 3);
    double wa[] = {0, 2, 2, 3, 0};
    for (int i = 0; i < 5; i++)
        assert_true(fabs(ya[i] - wa[i]) < 1e-12);
    /* the ideal 2-bit converter over [-1, 1): steps of 0.5, mid-rise */
    double u[] = {-1, -0.51, -0.2, 0, 0.3, 0.99, 1.0};
    double yu[7];
    lab_quant_ideal(u, yu, 7, 2, 1.0);
    double wu[] = {-0.75, -0.75, -0.25, 0.25, 0.25, 0.75, 0.75};
    for (int i = 0; i < 7; i++)
        assert_true(fabs(yu[i] - wu[i]) < 1e-12);
    /* per row: the zero row stays zero, each other row its own scale */
    double m[] = {0, 0, 0, 1, -2, 0.5};
    double ym[6];
    lab_quant_sym_rows(m, ym, 2, 3, 2); /* L = 1: row 2's scale 2 */
    double wm[] = {0, 0, 0, 0, -2, 0};  /* 1/2 and 0.5/2 round to 0 */
    for (int i = 0; i < 6; i++)
        assert_true(fabs(ym[i] - wm[i]) < 1e-12);
    assert_true(isinf(lab_quant_sqnr_db(wm, wm, 6)));
    assert_true(isnan(lab_quant_sqnr_db(m, wm, 3))); /* a zero signal */
    assert_true(fabs(lab_quant_formula_db(8) - 49.92) < 1e-12);
}

/* The formula holds where its assumptions do: a uniform signal gets 6.02·b
 * (its power A²/3), a sine 6.02·b + 1.76 (A²/2) once b is large enough for
 * the error to look uniform. */
static void test_formula_uniform_and_sine(void **state)
{
    (void)state;
    size_t n = 1 << 17;
    double *u = malloc(n * sizeof *u), *s = malloc(n * sizeof *s), *y = malloc(n * sizeof *y);
    struct quant_rng r;
    lab_quant_rng_seed(&r, 4);
    for (size_t i = 0; i < n; i++) {
        u[i] = 2 * lab_quant_rng_uniform(&r) - 1;
        s[i] = sin(2 * M_PI * lab_quant_rng_uniform(&r));
    }
    for (int b = 4; b <= 12; b++) {
        lab_quant_ideal(u, y, n, b, 1.0);
        double du = lab_quant_sqnr_db(u, y, n) - 6.02 * b;
        if (!(fabs(du) < 0.2))
            fail_msg("uniform at %d bits: %.3f dB off 6.02 b", b, du);
        lab_quant_ideal(s, y, n, b, 1.0);
        double ds = lab_quant_sqnr_db(s, y, n) - lab_quant_formula_db(b);
        if (b >= 7 && !(fabs(ds) < 0.2))
            fail_msg("sine at %d bits: %.3f dB off the formula", b, ds);
        if (b == 4 && !(ds < -0.3 && ds > -0.8)) /* the crowded peaks: about -0.5 */
            fail_msg("sine at 4 bits: %.3f dB off, expected about -0.5", ds);
    }
    free(u), free(s), free(y);
}

/* The search finds at least what a fine brute-force scan finds, and the
 * optimum clips a Gaussian well inside its largest value at 4 bits. */
static void test_best_clip(void **state)
{
    (void)state;
    size_t n = 20000;
    double *g = malloc(n * sizeof *g), *y = malloc(n * sizeof *y), *sc = malloc(n * sizeof *sc);
    struct quant_rng r;
    lab_quant_rng_seed(&r, 8);
    for (size_t i = 0; i < n; i++)
        g[i] = lab_quant_rng_gauss(&r);
    double top = lab_quant_absmax(g, n), rms = lab_quant_rms(g, n);
    for (int b = 2; b <= 8; b += 2) {
        double best;
        double clip = lab_quant_best_clip(g, n, 0, b, sc, &best);
        double scan = -INFINITY;
        for (int t = 1; t <= 2000; t++) {
            lab_quant_sym(g, y, n, b, top * t / 2000.0);
            double q = lab_quant_sqnr_db(g, y, n);
            scan = q > scan ? q : scan;
        }
        if (!(best >= scan - 0.02))
            fail_msg("%d bits: search %.3f dB, scan %.3f dB", b, best, scan);
        lab_quant_sym(g, y, n, b, top);
        assert_true(best >= lab_quant_sqnr_db(g, y, n)); /* never worse than no clipping */
        if (b == 4)
            assert_true(clip / rms > 2.0 && clip / rms < 3.2); /* the textbook ~2.5 sigma */
    }
    free(g), free(y), free(sc);
}

static void test_mlp(void **state)
{
    (void)state;
    enum { N = 2048, T = 1024, D = 16 };
    float *x = malloc(sizeof(float) * (N + T) * D);
    int32_t *y = malloc(sizeof(int32_t) * (N + T));
    lab_quant_data_make(3, N + T, D, 4, x, y);
    int count[4] = {0};
    for (int i = 0; i < N + T; i++) {
        assert_true(y[i] >= 0 && y[i] < 4);
        count[y[i]]++;
    }
    for (int c = 0; c < 4; c++)
        assert_true(count[c] > 0); /* every class occurs */
    struct quant_mlp a, b;
    lab_quant_mlp_init(&a, D, 24, 4, 5);
    lab_quant_mlp_init(&b, D, 24, 4, 5);
    double chance = lab_quant_mlp_accuracy(&a, x + (size_t)N * D, y + N, T);
    for (int e = 0; e < 4; e++) {
        double la = lab_quant_mlp_epoch(&a, x, y, N, 32, 0.05, 100 + e);
        double lb = lab_quant_mlp_epoch(&b, x, y, N, 32, 0.05, 100 + e);
        assert_memory_equal(&la, &lb, sizeof la); /* deterministic, bit for bit */
    }
    for (int l = 0; l < QUANT_LAYERS; l++)
        assert_memory_equal(a.w[l], b.w[l], sizeof(float) * a.rows[l] * a.cols[l]);
    double acc = lab_quant_mlp_accuracy(&a, x + (size_t)N * D, y + N, T);
    assert_true(acc > 0.6 && acc > chance + 0.2);
    assert_int_equal(lab_quant_mlp_weights(&a), 16 * 24 + 24 * 24 + 24 * 4);
    assert_int_equal(lab_quant_mlp_biases(&a), 24 + 24 + 4);
    /* 8 bits per weight, per channel: weights/1 + 4 per bias + 4 per row */
    assert_true(lab_quant_mlp_bytes(&a, 8, true) == 1056 + 4 * 52 + 4 * 52);
    assert_true(lab_quant_mlp_bytes(&a, 4, false) == 528 + 4 * 52 + 4 * 3);
    assert_true(lab_quant_mlp_bytes(&a, 32, false) == 4 * (1056 + 52));
    /* 16-bit weights change nothing that matters; 2-bit ones do */
    struct quant_mlp q;
    lab_quant_mlp_copy(&q, &a);
    lab_quant_mlp_quantize(&q, 16, false);
    assert_true(fabs(lab_quant_mlp_accuracy(&q, x + (size_t)N * D, y + N, T) - acc) < 0.01);
    for (int l = 0; l < QUANT_LAYERS; l++) /* the copy was quantized, not the original */
        assert_memory_equal(a.w[l], b.w[l], sizeof(float) * a.rows[l] * a.cols[l]);
    lab_quant_mlp_fini(&q);
    lab_quant_mlp_copy(&q, &a);
    lab_quant_mlp_quantize(&q, 2, true);
    int levels_ok = 1;
    for (int r = 0; r < q.rows[0] && levels_ok; r++) { /* -s, 0, s only */
        float s = 0;
        for (int c = 0; c < q.cols[0]; c++) {
            float v = fabsf(q.w[0][r * q.cols[0] + c]);
            if (v > 0 && s == 0)
                s = v;
            levels_ok &= v == 0 || v == s;
        }
    }
    assert_true(levels_ok);
    lab_quant_mlp_fini(&q);
    lab_quant_mlp_fini(&a);
    lab_quant_mlp_fini(&b);
    free(x), free(y);
}

/* ---- the lab ------------------------------------------------------------------------------ */

#define SMALL                                                                                      \
    "n_samples=65536", "hidden=8", "epochs=2", "n_train=512", "gemm_n=64", "min_ms=1", "device=auto"

/* The check, through the lab: the uniform signal within 0.2 dB of
 * 6.02·b for b = 4..12, the sine within 0.2 dB of the formula from 7 bits. */
static void test_lab_sqnr(void **state)
{
    (void)state;
    const char *set[] = {"part=sqnr", "n_samples=65536", "bits_min=4", "bits_max=12", NULL};
    struct lab_got g = {0};
    struct lab_result res;
    assert_int_equal(lab_test_run("quantize", set, NULL, &g, &res, NULL, 0), 0);
    for (int b = 4; b <= 12; b++) {
        double u = got_value(&g, "uniform", b), s = got_value(&g, "sine", b);
        assert_true(fabs(got_value(&g, "formula", b) - (6.02 * b + 1.76)) < 1e-9);
        if (!(fabs(u - 6.02 * b) < 0.2))
            fail_msg("uniform at %d bits: %.3f dB against 6.02 b = %.2f", b, u, 6.02 * b);
        if (b >= 7 && !(fabs(s - (6.02 * b + 1.76)) < 0.2))
            fail_msg("sine at %d bits: %.3f dB against %.2f", b, s, 6.02 * b + 1.76);
        /* the max-scaled Gaussian misses by far; clipping and per-channel help */
        assert_true(got_value(&g, "gauss_max", b) < 6.02 * b + 1.76 - 5);
        assert_true(got_value(&g, "gauss_clip", b) >= got_value(&g, "gauss_max", b) - 1e-9);
        assert_true(got_value(&g, "outlier_channel", b) > got_value(&g, "outlier_tensor", b));
        assert_true(got_value(&g, "ordinary_channel", b) > got_value(&g, "ordinary_tensor", b));
        assert_true(got_value(&g, "relu_asym", b) > got_value(&g, "relu_sym", b) + 4);
    }
    assert_true(fig(&res, "uniform_max_dev_db") < 0.2);
    assert_true(fig(&res, "sine_dev_b4") > 0.3 && fig(&res, "sine_dev_b4") < 0.8);
    assert_true(fabs(fig(&res, "slope_db") - 6.02) < 0.05);
    assert_true(fig(&res, "gauss_gap_b8") > 7 && fig(&res, "gauss_gap_b8") < 14);
    assert_true(fig(&res, "outlier_gain_b8") > 6);
    assert_true(fabs(fig(&res, "asym_gain_b8") - 6) < 1.5);    /* one bit's worth */
    assert_null(lab_summary_find(&res.summary, "acc_fp32"));   /* the model part did not run */
    assert_null(lab_summary_find(&res.summary, "formula_b2")); /* outside bits_min..max */
    lab_result_fini(&res);
    got_fini(&g);
}

/* Every part at small sizes: the figures each part promises, the GPU line. */
static void test_lab_all_small(void **state)
{
    (void)state;
    const char *set[] = {SMALL, "bits_min=2", "bits_max=8", NULL};
    struct lab_got g = {0};
    struct lab_result res;
    int rc = lab_test_run("quantize", set, NULL, &g, &res, NULL, 0);
    if (rc != 0)
        fail_msg("run failed: %s", res.error ? res.error : "?");
    assert_string_equal(res.status, "done");
    /* the model part */
    double fp32 = fig(&res, "acc_fp32");
    assert_true(fp32 > 25 && fp32 <= 100);
    assert_true(got_count(&g, "train_loss") == 2 && got_count(&g, "test_acc") == 2);
    for (int b = 2; b <= 8; b++) {
        double at = got_value(&g, "acc_tensor", b), ac = got_value(&g, "acc_channel", b);
        assert_true(at >= 0 && at <= 100 && ac >= 0 && ac <= 100);
        assert_true(got_value(&g, "size_kib", b) < got_value(&g, "size_fp32_kib", b));
    }
    assert_true(fig(&res, "size_ratio_b8") > 2 && fig(&res, "size_ratio_b8") < 4);
    assert_true(fig(&res, "size_ratio_b4") > fig(&res, "size_ratio_b8"));
    assert_true(fig(&res, "params") == 16 * 8 + 8 * 8 + 8 * 4 + 8 + 8 + 4);
    /* the GEMM part: sizes 64 only (gemm_n = 64), ours checked inside */
    assert_true(got_count(&g, "gemm_ours_s8") == 1);
    assert_pos_finite(fig(&res, "cpu_f32_gflops"));
    assert_pos_finite(fig(&res, "cpu_s8_gops"));
    assert_string_equal(fig_str(&res, "cpu_s8_path"), kern_gemm_path_name(kern_gemm_best(true)));
    char ver[160];
    if (kern_dnnl_probe(ver, sizeof ver))
        assert_pos_finite(fig(&res, "dnnl_s8_gops"));
    else
        assert_null(lab_summary_find(&res.summary, "dnnl_s8_gops"));
    assert_string_equal(fig_str(&res, "dnnl"), ver);
    /* the header: without a GPU the first line says so, and so does no_gpu */
    struct core_err why;
    if (kern_probe(NULL, &why) != 0) {
        assert_string_equal(fig_str(&res, "device"), "cpu");
        assert_string_equal(fig_str(&res, "no_gpu"), why.msg);
        assert_contains(g.first_log, why.msg);
        assert_contains(g.first_log, "skipped");
    }
    lab_result_fini(&res);
    got_fini(&g);
}

static int check(const char *const *set, struct core_err *err)
{
    struct lab_params p;
    lab_test_params(&p, "quantize", set);
    core_err_clear(err);
    int rc = lab_params_check(&p, err);
    lab_params_fini(&p);
    return rc;
}

static void test_lab_refusals(void **state)
{
    (void)state;
    struct core_err err;
    const char *a[] = {"bits_min=9", "bits_max=8", NULL};
    assert_int_equal(check(a, &err), CORE_ERR_INVALID);
    assert_contains(err.msg, "'bits_min' (9)");
    const char *b[] = {"channels=4", "outlier_channels=4", NULL};
    assert_int_equal(check(b, &err), CORE_ERR_INVALID);
    assert_contains(err.msg, "'outlier_channels' (4)");
    const char *c[] = {"gpu_n=1000", NULL};
    assert_int_equal(check(c, &err), CORE_ERR_INVALID);
    assert_contains(err.msg, "'gpu_n' (1000)");
    const char *d[] = {"n_samples=1024", "channels=128", NULL};
    assert_int_equal(check(d, &err), CORE_ERR_INVALID);
    assert_contains(err.msg, "'n_samples'");
    struct core_err why;
    if (kern_probe(NULL, &why) != 0) {
        const char *e[] = {"device=gpu", NULL};
        assert_int_equal(check(e, &err), CORE_ERR_INVALID);
        assert_contains(err.msg, "'device' is gpu");
        assert_contains(err.msg, why.msg);
    }
    /* ranges are the parameter reader's: named with the range */
    struct lab_params p;
    lab_params_init(&p, lab_find("quantize"));
    assert_int_equal(lab_params_set(&p, "bits_max", "17", &err), CORE_ERR_INVALID);
    assert_contains(err.msg, "bits_max");
    lab_params_fini(&p);
}

static void test_lab_cancel(void **state)
{
    (void)state;
    atomic_int cancel = 0;
    const char *set[] = {"part=sqnr", "n_samples=65536", NULL};
    struct lab_got g = {.cancel = &cancel, .cancel_after = 5};
    struct lab_result res;
    assert_int_equal(lab_test_run("quantize", set, NULL, &g, &res, NULL, 0), CORE_ERR_CANCELLED);
    assert_string_equal(res.status, "cancelled");
    assert_true(got_count(&g, "formula") < 15); /* stopped well before bit 16 */
    lab_result_fini(&res);
    got_fini(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quantizers_by_hand), cmocka_unit_test(test_formula_uniform_and_sine),
        cmocka_unit_test(test_best_clip),          cmocka_unit_test(test_mlp),
        cmocka_unit_test(test_lab_sqnr),           cmocka_unit_test(test_lab_all_small),
        cmocka_unit_test(test_lab_refusals),       cmocka_unit_test(test_lab_cancel),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
