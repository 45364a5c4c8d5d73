/*
 * tui_screen_question_view.c — the question screen drawn from its model
 * (STYLE rule 23: a pure draw function over a read-only model, no store,
 * no grader): the prompt, the answer area fit for the kind (the line, the
 * pick or ordering list, the editor, the rubric to self-score), the mode
 * line, the last grade with its feedback, hints, the solution once shown,
 * and the attempt history, on a sheet scrolled to keep the answer in view.
 */
#include "tui/tui_screen.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
            const char *mark = m->correct     ? tui_glyph(cs, "✓", "+")
                               : m->score > 0 ? "~"
                                              : tui_glyph(cs, "✗", "x");
            if (m->headline) {
                snprintf(head, sizeof head, "%s %s", mark, m->headline);
            } else { /* a model built without lessons' verdict: the grade alone */
                char sc[32], mx[32];
                lesson_score_format(m->score, sc, sizeof sc);
                lesson_score_format(m->max, mx, sizeof mx);
                snprintf(head, sizeof head, "%s %s: %s/%s point%s", mark,
                         m->correct     ? "correct"
                         : m->score > 0 ? "partly right"
                                        : "not right",
                         sc, mx, m->max == 1 ? "" : "s");
            }
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
    bool solution = m->show_solution;
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
    /* Tries are the readable answers: numbered as `warpbench answer` counts
     * them ("try 2 recorded"); an unreadable one is no try. */
    size_t tries_before = 0;
    for (size_t i = 0; i < m->n_attempts; i++)
        tries_before += m->attempts[i].valid;
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
        if (at->valid)
            snprintf(no, sizeof no, "#%zu", tries_before);
        else
            snprintf(no, sizeof no, "-");
        /* What the try earns under the policy (try k can earn a part of the
         * points; after a give-up nothing), as the headline says it: never
         * "1/1" beside "earns 0.9 of 1 point". */
        double earns = at->after_giveup ? 0
                       : at->valid && !at->hidden
                           ? at->score * grader_policy_available(&m->policy, (int)tries_before)
                           : at->score;
        lesson_score_format(earns, a1, sizeof a1);
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
        if (at->valid)
            tries_before--;
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
        if (at->review) { /* the instructor's word, on a line of its own */
            s->y++;
            char *rv = core_xstrdup(at->review);
            for (char *p = rv; *p; p++)
                if (*p == '\n' || *p == '\t')
                    *p = ' ';
            if (row_visible(s, s->y))
                tui_canvas_put_cut(s->c, sy(s, s->y), s->r.x + 10, rv, TUI_ST(0, TUI_C_ACCENT),
                                   s->r.w - 11);
            free(rv);
        }
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
    bool rec = m->sealed || m->exam_open; /* recorded here, graded elsewhere */
    const char *variant = m->has_params && !m->sealed && !m->exam_open
                              ? (locked ? " v new variant (practice)" : " v new variant")
                              : "";
    switch (m->mode) {
    case TUI_Q_CONFIRM:
        snprintf(line, sizeof line,
                 "give up and see the solution? y/n (after a give-up, answers earn nothing)");
        st = TUI_ST(TUI_A_BOLD | TUI_A_REVERSE, TUI_C_WARN);
        break;
    case TUI_Q_TYPE:
        if (rec)
            snprintf(line, sizeof line,
                     "%s typing: Enter records your answer, Tab for commands (hint, next)",
                     tui_glyph(cs, "✎", ">"));
        else
            snprintf(line, sizeof line,
                     "%s typing: Enter grades, Tab for commands (hint, give up, next)",
                     tui_glyph(cs, "✎", ">"));
        break;
    case TUI_Q_PICK:
        if (rec)
            snprintf(line, sizeof line, "picking: Space picks, Enter records %s h hint %s n next",
                     dot, dot);
        else
            snprintf(line, sizeof line,
                     "picking: Space picks, Enter grades %s h hint %s g give up %s "
                     "n next",
                     dot, dot, dot);
        break;
    case TUI_Q_KEYS:
        if (locked)
            snprintf(line, sizeof line, "commands: n next question %s N next unanswered%s%s", dot,
                     *variant ? " " : "", *variant ? dot : "");
        else if (rec)
            snprintf(line, sizeof line, "commands: %s type %s h hint %s n next %s N unanswered",
                     m->kind == TUI_QK_DESIGN ? "e" : "i", dot, dot, dot);
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
        put(s, 1,
            m->exam_open || m->sealed ? "Answered:" : "Closed:", TUI_ST(TUI_A_BOLD, TUI_C_WARN),
            -1);
        put(s, m->exam_open || m->sealed ? 11 : 9,
            m->sealed      ? "your answers are recorded; your instructor grades them"
            : m->exam_open ? "your answer is recorded; it is graded when you submit the exam"
            : m->exam      ? "the exam is over; your grade and the solution are below"
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
