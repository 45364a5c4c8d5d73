/*
 * lesson_exam.c — sitting an exam lesson: starting its clock, its state,
 * submitting it, and its results rolled up to the course rubric.
 *
 * While a sitting is open, answers are graded and stored but nothing about
 * their grades is shown (lesson_answer_design withholds it, progress
 * counts them as nothing yet, solutions and hints are refused); once it is
 * submitted or its time runs out, everything is shown as for any lesson.
 */
#include "lessons/lesson_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void lesson_exam_fini(struct lesson_exam *x)
{
    if (!x)
        return;
    free(x->pack_id);
    free(x->lesson_id);
    free(x->title);
    free(x->started_at);
    free(x->deadline);
    free(x->submitted_at);
    lesson_standing_fini(&x->standing);
    memset(x, 0, sizeof *x);
}

/* Seconds from now until an ISO-8601 UTC time as the store writes it. */
static double seconds_until(const char *iso)
{
    double left = core_time_from_iso(iso) - core_time_wall();
    return left > 0 ? left : 0; /* NaN (unreadable) reads as none left */
}

static int fill(struct lesson_session *s, const struct db_lesson *l, struct lesson_exam *out,
                struct core_err *err)
{
    out->pack_id = core_xstrdup(l->pack_id);
    out->lesson_id = core_xstrdup(l->id);
    out->title = core_xstrdup(l->title);
    out->time_limit_s = l->time_limit_s;
    struct db_exam x;
    int rc = db_exam_get(s->db, s->user_id, l->pack_id, l->id, &x, err);
    if (rc == CORE_OK) {
        out->started = true;
        out->over = x.over;
        out->submitted = x.submitted_at != NULL;
        out->started_at = x.started_at ? core_xstrdup(x.started_at) : NULL;
        out->deadline = x.deadline ? core_xstrdup(x.deadline) : NULL;
        out->submitted_at = x.submitted_at ? core_xstrdup(x.submitted_at) : NULL;
        if (!x.over && x.deadline)
            out->seconds_left = seconds_until(x.deadline);
    } else if (rc == CORE_ERR_NOTFOUND) {
        rc = CORE_OK;
    }
    db_exam_fini(&x);
    if (rc != CORE_OK)
        return rc;
    struct db_progress_row *rows = NULL;
    size_t n = 0;
    rc = lesson_progress_load(s->db, s->user_id, l->pack_id, &rows, &n, err);
    if (rc != CORE_OK)
        return rc;
    /* The exam's own questions, rolled up as the course rubric is. */
    struct db_progress_row *mine = core_xcalloc(n ? n : 1, sizeof *mine);
    size_t k = 0;
    struct lesson_tally t = {0};
    for (size_t i = 0; i < n; i++) {
        if (strcmp(rows[i].lesson_id, l->id) != 0)
            continue;
        mine[k++] = rows[i];
        lesson_tally_add(&t, &rows[i], false);
    }
    out->n_questions = t.questions;
    out->n_answered = t.answered;
    out->max = t.max;
    out->score = t.score;
    out->sealed = l->sealed;
    for (size_t i = 0; i < k; i++)
        out->n_official += mine[i].has_official && !mine[i].official_pending;
    if (out->over && (!out->sealed || out->n_official > 0)) {
        lesson_standing_compute(mine, k, NULL, 0, &out->standing);
        double covered = 0;
        for (int i = 0; i < LESSON_RUBRIC_N; i++)
            if (out->standing.items[i].questions > 0)
                covered += out->standing.items[i].item->max;
        out->rubric_total = covered > 0 ? out->standing.graded_total * 100 / covered : 0;
        out->level = lesson_level_name(out->rubric_total);
    } else {
        out->score = 0; /* nothing is told before it is over */
    }
    free(mine);
    db_progress_free(rows, n);
    return CORE_OK;
}

static int exam_lesson(struct lesson_session *s, const char *lesson, struct db_lesson **l,
                       struct core_err *err)
{
    int rc = lesson_find(s->db, lesson, l, err);
    if (rc == CORE_OK && !(*l)->exam)
        rc = core_err_set(err, CORE_ERR_USAGE, "lesson '%s' is not an exam", (*l)->id);
    return rc;
}

/* What an entry point does to the sitting before it is read back. */
typedef int (*exam_step)(struct lesson_session *s, const struct db_lesson *l, struct core_err *err);

static int step_start(struct lesson_session *s, const struct db_lesson *l, struct core_err *err)
{
    struct db_pack pk = {0};
    struct db_exam x = {0};
    int rc = db_pack_get(s->db, l->pack_id, &pk, err);
    if (rc == CORE_OK)
        rc = db_exam_start(s->db, s->user_id, l->pack_id, l->id, pk.rev_id, l->time_limit_s, &x,
                           err);
    db_exam_fini(&x);
    db_pack_fini(&pk);
    return rc;
}

static int step_submit(struct lesson_session *s, const struct db_lesson *l, struct core_err *err)
{
    struct db_exam x = {0};
    int rc = db_exam_get(s->db, s->user_id, l->pack_id, l->id, &x, err);
    if (rc == CORE_ERR_NOTFOUND)
        rc = core_err_set(err, CORE_ERR_CONFLICT,
                          "the exam '%s' has not been started: nothing to submit", l->id);
    else if (rc == CORE_OK && x.over)
        rc = core_err_set(err, CORE_ERR_CONFLICT, "the exam '%s' is already %s", l->id,
                          x.submitted_at ? "submitted" : "over (its time ran out)");
    if (rc == CORE_OK)
        rc = db_exam_submit(s->db, s->user_id, l->pack_id, l->id, NULL, err);
    db_exam_fini(&x);
    return rc;
}

/* Finds the exam lesson, runs step (none: status only), reads the sitting. */
static int exam_do(struct lesson_session *s, const char *lesson, exam_step step,
                   struct lesson_exam *out, struct core_err *err)
{
    memset(out, 0, sizeof *out);
    struct db_lesson *l = NULL;
    int rc = exam_lesson(s, lesson, &l, err);
    if (rc == CORE_OK && step)
        rc = step(s, l, err);
    if (rc == CORE_OK)
        rc = fill(s, l, out, err);
    db_lessons_free(l, l ? 1 : 0);
    if (rc != CORE_OK)
        lesson_exam_fini(out);
    return rc;
}

int lesson_exam_status(struct lesson_session *s, const char *lesson, struct lesson_exam *out,
                       struct core_err *err)
{
    return exam_do(s, lesson, NULL, out, err);
}

int lesson_exam_start(struct lesson_session *s, const char *lesson, struct lesson_exam *out,
                      struct core_err *err)
{
    return exam_do(s, lesson, step_start, out, err);
}

int lesson_exam_submit(struct lesson_session *s, const char *lesson, struct lesson_exam *out,
                       struct core_err *err)
{
    return exam_do(s, lesson, step_submit, out, err);
}
