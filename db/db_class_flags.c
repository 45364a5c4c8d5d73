/*
 * db_class_flags.c — the class store's integrity flags and the
 * instructor's clearing of them, the class roster, and the questions an
 * import asks of what the store already holds (other stores claiming a
 * student).
 *
 * A flag belongs to the submission whose import found it (re-importing or
 * re-grading that submission finds it again); a clearing belongs to the
 * student and the flag's key, so it holds for the same finding in any later
 * import of theirs.
 */
#include "db/db_internal.h"

#include <stdlib.h>
#include <string.h>

void db_class_flags_free(struct db_class_flag *f, size_t n)
{
    for (size_t i = 0; f && i < n; i++) {
        free(f[i].student_key);
        free(f[i].user);
        free(f[i].key);
        free(f[i].kind);
        free(f[i].pack_id);
        free(f[i].lesson_id);
        free(f[i].question_id);
        free(f[i].reason);
        free(f[i].created_at);
        free(f[i].clear_why);
        free(f[i].cleared_at);
        free(f[i].cleared_by);
    }
    free(f);
}

/* The flags of current submissions (or of every submission), each with the
 * latest clearing of its key for its student. */
static const char sql_flags[] =
    "SELECT f.id, f.student, s.key, s.user, f.key, f.kind, f.pack_id, f.lesson_id, "
    "  f.question_id, f.src_attempt, f.blocking, f.reason, f.created_at, c.id IS NOT NULL, "
    "  c.why, c.cleared_at, c.who, f.submission = s.current "
    "FROM flags f JOIN students s ON s.id = f.student "
    "LEFT JOIN clears c ON c.id = (SELECT x.id FROM clears x WHERE x.student = f.student "
    "  AND x.key = f.key ORDER BY x.id DESC LIMIT 1) "
    "WHERE (?1 OR f.submission = s.current) AND (?2 = 0 OR f.student = ?2) "
    "ORDER BY s.key, f.id";

static void flag_row(sqlite3_stmt *st, void *e)
{
    struct db_class_flag *f = e;
    f->id = sqlite3_column_int64(st, 0);
    f->student = sqlite3_column_int64(st, 1);
    f->student_key = db_col_dup(st, 2);
    f->user = db_col_dup(st, 3);
    f->key = db_col_dup(st, 4);
    f->kind = db_col_dup(st, 5);
    f->pack_id = db_col_dup(st, 6);
    f->lesson_id = db_col_dup(st, 7);
    f->question_id = db_col_dup(st, 8);
    f->src_attempt = sqlite3_column_int64(st, 9);
    f->blocking = sqlite3_column_int(st, 10) != 0;
    f->reason = db_col_dup(st, 11);
    f->created_at = db_col_dup(st, 12);
    f->cleared = sqlite3_column_int(st, 13) != 0;
    f->clear_why = db_col_dup(st, 14);
    f->cleared_at = db_col_dup(st, 15);
    f->cleared_by = db_col_dup(st, 16);
    f->current = sqlite3_column_int(st, 17) != 0;
}

static void flags_free_rows(void *f, size_t n)
{
    db_class_flags_free(f, n);
}

int db_class_flags(struct db *cs, int64_t student, bool all_submissions, struct db_class_flag **out,
                   size_t *n, struct core_err *err)
{
    void *rows;
    int rc = db_list(cs, sql_flags, sizeof **out, flag_row, flags_free_rows, &rows, n,
                     "listing flags", err, "iI", all_submissions ? 1 : 0, student);
    *out = rows;
    return rc;
}

static const char sql_flag_of[] = "SELECT student, key FROM flags WHERE id = ?1";
static const char sql_clear_add[] =
    "INSERT INTO clears(student, key, why, who, cleared_at) VALUES (?1, ?2, ?3, ?4, ?5)";

int db_class_clear(struct db *cs, int64_t flag_id, const char *why, const char *who,
                   struct core_err *err)
{
    if (!why || !*why)
        return core_err_set(err, CORE_ERR_USAGE, "say why the flag is cleared (--why TEXT)");
    sqlite3_stmt *st;
    int rc = db_stmt(cs, sql_flag_of, &st, err);
    if (rc)
        return rc;
    int64_t student = 0;
    char *key = NULL;
    int src = db_bindf(st, "I", flag_id);
    if (src == SQLITE_OK)
        src = sqlite3_step(st);
    if (src == SQLITE_ROW) {
        student = sqlite3_column_int64(st, 0);
        key = db_col_dup(st, 1);
    } else if (src == SQLITE_DONE) {
        rc = core_err_set(err, CORE_ERR_NOTFOUND, "no flag %lld (warpbench class flags lists them)",
                          (long long)flag_id);
    } else {
        rc = db_fail(cs, err, src, "looking up flag %lld", (long long)flag_id);
    }
    db_stmt_done(st);
    if (!rc) {
        char now[32];
        db_now(now);
        rc = db_stmt(cs, sql_clear_add, &st, err);
        if (!rc)
            rc = db_step_done(cs, st, db_bindf(st, "Itttt", student, key, why, who, now),
                              "recording the clearing", err);
    }
    free(key);
    return rc;
}

/* ---- what an import asks ----------------------------------------------------------------- */

static const char sql_other_stores[] =
    "SELECT count(*) FROM submissions b JOIN students s ON s.id = b.student "
    "WHERE s.key = ?1 AND b.store_uid IS NOT NULL AND b.store_uid <> ?2 AND b.uid <> ?3";

