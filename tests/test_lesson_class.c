/*
 * test_lesson_class.c — the class loop in lessons: item statistics and
 * sorting and the gradebook's CSV (pure), and the whole loop against real
 * stores and files: students answer and submit, the instructor imports
 * (re-grading), the gradebook equals the students' own progress, a second
 * import changes nothing, a newer submission supersedes, a damaged or
 * foreign file is refused, a review travels back through a feedback file.
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

#define assert_double_equal(a, b, eps)                                                             \
    do {                                                                                           \
        double a_ = (a), b_ = (b);                                                                 \
        if (!(fabs(a_ - b_) <= (eps)))                                                             \
            fail_msg("%s = %.12g, expected %.12g", #a, a_, b_);                                    \
    } while (0)

static char tmpdir[512];
static int counter;

static char *tmp_path(const char *name)
{
    return core_xasprintf("%s/%s-%d", tmpdir, name, counter++);
}

static const char *class_pack(void)
{
    static char path[1024];
    const char *src = getenv("WB_SOURCE_DIR");
    snprintf(path, sizeof path, "%s/tests/data/packs/class", src ? src : ".");
    return path;
}

/* ---- pure parts ------------------------------------------------------------------------ */

static void test_item_stats(void **state)
{
    (void)state;
    double r, d;
    /* The item follows the rest of the total exactly: r = 1, and the upper
     * 27% (1 of 4) got it, the lower did not: D = 1. */
    const double item[] = {1, 1, 0, 0};
    const double total[] = {9, 7, 2, 1}; /* item points 1: rest 8, 6, 2, 1 */
    lesson_item_stats(item, total, 4, 1, &r, &d);
    assert_true(r > 0.9 && r <= 1.0 + 1e-12);
    assert_double_equal(d, 1, 1e-12);
    /* Against the total: the strong students fail it. */
    const double inv[] = {0, 0, 1, 1};
    const double tot2[] = {9, 8, 3, 2};
    lesson_item_stats(inv, tot2, 4, 1, &r, &d);
    assert_true(r < -0.9);
    assert_double_equal(d, -1, 1e-12);
    /* Exact point-biserial: items 1,0,1,0 against rests 3,1,2,2 (means 0.5
     * and 2): cov = (0.5*1 + -0.5*-1 + 0.5*0 + -0.5*0) = 1, var_i = 1,
     * var_r = 1+1 = 2, r = 1/sqrt(2). */
    const double it3[] = {1, 0, 1, 0};
    const double tot3[] = {4, 1, 3, 2};
    lesson_item_stats(it3, tot3, 4, 1, &r, &d);
    assert_double_equal(r, 1 / sqrt(2), 1e-12);
    assert_double_equal(d, 1, 1e-12); /* upper (4) got it, lower (1) did not */
    /* Everyone the same: no variance, no correlation; too few: nothing. */
    const double same[] = {1, 1, 1};
    const double t4[] = {3, 2, 1};
    lesson_item_stats(same, t4, 3, 1, &r, &d);
    assert_true(isnan(r));
    assert_double_equal(d, 0, 1e-12);
    lesson_item_stats(same, t4, 1, 1, &r, &d);
    assert_true(isnan(r) && isnan(d));
}

