/*
 * test_db_foreign.c — files from someone else (db_foreign.c): every
 * hostile edit a student can make to a submission or feedback file, made
 * with a raw SQLite handle to a file the store wrote, is refused with its
 * reason and without a crash.
 *
 * Two layers are shown apart. The real reader (db_submission_read) refuses
 * a file whose schema is not the format's, naming the first difference: a
 * NOT NULL dropped, a table made a view, a trigger or a table added. Below
 * it, the row readers refuse what such a file could carry even when the
 * schema let it through: the NULL cases are read with a spec whose
 * schema is the edited one (db_submission_read_as), and each is refused
 * as "malformed submission: attempts row 1: answer is NULL". A recursive
 * query on a file's connection is stopped by its progress budget, and a
 * value longer than the file limit is refused before SQLite allocates it.
 *
 * And on a student's own store: a try and its limit are recorded together,
 * and `submit` gathers from one snapshot while another connection writes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "db/db_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char tmpdir[512];
static int counter;

static char *tmp_path(const char *name)
{
    return core_xasprintf("%s/%s-%d", tmpdir, name, counter++);
}

static void raw_exec(const char *path, const char *sql)
{
    sqlite3 *h = NULL;
    assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
    char *msg = NULL;
    if (sqlite3_exec(h, sql, NULL, NULL, &msg) != SQLITE_OK)
        fail_msg("%s: %s", sql, msg);
    sqlite3_close(h);
}

/* A submission as the store writes one: two packs' worth of rows, a lab
 * run with samples, a give-up and a self-score. */
static char *write_sample(void)
{
    struct db_sub_pack pk = {"p", "1.0", "abc", "P"};
    struct db_sub_attempt a[2];
    for (int i = 0; i < 2; i++)
        a[i] = (struct db_sub_attempt){.id = i + 1,
                                       .pack_id = "p",
                                       .question_id = i ? "q2" : "q1",
                                       .variant = 1,
                                       .answer = "2.5",
                                       .created_at = "2026-01-01T00:00:00.000Z",
                                       .params_json = "{}",
                                       .grader_rev = "g1",
                                       .pack_version = "1.0",
                                       .pack_digest = "abc",
                                       .valid = true,
                                       .score = 1,
                                       .max = 1,
                                       .correct = true,
                                       .feedback = "ok",
                                       .lab_run = i ? 7 : 0};
    struct db_labsample smp[2] = {{"ramp", 1, 1.0, 0.1}, {"ramp", 2, 2.0, 0.2}};
    struct db_sub_run run = {.id = 7,
                             .lab = "selftest",
                             .params_json = "{}",
                             .machine_json = "{}",
                             .summary_json = "{\"steps\":2}",
                             .status = "done",
                             .started_at = "2026-01-01T00:00:00.000Z",
                             .ended_at = "2026-01-01T00:00:01.000Z",
                             .samples = smp,
                             .n_samples = 2};
    struct db_sub_selfscore ss = {1, 0, "sharding", 1, 2};
    struct db_sub_giveup g = {9, "p", "q1", 1, 1, "2026-01-01T00:00:02.000Z"};
    struct db_submission s = {.uid = "u1",
                              .user = "ann",
                              .created_at = "2026-01-02T00:00:00.000Z",
                              .warpbench = "test",
                              .packs = &pk,
                              .n_packs = 1,
                              .attempts = a,
                              .n_attempts = 2,
                              .giveups = &g,
                              .n_giveups = 1,
                              .selfscores = &ss,
                              .n_selfscores = 1,
                              .runs = &run,
                              .n_runs = 1};
    char *path = tmp_path("sub.wbsub");
    struct core_err e = {0};
    assert_int_equal(db_submission_write(path, &s, &e), CORE_OK);
    return path;
}

static char *write_feedback(void)
{
    struct db_selfscore sc[] = {{"sharding", 1, 2}};
    struct db_fb_review rv = {.attempt = 1,
                              .pack_id = "p",
                              .question_id = "q",
                              .answer_sha = "0123",
                              .score = 0.5,
                              .max = 1,
                              .comment = "Better.",
                              .reviewer = "prof",
                              .reviewed_at = "2026-01-05T00:00:00.000Z",
                              .uid = "c:1",
                              .scores = sc,
                              .n_scores = 1};
    struct db_feedback f = {.class_uid = "c",
                            .user = "ann",
                            .submission = "u1",
                            .created_at = "2026-01-05T00:00:00.000Z",
                            .reviews = &rv,
                            .n_reviews = 1};
    char *path = tmp_path("ann.wbfb");
    struct core_err e = {0};
    assert_int_equal(db_feedback_write(path, &f, &e), CORE_OK);
    return path;
}

