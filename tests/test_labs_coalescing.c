/*
 * test_labs_coalescing.c — the coalescing lab through lab_run() at tiny
 * sizes, on its CPU analog (device=cpu: the same path a machine without a
 * GPU takes, and what runs here whether or not there is one). The series
 * are checked against each other and against the model, the summary
 * against the series, the refusals for their messages; never the speed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "cmocka_skip.h"

#include "kernels/kern_internal.h"
#include "lab_test_util.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static int run_lab(const char *const *set, const struct lab_machine *m, struct lab_got *g,
                   struct lab_result *res)
{
    return lab_test_run("coalescing", set, m, g, res, NULL, 0);
}

/* The CPU analog end to end: every point measured, checked and set beside
 * the model for 64-byte lines with write-allocate. */
static void test_cpu_small(void **state)
{
    (void)state;
    struct lab_machine m;
    lab_machine_probe(&m);
    m.line_bytes = 64;
    m.l3_bytes = 32L << 20; /* two 1 MiB arrays are less than twice that: one warning */
    struct lab_got g = {0};
    struct lab_result res;
    const char *set[] = {"device=cpu",   "cpu_mib=1",    "cpu_reps=1",
                         "offset_max=4", "stride_max=9", NULL};
    assert_int_equal(run_lab(set, &m, &g, &res), 0);
    assert_string_equal(res.status, "done");
    assert_string_equal(fig_str(&res, "device"), "cpu");
    assert_null(lab_summary_find(&res.summary, "no_gpu")); /* device=cpu is a choice */
    assert_int_equal(g.warns, 1);
    assert_non_null(strstr(g.first_log, "device=cpu"));
    /* the key figure comes first */
    assert_string_equal(res.summary.v[0].key, "cpu_copy_gbs");

    double copy = fig(&res, "cpu_copy_gbs");
    assert_pos_finite(copy);
    assert_pos_finite(fig(&res, "cpu_memcpy_gbs"));
    assert_close(fig(&res, "cpu_copy_frac_memcpy"), copy / fig(&res, "cpu_memcpy_gbs"), 1e-12);
    assert_int_equal(got_count(&g, "ladder_gbs"), 4);
    assert_close(got_value(&g, "ladder_gbs", 2), copy, 1e-12);
    assert_close(fig(&res, "cpu_blocked_over_naive"),
                 fig(&res, "cpu_transpose_blocked_gbs") / fig(&res, "cpu_transpose_naive_gbs"),
                 1e-12);
    assert_close(fig(&res, "cpu_side"), 512, 0); /* 1 MiB of floats: 512 x 512 */

    assert_int_equal(got_count(&g, "offset_gbs"), 5);
    assert_int_equal(got_count(&g, "offset_req_gbs"), 0); /* no warps on a CPU */
    for (int o = 0; o <= 4; o++) {
        assert_pos_finite(got_value(&g, "offset_gbs", o));
        assert_close(got_value(&g, "offset_model_gbs", o), copy, 1e-12); /* model: 1 */
    }
    assert_int_equal(got_count(&g, "stride_gbs"), 9);
    double worst = 0;
    for (int s = 1; s <= 9; s++) {
        double gbs = got_value(&g, "stride_gbs", s), frac = got_value(&g, "stride_frac", s);
        assert_pos_finite(gbs);
        assert_close(frac, gbs / copy, 1e-12);
        /* the model for 64-byte lines and write-allocate: (4 + 8) / (min(4s, 64) + 8) */
        double model = 12.0 / (fmin(4.0 * s, 64) + 8);
        assert_close(got_value(&g, "stride_model_frac", s), model, 1e-12);
        assert_close(got_value(&g, "stride_model_gbs", s), model * copy, 1e-12);
        worst = fmax(worst, fabs(frac / model - 1));
    }
    assert_close(fig(&res, "cpu_stride_model_maxdev"), worst, 1e-12);
    assert_close(fig(&res, "cpu_stride4_gbs"), got_value(&g, "stride_gbs", 4), 1e-12);
    assert_close(fig(&res, "cpu_model_frac_stride8"), 0.3, 1e-12);
    assert_close(fig(&res, "cpu_stride8_frac_copy"), got_value(&g, "stride_frac", 8), 1e-12);
    assert_null(lab_summary_find(&res.summary, "cpu_stride16_gbs")); /* beyond stride_max */
    assert_null(lab_summary_find(&res.summary, "cpu_stride3_gbs"));  /* not a keyed point */
    assert_null(lab_summary_find(&res.summary, "copy_gbs"));         /* no GPU figures */

    /* the model's figures, whatever device ran */
    assert_close(fig(&res, "model_sectors_stride1"), 4, 0);
    assert_close(fig(&res, "model_sectors_stride2"), 8, 0);
    assert_close(fig(&res, "model_sectors_stride8"), 32, 0);
    assert_close(fig(&res, "model_sectors_offset1"), 5, 0);
    assert_close(fig(&res, "model_lines_offset1"), 2, 0);
    assert_close(fig(&res, "model_sectors_offset8"), 4, 0);
    assert_close(fig(&res, "model_frac_stride4"), 0.4, 1e-12);
    assert_close(fig(&res, "model_efficiency_stride4"), 0.25, 0);
    assert_close(fig(&res, "model_req_frac_offset1"), 256.0 / 288, 1e-12);
    assert_close(fig(&res, "model_sectors_copy16"), 16, 0);
    assert_close(fig(&res, "model_bank_ways_32x32"), 32, 0);
    assert_close(fig(&res, "model_bank_ways_32x33"), 1, 0);
    assert_close(fig(&res, "cpu_line_bytes"), 64, 0);
    lab_result_fini(&res);
    got_fini(&g);
}

