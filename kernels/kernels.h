/*
 * kernels.h — GPU kernels with a plain C ABI, and the CPU reference of each.
 *
 * The only header of the kernels module and the only interface to CUDA: no
 * other module includes a CUDA header. Everything here is callable whether
 * or not the build has CUDA: without it (or without a driver or a device)
 * kern_probe() says why in one line and every GPU entry point returns
 * CORE_ERR_IO with that reason, so a lab can fall back to its CPU analog.
 *
 * Files: kern_*.c are plain C and always built (the CPU references, the
 * model code that runs anywhere); kern_cuda_*.cu are built only when CMake
 * found nvcc (WB_HAVE_CUDA); kern_nocuda*.c are built only when it did not and
 * define the same GPU entry points as "this build has no CUDA" errors. No
 * #ifdef WB_HAVE_CUDA is needed anywhere.
 *
 * Threads: a GPU entry point may be called from any thread, one call at a
 * time per process (labs run one at a time). Each call allocates what it
 * needs and frees it before returning, also on every error path.
 *
 * Uses core (errors).
 */
#ifndef WB_KERNELS_H
#define WB_KERNELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#include "core/core.h"

/* ---- the device ------------------------------------------------------------ */

struct kern_device {
    char name[160];         /* "NVIDIA H200" */
    int index;              /* CUDA device ordinal used (0) */
    int cc_major, cc_minor; /* compute capability, e.g. 9.0 */
    int sm_count;
    int warp_size;          /* 32 */
    long long global_bytes; /* device memory */
    long long l2_bytes;
    int bus_width_bits;   /* memory bus width */
    double mem_clock_khz; /* 0 when the runtime does not report it */
    double peak_gbs;      /* 2 * clock * bus / 8 when known, else 0 */
    long long smem_per_block;
    int driver_version, runtime_version; /* 12040 = 12.4 */
};

/* Whether this build was compiled with CUDA (false: kern_nocuda.c). */
bool kern_built_with_cuda(void);

/* Finds the first CUDA device. 0 and *dev filled when one is usable;
 * CORE_ERR_NOTFOUND with one line that names the cause otherwise: "no GPU:
 * this build has no CUDA (nvcc was not found at build time)", "no GPU: no
 * NVIDIA driver is installed on this machine ...", "no GPU: the NVIDIA
 * driver is too old for this build: it supports CUDA 12.4, this build's
 * runtime is CUDA 13.0 ...", "no GPU: no CUDA device found (the NVIDIA
 * driver, for CUDA 13.0, is installed)", "no GPU: the NVIDIA driver ...
 * could not be used: <the CUDA error>", and, once a CUDA error broke the
 * context earlier in this process (a kernel fault), "no GPU: the GPU failed
 * earlier in this session (...) and cannot be used again until Warpbench
 * restarts" — so later runs fall back instead of failing. Cheap after the
 * first call (the answer is cached for the process). */
int kern_probe(struct kern_device *dev, struct core_err *err);

/* ---- coalescing lab (kern_coalesce*.c, kern_cuda_coalesce.cu) ------------- */
/*
 * The warp memory-transaction model (pure, runs anywhere), the CPU
 * references of the coalescing kernels, and the kernels themselves.
 *
 * The model: lane t of a warp reads elem_bytes bytes at byte address
 * (offset + t * stride) * elem_bytes of an array aligned to a line. Memory
 * moves whole sectors (32 bytes on NVIDIA GPUs) grouped in lines (128 bytes);
 * a CPU moves whole cache lines (64 bytes: sector = line = 64).
 *
 * Unlike the rest of this header, the GPU part keeps device buffers between
 * calls: kern_coal_open allocates them (and fills the input with random
 * data), kern_coal_measure runs one kernel on them, kern_coal_close frees
 * everything. A session is used by one thread at a time.
 */

struct kern_access {
    int elem_bytes;   /* bytes each lane reads: 1, 2, 4, 8 or 16 */
    int lanes;        /* threads in a warp: 32 (1 to 1024) */
    long long offset; /* element index of lane 0, 0 or more */
    long long stride; /* elements between neighbouring lanes, 0 or more (0: all one element) */
    int sector_bytes; /* smallest unit memory moves: 32 (GPU), 64 (CPU line); a power of two */
    int line_bytes;   /* cache line: 128 (GPU), 64 (CPU); a multiple of sector_bytes */
};

/* An access of a GPU warp reading 4-byte floats: 32 lanes, 32-byte
 * sectors, 128-byte lines. */
