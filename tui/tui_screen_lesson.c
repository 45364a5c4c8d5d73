/*
 * tui_screen_lesson.c — the lesson reader: one page of Markdown at a time,
 * rendered (md4c, in tui_md.c) at the window width and scrolled, with the
 * questions and calculators that follow the page listed under it. The page
 * shown is stored per user (db_position_set), so the reader and home's
 * "continue" reopen it.
 */
#include "tui/tui_screen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- model and view ------------------------------------------------------- */

static void lesson_qs_free(struct tui_lesson_model *m)
{
    for (size_t i = 0; i < m->n_qs; i++) {
        free(m->qs[i].qid);
        free(m->qs[i].title);
        free(m->qs[i].kind);
    }
    free(m->qs);
    m->qs = NULL;
    m->n_qs = 0;
}

void tui_lesson_model_fini(struct tui_lesson_model *m)
{
    lesson_qs_free(m);
    free(m->lesson_title);
    free(m->exam_line);
    tui_doc_fini(&m->doc);
    *m = (struct tui_lesson_model){0};
}

bool tui_lesson_q_is_calc(const struct tui_lesson_q *q)
{
    return q->kind && strcmp(q->kind, TUI_LESSON_CALC) == 0;
}

int tui_lesson_doc_width(int w)
{
    int d = w - 4;
    return d > 100 ? 100 : d < 10 ? 10 : d;
}

#define QROWS_MAX 5

