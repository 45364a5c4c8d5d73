/*
 * test_lab_kmeans_run.c — the kmeans lab through lab_run() at small sizes,
 * with real worker processes: bit-identical centres and labels for any
 * number of workers, with and without the combiner, with injected crashes
 * (whose count matches the seed's schedule) and a straggler; the shuffle's
 * record counts; k = 1, k = n, duplicate points and an empty cluster; files
 * as input; a worker killed from outside; a stopped one ended by the labs'
 * hang rule (on a clock that jumps while it is stopped); cancel with workers busy; the
 * parameter cross-checks; device=gpu with or without a GPU. Nothing here
 * asserts a timing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "labs/kmeans/lab_kmeans.h"
#include "lab_test_util.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The cross-check's verdict (0 or the code), its message in err. */
static int check(const char *const *set, struct core_err *err)
{
    struct lab_params p;
    lab_test_params(&p, "kmeans", set);
    core_err_clear(err);
    int rc = lab_params_check(&p, err);
    lab_params_fini(&p);
    return rc;
}

static int run(const char *const *set, struct lab_got *g, struct lab_result *res)
{
    return lab_test_run("kmeans", set, NULL, g, res, NULL, 0);
}

/* Runs and expects "done"; the caller frees res (and g with got_fini). */
static void run_ok(const char *const *set, struct lab_got *g, struct lab_result *res)
{
    int rc = run(set, g, res);
    if (rc != 0)
        fail_msg("run failed (%d): %s", rc, res->error ? res->error : "?");
    assert_string_equal(res->status, "done");
    assert_no_children();
}

static const char *tmp_file(const char *name, const void *bytes, size_t n)
{
    return lab_test_tmp_file("kmr", name, bytes, n);
}

/* ---- the save file ------------------------------------------------------------------------ */

/* Creates the file named by ud at the first sample: the save path appears
 * while the lab runs, after every check passed. */
static void appear_sample(void *ud, const struct core_sample *s)
{
    (void)s;
    const char *path = ud;
    if (access(path, F_OK) != 0) {
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fputs("appeared\n", f);
        fclose(f);
    }
}

/* A save path that appears during the run is not replaced: the run fails
 * at the end with CORE_ERR_CONFLICT naming it, and what appeared is kept.
 * With overwrite=on it is replaced by the centres. */
static void test_save_appears(void **state)
{
    (void)state;
    char out[512], save[600];
    snprintf(out, sizeof out, "%s", tmp_file("appears.csv", "", 0));
    unlink(out);
    snprintf(save, sizeof save, "save=%s", out);
    for (int ow = 0; ow < 2; ow++) {
        const char *set[] = {"n=500",
                             "k=2",
                             "d=2",
                             "tasks=2",
                             "workers=1",
                             "max_iter=2",
                             "scale_iters=0",
                             save,
                             ow ? "overwrite=on" : "overwrite=off",
                             NULL};
        struct lab_params p;
        struct core_err err;
        lab_test_params(&p, "kmeans", set);
        assert_int_equal(lab_params_check(&p, &err), 0);
        struct lab_sink sink = {appear_sample, NULL, NULL, NULL, out};
        struct lab_run_opts o = {.sinks = &sink, .n_sinks = 1};
        struct lab_result res;
        int rc = lab_run(&p, &o, &res, &err);
        char *text = NULL;
        size_t len;
        assert_int_equal(core_file_read(out, 1 << 20, &text, &len, &err), 0);
        if (!ow) {
            assert_int_equal(rc, CORE_ERR_CONFLICT);
            assert_string_equal(res.status, "failed");
            assert_contains(res.error, out);
            assert_contains(res.error, "already exists");
            assert_string_equal(text, "appeared\n");
        } else {
            assert_int_equal(rc, 0);
            assert_true(strncmp(text, "x1,x2\n", 6) == 0);
            unlink(out);
        }
        free(text);
        lab_result_fini(&res);
        lab_params_fini(&p);
        assert_no_children();
    }
    unlink(out);
}

