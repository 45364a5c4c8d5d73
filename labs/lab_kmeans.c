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
 * Uses the lab framework (lab.h), the engine and loaders (lab_kmeans.h)
 * and the kernels module.
 */
#include "labs/lab_kmeans.h"
#include "labs/lab_mpi.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define KM_LOG_ITERS 20 /* every iteration is logged up to this one, then every 10th */
#define KM_EMPTY_LOGS 5

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
    {"reexec", "task re-executions", "", "faults", "iteration"},
    {"time_p", "median time per iteration", "ms", "time_p", "p"},
    {"speedup", "measured speedup T(1)/T(p)", "×", "speedup", "p"},
    {"ideal", "ideal speedup p", "×", "speedup", "p"},
    {"tasks_worker", "map tasks done", "", "workers", "worker"},
    {"attempts_worker", "map attempts started", "", "workers", "worker"},
};

static const struct lab_chart_def km_charts[] = {
    {"sse", "SSE per iteration", false},     {"shift", "largest centre move", false},
    {"phases", "time per phase", false},     {"shuffle", "bytes shuffled", false},
    {"faults", "tasks run again", false},    {"time_p", "time per iteration against p", false},
    {"speedup", "speedup against p", false}, {"workers", "map tasks per worker", false},
};

/* ---- the run ----------------------------------------------------------------------- */

/* What one loop of iterations measured. */
struct km_loop {
    int iters;
    bool converged;
    double *iter_s; /* per iteration */
    double med_s;   /* median of iter_s */
    double sum_map_s, sum_shuffle_s, sum_reduce_s, sum_map_cpu_s;
    double sse_first, shift_last;
    uint64_t bytes, records;
    int reexec, crashes, speculative, timeouts, respawns, empty;
    long tasks_by_slot[KM_MAX_WORKERS];
};

struct km_run {
    struct lab_ctx *cx;
    struct km_cfg cfg;
    const struct core_clock *clk;
    struct km_shared sh;
    struct km_engine eng;
    bool have_engine;
    struct kern_km_gpu *gpu;
    struct kern_device dev;
    float *c0, *cur;
    double *rsum; /* reduce scratch */
    int64_t *rcnt;
    double *gsum, *gsse; /* GPU per-task partials */
    int64_t *gcnt;
    size_t *bounds; /* the GPU's copy of the task split */
    float *snap;    /* centres after snap_iters iterations of p = 1 */
    int snap_iters;
    bool snap_checked;
    int empty_logs;
    double *gpu_ks; /* kernel time of each GPU map step (the median is reported) */
    int gpu_steps, gpu_ks_cap;
    double gpu_check_bad, gpu_check_rel; /* the iteration 1 check's findings */
};

static double km_now(const struct km_run *r)
{
    return r->clk->now(r->clk->ctx);
}

static bool km_stop(void *ud)
{
    return lab_cancelled(ud);
}

static void km_bytes_text(double b, char *buf, size_t size)
{
    if (b >= 1048576.0)
        snprintf(buf, size, "%.1f MiB", b / 1048576.0);
    else if (b >= 1024.0)
        snprintf(buf, size, "%.1f KiB", b / 1024.0);
    else
        snprintf(buf, size, "%.0f B", b);
}

/* One map step on the GPU into r->gsum/gcnt/gsse; the times as a pass's. */
static int km_gpu_step(struct km_run *r, int32_t *labels, struct km_pass_stats *st,
                       struct core_err *err)
{
    memset(st, 0, sizeof *st);
    double t0 = km_now(r), ks = 0;
    int rc = kern_kmeans_gpu_assign(r->gpu, r->cur, labels, r->gsum, r->gcnt, r->gsse, &ks, err);
    if (rc != 0)
        return rc;
    st->wall_s = km_now(r) - t0;
    st->shuffle_s = st->wall_s > ks ? st->wall_s - ks : 0; /* transfers and launches */
    st->map_cpu_s = ks;
    st->bytes = (uint64_t)r->cfg.tasks * (uint64_t)r->cfg.k * ((uint64_t)r->cfg.d + 1) * 8;
    st->records = (uint64_t)r->cfg.tasks * (uint64_t)r->cfg.k;
    if (r->gpu_steps == r->gpu_ks_cap) {
        r->gpu_ks_cap = r->gpu_ks_cap ? 2 * r->gpu_ks_cap : 64;
        r->gpu_ks = core_xrealloc(r->gpu_ks, (size_t)r->gpu_ks_cap * sizeof *r->gpu_ks);
    }
    r->gpu_ks[r->gpu_steps++] = ks;
    return 0;
}

