/*
 * db_class.c — the class store: an instructor's record of every student
 * submission imported, each attempt with the grade the student's machine
 * recorded beside the instructor's re-grade, lab runs with what the
 * plausibility checks found, and reviews of design answers. This file holds
 * its schema, opening it and importing a submission; reading it back is
 * db_class_read.c, reviews db_class_review.c.
 *
 * One transaction per submission: a kill at any moment of an import
 * leaves the store as it was before that submission (WAL, FULL sync), and
 * importing the file again completes it.
 *
 * Design notes for version 1:
 * - meta.uid: a random id of this class store, so the uid of a review
 *   ("<class uid>:<review id>") is unique in every student's store.
 * - students are keyed by the student id they submit with, else their user
 *   name; students.current is the submission that counts: the newest made
 *   (submitted_at, then the last imported).
 * - attempts keep src_id, their id in the student's store. A review names
 *   (student, question, src_attempt, answer_sha), not a class attempt id,
 *   so it carries over to the same answer in a later submission of the
 *   same student, and never to another answer.
 * - submissions, their attempts and runs may be deleted and re-inserted
 *   (class import --force re-grades a file again); reviews are never
 *   changed: the latest counts.
 */
#include "db/db_internal.h"

#include <libgen.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char class_migration_1[] =
    "PRAGMA application_id = 1463960396;\n" /* DB_CLASS_APPLICATION_ID, "WBCL" */
    "CREATE TABLE meta (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL);\n"
    "INSERT INTO meta(key, value) VALUES ('uid', lower(hex(randomblob(16))));\n"
    "CREATE TABLE students (\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  key TEXT NOT NULL UNIQUE,\n"
    "  user TEXT NOT NULL,\n"
    "  student_id TEXT,\n"
    "  current INTEGER\n" /* submissions.id; NULL while none */
    ");\n"
    "CREATE TABLE submissions (\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  student INTEGER NOT NULL REFERENCES students(id),\n"
    "  uid TEXT NOT NULL UNIQUE,\n"
    "  digest TEXT NOT NULL,\n"
    "  file TEXT NOT NULL,\n"
    "  user TEXT NOT NULL,\n"
    "  student_id TEXT,\n"
    "  submitted_at TEXT NOT NULL,\n"
    "  imported_at TEXT NOT NULL,\n"
    "  warpbench TEXT,\n"
    "  grader_rev TEXT,\n" /* the instructor's grader revision it was re-graded with */
    "  n_attempts INTEGER NOT NULL,\n"
    "  n_agree INTEGER NOT NULL,\n"
    "  n_disagree INTEGER NOT NULL,\n"
    "  n_lab_regraded INTEGER NOT NULL,\n"
    "  n_runs_flagged INTEGER NOT NULL,\n"
    "  n_failed INTEGER NOT NULL,\n"
    "  n_skipped INTEGER NOT NULL\n"
    ");\n"
    "CREATE INDEX submissions_by_student ON submissions(student, submitted_at, id);\n"
    "CREATE TABLE sub_packs (\n"
    "  submission INTEGER NOT NULL REFERENCES submissions(id),\n"
    "  pack_id TEXT NOT NULL,\n"
    "  version TEXT NOT NULL,\n"
    "  digest TEXT NOT NULL,\n"
    "  graded_version TEXT,\n" /* the instructor's version, NULL: not in their store */
    "  PRIMARY KEY (submission, pack_id)\n"
    ");\n"
    "CREATE TABLE lab_runs (\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  submission INTEGER NOT NULL REFERENCES submissions(id),\n"
    "  src_id INTEGER NOT NULL,\n"
    "  lab TEXT NOT NULL,\n"
    "  params_json TEXT NOT NULL,\n"
    "  machine_json TEXT NOT NULL,\n"
    "  summary_json TEXT,\n"
    "  status TEXT NOT NULL,\n"
    "  started_at TEXT NOT NULL,\n"
    "  ended_at TEXT,\n"
    "  error TEXT,\n"
    "  problems TEXT,\n" /* plausibility problems, NULL when plausible */
    "  UNIQUE (submission, src_id)\n"
    ");\n"
    "CREATE TABLE lab_samples (\n"
    "  run INTEGER NOT NULL REFERENCES lab_runs(id),\n"
    "  seq INTEGER NOT NULL,\n"
    "  series TEXT NOT NULL,\n"
    "  step INTEGER NOT NULL,\n"
    "  value REAL,\n"
    "  t REAL NOT NULL,\n"
    "  PRIMARY KEY (run, seq)\n"
    ") WITHOUT ROWID;\n"
    "CREATE TABLE attempts (\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  submission INTEGER NOT NULL REFERENCES submissions(id),\n"
    "  src_id INTEGER NOT NULL,\n"
    "  pack_id TEXT NOT NULL,\n"
    "  question_id TEXT NOT NULL,\n"
    "  variant INTEGER NOT NULL,\n"
    "  answer TEXT NOT NULL,\n"
    "  answer_sha TEXT,\n" /* design answers: what a review names */
    "  certainty INTEGER,\n"
    "  created_at TEXT NOT NULL,\n"
    "  after_giveup INTEGER NOT NULL,\n"
    "  lab_run INTEGER REFERENCES lab_runs(id),\n"
    "  rec_valid INTEGER NOT NULL,\n"
    "  rec_score REAL NOT NULL,\n"
    "  rec_max REAL NOT NULL,\n"
    "  rec_version TEXT,\n"
    "  rec_digest TEXT,\n" /* NULL: the submission's digest of the pack (sub_packs) */
    "  rec_grader TEXT,\n"
    "  rec_params TEXT,\n" /* NULL: the same as params_json */
    "  graded INTEGER NOT NULL,\n"
    "  valid INTEGER,\n"
    "  score REAL,\n"
    "  max REAL,\n"
    "  correct INTEGER,\n"
    "  parsed TEXT,\n"
    "  feedback TEXT,\n"
    "  mistake INTEGER,\n"
    "  params_json TEXT,\n"
    "  agree INTEGER NOT NULL,\n"
    "  flag TEXT,\n"
    "  UNIQUE (submission, src_id)\n"
    ");\n"
    "CREATE INDEX attempts_by_question ON attempts(pack_id, question_id);\n"
    "CREATE TABLE selfscores (\n"
    "  attempt INTEGER NOT NULL REFERENCES attempts(id),\n"
    "  ordinal INTEGER NOT NULL,\n"
    "  concept TEXT NOT NULL,\n"
    "  score REAL NOT NULL,\n"
    "  max REAL NOT NULL,\n"
    "  PRIMARY KEY (attempt, concept)\n"
    ");\n"
    "CREATE TABLE giveups (\n"
    "  submission INTEGER NOT NULL REFERENCES submissions(id),\n"
    "  src_id INTEGER NOT NULL,\n"
    "  pack_id TEXT NOT NULL,\n"
    "  question_id TEXT NOT NULL,\n"
    "  variant INTEGER NOT NULL,\n"
    "  last_attempt INTEGER NOT NULL,\n"
    "  created_at TEXT NOT NULL\n"
    ");\n"
    "CREATE INDEX giveups_by_submission ON giveups(submission, pack_id, question_id);\n"
    "CREATE TABLE ratings (\n"
    "  submission INTEGER NOT NULL REFERENCES submissions(id),\n"
    "  item TEXT NOT NULL,\n"
    "  score REAL NOT NULL,\n"
    "  max REAL NOT NULL,\n"
    "  created_at TEXT NOT NULL\n"
    ");\n"
    "CREATE INDEX ratings_by_submission ON ratings(submission);\n"
    "CREATE TABLE exams (\n"
    "  submission INTEGER NOT NULL REFERENCES submissions(id),\n"
    "  pack_id TEXT NOT NULL,\n"
    "  lesson_id TEXT NOT NULL,\n"
    "  started_at TEXT NOT NULL,\n"
    "  deadline TEXT,\n"
    "  submitted_at TEXT,\n"
    "  PRIMARY KEY (submission, pack_id, lesson_id)\n"
    ");\n"
    "CREATE TABLE reviews (\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  student INTEGER NOT NULL REFERENCES students(id),\n"
    "  pack_id TEXT NOT NULL,\n"
    "  question_id TEXT NOT NULL,\n"
    "  src_attempt INTEGER NOT NULL,\n"
    "  answer_sha TEXT NOT NULL,\n"
    "  score REAL NOT NULL CHECK (score >= 0),\n"
    "  max REAL NOT NULL CHECK (max > 0 AND score <= max),\n"
    "  comment TEXT NOT NULL,\n"
    "  reviewer TEXT,\n"
    "  created_at TEXT NOT NULL\n"
    ");\n"
    "CREATE INDEX reviews_by_answer ON reviews(student, pack_id, question_id, src_attempt, id);\n"
    "CREATE TRIGGER reviews_no_update BEFORE UPDATE ON reviews\n"
    "BEGIN SELECT RAISE(ABORT, 'reviews are append-only'); END;\n"
    "CREATE TABLE review_scores (\n"
    "  review INTEGER NOT NULL REFERENCES reviews(id),\n"
    "  ordinal INTEGER NOT NULL,\n"
    "  concept TEXT NOT NULL,\n"
    "  score REAL NOT NULL,\n"
    "  max REAL NOT NULL,\n"
    "  PRIMARY KEY (review, concept)\n"
    ");\n";

