/* lesson_session.c — one user's study session: renders and grades questions
 * from the sources stored with each pack revision, applies the attempt
 * policy and exam mode, and records every attempt with what it was graded
 * against. Loaded pack revisions are cached, since loading evaluates every
 * file of the pack in the sandbox. Re-grading is in lesson_regrade.c,
 * exam sittings in lesson_exam.c. */
#include "lessons/lesson_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(DB_ANSWER_MAX == GRADER_MAX_ANSWER,
               "a store keeps every answer a question may grade");

struct cached_pack {
    int64_t rev_id;
    struct grader_pack *pack;
};

int lesson_session_new(struct lesson_session **out, struct db *db, const char *user,
                       struct core_err *err)
{
    *out = NULL;
    int64_t id;
    int rc = db_user_ensure(db, user, &id, err);
    if (rc != CORE_OK)
        return rc;
    struct lesson_session *s = core_xcalloc(1, sizeof *s);
    s->db = db;
    s->user = core_xstrdup(user);
    s->user_id = id;
    *out = s;
    return CORE_OK;
}

void lesson_session_free(struct lesson_session *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n_cache; i++)
        grader_pack_free(s->cache[i].pack);
    free(s->cache);
    free(s->user);
    free(s);
}

int64_t lesson_session_user_id(const struct lesson_session *s)
{
    return s->user_id;
}

int lesson_session_pack(struct lesson_session *s, int64_t rev_id, struct grader_pack **out,
                        struct core_err *err)
{
    *out = NULL;
    for (size_t i = 0; i < s->n_cache; i++) {
        if (s->cache[i].rev_id == rev_id) {
            *out = s->cache[i].pack;
            return CORE_OK;
        }
    }
    struct db_file *files = NULL;
    size_t n = 0;
    int rc = db_pack_files(s->db, rev_id, &files, &n, err);
    if (rc != CORE_OK)
        return rc;
    struct grader_file *gf = core_xcalloc(n ? n : 1, sizeof *gf);
    for (size_t i = 0; i < n; i++)
        gf[i] = (struct grader_file){files[i].path, files[i].data, files[i].len};
    struct grader_limits lim;
    grader_limits_default(&lim);
    struct grader_pack *p = NULL;
    rc = grader_pack_open(&p, gf, n, &lim, err);
    free(gf);
    db_files_free(files, n);
    if (rc != CORE_OK) {
        core_err_prefix(err, "stored pack revision %lld", (long long)rev_id);
        return rc;
    }
    s->cache = core_xrealloc(s->cache, (s->n_cache + 1) * sizeof *s->cache);
    s->cache[s->n_cache++] = (struct cached_pack){rev_id, p};
    *out = p;
    return CORE_OK;
}

void lesson_question_view_fini(struct lesson_question_view *v)
{
    db_question_fini(&v->q);
    grader_view_fini(&v->v);
    memset(v, 0, sizeof *v);
}

void lesson_link_fini(struct lesson_link *l)
{
    db_labrun_fini(&l->row);
    core_kv_free(l->params, l->n_params);
    core_kv_free(l->summary, l->n_summary);
    free(l->gparams);
    free(l->gsummary);
    memset(l, 0, sizeof *l);
}

static struct grader_kv *to_grader_kv(const struct core_kv *kv, size_t n)
{
    struct grader_kv *g = core_xcalloc(n ? n : 1, sizeof *g);
    for (size_t i = 0; i < n; i++)
        g[i] = (struct grader_kv){kv[i].key, kv[i].str, kv[i].num, kv[i].is_num};
    return g;
}

int lesson_ctx_make(struct lesson_session *s, int64_t user_id, const char *user, int variant,
                    const char *lab, const char *before, struct lesson_link *link,
                    struct grader_ctx *ctx, struct core_err *err)
{
    memset(link, 0, sizeof *link);
    *ctx = (struct grader_ctx){.user = user, .variant = variant};
    if (!lab || !*lab)
        return CORE_OK;
    struct core_err e = {0};
    int rc = before ? db_labrun_latest_before(s->db, user_id, lab, before, &link->row, &e)
                    : db_labrun_latest(s->db, user_id, lab, &link->row, &e);
    if (rc == CORE_ERR_NOTFOUND)
        return CORE_OK;
    if (rc == CORE_OK &&
        (core_json_parse_flat(link->row.params_json, &link->params, &link->n_params, &e) !=
             CORE_OK ||
         core_json_parse_flat(link->row.summary_json ? link->row.summary_json : "{}",
                              &link->summary, &link->n_summary, &e) != CORE_OK)) {
        rc = core_err_prefix(&e, "stored lab run %lld", (long long)link->row.id);
    }
    if (rc != CORE_OK) {
        if (err)
            *err = e;
        return rc;
    }
    link->gparams = to_grader_kv(link->params, link->n_params);
    link->gsummary = to_grader_kv(link->summary, link->n_summary);
    link->run = (struct grader_lab_run){.id = link->row.id,
                                        .lab = link->row.lab,
                                        .finished_at = link->row.ended_at,
                                        .params = link->gparams,
                                        .n_params = link->n_params,
                                        .summary = link->gsummary,
                                        .n_summary = link->n_summary};
    ctx->lab = &link->run;
    return CORE_OK;
}

