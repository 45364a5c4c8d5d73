/*
 * lab_serve_front.c — the serving lab's front end, the lab's own thread:
 * it receives each request from the load generator, queues it, hands
 * batches to idle workers by the dynamic batching rule (max_batch waiting,
 * or the oldest waited max_wait), books every arrival, dispatch and answer,
 * checks the sampled answers against its own forward pass, emits the live
 * series, and turns a point's books into its figures; and the calibration
 * of batch times before the sweeps.
 *
 * Uses the lab framework (lab_author.h: sockets with a cancel flag, reports,
 * lab_stats.c's quantiles) and the books and model (lab_serve.h).
 */
#include "labs/serving/lab_serve.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
        int rc = lab_srv_book_dispatch(b, r->bid[i], now, n, err);
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
    lab_srv_book_batch(b, (int)m.n);
    for (uint32_t i = 0; i < m.n; i++) {
        uint64_t id = r->bid[i];
        if ((rc = lab_srv_book_done(b, id, now, err)) != 0)
            return core_err_prefix(err, "worker %d", k + 1);
        double lat = now - b->v[id].arrive;
        if (*n_window < cap_window)
            lat_window[(*n_window)++] = lat;
        if (lat < r->lat_min)
            r->lat_min = lat;
        if (id % (uint64_t)r->check_every != 0)
            continue;
        lab_srv_input(point_seed, id, (int)d, r->rx);
        lab_srv_mlp_forward(&r->ref, r->rx, 1, r->ry);
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

/* One point being served: its books, the latency window of the live
 * series, and its clocks (the real monotonic clock, which the generator's
 * schedule shares). */
struct sv_serve_state {
    struct srv_book b;
    size_t d, gen_count, cap_window, n_window;
    double *lat_window;
    float *x; /* one request's input, as read */
    double sample_sum, n_samples;
    bool gen_done;
    uint64_t point_seed;
    double t0, t_end_arrivals, next_sample, next_live, next_hist, last_live;
};

/* The periodic work: the sampled number in system (for L), the live
 * series, the batch-size histogram. */
static void sv_point_periodic(struct sv_run *r, const struct sv_point *pt, struct sv_serve_state *s,
                              double now)
{
    while (now >= s->next_sample) {
        if (s->next_sample >= s->t0 && s->next_sample <= s->t_end_arrivals) {
            s->sample_sum += (double)s->b.in_system;
            s->n_samples++;
        }
        s->next_sample += r->sample_s;
    }
    if (now >= s->next_live) {
        sv_live(r, &s->b, s->lat_window, &s->n_window, now - s->last_live);
        s->last_live = now;
        s->next_live = now + SV_LIVE_S;
    }
    if (now >= s->next_hist) {
        sv_hist(r, &s->b, pt->max_batch);
        s->next_hist = now + SV_HIST_S;
    }
}

/* Hands batches to idle workers while the batching rule allows, then
 * fails the point for a worker or a generator that fell silent. */
static int sv_point_dispatch(struct sv_run *r, const struct sv_point *pt, struct sv_serve_state *s,
                             double now, struct core_err *err)
{
    int rc;
    for (int k = 0; k < r->workers && r->qlen > 0; k++) {
        if (r->w[k].busy)
            continue;
        double oldest = s->b.v[r->qid[r->qhead]].arrive;
        if ((int)r->qlen < pt->max_batch && now < oldest + pt->max_wait)
            break; /* keep waiting for more */
        int n = (int)r->qlen < pt->max_batch ? (int)r->qlen : pt->max_batch;
        if ((rc = sv_dispatch(r, &s->b, k, n, err)) != 0)
            return rc;
    }
    for (int k = 0; k < r->workers; k++)
        if (r->w[k].busy && now - r->w[k].sent > SV_WORKER_TIMEOUT)
            return core_err_set(err, CORE_ERR_INTERNAL,
                                "worker %d did not answer a batch of %d within %.0f s", k + 1,
                                r->w[k].n, SV_WORKER_TIMEOUT);
    if (!s->gen_done && now > s->t_end_arrivals + SV_WORKER_TIMEOUT)
        return core_err_set(err, CORE_ERR_INTERNAL,
                            "the load generator fell silent %.0f s after its last request was due",
                            SV_WORKER_TIMEOUT);
    return 0;
}

/* Everything the generator has sent so far: requests into the books and
 * the queue, or its end. */
static int sv_point_arrivals(struct sv_run *r, struct sv_serve_state *s, struct core_err *err)
{
    int rc;
    do {
        struct srv_req_msg m;
        if ((rc = lab_fd_read(r->gen_fd, &m, sizeof m, 5000, r->cancel, err)) != 0) {
            core_err_prefix(err, "the load generator");
            return rc;
        }
        if (m.id == SRV_END) {
            s->gen_done = true;
            s->gen_count = (size_t)m.count;
            return 0;
        }
        if ((rc = lab_fd_read(r->gen_fd, s->x, s->d * sizeof *s->x, 5000, r->cancel, err)) != 0 ||
            (rc = lab_srv_book_arrive(&s->b, m.id, core_time_mono(), err)) != 0) {
            core_err_prefix(err, "the load generator");
            return rc;
        }
        sv_queue_push(r, m.id, s->x);
    } while (poll(&(struct pollfd){r->gen_fd, POLLIN, 0}, 1, 0) > 0);
    return 0;
}

/* Waits for the next event (an answer, a request, or the next periodic
 * time or batch deadline) and handles what came. */
static int sv_point_wait(struct sv_run *r, const struct sv_point *pt, struct sv_serve_state *s,
                         double now, struct core_err *err)
{
    int rc;
    double wake = fmin(s->next_sample, fmin(s->next_live, now + 0.05));
    bool idle = false;
    for (int k = 0; k < r->workers; k++)
        idle |= !r->w[k].busy;
    if (idle && r->qlen > 0)
        wake = fmin(wake, s->b.v[r->qid[r->qhead]].arrive + pt->max_wait);
    struct pollfd pfd[SRV_MAX_WORKERS + 1];
    int who[SRV_MAX_WORKERS + 1], np = 0;
    if (!s->gen_done) {
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
    if (prc < 0 && errno != EINTR)
        return core_err_set(err, CORE_ERR_IO, "poll: %s", strerror(errno));
    for (int i = 0; prc > 0 && i < np; i++) {
        if (!pfd[i].revents)
            continue;
        if (who[i] >= 0)
            rc = sv_collect(r, &s->b, who[i], s->point_seed, s->lat_window, &s->n_window,
                            s->cap_window, err);
        else
            rc = sv_point_arrivals(r, s, err);
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* The point's figures from its books. */
static void sv_point_result(struct sv_run *r, struct sv_point *pt, struct sv_serve_state *s)
{
    sv_live(r, &s->b, s->lat_window, &s->n_window, core_time_mono() - s->last_live);
    sv_hist(r, &s->b, pt->max_batch);
    lab_srv_book_stats(&s->b, s->b.t_last, &pt->st);
    pt->l_sampled = s->n_samples > 0 ? s->sample_sum / s->n_samples : 0;
    pt->l_window = lab_srv_book_window_l(&s->b, s->t0, s->t_end_arrivals);
    double lw = pt->rate * pt->st.w_mean;
    pt->little_err = lw > 0 ? fabs(pt->l_window / lw - 1) : 0;
    pt->little_identity = pt->st.little_err;
    double busy = 0;
    for (int k = 0; k < r->workers; k++)
        busy += r->w[k].busy_s;
    pt->util = pt->st.span > 0 ? busy / (r->workers * pt->st.span) : 0;
    pt->svc_ms = s->b.batches ? 1000 * r->svc_sum / (double)s->b.batches : 0;
    pt->stable = pt->st.throughput >= 0.95 * pt->rate;
    r->requests += s->b.n;
    r->answered += s->b.answered;
}

int lab_srv_run_point(struct sv_run *r, struct sv_point *pt, struct core_err *err)
{
    struct sv_serve_state s = {.d = (size_t)r->sh.dims.d, .cap_window = 65536};
    s.lat_window = core_xmalloc(s.cap_window * sizeof *s.lat_window);
    s.x = core_xmalloc(s.d * sizeof *s.x);
    s.point_seed = r->seed * 1000003u + (uint64_t)++r->point;
    int rc = 0;

    lab_srv_book_init(&s.b);
    r->qhead = r->qlen = 0;
    r->svc_sum = 0;
    for (int k = 0; k < r->workers; k++)
        r->w[k].busy_s = 0;
    s.t0 = core_time_mono() + 0.02;
    struct srv_gen_cmd c = {.t0 = s.t0,
                            .rate = pt->rate,
                            .duration = pt->duration,
                            .seed = s.point_seed,
                            .quit = 0,
                            .d = (uint32_t)s.d};
    if ((rc = lab_fd_write(r->gen_fd, &c, sizeof c, 5000, r->cancel, err)) != 0) {
        core_err_prefix(err, "the load generator");
        goto out;
    }
    s.next_sample = s.t0;
    s.next_live = s.t0 + SV_LIVE_S;
    s.next_hist = s.t0 + SV_HIST_S;
    s.last_live = s.t0;
    s.t_end_arrivals = s.t0 + pt->duration;
    sv_hist(r, &s.b, pt->max_batch);

    for (;;) {
        if ((rc = sv_cancelled(r, err)) != 0)
            goto out;
        double now = core_time_mono();
        sv_point_periodic(r, pt, &s, now);
        if (s.gen_done && s.b.answered == s.gen_count && r->qlen == 0)
            break;
        if ((rc = sv_point_dispatch(r, pt, &s, now, err)) != 0 ||
            (rc = sv_point_wait(r, pt, &s, now, err)) != 0)
            goto out;
    }
    if (s.b.n != s.gen_count) {
        rc = core_err_set(err, CORE_ERR_INTERNAL,
                          "the load generator sent %zu requests, the front end booked %zu",
                          s.gen_count, s.b.n);
        goto out;
    }
    sv_point_result(r, pt, &s);
out:
    lab_srv_book_fini(&s.b);
    free(s.lat_window);
    free(s.x);
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
        lab_srv_input(r->seed, (uint64_t)i, (int)d, r->bx + (size_t)i * d);
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

int lab_srv_next_batch(int bsz, int max_batch)
{
    return bsz < max_batch && bsz * 2 > max_batch ? max_batch : bsz * 2;
}

int lab_srv_calibrate(struct sv_run *r, int max_batch, struct sv_calib *cal, struct core_err *err)
{
    double B[16], S[16];
    int n = 0, rc;
    for (int bsz = 1;; bsz = lab_srv_next_batch(bsz, max_batch)) {
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
    lab_srv_fit_line(B, S, n, &cal->t0, &cal->c);
    for (int i = 0; i < n; i++)
        lab_emit(r->cx, "fit_ms", (int64_t)B[i], 1000 * (cal->t0 + cal->c * B[i]));
    cal->cap_b1 = r->workers / cal->rt_b1;
    cal->cap_bmax = r->workers * max_batch / cal->rt_bmax;
    return 0;
}
