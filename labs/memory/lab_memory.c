/*
 * lab_memory.c — lab "memory": locality on the CPU, in two parts.
 *
 * matmul: C = A·B in double precision, n×n, row-major, in three loop orders —
 * IJK (the inner loop walks a column of B: one cache line per element),
 * IKJ (the inner loop walks rows of B and C: every byte of a line is used)
 * and cache-blocked IKJ (tile×tile blocks, so the three blocks in use stay in
 * cache) — for a ladder of sizes from n_min to n_max whose footprint 3·n²·8
 * bytes crosses the machine's cache sizes. GFLOP/s per order per size and the
 * IKJ/IJK ratio. All three products are the same sums in the same order, so
 * they are compared element by element every run and the run fails if they
 * differ beyond a rounding tolerance.
 *
 * stride: sums an int32 array several times the last-level cache at strides
 * of 4 B to 4 KiB. Every stride visits every element exactly once (passes at
 * offsets 0..k−1), so the work is the same and the sums must agree; what
 * changes is how many cache lines each useful byte drags in. Useful bandwidth
 * falls while the stride is below the line size and levels off above it.
 *
 * Single-threaded, in the lab's own process: nothing for lab_run() to clean
 * up but our own buffers. Uses the lab framework (lab_author.h) for parameters,
 * machine description, reporting and cancellation.
 */
#include "labs/memory/lab_memory.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MEM_MAX_SIZES 40
#define MEM_ELEM_BYTES 4          /* the stride sweep's int32 elements */
#define MEM_MAX_STRIDE_ELEMS 1024 /* 4 KiB: one page */
#define MEM_CHECK_FLOPS 4.0e6     /* check the cancel flag about this often */

enum mem_order { MEM_IJK, MEM_IKJ, MEM_BLOCKED, MEM_N_ORDERS };
static const char *const mem_order_name[MEM_N_ORDERS] = {"ijk", "ikj", "blocked"};

/* ---- kernels: rows [i0, i1) of C = A·B ---------------------------------- */

__attribute__((noinline)) static void mm_ijk(int n, const double *A, const double *B, double *C,
                                             int i0, int i1)
{
    size_t N = (size_t)n;
    for (size_t i = (size_t)i0; i < (size_t)i1; i++)
        for (size_t j = 0; j < N; j++) {
            double s = 0;
            for (size_t k = 0; k < N; k++)
                s += A[i * N + k] * B[k * N + j];
            C[i * N + j] = s;
        }
}

__attribute__((noinline)) static void mm_ikj(int n, const double *A, const double *B, double *C,
                                             int i0, int i1)
{
    size_t N = (size_t)n;
    for (size_t i = (size_t)i0; i < (size_t)i1; i++) {
        double *c = C + i * N;
        memset(c, 0, N * sizeof *c);
        for (size_t k = 0; k < N; k++) {
            double a = A[i * N + k];
            const double *b = B + k * N;
            for (size_t j = 0; j < N; j++)
                c[j] += a * b[j];
        }
    }
}

/* IKJ over tile×tile blocks. k blocks run in increasing order, so every
 * C[i][j] receives its terms in the same order as IJK and IKJ. Rows come in
 * whole tiles, so a band of rows can hold billions of operations (tile 512
 * at n = 2048: four); stop(ud) is asked every MEM_CHECK_FLOPS or so, and
 * when it says true the product is abandoned and false returned. */
__attribute__((noinline)) static bool mm_blocked(int n, int T, const double *A, const double *B,
                                                 double *C, int i0, int i1, bool (*stop)(void *),
                                                 void *ud)
{
    size_t N = (size_t)n;
    double since = 0;
    /* Ask once per k block, or once per (k, j) block pair when a k block
     * alone is more than the interval (large tiles): never per tiny block,
     * where the bookkeeping would show in the timing. */
    bool per_block = 2.0 * T * T * n > MEM_CHECK_FLOPS;
    for (size_t i = (size_t)i0; i < (size_t)i1; i++)
        memset(C + i * N, 0, N * sizeof *C);
    for (int ii = i0; ii < i1; ii += T) {
        int ie = ii + T < i1 ? ii + T : i1;
        for (int kk = 0; kk < n; kk += T) {
            int ke = kk + T < n ? kk + T : n;
            if (!per_block) {
                since += 2.0 * (ie - ii) * (ke - kk) * n;
                if (since >= MEM_CHECK_FLOPS) {
                    since = 0;
                    if (stop(ud))
                        return false;
                }
            }
            for (int jj = 0; jj < n; jj += T) {
                int je = jj + T < n ? jj + T : n;
                if (per_block) {
                    since += 2.0 * (ie - ii) * (ke - kk) * (je - jj);
                    if (since >= MEM_CHECK_FLOPS) {
                        since = 0;
                        if (stop(ud))
                            return false;
                    }
                }
                for (int i = ii; i < ie; i++) {
                    double *c = C + (size_t)i * N;
                    for (int k = kk; k < ke; k++) {
                        double a = A[(size_t)i * N + (size_t)k];
                        const double *b = B + (size_t)k * N;
                        for (int j = jj; j < je; j++)
                            c[j] += a * b[j];
                    }
                }
            }
        }
    }
    return true;
}

