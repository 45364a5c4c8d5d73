/*
 * grader_kind_text.c — the kinds graded by the private text graders of
 * wb.lua: text (short text against accepted answers and Lua patterns) and
 * design (free text read by a rubric of concepts: phrases, patterns and
 * near groups, with contradictions and feedback per missed concept).
 *
 * A design answer's score is the rubric's reading of it: automatic, and
 * provisional until a person's score stands beside it. Its concepts are
 * shown to the student for self-scoring, and pack check grades its samples
 * (answers a person scored) to see that the rubric agrees.
 *
 * Uses the job (grader_grade.c), the field schema (grader_schema.c) and the
 * wb library's private graders.
 */
#include "grader_lua_internal.h"

#include <lauxlib.h>
#include <lua.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the rubric of a design question --------------------------------------------------------- */

static const struct grader_fspec concept_fields[] = {
    {"name", GRADER_T_STR},      {"points", GRADER_T_NUM},   {"match", GRADER_T_STRS},
    {"patterns", GRADER_T_STRS}, {"near", GRADER_T_TAB},     {"contradicts", GRADER_T_TAB},
    {"fuzzy", GRADER_T_BOOL},    {"feedback", GRADER_T_STR}, {NULL, 0}};

static const struct grader_fspec near_fields[] = {{"within", GRADER_T_NUM}, {NULL, 0}};

static const struct grader_fspec contradicts_fields[] = {{"match", GRADER_T_STRS},
                                                         {"patterns", GRADER_T_STRS},
                                                         {"near", GRADER_T_TAB},
                                                         {"feedback", GRADER_T_STR},
                                                         {NULL, 0}};

static const struct grader_fspec sample_fields[] = {{"answer", GRADER_T_STR},
                                                    {"score", GRADER_T_NUM},
                                                    {"tol", GRADER_T_NUM},
                                                    {"role", GRADER_T_STR},
                                                    {NULL, 0}};

/* Each Lua pattern of the list of strings at `list` (text patterns, and a
 * concept's or a contradiction's). */
static void check_patterns(struct grader_vctx *v, int list, const char *what)
{
    lua_State *L = v->L;
    size_t n = lua_rawlen(L, list);
    for (size_t i = 1; i <= n; i++) {
        lua_rawgeti(L, list, (lua_Integer)i);
        size_t len;
        const char *pat = lua_tolstring(L, -1, &len);
        char why[128];
        if (pat && !grader_pattern_check(pat, len, why, sizeof why))
            grader_vproblem(v, "%s %zu ('%s'): %s", what, i, pat, why);
        lua_pop(L, 1);
    }
}

/* Phrases of a design rubric are looked up word by word: a phrase longer
 * than GRADER_DESIGN_MAX_PHRASE bytes is a mistake. */
static void check_phrases(struct grader_vctx *v, int t, const char *name)
{
    lua_State *L = v->L;
    if (grader_rawfield(L, t, name) == LUA_TTABLE && grader_is_list_of(L, -1, LUA_TSTRING)) {
        size_t n = lua_rawlen(L, -1);
        for (size_t i = 1; i <= n; i++) {
            lua_rawgeti(L, -1, (lua_Integer)i);
            if (lua_rawlen(L, -1) > GRADER_DESIGN_MAX_PHRASE)
                grader_vproblem(v, "%s %zu is longer than %d bytes", name, i,
                                GRADER_DESIGN_MAX_PHRASE);
            lua_pop(L, 1);
        }
    }
    lua_pop(L, 1);
}

/* near = { { "warp", "switch*", within = 5 }, ... } */
static void each_near(struct grader_vctx *v, int t, size_t i, void *ud)
{
    (void)ud;
    lua_State *L = v->L;
    struct grader_vctx s;
    grader_vctx_sub(&s, v, ": near %zu", i);
    size_t n = lua_rawlen(L, t);
    grader_fields_check(&s, t, near_fields, NULL, (lua_Integer)n);
    if (n < 2 || n > 32)
        grader_vproblem(&s, "give 2 to 32 terms: { \"warp\", \"switch*\", within = 5 }");
    for (size_t k = 1; k <= n; k++) {
        lua_rawgeti(L, t, (lua_Integer)k);
        if (lua_type(L, -1) != LUA_TSTRING)
            grader_vproblem(&s, "term %zu must be a string, got %s", k, luaL_typename(L, -1));
        else if (lua_rawlen(L, -1) > GRADER_DESIGN_MAX_PHRASE)
            grader_vproblem(&s, "term %zu is longer than %d bytes", k, GRADER_DESIGN_MAX_PHRASE);
        lua_pop(L, 1);
    }
    double w;
    if (grader_num_field(L, t, "within", &w) && !(w >= 1 && w <= 1000 && w == floor(w)))
        grader_vproblem(&s, "within must be a whole number of words from 1 to 1000");
    v->bad |= s.bad;
}

