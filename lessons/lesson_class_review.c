/*
 * lesson_class_review.c — the review queue: each design answer of the
 * class beside its rubric (from the instructor's pack), the automatic score
 * and the student's self-scores; a person's score per rubric concept and a
 * comment, which then count instead of the automatic score.
 */
#include "lessons/lesson_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void item_fini(struct lesson_review_item *r)
{
    free(r->key);
    free(r->user);
    free(r->pack_id);
    free(r->question_id);
    free(r->title);
    free(r->prompt);
    free(r->answer);
    free(r->auto_feedback);
    for (size_t k = 0; k < r->n_concepts; k++)
        free(r->concepts[k].label);
    free(r->concepts);
    free(r->rv_comment);
    free(r->rv_reviewer);
    free(r->rv_at);
    memset(r, 0, sizeof *r);
}

void lesson_review_items_free(struct lesson_review_item *it, size_t n)
{
    if (!it)
        return;
    for (size_t i = 0; i < n; i++)
        item_fini(&it[i]);
    free(it);
}

/* The instructor's current revision of pack_id, loaded through the session. */
static int pack_of(struct lesson_session *s, const char *pack_id, struct grader_pack **gp,
                   struct core_err *err)
{
    struct db_pack pk;
    int rc = db_pack_get(s->db, pack_id, &pk, err);
    if (rc == CORE_OK)
        rc = lesson_session_pack(s, pk.rev_id, gp, err);
    db_pack_fini(&pk);
    return rc;
}

/* Fills *it from class attempt a: the question as the instructor's pack
 * shows it to this student (prompt, rubric), the grades and the scores.
 * On error *it is left empty. */
static int fill_item(struct db *cs, const struct db_class_attempt *a,
                     const struct db_class_student *who, struct grader_pack *gp,
                     struct lesson_review_item *it, struct core_err *err)
{
    memset(it, 0, sizeof *it);
    const struct grader_question *gq = grader_pack_question(gp, a->question_id);
    struct grader_ctx ctx = {
        .user = who->user, .variant = a->variant, .params_json = a->params_json};
    struct grader_view v;
    int rc = grader_question_view(gp, a->question_id, &ctx, &v, err);
    if (rc != CORE_OK)
        return rc;
    it->attempt = a->id;
    it->key = core_xstrdup(who->key);
    it->user = core_xstrdup(who->user);
    it->pack_id = core_xstrdup(a->pack_id);
    it->question_id = core_xstrdup(a->question_id);
    it->title = gq && gq->title ? core_xstrdup(gq->title) : NULL;
    it->prompt = v.prompt;
    v.prompt = NULL;
    it->variant = a->variant;
    it->answer = core_xstrdup(a->answer);
    it->points = gq ? gq->points : a->max;
    it->auto_valid = a->graded && a->valid;
    it->auto_score = a->score;
    it->auto_feedback = a->feedback ? core_xstrdup(a->feedback) : NULL;
    it->sealed = a->sealed;
    it->n_concepts = v.n_rubric;
    it->concepts = core_xcalloc(v.n_rubric ? v.n_rubric : 1, sizeof *it->concepts);
    for (size_t k = 0; k < v.n_rubric; k++)
        it->concepts[k] = (struct lesson_review_concept){
            core_xstrdup(v.rubric[k]), v.rubric_points ? v.rubric_points[k] : 1, NAN, NAN};
    grader_view_fini(&v);
    struct db_selfscore *self = NULL;
    size_t n_self = 0;
    rc = db_class_selfscores(cs, a->id, &self, &n_self, err);
    if (rc != CORE_OK) {
        item_fini(it);
        return rc;
    }
    for (size_t i = 0; i < n_self; i++) {
        it->has_self = true;
        it->self_total += self[i].score;
        it->self_max += self[i].max;
        for (size_t k = 0; k < it->n_concepts; k++)
            if (strcmp(it->concepts[k].label, self[i].concept) == 0)
                it->concepts[k].self = self[i].score;
    }
    db_selfscores_free(self, n_self);
    if (!a->reviewed)
        return CORE_OK;
    struct db_class_review rv;
    rc = db_class_review_get(cs, a->id, &rv, err);
    if (rc != CORE_OK) {
        item_fini(it);
        return rc;
    }
    it->reviewed = true;
    it->rv_score = rv.score;
    it->rv_comment = rv.comment;
    it->rv_reviewer = rv.reviewer;
    it->rv_at = rv.created_at;
    rv.comment = rv.reviewer = rv.created_at = NULL;
    for (size_t i = 0; i < rv.n_scores; i++)
        for (size_t k = 0; k < it->n_concepts; k++)
            if (strcmp(it->concepts[k].label, rv.scores[i].concept) == 0)
                it->concepts[k].reviewed = rv.scores[i].score;
    db_class_review_fini(&rv);
    return CORE_OK;
}

