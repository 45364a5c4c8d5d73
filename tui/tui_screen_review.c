/*
 * tui_screen_review.c — the design review queue of a class store
 * (warpbench class review --tui): one student's design answer at a time,
 * the question and the answer above, the rubric below with the student's
 * self-score and the reviewer's score per concept, the automatic score and
 * its feedback beside them, and a comment line. Saving stores the review
 * (lesson_review_set), which then counts instead of the automatic score,
 * and moves on to the next answer waiting.
 *
 * The model is filled from lessons (lesson_review_list); the view draws it
 * and nothing else.
 */
#include "tui/tui_screen.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- model ---------------------------------------------------------------- */

static void entry_fini(struct tui_review_entry *e)
{
    free(e->student);
    free(e->question);
    free(e->prompt);
    free(e->answer);
    free(e->auto_feedback);
    for (size_t k = 0; k < e->n_concepts; k++)
        free(e->concepts[k].label);
    free(e->concepts);
    grader_result_fini(&e->read);
    free(e->read_error);
    tui_input_fini(&e->comment);
    memset(e, 0, sizeof *e);
}

void tui_review_model_fini(struct tui_review_model *m)
{
    for (size_t i = 0; i < m->n; i++)
        entry_fini(&m->items[i]);
    free(m->items);
    *m = (struct tui_review_model){0};
}

double tui_review_total(const struct tui_review_entry *e)
{
    double s = 0, max = 0;
    for (size_t k = 0; k < e->n_concepts; k++) {
        s += e->concepts[k].score;
        max += e->concepts[k].points;
    }
    return max > 0 ? e->points * s / max : 0;
}

/* ---- view ----------------------------------------------------------------- */

/* What the grader read for concept k of e, NULL when the answer was not
 * read (or the concept is not in the reading). */
static const struct grader_claim_evidence *evidence_of(const struct tui_review_entry *e, size_t k)
{
    if (!e->has_read || !e->read.valid || k >= e->n_concepts)
        return NULL;
    for (size_t i = 0; i < e->read.n_claims; i++)
        if (strcmp(e->read.claims[i].concept, e->concepts[k].label) == 0)
            return &e->read.claims[i];
    return NULL;
}

/* A concept's reading in a word, and its colour: found, contradicted,
 * negated, asked (a question), hedged (a condition), padding (off the
 * question), listed (a list of terms), unclaimed, missing. */
static const char *evidence_tag(const struct grader_claim_evidence *ev, uint8_t *colour)
{
    const char *st = ev->status, *how = ev->how;
    *colour = TUI_C_WARN;
    if (strcmp(st, "found") == 0) {
        *colour = TUI_C_GOOD;
        return "found";
    }
    if (strcmp(st, "contradicted") == 0) {
        *colour = TUI_C_BAD;
        return "contradicted";
    }
    if (strcmp(st, "negated") == 0)
        return "negated";
    if (strcmp(st, "unclaimed") == 0)
        return strcmp(how, "a question") == 0           ? "asked"
               : strcmp(how, "a condition") == 0        ? "hedged"
               : strcmp(how, "off the question") == 0   ? "padding"
               : strcmp(how, "in a list of terms") == 0 ? "listed"
                                                        : "unclaimed";
    *colour = TUI_C_MUTED;
    return "missing";
}

#define TAG_W 13 /* the reading's column: "contradicted" and a space */

/* Two rows of what the grader read for the selected concept: its reading
 * and clause, then the clause's subject, relation and object. */