struct kern_access kern_access_gpu(long long offset, long long stride);

/* What one warp request touches. */
struct kern_warp_cost {
    int sectors;           /* distinct sectors */
    int lines;             /* distinct lines */
    long long bytes_used;  /* distinct bytes the lanes asked for */
    long long bytes_moved; /* sectors * sector_bytes */
    double efficiency;     /* bytes_used / bytes_moved, in (0, 1] */
};

/* 0 when a is a valid access; CORE_ERR_INVALID naming the field and what it
 * allows otherwise ("elem_bytes must be 1, 2, 4, 8 or 16, not 3"). */
int kern_access_check(const struct kern_access *a, struct core_err *err);

/* The sectors and lines one warp request of a touches. 0, or
 * kern_access_check's error (c untouched). Exact: 32 consecutive floats are
 * 4 sectors in 1 line; stride 2 is 8 sectors; stride 8 or more 32; offset 1
 * straddles a sector and a line boundary: 5 sectors in 2 lines. */
int kern_warp_cost(const struct kern_access *a, struct kern_warp_cost *c, struct core_err *err);

/* Bytes memory moves per element read, in a long run of consecutive warps
 * (warp w starts at element offset + w * lanes * stride) when every sector
 * is fetched once however many warps touch it: the L2 (a CPU's last-level
 * cache) serves the sector two neighbouring warps share. For aligned
 * elements that is min(stride * elem_bytes, sector rounded up to whole
 * sectors of one element). The offset does not matter here. NAN for an
 * invalid access or stride 0. */
double kern_stream_bytes(const struct kern_access *a);

/* Predicted bandwidth, as a fraction of a plain copy's, of a copy that reads
 * with access a and writes its elements contiguously (out[i] =
 * in[offset + i * stride]), bandwidth being useful bytes read + written per
 * second: a memory-bound kernel runs at the same bytes moved per second, so
 * the fraction is (useful / moved) over the copy's (useful / moved).
 * write_factor is the bytes moved per byte written: 1 on a GPU, 2 on a CPU
 * whose stores first read the line (write-allocate). _stream counts sectors
 * as kern_stream_bytes does (what DRAM moves); _request counts the sectors
 * of each warp request on its own (what the L1/L2 must serve: offset 1 is 5
 * sectors instead of 4). Both in (0, 1]; NAN for an invalid access, stride
 * 0 or write_factor < 0. */
double kern_copy_fraction_stream(const struct kern_access *a, double write_factor);
double kern_copy_fraction_request(const struct kern_access *a, double write_factor);

/* The n-way bank conflict of `lanes` threads reading 4-byte words at word
 * index t * stride_words of shared memory with `banks` banks (32) of 4
 * bytes: the most DIFFERENT words one bank must serve (one word read by
 * several lanes is broadcast). A column of float tile[32][32] is stride 32:
 * 32-way; of tile[32][33], stride 33: 1 (no conflict). 0 for lanes or banks
 * below 1, or a negative stride. */
int kern_bank_ways(long long stride_words, int lanes, int banks);

/* The datasheet memory bandwidth, in GB/s, of a few devices recognised by
 * name ("NVIDIA H200" 4800, "NVIDIA H100 80GB HBM3" 3350, A100s); 0 when
 * the name is not one of them. */
double kern_datasheet_gbs(const char *device_name);

/* ---- CPU references (what every kernel must write) ---- */

/* out[i] = in[offset + i * stride] for i in [i0, i1). The copy (offset 0,
 * stride 1), the offset copy and the strided copy of the lab. */
void kern_coal_ref_gather(const float *in, float *out, long long i0, long long i1, long long offset,
                          long long stride);
/* Rows [r0, r1) of the transpose of the w x w row-major matrix in:
 * out[r * w + c] = in[c * w + r]. */
void kern_coal_ref_transpose(const float *in, float *out, int w, int r0, int r1);
/* The same rows, computed tile x tile block by block (the CPU analog of
 * the shared-memory tile); the output is identical. */
void kern_coal_ref_transpose_blocked(const float *in, float *out, int w, int tile, int r0, int r1);
/* The first i in [0, n) where out[i] != in[offset + i * stride], or -1. */
long long kern_coal_ref_gather_diff(const float *in, const float *out, long long n,
                                    long long offset, long long stride);
/* The first index r * w + c, r in [r0, r1), where out differs from the
 * transpose of in, or -1. */
