/*
 * test_lesson_progress.c — the course rubric roll-up, proficiency levels,
 * calibration, "what to study next" and the certainty-based marking rule
 * (all pure), plus the store functions they read: self-assessments (latest
 * per item) and the first attempt's certainty in db_progress.
 */
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

#define EPS 1e-9

/* cmocka's float assertion is not in every version: our own, for doubles. */
#define assert_double_equal(a, b, eps)                                                             \
    do {                                                                                           \
        double a_ = (a), b_ = (b);                                                                 \
        if (!(fabs(a_ - b_) <= (eps)))                                                             \
            fail_msg("%s = %.12g, expected %.12g", #a, a_, b_);                                    \
    } while (0)

/* A progress row; strings are borrowed (rows here are never freed). */
static struct db_progress_row row(const char *lesson, const char *rubric, double points,
                                  double best)
{
    return (struct db_progress_row){.pack_id = "p",
                                    .lesson_id = (char *)lesson,
                                    .question_id = "q",
                                    .topics = "",
                                    .rubric = (char *)rubric,
                                    .points = points,
                                    .attempts = best > 0 ? 1 : 0,
                                    .best = best,
                                    .answered = best > 0};
}

static struct db_selfassess rating(const char *item, double score, double max, const char *at)
{
    return (struct db_selfassess){
        .item = (char *)item, .score = score, .max = max, .created_at = (char *)at};
}

static const struct lesson_item_standing *item_of(const struct lesson_standing *s, const char *id)
{
    for (int i = 0; i < LESSON_RUBRIC_N; i++)
        if (strcmp(s->items[i].item->id, id) == 0)
            return &s->items[i];
    fail_msg("no item %s", id);
    return NULL;
}

/* ---- the rubric and its levels ------------------------------------------- */

static void test_rubric_items(void **state)
{
    (void)state;
    const struct lesson_rubric_item *r = lesson_rubric_items();
    double total = 0, theory = 0, practice = 0, advanced = 0;
    for (int i = 0; i < LESSON_RUBRIC_N; i++) {
        total += r[i].max;
        if (strcmp(r[i].area, "theory") == 0)
            theory += r[i].max;
        else if (strcmp(r[i].area, "practice") == 0)
            practice += r[i].max;
        else if (strcmp(r[i].area, "advanced") == 0)
            advanced += r[i].max;
        assert_ptr_equal(lesson_rubric_find(r[i].id), &r[i]);
        /* ids are "<area>.<item>" */
        assert_int_equal(strncmp(r[i].id, r[i].area, strlen(r[i].area)), 0);
        assert_int_equal(r[i].id[strlen(r[i].area)], '.');
    }
    assert_double_equal(total, 100, EPS);
    assert_double_equal(theory, 40, EPS);
    assert_double_equal(practice, 40, EPS);
    assert_double_equal(advanced, 20, EPS);
    assert_string_equal(r[0].id, "theory.gpu");
    assert_string_equal(r[11].id, "advanced.future");
    assert_double_equal(lesson_rubric_find("advanced.cost")->max, 5, EPS);
    assert_null(lesson_rubric_find("theory"));
    assert_null(lesson_rubric_find("theory.gpux"));
    assert_null(lesson_rubric_find(""));
    assert_null(lesson_rubric_find(NULL));
}

static void test_levels(void **state)
{
    (void)state;
    static const struct {
        double total;
        const char *level;
    } cases[] = {
        {100, "expert"},        {90, "expert"},       {89.99, "advanced"},  {80, "advanced"},
        {79.5, "intermediate"}, {70, "intermediate"}, {69.99, "beginner+"}, {60, "beginner+"},
        {59.99, "review"},      {0, "review"},        {-5, "review"},       {NAN, "review"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        assert_string_equal(lesson_level_name(cases[i].total), cases[i].level);
    assert_non_null(strstr(lesson_level_meaning(85), "design"));
    assert_non_null(strstr(lesson_level_meaning(10), "review"));
}

static void test_gap_word(void **state)
{
    (void)state;
    assert_string_equal(lesson_gap_word(0, 10), "well calibrated");
    assert_string_equal(lesson_gap_word(1, 10), "well calibrated");
    assert_string_equal(lesson_gap_word(-1, 10), "well calibrated");
    assert_string_equal(lesson_gap_word(1.5, 10), "over-confident");
    assert_string_equal(lesson_gap_word(-0.6, 5), "under-confident");
}

/* ---- certainty-based marking --------------------------------------------- */

static void test_cbm(void **state)
{
    (void)state;
    /* Moodle's table: right 1/2/3, wrong 0/-2/-6. */
    assert_double_equal(lesson_cbm_fraction(1, 1), 1, EPS);
    assert_double_equal(lesson_cbm_fraction(1, 2), 2, EPS);
    assert_double_equal(lesson_cbm_fraction(1, 3), 3, EPS);
    assert_double_equal(lesson_cbm_fraction(0, 1), 0, EPS);
    assert_double_equal(lesson_cbm_fraction(0, 2), -2, EPS);
    assert_double_equal(lesson_cbm_fraction(0, 3), -6, EPS);
    /* Partial credit in proportion. */
    assert_double_equal(lesson_cbm_fraction(0.5, 1), 0.5, EPS);
    assert_double_equal(lesson_cbm_fraction(0.5, 2), 0, EPS);
    assert_double_equal(lesson_cbm_fraction(0.5, 3), -1.5, EPS);
    assert_double_equal(lesson_cbm_fraction(0.75, 3), 0.75, EPS);
    /* No certainty: the plain fraction. Out-of-range fractions are clamped. */
    assert_double_equal(lesson_cbm_fraction(0.4, 0), 0.4, EPS);
    assert_double_equal(lesson_cbm_fraction(0.4, 4), 0.4, EPS);
    assert_double_equal(lesson_cbm_fraction(1.5, 3), 3, EPS);
    assert_double_equal(lesson_cbm_fraction(-1, 2), -2, EPS);
}

/* ---- the roll-up --------------------------------------------------------- */

static void test_rollup_graded(void **state)
{
    (void)state;
    struct db_progress_row rows[] = {
        row("gpu", "theory.gpu", 2, 2), row("gpu", "theory.gpu", 2, 1),
        /* tagged twice and with a name that is no course item */
        row("gpu", "theory.gpu, practice.profiling,theory.gpu,made.up", 4, 0),
        row("cost", "advanced.cost", 1, 1), row("mem", "theory.memory", 3, 1.5),
        row("none", "", 5, 5), /* evidence for nothing */
    };
    struct lesson_standing s;
    lesson_standing_compute(rows, 6, NULL, 0, &s);
    /* theory.gpu: 10 × (2 + 1 + 0) / (2 + 2 + 4) */
    const struct lesson_item_standing *gpu = item_of(&s, "theory.gpu");
    assert_int_equal(gpu->questions, 3);
    assert_int_equal(gpu->answered, 2);
    assert_double_equal(gpu->points, 8, EPS);
    assert_double_equal(gpu->earned, 3, EPS);
    assert_double_equal(gpu->graded, 3.75, EPS);
    assert_double_equal(item_of(&s, "practice.profiling")->graded, 0, EPS);
    assert_int_equal(item_of(&s, "practice.profiling")->questions, 1);
    assert_double_equal(item_of(&s, "advanced.cost")->graded, 5, EPS);
    assert_double_equal(item_of(&s, "theory.memory")->graded, 5, EPS);
    /* an item no question evidences scores 0 */
    assert_int_equal(item_of(&s, "advanced.future")->questions, 0);
    assert_double_equal(item_of(&s, "advanced.future")->graded, 0, EPS);
    assert_double_equal(s.graded_total, 3.75 + 5 + 5, EPS);
    assert_string_equal(s.graded_level, "review");
    assert_int_equal(s.n_rated, 0);
    assert_null(s.self_level);
    assert_false(gpu->rated);
    lesson_standing_fini(&s);
}

static void test_rollup_full_marks_levels(void **state)
{
    (void)state;
    /* One full-marks question per item: 100, expert. Then lose items until
     * each level boundary is crossed. */
    const struct lesson_rubric_item *r = lesson_rubric_items();
    struct db_progress_row rows[LESSON_RUBRIC_N];
    for (int i = 0; i < LESSON_RUBRIC_N; i++)
        rows[i] = row("all", r[i].id, 1, 1);
    struct lesson_standing s;
    lesson_standing_compute(rows, LESSON_RUBRIC_N, NULL, 0, &s);
    assert_double_equal(s.graded_total, 100, EPS);
    assert_string_equal(s.graded_level, "expert");
    assert_int_equal(s.n_study, 0); /* nothing left to earn */
    lesson_standing_fini(&s);

    rows[11].best = 0; /* advanced.future: 95 */
    lesson_standing_compute(rows, LESSON_RUBRIC_N, NULL, 0, &s);
    assert_double_equal(s.graded_total, 95, EPS);
    assert_string_equal(s.graded_level, "expert");
    lesson_standing_fini(&s);

    rows[10].best = 0.8; /* advanced.cost 4 of 5: 94 */
    rows[0].best = 0.4;  /* theory.gpu 4 of 10: 88 */
    lesson_standing_compute(rows, LESSON_RUBRIC_N, NULL, 0, &s);
    assert_double_equal(s.graded_total, 88, EPS);
    assert_string_equal(s.graded_level, "advanced");
    lesson_standing_fini(&s);

    rows[1].best = 0; /* theory.parallel: 78 */
    lesson_standing_compute(rows, LESSON_RUBRIC_N, NULL, 0, &s);
    assert_double_equal(s.graded_total, 78, EPS);
    assert_string_equal(s.graded_level, "intermediate");
    lesson_standing_fini(&s);

    rows[2].best = 0.2; /* theory.memory 2 of 10: 70, the boundary */
    lesson_standing_compute(rows, LESSON_RUBRIC_N, NULL, 0, &s);
    assert_double_equal(s.graded_total, 70, EPS);
    assert_string_equal(s.graded_level, "intermediate");
    lesson_standing_fini(&s);

    rows[3].best = 0; /* theory.scheduling: 60 */
    lesson_standing_compute(rows, LESSON_RUBRIC_N, NULL, 0, &s);
    assert_double_equal(s.graded_total, 60, EPS);
    assert_string_equal(s.graded_level, "beginner+");
    lesson_standing_fini(&s);

    rows[4].best = 0.5; /* practice.profiling 5 of 10: 55 */
    lesson_standing_compute(rows, LESSON_RUBRIC_N, NULL, 0, &s);
    assert_double_equal(s.graded_total, 55, EPS);
    assert_string_equal(s.graded_level, "review");
    lesson_standing_fini(&s);
}

static void test_rollup_self(void **state)
{
    (void)state;
    struct db_progress_row rows[] = {
        row("gpu", "theory.gpu", 2, 1),          /* graded 5/10 */
        row("sched", "theory.scheduling", 1, 0), /* graded 0/10, not answered */
    };
    struct db_selfassess self[] = {
        rating("theory.gpu", 9, 10, "2025-01-01T00:00:00.000Z"),
        rating("theory.gpu", 6, 10, "2025-02-01T00:00:00.000Z"),    /* later: wins */
        rating("advanced.cost", 8, 10, "2025-02-01T00:00:00.000Z"), /* other scale: 4/5 */
        rating("theory.scheduling", 7, 10, "2025-02-01T00:00:00.000Z"),
        rating("not.an.item", 3, 10, "2025-02-01T00:00:00.000Z"),
    };
    struct lesson_standing s;
    lesson_standing_compute(rows, 2, self, 5, &s);
    const struct lesson_item_standing *gpu = item_of(&s, "theory.gpu");
    assert_true(gpu->rated);
    assert_double_equal(gpu->self, 6, EPS);
    assert_string_equal(gpu->rated_at, "2025-02-01T00:00:00.000Z");
    assert_double_equal(gpu->graded, 5, EPS);
    assert_double_equal(gpu->gap, 1, EPS);
    const struct lesson_item_standing *cost = item_of(&s, "advanced.cost");
    assert_double_equal(cost->self, 4, EPS);
    assert_double_equal(cost->gap, 4, EPS);
    assert_double_equal(item_of(&s, "theory.scheduling")->gap, 7, EPS);
    assert_false(item_of(&s, "theory.memory")->rated);
    assert_null(item_of(&s, "theory.memory")->rated_at);
    assert_int_equal(s.n_rated, 3);
    assert_double_equal(s.self_total, 17, EPS);
    assert_null(s.self_level); /* not every item rated */
    /* Calibration compares only items with graded evidence: theory.gpu. */
    assert_int_equal(s.n_compared, 1);
    assert_double_equal(s.self_compared, 6, EPS);
    assert_double_equal(s.graded_compared, 5, EPS);
    assert_double_equal(s.max_compared, 10, EPS);
    lesson_standing_fini(&s);

    /* Every item rated: a self-rated level. */
    const struct lesson_rubric_item *r = lesson_rubric_items();
    struct db_selfassess all[LESSON_RUBRIC_N];
    for (int i = 0; i < LESSON_RUBRIC_N; i++)
        all[i] = rating(r[i].id, r[i].max * 0.85, r[i].max, NULL);
    lesson_standing_compute(NULL, 0, all, LESSON_RUBRIC_N, &s);
    assert_int_equal(s.n_rated, LESSON_RUBRIC_N);
    assert_double_equal(s.self_total, 85, EPS);
    assert_string_equal(s.self_level, "advanced");
    assert_double_equal(s.graded_total, 0, EPS);
    assert_int_equal(s.n_compared, 0);
    assert_int_equal(s.n_study, 0); /* no questions at all */
    lesson_standing_fini(&s);
}

static void test_study_next(void **state)
{
    (void)state;
    struct db_progress_row rows[] = {
        /* intro: everything earned */
        row("intro", "theory.parallel", 1, 1),
        /* gpu: theory.gpu has 2 points in all, 1 of them here, unearned:
         * 10 × 1/2 = 5 */
        row("gpu", "theory.gpu", 1, 0),
        /* memory: 10 × (2 - 0.5)/2 = 7.5 on theory.memory, plus a share of
         * theory.gpu 10 × 0.5/2 = 2.5: 10 */
        row("memory", "theory.memory", 2, 0.5),
        row("memory", "theory.gpu", 1, 0.5),
        /* cost: 5 × 1/1 = 5, ties with gpu: gpu comes first (lesson order) */
        row("cost", "advanced.cost", 3, 0),
        /* future: 5 × 1/4 = 1.25, fourth, left out */
        row("future", "advanced.future", 4, 3),
    };
    struct lesson_standing s;
    lesson_standing_compute(rows, 6, NULL, 0, &s);
    assert_int_equal(s.n_study, LESSON_STUDY_MAX);
    /* First where the student's own answers lost points, most first:
     * memory (2 - 0.5 and 1 - 0.5 on two questions), then future (4 - 3) */
    assert_string_equal(s.study[0].lesson_id, "memory");
    assert_double_equal(s.study[0].lost, 2, EPS);
    assert_int_equal(s.study[0].missed, 2);
    assert_double_equal(s.study[0].unearned, 10, EPS);
    assert_string_equal(s.study[0].item->id, "theory.memory");
    assert_string_equal(s.study[0].pack_id, "p");
    assert_string_equal(s.study[1].lesson_id, "future");
    assert_double_equal(s.study[1].lost, 1, EPS);
    /* then the rubric points still open: gpu 5 ties with cost, gpu first */
    assert_string_equal(s.study[2].lesson_id, "gpu");
    assert_double_equal(s.study[2].lost, 0, EPS);
    assert_double_equal(s.study[2].unearned, 5, EPS);
    assert_string_equal(s.study[2].item->id, "theory.gpu");
    /* The unearned points add up to what the total misses (every item here
     * has questions except those with none, which nobody can earn). */
    double unearned = 0;
    for (int i = 0; i < LESSON_RUBRIC_N; i++)
        if (s.items[i].questions)
            unearned += s.items[i].item->max - s.items[i].graded;
    assert_double_equal(unearned, 10 + 5 + 5 + 1.25, EPS);
    lesson_standing_fini(&s);

    /* An exam lesson (the assessment) holds the most, yet a beginner is sent
     * to the lessons first: it comes after every other lesson left. */
    struct db_progress_row more[7];
    memcpy(more, rows, sizeof rows);
    more[6] = row("assessment", "theory.scheduling", 5, 0);
    more[6].exam = true;
    lesson_standing_compute(more, 7, NULL, 0, &s);
    assert_int_equal(s.n_study, LESSON_STUDY_MAX);
    for (size_t i = 0; i < s.n_study; i++)
        assert_string_not_equal(s.study[i].lesson_id, "assessment");
    lesson_standing_fini(&s);
    /* A submitted exam's wrong answers are mistakes like any other: the
     * points they lost rank it first. */
    more[6] = row("assessment", "theory.scheduling", 5, 1);
    more[6].exam = more[6].exam_over = true;
    lesson_standing_compute(more, 7, NULL, 0, &s);
    assert_string_equal(s.study[0].lesson_id, "assessment");
    assert_double_equal(s.study[0].lost, 4, EPS);
    assert_true(s.study[0].exam);
    lesson_standing_fini(&s);
    /* ... an exam not yet submitted has lost nothing yet */
    more[6].exam_over = false;
    more[6].best = 0;
    more[6].answered = false;
    /* ... until it is the only one left */
    struct db_progress_row last[] = {row("intro", "theory.parallel", 1, 1), more[6]};
    lesson_standing_compute(last, 2, NULL, 0, &s);
    assert_int_equal(s.n_study, 1);
    assert_string_equal(s.study[0].lesson_id, "assessment");
    lesson_standing_fini(&s);
}

/* A self-rating is compared with the questions answered, not with the
 * whole course: 8/10 on an item whose one answered question is right is
 * well calibrated, even with three more questions not yet tried. */
static void test_gap_on_answered(void **state)
{
    (void)state;
    struct db_progress_row rows[] = {
        row("gpu", "theory.gpu", 1, 1), /* answered, right */
        row("gpu", "theory.gpu", 1, 0), /* not answered */
        row("gpu", "theory.gpu", 1, 0),
        row("gpu", "theory.gpu", 1, 0),
    };
    struct db_selfassess self[] = {rating("theory.gpu", 9, 10, NULL)};
    struct lesson_standing s;
    lesson_standing_compute(rows, 4, self, 1, &s);
    const struct lesson_item_standing *gpu = item_of(&s, "theory.gpu");
    assert_double_equal(gpu->graded, 2.5, EPS);         /* 1 of 4 points in the course */
    assert_double_equal(gpu->graded_answered, 10, EPS); /* 1 of 1 answered */
    assert_double_equal(gpu->gap, -1, EPS);             /* 9 against 10, not 2.5 */
    assert_string_equal(lesson_gap_word(gpu->gap, 10), "well calibrated");
    assert_double_equal(s.graded_compared, 10, EPS);
    lesson_standing_fini(&s);
}

/* ---- the store: self-assessments and first-attempt certainty ------------- */

static char *tmp_db(void)
{
    const char *dir = getenv("WB_TEST_TMP");
    if (!dir || !*dir)
        dir = "/tmp";
    static int seq;
    char *p = core_xasprintf("%s/lp-%ld-%d.db", dir, (long)getpid(), ++seq);
    const char *suffix[] = {"", "-wal", "-shm"};
    for (size_t i = 0; i < 3; i++) {
        char *q = core_xasprintf("%s%s", p, suffix[i]);
        unlink(q);
        free(q);
    }
    return p;
}

static void test_store_selfassess(void **state)
{
    (void)state;
    char *path = tmp_db();
    struct db *db = NULL;
    struct core_err e = {0};
    assert_int_equal(db_open(&db, path, &e), CORE_OK);
    int64_t uid = 0, other = 0;
    assert_int_equal(db_user_ensure(db, "alice", &uid, &e), CORE_OK);
    assert_int_equal(db_user_ensure(db, "bob", &other, &e), CORE_OK);

    struct db_selfassess_in first[] = {{"theory.gpu", 7, 10}, {"advanced.cost", 2.5, 5}};
    assert_int_equal(db_selfassess_insert_many(db, uid, first, 2, &e), CORE_OK);
    assert_int_equal(db_selfassess_insert(db, other, "theory.gpu", 1, 10, &e), CORE_OK);
    struct db_selfassess_in second[] = {{"theory.gpu", 4, 10}};
    assert_int_equal(db_selfassess_insert_many(db, uid, second, 1, &e), CORE_OK);
    /* A bad row refuses the whole set. */
    struct db_selfassess_in bad[] = {{"theory.memory", 3, 10}, {"theory.parallel", 11, 10}};
    assert_int_equal(db_selfassess_insert_many(db, uid, bad, 2, &e), CORE_ERR_INVALID);
    assert_non_null(strstr(e.msg, "theory.parallel"));
    assert_int_equal(db_selfassess_insert_many(db, uid, NULL, 0, &e), CORE_OK);

    struct db_selfassess *s = NULL;
    size_t n = 0;
    assert_int_equal(db_selfassess_latest(db, uid, &s, &n, &e), CORE_OK);
    assert_int_equal(n, 2); /* ordered by item; theory.memory was refused */
    assert_string_equal(s[0].item, "advanced.cost");
    assert_double_equal(s[0].score, 2.5, EPS);
    assert_double_equal(s[0].max, 5, EPS);
    assert_string_equal(s[1].item, "theory.gpu");
    assert_double_equal(s[1].score, 4, EPS); /* the later rating */
    assert_non_null(s[1].created_at);
    db_selfassess_free(s, n);

    assert_int_equal(db_selfassess_list(db, uid, &s, &n, &e), CORE_OK);
    assert_int_equal(n, 3);
    assert_string_equal(s[0].item, "theory.gpu");
    assert_double_equal(s[0].score, 7, EPS);
    /* one set, one time stamp */
    assert_string_equal(s[0].created_at, s[1].created_at);
    db_selfassess_free(s, n);

    assert_int_equal(db_selfassess_latest(db, other, &s, &n, &e), CORE_OK);
    assert_int_equal(n, 1);
    assert_double_equal(s[0].score, 1, EPS);
    db_selfassess_free(s, n);
    db_selfassess_free(NULL, 0);

    db_close(db);
    unlink(path);
    free(path);
}

static void test_store_certainty(void **state)
{
    (void)state;
    char *path = tmp_db();
    struct db *db = NULL;
    struct core_err e = {0};
    assert_int_equal(db_open(&db, path, &e), CORE_OK);
    int64_t uid = 0;
    assert_int_equal(db_user_ensure(db, "alice", &uid, &e), CORE_OK);
    static const char pack_lua[] = "pack{}";
    struct db_file_in files[] = {{"pack.lua", pack_lua, sizeof pack_lua - 1}};
    struct db_lesson_in lessons[] = {{.id = "l", .title = "L", .file = "pack.lua"}};
    struct db_question_in qs[] = {
        {.id = "a",
         .lesson_id = "l",
         .kind = "numeric",
         .prompt = "?",
         .points = 2,
         .topics = "",
         .rubric = "theory.gpu",
         .file = "pack.lua",
         .line = 1,
         .page_after = -1},
        {.id = "b",
         .lesson_id = "l",
         .kind = "numeric",
         .prompt = "?",
         .points = 1,
         .topics = "",
         .rubric = "advanced.cost",
         .file = "pack.lua",
         .line = 2,
         .page_after = -1},
    };
    struct db_pack_in in = {.id = "t.cbm",
                            .version = "1",
                            .title = "T",
                            .files = files,
                            .n_files = 1,
                            .lessons = lessons,
                            .n_lessons = 1,
                            .questions = qs,
                            .n_questions = 2};
    int64_t rev = 0;
    assert_int_equal(db_pack_import(db, &in, false, NULL, &rev, &e), CORE_OK);

    /* a: an unreadable answer (not counted), then wrong at certainty 3,
     * then right at certainty 1. b: right at certainty 2. */
    struct db_attempt_in at = {.user_id = uid,
                               .pack_id = "t.cbm",
                               .question_id = "a",
                               .variant = 1,
                               .answer = "x",
                               .valid = false,
                               .score = 0,
                               .max = 2,
                               .feedback = "",
                               .rev_id = rev,
                               .certainty = 2};
    int64_t ids[4];
    assert_int_equal(db_attempt_insert(db, &at, &ids[0], &e), CORE_OK);
    at.valid = true;
    at.answer = "1";
    at.certainty = 3;
    assert_int_equal(db_attempt_insert(db, &at, &ids[1], &e), CORE_OK);
    at.answer = "2";
    at.score = 2;
    at.correct = true;
    at.certainty = 1;
    assert_int_equal(db_attempt_insert(db, &at, &ids[2], &e), CORE_OK);
    struct db_attempt_in bt = {.user_id = uid,
                               .pack_id = "t.cbm",
                               .question_id = "b",
                               .variant = 1,
                               .answer = "7",
                               .valid = true,
                               .score = 1,
                               .max = 1,
                               .correct = true,
                               .feedback = "",
                               .rev_id = rev,
                               .certainty = 2};
    assert_int_equal(db_attempt_insert(db, &bt, &ids[3], &e), CORE_OK);
    /* Certainty out of range is refused. */
    bt.certainty = 4;
    assert_int_equal(db_attempt_insert(db, &bt, NULL, &e), CORE_ERR_INVALID);

    struct db_attempt *as = NULL;
    size_t na = 0;
    assert_int_equal(db_attempt_list(db, uid, "t.cbm", "a", &as, &na, &e), CORE_OK);
    assert_int_equal(na, 3);
    assert_int_equal(as[1].certainty, 3);
    assert_int_equal(as[2].certainty, 1);
    db_attempts_free(as, na);

    struct db_progress_row *rows = NULL;
    size_t n = 0;
    assert_int_equal(db_progress(db, uid, "t.cbm", &rows, &n, &e), CORE_OK);
    assert_int_equal(n, 2);
    assert_string_equal(rows[0].question_id, "a");
    assert_double_equal(rows[0].best, 2, EPS);
    assert_double_equal(rows[0].first, 0, EPS); /* the first valid attempt was wrong */
    assert_int_equal(rows[0].certainty, 3);
    assert_int_equal(rows[1].certainty, 2);
    assert_double_equal(rows[1].first, 1, EPS);
    db_progress_free(rows, n);

    /* A re-grade of the first valid attempt counts instead of it, keeping
     * the certainty the student stated. */
    struct db_attempt_in rg = at;
    rg.answer = "1";
    rg.score = 2;
    rg.correct = true;
    rg.certainty = 3;
    rg.regrade_of = ids[1];
    assert_int_equal(db_attempt_insert_batch(db, &rg, 1, &e), CORE_OK);
    assert_int_equal(db_progress(db, uid, "t.cbm", &rows, &n, &e), CORE_OK);
    assert_double_equal(rows[0].first, 2, EPS);
    assert_int_equal(rows[0].certainty, 3);
    db_progress_free(rows, n);

    /* The standing, read from the store. */
    assert_int_equal(db_selfassess_insert(db, uid, "theory.gpu", 9, 10, &e), CORE_OK);
    struct lesson_standing st;
    assert_int_equal(lesson_standing_load(db, uid, NULL, &st, &e), CORE_OK);
    assert_double_equal(item_of(&st, "theory.gpu")->graded, 10, EPS);
    assert_double_equal(item_of(&st, "advanced.cost")->graded, 5, EPS);
    assert_double_equal(item_of(&st, "theory.gpu")->gap, -1, EPS);
    assert_double_equal(st.graded_total, 15, EPS);
    lesson_standing_fini(&st);
    assert_int_equal(lesson_standing_load(db, uid, "no.such", &st, &e), CORE_ERR_NOTFOUND);

    db_close(db);
    unlink(path);
    free(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rubric_items),
        cmocka_unit_test(test_levels),
        cmocka_unit_test(test_gap_word),
        cmocka_unit_test(test_gap_on_answered),
        cmocka_unit_test(test_cbm),
        cmocka_unit_test(test_rollup_graded),
        cmocka_unit_test(test_rollup_full_marks_levels),
        cmocka_unit_test(test_rollup_self),
        cmocka_unit_test(test_study_next),
        cmocka_unit_test(test_store_selfassess),
        cmocka_unit_test(test_store_certainty),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
