/*
 * lab_serving.c — lab "serving": batching, latency and Little's law,
 * measured on a real little inference service.
 *
 * Processes. A load generator process sends requests (an id and the
 * request's input, d floats) over its socket at the times of a Poisson
 * process of rate λ (exponential gaps from the seed; open loop: a late send
 * does not delay the next one's schedule). The lab's thread is the server's
 * front end: it receives each request, queues it, and hands batches to
 * `workers` worker processes over their sockets by dynamic batching — a
 * batch leaves when max_batch requests wait, or when the oldest has waited
 * max_wait_ms, whichever comes first, and only to an idle worker. A worker
 * runs the model's forward pass (an MLP d -> hidden -> d, ReLU,
 * on our packed GEMM; the weights live once in shared memory) and sends the
 * answers back. With a GPU (device auto or gpu) one worker runs the batches
 * through cuBLAS instead; it is a thread of the lab's process at the end of
 * a socketpair, speaking the same protocol, because CUDA does not survive
 * fork() and the lab's process has already talked to the driver.
 *
 * The books (lab_serve.h) record every request's arrival, dispatch and
 * answer; they refuse a second answer, and every answer of every sampled
 * request (every check_every-th) is compared with the front end's own
 * forward pass of that request's input, so a batch that mixed requests up
 * fails the run. Every figure is computed from the books.
 *
 * The run: (1) calibration — batches of B = 1, 2, 4, ..., max_batch through
 * worker 1, the worker's compute time and the round trip the front end
 * sees; t(B) = t0 + c·B fitted; capacity(B) = workers · B / round trip.
 * (2) the rate sweep (`loads`, fractions of the capacity at max_batch): a
 * point of duration_s at each λ. (3) the max-batch sweep: max_batch = 1, 2,
 * 4, ... at one rate (`rate`, or 0: min(0.7 × capacity at max_batch, 2 ×
 * capacity at batch 1)). Live, every 100 ms: requests in the system and in
 * the queue, throughput and p50/p99 of the answers of the last 100 ms; the
 * histogram of batch sizes so far.
 *
 * Little's law: L (the time-averaged number in the system while requests
 * arrive, from the books: Σ of each request's time in the system that falls
 * inside the window, over the window) against λ (the rate set) times W (the
 * mean time in the system of those requests): little_err. The same L from
 * samples every sample_ms (what a monitor polling the queue sees) is
 * little_l_sampled: noisier. From the books alone, the
 * time-average of the number in the system over a point equals the
 * measured arrival rate times W exactly (both are Σ W / span): little_identity
 * is that check of the bookkeeping.
 *
 * Summary figures (the lesson lists them too):
 *   device, no_gpu, workers, max_batch, max_wait_ms, d, hidden, params;
 *   service_ms_bB and roundtrip_ms_bB (B = 1 and max_batch), t0_ms, c_ms
 *   (the fit), capacity_b1, capacity_bmax (req/s, all workers),
 *   batch_gain (capacity_bmax / capacity_b1);
 *   per load point (suffix _loadNN, NN = 100 × the fraction): rate,
 *   throughput, p50_ms, p95_ms, p99_ms, wait_ms (mean time in the queue),
 *   w_ms (mean time in the system), queue (mean length), batch (mean
 *   size), little_l, little_l_sampled, little_lw, little_err, util (busy fraction of the
 *   workers), svc_ms (mean forward pass per batch), stable (1 when the
 *   answers kept up with the rate: 95% or more of it);
 *   per max-batch point (suffix _mbB): p50_ms, p99_ms, throughput, batch;
 *   batch_rate; little_err_max (over the stable points: an overloaded
 *   service has no steady state, and Little's law needs one), stable_points,
 *   little_identity_max, requests, answered,
 *   duplicates, outputs_checked, output_max_diff, latency_min_ms,
 *   p99_growth (p99 at the highest load / at the lowest), throughput_max.
 *
 * Files: this one holds the lab's definition, its parameter checks and
 * the run's outline (calibration, the sweeps, the figures);
 * lab_serve_front.c the front end and the calibration; lab_serve_procs.c
 * the generator, the workers and the GPU thread; lab_serve_book.c the
 * books, the schedule and the model (pure).
 *
 * Uses the lab framework (lab_author.h: processes, shared memory, sockets with a
 * cancel flag), the books and model (lab_serve.h) and kernels (GEMM,
 * cuBLAS, the GPU probe). lab_run() kills and reaps every process left.
 */
