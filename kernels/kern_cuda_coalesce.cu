/*
 * kern_cuda_coalesce.cu — the coalescing lab's kernels (built only with
 * CUDA): copies with 4 and 16 bytes per thread, a copy reading at an element
 * offset, a copy reading with a stride, the shared-memory copy that is the
 * transposes' baseline, the naive, tiled (32 x 32) and padded (32 x 33)
 * transposes, and cudaMemcpy device to device as the ceiling.
 *
 * Measuring right:
 * - the buffers are several times the L2 (by default 8x the L2 size read
 *   from the device, and at least 1 GiB each), so every launch streams from
 *   device memory, not from the cache, and moves enough that the gap
 *   between two launches is noise;
 * - three untimed launches warm up (first-launch costs, clocks), then every
 *   timed launch sits between two CUDA events on one stream, launches back
 *   to back, and the median of the repetitions is reported (with min and
 *   max);
 * - bandwidth is useful bytes read + bytes written per second;
 * - the output is cleared before each kernel, and every element is compared
 *   with the CPU reference (kern_coalesce_ref.c) on the random input after
 *   the timed launches: a fast wrong kernel is an error, not a result;
 * - every CUDA call's status is checked, and an error names the kernel and
 *   the CUDA error; it clears the runtime's error state and marks the GPU
 *   failed when it broke the context (kern_cuda_error), so the next lab run
 *   falls back instead of failing. GPU memory too short for the buffers
 *   (the free memory, or an out-of-memory from cudaMalloc) is
 *   CORE_ERR_LIMIT, so the lab can run its CPU analog instead.
 *
 * All the copy kernels share one shape: blocks of 256 threads, each thread
 * handling CO_UNROLL elements 256 apart (8 floats; 4 float4s for copy16),
 * all loads first and then all stores, so every thread keeps 32 to 64 bytes
 * of reads in flight (HBM3e needs tens of KiB in flight per SM to stream).
 * A warp's request is always 32 consecutive threads at consecutive output
 * elements; only where they read differs.
 *
 * The transposes are the classic 32 x 32 tiles, with 32 x 4 threads each
 * moving 8 elements of a tile (again loads first: 16 blocks of 4 KiB per SM
 * in flight). Blocks take tiles in bands of 32 tile rows, down a band's
 * column of tiles before moving right: the blocks running at one time then
 * read and write runs of several KiB in each row instead of 128 bytes, so
 * device memory sees long runs on both sides. The same order is used by all
 * four tile kernels, so they differ only in what the lesson is about.
 */
#include "kernels/kern_internal.h"

#include <cuda_runtime.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CO_THREADS 256
#define CO_UNROLL 8                               /* floats per thread */
#define CO_PER_BLOCK (CO_THREADS * CO_UNROLL)     /* floats per block */
#define CO16_UNROLL 4                             /* float4s per thread (copy16) */
#define CO16_PER_BLOCK (CO_THREADS * CO16_UNROLL) /* float4s per block */
#define N_ALIGN 4096 /* n is a multiple: whole blocks of every copy, whole float4s */
#define TILE 32
#define ROWS 4 /* threads per tile column: TILE / ROWS elements each */
#define TILE_THREADS (TILE * ROWS)
#define BAND 32                     /* tile rows per band of the block order */
#define PAD_FLOATS 64               /* the offset copy reads up to 32 past n */
#define MIN_AUTO_BYTES (1LL << 30)  /* the automatic size's floor: launches of >= 2 GB moved */
#define NOL2_AUTO_BYTES (1LL << 30) /* when the L2 size is unknown */
#define CHECK_CHUNK (1LL << 24)     /* elements filled, copied or compared between stop checks */
#define WARMUP 2                    /* untimed launches timed as a whole (plus one more) */
#define AHEAD_MS 20.0               /* work kept queued on the GPU while the host looks at stop */
#define MAX_AHEAD 256               /* launches queued at most */

static_assert(N_ALIGN % CO_PER_BLOCK == 0 && N_ALIGN % (4 * CO16_PER_BLOCK) == 0,
              "n must be whole blocks of every copy kernel");
static_assert(TILE % ROWS == 0, "every thread moves whole columns of a tile");

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

/* What every copy kernel's block does: out[i] = in[i * stride] (or in[i]
 * when not STRIDED) for its elements i < n. With P = CO_THREADS * U, block
 * b has elements [b * P, (b + 1) * P), thread t those at b * P + t + u *
 * CO_THREADS for u < U, all U loads issued before the first store. A block
 * wholly inside [0, n) (all but the last of a launch) runs without bounds
 * checks, so nothing stands between its loads. */
