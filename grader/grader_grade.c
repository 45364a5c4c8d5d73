/*
 * grader_grade.c — one question for one student: its view (prompt, hints,
 * choices with the variant's numbers), grading an answer, and the driver
 * that runs every job on a question, the pack self-tests' and checks'
 * included.
 *
 * Every operation is a job run by grader_sb_run (in the pack's sandbox,
 * reused from job to job, with a fresh sandbox's result) by one C driver (l_job)
 * under grader_pcall: it loads only the bytecode of the file that declares
 * the question, runs it with the constructors in grade mode (question{}
 * indexes its table by id), builds ctx, draws the variant's params, computes
 * the reference, then does the job's part (j->fill): renders the view
 * (grader_render.c) or grades. What the reference is and how an answer is
 * graded is the question kind's (grader_kind.c, one row per kind); a custom
 * `grade` is called as is. Every call into pack code goes through
 * grader_sb_try with its own instruction budget and deadline; tables of the
 * pack are read raw, so no metamethod runs outside those calls.
 *
 * The variant: grader_rng_seed(pack id, question id, user, variant) seeds the
 * rng handed to params; an ordering question's shuffle uses the same seed
 * mixed with a constant, so it does not depend on what params drew.
 *
 * Uses the sandbox, the wb library, the pack model and the pure building
 * blocks of grader_pure.h. Its Lua stack work is the runtime's (the readers
 * of grader_decl_read.c, the calls of grader_call.c and the driver's own
 * slots and ctx in grader_rt_grade.c): it includes none of Lua's headers.
 */
#include "grader_lua_internal.h"

#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- ctx, params, reference -------------------------------------------------------- */

static void build_ctx(struct lua_State *L, struct grader_job *j)
{
    grader_ctx_new(L, GRADER_S_CTX, j->variant, j->q->points);
    if (!j->q->lab)
        return; /* only lab-linked questions see a run */
    /* the student's run, else a pretend one */
    bool real = false;
    switch (j->mode) {
    case GRADER_J_VIEW:
    case GRADER_J_GRADE:
    case GRADER_J_RECORD:
    case GRADER_J_ANSWER:
        real = true;
        grader_push_lab_run(L, j->lab); /* lab (or nil) */
        break;
    case GRADER_J_EXAMPLE:
        if (grader_type(L, GRADER_S_EX) == GRADER_LT_TAB)
            grader_rawfield(L, GRADER_S_EX, "lab");
        else
            grader_push_nil(L);
        break;
    default:
        grader_push_first_sub(L, GRADER_S_Q, "examples", "lab");
        break;
    }
    if (grader_type(L, -1) == GRADER_LT_TAB) {
        if (!real)
            grader_lab_fill_pretend(L, -1, j->q->lab);
        grader_setfield(L, GRADER_S_CTX, "lab");
    } else {
        grader_pop(L, 1);
        j->no_lab = true;
    }
}

/* The params at GRADER_S_P cut down to the names the question's prompt,
 * choices and hints show, as JSON. */
static char *shown_params(struct lua_State *L, const struct grader_question *q)
{
    struct core_strlist names;
    core_strlist_init(&names);
    grader_render_names(q->prompt, &names);
    for (size_t i = 0; i < q->n_choices; i++)
        grader_render_names(q->choices[i], &names);
    for (size_t i = 0; i < q->n_hints; i++)
        grader_render_names(q->hints[i], &names);
    char *json =
        grader_params_encode_names(L, GRADER_S_P, (const char *const *)names.items, names.n);
    core_strlist_fini(&names);
    return json;
}