/* ddl with `decl` replaced by `relaxed` inside the CREATE TABLE of
 * `table` only. Caller frees. */
static char *relax(const char *ddl, const char *table, const char *decl, const char *relaxed)
{
    char *head = core_xasprintf("CREATE TABLE %s (", table);
    const char *t = strstr(ddl, head);
    free(head);
    assert_non_null(t);
    const char *end = strstr(t, ");");
    const char *at = strstr(t, decl);
    assert_true(at && at < end);
    return core_xasprintf("%.*s%s%s", (int)(at - ddl), ddl, relaxed, at + strlen(decl));
}

/* A submission whose table.column lost its NOT NULL and holds a NULL
 * (`decl` is its declaration, `relaxed` the one without NOT NULL). */
static void null_refused(const char *table, const char *column, const char *decl,
                         const char *relaxed)
{
    char *path = write_sample();
    char *sql = core_xasprintf("PRAGMA writable_schema = ON; UPDATE sqlite_schema SET sql = "
                               "replace(sql, '%s', '%s') WHERE name = '%s'",
                               decl, relaxed, table);
    raw_exec(path, sql);
    free(sql);
    sql = core_xasprintf("UPDATE %s SET %s = NULL WHERE rowid = (SELECT min(rowid) FROM %s)", table,
                         column, table);
    raw_exec(path, sql);
    free(sql);

    /* the real reader: the schema is not the format's */
    struct db_submission r;
    struct core_err e = {0};
    assert_int_equal(db_submission_read(path, &r, &e), CORE_ERR_STORE);
    char *want = core_xasprintf("its table %s is not the format's", table);
    if (!strstr(e.msg, want))
        fail_msg("%s.%s NULL: %s", table, column, e.msg);
    free(want);
    assert_int_equal(r.n_attempts, 0);

    /* the row readers, with that schema let through */
    char *steps0 = relax(db_submit_steps[0], table, decl, relaxed);
    const char *steps[DB_SUBMIT_VERSION];
    for (size_t i = 0; i < DB_SUBMIT_VERSION; i++)
        steps[i] = i ? db_submit_steps[i] : steps0;
    const struct db_open_spec spec = {.app_id = 0x57425342,
                                      .what = "a Warpbench submission file",
                                      .steps = steps,
                                      .n_steps = DB_SUBMIT_VERSION,
                                      .read_only = true};
    assert_int_equal(db_submission_read_as(path, &spec, &r, &e), CORE_ERR_STORE);
    want = core_xasprintf("malformed submission: %s row 1: %s is NULL", table, column);
    if (!strstr(e.msg, want))
        fail_msg("%s.%s NULL: %s", table, column, e.msg);
    free(want);
    assert_int_equal(r.n_attempts, 0);
    free(steps0);
    free(path);
}

