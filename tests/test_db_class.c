/*
 * test_db_class.c — the files of the class loop as the store writes and
 * reads them: a submission written and read back field for field; every
 * way a file is refused (another program's database, a newer schema, a
 * table or column missing, text where a number belongs, a row pointing at
 * nothing, an edited meta table), edited with a raw SQLite handle as a
 * student could; the class store's import (new, same again, newer, older,
 * changed content) and reviews; a feedback file round trip; schema 6's
 * reviews counting in progress.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "db/db.h"

#include <math.h>
#include <sqlite3.h>
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

static struct db_sub_attempt attempt(int64_t id, const char *q, double score)
{
    return (struct db_sub_attempt){.id = id,
                                   .pack_id = "p",
                                   .question_id = (char *)q,
                                   .variant = 1,
                                   .answer = "2.5",
                                   .created_at = "2026-01-01T00:00:00.000Z",
                                   .params_json = "{\"f\":0.2}",
                                   .grader_rev = "g1",
                                   .pack_version = "1.0",
                                   .pack_digest = "abc",
                                   .valid = true,
                                   .score = score,
                                   .max = 1,
                                   .correct = score >= 1,
                                   .feedback = "ok",
                                   .lab_run = id == 2 ? 7 : 0};
}

/* A small submission, all borrowed strings (never freed). */
static void sample(struct db_submission *s, struct db_sub_pack *pk, struct db_sub_attempt *a,
                   struct db_sub_run *run, struct db_labsample *smp, struct db_sub_selfscore *ss,
                   struct db_sub_giveup *g)
{
    *pk = (struct db_sub_pack){"p", "1.0", "abc", "Pack"};
    a[0] = attempt(1, "q1", 1);
    a[1] = attempt(2, "q2", 0.5);
    smp[0] = (struct db_labsample){"ramp", 1, 0.5, 0.1};
    smp[1] = (struct db_labsample){"ramp", 2, NAN, 0.2};
    *run = (struct db_sub_run){.id = 7,
                               .lab = "selftest",
                               .params_json = "{}",
                               .machine_json = "{}",
                               .summary_json = "{\"steps\":2}",
                               .status = "done",
                               .started_at = "2026-01-01T00:00:00.000Z",
                               .ended_at = "2026-01-01T00:00:01.000Z",
                               .samples = smp,
                               .n_samples = 2};
    *ss = (struct db_sub_selfscore){1, 0, "sharding", 1, 2};
    *g = (struct db_sub_giveup){5, "p", "q2", 1, 1, "2026-01-01T00:00:00.500Z"};
    *s = (struct db_submission){.uid = "u1",
                                .user = "ann",
                                .student_id = "s-1",
                                .created_at = "2026-01-02T00:00:00.000Z",
                                .warpbench = "test",
                                .packs = pk,
                                .n_packs = 1,
                                .attempts = a,
                                .n_attempts = 2,
                                .giveups = g,
                                .n_giveups = 1,
                                .selfscores = ss,
                                .n_selfscores = 1,
                                .runs = run,
                                .n_runs = 1};
}

static char *write_sample(void)
{
    struct db_submission s;
    struct db_sub_pack pk;
    struct db_sub_attempt a[2];
    struct db_sub_run run;
    struct db_labsample smp[2];
    struct db_sub_selfscore ss;
    struct db_sub_giveup g;
    sample(&s, &pk, a, &run, smp, &ss, &g);
    char *path = tmp_path("sub.wbsub");
    struct core_err e = {0};
    assert_int_equal(db_submission_write(path, &s, &e), CORE_OK);
    return path;
}

static void test_submission_roundtrip(void **state)
{
    (void)state;
    char *path = write_sample();
    struct db_submission r;
    struct core_err e = {0};
    assert_int_equal(db_submission_read(path, &r, &e), CORE_OK);
    assert_string_equal(r.uid, "u1");
    assert_string_equal(r.user, "ann");
    assert_string_equal(r.student_id, "s-1");
    assert_int_equal(r.n_attempts, 2);
    assert_int_equal(r.attempts[1].id, 2);
    assert_string_equal(r.attempts[1].params_json, "{\"f\":0.2}");
    assert_true(r.attempts[1].score == 0.5);
    assert_int_equal(r.attempts[1].lab_run, 7);
    assert_int_equal(r.n_runs, 1);
    assert_int_equal(r.runs[0].n_samples, 2);
    assert_true(isnan(r.runs[0].samples[1].value));
    assert_int_equal(r.n_selfscores, 1);
    assert_int_equal(r.n_giveups, 1);
    assert_int_equal(r.giveups[0].last_attempt, 1);
    db_submission_fini(&r);
    /* Reading wrote nothing beside the file. */
    char *wal = core_xasprintf("%s-wal", path), *journal = core_xasprintf("%s-journal", path);
    assert_int_equal(access(wal, F_OK), -1);
    assert_int_equal(access(journal, F_OK), -1);
    free(wal);
    free(journal);
    free(path);
}

