/*
 * db_schema.c — the schema as an ordered list of forward migrations, and the
 * code that applies them.
 *
 * To change the schema: append one step to db_migrations[] (never edit a
 * step that has shipped) and raise DB_SCHEMA_VERSION in db.h. A fresh store
 * runs every step from version 0, so fresh and migrated stores are the same
 * by construction. Each step runs in its own transaction together with its
 * user_version bump, so a store is always at exactly one version.
 *
 * Design notes for version 1:
 * - packs holds one row per pack pointing at its current revision;
 *   pack_revs keeps every revision ever imported (attempts point at them),
 *   pack_files the exact bytes of each revision's sources.
 * - lessons, pages and questions describe the current revision only and are
 *   keyed by (pack_id, id), so ids stay stable across re-imports.
 * - attempts is append-only (triggers refuse UPDATE and DELETE). It names
 *   its question by (pack_id, question_id) as plain text, with no foreign key
 *   to questions, so replacing a pack's questions never touches attempts;
 *   rev_id records the revision (hence pack version) it was graded with. A
 *   re-grade is a new row whose regrade_of names the original attempt.
 * - value is NULL when the answer had no numeric value.
 * - Timestamps are ISO-8601 UTC text with milliseconds.
 */
#include "db/db_internal.h"

#include <stdio.h>

