/*
 * grader_formula.c — the pack's formula sheet: formulas { ... } in pack.lua
 * (or in a lesson file, where an entry's lesson and page default to where
 * it stands), each entry a formula with its name, what its symbols mean,
 * the page that teaches it and the calculator that computes it.
 *
 * Entries are checked as they are declared (fields, types, ids) and their
 * references once every file has run (grader_formulas_resolve): the lesson,
 * the page (a number, or a page title) and the calculator must exist.
 *
 * Reads the tables through the runtime's readers (grader_decl_read.c) and
 * uses the schema helpers of grader_schema.c.
 */
#include "grader_lua_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct grader_fspec formula_fields[] = {{"id", GRADER_T_STR},
                                                     {"name", GRADER_T_STR},
                                                     {"formula", GRADER_T_STR},
                                                     {"symbols", GRADER_T_STR},
                                                     {"note", GRADER_T_STR},
                                                     {"lesson", GRADER_T_STR},
                                                     {"page", GRADER_T_NUM | GRADER_T_STR},
                                                     {"calculator", GRADER_T_STR},
                                                     {NULL, 0}};

struct formula_ud {
    struct grader_pack *p;
    const struct grader_lesson *lesson; /* the file's lesson, or NULL (pack.lua) */
    const char *path;
};

static void each_formula(struct grader_vctx *v, int t, size_t i, void *ud)
{
    struct formula_ud *u = ud;
    struct lua_State *L = v->L;
    struct grader_vctx s;
    grader_vctx_sub(&s, v, ": entry %zu", i);
    struct grader_dval id;
    if (grader_field(L, t, "id", &id) == GRADER_LT_STR)
        snprintf(s.label, sizeof s.label, "formula %s", id.str);
    grader_fields_check(&s, t, formula_fields, NULL, 0);
    static const char *const req[] = {"id", "name", "formula", NULL};
    grader_fields_require(&s, t, req);
    struct grader_pack_info *info = &u->p->info;
    info->formulas = grader_grow(info->formulas, info->n_formulas, sizeof *info->formulas);
    struct grader_formula *f = &info->formulas[info->n_formulas++];
    memset(f, 0, sizeof *f);
    f->id = grader_str_field(L, t, "id");
    grader_id_check(&s, "id", f->id);
    f->name = grader_str_field(L, t, "name");
    f->formula = grader_str_field(L, t, "formula");
    f->symbols = grader_str_field(L, t, "symbols");
    f->note = grader_str_field(L, t, "note");
    f->lesson = grader_str_field(L, t, "lesson");
    f->calc = grader_str_field(L, t, "calculator");
    f->file = core_xstrdup(u->path);
    f->line = v->line;
    f->page = -1;
    double pg;
    if (grader_num_field(L, t, "page", &pg)) {
        if (!(pg >= 1 && pg == floor(pg) && pg <= 100000))
            grader_vproblem(&s, "page must be a page number from 1, or a page's title");
        else
            f->page = (int)pg - 1;
    }
    f->page_title = grader_str_field(L, t, "page");
    if (u->lesson) { /* in a lesson file: where it stands, unless it says */
        if (!f->lesson)
            f->lesson = core_xstrdup(u->lesson->id);
        if (f->page < 0 && !f->page_title && u->lesson->n_pages > 0 &&
            strcmp(f->lesson, u->lesson->id) == 0)
            f->page = (int)u->lesson->n_pages - 1;
    }
    if (!f->id)
        f->id = core_xstrdup("");
    if (!f->name)
        f->name = core_xstrdup(f->id);
    if (!f->formula)
        f->formula = core_xstrdup("");
    for (size_t k = 0; k + 1 < info->n_formulas && f->id[0]; k++)
        if (strcmp(info->formulas[k].id, f->id) == 0) {
            grader_vproblem(&s, "duplicate formula id (first used at %s:%d)",
                            info->formulas[k].file, info->formulas[k].line);
            break;
        }
    v->bad |= s.bad;
}

