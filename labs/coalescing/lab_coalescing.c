/*
 * lab_coalescing.c — lab "coalescing": how the way a warp's threads address
 * memory decides the bandwidth a GPU kernel gets, measured on the GPU when
 * there is one, explained by the warp memory-transaction model everywhere,
 * and mirrored on the CPU when there is no GPU.
 *
 * With a GPU (lab_coalescing_gpu.c, kernels in kernels/kern_cuda_coalesce.cu):
 * the ladder — cudaMemcpy device to device (the ceiling), copies with 4 and
 * 16 bytes per thread, a copy through shared memory, and the padded, tiled
 * and naive transposes — then a copy reading at an element offset 0..32 and
 * one reading with a stride 1..32, each point beside the model's prediction.
 * Every output is checked against the CPU reference on random data.
 *
 * Without one (no CUDA in the build, no driver or one too old, no device, a
 * GPU broken earlier in the process; with device=auto also a GPU whose free
 * memory is too short for the buffers) the lab says so in one line and runs
 * the CPU analog (lab_coalescing_cpu.c): the same
 * copies, offset and stride sweeps over arrays larger than the last-level
 * cache, with the same model set for 64-byte lines, plus memcpy and a naive
 * and a blocked transpose. `device=cpu` runs the analog even with a GPU.
 *
 * Summary figures (what ctx.lab.summary holds; the lesson lists them too):
 *   device                   "gpu" or "cpu": which experiment ran
 *   no_gpu                   why there was no GPU (CPU runs found without one)
 *   model_sectors_strideS    sectors one warp of 4-byte loads touches at stride
 *   model_lines_strideS      S (S = 1, 2, 4, 8, 16, 32): 32-byte sectors,
 *   model_efficiency_strideS 128-byte lines, useful / moved bytes
 *   model_sectors_offsetO    the same at an offset of O floats (1 .. 32)
 *   model_lines_offsetO
 *   model_frac_strideS       predicted bandwidth of the stride-S copy as a
 *                            fraction of the copy (each sector fetched once)
 *   model_frac_offset1, model_req_frac_offset1
 *                            offset 1: memory traffic (1) and per-request
 *                            sectors (5 instead of 4) predictions
 *   model_sectors_copy16, model_lines_copy16   a warp of 16-byte loads
 *   model_bank_ways_32x32, model_bank_ways_32x33
 *                            n-way bank conflict reading a tile column
 * GPU runs:
 *   copy_frac_memcpy (the run's key figure), copy_gbs, copy16_gbs, memcpy_gbs,
 *   copy16_frac_memcpy, smem_copy_gbs, transpose_padded_gbs,
 *   transpose_tiled_gbs, transpose_naive_gbs, and each kernel's _frac_copy
 *   (smem_copy_frac_copy, transpose_padded_frac_copy, ...),
 *   transpose_padded_frac_smem, padded_over_tiled, padded_over_naive;
 *   copy_frac_peak, memcpy_frac_peak (peak from the memory clock and bus),
 *   copy_frac_datasheet, memcpy_frac_datasheet, datasheet_gbs (known devices);
 *   offsetO_gbs, offsetO_frac_copy (O = 0, 1, 2, 4, 8, 16, 32 up to
 *   offset_max), strideS_gbs, strideS_frac_copy (S = 1, 2, 4, ... up to
 *   stride_max); offset_model_maxdev, stride_model_maxdev (largest
 *   |measured/model - 1|) and _maxdev_at; gpu_name, gpu_cc, gpu_sms,
 *   gpu_l2_bytes, gpu_bus_bits, gpu_peak_gbs, gpu_buf_mib, gpu_buf_l2 (buffer
 *   / L2), transpose_side, l2_fetch_bytes, reps.
 * CPU runs: the same with the prefix cpu_: cpu_copy_gbs (key figure),
 *   cpu_memcpy_gbs, cpu_copy_frac_memcpy, cpu_transpose_blocked_gbs,
 *   cpu_transpose_naive_gbs, their _frac_copy, cpu_blocked_over_naive,
 *   cpu_offsetO_gbs, cpu_offsetO_frac_copy, cpu_model_frac_offsetO,
 *   cpu_strideS_gbs, cpu_strideS_frac_copy, cpu_model_frac_strideS,
 *   cpu_offset_model_maxdev, cpu_stride_model_maxdev, cpu_line_bytes,
 *   cpu_llc_bytes, cpu_array_mib, cpu_array_llc, cpu_side, cpu_reps.
 *
 * What the GPU and CPU halves share (progress, a sweep's points and how far
 * they are from the model) is in lab_coalescing_sweep.c, below all three.
 *
 * Uses the lab framework (lab_author.h) and the kernels module (kernels.h: the
 * model, the CPU references, the CUDA session). Runs in the lab's own
 * thread; nothing for lab_run() to clean up but our own buffers.
 */
