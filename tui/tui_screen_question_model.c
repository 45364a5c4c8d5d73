/*
 * tui_screen_question_model.c — the question screen's model and the pure
 * changes to it: freeing, whether it takes answers, the picked answer as
 * letters, the policy line, a grade's result, moving and picking in the
 * pick list, self-scores. Neither the store nor the grader is called here:
 * the controller (tui_screen_question.c) asks lessons and hands the
 * answers over; the views (tui_screen_question_view.c) only read the model.
 */
#include "tui/tui_screen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void strv_free(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

void tui_question_attempts_free(struct tui_question_model *m)
{
    for (size_t i = 0; i < m->n_attempts; i++) {
        free(m->attempts[i].answer);
        free(m->attempts[i].when);
        free(m->attempts[i].review);
    }
    free(m->attempts);
    m->attempts = NULL;
    m->n_attempts = 0;
}

void tui_question_result_free(struct tui_question_model *m)
{
    free(m->parsed);
    free(m->feedback);
    free(m->accepted);
    free(m->reference);
    free(m->tries_line);
    free(m->headline);
    m->parsed = m->feedback = m->accepted = m->reference = m->tries_line = m->headline = NULL;
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
    tui_question_result_free(m);
    tui_question_attempts_free(m);
    free(m->policy_line);
    *m = (struct tui_question_model){0};
}

bool tui_question_locked(const struct tui_question_model *m)
{
    /* An exam allows one readable answer: once given, its one try is used
     * and the question is closed like any other (an unreadable one is not
     * a try). */
    return m->closed && !m->practice;
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

/* The line under the prompt: the policy in words and where the student
 * stands, or the exam's rule. */
void tui_question_set_policy(struct tui_question_model *m, const char *policy,
                             const struct lesson_tries *t, bool exam, bool exam_over)
{
    free(m->policy_line);
    m->closed = t->closed || (exam && exam_over);
    if (m->sealed)
        m->policy_line = core_xasprintf(
            "graded work: recorded, not graded here; your instructor grades it (%s%s)",
            exam ? "an exam: one answer, then S in the lesson" : policy,
            t->closed && !exam ? ": no try left" : "");
    else if (exam && !exam_over)
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

const char *tui_question_unit_hint(const char *unit)
{
    if (!unit || !unit[0])
        return NULL;
    if (strcmp(unit, "x") == 0 || strcmp(unit, "×") == 0)
        return "(a ratio: write it as 2.5 or 2.5x)";
    if (strcmp(unit, "%") == 0)
        return "(in per cent: write 56 or 56%)";
    return NULL;
}

enum tui_q_kind tui_question_kind_of(const char *k)
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

enum tui_q_mode tui_question_start_mode(const struct tui_question_model *m)
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

void tui_question_settle(struct tui_question_model *m)
{
    if (m->mode == TUI_Q_KEYS && m->kind != TUI_QK_LINE && m->kind != TUI_QK_DESIGN &&
        m->n_choices && !tui_question_locked(m))
        m->mode = TUI_Q_PICK;
}

/* Moves the pick list's selection by d (-1 or 1); an ordering item held
 * moves with it. */
void tui_question_move(struct tui_question_model *m, int d)
{
    if (d < 0 && m->csel == 0)
        return;
    if (d > 0 && m->csel + 1 >= m->n_choices)
        return;
    size_t to = d < 0 ? m->csel - 1 : m->csel + 1;
    if (m->holding) {
        size_t t = m->order[m->csel];
        m->order[m->csel] = m->order[to];
        m->order[to] = t;
    }
    m->csel = to;
}

void tui_question_pick(struct tui_question_model *m)
{
    if (!m->n_choices)
        return;
    if (m->kind == TUI_QK_CHOICE) {
        for (size_t i = 0; i < m->n_choices; i++)
            m->picked[i] = i == m->csel;
    } else if (m->kind == TUI_QK_MULTI) {
        m->picked[m->csel] = !m->picked[m->csel];
    } else {
        m->holding = !m->holding;
    }
}

void tui_question_self_set(struct tui_question_model *m, double v)
{
    if (!m->n_rubric)
        return;
    double mx = m->rubric_points[m->rsel];
    m->self[m->rsel] = v < 0 ? 0 : v > mx ? mx : v;
}

void tui_question_set_result(struct tui_question_model *m, const struct lesson_answer_result *res,
                             int certainty, const char *policy, bool exam)
{
    tui_question_result_free(m);
    m->has_result = true;
    m->valid = res->r.valid;
    m->correct = res->r.correct;
    m->score = res->r.score;
    m->max = res->r.max;
    m->certainty = certainty;
    if (certainty)
        m->cbm_mark = m->max * lesson_cbm_fraction(m->max > 0 ? m->score / m->max : 0, certainty);
    m->attempt_no = res->attempt_no;
    m->parsed = res->r.parsed ? core_xstrdup(res->r.parsed) : NULL;
    m->feedback = core_xstrdup(res->r.feedback ? res->r.feedback : "");
    m->accepted = res->r.accepted ? core_xstrdup(res->r.accepted) : NULL;
    m->reference = res->r.reference ? core_xstrdup(res->r.reference) : NULL;
    m->hidden = res->hidden;
    m->after_giveup = res->after_giveup;
    tui_question_set_policy(m, policy, &res->tries, exam, false);
    m->result_practice = res->practice;
    if (!m->valid || res->hidden)
        return;
    /* One verdict with what the try earns (lessons' wording, as the CLI's):
     * the heading never says 1/1 beside "it counts 0.9". */
    char head[200], note[200];
    lesson_answer_headline(res, head, sizeof head, note, sizeof note);
    m->headline = core_xstrdup(head);
    if (note[0])
        m->tries_line = core_xstrdup(note);
    if (res->practice || ((m->gave_up || m->closed) && !exam)) {
        /* Done with this variant: its solution is the student's now. */
        m->show_solution = true;
        m->practice = false;
    }
}
