/*
 * db_class_read.c — the class store read back for the gradebook, item
 * analysis and the review queue: students with their current submission,
 * their attempts (each with its latest review), self-scores, give-ups,
 * exam sittings and lab runs. Written by db_class.c (imports) and
 * db_class_review.c (reviews).
 */
#include "db/db_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- reading --------------------------------------------------------------------------- */

void db_class_students_free(struct db_class_student *s, size_t n)
{
    if (!s)
        return;
    for (size_t i = 0; i < n; i++) {
        free(s[i].key);
        free(s[i].user);
        free(s[i].student_id);
        free(s[i].uid);
        free(s[i].submitted_at);
        free(s[i].imported_at);
        free(s[i].file);
    }
    free(s);
}

static const char sql_students[] =
    "SELECT s.id, s.key, s.user, s.student_id, b.id, b.uid, b.submitted_at, b.imported_at, "
    "  b.file, b.n_attempts, b.n_agree, b.n_disagree, b.n_runs_flagged, b.n_failed, b.n_skipped "
    "FROM students s JOIN submissions b ON b.id = s.current ORDER BY s.key";

static void student_row(sqlite3_stmt *st, void *e)
{
    struct db_class_student *s = e;
    s->id = sqlite3_column_int64(st, 0);
    s->key = db_col_dup(st, 1);
    s->user = db_col_dup(st, 2);
    s->student_id = db_col_dup(st, 3);
    s->submission = sqlite3_column_int64(st, 4);
    s->uid = db_col_dup(st, 5);
    s->submitted_at = db_col_dup(st, 6);
    s->imported_at = db_col_dup(st, 7);
    s->file = db_col_dup(st, 8);
    s->n_attempts = sqlite3_column_int(st, 9);
    s->n_agree = sqlite3_column_int(st, 10);
    s->n_disagree = sqlite3_column_int(st, 11);
    s->n_runs_flagged = sqlite3_column_int(st, 12);
    s->n_failed = sqlite3_column_int(st, 13);
    s->n_skipped = sqlite3_column_int(st, 14);
}

static void students_free_rows(void *a, size_t n)
{
    db_class_students_free(a, n);
}

int db_class_students(struct db *cs, struct db_class_student **out, size_t *n, struct core_err *err)
{
    void *rows;
    int rc = db_list(cs, sql_students, sizeof **out, student_row, students_free_rows, &rows, n,
                     "listing students", err, "");
    *out = rows;
    return rc;
}

void db_class_attempt_fini(struct db_class_attempt *a)
{
    if (!a)
        return;
    free(a->pack_id);
    free(a->question_id);
    free(a->answer);
    free(a->answer_sha);
    free(a->created_at);
    free(a->params_json);
    free(a->parsed);
    free(a->feedback);
    free(a->flag);
    free(a->rv_comment);
    memset(a, 0, sizeof *a);
}

void db_class_attempts_free(struct db_class_attempt *a, size_t n)
{
    if (!a)
        return;
    for (size_t i = 0; i < n; i++)
        db_class_attempt_fini(&a[i]);
    free(a);
}

#define CLASS_ATTEMPT_COLS                                                                         \
    "SELECT a.id, s.id, a.src_id, a.pack_id, a.question_id, a.variant, a.answer, a.answer_sha, "   \
    "  a.certainty, a.created_at, a.after_giveup, a.lab_run, a.params_json, a.rec_valid, "         \
    "  a.rec_score, a.rec_max, a.graded, a.valid, a.score, a.max, a.correct, a.parsed, "           \
    "  a.feedback, a.mistake, a.agree, a.flag, v.id IS NOT NULL, v.score, v.max, v.comment, "      \
    "  a.sealed, a.seq, coalesce(a.late_factor, 1) "                                               \
    "FROM attempts a JOIN submissions b ON b.id = a.submission "                                   \
    "JOIN students s ON s.id = b.student "                                                         \
    "LEFT JOIN reviews v ON v.id = (SELECT r.id FROM reviews r WHERE r.student = s.id "            \
    "  AND r.pack_id = a.pack_id AND r.question_id = a.question_id "                               \
    "  AND r.src_attempt = a.src_id AND r.answer_sha = a.answer_sha ORDER BY r.id DESC LIMIT 1) "

static const char sql_attempt_list[] =
    CLASS_ATTEMPT_COLS "WHERE a.submission = s.current AND (?1 IS NULL OR a.pack_id = ?1) "
                       "AND (?2 IS NULL OR a.question_id = ?2) AND (?3 = 0 OR s.id = ?3) "
                       "ORDER BY s.key, a.pack_id, a.question_id, a.src_id";
