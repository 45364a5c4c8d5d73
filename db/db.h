/*
 * db.h — the Warpbench store: one SQLite file holding packs and their Lua
 * sources, the lessons/pages/questions imported from them, users, attempts
 * (append-only), self-assessments, and lab runs with their metric samples.
 *
 * Invariants: WAL journal, foreign keys on, a busy timeout, the schema version
 * in PRAGMA user_version, forward migrations from every earlier version run on
 * open. Every write that a function reports as done is committed (durable)
 * when it returns. No SQLITE_* code or sqlite3 type leaves this module; errors
 * come back as CORE_ERR_* with a message. Every string a function hands out
 * is a copy owned by the caller (freed through the matching _fini/_free).
 *
 * Uses core (errors, buffers, clocks). The only module that includes sqlite3.h.
 */
#ifndef WB_DB_H
#define WB_DB_H

#include "core/core.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct db;

/* The schema version this build writes (PRAGMA user_version). */
#define DB_SCHEMA_VERSION 7

/* ---- open / close -------------------------------------------------------- */

/* Opens (creating when missing) the store at `path`, creating its parent
 * directory, applying pragmas and running migrations up to
 * DB_SCHEMA_VERSION. A file whose user_version is newer than this build is
 * refused with CORE_ERR_CONFLICT ("made by a newer Warpbench"); a file that is
 * not a SQLite database gives CORE_ERR_STORE naming the path.
 * Lab runs still "running" whose owning process is certainly gone (killed
 * with SIGKILL, a crash, a reboot: see core_owner_alive) are closed, best
 * effort (a read-only store keeps them): with the closing note the process
 * left in the run's side file when it has one (db_labrun_note_fd), else as
 * "failed" because it was killed or crashed.
 * `path` must name a regular file (or a link to one) or nothing: a
 * directory, a device (/dev/null), a FIFO or a socket is CORE_ERR_USAGE.
 * A store not closed cleanly is checked (see db_damaged).
 * Caller closes with db_close(). */
int db_open(struct db **out, const char *path, struct core_err *err);

/* Closes the store. db_close(NULL) does nothing. */
void db_close(struct db *db);

/* Non-NULL when db_open found the store damaged: PRAGMA quick_check's first
 * complaint. It runs when a store is opened after an unclean close (no
 * other process had it open and its write-ahead log was still there), and
 * again on every open once damage was found. A damaged store is read-only:
 * reads work as far as the damage allows, and every write fails with
 * CORE_ERR_STORE "store X is damaged: not written to". Borrowed. */
const char *db_damaged(const struct db *db);

/* The shell command that copies what the store at `path` still holds into a
 * new store at `to` (sqlite3's .dump, with the store's identity). Caller
 * frees. */
char *db_recover_command(const char *path, const char *to);

/* Writes the default store path into a malloc'd string:
 * $WARPBENCH_DB, else $XDG_DATA_HOME/warpbench/warpbench.db, else
 * $HOME/.local/share/warpbench/warpbench.db. Caller frees. NULL only when
 * none of WARPBENCH_DB, XDG_DATA_HOME and HOME is set. */
char *db_path_default(void);

/* The schema version of the open store (for tests and `warpbench --version`). */
int db_schema_version(struct db *db);

/* ---- users --------------------------------------------------------------- */

/* Finds or creates the user `name` (1..64 printable characters) and returns
 * its id in *id. CORE_ERR_INVALID for an empty or too long name. */
int db_user_ensure(struct db *db, const char *name, int64_t *id, struct core_err *err);

/* A student id: 1 to DB_STUDENT_ID_MAX characters, no spaces, no control
 * characters. */
#define DB_STUDENT_ID_MAX 64
bool db_student_id_ok(const char *sid);

/* The student id of user_id (a class's releases are answered under it),
 * *out NULL when none is set. Caller frees. CORE_ERR_NOTFOUND for an
 * unknown user. */
int db_user_student_id(struct db *db, int64_t user_id, char **out, struct core_err *err);

/* Sets user_id's student id (db_student_id_ok, else CORE_ERR_INVALID).
 * Once graded (sealed) answers were made under an id, it cannot change
 * (CORE_ERR_CONFLICT): their numbers were drawn for it. */
int db_user_set_student_id(struct db *db, int64_t user_id, const char *sid, struct core_err *err);

/* The store's own uid: 32 hex digits made once (schema 7), which tells two
 * stores apart. */
