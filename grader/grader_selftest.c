/*
 * grader_selftest.c — what pack check runs on every question: the checks
 * that need the question's code, the self-tests (the reference answer must
 * score full marks; each example must score what it says), one variant of
 * the sweep, and the graded samples of a design question.
 *
 * Each is a job of grader_grade.c run for the example student with its own
 * `fill` (what it does once the question, ctx, params, choices and
 * reference are ready). Problems that leave the rest checkable are recorded
 * and the job goes on; others raise, and are reported as the question's.
 *
 * Uses the job driver (grader_grade.c), rendering (grader_render.c) and the
 * calculators' self-tests (grader_calc.c).
 */
#include "grader_lua_internal.h"

#include <lauxlib.h>
#include <lua.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXAMPLE_USER "example"

/* Checks that every {name} of a feedback text is set by this variant's
 * params (render's strict rule). */
static void sweep_text(lua_State *L, struct grader_job *j, const char *text, const char *label)
{
    char why[400];
    if (!text || !strchr(text, '{'))
        return;
    if (grader_render(L, text, GRADER_R_STRICT, why, sizeof why))
        lua_pop(L, 1);
    else
        grader_job_problem(j, "%s %s", label, why);
}

/* Feedback texts of the list Q[list], each entry's field `name` (or the
 * entry itself when it is a string and name is NULL). */
static void sweep_texts(lua_State *L, struct grader_job *j, int t, const char *list,
                        const char *name, const char *label)
{
    if (grader_rawfield(L, t, list) != LUA_TTABLE) { /* list */
        lua_pop(L, 1);
        return;
    }
    int lt = lua_gettop(L);
    size_t n = lua_rawlen(L, lt);
    for (size_t i = 1; i <= n; i++) {
        char lab[96];
        snprintf(lab, sizeof lab, "%s %zu feedback", label, i);
        int ty = lua_rawgeti(L, lt, (lua_Integer)i); /* list e */
        if (ty == LUA_TTABLE && name && grader_rawfield(L, -1, name) == LUA_TSTRING)
            sweep_text(L, j, lua_tostring(L, -1), lab);
        else if (ty == LUA_TSTRING && !name)
            sweep_text(L, j, lua_tostring(L, -1), lab);
        lua_settop(L, lt);
    }
    lua_pop(L, 1);
}

/* Placeholders in every feedback text. */
static void sweep_feedback(lua_State *L, struct grader_job *j)
{
    sweep_texts(L, j, GRADER_S_Q, "wrong", "feedback", "wrong");
    sweep_texts(L, j, GRADER_S_Q, "bands", "feedback", "band");
    if (grader_rawfield(L, GRADER_S_Q, "why") == LUA_TTABLE) { /* why */
        size_t n = grader_job_n_choices(L);
        for (size_t i = 1; i <= n; i++) {
            char lab[48];
            snprintf(lab, sizeof lab, "why[%zu]", i);
            if (lua_rawgeti(L, -1, (lua_Integer)i) == LUA_TSTRING) /* why s */
                sweep_text(L, j, lua_tostring(L, -1), lab);
            lua_pop(L, 1);
        }
    }
    lua_pop(L, 1);
    if (grader_rawfield(L, GRADER_S_Q, "concepts") == LUA_TTABLE) { /* concepts */
        int ct = lua_gettop(L);
        size_t n = lua_rawlen(L, ct);
        for (size_t i = 1; i <= n; i++) {
            if (lua_rawgeti(L, ct, (lua_Integer)i) == LUA_TTABLE) { /* concepts c */
                char lab[64];
                snprintf(lab, sizeof lab, "concept %zu feedback", i);
                if (grader_rawfield(L, -1, "feedback") == LUA_TSTRING)
                    sweep_text(L, j, lua_tostring(L, -1), lab);
                lua_pop(L, 1);
                snprintf(lab, sizeof lab, "concept %zu: contradicts", i);
                sweep_texts(L, j, lua_gettop(L), "contradicts", "feedback", lab);
            }
            lua_settop(L, ct);
        }
    }
    lua_pop(L, 1);
}

/* ---- no answer given away ---------------------------------------------------------- */

/* The numeric reference of the job's question: its answer, else p.ref (a
 * lab-linked question's, computed from the run). False when it has none. */
