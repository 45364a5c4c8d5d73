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
 * Uses lua.h (tables are read raw: no metamethod runs) and core.
 */
#include "grader_internal.h"

#include <lauxlib.h>
#include <lua.h>

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the tables ------------------------------------------------------------------------------ */

const struct grader_fspec grader_pack_fields[] = {
    {"id", GRADER_T_STR, GRADER_KIND_ALL},       {"title", GRADER_T_STR, GRADER_KIND_ALL},
    {"version", GRADER_T_STR, GRADER_KIND_ALL},  {"description", GRADER_T_STR, GRADER_KIND_ALL},
    {"lessons", GRADER_T_STRS, GRADER_KIND_ALL}, {"cbm", GRADER_T_BOOL, GRADER_KIND_ALL},
    {"policy", GRADER_T_TAB, GRADER_KIND_ALL},   {"assets", GRADER_T_STRS, GRADER_KIND_ALL},
    {"rubric", GRADER_T_STRS, GRADER_KIND_ALL},  {NULL, 0, 0}};

const struct grader_fspec grader_lesson_fields[] = {
    {"id", GRADER_T_STR, GRADER_KIND_ALL},
    {"title", GRADER_T_STR, GRADER_KIND_ALL},
    {"topics", GRADER_T_STRS, GRADER_KIND_ALL},
    {"rubric", GRADER_T_STRS, GRADER_KIND_ALL},
    {"policy", GRADER_T_TAB, GRADER_KIND_ALL},
    {"exam", GRADER_T_BOOL | GRADER_T_TAB, GRADER_KIND_ALL},
    {NULL, 0, 0}};

const struct grader_fspec grader_page_fields[] = {{"title", GRADER_T_STR, GRADER_KIND_ALL},
                                                  {"text", GRADER_T_STR, GRADER_KIND_ALL},
                                                  {NULL, 0, 0}};

const struct grader_fspec grader_question_fields[] = {
    {"id", GRADER_T_STR, GRADER_KIND_ALL},
    {"kind", GRADER_T_STR, GRADER_KIND_ALL},
    {"title", GRADER_T_STR, GRADER_KIND_ALL},
    {"prompt", GRADER_T_STR, GRADER_KIND_ALL},
    {"points", GRADER_T_NUM, GRADER_KIND_ALL},
    {"topics", GRADER_T_STRS, GRADER_KIND_ALL},
    {"rubric", GRADER_T_STRS, GRADER_KIND_ALL},
    {"hints", GRADER_T_STRS, GRADER_KIND_ALL},
    {"lab", GRADER_T_STR, GRADER_KIND_ALL},
    {"params", GRADER_T_FUN, GRADER_KIND_ALL},
    {"examples", GRADER_T_TAB, GRADER_KIND_ALL},
    {"grade", GRADER_T_FUN, GRADER_KIND_ALL},
    {"answer", 0,
     GRADER_KIND_BIT(GRADER_NUMERIC) | GRADER_KIND_BIT(GRADER_CHOICE) |
         GRADER_KIND_BIT(GRADER_MULTI) | GRADER_KIND_BIT(GRADER_TEXT)},
    {"unit", GRADER_T_STR, GRADER_KIND_BIT(GRADER_NUMERIC)},
    {"tolerance", GRADER_T_TAB, GRADER_KIND_BIT(GRADER_NUMERIC)},
    {"bands", GRADER_T_TAB, GRADER_KIND_BIT(GRADER_NUMERIC)},
    {"wrong", GRADER_T_TAB, GRADER_KIND_BIT(GRADER_NUMERIC)},
    {"integer", GRADER_T_BOOL, GRADER_KIND_BIT(GRADER_NUMERIC)},
    {"choices", GRADER_T_STRS, GRADER_KIND_BIT(GRADER_CHOICE) | GRADER_KIND_BIT(GRADER_MULTI)},
    {"why", GRADER_T_TAB, GRADER_KIND_BIT(GRADER_CHOICE) | GRADER_KIND_BIT(GRADER_MULTI)},
    {"items", GRADER_T_STRS, GRADER_KIND_BIT(GRADER_ORDERING)},
    {"patterns", GRADER_T_STRS, GRADER_KIND_BIT(GRADER_TEXT)},
    {"concepts", GRADER_T_TAB, GRADER_KIND_BIT(GRADER_DESIGN)},
    {"model", GRADER_T_STR, GRADER_KIND_BIT(GRADER_DESIGN)},
    {"policy", GRADER_T_TAB, GRADER_KIND_ALL},
    {"samples", GRADER_T_TAB, GRADER_KIND_BIT(GRADER_DESIGN)},
    {"max_answer", GRADER_T_NUM, GRADER_KIND_ALL},
    {NULL, 0, 0}};