static const char migration_1[] =
    "PRAGMA application_id = 1463960392;\n" /* DB_APPLICATION_ID, "WBCH" */

    "CREATE TABLE users (\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  name TEXT NOT NULL UNIQUE,\n"
    "  created_at TEXT NOT NULL\n"
    ");\n"

    "CREATE TABLE packs (\n"
    "  id TEXT PRIMARY KEY NOT NULL,\n"
    "  rev_id INTEGER REFERENCES pack_revs(id),\n" /* NULL only inside the import tx */
    "  created_at TEXT NOT NULL\n"
    ");\n"

    "CREATE TABLE pack_revs (\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  pack_id TEXT NOT NULL REFERENCES packs(id),\n"
    "  version TEXT NOT NULL,\n"
    "  digest TEXT NOT NULL,\n"
    "  title TEXT NOT NULL,\n"
    "  description TEXT,\n"
    "  imported_at TEXT NOT NULL\n"
    ");\n"
    "CREATE INDEX pack_revs_by_pack ON pack_revs(pack_id, version);\n"

    "CREATE TABLE pack_files (\n"
    "  rev_id INTEGER NOT NULL REFERENCES pack_revs(id),\n"
    "  path TEXT NOT NULL,\n"
    "  content BLOB NOT NULL,\n"
    "  sha256 TEXT NOT NULL,\n"
    "  PRIMARY KEY (rev_id, path)\n"
    ");\n"

    "CREATE TABLE lessons (\n"
    "  pack_id TEXT NOT NULL REFERENCES packs(id),\n"
    "  id TEXT NOT NULL,\n"
    "  ordinal INTEGER NOT NULL,\n"
    "  title TEXT NOT NULL,\n"
    "  file TEXT,\n"
    "  PRIMARY KEY (pack_id, id)\n"
    ");\n"
    "CREATE INDEX lessons_order ON lessons(pack_id, ordinal);\n"

    "CREATE TABLE pages (\n"
    "  pack_id TEXT NOT NULL,\n"
    "  lesson_id TEXT NOT NULL,\n"
    "  ordinal INTEGER NOT NULL,\n" /* 0-based within the lesson */
    "  title TEXT,\n"
    "  markdown TEXT NOT NULL,\n"
    "  PRIMARY KEY (pack_id, lesson_id, ordinal),\n"
    "  FOREIGN KEY (pack_id, lesson_id) REFERENCES lessons(pack_id, id)\n"
    ");\n"

    "CREATE TABLE questions (\n"
    "  pack_id TEXT NOT NULL,\n"
    "  id TEXT NOT NULL,\n"
    "  lesson_id TEXT NOT NULL,\n"
    "  ordinal INTEGER NOT NULL,\n" /* 0-based within the lesson */
    "  kind TEXT NOT NULL,\n"
    "  title TEXT,\n"
    "  prompt TEXT NOT NULL,\n"
    "  points REAL NOT NULL,\n"
    "  topics TEXT NOT NULL DEFAULT '',\n"
    "  rubric TEXT NOT NULL DEFAULT '',\n"
    "  lab TEXT,\n"
    "  file TEXT,\n"
    "  line INTEGER NOT NULL DEFAULT 0,\n"
    "  page_after INTEGER NOT NULL DEFAULT -1 CHECK (page_after >= -1),\n"
    "  PRIMARY KEY (pack_id, id),\n"
    "  FOREIGN KEY (pack_id, lesson_id) REFERENCES lessons(pack_id, id)\n"
    ");\n"
    "CREATE INDEX questions_by_id ON questions(id);\n"
    "CREATE INDEX questions_order ON questions(pack_id, lesson_id, ordinal);\n"

    "CREATE TABLE attempts (\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  user_id INTEGER NOT NULL REFERENCES users(id),\n"
    "  pack_id TEXT NOT NULL,\n"
    "  question_id TEXT NOT NULL,\n"
    "  variant INTEGER NOT NULL,\n"
    "  answer TEXT NOT NULL,\n"
    "  parsed TEXT,\n"
    "  value REAL,\n"
    "  valid INTEGER NOT NULL CHECK (valid IN (0, 1)),\n"
    "  score REAL NOT NULL,\n"
    "  max REAL NOT NULL,\n"
    "  correct INTEGER NOT NULL CHECK (correct IN (0, 1)),\n"
    "  feedback TEXT NOT NULL,\n"
    "  rev_id INTEGER NOT NULL REFERENCES pack_revs(id),\n"
    "  regrade_of INTEGER REFERENCES attempts(id),\n"
    "  created_at TEXT NOT NULL\n"
    ");\n"
    "CREATE INDEX attempts_by_user ON attempts(user_id, pack_id, question_id, id);\n"
    "CREATE INDEX attempts_originals ON attempts(pack_id, id) WHERE regrade_of IS NULL;\n"
    "CREATE INDEX attempts_regrades ON attempts(regrade_of) WHERE regrade_of IS NOT NULL;\n"
    "CREATE TRIGGER attempts_no_update BEFORE UPDATE ON attempts\n"
    "BEGIN SELECT RAISE(ABORT, 'attempts are append-only'); END;\n"
    "CREATE TRIGGER attempts_no_delete BEFORE DELETE ON attempts\n"
    "BEGIN SELECT RAISE(ABORT, 'attempts are append-only'); END;\n"
    "CREATE TRIGGER attempts_rev_of_pack BEFORE INSERT ON attempts\n"
    "WHEN (SELECT pack_id FROM pack_revs WHERE id = NEW.rev_id) IS NOT NEW.pack_id\n"
    "BEGIN SELECT RAISE(ABORT, 'the attempt''s rev_id is not a revision of its pack'); END;\n"

    "CREATE TABLE selfassess (\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  user_id INTEGER NOT NULL REFERENCES users(id),\n"
    "  item TEXT NOT NULL,\n"
    "  score REAL NOT NULL,\n"
    "  max REAL NOT NULL CHECK (max > 0),\n"
    "  created_at TEXT NOT NULL\n"
    ");\n"
    "CREATE INDEX selfassess_by_user ON selfassess(user_id, item, id);\n"

    "CREATE TABLE lab_runs (\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  user_id INTEGER NOT NULL REFERENCES users(id),\n"
    "  lab TEXT NOT NULL,\n"
    "  params_json TEXT NOT NULL,\n"
    "  machine_json TEXT NOT NULL,\n"
    "  summary_json TEXT,\n"
    "  status TEXT NOT NULL CHECK (status IN ('running', 'done', 'cancelled', 'failed')),\n"
    "  started_at TEXT NOT NULL,\n"
    "  ended_at TEXT\n"
    ");\n"
    "CREATE INDEX lab_runs_by_user ON lab_runs(user_id, lab, status, id);\n"

    "CREATE TABLE lab_samples (\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  run_id INTEGER NOT NULL REFERENCES lab_runs(id),\n"
    "  series TEXT NOT NULL,\n"
    "  step INTEGER NOT NULL,\n"
    "  value REAL,\n" /* NULL for a NaN sample */
    "  t REAL NOT NULL\n"
    ");\n"
    "CREATE INDEX lab_samples_by_run ON lab_samples(run_id, series, step);\n";

