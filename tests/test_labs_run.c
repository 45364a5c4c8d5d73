/*
 * test_labs_run.c — the amdahl and memory labs run through lab_run() at tiny
 * sizes. Results are checked for sanity and for agreeing with each other
 * (every series against the formulas and the summary), never for speed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "lab_test_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- amdahl ---------------------------------------------------------------- */

/* The series agree with each other and with the formulas, whatever the
 * timings were; P above the (pretend) core count is warned about. */
static void test_amdahl_small(void **state)
{
    (void)state;
    struct lab_machine m;
    lab_machine_probe(&m);
    m.cores_online = 2;
    struct lab_got g = {0};
    struct lab_result res;
    const char *set[] = {"f=0.25", "P=3", "work_ms=20", "reps=1", NULL};
    assert_int_equal(lab_test_run("amdahl", set, &m, &g, &res, NULL, 0), 0);
    assert_string_equal(res.status, "done");
    assert_no_children();
    assert_true(g.warns >= 1);
    assert_non_null(strstr(g.last_warn, "oversubscri"));

    double f = 0.25, t1 = got_value(&g, "time", 1);
    assert_pos_finite(t1);
    for (int p = 1; p <= 3; p++) {
        double t = got_value(&g, "time", p), s = got_value(&g, "speedup", p);
        assert_pos_finite(t);
        assert_pos_finite(s);
        assert_close(s, t1 / t, 1e-12);
        assert_close(got_value(&g, "amdahl", p), 1 / (f + (1 - f) / p), 1e-12);
        assert_close(got_value(&g, "gustafson", p), p - f * (p - 1), 1e-12);
        assert_close(got_value(&g, "efficiency", p), 100 * s / p, 1e-12);
        if (p >= 2) {
            double e = got_value(&g, "karp_flatt", p);
            assert_true(isfinite(e));
            /* S > 0 bounds e from below by -1/(p-1) */
            assert_true(e > -1.0 / (p - 1));
            assert_close(e, (1 / s - 1.0 / p) / (1 - 1.0 / p), 1e-12);
            assert_close(got_value(&g, "f_set", p), f, 1e-12);
        }
    }
    assert_int_equal(got_count(&g, "time"), 3);
    assert_int_equal(got_count(&g, "karp_flatt"), 2);

    assert_close(fig(&res, "f_set"), 0.25, 1e-12);
    assert_close(fig(&res, "P"), 3, 0);
    assert_close(fig(&res, "cores"), 2, 0);
    assert_close(fig(&res, "t_p1"), t1, 1e-12);
    assert_close(fig(&res, "speedup_p2"), got_value(&g, "speedup", 2), 1e-12);
    assert_close(fig(&res, "speedup_pmax"), got_value(&g, "speedup", 3), 1e-12);
    assert_close(fig(&res, "karp_flatt_p2"), got_value(&g, "karp_flatt", 2), 1e-12);
    assert_close(fig(&res, "efficiency_pmax"), got_value(&g, "efficiency", 3), 1e-12);
    assert_close(fig(&res, "amdahl_pmax"), 1 / (f + (1 - f) / 3), 1e-12);
    double smax = fmax(1, fmax(got_value(&g, "speedup", 2), got_value(&g, "speedup", 3)));
    assert_close(fig(&res, "speedup_max_measured"), smax, 1e-12);

    /* the fit: least squares of 1/S = 1/p + f(1 - 1/p), clamped to [0, 1] */
    double sxy = 0, sxx = 0;
    for (int p = 2; p <= 3; p++) {
        double x = 1 - 1.0 / p, y = 1 / got_value(&g, "speedup", p) - 1.0 / p;
        sxy += x * y;
        sxx += x * x;
    }
    double ff = fig(&res, "fitted_f");
    assert_close(fig(&res, "fitted_f_raw"), sxy / sxx, 1e-9);
    assert_true(ff >= 0 && ff <= 1);
    const struct lab_figure *bound = lab_summary_find(&res.summary, "max_speedup_bound");
    if (ff > 0) {
        assert_non_null(bound);
        assert_close(bound->num, 1 / ff, 1e-12);
    } else {
        assert_null(bound);
    }
    lab_result_fini(&res);
    got_fini(&g);
}

/* f = 0 and f = 1 are legal and give finite numbers (f = 1: the workers get
 * no work at all). */
