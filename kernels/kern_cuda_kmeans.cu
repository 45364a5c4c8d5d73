/*
 * kern_cuda_kmeans.cu — the k-means map step on the GPU (built only with
 * CUDA): nearest centre for every point and the per-task partial sums the
 * k-means lab's reduce adds up, with the arithmetic of kernels.h.
 *
 * Two kernels per step, on one stream between two CUDA events:
 *  - km_assign: one block of KM_THREADS threads per slice of at most
 *    KM_BLOCK points of one task (a block never straddles two tasks). Each
 *    thread takes every KM_THREADS-th point of the slice, keeps it in
 *    registers when d <= KM_REG_D, and finds
 *    its nearest centre with __fsub_rn/__fmul_rn/__fadd_rn: those are never
 *    contracted into an FMA, so the distances — and so the labels — are the
 *    CPU's bit for bit (nvcc fuses a*b+c by default). The centres sit in
 *    shared memory when they fit. Then the block adds up its points per
 *    cluster: one thread per (cluster, coordinate) pair walks the block's
 *    points in order, in double; counts and the SSE likewise. No atomics,
 *    so the result does not depend on scheduling.
 *  - km_task_sum: one block per task adds its blocks' partials in block
 *    order.
 * The points are uploaded once (kern_kmeans_gpu_new) and stay on the device
 * for every step; each step uploads k·d centres and downloads tasks·k·(d+1)
 * partials (and n labels when asked).
 *
 * Every CUDA call's status is checked; an error names the call and CUDA's
 * message, clears the runtime's error state (kern_cuda_error: an earlier
 * out-of-memory is not reported again by a later launch), marks the GPU
 * failed when the error broke the context, and frees what the call had
 * allocated. A kernel's fault is reported as the kernels' (the step waits
 * for the kernels' end event before it copies anything back).
 *
 * Timing: the kernels are loaded when the session opens (cudaFuncGetAttributes
 * on each), so the first step's time does not include CUDA's lazy loading of
 * the module; the lab reports the median step.
 */
#include "kernels/kern_internal.h"

#include <cuda_runtime.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KM_THREADS 256                 /* threads per block */
#define KM_PPT 8                       /* points per thread */
#define KM_BLOCK (KM_THREADS * KM_PPT) /* points per assign block */
#define KM_REG_D 32                    /* points with d up to this stay in registers */
#define KM_SMEM_MAX 49152              /* dynamic shared memory without opting in */

struct kern_km_gpu {
    size_t n;
    int d, k, tasks, nblocks;
    bool smem_centres;
    size_t smem_bytes;
    float *d_x, *d_c;
    int32_t *d_lab;
    long long *d_blo;        /* first point of each assign block */
    int *d_bn;               /* points in each block */
    int *d_tfirst;           /* first block of each task; tasks + 1 entries */
    double *d_bsum, *d_bsse; /* per block */
    long long *d_bcnt;
    double *d_tsum, *d_tsse; /* per task */
    long long *d_tcnt;
    long long *h_tcnt; /* host staging for the counts (long long vs int64_t) */
    cudaStream_t stream;
    cudaEvent_t e0, e1;
    bool have_stream, have_events;
};

/* ---- the kernels ----------------------------------------------------------- */

/* The nearest centre of point p (d coordinates at xp) among k centres at cs.
 * REG: the point is first copied into registers (d <= KM_REG_D). */
template <bool REG>
__device__ void km_nearest(const float *__restrict__ xp, const float *__restrict__ cs, int d, int k,
                           int *label, float *dist)
{
    float xr[REG ? KM_REG_D : 1];
    if (REG) {
#pragma unroll
        for (int j = 0; j < KM_REG_D; j++)
            xr[j] = j < d ? xp[j] : 0.0f;
    }
    float best = INFINITY;
    int bi = 0;
    for (int c = 0; c < k; c++) {
        const float *cc = cs + (size_t)c * d;
        float s = 0.0f;
        if (REG) {
#pragma unroll
            for (int j = 0; j < KM_REG_D; j++) {
                if (j < d) {
                    float t = __fsub_rn(xr[j], cc[j]);
                    s = __fadd_rn(s, __fmul_rn(t, t));
                }
            }
        } else {
            for (int j = 0; j < d; j++) {
                float t = __fsub_rn(xp[j], cc[j]);
                s = __fadd_rn(s, __fmul_rn(t, t));
            }
        }
        if (s < best) {
            best = s;
            bi = c;
        }
    }
    *label = bi;
    *dist = best;
}