void tui_view_lesson(struct tui_lesson_model *m, struct tui_canvas *c, struct tui_rect r)
{
    const enum tui_charset cs = c->cs;
    char pg[48];
    int qrows = m->n_qs == 0 ? 0 : 1 + (int)(m->n_qs < QROWS_MAX ? m->n_qs : QROWS_MAX);
    int erow = m->exam_line ? 1 : 0;
    int rows = r.h - 1 - erow - qrows;
    if (rows < 1)
        rows = 1;
    m->doc_rows = rows;
    size_t max_top = m->doc.n > (size_t)rows ? m->doc.n - (size_t)rows : 0;
    if (m->top > max_top)
        m->top = max_top;
    /* Header: lesson title, page, how far down. */
    if (m->n_pages > 0)
        snprintf(pg, sizeof pg, "page %d/%d%s", m->page + 1, m->n_pages,
                 max_top == 0        ? ""
                 : m->top == 0       ? "  top"
                 : m->top >= max_top ? "  end"
                                     : "");
    else
        snprintf(pg, sizeof pg, "no pages");
    if (max_top > 0 && m->top > 0 && m->top < max_top)
        snprintf(pg + strlen(pg), sizeof pg - strlen(pg), "  %d%%",
                 (int)(100.0 * (double)m->top / (double)max_top));
    int pw = tui_text_width(pg);
    tui_canvas_put(c, r.y, r.x + 1, m->lesson_title ? m->lesson_title : "",
                   TUI_ST(TUI_A_BOLD, TUI_C_ACCENT), r.w - pw - 4);
    tui_canvas_put(c, r.y, r.x + r.w - pw - 1, pg, TUI_ST(0, TUI_C_MUTED), -1);
    /* An exam's state, under the title. */
    if (erow)
        tui_canvas_put(c, r.y + 1, r.x + 1, m->exam_line,
                       TUI_ST(TUI_A_BOLD, m->exam_open ? TUI_C_WARN : TUI_C_GOOD), r.w - 2);
    /* The page. */
    struct tui_rect dr = {r.y + 1 + erow, r.x + 2, rows, r.w - 3};
    if (m->doc.width > 0 && m->doc.width < dr.w)
        dr.w = m->doc.width;
    if (m->n_pages == 0)
        tui_canvas_put(c, dr.y, dr.x, "This lesson has no pages yet.", TUI_ST(0, TUI_C_MUTED),
                       dr.w);
    else
        tui_doc_draw(c, dr, &m->doc, m->top);
    /* "more below" marker on the last text row. */
    if (m->top < max_top)
        tui_canvas_put(c, dr.y + rows - 1, r.x + r.w - 2, tui_glyph(cs, "↓", "v"),
                       TUI_ST(TUI_A_BOLD, TUI_C_MUTED), -1);
    if (!qrows)
        return;
    /* Questions after this page. */
    int y = r.y + 1 + erow + rows + 1;
    tui_canvas_fill(c, (struct tui_rect){y - 1, r.x, 1, r.w}, ' ', TUI_ST(0, 0));
    size_t n_calc = 0;
    for (size_t i = 0; i < m->n_qs; i++)
        n_calc += tui_lesson_q_is_calc(&m->qs[i]);
    const char *head = n_calc == 0         ? "Questions"
                       : n_calc == m->n_qs ? "Calculators"
                                           : "Questions and calculators";
    int hx = tui_canvas_put(c, y - 1, r.x + 1, head, TUI_ST(TUI_A_BOLD, 0), -1);
    tui_canvas_put(c, y - 1, r.x + 2 + hx, "(Tab selects, Enter or 1-9 opens)",
                   TUI_ST(0, TUI_C_MUTED), -1);
    size_t first = 0;
    if (m->qsel >= QROWS_MAX)
        first = m->qsel - QROWS_MAX + 1;
    for (size_t i = first; i < m->n_qs && i < first + QROWS_MAX; i++, y++) {
        const struct tui_lesson_q *q = &m->qs[i];
        bool sel = i == m->qsel;
        uint8_t ra = sel ? TUI_A_REVERSE : 0;
        if (sel)
            tui_canvas_fill(c, (struct tui_rect){y, r.x, 1, r.w}, ' ', TUI_ST(ra, 0));
        const char *mark;
        uint8_t mc;
        if (tui_lesson_q_is_calc(q)) {
            mark = "="; /* a calculator: nothing to answer */
            mc = TUI_C_ACCENT;
        } else if (q->helped) {
            mark = "h"; /* the solution was shown: with help, earns nothing */
            mc = TUI_C_WARN;
        } else if (!q->answered) {
            mark = tui_glyph(cs, "·", ".");
            mc = TUI_C_MUTED;
        } else if (q->hidden) {
            mark = tui_glyph(cs, "•", "*"); /* recorded: graded when the exam is submitted */
            mc = TUI_C_ACCENT;
        } else if (q->points > 0 && q->best >= q->points) {
            mark = tui_glyph(cs, "✓", "+");
            mc = TUI_C_GOOD;
        } else if (q->best > 0) {
            mark = "~";
            mc = TUI_C_WARN;
        } else {
            mark = tui_glyph(cs, "✗", "x");
            mc = TUI_C_BAD;
        }
        if (i < 9)
            tui_canvas_printf(c, y, r.x + 1, TUI_ST(ra | TUI_A_BOLD, TUI_C_ACCENT), 2, "%zu",
                              i + 1);
        tui_canvas_put(c, y, r.x + 4, mark, TUI_ST(ra | TUI_A_BOLD, mc), -1);
        tui_canvas_put(c, y, r.x + 6, q->title, TUI_ST(ra, 0), r.w - 30);
        if (tui_lesson_q_is_calc(q)) {
            tui_canvas_put(c, y, r.x + r.w - 22, "calculator", TUI_ST(ra, TUI_C_MUTED), 21);
            continue;
        }
        tui_canvas_put(c, y, r.x + r.w - 22, q->kind, TUI_ST(ra, TUI_C_MUTED), 9);
        char sc[16], pts[16];
        lesson_score_format(q->best, sc, sizeof sc);
        lesson_score_format(q->points, pts, sizeof pts);
        if (q->hidden)
            tui_canvas_put(c, y, r.x + r.w - 12, "recorded", TUI_ST(ra, TUI_C_ACCENT), 11);
        else if (q->helped)
            tui_canvas_printf(c, y, r.x + r.w - 12, TUI_ST(ra, TUI_C_WARN), 11, "help 0/%s", pts);
        else if (q->answered)
            tui_canvas_printf(c, y, r.x + r.w - 12, TUI_ST(ra, 0), 11, "%s/%s pt", sc, pts);
        else
            tui_canvas_printf(c, y, r.x + r.w - 12, TUI_ST(ra, TUI_C_MUTED), 11, "%s pt", pts);
    }
}

