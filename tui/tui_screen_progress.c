/*
 * tui_screen_progress.c — where the student stands: scores per lesson, per
 * topic and per item of the 100-point course rubric, every question
 * answered or given up on, the proficiency level, self-ratings against
 * graded scores (calibration), what to study next, and `s` to rate oneself
 * on the rubric (stored as one self-assessment). Every list scrolls and its
 * rows open what they name (a lesson, a question, a search for a topic);
 * `m` opens the mistakes.
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
    /* The lessons' keys first: there are lessons.n of them. */
    for (size_t i = 0; i < m->lessons.n && m->lesson_keys; i++)
        free(m->lesson_keys[i]);
    free(m->lesson_keys);
    m->lesson_keys = NULL;
    lesson_tally_list_fini(&m->lessons);
    lesson_tally_list_fini(&m->topics);
    for (size_t i = 0; i < m->n_items; i++) {
        free(m->items[i].id);
        free(m->items[i].title);
        free(m->items[i].gap);
    }
    free(m->items);
    for (size_t i = 0; i < m->n_qs; i++) {
        free(m->qs[i].pack_id);
        free(m->qs[i].id);
        free(m->qs[i].title);
        free(m->qs[i].lesson);
    }
    free(m->qs);
    free(m->level);
    free(m->level_meaning);
    free(m->self_level);
    free(m->calibration);
    for (size_t i = 0; i < m->n_study; i++) {
        free(m->study[i]);
        free(m->study_keys ? m->study_keys[i] : NULL);
    }
    free(m->study);
    free(m->study_keys);
    free(m->rate);
    *m = (struct tui_progress_model){0};
}

