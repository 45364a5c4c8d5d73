/*
 * grader.h — the Lua 5.4 grader: sandbox, the `wb` library, pack evaluation
 * into a C model, and grading.
 *
 * A pack is a set of Lua source files (pack.lua plus lesson files). This
 * module evaluates them in a sandbox (allow-listed libraries, text chunks
 * only, a byte-capped allocator, an instruction budget pcall cannot swallow
 * that library calls are charged to by the bytes they handle, and a CPU-time
 * backstop far above it that also stops long C calls) and hands the rest of
 * Warpbench plain C structs. The instruction and memory counts decide every
 * outcome the same way on every machine and under any load. Every grading, rendering or example run
 * gives the result a fresh sandbox would: a pack's sandbox is reused from job
 * to job, but each job runs in an environment of its own, what jobs share
 * (the libraries, wb, the strings' metatable) is read-only to pack code, and a
 * sandbox is never reused after a job that failed, so one grader cannot
 * leave anything behind for the next.
 *
 * Errors in instructor code come back as CORE_ERR_SCRIPT (a Lua error),
 * CORE_ERR_LIMIT (a sandbox limit) or CORE_ERR_INVALID (a pack that breaks the
 * format), each with a message that starts "file:line: ". A student's answer
 * that cannot be read is not an error: it is a result with valid == false.
 *
 * Threads and signals: the time backstop uses one POSIX CPU-time timer per
 * thread that grades, delivering the real-time signal SIGRTMIN+6 to that thread
 * (its handler is installed on first use; the host must leave that signal
 * alone). A grader_pack keeps a memory pool for its sandboxes, so one pack
 * must not be used by two threads at once.
 *
 * Uses core. The only module that includes lua.h. See lessons/FORMAT.md for
 * the pack format this module implements.
 */
#ifndef WB_GRADER_H
#define WB_GRADER_H

#include "core/core.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- limits -------------------------------------------------------------- */

struct grader_limits {
    size_t mem_bytes;      /* Lua heap cap per sandbox */
    uint64_t instructions; /* VM instruction budget per call into instructor code,
                              library calls charged by the bytes they handle */
    unsigned cpu_ms;       /* CPU-time backstop per call into instructor code */
};

/* Defaults for grading: 32 MiB, 20 million instructions (about 60 ms of
 * Lua on the development machine), a 2000 ms CPU-time backstop. */
void grader_limits_default(struct grader_limits *l);

/* ---- pack sources and model ---------------------------------------------- */

/* One source file. Borrowed by the calls that take it. */
struct grader_file {
    const char *path; /* relative to the pack folder, e.g. "pack.lua", "amdahl.lua" */
    const char *data;
    size_t len;
};

/* ---- attempt policy ------------------------------------------------------- */

/* How many tries a question allows and what each try can earn. A try is a
 * readable (valid) answer; unreadable ones are explained and never count.
 * Try k (1-based) can earn at most the fraction grader_policy_available(k)
 * of the points: per_try[k-1] when a list is given (0 beyond its end), else
 * max(0, 1 - (k-1) * penalty). The question's score is its best try's
 * fraction times what that try could earn. tries == 0 means no limit;
 * after the last try the question is closed and its solution shown.
 * Declared as `policy = { tries = 3, penalty = 1/3 }` (or `per_try =
 * { 1, 0.5, 0.25 }`) on pack{}, lesson{} or question{}; the nearest wins,
 * field by field (penalty and per_try count as one field), and anything
 * left unset comes from the kind's default (grader_policy_default). */
#define GRADER_PER_TRY_MAX 16
struct grader_policy {
    int tries;                          /* maximum tries, 0 = unlimited */
    double penalty;                     /* fraction of the points lost per wrong try, 0..1 */
    double per_try[GRADER_PER_TRY_MAX]; /* or: what each try can earn, 0..1 */
    int n_per_try;                      /* 0: use penalty */
};

enum grader_kind {
    GRADER_NUMERIC = 0,
    GRADER_CHOICE,   /* one of several */
    GRADER_MULTI,    /* any subset of several */
    GRADER_ORDERING, /* put items in order */
    GRADER_TEXT,     /* short text */
    GRADER_DESIGN,   /* free text graded by a rubric of concepts */
    GRADER_CODE      /* a C function the student writes, run by `warpbench code run` */
};

