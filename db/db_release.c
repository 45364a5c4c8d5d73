/*
 * db_release.c — what graded work in a class keeps in a store: a
 * student's id (users.student_id) and the store's own uid (store_meta) on
 * the student's side; the releases an instructor made (releases) on the
 * instructor's; and the official grades feedback files bring back
 * (officials), on the student's.
 */
#include "db/db_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- the student's id and the store's uid --------------------------------------- */

bool db_student_id_ok(const char *sid)
{
    size_t n = sid ? strlen(sid) : 0;
    if (n < 1 || n > DB_STUDENT_ID_MAX)
        return false;
    for (const unsigned char *p = (const unsigned char *)sid; *p; p++)
        if (*p < 0x21 || *p == 0x7f) /* no space, no control character */
            return false;
    uint32_t cp;
    for (size_t at = 0; sid[at]; at += core_utf8_decode(sid + at, &cp))
        if (core_utf8_decode(sid + at, &cp) == 0 || (cp >= 0x80 && cp < 0xa0))
            return false;
    return true;
}

static const char sql_sid_get[] = "SELECT student_id FROM users WHERE id = ?1";
static const char sql_sid_set[] = "UPDATE users SET student_id = ?2 WHERE id = ?1";

int db_user_student_id(struct db *db, int64_t user_id, char **out, struct core_err *err)
{
    *out = NULL;
    sqlite3_stmt *st;
    int rc = db_stmt(db, sql_sid_get, &st, err);
    if (rc)
        return rc;
    int src = db_bindf(st, "I", user_id);
    if (src == SQLITE_OK)
        src = sqlite3_step(st);
    if (src == SQLITE_ROW)
        *out = db_col_dup(st, 0);
    else if (src == SQLITE_DONE)
        rc = core_err_set(err, CORE_ERR_NOTFOUND, "no user %lld", (long long)user_id);
    else
        rc = db_fail(db, err, src, "reading the student id");
    db_stmt_done(st);
    return rc;
}

static const char sql_sealed_count[] =
    "SELECT count(*) FROM attempts WHERE user_id = ?1 AND sealed AND regrade_of IS NULL";

int db_user_set_student_id(struct db *db, int64_t user_id, const char *sid, struct core_err *err)
{
    if (!db_student_id_ok(sid))
        return core_err_set(err, CORE_ERR_INVALID,
                            "a student id is 1 to %d characters, without spaces or control "
                            "characters",
                            DB_STUDENT_ID_MAX);
    char *have = NULL;
    int rc = db_user_student_id(db, user_id, &have, err);
    if (rc)
        return rc;
    bool same = have && strcmp(have, sid) == 0;
    if (have && !same) {
        sqlite3_stmt *st = NULL;
        rc = db_stmt(db, sql_sealed_count, &st, err);
        int src = rc ? SQLITE_OK : db_bindf(st, "I", user_id);
        if (!rc && src == SQLITE_OK)
            src = sqlite3_step(st);
        if (!rc && src != SQLITE_ROW)
            rc = db_fail(db, err, src, "counting graded answers");
        else if (!rc && sqlite3_column_int64(st, 0) > 0)
            rc = core_err_set(err, CORE_ERR_CONFLICT,
                              "your student id is %s, and graded answers were made under it: it "
                              "cannot change now",
                              have);
        if (st)
            db_stmt_done(st);
    }
    free(have);
    if (rc || same)
        return rc;
    sqlite3_stmt *st;
    rc = db_stmt(db, sql_sid_set, &st, err);
    if (rc)
        return rc;
    return db_step_done(db, st, db_bindf(st, "It", user_id, sid), "storing the student id", err);
}

static const char sql_store_uid[] = "SELECT value FROM store_meta WHERE key = 'uid'";

int db_store_uid(struct db *db, char out[33], struct core_err *err)
{
    out[0] = '\0';
    sqlite3_stmt *st;
    int rc = db_stmt(db, sql_store_uid, &st, err);
    if (rc)
        return rc;
    int src = sqlite3_step(st);
    if (src == SQLITE_ROW && db_col_text(st, 0) && strlen(db_col_text(st, 0)) == 32)
        memcpy(out, db_col_text(st, 0), 33);
    else if (src == SQLITE_ROW || src == SQLITE_DONE)
        rc = core_err_set(err, CORE_ERR_STORE, "store %s has no uid", db->path);
    else
        rc = db_fail(db, err, src, "reading the store's uid");
    db_stmt_done(st);
    return rc;
}

/* ---- releases (the instructor's) ------------------------------------------------------ */

void db_release_fini(struct db_release *r)
{
    if (!r)
        return;
    free(r->digest);
    free(r->pack_id);
    free(r->version);
    free(r->salt);
    free(r->perms_json);
    free(r->made_at);
    memset(r, 0, sizeof *r);
}

static const char sql_release_add[] =
    "INSERT INTO releases(digest, pack_id, rev_id, version, salt, perms, made_at) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT(digest) DO NOTHING";