int db_store_uid(struct db *db, char out[33], struct core_err *err);

/* ---- releases (an instructor's record of `pack release`) ----------------- */

struct db_release_in {
    const char *digest; /* the release's content digest (db_pack_digest) */
    const char *pack_id;
    int64_t rev_id;         /* the source revision it was made from */
    const char *version;    /* the source's version */
    const char *salt;       /* the class salt */
    const char *perms_json; /* sealed ordering items: {"qid": [2, 0, 1]}; NULL: {} */
};

struct db_release {
    char *digest, *pack_id, *version, *salt, *perms_json, *made_at;
    int64_t rev_id;
};
void db_release_fini(struct db_release *r);
void db_releases_free(struct db_release *r, size_t n);

/* Records a release (the same digest again: nothing changes). */
int db_release_add(struct db *db, const struct db_release_in *in, struct core_err *err);
/* The release with this digest, or the latest of a pack;
 * CORE_ERR_NOTFOUND when there is none. */
int db_release_get(struct db *db, const char *digest, struct db_release *out, struct core_err *err);
int db_release_latest(struct db *db, const char *pack_id, struct db_release *out,
                      struct core_err *err);
/* Every release (of one pack, or all), oldest first. */
int db_release_list(struct db *db, const char *pack_id, struct db_release **out, size_t *n,
                    struct core_err *err);

/* The revision of pack_id (current or not) whose content digest is
 * `digest`; *version (optional, caller frees) its version.
 * CORE_ERR_NOTFOUND when none. */
int db_pack_rev_by_digest(struct db *db, const char *pack_id, const char *digest, int64_t *rev_id,
                          char **version, struct core_err *err);

/* Calls fn for every text (and blob) value of every table of the store:
 * what a release check searches for a leaked answer. */
int db_text_each(struct db *db,
                 void (*fn)(const char *table, const char *text, size_t len, void *ctx), void *ctx,
                 struct core_err *err);

/* ---- official grades (from an instructor's feedback file) ---------------- */

/* One official grade: of a question (question_id set) or a lesson's total
 * (question_id NULL). Borrowed. */
struct db_official_in {
    const char *uid; /* unique per grade given: importing a file twice adds nothing */
    const char *pack_id, *lesson_id, *question_id;
    bool has_score; /* false: withheld (flagged, or waiting for review) */
    double score, max;
    const char *status; /* "graded", "late", "flagged", "pending review", ... */
    const char *note;   /* why, for the student (may be NULL) */
    const char *graded_at;
};

/* Stores official grades in one transaction; *added (optional) how many
 * were new. */
int db_official_insert_many(struct db *db, int64_t user_id, const struct db_official_in *in,
                            size_t n, size_t *added, struct core_err *err);

struct db_official {
    char *pack_id, *lesson_id, *question_id; /* question_id NULL: a lesson's total */
    bool has_score;
    double score, max;
    char *status, *note, *graded_at;
};
void db_officials_free(struct db_official *o, size_t n);
/* The latest official grade of each item, by pack, lesson, then question. */
int db_official_list(struct db *db, int64_t user_id, const char *pack_id, struct db_official **out,
                     size_t *n, struct core_err *err);

/* ---- packs --------------------------------------------------------------- */

/* One source file of a pack, as read from the pack folder. Borrowed. */
struct db_file_in {
    const char *path; /* relative to the pack folder, '/'-separated */
    const char *data;
    size_t len;
};

struct db_lesson_in {
    const char *id;
    const char *title;
    const char *file; /* source file that declared it */
    bool exam;        /* exam mode: one try, feedback after the lesson is submitted */
    int time_limit_s; /* exam time limit, 0 for none */
    bool graded;      /* lesson{ graded = true }: graded work of a class */
    bool sealed;      /* graded or exam in a release: answers recorded ungraded */
};

struct db_page_in {
    const char *lesson_id;
    const char *title;    /* may be NULL */
    const char *markdown; /* as written, before rendering */
};

struct db_question_in {
    const char *id;
    const char *lesson_id;
    const char *kind;   /* "numeric", "choice", "multi", "ordering", "text", "design" */
    const char *title;  /* may be NULL */
    const char *prompt; /* the template, before variant numbers are filled in */
    double points;
    const char *topics; /* comma-separated, may be "" */
    const char *rubric; /* comma-separated rubric items, may be "" */
    const char *lab;    /* linked lab name or NULL */
    const char *file;
    int line;
    int page_after; /* index (0-based, within its lesson) of the page it follows; -1 before any */
    /* The resolved attempt policy (see grader_policy): maximum tries (0 =
     * unlimited), penalty per wrong try, or per_try: the fractions each try
     * can earn, space-separated ("1 0.5 0.25"), NULL to use penalty. */
    int tries;
    double penalty;
    const char *per_try;
};

