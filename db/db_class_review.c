/*
 * db_class_review.c — an instructor's reviews of design answers in the
 * class store: appended (never changed; the latest counts) and keyed by
 * student, question, the attempt's id in the student's store and the
 * SHA-256 of its answer, so a review carries over to the same answer in a
 * later submission and never lands on another answer.
 */
#include "db/db_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char sql_review_target[] =
    "SELECT b.student, a.pack_id, a.question_id, a.src_id, a.answer_sha "
    "FROM attempts a JOIN submissions b ON b.id = a.submission WHERE a.id = ?1";
static const char sql_review_add[] =
    "INSERT INTO reviews(student, pack_id, question_id, src_attempt, answer_sha, score, max, "
    "comment, reviewer, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)";
static const char sql_review_score_add[] =
    "INSERT INTO review_scores(review, ordinal, concept, score, max) VALUES (?1, ?2, ?3, ?4, ?5)";

static int review_check(const struct db_class_review_in *in, struct core_err *err)
{
    if (!isfinite(in->score) || !isfinite(in->max) || in->max <= 0 || in->score < 0 ||
        in->score > in->max + 1e-9)
        return core_err_set(err, CORE_ERR_INVALID, "a reviewed score of %g out of %g", in->score,
                            in->max);
    for (size_t i = 0; i < in->n_scores; i++) {
        const struct db_selfscore_in *c = &in->scores[i];
        if (!c->concept || !*c->concept || !isfinite(c->score) || !isfinite(c->max) ||
            c->max <= 0 || c->score < 0 || c->score > c->max)
            return core_err_set(err, CORE_ERR_INVALID, "a concept score for '%s' of %g out of %g",
                                c->concept ? c->concept : "", c->score, c->max);
    }
    return 0;
}

/* What a review of class attempt `attempt` is keyed by. */
struct review_target {
    int64_t student, src;
    char *pack, *question, *sha;
};

static int review_target(struct db *cs, int64_t attempt, struct review_target *t,
                         struct core_err *err)
{
    sqlite3_stmt *st;
    int rc = db_stmt(cs, sql_review_target, &st, err);
    if (rc)
        return rc;
    int s = db_bindf(st, "I", attempt);
    if (s == SQLITE_OK)
        s = sqlite3_step(st);
    if (s == SQLITE_ROW) {
        t->student = sqlite3_column_int64(st, 0);
        t->pack = db_col_dup(st, 1);
        t->question = db_col_dup(st, 2);
        t->src = sqlite3_column_int64(st, 3);
        t->sha = db_col_dup(st, 4);
    } else if (s == SQLITE_DONE) {
        rc = core_err_set(err, CORE_ERR_NOTFOUND, "no attempt %lld in the class store",
                          (long long)attempt);
    } else {
        rc = db_fail(cs, err, s, "finding attempt %lld", (long long)attempt);
    }
    db_stmt_done(st);
    return rc;
}

int db_class_review_add(struct db *cs, const struct db_class_review_in *in, int64_t *id,
                        struct core_err *err)
{
    int rc = review_check(in, err);
    if (rc)
        return rc;
    rc = db_tx_begin(cs, err);
    if (rc)
        return rc;
    struct review_target t = {0};
    rc = review_target(cs, in->attempt, &t, err);
    char now[32];
    db_now(now);
    sqlite3_stmt *st;
    int64_t rid = 0;
    if (!rc)
        rc = db_stmt(cs, sql_review_add, &st, err);
    if (!rc) {
        double score = in->score > in->max ? in->max : in->score;
        rc = db_step_done(cs, st,
                          db_bindf(st, "IttItddttt", t.student, t.pack, t.question, t.src, t.sha,
                                   score, in->max, in->comment ? in->comment : "", in->reviewer,
                                   now),
                          "storing a review", err);
        rid = sqlite3_last_insert_rowid(cs->h);
    }
    for (size_t i = 0; i < in->n_scores && !rc; i++) {
        rc = db_stmt(cs, sql_review_score_add, &st, err);
        if (!rc)
            rc = db_step_done(cs, st,
                              db_bindf(st, "Iitdd", rid, (int)i, in->scores[i].concept,
                                       in->scores[i].score, in->scores[i].max),
                              "storing a concept score", err);
    }
    free(t.pack);
    free(t.question);
    free(t.sha);
    rc = db_tx_end(cs, rc, err);
    if (!rc && id)
        *id = rid;
    return rc;
}

void db_class_review_fini(struct db_class_review *r)
{
    if (!r)
        return;
    free(r->comment);
    free(r->reviewer);
    free(r->created_at);
    free(r->uid);
    db_selfscores_free(r->scores, r->n_scores);
    memset(r, 0, sizeof *r);
}

static const char sql_review_get[] =
    "SELECT v.id, v.score, v.max, v.comment, v.reviewer, v.created_at, "
    "  (SELECT value FROM meta WHERE key = 'uid') || ':' || v.id "
    "FROM attempts a JOIN submissions b ON b.id = a.submission "
    "JOIN reviews v ON v.id = (SELECT r.id FROM reviews r WHERE r.student = b.student "
    "  AND r.pack_id = a.pack_id AND r.question_id = a.question_id "
    "  AND r.src_attempt = a.src_id AND r.answer_sha = a.answer_sha ORDER BY r.id DESC LIMIT 1) "
    "WHERE a.id = ?1";
static const char sql_review_scores[] =
    "SELECT concept, score, max FROM review_scores WHERE review = ?1 ORDER BY ordinal";

int db_class_review_get(struct db *cs, int64_t attempt, struct db_class_review *out,
                        struct core_err *err)
{
    memset(out, 0, sizeof *out);
    sqlite3_stmt *st;
    int rc = db_stmt(cs, sql_review_get, &st, err);
    if (rc)
        return rc;
    int src = db_bindf(st, "I", attempt);
    if (src == SQLITE_OK)
        src = sqlite3_step(st);
    if (src == SQLITE_ROW) {
        out->id = sqlite3_column_int64(st, 0);
        out->attempt = attempt;
        out->score = sqlite3_column_double(st, 1);
        out->max = sqlite3_column_double(st, 2);
        out->comment = db_col_dup(st, 3);
        out->reviewer = db_col_dup(st, 4);
        out->created_at = db_col_dup(st, 5);
        out->uid = db_col_dup(st, 6);
    } else if (src == SQLITE_DONE) {
        rc = core_err_set(err, CORE_ERR_NOTFOUND, "attempt %lld has no review", (long long)attempt);
    } else {
        rc = db_fail(cs, err, src, "reading the review of attempt %lld", (long long)attempt);
    }
    db_stmt_done(st);
    if (rc)
        return rc;
    rc = db_stmt(cs, sql_review_scores, &st, err);
    if (rc)
        goto out;
    void *rows;
    rc =
        db_rows_read(cs, st, db_bindf(st, "I", out->id), sizeof *out->scores, db_selfscore_read_row,
                     db_selfscores_free_rows, &rows, &out->n_scores, err, "reading concept scores");
    out->scores = rows;
out:
    if (rc)
        db_class_review_fini(out);
    return rc;
}
