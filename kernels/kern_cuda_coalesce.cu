/*
 * kern_cuda_coalesce.cu — the coalescing lab's kernels (built only with
 * CUDA): copies with 4 and 16 bytes per thread, a copy reading at an element
 * offset, a copy reading with a stride, the shared-memory copy that is the
 * transposes' baseline, the naive, tiled (32 x 32) and padded (32 x 33)
 * transposes, and cudaMemcpy device to device as the ceiling.
 *
 * Measuring right:
 * - the buffers are several times the L2 (8x by default, read from the
 *   device), so every launch streams from device memory, not from the cache;
 * - two untimed launches warm up (first-launch costs, clocks), then every
 *   timed launch sits between two CUDA events on one stream and the median
 *   of the repetitions is reported (with min and max);
 * - bandwidth is useful bytes read + bytes written per second;
 * - the output is cleared before each kernel, and every element is compared
 *   with the CPU reference (kern_coalesce_ref.c) on the random input after
 *   the timed launches: a fast wrong kernel is an error, not a result;
 * - every CUDA call's status is checked, and an error names the kernel and
 *   the CUDA error.
 *
 * All the copy kernels share one shape: 256 threads, each handling 4
 * elements 256 apart (loads first, then stores, for memory-level
 * parallelism), so a warp's request is always 32 consecutive threads at
 * consecutive output elements; only where they read differs. The
 * transposes are the classic 32 x 32 tiles with 32 x 8 threads.
 */
#include "kernels/kernels.h"

#include <cuda_runtime.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CO_THREADS 256
#define CO_UNROLL 4
#define CO_PER_BLOCK (CO_THREADS * CO_UNROLL)
#define TILE 32
#define ROWS 8
#define PAD_FLOATS 64                /* the offset copy reads up to 32 past n */
#define MIN_AUTO_BYTES (64LL << 20)  /* the automatic size's floor */
#define NOL2_AUTO_BYTES (256LL << 20) /* when the L2 size is unknown */
#define CHECK_CHUNK (1LL << 24)      /* elements compared between stop checks */

struct kern_coal {
    struct kern_coal_info info;
    float *d_in, *d_out; /* device buffers: n + PAD_FLOATS, n floats */
    float *h_in, *h_out; /* host copies */
    cudaStream_t stream;
    bool have_stream;
    bool l2_fetch_changed;
    bool (*stop)(void *ud);
    void *ud;
};

/* ---- the kernels ----------------------------------------------------------- */

__global__ void k_copy(const float *__restrict__ in, float *__restrict__ out, long long n)
{
    long long base = (long long)blockIdx.x * CO_PER_BLOCK + threadIdx.x;
    float v[CO_UNROLL];
#pragma unroll
    for (int u = 0; u < CO_UNROLL; u++) {
        long long i = base + (long long)u * CO_THREADS;
        v[u] = i < n ? in[i] : 0.0f;
    }
#pragma unroll
    for (int u = 0; u < CO_UNROLL; u++) {
        long long i = base + (long long)u * CO_THREADS;
        if (i < n)
            out[i] = v[u];
    }
}

__global__ void k_copy16(const float4 *__restrict__ in, float4 *__restrict__ out, long long n4)
{
    long long base = (long long)blockIdx.x * CO_PER_BLOCK + threadIdx.x;
    float4 v[CO_UNROLL];
#pragma unroll
    for (int u = 0; u < CO_UNROLL; u++) {
        long long i = base + (long long)u * CO_THREADS;
        v[u] = i < n4 ? in[i] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    }
#pragma unroll
    for (int u = 0; u < CO_UNROLL; u++) {
        long long i = base + (long long)u * CO_THREADS;
        if (i < n4)
            out[i] = v[u];
    }
}

/* out[i] = in[i + offset]: the reads start `offset` floats past a line
 * boundary, the writes stay aligned. */
__global__ void k_offset(const float *__restrict__ in, float *__restrict__ out, long long n,
                         int offset)
{
    long long base = (long long)blockIdx.x * CO_PER_BLOCK + threadIdx.x;
    const float *src = in + offset;
    float v[CO_UNROLL];
#pragma unroll
    for (int u = 0; u < CO_UNROLL; u++) {
        long long i = base + (long long)u * CO_THREADS;
        v[u] = i < n ? src[i] : 0.0f;
    }
#pragma unroll
    for (int u = 0; u < CO_UNROLL; u++) {
        long long i = base + (long long)u * CO_THREADS;
        if (i < n)
            out[i] = v[u];
    }
}

