/*
 * tui_internal.h — the TUI's internal layers. Not included outside tui/ and
 * its tests.
 *
 *   text    UTF-8 decoding, display width (wcwidth), wrapping
 *   canvas  a grid of cells in memory; every view draws here; tests read it
 *           back as text. Knows nothing of curses.
 *   chart   line charts into a canvas: braille (2x4 dots per cell), block
 *           characters, or ASCII, by charset; axes with units; legend
 *   md      Markdown (md4c) -> styled lines wrapped at a width
 *   term    the only curses code: init/restore, keys, canvas -> screen
 */
#ifndef WB_TUI_INTERNAL_H
#define WB_TUI_INTERNAL_H

#include "core/core.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- charset and styles -------------------------------------------------- */

enum tui_charset {
    TUI_CS_UTF8, /* braille charts, box drawing, block bars */
    TUI_CS_ASCII /* non-UTF-8 locale: + - | # and ASCII charts */
};

enum tui_attr {
    TUI_A_BOLD = 1,
    TUI_A_DIM = 2,
    TUI_A_UNDER = 4,
    TUI_A_REVERSE = 8,
    TUI_A_ITALIC = 16
};

/* Colour roles, mapped to curses pairs by term (all default under NO_COLOR
 * or on a monochrome terminal, where attributes alone carry meaning). */
enum tui_color {
    TUI_C_DEFAULT = 0,
    TUI_C_ACCENT, /* headings, selection */
    TUI_C_GOOD,   /* correct, done */
    TUI_C_BAD,    /* wrong, failed */
    TUI_C_WARN,
    TUI_C_MUTED, /* help text, axes */
    TUI_C_CODE,
    TUI_C_S1,
    TUI_C_S2,
    TUI_C_S3,
    TUI_C_S4,
    TUI_C_S5,
    TUI_C_S6, /* chart series */
    TUI_C_COUNT
};

struct tui_style {
    uint8_t attr;  /* enum tui_attr bits */
    uint8_t color; /* enum tui_color */
};

/* ---- text ---------------------------------------------------------------- */

/* Decodes one UTF-8 code point at s (invalid bytes decode as U+FFFD, one byte
 * each); *len gets the bytes used. */
uint32_t tui_utf8_next(const char *s, size_t *len);
/* Display columns of a code point (0 for combining, 2 for wide, 1 for
 * U+FFFD and control characters, which are shown as one replacement). */
int tui_cp_width(uint32_t cp);
/* Display columns of a UTF-8 string. */
int tui_text_width(const char *s);
/* Wraps s (paragraph text, '\n' forces a break) at `width` columns on spaces,
 * breaking words longer than the width. Lines are malloc'd copies. */
void tui_text_wrap(const char *s, int width, struct core_strlist *out);
/* The bytes of the longest prefix of s that fits in `cols` columns (whole
 * characters only); *used (optional) gets its columns. */
size_t tui_text_fit(const char *s, int cols, int *used);
/* The first line of s wrapped at `width` columns (the step tui_text_wrap
 * repeats; lets callers wrap with a different width per line or keep their
 * own styles): breaks after the last word that fits, at a '\n', or inside a
 * word longer than the line. *len gets the line's bytes without trailing
 * spaces, *cols its columns, *next the offset where the next line starts
 * (spaces at a wrap are skipped). Returns false when this line is the last
 * ("" and "a" are one line, "a\n" is two). */
bool tui_text_break(const char *s, int width, size_t *len, int *cols, size_t *next);

/* ---- canvas -------------------------------------------------------------- */

struct tui_cell {
    uint32_t cp; /* code point; 0 = right half of a wide character */
    struct tui_style st;
};

struct tui_canvas {
    int w, h;
    struct tui_cell *cells; /* h rows of w */
    enum tui_charset cs;
    bool mono; /* no colours (NO_COLOR, a monochrome terminal): charts mark each
                  series with its own character (as they always do in ASCII) */
};

struct tui_rect {
    int y, x, h, w;
};

void tui_canvas_init(struct tui_canvas *c, int w, int h, enum tui_charset cs);
void tui_canvas_fini(struct tui_canvas *c);
/* Resizes and clears. */
void tui_canvas_resize(struct tui_canvas *c, int w, int h);
void tui_canvas_clear(struct tui_canvas *c);
/* Writes UTF-8 text at (y, x), clipped to the canvas and to max_w columns
 * (max_w < 0: to the right edge). Under TUI_CS_ASCII non-ASCII code points
 * are written as '?' (a wide one as "??"), except box drawing (+ - |), blocks
 * ('#'), and a few look-alikes: • * · . … . – — - × x → > ← < µ u; the
 * relations ≤ ≥ ≠ take two cells, "<=" ">=" "!=" (never a bare "<").
 * Control characters show as U+FFFD ('?'); combining marks are dropped; a
 * wide character that does not fit leaves a space. Returns the columns
 * written. */