/* Version 2 (graded work: sealed answers, integrity flags, a roster):
 * - submissions.store_uid: the student store a file came from; two stores
 *   claiming one student are flagged, never silently merged.
 * - attempts.sealed/seq: a sealed answer (graded here only) and its place
 *   among the student's attempts at the pack; late_days/late_factor: how
 *   late it was and what the late rule leaves of its score (NULL: on time).
 * - flags: what an import found that a grade must not rest on, each with a
 *   key that names it across imports ("kind|pack|question|attempt"); a
 *   blocking flag withholds the credit it names until the instructor clears
 *   it. clears: the instructor's clearing, by student and key, so it holds
 *   for the same finding in a later import or re-grade.
 * - roster: the class list (student id, name, email, section, login) the
 *   gradebook's identity columns come from. */
static const char class_migration_2[] =
    "ALTER TABLE submissions ADD COLUMN store_uid TEXT;\n"
    "ALTER TABLE attempts ADD COLUMN sealed INTEGER NOT NULL DEFAULT 0;\n"
    "ALTER TABLE attempts ADD COLUMN seq INTEGER;\n"
    "ALTER TABLE attempts ADD COLUMN late_days REAL;\n"
    "ALTER TABLE attempts ADD COLUMN late_factor REAL;\n"
    "CREATE TABLE flags (\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  submission INTEGER NOT NULL REFERENCES submissions(id),\n"
    "  student INTEGER NOT NULL REFERENCES students(id),\n"
    "  key TEXT NOT NULL,\n"
    "  kind TEXT NOT NULL,\n"
    "  pack_id TEXT,\n"
    "  lesson_id TEXT,\n"
    "  question_id TEXT,\n"
    "  src_attempt INTEGER,\n"
    "  blocking INTEGER NOT NULL CHECK (blocking IN (0, 1)),\n"
    "  reason TEXT NOT NULL,\n"
    "  created_at TEXT NOT NULL\n"
    ");\n"
    "CREATE INDEX flags_by_submission ON flags(submission);\n"
    "CREATE INDEX flags_by_student ON flags(student, key);\n"
    "CREATE TABLE clears (\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  student INTEGER NOT NULL REFERENCES students(id),\n"
    "  key TEXT NOT NULL,\n"
    "  why TEXT NOT NULL,\n"
    "  who TEXT,\n"
    "  cleared_at TEXT NOT NULL\n"
    ");\n"
    "CREATE INDEX clears_by_student ON clears(student, key);\n"
    "CREATE TABLE roster (\n"
    "  student_id TEXT PRIMARY KEY NOT NULL,\n"
    "  name TEXT,\n"
    "  email TEXT,\n"
    "  section TEXT,\n"
    "  login TEXT\n"
    ");\n";

