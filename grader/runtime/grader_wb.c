/*
 * grader_wb.c — the C half of the `wb` Lua library graders call: answer
 * parsing (grader_number_parse), tolerance (grader_tol_*), rounding and
 * significant figures, text normalisation for rubric matching (over
 * grader_text.c), the concept judge behind design answers, the variant rng
 * object and wb.finite; wb.lab (reading the student's lab run and grading a
 * number against the reference it gives, and the finite-number test both
 * use) is in grader_wb_lab.c. The Lua half, lua/wb.lua
 * (phrase and concept matching, the scaling formulas, and the private
 * text/design graders), is embedded in the binary, compiled once per
 * process and loaded as bytecode into each sandbox.
 *
 * Every Lua-callable function here is in wb_funcs or rng_methods below.
 * Misuse (a wrong argument type, an unknown unit) raises; an unreadable
 * answer is an expected failure and returns nil, why.
 *
 * Uses the pure building blocks of grader_pure.h and the sandbox's
 * no-jump bracket around code that may take libc locks.
 */
#include "grader_runtime.h"

#include <lauxlib.h>
#include <lua.h>

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

extern const struct core_embedded grader_embedded_lua[];

static const char GRADERS_KEY = 'g'; /* registry: wb.lua's private graders */
#define RNG_TYPE "wb.rng"

/* ---- wb functions ---------------------------------------------------------------- */

/* wb.number(text [, unit]) -> value | nil, why */
static int l_number(lua_State *L)
{
    size_t n;
    const char *s = luaL_checklstring(L, 1, &n);
    const char *unit = luaL_optstring(L, 2, "");
    if (!grader_unit_find(unit))
        return luaL_error(L, "wb.number: unknown unit '%s'", unit);
    if (strlen(s) != n) {
        lua_pushnil(L);
        lua_pushliteral(L, "the answer contains a NUL byte");
        return 2;
    }
    struct grader_number num;
    grader_sb_nojump_begin(L);
    bool ok = grader_number_parse(s, unit, &num);
    grader_sb_nojump_end(L);
    if (ok) {
        lua_pushnumber(L, num.value);
        return 1;
    }
    lua_pushnil(L);
    lua_pushstring(L, num.why);
    return 2;
}

/* Reads a tolerance: nil (default), a number (rel) or {rel=, abs=, sig=}. */
static void check_tol(lua_State *L, int idx, struct grader_tol *t)
{
    grader_tol_default(t);
    int ty = lua_type(L, idx);
    if (ty == LUA_TNONE || ty == LUA_TNIL)
        return;
    if (ty == LUA_TNUMBER) {
        t->rel = lua_tonumber(L, idx);
        return;
    }
    luaL_argexpected(L, ty == LUA_TTABLE, idx, "nil, number or tolerance table");
    bool has_rel = lua_getfield(L, idx, "rel") != LUA_TNIL;
    if (has_rel)
        t->rel = luaL_checknumber(L, -1);
    if (lua_getfield(L, idx, "abs") != LUA_TNIL) {
        t->abs = luaL_checknumber(L, -1);
        if (!has_rel) /* as a question's `tolerance`: abs alone, not "abs or 1%" */
            t->rel = 0;
    }
    if (lua_getfield(L, idx, "sig") != LUA_TNIL)
        t->sig = (int)luaL_checkinteger(L, -1);
    lua_pop(L, 3);
}

/* wb.close(a, b [, rel]) -> a within rel (default 1%) of the reference b */
static int l_close(lua_State *L)
{
    double a = luaL_checknumber(L, 1), b = luaL_checknumber(L, 2);
    struct grader_tol t;
    grader_tol_default(&t);
    t.rel = luaL_optnumber(L, 3, t.rel);
    lua_pushboolean(L, grader_tol_accepts(&t, b, a));
    return 1;
}

/* wb.within(v, ref [, tol]) -> v accepted against ref under a tolerance */
static int l_within(lua_State *L)
{
    double v = luaL_checknumber(L, 1), ref = luaL_checknumber(L, 2);
    struct grader_tol t;
    check_tol(L, 3, &t);
    lua_pushboolean(L, grader_tol_accepts(&t, ref, v));
    return 1;
}

