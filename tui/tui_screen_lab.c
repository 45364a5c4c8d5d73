/*
 * tui_screen_lab.c — labs: the list of labs, a parameter form (each
 * parameter's range and help, values checked by lab_params_set), and a run
 * drawn live: charts of the metric series (grouped by lab_series_def.chart,
 * four to a page, `]`/`[` turn the pages when there are more), a progress
 * bar and a log pane, then a summary table with the questions that use the
 * run (its charts: the groups that got samples).
 *
 * The lab runs on its own thread with its own store handle (a sqlite handle
 * is not shared across threads). Its sink appends to a mutex-protected
 * `struct live` (a snapshot series, lab_def.snapshot, keeps the latest value
 * per step instead); the UI thread copies what is new into the model on each
 * 10 Hz tick, so drawing never waits for the lab. Cancel (q, Esc, Ctrl-C)
 * sets the run's atomic flag and joins the thread; lab_run() has then
 * reaped every child process.
 */
#include "labs/lab.h"
#include "tui/tui_screen.h"

#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LOG_KEEP 200
#define TICK_MS 100

/* ---- model ---------------------------------------------------------------- */

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

static void series_free(struct tui_lab_series *s, size_t n)
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

static void figs_free(struct tui_lab_fig *f, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(f[i].label);
        free(f[i].value);
    }
    free(f);
}

static void qs_free(struct tui_lab_q *q, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(q[i].qid);
        free(q[i].title);
    }
    free(q);
}

