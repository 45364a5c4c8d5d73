/*
 * test_lesson_tally.c — lesson_tallies_compute and lesson_tally_add, the one
 * way `warpbench progress`, `warpbench lessons`, the TUI's home and progress
 * screens and an exam's results sum progress rows: per lesson, pack, topic,
 * rubric item and kind; what the policy took; exam answers not yet
 * submitted; certainty-based marks for the rows of CBM packs. Pure.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "lessons/lesson.h"

#include <math.h>
#include <string.h>

#define EPS 1e-9

#define assert_double_equal(a, b, eps)                                                             \
    do {                                                                                           \
        double a_ = (a), b_ = (b);                                                                 \
        if (!(fabs(a_ - b_) <= (eps)))                                                             \
            fail_msg("%s = %.12g, expected %.12g", #a, a_, b_);                                    \
    } while (0)

/* A row as lesson_progress_load gives it; strings borrowed. */
static struct db_progress_row row(const char *pack, const char *lesson, const char *topics,
                                  const char *rubric, double points, double best, bool answered)
{
    return (struct db_progress_row){.pack_id = (char *)pack,
                                    .lesson_id = (char *)lesson,
                                    .question_id = (char *)"q",
                                    .topics = (char *)topics,
                                    .rubric = (char *)rubric,
                                    .kind = (char *)"numeric",
                                    .points = points,
                                    .attempts = answered,
                                    .best = best,
                                    .answered = answered};
}

static const struct lesson_tally *named(const struct lesson_tally_list *l, const char *name)
{
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->v[i].name, name) == 0)
            return &l->v[i];
    fail_msg("no tally %s", name);
    return NULL;
}

/* Sums per lesson, pack, topic and rubric item, names in first-seen order,
 * spaces around list names dropped, empty names skipped. */
static void test_groups(void **state)
{
    (void)state;
    struct db_progress_row rows[] = {
        row("p", "amdahl", "amdahl, speedup", "theory.parallel", 1, 1, true),
        row("p", "amdahl", "amdahl", "theory.parallel,practice.design", 2, 0.5, true),
        row("p", "memory", "cache,,", "", 1, 0, false),
        row("q", "intro", "", " theory.gpu ", 4, 3, true),
    };
    struct lesson_tallies t;
    lesson_tallies_compute(rows, 4, NULL, &t);
    assert_string_equal(t.total.name, "total");
    assert_int_equal(t.total.questions, 4);
    assert_int_equal(t.total.answered, 3);
    assert_double_equal(t.total.score, 4.5, EPS);
    assert_double_equal(t.total.max, 8, EPS);
    assert_false(t.total.cbm);

    assert_int_equal(t.lessons.n, 3);
    assert_string_equal(t.lessons.v[0].name, "p:amdahl");
    assert_string_equal(t.lessons.v[1].name, "p:memory");
    assert_string_equal(t.lessons.v[2].name, "q:intro");
    const struct lesson_tally *a = lesson_tallies_lesson(&t, "p", "amdahl");
    assert_ptr_equal(a, &t.lessons.v[0]);
    assert_int_equal(a->questions, 2);
    assert_double_equal(a->score, 1.5, EPS);
    assert_double_equal(a->max, 3, EPS);
    assert_null(lesson_tallies_lesson(&t, "q", "amdahl")); /* the pack is part of the key */
    assert_null(lesson_tallies_lesson(&t, "p", "amdah"));

    assert_int_equal(t.packs.n, 2);
    assert_int_equal(lesson_tallies_pack(&t, "p")->questions, 3);
    assert_double_equal(lesson_tallies_pack(&t, "q")->score, 3, EPS);
    assert_null(lesson_tallies_pack(&t, "r"));

    assert_int_equal(t.topics.n, 3);
    assert_string_equal(t.topics.v[0].name, "amdahl");
    assert_int_equal(t.topics.v[0].questions, 2);
    assert_string_equal(t.topics.v[1].name, "speedup");
    assert_string_equal(t.topics.v[2].name, "cache");
    assert_int_equal(t.topics.v[2].answered, 0);

    assert_int_equal(t.rubric.n, 3);
    assert_double_equal(named(&t.rubric, "theory.parallel")->max, 3, EPS);
    assert_int_equal(named(&t.rubric, "practice.design")->questions, 1);
    assert_double_equal(named(&t.rubric, "theory.gpu")->score, 3, EPS);

    assert_int_equal(t.kinds.n, 1);
    assert_string_equal(t.kinds.v[0].name, "auto-graded");
    lesson_tallies_fini(&t);
    lesson_tallies_fini(&t); /* a second fini does nothing */

    lesson_tallies_compute(NULL, 0, NULL, &t);
    assert_int_equal(t.total.questions, 0);
    assert_int_equal(t.lessons.n, 0);
    lesson_tallies_fini(&t);
}

