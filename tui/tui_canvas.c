/*
 * tui_canvas.c — a grid of styled cells in memory (tmux's grid.c).
 *
 * Every view draws here; only tui_term.c copies a canvas to the terminal, and
 * tests read it back with tui_canvas_text. A wide character takes its cell
 * and the next one, which holds code point 0; writes that split a wide
 * character blank its other half, so the grid never holds half a character.
 * Under TUI_CS_ASCII every non-ASCII code point is stored as an ASCII
 * look-alike or '?', so the terminal layer never sees one.
 */
#include "tui/tui_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tui_canvas_init(struct tui_canvas *c, int w, int h, enum tui_charset cs)
{
    c->w = 0;
    c->h = 0;
    c->cells = NULL;
    c->cs = cs;
    c->mono = false;
    tui_canvas_resize(c, w, h);
}

void tui_canvas_fini(struct tui_canvas *c)
{
    free(c->cells);
    c->cells = NULL;
    c->w = c->h = 0;
}

void tui_canvas_resize(struct tui_canvas *c, int w, int h)
{
    if (w < 0)
        w = 0;
    if (h < 0)
        h = 0;
    size_t n = (size_t)w * (size_t)h;
    if (n > (size_t)c->w * (size_t)c->h || !c->cells)
        c->cells = core_xrealloc(c->cells, (n ? n : 1) * sizeof *c->cells);
    c->w = w;
    c->h = h;
    tui_canvas_clear(c);
}

void tui_canvas_clear(struct tui_canvas *c)
{
    size_t n = (size_t)c->w * (size_t)c->h;
    struct tui_cell blank = {' ', {0, 0}};
    for (size_t i = 0; i < n; i++)
        c->cells[i] = blank;
}

/* ASCII stand-ins for common non-ASCII characters, sorted by code point. */
static const struct {
    uint16_t cp;
    char ascii;
} lookalike[] = {
    {0x00A0, ' '}, {0x00AB, '<'}, {0x00B5, 'u'}, {0x00B7, '.'}, {0x00BB, '>'},  {0x00D7, 'x'},
    {0x03BC, 'u'}, {0x2002, ' '}, {0x2003, ' '}, {0x2009, ' '}, {0x2010, '-'},  {0x2011, '-'},
    {0x2012, '-'}, {0x2013, '-'}, {0x2014, '-'}, {0x2015, '-'}, {0x2018, '\''}, {0x2019, '\''},
    {0x201C, '"'}, {0x201D, '"'}, {0x2022, '*'}, {0x202F, ' '}, {0x2032, '\''}, {0x2033, '"'},
    {0x2039, '<'}, {0x203A, '>'}, {0x2190, '<'}, {0x2191, '^'}, {0x2192, '>'},  {0x2193, 'v'},
    {0x2212, '-'}, {0x2217, '*'}, {0x2219, '.'}, {0x223C, '~'}, {0x2248, '~'},  {0x22C5, '.'},
    {0x25A0, '#'}, {0x25AA, '*'}, {0x25B2, '^'}, {0x25B4, '^'}, {0x25B6, '>'},  {0x25B8, '>'},
    {0x25BC, 'v'}, {0x25BE, 'v'}, {0x25C0, '<'}, {0x25C2, '<'}, {0x25CB, 'o'},  {0x25CF, '*'},
    {0x25E6, 'o'}, {0x2713, '+'}, {0x2714, '+'}, {0x2717, 'x'}, {0x2718, 'x'},
};

/* The ASCII stand-in for a non-ASCII code point of width 1: box drawing as
 * - | + (by the direction of its lines), blocks as '#', braille as '*', a
 * look-alike from the table, or '?'. */
static uint32_t ascii_of(uint32_t cp)
{
    if (cp >= 0x2500 && cp <= 0x257F) {
        /* light/heavy/dashed/double horizontals and verticals, half lines */
        static const char *h = "\x00\x01\x04\x05\x08\x09\x4C\x4D\x50\x74\x76\x78\x7A\x7C\x7E";
        static const char *v = "\x02\x03\x06\x07\x0A\x0B\x4E\x4F\x51\x75\x77\x79\x7B\x7D\x7F";
        unsigned char lo = (unsigned char)(cp - 0x2500);
        if (memchr(h, lo, 15))
            return '-';
        if (memchr(v, lo, 15))
            return '|';
        return cp == 0x2571 ? '/' : cp == 0x2572 ? '\\' : cp == 0x2573 ? 'X' : '+';
    }
    if (cp >= 0x2580 && cp <= 0x259F) /* block elements */
        return cp == 0x2591 ? '.' : '#';
    if (cp >= 0x2800 && cp <= 0x28FF) /* braille */
        return cp == 0x2800 ? ' ' : '*';
    size_t lo = 0, hi = sizeof lookalike / sizeof lookalike[0];
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (lookalike[mid].cp < cp)
            lo = mid + 1;
        else if (lookalike[mid].cp > cp)
            hi = mid;
        else
            return (unsigned char)lookalike[mid].ascii;
    }
    return '?';
}

