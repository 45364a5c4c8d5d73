/*
 * tui_study_list.c — the list the study screens share (mistakes, search
 * results, the formula sheet): entries of a bold title line with a mark and
 * a note at the right, then up to three detail lines, one selected; the
 * list scrolls by entry, keeps the selection in view and says how many
 * entries lie above and below; every text cut at the edge ends with "…".
 * And opening an entry's target (a question at a variant, a lesson at a
 * page, a calculator), which all three do the same way.
 *
 * And what the three screens do alike: the movement keys and their
 * actions, and for formulas and mistakes, whose state is the list, the
 * draw and leave functions of their screen tables.
 *
 * The model and its view are pure (tests render them); tui_study_open and
 * tui_study_list_action are the functions that push or pop a screen.
 */
#include "tui/tui_screen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tui_study_items_free(struct tui_study_item *it, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(it[i].mark);
        free(it[i].title);
        free(it[i].note);
        for (size_t k = 0; k < TUI_STUDY_LINES; k++)
            free(it[i].lines[k]);
        free(it[i].pack_id);
        free(it[i].lesson_id);
        free(it[i].id);
        free(it[i].calc_id);
    }
    free(it);
}

void tui_study_list_fini(struct tui_study_list *l)
{
    tui_study_items_free(l->items, l->n);
    free(l->head);
    free(l->empty);
    *l = (struct tui_study_list){0};
}

void tui_study_list_set(struct tui_study_list *l, struct tui_study_item *items, size_t n)
{
    tui_study_items_free(l->items, l->n);
    l->items = items;
    l->n = n;
    if (l->sel >= n)
        l->sel = n ? n - 1 : 0;
    if (l->top > l->sel)
        l->top = l->sel;
}

void tui_study_list_move(struct tui_study_list *l, long d)
{
    if (l->n == 0)
        return;
    long s = (long)l->sel + d;
    l->sel = s < 0 ? 0 : s >= (long)l->n ? l->n - 1 : (size_t)s;
}

const struct tui_study_item *tui_study_list_selected(const struct tui_study_list *l)
{
    return l->n ? &l->items[l->sel] : NULL;
}

bool tui_study_list_action(struct tui_app *a, struct tui_study_list *l, int act)
{
    long page = l->shown > 1 ? (long)l->shown : 1;
    switch (act) {
    case TUI_STUDY_A_UP:
        tui_study_list_move(l, -1);
        return true;
    case TUI_STUDY_A_DOWN:
        tui_study_list_move(l, 1);
        return true;
    case TUI_STUDY_A_PGUP:
        tui_study_list_move(l, -page);
        return true;
    case TUI_STUDY_A_PGDN:
        tui_study_list_move(l, page);
        return true;
    case TUI_STUDY_A_BACK:
        tui_app_pop(a);
        return true;
    }
    return false;
}

void tui_study_screen_draw(struct tui_app *a, void *st, struct tui_canvas *c, struct tui_rect r,
                           struct tui_cursor *cur)
{
    (void)a;
    (void)cur;
    tui_view_study_list((struct tui_study_list *)st, c, r); /* the state's first member */
}

void tui_study_screen_leave(struct tui_app *a, void *st)
{
    (void)a;
    tui_study_list_fini((struct tui_study_list *)st);
    free(st);
}

static int item_rows(const struct tui_study_item *it)
{
    int r = 1;
    for (size_t k = 0; k < TUI_STUDY_LINES; k++)
        r += it->lines[k] != NULL;
    return r;
}

