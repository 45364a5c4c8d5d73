/*
 * grader_schema.c — what each declaration of a pack may contain, and the
 * checks every declaration shares: field names against the tables below
 * (an unknown field gets the closest known name: "did you mean"), field
 * types, required fields, ids, lists of tables, and the reading of fields
 * into C. Also the checks of the parts of a question that are tables of
 * their own: tolerance bands, known mistakes, design concepts, graded
 * samples and examples.
 *
 * A problem is reported where it is (struct grader_vctx: file, line and a
 * label such as "question amdahl.speedup: example 2") and does not stop the
 * walk: every problem of a pack is reported at once.
 *
 * Reads the tables through the runtime's readers (grader_decl_read.c: raw,
 * no metamethod runs) and uses core.
 */
#include "grader_lua_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the tables ------------------------------------------------------------------------------ */

const struct grader_fspec grader_pack_fields[] = {
    {"id", GRADER_T_STR},          {"title", GRADER_T_STR},    {"version", GRADER_T_STR},
    {"description", GRADER_T_STR}, {"lessons", GRADER_T_STRS}, {"cbm", GRADER_T_BOOL},
    {"policy", GRADER_T_TAB},      {"assets", GRADER_T_STRS},  {"rubric", GRADER_T_STRS},
    {"release", GRADER_T_TAB},     {"class", GRADER_T_TAB},    {NULL, 0}};

const struct grader_fspec grader_lesson_fields[] = {
    {"id", GRADER_T_STR},      {"title", GRADER_T_STR},
    {"topics", GRADER_T_STRS}, {"rubric", GRADER_T_STRS},
    {"policy", GRADER_T_TAB},  {"exam", GRADER_T_BOOL | GRADER_T_TAB},
    {"graded", GRADER_T_BOOL}, {NULL, 0}};

const struct grader_fspec grader_page_fields[] = {
    {"title", GRADER_T_STR}, {"text", GRADER_T_STR}, {NULL, 0}};

const struct grader_fspec grader_question_fields[] = {{"id", GRADER_T_STR},
                                                      {"kind", GRADER_T_STR},
                                                      {"title", GRADER_T_STR},
                                                      {"prompt", GRADER_T_STR},
                                                      {"points", GRADER_T_NUM},
                                                      {"topics", GRADER_T_STRS},
                                                      {"rubric", GRADER_T_STRS},
                                                      {"hints", GRADER_T_TAB},
                                                      {"lab", GRADER_T_STR},
                                                      {"params", GRADER_T_FUN},
                                                      {"examples", GRADER_T_TAB},
                                                      {"grade", GRADER_T_FUN},
                                                      {"answer", 0},
                                                      {"unit", GRADER_T_STR},
                                                      {"tolerance", GRADER_T_TAB},
                                                      {"bands", GRADER_T_TAB},
                                                      {"wrong", GRADER_T_TAB},
                                                      {"integer", GRADER_T_BOOL},
                                                      {"choices", GRADER_T_STRS},
                                                      {"why", GRADER_T_TAB},
                                                      {"items", GRADER_T_STRS},
                                                      {"patterns", GRADER_T_STRS},
                                                      {"concepts", GRADER_T_TAB},
                                                      {"model", GRADER_T_STR},
                                                      {"policy", GRADER_T_TAB},
                                                      {"samples", GRADER_T_TAB},
                                                      {"antonyms", GRADER_T_TAB},
                                                      {"attacks", GRADER_T_STR},
                                                      {"max_answer", GRADER_T_NUM},
                                                      {"code", GRADER_T_TAB},
                                                      {NULL, 0}};

const struct grader_fspec grader_policy_fields[] = {
    {"tries", GRADER_T_NUM}, {"penalty", GRADER_T_NUM}, {"per_try", GRADER_T_NUMS}, {NULL, 0}};

const struct grader_fspec grader_exam_fields[] = {{"minutes", GRADER_T_NUM}, {NULL, 0}};

