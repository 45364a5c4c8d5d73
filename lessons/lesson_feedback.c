/*
 * lesson_feedback.c — reviews going back to students: one feedback file
 * per student written from the class store, and its import into a
 * student's own store, where a review counts instead of the automatic
 * score (db_review_*).
 */
#include "lessons/lesson_internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

void lesson_feedback_files_free(struct lesson_feedback_file *f, size_t n)
{
    if (!f)
        return;
    for (size_t i = 0; i < n; i++) {
        free(f[i].key);
        free(f[i].path);
    }
    free(f);
}

/* A file name from a student's key: letters, digits, '.', '_' and '-'
 * kept (a leading '.' made '_'), the rest '_'. */
static char *safe_name(const char *key)
{
    char *s = core_xstrdup(key && *key ? key : "student");
    for (char *p = s; *p; p++)
        if (!(isalnum((unsigned char)*p) || *p == '_' || *p == '-' || (*p == '.' && p != s)))
            *p = '_';
    if (strlen(s) > 100)
        s[100] = '\0';
    return s;
}

static int feedback_write(const char *tmp, void *f, struct core_err *err)
{
    return db_feedback_write(tmp, f, err);
}

/* Writes f to path: built under a temporary name, then linked to path
 * (never replacing unless force). */
static int write_file(const char *path, const struct db_feedback *f, bool force,
                      struct core_err *err)
{
    return core_file_build(path, force, feedback_write, (void *)f, err);
}

/* The feedback of one student: the reviews that count on their current
 * submission's answers. */
static int gather(struct db *cs, const struct db_class_student *who, struct db_feedback *f,
                  struct core_err *err)
{
    struct db_class_attempt *att = NULL;
    size_t na = 0;
    int rc = db_class_attempt_list(cs, NULL, NULL, who->id, &att, &na, err);
    if (rc != CORE_OK)
        return rc;
    f->reviews = core_xcalloc(na ? na : 1, sizeof *f->reviews);
    for (size_t i = 0; i < na && rc == CORE_OK; i++) {
        if (!att[i].reviewed || !att[i].answer_sha)
            continue;
        struct db_class_review rv;
        rc = db_class_review_get(cs, att[i].id, &rv, err);
        if (rc != CORE_OK)
            break;
        f->reviews[f->n_reviews++] =
            (struct db_fb_review){.attempt = att[i].src_id,
                                  .pack_id = core_xstrdup(att[i].pack_id),
                                  .question_id = core_xstrdup(att[i].question_id),
                                  .answer_sha = core_xstrdup(att[i].answer_sha),
                                  .score = rv.score,
                                  .max = rv.max,
                                  .comment = rv.comment,
                                  .reviewer = rv.reviewer,
                                  .reviewed_at = rv.created_at,
                                  .uid = rv.uid,
                                  .scores = rv.scores,
                                  .n_scores = rv.n_scores};
        rv.comment = rv.reviewer = rv.created_at = rv.uid = NULL;
        rv.scores = NULL;
        rv.n_scores = 0;
        db_class_review_fini(&rv);
    }
    db_class_attempts_free(att, na);
    return rc;
}

/* The official grades of one student's graded work: every graded question
 * (withheld while a flag or a review is pending) and every graded lesson's
 * total, from their row of the class's grades. */
