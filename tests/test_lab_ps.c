/*
 * test_lab_ps.c — the parameter-server lab: its pure parts (spec parsing,
 * the course's arithmetic, the model's gradient against finite
 * differences, the shard ranges) and whole runs through lab_run() at tiny
 * sizes with the link off, so each takes a fraction of a second:
 *
 * - sync gives the same weights, bit for bit, as a single-process
 *   reference that sums the workers' gradients in worker order (the shards
 *   sum pushes in that order on purpose), raw and with 8-bit compression;
 * - ssp never lets a worker start step t before every other worker began
 *   pushing step t - s - 1, checked from the workers' own clocks;
 * - a killed worker: sync and async go on without it; allreduce stops;
 * - a killed shard stops the run, or with recover=on is restarted from
 *   its checkpoint and training finishes;
 * - a hung worker (SIGSTOP) is ended after the hang timeout in ssp, async
 *   and sync, and the others finish; a hung shard stops the run naming it,
 *   or with recover=on is restarted (on a run clock the test moves past the
 *   timeout once the shard is stopped);
 * - divergence stops the run with advice; cancel leaves no process;
 * - the snapshot series (per-worker means, the staleness histogram) are
 *   re-sent whole while the run goes on (a clock that jumps makes the live
 *   tick come often), the last ones agreeing with the summary;
 * - on an emulated link a worker's push/pull rate stays under the link's,
 *   and loss against wall time gets a point every W worker steps reported
 *   (not only when a straggler completes a step number);
 * - impossible settings (a link on which one step takes days, the only
 *   worker killed) are refused by the check, before anything runs.
 *
 * Results are checked against each other and the formulas, never timings.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "labs/paramserver/lab_ps.h"
#include "proc_test_util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- a sink that keeps everything ----------------------------------------------- */

struct got_sample {
    char *series;
    long long step;
    double value;
};

struct got {
    struct got_sample *s;
    size_t n, cap;
    char logs[8192];
    atomic_int *cancel;
    size_t cancel_after;
    const struct core_clock *clock; /* the run's clock; NULL: the real one */
};

static void got_sample(void *ud, const struct core_sample *s)
{
    struct got *g = ud;
    if (g->n == g->cap) {
        g->cap = g->cap ? 2 * g->cap : 256;
        g->s = realloc(g->s, g->cap * sizeof *g->s);
        assert_non_null(g->s);
    }
    g->s[g->n++] = (struct got_sample){strdup(s->series), s->step, s->value};
    if (g->cancel && g->n >= g->cancel_after)
        atomic_store(g->cancel, 1);
}

static void got_log(void *ud, enum lab_log_level level, const char *line)
{
    struct got *g = ud;
    size_t k = strlen(g->logs);
    snprintf(g->logs + k, sizeof g->logs - k, "%s%s\n",
             level == LAB_LOG_WARN    ? "W: "
             : level == LAB_LOG_ERROR ? "E: "
                                      : "",
             line);
}

static void got_fini(struct got *g)
{
    for (size_t i = 0; i < g->n; i++)
        free(g->s[i].series);
    free(g->s);
}

static size_t got_count(const struct got *g, const char *series)
{
    size_t k = 0;
    for (size_t i = 0; i < g->n; i++)
        k += strcmp(g->s[i].series, series) == 0;
    return k;
}

static bool got_find(const struct got *g, const char *series, long long step, double *v)
{
    for (size_t i = 0; i < g->n; i++)
        if (strcmp(g->s[i].series, series) == 0 && g->s[i].step == step) {
            *v = g->s[i].value;
            return true;
        }
    return false;
}

/* A snapshot series' value at step: the latest sample there. */
static bool got_latest(const struct got *g, const char *series, long long step, double *v)
{
    for (size_t i = g->n; i-- > 0;)
        if (strcmp(g->s[i].series, series) == 0 && g->s[i].step == step) {
            *v = g->s[i].value;
            return true;
        }
    return false;
}

/* How many different steps a series has samples at. */
static size_t got_steps(const struct got *g, const char *series)
{
    size_t k = 0;
    for (size_t i = 0; i < g->n; i++) {
        if (strcmp(g->s[i].series, series) != 0)
            continue;
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = strcmp(g->s[j].series, series) == 0 && g->s[j].step == g->s[i].step;
        k += !seen;
    }
    return k;
}

static double fig(const struct lab_result *r, const char *key)
{
    const struct lab_figure *f = lab_summary_find(&r->summary, key);
    if (!f)
        fail_msg("no summary figure %s", key);
    return f->num;
}

static const char *fig_str(const struct lab_result *r, const char *key)
{
    const struct lab_figure *f = lab_summary_find(&r->summary, key);
    if (!f || !f->str)
        fail_msg("no text figure %s", key);
    return f->str;
}

static void assert_close(double a, double b, double rel)
{
    if (!(fabs(a - b) <= rel * fmax(fabs(a), fabs(b)) + 1e-300))
        fail_msg("%.17g and %.17g differ by more than %g relative", a, b, rel);
}

/* No child of ours is left, running or zombie. */
static void assert_no_children(void)
{
    int st;
    errno = 0;
    assert_int_equal(waitpid(-1, &st, WNOHANG), -1);
    assert_int_equal(errno, ECHILD);
    assert_int_equal(proc_test_children(NULL), 0);
}

/* Runs paramserver with the "k=v" settings (after quick defaults: link
 * off, no compute, small model). Returns lab_run's code. */
