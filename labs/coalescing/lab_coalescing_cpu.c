/*
 * lab_coalescing_cpu.c — the coalescing lab's CPU analog, for machines (or
 * builds) without a GPU: the GPU kernels' CPU references
 * (kern_coal_ref_*) run as the experiment itself, over two arrays larger
 * than the last-level cache.
 *
 * A CPU has no warps, but its memory moves whole cache lines (64 bytes) as
 * the GPU moves 32-byte sectors, so the same model applies with
 * sector = line = 64 and one difference: a store to a line first reads it
 * (write-allocate), so every written byte costs two bytes of traffic. The
 * ladder is memcpy (the C library's, the CPU's ceiling), the copy loop, and
 * a blocked (32 x 32 tiles) and a naive transpose; then the offset and
 * stride sweeps with the model's prediction beside each point.
 *
 * Single-threaded in the lab's thread: one core cannot saturate the memory
 * of a big machine, which is fine, since every figure is a ratio to the same
 * core's copy. Every pass is checked against the reference loop's result;
 * the cancel flag is looked at every few million elements.
 */
#include "labs/coalescing/lab_coalescing.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CPU_CHUNK (1LL << 22) /* elements between cancel checks */
#define CPU_PAD 64            /* floats past the end the offset copy reads */
#define CPU_TILE 32

enum cpu_kind { CPU_MEMCPY, CPU_COPY, CPU_BLOCKED, CPU_NAIVE, CPU_OFFSET, CPU_STRIDE };

struct cpu_bufs {
    float *in, *out;
    long long n; /* floats in out (in has CPU_PAD more) */
    int side;    /* transposes: side x side */
};

static double cpu_now(const struct coal_run *r)
{
    return r->clk->now(r->clk->ctx);
}

static int cpu_cancelled(const struct coal_run *r, struct core_err *err)
{
    return lab_cancelled(r->cx) ? core_err_set(err, CORE_ERR_CANCELLED, "cancelled") : 0;
}

static long long cpu_elems(const struct cpu_bufs *b, int kind, int param)
{
    if (kind == CPU_STRIDE)
        return b->n / param;
    if (kind == CPU_BLOCKED || kind == CPU_NAIVE)
        return (long long)b->side * b->side;
    return b->n;
}

/* One pass of kind, in chunks with a cancel check between them. */
static int cpu_pass(struct coal_run *r, const struct cpu_bufs *b, int kind, int param,
                    struct core_err *err)
{
    long long n = cpu_elems(b, kind, param);
    int rc;
    if (kind == CPU_BLOCKED || kind == CPU_NAIVE) {
        /* a naive transpose's element can cost a TLB miss: smaller bands */
        int w = b->side;
        int rows = (int)(CPU_CHUNK / 8 / w);
        rows = rows < CPU_TILE ? CPU_TILE : rows / CPU_TILE * CPU_TILE;
        for (int r0 = 0; r0 < w; r0 += rows) {
            int r1 = r0 + rows < w ? r0 + rows : w;
            if (kind == CPU_BLOCKED)
                kern_coal_ref_transpose_blocked(b->in, b->out, w, CPU_TILE, r0, r1);
            else
                kern_coal_ref_transpose(b->in, b->out, w, r0, r1);
            if ((rc = cpu_cancelled(r, err)) != 0)
                return rc;
        }
        return 0;
    }
    for (long long lo = 0; lo < n; lo += CPU_CHUNK) {
        long long hi = lo + CPU_CHUNK < n ? lo + CPU_CHUNK : n;
        if (kind == CPU_MEMCPY)
            memcpy(b->out + lo, b->in + lo, (size_t)(hi - lo) * sizeof(float));
        else
            kern_coal_ref_gather(b->in, b->out, lo, hi, kind == CPU_OFFSET ? param : 0,
                                 kind == CPU_STRIDE ? param : 1);
        if ((rc = cpu_cancelled(r, err)) != 0)
            return rc;
    }
    return 0;
}

/* GB/s (useful bytes read + written) of kind from the fastest of cpu_reps
 * passes (on a shared machine a slower pass was interrupted, not slower),
 * over an output first set to NaN; then the output is checked. */