template <bool REG>
__global__ void km_assign(const float *__restrict__ x, const float *__restrict__ centres,
                          const long long *__restrict__ blo, const int *__restrict__ bn, int d,
                          int k, bool smem_centres, int32_t *__restrict__ labels,
                          double *__restrict__ bsum, long long *__restrict__ bcnt,
                          double *__restrict__ bsse)
{
    extern __shared__ double km_smem_d[];      /* double: keeps every part aligned */
    int *slab = (int *)km_smem_d;              /* KM_BLOCK labels */
    float *sdist = (float *)(slab + KM_BLOCK); /* KM_BLOCK distances */
    float *sc = sdist + KM_BLOCK;              /* k*d centres, when they fit */
    const int b = blockIdx.x;
    const long long lo = blo[b];
    const int m = bn[b];
    const int kd = k * d;

    if (smem_centres)
        for (int q = threadIdx.x; q < kd; q += blockDim.x)
            sc[q] = centres[q];
    __syncthreads();
    const float *cs = smem_centres ? sc : centres;

    for (int i = threadIdx.x; i < m; i += blockDim.x) {
        const float *xp = x + (size_t)(lo + i) * d;
        int lab;
        float dist;
        km_nearest<REG>(xp, cs, d, k, &lab, &dist);
        slab[i] = lab;
        sdist[i] = dist;
        if (labels)
            labels[lo + i] = lab;
    }
    __syncthreads();

    /* The block's partials, each added over its points in index order. */
    const float *xb = x + (size_t)lo * d;
    for (int q = threadIdx.x; q < kd; q += blockDim.x) {
        const int c = q / d, j = q % d;
        double acc = 0.0;
        for (int r = 0; r < m; r++)
            if (slab[r] == c)
                acc += (double)xb[(size_t)r * d + j];
        bsum[(size_t)b * kd + q] = acc;
    }
    for (int c = threadIdx.x; c < k; c += blockDim.x) {
        long long cnt = 0;
        for (int r = 0; r < m; r++)
            cnt += slab[r] == c;
        bcnt[(size_t)b * k + c] = cnt;
    }
    if (threadIdx.x == 0) {
        double acc = 0.0;
        for (int r = 0; r < m; r++)
            acc += (double)sdist[r];
        bsse[b] = acc;
    }
}

/* Task t's partials: its blocks' partials added in block order. */
__global__ void km_task_sum(const int *__restrict__ tfirst, int k, int d,
                            const double *__restrict__ bsum, const long long *__restrict__ bcnt,
                            const double *__restrict__ bsse, double *__restrict__ tsum,
                            long long *__restrict__ tcnt, double *__restrict__ tsse)
{
    const int t = blockIdx.x;
    const int b0 = tfirst[t], b1 = tfirst[t + 1];
    const int kd = k * d;
    for (int q = threadIdx.x; q < kd; q += blockDim.x) {
        double acc = 0.0;
        for (int b = b0; b < b1; b++)
            acc += bsum[(size_t)b * kd + q];
        tsum[(size_t)t * kd + q] = acc;
    }
    for (int c = threadIdx.x; c < k; c += blockDim.x) {
        long long cnt = 0;
        for (int b = b0; b < b1; b++)
            cnt += bcnt[(size_t)b * k + c];
        tcnt[(size_t)t * k + c] = cnt;
    }
    if (threadIdx.x == 0) {
        double acc = 0.0;
        for (int b = b0; b < b1; b++)
            acc += bsse[b];
        tsse[t] = acc;
    }
}

/* ---- the session ----------------------------------------------------------- */

#define CK(call, what)                                                                             \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            rc = km_fail(err, e_, what);                                                           \
            goto out;                                                                              \
        }                                                                                          \
    } while (0)

