/* test_lesson_calc.c — the calculators of the stored packs through a study
 * session: listing them from the current revisions, finding one by bare or
 * "pack:id" id (ambiguous, unknown), and running one with named inputs
 * (defaults, unknown name, given twice, out of range: CORE_ERR_USAGE). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "lessons/lesson.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char LESSON_A[] =
    "lesson { id = \"la\", title = \"Lesson A\" }\n"
    "calculator { id = \"amdahl\", title = \"Amdahl\",\n"
    "  inputs = { { name = \"f\", label = \"serial fraction\", default = 0.1, min = 0, max = 1 },\n"
    "             { name = \"p\", default = 8, min = 1, max = 1024, integer = true } },\n"
    "  compute = function(v) return { { label = \"S\", value = wb.amdahl(v.f, v.p) } } end }\n"
    "calculator { id = \"shared\", title = \"Shared\", inputs = { { name = \"x\", default = 1 } "
    "},\n"
    "  compute = function(v) return { { label = \"x\", value = v.x } } end }\n";
static const char LESSON_B[] =
    "lesson { id = \"lb\", title = \"Lesson B\" }\n"
    "calculator { id = \"shared\", title = \"Shared too\", inputs = { { name = \"y\", default = 2 "
    "} "
    "},\n"
    "  compute = function(v) return { { label = \"y\", value = 2 * v.y, unit = \"ms\" } } end }\n";

static void import(struct db *db, const char *id, const char *lesson)
{
    char pack[256];
    snprintf(pack, sizeof pack,
             "pack { id = \"%s\", title = \"T\", version = \"1\", lessons = { \"l.lua\" } }\n", id);
    struct grader_file files[] = {{"pack.lua", pack, strlen(pack)},
                                  {"l.lua", lesson, strlen(lesson)}};
    struct lesson_src src = {.files = files, .n = 2};
    struct core_err e = {0};
    int rc = lesson_pack_import(db, &src, false, NULL, NULL, &e);
    if (rc)
        fprintf(stderr, "%s\n", e.msg);
    assert_int_equal(rc, 0);
}

static void test_calc(void **state)
{
    (void)state;
    const char *t = getenv("WB_TEST_TMP");
    char *path = core_xasprintf("%s/lesson-calc-%ld.db", t ? t : "/tmp", (long)getpid());
    unlink(path);
    struct db *db;
    struct core_err e = {0};
    assert_int_equal(db_open(&db, path, &e), 0);
    struct lesson_session *s;
    assert_int_equal(lesson_session_new(&s, db, "alice", &e), 0);

    struct lesson_calc *all;
    size_t n;
    assert_int_equal(lesson_calc_list(db, s, &all, &n, &e), 0);
    assert_int_equal(n, 0);
    assert_null(all);

    import(db, "t.a", LESSON_A);
    import(db, "t.b", LESSON_B);
    assert_int_equal(lesson_calc_list(db, s, &all, &n, &e), 0);
    assert_int_equal(n, 3);
    assert_string_equal(all[0].pack_id, "t.a");
    assert_string_equal(all[0].lesson_id, "la");
    assert_string_equal(all[0].lesson_title, "Lesson A");
    assert_string_equal(all[0].calc->id, "amdahl");
    assert_int_equal(all[0].calc->n_inputs, 2);
    assert_string_equal(all[1].calc->id, "shared");
    assert_string_equal(all[2].pack_id, "t.b");
    assert_string_equal(all[2].calc->title, "Shared too");
    free(all);

    struct lesson_calc c;
    assert_int_equal(lesson_calc_find(db, s, "amdahl", &c, &e), 0);
    assert_string_equal(c.pack_id, "t.a");
    assert_int_equal(lesson_calc_find(db, s, "t.b:shared", &c, &e), 0);
    assert_string_equal(c.calc->title, "Shared too");
    assert_int_equal(lesson_calc_find(db, s, "shared", &c, &e), CORE_ERR_USAGE);
    assert_non_null(strstr(e.msg, "t.a:shared, t.b:shared"));
    assert_int_equal(lesson_calc_find(db, s, "nope", &c, &e), CORE_ERR_NOTFOUND);
    assert_int_equal(lesson_calc_find(db, s, "t.b:amdahl", &c, &e), CORE_ERR_NOTFOUND);
    assert_int_equal(lesson_calc_find(db, s, "", &c, &e), CORE_ERR_USAGE);

    /* defaults for what is not set */
    struct lesson_calc_result r;
    struct lesson_calc_set set[] = {{"p", 4}, {"f", 0.2}};
    assert_int_equal(lesson_calc_run(db, s, "amdahl", set, 1, &r, &e), 0);
    assert_true(r.inputs[0] == 0.1 && !r.given[0]);
    assert_true(r.inputs[1] == 4 && r.given[1]);
    assert_int_equal(r.n_outputs, 1);
    assert_true(fabs(r.outputs[0].value - 1 / (0.1 + 0.9 / 4)) < 1e-12);
    lesson_calc_result_fini(&r);
    assert_int_equal(lesson_calc_run(db, s, "t.a:amdahl", set, 2, &r, &e), 0);
    assert_true(fabs(r.outputs[0].value - 2.5) < 1e-12);
    lesson_calc_result_fini(&r);
    assert_int_equal(lesson_calc_run(db, s, "t.b:shared", NULL, 0, &r, &e), 0);
    assert_true(r.outputs[0].value == 4);
    assert_string_equal(r.outputs[0].unit, "ms");
    lesson_calc_result_fini(&r);

    /* the student's mistakes */
    struct lesson_calc_set unknown[] = {{"q", 1}};
    assert_int_equal(lesson_calc_run(db, s, "amdahl", unknown, 1, &r, &e), CORE_ERR_USAGE);
    assert_non_null(strstr(e.msg, "no input 'q'; its inputs are: f (serial fraction), p"));
    assert_null(r.outputs);
    assert_null(r.inputs);
    struct lesson_calc_set twice[] = {{"f", 0.1}, {"f", 0.2}};
    assert_int_equal(lesson_calc_run(db, s, "amdahl", twice, 2, &r, &e), CORE_ERR_USAGE);
    assert_non_null(strstr(e.msg, "'f' is given twice"));
    struct lesson_calc_set range[] = {{"p", 2000}};
    assert_int_equal(lesson_calc_run(db, s, "amdahl", range, 1, &r, &e), CORE_ERR_USAGE);
    assert_non_null(strstr(e.msg, "input 'p' (p) must be a whole number from 1 to 1024, got 2000"));
    assert_int_equal(lesson_calc_run(db, s, "nope", NULL, 0, &r, &e), CORE_ERR_NOTFOUND);

    lesson_session_free(s);
    db_close(db);
    unlink(path);
    free(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_calc)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
