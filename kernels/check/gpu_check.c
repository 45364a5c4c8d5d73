/*
 * gpu_check.c — the coalescing kernels' check a developer runs on a GPU
 * machine in one call (scripts/gpu-check.sh builds it with nvcc from the C
 * files of core/, the kern_ C and CUDA files of kernels/ and this file
 * alone: no CMake, SQLite, Lua, curses or cmocka needed).
 *
 * It runs every kernel of the coalescing lab (each output checked element
 * by element against the CPU reference inside kern_coal_measure), then
 * prints the device, the ladder in GB/s and as fractions of the copy
 * kernel, of cudaMemcpy and of the datasheet bandwidth, the offset and
 * stride sweeps beside the model, and the goals as met or missed.
 *
 * Exit status: 0 every kernel correct (goals are reported, not enforced,
 * unless --strict); 1 a kernel failed or wrote a wrong value; 2 usage;
 * 3 --strict and a goal missed; 77 no GPU (the line says why).
 *
 * Not named kern_*.c on purpose: CMake's glob must not build it into the
 * kernels library.
 */
#include "kernels/kernels.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GOAL_COPY_MEMCPY 0.95
#define GOAL_COPY_DATASHEET 0.85
#define GOAL_PADDED_COPY 0.90
#define GOAL_MODEL_DEV 0.20

static void usage(FILE *f)
{
    fprintf(f, "usage: gpu_check [--mib N] [--reps N] [--datasheet-gbs X] [--strict]\n"
               "  --mib N            each of the two buffers, MiB (default: 8 x the L2,\n"
               "                     at least 1024)\n"
               "  --reps N           timed launches per kernel, median (default 50)\n"
               "  --datasheet-gbs X  the device's datasheet bandwidth (default: known\n"
               "                     devices only, e.g. 4800 for an H200)\n"
               "  --strict           exit 3 when a goal is missed\n");
}

static int fail_kernel(const struct core_err *e)
{
    printf("\nFAILED: %s\n", e->msg);
    return 1;
}

static const char *mark(bool ok)
{
    return ok ? "met   " : "MISSED";
}