static void test_amdahl_extremes(void **state)
{
    (void)state;
    const char *fs[] = {"f=0", "f=1"};
    for (int i = 0; i < 2; i++) {
        struct lab_got g = {0};
        struct lab_result res;
        const char *set[] = {fs[i], "P=2", "work_ms=10", "reps=2", NULL};
        assert_int_equal(lab_test_run("amdahl", set, NULL, &g, &res, NULL, 0), 0);
        assert_no_children();
        for (size_t k = 0; k < g.n; k++)
            assert_true(isfinite(g.s[k].value));
        assert_pos_finite(fig(&res, "speedup_p2"));
        assert_true(isfinite(fig(&res, "karp_flatt_p2")));
        double ff = fig(&res, "fitted_f");
        assert_true(ff >= 0 && ff <= 1);
        lab_result_fini(&res);
        got_fini(&g);
    }
}

/* Cancelled after the first p: the run says so and no worker is left. */
static void test_amdahl_cancel(void **state)
{
    (void)state;
    atomic_int cancel = 0;
    struct lab_got g = {.cancel = &cancel, .cancel_after = 1};
    struct lab_result res;
    const char *set[] = {"f=0.1", "P=2", "work_ms=50", "reps=3", NULL};
    assert_int_equal(lab_test_run("amdahl", set, NULL, &g, &res, NULL, 0), CORE_ERR_CANCELLED);
    assert_string_equal(res.status, "cancelled");
    assert_no_children();
    assert_true(got_count(&g, "time") <= 1);
    lab_result_fini(&res);
    got_fini(&g);
}

/* A worker killed between trials: the run fails and says which signal, and
 * nothing is left behind. */
static void test_amdahl_killed_worker(void **state)
{
    (void)state;
    struct lab_got g = {.kill_child = true};
    struct lab_result res;
    const char *set[] = {"f=0.1", "P=2", "work_ms=20", "reps=1", NULL};
    int rc = lab_test_run("amdahl", set, NULL, &g, &res, NULL, 0);
    assert_int_not_equal(rc, 0);
    assert_int_not_equal(rc, CORE_ERR_CANCELLED);
    assert_string_equal(res.status, "failed");
    assert_non_null(res.error);
    assert_non_null(strstr(res.error, "signal 9"));
    assert_no_children();
    lab_result_fini(&res);
    got_fini(&g);
}

/* Recorded in a temporary store: the run row is done, with the summary a
 * grader reads as ctx.lab.summary, and the samples are there. */
static void test_amdahl_store(void **state)
{
    (void)state;
    const char *tmp = getenv("WB_TEST_TMP");
    char path[512];
    snprintf(path, sizeof path, "%s/labs_run_%ld.db", tmp ? tmp : "/tmp", (long)getpid());
    unlink(path);
    struct db *db = NULL;
    struct core_err err;
    int64_t user = 0;
    assert_int_equal(db_open(&db, path, &err), 0);
    assert_int_equal(db_user_ensure(db, "student", &user, &err), 0);

    struct lab_got g = {0};
    struct lab_result res;
    const char *set[] = {"f=0.5", "P=2", "work_ms=10", "reps=1", NULL};
    assert_int_equal(lab_test_run("amdahl", set, NULL, &g, &res, db, user), 0);
    assert_true(res.run_id > 0);

    struct db_labrun run;
    assert_int_equal(db_labrun_latest(db, user, "amdahl", &run, &err), 0);
    assert_int_equal(run.id, res.run_id);
    assert_string_equal(run.status, "done");
    assert_non_null(strstr(run.summary_json, "\"speedup_p2\""));
    assert_non_null(strstr(run.summary_json, "\"fitted_f\""));
    assert_non_null(strstr(run.params_json, "\"f\""));
    db_labrun_fini(&run);

    struct db_labsample *s = NULL;
    size_t n = 0;
    assert_int_equal(db_labrun_samples_read(db, res.run_id, "speedup", &s, &n, &err), 0);
    assert_int_equal(n, 2);
    assert_close(s[1].value, got_value(&g, "speedup", 2), 1e-12);
    db_labsamples_free(s, n);

    lab_result_fini(&res);
    got_fini(&g);
    db_close(db);
    unlink(path);
}

/* ---- memory ---------------------------------------------------------------- */

