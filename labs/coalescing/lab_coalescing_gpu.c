/*
 * lab_coalescing_gpu.c — the coalescing lab on a GPU: the ladder of copies
 * and transposes against cudaMemcpy, then the offset and stride sweeps
 * against the warp transaction model. The kernels, their timing and their
 * correctness checks live in kernels/kern_cuda_coalesce.cu; this file
 * decides what to run, reports it and turns it into figures.
 *
 * The sweeps run with the L2 fetch granularity hinted down to one 32-byte
 * sector (cudaLimitMaxL2FetchGranularity; the device may ignore it, and
 * the figure l2_fetch_bytes says what it took), so a strided read moves the
 * sectors the model counts and not their neighbours as well. Each sweep is
 * divided by its own first point (offset 0, stride 1: the plain copy)
 * measured under that same hint, not by the ladder's copy measured before
 * it was set. Closing the session restores the value found.
 */
#include "labs/coalescing/lab_coalescing.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static bool coal_stop(void *ud)
{
    return lab_cancelled(ud);
}

/* The ladder, in the order it runs (memcpy and copy first: the key figure
 * is their ratio). */
static const int ladder[] = {KERN_COAL_MEMCPY,           KERN_COAL_COPY,
                             KERN_COAL_COPY16,           KERN_COAL_SMEM_COPY,
                             KERN_COAL_TRANSPOSE_PADDED, KERN_COAL_TRANSPOSE_TILED,
                             KERN_COAL_TRANSPOSE_NAIVE};
#define N_LADDER ((int)(sizeof ladder / sizeof ladder[0]))

static const char *const ladder_label[KERN_COAL_N_KINDS] = {
    [KERN_COAL_MEMCPY] = "cudaMemcpy device to device",
    [KERN_COAL_COPY16] = "copy, 16 B per thread",
    [KERN_COAL_COPY] = "copy, 4 B per thread",
    [KERN_COAL_SMEM_COPY] = "copy through a shared 32x32 tile",
    [KERN_COAL_TRANSPOSE_NAIVE] = "naive transpose",
    [KERN_COAL_TRANSPOSE_TILED] = "tiled transpose 32x32",
    [KERN_COAL_TRANSPOSE_PADDED] = "padded transpose 32x33",
};

static int coal_measure(struct coal_run *r, struct kern_coal *s, int kind, int param,
                        struct kern_coal_meas *m, struct core_err *err)
{
    int rc = kern_coal_measure(s, kind, param, r->reps, m, err);
    if (rc == CORE_ERR_CANCELLED || lab_cancelled(r->cx))
        return core_err_set(err, CORE_ERR_CANCELLED, "cancelled");
    return rc;
}

static void frac_fig(struct lab_ctx *cx, const char *key, double num, double den, const char *label)
{
    if (num > 0 && den > 0)
        lab_figure_num(cx, key, num / den, "", label);
}