/* Version 3: attempts found by question and time, so an import finds the
 * attempts another student's submission also holds (db_class_twins). */
static const char class_migration_3[] =
    "CREATE INDEX attempts_by_time ON attempts(question_id, created_at);\n";

static const char *const class_migrations[] = {class_migration_1, class_migration_2,
                                               class_migration_3};
_Static_assert(sizeof class_migrations / sizeof class_migrations[0] == DB_CLASS_VERSION,
               "one migration per class store version");
_Static_assert(DB_CLASS_APPLICATION_ID == 1463960396, "class_migration_1 writes it");

int db_class_open(struct db **out, const char *path, struct core_err *err)
{
    const struct db_open_spec spec = {.app_id = DB_CLASS_APPLICATION_ID,
                                      .what = "a Warpbench class store",
                                      .steps = class_migrations,
                                      .n_steps = DB_CLASS_VERSION,
                                      .wal = true};
    return db_open_spec(out, path, &spec, err);
}

char *db_class_path_default(const char *store_path)
{
    char *copy = core_xstrdup(store_path);
    char *out = core_path_join(dirname(copy), "class.db");
    free(copy);
    return out;
}

static const char sql_setting[] = "SELECT value FROM meta WHERE key = ?1";

int db_class_setting(struct db *cs, const char *key, char **value, struct core_err *err)
{
    *value = NULL;
    sqlite3_stmt *st;
    int rc = db_stmt(cs, sql_setting, &st, err);
    if (rc)
        return rc;
    int src = db_bindf(st, "t", key);
    if (src == SQLITE_OK)
        src = sqlite3_step(st);
    if (src == SQLITE_ROW)
        *value = db_col_dup(st, 0);
    else if (src != SQLITE_DONE)
        rc = db_fail(cs, err, src, "reading the class setting %s", key);
    db_stmt_done(st);
    return rc;
}