/* ---- determinism --------------------------------------------------------------------------- */

#define BASE "n=6000", "k=7", "d=5", "tasks=12", "max_iter=25", "seed=3", "spread=3"

struct fp {
    char centres[17], labels[17];
    double sse, iters;
};

static struct fp fingerprint(const struct lab_result *r)
{
    struct fp f;
    snprintf(f.centres, sizeof f.centres, "%s", fig_str(r, "centres_fnv"));
    snprintf(f.labels, sizeof f.labels, "%s", fig_str(r, "labels_fnv"));
    f.sse = fig(r, "final_sse");
    f.iters = fig(r, "iterations");
    return f;
}

static void assert_same(const struct fp *a, const struct fp *b)
{
    assert_string_equal(a->centres, b->centres);
    assert_string_equal(a->labels, b->labels);
    assert_memory_equal(&a->sse, &b->sse, sizeof a->sse);
    assert_true(a->iters == b->iters);
}

/* p = 1, 2, 3 and the combiner on or off: the same bits. The shuffle
 * carries tasks*k records with the combiner and n without. */
static void test_same_bits_any_p(void **state)
{
    (void)state;
    struct fp ref;
    for (int comb = 1; comb >= 0; comb--)
        for (int p = 1; p <= 3; p++) {
            char w[32], c[32];
            snprintf(w, sizeof w, "workers=%d", p);
            snprintf(c, sizeof c, "combiner=%s", comb ? "on" : "off");
            const char *set[] = {BASE, w, c, "scale_iters=2", NULL};
            struct lab_got g = {0};
            struct lab_result res;
            run_ok(set, &g, &res);
            struct fp f = fingerprint(&res);
            if (comb == 1 && p == 1)
                ref = f;
            else
                assert_same(&f, &ref);
            assert_true(fig(&res, "shuffle_records") == (comb ? 12.0 * 7 : 6000.0));
            assert_true(fig(&res, "shuffle_bytes") >=
                        (comb ? 12.0 * (48 + 7 * 6 * 8) : 6000.0 * 28 + 12 * 48));
            assert_true(fig(&res, "final_sse") <= fig(&res, "sse_first"));
            if (p > 1) /* the run's own check: the p < workers passes matched */
                assert_true(fig(&res, "deterministic") == 1);
            assert_true(fig(&res, "workers") == p);
            assert_true(fig(&res, "speedup_p1") == 1);
            lab_result_fini(&res);
            got_fini(&g);
        }
}

/* Crashes: the same result, and (when no backup copy muddied the count) as
 * many crashes as the seed's schedule says. */
static void test_crashes(void **state)
{
    (void)state;
    const char *clean[] = {BASE, "workers=2", NULL};
    struct lab_got g0 = {0};
    struct lab_result r0;
    run_ok(clean, &g0, &r0);
    struct fp ref = fingerprint(&r0);
    lab_result_fini(&r0);
    got_fini(&g0);

    for (int p = 1; p <= 3; p += 2) {
        char w[32];
        snprintf(w, sizeof w, "workers=%d", p);
        const char *set[] = {BASE, w, "crash=0.3", "combiner=off", NULL};
        struct lab_got g = {0};
        struct lab_result res;
        run_ok(set, &g, &res);
        struct fp f = fingerprint(&res);
        assert_same(&f, &ref);
        double crashes = fig(&res, "crashes");
        assert_true(crashes > 0);
        assert_true(fig(&res, "respawns") == crashes);
        assert_true(fig(&res, "reexec") >= crashes);
        assert_contains(g.info_text, "an injected crash");
        assert_contains(g.info_text, "was killed by signal 9");
        /* the schedule: attempt a of task t in iteration i crashes when
         * lab_km_fault_u(seed, i, t, a) < crash; the last pass is iteration
         * iterations + 1 */
        if (fig(&res, "speculative") == 0) {
            int want = 0, iters = (int)fig(&res, "iterations");
            for (int it = 1; it <= iters + 1; it++)
                for (int t = 0; t < 12; t++)
                    for (uint32_t a = 1; lab_km_fault_u(3, (uint32_t)it, (uint32_t)t, a) < 0.3; a++)
                        want++;
            assert_int_equal((int)crashes, want);
        }
        lab_result_fini(&res);
        got_fini(&g);
    }
}

