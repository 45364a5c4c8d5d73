/*
 * lab_code_roof.c — this machine's roofline, measured the way student code
 * runs: STREAM-like copy and triad kernels and an FMA loop, compiled by
 * the system compiler with the harness's flags and timed by the harness
 * itself (lab_code_run), so the ceiling a student is measured against is
 * one their own code could reach. The "roofline" lab records it (a lab
 * run, with the machine's description and the noise verdict every lab
 * gets), which is how it is "measured once per machine, stored with the
 * machine record": the front ends reuse the latest such run of this
 * machine. Also the score (pure) and `bench code`.
 *
 * Uses the harness (lab_code_run.c) and the lab framework for the lab.
 */
#include "labs/code/lab_code_internal.h"
#include "labs/lab_author.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- pure ------------------------------------------------------------------------------- */

/* ---- the kernels ---------------------------------------------------------------------------- */

/* The vector width -march=native gives, shared by the kernels below. */
#define ROOF_WIDTH                                                                                 \
    "#if defined(__AVX512F__)\n#define W 64\n#elif defined(__AVX__)\n#define W 32\n"               \
    "#else\n#define W 16\n#endif\n"                                                                \
    "typedef float v __attribute__((vector_size(W)));\n"

/* STREAM's copy and triad, written with the vector type: the plain loop
 * `b[i] = a[i]` is not vectorised at -O2 (GCC 12's "very cheap" cost model
 * will not add the aliasing check it needs), and the scalar loop measured
 * half of memcpy's bandwidth (12.7 against 24.1 GB/s at 16 MiB), which is
 * the compiler's limit, not the memory's. With `restrict` GCC turns the
 * loop into a call of memcpy, which would compare memcpy with itself. The
 * arrays are page-aligned in the harness's mapping, so the aligned vector
 * accesses are safe; a scalar tail does the rest. The stores are plain
 * (they read each line for ownership first, as student code's do); the
 * bytes are counted as STREAM counts them, 8 (copy) and 12 (triad) per
 * element, the same as memcpy's 2 per byte in `bench code`. */
static const char copy_src[] = ROOF_WIDTH "void copy(int n, const float *a, float *b)\n"
                                          "{\n"
                                          "    int i = 0;\n"
                                          "    for (; i + W / 4 <= n; i += W / 4)\n"
                                          "        *(v *)(b + i) = *(const v *)(a + i);\n"
                                          "    for (; i < n; i++)\n"
                                          "        b[i] = a[i];\n"
                                          "}\n";

static const char triad_src[] =
    ROOF_WIDTH "void triad(int n, const float *a, const float *b, float *c)\n"
               "{\n"
               "    int i = 0;\n"
               "    for (; i + W / 4 <= n; i += W / 4)\n"
               "        *(v *)(c + i) = *(const v *)(a + i) + 3.0f * *(const v *)(b + i);\n"
               "    for (; i < n; i++)\n"
               "        c[i] = a[i] + 3.0f * b[i];\n"
               "}\n";

/* The same two for working sets beyond the last-level cache, with
 * non-temporal stores: a plain store first reads its line for ownership,
 * so a copy from memory moves 3 bytes for the 2 counted, while glibc's
 * memcpy switches to non-temporal stores above its threshold (3/4 of the
 * shared cache: 114 MiB here) and moves 2. Measured through the harness at
 * 512 MiB on this VM: plain stores 6.5-7.9 GB/s, memcpy 11.6-20.8. Code
 * that writes each output line whole can do the same, so this is the
 * memory's ceiling, not an unreachable one. */
#define ROOF_NT_STORE                                                                              \
    "#if defined(__AVX512F__)\n#include <immintrin.h>\n"                                           \
    "#define ST(p, x) _mm512_stream_ps((p), (__m512)(x))\n#define FENCE() _mm_sfence()\n"          \
    "#elif defined(__AVX__)\n#include <immintrin.h>\n"                                             \
    "#define ST(p, x) _mm256_stream_ps((p), (__m256)(x))\n#define FENCE() _mm_sfence()\n"          \
    "#elif defined(__SSE__)\n#include <immintrin.h>\n"                                             \
    "#define ST(p, x) _mm_stream_ps((p), (__m128)(x))\n#define FENCE() _mm_sfence()\n"             \
    "#else\n#define ST(p, x) (*(v *)(p) = (x))\n#define FENCE() ((void)0)\n#endif\n"

