/*
 * db_class_read.c — the class store read back for the gradebook, item
 * analysis and the review queue: students with their current submission,
 * their attempts (each with its latest review), self-scores, give-ups,
 * exam sittings and lab runs. Written by db_class.c (imports) and
 * db_class_review.c (reviews).
 */
#include "db/db_internal.h"

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
