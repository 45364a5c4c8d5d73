/*
 * tui_screen_calc.c — calculators (calculator{} in a lesson): the list of
 * every calculator of the installed packs, and one calculator as a form of
 * inputs (label, value with its unit, allowed range, help) over its outputs,
 * which are recomputed after every change: numbers formatted as the CLI
 * shows them (lesson_calc_value_format), texts verbatim, several-line texts
 * (ASCII diagrams) in a box.
 *
 * Values are checked here against the declared range before the
 * calculator runs, so a mistake is a short message in the footer and the
 * old value stays; lesson_calc_run checks again and has the last word.
 * Nothing is graded or recorded.
 */
#include "tui/tui_screen.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- model ---------------------------------------------------------------- */

void tui_calc_model_init(struct tui_calc_model *m)
{
    *m = (struct tui_calc_model){0};
    tui_input_init(&m->edit);
}

void tui_calc_model_clear_outs(struct tui_calc_model *m)
{
    for (size_t i = 0; i < m->n_outs; i++) {
        free(m->outs[i].label);
        free(m->outs[i].value);
        free(m->outs[i].text);
    }
    free(m->outs);
    free(m->error);
    m->outs = NULL;
    m->n_outs = 0;
    m->error = NULL;
}

static void fields_free(struct tui_calc_model *m)
{
    tui_form_fields_free(m->fields, m->n_fields);
    m->fields = NULL;
    m->n_fields = 0;
}

void tui_calc_model_fini(struct tui_calc_model *m)
{
    tui_calc_model_clear_outs(m);
    free(m->stale);
    m->stale = NULL;
    fields_free(m);
    for (size_t i = 0; i < m->n_items; i++) {
        free(m->items[i].id);
        free(m->items[i].title);
        free(m->items[i].lesson);
    }
    free(m->items);
    free(m->title);
    free(m->where);
    tui_input_fini(&m->edit);
    *m = (struct tui_calc_model){0};
}

double tui_calc_step(double v, int dir, double min, double max, bool integer)
{
    double d;
    if (integer) {
        d = 1;
    } else if (v != 0) {
        double a = fabs(v);
        double e = floor(log10(a));
        /* Toward zero from a power of ten the next smaller step, so that
         * 1 -> 0.99 -> 1 rather than 1 -> 0.9 -> 0.91. */
        bool toward_zero = (dir < 0) == (v > 0);
        if (toward_zero && a <= pow(10, e) * (1 + 1e-9))
            e -= 1;
        d = pow(10, e - 1);
    } else {
        double span = max - min;
        d = isfinite(span) && span > 0 ? pow(10, floor(log10(span)) - 2) : 1;
    }
    double nv = v + (dir < 0 ? -d : d);
    /* Drop binary noise (0.1 + 0.2): twelve significant figures. */
    char b[64];
    core_num_format(b, sizeof b, nv, 12);
    core_num_parse(b, strlen(b), 0, &nv, NULL, NULL);
    if (integer)
        nv = round(nv);
    if (nv < min)
        nv = min;
    if (nv > max)
        nv = max;
    return nv;
}

void tui_calc_range_text(double min, double max, bool integer, char *buf, size_t n)
{
    bool lo = isfinite(min), hi = isfinite(max);
    const char *whole = integer ? ", whole" : "";
    if (lo && hi)
        snprintf(buf, n, "%.10g to %.10g%s", min, max, whole);
    else if (lo)
        snprintf(buf, n, "at least %.10g%s", min, whole);
    else if (hi)
        snprintf(buf, n, "at most %.10g%s", max, whole);
    else
        snprintf(buf, n, "any %s", integer ? "whole number" : "number");
}

/* ---- view ----------------------------------------------------------------- */

