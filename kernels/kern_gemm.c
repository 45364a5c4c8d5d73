/*
 * kern_gemm.c — our matrix multiply on the CPU, FP32 and INT8, one blocked
 * structure for both (see kernels.h for the paths and the packing).
 *
 * Structure. B is packed once into panels of KERN_GEMM_NR = 16 columns,
 * zero-padded, laid out so that one k step of a panel is one contiguous
 * run of bytes (INT8 paths group 2 or 4 consecutive k per column first).
 * A product loops: panel, then blocks of GEMM_KC k values (so the panel's
 * block, 16 KB or less, stays in L1 while every row of A passes it), then
 * tiles of up to 4 rows; a tile keeps its 4×16 sums in registers for the
 * whole k block and adds them to C at the end of each block.
 *
 * The arithmetic a path does per instruction is the point of the quantize
 * lab's comparison: FP32 FMA does 8 multiply-adds per 256-bit instruction;
 * INT8 through pmaddwd does 16 (two int16 products summed into each int32
 * lane), and through VNNI's vpdpbusd 32 (four byte products per lane).
 * INT8 sums are exact in int32 for every k this file takes: |a·b| ≤ 2^14,
 * and KERN_GEMM_MAX · 2^14 < 2^31 (VNNI's shifted operand: 255·128 per
 * product, times 8192, also fits).
 *
 * Each path is its own function with a target attribute, so the whole file
 * compiles with the project's flags and the fastest path this CPU has is
 * chosen at run time (__builtin_cpu_supports). Uses core (errors,
 * allocation).
 */
#include "kernels/kernels.h"

#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define GEMM_X86 1
#else
#define GEMM_X86 0
#endif

#define NR KERN_GEMM_NR
#define MR 4
#define GEMM_KC 256 /* k values per block; a multiple of 4 */

/* ---- paths ---------------------------------------------------------------------- */

const char *kern_gemm_path_name(int path)
{
    switch (path) {
    case KERN_GEMM_PORTABLE:
        return "portable";
    case KERN_GEMM_AVX2:
        return "avx2";
    case KERN_GEMM_VNNI:
        return "vnni";
    default:
        return "?";
    }
}

bool kern_gemm_path_ok(int path, bool s8)
{
    switch (path) {
    case KERN_GEMM_PORTABLE:
        return true;
#if GEMM_X86
    case KERN_GEMM_AVX2:
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    case KERN_GEMM_VNNI:
        return s8 && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("avx512vl") &&
               __builtin_cpu_supports("avx512vnni");
#endif
    default:
        return false;
    }
}

int kern_gemm_best(bool s8)
{
    for (int p = KERN_GEMM_N_PATHS - 1; p > KERN_GEMM_PORTABLE; p--)
        if (kern_gemm_path_ok(p, s8))
            return p;
    return KERN_GEMM_PORTABLE;
}

/* k values grouped per column in a packed INT8 panel. */
static int group_of(int path, bool s8)
{
    if (!s8 || path == KERN_GEMM_PORTABLE)
        return 1;
    return path == KERN_GEMM_AVX2 ? 2 : 4;
}

/* ---- packing -------------------------------------------------------------------- */

static int pack_check(int path, bool s8, int k, int n, struct core_err *err)
{
    if (k < 1 || k > KERN_GEMM_MAX || n < 1 || n > KERN_GEMM_MAX)
        return core_err_set(err, CORE_ERR_INVALID,
                            "matrix sizes k = %d, n = %d: each must be 1 to %d", k, n,
                            KERN_GEMM_MAX);
    if (path < 0 || path >= KERN_GEMM_N_PATHS || !kern_gemm_path_ok(path, s8))
        return core_err_set(err, CORE_ERR_INVALID, "the %s path cannot run %s products on this CPU",
                            kern_gemm_path_name(path), s8 ? "INT8" : "FP32");
    return 0;
}