template <int U, bool STRIDED, typename T>
__device__ __forceinline__ void gather_block(const T *__restrict__ in, T *__restrict__ out,
                                             long long n, int stride)
{
    long long first = (long long)blockIdx.x * (CO_THREADS * U);
    long long base = first + threadIdx.x;
    T v[U];
    if (first + CO_THREADS * U <= n) {
#pragma unroll
        for (int u = 0; u < U; u++) {
            long long i = base + (long long)u * CO_THREADS;
            v[u] = in[STRIDED ? i * stride : i];
        }
#pragma unroll
        for (int u = 0; u < U; u++)
            out[base + (long long)u * CO_THREADS] = v[u];
        return;
    }
#pragma unroll
    for (int u = 0; u < U; u++) {
        long long i = base + (long long)u * CO_THREADS;
        if (i < n)
            v[u] = in[STRIDED ? i * stride : i];
    }
#pragma unroll
    for (int u = 0; u < U; u++) {
        long long i = base + (long long)u * CO_THREADS;
        if (i < n)
            out[i] = v[u];
    }
}

/* out[i] = in[i], 4 bytes per element. */
__global__ void __launch_bounds__(CO_THREADS)
    k_copy(const float *__restrict__ in, float *__restrict__ out, long long n)
{
    gather_block<CO_UNROLL, false>(in, out, n, 1);
}

/* The same with 16-byte loads and stores (in and out 16-byte aligned, as
 * cudaMalloc's are; n4 float4s). */
__global__ void __launch_bounds__(CO_THREADS)
    k_copy16(const float4 *__restrict__ in, float4 *__restrict__ out, long long n4)
{
    gather_block<CO16_UNROLL, false>(in, out, n4, 1);
}

/* out[i] = in[i + offset]: the reads start `offset` floats past a line
 * boundary, the writes stay aligned. in holds n + offset floats. */
__global__ void __launch_bounds__(CO_THREADS)
    k_offset(const float *__restrict__ in, float *__restrict__ out, long long n, int offset)
{
    gather_block<CO_UNROLL, false>(in + offset, out, n, 1);
}

/* out[i] = in[i * stride] for i < n: the reads are `stride` floats apart,
 * the writes stay coalesced. in holds at least n * stride floats. */
__global__ void __launch_bounds__(CO_THREADS)
    k_stride(const float *__restrict__ in, float *__restrict__ out, long long n, int stride)
{
    gather_block<CO_UNROLL, true>(in, out, n, stride);
}

/* The tile this block handles, in tiles (column tx, row ty of the input),
 * with nt x nt tiles and a 1-D grid of nt * nt blocks: bands of BAND tile
 * rows one after the other, each walked down its columns of tiles. A
 * bijection: the last band may have fewer rows. */
__device__ __forceinline__ void tile_of(unsigned int nt, unsigned int *tx, unsigned int *ty)
{
    unsigned int b = blockIdx.x, band = BAND * nt;
    unsigned int first = b / band * BAND;
    unsigned int rows = nt - first < BAND ? nt - first : BAND;
    unsigned int k = b - first * nt;
    *ty = first + k % rows;
    *tx = k / rows;
}

/* The transposes' baseline: the same tiles, threads and block order,
 * through shared memory, but rows in and rows out (no bank conflicts). w is
 * a multiple of TILE. */
__global__ void __launch_bounds__(TILE_THREADS)
    k_smem_copy(const float *__restrict__ in, float *__restrict__ out, int w)
{
    __shared__ float tile[TILE][TILE];
    unsigned int bx, by;
    tile_of((unsigned int)w / TILE, &bx, &by);
    size_t x = bx * TILE + threadIdx.x, y = by * TILE + threadIdx.y;
    float v[TILE / ROWS];
#pragma unroll
    for (int j = 0; j < TILE / ROWS; j++)
        v[j] = in[(y + j * ROWS) * w + x];
#pragma unroll
    for (int j = 0; j < TILE / ROWS; j++)
        tile[threadIdx.y + j * ROWS][threadIdx.x] = v[j];
    __syncthreads();
#pragma unroll
    for (int j = 0; j < TILE / ROWS; j++)
        out[(y + j * ROWS) * w + x] = tile[threadIdx.y + j * ROWS][threadIdx.x];
}

/* Reads a row (coalesced), writes a column: each warp's store touches 32
 * rows of the output, 32 sectors for 128 useful bytes. */