static void view_list(struct tui_calc_model *m, struct tui_canvas *c, struct tui_rect r)
{
    const enum tui_charset cs = c->cs;
    tui_canvas_put(c, r.y, r.x + 1,
                   "Calculators from the lessons: change the inputs, the outputs follow at once.",
                   TUI_ST(0, TUI_C_MUTED), r.w - 2);
    int y = r.y + 2;
    struct tui_style head = TUI_ST(TUI_A_UNDER, TUI_C_MUTED);
    int xl = r.x + 3 + (r.w - 4) / 2;
    tui_canvas_put(c, y, r.x + 3, "calculator", head, -1);
    tui_canvas_put(c, y, xl, "lesson", head, -1);
    y++;
    if (!m->n_items) {
        tui_canvas_put(c, y, r.x + 3, "no calculators in the installed packs",
                       TUI_ST(0, TUI_C_WARN), r.w - 4);
        return;
    }
    size_t rows = (size_t)(r.y + r.h - y > 0 ? r.y + r.h - y : 1);
    if (m->isel < m->itop)
        m->itop = m->isel;
    if (m->isel >= m->itop + rows)
        m->itop = m->isel - rows + 1;
    for (size_t i = m->itop; i < m->n_items && y < r.y + r.h; i++, y++) {
        const struct tui_calc_item *it = &m->items[i];
        uint8_t ra = tui_view_list_row(c, r, y, i == m->isel, false);
        tui_canvas_put(c, y, r.x + 3, it->title, TUI_ST(ra | TUI_A_BOLD, 0), xl - r.x - 4);
        tui_canvas_put(c, y, xl, it->lesson, TUI_ST(ra, TUI_C_MUTED), r.x + r.w - xl - 1);
    }
    if (m->itop + rows < m->n_items)
        tui_canvas_put(c, r.y + r.h - 1, r.x + r.w - 2, tui_glyph(cs, "↓", "v"),
                       TUI_ST(TUI_A_BOLD, TUI_C_MUTED), -1);
}

/* Output rows are drawn through a window: virtual row `at` lands on screen
 * row y0 + at - first when it is inside [first, first + rows). */
struct out_win {
    struct tui_canvas *c;
    int y0, x, w;
    size_t first, rows;
    size_t at; /* the next virtual row */
};

static int win_row(const struct out_win *o)
{
    if (o->at < o->first || o->at >= o->first + o->rows)
        return -1;
    return o->y0 + (int)(o->at - o->first);
}

/* A several-line text in a box titled with its label. */
static void draw_box(struct out_win *o, const struct tui_calc_out *out)
{
    struct core_strlist lines;
    core_strlist_init(&lines);
    const char *p = out->text;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        char *line = core_xstrndup(p, len);
        core_strlist_push(&lines, line);
        free(line);
        p += len + (nl ? 1 : 0);
    }
    int inner = tui_text_width(out->label) + 2;
    for (size_t i = 0; i < lines.n; i++) {
        int lw = tui_text_width(lines.items[i]);
        inner = lw > inner ? lw : inner;
    }
    int bw = inner + 4 > o->w ? o->w : inner + 4;
    struct tui_style bs = TUI_ST(0, TUI_C_MUTED);
    int y = win_row(o);
    if (y >= 0) {
        tui_canvas_put(o->c, y, o->x, "┌", bs, -1);
        for (int x = 1; x < bw - 1; x++)
            tui_canvas_put(o->c, y, o->x + x, "─", bs, -1);
        tui_canvas_put(o->c, y, o->x + bw - 1, "┐", bs, -1);
        int n = tui_canvas_put(o->c, y, o->x + 3, out->label, TUI_ST(TUI_A_BOLD, 0), bw - 6);
        tui_canvas_put(o->c, y, o->x + 2, " ", bs, -1);
        tui_canvas_put(o->c, y, o->x + 3 + n, " ", bs, -1);
    }
    o->at++;
    for (size_t i = 0; i < lines.n; i++, o->at++) {
        if ((y = win_row(o)) < 0)
            continue;
        tui_canvas_put(o->c, y, o->x, "│", bs, -1);
        tui_canvas_put(o->c, y, o->x + 2, lines.items[i], TUI_ST(0, TUI_C_CODE), bw - 4);
        tui_canvas_put(o->c, y, o->x + bw - 1, "│", bs, -1);
    }
    if ((y = win_row(o)) >= 0) {
        tui_canvas_put(o->c, y, o->x, "└", bs, -1);
        for (int x = 1; x < bw - 1; x++)
            tui_canvas_put(o->c, y, o->x + x, "─", bs, -1);
        tui_canvas_put(o->c, y, o->x + bw - 1, "┘", bs, -1);
    }
    o->at++;
    core_strlist_fini(&lines);
}