/* ---- logic ---------------------------------------------------------------- */

enum {
    A_UP = 1,
    A_DOWN,
    A_PGUP,
    A_PGDN,
    A_TOP,
    A_BOTTOM,
    A_NEXT,
    A_PREV,
    A_QNEXT,
    A_QPREV,
    A_OPEN,
    A_BACK,
    A_SUBMIT,
    A_PROGRESS
};

/* The reader's keys; an exam lesson adds its submit key before q. */
/* clang-format off */
#define READER_KEYS \
    {TUI_K_DOWN, 'j', A_DOWN, "j/Down", "scroll", "scroll down a line"}, \
    {TUI_K_UP, 'k', A_UP, "k/Up", NULL, "scroll up a line"}, \
    {TUI_K_PGDN, ' ', A_PGDN, "Space/PgDn", NULL, "scroll down a screen; at the end, next page"}, \
    {TUI_K_PGUP, 'b', A_PGUP, "b/PgUp", NULL, "scroll up a screen"}, \
    {TUI_K_HOME, 'g', A_TOP, "g/Home", NULL, "top of the page"}, \
    {TUI_K_END, 'G', A_BOTTOM, "G/End", NULL, "end of the page"}, \
    {'n', TUI_K_RIGHT, A_NEXT, "n", "next page", "next page (also Right)"}, \
    {'p', TUI_K_LEFT, A_PREV, "p", "prev", "previous page (also Left)"}, \
    {TUI_K_TAB, 0, A_QNEXT, "Tab", "question", "select the next question or calculator"}, \
    {TUI_K_BTAB, 0, A_QPREV, "S-Tab", NULL, "select the previous one"}, \
    {TUI_K_ENTER, 0, A_OPEN, "Enter", "open", "open the selected question or calculator (1-9)"}
#define BACK_KEY {'q', TUI_K_ESC, A_BACK, "q", "back", "back to the lessons"}
/* clang-format on */

static const struct tui_binding keys[] = {READER_KEYS, BACK_KEY};

static const struct tui_binding keys_exam[] = {
    READER_KEYS,
    {'S', 0, A_SUBMIT, "S", "exam", "start a timed exam / submit the exam (press S twice)"},
    {'P', 0, A_PROGRESS, "P", NULL, "your progress by rubric item (after the exam)"},
    BACK_KEY,
};

struct lesson {
    struct tui_lesson_model m;
    char *pack_id, *lesson_id;
    char *title; /* title bar */
    struct db_page *pages;
    size_t n_pages;
    struct db_question *qs;
    size_t n_q;
    struct lesson_calc *calcs; /* this lesson's (entries borrowed from the session) */
    size_t n_calcs;
    int rendered_w;
    enum tui_charset cs;
    bool exam;           /* an exam lesson */
    bool confirm_submit; /* S was pressed once: the next S submits (or starts) */
    bool needs_start;    /* a timed exam not started yet: S starts its clock */
};

/* The questions shown under page `page`: those that follow it; questions
 * placed before the first page show on it, those past the end on the last. */
static bool on_page(const struct lesson *l, int page_after, int page)
{
    int last = l->n_pages > 0 ? (int)l->n_pages - 1 : 0;
    int at = page_after < 0 ? 0 : page_after > last ? last : page_after;
    return at == page;
}

/* An exam lesson's state line: answered so far and the time left, or
 * once over the score and level. */
