/*
 * db_internal.h — what the db_*.c files share: the struct db behind the
 * opaque handle, the prepared-statement cache, SQLite error translation,
 * transactions and small column/binding helpers.
 *
 * Never included from outside db/ (tests of db/ excepted: they use
 * db_open_ex to build stores at earlier schema versions and to exercise the
 * migration mechanism with a step table of their own).
 */
#ifndef WB_DB_INTERNAL_H
#define WB_DB_INTERNAL_H

#include "db/db.h"

#include <sqlite3.h>
#include <stdarg.h>

/* PRAGMA application_id of a Warpbench store ("WBCH"), written by the first
 * migration, so a SQLite file made by another program is recognised. */
#define DB_APPLICATION_ID 0x57424348
/* The other files Warpbench writes, each a SQLite file with its own schema
 * and migrations: a student's submission ("WBSB", db_submit.c), an
 * instructor's class store ("WBCL", db_class.c) and the feedback file a
 * student imports ("WBFB", db_feedback.c). */
#define DB_SUBMIT_APPLICATION_ID 0x57425342
#define DB_CLASS_APPLICATION_ID 0x5742434C
#define DB_FEEDBACK_APPLICATION_ID 0x57424642

/* One cached statement, keyed by the address of its (static) SQL text. */
struct db_stmt_slot {
    const char *sql;
    sqlite3_stmt *st;
};

/* The file beside the store that a running lab run owns (db_labrun.c):
 * disk space set aside for closing the run, and its closing note. */
struct db_run_side {
    int64_t run_id;
    int fd;
};

struct db {
    sqlite3 *h;
    char *path;
    int version; /* user_version after migrations */
    struct db_stmt_slot *stmts;
    size_t n_stmts;
    size_t cap_stmts;
    struct db_run_side *sides; /* runs begun on this handle and not yet ended */
    size_t n_sides;
    size_t cap_sides;
    int guard_fd;  /* "<store>-open", shared-locked while open (db_guard.c); -1: none */
    char *damaged; /* quick_check's first complaint when the store is damaged */
    /* A file from someone else (db_foreign.c): the progress handler's
     * budget and what it has used, in thousands of VM steps. */
    bool foreign;
    bool budget_hit; /* the budget was spent: the statement was interrupted */
    uint64_t budget, steps;
    bool travelling; /* a submission or feedback file being written: no PRAGMA optimize */
};

/* ---- the clean-close guard (db_guard.c) ---------------------------------- */

/* Before the first query: takes the guard's shared lock; *check says
 * whether the store must be checked (an unclean close, or damage found
 * before). */
void db_guard_open(struct db *db, bool *check);
/* With check: PRAGMA quick_check; a damaged store gets db->damaged and is
 * made read-only (query_only). Fails only when the check cannot run. */
int db_guard_check(struct db *db, bool check, struct core_err *err);
/* After the connection is closed: releases the guard (the last handle
 * removes its file unless the store is damaged). */
void db_guard_close(struct db *db);

/* Closes the run side files' descriptors (the files stay: their runs are
 * still running). Called by db_close. */
void db_labrun_sides_close(struct db *db);

/* ---- schema (db_schema.c) ------------------------------------------------ */

/* db_migrations[v] takes a store from schema version v to v + 1. It has
 * exactly DB_SCHEMA_VERSION entries. */
extern const char *const db_migrations[];

/* db_open with an explicit migration table of n_steps entries: the store is
 * migrated to version n_steps, and a store newer than n_steps is refused.
 * db_open(out, path, err) is db_open_ex(out, path, db_migrations,
 * DB_SCHEMA_VERSION, err). */
int db_open_ex(struct db **out, const char *path, const char *const *steps, int n_steps,
               struct core_err *err);

/* How to open one kind of Warpbench file. */
struct db_open_spec {
    uint32_t app_id;          /* the PRAGMA application_id the file must carry */
    const char *what;         /* "a Warpbench store", for messages */
    const char *const *steps; /* its migrations (not run when read_only) */
    int n_steps;
    bool wal;       /* WAL journal (a store); else journal_mode=DELETE, one file */
    bool read_only; /* an existing, complete file, opened read-only and immutable:
                       no lock, nothing written, no -wal/-shm created beside it */
};