/* Draws every output through the window; returns the rows they take. */
static size_t draw_outs(struct tui_calc_model *m, struct out_win *o)
{
    int lw = 0;
    for (size_t i = 0; i < m->n_outs; i++)
        if (!m->outs[i].text || !strchr(m->outs[i].text, '\n')) {
            int w = tui_text_width(m->outs[i].label);
            lw = w > lw ? w : lw;
        }
    if (lw > o->w / 2)
        lw = o->w / 2;
    int xv = lw + 2; /* relative to o->x */
    for (size_t i = 0; i < m->n_outs; i++) {
        const struct tui_calc_out *out = &m->outs[i];
        if (out->text && strchr(out->text, '\n')) {
            draw_box(o, out);
            continue;
        }
        int y = win_row(o);
        if (y >= 0)
            tui_canvas_put(o->c, y, o->x, out->label, TUI_ST(0, 0), lw);
        if (!out->text) {
            if (y >= 0)
                tui_canvas_put(o->c, y, o->x + xv, out->value ? out->value : "",
                               TUI_ST(TUI_A_BOLD, TUI_C_ACCENT), o->w - xv);
            o->at++;
            continue;
        }
        /* A one-line text: wrapped in the value column. */
        struct core_strlist l;
        core_strlist_init(&l);
        tui_text_wrap(out->text, o->w - xv > 10 ? o->w - xv : 10, &l);
        for (size_t k = 0; k < (l.n ? l.n : 1); k++, o->at++)
            if ((y = win_row(o)) >= 0 && k < l.n)
                tui_canvas_put(o->c, y, o->x + xv, l.items[k], TUI_ST(TUI_A_BOLD, 0), o->w - xv);
        core_strlist_fini(&l);
    }
    return o->at;
}

static void view_form(struct tui_calc_model *m, struct tui_canvas *c, struct tui_rect r,
                      struct tui_cursor *cur)
{
    const enum tui_charset cs = c->cs;
    tui_canvas_put(c, r.y, r.x + 1, m->title ? m->title : "", TUI_ST(TUI_A_BOLD, TUI_C_ACCENT),
                   r.w - 2);
    if (m->where)
        tui_canvas_put(c, r.y + 1, r.x + 1, m->where, TUI_ST(0, TUI_C_MUTED), r.w - 2);
    /* Columns: label, value, allowed range. */
    int lw = 5, vw = 12;
    for (size_t i = 0; i < m->n_fields; i++) {
        int w = tui_text_width(m->fields[i].label);
        lw = w > lw ? w : lw;
        w = tui_text_width(m->fields[i].value);
        vw = w > vw ? w : vw;
    }
    if (lw > 36)
        lw = 36;
    if (lw > r.w / 2 - 4)
        lw = r.w / 2 - 4;
    if (vw > 18)
        vw = 18;
    int xv = r.x + 3 + lw + 2, xr = xv + vw + 2;
    int y = r.y + 3;
    struct tui_style head = TUI_ST(TUI_A_UNDER, TUI_C_MUTED);
    tui_canvas_put(c, y, r.x + 3, "input", head, -1);
    tui_canvas_put(c, y, xv, "value", head, -1);
    tui_canvas_put(c, y, xr, "allowed", head, -1);
    y++;
    /* The inputs take what they need, leaving the outputs at least 4 rows. */
    int max_rows = r.y + r.h - y - 2 - 5;
    if (max_rows < 1)
        max_rows = 1;
    size_t first = 0;
    if (m->fsel >= (size_t)max_rows)
        first = m->fsel - (size_t)max_rows + 1;
    for (size_t i = first; i < m->n_fields && i < first + (size_t)max_rows; i++, y++) {
        const struct tui_form_field *f = &m->fields[i];
        bool sel = i == m->fsel;
        uint8_t ra = tui_view_list_row(c, r, y, sel, m->editing);
        tui_canvas_put(c, y, r.x + 3, f->label, TUI_ST(ra, 0), lw);
        tui_view_form_value(c, y, xv, vw, f->value, TUI_ST(ra | TUI_A_BOLD, 0), &m->edit,
                            sel && m->editing, cur);
        tui_canvas_put(c, y, xr, f->range, TUI_ST(ra, TUI_C_MUTED), r.x + r.w - xr - 1);
    }
    /* The selected input's help, or how editing works. */
    const char *help = m->editing
                           ? "outputs follow as you type; Enter keeps the value, Esc the old one"
                       : m->fsel < m->n_fields ? m->fields[m->fsel].help
                                               : NULL;
    if (help && help[0])
        tui_canvas_put(c, y, r.x + 3, help, TUI_ST(0, TUI_C_MUTED), r.w - 4);
    y += 2;
    /* Outputs, scrolled. */
    tui_canvas_put(c, y, r.x + 1, "Outputs", TUI_ST(TUI_A_BOLD, 0), -1);
    y++;
    int rows = r.y + r.h - y;
    if (rows < 1)
        rows = 1;
    m->out_rows = rows;
    const char *err = m->editing && m->stale ? m->stale : m->error;
    if (err) {
        tui_view_wrapped(c, (struct tui_rect){y, r.x + 3, rows, r.w - 4}, 0, err,
                         TUI_ST(TUI_A_BOLD, TUI_C_BAD), rows);
        return;
    }
    /* Count the rows first (a window that shows nothing), then clamp. */
    struct out_win o = {c, y, r.x + 3, r.w - 4, 0, 0, 0};
    size_t total = draw_outs(m, &o);
    size_t max_top = total > (size_t)rows ? total - (size_t)rows : 0;
    if (m->otop > max_top)
        m->otop = max_top;
    o = (struct out_win){c, y, r.x + 3, r.w - 4, m->otop, (size_t)rows, 0};
    draw_outs(m, &o);
    /* Where the rest is, on the heading's row (never over a diagram). */
    bool up = m->otop > 0, down = m->otop < max_top;
    const char *more = up && down ? tui_glyph(cs, "↑↓ more: PgUp/PgDn", "^v more: PgUp/PgDn")
                       : up       ? tui_glyph(cs, "↑ more: PgUp", "^ more: PgUp")
                       : down     ? tui_glyph(cs, "↓ more: PgDn", "v more: PgDn")
                                  : NULL;
    if (more)
        tui_canvas_put(c, y - 1, r.x + r.w - 1 - tui_text_width(more), more,
                       TUI_ST(TUI_A_BOLD, TUI_C_MUTED), -1);
}