/* A straggler 1000 times slower: the same result (its tasks get backup
 * copies or it finishes late; either way nothing changes). */
static void test_straggler(void **state)
{
    (void)state;
    const char *clean[] = {BASE, "workers=1", NULL};
    const char *slow[] = {BASE, "workers=2", "straggler=2:1000", "max_iter=4", NULL};
    const char *clean4[] = {BASE, "workers=1", "max_iter=4", NULL};
    struct lab_got g = {0};
    struct lab_result res;
    run_ok(clean4, &g, &res);
    struct fp ref = fingerprint(&res);
    lab_result_fini(&res);
    got_fini(&g);
    struct lab_got g2 = {0};
    run_ok(slow, &g2, &res);
    struct fp f = fingerprint(&res);
    assert_same(&f, &ref);
    assert_contains(g2.info_text, "worker 2 is a straggler: 1000 times slower");
    lab_result_fini(&res);
    got_fini(&g2);
    (void)clean;
}

/* A worker killed from outside (not by the lab) is noticed, replaced, and
 * the run ends as it would have. */
static void test_killed_worker(void **state)
{
    (void)state;
    const char *set[] = {BASE, "workers=2", NULL};
    struct lab_got g0 = {0};
    struct lab_result res;
    run_ok(set, &g0, &res);
    struct fp ref = fingerprint(&res);
    lab_result_fini(&res);
    got_fini(&g0);
    struct lab_got g = {.kill_child = true};
    run_ok(set, &g, &res);
    struct fp f = fingerprint(&res);
    assert_same(&f, &ref);
    assert_true(fig(&res, "crashes") >= 1);
    assert_contains(g.warn_text, "was killed by signal 9");
    lab_result_fini(&res);
    got_fini(&g);
}

/* A clock that runs with the real one and jumps `jump` seconds ahead at
 * every reading while a child of this process is stopped (a run this small
 * lasts milliseconds: /proc is looked at every time): the
 * master, which measures a busy worker's silence on the run's clock, finds
 * the stopped one past the labs' hang rule (lab_hang_limit_s: 5 s plus 20
 * typical tasks) without waiting real seconds. A live worker busy at a jump
 * may look silent too and be replaced: that changes nothing in the result. */
struct stop_clock {
    double offset, jump;
    int jumps;
};

static double stop_now(void *ctx)
{
    struct stop_clock *h = ctx;
    if (proc_test_stopped() > 0) {
        h->offset += h->jump;
        h->jumps++;
    }
    return core_time_mono() + h->offset;
}

static void stop_sleep(void *ctx, double secs)
{
    (void)ctx;
    core_clock_real()->sleep(NULL, secs);
}

/* A worker that stops answering (SIGSTOP: a hang, not a death) is ended by
 * the labs' hang rule and replaced; its task runs again and the run ends as
 * it would have, with the same bits, and no process is left stopped. */
