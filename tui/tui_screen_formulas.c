/*
 * tui_screen_formulas.c — the formula sheet (`F`): every formula of the
 * current packs' formulas { ... }, with what its symbols mean, the page
 * that teaches it (Enter opens it) and the calculator that computes it
 * (`c` opens it).
 */
#include "tui/tui_screen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { A_OPEN = TUI_STUDY_A_OWN, A_CALC };

static const struct tui_binding keys[] = {
    TUI_STUDY_MOVE_KEYS("formula"),
    {TUI_K_ENTER, 0, A_OPEN, "Enter", "page", "open the page that teaches it"},
    {'c', 0, A_CALC, "c", "calculator", "open the calculator that computes it"},
    TUI_STUDY_BACK_KEY,
};

struct formulas {
    struct tui_study_list l; /* first: tui_study_screen_draw and _leave */
};

void tui_formula_items(const struct lesson_formula *fs, size_t n, enum tui_charset cs,
                       struct tui_study_item **out, size_t *nout)
{
    struct tui_study_item *it = core_xcalloc(n ? n : 1, sizeof *it);
    for (size_t i = 0; i < n; i++) {
        const struct lesson_formula *x = &fs[i];
        struct tui_study_item *o = &it[i];
        o->title = core_xstrdup(x->f->name);
        o->note = x->calc_id ? core_xstrdup("c: calculator") : NULL;
        /* The formula on one line (a long one is cut with "…"). */
        o->lines[0] = core_xstrdup(x->f->formula);
        for (char *p = o->lines[0]; *p; p++)
            if (*p == '\n' || *p == '\t')
                *p = ' ';
        o->line0_plain = true;
        if (x->f->symbols) {
            o->lines[1] = core_xstrdup(x->f->symbols);
            for (char *p = o->lines[1]; *p; p++)
                if (*p == '\n' || *p == '\t')
                    *p = ' ';
        }
        o->lines[2] = core_xasprintf("%s %s, page %d%s%s%s%s%s", tui_glyph(cs, "→", "->"),
                                     x->lesson_title, x->page + 1, x->page_title ? " \"" : "",
                                     x->page_title ? x->page_title : "", x->page_title ? "\"" : "",
                                     x->calc_title ? "; calculator: " : "",
                                     x->calc_title ? x->calc_title : "");
        o->target = TUI_TARGET_LESSON;
        o->pack_id = core_xstrdup(x->pack_id);
        o->lesson_id = core_xstrdup(x->f->lesson ? x->f->lesson : "");
        o->page = x->page;
        o->calc_id = x->calc_id ? core_xstrdup(x->calc_id) : NULL;
    }
    *out = it;
    *nout = n;
}

static void *formulas_enter(struct tui_app *a, const void *arg)
{
    (void)arg;
    struct core_err e = {0};
    struct lesson_formula *fs = NULL;
    size_t n = 0;
    if (lesson_formulas_list(a->db, a->sess, &fs, &n, &e) != CORE_OK) {
        tui_app_msg(a, true, "%s", e.msg);
        return NULL;
    }
    struct formulas *s = core_xcalloc(1, sizeof *s);
    struct tui_study_item *it;
    size_t ni;
    tui_formula_items(fs, n, a->cs, &it, &ni);
    free(fs);
    tui_study_list_set(&s->l, it, ni);
    s->l.head = core_xasprintf("Formula sheet: %zu formula%s. Enter opens the page that teaches "
                               "one, c its calculator",
                               n, n == 1 ? "" : "s");
    s->l.empty = core_xstrdup("No formula sheet: no pack declares formulas { ... }.");
    return s;
}

static void formulas_action(struct tui_app *a, void *st, int act)
{
    struct formulas *s = st;
    if (act == A_OPEN || act == A_CALC)
        tui_study_open(a, tui_study_list_selected(&s->l), act == A_CALC);
    else
        tui_study_list_action(a, &s->l, act);
}

static struct tui_keymap formulas_keys(const void *st)
{
    (void)st;
    return TUI_KEYMAP(keys);
}

static const char *formulas_title(const void *st)
{
    (void)st;
    return "formulas";
}

const struct tui_screen tui_screen_formulas = {
    .name = "formulas",
    .enter = formulas_enter,
    .leave = tui_study_screen_leave,
    .on_action = formulas_action,
    .keymap = formulas_keys,
    .title = formulas_title,
    .draw = tui_study_screen_draw,
};