void tui_lab_model_clear_run(struct tui_lab_model *m)
{
    series_free(m->series, m->n_series);
    strs_free(m->logs, m->n_logs);
    free(m->progress_what);
    free(m->status);
    figs_free(m->figs, m->n_figs);
    qs_free(m->qs, m->n_qs);
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

/* ---- view ----------------------------------------------------------------- */

static void view_list(struct tui_lab_model *m, struct tui_canvas *c, struct tui_rect r)
{
    const enum tui_charset cs = c->cs;
    tui_canvas_put(c, r.y, r.x + 1,
                   "Labs run real experiments on this machine; questions then use your numbers.",
                   TUI_ST(0, TUI_C_MUTED), r.w - 2);
    int y = r.y + 2;
    if (!m->n_labs)
        tui_canvas_put(c, y, r.x + 2, "no labs in this build", TUI_ST(0, TUI_C_WARN), -1);
    for (size_t i = 0; i < m->n_labs && y + 1 < r.y + r.h; i++, y += 2) {
        bool sel = i == m->lsel;
        uint8_t ra = sel ? TUI_A_REVERSE : 0;
        if (sel)
            tui_canvas_fill(c, (struct tui_rect){y, r.x, 1, r.w}, ' ', TUI_ST(ra, 0));
        tui_canvas_put(c, y, r.x + 1, sel ? tui_glyph(cs, "▶", ">") : " ",
                       TUI_ST(ra | TUI_A_BOLD, TUI_C_ACCENT), -1);
        tui_canvas_put(c, y, r.x + 3, m->labs[i].name, TUI_ST(ra | TUI_A_BOLD, 0), 14);
        tui_canvas_put(c, y, r.x + 18, m->labs[i].title, TUI_ST(ra, 0), r.w - 19);
        tui_canvas_put(c, y + 1, r.x + 18, m->labs[i].summary, TUI_ST(0, TUI_C_MUTED), r.w - 19);
    }
}

static void view_form(struct tui_lab_model *m, struct tui_canvas *c, struct tui_rect r,
                      struct tui_cursor *cur)
{
    tui_canvas_put(c, r.y, r.x + 1, m->lab_title ? m->lab_title : "",
                   TUI_ST(TUI_A_BOLD, TUI_C_ACCENT), r.w - 2);
    int y = r.y + 2;
    struct tui_style head = TUI_ST(TUI_A_UNDER, TUI_C_MUTED);
    tui_canvas_put(c, y, r.x + 3, "parameter", head, -1);
    tui_canvas_put(c, y, r.x + 20, "value", head, -1);
    tui_canvas_put(c, y, r.x + 38, "allowed", head, -1);
    y++;
    /* Rows: fields, then "start"; the help of the selected one below. */
    int help_rows = 3;
    int rows = r.y + r.h - y - help_rows - 1;
    size_t first = 0;
    if (m->fsel >= (size_t)rows && rows > 0)
        first = m->fsel - (size_t)rows + 1;
    for (size_t i = first; i <= m->n_fields && y < r.y + r.h - help_rows - 1; i++, y++) {
        bool sel = i == m->fsel;
        uint8_t ra = tui_view_form_row(c, r, y, sel, m->editing);
        if (i == m->n_fields) {
            tui_canvas_put(c, y, r.x + 3, "[ start the run ]", TUI_ST(ra | TUI_A_BOLD, TUI_C_GOOD),
                           -1);
            continue;
        }
        const struct tui_form_field *f = &m->fields[i];
        tui_canvas_put(c, y, r.x + 3, f->label, TUI_ST(ra | TUI_A_BOLD, 0), 16);
        tui_view_form_value(c, y, r.x + 20, 17, f->value, TUI_ST(ra, 0), &m->edit,
                            sel && m->editing, cur);
        tui_canvas_put(c, y, r.x + 38, f->range, TUI_ST(ra, TUI_C_MUTED), r.w - 39);
    }
    int hy = r.y + r.h - help_rows;
    if (m->error) {
        tui_view_wrapped(c, (struct tui_rect){r.y, r.x + 1, r.h, r.w - 2}, hy - r.y, m->error,
                         TUI_ST(TUI_A_BOLD, TUI_C_BAD), help_rows);
    } else if (m->fsel < m->n_fields) {
        tui_view_wrapped(c, (struct tui_rect){r.y, r.x + 1, r.h, r.w - 2}, hy - r.y,
                         m->fields[m->fsel].help, TUI_ST(0, 0), help_rows);
    } else {
        tui_view_wrapped(c, (struct tui_rect){r.y, r.x + 1, r.h, r.w - 2}, hy - r.y,
                         "Enter or s starts the run; q or Ctrl-C cancels it.",
                         TUI_ST(0, TUI_C_MUTED), help_rows);
    }
}

/* Draws the chart of the series named `chart` into cr: those with samples
 * (every one while none has any, so a waiting chart still has its legend),
 * at most 8; colours cycle through the 6 series colours, dashed the second
 * time round. A histogram (staleness) is a line over its bucket axis: the
 * chart widget draws lines only. */
static void draw_group(struct tui_lab_model *m, struct tui_canvas *c, struct tui_rect cr,
                       const char *chart)
{
    enum { MAX_SERIES = 8, N_COLORS = TUI_C_S6 - TUI_C_S1 + 1 };
    struct tui_series sv[MAX_SERIES];
    size_t ns = 0;
    bool any = false;
    for (size_t i = 0; i < m->n_series; i++)
        any |= m->series[i].n > 0 && strcmp(m->series[i].chart, chart) == 0;
    const struct tui_lab_series *first = NULL;
    for (size_t i = 0; i < m->n_series && ns < MAX_SERIES; i++) {
        const struct tui_lab_series *s = &m->series[i];
        if (strcmp(s->chart, chart) != 0 || (any && s->n == 0))
            continue;
        if (!first)
            first = s;
        sv[ns] = (struct tui_series){
            s->label, s->x, s->y, s->n, (uint8_t)(TUI_C_S1 + ns % N_COLORS), ns >= N_COLORS};
        ns++;
    }
    const char *title = first && first->chart_title ? first->chart_title : chart;
    struct tui_chart ch = {title,
                           first ? first->x_label : "",
                           first ? first->unit : "",
                           sv,
                           ns,
                           true,
                           first && first->x_log,
                           true};
    tui_chart_draw(c, cr, &ch, m->blocks);
}

static bool group_has_data(const struct tui_lab_model *m, const char *chart)
{
    for (size_t i = 0; i < m->n_series; i++)
        if (m->series[i].n > 0 && strcmp(m->series[i].chart, chart) == 0)
            return true;
    return false;
}

/* The chart groups the current phase draws, in series order (see
 * tui_lab_chart_count): stores the names of groups skip .. skip+max-1 in
 * out and returns how many groups there are in all. */
static size_t chart_groups(const struct tui_lab_model *m, size_t skip, const char **out, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < m->n_series; i++) {
        const char *g = m->series[i].chart;
        bool seen = false;
        for (size_t k = 0; k < i && !seen; k++)
            seen = strcmp(m->series[k].chart, g) == 0;
        if (seen || (m->phase == TUI_LAB_DONE && !group_has_data(m, g)))
            continue;
        if (n >= skip && n - skip < max)
            out[n - skip] = g;
        n++;
    }
    return n;
}

size_t tui_lab_chart_count(const struct tui_lab_model *m)
{
    return chart_groups(m, 0, NULL, 0);
}

static size_t per_page(const struct tui_lab_model *m)
{
    return m->per_page ? m->per_page : TUI_LAB_CHARTS_PER_PAGE;
}

