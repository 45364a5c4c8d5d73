/*
 * tui_chart.c — line charts into a canvas.
 *
 * The plot area is a raster of dots: braille gives 2x4 dots per cell, the
 * quadrant blocks (U+2596..U+259F) 2x2, ASCII one ('*' for data, '.' for a
 * dashed reference curve). Series are rasterised into a byte per cell (dot
 * bits) plus a colour byte, then copied to the canvas in one pass; points
 * that fall into the same dot column are merged into one vertical run before
 * any line is drawn, so a 600-point series costs about one pass over its
 * points whatever the width.
 *
 * Axes: y ticks at 1, 2 or 5 x 10^k with SI prefixes (1.5k, 2.0G, 500m when
 * the unit is one that takes prefixes), the plot range extended to whole
 * ticks; x ticks at nice values inside the data range, or at powers of two on
 * a log2 axis. Layout, top to bottom: title (with the unit and, when it fits,
 * the legend), plot, x axis, x labels, legend. Rows are given up in the
 * reverse order when the rectangle is short. Several charts share a
 * rectangle through tui_chart_grid_cell, which keeps them TUI_CHART_GAP_W
 * columns apart: a chart fills its cell to the edge (a legend ends there).
 */
#include "tui/tui_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum mode { M_BRAILLE, M_QUAD, M_ASCII };

#define MAX_TICKS 64
#define LABEL_LEN 32

/* ---- numbers ------------------------------------------------------------- */

/* The smallest of 1, 2, 5 x 10^k not below raw. */
static double nice_step(double raw)
{
    if (!(raw > 0) || !isfinite(raw))
        return 1;
    double e = pow(10, floor(log10(raw)));
    double f = raw / e;
    double n = f <= 1 + 1e-9 ? 1 : f <= 2 + 1e-9 ? 2 : f <= 5 + 1e-9 ? 5 : 10;
    return n * e;
}

/* Which SI prefixes suit a unit: none for one that carries its own ("GB/s",
 * "ms"), only the large ones for pure numbers ("", "×", "%"). */
static void unit_prefixes(const char *unit, bool *big, bool *small)
{
    *big = true;
    *small = false;
    if (!unit || !*unit || !strcmp(unit, "×") || !strcmp(unit, "x") || !strcmp(unit, "%"))
        return;
    bool prefixed =
        (strlen(unit) > 1 && strchr("kMGTPmun", unit[0])) || !strncmp(unit, "µ", strlen("µ"));
    if (prefixed) {
        *big = false;
        return;
    }
    *small = true;
}

static const char *prefix_name(int e, enum tui_charset cs)
{
    switch (e) {
    case 18:
        return "E";
    case 15:
        return "P";
    case 12:
        return "T";
    case 9:
        return "G";
    case 6:
        return "M";
    case 3:
        return "k";
    case -3:
        return "m";
    case -6:
        return cs == TUI_CS_ASCII ? "u" : "µ";
    case -9:
        return "n";
    case -12:
        return "p";
    default:
        return "";
    }
}

/* The prefix exponent (a multiple of 3) for numbers up to maxabs. */
static int si_exponent(double maxabs, bool big, bool small)
{
    if (!(maxabs > 0) || !isfinite(maxabs))
        return 0;
    if (maxabs >= 1000 && big) {
        int e = (int)floor(log10(maxabs) / 3 + 1e-9) * 3;
        return e > 18 ? 18 : e;
    }
    if (maxabs < 1 && small) {
        int e = (int)floor(log10(maxabs) / 3 + 1e-9) * 3;
        return e < -12 ? -12 : e;
    }
    return 0;
}

/* Formats tick value v of a scale whose ticks are multiples of step and
 * whose prefix exponent is e. */
static void fmt_tick(char *out, double v, double step, int e, enum tui_charset cs)
{
    if (fabs(v) < step * 1e-6) {
        snprintf(out, LABEL_LEN, "0");
        return;
    }
    int k = (int)floor(log10(step) + 1e-9);
    int dec = e - k;
    if (dec < 0)
        dec = 0;
    if (dec > 9)
        dec = 9;
    snprintf(out, LABEL_LEN, "%.*f%s", dec, v / pow(10, e), prefix_name(e, cs));
}