static void draw_params(struct lua_State *L, struct grader_job *j)
{
    if (j->params_in && (j->mode == GRADER_J_VIEW || j->mode == GRADER_J_GRADE)) { /* as stored */
        if (!grader_params_decode(L, j->params_in))                                /* p */
            grader_job_fail(L, j, "the stored variant parameters are not readable JSON");
        grader_slot_replace(L, GRADER_S_P);
    } else if (j->mode == GRADER_J_EXAMPLE && grader_type(L, GRADER_S_EX) == GRADER_LT_TAB &&
               grader_rawfield(L, GRADER_S_EX, "params") == GRADER_LT_TAB) { /* fixed numbers */
        grader_slot_replace(L, GRADER_S_P);
    } else {
        if (j->mode == GRADER_J_EXAMPLE && grader_type(L, GRADER_S_EX) == GRADER_LT_TAB)
            grader_pop(L, 1);
        if (grader_rawfield(L, GRADER_S_Q, "params") == GRADER_LT_FUN) { /* params */
            grader_wb_push_rng(L, grader_job_seed(j));                   /* params rng */
            grader_push_slot(L, GRADER_S_CTX);                           /* params rng ctx */
            grader_job_call(L, j, "params", 2, 1);                       /* p */
            if (grader_type(L, -1) != GRADER_LT_TAB)
                grader_job_fail(L, j, "params must return a table of numbers, got %s",
                                grader_ltype_name(grader_type(L, -1)));
        } else {
            grader_pop(L, 1);
            grader_push_table(L);
        }
        grader_slot_replace(L, GRADER_S_P);
    }
    grader_push_slot(L, GRADER_S_P);
    grader_setfield(L, GRADER_S_CTX, "params");
    if (j->q->sealed && (j->mode == GRADER_J_VIEW || j->mode == GRADER_J_RECORD)) {
        /* A sealed question tells (and records) only the numbers it shows:
         * the rest of what params computed stays in the student's Lua. */
        free(j->params_out);
        j->params_out = shown_params(L, j->q);
        if (j->view) {
            free(j->view->params_all);
            j->view->params_all = grader_params_encode(L, GRADER_S_P);
        }
        return;
    }
    if (j->mode == GRADER_J_VIEW || j->mode == GRADER_J_GRADE || j->mode == GRADER_J_RECORD ||
        j->mode == GRADER_J_ANSWER) { /* before graders can change p */
        free(j->params_out);
        j->params_out = grader_params_encode(L, GRADER_S_P);
    }
}

/* Computes the reference into GRADER_S_REF (nil when there is none) and ctx.reference. */
static void compute_reference(struct lua_State *L, struct grader_job *j)
{
    grader_kind_ops(j->q->kind)->reference(L, j);  /* ref */
    grader_push_slot(L, -1);                       /* ref ref */
    grader_setfield(L, GRADER_S_CTX, "reference"); /* ref */
    grader_slot_replace(L, GRADER_S_REF);
}

/* ---- results ------------------------------------------------------------------------------- */

char *grader_job_reference_text(struct lua_State *L, struct grader_job *j, bool exact)
{
    return grader_kind_ops(j->q->kind)->reference_text(L, j, exact);
}

/* Lua's truth: everything but nil and false. */
static bool truthy(const struct grader_dval *d)
{
    return d->type != GRADER_LT_NONE && d->type != GRADER_LT_NIL &&
           !(d->type == GRADER_LT_BOOL && !d->b);
}

/* A custom grade(answer, ctx): a fraction [, feedback], or a table
 * { score =, feedback =, valid =, mistake =, solution = }. A solution (the
 * worked answer, wb.lab.grade's) becomes the result's reference: shown with
 * a right answer, a give-up or the last try, never in a wrong answer's
 * feedback. */
