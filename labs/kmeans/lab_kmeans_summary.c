/*
 * lab_kmeans_summary.c — the k-means lab's summary: the figures of a
 * finished run (lab_kmeans.c lists them all, in the order they are set: the
 * first, iter_ms, is the run's key figure), the speedup against p, the
 * device's, and the closing log line.
 *
 * Uses the lab framework (lab_author.h: figures, lab_stats.c's median) and the
 * run's state (lab_kmeans.h).
 */
#include "labs/kmeans/lab_kmeans.h"

#include <stdio.h>

static void km_fnv_text(const void *p, size_t n, char out[17])
{
    snprintf(out, 17, "%016llx", (unsigned long long)core_fnv1a(CORE_FNV_OFFSET, p, n));
}

/* speedup, efficiency, iter_ms_pN and speedup_pN, against the median time
 * per iteration tP of the main run. */
static void km_summary_speedup(struct km_run *r, double tP)
{
    struct lab_ctx *cx = r->cx;
    char key[64], label[128];
    if (r->n_scale > 0 || (!r->use_gpu && r->P == 1)) {
        double t1 = r->n_scale > 0 ? r->scale[0].med_s : tP;
        double sp = tP > 0 ? t1 / tP : 0;
        lab_figure_num(cx, "speedup", sp, "×",
                       r->use_gpu ? "GPU speedup over 1 CPU worker" : "measured speedup T(1)/T(p)");
        if (!r->use_gpu)
            lab_figure_num(cx, "efficiency", 100.0 * sp / r->P, "%", "speedup / workers");
        for (int p = 1; p <= r->n_scale; p++) {
            snprintf(key, sizeof key, "iter_ms_p%d", p);
            snprintf(label, sizeof label, "median time per iteration at p=%d", p);
            lab_figure_num(cx, key, 1e3 * r->scale[p - 1].med_s, "ms", label);
            snprintf(key, sizeof key, "speedup_p%d", p);
            snprintf(label, sizeof label, "measured speedup at p=%d", p);
            lab_figure_num(cx, key, r->scale[p - 1].med_s > 0 ? t1 / r->scale[p - 1].med_s : 0, "×",
                           label);
        }
        if (!r->use_gpu && r->P > r->n_scale) {
            snprintf(key, sizeof key, "iter_ms_p%d", r->P);
            snprintf(label, sizeof label, "median time per iteration at p=%d", r->P);
            lab_figure_num(cx, key, 1e3 * tP, "ms", label);
            snprintf(key, sizeof key, "speedup_p%d", r->P);
            snprintf(label, sizeof label, "measured speedup at p=%d", r->P);
            lab_figure_num(cx, key, sp, "×", label);
        }
    } else {
        lab_log(cx, LAB_LOG_INFO, "speedup not measured: scale_iters = 0");
    }
}

/* Where the map ran, and with a GPU its kernel time, bandwidth and the
 * iteration 1 check. */
static void km_summary_device(struct km_run *r)
{
    struct lab_ctx *cx = r->cx;
    const struct km_cfg *c = &r->cfg;
    if (r->use_gpu) {
        char dev[200];
        snprintf(dev, sizeof dev, "gpu: %.160s", r->dev.name);
        lab_figure_str(cx, "device", dev, "where the map ran");
        double ks = lab_stats_median_of(r->gpu_ks, (size_t)r->gpu_steps);
        double gbs = ks > 0 ? 4.0 * (double)c->n * c->d / ks / 1e9 : 0;
        lab_figure_num(cx, "gpu_kernel_ms", 1e3 * ks, "ms",
                       "GPU kernel time per iteration (median)");
        lab_figure_num(cx, "gpu_gbs", gbs, "GB/s", "points read per second (4·n·d bytes)");
        if (r->dev.peak_gbs > 0)
            lab_figure_num(cx, "gpu_roofline", 100.0 * gbs / r->dev.peak_gbs, "%",
                           "of the device's memory bandwidth");
        lab_figure_num(cx, "gpu_check_labels", r->gpu_check_bad, "",
                       "points the GPU assigned differently from the CPU (iteration 1)");
        lab_figure_num(cx, "gpu_check_sum_rel", r->gpu_check_rel, "",
                       "largest difference of the GPU's partial sums, relative (iteration 1)");
    } else {
        lab_figure_str(cx, "device", "cpu", "where the map ran");
    }
}

