/*
 * grader_attack.c — pack check's attacks on a design rubric: answers built
 * from the question itself (its terms as a list, in nonsense frames, its
 * claims with their roles swapped, negated and asked, its prompt and hints
 * pasted back, its model answer with its own contradiction), each graded
 * like a student's answer. One sandbox per question: wb.lua builds the
 * attacks, and every grading is its own call with its own budget.
 *
 * Uses the job driver (grader_grade.c), wb.lua's private graders, and the
 * runtime's readers and calls (grader_decl_read.c, grader_call.c,
 * grader_rt_selftest.c); no Lua stack work of its own.
 */
#include "grader_lua_internal.h"

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
static void attack_fill(struct lua_State *L, struct grader_job *j)
{
    static const int args[] = {GRADER_S_Q};
    int top = grader_top(L);
    grader_wb_push_graders(L); /* graders */
    j->what = "building the attacks";
    int called;
    grader_push_field_called(L, top + 1, "attacks", args, 1, &called); /* graders list */
    if (called < 0)
        grader_raise(L);
    j->what = NULL;
    int list = grader_top(L);
    size_t n = grader_len(L, list);
    j->attacks = n ? core_xcalloc(n, sizeof *j->attacks) : NULL;
    for (size_t i = 1; i <= n; i++) {
        int a = grader_tab_open_at(L, list, (long long)i); /* graders list a */
        if (!a)
            continue;
        struct grader_dval name, answer, report;
        if (grader_field(L, a, "name", &name) != GRADER_LT_STR ||
            grader_field(L, a, "answer", &answer) != GRADER_LT_STR) {
            grader_tab_close(L, a);
            continue;
        }
        /* what is allocated belongs to the job before anything can raise */
        struct grader_attack_out *o = &j->attacks[j->n_attacks++];
        o->name = core_xstrndup(name.str, name.len);
        o->answer = core_xstrndup(answer.str, answer.len);
        grader_field(L, a, "report", &report); /* Lua's truth: neither nil nor false */
        o->report = report.type != GRADER_LT_NIL && !(report.type == GRADER_LT_BOOL && !report.b);
        grader_tab_close(L, a); /* graders list */
        j->res = &o->res;
        grader_job_grade(L, j, o->answer);
        grader_settop(L, list);
        o->score = o->res.valid && o->res.max > 0 ? o->res.score / o->res.max : 0;
        o->matched = matched_text(&o->res);
        if (strlen(o->answer) > ANSWER_SHOWN)
            o->answer[ANSWER_SHOWN] = '\0';
        grader_result_fini(&o->res);
        j->res = NULL;
    }
    grader_settop(L, top);
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