static void test_stopped_worker(void **state)
{
    (void)state;
    const char *set[] = {BASE, "workers=2", "scale_iters=0", NULL};
    struct lab_got g0 = {0};
    struct lab_result res;
    run_ok(set, &g0, &res);
    struct fp ref = fingerprint(&res);
    lab_result_fini(&res);
    got_fini(&g0);
    struct stop_clock sc = {.jump = 10.0};
    struct core_clock clock = {stop_now, stop_sleep, &sc};
    struct lab_got g = {.stop_child = true, .clock = &clock};
    run_ok(set, &g, &res);
    struct fp f = fingerprint(&res);
    assert_same(&f, &ref);
    assert_true(sc.jumps >= 1);
    if (fig(&res, "timeouts") < 1 || !strstr(g.warn_text, "did not answer") ||
        !strstr(g.warn_text, "killed; "))
        fail_msg("no hung worker ended: %g timeouts; warnings:\n%s", fig(&res, "timeouts"),
                 g.warn_text);
    assert_int_equal(proc_test_stopped(), 0);
    lab_result_fini(&res);
    got_fini(&g);
}

/* A crash in the last pass (every point to the final centres) is logged
 * as such, not as an iteration that never ran. The seed is the first whose
 * schedule crashes task 1 of that pass and few enough before it for the
 * log to still show it. */
static void test_crash_in_final_pass(void **state)
{
    (void)state;
    uint32_t seed = 0;
    for (uint32_t sd = 1; sd < 1000 && !seed; sd++) {
        int before = 0; /* crashes in iteration 1 (2 tasks) */
        for (uint32_t t = 0; t < 2; t++)
            for (uint32_t a = 1; lab_km_fault_u(sd, 1, t, a) < 0.5; a++)
                before++;
        if (before < 6 && lab_km_fault_u(sd, 2, 0, 1) < 0.5)
            seed = sd;
    }
    assert_true(seed > 0);
    char sd[32];
    snprintf(sd, sizeof sd, "seed=%u", seed);
    const char *set[] = {"n=500",      "k=3", "d=2",       "tasks=2",       "workers=2",
                         "max_iter=1", sd,    "crash=0.5", "scale_iters=0", NULL};
    struct lab_got g = {0};
    struct lab_result res;
    run_ok(set, &g, &res);
    assert_true(fig(&res, "iterations") == 1);
    assert_contains(g.info_text, "during task 1 of the final assignment (attempt 1");
    assert_true(strstr(g.info_text, "of iteration 2") == NULL);
    lab_result_fini(&res);
    got_fini(&g);
}

/* ---- degenerate cases ---------------------------------------------------------------------- */

/* Reads the saved centres. */
static void read_centres(const char *path, float *c, int k, int d)
{
    struct core_err err;
    size_t n;
    int dd;
    if (lab_km_points_read(path, KM_FMT_CSV, "file", 0, c, (size_t)k, &n, &dd, NULL, NULL, &err) !=
        0)
        fail_msg("%s", err.msg);
    assert_int_equal(dd, d);
    assert_int_equal(n, (size_t)k);
}

/* k = 1: the centre is the mean of all points, the SSE their spread
 * around it. */
static void test_k1(void **state)
{
    (void)state;
    const size_t n = 500;
    float pts[500 * 3];
    for (size_t i = 0; i < n * 3; i++)
        pts[i] = (float)((i * 7919) % 1000) / 100.0f;
    char data[512], out[512];
    snprintf(data, sizeof data, "%s", tmp_file("k1.f32", pts, sizeof pts));
    snprintf(out, sizeof out, "%s", tmp_file("k1_out.csv", "", 0));
    unlink(out); /* save creates it: an existing file would be refused */
    char file[600], save[600];
    snprintf(file, sizeof file, "file=%s", data);
    snprintf(save, sizeof save, "save=%s", out);
    const char *set[] = {file, "d=3", "k=1", "tasks=7", "workers=2", save, NULL};
    struct lab_got g = {0};
    struct lab_result res;
    run_ok(set, &g, &res);
    double mean[3] = {0}, sse = 0;
    for (size_t i = 0; i < n; i++)
        for (int j = 0; j < 3; j++)
            mean[j] += pts[i * 3 + (size_t)j];
    for (int j = 0; j < 3; j++)
        mean[j] /= (double)n;
    float c[3];
    read_centres(out, c, 1, 3);
    for (int j = 0; j < 3; j++)
        assert_true(fabs(c[j] - mean[j]) <= 1e-5 * fabs(mean[j]) + 1e-6);
    for (size_t i = 0; i < n; i++)
        for (int j = 0; j < 3; j++) {
            double t = pts[i * 3 + (size_t)j] - c[j];
            sse += t * t;
        }
    assert_true(fabs(fig(&res, "final_sse") - sse) <= 1e-4 * sse);
    assert_true(fig(&res, "iterations") <= 2); /* one step to the mean, one to see it stay */
    assert_true(fig(&res, "converged") == 1);
    assert_true(fig(&res, "n") == 500);
    lab_result_fini(&res);
    got_fini(&g);
    unlink(data);
    unlink(out);
}