void lab_km_summary(struct km_run *r)
{
    struct lab_ctx *cx = r->cx;
    const struct km_cfg *c = &r->cfg;
    const struct lab_machine *m = lab_ctx_machine(cx);
    const struct km_loop *L = &r->main_loop;
    const size_t kd = (size_t)c->k * (size_t)c->d;
    double tP = L->med_s;
    int it = L->iters;
    double tmean = (L->sum_map_s + L->sum_shuffle_s + L->sum_reduce_s) / it;
    char fnv[17], lfnv[17];
    lab_figure_num(cx, "iter_ms", 1e3 * tP, "ms", "median time per iteration");
    lab_figure_num(cx, "iterations", it, "", "iterations run");
    lab_figure_num(cx, "converged", L->converged, "yes/no",
                   "converged: no centre moved more than tol");
    lab_figure_num(cx, "final_sse", r->final_sse, "", "SSE of the final centres");
    lab_figure_num(cx, "sse_first", L->sse_first, "", "SSE of iteration 1");
    lab_figure_num(cx, "shift_final", L->shift_last, "", "largest centre move, last iteration");
    lab_figure_num(cx, "iter_ms_mean", 1e3 * tmean, "ms", "mean time per iteration");
    lab_figure_num(cx, "map_ms", 1e3 * L->sum_map_s / it, "ms", "map per iteration (mean)");
    lab_figure_num(cx, "shuffle_ms", 1e3 * L->sum_shuffle_s / it, "ms",
                   "shuffle per iteration (mean)");
    lab_figure_num(cx, "reduce_ms", 1e3 * L->sum_reduce_s / it, "ms",
                   "reduce per iteration (mean)");
    lab_figure_num(cx, "map_cpu_ms", 1e3 * L->sum_map_cpu_s / it, "ms",
                   "worker time in map tasks per iteration, all workers");
    lab_figure_num(cx, "shuffle_bytes", (double)L->bytes / it, "B",
                   "bytes shuffled per iteration (mean)");
    lab_figure_num(cx, "shuffle_records", (double)L->records / it, "",
                   "records shuffled per iteration (mean)");
    lab_figure_num(cx, "shuffle_bytes_total", (double)L->bytes, "B",
                   "bytes shuffled in all iterations");
    lab_figure_num(cx, "nkd_per_s", tP > 0 ? (double)c->n * c->k * c->d / tP : 0, "/s",
                   "distance terms n·k·d per second");
    km_summary_speedup(r, tP);
    lab_figure_num(cx, "reexec", L->reexec + r->lst.reexec, "", "map task re-executions");
    lab_figure_num(cx, "crashes", L->crashes + r->lst.crashes, "", "workers that crashed");
    lab_figure_num(cx, "speculative", L->speculative + r->lst.speculative, "",
                   "backup copies of late tasks");
    lab_figure_num(cx, "timeouts", L->timeouts + r->lst.timeouts, "",
                   "workers killed for not answering");
    lab_figure_num(cx, "respawns", L->respawns + r->lst.respawns, "", "workers restarted");
    lab_figure_num(cx, "empty_clusters", L->empty, "",
                   "clusters left without points (summed over iterations)");
    if (r->snap_checked || r->n_scale > 1)
        lab_figure_num(cx, "deterministic", 1, "",
                       "1: every p reached the same centres, bit for bit");
    lab_figure_num(cx, "n", (double)c->n, "", "points");
    lab_figure_num(cx, "d", c->d, "", "dimensions");
    lab_figure_num(cx, "k", c->k, "", "clusters");
    lab_figure_num(cx, "workers", r->use_gpu ? 0 : r->P, "", "worker processes (0: the GPU)");
    lab_figure_num(cx, "tasks", c->tasks, "", "map tasks per iteration");
    lab_figure_num(cx, "combiner", c->combiner, "yes/no", "combiner on");
    lab_figure_num(cx, "cores", m->cores_online, "", "online CPU cores");
    km_fnv_text(r->cur, kd * sizeof *r->cur, fnv);
    lab_figure_str(cx, "centres_fnv", fnv, "FNV-1a of the final centres");
    km_fnv_text(r->labels, c->n * sizeof *r->labels, lfnv);
    lab_figure_str(cx, "labels_fnv", lfnv, "FNV-1a of the final labels");
    km_summary_device(r);
    lab_log(cx, LAB_LOG_INFO,
            "%s after %d iteration%s: final SSE %.6g; %.2f ms per iteration; %d re-run%s; "
            "centres %s",
            L->converged ? "converged" : "stopped at max_iter", it, it > 1 ? "s" : "", r->final_sse,
            1e3 * tP, L->reexec + r->lst.reexec, L->reexec + r->lst.reexec == 1 ? "" : "s", fnv);
}