static bool ref_number(lua_State *L, double *ref)
{
    if (lua_type(L, GRADER_S_REF) == LUA_TNUMBER) {
        *ref = lua_tonumber(L, GRADER_S_REF);
        return isfinite(*ref);
    }
    bool ok = false;
    if (lua_type(L, GRADER_S_P) == LUA_TTABLE &&
        grader_rawfield(L, GRADER_S_P, "ref") == LUA_TNUMBER) { /* ref */
        *ref = lua_tonumber(L, -1);
        ok = isfinite(*ref);
    }
    if (lua_type(L, GRADER_S_P) == LUA_TTABLE)
        lua_pop(L, 1);
    return ok;
}

static bool num_char(char c)
{
    return (c >= '0' && c <= '9') || c == '.';
}

/* Whether `num` stands in text as a number of its own (not a part of a
 * longer one: "2.95" is not in "12.95" nor in "2.951"). */
static bool has_number(const char *text, const char *num)
{
    size_t n = strlen(num);
    for (const char *at = text; (at = strstr(at, num)) != NULL; at++) {
        bool before =
            at > text && (num_char(at[-1]) || (at[-1] == '-' && at - 1 > text && num_char(at[-2])));
        bool after = num_char(at[n]) && !(at[n] == '.' && !(at[n + 1] >= '0' && at[n + 1] <= '9'));
        if (!before && !after)
            return true;
    }
    return false;
}

/* The reference as the front ends and graders write it: 3 to 6
 * significant figures, our way and %g's (5.12e+09). Returns the one that
 * text shows and `shown` (the prompt) does not, else NULL. */
static const char *shows_reference(const char *text, const char *shown, double ref, char *buf,
                                   size_t n)
{
    /* As the release proof does, only numbers of 3 digits or more: a
     * reference of 4 or 32 is any text's (32 threads, 4 bytes). */
    grader_number_format(ref, 6, buf, n);
    size_t digits = 0;
    for (const char *c = buf; *c && *c != 'e'; c++)
        digits += *c >= '0' && *c <= '9';
    if (digits < 3)
        return NULL;
    for (int sig = 3; sig <= 6; sig++) {
        for (int style = 0; style < 2; style++) {
            if (style == 0)
                grader_number_format(ref, sig, buf, n);
            else
                snprintf(buf, n, "%.*g", sig, ref);
            size_t d = 0; /* "8" is 8.008 to 3 figures: too short to tell */
            for (const char *c = buf; *c && *c != 'e'; c++)
                d += *c >= '0' && *c <= '9';
            if (d >= 3 && has_number(text, buf) && !(shown && has_number(shown, buf)))
                return buf;
        }
    }
    return NULL;
}

/* A wrong answer's feedback must not give the answer away: the reference
 * (as a number the prompt does not show) and the worked solution come with
 * a right answer, a give-up or the last try, never with a wrong answer.
 * `what` names the answer checked. */
static void leak_check(lua_State *L, struct grader_job *j, const struct grader_result *r,
                       const char *what)
{
    if (!r->valid || r->correct || !r->feedback || j->q->kind != GRADER_NUMERIC)
        return;
    double ref;
    char num[64];
    const char *shown = NULL;
    bool pushed = grader_render(L, j->q->prompt, GRADER_R_KEEP, NULL, 0); /* prompt */
    if (pushed)
        shown = lua_tostring(L, -1);
    if (ref_number(L, &ref) && shows_reference(r->feedback, shown, ref, num, sizeof num))
        grader_job_problem(j,
                           "the feedback of a wrong answer (%s) gives the reference %s away: "
                           "keep it for a right answer, a give-up or the last try (%.120s)",
                           what, num, r->feedback);
    else if (r->reference && strlen(r->reference) >= 12 && strstr(r->feedback, r->reference))
        grader_job_problem(j,
                           "the feedback of a wrong answer (%s) holds the worked solution "
                           "'%.80s': return it as solution = ..., not in the feedback",
                           what, r->reference);
    if (pushed)
        lua_pop(L, 1);
}

/* The lesson of the job's question. */
static const struct grader_lesson *lesson_of(const struct grader_job *j)
{
    const struct grader_pack_info *info = grader_pack_info(j->p);
    for (size_t l = 0; l < info->n_lessons; l++) {
        const struct grader_lesson *ls = &info->lessons[l];
        if (j->q >= ls->questions && j->q < ls->questions + ls->n_questions)
            return ls;
    }
    return NULL;
}

