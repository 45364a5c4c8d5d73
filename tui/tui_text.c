/*
 * tui_text.c — UTF-8 decoding, display widths and line breaking.
 *
 * Widths come from our own tables (East Asian Wide/Fullwidth ranges and the
 * common combining marks), not from wcwidth(3): wcwidth depends on the
 * locale (it answers -1 for everything non-ASCII under LC_CTYPE=C), and the
 * canvas must lay text out the same way in tests, in a UTF-8 terminal and in
 * an ASCII one. The wide ranges agree with glibc 2.36's C.UTF-8 up to
 * U+3FFFF; rarer combining marks (Brahmic scripts beyond the common ones)
 * count one column where glibc says zero, which at worst leaves a blank.
 */
#include "tui/tui_internal.h"

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

struct range {
    uint32_t lo, hi;
};

/* Combining marks and format characters that take no column. */
static const struct range zero_width[] = {
    {0x0300, 0x036F},   {0x0483, 0x0489},   {0x0591, 0x05BD},   {0x05BF, 0x05BF},
    {0x05C1, 0x05C2},   {0x05C4, 0x05C5},   {0x05C7, 0x05C7},   {0x0610, 0x061A},
    {0x064B, 0x065F},   {0x0670, 0x0670},   {0x06D6, 0x06DC},   {0x06DF, 0x06E4},
    {0x06E7, 0x06E8},   {0x06EA, 0x06ED},   {0x0711, 0x0711},   {0x0730, 0x074A},
    {0x0900, 0x0902},   {0x093A, 0x093A},   {0x093C, 0x093C},   {0x0941, 0x0948},
    {0x094D, 0x094D},   {0x0951, 0x0957},   {0x0962, 0x0963},   {0x0981, 0x0981},
    {0x09BC, 0x09BC},   {0x09C1, 0x09C4},   {0x09CD, 0x09CD},   {0x0A01, 0x0A02},
    {0x0A3C, 0x0A3C},   {0x0A41, 0x0A42},   {0x0A47, 0x0A48},   {0x0A4B, 0x0A4D},
    {0x0ABC, 0x0ABC},   {0x0AC1, 0x0AC5},   {0x0AC7, 0x0AC8},   {0x0ACD, 0x0ACD},
    {0x0B01, 0x0B01},   {0x0B3C, 0x0B3C},   {0x0BCD, 0x0BCD},   {0x0C3E, 0x0C40},
    {0x0CBC, 0x0CBC},   {0x0D41, 0x0D44},   {0x0D4D, 0x0D4D},   {0x0E31, 0x0E31},
    {0x0E34, 0x0E3A},   {0x0E47, 0x0E4E},   {0x0EB1, 0x0EB1},   {0x0EB4, 0x0EBC},
    {0x0EC8, 0x0ECD},   {0x0F71, 0x0F7E},   {0x102D, 0x1030},   {0x1032, 0x1037},
    {0x1039, 0x103A},   {0x1160, 0x11FF},   {0x17B4, 0x17B5},   {0x17B7, 0x17BD},
    {0x17C6, 0x17C6},   {0x17C9, 0x17D3},   {0x180B, 0x180F},   {0x1AB0, 0x1AFF},
    {0x1DC0, 0x1DFF},   {0x200B, 0x200F},   {0x202A, 0x202E},   {0x2060, 0x206F},
    {0x20D0, 0x20FF},   {0x2CEF, 0x2CF1},   {0x2DE0, 0x2DFF},   {0x302A, 0x302D},
    {0x3099, 0x309A},   {0xA8E0, 0xA8F1},   {0xFB1E, 0xFB1E},   {0xFE00, 0xFE0F},
    {0xFE20, 0xFE2F},   {0xFEFF, 0xFEFF},   {0xFFF9, 0xFFFB},   {0x16FE4, 0x16FE4},
    {0x1D167, 0x1D169}, {0x1D173, 0x1D182}, {0x1D185, 0x1D18B}, {0x1D1AA, 0x1D1AD},
    {0xE0001, 0xE007F}, {0xE0100, 0xE01EF},
};