/* "numeric", "choice", "multi", "ordering", "text", "design". Static. */
const char *grader_kind_name(enum grader_kind k);

/* The kind by name; -1 when unknown. */
int grader_kind_find(const char *name);

/* The policy a question of kind k gets when its pack, lesson and question
 * set none. Chosen so that guessing is worthless: for choice, multi and
 * ordering only the first try earns points (penalty 1) and one more try is
 * allowed to learn from the feedback, so answering at random until right
 * is worth no more than one random guess; numeric 5 tries at 0.1 per
 * wrong try; text 3 tries at 1/3; design 3 tries at 0.2. */
void grader_policy_default(enum grader_kind k, struct grader_policy *out);

/* The fraction of the points try k (1-based) can earn under p. Pure. */
double grader_policy_available(const struct grader_policy *p, int k);

/* The policy in words for students, e.g. "3 tries; each wrong try costs a
 * third of the points", "2 tries; only the first earns points",
 * "unlimited tries; no penalty". Writes at most n bytes. Pure. */
void grader_policy_describe(const struct grader_policy *p, char *buf, size_t n);

/* The grading engine's revision: bumped by hand whenever a change to the
 * grading code can change a score, and followed by the digest of the
 * embedded wb.lua, e.g. "g2+wb.4f1c0a9e21d3". Stored with every attempt so
 * a later re-grade can say what changed. Static. */
const char *grader_revision(void);

/* The longest answer of kind k that is graded, in bytes, unless a question
 * sets its own max_answer: 1 KiB for numeric, choice, multi and ordering,
 * 4 KiB for text, 16 KiB for design. A longer answer is invalid (explained,
 * not graded); students are told the limit with the question. It bounds
 * the work a grader does on one answer. GRADER_MAX_ANSWER is the most a
 * question may set. */
size_t grader_kind_max_answer(enum grader_kind k);
#define GRADER_MAX_ANSWER 65536

struct grader_page {
    char *title; /* may be NULL; else the first "# " heading */
    char *markdown;
    int line;
};

/* A `code` question's exercise (grader_kind_code.c; lessons/FORMAT.md,
 * "Programming exercises"): what the harness of labs/code/ needs, read and
 * checked when the pack is evaluated. The grader never runs it. */
struct grader_code_param {
    char *name;
    char *type;    /* the C type as declared: "int", "const float *", "int8_t *" */
    char *elem;    /* the element (or scalar) type: "int", "float", "int8_t", ... */
    bool pointer;  /* an array */
    bool is_const; /* a const array: an input */
    char *count;   /* arrays: the element count, an expression over the sizes */
    double lo, hi; /* inputs: the range values are drawn from */
};
struct grader_code {
    char *signature; /* as declared: "void matmul(int n, const float *a, ...)" */
    char *func;      /* "matmul" */
    char *ret;       /* "void", "float", "int", ... */
    struct grader_code_param *params;
    size_t n_params;
    char **size_names; /* sizes = { n = 512 } */
    double *size_values;
    size_t n_sizes;
    char *starter;               /* the file `code start` writes */
    char *reference;             /* the naive reference, C source */
    char *flags;                 /* extra compiler flags ("" for none) */
    double rtol, atol, mismatch; /* tolerance = { rel, abs, mismatch } */
    char *flops, *bytes;         /* work = { flops = "2*n^3", bytes = "12*n^2" } */
    int threads, reps;
    double timeout_s, mem_mib;
    double *band_fraction, *band_score; /* bands = { { fraction = 0.05, score = 0.5 }, ... } */
    size_t n_bands;
    double correct_share; /* correct = 0.3: the share a correct run earns at any speed */
    char *lesson_lab;     /* unused: reserved */
};
void grader_code_free(struct grader_code *c);

