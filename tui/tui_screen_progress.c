/*
 * tui_screen_progress.c — where the student stands: scores per lesson, per
 * topic and per item of the 100-point course rubric, the proficiency level,
 * self-ratings against graded scores (calibration), what to study next, and
 * `s` to rate oneself on the rubric (stored as one self-assessment).
 *
 * The rubric roll-up and levels come from lessons (lesson_standing_load),
 * the sums per lesson and topic from lesson_tallies_compute; this file only
 * names the lessons by their titles for display.
 */
#include "tui/tui_screen.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- model ---------------------------------------------------------------- */

void tui_progress_model_fini(struct tui_progress_model *m)
{
    lesson_tally_list_fini(&m->lessons);
    lesson_tally_list_fini(&m->topics);
    for (size_t i = 0; i < m->n_items; i++) {
        free(m->items[i].id);
        free(m->items[i].title);
        free(m->items[i].gap);
    }
    free(m->items);
    free(m->level);
    free(m->level_meaning);
    free(m->self_level);
    free(m->calibration);
    for (size_t i = 0; i < m->n_study; i++)
        free(m->study[i]);
    free(m->study);
    free(m->rate);
    *m = (struct tui_progress_model){0};
}

void tui_progress_tally(struct tui_progress_model *m, const struct db_progress_row *rows, size_t n,
                        const struct db_lesson *ls, size_t nl)
{
    lesson_tally_list_fini(&m->lessons);
    lesson_tally_list_fini(&m->topics);
    struct lesson_tallies t;
    lesson_tallies_compute(rows, n, NULL, &t);
    /* Lessons are shown by their titles where known ("pack:lesson" else). */
    for (size_t i = 0; i < t.lessons.n; i++) {
        char *name = t.lessons.v[i].name;
        for (size_t k = 0; k < nl; k++) {
            size_t pl = strlen(ls[k].pack_id);
            if (ls[k].title && strncmp(name, ls[k].pack_id, pl) == 0 && name[pl] == ':' &&
                strcmp(name + pl + 1, ls[k].id) == 0) {
                t.lessons.v[i].name = core_xstrdup(ls[k].title);
                free(name);
                break;
            }
        }
    }
    m->lessons = t.lessons;
    m->topics = t.topics;
    t.lessons = t.topics = (struct lesson_tally_list){0};
    m->questions = t.total.questions;
    m->answered = t.total.answered;
    m->score = t.total.score;
    m->max = t.total.max;
    lesson_tallies_fini(&t);
}

/* ---- view ----------------------------------------------------------------- */

static void draw_list(struct tui_progress_model *m, struct tui_canvas *c, struct tui_rect r,
                      const struct lesson_tally_list *l)
{
    int y = r.y;
    struct tui_style head = TUI_ST(TUI_A_UNDER, TUI_C_MUTED);
    tui_canvas_put(c, y, r.x + 1, m->tab == 0 ? "lesson" : "topic", head, -1);
    tui_canvas_put(c, y, r.x + r.w - 40, "answered", head, -1);
    tui_canvas_put(c, y, r.x + r.w - 30, "score", head, -1);
    y++;
    int rows = r.h - 1;
    m->rows = rows;
    if (m->top + (size_t)rows > l->n)
        m->top = l->n > (size_t)rows ? l->n - (size_t)rows : 0;
    if (!l->n)
        tui_canvas_put(c, y, r.x + 2, "nothing yet", TUI_ST(0, TUI_C_MUTED), -1);
    for (size_t i = m->top; i < l->n && y < r.y + r.h; i++, y++) {
        const struct lesson_tally *t = &l->v[i];
        double frac = t->max > 0 ? t->score / t->max : 0;
        tui_canvas_put(c, y, r.x + 1, t->name, TUI_ST(0, 0), r.w - 42);
        tui_canvas_printf(c, y, r.x + r.w - 40, TUI_ST(0, 0), 8, "%3d/%-3d", t->answered,
                          t->questions);
        tui_canvas_printf(c, y, r.x + r.w - 31, TUI_ST(0, 0), 12, "%5.1f/%-5.1f", t->score, t->max);
        tui_bar_draw(c, y, r.x + r.w - 18, 10, frac,
                     TUI_ST(0, frac >= 0.9   ? TUI_C_GOOD
                               : frac >= 0.6 ? TUI_C_ACCENT
                                             : TUI_C_WARN));
        tui_canvas_printf(c, y, r.x + r.w - 7, TUI_ST(TUI_A_BOLD, 0), 6, "%4.0f%%", 100 * frac);
    }
}

