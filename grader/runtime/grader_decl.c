/*
 * grader_decl.c — the constructors a pack file calls: pack, lesson, page,
 * question, calculator and formulas.
 *
 * In declare mode (pack evaluation, grader_eval.c) each call is recorded
 * with its line, as { kind, value, line } in a list in the registry, for the
 * eval driver to check and turn into the model once the file has run. In
 * grade mode (every later run of a file, grader_grade.c and grader_calc.c)
 * question{} and calculator{} only index their table by id, so the job can
 * find the one it wants.
 *
 * Uses lua.h only.
 */
#include "grader_runtime.h"

#include <lauxlib.h>
#include <lua.h>

/* ---- the constructors ------------------------------------------------------------------------ */

static const char DECLS_KEY = 'd'; /* registry: list of { kind, value, line } */

static const char QUEST_KEY = 'q'; /* registry: question tables by id (grade mode) */

static const char MODE_KEY = 'M'; /* registry: enum grader_decl_mode */

static const char CALC_KEY = 'c'; /* registry: calculator tables by id (grade mode) */

static const char *const decl_names[] = {"?",        "pack",       "lesson",  "page",
                                         "question", "calculator", "formulas"};

static int record(lua_State *L, int kind)
{
    lua_settop(L, 1); /* arg */
    lua_rawgetp(L, LUA_REGISTRYINDEX, &MODE_KEY);
    int mode = (int)lua_tointeger(L, -1);
    lua_pop(L, 1);
    if (mode == GRADER_DECL_GRADE) {
        if ((kind == GRADER_D_QUESTION || kind == GRADER_D_CALC) && lua_type(L, 1) == LUA_TTABLE) {
            lua_pushliteral(L, "id");
            if (lua_rawget(L, 1) == LUA_TSTRING) { /* arg id */
                lua_rawgetp(L, LUA_REGISTRYINDEX,
                            kind == GRADER_D_CALC ? &CALC_KEY : &QUEST_KEY); /* arg id Q */
                lua_insert(L, -2);                                           /* arg Q id */
                lua_pushvalue(L, 1);                                         /* arg Q id arg */
                lua_rawset(L, -3);                                           /* arg Q */
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
    return record(L, GRADER_D_PACK);
}

static int l_lesson(lua_State *L)
{
    return record(L, GRADER_D_LESSON);
}

static int l_page(lua_State *L)
{
    return record(L, GRADER_D_PAGE);
}

static int l_question(lua_State *L)
{
    return record(L, GRADER_D_QUESTION);
}

static int l_calculator(lua_State *L)
{
    return record(L, GRADER_D_CALC);
}

static int l_formulas(lua_State *L)
{
    return record(L, GRADER_D_FORMULAS);
}

static const luaL_Reg decl_funcs[] = {{"pack", l_pack},
                                      {"lesson", l_lesson},
                                      {"page", l_page},
                                      {"question", l_question},
                                      {"calculator", l_calculator},
                                      {"formulas", l_formulas},
                                      {NULL, NULL}};

void grader_decl_open(lua_State *L, int g)
{
    lua_pushvalue(L, g);
    luaL_setfuncs(L, decl_funcs, 0);
    lua_pop(L, 1);
    grader_decl_reset(L);
}

void grader_decl_reset(lua_State *L)
{
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

void grader_decl_push_records(lua_State *L)
{
    lua_rawgetp(L, LUA_REGISTRYINDEX, &DECLS_KEY); /* decls */
}

const char *grader_decl_name(int kind)
{
    return kind > 0 && kind < GRADER_D_N ? decl_names[kind] : decl_names[0];
}