/* wb.interval(ref [, tol [, unit]]) -> "lo to hi unit", as students see it */
static int l_interval(lua_State *L)
{
    double ref = luaL_checknumber(L, 1);
    struct grader_tol t;
    check_tol(L, 2, &t);
    const char *unit = luaL_optstring(L, 3, "");
    char buf[160];
    grader_sb_nojump_begin(L);
    grader_tol_describe(&t, ref, unit, buf, sizeof buf);
    grader_sb_nojump_end(L);
    lua_pushstring(L, buf);
    return 1;
}

/* wb.round(x [, digits]) -> x rounded to digits decimals (an integer when
 * digits <= 0 and it fits) */
static int l_round(lua_State *L)
{
    double x = luaL_checknumber(L, 1);
    lua_Integer d = luaL_optinteger(L, 2, 0);
    if (d > 15)
        d = 15;
    if (d < -15)
        d = -15;
    double p = pow(10.0, (double)d);
    double r = isfinite(x * p) ? round(x * p) / p : x;
    if (d <= 0 && isfinite(r) && fabs(r) < 9.0e15)
        lua_pushinteger(L, (lua_Integer)r);
    else
        lua_pushnumber(L, r);
    return 1;
}

/* wb.sig(x [, n]) -> x as text with n (default 3) significant figures */
static int l_sig(lua_State *L)
{
    double x = luaL_checknumber(L, 1);
    lua_Integer n = luaL_optinteger(L, 2, 3);
    if (n < 1)
        n = 1;
    if (n > 17)
        n = 17;
    char buf[64];
    grader_sb_nojump_begin(L);
    grader_number_format(x, (int)n, buf, sizeof buf);
    grader_sb_nojump_end(L);
    lua_pushstring(L, buf);
    return 1;
}

static int push_text(lua_State *L, size_t (*fn)(const char *, size_t, char *))
{
    size_t n;
    const char *s = luaL_checklstring(L, 1, &n);
    luaL_Buffer b;
    char *out = luaL_buffinitsize(L, &b, n + 1);
    size_t k = fn(s, n, out);
    luaL_pushresultsize(&b, k);
    grader_sb_charge(L, 1 + (n + k) / 2); /* C work, charged like a library call's */
    return 1;
}

/* wb.norm(text) -> lower case, spaces folded, surrounding punctuation gone */
static int l_norm(lua_State *L)
{
    return push_text(L, grader_text_norm);
}

/* wb.words(text) -> lower-case words separated by single spaces */
static int l_words(lua_State *L)
{
    return push_text(L, grader_text_words);
}

/* wb.finite(x) -> true when x is a number, neither NaN nor infinite */
static int l_finite(lua_State *L)
{
    lua_pushboolean(L, grader_wb_finite(L, 1));
    return 1;
}

/* ---- design answers: the concept judge --------------------------------------------- */

static const char FIND_KEY = 'f'; /* registry: the guarded string.find, taken before pack code */

#define JUDGE_RETRIES 8 /* negated matches of one pattern skipped per sentence */

/* Pushes t[name] (raw) and returns its type. */
static int raw_field(lua_State *L, int t, const char *name)
{
    lua_pushstring(L, name);
    return lua_rawget(L, t < 0 ? t - 1 : t);
}

static enum grader_design_hit best(enum grader_design_hit a, enum grader_design_hit b)
{
    return a > b ? a : b;
}

/* Adds the words of every string in list t[name] (and of the strings in
 * its sub-tables, for `near` and `contradicts`) to k. */
static void known_from(lua_State *L, int t, const char *name, struct grader_design_known *k,
                       int depth)
{
    if (raw_field(L, t, name) == LUA_TTABLE) { /* list */
        size_t n = lua_rawlen(L, -1);
        for (size_t i = 1; i <= n && i <= 256; i++) {
            int ty = lua_rawgeti(L, -1, (lua_Integer)i); /* list e */
            if (ty == LUA_TSTRING)
                grader_design_known_add(k, lua_tostring(L, -1));
            else if (ty == LUA_TTABLE && depth < 2) {
                int e = lua_gettop(L);
                size_t m = lua_rawlen(L, e);
                for (size_t j = 1; j <= m && j <= 32; j++) {
                    if (lua_rawgeti(L, e, (lua_Integer)j) == LUA_TSTRING) /* list e s */
                        grader_design_known_add(k, lua_tostring(L, -1));
                    lua_pop(L, 1);
                }
                known_from(L, e, "match", k, depth + 1);
                known_from(L, e, "near", k, depth + 1);
            }
            lua_pop(L, 1); /* list */
        }
    }
    lua_pop(L, 1);
}

