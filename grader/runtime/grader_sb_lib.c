/*
 * grader_sb_lib.c — the libraries a sandbox offers, and what their C
 * functions are charged.
 *
 * Libraries: base without dofile, loadfile, warn; print does nothing; load
 * compiles text only into the caller's file environment unless given one;
 * collectgarbage offers "collect", "count", "step", "isrunning";
 * setmetatable refuses a metatable with __gc (a finaliser runs with hooks
 * off, outside every limit but the jump). __close and __mode are allowed:
 * closing methods run as ordinary calls under the hook, and weak tables only
 * change what the collector may free. string without dump (removed from the
 * one string table, which is also the strings' __index), table, math without
 * random/randomseed (graders draw from the variant rng), utf8, and wb. No io,
 * os, package, debug, require, coroutine. All of it is read-only to pack code
 * (see "shared tables, read-only" below): one sandbox runs job after job.
 *
 * C library work: a library call executes no VM instruction, so the guarded
 * library functions (string, table, utf8, the wb library's C half) charge
 * the budget for the bytes they handle, after the call (grader_sb_charge):
 * one instruction per CHARGE_BYTES bytes of their string arguments and
 * results (times 1 + the quantifiers of a pattern for find, match, gmatch
 * and gsub), the elements a table function walks, and so on (charge_before,
 * l_guard). The charge is a function of the arguments only, so it is the
 * same on every machine and under any load; a loop of string.rep or of long
 * matches ends at the instruction limit, not at the clock. Each guard also
 * records where it was called from (grader_sb_guard_enter), for a kill by
 * the time limit's jump out of a long call.
 *
 * Every file runs in an environment of its own (grader_sb_load) whose reads
 * fall through to the sandbox globals.
 *
 * A sandbox with these libraries: grader_sb_new and grader_sb_run hand the
 * sandbox (grader_sandbox.c, below this file) the functions that set them
 * up and reset them between jobs.
 *
 * Uses the sandbox (grader_sandbox.c), the wb library and the constructors
 * of the pack model, and lua.h.
 */
#include "grader_runtime.h"

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include <string.h>

#define CHARGE_BYTES 2  /* bytes a library call handles per instruction charged */
#define PATTERN_BYTES 4 /* subject bytes per instruction per repeating pattern item */

/* ---- the restricted base library ------------------------------------------- */

static const char ENV_KEY = 'e';    /* registry: the environment of the running file */
static const char ENV_MT_KEY = 'm'; /* registry: metatable of file environments */

static int l_print(lua_State *L)
{
    (void)L;
    return 0;
}

static int l_norandom(lua_State *L)
{
    return luaL_error(L, "math.random is not available in a grader: draw numbers from the rng "
                         "passed to params");
}

static bool ro_target(lua_State *L, int idx);
static int ro_refuse(lua_State *L, int idx, const char *what);

static int l_setmetatable(lua_State *L)
{
    if (ro_target(L, 1))
        return ro_refuse(L, 1, "setmetatable");
    int t = lua_type(L, 2);
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_argexpected(L, t == LUA_TNIL || t == LUA_TTABLE, 2, "nil or table");
    if (t == LUA_TTABLE) {
        lua_pushliteral(L, "__gc"); /* t mt "__gc" */
        if (lua_rawget(L, 2) != LUA_TNIL)
            return luaL_error(L, "setmetatable: __gc metamethods are not allowed in a grader");
        lua_pop(L, 1); /* t mt */
    }
    if (luaL_getmetafield(L, 1, "__metatable") != LUA_TNIL)
        return luaL_error(L, "cannot change a protected metatable");
    lua_settop(L, 2);
    lua_setmetatable(L, 1);
    return 1;
}

static int l_collectgarbage(lua_State *L)
{
    static const char *const opts[] = {"collect", "count", "step", "isrunning", NULL};
    const char *o = luaL_optstring(L, 1, "collect");
    int i = 0;
    while (opts[i] && strcmp(opts[i], o) != 0)
        i++;
    switch (i) {
    case 0:
        lua_gc(L, LUA_GCCOLLECT);
        lua_pushinteger(L, 0);
        return 1;
    case 1: /* Lua's own count in a new state; in a reused one, counted as in a new one */
        lua_pushnumber(L, (lua_Number)grader_sb_used(L) / 1024);
        return 1;
    case 2:
        lua_pushboolean(L, lua_gc(L, LUA_GCSTEP, (int)luaL_optinteger(L, 2, 0)));
        return 1;
    case 3:
        lua_pushboolean(L, lua_gc(L, LUA_GCISRUNNING));
        return 1;
    default:
        return luaL_error(L, "collectgarbage('%s') is not available in a grader", o);
    }
}

