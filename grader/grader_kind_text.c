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
 * Uses the job (grader_job.c), the field schema (grader_schema.c) and the
 * wb library's private graders.
 */
#include "grader_lua_internal.h"

#include <lauxlib.h>
#include <lua.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- samples' roles (the sweep reads them too: grader_sweep.c) ------------ */

static const char *const ROLES[] = {[GRADER_ROLE_GOOD] = "good",
                                    [GRADER_ROLE_TERSE] = "terse",
                                    [GRADER_ROLE_OWN_WORDS] = "own-words",
                                    [GRADER_ROLE_PARTIAL] = "partial",
                                    [GRADER_ROLE_KEYWORDS] = "keywords",
                                    [GRADER_ROLE_REVERSED] = "reversed",
                                    [GRADER_ROLE_WRONG_FLUENT] = "wrong-fluent"};

int grader_sample_role(const char *name)
{
    for (int i = 0; name && i < (int)(sizeof ROLES / sizeof ROLES[0]); i++)
        if (strcmp(name, ROLES[i]) == 0)
            return i;
    return -1;
}

/* ---- the rubric of a design question --------------------------------------------------------- */

static const struct grader_fspec concept_fields[] = {
    {"name", GRADER_T_STR},      {"points", GRADER_T_NUM},   {"match", GRADER_T_STRS},
    {"patterns", GRADER_T_STRS}, {"near", GRADER_T_TAB},     {"contradicts", GRADER_T_TAB},
    {"fuzzy", GRADER_T_BOOL},    {"feedback", GRADER_T_STR}, {"claims", GRADER_T_TAB},
    {"require", GRADER_T_STR},   {"antonyms", GRADER_T_TAB}, {NULL, 0}};

static const struct grader_fspec claim_fields[] = {{"subject", GRADER_T_STR | GRADER_T_STRS},
                                                   {"relation", GRADER_T_STR | GRADER_T_STRS},
                                                   {"object", GRADER_T_STR | GRADER_T_STRS},
                                                   {NULL, 0}};

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

/* The terms of one slot of a claim (a phrase or a list of them). */
static size_t check_slot(struct grader_vctx *v, int t, const char *name)
{
    lua_State *L = v->L;
    size_t n = 0;
    int ty = grader_rawfield(L, t, name);
    if (ty == LUA_TSTRING) {
        n = 1;
        if (lua_rawlen(L, -1) > GRADER_DESIGN_MAX_PHRASE)
            grader_vproblem(v, "%s is longer than %d bytes", name, GRADER_DESIGN_MAX_PHRASE);
    } else if (ty == LUA_TTABLE && grader_is_list_of(L, -1, LUA_TSTRING)) {
        n = lua_rawlen(L, -1);
        if (n > GRADER_CLAIM_TERMS)
            grader_vproblem(v, "%s has %zu terms; at most %d", name, n, GRADER_CLAIM_TERMS);
        for (size_t i = 1; i <= n; i++) {
            lua_rawgeti(L, -1, (lua_Integer)i);
            if (lua_rawlen(L, -1) > GRADER_DESIGN_MAX_PHRASE)
                grader_vproblem(v, "%s term %zu is longer than %d bytes", name, i,
                                GRADER_DESIGN_MAX_PHRASE);
            lua_pop(L, 1);
        }
    }
    lua_pop(L, 1);
    return n;
}

/* claims = { { subject = {...}, relation = {...}, object = {...} }, ... } */
static void each_claim(struct grader_vctx *v, int t, size_t i, void *ud)
{
    (void)ud;
    struct grader_vctx s;
    grader_vctx_sub(&s, v, ": claim %zu", i);
    grader_fields_check(&s, t, claim_fields, NULL, 0);
    size_t subj = check_slot(&s, t, "subject"), rel = check_slot(&s, t, "relation"),
           obj = check_slot(&s, t, "object");
    if (rel == 0)
        grader_vproblem(&s, "a claim needs a relation (the verbs that say what is done: "
                            "relation = { \"hide*\", \"mask*\" })");
    else if (subj == 0 && obj == 0)
        grader_vproblem(&s, "a claim needs a subject or an object besides its relation (who "
                            "does it, or to what): a relation alone is a keyword");
    v->bad |= s.bad;
}