struct grader_question {
    char *id;
    enum grader_kind kind;
    char *title;   /* may be NULL */
    char *prompt;  /* template; "{name}" / "{name:%.2f}" filled per variant */
    double points; /* default 1 */
    char **topics;
    size_t n_topics;
    char **rubric; /* course rubric items this question evidences */
    size_t n_rubric;
    char *lab;  /* linked lab, or NULL */
    char *unit; /* numeric: the unit answers are read in ("" = plain number) */
    size_t n_hints;
    char **hints;      /* the hint templates, in order (n_hints) */
    bool *hint_public; /* per hint: `{ text = ..., public = true }`: kept by a release */
    size_t n_choices;  /* choice/multi/ordering */
    char **choices;    /* the choice (or item) templates as declared (n_choices) */
    size_t n_examples;
    size_t n_samples;  /* design: graded sample answers (pack check scores them) */
    size_t max_answer; /* the longest answer graded, in bytes (grader_kind_max_answer
                          unless the question sets max_answer) */
    bool has_params;   /* draws per-student numbers */
    bool has_grade;    /* custom grade function */
    bool integer;      /* numeric: integer = true */
    /* A question of a sealed lesson of a release (grader_lesson.sealed):
     * it carries no reference and nothing that grades. An answer to it is
     * checked for form (grader_question_record) and graded by the
     * instructor, with the source pack. */
    bool sealed;
    char *file;                  /* source file path */
    int line;                    /* line of the question{} call */
    int page_after;              /* index of the page it follows in its lesson, -1 before any */
    struct grader_policy policy; /* resolved: question > lesson > pack > kind default */
    struct grader_code *code;    /* kind code: the exercise; NULL otherwise */
};

/* An interactive calculator declared in a lesson with calculator{}: named
 * numeric inputs with defaults and ranges, and a Lua compute(v) that returns
 * labelled outputs. */
struct grader_calc_input {
    char *name;  /* the key compute() reads: v.f */
    char *label; /* "serial fraction f" */
    char *unit;  /* "" for none */
    char *help;  /* may be NULL */
    double def, min, max;
    bool integer;
};

struct grader_calc {
    char *id;
    char *title;
    struct grader_calc_input *inputs;
    size_t n_inputs;
    char *file;
    int line;
    int page_after; /* index of the page it follows in its lesson, -1 before any */
};

/* One entry of the pack's formula sheet (formulas { ... }): a formula with
 * what its symbols mean, the page that teaches it and the calculator that
 * computes it. */
struct grader_formula {
    char *id;         /* unique among the pack's formulas */
    char *name;       /* "Amdahl's law" */
    char *formula;    /* "S(p) = 1 / (f + (1 - f)/p)"; may span lines */
    char *symbols;    /* what the letters mean, or NULL */
    char *note;       /* when it applies, or NULL */
    char *lesson;     /* the lesson that teaches it */
    int page;         /* its page there, 0-based (-1: unknown) */
    char *page_title; /* the page as declared by title, or NULL */
    char *calc;       /* the calculator that computes it (an id of the pack), or NULL */
    char *file;
    int line;
};

struct grader_calc_output {
    char *label;
    char *unit; /* "" for none */
    double value;
    char *text; /* non-NULL: a text (or ASCII diagram) output instead of a number */
};
void grader_calc_outputs_free(struct grader_calc_output *o, size_t n);

struct grader_lesson {
    char *id;
    char *title;
    char *file;
    int line;
    struct grader_page *pages;
    size_t n_pages;
    struct grader_question *questions;
    size_t n_questions;
    struct grader_calc *calcs;
    size_t n_calcs;
    /* Exam mode (lesson{ exam = true } or exam = { minutes = 45 }): one try
     * per question, no feedback, hints or solutions until the student
     * submits the whole lesson; an optional time limit. */
    bool exam;
    int time_limit_s; /* 0: none */
    /* lesson{ graded = true }: graded work of a class. A graded or exam
     * lesson is `sealed` in a release (grader_pack_info.is_release): the
     * release keeps only what a student needs to answer. */
    bool graded;
    bool sealed;
};

/* How an answer made after a class's deadline is graded
 * (pack{ class = { late = ... } }): as on time (it is flagged late), with
 * a fraction of the points taken per day late, or not at all. */
