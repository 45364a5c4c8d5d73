/*
 * core_utf8.c — UTF-8 decoding, encoding and stepping, in one place for
 * every module that looks inside text: the JSON writer (which escapes what
 * is not valid UTF-8), user names in the store, and the TUI's text layout
 * and line editors.
 *
 * Validity is the Unicode standard's: no overlong forms, no surrogates,
 * nothing beyond U+10FFFF. Stepping treats each byte that does not start a
 * valid sequence as a character of its own, so stepping forward, stepping
 * back and drawing always agree on where characters start.
 */
#include "core/core.h"

size_t core_utf8_decode(const char *s, uint32_t *cp)
{
    const unsigned char *p = (const unsigned char *)s;
    unsigned char c = p[0];
    *cp = 0xFFFD;
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    uint32_t v, min;
    size_t n;
    if (c >= 0xC2 && c <= 0xDF) {
        n = 2, v = c & 0x1F, min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3, v = c & 0x0F, min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4, v = c & 0x07, min = 0x10000;
    } else {
        return 0; /* a stray continuation byte, C0/C1 or F5..FF */
    }
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xC0) != 0x80) /* also stops at the NUL */
            return 0;
        v = v << 6 | (p[i] & 0x3F);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return 0; /* overlong, beyond Unicode, or a surrogate */
    *cp = v;
    return n;
}

size_t core_utf8_next(const char *s, size_t at)
{
    if (!s[at])
        return at;
    uint32_t cp;
    size_t n = core_utf8_decode(s + at, &cp);
    return at + (n ? n : 1);
}

/* A byte that starts a character: anything but a continuation byte, which
 * only ever continues a valid sequence or stands alone. */
size_t core_utf8_prev(const char *s, size_t at)
{
    if (at == 0)
        return 0;
    for (size_t k = 1; k <= 4 && k <= at; k++) {
        if (((unsigned char)s[at - k] & 0xC0) != 0x80) {
            uint32_t cp;
            return core_utf8_decode(s + at - k, &cp) == k ? at - k : at - 1;
        }
    }
    return at - 1;
}

size_t core_utf8_encode(char out[4], uint32_t cp)
{
    if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        cp = 0xFFFD;
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | cp >> 6);
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | cp >> 12);
        out[1] = (char)(0x80 | (cp >> 6 & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | cp >> 18);
    out[1] = (char)(0x80 | (cp >> 12 & 0x3F));
    out[2] = (char)(0x80 | (cp >> 6 & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}