int db_class_set_setting(struct db *cs, const char *key, const char *value, struct core_err *err)
{
    sqlite3_stmt *st;
    int rc = db_stmt(cs,
                     value ? "INSERT INTO meta(key, value) VALUES (?1, ?2) ON CONFLICT(key) DO "
                             "UPDATE SET value = excluded.value"
                           : "DELETE FROM meta WHERE key = ?1",
                     &st, err);
    if (rc)
        return rc;
    return db_step_done(cs, st, value ? db_bindf(st, "tt", key, value) : db_bindf(st, "t", key),
                        "writing a class setting", err);
}

int db_class_uid(struct db *cs, char **uid, struct core_err *err)
{
    int rc = db_class_setting(cs, "uid", uid, err);
    if (rc == CORE_OK && !*uid)
        rc = core_err_set(err, CORE_ERR_STORE, "%s has no class uid", cs->path);
    return rc;
}

/* ---- importing ------------------------------------------------------------------------ */

static const char sql_seen[] = "SELECT digest FROM submissions WHERE uid = ?1";

int db_class_submission_seen(struct db *cs, const char *uid, const char *digest, int *seen,
                             struct core_err *err)
{
    *seen = 0;
    sqlite3_stmt *st;
    int rc = db_stmt(cs, sql_seen, &st, err);
    if (rc)
        return rc;
    int src = db_bindf(st, "t", uid);
    if (src == SQLITE_OK)
        src = sqlite3_step(st);
    if (src == SQLITE_ROW) {
        const char *d = db_col_text(st, 0);
        *seen = d && strcmp(d, digest) == 0 ? 1 : -1;
    } else if (src != SQLITE_DONE) {
        rc = db_fail(cs, err, src, "looking up submission %s", uid);
    }
    db_stmt_done(st);
    return rc;
}

static const char sql_student_find[] = "SELECT id, current FROM students WHERE key = ?1";
static const char sql_student_add[] =
    "INSERT INTO students(key, user, student_id) VALUES (?1, ?2, ?3)";
static const char sql_sub_by_uid[] = "SELECT id, student FROM submissions WHERE uid = ?1";
static const char sql_sub_uid_of[] = "SELECT uid FROM submissions WHERE id = ?1";
static const char sql_del_samples[] =
    "DELETE FROM lab_samples WHERE run IN (SELECT id FROM lab_runs WHERE submission = ?1)";
static const char sql_del_selfscores[] =
    "DELETE FROM selfscores WHERE attempt IN (SELECT id FROM attempts WHERE submission = ?1)";
static const char sql_del_attempts[] = "DELETE FROM attempts WHERE submission = ?1";
static const char sql_del_runs[] = "DELETE FROM lab_runs WHERE submission = ?1";
static const char sql_del_giveups[] = "DELETE FROM giveups WHERE submission = ?1";
static const char sql_del_ratings[] = "DELETE FROM ratings WHERE submission = ?1";
static const char sql_del_exams[] = "DELETE FROM exams WHERE submission = ?1";
static const char sql_del_packs[] = "DELETE FROM sub_packs WHERE submission = ?1";
static const char sql_del_flags[] = "DELETE FROM flags WHERE submission = ?1";
static const char sql_del_sub[] = "DELETE FROM submissions WHERE id = ?1";
static const char sql_sub_add[] =
    "INSERT INTO submissions(student, uid, digest, file, user, student_id, submitted_at, "
    "imported_at, warpbench, n_attempts, n_agree, n_disagree, n_lab_regraded, n_runs_flagged, "
    "n_failed, n_skipped, grader_rev, store_uid) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, "
    "?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)";
