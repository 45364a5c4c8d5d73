/*
 * db_util.c — the plumbing shared by the store: the prepared-statement
 * cache, parameter binding, SQLite → CORE_ERR_* translation, transactions
 * and column copies.
 */
#include "db/db_internal.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- statements ---------------------------------------------------------- */

int db_stmt(struct db *db, const char *sql, sqlite3_stmt **out, struct core_err *err)
{
    *out = NULL;
    /* A linear scan over a few dozen pointers costs nothing next to a step. */
    for (size_t i = 0; i < db->n_stmts; i++) {
        if (db->stmts[i].sql == sql) {
            /* Callers finish with db_stmt_done, but a reset here makes a
             * forgotten one harmless instead of a MISUSE on the next bind. */
            sqlite3_reset(db->stmts[i].st);
            sqlite3_clear_bindings(db->stmts[i].st);
            *out = db->stmts[i].st;
            return 0;
        }
    }
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v3(db->h, sql, -1, SQLITE_PREPARE_PERSISTENT, &st, NULL);
    if (rc != SQLITE_OK) {
        /* A statement that does not prepare is our bug or a damaged schema. */
        int code = db_fail(db, err, rc, "preparing a query");
        sqlite3_finalize(st);
        return code == CORE_ERR_INVALID ? CORE_ERR_INTERNAL : code;
    }
    db->stmts = db_grow(db->stmts, &db->cap_stmts, db->n_stmts, sizeof *db->stmts);
    db->stmts[db->n_stmts].sql = sql;
    db->stmts[db->n_stmts].st = st;
    db->n_stmts++;
    *out = st;
    return 0;
}

void db_stmt_done(sqlite3_stmt *st)
{
    if (st) {
        sqlite3_reset(st);
        sqlite3_clear_bindings(st);
    }
}

int db_vbindf(sqlite3_stmt *st, const char *types, va_list ap)
{
    /* Every parameter bound, no more: a miscounted type string is our bug. */
    if ((int)strlen(types) != sqlite3_bind_parameter_count(st))
        return SQLITE_RANGE;
    int rc = SQLITE_OK;
    for (int i = 0; types[i] && rc == SQLITE_OK; i++) {
        int col = i + 1;
        switch (types[i]) {
        case 'i':
            rc = sqlite3_bind_int(st, col, va_arg(ap, int));
            break;
        case 'I':
            rc = sqlite3_bind_int64(st, col, (sqlite3_int64)va_arg(ap, int64_t));
            break;
        case 'd':
            rc = sqlite3_bind_double(st, col, va_arg(ap, double));
            break;
        case 'N': {
            double v = va_arg(ap, double);
            rc = isnan(v) ? sqlite3_bind_null(st, col) : sqlite3_bind_double(st, col, v);
            break;
        }
        case 'R': {
            int64_t v = va_arg(ap, int64_t);
            rc = v ? sqlite3_bind_int64(st, col, (sqlite3_int64)v) : sqlite3_bind_null(st, col);
            break;
        }
        case 't': {
            const char *s = va_arg(ap, const char *);
            rc = s ? sqlite3_bind_text(st, col, s, -1, SQLITE_STATIC) : sqlite3_bind_null(st, col);
            break;
        }
        case 'b': {
            const void *p = va_arg(ap, const void *);
            size_t n = va_arg(ap, size_t);
            /* A zero-length blob is still a blob, not NULL. */
            rc = sqlite3_bind_blob64(st, col, n ? p : "", (sqlite3_uint64)n, SQLITE_STATIC);
            break;
        }
        case '-':
            rc = sqlite3_bind_null(st, col);
            break;
        default:
            rc = SQLITE_MISUSE;
            break;
        }
    }
    return rc;
}

int db_bindf(sqlite3_stmt *st, const char *types, ...)
{
    va_list ap;
    va_start(ap, types);
    int rc = db_vbindf(st, types, ap);
    va_end(ap);
    return rc;
}

/* ---- errors -------------------------------------------------------------- */

