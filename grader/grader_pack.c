/*
 * grader_pack.c — pack evaluation: the constructors pack, lesson, page,
 * question and calculator; validation of what they declare; and the C model
 * handed to the rest of Warpbench. (Running calculators: grader_calc.c.)
 *
 * Every .lua file of a pack is compiled once into bytecode (kept for every
 * later render and grading). pack.lua runs first, then each listed lesson
 * file, each in a fresh sandbox whose constructors record every call with
 * its line. After the file has run, C walks the records: field names against
 * the tables below (unknown field with the closest known name, wrong type,
 * missing required field), ids, kinds, references, examples. A problem does
 * not stop the walk, and a file that fails does not stop the others; every
 * problem is reported as "file:line: message". Questions that pass get the
 * checks that need their code (grader_question_check, in grader_grade.c).
 *
 * Decisions: a .lua file that pack.lua does not list is a problem (there is
 * no `require`, so it could only be a lesson someone forgot to list); other
 * files (README, images) are ignored. Positional entries in a declaration
 * ({ "x" }) are problems, as are unknown fields.
 *
 * Uses the sandbox (grader_sandbox.c) and core.
 */
#include "grader_internal.h"

#include <lauxlib.h>
#include <lua.h>

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- constructors ------------------------------------------------------------ */

static const char DECLS_KEY = 'd'; /* registry: list of { kind, value, line } */
static const char QUEST_KEY = 'q'; /* registry: question tables by id (grade mode) */
static const char MODE_KEY = 'M';  /* registry: enum grader_decl_mode */
static const char CALC_KEY = 'c';  /* registry: calculator tables by id (grade mode) */

enum decl_kind { D_PACK = 1, D_LESSON, D_PAGE, D_QUESTION, D_CALC, D_N };
static const char *const decl_name[] = {"?", "pack", "lesson", "page", "question", "calculator"};

static int record(lua_State *L, int kind)
{
    lua_settop(L, 1); /* arg */
    lua_rawgetp(L, LUA_REGISTRYINDEX, &MODE_KEY);
    int mode = (int)lua_tointeger(L, -1);
    lua_pop(L, 1);
    if (mode == GRADER_DECL_GRADE) {
        if ((kind == D_QUESTION || kind == D_CALC) && lua_type(L, 1) == LUA_TTABLE) {
            lua_pushliteral(L, "id");
            if (lua_rawget(L, 1) == LUA_TSTRING) { /* arg id */
                lua_rawgetp(L, LUA_REGISTRYINDEX,
                            kind == D_CALC ? &CALC_KEY : &QUEST_KEY); /* arg id Q */
                lua_insert(L, -2);                                    /* arg Q id */
                lua_pushvalue(L, 1);                                  /* arg Q id arg */
                lua_rawset(L, -3);                                    /* arg Q */
            }
            lua_settop(L, 1);
        }
        return 1;
    }
    lua_Debug ar;
    int line = 0;
    if (lua_getstack(L, 1, &ar) && lua_getinfo(L, "l", &ar))
        line = ar.currentline;
    lua_rawgetp(L, LUA_REGISTRYINDEX, &DECLS_KEY); /* arg decls */
    lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
    lua_createtable(L, 3, 0); /* arg decls e */
    lua_pushinteger(L, kind);
    lua_rawseti(L, -2, 1);
    lua_pushvalue(L, 1);
    lua_rawseti(L, -2, 2);
    lua_pushinteger(L, line);
    lua_rawseti(L, -2, 3);
    lua_rawseti(L, -2, n + 1); /* arg decls */
    lua_settop(L, 1);
    return 1;
}

static int l_pack(lua_State *L)
{
    return record(L, D_PACK);
}
static int l_lesson(lua_State *L)
{
    return record(L, D_LESSON);
}
static int l_page(lua_State *L)
{
    return record(L, D_PAGE);
}
static int l_question(lua_State *L)
{
    return record(L, D_QUESTION);
}
static int l_calculator(lua_State *L)
{
    return record(L, D_CALC);
}

static const luaL_Reg decl_funcs[] = {
    {"pack", l_pack},         {"lesson", l_lesson},         {"page", l_page},
    {"question", l_question}, {"calculator", l_calculator}, {NULL, NULL}};

void grader_decl_open(lua_State *L, int g)
{
    lua_pushvalue(L, g);
    luaL_setfuncs(L, decl_funcs, 0);
    lua_pop(L, 1);
    lua_newtable(L);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &DECLS_KEY);
    lua_newtable(L);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &QUEST_KEY);
    lua_newtable(L);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &CALC_KEY);
    lua_pushinteger(L, GRADER_DECL_GRADE);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &MODE_KEY);
}

void grader_decl_set_mode(lua_State *L, enum grader_decl_mode mode)
{
    lua_pushinteger(L, mode);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &MODE_KEY);
}

void grader_decl_push_question(lua_State *L, const char *qid)
{
    lua_rawgetp(L, LUA_REGISTRYINDEX, &QUEST_KEY); /* Q */
    lua_getfield(L, -1, qid);                      /* Q q (raw: Q has no metatable) */
    lua_remove(L, -2);                             /* q */
}

void grader_decl_push_calc(lua_State *L, const char *cid)
{
    lua_rawgetp(L, LUA_REGISTRYINDEX, &CALC_KEY); /* C */
    lua_getfield(L, -1, cid);                     /* C c (raw: C has no metatable) */
    lua_remove(L, -2);                            /* c */
}

/* Room for element n of an array grown one at a time: doubling, so that
 * declaring n of anything costs O(n), not O(n²). */
static void *grow(void *a, size_t n, size_t size)
{
    if (n == 0)
        return core_xrealloc(a, 4 * size);
    if (n >= 4 && (n & (n - 1)) == 0)
        return core_xrealloc(a, 2 * n * size);
    return a;
}

/* ---- model helpers --------------------------------------------------------------- */

size_t grader_kind_max_answer(enum grader_kind k)
{
    switch (k) {
    case GRADER_TEXT:
        return 4096;
    case GRADER_DESIGN:
        return 16384;
    default:
        return 1024;
    }
}

const char *grader_kind_name(enum grader_kind k)
{
    static const char *const names[] = {"numeric", "choice", "multi", "ordering", "text", "design"};
    return (unsigned)k < 6 ? names[k] : "?";
}