/* Each edit must make the file refused, with `why` in the message. */
static void refused_after(const char *sql, const char *why, int code)
{
    char *path = write_sample();
    raw_exec(path, sql);
    struct db_submission r;
    struct core_err e = {0};
    int rc = db_submission_read(path, &r, &e);
    if (rc != code || !strstr(e.msg, why))
        fail_msg("after %s: %d %s (wanted %d, '%s')", sql, rc, e.msg, code, why);
    assert_int_equal(r.n_attempts, 0);
    db_submission_fini(&r);
    free(path);
}

static void test_submission_refused(void **state)
{
    (void)state;
    refused_after("DROP TABLE selfscores", "it lacks the table selfscores", CORE_ERR_STORE);
    refused_after("ALTER TABLE attempts DROP COLUMN lab_run",
                  "its table attempts is not the format's", CORE_ERR_STORE);
    refused_after("UPDATE attempts SET score = 'full marks' WHERE id = 1",
                  "malformed submission: attempts row 1: score is text, not a number",
                  CORE_ERR_STORE);
    refused_after("PRAGMA foreign_keys=OFF; UPDATE attempts SET lab_run = 99 WHERE id = 2",
                  "points at nothing", CORE_ERR_STORE);
    refused_after("DELETE FROM meta WHERE key = 'user'", "names no student", CORE_ERR_STORE);
    refused_after("UPDATE meta SET value = 'other' WHERE key = 'format'", "format", CORE_ERR_STORE);
    refused_after("UPDATE attempts SET variant = 0 WHERE id = 1",
                  "attempts row 1: variant is 0, outside 1..", CORE_ERR_STORE);
    refused_after("UPDATE attempts SET max = -1 WHERE id = 1", "breaks the format", CORE_ERR_STORE);
    refused_after("PRAGMA user_version = 99", "newer Warpbench", CORE_ERR_CONFLICT);
    refused_after("PRAGMA application_id = 1463960396", "is a Warpbench class store",
                  CORE_ERR_STORE);
    refused_after("PRAGMA application_id = 42", "made by another program", CORE_ERR_STORE);
}

