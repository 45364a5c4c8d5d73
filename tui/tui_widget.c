/*
 * tui_widget.c — small widgets drawn into a canvas: the progress bar and the
 * single-line input editor.
 *
 * The input keeps its text as UTF-8 and its cursor as a byte offset on a
 * character boundary; a combining mark moves and is deleted with the
 * character before it (except by Backspace, which takes one code point, as
 * readline does). Horizontal scrolling keeps the cursor inside the field.
 */
#include "tui/tui_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- cut text ---------------------------------------------------------------- */

int tui_canvas_put_cut(struct tui_canvas *c, int y, int x, const char *s, struct tui_style st,
                       int max_w)
{
    if (!s || max_w <= 0)
        return 0;
    /* Under ASCII "±" is "+/-" and "…" is "...": measure what is drawn. */
    char *ascii = tui_canvas_ascii_expand(c, s);
    if (ascii) {
        int n = tui_canvas_put_cut(c, y, x, ascii, st, max_w);
        free(ascii);
        return n;
    }
    if (tui_text_width(s) <= max_w)
        return tui_canvas_put(c, y, x, s, st, max_w);
    /* ASCII has no ellipsis: "..." (one '.' would read as a full stop) */
    const char *dots = c->cs == TUI_CS_ASCII && max_w > 3 ? "..." : "…";
    int dw = c->cs == TUI_CS_ASCII && max_w > 3 ? 3 : 1;
    int used = 0;
    size_t keep = tui_text_fit(s, max_w - dw, &used);
    while (keep > 0 && s[keep - 1] == ' ') /* "L1 data …", not "L1 data  …" */
        keep--, used--;
    char buf[512];
    if (keep >= sizeof buf - 4)
        keep = sizeof buf - 4;
    memcpy(buf, s, keep);
    memcpy(buf + keep, dots, strlen(dots) + 1);
    return tui_canvas_put(c, y, x, buf, st, max_w);
}

/* ---- numbers for people --------------------------------------------------------- */

void tui_num_format(double v, const char *unit, char *buf, size_t n)
{
    const unsigned fl = CORE_HUMAN_WHOLE | CORE_HUMAN_BINARY | CORE_HUMAN_PREFIXED;
    if (unit && strcmp(unit, "yes/no") == 0 && n > 0) { /* a lab's yes-or-no figure */
        snprintf(buf, n, "%s", v != 0 ? "yes" : "no");
        return;
    }
    core_num_human(buf, n, v, unit, 3, fl);
    if (!strstr(buf, "e+") || !isfinite(v))
        return;
    /* A unit without a prefix of its own ("/s", "iterations", none): a rate
     * takes an SI prefix ("5 G/s"), a count a word ("114 million"), never
     * "5e+09 /s". */
    const char *u = unit ? unit : "";
    static const char *const si[] = {"k", "M", "G", "T", "P", "E"};
    static const char *const word[] = {"thousand", "million", "billion", "trillion"};
    bool rate = u[0] == '/';
    int q = 0;
    double x = v;
    while (fabs(x) >= 999.5 && q < (rate ? 6 : 4)) {
        x /= 1000;
        q++;
    }
    if (fabs(x) >= 999.5)
        return; /* beyond the words: the exponent says it best */
    char num[32];
    core_num_human(num, sizeof num, x, NULL, 3, 0);
    if (rate)
        snprintf(buf, n, "%s %s%s", num, si[q - 1], u);
    else
        snprintf(buf, n, "%s %s%s%s", num, word[q - 1], u[0] ? " " : "", u);
}

/* ---- list rows ------------------------------------------------------------ */

uint8_t tui_view_list_row(struct tui_canvas *c, struct tui_rect r, int y, bool sel, bool plain)
{
    uint8_t ra = sel && !plain ? TUI_A_REVERSE : 0;
    if (ra)
        tui_canvas_fill(c, (struct tui_rect){y, r.x, 1, r.w}, ' ', (struct tui_style){ra, 0});
    if (sel)
        tui_canvas_put(c, y, r.x + 1, c->cs == TUI_CS_UTF8 ? "▶" : ">",
                       (struct tui_style){(uint8_t)(ra | TUI_A_BOLD), TUI_C_ACCENT}, -1);
    return ra;
}

/* ---- bar ------------------------------------------------------------------ */

void tui_bar_draw(struct tui_canvas *c, int y, int x, int w, double frac, struct tui_style st)
{
    if (w <= 0)
        return;
    if (!(frac > 0)) /* also NaN */
        frac = 0;
    if (frac > 1)
        frac = 1;
    struct tui_style rest = {TUI_A_DIM, TUI_C_MUTED};
    int col = 0;
    if (c->cs == TUI_CS_ASCII) {
        /* Some progress is never all dots, and not done is never all '#'. */
        int full = (int)(frac * w + 0.5);
        if (frac > 0 && full < 1)
            full = 1;
        if (frac < 1 && full >= w && w > 1)
            full = w - 1;
        for (; col < full; col++)
            tui_canvas_set(c, y, x + col, '#', st);
        for (; col < w; col++)
            tui_canvas_set(c, y, x + col, '.', rest);
        return;
    }
    int eighths = (int)(frac * w * 8 + 0.5);
    for (; col < eighths / 8; col++)
        tui_canvas_set(c, y, x + col, 0x2588, st); /* full block */
    if (eighths % 8 && col < w) {
        /* U+2589 (seven eighths) .. U+258F (one eighth) */
        tui_canvas_set(c, y, x + col, 0x2590 - (uint32_t)(eighths % 8), st);
        col++;
    }
    for (; col < w; col++)
        tui_canvas_set(c, y, x + col, 0x2591, rest); /* light shade */
}

