/*
 * lesson_regrade.c — re-grading a pack's stored attempts with its current
 * revision, safely: against the numbers each student was shown, listing
 * exactly what changes and why, writing only that, and going on past a
 * grader that fails on one answer.
 *
 * The numbers: each attempt carries the params its grade was computed from
 * (attempts.params_json). An attempt stored before that was kept is given
 * the params its own revision draws for that student and variant, which
 * is what the student saw. When the current revision would draw other
 * numbers (a changed params list), the answer is graded against the shown
 * ones, unless the instructor asks for the new ones; the report says so.
 */
#include "lessons/lesson_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void lesson_regrade_report_fini(struct lesson_regrade_report *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n_items; i++) {
        free(r->items[i].user);
        free(r->items[i].question_id);
        free(r->items[i].reason);
    }
    free(r->items);
    free(r->pack_id);
    free(r->version);
    memset(r, 0, sizeof *r);
}

/* Re-grading state: the report, and the rows to write, with the strings
 * they point at. */
struct regrade {
    struct lesson_session *s;
    const struct lesson_regrade_opts *opts;
    int64_t rev_id;
    struct grader_pack *pack;
    struct lesson_regrade_report *rep;
    struct db_attempt_in *rows;
    char **strings;
    size_t n, cap, n_str, cap_str, cap_items;
};

static char *keep(struct regrade *g, const char *str)
{
    if (!str)
        return NULL;
    if (g->n_str == g->cap_str) {
        g->cap_str = g->cap_str ? 2 * g->cap_str : 1024;
        g->strings = core_xrealloc(g->strings, g->cap_str * sizeof *g->strings);
    }
    return g->strings[g->n_str++] = core_xstrdup(str);
}

static struct lesson_regrade_item *add_item(struct regrade *g, const struct db_attempt *a)
{
    struct lesson_regrade_report *r = g->rep;
    if (r->n_items == g->cap_items) {
        g->cap_items = g->cap_items ? 2 * g->cap_items : 64;
        r->items = core_xrealloc(r->items, g->cap_items * sizeof *r->items);
    }
    struct lesson_regrade_item *it = &r->items[r->n_items++];
    memset(it, 0, sizeof *it);
    it->attempt_id = a->id;
    it->user = core_xstrdup(a->user);
    it->question_id = core_xstrdup(a->question_id);
    it->variant = a->variant;
    it->old_valid = a->regraded ? a->rg_valid : a->valid;
    it->old_score = a->regraded ? a->rg_score : a->score;
    it->max = a->regraded ? a->rg_max : a->max;
    return it;
}

/* The params pack `gp` draws for attempt a's student and variant. Caller
 * frees; NULL when it cannot tell. */
static char *params_of(struct regrade *g, struct grader_pack *gp, const struct db_attempt *a,
                       const char *lab)
{
    struct grader_ctx ctx;
    struct lesson_link link;
    struct grader_view v;
    char *out = NULL;
    if (lesson_ctx_make(g->s, a->user_id, a->user, a->variant, lab, a->created_at, &link, &ctx,
                        NULL) == CORE_OK &&
        grader_question_view(gp, a->question_id, &ctx, &v, NULL) == CORE_OK) {
        out = v.params_json;
        v.params_json = NULL;
        grader_view_fini(&v);
    }
    lesson_link_fini(&link);
    return out;
}

/* The params the student was shown for attempt a: as stored, or as its own
 * revision draws them. Caller frees; NULL when neither can tell. */
static char *shown_params(struct regrade *g, const struct db_attempt *a, const char *lab)
{
    if (a->params_json)
        return core_xstrdup(a->params_json);
    struct grader_pack *old;
    if (lesson_session_pack(g->s, a->rev_id, &old, NULL) != CORE_OK)
        return NULL;
    return params_of(g, old, a, lab);
}

/* The params the current revision draws for the attempt's student and
 * variant. Caller frees; NULL when it cannot tell. */
static char *drawn_params(struct regrade *g, const struct db_attempt *a, const char *lab)
{
    return params_of(g, g->pack, a, lab);
}