#include "labs/serving/lab_serve.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- parameters ---------------------------------------------------------------------------- */

/* Reads "0.1,0.5,0.9" into v (at most SV_MAX_LOADS values in (0, 1.5]).
 * Returns the count, or CORE_ERR_INVALID naming the parameter. */
static int sv_loads(const char *s, double *v, struct core_err *err)
{
    int n = 0;
    const char *p = s;
    while (*p) {
        double x;
        size_t used;
        if (core_num_parse(p, strlen(p), 0, &x, &used, NULL) != CORE_OK || !(x > 0 && x <= 1.5))
            return core_err_set(err, CORE_ERR_INVALID,
                                "serving: parameter 'loads' must be a comma-separated list of "
                                "fractions of capacity, each above 0 and at most 1.5 (\"%s\")",
                                s);
        if (n == SV_MAX_LOADS)
            return core_err_set(err, CORE_ERR_INVALID,
                                "serving: parameter 'loads' lists more than %d values",
                                SV_MAX_LOADS);
        v[n++] = x;
        p += used;
        while (*p == ' ')
            p++;
        if (*p == ',')
            p++;
        else if (*p)
            return core_err_set(err, CORE_ERR_INVALID,
                                "serving: parameter 'loads': expected ',' after %g in \"%s\"", x,
                                s);
    }
    if (n == 0)
        return core_err_set(err, CORE_ERR_INVALID, "serving: parameter 'loads' is empty");
    return n;
}

static void sv_point_figs(struct sv_run *r, const struct sv_point *pt, const char *suffix,
                          const char *what)
{
    struct lab_ctx *cx = r->cx;
    char key[64], label[128];
#define SV_FIG(stem, v, unit, text)                                                                \
    do {                                                                                           \
        snprintf(key, sizeof key, "%s_%s", stem, suffix);                                          \
        snprintf(label, sizeof label, "%s, %s", text, what);                                       \
        lab_figure_num(cx, key, v, unit, label);                                                   \
    } while (0)
    SV_FIG("rate", pt->rate, "req/s", "arrival rate set");
    SV_FIG("throughput", pt->st.throughput, "req/s", "answered per second");
    SV_FIG("p50_ms", 1000 * pt->st.p50, "ms", "median time in system");
    SV_FIG("p95_ms", 1000 * pt->st.p95, "ms", "95th percentile");
    SV_FIG("p99_ms", 1000 * pt->st.p99, "ms", "99th percentile");
    SV_FIG("w_ms", 1000 * pt->st.w_mean, "ms", "mean time in system W");
    SV_FIG("wait_ms", 1000 * pt->st.wq_mean, "ms", "mean time in the queue");
    SV_FIG("queue", pt->st.q_mean, "", "mean queue length");
    SV_FIG("batch", pt->st.batch_mean, "", "mean batch size");
    SV_FIG("little_l", pt->l_window, "", "L: time-averaged number in system");
    SV_FIG("little_l_sampled", pt->l_sampled, "", "L sampled every sample_ms");
    SV_FIG("little_lw", pt->rate * pt->st.w_mean, "", "lambda x W");
    SV_FIG("little_err", 100 * pt->little_err, "%", "|L / (lambda W) - 1|");
    SV_FIG("util", 100 * pt->util, "%", "workers busy");
    SV_FIG("svc_ms", pt->svc_ms, "ms", "mean forward pass per batch");
    SV_FIG("stable", pt->stable, "", "1: the service kept up with the rate");
#undef SV_FIG
}

static void sv_point_log(struct sv_run *r, const struct sv_point *pt, const char *what)
{
    lab_log(r->cx, LAB_LOG_INFO,
            "%s: lambda %.0f/s, throughput %.0f/s, p50 %.2f / p95 %.2f / p99 %.2f ms, queue %.2f, "
            "batch %.2f (%.2f ms each), util %.0f%%; Little: L %.3f vs lambda W %.3f (%.1f%%)%s",
            what, pt->rate, pt->st.throughput, 1000 * pt->st.p50, 1000 * pt->st.p95,
            1000 * pt->st.p99, pt->st.q_mean, pt->st.batch_mean, pt->svc_ms, 100 * pt->util,
            pt->l_window, pt->rate * pt->st.w_mean, 100 * pt->little_err,
            pt->stable ? "" : " — overloaded: no steady state, Little's law does not apply");
}