__global__ void __launch_bounds__(TILE_THREADS)
    k_transpose_naive(const float *__restrict__ in, float *__restrict__ out, int w)
{
    unsigned int bx, by;
    tile_of((unsigned int)w / TILE, &bx, &by);
    size_t x = bx * TILE + threadIdx.x, y = by * TILE + threadIdx.y;
    float v[TILE / ROWS];
#pragma unroll
    for (int j = 0; j < TILE / ROWS; j++)
        v[j] = in[(y + j * ROWS) * w + x];
#pragma unroll
    for (int j = 0; j < TILE / ROWS; j++)
        out[x * w + y + j * ROWS] = v[j];
}

/* Rows in, rows out, the turn made in shared memory: the tile is written
 * by rows and read by columns. With PAD = 0 a column is 32 words apart, all
 * in one bank (32-way conflict); PAD = 1 moves each row one bank over.
 * tile[r][c] = in[(by*32 + r) * w + bx*32 + c], and the output row bx*32 + r
 * gets, at column by*32 + c, tile[c][r]. */
template <int PAD>
__global__ void __launch_bounds__(TILE_THREADS)
    k_transpose_tiled(const float *__restrict__ in, float *__restrict__ out, int w)
{
    __shared__ float tile[TILE][TILE + PAD];
    unsigned int bx, by;
    tile_of((unsigned int)w / TILE, &bx, &by);
    size_t x = bx * TILE + threadIdx.x, y = by * TILE + threadIdx.y;
    float v[TILE / ROWS];
#pragma unroll
    for (int j = 0; j < TILE / ROWS; j++)
        v[j] = in[(y + j * ROWS) * w + x];
#pragma unroll
    for (int j = 0; j < TILE / ROWS; j++)
        tile[threadIdx.y + j * ROWS][threadIdx.x] = v[j];
    __syncthreads();
    x = by * TILE + threadIdx.x;
    y = bx * TILE + threadIdx.y;
#pragma unroll
    for (int j = 0; j < TILE / ROWS; j++)
        out[(y + j * ROWS) * w + x] = tile[threadIdx.x][threadIdx.y + j * ROWS];
}

/* ---- errors ---------------------------------------------------------------- */