/* The error of a failed call `what`: CORE_ERR_IO with CUDA's words, after
 * kern_cuda_error (cleared; the GPU marked failed when the context broke). */
static int km_fail(struct core_err *err, cudaError_t e, const char *what)
{
    char m[128];
    snprintf(m, sizeof m, "k-means GPU: %s", what);
    bool broken = kern_cuda_error(e, m);
    return core_err_set(err, CORE_ERR_IO, "k-means GPU: %s failed: %s (%s)%s", what,
                        cudaGetErrorString(e), cudaGetErrorName(e),
                        broken ? "; the GPU cannot be used again until Warpbench restarts" : "");
}

extern "C" void kern_kmeans_gpu_free(struct kern_km_gpu *g)
{
    if (!g)
        return;
    /* Frees ignore errors: after a failed call the context may be gone, and
     * there is nothing better to do with a failing free. */
    cudaFree(g->d_x);
    cudaFree(g->d_c);
    cudaFree(g->d_lab);
    cudaFree(g->d_blo);
    cudaFree(g->d_bn);
    cudaFree(g->d_tfirst);
    cudaFree(g->d_bsum);
    cudaFree(g->d_bsse);
    cudaFree(g->d_bcnt);
    cudaFree(g->d_tsum);
    cudaFree(g->d_tsse);
    cudaFree(g->d_tcnt);
    if (g->have_events) {
        cudaEventDestroy(g->e0);
        cudaEventDestroy(g->e1);
    }
    if (g->have_stream)
        cudaStreamDestroy(g->stream);
    cudaGetLastError(); /* leave no error behind for the next caller */
    free(g->h_tcnt);
    free(g);
}