/* A whole pack to import. Ordinals are the array orders, 0-based: lessons
 * within the pack, pages and questions within their lesson. Borrowed. */
struct db_pack_in {
    const char *id;
    const char *version;
    const char *title;
    const char *description; /* may be NULL */
    const struct db_file_in *files;
    size_t n_files;
    const struct db_lesson_in *lessons;
    size_t n_lessons;
    const struct db_page_in *pages;
    size_t n_pages;
    const struct db_question_in *questions;
    size_t n_questions;
};

enum db_import_result {
    DB_IMPORT_NEW = 0,       /* pack not seen before */
    DB_IMPORT_UNCHANGED = 1, /* same version, same sources: nothing written */
    DB_IMPORT_REPLACED = 2   /* a new revision replaced lessons, pages, questions */
};

/* Imports a pack in one transaction. The revision's digest is the SHA-256
 * over the sorted (path, content) pairs. Same id + same digest: no-op
 * (DB_IMPORT_UNCHANGED). Same id + same version + different digest:
 * CORE_ERR_CONFLICT ("pack X version V is already imported with other
 * content; raise its version") unless `force`. Otherwise a new revision is
 * stored with its files, and the pack's lessons, pages and questions are
 * replaced by the new ones; attempts are untouched and keep pointing at the
 * revision they were graded with. *result and *rev_id (both optional) say
 * what happened. */
int db_pack_import(struct db *db, const struct db_pack_in *in, bool force,
                   enum db_import_result *result, int64_t *rev_id, struct core_err *err);

/* The digest db_pack_import gives a revision: SHA-256 over the files sorted
 * by path, feeding for each its path, a NUL byte, its length as 8 bytes
 * little-endian, then its content. Lets callers skip work for content the
 * store already holds. (Implemented in db/db_digest.c.) */
void db_pack_digest(const struct db_file_in *files, size_t n, char out[65]);

/* A pack as listed. */
struct db_pack {
    char *id;
    char *version;
    char *title;
    char *description;
    char *digest;
    char *imported_at; /* ISO-8601 */
    int64_t rev_id;    /* current revision */
    int n_lessons;
    int n_questions;
};
void db_pack_fini(struct db_pack *p);

/* Lists packs ordered by id into a malloc'd array (caller frees each with
 * db_pack_fini and the array with free()). */
int db_pack_list(struct db *db, struct db_pack **out, size_t *n, struct core_err *err);

/* Looks up one pack's current revision; CORE_ERR_NOTFOUND when absent. */
int db_pack_get(struct db *db, const char *id, struct db_pack *out, struct core_err *err);

/* A stored source file. */
struct db_file {
    char *path;
    char *data; /* NUL-terminated copy; len excludes the NUL */
    size_t len;
    char sha256[65];
};
void db_files_free(struct db_file *files, size_t n);

/* Loads the files of revision rev_id, ordered by path. Caller frees with
 * db_files_free. CORE_ERR_NOTFOUND for an unknown revision. */
int db_pack_files(struct db *db, int64_t rev_id, struct db_file **out, size_t *n,
                  struct core_err *err);

/* The stored SHA-256 (64 hex digits) of file `path` of revision rev_id,
 * without reading its content. CORE_ERR_NOTFOUND when the revision has no
 * such file. */
int db_pack_file_sha256(struct db *db, int64_t rev_id, const char *path, char out[65],
                        struct core_err *err);

/* ---- lessons, pages, questions ------------------------------------------ */

struct db_lesson {
    char *pack_id;
    char *id;
    char *title;
    int ordinal;
    int n_pages;
    int n_questions;
    bool exam;
    int time_limit_s;
    bool graded, sealed; /* as db_lesson_in */
};
void db_lessons_free(struct db_lesson *l, size_t n);

/* Lessons of every pack (pack_id NULL) or of one, in pack then lesson order. */
int db_lesson_list(struct db *db, const char *pack_id, struct db_lesson **out, size_t *n,
                   struct core_err *err);