static int coal_ladder(struct coal_run *r, struct kern_coal *s, const struct kern_device *d,
                       double *copy_gbs, struct core_err *err)
{
    struct lab_ctx *cx = r->cx;
    double g[KERN_COAL_N_KINDS] = {0};
    char what[96], key[64];
    int rc;

    for (int i = 0; i < N_LADDER; i++) {
        int k = ladder[i];
        struct kern_coal_meas m;
        snprintf(what, sizeof what, "%s", ladder_label[k]);
        lab_coal_step(r, what);
        if ((rc = coal_measure(r, s, k, 0, &m, err)) != 0)
            return rc;
        g[k] = m.gbs;
        lab_repeat_range(cx, ladder_label[k], "ms", m.ms_min, m.ms_median, m.ms_max, m.reps);
        lab_emit(cx, "ladder_gbs", i + 1, m.gbs);
        lab_log(cx, LAB_LOG_INFO,
                "%d %-32s %7.1f GB/s  (median %.3f ms of %d, min %.3f, max %.3f; output checked)",
                i + 1, ladder_label[k], m.gbs, m.ms_median, m.reps, m.ms_min, m.ms_max);
        if (k == KERN_COAL_COPY) {
            frac_fig(cx, "copy_frac_memcpy", g[KERN_COAL_COPY], g[KERN_COAL_MEMCPY],
                     "copy kernel (4 B) / cudaMemcpy");
            lab_figure_num(cx, "copy_gbs", g[KERN_COAL_COPY], "GB/s",
                           "copy kernel, 4 B per thread");
            lab_figure_num(cx, "memcpy_gbs", g[KERN_COAL_MEMCPY], "GB/s",
                           "cudaMemcpy device to device");
        } else if (k != KERN_COAL_MEMCPY) {
            snprintf(key, sizeof key, "%s_gbs", kern_coal_kind_name(k));
            lab_figure_num(cx, key, m.gbs, "GB/s", ladder_label[k]);
        }
    }
    double copy = g[KERN_COAL_COPY], mc = g[KERN_COAL_MEMCPY];
    frac_fig(cx, "copy16_frac_memcpy", g[KERN_COAL_COPY16], mc, "copy kernel (16 B) / cudaMemcpy");
    for (int i = 0; i < N_LADDER; i++) {
        int k = ladder[i];
        if (k == KERN_COAL_MEMCPY || k == KERN_COAL_COPY)
            continue;
        char label[128];
        snprintf(key, sizeof key, "%s_frac_copy", kern_coal_kind_name(k));
        snprintf(label, sizeof label, "%s / copy kernel (4 B)", ladder_label[k]);
        frac_fig(cx, key, g[k], copy, label);
    }
    frac_fig(cx, "transpose_padded_frac_smem", g[KERN_COAL_TRANSPOSE_PADDED],
             g[KERN_COAL_SMEM_COPY], "padded transpose / shared-memory copy");
    if (g[KERN_COAL_TRANSPOSE_TILED] > 0)
        lab_figure_num(cx, "padded_over_tiled",
                       g[KERN_COAL_TRANSPOSE_PADDED] / g[KERN_COAL_TRANSPOSE_TILED], "×",
                       "padded transpose / tiled (unpadded) transpose");
    if (g[KERN_COAL_TRANSPOSE_NAIVE] > 0)
        lab_figure_num(cx, "padded_over_naive",
                       g[KERN_COAL_TRANSPOSE_PADDED] / g[KERN_COAL_TRANSPOSE_NAIVE], "×",
                       "padded transpose / naive transpose");
    if (d->peak_gbs > 0) {
        frac_fig(cx, "copy_frac_peak", copy, d->peak_gbs, "copy kernel / peak from clock and bus");
        frac_fig(cx, "memcpy_frac_peak", mc, d->peak_gbs, "cudaMemcpy / peak from clock and bus");
    }
    double ds = kern_datasheet_gbs(d->name);
    if (ds > 0) {
        lab_figure_num(cx, "datasheet_gbs", ds, "GB/s", "the device's datasheet bandwidth");
        frac_fig(cx, "copy_frac_datasheet", copy, ds, "copy kernel / datasheet bandwidth");
        frac_fig(cx, "memcpy_frac_datasheet", mc, ds, "cudaMemcpy / datasheet bandwidth");
    }
    lab_log(cx, LAB_LOG_INFO,
            "copy / cudaMemcpy %.3f; padded transpose / copy %.3f, tiled %.3f, naive %.3f",
            mc > 0 ? copy / mc : 0, copy > 0 ? g[KERN_COAL_TRANSPOSE_PADDED] / copy : 0,
            copy > 0 ? g[KERN_COAL_TRANSPOSE_TILED] / copy : 0,
            copy > 0 ? g[KERN_COAL_TRANSPOSE_NAIVE] / copy : 0);
    *copy_gbs = copy;
    return 0;
}

/* One sweep ("offset" 0..max or "stride" 1..max) beside the model, as
 * fractions of its own first point (offset 0 or stride 1: the copy, under
 * the sweeps' L2 fetch hint). */
static int coal_sweep(struct coal_run *r, struct kern_coal *s, int kind, struct core_err *err)
{
    bool off = kind == KERN_COAL_OFFSET;
    const char *what = off ? "offset" : "stride";
    int lo = off ? 0 : 1, hi = off ? r->offset_max : r->stride_max;
    char step[64];
    double copy_gbs = 0;
    int rc;

    lab_coal_dev_reset(r);
    for (int x = lo; x <= hi; x++) {
        struct kern_coal_meas m;
        snprintf(step, sizeof step, "%s %d", what, x);
        lab_coal_step(r, step);
        if ((rc = coal_measure(r, s, kind, x, &m, err)) != 0)
            return rc;
        if (x == lo) {
            copy_gbs = m.gbs;
            if (!(copy_gbs > 0))
                return core_err_set(err, CORE_ERR_INTERNAL, "%s %d measured no bandwidth", what, x);
            lab_log(r->cx, LAB_LOG_INFO,
                    "%s sweep: fractions of %s %d, %.1f GB/s under the same L2 fetch hint", what,
                    what, x, copy_gbs);
        }
        struct kern_access a = kern_access_gpu(off ? x : 0, off ? 1 : x);
        double model = kern_copy_fraction_stream(&a, 1);
        double req = off ? kern_copy_fraction_request(&a, 1) : NAN;
        lab_coal_point(r, "", what, x, m.gbs, copy_gbs, model, req);
        if (off)
            lab_log(r->cx, LAB_LOG_INFO,
                    "offset %2d: %7.1f GB/s = %.3f of copy; model %.3f (traffic), %.3f (requests)",
                    x, m.gbs, m.gbs / copy_gbs, model, req);
        else
            lab_log(r->cx, LAB_LOG_INFO, "stride %2d: %7.1f GB/s = %.3f of copy; model %.3f", x,
                    m.gbs, m.gbs / copy_gbs, model);
    }
    lab_coal_dev_figure(r, "", what);
    return 0;
}