static const char sql_flag_add[] =
    "INSERT INTO flags(submission, student, key, kind, pack_id, lesson_id, question_id, "
    "src_attempt, blocking, reason, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, "
    "?11)";
static const char sql_pack_add[] =
    "INSERT INTO sub_packs(submission, pack_id, version, digest, graded_version) "
    "VALUES (?1, ?2, ?3, ?4, ?5)";
static const char sql_run_add[] =
    "INSERT INTO lab_runs(submission, src_id, lab, params_json, machine_json, summary_json, "
    "status, started_at, ended_at, error, problems) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, "
    "?10, ?11)";
static const char sql_sample_add[] =
    "INSERT INTO lab_samples(run, seq, series, step, value, t) VALUES (?1, ?2, ?3, ?4, ?5, ?6)";
static const char sql_attempt_add[] =
    "INSERT INTO attempts(submission, src_id, pack_id, question_id, variant, answer, answer_sha, "
    "certainty, created_at, after_giveup, lab_run, rec_valid, rec_score, rec_max, rec_version, "
    "rec_digest, rec_grader, rec_params, graded, valid, score, max, correct, parsed, feedback, "
    "mistake, params_json, agree, flag, sealed, seq, late_days, late_factor) VALUES (?1, ?2, ?3, "
    "?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, "
    "?23, ?24, ?25, ?26, ?27, ?28, ?29, ?30, ?31, ?32, ?33)";
static const char sql_selfscore_add[] =
    "INSERT INTO selfscores(attempt, ordinal, concept, score, max) VALUES (?1, ?2, ?3, ?4, ?5)";
static const char sql_giveup_add[] =
    "INSERT INTO giveups(submission, src_id, pack_id, question_id, variant, last_attempt, "
    "created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)";
static const char sql_rating_add[] =
    "INSERT INTO ratings(submission, item, score, max, created_at) VALUES (?1, ?2, ?3, ?4, ?5)";
static const char sql_exam_add[] =
    "INSERT INTO exams(submission, pack_id, lesson_id, started_at, deadline, submitted_at) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6)";
/* The newest made, but never one dated after it was imported: a clock set
 * to 2099 must not make a file supersede later real work. */
static const char sql_current[] =
    "SELECT id FROM submissions WHERE student = ?1 "
    "ORDER BY submitted_at > imported_at, submitted_at DESC, id DESC LIMIT 1";
static const char sql_student_set[] =
    "UPDATE students SET current = ?2, user = (SELECT user FROM submissions WHERE id = ?2), "
    "student_id = (SELECT student_id FROM submissions WHERE id = ?2) WHERE id = ?1";

/* Runs a one-row query whose first column is an integer: *v gets it, and
 * *found whether there was a row. */
static int query_i64(struct db *db, sqlite3_stmt *st, int bind_rc, int64_t *v, bool *found,
                     const char *what, struct core_err *err)
{
    int src = bind_rc == SQLITE_OK ? sqlite3_step(st) : bind_rc;
    int rc = 0;
    *found = src == SQLITE_ROW;
    if (src == SQLITE_ROW)
        *v = sqlite3_column_int64(st, 0);
    else if (src != SQLITE_DONE)
        rc = db_fail(db, err, src, "%s", what);
    db_stmt_done(st);
    return rc;
}

#define STMT(sql)                                                                                  \
    do {                                                                                           \
        if (!rc)                                                                                   \
            rc = db_stmt(cs, sql, &st, err);                                                       \
    } while (0)

/* Deletes submission `id` and everything imported with it. */
static int drop_submission(struct db *cs, int64_t id, struct core_err *err)
{
    static const char *const dels[] = {
        sql_del_samples, sql_del_selfscores, sql_del_attempts, sql_del_runs,  sql_del_giveups,
        sql_del_ratings, sql_del_exams,      sql_del_packs,    sql_del_flags, sql_del_sub};
    int rc = 0;
    sqlite3_stmt *st = NULL;
    for (size_t i = 0; i < sizeof dels / sizeof dels[0] && !rc; i++) {
        STMT(dels[i]);
        if (!rc)
            rc = db_step_done(cs, st, db_bindf(st, "I", id), "replacing a submission", err);
    }
    return rc;
}

