/*
 * lesson.h — lesson packs as the rest of Warpbench sees them: reading a pack
 * folder, checking it (format + self-tests), importing it into the store with
 * its sources, exporting the stored sources byte for byte, the built-in pack,
 * and a study session that renders and grades questions for one user and
 * records every attempt.
 *
 * Invariants: graders always run from the sources stored in the database
 * (the revision a question belongs to), never from a working folder, so a
 * grade can be reproduced later. An attempt is committed before
 * lesson_answer() returns.
 *
 * Uses core, db (the store) and grader (the Lua sandbox and pack model).
 */
#ifndef WB_LESSON_H
#define WB_LESSON_H

#include "core/core.h"
#include "db/db.h"
#include "grader/grader.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- pack folders -------------------------------------------------------- */

/* A pack's files as read from a folder. Owns everything it points to. */
struct lesson_src {
    struct grader_file *files; /* path relative to the folder, '/'-separated */
    size_t n;
};

/* Reads every regular file below `dir` (hidden files and folders and
 * symbolic links skipped, sorted by path; at most 512 files of at most
 * 4 MiB each). A folder without
 * pack.lua is CORE_ERR_INVALID. Caller frees with lesson_src_fini(). */
int lesson_src_read(const char *dir, struct lesson_src *out, struct core_err *err);

/* Wraps the built-in pack compiled into the binary (borrowed data). */
void lesson_src_builtin(struct lesson_src *out);
void lesson_src_fini(struct lesson_src *src);

/* The outcome of checking a pack. */
struct lesson_check {
    struct core_strlist problems; /* "file:line: message", in the order found */
    char *pack_id;                /* NULL when pack.lua could not be read */
    char *version;
    size_t n_lessons;
    size_t n_pages;
    size_t n_questions;
    size_t n_checks;              /* self-test checks run (the sweep's included) */
    size_t variants;              /* distinct variants asked per question (0: first only) */
    bool swept;                   /* the sweep ran: `sweep` says what it saw */
    struct grader_sweep sweep;
};
void lesson_check_fini(struct lesson_check *c);

/* lesson_pack_check_with's `variants` for a pack already known good (the
 * built-in one, tested by the suite): no sweep and no samples. */
#define LESSON_NO_SWEEP ((size_t)-1)

/* Loads `src` in the sandbox, validates it, runs every question's reference
 * answer and examples, checks that every rubric item a question names is
 * the course's (lesson_rubric_items) or declared in pack{ rubric = ... },
 * and runs the sweep (grader_pack_sweep) on `variants` distinct variants
 * per question with every design sample. Returns 0 when there are no
 * problems, CORE_ERR_INVALID when there are (listed in out->problems; err
 * has the first). With `pack` non-NULL, a successfully loaded pack handle
 * is handed over (caller frees with grader_pack_free), else freed. */
int lesson_pack_check_with(const struct lesson_src *src, size_t variants,
                           struct lesson_check *out, struct grader_pack **pack,
                           struct core_err *err);

/* lesson_pack_check_with on GRADER_SWEEP_VARIANTS variants. */
int lesson_pack_check(const struct lesson_src *src, struct lesson_check *out,
                      struct grader_pack **pack, struct core_err *err);

/* Checks (lesson_pack_check_with on `variants`) then imports `src`
 * (sources, lessons, pages, questions) in one transaction. A pack with
 * problems is refused (CORE_ERR_INVALID, details in `check` when given).
 * See db_pack_import for versions and `force`. */
int lesson_pack_import_with(struct db *db, const struct lesson_src *src, bool force,
                            size_t variants, struct lesson_check *check,
                            enum db_import_result *result, struct core_err *err);

/* lesson_pack_import_with on GRADER_SWEEP_VARIANTS variants. */
int lesson_pack_import(struct db *db, const struct lesson_src *src, bool force,
                       struct lesson_check *check, enum db_import_result *result,
                       struct core_err *err);

/* Writes the stored sources of pack `pack_id` (current revision) into `dir`,
 * creating it; refuses (CORE_ERR_CONFLICT) to overwrite an existing file. */
int lesson_pack_export(struct db *db, const char *pack_id, const char *dir, struct core_err *err);

/* Imports the built-in pack when the store lacks it or holds other content
 * (a newer binary). *result (optional) says what happened. */
int lesson_builtin_ensure(struct db *db, enum db_import_result *result, struct core_err *err);

/* ---- study session ------------------------------------------------------- */

struct lesson_session;

/* Opens a session for `user` (created when new) on an open store. Keeps a
 * cache of loaded pack revisions. Caller frees with lesson_session_free();
 * the store stays the caller's. */