void tui_view_calc(struct tui_calc_model *m, struct tui_canvas *c, struct tui_rect r,
                   struct tui_cursor *cur)
{
    if (m->phase == TUI_CALC_LIST)
        view_list(m, c, r);
    else
        view_form(m, c, r, cur);
}

/* ---- logic ---------------------------------------------------------------- */

enum {
    A_UP = 1,
    A_DOWN,
    A_PGUP,
    A_PGDN,
    A_OPEN,
    A_EDIT,
    A_LEFT,
    A_RIGHT,
    A_DEFAULTS,
    A_BACK,
    A_APPLY,
    A_CANCEL
};

static const struct tui_binding keys_list[] = {
    {TUI_K_UP, 'k', A_UP, "k/Up", NULL, "previous calculator"},
    {TUI_K_DOWN, 'j', A_DOWN, "j/Down", "move", "next calculator"},
    {TUI_K_PGUP, 0, A_PGUP, "PgUp", NULL, "a page up"},
    {TUI_K_PGDN, 0, A_PGDN, "PgDn", NULL, "a page down"},
    {TUI_K_ENTER, 0, A_OPEN, "Enter", "open", "open the selected calculator"},
    {'q', TUI_K_ESC, A_BACK, "q", "back", "back to the lessons"},
};

static const struct tui_binding keys_form[] = {
    {TUI_K_UP, 'k', A_UP, "k/Up", NULL, "previous input"},
    {TUI_K_DOWN, 'j', A_DOWN, "j/Down", "move", "next input"},
    {TUI_K_ENTER, 'e', A_EDIT, "Enter", "edit", "type a new value (or just type a number)"},
    {TUI_K_LEFT, '-', A_LEFT, "Left/-", NULL, "step down (integers by 1; 0.2 by 0.01, 100 by 10)"},
    {TUI_K_RIGHT, '+', A_RIGHT, "Right/+", "step", "step up by the same steps"},
    {TUI_K_PGDN, ' ', A_PGDN, "Space/PgDn", NULL, "scroll the outputs down"},
    {TUI_K_PGUP, 'b', A_PGUP, "b/PgUp", NULL, "scroll the outputs up"},
    {'d', 0, A_DEFAULTS, "d", "defaults", "every input back to its default"},
    {'q', TUI_K_ESC, A_BACK, "q", "back", "back to the list or the lesson"},
};

