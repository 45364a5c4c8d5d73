/*
 * tui_screen_question.c — one question: the prompt with this student's
 * numbers, an answer entry fit for the kind (a line, a pick list, an
 * ordering list, a multi-line editor), grading on Enter with score and
 * feedback at once, hints one at a time, giving up, the attempt history,
 * self-scoring on the rubric before a design answer's automatic score, and
 * a certainty prompt (1-3) for packs with certainty-based marking.
 *
 * This file is the controller: the keys of each mode, loading a question
 * (lessons: lesson_question_show), grading and giving up, moving to the
 * next question or variant. The model and its pure changes are
 * tui_screen_question_model.c; tui_screen_question_view.c draws it.
 */
#include "tui/tui_screen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KEY_CTRL_G 7

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
#define TYPE_SCROLL                                                                                \
    {TUI_K_PGUP, TUI_K_UP, A_PGUP, "PgUp/Up", NULL, "scroll up"},                                  \
    {                                                                                              \
        TUI_K_PGDN, TUI_K_DOWN, A_PGDN, "PgDn/Down", NULL, "scroll down"                           \
    }
static const struct tui_binding keys_type[] = {
    {TUI_K_ENTER, 0, A_GRADE, "Enter", "grade", "grade the answer (recorded at once)"},
    {TUI_K_TAB, 0, A_KEYS, "Tab", "commands", "leave the answer line: hint, give up, next"},
    {KEY_CTRL_G, 0, A_GIVEUP, "Ctrl-G", "give up", "give up: asks, then shows the solution"},
    {TUI_K_ESC, 0, A_BACK, "Esc", "back", "back to the lesson"},
    TYPE_SCROLL,
};

/* Work that is recorded, not graded here (a class's sealed work, an open
 * exam): Enter records, and there is no giving up. */
static const struct tui_binding keys_type_rec[] = {
    {TUI_K_ENTER, 0, A_GRADE, "Enter", "record", "record the answer (your instructor grades it)"},
    {TUI_K_TAB, 0, A_KEYS, "Tab", "commands", "leave the answer line: hint, next"},
    {TUI_K_ESC, 0, A_BACK, "Esc", "back", "back to the lesson"},
    TYPE_SCROLL,
};

#define GIVEUP_KEY                                                                                 \
    {                                                                                              \
        'g', KEY_CTRL_G, A_GIVEUP, "g", "give up", "give up: asks, then shows the solution"        \
    }
#define LINE_REST                                                                                  \
    {'k', TUI_K_UP, A_UP, "k/Up", NULL, "scroll up"},                                              \
        {'j', TUI_K_DOWN, A_DOWN, "j/Down", NULL, "scroll down"},                                  \
        {TUI_K_PGUP, 0, A_PGUP, "PgUp", NULL, "scroll up a screen"},                               \
        {TUI_K_PGDN, ' ', A_PGDN, "PgDn", NULL, "scroll down a screen"},                           \
        {'L', 0, A_LAB, "L", NULL, "run the lab this question uses"},                              \
        {'q', TUI_K_ESC, A_BACK, "q", "back", "back to the lesson"}, NAV_KEYS

static const struct tui_binding keys_line[] = {
    {TUI_K_ENTER, 'i', A_TYPE, "i/Enter", "type", "back to the answer line"},
    {'h', 0, A_HINT, "h", "hint", "reveal the next hint"},
    GIVEUP_KEY,
    LINE_REST,
};

static const struct tui_binding keys_line_rec[] = {
    {TUI_K_ENTER, 'i', A_TYPE, "i/Enter", "type", "back to the answer line"},
    {'h', 0, A_HINT, "h", "hint", "reveal the next hint"},
    LINE_REST,
};

#define PICK_MOVES                                                                                 \
    {TUI_K_UP, 'k', A_UP, "k/Up", NULL, "previous choice"},                                        \
        {TUI_K_DOWN, 'j', A_DOWN, "j/Down", NULL, "next choice"},                                  \
        {' ',     0,      A_PICK,                                                                  \
         "Space", "pick", "pick the choice (multi: toggle; ordering: hold and move)"},             \
        {'K', 0, A_MOVE_UP, "K", NULL, "ordering: move the item up"},                              \
    {                                                                                              \
        'J', 0, A_MOVE_DOWN, "J", NULL, "ordering: move the item down"                             \
    }
