/*
 * tui_screen_home.c — the first screen: every pack and its lessons with a
 * progress bar each (questions answered, score), the lesson to continue
 * marked and selected, and `/` to filter lessons as you type.
 */
#include "labs/lab.h"
#include "tui/tui_screen.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- model ---------------------------------------------------------------- */

void tui_home_model_init(struct tui_home_model *m)
{
    *m = (struct tui_home_model){0};
    tui_input_init(&m->search);
}

static void items_free(struct tui_home_model *m)
{
    for (size_t i = 0; i < m->n; i++) {
        free(m->items[i].pack_id);
        free(m->items[i].lesson_id);
        free(m->items[i].title);
    }
    free(m->items);
    free(m->shown);
    m->items = NULL;
    m->shown = NULL;
    m->n = m->n_shown = 0;
}

static void hits_free(struct tui_home_model *m)
{
    for (size_t i = 0; i < m->n_hit_lessons; i++)
        free(m->hit_lessons[i]);
    free(m->hit_lessons);
    m->hit_lessons = NULL;
    m->n_hit_lessons = m->n_hits = 0;
}

void tui_home_model_fini(struct tui_home_model *m)
{
    items_free(m);
    hits_free(m);
    tui_input_fini(&m->search);
    free(m->cont_text);
    *m = (struct tui_home_model){0};
}

/* Case-insensitive (ASCII) substring test; "" matches everything. */
static bool contains(const char *hay, const char *needle)
{
    if (!needle[0])
        return true;
    if (!hay)
        return false;
    size_t n = strlen(needle);
    for (const char *h = hay; *h; h++) {
        size_t i = 0;
        while (i < n && h[i] && tolower((unsigned char)h[i]) == tolower((unsigned char)needle[i]))
            i++;
        if (i == n)
            return true;
    }
    return false;
}

static bool is_lesson_row(const struct tui_home_model *m, size_t k)
{
    return k < m->n_shown && !m->items[m->shown[k]].is_pack;
}

void tui_home_filter(struct tui_home_model *m)
{
    const char *q = m->search.text.data ? m->search.text.data : "";
    /* Keep the same lesson selected when it still shows. */
    const struct tui_home_item *was = tui_home_selected(m);
    size_t was_i = was ? (size_t)(was - m->items) : (size_t)-1;
    free(m->shown);
    m->shown = core_xcalloc(m->n ? m->n : 1, sizeof *m->shown);
    m->n_shown = 0;
    const struct tui_home_item *pack = NULL;
    bool pack_added = false, pack_match = false;
    size_t first_named = (size_t)-1;
    for (size_t i = 0; i < m->n; i++) {
        const struct tui_home_item *it = &m->items[i];
        if (it->is_pack) {
            pack = it;
            pack_added = false;
            pack_match = contains(it->title, q) || contains(it->pack_id, q);
            continue;
        }
        bool hit = false;
        for (size_t k = 0; q[0] && k < m->n_hit_lessons && !hit; k++) {
            size_t pl = strlen(it->pack_id);
            hit = strncmp(m->hit_lessons[k], it->pack_id, pl) == 0 &&
                  m->hit_lessons[k][pl] == ':' &&
                  strcmp(m->hit_lessons[k] + pl + 1, it->lesson_id) == 0;
        }
        bool named = contains(it->title, q) || contains(it->lesson_id, q);
        if (!pack_match && !hit && !named)
            continue;
        if (pack && !pack_added) {
            m->shown[m->n_shown++] = (size_t)(pack - m->items);
            pack_added = true;
        }
        if (q[0] && named && first_named == (size_t)-1)
            first_named = m->n_shown;
        m->shown[m->n_shown++] = i;
    }
    /* The lesson the text names comes first (its title, not a page that
     * mentions it); otherwise the same lesson stays selected if it shows. */
    m->sel = 0;
    for (size_t k = 0; k < m->n_shown; k++)
        if (m->shown[k] == was_i)
            m->sel = k;
    if (first_named != (size_t)-1)
        m->sel = first_named;
    if (!is_lesson_row(m, m->sel))
        tui_home_move(m, 1);
    m->top = 0;
}