static const char sql_attempt_get[] = CLASS_ATTEMPT_COLS "WHERE a.id = ?1";

static void class_attempt_row(sqlite3_stmt *st, void *e)
{
    struct db_class_attempt *a = e;
    a->id = sqlite3_column_int64(st, 0);
    a->student = sqlite3_column_int64(st, 1);
    a->src_id = sqlite3_column_int64(st, 2);
    a->pack_id = db_col_dup(st, 3);
    a->question_id = db_col_dup(st, 4);
    a->variant = sqlite3_column_int(st, 5);
    a->answer = db_col_dup(st, 6);
    a->answer_sha = db_col_dup(st, 7);
    a->certainty = sqlite3_column_int(st, 8);
    a->created_at = db_col_dup(st, 9);
    a->after_giveup = sqlite3_column_int(st, 10) != 0;
    a->lab_run = sqlite3_column_int64(st, 11);
    a->params_json = db_col_dup(st, 12);
    a->rec_valid = sqlite3_column_int(st, 13) != 0;
    a->rec_score = sqlite3_column_double(st, 14);
    a->rec_max = sqlite3_column_double(st, 15);
    a->graded = sqlite3_column_int(st, 16) != 0;
    a->valid = sqlite3_column_int(st, 17) != 0;
    a->score = sqlite3_column_double(st, 18);
    a->max = sqlite3_column_double(st, 19);
    a->correct = sqlite3_column_int(st, 20) != 0;
    a->parsed = db_col_dup(st, 21);
    a->feedback = db_col_dup(st, 22);
    a->mistake = sqlite3_column_int(st, 23) != 0;
    a->agree = sqlite3_column_int(st, 24) != 0;
    a->flag = db_col_dup(st, 25);
    a->reviewed = sqlite3_column_int(st, 26) != 0;
    a->rv_score = sqlite3_column_double(st, 27);
    a->rv_max = sqlite3_column_double(st, 28);
    a->rv_comment = db_col_dup(st, 29);
    a->sealed = sqlite3_column_int(st, 30) != 0;
    a->seq = sqlite3_column_int64(st, 31);
    a->late_factor = sqlite3_column_double(st, 32);
}

static void class_attempts_free_rows(void *a, size_t n)
{
    db_class_attempts_free(a, n);
}

int db_class_attempt_list(struct db *cs, const char *pack_id, const char *question_id,
                          int64_t student, struct db_class_attempt **out, size_t *n,
                          struct core_err *err)
{
    void *rows;
    int rc =
        db_list(cs, sql_attempt_list, sizeof **out, class_attempt_row, class_attempts_free_rows,
                &rows, n, "listing class attempts", err, "ttI", pack_id, question_id, student);
    *out = rows;
    return rc;
}

int db_class_attempt_get(struct db *cs, int64_t id, struct db_class_attempt *out,
                         struct core_err *err)
{
    memset(out, 0, sizeof *out);
    sqlite3_stmt *st;
    int rc = db_stmt(cs, sql_attempt_get, &st, err);
    if (rc)
        return rc;
    void *rows;
    size_t n = 0;
    rc = db_rows_read(cs, st, db_bindf(st, "I", id), sizeof *out, class_attempt_row,
                      class_attempts_free_rows, &rows, &n, err, "reading class attempt %lld",
                      (long long)id);
    if (rc)
        return rc;
    if (n == 0)
        return core_err_set(err, CORE_ERR_NOTFOUND, "no attempt %lld in the class store",
                            (long long)id);
    *out = *(struct db_class_attempt *)rows;
    free(rows);
    return 0;
}

static const char sql_selfscores[] =
    "SELECT concept, score, max FROM selfscores WHERE attempt = ?1 ORDER BY ordinal";

int db_class_selfscores(struct db *cs, int64_t attempt, struct db_selfscore **out, size_t *n,
                        struct core_err *err)
{
    void *rows;
    int rc = db_list(cs, sql_selfscores, sizeof **out, db_selfscore_read_row,
                     db_selfscores_free_rows, &rows, n, "reading self-scores", err, "I", attempt);
    *out = rows;
    return rc;
}

void db_class_marks_free(struct db_class_mark *m, size_t n)
{
    if (!m)
        return;
    for (size_t i = 0; i < n; i++) {
        free(m[i].pack_id);
        free(m[i].id);
    }
    free(m);
}

static const char sql_giveups[] =
    "SELECT s.id, g.pack_id, g.question_id, 1 FROM students s "
    "JOIN giveups g ON g.submission = s.current WHERE ?1 IS NULL OR g.pack_id = ?1 "
    "GROUP BY s.id, g.pack_id, g.question_id ORDER BY s.id, g.pack_id, g.question_id";
