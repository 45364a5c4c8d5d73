/*
 * db_review.c — an instructor's reviews of a student's answers, kept in
 * the student's own store (schema 6) once imported from a feedback file.
 * Append-only; the latest reviewed one of an attempt counts (db_attempt.c
 * and the progress roll-up read it in place of the automatic grade).
 */
#include "db/db_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char sql_owner[] =
    "SELECT 1 FROM attempts WHERE id = ?1 AND user_id = ?2 AND regrade_of IS NULL";
static const char sql_seen[] = "SELECT 1 FROM reviews WHERE uid = ?1";
static const char sql_add[] =
    "INSERT INTO reviews(attempt_id, uid, score, max, comment, reviewer, reviewed_at, "
    "imported_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)";
static const char sql_add_score[] =
    "INSERT INTO review_scores(review_id, ordinal, concept, score, max) "
    "VALUES (?1, ?2, ?3, ?4, ?5)";
static const char sql_list[] =
    "SELECT a.id, a.pack_id, a.question_id, v.score, v.max, v.comment, v.reviewer, "
    "  v.reviewed_at, coalesce(x.valid, a.valid), coalesce(x.score, a.score), "
    "  coalesce(x.max, a.max) "
    "FROM attempts a JOIN reviews v ON v.id = (SELECT w.id FROM reviews w "
    "  WHERE w.attempt_id = a.id ORDER BY w.reviewed_at DESC, w.id DESC LIMIT 1) "
    "LEFT JOIN attempts x ON x.id = (SELECT max(y.id) FROM attempts y WHERE y.regrade_of = a.id) "
    "WHERE a.user_id = ?1 AND a.regrade_of IS NULL AND (?2 IS NULL OR a.pack_id = ?2) "
    "ORDER BY a.pack_id, a.question_id, a.id";

/* 1 when `sql` (bound from types) returns a row, 0 when none, < 0 error. */
static int exists(struct db *db, const char *sql, int bind_rc, sqlite3_stmt *st,
                  struct core_err *err)
{
    int src = bind_rc == SQLITE_OK ? sqlite3_step(st) : bind_rc;
    int rc = src == SQLITE_ROW ? 1 : src == SQLITE_DONE ? 0 : db_fail(db, err, src, "%s", sql);
    db_stmt_done(st);
    return rc;
}

static int add_one(struct db *db, int64_t user_id, const struct db_review_in *in, const char *now,
                   size_t *added, struct core_err *err)
{
    if (!in->uid || !*in->uid)
        return core_err_set(err, CORE_ERR_INVALID, "a review of attempt %lld has no uid",
                            (long long)in->attempt_id);
    if (!isfinite(in->score) || !isfinite(in->max) || in->max <= 0 || in->score < 0 ||
        in->score > in->max + 1e-9)
        return core_err_set(err, CORE_ERR_INVALID, "review %s: score %g of %g", in->uid, in->score,
                            in->max);
    sqlite3_stmt *st;
    int rc = db_stmt(db, sql_owner, &st, err);
    if (rc)
        return rc;
    rc = exists(db, sql_owner, db_bindf(st, "II", in->attempt_id, user_id), st, err);
    if (rc == 0)
        rc = core_err_set(err, CORE_ERR_INVALID,
                          "review %s names attempt %lld, which is not "
                          "one of this user's answers",
                          in->uid, (long long)in->attempt_id);
    if (rc < 0)
        return rc;
    rc = db_stmt(db, sql_seen, &st, err);
    if (rc)
        return rc;
    rc = exists(db, sql_seen, db_bindf(st, "t", in->uid), st, err);
    if (rc < 0)
        return rc;
    if (rc == 1)
        return 0; /* imported before */
    rc = db_stmt(db, sql_add, &st, err);
    if (rc)
        return rc;
    double score = in->score > in->max ? in->max : in->score;
    rc = db_step_done(db, st,
                      db_bindf(st, "Itddtttt", in->attempt_id, in->uid, score, in->max,
                               in->comment ? in->comment : "", in->reviewer, in->reviewed_at, now),
                      "storing a review", err);
    if (rc)
        return rc;
    int64_t id = sqlite3_last_insert_rowid(db->h);
    for (size_t i = 0; i < in->n_scores && !rc; i++) {
        const struct db_selfscore_in *c = &in->scores[i];
        rc = db_stmt(db, sql_add_score, &st, err);
        if (!rc)
            rc = db_step_done(db, st,
                              db_bindf(st, "Iitdd", id, (int)i, c->concept, c->score, c->max),
                              "storing a review's concept score", err);
    }
    if (!rc && added)
        (*added)++;
    return rc;
}

int db_review_insert_many(struct db *db, int64_t user_id, const struct db_review_in *in, size_t n,
                          size_t *added, struct core_err *err)
{
    if (added)
        *added = 0;
    char now[32];
    db_now(now);
    int rc = db_tx_begin(db, err);
    if (rc)
        return rc;
    for (size_t i = 0; i < n && !rc; i++)
        rc = add_one(db, user_id, &in[i], now, added, err);
    rc = db_tx_end(db, rc, err);
    if (rc && added)
        *added = 0;
    return rc;
}

void db_review_rows_free(struct db_review_row *r, size_t n)
{
    if (!r)
        return;
    for (size_t i = 0; i < n; i++) {
        free(r[i].pack_id);
        free(r[i].question_id);
        free(r[i].comment);
        free(r[i].reviewer);
        free(r[i].reviewed_at);
    }
    free(r);
}

static void list_row(sqlite3_stmt *st, void *e)
{
    struct db_review_row *r = e;
    r->attempt_id = sqlite3_column_int64(st, 0);
    r->pack_id = db_col_dup(st, 1);
    r->question_id = db_col_dup(st, 2);
    r->score = sqlite3_column_double(st, 3);
    r->max = sqlite3_column_double(st, 4);
    r->comment = db_col_dup(st, 5);
    r->reviewer = db_col_dup(st, 6);
    r->reviewed_at = db_col_dup(st, 7);
    r->auto_valid = sqlite3_column_int(st, 8) != 0;
    r->auto_score = sqlite3_column_double(st, 9);
    r->auto_max = sqlite3_column_double(st, 10);
}

static void list_free(void *r, size_t n)
{
    db_review_rows_free(r, n);
}

int db_review_list(struct db *db, int64_t user_id, const char *pack_id, struct db_review_row **out,
                   size_t *n, struct core_err *err)
{
    void *rows;
    int rc = db_list(db, sql_list, sizeof **out, list_row, list_free, &rows, n, "listing reviews",
                     err, "It", user_id, pack_id);
    *out = rows;
    return rc;
}