static void pack_init(struct kern_gemm_b *b, int path, bool s8, int k, int n)
{
    int g = group_of(path, s8);
    memset(b, 0, sizeof *b);
    b->path = path;
    b->s8 = s8;
    b->k = k;
    b->n = n;
    b->kp = (k + g - 1) / g * g;
    b->np = (n + NR - 1) / NR * NR;
}

int kern_gemm_b_pack_f32(struct kern_gemm_b *b, int path, const float *B, int k, int n, size_t ldk,
                         size_t ldn, struct core_err *err)
{
    int rc = pack_check(path, false, k, n, err);
    if (rc != 0)
        return rc;
    pack_init(b, path, false, k, n);
    float *d = core_xcalloc((size_t)b->kp * (size_t)b->np, sizeof *d);
    /* panel p, row kk: d[(p * kp + kk) * NR + jj] */
    for (int p = 0; p < b->np / NR; p++)
        for (int kk = 0; kk < k; kk++)
            for (int jj = 0; jj < NR && p * NR + jj < n; jj++)
                d[((size_t)p * (size_t)b->kp + (size_t)kk) * NR + (size_t)jj] =
                    B[(size_t)kk * ldk + (size_t)(p * NR + jj) * ldn];
    b->data = d;
    return 0;
}

int kern_gemm_b_pack_s8(struct kern_gemm_b *b, int path, const int8_t *B, int k, int n, size_t ldk,
                        size_t ldn, struct core_err *err)
{
    int rc = pack_check(path, true, k, n, err);
    if (rc != 0)
        return rc;
    pack_init(b, path, true, k, n);
    int g = group_of(path, true);
    size_t esz = path == KERN_GEMM_AVX2 ? 2 : 1; /* pmaddwd takes int16 pairs */
    size_t np = (size_t)b->np, kp = (size_t)b->kp;
    char *d = core_xcalloc(kp * np, esz);
    /* panel p, group q, column jj, member e:
     * element ((p * kp/g + q) * NR + jj) * g + e */
    for (size_t p = 0; p < np / NR; p++)
        for (size_t kk = 0; kk < (size_t)k; kk++)
            for (size_t jj = 0; jj < NR && p * NR + jj < (size_t)n; jj++) {
                int8_t v = B[kk * ldk + (p * NR + jj) * ldn];
                size_t at =
                    ((p * kp / (size_t)g + kk / (size_t)g) * NR + jj) * (size_t)g + kk % (size_t)g;
                if (esz == 2)
                    ((int16_t *)d)[at] = v;
                else
                    ((int8_t *)d)[at] = v;
            }
    b->data = d;
    if (path == KERN_GEMM_VNNI) {
        b->colsum = core_xcalloc(np, sizeof *b->colsum);
        for (size_t kk = 0; kk < (size_t)k; kk++)
            for (size_t j = 0; j < (size_t)n; j++)
                b->colsum[j] += B[kk * ldk + j * ldn];
    }
    return 0;
}

void kern_gemm_b_fini(struct kern_gemm_b *b)
{
    if (!b)
        return;
    free(b->data);
    free(b->colsum);
    memset(b, 0, sizeof *b);
}

/* ---- the portable path ------------------------------------------------------------ */

/* One panel block for rows [i0, i0 + mr): plain loops the compiler may
 * vectorise over the 16 columns (each column its own sum: no reordering
 * needed). */
static void tile_f32_portable(int mr, const float *A, size_t lda, const float *bp, int kc, float *C,
                              size_t ldc, int ncols, bool first)
{
    for (int r = 0; r < mr; r++) {
        float acc[NR] = {0};
        const float *a = A + (size_t)r * lda;
        for (int kk = 0; kk < kc; kk++) {
            float av = a[kk];
            const float *b = bp + (size_t)kk * NR;
            for (int j = 0; j < NR; j++)
                acc[j] += av * b[j];
        }
        float *c = C + (size_t)r * ldc;
        for (int j = 0; j < ncols; j++)
            c[j] = first ? acc[j] : c[j] + acc[j];
    }
}