static void exam_refresh(struct tui_app *a, struct lesson *l)
{
    free(l->m.exam_line);
    l->m.exam_line = NULL;
    l->m.exam_open = false;
    if (!l->exam)
        return;
    struct core_err e = {0};
    struct lesson_exam x;
    char *name = core_xasprintf("%s:%s", l->pack_id, l->lesson_id);
    int rc = lesson_exam_status(a->sess, name, &x, &e);
    free(name);
    if (rc != CORE_OK) {
        tui_app_msg(a, true, "%s", e.msg);
        return;
    }
    l->m.exam_open = !x.over;
    l->needs_start = !x.started && x.time_limit_s > 0;
    char lim[64] = "", sc[16], mx[16];
    lesson_score_format(x.score, sc, sizeof sc);
    lesson_score_format(x.max, mx, sizeof mx);
    if (x.over) {
        l->m.exam_line = core_xasprintf("exam %s: %s/%s points, level %s (open a question "
                                        "for its feedback)",
                                        x.submitted ? "submitted" : "over (time ran out)", sc, mx,
                                        x.level ? x.level : "?");
    } else {
        if (x.time_limit_s > 0 && x.started)
            snprintf(lim, sizeof lim, ", %d:%02d left", (int)x.seconds_left / 60,
                     (int)x.seconds_left % 60);
        else if (x.time_limit_s > 0) {
            char d[24];
            lesson_duration_format(x.time_limit_s, d, sizeof d);
            snprintf(lim, sizeof lim, "%s", d);
        }
        if (l->needs_start)
            l->m.exam_line = core_xasprintf("timed exam, %s: S starts the clock; one answer "
                                            "each, results when you submit",
                                            lim);
        else
            l->m.exam_line = core_xasprintf("exam: %d of %d answered%s; one answer each, "
                                            "results when you submit (S)",
                                            x.n_answered, x.n_questions, lim);
    }
    lesson_exam_fini(&x);
}

static void fill_questions(struct tui_app *a, struct lesson *l)
{
    char *was = l->m.n_qs ? core_xstrdup(l->m.qs[l->m.qsel].qid) : NULL;
    bool was_calc = l->m.n_qs && tui_lesson_q_is_calc(&l->m.qs[l->m.qsel]);
    lesson_qs_free(&l->m);
    l->m.qsel = 0;
    struct core_err e = {0};
    struct db_progress_row *rows = NULL;
    size_t nr = 0;
    if (lesson_progress_load(a->db, a->user_id, l->pack_id, &rows, &nr, &e) != CORE_OK)
        tui_app_msg(a, true, "%s", e.msg);
    l->m.qs = core_xcalloc(l->n_q + l->n_calcs + 1, sizeof *l->m.qs);
    for (size_t i = 0; i < l->n_q; i++) {
        const struct db_question *q = &l->qs[i];
        if (!on_page(l, q->page_after, l->m.page))
            continue;
        struct tui_lesson_q *o = &l->m.qs[l->m.n_qs++];
        o->qid = core_xasprintf("%s:%s", q->pack_id, q->id);
        o->title = core_xstrdup(q->title ? q->title : q->id);
        o->kind = core_xstrdup(q->kind);
        o->points = q->points;
        for (size_t k = 0; k < nr; k++)
            if (strcmp(rows[k].question_id, q->id) == 0) {
                o->attempts = rows[k].attempts;
                o->best = rows[k].best;
                o->answered = rows[k].answered;
                o->hidden =
                    ((rows[k].exam && !rows[k].exam_over) ||
                     (rows[k].sealed && (!rows[k].has_official || rows[k].official_pending))) &&
                    rows[k].answered;
                enum lesson_help h = lesson_help_of(&rows[k]);
                o->helped = h == LESSON_HELP_AFTER || h == LESSON_HELP_UNANSWERED;
            }
        if (was && !was_calc && strcmp(was, o->qid) == 0)
            l->m.qsel = l->m.n_qs - 1;
    }
    for (size_t i = 0; i < l->n_calcs; i++) {
        const struct grader_calc *gc = l->calcs[i].calc;
        if (!on_page(l, gc->page_after, l->m.page))
            continue;
        struct tui_lesson_q *o = &l->m.qs[l->m.n_qs++];
        o->qid = core_xasprintf("%s:%s", l->calcs[i].pack_id, gc->id);
        o->title = core_xstrdup(gc->title && gc->title[0] ? gc->title : gc->id);
        o->kind = core_xstrdup(TUI_LESSON_CALC);
        if (was && was_calc && strcmp(was, o->qid) == 0)
            l->m.qsel = l->m.n_qs - 1;
    }
    free(was);
    db_progress_free(rows, nr);
    exam_refresh(a, l);
}