static void draw_items(struct tui_progress_model *m, struct tui_canvas *c, struct tui_rect r)
{
    const enum tui_charset cs = c->cs;
    int y = r.y;
    struct tui_style head = TUI_ST(TUI_A_UNDER, TUI_C_MUTED);
    tui_canvas_put(c, y, r.x + 1, "course rubric item", head, -1);
    tui_canvas_put(c, y, r.x + r.w - 43, "graded", head, -1);
    tui_canvas_put(c, y, r.x + r.w - 26, m->rating ? "your rating" : "self-rating", head, -1);
    y++;
    int study_rows = m->rating || !m->n_study ? 0 : 1 + (int)m->n_study;
    int rows = r.h - 1 - study_rows;
    m->rows = rows;
    size_t top = m->rating ? (m->rsel >= (size_t)rows ? m->rsel - (size_t)rows + 1 : 0) : m->top;
    if (!m->rating && top + (size_t)rows > m->n_items)
        top = m->top = m->n_items > (size_t)rows ? m->n_items - (size_t)rows : 0;
    for (size_t i = top; i < m->n_items && y < r.y + 1 + rows; i++, y++) {
        const struct tui_prog_item *it = &m->items[i];
        bool sel = m->rating && i == m->rsel;
        uint8_t ra = sel ? TUI_A_REVERSE : 0;
        if (sel)
            tui_canvas_fill(c, (struct tui_rect){y, r.x, 1, r.w}, ' ', TUI_ST(ra, 0));
        tui_canvas_put(c, y, r.x + 1, it->title && it->title[0] ? it->title : it->id,
                       TUI_ST(ra, it->questions ? 0 : TUI_C_MUTED), r.w - 46);
        double frac = it->max > 0 ? it->graded / it->max : 0;
        tui_bar_draw(c, y, r.x + r.w - 43, 6, frac, TUI_ST(ra, TUI_C_ACCENT));
        tui_canvas_printf(c, y, r.x + r.w - 36, TUI_ST(ra | TUI_A_BOLD, 0), 10, "%4.1f/%-4g",
                          it->graded, it->max);
        if (m->rating && isnan(m->rate[i])) { /* not rated: stays so unless changed */
            tui_canvas_printf(c, y, r.x + r.w - 26, TUI_ST(ra, TUI_C_MUTED), 19, "%s    -/%-4g %s",
                              tui_glyph(cs, "◀", "<"), it->max, tui_glyph(cs, "▶", ">"));
        } else if (m->rating) {
            tui_canvas_printf(c, y, r.x + r.w - 26, TUI_ST(ra | TUI_A_BOLD, TUI_C_ACCENT), 19,
                              "%s %4g/%-4g %s", tui_glyph(cs, "◀", "<"), m->rate[i], it->max,
                              tui_glyph(cs, "▶", ">"));
        } else if (it->rated) {
            tui_canvas_printf(c, y, r.x + r.w - 26, TUI_ST(ra, 0), 9, "%4g/%-4g", it->self,
                              it->max);
            if (it->gap)
                tui_canvas_put(
                    c, y, r.x + r.w - 16, it->gap,
                    TUI_ST(ra, strcmp(it->gap, "well calibrated") == 0 ? TUI_C_GOOD : TUI_C_WARN),
                    15);
        } else {
            tui_canvas_put(c, y, r.x + r.w - 26, "-", TUI_ST(ra, TUI_C_MUTED), -1);
        }
    }
    if (study_rows) {
        y = r.y + 1 + rows;
        tui_canvas_put(c, y++, r.x + 1, "Study next:", TUI_ST(TUI_A_BOLD, 0), -1);
        for (size_t i = 0; i < m->n_study; i++, y++)
            tui_canvas_put(c, y, r.x + 3, m->study[i], TUI_ST(0, 0), r.w - 4);
    }
}