int lab_coal_run_gpu(struct coal_run *r, struct core_err *err)
{
    struct lab_ctx *cx = r->cx;
    struct kern_coal *s = NULL;
    struct kern_coal_info in;
    struct kern_coal_opts o = {
        .bytes = r->gpu_mib << 20, .seed = r->seed, .stop = coal_stop, .ud = cx};
    const struct kern_device *d = &in.dev;
    double copy_gbs = 0;
    struct core_err e2;
    int rc, got = -1;

    r->points = N_LADDER + (r->offset_max + 1) + r->stride_max + 1;
    lab_coal_step(r, "random input to the GPU");
    r->gpu_opened = false;
    if ((rc = kern_coal_open(&s, &o, &in, err)) != 0) {
        if (rc == CORE_ERR_CANCELLED || lab_cancelled(cx))
            return core_err_set(err, CORE_ERR_CANCELLED, "cancelled");
        return rc;
    }
    r->gpu_opened = true;
    double l2 = (double)d->l2_bytes;
    lab_log(cx, LAB_LOG_INFO,
            "%s (compute %d.%d, %d SMs): L2 %.0f MiB, %d-bit memory bus, peak %.0f GB/s "
            "(from clock and bus)",
            d->name, d->cc_major, d->cc_minor, d->sm_count, l2 / 1048576.0, d->bus_width_bits,
            d->peak_gbs);
    lab_log(cx, LAB_LOG_INFO,
            "buffers 2 x %lld MiB (%.1f x L2), transposes %d x %d floats, %d timed launches per "
            "kernel (median), random input seed %llu",
            in.buf_bytes >> 20, l2 > 0 ? (double)in.buf_bytes / l2 : 0, in.side, in.side, r->reps,
            (unsigned long long)r->seed);
    if (l2 > 0 && (double)in.buf_bytes < 2 * l2)
        lab_log(cx, LAB_LOG_WARN,
                "the buffers (%lld MiB) are less than twice the L2 (%.0f MiB): much of them stays "
                "cached, so this measures the L2, not device memory",
                in.buf_bytes >> 20, l2 / 1048576.0);

    if ((rc = coal_ladder(r, s, d, &copy_gbs, err)) != 0)
        goto out;
    if (!(copy_gbs > 0)) {
        rc = core_err_set(err, CORE_ERR_INTERNAL, "the copy kernel measured no bandwidth");
        goto out;
    }
    if (kern_coal_set_l2_fetch(s, 32, &got, &e2) != 0)
        lab_log(cx, LAB_LOG_WARN, "cannot hint the L2 fetch granularity to 32 B (%s)", e2.msg);
    else
        lab_log(cx, LAB_LOG_INFO,
                "sweeps: L2 fetch granularity hinted to 32 B, the device took %d B (was %d B)", got,
                in.l2_fetch_bytes);
    if ((rc = coal_sweep(r, s, KERN_COAL_OFFSET, err)) != 0)
        goto out;
    if ((rc = coal_sweep(r, s, KERN_COAL_STRIDE, err)) != 0)
        goto out;

    lab_figure_str(cx, "gpu_name", d->name, "GPU");
    lab_figure_num(cx, "gpu_cc", d->cc_major + d->cc_minor / 10.0, "", "compute capability");
    lab_figure_num(cx, "gpu_sms", d->sm_count, "", "streaming multiprocessors");
    lab_figure_num(cx, "gpu_l2_bytes", l2, "B", "L2 cache");
    lab_figure_num(cx, "gpu_bus_bits", d->bus_width_bits, "bit", "memory bus width");
    lab_figure_num(cx, "gpu_peak_gbs", d->peak_gbs, "GB/s",
                   "peak bandwidth from memory clock and bus (0: unknown)");
    lab_figure_num(cx, "gpu_buf_mib", (double)(in.buf_bytes >> 20), "MiB", "each GPU buffer");
    if (l2 > 0)
        lab_figure_num(cx, "gpu_buf_l2", (double)in.buf_bytes / l2, "×", "buffer size / L2 size");
    lab_figure_num(cx, "transpose_side", in.side, "", "transposes: side x side floats");
    lab_figure_num(cx, "l2_fetch_bytes", got, "B",
                   "L2 fetch granularity during the sweeps (-1: unknown)");
    lab_figure_num(cx, "reps", r->reps, "", "timed launches per kernel");
    rc = 0;
out:
    kern_coal_close(s);
    return rc;
}