/* Version 2:
 * - attempts.certainty: the student's stated certainty (1..3) for
 *   certainty-based marking, NULL when the pack does not use it. The score
 *   column stays the grader's plain score; the CBM mark is derived from both.
 * - positions: where each user last was in each lesson (page shown, question
 *   open), so the reader reopens there and home can offer "continue".
 * - lab_runs.error: why a failed or cancelled run stopped (NULL when done). */
static const char migration_2[] =
    "ALTER TABLE attempts ADD COLUMN certainty INTEGER CHECK (certainty IN (1, 2, 3));\n"

    "CREATE TABLE positions (\n"
    "  user_id INTEGER NOT NULL REFERENCES users(id),\n"
    "  pack_id TEXT NOT NULL,\n"
    "  lesson_id TEXT NOT NULL,\n"
    "  page INTEGER NOT NULL DEFAULT 0 CHECK (page >= 0),\n"
    "  question_id TEXT,\n"
    "  updated_at TEXT NOT NULL,\n"
    "  PRIMARY KEY (user_id, pack_id, lesson_id)\n"
    ");\n"
    "CREATE INDEX positions_recent ON positions(user_id, updated_at);\n"

    "ALTER TABLE lab_runs ADD COLUMN error TEXT;\n";

/* Version 3:
 * - lab_runs.owner: the process running a run ("host|boot|pid|start", see
 *   core_owner_self), so a run whose process was killed is closed as failed
 *   the next time the store is opened instead of staying "running". */
static const char migration_3[] = "ALTER TABLE lab_runs ADD COLUMN owner TEXT;\n";

/* Version 4:
 * - giveups: each time a student gives up on a question (the accepted answer
 *   and solution are shown). Append-only, like attempts. last_attempt is the
 *   highest attempts.id when it was stored, so "was this attempt made after
 *   a give-up" is an id comparison, free of clock ties: attempts with a
 *   larger id came later.
 * - selfscores: a design answer's rubric self-scores, one row per concept,
 *   kept with the attempt they were given for (ordinal: the rubric's order),
 *   so self and automatic scores can be compared later. Never changed. */
static const char migration_4[] =
    "CREATE TABLE giveups (\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  user_id INTEGER NOT NULL REFERENCES users(id),\n"
    "  pack_id TEXT NOT NULL,\n"
    "  question_id TEXT NOT NULL,\n"
    "  variant INTEGER NOT NULL,\n"
    "  rev_id INTEGER NOT NULL REFERENCES pack_revs(id),\n"
    "  last_attempt INTEGER NOT NULL DEFAULT 0,\n"
    "  created_at TEXT NOT NULL\n"
    ");\n"
    "CREATE INDEX giveups_by_user ON giveups(user_id, pack_id, question_id, id);\n"
    "CREATE TRIGGER giveups_no_update BEFORE UPDATE ON giveups\n"
    "BEGIN SELECT RAISE(ABORT, 'give-ups are append-only'); END;\n"
    "CREATE TRIGGER giveups_no_delete BEFORE DELETE ON giveups\n"
    "BEGIN SELECT RAISE(ABORT, 'give-ups are append-only'); END;\n"

    "CREATE TABLE selfscores (\n"
    "  attempt_id INTEGER NOT NULL REFERENCES attempts(id),\n"
    "  ordinal INTEGER NOT NULL,\n"
    "  concept TEXT NOT NULL,\n"
    "  score REAL NOT NULL CHECK (score >= 0),\n"
    "  max REAL NOT NULL CHECK (max > 0 AND score <= max),\n"
    "  PRIMARY KEY (attempt_id, concept)\n"
    ");\n"
    "CREATE TRIGGER selfscores_no_update BEFORE UPDATE ON selfscores\n"
    "BEGIN SELECT RAISE(ABORT, 'self-scores are append-only'); END;\n"
    "CREATE TRIGGER selfscores_no_delete BEFORE DELETE ON selfscores\n"
    "BEGIN SELECT RAISE(ABORT, 'self-scores are append-only'); END;\n";

