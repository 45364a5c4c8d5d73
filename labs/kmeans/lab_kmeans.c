/*
 * lab_kmeans.c — lab "kmeans": k-means as MapReduce over worker processes.
 *
 * Every iteration is one MapReduce job. The master writes the current k
 * centres into shared memory (the broadcast) and hands the `tasks` map
 * tasks — fixed slices of the points — to `workers` worker processes. A map
 * task assigns each of its points to the nearest centre and, with the
 * combiner, sends back one partial sum and count per cluster (k records);
 * without it, one record per point (cluster, coordinates, count 1), so the
 * shuffle carries n records instead of tasks*k. The reduce adds the
 * partials in task order and moves each centre to its cluster's mean. The
 * loop stops when no centre moved more than `tol` or after `max_iter`
 * iterations; a last map pass (LABEL) assigns every point to the final
 * centres and gives the final SSE.
 *
 * Points: k Gaussian blobs generated from `seed` (n, d, k, spread), or a
 * file (CSV with a header line, or raw float32 with d given; a bad file is
 * reported with its line or point before the run starts). Initial centres:
 * k distinct random points (init=random), the first k (first), or init_file.
 * The points live in shared memory mapped before the workers start: each
 * worker reads its task's slice in place; no point is ever copied to a task
 * (with combiner=off they are copied into the records: that is the shuffle
 * being measured).
 *
 * Determinism, by design: a task's partial sums depend only on its points
 * and the centres, and partials are added in task order, in doubles. So
 * the centres and the labels are the same bits for any number of workers,
 * with or without the combiner, and whatever crashes, re-runs or backup
 * copies happened. The run checks this itself: the speedup passes (below)
 * must reach the same centres as the main run after as many iterations, or
 * the run fails. centres_fnv and labels_fnv fingerprint the result.
 *
 * Faults (main run only): crash=P kills a map attempt's worker (SIGKILL,
 * half-way through the task) with probability P, drawn from (seed,
 * iteration, task, attempt), so a seed replays its schedule;
 * straggler=W:FACTOR makes worker W take FACTOR times as long. The master
 * notices a closed socket (and reaps the worker: the log says how it died),
 * starts a replacement and re-runs the task; a task running much longer
 * than typical gets a backup copy on an idle worker (speculative
 * execution). See lab_kmeans_mr.c.
 *
 * An empty cluster (no point nearer to its centre than to another) keeps
 * its previous centre; the log says so and empty_clusters counts it.
 * (scikit-learn instead moves it to a far point; keeping it is simpler and
 * changes nothing for the other clusters.)
 *
 * Speedup in the same run: before the main run on p = workers, the first
 * scale_iters iterations are also run (and timed) on p = 1 .. workers-1,
 * without faults; speedup_pN = T(1)/T(N) with T the median time per
 * iteration. With device=gpu the map runs as one CUDA kernel per iteration
 * (kern_kmeans_gpu_assign), checked against the CPU routine in iteration
 * 1, and the speedup is the GPU's over one CPU worker. Without a usable GPU
 * device=gpu says so in one warning line and runs on the CPU workers.
 *
 * Series: sse, shift, map_ms, shuffle_ms, reduce_ms, iter_ms,
 * shuffle_bytes, reexec (per iteration); time_p, speedup, ideal (per p);
 * tasks_worker, attempts_worker (per worker, at the end).
 *
 * Summary figures (ctx.lab.summary in lessons):
 *   iter_ms          median time per iteration on p = workers (the key figure)
 *   iter_ms_mean     mean time per iteration = map_ms + shuffle_ms + reduce_ms
 *   map_ms           mean per iteration: waiting for the map tasks (workers
 *                    computing, commands and results in flight)
 *   shuffle_ms       mean per iteration: reading results off the sockets
 *   reduce_ms        mean per iteration: adding records (no combiner), the
 *                    task-order merge and the new centres
 *   iterations, converged (1/0), final_sse (SSE of the final centres),
 *   sse_first (SSE of iteration 1), shift_final
 *   shuffle_bytes    mean bytes received by the master per iteration
 *   shuffle_records  mean records per iteration (tasks*k or n)
 *   shuffle_bytes_total
 *   nkd_per_s        distance terms n*k*d per second (n*k*d / iter_ms)
 *   speedup          T(1)/T(workers); speedup_pN and iter_ms_pN per p;
 *   efficiency       speedup / workers, in %
 *   reexec, crashes, speculative, timeouts, respawns (whole run)
 *   empty_clusters   cluster-iterations with no points
 *   deterministic    1 when the speedup passes matched the main run
 *   n, d, k, workers, tasks, combiner (1/0), cores, map_cpu_ms
 *   centres_fnv, labels_fnv (text): FNV-1a of the final centres/labels
 *   device (text); with a GPU: gpu_kernel_ms (the median step; the kernels are
 *   loaded before the first), gpu_gbs, gpu_roofline (% of
 *   the device's memory bandwidth for 4*n*d bytes), gpu_check_labels
 *   (points assigned differently from the CPU: 0), gpu_check_sum_rel
 *
 * Files: this one holds the lab's definition (parameters, series, charts)
 * and the run's outline; lab_kmeans_cfg.c reads and cross-checks the
 * parameters, lab_kmeans_loop.c runs the iterations (points, centres, the
 * GPU step and its check), lab_kmeans_summary.c reports the figures;
 * lab_kmeans_mr.c is the MapReduce engine, lab_kmeans_ranks.c its MPI
 * transport, lab_kmeans_data.c the points.
 *
 * Uses the lab framework (lab_author.h), the engine and loaders (lab_kmeans.h)
 * and the kernels module.
 */