/* The ways a concept (or a contradiction) is found: match, patterns, near.
 * Returns how many are given. */
static size_t check_finders(struct grader_vctx *v, int t)
{
    lua_State *L = v->L;
    size_t n = 0;
    if (grader_rawfield(L, t, "match") == LUA_TTABLE)
        n += lua_rawlen(L, -1);
    lua_pop(L, 1);
    check_phrases(v, t, "match");
    if (grader_rawfield(L, t, "patterns") == LUA_TTABLE) {
        n += lua_rawlen(L, -1);
        if (grader_is_list_of(L, -1, LUA_TSTRING))
            check_patterns(v, lua_gettop(L), "pattern");
    }
    lua_pop(L, 1);
    if (grader_rawfield(L, t, "near") == LUA_TTABLE)
        n += lua_rawlen(L, -1);
    lua_pop(L, 1);
    grader_list_check(v, t, "near", each_near, NULL);
    return n;
}

/* contradicts = { "phrase", { match = ..., patterns = ..., feedback = ... } } */
static void check_contradicts(struct grader_vctx *v, int t)
{
    lua_State *L = v->L;
    if (grader_rawfield(L, t, "contradicts") != LUA_TTABLE) {
        lua_pop(L, 1);
        return;
    }
    int list = lua_gettop(L);
    size_t n = lua_rawlen(L, list);
    for (size_t i = 1; i <= n; i++) {
        struct grader_vctx s;
        grader_vctx_sub(&s, v, ": contradicts %zu", i);
        int ty = lua_rawgeti(L, list, (lua_Integer)i);
        if (ty == LUA_TSTRING) {
            if (lua_rawlen(L, -1) > GRADER_DESIGN_MAX_PHRASE)
                grader_vproblem(&s, "is longer than %d bytes", GRADER_DESIGN_MAX_PHRASE);
        } else if (ty == LUA_TTABLE) {
            int e = lua_gettop(L);
            grader_fields_check(&s, e, contradicts_fields, NULL, 0);
            if (check_finders(&s, e) == 0)
                grader_vproblem(&s, "give 'match' phrases, 'patterns' or 'near' groups");
        } else {
            grader_vproblem(&s,
                            "must be a phrase or a table { match = ..., feedback = ... }, got %s",
                            luaL_typename(L, -1));
        }
        lua_pop(L, 1);
        v->bad |= s.bad;
    }
    lua_pop(L, 1);
}

static void each_concept(struct grader_vctx *v, int t, size_t i, void *ud)
{
    (void)ud;
    lua_State *L = v->L;
    struct grader_vctx s;
    grader_vctx_sub(&s, v, ": concept %zu", i);
    grader_fields_check(&s, t, concept_fields, NULL, 0);
    static const char *const req[] = {"name", NULL};
    grader_fields_require(&s, t, req);
    double x;
    if (grader_num_field(L, t, "points", &x) && !(x > 0 && isfinite(x)))
        grader_vproblem(&s, "points must be a number > 0");
    if (check_finders(&s, t) == 0)
        grader_vproblem(&s, "give 'match' phrases, 'patterns' or 'near' groups");
    check_contradicts(&s, t);
    v->bad |= s.bad;
}