static void tile_s8_portable(int mr, const int8_t *A, size_t lda, const int8_t *bp, int kc,
                             int32_t *C, size_t ldc, int ncols, bool first)
{
    for (int r = 0; r < mr; r++) {
        int32_t acc[NR] = {0};
        const int8_t *a = A + (size_t)r * lda;
        for (int kk = 0; kk < kc; kk++) {
            int32_t av = a[kk];
            const int8_t *b = bp + (size_t)kk * NR;
            for (int j = 0; j < NR; j++)
                acc[j] += av * (int32_t)b[j];
        }
        int32_t *c = C + (size_t)r * ldc;
        for (int j = 0; j < ncols; j++)
            c[j] = first ? acc[j] : c[j] + acc[j];
    }
}

/* ---- AVX2 and VNNI paths ------------------------------------------------------------ */

#if GEMM_X86

#define AVX2 __attribute__((target("avx2,fma")))
#define VNNI __attribute__((target("avx2,fma,avx512f,avx512vl,avx512vnni")))

/* Adds (or stores, when first) a row's two accumulators to c: all 16
 * columns, or the first ncols through a bounce buffer. */
AVX2 static inline void put_f32(float *c, __m256 lo, __m256 hi, int ncols, bool first)
{
    if (ncols == NR) {
        if (!first) {
            lo = _mm256_add_ps(lo, _mm256_loadu_ps(c));
            hi = _mm256_add_ps(hi, _mm256_loadu_ps(c + 8));
        }
        _mm256_storeu_ps(c, lo);
        _mm256_storeu_ps(c + 8, hi);
        return;
    }
    float t[NR];
    _mm256_storeu_ps(t, lo);
    _mm256_storeu_ps(t + 8, hi);
    for (int j = 0; j < ncols; j++)
        c[j] = first ? t[j] : c[j] + t[j];
}

AVX2 static inline void put_s32(int32_t *c, __m256i lo, __m256i hi, int ncols, bool first)
{
    if (ncols == NR) {
        if (!first) {
            lo = _mm256_add_epi32(lo, _mm256_loadu_si256((const __m256i *)c));
            hi = _mm256_add_epi32(hi, _mm256_loadu_si256((const __m256i *)(c + 8)));
        }
        _mm256_storeu_si256((__m256i *)c, lo);
        _mm256_storeu_si256((__m256i *)(c + 8), hi);
        return;
    }
    int32_t t[NR];
    _mm256_storeu_si256((__m256i *)t, lo);
    _mm256_storeu_si256((__m256i *)(t + 8), hi);
    for (int j = 0; j < ncols; j++)
        c[j] = first ? t[j] : c[j] + t[j];
}

/* The tiles, one function per row count so that the accumulators of the
 * rows a tile has are all the registers it uses (a one-row product, the
 * serving lab's batch of 1, does not pay for four). */

/* FP32: rows of A as floats, the panel 16 floats per k. */
#define TILE_F32(M)                                                                                \
    AVX2 static void tile_f32_avx2_##M(const float *A, const float *bp, int kc, float *C,          \
                                       size_t ldc, int ncols, bool first)                          \
    {                                                                                              \
        __m256 lo[M], hi[M];                                                                       \
        _Pragma("GCC unroll 4") for (int r = 0; r < M; r++) lo[r] = hi[r] = _mm256_setzero_ps();   \
        for (int kk = 0; kk < kc; kk++) {                                                          \
            __m256 b0 = _mm256_loadu_ps(bp + (size_t)kk * NR);                                     \
            __m256 b1 = _mm256_loadu_ps(bp + (size_t)kk * NR + 8);                                 \
            _Pragma("GCC unroll 4") for (int r = 0; r < M; r++)                                    \
            {                                                                                      \
                __m256 a = _mm256_broadcast_ss(A + (size_t)kk * MR + r);                           \
                lo[r] = _mm256_fmadd_ps(a, b0, lo[r]);                                             \
                hi[r] = _mm256_fmadd_ps(a, b1, hi[r]);                                             \
            }                                                                                      \
        }                                                                                          \
        _Pragma("GCC unroll 4") for (int r = 0; r < M; r++)                                        \
            put_f32(C + (size_t)r * ldc, lo[r], hi[r], ncols, first);                              \
    }