int tui_canvas_put(struct tui_canvas *c, int y, int x, const char *s, struct tui_style st,
                   int max_w);
/* printf-style tui_canvas_put. */
int tui_canvas_printf(struct tui_canvas *c, int y, int x, struct tui_style st, int max_w,
                      const char *fmt, ...) __attribute__((format(printf, 6, 7)));
void tui_canvas_set(struct tui_canvas *c, int y, int x, uint32_t cp, struct tui_style st);
void tui_canvas_fill(struct tui_canvas *c, struct tui_rect r, uint32_t cp, struct tui_style st);
/* A frame around r (box drawing, or +-| in ASCII) with an optional title. */
void tui_canvas_box(struct tui_canvas *c, struct tui_rect r, const char *title,
                    struct tui_style st);
/* The canvas as text: rows joined with '\n', trailing spaces trimmed.
 * Caller frees. For tests. */
char *tui_canvas_text(const struct tui_canvas *c);

/* Under ASCII, s with the signs the canvas draws as several cells spelt
 * out ("±" "+/-", "≤" "<=", "…" "..."), so that tui_text_width measures
 * what is drawn; NULL when the canvas is UTF-8 or s has none (draw s).
 * Caller frees. */
char *tui_canvas_ascii_expand(const struct tui_canvas *c, const char *s);

/* ---- widgets ------------------------------------------------------------- */

/* tui_canvas_put, but text wider than max_w columns is cut and ends with
 * "…" (ASCII "..."), so a reader sees that something is missing. Returns
 * the columns written. */
int tui_canvas_put_cut(struct tui_canvas *c, int y, int x, const char *s, struct tui_style st,
                       int max_w);

/* A number as people read it, for result tables: core_num_human with 3
 * significant figures, CORE_HUMAN_WHOLE, _BINARY and _PREFIXED, that is
 * (pure; writes at most n bytes, NUL-terminated when n > 0):
 *  - 3 significant figures, trailing zeros trimmed, never "-0"; whole
 *    numbers below a billion in full ("16", "1000000"); NaN "n/a";
 *  - bytes ("B", "KiB", "MiB", "GiB"): a whole number of KiB, MiB or GiB
 *    with its binary prefix ("32 KiB", "8 MiB"), other sizes with a decimal
 *    one ("1.05 MB", "512 B");
 *  - decimal-prefixed units of B/s, B, FLOP/s, bit/s, Hz rescaled to the
 *    prefix that fits ("0.0032 GB/s" is "3.2 MB/s", "1500 MB/s" "1.5 GB/s");
 *  - time: "s" below a second in ms, µs or ns, and "ms" from 1000 on in s;
 *  - "%" follows the number ("56%"); "×" or "x" after a space ("2.5 ×");
 *    other units after a space;
 *  - no exponent where words do: a rate of a bare "/unit" takes an SI
 *    prefix ("5 G/s"), a count a word ("2.5 billion", "11.4 billion
 *    iterations");
 *  - the unit "yes/no" (a lab's yes-or-no figure): "yes" or "no". */
void tui_num_format(double v, const char *unit, char *buf, size_t n);

/* Marks row y of r as a row of a list or form: when selected, reverse video
 * across r (unless `plain`: a row being edited stays plain, so the input
 * stands out) and the ▶ marker at column 1. Returns the attribute the
 * row's texts take (TUI_A_REVERSE or 0). The lab, calculator and form
 * lists all draw their rows this way. */
uint8_t tui_view_list_row(struct tui_canvas *c, struct tui_rect r, int y, bool sel, bool plain);

/* A horizontal bar of `w` columns filled to `frac` (0..1): eighth blocks in
 * UTF-8, '#' in ASCII. */
void tui_bar_draw(struct tui_canvas *c, int y, int x, int w, double frac, struct tui_style st);

/* A single-line input with the usual editing keys. Text is UTF-8. */
struct tui_input {
    struct core_buf text;
    size_t cursor; /* byte offset, always on a character boundary */
    int scroll;    /* first column shown */
};
void tui_input_init(struct tui_input *in);
void tui_input_fini(struct tui_input *in);
void tui_input_set(struct tui_input *in, const char *s);
/* Applies a key (enum tui_key or a Unicode code point). Returns true when it
 * was an editing key that it consumed. */
