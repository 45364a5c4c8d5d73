/*
 * grader_job.c — what a job's parts share (struct grader_job, run by
 * grader_grade.c): reporting a problem of the question or raising one of
 * the pack, calling pack code, the variant's seed, the question's own
 * values (Q.answer and the like, called with p and ctx when functions),
 * scoring a result, and the problems of pack check (grader_problem_push).
 * The question kinds (grader_kind_*.c), rendering (grader_render.c) and the
 * self-tests (grader_selftest.c) use these; none of them is grader_grade.c's
 * driver, so none of those files calls the driver's file, and the driver
 * calls them.
 *
 * Uses the runtime (grader_sb_try and grader_call.c: calls into pack code,
 * raising its errors), the pure building blocks (units, number formatting,
 * the RNG's seed); no Lua stack work of its own.
 */
#include "grader_lua_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void grader_job_problem(struct grader_job *j, const char *fmt, ...)
{
    char buf[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if ((j->mode == GRADER_J_SWEEP || j->mode == GRADER_J_CHECK) && j->q->has_params && j->vkey.len)
        core_strlist_pushf(j->problems, "%s: question %s: variant %d (%.150s): %s", j->qpos,
                           j->q->id, j->variant, j->vkey.data ? j->vkey.data : "", buf);
    else
        core_strlist_pushf(j->problems, "%s: question %s: %s", j->qpos, j->q->id, buf);
    j->n_problems++;
}

/* Raises a problem of the pack found while grading:
 * "file:line: question ID: message". */
int grader_job_fail(struct lua_State *L, struct grader_job *j, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    j->what = NULL;
    return grader_raise_mapped(L, "%s: question %s: %s", j->qpos, j->q->id, buf);
}

/* Calls pack code; on error raises it (the driver stops). */
void grader_job_call(struct lua_State *L, struct grader_job *j, const char *what, int nargs,
                     int nres)
{
    j->what = what;
    if (grader_sb_try(L, nargs, nres) != 0)
        grader_raise(L);
    j->what = NULL;
}

uint64_t grader_job_seed(const struct grader_job *j)
{
    return grader_rng_seed(j->p->info.id, j->q->id, j->user, j->variant);
}

int grader_job_push_value(struct lua_State *L, struct grader_job *j, int t, const char *name,
                          const char *what)
{
    static const int args[] = {GRADER_S_P, GRADER_S_CTX};
    const char *was = j->what;
    int called;
    j->what = what; /* named in the error, should the call fail */
    int ty = grader_push_field_called(L, t, name, args, 2, &called);
    if (called < 0)
        grader_raise(L);
    j->what = called ? NULL : was;
    return ty;
}

int grader_job_push_answer(struct lua_State *L, struct grader_job *j)
{
    return grader_job_push_value(L, j, GRADER_S_Q, "answer", "answer");
}

size_t grader_job_n_choices(struct lua_State *L)
{
    return grader_len(L, GRADER_S_CH);
}

void grader_result_invalid(struct grader_result *r, const char *why)
{
    r->valid = false;
    r->score = 0;
    r->correct = false;
    free(r->feedback);
    r->feedback = core_xstrdup(why);
}

void grader_result_score(struct grader_result *r, double frac, const char *feedback)
{
    if (frac < 0)
        frac = 0;
    if (frac > 1)
        frac = 1;
    r->valid = true;
    r->score = frac * r->max;
    r->correct = frac >= 1 - 1e-12;
    if (r->correct)
        r->score = r->max;
    free(r->feedback);
    r->feedback = core_xstrdup(feedback && feedback[0] ? feedback
                               : r->correct            ? "Correct."
                                                       : "Incorrect.");
}

const char *grader_question_unit(const struct grader_question *q)
{
    const struct grader_unit *u = grader_unit_find(q->unit ? q->unit : "");
    return u ? u->name : "";
}

char *grader_value_text(double v, const char *unit, int sig)
{
    char num[64];
    grader_number_format(v, sig, num, sizeof num);
    if (!unit[0])
        return core_xstrdup(num);
    if (strcmp(unit, "%") == 0)
        return core_xasprintf("%s%%", num);
    return core_xasprintf("%s %s", num, unit);
}

void grader_problem_push(struct core_strlist *problems, const char *prefix, const char *also,
                         const char *label, const char *msg)
{
    size_t pn = strlen(prefix);
    if (strncmp(msg, prefix, pn) == 0)
        msg += pn;
    if (also && strncmp(msg, also, strlen(also)) == 0)
        msg += strlen(also);
    core_strlist_pushf(problems, "%s%s%s%s", prefix, label ? label : "", label ? ": " : "", msg);
}
