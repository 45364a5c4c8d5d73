/*
 * db_submit.c — submission files: what a student hands in, gathered from
 * their store, written as one SQLite file of its own schema, and read back
 * (checked from top to bottom) on the instructor's side.
 *
 * The file ("WBSB" in PRAGMA application_id, schema in user_version) is
 * written in journal_mode=DELETE, so once closed it is one file that
 * travels alone; it is read read-only and immutable, so reading it never
 * writes beside it. A file is refused whole (CORE_ERR_STORE, nothing
 * returned) when it is not ours, damaged (PRAGMA integrity_check), lacks a
 * table or column, or holds a row that breaks the format: an instructor
 * imports everything of a file or nothing.
 *
 * Design notes for version 1:
 * - meta: key/value pairs: format ("warpbench-submission"), uid (unique per
 *   submit), user, student_id (optional), created_at, warpbench (version).
 * - attempts keep the student store's ids (primary key), so a re-submission
 *   names the same attempts and an instructor's review follows them; each
 *   carries the grade the student's store counted (its latest re-grade),
 *   the pack version and digest it was graded under and, for a lab-linked
 *   question, the submitted run it was answered from.
 * - lab_samples keep their recorded order in seq.
 */
#include "db/db_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SUB_FORMAT "warpbench-submission"

static const char sub_migration_1[] =
    "PRAGMA application_id = 1463964482;\n" /* DB_SUBMIT_APPLICATION_ID, "WBSB" */
    "CREATE TABLE meta (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL);\n"
    "CREATE TABLE packs (\n"
    "  id TEXT PRIMARY KEY NOT NULL,\n"
    "  version TEXT NOT NULL,\n"
    "  digest TEXT NOT NULL,\n"
    "  title TEXT NOT NULL\n"
    ");\n"
    "CREATE TABLE lab_runs (\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  lab TEXT NOT NULL,\n"
    "  params_json TEXT NOT NULL,\n"
    "  machine_json TEXT NOT NULL,\n"
    "  summary_json TEXT,\n"
    "  status TEXT NOT NULL,\n"
    "  started_at TEXT NOT NULL,\n"
    "  ended_at TEXT,\n"
    "  error TEXT\n"
    ");\n"
    "CREATE TABLE lab_samples (\n"
    "  run_id INTEGER NOT NULL REFERENCES lab_runs(id),\n"
    "  seq INTEGER NOT NULL,\n"
    "  series TEXT NOT NULL,\n"
    "  step INTEGER NOT NULL,\n"
    "  value REAL,\n"
    "  t REAL NOT NULL,\n"
    "  PRIMARY KEY (run_id, seq)\n"
    ");\n"
    "CREATE TABLE attempts (\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  pack_id TEXT NOT NULL REFERENCES packs(id),\n"
    "  question_id TEXT NOT NULL,\n"
    "  variant INTEGER NOT NULL,\n"
    "  answer TEXT NOT NULL,\n"
    "  certainty INTEGER,\n"
    "  created_at TEXT NOT NULL,\n"
    "  params_json TEXT,\n"
    "  grader_rev TEXT,\n"
    "  pack_version TEXT NOT NULL,\n"
    "  pack_digest TEXT NOT NULL,\n"
    "  valid INTEGER NOT NULL,\n"
    "  score REAL NOT NULL,\n"
    "  max REAL NOT NULL,\n"
    "  correct INTEGER NOT NULL,\n"
    "  feedback TEXT NOT NULL,\n"
    "  regraded INTEGER NOT NULL,\n"
    "  lab_run INTEGER REFERENCES lab_runs(id)\n"
    ");\n"
    "CREATE TABLE giveups (\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  pack_id TEXT NOT NULL REFERENCES packs(id),\n"
    "  question_id TEXT NOT NULL,\n"
    "  variant INTEGER NOT NULL,\n"
    "  last_attempt INTEGER NOT NULL,\n"
    "  created_at TEXT NOT NULL\n"
    ");\n"
    "CREATE TABLE selfscores (\n"
    "  attempt_id INTEGER NOT NULL REFERENCES attempts(id),\n"
    "  ordinal INTEGER NOT NULL,\n"
    "  concept TEXT NOT NULL,\n"
    "  score REAL NOT NULL,\n"
    "  max REAL NOT NULL,\n"
    "  PRIMARY KEY (attempt_id, concept)\n"
    ");\n"
    "CREATE TABLE selfassess (\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  item TEXT NOT NULL,\n"
    "  score REAL NOT NULL,\n"
    "  max REAL NOT NULL,\n"
    "  created_at TEXT NOT NULL\n"
    ");\n"
    "CREATE TABLE exams (\n"
    "  pack_id TEXT NOT NULL REFERENCES packs(id),\n"
    "  lesson_id TEXT NOT NULL,\n"
    "  started_at TEXT NOT NULL,\n"
    "  deadline TEXT,\n"
    "  submitted_at TEXT,\n"
    "  PRIMARY KEY (pack_id, lesson_id)\n"
    ");\n";