static void grades_of(const struct lesson_class_progress *p, const char *class_uid, const char *now,
                      struct db_feedback *f)
{
    f->grades = core_xcalloc(2 * p->n + 1, sizeof *f->grades);
    size_t lesson_start = f->n_grades;
    for (size_t k = 0; k < p->n; k++) {
        const struct db_progress_row *r = &p->rows[k];
        if (!r->graded)
            continue;
        bool pending = r->kind && strcmp(r->kind, "design") == 0 && r->answered && !r->reviewed;
        const char *status = r->blocked    ? "flagged"
                             : pending     ? "pending review"
                             : r->answered ? "graded"
                                           : "not answered";
        const char *note = r->blocked ? "held until your instructor has checked a flag on it"
                           : pending  ? "a design answer: your instructor reviews it"
                                      : "";
        struct db_fb_grade *g = &f->grades[f->n_grades++];
        char key[600], sha[65];
        snprintf(key, sizeof key, "%s|%s|%s|%s|%.17g|%s", p->student.uid, r->pack_id, r->lesson_id,
                 r->question_id, r->best, status);
        core_sha256_hex(key, strlen(key), sha);
        *g = (struct db_fb_grade){.uid = core_xasprintf("%s:%.24s", class_uid, sha),
                                  .pack_id = core_xstrdup(r->pack_id),
                                  .lesson_id = core_xstrdup(r->lesson_id),
                                  .question_id = core_xstrdup(r->question_id),
                                  .has_score = !r->blocked && !pending,
                                  .score = r->best,
                                  .max = r->points,
                                  .status = core_xstrdup(status),
                                  .note = core_xstrdup(note),
                                  .graded_at = core_xstrdup(now)};
    }
    /* Each graded lesson's total, from its questions' grades. */
    size_t n_q = f->n_grades;
    for (size_t i = lesson_start; i < n_q; i++) {
        const struct db_fb_grade *q = &f->grades[i];
        bool seen = false;
        for (size_t j = n_q; j < f->n_grades && !seen; j++)
            seen = strcmp(f->grades[j].pack_id, q->pack_id) == 0 &&
                   strcmp(f->grades[j].lesson_id, q->lesson_id) == 0;
        if (seen)
            continue;
        double score = 0, max = 0;
        bool withheld = false;
        for (size_t j = lesson_start; j < n_q; j++) {
            const struct db_fb_grade *x = &f->grades[j];
            if (strcmp(x->pack_id, q->pack_id) != 0 || strcmp(x->lesson_id, q->lesson_id) != 0)
                continue;
            max += x->max;
            score += x->has_score ? x->score : 0;
            withheld |= !x->has_score;
        }
        char key[600], sha[65];
        snprintf(key, sizeof key, "%s|%s|%s||%.17g|%d", p->student.uid, q->pack_id, q->lesson_id,
                 score, withheld);
        core_sha256_hex(key, strlen(key), sha);
        f->grades[f->n_grades++] = (struct db_fb_grade){
            .uid = core_xasprintf("%s:%.24s", class_uid, sha),
            .pack_id = core_xstrdup(q->pack_id),
            .lesson_id = core_xstrdup(q->lesson_id),
            .has_score = true,
            .score = score,
            .max = max,
            .status = core_xstrdup(withheld ? "partly withheld" : "graded"),
            .note =
                core_xstrdup(withheld ? "some of its questions are held or wait for a review" : ""),
            .graded_at = core_xstrdup(now)};
    }
}

int lesson_feedback_write(struct db *store, struct db *cs, const char *dir, bool force,
                          struct lesson_feedback_file **out, size_t *n, struct core_err *err)
{
    *out = NULL;
    *n = 0;
    struct db_class_student *st = NULL;
    struct lesson_class_progress *prog = NULL;
    size_t ns = 0, np = 0;
    char *uid = NULL;
    const struct lesson_grading grading = {.flags = true, .late = true};
    int rc = core_mkdir_p(dir, err);
    if (rc == CORE_OK)
        rc = db_class_uid(cs, &uid, err);
    if (rc == CORE_OK)
        rc = db_class_students(cs, &st, &ns, err);
    if (rc == CORE_OK)
        rc = lesson_class_progress_load(store, cs, NULL, &grading, &prog, &np, err);
    if (rc != CORE_OK) {
        free(uid);
        db_class_students_free(st, ns);
        return rc;
    }
    struct lesson_feedback_file *files = core_xcalloc(ns ? ns : 1, sizeof *files);
    size_t nf = 0;
    char now[32];
    core_time_iso(core_time_wall(), now);
    for (size_t i = 0; i < ns && rc == CORE_OK; i++) {
        struct db_feedback f = {0};
        rc = gather(cs, &st[i], &f, err);
        if (rc != CORE_OK) {
            db_feedback_fini(&f);
            break;
        }
        for (size_t k = 0; k < np; k++)
            if (prog[k].student.id == st[i].id)
                grades_of(&prog[k], uid, now, &f);
        f.class_uid = core_xstrdup(uid);
        f.user = core_xstrdup(st[i].user);
        f.student_id = st[i].student_id ? core_xstrdup(st[i].student_id) : NULL;
        f.submission = core_xstrdup(st[i].uid);
        f.created_at = core_xstrdup(now);
        /* Keys are unique but their safe names may not be: add a suffix. */
        char *base = safe_name(st[i].key);
        char *name = core_xasprintf("%s.wbfb", base);
        for (int k = 2;; k++) {
            bool clash = false;
            for (size_t j = 0; j < nf && !clash; j++)
                clash = strcmp(strrchr(files[j].path, '/') + 1, name) == 0;
            if (!clash)
                break;
            free(name);
            name = core_xasprintf("%s-%d.wbfb", base, k);
        }
        char *path = core_path_join(dir, name);
        if (!strchr(path, '/')) { /* always a '/' before the name, for the clash check */
            char *p2 = core_xasprintf("./%s", path);
            free(path);
            path = p2;
        }
        rc = write_file(path, &f, force, err);
        if (rc == CORE_OK)
            files[nf++] = (struct lesson_feedback_file){core_xstrdup(st[i].key), path, f.n_reviews,
                                                        f.n_grades};
        else
            free(path);
        free(name);
        free(base);
        db_feedback_fini(&f);
    }
    db_class_students_free(st, ns);
    lesson_class_progress_free(prog, np);
    free(uid);
    *out = files;
    *n = nf;
    return rc;
}

