/*
 * kern_nocublas.c — the cuBLAS entry points of a build without cuBLAS
 * (no CUDA, or CUDA without its cuBLAS library): each fails with one line
 * saying why. Built only when kern_cublas.cu is not (kernels/CMakeLists.txt).
 */
#include "kernels/kernels.h"

#include <string.h>

static int no_cublas(struct core_err *err)
{
    struct core_err why;
    core_err_clear(&why);
    if (kern_probe(NULL, &why) != 0) /* no CUDA, no driver or no device: say that */
        return core_err_set(err, CORE_ERR_IO, "%s", why.msg);
    return core_err_set(
        err, CORE_ERR_IO,
        "no cuBLAS: this build has CUDA but no cuBLAS (not in the toolkit, or WB_CUBLAS=OFF)");
}

bool kern_built_with_cublas(void)
{
    return false;
}

int kern_gemm_gpu_measure(int n, int reps, uint64_t seed, bool (*stop)(void *), void *ud,
                          struct kern_gemm_gpu_meas *m, struct core_err *err)
{
    (void)n, (void)reps, (void)seed, (void)stop, (void)ud;
    if (m)
        memset(m, 0, sizeof *m);
    return no_cublas(err);
}

int kern_mlp_gpu_new(struct kern_mlp_gpu **out, int d_in, int hidden, int d_out, const float *w1,
                     const float *b1, const float *w2, const float *b2, int max_batch,
                     struct core_err *err)
{
    (void)d_in, (void)hidden, (void)d_out, (void)w1, (void)b1, (void)w2, (void)b2, (void)max_batch;
    if (out)
        *out = NULL;
    return no_cublas(err);
}

int kern_mlp_gpu_forward(struct kern_mlp_gpu *g, const float *x, int batch, float *y,
                         struct core_err *err)
{
    (void)g, (void)x, (void)batch, (void)y;
    return no_cublas(err);
}

void kern_mlp_gpu_free(struct kern_mlp_gpu *g)
{
    (void)g;
}