/* 2^k as a label: 1, 2, 512, 1K, 64M, 0.5. */
static void fmt_pow2(char *out, int k)
{
    static const char *bin[] = {"", "K", "M", "G", "T", "P", "E"};
    if (k >= 0 && k < 70) {
        int g = k / 10;
        if (g > 6)
            g = 6;
        snprintf(out, LABEL_LEN, "%.0f%s", ldexp(1, k - 10 * g), bin[g]);
    } else {
        snprintf(out, LABEL_LEN, "%g", ldexp(1, k));
    }
}

/* ---- the raster ---------------------------------------------------------- */

struct raster {
    enum mode mode;
    int cw, ch;     /* plot size in cells */
    int dx, dy;     /* dots per cell */
    int w, h;       /* plot size in dots */
    uint8_t *bits;  /* dot bits per cell */
    uint8_t *color; /* colour per cell; 0x80 marks a solid series */
    uint8_t *owner; /* the series (index + 1) that owns each cell's colour */
};

static const uint8_t braille_bit[4][2] = {{0x01, 0x08}, {0x02, 0x10}, {0x04, 0x20}, {0x40, 0x80}};
static const uint8_t quad_bit[2][2] = {{1, 2}, {4, 8}};
static const uint32_t quad_cp[16] = {
    ' ',    0x2598, 0x259D, 0x2580, 0x2596, 0x258C, 0x259E, 0x259B,
    0x2597, 0x259A, 0x2590, 0x259C, 0x2584, 0x2599, 0x259F, 0x2588,
};

struct pen {
    uint8_t color;
    bool dashed;
    unsigned step; /* dots drawn so far: the dash pattern's phase */
    uint8_t owner; /* series index + 1 */
};

static inline void dot(struct raster *r, struct pen *p, int x, int y)
{
    if (x < 0 || y < 0 || x >= r->w || y >= r->h)
        return;
    if (p->dashed && r->mode != M_ASCII && (p->step++ & 2))
        return; /* two dots on, two off ('.' marks a dashed curve in ASCII) */
    int cx = x / r->dx, cy = y / r->dy;
    size_t i = (size_t)cy * (size_t)r->cw + (size_t)cx;
    uint8_t bit;
    switch (r->mode) {
    case M_BRAILLE:
        bit = braille_bit[y & 3][x & 1];
        break;
    case M_QUAD:
        bit = quad_bit[y & 1][x & 1];
        break;
    default:
        bit = p->dashed ? 1 : 2;
        break;
    }
    r->bits[i] |= bit;
    if (!p->dashed || !(r->color[i] & 0x80)) {
        r->color[i] = (uint8_t)(p->color | (p->dashed ? 0 : 0x80));
        r->owner[i] = p->owner;
    }
}

static void line(struct raster *r, struct pen *p, int x0, int y0, int x1, int y1)
{
    int dx = abs(x1 - x0), sx = x0 < x1 ? 1 : -1;
    int dy = -abs(y1 - y0), sy = y0 < y1 ? 1 : -1;
    int err = dx + dy;
    for (;;) {
        dot(r, p, x0, y0);
        if (x0 == x1 && y0 == y1)
            break;
        int e2 = 2 * err;
        if (e2 >= dy) {
            err += dy;
            x0 += sx;
        }
        if (e2 <= dx) {
            err += dx;
            y0 += sy;
        }
    }
}

static void vrun(struct raster *r, struct pen *p, int x, int ylo, int yhi)
{
    for (int y = ylo; y <= yhi; y++)
        dot(r, p, x, y);
}

struct scale {
    double lo, hi; /* data range mapped onto dots 0 .. n-1 */
    int n;
    bool flip; /* y: high values at the top */
};

static inline int to_dot(const struct scale *s, double v)
{
    double f = (v - s->lo) / (s->hi - s->lo) * (s->n - 1);
    if (!(f >= 0)) /* also NaN */
        f = 0;
    if (f > s->n - 1)
        f = s->n - 1;
    int d = (int)(f + 0.5);
    return s->flip ? s->n - 1 - d : d;
}

