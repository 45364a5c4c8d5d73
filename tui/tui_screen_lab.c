/*
 * tui_screen_lab.c — labs: the list of labs, a parameter form (each
 * parameter's range and help, values checked by lab_params_set), and a run
 * drawn live: charts of the metric series (grouped by lab_series_def.chart,
 * four to a page, `]`/`[` turn the pages when there are more), a progress
 * bar and a log pane, then a summary table with the questions that use the
 * run (its charts: the groups that got samples).
 *
 * This file is the controller: keys to actions, the form's parameters,
 * starting, cancelling and finishing a run. The run itself goes on a thread
 * of its own (tui_screen_lab_live.c), the model is tui_screen_lab_model.c,
 * and tui_screen_lab_view.c draws it. Cancel (q, Esc, Ctrl-C) sets the
 * run's flag and joins its thread; lab_run() has then reaped every child
 * process.
 */
#include "labs/lab.h"
#include "tui/tui_screen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TICK_MS 100

/* ---- screen logic --------------------------------------------------------- */

enum {
    A_UP = 1,
    A_DOWN,
    A_OPEN,
    A_BACK,
    A_EDIT,
    A_APPLY,
    A_EDIT_CANCEL,
    A_START,
    A_CANCEL,
    A_AGAIN,
    A_LEFT,
    A_RIGHT,
    A_DEFAULTS,
    A_CHARTS,
    A_PAGE_NEXT,
    A_PAGE_PREV,
    A_ASK_CANCEL,
    A_KEEP,
    A_FOCUS,
    A_TOP,
    A_BOTTOM
};

/* The chart pages' keys end the run and done tables: left out of the keymap
 * (footer, help, dispatch) while every chart fits on one page. */
#define PAGE_KEYS                                                                                  \
    {']', TUI_K_PGDN, A_PAGE_NEXT, "]/PgDn", "charts", "next page of charts"},                     \
    {                                                                                              \
        '[', TUI_K_PGUP, A_PAGE_PREV, "[/PgUp", NULL, "previous page of charts"                    \
    }
#define N_PAGE_KEYS 2

static const struct tui_binding keys_list[] = {
    {TUI_K_UP, 'k', A_UP, "k/Up", NULL, "previous lab"},
    {TUI_K_DOWN, 'j', A_DOWN, "j/Down", "move", "next lab"},
    {TUI_K_ENTER, 0, A_OPEN, "Enter", "choose", "set up the selected lab"},
    {'q', TUI_K_ESC, A_BACK, "q", "back", "back"},
};

static const struct tui_binding keys_form[] = {
    {TUI_K_UP, 'k', A_UP, "k/Up", NULL, "previous parameter"},
    {TUI_K_DOWN, 'j', A_DOWN, "j/Down", "move", "next parameter"},
    {TUI_K_ENTER, 0, A_EDIT, "Enter", "edit", "edit the value (on the start row: start)"},
    {TUI_K_LEFT, 0, A_LEFT, "Left", NULL, "choices and on/off: previous value; numbers: -1"},
    {TUI_K_RIGHT, ' ', A_RIGHT, "Right", NULL, "choices and on/off: next value; numbers: +1"},
    {'d', 0, A_DEFAULTS, "d", NULL, "every parameter back to its default"},
    {'s', 0, A_START, "s", "start", "start the run"},
    {'q', TUI_K_ESC, A_BACK, "q", "back", "back to the labs"},
};

static const struct tui_binding keys_edit[] = {
    {TUI_K_ENTER, 0, A_APPLY, "Enter", "set", "check and set the value"},
    {TUI_K_ESC, 0, A_EDIT_CANCEL, "Esc", "cancel", "keep the old value"},
};

static const struct tui_binding keys_run[] = {
    {'q', TUI_K_ESC, A_ASK_CANCEL, "q/Esc", "cancel",
     "cancel the run: asks first (Ctrl-C at once)"},
    {'b', 0, A_CHARTS, "b", "blocks", "charts: braille or block characters"},
    PAGE_KEYS,
};

static const struct tui_binding keys_confirm[] = {
    {'y', 0, A_CANCEL, "y", "yes, cancel", "cancel the run (no process is left behind)"},
    {'n', TUI_K_ESC, A_KEEP, "n/Esc", "no, keep running", "let the run go on"},
};