static const char sql_exams[] =
    "SELECT s.id, x.pack_id, x.lesson_id, "
    "  x.submitted_at IS NOT NULL OR (x.deadline IS NOT NULL AND x.deadline <= ?2) "
    "FROM students s JOIN exams x ON x.submission = s.current "
    "WHERE ?1 IS NULL OR x.pack_id = ?1 ORDER BY s.id, x.pack_id, x.lesson_id";

static void mark_row(sqlite3_stmt *st, void *e)
{
    struct db_class_mark *m = e;
    m->student = sqlite3_column_int64(st, 0);
    m->pack_id = db_col_dup(st, 1);
    m->id = db_col_dup(st, 2);
    m->over = sqlite3_column_int(st, 3) != 0;
}

static void marks_free_rows(void *a, size_t n)
{
    db_class_marks_free(a, n);
}

int db_class_giveups(struct db *cs, const char *pack_id, struct db_class_mark **out, size_t *n,
                     struct core_err *err)
{
    void *rows;
    int rc = db_list(cs, sql_giveups, sizeof **out, mark_row, marks_free_rows, &rows, n,
                     "listing give-ups", err, "t", pack_id);
    *out = rows;
    return rc;
}

int db_class_exams(struct db *cs, const char *pack_id, struct db_class_mark **out, size_t *n,
                   struct core_err *err)
{
    char now[32];
    db_now(now);
    void *rows;
    int rc = db_list(cs, sql_exams, sizeof **out, mark_row, marks_free_rows, &rows, n,
                     "listing exam sittings", err, "tt", pack_id, now);
    *out = rows;
    return rc;
}

void db_class_runs_free(struct db_class_run *r, size_t n)
{
    if (!r)
        return;
    for (size_t i = 0; i < n; i++) {
        free(r[i].lab);
        free(r[i].problems);
    }
    free(r);
}

static const char sql_runs[] =
    "SELECT r.id, s.id, r.src_id, r.lab, r.problems FROM students s "
    "JOIN lab_runs r ON r.submission = s.current ORDER BY s.key, r.src_id";

static void run_row(sqlite3_stmt *st, void *e)
{
    struct db_class_run *r = e;
    r->id = sqlite3_column_int64(st, 0);
    r->student = sqlite3_column_int64(st, 1);
    r->src_id = sqlite3_column_int64(st, 2);
    r->lab = db_col_dup(st, 3);
    r->problems = db_col_dup(st, 4);
}

static void runs_free_rows(void *a, size_t n)
{
    db_class_runs_free(a, n);
}

int db_class_runs(struct db *cs, struct db_class_run **out, size_t *n, struct core_err *err)
{
    void *rows;
    int rc = db_list(cs, sql_runs, sizeof **out, run_row, runs_free_rows, &rows, n,
                     "listing lab runs", err, "");
    *out = rows;
    return rc;
}

/* ---- a submission back from the class store (class regrade) ----------------------------- */

static void sub_meta_row(sqlite3_stmt *st, void *e)
{
    struct db_class_stored *s = e;
    s->id = sqlite3_column_int64(st, 0);
    s->sub.uid = db_col_dup(st, 1);
    s->sub.user = db_col_dup(st, 2);
    s->sub.student_id = db_col_dup(st, 3);
    s->sub.created_at = db_col_dup(st, 4);
    s->sub.warpbench = db_col_dup(st, 5);
    s->sub.store_uid = db_col_dup(st, 6);
    s->digest = db_col_dup(st, 7);
    s->file = db_col_dup(st, 8);
    s->grader_rev = db_col_dup(st, 9);
}

static void sub_pack_row(sqlite3_stmt *st, void *e)
{
    struct db_sub_pack *p = e;
    p->id = db_col_dup(st, 0);
    p->version = db_col_dup(st, 1);
    p->digest = db_col_dup(st, 2);
    p->title = db_col_dup(st, 0);
}

static void sub_attempt_row(sqlite3_stmt *st, void *e)
{
    struct db_sub_attempt *a = e;
    a->id = sqlite3_column_int64(st, 0);
    a->pack_id = db_col_dup(st, 1);
    a->question_id = db_col_dup(st, 2);
    a->variant = sqlite3_column_int(st, 3);
    a->answer = db_col_dup(st, 4);
    a->certainty = sqlite3_column_int(st, 5);
    a->created_at = db_col_dup(st, 6);
    a->params_json = db_col_dup(st, 7);
    a->grader_rev = db_col_dup(st, 8);
    a->pack_version = db_col_dup(st, 9);
    a->pack_digest = db_col_dup(st, 10);
    a->valid = sqlite3_column_int(st, 11) != 0;
    a->score = sqlite3_column_double(st, 12);
    a->max = sqlite3_column_double(st, 13);
    a->correct = a->valid && a->max > 0 && a->score >= a->max;
    a->feedback = core_xstrdup("");
    a->lab_run = sqlite3_column_int64(st, 14);
    a->sealed = sqlite3_column_int(st, 15) != 0;
    a->seq = sqlite3_column_int64(st, 16);
}