#include "labs/kmeans/lab_kmeans.h"
#include "labs/transport/lab_mpi.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- parameters ------------------------------------------------------------------ */

static double km_default_workers(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1)
        n = 1;
    return n > KM_MAX_WORKERS ? KM_MAX_WORKERS : (double)n;
}

static const struct lab_param_def km_params[] = {
    {"n", LAB_P_INT, "1000000", NULL, 1, KM_MAX_N, NULL, "",
     "points (with a file: the first n of them; default all)"},
    {"d", LAB_P_INT, "16", NULL, 1, KERN_KM_MAX_D, NULL, "",
     "dimensions (a CSV file sets it; a float32 file needs it)"},
    {"k", LAB_P_INT, "16", NULL, 1, KERN_KM_MAX_K, NULL, "", "clusters (and blobs generated)"},
    {"seed", LAB_P_INT, "1", NULL, 0, 2147483647, NULL, "",
     "seeds the points, the random initial centres and the crash schedule"},
    {"spread", LAB_P_REAL, "2", NULL, 0, 1000, NULL, "",
     "standard deviation of each generated blob (blob centres lie in [-10, 10))"},
    {"file", LAB_P_STR, "", NULL, 0, 0, NULL, "",
     "read the points from a file: CSV with a header line, or raw float32"},
    {"format", LAB_P_ENUM, "auto", NULL, 0, 0, "auto|csv|f32", "",
     "format of file (auto: .csv/.txt CSV, .f32/.bin/.raw float32)"},
    {"init", LAB_P_ENUM, "random", NULL, 0, 0, "random|first|file", "",
     "initial centres: k random points, the first k points, or init_file"},
    {"init_file", LAB_P_STR, "", NULL, 0, 0, NULL, "",
     "k initial centres for init=file (CSV with a header, or .f32)"},
    {"workers", LAB_P_INT, NULL, km_default_workers, 1, KM_MAX_WORKERS, NULL, "",
     "worker processes running the map tasks (default: online cores)"},
    {"tasks", LAB_P_INT, "16", NULL, 1, KM_MAX_TASKS, NULL, "",
     "map tasks the points are split into (results do not depend on workers)"},
    {"combiner", LAB_P_BOOL, "on", NULL, 0, 1, NULL, "",
     "combine in the map (k partial sums per task) or send a record per point"},
    {"max_iter", LAB_P_INT, "50", NULL, 1, 10000, NULL, "", "most iterations"},
    {"tol", LAB_P_REAL, "0.0001", NULL, 0, 1e30, NULL, "",
     "stop when no centre moves more than this (0: when none moves at all)"},
    {"crash", LAB_P_REAL, "0", NULL, 0, 0.5, NULL, "",
     "probability that a map task attempt crashes its worker process"},
    {"straggler", LAB_P_STR, "", NULL, 0, 0, NULL, "",
     "W:FACTOR: worker W (from 1) takes FACTOR times as long, 1 to 1000 (e.g. 2:5)"},
    {"device", LAB_P_ENUM, "cpu", NULL, 0, 0, "cpu|gpu", "",
     "run the map on the CPU workers or as a CUDA kernel"},
    {"scale_iters", LAB_P_INT, "3", NULL, 0, 100, NULL, "",
     "iterations also timed on p = 1..workers-1, for the speedup (0: none)"},
    {"save", LAB_P_STR, "", NULL, 0, 0, NULL, "",
     "write the final centres to this new CSV file (an existing path is refused)"},
    {"overwrite", LAB_P_BOOL, "off", NULL, 0, 1, NULL, "",
     "let save replace an existing regular file (never a link, FIFO or device)"},
    {"transport", LAB_P_ENUM, "local", NULL, 0, 0, "local|mpi", "",
     "local: worker processes; mpi: the ranks of an Open MPI job"},
    {"hosts", LAB_P_STR, "", NULL, 0, 0, NULL, "",
     "mpi across hosts: NAME:SLOTS,... (Warpbench runs mpirun)"},
    {"hostfile", LAB_P_STR, "", NULL, 0, 0, NULL, "",
     "mpi across the hosts of an Open MPI hostfile"},
};