size_t tui_lab_chart_pages(const struct tui_lab_model *m)
{
    size_t n = tui_lab_chart_count(m), pp = per_page(m);
    return n ? (n + pp - 1) / pp : 1;
}

/* The page drawn: the model's, or the last one when it has fewer now. */
static size_t chart_page(const struct tui_lab_model *m)
{
    size_t pages = tui_lab_chart_pages(m);
    return m->chart_page < pages ? m->chart_page : pages - 1;
}

/* "charts 5–7 of 7 · [ prev", right-aligned on the first row of r. */
static void draw_page_line(struct tui_canvas *c, struct tui_rect r, size_t total, size_t page,
                           size_t pages, size_t pp)
{
    const enum tui_charset cs = c->cs;
    size_t lo = page * pp + 1;
    size_t hi = lo + pp - 1 < total ? lo + pp - 1 : total;
    const char *dot = tui_glyph(cs, "·", "-");
    char t[96];
    int n = lo == hi ? snprintf(t, sizeof t, "chart %zu of %zu", lo, total)
                     : snprintf(t, sizeof t, "charts %zu%s%zu of %zu", lo, tui_glyph(cs, "–", "-"),
                                hi, total);
    if (page > 0)
        n += snprintf(t + n, sizeof t - (size_t)n, " %s [ prev", dot);
    if (page + 1 < pages)
        snprintf(t + n, sizeof t - (size_t)n, " %s ] next", page > 0 ? "" : dot);
    int x = r.x + r.w - tui_text_width(t) - 1;
    tui_canvas_put(c, r.y, x > r.x ? x : r.x, t, TUI_ST(TUI_A_BOLD, TUI_C_ACCENT), r.w);
}

/* Sets how many charts a page of r holds: four (2×2) when each keeps
 * TUI_LAB_CHART_MIN_H rows under a page line, else two side by side. A
 * change keeps the first chart shown on the page shown. */
static void fit_per_page(struct tui_lab_model *m, struct tui_rect r)
{
    size_t pp = r.h - 1 >= 2 * TUI_LAB_CHART_MIN_H ? TUI_LAB_CHARTS_PER_PAGE : 2;
    size_t was = per_page(m);
    if (pp != was) {
        m->chart_page = m->chart_page * was / pp;
        m->per_page = pp;
    }
}

static void draw_charts(struct tui_lab_model *m, struct tui_canvas *c, struct tui_rect r)
{
    fit_per_page(m, r);
    const char *groups[TUI_LAB_CHARTS_PER_PAGE];
    size_t pp = per_page(m), page = chart_page(m), pages = tui_lab_chart_pages(m);
    size_t total = chart_groups(m, page * pp, groups, pp);
    if (total == 0) {
        tui_canvas_put(c, r.y + r.h / 2, r.x + 2,
                       m->phase == TUI_LAB_DONE ? "no samples were recorded"
                                                : "waiting for the first samples...",
                       TUI_ST(0, TUI_C_MUTED), r.w - 4);
        return;
    }
    size_t ng = total - page * pp;
    if (ng > pp)
        ng = pp;
    /* With pages, a line saying which, and the same grid on each. */
    size_t slots = ng;
    if (pages > 1) {
        draw_page_line(c, r, total, page, pages, pp);
        r.y++;
        r.h--;
        slots = pp;
    }
    int cols = slots == 1 ? 1 : 2;
    int rowsn = slots <= 2 ? 1 : 2;
    int cw = r.w / cols, chh = r.h / rowsn;
    for (size_t g = 0; g < ng; g++) {
        int col = (int)g % cols, row = (int)g / cols;
        struct tui_rect cr = {r.y + row * chh, r.x + col * cw, chh,
                              col == cols - 1 ? r.w - col * cw : cw - 1};
        draw_group(m, c, cr, groups[g]);
    }
}