static const struct tui_binding keys_done[] = {
    {TUI_K_UP, 'k', A_UP, "k/Up", NULL, "scroll the results up (questions: previous)"},
    {TUI_K_DOWN, 'j', A_DOWN, "j/Down", NULL, "scroll the results down (questions: next)"},
    {TUI_K_HOME, 'g', A_TOP, "g/Home", NULL, "first result"},
    {TUI_K_END, 'G', A_BOTTOM, "G/End", NULL, "last results"},
    {TUI_K_TAB, 0, A_FOCUS, "Tab", "questions", "Up/Down: the results or the questions"},
    {TUI_K_ENTER, 0, A_OPEN, "Enter", "answer", "answer the selected question with this run"},
    {'r', 0, A_AGAIN, "r", "run again", "run it again with the same parameters"},
    {'e', 0, A_BACK, "e", NULL, "back to the parameters"},
    {'b', 0, A_CHARTS, "b", NULL, "charts: braille or block characters"},
    {'q', TUI_K_ESC, A_BACK, "q", "back", "back to the parameters"},
    PAGE_KEYS,
};

struct lab {
    struct tui_lab_model m;
    const struct lab_def *def;
    struct lab_params params;
    bool have_params;
    bool direct; /* opened on one lab: q from its form closes the screen */
    struct tui_lab_live *live;
    bool running;
    double t0;
    char title[96];
};

static void fill_fields(struct lab *l)
{
    tui_form_fields_free(l->m.fields, l->m.n_fields);
    l->m.n_fields = 0;
    l->m.fields = core_xcalloc(l->params.n ? l->params.n : 1, sizeof *l->m.fields);
    for (size_t i = 0; i < l->params.n; i++) {
        const struct lab_value *v = &l->params.v[i];
        char val[128], range[128];
        lab_value_text(v, val, sizeof val);
        lab_param_range(v->def, range, sizeof range);
        struct tui_form_field *f = &l->m.fields[l->m.n_fields++];
        f->label = core_xstrdup(v->def->name);
        f->value = v->def->unit && v->def->unit[0] ? core_xasprintf("%s %s", val, v->def->unit)
                                                   : core_xstrdup(val);
        f->range = core_xstrdup(range);
        f->help = core_xstrdup(v->def->help ? v->def->help : "");
    }
}

static void open_form(struct lab *l, const struct lab_def *def)
{
    if (l->have_params && l->def != def) {
        lab_params_fini(&l->params);
        l->have_params = false;
    }
    if (l->def != def)
        l->m.chart_page = 0;
    l->def = def;
    if (!l->have_params) {
        lab_params_init(&l->params, def);
        l->have_params = true;
    }
    free(l->m.lab_name);
    free(l->m.lab_title);
    l->m.lab_name = core_xstrdup(def->name);
    l->m.lab_title = core_xstrdup(def->title ? def->title : def->name);
    free(l->m.error);
    l->m.error = NULL;
    l->m.fsel = 0;
    l->m.editing = false;
    fill_fields(l);
    l->m.phase = TUI_LAB_FORM;
    snprintf(l->title, sizeof l->title, "lab %s", def->name);
}

static void set_error(struct lab *l, const char *msg)
{
    free(l->m.error);
    l->m.error = msg ? core_xstrdup(msg) : NULL;
}

static void load_questions(struct tui_app *a, struct lab *l)
{
    struct core_err e = {0};
    struct db_question *qs = NULL;
    size_t n = 0;
    struct db_progress_row *rows = NULL;
    size_t nr = 0;
    tui_lab_qs_free(l->m.qs, l->m.n_qs);
    l->m.qs = NULL;
    l->m.n_qs = 0;
    if (db_question_list(a->db, NULL, NULL, &qs, &n, &e) != CORE_OK ||
        lesson_progress_load(a->db, a->user_id, NULL, &rows, &nr, &e) != CORE_OK) {
        tui_app_msg(a, true, "%s", e.msg);
        goto out;
    }
    l->m.qs = core_xcalloc(n ? n : 1, sizeof *l->m.qs);
    for (size_t i = 0; i < n; i++) {
        if (!qs[i].lab || strcmp(qs[i].lab, l->def->name) != 0)
            continue;
        struct tui_lab_q *q = &l->m.qs[l->m.n_qs++];
        q->qid = core_xasprintf("%s:%s", qs[i].pack_id, qs[i].id);
        q->title = core_xstrdup(qs[i].title ? qs[i].title : qs[i].id);
        for (size_t k = 0; k < nr; k++)
            if (strcmp(rows[k].pack_id, qs[i].pack_id) == 0 &&
                strcmp(rows[k].question_id, qs[i].id) == 0)
                q->answered = rows[k].answered;
    }
out:
    db_questions_free(qs, n);
    db_progress_free(rows, nr);
}

