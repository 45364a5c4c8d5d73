/*
 * lesson_class.h — the part of lesson.h (the one public header of lessons/)
 * for the class loop: submitting, importing and re-grading submissions, the
 * gradebook, item analysis, the review queue and feedback files. It exists
 * to keep lesson.h readable; lesson.h includes it, and nothing else should.
 */
#ifndef WB_LESSON_CLASS_H
#define WB_LESSON_CLASS_H

#ifndef WB_LESSON_H
#error "include lessons/lesson.h, which includes this part of it"
#endif

/* ---- the class: submissions, re-grading, gradebook, items, reviews -------
 *
 * Files are all that move between a student and an instructor: a student
 * writes a submission (lesson_submit.c); the instructor imports it into a
 * class store (db_class_open) and re-grades every answer with the packs in
 * their own store (lesson_class.c), keeps a gradebook and item analysis
 * computed with the attempt policy exactly as a student's progress is
 * (lesson_class_grades.c, lesson_class_items.c), reviews design answers
 * (lesson_class_review.c) and sends the reviews back in one feedback file
 * per student, which the student imports (lesson_feedback.c). */

/* What a submission holds. */
struct lesson_submit_report {
    char *uid;
    char *student_id; /* what it was submitted under (the store's, when set), NULL: none */
    size_t n_packs, n_attempts, n_giveups, n_selfscores, n_ratings, n_exams, n_runs, n_samples;
};
void lesson_submit_report_fini(struct lesson_submit_report *r);

/* Writes everything user_id (named `user`) did in pack pack_id (NULL: in
 * every pack) as a new submission file at path (see db_submission_gather):
 * built beside it under a temporary name and then given its name, so
 * `path` never holds half a file and an existing path is never replaced
 * unless `force` (core_file_publish). student_id may be NULL. The store is
 * only read. CORE_ERR_CONFLICT for an existing path, CORE_ERR_NOTFOUND for
 * an unknown pack or a missing folder. */
int lesson_submit_write(struct db *db, int64_t user_id, const char *user, const char *pack_id,
                        const char *student_id, const char *path, bool force,
                        struct lesson_submit_report *out, struct core_err *err);

/* A plausibility check of a submitted lab run: pushes each problem found
 * (a summary that contradicts the run's own samples, figures impossible on
 * the machine it recorded) to `problems`. The front end passes the labs
 * module's (lab_run_plausible): lessons does not know the labs. */
typedef void (*lesson_run_check_fn)(const struct db_sub_run *run, struct core_strlist *problems);

/* Why an import lists an attempt (or a lesson, a pack, the student). The
 * first five are about practice answers, re-graded against what the
 * student's machine recorded; the rest are the integrity checks of graded
 * (sealed) work. A blocking flag (lesson_flag_blocking) withholds the credit
 * it names until the instructor clears it (class clear). */
enum lesson_flag_kind {
    LESSON_FLAG_TAMPERED = 0, /* same pack and grader, another score: the record was edited */
    LESSON_FLAG_PARAMS,       /* its stored numbers are not what the pack draws for the student */
    LESSON_FLAG_SKEW,         /* graded under another pack version or grader revision */
    LESSON_FLAG_FAILED,       /* the instructor's grader failed on it: it earns nothing */
    LESSON_FLAG_SKIPPED,      /* its pack or question is not in the instructor's store */
    LESSON_FLAG_RELEASE,      /* answered under a release the instructor does not hold */
    LESSON_FLAG_OUTSIDE,      /* a graded question answered outside its release (graded there) */
    LESSON_FLAG_NO_ID,        /* graded work submitted without a student id */
    LESSON_FLAG_VARIANT,      /* a sealed answer under a variant other than the student's */
    LESSON_FLAG_NUMBERS,      /* a sealed answer's shown numbers are not the student's */
    LESSON_FLAG_EXAM_TIME,    /* an exam answer before its sitting or after its end */
    LESSON_FLAG_SITTING,      /* an exam sitting missing or not as the pack sets it */
    LESSON_FLAG_DUPLICATE,    /* a second answer to an exam question */
    LESSON_FLAG_TRIES,        /* more tries than the policy allows */
    LESSON_FLAG_GAP,          /* the student's attempts at the pack have a gap: one deleted */
    LESSON_FLAG_FUTURE,       /* made after the import's clock */
    LESSON_FLAG_EARLY,        /* made before the release it names was made */
    LESSON_FLAG_RUN,          /* answered from a lab run that fails a plausibility check */
    LESSON_FLAG_IDENTITY,     /* the student's id comes from two stores */
    LESSON_FLAG_LATE,         /* after the deadline: graded under the late rule */
    LESSON_FLAG_CODE,         /* a code answer's recorded speed is over 2x off the re-run here */
    LESSON_FLAG_COPIED,       /* attempts another student's submission holds too (same ms) */
    LESSON_FLAG_N
};
const char *lesson_flag_name(enum lesson_flag_kind k); /* "tampered", ... Static. */
/* Whether a flag of this kind withholds credit until cleared. */
bool lesson_flag_blocking(enum lesson_flag_kind k);

