/*
 * db_foreign.c — opening a SQLite file someone else made (a student's
 * submission, an instructor's feedback file) and reading its rows, as
 * SQLite's "Defense Against the Dark Arts" page advises for an untrusted
 * database file.
 *
 * Before SQLite reads a page (db_open_spec calls these for every file it
 * opens read-only):
 *   - the file must stand alone: a -wal or -journal beside it is refused
 *     (opened immutable, SQLite would ignore it, and the import would differ
 *     from what the sqlite3 shell shows);
 * then on the connection:
 *   - SQLITE_DBCONFIG_DEFENSIVE, trusted_schema off (no function with side
 *     effects runs from the file's schema), views and triggers disabled,
 *     cell_size_check on, no memory-mapped I/O;
 *   - sqlite3_limit()s sized to what a real file needs: no value longer
 *     than DB_FILE_MAX_JSON (the largest a real file holds is a lab
 *     summary, and the JSON reader reads no more), short statements, a few
 *     columns, shallow expressions, nothing attached;
 *   - a progress handler with a budget of VM steps per file, in proportion
 *     to its size: reading every row of a real file takes a small part of
 *     it, and a recursive query is stopped when it is spent (db_fail says
 *     so);
 *   - and, once its identity is known, its schema compared text for text
 *     with the one the very migrations that write such a file create,
 *     run into an in-memory database: only those tables and indexes, no
 *     view, no trigger, no other or altered table. The first difference is
 *     named.
 *
 * Rows are then read with db_file_rows and the db_frow_* column readers
 * (db_file.c).
 */
#include "db/db_internal.h"

#include <errno.h>
#include <pthread.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- beside the file ------------------------------------------------------------------ */

int db_foreign_alone(const char *path, const char *what, struct core_err *err)
{
    static const char *const sides[] = {"-wal", "-journal"};
    for (size_t i = 0; i < sizeof sides / sizeof sides[0]; i++) {
        char *side = core_xasprintf("%s%s", path, sides[i]);
        struct stat st;
        bool there = lstat(side, &st) == 0;
        free(side);
        if (there)
            return core_err_set(err, CORE_ERR_STORE,
                                "%s is not a usable %s: a %s file lies beside it, so it is not "
                                "the one file `warpbench %s` wrote (hand in that file alone)",
                                path, strncmp(what, "a ", 2) == 0 ? what + 2 : what, sides[i],
                                strstr(what, "feedback") ? "class feedback" : "submit");
    }
    return 0;
}

/* ---- the connection ------------------------------------------------------------------- */

/* Every DB_STEP_GRAIN VM instructions the progress handler counts one. */
#define DB_STEP_GRAIN 1000

static int on_progress(void *ctx)
{
    struct db *db = ctx;
    db->steps++;
    if (db->steps <= db->budget)
        return 0;
    db->budget_hit = true;
    return 1; /* interrupts the statement: SQLITE_INTERRUPT */
}

uint64_t db_foreign_budget(long long bytes)
{
    /* In thousands of VM steps: 10 million for the smallest file, and 10
     * steps per byte beyond. Reading every row of a real submission (the
     * key checks included) takes well under one step per byte: 15 million
     * for a 23 MB file of 60,000 attempts and 300,000 lab samples, 6% of
     * its budget. A recursive query on a 60 KB file is stopped after
     * 10.6 million, 0.8 s on the development VM. */
    uint64_t b = bytes > 0 ? (uint64_t)bytes : 0;
    return 10000 + b / (DB_STEP_GRAIN / 10);
}