int db_class_other_stores(struct db *cs, const char *key, const char *store_uid,
                          const char *sub_uid, int *n, struct core_err *err)
{
    *n = 0;
    if (!store_uid)
        return 0;
    sqlite3_stmt *st;
    int rc = db_stmt(cs, sql_other_stores, &st, err);
    if (rc)
        return rc;
    int src = db_bindf(st, "ttt", key, store_uid, sub_uid);
    if (src == SQLITE_OK)
        src = sqlite3_step(st);
    if (src == SQLITE_ROW)
        *n = sqlite3_column_int(st, 0);
    else
        rc = db_fail(cs, err, src, "looking for other stores of student %s", key);
    db_stmt_done(st);
    return rc;
}

static const char sql_twins[] =
    "SELECT DISTINCT s.key FROM attempts a JOIN submissions b ON b.id = a.submission "
    "JOIN students s ON s.id = b.student WHERE a.question_id = ?1 AND a.created_at = ?2 "
    "AND a.pack_id = ?3 AND a.answer = ?4 AND s.key <> ?5";

void db_class_twins_free(struct db_class_twin *t, size_t n)
{
    for (size_t i = 0; t && i < n; i++) {
        free(t[i].pack_id);
        free(t[i].other_key);
    }
    free(t);
}

int db_class_twins(struct db *cs, const char *key, const struct db_submission *sub, size_t stride,
                   struct db_class_twin **out, size_t *n, struct core_err *err)
{
    *out = NULL;
    *n = 0;
    size_t cap = 0;
    sqlite3_stmt *st;
    int rc = db_stmt(cs, sql_twins, &st, err);
    if (rc)
        return rc;
    for (size_t i = 0; i < sub->n_attempts && rc == CORE_OK; i += stride ? stride : 1) {
        const struct db_sub_attempt *a = &sub->attempts[i];
        sqlite3_reset(st);
        int src = db_bindf(st, "ttttt", a->question_id, a->created_at, a->pack_id, a->answer, key);
        while (src == SQLITE_OK && (src = sqlite3_step(st)) == SQLITE_ROW) {
            const char *other = (const char *)sqlite3_column_text(st, 0);
            size_t j = 0;
            while (j < *n && !(strcmp((*out)[j].pack_id, a->pack_id) == 0 &&
                               strcmp((*out)[j].other_key, other ? other : "") == 0))
                j++;
            if (j == *n) {
                if (*n == cap) {
                    cap = cap ? 2 * cap : 4;
                    *out = core_xrealloc(*out, cap * sizeof **out);
                }
                (*out)[j] = (struct db_class_twin){.pack_id = core_xstrdup(a->pack_id),
                                                   .other_key = core_xstrdup(other ? other : "")};
                (*n)++;
            }
            (*out)[j].n++;
            src = SQLITE_OK;
        }
        if (src != SQLITE_DONE)
            rc = db_fail(cs, err, src, "looking for attempts another student also holds");
    }
    db_stmt_done(st);
    if (rc) {
        db_class_twins_free(*out, *n);
        *out = NULL;
        *n = 0;
    }
    return rc;
}

/* ---- the roster ------------------------------------------------------------------------- */

void db_roster_free(struct db_roster_entry *r, size_t n)
{
    for (size_t i = 0; r && i < n; i++) {
        free(r[i].student_id);
        free(r[i].name);
        free(r[i].email);
        free(r[i].section);
        free(r[i].login);
    }
    free(r);
}

static const char sql_roster_clear[] = "DELETE FROM roster";
static const char sql_roster_add[] =
    "INSERT INTO roster(student_id, name, email, section, login) VALUES (?1, ?2, ?3, ?4, ?5)";

int db_roster_set(struct db *cs, const struct db_roster_entry *in, size_t n, struct core_err *err)
{
    int rc = db_tx_begin(cs, err);
    sqlite3_stmt *st;
    if (!rc && !(rc = db_stmt(cs, sql_roster_clear, &st, err)))
        rc = db_step_done(cs, st, SQLITE_OK, "clearing the roster", err);
    for (size_t i = 0; i < n && !rc; i++) {
        rc = db_stmt(cs, sql_roster_add, &st, err);
        if (!rc)
            rc = db_step_done(cs, st,
                              db_bindf(st, "ttttt", in[i].student_id, in[i].name, in[i].email,
                                       in[i].section, in[i].login),
                              "storing a roster entry", err);
        if (rc)
            core_err_prefix(err, "roster entry %s", in[i].student_id);
    }
    return db_tx_end(cs, rc, err);
}

static void roster_row(sqlite3_stmt *st, void *e)
{
    struct db_roster_entry *r = e;
    r->student_id = db_col_dup(st, 0);
    r->name = db_col_dup(st, 1);
    r->email = db_col_dup(st, 2);
    r->section = db_col_dup(st, 3);
    r->login = db_col_dup(st, 4);
}

static void roster_free_rows(void *r, size_t n)
{
    db_roster_free(r, n);
}

int db_roster_list(struct db *cs, struct db_roster_entry **out, size_t *n, struct core_err *err)
{
    void *rows;
    int rc = db_list(cs,
                     "SELECT student_id, name, email, section, login FROM roster "
                     "ORDER BY student_id",
                     sizeof **out, roster_row, roster_free_rows, &rows, n, "reading the roster",
                     err, "");
    *out = rows;
    return rc;
}
