/*
 * test_lab_ps_doc.c — the parameter-server lab against its documentation.
 *
 * The lab's data, model and update rule are written out for students in
 * the lesson (lessons/packs/core/lab_paramserver.lua, the page "The model,
 * precisely") and in the README ("The paramserver lab's data and model"),
 * so that a student can rebuild a run in numpy. This test is such a
 * rebuild, in C: it follows that description alone (it calls nothing of
 * the lab but lab_run, and shares none of its code), and checks that the
 * lab's logged loss at each of the first 20 steps of a sync run, and its
 * final weights, are what the description gives.
 *
 * Cases: logistic sparse (keys drawn per example), logistic dense, linear
 * sparse, and the lab's default size (100,000 parameters at sparsity 0.999).
 * The description states where values are float32; followed to the letter
 * the rebuild is exact, and the test allows 1e-9 relative on the loss.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "labs/lab.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the description, step by step ----------------------------------------- */

/* "mix(z)" */
static uint64_t mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* "next(s)": s advances by the golden-ratio constant, then is mixed */
static uint64_t next(uint64_t *s)
{
    *s += 0x9e3779b97f4a7c15ull;
    return mix(*s);
}

/* "normal(s)": the four 16-bit fields of one draw summed, centred on
 * 4 x 32767.5 = 131070 and divided by 65536 sqrt(1/3); a float32 */
static float normal(uint64_t *s)
{
    uint64_t r = next(s);
    double sum = 0;
    for (int f = 0; f < 4; f++)
        sum += (double)((r >> (16 * f)) & 0xffff);
    return (float)((sum - 131070.0) / (65536.0 * sqrt(1.0 / 3.0)));
}

/* "uniform(s)": the top 53 bits of one draw, times 2^-53 */
static double uniform(uint64_t *s)
{
    return (double)(next(s) >> 11) * ldexp(1.0, -53);
}

struct spec {
    int logistic; /* else linear */
    int64_t P;    /* params */
    double sparsity;
    int W, B, steps;
    double lr;
    uint64_t seed;
};

struct model {
    struct spec sp;
    int64_t H, K, N; /* hot, non-zero, noise features */
    float wstar[32];
    float sigma_n;
};

static void model_init(struct model *m, const struct spec *sp)
{
    m->sp = *sp;
    m->H = sp->P < 32 ? sp->P : 32;
    /* K = clamp(round((1 - sparsity) P), H, P) */
    int64_t K = (int64_t)llround((1.0 - sp->sparsity) * (double)sp->P);
    m->K = K < m->H ? m->H : K > sp->P ? sp->P : K;
    m->N = m->K - m->H;
    /* the hidden weights: s = mix(seed ^ 0x5eed5eed5eed), float32(normal * 3/sqrt(H)) */
    uint64_t s = mix(sp->seed ^ 0x5eed5eed5eedull);
    for (int64_t k = 0; k < m->H; k++)
        m->wstar[k] = (float)(normal(&s) * (3.0 / sqrt((double)m->H)));
    m->sigma_n = m->N > 0 ? (float)sqrt((double)m->H / (double)m->N) : 0.0f;
}

/* One example's features: keys and float32 values, in draw order, and its
 * label. */
struct example {
    int64_t *key;
    float *x;
    int64_t n;
    double y;
};

static void example_make(const struct model *m, int64_t e, struct example *ex)
{
    const struct spec *sp = &m->sp;
    uint64_t s = mix(sp->seed * 0x9e3779b97f4a7c15ull + 0x1234567ull) ^ mix((uint64_t)e + 1);
    ex->n = 0;
    double z = 0;
    for (int64_t k = 0; k < m->H; k++) { /* 1. the hot features */
        float v = normal(&s);
        z += (double)m->wstar[k] * v;
        ex->key[ex->n] = k;
        ex->x[ex->n++] = v;
    }
    /* 2. the label */
    if (sp->logistic) {
        double sig = z >= 0 ? 1.0 / (1.0 + exp(-z)) : exp(z) / (1.0 + exp(z));
        ex->y = uniform(&s) < sig ? 1.0 : 0.0;
    } else {
        ex->y = z + 0.1 * normal(&s);
    }
    /* 3. the noise features: all the other keys in order when dense, else a
     * key drawn before each value */
    bool dense = m->N == sp->P - m->H;
    for (int64_t k = 0; k < m->N; k++) {
        int64_t key = dense ? m->H + k : m->H + (int64_t)(next(&s) % (uint64_t)(sp->P - m->H));
        float v = normal(&s) * m->sigma_n;
        ex->key[ex->n] = key;
        ex->x[ex->n++] = v;
    }
}

