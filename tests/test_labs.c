/*
 * test_labs.c — the lab framework: parameters, the sample stream as sinks
 * see it and as the store keeps it, batching, cancellation that leaves no
 * child process, mapping, socket or /dev/shm entry behind, workers that die,
 * the process helpers, the machine probe, the run queries of the store, and
 * sanity of every registered lab's declaration.
 *
 * Runs use an injected clock whose sleep only advances time, so every test
 * takes milliseconds and asserts nothing about speed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "labs/lab_author.h"
#include "labs/transport/lab_mpi.h"
#include "proc_test_util.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- helpers ------------------------------------------------------------- */

static int seq;

static char *tmp_db_path(void)
{
    const char *dir = getenv("WB_TEST_TMP");
    if (!dir || !*dir)
        dir = "/tmp";
    char *p = core_xasprintf("%s/labs-%ld-%d.db", dir, (long)getpid(), ++seq);
    const char *suffix[] = {"", "-wal", "-shm", "-journal"};
    for (size_t i = 0; i < 4; i++) {
        char *q = core_xasprintf("%s%s", p, suffix[i]);
        unlink(q);
        free(q);
    }
    return p;
}

static void rm_db(char *p)
{
    const char *suffix[] = {"", "-wal", "-shm", "-journal"};
    for (size_t i = 0; i < 4; i++) {
        char *q = core_xasprintf("%s%s", p, suffix[i]);
        unlink(q);
        free(q);
    }
    free(p);
}

/* A new store at a fresh temporary path (*path: remove it with rm_db) with
 * the user `name` in it (*uid). Close it with db_close. */
static struct db *store_with_user(const char *name, char **path, int64_t *uid)
{
    *path = tmp_db_path();
    struct db *db = NULL;
    struct core_err e = {0};
    assert_int_equal(db_open(&db, *path, &e), 0);
    assert_int_equal(db_user_ensure(db, name, uid, &e), 0);
    return db;
}

/* Processes whose parent is this process (zombies included), from /proc. */
static int count_children(void)
{
    int n = proc_test_children(NULL);
    assert_true(n >= 0);
    return n;
}

static int count_dir(const char *path)
{
    DIR *d = opendir(path);
    if (!d)
        return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, ".."))
            n++;
    closedir(d);
    return n;
}

/* Shared mappings of this process ("s" in the permissions of /proc/self/maps). */
static int count_shared_maps(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    assert_non_null(f);
    char line[512];
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        char perms[8];
        if (sscanf(line, "%*s %7s", perms) == 1 && perms[3] == 's')
            n++;
    }
    fclose(f);
    return n;
}

/* A clock tests drive: sleep only moves time on. */
struct fake_clock {
    double t;
};
static double fake_now(void *ctx)
{
    return ((struct fake_clock *)ctx)->t;
}
static void fake_sleep(void *ctx, double s)
{
    ((struct fake_clock *)ctx)->t += s;
}

/* A sink that keeps what it sees. */
struct seen {
    struct core_sample *s;
    char **series;
    size_t n;
    int summaries;
    size_t summary_n;
    int logs, errors;
    char last_log[512];
    double last_progress;
    /* cancel after this many samples (0: never) */
    size_t cancel_after;
    atomic_int *cancel;
    /* when watch_shm: the /dev/shm files the run's processes map or hold
     * open, looked at with every sample (workers are alive then) */
    bool watch_shm;
    char shm[16][PROC_TEST_SHM_NAME];
    size_t n_shm;
    pid_t pids[64]; /* the run's workers seen */
    size_t n_pids;
};

static void seen_sample(void *ud, const struct core_sample *s)
{
    struct seen *v = ud;
    v->s = core_xrealloc(v->s, (v->n + 1) * sizeof *v->s);
    v->series = core_xrealloc(v->series, (v->n + 1) * sizeof *v->series);
    v->s[v->n] = *s;
    v->series[v->n] = core_xstrdup(s->series);
    v->n++;
    if (v->watch_shm)
        proc_test_shm_tree(v->shm, sizeof v->shm / sizeof v->shm[0], &v->n_shm, v->pids,
                           sizeof v->pids / sizeof v->pids[0], &v->n_pids);
    if (v->cancel_after && v->n == v->cancel_after)
        atomic_store(v->cancel, 1);
}
static void seen_log(void *ud, enum lab_log_level level, const char *line)
{
    struct seen *v = ud;
    v->logs++;
    if (level == LAB_LOG_ERROR)
        v->errors++;
    snprintf(v->last_log, sizeof v->last_log, "%s", line);
}
static void seen_progress(void *ud, double f, const char *what)
{
    (void)what;
    ((struct seen *)ud)->last_progress = f;
}
static void seen_summary(void *ud, const struct lab_summary *s)
{
    struct seen *v = ud;
    v->summaries++;
    v->summary_n = s->n;
}
static void seen_fini(struct seen *v)
{
    for (size_t i = 0; i < v->n; i++)
        free(v->series[i]);
    free(v->series);
    free(v->s);
    memset(v, 0, sizeof *v);
}

static const struct lab_machine test_machine = {.cpu_model = "Test CPU",
                                                .cores_online = 2,
                                                .l1d_bytes = 32768,
                                                .l2_bytes = 1 << 20,
                                                .l3_bytes = 8 << 20,
                                                .line_bytes = 64,
                                                .mem_bytes = 1L << 30};

/* Sets selftest parameters from "k=v" strings; asserts they are valid. */
static void selftest_params(struct lab_params *p, const char *const *kv, size_t n)
{
    const struct lab_def *lab = lab_find("selftest");
    assert_non_null(lab);
    lab_params_init(p, lab);
    struct core_err e = {0};
    for (size_t i = 0; i < n; i++)
        assert_int_equal(lab_params_assign(p, kv[i], &e), 0);
    assert_int_equal(lab_params_check(p, &e), 0);
}

static const struct lab_figure *fig(const struct lab_result *r, const char *key)
{
    const struct lab_figure *f = lab_summary_find(&r->summary, key);
    assert_non_null(f);
    return f;
}

/* ---- parameters ---------------------------------------------------------- */

static void test_params_defaults_and_set(void **state)
{
    (void)state;
    struct lab_params p;
    const struct lab_def *lab = lab_find("selftest");
    assert_non_null(lab);
    lab_params_init(&p, lab);
    struct core_err e = {0};
    assert_int_equal(lab_params_check(&p, &e), 0);
    assert_true(lab_param_num(&p, "steps") == 20);
    assert_string_equal(lab_param_str(&p, "wave"), "sine");
    assert_true(lab_param_num(&p, "verbose") == 0);
    /* defaults are not set by the user; names the lab lacks are nobody's */
    assert_false(lab_param_user_set(&p, "steps"));
    assert_false(lab_param_user_set(&p, "no_such_param"));
    assert_null(lab_param_value(&p, "no_such_param"));
    assert_string_equal(lab_param_value(&p, "wave")->def->name, "wave");
    /* a refused value does not count as set */
    assert_int_equal(lab_params_set(&p, "amplitude", "abc", &e), CORE_ERR_INVALID);
    assert_false(lab_param_user_set(&p, "amplitude"));

    assert_int_equal(lab_params_set(&p, "steps", "7", &e), 0);
    assert_true(lab_param_user_set(&p, "steps"));
    assert_true(lab_param_value(&p, "steps")->num == 7);
    assert_int_equal(lab_params_assign(&p, "amplitude=2.5", &e), 0);
    assert_int_equal(lab_params_assign(&p, "wave=square", &e), 0);
    assert_int_equal(lab_params_assign(&p, "verbose=yes", &e), 0);
    assert_int_equal(lab_params_assign(&p, "steps=1e2", &e), 0); /* an integer, written so */
    assert_true(lab_param_num(&p, "steps") == 100);
    assert_true(lab_param_num(&p, "amplitude") == 2.5);
    assert_string_equal(lab_param_str(&p, "wave"), "square");
    assert_true(lab_param_num(&p, "wave") == 1); /* index among the choices */
    assert_true(lab_param_num(&p, "verbose") == 1);

    struct core_buf b;
    struct core_json j;
    core_buf_init(&b);
    core_json_init(&j, &b);
    lab_params_json(&p, &j);
    assert_non_null(strstr(b.data, "\"steps\":100"));
    assert_non_null(strstr(b.data, "\"amplitude\":2.5"));
    assert_non_null(strstr(b.data, "\"wave\":\"square\""));
    assert_non_null(strstr(b.data, "\"verbose\":true"));
    core_buf_fini(&b);

    char line[128];
    lab_param_format(lab_param_value(&p, "interval_ms"), line, sizeof line);
    assert_string_equal(line, "interval_ms = 50 ms");
    lab_params_fini(&p);
}