struct db_page {
    int ordinal;
    char *title;
    char *markdown;
};
void db_pages_free(struct db_page *p, size_t n);

/* Pages of a lesson in order. CORE_ERR_NOTFOUND when the lesson is unknown. */
int db_page_list(struct db *db, const char *pack_id, const char *lesson_id, struct db_page **out,
                 size_t *n, struct core_err *err);

struct db_question {
    char *pack_id;
    char *id;
    char *lesson_id;
    int ordinal;
    char *kind;
    char *title;
    char *prompt;
    double points;
    char *topics;
    char *rubric;
    char *lab;
    char *file;
    int line;
    int page_after;
    int64_t rev_id; /* the pack's current revision */
    int tries;      /* attempt policy, as db_question_in */
    double penalty;
    char *per_try; /* NULL: penalty applies */
    bool exam;     /* its lesson is in exam mode */
    int time_limit_s;
    bool graded; /* its lesson is graded work (lesson{ graded = true }) */
    bool sealed; /* its lesson is sealed (db_lesson_in): answers are recorded ungraded */
};
void db_question_fini(struct db_question *q);
void db_questions_free(struct db_question *q, size_t n);

/* Questions of one lesson (lesson_id non-NULL) or of a whole pack, in order. */
int db_question_list(struct db *db, const char *pack_id, const char *lesson_id,
                     struct db_question **out, size_t *n, struct core_err *err);

/* Finds a question by id. `qid` is either "pack_id:question_id" or a bare
 * question id; a bare id that exists in several packs is CORE_ERR_USAGE
 * naming them, an unknown one CORE_ERR_NOTFOUND. */
int db_question_find(struct db *db, const char *qid, struct db_question *out, struct core_err *err);

/* ---- attempts (append-only) --------------------------------------------- */

struct db_attempt_in {
    int64_t user_id;
    const char *pack_id;
    const char *question_id;
    int variant;
    const char *answer; /* as typed */
    const char *parsed; /* normalised form, may be NULL */
    double value;       /* parsed numeric value in base units */
    bool has_value;
    bool valid; /* false: the answer could not be read; score is not counted */
    double score;
    double max;
    bool correct;
    const char *feedback;
    int64_t rev_id;             /* the pack revision it was graded with */
    int64_t regrade_of;         /* 0 for a student's attempt, else the attempt it re-grades */
    int certainty;              /* certainty-based marking: 1..3 as stated, 0 for none (NULL) */
    const char *params_json;    /* the variant's parameters graded against, NULL if unknown */
    const char *grader_rev;     /* grader_revision() of the grading, NULL if unknown */
    const char *regrade_reason; /* a re-grade: why the score changed, NULL otherwise */
    /* A sealed answer: recorded ungraded (score 0, empty feedback); the
     * instructor grades it. Every original attempt also gets its place
     * among the user's attempts at the pack (attempts.seq). */
    bool sealed;
    /* The question's try limit (its policy's tries; 0: none): a readable
     * original attempt is refused when the user already has that many
     * tries at the question (db_attempt_insert). */
    int tries_limit;
};

/* The most original attempts (readable or not) a store records at one
 * question for one user; a submission with more is refused. */
#define DB_ATTEMPTS_MAX_PER_QUESTION 1000
/* The longest answer a store records: GRADER_MAX_ANSWER, what any question
 * may grade. */
#define DB_ANSWER_MAX 65536

/* Appends one attempt and commits before returning (durable against kill -9).
 * *id (optional) receives its id. The table refuses UPDATE and DELETE.
 * An original attempt (regrade_of 0) is checked and recorded in one write
 * transaction (BEGIN IMMEDIATE), so answers made at the same moment (two
 * terminals, a script) are counted one after the other: a readable one is
 * refused with CORE_ERR_CONFLICT when the user's tries at the question
 * (original readable attempts, or reviewed ones) already reach
 * in->tries_limit, any one when DB_ATTEMPTS_MAX_PER_QUESTION attempts are
 * recorded. An answer longer than DB_ANSWER_MAX is CORE_ERR_INVALID. */
int db_attempt_insert(struct db *db, const struct db_attempt_in *in, int64_t *id,
                      struct core_err *err);

/* Appends many attempts in one transaction (re-grading, bulk set-up). All
 * or nothing; no try limit is applied. */
int db_attempt_insert_batch(struct db *db, const struct db_attempt_in *in, size_t n,
                            struct core_err *err);