enum grader_late { GRADER_LATE_NONE = 0, GRADER_LATE_PER_DAY, GRADER_LATE_ZERO };

struct grader_pack_info {
    char *id;
    char *title;
    char *version;
    char *description; /* may be NULL */
    bool cbm;          /* pack{ cbm = true }: answers carry a certainty 1..3 */
    char **assets;     /* pack{ assets = {...} }: patterns of the other files to store */
    size_t n_assets;

    char **rubric; /* pack{ rubric = { ... } }: the pack's own rubric items, beside
                      the course's (lessons/ checks every question's items) */
    size_t n_rubric;
    /* pack{ release = { salt = ..., source = ..., made = ... } }: this is a
     * release, the student edition `pack release` writes; its graded and
     * exam lessons are sealed. salt: the class salt every sealed variant is
     * drawn with; source: the digest of the source pack it was made from. */
    bool is_release;
    char *release_salt, *release_source, *release_made; /* NULL unless is_release */
    /* pack{ class = { deadline = "2026-12-01T23:59Z", late = ... } }: the
     * class's deadline (UTC, as core_time_iso writes it; NULL: none) and
     * its late rule (late = "none" | "zero" | { per_day = 0.1 }). */
    char *deadline;
    enum grader_late late;
    double late_per_day;
    struct grader_lesson *lessons;
    size_t n_lessons;
    struct grader_formula *formulas; /* formulas { ... }: the formula sheet, in order */
    size_t n_formulas;
};

struct grader_pack;

/* Evaluates a pack: pack.lua first, then each lesson file it lists, each in a
 * new sandbox with the pack constructors (pack, lesson, page, question, ...)
 * defined. Validates every field against the format (unknown field, missing
 * or duplicate id, wrong type, unknown kind, missing reference answer, ...).
 * Every problem found is pushed to `problems` (optional) as
 * "file:line: message"; the first also goes to `err`. When there are
 * problems and `problems` is given, the questions without problems still run
 * their self-tests (as grader_pack_selftest) and add their failures, so one
 * typo does not hide the rest. Returns 0 and a pack handle, or CORE_ERR_INVALID/SCRIPT/LIMIT and
 * *out NULL. The handle copies what it needs from `files`. Caller frees with grader_pack_free(). */
int grader_pack_new(struct grader_pack **out, const struct grader_file *files, size_t n,
                    const struct grader_limits *lim, struct core_strlist *problems,
                    struct core_err *err);

/* grader_pack_new for pack check: the same evaluation and problems, but the
 * pack is handed over even when it has problems (rc is then the first
 * problem's code, with `problems` listing them all), so that the caller can
 * run the remaining checks — grader_pack_selftest, grader_pack_sweep, which
 * skip the questions with problems — and report everything at once. *out
 * is always set; the caller frees it with grader_pack_free(). */
int grader_pack_new_checked(struct grader_pack **out, const struct grader_file *files, size_t n,
                            const struct grader_limits *lim, struct core_strlist *problems,
                            struct core_err *err);

/* Like grader_pack_new for sources that already passed it (a revision from
 * the store, checked at import): evaluates the files and validates the
 * model, but skips the per-question checks that run every question's params
 * and references. Errors as for grader_pack_new. */
int grader_pack_open(struct grader_pack **out, const struct grader_file *files, size_t n,
                     const struct grader_limits *lim, struct core_err *err);

void grader_pack_free(struct grader_pack *p);

/* A budget of CPU time for every question job run on p from now on (pack
 * check: references, examples, variants, samples): each job's CPU time (the
 * calling thread's) is charged to the pack and to its question. Once it is
 * spent, every further job fails at once with CORE_ERR_LIMIT and its words
 * (GRADER_BUDGET_WORDS ...). cpu_s <= 0: no budget (the default). The
 * per-call limits (grader_limits) hold as before. */
void grader_pack_set_budget(struct grader_pack *p, double cpu_s);
#define GRADER_BUDGET_WORDS "the pack's budget of"
/* Whether p's budget is spent; when it is and buf is given, the words that
 * say so, naming the question whose jobs took the most of it ("the pack's
 * budget of 60 s of CPU is spent: question slow took 58.2 s of it"). */
