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
 * Uses the lab framework (lab.h: processes, shared memory, sockets with a
 * cancel flag), the books and model (lab_serve.h) and kernels (GEMM,
 * cuBLAS, the GPU probe). lab_run() kills and reaps every process left.
 */
#include "labs/lab.h"
#include "labs/lab_serve.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define SV_MAX_LOADS 16
#define SV_LIVE_S 0.1          /* live samples every 100 ms */
#define SV_HIST_S 0.5          /* the batch-size histogram every 500 ms */
#define SV_WORKER_TIMEOUT 30.0 /* a batch unanswered this long (s) means a hung worker */
#define SV_MAX_REQUESTS 5e6    /* per point: rate × duration */

/* ---- what the children share (inherited through fork) ------------------------------- */

struct sv_shared {
    struct srv_model_dims dims;
    const float *w; /* the weights, in shared memory */
    int max_batch;
};

/* A backend computes a batch: the CPU model, or the GPU's. */
struct sv_backend {
    int (*forward)(void *ud, const float *x, int n, float *y, struct core_err *err);
    void *ud;
};

/* Serves batches on fd until quit or the front end closes its end. */
static int sv_serve(int fd, const struct sv_shared *sh, const struct sv_backend *be)
{
    size_t d = (size_t)sh->dims.d, mb = (size_t)sh->max_batch;
    uint64_t *ids = core_xmalloc(mb * sizeof *ids);
    float *x = core_xmalloc(mb * d * sizeof *x), *y = core_xmalloc(mb * d * sizeof *y);
    struct core_err e;
    int rc = 0;
    for (;;) {
        struct srv_batch_msg m;
        if (lab_fd_read(fd, &m, sizeof m, -1, NULL, &e) != 0 || m.quit)
            break; /* the front end is gone, or done with us */
        if (m.n < 1 || m.n > mb) {
            rc = 1;
            break;
        }
        if (lab_fd_read(fd, ids, m.n * sizeof *ids, 10000, NULL, &e) != 0 ||
            lab_fd_read(fd, x, m.n * d * sizeof *x, 10000, NULL, &e) != 0)
            break;
        double t0 = core_time_mono();
        if (be->forward(be->ud, x, (int)m.n, y, &e) != 0) {
            rc = 1;
            break;
        }
        struct srv_reply_msg r = {
            .batch_id = m.batch_id, .n = m.n, .service_s = core_time_mono() - t0};
        if (lab_fd_write(fd, &r, sizeof r, -1, NULL, &e) != 0 ||
            lab_fd_write(fd, ids, m.n * sizeof *ids, -1, NULL, &e) != 0 ||
            lab_fd_write(fd, y, m.n * d * sizeof *y, -1, NULL, &e) != 0)
            break;
    }
    free(ids), free(x), free(y);
    return rc;
}

static int cpu_forward(void *ud, const float *x, int n, float *y, struct core_err *err)
{
    (void)err;
    srv_mlp_forward(ud, x, n, y);
    return 0;
}

/* A worker process: packs the shared weights, then serves. */
static int sv_worker_main(int fd, void *arg)
{
    const struct sv_shared *sh = arg;
    struct srv_mlp m;
    struct core_err e;
    if (srv_mlp_open(&m, sh->dims, sh->w, sh->max_batch, &e) != 0)
        return 1;
    struct sv_backend be = {cpu_forward, &m};
    int rc = sv_serve(fd, sh, &be);
    srv_mlp_close(&m);
    return rc;
}

/* The GPU worker: a thread of the lab's process (see the file comment). */
struct sv_gpu {
    int fd;
    const struct sv_shared *sh;
    struct kern_mlp_gpu *g;
    pthread_t thread;
    bool started;
};

static int gpu_forward(void *ud, const float *x, int n, float *y, struct core_err *err)
{
    return kern_mlp_gpu_forward(ud, x, n, y, err);
}

static void *sv_gpu_main(void *arg)
{
    struct sv_gpu *g = arg;
    struct sv_backend be = {gpu_forward, g->g};
    sv_serve(g->fd, g->sh, &be);
    return NULL;
}

/* The load generator process: for each command, the Poisson schedule. */
static int sv_gen_main(int fd, void *arg)
{
    const struct sv_shared *sh = arg;
    size_t d = (size_t)sh->dims.d;
    float *x = core_xmalloc(d * sizeof *x);
    struct core_err e;
    int rc = 0;
    for (;;) {
        struct srv_gen_cmd c;
        if (lab_fd_read(fd, &c, sizeof c, -1, NULL, &e) != 0 || c.quit)
            break;
        struct srv_rng rng;
        srv_rng_seed(&rng, c.seed);
        double t = c.t0, end = c.t0 + c.duration;
        uint64_t id = 0;
        for (;;) {
            t += srv_rng_gap(&rng, c.rate);
            if (t > end)
                break;
            struct timespec ts = {(time_t)t, (long)((t - floor(t)) * 1e9)};
            while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
                ;
            srv_input(c.seed, id, (int)d, x);
            struct srv_req_msg m = {.id = id, .t_sched = t, .count = 0};
            if (lab_fd_write(fd, &m, sizeof m, -1, NULL, &e) != 0 ||
                lab_fd_write(fd, x, d * sizeof *x, -1, NULL, &e) != 0) {
                rc = 1;
                goto out;
            }
            id++;
        }
        struct srv_req_msg m = {.id = SRV_END, .t_sched = end, .count = id};
        if (lab_fd_write(fd, &m, sizeof m, -1, NULL, &e) != 0)
            break;
    }
out:
    free(x);
    return rc;
}

