/*
 * db_class.h — the part of db.h (the one public header of db/) for the class
 * loop's files and records: submission files, the class store, feedback
 * files, and the reviews kept in a student's store. It exists to keep db.h
 * readable; db.h includes it, and nothing else should.
 */
#ifndef WB_DB_CLASS_H
#define WB_DB_CLASS_H

#ifndef WB_DB_H
#error "include db/db.h, which includes this part of it"
#endif

/* ---- submission files (db_submit.c) ---------------------------------------
 *
 * What a student hands in (warpbench submit): one SQLite file of its own
 * schema (PRAGMA application_id "WBSB", version in user_version), written
 * once and never changed. Every string below is owned by the struct. */

#define DB_SUBMIT_VERSION 2 /* the submission schema this build writes */

/* What a file from someone else (a submission, a feedback file) may hold:
 * the product's own limits, so that a file `submit` wrote never meets them
 * while a crafted one cannot make an import allocate, grade or store
 * without end. A file beyond them is refused ("malformed submission:
 * attempts row 12: answer is longer than 65536 bytes"). */
#define DB_FILE_MAX_ANSWER 65536    /* GRADER_MAX_ANSWER: the longest answer any question grades */
#define DB_FILE_MAX_ATTEMPTS 100000 /* attempts in one file */
/* Attempts at one question: DB_ATTEMPTS_MAX_PER_QUESTION, what a store records */
#define DB_FILE_MAX_SAMPLES_PER_RUN 1000000 /* samples of one lab run */
#define DB_FILE_MAX_SAMPLES 4000000         /* samples in one file */
#define DB_FILE_MAX_ROWS 100000 /* rows of any other table: packs, runs, give-ups, reviews, ... */
#define DB_FILE_MAX_ID 64 /* ids (pack, question, lesson: grader_id_check), labs, series, users */
#define DB_FILE_MAX_LINE 1024 /* one-line texts: versions, titles, times, digests, concepts */
#define DB_FILE_MAX_TEXT (1024 * 1024)      /* feedback, comments, parameters, machine, errors */
#define DB_FILE_MAX_JSON (16 * 1024 * 1024) /* a lab summary: CORE_JSON_MAX_BYTES */

struct db_sub_pack {
    char *id, *version, *digest, *title; /* the pack's current revision in the student's store */
};

struct db_sub_attempt {
    int64_t id; /* its id in the student's store (stable: attempts are append-only) */
    char *pack_id, *question_id;
    int variant;
    char *answer;
    int certainty; /* 1..3, 0 none */
    char *created_at;
    char *params_json; /* the variant's parameters it was graded against; NULL unknown */
    char *grader_rev;  /* NULL unknown */
    char *pack_version, *pack_digest; /* the revision it was graded under */
    /* The grade the student's store counts (its latest re-grade, if any). */
    bool valid;
    double score, max;
    bool correct;
    char *feedback;
    bool regraded;
    int64_t lab_run; /* the submitted run it was answered from (lab-linked), 0 none */
    /* Format 2: a sealed answer (recorded ungraded: the grade above is
     * nothing), its place among the student's attempts at the pack (0:
     * unknown), and the answer as the student's machine read it. */
    bool sealed;
    int64_t seq;
    char *parsed;
};

struct db_sub_giveup {
    int64_t id;
    char *pack_id, *question_id;
    int variant;
    int64_t last_attempt; /* attempts with a larger id came after it */
    char *created_at;
};

struct db_sub_selfscore {
    int64_t attempt_id;
    int ordinal;
    char *concept;
    double score, max;
};

struct db_sub_rating { /* a course rubric self-rating (selfassess) */
    char *item;
    double score, max;
    char *created_at;
};

struct db_sub_exam {
    char *pack_id, *lesson_id;
    char *started_at, *deadline, *submitted_at; /* deadline, submitted_at may be NULL */
};

struct db_sub_run {
    int64_t id; /* its id in the student's store */
    char *lab, *params_json, *machine_json, *summary_json, *status, *started_at, *ended_at, *error;
    struct db_labsample *samples; /* in recorded order */
    size_t n_samples;
};