static const struct db_class_student *who_of(const struct db_class_student *st, size_t n,
                                             int64_t id)
{
    for (size_t i = 0; i < n; i++)
        if (st[i].id == id)
            return &st[i];
    return NULL;
}

static int by_question(const void *a, const void *b)
{
    const struct lesson_review_item *x = a, *y = b;
    int c = strcmp(x->pack_id, y->pack_id);
    if (!c)
        c = strcmp(x->question_id, y->question_id);
    if (!c)
        c = strcmp(x->key, y->key);
    return c ? c : (x->attempt < y->attempt ? -1 : x->attempt > y->attempt);
}

int lesson_review_list(struct lesson_session *s, struct db *cs, const char *pack_id,
                       const char *question_id, bool all, struct lesson_review_item **out,
                       size_t *n, struct core_err *err)
{
    *out = NULL;
    *n = 0;
    struct db_class_attempt *att = NULL;
    struct db_class_student *st = NULL;
    size_t na = 0, ns = 0, ni = 0;
    struct lesson_review_item *items = NULL;
    char *cur_pack = NULL;
    struct grader_pack *gp = NULL;
    int rc = db_class_attempt_list(cs, pack_id, question_id, 0, &att, &na, err);
    if (rc == CORE_OK)
        rc = db_class_students(cs, &st, &ns, err);
    if (rc != CORE_OK)
        goto out;
    items = core_xcalloc(na ? na : 1, sizeof *items);
    for (size_t i = 0; i < na && rc == CORE_OK; i++) {
        const struct db_class_attempt *a = &att[i];
        if (!a->graded || !a->valid || a->after_giveup || (a->reviewed && !all))
            continue;
        if (!cur_pack || strcmp(cur_pack, a->pack_id) != 0) {
            free(cur_pack);
            cur_pack = core_xstrdup(a->pack_id);
            if (pack_of(s, a->pack_id, &gp, NULL) != CORE_OK)
                gp = NULL;
        }
        const struct grader_question *gq = gp ? grader_pack_question(gp, a->question_id) : NULL;
        const struct db_class_student *who = who_of(st, ns, a->student);
        if (!gq || gq->kind != GRADER_DESIGN || !who)
            continue;
        rc = fill_item(cs, a, who, gp, &items[ni], err);
        if (rc == CORE_OK)
            ni++;
    }
    if (rc != CORE_OK)
        goto out;
    /* A later readable answer of the same student to the same question
     * supersedes an earlier one (attempts come by student and question,
     * in order). */
    for (size_t i = 0; i < ni; i++)
        for (size_t k = 0; k < na; k++) {
            const struct db_class_attempt *b = &att[k];
            if (b->graded && b->valid && !b->after_giveup && b->src_id > 0 &&
                strcmp(b->pack_id, items[i].pack_id) == 0 &&
                strcmp(b->question_id, items[i].question_id) == 0 && b->id > items[i].attempt) {
                const struct db_class_student *who = who_of(st, ns, b->student);
                if (who && strcmp(who->key, items[i].key) == 0)
                    items[i].superseded_by = b->id;
            }
        }
    qsort(items, ni, sizeof *items, by_question);
    *out = items;
    *n = ni;
    items = NULL;
out:
    lesson_review_items_free(items, ni);
    free(cur_pack);
    db_class_attempts_free(att, na);
    db_class_students_free(st, ns);
    return rc;
}

int lesson_review_read(struct lesson_session *s, struct db *cs, int64_t attempt,
                       struct grader_result *r, struct core_err *err)
{
    memset(r, 0, sizeof *r);
    struct db_class_attempt a;
    struct db_class_student *st = NULL;
    size_t ns = 0;
    struct grader_pack *gp = NULL;
    int rc = db_class_attempt_get(cs, attempt, &a, err);
    if (rc != CORE_OK)
        return rc;
    rc = db_class_students(cs, &st, &ns, err);
    if (rc == CORE_OK)
        rc = pack_of(s, a.pack_id, &gp, err);
    if (rc != CORE_OK)
        goto out;
    const struct grader_question *gq = grader_pack_question(gp, a.question_id);
    if (!gq || gq->kind != GRADER_DESIGN) {
        rc = core_err_set(err, CORE_ERR_USAGE, "attempt %lld (%s:%s) is not a design answer",
                          (long long)attempt, a.pack_id, a.question_id);
        goto out;
    }
    /* the numbers recorded with the attempt make the variant (as for its
     * view in fill_item); the user only names it */
    const struct db_class_student *who = who_of(st, ns, a.student);
    struct grader_ctx ctx = {
        .user = who ? who->user : "", .variant = a.variant, .params_json = a.params_json};
    rc = grader_question_grade(gp, a.question_id, &ctx, a.answer, r, err);
out:
    db_class_attempt_fini(&a);
    db_class_students_free(st, ns);
    return rc;
}

/* The concept scores of a review: every rubric concept, 0 where none is
 * given; checks what is given. */