/* Looks a Lua pattern up in every sentence: found in a claim and not
 * negated, negated, or only outside claims. The guarded string.find does
 * the matching, so its work is charged like any library call. */
static enum grader_design_hit judge_pattern(lua_State *L, const struct grader_design *d,
                                            const char *pat, bool any)
{
    enum grader_design_hit hit = GRADER_HIT_NONE;
    for (size_t i = 0; i < grader_design_n_sentences(d) && hit != GRADER_HIT_FOUND; i++) {
        size_t len;
        const char *text = grader_design_sentence(d, i, &len);
        bool claim = grader_design_claim(d, i);
        lua_Integer init = 1;
        for (int tries = 0; tries < JUDGE_RETRIES && init <= (lua_Integer)len + 1; tries++) {
            lua_rawgetp(L, LUA_REGISTRYINDEX, &FIND_KEY); /* find */
            lua_pushlstring(L, text, len);
            lua_pushstring(L, pat);
            lua_pushinteger(L, init);
            lua_call(L, 3, 1); /* start|nil */
            if (lua_isnil(L, -1)) {
                lua_pop(L, 1);
                break;
            }
            lua_Integer at = lua_tointeger(L, -1);
            lua_pop(L, 1);
            if (!claim) {
                hit = best(hit, GRADER_HIT_UNCLAIMED);
                break;
            }
            if (any || !grader_design_negated_at(d, i, (size_t)(at - 1))) {
                hit = GRADER_HIT_FOUND;
                break;
            }
            hit = best(hit, GRADER_HIT_NEGATED);
            init = at + 1;
        }
    }
    return hit;
}

/* The near groups of list t.near: { "warp", "switch*", within = 5 }. */
static enum grader_design_hit judge_near(lua_State *L, int t, const struct grader_design *d,
                                         bool fuzzy, bool any, struct grader_design_known *k)
{
    enum grader_design_hit hit = GRADER_HIT_NONE;
    if (raw_field(L, t, "near") == LUA_TTABLE) { /* near */
        int nt = lua_gettop(L);
        size_t n = lua_rawlen(L, nt);
        for (size_t i = 1; i <= n && hit != GRADER_HIT_FOUND; i++) {
            if (lua_rawgeti(L, nt, (lua_Integer)i) != LUA_TTABLE) { /* near g */
                lua_pop(L, 1);
                continue;
            }
            int g = lua_gettop(L);
            const char *terms[32];
            size_t m = 0, gn = lua_rawlen(L, g);
            for (size_t j = 1; j <= gn && m < 32; j++) {
                lua_rawgeti(L, g, (lua_Integer)j); /* near g s (kept: g holds it) */
                if (lua_type(L, -1) == LUA_TSTRING)
                    terms[m++] = lua_tostring(L, -1);
                lua_pop(L, 1);
            }
            size_t within = 5;
            if (raw_field(L, g, "within") == LUA_TNUMBER && lua_tonumber(L, -1) >= 0)
                within = (size_t)lua_tonumber(L, -1);
            lua_pop(L, 1);
            hit = best(hit, grader_design_near(d, terms, m, within, fuzzy, any, k));
            lua_pop(L, 1); /* near */
        }
    }
    lua_pop(L, 1);
    return hit;
}

/* Whether the phrases (t.match), patterns (t.patterns) and near groups
 * (t.near) of table t are found. */
