/*
 * lab_coalescing.h — what the three files of the coalescing lab share
 * (lab_coalescing.c: definition, parameters, model figures;
 * lab_coalescing_gpu.c: the CUDA kernels; lab_coalescing_cpu.c: the CPU
 * analog). Internal to those files.
 */
#ifndef WB_LAB_COALESCING_H
#define WB_LAB_COALESCING_H

#include "kernels/kernels.h"
#include "labs/lab_author.h"

/* The lab's definition: one row of the registry (core/lab_registry.c), and
 * the only symbol of this folder the rest of labs/ uses. */
extern const struct lab_def lab_coal_def;

struct coal_run {
    struct lab_ctx *cx;
    const struct core_clock *clk;
    int offset_max, stride_max;
    int reps;          /* GPU: timed launches per kernel */
    long long gpu_mib; /* 0: automatic */
    int cpu_mib, cpu_reps;
    uint64_t seed;    /* of the random input */
    int points, done; /* progress, in measurements */
    /* a sweep's worst agreement with the model */
    double dev_max;
    int dev_at;
    bool gpu_opened; /* lab_coal_run_gpu got its session: a later failure is the run's */
};

/* Sweep points that also get summary figures (the rest are series only). */
bool lab_coal_keyed(int x);

/* Moves the progress bar one measurement on, saying what comes next. */
void lab_coal_step(struct coal_run *r, const char *what);

/* Records one point of a sweep (`what` is "offset" or "stride", x its
 * value): the series `what`_gbs, `what`_model_gbs (and `what`_req_gbs when
 * req_frac is finite) and, for strides, stride_frac and stride_model_frac;
 * for keyed points the figures <prefix><what><x>_gbs and _frac_copy, and
 * for the CPU (prefix "cpu_") cpu_model_frac_<what><x>. Updates
 * r->dev_max with |measured / model - 1|. */
void lab_coal_point(struct coal_run *r, const char *prefix, const char *what, int x, double gbs,
                    double copy_gbs, double model_frac, double req_frac);

/* Starts a sweep's deviation tracking; lab_coal_dev_figure records it as
 * <prefix><what>_model_maxdev and _maxdev_at. */
void lab_coal_dev_reset(struct coal_run *r);
void lab_coal_dev_figure(struct coal_run *r, const char *prefix, const char *what);

/* The two experiments. 0, CORE_ERR_CANCELLED, or an error with err set
 * (lab_coal_run_gpu: with r->gpu_opened false when the GPU session could not be
 * opened, nothing having run: GPU memory short is CORE_ERR_LIMIT). */
int lab_coal_run_gpu(struct coal_run *r, struct core_err *err);
int lab_coal_run_cpu(struct coal_run *r, struct core_err *err);

#endif /* WB_LAB_COALESCING_H */