/* Reads `text` as the straggler of lab `name` with `workers` workers. */
static int straggler_of(const char *name, const char *text, int workers, struct lab_straggler *s,
                        struct core_err *e)
{
    struct lab_params p;
    lab_params_init(&p, lab_find(name));
    assert_int_equal(lab_params_set(&p, "straggler", text, e), 0); /* any text, checked below */
    int rc = lab_param_straggler(&p, workers, s, e);
    lab_params_fini(&p);
    return rc;
}

/* One straggler parameter for kmeans and paramserver: W:FACTOR with W
 * numbered from 1 (as the messages and per-worker charts number workers),
 * FACTOR from 1 to LAB_STRAGGLER_MAX; "", none or off for none. */
static void test_straggler_param(void **state)
{
    (void)state;
    static const char *const labs[] = {"kmeans", "paramserver"};
    struct core_err e;
    struct lab_straggler s;
    for (size_t l = 0; l < 2; l++) {
        const char *lab = labs[l];
        assert_int_equal(straggler_of(lab, "2:5", 4, &s, &e), 0);
        assert_int_equal(s.worker, 2);
        assert_true(s.factor == 5);
        assert_true(lab_straggler_factor(&s, 1) == 5); /* worker 2 is index 1 */
        assert_true(lab_straggler_factor(&s, 0) == 1 && lab_straggler_factor(&s, 2) == 1);
        assert_int_equal(straggler_of(lab, "1:2.5", 1, &s, &e), 0);
        assert_true(s.worker == 1 && s.factor == 2.5);
        assert_int_equal(straggler_of(lab, "4:1000", 4, &s, &e), 0); /* the cap */
        assert_true(s.worker == 4 && s.factor == LAB_STRAGGLER_MAX);
        static const char *const none[] = {"", "none", "off", "  NONE"};
        for (size_t i = 0; i < 4; i++) {
            assert_int_equal(straggler_of(lab, none[i], 4, &s, &e), 0);
            assert_true(s.worker == 0 && s.factor == 1);
            assert_true(lab_straggler_factor(&s, 0) == 1);
        }
        static const char *const bad[] = {"x",   "2",   "2:",    ":5",     "2:abc", "2:5x",
                                          "0:5", "5:2", "2:0.5", "2:1001", "2:1,5", "2x3"};
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            if (straggler_of(lab, bad[i], 4, &s, &e) == 0)
                fail_msg("%s: straggler '%s' was accepted", lab, bad[i]);
            assert_int_equal(s.worker, 0);
            if (!strstr(e.msg, "parameter 'straggler'") || strncmp(e.msg, lab, strlen(lab)) != 0)
                fail_msg("%s: '%s': %s", lab, bad[i], e.msg);
        }
        assert_int_equal(straggler_of(lab, "5:2", 4, &s, &e), CORE_ERR_INVALID);
        assert_non_null(strstr(e.msg, "names worker 5, but workers = 4"));
        assert_int_equal(straggler_of(lab, "2:1001", 4, &s, &e), CORE_ERR_INVALID);
        assert_non_null(strstr(e.msg, "from 1 to 1000"));
        assert_int_equal(straggler_of(lab, "2", 4, &s, &e), CORE_ERR_INVALID);
        assert_non_null(strstr(e.msg, "must be W:FACTOR"));
    }
}

static void test_params_errors(void **state)
{
    (void)state;
    struct lab_params p;
    lab_params_init(&p, lab_find("selftest"));
    struct core_err e = {0};
    /* unknown name: named, with the parameters there are */
    assert_int_equal(lab_params_assign(&p, "stepz=3", &e), CORE_ERR_INVALID);
    assert_non_null(strstr(e.msg, "unknown parameter 'stepz'"));
    assert_non_null(strstr(e.msg, "steps, interval_ms"));
    /* out of range: the parameter and its range */
    assert_int_equal(lab_params_assign(&p, "steps=0", &e), CORE_ERR_INVALID);
    assert_non_null(strstr(e.msg, "'steps'"));
    assert_non_null(strstr(e.msg, "1 to 1000000"));
    assert_int_equal(lab_params_assign(&p, "amplitude=1e7", &e), CORE_ERR_INVALID);
    assert_non_null(strstr(e.msg, "'amplitude'"));
    assert_non_null(strstr(e.msg, "0.001 to 1000000"));
    /* not a number, not an integer, not finite */
    const char *bad[] = {"steps=abc",     "steps=2.5",      "steps=",        "amplitude=nan",
                         "amplitude=inf", "amplitude=0x10", "amplitude=1,5", "steps=3 steps"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(lab_params_assign(&p, bad[i], &e), CORE_ERR_INVALID);
        assert_non_null(strstr(e.msg, "must be"));
    }
    /* bad enum: the choices */
    assert_int_equal(lab_params_assign(&p, "wave=saw", &e), CORE_ERR_INVALID);
    assert_non_null(strstr(e.msg, "'wave'"));
    assert_non_null(strstr(e.msg, "sine|square|triangle"));
    assert_int_equal(lab_params_assign(&p, "wave=sin", &e), CORE_ERR_INVALID); /* no prefixes */
    assert_int_equal(lab_params_assign(&p, "verbose=maybe", &e), CORE_ERR_INVALID);
    assert_non_null(strstr(e.msg, "'verbose'"));
    /* no '=' */
    assert_int_equal(lab_params_assign(&p, "steps", &e), CORE_ERR_INVALID);
    assert_non_null(strstr(e.msg, "NAME=VALUE"));
    assert_int_equal(lab_params_assign(&p, "=4", &e), CORE_ERR_INVALID);
    /* failed sets leave the value alone */
    assert_true(lab_param_num(&p, "steps") == 20);
    /* cross-parameter check */
    assert_int_equal(lab_params_assign(&p, "crash_worker=2", &e), 0);
    assert_int_equal(lab_params_check(&p, &e), CORE_ERR_INVALID);
    assert_non_null(strstr(e.msg, "crash_worker"));
    assert_non_null(strstr(e.msg, "workers"));
    assert_int_equal(lab_params_assign(&p, "workers=2", &e), 0);
    assert_int_equal(lab_params_check(&p, &e), 0);
    lab_params_fini(&p);
}

static double too_many(void)
{
    return 1000;
}

static void test_params_computed_default_checked(void **state)
{
    (void)state;
    /* A default computed on this machine that falls outside the range is
     * reported by lab_params_check, naming the parameter. */
    static const struct lab_param_def defs[] = {
        {"p", LAB_P_INT, NULL, too_many, 1, 64, NULL, "", "workers"},
        {"f", LAB_P_REAL, "0.25", NULL, 0, 1, NULL, "", "fraction"},
    };
    static const struct lab_def lab = {.name = "fake", .params = defs, .n_params = 2};
    struct lab_params p;
    lab_params_init(&p, &lab);
    struct core_err e = {0};
    assert_int_equal(lab_params_check(&p, &e), CORE_ERR_INVALID);
    assert_non_null(strstr(e.msg, "'p'"));
    assert_non_null(strstr(e.msg, "1 to 64"));
    assert_int_equal(lab_params_set(&p, "p", "8", &e), 0);
    assert_int_equal(lab_params_check(&p, &e), 0);
    assert_true(lab_param_num(&p, "f") == 0.25);
    lab_params_fini(&p);
}

static void test_registry_declarations(void **state)
{
    (void)state;
    size_t n;
    const struct lab_def *const *labs = lab_registry(&n);
    assert_true(n >= 1);
    assert_null(lab_find("no-such-lab"));
    for (size_t i = 0; i < n; i++) {
        const struct lab_def *l = labs[i];
        assert_non_null(l->name);
        assert_non_null(l->title);
        assert_non_null(l->summary);
        assert_non_null(l->run);
        assert_ptr_equal(lab_find(l->name), l);
        /* every default is valid on this machine */
        struct lab_params p;
        struct core_err e = {0};
        lab_params_init(&p, l);
        if (lab_params_check(&p, &e) != 0)
            fail_msg("lab %s: defaults invalid: %s", l->name, e.msg);
        lab_params_fini(&p);
        for (size_t k = 0; k < l->n_params; k++) {
            assert_non_null(l->params[k].name);
            assert_non_null(l->params[k].help);
            for (size_t m = k + 1; m < l->n_params; m++)
                assert_string_not_equal(l->params[k].name, l->params[m].name);
        }
        for (size_t k = 0; k < l->n_series; k++) {
            assert_non_null(l->series[k].name);
            assert_non_null(l->series[k].chart);
            for (size_t m = k + 1; m < l->n_series; m++)
                assert_string_not_equal(l->series[k].name, l->series[m].name);
        }
    }
}

/* ---- running and recording ----------------------------------------------- */