const struct grader_fspec grader_policy_fields[] = {{"tries", GRADER_T_NUM, GRADER_KIND_ALL},
                                                    {"penalty", GRADER_T_NUM, GRADER_KIND_ALL},
                                                    {"per_try", GRADER_T_NUMS, GRADER_KIND_ALL},
                                                    {NULL, 0, 0}};

const struct grader_fspec grader_exam_fields[] = {{"minutes", GRADER_T_NUM, GRADER_KIND_ALL},
                                                  {NULL, 0, 0}};

const struct grader_fspec grader_tol_fields[] = {{"rel", GRADER_T_NUM, GRADER_KIND_ALL},
                                                 {"abs", GRADER_T_NUM, GRADER_KIND_ALL},
                                                 {"sig", GRADER_T_NUM, GRADER_KIND_ALL},
                                                 {NULL, 0, 0}};

static const struct grader_fspec band_fields[] = {
    {"rel", GRADER_T_NUM, GRADER_KIND_ALL},      {"abs", GRADER_T_NUM, GRADER_KIND_ALL},
    {"sig", GRADER_T_NUM, GRADER_KIND_ALL},      {"score", GRADER_T_NUM, GRADER_KIND_ALL},
    {"feedback", GRADER_T_STR, GRADER_KIND_ALL}, {NULL, 0, 0}};

static const struct grader_fspec wrong_fields[] = {
    {"value", GRADER_T_NUM | GRADER_T_FUN, GRADER_KIND_ALL},
    {"feedback", GRADER_T_STR, GRADER_KIND_ALL},
    {NULL, 0, 0}};

static const struct grader_fspec concept_fields[] = {{"name", GRADER_T_STR, GRADER_KIND_ALL},
                                                     {"points", GRADER_T_NUM, GRADER_KIND_ALL},
                                                     {"match", GRADER_T_STRS, GRADER_KIND_ALL},
                                                     {"patterns", GRADER_T_STRS, GRADER_KIND_ALL},
                                                     {"near", GRADER_T_TAB, GRADER_KIND_ALL},
                                                     {"contradicts", GRADER_T_TAB, GRADER_KIND_ALL},
                                                     {"fuzzy", GRADER_T_BOOL, GRADER_KIND_ALL},
                                                     {"feedback", GRADER_T_STR, GRADER_KIND_ALL},
                                                     {NULL, 0, 0}};

static const struct grader_fspec near_fields[] = {{"within", GRADER_T_NUM, GRADER_KIND_ALL},
                                                  {NULL, 0, 0}};

static const struct grader_fspec contradicts_fields[] = {
    {"match", GRADER_T_STRS, GRADER_KIND_ALL},
    {"patterns", GRADER_T_STRS, GRADER_KIND_ALL},
    {"near", GRADER_T_TAB, GRADER_KIND_ALL},
    {"feedback", GRADER_T_STR, GRADER_KIND_ALL},
    {NULL, 0, 0}};

static const struct grader_fspec sample_fields[] = {{"answer", GRADER_T_STR, GRADER_KIND_ALL},
                                                    {"score", GRADER_T_NUM, GRADER_KIND_ALL},
                                                    {"tol", GRADER_T_NUM, GRADER_KIND_ALL},
                                                    {"role", GRADER_T_STR, GRADER_KIND_ALL},
                                                    {NULL, 0, 0}};

static const struct grader_fspec example_fields[] = {
    {"answer", GRADER_T_STR | GRADER_T_NUM | GRADER_T_FUN, GRADER_KIND_ALL},
    {"score", GRADER_T_NUM | GRADER_T_STR, GRADER_KIND_ALL},
    {"params", GRADER_T_TAB, GRADER_KIND_ALL},
    {"lab", GRADER_T_TAB, GRADER_KIND_ALL},
    {"order", GRADER_T_TAB, GRADER_KIND_ALL},
    {NULL, 0, 0}};

static const struct grader_fspec lab_fields[] = {
    {"id", GRADER_T_NUM, GRADER_KIND_ALL},          {"lab", GRADER_T_STR, GRADER_KIND_ALL},
    {"finished_at", GRADER_T_STR, GRADER_KIND_ALL}, {"params", GRADER_T_TAB, GRADER_KIND_ALL},
    {"summary", GRADER_T_TAB, GRADER_KIND_ALL},     {NULL, 0, 0}};