static void strv_free(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

static char **strv_dup(char *const *v, size_t n)
{
    if (!n)
        return NULL;
    char **o = core_xcalloc(n, sizeof *o);
    for (size_t i = 0; i < n; i++)
        o[i] = core_xstrdup(v[i]);
    return o;
}

static void question_fini(struct grader_question *q)
{
    free(q->id);
    free(q->title);
    free(q->prompt);
    strv_free(q->topics, q->n_topics);
    strv_free(q->rubric, q->n_rubric);
    free(q->lab);
    free(q->unit);
    free(q->file);
}

static void calc_fini(struct grader_calc *c)
{
    free(c->id);
    free(c->title);
    for (size_t i = 0; i < c->n_inputs; i++) {
        free(c->inputs[i].name);
        free(c->inputs[i].label);
        free(c->inputs[i].unit);
        free(c->inputs[i].help);
    }
    free(c->inputs);
    free(c->file);
}

static void lesson_fini(struct grader_lesson *l)
{
    free(l->id);
    free(l->title);
    free(l->file);
    for (size_t i = 0; i < l->n_pages; i++) {
        free(l->pages[i].title);
        free(l->pages[i].markdown);
    }
    free(l->pages);
    for (size_t i = 0; i < l->n_questions; i++)
        question_fini(&l->questions[i]);
    free(l->questions);
    for (size_t i = 0; i < l->n_calcs; i++)
        calc_fini(&l->calcs[i]);
    free(l->calcs);
}

void grader_pack_free(struct grader_pack *p)
{
    if (!p)
        return;
    free(p->info.id);
    free(p->info.title);
    free(p->info.version);
    free(p->info.description);
    strv_free(p->info.assets, p->info.n_assets);
    strv_free(p->info.rubric, p->info.n_rubric);
    for (size_t i = 0; i < p->info.n_lessons; i++)
        lesson_fini(&p->info.lessons[i]);
    free(p->info.lessons);
    for (size_t i = 0; i < p->n_files; i++) {
        free(p->files[i].path);
        free(p->files[i].data);
        free(p->files[i].chunkname);
        core_buf_fini(&p->files[i].bc);
        grader_slim_plan_free(p->files[i].plan);
    }
    free(p->files);
    for (size_t i = 0; i < p->n_qx; i++) {
        core_buf_fini(&p->qx[i].slim);
        grader_linemap_fini(&p->qx[i].map);
    }
    free(p->qx);
    for (size_t i = 0; i < p->n_cx; i++)
        grader_cx_fini(&p->cx[i]);
    free(p->cx);
    free(p->index);
    grader_sb_pool_free(p->pool);
    free(p);
}

const struct grader_pack_info *grader_pack_info(const struct grader_pack *p)
{
    return &p->info;
}

static uint64_t hash_id(const char *s)
{
    return core_fnv1a(CORE_FNV_OFFSET, s, strlen(s));
}

const struct grader_qx *grader_pack_qx(const struct grader_pack *p, const char *qid)
{
    if (!p || !qid || !p->index_cap)
        return NULL;
    size_t mask = p->index_cap - 1;
    for (size_t i = hash_id(qid) & mask;; i = (i + 1) & mask) {
        size_t k = p->index[i];
        if (k == SIZE_MAX)
            return NULL;
        if (strcmp(p->qx[k].q->id, qid) == 0)
            return &p->qx[k];
    }
}

const struct grader_question *grader_pack_question(const struct grader_pack *p, const char *qid)
{
    const struct grader_qx *x = grader_pack_qx(p, qid);
    return x ? x->q : NULL;
}

/* ---- validation ------------------------------------------------------------------ */

enum {
    T_STR = 1,
    T_NUM = 2,
    T_TAB = 4,
    T_FUN = 8,
    T_STRS = 16, /* a list of strings */
    T_NUMS = 32, /* a list of numbers */
    T_BOOL = 64
};

#define KALL 0x3fu
#define KB(k) (1u << (k))

struct fspec {
    const char *name;
    unsigned types; /* 0: depends on the kind (question answer) */
    unsigned kinds; /* question kinds it applies to */
};

static const struct fspec pack_fields[] = {{"id", T_STR, KALL},       {"title", T_STR, KALL},
                                           {"version", T_STR, KALL},  {"description", T_STR, KALL},
                                           {"lessons", T_STRS, KALL}, {"cbm", T_BOOL, KALL},
                                           {"policy", T_TAB, KALL},   {"assets", T_STRS, KALL},
                                           {"rubric", T_STRS, KALL},  {NULL, 0, 0}};
static const struct fspec lesson_fields[] = {{"id", T_STR, KALL},
                                             {"title", T_STR, KALL},
                                             {"topics", T_STRS, KALL},
                                             {"rubric", T_STRS, KALL},
                                             {"policy", T_TAB, KALL},
                                             {"exam", T_BOOL | T_TAB, KALL},
                                             {NULL, 0, 0}};
static const struct fspec page_fields[] = {
    {"title", T_STR, KALL}, {"text", T_STR, KALL}, {NULL, 0, 0}};
static const struct fspec question_fields[] = {
    {"id", T_STR, KALL},
    {"kind", T_STR, KALL},
    {"title", T_STR, KALL},
    {"prompt", T_STR, KALL},
    {"points", T_NUM, KALL},
    {"topics", T_STRS, KALL},
    {"rubric", T_STRS, KALL},
    {"hints", T_STRS, KALL},
    {"lab", T_STR, KALL},
    {"params", T_FUN, KALL},
    {"examples", T_TAB, KALL},
    {"grade", T_FUN, KALL},
    {"answer", 0, KB(GRADER_NUMERIC) | KB(GRADER_CHOICE) | KB(GRADER_MULTI) | KB(GRADER_TEXT)},
    {"unit", T_STR, KB(GRADER_NUMERIC)},
    {"tolerance", T_TAB, KB(GRADER_NUMERIC)},
    {"bands", T_TAB, KB(GRADER_NUMERIC)},
    {"wrong", T_TAB, KB(GRADER_NUMERIC)},
    {"integer", T_BOOL, KB(GRADER_NUMERIC)},
    {"choices", T_STRS, KB(GRADER_CHOICE) | KB(GRADER_MULTI)},
    {"why", T_TAB, KB(GRADER_CHOICE) | KB(GRADER_MULTI)},
    {"items", T_STRS, KB(GRADER_ORDERING)},
    {"patterns", T_STRS, KB(GRADER_TEXT)},
    {"concepts", T_TAB, KB(GRADER_DESIGN)},
    {"model", T_STR, KB(GRADER_DESIGN)},
    {"policy", T_TAB, KALL},
    {"samples", T_TAB, KB(GRADER_DESIGN)},
    {"max_answer", T_NUM, KALL},
    {NULL, 0, 0}};
static const struct fspec policy_fields[] = {
    {"tries", T_NUM, KALL}, {"penalty", T_NUM, KALL}, {"per_try", T_NUMS, KALL}, {NULL, 0, 0}};
static const struct fspec exam_fields[] = {{"minutes", T_NUM, KALL}, {NULL, 0, 0}};
static const struct fspec tol_fields[] = {
    {"rel", T_NUM, KALL}, {"abs", T_NUM, KALL}, {"sig", T_NUM, KALL}, {NULL, 0, 0}};
static const struct fspec band_fields[] = {{"rel", T_NUM, KALL},      {"abs", T_NUM, KALL},
                                           {"sig", T_NUM, KALL},      {"score", T_NUM, KALL},
                                           {"feedback", T_STR, KALL}, {NULL, 0, 0}};
static const struct fspec wrong_fields[] = {
    {"value", T_NUM | T_FUN, KALL}, {"feedback", T_STR, KALL}, {NULL, 0, 0}};
static const struct fspec concept_fields[] = {
    {"name", T_STR, KALL},      {"points", T_NUM, KALL},   {"match", T_STRS, KALL},
    {"patterns", T_STRS, KALL}, {"near", T_TAB, KALL},     {"contradicts", T_TAB, KALL},
    {"fuzzy", T_BOOL, KALL},    {"feedback", T_STR, KALL}, {NULL, 0, 0}};
static const struct fspec near_fields[] = {{"within", T_NUM, KALL}, {NULL, 0, 0}};
static const struct fspec contradicts_fields[] = {{"match", T_STRS, KALL},
                                                  {"patterns", T_STRS, KALL},
                                                  {"near", T_TAB, KALL},
                                                  {"feedback", T_STR, KALL},
                                                  {NULL, 0, 0}};
static const struct fspec sample_fields[] = {{"answer", T_STR, KALL},
                                             {"score", T_NUM, KALL},
                                             {"tol", T_NUM, KALL},
                                             {"role", T_STR, KALL},
                                             {NULL, 0, 0}};
static const struct fspec example_fields[] = {{"answer", T_STR | T_NUM | T_FUN, KALL},
                                              {"score", T_NUM | T_STR, KALL},
                                              {"params", T_TAB, KALL},
                                              {"lab", T_TAB, KALL},
                                              {"order", T_TAB, KALL},
                                              {NULL, 0, 0}};
static const struct fspec calc_fields[] = {{"id", T_STR, KALL},       {"title", T_STR, KALL},
                                           {"inputs", T_TAB, KALL},   {"compute", T_FUN, KALL},
                                           {"examples", T_TAB, KALL}, {NULL, 0, 0}};
static const struct fspec calc_input_fields[] = {
    {"name", T_STR, KALL}, {"label", T_STR, KALL}, {"default", T_NUM, KALL},
    {"min", T_NUM, KALL},  {"max", T_NUM, KALL},   {"integer", T_BOOL, KALL},
    {"unit", T_STR, KALL}, {"help", T_STR, KALL},  {NULL, 0, 0}};
static const struct fspec calc_example_fields[] = {
    {"inputs", T_TAB, KALL}, {"outputs", T_TAB, KALL}, {NULL, 0, 0}};
static const struct fspec lab_fields[] = {{"id", T_NUM, KALL},          {"lab", T_STR, KALL},
                                          {"finished_at", T_STR, KALL}, {"params", T_TAB, KALL},
                                          {"summary", T_TAB, KALL},     {NULL, 0, 0}};

static unsigned answer_types(int kind)
{
    switch (kind) {
    case GRADER_NUMERIC:
    case GRADER_CHOICE:
        return T_NUM | T_FUN;
    case GRADER_MULTI:
        return T_NUMS | T_FUN;
    case GRADER_TEXT:
        return T_STR | T_STRS | T_FUN;
    default:
        return 0;
    }
}

/* A policy as one level (pack, lesson, question) declares it: what it
 * leaves unset comes from the level above, then from the kind's default. */
struct policy_decl {
    bool has_tries, has_score; /* has_score: penalty or per_try */
    struct grader_policy p;
};

/* The evaluation of a pack, one file at a time. */
struct eval {
    struct grader_pack *pack;
    struct core_strlist *problems;
    int first_code;
    struct core_buf bad;  /* one byte per question declared, in pack order: 1 = failed */
    struct grader_cx *cx; /* one per calculator declared, in pack order */
    size_t n_cx;
    /* pack.lua */
    int pack_line;
    struct core_strlist lessons;
    bool lessons_known; /* pack{} gave a list: unlisted files can be told */
    /* the file being evaluated */
    size_t file;
    const char *path;
    enum grader_decl_mode mode;
    struct grader_lesson *lesson; /* its lesson, once declared */
    size_t lesson_index;
    char **topics, **rubric; /* the lesson's defaults for its questions */
    size_t n_topics, n_rubric;
    struct policy_decl pack_policy, lesson_policy;
};

static void eproblem(struct eval *e, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void eproblem(struct eval *e, int code, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    core_strlist_push(e->problems, buf);
    if (!e->first_code)
        e->first_code = code;
}

/* Where a problem is: one declaration (or a part of it). */
struct vctx {
    struct eval *e;
    lua_State *L;
    int line;
    char label[128]; /* "question amdahl.speedup", "question amdahl.speedup: example 2" */
    bool bad;
    const char *suggested[8]; /* names offered for typos: not reported missing as well */
    int n_suggested;
};

static void vproblem(struct vctx *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void vproblem(struct vctx *v, const char *fmt, ...)
{
    char buf[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    eproblem(v->e, CORE_ERR_INVALID, "%s:%d: %s: %s", v->e->path, v->line, v->label, buf);
    v->bad = true;
}

/* The closest of `names` to `s` when it is close enough to be a typo. */
const char *grader_name_closest(const char *s, const char *const *names, size_t n)
{
    return core_str_closest(s, names, n);
}

static const char *closest_field(const char *s, const struct fspec *specs)
{
    const char *names[32];
    size_t n = 0;
    for (; specs[n].name && n < 32; n++)
        names[n] = specs[n].name;
    return grader_name_closest(s, names, n);
}

/* Is t (a table at idx) a list 1..n of values of Lua type `ty`? */
static bool is_list_of(lua_State *L, int idx, int ty)
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
    return ((types & T_STR) && t == LUA_TSTRING) || ((types & T_NUM) && t == LUA_TNUMBER) ||
           ((types & T_BOOL) && t == LUA_TBOOLEAN) || ((types & T_FUN) && t == LUA_TFUNCTION) ||
           ((types & T_TAB) && t == LUA_TTABLE) ||
           ((types & T_STRS) && t == LUA_TTABLE && is_list_of(L, idx, LUA_TSTRING)) ||
           ((types & T_NUMS) && t == LUA_TTABLE && is_list_of(L, idx, LUA_TNUMBER));
}

static void types_text(unsigned types, char *buf, size_t n)
{
    static const struct {
        unsigned t;
        const char *s;
    } names[] = {{T_STR, "a string"},           {T_NUM, "a number"}, {T_STRS, "a list of strings"},
                 {T_NUMS, "a list of numbers"}, {T_TAB, "a table"},  {T_FUN, "a function"},
                 {T_BOOL, "true or false"}};
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
    if (lua_type(L, idx) == LUA_TTABLE && (types & (T_STRS | T_NUMS)))
        return (types & T_STRS) ? "a table that is not a list of strings"
                                : "a table that is not a list of numbers";
    return luaL_typename(L, idx);
}

/* Checks every entry of the table at t against `specs` (for question
 * kind `kind`, or -1). Integer keys 1..max_pos are left to the caller. */
static void check_fields(struct vctx *v, int t, const struct fspec *specs, int kind,
                         const char *kind_word, lua_Integer max_pos)
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
                vproblem(v, "unexpected value at position %lld: fields are written name = value",
                         (long long)k);
            else
                vproblem(v, "unexpected %s key: fields are written name = value",
                         luaL_typename(L, -2));
            lua_pop(L, 1);
            continue;
        }
        const char *name = lua_tostring(L, -2);
        const struct fspec *f = NULL;
        for (const struct fspec *s = specs; s->name; s++)
            if (strcmp(s->name, name) == 0)
                f = s;
        if (!f) {
            const char *sugg = closest_field(name, specs);
            if (sugg && v->n_suggested < 8)
                v->suggested[v->n_suggested++] = sugg;
            if (sugg)
                vproblem(v, "unknown field '%s' (did you mean '%s'?)", name, sugg);
            else
                vproblem(v, "unknown field '%s'", name);
        } else if (kind >= 0 && !(f->kinds & KB(kind))) {
            char kinds[96] = "";
            for (int k = 0; k < 6; k++) {
                if (f->kinds & KB(k)) {
                    size_t len = strlen(kinds);
                    snprintf(kinds + len, sizeof kinds - len, "%s%s", len ? ", " : "",
                             grader_kind_name((enum grader_kind)k));
                }
            }
            vproblem(v, "field '%s' does not apply to %s %s question (only to: %s)", name,
                     kind_word[0] && strchr("aeiou", kind_word[0]) ? "an" : "a", kind_word, kinds);
        } else {
            unsigned types = f->types ? f->types : answer_types(kind);
            if (types && !type_ok(L, -1, types)) {
                char want[96];
                types_text(types, want, sizeof want);
                vproblem(v, "field '%s' must be %s, got %s", name, want, got_text(L, -1, types));
            }
        }
        lua_pop(L, 1); /* k */
    }
}

