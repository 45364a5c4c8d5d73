/*
 * lesson.h — lesson packs as the rest of Warpbench sees them: reading a pack
 * folder, checking it (format + self-tests), importing it into the store with
 * its sources, exporting the stored sources byte for byte, the built-in pack,
 * a study session that renders and grades questions for one user and
 * records every attempt, and progress: under the attempt policy, summed
 * into the tallies every front end shows, and rolled up to the course
 * rubric.
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

/* A file of a pack folder that is not Lua: listed, not read (yet). */
struct lesson_src_other {
    char *path;     /* relative to the folder, '/'-separated */
    long long size; /* bytes, from lstat */
};

/* A pack's files as read from a folder. Owns everything it points to. */
struct lesson_src {
    struct grader_file *files; /* path relative to the folder, '/'-separated */
    size_t n;
    char *dir;                       /* the folder; NULL for the built-in pack */
    struct lesson_src_other *others; /* its other files, by path */
    size_t n_others;
};

/* Limits on a pack's assets (pack{ assets = {...} }): each file, and all
 * of them together. */
#define LESSON_ASSET_MAX (4u << 20)
#define LESSON_ASSETS_MAX (16u << 20)

/* Reads the .lua files below `dir` (at most 512, of at most 4 MiB each) and
 * lists the others without opening them (at most 10,000): only those the
 * pack declares as assets are read, at import (lesson_src_assets). Hidden
 * files and folders and symbolic links are skipped; sorted by path. A
 * folder without pack.lua is CORE_ERR_INVALID. Caller frees with
 * lesson_src_fini(). */
int lesson_src_read(const char *dir, struct lesson_src *out, struct core_err *err);

/* The other files of src matched by the asset patterns (fnmatch with
 * FNM_PATHNAME | FNM_PERIOD: a star does not match a slash nor a leading dot).
 * Each problem is pushed to `problems` and counted in the result: a file
 * over LESSON_ASSET_MAX (named), all of them over LESSON_ASSETS_MAX, a
 * pattern that matches nothing. With `into` non-NULL, the matched files
 * are read and appended to into->files (a read that fails is a problem
 * too). A src without a folder has no assets (0). */
size_t lesson_src_assets(const struct lesson_src *src, char *const *patterns, size_t n,
                         struct core_strlist *problems, struct lesson_src *into);

/* The built-in pack compiled into the binary, with the built-in marker
 * (LESSON_BUILTIN_MARKER) added. Caller frees with lesson_src_fini(). */
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
    size_t n_checks; /* self-test checks run (the sweep's included) */
    size_t variants; /* distinct variants asked per question (0: first only) */
    bool swept;      /* the sweep ran: `sweep` says what it saw */
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
int lesson_pack_check_with(const struct lesson_src *src, size_t variants, struct lesson_check *out,
                           struct grader_pack **pack, struct core_err *err);

/* lesson_pack_check_with with a budget of budget_s seconds of CPU for the
 * whole check (every reference, example, variant and sample; <= 0: none).
 * When it is spent the check stops and its first problem says so, naming
 * the question that took most of it. lesson_pack_check_with gives
 * LESSON_CHECK_BUDGET_S. */
#define LESSON_CHECK_BUDGET_S 60.0
int lesson_pack_check_budget(const struct lesson_src *src, size_t variants, double budget_s,
                             struct lesson_check *out, struct grader_pack **pack,
                             struct core_err *err);

/* lesson_pack_check_with on GRADER_SWEEP_VARIANTS variants. */
int lesson_pack_check(const struct lesson_src *src, struct lesson_check *out,
                      struct grader_pack **pack, struct core_err *err);

/* Checks (lesson_pack_check_with on `variants`) then imports `src`
 * (sources, lessons, pages, questions) in one transaction. A pack with
 * problems is refused (CORE_ERR_INVALID, details in `check` when given), as
 * is a reserved id (CORE_ERR_CONFLICT, see lesson_id_reserved; force does
 * not help). See db_pack_import for versions and `force`. */
int lesson_pack_import_with(struct db *db, const struct lesson_src *src, bool force,
                            size_t variants, struct lesson_check *check,
                            enum db_import_result *result, struct core_err *err);

/* lesson_pack_import_with on GRADER_SWEEP_VARIANTS variants. */
int lesson_pack_import(struct db *db, const struct lesson_src *src, bool force,
                       struct lesson_check *check, enum db_import_result *result,
                       struct core_err *err);

/* Writes the stored sources of pack `pack_id` (current revision) into `dir`,
 * creating it and its sub-folders, each file through core_file_create:
 * every target is checked before the first is written, and an existing one
 * is refused (CORE_ERR_CONFLICT naming it) unless `overwrite`; a link, FIFO
 * or device never is written. The built-in marker is not exported. */
int lesson_pack_export(struct db *db, const char *pack_id, const char *dir, bool overwrite,
                       struct core_err *err);

/* Writes files (paths relative to dir, checked safe) below dir, creating
 * its sub-folders, each through core_file_create: every target is checked
 * before the first is written, an existing one refused (CORE_ERR_CONFLICT
 * naming it) unless `overwrite`; a link, FIFO or device never written. */