static void draw_run_header(struct tui_lab_model *m, struct tui_canvas *c, struct tui_rect r)
{
    int x = r.x + 1;
    x += tui_canvas_put(c, r.y, x, m->lab_name ? m->lab_name : "", TUI_ST(TUI_A_BOLD, TUI_C_ACCENT),
                        16) +
         2;
    const char *st = m->status ? m->status : "running";
    uint8_t col = strcmp(st, "done") == 0         ? TUI_C_GOOD
                  : strcmp(st, "running") == 0    ? TUI_C_ACCENT
                  : strncmp(st, "cancel", 6) == 0 ? TUI_C_WARN
                                                  : TUI_C_BAD;
    bool failed = col == TUI_C_BAD;
    x += tui_canvas_put(c, r.y, x, failed ? "failed" : st, TUI_ST(TUI_A_BOLD, col), 12) + 2;
    if (m->phase == TUI_LAB_DONE && m->run_id > 0 && !failed)
        x += tui_canvas_printf(c, r.y, x - 1, TUI_ST(0, TUI_C_MUTED), 24, "(run %lld recorded)",
                               m->run_id) +
             1;
    tui_bar_draw(c, r.y, x, 20, m->progress, TUI_ST(0, col));
    x += 21;
    x += tui_canvas_printf(c, r.y, x, TUI_ST(TUI_A_BOLD, 0), 5, "%3.0f%%", 100 * m->progress) + 2;
    char el[32];
    snprintf(el, sizeof el, "%.1f s", m->elapsed);
    int ew = tui_text_width(el);
    tui_canvas_put(c, r.y, x, m->progress_what ? m->progress_what : "", TUI_ST(0, 0),
                   r.x + r.w - ew - 2 - x);
    tui_canvas_put(c, r.y, r.x + r.w - ew - 1, el, TUI_ST(0, TUI_C_MUTED), -1);
}

static void draw_log(struct tui_lab_model *m, struct tui_canvas *c, struct tui_rect r)
{
    tui_canvas_box(c, r, "log", TUI_ST(0, TUI_C_MUTED));
    int rows = r.h - 2;
    size_t first = m->n_logs > (size_t)rows ? m->n_logs - (size_t)rows : 0;
    int y = r.y + 1;
    for (size_t i = first; i < m->n_logs; i++, y++)
        tui_canvas_put(c, y, r.x + 2, m->logs[i], TUI_ST(0, 0), r.w - 4);
}

/* tui_view_wrapped that ends its last row with "…" when text is left. */
static int wrapped_cut(struct tui_canvas *c, struct tui_rect r, int y, const char *text,
                       struct tui_style st, int max_rows)
{
    struct core_strlist l;
    core_strlist_init(&l);
    tui_text_wrap(text, r.w, &l);
    int rows = 0;
    for (size_t i = 0; i < l.n && rows < max_rows; i++, rows++) {
        bool last = rows == max_rows - 1 && i + 1 < l.n;
        if (last) {
            char *more = core_xasprintf("%s %s", l.items[i], l.items[i + 1]);
            tui_canvas_put_cut(c, r.y + y + rows, r.x, more, st, r.w);
            free(more);
        } else {
            tui_canvas_put(c, r.y + y + rows, r.x, l.items[i], st, r.w);
        }
    }
    core_strlist_fini(&l);
    return rows;
}

/* Under the header: the run's note (the CPU analog and why) and, once done,
 * a noisy run's warning, each wrapped to at most two rows, in rows r.y ..;
 * returns the rows used. */
static int draw_notes(struct tui_lab_model *m, struct tui_canvas *c, struct tui_rect r)
{
    const enum tui_charset cs = c->cs;
    struct tui_rect t = {r.y, r.x + 1, r.h, r.w - 2};
    int y = 0;
    if (m->note) {
        char *line = core_xasprintf("%s %s", tui_glyph(cs, "⚠", "!"), m->note);
        y += wrapped_cut(c, t, y, line, TUI_ST(TUI_A_BOLD, TUI_C_WARN), 2);
        free(line);
    }
    if (m->phase == TUI_LAB_DONE && m->noise) {
        char *line = core_xasprintf("%s r runs it again %s %s", tui_glyph(cs, "⚠", "!"),
                                    tui_glyph(cs, "—", "-"), m->noise);
        y += wrapped_cut(c, t, y, line, TUI_ST(TUI_A_BOLD, TUI_C_WARN), 2);
        free(line);
    }
    return y;
}

static void view_run(struct tui_lab_model *m, struct tui_canvas *c, struct tui_rect r)
{
    draw_run_header(m, c, r);
    int notes = draw_notes(m, c, (struct tui_rect){r.y + 1, r.x, r.h - 1, r.w});
    /* A smaller log on a small terminal leaves the charts room. */
    int log_h = r.h - 1 - notes >= 2 * TUI_LAB_CHART_MIN_H + 1 + 6 ? 6 : 4;
    struct tui_rect charts = {r.y + 1 + notes, r.x, r.h - 1 - notes - log_h, r.w};
    draw_charts(m, c, charts);
    draw_log(m, c, (struct tui_rect){r.y + r.h - log_h, r.x, log_h, r.w});
    if (m->confirm_cancel)
        tui_canvas_put(c, r.y + r.h - log_h, r.x + 8, " cancel the run? y/n ",
                       TUI_ST(TUI_A_BOLD | TUI_A_REVERSE, TUI_C_WARN), r.w - 10);
}

