/*
 * test_kern_coalesce_gpu.c — the coalescing kernels on a real GPU (CTest
 * label `gpu`). Every kernel runs on small buffers and kern_coal_measure
 * compares each output element with the CPU reference (a wrong element
 * fails the call with CORE_ERR_INTERNAL); the test checks that each call
 * succeeded, that the counts and bandwidths agree with each other, and
 * that bad requests are refused. No timing is asserted.
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
#include <string.h>

#define TEST_BYTES (16LL << 20)

static struct kern_coal *open_small(struct kern_coal_info *info)
{
    struct kern_coal *s = NULL;
    struct core_err err;
    struct kern_coal_opts o = {.bytes = TEST_BYTES, .seed = 12345};
    if (kern_coal_open(&s, &o, info, &err) != 0)
        fail_msg("kern_coal_open: %s", err.msg);
    return s;
}

static void measure_ok(struct kern_coal *s, int kind, int param, long long elems)
{
    struct kern_coal_meas m;
    struct core_err err;
    if (kern_coal_measure(s, kind, param, 3, &m, &err) != 0)
        fail_msg("%s(%d): %s", kern_coal_kind_name(kind), param, err.msg);
    assert_int_equal(m.elems, elems);
    assert_int_equal(m.reps, 3);
    assert_true(m.bytes == 8.0 * (double)elems);
    assert_true(m.ms_min > 0 && m.ms_min <= m.ms_median && m.ms_median <= m.ms_max);
    assert_true(isfinite(m.gbs) && m.gbs > 0);
    assert_true(fabs(m.gbs - m.bytes / (m.ms_median * 1e6)) <= 1e-9 * m.gbs);
}

/* Every kernel, every offset and stride, checked element by element. */
static void test_every_kernel(void **state)
{
    (void)state;
    struct kern_coal_info in;
    struct kern_coal *s = open_small(&in);
    assert_true(in.n > 0 && in.n * 4 <= TEST_BYTES);
    assert_int_equal(in.side % 32, 0);
    assert_true((long long)in.side * in.side <= in.n);
    assert_true((long long)(in.side + 32) * (in.side + 32) > in.n);
    long long sq = (long long)in.side * in.side;
    measure_ok(s, KERN_COAL_MEMCPY, 0, in.n);
    measure_ok(s, KERN_COAL_COPY, 0, in.n);
    measure_ok(s, KERN_COAL_COPY16, 0, in.n);
    measure_ok(s, KERN_COAL_SMEM_COPY, 0, sq);
    measure_ok(s, KERN_COAL_TRANSPOSE_NAIVE, 0, sq);
    measure_ok(s, KERN_COAL_TRANSPOSE_TILED, 0, sq);
    measure_ok(s, KERN_COAL_TRANSPOSE_PADDED, 0, sq);
    for (int o = 0; o <= KERN_COAL_MAX_OFFSET; o++)
        measure_ok(s, KERN_COAL_OFFSET, o, in.n);
    for (int st = 1; st <= KERN_COAL_MAX_STRIDE; st++)
        measure_ok(s, KERN_COAL_STRIDE, st, in.n / st);
    int got = -1;
    struct core_err err;
    if (kern_coal_set_l2_fetch(s, 32, &got, &err) == 0) {
        assert_true(got >= 0 && got <= 128);
        measure_ok(s, KERN_COAL_STRIDE, 8, in.n / 8);
    }
    kern_coal_close(s);
}

static void test_refusals(void **state)
{
    (void)state;
    struct kern_coal_info in;
    struct kern_coal *s = open_small(&in);
    struct kern_coal_meas m;
    struct core_err err;
    assert_int_equal(kern_coal_measure(s, KERN_COAL_OFFSET, 33, 3, &m, &err), CORE_ERR_INVALID);
    assert_non_null(strstr(err.msg, "0 to 32"));
    assert_int_equal(kern_coal_measure(s, KERN_COAL_STRIDE, 0, 3, &m, &err), CORE_ERR_INVALID);
    assert_non_null(strstr(err.msg, "1 to 32"));
    assert_int_equal(kern_coal_measure(s, KERN_COAL_COPY, 0, 0, &m, &err), CORE_ERR_INVALID);
    assert_non_null(strstr(err.msg, "repetitions"));
    assert_int_equal(kern_coal_measure(s, KERN_COAL_N_KINDS, 0, 3, &m, &err), CORE_ERR_INVALID);
    int got;
    assert_int_equal(kern_coal_set_l2_fetch(s, 200, &got, &err), CORE_ERR_INVALID);
    /* the session still works after refusals */
    measure_ok(s, KERN_COAL_COPY, 0, in.n);
    kern_coal_close(s);

    /* buffers larger than the device */
    struct kern_coal_opts big = {.bytes = in.dev.global_bytes};
    s = NULL;
    assert_int_equal(kern_coal_open(&s, &big, &in, &err), CORE_ERR_INVALID);
    assert_null(s);
    assert_non_null(strstr(err.msg, "GPU memory"));
}

static bool stop_now(void *ud)
{
    (void)ud;
    return true;
}

static void test_stop(void **state)
{
    (void)state;
    struct kern_coal *s = NULL;
    struct kern_coal_info in;
    struct core_err err;
    struct kern_coal_opts o = {.bytes = TEST_BYTES, .stop = stop_now};
    assert_int_equal(kern_coal_open(&s, &o, &in, &err), CORE_ERR_CANCELLED);
    assert_null(s);
}

int main(void)
{
    if (!gpu_test_found())
        return GPU_TEST_SKIP;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_kernel),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_stop),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
