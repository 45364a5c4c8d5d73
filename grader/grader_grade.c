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
 * blocks of grader_pure.h.
 */
#include "grader_lua_internal.h"

#include <lauxlib.h>
#include <lua.h>

#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- ctx, params, reference -------------------------------------------------------- */

static void push_kv(lua_State *L, const struct grader_kv *kv, size_t n)
{
    lua_createtable(L, 0, (int)n);
    for (size_t i = 0; i < n; i++) {
        if (!kv[i].key)
            continue;
        if (kv[i].is_num)
            lua_pushnumber(L, kv[i].num);
        else
            lua_pushstring(L, kv[i].str ? kv[i].str : "");
        lua_setfield(L, -2, kv[i].key);
    }
}

static void push_lab(lua_State *L, const struct grader_lab_run *run)
{
    lua_createtable(L, 0, 5);
    lua_pushinteger(L, run->id);
    lua_setfield(L, -2, "id");
    lua_pushstring(L, run->lab ? run->lab : "");
    lua_setfield(L, -2, "lab");
    if (run->finished_at) {
        lua_pushstring(L, run->finished_at);
        lua_setfield(L, -2, "finished_at");
    }
    push_kv(L, run->params, run->n_params);
    lua_setfield(L, -2, "params");
    push_kv(L, run->summary, run->n_summary);
    lua_setfield(L, -2, "summary");
}

/* A pretend run from an example: its table, with the missing parts filled. */
static void fill_pretend_lab(lua_State *L, int t, const struct grader_question *q)
{
    static const char *const tabs[] = {"params", "summary"};
    for (int i = 0; i < 2; i++) {
        if (grader_rawfield(L, t, tabs[i]) != LUA_TTABLE) {
            lua_pushstring(L, tabs[i]);
            lua_newtable(L);
            lua_rawset(L, t);
        }
        lua_pop(L, 1);
    }
    if (grader_rawfield(L, t, "id") == LUA_TNIL) {
        lua_pushliteral(L, "id");
        lua_pushinteger(L, 0);
        lua_rawset(L, t);
    }
    lua_pop(L, 1);
    if (grader_rawfield(L, t, "lab") == LUA_TNIL) {
        lua_pushliteral(L, "lab");
        lua_pushstring(L, q->lab ? q->lab : "");
        lua_rawset(L, t);
    }
    lua_pop(L, 1);
    if (grader_rawfield(L, t, "finished_at") == LUA_TNIL) {
        lua_pushliteral(L, "finished_at");
        lua_pushliteral(L, "1970-01-01T00:00:00.000Z"); /* a fixed, obviously pretend time */
        lua_rawset(L, t);
    }
    lua_pop(L, 1);
}

/* Pushes the first example's pretend run, or nil. */
static void push_first_example_lab(lua_State *L)
{
    int top = lua_gettop(L);
    if (grader_rawfield(L, GRADER_S_Q, "examples") == LUA_TTABLE) { /* exs */
        size_t n = lua_rawlen(L, top + 1);
        for (size_t i = 1; i <= n; i++) {
            if (lua_rawgeti(L, top + 1, (lua_Integer)i) == LUA_TTABLE && /* exs ex */
                grader_rawfield(L, -1, "lab") == LUA_TTABLE) {           /* exs ex lab */
                lua_replace(L, top + 1);                                 /* lab ex */
                lua_settop(L, top + 1);                                  /* lab */
                return;
            }
            lua_settop(L, top + 1);
        }
    }
    lua_settop(L, top);
    lua_pushnil(L);
}