struct db_submission {
    char *uid;        /* unique per submit */
    char *user;       /* the student's user name (it seeds their variants) */
    char *student_id; /* --student-id, NULL when not given */
    char *created_at; /* ISO-8601 UTC */
    char *warpbench;  /* the version that wrote it */
    char *store_uid;  /* format 2: the uid of the store it came from (db_store_uid) */
    struct db_sub_pack *packs;
    size_t n_packs;
    struct db_sub_attempt *attempts; /* oldest first */
    size_t n_attempts;
    struct db_sub_giveup *giveups;
    size_t n_giveups;
    struct db_sub_selfscore *selfscores;
    size_t n_selfscores;
    struct db_sub_rating *ratings;
    size_t n_ratings;
    struct db_sub_exam *exams;
    size_t n_exams;
    struct db_sub_run *runs;
    size_t n_runs;
};
void db_submission_fini(struct db_submission *s);

/* Reads what user_id has done from the store into *out (meta fields left
 * NULL for the caller): the current revision of pack pack_id (NULL: of
 * every pack), every original attempt at it with the grade the store
 * counts, give-ups, design self-scores, every self-assessment, exam
 * sittings, and the lab runs lab-linked attempts were answered from (the
 * latest "done" run of the question's lab by the attempt's time) with their
 * samples. Nothing is written. CORE_ERR_NOTFOUND for an unknown pack_id.
 * Caller frees with db_submission_fini. */
int db_submission_gather(struct db *db, int64_t user_id, const char *pack_id,
                         struct db_submission *out, struct core_err *err);

/* Writes s as a submission file at `path`, which must not exist or be an
 * empty file the caller just created (it is opened as a new SQLite file;
 * the caller names the result, see core_file_publish). One transaction;
 * on error the file is left for the caller to remove. */
int db_submission_write(const char *path, const struct db_submission *s, struct core_err *err);

/* Reads and checks the submission file at path, read-only (nothing is
 * written beside it). Refused whole with CORE_ERR_STORE and a reason when
 * it is not a SQLite file, is another kind of file (a store, another
 * program's database), is damaged (integrity_check: a truncated file),
 * lacks a table or column, or breaks the format (no user or uid, a text
 * where a number belongs, a score that is not finite, a row pointing at
 * nothing); CORE_ERR_CONFLICT when a newer Warpbench wrote it. Caller frees
 * with db_submission_fini (also after an error: *out is then empty). */
int db_submission_read(const char *path, struct db_submission *out, struct core_err *err);

/* ---- the class store (db_class.c, db_class_read.c, db_class_review.c) ----
 *
 * An instructor's record of a class: a SQLite file of its own schema
 * ("WBCL"), separate from the instructor's own store (which holds the
 * packs it re-grades with). Students, every submission imported, the
 * attempts of each with the grade the student's machine recorded beside
 * the instructor's re-grade, lab runs with their plausibility, and the
 * reviews of design answers. A student's current submission is the newest
 * (by the time it was made) of theirs; only it counts. The functions below
 * take a struct db opened with db_class_open. */

#define DB_CLASS_VERSION 3

/* Opens (creating when missing) the class store at path: WAL, FULL
 * synchronous, foreign keys, its own migrations. Another kind of file is
 * CORE_ERR_STORE naming what it is. Caller closes with db_close. */
int db_class_open(struct db **out, const char *path, struct core_err *err);

/* The default class store for a user store at store_path: class.db in the
 * same folder. Caller frees. */
char *db_class_path_default(const char *store_path);

/* The class store's own random id (caller frees *uid). */
/* A class setting (meta key; "uid" is the store's own): *value NULL when
 * unset. Setting NULL removes it. The class keeps "deadline" (ISO) when
 * the instructor gives one to class import, for every later import and
 * re-grade. */
int db_class_setting(struct db *cs, const char *key, char **value, struct core_err *err);
int db_class_set_setting(struct db *cs, const char *key, const char *value, struct core_err *err);
int db_class_uid(struct db *cs, char **uid, struct core_err *err);

