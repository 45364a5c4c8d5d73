/*
 * db_file.c — what the files that travel between students and instructors
 * (submissions, feedback files) share: checking a file read whole,
 * refusing it with the reason, reading its rows and its meta table, and
 * writing rows and meta into a new one.
 *
 * Rows are read with db_file_rows and the db_frow_* column readers, once
 * db_foreign.c has opened the file: NULL where the format forbids it, a
 * wrong type, a value longer than its cap or holding a NUL byte, too many
 * rows — each refuses the file with "malformed submission: attempts row 12:
 * answer is NULL".
 */
#include "db/db_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- refusing and checking ---------------------------------------------------------- */

int db_file_refuse(struct core_err *err, const char *path, const char *what, const char *fmt, ...)
{
    char why[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    return core_err_set(err, CORE_ERR_STORE, "%s is not a usable %s: %s", path, what, why);
}

int db_file_refuse_read(struct core_err *err, const char *path, const char *what,
                        const struct core_err *e)
{
    const char *why = strstr(e->msg, ": reading ");
    return db_file_refuse(err, path, what, "%s", why ? why + 2 : e->msg);
}

int db_file_check(struct db *db, const char *what, struct core_err *err)
{
    sqlite3_stmt *st = NULL;
    int src = sqlite3_prepare_v2(db->h, "PRAGMA integrity_check(1)", -1, &st, NULL);
    if (src == SQLITE_OK)
        src = sqlite3_step(st);
    char first[160] = "";
    if (src == SQLITE_ROW)
        snprintf(first, sizeof first, "%s", (const char *)sqlite3_column_text(st, 0));
    else
        snprintf(first, sizeof first, "%s", sqlite3_errmsg(db->h));
    sqlite3_finalize(st);
    if (strcmp(first, "ok") != 0)
        return db_file_refuse(err, db->path, what,
                              "it is damaged (truncated, or changed by hand): %s", first);
    st = NULL;
    src = sqlite3_prepare_v2(db->h, "PRAGMA foreign_key_check", -1, &st, NULL);
    if (src == SQLITE_OK)
        src = sqlite3_step(st);
    char table[64] = "";
    if (src == SQLITE_ROW)
        snprintf(table, sizeof table, "%s", (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    if (src == SQLITE_ROW)
        return db_file_refuse(err, db->path, what, "a row of %s points at nothing", table);
    if (src != SQLITE_DONE)
        return db_file_refuse(err, db->path, what, "%s", sqlite3_errmsg(db->h));
    return 0;
}

/* ---- rows ------------------------------------------------------------------------ */

static void fault(struct db_frow *r, int col, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void fault(struct db_frow *r, int col, const char *fmt, ...)
{
    if (r->fault[0])
        return; /* the first one is named */
    const char *name = sqlite3_column_name(r->st, col);
    int at = snprintf(r->fault, sizeof r->fault, "%s ", name ? name : "a column");
    if (at < 0 || (size_t)at >= sizeof r->fault)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->fault + at, sizeof r->fault - (size_t)at, fmt, ap);
    va_end(ap);
}

static const char *type_words(int t)
{
    switch (t) {
    case SQLITE_INTEGER:
        return "an integer";
    case SQLITE_FLOAT:
        return "a real number";
    case SQLITE_TEXT:
        return "text";
    case SQLITE_BLOB:
        return "a blob";
    default:
        return "NULL";
    }
}

static char *text(struct db_frow *r, int col, size_t max, bool null_ok)
{
    int t = sqlite3_column_type(r->st, col);
    if (t == SQLITE_NULL) {
        if (null_ok)
            return NULL;
        fault(r, col, "is NULL");
        return core_xstrdup("");
    }
    if (t != SQLITE_TEXT) {
        fault(r, col, "is %s, not text", type_words(t));
        return core_xstrdup("");
    }
    /* the length first: a text over the cap is never copied */
    size_t len = (size_t)sqlite3_column_bytes(r->st, col);
    if (len > max) {
        fault(r, col, "is longer than %zu bytes (%zu)", max, len);
        return core_xstrdup("");
    }
    const char *s = (const char *)sqlite3_column_text(r->st, col);
    if (!s) {
        fault(r, col, "cannot be read");
        return core_xstrdup("");
    }
    if (memchr(s, '\0', len)) {
        fault(r, col, "holds a NUL byte");
        return core_xstrdup("");
    }
    return core_xstrndup(s, len);
}

char *db_frow_text(struct db_frow *r, int col, size_t max)
{
    return text(r, col, max, false);
}

char *db_frow_text_null(struct db_frow *r, int col, size_t max)
{
    return text(r, col, max, true);
}

char *db_frow_id(struct db_frow *r, int col)
{
    char *s = text(r, col, DB_FILE_MAX_ID, false);
    if (!s[0])
        fault(r, col, "is empty");
    return s;
}

static int64_t integer(struct db_frow *r, int col, int64_t lo, int64_t hi, bool null_ok, bool *has)
{
    int t = sqlite3_column_type(r->st, col);
    if (has)
        *has = false;
    if (t == SQLITE_NULL) {
        if (!null_ok)
            fault(r, col, "is NULL");
        return lo > 0 ? lo : 0;
    }
    if (t != SQLITE_INTEGER) {
        fault(r, col, "is %s, not an integer", type_words(t));
        return lo > 0 ? lo : 0;
    }
    int64_t v = sqlite3_column_int64(r->st, col);
    if (v < lo || v > hi) {
        fault(r, col, "is %lld, outside %lld..%lld", (long long)v, (long long)lo, (long long)hi);
        return lo > 0 ? lo : 0;
    }
    if (has)
        *has = true;
    return v;
}

int64_t db_frow_int(struct db_frow *r, int col, int64_t lo, int64_t hi)
{
    return integer(r, col, lo, hi, false, NULL);
}

bool db_frow_int_null(struct db_frow *r, int col, int64_t lo, int64_t hi, int64_t *v)
{
    bool has;
    *v = integer(r, col, lo, hi, true, &has);
    if (!has)
        *v = 0;
    return has;
}

static double number(struct db_frow *r, int col, bool null_ok)
{
    int t = sqlite3_column_type(r->st, col);
    if (t == SQLITE_NULL) {
        if (!null_ok)
            fault(r, col, "is NULL");
        return null_ok ? NAN : 0;
    }
    if (t != SQLITE_INTEGER && t != SQLITE_FLOAT) {
        fault(r, col, "is %s, not a number", type_words(t));
        return 0;
    }
    double v = sqlite3_column_double(r->st, col);
    if (!isfinite(v)) {
        fault(r, col, "is not a finite number");
        return 0;
    }
    return v;
}

double db_frow_num(struct db_frow *r, int col)
{
    return number(r, col, false);
}

double db_frow_num_null(struct db_frow *r, int col)
{
    return number(r, col, true);
}

int db_file_rows(struct db *db, const char *kind, const char *table, size_t max_rows,
                 const char *sql, size_t size, void (*row)(struct db_frow *, void *),
                 void (*free_rows)(void *, size_t), void **out, size_t *n, struct core_err *err,
                 const char *types, ...)
{
    *out = NULL;
    *n = 0;
    sqlite3_stmt *st = NULL;
    int src = sqlite3_prepare_v2(db->h, sql, -1, &st, NULL);
    if (src == SQLITE_OK) {
        va_list ap;
        va_start(ap, types);
        src = db_vbindf(st, types, ap);
        va_end(ap);
    }
    char *arr = NULL;
    size_t cnt = 0, cap = 0;
    struct db_frow r = {.st = st};
    int rc = 0;
    while (src == SQLITE_OK && (src = sqlite3_step(st)) == SQLITE_ROW) {
        src = SQLITE_OK;
        if (cnt == max_rows) {
            rc = core_err_set(err, CORE_ERR_STORE, "%s: malformed %s: %s has more than %zu rows",
                              db->path, kind, table, max_rows);
            break;
        }
        arr = db_grow(arr, &cap, cnt, size);
        memset(arr + cnt * size, 0, size);
        row(&r, arr + cnt * size);
        cnt++;
        if (r.fault[0]) {
            char *safe = core_text_safe(r.fault, 0);
            rc = core_err_set(err, CORE_ERR_STORE, "%s: malformed %s: %s row %zu: %s", db->path,
                              kind, table, cnt, safe);
            free(safe);
            break;
        }
    }
    if (!rc && src != SQLITE_DONE)
        rc = db_fail(db, err, src, "%s: reading %s", db->path, table);
    sqlite3_finalize(st);
    if (rc) {
        free_rows(arr, cnt);
        return rc;
    }
    *out = arr;
    *n = cnt;
    return 0;
}

/* ---- reading ----------------------------------------------------------------------- */

int db_read_rows(struct db *db, const char *sql, size_t size, void (*row)(sqlite3_stmt *, void *),
                 void (*free_rows)(void *, size_t), void **out, size_t *n, const char *what,
                 struct core_err *err, const char *types, ...)
{
    *out = NULL;
    *n = 0;
    sqlite3_stmt *st = NULL;
    int src = sqlite3_prepare_v2(db->h, sql, -1, &st, NULL);
    if (src != SQLITE_OK) {
        int rc = core_err_set(err, CORE_ERR_STORE, "%s: reading %s: %s", db->path, what,
                              sqlite3_errmsg(db->h));
        sqlite3_finalize(st);
        return rc;
    }
    va_list ap;
    va_start(ap, types);
    src = db_vbindf(st, types, ap);
    va_end(ap);
    int rc = db_rows_read(db, st, src, size, row, free_rows, out, n, err, "%s: reading %s",
                          db->path, what);
    sqlite3_finalize(st);
    return rc;
}

struct meta_kv {
    char *key, *value;
};

static void meta_row(struct db_frow *r, void *e)
{
    struct meta_kv *m = e;
    m->key = db_frow_id(r, 0);
    m->value = db_frow_text(r, 1, DB_FILE_MAX_LINE);
}

static void meta_free(void *arr, size_t n)
{
    struct meta_kv *m = arr;
    for (size_t i = 0; i < n; i++) {
        free(m[i].key);
        free(m[i].value);
    }
    free(m);
}

int db_file_meta_read(struct db *db, const char *what, const char *format,
                      const struct db_meta_slot *slots, size_t n, struct core_err *err)
{
    void *arr = NULL;
    size_t rows = 0;
    const char *kind = strncmp(what, "submission", 10) == 0 ? "submission" : what;
    int rc = db_file_rows(db, kind, "meta", 100, "SELECT key, value FROM meta ORDER BY key",
                          sizeof(struct meta_kv), meta_row, meta_free, &arr, &rows, err, "");
    if (rc)
        return rc;
    struct meta_kv *m = arr;
    const char *fmt = NULL;
    for (size_t r = 0; r < rows; r++) {
        if (strcmp(m[r].key, "format") == 0)
            fmt = m[r].value;
        for (size_t i = 0; i < n; i++)
            if (strcmp(m[r].key, slots[i].key) == 0) {
                free(*slots[i].value);
                *slots[i].value = core_xstrdup(m[r].value);
            }
    }
    if (!fmt || strcmp(fmt, format) != 0)
        rc = db_file_refuse(err, db->path, what, "its meta table does not say format = %s", format);
    meta_free(m, rows);
    return rc;
}

/* ---- writing ----------------------------------------------------------------------- */

int db_file_put(struct db *db, const char *sql, const char *what, struct core_err *err,
                const char *types, ...)
{
    sqlite3_stmt *st;
    int rc = db_stmt(db, sql, &st, err);
    if (rc)
        return rc;
    va_list ap;
    va_start(ap, types);
    int src = db_vbindf(st, types, ap);
    va_end(ap);
    if (src == SQLITE_OK)
        src = sqlite3_step(st);
    if (src != SQLITE_DONE)
        rc = db_fail(db, err, src, "%s: writing %s", db->path, what);
    db_stmt_done(st);
    return rc;
}

int db_file_meta_write(struct db *db, const char *format, const struct db_meta_pair *pairs,
                       size_t n, struct core_err *err)
{
    static const char sql[] = "INSERT INTO meta(key, value) VALUES (?1, ?2)";
    int rc = db_file_put(db, sql, "meta", err, "tt", "format", format);
    for (size_t i = 0; i < n && !rc; i++)
        if (pairs[i].value)
            rc = db_file_put(db, sql, "meta", err, "tt", pairs[i].key, pairs[i].value);
    return rc;
}