/* out[i] = in[i * stride]: the reads are `stride` floats apart, the writes
 * stay coalesced. */
__global__ void k_stride(const float *__restrict__ in, float *__restrict__ out, long long n,
                         int stride)
{
    long long base = (long long)blockIdx.x * CO_PER_BLOCK + threadIdx.x;
    float v[CO_UNROLL];
#pragma unroll
    for (int u = 0; u < CO_UNROLL; u++) {
        long long i = base + (long long)u * CO_THREADS;
        v[u] = i < n ? in[i * stride] : 0.0f;
    }
#pragma unroll
    for (int u = 0; u < CO_UNROLL; u++) {
        long long i = base + (long long)u * CO_THREADS;
        if (i < n)
            out[i] = v[u];
    }
}

/* The transposes' baseline: the same tiles and threads, through shared
 * memory, but rows in and rows out. */
__global__ void k_smem_copy(const float *__restrict__ in, float *__restrict__ out, int w)
{
    __shared__ float tile[TILE][TILE];
    int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * w + x];
    __syncthreads();
    for (int j = 0; j < TILE; j += ROWS)
        out[(size_t)(y + j) * w + x] = tile[threadIdx.y + j][threadIdx.x];
}

/* Reads a row (coalesced), writes a column: each warp's store touches 32
 * rows of the output, 32 sectors for 128 useful bytes. */
__global__ void k_transpose_naive(const float *__restrict__ in, float *__restrict__ out, int w)
{
    int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        out[(size_t)x * w + (y + j)] = in[(size_t)(y + j) * w + x];
}

/* Rows in, rows out, the turn made in shared memory: the tile is written
 * by rows and read by columns. With PAD = 0 a column is 32 words apart, all
 * in one bank (32-way conflict); PAD = 1 moves each row one bank over. */
template <int PAD>
__global__ void k_transpose_tiled(const float *__restrict__ in, float *__restrict__ out, int w)
{
    __shared__ float tile[TILE][TILE + PAD];
    int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * w + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        out[(size_t)(y + j) * w + x] = tile[threadIdx.x][threadIdx.y + j];
}

/* ---- errors ---------------------------------------------------------------- */

static int cuda_fail(struct core_err *err, cudaError_t e, const char *what, const char *kernel)
{
    if (kernel)
        return core_err_set(err, CORE_ERR_IO, "kernel '%s': %s failed: %s (%s)", kernel, what,
                            cudaGetErrorString(e), cudaGetErrorName(e));
    return core_err_set(err, CORE_ERR_IO, "coalescing kernels: %s failed: %s (%s)", what,
                        cudaGetErrorString(e), cudaGetErrorName(e));
}

/* Runs `call`; on failure fills err naming `what` (and kernel `kname`, or
 * NULL) and jumps to out. Needs `int rc` and a label `out`. */
#define CK(call, what, kname)                                                                      \
    do {                                                                                           \
        cudaError_t ck_e = (call);                                                                 \
        if (ck_e != cudaSuccess) {                                                                 \
            rc = cuda_fail(err, ck_e, what, kname);                                                \
            goto out;                                                                              \
        }                                                                                          \
    } while (0)

static bool stopped(const struct kern_coal *s)
{
    return s->stop && s->stop(s->ud);
}

/* ---- the session ----------------------------------------------------------- */

extern "C" void kern_coal_close(struct kern_coal *s)
{
    if (!s)
        return;
    /* best effort: the statuses are of no use to anyone here */
    if (s->l2_fetch_changed && s->info.l2_fetch_bytes >= 0)
        cudaDeviceSetLimit(cudaLimitMaxL2FetchGranularity, (size_t)s->info.l2_fetch_bytes);
    if (s->have_stream)
        cudaStreamSynchronize(s->stream);
    if (s->d_in)
        cudaFree(s->d_in);
    if (s->d_out)
        cudaFree(s->d_out);
    if (s->have_stream)
        cudaStreamDestroy(s->stream);
    cudaGetLastError(); /* leave no error behind for the next caller */
    free(s->h_in);
    free(s->h_out);
    free(s);
}

