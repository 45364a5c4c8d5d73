/*
 * kern_coalesce_ref.c — the CPU references of the coalescing kernels: what
 * each must write, and the comparisons that find the first element a kernel
 * got wrong. The GPU session checks every output with these; the CPU analog
 * of the lab runs the same loops and times them.
 *
 * Pure C over caller-owned arrays; no allocation, no I/O.
 */
#include "kernels/kernels.h"

void kern_coal_ref_gather(const float *in, float *out, long long i0, long long i1, long long offset,
                          long long stride)
{
    const float *src = in + offset;
    for (long long i = i0; i < i1; i++)
        out[i] = src[i * stride];
}

void kern_coal_ref_transpose(const float *in, float *out, int w, int r0, int r1)
{
    size_t W = (size_t)w;
    for (size_t r = (size_t)r0; r < (size_t)r1; r++)
        for (size_t c = 0; c < W; c++)
            out[r * W + c] = in[c * W + r];
}

void kern_coal_ref_transpose_blocked(const float *in, float *out, int w, int tile, int r0, int r1)
{
    size_t W = (size_t)w;
    if (tile < 1)
        tile = 1;
    for (int rb = r0; rb < r1; rb += tile) {
        int re = rb + tile < r1 ? rb + tile : r1;
        for (int cb = 0; cb < w; cb += tile) {
            int ce = cb + tile < w ? cb + tile : w;
            /* one tile: its source rows are read along, its output rows
             * written along; both stay in the cache while it lasts */
            for (size_t r = (size_t)rb; r < (size_t)re; r++)
                for (size_t c = (size_t)cb; c < (size_t)ce; c++)
                    out[r * W + c] = in[c * W + r];
        }
    }
}

long long kern_coal_ref_gather_diff(const float *in, const float *out, long long n,
                                    long long offset, long long stride)
{
    const float *src = in + offset;
    for (long long i = 0; i < n; i++)
        if (!(out[i] == src[i * stride])) /* a NaN written by a broken kernel differs too */
            return i;
    return -1;
}

long long kern_coal_ref_transpose_diff(const float *in, const float *out, int w, int r0, int r1)
{
    size_t W = (size_t)w;
    for (size_t r = (size_t)r0; r < (size_t)r1; r++)
        for (size_t c = 0; c < W; c++)
            if (!(out[r * W + c] == in[c * W + r]))
                return (long long)(r * W + c);
    return -1;
}