struct lesson_class_flag {
    enum lesson_flag_kind kind;
    int64_t attempt; /* its id in the student's store, 0: not one attempt */
    char *pack_id, *question_id;
    char *lesson_id; /* exam flags: the lesson; NULL otherwise */
    int variant;
    bool rec_valid, new_valid;
    double rec_score, new_score, max;
    char *reason;
};

struct lesson_class_runflag {
    int64_t run; /* its id in the student's store */
    char *lab;
    char *problems; /* "; "-separated */
};

struct lesson_class_report {
    char *file;
    char *uid, *user, *student_id, *key;
    enum db_class_import_result result;
    char *superseded;      /* the uid this one superseded, NULL when none */
    size_t n_attempts;     /* in the file */
    size_t n_agree;        /* re-graded to what the student's machine recorded */
    size_t n_disagree;     /* re-graded to something else (listed) */
    size_t n_lab_regraded; /* lab-linked answers re-graded against the submitted run */
    size_t n_runs, n_runs_flagged;
    size_t n_failed, n_skipped;
    size_t n_sealed;                 /* sealed answers graded here, with the source pack */
    size_t n_blocking;               /* flags that withhold credit until cleared */
    struct lesson_class_flag *flags; /* every finding, in attempt order, then the others */
    size_t n_flags;
    struct lesson_class_runflag *runflags;
    size_t n_runflags;
};
void lesson_class_report_fini(struct lesson_class_report *r);

/* Grades already computed in this run of imports, for answers whose grade
 * cannot depend on the student: a question without params, lab or item
 * shuffling (ordering) gets the same grade for the same answer at the same
 * variant from any student (the grader's ctx then holds only the variant
 * and the points), so a class's common answers are graded once. Keyed by
 * pack revision, question, variant, the numbers graded against, and the
 * answer; a grader failure is never kept. */
struct lesson_grade_cache;
struct lesson_grade_cache *lesson_grade_cache_new(void);
void lesson_grade_cache_free(struct lesson_grade_cache *c);
/* Grades served from the cache and grades computed, so far. */
void lesson_grade_cache_stats(const struct lesson_grade_cache *c, size_t *hits, size_t *misses);

/* Compiles and re-runs a code answer (the student's C file, `code`) for
 * question gq of pack_id on this machine, in the programming labs'
 * sandbox (the CLI passes labs/code/'s harness, which records the re-run
 * as a "code" lab run in the instructor's store, naming the student:
 * `student` is the submission's student id, else its user name, and
 * `user` its user name): fills *res as a grade of gq (score in its points;
 * its params_json carries the figures, "run" the lab run's id when
 * recorded; caller frees with grader_result_fini) and *gflops with what
 * this machine measured (NAN when it did not run correctly). An error only
 * when the harness itself failed. */
typedef int (*lesson_code_rerun_fn)(void *ud, const char *pack_id, const char *qid,
                                    const struct grader_question *gq, const char *student,
                                    const char *user, const char *code, struct grader_result *res,
                                    double *gflops, struct core_err *err);