/* Joins a finished (or cancelled) run and moves to DONE or back to FORM. */
static void finish_run(struct tui_app *a, struct lab *l, bool cancelled_by_user)
{
    tui_lab_live_join(l->live, &l->m);
    l->running = false;
    l->m.elapsed = core_time_mono() - l->t0;
    if (cancelled_by_user) {
        l->m.phase = TUI_LAB_FORM;
        tui_app_msg(a, false, "run cancelled after %.1f s; nothing left running", l->m.elapsed);
    } else {
        /* The header says how it ended; the footer keeps the keys. */
        l->m.phase = TUI_LAB_DONE;
        l->m.ftop = 0;
        l->m.focus_qs = false;
        load_questions(a, l);
    }
}

static void start_run(struct tui_app *a, struct lab *l)
{
    struct core_err e = {0};
    if (lab_params_check(&l->params, &e) != CORE_OK) {
        set_error(l, e.msg);
        return;
    }
    set_error(l, NULL);
    tui_lab_model_clear_run(&l->m);
    tui_lab_live_free(l->live);
    l->live = tui_lab_live_start(l->def, &l->params, a->db_path, a->user_id);
    if (!l->live) {
        set_error(l, "could not start a thread for the lab");
        return;
    }
    l->running = true;
    l->t0 = core_time_mono();
    l->m.status = core_xstrdup("running");
    l->m.phase = TUI_LAB_RUN;
    tui_lab_live_sync(l->live, &l->m);
}

static void cancel_run(struct tui_app *a, struct lab *l)
{
    if (!l->running)
        return;
    tui_lab_live_cancel(l->live);
    finish_run(a, l, true);
}

static void *lab_enter(struct tui_app *a, const void *arg)
{
    const struct tui_lab_arg *la = arg;
    struct lab *l = core_xcalloc(1, sizeof *l);
    tui_input_init(&l->m.edit);
    l->m.blocks = false;
    size_t n = 0;
    const struct lab_def *const *all = lab_registry(&n);
    l->m.labs = core_xcalloc(n ? n : 1, sizeof *l->m.labs);
    for (size_t i = 0; i < n; i++) {
        l->m.labs[i].name = core_xstrdup(all[i]->name);
        l->m.labs[i].title = core_xstrdup(all[i]->title ? all[i]->title : "");
        l->m.labs[i].summary = core_xstrdup(all[i]->summary ? all[i]->summary : "");
    }
    l->m.n_labs = n;
    l->m.phase = TUI_LAB_LIST;
    snprintf(l->title, sizeof l->title, "labs");
    if (la && la->lab) {
        const struct lab_def *d = lab_find(la->lab);
        if (!d) {
            tui_app_msg(a, true, "no lab named %s", la->lab);
        } else {
            l->direct = true;
            open_form(l, d);
        }
    }
    return l;
}

static void lab_leave(struct tui_app *a, void *st)
{
    struct lab *l = st;
    tui_lab_live_free(l->live); /* cancels and joins a run still going */
    if (l->have_params)
        lab_params_fini(&l->params);
    tui_lab_model_fini(&l->m);
    free(l);
}

static void lab_resume(struct tui_app *a, void *st)
{
    struct lab *l = st;
    if (l->m.phase == TUI_LAB_DONE)
        load_questions(a, l);
}

static void lab_tick(struct tui_app *a, void *st)
{
    struct lab *l = st;
    if (!l->running)
        return;
    bool done = tui_lab_live_sync(l->live, &l->m);
    l->m.elapsed = core_time_mono() - l->t0;
    if (done)
        finish_run(a, l, false);
}