static const char copy_nt_src[] =
    ROOF_WIDTH ROOF_NT_STORE "void copy(int n, const float *a, float *b)\n"
                             "{\n"
                             "    int i = 0;\n"
                             "    for (; i + W / 4 <= n; i += W / 4)\n"
                             "        ST(b + i, *(const v *)(a + i));\n"
                             "    for (; i < n; i++)\n"
                             "        b[i] = a[i];\n"
                             "    FENCE();\n"
                             "}\n";

static const char triad_nt_src[] = ROOF_WIDTH ROOF_NT_STORE
    "void triad(int n, const float *a, const float *b, float *c)\n"
    "{\n"
    "    int i = 0;\n"
    "    for (; i + W / 4 <= n; i += W / 4)\n"
    "        ST(c + i, *(const v *)(a + i) + 3.0f * *(const v *)(b + i));\n"
    "    for (; i < n; i++)\n"
    "        c[i] = a[i] + 3.0f * b[i];\n"
    "    FENCE();\n"
    "}\n";

/* FMA peak: 12 independent vector accumulators (enough to cover the FMA
 * latency, 4 cycles, times the units, 2), in `t` threads; the width is
 * what -march=native gives. Each accumulator starts at its own value and
 * all twelve pass through an empty asm every iteration: started equal,
 * the compiler merged a4..a11 into one register (5 FMAs an iteration in
 * the object, not 12, so the FLOP count was 2.4 times too high: 497
 * GFLOP/s on this 2-core VM, above any clock's theory). objdump of the
 * object shows 12 vfmadd...ps an iteration now. Returns a value that
 * depends on every accumulator, so nothing is optimised away. */
static const char fma_src[] =
    "#include <pthread.h>\n" ROOF_WIDTH "struct job { int iters; float x; float out; };\n"
    "static void *work(void *p)\n"
    "{\n"
    "    struct job *j = p;\n"
    "    v z = {0};\n"
    "    v a0 = z + 0.0f, a1 = z + 0.1f, a2 = z + 0.2f, a3 = z + 0.3f, a4 = z + 0.4f,\n"
    "      a5 = z + 0.5f, a6 = z + 0.6f, a7 = z + 0.7f, a8 = z + 0.8f, a9 = z + 0.9f,\n"
    "      a10 = z + 1.0f, a11 = z + 1.1f;\n"
    "    v m = z + j->x, c = z + 1e-7f;\n"
    "    for (int i = 0; i < j->iters; i++) {\n"
    "        a0 = a0 * m + c; a1 = a1 * m + c; a2 = a2 * m + c; a3 = a3 * m + c;\n"
    "        a4 = a4 * m + c; a5 = a5 * m + c; a6 = a6 * m + c; a7 = a7 * m + c;\n"
    "        a8 = a8 * m + c; a9 = a9 * m + c; a10 = a10 * m + c; a11 = a11 * m + c;\n"
    "        __asm__ volatile(\"\" : \"+x\"(a0), \"+x\"(a1), \"+x\"(a2), \"+x\"(a3), \"+x\"(a4),\n"
    "                         \"+x\"(a5), \"+x\"(a6), \"+x\"(a7), \"+x\"(a8), \"+x\"(a9),\n"
    "                         \"+x\"(a10), \"+x\"(a11));\n"
    "    }\n"
    "    v s = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9 + a10 + a11;\n"
    "    float r = 0;\n"
    "    for (int i = 0; i < W / 4; i++) r += s[i];\n"
    "    j->out = r;\n"
    "    return 0;\n"
    "}\n"
    "float fma_peak(int iters, int t, const float *x, float *lanes)\n"
    "{\n"
    "    struct job j[64];\n"
    "    pthread_t th[64];\n"
    "    if (t > 64) t = 64;\n"
    "    for (int k = 0; k < t; k++) { j[k].iters = iters; j[k].x = x[0] * 1e-9f + 0.999f; }\n"
    "    for (int k = 1; k < t; k++) pthread_create(&th[k], 0, work, &j[k]);\n"
    "    work(&j[0]);\n"
    "    for (int k = 1; k < t; k++) pthread_join(th[k], 0);\n"
    "    lanes[0] = W / 4;\n"
    "    float r = 0;\n"
    "    for (int k = 0; k < t; k++) r += j[k].out > 1e30f ? 1 : 0;\n"
    "    return r;\n"
    "}\n";

/* A kernel of a fixed amount of work (about 1 ms), that also reports its
 * own duration read from the clock, for `bench code`'s overhead line. */