/* Iteration 1 on the GPU against the CPU routine: the same labels and
 * counts, sums equal up to the order of additions. Adding m numbers in
 * another order moves the sum by up to about m·eps·max|x|, so a sum's
 * difference is measured against (its size + its count·max|x|): sums that
 * nearly cancel to 0 would fail a plain relative test. */
static int km_gpu_check(struct km_run *r, struct core_err *err)
{
    const struct km_cfg *c = &r->cfg;
    const size_t kd = (size_t)c->k * (size_t)c->d;
    int32_t *gl = core_xmalloc(c->n * sizeof *gl), *cl = core_xmalloc(c->n * sizeof *cl);
    double *cs = core_xcalloc(kd, sizeof *cs);
    int64_t *cc = core_xcalloc((size_t)c->k, sizeof *cc);
    struct km_pass_stats st;
    int rc = km_gpu_step(r, gl, &st, err);
    if (rc != 0)
        goto out;
    size_t bad = 0, first = 0;
    double worst = 0, xmax = 0;
    for (size_t i = 0; i < c->n * (size_t)c->d; i++)
        xmax = fmax(xmax, fabs((double)r->sh.x[i]));
    for (int t = 0; t < c->tasks && rc == 0; t++) {
        size_t lo = r->bounds[t], hi = r->bounds[t + 1];
        if (lab_cancelled(r->cx)) {
            rc = core_err_set(err, CORE_ERR_CANCELLED, "cancelled");
            break;
        }
        memset(cs, 0, kd * sizeof *cs);
        memset(cc, 0, (size_t)c->k * sizeof *cc);
        double sse = kern_kmeans_assign(r->sh.x + lo * (size_t)c->d, hi - lo, c->d, r->cur, c->k,
                                        cl + lo, cs, cc);
        for (int q = 0; q < c->k; q++)
            if (cc[q] != r->gcnt[(size_t)t * (size_t)c->k + (size_t)q]) {
                rc =
                    core_err_set(err, CORE_ERR_INTERNAL,
                                 "kmeans: GPU check: task %d cluster %d has %lld points on the "
                                 "GPU and %lld on the CPU",
                                 t + 1, q, (long long)r->gcnt[(size_t)t * (size_t)c->k + (size_t)q],
                                 (long long)cc[q]);
                break;
            }
        for (size_t q = 0; q < kd; q++) {
            double g = r->gsum[(size_t)t * kd + q], h = cs[q];
            double scale = fabs(h) + (double)cc[q / (size_t)c->d] * xmax;
            double rel = fabs(g - h) / fmax(scale, 1e-300);
            if (g != h && rel > worst)
                worst = rel;
        }
        double srel = fabs(r->gsse[t] - sse) / fmax(fabs(sse), 1e-300);
        if (r->gsse[t] != sse && srel > worst)
            worst = srel;
    }
    if (rc != 0)
        goto out;
    for (size_t i = 0; i < c->n; i++)
        if (gl[i] != cl[i] && bad++ == 0)
            first = i;
    r->gpu_check_bad = (double)bad;
    r->gpu_check_rel = worst;
    if (bad > 0)
        rc = core_err_set(err, CORE_ERR_INTERNAL,
                          "kmeans: GPU check: %zu points assigned differently from the CPU "
                          "(first: point %zu, GPU %d, CPU %d)",
                          bad, first + 1, gl[first], cl[first]);
    if (rc == 0 && worst > 1e-9)
        rc = core_err_set(err, CORE_ERR_INTERNAL,
                          "kmeans: GPU check: partial sums differ from the CPU's by %g (relative)",
                          worst);
    if (rc == 0)
        lab_log(r->cx, LAB_LOG_INFO,
                "GPU check: all %zu labels equal the CPU's; partial sums within %.1e relative",
                c->n, worst);
out:
    free(gl);
    free(cl);
    free(cs);
    free(cc);
    return rc;
}

/* Tasks per worker as text: "8 8 7" (or the first ones and "..."). */
static void km_tasks_text(const struct km_pass_stats *st, int P, char *buf, size_t size)
{
    size_t at = 0;
    buf[0] = '\0';
    for (int s = 0; s < P && at + 12 < size; s++)
        at += (size_t)snprintf(buf + at, size - at, "%s%d", s ? " " : "", st->tasks_by_slot[s]);
    if (at + 12 >= size)
        snprintf(buf + at, size - at, " ...");
}

