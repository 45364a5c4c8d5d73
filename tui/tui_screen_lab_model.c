/*
 * tui_screen_lab_model.c — the lab screen's model: metric series as the
 * screen keeps them (appended, or a snapshot series' latest value per
 * step), the run's log, figures and questions, and clearing them. Pure:
 * the lab thread's live copy (tui_screen_lab_live.c) and the screen's
 * controller (tui_screen_lab.c) change the model only through these; the
 * views (tui_screen_lab_view.c) only read it.
 */
#include "tui/tui_screen.h"

#include <stdlib.h>
#include <string.h>

void tui_lab_series_push(struct tui_lab_series *s, double x, double y)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 64;
        s->x = core_xrealloc(s->x, s->cap * sizeof *s->x);
        s->y = core_xrealloc(s->y, s->cap * sizeof *s->y);
    }
    s->x[s->n] = x;
    s->y[s->n] = y;
    s->n++;
}

void tui_lab_series_add(struct tui_lab_series *s, double x, double y)
{
    if (!s->snapshot || s->n == 0 || x > s->x[s->n - 1]) {
        tui_lab_series_push(s, x, y);
        return;
    }
    /* the first point at or after x */
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->x[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < s->n && s->x[lo] == x) {
        s->y[lo] = y;
        return;
    }
    tui_lab_series_push(s, x, y); /* room for one more */
    memmove(s->x + lo + 1, s->x + lo, (s->n - 1 - lo) * sizeof *s->x);
    memmove(s->y + lo + 1, s->y + lo, (s->n - 1 - lo) * sizeof *s->y);
    s->x[lo] = x;
    s->y[lo] = y;
}

void tui_lab_series_sync(struct tui_lab_series *dst, const struct tui_lab_series *src)
{
    if (src->snapshot)
        dst->n = 0;
    for (size_t k = dst->n; k < src->n; k++)
        tui_lab_series_push(dst, src->x[k], src->y[k]);
}

void tui_lab_series_free(struct tui_lab_series *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(s[i].name);
        free(s[i].label);
        free(s[i].unit);
        free(s[i].chart);
        free(s[i].x_label);
        free(s[i].chart_title);
        free(s[i].x);
        free(s[i].y);
    }
    free(s);
}

static void strs_free(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

void tui_lab_figs_free(struct tui_lab_fig *f, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(f[i].label);
        free(f[i].value);
    }
    free(f);
}

void tui_lab_qs_free(struct tui_lab_q *q, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(q[i].qid);
        free(q[i].title);
    }
    free(q);
}

void tui_lab_model_clear_run(struct tui_lab_model *m)
{
    tui_lab_series_free(m->series, m->n_series);
    strs_free(m->logs, m->n_logs);
    free(m->progress_what);
    free(m->status);
    tui_lab_figs_free(m->figs, m->n_figs);
    tui_lab_qs_free(m->qs, m->n_qs);
    m->series = NULL;
    m->logs = NULL;
    m->figs = NULL;
    m->qs = NULL;
    m->progress_what = m->status = NULL;
    m->n_series = m->n_logs = m->n_figs = m->n_qs = m->qsel = 0;
    m->progress = m->elapsed = 0;
    free(m->note);
    free(m->noise);
    m->note = m->noise = NULL;
    m->ftop = 0;
    m->focus_qs = m->confirm_cancel = false;
    m->run_id = 0;
}

static void fields_free(struct tui_lab_model *m)
{
    tui_form_fields_free(m->fields, m->n_fields);
    m->fields = NULL;
    m->n_fields = 0;
}

void tui_lab_model_fini(struct tui_lab_model *m)
{
    tui_lab_model_clear_run(m);
    fields_free(m);
    for (size_t i = 0; i < m->n_labs; i++) {
        free(m->labs[i].name);
        free(m->labs[i].title);
        free(m->labs[i].summary);
    }
    free(m->labs);
    free(m->lab_name);
    free(m->lab_title);
    free(m->error);
    tui_input_fini(&m->edit);
    *m = (struct tui_lab_model){0};
}

void tui_lab_model_set_logs(struct tui_lab_model *m, char *const *logs, size_t n)
{
    strs_free(m->logs, m->n_logs);
    m->logs = core_xcalloc(n ? n : 1, sizeof *m->logs);
    for (size_t i = 0; i < n; i++)
        m->logs[i] = core_xstrdup(logs[i]);
    m->n_logs = n;
}

void tui_lab_model_set_figs(struct tui_lab_model *m, const struct tui_lab_fig *figs, size_t n)
{
    tui_lab_figs_free(m->figs, m->n_figs);
    m->figs = core_xcalloc(n ? n : 1, sizeof *m->figs);
    for (size_t i = 0; i < n; i++) {
        m->figs[i].label = core_xstrdup(figs[i].label);
        m->figs[i].value = core_xstrdup(figs[i].value);
    }
    m->n_figs = n;
}

void tui_lab_model_add_series(struct tui_lab_model *m, const struct tui_lab_series *s)
{
    m->series = core_xrealloc(m->series, (m->n_series + 1) * sizeof *m->series);
    m->series[m->n_series++] =
        (struct tui_lab_series){.name = core_xstrdup(s->name),
                                .label = core_xstrdup(s->label),
                                .unit = core_xstrdup(s->unit),
                                .chart = core_xstrdup(s->chart),
                                .x_label = core_xstrdup(s->x_label),
                                .chart_title = s->chart_title ? core_xstrdup(s->chart_title) : NULL,
                                .x_log = s->x_log,
                                .snapshot = s->snapshot};
}