extern "C" int kern_kmeans_gpu_new(struct kern_km_gpu **out, const float *x, size_t n, int d, int k,
                                   const size_t *bounds, int tasks, struct core_err *err)
{
    struct kern_km_gpu *g = NULL;
    long long *h_blo = NULL;
    int *h_bn = NULL, *h_tfirst = NULL;
    size_t kd = 0;
    int rc = 0, nb = 0;
    struct core_err why;

    *out = NULL;
    if (n < 1 || d < 1 || d > KERN_KM_MAX_D || k < 1 || k > KERN_KM_MAX_K || tasks < 1 ||
        bounds[0] != 0 || bounds[tasks] != n)
        return core_err_set(err, CORE_ERR_INVALID,
                            "k-means GPU: sizes out of range (n %zu, d %d, k %d, tasks %d)", n, d,
                            k, tasks);
    for (int t = 0; t < tasks; t++) {
        if (bounds[t + 1] < bounds[t])
            return core_err_set(err, CORE_ERR_INVALID, "k-means GPU: task %d ends before it starts",
                                t + 1);
        nb += (int)((bounds[t + 1] - bounds[t] + KM_BLOCK - 1) / KM_BLOCK);
    }
    core_err_clear(&why);
    if (kern_probe(NULL, &why) != 0)
        return core_err_set(err, CORE_ERR_IO, "%s", why.msg);

    g = (struct kern_km_gpu *)calloc(1, sizeof *g);
    h_blo = (long long *)malloc((size_t)nb * sizeof *h_blo);
    h_bn = (int *)malloc((size_t)nb * sizeof *h_bn);
    h_tfirst = (int *)malloc(((size_t)tasks + 1) * sizeof *h_tfirst);
    if (!g || !h_blo || !h_bn || !h_tfirst) {
        rc = core_err_set(err, CORE_ERR_IO, "k-means GPU: out of host memory");
        goto out;
    }
    g->n = n;
    g->d = d;
    g->k = k;
    g->tasks = tasks;
    g->nblocks = nb;
    kd = (size_t)k * (size_t)d;
    {
        int b = 0;
        for (int t = 0; t < tasks; t++) {
            h_tfirst[t] = b;
            for (size_t lo = bounds[t]; lo < bounds[t + 1]; lo += KM_BLOCK, b++) {
                size_t left = bounds[t + 1] - lo;
                h_blo[b] = (long long)lo;
                h_bn[b] = (int)(left < KM_BLOCK ? left : KM_BLOCK);
            }
        }
        h_tfirst[tasks] = b;
    }
    g->h_tcnt = (long long *)malloc((size_t)tasks * (size_t)k * sizeof *g->h_tcnt);
    if (!g->h_tcnt) {
        rc = core_err_set(err, CORE_ERR_IO, "k-means GPU: out of host memory");
        goto out;
    }
    /* labels and distances always; the centres too when they fit */
    g->smem_bytes = (size_t)KM_BLOCK * (sizeof(int) + sizeof(float));
    g->smem_centres = g->smem_bytes + kd * sizeof(float) <= KM_SMEM_MAX;
    if (g->smem_centres)
        g->smem_bytes += kd * sizeof(float);

    cudaGetLastError(); /* whatever an earlier caller left is not this session's error */
    CK(cudaSetDevice(0), "cudaSetDevice(0)");
    /* Load the kernels now (CUDA loads a module lazily, at a kernel's first
     * launch otherwise): the first step's time is then the kernels' own. */
    {
        struct cudaFuncAttributes fa;
        CK(cudaFuncGetAttributes(&fa, km_assign<true>), "loading km_assign");
        CK(cudaFuncGetAttributes(&fa, km_assign<false>), "loading km_assign");
        CK(cudaFuncGetAttributes(&fa, km_task_sum), "loading km_task_sum");
    }
    CK(cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking), "cudaStreamCreate");
    g->have_stream = true;
    CK(cudaEventCreate(&g->e0), "cudaEventCreate");
    {
        cudaError_t e1 = cudaEventCreate(&g->e1);
        if (e1 != cudaSuccess) {
            cudaEventDestroy(g->e0);
            rc = km_fail(err, e1, "cudaEventCreate");
            goto out;
        }
    }
    g->have_events = true;
    CK(cudaMalloc((void **)&g->d_x, n * (size_t)d * sizeof(float)), "cudaMalloc (points)");
    CK(cudaMalloc((void **)&g->d_c, kd * sizeof(float)), "cudaMalloc (centres)");
    CK(cudaMalloc((void **)&g->d_lab, n * sizeof(int32_t)), "cudaMalloc (labels)");
    CK(cudaMalloc((void **)&g->d_blo, (size_t)nb * sizeof(long long)), "cudaMalloc (blocks)");
    CK(cudaMalloc((void **)&g->d_bn, (size_t)nb * sizeof(int)), "cudaMalloc (blocks)");
    CK(cudaMalloc((void **)&g->d_tfirst, ((size_t)tasks + 1) * sizeof(int)), "cudaMalloc (tasks)");
    CK(cudaMalloc((void **)&g->d_bsum, (size_t)nb * kd * sizeof(double)),
       "cudaMalloc (block sums)");
    CK(cudaMalloc((void **)&g->d_bsse, (size_t)nb * sizeof(double)), "cudaMalloc (block SSE)");
    CK(cudaMalloc((void **)&g->d_bcnt, (size_t)nb * (size_t)k * sizeof(long long)),
       "cudaMalloc (block counts)");
    CK(cudaMalloc((void **)&g->d_tsum, (size_t)tasks * kd * sizeof(double)),
       "cudaMalloc (task sums)");
    CK(cudaMalloc((void **)&g->d_tsse, (size_t)tasks * sizeof(double)), "cudaMalloc (task SSE)");
    CK(cudaMalloc((void **)&g->d_tcnt, (size_t)tasks * (size_t)k * sizeof(long long)),
       "cudaMalloc (task counts)");
    CK(cudaMemcpy(g->d_x, x, n * (size_t)d * sizeof(float), cudaMemcpyHostToDevice),
       "cudaMemcpy (points to the device)");
    CK(cudaMemcpy(g->d_blo, h_blo, (size_t)nb * sizeof(long long), cudaMemcpyHostToDevice),
       "cudaMemcpy (blocks)");
    CK(cudaMemcpy(g->d_bn, h_bn, (size_t)nb * sizeof(int), cudaMemcpyHostToDevice),
       "cudaMemcpy (blocks)");
    CK(cudaMemcpy(g->d_tfirst, h_tfirst, ((size_t)tasks + 1) * sizeof(int), cudaMemcpyHostToDevice),
       "cudaMemcpy (tasks)");
    *out = g;
    g = NULL;