/* ---- the front end ---------------------------------------------------------------------- */

struct sv_worker {
    int fd;
    bool busy;
    uint64_t batch_id;
    int n;
    double sent, busy_s;
    size_t proc; /* index in the run's procs; SIZE_MAX for the GPU thread */
};

struct sv_run {
    struct lab_ctx *cx;
    struct lab_procs *ps;
    atomic_int *cancel;
    struct sv_shared sh;
    int workers, check_every;
    double sample_s;
    uint64_t seed;
    bool gpu;
    struct sv_worker w[SRV_MAX_WORKERS];
    int gen_fd;
    size_t gen_proc;
    struct sv_gpu gthread;
    struct srv_mlp ref; /* the front end's own model, for the checks */
    /* the queue: ids and inputs, a ring */
    uint64_t *qid;
    float *qx;
    size_t qcap, qhead, qlen;
    /* scratch for one batch */
    uint64_t *bid;
    float *bx, *by, *rx, *ry;
    uint64_t next_batch;
    /* run totals */
    size_t requests, answered, checked;
    double max_diff, lat_min;
    double svc_sum; /* this point: the workers' forward-pass times, added */
    int point;      /* points so far: each gets its own input seed */
};

static int sv_cancelled(struct sv_run *r, struct core_err *err)
{
    return lab_cancelled(r->cx) ? core_err_set(err, CORE_ERR_CANCELLED, "cancelled") : 0;
}

static void sv_queue_push(struct sv_run *r, uint64_t id, const float *x)
{
    size_t d = (size_t)r->sh.dims.d;
    if (r->qlen == r->qcap) { /* grow, unwrapping the ring */
        size_t cap = r->qcap ? 2 * r->qcap : 1024;
        uint64_t *qi = core_xmalloc(cap * sizeof *qi);
        float *qx = core_xmalloc(cap * d * sizeof *qx);
        for (size_t i = 0; i < r->qlen; i++) {
            size_t at = (r->qhead + i) % r->qcap;
            qi[i] = r->qid[at];
            memcpy(qx + i * d, r->qx + at * d, d * sizeof *qx);
        }
        free(r->qid), free(r->qx);
        r->qid = qi, r->qx = qx, r->qcap = cap, r->qhead = 0;
    }
    size_t at = (r->qhead + r->qlen) % r->qcap;
    r->qid[at] = id;
    memcpy(r->qx + at * d, x, d * sizeof *x);
    r->qlen++;
}

/* Sends the oldest n queued requests to worker k as one batch. */
static int sv_dispatch(struct sv_run *r, struct srv_book *b, int k, int n, struct core_err *err)
{
    size_t d = (size_t)r->sh.dims.d;
    for (int i = 0; i < n; i++) {
        size_t at = (r->qhead + (size_t)i) % r->qcap;
        r->bid[i] = r->qid[at];
        memcpy(r->bx + (size_t)i * d, r->qx + at * d, d * sizeof(float));
    }
    r->qhead = (r->qhead + (size_t)n) % r->qcap;
    r->qlen -= (size_t)n;
    double now = core_time_mono();
    for (int i = 0; i < n; i++) {
        int rc = srv_book_dispatch(b, r->bid[i], now, n, err);
        if (rc != 0)
            return rc;
    }
    struct sv_worker *w = &r->w[k];
    struct srv_batch_msg m = {.batch_id = ++r->next_batch, .n = (uint32_t)n, .quit = 0};
    int rc;
    if ((rc = lab_fd_write(w->fd, &m, sizeof m, 10000, r->cancel, err)) != 0 ||
        (rc = lab_fd_write(w->fd, r->bid, (size_t)n * sizeof *r->bid, 10000, r->cancel, err)) ||
        (rc = lab_fd_write(w->fd, r->bx, (size_t)n * d * sizeof(float), 10000, r->cancel, err)))
        return rc == CORE_ERR_CANCELLED
                   ? rc
                   : core_err_prefix(err, "sending a batch to worker %d", k + 1);
    w->busy = true;
    w->batch_id = m.batch_id;
    w->n = n;
    w->sent = now;
    return 0;
}

/* Reads worker k's answers, books them, checks the sampled ones. */
static int sv_collect(struct sv_run *r, struct srv_book *b, int k, uint64_t point_seed,
                      double *lat_window, size_t *n_window, size_t cap_window, struct core_err *err)
{
    size_t d = (size_t)r->sh.dims.d;
    struct sv_worker *w = &r->w[k];
    struct srv_reply_msg m;
    int rc;
    if ((rc = lab_fd_read(w->fd, &m, sizeof m, 10000, r->cancel, err)) != 0)
        return rc == CORE_ERR_CANCELLED ? rc : core_err_prefix(err, "worker %d", k + 1);
    if (m.batch_id != w->batch_id || (int)m.n != w->n)
        return core_err_set(err, CORE_ERR_INTERNAL,
                            "worker %d answered batch %llu of %u, but was sent batch %llu of %d",
                            k + 1, (unsigned long long)m.batch_id, m.n,
                            (unsigned long long)w->batch_id, w->n);
    if ((rc = lab_fd_read(w->fd, r->bid, m.n * sizeof *r->bid, 10000, r->cancel, err)) != 0 ||
        (rc = lab_fd_read(w->fd, r->by, m.n * d * sizeof(float), 10000, r->cancel, err)) != 0)
        return rc == CORE_ERR_CANCELLED ? rc : core_err_prefix(err, "worker %d", k + 1);
    double now = core_time_mono();
    w->busy = false;
    w->busy_s += now - w->sent;
    r->svc_sum += m.service_s;
    srv_book_batch(b, (int)m.n);
    for (uint32_t i = 0; i < m.n; i++) {
        uint64_t id = r->bid[i];
        if ((rc = srv_book_done(b, id, now, err)) != 0)
            return core_err_prefix(err, "worker %d", k + 1);
        double lat = now - b->v[id].arrive;
        if (*n_window < cap_window)
            lat_window[(*n_window)++] = lat;
        if (lat < r->lat_min)
            r->lat_min = lat;
        if (id % (uint64_t)r->check_every != 0)
            continue;
        srv_input(point_seed, id, (int)d, r->rx);
        srv_mlp_forward(&r->ref, r->rx, 1, r->ry);
        const float *got = r->by + (size_t)i * d;
        for (size_t j = 0; j < d; j++) {
            double diff = fabs((double)got[j] - (double)r->ry[j]);
            if (!(diff <= 1e-3 * (fabs((double)r->ry[j]) + 1.0)))
                return core_err_set(err, CORE_ERR_INTERNAL,
                                    "request %llu's answer from worker %d is wrong at %zu: %g, "
                                    "the model says %g (a batch mixed requests up?)",
                                    (unsigned long long)id, k + 1, j, (double)got[j],
                                    (double)r->ry[j]);
            if (diff > r->max_diff)
                r->max_diff = diff;
        }
        r->checked++;
    }
    return 0;
}