/* load(chunk [, chunkname [, mode [, env]]]): always text mode; without an
 * env, the environment of the file being run. Calls the original load (the
 * upvalue) in this frame so its messages name 'load'. */
static int l_load(lua_State *L)
{
    int was = grader_sb_guard_enter(L, false);
    bool has_env = !lua_isnone(L, 4);
    lua_settop(L, 4);
    lua_pushliteral(L, "t");
    lua_replace(L, 3);
    /* A name starting with '@' claims to be a file: errors and limit
     * positions would then blame a pack file that never ran this code. */
    if (lua_type(L, 2) == LUA_TSTRING && lua_tostring(L, 2)[0] == '@') {
        lua_pushfstring(L, "=(load %s)", lua_tostring(L, 2) + 1); /* ... name */
        lua_replace(L, 2);
    }
    if (!has_env) {
        if (lua_rawgetp(L, LUA_REGISTRYINDEX, &ENV_KEY) == LUA_TNIL) { /* ... env? */
            lua_pop(L, 1);
            lua_pushglobaltable(L);
        }
        lua_replace(L, 4);
    }
    lua_CFunction orig = lua_tocfunction(L, lua_upvalueindex(1));
    uint64_t cost = 1 + (lua_type(L, 1) == LUA_TSTRING ? lua_rawlen(L, 1) / PATTERN_BYTES : 0);
    int n = orig(L);
    grader_sb_guard_leave(L, was);
    grader_sb_charge(L, cost); /* compiling: a few instructions' worth per byte */
    return n;
}

/* The message handler given to xpcall, wrapped: once the sandbox is
 * killed it is not called. (Lua calls a message handler for an error raised
 * in a hook from inside that hook, with hooks off: a handler that loops
 * would otherwise run beyond the instruction limit.) */
static int l_xpcall_handler(lua_State *L)
{
    grader_sb_guard_unwind(L); /* an error: no pattern matcher runs from here on */
    if (grader_sb_killed(L)) {
        lua_settop(L, 1);
        return 1;
    }
    lua_pushvalue(L, lua_upvalueindex(1)); /* msg h */
    lua_insert(L, 1);                      /* h msg */
    lua_call(L, lua_gettop(L) - 1, 1);
    return 1;
}

/* The message handler of pcall: the error as it is. It runs where the
 * error is raised, before anything unwinds (a __close method): from there
 * on no pattern matcher runs, so the time limit may not jump (see
 * grader_sandbox.c, "Time"). */
static int l_pcall_handler(lua_State *L)
{
    grader_sb_guard_unwind(L);
    lua_settop(L, 1);
    return 1;
}

/* pcall(f, ...): the original xpcall (the upvalue) with l_pcall_handler,
 * which gives what pcall gives. */
static int l_pcall(lua_State *L)
{
    luaL_checkany(L, 1);
    lua_pushcfunction(L, l_pcall_handler); /* f ... h */
    lua_insert(L, 2);                      /* f h ... */
    lua_CFunction orig = lua_tocfunction(L, lua_upvalueindex(1));
    return orig(L);
}

/* xpcall(f, msgh, ...): the original (the upvalue) with msgh wrapped. */
static int l_xpcall(lua_State *L)
{
    luaL_checktype(L, 2, LUA_TFUNCTION);
    lua_pushvalue(L, 2);                      /* f msgh ... msgh */
    lua_pushcclosure(L, l_xpcall_handler, 1); /* f msgh ... wrapped */
    lua_replace(L, 2);                        /* f wrapped ... */
    lua_CFunction orig = lua_tocfunction(L, lua_upvalueindex(1));
    return orig(L);
}

/* ---- shared tables, read-only ------------------------------------------------ */