int lesson_files_write(const char *dir, const struct db_file_in *files, size_t n, bool overwrite,
                       struct core_err *err);

/* ---- releases: graded work in a class (lesson_release.c) ------------------
 *
 * A pack's graded lessons (lesson{ graded = true }) and exam lessons are
 * graded work: the student gets a release of the pack, with those lessons
 * sealed (grader_pack_release), answers them ungraded, and the instructor
 * grades the submission with the source pack (lesson_class_import). */

/* The user a sealed question's variant is drawn for: "class:<salt>:<id>".
 * Every student of a class has one variant per sealed question, fixed by
 * their student id and the class salt; the instructor draws it again. */
void lesson_sealed_user(const char *salt, const char *student_id, char *buf, size_t n);

struct lesson_release_opts {
    const char *salt; /* the class salt to use (16-64 hex digits); NULL: keep the pack's */
    bool new_salt;    /* a new salt although the pack has releases (new numbers for all) */
};

struct lesson_release_report {
    char *pack_id, *version;
    char *digest; /* the release's: what students' answers will name */
    char *salt;
    bool salt_reused; /* the salt of the pack's earlier release */
    enum db_import_result source;
    size_t sealed_lessons, sealed_questions;
    size_t dropped_calcs, dropped_hints, dropped_defs;
    size_t n_files;
    struct core_strlist notes; /* what was left out, and why */
};
void lesson_release_report_fini(struct lesson_release_report *r);

/* Checks the source pack src (as pack check; problems in *check when
 * given), imports it into db (the instructor's store: the class import
 * grades with it), writes its release into `dir`, a new folder (an
 * existing one is CORE_ERR_CONFLICT), and records the release in db
 * (db_release_add). The release keeps the pack's id and version. */
int lesson_pack_release(struct db *db, const struct lesson_src *src, const char *dir,
                        const struct lesson_release_opts *o, struct lesson_check *check,
                        struct lesson_release_report *out, struct core_err *err);

/* What pack check --release found. */
struct lesson_release_check {
    struct core_strlist problems;
    char *pack_id;
    char *source_digest;
    size_t sealed_questions; /* checked */
    size_t students;         /* sample students each was drawn for */
    size_t searched_values;  /* reference values searched for */
};
void lesson_release_check_fini(struct lesson_release_check *c);

/* Proves a release carries nothing that grades: it must load as a
 * release (a sealed question carrying a grading field is refused), seal
 * every graded question of its source, and hold none of the source's
 * secrets of a sealed question — references (for sample students, numbers
 * of 3 significant figures or more, as written with 3 to 6), accepted
 * texts, model and sample answers, rubric phrases the prompt does not use,
 * feedback texts — in its files, in the sealed questions' views for sample
 * students (a params value a prompt does not show included), or in any
 * row of a store it is imported into with an answer recorded; and no
 * calculator may compute a sealed answer (grader_calc_reveals). The source
 * is `source`, or the revision of db whose digest the release names.
 * CORE_ERR_INVALID with out->problems when anything is found. */
int lesson_release_check(struct db *db, const struct lesson_src *release,
                         const struct lesson_src *source, struct lesson_release_check *out,
                         struct core_err *err);

/* ---- the built-in course --------------------------------------------------
 *
 * Pack ids "warpbench" and "warpbench.<anything>" are reserved for packs
 * built into Warpbench (the course, warpbench.core): lesson_pack_import
 * refuses them from a folder, with or without force (CORE_ERR_CONFLICT), so
 * no imported pack can replace the course. A built-in pack is stored with
 * one file more than its folder has, LESSON_BUILTIN_MARKER; a folder can
 * never supply it (hidden names are never read from a folder), so a stored
 * revision that carries it was written by a Warpbench binary, of whatever
 * version. That is how a newer Warpbench's course (kept: an older binary
 * must not downgrade a store) is told from an impostor (replaced). */
#define LESSON_RESERVED_ID "warpbench"
#define LESSON_BUILTIN_MARKER ".warpbench-builtin"
#define LESSON_BUILTIN_MARKER_TEXT                                                                 \
    "This pack is built into Warpbench; `warpbench init --restore-course` restores it.\n"

/* The built-in course's pack id ("warpbench.core") and this build's version
 * of it. Static. */
const char *lesson_builtin_id(void);
const char *lesson_builtin_version(void);

/* Whether a pack id is reserved for built-in packs. */
bool lesson_id_reserved(const char *id);
/* Whether a stored file path is the built-in marker (export skips it). */
bool lesson_builtin_marker(const char *path);

enum lesson_builtin_action {
    LESSON_BUILTIN_KEPT = 0, /* the store holds this build's course, or a newer build's */
    LESSON_BUILTIN_IMPORTED, /* the store had none */
    LESSON_BUILTIN_UPDATED,  /* it held an older built-in version (or this one, unmarked) */
    LESSON_BUILTIN_RESTORED  /* it held content no Warpbench built in: replaced */
};

struct lesson_builtin_report {
    enum lesson_builtin_action action;
    char found[64]; /* the version stored before, "" when none */
    bool newer;     /* KEPT: the stored course is a newer Warpbench's */
};