/* A "no question" error gains "did you mean ID?" when a question of the
 * current packs is a likely typo of qid. */
static void suggest_question(struct db *db, const char *qid, struct core_err *err)
{
    const char *colon = qid ? strchr(qid, ':') : NULL;
    const char *bare = colon ? colon + 1 : qid;
    struct db_question *qs = NULL;
    size_t n = 0;
    struct core_err e2 = {0};
    if (!bare || db_question_list(db, NULL, NULL, &qs, &n, &e2) != CORE_OK)
        return;
    const char **names = core_xcalloc(n ? n : 1, sizeof *names);
    for (size_t i = 0; i < n; i++)
        names[i] = qs[i].id;
    const char *best = core_str_closest(bare, names, n);
    if (best && strcmp(best, bare) != 0) {
        char was[sizeof err->msg];
        memcpy(was, err->msg, sizeof was);
        core_err_set(err, CORE_ERR_NOTFOUND, "%s; did you mean %s?", was, best);
    }
    free(names);
    db_questions_free(qs, n);
}

int lesson_question_and_pack(struct lesson_session *s, const char *qid, struct db_question *q,
                             struct grader_pack **p, struct core_err *err)
{
    int rc = db_question_find(s->db, qid, q, err);
    if (rc == CORE_ERR_NOTFOUND && err)
        suggest_question(s->db, qid, err);
    if (rc == CORE_OK)
        rc = lesson_session_pack(s, q->rev_id, p, err);
    return rc;
}

int lesson_question_tries(struct lesson_session *s, const char *pack_id, const char *qid,
                          const struct grader_policy *p, struct lesson_tries *out,
                          struct core_err *err)
{
    memset(out, 0, sizeof *out);
    double *fracs;
    int n, credited;
    bool gave_up;
    int rc =
        db_attempt_tries(s->db, s->user_id, pack_id, qid, &fracs, &n, &credited, &gave_up, err);
    if (rc == CORE_OK)
        lesson_policy_apply(p, fracs, n, credited, gave_up, out);
    free(fracs);
    return rc;
}

int lesson_exam_state(struct lesson_session *s, const struct db_question *q, bool *open, bool *over,
                      struct core_err *err)
{
    *open = *over = false;
    if (!q->exam)
        return CORE_OK;
    struct db_exam x;
    int rc = db_exam_get(s->db, s->user_id, q->pack_id, q->lesson_id, &x, err);
    if (rc == CORE_ERR_NOTFOUND)
        return CORE_OK;
    if (rc == CORE_OK) {
        *over = x.over;
        *open = !x.over;
    }
    db_exam_fini(&x);
    return rc;
}

static void policy_of(const struct db_question *q, struct grader_policy *p)
{
    lesson_policy_of(q->tries, q->penalty, q->per_try, p);
}

int lesson_variant_use(struct lesson_session *s, const char *pack_id, const char *qid, int variant,
                       bool *used, int *highest, struct core_err *err)
{
    bool u = false;
    int h = 1;
    int rc = db_attempt_variant_use(s->db, s->user_id, pack_id, qid, variant, &u, &h, err);
    if (used)
        *used = rc == CORE_OK && u;
    if (highest)
        *highest = rc == CORE_OK ? h : 1;
    return rc;
}

/* An exam question's numbers are fixed for the student, as graded work's
 * are (lesson_sealed_ctx): until the exam is over, only variant 1. */
static int exam_variant(const struct db_question *q, int variant, bool over, struct core_err *err)
{
    if (q->exam && !over && variant != 1)
        return core_err_set(err, CORE_ERR_USAGE,
                            "%s is part of the exam '%s': its numbers are fixed for you, and "
                            "another variant is not offered (after you submit the exam, other "
                            "variants are practice)",
                            q->id, q->lesson_id);
    return CORE_OK;
}