TILE_F32(1)
TILE_F32(2)
TILE_F32(3)
TILE_F32(4)

/* INT8 through pmaddwd: A packed as one 32-bit word per k pair (two int16),
 * the panel 16 columns × one int16 pair per k pair. */
#define TILE_MADD(M)                                                                               \
    AVX2 static void tile_s8_avx2_##M(const uint32_t *A, const int16_t *bp, int kc2, int32_t *C,   \
                                      size_t ldc, int ncols, bool first)                           \
    {                                                                                              \
        __m256i lo[M], hi[M];                                                                      \
        _Pragma("GCC unroll 4") for (int r = 0; r < M; r++) lo[r] = hi[r] =                        \
            _mm256_setzero_si256();                                                                \
        for (int q = 0; q < kc2; q++) {                                                            \
            __m256i b0 = _mm256_loadu_si256((const __m256i *)(bp + (size_t)q * 2 * NR));           \
            __m256i b1 = _mm256_loadu_si256((const __m256i *)(bp + (size_t)q * 2 * NR + 16));      \
            _Pragma("GCC unroll 4") for (int r = 0; r < M; r++)                                    \
            {                                                                                      \
                __m256i a = _mm256_set1_epi32((int)A[(size_t)q * MR + (size_t)r]);                 \
                lo[r] = _mm256_add_epi32(lo[r], _mm256_madd_epi16(a, b0));                         \
                hi[r] = _mm256_add_epi32(hi[r], _mm256_madd_epi16(a, b1));                         \
            }                                                                                      \
        }                                                                                          \
        _Pragma("GCC unroll 4") for (int r = 0; r < M; r++)                                        \
            put_s32(C + (size_t)r * ldc, lo[r], hi[r], ncols, first);                              \
    }
TILE_MADD(1)
TILE_MADD(2)
TILE_MADD(3)
TILE_MADD(4)

/* INT8 through vpdpbusd: A packed as one 32-bit word per k quad (four bytes
 * a + 128, unsigned), the panel 16 columns × one byte quad per k quad. The
 * caller subtracts 128 × the column sums at the end. */
#define TILE_VNNI(M)                                                                               \
    VNNI static void tile_s8_vnni_##M(const uint32_t *A, const int8_t *bp, int kc4, int32_t *C,    \
                                      size_t ldc, int ncols, bool first)                           \
    {                                                                                              \
        __m256i lo[M], hi[M];                                                                      \
        _Pragma("GCC unroll 4") for (int r = 0; r < M; r++) lo[r] = hi[r] =                        \
            _mm256_setzero_si256();                                                                \
        for (int q = 0; q < kc4; q++) {                                                            \
            __m256i b0 = _mm256_loadu_si256((const __m256i *)(bp + (size_t)q * 4 * NR));           \
            __m256i b1 = _mm256_loadu_si256((const __m256i *)(bp + (size_t)q * 4 * NR + 32));      \
            _Pragma("GCC unroll 4") for (int r = 0; r < M; r++)                                    \
            {                                                                                      \
                __m256i a = _mm256_set1_epi32((int)A[(size_t)q * MR + (size_t)r]);                 \
                lo[r] = _mm256_dpbusd_epi32(lo[r], a, b0);                                         \
                hi[r] = _mm256_dpbusd_epi32(hi[r], a, b1);                                         \
            }                                                                                      \
        }                                                                                          \
        _Pragma("GCC unroll 4") for (int r = 0; r < M; r++)                                        \
            put_s32(C + (size_t)r * ldc, lo[r], hi[r], ncols, first);                              \
    }
TILE_VNNI(1)
TILE_VNNI(2)
TILE_VNNI(3)
TILE_VNNI(4)