static int lab_interval(const void *st)
{
    const struct lab *l = st;
    return l->running ? TICK_MS : -1;
}

static bool lab_key(struct tui_app *a, void *st, int key)
{
    struct lab *l = st;
    if (l->m.phase == TUI_LAB_RUN && key == TUI_K_CTRL_C) {
        cancel_run(a, l);
        return true;
    }
    if (l->m.phase == TUI_LAB_FORM && l->m.editing) {
        if (key == TUI_K_ENTER || key == TUI_K_ESC || key == TUI_K_CTRL_C)
            return false;
        tui_input_key(&l->m.edit, key);
        return true;
    }
    return false;
}

/* Left/Right on the selected parameter: cycle choices and on/off, step
 * numbers by one. */
static void nudge(struct tui_app *a, struct lab *l, int dir)
{
    if (l->m.fsel >= l->params.n)
        return;
    const struct lab_value *v = &l->params.v[l->m.fsel];
    const struct lab_param_def *d = v->def;
    char val[160];
    struct core_err e = {0};
    switch (d->type) {
    case LAB_P_BOOL:
        snprintf(val, sizeof val, "%s", v->num != 0 ? "off" : "on");
        break;
    case LAB_P_INT:
    case LAB_P_REAL:
        core_num_format(val, sizeof val, v->num + dir, 15);
        break;
    case LAB_P_ENUM: {
        /* choices "a|b|c": find the current one, take the neighbour. */
        const char *ch = d->choices ? d->choices : "";
        char *copy = core_xstrdup(ch);
        char *names[32];
        size_t n = 0;
        for (char *t = strtok(copy, "|"); t && n < 32; t = strtok(NULL, "|"))
            names[n++] = t;
        size_t cur = 0;
        for (size_t i = 0; i < n; i++)
            if (v->str && strcmp(names[i], v->str) == 0)
                cur = i;
        snprintf(val, sizeof val, "%s",
                 n ? names[(cur + n + (size_t)(dir > 0 ? 1 : n - 1)) % n] : "");
        free(copy);
        break;
    }
    default:
        return;
    }
    if (lab_params_set(&l->params, d->name, val, &e) != CORE_OK)
        set_error(l, e.msg);
    else
        set_error(l, NULL);
    fill_fields(l);
}

/* ] and [: the next or previous page of charts, from the one drawn. */
static void turn_page(struct tui_lab_model *m, int act)
{
    size_t pages = tui_lab_chart_pages(m);
    size_t p = m->chart_page < pages ? m->chart_page : pages - 1;
    if (act == A_PAGE_NEXT && p + 1 < pages)
        p++;
    else if (act == A_PAGE_PREV && p > 0)
        p--;
    m->chart_page = p;
}