/* With device=auto and no GPU, the first line says so, once. */
static void test_auto_without_gpu(void **state)
{
    (void)state;
    struct core_err why;
    if (kern_probe(NULL, &why) == 0)
        WB_SKIP("a GPU is here: the GPU path is the gpu-labelled tests' job");
    struct lab_machine m;
    lab_machine_probe(&m);
    m.l3_bytes = m.l2_bytes = 0; /* no cache warning: only the no-GPU one */
    struct lab_got g = {0};
    struct lab_result res;
    const char *set[] = {"cpu_mib=1", "cpu_reps=1", "offset_max=1", "stride_max=2", NULL};
    assert_int_equal(run_lab(set, &m, &g, &res), 0);
    assert_int_equal(g.warns, 1);
    assert_true(strncmp(g.first_log, "no GPU: ", 8) == 0);
    assert_non_null(strstr(g.first_log, why.msg));
    assert_non_null(strstr(g.first_log, "running the model and the CPU analog"));
    assert_string_equal(fig_str(&res, "device"), "cpu");
    assert_string_equal(fig_str(&res, "no_gpu"), why.msg);
    lab_result_fini(&res);
    got_fini(&g);
}

static void test_cancel(void **state)
{
    (void)state;
    atomic_int cancel = 0;
    struct lab_got g = {.cancel = &cancel, .cancel_after = 1};
    struct lab_result res;
    const char *set[] = {"device=cpu", "cpu_mib=4", "cpu_reps=2", NULL};
    assert_int_equal(run_lab(set, NULL, &g, &res), CORE_ERR_CANCELLED);
    assert_string_equal(res.status, "cancelled");
    assert_int_equal(got_count(&g, "ladder_gbs"), 1); /* stopped in the step after memcpy */
    assert_int_equal(got_count(&g, "stride_gbs"), 0);
    lab_result_fini(&res);
    got_fini(&g);
}

static void test_refusals(void **state)
{
    (void)state;
    const struct lab_def *d = lab_find("coalescing");
    struct lab_params p;
    struct core_err err;
    lab_params_init(&p, d);
    assert_int_equal(lab_params_set(&p, "offset_max", "33", &err), CORE_ERR_INVALID);
    assert_non_null(strstr(err.msg, "'offset_max'"));
    assert_non_null(strstr(err.msg, "0 to 32"));
    assert_int_equal(lab_params_set(&p, "stride_max", "0", &err), CORE_ERR_INVALID);
    assert_non_null(strstr(err.msg, "'stride_max'"));
    assert_int_equal(lab_params_set(&p, "device", "tpu", &err), CORE_ERR_INVALID);
    assert_non_null(strstr(err.msg, "auto|gpu|cpu"));
    assert_int_equal(lab_params_set(&p, "reps", "2", &err), CORE_ERR_INVALID);
    assert_int_equal(lab_params_set(&p, "cpu_mib", "0", &err), CORE_ERR_INVALID);
    struct core_err why;
    if (kern_probe(NULL, &why) != 0) {
        assert_int_equal(lab_params_set(&p, "device", "gpu", &err), 0);
        assert_int_equal(lab_params_check(&p, &err), CORE_ERR_INVALID);
        assert_non_null(strstr(err.msg, "'device'"));
        assert_non_null(strstr(err.msg, why.msg));
    }
    lab_params_fini(&p);

    /* arrays the machine cannot hold are refused before anything runs */
    struct lab_machine m;
    lab_machine_probe(&m);
    m.mem_bytes = 64L << 20; /* a pretend 64 MiB machine: two arrays of at most 16 MiB */
    struct lab_got g = {0};
    struct lab_result res;
    const char *set[] = {"device=cpu", "cpu_mib=17", NULL};
    assert_int_equal(run_lab(set, &m, &g, &res), CORE_ERR_INVALID);
    assert_non_null(strstr(res.error, "'cpu_mib' (17 MiB)"));
    assert_int_equal(g.n, 0);
    lab_result_fini(&res);
    got_fini(&g);
}

/* After a CUDA error broke the GPU earlier in the process (what a kernel
 * fault in one TUI run leaves), the next device=auto run takes the CPU
 * analog and says why, device=gpu is refused saying so, whether or not this
 * machine has a GPU. Marks the process: run last. */
static void test_after_gpu_failed(void **state)
{
    (void)state;
    kern_probe_fail("kernel 'copy': running: an illegal memory access was encountered");
    struct lab_machine m;
    lab_machine_probe(&m);
    m.l3_bytes = m.l2_bytes = 0;
    struct lab_got g = {0};
    struct lab_result res;
    const char *set[] = {"cpu_mib=1", "cpu_reps=1", "offset_max=1", "stride_max=2", NULL};
    assert_int_equal(run_lab(set, &m, &g, &res), 0);
    assert_string_equal(fig_str(&res, "device"), "cpu");
    assert_non_null(strstr(fig_str(&res, "no_gpu"), "the GPU failed earlier in this session"));
    assert_non_null(strstr(g.first_log, "until Warpbench restarts"));
    lab_result_fini(&res);
    got_fini(&g);

    struct lab_params p;
    struct core_err err;
    lab_params_init(&p, lab_find("coalescing"));
    assert_int_equal(lab_params_set(&p, "device", "gpu", &err), 0);
    assert_int_equal(lab_params_check(&p, &err), CORE_ERR_INVALID);
    assert_non_null(strstr(err.msg, "the GPU failed earlier in this session"));
    lab_params_fini(&p);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cpu_small),        cmocka_unit_test(test_auto_without_gpu),
        cmocka_unit_test(test_cancel),           cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_after_gpu_failed),
    };
    return wb_run_tests("test_labs_coalescing", tests, sizeof tests / sizeof tests[0], argc, argv);
}
