/*
 * lab_coalescing_sweep.c — what the GPU and CPU halves of lab "coalescing"
 * (lab_coalescing_gpu.c, lab_coalescing_cpu.c) share: a step of progress, a
 * point of a sweep (its series, its figures at the keyed values) and the
 * largest deviation of a sweep from the model. Below the halves and the
 * lab's driver (lab_coalescing.c), so no two of them call each other.
 *
 * Uses the lab framework (lab_author.h).
 */
#include "labs/coalescing/lab_coalescing.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

bool lab_coal_keyed(int x)
{
    return x == 0 || x == 1 || x == 2 || x == 4 || x == 8 || x == 16 || x == 32;
}

void lab_coal_step(struct coal_run *r, const char *what)
{
    double f = r->points > 0 ? (double)r->done / r->points : 0;
    lab_progress(r->cx, f > 1 ? 1 : f, what);
    r->done++;
}

void lab_coal_dev_reset(struct coal_run *r)
{
    r->dev_max = -1;
    r->dev_at = -1;
}

void lab_coal_dev_figure(struct coal_run *r, const char *prefix, const char *what)
{
    char key[64], label[128];
    if (r->dev_max < 0)
        return;
    snprintf(key, sizeof key, "%s%s_model_maxdev", prefix, what);
    snprintf(label, sizeof label, "largest |measured/model - 1| over the %s sweep", what);
    lab_figure_num(r->cx, key, r->dev_max, "", label);
    snprintf(key, sizeof key, "%s%s_model_maxdev_at", prefix, what);
    snprintf(label, sizeof label, "the %s where it was largest", what);
    lab_figure_num(r->cx, key, r->dev_at, "", label);
}

void lab_coal_point(struct coal_run *r, const char *prefix, const char *what, int x, double gbs,
                    double copy_gbs, double model_frac, double req_frac)
{
    char series[64], key[64], label[128];
    double frac = copy_gbs > 0 ? gbs / copy_gbs : NAN;
    const char *dev = *prefix ? "CPU" : "GPU";
    snprintf(series, sizeof series, "%s_gbs", what);
    lab_emit(r->cx, series, x, gbs);
    snprintf(series, sizeof series, "%s_model_gbs", what);
    lab_emit(r->cx, series, x, model_frac * copy_gbs);
    if (isfinite(req_frac)) {
        snprintf(series, sizeof series, "%s_req_gbs", what);
        lab_emit(r->cx, series, x, req_frac * copy_gbs);
    }
    if (strcmp(what, "stride") == 0) {
        lab_emit(r->cx, "stride_frac", x, frac);
        lab_emit(r->cx, "stride_model_frac", x, model_frac);
    }
    if (isfinite(frac) && model_frac > 0) {
        double d = fabs(frac / model_frac - 1);
        if (d > r->dev_max) {
            r->dev_max = d;
            r->dev_at = x;
        }
    }
    if (!lab_coal_keyed(x))
        return;
    snprintf(key, sizeof key, "%s%s%d_gbs", prefix, what, x);
    snprintf(label, sizeof label, "%s copy at %s %d (floats)", dev, what, x);
    lab_figure_num(r->cx, key, gbs, "GB/s", label);
    snprintf(key, sizeof key, "%s%s%d_frac_copy", prefix, what, x);
    snprintf(label, sizeof label, "%s %d as a fraction of the %s copy", what, x, dev);
    lab_figure_num(r->cx, key, frac, "", label);
    if (*prefix) {
        snprintf(key, sizeof key, "%smodel_frac_%s%d", prefix, what, x);
        snprintf(label, sizeof label, "model (64 B lines) for %s %d", what, x);
        lab_figure_num(r->cx, key, model_frac, "", label);
    }
}
