/*
 * grader_rt_kind.c — the stack work of the question kinds (grader/'s top
 * layer: grader_kind_*.c) that the readers of grader_decl_read.c and the
 * calls of grader_call.c do not cover: a private grader of wb.lua set up
 * for a call with the values it grades, a reference made a list, values
 * copied or dropped, and a value read as tostring would write it.
 *
 * Uses the wb library (grader_wb_push_graders) and lua.h.
 */
#include "grader_runtime.h"

#include <lua.h>

#include <stdio.h>
#include <string.h>

void grader_grader_insert(struct lua_State *L, const char *name, int nargs)
{
    grader_wb_push_graders(L); /* args graders */
    lua_getfield(L, -1, name); /* args graders fn */
    lua_remove(L, -2);         /* args fn */
    lua_insert(L, -nargs - 1); /* fn args */
}

int grader_number_at(struct lua_State *L, int idx, double *out)
{
    int ty = lua_type(L, idx);
    *out = ty == LUA_TNUMBER ? lua_tonumber(L, idx) : 0;
    return ty;
}

void grader_list_wrap(struct lua_State *L)
{
    lua_createtable(L, 1, 0); /* v list */
    lua_insert(L, -2);        /* list v */
    lua_rawseti(L, -2, 1);    /* list */
}

const char *grader_dval_text(const struct grader_dval *d, char *buf, size_t n, size_t *len)
{
    const char *s = NULL;
    if (d->type == GRADER_LT_STR) {
        s = d->str;
        *len = d->len;
        return s;
    }
    if (d->type == GRADER_LT_NUM) {
        grader_num_text(d, buf, n);
        *len = strlen(buf);
        return buf;
    }
    *len = 0;
    return s;
}