static void draw_evidence(struct tui_canvas *c, struct tui_rect r, int y,
                          const struct tui_review_entry *e, size_t k)
{
    const struct tui_style muted = TUI_ST(0, TUI_C_MUTED);
    const struct grader_claim_evidence *ev = evidence_of(e, k);
    if (!ev) {
        tui_canvas_printf(c, y, r.x + 3, muted, r.w - 4, "read, %s: not in the grader's reading",
                          k < e->n_concepts ? e->concepts[k].label : "");
        return;
    }
    uint8_t colour;
    const char *tag = evidence_tag(ev, &colour);
    bool how = ev->how[0] && strcmp(ev->how, "claim") != 0 && strcmp(ev->how, "phrase") != 0;
    if (ev->clause[0])
        tui_canvas_printf(c, y, r.x + 3, TUI_ST(0, colour), r.w - 4, "read, %s: %s%s%s%s %s \"%s\"",
                          ev->concept, tag, how ? " (" : "", how ? ev->how : "", how ? ")" : "",
                          tui_glyph(c->cs, "—", "-"), ev->clause);
    else
        tui_canvas_printf(c, y, r.x + 3, TUI_ST(0, colour), r.w - 4,
                          "read, %s: %s: no clause of the answer claims it", ev->concept, tag);
    if (!ev->subject[0] && !ev->relation[0] && !ev->object[0])
        return;
    tui_canvas_printf(c, y + 1, r.x + 5, muted, r.w - 6,
                      "subject \"%s\"  relation \"%s\"  object \"%s\"", ev->subject, ev->relation,
                      ev->object);
}

static int text_block(struct tui_canvas *c, struct tui_rect r, int y, const char *label,
                      const char *text, size_t skip, int max_rows)
{
    struct core_strlist l;
    core_strlist_init(&l);
    tui_text_wrap(text && *text ? text : "(empty)", r.w - 12, &l);
    tui_canvas_put(c, y, r.x + 1, label, TUI_ST(TUI_A_BOLD, TUI_C_ACCENT), 10);
    int rows = 0;
    for (size_t i = skip; i < l.n && rows < max_rows; i++, rows++)
        tui_canvas_put(c, y + rows, r.x + 11, l.items[i], TUI_ST(0, 0), r.w - 12);
    if (rows == 0)
        rows = 1;
    core_strlist_fini(&l);
    return rows;
}

static size_t wrapped_rows(const char *text, int width)
{
    struct core_strlist l;
    core_strlist_init(&l);
    tui_text_wrap(text && *text ? text : "(empty)", width, &l);
    size_t n = l.n;
    core_strlist_fini(&l);
    return n;
}

