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
    "score, max, correct, feedback, rev_id, regrade_of, created_at, certainty, params_json, "
    "grader_rev, regrade_reason, sealed, seq) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, "
    "?20, CASE WHEN ?14 IS NULL THEN coalesce((SELECT max(seq) FROM attempts WHERE user_id = ?1 "
    "AND pack_id = ?2 AND regrade_of IS NULL), 0) + 1 END)";

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
        return core_err_set(err, CORE_ERR_INVALID,
                            "attempt at %s:%s: certainty %d is not 1, 2 or 3", in->pack_id,
                            in->question_id, in->certainty);
    if (strlen(in->answer) > DB_ANSWER_MAX)
        return core_err_set(err, CORE_ERR_INVALID,
                            "attempt at %s:%s: the answer is longer than %d bytes: not recorded",
                            in->pack_id, in->question_id, DB_ANSWER_MAX);
    return 0;
}

/* The user's original attempts at the question, and their tries (readable
 * after the latest re-grade, or reviewed: what db_attempt_tries counts). */
static const char sql_tries_count[] =
    "SELECT count(*), coalesce(sum(CASE WHEN v.id IS NOT NULL OR coalesce(r.valid, a.valid) "
    "THEN 1 ELSE 0 END), 0) "
    "FROM attempts a LEFT JOIN attempts r ON r.id = "
    "  (SELECT max(x.id) FROM attempts x WHERE x.regrade_of = a.id) "
    "LEFT JOIN reviews v ON v.attempt_id = a.id AND v.id = "
    "  (SELECT max(w.id) FROM reviews w WHERE w.attempt_id = a.id) "
    "WHERE a.user_id = ?1 AND a.pack_id = ?2 AND a.question_id = ?3 AND a.regrade_of IS NULL";

/* Inside the write transaction that records `in` (an original attempt):
 * refuses it when the question is closed to it. */
static int limits_check(struct db *db, const struct db_attempt_in *in, struct core_err *err)
{
    sqlite3_stmt *st;
    int rc = db_stmt(db, sql_tries_count, &st, err);
    if (rc)
        return rc;
    int src = db_bindf(st, "Itt", in->user_id, in->pack_id, in->question_id);
    if (src == SQLITE_OK)
        src = sqlite3_step(st);
    int64_t all = 0, tries = 0;
    if (src == SQLITE_ROW) {
        all = sqlite3_column_int64(st, 0);
        tries = sqlite3_column_int64(st, 1);
    } else {
        rc = db_fail(db, err, src, "counting the tries at %s:%s", in->pack_id, in->question_id);
    }
    db_stmt_done(st);
    if (rc)
        return rc;
    if (all >= DB_ATTEMPTS_MAX_PER_QUESTION)
        return core_err_set(err, CORE_ERR_CONFLICT,
                            "%s has %lld answers recorded, the most a store keeps for one "
                            "question: not recorded",
                            in->question_id, (long long)all);
    if (in->valid && in->tries_limit > 0 && tries >= in->tries_limit)
        return core_err_set(err, CORE_ERR_CONFLICT,
                            "%s is closed: its %d %s used (another answer was recorded first)",
                            in->question_id, in->tries_limit,
                            in->tries_limit == 1 ? "try is" : "tries are");
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
    int src =
        db_bindf(st, "IttittNidditIRtRttti", in->user_id, in->pack_id, in->question_id, in->variant,
                 in->answer, in->parsed, in->has_value ? in->value : NAN, in->valid ? 1 : 0,
                 in->score, in->max, in->correct ? 1 : 0, in->feedback ? in->feedback : "",
                 in->rev_id, in->regrade_of, now, (int64_t)in->certainty, in->params_json,
                 in->grader_rev, in->regrade_reason, in->sealed ? 1 : 0);
    rc = db_step_done(db, st, src, "storing an attempt", err);
    if (rc)
        core_err_prefix(err, "attempt at %s:%s", in->pack_id, in->question_id);
    return rc;
}

int db_attempt_insert(struct db *db, const struct db_attempt_in *in, int64_t *id,
                      struct core_err *err)
{
    return db_attempt_insert_selfscored(db, in, NULL, 0, id, err);
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
                return core_err_set(err, CORE_ERR_INVALID, "self-score for '%s' is given twice",
                                    c->concept);
    }
    return 0;
}