static const struct tui_binding keys_edit[] = {
    {TUI_K_ENTER, 0, A_APPLY, "Enter", "set", "check the value and recompute"},
    {TUI_K_ESC, 0, A_CANCEL, "Esc", "cancel", "keep the old value"},
};

struct calc {
    struct tui_calc_model m;
    struct lesson_calc c; /* the open calculator (borrowed from the session) */
    char *calc_id;        /* "pack:calc" */
    double *vals;         /* one per input */
    double edit_was;      /* the edited input's value before editing (Esc restores it) */
    bool direct;          /* opened on one calculator: q closes the screen */
    char title[96];
};

/* An input's value as typed: integers whole, others with up to 10
 * significant figures. */
static void value_text(const struct grader_calc_input *in, double v, char *buf, size_t n)
{
    if (in->integer)
        snprintf(buf, n, "%.0f", v);
    else
        core_num_format(buf, n, v, 10);
}

static void fill_fields(struct calc *l)
{
    const struct grader_calc *gc = l->c.calc;
    fields_free(&l->m);
    l->m.fields = core_xcalloc(gc->n_inputs ? gc->n_inputs : 1, sizeof *l->m.fields);
    for (size_t i = 0; i < gc->n_inputs; i++) {
        const struct grader_calc_input *in = &gc->inputs[i];
        char val[64], range[128];
        value_text(in, l->vals[i], val, sizeof val);
        tui_calc_range_text(in->min, in->max, in->integer, range, sizeof range);
        struct tui_form_field *f = &l->m.fields[l->m.n_fields++];
        f->label = core_xstrdup(in->label && in->label[0] ? in->label : in->name);
        f->value =
            in->unit && in->unit[0] ? core_xasprintf("%s %s", val, in->unit) : core_xstrdup(val);
        f->range = core_xstrdup(range);
        f->help = in->help ? core_xstrdup(in->help) : NULL;
    }
}

static int recompute_quiet(struct tui_app *a, struct calc *l, bool quiet);

/* Runs the calculator on l->vals and fills the outputs (or the error).
 * Returns the lesson_calc_run code: CORE_ERR_USAGE means the values were
 * refused and nothing changed. */
static int recompute(struct tui_app *a, struct calc *l)
{
    return recompute_quiet(a, l, false);
}

/* recompute; quiet: a refused value says nothing (the student is still
 * typing it). */
static int recompute_quiet(struct tui_app *a, struct calc *l, bool quiet)
{
    const struct grader_calc *gc = l->c.calc;
    struct lesson_calc_set *set = core_xcalloc(gc->n_inputs ? gc->n_inputs : 1, sizeof *set);
    for (size_t i = 0; i < gc->n_inputs; i++)
        set[i] = (struct lesson_calc_set){gc->inputs[i].name, l->vals[i]};
    struct lesson_calc_result r;
    struct core_err e = {0};
    int rc = lesson_calc_run(a->db, a->sess, l->calc_id, set, gc->n_inputs, &r, &e);
    free(set);
    if (rc == CORE_ERR_USAGE) {
        if (!quiet)
            tui_app_msg(a, true, "%s", e.msg);
        return rc;
    }
    tui_calc_model_clear_outs(&l->m);
    if (rc != CORE_OK) {
        l->m.error = core_xasprintf("the calculator failed: %s", e.msg);
        tui_app_msg(a, true, "the calculator failed; see its outputs");
        return rc;
    }
    l->m.outs = core_xcalloc(r.n_outputs ? r.n_outputs : 1, sizeof *l->m.outs);
    for (size_t i = 0; i < r.n_outputs; i++) {
        const struct grader_calc_output *o = &r.outputs[i];
        struct tui_calc_out *to = &l->m.outs[l->m.n_outs++];
        to->label = core_xstrdup(o->label ? o->label : "");
        if (o->text) {
            to->text = core_xstrdup(o->text);
        } else {
            char v[128];
            lesson_calc_value_format(o->value, o->unit, v, sizeof v);
            to->value = core_xstrdup(v);
        }
    }
    lesson_calc_result_fini(&r);
    return CORE_OK;
}