const struct grader_fspec grader_release_fields[] = {
    {"salt", GRADER_T_STR}, {"source", GRADER_T_STR}, {"made", GRADER_T_STR}, {NULL, 0}};

const struct grader_fspec grader_class_fields[] = {
    {"deadline", GRADER_T_STR}, {"late", GRADER_T_STR | GRADER_T_TAB}, {NULL, 0}};

const struct grader_fspec grader_late_fields[] = {{"per_day", GRADER_T_NUM}, {NULL, 0}};

const struct grader_fspec grader_hint_fields[] = {
    {"text", GRADER_T_STR}, {"public", GRADER_T_BOOL}, {NULL, 0}};

static const struct grader_fspec example_fields[] = {
    {"answer", GRADER_T_STR | GRADER_T_NUM | GRADER_T_FUN},
    {"score", GRADER_T_NUM | GRADER_T_STR},
    {"params", GRADER_T_TAB},
    {"lab", GRADER_T_TAB},
    {"order", GRADER_T_TAB},
    {NULL, 0}};

static const struct grader_fspec lab_fields[] = {
    {"id", GRADER_T_NUM},     {"lab", GRADER_T_STR},     {"finished_at", GRADER_T_STR},
    {"params", GRADER_T_TAB}, {"summary", GRADER_T_TAB}, {NULL, 0}};

/* ---- problems and names ---------------------------------------------------------------------- */