int lesson_sealed_ctx(struct lesson_session *s, struct grader_pack *p, const struct db_question *q,
                      int variant, char *user, size_t n, struct core_err *err)
{
    if (variant != 1)
        return core_err_set(err, CORE_ERR_USAGE,
                            "%s is graded work of a class: its numbers are fixed for you, and "
                            "another variant is not offered",
                            q->id);
    char *sid = NULL;
    int rc = db_user_student_id(s->db, s->user_id, &sid, err);
    if (rc == CORE_OK && !sid)
        rc = core_err_set(err, CORE_ERR_USAGE,
                          "%s is graded work of a class: set your student id first "
                          "(warpbench init --student-id ID, with the id your instructor uses)",
                          q->id);
    if (rc == CORE_OK)
        lesson_sealed_user(grader_pack_info(p)->release_salt, sid, user, n);
    free(sid);
    return rc;
}

int lesson_question_show(struct lesson_session *s, const char *qid, int variant,
                         struct lesson_question_view *out, struct core_err *err)
{
    memset(out, 0, sizeof *out);
    if (variant < 1)
        return core_err_set(err, CORE_ERR_USAGE, "variant must be 1 or more, not %d", variant);
    struct grader_pack *p;
    int rc = lesson_question_and_pack(s, qid, &out->q, &p, err);
    if (rc != CORE_OK)
        goto fail;
    struct grader_ctx ctx;
    struct lesson_link link;
    char sealed_user[200];
    if (out->q.sealed) {
        rc = lesson_sealed_ctx(s, p, &out->q, variant, sealed_user, sizeof sealed_user, err);
        if (rc != CORE_OK)
            goto fail;
    }
    rc = lesson_exam_state(s, &out->q, &out->exam_open, &out->exam_over, err);
    if (rc == CORE_OK)
        rc = exam_variant(&out->q, variant, out->exam_over, err);
    if (rc != CORE_OK)
        goto fail;
    rc = lesson_ctx_make(s, s->user_id, out->q.sealed ? sealed_user : s->user, variant, out->q.lab,
                         NULL, &link, &ctx, err);
    if (rc == CORE_OK)
        rc = grader_question_view(p, out->q.id, &ctx, &out->v, err);
    lesson_link_fini(&link);
    if (rc == CORE_OK) {
        policy_of(&out->q, &out->policy);
        grader_policy_describe(&out->policy, out->policy_text, sizeof out->policy_text);
        rc = lesson_question_tries(s, out->q.pack_id, out->q.id, &out->policy, &out->tries, err);
    }
    bool used = false;
    if (rc == CORE_OK)
        rc = lesson_variant_use(s, out->q.pack_id, out->q.id, variant, &used, NULL, err);
    if (rc != CORE_OK)
        goto fail;
    out->exam = out->q.exam;
    out->sealed = out->q.sealed;
    if (out->exam && !out->exam_over) {
        /* No help before the exam is submitted: no hints, and no design
         * rubric (its concepts would tell what to write). */
        for (size_t i = 0; i < out->v.n_hints; i++)
            free(out->v.hints[i]);
        out->v.n_hints = 0;
        for (size_t i = 0; i < out->v.n_rubric; i++)
            free(out->v.rubric[i]);
        out->v.n_rubric = 0;
    }
    /* Done with graded answers (closed, given up, its exam over): the
     * solution belongs to the variants answered or given up on (and an
     * exam's own); another variant is practice, its solution hidden until
     * it is answered. */
    bool open_exam = out->exam && !out->exam_over; /* keeps everything until submitted */
    bool done =
        !out->sealed && !open_exam && (out->tries.closed || out->tries.gave_up || out->exam_over);
    bool own = out->exam_over && variant == 1;
    out->solution = done && (used || own);
    out->practice = done && (out->tries.closed || out->exam_over) && !used && !own;
    out->variant = variant;
    return CORE_OK;
fail:
    lesson_question_view_fini(out);
    return rc;
}

void lesson_answer_result_fini(struct lesson_answer_result *a)
{
    grader_result_fini(&a->r);
    free(a->pack_id);
    free(a->question_id);
    memset(a, 0, sizeof *a);
}

int lesson_answer(struct lesson_session *s, const char *qid, int variant, const char *answer,
                  struct lesson_answer_result *out, struct core_err *err)
{
    return lesson_answer_certain(s, qid, variant, answer, 0, out, err);
}