static void lab_action(struct tui_app *a, void *st, int act)
{
    struct lab *l = st;
    struct tui_lab_model *m = &l->m;
    struct core_err e = {0};
    switch (m->phase) {
    case TUI_LAB_LIST:
        if (act == A_UP && m->lsel > 0)
            m->lsel--;
        else if (act == A_DOWN && m->lsel + 1 < m->n_labs)
            m->lsel++;
        else if (act == A_OPEN && m->n_labs)
            open_form(l, lab_find(m->labs[m->lsel].name));
        else if (act == A_BACK)
            tui_app_pop(a);
        break;
    case TUI_LAB_FORM:
        if (m->editing) {
            if (act == A_APPLY) {
                const char *text = m->edit.text.data ? m->edit.text.data : "";
                if (lab_params_set(&l->params, m->fields[m->fsel].label, text, &e) != CORE_OK) {
                    set_error(l, e.msg);
                } else {
                    set_error(l, NULL);
                    m->editing = false;
                    fill_fields(l);
                }
            } else if (act == A_EDIT_CANCEL) {
                m->editing = false;
                set_error(l, NULL);
            }
            break;
        }
        if (act == A_UP && m->fsel > 0)
            m->fsel--;
        else if (act == A_DOWN && m->fsel < m->n_fields)
            m->fsel++;
        else if (act == A_EDIT && m->fsel == m->n_fields)
            start_run(a, l);
        else if (act == A_EDIT) {
            char val[160];
            lab_value_text(&l->params.v[m->fsel], val, sizeof val);
            tui_input_set(&m->edit, val);
            m->editing = true;
            set_error(l, NULL);
        } else if (act == A_LEFT || act == A_RIGHT)
            nudge(a, l, act == A_LEFT ? -1 : 1);
        else if (act == A_DEFAULTS) {
            lab_params_fini(&l->params);
            lab_params_init(&l->params, l->def);
            fill_fields(l);
            set_error(l, NULL);
        } else if (act == A_START)
            start_run(a, l);
        else if (act == A_BACK) {
            if (l->direct)
                tui_app_pop(a);
            else {
                m->phase = TUI_LAB_LIST;
                snprintf(l->title, sizeof l->title, "labs");
            }
        }
        break;
    case TUI_LAB_RUN:
        if (act == A_ASK_CANCEL)
            m->confirm_cancel = true;
        else if (act == A_KEEP)
            m->confirm_cancel = false;
        else if (act == A_CANCEL) {
            m->confirm_cancel = false;
            cancel_run(a, l);
        } else if (act == A_CHARTS)
            m->blocks = !m->blocks;
        else if (act == A_PAGE_NEXT || act == A_PAGE_PREV)
            turn_page(m, act);
        break;
    case TUI_LAB_DONE:
        if (act == A_FOCUS)
            m->focus_qs = !m->focus_qs && m->n_qs > 0;
        else if (act == A_UP && m->focus_qs && m->qsel > 0)
            m->qsel--;
        else if (act == A_DOWN && m->focus_qs && m->qsel + 1 < m->n_qs)
            m->qsel++;
        else if (act == A_UP && !m->focus_qs && m->ftop > 0)
            m->ftop--;
        else if (act == A_DOWN && !m->focus_qs)
            m->ftop++; /* the view clamps */
        else if (act == A_TOP)
            m->ftop = 0;
        else if (act == A_BOTTOM)
            m->ftop = m->n_figs;
        else if (act == A_OPEN && m->n_qs) {
            struct tui_question_arg qa = {m->qs[m->qsel].qid, 1};
            tui_app_push(a, "question", &qa);
        } else if (act == A_OPEN) {
            tui_app_msg(a, false, "no question uses this lab's runs");
        } else if (act == A_CHARTS)
            m->blocks = !m->blocks;
        else if (act == A_PAGE_NEXT || act == A_PAGE_PREV)
            turn_page(m, act);
        else if (act == A_AGAIN)
            start_run(a, l);
        else if (act == A_BACK)
            m->phase = TUI_LAB_FORM;
        break;
    }
}

static struct tui_keymap lab_keys(const void *st)
{
    const struct lab *l = st;
    struct tui_keymap km;
    switch (l->m.phase) {
    case TUI_LAB_LIST:
        return TUI_KEYMAP(keys_list);
    case TUI_LAB_FORM:
        return l->m.editing ? TUI_KEYMAP(keys_edit) : TUI_KEYMAP(keys_form);
    case TUI_LAB_RUN:
        if (l->m.confirm_cancel)
            return TUI_KEYMAP(keys_confirm);
        km = TUI_KEYMAP(keys_run);
        break;
    default:
        km = TUI_KEYMAP(keys_done);
        break;
    }
    if (tui_lab_chart_pages(&l->m) < 2)
        km.n -= N_PAGE_KEYS;
    return km;
}

static const char *lab_title(const void *st)
{
    const struct lab *l = st;
    return l->title;
}

static void lab_draw(struct tui_app *a, void *st, struct tui_canvas *c, struct tui_rect r,
                     struct tui_cursor *cur)
{
    struct lab *l = st;
    tui_view_lab(&l->m, c, r, cur);
}

const struct tui_screen tui_screen_lab = {
    .name = "lab",
    .enter = lab_enter,
    .leave = lab_leave,
    .resume = lab_resume,
    .on_key = lab_key,
    .on_action = lab_action,
    .tick = lab_tick,
    .interval_ms = lab_interval,
    .keymap = lab_keys,
    .title = lab_title,
    .draw = lab_draw,
};