void tui_view_study_list(struct tui_study_list *l, struct tui_canvas *c, struct tui_rect r)
{
    int y = r.y;
    if (l->head) {
        tui_canvas_put_cut(c, y, r.x + 1, l->head, TUI_ST(TUI_A_BOLD, 0), r.w - 2);
        y += 2;
    }
    int bottom = r.y + r.h; /* the last row holds the "more" mark */
    l->shown = 0;
    if (l->n == 0) {
        tui_canvas_put_cut(c, y, r.x + 2, l->empty ? l->empty : "nothing here",
                           TUI_ST(0, TUI_C_MUTED), r.w - 4);
        return;
    }
    /* Rows for entries: all but a row for "N more above/below". */
    int avail = bottom - y - 1;
    if (avail < 2)
        avail = 2;
    if (l->sel < l->top)
        l->top = l->sel;
    for (;;) { /* scroll down until the selected entry fits */
        int used = 0;
        for (size_t i = l->top; i <= l->sel; i++)
            used += item_rows(&l->items[i]) + (i > l->top);
        if (used <= avail || l->top == l->sel)
            break;
        l->top++;
    }
    if (l->top > 0) {
        char more[64];
        snprintf(more, sizeof more, "%s %zu more above", tui_glyph(c->cs, "↑", "^"), l->top);
        tui_canvas_put(c, y - (l->head ? 1 : 0), r.x + r.w - 2 - tui_text_width(more), more,
                       TUI_ST(0, TUI_C_MUTED), -1);
    }
    size_t i = l->top;
    int start = y;
    for (; i < l->n; i++) {
        const struct tui_study_item *it = &l->items[i];
        int need = item_rows(it);
        if (y + need > start + avail)
            break;
        bool sel = i == l->sel;
        uint8_t ra = tui_view_list_row(c, r, y, sel, false);
        int x = r.x + 3;
        if (it->mark) {
            tui_canvas_put(c, y, x, it->mark, TUI_ST(ra | TUI_A_BOLD, it->mark_color), 2);
            x += 2;
        }
        int note_w = it->note ? tui_text_width(it->note) : 0;
        if (note_w > r.w / 3)
            note_w = r.w / 3;
        int title_w = r.x + r.w - 1 - x - (note_w ? note_w + 2 : 0);
        tui_canvas_put_cut(c, y, x, it->title ? it->title : "", TUI_ST(ra | TUI_A_BOLD, 0),
                           title_w);
        if (it->note)
            tui_canvas_put_cut(c, y, r.x + r.w - 1 - note_w, it->note, TUI_ST(ra, TUI_C_MUTED),
                               note_w);
        y++;
        for (size_t k = 0; k < TUI_STUDY_LINES; k++) {
            if (!it->lines[k])
                continue;
            tui_canvas_put_cut(c, y, r.x + 5, it->lines[k],
                               TUI_ST(0, k == 0 && it->line0_plain ? 0 : TUI_C_MUTED), r.w - 6);
            y++;
        }
        y++; /* a blank row between entries */
    }
    l->shown = i - l->top;
    if (i < l->n) {
        char more[64];
        snprintf(more, sizeof more, "%s %zu more below (j/k, PgDn)", tui_glyph(c->cs, "↓", "v"),
                 l->n - i);
        tui_canvas_put(c, bottom - 1, r.x + 2, more, TUI_ST(0, TUI_C_MUTED), r.w - 4);
    }
}

bool tui_study_open(struct tui_app *a, const struct tui_study_item *it, bool calc)
{
    if (!it)
        return false;
    if (calc || it->target == TUI_TARGET_CALC) {
        const char *id = calc ? it->calc_id : it->id;
        if (!id) {
            tui_app_msg(a, false, "no calculator computes this one");
            return false;
        }
        char *cid = core_xasprintf("%s:%s", it->pack_id, id);
        struct tui_calc_arg arg = {cid};
        int rc = tui_app_push(a, "calc", &arg);
        free(cid);
        return rc == 0;
    }
    if (it->target == TUI_TARGET_QUESTION) {
        char *qid = core_xasprintf("%s:%s", it->pack_id, it->id);
        struct tui_question_arg arg = {qid, it->variant > 0 ? it->variant : 1};
        int rc = tui_app_push(a, "question", &arg);
        free(qid);
        return rc == 0;
    }
    if (it->target == TUI_TARGET_LESSON) {
        struct tui_lesson_arg arg = {it->pack_id, it->lesson_id, NULL, it->page + 1};
        return tui_app_push(a, "lesson", &arg) == 0;
    }
    return false;
}
