/*
 * lab_kmeans_loop.c — the k-means lab's run loop: the points and the
 * initial centres, one iteration after another (the broadcast, the map
 * pass on the workers or the GPU, the reduce, the live series and log),
 * the GPU step with its check against the CPU in iteration 1, and the
 * determinism check against the p = 1 pass.
 *
 * Uses the lab framework (lab_author.h), the MapReduce engine and loaders
 * (lab_kmeans.h) and the kernels module (the map routine, the GPU map).
 */
#include "labs/kmeans/lab_kmeans.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KM_LOG_ITERS 20 /* every iteration is logged up to this one, then every 10th */
#define KM_EMPTY_LOGS 5

static double km_now(const struct km_run *r)
{
    return r->clk->now(r->clk->ctx);
}

bool lab_km_run_stop(void *ud)
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
int lab_km_gpu_step(struct km_run *r, int32_t *labels, struct km_pass_stats *st,
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
    int rc = lab_km_gpu_step(r, gl, &st, err);
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
int lab_km_iterate(struct km_run *r, int p_use, bool use_gpu, int max_iter, bool main,
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
            rc = lab_km_gpu_step(r, NULL, &st, err);
            psum = r->gsum;
            pcnt = r->gcnt;
            psse = r->gsse;
        } else {
            /* the broadcast: the centres into the buffer the pass reads */
            memcpy(r->sh.centres[lab_km_engine_next_buf(&r->eng)], r->cur, kd * sizeof *r->cur);
            rc = lab_km_engine_pass(&r->eng, KM_OP_MAP, p_use, main, (uint32_t)it, &st, err);
            psum = r->eng.psum;
            pcnt = r->eng.pcnt;
            psse = r->eng.psse;
        }
        if (rc != 0)
            goto out;
        double t1 = km_now(r), shift;
        int empty, first_empty;
        double sse = lab_km_reduce(psum, pcnt, psse, c->tasks, c->k, c->d, r->cur, r->rsum, r->rcnt,
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
            lab_emit(cx, "backups", it, st.speculative);
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
int lab_km_points(struct km_run *r, struct core_err *err)
{
    const struct km_cfg *c = &r->cfg;
    struct lab_ctx *cx = r->cx;
    float *x = (float *)r->sh.x;
    if (*c->file) {
        char what[320];
        char *line = core_xasprintf("reading %s", c->file);
        core_err_fit(line, strlen(line), what, sizeof what); /* a long path: shortened */
        free(line);
        lab_progress(cx, 0, what);
        size_t n = 0;
        int d = 0;
        int rc = lab_km_points_read(c->file, c->fmt, "file", c->d, x, c->n, &n, &d, lab_km_run_stop,
                                    cx, err);
        if (rc != 0)
            return rc;
        lab_log(cx, LAB_LOG_INFO, "%zu points of d = %d from '%s'%s", c->n, c->d, c->file,
                c->n < c->n_file ? " (the first n of them)" : "");
        return 0;
    }
    lab_progress(cx, 0, "generating the points");
    if (!lab_km_generate(x, c->n, c->d, c->k, c->spread, c->seed, lab_km_run_stop, cx))
        return core_err_set(err, CORE_ERR_CANCELLED, "cancelled");
    lab_log(cx, LAB_LOG_INFO,
            "%zu points of d = %d generated: %d Gaussian blobs, spread %g, seed %llu", c->n, c->d,
            c->k, c->spread, (unsigned long long)c->seed);
    return 0;
}

int lab_km_init_centres(struct km_run *r, struct core_err *err)
{
    const struct km_cfg *c = &r->cfg;
    const size_t d = (size_t)c->d;
    if (c->init == KM_INIT_FILE) {
        size_t n;
        int dd;
        int rc = lab_km_points_read(c->init_file, c->init_fmt, "init_file", c->d, r->c0,
                                    (size_t)c->k, &n, &dd, NULL, NULL, err);
        if (rc == 0 && n != (size_t)c->k)
            rc = core_err_set(err, CORE_ERR_INVALID,
                              "kmeans: init_file '%s' holds %zu centres, but k = %d", c->init_file,
                              n, c->k);
        return rc;
    }
    size_t *idx = core_xmalloc((size_t)c->k * sizeof *idx);
    if (c->init == KM_INIT_RANDOM)
        lab_km_init_random(c->n, c->k, c->seed, idx);
    else
        for (int i = 0; i < c->k; i++)
            idx[i] = (size_t)i;
    for (int i = 0; i < c->k; i++)
        memcpy(r->c0 + (size_t)i * d, r->sh.x + idx[i] * d, d * sizeof *r->c0);
    free(idx);
    return 0;
}