static void save_position(struct tui_app *a, struct lesson *l, const char *qid)
{
    struct core_err e = {0};
    /* The store keeps the bare question id. */
    const char *bare = qid ? strchr(qid, ':') : NULL;
    if (db_position_set(a->db, a->user_id, l->pack_id, l->lesson_id, l->m.page,
                        bare ? bare + 1 : qid, &e) != CORE_OK)
        tui_app_msg(a, true, "%s", e.msg);
}

static void show_page(struct tui_app *a, struct lesson *l, int page)
{
    if (page < 0 || (l->n_pages > 0 && page >= (int)l->n_pages))
        return;
    l->m.page = page;
    l->m.top = 0;
    l->rendered_w = -1;
    fill_questions(a, l);
    save_position(a, l, NULL);
}

static void *lesson_enter(struct tui_app *a, const void *arg)
{
    const struct tui_lesson_arg *la = arg;
    struct core_err e = {0};
    struct lesson *l = core_xcalloc(1, sizeof *l);
    l->pack_id = core_xstrdup(la->pack_id);
    l->lesson_id = core_xstrdup(la->lesson_id);
    l->rendered_w = -1;
    l->cs = a->cs;
    struct db_lesson *ls = NULL;
    size_t nl = 0;
    if (db_page_list(a->db, l->pack_id, l->lesson_id, &l->pages, &l->n_pages, &e) != CORE_OK ||
        db_question_list(a->db, l->pack_id, l->lesson_id, &l->qs, &l->n_q, &e) != CORE_OK ||
        db_lesson_list(a->db, l->pack_id, &ls, &nl, &e) != CORE_OK) {
        tui_app_msg(a, true, "%s", e.msg);
        goto fail;
    }
    for (size_t i = 0; i < nl; i++)
        if (strcmp(ls[i].id, l->lesson_id) == 0) {
            l->m.lesson_title = core_xstrdup(ls[i].title ? ls[i].title : ls[i].id);
            l->exam = ls[i].exam;
        }
    db_lessons_free(ls, nl);
    /* This lesson's calculators; without them the lesson still reads. */
    struct lesson_calc *all = NULL;
    size_t na = 0;
    if (lesson_calc_list(a->db, a->sess, &all, &na, &e) != CORE_OK)
        tui_app_msg(a, true, "calculators: %s", e.msg);
    l->calcs = core_xcalloc(na ? na : 1, sizeof *l->calcs);
    for (size_t i = 0; i < na; i++)
        if (strcmp(all[i].pack_id, l->pack_id) == 0 && strcmp(all[i].lesson_id, l->lesson_id) == 0)
            l->calcs[l->n_calcs++] = all[i];
    free(all);
    if (!l->m.lesson_title)
        l->m.lesson_title = core_xstrdup(l->lesson_id);
    l->title = core_xstrdup(l->m.lesson_title);
    l->m.n_pages = (int)l->n_pages;
    int page = 0;
    struct db_position pos = {0};
    if (db_position_get(a->db, a->user_id, l->pack_id, l->lesson_id, &pos, &e) == CORE_OK)
        page = pos.page;
    db_position_fini(&pos);
    if (la->page > 0) /* opened at a page (a search hit, a formula) */
        page = la->page - 1;
    if (page >= (int)l->n_pages)
        page = l->n_pages > 0 ? (int)l->n_pages - 1 : 0;
    l->m.page = page;
    fill_questions(a, l);
    save_position(a, l, NULL);
    if (la->question_id)
        for (size_t i = 0; i < l->m.n_qs; i++)
            if (!tui_lesson_q_is_calc(&l->m.qs[i]) && strcmp(l->m.qs[i].qid, la->question_id) == 0)
                l->m.qsel = i;
    return l;
fail:
    free(l->calcs);
    db_pages_free(l->pages, l->n_pages);
    db_questions_free(l->qs, l->n_q);
    free(l->pack_id);
    free(l->lesson_id);
    tui_lesson_model_fini(&l->m);
    free(l);
    return NULL;
}

