/* cli_cmd_bench_code.c — `warpbench bench code [--n KIB]`: the programming
 * labs' harness measured against what it should match, in one run: the
 * copy bandwidth it measures beside memcpy at the same size (issue 29:
 * within ±10 %), at the exercise's size and at 4x the last-level cache,
 * with memcpy through the harness beside (the same buffers: what differs
 * is the kernel); the FP32 FMA peak beside cores x units x lanes x 2 x
 * clock (within ±15 %), the clock measured, and the same on one core; and
 * the harness's own overhead on a kernel of about 1 ms (below 1 %). */
#include "cli/cli.h"
#include "labs/lab.h"

#include <math.h>
#include <stdio.h>

static void json_copy(struct core_json *j, const char *key, const struct lab_code_bench_copy *c)
{
    core_json_key(j, key);
    core_json_obj_begin(j);
    core_json_knum(j, "bytes", c->bytes);
    core_json_knum(j, "copy_gbs", c->copy_gbs);
    core_json_knum(j, "copy_median_gbs", c->copy_median_gbs);
    core_json_knum(j, "memcpy_gbs", c->memcpy_gbs);
    core_json_knum(j, "memcpy_median_gbs", c->memcpy_median_gbs);
    core_json_knum(j, "memcpy_harness_gbs", c->memcpy_harness_gbs);
    core_json_knum(j, "memcpy_harness_median_gbs", c->memcpy_harness_median_gbs);
    core_json_knum(j, "copy_vs_memcpy", c->memcpy_gbs > 0 ? c->copy_gbs / c->memcpy_gbs : NAN);
    core_json_obj_end(j);
}

static void print_copy(const char *what, const struct lab_code_bench_copy *c)
{
    double ratio = c->memcpy_gbs > 0 ? c->copy_gbs / c->memcpy_gbs : NAN;
    printf("  copy %7.0f KiB %s\n", c->bytes / 1024, what);
    printf("    our copy kernel through the harness %7.2f (median %6.2f)   memcpy here %7.2f "
           "(median %6.2f)   ratio %.3f (goal 0.90-1.10)\n",
           c->copy_gbs, c->copy_median_gbs, c->memcpy_gbs, c->memcpy_median_gbs, ratio);
    printf("    memcpy through the harness          %7.2f (median %6.2f)   (the same buffers "
           "as our kernel: they differ by the kernel only)\n",
           c->memcpy_harness_gbs, c->memcpy_harness_median_gbs);
}

int cli_bench_code(struct cli_ctx *cx, int kib)
{
    struct lab_code_bench b;
    struct core_err e = {0};
    if (lab_code_bench_run((double)kib * 1024, &b, &e) != CORE_OK)
        return cli_fail(&e);
    double copy_ratio = b.at_size.memcpy_gbs > 0 ? b.at_size.copy_gbs / b.at_size.memcpy_gbs : NAN;
    double fma_ratio = b.fma_theory_gflops > 0 ? b.fma_gflops / b.fma_theory_gflops : NAN;
    double over = b.kernel_s > 0 ? b.overhead_s / b.kernel_s : NAN;
    if (cx->json) {
        struct core_buf buf;
        struct core_json j;
        cli_json_open(&buf, &j);
        core_json_knum(&j, "size_bytes", b.size_bytes);
        core_json_knum(&j, "copy_gbs", b.at_size.copy_gbs);
        core_json_knum(&j, "memcpy_gbs", b.at_size.memcpy_gbs);
        core_json_knum(&j, "copy_median_gbs", b.at_size.copy_median_gbs);
        core_json_knum(&j, "memcpy_median_gbs", b.at_size.memcpy_median_gbs);
        core_json_knum(&j, "copy_vs_memcpy", copy_ratio);
        json_copy(&j, "at_size", &b.at_size);
        json_copy(&j, "at_big", &b.at_big);
        core_json_knum(&j, "fma_gflops", b.fma_gflops);
        core_json_knum(&j, "fma_theory_gflops", b.fma_theory_gflops);
        core_json_knum(&j, "fma_vs_theory", fma_ratio);
        core_json_knum(&j, "fma1_gflops", b.fma1_gflops);
        core_json_knum(&j, "fma1_theory_gflops", b.fma1_theory_gflops);
        core_json_knum(&j, "clock1_ghz", b.clock1_ghz);
        core_json_kint(&j, "cores", b.cores);
        core_json_kint(&j, "units", b.units);
        core_json_kbool(&j, "units_assumed", b.units_assumed);
        core_json_kint(&j, "lanes", b.lanes);
        core_json_knum(&j, "clock_ghz", b.clock_ghz);
        core_json_kbool(&j, "clock_measured", b.clock_measured);
        core_json_knum(&j, "clock_nominal_ghz", b.clock_nominal_ghz);
        core_json_knum(&j, "kernel_s", b.kernel_s);
        core_json_knum(&j, "overhead_s", b.overhead_s);
        core_json_knum(&j, "overhead_fraction", over);
        core_json_knum(&j, "overhead_median_s", b.overhead_median_s);
        cli_json_close(&buf, &j);
    } else {
        printf("code harness (labs/code/): GB/s count the bytes read and written alike "
               "(2 a byte copied); each figure its best call, the median beside\n");
        print_copy("(the exercise's size)", &b.at_size);
        print_copy("(4x the last-level cache, at most 512 MiB and an eighth of the memory)",
                   &b.at_big);
        printf("  FMA peak %8.1f GFLOP/s on %d cores (best call)   theory %.1f = %d cores x %d "
               "units%s x %d lanes x 2 x %.2f GHz (%s; nominal %.2f)   ratio %.3f (goal "
               "0.85-1.15)\n",
               b.fma_gflops, b.cores, b.fma_theory_gflops, b.cores, b.units,
               b.units_assumed ? " (assumed: no CPUID leaf says)" : "", b.lanes, b.clock_ghz,
               b.clock_measured ? "measured: dependent adds on every core at once"
                                : "not measurable here: the nominal clock",
               b.clock_nominal_ghz, fma_ratio);
        printf(
            "  FMA 1 core %6.1f GFLOP/s (best call)   theory %.1f = 1 core x %d units x %d lanes "
            "x 2 x %.2f GHz (measured alone)   ratio %.3f\n",
            b.fma1_gflops, b.fma1_theory_gflops, b.units, b.lanes, b.clock1_ghz,
            b.fma1_theory_gflops > 0 ? b.fma1_gflops / b.fma1_theory_gflops : NAN);
        printf("  overhead %8.2f us on a %.3f ms kernel = %.2f%% (goal < 1%%); median %.2f us\n",
               b.overhead_s * 1e6, b.kernel_s * 1e3, 100 * over, b.overhead_median_s * 1e6);
    }
    return CLI_EXIT_OK;
}
