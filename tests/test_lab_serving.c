/*
 * test_lab_serving.c — the serving lab: its books (every request answered
 * exactly once, refusals of an unknown id, a second answer, an answer before
 * dispatch; Little's law as an identity of the books; the window average;
 * quantiles worked by hand), the Poisson schedule's mean, the inputs and the
 * model (a row's answer does not depend on its batch), and the lab through
 * lab_run() at small sizes with real processes and sockets: counts
 * consistent, latencies non-negative, answers checked, Little's law
 * computed consistently; refusals; cancel with workers busy leaves no
 * child. No timing is asserted.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "labs/lab_author.h"
#include "labs/serving/lab_serve.h"
#include "lab_test_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- the books ------------------------------------------------------------------------- */

static void test_books_by_hand(void **state)
{
    (void)state;
    struct srv_book b;
    struct core_err err;
    lab_srv_book_init(&b);
    /* request 0: 0 -> 1 (dispatch) -> 3; request 1: 2 -> 3 -> 4; request 2: 5 -> 5 -> 6 */
    assert_int_equal(lab_srv_book_arrive(&b, 0, 10.0, &err), 0);
    assert_int_equal(lab_srv_book_dispatch(&b, 0, 11.0, 1, &err), 0);
    assert_int_equal(lab_srv_book_arrive(&b, 1, 12.0, &err), 0);
    assert_int_equal(lab_srv_book_done(&b, 0, 13.0, &err), 0);
    assert_int_equal(lab_srv_book_dispatch(&b, 1, 13.0, 1, &err), 0);
    assert_int_equal(lab_srv_book_done(&b, 1, 14.0, &err), 0);
    assert_int_equal(lab_srv_book_arrive(&b, 2, 15.0, &err), 0);
    assert_int_equal(lab_srv_book_dispatch(&b, 2, 15.0, 1, &err), 0);
    assert_int_equal(lab_srv_book_done(&b, 2, 16.0, &err), 0);
    lab_srv_book_batch(&b, 1), lab_srv_book_batch(&b, 1), lab_srv_book_batch(&b, 1);
    /* refusals, and the books unchanged by them */
    assert_int_equal(lab_srv_book_done(&b, 1, 17.0, &err), CORE_ERR_INTERNAL);
    assert_non_null(strstr(err.msg, "request 1 answered twice"));
    assert_int_equal(lab_srv_book_arrive(&b, 5, 17.0, &err), CORE_ERR_INTERNAL);
    assert_non_null(strstr(err.msg, "out of order, expected 3"));
    assert_int_equal(lab_srv_book_dispatch(&b, 9, 17.0, 1, &err), CORE_ERR_INTERNAL);
    assert_int_equal(lab_srv_book_arrive(&b, 3, 17.0, &err), 0);
    assert_int_equal(lab_srv_book_done(&b, 3, 17.5, &err), CORE_ERR_INTERNAL);
    assert_non_null(strstr(err.msg, "before it was dispatched"));
    assert_int_equal(lab_srv_book_arrive(&b, 4, 16.5, &err), CORE_ERR_INTERNAL); /* back in time */
    assert_int_equal(lab_srv_book_dispatch(&b, 3, 18.0, 1, &err), 0);
    assert_int_equal(lab_srv_book_done(&b, 3, 20.0, &err), 0);
    lab_srv_book_batch(&b, 1);

    struct srv_stats s;
    lab_srv_book_stats(&b, 20.0, &s);
    assert_int_equal(s.requests, 4);
    assert_int_equal(s.answered, 4);
    assert_true(b.in_system == 0 && b.in_queue == 0);
    /* times in system 3, 2, 1, 3: mean 2.25; in the queue 1, 1, 0, 1 */
    assert_true(fabs(s.w_mean - 2.25) < 1e-12);
    assert_true(fabs(s.wq_mean - 0.75) < 1e-12);
    assert_true(fabs(s.span - 10.0) < 1e-12);
    assert_true(fabs(s.lambda - 0.4) < 1e-12);
    /* L = (3 + 2 + 1 + 3) / 10 = 0.9 = λ W exactly */
    assert_true(fabs(s.l_mean - 0.9) < 1e-12);
    assert_true(fabs(s.little_lw - 0.9) < 1e-12);
    assert_true(s.little_err < 1e-12);
    assert_true(fabs(s.q_mean - 0.3) < 1e-12);
    /* quantiles of {1, 2, 3, 3}: p50 between 2 and 3 */
    assert_true(fabs(s.p50 - 2.5) < 1e-12);
    assert_true(fabs(s.w_min - 1) < 1e-12 && fabs(s.w_max - 3) < 1e-12);
    assert_true(fabs(s.batch_mean - 1) < 1e-12);
    /* the window [12, 16]: request 0 stays 1, request 1 stays 2, request 2 stays 1 */
    assert_true(fabs(lab_srv_book_window_l(&b, 12, 16) - 1.0) < 1e-12);
    assert_true(fabs(lab_srv_book_window_l(&b, 10, 20) - 0.9) < 1e-12);
    lab_srv_book_fini(&b);
}