void tui_home_move(struct tui_home_model *m, int delta)
{
    if (m->n_shown == 0)
        return;
    int step = delta < 0 ? -1 : 1;
    int left = delta < 0 ? -delta : delta;
    size_t k = m->sel;
    while (left > 0) {
        size_t j = k;
        bool found = false;
        while ((step < 0 && j > 0) || (step > 0 && j + 1 < m->n_shown)) {
            j = (size_t)((long)j + step);
            if (is_lesson_row(m, j)) {
                found = true;
                break;
            }
        }
        if (!found)
            break;
        k = j;
        left--;
    }
    if (!is_lesson_row(m, k)) {
        /* Nothing in that direction: the first lesson row at all. */
        for (size_t j = 0; j < m->n_shown; j++)
            if (is_lesson_row(m, j)) {
                k = j;
                break;
            }
    }
    m->sel = k;
}

const struct tui_home_item *tui_home_selected(const struct tui_home_model *m)
{
    if (!m->shown || !is_lesson_row(m, m->sel))
        return NULL;
    return &m->items[m->shown[m->sel]];
}

/* ---- view ----------------------------------------------------------------- */

/* The right-hand columns: bar, answered, score; they end at r.x + r.w - 1. */
static void draw_stats(struct tui_canvas *c, int y, struct tui_rect r,
                       const struct tui_home_item *it, struct tui_style base)
{
    int xp = r.x + r.w - 6; /* "100%" */
    int xa = xp - 9;        /* "123/456" */
    int xb = xa - 16;       /* bar of 14 */
    if (it->questions == 0) {
        tui_canvas_put(c, y, xb, "no questions", TUI_ST(base.attr, TUI_C_MUTED), -1);
        return;
    }
    double frac = (double)it->answered / it->questions;
    tui_bar_draw(c, y, xb, 14, frac, TUI_ST(base.attr, frac >= 1 ? TUI_C_GOOD : TUI_C_ACCENT));
    tui_canvas_printf(c, y, xa, base, 8, "%3d/%-3d", it->answered, it->questions);
    double pct = it->max > 0 ? 100.0 * it->score / it->max : 0;
    tui_canvas_printf(c, y, xp, base, 5, "%3.0f%%", pct);
}