static int cpu_measure(struct coal_run *r, const struct cpu_bufs *b, int kind, int param,
                       const char *name, double *gbs, struct core_err *err)
{
    long long n = cpu_elems(b, kind, param), bad = -1;
    double t[64];
    int reps = r->cpu_reps < 64 ? r->cpu_reps : 64, rc;
    for (long long lo = 0; lo < n; lo += CPU_CHUNK) { /* NaN: a skipped element fails */
        long long len = lo + CPU_CHUNK < n ? CPU_CHUNK : n - lo;
        memset(b->out + lo, 0xff, (size_t)len * sizeof(float));
        if ((rc = cpu_cancelled(r, err)) != 0)
            return rc;
    }
    for (int k = 0; k < reps; k++) {
        double t0 = cpu_now(r);
        if ((rc = cpu_pass(r, b, kind, param, err)) != 0)
            return rc;
        t[k] = cpu_now(r) - t0;
        lab_repeat(r->cx, name, "s", t[k]);
    }
    if (kind == CPU_BLOCKED || kind == CPU_NAIVE) {
        int w = b->side, band = (int)(CPU_CHUNK / w) + 1;
        for (int r0 = 0; r0 < w && bad < 0; r0 += band) {
            bad = kern_coal_ref_transpose_diff(b->in, b->out, w, r0, r0 + band < w ? r0 + band : w);
            if (bad < 0 && (rc = cpu_cancelled(r, err)) != 0)
                return rc;
        }
    } else {
        long long off = kind == CPU_OFFSET ? param : 0, st = kind == CPU_STRIDE ? param : 1;
        for (long long lo = 0; lo < n && bad < 0; lo += CPU_CHUNK) {
            long long len = lo + CPU_CHUNK < n ? CPU_CHUNK : n - lo;
            long long d = kern_coal_ref_gather_diff(b->in + off + lo * st, b->out + lo, len, 0, st);
            if (d >= 0)
                bad = lo + d;
            else if ((rc = cpu_cancelled(r, err)) != 0)
                return rc;
        }
    }
    if (bad >= 0)
        return core_err_set(err, CORE_ERR_INTERNAL,
                            "the CPU %s wrote a wrong value at element %lld of %lld (%.9g)", name,
                            bad, n, (double)b->out[bad]);
    double best = lab_stats_min(t, (size_t)reps);
    if (!(best > 0))
        best = 1e-9;
    *gbs = 2.0 * (double)n * sizeof(float) / best / 1e9;
    return 0;
}

static int cpu_ladder(struct coal_run *r, const struct cpu_bufs *b, double *copy_gbs,
                      struct core_err *err)
{
    static const struct {
        int kind;
        const char *name;
    } steps[] = {
        {CPU_MEMCPY, "memcpy (C library)"},
        {CPU_COPY, "copy loop"},
        {CPU_BLOCKED, "blocked transpose 32x32"},
        {CPU_NAIVE, "naive transpose"},
    };
    struct lab_ctx *cx = r->cx;
    double g[4] = {0};
    int rc;
    for (int i = 0; i < 4; i++) {
        lab_coal_step(r, steps[i].name);
        if ((rc = cpu_measure(r, b, steps[i].kind, 0, steps[i].name, &g[i], err)) != 0)
            return rc;
        lab_emit(cx, "ladder_gbs", i + 1, g[i]);
        lab_log(cx, LAB_LOG_INFO, "%d %-26s %7.2f GB/s  (best of %d; output checked)", i + 1,
                steps[i].name, g[i], r->cpu_reps);
        if (i == 1) {
            lab_figure_num(cx, "cpu_copy_gbs", g[1], "GB/s", "CPU copy loop");
            lab_figure_num(cx, "cpu_memcpy_gbs", g[0], "GB/s", "CPU memcpy");
            lab_figure_num(cx, "cpu_copy_frac_memcpy", g[1] / g[0], "", "CPU copy loop / memcpy");
        }
    }
    lab_figure_num(cx, "cpu_transpose_blocked_gbs", g[2], "GB/s", "CPU blocked transpose");
    lab_figure_num(cx, "cpu_transpose_naive_gbs", g[3], "GB/s", "CPU naive transpose");
    lab_figure_num(cx, "cpu_transpose_blocked_frac_copy", g[2] / g[1], "",
                   "CPU blocked transpose / copy loop");
    lab_figure_num(cx, "cpu_transpose_naive_frac_copy", g[3] / g[1], "",
                   "CPU naive transpose / copy loop");
    lab_figure_num(cx, "cpu_blocked_over_naive", g[2] / g[3], "×",
                   "CPU blocked transpose / naive transpose");
    *copy_gbs = g[1];
    return 0;
}

static int cpu_sweep(struct coal_run *r, const struct cpu_bufs *b, bool off, int line,
                     double copy_gbs, struct core_err *err)
{
    const char *what = off ? "offset" : "stride";
    int lo = off ? 0 : 1, hi = off ? r->offset_max : r->stride_max, rc;
    char step[64];
    lab_coal_dev_reset(r);
    for (int x = lo; x <= hi; x++) {
        double gbs;
        snprintf(step, sizeof step, "CPU %s %d", what, x);
        lab_coal_step(r, step);
        if ((rc = cpu_measure(r, b, off ? CPU_OFFSET : CPU_STRIDE, x, step, &gbs, err)) != 0)
            return rc;
        struct kern_access a = {.elem_bytes = 4,
                                .lanes = 32,
                                .offset = off ? x : 0,
                                .stride = off ? 1 : x,
                                .sector_bytes = line,
                                .line_bytes = line};
        double model = kern_copy_fraction_stream(&a, 2);
        lab_coal_point(r, "cpu_", what, x, gbs, copy_gbs, model, NAN);
        lab_log(r->cx, LAB_LOG_INFO, "CPU %s %2d: %7.2f GB/s = %.3f of copy; model %.3f", what, x,
                gbs, gbs / copy_gbs, model);
    }
    lab_coal_dev_figure(r, "cpu_", what);
    return 0;
}