/* Runs iterations from the initial centres on p_use workers (or the GPU)
 * until converged or max_iter. main: the reported run (faults, series,
 * logs); otherwise a timed pass for the speedup. */
static int km_iterate(struct km_run *r, int p_use, bool use_gpu, int max_iter, bool main,
                      struct km_loop *L, struct core_err *err)
{
    const struct km_cfg *c = &r->cfg;
    struct lab_ctx *cx = r->cx;
    const size_t kd = (size_t)c->k * (size_t)c->d;
    int rc = 0;
    memset(L, 0, sizeof *L);
    L->iter_s = core_xcalloc((size_t)max_iter, sizeof *L->iter_s);
    memcpy(r->cur, r->c0, kd * sizeof *r->cur);

    for (int it = 1; it <= max_iter; it++) {
        if (lab_cancelled(cx)) {
            rc = core_err_set(err, CORE_ERR_CANCELLED, "cancelled");
            goto out;
        }
        if (main)
            lab_progress(cx, 0.2 + 0.8 * (it - 1) / max_iter, "iterating");
        struct km_pass_stats st;
        const double *psum;
        const int64_t *pcnt;
        const double *psse;
        if (use_gpu && main && it == 1 && (rc = km_gpu_check(r, err)) != 0)
            goto out;
        double t0 = km_now(r);
        if (use_gpu) {
            rc = km_gpu_step(r, NULL, &st, err);
            psum = r->gsum;
            pcnt = r->gcnt;
            psse = r->gsse;
        } else {
            /* the broadcast: the centres into the buffer the pass reads */
            memcpy(r->sh.centres[km_engine_next_buf(&r->eng)], r->cur, kd * sizeof *r->cur);
            rc = km_engine_pass(&r->eng, KM_OP_MAP, p_use, main, (uint32_t)it, &st, err);
            psum = r->eng.psum;
            pcnt = r->eng.pcnt;
            psse = r->eng.psse;
        }
        if (rc != 0)
            goto out;
        double t1 = km_now(r), shift;
        int empty, first_empty;
        double sse = km_reduce(psum, pcnt, psse, c->tasks, c->k, c->d, r->cur, r->rsum, r->rcnt,
                               &shift, &empty, &first_empty);
        double t2 = km_now(r);
        double iter_s = t2 - t0, shuffle_s = st.shuffle_s, reduce_s = st.reduce_s + (t2 - t1);
        double map_s = iter_s - shuffle_s - reduce_s;
        if (map_s < 0)
            map_s = 0;
        L->iter_s[it - 1] = iter_s;
        L->iters = it;
        if (it > 1) { /* the first iteration warms the caches */
            char rep[64];
            snprintf(rep, sizeof rep, "time per iteration on %d %s", p_use,
                     use_gpu      ? "GPU map"
                     : p_use == 1 ? "worker"
                                  : "workers");
            lab_repeat(r->cx, rep, "s", iter_s);
        }
        L->sum_map_s += map_s;
        L->sum_shuffle_s += shuffle_s;
        L->sum_reduce_s += reduce_s;
        L->sum_map_cpu_s += st.map_cpu_s;
        L->bytes += st.bytes;
        L->records += st.records;
        L->reexec += st.reexec;
        L->crashes += st.crashes;
        L->speculative += st.speculative;
        L->timeouts += st.timeouts;
        L->respawns += st.respawns;
        L->empty += empty;
        L->shift_last = shift;
        for (int s = 0; s < KM_MAX_WORKERS; s++)
            L->tasks_by_slot[s] += st.tasks_by_slot[s];
        if (it == 1)
            L->sse_first = sse;
        bool converged = shift <= c->tol;

        if (main) {
            lab_emit(cx, "sse", it, sse);
            lab_emit(cx, "shift", it, shift);
            lab_emit(cx, "map_ms", it, 1e3 * map_s);
            lab_emit(cx, "shuffle_ms", it, 1e3 * shuffle_s);
            lab_emit(cx, "reduce_ms", it, 1e3 * reduce_s);
            lab_emit(cx, "iter_ms", it, 1e3 * iter_s);
            lab_emit(cx, "shuffle_bytes", it, (double)st.bytes);
            lab_emit(cx, "reexec", it, st.reexec);
            if (it <= KM_LOG_ITERS || it % 10 == 0 || converged || it == max_iter) {
                char bytes[32], tasks[160], extra[96] = "";
                km_bytes_text((double)st.bytes, bytes, sizeof bytes);
                if (use_gpu)
                    snprintf(tasks, sizeof tasks, "on the GPU");
                else {
                    char list[140];
                    km_tasks_text(&st, p_use, list, sizeof list);
                    snprintf(tasks, sizeof tasks, "tasks per worker %s", list);
                }
                if (st.reexec > 0)
                    snprintf(extra, sizeof extra, "; %d re-run%s (%d crash%s, %d backup%s)",
                             st.reexec, st.reexec > 1 ? "s" : "", st.crashes,
                             st.crashes == 1 ? "" : "es", st.speculative,
                             st.speculative == 1 ? "" : "s");
                lab_log(cx, LAB_LOG_INFO,
                        "iteration %d: SSE %.6g, centres moved up to %.3g; map %.2f ms, shuffle "
                        "%.2f ms, reduce %.2f ms; %s shuffled; %s%s",
                        it, sse, shift, 1e3 * map_s, 1e3 * shuffle_s, 1e3 * reduce_s, bytes, tasks,
                        extra);
            }
            if (empty > 0 && r->empty_logs < KM_EMPTY_LOGS) {
                r->empty_logs++;
                lab_log(cx, LAB_LOG_INFO,
                        "iteration %d: %d cluster%s got no points (first: cluster %d); empty "
                        "clusters keep their previous centres",
                        it, empty, empty > 1 ? "s" : "", first_empty + 1);
            }
            /* the determinism check against the p = 1 speedup pass (not
             * for the GPU: its sums are added in another order) */
            if (r->snap && !use_gpu && it == r->snap_iters) {
                if (memcmp(r->snap, r->cur, kd * sizeof *r->cur) != 0) {
                    rc = core_err_set(err, CORE_ERR_INTERNAL,
                                      "kmeans: determinism check failed: after %d iterations the "
                                      "centres on %d workers differ from those on 1",
                                      it, p_use);
                    goto out;
                }
                r->snap_checked = true;
            }
        }
        if (converged) {
            L->converged = true;
            break;
        }
    }
    L->med_s = lab_stats_median_of(L->iter_s, (size_t)L->iters);
out:
    return rc;
}

