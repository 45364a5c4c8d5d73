/* cli_cmd_bench_code.c — `warpbench bench code [--n KIB]`: the programming
 * labs' harness measured against what it should match, in one run: the
 * copy bandwidth it measures beside memcpy at the same size (issue 29:
 * within ±10 %), the FP32 FMA peak beside cores x units x lanes x 2 x clock
 * (within ±15 %), and its own overhead on a kernel of about 1 ms (below
 * 1 %). */
#include "cli/cli.h"
#include "labs/lab.h"

#include <math.h>
#include <stdio.h>

int cli_bench_code(struct cli_ctx *cx, int kib)
{
    struct lab_code_bench b;
    struct core_err e = {0};
    if (lab_code_bench_run((double)kib * 1024, &b, &e) != CORE_OK)
        return cli_fail(&e);
    double copy_ratio = b.memcpy_gbs > 0 ? b.copy_gbs / b.memcpy_gbs : NAN;
    double fma_ratio = b.fma_theory_gflops > 0 ? b.fma_gflops / b.fma_theory_gflops : NAN;
    double over = b.kernel_s > 0 ? b.overhead_s / b.kernel_s : NAN;
    if (cx->json) {
        struct core_buf buf;
        struct core_json j;
        cli_json_open(&buf, &j);
        core_json_knum(&j, "size_bytes", b.size_bytes);
        core_json_knum(&j, "copy_gbs", b.copy_gbs);
        core_json_knum(&j, "memcpy_gbs", b.memcpy_gbs);
        core_json_knum(&j, "copy_median_gbs", b.copy_median_gbs);
        core_json_knum(&j, "memcpy_median_gbs", b.memcpy_median_gbs);
        core_json_knum(&j, "copy_vs_memcpy", copy_ratio);
        core_json_knum(&j, "fma_gflops", b.fma_gflops);
        core_json_knum(&j, "fma_theory_gflops", b.fma_theory_gflops);
        core_json_knum(&j, "fma_vs_theory", fma_ratio);
        core_json_kint(&j, "cores", b.cores);
        core_json_kint(&j, "units", b.units);
        core_json_kint(&j, "lanes", b.lanes);
        core_json_knum(&j, "clock_ghz", b.clock_ghz);
        core_json_knum(&j, "kernel_s", b.kernel_s);
        core_json_knum(&j, "overhead_s", b.overhead_s);
        core_json_knum(&j, "overhead_fraction", over);
        core_json_knum(&j, "overhead_median_s", b.overhead_median_s);
        cli_json_close(&buf, &j);
    } else {
        printf("code harness (labs/code/), %d KiB working set\n", kib);
        printf("  copy     %8.2f GB/s through the harness   memcpy here %8.2f GB/s   ratio %.3f "
               "(goal 0.90-1.10)\n",
               b.copy_gbs, b.memcpy_gbs, copy_ratio);
        printf("           (best calls; the medians: %.2f and %.2f GB/s)\n", b.copy_median_gbs,
               b.memcpy_median_gbs);
        printf("  FMA peak %8.1f GFLOP/s on %d cores       theory %.1f = %d cores x %d units x "
               "%d lanes x 2 x %.2f GHz   ratio %.3f (goal 0.85-1.15)\n",
               b.fma_gflops, b.cores, b.fma_theory_gflops, b.cores, b.units, b.lanes, b.clock_ghz,
               fma_ratio);
        printf("  overhead %8.2f us on a %.3f ms kernel = %.2f%% (goal < 1%%); median %.2f us\n",
               b.overhead_s * 1e6, b.kernel_s * 1e3, 100 * over, b.overhead_median_s * 1e6);
    }
    return CLI_EXIT_OK;
}