static inline bool point(const struct tui_series *s, size_t i, bool log_x, double *x, double *y)
{
    *x = s->x[i];
    *y = s->y[i];
    if (!isfinite(*x) || !isfinite(*y))
        return false;
    if (log_x) {
        if (!(*x > 0))
            return false;
        *x = log2(*x);
    }
    return true;
}

/* Rasterises one series: the points of one dot column become one vertical
 * run, and consecutive columns are joined by a line. NaN starts a gap. */
static void plot_series(struct raster *r, const struct tui_series *s, bool log_x,
                        const struct scale *xs, const struct scale *ys, uint8_t color,
                        uint8_t owner)
{
    struct pen p = {color, s->dashed, 0, owner};
    bool open = false; /* a column is being gathered */
    bool joined = false;
    int cx = 0, lo = 0, hi = 0, last = 0;
    int prev_x = 0, prev_y = 0; /* the last point of the previous column */
    for (size_t i = 0; i < s->n; i++) {
        double x, y;
        if (!s->x || !s->y || !point(s, i, log_x, &x, &y)) {
            if (open)
                vrun(r, &p, cx, lo, hi);
            open = joined = false;
            continue;
        }
        int px = to_dot(xs, x), py = to_dot(ys, y);
        if (open && px == cx) {
            lo = py < lo ? py : lo;
            hi = py > hi ? py : hi;
            last = py;
            continue;
        }
        if (open) {
            vrun(r, &p, cx, lo, hi);
            prev_x = cx;
            prev_y = last;
            joined = true;
        }
        if (joined)
            line(r, &p, prev_x, prev_y, px, py);
        open = true;
        cx = px;
        lo = hi = last = py;
    }
    if (open)
        vrun(r, &p, cx, lo, hi);
}

/* ---- layout -------------------------------------------------------------- */

static uint8_t series_color(const struct tui_series *s, size_t i)
{
    if (s->color && s->color < TUI_C_COUNT)
        return s->color;
    return (uint8_t)(TUI_C_S1 + i % 6);
}

/* Each series' own character (markers mode): solid series in turn take
 * * o x # @ % & $, dashed (reference) ones . : ~ =; never '+', '|' or '-',
 * which the ASCII axes and ticks use (Gustafson's '+' looked like a tick). */
static char series_marker(const struct tui_chart *ch, size_t k)
{
    static const char solid[] = "*ox#@%&$", dashed[] = ".:~=";
    size_t rank = 0;
    for (size_t i = 0; i < k; i++)
        rank += ch->s[i].dashed == ch->s[k].dashed;
    return ch->s[k].dashed ? dashed[rank % (sizeof dashed - 1)] : solid[rank % (sizeof solid - 1)];
}

/* The legend's sample of series k: its line, and in markers mode its
 * character. Written into buf (at most 16 bytes). */
static void legend_sample(const struct tui_chart *ch, size_t k, enum mode m, bool markers,
                          char *buf)
{
    bool dashed = ch->s[k].dashed;
    if (m == M_ASCII)
        snprintf(buf, 16, "%c", series_marker(ch, k));
    else if (markers)
        snprintf(buf, 16, "%s%c", dashed ? "┄" : "─", series_marker(ch, k));
    else
        snprintf(buf, 16, "%s", dashed ? "┄┄" : "──");
}

/* One legend entry's columns: sample, a space, the label. */
static int legend_entry_width(const struct tui_chart *ch, size_t k, enum mode m, bool markers)
{
    char sample[16];
    legend_sample(ch, k, m, markers, sample);
    return tui_text_width(sample) + 1 + tui_text_width(ch->s[k].label);
}

static bool has_label(const struct tui_series *s)
{
    return s->label && *s->label;
}

/* All entries on one line, two columns apart. */
static int legend_width(const struct tui_chart *ch, enum mode m, bool markers)
{
    int w = 0;
    for (size_t i = 0; i < ch->n_series; i++) {
        if (!has_label(&ch->s[i]))
            continue;
        if (w)
            w += 2;
        w += legend_entry_width(ch, i, m, markers);
    }
    return w;
}

