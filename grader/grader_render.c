/*
 * grader_render.c — a question's text for one variant: the prompt, hints,
 * choices and feedback with their {name} and {name:%.2f} placeholders filled
 * from the variant's params.
 *
 * A placeholder names a field of params; an optional printf conversion
 * (%d %i %f %e %g %s with flags, width and precision) formats it. "{{" is a
 * literal brace. What happens to a placeholder that cannot be filled depends
 * on the text (enum grader_render_mode): the prompt of a question whose
 * params are known refuses it (a pack error), a lab question before the
 * student's run shows "?", and feedback keeps it as written.
 *
 * Uses the job of grader_grade.c (its params and question at fixed stack
 * slots) and lua.h.
 */
#include "grader_lua_internal.h"

#include <lauxlib.h>
#include <lua.h>

#include <stdio.h>
#include <string.h>

/* A printf conversion allowed in a placeholder: %[-+ #0]*[0-9]{0,3}(.[0-9]{0,3})?[dieEfFgGsxX] */
static bool spec_ok(const char *s, size_t n, char *conv)
{
    size_t i = 0;
    if (i >= n || s[i] != '%')
        return false;
    i++;
    while (i < n && strchr("-+ #0", s[i]))
        i++;
    size_t d = 0;
    while (i < n && s[i] >= '0' && s[i] <= '9' && d < 3)
        i++, d++;
    if (i < n && s[i] == '.') {
        i++;
        d = 0;
        while (i < n && s[i] >= '0' && s[i] <= '9' && d < 3)
            i++, d++;
    }
    if (i + 1 != n || !strchr("dieEfFgGsxX", s[i]))
        return false;
    *conv = s[i];
    return true;
}

/* Formats the value on top of the stack for a placeholder. */
static bool fmt_value(lua_State *L, const char *spec, size_t spec_n, char *out, size_t n, char *why,
                      size_t wn)
{
    int ty = lua_type(L, -1);
    if (ty != LUA_TNUMBER && ty != LUA_TSTRING && ty != LUA_TBOOLEAN) {
        snprintf(why, wn, "is %s; a placeholder needs a number or a string", luaL_typename(L, -1));
        return false;
    }
    char plain[128];
    if (ty == LUA_TNUMBER && lua_isinteger(L, -1))
        snprintf(plain, sizeof plain, "%lld", (long long)lua_tointeger(L, -1));
    else if (ty == LUA_TNUMBER)
        grader_number_format(lua_tonumber(L, -1), 6, plain, sizeof plain);
    else if (ty == LUA_TBOOLEAN)
        snprintf(plain, sizeof plain, "%s", lua_toboolean(L, -1) ? "true" : "false");
    if (!spec) {
        snprintf(out, n, "%s", ty == LUA_TSTRING ? lua_tostring(L, -1) : plain);
        return true;
    }
    char conv;
    if (!spec_ok(spec, spec_n, &conv)) {
        snprintf(why, wn,
                 "has the format '%.*s'; use one of %%d %%i %%f %%e %%g %%s with "
                 "flags, width and precision, e.g. %%.2f",
                 (int)spec_n, spec);
        return false;
    }
    char f[32];
    memcpy(f, spec, spec_n - 1); /* all but the conversion */
    f[spec_n - 1] = '\0';
    if (strchr("dixX", conv)) {
        int isint = 0;
        lua_Integer k = lua_tointegerx(L, -1, &isint);
        if (ty != LUA_TNUMBER || !isint) {
            snprintf(why, wn, "needs a whole number for %%%c, got %s", conv,
                     ty == LUA_TNUMBER ? plain : luaL_typename(L, -1));
            return false;
        }
        char ff[40];
        snprintf(ff, sizeof ff, "%sll%c", f, conv == 'i' ? 'd' : conv);
        snprintf(out, n, ff, (long long)k);
    } else if (conv == 's') {
        char ff[40];
        snprintf(ff, sizeof ff, "%ss", f);
        snprintf(out, n, ff, ty == LUA_TSTRING ? lua_tostring(L, -1) : plain);
        /* a value cut at the buffer's end must not end inside a character */
        size_t len = strlen(out), k = len;
        while (k > 0 && ((unsigned char)out[k - 1] & 0xC0) == 0x80)
            k--;
        if (k > 0 && (unsigned char)out[k - 1] >= 0xC0) {
            unsigned char lead = (unsigned char)out[k - 1];
            size_t need = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2;
            if (len - (k - 1) < need)
                out[k - 1] = '\0';
        }
    } else {
        if (ty != LUA_TNUMBER) {
            snprintf(why, wn, "needs a number for %%%c, got %s", conv, luaL_typename(L, -1));
            return false;
        }
        char ff[40];
        snprintf(ff, sizeof ff, "%s%c", f, conv);
        snprintf(out, n, ff, lua_tonumber(L, -1));
    }
    return true;
}