static int concept_scores(const struct lesson_review_item *it, const struct db_class_attempt *a,
                          const struct lesson_review_score *scores, size_t n_scores,
                          struct db_selfscore_in *in, struct core_err *err)
{
    for (size_t k = 0; k < it->n_concepts; k++)
        in[k] = (struct db_selfscore_in){it->concepts[k].label, 0, it->concepts[k].points};
    for (size_t i = 0; i < n_scores; i++) {
        size_t k = 0;
        while (k < it->n_concepts && strcmp(it->concepts[k].label, scores[i].concept) != 0)
            k++;
        if (k == it->n_concepts) {
            struct core_buf b;
            core_buf_init(&b);
            for (size_t j = 0; j < it->n_concepts; j++)
                core_buf_printf(&b, "%s'%s'", j ? ", " : "", it->concepts[j].label);
            int rc = core_err_set(err, CORE_ERR_USAGE,
                                  "'%s' is not a rubric concept of %s:%s "
                                  "(they are %s)",
                                  scores[i].concept, a->pack_id, a->question_id, b.data);
            core_buf_fini(&b);
            return rc;
        }
        for (size_t j = 0; j < i; j++)
            if (strcmp(scores[j].concept, scores[i].concept) == 0)
                return core_err_set(err, CORE_ERR_USAGE, "'%s' is scored twice", scores[i].concept);
        if (!(scores[i].score >= 0 && scores[i].score <= it->concepts[k].points))
            return core_err_set(err, CORE_ERR_USAGE, "'%s' is scored from 0 to %g, not %g",
                                scores[i].concept, it->concepts[k].points, scores[i].score);
        in[k].score = scores[i].score;
    }
    return CORE_OK;
}

int lesson_review_set(struct lesson_session *s, struct db *cs, int64_t attempt,
                      const struct lesson_review_score *scores, size_t n_scores,
                      const char *comment, const char *reviewer, struct lesson_review_item **item,
                      struct core_err *err)
{
    if (item)
        *item = NULL;
    struct db_class_attempt a;
    struct db_class_student *st = NULL;
    size_t ns = 0;
    struct lesson_review_item it = {0};
    struct db_selfscore_in *in = NULL;
    struct grader_pack *gp = NULL;
    int rc = db_class_attempt_get(cs, attempt, &a, err);
    if (rc != CORE_OK)
        return rc;
    rc = db_class_students(cs, &st, &ns, err);
    if (rc == CORE_OK)
        rc = pack_of(s, a.pack_id, &gp, err);
    if (rc != CORE_OK)
        goto out;
    const struct grader_question *gq = grader_pack_question(gp, a.question_id);
    const struct db_class_student *who = who_of(st, ns, a.student);
    if (!gq || gq->kind != GRADER_DESIGN) {
        rc = core_err_set(err, CORE_ERR_USAGE, "attempt %lld (%s:%s) is not a design answer",
                          (long long)attempt, a.pack_id, a.question_id);
        goto out;
    }
    if (!who) {
        rc = core_err_set(err, CORE_ERR_USAGE,
                          "attempt %lld belongs to a submission that no longer counts (the "
                          "student submitted again): review their current one",
                          (long long)attempt);
        goto out;
    }
    rc = fill_item(cs, &a, who, gp, &it, err);
    if (rc != CORE_OK)
        goto out;
    if (it.n_concepts == 0) {
        rc = core_err_set(err, CORE_ERR_USAGE, "%s:%s has no rubric concepts to score", a.pack_id,
                          a.question_id);
        goto out;
    }
    in = core_xcalloc(it.n_concepts, sizeof *in);
    rc = concept_scores(&it, &a, scores, n_scores, in, err);
    if (rc != CORE_OK)
        goto out;
    double total = 0, max = 0;
    for (size_t k = 0; k < it.n_concepts; k++) {
        total += in[k].score;
        max += in[k].max;
    }
    double points = it.points > 0 ? it.points : 1;
    struct db_class_review_in rv = {.attempt = attempt,
                                    .scores = in,
                                    .n_scores = it.n_concepts,
                                    .score = max > 0 ? points * total / max : 0,
                                    .max = points,
                                    .comment = comment ? comment : "",
                                    .reviewer = reviewer};
    rc = db_class_review_add(cs, &rv, NULL, err);
    if (rc == CORE_OK && item) { /* read back as stored */
        struct db_class_attempt b;
        rc = db_class_attempt_get(cs, attempt, &b, err);
        if (rc == CORE_OK) {
            *item = core_xcalloc(1, sizeof **item);
            rc = fill_item(cs, &b, who, gp, *item, err);
            if (rc != CORE_OK) {
                free(*item);
                *item = NULL;
            }
        }
        db_class_attempt_fini(&b);
    }
out:
    free(in);
    item_fini(&it);
    db_class_attempt_fini(&a);
    db_class_students_free(st, ns);
    return rc;
}