struct db_attempt {
    int64_t id;
    int64_t user_id;
    char *user;
    char *pack_id;
    char *question_id;
    int variant;
    char *answer;
    char *parsed;
    double value;
    bool has_value;
    bool valid;
    double score;
    double max;
    bool correct;
    char *feedback;
    int64_t rev_id;
    char *pack_version;
    int64_t regrade_of;
    char *created_at;
    int certainty;     /* 1..3, 0 when none was stated */
    bool after_giveup; /* made after the user gave up on this question (any variant) */
    char *params_json; /* NULL when not stored (before schema 5, or not writable) */
    char *grader_rev;  /* NULL when not stored */
    bool sealed;       /* recorded ungraded: the instructor grades it (db_attempt_in) */
    /* The latest re-grade of this attempt, which counts instead of it. */
    bool regraded;
    bool rg_valid;
    double rg_score;
    double rg_max;
    char *rg_feedback;
    char *rg_reason;
    /* The instructor's latest review of it (schema 6, db_review_*), which
     * counts instead of the grade and any re-grade. */
    bool reviewed;
    double rv_score, rv_max;
    char *rv_comment;
    char *rv_reviewer;
};
void db_attempts_free(struct db_attempt *a, size_t n);

/* A user's attempts at one question (question_id may be NULL for all of the
 * pack; pack_id NULL for all packs), oldest first, re-grades excluded. */
int db_attempt_list(struct db *db, int64_t user_id, const char *pack_id, const char *question_id,
                    struct db_attempt **out, size_t *n, struct core_err *err);

/* The user's readable tries at one question, oldest first: each valid
 * original attempt's score as a fraction of its max (its latest re-grade's
 * instead), *credited how many of them came before the user's first
 * give-up there (all when none), *gave_up whether the user gave up on it.
 * *fracs is malloc'd (caller frees; NULL when *n is 0). */
int db_attempt_tries(struct db *db, int64_t user_id, const char *pack_id, const char *question_id,
                     double **fracs, int *n, int *credited, bool *gave_up, struct core_err *err);

/* Whether the user has a readable original attempt or a give-up at one
 * question's `variant` (*used), and the highest variant of either (*highest,
 * 1 when none): lesson_variant_use without listing every attempt. */
int db_attempt_variant_use(struct db *db, int64_t user_id, const char *pack_id,
                           const char *question_id, int variant, bool *used, int *highest,
                           struct core_err *err);

/* Counts a user's valid original attempts at one question into *n. */
int db_attempt_count(struct db *db, int64_t user_id, const char *pack_id, const char *question_id,
                     int *n, struct core_err *err);

/* Calls fn for every original (non-regrade) attempt of a pack, oldest first,
 * with the attempt borrowed for the duration of the call. fn returns 0 to go
 * on, non-zero to stop (that value is returned). For re-grading. */
int db_attempt_each(struct db *db, const char *pack_id,
                    int (*fn)(const struct db_attempt *a, void *ctx), void *ctx,
                    struct core_err *err);

/* ---- design self-scores (kept with their attempt) ------------------------ */

/* One rubric concept the student scored themselves on. Borrowed. */
struct db_selfscore_in {
    const char *concept; /* the rubric concept's label, non-empty, unique per attempt */
    double score;        /* 0..max */
    double max;          /* > 0 */
};

/* db_attempt_insert that also stores the student's self-scores for it, in
 * one transaction (all or nothing, committed before returning). A bad
 * self-score (empty or repeated concept, score outside 0..max, max not
 * above 0, not finite) is CORE_ERR_INVALID naming the concept, and nothing
 * is stored. n_self == 0 is db_attempt_insert. */
int db_attempt_insert_selfscored(struct db *db, const struct db_attempt_in *in,
                                 const struct db_selfscore_in *self, size_t n_self, int64_t *id,
                                 struct core_err *err);

/* A stored self-score. */
struct db_selfscore {
    char *concept;
    double score;
    double max;
};
void db_selfscores_free(struct db_selfscore *s, size_t n);

/* The self-scores of attempt attempt_id in rubric order (none: *n = 0).
 * Caller frees with db_selfscores_free. */
int db_selfscore_list(struct db *db, int64_t attempt_id, struct db_selfscore **out, size_t *n,
                      struct core_err *err);

/* Per question, the user's latest self-scored attempt: the sum of its
 * self-scores beside its automatic score (its latest re-grade counts
 * instead). */
