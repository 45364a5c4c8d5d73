/*
 * grader_call.c — calling pack code and raising pack errors for packs and
 * grading (grader/'s top layer): a declared value that may be a function
 * of the variant (Q.answer, Q.params), a value copied out of the stack, an
 * error raised with its message. The top layer runs a job through these
 * and never touches the Lua stack itself.
 *
 * Uses the sandbox (grader_sb_try, grader_sb_mark_mapped) and lua.h.
 */
#include "grader_runtime.h"

#include <lua.h>

#include <stdarg.h>
#include <stdio.h>

/* The value of type ty just pushed: called with args when it is a function
 * (replaced by its one result, or by the error's text), as the two below
 * say. */
static int call_pushed(struct lua_State *L, int ty, const int *args, int nargs, int *called)
{
    *called = 0;
    if (ty != LUA_TFUNCTION)
        return ty;
    for (int i = 0; i < nargs; i++)
        lua_pushvalue(L, args[i]);
    if (grader_sb_try(L, nargs, 1) != 0) {
        *called = -1;
        return LUA_TSTRING;
    }
    *called = 1;
    return lua_type(L, -1);
}

int grader_push_field_called(struct lua_State *L, int t, const char *name, const int *args,
                             int nargs, int *called)
{
    return call_pushed(L, grader_rawfield(L, t, name), args, nargs, called);
}

int grader_push_index_called(struct lua_State *L, int t, long long i, const int *args, int nargs,
                             int *called)
{
    return call_pushed(L, lua_rawgeti(L, t, (lua_Integer)i), args, nargs, called);
}

int grader_raise(struct lua_State *L)
{
    return lua_error(L);
}

int grader_raise_mapped(struct lua_State *L, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    lua_pushstring(L, buf);
    grader_sb_mark_mapped(L);
    return lua_error(L);
}

char *grader_lua_strdup(struct lua_State *L, int idx)
{
    size_t n;
    const char *s = lua_tolstring(L, idx, &n);
    return core_xstrndup(s ? s : "", s ? n : 0);
}

void grader_push_record(struct lua_State *L, size_t n,
                        void (*entry)(size_t i, const char **name, double *v, bool *integer,
                                      void *ud),
                        void *ud)
{
    lua_createtable(L, 0, n < 1024 ? (int)n : 1024);
    for (size_t i = 0; i < n; i++) {
        const char *name;
        double v;
        bool integer;
        entry(i, &name, &v, &integer, ud);
        lua_pushstring(L, name);
        if (integer)
            lua_pushinteger(L, (lua_Integer)v);
        else
            lua_pushnumber(L, v);
        lua_rawset(L, -3);
    }
}

void *grader_sb_job_start(struct lua_State *L)
{
    void *ud = lua_touserdata(L, 1);
    grader_sb_enter_c(L);
    lua_settop(L, 0);
    return ud;
}