static enum grader_design_hit judge_one(lua_State *L, int t, const struct grader_design *d,
                                        bool fuzzy, bool any, struct grader_design_known *k)
{
    enum grader_design_hit hit = GRADER_HIT_NONE;
    if (raw_field(L, t, "match") == LUA_TTABLE) { /* match */
        size_t n = lua_rawlen(L, -1);
        for (size_t i = 1; i <= n && hit != GRADER_HIT_FOUND; i++) {
            int ty = lua_rawgeti(L, -1, (lua_Integer)i); /* match s */
            if (ty == LUA_TSTRING || ty == LUA_TNUMBER)
                hit = best(hit, grader_design_phrase(d, lua_tostring(L, -1), fuzzy, any, k));
            lua_pop(L, 1);
        }
    }
    lua_pop(L, 1);
    if (hit != GRADER_HIT_FOUND) {
        if (raw_field(L, t, "patterns") == LUA_TTABLE) { /* pats */
            int pt = lua_gettop(L);
            size_t n = lua_rawlen(L, pt);
            for (size_t i = 1; i <= n && hit != GRADER_HIT_FOUND; i++) {
                if (lua_rawgeti(L, pt, (lua_Integer)i) == LUA_TSTRING) /* pats p */
                    hit = best(hit, judge_pattern(L, d, lua_tostring(L, -1), any));
                lua_pop(L, 1);
            }
        }
        lua_pop(L, 1);
    }
    if (hit != GRADER_HIT_FOUND)
        hit = best(hit, judge_near(L, t, d, fuzzy, any, k));
    return hit;
}

/* The first entry of concept c's `contradicts` found in a claim, not
 * negated (0: none). An entry is a phrase, or a table { match, patterns,
 * near, feedback }. */
static size_t judge_contradicts(lua_State *L, int c, const struct grader_design *d, bool fuzzy,
                                struct grader_design_known *k)
{
    size_t found = 0;
    if (raw_field(L, c, "contradicts") == LUA_TTABLE) { /* list */
        int lt = lua_gettop(L);
        size_t n = lua_rawlen(L, lt);
        for (size_t i = 1; i <= n && !found; i++) {
            int ty = lua_rawgeti(L, lt, (lua_Integer)i); /* list e */
            /* a contradiction is a claim too: negated ("it is not true that
             * GPUs cannot hide latency") it does not count */
            if (ty == LUA_TSTRING)
                found = grader_design_phrase(d, lua_tostring(L, -1), fuzzy, false, k) ==
                                GRADER_HIT_FOUND
                            ? i
                            : 0;
            else if (ty == LUA_TTABLE)
                found = judge_one(L, lua_gettop(L), d, fuzzy, false, k) == GRADER_HIT_FOUND ? i : 0;
            lua_pop(L, 1);
        }
    }
    lua_pop(L, 1);
    return found;
}

/* judge(text, concepts) -> score, list, status, contra
 * The design rule (grader_design.c): status[i] is "found", "missing",
 * "negated" (only in negated clauses), "unclaimed" (only outside
 * sentences) or "contradicted"; contra[i] the index of the `contradicts`
 * entry that cancelled concept i. A list of terms scores 0. Private: wb.lua
 * takes it before pack code runs and removes it from wb. */