/* Whether submission uid was imported: *seen is 0 (never), 1 (with this
 * content digest) or -1 (with other content under the same uid). */
int db_class_submission_seen(struct db *cs, const char *uid, const char *digest, int *seen,
                             struct core_err *err);

/* One attempt to store, with both grades. Borrowed. */
struct db_class_attempt_in {
    const struct db_sub_attempt *sub; /* as submitted */
    bool after_giveup;                /* made after the student's first give-up at the question */
    bool graded;                      /* re-graded here; false: not (the grade below is not set) */
    bool valid;
    double score, max;
    bool correct;
    const char *parsed, *feedback;
    bool mistake;            /* the answer matched a declared mistake (grader_result.mistake) */
    const char *params_json; /* what it was re-graded against */
    const char *answer_sha;  /* SHA-256 of the answer, what a review names: for design
                                answers; NULL for the others */
    bool agree;              /* the re-grade equals what the student's machine recorded */
    const char *flag;        /* why not, or why it was not re-graded; NULL when agreeing */
    bool late;               /* made after the deadline: */
    double late_days;        /* ... by this many days */
    double late_factor;      /* ... and what the late rule leaves of its score (0..1) */
};

/* What an import found that a grade must not rest on. Borrowed. */
struct db_class_flag_in {
    const char *key;  /* names the finding across imports: "kind|pack|question|attempt" */
    const char *kind; /* "exam time", "attempt gap", "late", ... */
    const char *pack_id, *lesson_id, *question_id; /* what it is about; NULL: more */
    int64_t src_attempt;                           /* the attempt (student's id), 0: none */
    bool blocking; /* withholds the credit it names until the instructor clears it */
    const char *reason;
};

/* A submitted run with what the plausibility checks found. Borrowed. */
struct db_class_run_in {
    const struct db_sub_run *sub;
    const char *problems; /* "; "-separated, NULL: plausible */
};

struct db_class_import_in {
    const char *file;   /* the path it was imported from */
    const char *digest; /* SHA-256 of the file's bytes */
    const struct db_submission *sub;
    const char *key; /* the student: student_id when given, else the user name */
    const struct db_class_attempt_in *attempts; /* one per sub->attempts, same order */
    const struct db_class_run_in *runs;         /* one per sub->runs, same order */
    const char *const *graded_versions;         /* per sub->packs: the instructor's version its
                                                   attempts were re-graded with, NULL: none */
    const char *grader_rev;                     /* grader_revision() of the re-grading */
    const struct db_class_flag_in *flags;       /* what the checks found */
    size_t n_flags;
    /* The report's counts, kept with the submission. */
    int n_agree, n_disagree, n_lab_regraded, n_runs_flagged, n_failed, n_skipped;
    /* Called with `hook_ctx` once every row is written, before the commit
     * (NULL: none). For durability tests, which kill the process there. */
    void (*before_commit)(void *hook_ctx);
    void *hook_ctx;
};

enum db_class_import_result {
    DB_CLASS_NEW = 0,       /* the student's first submission, now current */
    DB_CLASS_NEWER = 1,     /* newer than the student's current one, which it supersedes */
    DB_CLASS_OLDER = 2,     /* older than the current one: kept, not counted */
    DB_CLASS_UNCHANGED = 3, /* imported before with the same content: nothing written */
    DB_CLASS_REPLACED = 4   /* imported before, re-graded again (replace): rows replaced */
};

/* Stores a re-graded submission in one transaction (all or nothing). The
 * same uid and digest again is DB_CLASS_UNCHANGED and writes nothing unless
 * `replace`; the same uid with another digest is CORE_ERR_CONFLICT. The
 * student (by key) is created or updated (user, student_id from the newest
 * submission). *superseded (optional, caller frees) gets the uid of the
 * submission that stopped counting, NULL when none. */
int db_class_import(struct db *cs, const struct db_class_import_in *in, bool replace,
                    enum db_class_import_result *result, char **superseded, struct core_err *err);