/* An exam's page must not work an example whose numbers a student's
 * variant can draw: the page the question follows (what teaches it) would
 * hand that student the answer. */
static void exam_page_check(lua_State *L, struct grader_job *j)
{
    const struct grader_lesson *ls = lesson_of(j);
    double ref;
    if (!ls || !ls->exam || j->q->kind != GRADER_NUMERIC || !ref_number(L, &ref))
        return;
    const char *shown = NULL;
    bool pushed = grader_render(L, j->q->prompt, GRADER_R_KEEP, NULL, 0); /* prompt */
    if (pushed)
        shown = lua_tostring(L, -1);
    for (size_t i = 0; i < ls->n_pages; i++) {
        if ((int)i != j->q->page_after)
            continue;
        char num[64];
        const char *text = ls->pages[i].markdown;
        if (text && shows_reference(text, shown, ref, num, sizeof num)) {
            grader_job_problem(j,
                               "exam page %zu ('%.60s') works this variant's answer %s: draw "
                               "no numbers the pages work, or work other numbers there",
                               i + 1, ls->pages[i].title ? ls->pages[i].title : "", num);
            break;
        }
    }
    if (pushed)
        lua_pop(L, 1);
}

/* Grades a made-up wrong answer (the reference times 1.37, which no
 * declared mistake should be) and checks its feedback with leak_check. */
/* Grades ans as the self-test's own probe, into a result of its own on the
 * heap (j->res_outer keeps the job's, and job_run frees the probe's if the
 * pack's code fails it: the error does not come back here). */
static struct grader_result *probe_grade(lua_State *L, struct grader_job *j, const char *ans)
{
    struct grader_result *res = core_xcalloc(1, sizeof *res);
    j->probe = res;
    j->res_outer = j->res;
    j->res = res;
    grader_job_grade(L, j, ans);
    j->res = j->res_outer;
    j->res_outer = NULL;
    return res;
}

static void probe_done(struct grader_job *j, struct grader_result *res)
{
    j->probe = NULL;
    grader_result_fini(res);
    free(res);
}

static void probe_wrong(lua_State *L, struct grader_job *j)
{
    double ref;
    if (j->q->kind != GRADER_NUMERIC || !ref_number(L, &ref) || ref == 0 ||
        (j->q->integer && ref != floor(ref))) /* a problem of its own, found elsewhere */
        return;
    char ans[64];
    grader_number_format(ref * 1.37, 6, ans, sizeof ans);
    struct grader_result *res = probe_grade(L, j, ans);
    char what[96];
    snprintf(what, sizeof what, "'%s'", ans);
    leak_check(L, j, res, what);
    probe_done(j, res);
    lua_settop(L, GRADER_S_TOP);
}

/* Every `wrong` value of a numeric question, graded as an answer: its
 * feedback must not give the answer away. */
static void wrong_leaks(lua_State *L, struct grader_job *j)
{
    double ref;
    if (j->q->kind != GRADER_NUMERIC || j->q->has_grade || !ref_number(L, &ref) ||
        (j->q->integer && ref != floor(ref)) ||
        grader_rawfield(L, GRADER_S_Q, "wrong") != LUA_TTABLE) { /* wrong */
        lua_settop(L, GRADER_S_TOP);
        return;
    }
    int w = lua_gettop(L);
    size_t n = lua_rawlen(L, w);
    for (size_t i = 1; i <= n; i++) {
        if (lua_rawgeti(L, w, (lua_Integer)i) != LUA_TTABLE) { /* wrong e */
            lua_settop(L, w);
            continue;
        }
        int ty = grader_job_push_value(L, j, -1, "value", "a wrong value"); /* wrong e v */
        if (ty != LUA_TNUMBER || !isfinite(lua_tonumber(L, -1))) {
            lua_settop(L, w);
            continue;
        }
        char ans[64];
        core_num_format(ans, sizeof ans, lua_tonumber(L, -1), 17);
        lua_settop(L, w);
        struct grader_result *res = probe_grade(L, j, ans);
        char what[64];
        snprintf(what, sizeof what, "wrong %zu", i);
        leak_check(L, j, res, what);
        probe_done(j, res);
        lua_settop(L, w);
    }
    lua_settop(L, GRADER_S_TOP);
}