struct db_selfscore_row {
    char *pack_id;
    char *question_id;
    int64_t attempt_id;
    char *created_at;
    int n_concepts;
    double self;     /* sum of the self-scores */
    double self_max; /* sum of their maxima */
    bool valid;      /* the automatic grade could read the answer */
    double score;    /* automatic score */
    double max;      /* out of */
};
void db_selfscore_rows_free(struct db_selfscore_row *r, size_t n);

/* One row per question of the user's that has a self-scored attempt, in
 * every pack (pack_id NULL) or one, ordered by pack and question order
 * (questions no longer in the pack last, by id). Caller frees with
 * db_selfscore_rows_free. */
int db_selfscore_summary(struct db *db, int64_t user_id, const char *pack_id,
                         struct db_selfscore_row **out, size_t *n, struct core_err *err);

/* ---- give-ups (append-only) ---------------------------------------------- */

/* Records that the user gave up on a question (the accepted answer was
 * shown) at `variant`, with the pack revision it was shown from; committed
 * before returning. Attempts stored later at the same question read
 * after_giveup. *id (optional) receives its id. CORE_ERR_INVALID for a
 * missing pack or question id, a variant below 1, or a rev_id that is not a
 * revision of the pack. */
int db_giveup_insert(struct db *db, int64_t user_id, const char *pack_id, const char *question_id,
                     int variant, int64_t rev_id, int64_t *id, struct core_err *err);

struct db_giveup {
    int64_t id;
    char *pack_id;
    char *question_id;
    int variant;
    int64_t rev_id;
    int64_t last_attempt; /* attempts with a larger id came after it */
    char *created_at;     /* ISO-8601 UTC */
};
void db_giveups_free(struct db_giveup *g, size_t n);

/* The user's give-ups, oldest first: at one question (question_id non-NULL),
 * a pack, or all (pack_id NULL). Caller frees with db_giveups_free. */
int db_giveup_list(struct db *db, int64_t user_id, const char *pack_id, const char *question_id,
                   struct db_giveup **out, size_t *n, struct core_err *err);

/* ---- exams --------------------------------------------------------------- */

/* A user's sitting of an exam lesson (lessons.exam). */
struct db_exam {
    char *pack_id;
    char *lesson_id;
    int64_t rev_id;     /* the pack revision it was started under */
    char *started_at;   /* ISO-8601 UTC */
    char *deadline;     /* NULL without a time limit */
    char *submitted_at; /* NULL until submitted */
    bool over;          /* submitted, or the deadline has passed (as of the read) */
};
void db_exam_fini(struct db_exam *x);

/* Starts the user's sitting of exam lesson pack_id:lesson_id now, with a
 * deadline time_limit_s from now (0: none), unless it was started before:
 * then nothing changes (a sitting has one clock). *out receives the
 * sitting either way (db_exam_fini). CORE_ERR_INVALID when rev_id is not a
 * revision of the pack. Committed before returning. */
int db_exam_start(struct db *db, int64_t user_id, const char *pack_id, const char *lesson_id,
                  int64_t rev_id, int time_limit_s, struct db_exam *out, struct core_err *err);

/* The user's sitting; CORE_ERR_NOTFOUND when not started. */
int db_exam_get(struct db *db, int64_t user_id, const char *pack_id, const char *lesson_id,
                struct db_exam *out, struct core_err *err);

/* Marks the sitting submitted now. *submitted (optional) is false when it
 * was not started or was already submitted (nothing changes). */
int db_exam_submit(struct db *db, int64_t user_id, const char *pack_id, const char *lesson_id,
                   bool *submitted, struct core_err *err);

/* ---- progress ------------------------------------------------------------ */

/* Per-question standing of a user, before the attempt policy is applied
 * (lessons does that: lesson_progress_load). A try is a readable original
 * attempt; the latest re-grade of an attempt counts instead of it. Tries
 * made after the user's first give-up on the question (db_giveup_insert)
 * count in `attempts` and make the question `answered`, but earn nothing:
 * once the answer was shown, a right answer is not evidence the student
 * could find it. */
