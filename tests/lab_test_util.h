/*
 * lab_test_util.h — what the lab tests that run a lab through lab_run()
 * share (test_labs_run.c, test_labs_coalescing.c, test_lab_kmeans_run.c,
 * test_lab_kmeans.c): a sink that keeps every sample and the log, lookups
 * that fail the test when a sample or figure is missing, the relative
 * comparison, a run from "k=v" settings, and the test's own temporary
 * files. Header-only (static inline), so each test target includes it
 * without extra sources; uses cmocka for the failures, labs/lab.h for the
 * run and proc_test_util.h to find a worker to kill.
 */
#ifndef WB_TESTS_LAB_TEST_UTIL_H
#define WB_TESTS_LAB_TEST_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "labs/lab_author.h"
#include "proc_test_util.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- a sink that keeps everything ------------------------------------------ */

struct lab_got_sample {
    char *series;
    long long step;
    double value;
};

/* What a run sent to the sink. Zero-initialise; free with got_fini. */
struct lab_got {
    struct lab_got_sample *s;
    size_t n, cap;
    int warns, infos, errors;
    char first_log[512];  /* the first line logged, at any level */
    char last_warn[512];  /* the latest warning */
    char warn_text[2048]; /* every warning, a '\n' after each, while there is room */
    char info_text[8192]; /* every info line, likewise */
    atomic_int *cancel;   /* set when cancel_after samples have arrived */
    size_t cancel_after;
    bool kill_child;                /* at the first sample, SIGKILL one of our children */
    bool stop_child;                /* at the first sample, SIGSTOP one of our children */
    const struct core_clock *clock; /* the run's clock (NULL: the real one) */
};

static inline void got_sample(void *ud, const struct core_sample *s)
{
    struct lab_got *g = ud;
    if (g->n == g->cap) {
        g->cap = g->cap ? 2 * g->cap : 64;
        g->s = realloc(g->s, g->cap * sizeof *g->s);
        assert_non_null(g->s);
    }
    g->s[g->n].series = strdup(s->series);
    g->s[g->n].step = s->step;
    g->s[g->n].value = s->value;
    g->n++;
    if ((g->kill_child || g->stop_child) && g->n == 1) {
        pid_t c;
        proc_test_children(&c);
        assert_true(c > 0);
        kill(c, g->kill_child ? SIGKILL : SIGSTOP);
    }
    if (g->cancel && g->n >= g->cancel_after)
        atomic_store(g->cancel, 1);
}

static inline void got_append(char *buf, size_t cap, const char *line)
{
    size_t at = strlen(buf);
    if (at + 2 < cap)
        snprintf(buf + at, cap - at, "%s\n", line);
}

static inline void got_log(void *ud, enum lab_log_level level, const char *line)
{
    struct lab_got *g = ud;
    if (g->warns + g->infos + g->errors == 0)
        snprintf(g->first_log, sizeof g->first_log, "%s", line);
    if (level == LAB_LOG_WARN || level == LAB_LOG_NOTE) { /* a note is a warning kept in view */
        g->warns++;
        snprintf(g->last_warn, sizeof g->last_warn, "%s", line);
        got_append(g->warn_text, sizeof g->warn_text, line);
    } else if (level == LAB_LOG_INFO) {
        g->infos++;
        got_append(g->info_text, sizeof g->info_text, line);
    } else {
        g->errors++;
    }
}

static inline void got_fini(struct lab_got *g)
{
    for (size_t i = 0; i < g->n; i++)
        free(g->s[i].series);
    free(g->s);
}

/* The value of `series` at `step`; fails the test when there is none. */
static inline double got_value(const struct lab_got *g, const char *series, long long step)
{
    for (size_t i = 0; i < g->n; i++)
        if (strcmp(g->s[i].series, series) == 0 && g->s[i].step == step)
            return g->s[i].value;
    fail_msg("no sample %s at step %lld", series, step);
    return NAN;
}