void tui_view_home(struct tui_home_model *m, struct tui_canvas *c, struct tui_rect r,
                   struct tui_cursor *cur)
{
    const enum tui_charset cs = c->cs;
    int y = r.y;
    if (m->cont_text) {
        int x = tui_canvas_put(c, y, r.x + 1, "Continue: ", TUI_ST(TUI_A_BOLD, TUI_C_ACCENT), -1);
        tui_canvas_put(c, y, r.x + 1 + x, m->cont_text, TUI_ST(TUI_A_BOLD, 0), r.w - x - 12);
        tui_canvas_put(c, y, r.x + r.w - 10, "c: resume", TUI_ST(0, TUI_C_MUTED), -1);
    } else {
        tui_canvas_put(c, y, r.x + 1, "Pick a lesson to start; your place is kept.",
                       TUI_ST(0, TUI_C_MUTED), r.w - 2);
    }
    y += 2;
    struct tui_style head = TUI_ST(TUI_A_UNDER, TUI_C_MUTED);
    tui_canvas_put(c, y, r.x + 1, "lesson", head, -1);
    tui_canvas_put(c, y, r.x + r.w - 31, "progress", head, -1);
    tui_canvas_put(c, y, r.x + r.w - 16, "answered", head, -1);
    tui_canvas_put(c, y, r.x + r.w - 6, "score", head, -1);
    y++;
    bool search_line = m->searching || (m->search.text.len > 0);
    int rows = r.y + r.h - y - (search_line ? 2 : 0);
    if (rows < 1)
        rows = 1;
    /* Keep the selection in view. */
    if (m->sel < m->top)
        m->top = m->sel;
    if (m->sel >= m->top + (size_t)rows)
        m->top = m->sel - (size_t)rows + 1;
    if (m->top > 0 && m->top == m->sel && m->sel > 0 && m->items[m->shown[m->sel - 1]].is_pack)
        m->top--; /* show the pack heading of the first lesson too */
    if (m->n_shown == 0) {
        tui_canvas_put(c, y, r.x + 2,
                       m->n ? "no lesson matches the search"
                            : "no lessons: import a pack "
                              "(warpbench pack import DIR)",
                       TUI_ST(0, TUI_C_WARN), r.w - 4);
    }
    for (size_t k = m->top; k < m->n_shown && y < r.y + r.h - (search_line ? 2 : 0); k++, y++) {
        const struct tui_home_item *it = &m->items[m->shown[k]];
        bool sel = k == m->sel;
        struct tui_style base = TUI_ST(sel ? TUI_A_REVERSE : 0, 0);
        if (sel)
            tui_canvas_fill(c, (struct tui_rect){y, r.x, 1, r.w}, ' ', base);
        int title_w = r.w - 34;
        if (it->is_pack) {
            tui_canvas_put(c, y, r.x + 1, it->title, TUI_ST(TUI_A_BOLD, TUI_C_ACCENT), title_w);
        } else {
            const char *mark = it->cont ? tui_glyph(cs, "▶", ">") : " ";
            tui_canvas_put(c, y, r.x + 2, mark, TUI_ST(base.attr | TUI_A_BOLD, TUI_C_ACCENT), -1);
            tui_canvas_put(c, y, r.x + 4, it->title,
                           TUI_ST(base.attr | (it->cont ? TUI_A_BOLD : 0), 0), title_w - 4);
        }
        draw_stats(c, y, r, it, it->is_pack ? TUI_ST(TUI_A_BOLD, 0) : base);
    }
    if (search_line) {
        int sy = r.y + r.h - 1;
        tui_canvas_put(c, sy, r.x + 1, "/", TUI_ST(TUI_A_BOLD, TUI_C_ACCENT), -1);
        int col = tui_input_draw(c, sy, r.x + 3, r.w - 34, &m->search, TUI_ST(0, 0));
        if (m->searching) {
            cur->on = true;
            cur->y = sy;
            cur->x = r.x + 3 + col;
        }
        char n[80];
        size_t lessons = 0;
        for (size_t k = 0; k < m->n_shown; k++)
            lessons += is_lesson_row(m, k);
        if (m->n_hits)
            snprintf(n, sizeof n, "%zu lesson%s, %zu place%s (Tab)", lessons,
                     lessons == 1 ? "" : "s", m->n_hits, m->n_hits == 1 ? "" : "s");
        else
            snprintf(n, sizeof n, "%zu lesson%s", lessons, lessons == 1 ? "" : "s");
        tui_canvas_put(c, sy, r.x + r.w - 1 - tui_text_width(n), n, TUI_ST(0, TUI_C_MUTED), -1);
    }
}

/* ---- logic ---------------------------------------------------------------- */

enum {
    A_UP = 1,
    A_DOWN,
    A_PGUP,
    A_PGDN,
    A_HOME,
    A_END,
    A_OPEN,
    A_CONTINUE,
    A_SEARCH,
    A_LABS,
    A_PROGRESS,
    A_QUIT,
    A_SEARCH_DONE,
    A_SEARCH_CLEAR,
    A_CALCS,
    A_ESC,
    A_MISTAKES,
    A_FORMULAS,
    A_WHERE
};

/* q quits (and the footer always shows it); Esc never does: it clears the
 * filter, if any. */
