/*
 * grader_rt_eval.c — the runtime's part of evaluating a pack file
 * (grader_eval.c, in the top layer): running the file's job in a sandbox
 * of its own, and walking the declarations its constructors recorded
 * (grader_decl.c) as C values, each opened onto the stack for the readers
 * of grader_decl_read.c. Pack evaluation checks and models what a file
 * declared through these and never touches the Lua stack itself.
 *
 * Uses the sandbox (grader_sb_new, grader_pcall), the constructors'
 * records (grader_decl_push_records) and lua.h.
 */
#include "grader_runtime.h"

#include <lua.h>

int grader_sb_run_own(const struct grader_limits *lim, struct grader_sb_pool *pool,
                      int (*fn)(struct lua_State *L), void *ud, bool *made, struct core_err *err)
{
    struct grader_sb *sb;
    *made = false;
    int rc = grader_sb_new(&sb, lim, pool, err);
    if (rc != 0)
        return rc;
    *made = true;
    lua_State *L = grader_sb_lua(sb);
    lua_pushcfunction(L, fn);     /* fn */
    lua_pushlightuserdata(L, ud); /* fn ud */
    rc = grader_pcall(sb, 1, 0, err);
    grader_sb_free(sb);
    return rc;
}

int grader_decl_records_open(struct lua_State *L, size_t *n)
{
    grader_decl_push_records(L); /* recs */
    *n = lua_rawlen(L, -1);
    return lua_gettop(L);
}

int grader_decl_record_open(struct lua_State *L, int recs, size_t i, int *kind, int *line)
{
    lua_rawgeti(L, recs, (lua_Integer)i); /* rec */
    lua_rawgeti(L, -1, 1);                /* rec kind */
    *kind = (int)lua_tointeger(L, -1);
    lua_rawgeti(L, -2, 3); /* rec kind line */
    *line = (int)lua_tointeger(L, -1);
    lua_pop(L, 2);         /* rec */
    lua_rawgeti(L, -1, 2); /* rec value */
    lua_remove(L, -2);     /* value: the list still holds it */
    return lua_gettop(L);
}
