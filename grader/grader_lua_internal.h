/*
 * grader_lua_internal.h — what grader/'s top layer shares: packs and
 * grading. The pack model, its evaluation and field schema, the job that
 * runs one question, its rendering, the question kinds and the self-tests.
 * The top of grader/'s three layers: it uses the Lua runtime
 * (grader/runtime/grader_runtime.h) and the pure building blocks
 * (grader/pure/grader_pure.h) below it, and nothing below uses it. Never
 * included from outside grader/.
 *
 * No file of this layer includes lua.h (scripts/check-layering.sh refuses
 * one that does): its Lua stack work is the runtime's, called with C types.
 * lua_State appears only as an incomplete struct, passed through.
 */
#ifndef WB_GRADER_LUA_INTERNAL_H
#define WB_GRADER_LUA_INTERNAL_H

#include "grader/grader.h"
#include "grader/pure/grader_pure.h"
#include "grader/runtime/grader_runtime.h"

struct lua_State;

/* ---- pack model (grader_pack.c) ------------------------------------------- */

/* One source file of a pack, with its bytecode. */
struct grader_pfile {
    char *path;
    char *data;
    size_t len;
    char *chunkname;    /* "@path" */
    struct core_buf bc; /* empty when it did not compile */
    bool compiled;
    bool is_lua;
    struct grader_slim_plan *plan; /* made on first use; NULL when it cannot be cut */
    bool plan_tried;
};

/* Private per-question data, in pack order. */
struct grader_qx {
    const struct grader_question *q;
    size_t file;     /* index into files */
    bool bad;        /* failed static validation */
    bool has_slim;   /* slim holds the bytecode of its file cut down to it */
    bool slim_tried; /* grader_qx_slim ran (it runs on first use) */
    struct core_buf slim;
    struct grader_linemap map; /* slim's lines in the file */
    double cpu_s;              /* CPU time its jobs took (grader_pack_set_budget) */
};

/* Prepares x's cut-down file the first time it is needed: building one per
 * question at load would make loading a file of n questions cost n². */
void grader_qx_slim(struct grader_pack *p, struct grader_qx *x);

/* What grader_qx_slim does, for any declaration (question or calculator)
 * starting on `line` of p's file number `file` (SIZE_MAX: none, nothing
 * done): on the first call (*tried false) sets *tried and compiles the file
 * cut down to the declaration into *slim, with its line map in *map; *has
 * says whether that worked (slim is left empty when not). The file's plan
 * is made once, on the first call for any of its declarations. */
void grader_slim_prepare(struct grader_pack *p, size_t file, int line, bool *tried, bool *has,
                         struct core_buf *slim, struct grader_linemap *map);

/* Private per-calculator data, in pack order (grader_calc.c). An example
 * as read at load: the inputs with defaults filled in, and the expected
 * outputs (a number, or a text where texts[i] is not NULL). */
struct grader_calc_example {
    double *inputs; /* one per declared input */
    size_t n_outputs;
    double *values;
    char **texts;
};

struct grader_cx {
    const struct grader_calc *c;
    size_t file;   /* index into files */
    bool bad;      /* failed static validation, or a duplicate id */
    bool has_slim; /* slim holds its file cut down to it */
    bool slim_tried;
    struct core_buf slim;
    struct grader_linemap map;
    struct grader_calc_example *examples;
    size_t n_examples;
};
/* Frees what x holds (grader_pack.c, which frees the pack's calculators). */
void grader_cx_fini(struct grader_cx *x);

/* Pushes "<prefix>[<label>: ]<msg>" to problems (no label when NULL;
 * grader_job.c), without saying again what msg already starts with:
 * prefix, then `also` (NULL: nothing more). Used for every "file:line: question|calculator ID:"
 * problem of pack check. */
void grader_problem_push(struct core_strlist *problems, const char *prefix, const char *also,
                         const char *label, const char *msg);

/* Runs every good calculator with its defaults and its examples (compared
 * with 1e-6 relative tolerance); failures go to `problems` as
 * "file:line: calculator ID: ...". Returns the number of failures and adds
 * the number of runs to *n_run. */
int grader_calc_selftest(struct grader_pack *p, struct core_strlist *problems, size_t *n_run);