static const struct tui_binding keys_list[] = {
    {TUI_K_UP, 'k', A_UP, "k/Up", NULL, "previous lesson"},
    {TUI_K_DOWN, 'j', A_DOWN, "j/Down", NULL, "next lesson"},
    {TUI_K_PGUP, 0, A_PGUP, "PgUp", NULL, "a page up"},
    {TUI_K_PGDN, 0, A_PGDN, "PgDn", NULL, "a page down"},
    {TUI_K_HOME, 'g', A_HOME, "g/Home", NULL, "first lesson"},
    {TUI_K_END, 'G', A_END, "G/End", NULL, "last lesson"},
    {TUI_K_ENTER, 0, A_OPEN, "Enter", "open", "open the selected lesson"},
    {'q', 0, A_QUIT, "q", "quit", "quit Warpbench"},
    {'c', 0, A_CONTINUE, "c", "continue", "open the lesson you were reading last"},
    {'/', 0, A_SEARCH, "/", "search",
     "search the lessons as you type: titles, pages, questions, calculators"},
    {'m', 0, A_MISTAKES, "m", "mistakes", "questions to review: wrong, given up, missed"},
    {'F', 0, A_FORMULAS, "F", "formulas", "the formula sheet"},
    {TUI_K_TAB, 0, A_WHERE, "Tab", NULL, "where the search text was found"},
    {'l', 0, A_LABS, "l", "labs", "run a lab on this machine"},
    {'p', 0, A_PROGRESS, "p", "progress", "scores per lesson, topic and rubric item"},
    {'C', 0, A_CALCS, "C", "calc", "every calculator of the lessons"},
    {TUI_K_ESC, 0, A_ESC, "Esc", NULL, "clear the search filter (never quits: q does)"},
};

static const struct tui_binding keys_search[] = {
    {TUI_K_ENTER, 0, A_SEARCH_DONE, "Enter", "keep filter", "stop typing, keep the filter"},
    {TUI_K_TAB, 0, A_WHERE, "Tab", "where", "every page, question and calculator found"},
    {TUI_K_ESC, 0, A_SEARCH_CLEAR, "Esc", "clear", "clear the search"},
    {TUI_K_UP, 0, A_UP, "Up", NULL, "previous match"},
    {TUI_K_DOWN, 0, A_DOWN, "Down", "move", "next match"},
};

struct home {
    struct tui_home_model m;
    char *cont_pack, *cont_lesson;
    struct lesson_search_index *index; /* the course's text, gathered at the first search */
};

/* Searches the course for the search text: the lessons with a hit show in
 * the filtered list too. */
static void search_content(struct tui_app *a, struct home *h)
{
    struct tui_home_model *m = &h->m;
    const char *q = m->search.text.data ? m->search.text.data : "";
    for (size_t i = 0; i < m->n_hit_lessons; i++)
        free(m->hit_lessons[i]);
    free(m->hit_lessons);
    m->hit_lessons = NULL;
    m->n_hit_lessons = m->n_hits = 0;
    if (!q[0])
        return;
    if (!h->index) {
        struct core_err e = {0};
        if (lesson_search_index_new(a->db, a->sess, &h->index, &e) != CORE_OK) {
            tui_app_msg(a, true, "search: %s", e.msg);
            return;
        }
    }
    struct lesson_hit *hits = NULL;
    size_t n = 0;
    lesson_search_run(h->index, q, &hits, &n);
    m->n_hits = n;
    m->hit_lessons = core_xcalloc(n ? n : 1, sizeof *m->hit_lessons);
    for (size_t i = 0; i < n; i++) {
        char *key = core_xasprintf("%s:%s", hits[i].pack_id, hits[i].lesson_id);
        bool seen = m->n_hit_lessons && strcmp(m->hit_lessons[m->n_hit_lessons - 1], key) == 0;
        if (seen)
            free(key);
        else
            m->hit_lessons[m->n_hit_lessons++] = key;
    }
    lesson_hits_free(hits, n);
}

/* A row's figures from its tally (NULL: no questions). */
static void item_sums(struct tui_home_item *it, const struct lesson_tally *t)
{
    if (!t)
        return;
    it->questions = t->questions;
    it->answered = t->answered;
    it->score = t->score;
    it->max = t->max;
}

