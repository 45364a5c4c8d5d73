/*
 * db_feedback.c — feedback files: what an instructor sends back to one
 * student after reviewing their design answers. One SQLite file of its own
 * schema ("WBFB"), written once in journal_mode=DELETE and read read-only,
 * checked whole as a submission file is (db_submit.c).
 *
 * Design notes for version 1:
 * - meta: format ("warpbench-feedback"), class_uid, user, student_id
 *   (optional), submission (the uid it answers), created_at.
 * - reviews name the attempt by its id in the student's store and the
 *   SHA-256 of its answer, so a review never lands on another answer.
 */
#include "db/db_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FB_FORMAT "warpbench-feedback"
#define WHAT "feedback file"

static const char fb_migration_1[] =
    "PRAGMA application_id = 1463961154;\n" /* DB_FEEDBACK_APPLICATION_ID, "WBFB" */
    "CREATE TABLE meta (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL);\n"
    "CREATE TABLE reviews (\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  uid TEXT NOT NULL UNIQUE,\n"
    "  attempt INTEGER NOT NULL,\n"
    "  pack_id TEXT NOT NULL,\n"
    "  question_id TEXT NOT NULL,\n"
    "  answer_sha TEXT NOT NULL,\n"
    "  score REAL NOT NULL,\n"
    "  max REAL NOT NULL,\n"
    "  comment TEXT NOT NULL,\n"
    "  reviewer TEXT,\n"
    "  reviewed_at TEXT NOT NULL\n"
    ");\n"
    "CREATE TABLE review_scores (\n"
    "  review_id INTEGER NOT NULL REFERENCES reviews(id),\n"
    "  ordinal INTEGER NOT NULL,\n"
    "  concept TEXT NOT NULL,\n"
    "  score REAL NOT NULL,\n"
    "  max REAL NOT NULL,\n"
    "  PRIMARY KEY (review_id, concept)\n"
    ");\n";

/* Version 2 (graded work): grades, the official grade of every graded
 * question (question_id set) and lesson (question_id NULL) of the
 * student's current submission: score NULL while withheld (a flag, a
 * review to come), status and note say which. */
static const char fb_migration_2[] = "CREATE TABLE grades (\n"
                                     "  uid TEXT PRIMARY KEY NOT NULL,\n"
                                     "  pack_id TEXT NOT NULL,\n"
                                     "  lesson_id TEXT NOT NULL,\n"
                                     "  question_id TEXT,\n"
                                     "  score REAL,\n"
                                     "  max REAL NOT NULL,\n"
                                     "  status TEXT NOT NULL,\n"
                                     "  note TEXT NOT NULL,\n"
                                     "  graded_at TEXT NOT NULL\n"
                                     ");\n";

const char *const db_feedback_steps[] = {fb_migration_1, fb_migration_2};
#define fb_migrations db_feedback_steps
_Static_assert(sizeof fb_migrations / sizeof fb_migrations[0] == DB_FEEDBACK_VERSION,
               "one migration per feedback schema version");
_Static_assert(DB_FEEDBACK_APPLICATION_ID == 1463961154, "fb_migration_1 writes it");

void db_feedback_fini(struct db_feedback *f)
{
    if (!f)
        return;
    free(f->class_uid);
    free(f->user);
    free(f->student_id);
    free(f->submission);
    free(f->created_at);
    for (size_t i = 0; i < f->n_reviews; i++) {
        struct db_fb_review *r = &f->reviews[i];
        free(r->pack_id);
        free(r->question_id);
        free(r->answer_sha);
        free(r->comment);
        free(r->reviewer);
        free(r->reviewed_at);
        free(r->uid);
        db_selfscores_free(r->scores, r->n_scores);
    }
    free(f->reviews);
    for (size_t i = 0; i < f->n_grades; i++) {
        struct db_fb_grade *g = &f->grades[i];
        free(g->uid);
        free(g->pack_id);
        free(g->lesson_id);
        free(g->question_id);
        free(g->status);
        free(g->note);
        free(g->graded_at);
    }
    free(f->grades);
    memset(f, 0, sizeof *f);
}

/* ---- writing --------------------------------------------------------------------------- */