/* Many random requests: the identity holds whatever the pattern. */
static void test_books_identity_random(void **state)
{
    (void)state;
    struct srv_book b;
    struct core_err err;
    struct srv_rng r;
    lab_srv_book_init(&b);
    lab_srv_rng_seed(&r, 42);
    double t = 0;
    size_t open = 0, next_done = 0;
    for (uint64_t id = 0; id < 5000; id++) {
        t += lab_srv_rng_gap(&r, 1000);
        assert_int_equal(lab_srv_book_arrive(&b, id, t, &err), 0);
        t += 1e-4;
        assert_int_equal(lab_srv_book_dispatch(&b, id, t, 1, &err), 0);
        open++;
        while (open > 3) { /* answer the oldest, in order */
            t += 1e-5;
            assert_int_equal(lab_srv_book_done(&b, next_done++, t, &err), 0);
            open--;
        }
    }
    while (next_done < 5000) {
        t += 1e-3;
        assert_int_equal(lab_srv_book_done(&b, next_done++, t, &err), 0);
    }
    struct srv_stats s;
    lab_srv_book_stats(&b, t, &s);
    assert_true(s.little_err < 1e-9);
    assert_true(fabs(lab_srv_book_window_l(&b, b.t0, t) - s.l_mean) < 1e-9 * s.l_mean);
    lab_srv_book_fini(&b);
}

static void test_quantile_and_fit(void **state)
{
    (void)state;
    double v[] = {5, 1, 4, 2, 3};
    assert_true(fabs(lab_stats_quantile(v, 5, 0.5) - 3) < 1e-12);
    assert_true(fabs(lab_stats_quantile(v, 5, 0.25) - 2) < 1e-12);
    assert_true(fabs(lab_stats_quantile(v, 5, 0.99) - 4.96) < 1e-12);
    assert_true(fabs(lab_stats_quantile(v, 5, 1.0) - 5) < 1e-12);
    assert_true(isnan(lab_stats_quantile(v, 0, 0.5)));
    double B[] = {1, 2, 4, 8}, T[] = {1.5, 2.0, 3.0, 5.0}, t0, c;
    lab_srv_fit_line(B, T, 4, &t0, &c);
    assert_true(fabs(t0 - 1.0) < 1e-12 && fabs(c - 0.5) < 1e-12);
}

static void test_poisson_and_inputs(void **state)
{
    (void)state;
    struct srv_rng r, r2;
    lab_srv_rng_seed(&r, 7);
    lab_srv_rng_seed(&r2, 7);
    double sum = 0, sq = 0;
    int n = 200000;
    for (int i = 0; i < n; i++) {
        double g = lab_srv_rng_gap(&r, 250.0);
        assert_true(g >= 0);
        assert_true(g == lab_srv_rng_gap(&r2, 250.0)); /* deterministic in the seed */
        sum += g, sq += g * g;
    }
    double mean = sum / n, var = sq / n - mean * mean;
    assert_true(fabs(mean - 0.004) < 0.004 * 0.02);      /* mean 1/λ */
    assert_true(fabs(sqrt(var) - 0.004) < 0.004 * 0.03); /* exponential: sd = mean */
    float a[8], b[8], c[8];
    lab_srv_input(3, 10, 8, a);
    lab_srv_input(3, 10, 8, b);
    lab_srv_input(3, 11, 8, c);
    assert_memory_equal(a, b, sizeof a);
    assert_memory_not_equal(a, c, sizeof a);
    for (int j = 0; j < 8; j++)
        assert_true(a[j] >= -1 && a[j] < 1);
}