int db_release_add(struct db *db, const struct db_release_in *in, struct core_err *err)
{
    if (!in->digest || strlen(in->digest) != 64 || !in->pack_id || !in->salt || !in->version)
        return core_err_set(err, CORE_ERR_INVALID,
                            "a release needs a digest, pack, version and salt");
    sqlite3_stmt *st;
    int rc = db_stmt(db, sql_release_add, &st, err);
    if (rc)
        return rc;
    char now[32];
    db_now(now);
    return db_step_done(db, st,
                        db_bindf(st, "ttItttt", in->digest, in->pack_id, in->rev_id, in->version,
                                 in->salt, in->perms_json ? in->perms_json : "{}", now),
                        "recording the release", err);
}

#define RELEASE_COLUMNS                                                                            \
    "SELECT digest, pack_id, rev_id, version, salt, perms, made_at FROM releases "

static void release_row(sqlite3_stmt *st, void *elem)
{
    struct db_release *r = elem;
    r->digest = db_col_dup(st, 0);
    r->pack_id = db_col_dup(st, 1);
    r->rev_id = sqlite3_column_int64(st, 2);
    r->version = db_col_dup(st, 3);
    r->salt = db_col_dup(st, 4);
    r->perms_json = db_col_dup(st, 5);
    r->made_at = db_col_dup(st, 6);
}

void db_releases_free(struct db_release *r, size_t n)
{
    for (size_t i = 0; r && i < n; i++)
        db_release_fini(&r[i]);
    free(r);
}

static void releases_free_rows(void *r, size_t n)
{
    db_releases_free(r, n);
}

int db_release_list(struct db *db, const char *pack_id, struct db_release **out, size_t *n,
                    struct core_err *err)
{
    void *rows;
    int rc = db_list(db, RELEASE_COLUMNS "WHERE ?1 IS NULL OR pack_id = ?1 ORDER BY made_at, rowid",
                     sizeof **out, release_row, releases_free_rows, &rows, n, "listing releases",
                     err, "t", pack_id);
    *out = rows;
    return rc;
}

/* The one release `sql` finds with its one text parameter. */
static int release_one(struct db *db, const char *sql, const char *arg, const char *what,
                       struct db_release *out, struct core_err *err)
{
    memset(out, 0, sizeof *out);
    struct db_release *rows = NULL;
    size_t n = 0;
    int rc = db_list(db, sql, sizeof *rows, release_row, releases_free_rows, (void **)&rows, &n,
                     "reading a release", err, "t", arg);
    if (rc)
        return rc;
    if (n == 0) {
        db_releases_free(rows, n);
        return core_err_set(err, CORE_ERR_NOTFOUND, "no release %s %s", what, arg);
    }
    *out = rows[n - 1];
    memset(&rows[n - 1], 0, sizeof rows[n - 1]);
    db_releases_free(rows, n);
    return CORE_OK;
}

int db_release_get(struct db *db, const char *digest, struct db_release *out, struct core_err *err)
{
    return release_one(db, RELEASE_COLUMNS "WHERE digest = ?1", digest, "with digest", out, err);
}

int db_release_latest(struct db *db, const char *pack_id, struct db_release *out,
                      struct core_err *err)
{
    return release_one(db, RELEASE_COLUMNS "WHERE pack_id = ?1 ORDER BY made_at, rowid", pack_id,
                       "of pack", out, err);
}

/* ---- official grades (the student's) --------------------------------------------------- */

static const char sql_official_add[] =
    "INSERT INTO officials(user_id, uid, pack_id, lesson_id, question_id, score, max, status, "
    "note, graded_at, imported_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11) "
    "ON CONFLICT(uid) DO NOTHING";

int db_official_insert_many(struct db *db, int64_t user_id, const struct db_official_in *in,
                            size_t n, size_t *added, struct core_err *err)
{
    if (added)
        *added = 0;
    for (size_t i = 0; i < n; i++) {
        const struct db_official_in *o = &in[i];
        if (!o->uid || !o->pack_id || !o->status || !o->graded_at || !isfinite(o->max) ||
            o->max < 0 || (o->has_score && !isfinite(o->score)))
            return core_err_set(err, CORE_ERR_INVALID, "official grade %zu breaks the format",
                                i + 1);
    }
    char now[32];
    db_now(now);
    int rc = db_tx_begin(db, err);
    for (size_t i = 0; i < n && !rc; i++) {
        const struct db_official_in *o = &in[i];
        sqlite3_stmt *st;
        rc = db_stmt(db, sql_official_add, &st, err);
        if (rc)
            break;
        rc = db_step_done(db, st,
                          db_bindf(st, "IttttNdtttt", user_id, o->uid, o->pack_id, o->lesson_id,
                                   o->question_id, o->has_score ? o->score : NAN, o->max, o->status,
                                   o->note ? o->note : "", o->graded_at, now),
                          "storing an official grade", err);
        if (!rc && added)
            *added += (size_t)sqlite3_changes(db->h);
    }
    return db_tx_end(db, rc, err);
}

void db_officials_free(struct db_official *o, size_t n)
{
    for (size_t i = 0; o && i < n; i++) {
        free(o[i].pack_id);
        free(o[i].lesson_id);
        free(o[i].question_id);
        free(o[i].status);
        free(o[i].note);
        free(o[i].graded_at);
    }
    free(o);
}