/* The results: label (cut with "…") and value (numbers for people) per
 * row, scrolled by m->ftop, in a box saying which rows show. */
static void draw_results(struct tui_lab_model *m, struct tui_canvas *c, struct tui_rect box)
{
    int rows = box.h - 2;
    m->fig_rows = rows > 0 ? rows : 0;
    size_t max_top = m->n_figs > (size_t)m->fig_rows ? m->n_figs - (size_t)m->fig_rows : 0;
    if (m->ftop > max_top)
        m->ftop = max_top;
    char title[64];
    size_t last =
        m->ftop + (size_t)m->fig_rows < m->n_figs ? m->ftop + (size_t)m->fig_rows : m->n_figs;
    if (max_top > 0)
        snprintf(title, sizeof title, "results %zu%s%zu of %zu", m->ftop + 1,
                 tui_glyph(c->cs, "–", "-"), last, m->n_figs);
    else
        snprintf(title, sizeof title, "results");
    bool focus = !m->focus_qs;
    tui_canvas_box(c, box, title,
                   TUI_ST(focus ? TUI_A_BOLD : 0, focus ? TUI_C_ACCENT : TUI_C_MUTED));
    int y = box.y + 1;
    if (!m->n_figs)
        tui_canvas_put(c, y, box.x + 2, "no figures", TUI_ST(0, TUI_C_MUTED), box.w - 4);
    /* values right-aligned; a long text value (the noise, a device name)
     * takes at most half the row and is cut, the label the rest */
    for (size_t i = m->ftop; i < last; i++, y++) {
        const struct tui_lab_fig *f = &m->figs[i];
        int vw = tui_text_width(f->value);
        int room = box.w - 4;
        int lw = tui_text_width(f->label);
        if (vw + 1 + lw > room) /* both do not fit: the value keeps up to half */
            vw = vw < room / 2 ? vw : room - 1 - (lw < room / 2 ? lw : room / 2);
        tui_canvas_put_cut(c, y, box.x + 2, f->label, TUI_ST(0, 0), room - vw - 1);
        tui_canvas_put_cut(c, y, box.x + box.w - 2 - vw, f->value, TUI_ST(TUI_A_BOLD, 0), vw);
    }
    if (m->ftop > 0)
        tui_canvas_put(c, box.y + 1, box.x + box.w - 1, tui_glyph(c->cs, "↑", "^"),
                       TUI_ST(TUI_A_BOLD, TUI_C_ACCENT), -1);
    if (m->ftop < max_top)
        tui_canvas_put(c, box.y + box.h - 2, box.x + box.w - 1, tui_glyph(c->cs, "↓", "v"),
                       TUI_ST(TUI_A_BOLD, TUI_C_ACCENT), -1);
}

static void draw_questions(struct tui_lab_model *m, struct tui_canvas *c, struct tui_rect right)
{
    const enum tui_charset cs = c->cs;
    bool focus = m->focus_qs;
    tui_canvas_box(c, right, "questions using this run",
                   TUI_ST(focus ? TUI_A_BOLD : 0, focus ? TUI_C_ACCENT : TUI_C_MUTED));
    int y = right.y + 1;
    if (!m->n_qs)
        tui_canvas_put(c, y, right.x + 2, "none in the current packs", TUI_ST(0, TUI_C_MUTED),
                       right.w - 4);
    size_t rows = (size_t)(right.h > 2 ? right.h - 2 : 0);
    size_t first = m->qsel >= rows && rows ? m->qsel - rows + 1 : 0;
    for (size_t i = first; i < m->n_qs && y < right.y + right.h - 1; i++, y++) {
        bool sel = i == m->qsel;
        uint8_t ra = sel && focus ? TUI_A_REVERSE : sel ? TUI_A_UNDER : 0;
        if (sel && focus)
            tui_canvas_fill(c, (struct tui_rect){y, right.x + 1, 1, right.w - 2}, ' ',
                            TUI_ST(ra, 0));
        tui_canvas_put(c, y, right.x + 2,
                       m->qs[i].answered ? tui_glyph(cs, "✓", "+") : tui_glyph(cs, "·", "."),
                       TUI_ST(ra | TUI_A_BOLD, m->qs[i].answered ? TUI_C_GOOD : TUI_C_MUTED), -1);
        tui_canvas_put_cut(c, y, right.x + 4, m->qs[i].title, TUI_ST(ra, 0), right.w - 6);
    }
}

/* The finished run: header, notes, a page of charts that keep a readable
 * height, then the results (a scrollable table) beside the questions that
 * use the run; a failed run shows its log instead of the results. */
