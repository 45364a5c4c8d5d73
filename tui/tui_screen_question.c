/*
 * tui_screen_question.c — one question: the prompt with this student's
 * numbers, an answer entry fit for the kind (a line, a pick list, an
 * ordering list, a multi-line editor), grading on Enter with score and
 * feedback at once, hints one at a time, giving up, the attempt history,
 * self-scoring on the rubric before a design answer's automatic score, and
 * a certainty prompt (1-3) for packs with certainty-based marking.
 */
#include "tui/tui_screen.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KEY_CTRL_G 7

/* ---- model ---------------------------------------------------------------- */

static void strv_free(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

static void attempts_free(struct tui_question_model *m)
{
    for (size_t i = 0; i < m->n_attempts; i++) {
        free(m->attempts[i].answer);
        free(m->attempts[i].when);
    }
    free(m->attempts);
    m->attempts = NULL;
    m->n_attempts = 0;
}

static void result_free(struct tui_question_model *m)
{
    free(m->parsed);
    free(m->feedback);
    free(m->accepted);
    free(m->reference);
    free(m->tries_line);
    m->parsed = m->feedback = m->accepted = m->reference = m->tries_line = NULL;
    m->hidden = false;
}

void tui_question_model_fini(struct tui_question_model *m)
{
    free(m->qid);
    free(m->title);
    free(m->kind_name);
    free(m->prompt);
    free(m->unit_hint);
    free(m->needs_lab);
    strv_free(m->choices, m->n_choices);
    free(m->picked);
    free(m->order);
    strv_free(m->hints, m->n_hints);
    tui_input_fini(&m->input);
    tui_editor_fini(&m->editor);
    strv_free(m->rubric, m->n_rubric);
    free(m->rubric_points);
    free(m->self);
    result_free(m);
    attempts_free(m);
    free(m->policy_line);
    *m = (struct tui_question_model){0};
}

bool tui_question_locked(const struct tui_question_model *m)
{
    /* An exam allows one readable answer: once given, its one try is used
     * and the question is closed like any other (an unreadable one is not
     * a try). */
    return m->closed;
}

char *tui_question_pick_answer(const struct tui_question_model *m)
{
    struct core_buf b;
    core_buf_init(&b);
    for (size_t i = 0; i < m->n_choices && i < 26; i++) {
        size_t k = i;
        if (m->kind == TUI_QK_ORDER)
            k = m->order[i];
        else if (!m->picked[i])
            continue;
        if (b.len)
            core_buf_putc(&b, ' ');
        core_buf_putc(&b, (char)('a' + k));
    }
    return core_buf_steal(&b);
}

/* ---- view ----------------------------------------------------------------- */

/* Rows are laid out on a virtual sheet scrolled by `top`; a dry pass only
 * measures, so the screen can keep the answer area in view. */
struct sheet {
    struct tui_canvas *c;
    struct tui_rect r;
    long top, y;
    bool dry;
};

static bool row_visible(const struct sheet *s, long y)
{
    return !s->dry && y >= s->top && y < s->top + s->r.h;
}

static int sy(const struct sheet *s, long y)
{
    return s->r.y + (int)(y - s->top);
}

static void put(struct sheet *s, int x, const char *text, struct tui_style st, int max_w)
{
    if (row_visible(s, s->y))
        tui_canvas_put(s->c, sy(s, s->y), s->r.x + x, text, st, max_w);
}

static void wrapped(struct sheet *s, int x, const char *text, struct tui_style st)
{
    if (!text)
        return;
    struct core_strlist l;
    core_strlist_init(&l);
    tui_text_wrap(text, s->r.w - x - 1, &l);
    for (size_t i = 0; i < l.n; i++, s->y++)
        put(s, x, l.items[i], st, s->r.w - x - 1);
    core_strlist_fini(&l);
}

/* "label: text" with the text wrapped under itself. */
static void labelled(struct sheet *s, int x, const char *label, struct tui_style lst,
                     const char *text, struct tui_style tst)
{
    int lw = tui_text_width(label) + 1;
    put(s, x, label, lst, -1);
    if (!text || !text[0]) {
        s->y++;
        return;
    }
    struct core_strlist l;
    core_strlist_init(&l);
    tui_text_wrap(text, s->r.w - x - lw - 1, &l);
    for (size_t i = 0; i < l.n; i++, s->y++)
        put(s, x + lw, l.items[i], tst, s->r.w - x - lw - 1);
    core_strlist_fini(&l);
}

static void draw_choices(struct sheet *s, struct tui_question_model *m)
{
    const enum tui_charset cs = s->c->cs;
    bool active = m->mode == TUI_Q_PICK;
    for (size_t i = 0; i < m->n_choices; i++) {
        size_t k = m->kind == TUI_QK_ORDER ? m->order[i] : i;
        bool sel = active && i == m->csel;
        uint8_t ra = sel ? TUI_A_REVERSE : 0;
        char mark[32];
        if (m->kind == TUI_QK_CHOICE)
            snprintf(mark, sizeof mark, "%s", m->picked[i] ? tui_glyph(cs, "(•)", "(*)") : "( )");
        else if (m->kind == TUI_QK_MULTI)
            snprintf(mark, sizeof mark, "%s", m->picked[i] ? "[x]" : "[ ]");
        else
            snprintf(mark, sizeof mark, "%zu.", i + 1);
        char letter[8];
        snprintf(letter, sizeof letter, "%c)", k < 26 ? (char)('a' + k) : '?');
        struct core_strlist l;
        core_strlist_init(&l);
        int tx = 12;
        tui_text_wrap(m->choices[k], s->r.w - tx - 2, &l);
        for (size_t j = 0; j < (l.n ? l.n : 1); j++, s->y++) {
            if (row_visible(s, s->y) && sel)
                tui_canvas_fill(s->c, (struct tui_rect){sy(s, s->y), s->r.x + 1, 1, s->r.w - 2},
                                ' ', TUI_ST(ra, 0));
            if (j == 0) {
                if (sel)
                    put(s, 1, m->holding ? tui_glyph(cs, "↕", "=") : tui_glyph(cs, "▶", ">"),
                        TUI_ST(ra | TUI_A_BOLD, TUI_C_ACCENT), -1);
                put(s, 3, mark,
                    TUI_ST(ra | TUI_A_BOLD, m->picked && m->picked[i] ? TUI_C_ACCENT : 0), -1);
                put(s, 8, letter, TUI_ST(ra | TUI_A_BOLD, 0), -1);
            }
            if (l.n)
                put(s, tx, l.items[j], TUI_ST(ra, 0), s->r.w - tx - 2);
        }
        core_strlist_fini(&l);
    }
}

static void draw_rubric(struct sheet *s, struct tui_question_model *m)
{
    bool active = m->mode == TUI_Q_RUBRIC;
    put(s, 1,
        active ? "Score your answer on each point before you see the grade:" : "Your self-scores:",
        TUI_ST(TUI_A_BOLD, 0), -1);
    s->y++;
    for (size_t i = 0; i < m->n_rubric; i++, s->y++) {
        bool sel = active && i == m->rsel;
        uint8_t ra = sel ? TUI_A_REVERSE : 0;
        if (row_visible(s, s->y) && sel)
            tui_canvas_fill(s->c, (struct tui_rect){sy(s, s->y), s->r.x + 1, 1, s->r.w - 2}, ' ',
                            TUI_ST(ra, 0));
        char sc[32];
        snprintf(sc, sizeof sc, "%4g / %g", m->self[i], m->rubric_points[i]);
        put(s, 3, sc, TUI_ST(ra | TUI_A_BOLD, TUI_C_ACCENT), -1);
        put(s, 16, m->rubric[i], TUI_ST(ra, 0), s->r.w - 18);
    }
}

static void draw_result(struct sheet *s, struct tui_question_model *m)
{
    const enum tui_charset cs = s->c->cs;
    if (m->has_result && m->hidden) {
        char head[200];
        snprintf(head, sizeof head, "%s recorded%s%s", tui_glyph(cs, "•", "*"),
                 m->parsed ? " - you answered " : "", m->parsed ? m->parsed : "");
        put(s, 1, head, TUI_ST(TUI_A_BOLD, TUI_C_ACCENT), s->r.w - 2);
        s->y++;
        wrapped(s, 3, m->feedback, TUI_ST(0, TUI_C_MUTED));
        return;
    }
    if (m->has_result) {
        char head[160];
        uint8_t col;
        if (!m->valid) {
            snprintf(head, sizeof head, "? could not read that answer (not scored, not counted)");
            col = TUI_C_WARN;
        } else {
            const char *verdict = m->correct     ? tui_glyph(cs, "✓ correct", "+ correct")
                                  : m->score > 0 ? "~ partly right"
                                                 : tui_glyph(cs, "✗ not right", "x not right");
            char sc[32], mx[32];
            lesson_score_format(m->score, sc, sizeof sc);
            lesson_score_format(m->max, mx, sizeof mx);
            snprintf(head, sizeof head, "%s%s %s/%s point%s", verdict,
                     m->after_giveup ? " (after your give-up: earns nothing):" : ":", sc, mx,
                     m->max == 1 ? "" : "s");
            col = m->correct ? TUI_C_GOOD : m->score > 0 ? TUI_C_WARN : TUI_C_BAD;
        }
        put(s, 1, head, TUI_ST(TUI_A_BOLD, col), s->r.w - 2);
        if (m->valid && m->parsed && m->parsed[0]) {
            int hw = tui_text_width(head) + 1;
            char yours[200];
            snprintf(yours, sizeof yours, "%s you answered %s", tui_glyph(cs, "—", "-"), m->parsed);
            put(s, 1 + hw, yours, TUI_ST(0, TUI_C_MUTED), s->r.w - 2 - hw);
        }
        s->y++;
        if (m->kind == TUI_QK_DESIGN && m->self_done && m->n_rubric && m->valid) {
            double self = 0, smax = 0;
            for (size_t i = 0; i < m->n_rubric; i++) {
                self += m->self[i];
                smax += m->rubric_points[i];
            }
            char line[160], a[32], b[32];
            lesson_score_format(self, a, sizeof a);
            lesson_score_format(smax, b, sizeof b);
            snprintf(line, sizeof line, "you scored yourself %s/%s (%.0f%%); the grader %.0f%%", a,
                     b, smax > 0 ? 100 * self / smax : 0, m->max > 0 ? 100 * m->score / m->max : 0);
            put(s, 3, line, TUI_ST(0, TUI_C_ACCENT), s->r.w - 4);
            s->y++;
        }
        if (m->cbm && m->certainty && m->valid) {
            char line[96], mk[32], of[32];
            lesson_score_format(m->cbm_mark, mk, sizeof mk);
            lesson_score_format(3 * m->max, of, sizeof of);
            snprintf(line, sizeof line, "certainty %d: mark %s%s (of %s)", m->certainty,
                     m->cbm_mark > 0 && strcmp(mk, "0") != 0 ? "+" : "", mk, of);
            put(s, 3, line, TUI_ST(0, m->cbm_mark < 0 ? TUI_C_BAD : TUI_C_GOOD), -1);
            s->y++;
        }
        if (m->feedback && m->feedback[0])
            wrapped(s, 3, m->feedback, TUI_ST(0, 0));
        if (m->tries_line)
            wrapped(s, 3, m->tries_line, TUI_ST(TUI_A_BOLD, m->closed ? TUI_C_WARN : 0));
    }
    bool solution = m->gave_up || (m->closed && !m->exam_open);
    if ((m->correct || solution) && m->accepted) {
        labelled(s, 3, "accepted:", TUI_ST(TUI_A_BOLD, 0), m->accepted, TUI_ST(0, TUI_C_GOOD));
    }
    if (solution && m->reference) {
        labelled(s, 3, "solution:", TUI_ST(TUI_A_BOLD, 0), m->reference, TUI_ST(0, 0));
    }
    /* The way there: every hint, from the nudge to the method. */
    if (solution && m->n_hints) {
        put(s, 3, "how to get there:", TUI_ST(TUI_A_BOLD, 0), -1);
        s->y++;
        for (size_t i = 0; i < m->n_hints; i++) {
            char no[24];
            snprintf(no, sizeof no, "%zu.", i + 1);
            labelled(s, 5, no, TUI_ST(0, TUI_C_MUTED), m->hints[i], TUI_ST(0, 0));
        }
    }
}

static void draw_attempts(struct sheet *s, struct tui_question_model *m)
{
    const enum tui_charset cs = s->c->cs;
    if (m->n_attempts == 0)
        return;
    s->y++;
    char head[96];
    if (m->n_giveups)
        snprintf(head, sizeof head, "Attempts (%zu) %s gave up %zu time%s", m->n_attempts,
                 tui_glyph(cs, "·", "-"), m->n_giveups, m->n_giveups == 1 ? "" : "s");
    else
        snprintf(head, sizeof head, "Attempts (%zu)", m->n_attempts);
    put(s, 1, head, TUI_ST(TUI_A_BOLD, TUI_C_MUTED), -1);
    s->y++;
    size_t shown = 0;
    for (size_t i = m->n_attempts; i-- > 0 && shown < 5; shown++, s->y++) {
        const struct tui_q_attempt *at = &m->attempts[i];
        const char *mark = !at->valid      ? "?"
                           : at->correct   ? tui_glyph(cs, "✓", "+")
                           : at->score > 0 ? "~"
                                           : tui_glyph(cs, "✗", "x");
        uint8_t col = !at->valid      ? TUI_C_WARN
                      : at->correct   ? TUI_C_GOOD
                      : at->score > 0 ? TUI_C_WARN
                                      : TUI_C_BAD;
        char no[24], sc[32], a1[16], a2[16];
        snprintf(no, sizeof no, "#%zu", i + 1);
        lesson_score_format(at->score, a1, sizeof a1);
        lesson_score_format(at->max, a2, sizeof a2);
        if (!at->valid)
            snprintf(sc, sizeof sc, "unread");
        else if (at->hidden)
            snprintf(sc, sizeof sc, "recorded");
        else
            snprintf(sc, sizeof sc, "%s/%s", a1, a2);
        if (at->hidden) {
            mark = tui_glyph(cs, "•", "*");
            col = TUI_C_ACCENT;
        }
        put(s, 3, no, TUI_ST(0, TUI_C_MUTED), -1);
        put(s, 8, mark, TUI_ST(TUI_A_BOLD, col), -1);
        put(s, 10, sc, TUI_ST(0, col), 9);
        put(s, 20, at->when ? at->when : "", TUI_ST(0, TUI_C_MUTED), 17);
        /* One line of the answer (design answers span lines). */
        char *one = core_xasprintf("%s%s", at->after_giveup ? "(after give-up) " : "",
                                   at->answer ? at->answer : "");
        for (char *p = one; *p; p++)
            if (*p == '\n' || *p == '\t')
                *p = ' ';
        put(s, 38, one, TUI_ST(0, at->after_giveup ? TUI_C_MUTED : 0), s->r.w - 39);
        free(one);
    }
    if (m->n_attempts > shown) {
        char more[48];
        snprintf(more, sizeof more, "... %zu earlier", m->n_attempts - shown);
        put(s, 3, more, TUI_ST(0, TUI_C_MUTED), -1);
        s->y++;
    }
}

/* One line under the answer area saying which mode the keys are in, so a
 * letter typed is never a surprise: typing (letters are the answer),
 * commands (letters are commands), picking, or the give-up question. */
static void draw_mode_line(struct sheet *s, struct tui_question_model *m, bool locked)
{
    const enum tui_charset cs = s->c->cs;
    const char *dot = tui_glyph(cs, "·", "-");
    char line[240];
    struct tui_style st = TUI_ST(0, TUI_C_MUTED);
    const char *variant =
        m->has_params ? (locked ? " v new variant (practice)" : " v new variant") : "";
    switch (m->mode) {
    case TUI_Q_CONFIRM:
        snprintf(line, sizeof line,
                 "give up and see the solution? y/n (after a give-up, answers earn nothing)");
        st = TUI_ST(TUI_A_BOLD | TUI_A_REVERSE, TUI_C_WARN);
        break;
    case TUI_Q_TYPE:
        snprintf(line, sizeof line,
                 "%s typing: Enter grades, Tab for commands (hint, give up, next)",
                 tui_glyph(cs, "✎", ">"));
        break;
    case TUI_Q_PICK:
        snprintf(line, sizeof line,
                 "picking: Space picks, Enter grades %s h hint %s g give up %s "
                 "n next",
                 dot, dot, dot);
        break;
    case TUI_Q_KEYS:
        if (locked)
            snprintf(line, sizeof line, "commands: n next question %s N next unanswered%s%s", dot,
                     *variant ? " " : "", *variant ? dot : "");
        else
            snprintf(line, sizeof line,
                     "commands: %s type %s h hint %s g give up %s n next %s N "
                     "unanswered%s%s",
                     m->kind == TUI_QK_DESIGN ? "e" : "i", dot, dot, dot, dot, *variant ? " " : "",
                     *variant ? dot : "");
        if (*variant)
            snprintf(line + strlen(line), sizeof line - strlen(line), "%s", variant);
        break;
    default:
        return;
    }
    put(s, 1, line, st, s->r.w - 2);
    s->y++;
}

/* Lays the question out; returns the sheet rows of the answer area in
 * [*ans0, *ans1). */
static void layout(struct sheet *s, struct tui_question_model *m, struct tui_cursor *cur,
                   long *ans0, long *ans1)
{
    const enum tui_charset cs = s->c->cs;
    char meta[96];
    snprintf(meta, sizeof meta, "%s %s %g pt%s", m->kind_name ? m->kind_name : "",
             tui_glyph(cs, "·", "-"), m->points, m->points == 1 ? "" : "s");
    if (m->variant > 1)
        snprintf(meta + strlen(meta), sizeof meta - strlen(meta), " %s variant %d",
                 tui_glyph(cs, "·", "-"), m->variant);
    int mw = tui_text_width(meta);
    put(s, 1, m->title ? m->title : m->qid, TUI_ST(TUI_A_BOLD, TUI_C_ACCENT), s->r.w - mw - 4);
    put(s, s->r.w - mw - 1, meta, TUI_ST(0, TUI_C_MUTED), -1);
    s->y += 2;
    wrapped(s, 1, m->prompt, TUI_ST(0, 0));
    if (m->unit_hint)
        wrapped(s, 1, m->unit_hint, TUI_ST(0, TUI_C_MUTED));
    if (m->policy_line)
        wrapped(s, 1, m->policy_line, TUI_ST(0, m->closed ? TUI_C_WARN : TUI_C_MUTED));
    if (m->needs_lab) {
        s->y++;
        labelled(s, 1, "uses your lab run:", TUI_ST(TUI_A_BOLD, TUI_C_WARN), m->needs_lab,
                 TUI_ST(0, TUI_C_WARN));
    }
    for (size_t i = 0; i < m->hints_shown && i < m->n_hints; i++) {
        char lab[32];
        snprintf(lab, sizeof lab, "hint %zu:", i + 1);
        s->y += i == 0;
        labelled(s, 1, lab, TUI_ST(TUI_A_BOLD, TUI_C_WARN), m->hints[i], TUI_ST(0, 0));
    }
    s->y++;
    *ans0 = s->y;
    bool locked = tui_question_locked(m);
    if (m->n_choices && m->kind != TUI_QK_LINE && m->kind != TUI_QK_DESIGN)
        draw_choices(s, m);
    bool line_entry = !locked && (m->kind == TUI_QK_LINE || (m->mode == TUI_Q_TYPE));
    if (locked && m->kind != TUI_QK_DESIGN) {
        /* No answer line to type into: say why instead. */
        if (m->n_choices)
            s->y++;
        put(s, 1, m->exam_open ? "Answered:" : "Closed:", TUI_ST(TUI_A_BOLD, TUI_C_WARN), -1);
        put(s, m->exam_open ? 11 : 9,
            m->exam_open ? "your answer is recorded; it is graded when you submit the exam"
            : m->exam    ? "the exam is over; your grade and the solution are below"
                         : "no tries left; the solution is below",
            TUI_ST(0, TUI_C_WARN), s->r.w - 12);
        s->y++;
    }
    if (line_entry) {
        if (m->n_choices)
            s->y++;
        const char *label = m->kind == TUI_QK_ORDER ? "Order:" : "Answer:";
        put(s, 1, label, TUI_ST(TUI_A_BOLD, 0), -1);
        int x = 2 + tui_text_width(label);
        int w = s->r.w - x - 2;
        bool typing = m->mode == TUI_Q_TYPE;
        if (row_visible(s, s->y)) {
            int col = tui_input_draw(s->c, sy(s, s->y), s->r.x + x, w, &m->input,
                                     TUI_ST(typing ? TUI_A_UNDER : 0, 0));
            if (typing && cur) {
                cur->on = true;
                cur->y = sy(s, s->y);
                cur->x = s->r.x + x + col;
            }
        }
        s->y++;
    }
    if (m->kind == TUI_QK_DESIGN) {
        if (m->mode == TUI_Q_EDIT) {
            /* The editor in a box; the screen scrolls it fully into view. */
            int eh = s->r.h - 8 < 10 ? (s->r.h - 8 < 4 ? 4 : s->r.h - 8) : 10;
            struct tui_rect box = {0, s->r.x + 1, eh + 2, s->r.w - 2};
            if (!s->dry && s->y >= s->top && s->y + eh + 2 <= s->top + s->r.h) {
                box.y = sy(s, s->y);
                tui_canvas_box(s->c, box, "your answer (Ctrl-S submits)",
                               TUI_ST(TUI_A_BOLD, TUI_C_ACCENT));
                struct tui_rect in = {box.y + 1, box.x + 1, eh, box.w - 2};
                struct tui_cursor ec = {0};
                tui_editor_draw(s->c, in, &m->editor, TUI_ST(0, 0), &ec);
                if (cur)
                    *cur = ec;
            }
            s->y += eh + 2;
        } else {
            /* Submitted or set aside: the text as it reads, scrolling with
             * the rest. */
            put(s, 1, "Your answer:", TUI_ST(TUI_A_BOLD, 0), -1);
            s->y++;
            if (m->editor.text.len)
                wrapped(s, 3, m->editor.text.data, TUI_ST(0, 0));
            else {
                put(s, 3, "(empty: Enter to write it)", TUI_ST(0, TUI_C_MUTED), -1);
                s->y++;
            }
        }
        if (m->n_rubric && (m->mode == TUI_Q_RUBRIC || m->self_done)) {
            s->y++;
            draw_rubric(s, m);
        }
    }
    if (m->mode == TUI_Q_CERTAINTY) {
        s->y++;
        put(s, 1, "How sure are you?  1 not sure   2 fairly sure   3 very sure",
            TUI_ST(TUI_A_BOLD, TUI_C_WARN), s->r.w - 2);
        s->y++;
        put(s, 3, "(a sure right answer earns more; a sure wrong one costs)",
            TUI_ST(0, TUI_C_MUTED), s->r.w - 4);
        s->y++;
    }
    draw_mode_line(s, m, locked);
    *ans1 = s->y;
    if (m->has_result || m->gave_up || (m->closed && !m->exam_open)) {
        s->y++;
        draw_result(s, m);
        *ans1 = s->y;
    }
    draw_attempts(s, m);
}

void tui_view_question(struct tui_question_model *m, struct tui_canvas *c, struct tui_rect r,
                       struct tui_cursor *cur)
{
    struct sheet s = {c, r, 0, 0, true};
    long a0, a1;
    layout(&s, m, NULL, &a0, &a1);
    long total = s.y;
    long max_top = total > r.h ? total - r.h : 0;
    if (m->follow) {
        /* Keep the answer area (and the grade under it) in view. */
        long top = (long)m->top;
        if (a1 > top + r.h)
            top = a1 - r.h;
        /* While entering an answer its start wins; after grading, the
         * result's end does. */
        if (a0 < top && m->mode != TUI_Q_KEYS)
            top = a0;
        m->top = top < 0 ? 0 : (size_t)top;
        m->follow = false;
    }
    if ((long)m->top > max_top)
        m->top = (size_t)max_top;
    s = (struct sheet){c, r, (long)m->top, 0, false};
    layout(&s, m, cur, &a0, &a1);
    if ((long)m->top < max_top)
        tui_canvas_put(c, r.y + r.h - 1, r.x + r.w - 2, tui_glyph(c->cs, "↓", "v"),
                       TUI_ST(TUI_A_BOLD, TUI_C_MUTED), -1);
    if (m->top > 0)
        tui_canvas_put(c, r.y, r.x + r.w - 2, tui_glyph(c->cs, "↑", "^"),
                       TUI_ST(TUI_A_BOLD, TUI_C_MUTED), -1);
}

/* ---- logic ---------------------------------------------------------------- */

enum {
    A_GRADE = 1,
    A_KEYS,
    A_TYPE,
    A_BACK,
    A_GIVEUP,
    A_HINT,
    A_UP,
    A_DOWN,
    A_PGUP,
    A_PGDN,
    A_PICK,
    A_MOVE_UP,
    A_MOVE_DOWN,
    A_EDIT,
    A_SUBMIT,
    A_SCORE_UP,
    A_SCORE_DOWN,
    A_CONFIRM,
    A_CANCEL,
    A_CERT1,
    A_CERT2,
    A_CERT3,
    A_LAB,
    A_NEXT,
    A_NEXT_OPEN,
    A_VARIANT,
    A_YES,
    A_NO
};

/* The keys that move on, in every command mode: the next question, the
 * next one not answered yet, a new variant (only listed where the question
 * has one: see question_keys). */
#define NAV_KEYS                                                                                   \
    {'n', 0, A_NEXT, "n", "next", "the next question of the course"},                              \
        {'N', 0, A_NEXT_OPEN, "N", NULL, "the next question you have not answered"},               \
    {                                                                                              \
        'v', 0, A_VARIANT, "v", "new variant", "the same question with new numbers (same tries)"   \
    }
#define N_VARIANT_KEYS 1 /* v is the last row of every table that has NAV_KEYS */

/* Typing: every printable key is the answer's, even after a right answer. */
static const struct tui_binding keys_type[] = {
    {TUI_K_ENTER, 0, A_GRADE, "Enter", "grade", "grade the answer (recorded at once)"},
    {TUI_K_TAB, 0, A_KEYS, "Tab", "commands", "leave the answer line: hint, give up, next"},
    {KEY_CTRL_G, 0, A_GIVEUP, "Ctrl-G", "give up", "give up: asks, then shows the solution"},
    {TUI_K_ESC, 0, A_BACK, "Esc", "back", "back to the lesson"},
    {TUI_K_PGUP, TUI_K_UP, A_PGUP, "PgUp/Up", NULL, "scroll up"},
    {TUI_K_PGDN, TUI_K_DOWN, A_PGDN, "PgDn/Down", NULL, "scroll down"},
};

static const struct tui_binding keys_line[] = {
    {TUI_K_ENTER, 'i', A_TYPE, "i/Enter", "type", "back to the answer line"},
    {'h', 0, A_HINT, "h", "hint", "reveal the next hint"},
    {'g', KEY_CTRL_G, A_GIVEUP, "g", "give up", "give up: asks, then shows the solution"},
    {'k', TUI_K_UP, A_UP, "k/Up", NULL, "scroll up"},
    {'j', TUI_K_DOWN, A_DOWN, "j/Down", NULL, "scroll down"},
    {TUI_K_PGUP, 0, A_PGUP, "PgUp", NULL, "scroll up a screen"},
    {TUI_K_PGDN, ' ', A_PGDN, "PgDn", NULL, "scroll down a screen"},
    {'L', 0, A_LAB, "L", NULL, "run the lab this question uses"},
    {'q', TUI_K_ESC, A_BACK, "q", "back", "back to the lesson"},
    NAV_KEYS,
};

static const struct tui_binding keys_pick[] = {
    {TUI_K_UP, 'k', A_UP, "k/Up", NULL, "previous choice"},
    {TUI_K_DOWN, 'j', A_DOWN, "j/Down", NULL, "next choice"},
    {' ', 0, A_PICK, "Space", "pick", "pick the choice (multi: toggle; ordering: hold and move)"},
    {'K', 0, A_MOVE_UP, "K", NULL, "ordering: move the item up"},
    {'J', 0, A_MOVE_DOWN, "J", NULL, "ordering: move the item down"},
    {TUI_K_ENTER, 0, A_GRADE, "Enter", "grade", "grade the picks (recorded at once)"},
    {'t', 0, A_TYPE, "t", NULL, "type the answer as letters instead"},
    {'h', 0, A_HINT, "h", "hint", "reveal the next hint"},
    {'g', KEY_CTRL_G, A_GIVEUP, "g", "give up", "give up: asks, then shows the solution"},
    {TUI_K_PGUP, 0, A_PGUP, "PgUp", NULL, "scroll up"},
    {TUI_K_PGDN, 0, A_PGDN, "PgDn", NULL, "scroll down"},
    {'L', 0, A_LAB, "L", NULL, "run the lab this question uses"},
    {'q', TUI_K_ESC, A_BACK, "q", "back", "back to the lesson"},
    NAV_KEYS,
};

static const struct tui_binding keys_edit[] = {
    {TUI_K_CTRL_S, TUI_K_CTRL_D, A_SUBMIT, "Ctrl-S", "submit", "submit (Ctrl-D too)"},
    {TUI_K_TAB, TUI_K_ESC, A_KEYS, "Tab/Esc", "commands", "leave the editor: hint, next, back"},
};

static const struct tui_binding keys_design[] = {
    {TUI_K_ENTER, 'e', A_EDIT, "e/Enter", "edit", "back to the editor"},
    {'h', 0, A_HINT, "h", "hint", "reveal the next hint"},
    {'k', TUI_K_UP, A_UP, "k/Up", NULL, "scroll up"},
    {'j', TUI_K_DOWN, A_DOWN, "j/Down", NULL, "scroll down"},
    {TUI_K_PGUP, 0, A_PGUP, "PgUp", NULL, "scroll up a screen"},
    {TUI_K_PGDN, ' ', A_PGDN, "PgDn", NULL, "scroll down a screen"},
    {'q', TUI_K_ESC, A_BACK, "q", "back", "back to the lesson (the draft is dropped)"},
    NAV_KEYS,
};

/* A question that takes no more answers: read it, move on. */
static const struct tui_binding keys_locked[] = {
    {'h', 0, A_HINT, "h", NULL, "reveal the next hint"},
    {'k', TUI_K_UP, A_UP, "k/Up", NULL, "scroll up"},
    {'j', TUI_K_DOWN, A_DOWN, "j/Down", "scroll", "scroll down"},
    {TUI_K_PGUP, 0, A_PGUP, "PgUp", NULL, "scroll up a screen"},
    {TUI_K_PGDN, ' ', A_PGDN, "PgDn", NULL, "scroll down a screen"},
    {'L', 0, A_LAB, "L", NULL, "run the lab this question uses"},
    {'q', TUI_K_ESC, A_BACK, "q", "back", "back to the lesson"},
    NAV_KEYS,
};

static const struct tui_binding keys_confirm[] = {
    {'y', 0, A_YES, "y", "yes, give up", "give up: the solution is shown, answers earn nothing"},
    {'n', TUI_K_ESC, A_NO, "n/Esc", "no", "keep trying"},
};

static const struct tui_binding keys_rubric[] = {
    {TUI_K_UP, 'k', A_UP, "k/Up", NULL, "previous point"},
    {TUI_K_DOWN, 'j', A_DOWN, "j/Down", "move", "next point"},
    {TUI_K_RIGHT, '+', A_SCORE_UP, "Right/+", "more", "score it higher (0-9 set it)"},
    {TUI_K_LEFT, '-', A_SCORE_DOWN, "Left/-", "less", "score it lower"},
    {TUI_K_ENTER, 0, A_CONFIRM, "Enter", "grade", "done: grade and compare"},
    {TUI_K_ESC, 0, A_EDIT, "Esc", "edit", "back to the editor"},
};

static const struct tui_binding keys_cert[] = {
    {'1', 0, A_CERT1, "1", "not sure", "certainty 1: right +1, wrong 0"},
    {'2', 0, A_CERT2, "2", "fairly", "certainty 2: right +2, wrong -2"},
    {'3', 0, A_CERT3, "3", "very sure", "certainty 3: right +3, wrong -6"},
    {TUI_K_ESC, 0, A_CANCEL, "Esc", "cancel", "not yet: back to the answer"},
};

struct question {
    struct tui_question_model m;
    char *pack_id, *bare_id, *lesson_id;
    int64_t rev_id;
    int used, limit; /* tries used and allowed (0: no limit) */
    char *title_bar;
    char *lab;              /* the lab the question uses, or NULL */
    char *pending;          /* answer waiting for a certainty */
    enum tui_q_mode before; /* mode to return to from the certainty prompt */
    char *policy_text;      /* the policy in words */
    bool exam;              /* the question belongs to an exam lesson */
};

static char **strv_dup(char *const *v, size_t n)
{
    char **o = core_xcalloc(n ? n : 1, sizeof *o);
    for (size_t i = 0; i < n; i++)
        o[i] = core_xstrdup(v[i] ? v[i] : "");
    return o;
}

static void load_attempts(struct tui_app *a, struct question *q)
{
    struct core_err e = {0};
    struct db_attempt *at = NULL;
    size_t n = 0;
    attempts_free(&q->m);
    if (db_attempt_list(a->db, a->user_id, q->pack_id, q->bare_id, &at, &n, &e) != CORE_OK) {
        tui_app_msg(a, true, "%s", e.msg);
        return;
    }
    q->m.attempts = core_xcalloc(n ? n : 1, sizeof *q->m.attempts);
    for (size_t i = 0; i < n; i++) {
        struct tui_q_attempt *o = &q->m.attempts[q->m.n_attempts++];
        o->answer = core_xstrdup(at[i].answer ? at[i].answer : "");
        /* "2026-11-21T10:00:00.123Z" -> "2026-11-21 10:00" (UTC) */
        char when[20] = "";
        if (at[i].created_at && strlen(at[i].created_at) >= 16) {
            memcpy(when, at[i].created_at, 16);
            when[10] = ' ';
            when[16] = '\0';
        }
        o->when = core_xstrdup(when);
        /* As it counts: its latest re-grade instead of it. */
        o->score = at[i].regraded ? at[i].rg_score : at[i].score;
        o->max = at[i].regraded ? at[i].rg_max : at[i].max;
        o->valid = at[i].regraded ? at[i].rg_valid : at[i].valid;
        o->correct = o->valid && o->max > 0 && o->score >= o->max;
        o->after_giveup = at[i].after_giveup;
        o->hidden = q->m.exam_open;
    }
    db_attempts_free(at, n);
    struct db_giveup *g = NULL;
    size_t ng = 0;
    if (db_giveup_list(a->db, a->user_id, q->pack_id, q->bare_id, &g, &ng, &e) == CORE_OK)
        q->m.n_giveups = ng;
    db_giveups_free(g, ng);
}

/* The line under the prompt: the policy in words and where the student
 * stands, or the exam's rule. */
static void set_policy_line(struct tui_question_model *m, const char *policy,
                            const struct lesson_tries *t, bool exam, bool exam_over)
{
    free(m->policy_line);
    m->closed = t->closed || (exam && exam_over);
    if (exam && !exam_over)
        m->policy_line = core_xstrdup(
            t->used ? "exam: answered (one answer each); graded when you submit the exam: S in "
                      "the lesson"
                    : "exam: one answer, no feedback until you submit the exam (S in the lesson)");
    else if (exam)
        m->policy_line = core_xstrdup("exam: submitted; your grade and feedback are below");
    else if (t->used == 0)
        m->policy_line = core_xasprintf("policy: %s", policy);
    else {
        char used[48];
        if (t->limit)
            snprintf(used, sizeof used, "%d of %d used", t->used, t->limit);
        else
            snprintf(used, sizeof used, "%d used", t->used);
        m->policy_line =
            core_xasprintf("policy: %s - %s%s%s", policy, used, t->closed ? ": closed" : "",
                           t->gave_up ? "; you gave up: answers earn nothing" : "");
    }
}

static const char *unit_hint(const char *unit)
{
    if (!unit || !unit[0])
        return NULL;
    if (strcmp(unit, "x") == 0 || strcmp(unit, "×") == 0)
        return "(a ratio: write it as 2.5 or 2.5x)";
    if (strcmp(unit, "%") == 0)
        return "(in per cent: write 56 or 56%)";
    return NULL;
}

static enum tui_q_kind kind_of(const char *k)
{
    if (!k)
        return TUI_QK_LINE;
    if (strcmp(k, "choice") == 0)
        return TUI_QK_CHOICE;
    if (strcmp(k, "multi") == 0)
        return TUI_QK_MULTI;
    if (strcmp(k, "ordering") == 0)
        return TUI_QK_ORDER;
    if (strcmp(k, "design") == 0)
        return TUI_QK_DESIGN;
    return TUI_QK_LINE;
}

static enum tui_q_mode start_mode(const struct tui_question_model *m)
{
    switch (m->kind) {
    case TUI_QK_DESIGN:
        return TUI_Q_EDIT;
    case TUI_QK_LINE:
        return TUI_Q_TYPE;
    default:
        return m->n_choices ? TUI_Q_PICK : TUI_Q_TYPE;
    }
}

/* Fills q (zeroed) with question qid at variant. False when it cannot be
 * shown (a message says why). */
static bool question_load(struct tui_app *a, struct question *q, const char *qid, int variant)
{
    struct core_err e = {0};
    struct lesson_question_view v;
    if (lesson_question_show(a->sess, qid, variant > 0 ? variant : 1, &v, &e) != CORE_OK) {
        tui_app_msg(a, true, "%s", e.msg);
        return false;
    }
    struct tui_question_model *m = &q->m;
    q->pack_id = core_xstrdup(v.q.pack_id);
    q->bare_id = core_xstrdup(v.q.id);
    q->lesson_id = core_xstrdup(v.q.lesson_id ? v.q.lesson_id : "");
    q->rev_id = v.q.rev_id;
    m->qid = core_xasprintf("%s:%s", v.q.pack_id, v.q.id);
    m->title = core_xstrdup(v.q.title ? v.q.title : v.q.id);
    q->title_bar = core_xasprintf("question: %s", m->title);
    m->kind_name = core_xstrdup(v.q.kind);
    m->kind = kind_of(v.q.kind);
    m->points = v.q.points;
    m->variant = v.variant;
    m->prompt = core_xstrdup(v.v.prompt ? v.v.prompt : "");
    const char *uh = unit_hint(v.v.unit);
    if (uh)
        m->unit_hint = core_xstrdup(uh);
    else if (v.v.unit && v.v.unit[0])
        m->unit_hint =
            core_xasprintf("(answer in %s; other units of the same kind are converted)", v.v.unit);
    if (v.v.needs_lab)
        m->needs_lab = core_xasprintf("%s (here: Tab, then L)", v.v.needs_lab);
    if (v.q.lab)
        q->lab = core_xstrdup(v.q.lab);
    m->exam_open = v.exam && !v.exam_over;
    m->exam = v.exam;
    set_policy_line(m, v.policy_text, &v.tries, v.exam, v.exam_over);
    free(q->policy_text);
    q->policy_text = core_xstrdup(v.policy_text);
    q->exam = v.exam;
    q->used = v.tries.used;
    q->limit = v.tries.limit;
    /* A closed question (or one given up on) shows its solution. */
    if (((m->closed && !m->exam_open) || v.tries.gave_up) &&
        lesson_question_solution(a->sess, m->qid, v.variant, &m->accepted, &m->reference, &e) !=
            CORE_OK)
        tui_app_msg(a, true, "%s", e.msg);
    m->gave_up = v.tries.gave_up;
    m->choices = strv_dup(v.v.choices, v.v.n_choices);
    m->n_choices = v.v.n_choices;
    m->picked = core_xcalloc(m->n_choices ? m->n_choices : 1, sizeof *m->picked);
    m->order = core_xcalloc(m->n_choices ? m->n_choices : 1, sizeof *m->order);
    for (size_t i = 0; i < m->n_choices; i++)
        m->order[i] = i;
    m->hints = strv_dup(v.v.hints, v.v.n_hints);
    m->n_hints = v.v.n_hints;
    m->rubric = strv_dup(v.v.rubric, v.v.n_rubric);
    m->n_rubric = v.v.n_rubric;
    m->rubric_points = core_xcalloc(m->n_rubric ? m->n_rubric : 1, sizeof *m->rubric_points);
    m->self = core_xcalloc(m->n_rubric ? m->n_rubric : 1, sizeof *m->self);
    for (size_t i = 0; i < m->n_rubric; i++)
        m->rubric_points[i] = v.v.rubric_points ? v.v.rubric_points[i] : 1;
    tui_input_init(&m->input);
    tui_editor_init(&m->editor);
    /* Whether it draws numbers per variant (v: a new variant). */
    struct grader_pack *pk = NULL;
    if (lesson_session_pack(a->sess, v.q.rev_id, &pk, &e) == CORE_OK) {
        const struct grader_question *gq = grader_pack_question(pk, v.q.id);
        m->has_params = gq && gq->has_params;
    }
    lesson_question_view_fini(&v);
    bool cbm = false;
    if (lesson_question_cbm(a->sess, m->qid, &cbm, &e) == CORE_OK)
        m->cbm = cbm;
    load_attempts(a, q);
    m->mode = tui_question_locked(m) ? TUI_Q_KEYS : start_mode(m);
    m->follow = true;
    return true;
}

static void question_clear(struct question *q)
{
    tui_question_model_fini(&q->m);
    free(q->pack_id);
    free(q->bare_id);
    free(q->lesson_id);
    free(q->title_bar);
    free(q->lab);
    free(q->pending);
    free(q->policy_text);
    memset(q, 0, sizeof *q);
}

static void *question_enter(struct tui_app *a, const void *arg)
{
    const struct tui_question_arg *qa = arg;
    struct question *q = core_xcalloc(1, sizeof *q);
    if (!question_load(a, q, qa->qid, qa->variant)) {
        question_clear(q);
        free(q);
        return NULL;
    }
    return q;
}

static void question_leave(struct tui_app *a, void *st)
{
    struct question *q = st;
    question_clear(q);
    free(q);
}

/* Shows another question (or variant) in this screen. Keeps the current
 * one when the other cannot be shown. */
static bool question_switch(struct tui_app *a, struct question *q, const char *qid, int variant)
{
    struct question *n = core_xcalloc(1, sizeof *n);
    if (!question_load(a, n, qid, variant)) {
        question_clear(n);
        free(n);
        return false;
    }
    question_clear(q);
    *q = *n;
    free(n);
    return true;
}

/* n and N: the next question of the pack in course order, or the next one
 * not answered yet (after this one, then from the start). Exam lessons are
 * left out unless this question is in the same exam. */
static void go_next(struct tui_app *a, struct question *q, bool open_only)
{
    struct core_err e = {0};
    struct db_question *qs = NULL;
    struct db_progress_row *rows = NULL;
    size_t n = 0, nr = 0;
    if (db_question_list(a->db, q->pack_id, NULL, &qs, &n, &e) != CORE_OK ||
        (open_only &&
         lesson_progress_load(a->db, a->user_id, q->pack_id, &rows, &nr, &e) != CORE_OK)) {
        tui_app_msg(a, true, "%s", e.msg);
        goto out;
    }
    size_t at = n;
    for (size_t i = 0; i < n; i++)
        if (strcmp(qs[i].id, q->bare_id) == 0)
            at = i;
    size_t found = n;
    for (size_t k = 1; k <= n && found == n; k++) {
        size_t j = at < n ? (at + k) % n : k - 1;
        if (!open_only && (at == n || j <= at))
            break; /* n does not wrap round: the course has an end */
        if (j == at)
            continue;
        if (qs[j].exam && strcmp(qs[j].lesson_id, q->lesson_id) != 0)
            continue;
        bool answered = false;
        for (size_t r = 0; open_only && r < nr; r++)
            if (strcmp(rows[r].question_id, qs[j].id) == 0)
                answered = rows[r].answered;
        if (!answered)
            found = j;
    }
    if (found == n) {
        tui_app_msg(a, false,
                    open_only ? "every other question is answered"
                              : "this is the last question of the course");
        goto out;
    }
    char *qid = core_xasprintf("%s:%s", qs[found].pack_id, qs[found].id);
    bool other_lesson = strcmp(qs[found].lesson_id, q->lesson_id) != 0;
    char *lesson = core_xstrdup(qs[found].lesson_id);
    if (question_switch(a, q, qid, 1) && other_lesson)
        tui_app_msg(a, false, "on to the next lesson: %s", lesson);
    free(lesson);
    free(qid);
out:
    db_questions_free(qs, n);
    db_progress_free(rows, nr);
}

/* v: the same question with new numbers. Tries are counted per question,
 * so the new variant shares them; once none is left it is practice. */
static void new_variant(struct tui_app *a, struct question *q)
{
    if (!q->m.has_params) {
        tui_app_msg(a, false, "this question has no variants: its numbers are the same for all");
        return;
    }
    if (q->m.exam_open) {
        tui_app_msg(a, false, "no new variants during an exam");
        return;
    }
    char *qid = core_xstrdup(q->m.qid);
    int variant = q->m.variant + 1;
    if (question_switch(a, q, qid, variant)) {
        if (q->m.closed)
            tui_app_msg(a, false,
                        "variant %d is practice: no tries are left, so it is not graded "
                        "(its solution is shown)",
                        variant);
        else if (q->limit)
            tui_app_msg(a, false, "variant %d: new numbers, the same tries (%d of %d used)",
                        variant, q->used, q->limit);
        else
            tui_app_msg(a, false, "variant %d: new numbers; it counts as this question", variant);
    }
    free(qid);
}

static void grade(struct tui_app *a, struct question *q, const char *answer, int certainty)
{
    struct tui_question_model *m = &q->m;
    struct core_err e = {0};
    struct lesson_answer_result res;
    /* A design answer scored on the rubric keeps its self-scores with it. */
    size_t n_self = m->kind == TUI_QK_DESIGN && m->self_done ? m->n_rubric : 0;
    struct db_selfscore_in *self = core_xcalloc(n_self ? n_self : 1, sizeof *self);
    for (size_t i = 0; i < n_self; i++)
        self[i] = (struct db_selfscore_in){m->rubric[i], m->self[i], m->rubric_points[i]};
    int rc = lesson_answer_design(a->sess, m->qid, m->variant, answer, m->cbm ? certainty : 0, self,
                                  n_self, &res, &e);
    free(self);
    if (rc != CORE_OK) {
        tui_app_msg(a, true, "%s", e.msg);
        return;
    }
    result_free(m);
    m->has_result = true;
    m->valid = res.r.valid;
    m->correct = res.r.correct;
    m->score = res.r.score;
    m->max = res.r.max;
    m->certainty = certainty;
    if (certainty)
        m->cbm_mark = m->max * lesson_cbm_fraction(m->max > 0 ? m->score / m->max : 0, certainty);
    m->attempt_no = res.attempt_no;
    m->parsed = res.r.parsed ? core_xstrdup(res.r.parsed) : NULL;
    m->feedback = core_xstrdup(res.r.feedback ? res.r.feedback : "");
    m->accepted = res.r.accepted ? core_xstrdup(res.r.accepted) : NULL;
    m->reference = res.r.reference ? core_xstrdup(res.r.reference) : NULL;
    m->hidden = res.hidden;
    m->after_giveup = res.after_giveup;
    set_policy_line(m, q->policy_text, &res.tries, q->exam, false);
    if (m->valid && !res.hidden) {
        char earned[32], qs[32], pts[32];
        lesson_score_format(res.earned * m->max, earned, sizeof earned);
        lesson_score_format(res.tries.frac * m->max, qs, sizeof qs);
        lesson_score_format(m->max, pts, sizeof pts);
        if (res.after_giveup)
            m->tries_line = core_xasprintf("after your give-up this earns nothing; the question "
                                           "scores %s/%s",
                                           qs, pts);
        else if (res.available < 1)
            m->tries_line = core_xasprintf("try %d could earn %.0f%% of the points: it counts "
                                           "%s; the question scores %s/%s%s",
                                           res.attempt_no, 100 * res.available, earned, qs, pts,
                                           res.tries.closed ? "; no tries left" : "");
        else if (res.tries.closed)
            m->tries_line = core_xasprintf("no tries left: the question scores %s/%s", qs, pts);
    }
    lesson_answer_result_fini(&res);
    load_attempts(a, q);
    if (m->valid)
        tui_app_msg(a, false, "attempt %d recorded", m->attempt_no);
    m->follow = true;
    /* The mode changes only when the answer line goes away (a design
     * answer was submitted, or no try is left): after a right answer the
     * line keeps the keys, so what is typed next stays text. */
    if (m->kind == TUI_QK_DESIGN || tui_question_locked(m))
        m->mode = TUI_Q_KEYS;
}

/* Grades now, or first asks for a certainty in a CBM pack. */
static void submit(struct tui_app *a, struct question *q, const char *answer)
{
    struct tui_question_model *m = &q->m;
    if (!answer || !answer[0] || strspn(answer, " \t\n") == strlen(answer)) {
        tui_app_msg(a, true, "nothing to grade yet");
        return;
    }
    if (m->cbm) {
        free(q->pending);
        q->pending = core_xstrdup(answer);
        q->before = m->mode;
        m->mode = TUI_Q_CERTAINTY;
        m->follow = true;
        return;
    }
    grade(a, q, answer, 0);
}

static void give_up(struct tui_app *a, struct question *q)
{
    struct tui_question_model *m = &q->m;
    m->follow = true;
    /* Recorded (lesson_giveup): progress then counts the question as
     * answered with help, and later attempts show "(after give-up)". */
    struct core_err e = {0};
    struct lesson_giveup_result g;
    if (lesson_giveup(a->sess, m->qid, m->variant, &g, &e) != CORE_OK) {
        tui_app_msg(a, true, "answer once first: %s", e.msg);
        return;
    }
    m->gave_up = true;
    free(m->accepted);
    free(m->reference);
    m->accepted = g.accepted;
    m->reference = g.reference;
    g.accepted = g.reference = NULL;
    lesson_giveup_result_fini(&g);
    load_attempts(a, q);
    if (!m->accepted && !m->reference)
        tui_app_msg(a, false, "gave up (recorded): this question has no single answer to show");
    else
        tui_app_msg(a, false, "gave up (recorded): the answer is shown");
}

/* Back from the lab: the numbers may now come from the new run. */
static void question_resume(struct tui_app *a, void *st)
{
    struct question *q = st;
    if (!q->m.needs_lab)
        return;
    struct core_err e = {0};
    struct lesson_question_view v;
    if (lesson_question_show(a->sess, q->m.qid, q->m.variant, &v, &e) != CORE_OK)
        return;
    free(q->m.prompt);
    q->m.prompt = core_xstrdup(v.v.prompt ? v.v.prompt : "");
    free(q->m.needs_lab);
    q->m.needs_lab = v.v.needs_lab ? core_xasprintf("%s (here: Tab, then L)", v.v.needs_lab) : NULL;
    lesson_question_view_fini(&v);
    q->m.mode = tui_question_locked(&q->m) ? TUI_Q_KEYS : start_mode(&q->m);
    q->m.follow = true;
}

static bool question_key(struct tui_app *a, void *st, int key)
{
    struct question *q = st;
    struct tui_question_model *m = &q->m;
    switch (m->mode) {
    case TUI_Q_TYPE:
        if (key == TUI_K_ENTER || key == TUI_K_TAB || key == TUI_K_ESC || key == KEY_CTRL_G ||
            key == TUI_K_PGUP || key == TUI_K_PGDN || key == TUI_K_UP || key == TUI_K_DOWN ||
            key == TUI_K_CTRL_C)
            return false;
        /* Everything else is the line's (Ctrl-A/E/K/W edit too). */
        tui_input_key(&m->input, key);
        return true;
    case TUI_Q_EDIT:
        if (key == TUI_K_CTRL_S || key == TUI_K_CTRL_D || key == TUI_K_TAB || key == TUI_K_ESC ||
            key == TUI_K_CTRL_C)
            return false;
        tui_editor_key(&m->editor, key);
        return true;
    case TUI_Q_RUBRIC:
        if (key >= '0' && key <= '9' && m->n_rubric) {
            double v = key - '0';
            double mx = m->rubric_points[m->rsel];
            m->self[m->rsel] = v > mx ? mx : v;
            return true;
        }
        return false;
    default:
        return false;
    }
}

static void scroll(struct tui_question_model *m, long d)
{
    long t = (long)m->top + d;
    m->top = t < 0 ? 0 : (size_t)t;
}

static void question_action(struct tui_app *a, void *st, int act)
{
    struct question *q = st;
    struct tui_question_model *m = &q->m;
    switch (act) {
    case A_GRADE:
        if (m->mode == TUI_Q_PICK) {
            char *ans = tui_question_pick_answer(m);
            if (!ans[0])
                tui_app_msg(a, true, "pick with Space first");
            else
                submit(a, q, ans);
            free(ans);
        } else {
            submit(a, q, m->input.text.data ? m->input.text.data : "");
        }
        break;
    case A_KEYS:
        m->mode = TUI_Q_KEYS;
        break;
    case A_TYPE:
        if (tui_question_locked(m)) {
            tui_app_msg(a, false, "this question takes no more answers");
            break;
        }
        m->mode = TUI_Q_TYPE;
        m->follow = true;
        break;
    case A_NEXT:
        go_next(a, q, false);
        break;
    case A_NEXT_OPEN:
        go_next(a, q, true);
        break;
    case A_VARIANT:
        new_variant(a, q);
        break;
    case A_YES:
        m->mode = m->before_confirm;
        give_up(a, q);
        break;
    case A_NO:
        m->mode = m->before_confirm;
        m->follow = true;
        break;
    case A_EDIT:
        m->self_done = false; /* a changed answer is scored again */
        m->mode = TUI_Q_EDIT;
        m->follow = true;
        break;
    case A_BACK:
        tui_app_pop(a);
        break;
    case A_LAB:
        if (q->lab) {
            struct tui_lab_arg la = {q->lab};
            tui_app_push(a, "lab", &la);
        } else {
            tui_app_msg(a, false, "this question does not use a lab");
        }
        break;
    case A_GIVEUP:
        /* Recorded and final: ask first. */
        if (m->exam_open) {
            tui_app_msg(a, false, "no giving up during an exam: submit it to see the solutions");
        } else if (m->gave_up) {
            tui_app_msg(a, false, "you gave up on this question already: its solution is below");
            m->follow = true;
        } else {
            m->before_confirm = m->mode;
            m->mode = TUI_Q_CONFIRM;
            m->follow = true;
        }
        break;
    case A_HINT:
        if (m->hints_shown < m->n_hints) {
            m->hints_shown++;
        } else {
            tui_app_msg(a, false, m->n_hints ? "no more hints" : "this question has no hints");
        }
        break;
    case A_UP:
        if (m->mode == TUI_Q_PICK && m->n_choices) {
            if (m->csel > 0) {
                if (m->holding) {
                    size_t t = m->order[m->csel];
                    m->order[m->csel] = m->order[m->csel - 1];
                    m->order[m->csel - 1] = t;
                }
                m->csel--;
            }
            m->follow = true;
        } else if (m->mode == TUI_Q_RUBRIC) {
            if (m->rsel > 0)
                m->rsel--;
        } else {
            scroll(m, -1);
        }
        break;
    case A_DOWN:
        if (m->mode == TUI_Q_PICK && m->n_choices) {
            if (m->csel + 1 < m->n_choices) {
                if (m->holding) {
                    size_t t = m->order[m->csel];
                    m->order[m->csel] = m->order[m->csel + 1];
                    m->order[m->csel + 1] = t;
                }
                m->csel++;
            }
            m->follow = true;
        } else if (m->mode == TUI_Q_RUBRIC) {
            if (m->rsel + 1 < m->n_rubric)
                m->rsel++;
        } else {
            scroll(m, 1);
        }
        break;
    case A_PGUP:
        scroll(m, -10);
        break;
    case A_PGDN:
        scroll(m, 10);
        break;
    case A_PICK:
        if (!m->n_choices)
            break;
        if (m->kind == TUI_QK_CHOICE) {
            for (size_t i = 0; i < m->n_choices; i++)
                m->picked[i] = i == m->csel;
        } else if (m->kind == TUI_QK_MULTI) {
            m->picked[m->csel] = !m->picked[m->csel];
        } else {
            m->holding = !m->holding;
        }
        break;
    case A_MOVE_UP:
    case A_MOVE_DOWN:
        if (m->kind == TUI_QK_ORDER && m->n_choices) {
            bool h = m->holding;
            m->holding = true;
            question_action(a, st, act == A_MOVE_UP ? A_UP : A_DOWN);
            m->holding = h;
        }
        break;
    case A_SUBMIT:
        if (m->n_rubric && !m->self_done) {
            if (!m->editor.text.len) {
                tui_app_msg(a, true, "write your answer first");
                break;
            }
            m->mode = TUI_Q_RUBRIC;
            m->rsel = 0;
            m->follow = true;
        } else {
            submit(a, q, m->editor.text.data);
        }
        break;
    case A_SCORE_UP:
    case A_SCORE_DOWN:
        if (m->n_rubric) {
            double v = m->self[m->rsel] + (act == A_SCORE_UP ? 0.5 : -0.5);
            double mx = m->rubric_points[m->rsel];
            m->self[m->rsel] = v < 0 ? 0 : v > mx ? mx : v;
        }
        break;
    case A_CONFIRM:
        m->self_done = true;
        submit(a, q, m->editor.text.data);
        if (m->mode == TUI_Q_RUBRIC)
            m->mode = TUI_Q_KEYS;
        break;
    case A_CANCEL:
        m->mode = q->before;
        free(q->pending);
        q->pending = NULL;
        break;
    case A_CERT1:
    case A_CERT2:
    case A_CERT3:
        if (q->pending) {
            char *ans = q->pending;
            q->pending = NULL;
            m->mode = q->before;
            grade(a, q, ans, act - A_CERT1 + 1);
            free(ans);
        }
        break;
    }
}

static struct tui_keymap question_keys(const void *st)
{
    const struct question *q = st;
    struct tui_keymap km;
    switch (q->m.mode) {
    case TUI_Q_TYPE:
        return TUI_KEYMAP(keys_type);
    case TUI_Q_PICK:
        km = TUI_KEYMAP(keys_pick);
        if (!q->m.has_params)
            km.n -= N_VARIANT_KEYS;
        return km;
    case TUI_Q_EDIT:
        return TUI_KEYMAP(keys_edit);
    case TUI_Q_RUBRIC:
        return TUI_KEYMAP(keys_rubric);
    case TUI_Q_CERTAINTY:
        return TUI_KEYMAP(keys_cert);
    case TUI_Q_CONFIRM:
        return TUI_KEYMAP(keys_confirm);
    case TUI_Q_KEYS:
    default:
        break;
    }
    if (tui_question_locked(&q->m))
        km = TUI_KEYMAP(keys_locked);
    else if (q->m.kind == TUI_QK_DESIGN)
        km = TUI_KEYMAP(keys_design);
    else if (q->m.kind != TUI_QK_LINE && q->m.n_choices)
        km = TUI_KEYMAP(keys_pick);
    else
        km = TUI_KEYMAP(keys_line);
    if (!q->m.has_params)
        km.n -= N_VARIANT_KEYS; /* v: only where there are variants */
    return km;
}

static const char *question_title(const void *st)
{
    const struct question *q = st;
    return q->title_bar;
}

static void question_draw(struct tui_app *a, void *st, struct tui_canvas *c, struct tui_rect r,
                          struct tui_cursor *cur)
{
    struct question *q = st;
    /* Pick lists have no separate command mode (unless closed). */
    if (q->m.mode == TUI_Q_KEYS && q->m.kind != TUI_QK_LINE && q->m.kind != TUI_QK_DESIGN &&
        q->m.n_choices && !tui_question_locked(&q->m))
        q->m.mode = TUI_Q_PICK;
    tui_view_question(&q->m, c, r, cur);
}

const struct tui_screen tui_screen_question = {
    .name = "question",
    .enter = question_enter,
    .leave = question_leave,
    .resume = question_resume,
    .on_key = question_key,
    .on_action = question_action,
    .keymap = question_keys,
    .title = question_title,
    .draw = question_draw,
};