static void load(struct tui_app *a, struct home *h)
{
    struct core_err e = {0};
    struct db_pack *packs = NULL;
    struct db_lesson *ls = NULL;
    struct db_progress_row *rows = NULL;
    size_t np = 0, nl = 0, nr = 0;
    /* Remember the selected lesson over a reload. */
    char *sel_pack = NULL, *sel_lesson = NULL;
    const struct tui_home_item *was = tui_home_selected(&h->m);
    if (was) {
        sel_pack = core_xstrdup(was->pack_id);
        sel_lesson = core_xstrdup(was->lesson_id);
    }
    items_free(&h->m);
    free(h->m.cont_text);
    h->m.cont_text = NULL;
    free(h->cont_pack);
    free(h->cont_lesson);
    h->cont_pack = h->cont_lesson = NULL;
    if (db_pack_list(a->db, &packs, &np, &e) != CORE_OK ||
        db_lesson_list(a->db, NULL, &ls, &nl, &e) != CORE_OK ||
        lesson_progress_load(a->db, a->user_id, NULL, &rows, &nr, &e) != CORE_OK) {
        tui_app_msg(a, true, "%s", e.msg);
        goto out;
    }
    struct lesson_tallies t;
    lesson_tallies_compute(rows, nr, NULL, &t);
    struct db_position pos = {0};
    bool have_pos = db_position_latest(a->db, a->user_id, &pos, &e) == CORE_OK;
    h->m.items = core_xcalloc(np + nl + 1, sizeof *h->m.items);
    for (size_t p = 0; p < np; p++) {
        struct tui_home_item *pk = &h->m.items[h->m.n++];
        pk->is_pack = true;
        pk->pack_id = core_xstrdup(packs[p].id);
        pk->title = core_xstrdup(packs[p].title ? packs[p].title : packs[p].id);
        item_sums(pk, lesson_tallies_pack(&t, packs[p].id));
        for (size_t i = 0; i < nl; i++) {
            if (strcmp(ls[i].pack_id, packs[p].id) != 0)
                continue;
            struct tui_home_item *it = &h->m.items[h->m.n++];
            it->pack_id = core_xstrdup(ls[i].pack_id);
            it->lesson_id = core_xstrdup(ls[i].id);
            it->title = core_xstrdup(ls[i].title ? ls[i].title : ls[i].id);
            item_sums(it, lesson_tallies_lesson(&t, it->pack_id, it->lesson_id));
            if (have_pos && strcmp(pos.pack_id, it->pack_id) == 0 &&
                strcmp(pos.lesson_id, it->lesson_id) == 0) {
                it->cont = true;
                h->m.cont_text =
                    core_xasprintf("%s %s page %d of %d", it->title, tui_glyph(a->cs, "—", "-"),
                                   pos.page + 1, ls[i].n_pages > 0 ? ls[i].n_pages : 1);
                h->cont_pack = core_xstrdup(it->pack_id);
                h->cont_lesson = core_xstrdup(it->lesson_id);
                if (!sel_pack) {
                    sel_pack = core_xstrdup(it->pack_id);
                    sel_lesson = core_xstrdup(it->lesson_id);
                }
            }
        }
    }
    db_position_fini(&pos);
    lesson_tallies_fini(&t);
    size_t nlabs = 0;
    lab_registry(&nlabs);
    h->m.n_labs = nlabs;
    tui_home_filter(&h->m);
    if (sel_pack)
        for (size_t k = 0; k < h->m.n_shown; k++) {
            const struct tui_home_item *it = &h->m.items[h->m.shown[k]];
            if (!it->is_pack && strcmp(it->pack_id, sel_pack) == 0 &&
                strcmp(it->lesson_id, sel_lesson) == 0)
                h->m.sel = k;
        }
out:
    free(sel_pack);
    free(sel_lesson);
    for (size_t i = 0; i < np; i++)
        db_pack_fini(&packs[i]);
    free(packs);
    db_lessons_free(ls, nl);
    db_progress_free(rows, nr);
}

static void *home_enter(struct tui_app *a, const void *arg)
{
    (void)arg;
    struct home *h = core_xcalloc(1, sizeof *h);
    tui_home_model_init(&h->m);
    load(a, h);
    return h;
}

static void home_leave(struct tui_app *a, void *st)
{
    struct home *h = st;
    lesson_search_index_free(h->index);
    tui_home_model_fini(&h->m);
    free(h->cont_pack);
    free(h->cont_lesson);
    free(h);
}