static void sub_giveup_row(sqlite3_stmt *st, void *e)
{
    struct db_sub_giveup *g = e;
    g->id = sqlite3_column_int64(st, 0);
    g->pack_id = db_col_dup(st, 1);
    g->question_id = db_col_dup(st, 2);
    g->variant = sqlite3_column_int(st, 3);
    g->last_attempt = sqlite3_column_int64(st, 4);
    g->created_at = db_col_dup(st, 5);
}

static void sub_selfscore_row(sqlite3_stmt *st, void *e)
{
    struct db_sub_selfscore *c = e;
    c->attempt_id = sqlite3_column_int64(st, 0);
    c->ordinal = sqlite3_column_int(st, 1);
    c->concept = db_col_dup(st, 2);
    c->score = sqlite3_column_double(st, 3);
    c->max = sqlite3_column_double(st, 4);
}

static void sub_rating_row(sqlite3_stmt *st, void *e)
{
    struct db_sub_rating *r = e;
    r->item = db_col_dup(st, 0);
    r->score = sqlite3_column_double(st, 1);
    r->max = sqlite3_column_double(st, 2);
    r->created_at = db_col_dup(st, 3);
}

static void sub_exam_row(sqlite3_stmt *st, void *e)
{
    struct db_sub_exam *x = e;
    x->pack_id = db_col_dup(st, 0);
    x->lesson_id = db_col_dup(st, 1);
    x->started_at = db_col_dup(st, 2);
    x->deadline = db_col_dup(st, 3);
    x->submitted_at = db_col_dup(st, 4);
}

static void sub_run_row(sqlite3_stmt *st, void *e)
{
    struct db_sub_run *r = e;
    r->id = sqlite3_column_int64(st, 0);
    r->lab = db_col_dup(st, 1);
    r->params_json = db_col_dup(st, 2);
    r->machine_json = db_col_dup(st, 3);
    r->summary_json = db_col_dup(st, 4);
    r->status = db_col_dup(st, 5);
    r->started_at = db_col_dup(st, 6);
    r->ended_at = db_col_dup(st, 7);
    r->error = db_col_dup(st, 8);
}

static void sub_sample_row(sqlite3_stmt *st, void *e)
{
    struct db_labsample *v = e;
    v->series = db_col_dup(st, 0);
    v->step = sqlite3_column_int64(st, 1);
    v->value = sqlite3_column_type(st, 2) == SQLITE_NULL ? NAN : sqlite3_column_double(st, 2);
    v->t = sqlite3_column_double(st, 3);
}

/* The free functions for the rows above: through a submission holding them. */
#define SUB_FREE(name, field, count)                                                               \
    static void name(void *arr, size_t n)                                                          \
    {                                                                                              \
        struct db_submission tmp = {0};                                                            \
        tmp.field = arr;                                                                           \
        tmp.count = n;                                                                             \
        db_submission_fini(&tmp);                                                                  \
    }
SUB_FREE(sub_packs_free, packs, n_packs)
SUB_FREE(sub_attempts_free, attempts, n_attempts)
SUB_FREE(sub_giveups_free, giveups, n_giveups)
SUB_FREE(sub_selfscores_free, selfscores, n_selfscores)
SUB_FREE(sub_ratings_free, ratings, n_ratings)
SUB_FREE(sub_exams_free, exams, n_exams)
SUB_FREE(sub_runs_free, runs, n_runs)

static void sub_samples_free(void *arr, size_t n)
{
    db_labsamples_free(arr, n);
}

static void stored_free_rows(void *arr, size_t n)
{
    struct db_class_stored *s = arr;
    for (size_t i = 0; i < n; i++)
        db_class_stored_fini(&s[i]);
    free(arr);
}

void db_class_stored_fini(struct db_class_stored *s)
{
    if (!s)
        return;
    db_submission_fini(&s->sub);
    free(s->digest);
    free(s->file);
    free(s->grader_rev);
    memset(s, 0, sizeof *s);
}

