/*
 * db_selfscore.c — reading a design answer's rubric self-scores, which are
 * written with their attempt (db_attempt_insert_selfscored in
 * db_attempt.c), and the per-question roll-up of self versus automatic
 * score for the progress views.
 */
#include "db/db_internal.h"

#include <stdlib.h>

static const char sql_selfscore_list[] =
    "SELECT concept, score, max FROM selfscores WHERE attempt_id = ?1 ORDER BY ordinal";

void db_selfscores_free(struct db_selfscore *s, size_t n)
{
    if (!s)
        return;
    for (size_t i = 0; i < n; i++)
        free(s[i].concept);
    free(s);
}

void db_selfscore_read_row(sqlite3_stmt *st, void *elem)
{
    struct db_selfscore *s = elem;
    s->concept = db_col_dup(st, 0);
    s->score = sqlite3_column_double(st, 1);
    s->max = sqlite3_column_double(st, 2);
}

void db_selfscores_free_rows(void *s, size_t n)
{
    db_selfscores_free(s, n);
}

int db_selfscore_list(struct db *db, int64_t attempt_id, struct db_selfscore **out, size_t *n,
                      struct core_err *err)
{
    *out = NULL;
    *n = 0;
    sqlite3_stmt *st;
    int rc = db_stmt(db, sql_selfscore_list, &st, err);
    if (rc)
        return rc;
    void *rows;
    rc = db_rows_read(db, st, db_bindf(st, "I", attempt_id), sizeof **out, db_selfscore_read_row,
                      db_selfscores_free_rows, &rows, n, err,
                      "listing the self-scores of attempt %lld", (long long)attempt_id);
    *out = rows;
    return rc;
}

/* latest: per question, the user's newest attempt that has self-scores;
 * the automatic grade is that of its latest re-grade when there is one. */
static const char sql_selfscore_summary[] =
    "WITH latest AS ("
    "  SELECT a.pack_id, a.question_id, max(a.id) AS id FROM attempts a "
    "  WHERE a.user_id = ?1 AND (?2 IS NULL OR a.pack_id = ?2) AND a.regrade_of IS NULL "
    "    AND EXISTS (SELECT 1 FROM selfscores s WHERE s.attempt_id = a.id) "
    "  GROUP BY a.pack_id, a.question_id"
    ") "
    "SELECT a.pack_id, a.question_id, a.id, a.created_at, "
    "       (SELECT count(*) FROM selfscores s WHERE s.attempt_id = a.id), "
    "       (SELECT sum(score) FROM selfscores s WHERE s.attempt_id = a.id), "
    "       (SELECT sum(max) FROM selfscores s WHERE s.attempt_id = a.id), "
    "       coalesce(r.valid, a.valid), coalesce(r.score, a.score), coalesce(r.max, a.max) "
    "FROM latest JOIN attempts a ON a.id = latest.id "
    "LEFT JOIN attempts r ON r.id = (SELECT max(x.id) FROM attempts x WHERE x.regrade_of = a.id) "
    "LEFT JOIN questions q ON q.pack_id = a.pack_id AND q.id = a.question_id "
    "LEFT JOIN lessons l ON l.pack_id = q.pack_id AND l.id = q.lesson_id "
    "ORDER BY a.pack_id, q.id IS NULL, l.ordinal, q.ordinal, a.question_id";

void db_selfscore_rows_free(struct db_selfscore_row *r, size_t n)
{
    if (!r)
        return;
    for (size_t i = 0; i < n; i++) {
        free(r[i].pack_id);
        free(r[i].question_id);
        free(r[i].created_at);
    }
    free(r);
}

static void summary_row(sqlite3_stmt *st, void *elem)
{
    struct db_selfscore_row *r = elem;
    r->pack_id = db_col_dup(st, 0);
    r->question_id = db_col_dup(st, 1);
    r->attempt_id = sqlite3_column_int64(st, 2);
    r->created_at = db_col_dup(st, 3);
    r->n_concepts = sqlite3_column_int(st, 4);
    r->self = sqlite3_column_double(st, 5);
    r->self_max = sqlite3_column_double(st, 6);
    r->valid = sqlite3_column_int(st, 7) != 0;
    r->score = sqlite3_column_double(st, 8);
    r->max = sqlite3_column_double(st, 9);
}

static void summary_free_rows(void *r, size_t n)
{
    db_selfscore_rows_free(r, n);
}

int db_selfscore_summary(struct db *db, int64_t user_id, const char *pack_id,
                         struct db_selfscore_row **out, size_t *n, struct core_err *err)
{
    void *rows;
    int rc = db_list(db, sql_selfscore_summary, sizeof **out, summary_row, summary_free_rows, &rows,
                     n, "summing self-scores", err, "It", user_id, pack_id);
    *out = rows;
    return rc;
}