/* Version 2 (graded work in a class): attempts.sealed (recorded ungraded:
 * the instructor grades it), attempts.seq (its place among the student's
 * attempts at the pack, so a deleted one leaves a gap), attempts.parsed (as
 * the student's machine read it); meta.store_uid. */
static const char sub_migration_2[] =
    "ALTER TABLE attempts ADD COLUMN sealed INTEGER NOT NULL DEFAULT 0;\n"
    "ALTER TABLE attempts ADD COLUMN seq INTEGER;\n"
    "ALTER TABLE attempts ADD COLUMN parsed TEXT;\n";

const char *const db_submit_steps[] = {sub_migration_1, sub_migration_2};
#define sub_migrations db_submit_steps
_Static_assert(sizeof sub_migrations / sizeof sub_migrations[0] == DB_SUBMIT_VERSION,
               "one migration per submission schema version");
_Static_assert(DB_SUBMIT_APPLICATION_ID == 1463964482, "sub_migration_1 writes it");
_Static_assert(DB_FILE_MAX_ANSWER == DB_ANSWER_MAX, "a file carries every answer a store keeps");

/* ---- the in-memory submission ------------------------------------------------------- */

void db_submission_fini(struct db_submission *s)
{
    if (!s)
        return;
    free(s->uid);
    free(s->user);
    free(s->student_id);
    free(s->created_at);
    free(s->warpbench);
    free(s->store_uid);
    for (size_t i = 0; i < s->n_packs; i++) {
        free(s->packs[i].id);
        free(s->packs[i].version);
        free(s->packs[i].digest);
        free(s->packs[i].title);
    }
    free(s->packs);
    for (size_t i = 0; i < s->n_attempts; i++) {
        struct db_sub_attempt *a = &s->attempts[i];
        free(a->pack_id);
        free(a->question_id);
        free(a->answer);
        free(a->created_at);
        free(a->params_json);
        free(a->grader_rev);
        free(a->pack_version);
        free(a->pack_digest);
        free(a->feedback);
        free(a->parsed);
    }
    free(s->attempts);
    for (size_t i = 0; i < s->n_giveups; i++) {
        free(s->giveups[i].pack_id);
        free(s->giveups[i].question_id);
        free(s->giveups[i].created_at);
    }
    free(s->giveups);
    for (size_t i = 0; i < s->n_selfscores; i++)
        free(s->selfscores[i].concept);
    free(s->selfscores);
    for (size_t i = 0; i < s->n_ratings; i++) {
        free(s->ratings[i].item);
        free(s->ratings[i].created_at);
    }
    free(s->ratings);
    for (size_t i = 0; i < s->n_exams; i++) {
        free(s->exams[i].pack_id);
        free(s->exams[i].lesson_id);
        free(s->exams[i].started_at);
        free(s->exams[i].deadline);
        free(s->exams[i].submitted_at);
    }
    free(s->exams);
    for (size_t i = 0; i < s->n_runs; i++) {
        struct db_sub_run *r = &s->runs[i];
        free(r->lab);
        free(r->params_json);
        free(r->machine_json);
        free(r->summary_json);
        free(r->status);
        free(r->started_at);
        free(r->ended_at);
        free(r->error);
        db_labsamples_free(r->samples, r->n_samples);
    }
    free(s->runs);
    memset(s, 0, sizeof *s);
}

/* ---- reading rows (shared by gather and read) --------------------------------------- */

/* Each column read for what the format says it is (db_frow_*): a NULL, a
 * wrong type, an over-long text or a NUL byte refuses the file, so what
 * the rest of Warpbench gets never holds one. */

static void pack_row(struct db_frow *r, void *e)
{
    struct db_sub_pack *p = e;
    p->id = db_frow_id(r, 0);
    p->version = db_frow_text(r, 1, DB_FILE_MAX_LINE);
    p->digest = db_frow_text(r, 2, DB_FILE_MAX_LINE);
    p->title = db_frow_text(r, 3, DB_FILE_MAX_LINE);
}