int db_class_stored_load(struct db *cs, int64_t submission, struct db_class_stored *out,
                         struct core_err *err)
{
    memset(out, 0, sizeof *out);
    void *arr = NULL;
    size_t n = 0;
    int rc = db_list(cs,
                     "SELECT id, uid, user, student_id, submitted_at, warpbench, store_uid, "
                     "digest, file, grader_rev FROM submissions WHERE id = ?1",
                     sizeof *out, sub_meta_row, stored_free_rows, &arr, &n, "reading a submission",
                     err, "I", submission);
    if (rc)
        return rc;
    if (n == 0) {
        free(arr);
        return core_err_set(err, CORE_ERR_NOTFOUND, "no submission %lld in the class store",
                            (long long)submission);
    }
    *out = *(struct db_class_stored *)arr;
    free(arr);
    struct db_submission *s = &out->sub;
#define LOAD(sql, field, count, row, freefn, what)                                                 \
    do {                                                                                           \
        if (!rc) {                                                                                 \
            rc = db_list(cs, sql, sizeof *s->field, row, freefn, &arr, &s->count, what, err, "I",  \
                         submission);                                                              \
            s->field = arr;                                                                        \
        }                                                                                          \
    } while (0)
    LOAD("SELECT pack_id, version, digest FROM sub_packs WHERE submission = ?1 ORDER BY pack_id",
         packs, n_packs, sub_pack_row, sub_packs_free, "reading submitted packs");
    LOAD("SELECT a.src_id, a.pack_id, a.question_id, a.variant, a.answer, a.certainty, "
         "a.created_at, coalesce(a.rec_params, a.params_json), a.rec_grader, "
         "coalesce(a.rec_version, p.version), coalesce(a.rec_digest, p.digest), a.rec_valid, "
         "a.rec_score, a.rec_max, coalesce(r.src_id, 0), a.sealed, a.seq FROM attempts a "
         "JOIN sub_packs p ON p.submission = a.submission AND p.pack_id = a.pack_id "
         "LEFT JOIN lab_runs r ON r.id = a.lab_run WHERE a.submission = ?1 ORDER BY a.src_id",
         attempts, n_attempts, sub_attempt_row, sub_attempts_free, "reading attempts");
    LOAD("SELECT src_id, pack_id, question_id, variant, last_attempt, created_at FROM giveups "
         "WHERE submission = ?1 ORDER BY src_id",
         giveups, n_giveups, sub_giveup_row, sub_giveups_free, "reading give-ups");
    LOAD("SELECT a.src_id, s.ordinal, s.concept, s.score, s.max FROM selfscores s "
         "JOIN attempts a ON a.id = s.attempt WHERE a.submission = ?1 ORDER BY a.src_id, "
         "s.ordinal",
         selfscores, n_selfscores, sub_selfscore_row, sub_selfscores_free, "reading self-scores");
    LOAD("SELECT item, score, max, created_at FROM ratings WHERE submission = ?1 ORDER BY rowid",
         ratings, n_ratings, sub_rating_row, sub_ratings_free, "reading self-ratings");
    LOAD("SELECT pack_id, lesson_id, started_at, deadline, submitted_at FROM exams "
         "WHERE submission = ?1 ORDER BY pack_id, lesson_id",
         exams, n_exams, sub_exam_row, sub_exams_free, "reading exam sittings");
    LOAD("SELECT src_id, lab, params_json, machine_json, summary_json, status, started_at, "
         "ended_at, error FROM lab_runs WHERE submission = ?1 ORDER BY src_id",
         runs, n_runs, sub_run_row, sub_runs_free, "reading lab runs");
#undef LOAD
    for (size_t i = 0; i < s->n_runs && !rc; i++) {
        rc = db_list(cs,
                     "SELECT series, step, value, t FROM lab_samples WHERE run = (SELECT id FROM "
                     "lab_runs WHERE submission = ?1 AND src_id = ?2) ORDER BY seq",
                     sizeof *s->runs[i].samples, sub_sample_row, sub_samples_free, &arr,
                     &s->runs[i].n_samples, "reading lab samples", err, "II", submission,
                     s->runs[i].id);
        s->runs[i].samples = arr;
    }
    if (rc)
        db_class_stored_fini(out);
    return rc;
}

int db_copy_to(struct db *db, const char *path, struct core_err *err)
{
    sqlite3_stmt *st = NULL;
    int src = sqlite3_prepare_v2(db->h, "VACUUM INTO ?1", -1, &st, NULL);
    if (src == SQLITE_OK)
        src = sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
    if (src == SQLITE_OK)
        src = sqlite3_step(st);
    int rc = src == SQLITE_DONE ? 0 : db_fail(db, err, src, "copying %s to %s", db->path, path);
    sqlite3_finalize(st);
    return rc;
}
