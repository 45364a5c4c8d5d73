/*
 * kern_cublas.cu — matrix multiply with the CUDA toolkit's cuBLAS (built
 * only when CMake found CUDA and cuBLAS; kern_nocublas.c stands in
 * otherwise): FP32 SGEMM against the INT8 GemmEx for the quantize lab, and
 * the serving lab's MLP forward pass.
 *
 * Layout. cuBLAS is column-major; we keep both operands K-contiguous: A
 * row-major m×k, W row-major n×k (a layer's weights, out×in), and want the
 * row-major m×n product C = A·Wᵀ. Row-major C is the column-major n×m
 * matrix Cᵀ = W·Aᵀ, and W and A stored row-major are Wᵀ and Aᵀ to cuBLAS,
 * so the call is gemm(T, N, n, m, k, W, ldw = k, A, lda = k, C, ldc = n).
 * This "TN" shape with K-contiguous operands is also the one the INT8
 * tensor-core paths want (leading dimensions multiples of 4: n % 16 == 0).
 *
 * Loading. cuBLAS is opened with dlopen the first time a GPU product is
 * asked for, never linked: linked, its 600 MB of shared objects cost every
 * start of the binary about 130 ms (measured on the development VM), also
 * for commands that never touch a GPU, and a binary built with CUDA would
 * not start at all where the library is missing. The library is looked for
 * by its soname (libcublas.so.<major>, the toolkit this was compiled with),
 * then in the toolkit's lib directory CMake found (WB_CUBLAS_DIR).
 *
 * Every CUDA and cuBLAS status is checked; an error names the call and
 * frees what this call allocated.
 */
#include "kernels/kernels.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" bool kern_built_with_cublas(void)
{
    return true;
}

/* ---- the library, loaded on first use -------------------------------------------- */

typedef cublasStatus_t (*fn_create)(cublasHandle_t *);
typedef cublasStatus_t (*fn_destroy)(cublasHandle_t);
typedef cublasStatus_t (*fn_sgemm)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int,
                                   int, const float *, const float *, int, const float *, int,
                                   const float *, float *, int);
typedef cublasStatus_t (*fn_gemmex)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int,
                                    int, const void *, const void *, cudaDataType, int,
                                    const void *, cudaDataType, int, const void *, void *,
                                    cudaDataType, int, cublasComputeType_t, cublasGemmAlgo_t);

static struct {
    int state; /* 0: not tried, 1: loaded, -1: not found */
    char why[256];
    fn_create create;
    fn_destroy destroy;
    fn_sgemm sgemm;
    fn_gemmex gemmex;
} blas;

#define STR2(x) #x
#define STR(x) STR2(x)

static void blas_load(void)
{
    const char *soname = "libcublas.so." STR(CUBLAS_VER_MAJOR);
    void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
#ifdef WB_CUBLAS_DIR
    if (!h)
        h = dlopen(WB_CUBLAS_DIR "/libcublas.so." STR(CUBLAS_VER_MAJOR), RTLD_NOW | RTLD_LOCAL);
#endif
    if (!h) {
        const char *e = dlerror();
        snprintf(blas.why, sizeof blas.why, "no cuBLAS: cannot load %s (%s)", soname, e ? e : "?");
        blas.state = -1;
        return;
    }
    blas.create = (fn_create)dlsym(h, "cublasCreate_v2");
    blas.destroy = (fn_destroy)dlsym(h, "cublasDestroy_v2");
    blas.sgemm = (fn_sgemm)dlsym(h, "cublasSgemm_v2");
    blas.gemmex = (fn_gemmex)dlsym(h, "cublasGemmEx");
    if (!blas.create || !blas.destroy || !blas.sgemm || !blas.gemmex) {
        snprintf(blas.why, sizeof blas.why, "no cuBLAS: %s lacks a function this build uses",
                 soname);
        blas.state = -1;
        return; /* the handle stays open: harmless, and dlclose could unmap a live library */
    }
    blas.state = 1;
}

/* 0 when there is a GPU and cuBLAS is loaded; CORE_ERR_IO saying which is
 * missing otherwise. Labs call one GPU entry point at a time (kernels.h). */
static int blas_ready(struct core_err *err)
{
    struct core_err why;
    core_err_clear(&why);
    if (kern_probe(NULL, &why) != 0)
        return core_err_set(err, CORE_ERR_IO, "%s", why.msg);
    if (blas.state == 0)
        blas_load();
    if (blas.state < 0)
        return core_err_set(err, CORE_ERR_IO, "%s", blas.why);
    return 0;
}