static const struct lab_series_def km_series[] = {
    {"sse", "SSE (sum of squared distances)", "", "sse", "iteration"},
    {"shift", "largest centre move", "", "shift", "iteration"},
    {"map_ms", "map (assign + combine)", "ms", "phases", "iteration"},
    {"shuffle_ms", "shuffle (results to the reducer)", "ms", "phases", "iteration"},
    {"reduce_ms", "reduce (merge, new centres)", "ms", "phases", "iteration"},
    {"iter_ms", "whole iteration", "ms", "phases", "iteration"},
    {"shuffle_bytes", "bytes shuffled", "B", "shuffle", "iteration"},
    {"reexec", "task re-executions (all)", "", "faults", "iteration"},
    /* Most re-runs on a busy machine with crash = 0 are these: a task 3x
     * the typical time old gets a backup copy (speculative execution). */
    {"backups", "of them backups of late tasks", "", "faults", "iteration"},
    {"time_p", "median time per iteration", "ms", "time_p", "p"},
    {"speedup", "measured speedup T(1)/T(p)", "×", "speedup", "p"},
    {"ideal", "ideal speedup p", "×", "speedup", "p"},
    {"tasks_worker", "map tasks done", "", "workers", "worker"},
    {"attempts_worker", "map attempts started", "", "workers", "worker"},
};

static const struct lab_chart_def km_charts[] = {
    {"sse", "SSE per iteration", false},
    {"shift", "largest centre move", false},
    {"phases", "time per phase", false},
    {"shuffle", "bytes shuffled", false},
    {"faults", "tasks run again (crashes, late tasks)", false},
    {"time_p", "time per iteration against p", false},
    {"speedup", "speedup against p", false},
    {"workers", "map tasks per worker", false},
};

/* ---- the run ----------------------------------------------------------------------- */

/* Shared memory (points, two centre buffers, labels), the master's
 * buffers, the points and the initial centres. */
static int km_run_setup(struct km_run *r, struct core_err *err)
{
    const struct km_cfg *c = &r->cfg;
    struct lab_procs *ps = lab_ctx_procs(r->cx);
    const size_t kd = (size_t)c->k * (size_t)c->d;
    float *x = lab_shm_alloc(ps, c->n * (size_t)c->d * sizeof(float), err);
    float *cb = x ? lab_shm_alloc(ps, 2 * kd * sizeof(float), err) : NULL;
    int32_t *labels = cb ? lab_shm_alloc(ps, c->n * sizeof(int32_t), err) : NULL;
    if (!labels)
        return core_err_prefix(err, "kmeans: %zu points of d = %d", c->n, c->d);
    r->labels = labels;
    r->sh = (struct km_shared){x,      c->n,        c->d,     c->k,   {cb, cb + kd},
                               labels, c->combiner, c->crash, c->seed};
    r->c0 = core_xmalloc(kd * sizeof *r->c0);
    r->cur = core_xmalloc(kd * sizeof *r->cur);
    r->rsum = core_xmalloc(kd * sizeof *r->rsum);
    r->rcnt = core_xmalloc((size_t)c->k * sizeof *r->rcnt);
    int rc = lab_km_points(r, err);
    return rc ? rc : lab_km_init_centres(r, err);
}

