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

static const luaL_Reg wb_funcs[] = {{"number", l_number}, {"close", l_close},
                                    {"within", l_within}, {"interval", l_interval},
                                    {"round", l_round},   {"sig", l_sig},
                                    {"norm", l_norm},     {"words", l_words},
                                    {"finite", l_finite}, {"_judge", grader_wb_judge},
                                    {NULL, NULL}};

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
    lua_rawsetp(L, LUA_REGISTRYINDEX, &grader_wb_find_key);
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