/* Lays the entries out on rows of max_w columns (an entry wider than a row
 * has one to itself and is cut); draws them from row y unless y < 0.
 * Returns the rows needed. At most max_rows are drawn. */
static int legend_rows(struct tui_canvas *c, int y, int x, int max_w, int max_rows,
                       const struct tui_chart *ch, enum mode m, bool markers)
{
    struct tui_style plain = {0, 0};
    int rows = 0, col = 0;
    for (size_t i = 0; i < ch->n_series; i++) {
        if (!has_label(&ch->s[i]))
            continue;
        int ew = legend_entry_width(ch, i, m, markers);
        if (rows == 0 || (col > 0 && col + 2 + ew > max_w)) {
            rows++;
            col = 0;
        } else if (col > 0) {
            col += 2;
        }
        if (y >= 0 && rows <= max_rows && col < max_w) {
            char sample[16];
            legend_sample(ch, i, m, markers, sample);
            int yy = y + rows - 1, xx = x + col;
            struct tui_style st = {TUI_A_BOLD, series_color(&ch->s[i], i)};
            int n = tui_canvas_put(c, yy, xx, sample, st, max_w - col);
            if (col + n + 1 < max_w)
                tui_canvas_put_cut(c, yy, xx + n + 1, ch->s[i].label, plain, max_w - col - n - 1);
        }
        col += ew;
    }
    return rows;
}

/* The y scale: ticks at multiples of a nice step, the range widened to whole
 * ticks, at most one label every other row. */
static int y_ticks(double *lo, double *hi, int rows, double *step_out)
{
    int maxt = rows / 2 + 1;
    if (maxt < 2)
        maxt = 2;
    if (maxt > MAX_TICKS)
        maxt = MAX_TICKS;
    double step = nice_step((*hi - *lo) / (maxt - 1));
    double a, b;
    int count;
    for (int guard = 0;; guard++) {
        a = floor(*lo / step + 1e-9) * step;
        b = ceil(*hi / step - 1e-9) * step;
        if (b <= a)
            b = a + step;
        count = (int)((b - a) / step + 0.5) + 1;
        if (count <= maxt || guard > 8)
            break;
        step = nice_step(step * 1.5);
    }
    *lo = a;
    *hi = b;
    *step_out = step;
    return count < MAX_TICKS ? count : MAX_TICKS;
}

/* Without colour the dots of two series look alike: each series' own
 * character goes on its points, every one while they are few, else evenly
 * spaced ones (about one per four columns), each series offset a little so
 * that two close curves do not hide each other's marks. Dashed series
 * first, so the data's marks win. */
static void draw_markers(struct tui_canvas *c, const struct tui_chart *ch, const struct raster *ra,
                         const struct scale *xs, const struct scale *ys, int top, int px0)
{
    size_t max_marks = (size_t)(ra->cw / 4 > 1 ? ra->cw / 4 : 1);
    for (int pass = 0; pass < 2; pass++)
        for (size_t k = 0; k < ch->n_series; k++) {
            const struct tui_series *s = &ch->s[k];
            if (s->dashed != (pass == 0) || !s->x || !s->y || s->n == 0)
                continue;
            size_t every = s->n <= max_marks ? 1 : (s->n + max_marks - 1) / max_marks;
            size_t first = every > 1 ? (k * every / (ch->n_series + 1)) % every : 0;
            struct tui_style st = {TUI_A_BOLD, series_color(s, k)};
            for (size_t i = first; i < s->n; i += every) {
                double x, y;
                if (!point(s, i, ch->log_x, &x, &y))
                    continue;
                int cx = to_dot(xs, x) / ra->dx, cy = to_dot(ys, y) / ra->dy;
                tui_canvas_set(c, top + cy, px0 + cx, (uint32_t)series_marker(ch, k), st);
            }
        }
}

/* What tui_chart_draw works out before drawing: the data range, the rows
 * of the title, plot, axis, labels and legend, the label column. */