/* Opens (a writable one: creating when missing, with its parent folder,
 * and migrating to spec->n_steps) the file at path as spec says, after
 * checking its identity: application_id (another kind of Warpbench file or
 * another program's database is CORE_ERR_STORE naming what it is), schema
 * version (newer: CORE_ERR_CONFLICT). A read-only file must have a version
 * from 1 to n_steps. db->version holds its version. */
int db_open_spec(struct db **out, const char *path, const struct db_open_spec *spec,
                 struct core_err *err);

/* Applies steps[v] for v from the store's version up to n_steps - 1, each in
 * its own IMMEDIATE transaction together with the user_version bump. */
int db_migrate(struct db *db, const char *const *steps, int n_steps, struct core_err *err);

/* ---- statements and errors (db_open.c) ----------------------------------- */

/* Returns in *out the cached statement for `sql` (which must be a string
 * with static storage: its address is the key), preparing it on first use.
 * The statement is reset and its bindings cleared. Release it with
 * db_stmt_done() before returning to the caller, so borrowed bindings do not
 * outlive the call. */
int db_stmt(struct db *db, const char *sql, sqlite3_stmt **out, struct core_err *err);
void db_stmt_done(sqlite3_stmt *st);

/* Binds parameters 1.. from a type string: 'i' int, 'I' int64_t, 'd'
 * double, 'N' double that binds NULL when NaN, 'R' int64_t that binds NULL
 * when 0 (an optional reference), 't' const char * (NULL binds NULL), 'b'
 * const void * + size_t (a blob), '-' NULL (takes no argument). Strings and
 * blobs are bound without copying: they must live until db_stmt_done().
 * The type string must cover every parameter of the statement (else
 * SQLITE_RANGE, which reports as CORE_ERR_INTERNAL). Returns a SQLite result
 * code. */
int db_bindf(sqlite3_stmt *st, const char *types, ...);
/* db_bindf with its arguments in a va_list. */
int db_vbindf(sqlite3_stmt *st, const char *types, va_list ap);

/* The CORE_ERR_* code for a SQLite result code. */
int db_code(int rc);

/* Fills err with db_code(rc) and "<context>: <sqlite3_errmsg>" (the context
 * printf-style) and returns the code. Call it right after the failing
 * SQLite call, before anything else touches the connection. */