struct sv_point {
    double rate, duration, max_wait;
    int max_batch;
    struct srv_stats st;
    double l_window;  /* time-averaged number in system while requests arrive */
    double l_sampled; /* the same from samples every sample_ms */
    double little_err, little_identity, util;
    double svc_ms; /* mean forward pass per batch */
    bool stable;   /* kept up: answered at 95% of the rate set or more */
};

/* Emits the live series: number in system and queue, throughput and
 * latency percentiles of the answers since the last call. */
static void sv_live(struct sv_run *r, const struct srv_book *b, double *lat, size_t *n_lat,
                    double span)
{
    int64_t step = (int64_t)llround(lab_ctx_elapsed(r->cx) * 1000);
    lab_emit(r->cx, "live_system", step, (double)b->in_system);
    lab_emit(r->cx, "live_queue", step, (double)b->in_queue);
    lab_emit(r->cx, "live_throughput", step, span > 0 ? (double)*n_lat / span : 0);
    if (*n_lat > 0) {
        lab_stats_sort(lat, *n_lat);
        lab_emit(r->cx, "live_p50", step, 1000 * lab_stats_quantile_sorted(lat, *n_lat, 0.50));
        lab_emit(r->cx, "live_p99", step, 1000 * lab_stats_quantile_sorted(lat, *n_lat, 0.99));
    }
    *n_lat = 0;
}

static void sv_hist(struct sv_run *r, const struct srv_book *b, int max_batch)
{
    for (int s = 1; s <= max_batch; s++)
        lab_emit(r->cx, "batch_hist", s, (double)b->hist[s]);
}

/* One point: requests at `rate` for `duration`, served with the batching
 * rule, until every request is answered. */