static int run_ps(const char *const *set, struct got *g, struct lab_result *res)
{
    static const char *const base[] = {"link=off", "compute_ms=0", "params=400", "sparsity=0.9",
                                       "batch=8",  "steps=12",     NULL};
    const struct lab_def *d = lab_find("paramserver");
    assert_non_null(d);
    struct lab_params p;
    struct core_err err;
    lab_params_init(&p, d);
    for (size_t i = 0; base[i]; i++)
        assert_int_equal(lab_params_assign(&p, base[i], &err), 0);
    for (size_t i = 0; set[i]; i++)
        if (lab_params_assign(&p, set[i], &err) != 0)
            fail_msg("%s: %s", set[i], err.msg);
    if (lab_params_check(&p, &err) != 0)
        fail_msg("check: %s", err.msg);
    struct lab_sink sink = {got_sample, got_log, NULL, NULL, g};
    struct lab_run_opts o = {.sinks = &sink, .n_sinks = 1, .cancel = g->cancel, .clock = g->clock};
    memset(res, 0, sizeof *res);
    int rc = lab_run(&p, &o, res, &err);
    lab_params_fini(&p);
    return rc;
}

/* run_ps that must finish: says why when it did not. */
static void run_ok(const char *const *set, struct got *g, struct lab_result *res)
{
    int rc = run_ps(set, g, res);
    if (rc != 0)
        fail_msg("the run ended %s (%d): %s\nlog:\n%s", res->status, rc,
                 res->error ? res->error : "", g->logs);
}

/* The check of a parameter set: 0 or the error with its message. */
static int check_ps(const char *const *set, struct core_err *err)
{
    struct lab_params p;
    lab_params_init(&p, lab_find("paramserver"));
    int rc = 0;
    for (size_t i = 0; set[i] && rc == 0; i++)
        rc = lab_params_assign(&p, set[i], err);
    if (rc == 0)
        rc = lab_params_check(&p, err);
    lab_params_fini(&p);
    return rc;
}

/* ---- pure parts -------------------------------------------------------------------- */

static void test_specs(void **state)
{
    (void)state;
    struct core_err e;
    int comp, who, step;
    double f;
    /* (the straggler is lab_param_straggler's: test_labs.c) */
    assert_int_equal(lab_ps_compress_parse("topk:0.01", &comp, &f, &e), 0);
    assert_int_equal(comp, PS_COMP_TOPK);
    assert_close(f, 0.01, 0);
    assert_int_equal(lab_ps_compress_parse("q8", &comp, &f, &e), 0);
    assert_int_equal(comp, PS_COMP_Q8);
    assert_int_equal(lab_ps_compress_parse("none", &comp, &f, &e), 0);
    assert_int_equal(comp, PS_COMP_NONE);
    assert_int_equal(lab_ps_compress_parse("topk:0", &comp, &f, &e), CORE_ERR_INVALID);
    assert_int_equal(lab_ps_compress_parse("gzip", &comp, &f, &e), CORE_ERR_INVALID);
    assert_non_null(strstr(e.msg, "'compress'"));

    assert_int_equal(lab_ps_kill_parse("2@10", "kill_worker", 4, 20, &who, &step, &e), 0);
    assert_int_equal(who, 1);
    assert_int_equal(step, 10);
    assert_int_equal(lab_ps_kill_parse("2@20", "kill_worker", 4, 20, &who, &step, &e),
                     CORE_ERR_INVALID);
    assert_int_equal(lab_ps_kill_parse("3@5", "kill_server", 2, 20, &who, &step, &e),
                     CORE_ERR_INVALID);
    assert_non_null(strstr(e.msg, "servers = 2"));

    /* the course's worked example: 2 x 4 MB at 125 MB/s = 64 ms; 64/114 */
    double t = lab_ps_predict_comm_s(1000000, 125e6);
    assert_close(t, 0.064, 1e-12);
    assert_close(t / (t + 0.050), 64.0 / 114.0, 1e-12);
    assert_close(lab_ps_predict_ring_s(1000000, 4, 125e6), 1.5 * 4e6 / 125e6, 1e-12);
    assert_close(lab_ps_busbw(2.0, 4), 3.0, 1e-12);
    assert_close(lab_ps_busbw(2.0, 1), 0.0, 0);
}

static void test_shard_range(void **state)
{
    (void)state;
    for (int S = 1; S <= PS_MAX_SERVERS; S++) {
        int64_t prev = 0;
        for (int s = 0; s < S; s++) {
            int64_t lo, hi;
            lab_ps_shard_range(1003, S, s, &lo, &hi);
            assert_int_equal(lo, prev);
            assert_true(hi - lo == 1003 / S || hi - lo == 1003 / S + 1);
            prev = hi;
        }
        assert_int_equal(prev, 1003);
    }
}

static struct ps_cfg small_cfg(int model, int64_t params, double sparsity)
{
    struct ps_cfg c = {0};
    c.model = model;
    c.workers = 3;
    c.params = params;
    c.hot = params < PS_HOT ? (int)params : PS_HOT;
    c.nnz = lab_ps_model_nnz(params, sparsity);
    c.batch = 4;
    c.lr = 0.5;
    c.seed = 7;
    return c;
}

/* The gradient is the derivative of the loss: central differences on a
 * few keys, dense and sparse, both models. Same inputs, same bits. */