/* The NULL cases: each crashed an import before. */
static void test_null_cases(void **state)
{
    (void)state;
    null_refused("packs", "digest", "digest TEXT NOT NULL", "digest TEXT");
    null_refused("attempts", "question_id", "question_id TEXT NOT NULL", "question_id TEXT");
    null_refused("attempts", "pack_id", "pack_id TEXT NOT NULL", "pack_id TEXT");
    null_refused("attempts", "answer", "answer TEXT NOT NULL", "answer TEXT");
    null_refused("giveups", "pack_id", "pack_id TEXT NOT NULL", "pack_id TEXT");
    null_refused("giveups", "question_id", "question_id TEXT NOT NULL", "question_id TEXT");
    null_refused("giveups", "variant", "variant INTEGER NOT NULL", "variant INTEGER");
    null_refused("giveups", "last_attempt", "last_attempt INTEGER NOT NULL",
                 "last_attempt INTEGER");
    null_refused("giveups", "created_at", "created_at TEXT NOT NULL", "created_at TEXT");
    null_refused("lab_samples", "series", "series TEXT NOT NULL", "series TEXT");
    null_refused("lab_runs", "lab", "lab TEXT NOT NULL", "lab TEXT");
    null_refused("lab_runs", "status", "status TEXT NOT NULL", "status TEXT");

    /* and a feedback file's reviews.answer_sha (feedback import) */
    char *path = write_feedback();
    raw_exec(path, "PRAGMA writable_schema = ON; UPDATE sqlite_schema SET sql = replace(sql, "
                   "'answer_sha TEXT NOT NULL', 'answer_sha TEXT') WHERE name = 'reviews'");
    raw_exec(path, "UPDATE reviews SET answer_sha = NULL");
    struct db_feedback f;
    struct core_err e = {0};
    assert_int_equal(db_feedback_read(path, &f, &e), CORE_ERR_STORE);
    assert_non_null(strstr(e.msg, "its table reviews is not the format's"));
    char *steps0 =
        relax(db_feedback_steps[0], "reviews", "answer_sha TEXT NOT NULL", "answer_sha TEXT");
    const char *steps[DB_FEEDBACK_VERSION];
    for (size_t i = 0; i < DB_FEEDBACK_VERSION; i++)
        steps[i] = i ? db_feedback_steps[i] : steps0;
    const struct db_open_spec spec = {.app_id = 0x57424642,
                                      .what = "a Warpbench feedback file",
                                      .steps = steps,
                                      .n_steps = DB_FEEDBACK_VERSION,
                                      .read_only = true};
    assert_int_equal(db_feedback_read_as(path, &spec, &f, &e), CORE_ERR_STORE);
    if (!strstr(e.msg, "malformed feedback file: reviews row 1: answer_sha is NULL"))
        fail_msg("%s", e.msg);
    assert_int_equal(f.n_reviews, 0);
    free(steps0);
    free(path);
}

/* Each edit refuses the file with `why` in the message. */
static void refused_after(const char *sql, const char *why)
{
    char *path = write_sample();
    raw_exec(path, sql);
    struct db_submission r;
    struct core_err e = {0};
    int rc = db_submission_read(path, &r, &e);
    if (rc != CORE_ERR_STORE || !strstr(e.msg, why))
        fail_msg("after %s: %d %s (wanted '%s')", sql, rc, e.msg, why);
    assert_int_equal(r.n_attempts, 0);
    db_submission_fini(&r);
    free(path);
}

/* The schema compared text for text: only the format's tables and
 * indexes; the first difference named. */
static void test_schema_compared(void **state)
{
    (void)state;
    refused_after("ALTER TABLE attempts RENAME TO a0; CREATE VIEW attempts AS "
                  "WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r) "
                  "SELECT a0.* FROM a0, r",
                  "its attempts is a view, where the format has a table");
    refused_after("CREATE TRIGGER t AFTER INSERT ON packs BEGIN SELECT 1; END",
                  "it has a trigger t, which the format does not have");
    refused_after("CREATE TABLE extra (x)", "it has a table extra, which the format does not have");
    refused_after("CREATE INDEX by_answer ON attempts(answer)",
                  "it has a index by_answer, which the format does not have");
    refused_after("DROP TABLE exams", "it lacks the table exams");
    refused_after("PRAGMA writable_schema = ON; UPDATE sqlite_schema SET sql = replace(sql, "
                  "'score REAL NOT NULL', 'score REAL NOT NULL CHECK (score < 1e9)') "
                  "WHERE name = 'attempts'",
                  "where the format has");
    /* a -wal or -journal beside the file */
    char *path = write_sample();
    char *wal = core_xasprintf("%s-wal", path);
    FILE *f = fopen(wal, "w");
    assert_non_null(f);
    fclose(f);
    struct db_submission r;
    struct core_err e = {0};
    assert_int_equal(db_submission_read(path, &r, &e), CORE_ERR_STORE);
    assert_non_null(strstr(e.msg, "a -wal file lies beside it"));
    unlink(wal);
    assert_int_equal(db_submission_read(path, &r, &e), CORE_OK);
    db_submission_fini(&r);
    free(wal);
    free(path);
}