static void attempt_row(struct db_frow *r, void *e)
{
    struct db_sub_attempt *a = e;
    int64_t v;
    a->id = db_frow_int(r, 0, 1, INT64_MAX);
    a->pack_id = db_frow_id(r, 1);
    a->question_id = db_frow_id(r, 2);
    a->variant = (int)db_frow_int(r, 3, 1, INT32_MAX);
    a->answer = db_frow_text(r, 4, DB_FILE_MAX_ANSWER);
    a->certainty = db_frow_int_null(r, 5, 1, 3, &v) ? (int)v : 0;
    a->created_at = db_frow_text(r, 6, DB_FILE_MAX_LINE);
    a->params_json = db_frow_text_null(r, 7, DB_FILE_MAX_TEXT);
    a->grader_rev = db_frow_text_null(r, 8, DB_FILE_MAX_LINE);
    a->pack_version = db_frow_text(r, 9, DB_FILE_MAX_LINE);
    a->pack_digest = db_frow_text(r, 10, DB_FILE_MAX_LINE);
    a->valid = db_frow_int(r, 11, 0, 1) != 0;
    a->score = db_frow_num(r, 12);
    a->max = db_frow_num(r, 13);
    a->correct = db_frow_int(r, 14, 0, 1) != 0;
    a->feedback = db_frow_text(r, 15, DB_FILE_MAX_TEXT);
    a->regraded = db_frow_int(r, 16, 0, 1) != 0;
    a->lab_run = db_frow_int_null(r, 17, 1, INT64_MAX, &v) ? v : 0;
    a->sealed = db_frow_int(r, 18, 0, 1) != 0;
    a->seq = db_frow_int_null(r, 19, 1, INT64_MAX, &v) ? v : 0;
    a->parsed = db_frow_text_null(r, 20, DB_FILE_MAX_TEXT);
}

static void giveup_row(struct db_frow *r, void *e)
{
    struct db_sub_giveup *g = e;
    g->id = db_frow_int(r, 0, 1, INT64_MAX);
    g->pack_id = db_frow_id(r, 1);
    g->question_id = db_frow_id(r, 2);
    g->variant = (int)db_frow_int(r, 3, 1, INT32_MAX);
    g->last_attempt = db_frow_int(r, 4, 0, INT64_MAX);
    g->created_at = db_frow_text(r, 5, DB_FILE_MAX_LINE);
}

static void selfscore_row(struct db_frow *r, void *e)
{
    struct db_sub_selfscore *s = e;
    s->attempt_id = db_frow_int(r, 0, 1, INT64_MAX);
    s->ordinal = (int)db_frow_int(r, 1, 0, INT32_MAX);
    s->concept = db_frow_text(r, 2, DB_FILE_MAX_LINE); /* a rubric concept's label */
    s->score = db_frow_num(r, 3);
    s->max = db_frow_num(r, 4);
}

static void rating_row(struct db_frow *r, void *e)
{
    struct db_sub_rating *x = e;
    x->item = db_frow_text(r, 0, DB_FILE_MAX_LINE);
    x->score = db_frow_num(r, 1);
    x->max = db_frow_num(r, 2);
    x->created_at = db_frow_text(r, 3, DB_FILE_MAX_LINE);
}

static void exam_row(struct db_frow *r, void *e)
{
    struct db_sub_exam *x = e;
    x->pack_id = db_frow_id(r, 0);
    x->lesson_id = db_frow_id(r, 1);
    x->started_at = db_frow_text(r, 2, DB_FILE_MAX_LINE);
    x->deadline = db_frow_text_null(r, 3, DB_FILE_MAX_LINE);
    x->submitted_at = db_frow_text_null(r, 4, DB_FILE_MAX_LINE);
}

static void run_row(struct db_frow *r, void *e)
{
    struct db_sub_run *x = e;
    x->id = db_frow_int(r, 0, 1, INT64_MAX);
    x->lab = db_frow_id(r, 1);
    x->params_json = db_frow_text(r, 2, DB_FILE_MAX_TEXT);
    x->machine_json = db_frow_text(r, 3, DB_FILE_MAX_TEXT);
    x->summary_json = db_frow_text_null(r, 4, DB_FILE_MAX_JSON);
    x->status = db_frow_id(r, 5);
    x->started_at = db_frow_text(r, 6, DB_FILE_MAX_LINE);
    x->ended_at = db_frow_text_null(r, 7, DB_FILE_MAX_LINE);
    x->error = db_frow_text_null(r, 8, DB_FILE_MAX_TEXT);
}

static void sample_row(struct db_frow *r, void *e)
{
    struct db_labsample *v = e;
    v->series = db_frow_id(r, 0);
    v->step = db_frow_int(r, 1, INT64_MIN, INT64_MAX);
    v->value = db_frow_num_null(r, 2);
    v->t = db_frow_num(r, 3);
}

/* The free functions db_rows_read calls on an error: the rows were read
 * into a submission-owned array that is freed as a whole by the caller,
 * so an error frees through a temporary submission holding just them. */
#define FREE_ROWS(name, field, count)                                                              \
    static void name(void *arr, size_t n)                                                          \
    {                                                                                              \
        struct db_submission tmp = {0};                                                            \
        tmp.field = arr;                                                                           \
        tmp.count = n;                                                                             \
        db_submission_fini(&tmp);                                                                  \
    }
