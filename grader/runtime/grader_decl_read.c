/*
 * grader_decl_read.c — reading what a pack file declared into C: the
 * fields of a declaration's table (question{}, calculator{}, formulas{},
 * their entries) as C values, its lists, its sub-tables, and a walk over
 * every entry. Packs and grading (grader/'s top layer) check and model a
 * declaration through these and never touch the Lua stack themselves.
 *
 * Every read is raw: no metamethod of pack code runs. A table is named by
 * its stack slot (an int from the caller that holds it); a sub-table is
 * opened onto the stack (grader_tab_open) and closed again. Strings read
 * are borrowed from the table, valid while it holds them (a declaration's
 * tables are not changed while they are read).
 *
 * Uses lua.h only.
 */
#include "grader_runtime.h"

#include <lauxlib.h>
#include <lua.h>

#include <stdio.h>
#include <string.h>

_Static_assert(GRADER_LT_NONE == LUA_TNONE && GRADER_LT_NIL == LUA_TNIL &&
                   GRADER_LT_BOOL == LUA_TBOOLEAN && GRADER_LT_NUM == LUA_TNUMBER &&
                   GRADER_LT_STR == LUA_TSTRING && GRADER_LT_TAB == LUA_TTABLE &&
                   GRADER_LT_FUN == LUA_TFUNCTION,
               "grader_ltype follows Lua's type tags");

/* The value at idx (on the stack) into *out; returns its type. */
static int read_value(lua_State *L, int idx, struct grader_dval *out)
{
    memset(out, 0, sizeof *out);
    out->type = lua_type(L, idx);
    switch (out->type) {
    case LUA_TBOOLEAN:
        out->b = lua_toboolean(L, idx);
        break;
    case LUA_TNUMBER: {
        int isint = 0;
        lua_Integer i = lua_tointegerx(L, idx, &isint);
        out->num = lua_tonumber(L, idx);
        out->integer = lua_isinteger(L, idx);
        out->isint = isint;
        out->i = isint ? (long long)i : 0;
        break;
    }
    case LUA_TSTRING: {
        int isint = 0;
        lua_Integer i = lua_tointegerx(L, idx, &isint); /* "2" reads as 2, as Lua converts */
        out->isint = isint;
        out->i = isint ? (long long)i : 0;
        out->str = lua_tolstring(L, idx, &out->len);
        break;
    }
    default:
        break;
    }
    return out->type;
}

void grader_num_text(const struct grader_dval *d, char *buf, size_t n)
{
    if (d->integer) {
        snprintf(buf, n, "%lld", d->i);
        return;
    }
    snprintf(buf, n, "%.14g", d->num); /* LUAI_NUMFFORMAT, as tostring writes a float */
    if (buf[strspn(buf, "-0123456789")] == '\0') {
        size_t len = strlen(buf);
        snprintf(buf + len, n - len, ".0");
    }
}

const char *grader_ltype_name(int type)
{
    switch (type) {
    case GRADER_LT_NONE:
        return "no value";
    case GRADER_LT_NIL:
        return "nil";
    case GRADER_LT_BOOL:
        return "boolean";
    case GRADER_LT_NUM:
        return "number";
    case GRADER_LT_STR:
        return "string";
    case GRADER_LT_TAB:
        return "table";
    case GRADER_LT_FUN:
        return "function";
    case LUA_TLIGHTUSERDATA:
    case LUA_TUSERDATA:
        return "userdata";
    case LUA_TTHREAD:
        return "thread";
    default:
        return "?";
    }
}

int grader_rawfield(lua_State *L, int t, const char *name)
{
    lua_pushstring(L, name);
    return lua_rawget(L, t < 0 ? t - 1 : t);
}

int grader_field(lua_State *L, int t, const char *name, struct grader_dval *out)
{
    t = lua_absindex(L, t);
    lua_pushstring(L, name);
    lua_rawget(L, t);
    int ty = read_value(L, -1, out);
    lua_pop(L, 1); /* the string stays referenced by t */
    return ty;
}

int grader_value(lua_State *L, int idx, struct grader_dval *out)
{
    return read_value(L, idx, out);
}

int grader_field_n(lua_State *L, int t, const char *name, size_t n, struct grader_dval *out)
{
    t = lua_absindex(L, t);
    lua_pushlstring(L, name, n);
    lua_rawget(L, t);
    int ty = read_value(L, -1, out);
    lua_pop(L, 1);
    return ty;
}

