/*
 * db_attempt.c — the append-only attempt log, re-grades, and the
 * per-question progress roll-up.
 *
 * An attempt is never changed: a re-grade is a new row whose regrade_of
 * names the original, and readers take the latest re-grade of an attempt in
 * place of the original's validity and score.
 */
#include "db/db_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- insert -------------------------------------------------------------- */

static const char sql_attempt_add[] =
    "INSERT INTO attempts(user_id, pack_id, question_id, variant, answer, parsed, value, valid, "
    "score, max, correct, feedback, rev_id, regrade_of, created_at, certainty) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)";

static int attempt_check(const struct db_attempt_in *in, struct core_err *err)
{
    if (!in->pack_id || !*in->pack_id || !in->question_id || !*in->question_id || !in->answer)
        return core_err_set(err, CORE_ERR_INVALID,
                            "an attempt needs a pack, a question and an answer");
    if (!isfinite(in->score) || !isfinite(in->max))
        return core_err_set(err, CORE_ERR_INVALID, "attempt at %s:%s: score %g of %g", in->pack_id,
                            in->question_id, in->score, in->max);
    if (in->regrade_of < 0)
        return core_err_set(err, CORE_ERR_INVALID, "attempt at %s:%s: regrade_of %lld", in->pack_id,
                            in->question_id, (long long)in->regrade_of);
    if (in->certainty < 0 || in->certainty > 3)
        return core_err_set(err, CORE_ERR_INVALID, "attempt at %s:%s: certainty %d is not 1, 2 or 3",
                            in->pack_id, in->question_id, in->certainty);
    return 0;
}

/* Inserts one attempt with the cached statement, in whatever transaction is
 * open (or autocommit). */
static int attempt_add(struct db *db, const struct db_attempt_in *in, const char *now,
                       struct core_err *err)
{
    int rc = attempt_check(in, err);
    if (rc)
        return rc;
    sqlite3_stmt *st;
    rc = db_stmt(db, sql_attempt_add, &st, err);
    if (rc)
        return rc;
    /* NaN cannot be stored as a value: it reads back as "no value"; a
     * certainty of 0 (none stated) is stored as NULL. */
    int src = db_bindf(st, "IttittNidditIRtR", in->user_id, in->pack_id, in->question_id,
                       in->variant, in->answer, in->parsed, in->has_value ? in->value : NAN,
                       in->valid ? 1 : 0, in->score, in->max, in->correct ? 1 : 0,
                       in->feedback ? in->feedback : "", in->rev_id, in->regrade_of, now,
                       (int64_t)in->certainty);
    rc = db_step_done(db, st, src, "storing an attempt", err);
    if (rc)
        core_err_prefix(err, "attempt at %s:%s", in->pack_id, in->question_id);
    return rc;
}

int db_attempt_insert(struct db *db, const struct db_attempt_in *in, int64_t *id,
                      struct core_err *err)
{
    char now[32];
    db_now(now);
    /* Autocommit: the statement is its own transaction, committed (and, with
     * synchronous=FULL, fsynced) before sqlite3_step returns. */
    int rc = attempt_add(db, in, now, err);
    if (!rc && id)
        *id = sqlite3_last_insert_rowid(db->h);
    return rc;
}

int db_attempt_insert_batch(struct db *db, const struct db_attempt_in *in, size_t n,
                            struct core_err *err)
{
    if (n == 0)
        return 0;
    char now[32];
    db_now(now);
    int rc = db_tx_begin(db, err);
    if (rc)
        return rc;
    for (size_t i = 0; i < n && !rc; i++) {
        rc = attempt_add(db, &in[i], now, err);
        if (rc)
            core_err_prefix(err, "attempt %zu of %zu", i + 1, n);
    }
    return db_tx_end(db, rc, err);
}

static int selfscore_check(const struct db_selfscore_in *self, size_t n, struct core_err *err)
{
    for (size_t i = 0; i < n; i++) {
        const struct db_selfscore_in *c = &self[i];
        if (!c->concept || !*c->concept)
            return core_err_set(err, CORE_ERR_INVALID, "self-score %zu: no rubric concept named",
                                i + 1);
        if (!isfinite(c->max) || c->max <= 0)
            return core_err_set(err, CORE_ERR_INVALID,
                                "self-score for '%s': its maximum %g is not above 0", c->concept,
                                c->max);
        if (!isfinite(c->score) || c->score < 0 || c->score > c->max)
            return core_err_set(err, CORE_ERR_INVALID,
                                "self-score for '%s': %g is not between 0 and %g", c->concept,
                                c->score, c->max);
        for (size_t j = 0; j < i; j++)
            if (strcmp(self[j].concept, c->concept) == 0)
                return core_err_set(err, CORE_ERR_INVALID,
                                    "self-score for '%s' is given twice", c->concept);
    }
    return 0;
}

