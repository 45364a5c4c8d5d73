/*
 * lab_serve_book.c — the serving lab's pure parts (see lab_serve.h): the
 * books every statistic comes from (their quantiles are lab_stats.c's), the
 * Poisson schedule, each request's input, the line fit of batch times, and
 * the MLP on our GEMM.
 */
#include "labs/lab_author.h"
#include "labs/serving/lab_serve.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- the books ------------------------------------------------------------------------ */

void lab_srv_book_init(struct srv_book *b)
{
    memset(b, 0, sizeof *b);
}

void lab_srv_book_fini(struct srv_book *b)
{
    free(b->v);
    memset(b, 0, sizeof *b);
}

/* Adds the areas under the two counts from t_last to t, then moves on. */
static int advance(struct srv_book *b, double t, struct core_err *err)
{
    if (t < b->t_last)
        return core_err_set(err, CORE_ERR_INTERNAL, "the books went back in time (%.9f < %.9f)", t,
                            b->t_last);
    double dt = t - b->t_last;
    b->area_sys += dt * (double)b->in_system;
    b->area_queue += dt * (double)b->in_queue;
    b->t_last = t;
    return 0;
}

int lab_srv_book_arrive(struct srv_book *b, uint64_t id, double t, struct core_err *err)
{
    if (id != b->n)
        return core_err_set(err, CORE_ERR_INTERNAL,
                            "request %llu arrived out of order, expected %zu",
                            (unsigned long long)id, b->n);
    if (b->n == 0)
        b->t0 = b->t_last = t;
    int rc = advance(b, t, err);
    if (rc != 0)
        return rc;
    if (b->n == b->cap) {
        b->cap = b->cap ? 2 * b->cap : 1024;
        b->v = core_xrealloc(b->v, b->cap * sizeof *b->v);
    }
    b->v[b->n++] = (struct srv_rec){.arrive = t, .dispatch = -1, .done = -1};
    b->in_system++;
    b->in_queue++;
    return 0;
}

int lab_srv_book_dispatch(struct srv_book *b, uint64_t id, double t, int size, struct core_err *err)
{
    if (id >= b->n)
        return core_err_set(err, CORE_ERR_INTERNAL, "dispatch of unknown request %llu",
                            (unsigned long long)id);
    struct srv_rec *r = &b->v[id];
    if (r->dispatch >= 0)
        return core_err_set(err, CORE_ERR_INTERNAL, "request %llu dispatched twice",
                            (unsigned long long)id);
    int rc = advance(b, t, err);
    if (rc != 0)
        return rc;
    r->dispatch = t;
    r->batch = size;
    b->in_queue--;
    b->dispatched++;
    return 0;
}

int lab_srv_book_done(struct srv_book *b, uint64_t id, double t, struct core_err *err)
{
    if (id >= b->n)
        return core_err_set(err, CORE_ERR_INTERNAL, "answer to unknown request %llu",
                            (unsigned long long)id);
    struct srv_rec *r = &b->v[id];
    if (r->dispatch < 0)
        return core_err_set(err, CORE_ERR_INTERNAL,
                            "request %llu answered before it was dispatched",
                            (unsigned long long)id);
    if (r->answers > 0) {
        r->answers++;
        return core_err_set(err, CORE_ERR_INTERNAL, "request %llu answered twice",
                            (unsigned long long)id);
    }
    int rc = advance(b, t, err);
    if (rc != 0)
        return rc;
    r->done = t;
    r->answers = 1;
    b->in_system--;
    b->answered++;
    return 0;
}

void lab_srv_book_batch(struct srv_book *b, int size)
{
    b->batches++;
    b->batch_sum += (size_t)size;
    if (size >= 0 && size <= SRV_MAX_BATCH)
        b->hist[size]++;
}

double lab_srv_book_window_l(const struct srv_book *b, double ta, double tb)
{
    if (!(tb > ta))
        return 0;
    double area = 0;
    for (size_t i = 0; i < b->n; i++) {
        double lo = b->v[i].arrive, hi = b->v[i].answers > 0 ? b->v[i].done : tb;
        lo = lo > ta ? lo : ta;
        hi = hi < tb ? hi : tb;
        if (hi > lo)
            area += hi - lo;
    }
    return area / (tb - ta);
}

void lab_srv_book_stats(const struct srv_book *b, double t_end, struct srv_stats *s)
{
    memset(s, 0, sizeof *s);
    s->requests = b->n;
    s->answered = b->answered;
    if (b->n == 0)
        return;
    double t = t_end > b->t_last ? t_end : b->t_last;
    double area_sys = b->area_sys + (t - b->t_last) * (double)b->in_system;
    double area_q = b->area_queue + (t - b->t_last) * (double)b->in_queue;
    s->span = t - b->t0;
    double *w = core_xmalloc((b->answered ? b->answered : 1) * sizeof *w);
    size_t k = 0;
    double sw = 0, swq = 0;
    for (size_t i = 0; i < b->n; i++) {
        const struct srv_rec *r = &b->v[i];
        if (r->answers < 1)
            continue;
        w[k++] = r->done - r->arrive;
        sw += r->done - r->arrive;
        swq += r->dispatch - r->arrive;
    }
    if (s->span > 0) {
        s->lambda = (double)b->n / s->span;
        s->throughput = (double)b->answered / s->span;
        s->l_mean = area_sys / s->span;
        s->q_mean = area_q / s->span;
    }
    if (k > 0) {
        s->w_mean = sw / (double)k;
        s->wq_mean = swq / (double)k;
        lab_stats_sort(w, k);
        s->p50 = lab_stats_quantile_sorted(w, k, 0.50);
        s->p95 = lab_stats_quantile_sorted(w, k, 0.95);
        s->p99 = lab_stats_quantile_sorted(w, k, 0.99);
        s->w_min = w[0];
        s->w_max = w[k - 1];
    }
    s->little_lw = s->lambda * s->w_mean;
    s->little_err = s->l_mean > 0 ? fabs(s->l_mean - s->little_lw) / s->l_mean : 0;
    s->batch_mean = b->batches ? (double)b->batch_sum / (double)b->batches : 0;
    free(w);
}