static const char *blas_status(cublasStatus_t s)
{
    switch (s) {
    case CUBLAS_STATUS_SUCCESS:
        return "success";
    case CUBLAS_STATUS_NOT_INITIALIZED:
        return "not initialized";
    case CUBLAS_STATUS_ALLOC_FAILED:
        return "allocation failed";
    case CUBLAS_STATUS_INVALID_VALUE:
        return "invalid value";
    case CUBLAS_STATUS_ARCH_MISMATCH:
        return "architecture mismatch";
    case CUBLAS_STATUS_EXECUTION_FAILED:
        return "execution failed";
    case CUBLAS_STATUS_INTERNAL_ERROR:
        return "internal error";
    case CUBLAS_STATUS_NOT_SUPPORTED:
        return "not supported";
    default:
        return "unknown status";
    }
}

#define CU(call)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            rc = core_err_set(err, CORE_ERR_IO, "%s: %s", #call, cudaGetErrorString(e_));          \
            goto out;                                                                              \
        }                                                                                          \
    } while (0)

#define BL(call)                                                                                   \
    do {                                                                                           \
        cublasStatus_t s_ = (call);                                                                \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                                         \
            rc = core_err_set(err, CORE_ERR_IO, "%s: cuBLAS %s", #call, blas_status(s_));          \
            goto out;                                                                              \
        }                                                                                          \
    } while (0)

/* ---- SGEMM against the INT8 GemmEx ----------------------------------------------- */