static int sv_memory_check(const struct lab_params *p, const struct lab_machine *m,
                           struct core_err *err)
{
    struct srv_model_dims dims = {(int)lab_param_num(p, "d"), (int)lab_param_num(p, "hidden")};
    double bytes = 4.0 * (double)lab_srv_model_params(dims) * (lab_param_num(p, "workers") + 2);
    if (m->mem_bytes > 0 && bytes > (double)m->mem_bytes / 4)
        return core_err_set(err, CORE_ERR_INVALID,
                            "serving: parameters 'd' (%d) and 'hidden' (%d) make a model of %.0f "
                            "MiB; with a copy per worker that is more than a quarter of this "
                            "machine's memory",
                            dims.d, dims.hidden,
                            4.0 * (double)lab_srv_model_params(dims) / 1048576);
    return 0;
}

static int sv_check_with(const struct lab_params *p, const struct lab_machine *m,
                         struct core_err *err)
{
    double loads[SV_MAX_LOADS];
    int n = sv_loads(lab_param_str(p, "loads"), loads, err);
    if (n < 0)
        return n;
    double rate = lab_param_num(p, "rate"), dur = lab_param_num(p, "duration_s");
    if (rate * dur > SV_MAX_REQUESTS)
        return core_err_set(err, CORE_ERR_INVALID,
                            "serving: parameters 'rate' (%g) and 'duration_s' (%g) ask for %.0f "
                            "requests in one point; at most %.0f",
                            rate, dur, rate * dur, SV_MAX_REQUESTS);
    if (strcmp(lab_param_str(p, "sweep"), "none") == 0 && !(rate > 0))
        return core_err_set(err, CORE_ERR_INVALID,
                            "serving: sweep=none runs one point at parameter 'rate', which must "
                            "then be above 0");
    const char *device = lab_param_str(p, "device");
    struct core_err why;
    core_err_clear(&why);
    if (strcmp(device, "gpu") == 0 && kern_probe(NULL, &why) != 0)
        return core_err_set(err, CORE_ERR_INVALID,
                            "serving: parameter 'device' is gpu, but %s (use device=auto or "
                            "device=cpu)",
                            why.msg);
    if (strcmp(device, "gpu") == 0 && !kern_built_with_cublas())
        return core_err_set(err, CORE_ERR_INVALID,
                            "serving: parameter 'device' is gpu, but this build has no cuBLAS");
    return sv_memory_check(p, m, err);
}

static int sv_check(const struct lab_params *p, struct core_err *err)
{
    struct lab_machine m;
    lab_machine_probe(&m);
    return sv_check_with(p, &m, err);
}

/* ---- the run -------------------------------------------------------------------------------- */

/* What the run does, as its parameters say, and what its sweeps found. */
struct sv_plan {
    const char *device;
    bool do_rate, do_batch;
    double loads[SV_MAX_LOADS];
    int nl;
    int max_batch;
    double max_wait, duration;
    struct core_err why; /* why the GPU does not serve ("" when it does, or device=cpu) */
    struct sv_calib cal;
    int done, total; /* points run, points planned (progress) */
    double little_max, ident_max, p99_lo, p99_hi, thr_max;
    int n_stable;
};

/* The parameters into r and pl, and the header: CPU workers, or the GPU,
 * and why not. */
