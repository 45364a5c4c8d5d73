/* lesson_mistakes.c — the student's mistakes review: every question whose
 * latest word is a wrong (or partly right) answer, a give-up, or a miss in
 * a submitted exam, newest first, with what went wrong and the variant to
 * try it again on.
 *
 * A question's events are its readable attempts (as they count: an
 * instructor's review, else the latest re-grade) and its give-ups, in the
 * order they were stored (a give-up after the attempts it saw, by its
 * last_attempt). The latest decides: a right answer clears the question,
 * the history keeps the rest. An exam's answers count once it is over; a
 * question of a submitted exam that was never answered is a miss too.
 * Graded work of a class (sealed) has no grade here and is left out.
 *
 * Uses db (attempts, give-ups, questions, exam sittings) and the session's
 * pack cache (whether a question draws new numbers). */
#include "lessons/lesson_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void lesson_mistakes_free(struct lesson_mistake *m, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(m[i].pack_id);
        free(m[i].lesson_id);
        free(m[i].question_id);
        free(m[i].title);
        free(m[i].lesson_title);
        free(m[i].when);
        free(m[i].answer);
        free(m[i].what);
    }
    free(m);
}

const char *lesson_mistake_kind_name(enum lesson_mistake_kind k)
{
    switch (k) {
    case LESSON_MISTAKE_WRONG:
        return "wrong";
    case LESSON_MISTAKE_PARTLY:
        return "partly";
    case LESSON_MISTAKE_GAVE_UP:
        return "gave_up";
    case LESSON_MISTAKE_EXAM:
        return "exam";
    }
    return "wrong";
}

/* One line of feedback: the first line, at most 160 bytes (cut at a UTF-8
 * boundary, "..." added). */
static char *one_line(const char *s)
{
    if (!s)
        return NULL;
    size_t n = strcspn(s, "\n");
    bool cut = n > 160 || s[n];
    if (n > 160) {
        n = 160;
        while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
            n--;
    }
    return core_xasprintf("%.*s%s", (int)n, s, cut && n < strlen(s) ? "..." : "");
}

struct qstate {
    const struct db_question *q;
    const struct db_attempt *last;  /* the latest readable attempt */
    const struct db_giveup *giveup; /* the latest give-up */
    int64_t order;                  /* the latest event's place: attempt id, give-up's last */
    bool giveup_last;               /* the give-up came after the latest attempt */
    int highest;                    /* the highest variant answered or given up on */
    const struct db_attempt *exam;  /* the exam's answer (its first readable one) */
};

/* The index of question pack:qid in qs, nq when none. Questions are few
 * (hundreds): a linear find per event is cheap. */
static size_t find_q(const struct db_question *qs, size_t nq, const char *pack, const char *qid)
{
    size_t k = 0;
    while (k < nq && !(strcmp(qs[k].pack_id, pack) == 0 && strcmp(qs[k].id, qid) == 0))
        k++;
    return k;
}

static double counted_score(const struct db_attempt *a, double *max, bool *valid)
{
    *max = a->reviewed ? a->rv_max : a->regraded ? a->rg_max : a->max;
    *valid = a->reviewed || (a->regraded ? a->rg_valid : a->valid);
    return a->reviewed ? a->rv_score : a->regraded ? a->rg_score : a->score;
}