struct grader_pack {
    struct grader_pack_info info;
    struct grader_limits lim;
    struct grader_pfile *files;
    size_t n_files;
    struct grader_qx *qx;
    size_t n_qx;
    struct grader_cx *cx; /* calculators, in pack order */
    size_t n_cx;
    size_t *index; /* open-addressing hash of qx by question id; SIZE_MAX = empty */
    size_t index_cap;
    struct grader_sb_pool *pool;
    /* The CPU budget of every question job (grader_pack_set_budget): 0 none. */
    double budget_s, used_s;
    bool spent;
};

/* The question's private data; NULL when absent. */
const struct grader_qx *grader_pack_qx(const struct grader_pack *p, const char *qid);

/* Makes p->qx room for n questions (zeroed) and an empty id index. */
void grader_pack_index_init(struct grader_pack *p, size_t n);
/* Adds p->qx[i] (its q set, its id not in the index yet) to the id index. */
void grader_pack_index_add(struct grader_pack *p, size_t i);

/* Room for element n of an array a of `size`-byte elements grown one at a
 * time: doubling, so that declaring n of anything costs O(n), not O(n²).
 * Returns the (maybe moved) array. */
void *grader_grow(void *a, size_t n, size_t size);
/* Frees the n strings of v and v; a copy of them (NULL when n is 0). */
void grader_strv_free(char **v, size_t n);
char **grader_strv_dup(char *const *v, size_t n);

/* ---- pack evaluation (grader_eval.c) and the field schema (grader_schema.c) --- */

/* Where a problem is: one declaration (or a part of it) of the file being
 * evaluated (by grader_eval.c), and where its problems go. */
