/*
 * kern_coalesce.c — the warp memory-transaction model of the coalescing lab:
 * which sectors and lines one warp request touches, what memory moves for a
 * long run of warps, the bandwidth a copy with that read pattern should
 * reach as a fraction of a plain copy, shared-memory bank conflicts, and
 * the names and parameter ranges of the lab's kernels.
 *
 * Pure functions: no I/O, no globals, no CUDA. They run anywhere, so the lab
 * teaches without a GPU, and the CPU analog uses them with 64-byte lines.
 */
#include "kernels/kernels.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define MAX_LANES 1024

static bool pow2(long long v)
{
    return v > 0 && (v & (v - 1)) == 0;
}

struct kern_access kern_access_gpu(long long offset, long long stride)
{
    return (struct kern_access){.elem_bytes = 4,
                                .lanes = 32,
                                .offset = offset,
                                .stride = stride,
                                .sector_bytes = 32,
                                .line_bytes = 128};
}

int kern_access_check(const struct kern_access *a, struct core_err *err)
{
    if (!a)
        return core_err_set(err, CORE_ERR_INVALID, "no access pattern given");
    if (!pow2(a->elem_bytes) || a->elem_bytes > 16)
        return core_err_set(err, CORE_ERR_INVALID, "elem_bytes must be 1, 2, 4, 8 or 16, not %d",
                            a->elem_bytes);
    if (a->lanes < 1 || a->lanes > MAX_LANES)
        return core_err_set(err, CORE_ERR_INVALID, "lanes must be from 1 to %d, not %d", MAX_LANES,
                            a->lanes);
    if (a->offset < 0 || a->offset > (1LL << 40))
        return core_err_set(err, CORE_ERR_INVALID,
                            "offset must be from 0 to 2^40 elements, not %lld", a->offset);
    if (a->stride < 0 || a->stride > (1LL << 30))
        return core_err_set(err, CORE_ERR_INVALID,
                            "stride must be from 0 to 2^30 elements, not %lld", a->stride);
    if (!pow2(a->sector_bytes) || a->sector_bytes > 4096)
        return core_err_set(err, CORE_ERR_INVALID,
                            "sector_bytes must be a power of two up to 4096, not %d",
                            a->sector_bytes);
    if (a->line_bytes < a->sector_bytes || a->line_bytes % a->sector_bytes != 0 ||
        a->line_bytes > 65536)
        return core_err_set(
            err, CORE_ERR_INVALID,
            "line_bytes must be a multiple of sector_bytes (%d) up to 65536, not %d",
            a->sector_bytes, a->line_bytes);
    return 0;
}