static int sv_plan_read(struct sv_run *r, struct sv_plan *pl, struct core_err *err)
{
    struct lab_ctx *cx = r->cx;
    const struct lab_params *pp = lab_ctx_params(cx);
    int rc;
    if ((rc = sv_check_with(pp, lab_ctx_machine(cx), err)) != 0)
        return rc;
    const char *sweep = lab_param_str(pp, "sweep");
    pl->device = lab_param_str(pp, "device");
    pl->do_rate = strcmp(sweep, "all") == 0 || strcmp(sweep, "rate") == 0;
    pl->do_batch = strcmp(sweep, "all") == 0 || strcmp(sweep, "batch") == 0;
    pl->nl = sv_loads(lab_param_str(pp, "loads"), pl->loads, err);
    r->workers = (int)lab_param_num(pp, "workers");
    r->seed = (uint64_t)lab_param_num(pp, "seed");
    r->sample_s = lab_param_num(pp, "sample_ms") / 1000.0;
    r->check_every = (int)lab_param_num(pp, "check_every");
    r->sh.dims =
        (struct srv_model_dims){(int)lab_param_num(pp, "d"), (int)lab_param_num(pp, "hidden")};
    pl->max_batch = (int)lab_param_num(pp, "max_batch");
    pl->max_wait = lab_param_num(pp, "max_wait_ms") / 1000.0;
    pl->duration = lab_param_num(pp, "duration_s");
    pl->p99_lo = pl->p99_hi = NAN;
    r->sh.max_batch = pl->max_batch;
    for (int k = 0; k < SRV_MAX_WORKERS; k++)
        r->w[k].fd = -1;

    core_err_clear(&pl->why);
    if (strcmp(pl->device, "cpu") == 0) {
        lab_log(cx, LAB_LOG_INFO, "device=cpu: %d CPU worker process%s", r->workers,
                r->workers > 1 ? "es" : "");
    } else if (kern_probe(NULL, &pl->why) != 0) {
        lab_log(cx, LAB_LOG_WARN, "%s — the model runs on %d CPU worker process%s", pl->why.msg,
                r->workers, r->workers > 1 ? "es" : "");
    } else if (!kern_built_with_cublas()) {
        snprintf(
            pl->why.msg, sizeof pl->why.msg,
            "no cuBLAS: this build has CUDA but no cuBLAS (not in the toolkit, or WB_CUBLAS=OFF)");
        lab_log(cx, LAB_LOG_WARN, "%s — the model runs on CPU worker processes", pl->why.msg);
    } else {
        r->gpu = true;
        if (r->workers > 1)
            lab_log(cx, LAB_LOG_INFO, "the GPU serves alone: workers = %d is not used", r->workers);
        r->workers = 1;
    }
    return 0;
}

/* The weights, once, in shared memory the workers see; the front end's own
 * model (for the checks) and its buffers for one batch. */
static int sv_model(struct sv_run *r, const struct sv_plan *pl, struct core_err *err)
{
    size_t np = lab_srv_model_params(r->sh.dims);
    float *w = lab_shm_alloc(r->ps, np * sizeof(float), err);
    if (!w)
        return CORE_ERR_IO;
    lab_srv_model_init(r->sh.dims, r->seed, w);
    r->sh.w = w;
    int rc = lab_srv_mlp_open(&r->ref, r->sh.dims, w, 1, err);
    if (rc != 0)
        return rc;
    size_t d = (size_t)r->sh.dims.d, mb = (size_t)pl->max_batch;
    r->bid = core_xmalloc(mb * sizeof *r->bid);
    r->bx = core_xmalloc(mb * d * sizeof *r->bx);
    r->by = core_xmalloc(mb * d * sizeof *r->by);
    r->rx = core_xmalloc(d * sizeof *r->rx);
    r->ry = core_xmalloc(d * sizeof *r->ry);
    lab_log(r->cx, LAB_LOG_INFO,
            "model: MLP %d -> %d -> %d, %.2f M parameters (%.1f MiB); max batch %d, max wait "
            "%.1f ms",
            r->sh.dims.d, r->sh.dims.hidden, r->sh.dims.d, (double)np / 1e6,
            4.0 * (double)np / 1048576, pl->max_batch, pl->max_wait * 1000);
    return 0;
}