/* Keeps the built-in course current in the store:
 *  - none stored: import it (IMPORTED);
 *  - a built-in revision (marked) of an older version: update (UPDATED); of
 *    the same or a newer version: keep it (KEPT; a newer Warpbench wrote
 *    it), except that `restore` replaces a same-version revision whose
 *    content differs from this build's (RESTORED);
 *  - an unmarked revision: an older version is updated, this build's exact
 *    content is re-stored with the marker (both UPDATED: stores written
 *    before the marker existed); anything else was imported from a folder
 *    and is replaced by this build's course (RESTORED).
 * Attempts keep the revision they were graded with. rep is optional. Every
 * command runs this (restore = false) when it opens a store, so the common
 * case reads two rows and loads nothing. */
int lesson_builtin_sync(struct db *db, bool restore, struct lesson_builtin_report *rep,
                        struct core_err *err);

/* lesson_builtin_sync(db, false, ...) with the outcome as an import result:
 * KEPT is DB_IMPORT_UNCHANGED, IMPORTED DB_IMPORT_NEW, else
 * DB_IMPORT_REPLACED. *result is optional. */
int lesson_builtin_ensure(struct db *db, enum db_import_result *result, struct core_err *err);

/* ---- attempt policy (lesson_policy.c, pure) --------------------------------
 *
 * A question's score follows its policy (grader_policy), never "best
 * attempt": try k can earn grader_policy_available(k) of the points, the
 * question scores its best try's fraction times that, tries after the
 * user's first give-up earn nothing, and tries beyond the limit (only in a
 * store whose pack changed its policy) earn nothing either. */

/* Where a user stands on one question under its policy. */
struct lesson_tries {
    int used;              /* readable tries made */
    int limit;             /* the policy's tries, 0 = unlimited */
    double frac;           /* the fraction of the points the question now earns */
    int best_try;          /* the 1-based try that earns it, 0 when none */
    bool solved;           /* some try was fully right (before a give-up) */
    bool gave_up;          /* tries after a give-up exist or the user gave up */
    bool closed;           /* no try left: the limit was reached */
    double next_available; /* what the next try could earn, 0 when closed or after a give-up */
};

/* Applies policy p to the tries' score fractions (oldest first; n of them,
 * the first `credited` made before any give-up; gave_up: the user gave up
 * on the question at some point). Pure. */
void lesson_policy_apply(const struct grader_policy *p, const double *fracs, int n, int credited,
                         bool gave_up, struct lesson_tries *out);

/* The policy stored with a question row (tries, penalty, per_try text). */
void lesson_policy_of(int tries, double penalty, const char *per_try, struct grader_policy *out);

/* per_try as stored: "1 0.5 0.25", NULL when the policy uses a penalty.
 * Caller frees. */
char *lesson_policy_per_try_text(const struct grader_policy *p);

/* The value of guessing a question of kind k with n options (choice,
 * multi: n choices of which n_right are right; ordering: n items) under
 * p: *single, the expected score fraction of one random answer; *brute,
 * of answering at random (never repeating an answer) until right or out of
 * tries. Exact for choice; multi and ordering by a fixed-seed simulation
 * (deterministic). Other kinds: both 0. Pure. */
void lesson_policy_guess(enum grader_kind k, int n, int n_right, const struct grader_policy *p,
                         double *single, double *brute);

/* ---- progress under the policy ---------------------------------------- */

/* db_progress with the attempt policy applied: each row's `best` becomes
 * what the question earns under its policy (lesson_policy_apply), and an
 * exam question whose sitting is not over earns nothing yet (its score is
 * not shown before the exam is submitted). Everything that shows scores
 * reads progress through this. Errors as for db_progress. Caller frees
 * with db_progress_free. */
int lesson_progress_load(struct db *db, int64_t user_id, const char *pack_id,
                         struct db_progress_row **out, size_t *n, struct core_err *err);

/* What lesson_progress_load does to db_progress's rows: each row's
 * `best` becomes what the question earns under its policy, and an exam
 * question whose sitting is not over earns nothing (best and first 0).
 * The class gradebook applies it to rows built from a class store, so a
 * student's score is computed the same way on both sides. Pure. */
void lesson_progress_apply(struct db_progress_row *rows, size_t n);

/* The policy standing of one progress row (lesson_progress_load rows). */
void lesson_progress_tries(const struct db_progress_row *r, struct lesson_tries *out);

/* A question the user gave up on, by the one rule every front end shows: a
 * give-up shows the solution; tries before it keep what they earned, tries
 * after it earn nothing. */
enum lesson_help {
    LESSON_HELP_NONE,          /* no give-up */
    LESSON_HELP_RIGHT_BEFORE,  /* answered right before giving up: it counts in full */
    LESSON_HELP_PARTLY_BEFORE, /* partly right before: that part counts */
    LESSON_HELP_AFTER,         /* answered only after the give-up: with help, earns nothing */
    LESSON_HELP_UNANSWERED     /* gave up without answering */
};
/* Where row r stands (lesson_progress_load rows). Pure. */
enum lesson_help lesson_help_of(const struct db_progress_row *r);
/* For people: "answered right before the give-up: it counts", ...; "" for
 * LESSON_HELP_NONE. Static. */