static void grade_custom(struct lua_State *L, struct grader_job *j, const char *answer)
{
    struct grader_result *r = j->res;
    grader_rawfield(L, GRADER_S_Q, "grade");
    grader_push_string(L, answer, strlen(answer));
    grader_push_slot(L, GRADER_S_CTX);
    grader_job_call(L, j, "grade", 2, 3); /* s fb m */
    int base = grader_top(L) - 2;         /* s */
    int score = base, feedback = base + 1;
    struct grader_dval d;
    grader_value(L, base + 2, &d);
    bool mistake = truthy(&d);
    if (grader_type(L, base) == GRADER_LT_TAB) {
        grader_field(L, base, "mistake", &d);
        mistake = mistake || truthy(&d);
        grader_field(L, base, "valid", &d);
        bool valid = d.type == GRADER_LT_NIL || truthy(&d);
        if (grader_field(L, base, "solution", &d) == GRADER_LT_STR && d.len > 0) {
            free(r->reference);
            r->reference = core_xstrndup(d.str, d.len);
        }
        grader_rawfield(L, base, "feedback"); /* s fb m fbt */
        feedback = grader_top(L);
        const char *fb = grader_tostring(L, feedback);
        if (!valid) {
            grader_result_invalid(r, fb ? fb : "The answer could not be read.");
            grader_settop(L, base - 1);
            return;
        }
        grader_rawfield(L, base, "score"); /* s fb m fbt score */
        score = grader_top(L);
    }
    if (grader_value(L, score, &d) != GRADER_LT_NUM)
        grader_job_fail(L, j,
                        "grade must return a fraction from 0 to 1 (or a table "
                        "{ score = ..., feedback = ..., valid = ... }), got %s",
                        grader_ltype_name(d.type));
    double s = d.num;
    if (!(s >= 0 && s <= 1))
        grader_job_fail(L, j, "grade returned %g; a score is a fraction from 0 to 1", s);
    grader_result_score(r, s, grader_tostring(L, feedback));
    r->mistake = mistake && !r->correct;
    grader_settop(L, base - 1);
}

static bool blank(const char *s)
{
    for (; *s; s++)
        if (!strchr(" \t\r\n\f\v", *s))
            return false;
    return true;
}

/* Feedback may use the prompt's {name} placeholders ("at p = {p} the
 * speedup is ..."): fill them from this variant's params. A name params does
 * not set, or a value that does not format, stays as written. */
static void fill_feedback(struct lua_State *L, struct grader_result *r)
{
    if (!r->feedback || !strchr(r->feedback, '{'))
        return;
    char why[8];
    grader_render(L, r->feedback, GRADER_R_KEEP, why, sizeof why); /* text */
    free(r->feedback);
    r->feedback = core_xstrdup(grader_tostring(L, -1));
    grader_pop(L, 1);
}

static void grade_answer_raw(struct lua_State *L, struct grader_job *j, const char *answer);

void grader_job_grade(struct lua_State *L, struct grader_job *j, const char *answer)
{
    grade_answer_raw(L, j, answer);
    fill_feedback(L, j->res);
}

/* What every answer is checked for before its kind reads it: a run for a
 * lab-linked question, not blank, not too long. False with r invalid. */
static bool answer_acceptable(struct grader_job *j, const char *answer)
{
    struct grader_result *r = j->res;
    const struct grader_question *q = j->q;
    if (j->no_lab) {
        char msg[200];
        snprintf(msg, sizeof msg,
                 "Run the lab '%s' first (warpbench lab run %s): this question "
                 "is graded against your own measurements.",
                 q->lab, q->lab);
        grader_result_invalid(r, msg);
        return false;
    }
    if (blank(answer)) {
        grader_result_invalid(r, "Empty answer.");
        return false;
    }
    size_t len = strlen(answer);
    if (len > q->max_answer) {
        char msg[160];
        snprintf(msg, sizeof msg,
                 "The answer is too long: %zu bytes, and this question grades at most %zu. "
                 "Shorten it.",
                 len, q->max_answer);
        grader_result_invalid(r, msg);
        return false;
    }
    return true;
}

static void grade_answer_raw(struct lua_State *L, struct grader_job *j, const char *answer)
{
    struct grader_result *r = j->res;
    const struct grader_question *q = j->q;
    r->max = q->points;
    free(r->reference);
    r->reference = grader_job_reference_text(L, j, false);
    if (!r->reference)
        r->reference = core_xstrdup("");
    if (!answer_acceptable(j, answer))
        return;
    const struct grader_kind_ops *kind = grader_kind_ops(q->kind);
    r->automatic = kind->automatic;
    if (q->has_grade) {
        grade_custom(L, j, answer);
        return;
    }
    kind->grade(L, j, answer);
}

/* ---- the jobs ----------------------------------------------------------------------- */