bool grader_pack_budget_spent(const struct grader_pack *p, char *buf, size_t n);

/* The model. Borrowed; valid until grader_pack_free. */
const struct grader_pack_info *grader_pack_info(const struct grader_pack *p);

/* Finds a question by id; NULL when absent. Borrowed. */
const struct grader_question *grader_pack_question(const struct grader_pack *p, const char *qid);

/* ---- grading context ----------------------------------------------------- */

/* A named figure (lab parameter or summary value). */
struct grader_kv {
    const char *key;
    const char *str; /* used when !is_num */
    double num;
    bool is_num;
};

/* The student's latest completed run of the question's lab. Borrowed. */
struct grader_lab_run {
    int64_t id;
    const char *lab;
    const char *finished_at;
    const struct grader_kv *params;
    size_t n_params;
    const struct grader_kv *summary;
    size_t n_summary;
};

/* Who is answering and which variant. The variant seed is derived from
 * (pack id, question id, user, variant) with a stable hash, so the same
 * student sees the same numbers on every machine. Borrowed. */
struct grader_ctx {
    const char *user;
    int variant;                      /* 1 for a student's first variant */
    const struct grader_lab_run *lab; /* NULL: no run yet */
    /* The variant's parameters as stored with an attempt (the JSON text a
     * grader_result's params_json held), used instead of running params():
     * re-grading against the numbers the student was shown. NULL: draw. */
    const char *params_json;
    /* Choice, multi and ordering answers may name items by identity: "#3
     * #1 #4 #2" are the declared numbers, whatever letters the student saw
     * (a sealed answer is recorded so: grader_question_record). Only the
     * instructor's side sets it: a student who could type declared numbers
     * would read an ordering question's answer off its declaration. */
    bool identity;
};

/* ---- rendering ----------------------------------------------------------- */

struct grader_view {
    char *prompt;   /* with this variant's numbers filled in */
    char **choices; /* choice/multi: in declared order; ordering: shuffled per variant */
    size_t n_choices;
    char **hints;
    size_t n_hints;
    char *unit;      /* numeric: the unit answers are read in, "" for none */
    char *needs_lab; /* set when the question needs a lab run and ctx->lab is NULL:
                        "run the lab 'amdahl' first (warpbench lab run amdahl)" */
    char **rubric;   /* design: the concept labels a student scores themselves on */
    double *rubric_points;
    size_t n_rubric;
    char *params_json; /* the variant's parameters as JSON (see grader_result); for a
                          sealed question only those its texts show */
    char *params_all;  /* a sealed question: every parameter params returned (what the
                          student's Lua computes; the release checks search it) */

    size_t max_answer; /* the longest answer graded, in bytes: tell the student */
};
void grader_view_fini(struct grader_view *v);

/* Renders question `qid` for ctx: runs params(rng) and fills the prompt.
 * Errors as for grading. */
int grader_question_view(struct grader_pack *p, const char *qid, const struct grader_ctx *ctx,
                         struct grader_view *out, struct core_err *err);

/* ---- grading ------------------------------------------------------------- */

struct grader_result {
    bool valid;     /* false: the answer could not be read (feedback says why); no score */
    double score;   /* 0..max */
    double max;     /* the question's points */
    bool correct;   /* score == max */
    char *feedback; /* never NULL */
    char *parsed;   /* the answer as understood, e.g. "2.5 ×" or "b, d"; may be NULL */
    double value;   /* numeric: parsed value in the question's unit */
    bool has_value;
    char *accepted;  /* numeric: accepted interval, e.g. "2.475 to 2.525 ×"; else NULL */
    char *reference; /* the reference answer as text (show after correct / give up) */
    /* The variant's parameters as a JSON object ("{}" without params),
     * exactly as graded: integers and floats keep their Lua subtype, floats
     * round-trip. Store it with the attempt and pass it back in
     * grader_ctx.params_json to grade against the same numbers. NULL when a
     * value cannot be written as JSON (a function, a cycle): then only the
     * seed reproduces the variant. */
    char *params_json;
    /* The answer matched a mistake the pack declares and explains: a
     * numeric `wrong` value (also wb.lab.grade's), a choice's `why` note for
     * the wrong pick (multi: for a wrong or missed pick), or a custom
     * grade's { mistake = true } (or a third result true). Item analysis
     * lists the common wrong answers no declared mistake explains. */
    bool mistake;