typedef void (*tile_f32_fn)(const float *, const float *, int, float *, size_t, int, bool);
typedef void (*tile_madd_fn)(const uint32_t *, const int16_t *, int, int32_t *, size_t, int, bool);
typedef void (*tile_vnni_fn)(const uint32_t *, const int8_t *, int, int32_t *, size_t, int, bool);
static const tile_f32_fn tiles_f32[MR + 1] = {NULL, tile_f32_avx2_1, tile_f32_avx2_2,
                                              tile_f32_avx2_3, tile_f32_avx2_4};
static const tile_madd_fn tiles_madd[MR + 1] = {NULL, tile_s8_avx2_1, tile_s8_avx2_2,
                                                tile_s8_avx2_3, tile_s8_avx2_4};
static const tile_vnni_fn tiles_vnni[MR + 1] = {NULL, tile_s8_vnni_1, tile_s8_vnni_2,
                                                tile_s8_vnni_3, tile_s8_vnni_4};
#endif /* GEMM_X86 */

/* ---- the products ------------------------------------------------------------------- */

/* A packed for the vector paths: tiles of MR rows, and within a tile the
 * MR values of one k next to each other (element (t, kk, r) at
 * (t * k + kk) * MR + r), rows past m zero. The MR broadcasts of one k step
 * then come from one cache line, however far apart A's rows are (rows a
 * power of two apart would all fall in one L1 set). Caller frees. */
static float *pack_a_f32(const float *A, int m, size_t lda, int k)
{
    size_t tiles = ((size_t)m + MR - 1) / MR, K = (size_t)k;
    float *ap = core_xcalloc(tiles * K * MR, sizeof *ap);
    for (size_t i = 0; i < (size_t)m; i++)
        for (size_t kk = 0; kk < K; kk++)
            ap[((i / MR) * K + kk) * MR + i % MR] = A[i * lda + kk];
    return ap;
}

void kern_gemm_f32(const struct kern_gemm_b *b, const float *A, int m, size_t lda, float *C,
                   size_t ldc)
{
    if (!b || b->s8 || !b->data)
        abort(); /* a programming error: see the contract */
    const float *d = b->data;
    float *ap = b->path == KERN_GEMM_PORTABLE ? NULL : pack_a_f32(A, m, lda, b->k);
    for (int p = 0; p < b->np / NR; p++) {
        int ncols = b->n - p * NR < NR ? b->n - p * NR : NR;
        for (int k0 = 0; k0 < b->k; k0 += GEMM_KC) {
            int kc = b->k - k0 < GEMM_KC ? b->k - k0 : GEMM_KC;
            const float *bp = d + ((size_t)p * (size_t)b->kp + (size_t)k0) * NR;
            for (int i = 0; i < m; i += MR) {
                int mr = m - i < MR ? m - i : MR;
                float *c = C + (size_t)i * ldc + (size_t)p * NR;
#if GEMM_X86
                if (ap) {
                    const float *a = ap + ((size_t)(i / MR) * (size_t)b->k + (size_t)k0) * MR;
                    tiles_f32[mr](a, bp, kc, c, ldc, ncols, k0 == 0);
                    continue;
                }
#endif
                tile_f32_portable(mr, A + (size_t)i * lda + (size_t)k0, lda, bp, kc, c, ldc, ncols,
                                  k0 == 0);
            }
        }
    }
    free(ap);
}

/* A packed for the pmaddwd (g = 2) or vpdpbusd (g = 4) path: one 32-bit
 * word per group of g k values, zero past k (B's padding is zero too, so
 * the padding adds nothing), in tiles of MR rows as pack_a_f32 lays them
 * out (word (t, q, r) at (t * words + q) * MR + r). Caller frees. */
static uint32_t *pack_a(const int8_t *A, int m, size_t lda, int k, int kp, int g)
{
    size_t words = (size_t)kp / (size_t)g, tiles = ((size_t)m + MR - 1) / MR;
    uint32_t *ap = core_xcalloc(tiles * words * MR, sizeof *ap);
    for (size_t i = 0; i < (size_t)m; i++)
        for (size_t q = 0; q < words; q++) {
            uint32_t w = 0;
            for (size_t e = 0; e < (size_t)g; e++) {
                size_t kk = q * (size_t)g + e;
                int v = kk < (size_t)k ? A[i * lda + kk] : 0;
                if (g == 2)
                    w |= (uint32_t)(uint16_t)(int16_t)v << (16 * e);
                else
                    w |= (uint32_t)(uint8_t)(v + 128) << (8 * e);
            }
            ap[((i / MR) * words + q) * MR + i % MR] = w;
        }
    return ap;
}