static void test_model_gradient(void **state)
{
    (void)state;
    const struct {
        int model;
        int64_t params;
        double sparsity;
    } cases[] = {{PS_LOGISTIC, 50, 0},
                 {PS_LINEAR, 50, 0},
                 {PS_LOGISTIC, 2000, 0.98},
                 {PS_LINEAR, 2000, 0.98},
                 {PS_LOGISTIC, 10, 0}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        struct ps_cfg c = small_cfg(cases[k].model, cases[k].params, cases[k].sparsity);
        size_t P = (size_t)c.params;
        float *w = calloc(P, sizeof *w), *g = calloc(P, sizeof *g), *g2 = calloc(P, sizeof *g2);
        for (size_t i = 0; i < P; i++)
            w[i] = (float)(0.1 * sin((double)i));
        double loss = lab_ps_model_grad(&c, w, 3, 1, g);
        assert_true(isfinite(loss) && loss > 0);
        assert_close(lab_ps_model_grad(&c, w, 3, 1, g2), loss, 0);
        assert_memory_equal(g, g2, P * sizeof *g);
        size_t probe[] = {0, 1, (size_t)c.hot - 1, P / 2, P - 1};
        for (size_t q = 0; q < sizeof probe / sizeof probe[0]; q++) {
            size_t i = probe[q];
            float keep = w[i], h = 1e-2f;
            w[i] = keep + h;
            double up = lab_ps_model_grad(&c, w, 3, 1, g2);
            w[i] = keep - h;
            double down = lab_ps_model_grad(&c, w, 3, 1, g2);
            w[i] = keep;
            double num = (up - down) / (2.0 * h);
            if (fabs(num - g[i]) > 2e-3 + 2e-2 * fabs(num))
                fail_msg("case %zu key %zu: gradient %g, finite difference %g", k, i, g[i], num);
        }
        /* at w = 0 the logistic loss is ln 2 whatever the data */
        memset(w, 0, P * sizeof *w);
        if (c.model == PS_LOGISTIC)
            assert_close(lab_ps_model_grad(&c, w, 0, 0, g), log(2.0), 1e-12);
        free(w);
        free(g);
        free(g2);
    }
    assert_int_equal(lab_ps_model_nnz(1000, 0.999), 32); /* never fewer than the hot features */
    assert_int_equal(lab_ps_model_nnz(100000, 0.999), 100);
    assert_int_equal(lab_ps_model_nnz(10, 0.5), 10);
}

/* ---- whole runs ------------------------------------------------------------------- */

/* The single-process reference of sync: each step, every worker's gradient
 * at the same weights, summed in worker order (per shard, through q8 when
 * asked), then w -= lr / W * sum. */
static void reference(const struct ps_cfg *c, float *w)
{
    size_t P = (size_t)c->params;
    float *g = calloc(P, sizeof *g), *sum = calloc(P, sizeof *sum);
    struct core_buf enc;
    core_buf_init(&enc);
    memset(w, 0, P * sizeof *w);
    for (int64_t t = 0; t < c->steps; t++) {
        memset(sum, 0, P * sizeof *sum);
        for (int k = 0; k < c->workers; k++) {
            lab_ps_model_grad(c, w, t, k, g);
            for (int s = 0; s < c->servers; s++) {
                int64_t lo, hi;
                lab_ps_shard_range(c->params, c->servers, s, &lo, &hi);
                size_t n = (size_t)(hi - lo);
                if (c->comp == PS_COMP_Q8) {
                    struct core_err e;
                    lab_ps_q8_encode(g + lo, n, &enc);
                    assert_int_equal(lab_ps_q8_decode_add(enc.data, enc.len, sum + lo, n, &e), 0);
                } else {
                    for (size_t i = 0; i < n; i++)
                        sum[lo + i] += g[lo + i];
                }
            }
        }
        lab_ps_model_apply(w, sum, P, (float)(c->lr / c->workers));
    }
    core_buf_fini(&enc);
    free(g);
    free(sum);
}

/* Sync equals the reference bit for bit: the shards add the pushes in
 * worker order (floating-point addition is not associative, so any other
 * order would differ in the last bits), and every update goes through the
 * same lab_ps_model_apply. */
static void test_sync_matches_reference(void **state)
{
    (void)state;
    const char *comp[] = {"compress=none", "compress=q8"};
    for (int k = 0; k < 2; k++) {
        struct got g = {0};
        struct lab_result res;
        const char *set[] = {"mode=sync", "workers=3", "servers=2", "lr=0.5",
                             "seed=11",   comp[k],     NULL};
        run_ok(set, &g, &res);
        assert_string_equal(res.status, "done");
        assert_no_children();

        struct ps_cfg c = small_cfg(PS_LOGISTIC, 400, 0.9);
        c.workers = 3;
        c.servers = 2;
        c.batch = 8;
        c.steps = 12;
        c.seed = 11;
        c.comp = k == 0 ? PS_COMP_NONE : PS_COMP_Q8;
        float *w = calloc(400, sizeof *w);
        reference(&c, w);
        char fnv[17];
        lab_ps_weights_fnv(w, 400, fnv);
        assert_string_equal(fig_str(&res, "weights_fnv"), fnv);
        double l2 = 0;
        for (int i = 0; i < 400; i++)
            l2 += (double)w[i] * w[i];
        assert_close(fig(&res, "weights_norm"), sqrt(l2), 1e-12);
        free(w);

        /* training did something, and the figures agree with each other */
        assert_true(fig(&res, "final_loss") < fig(&res, "initial_loss"));
        assert_close(fig(&res, "initial_loss"), log(2.0), 1e-12);
        assert_close(fig(&res, "comm_ms"), fig(&res, "step_ms") - fig(&res, "compute_ms_mean"),
                     1e-9);
        assert_close(fig(&res, "comm_fraction"), fig(&res, "comm_ms") / fig(&res, "step_ms"), 1e-9);
        assert_string_equal(res.summary.v[0].key, "comm_fraction");
        assert_string_equal(fig_str(&res, "mode"), "sync");
        assert_close(fig(&res, "steps_done"), 12, 0);
        assert_close(fig(&res, "samples_per_s"), 8 * fig(&res, "updates_per_s"), 1e-9);
        assert_null(lab_summary_find(&res.summary, "predicted_comm_fraction")); /* link off */
        assert_null(lab_summary_find(&res.summary, "max_staleness"));
        assert_int_equal(got_count(&g, "loss"), 12);
        double v = NAN;
        assert_true(got_find(&g, "loss", 0, &v));
        assert_close(v, log(2.0), 1e-12);
        /* sync: every worker step saw the slowest worker's clock */
        assert_true(got_latest(&g, "staleness", 0, &v));
        assert_close(v, 36, 0);
        assert_int_equal(got_steps(&g, "staleness"), 1);
        lab_result_fini(&res);
        got_fini(&g);
    }
}

/* One worker's clocks per step, from the trace series. */
struct clocks {
    double pull_end[PS_MAX_WORKERS][64], push_begin[PS_MAX_WORKERS][64];
    bool have[PS_MAX_WORKERS][64];
};