int main(int argc, char **argv)
{
    long long mib = 0;
    int reps = 50;
    double datasheet = -1;
    bool strict = false;
    for (int i = 1; i < argc; i++) {
        char *end = NULL;
        if (strcmp(argv[i], "--mib") == 0 && i + 1 < argc) {
            mib = strtoll(argv[++i], &end, 10);
            if (*end || mib < 1 || mib > (1LL << 20)) {
                fprintf(stderr, "gpu_check: --mib must be a whole number of MiB from 1, not '%s'\n",
                        argv[i]);
                return 2;
            }
        } else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
            long v = strtol(argv[++i], &end, 10);
            if (*end || v < 1 || v > 10000) {
                fprintf(stderr, "gpu_check: --reps must be from 1 to 10000, not '%s'\n", argv[i]);
                return 2;
            }
            reps = (int)v;
        } else if (strcmp(argv[i], "--datasheet-gbs") == 0 && i + 1 < argc) {
            const char *t = argv[++i];
            if (core_num_parse(t, strlen(t), 0, &datasheet, NULL, NULL) != 0 ||
                !(datasheet > 0)) {
                fprintf(stderr, "gpu_check: --datasheet-gbs must be a positive number, not '%s'\n",
                        argv[i]);
                return 2;
            }
        } else if (strcmp(argv[i], "--strict") == 0) {
            strict = true;
        } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "gpu_check: unknown argument '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }

    struct core_err err;
    struct kern_device d;
    core_err_clear(&err);
    if (kern_probe(&d, &err) != 0) {
        printf("gpu_check: %s\n", err.msg);
        return 77;
    }
    if (datasheet < 0)
        datasheet = kern_datasheet_gbs(d.name);

    struct kern_coal *s = NULL;
    struct kern_coal_info in;
    struct kern_coal_opts o = {.bytes = mib << 20, .seed = 20260101};
    if (kern_coal_open(&s, &o, &in, &err) != 0) {
        printf("gpu_check: %s\n", err.msg);
        return 1;
    }
    printf("device      %s, compute %d.%d, %d SMs, %lld MiB\n", d.name, d.cc_major, d.cc_minor,
           d.sm_count, d.global_bytes >> 20);
    printf("L2          %.1f MiB\n", (double)d.l2_bytes / 1048576.0);
    printf("memory bus  %d bits, clock %.0f MHz, peak %.0f GB/s (2 x clock x bus)\n",
           d.bus_width_bits, d.mem_clock_khz / 1000, d.peak_gbs);
    if (datasheet > 0)
        printf("datasheet   %.0f GB/s\n", datasheet);
    else
        printf("datasheet   unknown (give --datasheet-gbs)\n");
    printf("CUDA        driver %d.%d, runtime %d.%d\n", d.driver_version / 1000,
           d.driver_version % 1000 / 10, d.runtime_version / 1000, d.runtime_version % 1000 / 10);
    printf("buffers     2 x %lld MiB = %.1f x L2; transposes %d x %d floats; %d timed launches "
           "per kernel (median), every output checked\n\n",
           in.buf_bytes >> 20, d.l2_bytes > 0 ? (double)in.buf_bytes / (double)d.l2_bytes : 0,
           in.side, in.side, reps);

    static const int ladder[] = {KERN_COAL_MEMCPY,           KERN_COAL_COPY,
                                 KERN_COAL_COPY16,           KERN_COAL_SMEM_COPY,
                                 KERN_COAL_TRANSPOSE_PADDED, KERN_COAL_TRANSPOSE_TILED,
                                 KERN_COAL_TRANSPOSE_NAIVE};
    double g[KERN_COAL_N_KINDS] = {0}, ms[KERN_COAL_N_KINDS] = {0};
    for (size_t i = 0; i < sizeof ladder / sizeof ladder[0]; i++) {
        struct kern_coal_meas m;
        if (kern_coal_measure(s, ladder[i], 0, reps, &m, &err) != 0) {
            kern_coal_close(s);
            return fail_kernel(&err);
        }
        g[ladder[i]] = m.gbs;
        ms[ladder[i]] = m.ms_median;
    }
    double copy = g[KERN_COAL_COPY], mc = g[KERN_COAL_MEMCPY];
    printf("%-18s %9s %9s %9s %9s %9s\n", "kernel", "GB/s", "x copy", "x memcpy", "x datasht",
           "ms");
    for (size_t i = 0; i < sizeof ladder / sizeof ladder[0]; i++) {
        int k = ladder[i];
        printf("%-18s %9.1f %9.3f %9.3f ", kern_coal_kind_name(k), g[k], g[k] / copy, g[k] / mc);
        if (datasheet > 0)
            printf("%9.3f", g[k] / datasheet);
        else
            printf("%9s", "-");
        printf(" %9.4f\n", ms[k]);
    }

    int got = -1;
    if (kern_coal_set_l2_fetch(s, 32, &got, &err) != 0)
        printf("\n(L2 fetch granularity hint not taken: %s)\n", err.msg);
    else
        printf("\nsweeps with the L2 fetch granularity hinted to 32 B: the device took %d B "
               "(was %d B)\n",
               got, in.l2_fetch_bytes);
    /* each sweep as fractions of its own first point (offset 0, stride 1: the
     * copy) measured under the same hint, not of the ladder's copy before it */
    printf("(\"x copy\": of offset 0 / stride 1, measured under the same hint)\n");
    double dev_off = 0, dev_str = 0, base = 0;
    int at_off = 0, at_str = 1;
    printf("\n%-8s %9s %9s %9s %9s %8s\n", "offset", "GB/s", "x copy", "model", "requests",
           "vs model");
    for (int x = 0; x <= KERN_COAL_MAX_OFFSET; x++) {
        struct kern_coal_meas m;
        if (kern_coal_measure(s, KERN_COAL_OFFSET, x, reps, &m, &err) != 0) {
            kern_coal_close(s);
            return fail_kernel(&err);
        }
        struct kern_access a = kern_access_gpu(x, 1);
        if (x == 0)
            base = m.gbs;
        double f = m.gbs / base, model = kern_copy_fraction_stream(&a, 1);
        double dv = f / model - 1;
        if (fabs(dv) > dev_off) {
            dev_off = fabs(dv);
            at_off = x;
        }
        printf("%-8d %9.1f %9.3f %9.3f %9.3f %+7.1f%%\n", x, m.gbs, f, model,
               kern_copy_fraction_request(&a, 1), 100 * dv);
    }
    printf("\n%-8s %9s %9s %9s %9s %8s\n", "stride", "GB/s", "x copy", "model", "sectors",
           "vs model");
    for (int x = 1; x <= KERN_COAL_MAX_STRIDE; x++) {
        struct kern_coal_meas m;
        if (kern_coal_measure(s, KERN_COAL_STRIDE, x, reps, &m, &err) != 0) {
            kern_coal_close(s);
            return fail_kernel(&err);
        }
        struct kern_access a = kern_access_gpu(0, x);
        struct kern_warp_cost c;
        kern_warp_cost(&a, &c, NULL);
        if (x == 1)
            base = m.gbs;
        double f = m.gbs / base, model = kern_copy_fraction_stream(&a, 1);
        double dv = f / model - 1;
        if (fabs(dv) > dev_str) {
            dev_str = fabs(dv);
            at_str = x;
        }
        printf("%-8d %9.1f %9.3f %9.3f %9d %+7.1f%%\n", x, m.gbs, f, model, c.sectors, 100 * dv);
    }
    kern_coal_close(s);

    printf("\nall %d kernels' outputs matched the CPU reference\n\ngoals (issue 5):\n",
           7 + (KERN_COAL_MAX_OFFSET + 1) + KERN_COAL_MAX_STRIDE);
    bool all = true, ok;
    ok = copy >= GOAL_COPY_MEMCPY * mc;
    all &= ok;
    printf("  %s copy / cudaMemcpy          %.3f (>= %.2f; copy16: %.3f)\n", mark(ok), copy / mc,
           GOAL_COPY_MEMCPY, g[KERN_COAL_COPY16] / mc);
    if (datasheet > 0) {
        ok = copy >= GOAL_COPY_DATASHEET * datasheet;
        all &= ok;
        printf("  %s copy / datasheet           %.3f (>= %.2f; copy16: %.3f)\n", mark(ok),
               copy / datasheet, GOAL_COPY_DATASHEET, g[KERN_COAL_COPY16] / datasheet);
    } else {
        printf("  -      copy / datasheet           unknown device: give --datasheet-gbs\n");
    }
    double pad = g[KERN_COAL_TRANSPOSE_PADDED];
    ok = pad >= GOAL_PADDED_COPY * copy;
    all &= ok;
    printf("  %s padded transpose / copy    %.3f (>= %.2f)\n", mark(ok), pad / copy,
           GOAL_PADDED_COPY);
    ok = g[KERN_COAL_TRANSPOSE_TILED] < pad && g[KERN_COAL_TRANSPOSE_NAIVE] < pad;
    all &= ok;
    printf("  %s tiled, naive below padded  %.3f, %.3f of copy\n", mark(ok),
           g[KERN_COAL_TRANSPOSE_TILED] / copy, g[KERN_COAL_TRANSPOSE_NAIVE] / copy);
    ok = dev_off <= GOAL_MODEL_DEV;
    all &= ok;
    printf("  %s offset curve vs model      worst %.1f%% at offset %d (<= %.0f%%)\n", mark(ok),
           100 * dev_off, at_off, 100 * GOAL_MODEL_DEV);
    ok = dev_str <= GOAL_MODEL_DEV;
    all &= ok;
    printf("  %s stride curve vs model      worst %.1f%% at stride %d (<= %.0f%%)\n", mark(ok),
           100 * dev_str, at_str, 100 * GOAL_MODEL_DEV);
    return strict && !all ? 3 : 0;
}