/* A worker's gradient (float32, accumulated in example order) and mean loss
 * at weights w, for step t. */
static double worker_grad(const struct model *m, const float *w, int64_t t, int k, float *g,
                          struct example *ex)
{
    const struct spec *sp = &m->sp;
    memset(g, 0, (size_t)sp->P * sizeof *g);
    double loss = 0;
    for (int j = 0; j < sp->B; j++) {
        example_make(m, ((int64_t)t * sp->W + k) * sp->B + j, ex);
        double mg = 0;
        for (int64_t i = 0; i < ex->n; i++)
            mg += (double)w[ex->key[i]] * ex->x[i];
        double r;
        if (sp->logistic) {
            double softplus = mg > 0 ? mg + log1p(exp(-mg)) : log1p(exp(mg));
            loss += softplus - ex->y * mg;
            double sig = mg >= 0 ? 1.0 / (1.0 + exp(-mg)) : exp(mg) / (1.0 + exp(mg));
            r = sig - ex->y;
        } else {
            loss += 0.5 * (mg - ex->y) * (mg - ex->y);
            r = mg - ex->y;
        }
        float coef = (float)(r / sp->B);
        for (int64_t i = 0; i < ex->n; i++)
            g[ex->key[i]] += coef * ex->x[i];
    }
    return loss / sp->B;
}

/* The sync run: losses[t] for every step, and the final weights. */
static void reference_run(const struct spec *sp, double *losses, float *w)
{
    struct model m;
    model_init(&m, sp);
    size_t P = (size_t)sp->P;
    float *g = calloc(P, sizeof *g), *sum = calloc(P, sizeof *sum);
    struct example ex = {calloc((size_t)m.K, sizeof(int64_t)), calloc((size_t)m.K, sizeof(float)),
                         0, 0};
    assert_true(g && sum && ex.key && ex.x);
    memset(w, 0, P * sizeof *w);
    for (int t = 0; t < sp->steps; t++) {
        memset(sum, 0, P * sizeof *sum);
        double l = 0;
        for (int k = 0; k < sp->W; k++) {
            l += worker_grad(&m, w, t, k, g, &ex);
            for (size_t i = 0; i < P; i++)
                sum[i] += g[i];
        }
        losses[t] = l / sp->W;
        float scale = (float)(sp->lr / sp->W);
        for (size_t i = 0; i < P; i++)
            w[i] -= scale * sum[i];
    }
    free(g);
    free(sum);
    free(ex.key);
    free(ex.x);
}

/* ---- the lab ----------------------------------------------------------------- */

struct losses {
    double v[64];
    int n[64];
};

static void on_sample(void *ud, const struct core_sample *s)
{
    struct losses *l = ud;
    if (strcmp(s->series, "loss") == 0 && s->step >= 0 && s->step < 64) {
        l->v[s->step] = s->value;
        l->n[s->step]++;
    }
}

static void set(struct lab_params *p, const char *kv)
{
    struct core_err err;
    if (lab_params_assign(p, kv, &err) != 0)
        fail_msg("%s: %s", kv, err.msg);
}