void grader_formulas_check(struct grader_vctx *v, int t, struct grader_pack *p,
                           const struct grader_lesson *lesson, const char *path)
{
    struct lua_State *L = v->L;
    if (!grader_is_list_of(L, t, GRADER_LT_TAB) || grader_len(L, t) == 0) {
        grader_vproblem(v, "formulas expects a list of entries: formulas { { id = ..., name = "
                           "..., formula = ... }, ... }");
        return;
    }
    /* Only the list (formulas { ... } has no fields of its own): a named
     * field fails the check above. */
    struct formula_ud u = {p, lesson, path};
    size_t n = grader_len(L, t);
    for (size_t i = 1; i <= n; i++) {
        int entry = grader_tab_open_at(L, t, (long long)i);
        each_formula(v, entry, i, &u);
        grader_tab_close(L, entry);
    }
}

static bool same_title(const char *a, const char *b)
{
    for (; *a && *b; a++, b++) {
        unsigned char x = (unsigned char)*a, y = (unsigned char)*b;
        x = x >= 'A' && x <= 'Z' ? (unsigned char)(x + 32) : x;
        y = y >= 'A' && y <= 'Z' ? (unsigned char)(y + 32) : y;
        if (x != y)
            return false;
    }
    return !*a && !*b;
}

/* Where resolving's problems go: the pack evaluation's list and code
 * (grader_eval.c calls this file, so this file reports without calling
 * back into it). */
struct formula_sink {
    struct core_strlist *problems;
    int *first_code;
};

static void formula_problem(struct formula_sink *e, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void formula_problem(struct formula_sink *e, int code, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    core_strlist_push(e->problems, buf);
    if (!*e->first_code)
        *e->first_code = code;
}

void grader_formulas_resolve(struct grader_pack *p, struct core_strlist *problems, int *first_code)
{
    struct formula_sink sink = {problems, first_code}, *e = &sink;
    struct grader_pack_info *info = &p->info;
    for (size_t i = 0; i < info->n_formulas; i++) {
        struct grader_formula *f = &info->formulas[i];
        const struct grader_lesson *l = NULL;
        for (size_t k = 0; f->lesson && k < info->n_lessons; k++)
            if (strcmp(info->lessons[k].id, f->lesson) == 0)
                l = &info->lessons[k];
        if (!f->lesson) {
            formula_problem(e, CORE_ERR_INVALID,
                            "%s:%d: formula %s: say where it is taught: lesson = \"...\", "
                            "page = ...",
                            f->file, f->line, f->id);
            continue;
        }
        if (!l) {
            const char **names = core_xcalloc(info->n_lessons + 1, sizeof *names);
            for (size_t k = 0; k < info->n_lessons; k++)
                names[k] = info->lessons[k].id;
            const char *best = grader_name_closest(f->lesson, names, info->n_lessons);
            formula_problem(e, CORE_ERR_INVALID, "%s:%d: formula %s: no lesson '%s'%s%s%s", f->file,
                            f->line, f->id, f->lesson, best ? " (did you mean '" : "",
                            best ? best : "", best ? "'?)" : "");
            free(names);
            continue;
        }
        if (f->page_title) {
            f->page = -1;
            for (size_t k = 0; k < l->n_pages && f->page < 0; k++)
                if (l->pages[k].title && same_title(l->pages[k].title, f->page_title))
                    f->page = (int)k;
            if (f->page < 0)
                formula_problem(e, CORE_ERR_INVALID,
                                "%s:%d: formula %s: lesson %s has no page titled '%s'", f->file,
                                f->line, f->id, l->id, f->page_title);
        } else if (f->page >= (int)l->n_pages) {
            formula_problem(e, CORE_ERR_INVALID,
                            "%s:%d: formula %s: lesson %s has %zu page%s, not %d", f->file, f->line,
                            f->id, l->id, l->n_pages, l->n_pages == 1 ? "" : "s", f->page + 1);
            f->page = -1;
        } else if (f->page < 0) {
            f->page = 0; /* the lesson itself */
        }
        if (f->calc && !grader_pack_calc(p, f->calc))
            formula_problem(e, CORE_ERR_INVALID,
                            "%s:%d: formula %s: no calculator '%s' in this pack", f->file, f->line,
                            f->id, f->calc);
    }
}