/* Certainty-based marking: a CBM pack needs a certainty with every answer,
 * any other pack refuses one. */
static int check_certainty(const struct grader_pack *p, const char *pack_id, int certainty,
                           struct core_err *err)
{
    bool cbm = grader_pack_info(p)->cbm;
    if (certainty < 0 || certainty > 3)
        return core_err_set(err, CORE_ERR_USAGE, "certainty must be 1, 2 or 3, not %d", certainty);
    if (cbm && certainty == 0)
        return core_err_set(err, CORE_ERR_USAGE,
                            "pack %s uses certainty-based marking: state how sure you are with "
                            "the answer (1 unsure, 2 fairly sure, 3 quite sure)",
                            pack_id);
    if (!cbm && certainty != 0)
        return core_err_set(err, CORE_ERR_USAGE,
                            "pack %s does not use certainty-based marking: answer without a "
                            "certainty",
                            pack_id);
    return CORE_OK;
}

int lesson_question_cbm(struct lesson_session *s, const char *qid, bool *cbm, struct core_err *err)
{
    *cbm = false;
    struct db_question q = {0};
    struct grader_pack *p;
    int rc = lesson_question_and_pack(s, qid, &q, &p, err);
    if (rc == CORE_OK)
        *cbm = grader_pack_info(p)->cbm;
    db_question_fini(&q);
    return rc;
}

int lesson_pack_cbm(struct lesson_session *s, const char *pack_id, bool *cbm, struct core_err *err)
{
    *cbm = false;
    struct db_pack pk = {0};
    int rc = db_pack_get(s->db, pack_id, &pk, err);
    struct grader_pack *p;
    if (rc == CORE_OK)
        rc = lesson_session_pack(s, pk.rev_id, &p, err);
    if (rc == CORE_OK)
        *cbm = grader_pack_info(p)->cbm;
    db_pack_fini(&pk);
    return rc;
}

int lesson_find(struct db *db, const char *ref, struct db_lesson **out, struct core_err *err)
{
    *out = NULL;
    struct db_lesson *all = NULL;
    size_t n = 0, hits = 0, hit = 0;
    int rc = db_lesson_list(db, NULL, &all, &n, err);
    if (rc != CORE_OK)
        return rc;
    const char *colon = strchr(ref, ':');
    for (size_t i = 0; i < n; i++) {
        const struct db_lesson *l = &all[i];
        bool match = colon ? (strncmp(l->pack_id, ref, (size_t)(colon - ref)) == 0 &&
                              l->pack_id[colon - ref] == '\0' && strcmp(l->id, colon + 1) == 0)
                           : strcmp(l->id, ref) == 0;
        if (match)
            hits++, hit = i;
    }
    if (hits == 0) {
        const char **names = core_xcalloc(n ? n : 1, sizeof *names);
        for (size_t i = 0; i < n; i++)
            names[i] = all[i].id;
        const char *best = core_str_closest(colon ? colon + 1 : ref, names, n);
        char hint[160] = "";
        if (best)
            snprintf(hint, sizeof hint, "; did you mean %s?", best);
        free(names);
        rc = core_err_set(err, CORE_ERR_NOTFOUND, "no lesson \"%s\"%s (see warpbench lessons)", ref,
                          hint);
    } else if (hits > 1) {
        rc = core_err_set(err, CORE_ERR_USAGE,
                          "lesson \"%s\" exists in several packs; write PACK:%s", ref, ref);
    } else {
        *out = core_xmalloc(sizeof **out);
        **out = all[hit];
        memset(&all[hit], 0, sizeof all[hit]); /* handed over */
    }
    db_lessons_free(all, n);
    return rc;
}

bool *lesson_progress_cbm(struct lesson_session *s, const struct db_progress_row *rows, size_t n)
{
    bool *cbm = core_xcalloc(n ? n : 1, sizeof *cbm);
    for (size_t i = 0; i < n; i++) {
        if (i > 0 && strcmp(rows[i].pack_id, rows[i - 1].pack_id) == 0) {
            cbm[i] = cbm[i - 1];
            continue;
        }
        bool any = false;
        for (size_t k = i; k < n && strcmp(rows[k].pack_id, rows[i].pack_id) == 0; k++)
            any = any || (rows[k].answered && rows[k].certainty > 0);
        struct core_err e = {0};
        if (any && lesson_pack_cbm(s, rows[i].pack_id, &cbm[i], &e) != CORE_OK)
            cbm[i] = false; /* cannot tell: the plain score only */
    }
    return cbm;
}

