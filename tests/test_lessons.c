/* test_lessons.c — the lessons module against a real store and the real
 * sandbox: reading pack folders, the built-in pack, import/export,
 * answering (recorded attempts), re-grading. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "lessons/lesson.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmpdir[512];
static int counter;

static char *tmp_path(const char *name)
{
    return core_xasprintf("%s/%s-%d", tmpdir, name, counter++);
}

static void write_file(const char *dir, const char *name, const char *text)
{
    struct core_err e;
    char *p = core_path_join(dir, name);
    char *slash = strrchr(p, '/');
    *slash = '\0';
    assert_int_equal(core_mkdir_p(p, &e), 0);
    *slash = '/';
    assert_int_equal(core_file_create(p, text, strlen(text), true, NULL, &e), 0);
    free(p);
}

static const char *e2e_pack(void)
{
    static char path[1024];
    const char *src = getenv("WB_SOURCE_DIR");
    snprintf(path, sizeof path, "%s/tests/data/packs/e2e", src ? src : ".");
    return path;
}

static void test_src_read(void **state)
{
    (void)state;
    char *dir = tmp_path("src");
    write_file(dir, "pack.lua", "pack{}");
    write_file(dir, "sub/b.lua", "-- b");
    write_file(dir, "a.lua", "-- a");
    write_file(dir, ".hidden.lua", "-- hidden");
    write_file(dir, ".git/config", "x");
    char *outside = tmp_path("outside");
    write_file(outside, "secret.lua", "-- secret");
    char *link = core_path_join(dir, "linked.lua");
    char *target = core_path_join(outside, "secret.lua");
    assert_int_equal(symlink(target, link), 0); /* a file outside the pack */
    free(link);
    link = core_path_join(dir, "linkdir");
    assert_int_equal(symlink(outside, link), 0); /* a folder outside the pack */
    free(link);
    free(target);
    free(outside);
    struct lesson_src src;
    struct core_err e;
    assert_int_equal(lesson_src_read(dir, &src, &e), 0);
    assert_int_equal(src.n, 3);
    assert_string_equal(src.files[0].path, "a.lua");
    assert_string_equal(src.files[1].path, "pack.lua");
    assert_string_equal(src.files[2].path, "sub/b.lua");
    assert_int_equal(src.files[2].len, 4);
    lesson_src_fini(&src);

    char *empty = tmp_path("nopack");
    write_file(empty, "x.lua", "--");
    assert_int_equal(lesson_src_read(empty, &src, &e), CORE_ERR_INVALID);
    assert_non_null(strstr(e.msg, "pack.lua"));
    assert_int_equal(src.n, 0);
    char *missing = tmp_path("missing");
    assert_int_equal(lesson_src_read(missing, &src, &e), CORE_ERR_NOTFOUND);
    free(dir);
    free(empty);
    free(missing);
}

static void test_builtin_checks_clean(void **state)
{
    (void)state;
    struct lesson_src src;
    lesson_src_builtin(&src);
    assert_true(src.n >= 2);
    struct lesson_check c;
    struct core_err e = {0};
    int rc = lesson_pack_check(&src, &c, NULL, &e);
    for (size_t i = 0; i < c.problems.n; i++)
        fprintf(stderr, "problem: %s\n", c.problems.items[i]);
    assert_int_equal(rc, 0);
    assert_string_equal(c.pack_id, "warpbench.core");
    assert_true(c.n_questions >= 10);
    assert_true(c.n_checks >= c.n_questions);
    lesson_check_fini(&c);
    lesson_src_fini(&src);
}