/* Random floats in [-1, 1) (exact, never NaN or -0: copies compare with
 * ==), and the output touched, in chunks with cancel checks. */
static int cpu_fill(struct coal_run *r, struct cpu_bufs *b, struct core_err *err)
{
    uint64_t x = r->seed ? r->seed : 0x9e3779b97f4a7c15ull;
    long long n = b->n + CPU_PAD;
    int rc;
    for (long long lo = 0; lo < n; lo += CPU_CHUNK) {
        long long hi = lo + CPU_CHUNK < n ? lo + CPU_CHUNK : n;
        for (long long i = lo; i < hi; i++) {
            x ^= x >> 12, x ^= x << 25, x ^= x >> 27;
            b->in[i] = (float)((x * 0x2545f4914f6cdd1dull) >> 40) * (1.0f / 8388608.0f) - 1.0f;
        }
        if (lo < b->n) /* every page touched before timing */
            memset(b->out + lo, 0, (size_t)((hi < b->n ? hi : b->n) - lo) * sizeof(float));
        if ((rc = cpu_cancelled(r, err)) != 0)
            return rc;
    }
    return 0;
}

int lab_coal_run_cpu(struct coal_run *r, struct core_err *err)
{
    struct lab_ctx *cx = r->cx;
    const struct lab_machine *m = lab_ctx_machine(cx);
    struct cpu_bufs b = {0};
    long line = m->line_bytes >= 16 && m->line_bytes <= 4096 ? m->line_bytes : 64;
    long llc = m->l3_bytes > 0 ? m->l3_bytes : m->l2_bytes;
    double copy_gbs = 0;
    int rc;

    if ((line & (line - 1)) != 0)
        line = 64;
    b.n = ((long long)r->cpu_mib << 20) / (long long)sizeof(float);
    b.side = (int)floor(sqrt((double)b.n)) / CPU_TILE * CPU_TILE;
    while ((long long)b.side * b.side > b.n)
        b.side -= CPU_TILE;
    r->points = 4 + (r->offset_max + 1) + r->stride_max;
    if (posix_memalign((void **)&b.in, 4096, (size_t)(b.n + CPU_PAD) * sizeof(float)) != 0)
        b.in = NULL;
    if (posix_memalign((void **)&b.out, 4096, (size_t)b.n * sizeof(float)) != 0)
        b.out = NULL;
    if (!b.in || !b.out) {
        rc = core_err_set(err, CORE_ERR_INVALID,
                          "coalescing: cannot allocate two arrays of %d MiB (parameter 'cpu_mib')",
                          r->cpu_mib);
        goto out;
    }
    if ((rc = cpu_fill(r, &b, err)) != 0)
        goto out;
    lab_log(cx, LAB_LOG_INFO,
            "CPU analog: two arrays of %d MiB (last-level cache %.1f MiB), %ld-byte lines, "
            "transposes %d x %d, best of %d timed passes per point",
            r->cpu_mib, (double)llc / 1048576.0, line, b.side, b.side, r->cpu_reps);
    if (llc > 0 && 2.0 * (double)r->cpu_mib * 1048576.0 < 2.0 * (double)llc)
        lab_log(cx, LAB_LOG_WARN,
                "the two arrays (2 x %d MiB) are less than twice the last-level cache (%.1f MiB): "
                "much of them stays cached, so this measures the cache, not memory",
                r->cpu_mib, (double)llc / 1048576.0);

    /* one untimed pass: the first streaming pass of a run also pays for
     * the core's clock ramping up */
    if ((rc = cpu_pass(r, &b, CPU_COPY, 0, err)) != 0)
        goto out;
    if ((rc = cpu_ladder(r, &b, &copy_gbs, err)) != 0)
        goto out;
    if ((rc = cpu_sweep(r, &b, true, (int)line, copy_gbs, err)) != 0)
        goto out;
    if ((rc = cpu_sweep(r, &b, false, (int)line, copy_gbs, err)) != 0)
        goto out;
    lab_figure_num(cx, "cpu_line_bytes", (double)line, "B", "CPU cache line (the model's unit)");
    lab_figure_num(cx, "cpu_llc_bytes", (double)llc, "B", "CPU last-level cache (0: unknown)");
    lab_figure_num(cx, "cpu_array_mib", r->cpu_mib, "MiB", "each CPU array");
    if (llc > 0)
        lab_figure_num(cx, "cpu_array_llc", (double)r->cpu_mib * 1048576.0 / (double)llc, "×",
                       "array size / last-level cache");
    lab_figure_num(cx, "cpu_side", b.side, "", "CPU transposes: side x side floats");
    lab_figure_num(cx, "cpu_reps", r->cpu_reps, "", "timed passes per point");
    rc = 0;
out:
    free(b.in);
    free(b.out);
    return rc;
}