long long kern_coal_ref_transpose_diff(const float *in, const float *out, int w, int r0, int r1);

/* ---- the GPU kernels ---- */

enum kern_coal_kind {
    KERN_COAL_MEMCPY,           /* cudaMemcpy device to device: the ceiling */
    KERN_COAL_COPY16,           /* copy, 16 bytes (float4) per thread */
    KERN_COAL_COPY,             /* copy, 4 bytes per thread */
    KERN_COAL_OFFSET,           /* out[i] = in[i + param], param 0..32 */
    KERN_COAL_STRIDE,           /* out[i] = in[i * param], param 1..32 */
    KERN_COAL_SMEM_COPY,        /* side x side copy through a 32 x 32 shared tile */
    KERN_COAL_TRANSPOSE_NAIVE,  /* reads rows, writes columns */
    KERN_COAL_TRANSPOSE_TILED,  /* through tile[32][32]: 32-way bank conflicts */
    KERN_COAL_TRANSPOSE_PADDED, /* through tile[32][33]: none */
    KERN_COAL_N_KINDS
};

/* "memcpy", "copy16", "copy", "offset", "stride", "smem_copy",
 * "transpose_naive", "transpose_tiled", "transpose_padded"; "?" otherwise.
 * Static. */
const char *kern_coal_kind_name(int kind);
/* 0 when param suits kind (offset 0..32, stride 1..32, 0 for the others);
 * CORE_ERR_INVALID naming the kernel and the range otherwise. */
int kern_coal_param_check(int kind, int param, struct core_err *err);

#define KERN_COAL_MAX_OFFSET 32
#define KERN_COAL_MAX_STRIDE 32

struct kern_coal_opts {
    long long bytes; /* each of the two buffers; 0: 8 x the L2 and at least 1 GiB, within a
                      * quarter of the free GPU memory and an eighth of the host's */
    uint64_t seed;   /* of the random input */
    /* Asked between steps (may be NULL); true stops the call with
     * CORE_ERR_CANCELLED. */
    bool (*stop)(void *ud);
    void *ud;
};

struct kern_coal_info {
    struct kern_device dev;
    long long n;          /* floats in each copy buffer */
    int side;             /* transposes: side x side floats (a multiple of 32) */
    long long buf_bytes;  /* each of the two device buffers */
    long long free_bytes; /* device memory free before they were allocated */
    int l2_fetch_bytes;   /* the L2 fetch-granularity limit found at open; -1 unknown */
};

struct kern_coal_meas {
    double gbs;       /* (bytes read + bytes written) / ms_median */
    double ms_median; /* of the timed repetitions, each timed by CUDA events */
    double ms_min, ms_max;
    double bytes;    /* useful bytes read + written by one launch */
    long long elems; /* elements written by one launch */
    int reps;
};

struct kern_coal; /* opaque: a device, its buffers, a stream */

/* Opens a session on the first device: allocates an input and an output
 * buffer of o->bytes each (plus host copies of both), fills the input with
 * random floats from o->seed and copies it to the device. 0 and *out (close
 * with kern_coal_close) and *info filled; CORE_ERR_IO with kern_probe's line
 * when there is no GPU; CORE_ERR_LIMIT when the GPU's memory is short (the
 * buffers do not fit in half of its free memory, or cudaMalloc runs out),
 * CORE_ERR_INVALID when the host's memory is (or o->bytes is too small),
 * each saying how much was asked and how much there is; CORE_ERR_IO naming
 * the CUDA call and error when one fails (a CUDA error that breaks the
 * context also marks the GPU failed for kern_probe); CORE_ERR_CANCELLED
 * when o->stop said so. */
int kern_coal_open(struct kern_coal **out, const struct kern_coal_opts *o,
                   struct kern_coal_info *info, struct core_err *err);
/* Runs kernel `kind` with `param`: clears the output, launches three times
 * to warm up, times `reps` (1 to 10000) back-to-back launches with CUDA
 * events (at most ~20 ms of them queued at once, so a stop is noticed
 * quickly), and checks every element of the output against the CPU
 * reference. 0 and *m filled;
 * CORE_ERR_INVALID for a bad kind, param or reps; CORE_ERR_IO naming the
 * kernel and the CUDA error when a call or a launch fails; CORE_ERR_INTERNAL
 * naming the kernel, the element and both values when the output is wrong;
 * CORE_ERR_CANCELLED. */