/* Version 5 (attempt policy, exam mode, reproducible grades):
 * - attempts.params_json: the variant's parameters the answer was graded
 *   against (JSON, see grader_result.params_json; NULL when not writable
 *   or for attempts stored before version 5: the seed and the attempt's own
 *   revision reproduce those). attempts.grader_rev: the grading engine's
 *   revision (grader_revision()). A re-grade names its reason.
 * - questions.tries/penalty/per_try: the question's resolved attempt policy
 *   (grader_policy: tries 0 = unlimited; per_try a space-separated list of
 *   fractions, NULL to use penalty). Rows already stored get the kinds'
 *   defaults of this version, as a re-import would give them.
 * - lessons.exam/time_limit_s: exam mode and its time limit (0: none).
 * - exams: one row per user and exam lesson once started; submitted_at is
 *   set once (a trigger refuses any other change), deadline is NULL without
 *   a time limit. */
static const char migration_5[] =
    "ALTER TABLE attempts ADD COLUMN params_json TEXT;\n"
    "ALTER TABLE attempts ADD COLUMN grader_rev TEXT;\n"
    "ALTER TABLE attempts ADD COLUMN regrade_reason TEXT;\n"

    "ALTER TABLE questions ADD COLUMN tries INTEGER NOT NULL DEFAULT 0 CHECK (tries >= 0);\n"
    "ALTER TABLE questions ADD COLUMN penalty REAL NOT NULL DEFAULT 0 "
    "CHECK (penalty >= 0 AND penalty <= 1);\n"
    "ALTER TABLE questions ADD COLUMN per_try TEXT;\n"
    "UPDATE questions SET tries = 2, penalty = 1 WHERE kind IN ('choice', 'multi', 'ordering');\n"
    "UPDATE questions SET tries = 5, penalty = 0.1 WHERE kind = 'numeric';\n"
    "UPDATE questions SET tries = 3, penalty = 1.0 / 3 WHERE kind = 'text';\n"
    "UPDATE questions SET tries = 3, penalty = 0.2 WHERE kind = 'design';\n"

    "ALTER TABLE lessons ADD COLUMN exam INTEGER NOT NULL DEFAULT 0 CHECK (exam IN (0, 1));\n"
    "ALTER TABLE lessons ADD COLUMN time_limit_s INTEGER NOT NULL DEFAULT 0 "
    "CHECK (time_limit_s >= 0);\n"

    "CREATE TABLE exams (\n"
    "  user_id INTEGER NOT NULL REFERENCES users(id),\n"
    "  pack_id TEXT NOT NULL,\n"
    "  lesson_id TEXT NOT NULL,\n"
    "  rev_id INTEGER NOT NULL REFERENCES pack_revs(id),\n"
    "  started_at TEXT NOT NULL,\n"
    "  deadline TEXT,\n"
    "  submitted_at TEXT,\n"
    "  PRIMARY KEY (user_id, pack_id, lesson_id)\n"
    ");\n"
    "CREATE TRIGGER exams_submit_once BEFORE UPDATE ON exams\n"
    "WHEN OLD.submitted_at IS NOT NULL OR NEW.submitted_at IS NULL\n"
    "  OR NEW.started_at IS NOT OLD.started_at OR NEW.deadline IS NOT OLD.deadline\n"
    "  OR NEW.rev_id IS NOT OLD.rev_id OR NEW.user_id IS NOT OLD.user_id\n"
    "  OR NEW.pack_id IS NOT OLD.pack_id OR NEW.lesson_id IS NOT OLD.lesson_id\n"
    "BEGIN SELECT RAISE(ABORT, 'an exam is submitted once and never changed'); END;\n"
    "CREATE TRIGGER exams_no_delete BEFORE DELETE ON exams\n"
    "BEGIN SELECT RAISE(ABORT, 'exams are never deleted'); END;\n";

/* Version 6 (the class loop: an instructor's reviews come back):
 * - reviews: an instructor's review of one of the student's attempts (a
 *   design answer), imported from a feedback file. uid is unique across
 *   class stores (class store uid, review id), so importing a feedback file
 *   twice stores nothing new. score/max are out of the question's points;
 *   the review that counts for an attempt is the latest reviewed_at (then
 *   the latest stored), and it counts instead of the automatic grade and
 *   any re-grade. Append-only.
 * - review_scores: the reviewer's score per rubric concept. */