/* The calibration's figures, the key figure (shown by `lab runs`) first. */
static void sv_calib_figures(struct sv_run *r, const struct sv_plan *pl)
{
    struct lab_ctx *cx = r->cx;
    const struct sv_calib *cal = &pl->cal;
    lab_figure_num(cx, "capacity_bmax", cal->cap_bmax, "req/s",
                   "most requests per second, batches of max_batch");
    lab_figure_str(cx, "device", r->gpu ? "gpu" : "cpu", "where the model ran");
    if (!r->gpu && strcmp(pl->device, "cpu") != 0 && pl->why.msg[0])
        lab_figure_str(cx, "no_gpu", pl->why.msg, "why the GPU did not serve");
    lab_figure_num(cx, "workers", r->workers, "", "workers serving");
    lab_figure_num(cx, "max_batch", pl->max_batch, "", "largest batch");
    lab_figure_num(cx, "max_wait_ms", pl->max_wait * 1000, "ms",
                   "longest a request waits for a batch");
    lab_figure_num(cx, "d", r->sh.dims.d, "", "model input and output width");
    lab_figure_num(cx, "hidden", r->sh.dims.hidden, "", "model hidden width");
    lab_figure_num(cx, "params", (double)lab_srv_model_params(r->sh.dims), "", "model parameters");
    lab_figure_num(cx, "service_ms_b1", 1000 * cal->sv_b1, "ms", "forward pass, batch of 1");
    lab_figure_num(cx, "service_ms_bmax", 1000 * cal->sv_bmax, "ms",
                   "forward pass, batch of max_batch");
    lab_figure_num(cx, "roundtrip_ms_b1", 1000 * cal->rt_b1, "ms", "round trip, batch of 1");
    lab_figure_num(cx, "roundtrip_ms_bmax", 1000 * cal->rt_bmax, "ms",
                   "round trip, batch of max_batch");
    lab_figure_num(cx, "t0_ms", 1000 * cal->t0, "ms", "fit t(B) = t0 + c B: fixed cost per batch");
    lab_figure_num(cx, "c_ms", 1000 * cal->c, "ms", "fit t(B) = t0 + c B: cost per request");
    lab_figure_num(cx, "capacity_b1", cal->cap_b1, "req/s", "most requests per second, batch of 1");
    lab_figure_num(cx, "capacity_bmax", cal->cap_bmax, "req/s",
                   "most requests per second, batches of max_batch");
    lab_figure_num(cx, "batch_gain", cal->cap_bmax / cal->cap_b1, "x",
                   "capacity at max_batch / at batch 1");
    lab_log(cx, LAB_LOG_INFO,
            "t(B) = %.3f ms + %.3f ms x B; capacity %.0f req/s at batch 1, %.0f at batch %d "
            "(%.2fx)",
            1000 * cal->t0, 1000 * cal->c, cal->cap_b1, cal->cap_bmax, pl->max_batch,
            cal->cap_bmax / cal->cap_b1);
}

/* The rate sweep: a point at each load (a fraction of the capacity), its
 * series, figures and log line. */
static int sv_rate_sweep(struct sv_run *r, struct sv_plan *pl, struct core_err *err)
{
    struct lab_ctx *cx = r->cx;
    const struct lab_params *pp = lab_ctx_params(cx);
    double cap =
        lab_param_num(pp, "capacity") > 0 ? lab_param_num(pp, "capacity") : pl->cal.cap_bmax;
    for (int i = 0; i < pl->nl; i++)
        if (pl->loads[i] * cap * pl->duration > SV_MAX_REQUESTS)
            return core_err_set(err, CORE_ERR_INVALID,
                                "serving: load %g of the capacity %.0f req/s for duration_s = %g "
                                "is %.0f requests, more than %.0f: set 'capacity' or 'duration_s' "
                                "lower",
                                pl->loads[i], cap, pl->duration, pl->loads[i] * cap * pl->duration,
                                SV_MAX_REQUESTS);
    lab_figure_num(cx, "capacity_used", cap, "req/s", "what the loads are fractions of");
    for (int i = 0; i < pl->nl; i++) {
        struct sv_point pt = {.rate = pl->loads[i] * cap,
                              .duration = pl->duration,
                              .max_wait = pl->max_wait,
                              .max_batch = pl->max_batch};
        char what[64], suffix[32];
        snprintf(what, sizeof what, "load %.0f%% of capacity: %.0f req/s", 100 * pl->loads[i],
                 pt.rate);
        lab_progress(cx, 0.05 + 0.95 * pl->done++ / pl->total, what);
        int rc = lab_srv_run_point(r, &pt, err);
        if (rc != 0)
            return rc;
        int64_t x = (int64_t)llround(pt.rate);
        lab_emit(cx, "p50_ms", x, 1000 * pt.st.p50);
        lab_emit(cx, "p95_ms", x, 1000 * pt.st.p95);
        lab_emit(cx, "p99_ms", x, 1000 * pt.st.p99);
        lab_emit(cx, "throughput", x, pt.st.throughput);
        lab_emit(cx, "offered", x, pt.rate);
        lab_emit(cx, "little_l", x, pt.l_window);
        lab_emit(cx, "little_l_sampled", x, pt.l_sampled);
        lab_emit(cx, "little_lw", x, pt.rate * pt.st.w_mean);
        lab_emit(cx, "mean_queue", x, pt.st.q_mean);
        lab_emit(cx, "mean_batch", x, pt.st.batch_mean);
        snprintf(suffix, sizeof suffix, "load%.0f", 100 * pl->loads[i]);
        snprintf(what, sizeof what, "load %.0f%%", 100 * pl->loads[i]);
        sv_point_figs(r, &pt, suffix, what);
        sv_point_log(r, &pt, what);
        if (pt.stable)
            pl->little_max = fmax(pl->little_max, pt.little_err);
        pl->n_stable += pt.stable;
        pl->ident_max = fmax(pl->ident_max, pt.little_identity);
        pl->thr_max = fmax(pl->thr_max, pt.st.throughput);
        if (i == 0)
            pl->p99_lo = pt.st.p99;
        pl->p99_hi = pt.st.p99;
    }
    if (pl->n_stable > 0)
        lab_figure_num(cx, "little_err_max", 100 * pl->little_max, "%",
                       "worst |L / (lambda W) - 1| over the points that kept up");
    lab_figure_num(cx, "stable_points", pl->n_stable, "", "rate-sweep points that kept up");
    if (pl->nl >= 2)
        lab_figure_num(cx, "p99_growth", pl->p99_hi / pl->p99_lo, "x",
                       "p99 at the highest load / at the lowest");
    return 0;
}

