/* lesson_calc.c — the calculators of the current packs: listing them and
 * running one with named inputs.
 *
 * Calculators are not rows in the store: they are read from each pack's
 * stored revision (its current one, db_pack_list), loaded through the
 * session's pack cache, so a calculator always runs the code that was
 * imported, like a grading. Inputs given by name are checked here against
 * the declared names; ranges are checked by the grader and reported as the
 * student's mistake (CORE_ERR_USAGE), not the pack's.
 *
 * Uses db (the current revisions) and grader (the pack model and
 * grader_calc_run). */
#include "lessons/lesson.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether exam lesson l's calculators are hidden from this user: an exam
 * hides them until it is submitted (or its time is up), since they would
 * compute the student's own answers. */
static bool exam_hides(struct db *db, struct lesson_session *s, const char *pack_id,
                       const struct grader_lesson *l)
{
    if (!l->exam || l->n_calcs == 0)
        return false;
    struct db_exam x;
    struct core_err e = {0};
    int rc = db_exam_get(db, lesson_session_user_id(s), pack_id, l->id, &x, &e);
    bool over = rc == CORE_OK && x.over;
    if (rc == CORE_OK)
        db_exam_fini(&x);
    return !over;
}

static void add_calcs(struct db *db, struct lesson_session *s, const struct grader_pack *p,
                      int64_t rev_id, bool hidden_too, struct lesson_calc **out, size_t *n)
{
    const struct grader_pack_info *info = grader_pack_info(p);
    for (size_t li = 0; li < info->n_lessons; li++) {
        const struct grader_lesson *l = &info->lessons[li];
        if (!hidden_too && exam_hides(db, s, info->id, l))
            continue;
        for (size_t ci = 0; ci < l->n_calcs; ci++) {
            *out = core_xrealloc(*out, (*n + 1) * sizeof **out);
            (*out)[(*n)++] = (struct lesson_calc){.pack_id = info->id,
                                                  .lesson_id = l->id,
                                                  .lesson_title = l->title,
                                                  .calc = &l->calcs[ci],
                                                  .rev_id = rev_id};
        }
    }
}

static int calc_list(struct db *db, struct lesson_session *s, bool hidden_too,
                     struct lesson_calc **out, size_t *n, struct core_err *err)
{
    *out = NULL;
    *n = 0;
    struct db_pack *packs = NULL;
    size_t n_packs = 0;
    int rc = db_pack_list(db, &packs, &n_packs, err);
    if (rc != CORE_OK)
        goto out;
    for (size_t i = 0; i < n_packs; i++) {
        struct grader_pack *p;
        rc = lesson_session_pack(s, packs[i].rev_id, &p, err);
        if (rc != CORE_OK)
            goto out;
        add_calcs(db, s, p, packs[i].rev_id, hidden_too, out, n);
    }
out:
    for (size_t i = 0; i < n_packs; i++)
        db_pack_fini(&packs[i]);
    free(packs);
    if (rc != CORE_OK) {
        free(*out);
        *out = NULL;
        *n = 0;
    }
    return rc;
}

int lesson_calc_list(struct db *db, struct lesson_session *s, struct lesson_calc **out, size_t *n,
                     struct core_err *err)
{
    return calc_list(db, s, false, out, n, err);
}