static void test_import_answer_regrade_export(void **state)
{
    (void)state;
    char *dbp = tmp_path("store.db");
    struct db *db;
    struct core_err e = {0};
    assert_int_equal(db_open(&db, dbp, &e), 0);

    enum db_import_result res;
    assert_int_equal(lesson_builtin_ensure(db, &res, &e), 0);
    assert_int_equal(res, DB_IMPORT_NEW);
    assert_int_equal(lesson_builtin_ensure(db, &res, &e), 0);
    assert_int_equal(res, DB_IMPORT_UNCHANGED);

    struct lesson_src src;
    assert_int_equal(lesson_src_read(e2e_pack(), &src, &e), 0);
    assert_int_equal(lesson_pack_import(db, &src, false, NULL, &res, &e), 0);
    assert_int_equal(res, DB_IMPORT_NEW);

    struct lesson_session *s;
    assert_int_equal(lesson_session_new(&s, db, "tess", &e), 0);
    struct lesson_answer_result r;
    assert_int_equal(lesson_answer(s, "test.e2e:speedup", 1, "2.5", &r, &e), 0);
    assert_true(r.r.valid);
    assert_true(r.r.correct);
    assert_true(r.attempt_id > 0);
    assert_int_equal(r.attempt_no, 1);
    lesson_answer_result_fini(&r);
    assert_int_equal(lesson_answer(s, "speedup", 1, "abc", &r, &e), 0);
    assert_false(r.r.valid);
    assert_int_equal(r.attempt_no, 1); /* invalid ones do not count */
    lesson_answer_result_fini(&r);
    assert_int_equal(lesson_answer(s, "speedup", 1, "3", &r, &e), 0);
    assert_false(r.r.correct);
    assert_int_equal(r.attempt_no, 2);
    lesson_answer_result_fini(&r);
    assert_int_equal(lesson_answer(s, "nosuch", 1, "3", &r, &e), CORE_ERR_NOTFOUND);

    struct lesson_question_view v;
    assert_int_equal(lesson_question_show(s, "variant", 1, &v, &e), 0);
    assert_null(strchr(v.v.prompt, '{'));
    lesson_question_view_fini(&v);

    /* Nothing changed since the answers: the re-grade checks all three
     * readable-or-not attempts and writes nothing. */
    struct lesson_regrade_report rep;
    assert_int_equal(lesson_regrade_run(s, "test.e2e", NULL, &rep, &e), 0);
    assert_int_equal(rep.n_checked, 3);
    assert_int_equal(rep.n_changed, 0);
    assert_int_equal(rep.n_failed, 0);
    assert_false(rep.written);
    lesson_regrade_report_fini(&rep);
    struct db_progress_row *rows;
    size_t nr;
    assert_int_equal(
        lesson_progress_load(db, lesson_session_user_id(s), "test.e2e", &rows, &nr, &e), 0);
    bool seen = false;
    for (size_t i = 0; i < nr; i++)
        if (strcmp(rows[i].question_id, "speedup") == 0) {
            seen = true;
            assert_int_equal(rows[i].attempts, 2);
            assert_true(rows[i].best == 1.0);
        }
    assert_true(seen);
    db_progress_free(rows, nr);

    char *out = tmp_path("export");
    assert_int_equal(lesson_pack_export(db, "test.e2e", out, false, &e), 0);
    struct lesson_src back;
    assert_int_equal(lesson_src_read(out, &back, &e), 0);
    assert_int_equal(back.n, src.n);
    for (size_t i = 0; i < src.n; i++) {
        assert_string_equal(back.files[i].path, src.files[i].path);
        assert_int_equal(back.files[i].len, src.files[i].len);
        assert_memory_equal(back.files[i].data, src.files[i].data, src.files[i].len);
    }
    assert_int_equal(lesson_pack_export(db, "test.e2e", out, false, &e), CORE_ERR_CONFLICT);
    lesson_src_fini(&back);
    lesson_src_fini(&src);
    lesson_session_free(s);
    db_close(db);
    free(out);
    free(dbp);
}