void tui_view_progress(struct tui_progress_model *m, struct tui_canvas *c, struct tui_rect r)
{
    const enum tui_charset cs = c->cs;
    int y = r.y;
    int x = r.x + 1;
    x += tui_canvas_printf(c, y, x, TUI_ST(TUI_A_BOLD, 0), -1, "Course rubric: %.1f / 100",
                           m->course);
    x += tui_canvas_put(c, y, x, "   level: ", TUI_ST(0, 0), -1);
    x += tui_canvas_put(c, y, x, m->level ? m->level : "", TUI_ST(TUI_A_BOLD, TUI_C_ACCENT),
                        r.x + r.w - x - 1);
    if (m->level_meaning)
        tui_canvas_printf(c, y + 1, r.x + 3, TUI_ST(0, TUI_C_MUTED), r.w - 4, "(%s)",
                          m->level_meaning);
    y += 2;
    tui_canvas_printf(c, y, r.x + 1, TUI_ST(0, 0), r.w - 2,
                      "%d of %d questions answered %s score %.1f of %.1f (%.0f%%)", m->answered,
                      m->questions, tui_glyph(cs, "·", "-"), m->score, m->max,
                      m->max > 0 ? 100 * m->score / m->max : 0);
    y++;
    if (m->n_rated == 0) {
        tui_canvas_put(c, y, r.x + 1,
                       "No self-assessment yet: press s to rate yourself on the rubric.",
                       TUI_ST(0, TUI_C_MUTED), r.w - 2);
    } else if (m->n_compared > 0) {
        tui_canvas_printf(c, y, r.x + 1, TUI_ST(0, 0), r.w - 2,
                          "Self-rated %.1f, graded %.1f of %.0f on the %d item%s you answered: %s",
                          m->self_compared, m->graded_compared, m->max_compared, m->n_compared,
                          m->n_compared == 1 ? "" : "s", m->calibration ? m->calibration : "");
    } else {
        tui_canvas_printf(c, y, r.x + 1, TUI_ST(0, 0), r.w - 2,
                          "Self-rating %.1f / 100%s%s; answer questions to compare it",
                          m->self_total, m->self_level ? ", " : "",
                          m->self_level ? m->self_level : "");
    }
    y++;
    /* Tabs. */
    static const char *const tabs[] = {"lessons", "topics", "course rubric"};
    x = r.x + 1;
    for (int i = 0; i < 3; i++) {
        char t[32];
        snprintf(t, sizeof t, " %d %s ", i + 1, tabs[i]);
        bool on = i == m->tab;
        x += tui_canvas_put(c, y, x, t,
                            TUI_ST(on ? TUI_A_REVERSE | TUI_A_BOLD : 0, on ? 0 : TUI_C_MUTED), -1) +
             1;
    }
    y++;
    struct tui_rect lr = {y, r.x, r.y + r.h - y, r.w};
    if (m->tab == 0)
        draw_list(m, c, lr, &m->lessons);
    else if (m->tab == 1)
        draw_list(m, c, lr, &m->topics);
    else
        draw_items(m, c, lr);
}

/* ---- logic ---------------------------------------------------------------- */

enum {
    A_TAB = 1,
    A_BTAB,
    A_T1,
    A_T2,
    A_T3,
    A_UP,
    A_DOWN,
    A_PGUP,
    A_PGDN,
    A_BACK,
    A_RATE,
    A_LESS,
    A_MORE,
    A_SAVE,
    A_CANCEL
};

static const struct tui_binding keys_view[] = {
    {TUI_K_TAB, 0, A_TAB, "Tab", "next tab", "next tab (1 2 3 pick one)"},
    {TUI_K_BTAB, 0, A_BTAB, "S-Tab", NULL, "previous tab"},
    {'1', 0, A_T1, "1", NULL, "per lesson"},
    {'2', 0, A_T2, "2", NULL, "per topic"},
    {'3', 0, A_T3, "3", NULL, "per course rubric item"},
    {TUI_K_DOWN, 'j', A_DOWN, "j/Down", "scroll", "scroll down"},
    {TUI_K_UP, 'k', A_UP, "k/Up", NULL, "scroll up"},
    {TUI_K_PGDN, ' ', A_PGDN, "PgDn", NULL, "a page down"},
    {TUI_K_PGUP, 0, A_PGUP, "PgUp", NULL, "a page up"},
    {'s', 0, A_RATE, "s", "rate yourself", "rate yourself on each rubric item"},
    {'q', TUI_K_ESC, A_BACK, "q", "back", "back to the lessons"},
};