/* Finds the points: generated or from the file. */
static int km_points(struct km_run *r, struct core_err *err)
{
    const struct km_cfg *c = &r->cfg;
    struct lab_ctx *cx = r->cx;
    float *x = (float *)r->sh.x;
    if (*c->file) {
        char what[320];
        snprintf(what, sizeof what, "reading %.280s", c->file);
        lab_progress(cx, 0, what);
        size_t n = 0;
        int d = 0;
        int rc = km_points_read(c->file, c->fmt, "file", c->d, x, c->n, &n, &d, km_stop, cx, err);
        if (rc != 0)
            return rc;
        lab_log(cx, LAB_LOG_INFO, "%zu points of d = %d from '%s'%s", c->n, c->d, c->file,
                c->n < c->n_file ? " (the first n of them)" : "");
        return 0;
    }
    lab_progress(cx, 0, "generating the points");
    if (!km_generate(x, c->n, c->d, c->k, c->spread, c->seed, km_stop, cx))
        return core_err_set(err, CORE_ERR_CANCELLED, "cancelled");
    lab_log(cx, LAB_LOG_INFO,
            "%zu points of d = %d generated: %d Gaussian blobs, spread %g, seed %llu", c->n, c->d,
            c->k, c->spread, (unsigned long long)c->seed);
    return 0;
}

static int km_init_centres(struct km_run *r, struct core_err *err)
{
    const struct km_cfg *c = &r->cfg;
    const size_t d = (size_t)c->d;
    if (c->init == KM_INIT_FILE) {
        size_t n;
        int dd;
        int rc = km_points_read(c->init_file, c->init_fmt, "init_file", c->d, r->c0, (size_t)c->k,
                                &n, &dd, NULL, NULL, err);
        if (rc == 0 && n != (size_t)c->k)
            rc = core_err_set(err, CORE_ERR_INVALID,
                              "kmeans: init_file '%s' holds %zu centres, but k = %d", c->init_file,
                              n, c->k);
        return rc;
    }
    size_t *idx = core_xmalloc((size_t)c->k * sizeof *idx);
    if (c->init == KM_INIT_RANDOM)
        km_init_random(c->n, c->k, c->seed, idx);
    else
        for (int i = 0; i < c->k; i++)
            idx[i] = (size_t)i;
    for (int i = 0; i < c->k; i++)
        memcpy(r->c0 + (size_t)i * d, r->sh.x + idx[i] * d, d * sizeof *r->c0);
    free(idx);
    return 0;
}