static void test_items_sort(void **state)
{
    (void)state;
    struct lesson_item it[4] = {
        {.question_id = "a",
         .ordinal = 0,
         .facility = 0.9,
         .discrimination = 0.5,
         .giveup_rate = 0,
         .tries = 1,
         .attempts = 5},
        {.question_id = "b",
         .ordinal = 1,
         .facility = 0.2,
         .discrimination = NAN,
         .giveup_rate = 0.5,
         .tries = 3,
         .attempts = 9},
        {.question_id = "c",
         .ordinal = 2,
         .facility = NAN,
         .discrimination = -0.2,
         .giveup_rate = NAN,
         .tries = NAN,
         .attempts = 0},
        {.question_id = "d",
         .ordinal = 3,
         .facility = 0.5,
         .discrimination = 0.1,
         .giveup_rate = 0.1,
         .tries = 2,
         .attempts = 7},
    };
    lesson_items_sort(it, 4, LESSON_ITEM_FACILITY, false);
    assert_string_equal(it[0].question_id, "b"); /* hardest first, NaN last */
    assert_string_equal(it[1].question_id, "d");
    assert_string_equal(it[2].question_id, "a");
    assert_string_equal(it[3].question_id, "c");
    lesson_items_sort(it, 4, LESSON_ITEM_DISCRIMINATION, false);
    assert_string_equal(it[0].question_id, "c");
    assert_string_equal(it[3].question_id, "b");
    lesson_items_sort(it, 4, LESSON_ITEM_GIVEUPS, false);
    assert_string_equal(it[0].question_id, "b");
    lesson_items_sort(it, 4, LESSON_ITEM_ATTEMPTS, true);
    assert_string_equal(it[0].question_id, "c");
    lesson_items_sort(it, 4, LESSON_ITEM_ORDER, false);
    for (int i = 0; i < 4; i++)
        assert_int_equal(it[i].ordinal, i);
    assert_int_equal(lesson_item_sort_find("tries"), LESSON_ITEM_TRIES);
    assert_int_equal(lesson_item_sort_find("nope"), -1);
}

static void test_gradebook_csv(void **state)
{
    (void)state;
    double lessons[2] = {1.5, 0};
    struct lesson_gb_lesson cols[2] = {{"p", "one", "One, two", 2}, {"p", "two", "Two", 1}};
    struct lesson_gb_row rows[2] = {{.key = "s1",
                                     .user = "=HYPERLINK(\"x\")",
                                     .student_id = "-42",
                                     .lessons = lessons,
                                     .points = 1.5,
                                     .max = 3,
                                     .n_flags = 1,
                                     .design_pending = 2},
                                    {.key = "s2",
                                     .user = "bj\xc3\xb6rn\x1b[2J\xe2\x80\xae",
                                     .student_id = "s2",
                                     .name = "Bj\xc3\xb6rn Berg",
                                     .section = "A",
                                     .lessons = lessons,
                                     .points = 1.5,
                                     .max = 3}};
    struct lesson_gradebook gb = {.lessons = cols, .n_lessons = 2, .rows = rows, .n_rows = 2};
    struct core_buf b;
    core_buf_init(&b);
    lesson_gradebook_csv(&gb, LESSON_CSV_CANVAS, &b);
    core_buf_putc(&b, '\0');
    /* A byte-order mark, then the identifiers and a quoted lesson title with
     * its comma and its maximum. */
    assert_memory_equal(b.data, "\xEF\xBB\xBF", 3);
    assert_non_null(strstr(b.data, "Student,ID,SIS User ID,SIS Login ID,Section,\"One, two "
                                   "(p:one) [/2]\",Two (p:two) [/1],Total,Flags,Design points "
                                   "pending review\r\n"));
    /* The second row: what each lesson is out of, the rest read only. */
    assert_non_null(
        strstr(b.data, "\r\nPoints Possible,,,,,2,1,(read only),(read only),(read only)\r\n"));
    /* A formula is defused and its quotes doubled, a negative id is text,
     * numbers are plain with a '.' point, lines end in CRLF. */
    assert_non_null(strstr(b.data, "\r\n\"'=HYPERLINK(\"\"x\"\")\",,\"'-42\",\"'=HYPERLINK(\"\"x"
                                   "\"\")\",,1.5,0,1.5,1,2\r\n"));
    /* The roster's name and section; a user name's control characters (an
     * escape sequence, a right-to-left override) are shown escaped. */
    assert_non_null(
        strstr(b.data, "\r\nBj\xc3\xb6rn Berg,,s2,bj\xc3\xb6rn^[[2J<U+202E>,A,1.5,0,1.5,0,0\r\n"));
    core_buf_reset(&b);
    lesson_gradebook_csv(&gb, LESSON_CSV_MOODLE, &b);
    core_buf_putc(&b, '\0');
    assert_non_null(strstr(b.data, "ID number,Email address,Username,Full name,\"One, two "
                                   "(p:one)\",Two (p:two),Total\r\n"));
    assert_null(strstr(b.data, "Points Possible"));
    core_buf_fini(&b);
}