/* The max-batch sweep: max_batch = 1, 2, 4, ... at one rate. */
static int sv_batch_sweep(struct sv_run *r, struct sv_plan *pl, struct core_err *err)
{
    struct lab_ctx *cx = r->cx;
    double rate = lab_param_num(lab_ctx_params(cx), "rate");
    if (!(rate > 0))
        rate = fmin(0.7 * pl->cal.cap_bmax, 2 * pl->cal.cap_b1);
    lab_figure_num(cx, "batch_rate", rate, "req/s", "arrival rate of the max-batch sweep");
    for (int bsz = 1; bsz <= pl->max_batch; bsz *= 2) {
        struct sv_point pt = {
            .rate = rate, .duration = pl->duration, .max_wait = pl->max_wait, .max_batch = bsz};
        char what[80], suffix[32];
        snprintf(what, sizeof what, "max batch %d at %.0f req/s", bsz, rate);
        lab_progress(cx, 0.05 + 0.95 * pl->done++ / pl->total, what);
        int rc = lab_srv_run_point(r, &pt, err);
        if (rc != 0)
            return rc;
        lab_emit(cx, "mb_p50_ms", bsz, 1000 * pt.st.p50);
        lab_emit(cx, "mb_p99_ms", bsz, 1000 * pt.st.p99);
        lab_emit(cx, "mb_throughput", bsz, pt.st.throughput);
        lab_emit(cx, "mb_batch", bsz, pt.st.batch_mean);
        snprintf(suffix, sizeof suffix, "mb%d", bsz);
        snprintf(what, sizeof what, "p50_ms_%s", suffix);
        lab_figure_num(cx, what, 1000 * pt.st.p50, "ms", "median time in system (max-batch sweep)");
        snprintf(what, sizeof what, "p99_ms_%s", suffix);
        lab_figure_num(cx, what, 1000 * pt.st.p99, "ms", "99th percentile (max-batch sweep)");
        snprintf(what, sizeof what, "throughput_%s", suffix);
        lab_figure_num(cx, what, pt.st.throughput, "req/s",
                       "answered per second (max-batch sweep)");
        snprintf(what, sizeof what, "batch_%s", suffix);
        lab_figure_num(cx, what, pt.st.batch_mean, "", "mean batch size (max-batch sweep)");
        snprintf(what, sizeof what, "max batch %d", bsz);
        sv_point_log(r, &pt, what);
        pl->ident_max = fmax(pl->ident_max, pt.little_identity);
        pl->thr_max = fmax(pl->thr_max, pt.st.throughput);
    }
    return 0;
}

/* sweep=none: one point at the rate set. */
static int sv_one_point(struct sv_run *r, struct sv_plan *pl, struct core_err *err)
{
    struct sv_point pt = {.rate = lab_param_num(lab_ctx_params(r->cx), "rate"),
                          .duration = pl->duration,
                          .max_wait = pl->max_wait,
                          .max_batch = pl->max_batch};
    lab_progress(r->cx, 0.05, "one point at the rate set");
    int rc = lab_srv_run_point(r, &pt, err);
    if (rc != 0)
        return rc;
    sv_point_figs(r, &pt, "one", "the rate set");
    sv_point_log(r, &pt, "one point");
    pl->little_max = pt.little_err;
    pl->ident_max = pt.little_identity;
    pl->thr_max = pt.st.throughput;
    return 0;
}

