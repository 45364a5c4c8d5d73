/*
 * tui_text.c — UTF-8 decoding, display widths and line breaking.
 *
 * Widths come from utf8proc (utf8proc_charwidth: East Asian Wide and
 * Fullwidth count two columns, combining marks and format characters none,
 * from the Unicode tables of the library the system keeps current), not from
 * wcwidth(3): wcwidth depends on the locale (it answers -1 for everything
 * non-ASCII under LC_CTYPE=C), and the canvas must lay text out the same way
 * in tests, in a UTF-8 terminal and in an ASCII one. Code points that are not
 * characters, like controls, are drawn as one replacement: one column.
 */
#include "tui/tui_internal.h"

#include <utf8proc.h>

#include <stdlib.h>
#include <string.h>

uint32_t tui_utf8_next(const char *s, size_t *len)
{
    if (!*s) {
        *len = 0;
        return 0;
    }
    uint32_t cp;
    size_t n = core_utf8_decode(s, &cp);
    *len = n ? n : 1; /* U+FFFD for a byte that starts no valid sequence */
    return cp;
}

int tui_cp_width(uint32_t cp)
{
    if (cp < 0x300)
        return 1; /* ASCII, Latin-1 and controls (drawn as one replacement) */
    if (!utf8proc_codepoint_valid((utf8proc_int32_t)cp))
        return 1; /* drawn as one replacement too */
    return utf8proc_charwidth((utf8proc_int32_t)cp);
}

int tui_text_width(const char *s)
{
    int w = 0;
    size_t len;
    while (*s) {
        if ((unsigned char)*s < 0x80) {
            w++, s++;
            continue;
        }
        w += tui_cp_width(tui_utf8_next(s, &len));
        s += len;
    }
    return w;
}

size_t tui_text_fit(const char *s, int cols, int *used)
{
    size_t i = 0, len;
    int w = 0;
    while (s[i]) {
        uint32_t cp = tui_utf8_next(s + i, &len);
        int cw = tui_cp_width(cp);
        if (w + cw > cols)
            break;
        w += cw;
        i += len;
    }
    if (used)
        *used = w;
    return i;
}

bool tui_text_break(const char *s, int width, size_t *len_out, int *cols_out, size_t *next)
{
    if (width < 1)
        width = 1;
    size_t i = 0, len;
    int col = 0;
    /* the end of the text so far without trailing spaces */
    size_t content_end = 0;
    int content_cols = 0;
    /* the last place to break: the end of a word followed by spaces */
    bool have_brk = false;
    size_t brk = 0;
    int brk_cols = 0;
    bool more;
    for (;;) {
        unsigned char c = (unsigned char)s[i];
        if (c == '\0' || c == '\n') {
            *len_out = content_end;
            *cols_out = content_cols;
            *next = c ? i + 1 : i;
            more = c != '\0';
            break;
        }
        if (c == ' ') {
            if (content_end > 0 && content_end == i) {
                have_brk = true;
                brk = i;
                brk_cols = content_cols;
            }
            col++, i++;
            continue;
        }
        uint32_t cp = tui_utf8_next(s + i, &len);
        int w = tui_cp_width(cp);
        if (col + w > width && !(content_end == 0 && col == 0)) {
            /* (a character wider than the whole line goes alone) */
            if (have_brk) {
                *len_out = brk;
                *cols_out = brk_cols;
                size_t j = brk;
                while (s[j] == ' ')
                    j++;
                *next = j;
            } else {
                /* a word longer than the line is cut where it must be
                 * (after leading spaces only: an empty line) */
                *len_out = content_end ? i : 0;
                *cols_out = content_end ? col : 0;
                *next = i;
            }
            more = true;
            break;
        }
        col += w;
        i += len;
        content_end = i;
        content_cols = col;
    }
    return more;
}

void tui_text_wrap(const char *s, int width, struct core_strlist *out)
{
    const char *p = s ? s : "";
    for (;;) {
        size_t len, next;
        int cols;
        bool more = tui_text_break(p, width, &len, &cols, &next);
        char *line = core_xstrndup(p, len);
        core_strlist_push(out, line);
        free(line);
        if (!more)
            break;
        p += next;
    }
}