/* Sets input i to v after checking it against the declared range; on a
 * mistake says why and keeps the old value. True when set. */
static bool set_value(struct tui_app *a, struct calc *l, size_t i, double v)
{
    const struct grader_calc_input *in = &l->c.calc->inputs[i];
    const char *label = in->label && in->label[0] ? in->label : in->name;
    char range[128], old[64];
    tui_calc_range_text(in->min, in->max, in->integer, range, sizeof range);
    value_text(in, l->vals[i], old, sizeof old);
    if (!isfinite(v) || v < in->min || v > in->max) {
        tui_app_msg(a, true, "%s: %.10g is outside %s (kept %s)", label, v, range, old);
        return false;
    }
    if (in->integer && v != floor(v)) {
        tui_app_msg(a, true, "%s takes whole numbers: %s (kept %s)", label, range, old);
        return false;
    }
    double was = l->vals[i];
    l->vals[i] = v;
    if (recompute(a, l) == CORE_ERR_USAGE) {
        l->vals[i] = was;
        return false;
    }
    fill_fields(l);
    return true;
}

/* Reads a typed value: a number, optionally followed by the input's unit
 * ("100", "100 s"). */
static bool parse_value(const struct grader_calc_input *in, const char *s, double *v)
{
    double x;
    size_t used;
    if (core_num_parse(s, strlen(s), CORE_NUM_BLANKS, &x, &used, NULL) != 0)
        return false;
    const char *end = s + used;
    while (*end == ' ')
        end++;
    size_t n = strlen(end);
    while (n > 0 && end[n - 1] == ' ')
        n--;
    if (n > 0 && !(in->unit && strlen(in->unit) == n && strncmp(end, in->unit, n) == 0))
        return false;
    *v = x;
    return true;
}

static void open_form(struct tui_app *a, struct calc *l, const struct lesson_calc *lc)
{
    const struct grader_calc *gc = lc->calc;
    l->c = *lc;
    free(l->calc_id);
    l->calc_id = core_xasprintf("%s:%s", lc->pack_id, gc->id);
    free(l->vals);
    l->vals = core_xcalloc(gc->n_inputs ? gc->n_inputs : 1, sizeof *l->vals);
    for (size_t i = 0; i < gc->n_inputs; i++)
        l->vals[i] = gc->inputs[i].def;
    free(l->m.title);
    free(l->m.where);
    l->m.title = core_xstrdup(gc->title && gc->title[0] ? gc->title : gc->id);
    l->m.where =
        core_xasprintf("%s %s lesson: %s", l->calc_id, tui_glyph(a->cs, "·", "-"),
                       lc->lesson_title && lc->lesson_title[0] ? lc->lesson_title : lc->lesson_id);
    l->m.fsel = 0;
    l->m.otop = 0;
    l->m.editing = false;
    fill_fields(l);
    tui_calc_model_clear_outs(&l->m);
    recompute(a, l);
    l->m.phase = TUI_CALC_FORM;
    snprintf(l->title, sizeof l->title, "calc %s", gc->id);
}

static void *calc_enter(struct tui_app *a, const void *arg)
{
    const struct tui_calc_arg *ca = arg;
    struct core_err e = {0};
    struct calc *l = core_xcalloc(1, sizeof *l);
    tui_calc_model_init(&l->m);
    snprintf(l->title, sizeof l->title, "calculators");
    if (ca && ca->calc_id) {
        struct lesson_calc lc;
        if (lesson_calc_find(a->db, a->sess, ca->calc_id, &lc, &e) != CORE_OK) {
            tui_app_msg(a, true, "%s", e.msg);
            goto fail;
        }
        l->direct = true;
        open_form(a, l, &lc);
        return l;
    }
    struct lesson_calc *all = NULL;
    size_t n = 0;
    if (lesson_calc_list(a->db, a->sess, &all, &n, &e) != CORE_OK) {
        tui_app_msg(a, true, "%s", e.msg);
        goto fail;
    }
    l->m.items = core_xcalloc(n ? n : 1, sizeof *l->m.items);
    for (size_t i = 0; i < n; i++) {
        struct tui_calc_item *it = &l->m.items[l->m.n_items++];
        it->id = core_xasprintf("%s:%s", all[i].pack_id, all[i].calc->id);
        it->title = core_xstrdup(all[i].calc->title && all[i].calc->title[0] ? all[i].calc->title
                                                                             : all[i].calc->id);
        it->lesson = core_xstrdup(
            all[i].lesson_title && all[i].lesson_title[0] ? all[i].lesson_title : all[i].lesson_id);
    }
    free(all);
    l->m.phase = TUI_CALC_LIST;
    return l;
fail:
    tui_calc_model_fini(&l->m);
    free(l);
    return NULL;
}

