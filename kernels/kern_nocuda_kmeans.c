/*
 * kern_nocuda_kmeans.c — the k-means GPU entry points in a build without
 * CUDA: each fails with kern_probe's one line ("no GPU: this build has no
 * CUDA ..."). Built only when CMake did not find nvcc.
 */
#include "kernels/kernels.h"

static int no_gpu(struct core_err *err)
{
    struct core_err why;
    core_err_clear(&why);
    kern_probe(NULL, &why);
    return core_err_set(err, CORE_ERR_IO, "%s", why.msg);
}

int kern_kmeans_gpu_new(struct kern_km_gpu **out, const float *x, size_t n, int d, int k,
                        const size_t *bounds, int tasks, struct core_err *err)
{
    (void)x;
    (void)n;
    (void)d;
    (void)k;
    (void)bounds;
    (void)tasks;
    if (out)
        *out = NULL;
    return no_gpu(err);
}

int kern_kmeans_gpu_assign(struct kern_km_gpu *g, const float *centres, int32_t *labels,
                           double *sums, int64_t *counts, double *sse, double *kernel_s,
                           struct core_err *err)
{
    (void)g;
    (void)centres;
    (void)labels;
    (void)sums;
    (void)counts;
    (void)sse;
    if (kernel_s)
        *kernel_s = 0;
    return no_gpu(err);
}

void kern_kmeans_gpu_free(struct kern_km_gpu *g)
{
    (void)g;
}