/* How many samples of `series` arrived. */
static inline size_t got_count(const struct lab_got *g, const char *series)
{
    size_t k = 0;
    for (size_t i = 0; i < g->n; i++)
        k += strcmp(g->s[i].series, series) == 0;
    return k;
}

/* ---- figures and checks ------------------------------------------------------ */

/* The number figure `key`; fails the test when there is none. */
static inline double fig(const struct lab_result *r, const char *key)
{
    const struct lab_figure *f = lab_summary_find(&r->summary, key);
    if (!f)
        fail_msg("no summary figure %s", key);
    return f->num;
}

/* The text figure `key`; fails the test when there is none. */
static inline const char *fig_str(const struct lab_result *r, const char *key)
{
    const struct lab_figure *f = lab_summary_find(&r->summary, key);
    if (!f || !f->str)
        fail_msg("no text figure %s", key);
    return f->str;
}

/* Fails unless a and b agree within rel of the larger magnitude. */
static inline void assert_close(double a, double b, double rel)
{
    if (!(fabs(a - b) <= rel * fmax(fabs(a), fabs(b)) + 1e-300))
        fail_msg("%.17g and %.17g differ by more than %g relative", a, b, rel);
}

static inline void assert_pos_finite(double v)
{
    if (!(isfinite(v) && v > 0))
        fail_msg("expected a positive finite number, got %g", v);
}

static inline void assert_contains(const char *hay, const char *needle)
{
    if (!strstr(hay, needle))
        fail_msg("'%s' does not contain '%s'", hay, needle);
}

/* No child of ours is left, running or zombie. */
static inline void assert_no_children(void)
{
    int st;
    errno = 0;
    assert_int_equal(waitpid(-1, &st, WNOHANG), -1);
    assert_int_equal(errno, ECHILD);
}

/* ---- running a lab ----------------------------------------------------------- */

/* Lab `name`'s parameters with the "k=v" settings (NULL-terminated) applied,
 * unchecked; fails the test on a setting the lab refuses. Caller finishes
 * *p with lab_params_fini. */
static inline void lab_test_params(struct lab_params *p, const char *name, const char *const *set)
{
    const struct lab_def *d = lab_find(name);
    assert_non_null(d);
    struct core_err err;
    lab_params_init(p, d);
    for (size_t i = 0; set[i]; i++)
        if (lab_params_assign(p, set[i], &err) != 0)
            fail_msg("%s: %s", set[i], err.msg);
}

/* Runs lab `name` with the settings (which must pass the check) into g,
 * recorded in db for user when db is not NULL, on machine m (NULL: probed);
 * returns lab_run's code. Caller frees *res with lab_result_fini. */
static inline int lab_test_run(const char *name, const char *const *set,
                               const struct lab_machine *m, struct lab_got *g,
                               struct lab_result *res, struct db *db, int64_t user)
{
    struct lab_params p;
    struct core_err err;
    lab_test_params(&p, name, set);
    if (lab_params_check(&p, &err) != 0)
        fail_msg("check: %s", err.msg);
    struct lab_sink sink = {got_sample, got_log, NULL, NULL, g};
    struct lab_run_opts o = {.db = db,
                             .user_id = user,
                             .sinks = &sink,
                             .n_sinks = 1,
                             .cancel = g->cancel,
                             .clock = g->clock,
                             .machine = m};
    memset(res, 0, sizeof *res);
    int rc = lab_run(&p, &o, res, &err);
    lab_params_fini(&p);
    return rc;
}

/* ---- temporary files ----------------------------------------------------------- */

/* Writes the n bytes to "<WB_TEST_TMP or /tmp>/<prefix>_<pid>_<name>" and
 * returns that path, in a buffer valid until the next call. */
static inline const char *lab_test_tmp_file(const char *prefix, const char *name, const void *bytes,
                                            size_t n)
{
    static char path[512];
    const char *dir = getenv("WB_TEST_TMP");
    snprintf(path, sizeof path, "%s/%s_%ld_%s", dir ? dir : "/tmp", prefix, (long)getpid(), name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(bytes, 1, n, f), n);
    fclose(f);
    return path;
}

#endif