#include "labs/coalescing/lab_coalescing.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- the model's figures ------------------------------------------------------ */

static void coal_model_figures(struct lab_ctx *cx)
{
    static const int xs[] = {1, 2, 4, 8, 16, 32};
    char key[64], label[128];
    struct kern_warp_cost c;
    for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++) {
        struct kern_access a = kern_access_gpu(0, xs[i]);
        kern_warp_cost(&a, &c, NULL);
        snprintf(key, sizeof key, "model_sectors_stride%d", xs[i]);
        snprintf(label, sizeof label, "model: 32-byte sectors per warp of floats at stride %d",
                 xs[i]);
        lab_figure_num(cx, key, c.sectors, "", label);
        snprintf(key, sizeof key, "model_lines_stride%d", xs[i]);
        snprintf(label, sizeof label, "model: 128-byte lines per warp at stride %d", xs[i]);
        lab_figure_num(cx, key, c.lines, "", label);
        snprintf(key, sizeof key, "model_efficiency_stride%d", xs[i]);
        snprintf(label, sizeof label, "model: useful / moved bytes of a warp at stride %d", xs[i]);
        lab_figure_num(cx, key, c.efficiency, "", label);
        snprintf(key, sizeof key, "model_frac_stride%d", xs[i]);
        snprintf(label, sizeof label, "model: stride-%d copy as a fraction of the copy", xs[i]);
        lab_figure_num(cx, key, kern_copy_fraction_stream(&a, 1), "", label);
    }
    for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++) {
        struct kern_access a = kern_access_gpu(xs[i], 1);
        kern_warp_cost(&a, &c, NULL);
        snprintf(key, sizeof key, "model_sectors_offset%d", xs[i]);
        snprintf(label, sizeof label, "model: sectors per warp of floats at offset %d", xs[i]);
        lab_figure_num(cx, key, c.sectors, "", label);
        snprintf(key, sizeof key, "model_lines_offset%d", xs[i]);
        snprintf(label, sizeof label, "model: lines per warp at offset %d", xs[i]);
        lab_figure_num(cx, key, c.lines, "", label);
    }
    struct kern_access o1 = kern_access_gpu(1, 1);
    lab_figure_num(cx, "model_frac_offset1", kern_copy_fraction_stream(&o1, 1), "",
                   "model: offset-1 copy / copy, counting memory traffic");
    lab_figure_num(cx, "model_req_frac_offset1", kern_copy_fraction_request(&o1, 1), "",
                   "model: offset-1 copy / copy, counting each warp's sectors");
    struct kern_access v = kern_access_gpu(0, 1);
    v.elem_bytes = 16;
    kern_warp_cost(&v, &c, NULL);
    lab_figure_num(cx, "model_sectors_copy16", c.sectors, "",
                   "model: sectors per warp of 16-byte loads");
    lab_figure_num(cx, "model_lines_copy16", c.lines, "", "model: lines per warp of 16-byte loads");
    lab_figure_num(cx, "model_bank_ways_32x32", kern_bank_ways(32, 32, 32), "",
                   "model: bank conflict reading a column of float tile[32][32]");
    lab_figure_num(cx, "model_bank_ways_32x33", kern_bank_ways(33, 32, 32), "",
                   "model: bank conflict reading a column of float tile[32][33]");
}

/* ---- parameters and checks ------------------------------------------------------ */

static double mem_mib(const struct lab_machine *m)
{
    return m->mem_bytes > 0 ? (double)m->mem_bytes / 1048576.0 : 0;
}

/* Two arrays of `mib` each must leave the machine room: a quarter of its
 * memory at most (touching more than there is gets the process killed,
 * not an error anyone could read). */