static void view_fill(struct lua_State *L, struct grader_job *j)
{
    struct grader_view *v = j->view;
    const struct grader_question *q = j->q;
    grader_render_or_fail(L, j, q->prompt, "prompt");
    v->prompt = grader_lua_strdup(L, -1);
    grader_pop(L, 1);
    int hints = grader_tab_open(L, GRADER_S_Q, "hints");
    if (hints) {
        size_t n = grader_len(L, hints);
        v->hints = n ? core_xcalloc(n, sizeof *v->hints) : NULL;
        for (size_t i = 1; i <= n; i++) {
            grader_hint_push(L, hints, i); /* hints text */
            const char *h = grader_tostring(L, -1);
            char label[32];
            snprintf(label, sizeof label, "hint %zu", i);
            grader_render_or_fail(L, j, h ? h : "", label); /* hints text rendered */
            v->hints[v->n_hints++] = grader_lua_strdup(L, -1);
            grader_pop(L, 2); /* hints */
        }
    }
    grader_tab_close(L, hints);
    size_t n = grader_job_n_choices(L);
    if (n) {
        v->choices = core_xcalloc(n, sizeof *v->choices);
        size_t shown[GRADER_MAX_PICKS];
        bool ord = grader_kind_ops(q->kind)->shuffled && n <= GRADER_MAX_PICKS;
        if (ord)
            grader_order_shuffle(j, n, shown);
        for (size_t i = 0; i < n; i++) {
            struct grader_dval c; /* rendered: a string */
            grader_index(L, GRADER_S_CH, (long long)(ord ? shown[i] : i) + 1, &c);
            v->choices[v->n_choices++] = c.str ? core_xstrndup(c.str, c.len) : core_xstrdup("");
        }
    }
    v->unit = core_xstrdup(q->unit ? q->unit : "");
    v->max_answer = q->max_answer;
    int concepts =
        grader_kind_ops(q->kind)->rubric ? grader_tab_open(L, GRADER_S_Q, "concepts") : 0;
    if (concepts) {
        /* The concepts a student scores a design answer on (checked at load:
         * a list of tables with a string name and points > 0, default 1). */
        size_t nc = grader_len(L, concepts);
        v->rubric = nc ? core_xcalloc(nc, sizeof *v->rubric) : NULL;
        v->rubric_points = nc ? core_xcalloc(nc, sizeof *v->rubric_points) : NULL;
        for (size_t i = 1; i <= nc; i++) {
            int c = grader_tab_open_at(L, concepts, (long long)i); /* concepts c */
            if (!c)
                continue;
            struct grader_dval name, points;
            grader_field(L, c, "name", &name);
            grader_field(L, c, "points", &points);
            v->rubric[v->n_rubric] =
                name.type == GRADER_LT_STR ? core_xstrndup(name.str, name.len) : core_xstrdup("");
            v->rubric_points[v->n_rubric] = points.type == GRADER_LT_NUM ? points.num : 1;
            v->n_rubric++;
            grader_tab_close(L, c); /* concepts */
        }
    }
    grader_tab_close(L, concepts);
    if (j->no_lab)
        v->needs_lab =
            core_xasprintf("run the lab '%s' first (warpbench lab run %s)", q->lab, q->lab);
}