int lesson_session_new(struct lesson_session **out, struct db *db, const char *user,
                       struct core_err *err);
void lesson_session_free(struct lesson_session *s);
int64_t lesson_session_user_id(const struct lesson_session *s);

/* A question shown to this user. */
struct lesson_question_view {
    struct db_question q;  /* the stored question row */
    struct grader_view v;  /* prompt with numbers, choices, hints, unit */
    int variant;
};
void lesson_question_view_fini(struct lesson_question_view *v);

/* Renders question `qid` ("pack:id" or a bare id) at `variant` (1-based). */
int lesson_question_show(struct lesson_session *s, const char *qid, int variant,
                         struct lesson_question_view *out, struct core_err *err);

/* The outcome of answering. */
struct lesson_answer_result {
    struct grader_result r;
    char *pack_id;
    char *question_id;
    int variant;
    int64_t attempt_id; /* the stored attempt */
    int attempt_no;     /* how many valid attempts the user has made at it, this one included */
};
void lesson_answer_result_fini(struct lesson_answer_result *a);

/* Grades `answer` and appends the attempt (valid or not) to the store,
 * committed before returning. Errors: CORE_ERR_NOTFOUND (question),
 * CORE_ERR_SCRIPT/LIMIT (the grader is broken: nothing recorded),
 * CORE_ERR_STORE, CORE_ERR_USAGE for a question of a pack with
 * certainty-based marking (answer those with lesson_answer_certain). */
int lesson_answer(struct lesson_session *s, const char *qid, int variant, const char *answer,
                  struct lesson_answer_result *out, struct core_err *err);

/* Re-grades every stored attempt of `pack_id` with its current revision and
 * appends the new grades as re-grade attempts in one transaction.
 * *n_done (optional) receives how many were re-graded. */
int lesson_regrade(struct lesson_session *s, const char *pack_id, size_t *n_done,
                   struct core_err *err);

/* The loaded (cached) pack for revision rev_id. Borrowed; valid until the
 * session is freed. */
int lesson_session_pack(struct lesson_session *s, int64_t rev_id, struct grader_pack **out,
                        struct core_err *err);

/* ---- course rubric, self-assessment, certainty-based marking ------------
 *
 * The course's 100-point self-assessment rubric (lesson_progress.c): twelve
 * items in three areas, theory (4 × 10), practice (4 × 10) and advanced
 * (4 × 5), and its proficiency levels. A question names the items it is
 * evidence for in its `rubric` field. The graded score of an item is
 *     item max × (sum of best scores / sum of points)
 * over the questions of the current packs tagged with it (unanswered ones
 * count 0). The roll-up is a pure function of progress rows and self-ratings,
 * lesson_standing_compute(), so it is tested without a store. */

#define LESSON_RUBRIC_N 12  /* items in the course rubric */
#define LESSON_STUDY_MAX 3  /* lessons suggested by "what to study next" */

struct lesson_rubric_item {
    const char *id;    /* "theory.gpu" */
    const char *area;  /* "theory", "practice" or "advanced" */
    const char *title; /* "GPU architecture and programming models" */
    double max;        /* 10 (theory, practice) or 5 (advanced) */
};

/* The LESSON_RUBRIC_N items in course order. Static. */
const struct lesson_rubric_item *lesson_rubric_items(void);

/* The course rubric item named `id`, or NULL. Static. */
const struct lesson_rubric_item *lesson_rubric_find(const char *id);

/* The proficiency level of a total out of 100: "expert" (90 and up),
 * "advanced" (80 to 89), "intermediate" (70 to 79), "beginner+" (60 to 69),
 * "review" (below 60). Boundaries are inclusive at the bottom: 89.99 is
 * advanced, 90 expert. Static. */
const char *lesson_level_name(double total);

/* What the level means, one line ("can design and optimize complex ML
 * systems"). Static. */
const char *lesson_level_meaning(double total);

/* How a self-rating compares with the graded score of the same item(s):
 * "well calibrated" when |gap| is at most 10% of max, else "over-confident"
 * (gap > 0) or "under-confident". Static. */
const char *lesson_gap_word(double gap, double max);

/* One rubric item's standing. */
struct lesson_item_standing {
    const struct lesson_rubric_item *item;
    int questions;   /* questions tagged with the item */
    int answered;    /* of which answered (at least one valid attempt) */
    double points;   /* their points */
    double earned;   /* their best scores */
    double graded;   /* item max × earned / points; 0 when no question is tagged */
    bool rated;      /* the student rated this item */
    double self;     /* the latest self-rating, on the item's scale */
    char *rated_at;  /* when (ISO-8601), NULL when not rated */
    double gap;      /* self − graded when rated, else 0 */
};