/* What every grading shares is read-only to pack code: the globals, the
 * libraries (string, table, math, utf8, wb and wb.lab) and the strings'
 * metatable. Each such table T is replaced, wherever the state refers to
 * it, by an empty proxy whose hidden metatable reads from T (__index), lists
 * it (__pairs, __len) and refuses every assignment (__newindex, naming the
 * table and the key). The tables T hold are replaced by their proxies
 * first, so nothing reachable from a proxy is writable. rawset and
 * setmetatable refuse a proxy; rawget, rawlen, next and getmetatable see
 * through it to T, so a grader reads exactly what it read before. Pack
 * code never holds T itself: the proxies' metatables are hidden
 * (__metatable) and T's functions return no reference to it. That is what
 * lets one state grade job after job (grader_sandbox.c): a job can write
 * only to tables it made or was given, which the next job never sees. */

static int l_ro_newindex(lua_State *L);

/* Pushes the table a read-only proxy at idx stands for and returns true;
 * false (nothing pushed) for any other value. A proxy is known by its
 * __newindex, a C function pack code can never obtain. */
static bool ro_target(lua_State *L, int idx)
{
    if (lua_type(L, idx) != LUA_TTABLE || !lua_getmetatable(L, idx)) /* mt */
        return false;
    lua_pushliteral(L, "__newindex");
    lua_rawget(L, -2); /* mt ni */
    bool ro = lua_tocfunction(L, -1) == l_ro_newindex;
    lua_pop(L, 1); /* mt */
    if (!ro) {
        lua_pop(L, 1);
        return false;
    }
    lua_pushliteral(L, "__index");
    lua_rawget(L, -2); /* mt T */
    lua_remove(L, -2); /* T */
    return true;
}

/* Raises "<what>: NAME is read-only in a grader ..." for the proxy at idx. */
static int ro_refuse(lua_State *L, int idx, const char *what)
{
    lua_getmetatable(L, idx);          /* mt */
    lua_getfield(L, -1, "__newindex"); /* mt ni */
    lua_getupvalue(L, -1, 1);          /* mt ni name */
    return luaL_error(L, "%s: %s is read-only in a grader (shared by every grading)", what,
                      lua_tostring(L, -1));
}

/* __newindex of a proxy (upvalue: the table's name). */
static int l_ro_newindex(lua_State *L)
{
    const char *name = lua_tostring(L, lua_upvalueindex(1));
    bool named = lua_type(L, 2) == LUA_TSTRING;
    return luaL_error(L,
                      "cannot set %s%s%s: %s is read-only in a grader (shared by every "
                      "grading; keep your own copy in a local)",
                      name, named ? "." : "[...]", named ? lua_tostring(L, 2) : "", name);
}

/* __len of a proxy: T's length. */
static int l_ro_len(lua_State *L)
{
    lua_pushinteger(L, ro_target(L, 1) ? (lua_Integer)lua_rawlen(L, -1) : 0);
    return 1;
}

/* next(t [, k]) (the original is upvalue 1): over T for a proxy. */
static int l_next(lua_State *L)
{
    if (ro_target(L, 1)) /* t k... T */
        lua_replace(L, 1);
    return lua_tocfunction(L, lua_upvalueindex(1))(L);
}

/* __pairs of a proxy: the sandbox's own next, over the proxy (which it
 * reads through), as pairs(t) returns for any table. */
static int l_ro_pairs(lua_State *L)
{
    lua_getfield(L, lua_upvalueindex(1), "next"); /* t next */
    lua_pushvalue(L, 1);                          /* t next t */
    lua_pushnil(L);                               /* t next t nil */
    return 3;
}

/* rawget(t, k), rawlen(t): T's for a proxy. */
static int l_rawread(lua_State *L)
{
    if (ro_target(L, 1))
        lua_replace(L, 1);
    return lua_tocfunction(L, lua_upvalueindex(1))(L);
}

/* rawset(t, k, v): refused for a proxy. */
static int l_rawset(lua_State *L)
{
    if (ro_target(L, 1))
        return ro_refuse(L, 1, "rawset");
    return lua_tocfunction(L, lua_upvalueindex(1))(L);
}

/* getmetatable(v): a proxy has none (as its T has none). */
static int l_getmetatable(lua_State *L)
{
    if (ro_target(L, 1)) {
        lua_pushnil(L);
        return 1;
    }
    return lua_tocfunction(L, lua_upvalueindex(1))(L);
}