static void test_stream_order_sinks_and_store(void **state)
{
    (void)state;
    char *path;
    int64_t uid;
    struct db *db = store_with_user("alice", &path, &uid);
    struct core_err e = {0};

    const char *kv[] = {"steps=6", "workers=2", "interval_ms=100"};
    struct lab_params p;
    selftest_params(&p, kv, 3);
    struct fake_clock fc = {1000};
    struct core_clock clock = {fake_now, fake_sleep, &fc};
    struct seen a = {0}, b = {0};
    struct lab_sink sinks[2] = {
        {seen_sample, seen_log, seen_progress, seen_summary, &a},
        {seen_sample, NULL, NULL, NULL, &b}, /* callbacks may be NULL */
    };
    struct lab_run_opts o = {.db = db,
                             .user_id = uid,
                             .sinks = sinks,
                             .n_sinks = 2,
                             .clock = &clock,
                             .machine = &test_machine};
    struct lab_result r;
    int kids = count_children();
    assert_int_equal(lab_run(&p, &o, &r, &e), 0);
    assert_string_equal(r.status, "done");
    assert_null(r.error);
    assert_true(r.run_id > 0);
    assert_int_equal(r.n_samples, 18);
    assert_int_equal(count_children(), kids);

    /* Sinks: wave, ramp, workers per step, steps in order, time on the run's
     * clock (from 0, 100 ms per step), both sinks the same. */
    assert_int_equal(a.n, 18);
    assert_int_equal(b.n, 18);
    const char *order[] = {"wave", "ramp", "workers"};
    for (size_t i = 0; i < a.n; i++) {
        assert_string_equal(a.series[i], order[i % 3]);
        assert_int_equal(a.s[i].step, (long long)(i / 3 + 1));
        assert_true(fabs(a.s[i].t - 0.1 * (double)(i / 3)) < 1e-9);
        assert_string_equal(b.series[i], a.series[i]);
        assert_true(b.s[i].value == a.s[i].value || (isnan(a.s[i].value) && isnan(b.s[i].value)));
    }
    /* worker w answers w*step: 2 workers give 3*step */
    assert_true(a.s[2].value == 3);
    assert_true(a.s[17].value == 18);
    assert_int_equal(a.summaries, 1);
    assert_int_equal(a.summary_n, r.summary.n);
    assert_true(a.last_progress == 1);

    /* Summary figures. */
    assert_true(fig(&r, "steps")->num == 6);
    assert_true(fig(&r, "ramp_final")->num == 1);
    assert_true(fig(&r, "worker_total")->num == 3 * 21);
    assert_true(fig(&r, "samples")->num == 18);
    assert_true(fabs(fig(&r, "elapsed_s")->num - 0.5) < 1e-9);
    assert_string_equal(fig(&r, "cpu")->str, "Test CPU");

    /* The store: the same samples in the same order, the run closed. */
    struct db_labsample *s = NULL;
    size_t n = 0;
    assert_int_equal(db_labrun_samples_read(db, r.run_id, NULL, &s, &n, &e), 0);
    assert_int_equal(n, a.n);
    for (size_t i = 0; i < n; i++) {
        assert_string_equal(s[i].series, a.series[i]);
        assert_int_equal(s[i].step, a.s[i].step);
        assert_true(fabs(s[i].value - a.s[i].value) < 1e-12);
        assert_true(fabs(s[i].t - a.s[i].t) < 1e-9);
    }
    db_labsamples_free(s, n);
    assert_int_equal(db_labrun_samples_read(db, r.run_id, "workers", &s, &n, &e), 0);
    assert_int_equal(n, 6);
    assert_true(s[5].value == 18);
    db_labsamples_free(s, n);
    char **names;
    int64_t *counts;
    assert_int_equal(db_labrun_series(db, r.run_id, &names, &counts, &n, &e), 0);
    assert_int_equal(n, 3);
    assert_string_equal(names[0], "wave");
    assert_string_equal(names[2], "workers");
    assert_int_equal(counts[1], 6);
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    free(counts);

    struct db_labrun row;
    assert_int_equal(db_labrun_latest(db, uid, "selftest", &row, &e), 0);
    assert_int_equal(row.id, r.run_id);
    assert_string_equal(row.status, "done");
    assert_null(row.error);
    assert_non_null(row.ended_at);
    struct core_kv *kvs;
    size_t nk;
    assert_int_equal(core_json_parse_flat(row.params_json, &kvs, &nk, &e), 0);
    assert_true(core_kv_find(kvs, nk, "workers")->num == 2);
    core_kv_free(kvs, nk);
    assert_int_equal(core_json_parse_flat(row.machine_json, &kvs, &nk, &e), 0);
    assert_string_equal(core_kv_find(kvs, nk, "cpu_model")->str, "Test CPU");
    assert_true(core_kv_find(kvs, nk, "l2_bytes")->num == 1 << 20);
    assert_string_equal(core_kv_find(kvs, nk, "gpu")->str, "");
    core_kv_free(kvs, nk);
    assert_int_equal(core_json_parse_flat(row.summary_json, &kvs, &nk, &e), 0);
    assert_true(core_kv_find(kvs, nk, "worker_total")->num == 63);
    assert_string_equal(kvs[0].key, "steps"); /* the key figure comes first */
    core_kv_free(kvs, nk);
    db_labrun_fini(&row);

    lab_result_fini(&r);
    seen_fini(&a);
    seen_fini(&b);
    lab_params_fini(&p);
    db_close(db);
    rm_db(path);
}

/* A lab that looks at the store while it emits, to see the batches land. */
static struct db *batch_db;
static struct fake_clock *batch_clock;
static size_t stored_now(void)
{
    /* the only run in the store is the running one: id 1 */
    struct db_labsample *s;
    size_t n;
    struct core_err e = {0};
    assert_int_equal(db_labrun_samples_read(batch_db, 1, NULL, &s, &n, &e), 0);
    db_labsamples_free(s, n);
    return n;
}

static int batch_lab_run(struct lab_ctx *cx, struct core_err *err)
{
    (void)err;
    for (int i = 1; i <= 255; i++)
        lab_emit(cx, i % 2 ? "odd" : "even", i, i);
    assert_int_equal(stored_now(), 0); /* nothing yet: one batch pending */
    lab_emit(cx, "even", 256, 256);
    assert_int_equal(stored_now(), 256); /* a full batch is written */
    lab_emit(cx, "odd", 257, 257);
    assert_int_equal(stored_now(), 256);
    batch_clock->t += 0.3; /* 250 ms later the next sample flushes */
    lab_emit(cx, "even", 258, 258);
    assert_int_equal(stored_now(), 258);
    char name[16];
    snprintf(name, sizeof name, "tmp%d", 1); /* a series name that does not outlive the call */
    lab_emit(cx, name, 259, 259);
    memset(name, 'x', sizeof name - 1);
    lab_emit(cx, "", 260, 260); /* ignored: no series */
    lab_figure_num(cx, "n", 259, "", "samples");
    lab_figure_num(cx, "n", 260, "", "samples, again"); /* replaces, keeps its place */
    lab_figure_str(cx, "note", "text", NULL);
    return 0;
}

static void test_store_batches(void **state)
{
    (void)state;
    static const struct lab_def lab = {
        .name = "batch", .title = "t", .summary = "s", .run = batch_lab_run};
    char *path;
    int64_t uid;
    batch_db = store_with_user("bob", &path, &uid);
    struct core_err e = {0};
    struct fake_clock fc = {5};
    batch_clock = &fc;
    struct core_clock clock = {fake_now, fake_sleep, &fc};
    struct lab_params p;
    lab_params_init(&p, &lab);
    struct lab_run_opts o = {
        .db = batch_db, .user_id = uid, .clock = &clock, .machine = &test_machine};
    struct lab_result r;
    assert_int_equal(lab_run(&p, &o, &r, &e), 0);
    assert_int_equal(r.run_id, 1);
    assert_int_equal(r.n_samples, 259);
    assert_int_equal(r.n_recorded, 259); /* every one committed */
    assert_int_equal(stored_now(), 259); /* the rest at the end */
    struct db_labsample *s;
    size_t n;
    assert_int_equal(db_labrun_samples_read(batch_db, 1, "tmp1", &s, &n, &e), 0);
    assert_int_equal(n, 1);
    assert_int_equal(s[0].step, 259);
    db_labsamples_free(s, n);
    assert_true(r.summary.n > 2); /* the lab's two, then the noise figures (lab.h) */
    assert_non_null(lab_summary_find(&r.summary, "noisy"));
    assert_string_equal(r.summary.v[0].key, "n");
    assert_true(r.summary.v[0].num == 260);
    assert_string_equal(r.summary.v[0].label, "samples, again");
    assert_string_equal(r.summary.v[1].str, "text");
    lab_result_fini(&r);
    lab_params_fini(&p);
    db_close(batch_db);
    rm_db(path);
}