void tui_progress_tally(struct tui_progress_model *m, const struct db_progress_row *rows, size_t n,
                        const struct db_lesson *ls, size_t nl)
{
    for (size_t i = 0; i < m->lessons.n && m->lesson_keys; i++)
        free(m->lesson_keys[i]);
    free(m->lesson_keys);
    lesson_tally_list_fini(&m->lessons);
    lesson_tally_list_fini(&m->topics);
    struct lesson_tallies t;
    lesson_tallies_compute(rows, n, NULL, &t);
    /* Lessons are shown by their titles where known ("pack:lesson" else). */
    m->lesson_keys = core_xcalloc(t.lessons.n ? t.lessons.n : 1, sizeof *m->lesson_keys);
    for (size_t i = 0; i < t.lessons.n; i++) {
        char *name = t.lessons.v[i].name;
        m->lesson_keys[i] = core_xstrdup(name);
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

void tui_progress_questions(struct tui_progress_model *m, const struct db_progress_row *rows,
                            size_t n, const struct db_question *qs, size_t nq,
                            const struct db_lesson *ls, size_t nl)
{
    m->qs = core_xcalloc(n ? n : 1, sizeof *m->qs);
    m->n_qs = 0;
    m->n_gave_up = 0;
    for (size_t i = 0; i < n; i++) {
        const struct db_progress_row *r = &rows[i];
        if (!r->answered && !r->gave_up)
            continue;
        struct tui_prog_q *q = &m->qs[m->n_qs++];
        q->pack_id = core_xstrdup(r->pack_id);
        q->id = core_xstrdup(r->question_id);
        const char *title = r->question_id, *lesson = r->lesson_id;
        for (size_t k = 0; k < nq; k++)
            if (strcmp(qs[k].pack_id, r->pack_id) == 0 && strcmp(qs[k].id, r->question_id) == 0 &&
                qs[k].title)
                title = qs[k].title;
        for (size_t k = 0; k < nl; k++)
            if (strcmp(ls[k].pack_id, r->pack_id) == 0 && strcmp(ls[k].id, r->lesson_id) == 0 &&
                ls[k].title)
                lesson = ls[k].title;
        q->title = core_xstrdup(title);
        q->lesson = core_xstrdup(lesson);
        q->score = r->best;
        q->points = r->points;
        q->tries = r->attempts;
        q->gave_up = r->gave_up;
        q->pending =
            (r->exam && !r->exam_over) || (r->sealed && (!r->has_official || r->official_pending));
        m->n_gave_up += r->gave_up;
    }
}

size_t tui_progress_rows(const struct tui_progress_model *m)
{
    switch (m->tab) {
    case TUI_PROG_LESSONS:
        return m->lessons.n;
    case TUI_PROG_TOPICS:
        return m->topics.n;
    case TUI_PROG_RUBRIC:
        return m->n_items;
    case TUI_PROG_QUESTIONS:
        return m->n_qs;
    default:
        return m->n_study;
    }
}

void tui_topic_name(const char *tag, char *buf, size_t n)
{
    snprintf(buf, n, "%s", tag ? tag : "");
    for (char *p = buf; *p; p++)
        if (*p == '-' || *p == '_')
            *p = ' ';
    if (buf[0] >= 'a' && buf[0] <= 'z')
        buf[0] = (char)(buf[0] - 32);
}

/* ---- view ----------------------------------------------------------------- */

/* Keeps the selection in view in `rows` rows, and says how many rows are
 * out of view at the bottom (the view prints it). */
static void keep_in_view(struct tui_progress_model *m, size_t n, int rows)
{
    m->rows = rows;
    if (m->sel >= n)
        m->sel = n ? n - 1 : 0;
    if (m->sel < m->top)
        m->top = m->sel;
    if (rows > 0 && m->sel >= m->top + (size_t)rows)
        m->top = m->sel - (size_t)rows + 1;
    if (m->top + (size_t)rows > n)
        m->top = n > (size_t)rows ? n - (size_t)rows : 0;
}

static void more_mark(struct tui_canvas *c, struct tui_rect r, int y, size_t below)
{
    if (!below)
        return;
    char more[48];
    snprintf(more, sizeof more, "%s %zu more (j/k)", tui_glyph(c->cs, "↓", "v"), below);
    tui_canvas_put(c, y, r.x + r.w - 1 - tui_text_width(more), more, TUI_ST(0, TUI_C_MUTED), -1);
}

static void draw_list(struct tui_progress_model *m, struct tui_canvas *c, struct tui_rect r,
                      const struct lesson_tally_list *l)
{
    int y = r.y;
    struct tui_style head = TUI_ST(TUI_A_UNDER, TUI_C_MUTED);
    tui_canvas_put(c, y, r.x + 3, m->tab == TUI_PROG_LESSONS ? "lesson" : "topic", head, -1);
    tui_canvas_put(c, y, r.x + r.w - 40, "answered", head, -1);
    tui_canvas_put(c, y, r.x + r.w - 30, "score", head, -1);
    y++;
    int rows = r.h - 1;
    keep_in_view(m, l->n, rows);
    if (!l->n)
        tui_canvas_put(c, y, r.x + 3, "nothing yet", TUI_ST(0, TUI_C_MUTED), -1);
    for (size_t i = m->top; i < l->n && y < r.y + r.h; i++, y++) {
        const struct lesson_tally *t = &l->v[i];
        uint8_t ra = tui_view_list_row(c, r, y, i == m->sel, false);
        double frac = t->max > 0 ? t->score / t->max : 0;
        char name[160];
        if (m->tab == TUI_PROG_TOPICS)
            tui_topic_name(t->name, name, sizeof name);
        else
            snprintf(name, sizeof name, "%s", t->name);
        tui_canvas_put_cut(c, y, r.x + 3, name, TUI_ST(ra, 0), r.w - 44);
        tui_canvas_printf(c, y, r.x + r.w - 40, TUI_ST(ra, 0), 8, "%3d/%-3d", t->answered,
                          t->questions);
        tui_canvas_printf(c, y, r.x + r.w - 31, TUI_ST(ra, 0), 12, "%5.1f/%-5.1f", t->score,
                          t->max);
        tui_bar_draw(c, y, r.x + r.w - 18, 10, frac,
                     TUI_ST(ra, frac >= 0.9   ? TUI_C_GOOD
                                : frac >= 0.6 ? TUI_C_ACCENT
                                              : TUI_C_WARN));
        tui_canvas_printf(c, y, r.x + r.w - 7, TUI_ST(ra | TUI_A_BOLD, 0), 6, "%4.0f%%",
                          100 * frac);
    }
    if (l->n > m->top + (size_t)rows)
        more_mark(c, r, r.y, l->n - m->top - (size_t)rows);
}

static void draw_items(struct tui_progress_model *m, struct tui_canvas *c, struct tui_rect r)
{
    const enum tui_charset cs = c->cs;
    int y = r.y;
    struct tui_style head = TUI_ST(TUI_A_UNDER, TUI_C_MUTED);
    tui_canvas_put(c, y, r.x + 3, "course rubric item", head, -1);
    if (m->rating) {
        /* While rating, the graded scores stay out of sight: a rating
         * anchored on them would measure nothing. */
        tui_canvas_put(c, y, r.x + r.w - 26, "your rating", head, -1);
    } else {
        tui_canvas_put(c, y, r.x + r.w - 45, "graded", head, -1);
        tui_canvas_put(c, y, r.x + r.w - 34, "answered", head, -1);
        tui_canvas_put(c, y, r.x + r.w - 24, "self", head, -1);
        tui_canvas_put(c, y, r.x + r.w - 16, "calibration", head, -1);
    }
    y++;
    int rows = r.h - 1;
    if (m->rating)
        m->sel = m->rsel;
    keep_in_view(m, m->n_items, rows);
    for (size_t i = m->top; i < m->n_items && y < r.y + 1 + rows; i++, y++) {
        const struct tui_prog_item *it = &m->items[i];
        uint8_t ra = tui_view_list_row(c, r, y, i == m->sel, false);
        tui_canvas_put_cut(c, y, r.x + 3, it->title && it->title[0] ? it->title : it->id,
                           TUI_ST(ra, it->questions ? 0 : TUI_C_MUTED),
                           m->rating ? r.w - 30 : r.w - 49);
        if (m->rating && isnan(m->rate[i])) { /* not rated: stays so unless changed */
            tui_canvas_printf(c, y, r.x + r.w - 26, TUI_ST(ra, TUI_C_MUTED), 19, "%s    -/%-4g %s",
                              tui_glyph(cs, "◀", "<"), it->max, tui_glyph(cs, "▶", ">"));
            continue;
        }
        if (m->rating) {
            tui_canvas_printf(c, y, r.x + r.w - 26, TUI_ST(ra | TUI_A_BOLD, TUI_C_ACCENT), 19,
                              "%s %4g/%-4g %s", tui_glyph(cs, "◀", "<"), m->rate[i], it->max,
                              tui_glyph(cs, "▶", ">"));
            continue;
        }
        tui_canvas_printf(c, y, r.x + r.w - 45, TUI_ST(ra | TUI_A_BOLD, 0), 10, "%4.1f/%-4g",
                          it->graded, it->max);
        /* The score on what was answered: what a self-rating is compared with. */
        if (it->answered)
            tui_canvas_printf(c, y, r.x + r.w - 34, TUI_ST(ra, 0), 9, "%4.1f/%-4g",
                              it->graded_answered, it->max);
        else
            tui_canvas_put(c, y, r.x + r.w - 34, "-", TUI_ST(ra, TUI_C_MUTED), -1);
        if (it->rated) {
            tui_canvas_printf(c, y, r.x + r.w - 24, TUI_ST(ra, 0), 8, "%4g/%-4g", it->self,
                              it->max);
            if (it->gap)
                tui_canvas_put_cut(
                    c, y, r.x + r.w - 16, it->gap,
                    TUI_ST(ra, strcmp(it->gap, "well calibrated") == 0 ? TUI_C_GOOD : TUI_C_WARN),
                    15);
        } else {
            tui_canvas_put(c, y, r.x + r.w - 24, "-", TUI_ST(ra, TUI_C_MUTED), -1);
        }
    }
    if (m->n_items > m->top + (size_t)rows)
        more_mark(c, r, r.y, m->n_items - m->top - (size_t)rows);
}

static void draw_questions(struct tui_progress_model *m, struct tui_canvas *c, struct tui_rect r)
{
    const enum tui_charset cs = c->cs;
    int y = r.y;
    struct tui_style head = TUI_ST(TUI_A_UNDER, TUI_C_MUTED);
    char h[96];
    snprintf(h, sizeof h, "question (%zu answered or given up on, %d given up)", m->n_qs,
             m->n_gave_up);
    tui_canvas_put_cut(c, y, r.x + 3, h, head, r.w - 24);
    tui_canvas_put(c, y, r.x + r.w - 19, "tries", head, -1);
    tui_canvas_put(c, y, r.x + r.w - 12, "score", head, -1);
    y++;
    int rows = r.h - 1;
    keep_in_view(m, m->n_qs, rows);
    if (!m->n_qs)
        tui_canvas_put(c, y, r.x + 3, "no question answered yet", TUI_ST(0, TUI_C_MUTED), -1);
    for (size_t i = m->top; i < m->n_qs && y < r.y + r.h; i++, y++) {
        const struct tui_prog_q *q = &m->qs[i];
        uint8_t ra = tui_view_list_row(c, r, y, i == m->sel, false);
        bool right = !q->pending && q->points > 0 && q->score >= q->points - 1e-9;
        const char *mark = q->pending     ? tui_glyph(cs, "•", "*")
                           : q->gave_up   ? "h"
                           : right        ? tui_glyph(cs, "✓", "+")
                           : q->score > 0 ? "~"
                                          : tui_glyph(cs, "✗", "x");
        uint8_t col = q->pending                   ? TUI_C_ACCENT
                      : right                      ? TUI_C_GOOD
                      : q->gave_up || q->score > 0 ? TUI_C_WARN
                                                   : TUI_C_BAD;
        tui_canvas_put(c, y, r.x + 3, mark, TUI_ST(ra | TUI_A_BOLD, col), 1);
        char *line = core_xasprintf("%s %s %s", q->title, tui_glyph(cs, "·", "-"), q->lesson);
        tui_canvas_put_cut(c, y, r.x + 5, line, TUI_ST(ra, 0), r.w - 26);
        free(line);
        tui_canvas_printf(c, y, r.x + r.w - 19, TUI_ST(ra, 0), 6, "%3d", q->tries);
        if (q->pending)
            tui_canvas_put(c, y, r.x + r.w - 12, "pending", TUI_ST(ra, TUI_C_MUTED), 11);
        else
            tui_canvas_printf(c, y, r.x + r.w - 12, TUI_ST(ra, 0), 11, "%g/%g", q->score,
                              q->points);
    }
    if (m->n_qs > m->top + (size_t)rows)
        more_mark(c, r, r.y, m->n_qs - m->top - (size_t)rows);
}

static void draw_study(struct tui_progress_model *m, struct tui_canvas *c, struct tui_rect r)
{
    int y = r.y;
    tui_canvas_put(c, y, r.x + 3, "Study next: where your answers lost points, then what is open",
                   TUI_ST(TUI_A_UNDER, TUI_C_MUTED), r.w - 4);
    y++;
    if (!m->n_study) {
        tui_canvas_put(c, y, r.x + 3, "nothing left to earn", TUI_ST(0, TUI_C_MUTED), -1);
        return;
    }
    if (m->sel >= m->n_study)
        m->sel = m->n_study - 1;
    m->rows = r.h - 1;
    /* Each entry wrapped in full (never cut): a few lines each. */
    for (size_t i = 0; i < m->n_study && y < r.y + r.h; i++) {
        struct core_strlist l;
        core_strlist_init(&l);
        tui_text_wrap(m->study[i], r.w - 6, &l);
        for (size_t k = 0; k < l.n && y < r.y + r.h; k++, y++) {
            uint8_t ra = k == 0 ? tui_view_list_row(c, r, y, i == m->sel, false) : 0;
            if (k > 0 && i == m->sel)
                tui_canvas_fill(c, (struct tui_rect){y, r.x, 1, r.w}, ' ',
                                TUI_ST(TUI_A_REVERSE, 0)),
                    ra = TUI_A_REVERSE;
            tui_canvas_put(c, y, r.x + 3, l.items[k], TUI_ST(ra, 0), r.w - 4);
        }
        core_strlist_fini(&l);
    }
}

void tui_view_progress(struct tui_progress_model *m, struct tui_canvas *c, struct tui_rect r)
{
    const enum tui_charset cs = c->cs;
    int y = r.y;
    int x = r.x + 1;
    if (m->rating) {
        tui_canvas_put(c, y, x, "Rating yourself on the course's 100-point rubric",
                       TUI_ST(TUI_A_BOLD, 0), r.w - 2);
        y += 4;
        goto rate;
    }
    x += tui_canvas_printf(c, y, x, TUI_ST(TUI_A_BOLD, 0), -1, "Course rubric: %.1f / 100",
                           m->course);
    x += tui_canvas_put(c, y, x, "   level: ", TUI_ST(0, 0), -1);
    x += tui_canvas_put(c, y, x, m->level ? m->level : "", TUI_ST(TUI_A_BOLD, TUI_C_ACCENT),
                        r.x + r.w - x - 1);
    if (m->level_meaning) {
        char *lm = core_xasprintf("(%s)", m->level_meaning);
        tui_canvas_put_cut(c, y + 1, r.x + 3, lm, TUI_ST(0, TUI_C_MUTED), r.w - 4);
        free(lm);
    }
    y += 2;
    tui_canvas_printf(c, y, r.x + 1, TUI_ST(0, 0), r.w - 2,
                      "%d of %d questions answered %s score %.1f of %.1f (%.0f%%)", m->answered,
                      m->questions, tui_glyph(cs, "·", "-"), m->score, m->max,
                      m->max > 0 ? 100 * m->score / m->max : 0);
    y++;
    char line[200];
    if (m->n_rated == 0)
        snprintf(line, sizeof line,
                 "No self-assessment yet: press s to rate yourself on the rubric.");
    else if (m->n_compared > 0)
        snprintf(line, sizeof line,
                 "Self-rated %.1f, graded %.1f of %.0f on the %d item%s you answered: %s",
                 m->self_compared, m->graded_compared, m->max_compared, m->n_compared,
                 m->n_compared == 1 ? "" : "s", m->calibration ? m->calibration : "");
    else
        snprintf(line, sizeof line, "Self-rating %.1f / 100%s%s; answer questions to compare it",
                 m->self_total, m->self_level ? ", " : "", m->self_level ? m->self_level : "");
    tui_canvas_put_cut(c, y, r.x + 1, line, TUI_ST(0, m->n_rated ? 0 : TUI_C_MUTED), r.w - 2);
    y++;
rate:
    /* Tabs. */
    static const char *const tabs[] = {"lessons", "topics", "rubric", "questions", "study next"};
    x = r.x + 1;
    for (int i = 0; i < TUI_PROG_TABS; i++) {
        char t[32];
        snprintf(t, sizeof t, " %d %s ", i + 1, tabs[i]);
        bool on = i == m->tab;
        x += tui_canvas_put(c, y, x, t,
                            TUI_ST(on ? TUI_A_REVERSE | TUI_A_BOLD : 0, on ? 0 : TUI_C_MUTED), -1) +
             1;
    }
    y++;
    struct tui_rect lr = {y, r.x, r.y + r.h - y, r.w};
    switch (m->tab) {
    case TUI_PROG_LESSONS:
        draw_list(m, c, lr, &m->lessons);
        break;
    case TUI_PROG_TOPICS:
        draw_list(m, c, lr, &m->topics);
        break;
    case TUI_PROG_RUBRIC:
        draw_items(m, c, lr);
        break;
    case TUI_PROG_QUESTIONS:
        draw_questions(m, c, lr);
        break;
    default:
        draw_study(m, c, lr);
        break;
    }
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
    A_CANCEL,
    A_T4,
    A_T5,
    A_OPEN,
    A_MISTAKES
};

static const struct tui_binding keys_view[] = {
    {TUI_K_TAB, 0, A_TAB, "Tab", "next tab", "next tab (1-5 pick one)"},
    {TUI_K_BTAB, 0, A_BTAB, "S-Tab", NULL, "previous tab"},
    {'1', 0, A_T1, "1", NULL, "per lesson"},
    {'2', 0, A_T2, "2", NULL, "per topic"},
    {'3', 0, A_T3, "3", NULL, "per course rubric item"},
    {'4', 0, A_T4, "4", NULL, "every question answered or given up on"},
    {'5', 0, A_T5, "5", NULL, "what to study next"},
    {TUI_K_DOWN, 'j', A_DOWN, "j/Down", "move", "next row"},
    {TUI_K_UP, 'k', A_UP, "k/Up", NULL, "previous row"},
    {TUI_K_PGDN, ' ', A_PGDN, "PgDn", NULL, "a page down"},
    {TUI_K_PGUP, 0, A_PGUP, "PgUp", NULL, "a page up"},
    {TUI_K_ENTER, 0, A_OPEN, "Enter", "open", "open the lesson, question or topic of the row"},
    {'m', 0, A_MISTAKES, "m", "mistakes", "questions to review: wrong, given up, missed"},
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
    struct db_question *qs = NULL;
    size_t nl = 0, nq = 0;
    struct lesson_standing s;
    memset(&s, 0, sizeof s);
    int tab = p->m.tab;
    size_t top = p->m.top, sel = p->m.sel;
    tui_progress_model_fini(&p->m);
    p->m.tab = tab;
    p->m.top = top;
    p->m.sel = sel;
    if (lesson_progress_load(a->db, a->user_id, NULL, &rows, &nr, &e) != CORE_OK ||
        db_lesson_list(a->db, NULL, &ls, &nl, &e) != CORE_OK ||
        db_question_list(a->db, NULL, NULL, &qs, &nq, &e) != CORE_OK ||
        lesson_standing_load(a->db, a->user_id, NULL, &s, &e) != CORE_OK) {
        tui_app_msg(a, true, "%s", e.msg);
        goto out;
    }
    tui_progress_tally(&p->m, rows, nr, ls, nl);
    tui_progress_questions(&p->m, rows, nr, qs, nq, ls, nl);
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
        it->graded_answered = is->graded_answered;
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
    p->m.study_keys = core_xcalloc(s.n_study ? s.n_study : 1, sizeof *p->m.study_keys);
    for (size_t i = 0; i < s.n_study; i++) {
        const struct lesson_study *sd = &s.study[i];
        const char *title = sd->lesson_id;
        for (size_t k = 0; k < nl; k++)
            if (strcmp(ls[k].pack_id, sd->pack_id) == 0 && strcmp(ls[k].id, sd->lesson_id) == 0)
                title = ls[k].title;
        p->m.study_keys[p->m.n_study] = core_xasprintf("%s:%s", sd->pack_id, sd->lesson_id);
        if (sd->lost > 0)
            p->m.study[p->m.n_study++] = core_xasprintf(
                "%s: your answers lost %.1f point%s on %d question%s%s (m lists them)", title,
                sd->lost, fabs(sd->lost - 1) < 0.05 ? "" : "s", sd->missed,
                sd->missed == 1 ? "" : "s", sd->exam ? " of the exam" : "");
        else
            p->m.study[p->m.n_study++] =
                core_xasprintf("%s: up to %.1f more points%s%s", title, sd->unearned,
                               sd->item ? ", mostly " : "", sd->item ? sd->item->title : "");
    }
out:
    lesson_standing_fini(&s);
    db_progress_free(rows, nr);
    db_lessons_free(ls, nl);
    db_questions_free(qs, nq);
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

/* Enter: what the selected row names. */
static void open_row(struct tui_app *a, struct tui_progress_model *m)
{
    const char *key = NULL;
    if (m->tab == TUI_PROG_LESSONS && m->sel < m->lessons.n)
        key = m->lesson_keys[m->sel];
    else if (m->tab == TUI_PROG_STUDY && m->sel < m->n_study)
        key = m->study_keys[m->sel];
    if (key) {
        const char *colon = strchr(key, ':');
        if (!colon)
            return;
        char *pack = core_xstrndup(key, (size_t)(colon - key));
        struct tui_lesson_arg arg = {pack, colon + 1, NULL, 0};
        tui_app_push(a, "lesson", &arg);
        free(pack);
    } else if (m->tab == TUI_PROG_QUESTIONS && m->sel < m->n_qs) {
        char *qid = core_xasprintf("%s:%s", m->qs[m->sel].pack_id, m->qs[m->sel].id);
        struct tui_question_arg arg = {qid, 1};
        tui_app_push(a, "question", &arg);
        free(qid);
    } else if (m->tab == TUI_PROG_TOPICS && m->sel < m->topics.n) {
        struct tui_search_arg arg = {m->topics.v[m->sel].name};
        tui_app_push(a, "search", &arg);
    } else if (m->tab == TUI_PROG_RUBRIC) {
        tui_app_msg(a, false, "a rubric item sums many questions: 4 lists them, 5 says what next");
    }
}

static void progress_action(struct tui_app *a, void *st, int act)
{
    struct progress *p = st;
    struct tui_progress_model *m = &p->m;
    long page = m->rows > 2 ? m->rows - 1 : 1;
    switch (act) {
    case A_TAB:
        m->tab = (m->tab + 1) % TUI_PROG_TABS;
        m->top = m->sel = 0;
        break;
    case A_BTAB:
        m->tab = (m->tab + TUI_PROG_TABS - 1) % TUI_PROG_TABS;
        m->top = m->sel = 0;
        break;
    case A_T1:
    case A_T2:
    case A_T3:
        m->tab = act - A_T1;
        m->top = m->sel = 0;
        break;
    case A_T4:
    case A_T5:
        m->tab = act == A_T4 ? TUI_PROG_QUESTIONS : TUI_PROG_STUDY;
        m->top = m->sel = 0;
        break;
    case A_UP:
        if (m->rating) {
            if (m->rsel > 0)
                m->rsel--;
        } else if (m->sel > 0) {
            m->sel--;
        }
        break;
    case A_DOWN:
        if (m->rating) {
            if (m->rsel + 1 < m->n_items)
                m->rsel++;
        } else if (m->sel + 1 < tui_progress_rows(m)) {
            m->sel++;
        }
        break;
    case A_PGUP:
        m->sel = m->sel > (size_t)page ? m->sel - (size_t)page : 0;
        break;
    case A_PGDN: {
        size_t n = tui_progress_rows(m);
        m->sel = m->sel + (size_t)page < n ? m->sel + (size_t)page : n ? n - 1 : 0;
        break;
    }
    case A_OPEN:
        open_row(a, m);
        break;
    case A_MISTAKES:
        tui_app_push(a, "mistakes", NULL);
        break;
    case A_RATE:
        m->rating = true;
        m->tab = TUI_PROG_RUBRIC;
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