int db_foreign_harden(struct db *db, long long bytes, struct core_err *err)
{
    static const struct {
        int op, on;
    } configs[] = {
        {SQLITE_DBCONFIG_DEFENSIVE, 1},   {SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0},
        {SQLITE_DBCONFIG_ENABLE_VIEW, 0}, {SQLITE_DBCONFIG_ENABLE_TRIGGER, 0},
        {SQLITE_DBCONFIG_DQS_DDL, 0},     {SQLITE_DBCONFIG_DQS_DML, 0},
        {SQLITE_DBCONFIG_ENABLE_QPSG, 0}, {SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0},
        {SQLITE_DBCONFIG_ENABLE_FKEY, 0},
    };
    for (size_t i = 0; i < sizeof configs / sizeof configs[0]; i++) {
        int got = -1;
        int rc = sqlite3_db_config(db->h, configs[i].op, configs[i].on, &got);
        if (rc != SQLITE_OK || got != configs[i].on)
            return core_err_set(err, CORE_ERR_STORE,
                                "%s: this SQLite library (%s) cannot open a file from someone "
                                "else safely (sqlite3_db_config %d)",
                                db->path, sqlite3_libversion(), configs[i].op);
    }
    static const struct {
        int id, value;
    } limits[] = {
        {SQLITE_LIMIT_LENGTH, DB_FILE_MAX_JSON},
        {SQLITE_LIMIT_SQL_LENGTH, 100000},
        {SQLITE_LIMIT_COLUMN, 100},
        {SQLITE_LIMIT_EXPR_DEPTH, 20},
        {SQLITE_LIMIT_COMPOUND_SELECT, 3},
        {SQLITE_LIMIT_VDBE_OP, 25000},
        {SQLITE_LIMIT_FUNCTION_ARG, 8},
        {SQLITE_LIMIT_ATTACHED, 0},
        {SQLITE_LIMIT_LIKE_PATTERN_LENGTH, 50},
        {SQLITE_LIMIT_VARIABLE_NUMBER, 30},
        {SQLITE_LIMIT_TRIGGER_DEPTH, 1},
        {SQLITE_LIMIT_WORKER_THREADS, 0},
    };
    for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++)
        sqlite3_limit(db->h, limits[i].id, limits[i].value);
    static const char *const pragmas[] = {"PRAGMA trusted_schema = OFF",
                                          "PRAGMA cell_size_check = ON", "PRAGMA mmap_size = 0",
                                          "PRAGMA query_only = ON"};
    for (size_t i = 0; i < sizeof pragmas / sizeof pragmas[0]; i++) {
        int rc = sqlite3_exec(db->h, pragmas[i], NULL, NULL, NULL);
        if (rc != SQLITE_OK)
            return db_fail(db, err, rc, "%s: %s", db->path, pragmas[i]);
    }
    db->foreign = true;
    db->budget = db_foreign_budget(bytes);
    db->steps = 0;
    db->budget_hit = false;
    sqlite3_progress_handler(db->h, DB_STEP_GRAIN, on_progress, db);
    return 0;
}

/* ---- the schema ----------------------------------------------------------------------- */

/* One object of a schema (sqlite_schema), as text. */
struct schema_obj {
    char *type, *name, *tbl, *sql; /* sql NULL: an automatic index */
};

static void schema_free(struct schema_obj *o, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(o[i].type);
        free(o[i].name);
        free(o[i].tbl);
        free(o[i].sql);
    }
    free(o);
}

/* Tables first, then indexes, then the rest (views, triggers), so that a
 * table missing is named before the index that went with it. */
static int type_rank(const char *t)
{
    return !t ? 3 : strcmp(t, "table") == 0 ? 0 : strcmp(t, "index") == 0 ? 1 : 2;
}

static int cmp_obj(const struct schema_obj *a, const struct schema_obj *b)
{
    int c = type_rank(a->type) - type_rank(b->type);
    if (!c)
        c = strcmp(a->type ? a->type : "", b->type ? b->type : "");
    return c ? c : strcmp(a->name ? a->name : "", b->name ? b->name : "");
}

static int cmp_obj_q(const void *a, const void *b)
{
    return cmp_obj(a, b);
}

/* Every object of h's main schema, in cmp_obj's order. Reading the schema
 * of a file runs none of it. */
static int schema_read(sqlite3 *h, struct schema_obj **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    sqlite3_stmt *st = NULL;
    int rc =
        sqlite3_prepare_v2(h, "SELECT type, name, tbl_name, sql FROM sqlite_schema", -1, &st, NULL);
    size_t cap = 0;
    while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        rc = SQLITE_OK;
        *out = db_grow(*out, &cap, *n, sizeof **out);
        struct schema_obj *o = &(*out)[(*n)++];
        o->type = db_col_dup(st, 0);
        o->name = db_col_dup(st, 1);
        o->tbl = db_col_dup(st, 2);
        o->sql = db_col_dup(st, 3);
    }
    sqlite3_finalize(st);
    if (*n)
        qsort(*out, *n, sizeof **out, cmp_obj_q);
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* A short excerpt of s around offset at, for naming a difference: its
 * runs of blanks and line breaks as one space. */