/* What the question's kind checks on every variant (numeric: each `wrong`
 * value against the reference). */
static void variant_check(lua_State *L, struct grader_job *j)
{
    const struct grader_kind_ops *kind = grader_kind_ops(j->q->kind);
    if (kind->variant_check)
        kind->variant_check(L, j);
    lua_settop(L, GRADER_S_TOP);
}

/* GRADER_J_CHECK: what the static checks could not see. Problems that leave the
 * rest checkable are recorded; others are raised. */
static void check_fill(lua_State *L, struct grader_job *j)
{
    const struct grader_question *q = j->q;
    if (grader_render_or_fail(L, j, q->prompt, "prompt"))
        lua_pop(L, 1);
    if (grader_rawfield(L, GRADER_S_Q, "hints") == LUA_TTABLE) {
        size_t n = lua_rawlen(L, -1);
        for (size_t i = 1; i <= n; i++) {
            grader_hint_push(L, lua_gettop(L), i);
            char label[32];
            snprintf(label, sizeof label, "hint %zu", i);
            if (grader_render_or_fail(L, j, lua_tostring(L, -1), label))
                lua_pop(L, 1);
            lua_pop(L, 1);
        }
    }
    lua_pop(L, 1);
    const struct grader_kind_ops *kind = grader_kind_ops(q->kind);
    if (kind->list && grader_job_n_choices(L) > GRADER_MAX_PICKS)
        grader_job_problem(j, "has %zu %s; at most %d can be lettered a to z",
                           grader_job_n_choices(L), kind->list, GRADER_MAX_PICKS);
    if (j->no_lab || q->sealed)
        return; /* its numbers need a run (checked by the examples that bring one), or it
                   carries no reference (sealed) */
    if (kind->needs_reference && !q->has_grade && lua_isnil(L, GRADER_S_REF))
        grader_job_problem(j, "answer gives nothing: a %s question needs a reference", kind->name);
    /* What the sweep checks on every variant, for this one (a question
     * without params has no other: the sweep then adds nothing); its
     * examples are the self-tests' to run. */
    sweep_feedback(L, j);
    lua_settop(L, GRADER_S_TOP);
    variant_check(L, j);
    wrong_leaks(L, j);
    probe_wrong(L, j);
    exam_page_check(L, j);
}

/* GRADER_J_SAMPLE: a design question's graded sample: its answer, the score a
 * person gave it and the tolerance. */
static void sample_answer(lua_State *L, struct grader_job *j)
{
    if (grader_rawfield(L, GRADER_S_EX, "answer") != LUA_TSTRING)
        grader_job_fail(L, j, "sample %zu: the answer must be a string", j->example);
    j->graded = grader_lua_strdup(L, -1);
    lua_pop(L, 1);
    j->exp_score =
        grader_rawfield(L, GRADER_S_EX, "score") == LUA_TNUMBER ? lua_tonumber(L, -1) : 0;
    lua_pop(L, 1);
    j->tol = grader_rawfield(L, GRADER_S_EX, "tol") == LUA_TNUMBER ? lua_tonumber(L, -1)
                                                                   : GRADER_SAMPLE_TOL;
    lua_pop(L, 1);
    j->role[0] = '\0';
    if (grader_rawfield(L, GRADER_S_EX, "role") == LUA_TSTRING)
        snprintf(j->role, sizeof j->role, "%s", lua_tostring(L, -1));
    lua_pop(L, 1);
}

/* An ordering example's `order` (declared item numbers, e.g. {1, 2, 3} for
 * the right order) as the letters this example student would type for the
 * shuffled display. Pushes the answer text. */