static const char spin_src[] =
    "#include <time.h>\n"
    "double spin(int iters, const float *x, double *self)\n"
    "{\n"
    "    struct timespec a, b;\n"
    "    clock_gettime(CLOCK_MONOTONIC, &a);\n"
    "    double s = x[0];\n"
    "    for (int i = 0; i < iters; i++) { s = s * 0.999999 + 1e-9; __asm__ volatile(\"\" : "
    "\"+x\"(s)); }\n"
    "    clock_gettime(CLOCK_MONOTONIC, &b);\n"
    "    self[0] = (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) * 1e-9;\n"
    "    return s > 1e300 ? 1 : 0;\n"
    "}\n";

static void spec_base(struct lab_code_spec *s, const char *id, const char *func, const char *src)
{
    memset(s, 0, sizeof *s);
    s->id = id;
    s->func = func;
    s->ret = -1;
    s->reference = src;
    s->flags = "";
    s->rtol = 0;
    s->atol = 0;
    s->threads = 1;
    s->reps = 5;
    s->timeout_s = 60;
    s->mem_mib = 64;
    s->correct_share = 1;
}

static void add_size(struct lab_code_spec *s, const char *name, double v)
{
    snprintf(s->size_names[s->n_sizes], sizeof s->size_names[0], "%s", name);
    s->size_values[s->n_sizes++] = v;
}

static void add_arg(struct lab_code_spec *s, const char *name, bool ptr, bool output,
                    enum lab_code_elem e, const char *count)
{
    struct lab_code_arg *a = &s->args[s->n_args++];
    snprintf(a->name, sizeof a->name, "%s", name);
    a->pointer = ptr;
    a->output = output;
    a->elem = e;
    snprintf(a->count, sizeof a->count, "%s", count);
    a->lo = -1;
    a->hi = 1;
}

/* Runs a built-in kernel's source as both the reference and the code. */
static int run_builtin(const struct lab_code_spec *s, struct lab_code_result *r,
                       struct lab_code_opts *o, struct core_err *err)
{
    char dir[256];
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/wb-roof.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir))
        return core_err_set(err, CORE_ERR_IO, "a temporary directory: %s", dir);
    char path[300];
    snprintf(path, sizeof path, "%s/%s.c", dir, s->func);
    FILE *f = fopen(path, "wx");
    int rc = 0;
    if (!f || fputs(s->reference, f) < 0) {
        rc = core_err_set(err, CORE_ERR_IO, "%s: cannot write", path);
    }
    if (f)
        fclose(f);
    struct lab_code_opts o0 = {0};
    if (!o)
        o = &o0;
    o->no_reference = true;
    if (rc == 0)
        rc = lab_code_run(s, path, o, r, err);
    if (rc == 0 && !r->correct)
        rc = core_err_set(err, CORE_ERR_INTERNAL, "the %s kernel failed in the harness: %s",
                          s->func, r->message ? r->message : "?");
    unlink(path);
    rmdir(dir);
    return rc;
}

/* The "4x the last-level cache" working set, at most LAB_CODE_BIG_MAX
 * (a virtual machine may report a cache of hundreds of MiB) and an eighth
 * of the memory. */
#define LAB_CODE_BIG_MAX (512.0 * 1024 * 1024)
static double big_bytes(void)
{
    struct lab_machine m;
    lab_machine_probe(&m);
    double l = 4.0 * (double)(m.l3_bytes ? m.l3_bytes : m.l2_bytes ? m.l2_bytes : 8L << 20);
    if (l > LAB_CODE_BIG_MAX)
        l = LAB_CODE_BIG_MAX;
    if (m.mem_bytes > 0 && l > (double)m.mem_bytes / 8)
        l = (double)m.mem_bytes / 8;
    return l;
}

/* Copy (2 arrays) or triad (3) moving `bytes` in all per call, the
 * kernel's source `src` (NULL: ours): GB/s at the best call, and at the
 * median one. */
static int stream_of(bool triad, const char *src, double bytes, double *gbs, double *median_gbs,
                     struct core_err *err)
{
    struct lab_code_spec s;
    spec_base(&s, triad ? "roofline.triad" : "roofline.copy", triad ? "triad" : "copy",
              src     ? src
              : triad ? triad_src
                      : copy_src);
    double n = floor(bytes / (triad ? 12 : 8));
    if (n < 1024)
        n = 1024;
    add_size(&s, "n", n);
    add_arg(&s, "n", false, false, LAB_CODE_I32, "");
    add_arg(&s, "a", true, false, LAB_CODE_F32, "n");
    if (triad) {
        add_arg(&s, "b", true, false, LAB_CODE_F32, "n");
        add_arg(&s, "c", true, true, LAB_CODE_F32, "n");
        s.rtol = 1e-6;
    } else {
        add_arg(&s, "b", true, true, LAB_CODE_F32, "n");
    }
    /* small arrays: more calls, so the median means something */
    s.reps = bytes < (64 << 20) ? 15 : 4;
    s.flops = "0";
    s.bytes = triad ? "12*n" : "8*n";
    struct lab_code_result r;
    int rc = run_builtin(&s, &r, NULL, err);
    if (rc == 0)
        *gbs = r.gbs;
    if (rc == 0 && median_gbs)
        *median_gbs = r.t_median_s > 0 ? r.bytes / r.t_median_s * 1e-9 : 0;
    lab_code_result_fini(&r);
    return rc;
}