int db_fail(struct db *db, struct core_err *err, int rc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* When SQLite result rc (just returned on db; db may be NULL) means the
 * disk is full (SQLITE_FULL, or an I/O error whose errno is ENOSPC or
 * EDQUOT) or the process's file size limit was hit (EFBIG), the words that
 * say so; else NULL. sys_errno: errno as it was right after the failing
 * call. Static. db_fail puts them in its message. */
const char *db_full_words(struct db *db, int rc, int sys_errno);

/* Runs a statement whose rows are not read (INSERT, UPDATE, ...) and
 * releases it. bind_rc is the result of binding its parameters: when not
 * SQLITE_OK the statement is not run and that error is reported. `what`
 * names the operation for the error message. */
int db_step_done(struct db *db, sqlite3_stmt *st, int bind_rc, const char *what,
                 struct core_err *err);

/* Reads every row of a statement into a new array of `size`-byte elements
 * and releases the statement. bind_rc is the result of binding its
 * parameters: when not SQLITE_OK nothing is run and that error is reported.
 * Each row fills a zeroed element through row(st, elem). On success *out
 * gets the array (NULL when there are no rows; caller frees with its
 * free function) and *n its length; on an error, reported as "<fmt ...>:
 * <SQLite message>", what was read is freed with free_rows(arr, count),
 * *out is NULL and *n 0. */
int db_rows_read(struct db *db, sqlite3_stmt *st, int bind_rc, size_t size,
                 void (*row)(sqlite3_stmt *st, void *elem), void (*free_rows)(void *arr, size_t n),
                 void **out, size_t *n, struct core_err *err, const char *fmt, ...)
    __attribute__((format(printf, 10, 11)));

/* The one way to read a list: every row of the cached statement for `sql`
 * (db_stmt), its parameters bound by db_bindf(types, ...), read by
 * db_rows_read; errors read "<what>: <SQLite message>". */
int db_list(struct db *db, const char *sql, size_t size, void (*row)(sqlite3_stmt *, void *),
            void (*free_rows)(void *, size_t), void **out, size_t *n, const char *what,
            struct core_err *err, const char *types, ...);

/* ---- shared row readers ------------------------------------------------- */

/* Reads a (concept, score, max) row into a struct db_selfscore, for
 * db_rows_read and db_list; db_selfscores_free_rows frees such rows. */
void db_selfscore_read_row(sqlite3_stmt *st, void *elem);
void db_selfscores_free_rows(void *arr, size_t n);

/* ---- files that travel (db_file.c: submissions, feedback files) ----------- */

/* Reads every row of `sql` with a one-off statement, as db_rows_read, its
 * parameters bound as db_bindf binds them; errors read "<path>: reading
 * <what>: <reason>". */
int db_read_rows(struct db *db, const char *sql, size_t size, void (*row)(sqlite3_stmt *, void *),
                 void (*free_rows)(void *, size_t), void **out, size_t *n, const char *what,
                 struct core_err *err, const char *types, ...);

/* Refuses a file that travels (a submission, a feedback file): CORE_ERR_STORE
 * "<path> is not a usable <what>: <reason>". Returns the code. */
int db_file_refuse(struct core_err *err, const char *path, const char *what, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* db_file_refuse with the reason db_read_rows gave in e ("reading <what>:
 * <reason>"). */
int db_file_refuse_read(struct core_err *err, const char *path, const char *what,
                        const struct core_err *e);

/* PRAGMA integrity_check and foreign_key_check of a file opened read-only:
 * a truncated file, a page changed by hand, a row pointing at nothing are
 * refused (db_file_refuse). */
int db_file_check(struct db *db, const char *what, struct core_err *err);

/* One key of a file's meta table and where its value goes (a malloc'd
 * copy; a key read twice keeps the last value). */
struct db_meta_slot {
    const char *key;
    char **value;
};
/* Reads the meta table (key, value) of a file read whole into the slots;
 * other keys are skipped. Refuses (db_file_refuse, `what`) a table that
 * cannot be read or does not say format = `format`. */
int db_file_meta_read(struct db *db, const char *what, const char *format,
                      const struct db_meta_slot *slots, size_t n, struct core_err *err);

/* Writes one row into a new file: the cached statement for `sql`, its
 * parameters bound by db_bindf(types, ...); errors read "<path>: writing
 * <what>: <reason>". */
int db_file_put(struct db *db, const char *sql, const char *what, struct core_err *err,
                const char *types, ...);
/* A meta key and its value (NULL: not written). */
struct db_meta_pair {
    const char *key;
    const char *value;
};
/* Writes format = `format`, then each pair with a value, into the meta table. */
int db_file_meta_write(struct db *db, const char *format, const struct db_meta_pair *pairs,
                       size_t n, struct core_err *err);

/* ---- files from someone else (db_foreign.c) ------------------------------- */

/* Refuses (CORE_ERR_STORE) a file with a -wal or -journal beside it: it is
 * not the one file that was written, and SQLite, opening it immutable,
 * would not read what lies beside it. `what` names the kind ("a Warpbench
 * submission file"). */
int db_foreign_alone(const char *path, const char *what, struct core_err *err);

/* The progress handler's budget for a file of `bytes`, in thousands of VM
 * steps. Pure. */
uint64_t db_foreign_budget(long long bytes);

/* Makes a connection just opened on a file of `bytes` from someone else
 * safe to read (defensive mode, trusted_schema off, views and triggers
 * off, cell_size_check, limits, a progress handler with the file's budget).
 * Before the first query. A statement stopped by the budget fails with
 * SQLITE_INTERRUPT and db->budget_hit set, which db_fail words. */
int db_foreign_harden(struct db *db, long long bytes, struct core_err *err);

/* Compares the schema of db (a file of spec's kind at db->version, opened
 * read-only) text for text with the one spec->steps[0..version) create:
 * any object more, less or different refuses the file (db_file_refuse),
 * the first difference named. */
int db_foreign_schema_check(struct db *db, const struct db_open_spec *spec, struct core_err *err);

/* The row being read by db_file_rows, for the column readers below. Each
 * reader returns the column's value when it fits the format; otherwise a
 * stand-in (an empty string, the range's low end, 0) and it notes the first
 * fault of the row ("answer is NULL", "variant is text, not an integer"),
 * which refuses the file. Strings are malloc'd copies the row owns. */
struct db_frow {
    sqlite3_stmt *st;
    char fault[160];
};
/* Text of at most max bytes, not NULL, no NUL byte inside. */
char *db_frow_text(struct db_frow *r, int col, size_t max);
/* The same, NULL allowed (returns NULL). */
char *db_frow_text_null(struct db_frow *r, int col, size_t max);
/* db_frow_text of 1 to DB_FILE_MAX_ID bytes: an id or a name. */
char *db_frow_id(struct db_frow *r, int col);
/* An integer in lo..hi. */
int64_t db_frow_int(struct db_frow *r, int col, int64_t lo, int64_t hi);
/* The same, NULL allowed: returns whether there is one (*v 0 when not). */
bool db_frow_int_null(struct db_frow *r, int col, int64_t lo, int64_t hi, int64_t *v);
/* A finite number (integer or real). */
double db_frow_num(struct db_frow *r, int col);
/* The same, NULL allowed: NaN for NULL. */
double db_frow_num_null(struct db_frow *r, int col);

/* Reads at most max_rows rows of `sql` (a one-off statement, parameters
 * bound as db_bindf binds them) of `table` into a new array, as
 * db_rows_read does, each row through row(r, elem) and its column readers.
 * A row that breaks the format refuses the file: CORE_ERR_STORE
 * "<path>: malformed <kind>: <table> row <n>: <fault>" (n counts from 1 in
 * the statement's order), and so do more than max_rows rows; what was read
 * is then freed with free_rows. */
int db_file_rows(struct db *db, const char *kind, const char *table, size_t max_rows,
                 const char *sql, size_t size, void (*row)(struct db_frow *, void *),
                 void (*free_rows)(void *, size_t), void **out, size_t *n, struct core_err *err,
                 const char *types, ...);

/* The migrations that write a submission (db_submit.c) and a feedback file
 * (db_feedback.c): DB_SUBMIT_VERSION and DB_FEEDBACK_VERSION entries. A
 * file read is compared with the schema they create. */
extern const char *const db_submit_steps[];
extern const char *const db_feedback_steps[];

/* db_submission_read and db_feedback_read of a file opened as `spec`
 * says (read_only): every check and row reader after opening is theirs.
 * Tests pass a spec whose steps create a schema of their own (a NOT NULL
 * dropped), to reach the row readers with what the real schema check
 * stops first. */
int db_submission_read_as(const char *path, const struct db_open_spec *spec,
                          struct db_submission *out, struct core_err *err);
int db_feedback_read_as(const char *path, const struct db_open_spec *spec, struct db_feedback *out,
                        struct core_err *err);

/* ---- transactions -------------------------------------------------------- */

/* BEGIN IMMEDIATE: takes the write lock at once (waiting up to the busy
 * timeout), so a transaction never fails half-way on a lock upgrade. */
int db_tx_begin(struct db *db, struct core_err *err);
/* BEGIN DEFERRED: a read transaction, whose snapshot is taken by its first
 * SELECT; every read until db_tx_rollback (or commit) sees the store as it
 * was then, whatever other connections write meanwhile (WAL). */
int db_tx_read_begin(struct db *db, struct core_err *err);
int db_tx_commit(struct db *db, struct core_err *err);
/* Rolls back when a transaction is open; never fails (best effort). */
void db_tx_rollback(struct db *db);
/* Ends the open transaction by the outcome of its work: rc != 0 rolls back
 * and returns rc; rc == 0 commits and returns db_tx_commit's result. */
int db_tx_end(struct db *db, int rc, struct core_err *err);

/* ---- columns and values -------------------------------------------------- */

/* A malloc'd copy of a text column; NULL for SQL NULL. */
char *db_col_dup(sqlite3_stmt *st, int col);
/* The column's text, borrowed until the next step/reset; NULL for NULL. */
const char *db_col_text(sqlite3_stmt *st, int col);

/* The current UTC time as ISO-8601 with milliseconds. */
void db_now(char out[32]);

/* Returns `arr` (elements of `size` bytes, capacity *cap) grown so that it
 * holds at least n + 1 elements; updates *cap. */
void *db_grow(void *arr, size_t *cap, size_t n, size_t size);

/* Closes as "failed" every running lab run whose owner process is certainly
 * gone (core_owner_alive() == 0), with the reason in lab_runs.error; *closed
 * gets how many. Called by db_open. */
int db_labrun_close_orphans(struct db *db, size_t *closed, struct core_err *err);

#endif /* WB_DB_INTERNAL_H */