static void excerpt(char *buf, size_t n, const char *s, size_t at)
{
    size_t start = at > 12 ? at - 12 : 0;
    struct core_buf b;
    core_buf_init(&b);
    core_buf_puts(&b, start ? "..." : "");
    size_t k = start;
    for (size_t kept = 0; s[k] && kept < 40; k++, kept++) {
        bool blank = s[k] == ' ' || s[k] == '\n' || s[k] == '\t' || s[k] == '\r';
        if (!blank)
            core_buf_putc(&b, s[k]);
        else if (b.len && b.data[b.len - 1] != ' ')
            core_buf_putc(&b, ' ');
    }
    core_buf_puts(&b, s[k] ? "..." : "");
    char *safe = core_text_safe(b.data, 0);
    snprintf(buf, n, "%s", safe);
    free(safe);
    core_buf_fini(&b);
}

/* Names the first difference between a file's object f and the format's
 * x (same type and name) in b; false when they are the same. */
static bool differs(const struct schema_obj *f, const struct schema_obj *x, struct core_buf *b)
{
    if (strcmp(f->tbl ? f->tbl : "", x->tbl ? x->tbl : "") != 0) {
        core_buf_printf(b, "its %s %s belongs to %s, not %s", f->type, f->name, f->tbl, x->tbl);
        return true;
    }
    const char *mine = f->sql ? f->sql : "", *want = x->sql ? x->sql : "";
    if ((f->sql == NULL) == (x->sql == NULL) && strcmp(mine, want) == 0)
        return false;
    size_t at = 0;
    while (mine[at] && mine[at] == want[at])
        at++;
    char a[80], c[80];
    excerpt(a, sizeof a, mine, at);
    excerpt(c, sizeof c, want, at);
    core_buf_printf(b, "its %s %s is not the format's: \"%s\" where the format has \"%s\"", f->type,
                    f->name, a, c);
    return true;
}

/* The format's schema of one version, built once per process: the
 * migrations run into an in-memory database and its objects read back. A
 * class import opens hundreds of files of the same version; building the
 * schema again for each took about a fifth of a sealed import's time. */
struct schema_want {
    char *steps; /* the migrations run, end to end: the key */
    size_t steps_n;
    struct schema_obj *objs;
    size_t n;
};
#define SCHEMA_WANT_MAX 16
static struct schema_want schema_wants[SCHEMA_WANT_MAX];
static size_t n_schema_wants;
static pthread_mutex_t schema_wants_lock = PTHREAD_MUTEX_INITIALIZER;

/* Builds the format's schema at version into *out (caller frees with
 * schema_free); SQLITE_OK or the failing step's code, its message in msg. */
static int schema_build(const struct db_open_spec *spec, int version, struct schema_obj **out,
                        size_t *n, char *msg, size_t msg_n)
{
    sqlite3 *mem = NULL;
    int src = sqlite3_open_v2(":memory:", &mem, SQLITE_OPEN_READWRITE | SQLITE_OPEN_MEMORY, NULL);
    for (int v = 0; src == SQLITE_OK && v < version && v < spec->n_steps; v++)
        src = sqlite3_exec(mem, spec->steps[v], NULL, NULL, NULL);
    if (src == SQLITE_OK)
        src = schema_read(mem, out, n);
    if (src != SQLITE_OK)
        snprintf(msg, msg_n, "%s", mem ? sqlite3_errmsg(mem) : sqlite3_errstr(src));
    sqlite3_close(mem);
    return src;
}

/* The migrations of spec up to version, end to end, each ended by a NUL
 * (caller frees; its length in *len): what decides the schema, so the
 * cache's key (a spec may be built on the stack, and one address hold
 * another format later). */
static char *steps_key(const struct db_open_spec *spec, int version, size_t *len)
{
    struct core_buf b;
    core_buf_init(&b);
    for (int v = 0; v < version && v < spec->n_steps; v++) {
        core_buf_puts(&b, spec->steps[v]);
        core_buf_putc(&b, '\0');
    }
    *len = b.len;
    core_buf_putc(&b, '\0'); /* a buffer even when there is no step */
    return core_buf_steal(&b);
}

/* The format's schema at version, from the cache or built into it. A
 * cached one stays for the process; *own is what the caller frees (NULL,
 * or the copy built when the cache is full: more formats and versions than
 * any build has). */
