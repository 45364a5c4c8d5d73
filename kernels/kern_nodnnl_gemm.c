/*
 * kern_nodnnl_gemm.c — the oneDNN entry points of a build without oneDNN:
 * each says so in one line. Built only when CMake did not find libdnnl-dev
 * (see kernels/CMakeLists.txt).
 */
#include "kernels/kernels.h"

#include <stdio.h>

#define NO_DNNL "this build has no oneDNN (libdnnl-dev was not found at build time)"

bool kern_dnnl_probe(char *version, size_t size)
{
    if (version && size)
        snprintf(version, size, "%s", NO_DNNL);
    return false;
}

int kern_dnnl_gemm_f32(int threads, const float *A, const float *B, float *C, int m, int k, int n,
                       struct core_err *err)
{
    (void)threads, (void)A, (void)B, (void)C, (void)m, (void)k, (void)n;
    return core_err_set(err, CORE_ERR_IO, "%s", NO_DNNL);
}

int kern_dnnl_gemm_s8(int threads, const int8_t *A, const int8_t *B, int32_t *C, int m, int k,
                      int n, struct core_err *err)
{
    (void)threads, (void)A, (void)B, (void)C, (void)m, (void)k, (void)n;
    return core_err_set(err, CORE_ERR_IO, "%s", NO_DNNL);
}