bool tui_input_key(struct tui_input *in, int key);
/* Draws it in w columns and returns the cursor column (relative to x). */
int tui_input_draw(struct tui_canvas *c, int y, int x, int w, struct tui_input *in,
                   struct tui_style st);

/* ---- keys ---------------------------------------------------------------- */

/* Keys as the screens see them: printable characters are their code points;
 * the rest are these values (above the Unicode range). */
enum tui_key {
    TUI_K_NONE = 0,
    TUI_K_UP = 0x110000,
    TUI_K_DOWN,
    TUI_K_LEFT,
    TUI_K_RIGHT,
    TUI_K_HOME,
    TUI_K_END,
    TUI_K_PGUP,
    TUI_K_PGDN,
    TUI_K_ENTER,
    TUI_K_TAB,
    TUI_K_BTAB,
    TUI_K_ESC,
    TUI_K_BACKSPACE,
    TUI_K_DELETE,
    TUI_K_CTRL_U,
    TUI_K_CTRL_C,
    TUI_K_CTRL_D,
    TUI_K_CTRL_S,
    TUI_K_RESIZE,
    TUI_K_TICK /* no key: the refresh timer */
};

/* ---- charts -------------------------------------------------------------- */

struct tui_series {
    const char *label;   /* legend */
    const double *x, *y; /* n points; NaN y values are gaps */
    size_t n;
    uint8_t color; /* enum tui_color */
    bool dashed;   /* reference curves (models) */
};

struct tui_chart {
    const char *title;
    const char *x_label; /* "p", "stride (B)" */
    const char *y_unit;  /* "×", "s", "GB/s" */
    const struct tui_series *s;
    size_t n_series;
    bool y_from_zero; /* include 0 in the y range */
    bool log_x;       /* log2 x axis (strides, sizes): ticks at powers of two */
    bool x_int;       /* x values are whole numbers (a lab's steps): ticks at whole
                         numbers, and a single point gets x - 1 .. x + 1 */
};

/* Draws the chart into r: title line (cut with "…" when too long), y axis
 * labels with the unit, plot area (braille in UTF-8 with a block-character
 * fallback selectable by `blocks`, characters in ASCII), x axis labels,
 * legend (on the title row when it fits, else on rows of its own, wrapped,
 * never cut mid-entry). Under ASCII or on a mono canvas each series is drawn
 * with (ASCII) or marked at its points by (UTF-8) its own character, solid
 * series * o + x # @ % &, dashed ones . : ~ =, which the legend shows. Empty
 * data draws the axes and "waiting for data". */
void tui_chart_draw(struct tui_canvas *c, struct tui_rect r, const struct tui_chart *ch,
                    bool blocks);

/* Charts side by side are TUI_CHART_GAP_W blank columns apart: a legend
 * ends at its chart's right edge, and one blank read it on into the next
 * chart's title ("── median time per trial speedup against p"); two blanks
 * are what separate a chart's own parts (title and legend, tick labels). */
#define TUI_CHART_GAP_W 3
/* The rectangle of chart i (0-based, row by row) of a grid of cols × rows
 * charts filling r: columns TUI_CHART_GAP_W apart, rows one blank row apart
 * where each keeps min_h rows with it (else touching: a chart's last row
 * and the next one's title are rows of their own). The last column and row
 * take what the division leaves. cols and rows below 1 count as 1; a cell
 * too small for anything has w or h 0 (tui_chart_draw draws nothing then). */
struct tui_rect tui_chart_grid_cell(struct tui_rect r, int cols, int rows, int min_h, int i);

/* ---- markdown ------------------------------------------------------------ */

/* One rendered line: runs of styled text. */
struct tui_span {
    char *text;
    struct tui_style st;
};
struct tui_line {
    struct tui_span *spans;
    size_t n;
    int indent; /* columns before the first span */
};
struct tui_doc {
    struct tui_line *lines;
    size_t n;
    int width; /* the width it was wrapped at */
};
void tui_doc_fini(struct tui_doc *d);

/* Renders Markdown with md4c (headings, emphasis, strong, inline code, code
 * blocks, lists (nested, numbered), tables, block quotes, rules, links as
 * "text <url>") wrapped at `width` columns. Code blocks and tables wider
 * than the width are cut with a marker rather than wrapped. Never fails on
 * any input. */
void tui_md_render(const char *md, int width, enum tui_charset cs, struct tui_doc *out);
/* Draws lines [first, first + r.h) of d into r. */
void tui_doc_draw(struct tui_canvas *c, struct tui_rect r, const struct tui_doc *d, size_t first);

/* tui_bench_lab_frame is declared in tui.h (the CLI runs it). */

#endif /* WB_TUI_INTERNAL_H */