static bool same(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static int regrade_one(const struct db_attempt *a, void *vctx)
{
    struct regrade *g = vctx;
    struct lesson_regrade_report *rep = g->rep;
    const struct grader_question *gq = grader_pack_question(g->pack, a->question_id);
    if (!gq || gq->sealed || a->sealed) {
        /* the question left the pack: its old grade stands; a sealed answer
         * has no grade here (the instructor grades it) */
        rep->n_skipped++;
        return 0;
    }
    rep->n_checked++;
    char *shown = NULL, *now = NULL;
    bool other_numbers = false;
    /* Within one revision params are a function of the seed (and the lab
     * run, which is the same one): only another revision can draw other
     * numbers, so only then is it worth drawing them to compare. */
    if (gq->has_params && (a->params_json || a->rev_id != g->rev_id)) {
        shown = shown_params(g, a, gq->lab);
        if (a->rev_id != g->rev_id) {
            now = drawn_params(g, a, gq->lab);
            other_numbers = shown && now && !same(shown, now);
        }
    }
    struct grader_ctx ctx;
    struct lesson_link link;
    struct grader_result r;
    struct core_err e = {0};
    int rc = lesson_ctx_make(g->s, a->user_id, a->user, a->variant, gq->lab, a->created_at, &link,
                             &ctx, &e);
    if (rc == CORE_OK) {
        ctx.params_json = g->opts->new_params ? NULL : shown;
        rc = grader_question_grade(g->pack, a->question_id, &ctx, a->answer, &r, &e);
    }
    lesson_link_fini(&link);
    if (rc != CORE_OK) {
        struct lesson_regrade_item *it = add_item(g, a);
        it->failed = true;
        it->new_valid = it->old_valid;
        it->new_score = it->old_score;
        it->reason = core_xstrdup(e.msg);
        rep->n_failed++;
        goto out;
    }
    if (other_numbers && !g->opts->new_params)
        rep->n_kept_params++;
    bool old_valid = a->regraded ? a->rg_valid : a->valid;
    double old_score = a->regraded ? a->rg_score : a->score;
    if (r.valid == old_valid && fabs(r.score - old_score) <= 1e-9 * (1 + fabs(old_score))) {
        grader_result_fini(&r);
        goto out;
    }
    struct lesson_regrade_item *it = add_item(g, a);
    it->new_valid = r.valid;
    it->new_score = r.score;
    it->max = r.max;
    struct core_buf why;
    core_buf_init(&why);
    if (a->pack_version && strcmp(a->pack_version, rep->version) != 0)
        core_buf_printf(&why, "pack version %s -> %s", a->pack_version, rep->version);
    else if (a->rev_id != g->rev_id)
        core_buf_printf(&why, "pack revision %lld -> %lld (same version %s)", (long long)a->rev_id,
                        (long long)g->rev_id, rep->version);
    if (!same(a->grader_rev, grader_revision()))
        core_buf_printf(&why, "%sgrader %s -> %s", why.len ? "; " : "",
                        a->grader_rev ? a->grader_rev : "(before revisions were kept)",
                        grader_revision());
    if (other_numbers)
        core_buf_printf(&why, "%s%s", why.len ? "; " : "",
                        g->opts->new_params
                            ? "graded against the numbers the new version draws, not the ones "
                              "shown"
                            : "graded against the numbers the student was shown (the new version "
                              "draws others)");
    if (!why.len)
        core_buf_puts(&why, "same pack and grader: the grade depends on something else (a lab "
                            "run, a grader that is not deterministic)");
    it->reason = core_buf_steal(&why);
    rep->n_changed++;
    if (g->n == g->cap) {
        g->cap = g->cap ? 2 * g->cap : 256;
        g->rows = core_xrealloc(g->rows, g->cap * sizeof *g->rows);
    }
    g->rows[g->n++] = (struct db_attempt_in){.user_id = a->user_id,
                                             .pack_id = keep(g, a->pack_id),
                                             .question_id = keep(g, a->question_id),
                                             .variant = a->variant,
                                             .answer = keep(g, a->answer),
                                             .parsed = keep(g, r.parsed),
                                             .value = r.value,
                                             .has_value = r.has_value,
                                             .valid = r.valid,
                                             .score = r.score,
                                             .max = r.max,
                                             .correct = r.correct,
                                             .feedback = keep(g, r.feedback),
                                             .rev_id = g->rev_id,
                                             .regrade_of = a->id,
                                             .certainty = a->certainty,
                                             .params_json = keep(g, r.params_json),
                                             .grader_rev = grader_revision(),
                                             .regrade_reason = keep(g, it->reason)};
    grader_result_fini(&r);
out:
    free(shown);
    free(now);
    return 0;
}

int lesson_regrade_run(struct lesson_session *s, const char *pack_id,
                       const struct lesson_regrade_opts *opts, struct lesson_regrade_report *out,
                       struct core_err *err)
{
    static const struct lesson_regrade_opts none = {0};
    memset(out, 0, sizeof *out);
    struct db_pack pack = {0};
    struct regrade g = {.s = s, .opts = opts ? opts : &none, .rep = out};
    int rc = db_pack_get(s->db, pack_id, &pack, err);
    if (rc != CORE_OK)
        goto out;
    out->pack_id = core_xstrdup(pack.id);
    out->version = core_xstrdup(pack.version);
    g.rev_id = pack.rev_id;
    rc = lesson_session_pack(s, pack.rev_id, &g.pack, err);
    if (rc != CORE_OK)
        goto out;
    rc = db_attempt_each(s->db, pack_id, regrade_one, &g, err);
    if (rc != CORE_OK)
        goto out;
    if (!g.opts->dry_run && g.n > 0) {
        rc = db_attempt_insert_batch(s->db, g.rows, g.n, err);
        out->written = rc == CORE_OK;
    }
out:
    for (size_t i = 0; i < g.n_str; i++)
        free(g.strings[i]);
    free(g.strings);
    free(g.rows);
    db_pack_fini(&pack);
    if (rc != CORE_OK)
        lesson_regrade_report_fini(out);
    return rc;
}