/* The names params set, for a message: "f, p". */
static void param_names(lua_State *L, char *buf, size_t n)
{
    const char *names[16];
    size_t k = 0;
    lua_pushnil(L);
    while (lua_next(L, GRADER_S_P)) {
        if (lua_type(L, -2) == LUA_TSTRING && k < 16)
            names[k++] = lua_tostring(L, -2); /* alive: the key stays in p */
        lua_pop(L, 1);
    }
    for (size_t a = 1; a < k; a++)
        for (size_t b = a; b > 0 && strcmp(names[b - 1], names[b]) > 0; b--) {
            const char *t = names[b];
            names[b] = names[b - 1];
            names[b - 1] = t;
        }
    buf[0] = '\0';
    for (size_t i = 0; i < k; i++) {
        size_t len = strlen(buf);
        snprintf(buf + len, n - len, "%s%s", i ? ", " : "", names[i]);
    }
    if (!k)
        snprintf(buf, n, "nothing");
}

/* Renders template s with the params at GRADER_S_P: pushes the text and returns
 * true, or returns false with `why` and pushes nothing (GRADER_R_STRICT only). */
bool grader_render(lua_State *L, const char *s, enum grader_render_mode mode, char *why, size_t wn)
{
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    const char *p = s;
    while (*p) {
        if (p[0] == '{' && p[1] == '{') {
            luaL_addchar(&b, '{');
            p += 2;
            continue;
        }
        const char *q = p + 1;
        if (p[0] != '{' || !((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || *q == '_')) {
            luaL_addchar(&b, *p++);
            continue;
        }
        const char *name = q;
        while ((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || (*q >= '0' && *q <= '9') ||
               *q == '_')
            q++;
        size_t name_n = (size_t)(q - name);
        const char *spec = NULL;
        size_t spec_n = 0;
        if (*q == ':') {
            spec = q + 1;
            const char *e = strchr(spec, '}');
            if (!e || e - spec > 24) {
                luaL_addchar(&b, *p++);
                continue;
            }
            spec_n = (size_t)(e - spec);
            q = e;
        }
        if (*q != '}') {
            luaL_addchar(&b, *p++);
            continue;
        }
        lua_pushlstring(L, name, name_n);
        int ty = lua_rawget(L, GRADER_S_P); /* value */
        char out[512], w[200];
        if (ty == LUA_TNIL && mode == GRADER_R_KEEP) {
            lua_pop(L, 1);
            luaL_addchar(&b, *p++);
            continue;
        }
        if (ty == LUA_TNIL) {
            lua_pop(L, 1);
            if (mode == GRADER_R_LENIENT) {
                luaL_addchar(&b, '?');
                p = q + 1;
                continue;
            }
            char names[200];
            param_names(L, names, sizeof names);
            snprintf(why, wn, "uses {%.*s}, which params does not set (it sets %s)", (int)name_n,
                     name, names);
            luaL_pushresult(&b);
            lua_pop(L, 1);
            return false;
        }
        if (!spec && lua_type(L, -1) == LUA_TSTRING) {
            luaL_addvalue(&b); /* a plain string goes in whole, however long */
            p = q + 1;
            continue;
        }
        bool ok = fmt_value(L, spec, spec_n, out, sizeof out, w, sizeof w);
        lua_pop(L, 1);
        if (!ok && mode == GRADER_R_KEEP) {
            luaL_addchar(&b, *p++);
            continue;
        }
        if (!ok) {
            snprintf(why, wn, "placeholder {%.*s%s%.*s} %s", (int)name_n, name, spec ? ":" : "",
                     (int)spec_n, spec ? spec : "", w);
            luaL_pushresult(&b);
            lua_pop(L, 1);
            return false;
        }
        luaL_addstring(&b, out);
        p = q + 1;
    }
    luaL_pushresult(&b);
    return true;
}

/* Renders a template or stops: in GRADER_J_CHECK a problem is recorded and false
 * returned; elsewhere the pack error is raised. Pushes the text on success. */
bool grader_render_or_fail(lua_State *L, struct grader_job *j, const char *tmpl,
                           const char *field_name)
{
    char why[400];
    if (grader_render(L, tmpl, j->no_lab ? GRADER_R_LENIENT : GRADER_R_STRICT, why, sizeof why))
        return true;
    if (j->mode == GRADER_J_CHECK || j->mode == GRADER_J_SWEEP) {
        grader_job_problem(j, "%s %s", field_name, why);
        return false;
    }
    grader_job_fail(L, j, "%s %s", field_name, why);
    return false;
}

/* Renders the choices (choice, multi) or items (ordering) into GRADER_S_CH. */
void grader_render_choices(lua_State *L, struct grader_job *j)
{
    const struct grader_kind_ops *kind = grader_kind_ops(j->q->kind);
    const char *name = kind->list;
    if (!name)
        return;
    if (grader_rawfield(L, GRADER_S_Q, name) != LUA_TTABLE) { /* list */
        lua_pop(L, 1);
        return;
    }
    size_t n = lua_rawlen(L, -1);
    lua_createtable(L, (int)n, 0); /* list out */
    for (size_t i = 1; i <= n; i++) {
        if (lua_rawgeti(L, -2, (lua_Integer)i) != LUA_TSTRING) /* list out s */
            grader_job_fail(L, j, "%s %zu is not a string", name, i);
        const char *tmpl = lua_tostring(L, -1);
        char label[32];
        snprintf(label, sizeof label, "%s %zu", kind->list_item, i);
        if (grader_render_or_fail(L, j, tmpl, label)) { /* list out s text */
            lua_remove(L, -2);
        } /* else: list out s (kept as written) */
        lua_rawseti(L, -2, (lua_Integer)i);
    }
    lua_replace(L, GRADER_S_CH);
    lua_pop(L, 1);
}

void grader_hint_push(lua_State *L, int t, size_t i)
{
    int ty = lua_rawgeti(L, t, (lua_Integer)i); /* h */
    if (ty == LUA_TTABLE) {
        grader_rawfield(L, -1, "text"); /* h text */
        lua_remove(L, -2);              /* text */
        ty = lua_type(L, -1);
    }
    if (ty != LUA_TSTRING) {
        lua_pop(L, 1);
        lua_pushliteral(L, "");
    }
}

void grader_render_names(const char *s, struct core_strlist *out)
{
    for (const char *p = s; p && *p; p++) {
        if (p[0] == '{' && p[1] == '{') {
            p++;
            continue;
        }
        const char *q = p + 1;
        if (p[0] != '{' || !((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || *q == '_'))
            continue;
        const char *name = q;
        while ((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || (*q >= '0' && *q <= '9') ||
               *q == '_')
            q++;
        if (*q != '}' && *q != ':')
            continue;
        char buf[128];
        size_t n = (size_t)(q - name) < sizeof buf ? (size_t)(q - name) : sizeof buf - 1;
        memcpy(buf, name, n);
        buf[n] = '\0';
        core_strlist_push(out, buf);
    }
}
