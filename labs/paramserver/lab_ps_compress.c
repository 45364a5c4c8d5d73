/*
 * lab_ps_compress.c — gradient compression for the parameter-server lab:
 * top-k sparsification and 8-bit block quantisation (contracts in
 * lab_net.h).
 *
 * Encodings (little-endian, this machine):
 *   top-k: u32 n, u32 k, then k pairs (u32 index, f32 value), indices
 *          strictly increasing.                         8 + 8k bytes
 *   q8:    u32 n, u32 block, ceil(n/block) f32 scales, n int8 values.
 *                                          8 + 4 * ceil(n/B) + n bytes
 *
 * Top-k picks the k-th largest magnitude with a quickselect on a copy of
 * the magnitudes (O(n)), then keeps every value above it and, in index
 * order, as many equal to it as are needed: exactly k entries, ties broken
 * towards the lower index, already sorted. A NaN counts as the largest
 * magnitude, so a diverged gradient is sent, not hidden.
 */
#include "labs/paramserver/lab_ps.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static float mag(float x)
{
    return isnan(x) ? INFINITY : fabsf(x);
}

static void put_u32(struct core_buf *b, uint32_t v)
{
    core_buf_append(b, &v, 4);
}

/* The value of rank k (0-based, descending) among v[0..n), v reordered:
 * quickselect with a three-way partition (many equal values are common). */
static float select_desc(float *v, size_t n, size_t k)
{
    size_t lo = 0, hi = n; /* the rank-k value lies in v[lo..hi) */
    for (;;) {
        float a = v[lo], b = v[lo + (hi - lo) / 2], c = v[hi - 1];
        float piv = a > b ? (b > c ? b : (a > c ? c : a)) : (a > c ? a : (b > c ? c : b));
        /* [lo, lt) > piv, [lt, i) == piv, [gt, hi) < piv */
        size_t lt = lo, i = lo, gt = hi;
        while (i < gt) {
            float x = v[i];
            if (x > piv) {
                v[i++] = v[lt];
                v[lt++] = x;
            } else if (x < piv) {
                v[i] = v[--gt];
                v[gt] = x;
            } else {
                i++;
            }
        }
        if (k < lt)
            hi = lt;
        else if (k < gt)
            return piv;
        else
            lo = gt;
    }
}

void lab_ps_topk_encode(const float *g, size_t n, double frac, struct core_buf *out)
{
    core_buf_reset(out);
    size_t k = 0;
    if (n > 0) {
        double want = floor(frac * (double)n + 0.5);
        /* !(want >= 1): a NaN fraction keeps one entry, never an
         * out-of-range k */
        k = !(want >= 1) ? 1 : want > (double)n ? n : (size_t)want;
    }
    put_u32(out, (uint32_t)n);
    put_u32(out, (uint32_t)k);
    if (k == 0)
        return;
    float thr;
    if (k == n) {
        thr = -1; /* keep everything */
    } else {
        float *m = core_xmalloc(n * sizeof *m);
        for (size_t i = 0; i < n; i++)
            m[i] = mag(g[i]);
        thr = select_desc(m, n, k - 1);
        free(m);
    }
    /* How many equal to the threshold we may take: k minus those above. */
    size_t above = 0;
    if (k < n)
        for (size_t i = 0; i < n; i++)
            above += mag(g[i]) > thr;
    size_t equal_left = k - above;
    size_t start = out->len;
    /* grow once: 8k bytes */
    if (out->cap < start + 8 * k + 1) {
        out->data = core_xrealloc(out->data, start + 8 * k + 1);
        out->cap = start + 8 * k + 1;
    }
    unsigned char *p = (unsigned char *)out->data + start;
    size_t taken = 0;
    for (size_t i = 0; i < n && taken < k; i++) {
        float a = mag(g[i]);
        bool keep = k == n || a > thr;
        if (!keep && a == thr && equal_left > 0) {
            keep = true;
            equal_left--;
        }
        if (!keep)
            continue;
        uint32_t idx = (uint32_t)i;
        memcpy(p, &idx, 4);
        memcpy(p + 4, &g[i], 4);
        p += 8;
        taken++;
    }
    out->len = start + 8 * taken;
    out->data[out->len] = '\0';
}