static void test_memory_small(void **state)
{
    (void)state;
    struct lab_got g = {0};
    struct lab_result res;
    const char *set[] = {"n_min=8", "n_max=40", "tile=8", "min_ms=1", "array_mib=1", NULL};
    assert_int_equal(lab_test_run("memory", set, NULL, &g, &res, NULL, 0), 0);
    assert_string_equal(res.status, "done");

    /* the ladder: 8, x sqrt(2) rounded to multiples of 8, then n_max */
    const int sizes[] = {8, 16, 24, 32, 40};
    assert_int_equal(got_count(&g, "gflops_ijk"), 5);
    for (size_t i = 0; i < 5; i++) {
        int n = sizes[i];
        double ijk = got_value(&g, "gflops_ijk", n), ikj = got_value(&g, "gflops_ikj", n);
        assert_pos_finite(ijk);
        assert_pos_finite(ikj);
        assert_pos_finite(got_value(&g, "gflops_blocked", n));
        assert_close(got_value(&g, "ratio_ikj_ijk", n), ikj / ijk, 1e-12);
        char key[64];
        snprintf(key, sizeof key, "gflops_ikj_n%d", n);
        assert_close(fig(&res, key), ikj, 1e-12);
    }
    /* the three products were compared element by element */
    assert_true(fig(&res, "max_abs_diff") <= 1e-10);
    assert_close(fig(&res, "n_max"), 40, 0);
    assert_close(fig(&res, "ratio_ikj_ijk_nmax"), got_value(&g, "ratio_ikj_ijk", 40), 1e-12);
    assert_true(fig(&res, "ratio_ikj_ijk_max") >= fig(&res, "ratio_ikj_ijk_nmax"));

    /* the stride sweep: 4 B .. 4096 B */
    assert_int_equal(got_count(&g, "bw_useful"), 11);
    for (long sb = 4; sb <= 4096; sb *= 2) {
        assert_pos_finite(got_value(&g, "bw_useful", sb));
        assert_pos_finite(got_value(&g, "ns_access", sb));
        assert_pos_finite(got_value(&g, "mlines", sb));
        /* bandwidth and time per access are two views of one measurement */
        assert_close(got_value(&g, "bw_useful", sb) * got_value(&g, "ns_access", sb), 4.0, 1e-9);
    }
    double step = fig(&res, "step_stride");
    assert_true(step >= 8 && step <= 4096);
    assert_true(fig(&res, "line_bytes") >= 16);
    assert_close(fig(&res, "array_mib"), 1, 0);
    assert_pos_finite(fig(&res, "bw_stride4"));
    lab_result_fini(&res);
    got_fini(&g);
}

/* Tiles that do not divide n, and sizes that are not multiples of 8: the
 * blocked product still equals the others (the lab fails the run if not). */
static void test_memory_ragged_tiles(void **state)
{
    (void)state;
    struct lab_got g = {0};
    struct lab_result res;
    const char *set[] = {"part=matmul", "n_min=9", "n_max=37", "tile=5", "min_ms=1", NULL};
    assert_int_equal(lab_test_run("memory", set, NULL, &g, &res, NULL, 0), 0);
    assert_true(fig(&res, "max_abs_diff") <= 1e-10);
    assert_int_equal(got_count(&g, "bw_useful"), 0);
    assert_pos_finite(got_value(&g, "gflops_blocked", 37));
    assert_null(lab_summary_find(&res.summary, "step_stride"));
    lab_result_fini(&res);
    got_fini(&g);
}

/* An array that fits in the cache is measured but warned about. */
static void test_memory_stride_warns(void **state)
{
    (void)state;
    struct lab_machine m;
    lab_machine_probe(&m);
    m.l3_bytes = 8L << 20;
    struct lab_got g = {0};
    struct lab_result res;
    const char *set[] = {"part=stride", "array_mib=1", NULL};
    assert_int_equal(lab_test_run("memory", set, &m, &g, &res, NULL, 0), 0);
    assert_true(g.warns >= 1);
    assert_non_null(strstr(g.last_warn, "cache"));
    assert_int_equal(got_count(&g, "gflops_ijk"), 0);
    assert_close(fig(&res, "llc_bytes"), 8 << 20, 0);
    lab_result_fini(&res);
    got_fini(&g);
}

static void test_memory_cancel(void **state)
{
    (void)state;
    atomic_int cancel = 0;
    struct lab_got g = {.cancel = &cancel, .cancel_after = 1};
    struct lab_result res;
    const char *set[] = {"n_min=8", "n_max=64", "min_ms=50", "array_mib=1", NULL};
    assert_int_equal(lab_test_run("memory", set, NULL, &g, &res, NULL, 0), CORE_ERR_CANCELLED);
    assert_string_equal(res.status, "cancelled");
    /* cancelled within the first size: its three orders at most */
    assert_true(got_count(&g, "gflops_ijk") <= 1);
    lab_result_fini(&res);
    got_fini(&g);
}