/* k = n: every point its own cluster, SSE 0 at once. */
static void test_k_equals_n(void **state)
{
    (void)state;
    const char *set[] = {"n=40", "d=2", "k=40", "tasks=4", "workers=2", "init=first", NULL};
    struct lab_got g = {0};
    struct lab_result res;
    run_ok(set, &g, &res);
    assert_true(fig(&res, "final_sse") == 0);
    assert_true(fig(&res, "sse_first") == 0);
    assert_true(fig(&res, "iterations") == 1);
    assert_true(fig(&res, "converged") == 1);
    assert_true(fig(&res, "empty_clusters") == 0);
    lab_result_fini(&res);
    got_fini(&g);
}

/* Duplicate points (spread 0: every point sits on one of k blob centres)
 * and random initial centres that repeat: ties go to the lower centre, the
 * others stay empty, and any p gives the same bits. */
static void test_duplicates(void **state)
{
    (void)state;
    struct fp ref;
    for (int p = 1; p <= 2; p++) {
        char w[32];
        snprintf(w, sizeof w, "workers=%d", p);
        const char *set[] = {"n=3000", "k=12", "d=3", "spread=0", "seed=5", "tasks=6", w, NULL};
        struct lab_got g = {0};
        struct lab_result res;
        run_ok(set, &g, &res);
        struct fp f = fingerprint(&res);
        if (p == 1)
            ref = f;
        else
            assert_same(&f, &ref);
        if (fig(&res, "empty_clusters") > 0)
            assert_contains(g.info_text, "got no points");
        assert_true(fig(&res, "final_sse") >= 0);
        lab_result_fini(&res);
        got_fini(&g);
    }
}

/* A centre far from every point gets none: it keeps its place (and the
 * log says so); the others move to their means. */
static void test_empty_cluster(void **state)
{
    (void)state;
    char data[512], init[512], out[512];
    const char *sq = "x,y\n0,0\n0,1\n1,0\n1,1\n", *ini = "x,y\n0.25,0.25\n100,100\n";
    snprintf(data, sizeof data, "%s", tmp_file("sq.csv", sq, strlen(sq)));
    snprintf(init, sizeof init, "%s", tmp_file("init.csv", ini, strlen(ini)));
    snprintf(out, sizeof out, "%s", tmp_file("out.csv", "", 0));
    unlink(out);
    char a[600], b[600], c[600];
    snprintf(a, sizeof a, "file=%s", data);
    snprintf(b, sizeof b, "init_file=%s", init);
    snprintf(c, sizeof c, "save=%s", out);
    const char *set[] = {a, b, c, "init=file", "k=2", "tasks=2", "workers=2", NULL};
    struct lab_got g = {0};
    struct lab_result res;
    run_ok(set, &g, &res);
    float cen[4];
    read_centres(out, cen, 2, 2);
    assert_true(cen[0] == 0.5f && cen[1] == 0.5f);
    assert_true(cen[2] == 100.0f && cen[3] == 100.0f);
    assert_true(fig(&res, "empty_clusters") >= 1);
    assert_contains(g.info_text, "1 cluster got no points (first: cluster 2)");
    assert_true(fig(&res, "final_sse") == 2.0); /* four points, each 0.5^2 + 0.5^2 away */
    lab_result_fini(&res);
    got_fini(&g);
    unlink(data);
    unlink(init);
    unlink(out);
}

