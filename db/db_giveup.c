/*
 * db_giveup.c — the append-only log of give-ups: a student asked to see a
 * question's accepted answer instead of finding it.
 *
 * Each row keeps the highest attempt id at the time (last_attempt), so the
 * attempt and progress queries (db_attempt.c) tell the attempts made after
 * a give-up by id, not by clock.
 */
#include "db/db_internal.h"

#include <stdlib.h>

/* The row is written only when rev_id is a revision of the pack: the
 * changes count tells the two apart. */
static const char sql_giveup_add[] =
    "INSERT INTO giveups(user_id, pack_id, question_id, variant, rev_id, last_attempt, created_at) "
    "SELECT ?1, ?2, ?3, ?4, ?5, coalesce((SELECT max(id) FROM attempts), 0), ?6 "
    "WHERE EXISTS (SELECT 1 FROM pack_revs WHERE id = ?5 AND pack_id = ?2)";

int db_giveup_insert(struct db *db, int64_t user_id, const char *pack_id, const char *question_id,
                     int variant, int64_t rev_id, int64_t *id, struct core_err *err)
{
    if (!pack_id || !*pack_id || !question_id || !*question_id)
        return core_err_set(err, CORE_ERR_INVALID, "a give-up needs a pack and a question");
    if (variant < 1)
        return core_err_set(err, CORE_ERR_INVALID, "give-up at %s:%s: variant %d is below 1",
                            pack_id, question_id, variant);
    char now[32];
    db_now(now);
    sqlite3_stmt *st;
    int rc = db_stmt(db, sql_giveup_add, &st, err);
    if (rc)
        return rc;
    int src = db_bindf(st, "IttiIt", user_id, pack_id, question_id, variant, rev_id, now);
    rc = db_step_done(db, st, src, "storing a give-up", err);
    if (rc)
        return core_err_prefix(err, "give-up at %s:%s", pack_id, question_id);
    if (sqlite3_changes(db->h) == 0)
        return core_err_set(err, CORE_ERR_INVALID,
                            "give-up at %s:%s: revision %lld is not a revision of pack %s", pack_id,
                            question_id, (long long)rev_id, pack_id);
    if (id)
        *id = sqlite3_last_insert_rowid(db->h);
    return 0;
}

static const char sql_giveup_list[] =
    "SELECT id, pack_id, question_id, variant, rev_id, last_attempt, created_at FROM giveups "
    "WHERE user_id = ?1 AND (?2 IS NULL OR pack_id = ?2) AND (?3 IS NULL OR question_id = ?3) "
    "ORDER BY id";

void db_giveups_free(struct db_giveup *g, size_t n)
{
    if (!g)
        return;
    for (size_t i = 0; i < n; i++) {
        free(g[i].pack_id);
        free(g[i].question_id);
        free(g[i].created_at);
    }
    free(g);
}

static void giveup_row(sqlite3_stmt *st, void *elem)
{
    struct db_giveup *g = elem;
    g->id = sqlite3_column_int64(st, 0);
    g->pack_id = db_col_dup(st, 1);
    g->question_id = db_col_dup(st, 2);
    g->variant = sqlite3_column_int(st, 3);
    g->rev_id = sqlite3_column_int64(st, 4);
    g->last_attempt = sqlite3_column_int64(st, 5);
    g->created_at = db_col_dup(st, 6);
}

static void giveups_free_rows(void *g, size_t n)
{
    db_giveups_free(g, n);
}

int db_giveup_list(struct db *db, int64_t user_id, const char *pack_id, const char *question_id,
                   struct db_giveup **out, size_t *n, struct core_err *err)
{
    void *rows;
    int rc = db_list(db, sql_giveup_list, sizeof **out, giveup_row, giveups_free_rows, &rows, n,
                     "listing give-ups", err, "Itt", user_id, pack_id, question_id);
    *out = rows;
    return rc;
}