static void km_fnv_text(const void *p, size_t n, char out[17])
{
    snprintf(out, 17, "%016llx", (unsigned long long)core_fnv1a(CORE_FNV_OFFSET, p, n));
}

static int km_run_lab(struct lab_ctx *cx, struct core_err *err)
{
    const struct lab_params *pp = lab_ctx_params(cx);
    const struct lab_machine *m = lab_ctx_machine(cx);
    struct lab_procs *ps = lab_ctx_procs(cx);
    struct km_run R;
    struct km_run *r = &R;
    struct km_loop main_loop = {0}, *scale = NULL;
    int n_scale = 0, p_scale = 0, rc;

    memset(r, 0, sizeof *r);
    r->cx = cx;
    r->clk = lab_ctx_clock(cx) ? lab_ctx_clock(cx) : core_clock_real();
    if ((rc = km_cfg_read(pp, m->mem_bytes, false, km_stop, cx, &r->cfg, err)) != 0)
        return rc;
    const struct km_cfg *c = &r->cfg;
    const size_t kd = (size_t)c->k * (size_t)c->d;
    if (c->mpi && lab_mpi_env_rank() < 0) /* Open MPI's mpirun runs it, rank 0 reports here */
        return lab_mpi_launch(cx, 1 + c->workers, err);
    bool mpi_up = false;
    if (c->mpi) {
        if ((rc = lab_mpi_init(err)) != 0)
            return rc;
        mpi_up = true;
    }
    if (*c->file && lab_param_user_set(pp, "spread"))
        lab_log(cx, LAB_LOG_INFO, "spread shapes generated points only: ignored with a file");

    /* shared memory: points, two centre buffers, labels */
    float *x = lab_shm_alloc(ps, c->n * (size_t)c->d * sizeof(float), err);
    float *cb = x ? lab_shm_alloc(ps, 2 * kd * sizeof(float), err) : NULL;
    int32_t *labels = cb ? lab_shm_alloc(ps, c->n * sizeof(int32_t), err) : NULL;
    if (!labels) {
        rc = core_err_prefix(err, "kmeans: %zu points of d = %d", c->n, c->d);
        goto out;
    }
    r->sh = (struct km_shared){x,      c->n,        c->d,     c->k,   {cb, cb + kd},
                               labels, c->combiner, c->crash, c->seed};
    r->c0 = core_xmalloc(kd * sizeof *r->c0);
    r->cur = core_xmalloc(kd * sizeof *r->cur);
    r->rsum = core_xmalloc(kd * sizeof *r->rsum);
    r->rcnt = core_xmalloc((size_t)c->k * sizeof *r->rcnt);

    if ((rc = km_points(r, err)) != 0 || (rc = km_init_centres(r, err)) != 0)
        goto out;

    /* the device */
    bool use_gpu = false;
    if (c->gpu) {
        r->bounds = core_xmalloc(((size_t)c->tasks + 1) * sizeof *r->bounds);
        for (int t = 0; t <= c->tasks; t++)
            r->bounds[t] = (size_t)((uint64_t)t * (uint64_t)c->n / (uint64_t)c->tasks);
        struct core_err gerr;
        core_err_clear(&gerr);
        if (kern_probe(&r->dev, &gerr) == 0 &&
            kern_kmeans_gpu_new(&r->gpu, x, c->n, c->d, c->k, r->bounds, c->tasks, &gerr) == 0) {
            use_gpu = true;
            r->gsum = core_xmalloc((size_t)c->tasks * kd * sizeof *r->gsum);
            r->gcnt = core_xmalloc((size_t)c->tasks * (size_t)c->k * sizeof *r->gcnt);
            r->gsse = core_xmalloc((size_t)c->tasks * sizeof *r->gsse);
            lab_log(cx, LAB_LOG_INFO, "device=gpu: the map runs on %s", r->dev.name);
        } else {
            lab_log(cx, LAB_LOG_NOTE, "%s: device=gpu runs the map on the CPU workers instead",
                    gerr.msg);
        }
    }
    int P = use_gpu ? 1 : c->workers;
    if (!use_gpu && !c->mpi && m->cores_online > 0 && P > m->cores_online)
        lab_log(cx, LAB_LOG_WARN,
                "workers = %d is more than the %d online cores: workers share cores, so the "
                "speedup cannot keep growing",
                P, m->cores_online);
    if (!use_gpu && c->tasks < P)
        lab_log(cx, LAB_LOG_WARN, "tasks = %d is fewer than workers = %d: some workers get no task",
                c->tasks, P);

    /* the workers (with a GPU: one, for the CPU baseline) */
    bool need_workers = !use_gpu || c->scale_iters > 0;
    if (need_workers) {
        double strag[KM_MAX_WORKERS];
        for (int s = 0; s < KM_MAX_WORKERS; s++)
            strag[s] = lab_straggler_factor(&c->strag, s);
        km_engine_init(&r->eng, cx, &r->sh, P, c->tasks, strag);
        r->eng.mpi = c->mpi;
        r->have_engine = true;
        lab_progress(cx, 0.1, "starting the workers");
        if ((rc = km_engine_start(&r->eng, err)) != 0)
            goto out;
        lab_log(cx, LAB_LOG_INFO, "%d worker %s%s, %d map tasks of about %zu points, combiner %s%s",
                P, c->mpi ? "rank" : "process", P > 1 ? (c->mpi ? "s" : "es") : "", c->tasks,
                c->n / (size_t)c->tasks, c->combiner ? "on" : "off",
                use_gpu ? " (the CPU baseline)" : "");
    }
    if (c->strag.worker > 0)
        lab_log(cx, LAB_LOG_INFO, "worker %d is a straggler: %g times slower", c->strag.worker,
                c->strag.factor);

    /* the speedup passes: p = 1 .. P-1 (a GPU: p = 1 on the CPU) */
    p_scale = c->scale_iters > 0 ? (use_gpu ? 1 : P - 1) : 0;
    int s_iters = c->scale_iters < c->max_iter ? c->scale_iters : c->max_iter;
    scale = core_xcalloc((size_t)(p_scale > 0 ? p_scale : 1), sizeof *scale);
    for (int p = 1; p <= p_scale; p++) {
        char what[64];
        snprintf(what, sizeof what, "timing %d iteration%s on p = %d", s_iters,
                 s_iters > 1 ? "s" : "", p);
        lab_progress(cx, 0.1 + 0.1 * (p - 1) / p_scale, what);
        if ((rc = km_iterate(r, p, false, s_iters, false, &scale[p - 1], err)) != 0)
            goto out;
        n_scale = p;
        if (p == 1) {
            r->snap = core_xmalloc(kd * sizeof *r->snap);
            memcpy(r->snap, r->cur, kd * sizeof *r->snap);
            r->snap_iters = scale[0].iters;
        } else if (scale[p - 1].iters != r->snap_iters ||
                   memcmp(r->snap, r->cur, kd * sizeof *r->snap) != 0) {
            rc = core_err_set(err, CORE_ERR_INTERNAL,
                              "kmeans: determinism check failed: %d iterations on %d workers "
                              "differ from those on 1",
                              r->snap_iters, p);
            goto out;
        }
        double tp = scale[p - 1].med_s, t1 = scale[0].med_s;
        lab_emit(cx, "time_p", p, 1e3 * tp);
        lab_emit(cx, "speedup", p, tp > 0 ? t1 / tp : 0);
        lab_emit(cx, "ideal", p, p);
        lab_log(cx, LAB_LOG_INFO, "p = %d: %.2f ms per iteration (median of %d), speedup %.2f", p,
                1e3 * tp, scale[p - 1].iters, tp > 0 ? t1 / tp : 0);
    }

    /* the main run */
    lab_progress(cx, 0.2, "iterating");
    if ((rc = km_iterate(r, P, use_gpu, c->max_iter, true, &main_loop, err)) != 0)
        goto out;
    double tP = main_loop.med_s;
    if (!use_gpu && (n_scale > 0 || P == 1)) {
        double t1 = n_scale > 0 ? scale[0].med_s : tP;
        lab_emit(cx, "time_p", P, 1e3 * tP);
        lab_emit(cx, "speedup", P, tP > 0 ? t1 / tP : 0);
        lab_emit(cx, "ideal", P, P);
    }

    /* the final assignment: every point to its final centre */
    lab_progress(cx, 0.98, "assigning the points to the final centres");
    double final_sse = 0;
    struct km_pass_stats lst;
    memset(&lst, 0, sizeof lst);
    if (use_gpu) {
        if ((rc = km_gpu_step(r, labels, &lst, err)) != 0)
            goto out;
        for (int t = 0; t < c->tasks; t++)
            final_sse += r->gsse[t];
    } else {
        memcpy(r->sh.centres[km_engine_next_buf(&r->eng)], r->cur, kd * sizeof *r->cur);
        if ((rc = km_engine_pass(&r->eng, KM_OP_LABEL, P, true, (uint32_t)main_loop.iters + 1, &lst,
                                 err)) != 0)
            goto out;
        for (int t = 0; t < c->tasks; t++)
            final_sse += r->eng.psse[t];
    }

    /* per worker: tasks done and attempts, over the main run */
    if (!use_gpu)
        for (int s = 0; s < P; s++) {
            lab_emit(cx, "tasks_worker", s + 1, (double)main_loop.tasks_by_slot[s]);
            lab_emit(cx, "attempts_worker", s + 1, (double)r->eng.slot[s].attempts);
        }

    /* ---- the summary ---- */
    int it = main_loop.iters;
    double tmean = (main_loop.sum_map_s + main_loop.sum_shuffle_s + main_loop.sum_reduce_s) / it;
    char key[64], label[128], fnv[17], lfnv[17];
    lab_figure_num(cx, "iter_ms", 1e3 * tP, "ms", "median time per iteration");
    lab_figure_num(cx, "iterations", it, "", "iterations run");
    lab_figure_num(cx, "converged", main_loop.converged, "",
                   "1 when no centre moved more than tol");
    lab_figure_num(cx, "final_sse", final_sse, "", "SSE of the final centres");
    lab_figure_num(cx, "sse_first", main_loop.sse_first, "", "SSE of iteration 1");
    lab_figure_num(cx, "shift_final", main_loop.shift_last, "",
                   "largest centre move, last iteration");
    lab_figure_num(cx, "iter_ms_mean", 1e3 * tmean, "ms", "mean time per iteration");
    lab_figure_num(cx, "map_ms", 1e3 * main_loop.sum_map_s / it, "ms", "map per iteration (mean)");
    lab_figure_num(cx, "shuffle_ms", 1e3 * main_loop.sum_shuffle_s / it, "ms",
                   "shuffle per iteration (mean)");
    lab_figure_num(cx, "reduce_ms", 1e3 * main_loop.sum_reduce_s / it, "ms",
                   "reduce per iteration (mean)");
    lab_figure_num(cx, "map_cpu_ms", 1e3 * main_loop.sum_map_cpu_s / it, "ms",
                   "worker time in map tasks per iteration, all workers");
    lab_figure_num(cx, "shuffle_bytes", (double)main_loop.bytes / it, "B",
                   "bytes shuffled per iteration (mean)");
    lab_figure_num(cx, "shuffle_records", (double)main_loop.records / it, "",
                   "records shuffled per iteration (mean)");
    lab_figure_num(cx, "shuffle_bytes_total", (double)main_loop.bytes, "B",
                   "bytes shuffled in all iterations");
    lab_figure_num(cx, "nkd_per_s", tP > 0 ? (double)c->n * c->k * c->d / tP : 0, "/s",
                   "distance terms n·k·d per second");
    if (n_scale > 0 || (!use_gpu && P == 1)) {
        double t1 = n_scale > 0 ? scale[0].med_s : tP;
        double sp = tP > 0 ? t1 / tP : 0;
        lab_figure_num(cx, "speedup", sp, "×",
                       use_gpu ? "GPU speedup over 1 CPU worker" : "measured speedup T(1)/T(p)");
        if (!use_gpu)
            lab_figure_num(cx, "efficiency", 100.0 * sp / P, "%", "speedup / workers");
        for (int p = 1; p <= n_scale; p++) {
            snprintf(key, sizeof key, "iter_ms_p%d", p);
            snprintf(label, sizeof label, "median time per iteration at p=%d", p);
            lab_figure_num(cx, key, 1e3 * scale[p - 1].med_s, "ms", label);
            snprintf(key, sizeof key, "speedup_p%d", p);
            snprintf(label, sizeof label, "measured speedup at p=%d", p);
            lab_figure_num(cx, key, scale[p - 1].med_s > 0 ? t1 / scale[p - 1].med_s : 0, "×",
                           label);
        }
        if (!use_gpu && P > n_scale) {
            snprintf(key, sizeof key, "iter_ms_p%d", P);
            snprintf(label, sizeof label, "median time per iteration at p=%d", P);
            lab_figure_num(cx, key, 1e3 * tP, "ms", label);
            snprintf(key, sizeof key, "speedup_p%d", P);
            snprintf(label, sizeof label, "measured speedup at p=%d", P);
            lab_figure_num(cx, key, sp, "×", label);
        }
    } else {
        lab_log(cx, LAB_LOG_INFO, "speedup not measured: scale_iters = 0");
    }
    lab_figure_num(cx, "reexec", main_loop.reexec + lst.reexec, "", "map task re-executions");
    lab_figure_num(cx, "crashes", main_loop.crashes + lst.crashes, "", "workers that crashed");
    lab_figure_num(cx, "speculative", main_loop.speculative + lst.speculative, "",
                   "backup copies of late tasks");
    lab_figure_num(cx, "timeouts", main_loop.timeouts + lst.timeouts, "",
                   "workers killed for not answering");
    lab_figure_num(cx, "respawns", main_loop.respawns + lst.respawns, "", "workers restarted");
    lab_figure_num(cx, "empty_clusters", main_loop.empty, "",
                   "clusters left without points (summed over iterations)");
    if (r->snap_checked || n_scale > 1)
        lab_figure_num(cx, "deterministic", 1, "",
                       "1: every p reached the same centres, bit for bit");
    lab_figure_num(cx, "n", (double)c->n, "", "points");
    lab_figure_num(cx, "d", c->d, "", "dimensions");
    lab_figure_num(cx, "k", c->k, "", "clusters");
    lab_figure_num(cx, "workers", use_gpu ? 0 : P, "", "worker processes (0: the GPU)");
    lab_figure_num(cx, "tasks", c->tasks, "", "map tasks per iteration");
    lab_figure_num(cx, "combiner", c->combiner, "", "1: combiner on");
    lab_figure_num(cx, "cores", m->cores_online, "", "online CPU cores");
    km_fnv_text(r->cur, kd * sizeof *r->cur, fnv);
    lab_figure_str(cx, "centres_fnv", fnv, "FNV-1a of the final centres");
    km_fnv_text(labels, c->n * sizeof *labels, lfnv);
    lab_figure_str(cx, "labels_fnv", lfnv, "FNV-1a of the final labels");
    if (use_gpu) {
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
    lab_log(cx, LAB_LOG_INFO,
            "%s after %d iteration%s: final SSE %.6g; %.2f ms per iteration; %d re-run%s; "
            "centres %s",
            main_loop.converged ? "converged" : "stopped at max_iter", it, it > 1 ? "s" : "",
            final_sse, 1e3 * tP, main_loop.reexec + lst.reexec,
            main_loop.reexec + lst.reexec == 1 ? "" : "s", fnv);
    if (*c->save) {
        if ((rc = km_centres_save(c->save, r->cur, c->k, c->d, c->overwrite, err)) != 0)
            goto out;
        lab_log(cx, LAB_LOG_INFO, "final centres written to %s", c->save);
    }
    lab_progress(cx, 1, "done");
    rc = 0;
out:
    if (r->have_engine) {
        km_engine_stop(&r->eng);
        km_engine_fini(&r->eng);
    }
    if (mpi_up && !lab_mpi_term_noted()) {
        lab_mpi_end_all(); /* every rank lets go */
        lab_mpi_finish();
    }
    if (rc && lab_mpi_term_noted())
        rc = core_err_set(err, CORE_ERR_INTERNAL,
                          "kmeans: Open MPI ended the job (rank 0 had SIGTERM from mpirun): "
                          "another rank died or mpirun was stopped");
    kern_kmeans_gpu_free(r->gpu);
    for (int p = 0; scale && p < p_scale; p++)
        free(scale[p].iter_s);
    free(scale);
    free(main_loop.iter_s);
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
    return rc;
}

/* lab_def.mpi_workers: every rank but rank 0 maps. */
static int km_mpi_workers(const struct lab_params *p, int ranks)
{
    (void)p;
    return ranks - 1;
}

const struct lab_def lab_kmeans = {
    .name = "kmeans",
    .title = "MapReduce k-means over worker processes",
    .summary = "map/shuffle/reduce k-means on p workers: SSE, phase times, combiner, crashes and "
               "stragglers, bit-identical results, speedup",
    .params = km_params,
    .n_params = sizeof km_params / sizeof km_params[0],
    .series = km_series,
    .n_series = sizeof km_series / sizeof km_series[0],
    .check = km_cfg_check,
    .run = km_run_lab,
    .mpi_workers = km_mpi_workers,
    .rank = km_mpi_rank_main,
    .charts = km_charts,
    .n_charts = sizeof km_charts / sizeof km_charts[0],
};