static void test_class_import(void **state)
{
    (void)state;
    struct core_err e = {0};
    char *cp = tmp_path("class.db");
    struct db *cs;
    assert_int_equal(db_class_open(&cs, cp, &e), CORE_OK);
    char *uid;
    assert_int_equal(db_class_uid(cs, &uid, &e), CORE_OK);
    assert_int_equal(strlen(uid), 32);
    free(uid);
    struct db_submission s;
    struct db_sub_pack pk;
    struct db_sub_attempt a[2];
    struct db_sub_run run;
    struct db_labsample smp[2];
    struct db_sub_selfscore ss;
    struct db_sub_giveup g;
    sample(&s, &pk, a, &run, smp, &ss, &g);
    struct db_class_attempt_in rows[2] = {{.sub = &a[0],
                                           .graded = true,
                                           .valid = true,
                                           .score = 1,
                                           .max = 1,
                                           .correct = true,
                                           .answer_sha = "5f2a",
                                           .agree = true},
                                          {.sub = &a[1],
                                           .after_giveup = true,
                                           .graded = true,
                                           .valid = true,
                                           .score = 0,
                                           .max = 1,
                                           .agree = false,
                                           .flag = "tampered"}};
    struct db_class_run_in runs[1] = {{&run, "samples out of order"}};
    struct db_class_import_in in = {.file = "f",
                                    .digest = "d1",
                                    .sub = &s,
                                    .key = "s-1",
                                    .attempts = rows,
                                    .runs = runs,
                                    .n_agree = 1,
                                    .n_disagree = 1,
                                    .n_runs_flagged = 1};
    enum db_class_import_result res;
    char *sup;
    assert_int_equal(db_class_import(cs, &in, false, &res, &sup, &e), CORE_OK);
    assert_int_equal(res, DB_CLASS_NEW);
    assert_null(sup);
    assert_int_equal(db_class_import(cs, &in, false, &res, &sup, &e), CORE_OK);
    assert_int_equal(res, DB_CLASS_UNCHANGED);
    in.digest = "d2"; /* the same submission with other bytes */
    assert_int_equal(db_class_import(cs, &in, false, &res, &sup, &e), CORE_ERR_CONFLICT);
    in.digest = "d1";
    assert_int_equal(db_class_import(cs, &in, true, &res, &sup, &e), CORE_OK);
    assert_int_equal(res, DB_CLASS_REPLACED);

    struct db_class_attempt *ca;
    size_t n;
    assert_int_equal(db_class_attempt_list(cs, "p", NULL, 0, &ca, &n, &e), CORE_OK);
    assert_int_equal(n, 2);
    assert_true(ca[1].after_giveup && !ca[1].agree);
    assert_string_equal(ca[1].flag, "tampered");
    assert_true(ca[1].rec_score == 0.5 && ca[1].score == 0);
    int64_t q1 = ca[0].id;
    db_class_attempts_free(ca, n);
    struct db_class_run *cr;
    assert_int_equal(db_class_runs(cs, &cr, &n, &e), CORE_OK);
    assert_int_equal(n, 1);
    assert_string_equal(cr[0].problems, "samples out of order");
    db_class_runs_free(cr, n);

    /* A review follows the same answer into a newer submission. */
    struct db_selfscore_in sc[] = {{"sharding", 1, 2}};
    struct db_class_review_in rv = {q1, sc, 1, 0.5, 1, "ok", "prof"};
    assert_int_equal(db_class_review_add(cs, &rv, NULL, &e), CORE_OK);
    rv.score = 2; /* beyond its max */
    assert_int_equal(db_class_review_add(cs, &rv, NULL, &e), CORE_ERR_INVALID);
    s.uid = "u2";
    s.created_at = "2026-01-03T00:00:00.000Z";
    in.digest = "d3";
    assert_int_equal(db_class_import(cs, &in, false, &res, &sup, &e), CORE_OK);
    assert_int_equal(res, DB_CLASS_NEWER);
    assert_string_equal(sup, "u1");
    free(sup);
    s.uid = "u0"; /* made before both */
    s.created_at = "2025-12-31T00:00:00.000Z";
    in.digest = "d4";
    assert_int_equal(db_class_import(cs, &in, false, &res, &sup, &e), CORE_OK);
    assert_int_equal(res, DB_CLASS_OLDER);
    struct db_class_student *st;
    assert_int_equal(db_class_students(cs, &st, &n, &e), CORE_OK);
    assert_int_equal(n, 1);
    assert_string_equal(st[0].uid, "u2");
    db_class_students_free(st, n);
    assert_int_equal(db_class_attempt_list(cs, "p", "q1", 0, &ca, &n, &e), CORE_OK);
    assert_int_equal(n, 1);
    assert_true(ca[0].id != q1 && ca[0].reviewed && ca[0].rv_score == 0.5);
    struct db_class_review r;
    assert_int_equal(db_class_review_get(cs, ca[0].id, &r, &e), CORE_OK);
    assert_int_equal(r.n_scores, 1);
    assert_string_equal(r.comment, "ok");
    assert_non_null(strchr(r.uid, ':'));
    db_class_review_fini(&r);
    db_class_attempts_free(ca, n);
    db_close(cs);
    free(cp);
}