struct db_progress_row {
    char *pack_id;
    char *lesson_id;
    char *question_id;
    char *topics;
    char *rubric;
    double points;
    char *kind;
    int attempts;    /* valid attempts (tries) */
    double best;     /* best score of a try before any give-up, no policy applied */
    bool answered;   /* at least one valid attempt */
    double first;    /* score of the first valid attempt (at current points), 0 when none */
    int certainty;   /* certainty stated with that first attempt, 0 when none */
    bool gave_up;    /* the user gave up on it (saw the answer) at least once */
    double *fracs;   /* each try's score as a fraction of its max, oldest first */
    int n_fracs;     /* == attempts */
    int helped_from; /* tries before index helped_from came before any give-up */
    int tries;       /* the question's policy (db_question_in) */
    double penalty;
    char *per_try;
    bool exam;         /* its lesson is an exam */
    bool exam_started; /* ... which the user has started */
    bool exam_over;    /* ... and submitted, or whose time ran out */
    bool reviewed;     /* a try's score is an instructor's review (db_review_*) */
    /* A sealed question (db_question.sealed): its answers are recorded
     * ungraded, and what it earns is the official grade a feedback file
     * brought (the latest, db_official_*), or nothing yet (pending). */
    bool sealed;
    bool has_official;     /* an official grade (or a held one) arrived */
    bool official_pending; /* ... held by the instructor: flagged or awaiting review */
    double official;       /* the official points, at the question's points */
    char *official_status; /* "graded", "late", "flagged", ...; NULL when none */
    bool graded;           /* its lesson is graded work (graded or exam) */
    bool blocked;          /* a class gradebook: a flag withholds its credit */
};
void db_progress_free(struct db_progress_row *r, size_t n);

/* One row per question of every current pack (or of pack_id), in order. */
int db_progress(struct db *db, int64_t user_id, const char *pack_id, struct db_progress_row **out,
                size_t *n, struct core_err *err);

/* ---- self-assessments ---------------------------------------------------- */

/* Stores one dated self-rating of rubric item `item` (score out of max). */
int db_selfassess_insert(struct db *db, int64_t user_id, const char *item, double score, double max,
                         struct core_err *err);

/* One self-rating to store. Borrowed. */
struct db_selfassess_in {
    const char *item;
    double score;
    double max;
};

/* Stores a whole self-assessment (several items) in one transaction, every
 * row stamped with the same time. All or nothing; each row is checked as in
 * db_selfassess_insert (CORE_ERR_INVALID naming the item). n == 0 does
 * nothing. */
int db_selfassess_insert_many(struct db *db, int64_t user_id, const struct db_selfassess_in *in,
                              size_t n, struct core_err *err);

/* A stored self-rating. */
struct db_selfassess {
    int64_t id;
    char *item;
    double score;
    double max;
    char *created_at; /* ISO-8601 UTC */
};
void db_selfassess_free(struct db_selfassess *s, size_t n);

/* The user's latest rating of each item (the most recently stored one),
 * ordered by item. Caller frees with db_selfassess_free. */
int db_selfassess_latest(struct db *db, int64_t user_id, struct db_selfassess **out, size_t *n,
                         struct core_err *err);

/* Every rating the user stored, oldest first. Caller frees with
 * db_selfassess_free. */
int db_selfassess_list(struct db *db, int64_t user_id, struct db_selfassess **out, size_t *n,
                       struct core_err *err);

#include "db/db_class.h" /* the class loop: a part of this header of its own */

/* ---- reading positions ------------------------------------------------- */

/* Where a user is in a lesson: the page index shown (0-based) and the
 * question open, if any (NULL). */
struct db_position {
    char *pack_id;
    char *lesson_id;
    int page;
    char *question_id; /* NULL when none */
    char *updated_at;
};
void db_position_fini(struct db_position *p);

/* Records (insert or replace) the user's position in a lesson, stamped now. */
int db_position_set(struct db *db, int64_t user_id, const char *pack_id, const char *lesson_id,
                    int page, const char *question_id, struct core_err *err);

/* The user's position in one lesson; CORE_ERR_NOTFOUND when never opened. */
int db_position_get(struct db *db, int64_t user_id, const char *pack_id, const char *lesson_id,
                    struct db_position *out, struct core_err *err);

/* The lesson the user was in most recently; CORE_ERR_NOTFOUND when none. */
int db_position_latest(struct db *db, int64_t user_id, struct db_position *out,
                       struct core_err *err);

/* ---- lab runs and samples ------------------------------------------------ */

/* Starts a lab run record (status "running", owned by this process: see
 * db_open) and returns its id. params_json and machine_json are JSON objects
 * as text. Beside the store it creates the run's side file,
 * "<store>-run<ID>", holding 256 KiB of disk space set aside so the run can
 * be closed with its reason when the disk fills up during the run; a disk
 * too full for that is CORE_ERR_IO "disk full: ..." (the record is closed
 * as failed at once). The side file goes when the run ends. */
