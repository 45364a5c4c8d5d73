/*
 * grader_attack.c — pack check's attacks on a design rubric: answers built
 * from the question itself (its terms as a list, in nonsense frames, its
 * claims with their roles swapped, negated and asked, its prompt and hints
 * pasted back, its model answer with its own contradiction), each graded
 * like a student's answer. One sandbox per question: wb.lua builds the
 * attacks, and every grading is its own call with its own budget.
 *
 * Uses the job driver (grader_grade.c) and wb.lua's private graders.
 */
#include "grader_lua_internal.h"

#include <lauxlib.h>
#include <lua.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ANSWER_SHOWN 200

void grader_attacks_free(struct grader_attack_out *a, size_t n)
{
    for (size_t i = 0; a && i < n; i++) {
        free(a[i].name);
        free(a[i].answer);
        free(a[i].matched);
        grader_result_fini(&a[i].res);
    }
    free(a);
}

/* "concept (\"clause\"); ..." for the concepts the attack earned. */
static char *matched_text(const struct grader_result *r)
{
    struct core_buf b;
    core_buf_init(&b);
    for (size_t i = 0; i < r->n_claims; i++) {
        const struct grader_claim_evidence *e = &r->claims[i];
        if (strcmp(e->status, "found") != 0)
            continue;
        core_buf_printf(&b, "%s%s (\"%.120s\")", b.len ? "; " : "", e->concept, e->clause);
    }
    core_buf_putc(&b, '\0');
    return core_buf_steal(&b);
}

/* GRADER_J_ATTACK: builds the attacks, then grades each. */
static void attack_fill(lua_State *L, struct grader_job *j)
{
    grader_wb_push_graders(L);                           /* graders */
    lua_getfield(L, -1, "attacks");                      /* graders fn */
    lua_remove(L, -2);                                   /* fn */
    lua_pushvalue(L, GRADER_S_Q);                        /* fn q */
    grader_job_call(L, j, "building the attacks", 1, 1); /* list */
    int list = lua_gettop(L);
    size_t n = lua_type(L, list) == LUA_TTABLE ? lua_rawlen(L, list) : 0;
    j->attacks = n ? core_xcalloc(n, sizeof *j->attacks) : NULL;
    for (size_t i = 1; i <= n; i++) {
        if (lua_rawgeti(L, list, (lua_Integer)i) != LUA_TTABLE) { /* list a */
            lua_pop(L, 1);
            continue;
        }
        lua_getfield(L, -1, "name");   /* list a name */
        lua_getfield(L, -2, "answer"); /* list a name answer */
        if (lua_type(L, -1) != LUA_TSTRING || lua_type(L, -2) != LUA_TSTRING) {
            lua_pop(L, 3);
            continue;
        }
        /* what is allocated belongs to the job before anything can raise */
        struct grader_attack_out *o = &j->attacks[j->n_attacks++];
        o->name = grader_lua_strdup(L, -2);
        o->answer = grader_lua_strdup(L, -1);
        lua_pop(L, 2);                 /* list a */
        lua_getfield(L, -1, "report"); /* list a report */
        o->report = lua_toboolean(L, -1);
        lua_pop(L, 2); /* list */
        j->res = &o->res;
        int top = lua_gettop(L);
        grader_job_grade(L, j, o->answer);
        lua_settop(L, top);
        o->score = o->res.valid && o->res.max > 0 ? o->res.score / o->res.max : 0;
        o->matched = matched_text(&o->res);
        if (strlen(o->answer) > ANSWER_SHOWN)
            o->answer[ANSWER_SHOWN] = '\0';
        grader_result_fini(&o->res);
        j->res = NULL;
    }
    lua_pop(L, 1);
}

int grader_attacks_run(struct grader_pack *p, size_t qi, struct grader_attack_out **out, size_t *n,
                       struct core_err *err)
{
    *out = NULL;
    *n = 0;
    const struct grader_qx *x = &p->qx[qi];
    if (x->q->kind != GRADER_DESIGN || x->q->has_grade)
        return CORE_OK;
    struct grader_job j = {.p = p,
                           .qx = x,
                           .q = x->q,
                           .mode = GRADER_J_ATTACK,
                           .fill = attack_fill,
                           .user = "example",
                           .variant = 1};
    int rc = grader_job_run(&j, err);
    if (rc) {
        grader_attacks_free(j.attacks, j.n_attacks);
        return rc;
    }
    *out = j.attacks;
    *n = j.n_attacks;
    return CORE_OK;
}