static void test_broken_pack_not_imported(void **state)
{
    (void)state;
    char *dir = tmp_path("broken");
    write_file(
        dir, "pack.lua",
        "pack { id = \"t.broken\", title = \"B\", version = \"1\", lessons = {\"l.lua\"} }\n");
    write_file(dir, "l.lua",
               "lesson { id = \"l\", title = \"L\" }\nquestion { id = \"q\", "
               "kind = \"numeric\", prompt = \"?\", answer = 1,\n"
               "examples = { { \"2\", 1 } } }\n");
    char *dbp = tmp_path("broken.db");
    struct db *db;
    struct core_err e = {0};
    assert_int_equal(db_open(&db, dbp, &e), 0);
    struct lesson_src src;
    assert_int_equal(lesson_src_read(dir, &src, &e), 0);
    struct lesson_check c;
    assert_int_equal(lesson_pack_import(db, &src, false, &c, NULL, &e), CORE_ERR_INVALID);
    assert_true(c.problems.n >= 1);
    assert_non_null(strstr(c.problems.items[0], "l.lua:2"));
    lesson_check_fini(&c);
    struct db_pack p;
    assert_int_equal(db_pack_get(db, "t.broken", &p, &e), CORE_ERR_NOTFOUND);
    lesson_src_fini(&src);
    db_close(db);
    free(dbp);
    free(dir);
}

/* Giving up is recorded with the answer it shows; a later right answer is
 * marked after the give-up and earns nothing in progress. A design answer's
 * self-scores are checked against the rubric shown and kept with it. */
static void test_giveup_and_selfscores(void **state)
{
    (void)state;
    char *dbp = tmp_path("giveup.db");
    struct db *db;
    struct core_err e = {0};
    assert_int_equal(db_open(&db, dbp, &e), 0);
    struct lesson_src src;
    assert_int_equal(lesson_src_read(e2e_pack(), &src, &e), 0);
    assert_int_equal(lesson_pack_import(db, &src, false, NULL, NULL, &e), 0);
    lesson_src_fini(&src);
    struct lesson_session *s;
    assert_int_equal(lesson_session_new(&s, db, "gail", &e), 0);
    int64_t uid = lesson_session_user_id(s);

    struct lesson_answer_result r;
    assert_int_equal(lesson_answer(s, "test.e2e:speedup", 1, "3", &r, &e), 0);
    assert_false(r.r.correct);
    lesson_answer_result_fini(&r);
    struct lesson_giveup_result g;
    assert_int_equal(lesson_giveup(s, "test.e2e:speedup", 1, &g, &e), 0);
    assert_string_equal(g.question_id, "speedup");
    assert_true(g.giveup_id > 0);
    assert_true(g.accepted || g.reference);
    /* What it showed is an answer the grader accepts. */
    const char *shown = g.reference ? g.reference : g.accepted;
    char *ans = core_xstrdup(shown);
    lesson_giveup_result_fini(&g);
    assert_int_equal(lesson_answer(s, "test.e2e:speedup", 1, ans, &r, &e), 0);
    free(ans);
    assert_true(r.r.correct);
    lesson_answer_result_fini(&r);
    assert_int_equal(lesson_giveup(s, "test.e2e:nosuch", 1, &g, &e), CORE_ERR_NOTFOUND);

    struct db_attempt *at;
    size_t n;
    assert_int_equal(db_attempt_list(db, uid, "test.e2e", "speedup", &at, &n, &e), 0);
    assert_int_equal(n, 2);
    assert_false(at[0].after_giveup);
    assert_true(at[1].after_giveup);
    db_attempts_free(at, n);
    struct db_progress_row *pr;
    assert_int_equal(db_progress(db, uid, "test.e2e", &pr, &n, &e), 0);
    bool seen = false;
    for (size_t i = 0; i < n; i++)
        if (strcmp(pr[i].question_id, "speedup") == 0) {
            seen = true;
            assert_true(pr[i].gave_up);
            assert_true(pr[i].answered);
            assert_float_equal(pr[i].best, 0, 0);
        } else {
            assert_false(pr[i].gave_up);
        }
    assert_true(seen);
    db_progress_free(pr, n);

    /* Design: score yourself on the rubric as the view shows it. */
    struct lesson_question_view v;
    assert_int_equal(lesson_question_show(s, "test.e2e:design", 1, &v, &e), 0);
    assert_int_equal(v.v.n_rubric, 2);
    struct db_selfscore_in self[2] = {{v.v.rubric[0], 1, 99}, {v.v.rubric[1], 0.5, 99}};
    assert_int_equal(
        lesson_answer_design(s, "test.e2e:design", 1, "shard the keys", 0, self, 2, &r, &e), 0);
    assert_float_equal(r.r.score, 0.5, 1e-9);
    int64_t aid = r.attempt_id;
    lesson_answer_result_fini(&r);
    struct db_selfscore *ss;
    assert_int_equal(db_selfscore_list(db, aid, &ss, &n, &e), 0);
    assert_int_equal(n, 2);
    assert_string_equal(ss[0].concept, v.v.rubric[0]);
    assert_float_equal(ss[0].max, v.v.rubric_points[0], 0); /* the rubric's, not 99 */
    assert_float_equal(ss[1].score, 0.5, 0);
    db_selfscores_free(ss, n);
    struct db_selfscore_row *sr;
    assert_int_equal(db_selfscore_summary(db, uid, "test.e2e", &sr, &n, &e), 0);
    assert_int_equal(n, 1);
    assert_float_equal(sr[0].self, 1.5, 1e-9);
    assert_float_equal(sr[0].score, 0.5, 1e-9);
    db_selfscore_rows_free(sr, n);

    /* Refused, nothing recorded: an unknown concept, a score above the
     * points, self-scores on a question without a rubric. */
    int before = 0;
    assert_int_equal(db_attempt_count(db, uid, "test.e2e", "design", &before, &e), 0);
    struct db_selfscore_in unknown[1] = {{"charisma", 1, 1}};
    struct db_selfscore_in over[1] = {{v.v.rubric[0], v.v.rubric_points[0] + 1, 1}};
    assert_int_equal(lesson_answer_design(s, "test.e2e:design", 1, "x", 0, unknown, 1, &r, &e),
                     CORE_ERR_USAGE);
    assert_non_null(strstr(e.msg, "charisma"));
    assert_int_equal(lesson_answer_design(s, "test.e2e:design", 1, "x", 0, over, 1, &r, &e),
                     CORE_ERR_USAGE);
    assert_int_equal(lesson_answer_design(s, "test.e2e:speedup", 1, "2.5", 0, unknown, 1, &r, &e),
                     CORE_ERR_USAGE);
    int after = 0;
    assert_int_equal(db_attempt_count(db, uid, "test.e2e", "design", &after, &e), 0);
    assert_int_equal(after, before);
    lesson_question_view_fini(&v);

    lesson_session_free(s);
    db_close(db);
    free(dbp);
}

