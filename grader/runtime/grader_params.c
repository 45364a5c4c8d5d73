/*
 * grader_params.c — a variant's parameters as JSON and back.
 *
 * Every attempt stores the params its grade was computed from, so a later
 * re-grade (a new pack version, the instructor's machine) can grade the
 * answer against the numbers the student was shown, not against numbers a
 * changed params() would draw now. The JSON is exact: integers stay Lua
 * integers, floats stay floats and read back to the same double, strings
 * keep their bytes, so a grader sees the very table it saw the first time.
 *
 * Only what params() returns in practice is written: numbers, strings,
 * booleans and tables of them (lists as arrays, string-keyed tables as
 * objects). Anything else makes the encoder give up (NULL), and the
 * attempt keeps only its seed. Tables are read raw: no metamethod runs.
 */
#include "grader_runtime.h"

#include <lauxlib.h>
#include <lua.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 16

/* ---- encoding ---------------------------------------------------------------------- */

static void put_float(struct core_buf *b, double v)
{
    char tmp[40];
    core_num_format(tmp, sizeof tmp, v, 0); /* reads back as v, in any locale */
    core_buf_puts(b, tmp);
    if (!strpbrk(tmp, ".eEn")) /* keep it a float: 4 is an integer, 4.0 a float */
        core_buf_puts(b, ".0");
}

static bool valid_utf8_at(const unsigned char *s, size_t n, size_t i, size_t *len)
{
    unsigned c = s[i];
    size_t k = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c < 0xE0 ? 2 : 0;
    if (k == 0 || i + k > n)
        return false;
    for (size_t j = 1; j < k; j++)
        if ((s[i + j] & 0xC0) != 0x80)
            return false;
    *len = k;
    return true;
}