static void read_clocks(const struct got *g, struct clocks *k)
{
    memset(k, 0, sizeof *k);
    for (size_t i = 0; i < g->n; i++) {
        bool pull = strcmp(g->s[i].series, "trace_pull") == 0;
        bool push = strcmp(g->s[i].series, "trace_push") == 0;
        if (!pull && !push)
            continue;
        long long w = g->s[i].step % PS_MAX_WORKERS, t = g->s[i].step / PS_MAX_WORKERS;
        assert_true(t < 64);
        if (pull)
            k->pull_end[w][t] = g->s[i].value;
        else
            k->push_begin[w][t] = g->s[i].value;
        k->have[w][t] = true;
    }
}

/* SSP's bound from the workers' own clocks: worker w may have its weights
 * for step t only after every other worker v began pushing step t - s - 1
 * (the shard answers once it holds that push). One straggler makes the
 * others run into the bound. */
static void test_ssp_bound(void **state)
{
    (void)state;
    const int s = 1, W = 3, T = 14;
    struct got g = {0};
    struct lab_result res;
    const char *set[] = {"mode=ssp",     "workers=3", "servers=2", "staleness=1", "straggler=1:4",
                         "compute_ms=3", "steps=14",  "trace=on",  NULL};
    run_ok(set, &g, &res);
    assert_no_children();
    struct clocks *k = calloc(1, sizeof *k);
    read_clocks(&g, k);
    int checked = 0;
    for (int w = 0; w < W; w++)
        for (int t = 0; t < T; t++) {
            assert_true(k->have[w][t]);
            if (t - s - 1 < 0)
                continue;
            for (int v = 0; v < W; v++) {
                if (v == w)
                    continue;
                if (!(k->push_begin[v][t - s - 1] < k->pull_end[w][t]))
                    fail_msg("worker %d had step %d's weights at %.6f s, before worker %d began "
                             "pushing step %d at %.6f s: staleness above %d",
                             w + 1, t, k->pull_end[w][t], v + 1, t - s - 1,
                             k->push_begin[v][t - s - 1], s);
                checked++;
            }
        }
    assert_int_equal(checked, W * (W - 1) * (T - s - 1));
    /* the shards' own view agrees: no step saw a gap above the bound */
    assert_true(fig(&res, "max_staleness") <= s);
    double total = 0, v = NAN;
    for (int gap = 0; gap <= s; gap++)
        if (got_latest(&g, "staleness", gap, &v))
            total += v;
    assert_close(total, W * T, 0);
    assert_false(got_find(&g, "staleness", s + 1, &v));
    free(k);
    lab_result_fini(&res);
    got_fini(&g);
}

/* Async with a straggler: it finishes, the loss goes down, staleness is
 * reported; the staleness histogram counts every worker step. */
static void test_async(void **state)
{
    (void)state;
    struct got g = {0};
    struct lab_result res;
    const char *set[] = {"mode=async",   "workers=3",         "straggler=2:3",
                         "compute_ms=2", "compress=topk:0.2", NULL};
    run_ok(set, &g, &res);
    assert_no_children();
    assert_string_equal(fig_str(&res, "mode"), "async");
    assert_true(fig(&res, "final_loss") < log(2.0));
    double total = 0, v = NAN;
    for (long long gap = 0; gap < PS_HIST; gap++)
        if (got_latest(&g, "staleness", gap, &v))
            total += v;
    assert_close(total, 3 * 12, 0);
    /* max_staleness is the histogram's last non-empty bin: a whole number of
     * steps, with steps at that gap and none beyond it */
    double ms = fig(&res, "max_staleness");
    assert_true(ms == floor(ms) && ms >= 0 && ms <= 12); /* 12 steps a worker */
    long long last = ms < PS_HIST - 1 ? (long long)ms : PS_HIST - 1;
    assert_true(got_latest(&g, "staleness", last, &v) && v > 0);
    assert_false(got_find(&g, "staleness", last + 1, &v));
    assert_int_equal(got_steps(&g, "worker_compute_ms"), 3);
    lab_result_fini(&res);
    got_fini(&g);
}

/* A clock that moves a quarter second each time it is read: the master's
 * live tick (every 0.5 s of the run's clock) then comes every couple of
 * messages, however fast or loaded the machine is. */
struct quarter_clock {
    double t;
};

static double quarter_now(void *ctx)
{
    return ((struct quarter_clock *)ctx)->t += 0.25;
}

static void quarter_sleep(void *ctx, double secs)
{
    ((struct quarter_clock *)ctx)->t += secs;
}

/* The snapshot series (each worker's means so far, the staleness histogram
 * so far) are sent again and again while the run goes on, each time whole:
 * the histogram from staleness 0 up, its total (worker steps so far) never
 * going down, the last one counting every worker step; the workers' latest
 * means are the ones the summary averages. */