/* ---- the loop ---------------------------------------------------------------------------- */

static struct db *open_store(const char *path)
{
    struct db *db = NULL;
    struct core_err e = {0};
    assert_int_equal(db_open(&db, path, &e), CORE_OK);
    struct lesson_src src;
    assert_int_equal(lesson_src_read(class_pack(), &src, &e), CORE_OK);
    if (lesson_pack_import(db, &src, false, NULL, NULL, &e) != CORE_OK)
        fail_msg("%s", e.msg);
    lesson_src_fini(&src);
    return db;
}

static void answer(struct lesson_session *s, const char *qid, const char *text)
{
    struct lesson_answer_result r;
    struct core_err e = {0};
    if (lesson_answer(s, qid, 1, text, &r, &e) != CORE_OK)
        fail_msg("answer %s %s: %s", qid, text, e.msg);
    lesson_answer_result_fini(&r);
}

/* The total a student's own progress gives them. */
static double own_total(struct db *db, struct lesson_session *s)
{
    struct db_progress_row *rows;
    size_t n;
    struct core_err e = {0};
    assert_int_equal(
        lesson_progress_load(db, lesson_session_user_id(s), "test.class", &rows, &n, &e), CORE_OK);
    double t = 0;
    for (size_t i = 0; i < n; i++)
        t += rows[i].best;
    db_progress_free(rows, n);
    return t;
}

static const struct lesson_gb_row *gb_row(const struct lesson_gradebook *gb, const char *key)
{
    for (size_t i = 0; i < gb->n_rows; i++)
        if (strcmp(gb->rows[i].key, key) == 0)
            return &gb->rows[i];
    fail_msg("no gradebook row %s", key);
    return NULL;
}