static const struct {
    const char *name;
    lua_CFunction fn;
} raw_funcs[] = {{"next", l_next},
                 {"rawget", l_rawread},
                 {"rawlen", l_rawread},
                 {"rawset", l_rawset},
                 {"getmetatable", l_getmetatable}};

/* The table on top of the stack, T, is replaced by its proxy: made once
 * per table (seen maps T to it), after each table T holds has been
 * replaced in T by its own proxy. `name` names T in messages. */
static void freeze(lua_State *L, int seen, int g, const char *name)
{
    luaL_checkstack(L, 8, "freeze");
    int t = lua_gettop(L);
    lua_pushvalue(L, t);                     /* T T */
    if (lua_rawget(L, seen) == LUA_TTABLE) { /* T P */
        lua_replace(L, t);                   /* P */
        return;
    }
    lua_pop(L, 1);           /* T */
    lua_newtable(L);         /* T P */
    lua_pushvalue(L, t);     /* T P T */
    lua_pushvalue(L, -2);    /* T P T P */
    lua_rawset(L, seen);     /* T P */
    lua_pushnil(L);          /* T P nil */
    while (lua_next(L, t)) { /* T P k v */
        if (lua_type(L, -1) != LUA_TTABLE) {
            lua_pop(L, 1); /* T P k */
            continue;
        }
        char sub[96];
        if (lua_type(L, -2) == LUA_TSTRING && !lua_rawequal(L, t, g))
            snprintf(sub, sizeof sub, "%s.%s", name, lua_tostring(L, -2));
        else if (lua_type(L, -2) == LUA_TSTRING)
            snprintf(sub, sizeof sub, "%s", lua_tostring(L, -2));
        else
            snprintf(sub, sizeof sub, "a table in %s", name);
        freeze(L, seen, g, sub); /* T P k vP (assigning an existing key while walking is allowed) */
        lua_pushvalue(L, -2);    /* T P k vP k */
        lua_insert(L, -2);       /* T P k k vP */
        lua_rawset(L, t);        /* T P k */
    }
    lua_createtable(L, 0, 5); /* T P mt */
    lua_pushvalue(L, t);
    lua_setfield(L, -2, "__index");
    lua_pushstring(L, name);
    lua_pushcclosure(L, l_ro_newindex, 1);
    lua_setfield(L, -2, "__newindex");
    lua_pushcfunction(L, l_ro_len);
    lua_setfield(L, -2, "__len");
    lua_pushvalue(L, g);
    lua_pushcclosure(L, l_ro_pairs, 1);
    lua_setfield(L, -2, "__pairs");
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
    lua_setmetatable(L, -2); /* T P */
    lua_replace(L, t);       /* P */
}

/* Makes everything every grading shares read-only (see above): the globals
 * at g (their tables; g itself is reached only through the hidden
 * metatable of file environments, and the registry's globals become its
 * proxy for any other path) and the strings' metatable, which
 * getmetatable("") then shows as its proxy. */
static void freeze_shared(lua_State *L, int g)
{
    lua_newtable(L); /* seen */
    int seen = lua_gettop(L);
    lua_pushvalue(L, g);                                 /* seen G */
    freeze(L, seen, g, "_G");                            /* seen PG */
    lua_rawseti(L, LUA_REGISTRYINDEX, LUA_RIDX_GLOBALS); /* seen */
    lua_pushliteral(L, "");                              /* seen "" */
    lua_getmetatable(L, -1);                             /* seen "" smt */
    lua_replace(L, -2);                                  /* seen smt */
    lua_pushvalue(L, -1);                                /* seen smt smt */
    freeze(L, seen, g, "getmetatable('')");              /* seen smt psmt */
    lua_setfield(L, -2, "__metatable");                  /* seen smt */
    lua_pop(L, 2);
}

/* ---- charging library calls ------------------------------------------------ */

/* How a guarded function's cost is reckoned (its closure's 2nd upvalue). */
enum charge_kind {
    CH_BYTES = 0, /* string arguments and results, CHARGE_BYTES per instruction */
    CH_PATTERN,   /* find, match, gsub: also the subject times the pattern's repeats */
    CH_TABLE,     /* table functions: the elements of the table walked */
    CH_SORT,      /* table.sort: n log n comparisons */
    CH_HEAP       /* collectgarbage: the heap a collection walks */
};