static const char migration_6[] =
    "CREATE TABLE reviews (\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  attempt_id INTEGER NOT NULL REFERENCES attempts(id),\n"
    "  uid TEXT NOT NULL UNIQUE,\n"
    "  score REAL NOT NULL CHECK (score >= 0),\n"
    "  max REAL NOT NULL CHECK (max > 0 AND score <= max),\n"
    "  comment TEXT NOT NULL DEFAULT '',\n"
    "  reviewer TEXT,\n"
    "  reviewed_at TEXT NOT NULL,\n"
    "  imported_at TEXT NOT NULL\n"
    ");\n"
    "CREATE INDEX reviews_by_attempt ON reviews(attempt_id, reviewed_at, id);\n"
    "CREATE TRIGGER reviews_no_update BEFORE UPDATE ON reviews\n"
    "BEGIN SELECT RAISE(ABORT, 'reviews are append-only'); END;\n"
    "CREATE TRIGGER reviews_no_delete BEFORE DELETE ON reviews\n"
    "BEGIN SELECT RAISE(ABORT, 'reviews are append-only'); END;\n"
    "CREATE TABLE review_scores (\n"
    "  review_id INTEGER NOT NULL REFERENCES reviews(id),\n"
    "  ordinal INTEGER NOT NULL,\n"
    "  concept TEXT NOT NULL,\n"
    "  score REAL NOT NULL CHECK (score >= 0),\n"
    "  max REAL NOT NULL CHECK (max > 0 AND score <= max),\n"
    "  PRIMARY KEY (review_id, concept)\n"
    ");\n"
    "CREATE TRIGGER review_scores_no_update BEFORE UPDATE ON review_scores\n"
    "BEGIN SELECT RAISE(ABORT, 'reviews are append-only'); END;\n"
    "CREATE TRIGGER review_scores_no_delete BEFORE DELETE ON review_scores\n"
    "BEGIN SELECT RAISE(ABORT, 'reviews are append-only'); END;\n";

/* Version 7 (graded work in a class: sealed releases):
 * - lessons.graded/sealed: lesson{ graded = true }, and whether the lesson
 *   is sealed here (a graded or exam lesson of a release: its answers are
 *   recorded ungraded, for the instructor to grade).
 * - users.student_id: the id a student answers a class's releases under
 *   (set once; a sealed variant is drawn from it and the class salt).
 * - attempts.sealed: recorded without a grade (score 0, feedback empty):
 *   the grade comes from the instructor. attempts.seq: the attempt's place
 *   among the user's original attempts at its pack (1, 2, ...), so a
 *   deleted attempt leaves a gap an instructor's import sees.
 * - store_meta: the store's own uid (random, made once), which submissions
 *   carry: two stores claiming one student are told apart.
 * - releases: the instructor's record of each release made with `pack
 *   release`: its digest (what students' answers name), the source
 *   revision it was made from, the class salt, and the order it shows the
 *   items of each sealed ordering question in (JSON: {"qid": [2,0,1]}).
 * - officials: the official grades a feedback file brought (per question,
 *   and per lesson with question_id NULL); the latest per item counts. */
