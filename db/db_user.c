/*
 * db_user.c — users and their self-assessments (stored dated and never
 * changed: the latest rating of an item is the one that counts).
 */
#include "db/db_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define DB_USER_NAME_MAX 64

/* Counts the characters of a UTF-8 name; -1 when it is not valid UTF-8 or
 * holds a control character. */
static int name_chars(const char *s)
{
    int n = 0;
    for (size_t at = 0; s[at]; n++) {
        uint32_t cp;
        size_t len = core_utf8_decode(s + at, &cp);
        /* C0 and C1 controls and DEL are not printable. */
        if (len == 0 || cp < 0x20 || (cp >= 0x7f && cp < 0xa0))
            return -1;
        at += len;
    }
    return n;
}

static const char sql_user_find[] = "SELECT id FROM users WHERE name = ?1";
static const char sql_user_add[] =
    "INSERT INTO users(name, created_at) VALUES (?1, ?2) ON CONFLICT(name) DO NOTHING";

static int user_find(struct db *db, const char *name, int64_t *id, bool *found,
                     struct core_err *err)
{
    sqlite3_stmt *st;
    int rc = db_stmt(db, sql_user_find, &st, err);
    if (rc)
        return rc;
    *found = false;
    int src = db_bindf(st, "t", name);
    if (src == SQLITE_OK)
        src = sqlite3_step(st);
    if (src == SQLITE_ROW) {
        *id = sqlite3_column_int64(st, 0);
        *found = true;
    } else if (src != SQLITE_DONE) {
        rc = db_fail(db, err, src, "looking up user '%s'", name);
    }
    db_stmt_done(st);
    return rc;
}

int db_user_ensure(struct db *db, const char *name, int64_t *id, struct core_err *err)
{
    int chars = name ? name_chars(name) : 0;
    if (chars < 1 || chars > DB_USER_NAME_MAX)
        return core_err_set(err, CORE_ERR_INVALID, "a user name is 1 to %d printable characters",
                            DB_USER_NAME_MAX);
    bool found;
    int64_t uid = 0;
    int rc = user_find(db, name, &uid, &found, err);
    if (rc || found)
        goto out;
    /* Another process may add the same name between the two statements;
     * DO NOTHING and a second look-up make that harmless. */
    sqlite3_stmt *st;
    rc = db_stmt(db, sql_user_add, &st, err);
    if (rc)
        goto out;
    char now[32];
    db_now(now);
    rc = db_step_done(db, st, db_bindf(st, "tt", name, now), "adding a user", err);
    if (!rc)
        rc = user_find(db, name, &uid, &found, err);
    if (!rc && !found)
        rc = core_err_set(err, CORE_ERR_STORE, "user '%s' vanished after being added", name);
out:
    if (!rc && id)
        *id = uid;
    return rc;
}

static const char sql_selfassess_add[] =
    "INSERT INTO selfassess(user_id, item, score, max, created_at) VALUES (?1, ?2, ?3, ?4, ?5)";

static int selfassess_check(const char *item, double score, double max, struct core_err *err);

int db_selfassess_insert(struct db *db, int64_t user_id, const char *item, double score, double max,
                         struct core_err *err)
{
    int rc0 = selfassess_check(item, score, max, err);
    if (rc0)
        return rc0;
    sqlite3_stmt *st;
    int rc = db_stmt(db, sql_selfassess_add, &st, err);
    if (rc)
        return rc;
    char now[32];
    db_now(now);
    return db_step_done(db, st, db_bindf(st, "Itddt", user_id, item, score, max, now),
                        "storing a self-assessment", err);
}

static int selfassess_check(const char *item, double score, double max, struct core_err *err)
{
    if (!item || !*item)
        return core_err_set(err, CORE_ERR_INVALID, "a self-assessment needs a rubric item");
    if (!isfinite(score) || !isfinite(max) || max <= 0 || score < 0 || score > max)
        return core_err_set(err, CORE_ERR_INVALID,
                            "self-assessment of '%s': score %g out of %g is not between 0 and "
                            "a positive maximum",
                            item, score, max);
    return 0;
}

int db_selfassess_insert_many(struct db *db, int64_t user_id, const struct db_selfassess_in *in,
                              size_t n, struct core_err *err)
{
    /* Check everything first, so a bad row refuses the whole set before the
     * write lock is taken. */
    for (size_t i = 0; i < n; i++) {
        int rc = selfassess_check(in[i].item, in[i].score, in[i].max, err);
        if (rc)
            return rc;
    }
    if (n == 0)
        return 0;
    char now[32];
    db_now(now);
    int rc = db_tx_begin(db, err);
    if (rc)
        return rc;
    for (size_t i = 0; i < n && !rc; i++) {
        sqlite3_stmt *st;
        rc = db_stmt(db, sql_selfassess_add, &st, err);
        if (!rc)
            rc = db_step_done(
                db, st, db_bindf(st, "Itddt", user_id, in[i].item, in[i].score, in[i].max, now),
                "storing a self-assessment", err);
    }
    return db_tx_end(db, rc, err);
}

static const char sql_selfassess_latest[] =
    "SELECT s.id, s.item, s.score, s.max, s.created_at FROM selfassess s "
    "WHERE s.id IN (SELECT max(id) FROM selfassess WHERE user_id = ?1 GROUP BY item) "
    "ORDER BY s.item";
static const char sql_selfassess_list[] =
    "SELECT id, item, score, max, created_at FROM selfassess WHERE user_id = ?1 ORDER BY id";

void db_selfassess_free(struct db_selfassess *s, size_t n)
{
    if (!s)
        return;
    for (size_t i = 0; i < n; i++) {
        free(s[i].item);
        free(s[i].created_at);
    }
    free(s);
}

static void selfassess_row(sqlite3_stmt *st, void *elem)
{
    struct db_selfassess *s = elem;
    s->id = sqlite3_column_int64(st, 0);
    s->item = db_col_dup(st, 1);
    s->score = sqlite3_column_double(st, 2);
    s->max = sqlite3_column_double(st, 3);
    s->created_at = db_col_dup(st, 4);
}

static void selfassess_free_rows(void *s, size_t n)
{
    db_selfassess_free(s, n);
}

static int selfassess_read(struct db *db, const char *sql, int64_t user_id,
                           struct db_selfassess **out, size_t *n, struct core_err *err)
{
    void *rows;
    int rc = db_list(db, sql, sizeof **out, selfassess_row, selfassess_free_rows, &rows, n,
                     "reading self-assessments", err, "I", user_id);
    *out = rows;
    return rc;
}

int db_selfassess_latest(struct db *db, int64_t user_id, struct db_selfassess **out, size_t *n,
                         struct core_err *err)
{
    return selfassess_read(db, sql_selfassess_latest, user_id, out, n, err);
}

int db_selfassess_list(struct db *db, int64_t user_id, struct db_selfassess **out, size_t *n,
                       struct core_err *err)
{
    return selfassess_read(db, sql_selfassess_list, user_id, out, n, err);
}