static int sv_run_point(struct sv_run *r, struct sv_point *pt, struct core_err *err)
{
    struct srv_book b;
    size_t d = (size_t)r->sh.dims.d, gen_count = 0, cap_window = 65536, n_window = 0;
    double *lat_window = core_xmalloc(cap_window * sizeof *lat_window);
    float *x = core_xmalloc(d * sizeof *x);
    double sample_sum = 0, n_samples = 0;
    bool gen_done = false;
    uint64_t point_seed = r->seed * 1000003u + (uint64_t)++r->point;
    int rc = 0;

    srv_book_init(&b);
    r->qhead = r->qlen = 0;
    r->svc_sum = 0;
    for (int k = 0; k < r->workers; k++)
        r->w[k].busy_s = 0;
    double t0 = core_time_mono() + 0.02;
    struct srv_gen_cmd c = {.t0 = t0,
                            .rate = pt->rate,
                            .duration = pt->duration,
                            .seed = point_seed,
                            .quit = 0,
                            .d = (uint32_t)d};
    if ((rc = lab_fd_write(r->gen_fd, &c, sizeof c, 5000, r->cancel, err)) != 0) {
        core_err_prefix(err, "the load generator");
        goto out;
    }
    double next_sample = t0, next_live = t0 + SV_LIVE_S, next_hist = t0 + SV_HIST_S;
    double last_live = t0, t_end_arrivals = t0 + pt->duration;
    sv_hist(r, &b, pt->max_batch);

    for (;;) {
        if ((rc = sv_cancelled(r, err)) != 0)
            goto out;
        double now = core_time_mono();
        /* periodic: the sampled number in system (for L), live series */
        while (now >= next_sample) {
            if (next_sample >= t0 && next_sample <= t_end_arrivals) {
                sample_sum += (double)b.in_system;
                n_samples++;
            }
            next_sample += r->sample_s;
        }
        if (now >= next_live) {
            sv_live(r, &b, lat_window, &n_window, now - last_live);
            last_live = now;
            next_live = now + SV_LIVE_S;
        }
        if (now >= next_hist) {
            sv_hist(r, &b, pt->max_batch);
            next_hist = now + SV_HIST_S;
        }
        if (gen_done && b.answered == gen_count && r->qlen == 0)
            break;
        /* dispatch to idle workers while the rule allows */
        for (int k = 0; k < r->workers && r->qlen > 0; k++) {
            if (r->w[k].busy)
                continue;
            double oldest = b.v[r->qid[r->qhead]].arrive;
            if ((int)r->qlen < pt->max_batch && now < oldest + pt->max_wait)
                break; /* keep waiting for more */
            int n = (int)r->qlen < pt->max_batch ? (int)r->qlen : pt->max_batch;
            if ((rc = sv_dispatch(r, &b, k, n, err)) != 0)
                goto out;
        }
        /* hung processes */
        for (int k = 0; k < r->workers; k++)
            if (r->w[k].busy && now - r->w[k].sent > SV_WORKER_TIMEOUT) {
                rc = core_err_set(err, CORE_ERR_INTERNAL,
                                  "worker %d did not answer a batch of %d within %.0f s", k + 1,
                                  r->w[k].n, SV_WORKER_TIMEOUT);
                goto out;
            }
        if (!gen_done && now > t_end_arrivals + SV_WORKER_TIMEOUT) {
            rc =
                core_err_set(err, CORE_ERR_INTERNAL,
                             "the load generator fell silent %.0f s after its last request was due",
                             SV_WORKER_TIMEOUT);
            goto out;
        }
        /* wait for the next event */
        double wake = fmin(next_sample, fmin(next_live, now + 0.05));
        bool idle = false;
        for (int k = 0; k < r->workers; k++)
            idle |= !r->w[k].busy;
        if (idle && r->qlen > 0)
            wake = fmin(wake, b.v[r->qid[r->qhead]].arrive + pt->max_wait);
        struct pollfd pfd[SRV_MAX_WORKERS + 1];
        int who[SRV_MAX_WORKERS + 1], np = 0;
        if (!gen_done) {
            pfd[np] = (struct pollfd){r->gen_fd, POLLIN, 0};
            who[np++] = -1;
        }
        for (int k = 0; k < r->workers; k++)
            if (r->w[k].busy) {
                pfd[np] = (struct pollfd){r->w[k].fd, POLLIN, 0};
                who[np++] = k;
            }
        int ms = (int)ceil((wake - now) * 1000);
        int prc = poll(pfd, (nfds_t)np, ms < 0 ? 0 : ms);
        if (prc < 0 && errno != EINTR) {
            rc = core_err_set(err, CORE_ERR_IO, "poll: %s", strerror(errno));
            goto out;
        }
        for (int i = 0; prc > 0 && i < np; i++) {
            if (!pfd[i].revents)
                continue;
            if (who[i] >= 0) {
                if ((rc = sv_collect(r, &b, who[i], point_seed, lat_window, &n_window, cap_window,
                                     err)) != 0)
                    goto out;
                continue;
            }
            /* the generator: everything it has sent so far */
            do {
                struct srv_req_msg m;
                if ((rc = lab_fd_read(r->gen_fd, &m, sizeof m, 5000, r->cancel, err)) != 0) {
                    core_err_prefix(err, "the load generator");
                    goto out;
                }
                if (m.id == SRV_END) {
                    gen_done = true;
                    gen_count = (size_t)m.count;
                    break;
                }
                if ((rc = lab_fd_read(r->gen_fd, x, d * sizeof *x, 5000, r->cancel, err)) != 0 ||
                    (rc = srv_book_arrive(&b, m.id, core_time_mono(), err)) != 0) {
                    core_err_prefix(err, "the load generator");
                    goto out;
                }
                sv_queue_push(r, m.id, x);
            } while (poll(&(struct pollfd){r->gen_fd, POLLIN, 0}, 1, 0) > 0);
        }
    }
    if (b.n != gen_count) {
        rc = core_err_set(err, CORE_ERR_INTERNAL,
                          "the load generator sent %zu requests, the front end booked %zu",
                          gen_count, b.n);
        goto out;
    }
    sv_live(r, &b, lat_window, &n_window, core_time_mono() - last_live);
    sv_hist(r, &b, pt->max_batch);
    srv_book_stats(&b, b.t_last, &pt->st);
    pt->l_sampled = n_samples > 0 ? sample_sum / n_samples : 0;
    pt->l_window = srv_book_window_l(&b, t0, t_end_arrivals);
    double lw = pt->rate * pt->st.w_mean;
    pt->little_err = lw > 0 ? fabs(pt->l_window / lw - 1) : 0;
    pt->little_identity = pt->st.little_err;
    double busy = 0;
    for (int k = 0; k < r->workers; k++)
        busy += r->w[k].busy_s;
    pt->util = pt->st.span > 0 ? busy / (r->workers * pt->st.span) : 0;
    pt->svc_ms = b.batches ? 1000 * r->svc_sum / (double)b.batches : 0;
    pt->stable = pt->st.throughput >= 0.95 * pt->rate;
    r->requests += b.n;
    r->answered += b.answered;
out:
    srv_book_fini(&b);
    free(lat_window);
    free(x);
    return rc;
}

/* ---- calibration -------------------------------------------------------------------------- */