struct lesson_class_opts {
    lesson_code_rerun_fn code_rerun; /* NULL: code answers are not graded (flagged) */
    void *code_ud;
    bool force;                       /* re-grade a file imported before, replacing its rows */
    const char *deadline;             /* ISO time: answers after it are late (NULL: the pack's) */
    double now;                       /* the import's clock (epoch seconds; 0: the wall clock) */
    lesson_run_check_fn run_check;    /* NULL: lab runs are not checked */
    struct lesson_grade_cache *cache; /* NULL: every answer is graded */
    void (*before_commit)(void *ctx); /* see db_class_import_in; NULL: none */
    void *hook_ctx;
};

/* Imports the submission file at path into the class store cs: reads and
 * checks it whole (a malformed or foreign file is refused, nothing
 * imported: CORE_ERR_STORE), re-grades every attempt with the current
 * revision of its pack in session s's store, against the numbers the
 * student was shown (their stored parameters; for an attempt graded under
 * the very revision and grader the instructor has, the numbers are drawn
 * again and must match) and, for a lab-linked question, against the
 * submitted run; checks each lab run's plausibility; then stores it all in
 * one transaction (db_class_import). The same file again changes nothing;
 * a newer submission of the same student supersedes the older. *out
 * reports what was found. CORE_ERR_CONFLICT for a changed file under a
 * known submission uid. */
int lesson_class_import(struct lesson_session *s, struct db *cs, const char *path,
                        const struct lesson_class_opts *opts, struct lesson_class_report *out,
                        struct core_err *err);

/* ---- class regrade ---- */

/* A question (or, question_id NULL, a total) whose points a class re-grade
 * changes for a student. */
struct lesson_class_regrade_change {
    char *key, *user;
    char *pack_id, *question_id; /* both NULL: the student's total */
    double old_points, new_points, max;
    char *why; /* "grader changed" (an answer got another grade), "flags or reviews changed
                  what counts", "total" */
};

struct lesson_class_regrade {
    size_t n_students, n_answers;
    size_t n_changed_students;
    size_t n_disagree; /* practice answers whose grade here differs from the student's record */
    size_t n_failed, n_blocking;
    struct lesson_class_regrade_change *changes; /* per student: questions, then the total */
    size_t n_changes;
    bool written; /* not a dry run: the class store holds the new grades */
};
void lesson_class_regrade_fini(struct lesson_class_regrade *r);

/* Grades every current submission of the class store again with the
 * instructor's current packs and releases (lesson_class_import_stored; the
 * integrity checks again too), and says per student which questions'
 * points change and why. With dry_run the re-grade runs on a copy of the
 * class store (VACUUM INTO a temporary file), which is then removed: the
 * class store is only read. opts gives the run check and cache. */
int lesson_class_regrade(struct lesson_session *s, struct db *cs, const char *pack_id, bool dry_run,
                         const struct lesson_class_opts *opts, struct lesson_class_regrade *out,
                         struct core_err *err);

/* How the class's grades are read (NULL: raw, for item analysis). */
struct lesson_grading {
    bool flags;           /* a blocking flag not cleared withholds the credit it names */
    bool late;            /* late answers keep what the late rule leaves */
    bool count_automatic; /* unreviewed automatic design scores count (else: pending) */
};

/* lesson_class_import of a submission the class store holds already
 * (db_class_stored_load), graded again with the instructor's current packs
 * and releases and its rows replaced: what class regrade does. The
 * submission is handed over (st->sub is left empty). */
int lesson_class_import_stored(struct lesson_session *s, struct db *cs, struct db_class_stored *st,
                               const struct lesson_class_opts *opts,
                               struct lesson_class_report *out, struct core_err *err);