/* Checks the student's self-scores against the question's rubric as the
 * view shows it (concept labels and their points) and fills fixed[] with
 * the scores out of the rubric's own points. */
static int check_selfscores(struct grader_pack *p, const struct db_question *q,
                            const struct grader_ctx *ctx, const struct db_selfscore_in *self,
                            size_t n_self, struct db_selfscore_in *fixed, struct core_err *err)
{
    struct grader_view v;
    int rc = grader_question_view(p, q->id, ctx, &v, err);
    if (rc != CORE_OK)
        return rc;
    if (v.n_rubric == 0) {
        rc = core_err_set(err, CORE_ERR_USAGE,
                          "%s:%s has no rubric to score yourself on (only design questions do)",
                          q->pack_id, q->id);
        goto out;
    }
    for (size_t i = 0; i < n_self; i++) {
        size_t k = 0;
        while (k < v.n_rubric && !(self[i].concept && strcmp(v.rubric[k], self[i].concept) == 0))
            k++;
        if (k == v.n_rubric) {
            rc = core_err_set(err, CORE_ERR_USAGE, "%s:%s: '%s' is not one of its rubric concepts",
                              q->pack_id, q->id, self[i].concept ? self[i].concept : "");
            goto out;
        }
        double mx = v.rubric_points ? v.rubric_points[k] : 1;
        if (!(self[i].score >= 0 && self[i].score <= mx)) {
            rc = core_err_set(err, CORE_ERR_USAGE,
                              "%s:%s: a self-score for '%s' is from 0 to %g, not %g", q->pack_id,
                              q->id, self[i].concept, mx, self[i].score);
            goto out;
        }
        /* Borrowed from the caller, not from the view, which is freed. */
        fixed[i] = (struct db_selfscore_in){self[i].concept, self[i].score, mx};
    }
out:
    grader_view_fini(&v);
    return rc;
}

int lesson_answer_certain(struct lesson_session *s, const char *qid, int variant,
                          const char *answer, int certainty, struct lesson_answer_result *out,
                          struct core_err *err)
{
    return lesson_answer_design(s, qid, variant, answer, certainty, NULL, 0, out, err);
}

/* Whether question q takes another answer now: its tries, and its exam
 * (an untimed exam starts with its first answer; a timed one must be
 * started, so its clock is never a surprise). */
static int check_open(struct lesson_session *s, const struct db_question *q,
                      const struct grader_policy *pol, int variant, struct lesson_tries *before,
                      bool *practice, struct core_err *err)
{
    *practice = false;
    int rc = lesson_question_tries(s, q->pack_id, q->id, pol, before, err);
    if (rc != CORE_OK)
        return rc;
    bool used = true;
    if (!q->sealed && variant != 1)
        rc = lesson_variant_use(s, q->pack_id, q->id, variant, &used, NULL, err);
    if (rc != CORE_OK)
        return rc;
    if (q->exam) {
        struct db_exam x;
        rc = db_exam_get(s->db, s->user_id, q->pack_id, q->lesson_id, &x, err);
        if (rc == CORE_ERR_NOTFOUND && q->time_limit_s > 0) {
            char lim[32];
            lesson_duration_format(q->time_limit_s, lim, sizeof lim);
            return core_err_set(err, CORE_ERR_USAGE,
                                "%s is part of the timed exam '%s' (%s): start it first "
                                "(warpbench exam start %s)",
                                q->id, q->lesson_id, lim, q->lesson_id);
        }
        if (rc == CORE_ERR_NOTFOUND) {
            db_exam_fini(&x);
            rc = db_exam_start(s->db, s->user_id, q->pack_id, q->lesson_id, q->rev_id, 0, &x, err);
        }
        if (rc == CORE_OK)
            rc = exam_variant(q, variant, x.over, err);
        if (rc == CORE_OK && x.over && !used) {
            *practice = true; /* a new variant after the exam: practice */
            db_exam_fini(&x);
            return CORE_OK;
        }
        if (rc == CORE_OK && x.over)
            rc =
                core_err_set(err, CORE_ERR_CONFLICT,
                             "the exam '%s' is %s: it takes no more answers (a new variant is "
                             "practice: --variant %d)",
                             q->lesson_id, x.submitted_at ? "submitted" : "over (its time ran out)",
                             variant + 1);
        db_exam_fini(&x);
        if (rc != CORE_OK)
            return rc;
    }
    if (before->closed && !q->exam && !q->sealed && !used) {
        *practice = true; /* a variant not answered yet: practice, earning nothing */
        return CORE_OK;
    }
    if (before->closed && q->exam)
        return core_err_set(err, CORE_ERR_CONFLICT,
                            "you have answered %s: an exam takes one answer per question", q->id);
    if (before->closed && q->sealed)
        return core_err_set(err, CORE_ERR_CONFLICT,
                            "%s is closed: you have recorded its %d %s; your instructor grades "
                            "them",
                            q->id, before->limit, before->limit == 1 ? "try" : "tries");
    if (before->closed)
        return core_err_set(err, CORE_ERR_CONFLICT,
                            "%s is closed: you have used its %d %s (see its solution with "
                            "warpbench question %s)",
                            q->id, before->limit, before->limit == 1 ? "try" : "tries", q->id);
    return CORE_OK;
}