static void build_ctx(lua_State *L, struct grader_job *j)
{
    lua_createtable(L, 0, 6); /* ctx */
    lua_pushinteger(L, j->variant);
    lua_setfield(L, -2, "variant");
    lua_pushnumber(L, j->q->points);
    lua_setfield(L, -2, "points");
    lua_replace(L, GRADER_S_CTX);
    if (!j->q->lab)
        return; /* only lab-linked questions see a run */
    switch (j->mode) {
    case GRADER_J_VIEW:
    case GRADER_J_GRADE:
    case GRADER_J_RECORD:
    case GRADER_J_ANSWER:
        if (j->lab)
            push_lab(L, j->lab);
        else
            lua_pushnil(L);
        break;
    case GRADER_J_EXAMPLE:
        if (lua_type(L, GRADER_S_EX) == LUA_TTABLE)
            grader_rawfield(L, GRADER_S_EX, "lab");
        else
            lua_pushnil(L);
        break;
    default:
        push_first_example_lab(L);
        break;
    }
    if (lua_type(L, -1) == LUA_TTABLE) {
        if (j->mode != GRADER_J_VIEW && j->mode != GRADER_J_GRADE && j->mode != GRADER_J_RECORD &&
            j->mode != GRADER_J_ANSWER)
            fill_pretend_lab(L, lua_gettop(L), j->q);
        lua_setfield(L, GRADER_S_CTX, "lab");
    } else {
        lua_pop(L, 1);
        j->no_lab = true;
    }
}

/* The params at GRADER_S_P cut down to the names the question's prompt,
 * choices and hints show, as JSON. */
static char *shown_params(lua_State *L, const struct grader_question *q)
{
    struct core_strlist names;
    core_strlist_init(&names);
    grader_render_names(q->prompt, &names);
    for (size_t i = 0; i < q->n_choices; i++)
        grader_render_names(q->choices[i], &names);
    for (size_t i = 0; i < q->n_hints; i++)
        grader_render_names(q->hints[i], &names);
    lua_createtable(L, 0, (int)names.n); /* shown */
    for (size_t i = 0; i < names.n; i++) {
        lua_pushstring(L, names.items[i]);
        lua_pushvalue(L, -1);
        lua_rawget(L, GRADER_S_P); /* shown name value */
        lua_rawset(L, -3);         /* shown */
    }
    core_strlist_fini(&names);
    char *json = grader_params_encode(L, lua_gettop(L));
    lua_pop(L, 1);
    return json;
}