void kern_gemm_s8(const struct kern_gemm_b *b, const int8_t *A, int m, size_t lda, int32_t *C,
                  size_t ldc)
{
    if (!b || !b->s8 || !b->data)
        abort(); /* a programming error: see the contract */
    int g = group_of(b->path, true);
    uint32_t *ap = g > 1 ? pack_a(A, m, lda, b->k, b->kp, g) : NULL;
    size_t words = (size_t)b->kp / (size_t)g;
    for (int p = 0; p < b->np / NR; p++) {
        int ncols = b->n - p * NR < NR ? b->n - p * NR : NR;
        for (int k0 = 0; k0 < b->kp; k0 += GEMM_KC) {
            int kc = b->kp - k0 < GEMM_KC ? b->kp - k0 : GEMM_KC;
            for (int i = 0; i < m; i += MR) {
                int mr = m - i < MR ? m - i : MR;
                int32_t *c = C + (size_t)i * ldc + (size_t)p * NR;
                bool first = k0 == 0;
#if GEMM_X86
                size_t q0 = (size_t)k0 / (size_t)g;
                const uint32_t *a = ap ? ap + ((size_t)(i / MR) * words + q0) * MR : NULL;
                if (b->path == KERN_GEMM_AVX2) {
                    const int16_t *bp =
                        (const int16_t *)b->data + ((size_t)p * words + q0) * 2 * NR;
                    tiles_madd[mr](a, bp, kc / 2, c, ldc, ncols, first);
                    continue;
                }
                if (b->path == KERN_GEMM_VNNI) {
                    const int8_t *bp = (const int8_t *)b->data + ((size_t)p * words + q0) * 4 * NR;
                    tiles_vnni[mr](a, bp, kc / 4, c, ldc, ncols, first);
                    continue;
                }
#endif
                int kcl = b->k - k0 < kc ? b->k - k0 : kc; /* portable: kp = k */
                const int8_t *bp =
                    (const int8_t *)b->data + ((size_t)p * (size_t)b->kp + (size_t)k0) * NR;
                tile_s8_portable(mr, A + (size_t)i * lda + (size_t)k0, lda, bp, kcl, c, ldc, ncols,
                                 first);
            }
        }
    }
    if (b->path == KERN_GEMM_VNNI) /* undo the +128 shift of A */
        for (size_t i = 0; i < (size_t)m; i++)
            for (size_t j = 0; j < (size_t)b->n; j++)
                C[i * ldc + j] -= 128 * b->colsum[j];
    free(ap);
}

/* ---- the references ----------------------------------------------------------------- */

void kern_gemm_ref_f32(const float *A, const float *B, float *C, int m, int k, int n)
{
    for (size_t i = 0; i < (size_t)m; i++)
        for (size_t j = 0; j < (size_t)n; j++) {
            double s = 0;
            for (size_t kk = 0; kk < (size_t)k; kk++)
                s += (double)A[i * (size_t)k + kk] * (double)B[kk * (size_t)n + j];
            C[i * (size_t)n + j] = (float)s;
        }
}

void kern_gemm_ref_s8(const int8_t *A, const int8_t *B, int32_t *C, int m, int k, int n)
{
    for (size_t i = 0; i < (size_t)m; i++)
        for (size_t j = 0; j < (size_t)n; j++) {
            int32_t s = 0;
            for (size_t kk = 0; kk < (size_t)k; kk++)
                s += (int32_t)A[i * (size_t)k + kk] * (int32_t)B[kk * (size_t)n + j];
            C[i * (size_t)n + j] = s;
        }
}
