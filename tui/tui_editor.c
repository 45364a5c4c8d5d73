/*
 * tui_editor.c — a small multi-line text editor widget for design answers:
 * UTF-8 text, word-wrapped at the width it is drawn in, with the usual
 * movement and editing keys. No curses here: it draws into a canvas.
 */
#include "tui/tui_screen.h"

#include <stdlib.h>
#include <string.h>

#define EDITOR_MAX_BYTES (60u << 10) /* below the CLI's 64 KiB answer limit */

struct row {
    size_t start, end; /* [start, end) bytes, no '\n' */
    bool last;         /* the last row of its logical line */
};

void tui_editor_init(struct tui_editor *e)
{
    *e = (struct tui_editor){0};
    core_buf_init(&e->text);
    core_buf_puts(&e->text, "");
    e->width = 60;
    e->want_col = -1;
}

void tui_editor_fini(struct tui_editor *e)
{
    core_buf_fini(&e->text);
    *e = (struct tui_editor){0};
}

void tui_editor_set(struct tui_editor *e, const char *s)
{
    core_buf_reset(&e->text);
    core_buf_puts(&e->text, s ? s : "");
    e->cursor = e->text.len;
    e->top = 0;
    e->want_col = -1;
}

static const char *txt(const struct tui_editor *e)
{
    return e->text.data ? e->text.data : "";
}

/* Rows of the text wrapped at w columns, on spaces where possible. */
static size_t layout(const struct tui_editor *e, int w, struct row **out)
{
    const char *s = txt(e);
    size_t len = e->text.len, n = 0, cap = 16;
    struct row *rows = core_xmalloc(cap * sizeof *rows);
    if (w < 2)
        w = 2;
    size_t ls = 0;
    for (;;) {
        const char *nl = memchr(s + ls, '\n', len - ls);
        size_t le = nl ? (size_t)(nl - s) : len;
        size_t pos = ls;
        for (;;) {
            size_t start = pos, last_sp = 0;
            int col = 0;
            while (pos < le) {
                size_t cl;
                uint32_t cp = tui_utf8_next(s + pos, &cl);
                int cw = tui_cp_width(cp);
                if (col + cw > w && pos > start)
                    break;
                if (cp == ' ')
                    last_sp = pos + cl;
                col += cw;
                pos += cl;
            }
            if (pos < le && last_sp > start)
                pos = last_sp;
            if (n == cap) {
                cap *= 2;
                rows = core_xrealloc(rows, cap * sizeof *rows);
            }
            rows[n++] = (struct row){start, pos, pos >= le};
            if (pos >= le)
                break;
        }
        if (!nl)
            break;
        ls = le + 1;
    }
    *out = rows;
    return n;
}

static size_t cursor_row(const struct row *rows, size_t n, size_t cursor)
{
    for (size_t i = 0; i < n; i++)
        if (cursor >= rows[i].start &&
            (cursor < rows[i].end || (cursor == rows[i].end && rows[i].last)))
            return i;
    return n ? n - 1 : 0;
}

static int width_between(const char *s, size_t a, size_t b)
{
    int w = 0;
    while (a < b) {
        size_t cl;
        w += tui_cp_width(tui_utf8_next(s + a, &cl));
        a += cl;
    }
    return w;
}

/* The byte offset in row r closest to column col. */
static size_t offset_at(const char *s, const struct row *r, int col)
{
    size_t pos = r->start;
    int w = 0;
    while (pos < r->end) {
        size_t cl;
        int cw = tui_cp_width(tui_utf8_next(s + pos, &cl));
        if (w + cw > col)
            break;
        w += cw;
        pos += cl;
    }
    /* On a wrapped row the end belongs to the next row. */
    if (pos == r->end && !r->last && pos > r->start) {
        pos = core_utf8_prev(s, pos);
        if (pos < r->start)
            pos = r->start;
    }
    return pos;
}

static void buf_insert(struct core_buf *b, size_t at, const char *p, size_t n)
{
    size_t old = b->len;
    core_buf_append(b, p, n); /* grow (and keep the NUL) */
    memmove(b->data + at + n, b->data + at, old - at);
    memcpy(b->data + at, p, n);
    b->data[b->len] = '\0';
}

static void buf_delete(struct core_buf *b, size_t at, size_t n)
{
    memmove(b->data + at, b->data + at + n, b->len - at - n);
    b->len -= n;
    b->data[b->len] = '\0';
}

/* The character after pos, never past len (the text holds no NUL before
 * it). */