int kern_coal_measure(struct kern_coal *s, int kind, int param, int reps, struct kern_coal_meas *m,
                      struct core_err *err);
/* Sets the L2 fetch-granularity hint (cudaLimitMaxL2FetchGranularity, 0 to
 * 128 bytes) and reads back what the device took into *got. The device may
 * ignore it; kern_coal_close restores the value found at open. */
int kern_coal_set_l2_fetch(struct kern_coal *s, int bytes, int *got, struct core_err *err);
/* Frees the session's buffers and stream. NULL does nothing. */
void kern_coal_close(struct kern_coal *s);

/* ---- k-means lab (kern_kmeans*.c, kern_cuda_kmeans.cu) -------------------- */
/*
 * The map step of k-means: every point goes to its nearest centre, and the
 * points of each cluster are added up (the combiner's partial sums).
 *
 * The arithmetic is fixed, so that every implementation — the CPU routine
 * at any vector width, the CUDA kernel, the scalar reference — picks the
 * same centre for every point, bit for bit: the squared distance from x to
 * centre c is a float accumulated over j = 0, 1, ..., d-1 in that order as
 * s = s + t*t with t = x_j - c_j, each operation rounded on its own (never
 * fused into an FMA); the nearest centre has the smallest s, and a tie goes
 * to the lower centre index. Sums are doubles, each point added in index
 * order; the SSE adds every chosen s (as a double) in index order.
 *
 * Points and centres are row-major float32: point i is x[i*d .. i*d+d).
 * Like the coalescing part, the GPU part keeps its device buffers between
 * calls (the points stay on the device for every iteration): a session from
 * kern_kmeans_gpu_new, used by one thread at a time.
 */

#define KERN_KM_MAX_D 256  /* largest dimension the routines take */
#define KERN_KM_MAX_K 1024 /* most centres */

/* The squared distance from x to c in d dimensions, as defined above. */
float kern_kmeans_dist(const float *x, const float *c, int d);

/* Assigns points x[0..n) to the nearest of the k centres (1 <= d <=
 * KERN_KM_MAX_D, 1 <= k <= KERN_KM_MAX_K). labels (may be NULL): labels[i]
 * gets point i's centre. sums/counts (both NULL or both given, zeroed by the
 * caller): point i's coordinates are added into sums[c*d + j] and 1 into
 * counts[c]. Returns the SSE (sum of the chosen squared distances). Uses the
 * widest vector unit this CPU has; never fails. */
double kern_kmeans_assign(const float *x, size_t n, int d, const float *centres, int k,
                          int32_t *labels, double *sums, int64_t *counts);

/* The same with a chosen vector width in floats: 1 (the scalar reference),
 * 4, 8 or 16. Every width gives bit-identical results; a width this CPU
 * cannot run is done with the widest it can. For tests and benchmarks. */
double kern_kmeans_assign_lanes(int lanes, const float *x, size_t n, int d, const float *centres,
                                int k, int32_t *labels, double *sums, int64_t *counts);
/* The width kern_kmeans_assign uses on this CPU (16, 8 or 4). */
int kern_kmeans_lanes(void);

/* A GPU session: the points on the device, split into `tasks` map tasks,
 * task t being points [bounds[t], bounds[t+1]) (bounds[0] = 0,
 * bounds[tasks] = n, non-decreasing). */
struct kern_km_gpu;

/* Uploads the points and prepares buffers for k centres. 0 and *out set;
 * CORE_ERR_IO with kern_probe's line when there is no GPU, or naming the
 * CUDA call that failed; CORE_ERR_INVALID for sizes out of range. Nothing
 * is left allocated on failure (*out is NULL). Caller frees with
 * kern_kmeans_gpu_free. */
int kern_kmeans_gpu_new(struct kern_km_gpu **out, const float *x, size_t n, int d, int k,
                        const size_t *bounds, int tasks, struct core_err *err);

/* One map step on the device with the given k×d centres: per task t, the
 * sums (sums[(t*k + c)*d + j]), counts (counts[t*k + c]) and SSE (sse[t]) of
 * its points, overwritten (not added to). labels (may be NULL) gets every
 * point's centre, identical to kern_kmeans_assign's. Counts are exact; sums
 * and SSE are added in a fixed tree order per task, so they are the same on
 * every call but may differ from the CPU's in the last bits. *kernel_s
 * (may be NULL): device time of the kernels alone. CORE_ERR_IO when a CUDA
 * call fails. */