/* device=gpu: the GPU when there is a usable one, else the CPU workers
 * (said in one note); then how many workers the main run has, and the
 * warnings about cores and tasks. */
static void km_run_device(struct km_run *r)
{
    const struct km_cfg *c = &r->cfg;
    struct lab_ctx *cx = r->cx;
    const struct lab_machine *m = lab_ctx_machine(cx);
    const size_t kd = (size_t)c->k * (size_t)c->d;
    if (c->gpu) {
        r->bounds = core_xmalloc(((size_t)c->tasks + 1) * sizeof *r->bounds);
        for (int t = 0; t <= c->tasks; t++)
            r->bounds[t] = (size_t)((uint64_t)t * (uint64_t)c->n / (uint64_t)c->tasks);
        struct core_err gerr;
        core_err_clear(&gerr);
        if (kern_probe(&r->dev, &gerr) == 0 &&
            kern_kmeans_gpu_new(&r->gpu, r->sh.x, c->n, c->d, c->k, r->bounds, c->tasks, &gerr) ==
                0) {
            r->use_gpu = true;
            r->gsum = core_xmalloc((size_t)c->tasks * kd * sizeof *r->gsum);
            r->gcnt = core_xmalloc((size_t)c->tasks * (size_t)c->k * sizeof *r->gcnt);
            r->gsse = core_xmalloc((size_t)c->tasks * sizeof *r->gsse);
            lab_log(cx, LAB_LOG_INFO, "device=gpu: the map runs on %s", r->dev.name);
        } else {
            lab_log(cx, LAB_LOG_NOTE, "%s: device=gpu runs the map on the CPU workers instead",
                    gerr.msg);
        }
    }
    int P = r->P = r->use_gpu ? 1 : c->workers;
    if (!r->use_gpu && !c->mpi && m->cores_online > 0 && P > m->cores_online)
        lab_log(cx, LAB_LOG_WARN,
                "workers = %d is more than the %d online cores: workers share cores, so the "
                "speedup cannot keep growing",
                P, m->cores_online);
    if (!r->use_gpu && c->tasks < P)
        lab_log(cx, LAB_LOG_WARN, "tasks = %d is fewer than workers = %d: some workers get no task",
                c->tasks, P);
}

/* The workers (with a GPU: one, for the CPU baseline). */
static int km_run_workers(struct km_run *r, struct core_err *err)
{
    const struct km_cfg *c = &r->cfg;
    struct lab_ctx *cx = r->cx;
    int P = r->P, rc;
    if (!r->use_gpu || c->scale_iters > 0) {
        double strag[KM_MAX_WORKERS];
        for (int s = 0; s < KM_MAX_WORKERS; s++)
            strag[s] = lab_straggler_factor(&c->strag, s);
        lab_km_engine_init(&r->eng, cx, &r->sh, P, c->tasks, strag,
                           c->mpi ? &lab_km_transport_mpi : &lab_km_transport_local);
        r->have_engine = true;
        lab_progress(cx, 0.1, "starting the workers");
        if ((rc = lab_km_engine_start(&r->eng, err)) != 0)
            return rc;
        lab_log(cx, LAB_LOG_INFO, "%d worker %s%s, %d map tasks of about %zu points, combiner %s%s",
                P, c->mpi ? "rank" : "process", P > 1 ? (c->mpi ? "s" : "es") : "", c->tasks,
                c->n / (size_t)c->tasks, c->combiner ? "on" : "off",
                r->use_gpu ? " (the CPU baseline)" : "");
    }
    if (c->strag.worker > 0)
        lab_log(cx, LAB_LOG_INFO, "worker %d is a straggler: %g times slower", c->strag.worker,
                c->strag.factor);
    return 0;
}

/* The speedup passes: the first scale_iters iterations on p = 1 .. P-1 (a
 * GPU: p = 1 on the CPU), each reaching the same centres as p = 1. */