/* Per student, db_progress_row rows for the questions of the instructor's
 * current packs (pack_id, or every pack the class has answers in), built
 * from their current submission and with lesson_progress_apply applied:
 * `best` is what each question earns under its policy; a reviewed design
 * answer counts with the reviewed score (rows[i].reviewed). With g: the
 * late rule scales each late try, a flag not cleared marks what it names
 * blocked (earning nothing), and unreviewed design answers earn nothing
 * unless g->count_automatic. */
struct lesson_class_progress {
    struct db_class_student student; /* owned */
    struct db_progress_row *rows;    /* owned (db_progress_free) */
    size_t n;
    int n_flags, n_blocking; /* flags of the current submission not cleared (g->flags) */
};
void lesson_class_progress_free(struct lesson_class_progress *p, size_t n);
int lesson_class_progress_load(struct db *store, struct db *cs, const char *pack_id,
                               const struct lesson_grading *g, struct lesson_class_progress **out,
                               size_t *n, struct core_err *err);

/* ---- the gradebook (lesson_class_grades.c) ----
 *
 * The columns are the graded lessons (lesson{ graded = true } and exams) of
 * the packs, or every lesson when a pack has none. Totals and levels come
 * from those lessons' own points: points, the maximum, and the level of
 * the percentage. The rubric columns are the items the gradebook's
 * questions name, course items and the pack's own, each with its points. */

struct lesson_gb_lesson {
    char *pack_id, *lesson_id, *title;
    double max; /* its questions' points */
};

struct lesson_gb_item {
    char *name;  /* a rubric item a question names */
    double max;  /* the points of the questions that name it */
    bool course; /* one of the course's twelve */
};

struct lesson_gb_row {
    char *key, *user, *student_id; /* student_id NULL when none was submitted */
    char *submitted_at;
    char *name, *email, *section, *login; /* from the roster; NULL when not on it */
    double *lessons;                      /* points earned per gradebook lesson */
    double *items;                        /* points earned per gradebook rubric item */
    double points, max;                   /* over the gradebook's lessons */
    double percent;                       /* 100 points / max */
    const char *level;                    /* lesson_level_name(percent) */
    double design_pending;                /* points of answered design questions not reviewed */
    int n_flags;                          /* flags not cleared */
    int n_blocking;                       /* ... that withhold credit */
};

struct lesson_gradebook {
    struct lesson_gb_lesson *lessons;
    size_t n_lessons;
    struct lesson_gb_item *items;
    size_t n_items;
    struct lesson_gb_row *rows; /* by student key */
    size_t n_rows;
    bool graded_only;             /* the columns are the graded lessons */
    struct core_strlist warnings; /* roster: unknown and repeated ids */
};
void lesson_gradebook_fini(struct lesson_gradebook *gb);

/* The gradebook of the class store's current submissions against the
 * instructor's packs (pack_id, or every pack the class answered), graded
 * with flags and the late rule (count_automatic as the caller asks), the
 * roster's identities filled in. */
int lesson_gradebook_load(struct db *store, struct db *cs, const char *pack_id,
                          bool count_automatic, struct lesson_gradebook *out, struct core_err *err);

enum lesson_csv_format {
    LESSON_CSV_CANVAS = 0, /* Canvas's gradebook import */
    LESSON_CSV_MOODLE      /* Moodle's CSV grade import */
};

/* The gradebook as CSV (RFC 4180, UTF-8 with a byte-order mark, CRLF line
 * ends). Canvas: Student, ID (empty: Canvas's own), SIS User ID (the
 * student id), SIS Login ID (the roster's login, else the user name),
 * Section, then one column per lesson headed "Title (pack:lesson) [/max]",
 * then Total, Flags and Design points pending review, which the "Points
 * Possible" row (the second) marks "(read only)" so Canvas takes them as
 * information, not assignments. Moodle: ID number, Email address, Username,
 * Full name, one column per lesson, Total. Control characters are dropped
 * from every name and id; text a spreadsheet would run as a formula is
 * guarded (core_csv_field). Pure. */
void lesson_gradebook_csv(const struct lesson_gradebook *gb, enum lesson_csv_format fmt,
                          struct core_buf *out);