/* Whether a working set of `bytes` is beyond the last-level cache (then
 * the kernels store around it). */
static bool beyond_llc(double bytes)
{
    struct lab_machine m;
    lab_machine_probe(&m);
    long llc = m.l3_bytes ? m.l3_bytes : m.l2_bytes;
    return llc > 0 && bytes > (double)llc;
}

/* Ours: non-temporal stores beyond the last-level cache; within it, the
 * better of plain and non-temporal stores (best call against best call).
 * Which wins there depends on the machine and the size: a plain store
 * fetches its line first, and the harness poisons the outputs from its own
 * core before each call, so the line is dirty in another core's cache
 * (measured on a 2-vCPU Xeon at 16 MiB: plain 13 GB/s, non-temporal 19-20,
 * memcpy 20-23). The roof is what the machine can do at that size. */
static int stream(bool triad, double bytes, double *gbs, double *median_gbs, struct core_err *err)
{
    const char *nt = triad ? triad_nt_src : copy_nt_src;
    if (beyond_llc(bytes))
        return stream_of(triad, nt, bytes, gbs, median_gbs, err);
    int rc = stream_of(triad, NULL, bytes, gbs, median_gbs, err);
    double g2 = 0, m2 = 0;
    if (rc == 0 && stream_of(triad, nt, bytes, &g2, &m2, err) == 0 && g2 > *gbs) {
        *gbs = g2;
        if (median_gbs)
            *median_gbs = m2;
    }
    return rc;
}

/* A copy kernel of another source (memcpy's), as stream() times ours. */
static int stream_src(const char *src, double bytes, double *gbs, double *median_gbs,
                      struct core_err *err)
{
    return stream_of(false, src, bytes, gbs, median_gbs, err);
}

static void lanes_of(void *ud, int call, double secs, const void *const *outs)
{
    if (outs[3])
        memcpy(ud, outs[3], sizeof(float));
}

/* FP32 peak on `threads` threads: GFLOP/s, and the vector lanes used. */
static int fma_peak(int threads, double *gflops, int *lanes, struct core_err *err)
{
    struct lab_code_spec s;
    spec_base(&s, "roofline.fma", "fma_peak", fma_src);
    s.ret = LAB_CODE_F32;
    s.threads = threads;
    s.flags = "-pthread";
    /* about 4 ms a call on a core of 3 GHz (12 FMAs an iteration, 2 a
     * cycle): the start of the threads and the parent's wake-up stay near
     * 1 % of it, and a call is short enough to fall between two of a busy
     * machine's preemptions (a few ms each), which calls of 50 ms never
     * did; 30 of them, the best counting */
    s.reps = 30;
    int lanes_guess = 16; /* AVX-512: 16 lanes; recomputed from the kernel's answer */
    add_size(&s, "iters", 2e6);
    add_size(&s, "t", threads);
    add_arg(&s, "iters", false, false, LAB_CODE_I32, "");
    add_arg(&s, "t", false, false, LAB_CODE_I32, "");
    add_arg(&s, "x", true, false, LAB_CODE_F32, "1");
    add_arg(&s, "lanes", true, true, LAB_CODE_F32, "1");
    /* FLOP per call: iters * 12 accumulators * lanes * 2 * t; the lanes
     * are known after a first run */
    char flops[96];
    s.flops = "0";
    s.bytes = "0";
    struct lab_code_result r;
    float got_lanes = 0;
    struct lab_code_opts o = {.on_call = lanes_of, .ud = &got_lanes};
    int rc = run_builtin(&s, &r, &o, err);
    if (rc != 0) {
        lab_code_result_fini(&r);
        return rc;
    }
    /* the lanes of the width the compiler chose, as the kernel says */
    if (got_lanes >= 1 && got_lanes <= 64)
        lanes_guess = (int)got_lanes;
    snprintf(flops, sizeof flops, "iters*12*%d*2*t", lanes_guess);
    double f = 0;
    lab_code_expr(flops, &s, &f, err);
    /* the best call, as student code is measured (lab_code_run's gflops):
     * a fraction of the roofline compares like with like */
    *gflops = f / (r.t_min_s > 0 ? r.t_min_s : r.t_median_s) * 1e-9;
    *lanes = lanes_guess;
    lab_code_result_fini(&r);
    return 0;
}