/* Stores one character of width w (1 or 2) at (y, x), already clipped, and
 * blanks the other half of any wide character it splits. */
static inline void put_cell(struct tui_canvas *c, int y, int x, uint32_t cp, int w,
                            struct tui_style st)
{
    struct tui_cell *row = c->cells + (size_t)y * (size_t)c->w;
    if (row[x].cp == 0 && x > 0)
        row[x - 1].cp = ' ';
    int last = x + w - 1;
    if (last + 1 < c->w && row[last + 1].cp == 0)
        row[last + 1].cp = ' ';
    row[x].cp = cp;
    row[x].st = st;
    if (w == 2) {
        row[x + 1].cp = 0;
        row[x + 1].st = st;
    }
}

/* Signs whose one-character stand-in would change the maths ("≤" as "<",
 * "±" as "?") or the sense ("…" as "." ends a sentence: "Check the for."):
 * under ASCII they take two or three cells. */
static const struct {
    uint32_t cp;
    const char *s;
} multi_char[] = {{0x00B1, "+/-"}, {0x2026, "..."}, {0x2260, "!="}, {0x2264, "<="}, {0x2265, ">="}};

/* Maps cp for this canvas when it is one of multi_char under ASCII: returns
 * its stand-in ("<=", "+/-"), *w its columns; else NULL. */
static const char *map_multi(const struct tui_canvas *c, uint32_t cp, int *w)
{
    if (c->cs == TUI_CS_ASCII)
        for (size_t i = 0; i < sizeof multi_char / sizeof multi_char[0]; i++)
            if (multi_char[i].cp == cp) {
                *w = (int)strlen(multi_char[i].s);
                return multi_char[i].s;
            }
    return NULL;
}

char *tui_canvas_ascii_expand(const struct tui_canvas *c, const char *s)
{
    if (c->cs != TUI_CS_ASCII || !s)
        return NULL;
    struct core_buf b;
    bool any = false;
    core_buf_init(&b);
    for (const char *p = s; *p;) {
        size_t len = 1;
        int w;
        const char *m = (unsigned char)*p >= 0x80 ? map_multi(c, tui_utf8_next(p, &len), &w) : NULL;
        if (m)
            any = true;
        core_buf_append(&b, m ? m : p, m ? strlen(m) : len);
        p += len;
    }
    if (!any) {
        core_buf_fini(&b);
        return NULL;
    }
    return core_buf_steal(&b);
}

static uint32_t map_cp(const struct tui_canvas *c, uint32_t cp, int *w, bool *two_q)
{
    *two_q = false;
    /* Controls, line separators and bidi overrides (core_text_unsafe) are
     * drawn as a replacement, never sent to the terminal nor dropped
     * unseen. */
    if (core_text_unsafe(cp)) {
        *w = 1;
        return c->cs == TUI_CS_ASCII ? '?' : 0xFFFD;
    }
    if (cp < 0x7F) {
        *w = 1;
        return cp;
    }
    *w = tui_cp_width(cp);
    if (c->cs == TUI_CS_UTF8 || *w == 0)
        return cp;
    if (*w == 2) {
        *two_q = true;
        return '?';
    }
    return ascii_of(cp);
}

/* A code point as this canvas draws it: one cell of w columns (w 0: not
 * drawn), or w one-column cells of `cells` ("<=", "+/-", "??"). */
struct glyph {
    uint32_t a;
    const char *cells; /* NULL: the one cell a */
    int w;
};

static struct glyph glyph_of(const struct tui_canvas *c, uint32_t cp)
{
    struct glyph g = {0};
    g.cells = map_multi(c, cp, &g.w);
    if (g.cells)
        return g;
    bool two_q;
    g.a = map_cp(c, cp, &g.w, &two_q);
    if (two_q)
        g.cells = "??"; /* a wide character under ASCII */
    return g;
}

/* Writes g at (y, x), which has room for it; returns the columns. */
static int glyph_put(struct tui_canvas *c, int y, int x, const struct glyph *g, struct tui_style st)
{
    if (!g->cells) {
        put_cell(c, y, x, g->a, g->w, st);
        return g->w;
    }
    for (int i = 0; i < g->w; i++)
        put_cell(c, y, x + i, (unsigned char)g->cells[i], 1, st);
    return g->w;
}