/* antonyms = { { "latency", "throughput" }, ... } */
static void check_antonyms(struct grader_vctx *v, int t)
{
    lua_State *L = v->L;
    if (grader_rawfield(L, t, "antonyms") == LUA_TTABLE) {
        size_t n = lua_rawlen(L, -1);
        for (size_t i = 1; i <= n; i++) {
            lua_rawgeti(L, -1, (lua_Integer)i);
            if (!grader_is_list_of(L, -1, LUA_TSTRING) || lua_rawlen(L, -1) != 2)
                grader_vproblem(v,
                                "antonyms %zu must be a pair of terms: { \"latency\", "
                                "\"throughput\" }",
                                i);
            lua_pop(L, 1);
        }
        if (n > 64)
            grader_vproblem(v, "antonyms has %zu pairs; at most 64", n);
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
    size_t finders = check_finders(&s, t);
    if (grader_rawfield(L, t, "claims") == LUA_TTABLE)
        finders += lua_rawlen(L, -1);
    lua_pop(L, 1);
    grader_list_check(&s, t, "claims", each_claim, NULL);
    if (finders == 0)
        grader_vproblem(&s, "give 'claims' (who does what), 'match' phrases, 'patterns' or "
                            "'near' groups");
    if (grader_rawfield(L, t, "require") == LUA_TSTRING &&
        strcmp(lua_tostring(L, -1), "all") != 0 && strcmp(lua_tostring(L, -1), "any") != 0)
        grader_vproblem(&s, "require must be \"any\" (one claim holds) or \"all\" (every one)");
    lua_pop(L, 1);
    check_antonyms(&s, t);
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
        const char *r = lua_tostring(L, -1);
        if (grader_sample_role(r) < 0)
            grader_vproblem(&s,
                            "role '%s' is not one of good, terse, own-words, partial, keywords, "
                            "reversed, wrong-fluent",
                            r);
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
    check_antonyms(v, t);
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

/* The text after a leading article ("the machine balance" -> "machine
 * balance") of a normalised answer; s itself when it has none. */
static const char *skip_article(const char *s)
{
    static const char *const articles[] = {"the ", "a ", "an "};
    for (size_t i = 0; i < sizeof articles / sizeof articles[0]; i++) {
        size_t n = strlen(articles[i]);
        if (strncmp(s, articles[i], n) == 0 && s[n])
            return s + n;
    }
    return s;
}

/* Whether words a and b (lower case) are one spelling apart, by the rule of
 * the design reader's misspellings (lessons/FORMAT.md, design rule 5): the
 * same first letter, one edit for words of 7 letters or more, two for 10 or
 * more; shorter words and words with digits only exactly. */
static bool word_typo(const char *a, size_t an, const char *b, size_t bn)
{
    if (an == bn && memcmp(a, b, an) == 0)
        return true;
    size_t shorter = an < bn ? an : bn;
    if (shorter < 7 || an > 64 || bn > 64 || a[0] != b[0])
        return false;
    for (size_t i = 0; i < an; i++)
        if (a[i] >= '0' && a[i] <= '9')
            return false;
    char x[65], y[65];
    memcpy(x, a, an);
    x[an] = '\0';
    memcpy(y, b, bn);
    y[bn] = '\0';
    return core_str_distance(x, y) <= (shorter >= 10 ? 2u : 1u);
}

/* Whether answer and accepted (both normalised) are the same words but
 * for misspellings (word_typo), with at least one word misspelt. */
static bool text_typo(const char *answer, const char *accepted)
{
    bool any = false;
    const char *a = answer, *b = accepted;
    for (;;) {
        size_t an = strcspn(a, " "), bn = strcspn(b, " ");
        if (!an || !bn || !word_typo(a, an, b, bn))
            return false;
        any |= an != bn || memcmp(a, b, an) != 0;
        a += an, b += bn;
        if (!*a || !*b)
            return !*a && !*b && any;
        a++, b++;
    }
}

/* A wrong text answer may still be right as the student meant it: after a
 * leading article (accepted "machine balance", answered "the machine
 * balance"), or misspelt ("weak sacling"). Grades it right, saying so, and
 * returns true. */
static bool text_second_look(lua_State *L, struct grader_job *j, const char *norm)
{
    const char *bare = skip_article(norm);
    if (bare != norm) {
        lua_pushvalue(L, GRADER_S_REF);
        grader_rawfield(L, GRADER_S_Q, "patterns");
        lua_pushstring(L, bare);
        grade_lua(L, j, "text", "text matching", 3);
        if (j->res->correct)
            return true;
    }
    if (lua_type(L, GRADER_S_REF) != LUA_TTABLE)
        return false;
    size_t m = lua_rawlen(L, GRADER_S_REF);
    for (size_t i = 1; i <= m; i++) {
        lua_rawgeti(L, GRADER_S_REF, (lua_Integer)i); /* s */
        size_t n;
        const char *acc = lua_tolstring(L, -1, &n);
        char *an = core_xmalloc(n + 1);
        grader_text_norm(acc ? acc : "", acc ? n : 0, an);
        lua_pop(L, 1);
        bool hit = text_typo(bare, skip_article(an)) || text_typo(norm, an);
        if (hit) {
            char fb[240];
            snprintf(fb, sizeof fb, "Right, though misspelt: it is written \"%.160s\".", an);
            grader_result_score(j->res, 1, fb);
        }
        free(an);
        if (hit)
            return true;
    }
    return false;
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
    if (!j->res->correct)
        text_second_look(L, j, norm);
}

/* A string field of the evidence table at idx, copied. */
static char *ev_field(lua_State *L, int idx, const char *name)
{
    grader_rawfield(L, idx, name);
    char *s = lua_type(L, -1) == LUA_TSTRING ? grader_lua_strdup(L, -1) : core_xstrdup("");
    lua_pop(L, 1);
    return s;
}

static void design_grade(lua_State *L, struct grader_job *j, const char *answer)
{
    grader_wb_push_graders(L);                       /* graders */
    lua_getfield(L, -1, "design");                   /* graders fn */
    lua_remove(L, -2);                               /* fn */
    lua_pushvalue(L, GRADER_S_Q);                    /* fn q */
    lua_pushstring(L, answer);                       /* fn q answer */
    grader_job_call(L, j, "concept matching", 2, 3); /* score feedback claims */
    grader_result_score(j->res, lua_tonumber(L, -3), lua_tostring(L, -2));
    if (lua_type(L, -1) == LUA_TTABLE) {
        int t = lua_gettop(L);
        size_t n = lua_rawlen(L, t);
        j->res->claims = n ? core_xcalloc(n, sizeof *j->res->claims) : NULL;
        for (size_t i = 1; i <= n; i++) {
            if (lua_rawgeti(L, t, (lua_Integer)i) != LUA_TTABLE) { /* claims e */
                lua_pop(L, 1);
                continue;
            }
            int e = lua_gettop(L);
            struct grader_claim_evidence *ev = &j->res->claims[j->res->n_claims++];
            ev->concept = ev_field(L, e, "concept");
            ev->status = ev_field(L, e, "status");
            ev->clause = ev_field(L, e, "clause");
            ev->subject = ev_field(L, e, "subject");
            ev->relation = ev_field(L, e, "relation");
            ev->object = ev_field(L, e, "object");
            ev->how = ev_field(L, e, "how");
            grader_rawfield(L, e, "points");
            ev->points = lua_type(L, -1) == LUA_TNUMBER ? lua_tonumber(L, -1) : 1;
            lua_pop(L, 2); /* claims */
        }
    }
    lua_pop(L, 3);
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
static const char *const design_fields[] = {"concepts", "model", "samples", "antonyms", NULL};

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