static const char sql_selfscore_add[] =
    "INSERT INTO selfscores(attempt_id, ordinal, concept, score, max) VALUES (?1, ?2, ?3, ?4, ?5)";

int db_attempt_insert_selfscored(struct db *db, const struct db_attempt_in *in,
                                 const struct db_selfscore_in *self, size_t n_self, int64_t *id,
                                 struct core_err *err)
{
    if (n_self == 0)
        return db_attempt_insert(db, in, id, err);
    int rc = selfscore_check(self, n_self, err);
    if (rc)
        return rc;
    char now[32];
    db_now(now);
    rc = db_tx_begin(db, err);
    if (rc)
        return rc;
    rc = attempt_add(db, in, now, err);
    int64_t aid = rc ? 0 : sqlite3_last_insert_rowid(db->h);
    for (size_t i = 0; i < n_self && !rc; i++) {
        sqlite3_stmt *st;
        rc = db_stmt(db, sql_selfscore_add, &st, err);
        if (rc)
            break;
        int src = db_bindf(st, "Iitdd", aid, (int)i, self[i].concept, self[i].score, self[i].max);
        rc = db_step_done(db, st, src, "storing a self-score", err);
        if (rc)
            core_err_prefix(err, "self-score for '%s'", self[i].concept);
    }
    rc = db_tx_end(db, rc, err);
    if (!rc && id)
        *id = aid;
    return rc;
}

/* ---- reading ------------------------------------------------------------- */

#define ATTEMPT_COLUMNS                                                                            \
    "SELECT a.id, a.user_id, u.name, a.pack_id, a.question_id, a.variant, a.answer, a.parsed, "    \
    "a.value, a.valid, a.score, a.max, a.correct, a.feedback, a.rev_id, r.version, "               \
    "a.regrade_of, a.created_at, a.certainty, "                                                    \
    "EXISTS (SELECT 1 FROM giveups g WHERE g.user_id = a.user_id AND g.pack_id = a.pack_id "       \
    "        AND g.question_id = a.question_id AND g.last_attempt < a.id) "                        \
    "FROM attempts a JOIN users u ON u.id = a.user_id JOIN pack_revs r ON r.id = a.rev_id "

static const char sql_attempt_list[] =
    ATTEMPT_COLUMNS "WHERE a.user_id = ?1 AND (?2 IS NULL OR a.pack_id = ?2) "
                    "AND (?3 IS NULL OR a.question_id = ?3) AND a.regrade_of IS NULL "
                    "ORDER BY a.id";
static const char sql_attempt_each[] =
    ATTEMPT_COLUMNS "WHERE a.pack_id = ?1 AND a.regrade_of IS NULL ORDER BY a.id";

/* Fills *a from the current row; with `copy` every string is a malloc'd
 * copy, without it the strings are borrowed from the statement. */
static void attempt_read(sqlite3_stmt *st, struct db_attempt *a, bool copy)
{
#define STR(col) (copy ? db_col_dup(st, col) : (char *)db_col_text(st, col))
    a->id = sqlite3_column_int64(st, 0);
    a->user_id = sqlite3_column_int64(st, 1);
    a->user = STR(2);
    a->pack_id = STR(3);
    a->question_id = STR(4);
    a->variant = sqlite3_column_int(st, 5);
    a->answer = STR(6);
    a->parsed = STR(7);
    a->has_value = sqlite3_column_type(st, 8) != SQLITE_NULL;
    a->value = a->has_value ? sqlite3_column_double(st, 8) : 0.0;
    a->valid = sqlite3_column_int(st, 9) != 0;
    a->score = sqlite3_column_double(st, 10);
    a->max = sqlite3_column_double(st, 11);
    a->correct = sqlite3_column_int(st, 12) != 0;
    a->feedback = STR(13);
    a->rev_id = sqlite3_column_int64(st, 14);
    a->pack_version = STR(15);
    a->regrade_of = sqlite3_column_int64(st, 16); /* NULL reads as 0 */
    a->created_at = STR(17);
    a->certainty = sqlite3_column_int(st, 18); /* NULL reads as 0 */
    a->after_giveup = sqlite3_column_int(st, 19) != 0;
#undef STR
}