#define PICK_REST                                                                                  \
    {TUI_K_PGUP, 0, A_PGUP, "PgUp", NULL, "scroll up"},                                            \
        {TUI_K_PGDN, 0, A_PGDN, "PgDn", NULL, "scroll down"},                                      \
        {'L', 0, A_LAB, "L", NULL, "run the lab this question uses"},                              \
        {'q', TUI_K_ESC, A_BACK, "q", "back", "back to the lesson"}, NAV_KEYS

static const struct tui_binding keys_pick[] = {
    PICK_MOVES,
    {TUI_K_ENTER, 0, A_GRADE, "Enter", "grade", "grade the picks (recorded at once)"},
    {'t', 0, A_TYPE, "t", NULL, "type the answer as letters instead"},
    {'h', 0, A_HINT, "h", "hint", "reveal the next hint"},
    GIVEUP_KEY,
    PICK_REST,
};

static const struct tui_binding keys_pick_rec[] = {
    PICK_MOVES,
    {TUI_K_ENTER, 0, A_GRADE, "Enter", "record", "record the picks (your instructor grades them)"},
    {'t', 0, A_TYPE, "t", NULL, "type the answer as letters instead"},
    {'h', 0, A_HINT, "h", "hint", "reveal the next hint"},
    PICK_REST,
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
    bool pending_self;      /* ...graded with the rubric's self-scores */
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
    tui_question_attempts_free(&q->m);
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
        /* As it counts: an instructor's review, else its latest re-grade,
         * else the grade it got (as `warpbench question` shows it). */
        o->reviewed = at[i].reviewed;
        o->score = at[i].reviewed ? at[i].rv_score : at[i].regraded ? at[i].rg_score : at[i].score;
        o->max = at[i].reviewed ? at[i].rv_max : at[i].regraded ? at[i].rg_max : at[i].max;
        o->valid = at[i].reviewed || (at[i].regraded ? at[i].rg_valid : at[i].valid);
        if (at[i].reviewed)
            o->review = core_xasprintf("reviewed by %s%s%s",
                                       at[i].rv_reviewer ? at[i].rv_reviewer : "your instructor",
                                       at[i].rv_comment && at[i].rv_comment[0] ? ": " : "",
                                       at[i].rv_comment ? at[i].rv_comment : "");
        o->correct = o->valid && o->max > 0 && o->score >= o->max;
        o->after_giveup = at[i].after_giveup;
        o->hidden = q->m.exam_open || q->m.sealed;
    }
    db_attempts_free(at, n);
    struct db_giveup *g = NULL;
    size_t ng = 0;
    if (db_giveup_list(a->db, a->user_id, q->pack_id, q->bare_id, &g, &ng, &e) == CORE_OK)
        q->m.n_giveups = ng;
    db_giveups_free(g, ng);
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
    m->kind = tui_question_kind_of(v.q.kind);
    m->points = v.q.points;
    m->variant = v.variant;
    m->prompt = core_xstrdup(v.v.prompt ? v.v.prompt : "");
    const char *uh = tui_question_unit_hint(v.v.unit);
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
    m->sealed = v.sealed;
    tui_question_set_policy(m, v.policy_text, &v.tries, v.exam, v.exam_over);
    m->policy = v.policy;
    free(q->policy_text);
    q->policy_text = core_xstrdup(v.policy_text);
    q->exam = v.exam;
    q->used = v.tries.used;
    q->limit = v.tries.limit;
    /* A closed question (or one given up on) shows its solution at the
     * variants answered or given up on; a new variant is practice, its
     * solution hidden until it is answered (lessons' view). */
    m->show_solution = v.solution;
    m->practice = v.practice;
    if (v.solution && lesson_question_solution(a->sess, m->qid, v.variant, &m->accepted,
                                               &m->reference, &e) != CORE_OK)
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
    /* A design answer is rewritten, not retyped: the editor starts with the
     * latest readable answer (the attempts run oldest first). */
    if (m->kind == TUI_QK_DESIGN)
        for (size_t i = m->n_attempts; i-- > 0;)
            if (m->attempts[i].valid && m->attempts[i].answer) {
                tui_editor_set(&m->editor, m->attempts[i].answer);
                break;
            }
    m->mode = tui_question_locked(m) ? TUI_Q_KEYS : tui_question_start_mode(m);
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
    if (q->m.sealed) {
        tui_app_msg(a, false, "graded work: your numbers are fixed; no other variant");
        return;
    }
    if (q->m.exam_open) {
        tui_app_msg(a, false, "no new variants during an exam");
        return;
    }
    char *qid = core_xstrdup(q->m.qid);
    int variant = q->m.variant + 1;
    if (question_switch(a, q, qid, variant)) {
        if (q->m.practice)
            tui_app_msg(a, false,
                        "variant %d is practice: one answer, earning nothing; its solution "
                        "comes after it",
                        variant);
        else if (q->m.closed)
            tui_app_msg(a, false, "variant %d: answered already; its solution is below", variant);
        else if (q->limit)
            tui_app_msg(a, false, "variant %d: new numbers, the same tries (%d of %d used)",
                        variant, q->used, q->limit);
        else
            tui_app_msg(a, false, "variant %d: new numbers; it counts as this question", variant);
    }
    free(qid);
}