/* An exam answer is recorded with its grade but tells the student nothing
 * about it until the exam is submitted. */
static void withhold(struct grader_result *r)
{
    free(r->feedback);
    r->feedback = core_xstrdup("Recorded. Exam answers are graded when you submit the exam.");
    free(r->accepted);
    free(r->reference);
    r->accepted = r->reference = NULL;
    /* what a design answer's grader read tells its grade too */
    struct grader_result read = {.claims = r->claims, .n_claims = r->n_claims};
    grader_result_fini(&read);
    r->claims = NULL;
    r->n_claims = 0;
    r->score = 0;
    r->correct = false;
}

/* A sealed question's answer: checked for form, and recorded ungraded
 * when it reads (a slip is explained and recorded nowhere). Its policy and
 * exam were checked by the caller. */
static int answer_sealed(struct lesson_session *s, struct grader_pack *p,
                         const struct db_question *q, int variant, const char *answer,
                         int certainty, size_t n_self, struct lesson_answer_result *out,
                         struct core_err *err)
{
    if (n_self)
        return core_err_set(err, CORE_ERR_USAGE,
                            "%s is graded by your instructor: it has no rubric to score yourself "
                            "on",
                            q->id);
    char user[200];
    int rc = lesson_sealed_ctx(s, p, q, variant, user, sizeof user, err);
    struct grader_ctx ctx;
    struct lesson_link link;
    if (rc != CORE_OK)
        return rc;
    rc = lesson_ctx_make(s, s->user_id, user, 1, q->lab, NULL, &link, &ctx, err);
    if (rc == CORE_OK)
        rc = grader_question_record(p, q->id, &ctx, answer, &out->r, err);
    lesson_link_fini(&link);
    if (rc != CORE_OK)
        return rc;
    out->sealed = true;
    out->hidden = out->r.valid; /* a slip is explained as any answer is */
    out->pack_id = core_xstrdup(q->pack_id);
    out->question_id = core_xstrdup(q->id);
    out->variant = 1;
    if (!out->r.valid)
        return CORE_OK; /* explained: nothing recorded, no try used */
    struct grader_policy pol;
    policy_of(q, &pol);
    struct db_attempt_in in = {.user_id = s->user_id,
                               .pack_id = q->pack_id,
                               .question_id = q->id,
                               .variant = 1,
                               .answer = out->r.canonical,
                               .parsed = out->r.parsed,
                               .value = out->r.value,
                               .has_value = out->r.has_value,
                               .valid = true,
                               .score = 0,
                               .max = out->r.max,
                               .correct = false,
                               .feedback = "",
                               .rev_id = q->rev_id,
                               .certainty = certainty,
                               .params_json = out->r.params_json,
                               .grader_rev = grader_revision(),
                               .sealed = true,
                               .tries_limit = pol.tries};
    rc = db_attempt_insert(s->db, &in, &out->attempt_id, err);
    if (rc != CORE_OK)
        return rc;
    if (db_attempt_count(s->db, s->user_id, q->pack_id, q->id, &out->attempt_no, NULL) != CORE_OK)
        out->attempt_no = 0;
    grader_policy_describe(&pol, out->policy_text, sizeof out->policy_text);
    lesson_question_tries(s, q->pack_id, q->id, &pol, &out->tries, NULL);
    free(out->r.feedback);
    out->r.feedback = core_xstrdup("Recorded — graded by your instructor.");
    return CORE_OK;
}

