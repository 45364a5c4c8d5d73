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
 * Uses the job driver (grader_grade.c), rendering (grader_render.c), the
 * calculators' self-tests (grader_calc.c) and the runtime's readers and
 * calls (grader_decl_read.c, grader_call.c, grader_rt_selftest.c); no Lua
 * stack work of its own. A fill starts with the job's fixed slots on the
 * stack (GRADER_S_TOP) and leaves it so.
 */
#include "grader_lua_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXAMPLE_USER "example"

/* Checks that every {name} of a feedback text is set by this variant's
 * params (render's strict rule). */
static void sweep_text(struct lua_State *L, struct grader_job *j, const char *text,
                       const char *label)
{
    char why[400];
    if (!text || !strchr(text, '{'))
        return;
    int top = grader_top(L);
    if (grader_render(L, text, GRADER_R_STRICT, why, sizeof why))
        grader_settop(L, top);
    else
        grader_job_problem(j, "%s %s", label, why);
}

/* Feedback texts of the list Q[list], each entry's field `name` (or the
 * entry itself when it is a string and name is NULL). */
static void sweep_texts(struct lua_State *L, struct grader_job *j, int t, const char *list,
                        const char *name, const char *label)
{
    int lt = grader_tab_open(L, t, list); /* list */
    if (!lt)
        return;
    size_t n = grader_len(L, lt);
    for (size_t i = 1; i <= n; i++) {
        char lab[96];
        snprintf(lab, sizeof lab, "%s %zu feedback", label, i);
        struct grader_dval d;
        int ty = grader_index(L, lt, (long long)i, &d);
        if (ty == GRADER_LT_TAB && name) {
            int e = grader_tab_open_at(L, lt, (long long)i); /* list e */
            if (grader_field(L, e, name, &d) == GRADER_LT_STR)
                sweep_text(L, j, d.str, lab);
        } else if (ty == GRADER_LT_STR && !name) {
            sweep_text(L, j, d.str, lab);
        }
        grader_settop(L, lt);
    }
    grader_tab_close(L, lt);
}

/* Placeholders in every feedback text. */
static void sweep_feedback(struct lua_State *L, struct grader_job *j)
{
    sweep_texts(L, j, GRADER_S_Q, "wrong", "feedback", "wrong");
    sweep_texts(L, j, GRADER_S_Q, "bands", "feedback", "band");
    int why = grader_tab_open(L, GRADER_S_Q, "why"); /* why */
    if (why) {
        size_t n = grader_job_n_choices(L);
        for (size_t i = 1; i <= n; i++) {
            char lab[48];
            snprintf(lab, sizeof lab, "why[%zu]", i);
            struct grader_dval d;
            if (grader_index(L, why, (long long)i, &d) == GRADER_LT_STR)
                sweep_text(L, j, d.str, lab);
        }
        grader_tab_close(L, why);
    }
    int ct = grader_tab_open(L, GRADER_S_Q, "concepts"); /* concepts */
    if (ct) {
        size_t n = grader_len(L, ct);
        for (size_t i = 1; i <= n; i++) {
            int c = grader_tab_open_at(L, ct, (long long)i); /* concepts c */
            if (c) {
                char lab[64];
                snprintf(lab, sizeof lab, "concept %zu feedback", i);
                struct grader_dval d;
                if (grader_field(L, c, "feedback", &d) == GRADER_LT_STR)
                    sweep_text(L, j, d.str, lab);
                snprintf(lab, sizeof lab, "concept %zu: contradicts", i);
                sweep_texts(L, j, c, "contradicts", "feedback", lab);
            }
            grader_settop(L, ct);
        }
        grader_tab_close(L, ct);
    }
}

/* ---- no answer given away ---------------------------------------------------------- */

/* The numeric reference of the job's question: its answer, else p.ref (a
 * lab-linked question's, computed from the run). False when it has none. */