static void official_row(sqlite3_stmt *st, void *elem)
{
    struct db_official *o = elem;
    o->pack_id = db_col_dup(st, 0);
    o->lesson_id = db_col_dup(st, 1);
    o->question_id = db_col_dup(st, 2);
    o->has_score = sqlite3_column_type(st, 3) != SQLITE_NULL;
    o->score = o->has_score ? sqlite3_column_double(st, 3) : 0;
    o->max = sqlite3_column_double(st, 4);
    o->status = db_col_dup(st, 5);
    o->note = db_col_dup(st, 6);
    o->graded_at = db_col_dup(st, 7);
}

static void officials_free_rows(void *o, size_t n)
{
    db_officials_free(o, n);
}

/* The latest official grade per item (question, or lesson total). */
static const char sql_officials[] =
    "SELECT o.pack_id, o.lesson_id, o.question_id, o.score, o.max, o.status, o.note, o.graded_at "
    "FROM officials o WHERE o.user_id = ?1 AND (?2 IS NULL OR o.pack_id = ?2) "
    "AND o.id = (SELECT w.id FROM officials w WHERE w.user_id = o.user_id "
    "  AND w.pack_id = o.pack_id AND w.lesson_id IS o.lesson_id AND w.question_id IS o.question_id "
    "  ORDER BY w.graded_at DESC, w.id DESC LIMIT 1) "
    "ORDER BY o.pack_id, o.lesson_id, o.question_id IS NOT NULL, o.question_id";

int db_official_list(struct db *db, int64_t user_id, const char *pack_id, struct db_official **out,
                     size_t *n, struct core_err *err)
{
    void *rows;
    int rc = db_list(db, sql_officials, sizeof **out, official_row, officials_free_rows, &rows, n,
                     "listing official grades", err, "It", user_id, pack_id);
    *out = rows;
    return rc;
}

/* ---- looking things up for the release checks ---------------------------------------- */

static const char sql_rev_by_digest[] =
    "SELECT id, version FROM pack_revs WHERE pack_id = ?1 AND digest = ?2 ORDER BY id DESC LIMIT 1";

int db_pack_rev_by_digest(struct db *db, const char *pack_id, const char *digest, int64_t *rev_id,
                          char **version, struct core_err *err)
{
    *rev_id = 0;
    if (version)
        *version = NULL;
    sqlite3_stmt *st;
    int rc = db_stmt(db, sql_rev_by_digest, &st, err);
    if (rc)
        return rc;
    int src = db_bindf(st, "tt", pack_id, digest);
    if (src == SQLITE_OK)
        src = sqlite3_step(st);
    if (src == SQLITE_ROW) {
        *rev_id = sqlite3_column_int64(st, 0);
        if (version)
            *version = db_col_dup(st, 1);
    } else if (src == SQLITE_DONE) {
        rc = core_err_set(err, CORE_ERR_NOTFOUND, "no revision of pack %s has digest %.12s",
                          pack_id, digest);
    } else {
        rc = db_fail(db, err, src, "looking up a revision of pack %s", pack_id);
    }
    db_stmt_done(st);
    return rc;
}

int db_text_each(struct db *db,
                 void (*fn)(const char *table, const char *text, size_t len, void *ctx), void *ctx,
                 struct core_err *err)
{
    sqlite3_stmt *tabs = NULL;
    int src = sqlite3_prepare_v2(db->h,
                                 "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT "
                                 "LIKE 'sqlite_%' ORDER BY name",
                                 -1, &tabs, NULL);
    int rc = 0;
    while (src == SQLITE_OK && (src = sqlite3_step(tabs)) == SQLITE_ROW) {
        src = SQLITE_OK;
        const char *name = db_col_text(tabs, 0);
        char *sql = core_xasprintf("SELECT * FROM \"%s\"", name);
        sqlite3_stmt *st = NULL;
        int s2 = sqlite3_prepare_v2(db->h, sql, -1, &st, NULL);
        free(sql);
        while (s2 == SQLITE_OK && (s2 = sqlite3_step(st)) == SQLITE_ROW) {
            s2 = SQLITE_OK;
            for (int c = 0; c < sqlite3_column_count(st); c++) {
                int ty = sqlite3_column_type(st, c);
                if (ty != SQLITE_TEXT && ty != SQLITE_BLOB)
                    continue;
                const char *t = ty == SQLITE_TEXT ? (const char *)sqlite3_column_text(st, c)
                                                  : (const char *)sqlite3_column_blob(st, c);
                size_t len = (size_t)sqlite3_column_bytes(st, c);
                if (t)
                    fn(name, t, len, ctx);
            }
        }
        if (s2 != SQLITE_DONE)
            rc = db_fail(db, err, s2, "reading table %s", name);
        sqlite3_finalize(st);
        if (rc)
            break;
    }
    if (!rc && src != SQLITE_DONE)
        rc = db_fail(db, err, src, "listing the tables");
    sqlite3_finalize(tabs);
    return rc;
}