static int l_job(struct lua_State *L)
{
    struct grader_job *j = grader_sb_job_start(L);
    const struct grader_question *q = j->q;
    const struct grader_pfile *f = &j->p->files[j->qx->file];
    grader_sb_set_fallback(L, j->qpos);
    grader_sb_load_mapped(L, j->use_slim ? &j->qx->slim : &f->bc, f->chunkname,
                          j->use_slim ? &j->qx->map : NULL); /* chunk */
    grader_job_call(L, j, "the file", 0, 0);
    grader_decl_push_question(L, q->id); /* Q */
    if (grader_type(L, GRADER_S_Q) != GRADER_LT_TAB && j->use_slim) {
        j->slim_missing = true;
        return 0;
    }
    if (grader_type(L, GRADER_S_Q) != GRADER_LT_TAB)
        grader_job_fail(L, j,
                        "it is not declared when its file runs again (is the file "
                        "deterministic?)");
    grader_settop(L, GRADER_S_TOP);
    if (j->mode == GRADER_J_EXAMPLE || j->mode == GRADER_J_SAMPLE) {
        const char *list = j->mode == GRADER_J_SAMPLE ? "samples" : "examples";
        int exs = grader_tab_open(L, GRADER_S_Q, list);                 /* exs */
        if (!exs || !grader_tab_open_at(L, exs, (long long)j->example)) /* exs ex */
            grader_job_fail(L, j, "%s %zu is not a table",
                            j->mode == GRADER_J_SAMPLE ? "sample" : "example", j->example);
        grader_slot_replace(L, GRADER_S_EX); /* exs */
        grader_settop(L, GRADER_S_TOP);
    }
    build_ctx(L, j);
    assert(grader_top(L) == GRADER_S_TOP);
    draw_params(L, j);
    assert(grader_top(L) == GRADER_S_TOP);
    if (j->mode == GRADER_J_SWEEP ||
        j->mode == GRADER_J_CHECK) { /* the variant's identity, for messages */
        core_buf_reset(&j->vkey);
        grader_params_key(L, GRADER_S_P, &j->vkey);
        core_buf_putc(&j->vkey, '\0');
        j->vkey.len--;
    }
    grader_render_choices(L, j);
    assert(grader_top(L) == GRADER_S_TOP);
    /* Without the run, the reference cannot be known; a sealed question
     * has none, and a recorded answer needs none. */
    if (!j->no_lab && !q->sealed && j->mode != GRADER_J_RECORD)
        compute_reference(L, j);
    assert(grader_top(L) == GRADER_S_TOP);
    j->fill(L, j);
    assert(grader_top(L) == GRADER_S_TOP || j->skip);
    return 0;
}

static int job_run(struct grader_job *j, struct core_err *err);

/* ---- the pack's CPU budget -------------------------------------------------------- */

static double thread_cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void grader_pack_set_budget(struct grader_pack *p, double cpu_s)
{
    p->budget_s = cpu_s > 0 ? cpu_s : 0;
    p->used_s = 0;
    p->spent = false;
    for (size_t i = 0; i < p->n_qx; i++)
        p->qx[i].cpu_s = 0;
}

bool grader_pack_budget_spent(const struct grader_pack *p, char *buf, size_t n)
{
    if (!p->spent)
        return false;
    const struct grader_qx *hog = NULL;
    for (size_t i = 0; i < p->n_qx; i++)
        if (!hog || p->qx[i].cpu_s > hog->cpu_s)
            hog = &p->qx[i];
    if (buf && n)
        snprintf(buf, n, GRADER_BUDGET_WORDS " %g s of CPU is spent: question %s took %.1f s of it",
                 p->budget_s, hog && hog->q ? hog->q->id : "?", hog ? hog->cpu_s : 0.0);
    return true;
}

int grader_job_run(struct grader_job *j, struct core_err *err)
{
    struct grader_pack *p = j->p;
    if (p->budget_s <= 0)
        return job_run(j, err);
    char why[200];
    if (grader_pack_budget_spent(p, why, sizeof why))
        return core_err_set(err, CORE_ERR_LIMIT, "%s", why);
    double t0 = thread_cpu_s();
    int rc = job_run(j, err);
    double dt = thread_cpu_s() - t0;
    p->qx[j->qx - p->qx].cpu_s += dt;
    p->used_s += dt;
    p->spent = p->used_s > p->budget_s;
    return rc;
}

static int job_run(struct grader_job *j, struct core_err *err)
{
    const struct grader_question *q = j->q;
    snprintf(j->qpos, sizeof j->qpos, "%s:%d", q->file, q->line);
    if (j->qx->file == SIZE_MAX)
        return core_err_set(err, CORE_ERR_INTERNAL, "%s: question %s has no file", j->qpos, q->id);
    j->what = NULL;
    grader_qx_slim(j->p, &j->p->qx[j->qx - j->p->qx]);
    j->use_slim = j->qx->has_slim;
    j->slim_missing = false;
    int rc = grader_sb_run(&j->p->lim, j->p->pool, l_job, j, err);
    if (rc == 0 && j->slim_missing) { /* the cut file lost the question: the whole file */
        j->use_slim = false;
        rc = grader_sb_run(&j->p->lim, j->p->pool, l_job, j, err);
    }
    if (j->res_outer) { /* a self-test's probe the pack's code failed */
        j->res = j->res_outer;
        j->res_outer = NULL;
    }
    if (j->probe) { /* ... or whose answer raised a problem */
        grader_result_fini(j->probe);
        free(j->probe);
        j->probe = NULL;
    }
    if (rc && err && j->what) {
        char msg[sizeof err->msg];
        snprintf(msg, sizeof msg, "%s", err->msg);
        core_err_set(err, rc, "%s (in %s of question %s)", msg, j->what, q->id);
    }
    return rc;
}