/* A student with a current submission. */
struct db_class_student {
    int64_t id;
    char *key, *user, *student_id; /* student_id NULL when none was given */
    int64_t submission;            /* the current one */
    char *uid, *submitted_at, *imported_at, *file;
    int n_attempts, n_agree, n_disagree, n_runs_flagged, n_failed, n_skipped;
};
void db_class_students_free(struct db_class_student *s, size_t n);

/* Every student with a current submission, by key. */
int db_class_students(struct db *cs, struct db_class_student **out, size_t *n,
                      struct core_err *err);

/* An attempt of a current submission as the class store holds it. */
struct db_class_attempt {
    int64_t id; /* in the class store (what `class review set` names) */
    int64_t student;
    int64_t src_id; /* in the student's store */
    char *pack_id, *question_id;
    int variant;
    char *answer;
    char *answer_sha; /* SHA-256 of the answer text (design answers), NULL for others */
    int certainty;
    char *created_at;
    bool after_giveup;
    int64_t lab_run;   /* class store run id, 0 none */
    char *params_json; /* as re-graded */
    bool rec_valid;    /* recorded by the student's machine */
    double rec_score, rec_max;
    bool graded; /* re-graded here */
    bool valid;
    double score, max;
    bool correct;
    char *parsed, *feedback;
    bool mistake;
    bool agree;
    char *flag;
    /* The latest review (design answers), which counts instead of the grade. */
    bool reviewed;
    double rv_score, rv_max;
    char *rv_comment;
    bool sealed;        /* a sealed answer: graded here only */
    int64_t seq;        /* its place among the student's attempts at the pack, 0: unknown */
    double late_factor; /* what the late rule leaves of its score: 1 on time */
};
void db_class_attempt_fini(struct db_class_attempt *a);
void db_class_attempts_free(struct db_class_attempt *a, size_t n);

/* Attempts of the current submissions, by student, pack, question and
 * src_id: of one pack (or all: NULL), one question (or all: NULL; with a
 * bare id), one student (0: all). */
int db_class_attempt_list(struct db *cs, const char *pack_id, const char *question_id,
                          int64_t student, struct db_class_attempt **out, size_t *n,
                          struct core_err *err);

/* One attempt (of any submission) by class store id; CORE_ERR_NOTFOUND. */
int db_class_attempt_get(struct db *cs, int64_t id, struct db_class_attempt *out,
                         struct core_err *err);

/* The self-scores submitted with class attempt `attempt`, in rubric order. */
int db_class_selfscores(struct db *cs, int64_t attempt, struct db_selfscore **out, size_t *n,
                        struct core_err *err);

/* A question a student of a current submission gave up on, or an exam
 * sitting (over: submitted, or its deadline passed before the submission
 * was made). */
struct db_class_mark {
    int64_t student;
    char *pack_id;
    char *id;  /* the question (give-ups) or the lesson (exams) */
    bool over; /* exams: the sitting is over */
};
void db_class_marks_free(struct db_class_mark *m, size_t n);
int db_class_giveups(struct db *cs, const char *pack_id, struct db_class_mark **out, size_t *n,
                     struct core_err *err);
int db_class_exams(struct db *cs, const char *pack_id, struct db_class_mark **out, size_t *n,
                   struct core_err *err);

/* The plausibility problems of the current submissions' lab runs. */
struct db_class_run {
    int64_t id, student, src_id;
    char *lab, *problems; /* problems NULL when plausible */
};
void db_class_runs_free(struct db_class_run *r, size_t n);
int db_class_runs(struct db *cs, struct db_class_run **out, size_t *n, struct core_err *err);

/* A submission as the class store keeps it, read back whole (to grade it
 * again: class regrade). The grades the student's machine recorded come
 * back; its feedback texts and parsed forms do not (they are not kept). */
struct db_class_stored {
    int64_t id;
    struct db_submission sub;
    char *digest, *file; /* the file's SHA-256, and where it was imported from */
    char *grader_rev;    /* the grader revision it was graded with */
};
void db_class_stored_fini(struct db_class_stored *s);
/* Reads submission `submission` of the class store; CORE_ERR_NOTFOUND. */
int db_class_stored_load(struct db *cs, int64_t submission, struct db_class_stored *out,
                         struct core_err *err);