static int l_judge(lua_State *L)
{
    size_t n;
    const char *text = luaL_checklstring(L, 1, &n);
    luaL_checktype(L, 2, LUA_TTABLE);
    luaL_checkstack(L, 48, "design rubric"); /* the nested lists below */
    /* Its memory is the sandbox's: counted against the cap, and dropped
     * with the state if a limit (or a bad pattern) ends the call half-way. */
    void *ud;
    lua_Alloc alloc = lua_getallocf(L, &ud);
    struct grader_design *d = grader_design_new(text, n, alloc, ud);
    if (!d)
        return luaL_error(L, "not enough memory");
    struct grader_design_known k;
    grader_design_known_init(&k, d);
    size_t nc = lua_rawlen(L, 2);
    for (size_t i = 1; i <= nc; i++) {
        if (lua_rawgeti(L, 2, (lua_Integer)i) == LUA_TTABLE) { /* c */
            known_from(L, -1, "match", &k, 0);
            known_from(L, -1, "near", &k, 0);
            known_from(L, -1, "contradicts", &k, 0);
        }
        lua_pop(L, 1);
    }
    if (grader_design_oom(d))
        return luaL_error(L, "not enough memory");
    /* The work is words x phrases: charge it like a library call's bytes. */
    uint64_t words = grader_design_n_words(d);
    grader_sb_charge(L, 1 + n / 16 + words * (k.n + nc) / 16);
    lua_createtable(L, (int)nc, 0); /* status */
    lua_createtable(L, 0, 0);       /* status contra */
    int st = lua_gettop(L) - 1, ct = st + 1;
    double total = 0, got = 0;
    bool list = grader_design_is_list(d);
    static const char *const names[] = {"missing", "unclaimed", "negated", "found"};
    for (size_t i = 1; i <= nc; i++) {
        if (lua_rawgeti(L, 2, (lua_Integer)i) != LUA_TTABLE) { /* c */
            lua_pop(L, 1);
            lua_pushliteral(L, "missing");
            lua_rawseti(L, st, (lua_Integer)i);
            continue;
        }
        int c = lua_gettop(L);
        double pts = 1;
        if (raw_field(L, c, "points") == LUA_TNUMBER)
            pts = lua_tonumber(L, -1);
        lua_pop(L, 1);
        bool fuzzy = raw_field(L, c, "fuzzy") != LUA_TBOOLEAN || lua_toboolean(L, -1);
        lua_pop(L, 1);
        total += pts;
        enum grader_design_hit hit = judge_one(L, c, d, fuzzy, false, &k);
        size_t contra = judge_contradicts(L, c, d, fuzzy, &k);
        if (grader_design_oom(d))
            return luaL_error(L, "not enough memory");
        if (contra) {
            lua_pushliteral(L, "contradicted");
            lua_pushinteger(L, (lua_Integer)contra);
            lua_rawseti(L, ct, (lua_Integer)i);
        } else {
            lua_pushstring(L, names[hit]);
            if (hit == GRADER_HIT_FOUND && !list)
                got += pts;
        }
        lua_rawseti(L, st, (lua_Integer)i); /* c */
        lua_pop(L, 1);
    }
    grader_design_known_fini(&k);
    grader_design_free(d);
    lua_pushnumber(L, total > 0 ? got / total : 0); /* status contra score */
    lua_insert(L, st);                              /* score status contra */
    lua_pushboolean(L, list);                       /* score status contra list */
    lua_insert(L, st + 1);                          /* score list status contra */
    return 4;
}

static const luaL_Reg wb_funcs[] = {
    {"number", l_number}, {"close", l_close},  {"within", l_within}, {"interval", l_interval},
    {"round", l_round},   {"sig", l_sig},      {"norm", l_norm},     {"words", l_words},
    {"finite", l_finite}, {"_judge", l_judge}, {NULL, NULL}};

/* ---- rng ---------------------------------------------------------------------------- */

/* rng:int(lo, hi) -> an integer in [lo, hi] */
static int l_rng_int(lua_State *L)
{
    struct grader_rng *r = luaL_checkudata(L, 1, RNG_TYPE);
    lua_Integer lo = luaL_checkinteger(L, 2), hi = luaL_checkinteger(L, 3);
    if (lo > hi)
        return luaL_error(L, "rng:int(lo, hi): lo (%I) is greater than hi (%I)", lo, hi);
    lua_pushinteger(L, (lua_Integer)grader_rng_int(r, lo, hi));
    return 1;
}

/* rng:uniform([lo, hi]) -> a float in [lo, hi), default [0, 1) */
static int l_rng_uniform(lua_State *L)
{
    struct grader_rng *r = luaL_checkudata(L, 1, RNG_TYPE);
    double lo = luaL_optnumber(L, 2, 0), hi = luaL_optnumber(L, 3, 1);
    if (!(lo <= hi))
        return luaL_error(L, "rng:uniform(lo, hi): lo is greater than hi");
    lua_pushnumber(L, lo + (hi - lo) * grader_rng_uniform(r));
    return 1;
}

/* rng:pick(list) -> one element of a non-empty list */
static int l_rng_pick(lua_State *L)
{
    struct grader_rng *r = luaL_checkudata(L, 1, RNG_TYPE);
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_Integer n = (lua_Integer)lua_rawlen(L, 2);
    if (n < 1)
        return luaL_error(L, "rng:pick(list): the list is empty");
    lua_rawgeti(L, 2, (lua_Integer)grader_rng_int(r, 1, n));
    return 1;
}