void tui_view_review(struct tui_review_model *m, struct tui_canvas *c, struct tui_rect r,
                     struct tui_cursor *cur)
{
    const struct tui_style muted = TUI_ST(0, TUI_C_MUTED);
    if (m->n == 0) {
        tui_canvas_put(c, r.y + 1, r.x + 1,
                       m->all ? "No design answers in this class store."
                              : "No design answers are waiting for review.",
                       TUI_ST(TUI_A_BOLD, TUI_C_GOOD), r.w - 2);
        tui_canvas_put(c, r.y + 3, r.x + 1,
                       m->all ? "Import submissions first: warpbench class import FILE..."
                              : "Press a to list the reviewed ones too.",
                       muted, r.w - 2);
        return;
    }
    if (m->sel >= m->n)
        m->sel = m->n - 1;
    struct tui_review_entry *e = &m->items[m->sel];
    int y = r.y;
    size_t pending = 0;
    for (size_t i = 0; i < m->n; i++)
        pending += !m->items[i].reviewed;
    tui_canvas_printf(c, y, r.x + 1, TUI_ST(TUI_A_BOLD, 0), r.w - 2,
                      "answer %zu of %zu (%zu waiting) %s %s", m->sel + 1, m->n, pending,
                      tui_glyph(c->cs, "·", "-"), e->question);
    y++;
    tui_canvas_printf(c, y, r.x + 1, muted, r.w - 2, "student %s, attempt %lld%s%s%s", e->student,
                      (long long)e->attempt, e->reviewed ? "  [reviewed]" : "",
                      e->sealed ? "  [graded work]" : "", e->dirty ? "  [not saved]" : "");
    y++;
    if (e->superseded_by)
        tui_canvas_printf(c, y, r.x + 1, TUI_ST(TUI_A_BOLD, TUI_C_WARN), r.w - 2,
                          "superseded: the student answered this question again (attempt %lld)",
                          (long long)e->superseded_by);
    if (m->confirm)
        tui_canvas_put(c, y, r.x + 1,
                       "unsaved review: s save it, d discard it, Esc stay on this answer",
                       TUI_ST(TUI_A_BOLD | TUI_A_REVERSE, TUI_C_WARN), r.w - 2);
    y++;
    /* The rubric takes what it needs at the bottom (the grader's reading of
     * the selected concept two rows, else its feedback one); the texts
     * share the rest. */
    bool read = e->has_read && e->read.valid;
    int rubric_rows = (int)e->n_concepts + 5 + read;
    int room = r.y + r.h - y - rubric_rows;
    if (room < 4)
        room = 4;
    int prompt_rows = room / 3 > 1 ? room / 3 : 1;
    y += text_block(c, r, y, "question", e->prompt, 0, prompt_rows);
    y++;
    int answer_rows = r.y + r.h - rubric_rows - y;
    if (answer_rows < 1)
        answer_rows = 1;
    m->answer_rows = answer_rows;
    size_t total_rows = wrapped_rows(e->answer, r.w - 12);
    if (m->top + (size_t)answer_rows > total_rows)
        m->top = total_rows > (size_t)answer_rows ? total_rows - (size_t)answer_rows : 0;
    text_block(c, r, y, "answer", e->answer, m->top, answer_rows);
    if (total_rows > (size_t)answer_rows)
        tui_canvas_printf(c, y + answer_rows - 1, r.x + r.w - 14, muted, 13, "[%zu-%zu/%zu]",
                          m->top + 1, m->top + (size_t)answer_rows, total_rows);
    y = r.y + r.h - rubric_rows;
    /* The rubric. */
    struct tui_style head = TUI_ST(TUI_A_UNDER, TUI_C_MUTED);
    int xp = r.x + r.w - 30;
    tui_canvas_put(c, y, r.x + 3, "rubric concept", head, -1);
    if (read)
        tui_canvas_put(c, y, xp - TAG_W, "read", head, -1);
    tui_canvas_put(c, y, xp, "points", head, -1);
    tui_canvas_put(c, y, xp + 8, "self", head, -1);
    tui_canvas_put(c, y, xp + 15, "your score", head, -1);
    y++;
    for (size_t k = 0; k < e->n_concepts; k++, y++) {
        const struct tui_review_concept *k_ = &e->concepts[k];
        bool sel = k == m->csel && !m->commenting;
        uint8_t ra = sel ? TUI_A_REVERSE : 0;
        if (sel)
            tui_canvas_fill(c, (struct tui_rect){y, r.x + 1, 1, r.w - 2}, ' ', TUI_ST(ra, 0));
        tui_canvas_put(c, y, r.x + 1, sel ? tui_glyph(c->cs, "▶", ">") : " ",
                       TUI_ST(ra, TUI_C_ACCENT), 1);
        const struct grader_claim_evidence *ev = evidence_of(e, k);
        tui_canvas_put(c, y, r.x + 3, k_->label, TUI_ST(ra, 0), xp - r.x - 4 - (ev ? TAG_W : 0));
        if (ev) {
            uint8_t colour;
            const char *tag = evidence_tag(ev, &colour);
            tui_canvas_put(c, y, xp - TAG_W, tag, TUI_ST(ra, colour), TAG_W - 1);
        }
        tui_canvas_printf(c, y, xp, TUI_ST(ra, 0), 7, "%6g", k_->points);
        if (isnan(k_->self))
            tui_canvas_put(c, y, xp + 8, "     -", TUI_ST(ra, TUI_C_MUTED), 6);
        else
            tui_canvas_printf(c, y, xp + 8, TUI_ST(ra, 0), 6, "%5g", k_->self);
        tui_canvas_printf(c, y, xp + 15, TUI_ST(ra | TUI_A_BOLD, TUI_C_ACCENT), 10, "%8g",
                          k_->score);
    }
    char au[32] = "-", sf[32] = "-";
    if (e->auto_valid)
        snprintf(au, sizeof au, "%.3g", e->auto_score);
    if (e->has_self)
        snprintf(sf, sizeof sf, "%.3g", e->self_score);
    tui_canvas_printf(c, y, r.x + 3, TUI_ST(TUI_A_BOLD, 0), r.w - 4,
                      "total: yours %.3g / automatic %s / self %s  (of %g points)",
                      tui_review_total(e), au, sf, e->points);
    if (e->reviewed)
        tui_canvas_printf(c, y, r.x + r.w - 22, TUI_ST(0, TUI_C_GOOD), 21, "saved: %.3g",
                          e->rv_score);
    y++;
    if (read) {
        draw_evidence(c, r, y, e, m->csel < e->n_concepts ? m->csel : 0);
        y += 2;
    } else {
        tui_canvas_put(c, y, r.x + 3, "automatic feedback:", muted, -1);
        tui_canvas_put(c, y, r.x + 23,
                       e->read_error      ? e->read_error
                       : e->auto_feedback ? e->auto_feedback
                                          : "",
                       muted, r.w - 24);
        y++;
    }
    tui_canvas_put(c, y, r.x + 3, "comment:", TUI_ST(m->commenting ? TUI_A_BOLD : 0, 0), -1);
    int col = tui_input_draw(c, y, r.x + 12, r.w - 13, &e->comment,
                             TUI_ST(m->commenting ? TUI_A_UNDER : 0, 0));
    if (m->commenting && cur) {
        cur->on = true;
        cur->y = y;
        cur->x = r.x + 12 + col;
    }
}

