/*
 * tui_screen_search.c — search of the course (`/` on home, then Tab): the
 * lesson pages, question titles, prompts and topics, and calculators that
 * hold the text, each with where it was found and the line around it,
 * updated as the student types. Enter opens a hit: a page in its lesson,
 * a question, a calculator.
 *
 * The course's text is gathered once when the screen opens (lessons'
 * lesson_search_index_new) and searched per key.
 */
#include "tui/tui_screen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { A_OPEN = TUI_STUDY_A_OWN };

/* Letters are the search text: no j/k/q, Esc goes back. */
static const struct tui_binding keys[] = {
    {TUI_K_ENTER, 0, A_OPEN, "Enter", "open", "open the selected page, question or calculator"},
    {TUI_K_DOWN, 0, TUI_STUDY_A_DOWN, "Down", "move", "next place"},
    {TUI_K_UP, 0, TUI_STUDY_A_UP, "Up", NULL, "previous place"},
    {TUI_K_PGDN, 0, TUI_STUDY_A_PGDN, "PgDn", NULL, "a page down"},
    {TUI_K_PGUP, 0, TUI_STUDY_A_PGUP, "PgUp", NULL, "a page up"},
    {TUI_K_ESC, 0, TUI_STUDY_A_BACK, "Esc", "back", "back (letters are the search text)"},
};

struct search {
    struct lesson_search_index *x;
    struct tui_input q;
    struct tui_study_list l;
};

void tui_search_items(const struct lesson_hit *h, size_t n, enum tui_charset cs,
                      struct tui_study_item **out, size_t *nout)
{
    (void)cs;
    struct tui_study_item *it = core_xcalloc(n ? n : 1, sizeof *it);
    for (size_t i = 0; i < n; i++) {
        struct tui_study_item *o = &it[i];
        o->mark = core_xstrdup(h[i].kind == LESSON_HIT_PAGE       ? "#"
                               : h[i].kind == LESSON_HIT_QUESTION ? "?"
                                                                  : "=");
        o->mark_color = TUI_C_ACCENT;
        o->title = core_xstrdup(h[i].title);
        o->note = core_xstrdup(lesson_hit_kind_name(h[i].kind));
        o->lines[0] = core_xstrdup(h[i].where);
        o->lines[1] = core_xstrdup(h[i].snippet);
        o->target = h[i].kind == LESSON_HIT_PAGE       ? TUI_TARGET_LESSON
                    : h[i].kind == LESSON_HIT_QUESTION ? TUI_TARGET_QUESTION
                                                       : TUI_TARGET_CALC;
        o->pack_id = core_xstrdup(h[i].pack_id);
        o->lesson_id = core_xstrdup(h[i].lesson_id);
        o->id = h[i].id ? core_xstrdup(h[i].id) : NULL;
        o->page = h[i].page;
        o->variant = 1;
    }
    *out = it;
    *nout = n;
}

static void run(struct tui_app *a, struct search *s)
{
    const char *text = s->q.text.data ? s->q.text.data : "";
    struct lesson_hit *h = NULL;
    size_t n = 0;
    if (s->x)
        lesson_search_run(s->x, text, &h, &n);
    struct tui_study_item *it;
    size_t ni;
    tui_search_items(h, n, a->cs, &it, &ni);
    lesson_hits_free(h, n);
    s->l.sel = s->l.top = 0;
    tui_study_list_set(&s->l, it, ni);
    free(s->l.head);
    s->l.head = text[0]
                    ? core_xasprintf("%zu place%s \"%s\"", n, n == 1 ? " holds" : "s hold", text)
                    : core_xstrdup("Type what to look for");
    free(s->l.empty);
    s->l.empty =
        core_xstrdup(text[0] ? "Nothing in the lessons, questions or calculators holds that."
                             : "Pages, question titles and prompts, and calculators are "
                               "searched as you type.");
}

static void *search_enter(struct tui_app *a, const void *arg)
{
    const struct tui_search_arg *sa = arg;
    struct search *s = core_xcalloc(1, sizeof *s);
    tui_input_init(&s->q);
    struct core_err e = {0};
    if (lesson_search_index_new(a->db, a->sess, &s->x, &e) != CORE_OK)
        tui_app_msg(a, true, "%s", e.msg);
    if (sa && sa->text)
        tui_input_set(&s->q, sa->text);
    run(a, s);
    return s;
}

static void search_leave(struct tui_app *a, void *st)
{
    (void)a;
    struct search *s = st;
    lesson_search_index_free(s->x);
    tui_input_fini(&s->q);
    tui_study_list_fini(&s->l);
    free(s);
}

static bool search_key(struct tui_app *a, void *st, int key)
{
    struct search *s = st;
    if (tui_keymap_action(TUI_KEYMAP(keys), key) || key == TUI_K_CTRL_C)
        return false;
    if (tui_input_key(&s->q, key))
        run(a, s);
    return true; /* letters are the search text */
}

static void search_action(struct tui_app *a, void *st, int act)
{
    struct search *s = st;
    if (act != A_OPEN)
        tui_study_list_action(a, &s->l, act);
    else if (!tui_study_open(a, tui_study_list_selected(&s->l), false))
        tui_app_msg(a, false, "nothing to open: type what to look for");
}

static struct tui_keymap search_keys(const void *st)
{
    (void)st;
    return TUI_KEYMAP(keys);
}

static const char *search_title(const void *st)
{
    (void)st;
    return "search";
}

static void search_draw(struct tui_app *a, void *st, struct tui_canvas *c, struct tui_rect r,
                        struct tui_cursor *cur)
{
    (void)a;
    struct search *s = st;
    tui_canvas_put(c, r.y, r.x + 1, "/", TUI_ST(TUI_A_BOLD, TUI_C_ACCENT), -1);
    int col = tui_input_draw(c, r.y, r.x + 3, r.w - 4, &s->q, TUI_ST(TUI_A_UNDER, 0));
    cur->on = true;
    cur->y = r.y;
    cur->x = r.x + 3 + col;
    struct tui_rect lr = {r.y + 2, r.x, r.h - 2, r.w};
    tui_view_study_list(&s->l, c, lr);
}

const struct tui_screen tui_screen_search = {
    .name = "search",
    .enter = search_enter,
    .leave = search_leave,
    .on_key = search_key,
    .on_action = search_action,
    .keymap = search_keys,
    .title = search_title,
    .draw = search_draw,
};