int kern_kmeans_gpu_assign(struct kern_km_gpu *g, const float *centres, int32_t *labels,
                           double *sums, int64_t *counts, double *sse, double *kernel_s,
                           struct core_err *err);

/* Frees the session's device and host buffers. NULL does nothing. */
void kern_kmeans_gpu_free(struct kern_km_gpu *g);

/* ---- matrix multiply: FP32 and INT8 (kern_gemm.c, kern_dnnl_gemm.c,
 *      kern_cublas.cu) ------------------------------------------------------ */
/*
 * C = A·B with A m×k, B k×n and C m×n, in FP32 (float accumulators) and in
 * INT8 (int8 operands, exact int32 accumulators), used by the quantize lab
 * (INT8 against FP32 speed) and the serving lab (the model's forward pass).
 *
 * Ours (kern_gemm.c, always built): B is packed once into panels of 16
 * columns (struct kern_gemm_b); a product walks the panels in blocks of 256
 * k values and computes 4×16 tiles of C in registers. One source, one set
 * of compile flags; each instruction-set path is a function with its own
 * target attribute, chosen at run time:
 *   KERN_GEMM_PORTABLE  plain C loops (what the compiler makes of them)
 *   KERN_GEMM_AVX2      FP32: 8-wide FMA; INT8: pmaddwd on int16 pairs
 *                       (16 multiply-adds per instruction, int32 sums)
 *   KERN_GEMM_VNNI      INT8 only: vpdpbusd on byte quads (32 per
 *                       instruction); A is shifted to unsigned (+128) and
 *                       128·(column sums of B) subtracted, so the result is
 *                       the same exact int32 sum
 * Every INT8 path gives bit-identical results; FP32 paths differ only by
 * rounding order.
 *
 * oneDNN (kern_dnnl_gemm.c, built when CMake finds Debian's libdnnl-dev;
 * kern_nodnnl_gemm.c stands in otherwise): dnnl_sgemm and
 * dnnl_gemm_s8s8s32 on the same row-major operands.
 *
 * cuBLAS (kern_cublas.cu, built when CMake finds CUDA and its cuBLAS;
 * kern_nocublas.c stands in otherwise): SGEMM against cublasGemmEx with
 * INT8 inputs and INT32 results, and the serving lab's MLP forward pass.
 * CUDA does not survive fork(): call these only in the process that probed
 * the GPU (the serving lab runs its GPU worker as a thread for that reason).
 */

enum kern_gemm_path { KERN_GEMM_PORTABLE, KERN_GEMM_AVX2, KERN_GEMM_VNNI, KERN_GEMM_N_PATHS };

#define KERN_GEMM_NR 16    /* columns per packed panel */
#define KERN_GEMM_MAX 8192 /* largest m, k or n the packers take */

/* "portable", "avx2", "vnni"; "?" otherwise. Static. */
const char *kern_gemm_path_name(int path);
/* Whether this CPU can run `path` for INT8 (s8) or FP32 products. FP32
 * has no VNNI path (false). */
bool kern_gemm_path_ok(int path, bool s8);
/* The fastest path this CPU runs for INT8 (s8) or FP32. */
int kern_gemm_best(bool s8);

/* B packed for one path and one type. Zero-initialise, fill with a _pack,
 * free with kern_gemm_b_fini. */
struct kern_gemm_b {
    int path;
    bool s8;
    int k, n;        /* the logical sizes */
    int kp, np;      /* padded: k to the path's group (1, 2 or 4), n to 16 */
    void *data;      /* owned */
    int32_t *colsum; /* VNNI: sum over k of each column (owned); NULL otherwise */
};

/* Packs B, element (kk, j) at B[kk * ldk + j * ldn]: row-major k×n is
 * ldk = n, ldn = 1; a layer's weights stored out×in (the Linear layout)
 * are ldk = 1, ldn = k. 0; CORE_ERR_INVALID for sizes outside
 * 1..KERN_GEMM_MAX, a path this CPU cannot run, or VNNI for FP32. */
int kern_gemm_b_pack_f32(struct kern_gemm_b *b, int path, const float *B, int k, int n, size_t ldk,
                         size_t ldn, struct core_err *err);
int kern_gemm_b_pack_s8(struct kern_gemm_b *b, int path, const int8_t *B, int k, int n, size_t ldk,
                        size_t ldn, struct core_err *err);
void kern_gemm_b_fini(struct kern_gemm_b *b);