static int km_run_scale(struct km_run *r, struct core_err *err)
{
    const struct km_cfg *c = &r->cfg;
    struct lab_ctx *cx = r->cx;
    const size_t kd = (size_t)c->k * (size_t)c->d;
    int rc;
    r->p_scale = c->scale_iters > 0 ? (r->use_gpu ? 1 : r->P - 1) : 0;
    int s_iters = c->scale_iters < c->max_iter ? c->scale_iters : c->max_iter;
    struct km_loop *scale = r->scale =
        core_xcalloc((size_t)(r->p_scale > 0 ? r->p_scale : 1), sizeof *r->scale);
    for (int p = 1; p <= r->p_scale; p++) {
        char what[64];
        snprintf(what, sizeof what, "timing %d iteration%s on p = %d", s_iters,
                 s_iters > 1 ? "s" : "", p);
        lab_progress(cx, 0.1 + 0.1 * (p - 1) / r->p_scale, what);
        if ((rc = lab_km_iterate(r, p, false, s_iters, false, &scale[p - 1], err)) != 0)
            return rc;
        r->n_scale = p;
        if (p == 1) {
            r->snap = core_xmalloc(kd * sizeof *r->snap);
            memcpy(r->snap, r->cur, kd * sizeof *r->snap);
            r->snap_iters = scale[0].iters;
        } else if (scale[p - 1].iters != r->snap_iters ||
                   memcmp(r->snap, r->cur, kd * sizeof *r->snap) != 0) {
            return core_err_set(err, CORE_ERR_INTERNAL,
                                "kmeans: determinism check failed: %d iterations on %d workers "
                                "differ from those on 1",
                                r->snap_iters, p);
        }
        double tp = scale[p - 1].med_s, t1 = scale[0].med_s;
        lab_emit(cx, "time_p", p, 1e3 * tp);
        lab_emit(cx, "speedup", p, tp > 0 ? t1 / tp : 0);
        lab_emit(cx, "ideal", p, p);
        lab_log(cx, LAB_LOG_INFO, "p = %d: %.2f ms per iteration (median of %d), speedup %.2f", p,
                1e3 * tp, scale[p - 1].iters, tp > 0 ? t1 / tp : 0);
    }
    return 0;
}

/* The main run on P workers (or the GPU), then the final assignment of
 * every point to its final centre, and the tasks and attempts per worker. */
static int km_run_main(struct km_run *r, struct core_err *err)
{
    const struct km_cfg *c = &r->cfg;
    struct lab_ctx *cx = r->cx;
    const size_t kd = (size_t)c->k * (size_t)c->d;
    int P = r->P, rc;
    lab_progress(cx, 0.2, "iterating");
    if ((rc = lab_km_iterate(r, P, r->use_gpu, c->max_iter, true, &r->main_loop, err)) != 0)
        return rc;
    double tP = r->main_loop.med_s;
    if (!r->use_gpu && (r->n_scale > 0 || P == 1)) {
        double t1 = r->n_scale > 0 ? r->scale[0].med_s : tP;
        lab_emit(cx, "time_p", P, 1e3 * tP);
        lab_emit(cx, "speedup", P, tP > 0 ? t1 / tP : 0);
        lab_emit(cx, "ideal", P, P);
    }

    lab_progress(cx, 0.98, "assigning the points to the final centres");
    r->final_sse = 0;
    memset(&r->lst, 0, sizeof r->lst);
    if (r->use_gpu) {
        if ((rc = lab_km_gpu_step(r, r->labels, &r->lst, err)) != 0)
            return rc;
        for (int t = 0; t < c->tasks; t++)
            r->final_sse += r->gsse[t];
    } else {
        memcpy(r->sh.centres[lab_km_engine_next_buf(&r->eng)], r->cur, kd * sizeof *r->cur);
        if ((rc = lab_km_engine_pass(&r->eng, KM_OP_LABEL, P, true,
                                     (uint32_t)r->main_loop.iters + 1, &r->lst, err)) != 0)
            return rc;
        for (int t = 0; t < c->tasks; t++)
            r->final_sse += r->eng.psse[t];
    }
    if (!r->use_gpu)
        for (int s = 0; s < P; s++) {
            lab_emit(cx, "tasks_worker", s + 1, (double)r->main_loop.tasks_by_slot[s]);
            lab_emit(cx, "attempts_worker", s + 1, (double)r->eng.slot[s].attempts);
        }
    return 0;
}