static void push_order_letters(lua_State *L, struct grader_job *j, int order_idx)
{
    size_t n = grader_job_n_choices(L);
    size_t shown[GRADER_MAX_PICKS];
    if (n == 0 || n > GRADER_MAX_PICKS)
        grader_job_fail(L, j, "example %zu: `order` needs an ordering question", j->example);
    grader_order_shuffle(j, n, shown);
    char letters[2 * GRADER_MAX_PICKS + 1];
    size_t m = lua_rawlen(L, order_idx), at = 0;
    for (size_t i = 1; i <= m && i <= GRADER_MAX_PICKS; i++) {
        lua_Integer d = lua_rawgeti(L, order_idx, (lua_Integer)i) == LUA_TNUMBER
                            ? lua_tointeger(L, -1)
                            : 0; /* order d */
        lua_pop(L, 1);
        size_t k = 0;
        while (k < n && (lua_Integer)shown[k] + 1 != d)
            k++;
        if (k == n)
            grader_job_fail(L, j, "example %zu: `order` entry %zu is not an item number (1..%zu)",
                            j->example, i, n);
        letters[at++] = (char)('a' + k);
        letters[at++] = ' ';
    }
    letters[at ? at - 1 : 0] = '\0';
    lua_pushstring(L, letters); /* answer */
}

/* Reads an example's answer (text, number, function(p, ctx), or for an
 * ordering question `order`) into j->graded. */
static void example_answer(lua_State *L, struct grader_job *j)
{
    if (lua_rawgeti(L, GRADER_S_EX, 1) == LUA_TNIL) {
        lua_pop(L, 1);
        grader_rawfield(L, GRADER_S_EX, "answer");
    }
    if (lua_type(L, -1) == LUA_TNIL && grader_rawfield(L, GRADER_S_EX, "order") == LUA_TTABLE) {
        if (!grader_kind_ops(j->q->kind)->shuffled)
            grader_job_fail(L, j, "example %zu: `order` is only for ordering questions",
                            j->example);
        push_order_letters(L, j, lua_gettop(L));
        lua_replace(L, -3); /* drop nil and the order table under the letters */
        lua_pop(L, 1);
    } else if (lua_type(L, -1) == LUA_TNIL) {
        lua_pop(L, 1); /* the absent `order` */
    }
    if (lua_type(L, -1) == LUA_TFUNCTION) {
        lua_pushvalue(L, GRADER_S_P);
        lua_pushvalue(L, GRADER_S_CTX);
        grader_job_call(L, j, "the example's answer", 2, 1);
    }
    if (lua_type(L, -1) != LUA_TSTRING && lua_type(L, -1) != LUA_TNUMBER)
        grader_job_fail(L, j, "example %zu: the answer must be a string or a number, got %s",
                        j->example, luaL_typename(L, -1));
    j->graded = grader_lua_strdup(L, -1);
    lua_pop(L, 1);
    if (lua_rawgeti(L, GRADER_S_EX, 2) == LUA_TNIL) {
        lua_pop(L, 1);
        grader_rawfield(L, GRADER_S_EX, "score");
    }
    if (lua_type(L, -1) == LUA_TSTRING && strcmp(lua_tostring(L, -1), "invalid") == 0)
        j->exp_invalid = true;
    else if (lua_type(L, -1) == LUA_TNUMBER)
        j->exp_score = lua_tonumber(L, -1);
    else
        grader_job_fail(L, j, "example %zu: the expected score must be a fraction or \"invalid\"",
                        j->example);
    lua_pop(L, 1);
}

/* The examples that hold for every variant: an answer computed from p
 * (a function) without fixed params or a pretend run. */