const char *lesson_help_text(enum lesson_help h);
/* For programs (JSON): "right_before", "partly_before", "with_help",
 * "not_answered", "none". Static. */
const char *lesson_help_name(enum lesson_help h);

/* ---- progress tallies (lesson_tally.c, pure) -------------------------------
 *
 * The one way every front end sums lesson_progress_load's rows over a group
 * of questions (a lesson, a pack, a topic, a rubric item, all of them). */

/* What a group of questions scores. */
struct lesson_tally {
    char *name;       /* the group: "pack:lesson", a pack id, a topic, a rubric item, "total",
                         "auto-graded" or "design (automatic, provisional)" */
    int questions;    /* rows added */
    int answered;     /* of them answered (a readable try) */
    double score;     /* what they earn under their policies (the rows' best) */
    double max;       /* their points */
    int pending;      /* answered, not graded yet (an open exam; sealed work without its
                         official grade): earning nothing yet */
    double lost;      /* points the policies took from the best tries (penalties, try
                         limits); nothing for pending exam answers */
    bool cbm;         /* rows of a pack with certainty-based marking were added as such */
    int cbm_answered; /* of those, answered with a certainty */
    double cbm_mark;  /* their CBM marks: points × lesson_cbm_fraction(first try, certainty) */
    double cbm_max;   /* 3 × their points */
};

/* Adds progress row r (a lesson_progress_load row) to t; with `cbm` (r's
 * pack uses certainty-based marking) its CBM mark too. */
void lesson_tally_add(struct lesson_tally *t, const struct db_progress_row *r, bool cbm);

/* Tallies by name, in the order names were first added. */
struct lesson_tally_list {
    struct lesson_tally *v;
    size_t n;
};
/* The tally named name[0..len) in l, added (zero, name copied) when new.
 * Valid until the next call that adds. */
struct lesson_tally *lesson_tally_get(struct lesson_tally_list *l, const char *name, size_t len);
void lesson_tally_list_fini(struct lesson_tally_list *l);

/* Progress rows summed every way the front ends show them. */
struct lesson_tallies {
    struct lesson_tally total;        /* every row, named "total"; CBM counted */
    struct lesson_tally_list packs;   /* per pack id; CBM counted */
    struct lesson_tally_list lessons; /* per "pack:lesson"; CBM counted */
    struct lesson_tally_list topics;  /* per topic (a row's comma-separated topics, spaces
                                         around names dropped) */
    struct lesson_tally_list rubric;  /* per rubric item named by the rows, course item or not */
    struct lesson_tally_list kinds;   /* "auto-graded" and "design (automatic, provisional)":
                                         design points are provisional until a person reviews */
};
/* Sums rows[0..n) (lesson_progress_load rows). cbm (optional, n flags, as
 * lesson_progress_cbm gives them) marks the rows of CBM packs. Caller frees
 * with lesson_tallies_fini. */
void lesson_tallies_compute(const struct db_progress_row *rows, size_t n, const bool *cbm,
                            struct lesson_tallies *out);
void lesson_tallies_fini(struct lesson_tallies *t);
/* The tally of lesson pack_id:lesson_id, or NULL when no row is in it.
 * Borrowed from t. */
const struct lesson_tally *lesson_tallies_lesson(const struct lesson_tallies *t,
                                                 const char *pack_id, const char *lesson_id);
/* The tally of pack pack_id, or NULL when no row is in it. Borrowed from t. */
const struct lesson_tally *lesson_tallies_pack(const struct lesson_tallies *t, const char *pack_id);

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
    struct db_question q; /* the stored question row */
    struct grader_view v; /* prompt with numbers, choices, hints, unit; during an exam no
                             hints */
    int variant;
    struct grader_policy policy; /* its attempt policy */
    char policy_text[160];       /* the policy in words, for before the student answers */
    struct lesson_tries tries;   /* where the user stands on it */
    bool exam;                   /* its lesson is an exam ... */
    bool exam_open;              /* ... that is started and not over: no feedback yet */
    bool exam_over;              /* ... that is submitted or out of time */
    bool sealed; /* graded work of a class: answers recorded ungraded, variant fixed */
    /* Done with graded answers (closed, given up, its exam over): */
    bool solution; /* the solution may be shown at this variant: it was answered or given
                      up on here (an exam's own variant 1 too) */
    bool practice; /* this variant was not: an answer to it is practice (graded, kept,
                      earning nothing), and its solution waits for that answer */
};
void lesson_question_view_fini(struct lesson_question_view *v);

/* Whether the user answered (readably) or gave up on question pack_id:qid
 * at `variant` (*used, optional), and the highest variant they answered or
 * gave up on (*highest, optional; 1 when none): a new variant for practice
 * is *highest + 1. */
int lesson_variant_use(struct lesson_session *s, const char *pack_id, const char *qid, int variant,
                       bool *used, int *highest, struct core_err *err);

/* Renders question `qid` ("pack:id" or a bare id) at `variant` (1-based).
 * An exam question has only variant 1 until the exam is over (another is
 * CORE_ERR_USAGE, as for graded work), and shows no hints and no design
 * rubric before then. */
int lesson_question_show(struct lesson_session *s, const char *qid, int variant,
                         struct lesson_question_view *out, struct core_err *err);