static int schema_want_get(const struct db_open_spec *spec, int version,
                           const struct schema_obj **out, size_t *n, struct schema_obj **own,
                           char *msg, size_t msg_n)
{
    *own = NULL;
    size_t key_n;
    char *key = steps_key(spec, version, &key_n);
    pthread_mutex_lock(&schema_wants_lock);
    for (size_t i = 0; i < n_schema_wants; i++)
        if (schema_wants[i].steps_n == key_n && memcmp(schema_wants[i].steps, key, key_n) == 0) {
            *out = schema_wants[i].objs;
            *n = schema_wants[i].n;
            pthread_mutex_unlock(&schema_wants_lock);
            free(key);
            return SQLITE_OK;
        }
    struct schema_obj *objs = NULL;
    size_t k = 0;
    int src = schema_build(spec, version, &objs, &k, msg, msg_n);
    if (src == SQLITE_OK && n_schema_wants < SCHEMA_WANT_MAX) {
        schema_wants[n_schema_wants++] =
            (struct schema_want){.steps = key, .steps_n = key_n, .objs = objs, .n = k};
        key = NULL;
    } else {
        *own = objs;
    }
    *out = objs;
    *n = k;
    pthread_mutex_unlock(&schema_wants_lock);
    free(key);
    return src;
}

int db_foreign_schema_check(struct db *db, const struct db_open_spec *spec, struct core_err *err)
{
    /* The expected schema: the migrations that write such a file, up to
     * the file's own version, run into an in-memory database (built once
     * per version and process). */
    const struct schema_obj *want = NULL;
    struct schema_obj *have = NULL;
    size_t n_want = 0, n_have = 0;
    int rc = 0;
    struct schema_obj *own = NULL;
    char msg[256] = "";
    int src = schema_want_get(spec, db->version, &want, &n_want, &own, msg, sizeof msg);
    if (src != SQLITE_OK) {
        rc = core_err_set(err, CORE_ERR_INTERNAL, "building the schema of %s: %s", spec->what, msg);
        goto out;
    }
    src = schema_read(db->h, &have, &n_have);
    if (src != SQLITE_OK) {
        rc = db_file_refuse(err, db->path, spec->what + 2, "its schema does not read: %s",
                            sqlite3_errmsg(db->h));
        goto out;
    }
    /* Both in cmp_obj's order: walk them side by side to the first
     * object one has and the other lacks, or that differs. */
    struct core_buf why;
    core_buf_init(&why);
    /* An object of the format's made another type (a table replaced by a
     * view) is the cause to name before anything else. */
    for (size_t w = 0; w < n_want && why.len == 0; w++)
        for (size_t h = 0; h < n_have && why.len == 0; h++)
            if (strcmp(want[w].name, have[h].name) == 0 && strcmp(want[w].type, have[h].type) != 0)
                core_buf_printf(&why, "its %s is a %s, where the format has a %s", have[h].name,
                                have[h].type, want[w].type);
    size_t i = 0, k = 0;
    while (why.len == 0 && (i < n_have || k < n_want)) {
        int c = i == n_have ? 1 : k == n_want ? -1 : cmp_obj(&have[i], &want[k]);
        if (c < 0) {
            bool retyped = false; /* a view or a table where the format has another type */
            for (size_t j = 0; j < n_want && !retyped; j++)
                retyped = strcmp(want[j].name, have[i].name) == 0;
            if (retyped)
                core_buf_printf(&why, "its %s is a %s, where the format has a table or index",
                                have[i].name, have[i].type);
            else
                core_buf_printf(&why, "it has a %s %s, which the format does not have",
                                have[i].type, have[i].name);
        } else if (c > 0) {
            const struct schema_obj *other = NULL; /* the name, as another type */
            for (size_t j = 0; j < n_have && !other; j++)
                if (strcmp(have[j].name, want[k].name) == 0)
                    other = &have[j];
            if (other)
                core_buf_printf(&why, "its %s is a %s, where the format has a %s", other->name,
                                other->type, want[k].type);
            else
                core_buf_printf(&why, "it lacks the %s %s", want[k].type, want[k].name);
        } else {
            differs(&have[i], &want[k], &why);
            i++, k++;
        }
    }
    if (why.len) {
        char *safe = core_text_safe(why.data, 0);
        rc = db_file_refuse(err, db->path, spec->what + 2, "%s", safe);
        free(safe);
    }
    core_buf_fini(&why);
out:
    schema_free(own, own ? n_want : 0);
    schema_free(have, n_have);
    return rc;
}