int lab_code_roof_measure(double size_bytes, int threads, struct lab_code_roof *out,
                          struct core_err *err)
{
    memset(out, 0, sizeof *out);
    out->size_bytes = size_bytes;
    out->threads = threads > 0 ? threads : 1;
    double big = big_bytes();
    int lanes, rc;
    if ((rc = stream(false, size_bytes, &out->copy_gbs, NULL, err)) != 0 ||
        (rc = stream(true, size_bytes, &out->triad_gbs, NULL, err)) != 0 ||
        (rc = stream(false, big, &out->copy_big_gbs, NULL, err)) != 0 ||
        (rc = stream(true, big, &out->triad_big_gbs, NULL, err)) != 0 ||
        (rc = fma_peak(out->threads, &out->fma_gflops, &lanes, err)) != 0)
        return rc;
    return 0;
}

void lab_code_roof_from_summary(const struct lab_summary *s, struct lab_code_roof *out)
{
    memset(out, 0, sizeof *out);
    const struct lab_figure *f;
#define GET(key, field)                                                                            \
    if ((f = lab_summary_find(s, key)) && !f->str)                                                 \
        out->field = f->num;
    GET("size_bytes", size_bytes);
    GET("copy_gbs", copy_gbs);
    GET("triad_gbs", triad_gbs);
    GET("copy_big_gbs", copy_big_gbs);
    GET("triad_big_gbs", triad_big_gbs);
    GET("fma_gflops", fma_gflops);
#undef GET
    if ((f = lab_summary_find(s, "threads")) && !f->str)
        out->threads = (int)f->num;
    if ((f = lab_summary_find(s, "noisy")) && !f->str)
        out->noisy = f->num != 0;
    if ((f = lab_summary_find(s, "noise")) && f->str)
        snprintf(out->noise, sizeof out->noise, "%s", f->str);
}

/* The version of the kernels above, stored with every roofline run: 2 is
 * the vectorised copy and triad and the FMA loop of 12 distinct chains
 * (within the last-level cache the better of plain and non-temporal
 * stores, non-temporal beyond it); version 2 took plain stores within it;
 * version 1, unnamed in its runs, measured a scalar copy and counted 12
 * FMAs where the object had 5. */
#define LAB_CODE_ROOF_METHOD 3

/* ---- the "roofline" lab --------------------------------------------------------------------- */

static const struct lab_param_def roof_params[] = {
    {"size_kib", LAB_P_INT, "3072", NULL, 4, 16 * 1024 * 1024, NULL, "KiB",
     "the working set the exercise's bandwidth is measured at"},
    {"threads", LAB_P_INT, "1", NULL, 1, 256, NULL, "", "cores the FMA peak is measured on"},
};

static const struct lab_series_def roof_series[] = {
    {"gbs", "bandwidth", "GB/s", "roofline", "kernel"},
    {"gflops", "FP32 peak", "GFLOP/s", "peak", "threads"},
};

static int roof_run(struct lab_ctx *cx, struct core_err *err)
{
    const struct lab_params *p = lab_ctx_params(cx);
    double size = lab_param_num(p, "size_kib") * 1024;
    int threads = (int)lab_param_num(p, "threads");
    double big = big_bytes();
    double v[5];
    int lanes = 0, rc;
    const char *names[5] = {"copy at the exercise's size", "triad at the exercise's size",
                            "copy at 4x the last-level cache", "triad at 4x the last-level cache",
                            "FMA peak"};
    for (int i = 0; i < 5; i++) {
        if (lab_cancelled(cx))
            return core_err_set(err, CORE_ERR_CANCELLED, "cancelled");
        lab_progress(cx, i / 5.0, names[i]);
        if (i < 4)
            rc = stream(i % 2 == 1, i < 2 ? size : big, &v[i], NULL, err);
        else
            rc = fma_peak(threads, &v[i], &lanes, err);
        if (rc != 0)
            return rc;
        lab_emit(cx, i < 4 ? "gbs" : "gflops", i < 4 ? i + 1 : threads, v[i]);
        lab_repeat(cx, names[i], i < 4 ? "GB/s" : "GFLOP/s", v[i]);
        lab_log(cx, LAB_LOG_INFO, "%s: %.1f %s", names[i], v[i], i < 4 ? "GB/s" : "GFLOP/s");
    }
    lab_figure_num(cx, "triad_gbs", v[1], "GB/s", "triad bandwidth at the exercise's size");
    lab_figure_num(cx, "copy_gbs", v[0], "GB/s", "copy bandwidth at the exercise's size");
    lab_figure_num(cx, "copy_big_gbs", v[2], "GB/s", "copy bandwidth at 4x the LLC");
    lab_figure_num(cx, "triad_big_gbs", v[3], "GB/s", "triad bandwidth at 4x the LLC");
    lab_figure_num(cx, "fma_gflops", v[4], "GFLOP/s", "FP32 FMA peak");
    lab_figure_num(cx, "threads", threads, "", "threads of the FMA peak");
    lab_figure_num(cx, "size_bytes", size, "B", "the exercise's working set");
    lab_figure_num(cx, "lanes", lanes, "", "FP32 lanes of a vector");
    lab_figure_num(cx, "method", LAB_CODE_ROOF_METHOD, "",
                   "the version of the roofline's kernels (runs of an older one are not reused)");
    lab_figure_num(cx, "big_bytes", big, "B",
                   "the working set of the \"4x LLC\" figures (at most 512 MiB)");
    return 0;
}