/* Stores `files` (no lessons) as warpbench.core `version`, the way a store
 * holds it when something other than lesson_builtin_sync wrote it. */
static void store_course(struct db *db, const char *version, const struct grader_file *files,
                         size_t n, bool with_marker)
{
    struct db_file_in *in = calloc(n + 1, sizeof *in);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (with_marker || !lesson_builtin_marker(files[i].path))
            in[k++] = (struct db_file_in){files[i].path, files[i].data, files[i].len};
    struct db_pack_in p = {.id = lesson_builtin_id(),
                           .version = version,
                           .title = "course",
                           .files = in,
                           .n_files = k};
    struct core_err e = {0};
    assert_int_equal(db_pack_import(db, &p, true, NULL, NULL, &e), 0);
    free(in);
}

static void current_course(struct db *db, char version[64], bool *marked)
{
    struct db_pack have = {0};
    struct core_err e = {0};
    char sha[65];
    assert_int_equal(db_pack_get(db, lesson_builtin_id(), &have, &e), 0);
    snprintf(version, 64, "%s", have.version);
    *marked = db_pack_file_sha256(db, have.rev_id, LESSON_BUILTIN_MARKER, sha, &e) == 0;
    db_pack_fini(&have);
}

/* Which stored courses the start-up check keeps and which it replaces. */
static void test_builtin_sync(void **state)
{
    (void)state;
    char *dbp = tmp_path("sync.db");
    struct db *db;
    struct core_err e = {0};
    struct lesson_builtin_report rep;
    char version[64];
    bool marked;
    assert_int_equal(db_open(&db, dbp, &e), 0);
    assert_int_equal(lesson_builtin_sync(db, false, &rep, &e), 0);
    assert_int_equal(rep.action, LESSON_BUILTIN_IMPORTED);
    current_course(db, version, &marked);
    assert_string_equal(version, lesson_builtin_version());
    assert_true(marked);
    struct lesson_src src;
    lesson_src_builtin(&src);

    /* written by a build from before the marker: same content, re-stored
     * with the marker once */
    store_course(db, lesson_builtin_version(), src.files, src.n, false);
    current_course(db, version, &marked);
    assert_false(marked);
    assert_int_equal(lesson_builtin_sync(db, false, &rep, &e), 0);
    assert_int_equal(rep.action, LESSON_BUILTIN_UPDATED);
    current_course(db, version, &marked);
    assert_true(marked);
    assert_int_equal(lesson_builtin_sync(db, false, &rep, &e), 0);
    assert_int_equal(rep.action, LESSON_BUILTIN_KEPT);
    assert_false(rep.newer);

    /* unmarked other content at a newer version: an impostor, replaced */
    struct grader_file fake[1] = {{"pack.lua", "-- not the course\n", 18}};
    store_course(db, "99.0.0", fake, 1, false);
    assert_int_equal(lesson_builtin_sync(db, false, &rep, &e), 0);
    assert_int_equal(rep.action, LESSON_BUILTIN_RESTORED);
    assert_string_equal(rep.found, "99.0.0");
    current_course(db, version, &marked);
    assert_string_equal(version, lesson_builtin_version());
    assert_true(marked);

    /* marked, same version, other content (another build of this version):
     * kept on open, replaced by --restore-course */
    struct grader_file other[2] = {
        {"pack.lua", "-- another build\n", 17},
        {LESSON_BUILTIN_MARKER, LESSON_BUILTIN_MARKER_TEXT, strlen(LESSON_BUILTIN_MARKER_TEXT)}};
    store_course(db, lesson_builtin_version(), other, 2, true);
    assert_int_equal(lesson_builtin_sync(db, false, &rep, &e), 0);
    assert_int_equal(rep.action, LESSON_BUILTIN_KEPT);
    assert_int_equal(lesson_builtin_sync(db, true, &rep, &e), 0);
    assert_int_equal(rep.action, LESSON_BUILTIN_RESTORED);
    assert_int_equal(lesson_builtin_sync(db, true, &rep, &e), 0);
    assert_int_equal(rep.action, LESSON_BUILTIN_KEPT);

    /* marked and newer: a newer Warpbench's course, kept even by restore */
    store_course(db, "99.1.0", other, 2, true);
    for (int restore = 0; restore < 2; restore++) {
        assert_int_equal(lesson_builtin_sync(db, restore, &rep, &e), 0);
        assert_int_equal(rep.action, LESSON_BUILTIN_KEPT);
        assert_true(rep.newer);
        current_course(db, version, &marked);
        assert_string_equal(version, "99.1.0");
    }

    /* a folder may not claim a reserved id, forced or not */
    struct lesson_check c = {0};
    assert_int_equal(lesson_pack_import(db, &src, true, &c, NULL, &e), CORE_ERR_CONFLICT);
    assert_non_null(strstr(e.msg, "is reserved"));
    lesson_check_fini(&c);
    assert_true(lesson_id_reserved("warpbench"));
    assert_true(lesson_id_reserved("warpbench.core"));
    assert_true(lesson_id_reserved("warpbench.x"));
    assert_false(lesson_id_reserved("warpbenchx"));
    assert_false(lesson_id_reserved("example.warpbench"));
    lesson_src_fini(&src);
    db_close(db);
    free(dbp);
}

int main(void)
{
    const char *t = getenv("WB_TEST_TMP");
    snprintf(tmpdir, sizeof tmpdir, "%s/lessons-%ld", t ? t : "/tmp", (long)getpid());
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_src_read),
        cmocka_unit_test(test_builtin_checks_clean),
        cmocka_unit_test(test_import_answer_regrade_export),
        cmocka_unit_test(test_broken_pack_not_imported),
        cmocka_unit_test(test_giveup_and_selfscores),
        cmocka_unit_test(test_builtin_sync),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