struct frame {
    enum mode m;
    bool markers; /* each series marked by its character (ASCII, no colour) */
    bool have;    /* data to draw: the range below is finite */
    double xmin, xmax, ymin, ymax;
    int top, bot;                   /* the plot's rows [top, bot) */
    int legend_y, labels_y, axis_y; /* -1 when there is no room */
    int ph;                         /* plot rows */
    int lw;                         /* y label width */
    int px0, pw;                    /* the plot's first column, its width */
    bool has_axis;
    const char *unit;
    char ylab[MAX_TICKS][LABEL_LEN];
    int nyt;
    double ystep;
};

/* The range of every series' points, widened where it is a single value;
 * false when there are none (or it is beyond a double). */
static bool data_range(const struct tui_chart *ch, struct frame *f)
{
    double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
    for (size_t k = 0; k < ch->n_series; k++) {
        const struct tui_series *s = &ch->s[k];
        if (!s->x || !s->y)
            continue;
        for (size_t i = 0; i < s->n; i++) {
            double x, y;
            if (!point(s, i, ch->log_x, &x, &y))
                continue;
            xmin = x < xmin ? x : xmin;
            xmax = x > xmax ? x : xmax;
            ymin = y < ymin ? y : ymin;
            ymax = y > ymax ? y : ymax;
        }
    }
    if (xmin > xmax)
        return false;
    if (ch->y_from_zero) {
        ymin = ymin > 0 ? 0 : ymin;
        ymax = ymax < 0 ? 0 : ymax;
        if (ymin == ymax)
            ymax = 1;
    }
    if (ymin == ymax) {
        double d = ymin ? fabs(ymin) * 0.1 : 1;
        ymin -= d;
        ymax += d;
    }
    if (xmin == xmax && ch->x_int && !ch->log_x) {
        /* one step: the step before it to it, not fractions of it, and not
         * beyond the data (Karp-Flatt measured at p = 2 only is 1..2, not
         * 1..3; p = 1 is 0..1) */
        if (xmin == 0)
            xmax = 1;
        else
            xmin -= 1;
    } else if (xmin == xmax) {
        double d = ch->log_x ? 1 : xmin ? fabs(xmin) * 0.1 : 1;
        xmin -= d;
        xmax += d;
    }
    f->xmin = xmin, f->xmax = xmax, f->ymin = ymin, f->ymax = ymax;
    /* a range beyond double: nothing sensible to draw */
    return isfinite(ymax - ymin) && isfinite(xmax - xmin);
}

/* The title row (title, unit, the legend when it fits beside them), the
 * legend's own rows otherwise, and the rows left for the plot, its axis and
 * its labels. */
static void draw_head(struct tui_canvas *c, struct tui_rect r, const struct tui_chart *ch,
                      struct frame *f)
{
    const struct tui_style muted = {0, TUI_C_MUTED};
    int lgw = legend_width(ch, f->m, f->markers);
    const char *title = ch->title ? ch->title : "";
    const char *unit = f->unit;
    int unitw = *unit ? tui_text_width(unit) + 3 : 0;
    int titlew = tui_text_width(title) + unitw;
    bool has_title = r.h >= 2 && (titlew || lgw);
    bool legend_inline = has_title && lgw && titlew + (titlew ? 2 : 0) + lgw <= r.w;
    /* Legend rows of their own: as many as the entries need, while the
     * plot keeps three rows (title, plot, axis, labels around it). */
    int n_legend = 0;
    if (lgw && !legend_inline && r.h >= 7) {
        n_legend = legend_rows(c, -1, r.x, r.w, 0, ch, f->m, f->markers);
        int room = r.h - 6;
        if (n_legend > room)
            n_legend = room > 1 ? room : 1;
    }
    f->top = r.y + (has_title ? 1 : 0);
    f->bot = r.y + r.h - n_legend;
    f->legend_y = n_legend ? f->bot : -1;
    f->labels_y = r.h >= 3 ? --f->bot : -1;
    f->axis_y = r.h >= 4 ? --f->bot : -1;
    f->ph = f->bot - f->top;
    if (has_title) {
        struct tui_style ts = {TUI_A_BOLD, 0};
        int room = r.w - unitw;
        int n = tui_canvas_put_cut(c, r.y, r.x, title, ts, room > 4 ? room : r.w);
        if (*unit && n < r.w)
            tui_canvas_printf(c, r.y, r.x + n, muted, r.w - n, "%s(%s)", n ? " " : "", unit);
        if (legend_inline)
            legend_rows(c, r.y, r.x + r.w - lgw, lgw, 1, ch, f->m, f->markers);
    }
    if (n_legend)
        legend_rows(c, f->legend_y, r.x, r.w, n_legend, ch, f->m, f->markers);
}