/* A lesson worth studying next. */
struct lesson_study {
    char *pack_id;
    char *lesson_id;
    double unearned; /* rubric points its questions could still add */
    const struct lesson_rubric_item *item; /* the item it would lift most */
};

struct lesson_standing {
    struct lesson_item_standing items[LESSON_RUBRIC_N]; /* course order */
    double graded_total;      /* out of 100 */
    const char *graded_level; /* lesson_level_name(graded_total) */
    int n_rated;              /* items with a self-rating */
    double self_total;        /* sum of the latest self-ratings */
    const char *self_level;   /* level of self_total; NULL unless every item is rated */
    int n_compared;           /* rated items with at least one answered question */
    double self_compared;     /* self-ratings of those items */
    double graded_compared;   /* graded scores of those items */
    double max_compared;      /* their maxima */
    struct lesson_study study[LESSON_STUDY_MAX]; /* most unearned first */
    size_t n_study;
};
void lesson_standing_fini(struct lesson_standing *s);

/* Rolls progress rows (db_progress) and self-ratings (db_selfassess_latest;
 * when an item appears twice the later element wins) up to the rubric.
 * Rubric names that are not course items are ignored, as is a name repeated
 * within one question. "What to study next": for each lesson, the rubric
 * points its questions have not earned yet (a question tagged with item i
 * holds i's max × (points − best) / (points of all questions tagged i)),
 * the top LESSON_STUDY_MAX lessons with something left, ties in lesson order.
 * Pure: no I/O. Caller frees with lesson_standing_fini. */
void lesson_standing_compute(const struct db_progress_row *rows, size_t n_rows,
                             const struct db_selfassess *self, size_t n_self,
                             struct lesson_standing *out);

/* Reads the user's progress (all current packs, or pack_id) and latest
 * self-ratings and computes their standing. Errors as for db_progress. */
int lesson_standing_load(struct db *db, int64_t user_id, const char *pack_id,
                         struct lesson_standing *out, struct core_err *err);

/* Certainty-based marking, as in Moodle's CBM. With certainty c = 1, 2, 3 a
 * right answer earns 1, 2 or 3 times the question's points and a wrong one
 * 0, −2 or −6 times; a partly right answer scoring a fraction s of the points
 * earns in proportion, R(c)·s + W(c)·(1 − s) (so half right at c = 3 earns
 * −1.5 times the points: high certainty pays only when the answer is
 * right). Returns that multiple of the points; a certainty outside 1..3
 * returns s unchanged (no CBM). */
double lesson_cbm_fraction(double s, int certainty);

/* Whether question `qid`'s pack uses certainty-based marking
 * (pack{ cbm = true }). Errors as for lesson_question_show. */
int lesson_question_cbm(struct lesson_session *s, const char *qid, bool *cbm,
                        struct core_err *err);

/* Whether pack `pack_id` (its current revision) uses certainty-based
 * marking. CORE_ERR_NOTFOUND for an unknown pack. */
int lesson_pack_cbm(struct lesson_session *s, const char *pack_id, bool *cbm,
                    struct core_err *err);

/* lesson_answer with the certainty (1..3) the student states for
 * certainty-based marking, or 0 for none. A question of a CBM pack needs a
 * certainty and a question of any other pack must not have one: either
 * mistake is CORE_ERR_USAGE and nothing is graded or recorded. The certainty
 * is stored with the attempt; the grade (out->r) stays the plain score, and
 * the CBM mark is points × lesson_cbm_fraction(score / points, certainty). */
int lesson_answer_certain(struct lesson_session *s, const char *qid, int variant,
                          const char *answer, int certainty, struct lesson_answer_result *out,
                          struct core_err *err);

/* ---- giving up, design self-scores ---------------------------------------- */

/* What giving up shows. */
struct lesson_giveup_result {
    char *pack_id;
    char *question_id;
    int variant;
    char *accepted;   /* the accepted answer as the grader states it, NULL when it has none */
    char *reference;  /* the worked solution, NULL when none */
    int64_t giveup_id; /* the stored give-up */
};
void lesson_giveup_result_fini(struct lesson_giveup_result *g);