static uint64_t string_bytes(lua_State *L, int from, int to)
{
    uint64_t n = 0;
    for (int i = from; i <= to; i++)
        if (lua_type(L, i) == LUA_TSTRING)
            n += lua_rawlen(L, i);
    return n;
}

/* Items of a pattern that repeat (*, +, -, ?): each lets the matcher try
 * many positions. 0 for a plain search. */
static uint64_t pattern_repeats(lua_State *L)
{
    size_t n;
    const char *p = lua_type(L, 2) == LUA_TSTRING ? lua_tolstring(L, 2, &n) : NULL;
    if (!p || (lua_gettop(L) >= 4 && lua_toboolean(L, 4) && lua_type(L, 1) == LUA_TSTRING))
        return 0; /* find(s, p, init, true): plain */
    uint64_t r = 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i] == '%')
            i++;
        else if (strchr("*+-?", p[i]))
            r++;
    }
    return r;
}

/* The charge known before the call, from the arguments. */
static uint64_t charge_before(lua_State *L, enum charge_kind kind)
{
    int top = lua_gettop(L);
    switch (kind) {
    case CH_PATTERN: {
        uint64_t subject = lua_type(L, 1) == LUA_TSTRING ? lua_rawlen(L, 1) : 0;
        return 1 + string_bytes(L, 1, top) / CHARGE_BYTES +
               subject * pattern_repeats(L) / PATTERN_BYTES;
    }
    case CH_TABLE:
    case CH_SORT: {
        uint64_t n = lua_type(L, 1) == LUA_TTABLE ? lua_rawlen(L, 1) : 0;
        uint64_t lg = 1;
        while (kind == CH_SORT && (1ull << lg) < n)
            lg++;
        return 1 + (kind == CH_SORT ? n * lg : n);
    }
    case CH_HEAP:
        return 1 + grader_sb_used(L) / (CHARGE_BYTES * 4);
    default:
        return 1 + string_bytes(L, 1, top) / CHARGE_BYTES;
    }
}

/* A guarded library function: records where it was called from, runs the
 * original C function (the 1st upvalue) in this same frame, then charges
 * the instruction budget for what it handled (see the file comment). */
static int l_guard(lua_State *L)
{
    lua_CFunction orig = lua_tocfunction(L, lua_upvalueindex(1));
    enum charge_kind kind = (enum charge_kind)lua_tointeger(L, lua_upvalueindex(2));
    uint64_t cost = charge_before(L, kind);
    int was = grader_sb_guard_enter(L, kind == CH_PATTERN);
    int n = orig(L);
    grader_sb_guard_leave(L, was);
    int top = lua_gettop(L);
    cost += string_bytes(L, top - n + 1, top) / CHARGE_BYTES; /* what it made */
    grader_sb_charge(L, cost);
    return n;
}

/* The iterator of a guarded gmatch: called through lua_call, so during the
 * match the innermost frame is one below this one. The whole scan was
 * charged when gmatch was called; each step charges what it returns. */
static int l_guard_iter(lua_State *L)
{
    int n = lua_gettop(L);
    lua_pushvalue(L, lua_upvalueindex(1)); /* args iter */
    lua_insert(L, 1);                      /* iter args */
    int was = grader_sb_guard_enter(L, true);
    lua_call(L, n, LUA_MULTRET);
    grader_sb_guard_leave(L, was);
    grader_sb_charge(L, 1 + string_bytes(L, 1, lua_gettop(L)) / CHARGE_BYTES);
    return lua_gettop(L);
}

static int l_guard_gmatch(lua_State *L)
{
    int n = l_guard(L); /* ... iter */
    if (n == 1 && lua_isfunction(L, -1))
        lua_pushcclosure(L, l_guard_iter, 1); /* ... guarded_iter */
    return n;
}

/* gsub's replacement when it is a function or a table (the upvalue): the
 * matcher calls it, and pack code (or a metamethod) runs there, so the time
 * limit may not jump while it does. Called with the captures (the whole
 * match when none); a table is indexed with the first, as gsub does. */