int lesson_feedback_import(struct db *db, int64_t user_id, const char *user, const char *path,
                           struct lesson_feedback_import *out, struct core_err *err)
{
    memset(out, 0, sizeof *out);
    struct db_feedback f;
    int rc = db_feedback_read(path, &f, err);
    if (rc != CORE_OK)
        return rc;
    struct db_review_in *in = NULL;
    struct db_selfscore_in **scores = NULL;
    size_t n_in = 0;
    out->n_reviews = f.n_reviews;
    if (strcmp(f.user, user) != 0) {
        rc = core_err_set(err, CORE_ERR_CONFLICT,
                          "%s is feedback for '%s', and you are '%s' (give --user %s if that is "
                          "you)",
                          path, f.user, user, f.user);
        goto out;
    }
    in = core_xcalloc(f.n_reviews ? f.n_reviews : 1, sizeof *in);
    scores = core_xcalloc(f.n_reviews ? f.n_reviews : 1, sizeof *scores);
    for (size_t i = 0; i < f.n_reviews && rc == CORE_OK; i++) {
        const struct db_fb_review *r = &f.reviews[i];
        /* The review must name an answer of this student's, unchanged. */
        struct db_attempt *a = NULL;
        size_t na = 0;
        rc = db_attempt_list(db, user_id, r->pack_id, r->question_id, &a, &na, err);
        bool match = false;
        for (size_t k = 0; k < na && rc == CORE_OK && !match; k++) {
            if (a[k].id != r->attempt)
                continue;
            char sha[65];
            core_sha256_hex(a[k].answer, strlen(a[k].answer), sha);
            match = strcmp(sha, r->answer_sha) == 0;
        }
        db_attempts_free(a, na);
        if (rc != CORE_OK)
            break;
        if (!match) {
            out->n_mismatch++;
            continue;
        }
        scores[n_in] = core_xcalloc(r->n_scores ? r->n_scores : 1, sizeof **scores);
        for (size_t k = 0; k < r->n_scores; k++)
            scores[n_in][k] = (struct db_selfscore_in){r->scores[k].concept, r->scores[k].score,
                                                       r->scores[k].max};
        in[n_in] = (struct db_review_in){.attempt_id = r->attempt,
                                         .uid = r->uid,
                                         .score = r->score,
                                         .max = r->max,
                                         .comment = r->comment,
                                         .reviewer = r->reviewer,
                                         .reviewed_at = r->reviewed_at,
                                         .scores = scores[n_in],
                                         .n_scores = r->n_scores};
        n_in++;
    }
    if (rc == CORE_OK)
        rc = db_review_insert_many(db, user_id, in, n_in, &out->n_added, err);
    if (rc == CORE_OK)
        out->n_known = n_in - out->n_added;
    /* The official grades: the student's progress shows them as such. */
    struct db_official_in *oi = core_xcalloc(f.n_grades ? f.n_grades : 1, sizeof *oi);
    for (size_t i = 0; i < f.n_grades; i++) {
        const struct db_fb_grade *g = &f.grades[i];
        oi[i] = (struct db_official_in){.uid = g->uid,
                                        .pack_id = g->pack_id,
                                        .lesson_id = g->lesson_id,
                                        .question_id = g->question_id,
                                        .has_score = g->has_score,
                                        .score = g->score,
                                        .max = g->max,
                                        .status = g->status,
                                        .note = g->note,
                                        .graded_at = g->graded_at};
    }
    out->n_grades = f.n_grades;
    if (rc == CORE_OK)
        rc = db_official_insert_many(db, user_id, oi, f.n_grades, &out->n_grades_added, err);
    free(oi);
out:
    for (size_t i = 0; scores && i < n_in; i++)
        free(scores[i]);
    free(scores);
    free(in);
    db_feedback_fini(&f);
    return rc;
}