out:
    kern_kmeans_gpu_free(g);
    free(h_blo);
    free(h_bn);
    free(h_tfirst);
    return rc;
}

extern "C" int kern_kmeans_gpu_assign(struct kern_km_gpu *g, const float *centres, int32_t *labels,
                                      double *sums, int64_t *counts, double *sse, double *kernel_s,
                                      struct core_err *err)
{
    int rc = 0;
    float ms = 0;
    size_t kd = (size_t)g->k * (size_t)g->d;
    bool reg = g->d <= KM_REG_D;
    int32_t *d_labels = labels ? g->d_lab : NULL;

    if (kernel_s)
        *kernel_s = 0;
    CK(cudaMemcpyAsync(g->d_c, centres, kd * sizeof(float), cudaMemcpyHostToDevice, g->stream),
       "cudaMemcpyAsync (centres)");
    CK(cudaEventRecord(g->e0, g->stream), "cudaEventRecord");
    if (g->nblocks > 0) {
        if (reg)
            km_assign<true><<<g->nblocks, KM_THREADS, g->smem_bytes, g->stream>>>(
                g->d_x, g->d_c, g->d_blo, g->d_bn, g->d, g->k, g->smem_centres, d_labels, g->d_bsum,
                g->d_bcnt, g->d_bsse);
        else
            km_assign<false><<<g->nblocks, KM_THREADS, g->smem_bytes, g->stream>>>(
                g->d_x, g->d_c, g->d_blo, g->d_bn, g->d, g->k, g->smem_centres, d_labels, g->d_bsum,
                g->d_bcnt, g->d_bsse);
        CK(cudaGetLastError(), "launching km_assign");
    }
    km_task_sum<<<g->tasks, KM_THREADS, 0, g->stream>>>(
        g->d_tfirst, g->k, g->d, g->d_bsum, g->d_bcnt, g->d_bsse, g->d_tsum, g->d_tcnt, g->d_tsse);
    CK(cudaGetLastError(), "launching km_task_sum");
    CK(cudaEventRecord(g->e1, g->stream), "cudaEventRecord");
    /* A kernel fault surfaces at the first synchronisation: make that the
     * kernels' end, so it is blamed on them and not on the copy after. */
    CK(cudaEventSynchronize(g->e1), "running the k-means kernels (km_assign, km_task_sum)");
    CK(cudaMemcpyAsync(sums, g->d_tsum, (size_t)g->tasks * kd * sizeof(double),
                       cudaMemcpyDeviceToHost, g->stream),
       "cudaMemcpyAsync (sums to the host)");
    CK(cudaMemcpyAsync(g->h_tcnt, g->d_tcnt, (size_t)g->tasks * (size_t)g->k * sizeof(long long),
                       cudaMemcpyDeviceToHost, g->stream),
       "cudaMemcpyAsync (counts to the host)");
    CK(cudaMemcpyAsync(sse, g->d_tsse, (size_t)g->tasks * sizeof(double), cudaMemcpyDeviceToHost,
                       g->stream),
       "cudaMemcpyAsync (SSE to the host)");
    if (labels)
        CK(cudaMemcpyAsync(labels, g->d_lab, g->n * sizeof(int32_t), cudaMemcpyDeviceToHost,
                           g->stream),
           "cudaMemcpyAsync (labels to the host)");
    CK(cudaStreamSynchronize(g->stream), "copying the results to the host");
    CK(cudaEventElapsedTime(&ms, g->e0, g->e1), "cudaEventElapsedTime");
    for (size_t q = 0; q < (size_t)g->tasks * (size_t)g->k; q++)
        counts[q] = (int64_t)g->h_tcnt[q];
    if (kernel_s)
        *kernel_s = ms / 1000.0;
out:
    return rc;
}
