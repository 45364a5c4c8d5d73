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
    struct lua_State *L = v->L;
    size_t n = grader_len(L, list);
    for (size_t i = 1; i <= n; i++) {
        struct grader_dval d;
        grader_index(L, list, (long long)i, &d);
        char why[128];
        if (d.type == GRADER_LT_STR && !grader_pattern_check(d.str, d.len, why, sizeof why))
            grader_vproblem(v, "%s %zu ('%s'): %s", what, i, d.str, why);
    }
}

/* The length of the list t[name]; 0 when it is no table. */
static size_t field_len(struct lua_State *L, int t, const char *name)
{
    int list = grader_tab_open(L, t, name);
    size_t n = list ? grader_len(L, list) : 0;
    grader_tab_close(L, list);
    return n;
}

/* Phrases of a design rubric are looked up word by word: a phrase longer
 * than GRADER_DESIGN_MAX_PHRASE bytes is a mistake. */
static void check_phrases(struct grader_vctx *v, int t, const char *name)
{
    struct lua_State *L = v->L;
    int list = grader_tab_open(L, t, name);
    if (list && grader_is_list_of(L, list, GRADER_LT_STR)) {
        size_t n = grader_len(L, list);
        for (size_t i = 1; i <= n; i++) {
            struct grader_dval d;
            grader_index(L, list, (long long)i, &d);
            if (d.len > GRADER_DESIGN_MAX_PHRASE)
                grader_vproblem(v, "%s %zu is longer than %d bytes", name, i,
                                GRADER_DESIGN_MAX_PHRASE);
        }
    }
    grader_tab_close(L, list);
}