static const char migration_7[] =
    "ALTER TABLE lessons ADD COLUMN graded INTEGER NOT NULL DEFAULT 0 CHECK (graded IN (0, 1));\n"
    "ALTER TABLE lessons ADD COLUMN sealed INTEGER NOT NULL DEFAULT 0 CHECK (sealed IN (0, 1));\n"
    "ALTER TABLE users ADD COLUMN student_id TEXT;\n"
    "ALTER TABLE attempts ADD COLUMN sealed INTEGER NOT NULL DEFAULT 0 CHECK (sealed IN (0, 1));\n"
    "ALTER TABLE attempts ADD COLUMN seq INTEGER;\n"
    "CREATE INDEX attempts_seq ON attempts(user_id, pack_id, seq) WHERE regrade_of IS NULL;\n"

    "CREATE TABLE store_meta (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL);\n"
    "INSERT INTO store_meta(key, value) VALUES ('uid', lower(hex(randomblob(16))));\n"

    "CREATE TABLE releases (\n"
    "  digest TEXT PRIMARY KEY NOT NULL,\n"
    "  pack_id TEXT NOT NULL,\n"
    "  rev_id INTEGER NOT NULL REFERENCES pack_revs(id),\n"
    "  version TEXT NOT NULL,\n"
    "  salt TEXT NOT NULL,\n"
    "  perms TEXT NOT NULL DEFAULT '{}',\n"
    "  made_at TEXT NOT NULL\n"
    ");\n"
    "CREATE INDEX releases_by_pack ON releases(pack_id, made_at);\n"

    "CREATE TABLE officials (\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  user_id INTEGER NOT NULL REFERENCES users(id),\n"
    "  uid TEXT NOT NULL UNIQUE,\n"
    "  pack_id TEXT NOT NULL,\n"
    "  lesson_id TEXT,\n"
    "  question_id TEXT,\n"
    "  score REAL CHECK (score IS NULL OR score >= -1e9),\n"
    "  max REAL NOT NULL CHECK (max >= 0),\n"
    "  status TEXT NOT NULL,\n"
    "  note TEXT NOT NULL DEFAULT '',\n"
    "  graded_at TEXT NOT NULL,\n"
    "  imported_at TEXT NOT NULL\n"
    ");\n"
    "CREATE INDEX officials_by_user ON officials(user_id, pack_id, question_id, graded_at, id);\n";

const char *const db_migrations[] = {
    migration_1, /* 0 -> 1 */
    migration_2, /* 1 -> 2 */
    migration_3, /* 2 -> 3 */
    migration_4, /* 3 -> 4 */
    migration_5, /* 4 -> 5 */
    migration_6, /* 5 -> 6 */
    migration_7, /* 6 -> 7 */
};

_Static_assert(sizeof db_migrations / sizeof db_migrations[0] == DB_SCHEMA_VERSION,
               "db_migrations[] must have one step per schema version");
_Static_assert(DB_APPLICATION_ID == 1463960392, "migration_1 writes DB_APPLICATION_ID");

static int read_version(struct db *db, int *v, struct core_err *err)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db->h, "PRAGMA user_version", -1, &st, NULL);
    if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        *v = sqlite3_column_int(st, 0);
        rc = SQLITE_OK;
    }
    int ret =
        rc == SQLITE_OK ? 0 : db_fail(db, err, rc, "store %s: reading user_version", db->path);
    sqlite3_finalize(st);
    return ret;
}

int db_migrate(struct db *db, const char *const *steps, int n_steps, struct core_err *err)
{
    int v = 0;
    int rc = read_version(db, &v, err);
    while (!rc && v < n_steps) {
        /* IMMEDIATE: two processes opening a fresh store at once serialise
         * here, and the second sees the version the first committed. */
        int src = sqlite3_exec(db->h, "BEGIN IMMEDIATE", NULL, NULL, NULL);
        if (src != SQLITE_OK) {
            rc = db_fail(db, err, src, "store %s: starting migration", db->path);
            break;
        }
        rc = read_version(db, &v, err);
        if (rc || v >= n_steps)
            goto end_step;
        src = sqlite3_exec(db->h, steps[v], NULL, NULL, NULL);
        if (src != SQLITE_OK) {
            rc = db_fail(db, err, src, "store %s: migrating schema %d -> %d", db->path, v, v + 1);
            goto end_step;
        }
        char bump[48];
        snprintf(bump, sizeof bump, "PRAGMA user_version = %d", v + 1);
        src = sqlite3_exec(db->h, bump, NULL, NULL, NULL);
        if (src != SQLITE_OK) {
            rc = db_fail(db, err, src, "store %s: migrating schema %d -> %d", db->path, v, v + 1);
            goto end_step;
        }
    end_step:
        if (rc) {
            sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
            break;
        }
        src = sqlite3_exec(db->h, "COMMIT", NULL, NULL, NULL);
        if (src != SQLITE_OK) {
            rc = db_fail(db, err, src, "store %s: committing migration", db->path);
            sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
            break;
        }
        rc = read_version(db, &v, err);
    }
    if (!rc)
        db->version = v;
    return rc;
}
