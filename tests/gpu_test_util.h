/*
 * gpu_test_util.h — the opening of the tests that need a real GPU (CTest
 * label `gpu`, SKIP_RETURN_CODE 77): test_kern_coalesce_gpu.c and
 * test_lab_kmeans_gpu.c. Without a GPU (no CUDA in the build, no driver, no
 * device) such a test says so in one line and exits 77, which CTest reports
 * as skipped, never as passed. Header-only (static inline); uses the
 * kernels module's device probe.
 */
#ifndef WB_TESTS_GPU_TEST_UTIL_H
#define WB_TESTS_GPU_TEST_UTIL_H

#include "kernels/kernels.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* The exit status of a test skipped for want of a GPU. */
#define GPU_TEST_SKIP 77

/* True when there is a GPU to test on, after printing "GPU: NAME (compute
 * X.Y)"; false after printing "skipped: no GPU (WHY)", when main returns
 * GPU_TEST_SKIP. */
static inline bool gpu_test_found(void)
{
    struct kern_device d;
    struct core_err err;
    core_err_clear(&err);
    if (kern_probe(&d, &err) != 0) {
        const char *why = strncmp(err.msg, "no GPU: ", 8) == 0 ? err.msg + 8 : err.msg;
        printf("skipped: no GPU (%s)\n", why);
        return false;
    }
    printf("GPU: %s (compute %d.%d)\n", d.name, d.cc_major, d.cc_minor);
    return true;
}

#endif