/* ---- screen --------------------------------------------------------------- */

enum {
    A_UP = 1,
    A_DOWN,
    A_MORE,
    A_LESS,
    A_NEXT,
    A_PREV,
    A_SAVE,
    A_COMMENT,
    A_ALL,
    A_PGUP,
    A_PGDN,
    A_BACK,
    A_DONE,
    A_CANCEL,
    A_DISCARD
};

static const struct tui_binding keys_review[] = {
    {TUI_K_UP, 'k', A_UP, "k/Up", NULL, "previous rubric concept"},
    {TUI_K_DOWN, 'j', A_DOWN, "j/Down", "concept", "next rubric concept"},
    {TUI_K_RIGHT, '+', A_MORE, "Right/+", "score", "raise the concept's score (digits set it)"},
    {TUI_K_LEFT, '-', A_LESS, "Left/-", NULL, "lower the concept's score"},
    {'q', TUI_K_ESC, A_BACK, "q/Esc", "quit",
     "leave the review (asks first when a review is "
     "not saved)"},
    {'c', 0, A_COMMENT, "c", "comment", "write a comment for the student"},
    {'s', TUI_K_CTRL_S, A_SAVE, "s", "save",
     "store the review (it counts instead of the automatic score)"},
    {'n', ']', A_NEXT, "n", "next", "next answer"},
    {'p', '[', A_PREV, "p", NULL, "previous answer"},
    {TUI_K_PGDN, ' ', A_PGDN, "Space/PgDn", NULL, "scroll the answer down"},
    {TUI_K_PGUP, 'b', A_PGUP, "b/PgUp", NULL, "scroll the answer up"},
    {'a', 0, A_ALL, "a", "all", "list the reviewed answers too, or only those waiting"},
};

static const struct tui_binding keys_confirm[] = {
    {'s', TUI_K_CTRL_S, A_SAVE, "s", "save", "save the review, then go on"},
    {'d', 0, A_DISCARD, "d", "discard", "drop the changes, then go on"},
    {TUI_K_ESC, 'q', A_CANCEL, "Esc", "stay", "stay on this answer"},
};

static const struct tui_binding keys_comment[] = {
    {TUI_K_ENTER, 0, A_DONE, "Enter", "done", "keep the comment (s saves the review)"},
    {TUI_K_ESC, 0, A_CANCEL, "Esc", "cancel", "leave the comment as it was"},
};

struct review {
    struct tui_review_model m;
    struct db *cs;
    char *class_path;
    char *saved_comment; /* while editing: the text before, for Esc */
};