/* What the row readers refuse in a file of the format's own schema. */
static void test_values_bounded(void **state)
{
    (void)state;
    /* NUL inside a text: "2\0.5" would be graded as "2" */
    refused_after("UPDATE attempts SET answer = CAST(x'32002e35' AS TEXT) WHERE id = 1",
                  "malformed submission: attempts row 1: answer holds a NUL byte");
    refused_after("UPDATE packs SET title = CAST(x'500041' AS TEXT)",
                  "packs row 1: title holds a NUL byte");
    refused_after("UPDATE meta SET value = CAST(x'616e6e00626f62' AS TEXT) WHERE key = 'user'",
                  "meta row");
    /* a blob or a number where text belongs, text where a number does */
    refused_after("UPDATE attempts SET answer = x'3235' WHERE id = 2",
                  "attempts row 2: answer is a blob, not text");
    refused_after("UPDATE giveups SET variant = 'one'", "giveups row 1: variant is text");
    refused_after("UPDATE lab_samples SET t = 'late' WHERE seq = 1",
                  "lab_samples row 2: t is text, not a number");
    /* over the product's limits */
    refused_after("UPDATE attempts SET answer = printf('%.*c', 65537, 'x') WHERE id = 2",
                  "attempts row 2: answer is longer than 65536 bytes (65537)");
    refused_after("WITH RECURSIVE n(i) AS (SELECT 100 UNION ALL SELECT i + 1 FROM n "
                  "WHERE i < 1100) INSERT INTO attempts SELECT i, pack_id, question_id, variant, "
                  "answer, certainty, created_at, params_json, grader_rev, pack_version, "
                  "pack_digest, valid, score, max, correct, feedback, regraded, NULL, sealed, i, "
                  "parsed "
                  "FROM n, attempts WHERE id = 1",
                  "more than 1000 attempts at p:q1");
    refused_after("UPDATE meta SET value = 'ann' || char(10) || 'class x: 9 imported' "
                  "WHERE key = 'user'",
                  "holds control characters");
}

/* A recursive query on a file's connection is stopped by its progress
 * budget (the schema check refuses the view that would hold it before any
 * query runs; this shows the layer below). */
static void test_progress_budget(void **state)
{
    (void)state;
    char *path = write_sample();
    raw_exec(path, "ALTER TABLE attempts RENAME TO a0; CREATE VIEW attempts AS "
                   "WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r) "
                   "SELECT a0.* FROM a0, r");
    struct db_submission r;
    struct core_err e = {0};
    assert_int_equal(db_submission_read(path, &r, &e), CORE_ERR_STORE);
    assert_non_null(strstr(e.msg, "its attempts is a view"));

    /* the file's own connection, opened and hardened as db_open_spec does,
     * without the schema check */
    struct db *db = core_xcalloc(1, sizeof *db);
    db->path = core_xstrdup(path);
    db->guard_fd = -1;
    char *uri = core_xasprintf("file:%s?immutable=1", path);
    assert_int_equal(sqlite3_open_v2(uri, &db->h, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL),
                     SQLITE_OK);
    free(uri);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long long bytes = ftell(f);
    fclose(f);
    assert_int_equal(db_foreign_harden(db, bytes, &e), CORE_OK);
    /* the view itself does not run on such a connection (views are
     * disabled there) */
    sqlite3_stmt *st = NULL;
    int src = sqlite3_prepare_v2(db->h, "SELECT count(*) FROM attempts", -1, &st, NULL);
    if (src == SQLITE_OK)
        src = sqlite3_step(st);
    sqlite3_finalize(st);
    assert_int_equal(src, SQLITE_ERROR);
    /* its recursive query runs until the budget is spent */
    assert_int_equal(sqlite3_prepare_v2(db->h,
                                        "WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 "
                                        "FROM r) SELECT count(*) FROM r",
                                        -1, &st, NULL),
                     SQLITE_OK);
    src = sqlite3_step(st);
    sqlite3_finalize(st);
    assert_int_equal(src & 0xff, SQLITE_INTERRUPT);
    assert_true(db->budget_hit);
    assert_true(db->steps > db->budget);
    assert_int_equal(db_fail(db, &e, src, "%s: reading attempts", path), CORE_ERR_STORE);
    assert_non_null(strstr(e.msg, "stopped after"));
    assert_non_null(strstr(e.msg, "thousand steps, the budget of a file of its size"));

    /* a value longer than a file may hold is refused before SQLite makes
     * it: 300 MB asked (as a view's answer column would), SQLite's memory
     * high-water mark stays below the limit */
    static const char *const big[] = {
        "SELECT replace(hex(zeroblob(150000000)), '0', 'x')", "SELECT zeroblob(300000000)",
        "SELECT randomblob(300000000)",
        "SELECT printf('%.*c', 300000000, 'x')", /* printf stops at the limit: "" */
    };
    for (size_t i = 0; i < sizeof big / sizeof big[0]; i++) {
        sqlite3_int64 cur = 0, high = 0;
        sqlite3_status64(SQLITE_STATUS_MEMORY_USED, &cur, &high, 1); /* reset the mark */
        assert_int_equal(sqlite3_prepare_v2(db->h, big[i], -1, &st, NULL), SQLITE_OK);
        src = sqlite3_step(st);
        if (src == SQLITE_ROW)
            assert_true(sqlite3_column_bytes(st, 0) <= DB_FILE_MAX_JSON);
        else
            assert_int_equal(src, SQLITE_TOOBIG);
        sqlite3_finalize(st);
        sqlite3_status64(SQLITE_STATUS_MEMORY_USED, &cur, &high, 0);
        if (high > DB_FILE_MAX_JSON + 4 * 1024 * 1024)
            fail_msg("%s: %lld bytes at the most", big[i], (long long)high);
    }
    db_close(db);
    free(path);
}