static void test_live_snapshots(void **state)
{
    (void)state;
    const int W = 3, T = 12;
    const struct lab_def *d = lab_find("paramserver");
    static const char *const snap[] = {"staleness", "worker_compute_ms", "worker_comm_ms",
                                       "worker_wait_ms"};
    for (size_t i = 0; i < sizeof snap / sizeof snap[0]; i++) {
        assert_true(lab_series_snapshot(d, snap[i]));
        bool declared = false;
        for (size_t k = 0; k < d->n_series; k++)
            declared |= strcmp(d->series[k].name, snap[i]) == 0;
        assert_true(declared);
    }
    assert_false(lab_series_snapshot(d, "loss"));
    assert_false(lab_series_snapshot(d, "updates_per_s"));

    struct quarter_clock qc = {0};
    struct core_clock clock = {quarter_now, quarter_sleep, &qc};
    struct got g = {.clock = &clock};
    struct lab_result res;
    /* the master measures silence on this clock too: an hour of it (14400
     * reads) between two messages of a shard never happens */
    const char *set[] = {
        "mode=async", "workers=3", "straggler=2:3", "compute_ms=1", "hang_timeout_ms=3600000",
        NULL};
    run_ok(set, &g, &res);
    assert_no_children();

    /* the last step's loss comes when the last worker reported it: what
     * comes before it was sent during the training */
    size_t end = 0;
    for (size_t i = 0; i < g.n; i++)
        if (strcmp(g.s[i].series, "loss") == 0 && g.s[i].step == T - 1)
            end = i;
    assert_true(end > 0);

    size_t hists = 0, hists_during = 0, worker_during = 0;
    long long next = 0;
    double total = 0, prev = 0;
    for (size_t i = 0; i < g.n; i++) {
        const struct got_sample *x = &g.s[i];
        if (strncmp(x->series, "worker_", 7) == 0) {
            assert_true(x->step >= 1 && x->step <= W);
            assert_true(isfinite(x->value) && x->value >= 0);
            worker_during += i < end;
        }
        if (strcmp(x->series, "staleness") != 0)
            continue;
        assert_true(x->value >= 0);
        if (x->step == 0) { /* a new histogram: the previous one is whole */
            if (hists > 0) {
                assert_true(total >= prev);
                prev = total;
            }
            hists++;
            hists_during += i < end;
            total = 0;
            next = 0;
        }
        assert_int_equal(x->step, next);
        next++;
        total += x->value;
    }
    assert_true(hists_during >= 1);
    assert_true(worker_during >= 1);
    assert_true(hists > hists_during); /* and once more at the end */
    assert_true(total >= prev);
    assert_close(total, W * T, 0);

    double comp = 0, wait = 0, v = NAN;
    for (int w = 1; w <= W; w++) {
        assert_true(got_latest(&g, "worker_compute_ms", w, &v));
        comp += v;
        assert_true(got_latest(&g, "worker_wait_ms", w, &v));
        wait += v;
    }
    assert_close(comp / W, fig(&res, "compute_ms_mean"), 1e-12);
    assert_close(wait / W, fig(&res, "wait_ms_mean"), 1e-12);
    lab_result_fini(&res);
    got_fini(&g);
}

/* Allreduce: no shard; bus bandwidth is nccl-tests' algbw x 2(W-1)/W; the
 * weights are the sync reference's up to the order of the sums. */
static void test_allreduce(void **state)
{
    (void)state;
    struct got g = {0};
    struct lab_result res;
    const char *set[] = {"mode=allreduce", "workers=3", "seed=5", "recover=on", NULL};
    run_ok(set, &g, &res);
    assert_no_children();
    assert_non_null(strstr(g.logs, "W: recover applies to server shards"));
    assert_close(fig(&res, "busbw_gbs"), fig(&res, "algbw_gbs") * 2 * 2 / 3, 1e-12);
    assert_null(lab_summary_find(&res.summary, "wire_mb_s"));
    struct ps_cfg c = small_cfg(PS_LOGISTIC, 400, 0.9);
    c.workers = 3;
    c.servers = 1;
    c.batch = 8;
    c.steps = 12;
    c.seed = 5;
    float w[400];
    reference(&c, w);
    double l2 = 0;
    for (int i = 0; i < 400; i++)
        l2 += (double)w[i] * w[i];
    assert_close(fig(&res, "weights_norm"), sqrt(l2), 1e-4);
    assert_true(fig(&res, "final_loss") < fig(&res, "initial_loss"));
    lab_result_fini(&res);
    got_fini(&g);
}

/* A worker killed mid-run: sync drops it from the barrier and finishes
 * with the others, and so does async; allreduce cannot. */
static void test_killed_worker(void **state)
{
    (void)state;
    const char *modes[] = {"mode=sync", "mode=async", "mode=allreduce"};
    for (int k = 0; k < 3; k++) {
        struct got g = {0};
        struct lab_result res;
        const char *set[] = {modes[k], "workers=3", "kill_worker=2@5", "compute_ms=1", NULL};
        int rc = run_ps(set, &g, &res);
        assert_no_children();
        if (k < 2) {
            assert_int_equal(rc, 0);
            assert_string_equal(res.status, "done");
            assert_close(fig(&res, "workers_lost"), 1, 0);
            assert_close(fig(&res, "steps_done"), 12, 0);
            assert_non_null(strstr(g.logs, "W: worker 2 (pid "));
            assert_non_null(strstr(g.logs, "killed by signal 9"));
            assert_non_null(strstr(g.logs, "2 workers left"));
            assert_int_equal(got_count(&g, "loss"), 12);
        } else {
            assert_int_not_equal(rc, 0);
            assert_string_equal(res.status, "failed");
            assert_non_null(strstr(res.error, "worker 2"));
            assert_non_null(strstr(res.error, "ring all-reduce needs every rank"));
        }
        lab_result_fini(&res);
        got_fini(&g);
    }
}

/* A shard killed: the run stops and says how to recover; with recover=on
 * the shard restarts from its checkpoint and training finishes. */
