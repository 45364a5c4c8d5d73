/*
 * grader_rt_selftest.c — the stack work of pack check's self-tests and
 * attacks (grader_selftest.c, grader_attack.c), as C calls (a mark on the
 * stack and a drop back to it are grader_rt_grade.c's grader_top and
 * grader_settop): a value put
 * in a job's fixed slot (the example being graded), and a list entry that
 * may be a function of the variant called (an example's positional
 * answer). The top layer runs its self-tests through these and
 * grader_decl_read.c's readers, and never touches the Lua stack itself.
 *
 * Uses the sandbox (grader_sb_try) and lua.h.
 */
#include "grader_runtime.h"

#include <lua.h>

void grader_slot_set(struct lua_State *L, int slot, int from)
{
    if (from)
        lua_pushvalue(L, from);
    else
        lua_pushnil(L);
    lua_replace(L, slot);
}