/* Grades answer; with_self: a design answer scored on the rubric, its
 * self-scores go with it, and once it is graded the scoring is done
 * (m->self_done: a refused or failed grade leaves it to be scored again). */
static void grade(struct tui_app *a, struct question *q, const char *answer, int certainty,
                  bool with_self)
{
    struct tui_question_model *m = &q->m;
    struct core_err e = {0};
    struct lesson_answer_result res;
    size_t n_self = m->kind == TUI_QK_DESIGN && with_self ? m->n_rubric : 0;
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
    bool practice = res.practice;
    if (n_self)
        m->self_done = true;
    tui_question_set_result(m, &res, certainty, q->policy_text, q->exam);
    lesson_answer_result_fini(&res);
    load_attempts(a, q);
    if (m->valid && practice)
        tui_app_msg(a, false, "practice answer recorded: it earns nothing; the solution is below");
    else if (m->valid)
        tui_app_msg(a, false, "try %d recorded", m->attempt_no);
    m->follow = true;
    /* The mode changes only when the answer line goes away (a design
     * answer was submitted, or no try is left): after a right answer the
     * line keeps the keys, so what is typed next stays text. */
    if (m->kind == TUI_QK_DESIGN || tui_question_locked(m))
        m->mode = TUI_Q_KEYS;
}

/* Grades now, or first asks for a certainty in a CBM pack (with_self: as
 * grade's, kept with the pending answer). */
static void submit(struct tui_app *a, struct question *q, const char *answer, bool with_self)
{
    struct tui_question_model *m = &q->m;
    if (!answer || !answer[0] || strspn(answer, " \t\n") == strlen(answer)) {
        tui_app_msg(a, true, "nothing to grade yet");
        return;
    }
    if (m->cbm) {
        free(q->pending);
        q->pending = core_xstrdup(answer);
        q->pending_self = with_self;
        q->before = m->mode;
        m->mode = TUI_Q_CERTAINTY;
        m->follow = true;
        return;
    }
    grade(a, q, answer, 0, with_self);
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
    m->show_solution = true;
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
    q->m.mode = tui_question_locked(&q->m) ? TUI_Q_KEYS : tui_question_start_mode(&q->m);
    tui_question_settle(&q->m);
    q->m.follow = true;
}