/* ---- sizes ---------------------------------------------------------------- */

/* The ladder n_min, ×√2, ..., n_max, rounded to multiples of 8. */
static int mem_sizes(int n_min, int n_max, int *out)
{
    int k = 0;
    out[k++] = n_min;
    for (double x = n_min * 1.4142135623730951; k < MEM_MAX_SIZES - 1; x *= 1.4142135623730951) {
        int n = 8 * (int)lround(x / 8);
        if (n >= n_max)
            break;
        if (n > out[k - 1])
            out[k++] = n;
    }
    if (n_max > out[k - 1])
        out[k++] = n_max;
    return k;
}

static const char *mem_level(const struct lab_machine *m, double bytes)
{
    if (m->l1d_bytes > 0 && bytes <= m->l1d_bytes)
        return "fits L1";
    if (m->l2_bytes > 0 && bytes <= m->l2_bytes)
        return "fits L2";
    if (m->l3_bytes > 0 && bytes <= m->l3_bytes)
        return "fits the LLC";
    if (m->l3_bytes > 0 || m->l2_bytes > 0)
        return "larger than the caches";
    return "cache sizes unknown";
}

/* ---- the experiment ------------------------------------------------------- */

struct mem_run {
    struct lab_ctx *cx;
    const struct core_clock *clk;
    const struct lab_machine *m;
    int tile;
    double min_s;
    double done, total;     /* matmul progress, in flops */
    double p_base, p_scale; /* this part's share of the run's progress bar */
};

static double mem_now(const struct mem_run *r)
{
    return r->clk->now(r->clk->ctx);
}

static int mem_cancelled(const struct mem_run *r, struct core_err *err)
{
    if (!lab_cancelled(r->cx))
        return 0;
    return core_err_set(err, CORE_ERR_CANCELLED, "cancelled");
}

/* Line-aligned memory; the sizes are the student's choice, so running out is
 * reported, not fatal. NULL with err filled on failure. */
static void *mem_alloc(size_t bytes, const char *what, struct core_err *err)
{
    void *p = NULL;
    if (posix_memalign(&p, 64, bytes ? bytes : 64) != 0) {
        core_err_set(err, CORE_ERR_INVALID, "cannot allocate %.1f MiB for %s",
                     (double)bytes / 1048576.0, what);
        return NULL;
    }
    return p;
}

static bool mem_stop(void *ud)
{
    return lab_cancelled(((struct mem_run *)ud)->cx);
}