static unsigned answer_types(int kind)
{
    switch (kind) {
    case GRADER_NUMERIC:
    case GRADER_CHOICE:
        return GRADER_T_NUM | GRADER_T_FUN;
    case GRADER_MULTI:
        return GRADER_T_NUMS | GRADER_T_FUN;
    case GRADER_TEXT:
        return GRADER_T_STR | GRADER_T_STRS | GRADER_T_FUN;
    default:
        return 0;
    }
}

/* ---- problems and names ---------------------------------------------------------------------- */

void grader_vproblem(struct grader_vctx *v, const char *fmt, ...)
{
    char buf[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    grader_eval_problem(v->e, CORE_ERR_INVALID, "%s:%d: %s: %s", grader_eval_path(v->e), v->line,
                        v->label, buf);
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

/* Is t (a table at idx) a list 1..n of values of Lua type `ty`? */
bool grader_is_list_of(lua_State *L, int idx, int ty)
{
    idx = lua_absindex(L, idx);
    lua_Integer n = (lua_Integer)lua_rawlen(L, idx), count = 0;
    bool ok = true;
    lua_pushnil(L);
    while (lua_next(L, idx)) { /* k v */
        if (!lua_isinteger(L, -2) || lua_tointeger(L, -2) < 1 || lua_tointeger(L, -2) > n ||
            lua_type(L, -1) != ty)
            ok = false;
        count++;
        lua_pop(L, 1);
    }
    return ok && count == n;
}

static bool type_ok(lua_State *L, int idx, unsigned types)
{
    int t = lua_type(L, idx);
    return ((types & GRADER_T_STR) && t == LUA_TSTRING) ||
           ((types & GRADER_T_NUM) && t == LUA_TNUMBER) ||
           ((types & GRADER_T_BOOL) && t == LUA_TBOOLEAN) ||
           ((types & GRADER_T_FUN) && t == LUA_TFUNCTION) ||
           ((types & GRADER_T_TAB) && t == LUA_TTABLE) ||
           ((types & GRADER_T_STRS) && t == LUA_TTABLE && grader_is_list_of(L, idx, LUA_TSTRING)) ||
           ((types & GRADER_T_NUMS) && t == LUA_TTABLE && grader_is_list_of(L, idx, LUA_TNUMBER));
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

static const char *got_text(lua_State *L, int idx, unsigned types)
{
    if (lua_type(L, idx) == LUA_TTABLE && (types & (GRADER_T_STRS | GRADER_T_NUMS)))
        return (types & GRADER_T_STRS) ? "a table that is not a list of strings"
                                       : "a table that is not a list of numbers";
    return luaL_typename(L, idx);
}

/* Checks every entry of the table at t against `specs` (for question
 * kind `kind`, or -1). Integer keys 1..max_pos are left to the caller. */
void grader_fields_check(struct grader_vctx *v, int t, const struct grader_fspec *specs, int kind,
                         const char *kind_word, long long max_pos)
{
    lua_State *L = v->L;
    t = lua_absindex(L, t);
    lua_pushnil(L);
    while (lua_next(L, t)) { /* k v */
        if (lua_type(L, -2) != LUA_TSTRING) {
            int isint = 0;
            lua_Integer k = lua_type(L, -2) == LUA_TNUMBER ? lua_tointegerx(L, -2, &isint) : 0;
            if (isint && k >= 1 && k <= max_pos) {
                lua_pop(L, 1);
                continue;
            }
            if (isint)
                grader_vproblem(
                    v, "unexpected value at position %lld: fields are written name = value",
                    (long long)k);
            else
                grader_vproblem(v, "unexpected %s key: fields are written name = value",
                                luaL_typename(L, -2));
            lua_pop(L, 1);
            continue;
        }
        const char *name = lua_tostring(L, -2);
        const struct grader_fspec *f = NULL;
        for (const struct grader_fspec *s = specs; s->name; s++)
            if (strcmp(s->name, name) == 0)
                f = s;
        if (!f) {
            const char *sugg = closest_field(name, specs);
            if (sugg && v->n_suggested < 8)
                v->suggested[v->n_suggested++] = sugg;
            if (sugg)
                grader_vproblem(v, "unknown field '%s' (did you mean '%s'?)", name, sugg);
            else
                grader_vproblem(v, "unknown field '%s'", name);
        } else if (kind >= 0 && !(f->kinds & GRADER_KIND_BIT(kind))) {
            char kinds[96] = "";
            for (int k = 0; k < 6; k++) {
                if (f->kinds & GRADER_KIND_BIT(k)) {
                    size_t len = strlen(kinds);
                    snprintf(kinds + len, sizeof kinds - len, "%s%s", len ? ", " : "",
                             grader_kind_name((enum grader_kind)k));
                }
            }
            grader_vproblem(v, "field '%s' does not apply to %s %s question (only to: %s)", name,
                            kind_word[0] && strchr("aeiou", kind_word[0]) ? "an" : "a", kind_word,
                            kinds);
        } else {
            unsigned types = f->types ? f->types : answer_types(kind);
            if (types && !type_ok(L, -1, types)) {
                char want[96];
                types_text(types, want, sizeof want);
                grader_vproblem(v, "field '%s' must be %s, got %s", name, want,
                                got_text(L, -1, types));
            }
        }
        lua_pop(L, 1); /* k */
    }
}

/* Pushes t[name] (raw) and returns its type. */
int grader_rawfield(lua_State *L, int t, const char *name)
{
    lua_pushstring(L, name);
    return lua_rawget(L, t < 0 ? t - 1 : t);
}

bool grader_has_field(lua_State *L, int t, const char *name)
{
    bool has = grader_rawfield(L, t, name) != LUA_TNIL;
    lua_pop(L, 1);
    return has;
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

/* A copy of t[name] when it is a string, else NULL. */
char *grader_str_field(lua_State *L, int t, const char *name)
{
    char *s = NULL;
    if (grader_rawfield(L, t, name) == LUA_TSTRING)
        s = core_xstrdup(lua_tostring(L, -1));
    lua_pop(L, 1);
    return s;
}

/* A copy of t[name] when it is a list of strings; *n its length. */
char **grader_strs_field(lua_State *L, int t, const char *name, size_t *n, bool *present)
{
    char **v = NULL;
    *n = 0;
    int ty = grader_rawfield(L, t, name);
    if (present)
        *present = ty != LUA_TNIL;
    if (ty == LUA_TTABLE && grader_is_list_of(L, -1, LUA_TSTRING)) {
        size_t len = lua_rawlen(L, -1);
        if (len) {
            v = core_xcalloc(len, sizeof *v);
            for (size_t i = 0; i < len; i++) {
                lua_rawgeti(L, -1, (lua_Integer)i + 1);
                v[i] = core_xstrdup(lua_tostring(L, -1));
                lua_pop(L, 1);
            }
        }
        *n = len;
    }
    lua_pop(L, 1);
    return v;
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

bool grader_num_field(lua_State *L, int t, const char *name, double *out)
{
    bool ok = grader_rawfield(L, t, name) == LUA_TNUMBER;
    if (ok)
        *out = lua_tonumber(L, -1);
    lua_pop(L, 1);
    return ok;
}

/* rel/abs/sig of a tolerance or band table. */
void grader_tol_values_check(struct grader_vctx *v, int t, const char *what)
{
    lua_State *L = v->L;
    double x;
    if (grader_num_field(L, t, "rel", &x) && !(x >= 0 && isfinite(x)))
        grader_vproblem(v, "%s: rel must be a number >= 0", what);
    if (grader_num_field(L, t, "abs", &x) && !(x >= 0 && isfinite(x)))
        grader_vproblem(v, "%s: abs must be a number >= 0", what);
    if (grader_num_field(L, t, "sig", &x) && !(x >= 0 && x <= 15 && x == floor(x)))
        grader_vproblem(v, "%s: sig must be a whole number from 0 to 15", what);
}

void grader_patterns_check(struct grader_vctx *v, int list, const char *what)
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

void grader_list_check(struct grader_vctx *v, int t, const char *name, grader_entry_check each,
                       void *ud)
{
    lua_State *L = v->L;
    if (grader_rawfield(L, t, name) != LUA_TTABLE) { /* list */
        lua_pop(L, 1);
        return;
    }
    int list = lua_gettop(L);
    size_t n = lua_rawlen(L, list);
    lua_pushnil(L);
    size_t count = 0;
    while (lua_next(L, list)) {
        count++;
        lua_pop(L, 1);
    }
    if (count != n)
        grader_vproblem(v, "'%s' must be a list { ..., ... } without named entries", name);
    for (size_t i = 1; i <= n; i++) {
        lua_rawgeti(L, list, (lua_Integer)i); /* list entry */
        if (lua_type(L, -1) != LUA_TTABLE)
            grader_vproblem(v, "%s %zu must be a table, got %s", name, i, luaL_typename(L, -1));
        else
            each(v, lua_gettop(L), i, ud);
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
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

/* ---- the parts of a question ----------------------------------------------------------------- */

void grader_band_check(struct grader_vctx *v, int t, size_t i, void *ud)
{
    (void)ud;
    struct grader_vctx s;
    grader_vctx_sub(&s, v, ": band %zu", i);
    grader_fields_check(&s, t, band_fields, -1, NULL, 0);
    static const char *const req[] = {"score", NULL};
    grader_fields_require(&s, t, req);
    double x;
    if (grader_num_field(v->L, t, "score", &x) && !(x >= 0 && x <= 1))
        grader_vproblem(&s, "score must be a fraction from 0 to 1");
    grader_tol_values_check(&s, t, "tolerance");
    v->bad |= s.bad;
}

void grader_wrong_check(struct grader_vctx *v, int t, size_t i, void *ud)
{
    (void)ud;
    struct grader_vctx s;
    grader_vctx_sub(&s, v, ": wrong %zu", i);
    grader_fields_check(&s, t, wrong_fields, -1, NULL, 0);
    static const char *const req[] = {"value", NULL};
    grader_fields_require(&s, t, req);
    double x;
    if (grader_num_field(v->L, t, "value", &x) && !isfinite(x))
        grader_vproblem(&s, "value must be a finite number");
    v->bad |= s.bad;
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
    grader_fields_check(&s, t, near_fields, -1, NULL, (lua_Integer)n);
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
            grader_patterns_check(v, lua_gettop(L), "pattern");
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
            grader_fields_check(&s, e, contradicts_fields, -1, NULL, 0);
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

void grader_concept_check(struct grader_vctx *v, int t, size_t i, void *ud)
{
    (void)ud;
    lua_State *L = v->L;
    struct grader_vctx s;
    grader_vctx_sub(&s, v, ": concept %zu", i);
    grader_fields_check(&s, t, concept_fields, -1, NULL, 0);
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
void grader_sample_check(struct grader_vctx *v, int t, size_t i, void *ud)
{
    (void)ud;
    lua_State *L = v->L;
    struct grader_vctx s;
    grader_vctx_sub(&s, v, ": sample %zu", i);
    grader_fields_check(&s, t, sample_fields, -1, NULL, 0);
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

void grader_example_check(struct grader_vctx *v, int t, size_t i, void *ud)
{
    (void)ud;
    lua_State *L = v->L;
    struct grader_vctx s;
    grader_vctx_sub(&s, v, ": example %zu", i);
    /* Positional { answer, score } or named fields; both may carry params/lab. */
    bool pos1 = false, pos2 = false;
    lua_rawgeti(L, t, 1);
    pos1 = !lua_isnil(L, -1);
    if (pos1 && !type_ok(L, -1, GRADER_T_STR | GRADER_T_NUM | GRADER_T_FUN))
        grader_vproblem(&s,
                        "the answer (first entry) must be a string, a number or a function, got %s",
                        luaL_typename(L, -1));
    lua_pop(L, 1);
    lua_rawgeti(L, t, 2);
    pos2 = !lua_isnil(L, -1);
    lua_pop(L, 1);
    grader_fields_check(&s, t, example_fields, -1, NULL, 2);
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
        lua_rawgeti(L, t, 2);
    else
        grader_rawfield(L, t, "score");
    if (lua_type(L, -1) == LUA_TNUMBER) {
        double x = lua_tonumber(L, -1);
        if (!(x >= 0 && x <= 1))
            grader_vproblem(&s,
                            "the expected score must be a fraction from 0 to 1, or \"invalid\"");
    } else if (lua_type(L, -1) == LUA_TSTRING) {
        if (strcmp(lua_tostring(L, -1), "invalid") != 0)
            grader_vproblem(&s,
                            "the expected score must be a fraction from 0 to 1, or \"invalid\"");
    } else if (!lua_isnil(L, -1)) {
        grader_vproblem(&s, "the expected score must be a fraction from 0 to 1, or \"invalid\"");
    }
    lua_pop(L, 1);
    if (grader_rawfield(L, t, "lab") == LUA_TTABLE) {
        struct grader_vctx l;
        grader_vctx_sub(&l, &s, ": lab");
        grader_fields_check(&l, lua_gettop(L), lab_fields, -1, NULL, 0);
        s.bad |= l.bad;
    }
    lua_pop(L, 1);
    v->bad |= s.bad;
}