/* ---- arrivals and inputs ---------------------------------------------------------------- */

static uint64_t mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void lab_srv_rng_seed(struct srv_rng *r, uint64_t seed)
{
    r->s = mix(seed + 0x632be59bd9b4e019ull);
}

double lab_srv_rng_gap(struct srv_rng *r, double rate)
{
    r->s += 0x9e3779b97f4a7c15ull;
    double u = (double)(mix(r->s) >> 11) * 0x1.0p-53; /* [0, 1) */
    return -log1p(-u) / rate;                         /* exponential, mean 1/rate */
}

void lab_srv_input(uint64_t seed, uint64_t id, int d, float *x)
{
    uint64_t s = mix(seed * 0x9e3779b97f4a7c15ull ^ (id + 1) * 0xd1b54a32d192ed03ull);
    for (int j = 0; j < d; j++) {
        s += 0x9e3779b97f4a7c15ull;
        x[j] = (float)((double)(mix(s) >> 11) * 0x1.0p-52 - 1.0);
    }
}

void lab_srv_fit_line(const double *B, const double *t, int n, double *t0, double *c)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (int i = 0; i < n; i++) {
        sx += B[i], sy += t[i], sxx += B[i] * B[i], sxy += B[i] * t[i];
    }
    double den = n * sxx - sx * sx;
    *c = den != 0 ? (n * sxy - sx * sy) / den : 0;
    *t0 = n > 0 ? (sy - *c * sx) / n : 0;
}

/* ---- the model ------------------------------------------------------------------------- */

size_t lab_srv_model_params(struct srv_model_dims m)
{
    size_t d = (size_t)m.d, h = (size_t)m.hidden;
    return h * d + h + d * h + d;
}

void lab_srv_model_init(struct srv_model_dims m, uint64_t seed, float *w)
{
    size_t d = (size_t)m.d, h = (size_t)m.hidden;
    size_t sizes[4] = {h * d, h, d * h, d};
    double fan_in[4] = {(double)d, 0, (double)h, 0};
    uint64_t s = mix(seed ^ 0x5bd1e995ull);
    for (int p = 0; p < 4; p++) {
        double scale = fan_in[p] > 0 ? sqrt(6.0 / fan_in[p]) : 0.01; /* He-uniform */
        for (size_t i = 0; i < sizes[p]; i++) {
            s += 0x9e3779b97f4a7c15ull;
            *w++ = (float)(((double)(mix(s) >> 11) * 0x1.0p-52 - 1.0) * scale);
        }
    }
}

int lab_srv_mlp_open(struct srv_mlp *m, struct srv_model_dims dims, const float *w, int max_batch,
                     struct core_err *err)
{
    int ins[2] = {dims.d, dims.hidden}, outs[2] = {dims.hidden, dims.d};
    const float *at = w;
    int path = kern_gemm_best(false), rc = 0;
    memset(m, 0, sizeof *m);
    m->dims = dims;
    m->max_batch = max_batch;
    for (int l = 0; l < 2; l++) {
        /* weights out × in: B(k = in, j = out) at w[j * in + k] */
        if ((rc = kern_gemm_b_pack_f32(&m->w[l], path, at, ins[l], outs[l], 1, (size_t)ins[l],
                                       err)) != 0) {
            lab_srv_mlp_close(m);
            return rc;
        }
        at += (size_t)ins[l] * (size_t)outs[l];
        m->bias[l] = at;
        at += (size_t)outs[l];
    }
    m->h = core_xmalloc((size_t)max_batch * (size_t)dims.hidden * sizeof *m->h);
    return 0;
}

void lab_srv_mlp_close(struct srv_mlp *m)
{
    if (!m)
        return;
    for (int l = 0; l < 2; l++)
        kern_gemm_b_fini(&m->w[l]);
    free(m->h);
    memset(m, 0, sizeof *m);
}

static void bias_act(float *y, const float *b, int rows, int cols, bool relu)
{
    for (int r = 0; r < rows; r++) {
        float *yr = y + (size_t)r * (size_t)cols;
        for (int j = 0; j < cols; j++) {
            float v = yr[j] + b[j];
            yr[j] = relu && v < 0 ? 0 : v;
        }
    }
}

void lab_srv_mlp_forward(struct srv_mlp *m, const float *x, int batch, float *y)
{
    int d = m->dims.d, h = m->dims.hidden;
    kern_gemm_f32(&m->w[0], x, batch, (size_t)d, m->h, (size_t)h);
    bias_act(m->h, m->bias[0], batch, h, true);
    kern_gemm_f32(&m->w[1], m->h, batch, (size_t)h, y, (size_t)d);
    bias_act(y, m->bias[1], batch, d, false);
}