/* C[i*ldc + j] = sum over kk of A[i*lda + kk] * B(kk, j), for i < m (1 to
 * KERN_GEMM_MAX) and j < b->n; C is overwritten. The b's type must match
 * (aborts otherwise: a programming error). The INT8 product allocates a
 * packed copy of A (m·k bytes or so) for the call. */
void kern_gemm_f32(const struct kern_gemm_b *b, const float *A, int m, size_t lda, float *C,
                   size_t ldc);
void kern_gemm_s8(const struct kern_gemm_b *b, const int8_t *A, int m, size_t lda, int32_t *C,
                  size_t ldc);

/* The references: plain triple loops over row-major A (m×k), B (k×n), C
 * (m×n); FP32 summed in double, INT8 exactly in int32. */
void kern_gemm_ref_f32(const float *A, const float *B, float *C, int m, int k, int n);
void kern_gemm_ref_s8(const int8_t *A, const int8_t *B, int32_t *C, int m, int k, int n);

/* ---- the oneDNN library ---- */

/* Whether this build links oneDNN; *version (may be NULL) gets "oneDNN
 * 2.6.3 (CPU ISA: avx512_core_vnni)" or why not ("this build has no oneDNN
 * (libdnnl-dev was not found at build time)"). */
bool kern_dnnl_probe(char *version, size_t size);
/* Row-major C = A·B (A m×k, B k×n) with dnnl_sgemm / dnnl_gemm_s8s8s32 on
 * `threads` OpenMP threads (0: the library's default, every core). 0;
 * CORE_ERR_IO with the library's status, or kern_dnnl_probe's reason. */
int kern_dnnl_gemm_f32(int threads, const float *A, const float *B, float *C, int m, int k, int n,
                       struct core_err *err);
int kern_dnnl_gemm_s8(int threads, const int8_t *A, const int8_t *B, int32_t *C, int m, int k,
                      int n, struct core_err *err);

/* ---- cuBLAS on the GPU ---- */

/* Whether this build links cuBLAS (false without CUDA too). */
bool kern_built_with_cublas(void);

struct kern_gemm_gpu_meas {
    int n;             /* square n×n×n */
    int reps;          /* timed launches of each (median of CUDA-event times) */
    double f32_ms;     /* cublasSgemm */
    double s8_ms;      /* cublasGemmEx, INT8 in, INT32 out */
    double f32_tflops; /* 2n³ / time */
    double s8_tops;
    long long checked;  /* INT8 results compared exactly with the CPU reference */
    double f32_max_rel; /* largest relative FP32 difference among those */
};

/* Times SGEMM and the INT8 GemmEx on random n×n operands (n a multiple of
 * 16, 16 to 16384) from seed: three warm-up launches each, then `reps`
 * (1 to 1000) timed ones; checks every INT8 result of a few rows against
 * the CPU reference, exactly, and FP32 to 1e-3 relative. 0 and *m filled;
 * CORE_ERR_IO with kern_probe's line (no GPU) or naming the CUDA/cuBLAS
 * call; CORE_ERR_INTERNAL naming the element when a result is wrong;
 * CORE_ERR_INVALID for n or reps; CORE_ERR_CANCELLED when stop(ud) said so
 * between launches. */
int kern_gemm_gpu_measure(int n, int reps, uint64_t seed, bool (*stop)(void *), void *ud,
                          struct kern_gemm_gpu_meas *m, struct core_err *err);

/* The serving lab's model on the GPU: y = relu(x·W1ᵀ + b1)·W2ᵀ + b2 with
 * W1 hidden×d_in and W2 d_out×hidden (row-major, the Linear layout), for
 * batches of up to max_batch rows of x (row-major batch×d_in). */
struct kern_mlp_gpu;
/* Uploads the weights. 0 and *out; CORE_ERR_IO as above; nothing left
 * allocated on failure. Free with kern_mlp_gpu_free. */
int kern_mlp_gpu_new(struct kern_mlp_gpu **out, int d_in, int hidden, int d_out, const float *w1,
                     const float *b1, const float *w2, const float *b2, int max_batch,
                     struct core_err *err);
/* One forward pass of `batch` rows (1..max_batch), copies in and out
 * included. CORE_ERR_IO naming the call that failed. */
int kern_mlp_gpu_forward(struct kern_mlp_gpu *g, const float *x, int batch, float *y,
                         struct core_err *err);
void kern_mlp_gpu_free(struct kern_mlp_gpu *g);

#ifdef __cplusplus
}
#endif

#endif /* WB_KERNELS_H */