static void attempt_fini(struct db_attempt *a)
{
    free(a->user);
    free(a->pack_id);
    free(a->question_id);
    free(a->answer);
    free(a->parsed);
    free(a->feedback);
    free(a->pack_version);
    free(a->created_at);
}

void db_attempts_free(struct db_attempt *a, size_t n)
{
    if (!a)
        return;
    for (size_t i = 0; i < n; i++)
        attempt_fini(&a[i]);
    free(a);
}

static void attempt_row(sqlite3_stmt *st, void *a)
{
    attempt_read(st, a, true);
}

static void attempts_free_rows(void *a, size_t n)
{
    db_attempts_free(a, n);
}

int db_attempt_list(struct db *db, int64_t user_id, const char *pack_id, const char *question_id,
                    struct db_attempt **out, size_t *n, struct core_err *err)
{
    *out = NULL;
    *n = 0;
    sqlite3_stmt *st;
    int rc = db_stmt(db, sql_attempt_list, &st, err);
    if (rc)
        return rc;
    void *rows;
    rc = db_rows_read(db, st, db_bindf(st, "Itt", user_id, pack_id, question_id), sizeof **out,
                      attempt_row, attempts_free_rows, &rows, n, err, "listing attempts");
    *out = rows;
    return rc;
}

int db_attempt_each(struct db *db, const char *pack_id,
                    int (*fn)(const struct db_attempt *a, void *ctx), void *ctx,
                    struct core_err *err)
{
    if (!pack_id)
        return core_err_set(err, CORE_ERR_NOTFOUND, "no pack given");
    /* Not cached: fn may use the store, even call db_attempt_each again. */
    sqlite3_stmt *st = NULL;
    int src = sqlite3_prepare_v2(db->h, sql_attempt_each, -1, &st, NULL);
    if (src != SQLITE_OK) {
        int code = db_fail(db, err, src, "reading the attempts of pack %s", pack_id);
        sqlite3_finalize(st);
        return code;
    }
    int rc = 0;
    src = db_bindf(st, "t", pack_id);
    while (src == SQLITE_OK && (src = sqlite3_step(st)) == SQLITE_ROW) {
        struct db_attempt a;
        attempt_read(st, &a, false);
        rc = fn(&a, ctx);
        if (rc)
            break;
        src = SQLITE_OK;
    }
    if (!rc && src != SQLITE_DONE)
        rc = db_fail(db, err, src, "reading the attempts of pack %s", pack_id);
    sqlite3_finalize(st);
    return rc;
}

static const char sql_count[] =
    "SELECT count(*) FROM attempts WHERE user_id = ?1 AND pack_id = ?2 AND question_id = ?3 "
    "AND regrade_of IS NULL AND valid";

int db_attempt_count(struct db *db, int64_t user_id, const char *pack_id,
                     const char *question_id, int *n, struct core_err *err)
{
    sqlite3_stmt *st;
    *n = 0;
    int rc = db_stmt(db, sql_count, &st, err);
    if (rc)
        return rc;
    int src = db_bindf(st, "Itt", user_id, pack_id, question_id);
    if (src == SQLITE_OK)
        src = sqlite3_step(st);
    if (src == SQLITE_ROW)
        *n = sqlite3_column_int(st, 0);
    else
        rc = db_fail(db, err, src, "counting attempts at %s:%s", pack_id, question_id);
    db_stmt_done(st);
    return rc;
}

/* ---- progress ------------------------------------------------------------ */

/* eff: each original attempt with the validity and score of its latest
 * re-grade (or its own when never re-graded); agg: per question, the valid
 * ones counted and the best of them as a fraction of what they were graded
 * out of, so an attempt from an older revision with other points counts at
 * the current question's points; first: per question, the first valid
 * attempt's fraction and the certainty the student stated with it (SQLite
 * takes the bare columns of an aggregate query from the row min() picked). */