static void view_done(struct tui_lab_model *m, struct tui_canvas *c, struct tui_rect r)
{
    draw_run_header(m, c, r);
    int notes = draw_notes(m, c, (struct tui_rect){r.y + 1, r.x, r.h - 1, r.w});
    int avail = r.h - 1 - notes;
    /* Charts: half the room, at least a chart's minimum and a page line,
     * the rest (at least 7 rows: five results) for the tables. */
    int charts_h = avail / 2;
    if (charts_h < TUI_LAB_CHART_MIN_H + 2)
        charts_h = TUI_LAB_CHART_MIN_H + 2;
    if (avail - charts_h < 7)
        charts_h = avail - 7;
    draw_charts(m, c, (struct tui_rect){r.y + 1 + notes, r.x, charts_h, r.w});
    int y0 = r.y + 1 + notes + charts_h;
    int h = r.y + r.h - y0;
    int lw = r.w * 3 / 5;
    struct tui_rect left = {y0, r.x, h, lw - 1}, right = {y0, r.x + lw, h, r.w - lw};
    bool failed = m->status && strcmp(m->status, "done") != 0;
    if (failed && m->n_logs)
        draw_log(m, c, left);
    else
        draw_results(m, c, left);
    draw_questions(m, c, right);
}

void tui_view_lab(struct tui_lab_model *m, struct tui_canvas *c, struct tui_rect r,
                  struct tui_cursor *cur)
{
    switch (m->phase) {
    case TUI_LAB_LIST:
        view_list(m, c, r);
        break;
    case TUI_LAB_FORM:
        view_form(m, c, r, cur);
        break;
    case TUI_LAB_RUN:
        view_run(m, c, r);
        break;
    case TUI_LAB_DONE:
        view_done(m, c, r);
        break;
    }
}

/* ---- the lab thread ------------------------------------------------------- */

/* What the lab thread shares with the UI thread; everything below `mu` is
 * guarded by it. */
struct live {
    pthread_mutex_t mu;
    atomic_int cancel;
    const struct lab_params *params; /* read-only while running */
    const char *db_path;
    int64_t user_id;
    unsigned version;
    struct tui_lab_series *series;
    size_t n_series;
    char *logs[LOG_KEEP];
    size_t n_logs;
    unsigned long logs_total; /* lines ever logged */
    double progress;
    char what[128];
    struct tui_lab_fig *figs;
    size_t n_figs;
    char *note;  /* the first LAB_LOG_NOTE */
    char *noise; /* the summary's "noise" when its "noisy" is 1 */
    bool finished;
    int rc;
    long long run_id;
    char status[16];
    char error[256];
};

static struct tui_lab_series *live_series(struct live *lv, const char *name)
{
    for (size_t i = 0; i < lv->n_series; i++)
        if (strcmp(lv->series[i].name, name) == 0)
            return &lv->series[i];
    /* A series the definition did not list: a chart of its own. */
    lv->series = core_xrealloc(lv->series, (lv->n_series + 1) * sizeof *lv->series);
    struct tui_lab_series *s = &lv->series[lv->n_series++];
    *s = (struct tui_lab_series){.name = core_xstrdup(name),
                                 .label = core_xstrdup(name),
                                 .unit = core_xstrdup(""),
                                 .chart = core_xstrdup(name),
                                 .x_label = core_xstrdup("step")};
    return s;
}

static void sink_sample(void *ud, const struct core_sample *smp)
{
    struct live *lv = ud;
    pthread_mutex_lock(&lv->mu);
    tui_lab_series_add(live_series(lv, smp->series), (double)smp->step, smp->value);
    lv->version++;
    pthread_mutex_unlock(&lv->mu);
}

static void live_log(struct live *lv, const char *line)
{
    if (lv->n_logs == LOG_KEEP) {
        free(lv->logs[0]);
        memmove(lv->logs, lv->logs + 1, (LOG_KEEP - 1) * sizeof *lv->logs);
        lv->n_logs--;
    }
    lv->logs[lv->n_logs++] = core_xstrdup(line);
    lv->logs_total++;
    lv->version++;
}

static void sink_log(void *ud, enum lab_log_level level, const char *line)
{
    struct live *lv = ud;
    char *l = core_xasprintf("%s%s",
                             level == LAB_LOG_ERROR                           ? "error: "
                             : level == LAB_LOG_WARN || level == LAB_LOG_NOTE ? "warning: "
                                                                              : "",
                             line);
    pthread_mutex_lock(&lv->mu);
    live_log(lv, l);
    if (level == LAB_LOG_NOTE && !lv->note)
        lv->note = core_xstrdup(line);
    pthread_mutex_unlock(&lv->mu);
    free(l);
}