static void test_class_loop(void **state)
{
    (void)state;
    struct core_err e = {0};
    char *sp = tmp_path("students.db"), *tp = tmp_path("teacher.db"), *cp = tmp_path("class.db");
    struct db *sdb = open_store(sp), *tdb = open_store(tp), *cs = NULL;
    assert_int_equal(db_class_open(&cs, cp, &e), CORE_OK);
    struct lesson_session *ann, *ben, *prof;
    assert_int_equal(lesson_session_new(&ann, sdb, "ann", &e), CORE_OK);
    assert_int_equal(lesson_session_new(&ben, sdb, "ben", &e), CORE_OK);
    assert_int_equal(lesson_session_new(&prof, tdb, "prof", &e), CORE_OK);

    /* ann: wrong then right (the policy costs her 10%), a design answer
     * with self-scores; ben: the planted mistake, a give-up. */
    answer(ann, "test.class:speedup", "3");
    answer(ann, "test.class:speedup", "2.5");
    answer(ann, "test.class:bound", "b");
    struct lesson_answer_result r;
    struct db_selfscore_in self[] = {{"sharding", 1, 1}, {"asynchrony", 0.5, 1}};
    assert_int_equal(lesson_answer_design(ann, "test.class:design", 1,
                                          "We shard the parameters across servers.", 0, self, 2, &r,
                                          &e),
                     CORE_OK);
    lesson_answer_result_fini(&r);
    answer(ben, "test.class:speedup", "1.18");
    struct lesson_giveup_result g;
    assert_int_equal(lesson_giveup(ben, "test.class:bound", 1, &g, &e), CORE_OK);
    lesson_giveup_result_fini(&g);
    answer(ben, "test.class:bound", "b"); /* after the give-up: earns nothing */

    char *fa = tmp_path("ann.wbsub"), *fb = tmp_path("ben.wbsub");
    struct lesson_submit_report sr;
    assert_int_equal(lesson_submit_write(sdb, lesson_session_user_id(ann), "ann", "test.class",
                                         "s-ann", fa, false, &sr, &e),
                     CORE_OK);
    assert_int_equal(sr.n_attempts, 4);
    assert_int_equal(sr.n_selfscores, 2);
    lesson_submit_report_fini(&sr);
    assert_int_equal(lesson_submit_write(sdb, lesson_session_user_id(ben), "ben", NULL, NULL, fb,
                                         false, &sr, &e),
                     CORE_OK);
    assert_int_equal(sr.n_giveups, 1);
    lesson_submit_report_fini(&sr);
    /* The name is never reused. */
    assert_int_equal(lesson_submit_write(sdb, lesson_session_user_id(ben), "ben", NULL, NULL, fb,
                                         false, &sr, &e),
                     CORE_ERR_CONFLICT);

    struct lesson_class_report rep;
    assert_int_equal(lesson_class_import(prof, cs, fa, NULL, &rep, &e), CORE_OK);
    assert_int_equal(rep.result, DB_CLASS_NEW);
    assert_string_equal(rep.key, "s-ann");
    assert_int_equal(rep.n_attempts, 4);
    assert_int_equal(rep.n_agree, 4);
    assert_int_equal(rep.n_disagree, 0);
    lesson_class_report_fini(&rep);
    assert_int_equal(lesson_class_import(prof, cs, fb, NULL, &rep, &e), CORE_OK);
    assert_int_equal(rep.n_agree, 2);
    lesson_class_report_fini(&rep);

    /* The gradebook is what the students' own progress says. */
    struct lesson_gradebook gb;
    assert_int_equal(lesson_gradebook_load(tdb, cs, NULL, true, &gb, &e), CORE_OK);
    assert_int_equal(gb.n_rows, 2);
    assert_double_equal(gb_row(&gb, "s-ann")->points, own_total(sdb, ann), 1e-12);
    assert_double_equal(gb_row(&gb, "ben")->points, own_total(sdb, ben), 1e-12);
    assert_double_equal(gb_row(&gb, "s-ann")->points, 0.9 + 1 + 1, 1e-9);
    assert_double_equal(gb_row(&gb, "ben")->points, 0, 1e-12);
    assert_double_equal(gb_row(&gb, "s-ann")->design_pending, 2, 1e-12);
    lesson_gradebook_fini(&gb);

    /* The same file again: nothing changes. */
    assert_int_equal(lesson_class_import(prof, cs, fa, NULL, &rep, &e), CORE_OK);
    assert_int_equal(rep.result, DB_CLASS_UNCHANGED);
    lesson_class_report_fini(&rep);

    /* The planted mistake leads the item's wrong answers, explained. */
    struct lesson_item *it;
    size_t ni;
    assert_int_equal(lesson_items_load(tdb, cs, "test.class", &it, &ni, &e), CORE_OK);
    const struct lesson_item *sp_item = NULL, *bd = NULL;
    for (size_t i = 0; i < ni; i++) {
        if (strcmp(it[i].question_id, "speedup") == 0)
            sp_item = &it[i];
        if (strcmp(it[i].question_id, "bound") == 0)
            bd = &it[i];
    }
    assert_non_null(sp_item);
    assert_int_equal(sp_item->attempts, 3);
    assert_int_equal(sp_item->students, 2);
    assert_int_equal(sp_item->n_wrong, 2);
    assert_true(sp_item->wrong[0].explained != sp_item->wrong[1].explained);
    assert_non_null(bd);
    assert_double_equal(bd->giveup_rate, 0.5, 1e-12);
    lesson_items_free(it, ni);

    /* Review ann's design answer; the gradebook takes the reviewed score. */
    struct lesson_review_item *ri;
    size_t nr;
    assert_int_equal(lesson_review_list(prof, cs, NULL, NULL, false, &ri, &nr, &e), CORE_OK);
    assert_int_equal(nr, 1);
    assert_double_equal(ri[0].self_total, 1.5, 1e-12);
    int64_t att = ri[0].attempt;
    lesson_review_items_free(ri, nr);
    struct lesson_review_score bad[] = {{"sharding", 3}};
    assert_int_equal(lesson_review_set(prof, cs, att, bad, 1, NULL, "prof", NULL, &e),
                     CORE_ERR_USAGE);
    struct lesson_review_score sc[] = {{"sharding", 1}, {"asynchrony", 0.5}};
    assert_int_equal(lesson_review_set(prof, cs, att, sc, 2, "Say how.", "prof", NULL, &e),
                     CORE_OK);
    assert_int_equal(lesson_gradebook_load(tdb, cs, NULL, true, &gb, &e), CORE_OK);
    assert_double_equal(gb_row(&gb, "s-ann")->points, 0.9 + 1 + 1.5, 1e-9);
    assert_double_equal(gb_row(&gb, "s-ann")->design_pending, 0, 1e-12);
    lesson_gradebook_fini(&gb);

    /* The review goes back: ann's progress now counts it. */
    char *dir = tmp_path("feedback");
    struct lesson_feedback_file *ff;
    size_t nf;
    assert_int_equal(lesson_feedback_write(tdb, cs, dir, false, &ff, &nf, &e), CORE_OK);
    assert_int_equal(nf, 2);
    const char *ann_file = NULL;
    for (size_t i = 0; i < nf; i++)
        if (strcmp(ff[i].key, "s-ann") == 0)
            ann_file = ff[i].path;
    assert_non_null(ann_file);
    struct lesson_feedback_import fi;
    assert_int_equal(
        lesson_feedback_import(sdb, lesson_session_user_id(ben), "ben", ann_file, &fi, &e),
        CORE_ERR_CONFLICT);
    assert_int_equal(
        lesson_feedback_import(sdb, lesson_session_user_id(ann), "ann", ann_file, &fi, &e),
        CORE_OK);
    assert_int_equal(fi.n_added, 1);
    assert_double_equal(own_total(sdb, ann), 0.9 + 1 + 1.5, 1e-9);
    assert_int_equal(
        lesson_feedback_import(sdb, lesson_session_user_id(ann), "ann", ann_file, &fi, &e),
        CORE_OK);
    assert_int_equal(fi.n_added, 0);
    assert_int_equal(fi.n_known, 1);
    /* Writing the feedback again refuses to replace the files. */
    struct lesson_feedback_file *ff2;
    size_t nf2;
    assert_int_equal(lesson_feedback_write(tdb, cs, dir, false, &ff2, &nf2, &e), CORE_ERR_CONFLICT);
    lesson_feedback_files_free(ff2, nf2);
    lesson_feedback_files_free(ff, nf);

    /* A newer submission supersedes the older; the review carries over. */
    answer(ann, "test.class:variant", "1");
    char *fa2 = tmp_path("ann2.wbsub");
    assert_int_equal(lesson_submit_write(sdb, lesson_session_user_id(ann), "ann", "test.class",
                                         "s-ann", fa2, false, &sr, &e),
                     CORE_OK);
    char *old_uid = core_xstrdup(sr.uid);
    lesson_submit_report_fini(&sr);
    assert_int_equal(lesson_class_import(prof, cs, fa2, NULL, &rep, &e), CORE_OK);
    assert_int_equal(rep.result, DB_CLASS_NEWER);
    assert_non_null(rep.superseded);
    assert_string_not_equal(rep.superseded, old_uid);
    lesson_class_report_fini(&rep);
    assert_int_equal(lesson_class_import(prof, cs, fa, NULL, &rep, &e), CORE_OK);
    assert_int_equal(rep.result, DB_CLASS_UNCHANGED);
    lesson_class_report_fini(&rep);
    assert_int_equal(lesson_gradebook_load(tdb, cs, NULL, true, &gb, &e), CORE_OK);
    assert_double_equal(gb_row(&gb, "s-ann")->points, own_total(sdb, ann), 1e-12);
    lesson_gradebook_fini(&gb);
    free(old_uid);

    lesson_session_free(ann);
    lesson_session_free(ben);
    lesson_session_free(prof);
    db_close(sdb);
    db_close(tdb);
    db_close(cs);
    free(sp);
    free(tp);
    free(cp);
    free(fa);
    free(fb);
    free(fa2);
    free(dir);
}