static void test_killed_shard(void **state)
{
    (void)state;
    struct got g = {0};
    struct lab_result res;
    const char *set[] = {"mode=sync", "servers=2", "kill_server=2@6", "checkpoint_every=4", NULL};
    int rc = run_ps(set, &g, &res);
    assert_int_not_equal(rc, 0);
    assert_int_not_equal(rc, CORE_ERR_CANCELLED);
    assert_string_equal(res.status, "failed");
    assert_non_null(strstr(res.error, "server shard 2 (pid "));
    assert_non_null(strstr(res.error, "killed by signal 9"));
    assert_non_null(strstr(res.error, "checkpoint is of step 4"));
    assert_non_null(strstr(res.error, "recover=on"));
    assert_no_children();
    lab_result_fini(&res);
    got_fini(&g);

    const char *modes[] = {"mode=sync", "mode=async", "mode=ssp"};
    for (int k = 0; k < 3; k++) {
        struct got g2 = {0};
        const char *set2[] = {
            modes[k],     "servers=2",    "workers=3", "kill_server=2@6", "checkpoint_every=4",
            "recover=on", "compute_ms=1", NULL};
        run_ok(set2, &g2, &res);
        assert_no_children();
        assert_string_equal(res.status, "done");
        assert_close(fig(&res, "shard_restarts"), 1, 0);
        assert_close(fig(&res, "steps_done"), 12, 0);
        assert_true(fig(&res, "checkpoints") >= 1);
        assert_non_null(strstr(g2.logs, "W: server shard 2 (pid "));
        assert_non_null(strstr(g2.logs, "restarted it (pid "));
        assert_non_null(strstr(g2.logs, "from its checkpoint of step 4"));
        /* below the loss at w = 0 (in async a late worker's step 0 may
         * already see others' updates, so initial_loss can be lower) */
        if (!(fig(&res, "final_loss") < log(2.0)))
            fail_msg("%s: final loss %g\n%s", modes[k], fig(&res, "final_loss"), g2.logs);
        assert_int_equal(got_count(&g2, "loss"), 12);
        lab_result_fini(&res);
        got_fini(&g2);
    }

    /* killed before its first checkpoint: the restart says it begins from
     * zero rather than naming a checkpoint that never came */
    struct got g3 = {0};
    const char *set3[] = {"mode=sync",          "servers=2",  "kill_server=2@2",
                          "checkpoint_every=5", "recover=on", NULL};
    run_ok(set3, &g3, &res);
    assert_no_children();
    assert_close(fig(&res, "shard_restarts"), 1, 0);
    assert_non_null(strstr(g3.logs, "had sent no checkpoint yet"));
    assert_null(strstr(g3.logs, "from its checkpoint of step"));
    lab_result_fini(&res);
    got_fini(&g3);

    /* async counts a shard's steps by the slowest worker still training:
     * when the fast one has finished and the straggler dies at step 1, step 5
     * never comes, and the run says the fault did not fire */
    struct got g4 = {0};
    const char *set4[] = {"mode=async",   "workers=2",          "straggler=2:100",
                          "compute_ms=1", "kill_worker=2@1",    "kill_server=1@5",
                          "recover=on",   "checkpoint_every=2", NULL};
    run_ok(set4, &g4, &res);
    assert_no_children();
    assert_close(fig(&res, "shard_restarts"), 0, 0);
    assert_non_null(strstr(g4.logs, "W: kill_server = 1@5 did not fire"));
    lab_result_fini(&res);
    got_fini(&g4);
}

/* A worker that hangs (stop_worker: a real SIGSTOP) instead of dying: in
 * ssp it would hold every other worker back once they are `staleness`
 * steps ahead, in async the end of the run would wait for it, in sync the
 * barrier would. After the hang timeout (short here) it is ended (SIGKILL,
 * reaped) and the others finish every step. This one waits real time: in
 * sync the verdict is the shard's barrier, in its own process on the real
 * clock; in ssp and async the master judges the worker against the live
 * shard, whose statistics come every 250 ms of real time, so a run clock
 * moved ahead would make the shard look hung first (test_hung_shard's
 * clock works because there nothing else is judged). */
static void test_hung_worker(void **state)
{
    (void)state;
    const char *modes[] = {"mode=ssp", "mode=async", "mode=sync"};
    for (int k = 0; k < 3; k++) {
        struct got g = {0};
        struct lab_result res;
        const char *set[] = {modes[k],
                             "workers=3",
                             "stop_worker=2@4",
                             "compute_ms=1",
                             "staleness=1",
                             "hang_timeout_ms=1500",
                             NULL};
        run_ok(set, &g, &res);
        assert_no_children(); /* the stopped one too */
        assert_string_equal(res.status, "done");
        if (fig(&res, "workers_lost") != 1 || fig(&res, "steps_done") != 12)
            fail_msg("%s: %g workers lost, %g steps done:\n%s", modes[k], fig(&res, "workers_lost"),
                     fig(&res, "steps_done"), g.logs);
        assert_int_equal(got_count(&g, "loss"), 12);
        if (k < 2) {
            if (!strstr(g.logs, "W: worker 2 stopped answering for ") ||
                !strstr(g.logs, "dropped; the others go on without it (2 workers left)"))
                fail_msg("%s: no drop in the log:\n%s", modes[k], g.logs);
        } else {
            if (!strstr(g.logs, "worker 2 did not push step 4 within") ||
                !strstr(g.logs, "W: worker 2 (pid ") || !strstr(g.logs, "2 workers left"))
                fail_msg("%s: no drop in the log:\n%s", modes[k], g.logs);
        }
        lab_result_fini(&res);
        got_fini(&g);
    }
}

/* A clock that runs with the real one until a child of this process is
 * stopped (stop_server's SIGSTOP), then jumps `jump` seconds ahead, once:
 * the master, which measures a child's silence on the run's clock, sees the
 * hang at once instead of after the hang timeout's real seconds. /proc is
 * looked at every 20 ms. */
struct hang_clock {
    double offset, jump, next_look;
    bool jumped;
};

static double hang_now(void *ctx)
{
    struct hang_clock *h = ctx;
    double t = core_time_mono();
    if (!h->jumped && t >= h->next_look) {
        h->next_look = t + 0.02;
        if (proc_test_stopped() > 0) {
            h->offset += h->jump;
            h->jumped = true;
        }
    }
    return t + h->offset;
}

static void hang_sleep(void *ctx, double secs)
{
    (void)ctx;
    core_clock_real()->sleep(NULL, secs);
}

/* A shard that hangs (stop_server: SIGSTOP, every thread): its statistics
 * stop coming, so after half the hang timeout on the run's clock the master
 * ends it and the lab stops naming it, or with recover=on restarts it from
 * its checkpoint and no worker is lost. The clock jumps past the timeout as
 * soon as the shard is stopped, so no real second is waited. One shard:
 * the jump would make a second, live one look silent as well (its
 * statistics come every 250 ms of real time). */