static const char sql_selfscore_add[] =
    "INSERT INTO selfscores(attempt_id, ordinal, concept, score, max) VALUES (?1, ?2, ?3, ?4, ?5)";

int db_attempt_insert_selfscored(struct db *db, const struct db_attempt_in *in,
                                 const struct db_selfscore_in *self, size_t n_self, int64_t *id,
                                 struct core_err *err)
{
    int rc = selfscore_check(self, n_self, err);
    if (!rc)
        rc = attempt_check(in, err);
    if (rc)
        return rc;
    char now[32];
    db_now(now);
    if (n_self == 0 && in->regrade_of) {
        /* A re-grade: autocommit, the statement its own transaction,
         * committed (and, with synchronous=FULL, fsynced) before
         * sqlite3_step returns. */
        rc = attempt_add(db, in, now, err);
        if (!rc && id)
            *id = sqlite3_last_insert_rowid(db->h);
        return rc;
    }
    /* An answer: its limits checked and the attempt recorded in one write
     * transaction, so that answers made at the same moment are counted one
     * after the other (BEGIN IMMEDIATE takes the write lock first). */
    rc = db_tx_begin(db, err);
    if (rc)
        return rc;
    if (!in->regrade_of)
        rc = limits_check(db, in, err);
    if (!rc)
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
    "        AND g.question_id = a.question_id AND g.last_attempt < a.id), "                       \
    "a.params_json, a.grader_rev, x.id IS NOT NULL, x.valid, x.score, x.max, x.feedback, "         \
    "x.regrade_reason, v.id IS NOT NULL, v.score, v.max, v.comment, v.reviewer, a.sealed "         \
    "FROM attempts a JOIN users u ON u.id = a.user_id JOIN pack_revs r ON r.id = a.rev_id "        \
    "LEFT JOIN attempts x ON x.id = (SELECT max(y.id) FROM attempts y WHERE y.regrade_of = a.id) " \
    "LEFT JOIN reviews v ON v.id = (SELECT w.id FROM reviews w WHERE w.attempt_id = a.id "         \
    "                               ORDER BY w.reviewed_at DESC, w.id DESC LIMIT 1) "

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
    a->params_json = STR(20);
    a->grader_rev = STR(21);
    a->regraded = sqlite3_column_int(st, 22) != 0;
    a->rg_valid = sqlite3_column_int(st, 23) != 0;
    a->rg_score = sqlite3_column_double(st, 24);
    a->rg_max = sqlite3_column_double(st, 25);
    a->rg_feedback = STR(26);
    a->rg_reason = STR(27);
    a->reviewed = sqlite3_column_int(st, 28) != 0;
    a->rv_score = sqlite3_column_double(st, 29);
    a->rv_max = sqlite3_column_double(st, 30);
    a->rv_comment = STR(31);
    a->rv_reviewer = STR(32);
    a->sealed = sqlite3_column_int(st, 33) != 0;
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
    free(a->params_json);
    free(a->grader_rev);
    free(a->rg_feedback);
    free(a->rg_reason);
    free(a->rv_comment);
    free(a->rv_reviewer);
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
    void *rows;
    int rc = db_list(db, sql_attempt_list, sizeof **out, attempt_row, attempts_free_rows, &rows, n,
                     "listing attempts", err, "Itt", user_id, pack_id, question_id);
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

/* As sql_progress_tries, for one question: an instructor's review counts
 * instead of the grade, the latest re-grade instead of the original. */
static const char sql_tries[] =
    "SELECT CASE WHEN v.id IS NOT NULL THEN v.score / v.max "
    "            WHEN coalesce(r.max, a.max) > 0 "
    "            THEN coalesce(r.score, a.score) / coalesce(r.max, a.max) ELSE 0 END, a.id "
    "FROM attempts a LEFT JOIN attempts r ON r.id = "
    "  (SELECT max(x.id) FROM attempts x WHERE x.regrade_of = a.id) "
    "LEFT JOIN reviews v ON v.id = (SELECT w.id FROM reviews w WHERE w.attempt_id = a.id "
    "                               ORDER BY w.reviewed_at DESC, w.id DESC LIMIT 1) "
    "WHERE a.user_id = ?1 AND a.pack_id = ?2 AND a.question_id = ?3 AND a.regrade_of IS NULL "
    "  AND (v.id IS NOT NULL OR coalesce(r.valid, a.valid)) ORDER BY a.id";
static const char sql_first_giveup[] = "SELECT min(last_attempt), count(*) FROM giveups "
                                       "WHERE user_id = ?1 AND pack_id = ?2 AND question_id = ?3";

int db_attempt_tries(struct db *db, int64_t user_id, const char *pack_id, const char *question_id,
                     double **fracs, int *n, int *credited, bool *gave_up, struct core_err *err)
{
    *fracs = NULL;
    *n = *credited = 0;
    *gave_up = false;
    sqlite3_stmt *st;
    int rc = db_stmt(db, sql_first_giveup, &st, err);
    if (rc)
        return rc;
    int src = db_bindf(st, "Itt", user_id, pack_id, question_id);
    if (src == SQLITE_OK)
        src = sqlite3_step(st);
    int64_t cut = INT64_MAX; /* attempts with a larger id came after the first give-up */
    if (src == SQLITE_ROW) {
        *gave_up = sqlite3_column_int(st, 1) > 0;
        if (*gave_up)
            cut = sqlite3_column_int64(st, 0);
    } else {
        rc = db_fail(db, err, src, "reading give-ups at %s:%s", pack_id, question_id);
    }
    db_stmt_done(st);
    if (rc)
        return rc;
    rc = db_stmt(db, sql_tries, &st, err);
    if (rc)
        return rc;
    src = db_bindf(st, "Itt", user_id, pack_id, question_id);
    size_t cap = 0;
    while (src == SQLITE_OK && (src = sqlite3_step(st)) == SQLITE_ROW) {
        src = SQLITE_OK;
        *fracs = db_grow(*fracs, &cap, (size_t)*n, sizeof **fracs);
        double f = sqlite3_column_double(st, 0);
        (*fracs)[*n] = f < 0 ? 0 : f > 1 ? 1 : f;
        if (sqlite3_column_int64(st, 1) <= cut)
            *credited = *n + 1;
        (*n)++;
    }
    if (src != SQLITE_DONE) {
        rc = db_fail(db, err, src, "reading the tries at %s:%s", pack_id, question_id);
        free(*fracs);
        *fracs = NULL;
        *n = *credited = 0;
    }
    db_stmt_done(st);
    return rc;
}

static const char sql_count[] =
    "SELECT count(*) FROM attempts WHERE user_id = ?1 AND pack_id = ?2 AND question_id = ?3 "
    "AND regrade_of IS NULL AND valid";

int db_attempt_count(struct db *db, int64_t user_id, const char *pack_id, const char *question_id,
                     int *n, struct core_err *err)
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

/* What lesson_variant_use reads, in one row instead of every attempt with
 * its re-grades and reviews: whether a readable original attempt or a
 * give-up is at variant ?4, and the highest variant of either (1 when none).
 * The same rows db_attempt_list and db_giveup_list give (their joins too). */
static const char sql_variant_use[] =
    "WITH a AS (SELECT a.variant FROM attempts a JOIN users u ON u.id = a.user_id "
    "           JOIN pack_revs r ON r.id = a.rev_id "
    "           WHERE a.user_id = ?1 AND (?2 IS NULL OR a.pack_id = ?2) "
    "           AND (?3 IS NULL OR a.question_id = ?3) AND a.regrade_of IS NULL "
    "           AND a.valid <> 0), "
    "     g AS (SELECT variant FROM giveups WHERE user_id = ?1 "
    "           AND (?2 IS NULL OR pack_id = ?2) AND (?3 IS NULL OR question_id = ?3)) "
    "SELECT EXISTS (SELECT 1 FROM a WHERE variant = ?4) OR "
    "       EXISTS (SELECT 1 FROM g WHERE variant = ?4), "
    "       max(1, coalesce((SELECT max(variant) FROM a), 1), "
    "              coalesce((SELECT max(variant) FROM g), 1))";

int db_attempt_variant_use(struct db *db, int64_t user_id, const char *pack_id,
                           const char *question_id, int variant, bool *used, int *highest,
                           struct core_err *err)
{
    sqlite3_stmt *st;
    *used = false;
    *highest = 1;
    int rc = db_stmt(db, sql_variant_use, &st, err);
    if (rc)
        return rc;
    int src = db_bindf(st, "Itti", user_id, pack_id, question_id, variant);
    if (src == SQLITE_OK)
        src = sqlite3_step(st);
    if (src == SQLITE_ROW) {
        *used = sqlite3_column_int(st, 0) != 0;
        *highest = sqlite3_column_int(st, 1);
    } else {
        rc = db_fail(db, err, src, "reading the variants answered at %s:%s", pack_id, question_id);
    }
    db_stmt_done(st);
    return rc;
}

/* ---- progress ------------------------------------------------------------ */

/* Every question of the current packs, with its policy, its lesson's exam
 * state for the user (?3 is now: a deadline passed ends the exam), and
 * whether the user gave up on it. */
static const char sql_progress[] =
    "SELECT q.pack_id, q.lesson_id, q.id, q.topics, q.rubric, q.points, q.kind, q.tries, "
    "       q.penalty, q.per_try, l.exam, "
    "       e.started_at IS NOT NULL, "
    "       e.submitted_at IS NOT NULL OR (e.deadline IS NOT NULL AND e.deadline <= ?3), "
    "       EXISTS (SELECT 1 FROM giveups g WHERE g.user_id = ?1 AND g.pack_id = q.pack_id "
    "               AND g.question_id = q.id), "
    "       l.sealed, o.id IS NOT NULL, o.score, o.max, o.status, l.graded OR l.exam "
    "FROM questions q JOIN lessons l ON l.pack_id = q.pack_id AND l.id = q.lesson_id "
    "LEFT JOIN exams e ON e.user_id = ?1 AND e.pack_id = q.pack_id AND e.lesson_id = q.lesson_id "
    "LEFT JOIN officials o ON o.id = (SELECT w.id FROM officials w WHERE w.user_id = ?1 "
    "  AND w.pack_id = q.pack_id AND w.question_id = q.id ORDER BY w.graded_at DESC, w.id DESC "
    "  LIMIT 1) "
    "WHERE ?2 IS NULL OR q.pack_id = ?2 "
    "ORDER BY q.pack_id, l.ordinal, q.ordinal";
static const char sql_progress_pack[] = "SELECT 1 FROM packs WHERE id = ?1";

/* The user's readable tries, oldest first per question: each original
 * attempt with its latest re-grade's validity and score in its place (an
 * instructor's review in place of both), and whether it came after the
 * user's first give-up on the question. */
static const char sql_progress_tries[] =
    "SELECT a.pack_id, a.question_id, "
    "       CASE WHEN v.id IS NOT NULL THEN v.score / v.max "
    "            WHEN coalesce(r.max, a.max) > 0 "
    "            THEN coalesce(r.score, a.score) / coalesce(r.max, a.max) ELSE 0 END, "
    "       coalesce(a.id > (SELECT min(g.last_attempt) FROM giveups g WHERE g.user_id = ?1 "
    "         AND g.pack_id = a.pack_id AND g.question_id = a.question_id), 0), "
    "       a.certainty, v.id IS NOT NULL "
    "FROM attempts a LEFT JOIN attempts r ON r.id = "
    "  (SELECT max(x.id) FROM attempts x WHERE x.regrade_of = a.id) "
    "LEFT JOIN reviews v ON v.id = (SELECT w.id FROM reviews w WHERE w.attempt_id = a.id "
    "                               ORDER BY w.reviewed_at DESC, w.id DESC LIMIT 1) "
    "WHERE a.user_id = ?1 AND a.regrade_of IS NULL AND (?2 IS NULL OR a.pack_id = ?2) "
    "  AND (v.id IS NOT NULL OR coalesce(r.valid, a.valid)) "
    "ORDER BY a.pack_id, a.question_id, a.id";

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
        free(r[i].kind);
        free(r[i].per_try);
        free(r[i].fracs);
        free(r[i].official_status);
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
    r->kind = db_col_dup(st, 6);
    r->tries = sqlite3_column_int(st, 7);
    r->penalty = sqlite3_column_double(st, 8);
    r->per_try = db_col_dup(st, 9);
    r->exam = sqlite3_column_int(st, 10) != 0;
    r->exam_started = sqlite3_column_int(st, 11) != 0;
    r->exam_over = sqlite3_column_int(st, 12) != 0;
    r->gave_up = sqlite3_column_int(st, 13) != 0;
    r->sealed = sqlite3_column_int(st, 14) != 0;
    r->has_official = sqlite3_column_int(st, 15) != 0;
    r->official_pending = r->has_official && sqlite3_column_type(st, 16) == SQLITE_NULL;
    double omax = sqlite3_column_double(st, 17);
    /* the official grade at this question's points (a re-weighted pack) */
    r->official = r->has_official && !r->official_pending && omax > 0
                      ? sqlite3_column_double(st, 16) / omax * r->points
                      : 0;
    r->official_status = db_col_dup(st, 18);
    r->graded = sqlite3_column_int(st, 19) != 0;
}