static void put_string(struct core_buf *b, const char *str, size_t n)
{
    const unsigned char *s = (const unsigned char *)str;
    core_buf_putc(b, '"');
    for (size_t i = 0; i < n;) {
        unsigned c = s[i];
        size_t len;
        if (c == '"' || c == '\\') {
            core_buf_putc(b, '\\');
            core_buf_putc(b, (char)c);
            i++;
        } else if (c >= 0x20 && c < 0x7F) {
            core_buf_putc(b, (char)c);
            i++;
        } else if (c >= 0x80 && valid_utf8_at(s, n, i, &len)) {
            core_buf_append(b, s + i, len);
            i += len;
        } else {
            core_buf_printf(b, "\\u%04x", c); /* control bytes and stray bytes */
            i++;
        }
    }
    core_buf_putc(b, '"');
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool encode(lua_State *L, int idx, struct core_buf *b, int depth);

/* A list is a table whose keys are exactly the integers 1..n (n >= 1). */
static bool is_list(lua_State *L, int idx, size_t *n)
{
    size_t len = lua_rawlen(L, idx), count = 0;
    lua_pushnil(L);
    while (lua_next(L, idx)) { /* k v */
        lua_pop(L, 1);
        count++;
    }
    *n = len;
    return len > 0 && count == len;
}

static bool encode_table(lua_State *L, int idx, struct core_buf *b, int depth)
{
    if (depth > MAX_DEPTH)
        return false;
    size_t n;
    if (is_list(L, idx, &n)) {
        core_buf_putc(b, '[');
        for (size_t i = 1; i <= n; i++) {
            if (i > 1)
                core_buf_putc(b, ',');
            lua_rawgeti(L, idx, (lua_Integer)i); /* v */
            bool ok = encode(L, lua_gettop(L), b, depth + 1);
            lua_pop(L, 1);
            if (!ok)
                return false;
        }
        core_buf_putc(b, ']');
        return true;
    }
    /* An object: string keys only, sorted so equal tables write equal text. */
    size_t cap = 8, nk = 0;
    char **keys = core_xmalloc(cap * sizeof *keys);
    bool ok = true;
    lua_pushnil(L);
    while (lua_next(L, idx)) { /* k v */
        lua_pop(L, 1);
        if (lua_type(L, -1) != LUA_TSTRING) {
            lua_pop(L, 1);
            ok = false;
            break;
        }
        if (nk == cap)
            keys = core_xrealloc(keys, (cap *= 2) * sizeof *keys);
        size_t kl;
        const char *k = lua_tolstring(L, -1, &kl);
        keys[nk++] = core_xstrndup(k, kl);
    }
    if (ok) {
        qsort(keys, nk, sizeof *keys, cmp_str);
        core_buf_putc(b, '{');
        for (size_t i = 0; i < nk && ok; i++) {
            if (i)
                core_buf_putc(b, ',');
            put_string(b, keys[i], strlen(keys[i]));
            core_buf_putc(b, ':');
            lua_pushstring(L, keys[i]);
            lua_rawget(L, idx); /* v */
            ok = encode(L, lua_gettop(L), b, depth + 1);
            lua_pop(L, 1);
        }
        core_buf_putc(b, '}');
    }
    for (size_t i = 0; i < nk; i++)
        free(keys[i]);
    free(keys);
    return ok;
}

static bool encode(lua_State *L, int idx, struct core_buf *b, int depth)
{
    switch (lua_type(L, idx)) {
    case LUA_TBOOLEAN:
        core_buf_puts(b, lua_toboolean(L, idx) ? "true" : "false");
        return true;
    case LUA_TNUMBER:
        if (lua_isinteger(L, idx)) {
            core_buf_printf(b, "%lld", (long long)lua_tointeger(L, idx));
            return true;
        }
        if (!isfinite(lua_tonumber(L, idx)))
            return false;
        put_float(b, lua_tonumber(L, idx));
        return true;
    case LUA_TSTRING: {
        size_t n;
        const char *s = lua_tolstring(L, idx, &n);
        put_string(b, s, n);
        return true;
    }
    case LUA_TTABLE:
        if (!lua_checkstack(L, 8))
            return false;
        return encode_table(L, idx, b, depth); /* an empty table writes {} */
    default:
        return false;
    }
}

char *grader_params_encode(lua_State *L, int idx)
{
    idx = lua_absindex(L, idx);
    if (lua_type(L, idx) != LUA_TTABLE)
        return NULL;
    struct core_buf b;
    core_buf_init(&b);
    int top = lua_gettop(L);
    bool ok = encode(L, idx, &b, 0);
    lua_settop(L, top);
    if (!ok || (b.len > 0 && b.data[0] != '{')) {
        core_buf_fini(&b);
        return NULL;
    }
    return core_buf_steal(&b);
}

/* ---- decoding ---------------------------------------------------------------------- */

struct rd {
    const char *s;
    lua_State *L;
};

static void ws(struct rd *r)
{
    while (*r->s == ' ' || *r->s == '\n' || *r->s == '\t' || *r->s == '\r')
        r->s++;
}

static bool value(struct rd *r, int depth);

static bool string_value(struct rd *r)
{
    if (*r->s != '"')
        return false;
    r->s++;
    luaL_Buffer b;
    luaL_buffinit(r->L, &b);
    while (*r->s && *r->s != '"') {
        if (*r->s != '\\') {
            luaL_addchar(&b, *r->s++);
            continue;
        }
        r->s++;
        char c = *r->s++;
        switch (c) {
        case '"':
        case '\\':
        case '/':
            luaL_addchar(&b, c);
            break;
        case 'n':
            luaL_addchar(&b, '\n');
            break;
        case 't':
            luaL_addchar(&b, '\t');
            break;
        case 'r':
            luaL_addchar(&b, '\r');
            break;
        case 'u': {
            unsigned v = 0;
            for (int i = 0; i < 4; i++) {
                char h = *r->s++;
                int d = h >= '0' && h <= '9'   ? h - '0'
                        : h >= 'a' && h <= 'f' ? h - 'a' + 10
                        : h >= 'A' && h <= 'F' ? h - 'A' + 10
                                               : -1;
                if (d < 0)
                    return false;
                v = v * 16 + (unsigned)d;
            }
            if (v > 0xFF) /* the encoder escapes single bytes only */
                return false;
            luaL_addchar(&b, (char)v);
            break;
        }
        default:
            return false;
        }
    }
    if (*r->s != '"')
        return false;
    r->s++;
    luaL_pushresult(&b); /* str */
    return true;
}

static bool number_value(struct rd *r)
{
    const char *start = r->s;
    bool is_float = false;
    if (*r->s == '-')
        r->s++;
    while ((*r->s >= '0' && *r->s <= '9') || *r->s == '.' || *r->s == 'e' || *r->s == 'E' ||
           *r->s == '+' || *r->s == '-') {
        if (*r->s == '.' || *r->s == 'e' || *r->s == 'E')
            is_float = true;
        r->s++;
    }
    size_t n = (size_t)(r->s - start);
    if (n == 0 || n > 40)
        return false;
    char tmp[48];
    memcpy(tmp, start, n);
    tmp[n] = '\0';
    char *end;
    if (is_float) {
        double v;
        if (core_num_parse(tmp, n, 0, &v, NULL, NULL) != CORE_OK || !isfinite(v))
            return false;
        lua_pushnumber(r->L, v);
    } else {
        long long v = strtoll(tmp, &end, 10);
        if (*end)
            return false;
        lua_pushinteger(r->L, (lua_Integer)v);
    }
    return true;
}

static bool word(struct rd *r, const char *w)
{
    size_t n = strlen(w);
    if (strncmp(r->s, w, n) != 0)
        return false;
    r->s += n;
    return true;
}

static bool value(struct rd *r, int depth)
{
    if (depth > MAX_DEPTH || !lua_checkstack(r->L, 4))
        return false;
    ws(r);
    if (*r->s == '{') {
        r->s++;
        lua_newtable(r->L); /* t */
        ws(r);
        if (*r->s == '}') {
            r->s++;
            return true;
        }
        for (;;) {
            ws(r);
            if (!string_value(r)) /* t k */
                return false;
            ws(r);
            if (*r->s++ != ':' || !value(r, depth + 1)) /* t k v */
                return false;
            lua_rawset(r->L, -3); /* t */
            ws(r);
            if (*r->s == ',') {
                r->s++;
                continue;
            }
            if (*r->s++ != '}')
                return false;
            return true;
        }
    }
    if (*r->s == '[') {
        r->s++;
        lua_newtable(r->L); /* t */
        ws(r);
        if (*r->s == ']') {
            r->s++;
            return true;
        }
        for (lua_Integer i = 1;; i++) {
            if (!value(r, depth + 1)) /* t v */
                return false;
            lua_rawseti(r->L, -2, i); /* t */
            ws(r);
            if (*r->s == ',') {
                r->s++;
                continue;
            }
            if (*r->s++ != ']')
                return false;
            return true;
        }
    }
    if (*r->s == '"')
        return string_value(r);
    if (word(r, "true")) {
        lua_pushboolean(r->L, 1);
        return true;
    }
    if (word(r, "false")) {
        lua_pushboolean(r->L, 0);
        return true;
    }
    return number_value(r);
}

bool grader_params_decode(lua_State *L, const char *json)
{
    if (!json)
        return false;
    int top = lua_gettop(L);
    struct rd r = {json, L};
    ws(&r);
    bool ok = *r.s == '{' && value(&r, 0);
    if (ok) {
        ws(&r);
        ok = *r.s == '\0';
    }
    if (!ok)
        lua_settop(L, top);
    return ok;
}

/* ---- as text: a variant's identity ------------------------------------------------ */

/* A number as short as it can be written and still read back exactly. */
static void key_number(lua_State *L, int idx, struct core_buf *b)
{
    if (lua_isinteger(L, idx)) {
        core_buf_printf(b, "%lld", (long long)lua_tointeger(L, idx));
        return;
    }
    double v = lua_tonumber(L, idx);
    char num[40];
    snprintf(num, sizeof num, "%.15g", v);
    if (strtod(num, NULL) != v)
        snprintf(num, sizeof num, "%.17g", v);
    core_buf_puts(b, num);
}

/* Writes the table at idx as "k=v, k=v" with keys sorted (tables nested as
 * {...}): the same params always give the same text, which is what tells
 * two variants apart. */
static void key_table(lua_State *L, int idx, struct core_buf *b, int depth)
{
    idx = lua_absindex(L, idx);
    enum { MAX_KEYS = 64 };
    const char *keys[MAX_KEYS];
    size_t n = 0;
    lua_createtable(L, 0, 0); /* names: keeps the key texts alive */
    int names = lua_gettop(L);
    lua_pushnil(L);
    while (n < MAX_KEYS && lua_next(L, idx)) { /* names k v */
        lua_pop(L, 1);                         /* names k */
        lua_pushvalue(L, -1);                  /* names k k */
        const char *t = lua_type(L, -1) == LUA_TNUMBER ? NULL : lua_tostring(L, -1);
        if (!t) {
            struct core_buf kb;
            core_buf_init(&kb);
            if (lua_type(L, -1) == LUA_TNUMBER)
                key_number(L, -1, &kb);
            else
                core_buf_printf(&kb, "(%s)", luaL_typename(L, -1));
            lua_pop(L, 1);
            lua_pushstring(L, kb.data ? kb.data : ""); /* names k ktext */
            core_buf_fini(&kb);
        }
        keys[n] = lua_tostring(L, -1);
        lua_rawseti(L, names, (lua_Integer)n + 1); /* names k */
        n++;
    }
    if (n == MAX_KEYS)
        lua_pop(L, 1); /* the key lua_next left */
    qsort(keys, n, sizeof *keys, cmp_str);
    for (size_t i = 0; i < n; i++) {
        core_buf_printf(b, "%s%s=", i ? ", " : "", keys[i]);
        lua_pushstring(L, keys[i]);  /* names ktext */
        int ty = lua_rawget(L, idx); /* names v */
        if (ty == LUA_TNIL) {        /* a number key: look it up as a number */
            lua_pop(L, 1);
            lua_pushnumber(L, strtod(keys[i], NULL));
            if (lua_isinteger(L, -1) || lua_tonumber(L, -1) == (lua_Integer)lua_tonumber(L, -1)) {
                lua_Integer k = (lua_Integer)lua_tonumber(L, -1);
                lua_pop(L, 1);
                lua_pushinteger(L, k);
            }
            ty = lua_rawget(L, idx);
        }
        if (ty == LUA_TNUMBER)
            key_number(L, -1, b);
        else if (ty == LUA_TSTRING)
            core_buf_printf(b, "\"%s\"", lua_tostring(L, -1));
        else if (ty == LUA_TBOOLEAN)
            core_buf_puts(b, lua_toboolean(L, -1) ? "true" : "false");
        else if (ty == LUA_TTABLE && depth < 3) {
            core_buf_putc(b, '{');
            key_table(L, -1, b, depth + 1);
            core_buf_putc(b, '}');
        } else
            core_buf_printf(b, "(%s)", luaL_typename(L, -1));
        lua_pop(L, 1); /* names */
    }
    lua_settop(L, names - 1);
}

void grader_params_key(lua_State *L, int idx, struct core_buf *b)
{
    key_table(L, idx, b, 0);
}