/* Writes a copy of the store's database to a new file at path (VACUUM
 * INTO): what a dry run works on. */
int db_copy_to(struct db *db, const char *path, struct core_err *err);

/* ---- flags and the roster (db_class_flags.c) ---- */

/* A flag an import stored, with its clearing. */
struct db_class_flag {
    int64_t id, student;
    char *student_key, *user;
    char *key, *kind;
    char *pack_id, *lesson_id, *question_id; /* NULL: the flag is about more */
    int64_t src_attempt;                     /* 0: not one attempt */
    bool blocking;                           /* withholds credit until cleared */
    char *reason, *created_at;
    bool cleared; /* the instructor cleared its key for this student */
    char *clear_why, *cleared_at, *cleared_by;
    bool current; /* found in the student's current submission */
};
void db_class_flags_free(struct db_class_flag *f, size_t n);

/* The flags of the current submissions (all_submissions: of every
 * submission), of one student (0: all), by student key then id. */
int db_class_flags(struct db *cs, int64_t student, bool all_submissions, struct db_class_flag **out,
                   size_t *n, struct core_err *err);

/* Clears flag flag_id: recorded for its student and key with why (needed)
 * and who, so the same finding in a later import stays cleared.
 * CORE_ERR_NOTFOUND for an unknown flag. */
int db_class_clear(struct db *cs, int64_t flag_id, const char *why, const char *who,
                   struct core_err *err);

/* How many submissions of student `key` (other than sub_uid) came from a
 * store other than store_uid. */
int db_class_other_stores(struct db *cs, const char *key, const char *store_uid,
                          const char *sub_uid, int *n, struct core_err *err);

/* Attempts of sub that another student's submission holds too: the same
 * pack, question and answer, made at the same millisecond (created_at), which
 * two people do not do by chance; a store copied from a classmate's does. */
struct db_class_twin {
    char *pack_id;
    char *other_key; /* the other student's key */
    int n;           /* attempts of sub at that pack the other student also holds */
};
/* One row per pack and other student (any submission of theirs, superseded
 * or not), students other than `key`, over the attempts 0, stride, 2*stride,
 * ... of sub (stride 0 or 1: all of them); *out owned by the caller
 * (db_class_twins_free). */
int db_class_twins(struct db *cs, const char *key, const struct db_submission *sub, size_t stride,
                   struct db_class_twin **out, size_t *n, struct core_err *err);
void db_class_twins_free(struct db_class_twin *t, size_t n);

/* The class list. */
struct db_roster_entry {
    char *student_id, *name, *email, *section, *login; /* all but student_id may be NULL */
};
void db_roster_free(struct db_roster_entry *r, size_t n);
/* Replaces the roster with in[0..n) in one transaction. */
int db_roster_set(struct db *cs, const struct db_roster_entry *in, size_t n, struct core_err *err);
int db_roster_list(struct db *cs, struct db_roster_entry **out, size_t *n, struct core_err *err);

/* A review of a design answer to store. Borrowed. */
struct db_class_review_in {
    int64_t attempt;                      /* class store attempt id */
    const struct db_selfscore_in *scores; /* per rubric concept */
    size_t n_scores;
    double score, max;   /* the question's score under review: 0..max */
    const char *comment; /* may be "" */
    const char *reviewer;
};

/* Appends a review of attempt in->attempt (committed before returning); the
 * latest review of an attempt counts. It is kept with the student, question
 * and the attempt's id in the student's store and its answer, so it still
 * applies to the same answer in a later submission. CORE_ERR_NOTFOUND for
 * an unknown attempt, CORE_ERR_INVALID for a score out of range. */
int db_class_review_add(struct db *cs, const struct db_class_review_in *in, int64_t *id,
                        struct core_err *err);

struct db_class_review {
    int64_t id, attempt;
    double score, max;
    char *comment, *reviewer, *created_at;
    char *uid; /* class store uid ":" review id: unique everywhere */
    struct db_selfscore *scores;
    size_t n_scores;
};
void db_class_review_fini(struct db_class_review *r);