static int l_gsub_repl(lua_State *L)
{
    int was = grader_sb_guard_enter(L, false);
    if (lua_type(L, lua_upvalueindex(1)) == LUA_TTABLE) {
        lua_settop(L, 1);                      /* cap */
        lua_pushvalue(L, lua_upvalueindex(1)); /* cap t */
        lua_insert(L, 1);                      /* t cap */
        lua_gettable(L, 1);                    /* t v */
    } else {
        lua_pushvalue(L, lua_upvalueindex(1)); /* caps... f */
        lua_insert(L, 1);                      /* f caps... */
        lua_call(L, lua_gettop(L) - 1, 1);     /* v */
    }
    grader_sb_guard_leave(L, was);
    return 1;
}

/* A guarded gsub: a replacement function or table is wrapped (l_gsub_repl). */
static int l_guard_gsub(lua_State *L)
{
    int t = lua_type(L, 3);
    if (t == LUA_TFUNCTION || t == LUA_TTABLE) {
        lua_pushvalue(L, 3);                 /* s p repl ... repl */
        lua_pushcclosure(L, l_gsub_repl, 1); /* s p repl ... wrapped */
        lua_replace(L, 3);                   /* s p wrapped ... */
    }
    return l_guard(L);
}

/* Replaces t[name] (a C function) with a guarded closure around it. */
static void guard(lua_State *L, int t, const char *name, lua_CFunction g, enum charge_kind kind)
{
    lua_getfield(L, t, name); /* orig */
    if (lua_tocfunction(L, -1)) {
        lua_pushinteger(L, kind);  /* orig kind */
        lua_pushcclosure(L, g, 2); /* guarded */
        lua_setfield(L, t, name);
    } else {
        lua_pop(L, 1);
    }
}

static void open_lib(lua_State *L, int g, const char *name, lua_CFunction open)
{
    lua_pushcfunction(L, open);
    lua_call(L, 0, 1); /* lib */
    lua_setfield(L, g, name);
}

static void open_table(lua_State *L)
{
    lua_pushcfunction(L, luaopen_table);
    lua_call(L, 0, 1); /* table */
    static const char *const names[] = {"concat", "move",   "sort", "unpack",
                                        "insert", "remove", NULL};
    for (int i = 0; names[i]; i++)
        guard(L, lua_gettop(L), names[i], l_guard,
              strcmp(names[i], "sort") == 0 ? CH_SORT : CH_TABLE);
}

static void open_utf8(lua_State *L)
{
    lua_pushcfunction(L, luaopen_utf8);
    lua_call(L, 0, 1); /* utf8 */
    static const char *const names[] = {"char", "len", "codepoint", "offset", NULL};
    for (int i = 0; names[i]; i++)
        guard(L, lua_gettop(L), names[i], l_guard, CH_BYTES);
}

static void open_math(lua_State *L)
{
    lua_pushcfunction(L, luaopen_math);
    lua_call(L, 0, 1); /* math */
    lua_pushcfunction(L, l_norandom);
    lua_setfield(L, -2, "random");
    lua_pushcfunction(L, l_norandom);
    lua_setfield(L, -2, "randomseed");
}