static void test_feedback_and_reviews(void **state)
{
    (void)state;
    struct core_err e = {0};
    struct db_selfscore sc[] = {{"sharding", 1, 2}};
    struct db_fb_review rv = {.attempt = 1,
                              .pack_id = "p",
                              .question_id = "q",
                              .answer_sha = "sha",
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
    assert_int_equal(db_feedback_write(path, &f, &e), CORE_OK);
    struct db_feedback r;
    assert_int_equal(db_feedback_read(path, &r, &e), CORE_OK);
    assert_int_equal(r.n_reviews, 1);
    assert_string_equal(r.reviews[0].comment, "Better.");
    assert_int_equal(r.reviews[0].n_scores, 1);
    db_feedback_fini(&r);
    /* A submission is not a feedback file. */
    char *sub = write_sample();
    assert_int_equal(db_feedback_read(sub, &r, &e), CORE_ERR_STORE);
    assert_non_null(strstr(e.msg, "submission file, not a Warpbench feedback file"));

    /* In a student's store: the review counts instead of the grade. */
    char *sp = tmp_path("store.db");
    struct db *db;
    assert_int_equal(db_open(&db, sp, &e), CORE_OK);
    assert_int_equal(db_schema_version(db), DB_SCHEMA_VERSION);
    struct db_file_in file = {"pack.lua", "x", 1};
    struct db_lesson_in les = {.id = "l", .title = "L", .file = "pack.lua"};
    struct db_question_in q = {.id = "q",
                               .lesson_id = "l",
                               .kind = "design",
                               .prompt = "?",
                               .points = 1,
                               .topics = "",
                               .rubric = "",
                               .file = "pack.lua",
                               .page_after = -1,
                               .tries = 3,
                               .penalty = 0.2};
    struct db_pack_in pin = {"p", "1", "P", NULL, &file, 1, &les, 1, NULL, 0, &q, 1};
    int64_t rev, uid;
    assert_int_equal(db_pack_import(db, &pin, false, NULL, &rev, &e), CORE_OK);
    assert_int_equal(db_user_ensure(db, "ann", &uid, &e), CORE_OK);
    struct db_attempt_in a = {.user_id = uid,
                              .pack_id = "p",
                              .question_id = "q",
                              .variant = 1,
                              .answer = "shard",
                              .valid = true,
                              .score = 1,
                              .max = 1,
                              .correct = true,
                              .feedback = "",
                              .rev_id = rev};
    int64_t aid;
    assert_int_equal(db_attempt_insert(db, &a, &aid, &e), CORE_OK);
    struct db_selfscore_in rs[] = {{"sharding", 1, 2}};
    struct db_review_in in = {aid, "c:1", 0.5, 1, "Better.", "prof", "2026-01-05T00:00:00Z", rs, 1};
    size_t added;
    assert_int_equal(db_review_insert_many(db, uid, &in, 1, &added, &e), CORE_OK);
    assert_int_equal(added, 1);
    assert_int_equal(db_review_insert_many(db, uid, &in, 1, &added, &e), CORE_OK);
    assert_int_equal(added, 0);
    in.attempt_id = aid + 100;
    in.uid = "c:2";
    assert_int_equal(db_review_insert_many(db, uid, &in, 1, &added, &e), CORE_ERR_INVALID);
    struct db_progress_row *pr;
    size_t n;
    assert_int_equal(db_progress(db, uid, "p", &pr, &n, &e), CORE_OK);
    assert_int_equal(n, 1);
    assert_true(pr[0].reviewed && pr[0].n_fracs == 1 && fabs(pr[0].fracs[0] - 0.5) < 1e-12);
    db_progress_free(pr, n);
    struct db_attempt *al;
    assert_int_equal(db_attempt_list(db, uid, "p", "q", &al, &n, &e), CORE_OK);
    assert_true(al[0].reviewed && al[0].rv_score == 0.5);
    assert_string_equal(al[0].rv_comment, "Better.");
    db_attempts_free(al, n);
    struct db_review_row *rr;
    assert_int_equal(db_review_list(db, uid, NULL, &rr, &n, &e), CORE_OK);
    assert_int_equal(n, 1);
    assert_true(rr[0].auto_score == 1 && rr[0].score == 0.5);
    db_review_rows_free(rr, n);
    db_close(db);
    free(sp);
    free(sub);
    free(path);
}

int main(void)
{
    const char *t = getenv("WB_TEST_TMP");
    snprintf(tmpdir, sizeof tmpdir, "%s/db-class-%ld", t ? t : "/tmp", (long)getpid());
    struct core_err e;
    if (core_mkdir_p(tmpdir, &e) != CORE_OK)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_submission_roundtrip),
        cmocka_unit_test(test_submission_refused),
        cmocka_unit_test(test_class_import),
        cmocka_unit_test(test_feedback_and_reviews),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