static const char sql_progress[] =
    "WITH eff AS ("
    "  SELECT a.id, a.pack_id, a.question_id, coalesce(r.valid, a.valid) AS valid, "
    "         coalesce(r.score, a.score) AS score, coalesce(r.max, a.max) AS max, "
    "         a.certainty, "
    "         coalesce(a.id > (SELECT min(g.last_attempt) FROM giveups g WHERE g.user_id = ?1 "
    "           AND g.pack_id = a.pack_id AND g.question_id = a.question_id), 0) AS helped "
    "  FROM attempts a LEFT JOIN attempts r ON r.id = "
    "    (SELECT max(x.id) FROM attempts x WHERE x.regrade_of = a.id) "
    "  WHERE a.user_id = ?1 AND a.regrade_of IS NULL AND (?2 IS NULL OR a.pack_id = ?2)"
    "), agg AS ("
    "  SELECT pack_id, question_id, count(*) AS n, "
    "         max(CASE WHEN helped THEN 0 WHEN max > 0 THEN score / max ELSE 0 END) AS frac "
    "  FROM eff WHERE valid GROUP BY pack_id, question_id"
    "), first AS ("
    "  SELECT pack_id, question_id, min(id), "
    "         CASE WHEN max > 0 THEN score / max ELSE 0 END AS frac, certainty "
    "  FROM eff WHERE valid GROUP BY pack_id, question_id"
    ") "
    "SELECT q.pack_id, q.lesson_id, q.id, q.topics, q.rubric, q.points, "
    "       coalesce(agg.n, 0), coalesce(agg.frac, 0) * q.points, "
    "       coalesce(first.frac, 0) * q.points, coalesce(first.certainty, 0), "
    "       EXISTS (SELECT 1 FROM giveups g WHERE g.user_id = ?1 AND g.pack_id = q.pack_id "
    "               AND g.question_id = q.id) "
    "FROM questions q JOIN lessons l ON l.pack_id = q.pack_id AND l.id = q.lesson_id "
    "LEFT JOIN agg ON agg.pack_id = q.pack_id AND agg.question_id = q.id "
    "LEFT JOIN first ON first.pack_id = q.pack_id AND first.question_id = q.id "
    "WHERE ?2 IS NULL OR q.pack_id = ?2 "
    "ORDER BY q.pack_id, l.ordinal, q.ordinal";
static const char sql_progress_pack[] = "SELECT 1 FROM packs WHERE id = ?1";

void db_progress_free(struct db_progress_row *r, size_t n)
{
    if (!r)
        return;
    for (size_t i = 0; i < n; i++) {
        free(r[i].pack_id);
        free(r[i].lesson_id);
        free(r[i].question_id);
        free(r[i].topics);
        free(r[i].rubric);
    }
    free(r);
}

/* One row of sql_progress. */
static void progress_row(sqlite3_stmt *st, void *elem)
{
    struct db_progress_row *r = elem;
    r->pack_id = db_col_dup(st, 0);
    r->lesson_id = db_col_dup(st, 1);
    r->question_id = db_col_dup(st, 2);
    r->topics = db_col_dup(st, 3);
    r->rubric = db_col_dup(st, 4);
    r->points = sqlite3_column_double(st, 5);
    r->attempts = sqlite3_column_int(st, 6);
    r->best = sqlite3_column_double(st, 7);
    r->answered = r->attempts > 0;
    r->first = sqlite3_column_double(st, 8);
    r->certainty = sqlite3_column_int(st, 9);
    r->gave_up = sqlite3_column_int(st, 10) != 0;
}

static void progress_free_rows(void *r, size_t n)
{
    db_progress_free(r, n);
}

int db_progress(struct db *db, int64_t user_id, const char *pack_id, struct db_progress_row **out,
                size_t *n, struct core_err *err)
{
    *out = NULL;
    *n = 0;
    sqlite3_stmt *st;
    int rc, src;
    if (pack_id) {
        rc = db_stmt(db, sql_progress_pack, &st, err);
        if (rc)
            return rc;
        src = db_bindf(st, "t", pack_id);
        if (src == SQLITE_OK)
            src = sqlite3_step(st);
        if (src == SQLITE_DONE)
            rc = core_err_set(err, CORE_ERR_NOTFOUND, "no pack '%s'", pack_id);
        else if (src != SQLITE_ROW)
            rc = db_fail(db, err, src, "looking up pack %s", pack_id);
        db_stmt_done(st);
        if (rc)
            return rc;
    }
    rc = db_stmt(db, sql_progress, &st, err);
    if (rc)
        return rc;
    void *rows;
    rc = db_rows_read(db, st, db_bindf(st, "It", user_id, pack_id), sizeof **out, progress_row,
                      progress_free_rows, &rows, n, err, "computing progress");
    *out = rows;
    return rc;
}