int lesson_answer_design(struct lesson_session *s, const char *qid, int variant, const char *answer,
                         int certainty, const struct db_selfscore_in *self, size_t n_self,
                         struct lesson_answer_result *out, struct core_err *err)
{
    memset(out, 0, sizeof *out);
    struct db_selfscore_in *fixed = NULL;
    if (variant < 1)
        return core_err_set(err, CORE_ERR_USAGE, "variant must be 1 or more, not %d", variant);
    struct db_question q = {0};
    struct grader_pack *p;
    struct grader_policy pol;
    struct lesson_tries before;
    int rc = lesson_question_and_pack(s, qid, &q, &p, err);
    if (rc != CORE_OK)
        goto out;
    rc = check_certainty(p, q.pack_id, certainty, err);
    if (rc != CORE_OK)
        goto out;
    policy_of(&q, &pol);
    bool practice = false;
    rc = check_open(s, &q, &pol, variant, &before, &practice, err);
    if (rc != CORE_OK)
        goto out;
    if (practice && n_self) {
        rc = core_err_set(err, CORE_ERR_USAGE,
                          "a practice answer has no self-scores: score yourself on a graded one");
        goto out;
    }
    if (q.exam && !practice && n_self) {
        bool open_, over_;
        rc = lesson_exam_state(s, &q, &open_, &over_, err);
        if (rc == CORE_OK && !over_)
            rc = core_err_set(err, CORE_ERR_USAGE,
                              "%s is part of the exam '%s': its rubric is shown after you submit "
                              "the exam, so there is nothing to score yourself on yet",
                              q.id, q.lesson_id);
        if (rc != CORE_OK)
            goto out;
    }
    struct grader_ctx ctx;
    struct lesson_link link;
    if (q.sealed) {
        rc = answer_sealed(s, p, &q, variant, answer, certainty, n_self, out, err);
        goto out;
    }
    rc = lesson_ctx_make(s, s->user_id, s->user, variant, q.lab, NULL, &link, &ctx, err);
    if (rc == CORE_OK && n_self) {
        fixed = core_xcalloc(n_self, sizeof *fixed);
        rc = check_selfscores(p, &q, &ctx, self, n_self, fixed, err);
    }
    if (rc == CORE_OK)
        rc = grader_question_grade(p, q.id, &ctx, answer, &out->r, err);
    lesson_link_fini(&link);
    if (rc != CORE_OK)
        goto out;
    char why[240];
    if (q.exam && !practice && out->r.valid &&
        grader_answer_ambiguous(grader_pack_question(p, q.id), answer, why, sizeof why)) {
        /* No feedback follows an exam answer before the exam is submitted:
         * one that may mean two things is explained, not taken. */
        grader_result_fini(&out->r);
        out->r = (struct grader_result){.max = q.points, .feedback = core_xstrdup(why)};
    }
    struct db_attempt_in in = {.user_id = s->user_id,
                               .pack_id = q.pack_id,
                               .question_id = q.id,
                               .variant = variant,
                               .answer = answer,
                               .parsed = out->r.parsed,
                               .value = out->r.value,
                               .has_value = out->r.has_value,
                               .valid = out->r.valid,
                               .score = out->r.score,
                               .max = out->r.max,
                               .correct = out->r.correct,
                               .feedback = out->r.feedback,
                               .rev_id = q.rev_id,
                               .regrade_of = 0,
                               .certainty = certainty,
                               .params_json = out->r.params_json,
                               .grader_rev = grader_revision(),
                               .tries_limit = practice ? 0 : pol.tries};
    out->tries = before;
    out->practice = practice;
    grader_policy_describe(&pol, out->policy_text, sizeof out->policy_text);
    out->pack_id = core_xstrdup(q.pack_id);
    out->question_id = core_xstrdup(q.id);
    out->variant = variant;
    if (strlen(answer) > DB_ANSWER_MAX) /* explained as too long; a store keeps none so long */
        goto out;
    /* The try limit is checked again where the attempt is recorded, in
     * its write transaction: an answer made at the same moment elsewhere
     * may have used the last try since check_open. */
    rc = db_attempt_insert_selfscored(s->db, &in, fixed, n_self, &out->attempt_id, err);
    if (rc != CORE_OK)
        goto out;
    /* The attempt is committed: a failure to count it must not report the
     * answer as lost, so what follows is best effort. */
    if (db_attempt_count(s->db, s->user_id, q.pack_id, q.id, &out->attempt_no, NULL) != CORE_OK)
        out->attempt_no = 0;
    if (out->r.valid) { /* this answer is one more try */
        double frac = out->r.max > 0 ? out->r.score / out->r.max : 0;
        frac = frac < 0 ? 0 : frac > 1 ? 1 : frac;
        struct lesson_tries *t = &out->tries;
        t->used++;
        if (!before.gave_up) {
            double earned = frac * grader_policy_available(&pol, t->used);
            if (earned > t->frac + 1e-12)
                t->frac = earned, t->best_try = t->used;
            t->solved |= frac >= 1 - 1e-12;
        }
        t->closed = pol.tries > 0 && t->used >= pol.tries;
        t->next_available =
            t->closed || t->gave_up ? 0 : grader_policy_available(&pol, t->used + 1);
    }
    if (out->r.valid && practice) { /* earns nothing; the standing stays as it was */
        out->tries = before;
        out->available = out->earned = 0;
        goto out;
    }
    if (out->r.valid) {
        out->after_giveup = before.gave_up;
        out->available = out->after_giveup ? 0 : grader_policy_available(&pol, before.used + 1);
        double frac = out->r.max > 0 ? out->r.score / out->r.max : 0;
        out->earned = frac * out->available;
    }
    if (q.exam && out->r.valid &&
        !practice) { /* an unreadable one is explained: it tells nothing */
        out->hidden = true;
        withhold(&out->r);
        out->earned = 0;
    }
out:
    free(fixed);
    db_question_fini(&q);
    if (rc != CORE_OK)
        lesson_answer_result_fini(out);
    return rc;
}