/* ---- public API --------------------------------------------------------------------- */

void grader_view_fini(struct grader_view *v)
{
    if (!v)
        return;
    free(v->prompt);
    for (size_t i = 0; i < v->n_choices; i++)
        free(v->choices[i]);
    free(v->choices);
    for (size_t i = 0; i < v->n_hints; i++)
        free(v->hints[i]);
    free(v->hints);
    free(v->unit);
    free(v->needs_lab);
    for (size_t i = 0; i < v->n_rubric; i++)
        free(v->rubric[i]);
    free(v->rubric);
    free(v->rubric_points);
    free(v->params_json);
    free(v->params_all);
    memset(v, 0, sizeof *v);
}

void grader_result_fini(struct grader_result *r)
{
    if (!r)
        return;
    free(r->feedback);
    free(r->parsed);
    free(r->accepted);
    free(r->reference);
    free(r->params_json);
    for (size_t i = 0; i < r->n_claims; i++) {
        struct grader_claim_evidence *e = &r->claims[i];
        free(e->concept);
        free(e->status);
        free(e->clause);
        free(e->subject);
        free(e->relation);
        free(e->object);
        free(e->how);
    }
    free(r->claims);
    free(r->canonical);
    memset(r, 0, sizeof *r);
}

/* Result texts are stored with every attempt: a grader that returns
 * megabytes of feedback must not grow the store by megabytes per answer. */
#define MAX_RESULT_TEXT (16u << 10)

/* Cuts s to MAX_RESULT_TEXT bytes at a UTF-8 character boundary, saying so. */
static void cap_text(char **s)
{
    if (!*s || strlen(*s) <= MAX_RESULT_TEXT)
        return;
    size_t n = MAX_RESULT_TEXT;
    while (n > 0 && ((unsigned char)(*s)[n] & 0xC0) == 0x80)
        n--; /* do not split a multi-byte character */
    char *cut = core_xasprintf("%.*s … (cut at 16 KiB)", (int)n, *s);
    free(*s);
    *s = cut;
}

/* GRADER_J_GRADE: grades the student's answer. */
static void grade_fill(struct lua_State *L, struct grader_job *j)
{
    grader_job_grade(L, j, j->answer);
}

/* GRADER_J_RECORD: checks the student's answer for form; no reference. */
static void record_fill(struct lua_State *L, struct grader_job *j)
{
    struct grader_result *r = j->res;
    r->max = j->q->points;
    if (!answer_acceptable(j, j->answer))
        return;
    const struct grader_kind_ops *kind = grader_kind_ops(j->q->kind);
    r->valid = true;
    if (kind->record)
        kind->record(L, j, j->answer);
    if (r->valid) {
        if (!r->canonical)
            r->canonical = core_xstrdup(j->answer);
        free(r->feedback);
        r->feedback = core_xstrdup("");
    }
    grader_settop(L, GRADER_S_TOP);
}

/* Every string under the value at idx (tables walked raw, to a small
 * depth), skipping the fields named in `skip`. */
struct collect {
    struct lua_State *L;
    int depth;
    const char *const *skip;
    struct core_strlist *out;
};

static void collect_value(struct lua_State *L, const struct grader_dval *d, struct collect *c);