static void test_budget_scales(void **state)
{
    (void)state;
    assert_true(db_foreign_budget(0) >= 10000);
    assert_true(db_foreign_budget(1 << 20) > db_foreign_budget(0));
    /* a real submission read whole uses a small part of its budget */
    char *path = write_sample();
    struct db_submission r;
    struct core_err e = {0};
    assert_int_equal(db_submission_read(path, &r, &e), CORE_OK);
    assert_int_equal(r.n_attempts, 2);
    assert_int_equal(r.runs[0].n_samples, 2);
    db_submission_fini(&r);
    free(path);
}

/* ---- a student's own store: the answers' limits and submit's snapshot ---- */

struct store {
    struct db *db;
    char *path;
    int64_t rev, uid;
};

static void store_open(struct store *s)
{
    struct core_err e = {0};
    s->path = tmp_path("store.db");
    assert_int_equal(db_open(&s->db, s->path, &e), CORE_OK);
    struct db_file_in file = {"pack.lua", "x", 1};
    struct db_lesson_in les = {.id = "l", .title = "L", .file = "pack.lua"};
    struct db_question_in q = {.id = "q",
                               .lesson_id = "l",
                               .kind = "choice",
                               .prompt = "?",
                               .points = 1,
                               .topics = "",
                               .rubric = "",
                               .file = "pack.lua",
                               .page_after = -1,
                               .tries = 2};
    struct db_pack_in pin = {"p", "1", "P", NULL, &file, 1, &les, 1, NULL, 0, &q, 1};
    assert_int_equal(db_pack_import(s->db, &pin, false, NULL, &s->rev, &e), CORE_OK);
    assert_int_equal(db_user_ensure(s->db, "ann", &s->uid, &e), CORE_OK);
}

static void store_close(struct store *s)
{
    db_close(s->db);
    free(s->path);
}

static struct db_attempt_in answer_in(const struct store *s, bool valid, int tries_limit)
{
    return (struct db_attempt_in){.user_id = s->uid,
                                  .pack_id = "p",
                                  .question_id = "q",
                                  .variant = 1,
                                  .answer = "a",
                                  .valid = valid,
                                  .max = 1,
                                  .feedback = "",
                                  .rev_id = s->rev,
                                  .tries_limit = tries_limit};
}

/* A try and its limit are checked and recorded together; unreadable
 * answers use no try; a store keeps DB_ATTEMPTS_MAX_PER_QUESTION answers
 * per question and none over DB_ANSWER_MAX bytes. */