const struct lab_def lab_code_roofline_def = {
    .name = "roofline",
    .title = "This machine's roofline, as student code sees it",
    .summary = "STREAM copy/triad and FP32 FMA peak, compiled and timed by the code harness",
    .params = roof_params,
    .n_params = sizeof roof_params / sizeof roof_params[0],
    .series = roof_series,
    .n_series = sizeof roof_series / sizeof roof_series[0],
    .run = roof_run,
};

/* ---- the roofline of this machine, from the store or measured now ------------------------ */

static bool same_machine(const char *machine_json, const struct lab_machine *m)
{
    struct core_kv *kv = NULL;
    size_t n = 0;
    if (!machine_json || core_json_parse_flat(machine_json, &kv, &n, NULL) != 0)
        return false;
    const struct core_kv *cpu = core_kv_find(kv, n, "cpu_model");
    const struct core_kv *cores = core_kv_find(kv, n, "cores_online");
    bool same = cpu && cpu->str && strcmp(cpu->str, m->cpu_model) == 0 && cores && cores->is_num &&
                (int)cores->num == m->cores_online;
    core_kv_free(kv, n);
    return same;
}

int lab_code_roof_get(struct db *db, int64_t user_id, double size_bytes, int threads,
                      const struct lab_sink *sinks, size_t n_sinks, atomic_int *cancel,
                      struct lab_code_roof *out, bool *measured, struct core_err *err)
{
    memset(out, 0, sizeof *out);
    *measured = false;
    long kib = (long)ceil(size_bytes / 1024);
    if (kib < 4)
        kib = 4;
    struct lab_machine m;
    lab_machine_probe(&m);
    struct db_labrun *runs = NULL;
    size_t n = 0;
    if (db && db_labrun_list(db, user_id, "roofline", 200, &runs, &n, err) != 0)
        return err->code;
    for (size_t i = 0; i < n; i++) {
        if (!runs[i].status || strcmp(runs[i].status, "done") != 0 ||
            !same_machine(runs[i].machine_json, &m))
            continue;
        struct core_kv *kv = NULL;
        size_t nk = 0;
        if (core_json_parse_flat(runs[i].params_json, &kv, &nk, NULL) != 0)
            continue;
        const struct core_kv *ks = core_kv_find(kv, nk, "size_kib");
        const struct core_kv *kt = core_kv_find(kv, nk, "threads");
        bool match =
            ks && ks->is_num && (long)ks->num == kib && kt && kt->is_num && (int)kt->num == threads;
        core_kv_free(kv, nk);
        if (!match || core_json_parse_flat(runs[i].summary_json, &kv, &nk, NULL) != 0)
            continue;
        /* measured by older kernels (a scalar copy, an FMA loop the
         * compiler folded): measure again */
        const struct core_kv *km = core_kv_find(kv, nk, "method");
        if (!km || !km->is_num || km->num < LAB_CODE_ROOF_METHOD) {
            core_kv_free(kv, nk);
            continue;
        }
        struct lab_summary sm = {0};
        sm.v = core_xcalloc(nk ? nk : 1, sizeof *sm.v);
        for (size_t k = 0; k < nk; k++) {
            sm.v[sm.n].key = core_xstrdup(kv[k].key);
            sm.v[sm.n].num = kv[k].num;
            sm.v[sm.n].str = kv[k].str ? core_xstrdup(kv[k].str) : NULL;
            sm.n++;
        }
        core_kv_free(kv, nk);
        lab_code_roof_from_summary(&sm, out);
        lab_summary_fini(&sm);
        out->run_id = runs[i].id;
        db_labruns_free(runs, n);
        return 0;
    }
    db_labruns_free(runs, n);
    /* none yet: run the lab, recorded */
    struct lab_params p;
    lab_params_init(&p, &lab_code_roofline_def);
    char v[32];
    snprintf(v, sizeof v, "%ld", kib);
    int rc = lab_params_set(&p, "size_kib", v, err);
    snprintf(v, sizeof v, "%d", threads);
    if (rc == 0)
        rc = lab_params_set(&p, "threads", v, err);
    struct lab_run_opts o = {
        .db = db, .user_id = user_id, .sinks = sinks, .n_sinks = n_sinks, .cancel = cancel};
    struct lab_result r = {0};
    if (rc == 0)
        rc = lab_run(&p, &o, &r, err);
    if (rc == 0) {
        lab_code_roof_from_summary(&r.summary, out);
        out->run_id = r.run_id;
        *measured = true;
    }
    lab_result_fini(&r);
    lab_params_fini(&p);
    return rc;
}

