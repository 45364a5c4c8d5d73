/* lesson_formulas.c — the formula sheet of the current packs: each pack's
 * formulas { ... } (grader_pack_info.formulas), with the title of the
 * lesson and page that teach each one and the calculator that computes it.
 *
 * Read from each pack's stored revision through the session's cache, as
 * calculators are; a calculator an exam hides (lesson_calc_list) is not
 * offered.
 *
 * Uses db (the current revisions) and grader (the pack model). */
#include "lessons/lesson.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int lesson_formulas_list(struct db *db, struct lesson_session *s, struct lesson_formula **out,
                         size_t *n, struct core_err *err)
{
    *out = NULL;
    *n = 0;
    struct db_pack *packs = NULL;
    struct lesson_calc *calcs = NULL;
    size_t np = 0, nc = 0;
    int rc = db_pack_list(db, &packs, &np, err);
    if (rc == CORE_OK)
        rc = lesson_calc_list(db, s, &calcs, &nc, err);
    for (size_t i = 0; rc == CORE_OK && i < np; i++) {
        struct grader_pack *p;
        rc = lesson_session_pack(s, packs[i].rev_id, &p, err);
        if (rc != CORE_OK)
            break;
        const struct grader_pack_info *info = grader_pack_info(p);
        for (size_t k = 0; k < info->n_formulas; k++) {
            const struct grader_formula *f = &info->formulas[k];
            const struct grader_lesson *l = NULL;
            for (size_t j = 0; f->lesson && j < info->n_lessons; j++)
                if (strcmp(info->lessons[j].id, f->lesson) == 0)
                    l = &info->lessons[j];
            const struct lesson_calc *c = NULL;
            for (size_t j = 0; f->calc && j < nc; j++)
                if (strcmp(calcs[j].pack_id, info->id) == 0 &&
                    strcmp(calcs[j].calc->id, f->calc) == 0)
                    c = &calcs[j];
            *out = core_xrealloc(*out, (*n + 1) * sizeof **out);
            (*out)[(*n)++] = (struct lesson_formula){
                .pack_id = info->id,
                .f = f,
                .lesson_title = l ? l->title : f->lesson,
                .page = f->page < 0 ? 0 : f->page,
                .page_title = l && f->page >= 0 && (size_t)f->page < l->n_pages
                                  ? l->pages[f->page].title
                                  : NULL,
                .calc_title = c ? c->calc->title : NULL,
                .calc_id = c ? c->calc->id : NULL};
        }
    }
    for (size_t i = 0; i < np; i++)
        db_pack_fini(&packs[i]);
    free(packs);
    free(calcs);
    if (rc != CORE_OK) {
        free(*out);
        *out = NULL;
        *n = 0;
    }
    return rc;
}