/* Whether `label` is an item of the list s[0..n) ("a, b and c."). */
static bool listed(const char *s, size_t n, const char *label)
{
    size_t ln = strlen(label);
    for (size_t i = 0; ln && i + ln <= n; i++) {
        if (strncmp(s + i, label, ln) != 0)
            continue;
        bool start = i == 0 || (i >= 2 && s[i - 2] == ',' && s[i - 1] == ' ') ||
                     (i >= 4 && strncmp(s + i - 4, "and ", 4) == 0);
        char after = i + ln < n ? s[i + ln] : '\0';
        if (start &&
            (after == ',' || after == '.' || after == '\0' || after == ' ' || after == ';'))
            return true;
    }
    return false;
}

static void fill_entry(struct tui_review_entry *e, const struct lesson_review_item *it)
{
    memset(e, 0, sizeof *e);
    e->attempt = it->attempt;
    e->student = core_xasprintf("%s (%s)", it->key, it->user);
    e->question = it->title ? core_xasprintf("%s:%s  %s", it->pack_id, it->question_id, it->title)
                            : core_xasprintf("%s:%s", it->pack_id, it->question_id);
    e->prompt = core_xstrdup(it->prompt ? it->prompt : "");
    e->answer = core_xstrdup(it->answer ? it->answer : "");
    e->points = it->points;
    e->auto_valid = it->auto_valid;
    e->auto_score = it->auto_score;
    e->auto_feedback = it->auto_feedback ? core_xstrdup(it->auto_feedback) : NULL;
    for (char *p = e->auto_feedback; p && *p; p++) /* shown on one line */
        if (*p == '\n' || *p == '\t' || *p == '\r')
            *p = ' ';
    e->has_self = it->has_self;
    e->self_score = it->self_max > 0 ? it->points * it->self_total / it->self_max : 0;
    e->reviewed = it->reviewed;
    e->rv_score = it->rv_score;
    e->n_concepts = it->n_concepts;
    e->concepts = core_xcalloc(it->n_concepts ? it->n_concepts : 1, sizeof *e->concepts);
    /* A review starts from the last one stored, else from what the
     * automatic reading found: a concept its feedback lists as covered
     * starts at its points, the others at 0 (without such a line, the
     * automatic score spread over the concepts). */
    double auto_frac = it->auto_valid && it->points > 0 ? it->auto_score / it->points : 0;
    const char *covered =
        it->auto_valid && it->auto_feedback ? strstr(it->auto_feedback, "Covered: ") : NULL;
    size_t cov_len = covered ? strcspn(covered, "\n") : 0;
    for (size_t k = 0; k < it->n_concepts; k++) {
        const struct lesson_review_concept *c = &it->concepts[k];
        double start = c->points * auto_frac;
        if (covered)
            start = listed(covered + 9, cov_len - 9, c->label) ? c->points : 0;
        if (!isnan(c->reviewed))
            start = c->reviewed;
        e->concepts[k] =
            (struct tui_review_concept){core_xstrdup(c->label), c->points, c->self, start};
    }
    e->sealed = it->sealed;
    e->superseded_by = it->superseded_by;
    tui_input_init(&e->comment);
    tui_input_set(&e->comment, it->rv_comment ? it->rv_comment : "");
}

static int load(struct tui_app *a, struct review *v)
{
    struct lesson_review_item *it = NULL;
    size_t n = 0;
    struct core_err e = {0};
    if (lesson_review_list(a->sess, v->cs, NULL, NULL, v->m.all, &it, &n, &e) != CORE_OK) {
        tui_app_msg(a, true, "%s", e.msg);
        return -1;
    }
    int64_t at = v->m.n ? v->m.items[v->m.sel].attempt : 0;
    bool all = v->m.all;
    tui_review_model_fini(&v->m);
    v->m.all = all;
    v->m.items = core_xcalloc(n ? n : 1, sizeof *v->m.items);
    v->m.n = n;
    for (size_t i = 0; i < n; i++) {
        fill_entry(&v->m.items[i], &it[i]);
        if (it[i].attempt == at)
            v->m.sel = i;
    }
    lesson_review_items_free(it, n);
    return 0;
}