static bool collect_entry(const struct grader_dval *k, const struct grader_dval *v, void *ud)
{
    struct collect *c = ud;
    bool skipped = false;
    if (k->type == GRADER_LT_STR)
        for (size_t i = 0; c->skip && c->skip[i] && !skipped; i++)
            skipped = strcmp(k->str, c->skip[i]) == 0;
    if (!skipped) {
        c->depth++;
        collect_value(c->L, v, c);
        c->depth--;
    }
    return true;
}

static void collect_value(struct lua_State *L, const struct grader_dval *d, struct collect *c)
{
    if (d->type == GRADER_LT_STR) {
        core_strlist_push(c->out, d->str);
        return;
    }
    if (d->type != GRADER_LT_TAB || c->depth > 6)
        return;
    grader_pairs(L, d->slot, collect_entry, c);
}

static void collect_strings(struct lua_State *L, int idx, const char *const *skip,
                            struct core_strlist *out)
{
    struct collect c = {.L = L, .depth = 0, .skip = skip, .out = out};
    struct grader_dval d;
    grader_value(L, idx, &d);
    d.slot = idx;
    collect_value(L, &d, &c);
}

/* The `field` of each entry of the list Q[list] (or each entry that is a
 * string, with field NULL). */
struct collect_field {
    struct lua_State *L;
    const char *field;
    struct core_strlist *out;
};

static bool collect_field_entry(const struct grader_dval *k, const struct grader_dval *v, void *ud)
{
    (void)k;
    struct collect_field *c = ud;
    struct grader_dval f;
    if (!c->field && v->type == GRADER_LT_STR)
        core_strlist_push(c->out, v->str);
    else if (c->field && v->type == GRADER_LT_TAB &&
             grader_field(c->L, v->slot, c->field, &f) == GRADER_LT_STR)
        core_strlist_push(c->out, f.str);
    return true;
}

static void collect_field(struct lua_State *L, const char *list, const char *field,
                          struct core_strlist *out)
{
    int t = grader_tab_open(L, GRADER_S_Q, list); /* list */
    if (t) {
        struct collect_field c = {.L = L, .field = field, .out = out};
        grader_pairs(L, t, collect_field_entry, &c);
    }
    grader_settop(L, GRADER_S_TOP);
}

/* GRADER_J_ANSWER: the reference and every text around it that grades or
 * reveals (grader_question_reference). */
static void answer_fill(struct lua_State *L, struct grader_job *j)
{
    struct grader_reference *o = j->ref_out;
    if (j->no_lab)
        return;
    o->exact = grader_job_reference_text(L, j, true);
    o->display = grader_job_reference_text(L, j, false);
    struct grader_dval d;
    if (grader_value(L, GRADER_S_REF, &d) == GRADER_LT_NUM) {
        o->value = d.num;
        o->has_value = true;
    }
    if (j->q->kind == GRADER_TEXT)
        collect_strings(L, GRADER_S_REF, NULL, &o->texts);
    if (grader_field(L, GRADER_S_Q, "model", &d) == GRADER_LT_STR)
        core_strlist_push(&o->texts, d.str);
    grader_settop(L, GRADER_S_TOP);
    static const char *const not_phrases[] = {"name",   "feedback", "patterns", "points",
                                              "within", "fuzzy",    NULL};
    int concepts = grader_tab_open(L, GRADER_S_Q, "concepts");
    if (concepts)
        collect_strings(L, concepts, not_phrases, &o->phrases);
    grader_settop(L, GRADER_S_TOP);
    collect_field(L, "wrong", "feedback", &o->feedback);
    collect_field(L, "bands", "feedback", &o->feedback);
    collect_field(L, "why", NULL, &o->feedback);
    collect_field(L, "concepts", "feedback", &o->feedback);
    collect_field(L, "samples", "answer", &o->texts);
}

/* Sets up a job for question qid of p as seen by ctx; CORE_ERR_NOTFOUND
 * for an unknown question. */