static const struct tui_binding keys_rate[] = {
    {TUI_K_UP, 'k', A_UP, "k/Up", NULL, "previous item"},
    {TUI_K_DOWN, 'j', A_DOWN, "j/Down", "move", "next item"},
    {TUI_K_RIGHT, '+', A_MORE, "Right/+", "more", "rate higher (by 1; digits set it)"},
    {TUI_K_LEFT, '-', A_LESS, "Left/-", "less", "rate lower"},
    {TUI_K_ENTER, 0, A_SAVE, "Enter", "save", "store this self-assessment"},
    {TUI_K_ESC, 'q', A_CANCEL, "Esc", "cancel", "leave without storing"},
};

struct progress {
    struct tui_progress_model m;
};

static void load(struct tui_app *a, struct progress *p)
{
    struct core_err e = {0};
    struct db_progress_row *rows = NULL;
    size_t nr = 0;
    struct db_lesson *ls = NULL;
    size_t nl = 0;
    struct lesson_standing s;
    memset(&s, 0, sizeof s);
    int tab = p->m.tab;
    size_t top = p->m.top;
    tui_progress_model_fini(&p->m);
    p->m.tab = tab;
    p->m.top = top;
    if (lesson_progress_load(a->db, a->user_id, NULL, &rows, &nr, &e) != CORE_OK ||
        db_lesson_list(a->db, NULL, &ls, &nl, &e) != CORE_OK ||
        lesson_standing_load(a->db, a->user_id, NULL, &s, &e) != CORE_OK) {
        tui_app_msg(a, true, "%s", e.msg);
        goto out;
    }
    tui_progress_tally(&p->m, rows, nr, ls, nl);
    p->m.course = s.graded_total;
    p->m.level = core_xstrdup(s.graded_level);
    p->m.level_meaning = core_xstrdup(lesson_level_meaning(s.graded_total));
    p->m.items = core_xcalloc(LESSON_RUBRIC_N, sizeof *p->m.items);
    for (int i = 0; i < LESSON_RUBRIC_N; i++) {
        const struct lesson_item_standing *is = &s.items[i];
        struct tui_prog_item *it = &p->m.items[p->m.n_items++];
        it->id = core_xstrdup(is->item->id);
        it->title = core_xstrdup(is->item->title);
        it->max = is->item->max;
        it->graded = is->graded;
        it->questions = is->questions;
        it->answered = is->answered;
        it->rated = is->rated;
        it->self = is->self;
        if (is->rated && is->answered)
            it->gap = core_xstrdup(lesson_gap_word(is->gap, is->item->max));
    }
    p->m.n_rated = s.n_rated;
    p->m.self_total = s.self_total;
    p->m.self_level = s.self_level ? core_xstrdup(s.self_level) : NULL;
    p->m.n_compared = s.n_compared;
    p->m.self_compared = s.self_compared;
    p->m.graded_compared = s.graded_compared;
    p->m.max_compared = s.max_compared;
    if (s.n_compared)
        p->m.calibration =
            core_xstrdup(lesson_gap_word(s.self_compared - s.graded_compared, s.max_compared));
    p->m.study = core_xcalloc(s.n_study ? s.n_study : 1, sizeof *p->m.study);
    for (size_t i = 0; i < s.n_study; i++) {
        const char *title = s.study[i].lesson_id;
        for (size_t k = 0; k < nl; k++)
            if (strcmp(ls[k].pack_id, s.study[i].pack_id) == 0 &&
                strcmp(ls[k].id, s.study[i].lesson_id) == 0)
                title = ls[k].title;
        p->m.study[p->m.n_study++] = core_xasprintf(
            "%s (up to %.1f more points%s%s)", title, s.study[i].unearned,
            s.study[i].item ? ", mostly " : "", s.study[i].item ? s.study[i].item->title : "");
    }
out:
    lesson_standing_fini(&s);
    db_progress_free(rows, nr);
    db_lessons_free(ls, nl);
}

static void *progress_enter(struct tui_app *a, const void *arg)
{
    (void)arg;
    struct progress *p = core_xcalloc(1, sizeof *p);
    load(a, p);
    return p;
}

static void progress_leave(struct tui_app *a, void *st)
{
    struct progress *p = st;
    tui_progress_model_fini(&p->m);
    free(p);
}

static void progress_resume(struct tui_app *a, void *st)
{
    load(a, st);
}

static bool progress_key(struct tui_app *a, void *st, int key)
{
    struct progress *p = st;
    if (p->m.rating && key >= '0' && key <= '9' && p->m.n_items) {
        double v = key - '0';
        double mx = p->m.items[p->m.rsel].max;
        p->m.rate[p->m.rsel] = v > mx ? mx : v;
        return true;
    }
    return false;
}