int tui_canvas_put(struct tui_canvas *c, int y, int x, const char *s, struct tui_style st,
                   int max_w)
{
    if (!s || y < 0 || y >= c->h)
        return 0;
    int limit = c->w;
    if (max_w >= 0 && (long)x + max_w < limit)
        limit = x + max_w;
    int col = x, written = 0;
    while (*s && col < limit) {
        unsigned char b = (unsigned char)*s;
        if (b >= 0x20 && b < 0x7F) { /* the common case */
            if (col >= 0) {
                put_cell(c, y, col, b, 1, st);
                written++;
            }
            col++, s++;
            continue;
        }
        size_t len;
        struct glyph g = glyph_of(c, tui_utf8_next(s, &len));
        s += len;
        int w = g.w;
        if (w == 0)
            continue; /* a combining mark: one code point per cell */
        if (col + w > limit) {
            if (col >= 0 && g.cells && g.cells[0] == '.') { /* "…" as the dots that fit */
                for (; col < limit; col++, written++)
                    put_cell(c, y, col, '.', 1, st);
            } else if (col >= 0) { /* half a wide character would not fit */
                put_cell(c, y, col, ' ', 1, st);
                written++;
            }
            break;
        }
        if (col < 0) {
            for (int i = col; i < col + w; i++)
                if (i >= 0) {
                    put_cell(c, y, i, ' ', 1, st);
                    written++;
                }
        } else {
            written += glyph_put(c, y, col, &g, st);
        }
        col += w;
    }
    return written;
}

int tui_canvas_printf(struct tui_canvas *c, int y, int x, struct tui_style st, int max_w,
                      const char *fmt, ...)
{
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0)
        return 0;
    if ((size_t)n < sizeof buf)
        return tui_canvas_put(c, y, x, buf, st, max_w);
    char *big = core_xmalloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    int r = tui_canvas_put(c, y, x, big, st, max_w);
    free(big);
    return r;
}

void tui_canvas_set(struct tui_canvas *c, int y, int x, uint32_t cp, struct tui_style st)
{
    if (y < 0 || y >= c->h || x < 0 || x >= c->w)
        return;
    struct glyph g = glyph_of(c, cp);
    if (g.w == 0)
        return;
    if (x + g.w > c->w)
        put_cell(c, y, x, ' ', 1, st);
    else
        glyph_put(c, y, x, &g, st);
}

void tui_canvas_fill(struct tui_canvas *c, struct tui_rect r, uint32_t cp, struct tui_style st)
{
    int x0 = r.x < 0 ? 0 : r.x, y0 = r.y < 0 ? 0 : r.y;
    long x1 = (long)r.x + r.w, y1 = (long)r.y + r.h;
    if (x1 > c->w)
        x1 = c->w;
    if (y1 > c->h)
        y1 = c->h;
    int w;
    bool two_q;
    uint32_t m = map_cp(c, cp, &w, &two_q);
    if (w == 0)
        return;
    for (int y = y0; y < y1; y++) {
        if (w == 1) {
            for (int x = x0; x < x1; x++)
                put_cell(c, y, x, m, 1, st);
        } else {
            for (int x = x0; x + 1 < x1; x += 2)
                tui_canvas_set(c, y, x, cp, st);
        }
    }
}

void tui_canvas_box(struct tui_canvas *c, struct tui_rect r, const char *title, struct tui_style st)
{
    if (r.w < 2 || r.h < 2)
        return;
    int x1 = r.x + r.w - 1, y1 = r.y + r.h - 1;
    for (int x = r.x + 1; x < x1; x++) {
        tui_canvas_set(c, r.y, x, 0x2500, st);
        tui_canvas_set(c, y1, x, 0x2500, st);
    }
    for (int y = r.y + 1; y < y1; y++) {
        tui_canvas_set(c, y, r.x, 0x2502, st);
        tui_canvas_set(c, y, x1, 0x2502, st);
    }
    tui_canvas_set(c, r.y, r.x, 0x250C, st);
    tui_canvas_set(c, r.y, x1, 0x2510, st);
    tui_canvas_set(c, y1, r.x, 0x2514, st);
    tui_canvas_set(c, y1, x1, 0x2518, st);
    if (title && *title && r.w >= 7) {
        struct tui_style ts = st;
        ts.attr |= TUI_A_BOLD;
        int n = tui_canvas_put(c, r.y, r.x + 3, title, ts, r.w - 6);
        tui_canvas_set(c, r.y, r.x + 2, ' ', st);
        tui_canvas_set(c, r.y, r.x + 3 + n, ' ', st);
    }
}

char *tui_canvas_text(const struct tui_canvas *c)
{
    struct core_buf b;
    core_buf_init(&b);
    core_buf_append(&b, "", 0);
    for (int y = 0; y < c->h; y++) {
        if (y)
            core_buf_putc(&b, '\n');
        const struct tui_cell *row = c->cells + (size_t)y * (size_t)c->w;
        size_t keep = b.len; /* the length without trailing spaces */
        for (int x = 0; x < c->w; x++) {
            if (row[x].cp == 0)
                continue;
            char u[4];
            size_t n = core_utf8_encode(u, row[x].cp);
            core_buf_append(&b, u, n);
            if (row[x].cp != ' ')
                keep = b.len;
        }
        b.len = keep;
        b.data[b.len] = '\0';
    }
    return core_buf_steal(&b);
}