static void *review_enter(struct tui_app *a, const void *arg)
{
    const struct tui_review_arg *ra = arg;
    if (!ra || !ra->class_path) {
        tui_app_msg(a, true, "no class store to review");
        return NULL;
    }
    struct review *v = core_xcalloc(1, sizeof *v);
    v->class_path = core_xstrdup(ra->class_path);
    struct core_err e = {0};
    if (db_class_open(&v->cs, v->class_path, &e) != CORE_OK || load(a, v) != 0) {
        if (e.msg[0])
            tui_app_msg(a, true, "%s", e.msg);
        db_close(v->cs);
        free(v->class_path);
        free(v);
        return NULL;
    }
    return v;
}

static void review_leave(struct tui_app *a, void *st)
{
    (void)a;
    struct review *v = st;
    tui_review_model_fini(&v->m);
    db_close(v->cs);
    free(v->class_path);
    free(v->saved_comment);
    free(v);
}

static struct tui_review_entry *current(struct review *v)
{
    return v->m.n ? &v->m.items[v->m.sel < v->m.n ? v->m.sel : v->m.n - 1] : NULL;
}

static double step_of(double points)
{
    return points >= 2 ? 0.5 : 0.25;
}

static bool review_key(struct tui_app *a, void *st, int key)
{
    (void)a;
    struct review *v = st;
    struct tui_review_entry *e = current(v);
    if (!e)
        return false;
    if (v->m.confirm)
        return false; /* its keys: save, discard, stay */
    if (v->m.commenting) {
        if (key == TUI_K_ENTER || key == TUI_K_ESC || key == TUI_K_CTRL_C)
            return false;
        tui_input_key(&e->comment, key);
        e->dirty = true;
        return true;
    }
    /* A digit sets the selected concept's score (within its points). */
    if (key >= '0' && key <= '9' && e->n_concepts) {
        struct tui_review_concept *c = &e->concepts[v->m.csel];
        double s = key - '0';
        c->score = s > c->points ? c->points : s;
        e->dirty = true;
        return true;
    }
    return false;
}

/* Saves the current answer's review; `advance`: then on to the next one
 * waiting. False when it could not be saved. */
static bool save(struct tui_app *a, struct review *v, bool advance)
{
    struct tui_review_entry *e = current(v);
    if (!e)
        return false;
    bool ok = false;
    struct lesson_review_score *sc = core_xcalloc(e->n_concepts ? e->n_concepts : 1, sizeof *sc);
    for (size_t k = 0; k < e->n_concepts; k++)
        sc[k] = (struct lesson_review_score){e->concepts[k].label, e->concepts[k].score};
    struct core_err err = {0};
    struct lesson_review_item *it = NULL;
    const char *comment = e->comment.text.data ? e->comment.text.data : "";
    if (lesson_review_set(a->sess, v->cs, e->attempt, sc, e->n_concepts, comment, a->user, &it,
                          &err) != CORE_OK) {
        tui_app_msg(a, true, "%s", err.msg);
    } else {
        ok = true;
        e->reviewed = true;
        e->dirty = false;
        e->rv_score = it->rv_score;
        tui_app_msg(a, false, "saved: %.3g of %g points for %s", it->rv_score, it->points,
                    e->student);
        /* On to the next answer waiting, if any. */
        for (size_t i = 1; advance && i <= v->m.n; i++) {
            size_t k = (v->m.sel + i) % v->m.n;
            if (!v->m.items[k].reviewed) {
                v->m.sel = k;
                v->m.csel = 0;
                v->m.top = 0;
                break;
            }
        }
    }
    lesson_review_items_free(it, it ? 1 : 0);
    free(sc);
    return ok;
}

/* What moving off an answer does (next, previous, leaving). */
static void go(struct tui_app *a, struct review *v, int act)
{
    struct tui_review_model *m = &v->m;
    switch (act) {
    case A_NEXT:
    case A_PREV:
        if (m->n) {
            m->sel = act == A_NEXT ? (m->sel + 1) % m->n : (m->sel + m->n - 1) % m->n;
            m->csel = 0;
            m->top = 0;
        }
        break;
    case A_BACK:
        tui_app_pop(a);
        break;
    }
}