/* Adds v to the sorted set s (n entries) unless it is there; returns n. */
static int set_add(long long *s, int n, long long v)
{
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (s[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < n && s[lo] == v)
        return n;
    memmove(s + lo + 1, s + lo, (size_t)(n - lo) * sizeof *s);
    s[lo] = v;
    return n + 1;
}

int kern_warp_cost(const struct kern_access *a, struct kern_warp_cost *c, struct core_err *err)
{
    int rc = kern_access_check(a, err);
    if (rc != 0)
        return rc;
    /* An element spans at most 16 bytes, so at most 2 sectors or lines. */
    long long sec[2 * MAX_LANES], lin[2 * MAX_LANES], byt[MAX_LANES];
    int ns = 0, nl = 0, nb = 0;
    for (int t = 0; t < a->lanes; t++) {
        long long first = (a->offset + (long long)t * a->stride) * a->elem_bytes;
        long long last = first + a->elem_bytes - 1;
        nb = set_add(byt, nb, first); /* distinct elements: they never partly overlap */
        for (long long s = first / a->sector_bytes; s <= last / a->sector_bytes; s++)
            ns = set_add(sec, ns, s);
        for (long long l = first / a->line_bytes; l <= last / a->line_bytes; l++)
            nl = set_add(lin, nl, l);
    }
    c->sectors = ns;
    c->lines = nl;
    c->bytes_used = (long long)nb * a->elem_bytes;
    c->bytes_moved = (long long)ns * a->sector_bytes;
    c->efficiency = (double)c->bytes_used / (double)c->bytes_moved;
    return 0;
}

double kern_stream_bytes(const struct kern_access *a)
{
    if (kern_access_check(a, NULL) != 0 || a->stride < 1)
        return NAN;
    /* An aligned element occupies whole sectors of its own, or part of one:
     * what it costs alone is its size rounded up to sectors. Elements closer
     * together than that share sectors, and then every sector between them
     * is touched: the run moves stride * elem bytes per element. */
    long long e = a->elem_bytes, sec = a->sector_bytes;
    long long alone = (e + sec - 1) / sec * sec;
    long long span = a->stride * e;
    return (double)(span < alone ? span : alone);
}

double kern_copy_fraction_stream(const struct kern_access *a, double write_factor)
{
    double rd = kern_stream_bytes(a);
    if (!isfinite(rd) || !(write_factor >= 0))
        return NAN;
    double e = a->elem_bytes, wr = e * write_factor;
    /* the copy itself moves e read + e * write_factor written per element */
    return (e + wr) / (rd + wr);
}

double kern_copy_fraction_request(const struct kern_access *a, double write_factor)
{
    struct kern_warp_cost c;
    if (kern_warp_cost(a, &c, NULL) != 0 || a->stride < 1 || !(write_factor >= 0))
        return NAN;
    struct kern_access plain = *a;
    plain.offset = 0;
    plain.stride = 1;
    struct kern_warp_cost p;
    kern_warp_cost(&plain, &p, NULL);
    double wr = (double)a->lanes * a->elem_bytes * write_factor; /* coalesced writes */
    return ((double)p.bytes_moved + wr) / ((double)c.bytes_moved + wr);
}

int kern_bank_ways(long long stride_words, int lanes, int banks)
{
    if (lanes < 1 || banks < 1 || stride_words < 0 || lanes > MAX_LANES)
        return 0;
    long long words[MAX_LANES];
    int nw = 0, best = 0;
    for (int t = 0; t < lanes; t++)
        nw = set_add(words, nw, (long long)t * stride_words);
    /* count distinct words per bank */
    for (int b = 0; b < banks; b++) {
        int k = 0;
        for (int i = 0; i < nw; i++)
            k += words[i] % banks == b;
        if (k > best)
            best = k;
    }
    return best;
}

double kern_datasheet_gbs(const char *name)
{
    static const struct {
        const char *part; /* a substring of the CUDA device name */
        double gbs;
    } known[] = {
        {"GH200", 0}, /* memory differs by model: not the H200's figure */
        {"H200", 4800},
        {"H100 80GB HBM3", 3350},
        {"H100 SXM", 3350},
        {"H100 PCIe", 2000},
        {"H100 NVL", 3900},
        {"A100-SXM4-80GB", 2039},
        {"A100-SXM4-40GB", 1555},
        {"A100 80GB PCIe", 1935},
        {"A100-PCIE-40GB", 1555},
    };
    if (!name)
        return 0;
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (strstr(name, known[i].part))
            return known[i].gbs;
    return 0;
}

/* ---- the kernels' names and parameters ------------------------------------ */

static const char *const kind_names[KERN_COAL_N_KINDS] = {
    "memcpy",          "copy16",          "copy",
    "offset",          "stride",          "smem_copy",
    "transpose_naive", "transpose_tiled", "transpose_padded"};

const char *kern_coal_kind_name(int kind)
{
    return kind >= 0 && kind < KERN_COAL_N_KINDS ? kind_names[kind] : "?";
}

int kern_coal_param_check(int kind, int param, struct core_err *err)
{
    if (kind < 0 || kind >= KERN_COAL_N_KINDS)
        return core_err_set(err, CORE_ERR_INVALID, "no coalescing kernel number %d", kind);
    if (kind == KERN_COAL_OFFSET && (param < 0 || param > KERN_COAL_MAX_OFFSET))
        return core_err_set(err, CORE_ERR_INVALID,
                            "kernel 'offset': the offset must be from 0 to %d elements, not %d",
                            KERN_COAL_MAX_OFFSET, param);
    if (kind == KERN_COAL_STRIDE && (param < 1 || param > KERN_COAL_MAX_STRIDE))
        return core_err_set(err, CORE_ERR_INVALID,
                            "kernel 'stride': the stride must be from 1 to %d elements, not %d",
                            KERN_COAL_MAX_STRIDE, param);
    if (kind != KERN_COAL_OFFSET && kind != KERN_COAL_STRIDE && param != 0)
        return core_err_set(err, CORE_ERR_INVALID, "kernel '%s' takes no parameter (0), not %d",
                            kind_names[kind], param);
    return 0;
}