static bool ref_number(struct lua_State *L, double *ref)
{
    struct grader_dval d;
    if (grader_value(L, GRADER_S_REF, &d) == GRADER_LT_NUM) {
        *ref = d.num;
        return isfinite(*ref);
    }
    return grader_type(L, GRADER_S_P) == GRADER_LT_TAB &&
           grader_num_field(L, GRADER_S_P, "ref", ref) && isfinite(*ref);
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
static void leak_check(struct lua_State *L, struct grader_job *j, const struct grader_result *r,
                       const char *what)
{
    if (!r->valid || r->correct || !r->feedback || j->q->kind != GRADER_NUMERIC)
        return;
    double ref;
    char num[64];
    const char *shown = NULL;
    int top = grader_top(L);
    struct grader_dval d;
    if (grader_render(L, j->q->prompt, GRADER_R_KEEP, NULL, 0) && /* prompt */
        grader_value(L, -1, &d) == GRADER_LT_STR)
        shown = d.str;
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
    grader_settop(L, top);
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
static void exam_page_check(struct lua_State *L, struct grader_job *j)
{
    const struct grader_lesson *ls = lesson_of(j);
    double ref;
    if (!ls || !ls->exam || j->q->kind != GRADER_NUMERIC || !ref_number(L, &ref))
        return;
    const char *shown = NULL;
    int top = grader_top(L);
    struct grader_dval d;
    if (grader_render(L, j->q->prompt, GRADER_R_KEEP, NULL, 0) && /* prompt */
        grader_value(L, -1, &d) == GRADER_LT_STR)
        shown = d.str;
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
    grader_settop(L, top);
}

/* Grades a made-up wrong answer (the reference times 1.37, which no
 * declared mistake should be) and checks its feedback with leak_check. */
/* Grades ans as the self-test's own probe, into a result of its own on the
 * heap (j->res_outer keeps the job's, and job_run frees the probe's if the
 * pack's code fails it: the error does not come back here). */
static struct grader_result *probe_grade(struct lua_State *L, struct grader_job *j, const char *ans)
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

static void probe_wrong(struct lua_State *L, struct grader_job *j)
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
    grader_settop(L, GRADER_S_TOP);
}

/* Every `wrong` value of a numeric question, graded as an answer: its
 * feedback must not give the answer away. */
static void wrong_leaks(struct lua_State *L, struct grader_job *j)
{
    double ref;
    if (j->q->kind != GRADER_NUMERIC || j->q->has_grade || !ref_number(L, &ref) ||
        (j->q->integer && ref != floor(ref))) {
        grader_settop(L, GRADER_S_TOP);
        return;
    }
    int w = grader_tab_open(L, GRADER_S_Q, "wrong"); /* wrong */
    if (!w) {
        grader_settop(L, GRADER_S_TOP);
        return;
    }
    size_t n = grader_len(L, w);
    for (size_t i = 1; i <= n; i++) {
        int e = grader_tab_open_at(L, w, (long long)i); /* wrong e */
        if (!e) {
            grader_settop(L, w);
            continue;
        }
        struct grader_dval v;
        int ty = grader_job_push_value(L, j, e, "value", "a wrong value"); /* wrong e v */
        grader_value(L, -1, &v);
        if (ty != GRADER_LT_NUM || !isfinite(v.num)) {
            grader_settop(L, w);
            continue;
        }
        char ans[64];
        core_num_format(ans, sizeof ans, v.num, 17);
        grader_settop(L, w);
        struct grader_result *res = probe_grade(L, j, ans);
        char what[64];
        snprintf(what, sizeof what, "wrong %zu", i);
        leak_check(L, j, res, what);
        probe_done(j, res);
        grader_settop(L, w);
    }
    grader_settop(L, GRADER_S_TOP);
}

/* What the question's kind checks on every variant (numeric: each `wrong`
 * value against the reference). */
static void variant_check(struct lua_State *L, struct grader_job *j)
{
    const struct grader_kind_ops *kind = grader_kind_ops(j->q->kind);
    if (kind->variant_check)
        kind->variant_check(L, j);
    grader_settop(L, GRADER_S_TOP);
}

/* The prompt and every hint rendered for this variant: a placeholder its
 * params do not set is a problem (check and sweep jobs). */
static void render_prompt_hints(struct lua_State *L, struct grader_job *j)
{
    if (grader_render_or_fail(L, j, j->q->prompt, "prompt"))
        grader_settop(L, GRADER_S_TOP);
    int h = grader_tab_open(L, GRADER_S_Q, "hints"); /* hints */
    if (h) {
        size_t n = grader_len(L, h);
        for (size_t i = 1; i <= n; i++) {
            grader_hint_push(L, h, i); /* hints text */
            struct grader_dval d;
            grader_value(L, -1, &d);
            char label[32];
            snprintf(label, sizeof label, "hint %zu", i);
            grader_render_or_fail(L, j, d.str, label); /* hints text [rendered] */
            grader_settop(L, h);
        }
    }
    grader_settop(L, GRADER_S_TOP);
}

/* GRADER_J_CHECK: what the static checks could not see. Problems that leave the
 * rest checkable are recorded; others are raised. */
static void check_fill(struct lua_State *L, struct grader_job *j)
{
    const struct grader_question *q = j->q;
    render_prompt_hints(L, j);
    const struct grader_kind_ops *kind = grader_kind_ops(q->kind);
    if (kind->list && grader_job_n_choices(L) > GRADER_MAX_PICKS)
        grader_job_problem(j, "has %zu %s; at most %d can be lettered a to z",
                           grader_job_n_choices(L), kind->list, GRADER_MAX_PICKS);
    if (j->no_lab || q->sealed)
        return; /* its numbers need a run (checked by the examples that bring one), or it
                   carries no reference (sealed) */
    if (kind->needs_reference && !q->has_grade && grader_type(L, GRADER_S_REF) == GRADER_LT_NIL)
        grader_job_problem(j, "answer gives nothing: a %s question needs a reference", kind->name);
    /* What the sweep checks on every variant, for this one (a question
     * without params has no other: the sweep then adds nothing); its
     * examples are the self-tests' to run. */
    sweep_feedback(L, j);
    grader_settop(L, GRADER_S_TOP);
    variant_check(L, j);
    wrong_leaks(L, j);
    probe_wrong(L, j);
    exam_page_check(L, j);
}

/* GRADER_J_SAMPLE: a design question's graded sample: its answer, the score a
 * person gave it and the tolerance. */
static void sample_answer(struct lua_State *L, struct grader_job *j)
{
    struct grader_dval d;
    if (grader_field(L, GRADER_S_EX, "answer", &d) != GRADER_LT_STR)
        grader_job_fail(L, j, "sample %zu: the answer must be a string", j->example);
    j->graded = core_xstrndup(d.str, d.len);
    double x;
    j->exp_score = grader_num_field(L, GRADER_S_EX, "score", &x) ? x : 0;
    j->tol = grader_num_field(L, GRADER_S_EX, "tol", &x) ? x : GRADER_SAMPLE_TOL;
    j->role[0] = '\0';
    if (grader_field(L, GRADER_S_EX, "role", &d) == GRADER_LT_STR)
        snprintf(j->role, sizeof j->role, "%s", d.str);
}

/* An ordering example's `order` (declared item numbers, e.g. {1, 2, 3} for
 * the right order, the list at slot `order`) as the letters this example
 * student would type for the shuffled display, into letters (room for
 * 2 * GRADER_MAX_PICKS + 1 bytes). */
static void order_letters(struct lua_State *L, struct grader_job *j, int order, char *letters)
{
    size_t n = grader_job_n_choices(L);
    size_t shown[GRADER_MAX_PICKS];
    if (n == 0 || n > GRADER_MAX_PICKS)
        grader_job_fail(L, j, "example %zu: `order` needs an ordering question", j->example);
    grader_order_shuffle(j, n, shown);
    size_t m = grader_len(L, order), at = 0;
    for (size_t i = 1; i <= m && i <= GRADER_MAX_PICKS; i++) {
        struct grader_dval v; /* a number not exact as an integer reads as 0 */
        long long d = grader_index(L, order, (long long)i, &v) == GRADER_LT_NUM ? v.i : 0;
        size_t k = 0;
        while (k < n && (long long)shown[k] + 1 != d)
            k++;
        if (k == n)
            grader_job_fail(L, j, "example %zu: `order` entry %zu is not an item number (1..%zu)",
                            j->example, i, n);
        letters[at++] = (char)('a' + k);
        letters[at++] = ' ';
    }
    letters[at ? at - 1 : 0] = '\0';
}

/* Reads an example's answer (text, number, function(p, ctx), or for an
 * ordering question `order`) into j->graded, and its expected score. */
static void example_answer(struct lua_State *L, struct grader_job *j)
{
    static const int args[] = {GRADER_S_P, GRADER_S_CTX};
    int top = grader_top(L);
    const char *was = j->what;
    j->what = "the example's answer"; /* named in the error, should a call fail */
    int called;
    int ty = grader_push_index_called(L, GRADER_S_EX, 1, args, 2, &called); /* answer */
    if (ty == GRADER_LT_NIL) {
        grader_settop(L, top);
        ty = grader_push_field_called(L, GRADER_S_EX, "answer", args, 2, &called);
    }
    char letters[2 * GRADER_MAX_PICKS + 1];
    bool ordered = false;
    if (ty == GRADER_LT_NIL) {
        grader_settop(L, top);
        int order = grader_tab_open(L, GRADER_S_EX, "order");
        if (order) {
            if (!grader_kind_ops(j->q->kind)->shuffled)
                grader_job_fail(L, j, "example %zu: `order` is only for ordering questions",
                                j->example);
            order_letters(L, j, order, letters);
            ordered = true;
        } else { /* absent (nil, refused below); a file that changed since its check: as
                    the answer */
            ty = grader_push_field_called(L, GRADER_S_EX, "order", args, 2, &called);
        }
    }
    if (called < 0)
        grader_raise(L);
    j->what = called ? NULL : was;
    struct grader_dval d;
    if (ordered) {
        j->graded = core_xstrdup(letters);
    } else if (grader_value(L, -1, &d) == GRADER_LT_STR) {
        j->graded = core_xstrndup(d.str, d.len);
    } else if (d.type == GRADER_LT_NUM) {
        char num[64];
        grader_num_text(&d, num, sizeof num); /* as tostring writes it */
        j->graded = core_xstrdup(num);
    } else {
        grader_job_fail(L, j, "example %zu: the answer must be a string or a number, got %s",
                        j->example, grader_ltype_name(d.type));
    }
    grader_settop(L, top);
    if (grader_index(L, GRADER_S_EX, 2, &d) == GRADER_LT_NIL)
        grader_field(L, GRADER_S_EX, "score", &d);
    if (d.type == GRADER_LT_STR && strcmp(d.str, "invalid") == 0)
        j->exp_invalid = true;
    else if (d.type == GRADER_LT_NUM)
        j->exp_score = d.num;
    else
        grader_job_fail(L, j, "example %zu: the expected score must be a fraction or \"invalid\"",
                        j->example);
}

/* The examples that hold for every variant: an answer computed from p
 * (a function) without fixed params or a pretend run. */
static void sweep_examples(struct lua_State *L, struct grader_job *j)
{
    int exs = grader_tab_open(L, GRADER_S_Q, "examples"); /* exs */
    if (!exs) {
        grader_settop(L, GRADER_S_TOP);
        return;
    }
    size_t n = grader_len(L, exs);
    for (size_t e = 1; e <= n; e++) {
        int ex = grader_tab_open_at(L, exs, (long long)e); /* exs ex */
        if (!ex) {
            grader_settop(L, exs);
            continue;
        }
        bool fixed = grader_field_type(L, ex, "params") != GRADER_LT_NIL ||
                     grader_field_type(L, ex, "lab") != GRADER_LT_NIL;
        struct grader_dval d;
        bool at = grader_index(L, ex, 1, &d) == GRADER_LT_FUN ||
                  grader_field_type(L, ex, "answer") == GRADER_LT_FUN;
        if (fixed || !at) {
            grader_settop(L, exs);
            continue;
        }
        grader_slot_set(L, GRADER_S_EX, ex);
        grader_settop(L, exs);
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
        grader_slot_set(L, GRADER_S_EX, 0);
        grader_settop(L, exs);
    }
    grader_settop(L, GRADER_S_TOP);
}

/* GRADER_J_SWEEP: everything one variant can get wrong. */
static void sweep_fill(struct lua_State *L, struct grader_job *j)
{
    render_prompt_hints(L, j);
    if (j->no_lab || j->q->sealed)
        return; /* its numbers need a run (the examples that bring one check them), or it
                   carries nothing that grades (sealed) */
    sweep_feedback(L, j);
    grader_settop(L, GRADER_S_TOP);
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
static void example_fill(struct lua_State *L, struct grader_job *j)
{
    example_answer(L, j);
    grader_job_grade(L, j, j->graded);
    char what[80];
    snprintf(what, sizeof what, "example %zu '%.40s'", j->example, j->graded);
    leak_check(L, j, j->res, what);
    grader_settop(L, GRADER_S_TOP);
    if (j->q->lab && j->res->valid)
        probe_wrong(L, j);
}

/* GRADER_J_SAMPLE: grades design sample j->example. */
static void sample_fill(struct lua_State *L, struct grader_job *j)
{
    sample_answer(L, j);
    grader_job_grade(L, j, j->graded);
}

/* GRADER_J_REF: grades the reference answer, as text a student could type. */
static void ref_fill(struct lua_State *L, struct grader_job *j)
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
    static const grader_job_fill fills[] = {[GRADER_J_EXAMPLE] = example_fill,
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