/* The outcome of answering. */
struct lesson_answer_result {
    /* A sealed question: the answer was checked for form only and recorded
     * ungraded (r.valid; r.parsed as read; r.score 0; r.feedback says so).
     * Nothing about the grade exists on this side. */
    bool sealed;
    struct grader_result r; /* during an exam: score, correctness, feedback and solution are
                               withheld (zero, "Recorded ..."): see `hidden` */
    char *pack_id;
    char *question_id;
    int variant;
    int64_t attempt_id; /* the stored attempt */
    int attempt_no;     /* how many valid attempts the user has made at it, this one included */
    /* Under the question's policy (for a readable answer): */
    double available;  /* what this try could earn, a fraction of the points */
    double earned;     /* what it earns: its score fraction × available; 0 after a give-up */
    bool after_giveup; /* made after the user gave up on the question: earns nothing */
    struct lesson_tries tries; /* the question's standing after this answer */
    char policy_text[160];
    bool hidden; /* an exam answer: graded when the exam is submitted */
    /* A practice answer: to a variant not answered yet of a question that
     * takes no more graded answers (closed, or its exam over). Graded and
     * kept, earning nothing; `tries` is the standing as it was. */
    bool practice;
};
void lesson_answer_result_fini(struct lesson_answer_result *a);

/* Grades `answer` and appends the attempt (valid or not) to the store,
 * with the variant's parameters and the grader revision, committed before
 * returning. Errors: CORE_ERR_NOTFOUND (question), CORE_ERR_SCRIPT/LIMIT
 * (the grader is broken: nothing recorded), CORE_ERR_STORE, CORE_ERR_USAGE
 * for a question of a pack with certainty-based marking (answer those with
 * lesson_answer_certain) or of a timed exam not started yet,
 * CORE_ERR_CONFLICT for a question that takes no more answers (its tries
 * are used up, or its exam was submitted or ran out of time): nothing is
 * graded or recorded. */
int lesson_answer(struct lesson_session *s, const char *qid, int variant, const char *answer,
                  struct lesson_answer_result *out, struct core_err *err);

/* The verdict of a readable, graded answer as people read it, the one way
 * the CLI and the TUI say it (they add their mark, ✓ ~ ✗): the heading says
 * what the try earns, never a grade the policy then discounts ("correct on
 * try 2: earns 0.9 of 1 point", "correct, but try 2 earns nothing under this
 * question's policy", "correct (practice: 1/1, earns nothing)"); `note`
 * (optional) says what the try could earn and what the question scores, or
 * "" when the heading says it all. Pure; writes at most hn / nn bytes. */
void lesson_answer_headline(const struct lesson_answer_result *res, char *head, size_t hn,
                            char *note, size_t nn);

/* ---- the mistakes review (lesson_mistakes.c) -------------------------------- */

enum lesson_mistake_kind {
    LESSON_MISTAKE_WRONG,   /* the latest answer was wrong */
    LESSON_MISTAKE_PARTLY,  /* ... partly right */
    LESSON_MISTAKE_GAVE_UP, /* the latest word was a give-up */
    LESSON_MISTAKE_EXAM     /* missed in a submitted exam: wrong, partly or not answered */
};
/* For programs (JSON): "wrong", "partly", "gave_up", "exam". Static. */
const char *lesson_mistake_kind_name(enum lesson_mistake_kind k);

/* A question to review. Owns its strings. */
struct lesson_mistake {
    char *pack_id, *lesson_id, *question_id;
    char *title, *lesson_title;
    enum lesson_mistake_kind kind;
    char *when;        /* ISO-8601 UTC of the latest event (the exam's submission for a miss) */
    char *answer;      /* the latest answer, NULL for a give-up or an unanswered exam question */
    char *what;        /* what went wrong, one line: that answer's feedback, "gave up: ..." */
    double score, max; /* that answer's grade (0 for a give-up) */
    double points;     /* the question's points */
    int variant;       /* the variant of the latest event */
    bool has_params;   /* it draws numbers per variant */
    int retry_variant; /* where to try again: the highest variant answered or given up on
                          + 1 when it draws numbers (no solution shown there), else 1 */
    bool exam;         /* it belongs to an exam lesson */
    bool cleared;      /* (all: true) answered right since: no longer a mistake */
};
void lesson_mistakes_free(struct lesson_mistake *m, size_t n);

/* The user's mistakes in every current pack (or pack_id): each question
 * whose latest readable answer is not right, or whose latest word is a
 * give-up, or that a submitted exam missed (answered wrong or not at all),
 * newest first. A right answer since (on any variant, practice too) clears
 * it; with `all` the cleared ones are listed too (cleared = true). An exam
 * not yet submitted and graded work of a class (sealed) are left out.
 * Caller frees with lesson_mistakes_free. Errors: CORE_ERR_STORE. */
int lesson_mistakes_load(struct lesson_session *s, const char *pack_id, bool all,
                         struct lesson_mistake **out, size_t *n, struct core_err *err);

/* ---- search (lesson_search.c) -------------------------------------------------- */

enum lesson_hit_kind { LESSON_HIT_PAGE, LESSON_HIT_QUESTION, LESSON_HIT_CALC };
/* "page", "question", "calculator". Static. */
const char *lesson_hit_kind_name(enum lesson_hit_kind k);

