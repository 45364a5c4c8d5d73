/*
 * test_lesson_coverage.c — rubric coverage of a pack (what `pack check
 * --rubric` prints): questions, points and lessons per course item, a name
 * repeated in one question counted once, lesson defaults applied, and names
 * that are not course items kept in the order first seen. The pack is real
 * Lua, loaded by the grader.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "lessons/lesson.h"

#include <math.h>
#include <string.h>

static const char PACK[] = "pack { id = 'cov', title = 'C', version = '1',\n"
                           "       lessons = { 'a.lua', 'b.lua' } }\n";
/* Lesson a: its default rubric is theory.gpu; q2 names theory.gpu twice and
 * a typo; q3 overrides the default. */
static const char LESSON_A[] =
    "lesson { id = 'a', title = 'A', rubric = { 'theory.gpu' } }\n"
    "question { id = 'q1', kind = 'numeric', prompt = 'x', answer = 1 }\n"
    "question { id = 'q2', kind = 'numeric', prompt = 'x', answer = 1, points = 2,\n"
    "  rubric = { 'theory.gpu', 'theory.gpu', 'practice.profilng' } }\n"
    "question { id = 'q3', kind = 'numeric', prompt = 'x', answer = 1, points = 3,\n"
    "  rubric = { 'theory.scheduling', 'advanced.cost' } }\n";
/* Lesson b: no default; one untagged question, one tagged twice over. */
static const char LESSON_B[] =
    "lesson { id = 'b', title = 'B' }\n"
    "question { id = 'q4', kind = 'numeric', prompt = 'x', answer = 1 }\n"
    "question { id = 'q5', kind = 'numeric', prompt = 'x', answer = 1, points = 0.5,\n"
    "  rubric = { 'theory.scheduling', 'practice.profilng', 'my.item' } }\n";

static const struct lesson_rubric_count *find(const struct lesson_rubric_coverage *c,
                                              const char *name)
{
    for (int i = 0; i < LESSON_RUBRIC_N; i++)
        if (strcmp(c->items[i].name, name) == 0)
            return &c->items[i];
    for (size_t i = 0; i < c->n_other; i++)
        if (strcmp(c->other[i].name, name) == 0)
            return &c->other[i];
    fail_msg("no item %s", name);
    return NULL;
}

static void expect(const struct lesson_rubric_coverage *c, const char *name, int questions,
                   double points, int lessons)
{
    const struct lesson_rubric_count *it = find(c, name);
    assert_int_equal(it->questions, questions);
    if (fabs(it->points - points) > 1e-9)
        fail_msg("%s: %g points, expected %g", name, it->points, points);
    assert_int_equal(it->lessons, lessons);
}

static void test_counts(void **state)
{
    (void)state;
    struct grader_file files[] = {
        {"pack.lua", PACK, sizeof PACK - 1},
        {"a.lua", LESSON_A, sizeof LESSON_A - 1},
        {"b.lua", LESSON_B, sizeof LESSON_B - 1},
    };
    struct grader_pack *p = NULL;
    struct core_err err = {0};
    assert_int_equal(grader_pack_new(&p, files, 3, NULL, NULL, &err), CORE_OK);
    struct lesson_rubric_coverage c;
    lesson_rubric_coverage_compute(grader_pack_info(p), &c);
    /* every course item is listed, in course order, even with no question */
    const struct lesson_rubric_item *items = lesson_rubric_items();
    for (int i = 0; i < LESSON_RUBRIC_N; i++) {
        assert_string_equal(c.items[i].name, items[i].id);
        assert_ptr_equal(c.items[i].item, &items[i]);
    }
    expect(&c, "theory.gpu", 2, 3, 1);          /* q1 (default), q2 once despite the repeat */
    expect(&c, "theory.scheduling", 2, 3.5, 2); /* q3 in a, q5 in b */
    expect(&c, "advanced.cost", 1, 3, 1);
    expect(&c, "theory.memory", 0, 0, 0);
    /* other names: first seen first, never a course item */
    assert_int_equal(c.n_other, 2);
    assert_string_equal(c.other[0].name, "practice.profilng");
    assert_string_equal(c.other[1].name, "my.item");
    assert_null(c.other[0].item);
    expect(&c, "practice.profilng", 2, 2.5, 2);
    expect(&c, "my.item", 1, 0.5, 1);
    lesson_rubric_coverage_fini(&c);
    assert_null(c.other);
    lesson_rubric_coverage_fini(&c); /* twice is harmless */
    grader_pack_free(p);
}

static void test_no_pack(void **state)
{
    (void)state;
    struct lesson_rubric_coverage c;
    lesson_rubric_coverage_compute(NULL, &c);
    for (int i = 0; i < LESSON_RUBRIC_N; i++)
        assert_int_equal(c.items[i].questions, 0);
    assert_int_equal(c.n_other, 0);
    lesson_rubric_coverage_fini(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counts),
        cmocka_unit_test(test_no_pack),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