void lesson_giveup_result_fini(struct lesson_giveup_result *g)
{
    free(g->pack_id);
    free(g->question_id);
    free(g->accepted);
    free(g->reference);
    memset(g, 0, sizeof *g);
}

int lesson_question_solution(struct lesson_session *s, const char *qid, int variant,
                             char **accepted, char **reference, struct core_err *err)
{
    *accepted = *reference = NULL;
    if (variant < 1)
        return core_err_set(err, CORE_ERR_USAGE, "variant must be 1 or more, not %d", variant);
    struct db_question q = {0};
    struct grader_pack *p;
    int rc = lesson_question_and_pack(s, qid, &q, &p, err);
    if (rc != CORE_OK)
        goto out;
    bool open, over;
    if (q.sealed) {
        rc = core_err_set(err, CORE_ERR_CONFLICT,
                          "%s is graded by your instructor: this release holds no solution "
                          "(it comes with your grade)",
                          q.id);
        goto out;
    }
    rc = lesson_exam_state(s, &q, &open, &over, err);
    if (rc == CORE_OK && q.exam && !over)
        rc = core_err_set(err, CORE_ERR_CONFLICT,
                          "%s is part of the exam '%s': solutions are shown after you submit it",
                          q.id, q.lesson_id);
    if (rc != CORE_OK)
        goto out;
    /* The grader states the accepted answer and solution with any grade:
     * grade a throw-away answer (never stored) to learn them. */
    const char *probe = strcmp(q.kind, "choice") == 0 || strcmp(q.kind, "multi") == 0 ||
                                strcmp(q.kind, "ordering") == 0
                            ? "a"
                            : "0";
    struct grader_ctx ctx;
    struct lesson_link link;
    struct grader_result r = {0};
    rc = lesson_ctx_make(s, s->user_id, s->user, variant, q.lab, NULL, &link, &ctx, err);
    if (rc == CORE_OK)
        rc = grader_question_grade(p, q.id, &ctx, probe, &r, err);
    lesson_link_fini(&link);
    if (rc == CORE_OK) {
        *accepted = r.accepted ? core_xstrdup(r.accepted) : NULL;
        *reference = r.reference ? core_xstrdup(r.reference) : NULL;
    }
    grader_result_fini(&r);
out:
    db_question_fini(&q);
    return rc;
}

int lesson_giveup(struct lesson_session *s, const char *qid, int variant,
                  struct lesson_giveup_result *out, struct core_err *err)
{
    memset(out, 0, sizeof *out);
    struct db_question q = {0};
    int rc = lesson_question_solution(s, qid, variant, &out->accepted, &out->reference, err);
    if (rc == CORE_OK)
        rc = db_question_find(s->db, qid, &q, err);
    if (rc == CORE_OK)
        rc = db_giveup_insert(s->db, s->user_id, q.pack_id, q.id, variant, q.rev_id,
                              &out->giveup_id, err);
    if (rc == CORE_OK) {
        out->pack_id = core_xstrdup(q.pack_id);
        out->question_id = core_xstrdup(q.id);
        out->variant = variant;
    }
    db_question_fini(&q);
    if (rc != CORE_OK)
        lesson_giveup_result_fini(out);
    return rc;
}