static void draw_params(lua_State *L, struct grader_job *j)
{
    if (j->params_in && (j->mode == GRADER_J_VIEW || j->mode == GRADER_J_GRADE)) { /* as stored */
        if (!grader_params_decode(L, j->params_in))                                /* p */
            grader_job_fail(L, j, "the stored variant parameters are not readable JSON");
        lua_replace(L, GRADER_S_P);
    } else if (j->mode == GRADER_J_EXAMPLE && lua_type(L, GRADER_S_EX) == LUA_TTABLE &&
               grader_rawfield(L, GRADER_S_EX, "params") == LUA_TTABLE) { /* fixed numbers */
        lua_replace(L, GRADER_S_P);
    } else {
        if (j->mode == GRADER_J_EXAMPLE && lua_type(L, GRADER_S_EX) == LUA_TTABLE)
            lua_pop(L, 1);
        if (grader_rawfield(L, GRADER_S_Q, "params") == LUA_TFUNCTION) { /* params */
            grader_wb_push_rng(L, grader_job_seed(j));                   /* params rng */
            lua_pushvalue(L, GRADER_S_CTX);                              /* params rng ctx */
            grader_job_call(L, j, "params", 2, 1);                       /* p */
            if (lua_type(L, -1) != LUA_TTABLE)
                grader_job_fail(L, j, "params must return a table of numbers, got %s",
                                luaL_typename(L, -1));
        } else {
            lua_pop(L, 1);
            lua_newtable(L);
        }
        lua_replace(L, GRADER_S_P);
    }
    lua_pushvalue(L, GRADER_S_P);
    lua_setfield(L, GRADER_S_CTX, "params");
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
static void compute_reference(lua_State *L, struct grader_job *j)
{
    grader_kind_ops(j->q->kind)->reference(L, j); /* ref */
    lua_pushvalue(L, -1);
    lua_setfield(L, GRADER_S_CTX, "reference");
    lua_replace(L, GRADER_S_REF);
}

/* ---- results ------------------------------------------------------------------------------- */

char *grader_job_reference_text(lua_State *L, struct grader_job *j, bool exact)
{
    return grader_kind_ops(j->q->kind)->reference_text(L, j, exact);
}

/* A custom grade(answer, ctx): a fraction [, feedback], or a table
 * { score =, feedback =, valid =, mistake =, solution = }. A solution (the
 * worked answer, wb.lab.grade's) becomes the result's reference: shown with
 * a right answer, a give-up or the last try, never in a wrong answer's
 * feedback. */
static void grade_custom(lua_State *L, struct grader_job *j, const char *answer)
{
    struct grader_result *r = j->res;
    grader_rawfield(L, GRADER_S_Q, "grade");
    lua_pushstring(L, answer);
    lua_pushvalue(L, GRADER_S_CTX);
    grader_job_call(L, j, "grade", 2, 3); /* s fb m */
    bool mistake = lua_toboolean(L, -1);
    lua_pop(L, 1); /* s fb */
    if (lua_type(L, -2) == LUA_TTABLE) {
        int t = lua_gettop(L) - 1;
        grader_rawfield(L, t, "mistake");
        mistake = mistake || lua_toboolean(L, -1);
        lua_pop(L, 1);
        grader_rawfield(L, t, "valid");
        bool valid = lua_type(L, -1) == LUA_TNIL || lua_toboolean(L, -1);
        lua_pop(L, 1);
        if (grader_rawfield(L, t, "solution") == LUA_TSTRING && lua_rawlen(L, -1) > 0) {
            free(r->reference);
            r->reference = grader_lua_strdup(L, -1);
        }
        lua_pop(L, 1);
        grader_rawfield(L, t, "feedback");
        const char *fb = lua_tostring(L, -1);
        if (!valid) {
            grader_result_invalid(r, fb ? fb : "The answer could not be read.");
            lua_pop(L, 3);
            return;
        }
        grader_rawfield(L, t, "score"); /* s fb fbt score */
        lua_replace(L, t);              /* score fb fbt */
        lua_replace(L, t + 1);          /* score fbt */
    }
    if (lua_type(L, -2) != LUA_TNUMBER)
        grader_job_fail(L, j,
                        "grade must return a fraction from 0 to 1 (or a table "
                        "{ score = ..., feedback = ..., valid = ... }), got %s",
                        luaL_typename(L, -2));
    double s = lua_tonumber(L, -2);
    if (!(s >= 0 && s <= 1))
        grader_job_fail(L, j, "grade returned %g; a score is a fraction from 0 to 1", s);
    grader_result_score(r, s, lua_tostring(L, -1));
    r->mistake = mistake && !r->correct;
    lua_pop(L, 2);
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
static void fill_feedback(lua_State *L, struct grader_result *r)
{
    if (!r->feedback || !strchr(r->feedback, '{'))
        return;
    char why[8];
    grader_render(L, r->feedback, GRADER_R_KEEP, why, sizeof why); /* text */
    free(r->feedback);
    r->feedback = core_xstrdup(lua_tostring(L, -1));
    lua_pop(L, 1);
}

static void grade_answer_raw(lua_State *L, struct grader_job *j, const char *answer);

void grader_job_grade(lua_State *L, struct grader_job *j, const char *answer)
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

static void grade_answer_raw(lua_State *L, struct grader_job *j, const char *answer)
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

static void view_fill(lua_State *L, struct grader_job *j)
{
    struct grader_view *v = j->view;
    const struct grader_question *q = j->q;
    grader_render_or_fail(L, j, q->prompt, "prompt");
    v->prompt = grader_lua_strdup(L, -1);
    lua_pop(L, 1);
    if (grader_rawfield(L, GRADER_S_Q, "hints") == LUA_TTABLE) { /* hints */
        size_t n = lua_rawlen(L, -1);
        v->hints = n ? core_xcalloc(n, sizeof *v->hints) : NULL;
        for (size_t i = 1; i <= n; i++) {
            grader_hint_push(L, lua_gettop(L), i);
            const char *h = lua_tostring(L, -1);
            char label[32];
            snprintf(label, sizeof label, "hint %zu", i);
            grader_render_or_fail(L, j, h ? h : "", label);
            v->hints[v->n_hints++] = grader_lua_strdup(L, -1);
            lua_pop(L, 2);
        }
    }
    lua_pop(L, 1);
    size_t n = grader_job_n_choices(L);
    if (n) {
        v->choices = core_xcalloc(n, sizeof *v->choices);
        size_t shown[GRADER_MAX_PICKS];
        bool ord = grader_kind_ops(q->kind)->shuffled && n <= GRADER_MAX_PICKS;
        if (ord)
            grader_order_shuffle(j, n, shown);
        for (size_t i = 0; i < n; i++) {
            lua_rawgeti(L, GRADER_S_CH, (lua_Integer)(ord ? shown[i] : i) + 1);
            v->choices[v->n_choices++] = grader_lua_strdup(L, -1);
            lua_pop(L, 1);
        }
    }
    v->unit = core_xstrdup(q->unit ? q->unit : "");
    v->max_answer = q->max_answer;
    if (grader_kind_ops(q->kind)->rubric)
        grader_rawfield(L, GRADER_S_Q, "concepts"); /* concepts */
    else
        lua_pushnil(L);
    if (lua_type(L, -1) == LUA_TTABLE) {
        /* The concepts a student scores a design answer on (checked at load:
         * a list of tables with a string name and points > 0, default 1). */
        size_t nc = lua_rawlen(L, -1);
        v->rubric = nc ? core_xcalloc(nc, sizeof *v->rubric) : NULL;
        v->rubric_points = nc ? core_xcalloc(nc, sizeof *v->rubric_points) : NULL;
        for (size_t i = 1; i <= nc; i++) {
            if (lua_rawgeti(L, -1, (lua_Integer)i) != LUA_TTABLE) { /* concepts c */
                lua_pop(L, 1);
                continue;
            }
            grader_rawfield(L, -1, "name");   /* concepts c name */
            grader_rawfield(L, -2, "points"); /* concepts c name points */
            v->rubric[v->n_rubric] =
                lua_type(L, -2) == LUA_TSTRING ? grader_lua_strdup(L, -2) : core_xstrdup("");
            v->rubric_points[v->n_rubric] =
                lua_type(L, -1) == LUA_TNUMBER ? lua_tonumber(L, -1) : 1;
            v->n_rubric++;
            lua_pop(L, 3); /* concepts */
        }
    }
    lua_pop(L, 1);
    if (j->no_lab)
        v->needs_lab =
            core_xasprintf("run the lab '%s' first (warpbench lab run %s)", q->lab, q->lab);
}

static int l_job(lua_State *L)
{
    struct grader_job *j = lua_touserdata(L, 1);
    const struct grader_question *q = j->q;
    const struct grader_pfile *f = &j->p->files[j->qx->file];
    grader_sb_enter_c(L);
    lua_settop(L, 0);
    grader_sb_set_fallback(L, j->qpos);
    grader_sb_load_mapped(L, j->use_slim ? &j->qx->slim : &f->bc, f->chunkname,
                          j->use_slim ? &j->qx->map : NULL); /* chunk */
    grader_job_call(L, j, "the file", 0, 0);
    grader_decl_push_question(L, q->id); /* Q */
    if (lua_type(L, GRADER_S_Q) != LUA_TTABLE && j->use_slim) {
        j->slim_missing = true;
        return 0;
    }
    if (lua_type(L, GRADER_S_Q) != LUA_TTABLE)
        grader_job_fail(L, j,
                        "it is not declared when its file runs again (is the file "
                        "deterministic?)");
    lua_settop(L, GRADER_S_TOP);
    if (j->mode == GRADER_J_EXAMPLE || j->mode == GRADER_J_SAMPLE) {
        const char *list = j->mode == GRADER_J_SAMPLE ? "samples" : "examples";
        if (grader_rawfield(L, GRADER_S_Q, list) != LUA_TTABLE ||
            lua_rawgeti(L, -1, (lua_Integer)j->example) != LUA_TTABLE)
            grader_job_fail(L, j, "%s %zu is not a table",
                            j->mode == GRADER_J_SAMPLE ? "sample" : "example", j->example);
        lua_replace(L, GRADER_S_EX);
        lua_settop(L, GRADER_S_TOP);
    }
    build_ctx(L, j);
    assert(lua_gettop(L) == GRADER_S_TOP);
    draw_params(L, j);
    assert(lua_gettop(L) == GRADER_S_TOP);
    if (j->mode == GRADER_J_SWEEP ||
        j->mode == GRADER_J_CHECK) { /* the variant's identity, for messages */
        core_buf_reset(&j->vkey);
        grader_params_key(L, GRADER_S_P, &j->vkey);
        core_buf_putc(&j->vkey, '\0');
        j->vkey.len--;
    }
    grader_render_choices(L, j);
    assert(lua_gettop(L) == GRADER_S_TOP);
    /* Without the run, the reference cannot be known; a sealed question
     * has none, and a recorded answer needs none. */
    if (!j->no_lab && !q->sealed && j->mode != GRADER_J_RECORD)
        compute_reference(L, j);
    assert(lua_gettop(L) == GRADER_S_TOP);
    j->fill(L, j);
    assert(lua_gettop(L) == GRADER_S_TOP || j->skip);
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
static void grade_fill(lua_State *L, struct grader_job *j)
{
    grader_job_grade(L, j, j->answer);
}

/* GRADER_J_RECORD: checks the student's answer for form; no reference. */
static void record_fill(lua_State *L, struct grader_job *j)
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
    lua_settop(L, GRADER_S_TOP);
}

/* Every string under the value at idx (tables walked raw, to a small
 * depth), skipping the fields named in `skip`. */
static void collect_strings(lua_State *L, int idx, int depth, const char *const *skip,
                            struct core_strlist *out)
{
    idx = lua_absindex(L, idx);
    if (lua_type(L, idx) == LUA_TSTRING) {
        core_strlist_push(out, lua_tostring(L, idx));
        return;
    }
    if (lua_type(L, idx) != LUA_TTABLE || depth > 6)
        return;
    lua_pushnil(L);
    while (lua_next(L, idx)) { /* k v */
        bool skipped = false;
        if (lua_type(L, -2) == LUA_TSTRING)
            for (size_t i = 0; skip && skip[i] && !skipped; i++)
                skipped = strcmp(lua_tostring(L, -2), skip[i]) == 0;
        if (!skipped)
            collect_strings(L, -1, depth + 1, skip, out);
        lua_pop(L, 1);
    }
}

/* The `field` of each entry of the list Q[list] (or each entry that is a
 * string, with field NULL). */
static void collect_field(lua_State *L, const char *list, const char *field,
                          struct core_strlist *out)
{
    if (grader_rawfield(L, GRADER_S_Q, list) == LUA_TTABLE) { /* list */
        int t = lua_gettop(L);
        lua_pushnil(L);
        while (lua_next(L, t)) { /* list k e */
            if (!field && lua_type(L, -1) == LUA_TSTRING)
                core_strlist_push(out, lua_tostring(L, -1));
            else if (field && lua_type(L, -1) == LUA_TTABLE &&
                     grader_rawfield(L, -1, field) == LUA_TSTRING)
                core_strlist_push(out, lua_tostring(L, -1));
            lua_settop(L, t + 1); /* list k */
        }
    }
    lua_settop(L, GRADER_S_TOP);
}

/* GRADER_J_ANSWER: the reference and every text around it that grades or
 * reveals (grader_question_reference). */
static void answer_fill(lua_State *L, struct grader_job *j)
{
    struct grader_reference *o = j->ref_out;
    if (j->no_lab)
        return;
    o->exact = grader_job_reference_text(L, j, true);
    o->display = grader_job_reference_text(L, j, false);
    if (lua_type(L, GRADER_S_REF) == LUA_TNUMBER) {
        o->value = lua_tonumber(L, GRADER_S_REF);
        o->has_value = true;
    }
    if (j->q->kind == GRADER_TEXT)
        collect_strings(L, GRADER_S_REF, 0, NULL, &o->texts);
    if (grader_rawfield(L, GRADER_S_Q, "model") == LUA_TSTRING)
        core_strlist_push(&o->texts, lua_tostring(L, -1));
    lua_settop(L, GRADER_S_TOP);
    static const char *const not_phrases[] = {"name",   "feedback", "patterns", "points",
                                              "within", "fuzzy",    NULL};
    if (grader_rawfield(L, GRADER_S_Q, "concepts") == LUA_TTABLE)
        collect_strings(L, -1, 0, not_phrases, &o->phrases);
    lua_settop(L, GRADER_S_TOP);
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