void grader_vproblem(struct grader_vctx *v, const char *fmt, ...)
{
    char buf[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    core_strlist_pushf(v->problems, "%s:%d: %s: %s", v->path, v->line, v->label, buf);
    if (!*v->first_code)
        *v->first_code = CORE_ERR_INVALID;
    v->bad = true;
}

/* The closest of `names` to `s` when it is close enough to be a typo. */
const char *grader_name_closest(const char *s, const char *const *names, size_t n)
{
    return core_str_closest(s, names, n);
}

static const char *closest_field(const char *s, const struct grader_fspec *specs)
{
    const char *names[32];
    size_t n = 0;
    for (; specs[n].name && n < 32; n++)
        names[n] = specs[n].name;
    return grader_name_closest(s, names, n);
}

/* ---- types and fields ------------------------------------------------------------------------ */

static bool type_ok(struct lua_State *L, const struct grader_dval *d, unsigned types)
{
    int t = d->type;
    bool list = t == GRADER_LT_TAB && d->slot;
    return ((types & GRADER_T_STR) && t == GRADER_LT_STR) ||
           ((types & GRADER_T_NUM) && t == GRADER_LT_NUM) ||
           ((types & GRADER_T_BOOL) && t == GRADER_LT_BOOL) ||
           ((types & GRADER_T_FUN) && t == GRADER_LT_FUN) ||
           ((types & GRADER_T_TAB) && t == GRADER_LT_TAB) ||
           ((types & GRADER_T_STRS) && list && grader_is_list_of(L, d->slot, GRADER_LT_STR)) ||
           ((types & GRADER_T_NUMS) && list && grader_is_list_of(L, d->slot, GRADER_LT_NUM));
}

static void types_text(unsigned types, char *buf, size_t n)
{
    static const struct {
        unsigned t;
        const char *s;
    } names[] = {{GRADER_T_STR, "a string"},
                 {GRADER_T_NUM, "a number"},
                 {GRADER_T_STRS, "a list of strings"},
                 {GRADER_T_NUMS, "a list of numbers"},
                 {GRADER_T_TAB, "a table"},
                 {GRADER_T_FUN, "a function"},
                 {GRADER_T_BOOL, "true or false"}};
    const size_t n_names = sizeof names / sizeof names[0];
    const char *parts[sizeof names / sizeof names[0]];
    size_t k = 0;
    for (size_t i = 0; i < n_names; i++)
        if (types & names[i].t)
            parts[k++] = names[i].s;
    buf[0] = '\0';
    for (size_t i = 0; i < k; i++) {
        size_t len = strlen(buf);
        snprintf(buf + len, n - len, "%s%s", i == 0 ? "" : i + 1 == k ? " or " : ", ", parts[i]);
    }
}

static const char *got_text(const struct grader_dval *d, unsigned types)
{
    if (d->type == GRADER_LT_TAB && (types & (GRADER_T_STRS | GRADER_T_NUMS)))
        return (types & GRADER_T_STRS) ? "a table that is not a list of strings"
                                       : "a table that is not a list of numbers";
    return grader_ltype_name(d->type);
}

/* grader_fields_check's walk. */
struct fields_walk {
    struct grader_vctx *v;
    const struct grader_fspec *specs;
    const struct grader_fields_kind *kind;
    long long max_pos;
};

static bool check_field(const struct grader_dval *key, const struct grader_dval *val, void *ud)
{
    struct fields_walk *w = ud;
    struct grader_vctx *v = w->v;
    if (key->type != GRADER_LT_STR) {
        if (key->type == GRADER_LT_NUM && key->isint && key->i >= 1 && key->i <= w->max_pos)
            return true;
        if (key->type == GRADER_LT_NUM && key->isint)
            grader_vproblem(v, "unexpected value at position %lld: fields are written name = value",
                            key->i);
        else
            grader_vproblem(v, "unexpected %s key: fields are written name = value",
                            grader_ltype_name(key->type));
        return true;
    }
    const char *name = key->str;
    const struct grader_fields_kind *kind = w->kind;
    char kinds[96]; /* the kinds a field of another kind applies to */
    const struct grader_fspec *f = NULL;
    for (const struct grader_fspec *s = w->specs; s->name; s++)
        if (strcmp(s->name, name) == 0)
            f = s;
    if (!f) {
        const char *sugg = closest_field(name, w->specs);
        if (sugg && v->n_suggested < 8)
            v->suggested[v->n_suggested++] = sugg;
        if (sugg)
            grader_vproblem(v, "unknown field '%s' (did you mean '%s'?)", name, sugg);
        else
            grader_vproblem(v, "unknown field '%s'", name);
    } else if (kind && !kind->applies(kind->kind, name, kinds, sizeof kinds)) {
        grader_vproblem(v, "field '%s' does not apply to %s %s question (only to: %s)", name,
                        kind->word[0] && strchr("aeiou", kind->word[0]) ? "an" : "a", kind->word,
                        kinds);
    } else {
        unsigned types = f->types ? f->types : kind ? kind->answer_types : 0;
        if (types && !type_ok(v->L, val, types)) {
            char want[96];
            types_text(types, want, sizeof want);
            grader_vproblem(v, "field '%s' must be %s, got %s", name, want, got_text(val, types));
        }
    }
    return true;
}

/* Checks every entry of the table at t against `specs` (for a question of
 * kind `kind`, or NULL). Integer keys 1..max_pos are left to the caller. */
void grader_fields_check(struct grader_vctx *v, int t, const struct grader_fspec *specs,
                         const struct grader_fields_kind *kind, long long max_pos)
{
    struct fields_walk w = {v, specs, kind, max_pos};
    grader_pairs(v->L, t, check_field, &w);
}

void grader_fields_require(struct grader_vctx *v, int t, const char *const *names)
{
    for (; *names; names++) {
        bool typo = false;
        for (int i = 0; i < v->n_suggested; i++)
            typo |= strcmp(v->suggested[i], *names) == 0;
        if (!typo && !grader_has_field(v->L, t, *names))
            grader_vproblem(v, "missing required field '%s'", *names);
    }
}

static bool id_ok(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 64)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                  (i > 0 && (c == '.' || c == '_' || c == '-'));
        if (!ok)
            return false;
    }
    return true;
}

void grader_id_check(struct grader_vctx *v, const char *field_name, const char *id)
{
    if (id && !id_ok(id))
        grader_vproblem(
            v,
            "%s '%s' is not valid: use up to 64 lower-case letters, digits, '.', '_' and '-', "
            "starting with a letter or digit",
            field_name, id);
}