static void save(struct tui_app *a, struct progress *p)
{
    struct core_err e = {0};
    /* Only the items the student rated: an item left unrated is not stored
     * (a graded score stored as a self-rating would hide the calibration). */
    struct db_selfassess_in *in = core_xcalloc(p->m.n_items ? p->m.n_items : 1, sizeof *in);
    size_t n = 0;
    for (size_t i = 0; i < p->m.n_items; i++)
        if (!isnan(p->m.rate[i]))
            in[n++] = (struct db_selfassess_in){p->m.items[i].id, p->m.rate[i], p->m.items[i].max};
    if (n == 0) {
        free(in);
        tui_app_msg(a, true, "nothing rated yet: Right/+ or a digit rates the selected item");
        return;
    }
    int rc = db_selfassess_insert_many(a->db, a->user_id, in, n, &e);
    free(in);
    if (rc != CORE_OK) {
        tui_app_msg(a, true, "%s", e.msg);
        return;
    }
    p->m.rating = false;
    load(a, p);
    tui_app_msg(a, false, "self-assessment stored: %.1f / 100", p->m.self_total);
}

static void progress_action(struct tui_app *a, void *st, int act)
{
    struct progress *p = st;
    struct tui_progress_model *m = &p->m;
    long page = m->rows > 2 ? m->rows - 1 : 1;
    switch (act) {
    case A_TAB:
        m->tab = (m->tab + 1) % 3;
        m->top = 0;
        break;
    case A_BTAB:
        m->tab = (m->tab + 2) % 3;
        m->top = 0;
        break;
    case A_T1:
    case A_T2:
    case A_T3:
        m->tab = act - A_T1;
        m->top = 0;
        break;
    case A_UP:
        if (m->rating) {
            if (m->rsel > 0)
                m->rsel--;
        } else if (m->top > 0) {
            m->top--;
        }
        break;
    case A_DOWN:
        if (m->rating) {
            if (m->rsel + 1 < m->n_items)
                m->rsel++;
        } else {
            m->top++; /* the view clamps */
        }
        break;
    case A_PGUP:
        m->top = m->top > (size_t)page ? m->top - (size_t)page : 0;
        break;
    case A_PGDN:
        m->top += (size_t)page;
        break;
    case A_RATE:
        m->rating = true;
        m->tab = 2;
        m->rsel = 0;
        free(m->rate);
        m->rate = core_xcalloc(m->n_items ? m->n_items : 1, sizeof *m->rate);
        /* Start from the latest ratings; an item never rated stays unrated
         * until the student changes it (never the graded score: that would
         * be the grader's opinion stored as the student's). */
        for (size_t i = 0; i < m->n_items; i++)
            m->rate[i] = m->items[i].rated ? m->items[i].self : NAN;
        break;
    case A_LESS:
    case A_MORE:
        if (m->rating && m->n_items) {
            double was = m->rate[m->rsel];
            double v = isnan(was) ? (act == A_MORE ? 1 : 0) : was + (act == A_MORE ? 1 : -1);
            double mx = m->items[m->rsel].max;
            m->rate[m->rsel] = v < 0 ? 0 : v > mx ? mx : v;
        }
        break;
    case A_SAVE:
        save(a, p);
        break;
    case A_CANCEL:
        m->rating = false;
        break;
    case A_BACK:
        tui_app_pop(a);
        break;
    }
}

static struct tui_keymap progress_keys(const void *st)
{
    const struct progress *p = st;
    return p->m.rating ? TUI_KEYMAP(keys_rate) : TUI_KEYMAP(keys_view);
}

static const char *progress_title(const void *st)
{
    const struct progress *p = st;
    return p->m.rating ? "rate yourself" : "progress";
}

static void progress_draw(struct tui_app *a, void *st, struct tui_canvas *c, struct tui_rect r,
                          struct tui_cursor *cur)
{
    struct progress *p = st;
    tui_view_progress(&p->m, c, r);
}

const struct tui_screen tui_screen_progress = {
    .name = "progress",
    .enter = progress_enter,
    .leave = progress_leave,
    .resume = progress_resume,
    .on_key = progress_key,
    .on_action = progress_action,
    .keymap = progress_keys,
    .title = progress_title,
    .draw = progress_draw,
};
