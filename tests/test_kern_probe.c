/*
 * test_kern_probe.c — the GPU probe's words, without a GPU: every cause in
 * its own words (no CUDA build, no driver, a driver too old with both
 * versions, no device, a driver error, a GPU that failed earlier); the
 * probe on this machine naming its real cause (no NVIDIA driver at all must
 * not be called "too old"); and the failed mark, after which the probe and
 * every GPU entry point refuse with "restart" instead of trying again.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "kernels/kern_internal.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

static const char *explain(enum kern_probe_cause c, int drv, int rt, const char *detail)
{
    static char buf[256];
    kern_probe_explain(c, drv, rt, detail, buf, sizeof buf);
    return buf;
}

static void test_words(void **state)
{
    (void)state;
    const char *s = explain(KERN_PROBE_NO_CUDA_BUILD, 0, 0, NULL);
    assert_string_equal(s, "no GPU: this build has no CUDA (nvcc was not found at build time)");

    s = explain(KERN_PROBE_NO_DRIVER, 0, 13000, NULL);
    assert_true(strncmp(s, "no GPU: no NVIDIA driver is installed", 37) == 0);
    assert_null(strstr(s, "old"));
    assert_null(strstr(s, "insufficient"));
    assert_null(strstr(s, "version"));

    s = explain(KERN_PROBE_OLD_DRIVER, 12040, 13000, NULL);
    assert_non_null(strstr(s, "the NVIDIA driver is too old"));
    assert_non_null(strstr(s, "supports CUDA 12.4"));
    assert_non_null(strstr(s, "runtime is CUDA 13.0"));
    assert_non_null(strstr(s, "update the driver"));

    s = explain(KERN_PROBE_NO_DEVICE, 12080, 13000, NULL);
    assert_non_null(strstr(s, "no CUDA device found"));
    assert_non_null(strstr(s, "CUDA 12.8"));

    s = explain(KERN_PROBE_DRIVER_ERROR, 13000, 13000, "cudaGetDeviceCount: busy (X)");
    assert_non_null(strstr(s, "could not be used: cudaGetDeviceCount: busy (X)"));

    s = explain(KERN_PROBE_DEVICE_ERROR, 13000, 13000, NULL);
    assert_non_null(strstr(s, "cannot read device 0: no details"));

    s = explain(KERN_PROBE_FAILED, 0, 0, "kernel 'copy': running: illegal address");
    assert_non_null(strstr(s, "failed earlier in this session (kernel 'copy': running: "
                              "illegal address)"));
    assert_non_null(strstr(s, "until Warpbench restarts"));

    /* a short buffer is cut, never overrun */
    char tiny[12];
    kern_probe_explain(KERN_PROBE_OLD_DRIVER, 12040, 13000, NULL, tiny, sizeof tiny);
    assert_int_equal(strlen(tiny), sizeof tiny - 1);
}

/* The probe on this machine says what is really missing. */
static void test_probe_here(void **state)
{
    (void)state;
    struct core_err e;
    core_err_clear(&e);
    struct kern_device d;
    int rc = kern_probe(&d, &e);
    if (!kern_built_with_cuda()) {
        assert_int_equal(rc, CORE_ERR_NOTFOUND);
        assert_string_equal(e.msg, explain(KERN_PROBE_NO_CUDA_BUILD, 0, 0, NULL));
        return;
    }
    void *libcuda = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (!libcuda) {
        /* no driver library at all: the runtime calls that "insufficient
         * driver"; the probe must call it what it is */
        print_message("no libcuda here: %s\n", e.msg);
        assert_int_equal(rc, CORE_ERR_NOTFOUND);
        assert_true(strncmp(e.msg, "no GPU: no NVIDIA driver is installed", 37) == 0);
        assert_null(strstr(e.msg, "too old"));
        assert_null(strstr(e.msg, "insufficient"));
        return;
    }
    dlclose(libcuda);
    if (rc == 0) {
        print_message("device: %s (CUDA driver %d, runtime %d)\n", d.name, d.driver_version,
                      d.runtime_version);
        assert_true(d.runtime_version > 0 && d.driver_version >= d.runtime_version / 1000 * 1000);
    } else {
        print_message("driver here, no GPU: %s\n", e.msg);
        assert_true(strncmp(e.msg, "no GPU: ", 8) == 0);
        assert_null(strstr(e.msg, "no NVIDIA driver is installed"));
    }
}

/* After a failure that broke the context, nothing tries the GPU again:
 * the probe says so (the first failure named), and so does every entry
 * point, without touching CUDA. Process-wide: run last. */
static void test_failed_mark(void **state)
{
    (void)state;
    char buf[256];
    assert_false(kern_probe_failed(buf, sizeof buf));
    kern_probe_fail("kernel 'copy': running: an illegal memory access was encountered");
    kern_probe_fail("a later one");
    assert_true(kern_probe_failed(buf, sizeof buf));
    struct core_err e;
    core_err_clear(&e);
    assert_int_equal(kern_probe(NULL, &e), CORE_ERR_NOTFOUND);
    assert_string_equal(e.msg, buf);
    assert_non_null(strstr(e.msg, "failed earlier in this session (kernel 'copy': running: an "
                                  "illegal memory access was encountered)"));
    assert_null(strstr(e.msg, "a later one"));

    struct kern_coal *s = (struct kern_coal *)&e; /* must be set to NULL */
    struct kern_coal_opts o = {.bytes = 1 << 20};
    assert_int_equal(kern_coal_open(&s, &o, NULL, &e), CORE_ERR_IO);
    assert_null(s);
    assert_non_null(strstr(e.msg, "until Warpbench restarts"));

    float x[4] = {0, 1, 2, 3};
    size_t bounds[2] = {0, 2};
    struct kern_km_gpu *g = (struct kern_km_gpu *)&e;
    assert_int_equal(kern_kmeans_gpu_new(&g, x, 2, 2, 1, bounds, 1, &e), CORE_ERR_IO);
    assert_null(g);
    assert_non_null(strstr(e.msg, "failed earlier in this session"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_words),
        cmocka_unit_test(test_probe_here),
        cmocka_unit_test(test_failed_mark),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