/* Median worker time and round trip of batches of n through worker 0. */
static int sv_time_batch(struct sv_run *r, int n, double *service, double *roundtrip,
                         struct core_err *err)
{
    enum { REPS = 9 };
    size_t d = (size_t)r->sh.dims.d;
    double sv[REPS], rt[REPS];
    struct sv_worker *w = &r->w[0];
    for (int i = 0; i < n; i++) {
        r->bid[i] = (uint64_t)i;
        srv_input(r->seed, (uint64_t)i, (int)d, r->bx + (size_t)i * d);
    }
    for (int k = -1; k < REPS; k++) { /* one warm-up */
        int rc;
        if ((rc = sv_cancelled(r, err)) != 0)
            return rc;
        struct srv_batch_msg m = {.batch_id = ++r->next_batch, .n = (uint32_t)n, .quit = 0};
        struct srv_reply_msg rep;
        double t0 = core_time_mono();
        if ((rc = lab_fd_write(w->fd, &m, sizeof m, 10000, r->cancel, err)) != 0 ||
            (rc = lab_fd_write(w->fd, r->bid, (size_t)n * 8, 10000, r->cancel, err)) != 0 ||
            (rc = lab_fd_write(w->fd, r->bx, (size_t)n * d * 4, 10000, r->cancel, err)) != 0 ||
            (rc = lab_fd_read(w->fd, &rep, sizeof rep, (int)(SV_WORKER_TIMEOUT * 1000), r->cancel,
                              err)) != 0 ||
            (rc = lab_fd_read(w->fd, r->bid, (size_t)n * 8, 10000, r->cancel, err)) != 0 ||
            (rc = lab_fd_read(w->fd, r->by, (size_t)n * d * 4, 10000, r->cancel, err)) != 0)
            return rc == CORE_ERR_CANCELLED ? rc : core_err_prefix(err, "calibrating worker 1");
        if (k >= 0) {
            rt[k] = core_time_mono() - t0;
            sv[k] = rep.service_s;
        }
    }
    *service = lab_stats_median(sv, REPS);
    *roundtrip = lab_stats_median(rt, REPS);
    return 0;
}

/* The batch sizes the lab tries: 1, 2, 4, ... and max_batch itself; past
 * max_batch when bsz is max_batch. */
static int sv_next_batch(int bsz, int max_batch)
{
    return bsz < max_batch && bsz * 2 > max_batch ? max_batch : bsz * 2;
}

struct sv_calib {
    double t0, c, cap_b1, cap_bmax, rt_b1, rt_bmax, sv_b1, sv_bmax;
};

static int sv_calibrate(struct sv_run *r, int max_batch, struct sv_calib *cal, struct core_err *err)
{
    double B[16], S[16];
    int n = 0, rc;
    for (int bsz = 1;; bsz = sv_next_batch(bsz, max_batch)) {
        double sv = 0, rt = 0;
        char what[64];
        snprintf(what, sizeof what, "calibrating: batches of %d", bsz);
        lab_progress(r->cx, 0.02, what);
        if ((rc = sv_time_batch(r, bsz, &sv, &rt, err)) != 0)
            return rc;
        lab_emit(r->cx, "service_ms", bsz, 1000 * sv);
        lab_emit(r->cx, "roundtrip_ms", bsz, 1000 * rt);
        lab_emit(r->cx, "per_request_ms", bsz, 1000 * rt / bsz);
        lab_log(r->cx, LAB_LOG_INFO,
                "batch of %3d: forward pass %.3f ms, round trip %.3f ms, %.3f ms per request", bsz,
                1000 * sv, 1000 * rt, 1000 * rt / bsz);
        B[n] = bsz;
        S[n++] = rt;
        if (bsz == 1) {
            cal->rt_b1 = rt, cal->sv_b1 = sv;
        }
        if (bsz >= max_batch) {
            cal->rt_bmax = rt, cal->sv_bmax = sv;
            break;
        }
    }
    srv_fit_line(B, S, n, &cal->t0, &cal->c);
    for (int i = 0; i < n; i++)
        lab_emit(r->cx, "fit_ms", (int64_t)B[i], 1000 * (cal->t0 + cal->c * B[i]));
    cal->cap_b1 = r->workers / cal->rt_b1;
    cal->cap_bmax = r->workers * max_batch / cal->rt_bmax;
    return 0;
}

/* ---- the run -------------------------------------------------------------------------------- */

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

/* Starts the generator and the workers (or the GPU thread). */
static int sv_start(struct sv_run *r, struct core_err *err)
{
    int i = lab_proc_spawn(r->ps, sv_gen_main, &r->sh, err);
    if (i < 0)
        return core_err_prefix(err, "starting the load generator");
    r->gen_proc = (size_t)i;
    r->gen_fd = r->ps->v[i].fd;
    if (r->gpu) {
        int sv[2];
        struct core_err e2;
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
            return core_err_set(err, CORE_ERR_IO, "socketpair for the GPU worker: %s",
                                strerror(errno));
        r->gthread.fd = sv[1];
        r->gthread.sh = &r->sh;
        size_t d = (size_t)r->sh.dims.d, h = (size_t)r->sh.dims.hidden;
        const float *w1 = r->sh.w, *b1 = w1 + h * d, *w2 = b1 + h, *b2 = w2 + d * h;
        if (kern_mlp_gpu_new(&r->gthread.g, (int)d, (int)h, (int)d, w1, b1, w2, b2, r->sh.max_batch,
                             &e2) != 0) {
            close(sv[0]), close(sv[1]);
            return core_err_set(err, CORE_ERR_IO, "the GPU worker: %s", e2.msg);
        }
        if (pthread_create(&r->gthread.thread, NULL, sv_gpu_main, &r->gthread) != 0) {
            close(sv[0]), close(sv[1]);
            return core_err_set(err, CORE_ERR_IO, "cannot start the GPU worker thread");
        }
        r->gthread.started = true;
        r->w[0] = (struct sv_worker){.fd = sv[0], .proc = SIZE_MAX};
        return 0;
    }
    for (int k = 0; k < r->workers; k++) {
        i = lab_proc_spawn(r->ps, sv_worker_main, &r->sh, err);
        if (i < 0)
            return core_err_prefix(err, "starting worker %d of %d", k + 1, r->workers);
        r->w[k] = (struct sv_worker){.fd = r->ps->v[i].fd, .proc = (size_t)i};
    }
    return 0;
}