static void lab_sync_run(const struct spec *sp, struct losses *l, double *wnorm)
{
    const struct lab_def *d = lab_find("paramserver");
    assert_non_null(d);
    struct lab_params p;
    lab_params_init(&p, d);
    char kv[64];
    set(&p, "mode=sync");
    set(&p, "link=off");
    set(&p, "compute_ms=0");
    set(&p, "servers=1");
    set(&p, "compress=none");
    set(&p, sp->logistic ? "model=logistic" : "model=linear");
    snprintf(kv, sizeof kv, "params=%lld", (long long)sp->P);
    set(&p, kv);
    snprintf(kv, sizeof kv, "sparsity=%.17g", sp->sparsity);
    set(&p, kv);
    snprintf(kv, sizeof kv, "workers=%d", sp->W);
    set(&p, kv);
    snprintf(kv, sizeof kv, "batch=%d", sp->B);
    set(&p, kv);
    snprintf(kv, sizeof kv, "steps=%d", sp->steps);
    set(&p, kv);
    snprintf(kv, sizeof kv, "lr=%.17g", sp->lr);
    set(&p, kv);
    snprintf(kv, sizeof kv, "seed=%llu", (unsigned long long)sp->seed);
    set(&p, kv);
    struct core_err err;
    if (lab_params_check(&p, &err) != 0)
        fail_msg("check: %s", err.msg);
    memset(l, 0, sizeof *l);
    struct lab_sink sink = {on_sample, NULL, NULL, NULL, l};
    struct lab_run_opts o = {.sinks = &sink, .n_sinks = 1};
    struct lab_result res;
    int rc = lab_run(&p, &o, &res, &err);
    if (rc != 0)
        fail_msg("the run ended %s: %s", res.status, res.error ? res.error : err.msg);
    const struct lab_figure *f = lab_summary_find(&res.summary, "weights_norm");
    assert_non_null(f);
    *wnorm = f->num;
    lab_result_fini(&res);
    lab_params_fini(&p);
}

static void check_case(const struct spec *sp)
{
    double ref[64];
    float *w = calloc((size_t)sp->P, sizeof *w);
    assert_non_null(w);
    reference_run(sp, ref, w);
    struct losses l;
    double wnorm;
    lab_sync_run(sp, &l, &wnorm);
    for (int t = 0; t < sp->steps; t++) {
        if (l.n[t] != 1)
            fail_msg("step %d: the lab logged %d loss samples, expected 1", t, l.n[t]);
        double tol = 1e-9 * fmax(fabs(ref[t]), fabs(l.v[t]));
        if (!(fabs(ref[t] - l.v[t]) <= tol))
            fail_msg("%s P=%lld sparsity=%g step %d: the lab logged loss %.17g, the "
                     "description gives %.17g",
                     sp->logistic ? "logistic" : "linear", (long long)sp->P, sp->sparsity, t,
                     l.v[t], ref[t]);
    }
    double n2 = 0;
    for (int64_t i = 0; i < sp->P; i++)
        n2 += (double)w[i] * w[i];
    if (!(fabs(sqrt(n2) - wnorm) <= 1e-9 * wnorm))
        fail_msg("final weights: the lab's norm %.17g, the description's %.17g", wnorm, sqrt(n2));
    /* training did something: the loss fell */
    assert_true(ref[sp->steps - 1] < ref[0]);
    free(w);
}

static void test_logistic_sparse(void **state)
{
    (void)state;
    check_case(&(struct spec){1, 400, 0.9, 3, 8, 20, 0.5, 11});
}

static void test_logistic_dense(void **state)
{
    (void)state;
    check_case(&(struct spec){1, 50, 0, 2, 16, 20, 0.5, 3});
}

static void test_linear_sparse(void **state)
{
    (void)state;
    check_case(&(struct spec){0, 2000, 0.98, 4, 8, 20, 0.1, 7});
}

/* The lab's defaults for size and sparsity (100,000 parameters, one
 * feature in a thousand non-zero), with 4 workers of batch 32 and seed 1. */
static void test_default_size(void **state)
{
    (void)state;
    check_case(&(struct spec){1, 100000, 0.999, 4, 32, 20, 0.5, 1});
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_logistic_sparse),
        cmocka_unit_test(test_logistic_dense),
        cmocka_unit_test(test_linear_sparse),
        cmocka_unit_test(test_default_size),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