int db_feedback_write(const char *path, const struct db_feedback *f, struct core_err *err)
{
    const struct db_open_spec spec = {.app_id = DB_FEEDBACK_APPLICATION_ID,
                                      .what = "a Warpbench feedback file",
                                      .steps = fb_migrations,
                                      .n_steps = DB_FEEDBACK_VERSION};
    struct db *db = NULL;
    int rc = db_open_spec(&db, path, &spec, err);
    if (rc)
        return rc;
    rc = db_tx_begin(db, err);
    if (rc)
        goto out;
    const struct db_meta_pair meta[] = {{"class_uid", f->class_uid},
                                        {"user", f->user},
                                        {"student_id", f->student_id},
                                        {"submission", f->submission},
                                        {"created_at", f->created_at}};
    rc = db_file_meta_write(db, FB_FORMAT, meta, sizeof meta / sizeof meta[0], err);
    static const char sql_review[] =
        "INSERT INTO reviews(uid, attempt, pack_id, question_id, score, max, comment, reviewer, "
        "reviewed_at, answer_sha) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)";
    static const char sql_score[] =
        "INSERT INTO review_scores(review_id, ordinal, concept, score, max) "
        "VALUES (?1, ?2, ?3, ?4, ?5)";
    for (size_t i = 0; i < f->n_reviews && !rc; i++) {
        const struct db_fb_review *r = &f->reviews[i];
        rc = db_file_put(db, sql_review, "a review", err, "tIttddtttt", r->uid, r->attempt,
                         r->pack_id, r->question_id, r->score, r->max, r->comment ? r->comment : "",
                         r->reviewer, r->reviewed_at, r->answer_sha);
        int64_t id = sqlite3_last_insert_rowid(db->h);
        for (size_t k = 0; k < r->n_scores && !rc; k++) {
            const struct db_selfscore *c = &r->scores[k];
            rc = db_file_put(db, sql_score, "a concept score", err, "Iitdd", id, (int)k, c->concept,
                             c->score, c->max);
        }
    }
    static const char sql_grade[] =
        "INSERT INTO grades(uid, pack_id, lesson_id, question_id, score, max, status, note, "
        "graded_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)";
    for (size_t i = 0; i < f->n_grades && !rc; i++) {
        const struct db_fb_grade *g = &f->grades[i];
        rc = db_file_put(db, sql_grade, "a grade", err, "ttttNdttt", g->uid, g->pack_id,
                         g->lesson_id, g->question_id, g->has_score ? g->score : NAN, g->max,
                         g->status, g->note ? g->note : "", g->graded_at);
    }
    rc = db_tx_end(db, rc, err);
out:
    db_close(db);
    return rc;
}

static void grade_row(struct db_frow *r, void *e)
{
    struct db_fb_grade *g = e;
    g->uid = db_frow_text(r, 0, DB_FILE_MAX_LINE);
    g->pack_id = db_frow_id(r, 1);
    g->lesson_id = db_frow_id(r, 2);
    g->question_id = db_frow_text_null(r, 3, DB_FILE_MAX_ID);
    double sc = db_frow_num_null(r, 4);
    g->has_score = !isnan(sc);
    g->score = g->has_score ? sc : 0;
    g->max = db_frow_num(r, 5);
    g->status = db_frow_text(r, 6, DB_FILE_MAX_LINE);
    g->note = db_frow_text(r, 7, DB_FILE_MAX_TEXT);
    g->graded_at = db_frow_text(r, 8, DB_FILE_MAX_LINE);
}

static void grades_free(void *arr, size_t n)
{
    struct db_feedback tmp = {.grades = arr, .n_grades = n};
    db_feedback_fini(&tmp);
}

/* ---- reading --------------------------------------------------------------------------- */

/* Each column read for what the format says it is (db_frow_*): a NULL, a
 * wrong type, an over-long text or a NUL byte refuses the file. */
static void review_row(struct db_frow *r, void *e)
{
    struct db_fb_review *v = e;
    v->attempt = db_frow_int(r, 0, 1, INT64_MAX);
    v->pack_id = db_frow_id(r, 1);
    v->question_id = db_frow_id(r, 2);
    v->answer_sha = db_frow_text(r, 3, 64);
    v->score = db_frow_num(r, 4);
    v->max = db_frow_num(r, 5);
    v->comment = db_frow_text(r, 6, DB_FILE_MAX_TEXT);
    v->reviewer = db_frow_text_null(r, 7, DB_FILE_MAX_LINE);
    v->reviewed_at = db_frow_text(r, 8, DB_FILE_MAX_LINE);
    v->uid = db_frow_text(r, 9, DB_FILE_MAX_LINE);
}

static void reviews_free(void *arr, size_t n)
{
    struct db_feedback tmp = {.reviews = arr, .n_reviews = n};
    db_feedback_fini(&tmp);
}