/* One product in `order`, in row chunks with a cancel check between them. */
static int mem_mm_once(struct mem_run *r, int order, int n, const double *A, const double *B,
                       double *C, struct core_err *err)
{
    int chunk = (int)(MEM_CHECK_FLOPS / (2.0 * n * n)) + 1;
    if (order == MEM_BLOCKED) /* whole tiles of rows, or blocking means nothing */
        chunk = (chunk + r->tile - 1) / r->tile * r->tile;
    for (int i0 = 0; i0 < n; i0 += chunk) {
        int i1 = i0 + chunk < n ? i0 + chunk : n;
        if (order == MEM_IJK)
            mm_ijk(n, A, B, C, i0, i1);
        else if (order == MEM_IKJ)
            mm_ikj(n, A, B, C, i0, i1);
        else
            mm_blocked(n, r->tile, A, B, C, i0, i1, mem_stop, r);
        int rc = mem_cancelled(r, err);
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* GFLOP/s of `order` at size n, from the fastest of the timed products:
 * on a shared machine a slower run was interrupted, not slower. Products
 * repeat until min_ms have passed and at least two were timed (one is enough
 * when it alone took ten times min_ms); a first product much shorter than
 * min_ms is a warm-up and not counted. */
static int mem_mm_time(struct mem_run *r, int order, int n, const double *A, const double *B,
                       double *C, double *gflops, struct core_err *err)
{
    double flops = 2.0 * n * n * (double)n, secs = 0, best = INFINITY;
    long runs = 0;
    bool warm = false;
    for (;;) {
        double t0 = mem_now(r);
        int rc = mem_mm_once(r, order, n, A, B, C, err);
        if (rc != 0)
            return rc;
        double t = mem_now(r) - t0;
        r->done += flops;
        if (!warm && t < r->min_s / 4) {
            warm = true;
            continue;
        }
        warm = true;
        char rep[64];
        snprintf(rep, sizeof rep, "%s multiply at n = %d", mem_order_name[order], n);
        lab_repeat(r->cx, rep, "s", t);
        secs += t;
        runs++;
        if (t > 0 && t < best)
            best = t;
        if (secs >= r->min_s && (runs >= 2 || secs >= 10 * r->min_s))
            break;
    }
    *gflops = isfinite(best) ? flops / best / 1e9 : 0;
    return 0;
}

static double mem_max_diff(const double *x, const double *y, size_t nn)
{
    double d = 0;
    for (size_t i = 0; i < nn; i++) {
        double e = fabs(x[i] - y[i]);
        if (e > d || isnan(e))
            d = isnan(e) ? INFINITY : e;
    }
    return d;
}

static int mem_matmul(struct mem_run *r, int n_min, int n_max, struct core_err *err)
{
    struct lab_ctx *cx = r->cx;
    int sizes[MEM_MAX_SIZES];
    int ns = mem_sizes(n_min, n_max, sizes);
    size_t nn = (size_t)n_max * (size_t)n_max;
    double *A = NULL, *B = NULL, *C[MEM_N_ORDERS] = {NULL};
    double ratio_max = 0, ratio_min_n = 0, worst = 0, g[MEM_N_ORDERS] = {0};
    int n_at_max = 0, rc;
    char key[64], label[128];

    rc = CORE_ERR_INVALID;
    if (!(A = mem_alloc(nn * sizeof *A, "matrix A", err)) ||
        !(B = mem_alloc(nn * sizeof *B, "matrix B", err)))
        goto out;
    for (int o = 0; o < MEM_N_ORDERS; o++)
        if (!(C[o] = mem_alloc(nn * sizeof *C[o], "a product", err)))
            goto out;

    r->done = 0;
    r->total = 0;
    for (int s = 0; s < ns; s++)
        r->total += 3 * 2.0 * sizes[s] * sizes[s] * (double)sizes[s];
    lab_log(cx, LAB_LOG_INFO, "matmul: %d sizes from n = %d to %d, tile %d", ns, sizes[0],
            sizes[ns - 1], r->tile);

    for (int s = 0; s < ns; s++) {
        int n = sizes[s];
        size_t m = (size_t)n * (size_t)n;
        /* values in [-1, 1) from a fixed xorshift stream: the same every run */
        uint64_t x = 0x2545f4914f6cdd1dull ^ (uint64_t)n;
        for (size_t i = 0; i < m; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            A[i] = (double)(x >> 11) / 4503599627370496.0 - 1.0;
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            B[i] = (double)(x >> 11) / 4503599627370496.0 - 1.0;
        }
        for (int o = 0; o < MEM_N_ORDERS; o++) {
            char what[64];
            snprintf(what, sizeof what, "matmul n = %d, %s", n, mem_order_name[o]);
            lab_progress(cx, r->p_base + r->p_scale * r->done / r->total, what);
            if ((rc = mem_mm_time(r, o, n, A, B, C[o], &g[o], err)) != 0)
                goto out;
        }
        /* |terms| < 1, so rounding error stays far below n·1e-12 */
        double tol = 1e-12 * n + 1e-12;
        for (int o = 1; o < MEM_N_ORDERS; o++) {
            double d = mem_max_diff(C[MEM_IJK], C[o], m);
            if (!(d <= tol)) {
                rc = core_err_set(err, CORE_ERR_INTERNAL,
                                  "the %s and ijk products differ at n = %d by %g (tolerance %g)",
                                  mem_order_name[o], n, d, tol);
                goto out;
            }
            worst = d > worst ? d : worst;
        }
        double ratio = g[MEM_IKJ] / g[MEM_IJK];
        if (s == 0)
            ratio_min_n = ratio;
        if (ratio > ratio_max) {
            ratio_max = ratio;
            n_at_max = n;
        }
        for (int o = 0; o < MEM_N_ORDERS; o++) {
            char series[32];
            snprintf(series, sizeof series, "gflops_%s", mem_order_name[o]);
            lab_emit(cx, series, n, g[o]);
            snprintf(key, sizeof key, "gflops_%s_n%d", mem_order_name[o], n);
            snprintf(label, sizeof label, "%s GFLOP/s at n=%d", mem_order_name[o], n);
            lab_figure_num(cx, key, g[o], "GFLOP/s", label);
        }
        lab_emit(cx, "ratio_ikj_ijk", n, ratio);
        snprintf(key, sizeof key, "ratio_ikj_ijk_n%d", n);
        snprintf(label, sizeof label, "IKJ/IJK speed ratio at n=%d", n);
        lab_figure_num(cx, key, ratio, "×", label);
        double foot = 3.0 * 8.0 * (double)m;
        lab_log(cx, LAB_LOG_INFO,
                "n = %d (3 matrices %.0f KiB, %s): ijk %.2f, ikj %.2f, blocked %.2f GFLOP/s, "
                "ikj/ijk %.2f",
                n, foot / 1024, mem_level(r->m, foot), g[0], g[1], g[2], ratio);
    }
    int n = sizes[ns - 1];
    lab_figure_num(cx, "n_min", sizes[0], "", "smallest matrix size");
    lab_figure_num(cx, "n_max", n, "", "largest matrix size");
    lab_figure_num(cx, "n_sizes", ns, "", "number of matrix sizes");
    lab_figure_num(cx, "tile", r->tile, "", "tile edge of the blocked version");
    lab_figure_num(cx, "footprint_mib_nmax", 24.0 * n * (double)n / 1048576.0, "MiB",
                   "3 matrices at the largest n");
    lab_figure_num(cx, "gflops_ijk_nmax", g[MEM_IJK], "GFLOP/s", "IJK at the largest n");
    lab_figure_num(cx, "gflops_ikj_nmax", g[MEM_IKJ], "GFLOP/s", "IKJ at the largest n");
    lab_figure_num(cx, "gflops_blocked_nmax", g[MEM_BLOCKED], "GFLOP/s",
                   "blocked at the largest n");
    lab_figure_num(cx, "ratio_ikj_ijk_nmin", ratio_min_n, "×", "IKJ/IJK at the smallest n");
    lab_figure_num(cx, "ratio_ikj_ijk_nmax", g[MEM_IKJ] / g[MEM_IJK], "×",
                   "IKJ/IJK at the largest n");
    lab_figure_num(cx, "ratio_ikj_ijk_max", ratio_max, "×", "largest IKJ/IJK ratio");
    lab_figure_num(cx, "n_at_ratio_max", n_at_max, "", "n of the largest IKJ/IJK ratio");
    lab_figure_num(cx, "ratio_blocked_ijk_nmax", g[MEM_BLOCKED] / g[MEM_IJK], "×",
                   "blocked/IJK at the largest n");
    lab_figure_num(cx, "max_abs_diff", worst, "", "largest difference between the three products");
    rc = 0;
out:
    free(A);
    free(B);
    for (int o = 0; o < MEM_N_ORDERS; o++)
        free(C[o]);
    return rc;
}

/* Sums a[i] for i = off, off + k, ... < n, looking at the cancel flag every
 * few million elements. */
static int mem_pass(struct mem_run *r, const int32_t *a, size_t n, size_t off, size_t k,
                    int64_t *sum, struct core_err *err)
{
    const size_t seg = (size_t)1 << 22; /* a multiple of every k */
    int64_t s = 0;
    for (size_t lo = 0; lo < n; lo += seg) {
        size_t hi = lo + seg < n ? lo + seg : n;
        for (size_t i = lo + off; i < hi; i += k)
            s += a[i];
        int rc = mem_cancelled(r, err);
        if (rc != 0)
            return rc;
    }
    *sum += s;
    return 0;
}

/* The stride sweep. Below the line size, stride k elements takes k passes
 * (offsets 0..k−1): every element once, every line k times. From the line
 * size on, passes start one line apart (offsets 0, L, 2L, ... < k): the first
 * element of every line once, every line once. Either way no pass finds its
 * lines still in cache, because each pass ends far beyond the cache. */
static int mem_stride(struct mem_run *r, int array_mib, struct core_err *err)
{
    struct lab_ctx *cx = r->cx;
    long line = r->m->line_bytes > 0 ? r->m->line_bytes : 64;
    size_t L = (size_t)line / MEM_ELEM_BYTES; /* elements per line */
    size_t N = ((size_t)array_mib << 20) / MEM_ELEM_BYTES;
    int32_t *a = NULL;
    int64_t sum_all = 0, sum_heads = 0;
    double ns_prev = 0, step_factor = 0, bw4 = 0, bw_line = 0;
    long step_stride = 0;
    char key[64], label[128];
    int rc;

    if (L < 1)
        L = 1;
    if (!(a = mem_alloc(N * sizeof *a, "the stride array", err))) {
        rc = core_err_prefix(err, "array_mib = %d", array_mib);
        goto out;
    }
    for (size_t i = 0; i < N; i++) {
        a[i] = (int32_t)(i & 0xff) - 100;
        sum_all += a[i];
        if (i % L == 0)
            sum_heads += a[i];
    }
    double llc = (double)(r->m->l3_bytes > 0 ? r->m->l3_bytes : r->m->l2_bytes);
    if (llc > 0 && (double)N * MEM_ELEM_BYTES < 2 * llc)
        lab_log(cx, LAB_LOG_WARN,
                "the array (%d MiB) is less than twice the last-level cache (%.1f MiB): much of "
                "it stays cached, so the sweep measures the cache, not memory",
                array_mib, llc / 1048576.0);
    lab_log(cx, LAB_LOG_INFO, "stride: %d MiB of int32, strides %d B to %d B, line %ld B",
            array_mib, MEM_ELEM_BYTES, MEM_ELEM_BYTES * MEM_MAX_STRIDE_ELEMS, line);

    int n_strides = 0, done = 0;
    for (size_t k = 1; k <= MEM_MAX_STRIDE_ELEMS; k *= 2)
        n_strides++;
    for (size_t k = 1; k <= MEM_MAX_STRIDE_ELEMS; k *= 2, done++) {
        long sb = (long)k * MEM_ELEM_BYTES;
        bool sparse = k >= L; /* one access per line */
        char what[64];
        snprintf(what, sizeof what, "stride %ld B", sb);
        lab_progress(cx, r->p_base + r->p_scale * done / n_strides, what);
        int64_t sum = 0;
        double t0 = mem_now(r);
        for (size_t off = 0; off < k; off += sparse ? L : 1)
            if ((rc = mem_pass(r, a, N, off, k, &sum, err)) != 0)
                goto out;
        double t = mem_now(r) - t0;
        int64_t expect = sparse ? sum_heads : sum_all;
        if (sum != expect) {
            rc = core_err_set(err, CORE_ERR_INTERNAL, "stride %ld B summed to %lld, expected %lld",
                              sb, (long long)sum, (long long)expect);
            goto out;
        }
        if (!(t > 0))
            t = 1e-9;
        double accesses = sparse ? (double)((N + L - 1) / L) : (double)N;
        double lines = sparse ? accesses : (double)k * (double)((N + L - 1) / L);
        double bw = accesses * MEM_ELEM_BYTES / t / 1e9;
        double ns = t / accesses * 1e9;
        double ml = lines / t / 1e6;
        lab_emit(cx, "bw_useful", sb, bw);
        lab_emit(cx, "ns_access", sb, ns);
        lab_emit(cx, "mlines", sb, ml);
        snprintf(key, sizeof key, "bw_stride%ld", sb);
        snprintf(label, sizeof label, "useful bandwidth at stride %ld B", sb);
        lab_figure_num(cx, key, bw, "GB/s", label);
        snprintf(key, sizeof key, "ns_stride%ld", sb);
        snprintf(label, sizeof label, "time per access at stride %ld B", sb);
        lab_figure_num(cx, key, ns, "ns", label);
        snprintf(key, sizeof key, "mlines_stride%ld", sb);
        snprintf(label, sizeof label, "cache lines touched per second at stride %ld B", sb);
        lab_figure_num(cx, key, ml, "M/s", label);
        lab_log(cx, LAB_LOG_INFO,
                "stride %4ld B: %.3f s, %.2f GB/s useful, %.2f ns/access, %.0f M lines/s", sb, t,
                bw, ns, ml);
        if (k == 1)
            bw4 = bw;
        if (sb == line)
            bw_line = bw;
        if (k > 1 && ns_prev > 0 && ns / ns_prev > step_factor) {
            step_factor = ns / ns_prev;
            step_stride = sb;
        }
        ns_prev = ns;
    }
    lab_figure_num(cx, "elem_bytes", MEM_ELEM_BYTES, "B", "stride-sweep element size");
    lab_figure_num(cx, "array_mib", array_mib, "MiB", "stride-sweep array");
    lab_figure_num(cx, "step_stride", (double)step_stride, "B",
                   "stride where bandwidth dropped most (vs half that stride)");
    lab_figure_num(cx, "step_factor", step_factor, "×", "how much it dropped there");
    if (bw_line > 0)
        lab_figure_num(cx, "bw_drop_line", bw4 / bw_line, "×",
                       "useful bandwidth at 4 B over that at the line size");
    rc = 0;
out:
    free(a);
    return rc;
}

/* The stride array must leave the machine room: touching more memory than
 * there is gets the process killed (the allocation itself succeeds, memory
 * being overcommitted), not an error anyone could read. */
static int mem_array_fits(int array_mib, long mem_bytes, struct core_err *err)
{
    if (mem_bytes > 0 && (double)array_mib * 1048576.0 > (double)mem_bytes / 2)
        return core_err_set(err, CORE_ERR_INVALID,
                            "memory: parameter 'array_mib' (%d MiB) must be at most half of this "
                            "machine's memory (%ld MiB)",
                            array_mib, mem_bytes / 2 / 1048576);
    return 0;
}

static int mem_run_lab(struct lab_ctx *cx, struct core_err *err)
{
    const struct lab_params *pp = lab_ctx_params(cx);
    const char *part = lab_param_str(pp, "part");
    struct mem_run r = {.cx = cx, .clk = lab_ctx_clock(cx), .m = lab_ctx_machine(cx)};
    int rc;

    if (!r.clk)
        r.clk = core_clock_real();
    r.tile = (int)lab_param_num(pp, "tile");
    r.min_s = lab_param_num(pp, "min_ms") / 1000.0;
    lab_figure_num(cx, "line_bytes", (double)(r.m->line_bytes > 0 ? r.m->line_bytes : 64), "B",
                   "cache line");
    lab_figure_num(cx, "l1d_bytes", (double)r.m->l1d_bytes, "B", "L1 data cache (0: unknown)");
    lab_figure_num(cx, "l2_bytes", (double)r.m->l2_bytes, "B", "L2 cache (0: unknown)");
    lab_figure_num(cx, "llc_bytes", (double)(r.m->l3_bytes > 0 ? r.m->l3_bytes : r.m->l2_bytes),
                   "B", "last-level cache (0: unknown)");

    bool mm = strcmp(part, "stride") != 0, st = strcmp(part, "matmul") != 0;
    r.p_scale = mm && st ? 0.5 : 1;
    if (st && (rc = mem_array_fits((int)lab_param_num(pp, "array_mib"), r.m->mem_bytes, err)) != 0)
        return rc;
    if (mm) {
        rc = mem_matmul(&r, (int)lab_param_num(pp, "n_min"), (int)lab_param_num(pp, "n_max"), err);
        if (rc != 0)
            return rc;
    }
    if (st) {
        r.p_base = mm ? 0.5 : 0;
        rc = mem_stride(&r, (int)lab_param_num(pp, "array_mib"), err);
        if (rc != 0)
            return rc;
    }
    lab_progress(cx, 1, "done");
    return 0;
}

static int mem_check(const struct lab_params *p, struct core_err *err)
{
    int n_min = (int)lab_param_num(p, "n_min"), n_max = (int)lab_param_num(p, "n_max");
    if (n_min > n_max)
        return core_err_set(err, CORE_ERR_INVALID, "n_min (%d) must not be larger than n_max (%d)",
                            n_min, n_max);
    if (strcmp(lab_param_str(p, "part"), "matmul") != 0) {
        struct lab_machine m;
        lab_machine_probe(&m);
        return mem_array_fits((int)lab_param_num(p, "array_mib"), m.mem_bytes, err);
    }
    return 0;
}

/* ---- defaults from the machine --------------------------------------------- */

/* The largest n: where IJK's walk down a column of B (n lines) no longer fits
 * in L1 and B alone is twice the L2, so the column comes from farther away;
 * capped so the default run stays a few seconds. */
static double mem_default_nmax(void)
{
    struct lab_machine m;
    lab_machine_probe(&m);
    double line = m.line_bytes > 0 ? (double)m.line_bytes : 64;
    double n1 = m.l1d_bytes > 0 ? 1.5 * (double)m.l1d_bytes / line : 768;
    double n2 = m.l2_bytes > 0 ? sqrt(2.0 * (double)m.l2_bytes / 8.0) : 512;
    double n = n1 > n2 ? n1 : n2;
    if (n < 192)
        n = 192;
    if (n > 1000)
        n = 1000;
    return 8 * lround(n / 8);
}

/* Four times the last-level cache, 16..256 MiB, at most an eighth of RAM. */
static double mem_default_array(void)
{
    struct lab_machine m;
    lab_machine_probe(&m);
    long llc = m.l3_bytes > 0 ? m.l3_bytes : m.l2_bytes;
    double mib = llc > 0 ? 4.0 * (double)llc / 1048576.0 : 64;
    if (mib < 16)
        mib = 16;
    if (mib > 256)
        mib = 256;
    if (m.mem_bytes > 0 && mib > (double)m.mem_bytes / 8 / 1048576.0)
        mib = floor((double)m.mem_bytes / 8 / 1048576.0);
    return mib < 1 ? 1 : ceil(mib);
}

static const struct lab_param_def mem_params[] = {
    {"part", LAB_P_ENUM, "all", NULL, 0, 0, "all|matmul|stride", "", "which experiments to run"},
    {"n_min", LAB_P_INT, "48", NULL, 8, 2048, NULL, "", "smallest matrix size n"},
    {"n_max", LAB_P_INT, NULL, mem_default_nmax, 8, 2048, NULL, "",
     "largest matrix size n (default: one matrix twice the L2; IJK at 2048 takes minutes)"},
    {"tile", LAB_P_INT, "32", NULL, 4, 512, NULL, "", "tile edge of the blocked multiply"},
    {"min_ms", LAB_P_INT, "20", NULL, 1, 2000, NULL, "ms",
     "repeat each multiply until this much time has passed"},
    {"array_mib", LAB_P_INT, NULL, mem_default_array, 1, 4096, NULL, "MiB",
     "stride-sweep array (default: 4 x the last-level cache)"},
};

static const struct lab_series_def mem_series[] = {
    {"gflops_ijk", "IJK", "GFLOP/s", "matmul", "n"},
    {"gflops_ikj", "IKJ", "GFLOP/s", "matmul", "n"},
    {"gflops_blocked", "blocked IKJ", "GFLOP/s", "matmul", "n"},
    {"ratio_ikj_ijk", "IKJ / IJK", "×", "matmul_ratio", "n"},
    {"bw_useful", "useful bandwidth", "GB/s", "stride_bw", "stride (B)"},
    {"mlines", "cache lines touched", "M/s", "stride_lines", "stride (B)"},
    {"ns_access", "time per access", "ns", "stride_ns", "stride (B)"},
};

static const struct lab_chart_def mem_charts[] = {
    {"matmul", "multiply speed against n", true},    {"matmul_ratio", "IKJ speed over IJK", true},
    {"stride_bw", "bandwidth against stride", true}, {"stride_lines", "cache lines touched", true},
    {"stride_ns", "time per access", true},
};

const struct lab_def lab_memory_def = {
    .name = "memory",
    .title = "Locality on your CPU",
    .summary = "matrix multiply IJK vs IKJ vs blocked across the caches; stride sweep and the "
               "cache line",
    .params = mem_params,
    .n_params = sizeof mem_params / sizeof mem_params[0],
    .series = mem_series,
    .n_series = sizeof mem_series / sizeof mem_series[0],
    .check = mem_check,
    .run = mem_run_lab,
    .charts = mem_charts,
    .n_charts = sizeof mem_charts / sizeof mem_charts[0],
};