/* Random floats in [-1, 1) from a xorshift64* stream: exactly representable,
 * never NaN or -0, so a copy is checked with ==. */
static int fill_random(struct kern_coal *s, float *a, long long n, uint64_t seed,
                       struct core_err *err)
{
    uint64_t x = seed ? seed : 0x9e3779b97f4a7c15ull;
    for (long long lo = 0; lo < n; lo += CHECK_CHUNK) {
        long long hi = lo + CHECK_CHUNK < n ? lo + CHECK_CHUNK : n;
        for (long long i = lo; i < hi; i++) {
            x ^= x >> 12, x ^= x << 25, x ^= x >> 27;
            uint64_t r = x * 0x2545f4914f6cdd1dull;
            a[i] = (float)(r >> 40) * (1.0f / 8388608.0f) - 1.0f;
        }
        if (stopped(s))
            return core_err_set(err, CORE_ERR_CANCELLED, "cancelled");
    }
    return 0;
}

extern "C" int kern_coal_open(struct kern_coal **out, const struct kern_coal_opts *o,
                              struct kern_coal_info *info, struct core_err *err)
{
    struct kern_coal *s = NULL;
    struct core_err why;
    size_t free_b = 0, total_b = 0, lim = 0;
    long long bytes = 0, n = 0, host_b = 0;
    long pages = 0, page = 0;
    int rc = 0;