/* A stride array the machine cannot hold is refused before anything is
 * allocated or run: touching it would get the process killed instead. */
static void test_memory_array_too_big(void **state)
{
    (void)state;
    struct lab_machine m;
    lab_machine_probe(&m);
    m.mem_bytes = 32L << 20; /* a pretend 32 MiB machine */
    struct lab_got g = {0};
    struct lab_result res;
    const char *set[] = {"n_min=8", "n_max=16", "min_ms=1", "array_mib=17", NULL};
    assert_int_equal(lab_test_run("memory", set, &m, &g, &res, NULL, 0), CORE_ERR_INVALID);
    assert_string_equal(res.status, "failed");
    assert_non_null(strstr(res.error, "'array_mib' (17 MiB)"));
    assert_non_null(strstr(res.error, "16 MiB"));
    assert_int_equal(g.n, 0); /* refused at once: not even the matmul part ran */
    lab_result_fini(&res);
    got_fini(&g);
    /* half the memory is allowed */
    struct lab_got g2 = {0};
    const char *ok[] = {"part=stride", "array_mib=16", NULL};
    assert_int_equal(lab_test_run("memory", ok, &m, &g2, &res, NULL, 0), 0);
    lab_result_fini(&res);
    got_fini(&g2);

    /* on the command line the check comes first, against this machine */
    lab_machine_probe(&m);
    long half_mib = m.mem_bytes / 2 / 1048576;
    if (m.mem_bytes > 0 && half_mib < 4096) {
        struct lab_params p;
        struct core_err err;
        char v[32];
        lab_params_init(&p, lab_find("memory"));
        snprintf(v, sizeof v, "%ld", half_mib + 1);
        assert_int_equal(lab_params_set(&p, "array_mib", v, &err), 0);
        assert_int_equal(lab_params_check(&p, &err), CORE_ERR_INVALID);
        assert_non_null(strstr(err.msg, "array_mib"));
        assert_int_equal(lab_params_set(&p, "part", "matmul", &err), 0);
        assert_int_equal(lab_params_check(&p, &err), 0); /* no stride sweep, no array */
        lab_params_fini(&p);
    }
}

/* Parameters: defaults from the machine, ranges, the cross check. */
static void test_params(void **state)
{
    (void)state;
    struct core_err err;
    struct lab_params p;

    lab_params_init(&p, lab_find("amdahl"));
    assert_true(lab_param_num(&p, "P") >= 1);
    assert_close(lab_param_num(&p, "f"), 0.1, 1e-12);
    assert_int_equal(lab_params_set(&p, "f", "1.5", &err), CORE_ERR_INVALID);
    assert_non_null(strstr(err.msg, "f"));
    assert_int_equal(lab_params_set(&p, "P", "257", &err), CORE_ERR_INVALID);
    assert_int_equal(lab_params_set(&p, "P", "256", &err), 0);
    lab_params_fini(&p);

    lab_params_init(&p, lab_find("memory"));
    double nmax = lab_param_num(&p, "n_max");
    assert_true(nmax >= 192 && nmax <= 1008);
    assert_true(lab_param_num(&p, "array_mib") >= 1);
    assert_int_equal(lab_params_set(&p, "n_min", "100", &err), 0);
    assert_int_equal(lab_params_set(&p, "n_max", "50", &err), 0);
    assert_int_equal(lab_params_check(&p, &err), CORE_ERR_INVALID);
    assert_non_null(strstr(err.msg, "n_min"));
    assert_non_null(strstr(err.msg, "n_max"));
    assert_int_equal(lab_params_set(&p, "part", "both", &err), CORE_ERR_INVALID);
    lab_params_fini(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_params),
        cmocka_unit_test(test_amdahl_small),
        cmocka_unit_test(test_amdahl_extremes),
        cmocka_unit_test(test_amdahl_cancel),
        cmocka_unit_test(test_amdahl_killed_worker),
        cmocka_unit_test(test_amdahl_store),
        cmocka_unit_test(test_memory_small),
        cmocka_unit_test(test_memory_ragged_tiles),
        cmocka_unit_test(test_memory_stride_warns),
        cmocka_unit_test(test_memory_cancel),
        cmocka_unit_test(test_memory_array_too_big),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