    bool automatic; /* a design answer scored by the concept rubric: a provisional,
                       automatic score, to be shown as such beside a person's */
    /* grader_question_record: the answer as it is recorded and handed to
     * the instructor (see there); NULL otherwise. */
    char *canonical;
    /* Design: what the grader read for each concept of the rubric, in
     * order (n_claims == 0 for other kinds). */
    struct grader_claim_evidence *claims;
    size_t n_claims;
};

/* What the grader read for one concept of a design answer: the clause it
 * credited (or that contradicts it, or that named it without claiming it)
 * with the clause's subject, relation (its verb group) and object. Empty
 * strings when nothing was found. */
struct grader_claim_evidence {
    char *concept;
    double points;
    char *status; /* "found", "missing", "negated", "unclaimed", "contradicted" */
    char *clause;
    char *subject;
    char *relation;
    char *object;
    char *how; /* "claim", "phrase", "negated", "roles swapped", "the opposite term",
                  "a question", "a condition", "off the question", "contradicts", "" */
};
void grader_result_fini(struct grader_result *r);

/* Whether `answer` to numeric question q may mean something else than it
 * reads as: a bare number from 0 to 1 on a per-cent question ("0.333" reads
 * as 0.333 %, and may be a fraction meant as 33.3 %). Where no feedback
 * follows the answer (an exam before it is submitted, graded work), it is
 * refused as unreadable with `why` (n bytes) saying how to write either
 * meaning; grader_question_record does so itself. False for every other
 * answer and kind. Pure. */
bool grader_answer_ambiguous(const struct grader_question *q, const char *answer, char *why,
                             size_t n);

/* Grades `answer` to question `qid` for ctx (with the result a fresh
 * sandbox would give; see the top of this file). Returns 0
 * with *out filled (valid or not), or an error for a broken grader
 * (CORE_ERR_SCRIPT/LIMIT with "file:line: ...") or an unknown qid
 * (CORE_ERR_NOTFOUND). On error *out is zeroed. */
int grader_question_grade(struct grader_pack *p, const char *qid, const struct grader_ctx *ctx,
                          const char *answer, struct grader_result *out, struct core_err *err);

/* Checks an answer to a sealed question for form only: there is no
 * reference in a release, and the instructor grades it with the source
 * pack. Numeric answers must read as a number in the question's unit;
 * choice, multi and ordering answers as letters of what this student is
 * shown (one pick for choice; each item once for ordering); text and
 * design answers must not be blank; every answer within max_answer. *out:
 * valid (else feedback says what to fix: nothing is recorded), parsed (as
 * understood: "2.5 ×", "c a d b"), params_json, max (the points) and
 * canonical: what is recorded and graded later. It is the answer itself,
 * except for choice, multi and ordering, whose canonical form names the
 * items by their declared numbers ("#2", "#1 #3", "#3 #1 #4 #2"), so no
 * grade depends on the letters a student saw. score is 0. Errors as for
 * grader_question_grade. Works on any question (its reference is never
 * computed). */
int grader_question_record(struct grader_pack *p, const char *qid, const struct grader_ctx *ctx,
                           const char *answer, struct grader_result *out, struct core_err *err);

/* The reference of question qid for ctx, as the release checks need it:
 * `exact` an answer that scores full marks, `display` as a student reads
 * it, `value` for a numeric question, `texts` every accepted text of a
 * text question and the model answer of a design one, `phrases` the words
 * and phrases of a design rubric (match and near terms), `feedback` every
 * declared feedback text (wrong, bands, why, concepts); params_json the
 * variant's numbers. Strings the caller frees with grader_reference_fini.
 * Errors as for grader_question_grade; a sealed question has none
 * (CORE_ERR_USAGE). */