/* samples = { { answer = "...", score = 0.9, tol = 0.25, role = "good" }, ... } */
static void each_sample(struct grader_vctx *v, int t, size_t i, void *ud)
{
    (void)ud;
    lua_State *L = v->L;
    struct grader_vctx s;
    grader_vctx_sub(&s, v, ": sample %zu", i);
    grader_fields_check(&s, t, sample_fields, NULL, 0);
    static const char *const req[] = {"answer", "score", NULL};
    grader_fields_require(&s, t, req);
    double x;
    if (grader_num_field(L, t, "score", &x) && !(x >= 0 && x <= 1))
        grader_vproblem(&s, "score must be a fraction from 0 to 1 (what a person gave it)");
    if (grader_num_field(L, t, "tol", &x) && !(x >= 0 && x <= 1))
        grader_vproblem(&s, "tol must be a fraction from 0 to 1");
    if (grader_rawfield(L, t, "role") == LUA_TSTRING) {
        static const char *const roles[] = {"good", "partial", "keywords", "reversed"};
        const char *r = lua_tostring(L, -1);
        bool ok = false;
        for (size_t k = 0; k < 4; k++)
            ok |= strcmp(r, roles[k]) == 0;
        if (!ok)
            grader_vproblem(&s, "role '%s' is not one of good, partial, keywords, reversed", r);
    }
    lua_pop(L, 1);
    v->bad |= s.bad;
}

/* ---- pack check ---------------------------------------------------------------------- */

/* text: the accepted answers and patterns. */
static void text_check(struct grader_vctx *v, int t, struct grader_question *q)
{
    lua_State *L = v->L;
    bool grade = q->has_grade, answer = grader_has_field(L, t, "answer");
    if (!answer && !grade && !q->sealed)
        grader_vproblem(v, "a text question needs 'answer' (the accepted text, a list of them, or "
                           "function(p, ctx)) or a custom 'grade'");
    if (grader_rawfield(L, t, "answer") == LUA_TTABLE && lua_rawlen(L, -1) == 0 &&
        grader_is_list_of(L, -1, LUA_TSTRING))
        grader_vproblem(v, "answer is an empty list");
    lua_pop(L, 1);
    if (grader_rawfield(L, t, "patterns") == LUA_TTABLE && grader_is_list_of(L, -1, LUA_TSTRING))
        check_patterns(v, lua_gettop(L), "pattern");
    lua_pop(L, 1);
}

/* design: the rubric's concepts and the graded samples. */
static void design_check(struct grader_vctx *v, int t, struct grader_question *q)
{
    lua_State *L = v->L;
    bool grade = q->has_grade;
    if (!grader_has_field(L, t, "concepts") && !grade && !q->sealed)
        grader_vproblem(v, "a design question needs 'concepts' or a custom 'grade'");
    if (grader_rawfield(L, t, "concepts") == LUA_TTABLE && lua_rawlen(L, -1) == 0)
        grader_vproblem(v, "'concepts' is empty");
    lua_pop(L, 1);
    grader_list_check(v, t, "concepts", each_concept, NULL);
    grader_list_check(v, t, "samples", each_sample, NULL);
    if (grader_rawfield(L, t, "samples") == LUA_TTABLE)
        q->n_samples = lua_rawlen(L, -1);
    lua_pop(L, 1);
}

/* ---- the job ----------------------------------------------------------------------------- */

/* The accepted answers as a list of strings, or nil. */
static void text_reference(lua_State *L, struct grader_job *j)
{
    int ty = grader_job_push_answer(L, j);
    if (ty == LUA_TSTRING || ty == LUA_TNUMBER) {
        lua_createtable(L, 1, 0); /* s list */
        lua_insert(L, -2);        /* list s */
        lua_rawseti(L, -2, 1);    /* list */
    } else if (ty == LUA_TTABLE) {
        size_t m = lua_rawlen(L, -1);
        if (m == 0)
            grader_job_fail(L, j, "answer is an empty list");
        for (size_t i = 1; i <= m; i++) {
            if (lua_rawgeti(L, -1, (lua_Integer)i) != LUA_TSTRING)
                grader_job_fail(L, j, "answer entry %zu must be a string", i);
            lua_pop(L, 1);
        }
    } else if (ty != LUA_TNIL) {
        grader_job_fail(L, j, "answer must give a string or a list of strings, got %s",
                        luaL_typename(L, -1));
    }
}

/* The model answer, or nil. */
static void design_reference(lua_State *L, struct grader_job *j)
{
    (void)j;
    if (grader_rawfield(L, GRADER_S_Q, "model") != LUA_TSTRING) {
        lua_pop(L, 1);
        lua_pushnil(L);
    }
}