static int coal_host_fits(const char *param, double mib, const struct lab_machine *m,
                          struct core_err *err)
{
    double have = mem_mib(m);
    if (have > 0 && 2 * mib > have / 2)
        return core_err_set(err, CORE_ERR_INVALID,
                            "coalescing: parameter '%s' (%.0f MiB) is too large: two arrays of it "
                            "need %.0f MiB, and at most half of this machine's memory (%.0f MiB) "
                            "may be used",
                            param, mib, 2 * mib, have / 2);
    return 0;
}

static int coal_check_with(const struct lab_params *p, const struct lab_machine *m,
                           struct core_err *err)
{
    const char *device = lab_param_str(p, "device");
    struct kern_device d;
    struct core_err why;
    core_err_clear(&why);
    bool gpu = kern_probe(&d, &why) == 0;
    if (strcmp(device, "gpu") == 0 && !gpu)
        return core_err_set(err, CORE_ERR_INVALID,
                            "coalescing: parameter 'device' is gpu, but %s (use device=auto or "
                            "device=cpu for the CPU analog)",
                            why.msg);
    bool on_gpu = gpu && strcmp(device, "cpu") != 0;
    double gpu_mib = lab_param_num(p, "gpu_mib");
    if (on_gpu && gpu_mib > 0) {
        double have = (double)d.global_bytes / 1048576.0;
        if (2 * gpu_mib > have / 2)
            return core_err_set(err, CORE_ERR_INVALID,
                                "coalescing: parameter 'gpu_mib' (%.0f MiB) is too large: two "
                                "buffers need %.0f MiB, more than half of the %.0f MiB on %s",
                                gpu_mib, 2 * gpu_mib, have, d.name);
        return coal_host_fits("gpu_mib", gpu_mib, m, err);
    }
    if (!on_gpu)
        return coal_host_fits("cpu_mib", lab_param_num(p, "cpu_mib"), m, err);
    return 0;
}

static int coal_check(const struct lab_params *p, struct core_err *err)
{
    struct lab_machine m;
    lab_machine_probe(&m);
    return coal_check_with(p, &m, err);
}

/* Twice the last-level cache per array (in + out: four times it), 16 to
 * 256 MiB, at most a sixteenth of RAM each. */
static double coal_default_cpu_mib(void)
{
    struct lab_machine m;
    lab_machine_probe(&m);
    long llc = m.l3_bytes > 0 ? m.l3_bytes : m.l2_bytes;
    double mib = llc > 0 ? 2.0 * (double)llc / 1048576.0 : 64;
    if (mib < 16)
        mib = 16;
    if (mib > 256)
        mib = 256;
    if (m.mem_bytes > 0 && mib > (double)m.mem_bytes / 16 / 1048576.0)
        mib = floor((double)m.mem_bytes / 16 / 1048576.0);
    return mib < 1 ? 1 : ceil(mib);
}

/* ---- the run -------------------------------------------------------------------- */

static int coal_run_lab(struct lab_ctx *cx, struct core_err *err)
{
    const struct lab_params *pp = lab_ctx_params(cx);
    const char *device = lab_param_str(pp, "device");
    struct coal_run r = {.cx = cx, .clk = lab_ctx_clock(cx)};
    struct core_err why;
    int rc;

    if (!r.clk)
        r.clk = core_clock_real();
    r.offset_max = (int)lab_param_num(pp, "offset_max");
    r.stride_max = (int)lab_param_num(pp, "stride_max");
    r.reps = (int)lab_param_num(pp, "reps");
    r.gpu_mib = (long long)lab_param_num(pp, "gpu_mib");
    r.cpu_mib = (int)lab_param_num(pp, "cpu_mib");
    r.cpu_reps = (int)lab_param_num(pp, "cpu_reps");
    r.seed = ((uint64_t)(core_time_wall() * 1e6)) ^ ((uint64_t)getpid() << 40);
    if ((rc = coal_check_with(pp, lab_ctx_machine(cx), err)) != 0)
        return rc;

    core_err_clear(&why);
    bool gpu = strcmp(device, "cpu") != 0 && kern_probe(NULL, &why) == 0;
    if (gpu) {
        struct core_err gerr;
        core_err_clear(&gerr);
        rc = lab_coal_run_gpu(&r, &gerr);
        /* device=auto: a GPU whose session cannot be opened (its memory is
         * short, or it failed) is no GPU for this run, as k-means does */
        if (rc != 0 && rc != CORE_ERR_CANCELLED && !r.gpu_opened && strcmp(device, "auto") == 0) {
            core_err_set(&why, rc, "no GPU: %s%s",
                         rc == CORE_ERR_LIMIT ? "its memory is short: " : "", gerr.msg);
            gpu = false;
            r.done = 0;
        } else if (rc != 0) {
            return core_err_set(err, rc, "%s", gerr.msg);
        }
    }
    if (!gpu) {
        if (strcmp(device, "cpu") == 0)
            lab_log(cx, LAB_LOG_INFO, "device=cpu: running the model and the CPU analog");
        else
            lab_log(cx, LAB_LOG_NOTE, "%s — running the model and the CPU analog", why.msg);
        rc = lab_coal_run_cpu(&r, err);
        if (rc == 0 && strcmp(device, "cpu") != 0)
            lab_figure_str(cx, "no_gpu", why.msg, "why the GPU part did not run");
    }
    if (rc != 0)
        return rc;
    lab_figure_str(cx, "device", gpu ? "gpu" : "cpu", "where the kernels ran");
    coal_model_figures(cx);
    lab_progress(cx, 1, "done");
    return 0;
}