static uint64_t next_rand(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

extern "C" int kern_gemm_gpu_measure(int n, int reps, uint64_t seed, bool (*stop)(void *), void *ud,
                                     struct kern_gemm_gpu_meas *m, struct core_err *err)
{
    int rc = 0;
    size_t nn = (size_t)n * (size_t)n;
    int8_t *ha8 = NULL, *hw8 = NULL;
    float *haf = NULL, *hwf = NULL, *hcf = NULL;
    int32_t *hc32 = NULL;
    double *times = NULL;
    void *da8 = NULL, *dw8 = NULL, *dc32 = NULL, *daf = NULL, *dwf = NULL, *dcf = NULL;
    cublasHandle_t h = NULL;
    cudaEvent_t e0 = NULL, e1 = NULL;
    const int check_rows = 8;

    if (n < 16 || n > 16384 || n % 16 != 0)
        return core_err_set(err, CORE_ERR_INVALID,
                            "GPU matrix size n = %d: a multiple of 16, 16 to 16384", n);
    if (reps < 1 || reps > 1000)
        return core_err_set(err, CORE_ERR_INVALID, "GPU repetitions = %d: 1 to 1000", reps);
    if ((rc = blas_ready(err)) != 0)
        return rc;
    memset(m, 0, sizeof *m);
    m->n = n;
    m->reps = reps;

    ha8 = (int8_t *)malloc(nn);
    hw8 = (int8_t *)malloc(nn);
    haf = (float *)malloc(nn * sizeof(float));
    hwf = (float *)malloc(nn * sizeof(float));
    hcf = (float *)malloc((size_t)check_rows * (size_t)n * sizeof(float));
    hc32 = (int32_t *)malloc(nn * sizeof(int32_t));
    times = (double *)malloc((size_t)reps * sizeof(double));
    if (!ha8 || !hw8 || !haf || !hwf || !hcf || !hc32 || !times) {
        rc = core_err_set(err, CORE_ERR_INVALID, "cannot allocate host buffers for n = %d", n);
        goto out;
    }
    for (size_t i = 0; i < nn; i++) {
        ha8[i] = (int8_t)((int)(next_rand(&seed) % 255) - 127);
        hw8[i] = (int8_t)((int)(next_rand(&seed) % 255) - 127);
        haf[i] = (float)ha8[i] / 127.0f;
        hwf[i] = (float)hw8[i] / 127.0f;
    }

    CU(cudaMalloc(&da8, nn));
    CU(cudaMalloc(&dw8, nn));
    CU(cudaMalloc(&dc32, nn * sizeof(int32_t)));
    CU(cudaMalloc(&daf, nn * sizeof(float)));
    CU(cudaMalloc(&dwf, nn * sizeof(float)));
    CU(cudaMalloc(&dcf, nn * sizeof(float)));
    CU(cudaMemcpy(da8, ha8, nn, cudaMemcpyHostToDevice));
    CU(cudaMemcpy(dw8, hw8, nn, cudaMemcpyHostToDevice));
    CU(cudaMemcpy(daf, haf, nn * sizeof(float), cudaMemcpyHostToDevice));
    CU(cudaMemcpy(dwf, hwf, nn * sizeof(float), cudaMemcpyHostToDevice));
    BL(blas.create(&h));
    CU(cudaEventCreate(&e0));
    CU(cudaEventCreate(&e1));

    for (int kind = 0; kind < 2; kind++) { /* 0: FP32, 1: INT8 */
        const float af = 1.0f, bf = 0.0f;
        const int32_t ai = 1, bi = 0;
        for (int r = -3; r < reps; r++) {
            if (stop && stop(ud)) {
                rc = core_err_set(err, CORE_ERR_CANCELLED, "cancelled");
                goto out;
            }
            CU(cudaEventRecord(e0, 0));
            if (kind == 0)
                BL(blas.sgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, n, n, n, &af, (const float *)dwf, n,
                              (const float *)daf, n, &bf, (float *)dcf, n));
            else
                BL(blas.gemmex(h, CUBLAS_OP_T, CUBLAS_OP_N, n, n, n, &ai, dw8, CUDA_R_8I, n, da8,
                               CUDA_R_8I, n, &bi, dc32, CUDA_R_32I, n, CUBLAS_COMPUTE_32I,
                               CUBLAS_GEMM_DEFAULT));
            CU(cudaEventRecord(e1, 0));
            CU(cudaEventSynchronize(e1));
            float ms = 0;
            CU(cudaEventElapsedTime(&ms, e0, e1));
            if (r >= 0)
                times[r] = ms;
        }
        qsort(times, (size_t)reps, sizeof *times, cmp_double);
        double med = reps % 2 ? times[reps / 2] : 0.5 * (times[reps / 2 - 1] + times[reps / 2]);
        double ops = 2.0 * n * (double)n * (double)n;
        if (kind == 0) {
            m->f32_ms = med;
            m->f32_tflops = med > 0 ? ops / (med / 1e3) / 1e12 : 0;
        } else {
            m->s8_ms = med;
            m->s8_tops = med > 0 ? ops / (med / 1e3) / 1e12 : 0;
        }
    }

    /* The check: rows spread over C, every column, against the CPU. */
    CU(cudaMemcpy(hc32, dc32, nn * sizeof(int32_t), cudaMemcpyDeviceToHost));
    for (int t = 0; t < check_rows; t++) {
        size_t i = (size_t)t * (size_t)(n - 1) / (size_t)(check_rows - 1);
        CU(cudaMemcpy(hcf + (size_t)t * (size_t)n, (float *)dcf + i * (size_t)n,
                      (size_t)n * sizeof(float), cudaMemcpyDeviceToHost));
        for (size_t j = 0; j < (size_t)n; j++) {
            int32_t want = 0;
            double wf = 0, mag = 0;
            for (size_t kk = 0; kk < (size_t)n; kk++) {
                want += (int32_t)ha8[i * (size_t)n + kk] * (int32_t)hw8[j * (size_t)n + kk];
                double p = (double)haf[i * (size_t)n + kk] * (double)hwf[j * (size_t)n + kk];
                wf += p;
                mag += fabs(p);
            }
            int32_t got = hc32[i * (size_t)n + j];
            if (got != want) {
                rc = core_err_set(err, CORE_ERR_INTERNAL,
                                  "cuBLAS INT8 result C[%zu][%zu] = %d, the CPU says %d", i, j,
                                  (int)got, (int)want);
                goto out;
            }
            double gf = hcf[(size_t)t * (size_t)n + j];
            double rel = fabs(gf - wf) / (mag > 0 ? mag : 1);
            if (rel > 1e-3) {
                rc = core_err_set(err, CORE_ERR_INTERNAL,
                                  "cuBLAS FP32 result C[%zu][%zu] = %g, the CPU says %g", i, j, gf,
                                  wf);
                goto out;
            }
            if (rel > m->f32_max_rel)
                m->f32_max_rel = rel;
            m->checked++;
        }
    }
out:
    if (e0)
        cudaEventDestroy(e0);
    if (e1)
        cudaEventDestroy(e1);
    if (h)
        blas.destroy(h);
    cudaFree(da8);
    cudaFree(dw8);
    cudaFree(dc32);
    cudaFree(daf);
    cudaFree(dwf);
    cudaFree(dcf);
    free(ha8);
    free(hw8);
    free(haf);
    free(hwf);
    free(hcf);
    free(hc32);
    free(times);
    return rc;
}

/* ---- the serving lab's MLP --------------------------------------------------------- */

struct kern_mlp_gpu {
    int d_in, hidden, d_out, max_batch;
    float *w1, *b1, *w2, *b2; /* device */
    float *x, *h, *y;         /* device, max_batch rows each */
    cublasHandle_t blas;
};

/* h[r][j] = max(0, h[r][j] + b[j]) (relu) or + b[j] (no relu), row-major. */
__global__ void mlp_bias(float *h, const float *b, int rows, int cols, int relu)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= rows * cols)
        return;
    float v = h[idx] + b[idx % cols];
    h[idx] = relu && v < 0.0f ? 0.0f : v;
}