static void review_action(struct tui_app *a, void *st, int act)
{
    struct review *v = st;
    struct tui_review_model *m = &v->m;
    struct tui_review_entry *e = current(v);
    if (m->confirm) { /* unsaved work: save it, drop it, or stay */
        int then = m->confirm;
        m->confirm = 0;
        if (act == A_SAVE && save(a, v, false))
            go(a, v, then);
        else if (act == A_DISCARD) {
            if (e && load(a, v) == 0)
                tui_app_msg(a, false, "changes dropped");
            go(a, v, then);
        }
        return;
    }
    if (m->commenting) {
        if (act == A_CANCEL && e)
            tui_input_set(&e->comment, v->saved_comment ? v->saved_comment : "");
        if (act == A_DONE || act == A_CANCEL)
            m->commenting = false;
        return;
    }
    if (e && e->dirty && (act == A_NEXT || act == A_PREV || act == A_BACK)) {
        m->confirm = act; /* asks: save, discard or stay */
        return;
    }
    if (e && e->dirty && act == A_ALL) {
        tui_app_msg(a, true, "this review is not saved: s saves it (n then d drops it)");
        return;
    }
    int page = m->answer_rows > 1 ? m->answer_rows - 1 : 1;
    switch (act) {
    case A_UP:
        if (m->csel > 0)
            m->csel--;
        break;
    case A_DOWN:
        if (e && m->csel + 1 < e->n_concepts)
            m->csel++;
        break;
    case A_MORE:
    case A_LESS:
        if (e && e->n_concepts) {
            struct tui_review_concept *c = &e->concepts[m->csel];
            double s = c->score + (act == A_MORE ? 1 : -1) * step_of(c->points);
            c->score = s < 0 ? 0 : s > c->points ? c->points : s;
            e->dirty = true;
        }
        break;
    case A_NEXT:
    case A_PREV:
    case A_BACK:
        go(a, v, act);
        break;
    case A_PGDN:
        m->top += (size_t)page;
        break; /* the view clamps */
    case A_PGUP:
        m->top = m->top > (size_t)page ? m->top - (size_t)page : 0;
        break;
    case A_COMMENT:
        if (e) {
            free(v->saved_comment);
            v->saved_comment = core_xstrdup(e->comment.text.data ? e->comment.text.data : "");
            m->commenting = true;
        }
        break;
    case A_SAVE:
        save(a, v, true);
        break;
    case A_ALL:
        m->all = !m->all;
        if (load(a, v) == 0)
            tui_app_msg(a, false, m->all ? "every design answer" : "only those waiting");
        break;
    }
}

static struct tui_keymap review_keys(const void *st)
{
    const struct review *v = st;
    return v->m.confirm      ? TUI_KEYMAP(keys_confirm)
           : v->m.commenting ? TUI_KEYMAP(keys_comment)
                             : TUI_KEYMAP(keys_review);
}

static const char *review_title(const void *st)
{
    (void)st;
    return "design review";
}

/* Reads what the grader finds in the answer shown, once (one grading). */
static void read_current(struct tui_app *a, struct review *v)
{
    struct tui_review_entry *e = current(v);
    if (!e || e->has_read || e->read_error)
        return;
    struct core_err err = {0};
    if (lesson_review_read(a->sess, v->cs, e->attempt, &e->read, &err) == CORE_OK)
        e->has_read = true;
    else
        e->read_error = core_xasprintf("not read again: %s", err.msg);
}

static void review_draw(struct tui_app *a, void *st, struct tui_canvas *c, struct tui_rect r,
                        struct tui_cursor *cur)
{
    struct review *v = st;
    read_current(a, v);
    tui_view_review(&v->m, c, r, cur);
}

const struct tui_screen tui_screen_review = {
    .name = "review",
    .enter = review_enter,
    .leave = review_leave,
    .on_key = review_key,
    .on_action = review_action,
    .keymap = review_keys,
    .title = review_title,
    .draw = review_draw,
};
