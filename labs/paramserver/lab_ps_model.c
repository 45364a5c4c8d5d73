/*
 * lab_ps_model.c — the parameter-server lab's model: logistic or linear
 * regression trained by minibatch SGD on synthetic data that are a pure
 * function of (seed, example index), so every process, and the tests'
 * single-process reference, sees the same examples without storing any.
 *
 * The data, like a click log: every example has `nnz` non-zero features.
 * The first `hot` features (32, fewer for tiny models) are in every example
 * and carry the label's signal: margin z = sum_k w*_k x_k with a hidden w*
 * of scale 3/sqrt(hot), so z has a standard deviation of about 3. The other
 * nnz - hot features are drawn uniformly from the remaining keys (all of
 * them, in order, when the data are dense) and are noise scaled so that
 * together they weigh as much as the hot ones: ||x||^2 is about 2 * hot
 * whatever the sparsity, and one learning rate suits every size. Labels:
 * logistic y ~ Bernoulli(sigmoid(z)); linear y = z + N(0, 0.1^2).
 *
 * Values are approximately normal (Irwin-Hall of four 16-bit uniforms,
 * scaled to variance 1): cheap, portable, deterministic. The gradient is
 * accumulated in floats in one fixed order, so a run is reproducible bit
 * for bit.
 */
#include "labs/paramserver/lab_ps.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static inline uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* splitmix64 */
static inline uint64_t rng_next(uint64_t *s)
{
    *s += 0x9e3779b97f4a7c15ull;
    return mix64(*s);
}

/* Approximately N(0, 1): four 16-bit uniforms summed, centred, scaled. */
static inline float rng_normal(uint64_t *s)
{
    uint64_t r = rng_next(s);
    double sum = (double)(r & 0xffff) + (double)((r >> 16) & 0xffff) +
                 (double)((r >> 32) & 0xffff) + (double)(r >> 48);
    /* each uniform in [0, 65536): mean 32767.5, variance (65536^2 - 1)/12 */
    return (float)((sum - 4 * 32767.5) / (65536.0 * 0.57735026918962576)); /* sqrt(4/12) */
}

static inline double rng_uniform(uint64_t *s)
{
    return (double)(rng_next(s) >> 11) * (1.0 / 9007199254740992.0);
}

int64_t lab_ps_model_nnz(int64_t params, double sparsity)
{
    int64_t hot = params < PS_HOT ? params : PS_HOT;
    double k = llround((1.0 - sparsity) * (double)params);
    int64_t nnz = (int64_t)k;
    if (nnz < hot)
        nnz = hot;
    if (nnz > params)
        nnz = params;
    return nnz;
}

/* The hidden weights of the hot features. */
static void wstar(const struct ps_cfg *c, float *ws)
{
    uint64_t s = mix64(c->seed ^ 0x5eed5eed5eedull);
    double scale = 3.0 / sqrt((double)c->hot);
    for (int k = 0; k < c->hot; k++)
        ws[k] = (float)(rng_normal(&s) * scale);
}

static inline double sigmoid(double m)
{
    if (m >= 0)
        return 1.0 / (1.0 + exp(-m));
    double e = exp(m);
    return e / (1.0 + e);
}

static inline double softplus(double m)
{
    return m > 0 ? m + log1p(exp(-m)) : log1p(exp(m));
}

/* An example's features, generated twice (for the margin, then for the
 * gradient) from the same state rather than stored: a dense example of
 * 10^7 features would take 80 MB to keep. */
struct ex {
    uint64_t start; /* rng state of the example */
    int64_t noise;  /* noise features */
    float sigma;    /* their scale */
    bool dense;     /* noise features are keys hot .. params-1 in order */
};

static void ex_init(const struct ps_cfg *c, int64_t e, struct ex *x)
{
    x->start = mix64(c->seed * 0x9e3779b97f4a7c15ull + 0x1234567ull) ^ mix64((uint64_t)e + 1);
    x->noise = c->nnz - c->hot;
    x->dense = x->noise >= c->params - c->hot;
    x->sigma = x->noise > 0 ? (float)sqrt((double)c->hot / (double)x->noise) : 0.0f;
}

double lab_ps_model_grad(const struct ps_cfg *c, const float *w, int64_t step, int worker,
                         float *grad)
{
    float ws[PS_HOT];
    wstar(c, ws);
    memset(grad, 0, (size_t)c->params * sizeof *grad);
    const int64_t H = c->hot, cold = c->params - H;
    double loss = 0;
    for (int j = 0; j < c->batch; j++) {
        int64_t e = ((step * c->workers) + worker) * (int64_t)c->batch + j;
        struct ex x;
        ex_init(c, e, &x);

        /* pass 1: the label and the margin */
        uint64_t s = x.start;
        double z = 0, m = 0;
        for (int64_t k = 0; k < H; k++) {
            float v = rng_normal(&s);
            z += (double)ws[k] * v;
            m += (double)w[k] * v;
        }
        double y = c->model == PS_LOGISTIC ? (rng_uniform(&s) < sigmoid(z) ? 1.0 : 0.0)
                                           : z + 0.1 * rng_normal(&s);
        for (int64_t k = 0; k < x.noise; k++) {
            int64_t idx = x.dense ? H + k : H + (int64_t)(rng_next(&s) % (uint64_t)cold);
            float v = rng_normal(&s) * x.sigma;
            m += (double)w[idx] * v;
        }

        double r;
        if (c->model == PS_LOGISTIC) {
            loss += softplus(m) - y * m;
            r = sigmoid(m) - y;
        } else {
            loss += 0.5 * (m - y) * (m - y);
            r = m - y;
        }
        float coef = (float)(r / c->batch);

        /* pass 2: the same features again, into the gradient */
        s = x.start;
        for (int64_t k = 0; k < H; k++)
            grad[k] += coef * rng_normal(&s);
        if (c->model == PS_LOGISTIC)
            (void)rng_uniform(&s);
        else
            (void)rng_normal(&s);
        for (int64_t k = 0; k < x.noise; k++) {
            int64_t idx = x.dense ? H + k : H + (int64_t)(rng_next(&s) % (uint64_t)cold);
            float v = rng_normal(&s) * x.sigma;
            grad[idx] += coef * v;
        }
    }
    return loss / c->batch;
}

void lab_ps_model_apply(float *w, const float *g, size_t n, float scale)
{
    for (size_t i = 0; i < n; i++)
        w[i] -= scale * g[i];
}

void lab_ps_weights_fnv(const float *w, size_t n, char out[17])
{
    uint64_t h = core_fnv1a(CORE_FNV_OFFSET, w, n * sizeof *w);
    snprintf(out, 17, "%016llx", (unsigned long long)h);
}

void lab_ps_shard_range(int64_t params, int servers, int s, int64_t *lo, int64_t *hi)
{
    int64_t base = params / servers, extra = params % servers;
    *lo = s * base + (s < extra ? s : extra);
    *hi = *lo + base + (s < extra ? 1 : 0);
}