/* ---- bench code ----------------------------------------------------------------------------- */

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* The nominal clock: cpuinfo_max_freq, else "cpu MHz" (the base clock in
 * a virtual machine, turbo not counted): GHz, 0 when unknown. Shown beside
 * the measured one, which the theory uses. */
static double nominal_ghz(void)
{
    char buf[64];
    if (core_file_first_line("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", buf,
                             sizeof buf))
        return atof(buf) * 1e-6;
    FILE *f = fopen("/proc/cpuinfo", "r");
    double mhz = 0;
    char line[256];
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "cpu MHz", 7) == 0) {
            const char *c = strchr(line, ':');
            mhz = c ? atof(c + 1) : 0;
            break;
        }
    if (f)
        fclose(f);
    return mhz * 1e-3;
}

/* memcpy through the harness: the same buffers, fresh inputs and poisoned
 * outputs before each call and the same clock as the copy kernel, so the
 * two differ by the kernel only. */
static const char memcpy_src[] = "#include <string.h>\n"
                                 "void copy(int n, const float *a, float *b)\n"
                                 "{\n"
                                 "    memcpy(b, a, (size_t)n * sizeof *a);\n"
                                 "}\n";

/* memcpy in this process, `bytes` counted as the copy kernel counts them
 * (read + write: 2 per byte copied), its buffers rewritten before each
 * call as the harness rewrites its inputs and poisons its outputs (so the
 * caches hold what they hold for the harness's calls): best and median. */
static void memcpy_here(double bytes, int reps, double *best_gbs, double *median_gbs)
{
    size_t n = (size_t)(bytes / 2);
    char *a = core_xmalloc(n), *b = core_xmalloc(n);
    double *ts = core_xmalloc(sizeof(double) * (size_t)reps);
    for (int i = 0; i < reps + 1; i++) {
        memset(a, 1 + i % 100, n);
        memset(b, 0xa5, n);
        double t0 = now_s();
        memcpy(b, a, n);
        double t = now_s() - t0;
        __asm__ volatile("" ::"r"(b) : "memory");
        if (i > 0)
            ts[i - 1] = t;
    }
    lab_stats_sort(ts, (size_t)reps);
    *best_gbs = 2.0 * (double)n / ts[0] * 1e-9;
    *median_gbs = 2.0 * (double)n / ts[reps / 2] * 1e-9;
    free(ts);
    free(a);
    free(b);
}

/* The copy kernel, memcpy through the harness and memcpy here, at `bytes`. */
static int copy_side_by_side(double bytes, struct lab_code_bench_copy *c, struct core_err *err)
{
    memset(c, 0, sizeof *c);
    c->bytes = bytes;
    int rc = stream(false, bytes, &c->copy_gbs, &c->copy_median_gbs, err);
    if (rc == 0)
        rc = stream_src(memcpy_src, bytes, &c->memcpy_harness_gbs, &c->memcpy_harness_median_gbs,
                        err);
    if (rc == 0)
        memcpy_here(bytes, bytes < (64 << 20) ? 15 : 4, &c->memcpy_gbs, &c->memcpy_median_gbs);
    return rc;
}

struct spin_acc {
    double harness[64], self[64];
    int n;
};

static void spin_call(void *ud, int call, double secs, const void *const *outs)
{
    struct spin_acc *a = ud;
    if (call < 2 || a->n >= 64 || !outs[2])
        return;
    a->harness[a->n] = secs;
    memcpy(&a->self[a->n], outs[2], sizeof(double));
    a->n++;
}