static void test_no_store_no_sinks(void **state)
{
    (void)state;
    const char *kv[] = {"steps=3", "interval_ms=0"};
    struct lab_params p;
    selftest_params(&p, kv, 2);
    struct lab_result r;
    struct core_err e = {0};
    assert_int_equal(lab_run(&p, NULL, &r, &e), 0); /* real clock, probed machine */
    assert_string_equal(r.status, "done");
    assert_int_equal(r.run_id, 0);
    assert_int_equal(r.n_samples, 6);
    lab_result_fini(&r);
    lab_params_fini(&p);
}

/* ---- cancellation -------------------------------------------------------- */

static void cancel_at(size_t after, bool preset)
{
    int fds = count_dir("/proc/self/fd");
    char *path;
    int64_t uid;
    struct db *db = store_with_user("carol", &path, &uid);
    struct core_err e = {0};

    int kids = count_children();
    int maps = count_shared_maps();

    const char *kv[] = {"steps=1000", "workers=3", "interval_ms=10"};
    struct lab_params p;
    selftest_params(&p, kv, 3);
    atomic_int cancel = preset ? 1 : 0;
    struct seen a = {.cancel_after = after, .cancel = &cancel, .watch_shm = true};
    struct lab_sink sink = {seen_sample, seen_log, NULL, seen_summary, &a};
    struct fake_clock fc = {0};
    struct core_clock clock = {fake_now, fake_sleep, &fc};
    struct lab_run_opts o = {.db = db,
                             .user_id = uid,
                             .sinks = &sink,
                             .n_sinks = 1,
                             .cancel = &cancel,
                             .clock = &clock,
                             .machine = &test_machine};
    struct lab_result r;
    assert_int_equal(lab_run(&p, &o, &r, &e), CORE_ERR_CANCELLED);
    assert_string_equal(r.status, "cancelled");
    assert_non_null(r.error);
    assert_int_equal(a.summaries, 1);
    assert_true(a.n < 3000);
    assert_int_equal(r.n_samples, a.n);

    /* Nothing left behind: no child (not even a zombie), no socket, no
     * shared mapping, none of the run's own /dev/shm files (what other
     * programs keep there is theirs). */
    assert_int_equal(count_children(), kids);
    for (size_t i = 0; i < a.n_shm; i++)
        if (access(a.shm[i], F_OK) == 0)
            fail_msg("the run left %s", a.shm[i]);
    a.pids[a.n_pids < 64 ? a.n_pids++ : 63] = getpid();
    assert_true(proc_test_sysv_by(a.pids, a.n_pids) <= 0); /* nor System V segments */
    assert_int_equal(count_shared_maps(), maps);

    struct db_labrun row;
    assert_int_equal(db_labrun_get(db, r.run_id, &row, &e), 0);
    assert_string_equal(row.status, "cancelled");
    assert_non_null(row.error);
    assert_non_null(strstr(row.error, "cancelled"));
    db_labrun_fini(&row);
    struct db_labsample *s;
    size_t n;
    assert_int_equal(db_labrun_samples_read(db, r.run_id, NULL, &s, &n, &e), 0);
    assert_int_equal(n, a.n); /* every sample a sink saw is stored */
    db_labsamples_free(s, n);
    assert_int_equal(db_labrun_latest(db, uid, "selftest", &row, &e), CORE_ERR_NOTFOUND);

    lab_result_fini(&r);
    seen_fini(&a);
    lab_params_fini(&p);
    db_close(db);
    rm_db(path);
    assert_int_equal(count_dir("/proc/self/fd"), fds);
}

static void test_cancel_any_moment(void **state)
{
    (void)state;
    cancel_at(0, true); /* before the first step, workers just started */
    size_t moments[] = {1, 2, 3, 4, 5, 7, 50, 299};
    for (size_t i = 0; i < sizeof moments / sizeof moments[0]; i++)
        cancel_at(moments[i], false);
}

static atomic_int thread_cancel;
static void *cancel_soon(void *arg)
{
    (void)arg;
    struct timespec ts = {0, 100 * 1000 * 1000};
    nanosleep(&ts, NULL);
    atomic_store(&thread_cancel, 1);
    return NULL;
}

static void test_cancel_from_another_thread(void **state)
{
    (void)state;
    /* Real clock, long pauses: the flag set by another thread is seen during
     * a sleep, without waiting for the pause to end. */
    const char *kv[] = {"steps=1000", "workers=2", "interval_ms=10000"};
    struct lab_params p;
    selftest_params(&p, kv, 3);
    atomic_store(&thread_cancel, 0);
    int kids = count_children();
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, cancel_soon, NULL), 0);
    struct lab_run_opts o = {.cancel = &thread_cancel, .machine = &test_machine};
    struct lab_result r;
    struct core_err e = {0};
    assert_int_equal(lab_run(&p, &o, &r, &e), CORE_ERR_CANCELLED);
    pthread_join(th, NULL);
    assert_string_equal(r.status, "cancelled");
    assert_true(fig(&r, "steps")->num < 1000);
    assert_int_equal(count_children(), kids);
    lab_result_fini(&r);
    lab_params_fini(&p);
}

/* ---- failures ------------------------------------------------------------ */

static void test_killed_worker_reported(void **state)
{
    (void)state;
    char *path;
    int64_t uid;
    struct db *db = store_with_user("dave", &path, &uid);
    struct core_err e = {0};
    int kids = count_children();
    const char *kv[] = {"steps=10", "workers=3", "crash_worker=2", "interval_ms=0"};
    struct lab_params p;
    selftest_params(&p, kv, 4);
    struct seen a = {0};
    struct lab_sink sink = {seen_sample, seen_log, NULL, NULL, &a};
    struct lab_run_opts o = {
        .db = db, .user_id = uid, .sinks = &sink, .n_sinks = 1, .machine = &test_machine};
    struct lab_result r;
    assert_int_equal(lab_run(&p, &o, &r, &e), CORE_ERR_INTERNAL);
    assert_string_equal(r.status, "failed");
    assert_non_null(strstr(e.msg, "worker 2 (pid "));
    assert_non_null(strstr(e.msg, "was killed by signal 9"));
    assert_string_equal(r.error, e.msg);
    assert_int_equal(a.errors, 1);
    assert_string_equal(a.last_log, e.msg);
    assert_true(fig(&r, "steps")->num == 4); /* worker 2 dies at step 5 */
    assert_int_equal(count_children(), kids);
    struct db_labrun row;
    assert_int_equal(db_labrun_get(db, r.run_id, &row, &e), 0);
    assert_string_equal(row.status, "failed");
    assert_string_equal(row.error, r.error);
    db_labrun_fini(&row);
    lab_result_fini(&r);
    seen_fini(&a);
    lab_params_fini(&p);
    db_close(db);
    rm_db(path);
}

static void test_lab_failure(void **state)
{
    (void)state;
    const char *kv[] = {"steps=10", "fail_at=3", "interval_ms=0"};
    struct lab_params p;
    selftest_params(&p, kv, 3);
    struct lab_result r;
    struct core_err e = {0};
    struct lab_run_opts o = {.machine = &test_machine};
    assert_int_equal(lab_run(&p, &o, &r, &e), CORE_ERR_INTERNAL);
    assert_string_equal(r.status, "failed");
    assert_non_null(strstr(r.error, "step 3"));
    assert_true(fig(&r, "steps")->num == 2);
    lab_result_fini(&r);
    lab_params_fini(&p);
}

/* A process table whose spawn always fails. */
static pid_t no_spawn(int (*child_main)(int, void *), void *arg, int fc, int fp)
{
    (void)child_main;
    (void)arg;
    (void)fc;
    (void)fp;
    errno = EAGAIN;
    return -1;
}
static const struct lab_proc_ops failing_ops = {no_spawn, NULL, NULL};

static void test_spawn_failure(void **state)
{
    (void)state;
    int fds = count_dir("/proc/self/fd");
    const char *kv[] = {"steps=3", "workers=2"};
    struct lab_params p;
    selftest_params(&p, kv, 2);
    struct lab_result r;
    struct core_err e = {0};
    struct lab_run_opts o = {.proc = &failing_ops, .machine = &test_machine};
    assert_int_equal(lab_run(&p, &o, &r, &e), CORE_ERR_IO);
    assert_string_equal(r.status, "failed");
    assert_non_null(strstr(r.error, "cannot start worker 1"));
    assert_int_equal(count_dir("/proc/self/fd"), fds); /* the socket pair was closed */
    lab_result_fini(&r);
    lab_params_fini(&p);
}