static void sweep_examples(lua_State *L, struct grader_job *j)
{
    if (grader_rawfield(L, GRADER_S_Q, "examples") != LUA_TTABLE) { /* exs */
        lua_settop(L, GRADER_S_TOP);
        return;
    }
    int exs = lua_gettop(L);
    size_t n = lua_rawlen(L, exs);
    for (size_t e = 1; e <= n; e++) {
        if (lua_rawgeti(L, exs, (lua_Integer)e) != LUA_TTABLE) { /* exs ex */
            lua_settop(L, exs);
            continue;
        }
        int ex = lua_gettop(L);
        bool fixed = grader_rawfield(L, ex, "params") != LUA_TNIL ||
                     grader_rawfield(L, ex, "lab") != LUA_TNIL;
        int at = lua_rawgeti(L, ex, 1) == LUA_TFUNCTION ||
                 grader_rawfield(L, ex, "answer") == LUA_TFUNCTION;
        lua_settop(L, ex);
        if (fixed || !at) {
            lua_settop(L, exs);
            continue;
        }
        lua_replace(L, GRADER_S_EX); /* exs */
        j->example = e;
        free(j->graded);
        j->graded = NULL;
        j->exp_invalid = false;
        example_answer(L, j);
        struct grader_result res;
        memset(&res, 0, sizeof res);
        struct grader_result *keep = j->res;
        j->res = &res;
        grader_job_grade(L, j, j->graded);
        j->res = keep;
        j->n_examples_run++;
        char what[80];
        snprintf(what, sizeof what, "example %zu '%.40s'", e, j->graded);
        leak_check(L, j, &res, what);
        bool ok = j->exp_invalid ? !res.valid
                                 : res.valid && res.max > 0 &&
                                       fabs(res.score / res.max - j->exp_score) <= 1e-9;
        if (!ok) {
            char want[32], got[32];
            if (j->exp_invalid)
                snprintf(want, sizeof want, "invalid");
            else
                snprintf(want, sizeof want, "%.6g", j->exp_score);
            if (!res.valid)
                snprintf(got, sizeof got, "invalid");
            else
                snprintf(got, sizeof got, "%.6g", res.max > 0 ? res.score / res.max : 0);
            grader_job_problem(j, "example %zu ('%.40s'): expected %s, got %s (%.100s)", e,
                               j->graded ? j->graded : "", want, got,
                               res.feedback ? res.feedback : "");
        }
        grader_result_fini(&res);
        lua_pushnil(L);
        lua_replace(L, GRADER_S_EX);
        lua_settop(L, exs);
    }
    lua_settop(L, GRADER_S_TOP);
}

/* GRADER_J_SWEEP: everything one variant can get wrong. */
static void sweep_fill(lua_State *L, struct grader_job *j)
{
    if (grader_render_or_fail(L, j, j->q->prompt, "prompt"))
        lua_pop(L, 1);
    if (grader_rawfield(L, GRADER_S_Q, "hints") == LUA_TTABLE) { /* hints */
        size_t n = lua_rawlen(L, -1);
        for (size_t i = 1; i <= n; i++) {
            grader_hint_push(L, lua_gettop(L), i); /* hints h */
            char label[32];
            snprintf(label, sizeof label, "hint %zu", i);
            if (grader_render_or_fail(L, j, lua_tostring(L, -1), label))
                lua_pop(L, 1);
            lua_pop(L, 1);
        }
    }
    lua_settop(L, GRADER_S_TOP);
    if (j->no_lab || j->q->sealed)
        return; /* its numbers need a run (the examples that bring one check them), or it
                   carries nothing that grades (sealed) */
    sweep_feedback(L, j);
    lua_settop(L, GRADER_S_TOP);
    variant_check(L, j);
    wrong_leaks(L, j);
    probe_wrong(L, j);
    exam_page_check(L, j);
    sweep_examples(L, j);
}

/* GRADER_J_EXAMPLE: grades example j->example; a wrong one's feedback must
 * not give the answer away, nor that of a made-up wrong answer for the
 * same numbers (an example that brings a pretend run is the only way a
 * lab-linked question is graded by pack check). */
static void example_fill(lua_State *L, struct grader_job *j)
{
    example_answer(L, j);
    grader_job_grade(L, j, j->graded);
    char what[80];
    snprintf(what, sizeof what, "example %zu '%.40s'", j->example, j->graded);
    leak_check(L, j, j->res, what);
    lua_settop(L, GRADER_S_TOP);
    if (j->q->lab && j->res->valid)
        probe_wrong(L, j);
}

/* GRADER_J_SAMPLE: grades design sample j->example. */
static void sample_fill(lua_State *L, struct grader_job *j)
{
    sample_answer(L, j);
    grader_job_grade(L, j, j->graded);
}

/* GRADER_J_REF: grades the reference answer, as text a student could type. */
static void ref_fill(lua_State *L, struct grader_job *j)
{
    if (j->no_lab) {
        j->skip = true;
        return;
    }
    j->graded = grader_job_reference_text(L, j, true);
    if (!j->graded) {
        j->skip = true;
        return;
    }
    grader_job_grade(L, j, j->graded);
}