static int cmp_src(const void *a, const void *b)
{
    const int64_t *x = a, *y = b;
    return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* Class ids by source id: pairs (src, class) sorted by src. */
static int64_t map_find(const int64_t *pairs, size_t n, int64_t src)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (pairs[2 * mid] < src)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && pairs[2 * lo] == src ? pairs[2 * lo + 1] : 0;
}

static int insert_rows(struct db *cs, const struct db_class_import_in *in, int64_t sub_id,
                       int64_t student, struct core_err *err)
{
    const struct db_submission *s = in->sub;
    sqlite3_stmt *st = NULL;
    int rc = 0;
    for (size_t i = 0; i < s->n_packs && !rc; i++) {
        STMT(sql_pack_add);
        if (!rc)
            rc = db_step_done(cs, st,
                              db_bindf(st, "Itttt", sub_id, s->packs[i].id, s->packs[i].version,
                                       s->packs[i].digest,
                                       in->graded_versions ? in->graded_versions[i] : NULL),
                              "storing a submitted pack", err);
    }
    int64_t *runs = core_xcalloc(2 * (s->n_runs ? s->n_runs : 1), sizeof *runs);
    for (size_t i = 0; i < s->n_runs && !rc; i++) {
        const struct db_sub_run *r = &s->runs[i];
        STMT(sql_run_add);
        if (!rc)
            rc = db_step_done(cs, st,
                              db_bindf(st, "IIttttttttt", sub_id, r->id, r->lab, r->params_json,
                                       r->machine_json, r->summary_json, r->status, r->started_at,
                                       r->ended_at, r->error,
                                       in->runs ? in->runs[i].problems : NULL),
                              "storing a lab run", err);
        runs[2 * i] = r->id;
        runs[2 * i + 1] = sqlite3_last_insert_rowid(cs->h);
        for (size_t k = 0; k < r->n_samples && !rc; k++) {
            const struct db_labsample *v = &r->samples[k];
            STMT(sql_sample_add);
            if (!rc)
                rc = db_step_done(cs, st,
                                  db_bindf(st, "IItINd", runs[2 * i + 1], (int64_t)k, v->series,
                                           (int64_t)v->step, v->value, v->t),
                                  "storing a lab sample", err);
        }
    }
    qsort(runs, s->n_runs, 2 * sizeof *runs, cmp_src);
    int64_t *atts = core_xcalloc(2 * (s->n_attempts ? s->n_attempts : 1), sizeof *atts);
    for (size_t i = 0; i < s->n_attempts && !rc; i++) {
        const struct db_class_attempt_in *a = &in->attempts[i];
        const struct db_sub_attempt *sa = a->sub;
        int64_t run = sa->lab_run ? map_find(runs, s->n_runs, sa->lab_run) : 0;
        /* What repeats is kept once: the digest when it is the submission's
         * for the pack, the recorded numbers when they are those graded. */
        const char *digest = sa->pack_digest;
        for (size_t k = 0; k < s->n_packs && digest; k++)
            if (strcmp(s->packs[k].id, sa->pack_id) == 0 &&
                strcmp(s->packs[k].digest, sa->pack_digest) == 0)
                digest = NULL;
        const char *rec_params = sa->params_json;
        if (a->graded && rec_params && a->params_json && strcmp(rec_params, a->params_json) == 0)
            rec_params = NULL;
        STMT(sql_attempt_add);
        if (rc)
            break;
        /* ?20..?27, the re-grade, bound below */
        int b = db_bindf(st, "IIttittRtiRiddtttti--------itiRNN", sub_id, sa->id, sa->pack_id,
                         sa->question_id, sa->variant, sa->answer, a->answer_sha,
                         (int64_t)sa->certainty, sa->created_at, a->after_giveup ? 1 : 0, run,
                         sa->valid ? 1 : 0, sa->score, sa->max, sa->pack_version, digest,
                         sa->grader_rev, rec_params, a->graded ? 1 : 0, a->agree ? 1 : 0, a->flag,
                         sa->sealed ? 1 : 0, sa->seq, a->late ? a->late_days : NAN,
                         a->late ? a->late_factor : NAN);
        /* The re-grade's columns (?20..?27) stay NULL when it was not re-graded. */
        if (b == SQLITE_OK && a->graded) {
            b = sqlite3_bind_int(st, 20, a->valid ? 1 : 0);
            if (b == SQLITE_OK)
                b = sqlite3_bind_double(st, 21, a->score);
            if (b == SQLITE_OK)
                b = sqlite3_bind_double(st, 22, a->max);
            if (b == SQLITE_OK)
                b = sqlite3_bind_int(st, 23, a->correct ? 1 : 0);
            if (b == SQLITE_OK && a->parsed)
                b = sqlite3_bind_text(st, 24, a->parsed, -1, SQLITE_STATIC);
            if (b == SQLITE_OK && a->feedback)
                b = sqlite3_bind_text(st, 25, a->feedback, -1, SQLITE_STATIC);
            if (b == SQLITE_OK)
                b = sqlite3_bind_int(st, 26, a->mistake ? 1 : 0);
            if (b == SQLITE_OK && a->params_json)
                b = sqlite3_bind_text(st, 27, a->params_json, -1, SQLITE_STATIC);
        }
        rc = db_step_done(cs, st, b, "storing an attempt", err);
        atts[2 * i] = sa->id;
        atts[2 * i + 1] = sqlite3_last_insert_rowid(cs->h);
    }
    qsort(atts, s->n_attempts, 2 * sizeof *atts, cmp_src);
    for (size_t i = 0; i < s->n_selfscores && !rc; i++) {
        const struct db_sub_selfscore *c = &s->selfscores[i];
        int64_t att = map_find(atts, s->n_attempts, c->attempt_id);
        if (!att)
            continue; /* checked on reading: cannot happen */
        STMT(sql_selfscore_add);
        if (!rc)
            rc = db_step_done(cs, st,
                              db_bindf(st, "Iitdd", att, c->ordinal, c->concept, c->score, c->max),
                              "storing a self-score", err);
    }
    for (size_t i = 0; i < s->n_giveups && !rc; i++) {
        const struct db_sub_giveup *g = &s->giveups[i];
        STMT(sql_giveup_add);
        if (!rc)
            rc = db_step_done(cs, st,
                              db_bindf(st, "IIttiIt", sub_id, g->id, g->pack_id, g->question_id,
                                       g->variant, g->last_attempt, g->created_at),
                              "storing a give-up", err);
    }
    for (size_t i = 0; i < s->n_ratings && !rc; i++) {
        const struct db_sub_rating *r = &s->ratings[i];
        STMT(sql_rating_add);
        if (!rc)
            rc = db_step_done(
                cs, st, db_bindf(st, "Itddt", sub_id, r->item, r->score, r->max, r->created_at),
                "storing a self-assessment", err);
    }
    for (size_t i = 0; i < s->n_exams && !rc; i++) {
        const struct db_sub_exam *x = &s->exams[i];
        STMT(sql_exam_add);
        if (!rc)
            rc = db_step_done(cs, st,
                              db_bindf(st, "Ittttt", sub_id, x->pack_id, x->lesson_id,
                                       x->started_at, x->deadline, x->submitted_at),
                              "storing an exam sitting", err);
    }
    char now[32];
    db_now(now);
    for (size_t i = 0; i < in->n_flags && !rc; i++) {
        const struct db_class_flag_in *f = &in->flags[i];
        STMT(sql_flag_add);
        if (!rc)
            rc = db_step_done(cs, st,
                              db_bindf(st, "IItttttRitt", sub_id, student, f->key, f->kind,
                                       f->pack_id, f->lesson_id, f->question_id, f->src_attempt,
                                       f->blocking ? 1 : 0, f->reason, now),
                              "storing a flag", err);
    }
    free(runs);
    free(atts);
    return rc;
}

