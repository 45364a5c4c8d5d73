/*
 * db_position.c — where each user is in each lesson, so the reader reopens
 * on the page they left and home can offer the lesson to continue.
 */
#include "db/db_internal.h"

#include <stdlib.h>

static const char sql_pos_set[] =
    "INSERT OR REPLACE INTO positions(user_id, pack_id, lesson_id, page, question_id, updated_at) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6)";
static const char sql_pos_get[] =
    "SELECT pack_id, lesson_id, page, question_id, updated_at FROM positions "
    "WHERE user_id = ?1 AND pack_id = ?2 AND lesson_id = ?3";
/* REPLACE deletes and re-inserts, so the newest row has the highest rowid:
 * that breaks ties between positions stored within the same millisecond. */
static const char sql_pos_latest[] =
    "SELECT pack_id, lesson_id, page, question_id, updated_at FROM positions "
    "WHERE user_id = ?1 ORDER BY updated_at DESC, rowid DESC LIMIT 1";

void db_position_fini(struct db_position *p)
{
    if (!p)
        return;
    free(p->pack_id);
    free(p->lesson_id);
    free(p->question_id);
    free(p->updated_at);
    *p = (struct db_position){0};
}

int db_position_set(struct db *db, int64_t user_id, const char *pack_id, const char *lesson_id,
                    int page, const char *question_id, struct core_err *err)
{
    if (!pack_id || !lesson_id || page < 0)
        return core_err_set(err, CORE_ERR_INVALID, "a position needs a pack, a lesson and a page");
    sqlite3_stmt *st;
    int rc = db_stmt(db, sql_pos_set, &st, err);
    if (rc)
        return rc;
    char now[32];
    db_now(now);
    return db_step_done(db, st,
                        db_bindf(st, "Ittitt", user_id, pack_id, lesson_id, page, question_id, now),
                        "storing a reading position", err);
}

/* Runs a position query already bound and reads its one row. */
static int read_position(struct db *db, sqlite3_stmt *st, int bind_rc, struct db_position *out,
                         struct core_err *err)
{
    *out = (struct db_position){0};
    int src = bind_rc == SQLITE_OK ? sqlite3_step(st) : bind_rc;
    int rc = 0;
    if (src == SQLITE_ROW) {
        out->pack_id = db_col_dup(st, 0);
        out->lesson_id = db_col_dup(st, 1);
        out->page = sqlite3_column_int(st, 2);
        out->question_id = db_col_dup(st, 3);
        out->updated_at = db_col_dup(st, 4);
    } else if (src == SQLITE_DONE) {
        rc = core_err_set(err, CORE_ERR_NOTFOUND, "no reading position");
    } else {
        rc = db_fail(db, err, src, "reading a position");
    }
    db_stmt_done(st);
    return rc;
}

int db_position_get(struct db *db, int64_t user_id, const char *pack_id, const char *lesson_id,
                    struct db_position *out, struct core_err *err)
{
    sqlite3_stmt *st;
    int rc = db_stmt(db, sql_pos_get, &st, err);
    if (rc)
        return rc;
    return read_position(db, st, db_bindf(st, "Itt", user_id, pack_id, lesson_id), out, err);
}

int db_position_latest(struct db *db, int64_t user_id, struct db_position *out,
                       struct core_err *err)
{
    sqlite3_stmt *st;
    int rc = db_stmt(db, sql_pos_latest, &st, err);
    if (rc)
        return rc;
    return read_position(db, st, db_bindf(st, "I", user_id), out, err);
}