/* ---- process helpers ----------------------------------------------------- */

static int child_exit3(int fd, void *arg)
{
    (void)fd;
    (void)arg;
    return 3;
}

static int child_sleep(int fd, void *arg)
{
    (void)fd;
    (void)arg;
    while (pause() != 0 || 1)
        ;
    return 0;
}

static int child_shm(int fd, void *arg)
{
    int *shared = arg;
    shared[0] = 42;
    int v = 7;
    return lab_fd_write(fd, &v, sizeof v, 1000, NULL, NULL) == 0 ? 0 : 1;
}

static int child_echo_then_close(int fd, void *arg)
{
    (void)arg;
    int v;
    if (lab_fd_read(fd, &v, sizeof v, 5000, NULL, NULL) != 0)
        return 1;
    v++;
    if (lab_fd_write(fd, &v, sizeof v, 5000, NULL, NULL) != 0)
        return 1;
    return 0; /* exits: the parent's next read sees a closed connection */
}

static void test_proc_helpers(void **state)
{
    (void)state;
    int kids = count_children();
    int fds = count_dir("/proc/self/fd");
    struct lab_procs ps;
    lab_procs_init(&ps, NULL);
    struct core_err e = {0};

    /* a non-zero exit is named */
    int i = lab_proc_spawn(&ps, child_exit3, NULL, &e);
    assert_int_equal(i, 0);
    assert_int_equal(lab_proc_reap(&ps, (size_t)i, 5000, &e), CORE_ERR_INTERNAL);
    assert_non_null(strstr(e.msg, "worker 1 (pid "));
    assert_non_null(strstr(e.msg, "exited with status 3"));
    assert_int_equal(ps.v[i].fd, -1);
    /* reaping again gives the same verdict */
    assert_int_equal(lab_proc_reap(&ps, (size_t)i, 0, &e), CORE_ERR_INTERNAL);

    /* shared memory written by a child is seen by the parent */
    int *shared = lab_shm_alloc(&ps, 4096, &e);
    assert_non_null(shared);
    i = lab_proc_spawn(&ps, child_shm, shared, &e);
    assert_int_equal(i, 1);
    int v = 0;
    assert_int_equal(lab_fd_read(ps.v[i].fd, &v, sizeof v, 5000, NULL, &e), 0);
    assert_int_equal(v, 7);
    assert_int_equal(lab_proc_reap(&ps, (size_t)i, 5000, &e), 0);
    assert_int_equal(shared[0], 42);

    /* a child that will not exit: the timeout, then a signal report */
    i = lab_proc_spawn(&ps, child_sleep, NULL, &e);
    assert_int_equal(i, 2);
    assert_int_equal(lab_proc_reap(&ps, (size_t)i, 20, &e), CORE_ERR_LIMIT);
    assert_non_null(strstr(e.msg, "did not exit within 20 ms"));
    assert_int_equal(lab_fd_read(ps.v[i].fd, &v, sizeof v, 30, NULL, &e), CORE_ERR_LIMIT);
    atomic_int cancel = 1;
    assert_int_equal(lab_fd_read(ps.v[i].fd, &v, sizeof v, -1, &cancel, &e), CORE_ERR_CANCELLED);
    kill(ps.v[i].pid, SIGTERM);
    assert_int_equal(lab_proc_reap(&ps, (size_t)i, -1, &e), CORE_ERR_INTERNAL);
    assert_non_null(strstr(e.msg, "was killed by signal 15"));

    /* a closed peer */
    i = lab_proc_spawn(&ps, child_echo_then_close, NULL, &e);
    v = 41;
    assert_int_equal(lab_fd_write(ps.v[i].fd, &v, sizeof v, 5000, NULL, &e), 0);
    assert_int_equal(lab_fd_read(ps.v[i].fd, &v, sizeof v, 5000, NULL, &e), 0);
    assert_int_equal(v, 42);
    assert_int_equal(lab_fd_read(ps.v[i].fd, &v, sizeof v, 5000, NULL, &e), CORE_ERR_IO);
    assert_non_null(strstr(e.msg, "worker closed its connection"));
    /* writing to it fails the same way, without SIGPIPE killing us */
    assert_int_equal(lab_proc_reap(&ps, (size_t)i, 5000, &e), 0);

    /* kill_all ends what is still running, and fini unmaps */
    lab_proc_spawn(&ps, child_sleep, NULL, &e);
    lab_proc_spawn(&ps, child_sleep, NULL, &e);
    assert_int_equal(count_children(), kids + 2);
    lab_procs_kill_all(&ps);
    lab_procs_kill_all(&ps); /* idempotent */
    assert_int_equal(count_children(), kids);
    lab_procs_fini(&ps);
    assert_int_equal(count_dir("/proc/self/fd"), fds);
    lab_procs_fini(&ps); /* again: nothing to do */
}