static void sink_progress(void *ud, double fraction, const char *what)
{
    struct live *lv = ud;
    pthread_mutex_lock(&lv->mu);
    lv->progress = fraction < 0 ? 0 : fraction > 1 ? 1 : fraction;
    snprintf(lv->what, sizeof lv->what, "%s", what ? what : "");
    lv->version++;
    pthread_mutex_unlock(&lv->mu);
}

static void sink_summary(void *ud, const struct lab_summary *s)
{
    struct live *lv = ud;
    struct tui_lab_fig *f = core_xcalloc(s->n ? s->n : 1, sizeof *f);
    for (size_t i = 0; i < s->n; i++) {
        const struct lab_figure *g = &s->v[i];
        f[i].label = core_xstrdup(g->label && g->label[0] ? g->label : g->key);
        if (g->str) {
            f[i].value = core_xstrdup(g->str);
        } else {
            char v[64];
            tui_num_format(g->num, g->unit, v, sizeof v);
            f[i].value = core_xstrdup(v);
        }
    }
    const struct lab_figure *noisy = lab_summary_find(s, "noisy");
    const struct lab_figure *noise = lab_summary_find(s, "noise");
    pthread_mutex_lock(&lv->mu);
    figs_free(lv->figs, lv->n_figs);
    lv->figs = f;
    lv->n_figs = s->n;
    free(lv->noise);
    lv->noise = noisy && noisy->num == 1 && noise && noise->str ? core_xstrdup(noise->str) : NULL;
    lv->version++;
    pthread_mutex_unlock(&lv->mu);
}

static void *lab_thread(void *arg)
{
    struct live *lv = arg;
    struct core_err e = {0};
    struct db *db = NULL;
    struct lab_result res = {0};
    int rc = db_open(&db, lv->db_path, &e);
    if (rc == CORE_OK) {
        struct lab_sink sink = {sink_sample, sink_log, sink_progress, sink_summary, lv};
        struct lab_run_opts o = {
            .db = db, .user_id = lv->user_id, .sinks = &sink, .n_sinks = 1, .cancel = &lv->cancel};
        rc = lab_run(lv->params, &o, &res, &e);
    }
    pthread_mutex_lock(&lv->mu);
    lv->finished = true;
    lv->rc = rc;
    snprintf(lv->status, sizeof lv->status, "%s",
             res.status[0]              ? res.status
             : rc == CORE_ERR_CANCELLED ? "cancelled"
                                        : "failed");
    snprintf(lv->error, sizeof lv->error, "%s", res.error ? res.error : rc ? e.msg : "");
    lv->run_id = res.run_id;
    lv->version++;
    pthread_mutex_unlock(&lv->mu);
    lab_result_fini(&res);
    db_close(db);
    return NULL;
}

static void live_free(struct live *lv)
{
    if (!lv)
        return;
    series_free(lv->series, lv->n_series);
    for (size_t i = 0; i < lv->n_logs; i++)
        free(lv->logs[i]);
    figs_free(lv->figs, lv->n_figs);
    free(lv->note);
    free(lv->noise);
    pthread_mutex_destroy(&lv->mu);
    free(lv);
}

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
    struct live *live;
    pthread_t thread;
    bool running;
    unsigned seen; /* live->version copied */
    double t0;
    char title[96];
};