/* East Asian Wide and Fullwidth (CJK, Hangul, kana, emoji). */
static const struct range wide[] = {
    {0x1100, 0x115F},   {0x231A, 0x231B},   {0x2329, 0x232A},   {0x23E9, 0x23EC},
    {0x23F0, 0x23F0},   {0x23F3, 0x23F3},   {0x25FD, 0x25FE},   {0x2614, 0x2615},
    {0x2648, 0x2653},   {0x267F, 0x267F},   {0x2693, 0x2693},   {0x26A1, 0x26A1},
    {0x26AA, 0x26AB},   {0x26BD, 0x26BE},   {0x26C4, 0x26C5},   {0x26CE, 0x26CE},
    {0x26D4, 0x26D4},   {0x26EA, 0x26EA},   {0x26F2, 0x26F3},   {0x26F5, 0x26F5},
    {0x26FA, 0x26FA},   {0x26FD, 0x26FD},   {0x2705, 0x2705},   {0x270A, 0x270B},
    {0x2728, 0x2728},   {0x274C, 0x274C},   {0x274E, 0x274E},   {0x2753, 0x2755},
    {0x2757, 0x2757},   {0x2795, 0x2797},   {0x27B0, 0x27B0},   {0x27BF, 0x27BF},
    {0x2B1B, 0x2B1C},   {0x2B50, 0x2B50},   {0x2B55, 0x2B55},   {0x2E80, 0x303E},
    {0x3041, 0xA4CF},   {0xA960, 0xA97F},   {0xAC00, 0xD7A3},   {0xF900, 0xFAFF},
    {0xFE10, 0xFE19},   {0xFE30, 0xFE6F},   {0xFF00, 0xFF60},   {0xFFE0, 0xFFE6},
    {0x16FE0, 0x16FE3}, {0x16FF0, 0x16FF1}, {0x17000, 0x18CD5}, {0x18D00, 0x18D08},
    {0x1AFF0, 0x1AFFE}, {0x1B000, 0x1B2FF}, {0x1F004, 0x1F004}, {0x1F0CF, 0x1F0CF},
    {0x1F18E, 0x1F18E}, {0x1F191, 0x1F19A}, {0x1F200, 0x1F202}, {0x1F210, 0x1F23B},
    {0x1F240, 0x1F248}, {0x1F250, 0x1F251}, {0x1F260, 0x1F265}, {0x1F300, 0x1F320},
    {0x1F32D, 0x1F335}, {0x1F337, 0x1F37C}, {0x1F37E, 0x1F393}, {0x1F3A0, 0x1F3CA},
    {0x1F3CF, 0x1F3D3}, {0x1F3E0, 0x1F3F0}, {0x1F3F4, 0x1F3F4}, {0x1F3F8, 0x1F43E},
    {0x1F440, 0x1F440}, {0x1F442, 0x1F4FC}, {0x1F4FF, 0x1F53D}, {0x1F54B, 0x1F54E},
    {0x1F550, 0x1F567}, {0x1F57A, 0x1F57A}, {0x1F595, 0x1F596}, {0x1F5A4, 0x1F5A4},
    {0x1F5FB, 0x1F64F}, {0x1F680, 0x1F6C5}, {0x1F6CC, 0x1F6CC}, {0x1F6D0, 0x1F6D2},
    {0x1F6D5, 0x1F6D7}, {0x1F6DD, 0x1F6DF}, {0x1F6EB, 0x1F6EC}, {0x1F6F4, 0x1F6FC},
    {0x1F7E0, 0x1F7EB}, {0x1F7F0, 0x1F7F0}, {0x1F90C, 0x1F93A}, {0x1F93C, 0x1F945},
    {0x1F947, 0x1F9FF}, {0x1FA70, 0x1FAFF}, {0x20000, 0x2FFFD}, {0x30000, 0x3FFFD},
};

static bool in_table(uint32_t cp, const struct range *t, size_t n)
{
    if (cp < t[0].lo || cp > t[n - 1].hi)
        return false;
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (cp > t[mid].hi)
            lo = mid + 1;
        else if (cp < t[mid].lo)
            hi = mid;
        else
            return true;
    }
    return false;
}

int tui_cp_width(uint32_t cp)
{
    if (cp < 0x300)
        return 1; /* ASCII, Latin-1 and controls (drawn as one replacement) */
    if (in_table(cp, zero_width, sizeof zero_width / sizeof zero_width[0]))
        return 0;
    if (in_table(cp, wide, sizeof wide / sizeof wide[0]))
        return 2;
    return 1;
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
