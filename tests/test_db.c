/*
 * test_db.c — the store, against temporary SQLite files under $WB_TEST_TMP.
 *
 * White-box where it must be: db_internal.h gives db_open_ex (to build files
 * at earlier schema versions and to run a made-up future migration) and the
 * connection (to read per-connection pragmas). A second, raw SQLite handle
 * on the same file proves what the schema itself refuses.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "db/db.h"
#include "db/db_internal.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- helpers ------------------------------------------------------------- */

static int seq;

/* A fresh path $WB_TEST_TMP/db-<pid>-<n>-<name>, with any leftovers of an
 * earlier run removed. Caller frees. */
static char *tmp_path(const char *name)
{
    const char *dir = getenv("WB_TEST_TMP");
    if (!dir || !*dir)
        dir = "/tmp";
    char *p = core_xasprintf("%s/db-%ld-%d-%s", dir, (long)getpid(), ++seq, name);
    const char *suffix[] = {"", "-wal", "-shm", "-journal"};
    for (size_t i = 0; i < 4; i++) {
        char *q = core_xasprintf("%s%s", p, suffix[i]);
        unlink(q);
        free(q);
    }
    return p;
}

static void write_file(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    if (n)
        assert_int_equal(fwrite(data, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

static sqlite3 *raw_open(const char *path)
{
    sqlite3 *h = NULL;
    assert_int_equal(sqlite3_open_v2(path, &h, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
    sqlite3_busy_timeout(h, 5000);
    return h;
}

/* First column of the first row of `sql` on a raw handle, as an integer. */
static long long raw_int(const char *path, const char *sql)
{
    sqlite3 *h = raw_open(path);
    sqlite3_stmt *st = NULL;
    assert_int_equal(sqlite3_prepare_v2(h, sql, -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    long long v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(h);
    return v;
}

static int raw_exec(const char *path, const char *sql)
{
    sqlite3 *h = raw_open(path);
    int rc = sqlite3_exec(h, sql, NULL, NULL, NULL);
    sqlite3_close(h);
    return rc;
}

/* A pragma or query on the store's own connection (per-connection state). */
static long long conn_int(struct db *db, const char *sql)
{
    sqlite3_stmt *st = NULL;
    assert_int_equal(sqlite3_prepare_v2(db->h, sql, -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    long long v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

/* The schema as text: every object's type, name and SQL, in a stable order. */
static char *schema_dump(const char *path)
{
    sqlite3 *h = raw_open(path);
    sqlite3_stmt *st = NULL;
    assert_int_equal(sqlite3_prepare_v2(h,
                                        "SELECT type || ' ' || name || ': ' || coalesce(sql, '') "
                                        "FROM sqlite_master ORDER BY type, name",
                                        -1, &st, NULL),
                     SQLITE_OK);
    struct core_buf b;
    core_buf_init(&b);
    while (sqlite3_step(st) == SQLITE_ROW) {
        core_buf_puts(&b, (const char *)sqlite3_column_text(st, 0));
        core_buf_putc(&b, '\n');
    }
    sqlite3_finalize(st);
    sqlite3_close(h);
    return core_buf_steal(&b);
}

static struct db *open_ok(const char *path)
{
    struct db *db = NULL;
    struct core_err err = {0};
    int rc = db_open(&db, path, &err);
    if (rc)
        fail_msg("db_open(%s): %s", path, err.msg);
    assert_non_null(db);
    return db;
}

static int64_t user_ok(struct db *db, const char *name)
{
    int64_t id = 0;
    struct core_err err = {0};
    if (db_user_ensure(db, name, &id, &err))
        fail_msg("db_user_ensure(%s): %s", name, err.msg);
    return id;
}

/* ---- a pack fixture ------------------------------------------------------ */

/* Version 1: lessons amdahl (2 pages, questions speedup and fmax) and
 * gustafson (1 page, question scaled). Version 2 swaps gustafson for karp
 * (question kf). `extra` changes pack.lua's bytes without changing the
 * version, to provoke a conflict. */
struct fixture {
    char pack_lua[256];
    struct db_file_in files[3];
    struct db_lesson_in lessons[2];
    struct db_page_in pages[3];
    struct db_question_in questions[3];
    struct db_pack_in in;
};

static const char amdahl_lua[] = "lesson{ id = 'amdahl' }\n";
/* A NUL byte and bytes that are not UTF-8, to prove files are kept as bytes. */
static const char blob[] = {'b', 'i', 'n', '\0', (char)0xff, (char)0xfe, '\n', (char)0x80, 'z'};

static void fixture_make(struct fixture *f, const char *id, const char *version, bool v2,
                         const char *extra)
{
    memset(f, 0, sizeof *f);
    snprintf(f->pack_lua, sizeof f->pack_lua, "pack{ id = '%s', version = '%s' }\n%s", id, version,
             extra ? extra : "");
    /* Deliberately not sorted by path. */
    f->files[0] = (struct db_file_in){"pack.lua", f->pack_lua, strlen(f->pack_lua)};
    f->files[1] = (struct db_file_in){"lessons/amdahl.lua", amdahl_lua, strlen(amdahl_lua)};
    f->files[2] = (struct db_file_in){"data/blob.bin", blob, sizeof blob};

    const char *l2 = v2 ? "karp" : "gustafson";
    f->lessons[0] = (struct db_lesson_in){
        .id = "amdahl", .title = "Amdahl's law", .file = "lessons/amdahl.lua"};
    f->lessons[1] = (struct db_lesson_in){
        .id = l2, .title = v2 ? "Karp-Flatt" : "Gustafson", .file = "pack.lua"};

    f->pages[0] = (struct db_page_in){"amdahl", "Speedup", "# Speedup\n"};
    f->pages[1] = (struct db_page_in){l2, NULL, v2 ? "# Karp\n" : "# Gustafson\n"};
    f->pages[2] = (struct db_page_in){"amdahl", "Limits", "# Limits\n"};

    f->questions[0] = (struct db_question_in){.id = "speedup",
                                              .lesson_id = "amdahl",
                                              .kind = "numeric",
                                              .title = "Speedup",
                                              .prompt = "f = {f}, p = {p}: speedup?",
                                              .points = 2,
                                              .topics = "amdahl,scaling",
                                              .rubric = "theory",
                                              .lab = NULL,
                                              .file = "lessons/amdahl.lua",
                                              .line = 12,
                                              .page_after = 0};
    f->questions[1] = (struct db_question_in){.id = v2 ? "kf" : "scaled",
                                              .lesson_id = l2,
                                              .kind = "numeric",
                                              .title = NULL,
                                              .prompt = "your measured speedup?",
                                              .points = 3,
                                              .topics = "",
                                              .rubric = "practice",
                                              .lab = "amdahl",
                                              .file = "pack.lua",
                                              .line = 40,
                                              .page_after = -1};
    f->questions[2] = (struct db_question_in){.id = "fmax",
                                              .lesson_id = "amdahl",
                                              .kind = "choice",
                                              .title = "Limit",
                                              .prompt = "max speedup?",
                                              .points = 1,
                                              .topics = "amdahl",
                                              .rubric = "theory",
                                              .lab = NULL,
                                              .file = "lessons/amdahl.lua",
                                              .line = 30,
                                              .page_after = 1};

    f->in = (struct db_pack_in){.id = id,
                                .version = version,
                                .title = "Scaling",
                                .description = "Amdahl and friends",
                                .files = f->files,
                                .n_files = 3,
                                .lessons = f->lessons,
                                .n_lessons = 2,
                                .pages = f->pages,
                                .n_pages = 3,
                                .questions = f->questions,
                                .n_questions = 3};
}

static int64_t import_ok(struct db *db, const struct db_pack_in *in, bool force,
                         enum db_import_result want)
{
    enum db_import_result res = (enum db_import_result) - 1;
    int64_t rev = 0;
    struct core_err err = {0};
    int rc = db_pack_import(db, in, force, &res, &rev, &err);
    if (rc)
        fail_msg("db_pack_import(%s %s): %s", in->id, in->version, err.msg);
    assert_int_equal(res, want);
    assert_true(rev > 0);
    return rev;
}

static struct db_attempt_in attempt_make(int64_t user, const char *pack, const char *q, int64_t rev,
                                         double score, bool valid)
{
    return (struct db_attempt_in){.user_id = user,
                                  .pack_id = pack,
                                  .question_id = q,
                                  .variant = 1,
                                  .answer = "4.2x",
                                  .parsed = "4.2",
                                  .value = 4.2,
                                  .has_value = true,
                                  .valid = valid,
                                  .score = score,
                                  .max = 1,
                                  .correct = score >= 1,
                                  .feedback = "ok",
                                  .rev_id = rev,
                                  .regrade_of = 0};
}

static int64_t attempt_ok(struct db *db, const struct db_attempt_in *in)
{
    int64_t id = 0;
    struct core_err err = {0};
    if (db_attempt_insert(db, in, &id, &err))
        fail_msg("db_attempt_insert: %s", err.msg);
    assert_true(id > 0);
    return id;
}

/* ---- open, pragmas, migrations ------------------------------------------- */

static void test_open_creates_parent(void **state)
{
    (void)state;
    char *base = tmp_path("nest");
    char *path = core_xasprintf("%s/a/b/store.db", base);
    struct db *db = open_ok(path);
    assert_int_equal(db_schema_version(db), DB_SCHEMA_VERSION);
    struct stat sb;
    assert_int_equal(stat(path, &sb), 0);
    assert_true(S_ISREG(sb.st_mode));
    db_close(db);
    db_close(NULL);
    assert_int_equal(raw_int(path, "PRAGMA user_version"), DB_SCHEMA_VERSION);
    assert_int_equal(raw_int(path, "PRAGMA application_id"), DB_APPLICATION_ID);
    free(path);
    free(base);
}

static void test_pragmas(void **state)
{
    (void)state;
    char *path = tmp_path("pragmas.db");
    struct db *db = open_ok(path);
    sqlite3_stmt *st = NULL;
    assert_int_equal(sqlite3_prepare_v2(db->h, "PRAGMA journal_mode", -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    assert_string_equal((const char *)sqlite3_column_text(st, 0), "wal");
    sqlite3_finalize(st);
    assert_int_equal(conn_int(db, "PRAGMA foreign_keys"), 1);
    assert_int_equal(conn_int(db, "PRAGMA synchronous"), 2); /* FULL */
    assert_int_equal(conn_int(db, "PRAGMA busy_timeout"), 5000);
    db_close(db);
    /* WAL is a property of the file: a fresh connection sees it too. */
    sqlite3 *h = raw_open(path);
    assert_int_equal(sqlite3_prepare_v2(h, "PRAGMA journal_mode", -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    assert_string_equal((const char *)sqlite3_column_text(st, 0), "wal");
    sqlite3_finalize(st);
    sqlite3_close(h);
    free(path);
}

/* From every earlier version (0 as an empty 0-byte file and as a store
 * built to version 0 by db_open_ex) to the current one: the result has the
 * schema of a fresh store, and data written at that version survives. */
static void test_migrate_from_every_version(void **state)
{
    (void)state;
    char *fresh = tmp_path("fresh.db");
    db_close(open_ok(fresh));
    char *want = schema_dump(fresh);
    assert_non_null(strstr(want, "table attempts"));

    char *empty = tmp_path("empty.db");
    write_file(empty, "", 0);
    struct db *db = open_ok(empty);
    assert_int_equal(db_schema_version(db), DB_SCHEMA_VERSION);
    db_close(db);
    char *got = schema_dump(empty);
    assert_string_equal(got, want);
    free(got);

    for (int v = 0; v < DB_SCHEMA_VERSION; v++) {
        char *path = tmp_path("old.db");
        struct core_err err = {0};
        db = NULL;
        assert_int_equal(db_open_ex(&db, path, db_migrations, v, &err), 0);
        assert_int_equal(db_schema_version(db), v);
        db_close(db);
        assert_int_equal(raw_int(path, "PRAGMA user_version"), v);
        db = open_ok(path);
        assert_int_equal(db_schema_version(db), DB_SCHEMA_VERSION);
        db_close(db);
        got = schema_dump(path);
        assert_string_equal(got, want);
        free(got);
        free(path);
    }
    free(want);
    free(empty);
    free(fresh);
}

/* A v1 file reopened is not migrated again and keeps its rows. */
static void test_reopen_keeps_data(void **state)
{
    (void)state;
    char *path = tmp_path("reopen.db");
    struct db *db = open_ok(path);
    int64_t alice = user_ok(db, "alice");
    db_close(db);
    db = open_ok(path);
    assert_int_equal(db_schema_version(db), DB_SCHEMA_VERSION);
    assert_int_equal(user_ok(db, "alice"), alice);
    db_close(db);
    assert_int_equal(raw_int(path, "SELECT count(*) FROM users"), 1);
    free(path);
}

/* The mechanism for the next version: one more row in a step table. A
 * failing step leaves the store at the version before it, with nothing of
 * the step applied. */
static void test_migration_mechanism(void **state)
{
    (void)state;
    char *path = tmp_path("future.db");
    db_close(open_ok(path));

    const char *bad[DB_SCHEMA_VERSION + 1];
    for (int i = 0; i < DB_SCHEMA_VERSION; i++)
        bad[i] = db_migrations[i];
    bad[DB_SCHEMA_VERSION] = "CREATE TABLE half(x); CREATE TABLE users(y);";
    struct db *db = NULL;
    struct core_err err = {0};
    assert_int_equal(db_open_ex(&db, path, bad, DB_SCHEMA_VERSION + 1, &err), CORE_ERR_STORE);
    assert_null(db);
    assert_non_null(strstr(err.msg, "users"));
    assert_int_equal(raw_int(path, "PRAGMA user_version"), DB_SCHEMA_VERSION);
    assert_int_equal(raw_int(path, "SELECT count(*) FROM sqlite_master WHERE name = 'half'"), 0);

    const char *good[DB_SCHEMA_VERSION + 1];
    for (int i = 0; i < DB_SCHEMA_VERSION; i++)
        good[i] = db_migrations[i];
    good[DB_SCHEMA_VERSION] = "CREATE TABLE extra(x); INSERT INTO extra VALUES (42);";
    assert_int_equal(db_open_ex(&db, path, good, DB_SCHEMA_VERSION + 1, &err), 0);
    assert_int_equal(db_schema_version(db), DB_SCHEMA_VERSION + 1);
    db_close(db);
    assert_int_equal(raw_int(path, "SELECT x FROM extra"), 42);
    assert_int_equal(raw_int(path, "PRAGMA user_version"), DB_SCHEMA_VERSION + 1);

    /* That store is now newer than this build. */
    db = NULL;
    assert_int_equal(db_open(&db, path, &err), CORE_ERR_CONFLICT);
    assert_null(db);
    free(path);
}

static void test_newer_version_refused(void **state)
{
    (void)state;
    char *path = tmp_path("newer.db");
    db_close(open_ok(path));
    char sql[64];
    snprintf(sql, sizeof sql, "PRAGMA user_version = %d", DB_SCHEMA_VERSION + 3);
    assert_int_equal(raw_exec(path, sql), SQLITE_OK);
    struct db *db = NULL;
    struct core_err err = {0};
    assert_int_equal(db_open(&db, path, &err), CORE_ERR_CONFLICT);
    assert_null(db);
    assert_non_null(strstr(err.msg, "newer Warpbench"));
    assert_non_null(strstr(err.msg, path));
    /* Refusing wrote nothing. */
    assert_int_equal(raw_int(path, "PRAGMA user_version"), DB_SCHEMA_VERSION + 3);
    free(path);
}

static void test_not_a_store(void **state)
{
    (void)state;
    struct core_err err = {0};
    struct db *db = NULL;

    char *text = tmp_path("notes.txt");
    char junk[2048];
    for (size_t i = 0; i < sizeof junk; i++)
        junk[i] = (char)('a' + i % 26);
    write_file(text, junk, sizeof junk);
    assert_int_equal(db_open(&db, text, &err), CORE_ERR_STORE);
    assert_null(db);
    assert_non_null(strstr(err.msg, text));

    char *tiny = tmp_path("tiny.txt");
    write_file(tiny, "hello\n", 6);
    assert_int_equal(db_open(&db, tiny, &err), CORE_ERR_STORE);
    assert_non_null(strstr(err.msg, tiny));

    /* Another program's SQLite database is left alone. */
    char *other = tmp_path("other.db");
    sqlite3 *h = NULL;
    assert_int_equal(sqlite3_open(other, &h), SQLITE_OK);
    assert_int_equal(
        sqlite3_exec(h, "CREATE TABLE notes(t); INSERT INTO notes VALUES ('x');", NULL, NULL, NULL),
        SQLITE_OK);
    sqlite3_close(h);
    assert_int_equal(db_open(&db, other, &err), CORE_ERR_STORE);
    assert_non_null(strstr(err.msg, other));
    assert_int_equal(raw_int(other, "SELECT count(*) FROM sqlite_master"), 1);
    assert_int_equal(raw_int(other, "PRAGMA user_version"), 0);

    /* A directory cannot be a store. */
    char *dir = tmp_path("adir");
    assert_int_equal(mkdir(dir, 0755), 0);
    assert_true(db_open(&db, dir, &err) < 0);
    assert_null(db);
    assert_non_null(strstr(err.msg, dir));
    rmdir(dir);

    free(dir);
    free(other);
    free(tiny);
    free(text);
}

static void test_path_default(void **state)
{
    (void)state;
    char *save_db = getenv("WARPBENCH_DB") ? core_xstrdup(getenv("WARPBENCH_DB")) : NULL;
    char *save_xdg = getenv("XDG_DATA_HOME") ? core_xstrdup(getenv("XDG_DATA_HOME")) : NULL;
    char *save_home = getenv("HOME") ? core_xstrdup(getenv("HOME")) : NULL;

    setenv("WARPBENCH_DB", "/x/my.db", 1);
    setenv("XDG_DATA_HOME", "/xdg", 1);
    setenv("HOME", "/home/u", 1);
    char *p = db_path_default();
    assert_string_equal(p, "/x/my.db");
    free(p);
    unsetenv("WARPBENCH_DB");
    p = db_path_default();
    assert_string_equal(p, "/xdg/warpbench/warpbench.db");
    free(p);
    unsetenv("XDG_DATA_HOME");
    p = db_path_default();
    assert_string_equal(p, "/home/u/.local/share/warpbench/warpbench.db");
    free(p);
    unsetenv("HOME");
    assert_null(db_path_default());

    if (save_db)
        setenv("WARPBENCH_DB", save_db, 1);
    if (save_xdg)
        setenv("XDG_DATA_HOME", save_xdg, 1);
    if (save_home)
        setenv("HOME", save_home, 1);
    free(save_db);
    free(save_xdg);
    free(save_home);
}

/* ---- users --------------------------------------------------------------- */

static void test_users(void **state)
{
    (void)state;
    char *path = tmp_path("users.db");
    struct db *db = open_ok(path);
    int64_t a = user_ok(db, "alice");
    int64_t b = user_ok(db, "bob");
    assert_true(a > 0 && b > 0 && a != b);
    assert_int_equal(user_ok(db, "alice"), a);
    assert_true(user_ok(db, "José") > 0);

    char name[200];
    memset(name, 'n', 64);
    name[64] = '\0';
    assert_true(user_ok(db, name) > 0);
    /* 64 characters of two bytes each: counted as characters. */
    for (int i = 0; i < 64; i++)
        memcpy(name + 2 * i, "\xc3\xa9", 2);
    name[128] = '\0';
    assert_true(user_ok(db, name) > 0);

    struct core_err err = {0};
    int64_t id = -7;
    assert_int_equal(db_user_ensure(db, "", &id, &err), CORE_ERR_INVALID);
    assert_int_equal(db_user_ensure(db, NULL, &id, &err), CORE_ERR_INVALID);
    memset(name, 'n', 65);
    name[65] = '\0';
    assert_int_equal(db_user_ensure(db, name, &id, &err), CORE_ERR_INVALID);
    assert_int_equal(db_user_ensure(db, "tab\there", &id, &err), CORE_ERR_INVALID);
    assert_int_equal(db_user_ensure(db, "bad\xff", &id, &err), CORE_ERR_INVALID);
    assert_int_equal(id, -7);
    db_close(db);
    assert_int_equal(raw_int(path, "SELECT count(*) FROM users"), 5);
    free(path);
}

/* ---- packs --------------------------------------------------------------- */

static void expect_digest(const struct fixture *f, const char *got)
{
    /* The documented digest, computed independently: files sorted by path;
     * path, NUL, 8-byte little-endian length, content. */
    const struct db_file_in *order[] = {&f->files[2], &f->files[1], &f->files[0]};
    struct core_sha256 h;
    core_sha256_init(&h);
    for (int i = 0; i < 3; i++) {
        unsigned char len[8] = {0};
        for (int b = 0; b < 8; b++)
            len[b] = (unsigned char)((uint64_t)order[i]->len >> (8 * b));
        core_sha256_update(&h, order[i]->path, strlen(order[i]->path));
        core_sha256_update(&h, "", 1);
        core_sha256_update(&h, len, 8);
        core_sha256_update(&h, order[i]->data, order[i]->len);
    }
    char want[65];
    core_sha256_final_hex(&h, want);
    assert_string_equal(got, want);
    char pub[65];
    db_pack_digest(f->files, 3, pub);
    assert_string_equal(pub, want);
}

static void test_pack_import_lifecycle(void **state)
{
    (void)state;
    char *path = tmp_path("packs.db");
    struct db *db = open_ok(path);
    int64_t u = user_ok(db, "alice");
    struct core_err err = {0};

    struct fixture f1;
    fixture_make(&f1, "scaling", "1", false, NULL);
    int64_t rev1 = import_ok(db, &f1.in, false, DB_IMPORT_NEW);

    struct db_pack p;
    assert_int_equal(db_pack_get(db, "scaling", &p, &err), 0);
    assert_string_equal(p.version, "1");
    assert_string_equal(p.title, "Scaling");
    assert_string_equal(p.description, "Amdahl and friends");
    assert_int_equal(p.rev_id, rev1);
    assert_int_equal(p.n_lessons, 2);
    assert_int_equal(p.n_questions, 3);
    assert_int_equal(strlen(p.imported_at), 24);
    assert_int_equal(p.imported_at[23], 'Z');
    expect_digest(&f1, p.digest);
    db_pack_fini(&p);

    /* Same content again, even listed in another order: nothing written. */
    struct fixture f1b;
    fixture_make(&f1b, "scaling", "1", false, NULL);
    struct db_file_in tmp = f1b.files[0];
    f1b.files[0] = f1b.files[2];
    f1b.files[2] = tmp;
    assert_int_equal(import_ok(db, &f1b.in, false, DB_IMPORT_UNCHANGED), rev1);
    assert_int_equal(raw_int(path, "SELECT count(*) FROM pack_revs"), 1);

    struct db_attempt_in a = attempt_make(u, "scaling", "scaled", rev1, 1, true);
    int64_t old_attempt = attempt_ok(db, &a);

    /* Version 2 replaces the lessons; the old attempt stays at version 1. */
    struct fixture f2;
    fixture_make(&f2, "scaling", "2", true, NULL);
    int64_t rev2 = import_ok(db, &f2.in, false, DB_IMPORT_REPLACED);
    assert_true(rev2 != rev1);
    struct db_lesson *ls = NULL;
    size_t nl = 0;
    assert_int_equal(db_lesson_list(db, "scaling", &ls, &nl, &err), 0);
    assert_int_equal(nl, 2);
    assert_string_equal(ls[0].id, "amdahl");
    assert_string_equal(ls[1].id, "karp");
    db_lessons_free(ls, nl);
    struct db_question q;
    assert_int_equal(db_question_find(db, "scaled", &q, &err), CORE_ERR_NOTFOUND);
    assert_int_equal(db_question_find(db, "scaling:kf", &q, &err), 0);
    assert_int_equal(q.rev_id, rev2);
    db_question_fini(&q);
    struct db_page *pg = NULL;
    size_t np = 0;
    assert_int_equal(db_page_list(db, "scaling", "gustafson", &pg, &np, &err), CORE_ERR_NOTFOUND);
    assert_int_equal(raw_int(path, "SELECT count(*) FROM pages"), 3);

    struct db_attempt *at = NULL;
    size_t na = 0;
    assert_int_equal(db_attempt_list(db, u, "scaling", "scaled", &at, &na, &err), 0);
    assert_int_equal(na, 1);
    assert_int_equal(at[0].id, old_attempt);
    assert_int_equal(at[0].rev_id, rev1);
    assert_string_equal(at[0].pack_version, "1");
    db_attempts_free(at, na);

    /* Same version, other content: refused, and nothing changes. */
    struct fixture f2x;
    fixture_make(&f2x, "scaling", "2", true, "-- edited\n");
    enum db_import_result res = DB_IMPORT_NEW;
    int64_t rev = 0;
    assert_int_equal(db_pack_import(db, &f2x.in, false, &res, &rev, &err), CORE_ERR_CONFLICT);
    assert_non_null(strstr(err.msg, "pack scaling version 2 is already imported with other "
                                    "content; raise its version"));
    assert_int_equal(db_pack_get(db, "scaling", &p, &err), 0);
    assert_int_equal(p.rev_id, rev2);
    db_pack_fini(&p);
    assert_int_equal(raw_int(path, "SELECT count(*) FROM pack_revs"), 2);

    /* ... unless forced. */
    int64_t rev3 = import_ok(db, &f2x.in, true, DB_IMPORT_REPLACED);
    assert_true(rev3 != rev2 && rev3 != rev1);
    assert_int_equal(db_pack_get(db, "scaling", &p, &err), 0);
    assert_int_equal(p.rev_id, rev3);
    assert_string_equal(p.version, "2");
    db_pack_fini(&p);

    /* Back to version 1's exact content: a silent roll-back is refused, a
     * forced one is a new revision. */
    assert_int_equal(db_pack_import(db, &f1.in, false, NULL, NULL, &err), CORE_ERR_CONFLICT);
    assert_non_null(strstr(err.msg, "--force"));
    assert_int_equal(db_pack_get(db, "scaling", &p, &err), 0);
    assert_int_equal(p.rev_id, rev3);
    db_pack_fini(&p);
    int64_t rev4 = import_ok(db, &f1.in, true, DB_IMPORT_REPLACED);
    assert_true(rev4 > rev3);
    assert_int_equal(db_question_find(db, "scaled", &q, &err), 0);
    db_question_fini(&q);

    /* A second pack, and the list. */
    struct fixture g;
    fixture_make(&g, "alpha", "0.1", false, NULL);
    import_ok(db, &g.in, false, DB_IMPORT_NEW);
    struct db_pack *ps = NULL;
    size_t n = 0;
    assert_int_equal(db_pack_list(db, &ps, &n, &err), 0);
    assert_int_equal(n, 2);
    assert_string_equal(ps[0].id, "alpha");
    assert_string_equal(ps[1].id, "scaling");
    assert_int_equal(ps[1].rev_id, rev4);
    for (size_t i = 0; i < n; i++)
        db_pack_fini(&ps[i]);
    free(ps);
    assert_int_equal(db_pack_get(db, "nope", &p, &err), CORE_ERR_NOTFOUND);

    db_close(db);
    free(path);
}

static void test_pack_files_roundtrip(void **state)
{
    (void)state;
    char *path = tmp_path("files.db");
    struct db *db = open_ok(path);
    struct core_err err = {0};
    struct fixture f;
    fixture_make(&f, "bytes", "1", false, NULL);
    struct db_file_in files[4];
    memcpy(files, f.files, sizeof f.files);
    files[3] = (struct db_file_in){"empty.lua", "", 0};
    f.in.files = files;
    f.in.n_files = 4;
    int64_t rev = import_ok(db, &f.in, false, DB_IMPORT_NEW);

    struct db_file *out = NULL;
    size_t n = 0;
    assert_int_equal(db_pack_files(db, rev, &out, &n, &err), 0);
    assert_int_equal(n, 4);
    /* Ordered by path. */
    assert_string_equal(out[0].path, "data/blob.bin");
    assert_string_equal(out[1].path, "empty.lua");
    assert_string_equal(out[2].path, "lessons/amdahl.lua");
    assert_string_equal(out[3].path, "pack.lua");
    assert_int_equal(out[0].len, sizeof blob);
    assert_memory_equal(out[0].data, blob, sizeof blob);
    assert_int_equal(out[0].data[out[0].len], '\0');
    assert_int_equal(out[1].len, 0);
    assert_string_equal(out[1].data, "");
    assert_string_equal(out[3].data, f.pack_lua);
    for (size_t i = 0; i < n; i++) {
        char sha[65];
        core_sha256_hex(out[i].data, out[i].len, sha);
        assert_string_equal(out[i].sha256, sha);
    }
    db_files_free(out, n);
    db_files_free(NULL, 0);

    assert_int_equal(db_pack_files(db, rev + 100, &out, &n, &err), CORE_ERR_NOTFOUND);

    /* Bytes changed behind our back are reported, not handed out. */
    db_close(db);
    assert_int_equal(raw_exec(path, "UPDATE pack_files SET content = x'00' WHERE path = "
                                    "'pack.lua'"),
                     SQLITE_OK);
    db = open_ok(path);
    assert_int_equal(db_pack_files(db, rev, &out, &n, &err), CORE_ERR_STORE);
    assert_non_null(strstr(err.msg, "pack.lua"));
    assert_null(out);
    db_close(db);
    free(path);
}

static void test_pack_invalid(void **state)
{
    (void)state;
    char *path = tmp_path("badpacks.db");
    struct db *db = open_ok(path);
    struct core_err err = {0};
    struct fixture f;

    fixture_make(&f, "bad", "1", false, NULL);
    f.files[1].path = "../escape.lua";
    assert_int_equal(db_pack_import(db, &f.in, false, NULL, NULL, &err), CORE_ERR_INVALID);
    assert_non_null(strstr(err.msg, "../escape.lua"));

    fixture_make(&f, "bad", "1", false, NULL);
    f.files[1].path = "pack.lua";
    assert_int_equal(db_pack_import(db, &f.in, false, NULL, NULL, &err), CORE_ERR_INVALID);
    assert_non_null(strstr(err.msg, "twice"));

    fixture_make(&f, "bad:id", "1", false, NULL);
    assert_int_equal(db_pack_import(db, &f.in, false, NULL, NULL, &err), CORE_ERR_INVALID);

    /* Errors found by the store roll the whole import back. */
    fixture_make(&f, "bad", "1", false, NULL);
    f.pages[1].lesson_id = "ghost";
    assert_int_equal(db_pack_import(db, &f.in, false, NULL, NULL, &err), CORE_ERR_INVALID);
    assert_non_null(strstr(err.msg, "ghost"));

    fixture_make(&f, "bad", "1", false, NULL);
    f.questions[2].page_after = 2; /* amdahl has pages 0 and 1 */
    assert_int_equal(db_pack_import(db, &f.in, false, NULL, NULL, &err), CORE_ERR_INVALID);
    assert_non_null(strstr(err.msg, "fmax"));

    fixture_make(&f, "bad", "1", false, NULL);
    f.lessons[1].id = "amdahl";
    f.pages[1].lesson_id = "amdahl";
    f.questions[1].lesson_id = "amdahl";
    assert_int_equal(db_pack_import(db, &f.in, false, NULL, NULL, &err), CORE_ERR_INVALID);

    struct db_pack p;
    assert_int_equal(db_pack_get(db, "bad", &p, &err), CORE_ERR_NOTFOUND);
    db_close(db);
    assert_int_equal(raw_int(path, "SELECT count(*) FROM packs"), 0);
    assert_int_equal(raw_int(path, "SELECT count(*) FROM pack_revs"), 0);
    assert_int_equal(raw_int(path, "SELECT count(*) FROM lessons"), 0);
    free(path);
}

/* ---- lessons, pages, questions ------------------------------------------- */

static void test_lessons_pages_questions(void **state)
{
    (void)state;
    char *path = tmp_path("lessons.db");
    struct db *db = open_ok(path);
    struct core_err err = {0};
    struct fixture f;
    fixture_make(&f, "scaling", "1", false, NULL);
    int64_t rev = import_ok(db, &f.in, false, DB_IMPORT_NEW);

    struct db_lesson *ls = NULL;
    size_t n = 0;
    assert_int_equal(db_lesson_list(db, NULL, &ls, &n, &err), 0);
    assert_int_equal(n, 2);
    assert_string_equal(ls[0].pack_id, "scaling");
    assert_string_equal(ls[0].id, "amdahl");
    assert_string_equal(ls[0].title, "Amdahl's law");
    assert_int_equal(ls[0].ordinal, 0);
    assert_int_equal(ls[0].n_pages, 2);
    assert_int_equal(ls[0].n_questions, 2);
    assert_string_equal(ls[1].id, "gustafson");
    assert_int_equal(ls[1].ordinal, 1);
    assert_int_equal(ls[1].n_pages, 1);
    assert_int_equal(ls[1].n_questions, 1);
    db_lessons_free(ls, n);
    assert_int_equal(db_lesson_list(db, "nope", &ls, &n, &err), CORE_ERR_NOTFOUND);

    /* Pages: ordinals count within the lesson, in array order. */
    struct db_page *pg = NULL;
    assert_int_equal(db_page_list(db, "scaling", "amdahl", &pg, &n, &err), 0);
    assert_int_equal(n, 2);
    assert_int_equal(pg[0].ordinal, 0);
    assert_string_equal(pg[0].title, "Speedup");
    assert_string_equal(pg[0].markdown, "# Speedup\n");
    assert_int_equal(pg[1].ordinal, 1);
    assert_string_equal(pg[1].markdown, "# Limits\n");
    db_pages_free(pg, n);
    assert_int_equal(db_page_list(db, "scaling", "gustafson", &pg, &n, &err), 0);
    assert_int_equal(n, 1);
    assert_null(pg[0].title);
    db_pages_free(pg, n);
    db_pages_free(NULL, 0);
    assert_int_equal(db_page_list(db, "scaling", "nope", &pg, &n, &err), CORE_ERR_NOTFOUND);

    struct db_question *qs = NULL;
    assert_int_equal(db_question_list(db, "scaling", NULL, &qs, &n, &err), 0);
    assert_int_equal(n, 3);
    /* Lesson order, then order within the lesson. */
    assert_string_equal(qs[0].id, "speedup");
    assert_string_equal(qs[1].id, "fmax");
    assert_string_equal(qs[2].id, "scaled");
    assert_int_equal(qs[0].ordinal, 0);
    assert_int_equal(qs[1].ordinal, 1);
    assert_int_equal(qs[2].ordinal, 0);
    assert_string_equal(qs[0].kind, "numeric");
    assert_string_equal(qs[0].prompt, "f = {f}, p = {p}: speedup?");
    assert_true(qs[0].points == 2.0);
    assert_string_equal(qs[0].topics, "amdahl,scaling");
    assert_string_equal(qs[0].rubric, "theory");
    assert_null(qs[0].lab);
    assert_string_equal(qs[0].file, "lessons/amdahl.lua");
    assert_int_equal(qs[0].line, 12);
    assert_int_equal(qs[0].page_after, 0);
    assert_int_equal(qs[0].rev_id, rev);
    assert_int_equal(qs[1].page_after, 1);
    assert_null(qs[2].title);
    assert_string_equal(qs[2].lab, "amdahl");
    assert_int_equal(qs[2].page_after, -1);
    db_questions_free(qs, n);
    db_questions_free(NULL, 0);
    assert_int_equal(db_question_list(db, "scaling", "gustafson", &qs, &n, &err), 0);
    assert_int_equal(n, 1);
    assert_string_equal(qs[0].id, "scaled");
    db_questions_free(qs, n);
    assert_int_equal(db_question_list(db, "scaling", "nope", &qs, &n, &err), CORE_ERR_NOTFOUND);
    db_close(db);
    free(path);
}

static void test_question_find(void **state)
{
    (void)state;
    char *path = tmp_path("find.db");
    struct db *db = open_ok(path);
    struct core_err err = {0};
    struct fixture a, b;
    fixture_make(&a, "pa", "1", false, NULL);
    fixture_make(&b, "pb", "1", true, NULL); /* has kf, not scaled */
    int64_t reva = import_ok(db, &a.in, false, DB_IMPORT_NEW);
    int64_t revb = import_ok(db, &b.in, false, DB_IMPORT_NEW);

    struct db_question q;
    assert_int_equal(db_question_find(db, "speedup", &q, &err), CORE_ERR_USAGE);
    assert_non_null(strstr(err.msg, "pa"));
    assert_non_null(strstr(err.msg, "pb"));
    assert_null(q.id);

    assert_int_equal(db_question_find(db, "pb:speedup", &q, &err), 0);
    assert_string_equal(q.pack_id, "pb");
    assert_string_equal(q.id, "speedup");
    assert_int_equal(q.rev_id, revb);
    db_question_fini(&q);

    assert_int_equal(db_question_find(db, "scaled", &q, &err), 0); /* only in pa */
    assert_string_equal(q.pack_id, "pa");
    assert_string_equal(q.lesson_id, "gustafson");
    assert_int_equal(q.rev_id, reva);
    db_question_fini(&q);
    db_question_fini(NULL);

    assert_int_equal(db_question_find(db, "kf", &q, &err), 0);
    assert_string_equal(q.pack_id, "pb");
    db_question_fini(&q);

    assert_int_equal(db_question_find(db, "nope", &q, &err), CORE_ERR_NOTFOUND);
    assert_int_equal(db_question_find(db, "pa:kf", &q, &err), CORE_ERR_NOTFOUND);
    assert_int_equal(db_question_find(db, "zz:speedup", &q, &err), CORE_ERR_NOTFOUND);
    assert_int_equal(db_question_find(db, "pa:", &q, &err), CORE_ERR_NOTFOUND);
    assert_int_equal(db_question_find(db, ":speedup", &q, &err), CORE_ERR_NOTFOUND);
    db_close(db);
    free(path);
}

/* ---- attempts ------------------------------------------------------------ */

static void test_attempts_append_only(void **state)
{
    (void)state;
    char *path = tmp_path("append.db");
    struct db *db = open_ok(path);
    struct core_err err = {0};
    int64_t u = user_ok(db, "alice");
    struct fixture f;
    fixture_make(&f, "scaling", "1", false, NULL);
    int64_t rev = import_ok(db, &f.in, false, DB_IMPORT_NEW);

    struct db_attempt_in in = attempt_make(u, "scaling", "speedup", rev, 0.5, true);
    in.answer = "1/(0.2+0.8/4)";
    in.has_value = false;
    in.parsed = NULL;
    in.feedback = NULL;
    int64_t id = attempt_ok(db, &in);

    /* A second connection on the same file cannot change or remove it. */
    sqlite3 *h = raw_open(path);
    assert_int_equal(sqlite3_exec(h, "UPDATE attempts SET score = 1", NULL, NULL, NULL),
                     SQLITE_CONSTRAINT);
    assert_non_null(strstr(sqlite3_errmsg(h), "append-only"));
    assert_int_equal(sqlite3_exec(h, "DELETE FROM attempts", NULL, NULL, NULL), SQLITE_CONSTRAINT);
    sqlite3_close(h);

    struct db_attempt *at = NULL;
    size_t n = 0;
    assert_int_equal(db_attempt_list(db, u, NULL, NULL, &at, &n, &err), 0);
    assert_int_equal(n, 1);
    assert_int_equal(at[0].id, id);
    assert_string_equal(at[0].user, "alice");
    assert_string_equal(at[0].answer, "1/(0.2+0.8/4)");
    assert_null(at[0].parsed);
    assert_false(at[0].has_value);
    assert_true(at[0].score == 0.5);
    assert_true(at[0].valid);
    assert_false(at[0].correct);
    assert_string_equal(at[0].feedback, "");
    assert_int_equal(at[0].variant, 1);
    assert_int_equal(at[0].regrade_of, 0);
    assert_string_equal(at[0].pack_version, "1");
    assert_int_equal(strlen(at[0].created_at), 24);
    db_attempts_free(at, n);
    db_attempts_free(NULL, 0);

    /* An attempt must name a revision of its own pack, and a real user. */
    struct fixture g;
    fixture_make(&g, "other", "1", false, NULL);
    int64_t other_rev = import_ok(db, &g.in, false, DB_IMPORT_NEW);
    in = attempt_make(u, "scaling", "speedup", other_rev, 1, true);
    assert_int_equal(db_attempt_insert(db, &in, NULL, &err), CORE_ERR_INVALID);
    in = attempt_make(u + 99, "scaling", "speedup", rev, 1, true);
    assert_int_equal(db_attempt_insert(db, &in, NULL, &err), CORE_ERR_INVALID);
    in = attempt_make(u, "scaling", "speedup", rev, NAN, true);
    assert_int_equal(db_attempt_insert(db, &in, NULL, &err), CORE_ERR_INVALID);
    db_close(db);
    assert_int_equal(raw_int(path, "SELECT count(*) FROM attempts"), 1);
    free(path);
}

static void test_attempt_batch(void **state)
{
    (void)state;
    char *path = tmp_path("batch.db");
    struct db *db = open_ok(path);
    struct core_err err = {0};
    int64_t u = user_ok(db, "alice");
    struct fixture f;
    fixture_make(&f, "scaling", "1", false, NULL);
    int64_t rev = import_ok(db, &f.in, false, DB_IMPORT_NEW);

    /* The last one names an unknown user: none of the three is stored. */
    struct db_attempt_in three[3] = {
        attempt_make(u, "scaling", "speedup", rev, 1, true),
        attempt_make(u, "scaling", "fmax", rev, 1, true),
        attempt_make(u + 1000, "scaling", "fmax", rev, 1, true),
    };
    assert_int_equal(db_attempt_insert_batch(db, three, 3, &err), CORE_ERR_INVALID);
    assert_non_null(strstr(err.msg, "attempt 3 of 3"));
    assert_int_equal(raw_int(path, "SELECT count(*) FROM attempts"), 0);
    assert_int_equal(db_attempt_insert_batch(db, three, 0, &err), 0);

    /* The re-grading load: 25,000 in one transaction. */
    enum { N = 25000 };
    struct db_attempt_in *many = core_xcalloc(N, sizeof *many);
    for (int i = 0; i < N; i++)
        many[i] =
            attempt_make(u, "scaling", i % 2 ? "speedup" : "fmax", rev, (i % 10) / 10.0, true);
    /* (its speed: `warpbench bench grader`, "batch insert") */
    assert_int_equal(db_attempt_insert_batch(db, many, N, &err), 0);
    free(many);
    db_close(db);
    assert_int_equal(raw_int(path, "SELECT count(*) FROM attempts"), N);
    free(path);
}

struct each_ctx {
    int calls;
    int stop_at;
    int64_t last_id;
    bool saw_regrade;
    struct db *regrade_into; /* when set, each attempt is re-graded to 0.1 */
};

static int each_cb(const struct db_attempt *a, void *ctx)
{
    struct each_ctx *c = ctx;
    c->calls++;
    if (a->regrade_of)
        c->saw_regrade = true;
    assert_true(a->id > c->last_id); /* oldest first */
    c->last_id = a->id;
    assert_non_null(a->answer);
    assert_string_equal(a->pack_version, "1");
    if (c->regrade_into) {
        /* Writing to the store while the iteration is open is allowed. */
        struct db_attempt_in rg =
            attempt_make(a->user_id, a->pack_id, a->question_id, a->rev_id, 0.1, true);
        rg.regrade_of = a->id;
        struct core_err err = {0};
        if (db_attempt_insert_batch(c->regrade_into, &rg, 1, &err))
            fail_msg("re-grade inside db_attempt_each: %s", err.msg);
    }
    return c->calls == c->stop_at ? 7 : 0;
}

/* Progress: the latest re-grade of each attempt replaces its validity and
 * score; invalid attempts and other users' attempts do not count. */
static void test_progress_with_regrades(void **state)
{
    (void)state;
    char *path = tmp_path("progress.db");
    struct db *db = open_ok(path);
    struct core_err err = {0};
    int64_t u = user_ok(db, "alice");
    int64_t v = user_ok(db, "bob");
    struct fixture f;
    fixture_make(&f, "scaling", "1", false, NULL);
    int64_t rev = import_ok(db, &f.in, false, DB_IMPORT_NEW);

    struct db_attempt_in in = attempt_make(u, "scaling", "speedup", rev, 0.9, true);
    int64_t a1 = attempt_ok(db, &in);
    in.score = 0.7;
    int64_t a2 = attempt_ok(db, &in);
    in.score = 0;
    in.valid = false;
    int64_t a3 = attempt_ok(db, &in);
    in = attempt_make(v, "scaling", "speedup", rev, 1, true);
    attempt_ok(db, &in);
    in = attempt_make(u, "scaling", "fmax", rev, 0.25, true);
    attempt_ok(db, &in);

    /* a1: 0.9 -> 1.0 -> 0.4 (latest counts); a2: 0.7 -> 0.5; a3: invalid ->
     * valid 0.6. Best is therefore 0.6 of max 1 over 3 valid attempts, which
     * counts as 0.6 of the question's 2 points: 1.2. */
    struct db_attempt_in rg[4] = {
        attempt_make(u, "scaling", "speedup", rev, 1.0, true),
        attempt_make(u, "scaling", "speedup", rev, 0.5, true),
        attempt_make(u, "scaling", "speedup", rev, 0.4, true),
        attempt_make(u, "scaling", "speedup", rev, 0.6, true),
    };
    rg[0].regrade_of = a1;
    rg[1].regrade_of = a2;
    rg[2].regrade_of = a1;
    rg[3].regrade_of = a3;
    assert_int_equal(db_attempt_insert_batch(db, rg, 4, &err), 0);

    struct db_progress_row *r = NULL;
    size_t n = 0;
    assert_int_equal(db_progress(db, u, NULL, &r, &n, &err), 0);
    assert_int_equal(n, 3);
    assert_string_equal(r[0].question_id, "speedup");
    assert_string_equal(r[0].lesson_id, "amdahl");
    assert_string_equal(r[0].pack_id, "scaling");
    assert_string_equal(r[0].topics, "amdahl,scaling");
    assert_string_equal(r[0].rubric, "theory");
    assert_true(r[0].points == 2.0);
    assert_int_equal(r[0].attempts, 3);
    assert_true(r[0].best > 1.2 - 1e-12 && r[0].best < 1.2 + 1e-12);
    assert_true(r[0].answered);
    assert_string_equal(r[1].question_id, "fmax");
    assert_int_equal(r[1].attempts, 1);
    assert_true(r[1].best == 0.25);
    assert_string_equal(r[2].question_id, "scaled");
    assert_int_equal(r[2].attempts, 0);
    assert_true(r[2].best == 0);
    assert_false(r[2].answered);
    db_progress_free(r, n);
    db_progress_free(NULL, 0);

    assert_int_equal(db_progress(db, v, "scaling", &r, &n, &err), 0);
    assert_int_equal(n, 3);
    assert_int_equal(r[0].attempts, 1);
    assert_true(r[0].best == 2.0); /* full marks (1 of max 1) = the 2 points */
    db_progress_free(r, n);
    assert_int_equal(db_progress(db, u, "nope", &r, &n, &err), CORE_ERR_NOTFOUND);

    /* Lists and iteration see originals only. */
    struct db_attempt *at = NULL;
    assert_int_equal(db_attempt_list(db, u, "scaling", "speedup", &at, &n, &err), 0);
    assert_int_equal(n, 3);
    assert_int_equal(at[0].id, a1);
    assert_int_equal(at[2].id, a3);
    assert_false(at[2].valid);
    db_attempts_free(at, n);
    assert_int_equal(db_attempt_list(db, u, "scaling", NULL, &at, &n, &err), 0);
    assert_int_equal(n, 4);
    db_attempts_free(at, n);

    struct each_ctx c = {0};
    assert_int_equal(db_attempt_each(db, "scaling", each_cb, &c, &err), 0);
    assert_int_equal(c.calls, 5);
    assert_false(c.saw_regrade);
    c = (struct each_ctx){.stop_at = 2};
    assert_int_equal(db_attempt_each(db, "scaling", each_cb, &c, &err), 7);
    assert_int_equal(c.calls, 2);

    /* Re-grade everything to 0.1 from inside the iteration: each original is
     * visited once, and the newest re-grade now decides the best score. */
    c = (struct each_ctx){.regrade_into = db};
    assert_int_equal(db_attempt_each(db, "scaling", each_cb, &c, &err), 0);
    assert_int_equal(c.calls, 5);
    assert_false(c.saw_regrade);
    assert_int_equal(db_progress(db, u, "scaling", &r, &n, &err), 0);
    assert_int_equal(r[0].attempts, 3);
    assert_true(r[0].best > 0.2 - 1e-12 && r[0].best < 0.2 + 1e-12); /* 0.1 of max 1 at 2 points */
    assert_true(r[1].best > 0.1 - 1e-12 && r[1].best < 0.1 + 1e-12); /* 0.1 of max 1 at 1 point */
    db_progress_free(r, n);
    db_close(db);
    free(path);
}

/* An attempt is on disk when db_attempt_insert returns: a process killed
 * right after leaves it in a store that opens. */
static void test_attempt_survives_kill(void **state)
{
    (void)state;
    char *path = tmp_path("kill.db");
    struct db *db = open_ok(path);
    int64_t u = user_ok(db, "alice");
    struct fixture f;
    fixture_make(&f, "scaling", "1", false, NULL);
    int64_t rev = import_ok(db, &f.in, false, DB_IMPORT_NEW);
    db_close(db);

    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        struct db *cdb = NULL;
        if (db_open(&cdb, path, NULL))
            _exit(3);
        struct db_attempt_in in = attempt_make(u, "scaling", "fmax", rev, 1, true);
        in.answer = "survivor";
        if (db_attempt_insert(cdb, &in, NULL, NULL))
            _exit(4);
        raise(SIGKILL);
        _exit(5);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGKILL);

    db = open_ok(path);
    struct db_attempt *at = NULL;
    size_t n = 0;
    struct core_err err = {0};
    assert_int_equal(db_attempt_list(db, u, "scaling", "fmax", &at, &n, &err), 0);
    assert_int_equal(n, 1);
    assert_string_equal(at[0].answer, "survivor");
    db_attempts_free(at, n);
    db_close(db);
    free(path);
}

/* Several processes opening a fresh store at once (a TUI and a CLI on first
 * use): one migrates, the others wait for it, and all of them can write. */
static void test_concurrent_first_open(void **state)
{
    (void)state;
    enum { K = 6 };
    char *path = tmp_path("race.db");
    fflush(NULL);
    pid_t pids[K];
    for (int i = 0; i < K; i++) {
        pids[i] = fork();
        assert_true(pids[i] >= 0);
        if (pids[i] == 0) {
            struct db *cdb = NULL;
            struct core_err cerr = {0};
            if (db_open(&cdb, path, &cerr)) {
                fprintf(stderr, "child %d: %s\n", i, cerr.msg);
                _exit(3);
            }
            char name[16];
            snprintf(name, sizeof name, "u%d", i);
            int64_t id;
            if (db_user_ensure(cdb, name, &id, NULL) || db_user_ensure(cdb, "shared", &id, NULL))
                _exit(4);
            db_close(cdb);
            _exit(0);
        }
    }
    for (int i = 0; i < K; i++) {
        int status = 0;
        assert_int_equal(waitpid(pids[i], &status, 0), pids[i]);
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), 0);
    }
    assert_int_equal(raw_int(path, "SELECT count(*) FROM users"), K + 1);
    assert_int_equal(raw_int(path, "PRAGMA user_version"), DB_SCHEMA_VERSION);
    free(path);
}

/* ---- self-assessments and lab runs --------------------------------------- */

static void test_selfassess(void **state)
{
    (void)state;
    char *path = tmp_path("self.db");
    struct db *db = open_ok(path);
    struct core_err err = {0};
    int64_t u = user_ok(db, "alice");
    assert_int_equal(db_selfassess_insert(db, u, "theory", 3, 4, &err), 0);
    assert_int_equal(db_selfassess_insert(db, u, "theory", 4, 4, &err), 0);
    assert_int_equal(db_selfassess_insert(db, u, "theory", 5, 4, &err), CORE_ERR_INVALID);
    assert_int_equal(db_selfassess_insert(db, u, "theory", 1, 0, &err), CORE_ERR_INVALID);
    assert_int_equal(db_selfassess_insert(db, u, "", 1, 4, &err), CORE_ERR_INVALID);
    assert_int_equal(db_selfassess_insert(db, u + 9, "theory", 1, 4, &err), CORE_ERR_INVALID);
    db_close(db);
    assert_int_equal(raw_int(path, "SELECT count(*) FROM selfassess"), 2);
    assert_int_equal(raw_int(path, "SELECT sum(score) FROM selfassess WHERE item = 'theory'"), 7);
    assert_int_equal(raw_int(path, "SELECT count(*) FROM selfassess WHERE length(created_at) = 24"),
                     2);
    free(path);
}

static void test_positions(void **state)
{
    (void)state;
    char *path = tmp_path("pos.db");
    struct db *db = open_ok(path);
    struct core_err err = {0};
    int64_t a = user_ok(db, "alice"), b = user_ok(db, "bob");
    struct db_position p;
    assert_int_equal(db_position_latest(db, a, &p, &err), CORE_ERR_NOTFOUND);
    assert_int_equal(db_position_get(db, a, "pk", "l1", &p, &err), CORE_ERR_NOTFOUND);
    assert_int_equal(db_position_set(db, a, "pk", "l1", 2, NULL, &err), 0);
    assert_int_equal(db_position_set(db, a, "pk", "l2", 0, "q7", &err), 0);
    assert_int_equal(db_position_set(db, b, "pk", "l1", 5, NULL, &err), 0);
    assert_int_equal(db_position_set(db, a, "pk", "l1", -1, NULL, &err), CORE_ERR_INVALID);

    assert_int_equal(db_position_get(db, a, "pk", "l1", &p, &err), 0);
    assert_int_equal(p.page, 2); /* bob's page 5 is his own */
    assert_null(p.question_id);
    db_position_fini(&p);
    assert_int_equal(db_position_latest(db, a, &p, &err), 0);
    assert_string_equal(p.lesson_id, "l2");
    assert_string_equal(p.question_id, "q7");
    db_position_fini(&p);

    /* Moving in l1 again makes it the latest and replaces its row. */
    assert_int_equal(db_position_set(db, a, "pk", "l1", 3, NULL, &err), 0);
    assert_int_equal(db_position_latest(db, a, &p, &err), 0);
    assert_string_equal(p.lesson_id, "l1");
    assert_int_equal(p.page, 3);
    db_position_fini(&p);
    db_close(db);
    assert_int_equal(raw_int(path, "SELECT count(*) FROM positions"), 3);
    free(path);
}

static void test_lab_runs(void **state)
{
    (void)state;
    char *path = tmp_path("labs.db");
    struct db *db = open_ok(path);
    struct core_err err = {0};
    int64_t u = user_ok(db, "alice");
    int64_t v = user_ok(db, "bob");

    struct db_labrun r;
    assert_int_equal(db_labrun_latest(db, u, "amdahl", &r, &err), CORE_ERR_NOTFOUND);

    int64_t r1, r2, r3, r4;
    assert_int_equal(db_labrun_begin(db, u, "amdahl", "{\"p\":4}", "{\"cpu\":\"x\"}", &r1, &err),
                     0);
    struct core_sample s[3] = {
        {"speedup", 1, 1.0, 0.10}, {"speedup", 2, 1.8, 0.20}, {"efficiency", 2, 0.9, 0.20}};
    assert_int_equal(db_labrun_samples(db, r1, s, 3, &err), 0);
    assert_int_equal(db_labrun_end(db, r1, "done", "{\"f\":0.1}", &err), 0);
    assert_int_equal(db_labrun_begin(db, u, "amdahl", "{\"p\":8}", NULL, &r2, &err), 0);
    assert_int_equal(db_labrun_end(db, r2, "cancelled", NULL, &err), 0);
    assert_int_equal(db_labrun_begin(db, u, "amdahl", "{\"p\":2}", NULL, &r3, &err), 0);
    assert_int_equal(db_labrun_begin(db, v, "amdahl", "{}", NULL, &r4, &err), 0);
    assert_int_equal(db_labrun_end(db, r4, "done", NULL, &err), 0);

    /* r3 is still running, r2 was cancelled, r4 is bob's: r1 is the latest. */
    assert_int_equal(db_labrun_latest(db, u, "amdahl", &r, &err), 0);
    assert_int_equal(r.id, r1);
    assert_int_equal(r.user_id, u);
    assert_string_equal(r.lab, "amdahl");
    assert_string_equal(r.params_json, "{\"p\":4}");
    assert_string_equal(r.machine_json, "{\"cpu\":\"x\"}");
    assert_string_equal(r.summary_json, "{\"f\":0.1}");
    assert_string_equal(r.status, "done");
    assert_non_null(r.ended_at);
    assert_true(strcmp(r.started_at, r.ended_at) <= 0);
    db_labrun_fini(&r);
    db_labrun_fini(NULL);

    assert_int_equal(db_labrun_end(db, r3, "done", NULL, &err), 0);
    assert_int_equal(db_labrun_latest(db, u, "amdahl", &r, &err), 0);
    assert_int_equal(r.id, r3);
    assert_null(r.summary_json);
    assert_string_equal(r.machine_json, "{}");
    db_labrun_fini(&r);
    assert_int_equal(db_labrun_latest(db, u, "memory", &r, &err), CORE_ERR_NOTFOUND);

    assert_int_equal(db_labrun_end(db, r1, "failed", NULL, &err), CORE_ERR_CONFLICT);
    assert_int_equal(db_labrun_end(db, r1 + 100, "done", NULL, &err), CORE_ERR_NOTFOUND);
    assert_int_equal(db_labrun_end(db, r2, "finished", NULL, &err), CORE_ERR_INVALID);
    assert_int_equal(db_labrun_samples(db, r1, s, 1, &err), CORE_ERR_CONFLICT);
    assert_int_equal(db_labrun_samples(db, r1 + 100, s, 1, &err), CORE_ERR_NOTFOUND);
    assert_int_equal(db_labrun_begin(db, u, "", NULL, NULL, &r4, &err), CORE_ERR_INVALID);
    db_close(db);

    assert_int_equal(raw_int(path, "SELECT count(*) FROM lab_samples"), 3);
    char sql[160];
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM lab_samples WHERE run_id = %lld AND series = 'speedup' "
             "AND step = 2 AND value = 1.8 AND t = 0.2",
             (long long)r1);
    assert_int_equal(raw_int(path, sql), 1);
    assert_int_equal(raw_int(path, "SELECT count(*) FROM lab_runs WHERE status = 'cancelled'"), 1);
    free(path);
}

/* A run's side file: space set aside while it runs, gone when it ends; a
 * full store (max_page_count: SQLITE_FULL without filling a disk) is
 * reported as "disk full"; a closing note left in the side file by a
 * process that quit is applied by the next opener instead of "killed or
 * crashed". */
static void test_lab_run_side_file(void **state)
{
    (void)state;
    char *path = tmp_path("side.db");
    struct db *db = open_ok(path);
    struct core_err err = {0};
    int64_t u = user_ok(db, "carol"), r1, r2, r3;
    assert_int_equal(db_labrun_begin(db, u, "selftest", NULL, NULL, &r1, &err), 0);
    assert_int_equal(db_labrun_begin(db, u, "selftest", NULL, NULL, &r3, &err), 0);
    char *side = core_xasprintf("%s-run%lld", path, (long long)r1);
    struct stat st;
    assert_int_equal(lstat(side, &st), 0);
    assert_true(S_ISREG(st.st_mode));
    assert_true(st.st_size >= 256 * 1024); /* the reserve */
    assert_true(db_labrun_note_fd(db, r1) >= 0);
    assert_int_equal(db_labrun_note_fd(db, r3 + 1), -1);

    /* the store cannot grow: "disk full", whatever SQLite called it */
    int pages = 0;
    sqlite3_stmt *st1;
    assert_int_equal(sqlite3_prepare_v2(db->h, "PRAGMA page_count", -1, &st1, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st1), SQLITE_ROW);
    pages = sqlite3_column_int(st1, 0);
    sqlite3_finalize(st1);
    char pragma[64];
    snprintf(pragma, sizeof pragma, "PRAGMA max_page_count = %d", pages);
    assert_int_equal(sqlite3_exec(db->h, pragma, NULL, NULL, NULL), SQLITE_OK);
    enum { N = 4000 };
    struct core_sample *s = calloc(N, sizeof *s);
    for (int i = 0; i < N; i++)
        s[i] = (struct core_sample){"a rather long series name to fill pages", i, i * 0.5, i};
    assert_int_not_equal(db_labrun_samples(db, r1, s, N, &err), 0);
    assert_non_null(strstr(err.msg, "disk full"));
    assert_int_equal(raw_int(path, "SELECT count(*) FROM lab_samples"), 0); /* rolled back */
    /* the run still closes, with its reason, and its side file goes */
    assert_int_equal(db_labrun_finish(db, r1, "failed", NULL, err.msg, &err), 0);
    assert_int_equal(lstat(side, &st), -1);
    assert_int_equal(db_labrun_note_fd(db, r1), -1);
    /* a closing write that cannot be made even with the reserve given back
     * (the store, not the disk, is full): the reason stays in the side file */
    size_t big = 60000;
    char *why = malloc(big + 1);
    memset(why, 'E', big);
    memcpy(why, "the real reason: ", 17);
    why[big] = '\0';
    assert_int_equal(db_labrun_finish(db, r3, "failed", NULL, why, &err), CORE_ERR_IO);
    assert_non_null(strstr(err.msg, "disk full"));
    free(why);
    char *side3 = core_xasprintf("%s-run%lld", path, (long long)r3);
    char *note3 = NULL;
    size_t len3;
    assert_int_equal(core_file_read(side3, 1 << 20, &note3, &len3, &err), 0);
    assert_true(strncmp(note3, "failed\nthe real reason: EEE", 27) == 0);
    free(note3);
    snprintf(pragma, sizeof pragma, "PRAGMA max_page_count = %d", 1 << 30);
    assert_int_equal(sqlite3_exec(db->h, pragma, NULL, NULL, NULL), SQLITE_OK);

    /* a process that quit at once left a note: applied by the next opener */
    assert_int_equal(db_labrun_begin(db, u, "selftest", NULL, NULL, &r2, &err), 0);
    free(side);
    side = core_xasprintf("%s-run%lld", path, (long long)r2);
    int fd = db_labrun_note_fd(db, r2);
    const char note[] = "cancelled\ncancelled by a second Ctrl-C\n";
    assert_int_equal(ftruncate(fd, 0), 0);
    assert_int_equal(pwrite(fd, note, sizeof note - 1, 0), (ssize_t)(sizeof note - 1));
    db_close(db); /* without ending r2: the file stays */
    assert_int_equal(lstat(side, &st), 0);
    /* its owner is gone: a pid that is not running on this host and boot */
    char owner[CORE_OWNER_MAX], sql[512];
    core_owner_self(owner);
    char *bar = strchr(owner, '|');
    bar = bar ? strchr(bar + 1, '|') : NULL;
    assert_non_null(bar);
    char *after = strchr(bar + 1, '|');
    assert_non_null(after);
    snprintf(sql, sizeof sql,
             "UPDATE lab_runs SET owner = '%.*s|999999999%s' WHERE id IN (%lld, %lld)",
             (int)(bar - owner), owner, after, (long long)r2, (long long)r3);
    sqlite3 *h = raw_open(path);
    assert_int_equal(sqlite3_exec(h, sql, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(h);
    db = open_ok(path);
    struct db_labrun r;
    assert_int_equal(db_labrun_get(db, r2, &r, &err), 0);
    assert_string_equal(r.status, "cancelled");
    assert_string_equal(r.error, "cancelled by a second Ctrl-C");
    db_labrun_fini(&r);
    assert_int_equal(lstat(side, &st), -1);
    assert_int_equal(db_labrun_get(db, r3, &r, &err), 0);
    assert_string_equal(r.status, "failed");
    assert_true(strncmp(r.error, "the real reason: EEE", 20) == 0);
    db_labrun_fini(&r);
    assert_int_equal(lstat(side3, &st), -1);
    free(side3);
    db_close(db);
    free(s);
    free(side);
    free(path);
}

/* ---- give-ups and design self-scores (schema 4) -------------------------- */

static void test_giveups(void **state)
{
    (void)state;
    char *path = tmp_path("giveups.db");
    struct db *db = open_ok(path);
    struct core_err err = {0};
    int64_t u = user_ok(db, "alice");
    int64_t v = user_ok(db, "bob");
    struct fixture f, g;
    fixture_make(&f, "scaling", "1", false, NULL);
    fixture_make(&g, "other", "1", false, NULL);
    int64_t rev = import_ok(db, &f.in, false, DB_IMPORT_NEW);
    int64_t orev = import_ok(db, &g.in, false, DB_IMPORT_NEW);

    struct db_attempt_in in = attempt_make(u, "scaling", "speedup", rev, 0.5, true);
    int64_t a1 = attempt_ok(db, &in);
    int64_t gid = 0;
    assert_int_equal(db_giveup_insert(db, u, "scaling", "speedup", 2, rev, &gid, &err), 0);
    assert_true(gid > 0);
    in.score = 1;
    in.correct = true;
    int64_t a2 = attempt_ok(db, &in);
    /* Bob never gave up: his right answer counts in full. */
    in = attempt_make(v, "scaling", "speedup", rev, 1, true);
    attempt_ok(db, &in);

    /* Refused: a revision of another pack, no variant, no question. */
    assert_int_equal(db_giveup_insert(db, u, "scaling", "speedup", 1, orev, NULL, &err),
                     CORE_ERR_INVALID);
    assert_non_null(strstr(err.msg, "not a revision of pack scaling"));
    assert_int_equal(db_giveup_insert(db, u, "scaling", "speedup", 0, rev, NULL, &err),
                     CORE_ERR_INVALID);
    assert_int_equal(db_giveup_insert(db, u, "scaling", "", 1, rev, NULL, &err), CORE_ERR_INVALID);

    struct db_giveup *gu = NULL;
    size_t ng = 0;
    assert_int_equal(db_giveup_list(db, u, "scaling", "speedup", &gu, &ng, &err), 0);
    assert_int_equal(ng, 1);
    assert_int_equal(gu[0].id, gid);
    assert_int_equal(gu[0].variant, 2);
    assert_int_equal(gu[0].rev_id, rev);
    assert_int_equal(gu[0].last_attempt, a1);
    assert_non_null(gu[0].created_at);
    db_giveups_free(gu, ng);
    assert_int_equal(db_giveup_list(db, v, NULL, NULL, &gu, &ng, &err), 0);
    assert_int_equal(ng, 0);
    assert_null(gu);

    struct db_attempt *at = NULL;
    size_t na = 0;
    assert_int_equal(db_attempt_list(db, u, "scaling", "speedup", &at, &na, &err), 0);
    assert_int_equal(na, 2);
    assert_int_equal(at[0].id, a1);
    assert_false(at[0].after_giveup);
    assert_int_equal(at[1].id, a2);
    assert_true(at[1].after_giveup);
    db_attempts_free(at, na);

    /* Alice: best is the 0.5 before the give-up (of 2 points: 1.0), both
     * attempts counted. A re-grade of the earlier attempt (a later row)
     * still counts as before the give-up. */
    struct db_progress_row *r = NULL;
    size_t n = 0;
    assert_int_equal(db_progress(db, u, "scaling", &r, &n, &err), 0);
    assert_int_equal(n, 3);
    assert_string_equal(r[0].question_id, "speedup");
    assert_true(r[0].gave_up);
    assert_true(r[0].answered);
    assert_int_equal(r[0].attempts, 2);
    assert_float_equal(r[0].best, 1.0, 1e-12);
    for (size_t i = 1; i < n; i++)
        assert_false(r[i].gave_up);
    db_progress_free(r, n);
    struct db_attempt_in rg = attempt_make(u, "scaling", "speedup", rev, 0.8, true);
    rg.regrade_of = a1;
    assert_int_equal(db_attempt_insert_batch(db, &rg, 1, &err), 0);
    assert_int_equal(db_progress(db, u, "scaling", &r, &n, &err), 0);
    assert_float_equal(r[0].best, 1.6, 1e-12);
    db_progress_free(r, n);
    assert_int_equal(db_progress(db, v, "scaling", &r, &n, &err), 0);
    assert_false(r[0].gave_up);
    assert_float_equal(r[0].best, 2.0, 1e-12);
    db_progress_free(r, n);

    db_close(db);
    assert_int_not_equal(raw_exec(path, "UPDATE giveups SET variant = 1"), SQLITE_OK);
    assert_int_not_equal(raw_exec(path, "DELETE FROM giveups"), SQLITE_OK);
    assert_int_equal(raw_int(path, "SELECT count(*) FROM giveups"), 1);
    free(path);
}

static void test_selfscores(void **state)
{
    (void)state;
    char *path = tmp_path("selfscores.db");
    struct db *db = open_ok(path);
    struct core_err err = {0};
    int64_t u = user_ok(db, "alice");
    struct fixture f;
    fixture_make(&f, "scaling", "1", false, NULL);
    int64_t rev = import_ok(db, &f.in, false, DB_IMPORT_NEW);

    struct db_attempt_in in = attempt_make(u, "scaling", "scaled", rev, 0.25, true);
    const struct db_selfscore_in self[] = {{"names the bottleneck", 2, 2},
                                           {"a number for it", 0.5, 1}};
    int64_t a1 = 0;
    assert_int_equal(db_attempt_insert_selfscored(db, &in, self, 2, &a1, &err), 0);
    assert_true(a1 > 0);
    /* A later attempt without self-scores does not hide the scored one. */
    attempt_ok(db, &in);

    struct db_selfscore *ss = NULL;
    size_t n = 0;
    assert_int_equal(db_selfscore_list(db, a1, &ss, &n, &err), 0);
    assert_int_equal(n, 2);
    assert_string_equal(ss[0].concept, "names the bottleneck");
    assert_float_equal(ss[0].score, 2, 0);
    assert_float_equal(ss[0].max, 2, 0);
    assert_string_equal(ss[1].concept, "a number for it");
    assert_float_equal(ss[1].score, 0.5, 0);
    db_selfscores_free(ss, n);

    /* Bad self-scores: nothing stored, not even the attempt. */
    long long before = conn_int(db, "SELECT count(*) FROM attempts");
    const struct db_selfscore_in over[] = {{"x", 3, 2}};
    const struct db_selfscore_in twice[] = {{"x", 1, 2}, {"x", 0, 2}};
    const struct db_selfscore_in noname[] = {{"", 1, 2}};
    const struct db_selfscore_in nomax[] = {{"x", 0, 0}};
    assert_int_equal(db_attempt_insert_selfscored(db, &in, over, 1, NULL, &err), CORE_ERR_INVALID);
    assert_non_null(strstr(err.msg, "'x'"));
    assert_int_equal(db_attempt_insert_selfscored(db, &in, twice, 2, NULL, &err), CORE_ERR_INVALID);
    assert_non_null(strstr(err.msg, "twice"));
    assert_int_equal(db_attempt_insert_selfscored(db, &in, noname, 1, NULL, &err),
                     CORE_ERR_INVALID);
    assert_int_equal(db_attempt_insert_selfscored(db, &in, nomax, 1, NULL, &err), CORE_ERR_INVALID);
    /* A bad attempt rolls back its self-scores too. */
    struct db_attempt_in bad = in;
    bad.rev_id = rev + 100;
    assert_int_not_equal(db_attempt_insert_selfscored(db, &bad, self, 2, NULL, &err), 0);
    assert_int_equal(conn_int(db, "SELECT count(*) FROM attempts"), before);
    assert_int_equal(conn_int(db, "SELECT count(*) FROM selfscores"), 2);

    /* Self beside automatic; a re-grade replaces the automatic score. */
    struct db_selfscore_row *sr = NULL;
    assert_int_equal(db_selfscore_summary(db, u, NULL, &sr, &n, &err), 0);
    assert_int_equal(n, 1);
    assert_string_equal(sr[0].question_id, "scaled");
    assert_int_equal(sr[0].attempt_id, a1);
    assert_int_equal(sr[0].n_concepts, 2);
    assert_float_equal(sr[0].self, 2.5, 1e-12);
    assert_float_equal(sr[0].self_max, 3, 1e-12);
    assert_true(sr[0].valid);
    assert_float_equal(sr[0].score, 0.25, 1e-12);
    db_selfscore_rows_free(sr, n);
    struct db_attempt_in rg = attempt_make(u, "scaling", "scaled", rev, 0.75, true);
    rg.regrade_of = a1;
    assert_int_equal(db_attempt_insert_batch(db, &rg, 1, &err), 0);
    assert_int_equal(db_selfscore_summary(db, u, "scaling", &sr, &n, &err), 0);
    assert_int_equal(n, 1);
    assert_float_equal(sr[0].score, 0.75, 1e-12);
    db_selfscore_rows_free(sr, n);
    assert_int_equal(db_selfscore_summary(db, user_ok(db, "bob"), NULL, &sr, &n, &err), 0);
    assert_int_equal(n, 0);

    db_close(db);
    assert_int_not_equal(raw_exec(path, "UPDATE selfscores SET score = 0"), SQLITE_OK);
    assert_int_not_equal(raw_exec(path, "DELETE FROM selfscores"), SQLITE_OK);
    free(path);
}

/* A store written at version 3 (the last before give-ups and self-scores)
 * migrates on open, keeps its attempts and takes the new rows. */
/* A store written by an older Warpbench (schema 3, before give-ups, and
 * before attempt policies) is migrated on open: its attempts survive, its
 * questions get the kinds' default policies, and the new tables work. The
 * old store is written with raw SQL, as the old code would have. */
static void test_migrate_v3_store(void **state)
{
    (void)state;
    char *path = tmp_path("v3.db");
    struct core_err err = {0};
    struct db *db = NULL;
    assert_int_equal(db_open_ex(&db, path, db_migrations, 3, &err), 0);
    int64_t u = user_ok(db, "alice");
    db_close(db);
    assert_int_equal(
        raw_exec(path,
                 "INSERT INTO packs(id, rev_id, created_at) VALUES ('scaling', NULL, 't');"
                 "INSERT INTO pack_revs(id, pack_id, version, digest, title, imported_at) "
                 "  VALUES (7, 'scaling', '1', 'd', 'Scaling', 't');"
                 "UPDATE packs SET rev_id = 7;"
                 "INSERT INTO lessons(pack_id, id, ordinal, title) VALUES ('scaling', 'l', 0, 'L');"
                 "INSERT INTO questions(pack_id, id, lesson_id, ordinal, kind, prompt, points) "
                 "  VALUES ('scaling', 'speedup', 'l', 0, 'numeric', '?', 2),"
                 "         ('scaling', 'fmax', 'l', 1, 'choice', '?', 1);"
                 "INSERT INTO attempts(user_id, pack_id, question_id, variant, answer, valid, "
                 "  score, max, correct, feedback, rev_id, created_at) "
                 "  VALUES (1, 'scaling', 'speedup', 1, '4.2x', 1, 2, 2, 1, 'ok', 7, 't');"),
        SQLITE_OK);
    assert_int_equal(raw_int(path, "PRAGMA user_version"), 3);
    assert_int_equal(raw_int(path, "SELECT count(*) FROM sqlite_master WHERE name = 'giveups'"), 0);

    db = open_ok(path);
    assert_int_equal(db_schema_version(db), DB_SCHEMA_VERSION);
    /* The kinds' default policies of version 5. */
    assert_int_equal(raw_int(path, "SELECT tries FROM questions WHERE id = 'speedup'"), 5);
    assert_int_equal(raw_int(path, "SELECT tries * 10 + penalty FROM questions WHERE id = 'fmax'"),
                     21);
    struct db_attempt *at = NULL;
    size_t n = 0;
    assert_int_equal(db_attempt_list(db, u, NULL, NULL, &at, &n, &err), 0);
    assert_int_equal(n, 1);
    assert_false(at[0].after_giveup);
    assert_null(at[0].params_json); /* not kept before version 5 */
    assert_null(at[0].grader_rev);
    db_attempts_free(at, n);
    assert_int_equal(db_giveup_insert(db, u, "scaling", "speedup", 1, 7, NULL, &err), 0);
    struct db_attempt_in in = attempt_make(u, "scaling", "speedup", 7, 2, true);
    in.max = 2;
    const struct db_selfscore_in self[] = {{"c", 1, 1}};
    assert_int_equal(db_attempt_insert_selfscored(db, &in, self, 1, NULL, &err), 0);
    struct db_progress_row *r = NULL;
    assert_int_equal(db_progress(db, u, "scaling", &r, &n, &err), 0);
    assert_int_equal(n, 2);
    assert_true(r[0].gave_up);
    assert_float_equal(r[0].best, 2, 1e-12); /* a1 came before the give-up */
    assert_int_equal(r[0].attempts, 2);
    assert_int_equal(r[0].n_fracs, 2);
    assert_int_equal(r[0].helped_from, 1);
    assert_int_equal(r[0].tries, 5);
    db_progress_free(r, n);
    /* Exams: started once, submitted once. */
    struct db_exam x;
    assert_int_equal(db_exam_get(db, u, "scaling", "l", &x, &err), CORE_ERR_NOTFOUND);
    db_exam_fini(&x);
    assert_int_equal(db_exam_start(db, u, "scaling", "l", 7, 60, &x, &err), 0);
    assert_non_null(x.deadline);
    assert_false(x.over);
    char *first_start = core_xstrdup(x.started_at);
    db_exam_fini(&x);
    assert_int_equal(db_exam_start(db, u, "scaling", "l", 7, 3600, &x, &err), 0);
    assert_string_equal(x.started_at, first_start); /* one clock per sitting */
    db_exam_fini(&x);
    free(first_start);
    bool done = false;
    assert_int_equal(db_exam_submit(db, u, "scaling", "l", &done, &err), 0);
    assert_true(done);
    assert_int_equal(db_exam_submit(db, u, "scaling", "l", &done, &err), 0);
    assert_false(done);
    assert_int_equal(db_exam_get(db, u, "scaling", "l", &x, &err), 0);
    assert_true(x.over);
    db_exam_fini(&x);
    db_close(db);
    assert_int_not_equal(raw_exec(path, "UPDATE exams SET submitted_at = NULL"), SQLITE_OK);
    assert_int_not_equal(raw_exec(path, "DELETE FROM exams"), SQLITE_OK);
    free(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_open_creates_parent),
        cmocka_unit_test(test_pragmas),
        cmocka_unit_test(test_migrate_from_every_version),
        cmocka_unit_test(test_reopen_keeps_data),
        cmocka_unit_test(test_migration_mechanism),
        cmocka_unit_test(test_newer_version_refused),
        cmocka_unit_test(test_not_a_store),
        cmocka_unit_test(test_path_default),
        cmocka_unit_test(test_users),
        cmocka_unit_test(test_pack_import_lifecycle),
        cmocka_unit_test(test_pack_files_roundtrip),
        cmocka_unit_test(test_pack_invalid),
        cmocka_unit_test(test_lessons_pages_questions),
        cmocka_unit_test(test_question_find),
        cmocka_unit_test(test_attempts_append_only),
        cmocka_unit_test(test_attempt_batch),
        cmocka_unit_test(test_progress_with_regrades),
        cmocka_unit_test(test_attempt_survives_kill),
        cmocka_unit_test(test_concurrent_first_open),
        cmocka_unit_test(test_selfassess),
        cmocka_unit_test(test_positions),
        cmocka_unit_test(test_lab_runs),
        cmocka_unit_test(test_lab_run_side_file),
        cmocka_unit_test(test_giveups),
        cmocka_unit_test(test_selfscores),
        cmocka_unit_test(test_migrate_v3_store),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