static struct tui_keymap question_keys(const void *st);

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
            tui_question_self_set(m, key - '0');
            return true;
        }
        return false;
    case TUI_Q_KEYS:
        /* A digit (or the start of a number) typed in commands mode is an
         * answer begun: it goes to the answer line, not lost. */
        if (((key >= '0' && key <= '9') || key == '.' || key == '(') &&
            !tui_keymap_action(question_keys(q), key)) {
            if (m->kind == TUI_QK_LINE && !tui_question_locked(m)) {
                m->mode = TUI_Q_TYPE;
                m->follow = true;
                tui_input_key(&m->input, key);
            } else {
                tui_app_msg(a, false,
                            tui_question_locked(m) ? "this question takes no more answers"
                                                   : "commands mode: i types an answer");
            }
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

/* Enter: grades the picks, or the answer line. */
static void grade_entry(struct tui_app *a, struct question *q)
{
    struct tui_question_model *m = &q->m;
    if (m->mode != TUI_Q_PICK) {
        submit(a, q, m->input.text.data ? m->input.text.data : "", false);
        return;
    }
    char *ans = tui_question_pick_answer(m);
    if (!ans[0])
        tui_app_msg(a, true, "pick with Space first");
    else
        submit(a, q, ans, false);
    free(ans);
}

/* g, Ctrl-G: giving up is recorded and final, so it asks first. */
static void ask_give_up(struct tui_app *a, struct tui_question_model *m)
{
    if (m->sealed) {
        tui_app_msg(a, false, "graded work: no giving up; your instructor grades your answer");
    } else if (m->exam_open) {
        tui_app_msg(a, false, "no giving up during an exam: submit it to see the solutions");
    } else if (m->gave_up) {
        tui_app_msg(a, false, "you gave up on this question already: its solution is below");
        m->follow = true;
    } else {
        m->before_confirm = m->mode;
        m->mode = TUI_Q_CONFIRM;
        m->follow = true;
    }
}

/* Up and Down: in the pick list, on the rubric, else scrolling. */
static void up_down(struct tui_question_model *m, int d)
{
    if (m->mode == TUI_Q_PICK && m->n_choices) {
        tui_question_move(m, d);
        m->follow = true;
    } else if (m->mode == TUI_Q_RUBRIC) {
        if (d < 0 && m->rsel > 0)
            m->rsel--;
        else if (d > 0 && m->rsel + 1 < m->n_rubric)
            m->rsel++;
    } else {
        scroll(m, d);
    }
}

/* Ctrl-S: a design answer is scored on the rubric first, then graded. */
static void submit_design(struct tui_app *a, struct question *q)
{
    struct tui_question_model *m = &q->m;
    if (!m->n_rubric || m->self_done) {
        submit(a, q, m->editor.text.data, m->self_done);
    } else if (!m->editor.text.len) {
        tui_app_msg(a, true, "write your answer first");
    } else {
        m->mode = TUI_Q_RUBRIC;
        m->rsel = 0;
        m->follow = true;
    }
}

static void question_act(struct tui_app *a, struct question *q, int act);

/* Every action, then the mode it leaves settled (tui_question_settle): the
 * model changes here, never while it is drawn. */
static void question_action(struct tui_app *a, void *st, int act)
{
    struct question *q = st;
    question_act(a, q, act);
    tui_question_settle(&q->m);
}

static void question_act(struct tui_app *a, struct question *q, int act)
{
    struct tui_question_model *m = &q->m;
    switch (act) {
    case A_GRADE:
        grade_entry(a, q);
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
        ask_give_up(a, m);
        break;
    case A_HINT:
        if (m->hints_shown < m->n_hints) {
            m->hints_shown++;
        } else {
            tui_app_msg(a, false, m->n_hints ? "no more hints" : "this question has no hints");
        }
        break;
    case A_UP:
    case A_DOWN:
        up_down(m, act == A_UP ? -1 : 1);
        break;
    case A_PGUP:
        scroll(m, -10);
        break;
    case A_PGDN:
        scroll(m, 10);
        break;
    case A_PICK:
        tui_question_pick(m);
        break;
    case A_MOVE_UP:
    case A_MOVE_DOWN:
        if (m->kind == TUI_QK_ORDER && m->n_choices) {
            bool h = m->holding;
            m->holding = true;
            up_down(m, act == A_MOVE_UP ? -1 : 1);
            m->holding = h;
        }
        break;
    case A_SUBMIT:
        submit_design(a, q);
        break;
    case A_SCORE_UP:
    case A_SCORE_DOWN:
        if (m->n_rubric)
            tui_question_self_set(m, m->self[m->rsel] + (act == A_SCORE_UP ? 0.5 : -0.5));
        break;
    case A_CONFIRM: /* the rubric scored: graded with the self-scores */
        submit(a, q, m->editor.text.data, true);
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
            grade(a, q, ans, act - A_CERT1 + 1, q->pending_self);
            free(ans);
        }
        break;
    }
}

static struct tui_keymap question_keys(const void *st)
{
    const struct question *q = st;
    struct tui_keymap km;
    bool rec = q->m.sealed || q->m.exam_open; /* recorded, graded elsewhere */
    switch (q->m.mode) {
    case TUI_Q_TYPE:
        return rec ? TUI_KEYMAP(keys_type_rec) : TUI_KEYMAP(keys_type);
    case TUI_Q_PICK:
        km = rec ? TUI_KEYMAP(keys_pick_rec) : TUI_KEYMAP(keys_pick);
        if (!q->m.has_params || rec)
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
        km = rec ? TUI_KEYMAP(keys_pick_rec) : TUI_KEYMAP(keys_pick);
    else
        km = rec ? TUI_KEYMAP(keys_line_rec) : TUI_KEYMAP(keys_line);
    if (!q->m.has_params || q->m.sealed || q->m.exam_open)
        km.n -= N_VARIANT_KEYS; /* v: only where there are variants (not in graded work nor
                                   in an exam not yet submitted: their numbers are fixed) */
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