int lesson_calc_find(struct db *db, struct lesson_session *s, const char *calc_id,
                     struct lesson_calc *out, struct core_err *err)
{
    memset(out, 0, sizeof *out);
    if (!calc_id || !calc_id[0])
        return core_err_set(err, CORE_ERR_USAGE, "name a calculator (warpbench calc lists them)");
    const char *colon = strchr(calc_id, ':');
    const char *bare = colon ? colon + 1 : calc_id;
    size_t pack_len = colon ? (size_t)(colon - calc_id) : 0;
    struct lesson_calc *all;
    size_t n;
    int rc = calc_list(db, s, true, &all, &n, err);
    if (rc != CORE_OK)
        return rc;
    size_t found = 0;
    struct core_buf packs;
    core_buf_init(&packs);
    for (size_t i = 0; i < n; i++) {
        if (strcmp(all[i].calc->id, bare) != 0)
            continue;
        if (colon &&
            (strlen(all[i].pack_id) != pack_len || strncmp(all[i].pack_id, calc_id, pack_len) != 0))
            continue;
        if (found++ == 0)
            *out = all[i];
        core_buf_printf(&packs, "%s%s:%s", found > 1 ? ", " : "", all[i].pack_id, bare);
    }
    if (found == 0)
        rc = core_err_set(err, CORE_ERR_NOTFOUND, "no calculator '%s' (warpbench calc lists them)",
                          calc_id);
    else if (found > 1)
        rc =
            core_err_set(err, CORE_ERR_USAGE, "calculator '%s' is in several packs: name one of %s",
                         calc_id, packs.data);
    if (rc == CORE_OK) {
        struct grader_pack *p;
        const struct grader_lesson *l = NULL;
        if (lesson_session_pack(s, out->rev_id, &p, NULL) == CORE_OK) {
            const struct grader_pack_info *info = grader_pack_info(p);
            for (size_t li = 0; li < info->n_lessons; li++)
                if (strcmp(info->lessons[li].id, out->lesson_id) == 0)
                    l = &info->lessons[li];
        }
        if (l && exam_hides(db, s, out->pack_id, l))
            rc = core_err_set(err, CORE_ERR_CONFLICT,
                              "calculator '%s' belongs to the exam '%s': it would compute your "
                              "answers, so it is shown once you submit the exam",
                              calc_id, out->lesson_id);
    }
    if (rc != CORE_OK)
        memset(out, 0, sizeof *out);
    core_buf_fini(&packs);
    free(all);
    return rc;
}

void lesson_calc_result_fini(struct lesson_calc_result *r)
{
    if (!r)
        return;
    free(r->inputs);
    free(r->given);
    grader_calc_outputs_free(r->outputs, r->n_outputs);
    memset(r, 0, sizeof *r);
}

/* "f (serial fraction f), p (processors p)" for an unknown-name message. */
static void known_inputs(const struct grader_calc *c, struct core_buf *b)
{
    for (size_t i = 0; i < c->n_inputs; i++) {
        const struct grader_calc_input *in = &c->inputs[i];
        core_buf_printf(b, "%s%s", i ? ", " : "", in->name);
        if (strcmp(in->label, in->name) != 0)
            core_buf_printf(b, " (%s)", in->label);
    }
}

int lesson_calc_run(struct db *db, struct lesson_session *s, const char *calc_id,
                    const struct lesson_calc_set *set, size_t n_set, struct lesson_calc_result *out,
                    struct core_err *err)
{
    memset(out, 0, sizeof *out);
    int rc = lesson_calc_find(db, s, calc_id, &out->c, err);
    if (rc != CORE_OK)
        return rc;
    const struct grader_calc *c = out->c.calc;
    size_t n_in = c->n_inputs;
    out->inputs = core_xcalloc(n_in ? n_in : 1, sizeof *out->inputs);
    out->given = core_xcalloc(n_in ? n_in : 1, sizeof *out->given);
    for (size_t i = 0; i < n_in; i++)
        out->inputs[i] = c->inputs[i].def;
    for (size_t k = 0; k < n_set; k++) {
        size_t i = 0;
        while (i < n_in && strcmp(c->inputs[i].name, set[k].name ? set[k].name : "") != 0)
            i++;
        if (i == n_in) {
            struct core_buf b;
            core_buf_init(&b);
            known_inputs(c, &b);
            rc = core_err_set(err, CORE_ERR_USAGE,
                              "calculator %s has no input '%s'; its inputs are: %s", c->id,
                              set[k].name ? set[k].name : "", b.data ? b.data : "");
            core_buf_fini(&b);
            goto out;
        }
        if (out->given[i]) {
            rc = core_err_set(err, CORE_ERR_USAGE, "input '%s' is given twice", c->inputs[i].name);
            goto out;
        }
        out->given[i] = true;
        out->inputs[i] = set[k].value;
    }
    struct grader_pack *p;
    rc = lesson_session_pack(s, out->c.rev_id, &p, err);
    if (rc != CORE_OK)
        goto out;
    rc = grader_calc_run(p, c->id, out->inputs, &out->outputs, &out->n_outputs, err);
    if (rc == CORE_ERR_INVALID) /* an input out of range: the student's to fix */
        rc = err ? (err->code = CORE_ERR_USAGE) : CORE_ERR_USAGE;
out:
    if (rc != CORE_OK)
        lesson_calc_result_fini(out);
    return rc;
}
