/*
 * test_sealed.c — the parts of sealed assessment that are pure: the
 * deadline parser and the CSV reader an instructor's files go through, the
 * class list (roster) with its line numbers, the integrity checks of a
 * submission's graded work (each kind found where it should be and nowhere
 * else), and the release rewrite of the example course (what a sealed
 * question keeps and loses).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "lessons/lesson_internal.h"
#include "grader_test_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double utc(int y, int mo, int d, int h, int mi, int s)
{
    struct tm tm = {.tm_year = y - 1900,
                    .tm_mon = mo - 1,
                    .tm_mday = d,
                    .tm_hour = h,
                    .tm_min = mi,
                    .tm_sec = s};
    return (double)timegm(&tm);
}

/* ---- deadlines as people write them ------------------------------------------------- */

static void test_time_parse(void **state)
{
    (void)state;
    assert_true(core_time_parse("2026-12-01") == utc(2026, 12, 1, 23, 59, 59));
    assert_true(core_time_parse("2026-12-01 23:59") == utc(2026, 12, 1, 23, 59, 0));
    assert_true(core_time_parse("2026-12-01T08:30:15") == utc(2026, 12, 1, 8, 30, 15));
    assert_true(core_time_parse("2026-12-01T08:30:15.250Z") == utc(2026, 12, 1, 8, 30, 15) + 0.25);
    assert_true(core_time_parse("2026-12-01T10:00+01:00") == utc(2026, 12, 1, 9, 0, 0));
    assert_true(core_time_parse("2026-12-01T10:00-0500") == utc(2026, 12, 1, 15, 0, 0));
    assert_true(core_time_parse("2028-02-29") == utc(2028, 2, 29, 23, 59, 59));
    /* what core_time_iso writes reads back */
    char iso[32];
    core_time_iso(utc(2026, 11, 28, 6, 40, 1) + 0.125, iso);
    assert_true(core_time_parse(iso) == utc(2026, 11, 28, 6, 40, 1) + 0.125);
    static const char *const bad[] = {"",
                                      "tomorrow",
                                      "2026-13-01",
                                      "2026-02-30",
                                      "2026-02-29", /* not a leap year */
                                      "2026-12-01T24:00",
                                      "2026-12-01T10:60",
                                      "2026-12-01T10:00+25:00",
                                      "2026-12-01 23:59 and more",
                                      "26-12-01"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (!isnan(core_time_parse(bad[i])))
            fail_msg("'%s' read as a time", bad[i]);
    assert_true(isnan(core_time_parse(NULL)));
}

/* ---- CSV records (RFC 4180) --------------------------------------------------------- */

static void test_csv_read(void **state)
{
    (void)state;
    static const char text[] = "\xEF\xBB\xBF"
                               "id,\"name, full\",note\r\n"
                               "s1,\"Zoë \"\"Z\"\" Smith\",\"two\nlines\"\r\n"
                               "s2,,\n"
                               "s3";
    const char *p = text, *end = text + sizeof text - 1;
    struct core_strlist f;
    core_strlist_init(&f);
    assert_true(core_csv_read(&p, end, true, &f));
    assert_int_equal(f.n, 3);
    assert_string_equal(f.items[0], "id"); /* the byte-order mark is not in the first field */
    assert_string_equal(f.items[1], "name, full");
    assert_true(core_csv_read(&p, end, false, &f));
    assert_int_equal(f.n, 3);
    assert_string_equal(f.items[1], "Zoë \"Z\" Smith");
    assert_string_equal(f.items[2], "two\nlines");
    assert_true(core_csv_read(&p, end, false, &f));
    assert_int_equal(f.n, 3);
    assert_string_equal(f.items[0], "s2");
    assert_string_equal(f.items[1], "");
    assert_string_equal(f.items[2], "");
    assert_true(core_csv_read(&p, end, false, &f)); /* a last record without a line end */
    assert_int_equal(f.n, 1);
    assert_string_equal(f.items[0], "s3");
    assert_false(core_csv_read(&p, end, false, &f));
    core_strlist_fini(&f);
}

/* ---- the roster --------------------------------------------------------------------- */

static char tmpdir[512];

static char *write_tmp(const char *name, const char *text)
{
    char *path = core_xasprintf("%s/%s", tmpdir, name);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
    return path;
}

static void test_roster(void **state)
{
    (void)state;
    char *cpath = core_xasprintf("%s/class.db", tmpdir);
    struct db *cs = NULL;
    struct core_err e = {0};
    assert_int_equal(db_class_open(&cs, cpath, &e), CORE_OK);
    /* Canvas's export: SIS User ID is the student id; a name spans two
     * lines; a repeated id and a row without one are warned about with the
     * line they start on. */
    char *path = write_tmp("roster.csv", "Student,SIS User ID,SIS Login ID,Section\r\n"
                                         "\"Smith, Ann\",s001,asmith,A\r\n"
                                         "\"Long\nName\",s002,bl,B\r\n"
                                         "Nobody,,x,A\r\n"
                                         "Again,s001,a2,A\r\n");
    struct core_strlist w;
    core_strlist_init(&w);
    size_t n = 0;
    assert_int_equal(lesson_roster_load(cs, path, &w, &n, &e), CORE_OK);
    assert_int_equal(n, 2);
    assert_int_equal(w.n, 2);
    assert_non_null(strstr(w.items[0], "roster.csv:5: no usable student id"));
    assert_non_null(strstr(w.items[1], "roster.csv:6: student id s001 is listed twice"));
    core_strlist_fini(&w);
    free(path);
    /* No id column: refused with file and line. */
    path = write_tmp("bad.csv", "name,email\nAnn,a@x\n");
    core_strlist_init(&w);
    assert_int_equal(lesson_roster_load(cs, path, &w, &n, &e), CORE_ERR_INVALID);
    assert_non_null(strstr(e.msg, "bad.csv:1: no student id column"));
    core_strlist_fini(&w);
    free(path);
    db_close(cs);
    unlink(cpath);
    free(cpath);
}

/* ---- the example course, loaded ---------------------------------------------------- */

static struct grader_pack *example(void)
{
    return grader_test_load_dir("lessons/examples/class");
}

/* ---- the integrity checks ------------------------------------------------------------ */

struct found {
    int count[LESSON_FLAG_N];
    char last[LESSON_FLAG_N][400];
};

static void on_finding(void *ctx, enum lesson_flag_kind kind, const char *pack_id,
                       const char *lesson_id, const char *question_id, int64_t attempt,
                       char *reason)
{
    (void)pack_id, (void)lesson_id, (void)question_id, (void)attempt;
    struct found *f = ctx;
    f->count[kind]++;
    snprintf(f->last[kind], sizeof f->last[kind], "%s", reason);
    free(reason);
}

/* The times att() made, freed at the end of the test. */
static char *made[16];
static size_t n_made;

static struct db_sub_attempt att(int64_t id, const char *qid, double t, int64_t seq)
{
    char iso[32];
    core_time_iso(t, iso);
    assert_true(n_made < sizeof made / sizeof made[0]);
    made[n_made] = core_xstrdup(iso);
    return (struct db_sub_attempt){.id = id,
                                   .pack_id = "example.class",
                                   .question_id = (char *)qid,
                                   .variant = 1,
                                   .answer = "1",
                                   .created_at = made[n_made++],
                                   .valid = true,
                                   .sealed = true,
                                   .seq = seq};
}

static void run_checks(const struct grader_pack *p, struct db_sub_attempt *a, size_t n,
                       struct db_sub_exam *x, size_t nx, const char *const *released, double now,
                       struct found *f)
{
    memset(f, 0, sizeof *f);
    struct db_submission s = {.attempts = a, .n_attempts = n, .exams = x, .n_exams = nx};
    struct lesson_checks_pack pk = {"example.class", p};
    lesson_class_checks(&s, &pk, 1, released, NULL, now, on_finding, f);
}

static void test_checks(void **state)
{
    (void)state;
    struct grader_pack *p = example();
    const double t0 = utc(2026, 11, 2, 9, 0, 0), now = t0 + 86400;
    char start[32], deadline[32], submitted[32];
    core_time_iso(t0, start);
    core_time_iso(t0 + 1800, deadline);
    core_time_iso(t0 + 600, submitted);
    struct db_sub_exam x = {"example.class", "exam", start, deadline, submitted};

    /* An honest student: two tries at the speedup, one exam sitting with
     * one answer per question inside it. Nothing is found. */
    struct db_sub_attempt a[8];
    size_t n = 0;
    a[n++] = att(1, "hw.speedup", t0 - 3600, 1);
    a[n++] = att(2, "hw.speedup", t0 - 3000, 2);
    a[n++] = att(3, "exam.limit", t0 + 60, 3);
    a[n++] = att(4, "exam.gustafson", t0 + 120, 4);
    struct found f;
    const char *released[8] = {0};
    for (size_t i = 0; i < n; i++)
        released[i] = "2026-11-01T00:00:00.000Z";
    run_checks(p, a, n, &x, 1, released, now, &f);
    for (int k = 0; k < LESSON_FLAG_N; k++)
        if (f.count[k])
            fail_msg("an honest submission flagged %s: %s", lesson_flag_name(k), f.last[k]);

    /* A third try at a two-try question. */
    a[n++] = att(5, "hw.speedup", t0 - 2000, 5);
    run_checks(p, a, n, &x, 1, released, now, &f);
    assert_int_equal(f.count[LESSON_FLAG_TRIES], 1);
    assert_non_null(strstr(f.last[LESSON_FLAG_TRIES], "try 3 of a question that allows 2"));

    /* A second exam answer, and one after the exam was handed in. */
    n = 4;
    a[n++] = att(5, "exam.limit", t0 + 300, 5);
    a[n++] = att(6, "exam.design", t0 + 900, 6);
    run_checks(p, a, n, &x, 1, released, now, &f);
    assert_int_equal(f.count[LESSON_FLAG_DUPLICATE], 1);
    assert_int_equal(f.count[LESSON_FLAG_EXAM_TIME], 1);
    assert_non_null(strstr(f.last[LESSON_FLAG_EXAM_TIME], "outside the sitting of 'exam'"));

    /* A sitting whose deadline is not its start plus 30 minutes; answers to
     * an exam with no sitting at all. */
    n = 4;
    char later[32];
    core_time_iso(t0 + 7200, later);
    struct db_sub_exam stretched = {"example.class", "exam", start, later, NULL};
    run_checks(p, a, n, &stretched, 1, released, now, &f);
    assert_int_equal(f.count[LESSON_FLAG_SITTING], 1);
    run_checks(p, a, n, NULL, 0, released, now, &f);
    assert_int_equal(f.count[LESSON_FLAG_SITTING], 1);
    assert_non_null(strstr(f.last[LESSON_FLAG_SITTING], "without a sitting"));

    /* Before the release it names; after the import's clock. */
    const char *late_release[8] = {"2026-11-02T08:30:00.000Z"};
    run_checks(p, a, n, &x, 1, late_release, now, &f);
    assert_int_equal(f.count[LESSON_FLAG_EARLY], 1);
    run_checks(p, a, n, &x, 1, released, t0 - 3200, &f);
    assert_true(f.count[LESSON_FLAG_FUTURE] >= 1);

    /* A try taken out of the log; a log without places. */
    a[1].seq = 7;
    run_checks(p, a, n, &x, 1, released, now, &f);
    assert_int_equal(f.count[LESSON_FLAG_GAP], 1);
    assert_non_null(strstr(f.last[LESSON_FLAG_GAP], "an attempt was taken out of the log"));
    a[1].seq = 0;
    run_checks(p, a, n, &x, 1, released, now, &f);
    assert_int_equal(f.count[LESSON_FLAG_GAP], 1);
    assert_non_null(strstr(f.last[LESSON_FLAG_GAP], "without their place"));

    for (size_t i = 0; i < n_made; i++)
        free(made[i]);
    n_made = 0;
    grader_pack_free(p);
}

/* ---- the release rewrite ------------------------------------------------------------- */

static const struct grader_release_file *file_of(const struct grader_release *r, const char *path)
{
    for (size_t i = 0; i < r->n_files; i++)
        if (strcmp(r->files[i].path, path) == 0)
            return &r->files[i];
    fail_msg("the release has no %s", path);
    return NULL;
}

static void test_release(void **state)
{
    (void)state;
    struct grader_pack *p = example();
    struct grader_release_opts o = {.salt = "00112233445566778899aabbccddeeff",
                                    .source = "ab",
                                    .made = "2026-11-02T09:00:00.000Z",
                                    .seed = 7};
    struct grader_release r;
    struct core_err e = {0};
    assert_int_equal(grader_pack_release(p, &o, &r, &e), CORE_OK);
    assert_int_equal(r.sealed_lessons, 2);
    assert_int_equal(r.sealed_questions, 8);
    assert_int_equal(r.dropped_calcs, 1);
    assert_int_equal(r.dropped_hints, 1);
    assert_int_equal(r.dropped_defs, 1);
    const struct grader_release_file *hw = file_of(&r, "homework.lua");
    char *text = core_xstrndup(hw->data, hw->len);
    /* kept: the prompt, its numbers' helper, the public hint, the policy */
    assert_non_null(strstr(text, "local function draw(rng)"));
    assert_non_null(strstr(text, "Which part of the job does not get faster"));
    assert_non_null(strstr(text, "policy = { tries = 2, penalty = 0.5 }"));
    /* left out: references, the helper only they used, feedback, the
     * private hint, comments */
    static const char *const gone[] = {"\n  answer =", "function speedup", "wrong =",  "why =",
                                       "S = 1 / (f",   "tolerance",        "examples", "--"};
    for (size_t i = 0; i < sizeof gone / sizeof gone[0]; i++)
        if (strstr(text, gone[i]))
            fail_msg("the sealed homework keeps '%s':\n%s", gone[i], text);
    free(text);
    /* the ordering's items: a permutation of the source's, recorded */
    assert_int_equal(r.n_perms, 1);
    assert_string_equal(r.perms[0].qid, "hw.order");
    assert_int_equal(r.perms[0].n, 4);
    int seen = 0;
    for (size_t k = 0; k < 4; k++)
        seen |= 1 << r.perms[0].perm[k];
    assert_int_equal(seen, 15);
    /* the practice lesson is whole; pack.lua names the release */
    const struct grader_release_file *pr = file_of(&r, "practice.lua");
    text = core_xstrndup(pr->data, pr->len);
    assert_non_null(strstr(text, "answer = function(p)"));
    free(text);
    const struct grader_release_file *pl = file_of(&r, "pack.lua");
    text = core_xstrndup(pl->data, pl->len);
    assert_non_null(strstr(text, "release = { salt = \"00112233445566778899aabbccddeeff\""));
    free(text);

    /* A release of the release is refused. */
    struct grader_file files[8];
    for (size_t i = 0; i < r.n_files; i++)
        files[i] = (struct grader_file){r.files[i].path, r.files[i].data, r.files[i].len};
    struct grader_pack *rel = NULL;
    struct core_strlist problems;
    core_strlist_init(&problems);
    assert_int_equal(grader_pack_new(&rel, files, r.n_files, NULL, &problems, &e), CORE_OK);
    assert_true(grader_pack_info(rel)->is_release);
    struct grader_release again;
    assert_int_equal(grader_pack_release(rel, &o, &again, &e), CORE_ERR_USAGE);
    grader_pack_free(rel);
    core_strlist_fini(&problems);
    grader_release_fini(&r);
    grader_pack_free(p);
}

static int setup(void **state)
{
    (void)state;
    const char *base = getenv("WB_TEST_TMP");
    snprintf(tmpdir, sizeof tmpdir, "%s/sealed-XXXXXX", base && *base ? base : "/tmp");
    return mkdtemp(tmpdir) ? 0 : -1;
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
        cmocka_unit_test(test_time_parse), cmocka_unit_test(test_csv_read),
        cmocka_unit_test(test_roster),     cmocka_unit_test(test_checks),
        cmocka_unit_test(test_release),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
