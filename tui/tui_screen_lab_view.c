/*
 * tui_screen_lab_view.c — the lab screen drawn from its model, and nothing
 * else (no store, no lab, no thread): the list of labs, the parameter form,
 * a run live (charts in pages of up to four, the progress bar, the log) and
 * a finished run (its charts, the results table and the questions that use
 * the run).
 */
#include "tui/tui_screen.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void view_list(struct tui_lab_model *m, struct tui_canvas *c, struct tui_rect r)
{
    tui_canvas_put(c, r.y, r.x + 1,
                   "Labs run real experiments on this machine; questions then use your numbers.",
                   TUI_ST(0, TUI_C_MUTED), r.w - 2);
    int y = r.y + 2;
    if (!m->n_labs)
        tui_canvas_put(c, y, r.x + 2, "no labs in this build", TUI_ST(0, TUI_C_WARN), -1);
    for (size_t i = 0; i < m->n_labs && y + 1 < r.y + r.h; i++, y += 2) {
        uint8_t ra = tui_view_list_row(c, r, y, i == m->lsel, false);
        tui_canvas_put(c, y, r.x + 3, m->labs[i].name, TUI_ST(ra | TUI_A_BOLD, 0), 14);
        tui_canvas_put_cut(c, y, r.x + 18, m->labs[i].title, TUI_ST(ra, 0), r.w - 19);
        tui_canvas_put_cut(c, y + 1, r.x + 18, m->labs[i].summary, TUI_ST(0, TUI_C_MUTED),
                           r.w - 19);
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
        uint8_t ra = tui_view_list_row(c, r, y, sel, m->editing);
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
    for (size_t g = 0; g < ng; g++)
        draw_group(m, c, tui_chart_grid_cell(r, cols, rowsn, TUI_LAB_CHART_MIN_H, (int)g),
                   groups[g]);
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
    /* A run that is done is 100% done, whatever a lab last reported (the
     * roofline lab's last report is 80%: "done ... 80%"). */
    double progress = m->phase == TUI_LAB_DONE && strcmp(st, "done") == 0 ? 1 : m->progress;
    tui_bar_draw(c, r.y, x, 20, progress, TUI_ST(0, col));
    x += 21;
    x += tui_canvas_printf(c, r.y, x, TUI_ST(TUI_A_BOLD, 0), 5, "%3.0f%%", 100 * progress) + 2;
    char el[32];
    snprintf(el, sizeof el, "%.1f s", m->elapsed);
    int ew = tui_text_width(el);
    tui_canvas_put_cut(c, r.y, x, m->progress_what ? m->progress_what : "", TUI_ST(0, 0),
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
 * why a failed run stopped and a noisy run's warning, each wrapped (a note or
 * warning to at most two rows), in rows r.y ..;
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
    /* A failed run says why, whole (the lab's advice, e.g. a smaller lr):
     * wrapped over as many rows as it takes, up to a third of the room. */
    const char *why =
        m->phase == TUI_LAB_DONE && m->status && strncmp(m->status, "failed: ", 8) == 0
            ? m->status + 8
            : NULL;
    if (why && *why) {
        char *line = core_xasprintf("%s why it stopped: %s", tui_glyph(cs, "✗", "x"), why);
        int max_rows = r.h / 3 > 2 ? r.h / 3 : 2;
        y += wrapped_cut(c, t, y, line, TUI_ST(TUI_A_BOLD, TUI_C_BAD), max_rows);
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

/* A label in w columns: whole when it fits, else cut after its last whole
 * word that leaves room for "…" ("FNV-1a of the final…", never "centr…"). */
static void label_cut(struct tui_canvas *c, int y, int x, const char *label, int w)
{
    if (w <= 0)
        return;
    if (tui_text_width(label) <= w) {
        tui_canvas_put(c, y, x, label, TUI_ST(0, 0), w);
        return;
    }
    int ell = c->cs == TUI_CS_ASCII ? 3 : 1;
    struct core_strlist l;
    core_strlist_init(&l);
    tui_text_wrap(label, w - ell, &l);
    if (w > ell && l.n > 0 && tui_text_width(l.items[0]) >= (w - ell) / 2) {
        char *s = core_xasprintf("%s%s", l.items[0], tui_glyph(c->cs, "…", "..."));
        tui_canvas_put(c, y, x, s, TUI_ST(0, 0), w);
        free(s);
    } else { /* one long word: cut inside it */
        tui_canvas_put_cut(c, y, x, label, TUI_ST(0, 0), w);
    }
    core_strlist_fini(&l);
}

/* The results: label (cut with "…" after a whole word) and value (numbers for people) per
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
        label_cut(c, y, box.x + 2, f->label, room - vw - 1);
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