void grader_list_check(struct grader_vctx *v, int t, const char *name, grader_entry_check each,
                       void *ud)
{
    struct lua_State *L = v->L;
    int list = grader_tab_open(L, t, name);
    if (!list)
        return;
    size_t n = grader_len(L, list);
    if (grader_count(L, list) != n)
        grader_vproblem(v, "'%s' must be a list { ..., ... } without named entries", name);
    for (size_t i = 1; i <= n; i++) {
        int entry = grader_tab_open_at(L, list, (long long)i);
        if (entry) {
            each(v, entry, i, ud);
            grader_tab_close(L, entry);
        } else {
            struct grader_dval d;
            grader_index(L, list, (long long)i, &d);
            grader_vproblem(v, "%s %zu must be a table, got %s", name, i,
                            grader_ltype_name(d.type));
        }
    }
    grader_tab_close(L, list);
}

void grader_vctx_sub(struct grader_vctx *sub, const struct grader_vctx *v, const char *fmt, ...)
{
    *sub = *v;
    size_t len = strlen(sub->label);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(sub->label + len, sizeof sub->label - len, fmt, ap);
    va_end(ap);
    sub->bad = false;
}

void grader_example_check(struct grader_vctx *v, int t, size_t i, void *ud)
{
    (void)ud;
    struct lua_State *L = v->L;
    struct grader_vctx s;
    grader_vctx_sub(&s, v, ": example %zu", i);
    /* Positional { answer, score } or named fields; both may carry params/lab. */
    struct grader_dval d;
    bool pos1 = grader_index(L, t, 1, &d) != GRADER_LT_NIL;
    if (pos1 && !type_ok(L, &d, GRADER_T_STR | GRADER_T_NUM | GRADER_T_FUN))
        grader_vproblem(&s,
                        "the answer (first entry) must be a string, a number or a function, got %s",
                        grader_ltype_name(d.type));
    bool pos2 = grader_index(L, t, 2, &d) != GRADER_LT_NIL;
    grader_fields_check(&s, t, example_fields, NULL, 2);
    bool has_answer = grader_has_field(L, t, "answer"), has_score = grader_has_field(L, t, "score");
    bool has_order = grader_has_field(L, t, "order");
    if ((pos1 || has_answer) && has_order)
        grader_vproblem(&s, "gives both an answer and an order: use one");
    if (pos1 && has_answer)
        grader_vproblem(&s, "gives the answer twice (first entry and answer =)");
    has_answer |= has_order;
    if (pos2 && has_score)
        grader_vproblem(&s, "gives the score twice (second entry and score =)");
    if (!pos1 && !has_answer)
        grader_vproblem(
            &s, "missing the answer: write { \"2.5\", 1 } or { answer = \"2.5\", score = 1 }");
    if (!pos2 && !has_score)
        grader_vproblem(&s, "missing the expected score: a fraction from 0 to 1, or \"invalid\"");
    if (pos2)
        grader_index(L, t, 2, &d);
    else
        grader_field(L, t, "score", &d);
    if ((d.type == GRADER_LT_NUM && !(d.num >= 0 && d.num <= 1)) ||
        (d.type == GRADER_LT_STR && strcmp(d.str, "invalid") != 0) ||
        (d.type != GRADER_LT_NUM && d.type != GRADER_LT_STR && d.type != GRADER_LT_NIL))
        grader_vproblem(&s, "the expected score must be a fraction from 0 to 1, or \"invalid\"");
    int lab = grader_tab_open(L, t, "lab");
    if (lab) {
        struct grader_vctx l;
        grader_vctx_sub(&l, &s, ": lab");
        grader_fields_check(&l, lab, lab_fields, NULL, 0);
        s.bad |= l.bad;
        grader_tab_close(L, lab);
    }
    v->bad |= s.bad;
}