int lab_ps_topk_decode_add(const void *data, size_t len, float *acc, size_t n, struct core_err *err)
{
    const unsigned char *p = data;
    uint32_t en, k;
    if (len < 8)
        return core_err_set(err, CORE_ERR_INVALID, "top-k gradient: %zu bytes, too short", len);
    memcpy(&en, p, 4);
    memcpy(&k, p + 4, 4);
    if (en != n)
        return core_err_set(err, CORE_ERR_INVALID, "top-k gradient for %u values, expected %zu",
                            (unsigned)en, n);
    if (len != 8 + 8 * (size_t)k || k > n)
        return core_err_set(err, CORE_ERR_INVALID,
                            "top-k gradient: %zu bytes do not hold %u entries", len, (unsigned)k);
    p += 8;
    /* Validate all before touching acc, so a bad buffer changes nothing. */
    int64_t prev = -1;
    for (uint32_t i = 0; i < k; i++) {
        uint32_t idx;
        memcpy(&idx, p + 8 * (size_t)i, 4);
        if (idx >= n || (int64_t)idx <= prev)
            return core_err_set(err, CORE_ERR_INVALID,
                                "top-k gradient: entry %u has index %u (size %zu, after %lld)",
                                (unsigned)i, (unsigned)idx, n, (long long)prev);
        prev = idx;
    }
    for (uint32_t i = 0; i < k; i++) {
        uint32_t idx;
        float v;
        memcpy(&idx, p + 8 * (size_t)i, 4);
        memcpy(&v, p + 8 * (size_t)i + 4, 4);
        acc[idx] += v;
    }
    return 0;
}

void lab_ps_q8_encode(const float *g, size_t n, struct core_buf *out)
{
    core_buf_reset(out);
    size_t nb = (n + PS_Q8_BLOCK - 1) / PS_Q8_BLOCK;
    size_t total = 8 + 4 * nb + n;
    if (out->cap < total + 1) {
        out->data = core_xrealloc(out->data, total + 1);
        out->cap = total + 1;
    }
    unsigned char *p = (unsigned char *)out->data;
    uint32_t en = (uint32_t)n, bs = PS_Q8_BLOCK;
    memcpy(p, &en, 4);
    memcpy(p + 4, &bs, 4);
    unsigned char *scales = p + 8;
    signed char *q = (signed char *)(p + 8 + 4 * nb);
    for (size_t b = 0; b < nb; b++) {
        size_t lo = b * PS_Q8_BLOCK, hi = lo + PS_Q8_BLOCK < n ? lo + PS_Q8_BLOCK : n;
        float mx = 0;
        bool finite = true;
        for (size_t i = lo; i < hi; i++) {
            if (!isfinite(g[i]))
                finite = false;
            else if (fabsf(g[i]) > mx)
                mx = fabsf(g[i]);
        }
        /* A block with inf/NaN decodes to NaN: divergence stays visible.
         * The scale is rounded up to a float with scale * 127 >= mx, so no
         * value is clipped: for subnormal gradients mx / 127 rounds to 0 or
         * well below mx / 127, which would break the scale / 2 bound. */
        float scale = finite ? mx / 127.0f : NAN;
        while (finite && (double)scale * 127.0 < (double)mx)
            scale = nextafterf(scale, INFINITY);
        memcpy(scales + 4 * b, &scale, 4);
        for (size_t i = lo; i < hi; i++) {
            long v = 0;
            if (finite && scale > 0) {
                v = lrint((double)g[i] / (double)scale);
                v = v > 127 ? 127 : v < -127 ? -127 : v;
            }
            q[i] = (signed char)v;
        }
    }
    out->len = total;
    out->data[total] = '\0';
}

int lab_ps_q8_decode_add(const void *data, size_t len, float *acc, size_t n, struct core_err *err)
{
    const unsigned char *p = data;
    uint32_t en, bs;
    if (len < 8)
        return core_err_set(err, CORE_ERR_INVALID, "q8 gradient: %zu bytes, too short", len);
    memcpy(&en, p, 4);
    memcpy(&bs, p + 4, 4);
    if (en != n)
        return core_err_set(err, CORE_ERR_INVALID, "q8 gradient for %u values, expected %zu",
                            (unsigned)en, n);
    if (bs != PS_Q8_BLOCK)
        return core_err_set(err, CORE_ERR_INVALID, "q8 gradient: block of %u, expected %d",
                            (unsigned)bs, PS_Q8_BLOCK);
    size_t nb = (n + PS_Q8_BLOCK - 1) / PS_Q8_BLOCK;
    if (len != 8 + 4 * nb + n)
        return core_err_set(err, CORE_ERR_INVALID, "q8 gradient: %zu bytes, expected %zu", len,
                            8 + 4 * nb + n);
    const unsigned char *scales = p + 8;
    const signed char *q = (const signed char *)(p + 8 + 4 * nb);
    for (size_t b = 0; b < nb; b++) {
        float scale;
        memcpy(&scale, scales + 4 * b, 4);
        size_t lo = b * PS_Q8_BLOCK, hi = lo + PS_Q8_BLOCK < n ? lo + PS_Q8_BLOCK : n;
        for (size_t i = lo; i < hi; i++)
            acc[i] += (float)q[i] * scale;
    }
    return 0;
}