static void home_resume(struct tui_app *a, void *st)
{
    struct home *h = st;
    lesson_search_index_free(h->index); /* gathered again at the next search */
    h->index = NULL;
    load(a, st);
}

static bool home_key(struct tui_app *a, void *st, int key)
{
    struct home *h = st;
    if (!h->m.searching)
        return false;
    if (key == TUI_K_ENTER || key == TUI_K_ESC || key == TUI_K_UP || key == TUI_K_DOWN ||
        key == TUI_K_TAB || key == TUI_K_CTRL_C)
        return false; /* actions of keys_search */
    if (tui_input_key(&h->m.search, key)) {
        search_content(a, h);
        tui_home_filter(&h->m);
    }
    return true;
}

static void open_lesson(struct tui_app *a, const char *pack, const char *lesson)
{
    struct tui_lesson_arg arg = {pack, lesson, NULL, 0};
    tui_app_push(a, "lesson", &arg);
}

static void home_action(struct tui_app *a, void *st, int act)
{
    struct home *h = st;
    const struct tui_home_item *it = tui_home_selected(&h->m);
    switch (act) {
    case A_UP:
        tui_home_move(&h->m, -1);
        break;
    case A_DOWN:
        tui_home_move(&h->m, 1);
        break;
    case A_PGUP:
        tui_home_move(&h->m, -10);
        break;
    case A_PGDN:
        tui_home_move(&h->m, 10);
        break;
    case A_HOME:
        tui_home_move(&h->m, -1000000);
        break;
    case A_END:
        tui_home_move(&h->m, 1000000);
        break;
    case A_OPEN:
        if (it)
            open_lesson(a, it->pack_id, it->lesson_id);
        break;
    case A_CONTINUE:
        if (h->cont_pack)
            open_lesson(a, h->cont_pack, h->cont_lesson);
        else
            tui_app_msg(a, false, "nothing to continue yet: open a lesson with Enter");
        break;
    case A_SEARCH:
        h->m.searching = true;
        break;
    case A_SEARCH_DONE:
        h->m.searching = false;
        break;
    case A_SEARCH_CLEAR:
        h->m.searching = false;
        tui_input_set(&h->m.search, "");
        search_content(a, h);
        tui_home_filter(&h->m);
        break;
    case A_WHERE: {
        struct tui_search_arg arg = {h->m.search.text.data};
        tui_app_push(a, "search", &arg);
        break;
    }
    case A_MISTAKES:
        tui_app_push(a, "mistakes", NULL);
        break;
    case A_FORMULAS:
        tui_app_push(a, "formulas", NULL);
        break;
    case A_LABS: {
        struct tui_lab_arg arg = {NULL};
        tui_app_push(a, "lab", &arg);
        break;
    }
    case A_PROGRESS:
        tui_app_push(a, "progress", NULL);
        break;
    case A_CALCS: {
        struct tui_calc_arg arg = {NULL};
        tui_app_push(a, "calc", &arg);
        break;
    }
    case A_QUIT:
        tui_app_pop(a);
        break;
    case A_ESC:
        if (h->m.search.text.len) {
            tui_input_set(&h->m.search, "");
            search_content(a, h);
            tui_home_filter(&h->m);
            tui_app_msg(a, false, "filter cleared");
        } else {
            tui_app_msg(a, false, "this is the first screen: q quits");
        }
        break;
    }
}

static struct tui_keymap home_keys(const void *st)
{
    const struct home *h = st;
    return h->m.searching ? TUI_KEYMAP(keys_search) : TUI_KEYMAP(keys_list);
}

static const char *home_title(const void *st)
{
    (void)st;
    return "lessons";
}

static void home_draw(struct tui_app *a, void *st, struct tui_canvas *c, struct tui_rect r,
                      struct tui_cursor *cur)
{
    struct home *h = st;
    tui_view_home(&h->m, c, r, cur);
}

const struct tui_screen tui_screen_home = {
    .name = "home",
    .enter = home_enter,
    .leave = home_leave,
    .resume = home_resume,
    .on_key = home_key,
    .on_action = home_action,
    .keymap = home_keys,
    .title = home_title,
    .draw = home_draw,
};