/* The run's totals, from every point's books. */
static void sv_totals(struct sv_run *r, const struct sv_plan *pl)
{
    struct lab_ctx *cx = r->cx;
    lab_figure_num(cx, "little_identity_max", pl->ident_max, "",
                   "largest |L - lambda W| / L from the books alone (rounding only)");
    lab_figure_num(cx, "requests", (double)r->requests, "", "requests sent");
    lab_figure_num(cx, "answered", (double)r->answered, "", "requests answered");
    lab_figure_num(cx, "duplicates", 0, "", "requests answered twice (the books refuse them)");
    lab_figure_num(cx, "outputs_checked", (double)r->checked, "",
                   "answers compared with the front end's own forward pass");
    lab_figure_num(cx, "output_max_diff", r->max_diff, "", "largest difference among those");
    lab_figure_num(cx, "latency_min_ms", 1000 * (isfinite(r->lat_min) ? r->lat_min : 0), "ms",
                   "shortest time in system");
    lab_figure_num(cx, "throughput_max", pl->thr_max, "req/s", "highest throughput of any point");
}

static int sv_run_lab(struct lab_ctx *cx, struct core_err *err)
{
    struct sv_run r = {.cx = cx,
                       .ps = lab_ctx_procs(cx),
                       .cancel = lab_ctx_cancel_flag(cx),
                       .gen_fd = -1,
                       .lat_min = INFINITY};
    struct sv_plan pl = {0};
    int rc;
    if ((rc = sv_plan_read(&r, &pl, err)) != 0 || (rc = sv_model(&r, &pl, err)) != 0)
        return rc;
    if ((rc = lab_srv_start(&r, err)) != 0 ||
        (rc = lab_srv_calibrate(&r, pl.max_batch, &pl.cal, err)) != 0)
        goto out;
    sv_calib_figures(&r, &pl);
    int n_mb = 0;
    for (int bsz = 1; bsz <= pl.max_batch; bsz = lab_srv_next_batch(bsz, pl.max_batch))
        n_mb++;
    pl.total = (pl.do_rate ? pl.nl : 0) + (pl.do_batch ? n_mb : 0) + (!pl.do_rate && !pl.do_batch);
    if ((pl.do_rate && (rc = sv_rate_sweep(&r, &pl, err)) != 0) ||
        (pl.do_batch && (rc = sv_batch_sweep(&r, &pl, err)) != 0) ||
        (!pl.do_rate && !pl.do_batch && (rc = sv_one_point(&r, &pl, err)) != 0))
        goto out;
    sv_totals(&r, &pl);
    lab_progress(cx, 1, "done");
    rc = 0;
out:
    lab_srv_stop(&r);
    lab_srv_mlp_close(&r.ref);
    free(r.qid), free(r.qx), free(r.bid), free(r.bx), free(r.by), free(r.rx), free(r.ry);
    return rc;
}

/* ---- the definition ---------------------------------------------------------------------------
 */

static const struct lab_param_def sv_params[] = {
    {"sweep", LAB_P_ENUM, "all", NULL, 0, 0, "all|rate|batch|none", "",
     "rate: lambda over `loads`; batch: max batch 1, 2, 4, ...; none: one point at `rate`"},
    {"loads", LAB_P_STR, "0.1,0.3,0.5,0.7,0.8,0.9,0.95", NULL, 0, 0, NULL, "",
     "rate sweep: fractions of the measured capacity at max_batch"},
    {"capacity", LAB_P_REAL, "0", NULL, 0, 1e6, NULL, "req/s",
     "what `loads` are fractions of (0: the capacity measured at max_batch)"},
    {"rate", LAB_P_REAL, "0", NULL, 0, 1e6, NULL, "req/s",
     "arrival rate of the max-batch sweep or of sweep=none (0: chosen from the capacity)"},
    {"workers", LAB_P_INT, "1", NULL, 1, SRV_MAX_WORKERS, NULL, "", "worker processes"},
    {"max_batch", LAB_P_INT, "16", NULL, 1, SRV_MAX_BATCH, NULL, "", "largest batch"},
    {"max_wait_ms", LAB_P_REAL, "2", NULL, 0, 1000, NULL, "ms",
     "longest the oldest request waits for its batch to fill"},
    {"d", LAB_P_INT, "256", NULL, 4, 4096, NULL, "", "model input and output width"},
    {"hidden", LAB_P_INT, "8192", NULL, 4, 65536, NULL, "", "model hidden width"},
    {"duration_s", LAB_P_REAL, "1.5", NULL, 0.05, 600, NULL, "s", "arrivals per point"},
    {"seed", LAB_P_INT, "1", NULL, 0, 2147483647, NULL, "", "of the arrivals, inputs and weights"},
    {"sample_ms", LAB_P_REAL, "5", NULL, 0.5, 1000, NULL, "ms",
     "how often the number in the system is sampled for L"},
    {"check_every", LAB_P_INT, "64", NULL, 1, 1000000, NULL, "",
     "compare every n-th answer with the front end's own forward pass"},
    {"device", LAB_P_ENUM, "auto", NULL, 0, 0, "auto|gpu|cpu", "",
     "auto: the GPU serves when there is one; gpu: fail without one"},
};