static int cuda_fail(struct core_err *err, cudaError_t e, const char *what, const char *kernel)
{
    char m[160];
    snprintf(m, sizeof m, "kernel '%s': %s", kernel ? kernel : "coalescing", what);
    const char *after =
        kern_cuda_error(e, m) ? "; the GPU cannot be used again until Warpbench restarts" : "";
    int code = e == cudaErrorMemoryAllocation ? CORE_ERR_LIMIT : CORE_ERR_IO;
    if (kernel)
        return core_err_set(err, code, "kernel '%s': %s failed: %s (%s)%s", kernel, what,
                            cudaGetErrorString(e), cudaGetErrorName(e), after);
    return core_err_set(err, code, "coalescing kernels: %s failed: %s (%s)%s", what,
                        cudaGetErrorString(e), cudaGetErrorName(e), after);
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

static void nap(void)
{
    struct timespec ts = {0, 200 * 1000}; /* 0.2 ms */
    nanosleep(&ts, NULL);
}

/* Waits until ev has happened, asking stop between looks. 0;
 * CORE_ERR_CANCELLED; CORE_ERR_IO naming the kernel when the work before ev
 * failed (a kernel that faulted says so here). */
static int wait_event(struct kern_coal *s, cudaEvent_t ev, const char *kname, struct core_err *err)
{
    for (;;) {
        cudaError_t e = cudaEventQuery(ev);
        if (e == cudaSuccess)
            return 0;
        if (e != cudaErrorNotReady)
            return cuda_fail(err, e, "running", kname);
        if (cudaPeekAtLastError() == cudaErrorNotReady)
            cudaGetLastError(); /* "not ready" is no error for the next check */
        if (stopped(s))
            return core_err_set(err, CORE_ERR_CANCELLED, "cancelled");
        nap();
    }
}

/* Copies n floats between host and device in pieces, asking stop between
 * them (a GiB over PCIe takes longer than a cancel may). */
static int transfer(struct kern_coal *s, float *dst, const float *src, long long n,
                    cudaMemcpyKind kind, const char *what, const char *kname, struct core_err *err)
{
    int rc = 0;
    for (long long lo = 0; lo < n; lo += CHECK_CHUNK) {
        long long len = lo + CHECK_CHUNK < n ? CHECK_CHUNK : n - lo;
        CK(cudaMemcpyAsync(dst + lo, src + lo, (size_t)len * sizeof(float), kind, s->stream), what,
           kname);
        CK(cudaStreamSynchronize(s->stream), what, kname);
        if (stopped(s))
            return core_err_set(err, CORE_ERR_CANCELLED, "cancelled");
    }
out:
    return rc;
}

/* ---- the session ----------------------------------------------------------- */

extern "C" void kern_coal_close(struct kern_coal *s)
{
    if (!s)
        return;
    /* best effort: the statuses are of no use to anyone here. The queued
     * launches (a cancelled measurement leaves up to AHEAD_MS of them)
     * finish first, then the device-wide limit goes back. */
    if (s->have_stream)
        cudaStreamSynchronize(s->stream);
    if (s->l2_fetch_changed && s->info.l2_fetch_bytes >= 0)
        cudaDeviceSetLimit(cudaLimitMaxL2FetchGranularity, (size_t)s->info.l2_fetch_bytes);
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
    cudaGetLastError(); /* whatever an earlier caller left is not this session's error */
    CK(cudaSetDevice(s->info.dev.index), "cudaSetDevice", NULL);
    CK(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo", NULL);
    s->info.free_bytes = (long long)free_b;

    pages = sysconf(_SC_PHYS_PAGES);
    page = sysconf(_SC_PAGESIZE);
    if (o && o->bytes > 0) {
        bytes = o->bytes;
    } else {
        /* 8 x L2, so no launch finds its data still in the cache, and at
         * least 1 GiB, so each timed launch moves 2 GiB and the few
         * microseconds between launches cost well under 1%; at most a
         * quarter of the free device memory and an eighth of the host's
         * (the host keeps a copy of both buffers) each */
        long long l2 = s->info.dev.l2_bytes;
        bytes = l2 > 0 ? 8 * l2 : NOL2_AUTO_BYTES;
        if (bytes < MIN_AUTO_BYTES)
            bytes = MIN_AUTO_BYTES;
        long long cap = (long long)(free_b / 4) - (1LL << 20); /* room for the pad */
        if (pages > 0 && page > 0 && (long long)pages * page / 8 < cap)
            cap = (long long)pages * page / 8;
        if (bytes > cap)
            bytes = cap > 0 ? cap : 0;
        bytes &= ~((1LL << 20) - 1); /* whole MiB */
    }
    /* whole blocks of every copy kernel, whole float4s */
    n = bytes / 4 / N_ALIGN * N_ALIGN;
    if (n < N_ALIGN) {
        /* an automatic size this small: the GPU's free memory is short */
        rc = core_err_set(err, o && o->bytes > 0 ? CORE_ERR_INVALID : CORE_ERR_LIMIT,
                          "coalescing kernels: buffers of %lld bytes are too small (at least %d)",
                          bytes, 4 * N_ALIGN);
        goto out;
    }
    if ((double)(2 * n + PAD_FLOATS) * 4 > (double)free_b / 2) {
        rc = core_err_set(
            err, CORE_ERR_LIMIT,
            "coalescing kernels: two buffers of %lld MiB need %lld MiB of GPU memory, "
            "more than half of the %lld MiB free on %s",
            n * 4 >> 20, (2 * n * 4) >> 20, (long long)(free_b >> 20), s->info.dev.name);
        goto out;
    }
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
    if ((rc = transfer(s, s->d_in, s->h_in, n + PAD_FLOATS, cudaMemcpyHostToDevice,
                       "cudaMemcpyAsync (input to the device)", NULL, err)) != 0)
        goto out;
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

static unsigned int copy_blocks(long long n, long long per_block)
{
    return (unsigned int)((n + per_block - 1) / per_block);
}

/* Enqueues one launch of kind on the session's stream. */
static int launch(struct kern_coal *s, int kind, int param, struct core_err *err)
{
    long long n = s->info.n;
    int w = s->info.side;
    /* one block per tile, in the order tile_of gives (nt * nt < 2^31:
     * a side of 2^20 floats would need 4 TiB) */
    dim3 tgrid((unsigned int)(w / TILE) * (unsigned int)(w / TILE)), tblock(TILE, ROWS);
    cudaError_t e = cudaSuccess;
    switch (kind) {
    case KERN_COAL_MEMCPY:
        e = cudaMemcpyAsync(s->d_out, s->d_in, (size_t)n * sizeof(float), cudaMemcpyDeviceToDevice,
                            s->stream);
        if (e != cudaSuccess)
            return cuda_fail(err, e, "cudaMemcpyAsync device to device", "memcpy");
        return 0;
    case KERN_COAL_COPY:
        k_copy<<<copy_blocks(n, CO_PER_BLOCK), CO_THREADS, 0, s->stream>>>(s->d_in, s->d_out, n);
        break;
    case KERN_COAL_COPY16:
        k_copy16<<<copy_blocks(n / 4, CO16_PER_BLOCK), CO_THREADS, 0, s->stream>>>(
            (const float4 *)s->d_in, (float4 *)s->d_out, n / 4);
        break;
    case KERN_COAL_OFFSET:
        k_offset<<<copy_blocks(n, CO_PER_BLOCK), CO_THREADS, 0, s->stream>>>(s->d_in, s->d_out, n,
                                                                             param);
        break;
    case KERN_COAL_STRIDE:
        k_stride<<<copy_blocks(n / param, CO_PER_BLOCK), CO_THREADS, 0, s->stream>>>(
            s->d_in, s->d_out, n / param, param);
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
    /* ev[0 .. reps]: around the timed launches; ev[reps + 1]: the warm-up's start */
    cudaEvent_t *ev = NULL;
    float *ms = NULL;
    float warm_ms = 0;
    int n_ev = 0, rc = 0, ahead = 2;
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
    ev = (cudaEvent_t *)calloc((size_t)reps + 2, sizeof *ev);
    ms = (float *)calloc((size_t)reps, sizeof *ms);
    if (!ev || !ms) {
        rc = core_err_set(err, CORE_ERR_INVALID, "kernel '%s': out of host memory", name);
        goto out;
    }
    CK(cudaSetDevice(s->info.dev.index), "cudaSetDevice", name);
    for (; n_ev < reps + 2; n_ev++)
        CK(cudaEventCreate(&ev[n_ev]), "cudaEventCreate", name);
    if (stopped(s)) {
        rc = core_err_set(err, CORE_ERR_CANCELLED, "cancelled");
        goto out;
    }
    /* all ones: NaN in every element, so an element the kernel skips fails */
    CK(cudaMemsetAsync(s->d_out, 0xff, (size_t)elems * sizeof(float), s->stream),
       "cudaMemsetAsync (clearing the output)", name);

    /* Warm-up (first-launch costs, clocks), timed as a whole to know how
     * many launches make AHEAD_MS of work. */
    CK(cudaEventRecord(ev[reps + 1], s->stream), "cudaEventRecord", name);
    for (int w = 0; w < WARMUP; w++)
        if ((rc = launch(s, kind, param, err)) != 0)
            goto out;
    CK(cudaEventRecord(ev[0], s->stream), "cudaEventRecord", name);
    if ((rc = wait_event(s, ev[0], name, err)) != 0)
        goto out;
    CK(cudaEventElapsedTime(&warm_ms, ev[reps + 1], ev[0]), "cudaEventElapsedTime", name);
    if (warm_ms > 0) {
        double a = ceil(AHEAD_MS / (warm_ms / WARMUP));
        ahead = a > MAX_AHEAD ? MAX_AHEAD : a < 2 ? 2 : (int)a;
    }
    /* One more untimed launch: the GPU has just gone idle, and the gap
     * before the next launch lands here rather than in the first timing. */
    if ((rc = launch(s, kind, param, err)) != 0)
        goto out;

    /* Every timed launch sits between two events on the stream, launches
     * back to back. At most `ahead` of them are queued at once, so the GPU
     * never runs dry while a stop is noticed within AHEAD_MS or so. */
    CK(cudaEventRecord(ev[0], s->stream), "cudaEventRecord", name);
    for (int r = 0; r < reps; r++) {
        if (r >= ahead && (rc = wait_event(s, ev[r - ahead + 1], name, err)) != 0)
            goto out;
        if ((rc = launch(s, kind, param, err)) != 0)
            goto out;
        CK(cudaEventRecord(ev[r + 1], s->stream), "cudaEventRecord", name);
    }
    if ((rc = wait_event(s, ev[reps], name, err)) != 0)
        goto out;
    for (int r = 0; r < reps; r++)
        CK(cudaEventElapsedTime(&ms[r], ev[r], ev[r + 1]), "cudaEventElapsedTime", name);

    if ((rc = transfer(s, s->h_out, s->d_out, elems, cudaMemcpyDeviceToHost,
                       "cudaMemcpyAsync (output to the host)", name, err)) != 0)
        goto out;
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