/* A job on question qi of p for the example student. */
static struct grader_job example_job(struct grader_pack *p, size_t qi, enum grader_job_mode mode,
                                     int variant)
{
    static void (*const fills[])(lua_State *,
                                 struct grader_job *) = {[GRADER_J_EXAMPLE] = example_fill,
                                                         [GRADER_J_REF] = ref_fill,
                                                         [GRADER_J_CHECK] = check_fill,
                                                         [GRADER_J_SWEEP] = sweep_fill,
                                                         [GRADER_J_SAMPLE] = sample_fill};
    const struct grader_qx *x = &p->qx[qi];
    return (struct grader_job){.p = p,
                               .qx = x,
                               .q = x->q,
                               .mode = mode,
                               .fill = fills[mode],
                               .user = EXAMPLE_USER,
                               .variant = variant};
}

/* Pushes "file:line: question ID: [label: ]msg", without saying the first
 * part twice when msg already starts with it. */
static void push_problem(struct core_strlist *problems, const struct grader_question *q,
                         const char *label, const char *msg)
{
    char prefix[200];
    snprintf(prefix, sizeof prefix, "%s:%d: question %s: ", q->file, q->line, q->id);
    grader_problem_push(problems, prefix, NULL, label, msg);
}

int grader_question_check(struct grader_pack *p, size_t qi, struct core_strlist *problems,
                          int *first_code)
{
    const struct grader_qx *x = &p->qx[qi];
    struct grader_job j = example_job(p, qi, GRADER_J_CHECK, 1);
    j.problems = problems;
    core_buf_init(&j.vkey);
    struct core_err err;
    int rc = grader_job_run(&j, &err);
    if (rc && x->q->has_params) { /* name the variant, as the sweep does */
        char label[200];
        if (j.vkey.len)
            snprintf(label, sizeof label, "variant 1 (%.150s): ", j.vkey.data);
        else
            snprintf(label, sizeof label, "variant 1: ");
        char prefix[200];
        snprintf(prefix, sizeof prefix, "%s:%d: question %s: ", x->q->file, x->q->line, x->q->id);
        struct core_buf b;
        core_buf_init(&b);
        core_buf_puts(&b, label);
        core_buf_puts(&b, strncmp(err.msg, prefix, strlen(prefix)) == 0 ? err.msg + strlen(prefix)
                                                                        : err.msg);
        core_err_set(&err, err.code, "%s", b.data); /* made to fit, the reason whole */
        core_buf_fini(&b);
    }
    core_buf_fini(&j.vkey);
    if (j.slim_missing) { /* grade from the whole file from now on */
        struct grader_qx *mx = &p->qx[qi];
        mx->has_slim = false;
        core_buf_reset(&mx->slim);
        grader_linemap_fini(&mx->map);
    }
    if (rc) {
        push_problem(problems, x->q, NULL, err.msg);
        j.n_problems++;
        if (first_code && !*first_code)
            *first_code = rc;
    }
    if (j.n_problems && first_code && !*first_code)
        *first_code = CORE_ERR_INVALID;
    return j.n_problems;
}

/* The first line of a feedback, shortened, for a one-line message. */
static void short_feedback(const char *fb, char *out, size_t n)
{
    size_t k = 0;
    for (; fb && fb[k] && fb[k] != '\n' && k + 1 < n && k < 100; k++)
        out[k] = fb[k];
    out[k] = '\0';
    if (fb && fb[k] && fb[k] != '\n' && k >= 100)
        snprintf(out + k, n - k, "...");
}

int grader_variant_check(struct grader_pack *p, size_t qi, int variant,
                         struct core_strlist *problems, char **key, size_t *examples_run)
{
    const struct grader_qx *x = &p->qx[qi];
    struct grader_job j = example_job(p, qi, GRADER_J_SWEEP, variant);
    j.problems = problems;
    core_buf_init(&j.vkey);
    struct core_err err;
    int rc = grader_job_run(&j, &err);
    if (rc) {
        char prefix[300];
        snprintf(prefix, sizeof prefix, "%s:%d: question %s: ", x->q->file, x->q->line, x->q->id);
        char label[200];
        if (j.vkey.len)
            snprintf(label, sizeof label, "variant %d (%.150s)", variant, j.vkey.data);
        else
            snprintf(label, sizeof label, "variant %d", variant);
        grader_problem_push(problems, prefix, NULL, label, err.msg);
        j.n_problems++;
    }
    *key = rc == 0 || j.vkey.len ? core_xstrdup(j.vkey.data ? j.vkey.data : "") : NULL;
    if (examples_run)
        *examples_run = j.n_examples_run;
    core_buf_fini(&j.vkey);
    free(j.graded);
    return j.n_problems;
}