/* near = { { "warp", "switch*", within = 5 }, ... } */
static void each_near(struct grader_vctx *v, int t, size_t i, void *ud)
{
    (void)ud;
    struct lua_State *L = v->L;
    struct grader_vctx s;
    grader_vctx_sub(&s, v, ": near %zu", i);
    size_t n = grader_len(L, t);
    grader_fields_check(&s, t, near_fields, NULL, (long long)n);
    if (n < 2 || n > 32)
        grader_vproblem(&s, "give 2 to 32 terms: { \"warp\", \"switch*\", within = 5 }");
    for (size_t k = 1; k <= n; k++) {
        struct grader_dval d;
        if (grader_index(L, t, (long long)k, &d) != GRADER_LT_STR)
            grader_vproblem(&s, "term %zu must be a string, got %s", k, grader_ltype_name(d.type));
        else if (d.len > GRADER_DESIGN_MAX_PHRASE)
            grader_vproblem(&s, "term %zu is longer than %d bytes", k, GRADER_DESIGN_MAX_PHRASE);
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
    struct lua_State *L = v->L;
    size_t n = field_len(L, t, "match");
    check_phrases(v, t, "match");
    int pats = grader_tab_open(L, t, "patterns");
    if (pats) {
        n += grader_len(L, pats);
        if (grader_is_list_of(L, pats, GRADER_LT_STR))
            check_patterns(v, pats, "pattern");
    }
    grader_tab_close(L, pats);
    n += field_len(L, t, "near");
    grader_list_check(v, t, "near", each_near, NULL);
    return n;
}

/* contradicts = { "phrase", { match = ..., patterns = ..., feedback = ... } } */
static void check_contradicts(struct grader_vctx *v, int t)
{
    struct lua_State *L = v->L;
    int list = grader_tab_open(L, t, "contradicts");
    if (!list)
        return;
    size_t n = grader_len(L, list);
    for (size_t i = 1; i <= n; i++) {
        struct grader_vctx s;
        grader_vctx_sub(&s, v, ": contradicts %zu", i);
        struct grader_dval d;
        int ty = grader_index(L, list, (long long)i, &d);
        if (ty == GRADER_LT_STR) {
            if (d.len > GRADER_DESIGN_MAX_PHRASE)
                grader_vproblem(&s, "is longer than %d bytes", GRADER_DESIGN_MAX_PHRASE);
        } else if (ty == GRADER_LT_TAB) {
            int e = grader_tab_open_at(L, list, (long long)i);
            grader_fields_check(&s, e, contradicts_fields, NULL, 0);
            if (check_finders(&s, e) == 0)
                grader_vproblem(&s, "give 'match' phrases, 'patterns' or 'near' groups");
            grader_tab_close(L, e);
        } else {
            grader_vproblem(&s,
                            "must be a phrase or a table { match = ..., feedback = ... }, got %s",
                            grader_ltype_name(ty));
        }
        v->bad |= s.bad;
    }
    grader_tab_close(L, list);
}

/* The terms of one slot of a claim (a phrase or a list of them). */
static size_t check_slot(struct grader_vctx *v, int t, const char *name)
{
    struct lua_State *L = v->L;
    size_t n = 0;
    struct grader_dval d;
    int ty = grader_field(L, t, name, &d);
    if (ty == GRADER_LT_STR) {
        n = 1;
        if (d.len > GRADER_DESIGN_MAX_PHRASE)
            grader_vproblem(v, "%s is longer than %d bytes", name, GRADER_DESIGN_MAX_PHRASE);
    } else if (ty == GRADER_LT_TAB) {
        int list = grader_tab_open(L, t, name);
        if (grader_is_list_of(L, list, GRADER_LT_STR)) {
            n = grader_len(L, list);
            if (n > GRADER_CLAIM_TERMS)
                grader_vproblem(v, "%s has %zu terms; at most %d", name, n, GRADER_CLAIM_TERMS);
            for (size_t i = 1; i <= n; i++) {
                grader_index(L, list, (long long)i, &d);
                if (d.len > GRADER_DESIGN_MAX_PHRASE)
                    grader_vproblem(v, "%s term %zu is longer than %d bytes", name, i,
                                    GRADER_DESIGN_MAX_PHRASE);
            }
        }
        grader_tab_close(L, list);
    }
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
    struct lua_State *L = v->L;
    int list = grader_tab_open(L, t, "antonyms");
    if (!list)
        return;
    size_t n = grader_len(L, list);
    for (size_t i = 1; i <= n; i++) {
        int e = grader_tab_open_at(L, list, (long long)i);
        if (!e || !grader_is_list_of(L, e, GRADER_LT_STR) || grader_len(L, e) != 2)
            grader_vproblem(v,
                            "antonyms %zu must be a pair of terms: { \"latency\", "
                            "\"throughput\" }",
                            i);
        grader_tab_close(L, e);
    }
    if (n > 64)
        grader_vproblem(v, "antonyms has %zu pairs; at most 64", n);
    grader_tab_close(L, list);
}

static void each_concept(struct grader_vctx *v, int t, size_t i, void *ud)
{
    (void)ud;
    struct lua_State *L = v->L;
    struct grader_vctx s;
    grader_vctx_sub(&s, v, ": concept %zu", i);
    grader_fields_check(&s, t, concept_fields, NULL, 0);
    static const char *const req[] = {"name", NULL};
    grader_fields_require(&s, t, req);
    double x;
    if (grader_num_field(L, t, "points", &x) && !(x > 0 && isfinite(x)))
        grader_vproblem(&s, "points must be a number > 0");
    size_t finders = check_finders(&s, t);
    finders += field_len(L, t, "claims");
    grader_list_check(&s, t, "claims", each_claim, NULL);
    if (finders == 0)
        grader_vproblem(&s, "give 'claims' (who does what), 'match' phrases, 'patterns' or "
                            "'near' groups");
    struct grader_dval r;
    if (grader_field(L, t, "require", &r) == GRADER_LT_STR && strcmp(r.str, "all") != 0 &&
        strcmp(r.str, "any") != 0)
        grader_vproblem(&s, "require must be \"any\" (one claim holds) or \"all\" (every one)");
    check_antonyms(&s, t);
    check_contradicts(&s, t);
    v->bad |= s.bad;
}

/* samples = { { answer = "...", score = 0.9, tol = 0.25, role = "good" }, ... } */
static void each_sample(struct grader_vctx *v, int t, size_t i, void *ud)
{
    (void)ud;
    struct lua_State *L = v->L;
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
    struct grader_dval r;
    if (grader_field(L, t, "role", &r) == GRADER_LT_STR && grader_sample_role(r.str) < 0)
        grader_vproblem(&s,
                        "role '%s' is not one of good, terse, own-words, partial, keywords, "
                        "reversed, wrong-fluent",
                        r.str);
    v->bad |= s.bad;
}

/* ---- pack check ---------------------------------------------------------------------- */

/* text: the accepted answers and patterns. */
static void text_check(struct grader_vctx *v, int t, struct grader_question *q)
{
    struct lua_State *L = v->L;
    bool grade = q->has_grade, answer = grader_has_field(L, t, "answer");
    if (!answer && !grade && !q->sealed)
        grader_vproblem(v, "a text question needs 'answer' (the accepted text, a list of them, or "
                           "function(p, ctx)) or a custom 'grade'");
    int list = grader_tab_open(L, t, "answer");
    if (list && grader_len(L, list) == 0 && grader_is_list_of(L, list, GRADER_LT_STR))
        grader_vproblem(v, "answer is an empty list");
    grader_tab_close(L, list);
    list = grader_tab_open(L, t, "patterns");
    if (list && grader_is_list_of(L, list, GRADER_LT_STR))
        check_patterns(v, list, "pattern");
    grader_tab_close(L, list);
}

/* design: the rubric's concepts and the graded samples. */
static void design_check(struct grader_vctx *v, int t, struct grader_question *q)
{
    struct lua_State *L = v->L;
    bool grade = q->has_grade;
    if (!grader_has_field(L, t, "concepts") && !grade && !q->sealed)
        grader_vproblem(v, "a design question needs 'concepts' or a custom 'grade'");
    if (grader_field_type(L, t, "concepts") == GRADER_LT_TAB && field_len(L, t, "concepts") == 0)
        grader_vproblem(v, "'concepts' is empty");
    grader_list_check(v, t, "concepts", each_concept, NULL);
    grader_list_check(v, t, "samples", each_sample, NULL);
    check_antonyms(v, t);
    if (grader_field_type(L, t, "samples") == GRADER_LT_TAB)
        q->n_samples = field_len(L, t, "samples");
}

/* ---- the job ----------------------------------------------------------------------------- */

/* The accepted answers as a list of strings, or nil. */
static void text_reference(struct lua_State *L, struct grader_job *j)
{
    int ty = grader_job_push_answer(L, j);
    if (ty == GRADER_LT_STR || ty == GRADER_LT_NUM) {
        grader_list_wrap(L); /* { s } */
    } else if (ty == GRADER_LT_TAB) {
        size_t m = grader_len(L, -1);
        if (m == 0)
            grader_job_fail(L, j, "answer is an empty list");
        for (size_t i = 1; i <= m; i++) {
            struct grader_dval d;
            if (grader_index(L, -1, (long long)i, &d) != GRADER_LT_STR)
                grader_job_fail(L, j, "answer entry %zu must be a string", i);
        }
    } else if (ty != GRADER_LT_NIL) {
        grader_job_fail(L, j, "answer must give a string or a list of strings, got %s",
                        grader_ltype_name(ty));
    }
}

/* The model answer, or nil. */
static void design_reference(struct lua_State *L, struct grader_job *j)
{
    (void)j;
    if (grader_field_type(L, GRADER_S_Q, "model") == GRADER_LT_STR)
        grader_rawfield(L, GRADER_S_Q, "model");
    else
        grader_push_nil(L);
}

/* Calls a private grader of wb.lua: graders[name](args...) -> score [, feedback];
 * `what` names it in an error. */
static void grade_lua(struct lua_State *L, struct grader_job *j, const char *name, const char *what,
                      int nargs)
{
    grader_grader_insert(L, name, nargs);  /* fn args */
    grader_job_call(L, j, what, nargs, 2); /* score feedback */
    struct grader_dval s, f;
    char num[64];
    size_t len;
    grader_value(L, -2, &s);
    grader_value(L, -1, &f);
    grader_result_score(j->res, s.num, grader_dval_text(&f, num, sizeof num, &len));
    grader_pop(L, 2);
}

/* Grades answer (or a reading of it) with graders.text against the
 * accepted answers and the question's patterns. */
static void text_match(struct lua_State *L, struct grader_job *j, const char *answer)
{
    grader_push_slot(L, GRADER_S_REF);             /* accepted */
    grader_rawfield(L, GRADER_S_Q, "patterns");    /* accepted patterns */
    grader_push_string(L, answer, strlen(answer)); /* accepted patterns answer */
    grade_lua(L, j, "text", "text matching", 3);
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
static bool text_second_look(struct lua_State *L, struct grader_job *j, const char *norm)
{
    const char *bare = skip_article(norm);
    if (bare != norm) {
        text_match(L, j, bare);
        if (j->res->correct)
            return true;
    }
    if (grader_type(L, GRADER_S_REF) != GRADER_LT_TAB)
        return false;
    size_t m = grader_len(L, GRADER_S_REF);
    for (size_t i = 1; i <= m; i++) {
        struct grader_dval d;
        char num[64];
        size_t n;
        grader_index(L, GRADER_S_REF, (long long)i, &d);
        const char *acc = grader_dval_text(&d, num, sizeof num, &n);
        char *an = core_xmalloc(n + 1);
        grader_text_norm(acc ? acc : "", n, an);
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

static void text_grade(struct lua_State *L, struct grader_job *j, const char *answer)
{
    size_t len = strlen(answer);
    char *norm = core_xmalloc(len + 1);
    grader_text_norm(answer, len, norm);
    j->res->parsed = norm;
    text_match(L, j, answer);
    if (!j->res->correct)
        text_second_look(L, j, norm);
}

/* A string field of the evidence table at e, copied. */
static char *ev_field(struct lua_State *L, int e, const char *name)
{
    struct grader_dval d;
    return grader_field(L, e, name, &d) == GRADER_LT_STR ? core_xstrndup(d.str, d.len)
                                                         : core_xstrdup("");
}

static void design_grade(struct lua_State *L, struct grader_job *j, const char *answer)
{
    grader_push_slot(L, GRADER_S_Q);                 /* q */
    grader_push_string(L, answer, strlen(answer));   /* q answer */
    grader_grader_insert(L, "design", 2);            /* fn q answer */
    grader_job_call(L, j, "concept matching", 2, 3); /* score feedback claims */
    struct grader_dval s, f;
    char num[64];
    size_t len;
    grader_value(L, -3, &s);
    grader_value(L, -2, &f);
    grader_result_score(j->res, s.num, grader_dval_text(&f, num, sizeof num, &len));
    if (grader_type(L, -1) == GRADER_LT_TAB) {
        size_t n = grader_len(L, -1);
        j->res->claims = n ? core_xcalloc(n, sizeof *j->res->claims) : NULL;
        for (size_t i = 1; i <= n; i++) {
            int e = grader_tab_open_at(L, -1, (long long)i); /* claims e */
            if (!e)
                continue;
            struct grader_claim_evidence *ev = &j->res->claims[j->res->n_claims++];
            ev->concept = ev_field(L, e, "concept");
            ev->status = ev_field(L, e, "status");
            ev->clause = ev_field(L, e, "clause");
            ev->subject = ev_field(L, e, "subject");
            ev->relation = ev_field(L, e, "relation");
            ev->object = ev_field(L, e, "object");
            ev->how = ev_field(L, e, "how");
            struct grader_dval p;
            ev->points = grader_field(L, e, "points", &p) == GRADER_LT_NUM ? p.num : 1;
            grader_tab_close(L, e); /* claims */
        }
    }
    grader_pop(L, 3);
}

/* The first accepted answer. */
static char *text_reference_text(struct lua_State *L, struct grader_job *j, bool exact)
{
    (void)j;
    (void)exact;
    if (grader_type(L, GRADER_S_REF) == GRADER_LT_NIL)
        return NULL;
    struct grader_dval d;
    char num[64];
    size_t n;
    grader_index(L, GRADER_S_REF, 1, &d);
    const char *s = grader_dval_text(&d, num, sizeof num, &n);
    return core_xstrndup(s ? s : "", n);
}

/* The model answer; without one, to read: what a good answer covers. */
static char *design_reference_text(struct lua_State *L, struct grader_job *j, bool exact)
{
    (void)j;
    if (grader_type(L, GRADER_S_REF) != GRADER_LT_NIL)
        return grader_lua_strdup(L, GRADER_S_REF);
    if (exact)
        return NULL;
    int concepts = grader_tab_open(L, GRADER_S_Q, "concepts");
    if (!concepts)
        return NULL;
    struct core_buf b;
    core_buf_init(&b);
    core_buf_puts(&b, "A good answer covers: ");
    size_t m = grader_len(L, concepts);
    for (size_t i = 1; i <= m; i++) {
        int c = grader_tab_open_at(L, concepts, (long long)i); /* concepts c */
        struct grader_dval name;
        if (c && grader_field(L, c, "name", &name) == GRADER_LT_STR)
            core_buf_printf(&b, "%s%s", i > 1 ? ", " : "", name.str);
        grader_tab_close(L, c); /* concepts */
    }
    grader_tab_close(L, concepts);
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