static void test_fd_write_closed_peer(void **state)
{
    (void)state;
    int sv[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    close(sv[1]);
    char buf[64] = {0};
    struct core_err e = {0};
    assert_int_equal(lab_fd_write(sv[0], buf, sizeof buf, 1000, NULL, &e), CORE_ERR_IO);
    assert_non_null(strstr(e.msg, "closed its connection"));
    close(sv[0]);
}

/* ---- the machine --------------------------------------------------------- */

static void test_machine_probe(void **state)
{
    (void)state;
    struct lab_machine m;
    lab_machine_probe(&m);
    assert_true(m.cores_online >= 1);
    assert_true(m.line_bytes > 0);
    assert_true(m.mem_bytes > 0);
    assert_true(m.l1d_bytes >= 0 && m.l2_bytes >= 0 && m.l3_bytes >= 0);
    struct core_buf b;
    struct core_json j;
    core_buf_init(&b);
    core_json_init(&j, &b);
    lab_machine_json(&m, &j);
    struct core_kv *kv;
    size_t n;
    struct core_err e = {0};
    assert_int_equal(core_json_parse_flat(b.data, &kv, &n, &e), 0);
    assert_true(core_kv_find(kv, n, "cores_online")->num == m.cores_online);
    assert_non_null(core_kv_find(kv, n, "cpu_model"));
    assert_non_null(core_kv_find(kv, n, "gpu"));
    core_kv_free(kv, n);
    core_buf_fini(&b);
}

/* ---- store queries ------------------------------------------------------- */

static void test_db_run_queries(void **state)
{
    (void)state;
    char *path;
    int64_t u, v, r1, r2, r3, r4;
    struct db *db = store_with_user("u", &path, &u);
    struct core_err e = {0};
    assert_int_equal(db_user_ensure(db, "v", &v, &e), 0);
    assert_int_equal(db_labrun_begin(db, u, "amdahl", "{}", "{}", &r1, &e), 0);
    assert_int_equal(db_labrun_finish(db, r1, "done", "{\"s\":1}", NULL, &e), 0);
    assert_int_equal(db_labrun_begin(db, u, "memory", "{}", "{}", &r2, &e), 0);
    assert_int_equal(db_labrun_finish(db, r2, "failed", NULL, "worker 1 died", &e), 0);
    assert_int_equal(db_labrun_finish(db, r2, "done", NULL, NULL, &e), CORE_ERR_CONFLICT);
    assert_int_equal(db_labrun_begin(db, u, "amdahl", "{}", "{}", &r3, &e), 0);
    assert_int_equal(db_labrun_begin(db, v, "amdahl", "{}", "{}", &r4, &e), 0);

    struct db_labrun *runs;
    size_t n;
    assert_int_equal(db_labrun_list(db, u, NULL, 0, &runs, &n, &e), 0);
    assert_int_equal(n, 3);
    assert_int_equal(runs[0].id, r3); /* newest first */
    assert_string_equal(runs[0].status, "running");
    assert_null(runs[0].ended_at);
    assert_string_equal(runs[1].error, "worker 1 died");
    db_labruns_free(runs, n);
    assert_int_equal(db_labrun_list(db, u, "amdahl", 0, &runs, &n, &e), 0);
    assert_int_equal(n, 2);
    db_labruns_free(runs, n);
    assert_int_equal(db_labrun_list(db, u, NULL, 1, &runs, &n, &e), 0);
    assert_int_equal(n, 1);
    db_labruns_free(runs, n);
    assert_int_equal(db_labrun_list(db, v, "memory", 0, &runs, &n, &e), 0);
    assert_int_equal(n, 0);
    db_labruns_free(runs, n);

    struct db_labrun row;
    assert_int_equal(db_labrun_get(db, r4, &row, &e), 0);
    assert_int_equal(row.user_id, v);
    db_labrun_fini(&row);
    assert_int_equal(db_labrun_get(db, r4 + 10, &row, &e), CORE_ERR_NOTFOUND);

    /* the latest done run as of a time */
    assert_int_equal(db_labrun_latest_before(db, u, "amdahl", "9999-01-01T00:00:00.000Z", &row, &e),
                     0);
    assert_int_equal(row.id, r1);
    db_labrun_fini(&row);
    assert_int_equal(db_labrun_latest_before(db, u, "amdahl", "2000-01-01T00:00:00.000Z", &row, &e),
                     CORE_ERR_NOTFOUND);

    struct db_labsample *s;
    assert_int_equal(db_labrun_samples_read(db, r3, NULL, &s, &n, &e), 0);
    assert_int_equal(n, 0);
    db_labsamples_free(s, n);
    struct core_sample in[2] = {{"x", 1, NAN, 0.5}, {"y", 2, 3.0, 0.6}};
    assert_int_equal(db_labrun_samples(db, r3, in, 2, &e), 0);
    assert_int_equal(db_labrun_samples_read(db, r3, NULL, &s, &n, &e), 0);
    assert_int_equal(n, 2);
    assert_true(isnan(s[0].value)); /* stored NULL reads back as NaN */
    assert_true(s[1].value == 3.0);
    db_labsamples_free(s, n);
    db_close(db);
    rm_db(path);
}

/* ---- review fixes ---------------------------------------------------------- */

static void test_params_edge_values(void **state)
{
    (void)state;
    /* A parameter whose name takes all 63 characters a key may have. */
    static const struct lab_param_def defs[] = {
        {"x", LAB_P_REAL, "0.5", NULL, -1, 1, NULL, "", "a signed fraction"},
        {"a23456789012345678901234567890123456789012345678901234567890123", LAB_P_INT, "1", NULL, 1,
         9, NULL, "", "a long name"},
    };
    static const struct lab_def lab = {.name = "fake", .params = defs, .n_params = 2};
    struct lab_params p;
    lab_params_init(&p, &lab);
    struct core_err e = {0};
    char text[64];
    /* "-0" is zero, shown back as "0", not "-0" */
    assert_int_equal(lab_params_assign(&p, "x=-0", &e), 0);
    assert_true(lab_param_num(&p, "x") == 0 && !signbit(lab_param_num(&p, "x")));
    lab_value_text(&p.v[0], text, sizeof text);
    assert_string_equal(text, "0");
    assert_int_equal(lab_params_assign(&p, "x=-0.0e5", &e), 0);
    assert_false(signbit(lab_param_num(&p, "x")));
    /* overflow is not a number; underflow is zero */
    assert_int_equal(lab_params_assign(&p, "x=1e999", &e), CORE_ERR_INVALID);
    assert_int_equal(lab_params_assign(&p, "x=-1e999", &e), CORE_ERR_INVALID);
    assert_int_equal(lab_params_assign(&p, "x=1e-999", &e), 0);
    assert_true(lab_param_num(&p, "x") == 0);
    /* blanks around a number are fine; inside it, or alone, they are not */
    assert_int_equal(lab_params_assign(&p, "x= 0.25 ", &e), 0);
    assert_true(lab_param_num(&p, "x") == 0.25);
    assert_int_equal(lab_params_assign(&p, "x=   ", &e), CORE_ERR_INVALID);
    assert_int_equal(lab_params_assign(&p, "x=0. 5", &e), CORE_ERR_INVALID);
    /* the same parameter twice: the last value counts */
    assert_int_equal(lab_params_assign(&p, "x=0.1", &e), 0);
    assert_int_equal(lab_params_assign(&p, "x=0.2", &e), 0);
    assert_true(lab_param_num(&p, "x") == 0.2);
    /* the long name works; one character more is unknown, not cut to fit */
    assert_int_equal(
        lab_params_assign(&p, "a23456789012345678901234567890123456789012345678901234567890123=4",
                          &e),
        0);
    assert_true(lab_param_num(&p, defs[1].name) == 4);
    assert_int_equal(
        lab_params_assign(&p, "a23456789012345678901234567890123456789012345678901234567890123X=5",
                          &e),
        CORE_ERR_INVALID);
    assert_non_null(strstr(e.msg, "unknown parameter"));
    assert_true(lab_param_num(&p, defs[1].name) == 4);
    lab_params_fini(&p);
}

/* A lab that sees a worker die while a cancel is under way: what a signal
 * sent to the whole process group (SIGTERM, a closing terminal's SIGHUP)
 * does, the workers dying with it. */
static int run_cancel_then_fail(struct lab_ctx *cx, struct core_err *err)
{
    lab_emit(cx, "x", 1, 1.0);
    atomic_store(lab_ctx_cancel_flag(cx), 1);
    return core_err_set(err, CORE_ERR_INTERNAL,
                        "worker 1 (pid 42) was killed by signal 15 (Terminated)");
}

static int run_just_fail(struct lab_ctx *cx, struct core_err *err)
{
    lab_emit(cx, "x", 1, 1.0);
    return core_err_set(err, CORE_ERR_INTERNAL,
                        "worker 1 (pid 42) was killed by signal 15 (Terminated)");
}

static void test_cancel_wins_over_failure(void **state)
{
    (void)state;
    char *path;
    int64_t uid;
    struct db *db = store_with_user("erin", &path, &uid);
    struct core_err e = {0};
    static const struct lab_def cancelled_lab = {.name = "sigterm", .run = run_cancel_then_fail};
    static const struct lab_def failed_lab = {.name = "dies", .run = run_just_fail};

    struct lab_params p;
    lab_params_init(&p, &cancelled_lab);
    atomic_int cancel = 0;
    struct seen a = {0};
    struct lab_sink sink = {seen_sample, seen_log, NULL, NULL, &a};
    struct lab_run_opts o = {.db = db,
                             .user_id = uid,
                             .sinks = &sink,
                             .n_sinks = 1,
                             .cancel = &cancel,
                             .machine = &test_machine};
    struct lab_result r;
    assert_int_equal(lab_run(&p, &o, &r, &e), CORE_ERR_CANCELLED);
    assert_string_equal(r.status, "cancelled");
    assert_true(strncmp(r.error, "cancelled after", 15) == 0);
    assert_non_null(strstr(r.error, "signal 15")); /* what happened meanwhile is kept */
    assert_int_equal(a.errors, 0);                 /* a warning, not an error */
    struct db_labrun row;
    assert_int_equal(db_labrun_get(db, r.run_id, &row, &e), 0);
    assert_string_equal(row.status, "cancelled");
    db_labrun_fini(&row);
    lab_result_fini(&r);
    lab_params_fini(&p);

    /* the same failure with no cancel asked for is a failure */
    lab_params_init(&p, &failed_lab);
    atomic_store(&cancel, 0);
    assert_int_equal(lab_run(&p, &o, &r, &e), CORE_ERR_INTERNAL);
    assert_string_equal(r.status, "failed");
    assert_string_equal(r.error, "worker 1 (pid 42) was killed by signal 15 (Terminated)");
    lab_result_fini(&r);
    lab_params_fini(&p);
    seen_fini(&a);
    db_close(db);
    rm_db(path);
}

/* A sink that, at its `at`-th sample, ends the run through a second handle
 * on the store: the next batch the run writes fails, as on a full disk. */
struct spoiler {
    struct seen seen;
    struct db *db2;
    int64_t uid;
    size_t at;
};

static void spoil_sample(void *ud, const struct core_sample *s)
{
    struct spoiler *sp = ud;
    seen_sample(&sp->seen, s);
    if (sp->seen.n != sp->at)
        return;
    struct db_labrun *runs;
    size_t n;
    struct core_err e = {0};
    assert_int_equal(db_labrun_list(sp->db2, sp->uid, "selftest", 1, &runs, &n, &e), 0);
    assert_int_equal(n, 1);
    assert_int_equal(db_labrun_finish(sp->db2, runs[0].id, "failed", NULL, "taken away", &e), 0);
    db_labruns_free(runs, n);
}

static void test_store_fails_mid_run(void **state)
{
    (void)state;
    char *path;
    int64_t uid;
    struct db *db = store_with_user("frank", &path, &uid), *db2 = NULL;
    struct core_err e = {0};
    assert_int_equal(db_open(&db2, path, &e), 0);
    int kids = count_children();

    const char *kv[] = {"steps=1000", "workers=2", "interval_ms=0"};
    struct lab_params p;
    selftest_params(&p, kv, 3);
    /* the fake clock stands still: batches are cut by count (256) alone */
    struct fake_clock fc = {0};
    struct core_clock clock = {fake_now, fake_sleep, &fc};
    struct spoiler sp = {.db2 = db2, .uid = uid, .at = 300};
    struct lab_sink sink = {spoil_sample, seen_log, NULL, NULL, &sp};
    struct lab_run_opts o = {.db = db,
                             .user_id = uid,
                             .sinks = &sink,
                             .n_sinks = 1,
                             .clock = &clock,
                             .machine = &test_machine};
    struct lab_result r;
    /* the store's failure, whatever SQLite called it, is CORE_ERR_STORE */
    assert_int_equal(lab_run(&p, &o, &r, &e), CORE_ERR_STORE);
    assert_int_equal(e.code, CORE_ERR_STORE);
    assert_string_equal(r.status, "failed");
    assert_non_null(strstr(r.error, "recording the run"));
    assert_non_null(strstr(r.error, "has ended"));
    assert_true(fig(&r, "steps")->num < 1000); /* the lab was stopped */
    assert_int_equal(count_children(), kids);  /* and its workers with it */

    /* the store is whole: the batch committed before the failure is there */
    struct db_labsample *s;
    size_t n;
    assert_int_equal(db_labrun_samples_read(db, r.run_id, NULL, &s, &n, &e), 0);
    assert_int_equal(n, 256);
    db_labsamples_free(s, n);
    /* and only those count as recorded; the sinks saw more */
    assert_int_equal(r.n_recorded, 256);
    assert_true(r.n_samples > 256);
    struct db_labrun row;
    assert_int_equal(db_labrun_get(db, r.run_id, &row, &e), 0);
    assert_string_equal(row.status, "failed");
    db_labrun_fini(&row);

    lab_result_fini(&r);
    lab_params_fini(&p);
    seen_fini(&sp.seen);
    db_close(db2);
    db_close(db);
    rm_db(path);
}

/* Waits (5 s at most) until pid is blocked in poll() or ppoll() and
 * returns whether that call waits without a time limit: poll's timeout
 * argument is -1, or ppoll's timespec is NULL (/proc/PID/syscall: the
 * system call number and its arguments). */
static bool blocked_in_endless_poll(pid_t pid)
{
    char path[64], line[512];
    snprintf(path, sizeof path, "/proc/%d/syscall", (int)pid);
    for (int tries = 0; tries < 5000; tries++) {
        FILE *f = fopen(path, "r");
        if (!f)
            fail_msg("cannot read %s: %s", path, strerror(errno));
        bool got = fgets(line, sizeof line, f) != NULL;
        fclose(f);
        long nr = -1;
        unsigned long long a1, a2, a3;
        if (got && sscanf(line, "%ld %llx %llx %llx", &nr, &a1, &a2, &a3) == 4) {
#ifdef SYS_poll
            if (nr == SYS_poll)
                return (int)(unsigned)a3 == -1;
#endif
            if (nr == SYS_ppoll)
                return a3 == 0;
        }
        struct timespec ms = {0, 1000 * 1000};
        nanosleep(&ms, NULL); /* still running, or in another call: look again */
    }
    fail_msg("worker %d never blocked in poll (last: %s)", (int)pid, line);
    return false;
}

/* Says it is ready, then waits for a number with no limit and no flag. */
static int child_idle(int fd, void *arg)
{
    (void)arg;
    char ready = 'r';
    int v;
    if (lab_fd_write(fd, &ready, 1, 5000, NULL, NULL) != 0)
        return 1;
    return lab_fd_read(fd, &v, sizeof v, -1, NULL, NULL) == 0 && v == 5 ? 0 : 2;
}

/* Reads until its connection closes, then exits cleanly. */
static int child_until_eof(int fd, void *arg)
{
    (void)arg;
    int v;
    while (lab_fd_read(fd, &v, sizeof v, -1, NULL, NULL) == 0)
        ;
    return 0;
}

static void test_idle_worker_sleeps(void **state)
{
    (void)state;
    struct lab_procs ps;
    lab_procs_init(&ps, NULL);
    struct core_err e = {0};
    int i = lab_proc_spawn(&ps, child_idle, NULL, &e);
    assert_true(i >= 0);
    char ready;
    assert_int_equal(lab_fd_read(ps.v[i].fd, &ready, 1, 5000, NULL, &e), 0);
    /* blocked in poll with no time limit: it is not woken every 50 ms (a
     * sliced wait would show a 50 ms timeout here) */
    assert_true(blocked_in_endless_poll(ps.v[i].pid));
    int five = 5;
    assert_int_equal(lab_fd_write(ps.v[i].fd, &five, sizeof five, 5000, NULL, &e), 0);
    assert_int_equal(lab_proc_reap(&ps, (size_t)i, 5000, &e), 0);
    lab_procs_fini(&ps);
}

static void test_siblings_hold_no_sockets(void **state)
{
    (void)state;
    int kids = count_children();
    struct lab_procs ps;
    lab_procs_init(&ps, NULL);
    struct core_err e = {0};
    int a = lab_proc_spawn(&ps, child_until_eof, NULL, &e);
    int b = lab_proc_spawn(&ps, child_until_eof, NULL, &e);
    int c = lab_proc_spawn(&ps, child_sleep, NULL, &e);
    assert_true(a == 0 && b == 1 && c == 2);
    /* Closing the first worker's connection ends it at once: no later
     * sibling kept a copy of the parent's end open. */
    close(ps.v[a].fd);
    ps.v[a].fd = -1;
    assert_int_equal(lab_proc_reap(&ps, (size_t)a, 5000, &e), 0);
    close(ps.v[b].fd);
    ps.v[b].fd = -1;
    assert_int_equal(lab_proc_reap(&ps, (size_t)b, 5000, &e), 0);
    lab_procs_fini(&ps);
    assert_int_equal(count_children(), kids);
}

/* The parent's handler: a worker that ran it would exit 77 instead of dying. */
static void parent_handler(int sig)
{
    (void)sig;
    _exit(77);
}

static void test_worker_runs_no_parent_handler(void **state)
{
    (void)state;
    struct sigaction sa, old_usr1;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = parent_handler;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR1, &sa, &old_usr1);
    /* and a signal the starting thread blocks (the TUI's lab thread blocks
     * several) is not blocked in the worker */
    sigset_t usr2, old_mask;
    sigemptyset(&usr2);
    sigaddset(&usr2, SIGUSR2);
    pthread_sigmask(SIG_BLOCK, &usr2, &old_mask);

    struct lab_procs ps;
    lab_procs_init(&ps, NULL);
    struct core_err e = {0};
    int a = lab_proc_spawn(&ps, child_idle, NULL, &e);
    int b = lab_proc_spawn(&ps, child_idle, NULL, &e);
    assert_true(a == 0 && b == 1);
    char ready;
    assert_int_equal(lab_fd_read(ps.v[a].fd, &ready, 1, 5000, NULL, &e), 0);
    assert_int_equal(lab_fd_read(ps.v[b].fd, &ready, 1, 5000, NULL, &e), 0);
    kill(ps.v[a].pid, SIGUSR1);
    assert_int_equal(lab_proc_reap(&ps, (size_t)a, 5000, &e), CORE_ERR_INTERNAL);
    assert_non_null(strstr(e.msg, "killed by signal 10")); /* not "exited with status 77" */
    kill(ps.v[b].pid, SIGUSR2);
    assert_int_equal(lab_proc_reap(&ps, (size_t)b, 5000, &e), CORE_ERR_INTERNAL);
    assert_non_null(strstr(e.msg, "killed by signal 12"));
    lab_procs_fini(&ps);

    pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
    sigaction(SIGUSR1, &old_usr1, NULL);
}