/* A request's answer is the same alone or in any batch, bit for bit. */
static void test_model_batch_independent(void **state)
{
    (void)state;
    struct srv_model_dims dims = {12, 40};
    float *w = malloc(lab_srv_model_params(dims) * sizeof *w);
    assert_int_equal(lab_srv_model_params(dims), 40 * 12 + 40 + 12 * 40 + 12);
    lab_srv_model_init(dims, 5, w);
    struct srv_mlp m;
    struct core_err err;
    assert_int_equal(lab_srv_mlp_open(&m, dims, w, 9, &err), 0);
    float x[9 * 12], y[9 * 12], one[12];
    for (int i = 0; i < 9; i++)
        lab_srv_input(1, (uint64_t)i, 12, x + i * 12);
    lab_srv_mlp_forward(&m, x, 9, y);
    for (int i = 0; i < 9; i++) {
        lab_srv_mlp_forward(&m, x + i * 12, 1, one);
        assert_memory_equal(one, y + i * 12, sizeof one);
    }
    /* and it is the MLP: row 0 by plain loops */
    const float *w1 = w, *b1 = w1 + 40 * 12, *w2 = b1 + 40, *b2 = w2 + 12 * 40;
    for (int o = 0; o < 12; o++) {
        double s = b2[o];
        for (int h = 0; h < 40; h++) {
            double a = b1[h];
            for (int j = 0; j < 12; j++)
                a += (double)w1[h * 12 + j] * x[j];
            s += (double)w2[o * 40 + h] * (a > 0 ? a : 0);
        }
        assert_true(fabs(s - y[o]) < 1e-4 * (fabs(s) + 1));
    }
    lab_srv_mlp_close(&m);
    free(w);
}

/* ---- the lab ---------------------------------------------------------------------------- */

#define SMALL "d=16", "hidden=64", "max_batch=8", "duration_s=0.3", "device=cpu", "check_every=1"

static void test_lab_rate_sweep(void **state)
{
    (void)state;
    const char *set[] = {SMALL, "sweep=rate", "loads=0.2,0.6", "capacity=1000", "workers=2", NULL};
    struct lab_got g = {0};
    struct lab_result res;
    int rc = lab_test_run("serving", set, NULL, &g, &res, NULL, 0);
    if (rc != 0)
        fail_msg("run failed: %s", res.error ? res.error : "?");
    assert_no_children();
    /* every request answered exactly once, and every answer checked */
    double sent = fig(&res, "requests"), answered = fig(&res, "answered");
    assert_true(sent > 0);
    assert_true(sent == answered);
    assert_true(fig(&res, "duplicates") == 0);
    assert_true(fig(&res, "outputs_checked") == answered); /* check_every = 1 */
    assert_true(fig(&res, "output_max_diff") < 1e-3);
    assert_true(fig(&res, "latency_min_ms") >= 0);
    /* the books' identity L = λ W holds to rounding at every point */
    assert_true(fig(&res, "little_identity_max") < 1e-9);
    const char *loads[] = {"load20", "load60"};
    for (int i = 0; i < 2; i++) {
        char k[64];
        double rate_i, w_i;
#define F(stem) (snprintf(k, sizeof k, "%s_%s", stem, loads[i]), fig(&res, k))
        rate_i = F("rate");
        w_i = F("w_ms");
        double p50 = F("p50_ms"), p95 = F("p95_ms"), p99 = F("p99_ms"), wq = F("wait_ms");
        assert_true(p50 >= 0 && p50 <= p95 && p95 <= p99);
        assert_true(w_i >= wq && wq >= 0);
        assert_true(F("batch") >= 1 && F("batch") <= 8);
        assert_true(F("queue") >= 0 && F("little_l") >= 0);
        /* λ W is the rate set times W, as the figure says */
        assert_close(F("little_lw"), rate_i * w_i / 1000, 1e-9);
        assert_true(F("util") >= 0 && F("util") <= 100.5);
#undef F
    }
    assert_true(fig(&res, "rate_load60") > fig(&res, "rate_load20"));
    assert_close(fig(&res, "rate_load60"), 600, 1e-9);
    assert_true(fig(&res, "capacity_bmax") > 0 && fig(&res, "capacity_b1") > 0);
    assert_true(fig(&res, "workers") == 2);
    /* one point per load on the charts; the histogram of batch sizes */
    assert_int_equal(got_count(&g, "p99_ms"), 2);
    assert_int_equal(got_count(&g, "little_lw"), 2);
    assert_true(got_count(&g, "batch_hist") >= 8);
    assert_int_equal(got_count(&g, "service_ms"), 4); /* B = 1, 2, 4, 8 */
    assert_true(got_count(&g, "live_system") >= 1);
    assert_string_equal(fig_str(&res, "device"), "cpu");
    lab_result_fini(&res);
    got_fini(&g);
}