static void lesson_leave(struct tui_app *a, void *st)
{
    struct lesson *l = st;
    free(l->calcs);
    db_pages_free(l->pages, l->n_pages);
    db_questions_free(l->qs, l->n_q);
    free(l->pack_id);
    free(l->lesson_id);
    free(l->title);
    tui_lesson_model_fini(&l->m);
    free(l);
}

static void lesson_resume(struct tui_app *a, void *st)
{
    struct lesson *l = st;
    fill_questions(a, l);
    save_position(a, l, NULL);
}

static void open_question(struct tui_app *a, struct lesson *l, size_t i)
{
    if (i >= l->m.n_qs)
        return;
    l->m.qsel = i;
    if (tui_lesson_q_is_calc(&l->m.qs[i])) {
        struct tui_calc_arg ca = {l->m.qs[i].qid};
        tui_app_push(a, "calc", &ca);
        return;
    }
    save_position(a, l, l->m.qs[i].qid);
    struct tui_question_arg qa = {l->m.qs[i].qid, 1};
    tui_app_push(a, "question", &qa);
}

static bool lesson_key(struct tui_app *a, void *st, int key)
{
    struct lesson *l = st;
    if (key >= '1' && key <= '9') {
        size_t i = (size_t)(key - '1');
        if (i < l->m.n_qs)
            open_question(a, l, i);
        else if (l->m.n_qs == 0)
            tui_app_msg(a, false, "nothing to open after this page");
        else
            tui_app_msg(a, false, "this page lists %zu to open: 1-%zu", l->m.n_qs, l->m.n_qs);
        return true;
    }
    return false;
}

static void scroll(struct lesson *l, long d)
{
    long t = (long)l->m.top + d;
    l->m.top = t < 0 ? 0 : (size_t)t; /* the view clamps the bottom */
}