static void fill_fields(struct lab *l)
{
    fields_free(&l->m);
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

/* Copies what the lab thread added since the last tick into the model. */
static void sync_live(struct lab *l)
{
    struct live *lv = l->live;
    struct tui_lab_model *m = &l->m;
    pthread_mutex_lock(&lv->mu);
    if (lv->version != l->seen) {
        l->seen = lv->version;
        if (m->n_series < lv->n_series) {
            m->series = core_xrealloc(m->series, lv->n_series * sizeof *m->series);
            for (size_t i = m->n_series; i < lv->n_series; i++) {
                const struct tui_lab_series *s = &lv->series[i];
                m->series[i] = (struct tui_lab_series){
                    .name = core_xstrdup(s->name),
                    .label = core_xstrdup(s->label),
                    .unit = core_xstrdup(s->unit),
                    .chart = core_xstrdup(s->chart),
                    .x_label = core_xstrdup(s->x_label),
                    .chart_title = s->chart_title ? core_xstrdup(s->chart_title) : NULL,
                    .x_log = s->x_log,
                    .snapshot = s->snapshot};
            }
            m->n_series = lv->n_series;
        }
        for (size_t i = 0; i < lv->n_series; i++)
            tui_lab_series_sync(&m->series[i], &lv->series[i]);
        strs_free(m->logs, m->n_logs);
        m->logs = core_xcalloc(lv->n_logs ? lv->n_logs : 1, sizeof *m->logs);
        for (size_t i = 0; i < lv->n_logs; i++)
            m->logs[i] = core_xstrdup(lv->logs[i]);
        m->n_logs = lv->n_logs;
        m->progress = lv->progress;
        free(m->progress_what);
        m->progress_what = core_xstrdup(lv->what);
        if (lv->note && !m->note)
            m->note = core_xstrdup(lv->note);
        free(m->noise);
        m->noise = lv->noise ? core_xstrdup(lv->noise) : NULL;
        m->run_id = lv->run_id;
        if (lv->n_figs != m->n_figs || lv->finished) {
            figs_free(m->figs, m->n_figs);
            m->figs = core_xcalloc(lv->n_figs ? lv->n_figs : 1, sizeof *m->figs);
            for (size_t i = 0; i < lv->n_figs; i++) {
                m->figs[i].label = core_xstrdup(lv->figs[i].label);
                m->figs[i].value = core_xstrdup(lv->figs[i].value);
            }
            m->n_figs = lv->n_figs;
        }
    }
    pthread_mutex_unlock(&lv->mu);
}

static void load_questions(struct tui_app *a, struct lab *l)
{
    struct core_err e = {0};
    struct db_question *qs = NULL;
    size_t n = 0;
    struct db_progress_row *rows = NULL;
    size_t nr = 0;
    qs_free(l->m.qs, l->m.n_qs);
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
    pthread_join(l->thread, NULL);
    l->running = false;
    l->seen = l->live->version - 1; /* force a last copy */
    sync_live(l);
    struct live *lv = l->live;
    free(l->m.status);
    if (strcmp(lv->status, "done") == 0)
        l->m.status = core_xstrdup("done");
    else if (strcmp(lv->status, "cancelled") == 0)
        l->m.status = core_xstrdup("cancelled");
    else
        l->m.status = core_xasprintf("failed: %s", lv->error);
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
    live_free(l->live);
    struct live *lv = core_xcalloc(1, sizeof *lv);
    pthread_mutex_init(&lv->mu, NULL);
    atomic_init(&lv->cancel, 0);
    lv->params = &l->params;
    lv->db_path = a->db_path;
    lv->user_id = a->user_id;
    /* The definition's series first, so charts keep their order. */
    for (size_t i = 0; i < l->def->n_series; i++) {
        const struct lab_series_def *d = &l->def->series[i];
        struct tui_lab_series *s = live_series(lv, d->name);
        free(s->label);
        free(s->unit);
        free(s->chart);
        free(s->x_label);
        s->label = core_xstrdup(d->label ? d->label : d->name);
        s->unit = core_xstrdup(d->unit ? d->unit : "");
        s->chart = core_xstrdup(d->chart ? d->chart : d->name);
        s->x_label = core_xstrdup(d->x_label ? d->x_label : "step");
        s->snapshot = lab_series_snapshot(l->def, d->name);
        const struct lab_chart_def *cd = lab_chart_find(l->def, s->chart);
        free(s->chart_title);
        s->chart_title = cd && cd->title ? core_xstrdup(cd->title) : NULL;
        s->x_log = cd && cd->x_log;
    }
    l->live = lv;
    l->seen = 0;
    /* The lab thread must not take the terminal's signals (resize, Ctrl-C
     * from outside, SIGTERM): block them there, so they reach this thread. */
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGHUP);
    sigaddset(&block, SIGWINCH);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    int rc = pthread_create(&l->thread, NULL, lab_thread, lv);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        set_error(l, "could not start a thread for the lab");
        return;
    }
    l->running = true;
    l->t0 = core_time_mono();
    l->m.status = core_xstrdup("running");
    l->m.phase = TUI_LAB_RUN;
    sync_live(l);
}

static void cancel_run(struct tui_app *a, struct lab *l)
{
    if (!l->running)
        return;
    atomic_store(&l->live->cancel, 1);
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
    if (l->running) {
        atomic_store(&l->live->cancel, 1);
        pthread_join(l->thread, NULL);
        l->running = false;
    }
    live_free(l->live);
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
    sync_live(l);
    l->m.elapsed = core_time_mono() - l->t0;
    pthread_mutex_lock(&l->live->mu);
    bool done = l->live->finished;
    pthread_mutex_unlock(&l->live->mu);
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