/* Design answers apart from the auto-graded ones, in first-seen order. */
static void test_kinds(void **state)
{
    (void)state;
    struct db_progress_row rows[] = {
        row("p", "l", "", "", 4, 2, true),
        row("p", "l", "", "", 1, 1, true),
        row("p", "l", "", "", 2, 2, true),
    };
    rows[0].kind = (char *)"design";
    rows[1].kind = NULL;
    struct lesson_tallies t;
    lesson_tallies_compute(rows, 3, NULL, &t);
    assert_int_equal(t.kinds.n, 2);
    assert_string_equal(t.kinds.v[0].name, "design (automatic, provisional)");
    assert_double_equal(t.kinds.v[0].score, 2, EPS);
    assert_string_equal(t.kinds.v[1].name, "auto-graded");
    assert_int_equal(t.kinds.v[1].questions, 2);
    assert_double_equal(t.kinds.v[1].max, 3, EPS);
    lesson_tallies_fini(&t);
}

/* What the policy took: the best try before any give-up at full value,
 * minus what the question earns; nothing is counted for an exam answer not
 * yet submitted, which is pending instead. */
static void test_lost_and_pending(void **state)
{
    (void)state;
    double fr_a[] = {0, 1};      /* right on try 2 */
    double fr_b[] = {0.5, 1, 1}; /* right on try 2, then again after a give-up */
    double fr_c[] = {1};         /* an exam answer, right, not submitted */
    struct db_progress_row a = row("p", "l", "", "", 10, 9, true);
    a.fracs = fr_a, a.n_fracs = 2, a.helped_from = 2;
    struct db_progress_row b = row("p", "l", "", "", 4, 0, true);
    b.fracs = fr_b, b.n_fracs = 3, b.helped_from = 1; /* only try 1 came before the give-up */
    struct db_progress_row c = row("p", "x", "", "", 5, 0, true);
    c.fracs = fr_c, c.n_fracs = 1, c.helped_from = 1, c.exam = true, c.exam_started = true;
    struct db_progress_row d = c;
    d.exam_over = true, d.best = 5; /* the same, submitted */

    struct lesson_tally t = {0};
    lesson_tally_add(&t, &a, false);
    assert_double_equal(t.lost, 1, EPS); /* 10 at full value, 9 earned */
    lesson_tally_add(&t, &b, false);
    assert_double_equal(t.lost, 3, EPS); /* 0.5 × 4 before the give-up, nothing earned */
    assert_int_equal(t.pending, 0);
    lesson_tally_add(&t, &c, false);
    assert_int_equal(t.pending, 1);
    assert_double_equal(t.lost, 3, EPS);
    lesson_tally_add(&t, &d, false);
    assert_int_equal(t.pending, 1);
    assert_double_equal(t.lost, 3, EPS); /* earned in full */
    assert_int_equal(t.questions, 4);
    assert_double_equal(t.score, 14, EPS);
    assert_double_equal(t.max, 24, EPS);
    c.answered = false; /* a pending question not answered is not pending */
    struct lesson_tally u = {0};
    lesson_tally_add(&u, &c, false);
    assert_int_equal(u.pending, 0);
}

/* CBM marks from the first try's score and certainty, for the rows marked
 * as a CBM pack's; topics, rubric items and kinds show plain scores only. */
static void test_cbm(void **state)
{
    (void)state;
    struct db_progress_row rows[] = {
        row("c", "l", "t", "theory.gpu", 2, 2, true),  /* right at certainty 3: +6 */
        row("c", "l", "t", "theory.gpu", 1, 0, true),  /* wrong at certainty 2: -2 */
        row("c", "l", "t", "theory.gpu", 4, 0, false), /* not answered */
        row("c", "l", "t", "theory.gpu", 2, 1, true),  /* no certainty stated */
        row("plain", "m", "t", "", 1, 1, true),        /* not a CBM pack */
    };
    rows[0].first = 2, rows[0].certainty = 3;
    rows[1].first = 0, rows[1].certainty = 2;
    rows[4].first = 1, rows[4].certainty = 1;
    bool cbm[] = {true, true, true, true, false};
    struct lesson_tallies t;
    lesson_tallies_compute(rows, 5, cbm, &t);
    assert_true(t.total.cbm);
    assert_int_equal(t.total.cbm_answered, 2);
    assert_double_equal(t.total.cbm_mark, 6 - 2, EPS);
    assert_double_equal(t.total.cbm_max, 3 * (2 + 1), EPS);
    const struct lesson_tally *l = lesson_tallies_lesson(&t, "c", "l");
    assert_true(l->cbm);
    assert_double_equal(l->cbm_mark, 4, EPS);
    assert_false(lesson_tallies_lesson(&t, "plain", "m")->cbm);
    assert_true(lesson_tallies_pack(&t, "c")->cbm);
    assert_false(t.topics.v[0].cbm);
    assert_false(t.rubric.v[0].cbm);
    assert_false(t.kinds.v[0].cbm);
    lesson_tallies_fini(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_groups),
        cmocka_unit_test(test_kinds),
        cmocka_unit_test(test_lost_and_pending),
        cmocka_unit_test(test_cbm),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