static const luaL_Reg rng_methods[] = {
    {"int", l_rng_int}, {"uniform", l_rng_uniform}, {"pick", l_rng_pick}, {NULL, NULL}};

void grader_wb_push_rng(lua_State *L, uint64_t seed)
{
    struct grader_rng *r = lua_newuserdatauv(L, sizeof *r, 0); /* rng */
    grader_rng_init(r, seed);
    if (luaL_newmetatable(L, RNG_TYPE)) { /* rng mt */
        luaL_newlib(L, rng_methods);      /* rng mt methods */
        lua_setfield(L, -2, "__index");
        lua_pushboolean(L, 0); /* hidden from getmetatable: no __gc can be added */
        lua_setfield(L, -2, "__metatable");
    }
    lua_setmetatable(L, -2); /* rng */
}

/* ---- opening -------------------------------------------------------------------------- */

static pthread_once_t wb_once = PTHREAD_ONCE_INIT;
static struct core_buf wb_bytecode; /* immutable once compiled */
static struct core_err wb_compile_err;

static int dump_writer(lua_State *L, const void *p, size_t n, void *ud)
{
    (void)L;
    core_buf_append(ud, p, n);
    return 0;
}

/* Compiles wb.lua once per process. The bytecode is stripped of debug
 * information, which makes it about half the size every sandbox loads (a
 * tenth less work per graded answer); no position inside the library is
 * ever shown: its misuse errors name the pack's line, and the sandbox looks
 * past frames without a line for the position of a kill or an error. */
static void wb_compile(void)
{
    core_buf_init(&wb_bytecode);
    const struct core_embedded *e = grader_embedded_lua;
    while (e->path && strcmp(e->path, "wb.lua") != 0)
        e++;
    if (!e->path) {
        core_err_set(&wb_compile_err, CORE_ERR_INTERNAL, "wb.lua is not embedded");
        return;
    }
    lua_State *L = luaL_newstate(); /* our own trusted source: no sandbox needed */
    if (!L) {
        core_err_set(&wb_compile_err, CORE_ERR_INTERNAL, "out of memory compiling wb.lua");
        return;
    }
    if (luaL_loadbufferx(L, (const char *)e->data, e->len, "=wb", "t") == LUA_OK)
        lua_dump(L, dump_writer, &wb_bytecode, 1);
    else
        core_err_set(&wb_compile_err, CORE_ERR_INTERNAL, "%s", lua_tostring(L, -1));
    lua_close(L);
}

void grader_wb_digest(char out[65])
{
    const struct core_embedded *e = grader_embedded_lua;
    while (e->path && strcmp(e->path, "wb.lua") != 0)
        e++;
    struct core_sha256 h;
    core_sha256_init(&h);
    if (e->path)
        core_sha256_update(&h, e->data, e->len);
    core_sha256_final_hex(&h, out);
}

void grader_wb_open(lua_State *L, int g)
{
    pthread_once(&wb_once, wb_compile);
    if (wb_compile_err.code)
        luaL_error(L, "cannot load wb.lua: %s", wb_compile_err.msg);
    lua_getfield(L, g, "string"); /* string (guarded: opened before wb) */
    lua_getfield(L, -1, "find");  /* string find */
    lua_rawsetp(L, LUA_REGISTRYINDEX, &FIND_KEY);
    lua_pop(L, 1);
    luaL_newlib(L, wb_funcs); /* wb */
    grader_wb_lab_push(L);    /* wb lab */
    lua_setfield(L, -2, "lab");
    lua_pushvalue(L, -1);
    lua_setfield(L, g, "wb");
    if (luaL_loadbufferx(L, wb_bytecode.data, wb_bytecode.len, "=wb", "b") != LUA_OK)
        lua_error(L);                                /* wb chunk */
    lua_insert(L, -2);                               /* chunk wb */
    lua_call(L, 1, 1);                               /* graders */
    lua_rawsetp(L, LUA_REGISTRYINDEX, &GRADERS_KEY); /* */
}

void grader_wb_push_graders(lua_State *L)
{
    lua_rawgetp(L, LUA_REGISTRYINDEX, &GRADERS_KEY);
}