/* Reads a class list (CSV with a header naming its columns: student_id —
 * also "SIS User ID", "ID number", "id" — and optionally name, email,
 * section, login) and stores it as the class store's roster. Warnings:
 * repeated ids (the first kept), rows without an id, and students with a
 * submission who are not on it. */
int lesson_roster_load(struct db *cs, const char *path, struct core_strlist *warnings, size_t *n,
                       struct core_err *err);

/* ---- item analysis (lesson_class_items.c) ---- */

#define LESSON_ITEM_WRONG_MAX 3

struct lesson_item_wrong {
    char *answer; /* as the grader read it (e.g. "3 x", "a"), else the text */
    int count;
    char *feedback; /* the feedback it got most often */
    bool explained; /* a mistake the pack declares matched it (else: no feedback matched) */
};

struct lesson_item {
    char *pack_id, *question_id, *kind, *title;
    int ordinal; /* position in the pack (the default order) */
    double points;
    int attempts;          /* readable tries by all students */
    int students;          /* students who answered it or gave up */
    double facility;       /* mean score fraction (policy applied) over them; NaN: none */
    double discrimination; /* point-biserial against the rest of the total; NaN: undefined */
    double upper_lower;    /* mean fraction of the upper 27% by total minus the lower 27% */
    double giveup_rate;    /* of `students` */
    double tries;          /* mean readable tries of those who answered */
    struct lesson_item_wrong wrong[LESSON_ITEM_WRONG_MAX];
    size_t n_wrong;
};
void lesson_items_free(struct lesson_item *it, size_t n);

/* Item statistics of one question over n students: item[i] the student's
 * score fraction on it, total[i] their total points (this question
 * included, item_points of it). *r_pb: the point-biserial (Pearson)
 * correlation of the item with the total less the item itself; *d_ul: the
 * mean item score of the upper 27% by total less that of the lower 27%
 * (at least one student each). NaN when n < 2 or a variance is zero
 * (r_pb), n < 2 (d_ul). Pure. */
void lesson_item_stats(const double *item, const double *total, size_t n, double item_points,
                       double *r_pb, double *d_ul);

enum lesson_item_sort {
    LESSON_ITEM_ORDER = 0,      /* pack order */
    LESSON_ITEM_FACILITY,       /* hardest first */
    LESSON_ITEM_DISCRIMINATION, /* weakest first */
    LESSON_ITEM_GIVEUPS,        /* most given up first */
    LESSON_ITEM_TRIES,          /* most tries first */
    LESSON_ITEM_ATTEMPTS        /* most answered first */
};
/* The sort named "order", "facility", ...; -1 when unknown. */
int lesson_item_sort_find(const char *name);
/* Sorts items by key (ties, and NaN last, in pack order); reversed on request. Pure. */
void lesson_items_sort(struct lesson_item *it, size_t n, enum lesson_item_sort key, bool reverse);

/* Item analysis of the instructor's questions (pack_id, or every pack the
 * class answered) over the current submissions, in pack order. */
int lesson_items_load(struct db *store, struct db *cs, const char *pack_id,
                      struct lesson_item **out, size_t *n, struct core_err *err);

/* ---- the review queue (lesson_class_review.c) ---- */

struct lesson_review_concept {
    char *label;
    double points;
    double self;     /* the student's self-score, NaN when none */
    double reviewed; /* the latest review's score, NaN when none */
};

struct lesson_review_item {
    int64_t attempt;  /* class store id: what `class review set` names */
    char *key, *user; /* the student */
    char *pack_id, *question_id, *title, *prompt;
    int variant;
    char *answer;
    double points; /* the question's */
    bool auto_valid;
    double auto_score; /* the instructor's re-grade, out of points */
    char *auto_feedback;
    struct lesson_review_concept *concepts; /* the rubric, in order */
    size_t n_concepts;
    bool has_self; /* the student scored themselves */
    double self_total, self_max;
    bool reviewed;
    double rv_score; /* out of points */
    char *rv_comment, *rv_reviewer, *rv_at;
    bool sealed;           /* graded work (a sealed answer): its review is its grade */
    int64_t superseded_by; /* a later answer of the student's to the same question (its
                              class store id), 0: this is the latest */
};
void lesson_review_items_free(struct lesson_review_item *it, size_t n);