int db_code(int rc)
{
    switch (rc & 0xff) {
    case SQLITE_OK:
    case SQLITE_ROW:
    case SQLITE_DONE:
        return CORE_OK;
    case SQLITE_CONSTRAINT:
    case SQLITE_TOOBIG:
    case SQLITE_MISMATCH:
        return CORE_ERR_INVALID; /* the data we were handed does not fit */
    case SQLITE_IOERR:
    case SQLITE_FULL:
    case SQLITE_CANTOPEN:
    case SQLITE_PERM:
    case SQLITE_READONLY:
        return CORE_ERR_IO;
    case SQLITE_MISUSE:
    case SQLITE_RANGE:
        return CORE_ERR_INTERNAL;
    default:
        return CORE_ERR_STORE; /* busy, locked, corrupt, not a database, ... */
    }
}

int db_fail(struct db *db, struct core_err *err, int rc, const char *fmt, ...)
{
    int sys_errno = errno; /* the failing call's, before anything else sets it */
    int code = db_code(rc);
    if (code == CORE_OK)
        code = CORE_ERR_STORE; /* called on a failure we could not classify */
    if (!err)
        return code;
    char ctx[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ctx, sizeof ctx, fmt, ap);
    va_end(ap);
    /* The handle's message belongs to its last call; a code we produced
     * ourselves (a bind range check) is described by the code alone. */
    if (db && db->damaged && (rc & 0xff) == SQLITE_READONLY)
        /* query_only on a damaged store: say why, not "readonly" */
        return core_err_set(err, CORE_ERR_STORE,
                            "%s: store %s is damaged (%s): not written to; the command that "
                            "recovers it is printed when it is opened",
                            ctx, db->path, db->damaged);
    if (db && db->budget_hit && (rc & 0xff) == SQLITE_INTERRUPT)
        /* the progress handler of a file from someone else (db_foreign.c) */
        return core_err_set(err, CORE_ERR_STORE,
                            "%s: stopped after %llu thousand steps, the budget of a file of its "
                            "size: more work than reading a real one takes (a view, a trigger "
                            "or a recursive query?)",
                            ctx, (unsigned long long)db->budget);
    bool own = db && db->h && sqlite3_extended_errcode(db->h) == rc;
    const char *msg = own ? sqlite3_errmsg(db->h) : sqlite3_errstr(rc);
    const char *full = db_full_words(own ? db : NULL, rc, sys_errno);
    if (full)
        return core_err_set(err, code, "%s: %s (%s)", ctx, full, msg);
    return core_err_set(err, code, "%s: %s", ctx, msg);
}

const char *db_full_words(struct db *db, int rc, int sys_errno)
{
    /* SQLite says SQLITE_FULL only when it saw a short write; a write that
     * failed outright (the WAL's shared-memory file, a new WAL frame) is a
     * generic "disk I/O error" whose errno tells the truth. SQLite keeps
     * that errno (sqlite3_system_errno) only for some calls, and a rollback
     * after the failure may replace it, so the errno the caller saw right
     * after the failing call counts too. */
    int prim = rc & 0xff;
    if (prim != SQLITE_IOERR && prim != SQLITE_FULL && prim != SQLITE_CANTOPEN)
        return NULL;
    int sys = db && db->h ? sqlite3_system_errno(db->h) : 0;
    if (sys != ENOSPC && sys != EDQUOT && sys != EFBIG)
        sys = sys_errno;
    if (sys == EFBIG)
        return "the file size limit was reached (ulimit -f)";
    if (prim == SQLITE_FULL || sys == ENOSPC || sys == EDQUOT)
        return "disk full: no space left on the device that holds the store";
    return NULL;
}

int db_step_done(struct db *db, sqlite3_stmt *st, int bind_rc, const char *what,
                 struct core_err *err)
{
    int rc = bind_rc == SQLITE_OK ? sqlite3_step(st) : bind_rc;
    int ret = 0;
    if (rc != SQLITE_DONE && rc != SQLITE_ROW)
        ret = db_fail(db, err, rc, "%s", what);
    db_stmt_done(st);
    return ret;
}