static void test_hung_shard(void **state)
{
    (void)state;
    struct hang_clock hc = {.jump = 2.0};
    struct core_clock clock = {hang_now, hang_sleep, &hc};
    struct got g = {.clock = &clock};
    struct lab_result res;
    const char *set[] = {
        "mode=sync", "servers=1", "stop_server=1@6", "checkpoint_every=4", "hang_timeout_ms=2000",
        NULL};
    int rc = run_ps(set, &g, &res);
    assert_no_children();
    assert_true(hc.jumped);
    assert_int_not_equal(rc, 0);
    assert_int_not_equal(rc, CORE_ERR_CANCELLED);
    assert_string_equal(res.status, "failed");
    if (!strstr(res.error, "server shard 1 stopped answering for ") ||
        !strstr(res.error, "checkpoint is of step 4") || !strstr(res.error, "recover=on"))
        fail_msg("error: %s", res.error);
    lab_result_fini(&res);
    got_fini(&g);

    const char *modes[] = {"mode=async", "mode=sync"};
    for (int k = 0; k < 2; k++) {
        struct hang_clock hc2 = {.jump = 2.0};
        struct core_clock clock2 = {hang_now, hang_sleep, &hc2};
        struct got g2 = {.clock = &clock2};
        const char *set2[] = {modes[k],
                              "servers=1",
                              "workers=3",
                              "stop_server=1@6",
                              "checkpoint_every=4",
                              "recover=on",
                              "compute_ms=1",
                              "hang_timeout_ms=2000",
                              NULL};
        run_ok(set2, &g2, &res);
        assert_no_children();
        assert_true(hc2.jumped);
        assert_string_equal(res.status, "done");
        if (fig(&res, "shard_restarts") != 1 || fig(&res, "steps_done") != 12 ||
            fig(&res, "workers_lost") != 0)
            fail_msg("%s: %g restarts, %g steps done, %g workers lost:\n%s", modes[k],
                     fig(&res, "shard_restarts"), fig(&res, "steps_done"),
                     fig(&res, "workers_lost"), g2.logs);
        assert_non_null(strstr(g2.logs, "W: server shard 1 stopped answering for "));
        assert_non_null(strstr(g2.logs, "from its checkpoint of step 4"));
        assert_int_equal(got_count(&g2, "loss"), 12);
        lab_result_fini(&res);
        got_fini(&g2);
    }
}

/* On an emulated link a worker's transfer rate cannot beat the link: the
 * figure comes from the pull replies, timed from the shard's send to the
 * worker's last byte, not from push sends (which return once the bytes sit
 * in the socket buffer and made the rate exceed the link). */
static void test_link_rates(void **state)
{
    (void)state;
    const char *modes[] = {"mode=sync", "mode=async"};
    for (int k = 0; k < 2; k++) {
        struct got g = {0};
        struct lab_result res;
        const char *set[] = {
            modes[k], "link=100Mbps", "params=20000", "workers=2", "servers=2", "steps=5", NULL};
        run_ok(set, &g, &res);
        assert_no_children();
        double link = fig(&res, "link_mb_s"), pp = fig(&res, "pushpull_mb_s");
        if (!(pp > 0 && pp <= link * 1.01))
            fail_msg("%s: push/pull at %g MB/s on a %g MB/s link", modes[k], pp, link);
        lab_result_fini(&res);
        got_fini(&g);
    }
}

/* Loss against wall time follows the training as it happens: a point after
 * every W worker steps reported (whichever workers), the mean of each
 * worker's latest loss, so in async the fast workers' progress shows at
 * once instead of waiting for a straggler to reach the same step number. */
static void test_loss_time(void **state)
{
    (void)state;
    const int W = 3, T = 12;
    struct got g = {0};
    struct lab_result res;
    const char *set[] = {"mode=async",   "workers=3", "straggler=1:20",
                         "compute_ms=2", "trace=on",  NULL};
    run_ok(set, &g, &res);
    assert_no_children();
    size_t reports = 0, points = 0;
    for (size_t i = 0; i < g.n; i++) {
        if (strcmp(g.s[i].series, "trace_push") == 0) {
            reports++;
        } else if (strcmp(g.s[i].series, "loss_time") == 0) {
            points++;
            if (reports != points * (size_t)W)
                fail_msg("loss_time point %zu came after %zu worker steps, not %zu", points,
                         reports, points * (size_t)W);
            assert_true(isfinite(g.s[i].value) && g.s[i].value > 0);
        }
    }
    assert_int_equal(points, (size_t)T);
    /* the last point: every worker's last step, as the last step's mean */
    double lt = NAN, ls = NAN;
    for (size_t i = 0; i < g.n; i++)
        if (strcmp(g.s[i].series, "loss_time") == 0)
            lt = g.s[i].value;
    assert_true(got_find(&g, "loss", T - 1, &ls));
    assert_close(lt, ls, 1e-12);
    lab_result_fini(&res);
    got_fini(&g);
}

static void test_divergence(void **state)
{
    (void)state;
    struct got g = {0};
    struct lab_result res;
    const char *set[] = {"model=linear", "lr=5", "steps=30", NULL};
    int rc = run_ps(set, &g, &res);
    assert_int_equal(rc, CORE_ERR_INVALID);
    assert_string_equal(res.status, "failed");
    assert_non_null(strstr(res.error, "diverged"));
    assert_non_null(strstr(res.error, "lr = 5 is too large"));
    assert_non_null(strstr(res.error, "smaller"));
    assert_no_children();
    lab_result_fini(&res);
    got_fini(&g);
}

/* Cancelled while the workers wait on a 10 Mbps link: nothing is left. */
static void test_cancel(void **state)
{
    (void)state;
    atomic_int cancel = 0;
    struct got g = {.cancel = &cancel, .cancel_after = 8};
    struct lab_result res;
    const char *set[] = {"link=10Mbps", "params=20000", "steps=1000", "servers=2", NULL};
    assert_int_equal(run_ps(set, &g, &res), CORE_ERR_CANCELLED);
    assert_string_equal(res.status, "cancelled");
    assert_no_children();
    lab_result_fini(&res);
    got_fini(&g);
}