/* ---- cancel ---------------------------------------------------------------------------------- */

/* Cancelled in the main run while a straggler still sleeps in its task
 * (the first p = 1 pass emits 3 samples, each iteration 8): the run says
 * so and leaves no process behind. */
static void test_cancel(void **state)
{
    (void)state;
    atomic_int cancel = 0;
    struct lab_got g = {.cancel = &cancel, .cancel_after = 11};
    struct lab_result res;
    const char *set[] = {
        "n=200000",         "k=8",           "d=8",           "workers=2", "tasks=2",
        "straggler=1:1000", "scale_iters=1", "max_iter=1000", "tol=0",     NULL};
    assert_int_equal(run(set, &g, &res), CORE_ERR_CANCELLED);
    assert_string_equal(res.status, "cancelled");
    assert_no_children();
    assert_int_equal(proc_test_children(NULL), 0);
    lab_result_fini(&res);
    got_fini(&g);
}

/* ---- the cross-checks --------------------------------------------------------------------------
 */

static void test_checks(void **state)
{
    (void)state;
    struct core_err err;
    struct {
        const char *set[6];
        const char *want;
    } cases[] = {
        {{"n=10", "k=11", NULL}, "k = 11 clusters need at least k points, but n = 10"},
        {{"n=10", "k=2", "tasks=11", NULL}, "tasks = 11 map tasks need at least one point each"},
        {{"workers=2", "straggler=3:2", NULL}, "'straggler' names worker 3, but workers = 2"},
        {{"straggler=2", NULL}, "must be W:FACTOR"},
        {{"init=file", NULL}, "init=file needs init_file=PATH"},
        {{"init_file=x.csv", NULL}, "init_file is set, but init = random"},
        {{"device=gpu", "crash=0.1", NULL}, "use device=cpu with them"},
        {{"device=gpu", "combiner=off", NULL}, "combiner=off needs device=cpu"},
        {{"save=/nonexistent/dir/c.csv", NULL}, "its directory /nonexistent/dir does not exist"},
        {{"file=/nonexistent/p.csv", NULL}, "/nonexistent/p.csv"},
        {{"file=points.dat", NULL}, "set format=csv or format=f32"},
        {{"n=100000000", "d=256", NULL}, "more than half of this machine's memory"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (check(cases[i].set, &err) == 0)
            fail_msg("case %zu passed the check", i);
        assert_contains(err.msg, cases[i].want);
    }
    /* files */
    float pts[12] = {0};
    char f32[600], csv[600];
    snprintf(f32, sizeof f32, "file=%s", tmp_file("c.f32", pts, sizeof pts));
    const char *no_d[] = {f32, "k=1", NULL};
    assert_int_equal(check(no_d, &err), CORE_ERR_INVALID);
    assert_contains(err.msg, "is raw float32, which does not say its dimension: set d");
    const char *d3[] = {f32, "d=3", "k=1", "tasks=1", NULL};
    assert_int_equal(check(d3, &err), 0);
    const char *n9[] = {f32, "d=3", "n=9", "k=1", NULL};
    assert_int_equal(check(n9, &err), CORE_ERR_INVALID);
    assert_contains(err.msg, "n = 9, but file");
    assert_contains(err.msg, "has only 4 points");
    const char *k5[] = {f32, "d=3", "k=5", NULL};
    assert_int_equal(check(k5, &err), CORE_ERR_INVALID);
    assert_contains(err.msg, "but n = 4 (the points used from file");
    unlink(f32 + 5);
    snprintf(csv, sizeof csv, "file=%s", tmp_file("c.csv", "a,b\n1,2\n3,4\n5,x\n", 16));
    const char *bad_line[] = {csv, "k=1", "tasks=1", NULL};
    assert_int_equal(check(bad_line, &err), CORE_ERR_INVALID);
    assert_contains(err.msg, "line 4, column 2: 'x' is not a number");
    unlink(csv + 5);
    snprintf(csv, sizeof csv, "file=%s", tmp_file("c2.csv", "a,b\n1,2\n3,4\n", 12));
    const char *bad_d[] = {csv, "k=1", "tasks=1", "d=3", NULL};
    assert_int_equal(check(bad_d, &err), CORE_ERR_INVALID);
    assert_contains(err.msg, "d = 3, but file");
    assert_contains(err.msg, "has 2 columns");
    char init[600];
    snprintf(init, sizeof init, "init_file=%s", tmp_file("i.csv", "a,b\n1,2\n", 8));
    const char *bad_k[] = {csv, init, "init=file", "k=2", "tasks=1", NULL};
    assert_int_equal(check(bad_k, &err), CORE_ERR_INVALID);
    assert_contains(err.msg, "holds 1 centres, but k = 2");
    const char *good_k[] = {csv, init, "init=file", "k=1", "tasks=2", NULL};
    assert_int_equal(check(good_k, &err), 0);
    unlink(csv + 5);
    unlink(init + 10);
    /* bad values in a float32 file are found by the check, before any run:
     * the points used (n) and an init_file's centres */
    float nanpts[6] = {1, 2, 3, 4, NAN, 6};
    char nanf[600], okf[600];
    snprintf(nanf, sizeof nanf, "file=%s", tmp_file("nan.f32", nanpts, sizeof nanpts));
    const char *nan_all[] = {nanf, "d=3", "k=1", "tasks=1", NULL};
    assert_int_equal(check(nan_all, &err), CORE_ERR_INVALID);
    assert_contains(err.msg, "point 2 (byte offset 16), coordinate 2, is not a finite number");
    const char *nan_unused[] = {nanf, "d=3", "n=1", "k=1", "tasks=1", NULL};
    assert_int_equal(check(nan_unused, &err), 0); /* n = 1 never reads point 2 */
    float cpts[4] = {0, 0, 1, 1};
    snprintf(okf, sizeof okf, "file=%s", tmp_file("ok.f32", cpts, sizeof cpts));
    float badc[4] = {0, 0, INFINITY, 1};
    snprintf(init, sizeof init, "init_file=%s", tmp_file("badinit.f32", badc, sizeof badc));
    const char *bad_init[] = {okf, init, "init=file", "d=2", "k=2", "tasks=1", NULL};
    assert_int_equal(check(bad_init, &err), CORE_ERR_INVALID);
    assert_contains(err.msg, "init_file '");
    assert_contains(err.msg, "point 2 (byte offset 8), coordinate 1, is not a finite number");
    unlink(init + 10);
    /* an init_file with a name that tells no format: not "set format" */
    snprintf(init, sizeof init, "init_file=%s", tmp_file("init.dat", cpts, sizeof cpts));
    const char *dat_init[] = {okf, init, "init=file", "d=2", "k=2", "tasks=1", NULL};
    assert_int_equal(check(dat_init, &err), CORE_ERR_INVALID);
    assert_contains(err.msg, "name it *.csv");
    unlink(init + 10);
    unlink(nanf + 5);
    unlink(okf + 5);
    /* coordinates so large that squared distances would overflow */
    snprintf(csv, sizeof csv, "file=%s", tmp_file("big.csv", "a,b\n1e30,1\n-1e30,2\n", 20));
    const char *big[] = {csv, "k=2", "tasks=1", NULL};
    assert_int_equal(check(big, &err), CORE_ERR_INVALID);
    assert_contains(err.msg, "line 2, column 1: '1e30' is too large");
    unlink(csv + 5);
    /* save naming a directory fails the check, not the end of the run */
    const char *dir = getenv("WB_TEST_TMP");
    char save[600];
    snprintf(save, sizeof save, "save=%s", dir ? dir : "/tmp");
    const char *save_dir[] = {"n=100", "k=2", save, NULL};
    assert_int_equal(check(save_dir, &err), CORE_ERR_INVALID);
    assert_contains(err.msg, "it is a directory");
    const char *save_slash[] = {"n=100", "k=2", "save=/tmp/", NULL};
    assert_int_equal(check(save_slash, &err), CORE_ERR_INVALID);
    assert_contains(err.msg, "it is a directory");
    /* the master's per-task partials count against the memory: 4096 tasks
     * of k = 1024 sums of d = 256 are 8.6 GB, too much for 16 GiB */
    {
        struct lab_params q;
        struct km_cfg c;
        const char *huge[] = {"n=4096", "d=256", "k=1024", "tasks=4096", NULL};
        lab_test_params(&q, "kmeans", huge);
        assert_int_equal(lab_km_cfg_resolve(&q, 16L << 30, &c, &err), CORE_ERR_INVALID);
        assert_contains(err.msg, "use fewer tasks");
        assert_int_equal(lab_km_cfg_resolve(&q, 64L << 30, &c, &err), 0);
        lab_params_fini(&q);
    }
    /* the framework's own range checks name the parameter */
    struct lab_params p;
    const struct lab_def *d = lab_find("kmeans");
    lab_params_init(&p, d);
    assert_int_not_equal(lab_params_assign(&p, "crash=0.9", &err), 0);
    assert_contains(err.msg, "'crash'");
    assert_int_not_equal(lab_params_assign(&p, "device=tpu", &err), 0);
    assert_contains(err.msg, "cpu|gpu");
    lab_params_fini(&p);
}

/* ---- device=gpu -------------------------------------------------------------------------------
 */

/* Without a GPU: one warning line, the CPU workers, the CPU's result.
 * With one: the run checked itself against the CPU (0 labels differ). */
static void test_device_gpu(void **state)
{
    (void)state;
    const char *cpu[] = {BASE, "workers=2", NULL};
    const char *gpu[] = {BASE, "workers=2", "device=gpu", NULL};
    struct lab_got g0 = {0}, g = {0};
    struct lab_result r0, r;
    run_ok(cpu, &g0, &r0);
    run_ok(gpu, &g, &r);
    struct core_err why;
    if (kern_probe(NULL, &why) != 0) {
        assert_int_equal(g.warns, 1);
        assert_contains(g.warn_text, "no GPU");
        assert_contains(g.warn_text, "device=gpu runs the map on the CPU workers instead");
        assert_string_equal(fig_str(&r, "device"), "cpu");
        struct fp a = fingerprint(&r0), b = fingerprint(&r);
        assert_same(&a, &b);
    } else {
        assert_true(strncmp(fig_str(&r, "device"), "gpu", 3) == 0);
        assert_true(fig(&r, "gpu_check_labels") == 0);
        assert_string_equal(fig_str(&r, "labels_fnv"), fig_str(&r0, "labels_fnv"));
    }
    lab_result_fini(&r0);
    got_fini(&g0);
    lab_result_fini(&r);
    got_fini(&g);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_bits_any_p),
        cmocka_unit_test(test_crashes),
        cmocka_unit_test(test_straggler),
        cmocka_unit_test(test_killed_worker),
        cmocka_unit_test(test_stopped_worker),
        cmocka_unit_test(test_crash_in_final_pass),
        cmocka_unit_test(test_k1),
        cmocka_unit_test(test_save_appears),
        cmocka_unit_test(test_k_equals_n),
        cmocka_unit_test(test_duplicates),
        cmocka_unit_test(test_empty_cluster),
        cmocka_unit_test(test_cancel),
        cmocka_unit_test(test_checks),
        cmocka_unit_test(test_device_gpu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