struct grader_reference {
    char *exact, *display; /* NULL when there is none (a lab question without a run) */
    double value;
    bool has_value;
    struct core_strlist texts, phrases, feedback;
    char *params_json;
};
void grader_reference_fini(struct grader_reference *r);
int grader_question_reference(struct grader_pack *p, const char *qid, const struct grader_ctx *ctx,
                              struct grader_reference *out, struct core_err *err);

/* ---- releases (grader_release.c) ----------------------------------------- */

/* What pack.lua's release = { ... } says (see grader_pack_info). */
struct grader_release_opts {
    const char *salt;   /* 16 to 64 lower-case hex digits */
    const char *source; /* the source pack's digest */
    const char *made;   /* when, ISO 8601 */
    uint64_t seed;      /* shuffles the items of sealed ordering questions */
};

/* A sealed ordering question's items in the release: release item k
 * (0-based) is source item perm[k]. The instructor keeps it to read the
 * answers back. */
struct grader_release_perm {
    char *qid;
    size_t n;
    int perm[26];
};

struct grader_release_file {
    char *path;
    char *data;
    size_t len;
};

struct grader_release {
    struct grader_release_file *files; /* every file of the pack it was made from, rewritten */
    size_t n_files;
    struct grader_release_perm *perms;
    size_t n_perms;
    size_t sealed_lessons, sealed_questions;
    size_t dropped_calcs, dropped_hints, dropped_defs; /* what was left out */
    struct core_strlist notes;                         /* what was left out and why, per item */
};
void grader_release_fini(struct grader_release *r);

/* The student edition of pack p (a source pack, loaded with
 * grader_pack_new): every graded (lesson{ graded = true }) and exam lesson
 * sealed — its questions rewritten with only what a student needs to
 * answer, everything that grades or reveals left out, the local helpers no
 * kept code uses left out, comments dropped — its calculators left out;
 * practice lessons kept whole but for a calculator that computes a sealed
 * answer (grader_calc_reveals); pack.lua marked as a release (o). See
 * grader_release.c for the rules. CORE_ERR_INVALID (with file:line) for a
 * sealed lesson the release cannot rewrite safely; CORE_ERR_USAGE for a
 * pack that is a release already. Caller finis *out. */
int grader_pack_release(struct grader_pack *p, const struct grader_release_opts *o,
                        struct grader_release *out, struct core_err *err);

/* Whether calculator calc_id of `calcs` computes the reference of numeric
 * question qid of `src` from its numbers: the calculator is run on a few
 * sample students' params (inputs named as params keys), and an output
 * equal to the reference is a hit. Returns the number of hits; *why
 * (caller frees; NULL when none) says which. */
int grader_calc_reveals(struct grader_pack *calcs, const char *calc_id, struct grader_pack *src,
                        const char *qid, char **why);

/* ---- calculators -------------------------------------------------------- */

/* Finds a calculator by id in any lesson; NULL when absent. Borrowed. */
const struct grader_calc *grader_pack_calc(const struct grader_pack *p, const char *calc_id);

/* Runs calculator calc_id's compute() on inputs (one per declared input, in
 * order; checked against each input's range and integer flag, a value out of
 * range is CORE_ERR_INVALID naming the input and its range) as a job like a
 * grading. *out (caller frees with grader_calc_outputs_free) receives the
 * outputs in the order compute returned them. */
int grader_calc_run(struct grader_pack *p, const char *calc_id, const double *inputs,
                    struct grader_calc_output **out, size_t *n, struct core_err *err);

/* ---- self-tests (pack check) --------------------------------------------- */

/* Runs every question's reference answer and its `examples` (answer →
 * expected score), for a fixed example student, and every calculator with
 * its default inputs and its `examples` (grader_calc.c). Each failure is
 * pushed to `problems` as "file:line: question ID: ..." (or "calculator
 * ID"). Returns the number of
 * failures (0 = all good); *n_run (optional) the number of checks run. */
int grader_pack_selftest(struct grader_pack *p, struct core_strlist *problems, size_t *n_run);

/* ---- the variant sweep and graded samples (pack check) -------------------- */

#define GRADER_SWEEP_VARIANTS 200 /* distinct variants a question is checked on, by default */
#define GRADER_SAMPLE_TOL 0.25    /* how far a sample's automatic score may be from a person's */
#define GRADER_ATTACK_MAX 0.25    /* the most an attack on a design rubric may earn */