static void calc_leave(struct tui_app *a, void *st)
{
    (void)a;
    struct calc *l = st;
    tui_calc_model_fini(&l->m);
    free(l->calc_id);
    free(l->vals);
    free(l);
}

/* While an input is edited: every keystroke that leaves a valid number in
 * its range recomputes the outputs with it (the README's "recomputed as
 * you type"); anything else leaves them as they were until it is one. */
static void live_edit(struct tui_app *a, struct calc *l)
{
    size_t i = l->m.fsel;
    if (i >= l->m.n_fields)
        return;
    const struct grader_calc_input *in = &l->c.calc->inputs[i];
    const char *text = l->m.edit.text.data ? l->m.edit.text.data : "";
    double v;
    free(l->m.stale);
    l->m.stale = NULL;
    bool ok = parse_value(in, text, &v);
    if (!ok || !isfinite(v) || v < in->min || v > in->max || (in->integer && v != floor(v))) {
        /* Never outputs for a value other than the one in the field. */
        char range[128];
        tui_calc_range_text(in->min, in->max, in->integer, range, sizeof range);
        if (!text[0])
            l->m.stale = core_xstrdup("type a value; the outputs follow it");
        else if (!ok && strchr(text, ','))
            l->m.stale = core_xasprintf("'%s' is not a number: write a decimal point, not a "
                                        "comma (0.11, not 0,11)",
                                        text);
        else if (!ok)
            l->m.stale = core_xasprintf("'%s' is not a number (write e.g. 0.25, 8 or 1e9)", text);
        else
            l->m.stale = core_xasprintf("'%s' is outside %s", text, range);
        return;
    }
    if (v == l->vals[i])
        return;
    double was = l->vals[i];
    l->vals[i] = v;
    if (recompute_quiet(a, l, true) == CORE_ERR_USAGE) {
        l->vals[i] = was;
        l->m.stale = core_xasprintf("'%s' is refused by the calculator", text);
    }
}

static void start_edit(struct calc *l, bool empty)
{
    char val[64] = "";
    if (!empty && l->m.fsel < l->m.n_fields)
        value_text(&l->c.calc->inputs[l->m.fsel], l->vals[l->m.fsel], val, sizeof val);
    tui_input_set(&l->m.edit, val);
    l->m.editing = true;
    free(l->m.stale);
    l->m.stale = NULL;
    if (l->m.fsel < l->m.n_fields)
        l->edit_was = l->vals[l->m.fsel];
}

static bool calc_key(struct tui_app *a, void *st, int key)
{
    struct calc *l = st;
    if (l->m.phase != TUI_CALC_FORM || l->m.n_fields == 0)
        return false;
    if (l->m.editing) {
        if (key == TUI_K_ENTER || key == TUI_K_ESC || key == TUI_K_CTRL_C)
            return false;
        if (tui_input_key(&l->m.edit, key))
            live_edit(a, l);
        return true;
    }
    /* Typing a number starts editing with it. */
    if ((key >= '0' && key <= '9') || key == '.') {
        start_edit(l, true);
        tui_input_key(&l->m.edit, key);
        live_edit(a, l);
        return true;
    }
    return false;
}

static void step(struct tui_app *a, struct calc *l, int dir)
{
    size_t i = l->m.fsel;
    if (i >= l->m.n_fields)
        return;
    const struct grader_calc_input *in = &l->c.calc->inputs[i];
    double v = tui_calc_step(l->vals[i], dir, in->min, in->max, in->integer);
    if (v == l->vals[i]) {
        char b[64];
        value_text(in, v, b, sizeof b);
        tui_app_msg(a, false, "%s is at its %s, %s",
                    in->label && in->label[0] ? in->label : in->name,
                    dir < 0 ? "minimum" : "maximum", b);
        return;
    }
    set_value(a, l, i, v);
}