static void test_attempt_limits(void **state)
{
    (void)state;
    struct store s;
    store_open(&s);
    struct core_err e = {0};
    struct db_attempt_in a = answer_in(&s, true, 2);
    assert_int_equal(db_attempt_insert(s.db, &a, NULL, &e), CORE_OK);
    assert_int_equal(db_attempt_insert(s.db, &a, NULL, &e), CORE_OK);
    assert_int_equal(db_attempt_insert(s.db, &a, NULL, &e), CORE_ERR_CONFLICT);
    assert_non_null(strstr(e.msg, "q is closed: its 2 tries are used"));
    struct db_attempt_in bad = answer_in(&s, false, 2);
    assert_int_equal(db_attempt_insert(s.db, &bad, NULL, &e), CORE_OK); /* no try used */
    char *longer = core_xcalloc(DB_ANSWER_MAX + 2, 1);
    memset(longer, '7', DB_ANSWER_MAX + 1);
    bad.answer = longer;
    assert_int_equal(db_attempt_insert(s.db, &bad, NULL, &e), CORE_ERR_INVALID);
    assert_non_null(strstr(e.msg, "longer than 65536 bytes"));
    free(longer);
    /* up to the most a store keeps per question (bulk insert: no limit),
     * then not one more */
    size_t n = DB_ATTEMPTS_MAX_PER_QUESTION - 3;
    struct db_attempt_in *many = core_xcalloc(n, sizeof *many);
    for (size_t i = 0; i < n; i++)
        many[i] = answer_in(&s, false, 0);
    assert_int_equal(db_attempt_insert_batch(s.db, many, n, &e), CORE_OK);
    free(many);
    bad = answer_in(&s, false, 0);
    assert_int_equal(db_attempt_insert(s.db, &bad, NULL, &e), CORE_ERR_CONFLICT);
    assert_non_null(strstr(e.msg, "1000 answers recorded"));
    store_close(&s);
}

/* The snapshot test: when the gather's first SELECT (the packs) runs,
 * another connection records one more attempt and commits. */
struct writer {
    const struct store *s;
    struct db *other;
    bool done;
};

static int write_midway(void *ctx)
{
    struct writer *w = ctx;
    if (w->done)
        return 0;
    sqlite3 *h = w->s->db->h;
    for (sqlite3_stmt *st = sqlite3_next_stmt(h, NULL); st; st = sqlite3_next_stmt(h, st))
        if (sqlite3_stmt_busy(st) && strstr(sqlite3_sql(st), "FROM packs p JOIN pack_revs")) {
            struct db_attempt_in a = answer_in(w->s, false, 0);
            struct core_err e = {0};
            if (db_attempt_insert(w->other, &a, NULL, &e) != CORE_OK)
                fail_msg("writing beside the gather: %s", e.msg);
            w->done = true;
        }
    return 0;
}

/* submit reads one snapshot: an attempt committed by another connection
 * while it gathers is not half in the submission. */
static void test_submit_snapshot(void **state)
{
    (void)state;
    struct store s;
    store_open(&s);
    struct core_err e = {0};
    struct db_attempt_in a = answer_in(&s, false, 0);
    assert_int_equal(db_attempt_insert(s.db, &a, NULL, &e), CORE_OK);
    struct writer w = {.s = &s};
    assert_int_equal(db_open(&w.other, s.path, &e), CORE_OK);
    sqlite3_progress_handler(s.db->h, 1, write_midway, &w);
    struct db_submission sub;
    assert_int_equal(db_submission_gather(s.db, s.uid, NULL, &sub, &e), CORE_OK);
    sqlite3_progress_handler(s.db->h, 0, NULL, NULL);
    assert_true(w.done);
    assert_int_equal(sub.n_attempts, 1); /* as the store was when it began */
    db_submission_fini(&sub);
    assert_int_equal(db_submission_gather(s.db, s.uid, NULL, &sub, &e), CORE_OK);
    assert_int_equal(sub.n_attempts, 2);
    db_submission_fini(&sub);
    db_close(w.other);
    store_close(&s);
}

static int setup(void **state)
{
    (void)state;
    const char *t = getenv("WB_TEST_TMP");
    snprintf(tmpdir, sizeof tmpdir, "%s/db-foreign-%ld", t ? t : "/tmp", (long)getpid());
    struct core_err e;
    return core_mkdir_p(tmpdir, &e) == CORE_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char *cmd = core_xasprintf("rm -rf '%s'", tmpdir);
    int rc = system(cmd);
    free(cmd);
    return rc == 0 ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_null_cases),      cmocka_unit_test(test_schema_compared),
        cmocka_unit_test(test_values_bounded),  cmocka_unit_test(test_progress_budget),
        cmocka_unit_test(test_budget_scales),   cmocka_unit_test(test_attempt_limits),
        cmocka_unit_test(test_submit_snapshot),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