/* Everything the run holds: the engine (and its workers), MPI, the GPU, the
 * buffers. */
static void km_run_free(struct km_run *r)
{
    if (r->have_engine) {
        lab_km_engine_stop(&r->eng);
        lab_km_engine_fini(&r->eng);
    }
    if (r->mpi_up && !lab_mpi_term_noted()) {
        lab_mpi_end_all(); /* every rank lets go */
        lab_mpi_finish();
    }
    kern_kmeans_gpu_free(r->gpu);
    for (int p = 0; r->scale && p < r->p_scale; p++)
        free(r->scale[p].iter_s);
    free(r->scale);
    free(r->main_loop.iter_s);
    free(r->c0);
    free(r->cur);
    free(r->rsum);
    free(r->rcnt);
    free(r->gsum);
    free(r->gcnt);
    free(r->gsse);
    free(r->gpu_ks);
    free(r->bounds);
    free(r->snap);
}

static int km_run_lab(struct lab_ctx *cx, struct core_err *err)
{
    const struct lab_params *pp = lab_ctx_params(cx);
    struct km_run R;
    struct km_run *r = &R;
    int rc;

    memset(r, 0, sizeof *r);
    r->cx = cx;
    r->clk = lab_ctx_clock(cx) ? lab_ctx_clock(cx) : core_clock_real();
    if ((rc = lab_km_cfg_read(pp, lab_ctx_machine(cx)->mem_bytes, false, lab_km_run_stop, cx,
                              &r->cfg, err)) != 0)
        return rc;
    const struct km_cfg *c = &r->cfg;
    if (c->mpi && lab_mpi_env_rank() < 0) /* Open MPI's mpirun runs it, rank 0 reports here */
        return lab_mpi_launch(cx, 1 + c->workers, err);
    if (c->mpi) {
        if ((rc = lab_mpi_init(err)) != 0)
            return rc;
        r->mpi_up = true;
    }
    if (*c->file && lab_param_user_set(pp, "spread"))
        lab_log(cx, LAB_LOG_INFO, "spread shapes generated points only: ignored with a file");

    if ((rc = km_run_setup(r, err)) != 0)
        goto out;
    km_run_device(r);
    if ((rc = km_run_workers(r, err)) != 0 || (rc = km_run_scale(r, err)) != 0 ||
        (rc = km_run_main(r, err)) != 0)
        goto out;
    lab_km_summary(r);
    if (*c->save) {
        if ((rc = lab_km_centres_save(c->save, r->cur, c->k, c->d, c->overwrite, err)) != 0)
            goto out;
        lab_log(cx, LAB_LOG_INFO, "final centres written to %s", c->save);
    }
    lab_progress(cx, 1, "done");
    rc = 0;
out:
    km_run_free(r);
    if (rc && lab_mpi_term_noted())
        rc = core_err_set(err, CORE_ERR_INTERNAL,
                          "kmeans: Open MPI ended the job (rank 0 had SIGTERM from mpirun): "
                          "another rank died or mpirun was stopped");
    return rc;
}

/* lab_def.mpi_workers: every rank but rank 0 maps. */
static int km_mpi_workers(const struct lab_params *p, int ranks)
{
    (void)p;
    return ranks - 1;
}

const struct lab_def lab_km_def = {
    .name = "kmeans",
    .title = "MapReduce k-means over worker processes",
    .summary = "map/shuffle/reduce k-means on p workers: SSE, phase times, combiner, crashes and "
               "stragglers, bit-identical results, speedup",
    .params = km_params,
    .n_params = sizeof km_params / sizeof km_params[0],
    .series = km_series,
    .n_series = sizeof km_series / sizeof km_series[0],
    .check = lab_km_cfg_check,
    .run = km_run_lab,
    .mpi_workers = km_mpi_workers,
    .resolve = lab_km_cfg_params_resolve,
    .rank = lab_km_mpi_rank_main,
    .charts = km_charts,
    .n_charts = sizeof km_charts / sizeof km_charts[0],
};