int grader_sample_grade(struct grader_pack *p, size_t qi, size_t k, struct grader_sample_out *out,
                        struct core_err *err)
{
    memset(out, 0, sizeof *out);
    struct grader_result res;
    memset(&res, 0, sizeof res);
    struct grader_job j = example_job(p, qi, GRADER_J_SAMPLE, 1);
    j.example = k;
    j.res = &res;
    int rc = grader_job_run(&j, err);
    if (rc == 0) {
        out->valid = res.valid;
        out->got = res.valid && res.max > 0 ? res.score / res.max : 0;
        out->want = j.exp_score;
        out->tol = j.tol;
        char fb[128];
        short_feedback(res.feedback, fb, sizeof fb);
        out->feedback = core_xstrdup(fb);
        out->answer = j.graded;
        j.graded = NULL;
        memcpy(out->role, j.role, sizeof out->role);
    }
    free(j.graded);
    grader_result_fini(&res);
    return rc;
}

static void outcome_text(const struct grader_result *r, char *buf, size_t n)
{
    if (!r->valid)
        snprintf(buf, n, "invalid");
    else
        snprintf(buf, n, "%.6g", r->max > 0 ? r->score / r->max : 0);
}

int grader_pack_selftest(struct grader_pack *p, struct core_strlist *problems, size_t *n_run)
{
    struct core_strlist local;
    core_strlist_init(&local);
    if (!problems)
        problems = &local;
    int failures = 0;
    size_t runs = 0;
    for (size_t i = 0; p && i < p->n_qx && !grader_pack_budget_spent(p, NULL, 0); i++) {
        const struct grader_qx *x = &p->qx[i];
        if (x->bad || x->file == SIZE_MAX || x->q->sealed) /* sealed: nothing to grade with */
            continue;
        const struct grader_question *q = x->q;
        for (size_t e = 0; e <= q->n_examples && !grader_pack_budget_spent(p, NULL, 0); e++) {
            struct grader_result res;
            memset(&res, 0, sizeof res);
            struct grader_job j = example_job(p, i, e == 0 ? GRADER_J_REF : GRADER_J_EXAMPLE, 1);
            j.example = e;
            j.res = &res;
            j.problems = problems; /* what leak_check finds */
            struct core_err err;
            int rc = grader_job_run(&j, &err);
            failures += (int)j.n_problems;
            char label[64];
            if (e == 0)
                snprintf(label, sizeof label, "reference answer");
            else
                snprintf(label, sizeof label, "example %zu", e);
            if (rc) {
                runs++;
                failures++;
                push_problem(problems, q, label, err.msg);
            } else if (!j.skip) {
                runs++;
                char got[32], fb[128];
                outcome_text(&res, got, sizeof got);
                short_feedback(res.feedback, fb, sizeof fb);
                if (e == 0) {
                    if (!res.valid || !res.correct) {
                        failures++;
                        core_strlist_pushf(problems,
                                           "%s:%d: question %s: the reference answer '%.60s' "
                                           "scores %s, expected full marks (%s)",
                                           q->file, q->line, q->id, j.graded ? j.graded : "", got,
                                           fb);
                    }
                } else {
                    bool ok = j.exp_invalid ? !res.valid
                                            : res.valid && res.max > 0 &&
                                                  fabs(res.score / res.max - j.exp_score) <= 1e-9;
                    if (!ok) {
                        failures++;
                        char want[32];
                        if (j.exp_invalid)
                            snprintf(want, sizeof want, "invalid");
                        else
                            snprintf(want, sizeof want, "%.6g", j.exp_score);
                        core_strlist_pushf(problems,
                                           "%s:%d: question %s: example %zu ('%.40s'): expected "
                                           "%s, got %s (%s)",
                                           q->file, q->line, q->id, e, j.graded ? j.graded : "",
                                           want, got, fb);
                    }
                }
            }
            free(j.graded);
            grader_result_fini(&res);
        }
    }
    failures += grader_calc_selftest(p, problems, &runs);
    if (n_run)
        *n_run = runs;
    core_strlist_fini(&local);
    return failures;
}