int db_rows_read(struct db *db, sqlite3_stmt *st, int bind_rc, size_t size,
                 void (*row)(sqlite3_stmt *st, void *elem), void (*free_rows)(void *arr, size_t n),
                 void **out, size_t *n, struct core_err *err, const char *fmt, ...)
{
    char *arr = NULL;
    size_t cnt = 0, cap = 0;
    int src = bind_rc;
    while (src == SQLITE_OK && (src = sqlite3_step(st)) == SQLITE_ROW) {
        arr = db_grow(arr, &cap, cnt, size);
        memset(arr + cnt * size, 0, size);
        row(st, arr + cnt * size);
        cnt++;
        src = SQLITE_OK;
    }
    int rc = 0;
    if (src != SQLITE_DONE) {
        char what[160];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(what, sizeof what, fmt, ap);
        va_end(ap);
        rc = db_fail(db, err, src, "%s", what);
        free_rows(arr, cnt);
        arr = NULL;
        cnt = 0;
    }
    db_stmt_done(st);
    *out = arr;
    *n = cnt;
    return rc;
}

int db_list(struct db *db, const char *sql, size_t size, void (*row)(sqlite3_stmt *, void *),
            void (*free_rows)(void *, size_t), void **out, size_t *n, const char *what,
            struct core_err *err, const char *types, ...)
{
    *out = NULL;
    *n = 0;
    sqlite3_stmt *st;
    int rc = db_stmt(db, sql, &st, err);
    if (rc)
        return rc;
    va_list ap;
    va_start(ap, types);
    int bind_rc = db_vbindf(st, types, ap);
    va_end(ap);
    return db_rows_read(db, st, bind_rc, size, row, free_rows, out, n, err, "%s", what);
}

/* ---- transactions -------------------------------------------------------- */

static int exec_cached(struct db *db, const char *sql, const char *what, struct core_err *err)
{
    sqlite3_stmt *st;
    int rc = db_stmt(db, sql, &st, err);
    if (rc)
        return rc;
    return db_step_done(db, st, SQLITE_OK, what, err);
}

static const char sql_begin[] = "BEGIN IMMEDIATE";
static const char sql_begin_read[] = "BEGIN DEFERRED";
static const char sql_commit[] = "COMMIT";
static const char sql_rollback[] = "ROLLBACK";

int db_tx_begin(struct db *db, struct core_err *err)
{
    return exec_cached(db, sql_begin, "starting a transaction", err);
}

int db_tx_read_begin(struct db *db, struct core_err *err)
{
    return exec_cached(db, sql_begin_read, "starting a read transaction", err);
}

int db_tx_commit(struct db *db, struct core_err *err)
{
    int rc = exec_cached(db, sql_commit, "committing", err);
    if (rc)
        db_tx_rollback(db);
    return rc;
}

void db_tx_rollback(struct db *db)
{
    if (!sqlite3_get_autocommit(db->h))
        exec_cached(db, sql_rollback, "rolling back", NULL);
}

int db_tx_end(struct db *db, int rc, struct core_err *err)
{
    if (rc) {
        db_tx_rollback(db);
        return rc;
    }
    return db_tx_commit(db, err);
}

/* ---- columns and values -------------------------------------------------- */

const char *db_col_text(sqlite3_stmt *st, int col)
{
    if (sqlite3_column_type(st, col) == SQLITE_NULL)
        return NULL;
    const unsigned char *s = sqlite3_column_text(st, col);
    return s ? (const char *)s : "";
}

char *db_col_dup(sqlite3_stmt *st, int col)
{
    const char *s = db_col_text(st, col);
    if (!s)
        return NULL;
    return core_xstrndup(s, (size_t)sqlite3_column_bytes(st, col));
}

void db_now(char out[32])
{
    core_time_iso(core_time_wall(), out);
}

void *db_grow(void *arr, size_t *cap, size_t n, size_t size)
{
    if (n + 1 <= *cap)
        return arr;
    size_t c = *cap ? *cap * 2 : 8;
    while (c < n + 1)
        c *= 2;
    arr = core_xrealloc(arr, c * size);
    *cap = c;
    return arr;
}