static void test_refused_files(void **state)
{
    (void)state;
    struct core_err e = {0};
    char *sp = tmp_path("s.db"), *cp = tmp_path("c.db");
    struct db *sdb = open_store(sp), *cs = NULL;
    assert_int_equal(db_class_open(&cs, cp, &e), CORE_OK);
    struct lesson_session *s;
    assert_int_equal(lesson_session_new(&s, sdb, "cat", &e), CORE_OK);
    answer(s, "test.class:speedup", "2.5");
    char *f = tmp_path("cat.wbsub");
    struct lesson_submit_report sr;
    assert_int_equal(
        lesson_submit_write(sdb, lesson_session_user_id(s), "cat", NULL, NULL, f, false, &sr, &e),
        CORE_OK);
    lesson_submit_report_fini(&sr);
    char *data;
    size_t len;
    assert_int_equal(core_file_read(f, 1 << 24, &data, &len, &e), CORE_OK);
    struct lesson_class_report rep;
    /* Truncated at several points: refused, nothing imported. */
    const size_t cuts[] = {50, len / 3, len / 2, len - 1};
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        char *t = tmp_path("cut.wbsub");
        assert_int_equal(core_file_create(t, data, cuts[i], true, NULL, &e), CORE_OK);
        e = (struct core_err){0};
        assert_int_equal(lesson_class_import(s, cs, t, NULL, &rep, &e), CORE_ERR_STORE);
        assert_non_null(strstr(e.msg, t));
        lesson_class_report_fini(&rep);
        free(t);
    }
    /* A store is not a submission; neither is a text file. */
    char *other = tmp_path("other.db");
    struct db *odb = open_store(other);
    db_close(odb);
    assert_int_equal(lesson_class_import(s, cs, other, NULL, &rep, &e), CORE_ERR_STORE);
    free(other);
    if (!strstr(e.msg, "is a Warpbench store, not a Warpbench submission file"))
        fail_msg("%s", e.msg);
    lesson_class_report_fini(&rep);
    char *txt = tmp_path("notes.txt");
    assert_int_equal(core_file_create(txt, "hello\n", 6, true, NULL, &e), CORE_OK);
    assert_int_equal(lesson_class_import(s, cs, txt, NULL, &rep, &e), CORE_ERR_STORE);
    lesson_class_report_fini(&rep);
    struct db_class_student *st;
    size_t n;
    assert_int_equal(db_class_students(cs, &st, &n, &e), CORE_OK);
    assert_int_equal(n, 0);
    db_class_students_free(st, n);
    /* The whole file imports. */
    assert_int_equal(lesson_class_import(s, cs, f, NULL, &rep, &e), CORE_OK);
    assert_int_equal(rep.n_agree, 1);
    lesson_class_report_fini(&rep);
    free(data);
    free(txt);
    free(f);
    lesson_session_free(s);
    db_close(sdb);
    db_close(cs);
    free(sp);
    free(cp);
}

int main(void)
{
    const char *t = getenv("WB_TEST_TMP");
    snprintf(tmpdir, sizeof tmpdir, "%s/lesson-class-%ld", t ? t : "/tmp", (long)getpid());
    struct core_err e;
    if (core_mkdir_p(tmpdir, &e) != CORE_OK)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_item_stats),    cmocka_unit_test(test_items_sort),
        cmocka_unit_test(test_gradebook_csv), cmocka_unit_test(test_class_loop),
        cmocka_unit_test(test_refused_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