int lab_code_bench_run(double size_bytes, struct lab_code_bench *out, struct core_err *err)
{
    memset(out, 0, sizeof *out);
    out->size_bytes = size_bytes;
    int rc = copy_side_by_side(size_bytes, &out->at_size, err);
    if (rc == 0)
        rc = copy_side_by_side(big_bytes(), &out->at_big, err);
    if (rc != 0)
        return rc;
    int cores = (int)sysconf(_SC_NPROCESSORS_ONLN);
    out->cores = cores > 0 ? cores : 1;
    /* the clock right before and right after each FMA peak, on as many
     * cores at once, the faster counting: the clock the peak ran at, as
     * near as a second measurement gets (on a busy VM it moves between
     * 2.3 and 3.0 GHz from one run to the next, and a disturbed
     * measurement only reads low) */
    double before = lab_code_clock_ghz(out->cores, 0.05, NULL);
    if ((rc = fma_peak(out->cores, &out->fma_gflops, &out->lanes, err)) != 0)
        return rc;
    double after = lab_code_clock_ghz(out->cores, 0.05, NULL);
    out->clock_ghz = fmax(before, after);
    before = lab_code_clock_ghz(1, 0.05, NULL);
    /* one core alone, whatever the other cores are doing: on a busy
     * machine the all-core peak needs every core free at once */
    if ((rc = fma_peak(1, &out->fma1_gflops, &out->lanes, err)) != 0)
        return rc;
    after = lab_code_clock_ghz(1, 0.05, NULL);
    out->clock1_ghz = fmax(before, after);
    /* No CPUID leaf gives the FMA units: assumed 2 a core, as on Intel's
     * server cores since Skylake-SP (some Xeon Bronze, Silver and Gold
     * 5xxx of Skylake/Cascade Lake had 1; Zen 4 runs a 512-bit FMA as two
     * 256-bit halves, so there this theory is twice its peak) */
    out->units = 2;
    out->units_assumed = true;
    out->clock_nominal_ghz = nominal_ghz();
    out->clock_measured = out->clock_ghz > 0;
    if (!out->clock_measured)
        out->clock_ghz = out->clock_nominal_ghz;
    if (!(out->clock1_ghz > 0))
        out->clock1_ghz = out->clock_ghz;
    out->fma_theory_gflops = out->cores * out->units * out->lanes * 2.0 * out->clock_ghz;
    out->fma1_theory_gflops = out->units * out->lanes * 2.0 * out->clock1_ghz;
    /* the overhead on a ~1 ms kernel: the harness's time minus the kernel's own */
    struct lab_code_spec s;
    spec_base(&s, "bench.spin", "spin", spin_src);
    s.ret = LAB_CODE_F64;
    s.reps = 21;
    add_size(&s, "iters", 250000);
    add_arg(&s, "iters", false, false, LAB_CODE_I32, "");
    add_arg(&s, "x", true, false, LAB_CODE_F32, "1");
    add_arg(&s, "self", true, true, LAB_CODE_F64, "1");
    s.rtol = 1e9; /* its own time differs call to call */
    s.flops = "0";
    s.bytes = "0";
    /* calibrate to about 1 ms, then measure */
    struct spin_acc acc = {0};
    struct lab_code_opts o = {.on_call = spin_call, .ud = &acc};
    for (int round = 0; round < 2; round++) {
        struct lab_code_result r;
        memset(&acc, 0, sizeof acc);
        rc = run_builtin(&s, &r, &o, err);
        if (rc != 0) {
            lab_code_result_fini(&r);
            return rc;
        }
        if (round == 0) {
            /* on the kernel's own time: the harness's adds the overhead
             * being measured (and on a busy machine, much more) */
            lab_stats_sort(acc.self, (size_t)acc.n);
            double own = acc.n ? acc.self[0] : r.t_min_s;
            double it = s.size_values[0] * 1e-3 / (own > 0 ? own : 1e-3);
            s.size_values[0] = it < 1000 ? 1000 : it;
        } else {
            /* per call, the harness's time less the kernel's own: the
             * least (the call no other program disturbed) and the median */
            double d[64];
            for (int k = 0; k < acc.n; k++)
                d[k] = acc.harness[k] - acc.self[k];
            lab_stats_sort(d, (size_t)acc.n);
            lab_stats_sort(acc.self, (size_t)acc.n);
            out->kernel_s = acc.self[acc.n / 2];
            out->overhead_s = acc.n ? d[0] : 0;
            out->overhead_median_s = acc.n ? d[acc.n / 2] : 0;
        }
        lab_code_result_fini(&r);
    }
    return 0;
}
