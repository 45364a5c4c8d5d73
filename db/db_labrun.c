/*
 * db_labrun.c — lab run records and their metric samples.
 */
#include "db/db_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char sql_run_add[] =
    "INSERT INTO lab_runs(user_id, lab, params_json, machine_json, status, started_at) "
    "VALUES (?1, ?2, ?3, ?4, 'running', ?5)";
static const char sql_run_status[] = "SELECT status FROM lab_runs WHERE id = ?1";
static const char sql_sample_add[] =
    "INSERT INTO lab_samples(run_id, series, step, value, t) VALUES (?1, ?2, ?3, ?4, ?5)";
static const char sql_run_end[] =
    "UPDATE lab_runs SET status = ?2, summary_json = ?3, ended_at = ?4 "
    "WHERE id = ?1 AND status = 'running'";
static const char sql_run_latest[] =
    "SELECT id, user_id, lab, params_json, machine_json, summary_json, status, started_at, "
    "ended_at FROM lab_runs WHERE user_id = ?1 AND lab = ?2 AND status = 'done' "
    "ORDER BY id DESC LIMIT 1";

int db_labrun_begin(struct db *db, int64_t user_id, const char *lab, const char *params_json,
                    const char *machine_json, int64_t *run_id, struct core_err *err)
{
    if (!lab || !*lab)
        return core_err_set(err, CORE_ERR_INVALID, "a lab run needs the lab's name");
    sqlite3_stmt *st;
    int rc = db_stmt(db, sql_run_add, &st, err);
    if (rc)
        return rc;
    char now[32];
    db_now(now);
    rc = db_step_done(db, st,
                      db_bindf(st, "Itttt", user_id, lab, params_json ? params_json : "{}",
                               machine_json ? machine_json : "{}", now),
                      "starting a lab run record", err);
    if (rc) {
        core_err_prefix(err, "lab %s", lab);
        return rc;
    }
    if (run_id)
        *run_id = sqlite3_last_insert_rowid(db->h);
    return 0;
}

/* Reads a run's status into a malloc'd *status; CORE_ERR_NOTFOUND when the
 * run does not exist. */
static int run_status(struct db *db, int64_t run_id, char **status, struct core_err *err)
{
    sqlite3_stmt *st;
    *status = NULL;
    int rc = db_stmt(db, sql_run_status, &st, err);
    if (rc)
        return rc;
    int src = db_bindf(st, "I", run_id);
    if (src == SQLITE_OK)
        src = sqlite3_step(st);
    if (src == SQLITE_ROW)
        *status = db_col_dup(st, 0);
    else if (src == SQLITE_DONE)
        rc = core_err_set(err, CORE_ERR_NOTFOUND, "no lab run %lld", (long long)run_id);
    else
        rc = db_fail(db, err, src, "looking up lab run %lld", (long long)run_id);
    db_stmt_done(st);
    return rc;
}

int db_labrun_samples(struct db *db, int64_t run_id, const struct core_sample *s, size_t n,
                      struct core_err *err)
{
    if (n == 0)
        return 0;
    int rc = db_tx_begin(db, err);
    if (rc)
        return rc;
    char *status = NULL;
    rc = run_status(db, run_id, &status, err);
    if (!rc && strcmp(status, "running") != 0)
        rc = core_err_set(err, CORE_ERR_CONFLICT, "lab run %lld has ended (%s)", (long long)run_id,
                          status);
    for (size_t i = 0; i < n && !rc; i++) {
        if (!s[i].series || !*s[i].series) {
            rc = core_err_set(err, CORE_ERR_INVALID, "lab run %lld: sample %zu has no series",
                              (long long)run_id, i + 1);
            break;
        }
        sqlite3_stmt *st;
        rc = db_stmt(db, sql_sample_add, &st, err);
        if (rc)
            break;
        /* A NaN value is stored as NULL (SQLite would do so anyway). */
        int src = db_bindf(st, "ItINd", run_id, s[i].series, (int64_t)s[i].step, s[i].value,
                           isfinite(s[i].t) ? s[i].t : 0.0);
        rc = db_step_done(db, st, src, "storing a lab sample", err);
    }
    free(status);
    if (rc) {
        db_tx_rollback(db);
        return rc;
    }
    return db_tx_commit(db, err);
}

int db_labrun_end(struct db *db, int64_t run_id, const char *status, const char *summary_json,
                  struct core_err *err)
{
    if (!status || (strcmp(status, "done") != 0 && strcmp(status, "cancelled") != 0 &&
                    strcmp(status, "failed") != 0))
        return core_err_set(err, CORE_ERR_INVALID,
                            "a lab run ends as done, cancelled or failed, not '%s'",
                            status ? status : "(null)");
    sqlite3_stmt *st;
    int rc = db_stmt(db, sql_run_end, &st, err);
    if (rc)
        return rc;
    char now[32];
    db_now(now);
    rc = db_step_done(db, st, db_bindf(st, "Ittt", run_id, status, summary_json, now),
                      "ending a lab run", err);
    if (rc || sqlite3_changes(db->h) == 1)
        return rc;
    /* Nothing changed: say whether the run is unknown or already over. */
    char *cur = NULL;
    rc = run_status(db, run_id, &cur, err);
    if (!rc)
        rc = core_err_set(err, CORE_ERR_CONFLICT, "lab run %lld has already ended (%s)",
                          (long long)run_id, cur);
    free(cur);
    return rc;
}

void db_labrun_fini(struct db_labrun *r)
{
    if (!r)
        return;
    free(r->lab);
    free(r->params_json);
    free(r->machine_json);
    free(r->summary_json);
    free(r->status);
    free(r->started_at);
    free(r->ended_at);
    memset(r, 0, sizeof *r);
}

int db_labrun_latest(struct db *db, int64_t user_id, const char *lab, struct db_labrun *out,
                     struct core_err *err)
{
    memset(out, 0, sizeof *out);
    if (!lab)
        return core_err_set(err, CORE_ERR_NOTFOUND, "no lab given");
    sqlite3_stmt *st;
    int rc = db_stmt(db, sql_run_latest, &st, err);
    if (rc)
        return rc;
    int src = db_bindf(st, "It", user_id, lab);
    if (src == SQLITE_OK)
        src = sqlite3_step(st);
    if (src == SQLITE_ROW) {
        out->id = sqlite3_column_int64(st, 0);
        out->user_id = sqlite3_column_int64(st, 1);
        out->lab = db_col_dup(st, 2);
        out->params_json = db_col_dup(st, 3);
        out->machine_json = db_col_dup(st, 4);
        out->summary_json = db_col_dup(st, 5);
        out->status = db_col_dup(st, 6);
        out->started_at = db_col_dup(st, 7);
        out->ended_at = db_col_dup(st, 8);
    } else if (src == SQLITE_DONE) {
        rc = core_err_set(err, CORE_ERR_NOTFOUND, "no finished run of lab %s", lab);
    } else {
        rc = db_fail(db, err, src, "looking up the latest run of lab %s", lab);
    }
    db_stmt_done(st);
    return rc;
}