/* Ends the children politely (lab_run() kills whatever does not exit) and
 * the GPU thread (its socket closes: it returns). */
static void sv_stop(struct sv_run *r)
{
    struct core_err e;
    for (int k = 0; k < r->workers; k++) {
        if (r->w[k].proc == SIZE_MAX || r->w[k].fd < 0 || r->ps->v[r->w[k].proc].reaped)
            continue;
        struct srv_batch_msg m = {.quit = 1};
        lab_fd_write(r->w[k].fd, &m, sizeof m, 100, NULL, &e);
    }
    if (r->gen_fd >= 0 && !r->ps->v[r->gen_proc].reaped) {
        struct srv_gen_cmd c = {.quit = 1};
        lab_fd_write(r->gen_fd, &c, sizeof c, 100, NULL, &e);
    }
    if (r->gthread.started) {
        close(r->w[0].fd); /* the thread's read sees the end */
        r->w[0].fd = -1;
        pthread_join(r->gthread.thread, NULL);
        close(r->gthread.fd);
        r->gthread.started = false;
    }
    kern_mlp_gpu_free(r->gthread.g);
    r->gthread.g = NULL;
}

static int sv_memory_check(const struct lab_params *p, const struct lab_machine *m,
                           struct core_err *err)
{
    struct srv_model_dims dims = {(int)lab_param_num(p, "d"), (int)lab_param_num(p, "hidden")};
    double bytes = 4.0 * (double)srv_model_params(dims) * (lab_param_num(p, "workers") + 2);
    if (m->mem_bytes > 0 && bytes > (double)m->mem_bytes / 4)
        return core_err_set(err, CORE_ERR_INVALID,
                            "serving: parameters 'd' (%d) and 'hidden' (%d) make a model of %.0f "
                            "MiB; with a copy per worker that is more than a quarter of this "
                            "machine's memory",
                            dims.d, dims.hidden, 4.0 * (double)srv_model_params(dims) / 1048576);
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

static int sv_run_lab(struct lab_ctx *cx, struct core_err *err)
{
    const struct lab_params *pp = lab_ctx_params(cx);
    const char *sweep = lab_param_str(pp, "sweep"), *device = lab_param_str(pp, "device");
    struct sv_run r = {.cx = cx,
                       .ps = lab_ctx_procs(cx),
                       .cancel = lab_ctx_cancel_flag(cx),
                       .gen_fd = -1,
                       .lat_min = INFINITY};
    struct sv_point pts[SV_MAX_LOADS];
    double loads[SV_MAX_LOADS];
    struct core_err why;
    struct sv_calib cal = {0};
    int rc, nl;

    if ((rc = sv_check_with(pp, lab_ctx_machine(cx), err)) != 0)
        return rc;
    nl = sv_loads(lab_param_str(pp, "loads"), loads, err);
    r.workers = (int)lab_param_num(pp, "workers");
    r.seed = (uint64_t)lab_param_num(pp, "seed");
    r.sample_s = lab_param_num(pp, "sample_ms") / 1000.0;
    r.check_every = (int)lab_param_num(pp, "check_every");
    r.sh.dims =
        (struct srv_model_dims){(int)lab_param_num(pp, "d"), (int)lab_param_num(pp, "hidden")};
    int max_batch = (int)lab_param_num(pp, "max_batch");
    double max_wait = lab_param_num(pp, "max_wait_ms") / 1000.0;
    double duration = lab_param_num(pp, "duration_s");
    r.sh.max_batch = max_batch;
    for (int k = 0; k < SRV_MAX_WORKERS; k++)
        r.w[k].fd = -1;

    /* The header: CPU workers, or the GPU, and why not. */
    core_err_clear(&why);
    if (strcmp(device, "cpu") == 0) {
        lab_log(cx, LAB_LOG_INFO, "device=cpu: %d CPU worker process%s", r.workers,
                r.workers > 1 ? "es" : "");
    } else if (kern_probe(NULL, &why) != 0) {
        lab_log(cx, LAB_LOG_WARN, "%s — the model runs on %d CPU worker process%s", why.msg,
                r.workers, r.workers > 1 ? "es" : "");
    } else if (!kern_built_with_cublas()) {
        snprintf(
            why.msg, sizeof why.msg,
            "no cuBLAS: this build has CUDA but no cuBLAS (not in the toolkit, or WB_CUBLAS=OFF)");
        lab_log(cx, LAB_LOG_WARN, "%s — the model runs on CPU worker processes", why.msg);
    } else {
        r.gpu = true;
        if (r.workers > 1)
            lab_log(cx, LAB_LOG_INFO, "the GPU serves alone: workers = %d is not used", r.workers);
        r.workers = 1;
    }

    /* The weights, once, in shared memory the workers see. */
    size_t np = srv_model_params(r.sh.dims);
    float *w = lab_shm_alloc(r.ps, np * sizeof(float), err);
    if (!w)
        return CORE_ERR_IO;
    srv_model_init(r.sh.dims, r.seed, w);
    r.sh.w = w;
    if ((rc = srv_mlp_open(&r.ref, r.sh.dims, w, 1, err)) != 0)
        return rc;
    size_t d = (size_t)r.sh.dims.d;
    r.bid = core_xmalloc((size_t)max_batch * sizeof *r.bid);
    r.bx = core_xmalloc((size_t)max_batch * d * sizeof *r.bx);
    r.by = core_xmalloc((size_t)max_batch * d * sizeof *r.by);
    r.rx = core_xmalloc(d * sizeof *r.rx);
    r.ry = core_xmalloc(d * sizeof *r.ry);

    lab_log(cx, LAB_LOG_INFO,
            "model: MLP %d -> %d -> %d, %.2f M parameters (%.1f MiB); max batch %d, max wait "
            "%.1f ms",
            r.sh.dims.d, r.sh.dims.hidden, r.sh.dims.d, (double)np / 1e6,
            4.0 * (double)np / 1048576, max_batch, max_wait * 1000);

    if ((rc = sv_start(&r, err)) != 0)
        goto out;
    if ((rc = sv_calibrate(&r, max_batch, &cal, err)) != 0)
        goto out;
    /* the key figure (shown by `lab runs`) first */
    lab_figure_num(cx, "capacity_bmax", cal.cap_bmax, "req/s",
                   "most requests per second, batches of max_batch");
    lab_figure_str(cx, "device", r.gpu ? "gpu" : "cpu", "where the model ran");
    if (!r.gpu && strcmp(device, "cpu") != 0 && why.msg[0])
        lab_figure_str(cx, "no_gpu", why.msg, "why the GPU did not serve");
    lab_figure_num(cx, "workers", r.workers, "", "workers serving");
    lab_figure_num(cx, "max_batch", max_batch, "", "largest batch");
    lab_figure_num(cx, "max_wait_ms", max_wait * 1000, "ms", "longest a request waits for a batch");
    lab_figure_num(cx, "d", r.sh.dims.d, "", "model input and output width");
    lab_figure_num(cx, "hidden", r.sh.dims.hidden, "", "model hidden width");
    lab_figure_num(cx, "params", (double)np, "", "model parameters");
    lab_figure_num(cx, "service_ms_b1", 1000 * cal.sv_b1, "ms", "forward pass, batch of 1");
    lab_figure_num(cx, "service_ms_bmax", 1000 * cal.sv_bmax, "ms",
                   "forward pass, batch of max_batch");
    lab_figure_num(cx, "roundtrip_ms_b1", 1000 * cal.rt_b1, "ms", "round trip, batch of 1");
    lab_figure_num(cx, "roundtrip_ms_bmax", 1000 * cal.rt_bmax, "ms",
                   "round trip, batch of max_batch");
    lab_figure_num(cx, "t0_ms", 1000 * cal.t0, "ms", "fit t(B) = t0 + c B: fixed cost per batch");
    lab_figure_num(cx, "c_ms", 1000 * cal.c, "ms", "fit t(B) = t0 + c B: cost per request");
    lab_figure_num(cx, "capacity_b1", cal.cap_b1, "req/s", "most requests per second, batch of 1");
    lab_figure_num(cx, "capacity_bmax", cal.cap_bmax, "req/s",
                   "most requests per second, batches of max_batch");
    lab_figure_num(cx, "batch_gain", cal.cap_bmax / cal.cap_b1, "x",
                   "capacity at max_batch / at batch 1");
    lab_log(cx, LAB_LOG_INFO,
            "t(B) = %.3f ms + %.3f ms x B; capacity %.0f req/s at batch 1, %.0f at batch %d "
            "(%.2fx)",
            1000 * cal.t0, 1000 * cal.c, cal.cap_b1, cal.cap_bmax, max_batch,
            cal.cap_bmax / cal.cap_b1);

    bool do_rate = strcmp(sweep, "all") == 0 || strcmp(sweep, "rate") == 0;
    bool do_batch = strcmp(sweep, "all") == 0 || strcmp(sweep, "batch") == 0;
    double little_max = 0, ident_max = 0, p99_lo = NAN, p99_hi = NAN, thr_max = 0;
    int n_mb = 0, n_stable = 0;
    for (int bsz = 1; bsz <= max_batch; bsz = sv_next_batch(bsz, max_batch))
        n_mb++;
    int total = (do_rate ? nl : 0) + (do_batch ? n_mb : 0) + (!do_rate && !do_batch), done = 0;

    double cap = lab_param_num(pp, "capacity") > 0 ? lab_param_num(pp, "capacity") : cal.cap_bmax;
    for (int i = 0; do_rate && i < nl; i++)
        if (loads[i] * cap * duration > SV_MAX_REQUESTS) {
            rc = core_err_set(err, CORE_ERR_INVALID,
                              "serving: load %g of the capacity %.0f req/s for duration_s = %g is "
                              "%.0f requests, more than %.0f: set 'capacity' or 'duration_s' lower",
                              loads[i], cap, duration, loads[i] * cap * duration, SV_MAX_REQUESTS);
            goto out;
        }
    if (do_rate) {
        lab_figure_num(cx, "capacity_used", cap, "req/s", "what the loads are fractions of");
        for (int i = 0; i < nl; i++) {
            struct sv_point *pt = &pts[i];
            char what[64], suffix[32];
            *pt = (struct sv_point){.rate = loads[i] * cap,
                                    .duration = duration,
                                    .max_wait = max_wait,
                                    .max_batch = max_batch};
            snprintf(what, sizeof what, "load %.0f%% of capacity: %.0f req/s", 100 * loads[i],
                     pt->rate);
            lab_progress(cx, 0.05 + 0.95 * done++ / total, what);
            if ((rc = sv_run_point(&r, pt, err)) != 0)
                goto out;
            int64_t x = (int64_t)llround(pt->rate);
            lab_emit(cx, "p50_ms", x, 1000 * pt->st.p50);
            lab_emit(cx, "p95_ms", x, 1000 * pt->st.p95);
            lab_emit(cx, "p99_ms", x, 1000 * pt->st.p99);
            lab_emit(cx, "throughput", x, pt->st.throughput);
            lab_emit(cx, "offered", x, pt->rate);
            lab_emit(cx, "little_l", x, pt->l_window);
            lab_emit(cx, "little_l_sampled", x, pt->l_sampled);
            lab_emit(cx, "little_lw", x, pt->rate * pt->st.w_mean);
            lab_emit(cx, "mean_queue", x, pt->st.q_mean);
            lab_emit(cx, "mean_batch", x, pt->st.batch_mean);
            snprintf(suffix, sizeof suffix, "load%.0f", 100 * loads[i]);
            snprintf(what, sizeof what, "load %.0f%%", 100 * loads[i]);
            sv_point_figs(&r, pt, suffix, what);
            sv_point_log(&r, pt, what);
            if (pt->stable)
                little_max = fmax(little_max, pt->little_err);
            n_stable += pt->stable;
            ident_max = fmax(ident_max, pt->little_identity);
            thr_max = fmax(thr_max, pt->st.throughput);
            if (i == 0)
                p99_lo = pt->st.p99;
            p99_hi = pt->st.p99;
        }
        if (n_stable > 0)
            lab_figure_num(cx, "little_err_max", 100 * little_max, "%",
                           "worst |L / (lambda W) - 1| over the points that kept up");
        lab_figure_num(cx, "stable_points", n_stable, "", "rate-sweep points that kept up");
        if (nl >= 2)
            lab_figure_num(cx, "p99_growth", p99_hi / p99_lo, "x",
                           "p99 at the highest load / at the lowest");
    }
    if (do_batch) {
        double rate = lab_param_num(pp, "rate");
        if (!(rate > 0))
            rate = fmin(0.7 * cal.cap_bmax, 2 * cal.cap_b1);
        lab_figure_num(cx, "batch_rate", rate, "req/s", "arrival rate of the max-batch sweep");
        for (int bsz = 1; bsz <= max_batch; bsz *= 2) {
            struct sv_point pt = {
                .rate = rate, .duration = duration, .max_wait = max_wait, .max_batch = bsz};
            char what[80], suffix[32];
            snprintf(what, sizeof what, "max batch %d at %.0f req/s", bsz, rate);
            lab_progress(cx, 0.05 + 0.95 * done++ / total, what);
            if ((rc = sv_run_point(&r, &pt, err)) != 0)
                goto out;
            lab_emit(cx, "mb_p50_ms", bsz, 1000 * pt.st.p50);
            lab_emit(cx, "mb_p99_ms", bsz, 1000 * pt.st.p99);
            lab_emit(cx, "mb_throughput", bsz, pt.st.throughput);
            lab_emit(cx, "mb_batch", bsz, pt.st.batch_mean);
            snprintf(suffix, sizeof suffix, "mb%d", bsz);
            snprintf(what, sizeof what, "p50_ms_%s", suffix);
            lab_figure_num(cx, what, 1000 * pt.st.p50, "ms",
                           "median time in system (max-batch sweep)");
            snprintf(what, sizeof what, "p99_ms_%s", suffix);
            lab_figure_num(cx, what, 1000 * pt.st.p99, "ms", "99th percentile (max-batch sweep)");
            snprintf(what, sizeof what, "throughput_%s", suffix);
            lab_figure_num(cx, what, pt.st.throughput, "req/s",
                           "answered per second (max-batch sweep)");
            snprintf(what, sizeof what, "batch_%s", suffix);
            lab_figure_num(cx, what, pt.st.batch_mean, "", "mean batch size (max-batch sweep)");
            snprintf(what, sizeof what, "max batch %d", bsz);
            sv_point_log(&r, &pt, what);
            ident_max = fmax(ident_max, pt.little_identity);
            thr_max = fmax(thr_max, pt.st.throughput);
        }
    }
    if (!do_rate && !do_batch) {
        struct sv_point pt = {.rate = lab_param_num(pp, "rate"),
                              .duration = duration,
                              .max_wait = max_wait,
                              .max_batch = max_batch};
        lab_progress(cx, 0.05, "one point at the rate set");
        if ((rc = sv_run_point(&r, &pt, err)) != 0)
            goto out;
        sv_point_figs(&r, &pt, "one", "the rate set");
        sv_point_log(&r, &pt, "one point");
        little_max = pt.little_err;
        ident_max = pt.little_identity;
        thr_max = pt.st.throughput;
    }
    lab_figure_num(cx, "little_identity_max", ident_max, "",
                   "largest |L - lambda W| / L from the books alone (rounding only)");
    lab_figure_num(cx, "requests", (double)r.requests, "", "requests sent");
    lab_figure_num(cx, "answered", (double)r.answered, "", "requests answered");
    lab_figure_num(cx, "duplicates", 0, "", "requests answered twice (the books refuse them)");
    lab_figure_num(cx, "outputs_checked", (double)r.checked, "",
                   "answers compared with the front end's own forward pass");
    lab_figure_num(cx, "output_max_diff", r.max_diff, "", "largest difference among those");
    lab_figure_num(cx, "latency_min_ms", 1000 * (isfinite(r.lat_min) ? r.lat_min : 0), "ms",
                   "shortest time in system");
    lab_figure_num(cx, "throughput_max", thr_max, "req/s", "highest throughput of any point");
    lab_progress(cx, 1, "done");
    rc = 0;
out:
    sv_stop(&r);
    srv_mlp_close(&r.ref);
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

const struct lab_def lab_serving = {
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