int lesson_mistakes_load(struct lesson_session *s, const char *pack_id, bool all,
                         struct lesson_mistake **out, size_t *n, struct core_err *err)
{
    *out = NULL;
    *n = 0;
    struct db *db = s->db;
    struct db_question *qs = NULL;
    struct db_attempt *at = NULL;
    struct db_giveup *gs = NULL;
    struct db_lesson *ls = NULL;
    size_t nq = 0, na = 0, ng = 0, nl = 0;
    struct qstate *st = NULL;
    int rc = db_question_list(db, pack_id, NULL, &qs, &nq, err);
    if (rc == CORE_OK)
        rc = db_attempt_list(db, s->user_id, pack_id, NULL, &at, &na, err);
    if (rc == CORE_OK)
        rc = db_giveup_list(db, s->user_id, pack_id, NULL, &gs, &ng, err);
    if (rc == CORE_OK)
        rc = db_lesson_list(db, pack_id, &ls, &nl, err);
    if (rc != CORE_OK)
        goto out;
    st = core_xcalloc(nq ? nq : 1, sizeof *st);
    for (size_t i = 0; i < nq; i++)
        st[i] = (struct qstate){.q = &qs[i], .highest = 1};
    for (size_t i = 0; i < na; i++) {
        double mx;
        bool valid;
        counted_score(&at[i], &mx, &valid);
        if (!valid)
            continue;
        size_t k = find_q(qs, nq, at[i].pack_id, at[i].question_id);
        if (k == nq)
            continue; /* a question no longer in the pack */
        struct qstate *q = &st[k];
        if (!q->exam && q->q->exam)
            q->exam = &at[i];
        if (at[i].variant > q->highest)
            q->highest = at[i].variant;
        if (at[i].id >= q->order) {
            q->last = &at[i];
            q->order = at[i].id;
            q->giveup_last = false;
        }
    }
    for (size_t i = 0; i < ng; i++) {
        size_t k = find_q(qs, nq, gs[i].pack_id, gs[i].question_id);
        if (k == nq)
            continue;
        struct qstate *q = &st[k];
        if (gs[i].variant > q->highest)
            q->highest = gs[i].variant;
        /* after every attempt it saw (ids up to last_attempt) */
        if (gs[i].last_attempt >= q->order) {
            q->giveup = &gs[i];
            q->order = gs[i].last_attempt;
            q->giveup_last = true;
        }
    }
    /* Exam sittings, per exam lesson once. */
    bool *over = core_xcalloc(nl ? nl : 1, sizeof *over);
    char **done_at = core_xcalloc(nl ? nl : 1, sizeof *done_at);
    for (size_t l = 0; l < nl; l++) {
        if (!ls[l].exam)
            continue;
        struct db_exam x;
        struct core_err e2 = {0};
        if (db_exam_get(db, s->user_id, ls[l].pack_id, ls[l].id, &x, &e2) == CORE_OK) {
            over[l] = x.over;
            done_at[l] = core_xstrdup(x.submitted_at ? x.submitted_at
                                      : x.deadline   ? x.deadline
                                                     : x.started_at);
            db_exam_fini(&x);
        }
    }
    for (size_t i = 0; i < nq; i++) {
        struct qstate *q = &st[i];
        const struct db_question *dq = q->q;
        if (dq->sealed)
            continue;
        size_t l = 0;
        while (l < nl &&
               !(strcmp(ls[l].pack_id, dq->pack_id) == 0 && strcmp(ls[l].id, dq->lesson_id) == 0))
            l++;
        if (dq->exam && !(l < nl && over[l]))
            continue; /* not graded yet: nothing to review */
        struct lesson_mistake m = {0};
        bool cleared = false;
        if (q->giveup_last && q->giveup) {
            m.kind = LESSON_MISTAKE_GAVE_UP;
            m.when = core_xstrdup(q->giveup->created_at ? q->giveup->created_at : "");
            m.what = core_xstrdup("gave up: the solution was shown");
            m.variant = q->giveup->variant;
        } else if (q->last) {
            double mx;
            bool valid;
            double sc = counted_score(q->last, &mx, &valid);
            cleared = mx > 0 && sc >= mx - 1e-9;
            bool in_exam = dq->exam && q->exam == q->last;
            m.kind = in_exam      ? LESSON_MISTAKE_EXAM
                     : sc > 1e-12 ? LESSON_MISTAKE_PARTLY
                                  : LESSON_MISTAKE_WRONG;
            m.when = core_xstrdup(q->last->created_at ? q->last->created_at : "");
            m.answer = core_xstrdup(q->last->answer ? q->last->answer : "");
            const char *fb = q->last->reviewed && q->last->rv_comment    ? q->last->rv_comment
                             : q->last->regraded && q->last->rg_feedback ? q->last->rg_feedback
                                                                         : q->last->feedback;
            m.what = one_line(fb && fb[0] ? fb : "not right");
            m.variant = q->last->variant;
            m.score = sc;
            m.max = mx;
        } else if (dq->exam) {
            m.kind = LESSON_MISTAKE_EXAM;
            m.when = core_xstrdup(done_at[l] ? done_at[l] : "");
            m.what = core_xstrdup("not answered in the exam");
            m.variant = 1;
            m.max = dq->points;
        } else {
            continue; /* never tried */
        }
        if (cleared && !all) {
            free(m.when);
            free(m.answer);
            free(m.what);
            continue;
        }
        m.cleared = cleared;
        m.pack_id = core_xstrdup(dq->pack_id);
        m.lesson_id = core_xstrdup(dq->lesson_id);
        m.question_id = core_xstrdup(dq->id);
        m.title = core_xstrdup(dq->title ? dq->title : dq->id);
        m.lesson_title = core_xstrdup(l < nl && ls[l].title ? ls[l].title : dq->lesson_id);
        m.points = dq->points;
        m.exam = dq->exam;
        /* Where to try again: new numbers when the question draws them. */
        struct grader_pack *p = NULL;
        const struct grader_question *gq = NULL;
        struct core_err e2 = {0};
        if (lesson_session_pack(s, dq->rev_id, &p, &e2) == CORE_OK)
            gq = grader_pack_question(p, dq->id);
        m.has_params = gq && gq->has_params;
        m.retry_variant = m.has_params ? q->highest + 1 : 1;
        *out = core_xrealloc(*out, (*n + 1) * sizeof **out);
        (*out)[(*n)++] = m;
    }
    for (size_t l = 0; l < nl; l++)
        free(done_at[l]);
    free(done_at);
    free(over);
    /* Newest first (ISO-8601 UTC sorts as text); ties in course order. */
    for (size_t i = 1; i < *n; i++) {
        struct lesson_mistake t = (*out)[i];
        size_t j = i;
        while (j > 0 && strcmp((*out)[j - 1].when, t.when) < 0) {
            (*out)[j] = (*out)[j - 1];
            j--;
        }
        (*out)[j] = t;
    }
out:
    free(st);
    db_questions_free(qs, nq);
    db_attempts_free(at, na);
    db_giveups_free(gs, ng);
    db_lessons_free(ls, nl);
    if (rc != CORE_OK) {
        lesson_mistakes_free(*out, *n);
        *out = NULL;
        *n = 0;
    }
    return rc;
}
