/*
 * lab_code_record.c — a programming lab's run recorded as a lab run: the
 * harness (lab_code_run) run inside the lab framework (lab_run) under a
 * lab of its own, "code", that is in no registry (it cannot be run from
 * `lab run`: its input is an exercise and a file, not parameters). So a
 * `code run` is stored the way every lab run is: a lab_runs row with the
 * question and file as its parameters and the machine's description, the
 * samples of every timed call (lab_samples, batched by the framework), the
 * noise verdict every lab run gets (load, steal, the spread of the calls),
 * and the result's figures as its summary. The live sinks see the same
 * samples as they are measured. `class import`'s re-run of a student's
 * submission is recorded the same way in the instructor's store, its
 * parameters naming the student.
 *
 * Uses the harness (lab_code_run.c) and the lab framework (lab_author.h).
 */
#include "labs/code/lab_code_internal.h"
#include "labs/lab_author.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const struct lab_param_def code_params[] = {
    {"question", LAB_P_STR, "", NULL, 0, 0, NULL, "", "the exercise (pack:question)"},
    {"file", LAB_P_STR, "", NULL, 0, 0, NULL, "", "the file run"},
    {"student", LAB_P_STR, "", NULL, 0, 0, NULL, "",
     "whose submission this re-runs (class import): the student id, else the user name; empty "
     "for a run of one's own"},
    {"student_user", LAB_P_STR, "", NULL, 0, 0, NULL, "",
     "the user name of that submission (class import)"},
};

static const struct lab_series_def code_series[] = {
    {"call_ms", "time of a timed call", "ms", "calls", "timed call"},
    {"gflops", "GFLOP/s of a timed call", "GFLOP/s", "rate", "timed call"},
    {"gbs", "GB/s of a timed call", "GB/s", "bandwidth", "timed call"},
    {"reference_ms", "time of the naive reference's call", "ms", "calls", "timed call"},
};

struct code_job {
    const struct lab_code_spec *s;
    const char *path;
    const struct lab_code_opts *o;
    struct lab_code_result *out;
};

static void fwd_sample(void *ud, const struct core_sample *smp)
{
    struct lab_ctx *cx = ud;
    lab_emit(cx, smp->series, smp->step, smp->value);
    if (strcmp(smp->series, "call_ms") == 0)
        lab_repeat(cx, "time of a timed call", "ms", smp->value);
}

static void fwd_log(void *ud, enum lab_log_level lv, const char *line)
{
    lab_log(ud, lv, "%s", line);
}

static void fwd_progress(void *ud, double fraction, const char *what)
{
    lab_progress(ud, fraction, what);
}

static int code_lab_run(struct lab_ctx *cx, struct core_err *err)
{
    const struct code_job *j = lab_ctx_arg(cx);
    if (!j)
        return core_err_set(err, CORE_ERR_USAGE,
                            "the code lab runs from `warpbench code run QID FILE`");
    struct lab_sink k = {fwd_sample, fwd_log, fwd_progress, NULL, cx};
    struct lab_code_opts o = *j->o;
    o.sink = &k;
    o.cancel = lab_ctx_cancel_flag(cx);
    int rc = lab_code_run(j->s, j->path, &o, j->out, err);
    if (rc != 0)
        return rc;
    const struct lab_code_result *r = j->out;
    lab_figure_num(cx, "compiled", r->compiled, "yes/no", "compiled");
    lab_figure_num(cx, "correct", r->correct, "yes/no", "correct");
    if (r->message)
        lab_figure_str(cx, "message", r->message, "why not");
    if (r->first_wrong)
        lab_figure_str(cx, "first_wrong", r->first_wrong, "first wrong element");
    lab_figure_num(cx, "calls", r->calls, "", "calls checked");
    if (r->correct) {
        lab_figure_num(cx, "gflops", r->gflops, "GFLOP/s", "at the best timed call");
        lab_figure_num(cx, "gbs", r->gbs, "GB/s", "at the best timed call");
        lab_figure_num(cx, "roofline_fraction", r->roofline_fraction, "",
                       "fraction of this machine's roofline");
        lab_figure_num(cx, "speedup", r->speedup, "x", "over the naive reference");
        lab_figure_num(cx, "score", r->score, "", "share of the points");
        lab_figure_num(cx, "seconds", r->t_min_s, "s", "the best timed call");
        lab_figure_num(cx, "median_seconds", r->t_median_s, "s", "the median timed call");
        lab_figure_num(cx, "reference_seconds", r->ref_min_s, "s",
                       "the naive reference's best call");
    }
    return 0;
}

static const struct lab_def code_lab = {
    .name = "code",
    .title = "A programming lab's run",
    .summary = "the student's file compiled, sandboxed, checked and timed call by call",
    .params = code_params,
    .n_params = sizeof code_params / sizeof code_params[0],
    .series = code_series,
    .n_series = sizeof code_series / sizeof code_series[0],
    .run = code_lab_run,
};

int lab_code_run_recorded(const struct lab_code_spec *s, const char *question, const char *path,
                          const char *student, const char *student_user,
                          const struct lab_code_opts *o, const struct lab_run_opts *ro,
                          struct lab_code_result *out, struct core_err *err)
{
    memset(out, 0, sizeof *out);
    struct lab_params p;
    lab_params_init(&p, &code_lab);
    int rc = lab_params_set(&p, "question", question ? question : s->id, err);
    if (rc == 0)
        rc = lab_params_set(&p, "file", path, err);
    if (rc == 0 && student && *student)
        rc = lab_params_set(&p, "student", student, err);
    if (rc == 0 && student_user && *student_user)
        rc = lab_params_set(&p, "student_user", student_user, err);
    static const struct lab_code_opts none = {0};
    struct code_job j = {.s = s, .path = path, .o = o ? o : &none, .out = out};
    struct lab_run_opts lo = ro ? *ro : (struct lab_run_opts){0};
    lo.arg = &j;
    struct lab_result lr = {0};
    if (rc == 0)
        rc = lab_run(&p, &lo, &lr, err);
    out->run_id = lr.run_id;
    const struct lab_figure *f = lab_summary_find(&lr.summary, "noisy");
    out->noisy = f && !f->str && f->num != 0;
    f = lab_summary_find(&lr.summary, "noise");
    if (f && f->str)
        snprintf(out->noise, sizeof out->noise, "%s", f->str);
    lab_result_fini(&lr);
    lab_params_fini(&p);
    return rc;
}
