/*
 * db_exam.c — exam sittings: when a user started an exam lesson, its
 * deadline, and when it was submitted.
 *
 * A row is written once when the exam starts and changed once, when it is
 * submitted (a trigger refuses anything else), so a sitting cannot be
 * restarted to get a new clock or re-opened after the results were shown.
 */
#include "db/db_internal.h"

#include <stdlib.h>
#include <string.h>

static const char sql_exam_start[] =
    "INSERT INTO exams(user_id, pack_id, lesson_id, rev_id, started_at, deadline) "
    "SELECT ?1, ?2, ?3, ?4, ?5, ?6 "
    "WHERE EXISTS (SELECT 1 FROM pack_revs WHERE id = ?4 AND pack_id = ?2) "
    "ON CONFLICT (user_id, pack_id, lesson_id) DO NOTHING";
static const char sql_exam_get[] =
    "SELECT pack_id, lesson_id, rev_id, started_at, deadline, submitted_at FROM exams "
    "WHERE user_id = ?1 AND pack_id = ?2 AND lesson_id = ?3";
static const char sql_exam_submit[] =
    "UPDATE exams SET submitted_at = ?4 "
    "WHERE user_id = ?1 AND pack_id = ?2 AND lesson_id = ?3 AND submitted_at IS NULL";

void db_exam_fini(struct db_exam *x)
{
    if (!x)
        return;
    free(x->pack_id);
    free(x->lesson_id);
    free(x->started_at);
    free(x->deadline);
    free(x->submitted_at);
    memset(x, 0, sizeof *x);
}

int db_exam_get(struct db *db, int64_t user_id, const char *pack_id, const char *lesson_id,
                struct db_exam *out, struct core_err *err)
{
    memset(out, 0, sizeof *out);
    sqlite3_stmt *st;
    int rc = db_stmt(db, sql_exam_get, &st, err);
    if (rc)
        return rc;
    int src = db_bindf(st, "Itt", user_id, pack_id, lesson_id);
    if (src == SQLITE_OK)
        src = sqlite3_step(st);
    if (src == SQLITE_ROW) {
        out->pack_id = db_col_dup(st, 0);
        out->lesson_id = db_col_dup(st, 1);
        out->rev_id = sqlite3_column_int64(st, 2);
        out->started_at = db_col_dup(st, 3);
        out->deadline = db_col_dup(st, 4);
        out->submitted_at = db_col_dup(st, 5);
        char now[32];
        db_now(now);
        out->over = out->submitted_at || (out->deadline && strcmp(out->deadline, now) <= 0);
    } else if (src == SQLITE_DONE) {
        rc = core_err_set(err, CORE_ERR_NOTFOUND, "exam %s:%s has not been started", pack_id,
                          lesson_id);
    } else {
        rc = db_fail(db, err, src, "reading exam %s:%s", pack_id, lesson_id);
    }
    db_stmt_done(st);
    return rc;
}

int db_exam_start(struct db *db, int64_t user_id, const char *pack_id, const char *lesson_id,
                  int64_t rev_id, int time_limit_s, struct db_exam *out, struct core_err *err)
{
    memset(out, 0, sizeof *out);
    if (!pack_id || !*pack_id || !lesson_id || !*lesson_id || time_limit_s < 0)
        return core_err_set(err, CORE_ERR_INVALID, "an exam needs a pack, a lesson and a limit");
    char now[32], deadline[32];
    double t = core_time_wall();
    core_time_iso(t, now);
    if (time_limit_s > 0)
        core_time_iso(t + time_limit_s, deadline);
    sqlite3_stmt *st;
    int rc = db_stmt(db, sql_exam_start, &st, err);
    if (rc)
        return rc;
    int src = db_bindf(st, "IttItt", user_id, pack_id, lesson_id, rev_id, now,
                       time_limit_s > 0 ? deadline : NULL);
    rc = db_step_done(db, st, src, "starting an exam", err);
    if (rc)
        return core_err_prefix(err, "exam %s:%s", pack_id, lesson_id);
    rc = db_exam_get(db, user_id, pack_id, lesson_id, out, err);
    if (rc == CORE_ERR_NOTFOUND) /* not inserted: rev_id is not the pack's */
        rc = core_err_set(err, CORE_ERR_INVALID,
                          "exam %s:%s: revision %lld is not a revision of pack %s", pack_id,
                          lesson_id, (long long)rev_id, pack_id);
    return rc;
}

int db_exam_submit(struct db *db, int64_t user_id, const char *pack_id, const char *lesson_id,
                   bool *submitted, struct core_err *err)
{
    if (submitted)
        *submitted = false;
    char now[32];
    db_now(now);
    sqlite3_stmt *st;
    int rc = db_stmt(db, sql_exam_submit, &st, err);
    if (rc)
        return rc;
    int src = db_bindf(st, "Ittt", user_id, pack_id, lesson_id, now);
    rc = db_step_done(db, st, src, "submitting an exam", err);
    if (rc)
        return core_err_prefix(err, "exam %s:%s", pack_id, lesson_id);
    if (submitted)
        *submitted = sqlite3_changes(db->h) > 0;
    return 0;
}