static const struct lab_param_def coal_params[] = {
    {"device", LAB_P_ENUM, "auto", NULL, 0, 0, "auto|gpu|cpu", "",
     "auto: the GPU when one can be used (its buffers fit), else the CPU analog; gpu: fail "
     "without one"},
    {"offset_max", LAB_P_INT, "32", NULL, 0, KERN_COAL_MAX_OFFSET, NULL, "floats",
     "offset sweep: read starting 0 to this many floats past a line"},
    {"stride_max", LAB_P_INT, "32", NULL, 1, KERN_COAL_MAX_STRIDE, NULL, "floats",
     "stride sweep: read every 1st to every this-many-th float"},
    {"reps", LAB_P_INT, "30", NULL, 3, 1000, NULL, "",
     "GPU: timed launches per kernel (the median counts)"},
    {"gpu_mib", LAB_P_INT, "0", NULL, 0, 65536, NULL, "MiB",
     "GPU: each of the two buffers (0: 8 x the GPU's L2, at least 1 GiB)"},
    {"cpu_mib", LAB_P_INT, NULL, coal_default_cpu_mib, 1, 4096, NULL, "MiB",
     "CPU analog: each of the two arrays (default: 2 x the last-level cache)"},
    {"cpu_reps", LAB_P_INT, "3", NULL, 1, 50, NULL, "",
     "CPU analog: timed passes per point (the fastest counts)"},
};

static const struct lab_series_def coal_series[] = {
    {"offset_gbs", "measured", "GB/s", "offset", "offset (floats)"},
    {"offset_model_gbs", "model: traffic", "GB/s", "offset", "offset (floats)"},
    {"offset_req_gbs", "model: requests", "GB/s", "offset", "offset (floats)"},
    {"stride_gbs", "measured", "GB/s", "stride", "stride (floats)"},
    {"stride_model_gbs", "model", "GB/s", "stride", "stride (floats)"},
    {"stride_frac", "measured", "× copy", "stride_frac", "stride (floats)"},
    {"stride_model_frac", "model", "× copy", "stride_frac", "stride (floats)"},
    {"ladder_gbs", "GB/s", "GB/s", "ladder", "kernel # (see log)"},
};

static const struct lab_chart_def coal_charts[] = {
    {"offset", "copy against offset", false},
    {"stride", "copy against stride", true},
    {"stride_frac", "strided copy over plain copy", true},
    {"ladder", "kernel ladder (names in the log)", false},
};

const struct lab_def lab_coal_def = {
    .name = "coalescing",
    .title = "Memory coalescing on the GPU",
    .summary = "copy, offset and stride sweeps and three transposes against cudaMemcpy, beside "
               "the warp transaction model; a CPU analog without a GPU",
    .params = coal_params,
    .n_params = sizeof coal_params / sizeof coal_params[0],
    .series = coal_series,
    .n_series = sizeof coal_series / sizeof coal_series[0],
    .check = coal_check,
    .run = coal_run_lab,
    .charts = coal_charts,
    .n_charts = sizeof coal_charts / sizeof coal_charts[0],
};