/* Pushes t[name] (raw) and returns its type. */
static int field(lua_State *L, int t, const char *name)
{
    lua_pushstring(L, name);
    return lua_rawget(L, t < 0 ? t - 1 : t);
}

static bool has_field(lua_State *L, int t, const char *name)
{
    bool has = field(L, t, name) != LUA_TNIL;
    lua_pop(L, 1);
    return has;
}

static void require_fields(struct vctx *v, int t, const char *const *names)
{
    for (; *names; names++) {
        bool typo = false;
        for (int i = 0; i < v->n_suggested; i++)
            typo |= strcmp(v->suggested[i], *names) == 0;
        if (!typo && !has_field(v->L, t, *names))
            vproblem(v, "missing required field '%s'", *names);
    }
}

/* A copy of t[name] when it is a string, else NULL. */
static char *str_field(lua_State *L, int t, const char *name)
{
    char *s = NULL;
    if (field(L, t, name) == LUA_TSTRING)
        s = core_xstrdup(lua_tostring(L, -1));
    lua_pop(L, 1);
    return s;
}

/* A copy of t[name] when it is a list of strings; *n its length. */
static char **strs_field(lua_State *L, int t, const char *name, size_t *n, bool *present)
{
    char **v = NULL;
    *n = 0;
    int ty = field(L, t, name);
    if (present)
        *present = ty != LUA_TNIL;
    if (ty == LUA_TTABLE && is_list_of(L, -1, LUA_TSTRING)) {
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

static void check_id(struct vctx *v, const char *field_name, const char *id)
{
    if (id && !id_ok(id))
        vproblem(v,
                 "%s '%s' is not valid: use up to 64 lower-case letters, digits, '.', '_' and '-', "
                 "starting with a letter or digit",
                 field_name, id);
}

static bool num_field(lua_State *L, int t, const char *name, double *out)
{
    bool ok = field(L, t, name) == LUA_TNUMBER;
    if (ok)
        *out = lua_tonumber(L, -1);
    lua_pop(L, 1);
    return ok;
}

/* rel/abs/sig of a tolerance or band table. */
static void check_tol_values(struct vctx *v, int t, const char *what)
{
    lua_State *L = v->L;
    double x;
    if (num_field(L, t, "rel", &x) && !(x >= 0 && isfinite(x)))
        vproblem(v, "%s: rel must be a number >= 0", what);
    if (num_field(L, t, "abs", &x) && !(x >= 0 && isfinite(x)))
        vproblem(v, "%s: abs must be a number >= 0", what);
    if (num_field(L, t, "sig", &x) && !(x >= 0 && x <= 15 && x == floor(x)))
        vproblem(v, "%s: sig must be a whole number from 0 to 15", what);
}

static void check_patterns(struct vctx *v, int list, const char *what)
{
    lua_State *L = v->L;
    size_t n = lua_rawlen(L, list);
    for (size_t i = 1; i <= n; i++) {
        lua_rawgeti(L, list, (lua_Integer)i);
        size_t len;
        const char *pat = lua_tolstring(L, -1, &len);
        char why[128];
        if (pat && !grader_pattern_check(pat, len, why, sizeof why))
            vproblem(v, "%s %zu ('%s'): %s", what, i, pat, why);
        lua_pop(L, 1);
    }
}

/* A list of tables, each checked by `each` (index of the entry, 1-based). */
typedef void (*entry_check)(struct vctx *v, int entry, size_t i, void *ud);

static void check_list(struct vctx *v, int t, const char *name, entry_check each, void *ud)
{
    lua_State *L = v->L;
    if (field(L, t, name) != LUA_TTABLE) { /* list */
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
        vproblem(v, "'%s' must be a list { ..., ... } without named entries", name);
    for (size_t i = 1; i <= n; i++) {
        lua_rawgeti(L, list, (lua_Integer)i); /* list entry */
        if (lua_type(L, -1) != LUA_TTABLE)
            vproblem(v, "%s %zu must be a table, got %s", name, i, luaL_typename(L, -1));
        else
            each(v, lua_gettop(L), i, ud);
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
}

static void sub_label(struct vctx *sub, const struct vctx *v, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void sub_label(struct vctx *sub, const struct vctx *v, const char *fmt, ...)
{
    *sub = *v;
    size_t len = strlen(sub->label);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(sub->label + len, sizeof sub->label - len, fmt, ap);
    va_end(ap);
    sub->bad = false;
}

static void each_band(struct vctx *v, int t, size_t i, void *ud)
{
    (void)ud;
    struct vctx s;
    sub_label(&s, v, ": band %zu", i);
    check_fields(&s, t, band_fields, -1, NULL, 0);
    static const char *const req[] = {"score", NULL};
    require_fields(&s, t, req);
    double x;
    if (num_field(v->L, t, "score", &x) && !(x >= 0 && x <= 1))
        vproblem(&s, "score must be a fraction from 0 to 1");
    check_tol_values(&s, t, "tolerance");
    v->bad |= s.bad;
}

static void each_wrong(struct vctx *v, int t, size_t i, void *ud)
{
    (void)ud;
    struct vctx s;
    sub_label(&s, v, ": wrong %zu", i);
    check_fields(&s, t, wrong_fields, -1, NULL, 0);
    static const char *const req[] = {"value", NULL};
    require_fields(&s, t, req);
    double x;
    if (num_field(v->L, t, "value", &x) && !isfinite(x))
        vproblem(&s, "value must be a finite number");
    v->bad |= s.bad;
}

/* Phrases of a design rubric are looked up word by word: a phrase longer
 * than GRADER_DESIGN_MAX_PHRASE bytes is a mistake. */
static void check_phrases(struct vctx *v, int t, const char *name)
{
    lua_State *L = v->L;
    if (field(L, t, name) == LUA_TTABLE && is_list_of(L, -1, LUA_TSTRING)) {
        size_t n = lua_rawlen(L, -1);
        for (size_t i = 1; i <= n; i++) {
            lua_rawgeti(L, -1, (lua_Integer)i);
            if (lua_rawlen(L, -1) > GRADER_DESIGN_MAX_PHRASE)
                vproblem(v, "%s %zu is longer than %d bytes", name, i, GRADER_DESIGN_MAX_PHRASE);
            lua_pop(L, 1);
        }
    }
    lua_pop(L, 1);
}

/* near = { { "warp", "switch*", within = 5 }, ... } */
static void each_near(struct vctx *v, int t, size_t i, void *ud)
{
    (void)ud;
    lua_State *L = v->L;
    struct vctx s;
    sub_label(&s, v, ": near %zu", i);
    size_t n = lua_rawlen(L, t);
    check_fields(&s, t, near_fields, -1, NULL, (lua_Integer)n);
    if (n < 2 || n > 32)
        vproblem(&s, "give 2 to 32 terms: { \"warp\", \"switch*\", within = 5 }");
    for (size_t k = 1; k <= n; k++) {
        lua_rawgeti(L, t, (lua_Integer)k);
        if (lua_type(L, -1) != LUA_TSTRING)
            vproblem(&s, "term %zu must be a string, got %s", k, luaL_typename(L, -1));
        else if (lua_rawlen(L, -1) > GRADER_DESIGN_MAX_PHRASE)
            vproblem(&s, "term %zu is longer than %d bytes", k, GRADER_DESIGN_MAX_PHRASE);
        lua_pop(L, 1);
    }
    double w;
    if (num_field(L, t, "within", &w) && !(w >= 1 && w <= 1000 && w == floor(w)))
        vproblem(&s, "within must be a whole number of words from 1 to 1000");
    v->bad |= s.bad;
}

/* The ways a concept (or a contradiction) is found: match, patterns, near.
 * Returns how many are given. */
static size_t check_finders(struct vctx *v, int t)
{
    lua_State *L = v->L;
    size_t n = 0;
    if (field(L, t, "match") == LUA_TTABLE)
        n += lua_rawlen(L, -1);
    lua_pop(L, 1);
    check_phrases(v, t, "match");
    if (field(L, t, "patterns") == LUA_TTABLE) {
        n += lua_rawlen(L, -1);
        if (is_list_of(L, -1, LUA_TSTRING))
            check_patterns(v, lua_gettop(L), "pattern");
    }
    lua_pop(L, 1);
    if (field(L, t, "near") == LUA_TTABLE)
        n += lua_rawlen(L, -1);
    lua_pop(L, 1);
    check_list(v, t, "near", each_near, NULL);
    return n;
}

/* contradicts = { "phrase", { match = ..., patterns = ..., feedback = ... } } */
static void check_contradicts(struct vctx *v, int t)
{
    lua_State *L = v->L;
    if (field(L, t, "contradicts") != LUA_TTABLE) {
        lua_pop(L, 1);
        return;
    }
    int list = lua_gettop(L);
    size_t n = lua_rawlen(L, list);
    for (size_t i = 1; i <= n; i++) {
        struct vctx s;
        sub_label(&s, v, ": contradicts %zu", i);
        int ty = lua_rawgeti(L, list, (lua_Integer)i);
        if (ty == LUA_TSTRING) {
            if (lua_rawlen(L, -1) > GRADER_DESIGN_MAX_PHRASE)
                vproblem(&s, "is longer than %d bytes", GRADER_DESIGN_MAX_PHRASE);
        } else if (ty == LUA_TTABLE) {
            int e = lua_gettop(L);
            check_fields(&s, e, contradicts_fields, -1, NULL, 0);
            if (check_finders(&s, e) == 0)
                vproblem(&s, "give 'match' phrases, 'patterns' or 'near' groups");
        } else {
            vproblem(&s, "must be a phrase or a table { match = ..., feedback = ... }, got %s",
                     luaL_typename(L, -1));
        }
        lua_pop(L, 1);
        v->bad |= s.bad;
    }
    lua_pop(L, 1);
}

static void each_concept(struct vctx *v, int t, size_t i, void *ud)
{
    (void)ud;
    lua_State *L = v->L;
    struct vctx s;
    sub_label(&s, v, ": concept %zu", i);
    check_fields(&s, t, concept_fields, -1, NULL, 0);
    static const char *const req[] = {"name", NULL};
    require_fields(&s, t, req);
    double x;
    if (num_field(L, t, "points", &x) && !(x > 0 && isfinite(x)))
        vproblem(&s, "points must be a number > 0");
    if (check_finders(&s, t) == 0)
        vproblem(&s, "give 'match' phrases, 'patterns' or 'near' groups");
    check_contradicts(&s, t);
    v->bad |= s.bad;
}

/* samples = { { answer = "...", score = 0.9, tol = 0.25, role = "good" }, ... } */
static void each_sample(struct vctx *v, int t, size_t i, void *ud)
{
    (void)ud;
    lua_State *L = v->L;
    struct vctx s;
    sub_label(&s, v, ": sample %zu", i);
    check_fields(&s, t, sample_fields, -1, NULL, 0);
    static const char *const req[] = {"answer", "score", NULL};
    require_fields(&s, t, req);
    double x;
    if (num_field(L, t, "score", &x) && !(x >= 0 && x <= 1))
        vproblem(&s, "score must be a fraction from 0 to 1 (what a person gave it)");
    if (num_field(L, t, "tol", &x) && !(x >= 0 && x <= 1))
        vproblem(&s, "tol must be a fraction from 0 to 1");
    if (field(L, t, "role") == LUA_TSTRING) {
        static const char *const roles[] = {"good", "partial", "keywords", "reversed"};
        const char *r = lua_tostring(L, -1);
        bool ok = false;
        for (size_t k = 0; k < 4; k++)
            ok |= strcmp(r, roles[k]) == 0;
        if (!ok)
            vproblem(&s, "role '%s' is not one of good, partial, keywords, reversed", r);
    }
    lua_pop(L, 1);
    v->bad |= s.bad;
}

static void each_example(struct vctx *v, int t, size_t i, void *ud)
{
    (void)ud;
    lua_State *L = v->L;
    struct vctx s;
    sub_label(&s, v, ": example %zu", i);
    /* Positional { answer, score } or named fields; both may carry params/lab. */
    bool pos1 = false, pos2 = false;
    lua_rawgeti(L, t, 1);
    pos1 = !lua_isnil(L, -1);
    if (pos1 && !type_ok(L, -1, T_STR | T_NUM | T_FUN))
        vproblem(&s, "the answer (first entry) must be a string, a number or a function, got %s",
                 luaL_typename(L, -1));
    lua_pop(L, 1);
    lua_rawgeti(L, t, 2);
    pos2 = !lua_isnil(L, -1);
    lua_pop(L, 1);
    check_fields(&s, t, example_fields, -1, NULL, 2);
    bool has_answer = has_field(L, t, "answer"), has_score = has_field(L, t, "score");
    bool has_order = has_field(L, t, "order");
    if ((pos1 || has_answer) && has_order)
        vproblem(&s, "gives both an answer and an order: use one");
    if (pos1 && has_answer)
        vproblem(&s, "gives the answer twice (first entry and answer =)");
    has_answer |= has_order;
    if (pos2 && has_score)
        vproblem(&s, "gives the score twice (second entry and score =)");
    if (!pos1 && !has_answer)
        vproblem(&s, "missing the answer: write { \"2.5\", 1 } or { answer = \"2.5\", score = 1 }");
    if (!pos2 && !has_score)
        vproblem(&s, "missing the expected score: a fraction from 0 to 1, or \"invalid\"");
    if (pos2)
        lua_rawgeti(L, t, 2);
    else
        field(L, t, "score");
    if (lua_type(L, -1) == LUA_TNUMBER) {
        double x = lua_tonumber(L, -1);
        if (!(x >= 0 && x <= 1))
            vproblem(&s, "the expected score must be a fraction from 0 to 1, or \"invalid\"");
    } else if (lua_type(L, -1) == LUA_TSTRING) {
        if (strcmp(lua_tostring(L, -1), "invalid") != 0)
            vproblem(&s, "the expected score must be a fraction from 0 to 1, or \"invalid\"");
    } else if (!lua_isnil(L, -1)) {
        vproblem(&s, "the expected score must be a fraction from 0 to 1, or \"invalid\"");
    }
    lua_pop(L, 1);
    if (field(L, t, "lab") == LUA_TTABLE) {
        struct vctx l;
        sub_label(&l, &s, ": lab");
        check_fields(&l, lua_gettop(L), lab_fields, -1, NULL, 0);
        s.bad |= l.bad;
    }
    lua_pop(L, 1);
    v->bad |= s.bad;
}

/* ---- declarations into the model ----------------------------------------------------- */

/* Reads t.policy into *d (unset parts stay unset), reporting bad values. */
static void read_policy(struct vctx *v, int t, struct policy_decl *d)
{
    lua_State *L = v->L;
    memset(d, 0, sizeof *d);
    if (field(L, t, "policy") != LUA_TTABLE) {
        lua_pop(L, 1);
        return;
    }
    int pt = lua_gettop(L);
    struct vctx s;
    sub_label(&s, v, ": policy");
    check_fields(&s, pt, policy_fields, -1, NULL, 0);
    double x;
    if (num_field(L, pt, "tries", &x)) {
        if (!(x >= 0 && x <= 1000 && x == floor(x)))
            vproblem(&s, "tries must be a whole number from 1 to 1000 (0: unlimited)");
        else
            d->has_tries = true, d->p.tries = (int)x;
    }
    bool pen = num_field(L, pt, "penalty", &x);
    if (pen) {
        if (!(x >= 0 && x <= 1))
            vproblem(&s, "penalty must be a fraction of the points from 0 to 1 (1/3: a third "
                         "lost per wrong try)");
        else
            d->has_score = true, d->p.penalty = x;
    }
    if (field(L, pt, "per_try") == LUA_TTABLE && is_list_of(L, -1, LUA_TNUMBER)) {
        size_t n = lua_rawlen(L, -1);
        if (pen)
            vproblem(&s, "give either penalty or per_try, not both");
        else if (n == 0 || n > GRADER_PER_TRY_MAX)
            vproblem(&s, "per_try needs 1 to %d fractions (what try 1, 2, ... can earn)",
                     GRADER_PER_TRY_MAX);
        for (size_t i = 1; i <= n && i <= GRADER_PER_TRY_MAX && !pen; i++) {
            lua_rawgeti(L, -1, (lua_Integer)i);
            double f = lua_tonumber(L, -1);
            lua_pop(L, 1);
            if (!(f >= 0 && f <= 1))
                vproblem(&s, "per_try[%zu] must be a fraction from 0 to 1", i);
            d->p.per_try[i - 1] = f;
        }
        if (!pen && n > 0 && n <= GRADER_PER_TRY_MAX) {
            d->has_score = true, d->p.n_per_try = (int)n;
            if (!d->has_tries) /* as many tries as the list has entries, unless told */
                d->has_tries = true, d->p.tries = (int)n;
        }
    }
    lua_pop(L, 1);
    v->bad |= s.bad;
    lua_pop(L, 1); /* policy */
}

/* `over` on top of `base`, field by field. */
static void policy_over(struct policy_decl *base, const struct policy_decl *over)
{
    if (over->has_tries)
        base->has_tries = true, base->p.tries = over->p.tries;
    if (over->has_score) {
        base->has_score = true;
        base->p.penalty = over->p.penalty;
        base->p.n_per_try = over->p.n_per_try;
        memcpy(base->p.per_try, over->p.per_try, sizeof base->p.per_try);
    }
}

static void check_pack(struct eval *e, struct vctx *v, int t)
{
    lua_State *L = v->L;
    struct grader_pack *p = e->pack;
    if (field(L, t, "id") == LUA_TSTRING)
        snprintf(v->label, sizeof v->label, "pack %s", lua_tostring(L, -1));
    lua_pop(L, 1);
    check_fields(v, t, pack_fields, -1, NULL, 0);
    static const char *const req[] = {"id", "title", "version", "lessons", NULL};
    require_fields(v, t, req);
    p->info.id = str_field(L, t, "id");
    p->info.title = str_field(L, t, "title");
    p->info.version = str_field(L, t, "version");
    p->info.description = str_field(L, t, "description");
    if (field(L, t, "cbm") == LUA_TBOOLEAN)
        p->info.cbm = lua_toboolean(L, -1);
    lua_pop(L, 1);
    read_policy(v, t, &e->pack_policy);
    check_id(v, "id", p->info.id);
    p->info.rubric = strs_field(L, t, "rubric", &p->info.n_rubric, NULL);
    for (size_t i = 0; i < p->info.n_rubric; i++)
        check_id(v, "rubric item", p->info.rubric[i]);
    size_t n;
    char **lessons = strs_field(L, t, "lessons", &n, NULL);
    if (field(L, t, "lessons") == LUA_TTABLE && is_list_of(L, -1, LUA_TSTRING))
        e->lessons_known = true;
    lua_pop(L, 1);
    if (has_field(L, t, "lessons") && n == 0) {
        if (field(L, t, "lessons") == LUA_TTABLE && is_list_of(L, -1, LUA_TSTRING))
            vproblem(v, "'lessons' is empty: list the lesson files in teaching order");
        lua_pop(L, 1);
    }
    for (size_t i = 0; i < n; i++) {
        bool dup = false;
        for (size_t k = 0; k < e->lessons.n; k++)
            dup |= strcmp(e->lessons.items[k], lessons[i]) == 0;
        if (dup)
            vproblem(v, "lesson file '%s' is listed twice", lessons[i]);
        else
            core_strlist_push(&e->lessons, lessons[i]);
    }
    strv_free(lessons, n);
    /* assets: patterns relative to the pack folder (matched in lessons/,
     * which reads the folder); a pattern that could leave it is refused */
    p->info.assets = strs_field(L, t, "assets", &p->info.n_assets, NULL);
    for (size_t i = 0; i < p->info.n_assets; i++) {
        const char *a = p->info.assets[i];
        bool up = strcmp(a, "..") == 0 || strncmp(a, "../", 3) == 0 || strstr(a, "/../") ||
                  (strlen(a) >= 3 && strcmp(a + strlen(a) - 3, "/..") == 0);
        if (!a[0] || a[0] == '/' || up)
            vproblem(v,
                     "assets: '%s' must be a pattern of files inside the pack folder "
                     "(like \"img/*.png\")",
                     a);
    }
}

static struct grader_lesson *add_lesson(struct grader_pack *p)
{
    p->info.lessons = grow(p->info.lessons, p->info.n_lessons, sizeof *p->info.lessons);
    struct grader_lesson *l = &p->info.lessons[p->info.n_lessons++];
    memset(l, 0, sizeof *l);
    return l;
}

static void check_lesson(struct eval *e, struct vctx *v, int t)
{
    lua_State *L = v->L;
    if (field(L, t, "id") == LUA_TSTRING)
        snprintf(v->label, sizeof v->label, "lesson %s", lua_tostring(L, -1));
    lua_pop(L, 1);
    check_fields(v, t, lesson_fields, -1, NULL, 0);
    static const char *const req[] = {"id", "title", NULL};
    require_fields(v, t, req);
    struct grader_lesson *l = add_lesson(e->pack);
    e->lesson_index = e->pack->info.n_lessons - 1;
    e->lesson = l;
    l->id = str_field(L, t, "id");
    l->title = str_field(L, t, "title");
    l->file = core_xstrdup(e->path);
    l->line = v->line;
    check_id(v, "id", l->id);
    if (!l->id)
        l->id = core_xstrdup("");
    if (!l->title)
        l->title = core_xstrdup("");
    e->topics = strs_field(L, t, "topics", &e->n_topics, NULL);
    e->rubric = strs_field(L, t, "rubric", &e->n_rubric, NULL);
    e->lesson_policy = e->pack_policy;
    struct policy_decl own;
    read_policy(v, t, &own);
    policy_over(&e->lesson_policy, &own);
    int ty = field(L, t, "exam");
    if (ty == LUA_TBOOLEAN) {
        l->exam = lua_toboolean(L, -1);
    } else if (ty == LUA_TTABLE) {
        struct vctx s;
        sub_label(&s, v, ": exam");
        check_fields(&s, lua_gettop(L), exam_fields, -1, NULL, 0);
        l->exam = true;
        double m;
        if (num_field(L, lua_gettop(L), "minutes", &m)) {
            if (!(m > 0 && m <= 7 * 24 * 60))
                vproblem(&s, "minutes must be a time limit above 0 (at most a week)");
            else
                l->time_limit_s = (int)ceil(m * 60);
        }
        v->bad |= s.bad;
    }
    lua_pop(L, 1);
}

/* The first "# " heading of a page, or NULL. */
static char *heading(const char *md)
{
    const char *s = md;
    while (*s) {
        const char *eol = strchr(s, '\n');
        size_t len = eol ? (size_t)(eol - s) : strlen(s);
        const char *t = s;
        while (t < s + len && (*t == ' ' || *t == '\t'))
            t++;
        if (t + 1 < s + len && t[0] == '#' && t[1] == ' ') {
            t += 2;
            const char *end = s + len;
            while (t < end && *t == ' ')
                t++;
            while (end > t && (end[-1] == ' ' || end[-1] == '\r' || end[-1] == '#'))
                end--;
            return core_xstrndup(t, (size_t)(end - t));
        }
        if (!eol)
            break;
        s = eol + 1;
    }
    return NULL;
}

static void check_page(struct eval *e, struct vctx *v, int t)
{
    lua_State *L = v->L;
    char *title = NULL, *text = NULL;
    if (lua_type(L, t) == LUA_TSTRING) {
        text = core_xstrdup(lua_tostring(L, t));
    } else if (lua_type(L, t) == LUA_TTABLE) {
        check_fields(v, t, page_fields, -1, NULL, 0);
        static const char *const req[] = {"text", NULL};
        require_fields(v, t, req);
        title = str_field(L, t, "title");
        text = str_field(L, t, "text");
    } else {
        vproblem(v,
                 "page expects Markdown text: page [[ ... ]] or page { title = ..., text = ... }, "
                 "got %s",
                 luaL_typename(L, t));
        return;
    }
    if (!text)
        text = core_xstrdup("");
    if (!title)
        title = heading(text);
    struct grader_lesson *l = e->lesson;
    l->pages = grow(l->pages, l->n_pages, sizeof *l->pages);
    struct grader_page *pg = &l->pages[l->n_pages++];
    pg->title = title;
    pg->markdown = text;
    pg->line = v->line;
}

/* The static checks of a question; fills the model entry q. */
static void check_question(struct eval *e, struct vctx *v, int t, struct grader_question *q)
{
    lua_State *L = v->L;
    q->file = core_xstrdup(e->path);
    q->line = v->line;
    q->points = 1;
    q->page_after = (int)e->lesson->n_pages - 1;
    q->id = str_field(L, t, "id");
    if (q->id) {
        snprintf(v->label, sizeof v->label, "question %s", q->id);
        check_id(v, "id", q->id);
    }
    int kind = -1;
    char *kind_s = str_field(L, t, "kind");
    if (kind_s) {
        kind = grader_kind_find(kind_s);
        if (kind < 0) {
            static const char *const kinds[] = {"numeric",  "choice", "multi",
                                                "ordering", "text",   "design"};
            const char *sugg = grader_name_closest(kind_s, kinds, 6);
            char dym[64] = "";
            if (sugg)
                snprintf(dym, sizeof dym, "did you mean '%s'? ", sugg);
            vproblem(v,
                     "unknown kind '%s' (%sthe kinds are numeric, choice, multi, ordering, "
                     "text, design)",
                     kind_s, dym);
        }
    }
    free(kind_s);
    q->kind = kind < 0 ? GRADER_NUMERIC : (enum grader_kind)kind;
    /* With an unknown kind, kind-specific fields cannot be judged: check
     * only the names. */
    check_fields(v, t, question_fields, kind, kind >= 0 ? grader_kind_name(q->kind) : "?", 0);
    static const char *const req[] = {"id", "kind", "prompt", NULL};
    require_fields(v, t, req);
    q->title = str_field(L, t, "title");
    q->prompt = str_field(L, t, "prompt");
    if (!q->prompt)
        q->prompt = core_xstrdup("");
    double pts;
    if (num_field(L, t, "points", &pts)) {
        if (!(pts > 0 && isfinite(pts)))
            vproblem(v, "points must be a number > 0");
        else
            q->points = pts;
    }
    bool present;
    q->topics = strs_field(L, t, "topics", &q->n_topics, &present);
    if (!present) {
        q->topics = strv_dup(e->topics, e->n_topics);
        q->n_topics = e->n_topics;
    }
    q->rubric = strs_field(L, t, "rubric", &q->n_rubric, &present);
    if (!present) {
        q->rubric = strv_dup(e->rubric, e->n_rubric);
        q->n_rubric = e->n_rubric;
    }
    q->lab = str_field(L, t, "lab");
    check_id(v, "lab", q->lab);
    size_t nh;
    char **hints = strs_field(L, t, "hints", &nh, NULL);
    strv_free(hints, nh);
    q->n_hints = nh;
    q->has_params = has_field(L, t, "params");
    q->has_grade = has_field(L, t, "grade");
    if (field(L, t, "examples") == LUA_TTABLE)
        q->n_examples = lua_rawlen(L, -1);
    lua_pop(L, 1);
    q->unit = core_xstrdup("");
    q->max_answer = grader_kind_max_answer(q->kind);
    double ma;
    if (num_field(L, t, "max_answer", &ma)) {
        if (!(ma >= 1 && ma <= GRADER_MAX_ANSWER && ma == floor(ma)))
            vproblem(v, "max_answer must be a whole number of bytes from 1 to %d",
                     GRADER_MAX_ANSWER);
        else
            q->max_answer = (size_t)ma;
    }
    if (kind < 0) {
        v->bad = true;
        return;
    }

    bool grade = q->has_grade, answer = has_field(L, t, "answer");
    switch (q->kind) {
    case GRADER_NUMERIC: {
        char *unit = str_field(L, t, "unit");
        if (unit) {
            if (!grader_unit_find(unit))
                vproblem(v, "unknown unit '%s' (e.g. \"\", \"x\", \"%%\", \"ms\", \"s\", \"GB/s\")",
                         unit);
            free(q->unit);
            q->unit = unit;
        }
        if (!answer && !grade)
            vproblem(v, "a numeric question needs 'answer' (a number or function(p, ctx)) or a "
                        "custom 'grade'");
        double a;
        if (num_field(L, t, "answer", &a) && !isfinite(a))
            vproblem(v, "answer must be a finite number");
        if (field(L, t, "tolerance") == LUA_TTABLE) {
            struct vctx s;
            sub_label(&s, v, ": tolerance");
            check_fields(&s, lua_gettop(L), tol_fields, -1, NULL, 0);
            check_tol_values(&s, lua_gettop(L), "tolerance");
            v->bad |= s.bad;
        }
        lua_pop(L, 1);
        check_list(v, t, "bands", each_band, NULL);
        check_list(v, t, "wrong", each_wrong, NULL);
        break;
    }
    case GRADER_CHOICE:
    case GRADER_MULTI: {
        size_t nc;
        char **choices = strs_field(L, t, "choices", &nc, &present);
        strv_free(choices, nc);
        q->n_choices = nc;
        bool listed = field(L, t, "choices") == LUA_TTABLE && is_list_of(L, -1, LUA_TSTRING);
        lua_pop(L, 1);
        if (!present)
            vproblem(v, "a %s question needs 'choices'", grader_kind_name(q->kind));
        else if (listed && nc < 2)
            vproblem(v, "'choices' needs at least 2 entries");
        else if (nc > 26)
            vproblem(v, "'choices' has %zu entries; at most 26 can be lettered a to z", nc);
        if (!listed) /* the rest would only repeat that */
            break;
        if (!answer && !grade)
            vproblem(v, "a %s question needs 'answer' (%s) or a custom 'grade'",
                     grader_kind_name(q->kind),
                     q->kind == GRADER_CHOICE ? "the number of the right choice"
                                              : "the list of the right choices' numbers");
        int ty = field(L, t, "answer");
        if (ty == LUA_TNUMBER && q->kind == GRADER_CHOICE) {
            lua_Integer k;
            int isint;
            k = lua_tointegerx(L, -1, &isint);
            if (!isint || k < 1 || (size_t)k > nc)
                vproblem(v, "answer %s is out of range: there are %zu choices (answer 1 to %zu)",
                         lua_tostring(L, -1), nc, nc);
        } else if (ty == LUA_TTABLE && q->kind == GRADER_MULTI && is_list_of(L, -1, LUA_TNUMBER)) {
            size_t n = lua_rawlen(L, -1);
            if (n == 0)
                vproblem(v, "answer is empty: list the numbers of the right choices");
            bool seen[256] = {false};
            for (size_t i = 1; i <= n; i++) {
                lua_rawgeti(L, -1, (lua_Integer)i);
                int isint;
                lua_Integer k = lua_tointegerx(L, -1, &isint);
                if (!isint || k < 1 || (size_t)k > nc)
                    vproblem(v, "answer entry %s is out of range: there are %zu choices",
                             lua_tostring(L, -1), nc);
                else if (k < 256 && seen[k])
                    vproblem(v, "answer lists choice %lld twice", (long long)k);
                else if (k < 256)
                    seen[k] = true;
                lua_pop(L, 1);
            }
        }
        lua_pop(L, 1);
        if (field(L, t, "why") == LUA_TTABLE) {
            int w = lua_gettop(L);
            lua_pushnil(L);
            while (lua_next(L, w)) { /* k v */
                int isint = 0;
                lua_Integer k = lua_type(L, -2) == LUA_TNUMBER ? lua_tointegerx(L, -2, &isint) : 0;
                if (!isint || k < 1 || (size_t)k > nc) {
                    vproblem(v,
                             "'why' has an entry that is not a choice number from 1 to %zu "
                             "(write why = { [2] = \"...\" })",
                             nc);
                } else if (lua_type(L, -1) != LUA_TSTRING) {
                    vproblem(v, "why[%lld] must be a string, got %s", (long long)k,
                             luaL_typename(L, -1));
                }
                lua_pop(L, 1);
            }
        }
        lua_pop(L, 1);
        break;
    }
    case GRADER_ORDERING: {
        size_t ni;
        char **items = strs_field(L, t, "items", &ni, &present);
        strv_free(items, ni);
        q->n_choices = ni;
        bool listed = field(L, t, "items") == LUA_TTABLE && is_list_of(L, -1, LUA_TSTRING);
        lua_pop(L, 1);
        if (!present)
            vproblem(v, "an ordering question needs 'items' (in the right order)");
        else if (listed && ni < 2)
            vproblem(v, "'items' needs at least 2 entries");
        else if (ni > 26)
            vproblem(v, "'items' has %zu entries; at most 26 can be lettered a to z", ni);
        break;
    }
    case GRADER_TEXT:
        if (!answer && !grade)
            vproblem(v, "a text question needs 'answer' (the accepted text, a list of them, or "
                        "function(p, ctx)) or a custom 'grade'");
        if (field(L, t, "answer") == LUA_TTABLE && lua_rawlen(L, -1) == 0 &&
            is_list_of(L, -1, LUA_TSTRING))
            vproblem(v, "answer is an empty list");
        lua_pop(L, 1);
        if (field(L, t, "patterns") == LUA_TTABLE && is_list_of(L, -1, LUA_TSTRING))
            check_patterns(v, lua_gettop(L), "pattern");
        lua_pop(L, 1);
        break;
    case GRADER_DESIGN:
        if (!has_field(L, t, "concepts") && !grade)
            vproblem(v, "a design question needs 'concepts' or a custom 'grade'");
        if (field(L, t, "concepts") == LUA_TTABLE && lua_rawlen(L, -1) == 0)
            vproblem(v, "'concepts' is empty");
        lua_pop(L, 1);
        check_list(v, t, "concepts", each_concept, NULL);
        check_list(v, t, "samples", each_sample, NULL);
        if (field(L, t, "samples") == LUA_TTABLE)
            q->n_samples = lua_rawlen(L, -1);
        lua_pop(L, 1);
        break;
    }
    check_list(v, t, "examples", each_example, NULL);
}

/* The question's policy: its own, over the lesson's (which is over the
 * pack's), over the kind's default; exam mode allows one try. */
static void resolve_policy(struct eval *e, struct vctx *v, int t, struct grader_question *q)
{
    struct policy_decl d = {0}, own;
    grader_policy_default(q->kind, &d.p);
    policy_over(&d, &e->lesson_policy);
    read_policy(v, t, &own);
    policy_over(&d, &own);
    if (e->lesson && e->lesson->exam)
        d.p.tries = 1;
    q->policy = d.p;
}

/* ---- calculators ------------------------------------------------------------------- */

/* What the entries of a calculator's lists are added to. */
struct calc_build {
    struct grader_calc *c;
    struct grader_cx *x;
};

/* An input name is what compute() reads as v.NAME and what `--set NAME=`
 * names: a Lua identifier, not a keyword. */
static bool input_name_ok(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 32 || (s[0] >= '0' && s[0] <= '9'))
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_'))
            return false;
    }
    static const char *const kw[] = {"and",   "break", "do",       "else",  "elseif", "end",
                                     "false", "for",   "function", "goto",  "if",     "in",
                                     "local", "nil",   "not",      "or",    "repeat", "return",
                                     "then",  "true",  "until",    "while", NULL};
    for (int k = 0; kw[k]; k++)
        if (strcmp(kw[k], s) == 0)
            return false;
    return true;
}

static void input_names(const struct grader_calc *c, char *buf, size_t n)
{
    buf[0] = '\0';
    for (size_t i = 0; i < c->n_inputs; i++) {
        size_t len = strlen(buf);
        snprintf(buf + len, n - len, "%s%s", i ? ", " : "", c->inputs[i].name);
    }
}

static void each_calc_input(struct vctx *v, int t, size_t i, void *ud)
{
    lua_State *L = v->L;
    struct calc_build *b = ud;
    struct grader_calc *c = b->c;
    struct grader_calc_input in = {0};
    in.name = str_field(L, t, "name");
    struct vctx s;
    if (in.name)
        sub_label(&s, v, ": input '%s'", in.name);
    else
        sub_label(&s, v, ": input %zu", i);
    check_fields(&s, t, calc_input_fields, -1, NULL, 0);
    static const char *const req[] = {"name", "default", NULL};
    require_fields(&s, t, req);
    if (in.name && !input_name_ok(in.name))
        vproblem(&s,
                 "name '%s' is not valid: use up to 32 letters, digits and '_', not starting "
                 "with a digit (compute reads it as v.NAME)",
                 in.name);
    for (size_t k = 0; in.name && k < c->n_inputs; k++)
        if (strcmp(c->inputs[k].name, in.name) == 0)
            vproblem(&s, "input name '%s' is used twice", in.name);
    in.label = str_field(L, t, "label");
    in.unit = str_field(L, t, "unit");
    in.help = str_field(L, t, "help");
    in.min = -HUGE_VAL;
    in.max = HUGE_VAL;
    bool has_min = num_field(L, t, "min", &in.min), has_max = num_field(L, t, "max", &in.max);
    bool has_def = num_field(L, t, "default", &in.def);
    if (field(L, t, "integer") == LUA_TBOOLEAN)
        in.integer = lua_toboolean(L, -1);
    lua_pop(L, 1);
    if (has_min && !isfinite(in.min))
        vproblem(&s, "min must be a finite number");
    if (has_max && !isfinite(in.max))
        vproblem(&s, "max must be a finite number");
    bool range_ok = !(has_min && has_max && in.min > in.max);
    if (!range_ok)
        vproblem(&s, "min %g is greater than max %g", in.min, in.max);
    if (has_def && !isfinite(in.def))
        vproblem(&s, "default must be a finite number");
    else if (has_def && range_ok && (in.def < in.min || in.def > in.max))
        vproblem(&s, "default %g is outside its range [%g, %g]", in.def, in.min, in.max);
    else if (has_def && in.integer && in.def != floor(in.def))
        vproblem(&s, "default %g is not a whole number, but the input has integer = true", in.def);
    if (!has_def || !isfinite(in.def))
        in.def = 0;
    if (!in.name)
        in.name = core_xasprintf("input%zu", i);
    if (!in.label)
        in.label = core_xstrdup(in.name);
    if (!in.unit)
        in.unit = core_xstrdup("");
    c->inputs = grow(c->inputs, c->n_inputs, sizeof *c->inputs);
    c->inputs[c->n_inputs++] = in;
    v->bad |= s.bad;
}

static void each_calc_example(struct vctx *v, int t, size_t i, void *ud)
{
    lua_State *L = v->L;
    struct calc_build *b = ud;
    const struct grader_calc *c = b->c;
    struct vctx s;
    sub_label(&s, v, ": example %zu", i);
    check_fields(&s, t, calc_example_fields, -1, NULL, 0);
    static const char *const req[] = {"outputs", NULL};
    require_fields(&s, t, req);
    struct grader_calc_example ex = {0};
    ex.inputs = core_xcalloc(c->n_inputs ? c->n_inputs : 1, sizeof *ex.inputs);
    for (size_t k = 0; k < c->n_inputs; k++)
        ex.inputs[k] = c->inputs[k].def;
    if (field(L, t, "inputs") == LUA_TTABLE) { /* inputs */
        int in = lua_gettop(L);
        lua_pushnil(L);
        while (lua_next(L, in)) { /* inputs k v */
            const char *name = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
            size_t k = 0;
            while (name && k < c->n_inputs && strcmp(c->inputs[k].name, name) != 0)
                k++;
            if (!name) {
                vproblem(&s, "inputs are written name = value");
            } else if (k == c->n_inputs) {
                char names[256];
                input_names(c, names, sizeof names);
                vproblem(&s, "unknown input '%s' (the inputs are: %s)", name, names);
            } else if (lua_type(L, -1) != LUA_TNUMBER || !isfinite(lua_tonumber(L, -1))) {
                vproblem(&s, "input '%s' must be a finite number, got %s", name,
                         luaL_typename(L, -1));
            } else {
                ex.inputs[k] = lua_tonumber(L, -1);
            }
            lua_pop(L, 1); /* inputs k */
        }
    }
    lua_pop(L, 1);
    if (field(L, t, "outputs") == LUA_TTABLE) { /* outputs */
        size_t n = lua_rawlen(L, -1);
        bool list = is_list_of(L, -1, LUA_TNUMBER) || is_list_of(L, -1, LUA_TSTRING);
        if (!list) { /* a mix is fine too: check entry by entry */
            list = true;
            lua_Integer count = 0;
            lua_pushnil(L);
            while (lua_next(L, -2)) {
                int isint = 0;
                lua_Integer k = lua_tointegerx(L, -2, &isint);
                int ty = lua_type(L, -1);
                list &=
                    isint && k >= 1 && (size_t)k <= n && (ty == LUA_TNUMBER || ty == LUA_TSTRING);
                count++;
                lua_pop(L, 1);
            }
            list &= (size_t)count == n;
        }
        if (!list)
            vproblem(&s, "outputs must be a list of the expected values (numbers, or texts for "
                         "text outputs), in the order compute returns them");
        else if (n == 0)
            vproblem(&s, "outputs is empty: list the expected values");
        if (list && n > 0) {
            ex.n_outputs = n;
            ex.values = core_xcalloc(n, sizeof *ex.values);
            ex.texts = core_xcalloc(n, sizeof *ex.texts);
            for (size_t k = 0; k < n; k++) {
                lua_rawgeti(L, -1, (lua_Integer)k + 1);
                if (lua_type(L, -1) == LUA_TSTRING)
                    ex.texts[k] = core_xstrdup(lua_tostring(L, -1));
                else if (!isfinite(ex.values[k] = lua_tonumber(L, -1)))
                    vproblem(&s, "output %zu must be a finite number", k + 1);
                lua_pop(L, 1);
            }
        }
    }
    lua_pop(L, 1);
    struct grader_cx *x = b->x;
    x->examples = grow(x->examples, x->n_examples, sizeof *x->examples);
    x->examples[x->n_examples++] = ex;
    v->bad |= s.bad;
}

/* The static checks of a calculator; fills the model entry c and the
 * private entry x (its examples). */
static void check_calc(struct eval *e, struct vctx *v, int t, struct grader_calc *c,
                       struct grader_cx *x)
{
    lua_State *L = v->L;
    c->file = core_xstrdup(e->path);
    c->line = v->line;
    c->page_after = (int)e->lesson->n_pages - 1;
    c->id = str_field(L, t, "id");
    if (c->id) {
        snprintf(v->label, sizeof v->label, "calculator %s", c->id);
        check_id(v, "id", c->id);
    }
    check_fields(v, t, calc_fields, -1, NULL, 0);
    static const char *const req[] = {"id", "title", "inputs", "compute", NULL};
    require_fields(v, t, req);
    c->title = str_field(L, t, "title");
    if (field(L, t, "inputs") == LUA_TTABLE && lua_rawlen(L, -1) == 0)
        vproblem(v, "'inputs' is empty: a calculator needs at least one input");
    lua_pop(L, 1);
    struct calc_build b = {c, x};
    check_list(v, t, "inputs", each_calc_input, &b);
    check_list(v, t, "examples", each_calc_example, &b);
}

/* Lua-callable driver: runs one file and turns its declarations into the
 * model. Runs under grader_pcall; problems go to the eval. */
static int l_eval(lua_State *L)
{
    struct eval *e = lua_touserdata(L, 1);
    struct grader_pfile *f = &e->pack->files[e->file];
    grader_sb_enter_c(L);
    lua_settop(L, 0);
    char where[160];
    snprintf(where, sizeof where, "%s:1", e->path);
    grader_sb_set_fallback(L, where);
    grader_decl_set_mode(L, e->mode);
    grader_sb_load(L, &f->bc, f->chunkname); /* chunk */
    if (grader_sb_try(L, 0, 0) != 0) {       /* msg */
        eproblem(e, CORE_ERR_SCRIPT, "%s", lua_tostring(L, -1));
        return 0;
    }
    lua_rawgetp(L, LUA_REGISTRYINDEX, &DECLS_KEY); /* decls */
    int decls = lua_gettop(L);
    size_t n = lua_rawlen(L, decls);
    int first_line[D_N] = {0};
    struct grader_pack *p = e->pack;
    for (size_t i = 1; i <= n; i++) {
        lua_rawgeti(L, decls, (lua_Integer)i); /* decls rec */
        lua_rawgeti(L, -1, 1);
        int kind = (int)lua_tointeger(L, -1);
        lua_rawgeti(L, -2, 3);
        int line = (int)lua_tointeger(L, -1);
        lua_pop(L, 2);
        lua_rawgeti(L, -1, 2); /* decls rec value */
        int val = lua_gettop(L);
        struct vctx v = {.e = e, .L = L, .line = line};
        snprintf(v.label, sizeof v.label, "%s", decl_name[kind]);
        if (kind != D_PAGE && kind != D_LESSON && lua_type(L, val) != LUA_TTABLE) {
            vproblem(&v, "%s expects a table: %s { ... }, got %s", decl_name[kind], decl_name[kind],
                     luaL_typename(L, val));
        } else if (e->mode == GRADER_DECL_PACK) {
            if (kind != D_PACK)
                vproblem(&v, "%s{} belongs in a lesson file, not in pack.lua", decl_name[kind]);
            else if (first_line[D_PACK])
                vproblem(&v, "pack{} is called again (first at line %d)", first_line[D_PACK]);
            else {
                first_line[D_PACK] = line;
                e->pack_line = line;
                check_pack(e, &v, val);
            }
        } else if (kind == D_PACK) {
            vproblem(&v, "pack{} belongs in pack.lua, not in a lesson file");
        } else if (kind == D_LESSON) {
            if (first_line[D_LESSON])
                vproblem(&v, "lesson{} is called again (first at line %d): one lesson per file",
                         first_line[D_LESSON]);
            else if (lua_type(L, val) != LUA_TTABLE)
                vproblem(&v, "lesson expects a table: lesson { id = ..., title = ... }, got %s",
                         luaL_typename(L, val));
            else {
                first_line[D_LESSON] = line;
                check_lesson(e, &v, val);
            }
        } else if (!e->lesson) {
            vproblem(&v,
                     "%s before lesson{}: a lesson file starts with lesson { id = ..., "
                     "title = ... }",
                     decl_name[kind]);
        } else if (kind == D_PAGE) {
            check_page(e, &v, val);
        } else if (kind == D_CALC) {
            struct grader_lesson *l = &p->info.lessons[e->lesson_index];
            l->calcs = grow(l->calcs, l->n_calcs, sizeof *l->calcs);
            struct grader_calc *c = &l->calcs[l->n_calcs++];
            memset(c, 0, sizeof *c);
            e->cx = grow(e->cx, e->n_cx, sizeof *e->cx);
            struct grader_cx *x = &e->cx[e->n_cx++];
            memset(x, 0, sizeof *x);
            core_buf_init(&x->slim);
            e->lesson = l;
            check_calc(e, &v, val, c, x);
            if (!c->id)
                c->id = core_xstrdup("");
            if (!c->title)
                c->title = core_xstrdup("");
            x->bad = v.bad;
        } else {
            struct grader_lesson *l = &p->info.lessons[e->lesson_index];
            l->questions = grow(l->questions, l->n_questions, sizeof *l->questions);
            struct grader_question *q = &l->questions[l->n_questions++];
            memset(q, 0, sizeof *q);
            e->lesson = l;
            check_question(e, &v, val, q);
            resolve_policy(e, &v, val, q);
            if (!q->id)
                q->id = core_xstrdup("");
            core_buf_putc(&e->bad, v.bad ? 1 : 0);
        }
        lua_settop(L, decls);
    }
    if (e->mode == GRADER_DECL_PACK && !first_line[D_PACK])
        eproblem(e, CORE_ERR_INVALID,
                 "%s:1: pack.lua must call pack { id = ..., title = ..., "
                 "version = ..., lessons = { ... } } once",
                 e->path);
    if (e->mode == GRADER_DECL_LESSON && !first_line[D_LESSON] && n == 0)
        eproblem(e, CORE_ERR_INVALID, "%s:1: no lesson { id = ..., title = ... } in this file",
                 e->path);
    return 0;
}

/* Runs one file in a fresh sandbox. */
static void eval_file(struct eval *e)
{
    struct grader_sb *sb;
    struct core_err err;
    if (grader_sb_new(&sb, &e->pack->lim, e->pack->pool, &err) != 0) {
        eproblem(e, err.code, "%s:1: %s", e->path, err.msg);
        return;
    }
    lua_State *L = grader_sb_lua(sb);
    lua_pushcfunction(L, l_eval);
    lua_pushlightuserdata(L, e);
    size_t declared = e->bad.len, calcs = e->n_cx;
    if (grader_pcall(sb, 1, 0, &err) != 0) {
        eproblem(e, err.code, "%s", err.msg);
        /* a limit in the middle of the walk: what it had declared is suspect */
        for (size_t i = declared; i < e->bad.len; i++)
            e->bad.data[i] = 1;
        for (size_t i = calcs; i < e->n_cx; i++)
            e->cx[i].bad = true;
    }
    grader_sb_free(sb);
    strv_free(e->topics, e->n_topics);
    strv_free(e->rubric, e->n_rubric);
    e->topics = e->rubric = NULL;
    e->n_topics = e->n_rubric = 0;
}

/* ---- the pack ------------------------------------------------------------------------ */

static size_t find_file(const struct grader_pack *p, const char *path)
{
    for (size_t i = 0; i < p->n_files; i++)
        if (strcmp(p->files[i].path, path) == 0)
            return i;
    return SIZE_MAX;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* The private question table and the id index. */
static void build_index(struct grader_pack *p, struct eval *e)
{
    size_t total = 0;
    for (size_t i = 0; i < p->info.n_lessons; i++)
        total += p->info.lessons[i].n_questions;
    p->qx = total ? core_xcalloc(total, sizeof *p->qx) : NULL;
    p->index_cap = 16;
    while (p->index_cap < total * 2)
        p->index_cap *= 2;
    p->index = core_xmalloc(p->index_cap * sizeof *p->index);
    for (size_t i = 0; i < p->index_cap; i++)
        p->index[i] = SIZE_MAX;
    size_t mask = p->index_cap - 1;
    for (size_t li = 0; li < p->info.n_lessons; li++) {
        struct grader_lesson *l = &p->info.lessons[li];
        for (size_t qi = 0; qi < l->n_questions; qi++) {
            struct grader_question *q = &l->questions[qi];
            struct grader_qx *x = &p->qx[p->n_qx];
            x->q = q;
            x->file = find_file(p, q->file);
            x->bad = p->n_qx < e->bad.len && e->bad.data[p->n_qx];
            if (!q->id[0]) {
                x->bad = true;
                p->n_qx++;
                continue;
            }
            const struct grader_qx *first = grader_pack_qx(p, q->id);
            if (first) {
                eproblem(e, CORE_ERR_INVALID,
                         "%s:%d: question %s: duplicate question id (first used at %s:%d)", q->file,
                         q->line, q->id, first->q->file, first->q->line);
                x->bad = true;
                p->n_qx++;
                continue;
            }
            size_t h = hash_id(q->id) & mask;
            while (p->index[h] != SIZE_MAX)
                h = (h + 1) & mask;
            p->index[h] = p->n_qx++;
        }
    }
    for (size_t i = 0; i < p->info.n_lessons; i++) {
        for (size_t k = 0; k < i; k++) {
            struct grader_lesson *a = &p->info.lessons[k], *b = &p->info.lessons[i];
            if (a->id[0] && strcmp(a->id, b->id) == 0)
                eproblem(e, CORE_ERR_INVALID,
                         "%s:%d: lesson %s: duplicate lesson id (first used "
                         "at %s:%d)",
                         b->file, b->line, b->id, a->file, a->line);
        }
    }
}

/* The private calculator table, in pack order, and duplicate ids. */
static void build_calcs(struct grader_pack *p, struct eval *e)
{
    p->cx = e->cx;
    p->n_cx = e->n_cx;
    e->cx = NULL;
    e->n_cx = 0;
    size_t k = 0;
    for (size_t li = 0; li < p->info.n_lessons; li++) {
        const struct grader_lesson *l = &p->info.lessons[li];
        for (size_t ci = 0; ci < l->n_calcs && k < p->n_cx; ci++) {
            const struct grader_calc *c = &l->calcs[ci];
            struct grader_cx *x = &p->cx[k++];
            x->c = c;
            x->file = find_file(p, c->file);
            if (!c->id[0] || x->file == SIZE_MAX)
                x->bad = true;
            for (size_t j = 0; c->id[0] && j + 1 < k; j++) {
                const struct grader_calc *first = p->cx[j].c;
                if (strcmp(first->id, c->id) == 0) {
                    eproblem(e, CORE_ERR_INVALID,
                             "%s:%d: calculator %s: duplicate calculator id (first used at "
                             "%s:%d)",
                             c->file, c->line, c->id, first->file, first->line);
                    x->bad = true;
                    break;
                }
            }
        }
    }
}

void grader_slim_prepare(struct grader_pack *p, size_t file, int line, bool *tried, bool *has,
                         struct core_buf *slim, struct grader_linemap *map)
{
    if (*tried || file == SIZE_MAX)
        return;
    *tried = true;
    struct grader_pfile *f = &p->files[file];
    if (!f->plan_tried) { /* one lexer pass per file, not one per question */
        f->plan_tried = true;
        f->plan = grader_slim_plan_new(f->data, f->len);
    }
    size_t len;
    char *src = grader_slim_cut(f->plan, f->data, line, &len, map);
    if (src) {
        struct core_err cerr;
        *has = grader_compile(src, len, f->chunkname, slim, &cerr) == 0;
        if (!*has) {
            core_buf_reset(slim);
            grader_linemap_fini(map);
        }
        free(src);
    }
}

void grader_qx_slim(struct grader_pack *p, struct grader_qx *x)
{
    /* Grading loads only the question's part of its file. */
    grader_slim_prepare(p, x->file, x->q->line, &x->slim_tried, &x->has_slim, &x->slim, &x->map);
}

/* Loads a pack; with `check`, also runs every question's per-question
 * checks (params, references, placeholders) — the part a stored revision,
 * already checked at import, can skip. */
static int pack_build(struct grader_pack **out, const struct grader_file *files, size_t n,
                      const struct grader_limits *lim, struct core_strlist *problems, bool check,
                      bool keep, struct core_err *err)
{
    *out = NULL;
    struct core_strlist local;
    core_strlist_init(&local);
    if (!problems)
        problems = &local;
    size_t start = problems->n;
    struct grader_pack *p = core_xcalloc(1, sizeof *p);
    if (lim)
        p->lim = *lim;
    else
        grader_limits_default(&p->lim);
    p->pool = grader_sb_pool_new(p->lim.mem_bytes);
    p->files = n ? core_xcalloc(n, sizeof *p->files) : NULL;
    p->n_files = n;
    struct eval e = {.pack = p, .problems = problems};
    core_strlist_init(&e.lessons);
    core_buf_init(&e.bad);

    /* Compile every .lua file once; the bytecode serves every later run. */
    for (size_t i = 0; i < n; i++) {
        struct grader_pfile *f = &p->files[i];
        f->path = core_xstrdup(files[i].path);
        f->data = core_xstrndup(files[i].data ? files[i].data : "", files[i].len);
        f->len = files[i].len;
        f->chunkname = core_xasprintf("@%s", f->path);
        f->is_lua = ends_with(f->path, ".lua");
        core_buf_init(&f->bc);
        if (!f->is_lua)
            continue;
        struct core_err cerr;
        if (grader_compile(f->data, f->len, f->chunkname, &f->bc, &cerr) == 0)
            f->compiled = true;
        else
            eproblem(&e, cerr.code, "%s", cerr.msg);
    }

    size_t pf = find_file(p, "pack.lua");
    if (pf == SIZE_MAX) {
        eproblem(&e, CORE_ERR_INVALID,
                 "pack.lua: missing (a pack is a folder with pack.lua and its lesson files)");
    } else if (p->files[pf].compiled) {
        e.file = pf;
        e.path = p->files[pf].path;
        e.mode = GRADER_DECL_PACK;
        eval_file(&e);
    }
    if (!p->info.id)
        p->info.id = core_xstrdup("");
    if (!p->info.title)
        p->info.title = core_xstrdup("");
    if (!p->info.version)
        p->info.version = core_xstrdup("");

    for (size_t i = 0; i < e.lessons.n; i++) {
        const char *path = e.lessons.items[i];
        size_t fi = find_file(p, path);
        if (fi == SIZE_MAX || !p->files[fi].is_lua || strcmp(path, "pack.lua") == 0) {
            eproblem(&e, CORE_ERR_INVALID,
                     "pack.lua:%d: lesson file '%s' is listed in lessons but %s", e.pack_line, path,
                     fi == SIZE_MAX        ? "missing"
                     : p->files[fi].is_lua ? "is pack.lua"
                                           : "not a .lua file");
            continue;
        }
        if (!p->files[fi].compiled)
            continue;
        e.file = fi;
        e.path = p->files[fi].path;
        e.mode = GRADER_DECL_LESSON;
        e.lesson = NULL;
        eval_file(&e);
    }
    for (size_t i = 0; i < n && e.lessons_known; i++) {
        const struct grader_pfile *f = &p->files[i];
        if (!f->is_lua || strcmp(f->path, "pack.lua") == 0)
            continue;
        bool listed = false;
        for (size_t k = 0; k < e.lessons.n; k++)
            listed |= strcmp(e.lessons.items[k], f->path) == 0;
        if (!listed)
            eproblem(&e, CORE_ERR_INVALID,
                     "%s:1: this file is not listed in pack.lua's lessons (list it, or remove it)",
                     f->path);
    }

    build_index(p, &e);
    build_calcs(p, &e);
    for (size_t i = 0; i < p->n_qx && check; i++) {
        if (p->qx[i].bad || p->qx[i].file == SIZE_MAX)
            continue;
        int code = 0;
        if (grader_question_check(p, i, problems, &code) > 0) {
            p->qx[i].bad = true;
            if (!e.first_code)
                e.first_code = code;
        }
    }
    core_strlist_fini(&e.lessons);
    core_buf_fini(&e.bad);

    if (problems->n > start) {
        int code = e.first_code ? e.first_code : CORE_ERR_INVALID;
        core_err_set(err, code, "%s", problems->items[start]);
        core_strlist_fini(&local);
        if (keep) { /* the caller runs the rest on the questions without problems */
            *out = p;
            return code;
        }
        /* One typo must not hide the rest: the questions that passed still
         * run their self-tests, so the instructor sees every problem at once. */
        if (check && problems != &local)
            grader_pack_selftest(p, problems, NULL);
        grader_pack_free(p);
        return code;
    }
    core_strlist_fini(&local);
    *out = p;
    return 0;
}

int grader_pack_new(struct grader_pack **out, const struct grader_file *files, size_t n,
                    const struct grader_limits *lim, struct core_strlist *problems,
                    struct core_err *err)
{
    return pack_build(out, files, n, lim, problems, true, false, err);
}

int grader_pack_new_checked(struct grader_pack **out, const struct grader_file *files, size_t n,
                            const struct grader_limits *lim, struct core_strlist *problems,
                            struct core_err *err)
{
    return pack_build(out, files, n, lim, problems, true, true, err);
}

int grader_pack_open(struct grader_pack **out, const struct grader_file *files, size_t n,
                     const struct grader_limits *lim, struct core_err *err)
{
    return pack_build(out, files, n, lim, NULL, false, false, err);
}