static int job_for(struct grader_pack *p, const char *qid, const struct grader_ctx *ctx,
                   enum grader_job_mode mode, struct grader_job *j, struct core_err *err)
{
    const struct grader_qx *x = grader_pack_qx(p, qid);
    if (!x)
        return core_err_set(err, CORE_ERR_NOTFOUND, "no question '%s' in pack %s", qid ? qid : "",
                            p ? p->info.id : "?");
    *j = (struct grader_job){.p = p,
                             .qx = x,
                             .q = x->q,
                             .mode = mode,
                             .fill = mode == GRADER_J_VIEW     ? view_fill
                                     : mode == GRADER_J_RECORD ? record_fill
                                     : mode == GRADER_J_ANSWER ? answer_fill
                                                               : grade_fill,
                             .user = ctx && ctx->user ? ctx->user : "",
                             .variant = ctx ? ctx->variant : 1,
                             .lab = ctx ? ctx->lab : NULL,
                             .params_in = ctx ? ctx->params_json : NULL,
                             .identity = ctx && ctx->identity};
    return CORE_OK;
}

int grader_question_view(struct grader_pack *p, const char *qid, const struct grader_ctx *ctx,
                         struct grader_view *out, struct core_err *err)
{
    memset(out, 0, sizeof *out);
    struct grader_job j;
    int rc = job_for(p, qid, ctx, GRADER_J_VIEW, &j, err);
    if (rc)
        return rc;
    j.view = out;
    rc = grader_job_run(&j, err);
    out->params_json = j.params_out;
    if (rc)
        grader_view_fini(out);
    return rc;
}

int grader_question_grade(struct grader_pack *p, const char *qid, const struct grader_ctx *ctx,
                          const char *answer, struct grader_result *out, struct core_err *err)
{
    memset(out, 0, sizeof *out);
    struct grader_job j;
    int rc = job_for(p, qid, ctx, GRADER_J_GRADE, &j, err);
    if (rc)
        return rc;
    if (j.q->sealed)
        return core_err_set(err, CORE_ERR_USAGE,
                            "%s is sealed: this release holds nothing that grades it (your "
                            "instructor grades it)",
                            j.q->id);
    j.answer = answer ? answer : "";
    j.res = out;
    rc = grader_job_run(&j, err);
    out->params_json = j.params_out;
    if (rc) {
        grader_result_fini(out);
        return rc;
    }
    if (!out->feedback)
        out->feedback = core_xstrdup("");
    cap_text(&out->feedback);
    cap_text(&out->parsed);
    cap_text(&out->reference);
    return rc;
}

int grader_question_record(struct grader_pack *p, const char *qid, const struct grader_ctx *ctx,
                           const char *answer, struct grader_result *out, struct core_err *err)
{
    memset(out, 0, sizeof *out);
    struct grader_job j;
    int rc = job_for(p, qid, ctx, GRADER_J_RECORD, &j, err);
    if (rc)
        return rc;
    j.answer = answer ? answer : "";
    j.res = out;
    rc = grader_job_run(&j, err);
    out->params_json = j.params_out;
    if (rc) {
        grader_result_fini(out);
        return rc;
    }
    if (!out->feedback)
        out->feedback = core_xstrdup("");
    cap_text(&out->parsed);
    return rc;
}

void grader_reference_fini(struct grader_reference *r)
{
    if (!r)
        return;
    free(r->exact);
    free(r->display);
    core_strlist_fini(&r->texts);
    core_strlist_fini(&r->phrases);
    core_strlist_fini(&r->feedback);
    free(r->params_json);
    memset(r, 0, sizeof *r);
}

int grader_question_reference(struct grader_pack *p, const char *qid, const struct grader_ctx *ctx,
                              struct grader_reference *out, struct core_err *err)
{
    memset(out, 0, sizeof *out);
    core_strlist_init(&out->texts);
    core_strlist_init(&out->phrases);
    core_strlist_init(&out->feedback);
    struct grader_job j;
    int rc = job_for(p, qid, ctx, GRADER_J_ANSWER, &j, err);
    if (rc == CORE_OK && j.q->sealed)
        rc = core_err_set(err, CORE_ERR_USAGE, "%s is sealed: it has no reference here", j.q->id);
    if (rc == CORE_OK) {
        j.ref_out = out;
        rc = grader_job_run(&j, err);
        out->params_json = j.params_out;
    }
    if (rc)
        grader_reference_fini(out);
    return rc;
}