extern "C" void kern_mlp_gpu_free(struct kern_mlp_gpu *g)
{
    if (!g)
        return;
    if (g->blas)
        blas.destroy(g->blas);
    cudaFree(g->w1);
    cudaFree(g->b1);
    cudaFree(g->w2);
    cudaFree(g->b2);
    cudaFree(g->x);
    cudaFree(g->h);
    cudaFree(g->y);
    free(g);
}

extern "C" int kern_mlp_gpu_new(struct kern_mlp_gpu **out, int d_in, int hidden, int d_out,
                                const float *w1, const float *b1, const float *w2, const float *b2,
                                int max_batch, struct core_err *err)
{
    int rc = 0;
    *out = NULL;
    if ((rc = blas_ready(err)) != 0)
        return rc;
    if (d_in < 1 || hidden < 1 || d_out < 1 || max_batch < 1)
        return core_err_set(err, CORE_ERR_INVALID, "MLP sizes must be at least 1");
    struct kern_mlp_gpu *g = (struct kern_mlp_gpu *)calloc(1, sizeof *g);
    if (!g)
        return core_err_set(err, CORE_ERR_INVALID, "out of memory");
    g->d_in = d_in;
    g->hidden = hidden;
    g->d_out = d_out;
    g->max_batch = max_batch;
    size_t s1 = (size_t)hidden * (size_t)d_in, s2 = (size_t)d_out * (size_t)hidden;
    CU(cudaMalloc((void **)&g->w1, s1 * sizeof(float)));
    CU(cudaMalloc((void **)&g->b1, (size_t)hidden * sizeof(float)));
    CU(cudaMalloc((void **)&g->w2, s2 * sizeof(float)));
    CU(cudaMalloc((void **)&g->b2, (size_t)d_out * sizeof(float)));
    CU(cudaMalloc((void **)&g->x, (size_t)max_batch * (size_t)d_in * sizeof(float)));
    CU(cudaMalloc((void **)&g->h, (size_t)max_batch * (size_t)hidden * sizeof(float)));
    CU(cudaMalloc((void **)&g->y, (size_t)max_batch * (size_t)d_out * sizeof(float)));
    CU(cudaMemcpy(g->w1, w1, s1 * sizeof(float), cudaMemcpyHostToDevice));
    CU(cudaMemcpy(g->b1, b1, (size_t)hidden * sizeof(float), cudaMemcpyHostToDevice));
    CU(cudaMemcpy(g->w2, w2, s2 * sizeof(float), cudaMemcpyHostToDevice));
    CU(cudaMemcpy(g->b2, b2, (size_t)d_out * sizeof(float), cudaMemcpyHostToDevice));
    BL(blas.create(&g->blas));
out:
    if (rc != 0)
        kern_mlp_gpu_free(g);
    else
        *out = g;
    return rc;
}

extern "C" int kern_mlp_gpu_forward(struct kern_mlp_gpu *g, const float *x, int batch, float *y,
                                    struct core_err *err)
{
    int rc = 0;
    const float one = 1.0f, zero = 0.0f;
    if (!g || batch < 1 || batch > g->max_batch)
        return core_err_set(err, CORE_ERR_INVALID, "MLP batch %d: 1 to %d", batch,
                            g ? g->max_batch : 0);
    CU(cudaMemcpy(g->x, x, (size_t)batch * (size_t)g->d_in * sizeof(float),
                  cudaMemcpyHostToDevice));
    /* h (batch×hidden, row-major) = x·W1ᵀ: column-major hidden×batch = W1·xᵀ */
    BL(blas.sgemm(g->blas, CUBLAS_OP_T, CUBLAS_OP_N, g->hidden, batch, g->d_in, &one, g->w1,
                  g->d_in, g->x, g->d_in, &zero, g->h, g->hidden));
    {
        int cells = batch * g->hidden;
        mlp_bias<<<(cells + 255) / 256, 256>>>(g->h, g->b1, batch, g->hidden, 1);
        CU(cudaGetLastError());
    }
    BL(blas.sgemm(g->blas, CUBLAS_OP_T, CUBLAS_OP_N, g->d_out, batch, g->hidden, &one, g->w2,
                  g->hidden, g->h, g->hidden, &zero, g->y, g->d_out));
    {
        int cells = batch * g->d_out;
        mlp_bias<<<(cells + 255) / 256, 256>>>(g->y, g->b2, batch, g->d_out, 0);
        CU(cudaGetLastError());
    }
    CU(cudaMemcpy(y, g->y, (size_t)batch * (size_t)g->d_out * sizeof(float),
                  cudaMemcpyDeviceToHost));
out:
    return rc;
}
