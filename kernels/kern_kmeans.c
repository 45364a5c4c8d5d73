/*
 * kern_kmeans.c — the k-means map step on the CPU: nearest centre for every
 * point plus the combiner's per-cluster sums and counts (see kernels.h for
 * the arithmetic every implementation follows). The k-means lab's workers
 * and its GPU check both call this, so the lab and the check run the same
 * arithmetic.
 *
 * Speed: the assign step is n·k·d subtract-square-add terms, the whole cost
 * of an iteration. The routine keeps one point per vector lane and
 * compiles the same body (kern_kmeans_lanes.inc) three times with GCC/Clang
 * vector types: 16 lanes for AVX-512, 8 for AVX2 and 4 for SSE2 (or NEON),
 * choosing at run time what this CPU has. A vector type wider than the
 * unit it runs on is split by the compiler into slow pieces, which is why
 * one width for all does not do. No FMA anywhere: -std=c11 turns
 * contraction off in GCC, and each square is its own statement so that
 * Clang's default (contract within one expression) cannot fuse it either.
 *
 * Uses core (nothing but the types); no allocation.
 */
#include "kernels/kernels.h"

#include <math.h>
#include <string.h>

/* ---- the reference ---------------------------------------------------------- */

float kern_kmeans_dist(const float *x, const float *c, int d)
{
    float s = 0;
    for (int j = 0; j < d; j++) {
        float t = x[j] - c[j];
        float sq = t * t;
        s = s + sq;
    }
    return s;
}

static double km_assign_ref(const float *x, size_t n, int d, const float *centres, int k,
                            int32_t *labels, double *sums, int64_t *counts)
{
    double sse = 0;
    for (size_t i = 0; i < n; i++) {
        const float *p = x + i * (size_t)d;
        float best = INFINITY;
        int32_t bi = 0;
        for (int c = 0; c < k; c++) {
            float s = kern_kmeans_dist(p, centres + (size_t)c * (size_t)d, d);
            if (s < best) {
                best = s;
                bi = c;
            }
        }
        if (labels)
            labels[i] = bi;
        sse += (double)best;
        if (sums) {
            for (int j = 0; j < d; j++)
                sums[(size_t)bi * (size_t)d + (size_t)j] += (double)p[j];
            counts[bi]++;
        }
    }
    return sse;
}

/* ---- the vector widths ------------------------------------------------------ */

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define KM_X86 1
#else
#define KM_X86 0
#endif

#define KM_W 4
#define KM_FN km_assign_w4
#define KM_ATTR
#include "kern_kmeans_lanes.inc"
#undef KM_W
#undef KM_FN
#undef KM_ATTR

#if KM_X86
#define KM_W 8
#define KM_FN km_assign_w8
#define KM_ATTR __attribute__((target("avx2")))
#include "kern_kmeans_lanes.inc"
#undef KM_W
#undef KM_FN
#undef KM_ATTR

#define KM_W 16
#define KM_FN km_assign_w16
#define KM_ATTR __attribute__((target("avx512f")))
#include "kern_kmeans_lanes.inc"
#undef KM_W
#undef KM_FN
#undef KM_ATTR
#endif

int kern_kmeans_lanes(void)
{
#if KM_X86
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f"))
        return 16;
    if (__builtin_cpu_supports("avx2"))
        return 8;
#endif
    return 4;
}

double kern_kmeans_assign_lanes(int lanes, const float *x, size_t n, int d, const float *centres,
                                int k, int32_t *labels, double *sums, int64_t *counts)
{
    if (lanes == 1)
        return km_assign_ref(x, n, d, centres, k, labels, sums, counts);
    int have = kern_kmeans_lanes();
    if (lanes > have || lanes < 4)
        lanes = have;
#if KM_X86
    if (lanes >= 16)
        return km_assign_w16(x, n, d, centres, k, labels, sums, counts);
    if (lanes >= 8)
        return km_assign_w8(x, n, d, centres, k, labels, sums, counts);
#endif
    return km_assign_w4(x, n, d, centres, k, labels, sums, counts);
}

double kern_kmeans_assign(const float *x, size_t n, int d, const float *centres, int k,
                          int32_t *labels, double *sums, int64_t *counts)
{
    return kern_kmeans_assign_lanes(kern_kmeans_lanes(), x, n, d, centres, k, labels, sums, counts);
}