static void lesson_action(struct tui_app *a, void *st, int act)
{
    struct lesson *l = st;
    int page_rows = l->m.doc_rows > 2 ? l->m.doc_rows - 2 : 1;
    bool confirm = l->confirm_submit;
    l->confirm_submit = false;
    switch (act) {
    case A_DOWN:
        scroll(l, 1);
        break;
    case A_UP:
        scroll(l, -1);
        break;
    case A_PGDN: {
        /* At the end of the page already: on to the next page. */
        size_t rows = l->m.doc_rows > 0 ? (size_t)l->m.doc_rows : 1;
        size_t max_top = l->m.doc.n > rows ? l->m.doc.n - rows : 0;
        if (l->m.top >= max_top && l->m.page + 1 < (int)l->n_pages) {
            show_page(a, l, l->m.page + 1);
            tui_app_msg(a, false, "page %d of %zu", l->m.page + 1, l->n_pages);
        } else if (l->m.top >= max_top) {
            tui_app_msg(a, false, "end of the lesson");
        } else {
            scroll(l, page_rows);
        }
        break;
    }
    case A_PGUP:
        scroll(l, -page_rows);
        break;
    case A_TOP:
        l->m.top = 0;
        break;
    case A_BOTTOM:
        l->m.top = (size_t)-1 / 2;
        break;
    case A_NEXT:
        if (l->m.page + 1 < (int)l->n_pages)
            show_page(a, l, l->m.page + 1);
        else
            tui_app_msg(a, false, "last page of this lesson");
        break;
    case A_PREV:
        if (l->m.page > 0)
            show_page(a, l, l->m.page - 1);
        else
            tui_app_msg(a, false, "first page of this lesson");
        break;
    case A_QNEXT:
        if (l->m.n_qs)
            l->m.qsel = (l->m.qsel + 1) % l->m.n_qs;
        break;
    case A_QPREV:
        if (l->m.n_qs)
            l->m.qsel = (l->m.qsel + l->m.n_qs - 1) % l->m.n_qs;
        break;
    case A_OPEN:
        if (l->m.n_qs)
            open_question(a, l, l->m.qsel);
        else
            tui_app_msg(a, false, "nothing to open after this page; n for the next page");
        break;
    case A_BACK:
        tui_app_pop(a);
        break;
    case A_PROGRESS:
        tui_app_push(a, "progress", NULL);
        break;
    case A_SUBMIT:
        if (!l->exam)
            break;
        if (!l->m.exam_open) {
            tui_app_msg(a, false, "this exam is over: its results are above");
        } else if (l->needs_start && !confirm) {
            l->confirm_submit = true;
            tui_app_msg(a, false, "start the exam's clock now? Press S again to start");
        } else if (l->needs_start) {
            struct core_err e = {0};
            struct lesson_exam x;
            char *name = core_xasprintf("%s:%s", l->pack_id, l->lesson_id);
            if (lesson_exam_start(a->sess, name, &x, &e) != CORE_OK)
                tui_app_msg(a, true, "%s", e.msg);
            else
                tui_app_msg(a, false, "started: the clock runs; S submits when you are done");
            lesson_exam_fini(&x);
            free(name);
            fill_questions(a, l);
        } else if (!confirm) {
            l->confirm_submit = true;
            tui_app_msg(a, false, "submit the exam? Answers are final then: S again submits");
        } else {
            struct core_err e = {0};
            struct lesson_exam x;
            char *name = core_xasprintf("%s:%s", l->pack_id, l->lesson_id);
            if (lesson_exam_submit(a->sess, name, &x, &e) != CORE_OK) {
                tui_app_msg(a, true, "%s", e.msg);
            } else {
                char sc[16], mx[16];
                lesson_score_format(x.score, sc, sizeof sc);
                lesson_score_format(x.max, mx, sizeof mx);
                tui_app_msg(a, false, "submitted: %s/%s points, level %s (P: progress by item)", sc,
                            mx, x.level ? x.level : "?");
                lesson_exam_fini(&x);
            }
            free(name);
            fill_questions(a, l);
        }
        break;
    }
}

static struct tui_keymap lesson_keys(const void *st)
{
    const struct lesson *l = st;
    return l->exam ? TUI_KEYMAP(keys_exam) : TUI_KEYMAP(keys);
}

static const char *lesson_title(const void *st)
{
    const struct lesson *l = st;
    return l->title;
}

static void lesson_draw(struct tui_app *a, void *st, struct tui_canvas *c, struct tui_rect r,
                        struct tui_cursor *cur)
{
    struct lesson *l = st;
    int w = tui_lesson_doc_width(r.w);
    if (w != l->rendered_w && l->n_pages > 0) {
        /* Re-wrap at the new width; keep roughly the same place. */
        double at = l->m.doc.n ? (double)l->m.top / (double)l->m.doc.n : 0;
        tui_doc_fini(&l->m.doc);
        tui_md_render(l->pages[l->m.page].markdown, w, c->cs, &l->m.doc);
        l->m.top = l->rendered_w < 0 ? l->m.top : (size_t)(at * (double)l->m.doc.n);
        l->rendered_w = w;
    }
    tui_view_lesson(&l->m, c, r);
}

const struct tui_screen tui_screen_lesson = {
    .name = "lesson",
    .enter = lesson_enter,
    .leave = lesson_leave,
    .resume = lesson_resume,
    .on_key = lesson_key,
    .on_action = lesson_action,
    .keymap = lesson_keys,
    .title = lesson_title,
    .draw = lesson_draw,
};
