/*
 * db_open.c — opening and closing the store: the parent directory, the
 * checks that the file is a Warpbench store this build may write, the
 * connection pragmas, and the default path.
 *
 * Durability: journal_mode=WAL with synchronous=FULL. In WAL mode FULL
 * fsyncs the WAL on every commit, so a write that a function reports as done
 * survives kill -9 and power loss alike. (synchronous=NORMAL would survive a
 * process kill — the WAL frames are in the OS page cache when COMMIT
 * returns — but could lose the last commits on a power cut, and an attempt
 * is a student's graded work.) The cost is one fsync per commit, which is why
 * bulk writers (re-grading, lab samples, pack import) use one transaction.
 */
#include "db/db_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define DB_BUSY_TIMEOUT_MS 5000

/* Runs a pragma (or any single-row query) and returns its first column as an
 * integer in *v. */
static int query_int(struct db *db, const char *sql, int *v, struct core_err *err)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db->h, sql, -1, &st, NULL);
    if (rc == SQLITE_OK) {
        rc = sqlite3_step(st);
        if (rc == SQLITE_ROW) {
            *v = sqlite3_column_int(st, 0);
            rc = SQLITE_OK;
        } else if (rc == SQLITE_DONE) {
            *v = 0;
            rc = SQLITE_OK;
        }
    }
    int ret = 0;
    if (rc != SQLITE_OK) {
        if ((rc & 0xff) == SQLITE_NOTADB)
            ret = core_err_set(err, CORE_ERR_STORE, "%s is not a Warpbench store: %s", db->path,
                               sqlite3_errmsg(db->h));
        else
            ret = db_fail(db, err, rc, "store %s: %s", db->path, sql);
    }
    sqlite3_finalize(st);
    return ret;
}

static int exec_sql(struct db *db, const char *sql, struct core_err *err)
{
    int rc = sqlite3_exec(db->h, sql, NULL, NULL, NULL);
    if (rc != SQLITE_OK)
        return db_fail(db, err, rc, "store %s: %s", db->path, sql);
    return 0;
}

/* Creates the directory that will hold `path`, when it names one. */
static int make_parent(const char *path, struct core_err *err)
{
    const char *slash = strrchr(path, '/');
    if (!slash || slash == path)
        return 0;
    char *dir = core_xstrndup(path, (size_t)(slash - path));
    int rc = core_mkdir_p(dir, err);
    free(dir);
    if (rc)
        core_err_prefix(err, "creating the store's folder");
    return rc;
}

/* What a file with application_id `id` is, for messages; NULL when it is
 * not one of ours. */
static const char *file_kind(int id)
{
    switch ((uint32_t)id) {
    case DB_APPLICATION_ID:
        return "a Warpbench store";
    case DB_SUBMIT_APPLICATION_ID:
        return "a Warpbench submission file";
    case DB_CLASS_APPLICATION_ID:
        return "a Warpbench class store";
    case DB_FEEDBACK_APPLICATION_ID:
        return "a Warpbench feedback file";
    default:
        return NULL;
    }
}

/* Refuses files that are not the kind spec names: another program's SQLite
 * database (it has tables but another application_id), another kind of
 * Warpbench file, and one written by a newer Warpbench. A file opened
 * read-only must be complete: an empty one is refused too. Nothing is
 * written to the file before these checks pass. */
