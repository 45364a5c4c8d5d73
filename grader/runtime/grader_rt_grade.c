/*
 * grader_rt_grade.c — the Lua stack work of a job's driver (grader_grade.c):
 * the job's fixed slots moved, copied and cut back, the fields it sets on
 * its own tables (ctx), ctx.lab built from the student's run or filled in
 * for an example's pretend run, and the params a sealed question shows,
 * as JSON. The driver decides; these only touch the stack, with C values
 * in and out, so the driver includes none of Lua's headers.
 *
 * Reads of the pack's tables are raw (no metamethod runs); the fields set
 * on ctx go through lua_setfield, as they always did. Uses lua.h and the
 * params encoder (grader_params.c).
 */
#include "grader_runtime.h"

#include <lua.h>

#include <string.h>

int grader_top(struct lua_State *L)
{
    return lua_gettop(L);
}

void grader_settop(struct lua_State *L, int top)
{
    lua_settop(L, top);
}

void grader_pop(struct lua_State *L, int n)
{
    lua_pop(L, n);
}

void grader_slot_replace(struct lua_State *L, int slot)
{
    lua_replace(L, slot);
}

void grader_push_slot(struct lua_State *L, int idx)
{
    lua_pushvalue(L, idx);
}

void grader_push_table(struct lua_State *L)
{
    lua_newtable(L);
}

void grader_setfield(struct lua_State *L, int t, const char *name)
{
    lua_setfield(L, t, name);
}

const char *grader_tostring(struct lua_State *L, int idx)
{
    return lua_tostring(L, idx);
}

void grader_ctx_new(struct lua_State *L, int slot, int variant, double points)
{
    lua_createtable(L, 0, 6); /* ctx: variant, points, lab, params, reference and one spare */
    lua_pushinteger(L, variant);
    lua_setfield(L, -2, "variant");
    lua_pushnumber(L, points);
    lua_setfield(L, -2, "points");
    lua_replace(L, slot);
}

static void push_kv(lua_State *L, const struct grader_kv *kv, size_t n)
{
    lua_createtable(L, 0, (int)n);
    for (size_t i = 0; i < n; i++) {
        if (!kv[i].key)
            continue;
        if (kv[i].is_num)
            lua_pushnumber(L, kv[i].num);
        else
            lua_pushstring(L, kv[i].str ? kv[i].str : "");
        lua_setfield(L, -2, kv[i].key);
    }
}

void grader_push_lab_run(struct lua_State *L, const struct grader_lab_run *run)
{
    if (!run) {
        lua_pushnil(L);
        return;
    }
    lua_createtable(L, 0, 5);
    lua_pushinteger(L, run->id);
    lua_setfield(L, -2, "id");
    lua_pushstring(L, run->lab ? run->lab : "");
    lua_setfield(L, -2, "lab");
    if (run->finished_at) {
        lua_pushstring(L, run->finished_at);
        lua_setfield(L, -2, "finished_at");
    }
    push_kv(L, run->params, run->n_params);
    lua_setfield(L, -2, "params");
    push_kv(L, run->summary, run->n_summary);
    lua_setfield(L, -2, "summary");
}

void grader_lab_fill_pretend(struct lua_State *L, int t, const char *lab)
{
    static const char *const tabs[] = {"params", "summary"};
    t = lua_absindex(L, t);
    for (int i = 0; i < 2; i++) {
        if (grader_rawfield(L, t, tabs[i]) != LUA_TTABLE) {
            lua_pushstring(L, tabs[i]);
            lua_newtable(L);
            lua_rawset(L, t);
        }
        lua_pop(L, 1);
    }
    if (grader_rawfield(L, t, "id") == LUA_TNIL) {
        lua_pushliteral(L, "id");
        lua_pushinteger(L, 0);
        lua_rawset(L, t);
    }
    lua_pop(L, 1);
    if (grader_rawfield(L, t, "lab") == LUA_TNIL) {
        lua_pushliteral(L, "lab");
        lua_pushstring(L, lab ? lab : "");
        lua_rawset(L, t);
    }
    lua_pop(L, 1);
    if (grader_rawfield(L, t, "finished_at") == LUA_TNIL) {
        lua_pushliteral(L, "finished_at");
        lua_pushliteral(L, "1970-01-01T00:00:00.000Z"); /* a fixed, obviously pretend time */
        lua_rawset(L, t);
    }
    lua_pop(L, 1);
}

void grader_push_first_sub(struct lua_State *L, int t, const char *list, const char *field)
{
    t = lua_absindex(L, t);
    int top = lua_gettop(L);
    if (grader_rawfield(L, t, list) == LUA_TTABLE) { /* list */
        size_t n = lua_rawlen(L, top + 1);
        for (size_t i = 1; i <= n; i++) {
            if (lua_rawgeti(L, top + 1, (lua_Integer)i) == LUA_TTABLE && /* list e */
                grader_rawfield(L, -1, field) == LUA_TTABLE) {           /* list e sub */
                lua_replace(L, top + 1);                                 /* sub e */
                lua_settop(L, top + 1);                                  /* sub */
                return;
            }
            lua_settop(L, top + 1);
        }
    }
    lua_settop(L, top);
    lua_pushnil(L);
}

char *grader_params_encode_names(struct lua_State *L, int p, const char *const *names, size_t n)
{
    p = lua_absindex(L, p);
    lua_createtable(L, 0, (int)n); /* shown */
    for (size_t i = 0; i < n; i++) {
        lua_pushstring(L, names[i]);
        lua_pushvalue(L, -1);
        lua_rawget(L, p);  /* shown name value */
        lua_rawset(L, -3); /* shown */
    }
    char *json = grader_params_encode(L, lua_gettop(L));
    lua_pop(L, 1);
    return json;
}