/* The design answers of the current submissions (the readable ones made
 * before any give-up), by question then student: those without a review
 * (or all, with `all`), of pack_id / question_id when given. Rubrics and
 * prompts come from the instructor's packs (session s). */
int lesson_review_list(struct lesson_session *s, struct db *cs, const char *pack_id,
                       const char *question_id, bool all, struct lesson_review_item **out,
                       size_t *n, struct core_err *err);

/* What the automatic grader reads in class attempt `attempt`, a design
 * answer: the answer graded again with the instructor's current pack
 * (session s) against the numbers recorded with it. *r (grader_result_fini)
 * holds the score, the feedback and, in r->claims, each concept's evidence:
 * the clause credited or contradicting, its subject, relation and object.
 * Costs one grading (the grammar's parse included): callers read it for the
 * answer shown, not the whole queue at once. CORE_ERR_USAGE for an attempt
 * that is not a design answer, CORE_ERR_NOTFOUND for an unknown one. */
int lesson_review_read(struct lesson_session *s, struct db *cs, int64_t attempt,
                       struct grader_result *r, struct core_err *err);

/* One concept's reviewed score. Borrowed. */
struct lesson_review_score {
    const char *concept;
    double score;
};

/* Reviews class attempt `attempt`, a design answer: a score per rubric
 * concept (the labels of its rubric; a concept not given scores 0), and a
 * comment (may be NULL). The question's reviewed score is its points times
 * the concepts' total over the rubric's total; it is final: it counts
 * instead of the automatic score in the gradebook and, once imported, in
 * the student's progress. CORE_ERR_USAGE for an unknown or repeated
 * concept, a score outside 0..its points, or an attempt that is not a
 * design answer; CORE_ERR_NOTFOUND for an unknown attempt. *item
 * (optional) receives the reviewed item (lesson_review_items_free). */
int lesson_review_set(struct lesson_session *s, struct db *cs, int64_t attempt,
                      const struct lesson_review_score *scores, size_t n_scores,
                      const char *comment, const char *reviewer, struct lesson_review_item **item,
                      struct core_err *err);

/* ---- feedback files (lesson_feedback.c) ---- */

struct lesson_feedback_file {
    char *key, *path;
    size_t n_reviews;
    size_t n_grades; /* official grades: graded questions and lesson totals */
};
void lesson_feedback_files_free(struct lesson_feedback_file *f, size_t n);

/* Writes one feedback file per student with a current submission into dir
 * (created when missing), named after the student's key (characters other
 * than letters, digits, '.', '_' and '-' become '_'; a clash gets a
 * suffix) with ".wbfb": the reviews of their design answers, and the
 * official grade of every graded question and lesson (as the gradebook
 * has them, from the instructor's packs in `store`: a question a flag
 * holds, or a design answer not reviewed, is withheld and says so). Each
 * file is created new; an existing one is CORE_ERR_CONFLICT unless
 * `force`. */
int lesson_feedback_write(struct db *store, struct db *cs, const char *dir, bool force,
                          struct lesson_feedback_file **out, size_t *n, struct core_err *err);

struct lesson_feedback_import {
    size_t n_grades, n_grades_added; /* official grades in the file, stored now */
    size_t n_reviews;                /* in the file */
    size_t n_added;                  /* stored now */
    size_t n_known;                  /* imported before */
    size_t n_mismatch;               /* naming no answer of this student's (not stored) */
};

/* Imports feedback file path into user_id's store (named `user`, which the
 * file must name: else CORE_ERR_CONFLICT): each review of an answer of
 * theirs (same attempt id, question and answer text) is stored, once. */
int lesson_feedback_import(struct db *db, int64_t user_id, const char *user, const char *path,
                           struct lesson_feedback_import *out, struct core_err *err);

#endif /* WB_LESSON_CLASS_H */