static int check_identity(struct db *db, const struct db_open_spec *spec, struct core_err *err)
{
    /* One statement, so the three are read from one snapshot even while
     * another process is creating the schema. */
    sqlite3_stmt *st = NULL;
    int version = 0, app_id = 0, n_objects = 0;
    int rc = sqlite3_prepare_v2(db->h,
                                "SELECT (SELECT user_version FROM pragma_user_version), "
                                "(SELECT application_id FROM pragma_application_id), "
                                "(SELECT count(*) FROM sqlite_master)",
                                -1, &st, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        version = sqlite3_column_int(st, 0);
        app_id = sqlite3_column_int(st, 1);
        n_objects = sqlite3_column_int(st, 2);
        rc = SQLITE_OK;
    }
    int ret = 0;
    if ((rc & 0xff) == SQLITE_NOTADB || (rc & 0xff) == SQLITE_CORRUPT)
        ret = core_err_set(err, CORE_ERR_STORE, "%s is not %s: %s", db->path, spec->what,
                           sqlite3_errmsg(db->h));
    else if (rc != SQLITE_OK)
        ret = db_fail(db, err, rc, "%s: reading its header", db->path);
    sqlite3_finalize(st);
    if (ret)
        return ret;
    if ((uint32_t)app_id != spec->app_id && (version != 0 || n_objects != 0 || app_id != 0)) {
        const char *kind = file_kind(app_id);
        if (kind)
            return core_err_set(err, CORE_ERR_STORE, "%s is %s, not %s", db->path, kind,
                                spec->what);
        return core_err_set(err, CORE_ERR_STORE,
                            "%s is a SQLite database made by another program, not %s", db->path,
                            spec->what);
    }
    if (version > spec->n_steps)
        return core_err_set(err, CORE_ERR_CONFLICT,
                            "%s was made by a newer Warpbench (schema %d, this build "
                            "knows up to %d); upgrade Warpbench%s",
                            db->path, version, spec->n_steps,
                            spec->read_only ? "" : " or use another --db");
    if (version < 0 || (spec->read_only && version == 0))
        return core_err_set(err, CORE_ERR_STORE, "%s is not %s (%s)", db->path, spec->what,
                            version == 0 ? "it is empty" : "a bad schema version");
    return 0;
}

/* Reads (sql "PRAGMA journal_mode") or sets the journal mode; *mode gets
 * the mode in effect. */
static int journal_mode(struct db *db, const char *sql, char mode[16])
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db->h, sql, -1, &st, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        const char *m = (const char *)sqlite3_column_text(st, 0);
        snprintf(mode, 16, "%s", m ? m : "?");
        rc = SQLITE_OK;
    }
    sqlite3_finalize(st);
    return rc;
}

/* Switches the file to WAL (a property of the file, kept across opens).
 * The switch needs the file to itself and does not wait on the busy
 * handler, so when several processes open a fresh store at once the losers
 * retry here until the winner has switched it or the busy timeout passes. */
static int enable_wal(struct db *db, struct core_err *err)
{
    char mode[16] = "";
    double deadline = core_time_mono() + DB_BUSY_TIMEOUT_MS / 1000.0;
    int rc = journal_mode(db, "PRAGMA journal_mode", mode);
    while (rc == SQLITE_OK && strcmp(mode, "wal") != 0 && strcmp(mode, "memory") != 0) {
        rc = journal_mode(db, "PRAGMA journal_mode=WAL", mode);
        int prim = rc & 0xff;
        if ((prim == SQLITE_BUSY || prim == SQLITE_LOCKED) && core_time_mono() < deadline) {
            core_clock_real()->sleep(NULL, 0.005);
            rc = SQLITE_OK;
            continue;
        }
        if (rc == SQLITE_OK && strcmp(mode, "wal") != 0)
            return core_err_set(err, CORE_ERR_STORE,
                                "store %s: cannot use WAL journal mode (got '%s'); is the "
                                "folder on a file system without shared memory?",
                                db->path, mode);
    }
    if (rc != SQLITE_OK)
        return db_fail(db, err, rc, "store %s: enabling WAL", db->path);
    return 0;
}

static int apply_pragmas(struct db *db, struct core_err *err)
{
    int rc = enable_wal(db, err);
    if (rc)
        return rc;
    rc = exec_sql(db, "PRAGMA synchronous=FULL", err);
    if (!rc)
        rc = exec_sql(db, "PRAGMA foreign_keys=ON", err);
    if (rc)
        return rc;
    int fk = 0;
    rc = query_int(db, "PRAGMA foreign_keys", &fk, err);
    if (!rc && fk != 1)
        rc = core_err_set(err, CORE_ERR_STORE,
                          "store %s: this SQLite library does not enforce foreign keys", db->path);
    return rc;
}

/* A URI that opens path read-only and immutable: SQLite then takes no
 * lock and never creates a -wal, -shm or journal file beside it. */
static char *immutable_uri(const char *path)
{
    struct core_buf b;
    core_buf_init(&b);
    core_buf_puts(&b, "file:");
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        if (*p == '%' || *p == '?' || *p == '#' || *p < 0x20 || *p >= 0x7f)
            core_buf_printf(&b, "%%%02X", *p);
        else
            core_buf_putc(&b, (char)*p);
    }
    core_buf_puts(&b, "?immutable=1");
    return core_buf_steal(&b);
}