/* Where a search found its text. Owns its strings. */
struct lesson_hit {
    enum lesson_hit_kind kind;
    char *pack_id, *lesson_id, *lesson_title;
    char *id;      /* the question's or calculator's id; NULL for a page */
    int page;      /* 0-based: the page itself, or the page a question or calculator follows */
    char *title;   /* the page's, question's or calculator's title */
    bool in_title; /* found in the title (else in the text, prompt, topics or inputs) */
    char *where;   /* for people: "Memory, page 4: question prompt" */
    char *snippet; /* the line around the match, "…" where cut */
};
void lesson_hits_free(struct lesson_hit *h, size_t n);

/* The course's text, gathered once to be searched many times. */
struct lesson_search_index;

/* Gathers every current pack's lesson pages (titles and text), questions
 * (titles and prompts) and calculators (titles, inputs), in course order.
 * An exam's calculators are left out until it is submitted (as
 * lesson_calc_list). Caller frees with lesson_search_index_free. Errors:
 * CORE_ERR_STORE and those of lesson_session_pack. */
int lesson_search_index_new(struct db *db, struct lesson_session *s,
                            struct lesson_search_index **out, struct core_err *err);
void lesson_search_index_free(struct lesson_search_index *x);

/* Every page, question and calculator whose title or text (a question's
 * prompt or topics, a calculator's inputs) holds `text` (ASCII case
 * ignored, runs of white space one space), in course order.
 * Returns how many; *out (caller frees with lesson_hits_free) is NULL for
 * none or an empty text. Pure over the index. */
int lesson_search_run(const struct lesson_search_index *x, const char *text,
                      struct lesson_hit **out, size_t *n);

/* ---- the formula sheet (lesson_formulas.c) ---------------------------------- */

/* One formula of a current pack. Everything is borrowed from the session's
 * pack cache: valid until lesson_session_free. */
struct lesson_formula {
    const char *pack_id;
    const struct grader_formula *f; /* id, name, formula, symbols, note, lesson */
    const char *lesson_title;       /* the lesson that teaches it */
    int page;                       /* its page there, 0-based */
    const char *page_title;         /* NULL when unknown */
    const char *calc_id;            /* the calculator that computes it, NULL for none (or one
                                       an exam hides until it is submitted) */
    const char *calc_title;
};

/* The formula sheets (formulas { ... }) of every current pack, in pack and
 * declaration order. *out is malloc'd (caller frees it with free(); the
 * entries borrow as above), NULL when *n is 0. Errors: CORE_ERR_STORE and
 * those of lesson_session_pack. */
int lesson_formulas_list(struct db *db, struct lesson_session *s, struct lesson_formula **out,
                         size_t *n, struct core_err *err);

/* ---- re-grading ----------------------------------------------------------- */

struct lesson_regrade_opts {
    bool dry_run;    /* report only: nothing is written */
    bool new_params; /* grade against the numbers the current version draws, not the ones
                        each student was shown */
};

/* One attempt whose grade changes (or could not be re-graded). */
struct lesson_regrade_item {
    int64_t attempt_id;
    char *user;
    char *question_id;
    int variant;
    bool old_valid, new_valid;
    double old_score, new_score, max;
    char *reason; /* why: versions, grader revisions, which numbers; or the grader's error */
    bool failed;  /* the grader failed on it: its grade stands */
};

struct lesson_regrade_report {
    char *pack_id;
    char *version;        /* the version re-graded with */
    size_t n_checked;     /* attempts re-graded */
    size_t n_changed;     /* whose grade changes */
    size_t n_failed;      /* the grader failed on */
    size_t n_kept_params; /* graded against shown numbers the new version no longer draws */
    size_t n_skipped;     /* questions no longer in the pack: their grades stand */
    struct lesson_regrade_item *items; /* the changed and the failed, in attempt order */
    size_t n_items;
    bool written; /* the changed grades were stored */
};
void lesson_regrade_report_fini(struct lesson_regrade_report *r);

/* Re-grades every student attempt of `pack_id` with the pack's current
 * revision. Each attempt is graded against the variant parameters it was
 * graded with the first time (stored with it; for attempts stored before
 * that, the ones its own revision draws for that student and variant),
 * unless opts->new_params; a lab-linked answer against the run the student
 * had then. An attempt whose grade (validity or score) changes is listed
 * with the reason; unless opts->dry_run, exactly those are appended as
 * re-grades, in one transaction. A grader error on one attempt is listed
 * (failed) and the rest go on. Returns CORE_OK with the report filled
 * (check n_failed), or an error for a missing pack or the store. */
int lesson_regrade_run(struct lesson_session *s, const char *pack_id,
                       const struct lesson_regrade_opts *opts, struct lesson_regrade_report *out,
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

#define LESSON_RUBRIC_N 12 /* items in the course rubric */
#define LESSON_STUDY_MAX 3 /* lessons suggested by "what to study next" */

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
    int questions; /* questions tagged with the item */
    int answered;  /* of which answered (at least one valid attempt) */
    double points; /* their points */
    double earned; /* their best scores */
    double graded; /* item max × earned / points; 0 when no question is tagged */
    double answered_points, answered_earned; /* over the answered questions only */
    double graded_answered; /* item max × earned / points of the ANSWERED questions: how
                               well the student did on what they tried (0 when none) */
    bool rated;             /* the student rated this item */
    double self;            /* the latest self-rating, on the item's scale */
    char *rated_at;         /* when (ISO-8601), NULL when not rated */
    double gap;             /* self − graded_answered when rated and something was answered;
                               self − graded when rated and nothing was; else 0. A rating is
                               compared with the work done, not with questions not yet tried */
};