/* The shared hang rule: a floor plus a multiple of the expected work, and a
 * real stopped worker ended with a message that names it. */
static void test_hang_rule(void **state)
{
    (void)state;
    assert_true(lab_hang_limit_s(0) == LAB_HANG_FLOOR_S);
    assert_true(lab_hang_limit_s(-1) == LAB_HANG_FLOOR_S);
    assert_true(lab_hang_limit_s(NAN) == LAB_HANG_FLOOR_S);
    assert_true(lab_hang_limit_s(0.5) == LAB_HANG_FLOOR_S + LAB_HANG_FACTOR * 0.5);
    assert_true(LAB_HANG_FLOOR_S >= 5 && LAB_HANG_FACTOR >= 10); /* never a slow worker */

    int kids = count_children();
    struct lab_procs ps;
    lab_procs_init(&ps, NULL);
    struct core_err e = {0};
    int i = lab_proc_spawn(&ps, child_idle, NULL, &e);
    int j = lab_proc_spawn(&ps, child_idle, NULL, &e);
    assert_true(i >= 0 && j >= 0);
    char ready;
    assert_int_equal(lab_fd_read(ps.v[i].fd, &ready, 1, 5000, NULL, &e), 0);
    assert_int_equal(lab_fd_read(ps.v[j].fd, &ready, 1, 5000, NULL, &e), 0);
    pid_t pid = ps.v[i].pid;
    assert_int_equal(kill(pid, SIGSTOP), 0);
    /* wait until the stop has happened (it is asynchronous) */
    for (int k = 0; k < 500; k++) {
        char path[64], line[512];
        snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
        if (core_file_first_line(path, line, sizeof line) && strstr(strrchr(line, ')'), ") T"))
            break;
        usleep(2000);
    }
    assert_int_equal(lab_proc_end_hung(&ps, (size_t)i, 6.5, 0.25, &e), CORE_ERR_LIMIT);
    char want[96];
    snprintf(want, sizeof want, "worker %d (pid %d) did not answer within 6.5 s", i + 1, (int)pid);
    assert_non_null(strstr(e.msg, want));
    assert_non_null(strstr(e.msg, "should take about 0.25 s"));
    assert_non_null(strstr(e.msg, "stopped (SIGSTOP or a debugger)"));
    assert_true(ps.v[i].reaped);
    assert_int_equal(kill(pid, 0), -1); /* gone, not a zombie of ours */
    /* one that is not stopped but silent "hangs" */
    assert_int_equal(lab_proc_end_hung(&ps, (size_t)j, 6, 0.1, &e), CORE_ERR_LIMIT);
    assert_non_null(strstr(e.msg, "it hangs; it was ended"));
    assert_int_equal(count_children(), kids);
    lab_procs_fini(&ps);
}