/* The latest review of class attempt `attempt`; CORE_ERR_NOTFOUND when none. */
int db_class_review_get(struct db *cs, int64_t attempt, struct db_class_review *out,
                        struct core_err *err);

/* ---- feedback files (db_feedback.c) ---------------------------------------
 *
 * What an instructor sends back to one student (class feedback): the
 * reviews of their design answers, each naming the attempt in the
 * student's own store. A SQLite file ("WBFB"), written once. */

#define DB_FEEDBACK_VERSION 2

struct db_fb_review {
    int64_t attempt; /* the attempt's id in the student's store */
    char *pack_id, *question_id;
    char *answer_sha;  /* SHA-256 of the answer text, so a review never lands elsewhere */
    double score, max; /* the reviewed score, out of the question's points */
    char *comment, *reviewer, *reviewed_at;
    char *uid;                   /* unique per review: importing again adds nothing */
    struct db_selfscore *scores; /* per rubric concept */
    size_t n_scores;
};

/* An official grade: of a graded question, or (question_id NULL) the
 * total of a graded lesson. */
struct db_fb_grade {
    char *uid; /* unique per grade given: importing again adds nothing */
    char *pack_id, *lesson_id, *question_id;
    bool has_score; /* false: withheld (status says why) */
    double score, max;
    char *status; /* "graded", "late", "flagged", "pending review", "not answered" */
    char *note;
    char *graded_at;
};

struct db_feedback {
    struct db_fb_grade *grades; /* format 2 */
    size_t n_grades;
    char *class_uid;         /* the class store it came from */
    char *user, *student_id; /* whom it is for (student_id may be NULL) */
    char *submission;        /* the submission uid it answers */
    char *created_at;
    struct db_fb_review *reviews;
    size_t n_reviews;
};
void db_feedback_fini(struct db_feedback *f);

/* Writes f as a feedback file at path (new or an empty file, as
 * db_submission_write). */
int db_feedback_write(const char *path, const struct db_feedback *f, struct core_err *err);

/* Reads and checks a feedback file, read-only; refused whole as
 * db_submission_read refuses a submission. */
int db_feedback_read(const char *path, struct db_feedback *out, struct core_err *err);

/* ---- reviews in a student's store (db_review.c, schema 6) -----------------
 *
 * An instructor's review of one of the student's design answers, brought
 * in from a feedback file: it counts instead of the automatic score (and
 * instead of any re-grade) in progress and in the question's history. */

struct db_review_in {
    int64_t attempt_id;
    const char *uid;      /* unique: a review already stored is not stored again */
    double score, max;    /* max > 0, 0 <= score <= max */
    const char *comment;  /* may be "" */
    const char *reviewer; /* may be NULL */
    const char *reviewed_at;
    const struct db_selfscore_in *scores;
    size_t n_scores;
};

/* Stores the reviews in one transaction (all or nothing). Each names an
 * original attempt of user_id (else CORE_ERR_INVALID naming it); one whose
 * uid is stored already is skipped. *added (optional) counts the new ones. */
int db_review_insert_many(struct db *db, int64_t user_id, const struct db_review_in *in, size_t n,
                          size_t *added, struct core_err *err);

/* The review that counts for an attempt (the latest reviewed), with its
 * attempt's question and automatic grade. */
struct db_review_row {
    int64_t attempt_id;
    char *pack_id, *question_id;
    double score, max;
    char *comment, *reviewer, *reviewed_at;
    bool auto_valid; /* the automatic grade (latest re-grade counts) */
    double auto_score, auto_max;
};
void db_review_rows_free(struct db_review_row *r, size_t n);

/* The reviews that count for user_id's attempts, in pack_id (NULL: all),
 * by pack, question and attempt. */
int db_review_list(struct db *db, int64_t user_id, const char *pack_id, struct db_review_row **out,
                   size_t *n, struct core_err *err);

#endif /* WB_DB_CLASS_H */