/* A lesson worth studying next. */
struct lesson_study {
    char *pack_id;
    char *lesson_id;
    double unearned;                       /* rubric points its questions could still add */
    const struct lesson_rubric_item *item; /* the item it would lift most */
    double lost; /* points the student's own answers lost there (wrong, partly right, given
                    up, missed in a submitted exam); 0: suggested for what is still open */
    int missed;  /* the questions behind `lost` */
    bool exam;   /* an exam lesson */
};

struct lesson_standing {
    struct lesson_item_standing items[LESSON_RUBRIC_N]; /* course order */
    double graded_total;                                /* out of 100 */
    const char *graded_level;                           /* lesson_level_name(graded_total) */
    int n_rated;                                        /* items with a self-rating */
    double self_total;                                  /* sum of the latest self-ratings */
    const char *self_level; /* level of self_total; NULL unless every item is rated */
    int n_compared;         /* rated items with at least one answered question */
    double self_compared;   /* self-ratings of those items */
    double graded_compared; /* their graded_answered scores */
    double max_compared;    /* their maxima */
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
 * ranked first by the points the student's own answers lost there (wrong,
 * partly right, given up, missed in a submitted exam: the mistakes), most
 * first, then by those rubric points, ties in lesson order; among the
 * latter, exam lessons (the course's assessment) come only after every
 * other lesson with something left, since they test what the others teach.
 * LESSON_STUDY_MAX lessons at most.
 * Pure: no I/O. Caller frees with lesson_standing_fini. */
void lesson_standing_compute(const struct db_progress_row *rows, size_t n_rows,
                             const struct db_selfassess *self, size_t n_self,
                             struct lesson_standing *out);

/* Reads the user's progress (all current packs, or pack_id) and latest
 * self-ratings and computes their standing. Errors as for db_progress. */
int lesson_standing_load(struct db *db, int64_t user_id, const char *pack_id,
                         struct lesson_standing *out, struct core_err *err);

/* ---- rubric coverage of a pack (lesson_coverage.c, pure) -------------------
 *
 * How much evidence a pack holds for each rubric item, before anyone answers:
 * what `warpbench pack check --rubric` prints, so an instructor sees an item
 * that one answer would swing. */

/* One rubric item's questions in a pack. */
struct lesson_rubric_count {
    const char *name; /* the item's id: static for a course item, else borrowed from the
                         pack info (valid while it is) */
    const struct lesson_rubric_item *item; /* the course item, NULL for another name */
    int questions; /* questions tagged with it (a name repeated in one question counts once) */
    double points; /* their points */
    int lessons;   /* distinct lessons holding them */
};

struct lesson_rubric_coverage {
    struct lesson_rubric_count items[LESSON_RUBRIC_N]; /* the course items, in course order */
    struct lesson_rubric_count *other; /* names that are not course items, first-seen order */
    size_t n_other;
};

/* Counts the questions, points and lessons of `info` per rubric item. Pure.
 * Caller frees with lesson_rubric_coverage_fini. */
void lesson_rubric_coverage_compute(const struct grader_pack_info *info,
                                    struct lesson_rubric_coverage *out);
void lesson_rubric_coverage_fini(struct lesson_rubric_coverage *c);

/* ---- exams ------------------------------------------------------------------ */

/* An exam lesson as a user sits it. */
struct lesson_exam {
    char *pack_id;
    char *lesson_id;
    char *title;
    int time_limit_s; /* 0: none */
    bool started;
    bool over;                                  /* submitted or out of time */
    bool submitted;                             /* by the student (else: time ran out) */
    char *started_at, *deadline, *submitted_at; /* NULL when not (yet) */
    double seconds_left; /* while started and not over with a limit; else 0 */
    int n_questions;
    int n_answered; /* questions with a readable answer */
    /* Once over: the results. */
    double score, max;               /* points */
    struct lesson_standing standing; /* the exam's questions rolled up to the rubric */
    double rubric_total; /* rubric points earned, scaled to 100 over the items it covers */
    const char *level;   /* lesson_level_name(rubric_total); NULL while there is nothing */
    /* A sealed exam (of a release): submitted answers are graded by the
     * instructor; results come with official grades (n_official of the
     * questions have one) from a feedback file. */
    bool sealed;
    int n_official;
};
void lesson_exam_fini(struct lesson_exam *x);

/* The exam lesson `lesson` ("pack:lesson" or a bare lesson id) for this
 * user. CORE_ERR_NOTFOUND for an unknown lesson, CORE_ERR_USAGE for a
 * lesson that is not an exam. */
int lesson_exam_status(struct lesson_session *s, const char *lesson, struct lesson_exam *out,
                       struct core_err *err);

/* Starts the sitting (its clock) unless it was started before; then as
 * lesson_exam_status. */
int lesson_exam_start(struct lesson_session *s, const char *lesson, struct lesson_exam *out,
                      struct core_err *err);

/* Submits the sitting: from then on its answers are graded in the open and
 * no more are taken. A sitting never started, or already over, is
 * CORE_ERR_CONFLICT. Then as lesson_exam_status (with the results). */
int lesson_exam_submit(struct lesson_session *s, const char *lesson, struct lesson_exam *out,
                       struct core_err *err);

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
int lesson_question_cbm(struct lesson_session *s, const char *qid, bool *cbm, struct core_err *err);

/* Whether pack `pack_id` (its current revision) uses certainty-based
 * marking. CORE_ERR_NOTFOUND for an unknown pack. */
int lesson_pack_cbm(struct lesson_session *s, const char *pack_id, bool *cbm, struct core_err *err);

/* The lesson `ref` names: "pack:lesson", or a bare lesson id found in one
 * pack only. CORE_ERR_NOTFOUND (with the closest id, if any) or
 * CORE_ERR_USAGE when a bare id is in several packs. *out is one lesson;
 * caller frees with db_lessons_free(*out, 1). */
int lesson_find(struct db *db, const char *ref, struct db_lesson **out, struct core_err *err);

/* For each of rows[0..n) (sorted by pack, as db_progress gives them) whether
 * its pack uses certainty-based marking, for lesson_tallies_compute. Only
 * packs with an answer stated with a certainty are loaded to ask (loading
 * evaluates the pack's Lua files; any other pack has no CBM mark to show);
 * a pack that cannot be loaded counts as plain. Caller frees. */
bool *lesson_progress_cbm(struct lesson_session *s, const struct db_progress_row *rows, size_t n);

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
    char *accepted;    /* the accepted answer as the grader states it, NULL when it has none */
    char *reference;   /* the worked solution, NULL when none */
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

/* The accepted answer and worked solution of question `qid` at `variant`
 * for this user, without recording anything (for a closed question; a
 * give-up records that it was shown: lesson_giveup). *accepted and
 * *reference (NULL when the grader states none) are the caller's to free.
 * CORE_ERR_CONFLICT for a question of an exam not yet over. */
int lesson_question_solution(struct lesson_session *s, const char *qid, int variant,
                             char **accepted, char **reference, struct core_err *err);

/* lesson_answer_certain for a design answer with the student's rubric
 * self-scores (n_self of them, any subset of the rubric), stored with the
 * attempt in the same transaction. Each concept must be a rubric label of
 * the question as shown (grader_view.rubric) and its score lie in 0..its
 * points; the stored maximum is the rubric's, whatever self[i].max says. A
 * question without a rubric, an unknown concept or a score out of range is
 * CORE_ERR_USAGE and nothing is graded or recorded; a repeated concept is
 * CORE_ERR_INVALID. n_self == 0 is lesson_answer_certain. */
int lesson_answer_design(struct lesson_session *s, const char *qid, int variant, const char *answer,
                         int certainty, const struct db_selfscore_in *self, size_t n_self,
                         struct lesson_answer_result *out, struct core_err *err);

#include "lessons/lesson_class.h" /* the class loop: a part of this header of its own */

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
 * pack's stored revision through the session's cache. An exam lesson's
 * calculators are left out until the user has submitted the exam (or its
 * time is up): they would compute the student's answers. *out is malloc'd (caller frees it with
 * free(); the entries borrow as above), NULL when *n is 0. Errors: CORE_ERR_STORE, and those of
 * lesson_session_pack. */
int lesson_calc_list(struct db *db, struct lesson_session *s, struct lesson_calc **out, size_t *n,
                     struct core_err *err);

/* Finds calculator `calc_id`: "pack:calc" or a bare calculator id. A bare
 * id that several packs declare is CORE_ERR_USAGE naming them; an unknown
 * one CORE_ERR_NOTFOUND; one of an exam not yet submitted CORE_ERR_CONFLICT
 * saying so. */
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
 * TUI both show outputs this way): core_num_human with 4 significant
 * figures and CORE_HUMAN_TIGHT_X, that is: up to 4 significant figures, trailing
 * zeros trimmed, no exponent between 1e-4 and 1e9; a value in B, B/s,
 * bit/s, bps, FLOP, FLOP/s, FLOPS, Hz or W gets the decimal prefix that fits
 * ("1.5 TB/s"), one in s below a second is shown in ms, µs or ns; x, × and %
 * follow the number without a space ("2.5x", "25%"). `unit` may be NULL or
 * "". Pure; writes at most n bytes, NUL-terminated when n > 0. */
void lesson_calc_value_format(double v, const char *unit, char *buf, size_t n);

/* A score (points) as students read it: at most two decimals, trailing
 * zeros trimmed ("1.33", "2", "0.5"), never "-0". Pure; as above. */
void lesson_score_format(double v, char *buf, size_t n);

/* A duration in seconds as "45 minutes", "1 minute", "1 h 30 min" or "40 s".
 * Pure; as above. */
void lesson_duration_format(int seconds, char *buf, size_t n);

#endif /* WB_LESSON_H */