int db_labrun_begin(struct db *db, int64_t user_id, const char *lab, const char *params_json,
                    const char *machine_json, int64_t *run_id, struct core_err *err);

/* The descriptor of run_id's side file (owned by db; -1 when the run was
 * not begun on this handle, or has ended), for a process that must quit at
 * once to leave a closing note the next opener of the store applies: it
 * truncates the file (ftruncate, giving the reserve back) and writes, at
 * offset 0, "cancelled" or "failed", a newline, the reason and a newline.
 * ftruncate and pwrite are async-signal-safe, so a signal handler may. */
int db_labrun_note_fd(struct db *db, int64_t run_id);

/* Replaces a running run's machine description (a run across several hosts
 * learns them after it started). CORE_ERR_CONFLICT when the run is not
 * running. */
int db_labrun_set_machine(struct db *db, int64_t run_id, const char *machine_json,
                          struct core_err *err);

/* Appends samples in one transaction. Series names are borrowed. */
int db_labrun_samples(struct db *db, int64_t run_id, const struct core_sample *s, size_t n,
                      struct core_err *err);

/* Closes a run: status is "done", "cancelled" or "failed"; summary_json a
 * JSON object (may be NULL). */
int db_labrun_end(struct db *db, int64_t run_id, const char *status, const char *summary_json,
                  struct core_err *err);
/* db_labrun_end that also stores why the run stopped (error text, NULL for
 * none) in lab_runs.error. CORE_ERR_CONFLICT when the run has already ended,
 * CORE_ERR_NOTFOUND when there is no such run. When the write fails for lack
 * of space, the run's reserve is given back and the write tried again; if it
 * still fails, the status and reason are left as the side file's closing
 * note (a "done" run as "failed": its figures are lost) for db_open to
 * apply, and the error is returned. */
int db_labrun_finish(struct db *db, int64_t run_id, const char *status, const char *summary_json,
                     const char *error, struct core_err *err);

struct db_labrun {
    int64_t id;
    int64_t user_id;
    char *lab;
    char *params_json;
    char *machine_json;
    char *summary_json;
    char *status;
    char *started_at;
    char *ended_at; /* NULL while running */
    char *error;    /* why a cancelled or failed run stopped; NULL when none */
};
void db_labrun_fini(struct db_labrun *r);
void db_labruns_free(struct db_labrun *r, size_t n);

/* The user's latest run of `lab` with status "done"; CORE_ERR_NOTFOUND when
 * there is none. */
int db_labrun_latest(struct db *db, int64_t user_id, const char *lab, struct db_labrun *out,
                     struct core_err *err);

/* The user's latest "done" run of `lab` that ended at or before `before`
 * (an ISO-8601 UTC time as the store writes them), for re-grading an attempt
 * against the run it was answered from; CORE_ERR_NOTFOUND when none. */
int db_labrun_latest_before(struct db *db, int64_t user_id, const char *lab, const char *before,
                            struct db_labrun *out, struct core_err *err);

/* One run by id; CORE_ERR_NOTFOUND when there is none. */
int db_labrun_get(struct db *db, int64_t run_id, struct db_labrun *out, struct core_err *err);

/* The user's runs, newest first: all labs (lab NULL) or one; at most `limit`
 * (0: all). Caller frees with db_labruns_free. */
int db_labrun_list(struct db *db, int64_t user_id, const char *lab, size_t limit,
                   struct db_labrun **out, size_t *n, struct core_err *err);

/* A stored sample; value is NaN for a stored NULL. */
struct db_labsample {
    char *series;
    int64_t step;
    double value;
    double t;
};
void db_labsamples_free(struct db_labsample *s, size_t n);

/* A run's samples in the order they were recorded: all series (series NULL)
 * or one. Caller frees with db_labsamples_free. */
int db_labrun_samples_read(struct db *db, int64_t run_id, const char *series,
                           struct db_labsample **out, size_t *n, struct core_err *err);

/* Per series of a run: its name and sample count, in order of first
 * appearance. Caller frees names with free() each and both arrays. */
int db_labrun_series(struct db *db, int64_t run_id, char ***names, int64_t **counts, size_t *n,
                     struct core_err *err);

#endif /* WB_DB_H */