static void id_row(struct db_frow *r, void *e)
{
    *(int64_t *)e = db_frow_int(r, 0, 1, INT64_MAX);
}

static void ids_free(void *arr, size_t n)
{
    (void)n;
    free(arr);
}

static void score_row(struct db_frow *r, void *e)
{
    struct db_selfscore *c = e;
    c->concept = db_frow_text(r, 0, DB_FILE_MAX_LINE); /* a rubric concept's label */
    c->score = db_frow_num(r, 1);
    c->max = db_frow_num(r, 2);
}

static int read_meta(struct db *db, struct db_feedback *out, struct core_err *err)
{
    const struct db_meta_slot slots[] = {{"class_uid", &out->class_uid},
                                         {"user", &out->user},
                                         {"student_id", &out->student_id},
                                         {"submission", &out->submission},
                                         {"created_at", &out->created_at}};
    int rc = db_file_meta_read(db, WHAT, FB_FORMAT, slots, sizeof slots / sizeof slots[0], err);
    if (!rc && (!out->user || !*out->user || !out->class_uid || !out->created_at))
        rc = db_file_refuse(err, db->path, WHAT, "it names no student, class or time");
    return rc;
}

int db_feedback_read(const char *path, struct db_feedback *out, struct core_err *err)
{
    const struct db_open_spec spec = {.app_id = DB_FEEDBACK_APPLICATION_ID,
                                      .what = "a Warpbench feedback file",
                                      .steps = fb_migrations,
                                      .n_steps = DB_FEEDBACK_VERSION,
                                      .read_only = true};
    return db_feedback_read_as(path, &spec, out, err);
}

int db_feedback_read_as(const char *path, const struct db_open_spec *spec, struct db_feedback *out,
                        struct core_err *err)
{
    memset(out, 0, sizeof *out);
    struct db *db = NULL;
    int rc = db_open_spec(&db, path, spec, err);
    if (rc)
        return rc;
    rc = db_file_check(db, WHAT, err);
    if (!rc)
        rc = read_meta(db, out, err);
    void *arr = NULL;
    if (!rc) {
        rc = db_file_rows(db, WHAT, "reviews", DB_FILE_MAX_ROWS,
                          "SELECT attempt, pack_id, question_id, answer_sha, score, max, "
                          "comment, reviewer, reviewed_at, uid FROM reviews ORDER BY id",
                          sizeof *out->reviews, review_row, reviews_free, &arr, &out->n_reviews,
                          err, "");
        out->reviews = arr;
    }
    int64_t *ids = NULL;
    size_t n_ids = 0;
    if (!rc) {
        rc = db_file_rows(db, WHAT, "reviews", DB_FILE_MAX_ROWS,
                          "SELECT id FROM reviews ORDER BY id", sizeof *ids, id_row, ids_free, &arr,
                          &n_ids, err, "");
        ids = arr;
    }
    for (size_t i = 0; i < out->n_reviews && i < n_ids && !rc; i++) {
        struct db_fb_review *r = &out->reviews[i];
        rc = db_file_rows(db, WHAT, "review_scores", 1000,
                          "SELECT concept, score, max FROM review_scores WHERE review_id = ?1 "
                          "ORDER BY ordinal",
                          sizeof *r->scores, score_row, db_selfscores_free_rows, &arr, &r->n_scores,
                          err, "I", ids[i]);
        r->scores = arr;
        if (!rc && (r->max <= 0 || r->score < 0 || r->score > r->max + 1e-9))
            rc = db_file_refuse(err, path, WHAT, "review %s breaks the format", r->uid);
    }
    free(ids);
    if (!rc) {
        rc = db_file_rows(db, WHAT, "grades", DB_FILE_MAX_ROWS,
                          "SELECT uid, pack_id, lesson_id, question_id, score, max, status, note, "
                          "graded_at FROM grades ORDER BY rowid",
                          sizeof *out->grades, grade_row, grades_free, &arr, &out->n_grades, err,
                          "");
        out->grades = arr;
    }
    for (size_t i = 0; i < out->n_grades && !rc; i++) {
        const struct db_fb_grade *g = &out->grades[i];
        if (g->max < 0 || (g->has_score && (g->score < 0 || g->score > g->max + 1e-9)))
            rc = db_file_refuse(err, path, WHAT, "grade %zu breaks the format", i + 1);
    }
    db_close(db);
    if (rc)
        db_feedback_fini(out);
    return rc;
}