    *out = NULL;
    core_err_clear(&why);
    if (kern_probe(NULL, &why) != 0)
        return core_err_set(err, CORE_ERR_IO, "%s", why.msg);
    s = (struct kern_coal *)calloc(1, sizeof *s);
    if (!s)
        return core_err_set(err, CORE_ERR_INVALID, "coalescing kernels: out of host memory");
    s->info.l2_fetch_bytes = -1;
    if (o) {
        s->stop = o->stop;
        s->ud = o->ud;
    }
    kern_probe(&s->info.dev, NULL);
    CK(cudaSetDevice(s->info.dev.index), "cudaSetDevice", NULL);
    CK(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo", NULL);
    s->info.free_bytes = (long long)free_b;

    if (o && o->bytes > 0) {
        bytes = o->bytes;
    } else {
        /* 8 x L2, so no launch finds its data still in the cache; at most a
         * quarter of the free memory each */
        long long l2 = s->info.dev.l2_bytes;
        bytes = l2 > 0 ? 8 * l2 : NOL2_AUTO_BYTES;
        if (bytes < MIN_AUTO_BYTES)
            bytes = MIN_AUTO_BYTES;
        bytes = (bytes + (1LL << 20) - 1) & ~((1LL << 20) - 1);
        long long cap = ((long long)free_b / 4 - (1LL << 20)) & ~((1LL << 20) - 1);
        if (bytes > cap)
            bytes = cap;
    }
    /* whole blocks of the copy kernels, and whole float4s */
    n = bytes / 4 / (4 * CO_PER_BLOCK) * (4 * CO_PER_BLOCK);
    if (n < 4 * CO_PER_BLOCK) {
        rc = core_err_set(err, CORE_ERR_INVALID,
                          "coalescing kernels: buffers of %lld bytes are too small (at least %d)",
                          bytes, 16 * CO_PER_BLOCK);
        goto out;
    }
    if ((double)(2 * n + PAD_FLOATS) * 4 > (double)free_b / 2) {
        rc = core_err_set(err, CORE_ERR_INVALID,
                          "coalescing kernels: two buffers of %lld MiB need %lld MiB of GPU memory, "
                          "more than half of the %lld MiB free on %s",
                          n * 4 >> 20, (2 * n * 4) >> 20, (long long)(free_b >> 20),
                          s->info.dev.name);
        goto out;
    }
    pages = sysconf(_SC_PHYS_PAGES);
    page = sysconf(_SC_PAGESIZE);
    host_b = (2 * n + PAD_FLOATS) * 4;
    if (pages > 0 && page > 0 && (double)host_b > (double)pages * (double)page / 2) {
        rc = core_err_set(err, CORE_ERR_INVALID,
                          "coalescing kernels: host copies of the buffers need %lld MiB, more than "
                          "half of this machine's memory (%lld MiB)",
                          host_b >> 20, (long long)pages * page >> 20);
        goto out;
    }
    s->info.n = n;
    s->info.buf_bytes = n * 4;
    s->info.side = (int)(floor(sqrt((double)n)) / TILE) * TILE;
    while ((long long)s->info.side * s->info.side > n) /* sqrt may round up */
        s->info.side -= TILE;

    s->h_in = (float *)malloc((size_t)(n + PAD_FLOATS) * sizeof(float));
    s->h_out = (float *)malloc((size_t)n * sizeof(float));
    if (!s->h_in || !s->h_out) {
        rc = core_err_set(err, CORE_ERR_INVALID,
                          "coalescing kernels: cannot allocate %lld MiB of host memory for the "
                          "buffers' copies",
                          host_b >> 20);
        goto out;
    }
    if ((rc = fill_random(s, s->h_in, n + PAD_FLOATS, o ? o->seed : 0, err)) != 0)
        goto out;

    CK(cudaMalloc((void **)&s->d_in, (size_t)(n + PAD_FLOATS) * sizeof(float)),
       "cudaMalloc (input buffer)", NULL);
    CK(cudaMalloc((void **)&s->d_out, (size_t)n * sizeof(float)), "cudaMalloc (output buffer)",
       NULL);
    CK(cudaStreamCreate(&s->stream), "cudaStreamCreate", NULL);
    s->have_stream = true;
    CK(cudaMemcpyAsync(s->d_in, s->h_in, (size_t)(n + PAD_FLOATS) * sizeof(float),
                       cudaMemcpyHostToDevice, s->stream),
       "cudaMemcpyAsync (input to the device)", NULL);
    CK(cudaStreamSynchronize(s->stream), "cudaStreamSynchronize (input to the device)", NULL);
    if (cudaDeviceGetLimit(&lim, cudaLimitMaxL2FetchGranularity) == cudaSuccess)
        s->info.l2_fetch_bytes = (int)lim;
    else
        cudaGetLastError(); /* not supported here: leave it unknown */
    if (stopped(s)) {
        rc = core_err_set(err, CORE_ERR_CANCELLED, "cancelled");
        goto out;
    }
out:
    if (rc != 0) {
        kern_coal_close(s);
        return rc;
    }
    if (info)
        *info = s->info;
    *out = s;
    return 0;
}

extern "C" int kern_coal_set_l2_fetch(struct kern_coal *s, int bytes, int *got,
                                      struct core_err *err)
{
    size_t v = 0;
    cudaError_t e;
    if (got)
        *got = -1;
    if (!s)
        return core_err_set(err, CORE_ERR_INVALID, "coalescing kernels: no session");
    if (bytes < 0 || bytes > 128)
        return core_err_set(err, CORE_ERR_INVALID,
                            "the L2 fetch granularity must be from 0 to 128 bytes, not %d", bytes);
    e = cudaDeviceSetLimit(cudaLimitMaxL2FetchGranularity, (size_t)bytes);
    if (e != cudaSuccess) {
        cudaGetLastError();
        return cuda_fail(err, e, "cudaDeviceSetLimit(cudaLimitMaxL2FetchGranularity)", NULL);
    }
    s->l2_fetch_changed = true;
    e = cudaDeviceGetLimit(&v, cudaLimitMaxL2FetchGranularity);
    if (e != cudaSuccess) {
        cudaGetLastError();
        return cuda_fail(err, e, "cudaDeviceGetLimit(cudaLimitMaxL2FetchGranularity)", NULL);
    }
    if (got)
        *got = (int)v;
    return 0;
}

/* ---- one measurement ------------------------------------------------------- */

/* Elements written by one launch of kind. */
static long long out_elems(const struct kern_coal *s, int kind, int param)
{
    switch (kind) {
    case KERN_COAL_STRIDE:
        return s->info.n / param;
    case KERN_COAL_SMEM_COPY:
    case KERN_COAL_TRANSPOSE_NAIVE:
    case KERN_COAL_TRANSPOSE_TILED:
    case KERN_COAL_TRANSPOSE_PADDED:
        return (long long)s->info.side * s->info.side;
    default:
        return s->info.n;
    }
}

static unsigned int copy_blocks(long long n)
{
    return (unsigned int)((n + CO_PER_BLOCK - 1) / CO_PER_BLOCK);
}

/* Enqueues one launch of kind on the session's stream. */
static int launch(struct kern_coal *s, int kind, int param, struct core_err *err)
{
    long long n = s->info.n;
    int w = s->info.side;
    dim3 tgrid(w / TILE, w / TILE), tblock(TILE, ROWS);
    cudaError_t e = cudaSuccess;
    switch (kind) {
    case KERN_COAL_MEMCPY:
        e = cudaMemcpyAsync(s->d_out, s->d_in, (size_t)n * sizeof(float), cudaMemcpyDeviceToDevice,
                            s->stream);
        if (e != cudaSuccess)
            return cuda_fail(err, e, "cudaMemcpyAsync device to device", "memcpy");
        return 0;
    case KERN_COAL_COPY:
        k_copy<<<copy_blocks(n), CO_THREADS, 0, s->stream>>>(s->d_in, s->d_out, n);
        break;
    case KERN_COAL_COPY16:
        k_copy16<<<copy_blocks(n / 4), CO_THREADS, 0, s->stream>>>(
            (const float4 *)s->d_in, (float4 *)s->d_out, n / 4);
        break;
    case KERN_COAL_OFFSET:
        k_offset<<<copy_blocks(n), CO_THREADS, 0, s->stream>>>(s->d_in, s->d_out, n, param);
        break;
    case KERN_COAL_STRIDE:
        k_stride<<<copy_blocks(n / param), CO_THREADS, 0, s->stream>>>(s->d_in, s->d_out,
                                                                       n / param, param);
        break;
    case KERN_COAL_SMEM_COPY:
        k_smem_copy<<<tgrid, tblock, 0, s->stream>>>(s->d_in, s->d_out, w);
        break;
    case KERN_COAL_TRANSPOSE_NAIVE:
        k_transpose_naive<<<tgrid, tblock, 0, s->stream>>>(s->d_in, s->d_out, w);
        break;
    case KERN_COAL_TRANSPOSE_TILED:
        k_transpose_tiled<0><<<tgrid, tblock, 0, s->stream>>>(s->d_in, s->d_out, w);
        break;
    case KERN_COAL_TRANSPOSE_PADDED:
        k_transpose_tiled<1><<<tgrid, tblock, 0, s->stream>>>(s->d_in, s->d_out, w);
        break;
    default:
        return core_err_set(err, CORE_ERR_INVALID, "no coalescing kernel number %d", kind);
    }
    e = cudaGetLastError();
    if (e != cudaSuccess)
        return cuda_fail(err, e, "launch", kern_coal_kind_name(kind));
    return 0;
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* Compares the output (copied back to s->h_out) with the CPU reference. */
static int verify(struct kern_coal *s, int kind, int param, long long elems, struct core_err *err)
{
    const char *name = kern_coal_kind_name(kind);
    long long bad = -1;
    float expect = 0;
    if (kind == KERN_COAL_TRANSPOSE_NAIVE || kind == KERN_COAL_TRANSPOSE_TILED ||
        kind == KERN_COAL_TRANSPOSE_PADDED) {
        int w = s->info.side, band = (int)(CHECK_CHUNK / w) + 1;
        for (int r0 = 0; r0 < w && bad < 0; r0 += band) {
            bad = kern_coal_ref_transpose_diff(s->h_in, s->h_out, w, r0,
                                               r0 + band < w ? r0 + band : w);
            if (bad < 0 && stopped(s))
                return core_err_set(err, CORE_ERR_CANCELLED, "cancelled");
        }
        if (bad >= 0) {
            long long r = bad / w, c = bad % w;
            return core_err_set(err, CORE_ERR_INTERNAL,
                                "kernel '%s' wrote a wrong value at row %lld, column %lld of the "
                                "%d x %d output: %.9g where the CPU reference has %.9g",
                                name, r, c, w, w, (double)s->h_out[bad],
                                (double)s->h_in[c * w + r]);
        }
        return 0;
    }
    long long off = kind == KERN_COAL_OFFSET ? param : 0;
    long long st = kind == KERN_COAL_STRIDE ? param : 1;
    for (long long lo = 0; lo < elems && bad < 0; lo += CHECK_CHUNK) {
        long long len = lo + CHECK_CHUNK < elems ? CHECK_CHUNK : elems - lo;
        long long d = kern_coal_ref_gather_diff(s->h_in + off + lo * st, s->h_out + lo, len, 0, st);
        if (d >= 0)
            bad = lo + d;
        else if (stopped(s))
            return core_err_set(err, CORE_ERR_CANCELLED, "cancelled");
    }
    if (bad < 0)
        return 0;
    expect = s->h_in[off + bad * st];
    return core_err_set(err, CORE_ERR_INTERNAL,
                        "kernel '%s'%s wrote a wrong value at element %lld of %lld: %.9g where the "
                        "CPU reference has %.9g",
                        name,
                        kind == KERN_COAL_OFFSET   ? " (offset)"
                        : kind == KERN_COAL_STRIDE ? " (stride)"
                                                   : "",
                        bad, elems, (double)s->h_out[bad], (double)expect);
}

extern "C" int kern_coal_measure(struct kern_coal *s, int kind, int param, int reps,
                                 struct kern_coal_meas *m, struct core_err *err)
{
    cudaEvent_t *ev = NULL;
    float *ms = NULL;
    int n_ev = 0, rc = 0;
    long long elems = 0;
    const char *name = kern_coal_kind_name(kind);

    if ((rc = kern_coal_param_check(kind, param, err)) != 0)
        return rc;
    if (reps < 1 || reps > 10000)
        return core_err_set(err, CORE_ERR_INVALID,
                            "kernel '%s': repetitions must be from 1 to 10000, not %d", name, reps);
    if (!s)
        return core_err_set(err, CORE_ERR_INVALID, "kernel '%s': no session", name);
    elems = out_elems(s, kind, param);
    ev = (cudaEvent_t *)calloc((size_t)reps + 1, sizeof *ev);
    ms = (float *)calloc((size_t)reps, sizeof *ms);
    if (!ev || !ms) {
        rc = core_err_set(err, CORE_ERR_INVALID, "kernel '%s': out of host memory", name);
        goto out;
    }
    for (; n_ev <= reps; n_ev++)
        CK(cudaEventCreate(&ev[n_ev]), "cudaEventCreate", name);
    if (stopped(s)) {
        rc = core_err_set(err, CORE_ERR_CANCELLED, "cancelled");
        goto out;
    }
    /* all ones: NaN in every element, so an element the kernel skips fails */
    CK(cudaMemsetAsync(s->d_out, 0xff, (size_t)elems * sizeof(float), s->stream),
       "cudaMemsetAsync (clearing the output)", name);
    for (int w = 0; w < 2; w++)
        if ((rc = launch(s, kind, param, err)) != 0)
            goto out;
    CK(cudaEventRecord(ev[0], s->stream), "cudaEventRecord", name);
    for (int r = 0; r < reps; r++) {
        if ((rc = launch(s, kind, param, err)) != 0)
            goto out;
        CK(cudaEventRecord(ev[r + 1], s->stream), "cudaEventRecord", name);
    }
    /* a kernel that faulted says so here */
    CK(cudaEventSynchronize(ev[reps]), "running", name);
    for (int r = 0; r < reps; r++)
        CK(cudaEventElapsedTime(&ms[r], ev[r], ev[r + 1]), "cudaEventElapsedTime", name);
    if (stopped(s)) {
        rc = core_err_set(err, CORE_ERR_CANCELLED, "cancelled");
        goto out;
    }
    CK(cudaMemcpyAsync(s->h_out, s->d_out, (size_t)elems * sizeof(float), cudaMemcpyDeviceToHost,
                       s->stream),
       "cudaMemcpyAsync (output to the host)", name);
    CK(cudaStreamSynchronize(s->stream), "cudaStreamSynchronize (output to the host)", name);
    if ((rc = verify(s, kind, param, elems, err)) != 0)
        goto out;

    qsort(ms, (size_t)reps, sizeof *ms, cmp_float);
    memset(m, 0, sizeof *m);
    m->reps = reps;
    m->elems = elems;
    m->ms_min = ms[0];
    m->ms_max = ms[reps - 1];
    m->ms_median = reps % 2 ? ms[reps / 2] : 0.5 * ((double)ms[reps / 2 - 1] + ms[reps / 2]);
    m->bytes = 2.0 * (double)elems * sizeof(float);
    m->gbs = m->ms_median > 0 ? m->bytes / (m->ms_median * 1e-3) / 1e9 : 0;
out:
    if (ev)
        for (int i = 0; i < n_ev; i++)
            cudaEventDestroy(ev[i]);
    free(ev);
    free(ms);
    return rc;
}