static void progress_free_rows(void *r, size_t n)
{
    db_progress_free(r, n);
}

/* Rows sorted by (pack, question) for the merge with the tries. */
static int key_cmp(const char *pa, const char *qa, const char *pb, const char *qb)
{
    int c = strcmp(pa, pb);
    return c ? c : strcmp(qa, qb);
}

static int by_key(const void *a, const void *b)
{
    const struct db_progress_row *x = *(struct db_progress_row *const *)a;
    const struct db_progress_row *y = *(struct db_progress_row *const *)b;
    return key_cmp(x->pack_id, x->question_id, y->pack_id, y->question_id);
}

/* Adds the user's tries to rows (sql_progress_tries). */
static int progress_tries(struct db *db, int64_t user_id, const char *pack_id,
                          struct db_progress_row *rows, size_t n, struct core_err *err)
{
    struct db_progress_row **ord = core_xcalloc(n ? n : 1, sizeof *ord);
    for (size_t i = 0; i < n; i++)
        ord[i] = &rows[i];
    qsort(ord, n, sizeof *ord, by_key); /* rows come ordered for display */
    sqlite3_stmt *st;
    int rc = db_stmt(db, sql_progress_tries, &st, err);
    if (rc) {
        free(ord);
        return rc;
    }
    int src = db_bindf(st, "It", user_id, pack_id);
    size_t k = 0, cap = 0;
    struct db_progress_row *cur = NULL;
    while (src == SQLITE_OK && (src = sqlite3_step(st)) == SQLITE_ROW) {
        src = SQLITE_OK;
        const char *p = db_col_text(st, 0), *q = db_col_text(st, 1);
        if (!cur || key_cmp(cur->pack_id, cur->question_id, p, q) != 0) {
            while (k < n && key_cmp(ord[k]->pack_id, ord[k]->question_id, p, q) < 0)
                k++;
            if (k == n || key_cmp(ord[k]->pack_id, ord[k]->question_id, p, q) != 0) {
                cur = NULL; /* a question no longer in the pack */
                continue;
            }
            cur = ord[k];
            cap = 0;
        }
        if (cur->n_fracs == (int)cap) {
            cap = cap ? 2 * cap : 4;
            cur->fracs = core_xrealloc(cur->fracs, cap * sizeof *cur->fracs);
        }
        double f = sqlite3_column_double(st, 2);
        cur->fracs[cur->n_fracs] = f < 0 ? 0 : f > 1 ? 1 : f;
        bool helped = sqlite3_column_int(st, 3) != 0;
        if (cur->n_fracs == 0)
            cur->certainty = sqlite3_column_int(st, 4);
        if (!helped)
            cur->helped_from = cur->n_fracs + 1;
        if (sqlite3_column_int(st, 5))
            cur->reviewed = true;
        cur->n_fracs++;
    }
    if (src != SQLITE_DONE)
        rc = db_fail(db, err, src, "reading the tries for progress");
    db_stmt_done(st);
    free(ord);
    return rc;
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
    char now[32];
    db_now(now);
    void *rows;
    rc = db_rows_read(db, st, db_bindf(st, "Itt", user_id, pack_id, now), sizeof **out,
                      progress_row, progress_free_rows, &rows, n, err, "computing progress");
    if (rc)
        return rc;
    struct db_progress_row *r = rows;
    rc = progress_tries(db, user_id, pack_id, r, *n, err);
    if (rc) {
        db_progress_free(r, *n);
        *n = 0;
        return rc;
    }
    /* The policy-free figures; lessons applies the attempt policy. */
    for (size_t i = 0; i < *n; i++) {
        r[i].attempts = r[i].n_fracs;
        r[i].answered = r[i].n_fracs > 0;
        r[i].first = r[i].n_fracs ? r[i].fracs[0] * r[i].points : 0;
        for (int k = 0; k < r[i].helped_from; k++)
            if (r[i].fracs[k] * r[i].points > r[i].best)
                r[i].best = r[i].fracs[k] * r[i].points;
    }
    *out = r;
    return 0;
}