/* The student gives up on question `qid` at `variant`: learns the accepted
 * answer and solution from the stored grader (grading a throw-away answer
 * that is not recorded) and records the give-up, committed before
 * returning. From then on the question counts as answered with help:
 * progress (db_progress) credits only attempts made before the first
 * give-up, and later attempts read after_giveup in the history. Errors:
 * CORE_ERR_NOTFOUND (question), CORE_ERR_SCRIPT/LIMIT (a broken grader:
 * nothing recorded), CORE_ERR_STORE. */
int lesson_giveup(struct lesson_session *s, const char *qid, int variant,
                  struct lesson_giveup_result *out, struct core_err *err);

/* lesson_answer_certain for a design answer with the student's rubric
 * self-scores (n_self of them, any subset of the rubric), stored with the
 * attempt in the same transaction. Each concept must be a rubric label of
 * the question as shown (grader_view.rubric) and its score lie in 0..its
 * points; the stored maximum is the rubric's, whatever self[i].max says. A
 * question without a rubric, an unknown concept or a score out of range is
 * CORE_ERR_USAGE and nothing is graded or recorded; a repeated concept is
 * CORE_ERR_INVALID. n_self == 0 is lesson_answer_certain. */
int lesson_answer_design(struct lesson_session *s, const char *qid, int variant,
                         const char *answer, int certainty, const struct db_selfscore_in *self,
                         size_t n_self, struct lesson_answer_result *out, struct core_err *err);

/* ---- calculators ---------------------------------------------------------- */

/* A calculator of a current pack (declared with calculator{} in a lesson).
 * Everything is borrowed from the session's pack cache: valid until
 * lesson_session_free. */
struct lesson_calc {
    const char *pack_id;
    const char *lesson_id;
    const char *lesson_title;
    const struct grader_calc *calc; /* id, title, inputs (name, label, unit, default, range) */
    int64_t rev_id;                 /* the pack revision it comes from */
};

/* Lists the calculators of every current pack of `db` (the store session
 * `s` was opened on), in pack, lesson and declaration order, read from each
 * pack's stored revision through the session's cache. *out is malloc'd (caller frees it with
 * free(); the entries borrow as above), NULL when *n is 0. Errors: CORE_ERR_STORE, and those of
 * lesson_session_pack. */
int lesson_calc_list(struct db *db, struct lesson_session *s, struct lesson_calc **out, size_t *n,
                     struct core_err *err);

/* Finds calculator `calc_id`: "pack:calc" or a bare calculator id. A bare
 * id that several packs declare is CORE_ERR_USAGE naming them; an unknown
 * one CORE_ERR_NOTFOUND. */
int lesson_calc_find(struct db *db, struct lesson_session *s, const char *calc_id,
                     struct lesson_calc *out, struct core_err *err);

/* One input given by name. Borrowed. */
struct lesson_calc_set {
    const char *name;
    double value;
};

/* The outcome of running a calculator. */
struct lesson_calc_result {
    struct lesson_calc c;               /* borrowed as in lesson_calc_list */
    double *inputs;                     /* the values used, one per c.calc->inputs */
    bool *given;                        /* true where `set` gave it, false: the default */
    struct grader_calc_output *outputs; /* in the order compute returned them */
    size_t n_outputs;
};
void lesson_calc_result_fini(struct lesson_calc_result *r);

/* Runs calculator `calc_id` (as lesson_calc_find) with the inputs in `set`
 * and the defaults for the others, in a fresh sandbox. Bad inputs are
 * CORE_ERR_USAGE with a message for the student: an unknown name (naming
 * the known inputs), a name given twice, a value out of the input's range
 * or not whole for an integer input (naming the input and its range). A
 * broken calculator is CORE_ERR_SCRIPT or CORE_ERR_LIMIT ("file:line: ...").
 * On error *out is zeroed. */
int lesson_calc_run(struct db *db, struct lesson_session *s, const char *calc_id,
                    const struct lesson_calc_set *set, size_t n_set, struct lesson_calc_result *out,
                    struct core_err *err);

/* A numeric output as students read it (lesson_calc_fmt.c; the CLI and the
 * TUI both show outputs this way): up to 4 significant figures, trailing
 * zeros trimmed, no exponent between 1e-4 and 1e9; a value in B, B/s,
 * bit/s, bps, FLOP, FLOP/s, FLOPS, Hz or W gets the decimal prefix that fits
 * ("1.5 TB/s"), one in s below a second is shown in ms, µs or ns; x, × and %
 * follow the number without a space ("2.5x", "25%"). `unit` may be NULL or
 * "". Pure; writes at most n bytes, NUL-terminated when n > 0. */
void lesson_calc_value_format(double v, const char *unit, char *buf, size_t n);

#endif /* WB_LESSON_H */