/* Calls a private grader of wb.lua: graders[name](args...) -> score [, feedback];
 * `what` names it in an error. */
static void grade_lua(lua_State *L, struct grader_job *j, const char *name, const char *what,
                      int nargs)
{
    grader_wb_push_graders(L); /* args graders */
    lua_getfield(L, -1, name); /* args graders fn */
    lua_remove(L, -2);         /* args fn */
    lua_insert(L, -nargs - 1); /* fn args */
    grader_job_call(L, j, what, nargs, 2);
    double s = lua_tonumber(L, -2);
    grader_result_score(j->res, s, lua_tostring(L, -1));
    lua_pop(L, 2);
}

static void text_grade(lua_State *L, struct grader_job *j, const char *answer)
{
    size_t len = strlen(answer);
    char *norm = core_xmalloc(len + 1);
    grader_text_norm(answer, len, norm);
    j->res->parsed = norm;
    lua_pushvalue(L, GRADER_S_REF);
    grader_rawfield(L, GRADER_S_Q, "patterns");
    lua_pushstring(L, answer);
    grade_lua(L, j, "text", "text matching", 3);
}

static void design_grade(lua_State *L, struct grader_job *j, const char *answer)
{
    grader_rawfield(L, GRADER_S_Q, "concepts");
    lua_pushstring(L, answer);
    grade_lua(L, j, "design", "concept matching", 2);
}

/* The first accepted answer. */
static char *text_reference_text(lua_State *L, struct grader_job *j, bool exact)
{
    (void)j;
    (void)exact;
    if (lua_isnil(L, GRADER_S_REF))
        return NULL;
    lua_rawgeti(L, GRADER_S_REF, 1);
    char *s = grader_lua_strdup(L, -1);
    lua_pop(L, 1);
    return s;
}

/* The model answer; without one, to read: what a good answer covers. */
static char *design_reference_text(lua_State *L, struct grader_job *j, bool exact)
{
    (void)j;
    if (!lua_isnil(L, GRADER_S_REF))
        return grader_lua_strdup(L, GRADER_S_REF);
    if (exact)
        return NULL;
    int top = lua_gettop(L);
    if (grader_rawfield(L, GRADER_S_Q, "concepts") != LUA_TTABLE) { /* concepts */
        lua_settop(L, top);
        return NULL;
    }
    struct core_buf b;
    core_buf_init(&b);
    core_buf_puts(&b, "A good answer covers: ");
    size_t m = lua_rawlen(L, top + 1);
    for (size_t i = 1; i <= m; i++) {
        if (lua_rawgeti(L, top + 1, (lua_Integer)i) == LUA_TTABLE && /* concepts c */
            grader_rawfield(L, -1, "name") == LUA_TSTRING)           /* concepts c name */
            core_buf_printf(&b, "%s%s", i > 1 ? ", " : "", lua_tostring(L, -1));
        lua_settop(L, top + 1); /* concepts */
    }
    lua_settop(L, top);
    core_buf_puts(&b, ".");
    return core_buf_steal(&b);
}

/* ---- the rows -------------------------------------------------------------------------------- */

static const char *const text_fields[] = {"answer", "patterns", NULL};
static const char *const design_fields[] = {"concepts", "model", "samples", NULL};

const struct grader_kind_ops grader_kind_text = {.name = "text",
                                                 .fields = text_fields,
                                                 .answer_types =
                                                     GRADER_T_STR | GRADER_T_STRS | GRADER_T_FUN,
                                                 .max_answer = 4096,
                                                 .tries = 3,
                                                 .penalty = 1.0 / 3.0,
                                                 .check = text_check,
                                                 .reference = text_reference,
                                                 .grade = text_grade,
                                                 .reference_text = text_reference_text};

const struct grader_kind_ops grader_kind_design = {.name = "design",
                                                   .fields = design_fields,
                                                   .max_answer = 16384,
                                                   .tries = 3,
                                                   .penalty = 0.2,
                                                   .automatic = true,
                                                   .rubric = true,
                                                   .check = design_check,
                                                   .reference = design_reference,
                                                   .grade = design_grade,
                                                   .reference_text = design_reference_text};