FREE_ROWS(packs_free, packs, n_packs)
FREE_ROWS(attempts_free, attempts, n_attempts)
FREE_ROWS(giveups_free, giveups, n_giveups)
FREE_ROWS(selfscores_free, selfscores, n_selfscores)
FREE_ROWS(ratings_free, ratings, n_ratings)
FREE_ROWS(exams_free, exams, n_exams)
FREE_ROWS(runs_free, runs, n_runs)

static void samples_free(void *arr, size_t n)
{
    db_labsamples_free(arr, n);
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

/* Orders attempts (pointers to them) by pack and question. */
static int by_question(const void *x, const void *y)
{
    const struct db_sub_attempt *a = *(const struct db_sub_attempt *const *)x;
    const struct db_sub_attempt *b = *(const struct db_sub_attempt *const *)y;
    int c = strcmp(a->pack_id, b->pack_id);
    return c ? c : strcmp(a->question_id, b->question_id);
}

/* No question with more attempts than a store records
 * (DB_ATTEMPTS_MAX_PER_QUESTION). kind names the source in the message. */
static int check_per_question(const char *path, const char *kind, const struct db_submission *s,
                              struct core_err *err)
{
    const struct db_sub_attempt **by = core_xcalloc(s->n_attempts ? s->n_attempts : 1, sizeof *by);
    for (size_t i = 0; i < s->n_attempts; i++)
        by[i] = &s->attempts[i];
    qsort(by, s->n_attempts, sizeof *by, by_question);
    int rc = 0;
    for (size_t i = 0, run = 0; i < s->n_attempts && !rc; i++) {
        run = i && by_question(&by[i - 1], &by[i]) == 0 ? run + 1 : 1;
        if (run > DB_ATTEMPTS_MAX_PER_QUESTION)
            rc = core_err_set(err, CORE_ERR_STORE,
                              "%s: malformed %s: more than %d attempts at %s:%s, more than a "
                              "store records",
                              path, kind, DB_ATTEMPTS_MAX_PER_QUESTION, by[i]->pack_id,
                              by[i]->question_id);
    }
    free(by);
    return rc;
}

/* ---- gathering from a student's store ----------------------------------------------- */

static const char sql_gather_packs[] =
    "SELECT p.id, r.version, r.digest, r.title FROM packs p JOIN pack_revs r ON r.id = p.rev_id "
    "WHERE ?1 IS NULL OR p.id = ?1 ORDER BY p.id";

/* Each original attempt with the grade the store counts for it (its
 * latest re-grade), the revision it was graded under, and for a question
 * linked to a lab the run it was answered from: the user's latest run of
 * that lab done by the time of the attempt, as re-grading picks it. */
static const char sql_gather_attempts[] =
    "SELECT a.id, a.pack_id, a.question_id, a.variant, a.answer, a.certainty, a.created_at, "
    "  a.params_json, a.grader_rev, r.version, r.digest, "
    "  coalesce(x.valid, a.valid), coalesce(x.score, a.score), coalesce(x.max, a.max), "
    "  coalesce(x.correct, a.correct), coalesce(x.feedback, a.feedback), x.id IS NOT NULL, "
    "  (SELECT lr.id FROM questions q JOIN lab_runs lr ON lr.user_id = a.user_id "
    "     AND lr.lab = q.lab AND lr.status = 'done' AND lr.ended_at <= a.created_at "
    "   WHERE q.pack_id = a.pack_id AND q.id = a.question_id AND q.lab IS NOT NULL "
    "   ORDER BY lr.id DESC LIMIT 1), a.sealed, a.seq, a.parsed "
    "FROM attempts a JOIN pack_revs r ON r.id = a.rev_id "

    "LEFT JOIN attempts x ON x.id = (SELECT max(y.id) FROM attempts y WHERE y.regrade_of = a.id) "
    "WHERE a.user_id = ?1 AND a.regrade_of IS NULL AND (?2 IS NULL OR a.pack_id = ?2) "
    "ORDER BY a.id";
static const char sql_gather_giveups[] =
    "SELECT id, pack_id, question_id, variant, last_attempt, created_at FROM giveups "
    "WHERE user_id = ?1 AND (?2 IS NULL OR pack_id = ?2) ORDER BY id";
static const char sql_gather_selfscores[] =
    "SELECT s.attempt_id, s.ordinal, s.concept, s.score, s.max FROM selfscores s "
    "JOIN attempts a ON a.id = s.attempt_id "
    "WHERE a.user_id = ?1 AND (?2 IS NULL OR a.pack_id = ?2) ORDER BY s.attempt_id, s.ordinal";
static const char sql_gather_ratings[] =
    "SELECT item, score, max, created_at FROM selfassess WHERE user_id = ?1 ORDER BY id";
static const char sql_gather_exams[] =
    "SELECT pack_id, lesson_id, started_at, deadline, submitted_at FROM exams "
    "WHERE user_id = ?1 AND (?2 IS NULL OR pack_id = ?2) ORDER BY pack_id, lesson_id";
static const char sql_gather_run[] =
    "SELECT id, lab, params_json, machine_json, summary_json, status, started_at, ended_at, "
    "error FROM lab_runs WHERE id = ?1";
static const char sql_samples[] =
    "SELECT series, step, value, t FROM lab_samples WHERE run_id = ?1 ORDER BY id";

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* One table of a submission read into its array: `sql` (one-off, bound
 * by `types`), at most max rows. Errors name the kind ("store" when
 * gathering, "submission" when reading a file). */
#define READ_ROWS(kind, table, max, sql, field, count, row, freefn, ...)                           \
    do {                                                                                           \
        if (!rc) {                                                                                 \
            void *arr_ = NULL;                                                                     \
            rc = db_file_rows(db, kind, table, max, sql, sizeof *out->field, row, freefn, &arr_,   \
                              &out->count, err, __VA_ARGS__);                                      \
            out->field = arr_;                                                                     \
        }                                                                                          \
    } while (0)

/* The lab runs `ids` (sorted, repeats allowed) with their samples into
 * out->runs, each once: from sql_run and sql_run_samples (both bound by the
 * run's id). Refuses a run over DB_FILE_MAX_SAMPLES_PER_RUN samples and
 * more than DB_FILE_MAX_SAMPLES in all. */
static int read_runs(struct db *db, const char *kind, const char *sql_run,
                     const char *sql_run_samples, const int64_t *ids, size_t n_ids,
                     struct db_submission *out, struct core_err *err)
{
    int rc = 0;
    size_t total = 0;
    if (n_ids)
        out->runs = core_xcalloc(n_ids, sizeof *out->runs);
    for (size_t i = 0; i < n_ids && !rc; i++) {
        if (i > 0 && ids[i] == ids[i - 1])
            continue;
        size_t one = 0;
        void *arr = NULL;
        rc = db_file_rows(db, kind, "lab_runs", 1, sql_run, sizeof *out->runs, run_row, runs_free,
                          &arr, &one, err, "I", ids[i]);
        if (!rc && one == 0)
            rc = core_err_set(err, CORE_ERR_STORE, "%s: malformed %s: lab run %lld is missing",
                              db->path, kind, (long long)ids[i]);
        if (rc) {
            free(arr);
            break;
        }
        struct db_sub_run *r = &out->runs[out->n_runs++];
        *r = *(struct db_sub_run *)arr;
        free(arr);
        rc = db_file_rows(db, kind, "lab_samples", DB_FILE_MAX_SAMPLES_PER_RUN, sql_run_samples,
                          sizeof *r->samples, sample_row, samples_free, &arr, &r->n_samples, err,
                          "I", r->id);
        r->samples = arr;
        total += r->n_samples;
        if (!rc && total > DB_FILE_MAX_SAMPLES)
            rc = core_err_set(err, CORE_ERR_STORE,
                              "%s: malformed %s: lab_samples has more than %d rows", db->path, kind,
                              DB_FILE_MAX_SAMPLES);
    }
    return rc;
}

int db_submission_gather(struct db *db, int64_t user_id, const char *pack_id,
                         struct db_submission *out, struct core_err *err)
{
    memset(out, 0, sizeof *out);
    /* One snapshot: every SELECT below reads the store as it was at the
     * first, while a TUI or a lab run may be writing (WAL readers never
     * wait), so the submission holds together (no attempt whose run came
     * later, no self-score without its attempt). */
    int rc = db_tx_read_begin(db, err);
    READ_ROWS("store", "packs", DB_FILE_MAX_ROWS, sql_gather_packs, packs, n_packs, pack_row,
              packs_free, "t", pack_id);
    if (!rc && pack_id && out->n_packs == 0)
        rc = core_err_set(err, CORE_ERR_NOTFOUND, "no pack '%s'", pack_id);
    READ_ROWS("store", "attempts", DB_FILE_MAX_ATTEMPTS, sql_gather_attempts, attempts, n_attempts,
              attempt_row, attempts_free, "It", user_id, pack_id);
    READ_ROWS("store", "giveups", DB_FILE_MAX_ROWS, sql_gather_giveups, giveups, n_giveups,
              giveup_row, giveups_free, "It", user_id, pack_id);
    READ_ROWS("store", "selfscores", DB_FILE_MAX_ROWS, sql_gather_selfscores, selfscores,
              n_selfscores, selfscore_row, selfscores_free, "It", user_id, pack_id);
    READ_ROWS("store", "selfassess", DB_FILE_MAX_ROWS, sql_gather_ratings, ratings, n_ratings,
              rating_row, ratings_free, "I", user_id);
    READ_ROWS("store", "exams", DB_FILE_MAX_ROWS, sql_gather_exams, exams, n_exams, exam_row,
              exams_free, "It", user_id, pack_id);
    /* The runs the lab-linked attempts were answered from, each once. */
    int64_t *ids = core_xcalloc(out->n_attempts ? out->n_attempts : 1, sizeof *ids);
    size_t n_ids = 0;
    for (size_t i = 0; i < out->n_attempts; i++)
        if (out->attempts[i].lab_run)
            ids[n_ids++] = out->attempts[i].lab_run;
    qsort(ids, n_ids, sizeof *ids, cmp_i64);
    if (!rc)
        rc = read_runs(db, "store", sql_gather_run, sql_samples, ids, n_ids, out, err);
    if (!rc) /* what an instructor's import would refuse, said here first */
        rc = check_per_question(db->path, "store", out, err);
    free(ids);
    db_tx_rollback(db); /* the snapshot ends; nothing was written */
    if (rc)
        db_submission_fini(out);
    return rc;
}

/* ---- writing --------------------------------------------------------------------------- */

int db_submission_write(const char *path, const struct db_submission *s, struct core_err *err)
{
    const struct db_open_spec spec = {.app_id = DB_SUBMIT_APPLICATION_ID,
                                      .what = "a Warpbench submission file",
                                      .steps = sub_migrations,
                                      .n_steps = DB_SUBMIT_VERSION};
    struct db *db = NULL;
    int rc = db_open_spec(&db, path, &spec, err);
    if (rc)
        return rc;
    static const char sql_pack[] =
        "INSERT INTO packs(id, version, digest, title) VALUES (?1, ?2, ?3, ?4)";
    static const char sql_run[] =
        "INSERT INTO lab_runs(id, lab, params_json, machine_json, summary_json, status, "
        "started_at, ended_at, error) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)";
    static const char sql_sample[] = "INSERT INTO lab_samples(run_id, seq, series, step, value, t) "
                                     "VALUES (?1, ?2, ?3, ?4, ?5, ?6)";
    static const char sql_attempt[] =
        "INSERT INTO attempts(id, pack_id, question_id, variant, answer, certainty, created_at, "
        "params_json, grader_rev, pack_version, pack_digest, valid, score, max, correct, "
        "feedback, regraded, lab_run, sealed, seq, parsed) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, "
        "?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21)";
    static const char sql_giveup[] =
        "INSERT INTO giveups(id, pack_id, question_id, variant, last_attempt, created_at) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6)";
    static const char sql_selfscore[] =
        "INSERT INTO selfscores(attempt_id, ordinal, concept, score, max) "
        "VALUES (?1, ?2, ?3, ?4, ?5)";
    static const char sql_rating[] =
        "INSERT INTO selfassess(item, score, max, created_at) VALUES (?1, ?2, ?3, ?4)";
    static const char sql_exam[] =
        "INSERT INTO exams(pack_id, lesson_id, started_at, deadline, submitted_at) "
        "VALUES (?1, ?2, ?3, ?4, ?5)";
    rc = db_tx_begin(db, err);
    if (rc)
        goto out;
    const struct db_meta_pair meta[] = {{"uid", s->uid},
                                        {"user", s->user},
                                        {"student_id", s->student_id},
                                        {"created_at", s->created_at},
                                        {"warpbench", s->warpbench},
                                        {"store_uid", s->store_uid}};
    rc = db_file_meta_write(db, SUB_FORMAT, meta, sizeof meta / sizeof meta[0], err);
    for (size_t i = 0; i < s->n_packs && !rc; i++) {
        const struct db_sub_pack *p = &s->packs[i];
        rc = db_file_put(db, sql_pack, "a pack", err, "tttt", p->id, p->version, p->digest,
                         p->title);
    }
    for (size_t i = 0; i < s->n_runs && !rc; i++) {
        const struct db_sub_run *r = &s->runs[i];
        rc = db_file_put(db, sql_run, "a lab run", err, "Itttttttt", r->id, r->lab, r->params_json,
                         r->machine_json, r->summary_json, r->status, r->started_at, r->ended_at,
                         r->error);
        for (size_t k = 0; k < r->n_samples && !rc; k++) {
            const struct db_labsample *v = &r->samples[k];
            rc = db_file_put(db, sql_sample, "a lab sample", err, "IItINd", r->id, (int64_t)k,
                             v->series, (int64_t)v->step, v->value, v->t);
        }
    }
    for (size_t i = 0; i < s->n_attempts && !rc; i++) {
        const struct db_sub_attempt *a = &s->attempts[i];
        rc = db_file_put(db, sql_attempt, "an attempt", err, "IttitRtttttidditiRiRt", a->id,
                         a->pack_id, a->question_id, a->variant, a->answer, (int64_t)a->certainty,
                         a->created_at, a->params_json, a->grader_rev, a->pack_version,
                         a->pack_digest, a->valid ? 1 : 0, a->score, a->max, a->correct ? 1 : 0,
                         a->feedback ? a->feedback : "", a->regraded ? 1 : 0, a->lab_run,
                         a->sealed ? 1 : 0, a->seq, a->parsed);
    }
    for (size_t i = 0; i < s->n_giveups && !rc; i++) {
        const struct db_sub_giveup *g = &s->giveups[i];
        rc = db_file_put(db, sql_giveup, "a give-up", err, "IttiIt", g->id, g->pack_id,
                         g->question_id, g->variant, g->last_attempt, g->created_at);
    }
    for (size_t i = 0; i < s->n_selfscores && !rc; i++) {
        const struct db_sub_selfscore *c = &s->selfscores[i];
        rc = db_file_put(db, sql_selfscore, "a self-score", err, "Iitdd", c->attempt_id, c->ordinal,
                         c->concept, c->score, c->max);
    }
    for (size_t i = 0; i < s->n_ratings && !rc; i++) {
        const struct db_sub_rating *r = &s->ratings[i];
        rc = db_file_put(db, sql_rating, "a self-assessment", err, "tddt", r->item, r->score,
                         r->max, r->created_at);
    }
    for (size_t i = 0; i < s->n_exams && !rc; i++) {
        const struct db_sub_exam *x = &s->exams[i];
        rc = db_file_put(db, sql_exam, "an exam", err, "ttttt", x->pack_id, x->lesson_id,
                         x->started_at, x->deadline, x->submitted_at);
    }
    rc = db_tx_end(db, rc, err);
out:
    db_close(db);
    return rc;
}

/* ---- reading and checking a file ------------------------------------------------------ */

#define WHAT "submission file"
#define refuse(err, path, ...) db_file_refuse(err, path, WHAT, __VA_ARGS__)

static int read_meta(struct db *db, struct db_submission *out, struct core_err *err)
{
    const struct db_meta_slot slots[] = {{"uid", &out->uid},
                                         {"user", &out->user},
                                         {"student_id", &out->student_id},
                                         {"created_at", &out->created_at},
                                         {"warpbench", &out->warpbench},
                                         {"store_uid", &out->store_uid}};
    int rc = db_file_meta_read(db, WHAT, SUB_FORMAT, slots, sizeof slots / sizeof slots[0], err);
    if (rc)
        return rc;
    if (!out->uid || !*out->uid)
        return refuse(err, db->path, "it has no submission uid");
    if (!out->user || !*out->user || strlen(out->user) > DB_FILE_MAX_ID)
        return refuse(err, db->path, "it names no student (meta user)");
    /* names are shown in reports and the gradebook, one to a line */
    if (!core_text_clean(out->user, 0) || (out->student_id && !core_text_clean(out->student_id, 0)))
        return refuse(err, db->path, "its student's name or id holds control characters");
    if (!out->created_at || strlen(out->created_at) < 10)
        return refuse(err, db->path, "it has no creation time");
    if (out->student_id && (!*out->student_id || strlen(out->student_id) > DB_FILE_MAX_ID))
        return refuse(err, db->path, "its student_id is empty or longer than 64 characters");
    return 0;
}

static const struct db_sub_pack *find_pack(const struct db_submission *s, const char *id)
{
    for (size_t i = 0; i < s->n_packs; i++)
        if (strcmp(s->packs[i].id, id) == 0)
            return &s->packs[i];
    return NULL;
}

static bool has_run(const struct db_submission *s, int64_t id)
{
    for (size_t i = 0; i < s->n_runs; i++)
        if (s->runs[i].id == id)
            return true;
    return false;
}

/* Row by row: what the schema cannot say (finite scores, ranges, texts
 * where texts belong). */
static int check_rows(const char *path, const struct db_submission *s, struct core_err *err)
{
    for (size_t i = 0; i < s->n_packs; i++)
        if (!s->packs[i].id[0] || !s->packs[i].digest[0])
            return refuse(err, path, "a pack without an id or digest");
    for (size_t i = 0; i < s->n_attempts; i++) {
        const struct db_sub_attempt *a = &s->attempts[i];
        if (!a->question_id[0] || a->variant < 1 || !isfinite(a->score) || !isfinite(a->max) ||
            a->max < 0 || a->certainty < 0 || a->certainty > 3)
            return refuse(err, path, "attempt %lld (%s:%s) breaks the format", (long long)a->id,
                          a->pack_id, a->question_id);
        if (!find_pack(s, a->pack_id))
            return refuse(err, path, "attempt %lld names pack %s, which the file does not list",
                          (long long)a->id, a->pack_id);
        if (a->lab_run && !has_run(s, a->lab_run))
            return refuse(err, path, "attempt %lld names lab run %lld, which the file lacks",
                          (long long)a->id, (long long)a->lab_run);
    }
    for (size_t i = 0; i < s->n_selfscores; i++) {
        const struct db_sub_selfscore *c = &s->selfscores[i];
        if (!c->concept[0] || !isfinite(c->score) || !isfinite(c->max) || c->max <= 0 ||
            c->score < 0 || c->score > c->max)
            return refuse(err, path, "a self-score of attempt %lld breaks the format",
                          (long long)c->attempt_id);
    }
    for (size_t i = 0; i < s->n_giveups; i++)
        if (s->giveups[i].variant < 1 || !find_pack(s, s->giveups[i].pack_id))
            return refuse(err, path, "give-up %lld breaks the format", (long long)s->giveups[i].id);
    for (size_t i = 0; i < s->n_ratings; i++) {
        const struct db_sub_rating *r = &s->ratings[i];
        if (!isfinite(r->score) || !isfinite(r->max) || r->max <= 0)
            return refuse(err, path, "a self-assessment of %s breaks the format", r->item);
    }
    for (size_t i = 0; i < s->n_runs; i++)
        for (size_t k = 0; k < s->runs[i].n_samples; k++)
            if (!isfinite(s->runs[i].samples[k].t))
                return refuse(err, path, "lab run %lld has a sample without a time",
                              (long long)s->runs[i].id);
    return 0;
}

int db_submission_read(const char *path, struct db_submission *out, struct core_err *err)
{
    const struct db_open_spec spec = {.app_id = DB_SUBMIT_APPLICATION_ID,
                                      .what = "a Warpbench submission file",
                                      .steps = sub_migrations,
                                      .n_steps = DB_SUBMIT_VERSION,
                                      .read_only = true};
    return db_submission_read_as(path, &spec, out, err);
}

int db_submission_read_as(const char *path, const struct db_open_spec *spec,
                          struct db_submission *out, struct core_err *err)
{
    memset(out, 0, sizeof *out);
    struct db *db = NULL;
    int rc = db_open_spec(&db, path, spec, err);
    if (rc)
        return rc;
    rc = db_file_check(db, WHAT, err);
    if (!rc)
        rc = read_meta(db, out, err);
    READ_ROWS("submission", "packs", DB_FILE_MAX_ROWS,
              "SELECT id, version, digest, title FROM packs ORDER BY id", packs, n_packs, pack_row,
              packs_free, "");
    READ_ROWS("submission", "attempts", DB_FILE_MAX_ATTEMPTS,
              "SELECT id, pack_id, question_id, variant, answer, certainty, created_at, "
              "params_json, grader_rev, pack_version, pack_digest, valid, score, max, correct, "
              "feedback, regraded, lab_run, sealed, seq, parsed FROM attempts ORDER BY id",
              attempts, n_attempts, attempt_row, attempts_free, "");
    READ_ROWS("submission", "giveups", DB_FILE_MAX_ROWS,
              "SELECT id, pack_id, question_id, variant, last_attempt, created_at FROM giveups "
              "ORDER BY id",
              giveups, n_giveups, giveup_row, giveups_free, "");
    READ_ROWS("submission", "selfscores", DB_FILE_MAX_ROWS,
              "SELECT attempt_id, ordinal, concept, score, max FROM selfscores "
              "ORDER BY attempt_id, ordinal",
              selfscores, n_selfscores, selfscore_row, selfscores_free, "");
    READ_ROWS("submission", "selfassess", DB_FILE_MAX_ROWS,
              "SELECT item, score, max, created_at FROM selfassess ORDER BY id", ratings, n_ratings,
              rating_row, ratings_free, "");
    READ_ROWS("submission", "exams", DB_FILE_MAX_ROWS,
              "SELECT pack_id, lesson_id, started_at, deadline, submitted_at FROM exams "
              "ORDER BY pack_id, lesson_id",
              exams, n_exams, exam_row, exams_free, "");
    /* every run of the file, whether an attempt names it or not */
    int64_t *ids = NULL;
    size_t n_ids = 0;
    if (!rc) {
        void *arr = NULL;
        rc = db_file_rows(db, "submission", "lab_runs", DB_FILE_MAX_ROWS,
                          "SELECT id FROM lab_runs ORDER BY id", sizeof *ids, id_row, ids_free,
                          &arr, &n_ids, err, "");
        ids = arr;
    }
    if (!rc)
        rc = read_runs(db, "submission",
                       "SELECT id, lab, params_json, machine_json, summary_json, status, "
                       "started_at, ended_at, error FROM lab_runs WHERE id = ?1",
                       "SELECT series, step, value, t FROM lab_samples WHERE run_id = ?1 "
                       "ORDER BY seq",
                       ids, n_ids, out, err);
    free(ids);
    if (!rc)
        rc = check_per_question(path, "submission", out, err);
    if (!rc)
        rc = check_rows(path, out, err);
    db_close(db);
    if (rc)
        db_submission_fini(out);
    return rc;
}