int db_class_import(struct db *cs, const struct db_class_import_in *in, bool replace,
                    enum db_class_import_result *result, char **superseded, struct core_err *err)
{
    const struct db_submission *s = in->sub;
    if (superseded)
        *superseded = NULL;
    *result = DB_CLASS_UNCHANGED;
    /* Seen or not is decided inside the write transaction: two imports of
     * the same file at once are one after the other here, and the second
     * finds the file imported (unchanged), not a UNIQUE conflict. */
    int rc = db_tx_begin(cs, err);
    if (rc)
        return rc;
    int seen = 0;
    rc = db_class_submission_seen(cs, s->uid, in->digest, &seen, err);
    if (!rc && seen < 0)
        rc = core_err_set(err, CORE_ERR_CONFLICT,
                          "%s: submission %s was imported before with other content; a "
                          "submission file is never changed once written",
                          in->file, s->uid);
    if (rc || (seen > 0 && !replace)) {
        db_tx_rollback(cs);
        return rc;
    }
    sqlite3_stmt *st = NULL;
    int64_t student = 0, before = 0, old_sub = 0, owner = 0;
    bool found = false, has_before = false;
    STMT(sql_student_find);
    if (!rc) {
        int src = db_bindf(st, "t", in->key);
        if (src == SQLITE_OK)
            src = sqlite3_step(st);
        if (src == SQLITE_ROW) {
            found = true;
            student = sqlite3_column_int64(st, 0);
            has_before = sqlite3_column_type(st, 1) != SQLITE_NULL;
            before = sqlite3_column_int64(st, 1);
        } else if (src != SQLITE_DONE) {
            rc = db_fail(cs, err, src, "looking up student %s", in->key);
        }
        db_stmt_done(st);
    }
    if (!rc && !found) {
        STMT(sql_student_add);
        if (!rc)
            rc = db_step_done(cs, st, db_bindf(st, "ttt", in->key, s->user, s->student_id),
                              "storing a student", err);
        student = sqlite3_last_insert_rowid(cs->h);
    }
    if (!rc && seen > 0) { /* re-grading a file imported before: replace its rows */
        STMT(sql_sub_by_uid);
        bool f;
        int64_t tmp[2];
        if (!rc) {
            int src = db_bindf(st, "t", s->uid);
            if (src == SQLITE_OK)
                src = sqlite3_step(st);
            f = src == SQLITE_ROW;
            if (f) {
                tmp[0] = sqlite3_column_int64(st, 0);
                tmp[1] = sqlite3_column_int64(st, 1);
            } else if (src != SQLITE_DONE) {
                rc = db_fail(cs, err, src, "looking up submission %s", s->uid);
            }
            db_stmt_done(st);
            if (!rc && f) {
                old_sub = tmp[0];
                owner = tmp[1];
            }
        }
        if (!rc && old_sub && owner != student)
            rc = core_err_set(err, CORE_ERR_CONFLICT,
                              "%s: submission %s was imported before for another student", in->file,
                              s->uid);
        if (!rc && old_sub)
            rc = drop_submission(cs, old_sub, err);
    }
    char now[32];
    db_now(now);
    int64_t sub_id = 0;
    STMT(sql_sub_add);
    if (!rc) {
        rc = db_step_done(cs, st,
                          db_bindf(st, "Ittttttttiiiiiiitt", student, s->uid, in->digest, in->file,
                                   s->user, s->student_id, s->created_at, now, s->warpbench,
                                   (int)s->n_attempts, in->n_agree, in->n_disagree,
                                   in->n_lab_regraded, in->n_runs_flagged, in->n_failed,
                                   in->n_skipped, in->grader_rev, s->store_uid),
                          "storing a submission", err);
        sub_id = sqlite3_last_insert_rowid(cs->h);
    }
    if (!rc)
        rc = insert_rows(cs, in, sub_id, student, err);
    int64_t current = 0;
    STMT(sql_current);
    if (!rc)
        rc = query_i64(cs, st, db_bindf(st, "I", student), &current, &found,
                       "finding the current submission", err);
    STMT(sql_student_set);
    if (!rc)
        rc = db_step_done(cs, st, db_bindf(st, "II", student, current), "updating a student", err);
    if (!rc && superseded && has_before && before != old_sub && current == sub_id) {
        STMT(sql_sub_uid_of);
        if (!rc) {
            int src = db_bindf(st, "I", before);
            if (src == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
                *superseded = db_col_dup(st, 0);
            db_stmt_done(st);
        }
    }
    if (!rc && in->before_commit)
        in->before_commit(in->hook_ctx);
    rc = db_tx_end(cs, rc, err);
    if (rc) {
        if (superseded) {
            free(*superseded);
            *superseded = NULL;
        }
        return rc;
    }
    *result = seen > 0                          ? DB_CLASS_REPLACED
              : current != sub_id               ? DB_CLASS_OLDER
              : has_before && before != old_sub ? DB_CLASS_NEWER
                                                : DB_CLASS_NEW;
    return 0;
}