static void form_action(struct tui_app *a, struct calc *l, int act)
{
    struct tui_calc_model *m = &l->m;
    const struct grader_calc *gc = l->c.calc;
    int page = m->out_rows > 2 ? m->out_rows - 1 : 1;
    if (m->editing) {
        if (act == A_APPLY && m->fsel < m->n_fields) {
            const struct grader_calc_input *in = &gc->inputs[m->fsel];
            const char *text = m->edit.text.data ? m->edit.text.data : "";
            double v;
            if (!parse_value(in, text, &v))
                tui_app_msg(a, true, "'%s' is not a number (write e.g. 0.25, 8 or 1e9)", text);
            else if (set_value(a, l, m->fsel, v))
                m->editing = false;
        } else if (act == A_CANCEL) {
            /* Esc keeps the old value: undo what typing computed. */
            m->editing = false;
            if (m->fsel < m->n_fields && l->vals[m->fsel] != l->edit_was) {
                l->vals[m->fsel] = l->edit_was;
                recompute(a, l);
            }
        }
        return;
    }
    switch (act) {
    case A_UP:
        if (m->fsel > 0)
            m->fsel--;
        break;
    case A_DOWN:
        if (m->fsel + 1 < m->n_fields)
            m->fsel++;
        break;
    case A_EDIT:
        if (m->n_fields)
            start_edit(l, false);
        break;
    case A_LEFT:
        step(a, l, -1);
        break;
    case A_RIGHT:
        step(a, l, 1);
        break;
    case A_PGDN:
        m->otop += (size_t)page;
        break; /* the view clamps */
    case A_PGUP:
        m->otop = m->otop > (size_t)page ? m->otop - (size_t)page : 0;
        break;
    case A_DEFAULTS:
        for (size_t i = 0; i < gc->n_inputs; i++)
            l->vals[i] = gc->inputs[i].def;
        fill_fields(l);
        if (recompute(a, l) == CORE_OK)
            tui_app_msg(a, false, "every input back to its default");
        break;
    case A_BACK:
        if (l->direct) {
            tui_app_pop(a);
        } else {
            m->phase = TUI_CALC_LIST;
            snprintf(l->title, sizeof l->title, "calculators");
        }
        break;
    }
}

static void calc_action(struct tui_app *a, void *st, int act)
{
    struct calc *l = st;
    struct tui_calc_model *m = &l->m;
    if (m->phase == TUI_CALC_FORM) {
        form_action(a, l, act);
        return;
    }
    switch (act) {
    case A_UP:
        if (m->isel > 0)
            m->isel--;
        break;
    case A_DOWN:
        if (m->isel + 1 < m->n_items)
            m->isel++;
        break;
    case A_PGUP:
        m->isel = m->isel > 10 ? m->isel - 10 : 0;
        break;
    case A_PGDN:
        if (m->n_items)
            m->isel = m->isel + 10 < m->n_items ? m->isel + 10 : m->n_items - 1;
        break;
    case A_OPEN:
        if (m->n_items) {
            /* Found again by id: the list's entries are not kept. */
            struct lesson_calc lc;
            struct core_err e = {0};
            if (lesson_calc_find(a->db, a->sess, m->items[m->isel].id, &lc, &e) != CORE_OK)
                tui_app_msg(a, true, "%s", e.msg);
            else
                open_form(a, l, &lc);
        }
        break;
    case A_BACK:
        tui_app_pop(a);
        break;
    }
}

static struct tui_keymap calc_keys(const void *st)
{
    const struct calc *l = st;
    if (l->m.phase == TUI_CALC_LIST)
        return TUI_KEYMAP(keys_list);
    return l->m.editing ? TUI_KEYMAP(keys_edit) : TUI_KEYMAP(keys_form);
}

static const char *calc_title(const void *st)
{
    const struct calc *l = st;
    return l->title;
}

static void calc_draw(struct tui_app *a, void *st, struct tui_canvas *c, struct tui_rect r,
                      struct tui_cursor *cur)
{
    (void)a;
    struct calc *l = st;
    tui_view_calc(&l->m, c, r, cur);
}

const struct tui_screen tui_screen_calc = {
    .name = "calc",
    .enter = calc_enter,
    .leave = calc_leave,
    .on_action = calc_action,
    .on_key = calc_key,
    .keymap = calc_keys,
    .title = calc_title,
    .draw = calc_draw,
};