/* The y ticks' labels (their prefix chosen for the unit) and the columns
 * they leave the plot. */
static void y_labels(struct tui_canvas *c, struct tui_rect r, struct frame *f)
{
    f->nyt = 0;
    f->lw = 0;
    f->ystep = 1;
    if (f->have) {
        f->nyt = y_ticks(&f->ymin, &f->ymax, f->ph, &f->ystep);
        bool big, small;
        unit_prefixes(f->unit, &big, &small);
        int e = si_exponent(fmax(fabs(f->ymin), fabs(f->ymax)), big, small);
        for (int i = 0; i < f->nyt; i++) {
            fmt_tick(f->ylab[i], f->ymin + f->ystep * i, f->ystep, e, c->cs);
            int w = tui_text_width(f->ylab[i]);
            f->lw = w > f->lw ? w : f->lw;
        }
    }
    if (r.w - f->lw - 1 < 2)
        f->lw = 0; /* no room for labels */
    f->has_axis = r.w >= 3;
    f->px0 = r.x + f->lw + (f->has_axis ? 1 : 0);
    f->pw = r.x + r.w - f->px0;
}

/* The y axis with its ticks and labels, and the x axis line. */
static void draw_axes(struct tui_canvas *c, const struct frame *f, const struct scale *ys, int dy)
{
    const struct tui_style muted = {0, TUI_C_MUTED};
    if (!f->has_axis)
        return;
    int ax = f->px0 - 1;
    for (int y = f->top; y < f->bot; y++)
        tui_canvas_set(c, y, ax, 0x2502, muted);
    int used = -1;
    for (int i = f->nyt - 1; i >= 0; i--) {
        int row = f->top + to_dot(ys, f->ymin + f->ystep * i) / dy;
        if (row == used)
            continue;
        used = row;
        tui_canvas_set(c, row, ax, 0x2524, muted);
        if (f->lw)
            tui_canvas_put(c, row, ax - tui_text_width(f->ylab[i]), f->ylab[i], muted, -1);
    }
    if (f->axis_y >= 0) {
        tui_canvas_set(c, f->axis_y, ax, 0x2514, muted);
        for (int x = f->px0; x < f->px0 + f->pw; x++)
            tui_canvas_set(c, f->axis_y, x, 0x2500, muted);
    }
}

/* The x ticks' values and labels: powers of two on a log axis (every
 * other one, and so on, when they are many), else multiples of a nice
 * step. Returns how many. */