/* ---- across machines: where the ranks come from ------------------------------ */

/* hosts= and hostfile= give the job's ranks (slots), checked before any
 * run; under mpirun its environment does; transport=local with a host list
 * is refused. Pure parsing: the same with or without Open MPI in the
 * build. */
static void test_mpi_ranks_given(void **state)
{
    (void)state;
    const struct lab_def *ps = lab_find("paramserver");
    assert_non_null(ps);
    assert_non_null(ps->rank);
    unsetenv("OMPI_COMM_WORLD_SIZE");
    unsetenv("OMPI_COMM_WORLD_RANK");
    unsetenv("PMIX_RANK");
    assert_int_equal(lab_mpi_env_rank(), -1);
    struct lab_params p;
    struct core_err e = {0};
    int ranks = -1;
    lab_params_init(&p, ps);
    assert_false(lab_mpi_params_use(&p));
    assert_int_equal(lab_mpi_ranks_given(&p, &ranks, &e), 0);
    assert_int_equal(ranks, 0);

    assert_int_equal(lab_params_set(&p, "hosts", "node1:3,node2:3,node3", &e), 0);
    assert_true(lab_mpi_params_use(&p));
    assert_int_equal(lab_mpi_ranks_given(&p, &ranks, &e), 0);
    assert_int_equal(ranks, 7);
    static const char *const bad[] = {"node1:0", "node1:x", ":3", "a b:2", "node1:3,", "n:5000"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(lab_params_set(&p, "hosts", bad[i], &e), 0);
        assert_int_equal(lab_mpi_ranks_given(&p, &ranks, &e), CORE_ERR_INVALID);
        assert_non_null(strstr(e.msg, "hosts"));
    }
    /* transport=local said outright, with hosts: refused */
    assert_int_equal(lab_params_set(&p, "hosts", "a:2", &e), 0);
    assert_int_equal(lab_params_set(&p, "transport", "local", &e), 0);
    assert_int_equal(lab_mpi_ranks_given(&p, &ranks, &e), CORE_ERR_INVALID);
    assert_non_null(strstr(e.msg, "transport=mpi"));
    lab_params_fini(&p);

    /* a hostfile: slots= counted, a bare name is one, comments skipped */
    char *path = tmp_db_path();
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("# the lab cluster\nnode1 slots=4\n\nnode2   # one slot\nnode3 slots=2 max_slots=8\n", f);
    fclose(f);
    lab_params_init(&p, ps);
    assert_int_equal(lab_params_set(&p, "hostfile", path, &e), 0);
    assert_int_equal(lab_mpi_ranks_given(&p, &ranks, &e), 0);
    assert_int_equal(ranks, 7);
    assert_int_equal(lab_params_set(&p, "hosts", "a:2", &e), 0); /* and hosts: one only */
    assert_int_equal(lab_mpi_ranks_given(&p, &ranks, &e), CORE_ERR_INVALID);
    assert_non_null(strstr(e.msg, "not both"));
    lab_params_fini(&p);
    f = fopen(path, "w");
    fputs("node1 slots=4\nnode2 slots=many\n", f);
    fclose(f);
    lab_params_init(&p, ps);
    assert_int_equal(lab_params_set(&p, "hostfile", path, &e), 0);
    assert_int_equal(lab_mpi_ranks_given(&p, &ranks, &e), CORE_ERR_INVALID);
    assert_non_null(strstr(e.msg, ":2: slots=many")); /* file and line */
    unlink(path);
    assert_int_equal(lab_mpi_ranks_given(&p, &ranks, &e), CORE_ERR_INVALID);
    assert_non_null(strstr(e.msg, "cannot read"));
    lab_params_fini(&p);
    free(path);

    /* under mpirun the job's size is what there is */
    setenv("OMPI_COMM_WORLD_SIZE", "6", 1);
    setenv("OMPI_COMM_WORLD_RANK", "2", 1);
    assert_int_equal(lab_mpi_env_rank(), 2);
    lab_params_init(&p, ps);
    assert_int_equal(lab_params_set(&p, "transport", "mpi", &e), 0);
    assert_int_equal(lab_mpi_ranks_given(&p, &ranks, &e), 0);
    assert_int_equal(ranks, 6);
    assert_false(lab_mpi_relayed()); /* rank 2, and no relay asked */
    /* the recorded parameters say how many workers the ranks give: rank 0
     * and one shard leave 4; the values set are kept exactly */
    assert_int_equal(lab_params_set(&p, "lr", "0.123456789", &e), 0);
    struct lab_params q;
    lab_mpi_params_resolve(&p, &q);
    assert_true(lab_param_num(&q, "workers") == 4);
    assert_true(lab_param_num(&q, "lr") == 0.123456789);
    assert_string_equal(lab_param_str(&q, "transport"), "mpi");
    lab_params_fini(&q);
    assert_int_equal(lab_params_set(&p, "mode", "allreduce", &e), 0);
    lab_mpi_params_resolve(&p, &q);
    assert_true(lab_param_num(&q, "workers") == 5); /* no shard in a ring */
    lab_params_fini(&q);
    lab_params_fini(&p);
    unsetenv("OMPI_COMM_WORLD_SIZE");
    unsetenv("OMPI_COMM_WORLD_RANK");

    /* every lab with a transport parameter has an MPI part, and no other */
    size_t n;
    const struct lab_def *const *all = lab_registry(&n);
    for (size_t i = 0; i < n; i++) {
        bool has = false;
        for (size_t k = 0; k < all[i]->n_params; k++)
            has |= strcmp(all[i]->params[k].name, "transport") == 0;
        assert_true(has == (all[i]->rank != NULL));
        assert_true(has == (all[i]->mpi_workers != NULL));
    }
    /* the allreduce lab's charts are drawn on a log x axis */
    const struct lab_def *ar = lab_find("allreduce");
    assert_non_null(ar);
    assert_true(lab_chart_log_x(ar, "bus bandwidth"));
    assert_false(lab_chart_log_x(ps, "loss vs steps"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hang_rule),
        cmocka_unit_test(test_params_defaults_and_set),
        cmocka_unit_test(test_params_errors),
        cmocka_unit_test(test_straggler_param),
        cmocka_unit_test(test_params_computed_default_checked),
        cmocka_unit_test(test_registry_declarations),
        cmocka_unit_test(test_stream_order_sinks_and_store),
        cmocka_unit_test(test_store_batches),
        cmocka_unit_test(test_no_store_no_sinks),
        cmocka_unit_test(test_cancel_any_moment),
        cmocka_unit_test(test_cancel_from_another_thread),
        cmocka_unit_test(test_killed_worker_reported),
        cmocka_unit_test(test_lab_failure),
        cmocka_unit_test(test_spawn_failure),
        cmocka_unit_test(test_proc_helpers),
        cmocka_unit_test(test_fd_write_closed_peer),
        cmocka_unit_test(test_machine_probe),
        cmocka_unit_test(test_db_run_queries),
        cmocka_unit_test(test_params_edge_values),
        cmocka_unit_test(test_cancel_wins_over_failure),
        cmocka_unit_test(test_store_fails_mid_run),
        cmocka_unit_test(test_idle_worker_sleeps),
        cmocka_unit_test(test_siblings_hold_no_sockets),
        cmocka_unit_test(test_worker_runs_no_parent_handler),
        cmocka_unit_test(test_mpi_ranks_given),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