struct grader_vctx {
    struct core_strlist *problems; /* the pack's */
    int *first_code;               /* the pack's code: its first problem's */
    const char *path;              /* the file being evaluated, as the pack names it */
    struct lua_State *L;
    int line;
    char label[128];          /* "question amdahl.speedup", "question amdahl.speedup: example 2" */
    bool bad;                 /* a problem was reported here */
    const char *suggested[8]; /* names offered for typos: not reported missing as well */
    int n_suggested;
};
/* Reports "file:line: label: message" and marks v bad. */
void grader_vproblem(struct grader_vctx *v, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* *sub = v with the label extended by fmt (": band 2") and not bad yet; the
 * caller adds sub->bad to v->bad when done. */
void grader_vctx_sub(struct grader_vctx *sub, const struct grader_vctx *v, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The types a field may have (bits). */
enum {
    GRADER_T_STR = 1,
    GRADER_T_NUM = 2,
    GRADER_T_TAB = 4,
    GRADER_T_FUN = 8,
    GRADER_T_STRS = 16, /* a list of strings */
    GRADER_T_NUMS = 32, /* a list of numbers */
    GRADER_T_BOOL = 64
};
/* One field of a declaration; a table of them ends with a NULL name. Which
 * question fields belong to which kinds is the kind table's to say
 * (grader_kind_field_applies). */
struct grader_fspec {
    const char *name;
    unsigned types; /* 0: depends on the kind (a question's answer) */
};
extern const struct grader_fspec grader_pack_fields[], grader_lesson_fields[], grader_page_fields[],
    grader_question_fields[], grader_policy_fields[], grader_exam_fields[], grader_release_fields[],
    grader_class_fields[], grader_late_fields[], grader_hint_fields[];

/* Pushes the text of hint i (1-based) of the hints table at t: the entry
 * itself, or its `text` when it is a table ({ text = ..., public = true });
 * "" for anything else. */
void grader_hint_push(struct lua_State *L, int t, size_t i);

/* A question's kind, for grader_fields_check: its number and name, the
 * types its `answer` may take, and whether a field applies to it (the kind
 * table's grader_kind_field_applies: the schema is below the kinds, so the
 * caller hands it over). */
struct grader_fields_kind {
    int kind;
    const char *word;
    unsigned answer_types;
    bool (*applies)(int kind, const char *name, char *buf, size_t n);
};
/* Checks every entry of the table at t against `specs` (for a question of
 * kind `kind`, or NULL): unknown fields (with "did you mean"), fields of
 * another kind, wrong types. Integer keys 1..max_pos are left to the caller. */
void grader_fields_check(struct grader_vctx *v, int t, const struct grader_fspec *specs,
                         const struct grader_fields_kind *kind, long long max_pos);
/* Reports each of the NULL-terminated names that t lacks (unless offered
 * as a "did you mean" already). */
void grader_fields_require(struct grader_vctx *v, int t, const char *const *names);

/* The readers of a declaration's table (grader_rawfield, grader_str_field,
 * grader_strs_field, grader_num_field, grader_is_list_of, ...) are the
 * runtime's: grader/runtime/grader_runtime.h. */

/* Reports an id (pack, lesson, question, rubric item) that is not up to 64
 * lower-case letters, digits, '.', '_' and '-'. NULL passes. */
void grader_id_check(struct grader_vctx *v, const char *field_name, const char *id);

/* t[name], when present, must be a list of tables; each is checked by
 * `each` (entry index, 1-based i, ud). */
typedef void (*grader_entry_check)(struct grader_vctx *v, int entry, size_t i, void *ud);
void grader_list_check(struct grader_vctx *v, int t, const char *name, grader_entry_check each,
                       void *ud);
/* A design sample's role by name: GRADER_ROLE_* (grader_kind_text.c), -1 when
 * unknown. */
enum grader_role {
    GRADER_ROLE_GOOD = 0,
    GRADER_ROLE_TERSE,     /* right, in bullet notes */
    GRADER_ROLE_OWN_WORDS, /* right, in words that are not the rubric's */
    GRADER_ROLE_PARTIAL,
    GRADER_ROLE_KEYWORDS,    /* a bare list of the rubric's terms */
    GRADER_ROLE_REVERSED,    /* asserts the opposite */
    GRADER_ROLE_WRONG_FLUENT /* fluent prose that is wrong */
};
int grader_sample_role(const char *name);
/* Quadratic weighted kappa of automatic scores a against a person's h
 * (0..1, n of each); NAN when it cannot be told. Pure. */
double grader_qwk(const double *a, const double *h, size_t n);
/* The entry check of a question's examples (ud unused). */
void grader_example_check(struct grader_vctx *v, int t, size_t i, void *ud);

/* The static checks of a calculator{} at t (grader_calc_decl.c): fills the
 * model entry c (whose file, line and page the caller set) and the private
 * entry x (its examples). */
void grader_calc_check(struct grader_vctx *v, int t, struct grader_calc *c, struct grader_cx *x);

/* The formula sheet (grader_formula.c): the entries of formulas { ... } at
 * t, declared in `path` (in lesson `lesson`'s file, or pack.lua: NULL),
 * appended to p's info, each checked for its fields; and, once every file
 * has run, their lessons, pages and calculators looked up. */
void grader_formulas_check(struct grader_vctx *v, int t, struct grader_pack *p,
                           const struct grader_lesson *lesson, const char *path);
/* Problems go to `problems` as "file:line: message", the first code to
 * *first_code when it is 0 (the pack evaluation's: grader_eval.c). */
void grader_formulas_resolve(struct grader_pack *p, struct core_strlist *problems, int *first_code);
void grader_formula_fini(struct grader_formula *f);

/* ---- one question for one student (grader_grade.c, grader_job.c) ---------- */

/* The driver (grader_grade.c) runs a job: grader_job_run, grader_job_grade,
 * grader_job_reference_text. What the job's parts (the kinds, rendering,
 * the self-tests) share is in grader_job.c, below all of them: problems and
 * failures, calls into pack code, the seed, the question's values, results. */

#define GRADER_MAX_PICKS 26 /* choices are lettered a..z */

/* Fixed stack slots of a job (l_job in grader_grade.c): the question's
 * table, ctx, the variant's params, the reference, the example or sample
 * being graded, the rendered choices (or items). */
enum {
    GRADER_S_Q = 1,
    GRADER_S_CTX,
    GRADER_S_P,
    GRADER_S_REF,
    GRADER_S_EX,
    GRADER_S_CH,
    GRADER_S_TOP = GRADER_S_CH
};

/* What a job does: render a view, grade an answer, grade an example or the
 * reference (self-tests), check the question (pack check), sweep a variant,
 * grade a design sample. */
enum grader_job_mode {
    GRADER_J_VIEW,
    GRADER_J_GRADE,
    GRADER_J_EXAMPLE,
    GRADER_J_REF,
    GRADER_J_CHECK,
    GRADER_J_SWEEP,
    GRADER_J_SAMPLE,
    GRADER_J_RECORD, /* a sealed answer checked for form (grader_question_record) */
    GRADER_J_ANSWER, /* the reference and the secrets around it (grader_question_reference) */
    GRADER_J_ATTACK
};

/* What a job does once the question, ctx, params, choices and reference
 * are on the stack (grader_grade.c: view and grade; grader_selftest.c: the
 * rest). */
struct grader_job;
typedef void (*grader_job_fill)(struct lua_State *L, struct grader_job *j);

/* One question for one student, run as one job of grader_sb_run (grader_grade.c). */
struct grader_job {
    struct grader_pack *p;
    const struct grader_qx *qx;
    const struct grader_question *q;
    enum grader_job_mode mode;
    const char *user;
    int variant;
    const struct grader_lab_run *lab; /* GRADER_J_VIEW, GRADER_J_GRADE */
    const char *params_in; /* GRADER_J_VIEW, GRADER_J_GRADE: stored params, or NULL to draw */
    bool identity;         /* choice, multi, ordering answers may be "#k" (grader_ctx) */
    char *params_out;      /* the params as JSON, for the view or result */
    const char *answer;    /* GRADER_J_GRADE */
    size_t example;        /* GRADER_J_EXAMPLE, 1-based */
    struct grader_view *view;
    struct grader_result *res;
    /* While a self-test probes the grader with an answer of its own (res then
     * the probe's, on the heap), the result res was before; NULL otherwise.
     * A probe the pack's code fails is freed, and res put back, by job_run. */
    struct grader_result *res_outer;
    /* The probe's result from its grading until the self-test is done with
     * it (a problem it finds is raised, and job_run then frees it). */
    struct grader_result *probe;
    struct grader_reference *ref_out; /* GRADER_J_ANSWER */
    /* GRADER_J_EXAMPLE and GRADER_J_REF */
    bool skip; /* nothing to check (no reference; a lab question without a pretend run) */
    bool exp_invalid;
    double exp_score;
    char *graded; /* the answer text that was graded */
    /* GRADER_J_CHECK, GRADER_J_SWEEP */
    struct core_strlist *problems;
    int n_problems;
    /* GRADER_J_SWEEP: this variant's params serialised (its identity), and
     * how many of its variant-independent examples ran; GRADER_J_SAMPLE: the
     * tolerance */
    struct core_buf vkey;
    size_t n_examples_run;
    double tol;
    char role[16];
    /* GRADER_J_ATTACK: the attacks graded (grader_attack.c) */
    struct grader_attack_out *attacks;
    size_t n_attacks;
    /* where we are, for messages */
    const char *what;
    char qpos[128];    /* "file:line" of the question */
    bool no_lab;       /* a lab question and ctx.lab is nil */
    bool use_slim;     /* run the question's slim file */
    bool slim_missing; /* ...which did not declare it: run the full file */
    grader_job_fill fill;
};

/* Records a problem of the question (check and sweep jobs): "file:line:
 * question ID: [variant N (params): ]message". */
void grader_job_problem(struct grader_job *j, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Raises a problem of the pack found while running the job:
 * "file:line: question ID: message". Does not return. */
int grader_job_fail(struct lua_State *L, struct grader_job *j, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Runs job j through grader_sb_run (j->fill does its part). On error `err`
 * says "file:line: ..." and names the question and what was running. */
int grader_job_run(struct grader_job *j, struct core_err *err);
/* Grades `answer` into j->res: reference text, lab and length checks, the
 * kind's grading (or the custom grade), feedback placeholders filled. */
void grader_job_grade(struct lua_State *L, struct grader_job *j, const char *answer);
/* The reference as a student reads it (display) or as an answer that must
 * score full marks (exact). NULL when there is none. Caller frees. */
char *grader_job_reference_text(struct lua_State *L, struct grader_job *j, bool exact);
/* Calls pack code (what: named in an error) below nargs arguments; on error
 * raises it (the job stops). */
void grader_job_call(struct lua_State *L, struct grader_job *j, const char *what, int nargs,
                     int nres);
/* The number of rendered choices (or items) at GRADER_S_CH. */
size_t grader_job_n_choices(struct lua_State *L);
/* The order an ordering question shows its n items in for this variant:
 * shown[k] = the declared index; never the declared order itself. */
void grader_order_shuffle(const struct grader_job *j, size_t n, size_t *shown);
/* The canonical spelling of q's unit ("" for none). */
const char *grader_question_unit(const struct grader_question *q);
/* grader_lua_strdup (a copy of the string at a slot) is the runtime's. */

/* ---- rendering (grader_render.c) -------------------------------------------- */

/* How grader_render treats a placeholder it cannot fill. */
enum grader_render_mode {
    GRADER_R_STRICT,  /* an error (the prompt of a question whose params are known) */
    GRADER_R_LENIENT, /* "?" (a lab question before the student's run) */
    GRADER_R_KEEP     /* left as written (feedback, where braces may be literal) */
};
/* Renders template s with the params at GRADER_S_P: pushes the text and
 * returns true, or returns false with `why` and pushes nothing
 * (GRADER_R_STRICT only). */
bool grader_render(struct lua_State *L, const char *s, enum grader_render_mode mode, char *why,
                   size_t wn);
/* Renders a template (`field_name` names it in a problem) or stops: in a
 * check or sweep job a problem is recorded and false returned; elsewhere the
 * pack error is raised. Pushes the text on success. */
bool grader_render_or_fail(struct lua_State *L, struct grader_job *j, const char *tmpl,
                           const char *field_name);
/* The names of the placeholders of template s ({name}, {name:%.2f}), as
 * grader_render reads them, pushed to out (repeats kept). */
void grader_render_names(const char *s, struct core_strlist *out);
/* Renders the choices (choice, multi) or items (ordering) into GRADER_S_CH. */
void grader_render_choices(struct lua_State *L, struct grader_job *j);

/* For the kinds (grader_kind_*.c; grader_job.c): the variant's seed (grader_rng_seed of
 * pack, question, user and variant). */
uint64_t grader_job_seed(const struct grader_job *j);
/* Pushes t[name], calling it with (p, ctx) when it is a function (`what`
 * names the call in an error); returns the type of what it pushed.
 * grader_job_push_answer does it for Q.answer. */
int grader_job_push_value(struct lua_State *L, struct grader_job *j, int t, const char *name,
                          const char *what);
int grader_job_push_answer(struct lua_State *L, struct grader_job *j);
/* Marks r unreadable (valid false, no score) with `why` as its feedback. */
void grader_result_invalid(struct grader_result *r, const char *why);
/* Scores r with `frac` (clamped to 0..1) of its points and the feedback
 * ("Correct." or "Incorrect." when NULL or empty). */
void grader_result_score(struct grader_result *r, double frac, const char *feedback);
/* v with `sig` significant figures and its unit: "2.5 ×", "56%". Caller frees. */
char *grader_value_text(double v, const char *unit, int sig);

/* ---- question kinds (grader_kind.c, grader_kind_*.c) ------------------------ */

#define GRADER_KIND_COUNT (GRADER_CODE + 1)

/* What a question kind means: one row per kind (the table is in
 * grader_kind.c; each row is defined beside its functions). */
struct grader_kind_ops {
    const char *name;          /* what `kind =` says: "numeric" */
    const char *const *fields; /* the question fields that are this kind's (and maybe others') */
    unsigned answer_types;     /* what `answer` may be (GRADER_T_*); 0: no such field */
    const char *list;          /* its lettered list: "choices", "items"; NULL for none */
    const char *list_item;     /* one entry of it, for messages: "choice", "item" */
    bool shuffled;             /* the list is shown shuffled per variant (answers by letters) */
    bool needs_reference;      /* pack check: an answer that gives nothing is a problem */
    bool automatic;            /* the score is a reading, provisional until a person's stands */
    bool rubric;               /* its concepts are shown for self-scoring */
    size_t max_answer;         /* grader_kind_max_answer */
    int tries;                 /* the default policy: grader_policy_default (and why) */
    double penalty;
    /* Pack check: the kind's static checks of the question table at t (the
     * common fields are checked already); fills q's kind-specific parts. */
    void (*check)(struct grader_vctx *v, int t, struct grader_question *q);
    /* The job: validates the reference and pushes it (nil when none). */
    void (*reference)(struct lua_State *L, struct grader_job *j);
    /* The job: grades `answer` into j->res (a custom grade never gets here). */
    void (*grade)(struct lua_State *L, struct grader_job *j, const char *answer);
    /* The job, optional: checks `answer` for form only into j->res (valid,
     * parsed, canonical), without a reference (grader_question_record);
     * NULL: any answer that is not blank is recorded as written. */
    void (*record)(struct lua_State *L, struct grader_job *j, const char *answer);
    /* The job: the reference at GRADER_S_REF as text, as a student reads it
     * or (exact) as an answer that scores full marks; NULL for none. */
    char *(*reference_text)(struct lua_State *L, struct grader_job *j, bool exact);
    /* Pack check, optional: what to check on every variant beyond the
     * common (numeric: each `wrong` value). Leaves the stack at GRADER_S_TOP. */
    void (*variant_check)(struct lua_State *L, struct grader_job *j);
};
extern const struct grader_kind_ops grader_kind_numeric, grader_kind_choice, grader_kind_multi,
    grader_kind_ordering, grader_kind_text, grader_kind_design, grader_kind_code;

/* Writes a code question's exercise as the `code = { ... }` field of a
 * question{} (a release keeps it: the reference is no secret, the grade is
 * a run), strings through `quote` (grader_kind_code.c). */
void grader_code_lua(struct core_buf *b, const struct grader_code *c,
                     void (*quote)(struct core_buf *b, const char *s));

/* The row of kind k (numeric's for a value out of range). */
const struct grader_kind_ops *grader_kind_ops(enum grader_kind k);
/* Whether question field `name` applies to kind `kind`: a field no kind
 * lists as its own applies to all. Writes the kinds that list it to buf
 * ("choice, multi"; n bytes), for the message when it does not. */
bool grader_kind_field_applies(int kind, const char *name, char *buf, size_t n);

/* ---- self-tests and checks (grader_selftest.c) ----------------------------- */

/* Runs the per-question checks that need the question's code (params,
 * placeholders, references, patterns) for the example student in a fresh
 * sandbox. Pushes each problem to `problems`; returns how many. */
int grader_question_check(struct grader_pack *p, size_t qi, struct core_strlist *problems,
                          int *first_code);

/* The sweep of one variant of question qi for the example student
 * (grader_selftest.c): params, reference, prompt and hints, every feedback
 * placeholder, every `wrong` value, and the examples that hold for every
 * variant (an answer computed from p, without fixed params or a pretend
 * run). Each problem is pushed as "file:line: question ID: variant N
 * (params): ...". Returns the number of problems; *key (caller frees) is
 * the variant's params as text, its identity ("f=0.2, p=4"), NULL when
 * params failed; *examples_run (optional) the examples graded. */
int grader_variant_check(struct grader_pack *p, size_t qi, int variant,
                         struct core_strlist *problems, char **key, size_t *examples_run);

/* A design sample graded: the automatic fraction (`got`, 0 when invalid),
 * the person's (`want`), the tolerance, the answer and the feedback's
 * first line (both caller frees). */
struct grader_sample_out {
    bool valid;
    double got, want, tol;
    char role[16]; /* "good", "partial", "keywords", "reversed" or "" */
    char *answer;
    char *feedback;
};
/* Grades sample k (1-based) of question qi for the example student.
 * Errors as for grading. */
int grader_sample_grade(struct grader_pack *p, size_t qi, size_t k, struct grader_sample_out *out,
                        struct core_err *err);

/* ---- attacks (grader_attack.c) ------------------------------------------- */

/* One attack on a design question and how it fared. */
struct grader_attack_out {
    char *name;               /* what it is: "the rubric's terms as a list", ... */
    char *answer;             /* its text (cut to 200 bytes) */
    double score;             /* the fraction of the points it earned */
    char *matched;            /* what earned them: "concept (\"clause\"); ..." ("" when nothing) */
    bool report;              /* the question says attacks = "report": shown, not a problem */
    struct grader_result res; /* while it is graded */
};
/* Builds the attacks on design question qi from its own rubric, prompt,
 * hints and model answer (wb.lua's graders.attacks) and grades each for the
 * example student. *out (grader_attacks_free) gets them in order. A
 * question without concepts has none. Errors as for grading. */
int grader_attacks_run(struct grader_pack *p, size_t qi, struct grader_attack_out **out, size_t *n,
                       struct core_err *err);
void grader_attacks_free(struct grader_attack_out *a, size_t n);

#endif /* WB_GRADER_LUA_INTERNAL_H */