static int x_ticks(const struct tui_chart *ch, const struct frame *f, enum tui_charset cs,
                   double tv[MAX_TICKS], char tl[MAX_TICKS][LABEL_LEN])
{
    int nt = 0;
    if (ch->log_x) {
        int k0 = (int)ceil(f->xmin - 1e-9), k1 = (int)floor(f->xmax + 1e-9);
        /* Every power of two, every other one, and so on, until their
         * labels keep two blanks apart and a column to spare for rounding
         * ("4 16 64 256 1K" in a 34-column plot; a rule of one tick per 7
         * columns left "16 256" there). */
        int widest = 1;
        for (int k = k0; k <= k1; k++) {
            char lab[LABEL_LEN];
            fmt_pow2(lab, k);
            int w = tui_text_width(lab);
            widest = w > widest ? w : widest;
        }
        double span = f->xmax - f->xmin;
        int stride = 1;
        while (stride < (1 << 20) && (k1 - k0) / stride >= 1 &&
               ((k1 - k0) / stride + 1 > MAX_TICKS ||
                (span > 0 && stride * (double)f->pw / span < widest + 3)))
            stride *= 2;
        for (int k = k0; k <= k1 && nt < MAX_TICKS; k++) {
            if (((k % stride) + stride) % stride)
                continue;
            tv[nt] = k;
            fmt_pow2(tl[nt++], k);
        }
        return nt;
    }
    int maxt = f->pw / 7 + 1;
    if (maxt < 2)
        maxt = 2;
    if (maxt > MAX_TICKS)
        maxt = MAX_TICKS;
    double step = nice_step((f->xmax - f->xmin) / (maxt - 1));
    if (ch->x_int && step < 1)
        step = 1; /* steps are whole: no tick at p = 1.5 */
    int e = si_exponent(fmax(fabs(f->xmin), fabs(f->xmax)), true, false);
    double t0 = ceil(f->xmin / step - 1e-9) * step;
    for (int i = 0; nt < MAX_TICKS; i++) {
        double t = t0 + step * i;
        if (t > f->xmax + step * 1e-9)
            break;
        tv[nt] = t;
        fmt_tick(tl[nt++], t, step, e, cs);
    }
    return nt;
}

/* The x label at the right end of the labels row, the x ticks on the axis
 * and their labels where they keep two blanks from each other and from the
 * x label (one blank read "30 40 iteration" as one run). */
static void draw_x_labels(struct tui_canvas *c, struct tui_rect r, const struct tui_chart *ch,
                          const struct frame *f, const struct scale *xs, int dx)
{
    const struct tui_style muted = {0, TUI_C_MUTED};
    const char *xl = ch->x_label ? ch->x_label : "";
    int xlw = tui_text_width(xl);
    int lab_end = r.x + r.w; /* tick labels end before this column */
    if (f->labels_y >= 0 && *xl && xlw < r.w) {
        tui_canvas_put(c, f->labels_y, r.x + r.w - xlw, xl, muted, -1);
        lab_end = r.x + r.w - xlw - 2; /* two blanks: "40  iteration", not "40 iteration" */
    }
    if (!f->have || f->pw < 1)
        return;
    double tv[MAX_TICKS];
    char tl[MAX_TICKS][LABEL_LEN];
    int nt = x_ticks(ch, f, c->cs, tv, tl);
    int prev_end = r.x - 1;
    for (int i = 0; i < nt; i++) {
        int col = f->px0 + to_dot(xs, tv[i]) / dx;
        if (f->axis_y >= 0 && f->has_axis)
            tui_canvas_set(c, f->axis_y, col, 0x252C, muted);
        if (f->labels_y < 0)
            continue;
        int w = tui_text_width(tl[i]);
        int start = col - (w - 1) / 2;
        if (start + w > lab_end)
            start = lab_end - w;
        if (start < r.x)
            start = r.x;
        if (start <= prev_end + 1 || start + w > lab_end) /* two blanks between labels */
            continue;
        tui_canvas_put(c, f->labels_y, start, tl[i], muted, -1);
        prev_end = start + w;
    }
}

/* The series rastered into the plot's cells, reference curves first so the
 * data lies over them, then the markers where series need them. */