/* ---- input ---------------------------------------------------------------- */

void tui_input_init(struct tui_input *in)
{
    core_buf_init(&in->text);
    core_buf_append(&in->text, "", 0); /* data is never NULL */
    in->cursor = 0;
    in->scroll = 0;
}

void tui_input_fini(struct tui_input *in)
{
    core_buf_fini(&in->text);
}

void tui_input_set(struct tui_input *in, const char *s)
{
    core_buf_reset(&in->text);
    core_buf_puts(&in->text, s ? s : "");
    in->cursor = in->text.len;
    in->scroll = 0;
}

/* Skips combining marks that follow `at`, so a cursor never lands between a
 * character and its mark. */
static size_t skip_marks(const char *s, size_t at)
{
    size_t len;
    while (s[at]) {
        uint32_t cp = tui_utf8_next(s + at, &len);
        if (cp < 0x300 || tui_cp_width(cp) != 0)
            break;
        at += len;
    }
    return at;
}

static void cut(struct tui_input *in, size_t from, size_t to)
{
    struct core_buf *b = &in->text;
    memmove(b->data + from, b->data + to, b->len - to + 1);
    b->len -= to - from;
    in->cursor = from;
}

static bool printable(int key)
{
    if (key < 0x20 || key >= 0x110000)
        return false;
    if (key >= 0x7F && key < 0xA0)
        return false;
    return !(key >= 0xD800 && key <= 0xDFFF);
}

bool tui_input_key(struct tui_input *in, int key)
{
    struct core_buf *b = &in->text;
    const char *s = b->data;
    if (in->cursor > b->len)
        in->cursor = b->len;
    size_t cur = in->cursor;
    switch (key) {
    case TUI_K_LEFT:
        while (cur > 0) {
            cur = core_utf8_prev(s, cur);
            size_t len;
            uint32_t cp = tui_utf8_next(s + cur, &len);
            if (cp < 0x300 || tui_cp_width(cp) != 0)
                break; /* stop on a base character, not on its mark */
        }
        in->cursor = cur;
        return true;
    case TUI_K_RIGHT:
        in->cursor = skip_marks(s, core_utf8_next(s, cur));
        return true;
    case TUI_K_HOME:
    case 0x01: /* Ctrl-A */
        in->cursor = 0;
        return true;
    case TUI_K_END:
    case 0x05: /* Ctrl-E */
        in->cursor = b->len;
        return true;
    case TUI_K_BACKSPACE:
    case 0x08:
    case 0x7F:
        if (cur > 0)
            cut(in, core_utf8_prev(s, cur), cur);
        return true;
    case TUI_K_DELETE:
        if (cur < b->len)
            cut(in, cur, skip_marks(s, core_utf8_next(s, cur)));
        return true;
    case TUI_K_CTRL_U:
    case 0x15:
        cut(in, 0, cur);
        return true;
    case 0x0B: /* Ctrl-K: to the end */
        b->len = cur;
        b->data[cur] = '\0';
        return true;
    case 0x17: { /* Ctrl-W: the word before the cursor */
        size_t from = cur;
        while (from > 0 && s[from - 1] == ' ')
            from--;
        while (from > 0 && s[from - 1] != ' ')
            from--;
        cut(in, from, cur);
        return true;
    }
    default:
        break;
    }
    if (!printable(key))
        return false;
    char u[4];
    size_t n = core_utf8_encode(u, (uint32_t)key);
    core_buf_append(b, u, n); /* grow, then move the tail up */
    memmove(b->data + cur + n, b->data + cur, b->len - n - cur);
    memcpy(b->data + cur, u, n);
    in->cursor = cur + n;
    return true;
}

int tui_input_draw(struct tui_canvas *c, int y, int x, int w, struct tui_input *in,
                   struct tui_style st)
{
    if (w <= 0)
        return 0;
    const char *s = in->text.data ? in->text.data : "";
    size_t n = strlen(s);
    if (in->cursor > n)
        in->cursor = n;
    int cc = 0, tw = 0;
    size_t i = 0, len;
    while (s[i]) {
        if (i == in->cursor)
            cc = tw;
        tw += tui_cp_width(tui_utf8_next(s + i, &len));
        i += len;
    }
    if (in->cursor >= i)
        cc = tw;
    /* the cursor stays visible, and the field stays full when it can */
    if (in->scroll < 0)
        in->scroll = 0;
    if (cc < in->scroll)
        in->scroll = cc;
    if (cc - in->scroll > w - 1)
        in->scroll = cc - (w - 1);
    if (in->scroll > 0 && tw - in->scroll < w - 1)
        in->scroll = tw - (w - 1) > 0 ? tw - (w - 1) : 0;

    struct tui_rect r = {y, x, 1, w};
    tui_canvas_fill(c, r, ' ', st);
    int col = 0;
    for (i = 0; s[i]; i += len) {
        uint32_t cp = tui_utf8_next(s + i, &len);
        int cw = tui_cp_width(cp);
        if (cw == 0)
            continue;
        if (col >= in->scroll && col + cw <= in->scroll + w)
            tui_canvas_set(c, y, x + col - in->scroll, cp, st);
        col += cw;
        if (col >= in->scroll + w)
            break;
    }
    return cc - in->scroll;
}
