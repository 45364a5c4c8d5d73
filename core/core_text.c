/*
 * core_text.c — text that someone else wrote (a student's file, an
 * instructor's pack) made safe to show or write: the one place that decides
 * which characters never reach a terminal, a spreadsheet or a JSON reader
 * raw.
 *
 * Unsafe are the characters that change how the text around them is shown
 * rather than showing themselves: C0 controls and DEL (escape sequences,
 * carriage returns that overwrite a line, NUL), C1 controls (U+0080..U+009F,
 * which some terminals take as 8-bit CSI), the line and paragraph
 * separators U+2028/U+2029 (line breaks to JavaScript and some viewers) and
 * the bidirectional controls (U+061C, U+200E/F, U+202A..U+202E,
 * U+2066..U+2069: "Trojan source" reordering). A byte that is not valid
 * UTF-8 is escaped too: a lone 0x9B is CSI to an 8-bit terminal.
 *
 * Escapes are visible and readable: caret notation for C0 and DEL ("^[",
 * "^?"), <U+XXXX> for the others, <xHH> for a byte that is not UTF-8.
 */
#include "core/core.h"

#include <string.h>

bool core_text_unsafe(uint32_t cp)
{
    return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || cp == 0x2028 || cp == 0x2029 ||
           cp == 0x061C || cp == 0x200E || cp == 0x200F || (cp >= 0x202A && cp <= 0x202E) ||
           (cp >= 0x2066 && cp <= 0x2069);
}

/* Whether cp at this point is let through by the flags. */
static bool kept(uint32_t cp, unsigned flags)
{
    return (cp == '\n' && (flags & CORE_TEXT_NEWLINES)) || (cp == '\t' && (flags & CORE_TEXT_TABS));
}

bool core_text_clean(const char *s, unsigned flags)
{
    if (!s)
        return true;
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        if (*p >= 0x20 && *p < 0x7F) { /* the common case */
            p++;
            continue;
        }
        uint32_t cp;
        size_t n = core_utf8_decode((const char *)p, &cp);
        if (n == 0 || (core_text_unsafe(cp) && !kept(cp, flags)))
            return false;
        p += n;
    }
    return true;
}

void core_text_escape(struct core_buf *b, const char *s, unsigned flags)
{
    if (!s)
        return;
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        const unsigned char *run = p;
        while (*p >= 0x20 && *p < 0x7F)
            p++;
        if (p > run)
            core_buf_append(b, run, (size_t)(p - run));
        if (!*p)
            break;
        uint32_t cp;
        size_t n = core_utf8_decode((const char *)p, &cp);
        if (n == 0) {
            core_buf_printf(b, "<x%02X>", *p);
            p++;
        } else if (!core_text_unsafe(cp) || kept(cp, flags)) {
            core_buf_append(b, p, n);
            p += n;
        } else if (cp < 0x20 || cp == 0x7F) {
            core_buf_putc(b, '^');
            core_buf_putc(b, (char)(cp == 0x7F ? '?' : cp + '@'));
            p += n;
        } else {
            core_buf_printf(b, "<U+%04X>", (unsigned)cp);
            p += n;
        }
    }
}

char *core_text_safe(const char *s, unsigned flags)
{
    struct core_buf b;
    core_buf_init(&b);
    core_text_escape(&b, s ? s : "", flags);
    if (!b.data)
        core_buf_puts(&b, "");
    return core_buf_steal(&b);
}