int grader_sb_libs_open(lua_State *L)
{
    lua_pushglobaltable(L); /* G */
    int g = lua_gettop(L);
    lua_pushcfunction(L, luaopen_base);
    lua_call(L, 0, 1); /* G _G */
    lua_pop(L, 1);     /* G */
    static const char *const removed[] = {"dofile", "loadfile", "warn", NULL};
    for (int i = 0; removed[i]; i++) {
        lua_pushnil(L);
        lua_setfield(L, g, removed[i]);
    }
    lua_pushcfunction(L, l_print);
    lua_setfield(L, g, "print");
    lua_pushcfunction(L, l_setmetatable);
    lua_setfield(L, g, "setmetatable");
    lua_pushcfunction(L, l_collectgarbage);
    lua_pushinteger(L, CH_HEAP);
    lua_pushcclosure(L, l_guard, 2);
    lua_setfield(L, g, "collectgarbage");
    lua_getfield(L, g, "xpcall");     /* G xpcall */
    lua_pushcclosure(L, l_pcall, 1);  /* G l_pcall */
    lua_setfield(L, g, "pcall");      /* G */
    lua_getfield(L, g, "xpcall");     /* G xpcall */
    lua_pushcclosure(L, l_xpcall, 1); /* G l_xpcall */
    lua_setfield(L, g, "xpcall");     /* G */
    lua_getfield(L, g, "load");       /* G load */
    lua_pushcclosure(L, l_load, 1);   /* G l_load (guards itself) */
    lua_setfield(L, g, "load");       /* G */

    open_lib(L, g, "string", luaopen_string); /* also the strings' metatable */
    lua_getfield(L, g, "string");             /* G string */
    int s = lua_gettop(L);
    lua_pushnil(L);
    lua_setfield(L, s, "dump"); /* also gone from ("").dump: this is the strings' __index */
    static const char *const sguard[] = {"find",    "match", "rep",  "format", "lower",  "upper",
                                         "reverse", "byte",  "char", "pack",   "unpack", NULL};
    for (int i = 0; sguard[i]; i++)
        guard(L, s, sguard[i], l_guard,
              strcmp(sguard[i], "find") == 0 || strcmp(sguard[i], "match") == 0 ? CH_PATTERN
                                                                                : CH_BYTES);
    guard(L, s, "gsub", l_guard_gsub, CH_PATTERN);
    guard(L, s, "gmatch", l_guard_gmatch, CH_PATTERN);
    lua_pop(L, 1); /* G */

    open_table(L);
    lua_setfield(L, g, "table");
    open_math(L);
    lua_setfield(L, g, "math");
    open_utf8(L);
    lua_setfield(L, g, "utf8");

    grader_wb_open(L, g);
    grader_decl_open(L, g);
    grader_wb_push_rng(L, 0); /* G rng: its metatable exists before any grading */
    lua_pop(L, 1);            /* G */

    lua_createtable(L, 0, 2); /* G mt */
    lua_pushvalue(L, g);
    lua_setfield(L, -2, "__index");
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
    lua_rawsetp(L, LUA_REGISTRYINDEX, &ENV_MT_KEY); /* G */

    for (size_t i = 0; i < sizeof raw_funcs / sizeof raw_funcs[0]; i++) {
        lua_getfield(L, g, raw_funcs[i].name);   /* G orig */
        lua_pushcclosure(L, raw_funcs[i].fn, 1); /* G wrapped */
        lua_setfield(L, g, raw_funcs[i].name);   /* G */
    }
    freeze_shared(L, g);
    return 0;
}

void grader_sb_job_reset(lua_State *L)
{
    lua_pushnil(L);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &ENV_KEY);
    grader_decl_reset(L);
}

void grader_sb_load(lua_State *L, const struct core_buf *bc, const char *chunkname)
{
    bool kept = bc->data && grader_sb_chunk_get(L, bc); /* f? */
    if (!kept) {
        if (luaL_loadbufferx(L, bc->data ? bc->data : "", bc->len, chunkname, "b") != LUA_OK)
            lua_error(L); /* our own bytecode: only memory can fail here */
        if (bc->data)
            grader_sb_chunk_put(L, bc);
    }
    lua_createtable(L, 0, 1); /* f E */
    lua_pushvalue(L, -1);
    lua_setfield(L, -2, "_G");
    lua_rawgetp(L, LUA_REGISTRYINDEX, &ENV_MT_KEY);
    lua_setmetatable(L, -2);
    lua_pushvalue(L, -1);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &ENV_KEY); /* the default env of load */
    if (kept)
        grader_sb_fresh_upvalue(L, -2); /* f: a new _ENV, not the last job's changed */
    else
        lua_setupvalue(L, -2, 1); /* f */
}

void grader_sb_load_mapped(lua_State *L, const struct core_buf *bc, const char *chunkname,
                           const struct grader_linemap *map)
{
    grader_sb_load(L, bc, chunkname); /* f */
    grader_sb_set_map(L, map);
}

/* ---- a sandbox with these libraries ------------------------------------------ */

static const struct grader_sb_libs sb_libs = {grader_sb_libs_open, grader_sb_job_reset};

int grader_sb_new(struct grader_sb **out, const struct grader_limits *lim,
                  struct grader_sb_pool *pool, struct core_err *err)
{
    return grader_sb_open(out, lim, pool, &sb_libs, err);
}

int grader_sb_run(const struct grader_limits *lim, struct grader_sb_pool *pool,
                  int (*fn)(struct lua_State *L), void *ud, struct core_err *err)
{
    return grader_sb_run_with(lim, pool, &sb_libs, fn, ud, err);
}