static const struct lab_series_def sv_series[] = {
    {"service_ms", "forward pass", "ms", "batch time t(B)", "batch size"},
    {"roundtrip_ms", "round trip", "ms", "batch time t(B)", "batch size"},
    {"fit_ms", "fit t0 + c B", "ms", "batch time t(B)", "batch size"},
    {"per_request_ms", "round trip / B", "ms", "time per request", "batch size"},
    {"live_system", "in system", "requests", "live: requests waiting", "time (ms)"},
    {"live_queue", "in queue", "requests", "live: requests waiting", "time (ms)"},
    {"live_p50", "p50", "ms", "live: latency", "time (ms)"},
    {"live_p99", "p99", "ms", "live: latency", "time (ms)"},
    {"live_throughput", "answered", "req/s", "live: throughput", "time (ms)"},
    {"batch_hist", "batches", "", "batch sizes (this point)", "batch size"},
    {"p50_ms", "p50", "ms", "latency against load", "lambda (req/s)"},
    {"p95_ms", "p95", "ms", "latency against load", "lambda (req/s)"},
    {"p99_ms", "p99", "ms", "latency against load", "lambda (req/s)"},
    {"throughput", "answered", "req/s", "throughput against load", "lambda (req/s)"},
    {"offered", "offered (lambda)", "req/s", "throughput against load", "lambda (req/s)"},
    {"little_l", "L (time average)", "requests", "Little's law", "lambda (req/s)"},
    {"little_l_sampled", "L (sampled)", "requests", "Little's law", "lambda (req/s)"},
    {"little_lw", "lambda x W", "requests", "Little's law", "lambda (req/s)"},
    {"mean_queue", "mean queue", "requests", "queue and batch against load", "lambda (req/s)"},
    {"mean_batch", "mean batch", "requests", "queue and batch against load", "lambda (req/s)"},
    {"mb_p50_ms", "p50", "ms", "latency against max batch", "max batch"},
    {"mb_p99_ms", "p99", "ms", "latency against max batch", "max batch"},
    {"mb_throughput", "answered", "req/s", "throughput against max batch", "max batch"},
    {"mb_batch", "mean batch", "requests", "batch size against max batch", "max batch"},
};

static const char *const sv_snapshot[] = {"batch_hist", NULL};
/* The max-batch sweep doubles: log x axes. */
static const struct lab_chart_def sv_charts[] = {
    {"batch time t(B)", NULL, true},
    {"time per request", NULL, true},
    {"latency against max batch", NULL, true},
    {"throughput against max batch", NULL, true},
    {"batch size against max batch", NULL, true},
};

const struct lab_def lab_srv_def = {
    .name = "serving",
    .title = "Serving: batching, latency and Little's law",
    .summary = "Poisson load on worker processes with dynamic batching: throughput, p50/p95/p99, "
               "queue and batch sizes against load and max batch; L = lambda W checked",
    .params = sv_params,
    .n_params = sizeof sv_params / sizeof sv_params[0],
    .series = sv_series,
    .n_series = sizeof sv_series / sizeof sv_series[0],
    .check = sv_check,
    .run = sv_run_lab,
    .snapshot = sv_snapshot,
    .charts = sv_charts,
    .n_charts = sizeof sv_charts / sizeof sv_charts[0],
};