/* A file opened read-only must be whole: its size is what its own header
 * says (page size x page count, which SQLite keeps in the header of every
 * file it writes), so a file cut short, even by a byte of an empty page,
 * is refused before SQLite reads a page of it. */
static int check_complete(const char *path, const struct db_open_spec *spec, struct core_err *err)
{
    unsigned char h[100];
    FILE *f = fopen(path, "rb");
    if (!f)
        return core_err_set(err, errno == ENOENT ? CORE_ERR_NOTFOUND : CORE_ERR_IO,
                            "cannot open %s: %s", path, strerror(errno));
    size_t got = fread(h, 1, sizeof h, f);
    int rc = 0;
    if (got < sizeof h || memcmp(h, "SQLite format 3", 16) != 0) {
        rc = core_err_set(err, CORE_ERR_STORE, "%s is not %s (not a SQLite file%s)", path,
                          spec->what, got < sizeof h && got > 0 ? ", or cut short" : "");
        goto out;
    }
    uint32_t app = (uint32_t)h[68] << 24 | (uint32_t)h[69] << 16 | (uint32_t)h[70] << 8 | h[71];
    if (app == 0) /* a WAL file not yet checkpointed, or not ours: SQLite will tell */
        goto out;
    if (app != spec->app_id) { /* say what it is before judging its size */
        const char *kind = file_kind((int)app);
        rc = kind ? core_err_set(err, CORE_ERR_STORE, "%s is %s, not %s", path, kind, spec->what)
                  : core_err_set(err, CORE_ERR_STORE,
                                 "%s is a SQLite database made by another program, not %s", path,
                                 spec->what);
        goto out;
    }
    unsigned page = (unsigned)h[16] << 8 | h[17];
    unsigned long pages =
        (unsigned long)h[28] << 24 | (unsigned long)h[29] << 16 | (unsigned long)h[30] << 8 | h[31];
    bool counted = memcmp(h + 24, h + 92, 4) == 0 && pages > 0; /* the count is current */
    if (page == 1)
        page = 65536;
    if (fseek(f, 0, SEEK_END) != 0) {
        rc = core_err_set(err, CORE_ERR_IO, "%s: %s", path, strerror(errno));
        goto out;
    }
    long size = ftell(f);
    if (page < 512 || (page & (page - 1)) != 0 || size < 0 || (unsigned long)size % page != 0 ||
        (counted && (unsigned long)size != pages * page))
        rc = core_err_set(err, CORE_ERR_STORE,
                          "%s is not a usable %s: it is cut short or padded (%ld bytes, its "
                          "header says %lu pages of %u)",
                          path, strncmp(spec->what, "a ", 2) == 0 ? spec->what + 2 : spec->what,
                          size, counted ? pages : 0, page);
out:
    fclose(f);
    return rc;
}

int db_open_spec(struct db **out, const char *path, const struct db_open_spec *spec,
                 struct core_err *err)
{
    *out = NULL;
    if (!path || !*path)
        return core_err_set(err, CORE_ERR_USAGE, "no path given for %s", spec->what);
    /* SQLite would open /dev/null and make /dev/null-journal beside it, or
     * block on a FIFO: a store is a regular file (a link to one is fine) */
    struct stat st = {0};
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return core_err_set(err, CORE_ERR_USAGE,
                            "%s is %s, not a store file: name a new or existing %s", path,
                            S_ISDIR(st.st_mode)                          ? "a directory"
                            : S_ISFIFO(st.st_mode)                       ? "a FIFO"
                            : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device"
                            : S_ISSOCK(st.st_mode)                       ? "a socket"
                                                                         : "not a regular file",
                            spec->app_id == DB_APPLICATION_ID ? "store with --db" : "file");
    int rc = spec->read_only ? check_complete(path, spec, err) : make_parent(path, err);
    if (!rc && spec->read_only)
        rc = db_foreign_alone(path, spec->what, err);
    if (rc)
        return rc;