static size_t next_char(const char *s, size_t len, size_t pos)
{
    size_t at = pos >= len ? len : core_utf8_next(s, pos);
    return at > len ? len : at;
}

static void move_rows(struct tui_editor *e, int d)
{
    struct row *rows;
    size_t n = layout(e, e->width, &rows);
    size_t ri = cursor_row(rows, n, e->cursor);
    const char *s = txt(e);
    if (e->want_col < 0)
        e->want_col = width_between(s, rows[ri].start, e->cursor);
    long t = (long)ri + d;
    if (t < 0) {
        e->cursor = 0;
    } else if (t >= (long)n) {
        e->cursor = e->text.len;
    } else {
        e->cursor = offset_at(s, &rows[t], e->want_col);
    }
    free(rows);
}

bool tui_editor_key(struct tui_editor *e, int key)
{
    const char *s = txt(e);
    bool vertical = key == TUI_K_UP || key == TUI_K_DOWN || key == TUI_K_PGUP || key == TUI_K_PGDN;
    if (!vertical)
        e->want_col = -1;
    switch (key) {
    case TUI_K_LEFT:
        e->cursor = core_utf8_prev(s, e->cursor);
        return true;
    case TUI_K_RIGHT:
        e->cursor = next_char(s, e->text.len, e->cursor);
        return true;
    case TUI_K_UP:
        move_rows(e, -1);
        return true;
    case TUI_K_DOWN:
        move_rows(e, 1);
        return true;
    case TUI_K_PGUP:
        move_rows(e, -8);
        return true;
    case TUI_K_PGDN:
        move_rows(e, 8);
        return true;
    case TUI_K_HOME:
        while (e->cursor > 0 && s[e->cursor - 1] != '\n')
            e->cursor--;
        return true;
    case TUI_K_END:
        while (e->cursor < e->text.len && s[e->cursor] != '\n')
            e->cursor++;
        return true;
    case TUI_K_BACKSPACE:
        if (e->cursor > 0) {
            size_t p = core_utf8_prev(s, e->cursor);
            buf_delete(&e->text, p, e->cursor - p);
            e->cursor = p;
        }
        return true;
    case TUI_K_DELETE:
        if (e->cursor < e->text.len) {
            size_t nx = next_char(s, e->text.len, e->cursor);
            buf_delete(&e->text, e->cursor, nx - e->cursor);
        }
        return true;
    case TUI_K_CTRL_U: {
        size_t p = e->cursor;
        while (p > 0 && s[p - 1] != '\n')
            p--;
        buf_delete(&e->text, p, e->cursor - p);
        e->cursor = p;
        return true;
    }
    case TUI_K_ENTER:
        if (e->text.len + 1 > EDITOR_MAX_BYTES)
            return true;
        buf_insert(&e->text, e->cursor, "\n", 1);
        e->cursor++;
        return true;
    default:
        break;
    }
    if (key >= 32 && key < 0x110000 && key != 127) {
        char u[4];
        size_t n = core_utf8_encode(u, (uint32_t)key);
        if (e->text.len + n > EDITOR_MAX_BYTES)
            return true;
        buf_insert(&e->text, e->cursor, u, n);
        e->cursor += n;
        return true;
    }
    return false;
}

void tui_editor_draw(struct tui_canvas *c, struct tui_rect r, struct tui_editor *e,
                     struct tui_style st, struct tui_cursor *cur)
{
    if (r.w < 2 || r.h < 1)
        return;
    e->width = r.w - 1; /* one column for the cursor after a full row */
    struct row *rows;
    size_t n = layout(e, e->width, &rows);
    size_t ri = cursor_row(rows, n, e->cursor);
    if ((long)ri < e->top)
        e->top = (int)ri;
    if ((long)ri >= e->top + r.h)
        e->top = (int)ri - r.h + 1;
    if (e->top < 0)
        e->top = 0;
    const char *s = txt(e);
    for (int y = 0; y < r.h && (size_t)(e->top + y) < n; y++) {
        const struct row *rw = &rows[e->top + y];
        char *line = core_xstrndup(s + rw->start, rw->end - rw->start);
        tui_canvas_put(c, r.y + y, r.x, line, st, r.w);
        free(line);
    }
    if (cur) {
        cur->on = true;
        cur->y = r.y + (int)ri - e->top;
        cur->x = r.x + width_between(s, rows[ri].start, e->cursor);
        if (cur->x >= r.x + r.w)
            cur->x = r.x + r.w - 1;
    }
    free(rows);
}