/* The max-batch sweep at a rate set, and sweep=none at one rate. */
static void test_lab_batch_sweep_and_one(void **state)
{
    (void)state;
    const char *set[] = {SMALL, "sweep=batch", "rate=300", "max_wait_ms=1", NULL};
    struct lab_got g = {0};
    struct lab_result res;
    if (lab_test_run("serving", set, NULL, &g, &res, NULL, 0) != 0)
        fail_msg("run failed: %s", res.error ? res.error : "?");
    assert_true(fig(&res, "batch_rate") == 300);
    for (int b = 1; b <= 8; b *= 2) {
        char k[32];
        snprintf(k, sizeof k, "batch_mb%d", b);
        assert_true(fig(&res, k) >= 1 && fig(&res, k) <= b);
    }
    assert_int_equal(got_count(&g, "mb_p99_ms"), 4);
    assert_true(fig(&res, "requests") == fig(&res, "answered"));
    lab_result_fini(&res);
    got_fini(&g);

    const char *one[] = {SMALL, "sweep=none", "rate=200", NULL};
    struct lab_got g2 = {0};
    if (lab_test_run("serving", one, NULL, &g2, &res, NULL, 0) != 0)
        fail_msg("run failed: %s", res.error ? res.error : "?");
    assert_true(fig(&res, "rate_one") == 200);
    assert_true(fig(&res, "requests") == fig(&res, "answered"));
    assert_no_children();
    lab_result_fini(&res);
    got_fini(&g2);
}

static int check(const char *const *set, struct core_err *err)
{
    struct lab_params p;
    lab_test_params(&p, "serving", set);
    core_err_clear(err);
    int rc = lab_params_check(&p, err);
    lab_params_fini(&p);
    return rc;
}

static void test_lab_refusals(void **state)
{
    (void)state;
    struct core_err err;
    const char *a[] = {"loads=0.5,2", NULL};
    assert_int_equal(check(a, &err), CORE_ERR_INVALID);
    assert_contains(err.msg, "'loads'");
    const char *b[] = {"loads=0.5;0.7", NULL};
    assert_int_equal(check(b, &err), CORE_ERR_INVALID);
    assert_contains(err.msg, "expected ','");
    const char *c[] = {"sweep=none", NULL};
    assert_int_equal(check(c, &err), CORE_ERR_INVALID);
    assert_contains(err.msg, "'rate'");
    const char *d[] = {"rate=900000", "duration_s=60", NULL};
    assert_int_equal(check(d, &err), CORE_ERR_INVALID);
    assert_contains(err.msg, "'duration_s'");
    const char *e[] = {"d=4096", "hidden=65536", "workers=16", NULL};
    assert_int_equal(check(e, &err), CORE_ERR_INVALID);
    assert_contains(err.msg, "'hidden'");
    struct core_err why;
    if (kern_probe(NULL, &why) != 0) {
        const char *f[] = {"device=gpu", NULL};
        assert_int_equal(check(f, &err), CORE_ERR_INVALID);
        assert_contains(err.msg, why.msg);
    }
}

/* Without a GPU (device auto) the first line says why, and no_gpu too. */
static void test_lab_no_gpu_header(void **state)
{
    (void)state;
    struct core_err why;
    if (kern_probe(NULL, &why) == 0)
        return; /* a GPU is here: the GPU worker serves instead */
    const char *set[] = {"d=16",       "hidden=64", "max_batch=4", "duration_s=0.1",
                         "sweep=none", "rate=100",  "device=auto", NULL};
    struct lab_got g = {0};
    struct lab_result res;
    assert_int_equal(lab_test_run("serving", set, NULL, &g, &res, NULL, 0), 0);
    assert_contains(g.first_log, why.msg);
    assert_string_equal(fig_str(&res, "no_gpu"), why.msg);
    assert_string_equal(fig_str(&res, "device"), "cpu");
    lab_result_fini(&res);
    got_fini(&g);
}

/* Cancel while requests flow: cancelled, no child left. */
static void test_lab_cancel(void **state)
{
    (void)state;
    atomic_int cancel = 0;
    const char *set[] = {"d=16",          "hidden=64",  "max_batch=4",
                         "duration_s=30", "sweep=none", "rate=200",
                         "device=cpu",    "workers=2",  NULL};
    struct lab_got g = {.cancel = &cancel, .cancel_after = 12};
    struct lab_result res;
    assert_int_equal(lab_test_run("serving", set, NULL, &g, &res, NULL, 0), CORE_ERR_CANCELLED);
    assert_string_equal(res.status, "cancelled");
    assert_no_children();
    lab_result_fini(&res);
    got_fini(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_books_by_hand),
        cmocka_unit_test(test_books_identity_random),
        cmocka_unit_test(test_quantile_and_fit),
        cmocka_unit_test(test_poisson_and_inputs),
        cmocka_unit_test(test_model_batch_independent),
        cmocka_unit_test(test_lab_rate_sweep),
        cmocka_unit_test(test_lab_batch_sweep_and_one),
        cmocka_unit_test(test_lab_refusals),
        cmocka_unit_test(test_lab_no_gpu_header),
        cmocka_unit_test(test_lab_cancel),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