    struct db *db = core_xcalloc(1, sizeof *db);
    db->path = core_xstrdup(path);
    db->guard_fd = -1;
    int src;
    if (spec->read_only) {
        char *uri = immutable_uri(path);
        src = sqlite3_open_v2(uri, &db->h, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
        free(uri);
    } else {
        src = sqlite3_open_v2(path, &db->h, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
    }
    if (src != SQLITE_OK) {
        rc = core_err_set(err, CORE_ERR_IO, "cannot open %s: %s", path,
                          db->h ? sqlite3_errmsg(db->h) : sqlite3_errstr(src));
        goto out;
    }
    sqlite3_extended_result_codes(db->h, 1);
    sqlite3_busy_timeout(db->h, DB_BUSY_TIMEOUT_MS);
    db->travelling = !spec->wal;
    /* A file read-only is one someone else made (a student's submission,
     * a feedback file): hardened before SQLite reads a page of it. */
    if (spec->read_only && (rc = db_foreign_harden(db, (long long)st.st_size, err)) != 0)
        goto out;

    /* before the first query, which would recover the write-ahead log */
    bool check = false;
    if (!spec->read_only && spec->wal)
        db_guard_open(db, &check);
    rc = check_identity(db, spec, err);
    if (rc || spec->read_only) {
        if (!rc)
            rc = query_int(db, "PRAGMA user_version", &db->version, err);
        if (!rc && spec->read_only)
            rc = db_foreign_schema_check(db, spec, err);
        goto out;
    }
    if (spec->wal) {
        rc = apply_pragmas(db, err);
    } else {
        /* A file that travels: one file, no -wal beside it once closed. */
        rc = exec_sql(db, "PRAGMA journal_mode=DELETE", err);
        if (!rc)
            rc = exec_sql(db, "PRAGMA synchronous=FULL", err);
        if (!rc)
            rc = exec_sql(db, "PRAGMA foreign_keys=ON", err);
    }
    if (!rc)
        rc = db_guard_check(db, check, err); /* before anything is written */
    if (!rc)
        rc = db_migrate(db, spec->steps, spec->n_steps, err);
out:
    if (rc) {
        db_close(db);
        return rc;
    }
    *out = db;
    return 0;
}

int db_open_ex(struct db **out, const char *path, const char *const *steps, int n_steps,
               struct core_err *err)
{
    const struct db_open_spec spec = {.app_id = DB_APPLICATION_ID,
                                      .what = "a Warpbench store",
                                      .steps = steps,
                                      .n_steps = n_steps,
                                      .wal = true};
    return db_open_spec(out, path, &spec, err);
}

int db_open(struct db **out, const char *path, struct core_err *err)
{
    int rc = db_open_ex(out, path, db_migrations, DB_SCHEMA_VERSION, err);
    if (rc)
        return rc;
    /* Best effort: a read-only or busy store keeps its abandoned runs as
     * they are, and opening still succeeds. */
    size_t closed;
    (void)db_labrun_close_orphans(*out, &closed, NULL);
    return 0;
}

void db_close(struct db *db)
{
    if (!db)
        return;
    db_labrun_sides_close(db);
    for (size_t i = 0; i < db->n_stmts; i++)
        sqlite3_finalize(db->stmts[i].st);
    free(db->stmts);
    if (db->h) {
        /* Keeps the planner's statistics fresh; cheap when nothing changed. */
        if (db->version > 0 && !db->travelling && !sqlite3_db_readonly(db->h, "main"))
            sqlite3_exec(db->h, "PRAGMA optimize", NULL, NULL, NULL);
        sqlite3_close_v2(db->h);
    }
    db_guard_close(db);
    free(db->damaged);
    free(db->path);
    free(db);
}

int db_schema_version(struct db *db)
{
    return db->version;
}

char *db_path_default(void)
{
    const char *p = getenv("WARPBENCH_DB");
    if (p && *p)
        return core_xstrdup(p);
    /* The XDG spec says a relative XDG_DATA_HOME is invalid and to be ignored. */
    p = getenv("XDG_DATA_HOME");
    if (p && p[0] == '/')
        return core_xasprintf("%s/warpbench/warpbench.db", p);
    p = getenv("HOME");
    if (p && *p)
        return core_xasprintf("%s/.local/share/warpbench/warpbench.db", p);
    return NULL;
}