int grader_field_type(lua_State *L, int t, const char *name)
{
    int ty = grader_rawfield(L, t, name);
    lua_pop(L, 1);
    return ty;
}

int grader_index(lua_State *L, int t, long long i, struct grader_dval *out)
{
    lua_rawgeti(L, t, (lua_Integer)i);
    int ty = read_value(L, -1, out);
    lua_pop(L, 1);
    return ty;
}

bool grader_has_field(lua_State *L, int t, const char *name)
{
    return grader_field_type(L, t, name) != LUA_TNIL;
}

char *grader_str_field(lua_State *L, int t, const char *name)
{
    char *s = NULL;
    if (grader_rawfield(L, t, name) == LUA_TSTRING)
        s = core_xstrdup(lua_tostring(L, -1));
    lua_pop(L, 1);
    return s;
}

bool grader_num_field(lua_State *L, int t, const char *name, double *out)
{
    bool ok = grader_rawfield(L, t, name) == LUA_TNUMBER;
    if (ok)
        *out = lua_tonumber(L, -1);
    lua_pop(L, 1);
    return ok;
}

bool grader_bool_field(lua_State *L, int t, const char *name, bool *out)
{
    bool ok = grader_rawfield(L, t, name) == LUA_TBOOLEAN;
    if (ok)
        *out = lua_toboolean(L, -1);
    lua_pop(L, 1);
    return ok;
}

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

size_t grader_len(lua_State *L, int t)
{
    return lua_type(L, t) == LUA_TTABLE ? lua_rawlen(L, t) : 0;
}

int grader_type(lua_State *L, int idx)
{
    return lua_type(L, idx);
}

size_t grader_count(lua_State *L, int t)
{
    t = lua_absindex(L, t);
    size_t count = 0;
    lua_pushnil(L);
    while (lua_next(L, t)) {
        count++;
        lua_pop(L, 1);
    }
    return count;
}

bool grader_is_list(lua_State *L, int t)
{
    return lua_type(L, t) == LUA_TTABLE && grader_list_keys(L, t) &&
           grader_count(L, t) == lua_rawlen(L, t);
}

bool grader_list_keys(lua_State *L, int t)
{
    t = lua_absindex(L, t);
    lua_Integer n = (lua_Integer)lua_rawlen(L, t);
    bool ok = true;
    lua_pushnil(L);
    while (lua_next(L, t)) { /* k v */
        int isint = 0;
        lua_Integer k = lua_type(L, -2) == LUA_TNUMBER ? lua_tointegerx(L, -2, &isint) : 0;
        ok &= isint && k >= 1 && k <= n;
        lua_pop(L, 1);
    }
    return ok;
}

void grader_pairs(lua_State *L, int t, grader_pair_fn fn, void *ud)
{
    t = lua_absindex(L, t);
    lua_pushnil(L);
    while (lua_next(L, t)) { /* k v */
        struct grader_dval k, v;
        read_value(L, -2, &k);
        read_value(L, -1, &v);
        v.slot = lua_gettop(L);
        k.slot = v.slot - 1;
        bool more = fn(&k, &v, ud);
        lua_pop(L, 1); /* k */
        if (!more) {
            lua_pop(L, 1);
            break;
        }
    }
}

int grader_tab_open(lua_State *L, int t, const char *name)
{
    if (grader_rawfield(L, t, name) != LUA_TTABLE) {
        lua_pop(L, 1);
        return 0;
    }
    return lua_gettop(L);
}

int grader_tab_open_at(lua_State *L, int t, long long i)
{
    if (lua_rawgeti(L, t, (lua_Integer)i) != LUA_TTABLE) {
        lua_pop(L, 1);
        return 0;
    }
    return lua_gettop(L);
}

void grader_tab_close(lua_State *L, int sub)
{
    if (sub > 0)
        lua_settop(L, sub - 1);
}

void grader_push_string(lua_State *L, const char *s, size_t n)
{
    lua_pushlstring(L, s, n);
}

void grader_slot_set_strs(lua_State *L, int slot, const char *const *v, const size_t *len, size_t n)
{
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        lua_pushlstring(L, v[i], len[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_replace(L, slot);
}

void grader_push_nil(lua_State *L)
{
    lua_pushnil(L);
}