/* What the sweep saw of one question (its strings owned: it outlives the
 * pack). */
struct grader_sweep_q {
    char *qid;
    char *file;
    int line;
    size_t variants;    /* distinct variants seen (params told apart by their text) */
    size_t tried;       /* variants drawn */
    size_t examples;    /* variant-independent example gradings */
    size_t samples;     /* design: graded samples */
    size_t samples_off; /* ...further from the person's score than their tolerance */
    double worst;       /* the largest |automatic - person| over the samples */
    double mean;        /* the mean |automatic - person| */
    size_t good, partial, keywords, reversed; /* samples by role */
    size_t terse, own_words, wrong_fluent;    /* ...more roles */
    double good_min;       /* the lowest automatic score of a right sample: good, terse,
                              own-words (1 when none) */
    double bad_max;        /* the highest of a "keywords", "reversed" or "wrong-fluent" one (0 when
                              none) */
    double kappa;          /* quadratic weighted kappa of automatic against person over the
                              samples (NAN with fewer than two, or when the person gave one
                              score) */
    size_t attacks;        /* design: attacks built from the rubric and graded */
    double attack_max;     /* the highest score of one */
    char *attack_worst;    /* its name (NULL when none) */
    bool attacks_reported; /* the question says attacks = "report": not problems */
};

struct grader_sweep {
    struct grader_sweep_q *q; /* one per question checked, in pack order */
    size_t n;
    size_t tried;  /* variants drawn, all questions */
    size_t checks; /* gradings and checks run */
    int failures;
};
void grader_sweep_fini(struct grader_sweep *s);

/* Checks every good question of p on many variants of the example student
 * (user "example", variants 1, 2, ...): params run, the reference is
 * finite, the prompt, hints and every feedback text have all their
 * placeholders, every `wrong` value gives a finite number that is neither
 * the reference nor inside its accepted interval, and the examples that
 * hold for every variant hold. It draws until `variants` distinct ones
 * (params told apart by their text) were seen, or until the space seems
 * exhausted (as many draws in a row, at most 50, brought nothing new), at
 * most 4 x `variants` draws; a question without params has one. `variants`
 * 0 checks the first variant only. Then it grades every design sample and
 * compares with the person's score: off by more than its tolerance (default
 * GRADER_SAMPLE_TOL), or a "keywords", "reversed" or "wrong-fluent"
 * sample above a quarter of the points, is a problem. Then it attacks every
 * design rubric with answers built from the question itself (its terms as a
 * list, with function words, in nonsense frames; its claims with roles
 * swapped, negated with words outside the negator list, asked; its prompt
 * and hints pasted back; its model answer with its own contradiction): one
 * that earns more than GRADER_ATTACK_MAX is a problem that names the attack
 * and what it matched. Problems go to `problems` as "file:line: question ID:
 * variant N (params): ...", "...: sample K (role, 'answer'): ..." or "...:
 * attack 'NAME' ...". Returns the number of problems; `out` (caller finis)
 * what it saw. */
int grader_pack_sweep(struct grader_pack *p, size_t variants, struct grader_sweep *out,
                      struct core_strlist *problems);

/* The closest of names[0..n) to s by edit distance, for "did you mean"
 * (NULL when none is close). Borrowed from names. */
const char *grader_name_closest(const char *s, const char *const *names, size_t n);

/* ---- the grammar of design answers (bench) ------------------------------ */

/* What the English grammar that reads design answers has done in this
 * process: parses run, parses answered by the cache (kept by sentence part,
 * process-wide, so a class import parses a sentence once), words parsed,
 * seconds in the parser, the longest parse. */
struct grader_parse_stats {
    uint64_t parses, hits, words;
    double parse_s, worst_s;
};
/* Fills *s. Thread-safe. */
void grader_parse_stats_get(struct grader_parse_stats *s);
/* Empties the parse cache, so the next design answer is parsed again
 * (bench grader: timings with the parsing included). Thread-safe. */
void grader_parse_cache_clear(void);

#endif /* WB_GRADER_H */