static void draw_plot(struct tui_canvas *c, const struct tui_chart *ch, const struct frame *f,
                      struct raster *ra, const struct scale *xs, const struct scale *ys)
{
    size_t cells = (size_t)f->pw * (size_t)f->ph;
    uint8_t stackbuf[12288];
    uint8_t *buf = 3 * cells <= sizeof stackbuf ? stackbuf : core_xmalloc(3 * cells);
    memset(buf, 0, 3 * cells);
    ra->bits = buf;
    ra->color = buf + cells;
    ra->owner = buf + 2 * cells;
    size_t n_plot = ch->n_series < 255 ? ch->n_series : 255;
    for (int pass = 0; pass < 2; pass++) /* reference curves under the data */
        for (size_t k = 0; k < n_plot; k++)
            if (ch->s[k].dashed == (pass == 0))
                plot_series(ra, &ch->s[k], ch->log_x, xs, ys, series_color(&ch->s[k], k),
                            (uint8_t)(k + 1));
    for (int y = 0; y < f->ph; y++) {
        for (int x = 0; x < f->pw; x++) {
            size_t i = (size_t)y * (size_t)f->pw + (size_t)x;
            uint8_t b = ra->bits[i];
            if (!b)
                continue;
            uint32_t cp = f->m == M_BRAILLE ? 0x2800u + b
                          : f->m == M_QUAD  ? quad_cp[b & 15]
                          : ra->owner[i]    ? (uint32_t)series_marker(ch, ra->owner[i] - 1u)
                                            : '*';
            struct tui_style st = {0, (uint8_t)(ra->color[i] & 0x7F)};
            tui_canvas_set(c, f->top + y, f->px0 + x, cp, st);
        }
    }
    if (f->markers && f->m != M_ASCII)
        draw_markers(c, ch, ra, xs, ys, f->top, f->px0);
    if (buf != stackbuf)
        free(buf);
}

void tui_chart_draw(struct tui_canvas *c, struct tui_rect r, const struct tui_chart *ch,
                    bool blocks)
{
    if (r.w < 1 || r.h < 1 || !ch)
        return;
    tui_canvas_fill(c, r, ' ', (struct tui_style){0, 0});
    struct frame f = {0};
    f.m = c->cs == TUI_CS_ASCII ? M_ASCII : blocks ? M_QUAD : M_BRAILLE;
    f.markers = f.m == M_ASCII || c->mono;
    f.unit = ch->y_unit ? ch->y_unit : "";
    f.have = data_range(ch, &f);
    draw_head(c, r, ch, &f);
    y_labels(c, r, &f);
    struct raster ra = {.mode = f.m, .cw = f.pw, .ch = f.ph};
    ra.dx = f.m == M_ASCII ? 1 : 2;
    ra.dy = f.m == M_BRAILLE ? 4 : f.m == M_QUAD ? 2 : 1;
    ra.w = f.pw * ra.dx;
    ra.h = f.ph * ra.dy;
    struct scale xs = {f.xmin, f.xmax, ra.w, false}, ys = {f.ymin, f.ymax, ra.h, true};
    draw_axes(c, &f, &ys, ra.dy);
    draw_x_labels(c, r, ch, &f, &xs, ra.dx);
    if (f.pw < 1 || f.ph < 1)
        return;
    if (!f.have) {
        const char *msg = "waiting for data";
        int w = tui_text_width(msg);
        int x = f.px0 + (f.pw > w ? (f.pw - w) / 2 : 0);
        tui_canvas_put(c, f.top + (f.ph - 1) / 2, x, msg, (struct tui_style){0, TUI_C_MUTED}, f.pw);
        return;
    }
    draw_plot(c, ch, &f, &ra, &xs, &ys);
}

/* ---- grids of charts ------------------------------------------------------- */

struct tui_rect tui_chart_grid_cell(struct tui_rect r, int cols, int rows, int min_h, int i)
{
    cols = cols < 1 ? 1 : cols;
    rows = rows < 1 ? 1 : rows;
    int col = i % cols, row = i / cols % rows;
    int gap_w = cols > 1 ? TUI_CHART_GAP_W : 0;
    int gap_h = rows > 1 && (r.h - (rows - 1)) / rows >= min_h ? 1 : 0;
    int cw = (r.w - (cols - 1) * gap_w) / cols;
    int chh = (r.h - (rows - 1) * gap_h) / rows;
    cw = cw > 0 ? cw : 0;
    chh = chh > 0 ? chh : 0;
    struct tui_rect c = {r.y + row * (chh + gap_h), r.x + col * (cw + gap_w), chh, cw};
    if (col == cols - 1)
        c.w = r.x + r.w - c.x;
    if (row == rows - 1)
        c.h = r.y + r.h - c.y;
    c.w = c.w > 0 ? c.w : 0;
    c.h = c.h > 0 ? c.h : 0;
    return c;
}