static void test_check(void **state)
{
    (void)state;
    struct core_err e;
    const char *a[] = {"mode=allreduce", "servers=2", NULL};
    assert_int_equal(check_ps(a, &e), CORE_ERR_INVALID);
    assert_non_null(strstr(e.msg, "'servers' does not apply"));
    const char *b[] = {"workers=3", "straggler=4:2", NULL};
    assert_int_equal(check_ps(b, &e), CORE_ERR_INVALID);
    assert_non_null(strstr(e.msg, "straggler"));
    const char *c[] = {"params=10", "servers=8", "workers=2", NULL}; /* a key or two each */
    assert_int_equal(check_ps(c, &e), 0);
    const char *d[] = {"link=1Gbit", NULL};
    assert_int_equal(check_ps(d, &e), CORE_ERR_INVALID);
    assert_non_null(strstr(e.msg, "'link'"));
    const char *f[] = {"recover=on", "checkpoint_every=0", NULL};
    assert_int_equal(check_ps(f, &e), CORE_ERR_INVALID);
    assert_non_null(strstr(e.msg, "checkpoint_every"));
    const char *h[] = {"mode=allreduce", "compress=q8", NULL};
    assert_int_equal(check_ps(h, &e), CORE_ERR_INVALID);
    const char *i[] = {"params=10000000", "sparsity=0", "batch=64", NULL};
    assert_int_equal(check_ps(i, &e), CORE_ERR_INVALID);
    assert_non_null(strstr(e.msg, "'batch'"));
    const char *j[] = {"workers=64", "servers=8", NULL};
    assert_int_equal(check_ps(j, &e), CORE_ERR_INVALID);
    const char *k[] = {"params=9", NULL};
    assert_int_equal(check_ps(k, &e), CORE_ERR_INVALID);
    assert_non_null(strstr(e.msg, "'params'"));
    const char *l[] = {"steps=10", "kill_worker=1@10", NULL};
    assert_int_equal(check_ps(l, &e), CORE_ERR_INVALID);
    assert_non_null(strstr(e.msg, "kill_worker"));
    const char *m[] = {NULL};
    assert_int_equal(check_ps(m, &e), 0); /* the defaults run */

    /* a link so slow that one step would take days is refused before the
     * run, naming the link and the model's size (40 MB at 125 B/s) */
    const char *n[] = {"link=1Kbps", "params=10000000", "sparsity=0.9999", NULL};
    assert_int_equal(check_ps(n, &e), CORE_ERR_INVALID);
    assert_non_null(strstr(e.msg, "'link'"));
    assert_non_null(strstr(e.msg, "'params'"));
    assert_non_null(strstr(e.msg, "days"));
    const char *o[] = {"mode=allreduce", "link=1Kbps", "params=100000", NULL};
    assert_int_equal(check_ps(o, &e), CORE_ERR_INVALID);
    assert_non_null(strstr(e.msg, "'link'"));
    /* every shard reply crosses one shared outgoing link: W times the time */
    const char *q[] = {"link=10Mbps", "params=1000000", "workers=20", NULL};
    assert_int_equal(check_ps(q, &e), 0);
    const char *q2[] = {"link=10Mbps", "params=1000000", "workers=20", "server_nic=shared", NULL};
    assert_int_equal(check_ps(q2, &e), CORE_ERR_INVALID);
    assert_non_null(strstr(e.msg, "server_nic"));
    /* slow but small: fine */
    const char *s1[] = {"link=1Kbps", "params=10", NULL};
    assert_int_equal(check_ps(s1, &e), 0);
    /* the only worker killed: nothing could go on */
    const char *v1[] = {"workers=1", "kill_worker=1@3", NULL};
    assert_int_equal(check_ps(v1, &e), CORE_ERR_INVALID);
    assert_non_null(strstr(e.msg, "workers = 1"));
    /* a hang needs a server (stop_server) and a worker to go on (stop_worker) */
    const char *v2[] = {"mode=allreduce", "stop_server=1@3", NULL};
    assert_int_equal(check_ps(v2, &e), CORE_ERR_INVALID);
    assert_non_null(strstr(e.msg, "'stop_server' needs a server"));
    const char *v3[] = {"workers=1", "stop_worker=1@3", NULL};
    assert_int_equal(check_ps(v3, &e), CORE_ERR_INVALID);
    assert_non_null(strstr(e.msg, "stop_worker with workers = 1"));
    const char *v4[] = {"servers=2", "stop_server=3@3", NULL};
    assert_int_equal(check_ps(v4, &e), CORE_ERR_INVALID);
    assert_non_null(strstr(e.msg, "names shard 3"));
    /* a fault needs a step between the first and the last */
    const char *u[] = {"steps=1", "kill_worker=1@1", NULL};
    assert_int_equal(check_ps(u, &e), CORE_ERR_INVALID);
    assert_non_null(strstr(e.msg, "steps >= 2"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_specs),
        cmocka_unit_test(test_shard_range),
        cmocka_unit_test(test_model_gradient),
        cmocka_unit_test(test_check),
        cmocka_unit_test(test_sync_matches_reference),
        cmocka_unit_test(test_ssp_bound),
        cmocka_unit_test(test_async),
        cmocka_unit_test(test_live_snapshots),
        cmocka_unit_test(test_allreduce),
        cmocka_unit_test(test_killed_worker),
        cmocka_unit_test(test_killed_shard),
        cmocka_unit_test(test_hung_worker),
        cmocka_unit_test(test_hung_shard),
        cmocka_unit_test(test_link_rates),
        cmocka_unit_test(test_loss_time),
        cmocka_unit_test(test_divergence),
        cmocka_unit_test(test_cancel),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
